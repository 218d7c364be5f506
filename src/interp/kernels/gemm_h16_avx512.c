/* gemm_h16_avx512.c — the AVX-512F microkernels of the half-arithmetic GEMM modes
 * (gemm_f32.h: GC_GEMM_H16, GC_GEMM_SLICE; the arguments and tiles of gemm_f32_ukr.h):
 * panels of 16 floats as gemm_f32_avx512.c, so both modes share its packed layout.
 *
 *   H16    16 rows x 1 panel: acc = r(acc + r(a w)) for every k in order, then
 *          r(acc + bias) (no addition without a bias), then the clamp;
 *   SLICE  8 rows x 1 panel (16 accumulators and 16 partial sums would not leave room in
 *          the 32 registers): per tap, slices of 4 channels from the tap's first,
 *          part = r(part + r(a w)) from +0 over the slice, acc = acc + part in float, then
 *          acc + bias (not rounded) and the clamp.
 * r() is kernels/f16_simd.h's: the product rounded by float arithmetic, the sum by
 * vcvtps2ph / vcvtph2ps; both give gc_f16_round's bits, so the results are those of the
 * reference loops (conv.c, fc.c) bit for bit. Single rows take two panels at a time.
 */
#include "interp/kernels/gemm_f32_ukr.h"

#include <stdbool.h>
#include "interp/kernels/f16_simd.h"

#if defined(GC_HAVE_X86_KERNELS) && defined(GC_HAVE_F16_SIMD)

#define T512 GC_T512
#define INL GC_INL

enum { PW = 16, MR = 16, MRS = 8 };

INL T512 __m512 step(__m512 acc, __m512 a, __m512 w) { return gc_h16_add_512(acc, _mm512_mul_ps(a, w)); }

INL T512 __mmask16 lanes(int n) { return (__mmask16)(n >= PW ? 0xffffu : n <= 0 ? 0u : (1u << n) - 1u); }

INL T512 __m512 finish(__m512 v, const float *bias, const bool slice, __m512 lo, __m512 hi) {
    if (bias) {
        v = _mm512_add_ps(v, _mm512_loadu_ps(bias));
        if (!slice) v = gc_r16c_512(v);
    }
    return _mm512_min_ps(hi, _mm512_max_ps(lo, v));
}

/* R rows x 1 panel (R = MR for H16, MRS for SLICE) */
INL T512 void body(const gc_ukr_args *g, const int R, const bool slice) {
    __m512 acc[MR], part[MRS];
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) acc[m] = _mm512_setzero_ps();
    const float *w0 = g->w;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
#pragma GCC unroll 16
        for (int m = 0; m < R; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        if (!slice) {
            for (int32_t ic = 0; ic < ICg; ic++) {
                const __m512 v0 = _mm512_load_ps(w0);
                w0 += PW;
#pragma GCC unroll 16
                for (int m = 0; m < R; m++) acc[m] = step(acc[m], _mm512_set1_ps(ap[m][ic]), v0);
            }
            continue;
        }
        for (int32_t i0 = 0; i0 < ICg; i0 += 4) {
            const int32_t i1 = ICg - i0 < 4 ? ICg : i0 + 4;
#pragma GCC unroll 8
            for (int m = 0; m < MRS; m++) part[m] = _mm512_setzero_ps();
            for (int32_t ic = i0; ic < i1; ic++) {
                const __m512 v0 = _mm512_load_ps(w0);
                w0 += PW;
#pragma GCC unroll 8
                for (int m = 0; m < MRS; m++) part[m] = step(part[m], _mm512_set1_ps(ap[m][ic]), v0);
            }
#pragma GCC unroll 8
            for (int m = 0; m < MRS; m++) acc[m] = _mm512_add_ps(acc[m], part[m]);
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    const __mmask16 k0 = lanes(g->nc);
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) {
        if (m >= g->mr) break;
        _mm512_mask_storeu_ps(g->y + (size_t)m * (size_t)g->ldy, k0, finish(acc[m], g->bias, slice, lo, hi));
    }
}

/* One row, np panels. */
INL T512 void row1(const gc_ukr_args *g, const int np, const bool slice) {
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    for (int32_t t = 0; t < g->T; t++) {
        const float *ap = g->a[(size_t)t * g->a_mr] + g->a_off;
        for (int32_t i0 = 0; i0 < g->ICg; i0 += slice ? 4 : g->ICg) {
            const int32_t i1 = !slice || g->ICg - i0 < 4 ? g->ICg : i0 + 4;
            __m512 p0 = _mm512_setzero_ps(), p1 = _mm512_setzero_ps();
            for (int32_t ic = i0; ic < i1; ic++) {
                const __m512 b = _mm512_set1_ps(ap[ic]);
                if (slice) {
                    p0 = step(p0, b, _mm512_load_ps(w0));
                    if (np == 2) p1 = step(p1, b, _mm512_load_ps(w1));
                } else {
                    acc0 = step(acc0, b, _mm512_load_ps(w0));
                    if (np == 2) acc1 = step(acc1, b, _mm512_load_ps(w1));
                }
                w0 += PW; w1 += PW;
            }
            if (slice) {
                acc0 = _mm512_add_ps(acc0, p0);
                if (np == 2) acc1 = _mm512_add_ps(acc1, p1);
            }
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    const int nc0 = g->nc < PW ? g->nc : PW, nc1 = g->nc - nc0;
    _mm512_mask_storeu_ps(g->y, lanes(nc0), finish(acc0, g->bias, slice, lo, hi));
    if (np == 2) _mm512_mask_storeu_ps(g->y + PW, lanes(nc1), finish(acc1, g->bias ? g->bias + PW : NULL, slice, lo, hi));
}

T512 static void h_one(const gc_ukr_args *g) { body(g, MR, false); }
T512 static void h_two_r1(const gc_ukr_args *g) { row1(g, 2, false); }
T512 static void h_one_r1(const gc_ukr_args *g) { row1(g, 1, false); }
T512 static void s_one(const gc_ukr_args *g) { body(g, MRS, true); }
T512 static void s_two_r1(const gc_ukr_args *g) { row1(g, 2, true); }
T512 static void s_one_r1(const gc_ukr_args *g) { row1(g, 1, true); }

static const gc_ukr_set h16 = { PW, MR, NULL, h_one, h_two_r1, h_one_r1 };
static const gc_ukr_set slice = { PW, MRS, NULL, s_one, s_two_r1, s_one_r1 };
const gc_ukr_set *gc_ukr_h16_avx512(void) { return &h16; }
const gc_ukr_set *gc_ukr_slice_avx512(void) { return &slice; }
#endif
