/* qgemm8_avx2.c — the AVX2 microkernels (qgemm8_ukr.h, the I16 encoding): int16 (x - zx)
 * times int16 (w - zw) in pairs with vpmaddwd (|products| <= 255 * 255 and the one
 * saturating case needs both values -32768: exact), panels of 8 columns, tiles of 4 rows x
 * 1..2 panels (8 accumulators of 16 ymm); single rows for matrix-vector products; the
 * depthwise row kernel; the requantization 8 lanes at once, the same steps as
 * qgemm8_avx512.c describes (TFLite: saturating left shift, rounding doubling high
 * multiply through 64-bit even / odd products, rounding right shift; XNNPACK: float scale,
 * clamp, round to nearest even). Compiled with __attribute__((target("avx2"))) and only
 * called when the CPU has AVX2 (qgemm8.c).
 */
#include "interp/kernels/qgemm8_ukr.h"

#ifdef GC_HAVE_X86_Q8
#include <immintrin.h>
#include <string.h>

#define T2 __attribute__((target("avx2")))
#define INL static inline __attribute__((always_inline))
#define GC_QV256 T2
#include "interp/kernels/qvec_x86.h"

enum { PW = 8, MR = 4, NPMAX = 2, DPX = 4 };

typedef struct { __m256i bias, q, ls, rs; __m256 fs; } rqv;

/* n columns (1..8) of an int32 / float array */
INL T2 __m256i ld_i32(const int32_t *p, int32_t n) {
    if (n >= 8) return _mm256_loadu_si256((const __m256i *)(const void *)p);
    int32_t t[8] = { 0 };
    memcpy(t, p, (size_t)(n > 0 ? n : 0) * 4);
    return _mm256_loadu_si256((const __m256i *)(const void *)t);
}
INL T2 __m256 ld_f32(const float *p, int32_t n) {
    if (n >= 8) return _mm256_loadu_ps(p);
    float t[8] = { 0 };
    memcpy(t, p, (size_t)(n > 0 ? n : 0) * 4);
    return _mm256_loadu_ps(t);
}

INL T2 rqv rq_load(const gc_q8rq *rq, size_t off, int32_t n) {
    rqv r;
    r.bias = ld_i32(rq->bias + off, n);
    r.q = r.ls = r.rs = _mm256_setzero_si256();
    r.fs = _mm256_setzero_ps();
    if (rq->xnn) r.fs = ld_f32(rq->fscale + off, n);
    else {
        r.q = ld_i32(rq->mult + off, n);
        r.rs = ld_i32(rq->rsh + off, n);
        if (rq->any_left) r.ls = ld_i32(rq->lsh + off, n);
    }
    return r;
}

INL T2 __m256i rq_apply(const gc_q8rq *rq, const rqv *p, __m256i v) {
    const __m256i zp = _mm256_set1_epi32(rq->zp);
    if (rq->xnn) {
        __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(v), p->fs);
        f = _mm256_max_ps(f, _mm256_set1_ps((float)(rq->lo - rq->zp)));
        f = _mm256_min_ps(f, _mm256_set1_ps((float)(rq->hi - rq->zp)));
        return _mm256_add_epi32(_mm256_cvtps_epi32(f), zp);
    }
    __m256i res = gc_qv256_mul(v, p->q, p->ls, p->rs, rq->any_left);
    res = _mm256_max_epi32(res, _mm256_set1_epi32(rq->lo - rq->zp));
    res = _mm256_min_epi32(res, _mm256_set1_epi32(rq->hi - rq->zp));
    return _mm256_add_epi32(res, zp);
}

/* the low byte of each lane (values already in [-128, 255]), n of them */
INL T2 void store8(uint8_t *y, __m256i v, int32_t n) {
    const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    const __m128i b = _mm_shuffle_epi8(w16, _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1));
    if (n >= 8) { _mm_storel_epi64((__m128i *)(void *)y, b); return; }
    if (n <= 0) return;
    uint8_t t[16];
    _mm_storeu_si128((__m128i *)(void *)t, b);
    memcpy(y, t, (size_t)n);
}

/* ---- GEMM ---------------------------------------------------------------------------------- */

INL T2 void gemm(const gc_q8ukr_args *g, const int R, const int NP) {
    __m256i acc[MR * NPMAX];
#pragma GCC unroll 8
    for (int i = 0; i < R * NP; i++) acc[i] = _mm256_setzero_si256();
    const int16_t *w = (const int16_t *)g->w;
    const int64_t ps = g->pstride / 2;
    const int32_t T = g->T, KG = g->KG;
    for (int32_t t = 0; t < T; t++) {
        const int16_t *ap[MR];
#pragma GCC unroll 4
        for (int m = 0; m < R; m++) ap[m] = (const int16_t *)g->a[(size_t)t * g->a_mr + m];
        for (int32_t kg = 0; kg < KG; kg++) {
            __m256i wv[NPMAX];
#pragma GCC unroll 2
            for (int p = 0; p < NP; p++) wv[p] = _mm256_load_si256((const __m256i *)(const void *)(w + p * ps));
            w += 16;
#pragma GCC unroll 4
            for (int m = 0; m < R; m++) {
                int32_t a2;
                memcpy(&a2, ap[m] + (size_t)kg * 2, 4);
                const __m256i av = _mm256_set1_epi32(a2);
#pragma GCC unroll 2
                for (int p = 0; p < NP; p++) acc[m * NP + p] = _mm256_add_epi32(acc[m * NP + p], _mm256_madd_epi16(av, wv[p]));
            }
        }
    }
#pragma GCC unroll 2
    for (int p = 0; p < NP; p++) {
        const int32_t n = g->nc - p * PW;
        const rqv pv = rq_load(&g->rq, (size_t)p * PW, 8);
#pragma GCC unroll 4
        for (int m = 0; m < R; m++) {
            if (m >= g->mr) break;
            __m256i v = _mm256_add_epi32(acc[m * NP + p], pv.bias);
            if (g->rowc) v = _mm256_add_epi32(v, _mm256_set1_epi32(g->rowc[m]));
            store8(g->y + (size_t)m * (size_t)g->ldy + (size_t)p * PW, rq_apply(&g->rq, &pv, v), n);
        }
    }
}

T2 static void k4x1(const gc_q8ukr_args *g) { gemm(g, MR, 1); }
T2 static void k4x2(const gc_q8ukr_args *g) { gemm(g, MR, 2); }
T2 static void k1x1(const gc_q8ukr_args *g) { gemm(g, 1, 1); }
T2 static void k1x2(const gc_q8ukr_args *g) { gemm(g, 1, 2); }

/* ---- depthwise ------------------------------------------------------------------------------ */

/* 8 channels of one pixel, n of them valid (the rest read as 0) */
INL T2 __m256i ld_x(const uint8_t *p, int32_t n, const bool sgn) {
    __m128i b;
    if (n >= 8) b = _mm_loadl_epi64((const __m128i *)(const void *)p);
    else { uint8_t t[16] = { 0 }; memcpy(t, p, (size_t)n); b = _mm_loadu_si128((const __m128i *)(const void *)t); }
    return sgn ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
}

INL T2 void dw_px(const gc_q8dw_args *g, uint8_t *yrow, int32_t ox, const int np, const uint8_t *const *xp,
                  const int32_t T, const bool sgn) {
    for (int32_t c0 = 0; c0 < g->C; c0 += 8) {
        const int32_t n = g->C - c0;
        const rqv pv = rq_load(&g->rq, (size_t)c0, n);
        __m256i acc[DPX];
#pragma GCC unroll 4
        for (int p = 0; p < np; p++) acc[p] = pv.bias;
        const int32_t *wt = g->w + c0;
        for (int32_t t = 0; t < T; t++) {
            const __m256i wv = _mm256_load_si256((const __m256i *)(const void *)(wt + (size_t)t * (size_t)g->Cp));
#pragma GCC unroll 4
            for (int p = 0; p < np; p++)
                acc[p] = _mm256_add_epi32(acc[p], _mm256_madd_epi16(ld_x(xp[(size_t)p * T + t] + c0, n, sgn), wv));
        }
#pragma GCC unroll 4
        for (int p = 0; p < np; p++)
            store8(yrow + (size_t)(ox + p) * (size_t)g->C + (size_t)c0, rq_apply(&g->rq, &pv, acc[p]), n);
    }
}

enum { DW_MAXT = 64 };

INL T2 void dw_row_t(const gc_q8dw_args *g, uint8_t *yrow, int32_t oy, int32_t ox0, int32_t ox1, const bool sgn) {
    const int32_t T = g->KH * g->KW;
    const uint8_t *xp[DPX * DW_MAXT];
    for (int32_t ox = ox0; ox < ox1;) {
        const int np = ox1 - ox >= DPX ? DPX : 1;
        for (int p = 0; p < np; p++)
            for (int32_t ky = 0; ky < g->KH; ky++) {
                const int32_t iy = oy * g->sh - g->pt + ky * g->dh;
                for (int32_t kx = 0; kx < g->KW; kx++) {
                    const int32_t ix = (ox + p) * g->sw - g->pl + kx * g->dw;
                    const bool in = iy >= 0 && iy < g->H && ix >= 0 && ix < g->W;
                    xp[(size_t)p * T + ky * g->KW + kx] =
                        in ? g->x + ((size_t)iy * (size_t)g->W + (size_t)ix) * (size_t)g->C : g->pad;
                }
            }
        if (np == DPX) dw_px(g, yrow, ox, DPX, xp, T, sgn);
        else dw_px(g, yrow, ox, 1, xp, T, sgn);
        ox += np;
    }
}

T2 static void dw_row(const gc_q8dw_args *g, uint8_t *yrow, int32_t oy, int32_t ox0, int32_t ox1) {
    if (g->x_signed) dw_row_t(g, yrow, oy, ox0, ox1, true);
    else dw_row_t(g, yrow, oy, ox0, ox1, false);
}

static const gc_q8ukr_set set = { PW, MR, 2, NPMAX, { k4x1, k4x2, NULL, NULL }, { k1x1, k1x2, NULL, NULL },
                                  dw_row, 16 };
const gc_q8ukr_set *gc_q8ukr_avx2(void) { return &set; }
#endif
