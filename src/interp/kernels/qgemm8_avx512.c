/* qgemm8_avx512.c — the AVX-512 VNNI microkernels (qgemm8_ukr.h): u8 x s8 products with
 * vpdpbusd (non-saturating, so exact), panels of 16 columns, tiles of 8 rows x 1..3 panels
 * (up to 24 accumulators in registers: vpdpbusd has a latency of about 4 cycles and two
 * issue a cycle, so fewer chains would stall), single rows for matrix-vector products;
 * the depthwise row kernel (int16 lanes, vpdpwssd); the requantization, 16 lanes at once.
 *
 * Requantization, exactly the reference's (quant.h):
 *   TFLite gc_q_mul(v, q, shift): qvec_x86.h, then the clamp (in [lo - zp, hi - zp] before
 *     adding zp, so nothing wraps), + zp.
 *   XNNPACK gc_q_xnn: (float)v * scale (vcvtdq2ps rounds to nearest even as the C cast),
 *     clamped in float to [lo - zp, hi - zp], vcvtps2dq (lrintf: nearest even), + zp.
 * Compiled with __attribute__((target(...))) and only called when the CPU has AVX-512F,
 * BW, VL and VNNI (qgemm8.c).
 */
#include "interp/kernels/qgemm8_ukr.h"

#ifdef GC_HAVE_X86_Q8
#include <immintrin.h>
#include <string.h>

#define TV __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define INL static inline __attribute__((always_inline))
#define GC_QV512 TV
#include "interp/kernels/qvec_x86.h"

enum { PW = 16, MR = 8, NPMAX = 3, DPX = 8 };

/* the per-column parameters of one block of 16 columns, loaded once */
typedef struct { __m512i bias; gc_qv512p m; __m512 fs; } rqv;

INL TV rqv rq_load(const gc_q8rq *rq, size_t off, __mmask16 k) {
    rqv r;
    r.bias = _mm512_maskz_loadu_epi32(k, rq->bias + off);
    if (rq->xnn) {
        r.fs = _mm512_maskz_loadu_ps(k, rq->fscale + off);
        r.m = gc_qv512_prep(_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
    } else {
        r.fs = _mm512_setzero_ps();
        r.m = gc_qv512_prep(_mm512_maskz_loadu_epi32(k, rq->mult + off),
                            rq->any_left ? _mm512_maskz_loadu_epi32(k, rq->lsh + off) : _mm512_setzero_si512(),
                            _mm512_maskz_loadu_epi32(k, rq->rsh + off));
    }
    return r;
}

/* the requantization's constants, made once per call (the stores through uint8_t * may
 * alias anything, so the compiler would otherwise reload and rebroadcast them per vector) */
typedef struct { bool xnn, left; __m512i zp, lo, hi; __m512 flo, fhi; } rqc;

INL TV rqc rq_const(const gc_q8rq *rq) {
    rqc c = { rq->xnn, rq->any_left, _mm512_set1_epi32(rq->zp), _mm512_set1_epi32(rq->lo - rq->zp),
              _mm512_set1_epi32(rq->hi - rq->zp), _mm512_set1_ps((float)(rq->lo - rq->zp)),
              _mm512_set1_ps((float)(rq->hi - rq->zp)) };
    return c;
}

/* v (acc + bias + row term) -> the output value in [lo, hi] as int32 */
INL TV __m512i rq_apply(const rqc *c, const rqv *p, __m512i v) {
    if (c->xnn) {
        __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(v), p->fs);
        f = _mm512_min_ps(_mm512_max_ps(f, c->flo), c->fhi);
        return _mm512_add_epi32(_mm512_cvtps_epi32(f), c->zp);
    }
    __m512i res = gc_qv512_mulp(v, &p->m, c->left);
    res = _mm512_min_epi32(_mm512_max_epi32(res, c->lo), c->hi);
    return _mm512_add_epi32(res, c->zp);
}

INL TV void store16(uint8_t *y, __m512i v, __mmask16 k) {
    _mm_mask_storeu_epi8(y, k, _mm512_cvtepi32_epi8(v));
}

INL TV __mmask16 cols_mask(int32_t n) { return (__mmask16)(n >= 16 ? 0xffffu : n <= 0 ? 0u : (1u << n) - 1u); }

/* ---- GEMM ---------------------------------------------------------------------------------- */

INL TV void gemm(const gc_q8ukr_args *g, const int R, const int NP) {
    __m512i acc[MR * NPMAX];                     /* start at the packed bias */
#pragma GCC unroll 24
    for (int i = 0; i < R * NP; i++) acc[i] = _mm512_loadu_si512((const void *)(g->rq.bias + (i % NP) * PW));
    const int8_t *w = (const int8_t *)g->w;
    const int64_t ps = g->pstride;
    const int32_t T = g->T, KG = g->KG;
    for (int32_t t = 0; t < T; t++) {
        const uint8_t *ap[MR];
#pragma GCC unroll 8
        for (int m = 0; m < R; m++) ap[m] = (const uint8_t *)g->a[(size_t)t * g->a_mr + m];
        for (int32_t kg = 0; kg < KG; kg++) {
            __m512i wv[NPMAX];
#pragma GCC unroll 3
            for (int p = 0; p < NP; p++) wv[p] = _mm512_load_si512((const void *)(w + p * ps));
            w += 64;
#pragma GCC unroll 8
            for (int m = 0; m < R; m++) {
                int32_t a4;
                memcpy(&a4, ap[m] + (size_t)kg * 4, 4);
                const __m512i av = _mm512_set1_epi32(a4);
#pragma GCC unroll 3
                for (int p = 0; p < NP; p++) acc[m * NP + p] = _mm512_dpbusd_epi32(acc[m * NP + p], av, wv[p]);
            }
        }
    }
    const rqc rc = rq_const(&g->rq);
    const int32_t mr = g->mr, nc = g->nc;
    const int32_t *rowc = g->rowc;
    uint8_t *y = g->y;
    const size_t ldy = (size_t)g->ldy;
#pragma GCC unroll 3
    for (int p = 0; p < NP; p++) {
        const __mmask16 k = cols_mask(nc - p * PW);
        const rqv pv = rq_load(&g->rq, (size_t)p * PW, 0xffff);
#pragma GCC unroll 8
        for (int m = 0; m < R; m++) {
            if (m >= mr) break;
            __m512i v = acc[m * NP + p];
            if (rowc) v = _mm512_add_epi32(v, _mm512_set1_epi32(rowc[m]));
            store16(y + (size_t)m * ldy + (size_t)p * PW, rq_apply(&rc, &pv, v), k);
        }
    }
}

TV static void k8x1(const gc_q8ukr_args *g) { gemm(g, MR, 1); }
TV static void k8x2(const gc_q8ukr_args *g) { gemm(g, MR, 2); }
TV static void k8x3(const gc_q8ukr_args *g) { gemm(g, MR, 3); }
TV static void k1x1(const gc_q8ukr_args *g) { gemm(g, 1, 1); }
TV static void k1x2(const gc_q8ukr_args *g) { gemm(g, 1, 2); }
TV static void k1x3(const gc_q8ukr_args *g) { gemm(g, 1, 3); }

/* ---- depthwise ------------------------------------------------------------------------------ */

INL TV __m512i ld_x(const uint8_t *p, __mmask16 k, const bool sgn) {
    const __m128i b = _mm_maskz_loadu_epi8(k, p);
    return sgn ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
}

/* np pixels starting at ox (np == DPX or 1), their tap pointers in xp[p][t] */
INL TV void dw_px(const gc_q8dw_args *g, const rqc *rc, uint8_t *yrow, int32_t ox, const int np,
                  const uint8_t *const *xp, const int32_t T, const bool sgn) {
    const int32_t C = g->C;
    const size_t Cp = (size_t)g->Cp;
    for (int32_t c0 = 0; c0 < C; c0 += 16) {
        const __mmask16 k = cols_mask(C - c0);
        const rqv pv = rq_load(&g->rq, (size_t)c0, k);
        __m512i acc[DPX];
#pragma GCC unroll 8
        for (int p = 0; p < np; p++) acc[p] = pv.bias;
        const int32_t *wt = g->w + c0;
        for (int32_t t = 0; t < T; t++) {
            const __m512i wv = _mm512_load_si512((const void *)(wt + (size_t)t * Cp));
#pragma GCC unroll 8
            for (int p = 0; p < np; p++)
                acc[p] = _mm512_dpwssd_epi32(acc[p], ld_x(xp[(size_t)p * T + t] + c0, k, sgn), wv);
        }
#pragma GCC unroll 8
        for (int p = 0; p < np; p++)
            store16(yrow + (size_t)(ox + p) * (size_t)C + (size_t)c0, rq_apply(rc, &pv, acc[p]), k);
    }
}

enum { DW_MAXT = 64, MAXWIN = 19 };

/* PX pixels from ox, stride SWc, KWc taps DLc columns apart (compile-time): the NWIN input
 * columns a kernel row reads are loaded once and shared by the taps (pixel p, tap kx reads
 * column p * SWc + kx * DLc). A column outside the image (check: the block reaches a border) and
 * a kernel row outside it read the pad row, as the pointer path does. */
INL TV void dw_win(const gc_q8dw_args *g, const rqc *rc, uint8_t *yrow, int32_t oy, int32_t ox, const int PX,
                   const int SWc, const int KWc, const int DLc, const bool check, const bool sgn) {
    const int NWIN = (PX - 1) * SWc + (KWc - 1) * DLc + 1;
    const int32_t C = g->C, W = g->W;
    const size_t Cp = (size_t)g->Cp, Cs = (size_t)C;
    const int32_t col0 = ox * SWc - g->pl;
    for (int32_t c0 = 0; c0 < C; c0 += 16) {
        const __mmask16 k = cols_mask(C - c0);
        const rqv pv = rq_load(&g->rq, (size_t)c0, k);
        __m512i acc[DPX];
#pragma GCC unroll 8
        for (int p = 0; p < PX; p++) acc[p] = pv.bias;
        const __m512i padv = ld_x(g->pad + c0, k, sgn);
        for (int32_t ky = 0; ky < g->KH; ky++) {
            const int32_t iy = oy * g->sh - g->pt + ky * g->dh;
            __m512i xw[MAXWIN];
            if (iy >= 0 && iy < g->H) {
                const uint8_t *row = g->x + (size_t)iy * (size_t)W * Cs + (size_t)c0;
#pragma GCC unroll 19
                for (int j = 0; j < NWIN; j++) {
                    const int32_t col = col0 + j;
                    xw[j] = !check || (col >= 0 && col < W) ? ld_x(row + (ptrdiff_t)col * (ptrdiff_t)Cs, k, sgn) : padv;
                }
            } else {
#pragma GCC unroll 19
                for (int j = 0; j < NWIN; j++) xw[j] = padv;
            }
            const int32_t *wr = g->w + (size_t)ky * (size_t)KWc * Cp + (size_t)c0;
#pragma GCC unroll 5
            for (int kx = 0; kx < KWc; kx++) {
                const __m512i wv = _mm512_load_si512((const void *)(wr + (size_t)kx * Cp));
#pragma GCC unroll 8
                for (int p = 0; p < PX; p++) acc[p] = _mm512_dpwssd_epi32(acc[p], xw[p * SWc + kx * DLc], wv);
            }
        }
#pragma GCC unroll 8
        for (int p = 0; p < PX; p++)
            store16(yrow + (size_t)(ox + p) * Cs + (size_t)c0, rq_apply(rc, &pv, acc[p]), k);
    }
}

/* the window geometries (0: none): 3 taps at stride 1 / 2 and dilation 1 / 2 (stride 1 also
 * 4), 5 taps at stride 1 / 2, dilation 1; each fits MAXWIN columns */
static int win_kind(const gc_q8dw_args *g) {
    if (g->KW == 3 && g->dw == 1) return g->sw == 1 ? 1 : g->sw == 2 ? 2 : 0;
    if (g->KW == 5 && g->dw == 1) return g->sw == 1 ? 3 : g->sw == 2 ? 4 : 0;
    if (g->KW == 3 && g->dw == 2) return g->sw == 1 ? 5 : g->sw == 2 ? 7 : 0;
    if (g->KW == 3 && g->dw == 4 && g->sw == 1) return 6;
    return 0;
}

/* one block of PX pixels through the window kernel of geometry wk */
INL TV void dw_block(const gc_q8dw_args *g, const rqc *rc, uint8_t *yrow, int32_t oy, int32_t ox, const int PX,
                     int wk, bool check, const bool sgn) {
#define WIN(S, K, D) (check ? dw_win(g, rc, yrow, oy, ox, PX, S, K, D, true, sgn) : dw_win(g, rc, yrow, oy, ox, PX, S, K, D, false, sgn))
    switch (wk) {
    case 1: WIN(1, 3, 1); break;
    case 2: WIN(2, 3, 1); break;
    case 3: WIN(1, 5, 1); break;
    case 4: WIN(2, 5, 1); break;
    case 5: WIN(1, 3, 2); break;
    case 6: WIN(1, 3, 4); break;
    default: WIN(2, 3, 2); break;
    }
#undef WIN
}

INL TV void dw_row_t(const gc_q8dw_args *g, uint8_t *yrow, int32_t oy, int32_t ox0, int32_t ox1, const bool sgn) {
    const int32_t T = g->KH * g->KW;
    const uint8_t *xp[DPX * DW_MAXT];
    const rqc rc = rq_const(&g->rq);
    /* pixels [a, b) read inside the image horizontally at every tap */
    int64_t a = ((int64_t)g->pl + g->sw - 1) / g->sw, num = (int64_t)g->W - 1 - (int64_t)(g->KW - 1) * g->dw + g->pl;
    int64_t b = num < 0 ? 0 : num / g->sw + 1;
    const int wk = win_kind(g);
    /* the window kernels: blocks of 8 (or 4 on narrow rows) pixels; the last block starts
     * at ox1 - PX and may overlap the one before, which writes the same values again */
    const int PXw = ox1 - ox0 >= DPX ? DPX : ox1 - ox0 >= 4 ? 4 : 0;
    for (int32_t ox = ox0; wk && PXw && ox < ox1; ox += PXw) {
        if (ox + PXw > ox1) ox = ox1 - PXw;
        const bool check = ox < a || ox + PXw > b;
        if (PXw == DPX) dw_block(g, &rc, yrow, oy, ox, DPX, wk, check, sgn);
        else dw_block(g, &rc, yrow, oy, ox, 4, wk, check, sgn);
    }
    if (wk && PXw) return;
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
        if (np == DPX) dw_px(g, &rc, yrow, ox, DPX, xp, T, sgn);
        else dw_px(g, &rc, yrow, ox, 1, xp, T, sgn);
        ox += np;
    }
}

TV static void dw_row(const gc_q8dw_args *g, uint8_t *yrow, int32_t oy, int32_t ox0, int32_t ox1) {
    if (g->x_signed) dw_row_t(g, yrow, oy, ox0, ox1, true);
    else dw_row_t(g, yrow, oy, ox0, ox1, false);
}

static const gc_q8ukr_set set = { PW, MR, 4, NPMAX, { k8x1, k8x2, k8x3, NULL }, { k1x1, k1x2, k1x3, NULL },
                                  dw_row, 16 };
const gc_q8ukr_set *gc_q8ukr_vnni(void) { return &set; }
#endif
