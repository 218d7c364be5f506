/* fuzz_verify.c — libFuzzer target for `gpuclean verify` and `gpuclean compare` with
 * hostile .npy inputs: the very CLI code (src/cli/verify.c, src/cli/compare.c), run on a
 * fixed small model (x[1,8] float32 + constant -> ADD -> y, and y -> MUL -> a 1-element
 * SUM head, so the 1-element path is reached too).
 *
 * Input: [flags][n1: u16 LE][n2: u16 LE][n1 bytes: input_0.npy][output_0.npy][output_1.npy]
 *   flags bit 0 --json, bit 1 --precision both, bit 2 --argmax, bit 3 --rtol 1e-3 --atol 1e-5,
 *   bit 4: output_0.npy is the next n2 bytes and output_1.npy the rest (else output_0.npy
 *   is the rest and there is no output_1.npy), bit 5 compare the two directories
 *   instead of the two files.
 * Both verbs must exit 0, 1 or 2 and never crash; with --json whatever they print must be
 * one valid JSON document in valid UTF-8 (checked here, strictly); a sanitizer report is
 * a bug. stdout goes to a scratch file (FUZZ_VERIFY_STDOUT=1 keeps it on the terminal). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model/model.h"
#include "verify/npy.h"

int gc_cli_verify(int argc, char **argv);
int gc_cli_compare(int argc, char **argv);

static char g_dir[256], g_model[320], g_ref[320], g_ref2[320], g_out[320];
static int g_outfd = -1, g_stdout = -1;     /* the scratch file for the verbs' stdout; the real one */

static void write_file(const char *path, const uint8_t *d, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); abort(); }
    if (n && fwrite(d, 1, n, f) != n) abort();
    fclose(f);
}

static void rm_file(const char *dir, const char *name) {
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    unlink(p);
}

static void cleanup(void) {
    const char *names[] = { "input_0.npy", "output_0.npy", "output_1.npy" };
    for (int i = 0; i < 3; i++) { rm_file(g_ref, names[i]); rm_file(g_ref2, names[i]); }
    rmdir(g_ref); rmdir(g_ref2);
    unlink(g_model); unlink(g_out);
    rmdir(g_dir);
}

static void build_model(void) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    const int32_t sh[2] = { 1, 8 }, one[1] = { 1 }, axis_shape[1] = { 2 };
    const float c[8] = { 0.5f, -1.0f, 2.0f, 0.25f, 3.0f, -0.75f, 1.5f, 0.0f };
    const int32_t axes[2] = { 0, 1 };
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, sh, 0);
    int32_t cb = gc_model_add_buffer(m, c, sizeof c);
    int32_t k = gc_sg_add_tensor(m, sg, "c", GC_T_FLOAT32, 2, sh, (uint32_t)cb);
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 2, sh, 0);
    int32_t z = gc_sg_add_tensor(m, sg, "z", GC_T_FLOAT32, 2, sh, 0);
    int32_t ab = gc_model_add_buffer(m, axes, sizeof axes);
    int32_t ax = gc_sg_add_tensor(m, sg, "axes", GC_T_INT32, 1, axis_shape, (uint32_t)ab);
    int32_t s = gc_sg_add_tensor(m, sg, "score", GC_T_FLOAT32, 1, one, 0);
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_ADD, NULL, 1), 2, (int32_t[]){ x, k }, 1, (int32_t[]){ y });
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_MUL, NULL, 1), 2, (int32_t[]){ y, y }, 1, (int32_t[]){ z });
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_SUM, NULL, 1), 2, (int32_t[]){ z, ax }, 1, (int32_t[]){ s });
    gc_sg_set_io(m, sg, 1, (int32_t[]){ x }, 2, (int32_t[]){ y, s });
    char err[512];
    if (gc_model_write_file(m, g_model, NULL, err, sizeof err) != GC_OK) { fprintf(stderr, "%s\n", err); abort(); }
    gc_model_free(m);
}

static void setup(void) {
    if (g_dir[0]) return;
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    if (!tmp || !*tmp) tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";   /* memory: fast */
    snprintf(g_dir, sizeof g_dir, "%s/fuzz_verify_%d", tmp, (int)getpid());
    if (mkdir(g_dir, 0700) != 0) { perror(g_dir); abort(); }
    snprintf(g_model, sizeof g_model, "%s/model.tflite", g_dir);
    snprintf(g_ref, sizeof g_ref, "%s/ref", g_dir);
    snprintf(g_ref2, sizeof g_ref2, "%s/ref2", g_dir);
    snprintf(g_out, sizeof g_out, "%s/stdout", g_dir);
    mkdir(g_ref, 0700);
    mkdir(g_ref2, 0700);
    build_model();
    atexit(cleanup);
    g_outfd = open(g_out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    g_stdout = dup(STDOUT_FILENO);
    if (g_outfd < 0 || g_stdout < 0) abort();
}

/* the verbs print into the scratch file (unless FUZZ_VERIFY_STDOUT is set) */
static bool capture = false;
static void stdout_to_scratch(void) {
    capture = !getenv("FUZZ_VERIFY_STDOUT");
    if (!capture) return;
    fflush(stdout);
    if (ftruncate(g_outfd, 0) != 0 || lseek(g_outfd, 0, SEEK_SET) != 0 || dup2(g_outfd, STDOUT_FILENO) < 0) abort();
}
static void stdout_back(void) {
    if (!capture) return;
    fflush(stdout);
    if (dup2(g_stdout, STDOUT_FILENO) < 0) abort();
}

/* ---- a strict JSON checker (RFC 8259, UTF-8) --------------------------------------- */

typedef struct { const unsigned char *p, *e; int depth; } js;

static void ws(js *j) { while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++; }

static bool utf8(js *j) {                       /* one UTF-8 sequence, not overlong, no surrogates */
    unsigned c = *j->p, n = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 9;
    if (n == 9 || j->e - j->p <= (long)n) return false;
    unsigned v = n ? c & (0x3F >> n) : c;
    for (unsigned i = 1; i <= n; i++) {
        if ((j->p[i] & 0xC0) != 0x80) return false;
        v = (v << 6) | (j->p[i] & 0x3F);
    }
    static const unsigned min[4] = { 0, 0x80, 0x800, 0x10000 };
    if (v < min[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
    j->p += n + 1;
    return true;
}

static bool jstring(js *j) {
    if (j->p >= j->e || *j->p != '"') return false;
    j->p++;
    while (j->p < j->e && *j->p != '"') {
        if (*j->p < 0x20) return false;
        if (*j->p == '\\') {
            j->p++;
            if (j->p >= j->e) return false;
            if (*j->p == 'u') {
                for (int i = 1; i <= 4; i++) if (j->p + i >= j->e || !strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i]) return false;
                j->p += 5;
            } else if (strchr("\"\\/bfnrt", *j->p) && *j->p) j->p++;
            else return false;
        } else if (!utf8(j)) return false;
    }
    if (j->p >= j->e) return false;
    j->p++;
    return true;
}

static bool jnumber(js *j) {
    const unsigned char *s = j->p;
    if (j->p < j->e && *j->p == '-') j->p++;
    if (j->p >= j->e) return false;
    if (*j->p == '0') j->p++;
    else if (*j->p >= '1' && *j->p <= '9') while (j->p < j->e && *j->p >= '0' && *j->p <= '9') j->p++;
    else return false;
    if (j->p < j->e && *j->p == '.') {
        j->p++;
        if (j->p >= j->e || *j->p < '0' || *j->p > '9') return false;
        while (j->p < j->e && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    if (j->p < j->e && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->e && (*j->p == '+' || *j->p == '-')) j->p++;
        if (j->p >= j->e || *j->p < '0' || *j->p > '9') return false;
        while (j->p < j->e && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    return j->p > s;
}

static bool jvalue(js *j) {
    ws(j);
    if (j->p >= j->e || ++j->depth > 64) return false;
    bool ok;
    if (*j->p == '{' || *j->p == '[') {
        unsigned char close = *j->p == '{' ? '}' : ']';
        bool obj = close == '}';
        j->p++; ws(j);
        ok = true;
        if (j->p < j->e && *j->p == close) j->p++;
        else for (;;) {
            if (obj) { ws(j); if (!jstring(j)) { ok = false; break; } ws(j); if (j->p >= j->e || *j->p++ != ':') { ok = false; break; } }
            if (!jvalue(j)) { ok = false; break; }
            ws(j);
            if (j->p < j->e && *j->p == ',') { j->p++; continue; }
            if (j->p < j->e && *j->p == close) { j->p++; break; }
            ok = false; break;
        }
    } else if (*j->p == '"') ok = jstring(j);
    else if (j->e - j->p >= 4 && !memcmp(j->p, "true", 4)) { j->p += 4; ok = true; }
    else if (j->e - j->p >= 5 && !memcmp(j->p, "false", 5)) { j->p += 5; ok = true; }
    else if (j->e - j->p >= 4 && !memcmp(j->p, "null", 4)) { j->p += 4; ok = true; }
    else ok = jnumber(j);
    j->depth--;
    return ok;
}

/* what the verb printed: nothing, or (with --json) exactly one valid document */
static void check_stdout(const char *verb, bool json) {
    fflush(stdout);
    FILE *f = fopen(g_out, "rb");
    if (!f) abort();
    static unsigned char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (json && n) {
        js j = { buf, buf + n, 0 };
        bool ok = jvalue(&j);
        ws(&j);
        if (!ok || j.p != j.e) {
            fprintf(stderr, "%s --json printed invalid JSON at byte %ld of %zu:\n%.*s\n", verb,
                    (long)(j.p - buf), n, (int)(n < 2000 ? n : 2000), buf);
            abort();
        }
    }
    if (ftruncate(g_outfd, 0) != 0 || lseek(g_outfd, 0, SEEK_SET) != 0) abort();
}

static void check_rc(const char *verb, int rc) {
    if (rc < 0 || rc > 2) { fprintf(stderr, "%s exited %d (want 0, 1 or 2)\n", verb, rc); abort(); }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 5 || size > (1u << 20)) return 0;
    setup();
    unsigned flags = data[0];
    size_t l1 = (size_t)data[1] | ((size_t)data[2] << 8), l2 = (size_t)data[3] | ((size_t)data[4] << 8);
    data += 5; size -= 5;
    if (l1 > size) l1 = size;
    char p[400];
    snprintf(p, sizeof p, "%s/input_0.npy", g_ref);
    write_file(p, data, l1);
    const uint8_t *rest = data + l1;
    size_t rn = size - l1;
    rm_file(g_ref, "output_1.npy");
    snprintf(p, sizeof p, "%s/output_0.npy", g_ref);
    if (l2 > rn) l2 = rn;
    if (flags & 16) {
        write_file(p, rest, l2);
        snprintf(p, sizeof p, "%s/output_1.npy", g_ref);
        write_file(p, rest + l2, rn - l2);
    } else {
        write_file(p, rest, rn);
    }

    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"verify";
    argv[argc++] = g_model;
    argv[argc++] = (char *)"--ref";
    argv[argc++] = g_ref;
    if (flags & 1) argv[argc++] = (char *)"--json";
    if (flags & 2) { argv[argc++] = (char *)"--precision"; argv[argc++] = (char *)"both"; }
    if (flags & 4) argv[argc++] = (char *)"--argmax";
    if (flags & 8) {
        argv[argc++] = (char *)"--rtol"; argv[argc++] = (char *)"1e-3";
        argv[argc++] = (char *)"--atol"; argv[argc++] = (char *)"1e-5";
    }
    argv[argc] = NULL;
    stdout_to_scratch();
    check_rc("verify", gc_cli_verify(argc, argv));
    if (capture) check_stdout("verify", flags & 1);

    /* compare: the two files, or the two directories (ref2 holds them under swapped names) */
    char a[400], b[400];
    argc = 0;
    argv[argc++] = (char *)"compare";
    if (flags & 32) {
        char q[400];
        snprintf(q, sizeof q, "%s/output_0.npy", g_ref2);
        write_file(q, data, l1);
        snprintf(q, sizeof q, "%s/input_0.npy", g_ref2);
        write_file(q, rest, flags & 16 ? l2 : rn);
        argv[argc++] = g_ref;
        argv[argc++] = g_ref2;
    } else {
        snprintf(a, sizeof a, "%s/input_0.npy", g_ref);
        snprintf(b, sizeof b, "%s/output_0.npy", g_ref);
        argv[argc++] = a;
        argv[argc++] = b;
    }
    if (flags & 1) argv[argc++] = (char *)"--json";
    if (flags & 8) { argv[argc++] = (char *)"--rtol"; argv[argc++] = (char *)"1e-3"; }
    argv[argc] = NULL;
    check_rc("compare", gc_cli_compare(argc, argv));
    if (capture) check_stdout("compare", flags & 1);
    stdout_back();
    return 0;
}
