/* qelem8.c — the 8-bit elementwise fast paths (qelem8.h).
 *
 * ADD / SUB, TFLite (elementwise.c run_q): x_i = (v_i + off_i) * 2^left_shift,
 *   s_i = gc_q_mul(x_i, m_i, shift_i), out = clamp(gc_q_mul(s_1 + s_2, m_y, shift_y) + zp_y);
 *   |x_i| < 2^28 and |s_i| < 2^27, so nothing overflows; gc_q_mul on lanes is qvec_x86.h's
 *   (a negative multiplier, SUB's, is handled the same: the rounding identity used there
 *   holds for either sign of the product).
 * ADD / SUB, XNNPACK: acc = bias + v_1 m_1 + v_2 m_2 (int32), out = clamp((acc >> k) + zp_y).
 * MUL: p = (v_1 + off_1)(v_2 + off_2) (|p| <= 65025), TFLite clamp(gc_q_mul(p, m, s) + zp_y),
 *   XNNPACK gc_q_xnn(p, scale, zp_y, lo, hi).
 * The clamps run before adding the zero point, in [lo - zp, hi - zp], which is the same
 * and cannot wrap. A run's tail (fewer than a vector) goes through a small buffer.
 * QUANTIZE float -> 8 bit, TFLite: r = roundf(x / s) (the quotient by vdivps is the scalar
 *   division's; roundf as trunc(f) + sign(f) when |f - trunc(f)| >= 1/2, exact since f -
 *   trunc(f) is exact), NaN -> zp, then clamp(r + zp); XNNPACK: x * (1/s) clamped in float
 *   (a NaN becomes the lower bound, as the reference's lrintf(NaN) + zp clamps to it),
 *   rounded to nearest even, + zp.
 * RESIZE_BILINEAR: the float formula with products and sums in the reference's order (no
 *   FMA), roundf as above, the clamp in float (the values are integers); or XNNPACK's int32
 *   fixed point (AVX-512F only; other levels run the reference loop).
 * Tables: AVX-512 VBMI vpermi2b on the two 128-byte halves, else a scalar loop.
 */
#include "interp/kernels/qelem8.h"
#include "interp/kernels/cpu_isa.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#define Q8E_X86 1
#include <immintrin.h>
#define T512 __attribute__((target("avx512f")))
#define T2 __attribute__((target("avx2")))
#define INL static inline __attribute__((always_inline))
#define GC_QV512 T512
#define GC_QV256 T2
#include "interp/kernels/qvec_x86.h"

static void split_shift(int s, int32_t *l, int32_t *r) { *l = s > 0 ? s : 0; *r = s < 0 ? -s : 0; }

/* ---- AVX-512F: 16 lanes ------------------------------------------------------------------ */

INL T512 __m512i ld16(const uint8_t *p, int64_t s, const bool sgn) {
    const __m128i b = s ? _mm_loadu_si128((const __m128i *)(const void *)p) : _mm_set1_epi8((char)*p);
    return sgn ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
}

INL T512 __m512i bin16(const gc_q8bin *p, __m512i va, __m512i vb) {
    const __m512i zp = _mm512_set1_epi32(p->y_off);
    const __m512i lo = _mm512_set1_epi32(p->lo - p->y_off), hi = _mm512_set1_epi32(p->hi - p->y_off);
    __m512i r;
    if (p->op == GC_Q8E_ADD && p->xnn) {
        __m512i acc = _mm512_add_epi32(_mm512_set1_epi32(p->xbias), _mm512_mullo_epi32(va, _mm512_set1_epi32(p->xa)));
        acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(vb, _mm512_set1_epi32(p->xb)));
        r = _mm512_sra_epi32(acc, _mm_cvtsi32_si128(p->xshift));
    } else if (p->op == GC_Q8E_ADD) {
        int32_t al, ar, bl, br, yl, yr;
        split_shift(p->a_shift, &al, &ar); split_shift(p->b_shift, &bl, &br); split_shift(p->y_shift, &yl, &yr);
        const __m128i ls = _mm_cvtsi32_si128(p->left_shift);
        const __m512i x1 = _mm512_sll_epi32(_mm512_add_epi32(va, _mm512_set1_epi32(p->a_off)), ls);
        const __m512i x2 = _mm512_sll_epi32(_mm512_add_epi32(vb, _mm512_set1_epi32(p->b_off)), ls);
        const __m512i s1 = gc_qv512_mul(x1, _mm512_set1_epi32(p->a_mult), _mm512_set1_epi32(al), _mm512_set1_epi32(ar), al > 0);
        const __m512i s2 = gc_qv512_mul(x2, _mm512_set1_epi32(p->b_mult), _mm512_set1_epi32(bl), _mm512_set1_epi32(br), bl > 0);
        r = gc_qv512_mul(_mm512_add_epi32(s1, s2), _mm512_set1_epi32(p->y_mult), _mm512_set1_epi32(yl),
                         _mm512_set1_epi32(yr), yl > 0);
    } else {
        const __m512i prod = _mm512_mullo_epi32(_mm512_add_epi32(va, _mm512_set1_epi32(p->a_off)),
                                                _mm512_add_epi32(vb, _mm512_set1_epi32(p->b_off)));
        if (p->xnn) {
            __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(prod), _mm512_set1_ps(p->xscale));
            f = _mm512_max_ps(f, _mm512_set1_ps((float)(p->lo - p->y_off)));
            f = _mm512_min_ps(f, _mm512_set1_ps((float)(p->hi - p->y_off)));
            return _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
        }
        int32_t yl, yr;
        split_shift(p->y_shift, &yl, &yr);
        r = gc_qv512_mul(prod, _mm512_set1_epi32(p->y_mult), _mm512_set1_epi32(yl), _mm512_set1_epi32(yr), yl > 0);
    }
    return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(r, lo), hi), zp);
}

T512 static void bin_512(const gc_q8bin *p, const uint8_t *a, int64_t sa, const uint8_t *b, int64_t sb, int64_t n,
                         uint8_t *y) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i r = bin16(p, ld16(a + i * sa, sa, p->a_signed), ld16(b + i * sb, sb, p->b_signed));
        _mm_storeu_si128((__m128i *)(void *)(y + i), _mm512_cvtepi32_epi8(r));
    }
    if (i < n) {
        uint8_t ta[16] = { 0 }, tb[16] = { 0 }, ty[16];
        const int64_t k = n - i;
        if (sa) memcpy(ta, a + i, (size_t)k); else ta[0] = *a;
        if (sb) memcpy(tb, b + i, (size_t)k); else tb[0] = *b;
        const __m512i r = bin16(p, ld16(ta, sa, p->a_signed), ld16(tb, sb, p->b_signed));
        _mm_storeu_si128((__m128i *)(void *)ty, _mm512_cvtepi32_epi8(r));
        memcpy(y + i, ty, (size_t)k);
    }
}

INL T512 __m512i quant16(const gc_q8quant *p, __m512 x) {
    const __m512i zp = _mm512_set1_epi32(p->zp);
    const __m512 flo = _mm512_set1_ps((float)(p->lo - p->zp)), fhi = _mm512_set1_ps((float)(p->hi - p->zp));
    __m512 r;
    if (p->xnn) {
        r = _mm512_mul_ps(x, _mm512_set1_ps(p->inv_scale));
    } else {
        const __m512 f = _mm512_div_ps(x, _mm512_set1_ps(p->scale));
        const __m512 t = _mm512_roundscale_ps(f, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __m512 d = _mm512_abs_ps(_mm512_sub_ps(f, t));
        const __mmask16 away = _mm512_cmp_ps_mask(d, _mm512_set1_ps(0.5f), _CMP_GE_OQ);
        const __m512 one = _mm512_castsi512_ps(_mm512_or_si512(
            _mm512_and_si512(_mm512_castps_si512(f), _mm512_set1_epi32(INT32_MIN)), _mm512_castps_si512(_mm512_set1_ps(1.0f))));
        r = _mm512_mask_add_ps(t, away, t, one);
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), _mm512_setzero_ps());   /* NaN -> zp */
    }
    r = _mm512_min_ps(_mm512_max_ps(r, flo), fhi);
    return _mm512_add_epi32(_mm512_cvtps_epi32(r), zp);
}

T512 static void quant_512(const gc_q8quant *p, const float *x, int64_t n, uint8_t *y) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(y + i), _mm512_cvtepi32_epi8(quant16(p, _mm512_loadu_ps(x + i))));
    if (i < n) {
        float t[16] = { 0 };
        uint8_t ty[16];
        memcpy(t, x + i, (size_t)(n - i) * sizeof(float));
        _mm_storeu_si128((__m128i *)(void *)ty, _mm512_cvtepi32_epi8(quant16(p, _mm512_loadu_ps(t))));
        memcpy(y + i, ty, (size_t)(n - i));
    }
}

INL T512 __m512 roundf16(__m512 f) {             /* roundf: half away from zero */
    const __m512 t = _mm512_roundscale_ps(f, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m512 d = _mm512_abs_ps(_mm512_sub_ps(f, t));
    const __mmask16 away = _mm512_cmp_ps_mask(d, _mm512_set1_ps(0.5f), _CMP_GE_OQ);
    const __m512 one = _mm512_castsi512_ps(_mm512_or_si512(
        _mm512_and_si512(_mm512_castps_si512(f), _mm512_set1_epi32(INT32_MIN)), _mm512_castps_si512(_mm512_set1_ps(1.0f))));
    return _mm512_mask_add_ps(t, away, t, one);
}

INL T512 __m512i bil16(const gc_q8bil *p, const uint8_t *a, const uint8_t *b, const uint8_t *c, const uint8_t *e,
                        const float *w, int32_t wx, int32_t wy) {
    const __m512i v00 = ld16(a, 1, p->sgn), v10 = ld16(b, 1, p->sgn), v01 = ld16(c, 1, p->sgn), v11 = ld16(e, 1, p->sgn);
    if (p->xnn) {
        const __m512i vwx = _mm512_set1_epi32(wx), k = _mm512_set1_epi32(2048);
        const __m512i t = _mm512_add_epi32(_mm512_mullo_epi32(v00, k), _mm512_mullo_epi32(_mm512_sub_epi32(v01, v00), vwx));
        const __m512i bt = _mm512_add_epi32(_mm512_mullo_epi32(v10, k), _mm512_mullo_epi32(_mm512_sub_epi32(v11, v10), vwx));
        const __m512i acc = _mm512_add_epi32(_mm512_mullo_epi32(t, k), _mm512_mullo_epi32(_mm512_sub_epi32(bt, t), _mm512_set1_epi32(wy)));
        return _mm512_srai_epi32(_mm512_add_epi32(acc, _mm512_set1_epi32(1 << 21)), 22);
    }
    __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(v00), _mm512_set1_ps(w[0]));
    v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_cvtepi32_ps(v10), _mm512_set1_ps(w[1])));
    v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_cvtepi32_ps(v01), _mm512_set1_ps(w[2])));
    v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_cvtepi32_ps(v11), _mm512_set1_ps(w[3])));
    v = _mm512_min_ps(_mm512_max_ps(roundf16(v), _mm512_set1_ps((float)p->lo)), _mm512_set1_ps((float)p->hi));
    return _mm512_cvtps_epi32(v);
}

T512 static void bil_512(const gc_q8bil *p, const uint8_t *a, const uint8_t *b, const uint8_t *c, const uint8_t *e,
                         const float *w, int32_t wx, int32_t wy, int32_t C, uint8_t *y) {
    int32_t i = 0;
    for (; i + 16 <= C; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(y + i), _mm512_cvtepi32_epi8(bil16(p, a + i, b + i, c + i, e + i, w, wx, wy)));
    if (i < C) {
        uint8_t t[4][16] = { { 0 } }, ty[16];
        const size_t k = (size_t)(C - i);
        memcpy(t[0], a + i, k); memcpy(t[1], b + i, k); memcpy(t[2], c + i, k); memcpy(t[3], e + i, k);
        _mm_storeu_si128((__m128i *)(void *)ty, _mm512_cvtepi32_epi8(bil16(p, t[0], t[1], t[2], t[3], w, wx, wy)));
        memcpy(y + i, ty, k);
    }
}

#define TBW __attribute__((target("avx512f,avx512bw,avx512vl")))

INL TBW __m512i ldm16(const uint8_t *p, __mmask16 k, const bool sgn) {
    const __m128i b = _mm_maskz_loadu_epi8(k, p);
    return sgn ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
}

INL TBW void bil_row_t(const gc_q8bil *p, const uint8_t *r0, const uint8_t *r1, const int32_t *xo0, const int32_t *xo1,
                       const float *wx, const int32_t *wxq, float wy, int32_t wyq, int32_t OW, int32_t C, uint8_t *yrow,
                       const bool sgn) {
    const __m512 flo = _mm512_set1_ps((float)p->lo), fhi = _mm512_set1_ps((float)p->hi);
    const __m512i k2048 = _mm512_set1_epi32(2048), half = _mm512_set1_epi32(1 << 21), vwy = _mm512_set1_epi32(wyq);
    for (int32_t ox = 0; ox < OW; ox++) {
        const uint8_t *a = r0 + xo0[ox], *b = r1 + xo0[ox], *c = r0 + xo1[ox], *e = r1 + xo1[ox];
        uint8_t *yp = yrow + (size_t)ox * (size_t)C;
        __m512 w0 = _mm512_setzero_ps(), w1 = w0, w2 = w0, w3 = w0;
        __m512i vwx = _mm512_setzero_si512();
        if (p->xnn) vwx = _mm512_set1_epi32(wxq[ox]);
        else {                                   /* the reference's weights, in its order */
            const float fx = wx[ox];
            w0 = _mm512_set1_ps((1 - wy) * (1 - fx)); w1 = _mm512_set1_ps(wy * (1 - fx));
            w2 = _mm512_set1_ps((1 - wy) * fx); w3 = _mm512_set1_ps(wy * fx);
        }
        for (int32_t c0 = 0; c0 < C; c0 += 16) {
            const __mmask16 k = (__mmask16)(C - c0 >= 16 ? 0xffffu : (1u << (C - c0)) - 1u);
            const __m512i v00 = ldm16(a + c0, k, sgn), v10 = ldm16(b + c0, k, sgn);
            const __m512i v01 = ldm16(c + c0, k, sgn), v11 = ldm16(e + c0, k, sgn);
            __m512i r;
            if (p->xnn) {
                const __m512i t = _mm512_add_epi32(_mm512_mullo_epi32(v00, k2048), _mm512_mullo_epi32(_mm512_sub_epi32(v01, v00), vwx));
                const __m512i bt = _mm512_add_epi32(_mm512_mullo_epi32(v10, k2048), _mm512_mullo_epi32(_mm512_sub_epi32(v11, v10), vwx));
                const __m512i acc = _mm512_add_epi32(_mm512_mullo_epi32(t, k2048), _mm512_mullo_epi32(_mm512_sub_epi32(bt, t), vwy));
                r = _mm512_srai_epi32(_mm512_add_epi32(acc, half), 22);
            } else {
                __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(v00), w0);
                v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_cvtepi32_ps(v10), w1));
                v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_cvtepi32_ps(v01), w2));
                v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_cvtepi32_ps(v11), w3));
                r = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(roundf16(v), flo), fhi));
            }
            _mm_mask_storeu_epi8(yp + c0, k, _mm512_cvtepi32_epi8(r));
        }
    }
}

TBW static void bil_row_512(const gc_q8bil *p, const uint8_t *r0, const uint8_t *r1, const int32_t *xo0, const int32_t *xo1,
                            const float *wx, const int32_t *wxq, float wy, int32_t wyq, int32_t OW, int32_t C, uint8_t *yrow) {
    if (p->sgn) bil_row_t(p, r0, r1, xo0, xo1, wx, wxq, wy, wyq, OW, C, yrow, true);
    else bil_row_t(p, r0, r1, xo0, xo1, wx, wxq, wy, wyq, OW, C, yrow, false);
}

/* ARG_MAX / ARG_MIN over rows of len <= 32 bytes: the extreme by a max / min tree, its first
 * position by the equality mask's lowest bit; lanes past len hold the value that never wins */
INL T2 __m256i ext_tree(__m256i v, const bool sgn, const bool mx) {
#define EXT(a, b) (mx ? (sgn ? _mm256_max_epi8(a, b) : _mm256_max_epu8(a, b)) : (sgn ? _mm256_min_epi8(a, b) : _mm256_min_epu8(a, b)))
    v = EXT(v, _mm256_permute2x128_si256(v, v, 1));
    v = EXT(v, _mm256_shuffle_epi32(v, 0x4e));
    v = EXT(v, _mm256_shuffle_epi32(v, 0xb1));
    v = EXT(v, _mm256_shufflelo_epi16(_mm256_shufflehi_epi16(v, 0xb1), 0xb1));
    v = EXT(v, _mm256_or_si256(_mm256_srli_epi16(v, 8), _mm256_slli_epi16(v, 8)));
#undef EXT
    return v;                                   /* every byte: the extreme */
}

INL T2 void arg_rows_t(const uint8_t *x, int64_t npix, int32_t len, bool i64, void *y, const bool sgn, const bool mx) {
    const uint8_t fill = mx ? (sgn ? 0x80 : 0x00) : (sgn ? 0x7f : 0xff);
    uint8_t lanes[32];
    for (int i = 0; i < 32; i++) lanes[i] = i < len ? 0xff : 0x00;
    const __m256i keep = _mm256_loadu_si256((const __m256i *)(const void *)lanes), fv = _mm256_set1_epi8((char)fill);
    const int64_t total = npix * len;
    for (int64_t p = 0; p < npix; p++) {
        const uint8_t *r = x + p * len;
        __m256i v;
        if (p * len + 32 <= total) v = _mm256_loadu_si256((const __m256i *)(const void *)r);
        else { uint8_t t[32] = { 0 }; memcpy(t, r, (size_t)len); v = _mm256_loadu_si256((const __m256i *)(const void *)t); }
        v = _mm256_blendv_epi8(fv, v, keep);
        const __m256i ext = ext_tree(v, sgn, mx);
        const uint32_t eq = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, ext));
        const int32_t best = (int32_t)__builtin_ctz(eq);   /* eq != 0: the extreme is somewhere */
        if (i64) ((int64_t *)y)[p] = best; else ((int32_t *)y)[p] = best;
    }
}

T2 static void arg_rows_256(const uint8_t *x, int64_t npix, int32_t len, bool sgn, bool mx, bool i64, void *y) {
    if (sgn) { if (mx) arg_rows_t(x, npix, len, i64, y, true, true); else arg_rows_t(x, npix, len, i64, y, true, false); }
    else { if (mx) arg_rows_t(x, npix, len, i64, y, false, true); else arg_rows_t(x, npix, len, i64, y, false, false); }
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void lut_vbmi(const uint8_t *table, const uint8_t *x,
                                                                             int64_t n, uint8_t *y) {
    const __m512i t0 = _mm512_loadu_si512((const void *)table), t1 = _mm512_loadu_si512((const void *)(table + 64));
    const __m512i t2 = _mm512_loadu_si512((const void *)(table + 128)), t3 = _mm512_loadu_si512((const void *)(table + 192));
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i v = _mm512_loadu_si512((const void *)(x + i));
        const __m512i lo = _mm512_permutex2var_epi8(t0, v, t1), hi = _mm512_permutex2var_epi8(t2, v, t3);
        _mm512_storeu_si512((void *)(y + i), _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi));
    }
    for (; i < n; i++) y[i] = table[x[i]];
}

/* ---- AVX2: 8 lanes -------------------------------------------------------------------------- */

INL T2 __m256i ld8(const uint8_t *p, int64_t s, const bool sgn) {
    const __m128i b = s ? _mm_loadl_epi64((const __m128i *)(const void *)p) : _mm_set1_epi8((char)*p);
    return sgn ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
}

INL T2 void st8(uint8_t *y, __m256i v) {
    const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i *)(void *)y,
                     _mm_shuffle_epi8(w16, _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1)));
}

INL T2 __m256i bin8(const gc_q8bin *p, __m256i va, __m256i vb) {
    const __m256i zp = _mm256_set1_epi32(p->y_off);
    const __m256i lo = _mm256_set1_epi32(p->lo - p->y_off), hi = _mm256_set1_epi32(p->hi - p->y_off);
    __m256i r;
    if (p->op == GC_Q8E_ADD && p->xnn) {
        __m256i acc = _mm256_add_epi32(_mm256_set1_epi32(p->xbias), _mm256_mullo_epi32(va, _mm256_set1_epi32(p->xa)));
        acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(vb, _mm256_set1_epi32(p->xb)));
        r = _mm256_sra_epi32(acc, _mm_cvtsi32_si128(p->xshift));
    } else if (p->op == GC_Q8E_ADD) {
        int32_t al, ar, bl, br, yl, yr;
        split_shift(p->a_shift, &al, &ar); split_shift(p->b_shift, &bl, &br); split_shift(p->y_shift, &yl, &yr);
        const __m128i ls = _mm_cvtsi32_si128(p->left_shift);
        const __m256i x1 = _mm256_sll_epi32(_mm256_add_epi32(va, _mm256_set1_epi32(p->a_off)), ls);
        const __m256i x2 = _mm256_sll_epi32(_mm256_add_epi32(vb, _mm256_set1_epi32(p->b_off)), ls);
        const __m256i s1 = gc_qv256_mul(x1, _mm256_set1_epi32(p->a_mult), _mm256_set1_epi32(al), _mm256_set1_epi32(ar), al > 0);
        const __m256i s2 = gc_qv256_mul(x2, _mm256_set1_epi32(p->b_mult), _mm256_set1_epi32(bl), _mm256_set1_epi32(br), bl > 0);
        r = gc_qv256_mul(_mm256_add_epi32(s1, s2), _mm256_set1_epi32(p->y_mult), _mm256_set1_epi32(yl),
                         _mm256_set1_epi32(yr), yl > 0);
    } else {
        const __m256i prod = _mm256_mullo_epi32(_mm256_add_epi32(va, _mm256_set1_epi32(p->a_off)),
                                                _mm256_add_epi32(vb, _mm256_set1_epi32(p->b_off)));
        if (p->xnn) {
            __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(prod), _mm256_set1_ps(p->xscale));
            f = _mm256_max_ps(f, _mm256_set1_ps((float)(p->lo - p->y_off)));
            f = _mm256_min_ps(f, _mm256_set1_ps((float)(p->hi - p->y_off)));
            return _mm256_add_epi32(_mm256_cvtps_epi32(f), zp);
        }
        int32_t yl, yr;
        split_shift(p->y_shift, &yl, &yr);
        r = gc_qv256_mul(prod, _mm256_set1_epi32(p->y_mult), _mm256_set1_epi32(yl), _mm256_set1_epi32(yr), yl > 0);
    }
    return _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(r, lo), hi), zp);
}

T2 static void bin_256(const gc_q8bin *p, const uint8_t *a, int64_t sa, const uint8_t *b, int64_t sb, int64_t n,
                       uint8_t *y) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) st8(y + i, bin8(p, ld8(a + i * sa, sa, p->a_signed), ld8(b + i * sb, sb, p->b_signed)));
    if (i < n) {
        uint8_t ta[16] = { 0 }, tb[16] = { 0 }, ty[16];
        const int64_t k = n - i;
        if (sa) memcpy(ta, a + i, (size_t)k); else ta[0] = *a;
        if (sb) memcpy(tb, b + i, (size_t)k); else tb[0] = *b;
        st8(ty, bin8(p, ld8(ta, sa, p->a_signed), ld8(tb, sb, p->b_signed)));
        memcpy(y + i, ty, (size_t)k);
    }
}

INL T2 __m256i quant8(const gc_q8quant *p, __m256 x) {
    const __m256i zp = _mm256_set1_epi32(p->zp);
    const __m256 flo = _mm256_set1_ps((float)(p->lo - p->zp)), fhi = _mm256_set1_ps((float)(p->hi - p->zp));
    __m256 r;
    if (p->xnn) {
        r = _mm256_mul_ps(x, _mm256_set1_ps(p->inv_scale));
    } else {
        const __m256 f = _mm256_div_ps(x, _mm256_set1_ps(p->scale));
        const __m256 t = _mm256_round_ps(f, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __m256 sign = _mm256_and_ps(f, _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN)));
        const __m256 d = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN)), _mm256_sub_ps(f, t));
        const __m256 away = _mm256_cmp_ps(d, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
        r = _mm256_add_ps(t, _mm256_and_ps(away, _mm256_or_ps(sign, _mm256_set1_ps(1.0f))));
        r = _mm256_andnot_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q), r);                           /* NaN -> zp */
    }
    /* max(r, lo): a NaN r (XNNPACK only) becomes lo, as the reference's clamp does */
    r = _mm256_min_ps(_mm256_max_ps(r, flo), fhi);
    return _mm256_add_epi32(_mm256_cvtps_epi32(r), zp);
}

/* RESIZE_BILINEAR, one output row on 8 lanes: bil_row_t's arithmetic (the reference's
 * float weights and order, roundf as quant8 rounds; or XNNPACK's Q11 integers). A last
 * block of fewer than 8 channels goes through small buffers (no load past the pixel). */
INL T2 __m256i bil8(const gc_q8bil *p, __m256i v00, __m256i v10, __m256i v01, __m256i v11, __m256 w0, __m256 w1,
                    __m256 w2, __m256 w3, __m256i vwx, __m256i vwy) {
    if (p->xnn) {
        const __m256i k2048 = _mm256_set1_epi32(2048);
        const __m256i t = _mm256_add_epi32(_mm256_mullo_epi32(v00, k2048), _mm256_mullo_epi32(_mm256_sub_epi32(v01, v00), vwx));
        const __m256i bt = _mm256_add_epi32(_mm256_mullo_epi32(v10, k2048), _mm256_mullo_epi32(_mm256_sub_epi32(v11, v10), vwx));
        const __m256i acc = _mm256_add_epi32(_mm256_mullo_epi32(t, k2048), _mm256_mullo_epi32(_mm256_sub_epi32(bt, t), vwy));
        return _mm256_srai_epi32(_mm256_add_epi32(acc, _mm256_set1_epi32(1 << 21)), 22);
    }
    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(v00), w0);
    f = _mm256_add_ps(f, _mm256_mul_ps(_mm256_cvtepi32_ps(v10), w1));
    f = _mm256_add_ps(f, _mm256_mul_ps(_mm256_cvtepi32_ps(v01), w2));
    f = _mm256_add_ps(f, _mm256_mul_ps(_mm256_cvtepi32_ps(v11), w3));
    const __m256 t = _mm256_round_ps(f, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);          /* roundf */
    const __m256 sign = _mm256_and_ps(f, _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN)));
    const __m256 d = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN)), _mm256_sub_ps(f, t));
    const __m256 away = _mm256_cmp_ps(d, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    __m256 r = _mm256_add_ps(t, _mm256_and_ps(away, _mm256_or_ps(sign, _mm256_set1_ps(1.0f))));
    r = _mm256_min_ps(_mm256_max_ps(r, _mm256_set1_ps((float)p->lo)), _mm256_set1_ps((float)p->hi));
    return _mm256_cvtps_epi32(r);
}

INL T2 void bil_row_t256(const gc_q8bil *p, const uint8_t *r0, const uint8_t *r1, const int32_t *xo0, const int32_t *xo1,
                         const float *wx, const int32_t *wxq, float wy, int32_t wyq, int32_t OW, int32_t C, uint8_t *yrow,
                         const bool sgn) {
    const __m256i vwy = _mm256_set1_epi32(wyq);
    for (int32_t ox = 0; ox < OW; ox++) {
        const uint8_t *a = r0 + xo0[ox], *b = r1 + xo0[ox], *c = r0 + xo1[ox], *e = r1 + xo1[ox];
        uint8_t *yp = yrow + (size_t)ox * (size_t)C;
        __m256 w0 = _mm256_setzero_ps(), w1 = w0, w2 = w0, w3 = w0;
        __m256i vwx = _mm256_setzero_si256();
        if (p->xnn) vwx = _mm256_set1_epi32(wxq[ox]);
        else {                                   /* the reference's weights, in its order */
            const float fx = wx[ox];
            w0 = _mm256_set1_ps((1 - wy) * (1 - fx)); w1 = _mm256_set1_ps(wy * (1 - fx));
            w2 = _mm256_set1_ps((1 - wy) * fx); w3 = _mm256_set1_ps(wy * fx);
        }
        int32_t c0 = 0;
        for (; c0 + 8 <= C; c0 += 8)
            st8(yp + c0, bil8(p, ld8(a + c0, 1, sgn), ld8(b + c0, 1, sgn), ld8(c + c0, 1, sgn), ld8(e + c0, 1, sgn),
                              w0, w1, w2, w3, vwx, vwy));
        if (c0 < C) {
            uint8_t t[4][8] = { { 0 } }, ty[8];
            const size_t k = (size_t)(C - c0);
            memcpy(t[0], a + c0, k); memcpy(t[1], b + c0, k); memcpy(t[2], c + c0, k); memcpy(t[3], e + c0, k);
            st8(ty, bil8(p, ld8(t[0], 1, sgn), ld8(t[1], 1, sgn), ld8(t[2], 1, sgn), ld8(t[3], 1, sgn), w0, w1, w2, w3, vwx, vwy));
            memcpy(yp + c0, ty, k);
        }
    }
}

T2 static void bil_row_256(const gc_q8bil *p, const uint8_t *r0, const uint8_t *r1, const int32_t *xo0, const int32_t *xo1,
                           const float *wx, const int32_t *wxq, float wy, int32_t wyq, int32_t OW, int32_t C, uint8_t *yrow) {
    if (p->sgn) bil_row_t256(p, r0, r1, xo0, xo1, wx, wxq, wy, wyq, OW, C, yrow, true);
    else bil_row_t256(p, r0, r1, xo0, xo1, wx, wxq, wy, wyq, OW, C, yrow, false);
}

T2 static void quant_256(const gc_q8quant *p, const float *x, int64_t n, uint8_t *y) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) st8(y + i, quant8(p, _mm256_loadu_ps(x + i)));
    if (i < n) {
        float t[8] = { 0 };
        uint8_t ty[16];
        memcpy(t, x + i, (size_t)(n - i) * sizeof(float));
        st8(ty, quant8(p, _mm256_loadu_ps(t)));
        memcpy(y + i, ty, (size_t)(n - i));
    }
}
#endif

bool gc_q8bin_run(int isa, const gc_q8bin *p, const uint8_t *a, int64_t sa, const uint8_t *b, int64_t sb,
                  int64_t n, uint8_t *y) {
    if ((sa != 0 && sa != 1) || (sb != 0 && sb != 1)) return false;
#ifdef Q8E_X86
    if (isa >= GC_ISA_AVX512) { bin_512(p, a, sa, b, sb, n, y); return true; }
    if (isa >= GC_ISA_AVX2) { bin_256(p, a, sa, b, sb, n, y); return true; }
#else
    (void)isa; (void)p; (void)a; (void)b; (void)n; (void)y;
#endif
    return false;
}

bool gc_q8bil_px(int isa, const gc_q8bil *p, const uint8_t *x00, const uint8_t *x10, const uint8_t *x01,
                 const uint8_t *x11, const float *w, int32_t wx, int32_t wy, int32_t C, uint8_t *y) {
#ifdef Q8E_X86
    if (isa >= GC_ISA_AVX512) { bil_512(p, x00, x10, x01, x11, w, wx, wy, C, y); return true; }
#else
    (void)isa; (void)p; (void)x00; (void)x10; (void)x01; (void)x11; (void)w; (void)wx; (void)wy; (void)C; (void)y;
#endif
    return false;
}

bool gc_q8bil_row(int isa, const gc_q8bil *p, const uint8_t *r0, const uint8_t *r1, const int32_t *xo0,
                  const int32_t *xo1, const float *wx, const int32_t *wxq, float wy, int32_t wyq, int32_t OW, int32_t C,
                  uint8_t *yrow) {
#ifdef Q8E_X86
    static int bw = -1;                         /* benign race: every thread computes the same */
    if (bw < 0) { __builtin_cpu_init(); bw = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"); }
    if (isa >= GC_ISA_AVX512 && bw) { bil_row_512(p, r0, r1, xo0, xo1, wx, wxq, wy, wyq, OW, C, yrow); return true; }
    if (isa >= GC_ISA_AVX2) { bil_row_256(p, r0, r1, xo0, xo1, wx, wxq, wy, wyq, OW, C, yrow); return true; }
#else
    (void)isa; (void)p; (void)r0; (void)r1; (void)xo0; (void)xo1; (void)wx; (void)wxq; (void)wy; (void)wyq; (void)OW;
    (void)C; (void)yrow;
#endif
    return false;
}

bool gc_q8arg_rows(int isa, const uint8_t *x, int64_t npix, int32_t len, bool sgn, bool mx, bool i64, void *y) {
    if (len < 1 || len > 32) return false;
#ifdef Q8E_X86
    if (isa >= GC_ISA_AVX2) { arg_rows_256(x, npix, len, sgn, mx, i64, y); return true; }
#else
    (void)isa; (void)x; (void)npix; (void)sgn; (void)mx; (void)i64; (void)y;
#endif
    return false;
}

bool gc_q8quant_run(int isa, const gc_q8quant *p, const float *x, int64_t n, uint8_t *y) {
#ifdef Q8E_X86
    if (isa >= GC_ISA_AVX512) { quant_512(p, x, n, y); return true; }
    if (isa >= GC_ISA_AVX2) { quant_256(p, x, n, y); return true; }
#else
    (void)isa; (void)p; (void)x; (void)n; (void)y;
#endif
    return false;
}

/* one tile: nr <= 16 rows of x (row stride B) from (a0, b0), nc <= 16 columns */
static void tile16(const uint8_t *x, uint8_t *y, int64_t A, int64_t B, int64_t a0, int64_t b0, int nr, int nc) {
#ifdef Q8E_X86
    __m128i r[16];
    for (int i = 0; i < 16; i++) {
        const uint8_t *src = x + (size_t)(a0 + (i < nr ? i : 0)) * (size_t)B + (size_t)b0;
        if (nc == 16) r[i] = _mm_loadu_si128((const __m128i *)(const void *)src);
        else if (nc == 8) r[i] = _mm_loadl_epi64((const __m128i *)(const void *)src);
        else { uint8_t t[16] = { 0 }; memcpy(t, src, (size_t)nc); r[i] = _mm_loadu_si128((const __m128i *)(const void *)t); }
    }
    for (int s = 0; s < 4; s++) {               /* four perfect shuffles of the 4-bit row index */
        __m128i t[16];
        for (int i = 0; i < 8; i++) { t[2 * i] = _mm_unpacklo_epi8(r[i], r[i + 8]); t[2 * i + 1] = _mm_unpackhi_epi8(r[i], r[i + 8]); }
        memcpy(r, t, sizeof r);
    }
    for (int j = 0; j < nc; j++) {
        uint8_t *dst = y + (size_t)(b0 + j) * (size_t)A + (size_t)a0;
        if (nr == 16) _mm_storeu_si128((__m128i *)(void *)dst, r[j]);
        else if (nr == 8) _mm_storel_epi64((__m128i *)(void *)dst, r[j]);
        else { uint8_t t[16]; _mm_storeu_si128((__m128i *)(void *)t, r[j]); memcpy(dst, t, (size_t)nr); }
    }
#else
    for (int j = 0; j < nc; j++)
        for (int i = 0; i < nr; i++) y[(size_t)(b0 + j) * (size_t)A + (size_t)(a0 + i)] = x[(size_t)(a0 + i) * (size_t)B + (size_t)(b0 + j)];
#endif
}

void gc_q8transpose(const uint8_t *x, uint8_t *y, int64_t A, int64_t B, int64_t i0, int64_t i1) {
    const int64_t bands = (A + 15) / 16;
    for (int64_t it = i0; it < i1; it++) {
        const int64_t n = it / bands, a0 = it % bands * 16, a1 = A - a0 < 16 ? A : a0 + 16;
        const uint8_t *xs = x + (size_t)n * (size_t)A * (size_t)B;
        uint8_t *ys = y + (size_t)n * (size_t)A * (size_t)B;
        if (A < 8 || B < 8) {                   /* a few rows or columns: plain loops, no partial tiles */
            for (int64_t b = 0; b < B; b++) for (int64_t a = a0; a < a1; a++) ys[b * A + a] = xs[a * B + b];
            continue;
        }
        for (int64_t b0 = 0; b0 < B; b0 += 16)
            tile16(xs, ys, A, B, a0, b0, (int)(a1 - a0), B - b0 < 16 ? (int)(B - b0) : 16);
    }
}

void gc_q8lut_run(int isa, const uint8_t *table, const uint8_t *x, int64_t n, uint8_t *y) {
#ifdef Q8E_X86
    if (isa >= GC_ISA_AVX512) {
        static int vbmi = -1;                       /* benign race: every thread computes the same */
        if (vbmi < 0) { __builtin_cpu_init(); vbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw"); }
        if (vbmi) { lut_vbmi(table, x, n, y); return; }
    }
#else
    (void)isa;
#endif
    for (int64_t i = 0; i < n; i++) y[i] = table[x[i]];
}
