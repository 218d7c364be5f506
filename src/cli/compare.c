/* compare.c — `gpuclean compare A B [--rtol R] [--atol A] [--json]`
 *
 * A and B are two .npy files, two .npz archives, or two directories; B is the reference.
 * Directories: every *.npy name present in both is compared (sorted by name); a name on
 * one side only is reported as missing and fails. Archives: members are matched by name
 * (A's order, then B's extras). Files are told apart by their magic bytes, not their
 * names. Metrics and the tolerance rule are those of src/verify/compare.c.
 *
 * Output: one line per pair (PASS/FAIL, shape, dtypes, key metrics) and a summary line;
 * or with --json one document:
 *   {"schema": 1, "a", "b", "rtol", "atol",
 *    "pairs": [{"name", "a", "b", "shape", "dtype_a", "dtype_b", "metrics": {...} | null,
 *               "error"?: "...", "shape_b"?: [...], "pass"}],
 *    "missing": [{"name", "missing_from": "a" | "b", "path"}], "pass"}
 * Exit: 0 every pair within tolerance; 1 any pair over tolerance, a shape mismatch, a
 * missing file, or nothing to compare; 2 bad usage or an unreadable/malformed file (one
 * line on stderr naming the file and the problem).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "verify/compare.h"
#include "verify/npy.h"

#define DEFAULT_RTOL 1e-5
#define DEFAULT_ATOL 1e-6

static void usage(FILE *f) {
    fprintf(f,
        "usage: gpuclean compare A B [--rtol R] [--atol A] [--json]\n"
        "  A, B: two .npy files, two .npz archives, or two directories (every *.npy name in\n"
        "  both is compared; a file present on one side only is reported and fails).\n"
        "  B is the reference: an element passes when |a-b| <= atol + rtol*|b|\n"
        "  (defaults: --rtol 1e-05 --atol 1e-06); NaN must meet NaN, inf the same inf.\n"
        "  Metrics: max_abs, mean_abs, rmse, max_rel, cosine, pearson, snr_db, psnr_db,\n"
        "  nan/inf mismatches, argmax agreement over the last axis, worst element.\n"
        "  --json prints one JSON document (schema 1) instead of text.\n"
        "  exit: 0 all within tolerance; 1 over tolerance, shape mismatch, missing file or\n"
        "  nothing to compare; 2 bad usage or an unreadable/malformed file.\n");
}

typedef enum { K_NPY, K_NPZ, K_DIR } kind;

typedef struct {
    const char *a, *b;          /* the paths given */
    double rtol, atol;
    bool json;
    int n_pass, n_fail, n_err, n_missing;
    gc_str pairs, missing, text;
} ctx;

static void json_shape(gc_str *o, const gc_npy *x) {
    gc_str_putc(o, '[');
    for (int i = 0; i < x->rank; i++) gc_str_printf(o, "%s%lld", i ? ", " : "", (long long)x->shape[i]);
    gc_str_putc(o, ']');
}

static void sep(gc_str *o) { if (o->n) gc_str_puts(o, ", "); }

/* Record a file that could not be read (exit 2). */
static void pair_error(ctx *c, const char *name, const char *pa, const char *pb, const char *msg) {
    gc_cli_err("%s", msg);
    c->n_err++;
    if (c->json) {
        sep(&c->pairs);
        gc_str_puts(&c->pairs, "{\"name\": "); gc_str_json(&c->pairs, name);
        gc_str_puts(&c->pairs, ", \"a\": "); gc_str_json(&c->pairs, pa);
        gc_str_puts(&c->pairs, ", \"b\": "); gc_str_json(&c->pairs, pb);
        gc_str_puts(&c->pairs, ", \"shape\": null, \"metrics\": null, \"error\": ");
        gc_str_json(&c->pairs, msg);
        gc_str_puts(&c->pairs, ", \"pass\": false}");
    } else {
        gc_str_printf(&c->text, "ERROR  %s: unreadable (see stderr)\n", name);
    }
}

static void fmt_g(char *buf, size_t n, double v) {
    if (isnan(v)) snprintf(buf, n, "nan");
    else if (isinf(v)) snprintf(buf, n, v > 0 ? "inf" : "-inf");
    else snprintf(buf, n, "%.3g", v);
}

/* Compare one pair of loaded arrays and record the result. */
static void pair_compare(ctx *c, const char *name, const char *pa, const char *pb,
                         const gc_npy *x, const gc_npy *y) {
    gc_metrics m;
    char err[512];
    gc_status st = gc_compare(x, y, c->rtol, c->atol, &m, err, sizeof err);
    bool ok = st == GC_OK && m.pass;
    if (ok) c->n_pass++; else c->n_fail++;
    if (c->json) {
        gc_str *o = &c->pairs;
        sep(o);
        gc_str_puts(o, "{\"name\": "); gc_str_json(o, name);
        gc_str_puts(o, ", \"a\": "); gc_str_json(o, pa);
        gc_str_puts(o, ", \"b\": "); gc_str_json(o, pb);
        gc_str_puts(o, ", \"shape\": "); json_shape(o, x);
        gc_str_puts(o, ", \"dtype_a\": "); gc_str_json(o, gc_npy_dtype_name(x->dtype));
        gc_str_puts(o, ", \"dtype_b\": "); gc_str_json(o, gc_npy_dtype_name(y->dtype));
        if (st == GC_OK) {
            gc_str_puts(o, ", \"metrics\": ");
            gc_metrics_json(&m, o);
        } else {
            gc_str_puts(o, ", \"shape_b\": "); json_shape(o, y);
            gc_str_puts(o, ", \"metrics\": null, \"error\": "); gc_str_json(o, err);
        }
        gc_str_puts(o, ok ? ", \"pass\": true}" : ", \"pass\": false}");
        return;
    }
    gc_str *o = &c->text;
    gc_str_printf(o, "%s  %s ", ok ? "PASS" : "FAIL", name);
    gc_shape_str(x->rank, x->shape, o);
    gc_str_printf(o, " %s/%s", gc_npy_dtype_name(x->dtype), gc_npy_dtype_name(y->dtype));
    if (st != GC_OK) { gc_str_printf(o, "  %s\n", err); return; }
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    fmt_g(b1, sizeof b1, m.max_abs); fmt_g(b2, sizeof b2, m.mean_abs);
    fmt_g(b3, sizeof b3, m.rmse); fmt_g(b4, sizeof b4, m.max_rel);
    fmt_g(b5, sizeof b5, m.snr_db); fmt_g(b6, sizeof b6, m.tol_ratio_max);
    gc_str_printf(o, "  max_abs=%s mean_abs=%s rmse=%s max_rel=%s cos=%.6f snr=%sdB", b1, b2,
                  b3, b4, m.cosine, b5);
    if (m.nan_mismatch || m.inf_mismatch)
        gc_str_printf(o, " nan_mismatch=%llu inf_mismatch=%llu",
                      (unsigned long long)m.nan_mismatch, (unsigned long long)m.inf_mismatch);
    if (m.rank >= 1 && m.shape[m.rank - 1] > 1)
        gc_str_printf(o, " argmax=%.4f", m.argmax_agree);
    gc_str_printf(o, " over_tol=%llu/%llu", (unsigned long long)m.violations,
                  (unsigned long long)m.n);
    if (!ok) {
        char wa[32], wb[32];
        fmt_g(wa, sizeof wa, m.worst_a); fmt_g(wb, sizeof wb, m.worst_b);
        gc_str_puts(o, " worst=");
        gc_metrics_worst_index(&m, o);
        gc_str_printf(o, " a=%s b=%s tol_ratio=%s", wa, wb, b6);
    }
    gc_str_putc(o, '\n');
}

static void missing(ctx *c, const char *name, char from, const char *path) {
    c->n_missing++;
    if (c->json) {
        sep(&c->missing);
        gc_str_puts(&c->missing, "{\"name\": "); gc_str_json(&c->missing, name);
        gc_str_printf(&c->missing, ", \"missing_from\": \"%c\", \"path\": ", from);
        gc_str_json(&c->missing, path);
        gc_str_putc(&c->missing, '}');
    } else {
        gc_str_printf(&c->text, "MISSING  %s: only in %s (%s)\n", name, from == 'a' ? "B" : "A", path);
    }
}

static char *join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return p;
}

static int cmp_str(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sorted list of *.npy names in dir; -1 on error (message on stderr). */
static int list_npy(const char *dir, char ***out) {
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) { gc_cli_err("%s: cannot open directory: %s", dir, strerror(errno)); return -1; }
    char **v = NULL;
    int32_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 4 || strcmp(e->d_name + l - 4, ".npy")) continue;
        char *s = strdup(e->d_name);
        if (!s || !gc_grow((void **)&v, &cap, n + 1, sizeof *v)) {
            free(s);
            for (int i = 0; i < n; i++) free(v[i]);
            free(v); closedir(d);
            gc_cli_err("%s: out of memory", dir);
            return -1;
        }
        v[n++] = s;
    }
    closedir(d);
    if (n) qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

static void do_npy_pair(ctx *c, const char *name, const char *pa, const char *pb) {
    gc_npy x, y;
    char err[600];
    if (gc_npy_read(pa, &x, err, sizeof err) != GC_OK) { pair_error(c, name, pa, pb, err); return; }
    if (gc_npy_read(pb, &y, err, sizeof err) != GC_OK) {
        gc_npy_free(&x);
        pair_error(c, name, pa, pb, err);
        return;
    }
    pair_compare(c, name, pa, pb, &x, &y);
    gc_npy_free(&x);
    gc_npy_free(&y);
}

static int do_dirs(ctx *c) {
    char **na, **nb;
    int n_a = list_npy(c->a, &na);
    if (n_a < 0) return 2;
    int n_b = list_npy(c->b, &nb);
    if (n_b < 0) { for (int i = 0; i < n_a; i++) free(na[i]); free(na); return 2; }
    int i = 0, j = 0, rc = 0;
    while (i < n_a || j < n_b) {
        int k = i >= n_a ? 1 : j >= n_b ? -1 : strcmp(na[i], nb[j]);
        const char *nm = k <= 0 ? na[i] : nb[j];
        char *pa = join(c->a, nm), *pb = join(c->b, nm);
        if (!pa || !pb) { free(pa); free(pb); gc_cli_err("out of memory"); rc = 2; break; }
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(nm) - 4), nm);
        if (k < 0) missing(c, name, 'b', pa);
        else if (k > 0) missing(c, name, 'a', pb);
        else do_npy_pair(c, name, pa, pb);
        free(pa); free(pb);
        if (k <= 0) i++;
        if (k >= 0) j++;
    }
    for (int t = 0; t < n_a; t++) free(na[t]);
    for (int t = 0; t < n_b; t++) free(nb[t]);
    free(na); free(nb);
    return rc;
}

static int do_npz(ctx *c) {
    gc_npy *xa, *xb;
    int n_a, n_b;
    char err[600];
    if (gc_npz_read(c->a, &xa, &n_a, err, sizeof err) != GC_OK) { gc_cli_err("%s", err); return 2; }
    if (gc_npz_read(c->b, &xb, &n_b, err, sizeof err) != GC_OK) {
        gc_npz_free(xa, n_a);
        gc_cli_err("%s", err);
        return 2;
    }
    for (int i = 0; i < n_a; i++) {
        int j = 0;
        while (j < n_b && strcmp(xa[i].name, xb[j].name)) j++;
        if (j == n_b) missing(c, xa[i].name, 'b', c->a);
        else pair_compare(c, xa[i].name, c->a, c->b, &xa[i], &xb[j]);
    }
    for (int j = 0; j < n_b; j++) {
        int i = 0;
        while (i < n_a && strcmp(xa[i].name, xb[j].name)) i++;
        if (i == n_a) missing(c, xb[j].name, 'a', c->b);
    }
    gc_npz_free(xa, n_a);
    gc_npz_free(xb, n_b);
    return 0;
}

/* Kind of a path: directory, or a file judged by its magic. -1: message printed. */
static int path_kind(const char *p) {
    struct stat sb;
    if (stat(p, &sb) != 0) { gc_cli_err("%s: cannot open: %s", p, strerror(errno)); return -1; }
    if (S_ISDIR(sb.st_mode)) return K_DIR;
    if (!S_ISREG(sb.st_mode)) { gc_cli_err("%s: not a regular file", p); return -1; }
    FILE *f = fopen(p, "rb");
    if (!f) { gc_cli_err("%s: cannot open: %s", p, strerror(errno)); return -1; }
    unsigned char m[4] = { 0 };
    size_t n = fread(m, 1, sizeof m, f);
    fclose(f);
    if (n >= 2 && m[0] == 'P' && m[1] == 'K') return K_NPZ;
    return K_NPY;          /* anything else: gc_npy_read reports what is wrong */
}

static bool parse_tol(const char *s, double *v) {
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *s && !*end && !errno && isfinite(*v) && *v >= 0;
}

static const char *basename_of(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int gc_cli_compare(int argc, char **argv) {
    ctx c = { .rtol = DEFAULT_RTOL, .atol = DEFAULT_ATOL };
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) { usage(stdout); return 0; }
        if (!strcmp(s, "--json")) { c.json = true; continue; }
        if (!strncmp(s, "--rtol", 6) || !strncmp(s, "--atol", 6)) {
            const char *v = s[6] == '=' ? s + 7 : s[6] == 0 && i + 1 < argc ? argv[++i] : NULL;
            if (!v && s[6] != 0) return gc_cli_usage_error("compare", "unknown option '%s'", s);
            if (!v) return gc_cli_usage_error("compare", "%s needs a value", s);
            double *dst = s[2] == 'r' ? &c.rtol : &c.atol;
            if (!parse_tol(v, dst))
                return gc_cli_usage_error("compare", "%.6s: '%s' is not a finite number >= 0", s, v);
            continue;
        }
        if (s[0] == '-' && s[1]) return gc_cli_usage_error("compare", "unknown option '%s'", s);
        if (!c.a) c.a = s;
        else if (!c.b) c.b = s;
        else return gc_cli_usage_error("compare", "more than two paths given");
    }
    if (!c.b) return gc_cli_usage_error("compare", "need two paths (gpuclean compare A B; --help)");
    int ka = path_kind(c.a);
    if (ka < 0) return 2;
    int kb = path_kind(c.b);
    if (kb < 0) return 2;
    static const char *const kname[] = { "a .npy file", "a .npz archive", "a directory" };
    if (ka != kb)
        return gc_cli_usage_error("compare", "%s is %s but %s is %s", c.a, kname[ka], c.b, kname[kb]);

    int rc = 0;
    if (ka == K_DIR) rc = do_dirs(&c);
    else if (ka == K_NPZ) rc = do_npz(&c);
    else {
        char name[256];
        const char *bn = basename_of(c.a);
        size_t l = strlen(bn);
        if (l > 4 && !strcmp(bn + l - 4, ".npy")) l -= 4;
        snprintf(name, sizeof name, "%.*s", (int)l, bn);
        do_npy_pair(&c, name, c.a, c.b);
    }
    int total = c.n_pass + c.n_fail + c.n_err;
    bool pass = rc == 0 && c.n_fail == 0 && c.n_err == 0 && c.n_missing == 0 && total > 0;
    if (rc == 0) {
        if (c.json) {
            gc_str o = { 0 };
            gc_str_puts(&o, "{\"schema\": 1, \"a\": "); gc_str_json(&o, c.a);
            gc_str_puts(&o, ", \"b\": "); gc_str_json(&o, c.b);
            gc_str_puts(&o, ", \"rtol\": "); gc_json_num(&o, c.rtol);
            gc_str_puts(&o, ", \"atol\": "); gc_json_num(&o, c.atol);
            gc_str_puts(&o, ", \"pairs\": [");
            if (c.pairs.s) gc_str_puts(&o, c.pairs.s);
            gc_str_puts(&o, "], \"missing\": [");
            if (c.missing.s) gc_str_puts(&o, c.missing.s);
            gc_str_printf(&o, "], \"pass\": %s}\n", pass ? "true" : "false");
            if (o.oom) { gc_cli_err("gpuclean compare: out of memory"); rc = 2; }
            else fwrite(o.s, 1, o.n, stdout);
            gc_str_free(&o);
        } else {
            if (c.text.s) gc_cli_write_text(stdout, c.text.s, c.text.n);
            if (total == 0 && c.n_missing == 0) printf("nothing to compare\n");
            printf("compare: %d pair%s, %d within tolerance, %d over, %d unreadable, %d missing "
                   "(rtol %g, atol %g): %s\n", total, total == 1 ? "" : "s", c.n_pass, c.n_fail,
                   c.n_err, c.n_missing, c.rtol, c.atol, pass ? "PASS" : "FAIL");
        }
    }
    gc_str_free(&c.pairs);
    gc_str_free(&c.missing);
    gc_str_free(&c.text);
    if (rc) return rc;
    if (c.n_err) return 2;
    return pass ? 0 : 1;
}
