/* gemm_f32_scalar.c — the portable microkernels (gemm_f32_ukr.h): panels of 4 floats,
 * tiles of 4 rows x 2 panels. The lanes are GNU C generic vectors of 4 floats
 * (vector_size, GCC and clang: SSE2 on any x86-64, NEON on AArch64, plain code on targets
 * without vectors). Products and sums are separate operations, so nothing is contracted into FMA
 * (ISO C build: -ffp-contract=off). Bit-identical to the reference; the clamp is the
 * reference's own expression, lane by lane. The only level on non-x86 targets.
 * The FMA set (gc_ukr_scalar_fma, GC_GEMM_F32_FMA): acc = fmaf(x, w, acc) lane by lane (C's
 * fmaf is correctly rounded: the same bits as a hardware FMA; slow where there is none).
 */
#include "interp/kernels/gemm_f32_ukr.h"

#include <math.h>
#include <string.h>

enum { PW = 4, MR = 4 };

typedef float v4 __attribute__((vector_size(16)));

/* acc + x * a, lane by lane with one rounding */
static inline __attribute__((always_inline)) v4 fma4(v4 acc, float x, v4 a) {
    v4 r;
    for (int i = 0; i < 4; i++) r[i] = fmaf(x, a[i], acc[i]);
    return r;
}

static inline __attribute__((always_inline)) void body(const gc_ukr_args *g, const int mrk, const int np, const int fma) {
    v4 acc[MR][2];
    for (int m = 0; m < mrk; m++) { acc[m][0] = (v4){ 0, 0, 0, 0 }; acc[m][1] = acc[m][0]; }
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
        for (int m = 0; m < mrk; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t ic = 0; ic < ICg; ic++) {
            v4 a, b = { 0, 0, 0, 0 };
            memcpy(&a, w0, sizeof a);
            if (np == 2) memcpy(&b, w1, sizeof b);
            w0 += PW; w1 += PW;
            for (int m = 0; m < mrk; m++) {
                const float xv = ap[m][ic];
                if (fma) {
                    acc[m][0] = fma4(acc[m][0], xv, a);
                    if (np == 2) acc[m][1] = fma4(acc[m][1], xv, b);
                    continue;
                }
                const v4 x = { xv, xv, xv, xv };
                const v4 p0 = x * a;
                acc[m][0] = acc[m][0] + p0;
                if (np == 2) { const v4 p1 = x * b; acc[m][1] = acc[m][1] + p1; }
            }
        }
    }
    const int nc = g->nc < np * PW ? g->nc : np * PW;
    for (int m = 0; m < mrk && m < g->mr; m++) {
        float out[2 * PW], *y = g->y + (size_t)m * (size_t)g->ldy;
        memcpy(out, &acc[m][0], sizeof acc[m][0]);
        memcpy(out + PW, &acc[m][1], sizeof acc[m][1]);
        for (int n = 0; n < nc; n++) {
            float v = g->bias ? out[n] + g->bias[n] : out[n];
            y[n] = v < g->lo ? g->lo : v > g->hi ? g->hi : v;
        }
    }
}

static void k_two(const gc_ukr_args *g) { body(g, MR, 2, 0); }
static void k_one(const gc_ukr_args *g) { body(g, MR, 1, 0); }
static void k_two_r1(const gc_ukr_args *g) { body(g, 1, 2, 0); }
static void k_one_r1(const gc_ukr_args *g) { body(g, 1, 1, 0); }
static void f_two(const gc_ukr_args *g) { body(g, MR, 2, 1); }
static void f_one(const gc_ukr_args *g) { body(g, MR, 1, 1); }
static void f_two_r1(const gc_ukr_args *g) { body(g, 1, 2, 1); }
static void f_one_r1(const gc_ukr_args *g) { body(g, 1, 1, 1); }

static const gc_ukr_set set = { PW, MR, k_two, k_one, k_two_r1, k_one_r1, NULL, NULL };
static const gc_ukr_set set_fma = { PW, MR, f_two, f_one, f_two_r1, f_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_scalar(void) { return &set; }
const gc_ukr_set *gc_ukr_scalar_fma(void) { return &set_fma; }
