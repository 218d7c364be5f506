/* pool_speedup.c — the interpreter against itself in two configurations, A and B: by default
 * its speed-up from its thread pool (A: 1 thread, B: N threads); with --arith-ab the cost of
 * the float arithmetic (A: --float-arith muladd, B: fma, both at --threads N, default 1).
 * One process holds both interpreters (fp32, signature 0, inputs by pattern sin), warms
 * them, then times their invokes alternately (A, B, A, B, ...: both see the same machine
 * load) and prints the medians, A / B and the load average before and after, one line per
 * model.
 *
 *   pool_speedup [--runs R] [--threads N] [--arith-ab] [--cpu-time] MODEL.tflite...
 *                                                      (defaults: 21, 2 / 1, wall clock)
 *
 * Exit 0 when every model ran, 1 when one failed, 2 on bad usage. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/interp.h"
#include "model/model.h"

/* wall clock, or with --cpu-time the process's CPU time: the time it ran, not the time it
 * waited for a core (a loaded machine; meaningful for A and B at 1 thread: with more, the
 * threads' times add up) */
static clockid_t clk = CLOCK_MONOTONIC;
static double now_ms(void) {
    struct timespec t;
    clock_gettime(clk, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void loadavg(char *buf, size_t n) {
    FILE *f = fopen("/proc/loadavg", "r");
    buf[0] = 0;
    if (f) {
        if (!fgets(buf, (int)n, f)) buf[0] = 0;
        fclose(f);
    }
    char *sp = buf;                                   /* the first three fields */
    for (int k = 0; k < 3 && sp; k++) sp = strchr(sp + (k > 0), ' ');
    if (sp) *sp = 0;
}

static gc_interp *make(const gc_model *m, int threads, gc_float_arith arith, char *err, size_t errlen) {
    gc_interp_opts o = { .precision = GC_PREC_FP32, .signature = GC_SIG_AUTO, .threads = threads, .float_arith = arith };
    gc_interp *it = gc_interp_new(m, &o, err, errlen);
    if (!it) return NULL;
    if (gc_interp_prepare(it) != GC_OK) { snprintf(err, errlen, "%s", gc_interp_errmsg(it)); gc_interp_free(it); return NULL; }
    for (int k = 0; k < gc_interp_n_inputs(it); k++) {
        gc_tview v = gc_interp_input(it, k);
        gc_fill_pattern_sin(&v, k);
    }
    return it;
}

int main(int argc, char **argv) {
    int runs = 21, nt = -1, first = 1;
    bool arith = false;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--runs") && first + 1 < argc) runs = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--threads") && first + 1 < argc) nt = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--arith-ab")) arith = true;
        else if (!strcmp(argv[first], "--cpu-time")) clk = CLOCK_PROCESS_CPUTIME_ID;
        else { fprintf(stderr, "usage: pool_speedup [--runs R] [--threads N] [--arith-ab] MODEL.tflite...\n"); return 2; }
    }
    if (nt < 0) nt = arith ? 1 : 2;
    if (first >= argc || runs < 1 || runs > 10000 || nt < (arith ? 1 : 2) || nt > 16) {
        fprintf(stderr, "usage: pool_speedup [--runs R (1..10000)] [--threads N (2..16; --arith-ab: 1..16)] [--arith-ab] "
                        "MODEL.tflite...\n");
        return 2;
    }
    /* A and B */
    const int ta = arith ? nt : 1, tb = nt;
    const gc_float_arith fa = arith ? GC_FLOAT_MULADD : GC_FLOAT_DEFAULT, fb = arith ? GC_FLOAT_FMA : GC_FLOAT_DEFAULT;
    int rc = 0;
    double *t1 = malloc((size_t)runs * sizeof *t1), *tn = malloc((size_t)runs * sizeof *tn);
    if (!t1 || !tn) return 1;
    if (arith)
        printf("| model | muladd %dT ms%s | fma %dT ms%s | muladd / fma | load before | load after |\n"
               "|---|---:|---:|---:|---|---|\n", nt, clk == CLOCK_MONOTONIC ? "" : " (CPU)", nt,
               clk == CLOCK_MONOTONIC ? "" : " (CPU)");
    else
        printf("| model | 1T ms | %dT ms | %dT/1T speed-up | load before | load after |\n|---|---:|---:|---:|---|---|\n", nt, nt);
    for (int a = first; a < argc; a++) {
        char err[512], l0[64], l1[64];
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        gc_model *m = gc_model_read_file(argv[a], err, sizeof err);
        gc_interp *i1 = m ? make(m, ta, fa, err, sizeof err) : NULL, *in = i1 ? make(m, tb, fb, err, sizeof err) : NULL;
        if (!in) { printf("| %s | failed: %s | | | | |\n", name, err); gc_interp_free(i1); gc_model_free(m); rc = 1; continue; }
        loadavg(l0, sizeof l0);
        bool ok = true;
        for (int w = 0; w < 2 && ok; w++) ok = gc_interp_invoke(i1) == GC_OK && gc_interp_invoke(in) == GC_OK;
        for (int r = 0; r < runs && ok; r++) {
            double s = now_ms();
            ok = gc_interp_invoke(i1) == GC_OK;
            t1[r] = now_ms() - s;
            s = now_ms();
            ok = ok && gc_interp_invoke(in) == GC_OK;
            tn[r] = now_ms() - s;
        }
        loadavg(l1, sizeof l1);
        if (!ok) { printf("| %s | invoke failed: %s | | | | |\n", name, gc_interp_errmsg(in)); rc = 1; }
        else {
            qsort(t1, (size_t)runs, sizeof *t1, cmp_d);
            qsort(tn, (size_t)runs, sizeof *tn, cmp_d);
            double m1 = t1[runs / 2], mn = tn[runs / 2];
            printf("| %s | %.3g | %.3g | %.2fx | %s | %s |\n", name, m1, mn, m1 / mn, l0, l1);
        }
        fflush(stdout);
        gc_interp_free(in); gc_interp_free(i1); gc_model_free(m);
    }
    free(t1); free(tn);
    return rc;
}
