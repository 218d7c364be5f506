/* h16_gemm.c — the half GEMM modes' kernels against the float one on one FULLY_CONNECTED
 * shape (gemm_f32.h: y = a B, M rows, K deep, N wide, AVX-512 kernels): GC_GEMM_F32,
 * GC_GEMM_H16 and GC_GEMM_SLICE, the half modes with their plain kernels and their quick
 * ones (gc_gemm_b.ksq: products rounded on the FMA pipes) and SLICE's split ones (ksv:
 * every rounding in float arithmetic), timed alternately round after
 * round (all see the same machine load), medians of the rounds in ms and GMAC/s, and
 * whether each quick / split run gave its plain run's bits. Inputs and weights are halves
 * (|a| < 2, |w| < 0.05, the quick range), fixed seed.
 *
 *   h16_gemm [M K N [ROUNDS]]        (defaults: 64 512 512 15)
 *
 * Exit 0, 1 when a quick run's bits differ, 2 without AVX-512F or on bad usage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/fp16.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/gemm_f32.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_d(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

enum { NV = 6, MAXR = 101 };

int main(int argc, char **argv) {
    long M = argc > 1 ? atol(argv[1]) : 64, K = argc > 2 ? atol(argv[2]) : 512, N = argc > 3 ? atol(argv[3]) : 512;
    int rounds = argc > 4 ? atoi(argv[4]) : 15;
    if (M < 1 || K < 1 || N < 9 || M * K > (1L << 26) || K * N > (1L << 26) || rounds < 1 || rounds > MAXR) {
        fprintf(stderr, "usage: h16_gemm [M K N [ROUNDS]] (N > 8, rounds <= %d)\n", MAXR);
        return 2;
    }
    if (gc_isa_active() < GC_ISA_AVX512 || !gc_f16_have_f16c()) { fprintf(stderr, "h16_gemm: no AVX-512F\n"); return 2; }
    static const struct { gc_gemm_mode mode; int quick; const char *name; } v[NV] = {
        { GC_GEMM_F32, 0, "f32" }, { GC_GEMM_H16, 0, "h16 plain" }, { GC_GEMM_H16, 1, "h16 quick" },
        { GC_GEMM_SLICE, 0, "slice plain" }, { GC_GEMM_SLICE, 1, "slice quick" }, { GC_GEMM_SLICE, 2, "slice split" } };
    float *a = malloc(sizeof(float) * (size_t)(M * K)), *w = malloc(sizeof(float) * (size_t)(N * K));
    float *y[NV];
    gc_gemm_b b[NV];
    float *mem[NV], *bias[NV];
    srand(1);
    for (long i = 0; i < M * K; i++) a[i] = gc_f16_round(((float)rand() / (float)RAND_MAX - 0.5f) * 4.0f);
    for (long i = 0; i < N * K; i++) w[i] = gc_f16_round(((float)rand() / (float)RAND_MAX - 0.5f) * 0.1f);
    for (int i = 0; i < NV; i++) {
        size_t nf = gc_gemm_b_layout_mode(&b[i], GC_ISA_AVX512, v[i].mode, 1, (int32_t)K, (int32_t)N);
        mem[i] = malloc(nf * sizeof(float));
        bias[i] = calloc(gc_gemm_bias_floats(&b[i]), sizeof(float));
        y[i] = malloc(sizeof(float) * (size_t)(M * N));
        gc_gemm_b_bind(&b[i], mem[i]);
        gc_gemm_pack_nk(&b[i], w, K);
        if (!v[i].quick) b[i].ksq = NULL;
        if (v[i].quick < 2) b[i].ksv = NULL;
    }
    double t[NV][MAXR];
    for (int r = -1; r < rounds; r++)                      /* round -1: warm-up */
        for (int i = 0; i < NV; i++) {
            double t0 = now_ms();
            gc_gemmf_run(&b[i], bias[i], -INFINITY, INFINITY, a, K, y[i], N, M, 0, gc_gemmf_tiles(&b[i], M), NULL);
            if (r >= 0) t[i][r] = now_ms() - t0;
        }
    int bad = 0;
    printf("h16_gemm %ld x %ld x %ld, median of %d rounds\n", M, K, N, rounds);
    for (int i = 0; i < NV; i++) {
        qsort(t[i], (size_t)rounds, sizeof(double), cmp_d);
        double ms = t[i][rounds / 2];
        const char *same = "";
        if (v[i].quick) {
            same = memcmp(y[i], y[i - v[i].quick], sizeof(float) * (size_t)(M * N)) ? "  DIFFERENT bits from plain" : "  same bits as plain";
            bad |= same[2] == 'D';
        }
        printf("  %-12s %8.3f ms %7.2f GMAC/s  %5.2fx f32%s\n", v[i].name, ms, (double)M * K * N / ms * 1e-6,
               ms / t[0][rounds / 2], same);
    }
    return bad;
}
