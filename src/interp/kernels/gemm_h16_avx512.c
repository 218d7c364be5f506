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
 * Single rows (matrix-vector products) take up to four panels at a time.
 * r() is kernels/f16_simd.h's (vcvtps2ph / vcvtph2ps), gc_f16_round's bits, so the
 * results are those of the reference loops (conv.c, fc.c) bit for bit.
 *
 * The quick sets (gc_ukr_h16q_avx512, gc_ukr_sliceq_avx512; gemm_f32.h "quick") round
 * the products r(a w) in float arithmetic instead, for tiles whose products all satisfy
 * |a w| <= 65504 (the drivers check, gemm_h16_range.c): the conversions run on the two
 * add pipes of Zen 4, which the half steps keep full, while the FMA pipes idle, so moving
 * the product's rounding there (gc_r16q_512, f16_simd.h) leaves the conversions to the
 * sums. It gives r(p)'s value with a +0 where r(p) is -0; a sum's zero sign never reaches an output
 * (every accumulator starts at +0 and adds in round-to-nearest, so it is never -0, and
 * x + (+-0) = x for x != 0), so the outputs keep their bits.
 *
 * The split set (gc_ukr_slicev_avx512, SLICE only; gemm_f32.h "Split tiles") rounds both
 * the products and the slice sums by Veltkamp's splitting with C = 2^13 + 1, in values
 * scaled by S = 2^-125, for tiles whose a and w are all halves and whose slice sums stay
 * below 65520 (the drivers check). The split of a float x is hi = g + (x - g), g = C x:
 * x rounded to 24 - 13 = 11 bits. Scaled by S, a half h maps to the exact float h S (the
 * half's 2^-24 quantum to float's 2^-149), and where the unscaled value is below 2^-14,
 * x - g (about -2^13 x) is a float subnormal, so the split's grid is 2^-149 there: the
 * half's subnormal quantum. So hi = r(x / S) S, ties to even included. A product: for
 * halves a, w, w S and w C S are floats (w's 11 bits times 8193 fit in 24 bits, and their
 * quanta are >= 2^-149), a (w S) and a (w C S) exact reals, so g = RN(a (w C S)) and
 * x - g = fma(a, w S, -g) without forming a w. Per step: g, d = fma, h = g + d,
 * x = s + h (RN; double rounding is innocuous, 24 >= 2 * 11 + 2), then x's split: 7 float
 * operations and no conversions; the slice sum joins the float accumulator unscaled,
 * acc = fma(part, 2^125, acc) = RN(acc + part / S). A zero's sign may differ (+0 for -0),
 * harmless as above. Checked exhaustively by bench/h16_split_check.c (every product of
 * two halves up to 65504, every sum of two halves up to 65519 in magnitude).
 */
#include "interp/kernels/gemm_f32_ukr.h"

#include <stdbool.h>
#include "interp/kernels/f16_simd.h"

#if defined(GC_HAVE_X86_KERNELS) && defined(GC_HAVE_F16_SIMD)

#define T512 GC_T512
#define INL GC_INL

enum { PW = 16, MR = 16, MRS = 8 };

/* r(a w): conversions, or (q) the FMA form (f16_simd.h) */
INL T512 __m512 prod(__m512 a, __m512 w, const bool q) {
    const __m512 p = _mm512_mul_ps(a, w);
    return q ? gc_r16q_512(p) : gc_r16c_512(p);
}
INL T512 __m512 step(__m512 acc, __m512 a, __m512 w, const bool q) { return gc_r16c_512(_mm512_add_ps(acc, prod(a, w, q))); }
/* the first step from +0: r(0 + r(a w)) = 0 + r(a w) exactly (+0 + a half is that half, or
 * +0 for -0), so the sum needs no rounding (nor the addition after gc_r16q_512, never -0) */
INL T512 __m512 first(__m512 a, __m512 w, const bool q) {
    return q ? prod(a, w, true) : _mm512_add_ps(_mm512_setzero_ps(), prod(a, w, false));
}

INL T512 __mmask16 lanes(int n) { return (__mmask16)(n >= PW ? 0xffffu : n <= 0 ? 0u : (1u << n) - 1u); }

INL T512 __m512 finish(__m512 v, const float *bias, const bool slice, __m512 lo, __m512 hi) {
    if (bias) {
        v = _mm512_add_ps(v, _mm512_loadu_ps(bias));
        if (!slice) v = gc_r16c_512(v);
    }
    return _mm512_min_ps(hi, _mm512_max_ps(lo, v));
}

/* the split set: one slice of n (1..4) channels from i0 for the 8 rows, added to acc;
 * w the slice's first row of the panel */
INL T512 void vslice(__m512 *acc, const float *const *ap, int32_t i0, const float *w, const int n) {
    const __m512 sc = _mm512_set1_ps(GC_R16V_S), un = _mm512_set1_ps(0x1p125f), cc = _mm512_set1_ps(GC_R16V_C);
    __m512 part[MRS];
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        if (k >= n) break;
        const __m512 ws = _mm512_mul_ps(_mm512_load_ps(w + k * PW), sc);
        const __m512 wcs = _mm512_mul_ps(ws, cc);
#pragma GCC unroll 8
        for (int m = 0; m < MRS; m++) {
            /* a read twice, as two embedded broadcasts (GCC would broadcast it into a register
             * once: on Zen 4 a vbroadcastss takes an FP pipe slot) */
            const float *a1 = ap[m] + i0 + k, *a2 = a1;
            __asm__("" : "+r"(a2));
            const __m512 g1 = _mm512_mul_ps(_mm512_set1_ps(*a1), wcs);
            const __m512 h = _mm512_add_ps(g1, _mm512_fmsub_ps(_mm512_set1_ps(*a2), ws, g1));  /* r(a w) S */
            part[m] = k == 0 ? h : gc_r16v_512(_mm512_add_ps(part[m], h));
        }
    }
#pragma GCC unroll 8
    for (int m = 0; m < MRS; m++) acc[m] = _mm512_fmadd_ps(part[m], un, acc[m]);
}

/* R rows x 1 panel (R = MR for H16, MRS for SLICE) */
INL T512 void body(const gc_ukr_args *g, const int R, const bool slice, const bool q, const bool v) {
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
                for (int m = 0; m < R; m++) acc[m] = step(acc[m], _mm512_set1_ps(ap[m][ic]), v0, q);
            }
            continue;
        }
        int32_t i0 = 0;
        if (v) {                                              /* the split set */
            for (; i0 + 4 <= ICg; i0 += 4, w0 += 4 * PW) vslice(acc, ap, i0, w0, 4);   /* whole slices */
            if (i0 < ICg) { vslice(acc, ap, i0, w0, ICg - i0); w0 += (size_t)(ICg - i0) * PW; }  /* the tail */
            continue;
        }
        for (; i0 + 4 <= ICg; i0 += 4, w0 += 4 * PW) {      /* whole slices, unrolled */
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) {
                const __m512 v0 = _mm512_load_ps(w0 + k * PW);
#pragma GCC unroll 8
                for (int m = 0; m < MRS; m++)
                    part[m] = k == 0 ? first(_mm512_set1_ps(ap[m][i0]), v0, q)
                                     : step(part[m], _mm512_set1_ps(ap[m][i0 + k]), v0, q);
            }
#pragma GCC unroll 8
            for (int m = 0; m < MRS; m++) acc[m] = _mm512_add_ps(acc[m], part[m]);
        }
        for (; i0 < ICg; i0 += 4) {                           /* the tail slice */
            const int32_t i1 = ICg - i0 < 4 ? ICg : i0 + 4;
#pragma GCC unroll 8
            for (int m = 0; m < MRS; m++) part[m] = _mm512_setzero_ps();   /* (set by the first step) */
            for (int32_t ic = i0; ic < i1; ic++) {
                const __m512 v0 = _mm512_load_ps(w0);
                w0 += PW;
                if (ic == i0) {
#pragma GCC unroll 8
                    for (int m = 0; m < MRS; m++) part[m] = first(_mm512_set1_ps(ap[m][ic]), v0, q);
                    continue;
                }
#pragma GCC unroll 8
                for (int m = 0; m < MRS; m++) part[m] = step(part[m], _mm512_set1_ps(ap[m][ic]), v0, q);
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

/* One row, np panels (1, 2 or 4). A single row has few independent sums, and each half
 * step waits for the one before (the rounding's latency), so the slices run four at a
 * time (16 chains with 4 panels), their partial sums then added in slice order. */
INL T512 void row1(const gc_ukr_args *g, const int np, const bool slice, const bool q) {
    __m512 acc[4];
#pragma GCC unroll 4
    for (int j = 0; j < np; j++) acc[j] = _mm512_setzero_ps();
    const int64_t ps = g->pstride;
    const float *w = g->w;
    const int32_t ICg = g->ICg;
    for (int32_t t = 0; t < g->T; t++) {
        const float *ap = g->a[(size_t)t * g->a_mr] + g->a_off;
        if (!slice) {
            for (int32_t ic = 0; ic < ICg; ic++, w += PW) {
                const __m512 b = _mm512_set1_ps(ap[ic]);
#pragma GCC unroll 4
                for (int j = 0; j < np; j++) acc[j] = step(acc[j], b, _mm512_load_ps(w + j * ps), q);
            }
            continue;
        }
        int32_t i0 = 0;
        for (; i0 + 16 <= ICg; i0 += 16, w += 16 * PW) {       /* four whole slices */
            __m512 part[4][4];
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) {
#pragma GCC unroll 4
                for (int sl = 0; sl < 4; sl++) {
                    const __m512 b = _mm512_set1_ps(ap[i0 + sl * 4 + k]);
                    const float *wq = w + (size_t)(sl * 4 + k) * PW;
#pragma GCC unroll 4
                    for (int j = 0; j < np; j++)
                        part[sl][j] = k == 0 ? first(b, _mm512_load_ps(wq + j * ps), q)
                                             : step(part[sl][j], b, _mm512_load_ps(wq + j * ps), q);
                }
            }
#pragma GCC unroll 4
            for (int sl = 0; sl < 4; sl++)
#pragma GCC unroll 4
                for (int j = 0; j < np; j++) acc[j] = _mm512_add_ps(acc[j], part[sl][j]);
        }
        for (; i0 < ICg; i0 += 4) {                            /* the rest, a slice at a time */
            const int32_t i1 = ICg - i0 < 4 ? ICg : i0 + 4;
            __m512 part[4] = { _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps() };
            for (int32_t ic = i0; ic < i1; ic++, w += PW) {
                const __m512 b = _mm512_set1_ps(ap[ic]);
#pragma GCC unroll 4
                for (int j = 0; j < np; j++)
                    part[j] = ic == i0 ? first(b, _mm512_load_ps(w + j * ps), q) : step(part[j], b, _mm512_load_ps(w + j * ps), q);
            }
#pragma GCC unroll 4
            for (int j = 0; j < np; j++) acc[j] = _mm512_add_ps(acc[j], part[j]);
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
#pragma GCC unroll 4
    for (int j = 0; j < np; j++)
        _mm512_mask_storeu_ps(g->y + j * PW, lanes(g->nc - j * PW),
                              finish(acc[j], g->bias ? g->bias + j * PW : NULL, slice, lo, hi));
}

#define SET(name, R, sl, q)                                                              \
    T512 static void name##_one(const gc_ukr_args *g) { body(g, R, sl, q, false); }      \
    T512 static void name##_four_r1(const gc_ukr_args *g) { row1(g, 4, sl, q); }         \
    T512 static void name##_two_r1(const gc_ukr_args *g) { row1(g, 2, sl, q); }          \
    T512 static void name##_one_r1(const gc_ukr_args *g) { row1(g, 1, sl, q); }          \
    static const gc_ukr_set name = { PW, R, NULL, name##_one, name##_two_r1, name##_one_r1, name##_four_r1, NULL };
SET(h16, MR, false, false)
SET(slice, MRS, true, false)
SET(h16q, MR, false, true)
SET(sliceq, MRS, true, true)
#undef SET
/* split: the tiles by the split kernel, single rows by the quick ones (a split tile is quick) */
T512 static void slicev_one(const gc_ukr_args *g) { body(g, MRS, true, true, true); }
static const gc_ukr_set slicev = { PW, MRS, NULL, slicev_one, sliceq_two_r1, sliceq_one_r1, sliceq_four_r1, NULL };
const gc_ukr_set *gc_ukr_slicev_avx512(void) { return &slicev; }
const gc_ukr_set *gc_ukr_h16_avx512(void) { return &h16; }
const gc_ukr_set *gc_ukr_slice_avx512(void) { return &slice; }
const gc_ukr_set *gc_ukr_h16q_avx512(void) { return &h16q; }
const gc_ukr_set *gc_ukr_sliceq_avx512(void) { return &sliceq; }
#endif
