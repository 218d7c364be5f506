/* gemm_h16_avx2.c — the AVX2 + F16C microkernels of the half-arithmetic GEMM modes
 * (gemm_f32.h: GC_GEMM_H16, GC_GEMM_SLICE): panels of 8 floats as gemm_f32_avx2.c (the
 * same packed layout), H16 tiles of 8 rows x 1 panel, SLICE tiles of 4 rows x 1 panel
 * (accumulators and partial sums in 16 registers); single rows take two panels at a time.
 * The arithmetic is gemm_h16_avx512.c's, 8 lanes wide (kernels/f16_simd.h): bit-identical
 * to the reference loops. Compiled with target("avx2,f16c"), chosen only when the CPU has
 * AVX2, FMA and F16C (gemm_f32.c).
 */
#include "interp/kernels/gemm_f32_ukr.h"

#include <stdbool.h>
#include "interp/kernels/f16_simd.h"

#if defined(GC_HAVE_X86_KERNELS) && defined(GC_HAVE_F16_SIMD)
#include <string.h>

#define T256 GC_T256H
#define INL GC_INL

enum { PW = 8, MR = 8, MRS = 4 };

INL T256 __m256 step(__m256 acc, __m256 a, __m256 w) { return gc_h16_add_256(acc, _mm256_mul_ps(a, w)); }

INL T256 void store_part(float *y, __m256 v, int n) {
    if (n >= PW) { _mm256_storeu_ps(y, v); return; }
    if (n <= 0) return;
    float tmp[PW];
    _mm256_storeu_ps(tmp, v);
    memcpy(y, tmp, (size_t)n * sizeof(float));
}

INL T256 __m256 finish(__m256 v, const float *bias, const bool slice, __m256 lo, __m256 hi) {
    if (bias) {
        v = _mm256_add_ps(v, _mm256_loadu_ps(bias));
        if (!slice) v = gc_r16c_256(v);
    }
    return _mm256_min_ps(hi, _mm256_max_ps(lo, v));
}

/* R rows x 1 panel, or (R = 1) one row x np panels */
INL T256 void body(const gc_ukr_args *g, const int R, const int np, const bool slice) {
    __m256 acc[MR][2], part[MR][2];
#pragma GCC unroll 8
    for (int m = 0; m < R; m++) acc[m][0] = acc[m][1] = _mm256_setzero_ps();
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
#pragma GCC unroll 8
        for (int m = 0; m < R; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t i0 = 0; i0 < ICg; i0 += slice ? 4 : ICg) {
            const int32_t i1 = !slice || ICg - i0 < 4 ? ICg : i0 + 4;
#pragma GCC unroll 8
            for (int m = 0; m < R; m++) part[m][0] = part[m][1] = _mm256_setzero_ps();
            for (int32_t ic = i0; ic < i1; ic++) {
                const __m256 v0 = _mm256_load_ps(w0);
                __m256 v1 = v0;
                if (np == 2) v1 = _mm256_load_ps(w1);
                w0 += PW; w1 += PW;
#pragma GCC unroll 8
                for (int m = 0; m < R; m++) {
                    const __m256 b = _mm256_broadcast_ss(ap[m] + ic);
                    __m256 *s = slice ? part[m] : acc[m];
                    s[0] = step(s[0], b, v0);
                    if (np == 2) s[1] = step(s[1], b, v1);
                }
            }
            if (slice) {
#pragma GCC unroll 8
                for (int m = 0; m < R; m++) {
                    acc[m][0] = _mm256_add_ps(acc[m][0], part[m][0]);
                    if (np == 2) acc[m][1] = _mm256_add_ps(acc[m][1], part[m][1]);
                }
            }
        }
    }
    const __m256 lo = _mm256_set1_ps(g->lo), hi = _mm256_set1_ps(g->hi);
    const int nc0 = g->nc < PW ? g->nc : PW, nc1 = g->nc - nc0;
#pragma GCC unroll 8
    for (int m = 0; m < R; m++) {
        if (m >= g->mr) break;
        float *y = g->y + (size_t)m * (size_t)g->ldy;
        store_part(y, finish(acc[m][0], g->bias, slice, lo, hi), nc0);
        if (np == 2) store_part(y + PW, finish(acc[m][1], g->bias ? g->bias + PW : NULL, slice, lo, hi), nc1);
    }
}

T256 static void h_one(const gc_ukr_args *g) { body(g, MR, 1, false); }
T256 static void h_two_r1(const gc_ukr_args *g) { body(g, 1, 2, false); }
T256 static void h_one_r1(const gc_ukr_args *g) { body(g, 1, 1, false); }
T256 static void s_one(const gc_ukr_args *g) { body(g, MRS, 1, true); }
T256 static void s_two_r1(const gc_ukr_args *g) { body(g, 1, 2, true); }
T256 static void s_one_r1(const gc_ukr_args *g) { body(g, 1, 1, true); }

static const gc_ukr_set h16 = { PW, MR, NULL, h_one, h_two_r1, h_one_r1, NULL, NULL };
static const gc_ukr_set slice = { PW, MRS, NULL, s_one, s_two_r1, s_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_h16_avx2(void) { return &h16; }
const gc_ukr_set *gc_ukr_slice_avx2(void) { return &slice; }
#endif
