/* test_check_oracle.c — the measure of `gpuclean check`: agreement with what the real
 * LiteRT GPU accelerator said about every corpus model (shared/oracle, read at test
 * time; nothing of it is copied into the repository). For every model the oracle has a
 * residency for (status full / partial, or error with a residency line):
 *   - predicted GPU nodes of the primary subgraph == the delegate's gpu_ops, and the
 *     remaining nodes == cpu_ops;
 *   - status full => predicted fully GPU-resident;
 *   - the delegate's own "Following operations are not supported" lines (webgpu-fp32
 *     run, jsonl) == the lines gpuclean predicts, exactly;
 *   - every op type of the truth file's rejected_ops is one gpuclean rejects.
 * Disagreements we cannot fix are listed in `expected[]` with the reason, and printed.
 */
#include "test.h"
#include "check/check.h"

#include <ctype.h>
#include <stdint.h>

/* ---- a minimal JSON reader (enough for the oracle files) ---------------------------------- */

typedef struct jv {
    char kind;                 /* 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null */
    double num;
    char *str;
    int n;
    struct jv *items;
    char **keys;
} jv;

typedef struct { const char *p, *end; int bad; } jp;

static void ws(jp *s) { while (s->p < s->end && isspace((unsigned char)*s->p)) s->p++; }

static char *jstring(jp *s) {
    if (s->p >= s->end || *s->p != '"') { s->bad = 1; return NULL; }
    s->p++;
    size_t cap = 64, n = 0;
    char *o = malloc(cap);
    while (s->p < s->end && *s->p != '"') {
        char c = *s->p++;
        if (c == '\\' && s->p < s->end) {
            char e = *s->p++;
            if (e == 'n') c = '\n'; else if (e == 't') c = '\t'; else if (e == 'r') c = '\r';
            else if (e == 'b') c = '\b'; else if (e == 'f') c = '\f';
            else if (e == 'u' && s->end - s->p >= 4) {
                unsigned v = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *s->p++;
                    v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower((unsigned char)h) - 'a' + 10));
                }
                char buf[4]; int k = 0;   /* UTF-8 (no surrogate pairs needed here) */
                if (v < 0x80) buf[k++] = (char)v;
                else if (v < 0x800) { buf[k++] = (char)(0xC0 | (v >> 6)); buf[k++] = (char)(0x80 | (v & 63)); }
                else { buf[k++] = (char)(0xE0 | (v >> 12)); buf[k++] = (char)(0x80 | ((v >> 6) & 63)); buf[k++] = (char)(0x80 | (v & 63)); }
                for (int i = 0; i < k; i++) { if (n + 2 > cap) o = realloc(o, cap *= 2); o[n++] = buf[i]; }
                continue;
            } else c = e;
        }
        if (n + 2 > cap) o = realloc(o, cap *= 2);
        o[n++] = c;
    }
    if (s->p >= s->end) s->bad = 1; else s->p++;
    o[n] = 0;
    return o;
}

static void jparse(jp *s, jv *v, int depth) {
    memset(v, 0, sizeof *v);
    ws(s);
    if (s->p >= s->end || depth > 32) { s->bad = 1; return; }
    char c = *s->p;
    if (c == '{' || c == '[') {
        v->kind = c == '{' ? 'o' : 'a';
        s->p++;
        int cap = 0;
        ws(s);
        if (s->p < s->end && *s->p == (c == '{' ? '}' : ']')) { s->p++; return; }
        for (;;) {
            if (v->n == cap) {
                cap = cap ? cap * 2 : 8;
                v->items = realloc(v->items, sizeof(jv) * (size_t)cap);
                if (v->kind == 'o') v->keys = realloc(v->keys, sizeof(char *) * (size_t)cap);
            }
            if (v->kind == 'o') {
                ws(s);
                v->keys[v->n] = jstring(s);
                ws(s);
                if (s->p >= s->end || *s->p != ':') { s->bad = 1; return; }
                s->p++;
            }
            jparse(s, &v->items[v->n++], depth + 1);
            if (s->bad) return;
            ws(s);
            if (s->p < s->end && *s->p == ',') { s->p++; continue; }
            if (s->p < s->end && *s->p == (v->kind == 'o' ? '}' : ']')) { s->p++; return; }
            s->bad = 1;
            return;
        }
    }
    if (c == '"') { v->kind = 's'; v->str = jstring(s); return; }
    if (!strncmp(s->p, "true", 4)) { v->kind = 'b'; v->num = 1; s->p += 4; return; }
    if (!strncmp(s->p, "false", 5)) { v->kind = 'b'; s->p += 5; return; }
    if (!strncmp(s->p, "null", 4)) { v->kind = 'z'; s->p += 4; return; }
    char *e;
    v->kind = 'n';
    v->num = strtod(s->p, &e);
    if (e == s->p) s->bad = 1;
    s->p = e;
}

static void jfree(jv *v) {
    for (int i = 0; i < v->n; i++) { jfree(&v->items[i]); if (v->keys) free(v->keys[i]); }
    free(v->items); free(v->keys); free(v->str);
}

static const jv *jget(const jv *o, const char *k) {
    if (!o || o->kind != 'o') return NULL;
    for (int i = 0; i < o->n; i++) if (!strcmp(o->keys[i], k)) return &o->items[i];
    return NULL;
}

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    b[*n] = 0;
    fclose(f);
    return b;
}

/* ---- the agreement test ---------------------------------------------------------------------- */

/* disagreements that remain, with the reason; printed whenever the test runs */
static const struct { const char *model, *what, *why; } expected[] = {
    { NULL, NULL, NULL },
};

static bool expected_disagreement(const char *model, const char *what) {
    for (size_t i = 0; expected[i].model; i++)
        if (!strcmp(expected[i].model, model) && !strcmp(expected[i].what, what)) return true;
    return false;
}

static const char *oracle_dir(void) {
    static char buf[1100];
    const char *env = getenv("GPUCLEAN_ORACLE");
    if (env && *env) return env;
    const char *c = gc_test_corpus_dir();
    if (!c) return NULL;
    snprintf(buf, sizeof buf, "%s/../oracle", c);
    return buf;
}

/* the delegate's unsupported lines for one model from the webgpu-fp32 jsonl record */
static const jv *jsonl_unsupported(jv *recs, int n, const char *model) {
    for (int i = 0; i < n; i++) {
        const jv *m = jget(&recs[i], "model"), *mode = jget(&recs[i], "mode"), *kind = jget(&recs[i], "kind");
        if (m && mode && kind && !strcmp(m->str, model) && !strcmp(mode->str, "webgpu-fp32") &&
            !strcmp(kind->str, "oracle"))
            return jget(&recs[i], "unsupported");
    }
    return NULL;
}

GC_TEST(check_oracle_agreement) {
    const char *odir = oracle_dir(), *cdir = gc_test_corpus_dir();
    if (!odir || !cdir) SKIP("../shared/corpus or ../shared/oracle not found (GPUCLEAN_CORPUS / GPUCLEAN_ORACLE)");
    char path[1200];
    size_t n;
    snprintf(path, sizeof path, "%s/truth-h200-webgpu-litertjs-2.5.3.json", odir);
    char *truth_text = slurp(path, &n);
    if (!truth_text) SKIP("the oracle truth file is not in %.200s", odir);
    jp s = { truth_text, truth_text + n, 0 };
    jv truth;
    jparse(&s, &truth, 0);
    CHECK(!s.bad && truth.kind == 'o');
    /* the jsonl: one record per line */
    snprintf(path, sizeof path, "%s/h200-webgpu-litertjs-2.5.3.jsonl", odir);
    char *lines = slurp(path, &n);
    jv recs[512];
    int n_recs = 0;
    for (char *p = lines, *e; p && *p && n_recs < 512; p = e + 1) {
        e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        jp ls = { p, e, 0 };
        jparse(&ls, &recs[n_recs], 0);
        if (!ls.bad) n_recs++; else jfree(&recs[n_recs]);
        if (!*e) break;
    }

    int compared = 0, agreed = 0, listed = 0;
    for (int i = 0; truth.kind == 'o' && i < truth.n; i++) {
        const char *model = truth.keys[i];
        const jv *e = &truth.items[i];
        const jv *status = jget(e, "status"), *gpu = jget(e, "gpu_ops"), *cpu = jget(e, "cpu_ops");
        const jv *rej = jget(e, "rejected_ops");
        bool full = status && !strcmp(status->str, "full");
        bool residency = full || (gpu && gpu->kind == 'n' && cpu && cpu->kind == 'n');
        if (!residency) continue;   /* LiteRT.js failed before the delegate spoke */
        char mpath[1200], err[256];
        snprintf(mpath, sizeof mpath, "%s/%s", cdir, model);
        gc_model *m = gc_model_read_file(mpath, err, sizeof err);
        CHECK_MSG(m != NULL, "%s: %s", mpath, err);
        if (!m) continue;
        gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
        CHECK(r != NULL);
        if (!r) { gc_model_free(m); continue; }
        compared++;
        int32_t sg0 = 0;
        while (sg0 < r->n_subgraphs && r->subgraphs[sg0].skipped) sg0++;
        const gc_check_subgraph *S = &r->subgraphs[sg0 < r->n_subgraphs ? sg0 : 0];
        bool ok = true;
        char what[64];
        if (full) {
            if (!r->gpu_clean && !expected_disagreement(model, "full")) {
                fprintf(stderr, "  %s: oracle full, predicted %d/%d\n", model, r->gpu_nodes, r->total_nodes);
                ok = false;
            }
        } else {
            int g = (int)gpu->num, cp = (int)cpu->num;
            snprintf(what, sizeof what, "gpu_ops");
            if ((S->gpu_nodes != g || S->nodes - S->gpu_nodes != cp) && !expected_disagreement(model, what)) {
                fprintf(stderr, "  %s: oracle %d GPU / %d CPU, predicted %d / %d\n", model, g, cp, S->gpu_nodes,
                        S->nodes - S->gpu_nodes);
                ok = false;
            }
        }
        /* rejected op types */
        for (int k = 0; rej && k < rej->n; k++) {
            bool found = false;
            for (int32_t j = 0; j < r->n_nodes && !found; j++)
                found = r->nodes[j].state == GC_NODE_REJECTED && !strcmp(r->nodes[j].op_label, rej->items[k].str);
            if (!found && !expected_disagreement(model, "rejected_ops")) {
                fprintf(stderr, "  %s: oracle rejects %s, gpuclean does not\n", model, rej->items[k].str);
                ok = false;
            }
        }
        /* the delegate's own lines, exactly */
        const jv *uns = jsonl_unsupported(recs, n_recs, model);
        if (uns && uns->kind == 'a') {
            const char *log = S->delegate_log ? S->delegate_log : "";
            int ours = 0;
            for (const char *p = strchr(log, '\n'); p && strchr(p + 1, '\n'); p = strchr(p + 1, '\n')) ours++;
            for (int k = 0; k < uns->n; k++) {
                char needle[1024];
                snprintf(needle, sizeof needle, "\n%s\n", uns->items[k].str);
                if (!strstr(log, needle) && !expected_disagreement(model, "unsupported")) {
                    fprintf(stderr, "  %s: delegate said \"%s\", not predicted\n", model, uns->items[k].str);
                    ok = false;
                }
            }
            if (ours != uns->n && !expected_disagreement(model, "unsupported")) {
                fprintf(stderr, "  %s: %d predicted unsupported lines, the delegate printed %d\n", model, ours, uns->n);
                ok = false;
            }
            listed++;
        } else if (!full && S->delegate_log && S->delegate_log[0] && !uns) {
            fprintf(stderr, "  %s: no unsupported list in the jsonl\n", model);
        }
        if (ok) agreed++;
        else gc_test_failures++;
        printf("     oracle %-58s %-8s predicted %4d/%-4d  %s\n", model, status->str, S->gpu_nodes, S->nodes,
               ok ? "agrees" : "DISAGREES");
        gc_check_free(r);
        gc_model_free(m);
    }
    if (!expected[0].model) printf("     expected disagreements: none\n");
    for (size_t i = 0; expected[i].model; i++)
        printf("     expected disagreement: %s (%s): %s\n", expected[i].model, expected[i].what, expected[i].why);
    printf("     %d models compared, %d agree, %d with the delegate's own reason lines\n", compared, agreed, listed);
    CHECK(compared >= 12);
    for (int i = 0; i < n_recs; i++) jfree(&recs[i]);
    jfree(&truth);
    free(truth_text);
    free(lines);
}
