/* dwconv_f32.c — the fast float32 DEPTHWISE_CONV_2D (dwconv_f32.h): per output row,
 * per block of VW channels, blocks of PX output pixels whose every tap lies inside the
 * image (no checks), the rest one pixel at a time skipping the taps outside. One body per
 * instruction set: AVX-512F (VW 16), AVX2 (VW 8), portable C (VW 8). Every body takes a
 * compile-time mode `md` (GC_DWF_*): GC_DWF_H16 makes the step acc + x w r(acc + r(x w))
 * and the output r(acc + bias) (kernels/f16_simd.h; the AVX2 body then needs F16C);
 * GC_DWF_FMA makes it fmaf(x, w, acc), one rounding.
 */
#include "interp/kernels/dwconv_f32.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/f16_simd.h"
#include "interp/fp16.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

enum { PX = 8 };

/* One output row; its pixels [0, a) and [b, OW) need tap checks, [a, b) do not. */
/* zpad: every filter value is finite, so a tap outside the image may be computed as
 * acc + 0 * w instead of skipped: 0 * w is +-0, and acc + +-0 = acc (acc is never -0: it
 * starts at +0.0f, and a sum that cancels exactly is +0), also as r(acc + r(0 * w)) and
 * fmaf(0, w, acc); with an Inf or NaN in the filter 0 * w is NaN and the taps are skipped */
typedef struct { const float *xb; float *yr; int32_t iy0, a, b; bool zpad; } dw_row;

static void interior(const gc_dwf *c, int32_t *a, int32_t *b) {
    int64_t lo = ((int64_t)c->pl + c->sw - 1) / c->sw;
    int64_t num = (int64_t)c->W - 1 - (int64_t)(c->KW - 1) * c->dw + c->pl;
    int64_t hi = num < 0 ? 0 : num / c->sw + 1;
    if (lo > c->OW) lo = c->OW;
    if (hi > c->OW) hi = c->OW;
    if (hi < lo) hi = lo;
    *a = (int32_t)lo; *b = (int32_t)hi;
}

/* ---- portable C ------------------------------------------------------------------------ */

enum { SW = 8 };

static inline void px_scalar(const gc_dwf *c, const dw_row *r, int32_t ox, const int np, const bool check,
                             int32_t c0, int32_t nc, const int md) {
    float acc[PX][SW];
    const ptrdiff_t step = (ptrdiff_t)c->sw * c->C;
    for (int p = 0; p < np; p++)
        for (int j = 0; j < SW; j++) acc[p][j] = 0.0f;
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const int32_t ix0 = ox * c->sw - c->pl + kx * c->dw;
            const float *xk = check ? xrow : xrow + (ptrdiff_t)ix0 * c->C;   /* unchecked pixel p: xk + p * step */
            const float *wk = c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0;
            for (int p = 0; p < np; p++) {
                const int32_t ix = ix0 + p * c->sw;
                if (check && (ix < 0 || ix >= c->W)) continue;
                const float *xq = check ? xrow + (ptrdiff_t)ix * c->C : xk + (ptrdiff_t)p * step;
                const float *xp = xq;
                for (int32_t j = 0; j < nc; j++) {
                    const float pr = xp[j] * wk[j];
                    acc[p][j] = md == GC_DWF_H16 ? gc_f16_round_inline(acc[p][j] + gc_f16_round_inline(pr))
                              : md == GC_DWF_FMA ? fmaf(xp[j], wk[j], acc[p][j]) : acc[p][j] + pr;
                }
            }
        }
    }
    for (int p = 0; p < np; p++) {
        float *yp = r->yr + (size_t)(ox + p) * (size_t)c->C + (size_t)c0;
        for (int32_t j = 0; j < nc; j++) {
            float v = acc[p][j] + (c->bias ? c->bias[c0 + j] : 0.0f);
            if (md == GC_DWF_H16) v = gc_f16_round_inline(v);
            yp[j] = v < c->lo ? c->lo : v > c->hi ? c->hi : v;
        }
    }
}

/* Pixel groups outer, channel blocks inner (a pixel's channels are contiguous). Blocks
 * of PX pixels; the last block starts at OW - PX and may overlap the one before, which
 * writes the same values again. Blocks that reach a border check every tap. */
#define DW_ROW(PXF, VW, MASK_T, MASK, H)                                                \
    for (int32_t ox = 0; ox < c->OW;) {                                                  \
        const bool full = c->OW >= PX;                                                   \
        if (full && ox + PX > c->OW) ox = c->OW - PX;                                    \
        const bool chk = !full || ox < r->a || ox + PX > r->b;                           \
        for (int32_t c0 = 0; c0 < c->C; c0 += VW) {                                      \
            const int32_t nc = c->C - c0 < VW ? c->C - c0 : VW;                         \
            const MASK_T k = MASK;                                                       \
            if (!full) PXF(c, r, ox, 1, true, c0, k, H);                                 \
            else if (chk) PXF(c, r, ox, PX, true, c0, k, H);                             \
            else PXF(c, r, ox, PX, false, c0, k, H);                                     \
        }                                                                                \
        ox += full ? PX : 1;                                                             \
    }

static void row_scalar(const gc_dwf *c, const dw_row *r) { DW_ROW(px_scalar, SW, int32_t, nc, GC_DWF_F32) }
static void row_scalar_h(const gc_dwf *c, const dw_row *r) { DW_ROW(px_scalar, SW, int32_t, nc, GC_DWF_H16) }
static void row_scalar_f(const gc_dwf *c, const dw_row *r) { DW_ROW(px_scalar, SW, int32_t, nc, GC_DWF_FMA) }

#ifdef GC_HAVE_F16_SIMD
#define INL static inline __attribute__((always_inline))

/* ---- AVX-512F ---------------------------------------------------------------------------- */

#define T512 __attribute__((target("avx512f")))

INL T512 __m512 ld512(const float *p, __mmask16 k, const bool tail) {
    return tail ? _mm512_maskz_loadu_ps(k, p) : _mm512_loadu_ps(p);
}
INL T512 void st512(float *p, __m512 v, __mmask16 k, const bool tail) {
    if (tail) _mm512_mask_storeu_ps(p, k, v);
    else _mm512_storeu_ps(p, v);
}
/* acc + x w (two roundings), r(acc + r(x w)) (H16) or fma(x, w, acc) (FMA: one rounding) */
INL T512 __m512 mac512(__m512 acc, __m512 x, __m512 w, const int md) {
    return md == GC_DWF_H16 ? gc_h16_add_512(acc, _mm512_mul_ps(x, w))
         : md == GC_DWF_FMA ? _mm512_fmadd_ps(x, w, acc) : _mm512_add_ps(acc, _mm512_mul_ps(x, w));
}
INL T512 void out512(const gc_dwf *c, const dw_row *r, int32_t ox, const int np, int32_t c0, __mmask16 k,
                     const bool tail, const __m512 *acc, const int md) {
    const __m512 bv = c->bias ? ld512(c->bias + c0, k, tail) : _mm512_setzero_ps();
    const __m512 lo = _mm512_set1_ps(c->lo), hi = _mm512_set1_ps(c->hi);
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) {
        __m512 v = _mm512_add_ps(acc[p], bv);
        if (md == GC_DWF_H16) v = gc_r16c_512(v);
        st512(r->yr + (size_t)(ox + p) * (size_t)c->C + (size_t)c0, _mm512_min_ps(hi, _mm512_max_ps(lo, v)), k, tail);
    }
}

/* Any geometry: np pixels, each tap loaded per pixel. */
INL T512 void px_512(const gc_dwf *c, const dw_row *r, int32_t ox, const int np, const bool check,
                     int32_t c0, __mmask16 k, const bool tail, const int md) {
    __m512 acc[PX];
    const ptrdiff_t step = (ptrdiff_t)c->sw * c->C;
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) acc[p] = _mm512_setzero_ps();
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const int32_t ix0 = ox * c->sw - c->pl + kx * c->dw;
            const float *xk = check ? xrow : xrow + (ptrdiff_t)ix0 * c->C;   /* unchecked pixel p: xk + p * step */
            const __m512 wv = ld512(c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0, k, tail);
#pragma GCC unroll 8
            for (int p = 0; p < np; p++) {
                const int32_t ix = ix0 + p * c->sw;
                if (check && (ix < 0 || ix >= c->W)) continue;
                const float *xq = check ? xrow + (ptrdiff_t)ix * c->C : xk + (ptrdiff_t)p * step;
                acc[p] = mac512(acc[p], ld512(xq, k, tail), wv, md);
            }
        }
    }
    out512(c, r, ox, np, c0, k, tail, acc, md);
}

/* One pixel, NB full blocks of 16 channels side by side (NB independent sums in flight:
 * rows shorter than PX pixels, such as a KH x 1 filter over a W = 1 image, would else run
 * one dependent chain per block), taps checked as px_512 does. */
INL T512 void px1_blocks_512(const gc_dwf *c, const dw_row *r, int32_t ox, int32_t c0, const int NB, const int md) {
    __m512 acc[4];
#pragma GCC unroll 4
    for (int b = 0; b < NB; b++) acc[b] = _mm512_setzero_ps();
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const int32_t ix = ox * c->sw - c->pl + kx * c->dw;
            if (ix < 0 || ix >= c->W) continue;
            const float *xq = xrow + (ptrdiff_t)ix * c->C;
            const float *wk = c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0;
#pragma GCC unroll 4
            for (int b = 0; b < NB; b++)
                acc[b] = mac512(acc[b], _mm512_loadu_ps(xq + 16 * b), _mm512_loadu_ps(wk + 16 * b), md);
        }
    }
#pragma GCC unroll 4
    for (int b = 0; b < NB; b++) {
        const __m512 bv = c->bias ? _mm512_loadu_ps(c->bias + c0 + 16 * b) : _mm512_setzero_ps();
        const __m512 lo = _mm512_set1_ps(c->lo), hi = _mm512_set1_ps(c->hi);
        __m512 v = _mm512_add_ps(acc[b], bv);
        if (md == GC_DWF_H16) v = gc_r16c_512(v);
        _mm512_storeu_ps(r->yr + (size_t)ox * (size_t)c->C + (size_t)c0 + 16 * b, _mm512_min_ps(hi, _mm512_max_ps(lo, v)));
    }
}

/* Stride SWc, KWc taps DLc apart (compile-time), NP pixels (PX, or 7 for rows of exactly
 * 7: the 7 x 7 maps of the last stages): the NWIN input columns the block reads from one
 * input row are loaded once and shared by the taps (pixel p, tap kx reads slot
 * p*SWc + kx*DLc). Each pixel's sum still adds its taps in (ky, kx) order, one rounded
 * product at a time: the reference's bits. With `check`, slots outside the image are not
 * loaded and their taps are skipped, as in the reference. */
INL T512 void win_512(const gc_dwf *c, const dw_row *r, int32_t ox, const int NP, const int SWc, const int KWc,
                      const int DLc, const bool check, int32_t c0, __mmask16 k, const bool tail, const int md) {
    enum { MAXWIN = 19 };
    const int NWIN = (NP - 1) * SWc + (KWc - 1) * DLc + 1;
    __m512 acc[PX], xw[MAXWIN];
#pragma GCC unroll 8
    for (int p = 0; p < NP; p++) acc[p] = _mm512_setzero_ps();
    const int32_t col0 = ox * SWc - c->pl;
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
#pragma GCC unroll 19
        for (int j = 0; j < NWIN; j++) {
            const int32_t col = col0 + j;
            xw[j] = !check || (col >= 0 && col < c->W) ? ld512(xrow + (ptrdiff_t)col * c->C, k, tail) : _mm512_setzero_ps();
        }
        const float *wr = c->w + (size_t)ky * (size_t)KWc * (size_t)c->C + (size_t)c0;
#pragma GCC unroll 5
        for (int kx = 0; kx < KWc; kx++) {
            const __m512 wv = ld512(wr + (size_t)kx * (size_t)c->C, k, tail);
#pragma GCC unroll 8
            for (int p = 0; p < NP; p++) {
                const int j = p * SWc + kx * DLc;
                if (check && (col0 + j < 0 || col0 + j >= c->W)) continue;
                acc[p] = mac512(acc[p], xw[j], wv, md);
            }
        }
    }
    out512(c, r, ox, NP, c0, k, tail, acc, md);
}

/* The geometries with a window kernel: stride 1 or 2, 3 or 5 taps, dilation 1 or 2. */
static int win_kind(const gc_dwf *c) {
    if (c->KW == 3 && c->sw == 1 && c->dw == 1) return 1;
    if (c->KW == 3 && c->sw == 1 && c->dw == 2) return 2;
    if (c->KW == 3 && c->sw == 2 && c->dw == 1) return 3;
    if (c->KW == 5 && c->sw == 1 && c->dw == 1) return 4;
    if (c->KW == 5 && c->sw == 2 && c->dw == 1) return 5;
    return 0;
}

/* NP pixels (PX, or 7 with a window kind) from ox */
INL T512 void blk_512(const gc_dwf *c, const dw_row *r, int32_t ox, const int NP, int kind, const bool check,
                      int32_t c0, __mmask16 k, const bool tail, const int md) {
    switch (kind) {
    case 1: win_512(c, r, ox, NP, 1, 3, 1, check, c0, k, tail, md); break;
    case 2: win_512(c, r, ox, NP, 1, 3, 2, check, c0, k, tail, md); break;
    case 3: win_512(c, r, ox, NP, 2, 3, 1, check, c0, k, tail, md); break;
    case 4: win_512(c, r, ox, NP, 1, 5, 1, check, c0, k, tail, md); break;
    case 5: win_512(c, r, ox, NP, 2, 5, 1, check, c0, k, tail, md); break;
    default: px_512(c, r, ox, NP, check, c0, k, tail, md); break;
    }
}

/* A row of exactly 7 pixels with a window kind: one block of 7 per channel block. */
INL T512 void row7_512(const gc_dwf *c, const dw_row *r, const int kind, const int md) {
    const bool chk = r->a > 0 || r->b < 7;
    for (int32_t c0 = 0; c0 < c->C; c0 += 16) {
        const int32_t nc = c->C - c0 < 16 ? c->C - c0 : 16;
        const __mmask16 k = (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u);
        if (nc < 16) { if (chk) blk_512(c, r, 0, 7, kind, true, c0, k, true, md); else blk_512(c, r, 0, 7, kind, false, c0, k, true, md); }
        else if (chk) blk_512(c, r, 0, 7, kind, true, c0, k, false, md);
        else blk_512(c, r, 0, 7, kind, false, c0, k, false, md);
    }
}

/* Blocks of PX pixels as DW_ROW; full channel blocks unmasked, the last one masked. */
INL T512 void rowk_512(const gc_dwf *c, const dw_row *r, const int kind, const int md) {
    for (int32_t ox = 0; ox < c->OW;) {
        const bool full = c->OW >= PX;
        if (full && ox + PX > c->OW) ox = c->OW - PX;
        const bool chk = !full || ox < r->a || ox + PX > r->b;
        for (int32_t c0 = 0; c0 < c->C; c0 += 16) {
            const int32_t nc = c->C - c0 < 16 ? c->C - c0 : 16;
            const __mmask16 k = (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u);
            const bool tail = nc < 16;
            if (!full && c->C - c0 >= 32) {                   /* 2..4 full blocks at once */
                const int nb = (c->C - c0) / 16 >= 4 ? 4 : (c->C - c0) / 16;
                if (nb == 4) px1_blocks_512(c, r, ox, c0, 4, md);
                else if (nb == 3) px1_blocks_512(c, r, ox, c0, 3, md);
                else px1_blocks_512(c, r, ox, c0, 2, md);
                c0 += 16 * (nb - 1);
                continue;
            }
            if (!full) { if (tail) px_512(c, r, ox, 1, true, c0, k, true, md); else px_512(c, r, ox, 1, true, c0, k, false, md); }
            else if (tail) { if (chk) blk_512(c, r, ox, PX, kind, true, c0, k, true, md); else blk_512(c, r, ox, PX, kind, false, c0, k, true, md); }
            else if (chk) blk_512(c, r, ox, PX, kind, true, c0, k, false, md);
            else blk_512(c, r, ox, PX, kind, false, c0, k, false, md);
        }
        ox += full ? PX : 1;
    }
}

/* One function per (kind, mode) and row shape, so that each inner loop is compiled on its
 * own (one function holding every kind's unrolled blocks measured 12-25 % slower on the
 * small-channel 3 x 3 rows: 112 x 112 x 8) */
#define ROWK(K)                                                                                   \
    T512 __attribute__((noinline)) static void row_512_k##K(const gc_dwf *c, const dw_row *r, int md) { \
        if (md == GC_DWF_H16) rowk_512(c, r, K, GC_DWF_H16);                                       \
        else if (md == GC_DWF_FMA) rowk_512(c, r, K, GC_DWF_FMA);                                  \
        else rowk_512(c, r, K, GC_DWF_F32);                                                        \
    }                                                                                             \
    T512 __attribute__((noinline)) static void row7_512_k##K(const gc_dwf *c, const dw_row *r, int md) { \
        if (md == GC_DWF_H16) row7_512(c, r, K, GC_DWF_H16);                                       \
        else if (md == GC_DWF_FMA) row7_512(c, r, K, GC_DWF_FMA);                                  \
        else row7_512(c, r, K, GC_DWF_F32);                                                        \
    }
ROWK(0) ROWK(1) ROWK(2) ROWK(3) ROWK(4) ROWK(5)
#undef ROWK

T512 static void row_512_(const gc_dwf *c, const dw_row *r, const int md) {
    typedef void (*row_fn)(const gc_dwf *, const dw_row *, int);
    static const row_fn rows[6] = { row_512_k0, row_512_k1, row_512_k2, row_512_k3, row_512_k4, row_512_k5 };
    static const row_fn rows7[6] = { row7_512_k0, row7_512_k1, row7_512_k2, row7_512_k3, row7_512_k4, row7_512_k5 };
    const int kind = win_kind(c);
    (c->OW == 7 && kind ? rows7 : rows)[kind](c, r, md);
}
T512 static void row_512(const gc_dwf *c, const dw_row *r) { row_512_(c, r, GC_DWF_F32); }
T512 static void row_512_h(const gc_dwf *c, const dw_row *r) { row_512_(c, r, GC_DWF_H16); }
T512 static void row_512_f(const gc_dwf *c, const dw_row *r) { row_512_(c, r, GC_DWF_FMA); }

/* ---- AVX2 ---------------------------------------------------------------------------------- */

/* avx2 with f16c, for the H16 steps (every AVX2 CPU has F16C; the H16 rows are only
 * called when gc_f16_have_f16c says so), and fma for the FMA steps (GC_ISA_AVX2 implies
 * FMA: cpu_isa.c). The F32 rows never fuse: the build does not contract (-std=c11), as
 * in every AVX-512F body, whose ISA has FMA too.
 *
 * The shapes are compile-time, as in the AVX-512F bodies: np pixels (PX or 1), `check`,
 * `tail` (a last block of fewer than 8 channels: masked loads and stores; full blocks use
 * plain ones) and the mode, so that the np accumulators stay in registers (one body taking
 * them at run time kept them on the stack: 4-9 GFLOP/s on the 3 x 3 layers of deeplabv3). */
#define T256H __attribute__((target("avx2,f16c,fma")))

INL T256H __m256 ld256(const float *p, __m256i k, const bool tail) {
    return tail ? _mm256_maskload_ps(p, k) : _mm256_loadu_ps(p);
}
INL T256H void st256(float *p, __m256 v, __m256i k, const bool tail) {
    if (tail) _mm256_maskstore_ps(p, k, v);
    else _mm256_storeu_ps(p, v);
}
/* acc + x w (two roundings), r(acc + r(x w)) (H16: needs F16C) or fma(x, w, acc) (FMA) */
INL T256H __m256 mac256(__m256 acc, __m256 x, __m256 w, const int md) {
    return md == GC_DWF_H16 ? gc_h16_add_256(acc, _mm256_mul_ps(x, w))
         : md == GC_DWF_FMA ? _mm256_fmadd_ps(x, w, acc) : _mm256_add_ps(acc, _mm256_mul_ps(x, w));
}
INL T256H void out256(const gc_dwf *c, float *y0, const int np, ptrdiff_t ystep, const __m256 *acc, __m256 bv,
                      __m256i k, const bool tail, const int md) {
    const __m256 lo = _mm256_set1_ps(c->lo), hi = _mm256_set1_ps(c->hi);
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) {
        __m256 v = _mm256_add_ps(acc[p], bv);
        if (md == GC_DWF_H16) v = gc_r16c_256(v);
        st256(y0 + (ptrdiff_t)p * ystep, _mm256_min_ps(hi, _mm256_max_ps(lo, v)), k, tail);
    }
}

/* Any geometry: np pixels from ox, each tap loaded per pixel (px_512's sums). */
INL T256H void px_256(const gc_dwf *c, const dw_row *r, int32_t ox, const int np, const bool check,
                      int32_t c0, __m256i k, const bool tail, const int md) {
    __m256 acc[PX];
    const ptrdiff_t step = (ptrdiff_t)c->sw * c->C;
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) acc[p] = _mm256_setzero_ps();
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const int32_t ix0 = ox * c->sw - c->pl + kx * c->dw;
            const float *xk = check ? xrow : xrow + (ptrdiff_t)ix0 * c->C;   /* unchecked pixel p: xk + p * step */
            const __m256 wv = ld256(c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0, k, tail);
#pragma GCC unroll 8
            for (int p = 0; p < np; p++) {
                const int32_t ix = ix0 + p * c->sw;
                if (check && (ix < 0 || ix >= c->W)) continue;
                const float *xq = check ? xrow + (ptrdiff_t)ix * c->C : xk + (ptrdiff_t)p * step;
                acc[p] = mac256(acc[p], ld256(xq, k, tail), wv, md);
            }
        }
    }
    const __m256 bv = c->bias ? ld256(c->bias + c0, k, tail) : _mm256_setzero_ps();
    out256(c, r->yr + (size_t)ox * (size_t)c->C + (size_t)c0, np, c->C, acc, bv, k, tail, md);
}

/* One pixel, NB full blocks of 8 channels side by side (px1_blocks_512: NB independent sums
 * in flight for rows shorter than PX pixels), taps checked. */
INL T256H void px1_blocks_256(const gc_dwf *c, const dw_row *r, int32_t ox, int32_t c0, const int NB, const int md) {
    __m256 acc[8];
    const __m256i all = _mm256_set1_epi32(-1);
#pragma GCC unroll 8
    for (int b = 0; b < NB; b++) acc[b] = _mm256_setzero_ps();
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const int32_t ix = ox * c->sw - c->pl + kx * c->dw;
            if (ix < 0 || ix >= c->W) continue;
            const float *xq = xrow + (ptrdiff_t)ix * c->C;
            const float *wk = c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0;
#pragma GCC unroll 8
            for (int b = 0; b < NB; b++)
                acc[b] = mac256(acc[b], _mm256_loadu_ps(xq + 8 * b), _mm256_loadu_ps(wk + 8 * b), md);
        }
    }
    float *y = r->yr + (size_t)ox * (size_t)c->C + (size_t)c0;
#pragma GCC unroll 8
    for (int b = 0; b < NB; b++) {
        const __m256 bv = c->bias ? _mm256_loadu_ps(c->bias + c0 + 8 * b) : _mm256_setzero_ps();
        out256(c, y + 8 * b, 1, 0, &acc[b], bv, all, false, md);
    }
}

/* px_256 with the stride SWc, KWc taps DLc apart (compile-time: win_kind's geometries),
 * the taps unrolled, so that each tap's NP loads are at constant multiples of C from one
 * row pointer (px_256's run-time tap loop spent more on its setup and spills than on the
 * 8 FMAs per tap: 56 x 56 x 16, 3 x 3 ran at 1.9 cycles per FMA). Same sums: each pixel
 * adds its taps in (ky, kx) order, one product at a time; with `check`, the taps outside
 * the image are skipped, as in the reference. */
INL T256H void pxk_256(const gc_dwf *c, const dw_row *r, int32_t ox, const int NP, const int SWc, const int KWc,
                       const int DLc, const bool check, const bool stage, int32_t c0, __m256i k, const bool tail,
                       const int md) {
    enum { MAXWIN = 19 };
    __m256 acc[PX];
    __attribute__((aligned(32))) float sb[MAXWIN * 8];
    const ptrdiff_t C = c->C;
    const int NWIN = (NP - 1) * SWc + (KWc - 1) * DLc + 1;
    const ptrdiff_t xs = stage ? 8 : C;                 /* column stride of what the taps read */
#pragma GCC unroll 8
    for (int p = 0; p < NP; p++) acc[p] = _mm256_setzero_ps();
    const int32_t col0 = ox * SWc - c->pl;
    for (int32_t ky = 0; ky < c->KH; ky++) {
        const int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)C + (size_t)c0 + (ptrdiff_t)col0 * C;
        if (stage) {
            /* a border block (r->zpad): the NWIN columns it reads, zeros outside the image,
             * so that the taps run without checks (dw_row: the same bits) */
#pragma GCC unroll 19
            for (int j = 0; j < NWIN; j++) {
                const int32_t col = col0 + j;
                _mm256_store_ps(sb + 8 * j, col >= 0 && col < c->W ? ld256(xrow + (ptrdiff_t)j * C, k, tail) : _mm256_setzero_ps());
            }
            xrow = sb;
        }
        const float *wr = c->w + (size_t)ky * (size_t)KWc * (size_t)C + (size_t)c0;
#pragma GCC unroll 5
        for (int kx = 0; kx < KWc; kx++) {
            const __m256 wv = ld256(wr + (ptrdiff_t)kx * C, k, tail);
            const float *xt = xrow + (ptrdiff_t)kx * DLc * xs;
#pragma GCC unroll 8
            for (int p = 0; p < NP; p++) {
                const int j = p * SWc + kx * DLc;
                if (check && (col0 + j < 0 || col0 + j >= c->W)) continue;
                acc[p] = mac256(acc[p], stage ? _mm256_load_ps(xt + (ptrdiff_t)p * SWc * 8) : ld256(xt + (ptrdiff_t)p * SWc * C, k, tail), wv, md);
            }
        }
    }
    const __m256 bv = c->bias ? ld256(c->bias + c0, k, tail) : _mm256_setzero_ps();
    out256(c, r->yr + (size_t)ox * (size_t)C + (size_t)c0, NP, C, acc, bv, k, tail, md);
}

/* PX pixels from ox: pxk_256 for a window kind, else px_256 */
INL T256H void blk_256(const gc_dwf *c, const dw_row *r, int32_t ox, const int kind, const bool check,
                       int32_t c0, __m256i k, const bool tail, const int md) {
    /* a border block with finite weights: staged (pxk_256), no per-tap checks */
    const bool st = check && r->zpad, ck = check && !r->zpad;
#define PXK(SW_, KW_, DL_) (st ? pxk_256(c, r, ox, PX, SW_, KW_, DL_, false, true, c0, k, tail, md) \
                           : ck ? pxk_256(c, r, ox, PX, SW_, KW_, DL_, true, false, c0, k, tail, md) \
                                : pxk_256(c, r, ox, PX, SW_, KW_, DL_, false, false, c0, k, tail, md))
    switch (kind) {
    case 1: PXK(1, 3, 1); break;
    case 2: PXK(1, 3, 2); break;
    case 3: PXK(2, 3, 1); break;
    case 4: PXK(1, 5, 1); break;
    case 5: PXK(2, 5, 1); break;
    case 6: PXK(1, 3, 4); break;
    default: px_256(c, r, ox, PX, check, c0, k, tail, md); break;
    }
#undef PXK
}

/* Channel blocks outer, blocks of PX pixels inner (the last block starts at OW - PX, as
 * DW_ROW's): one sweep along the row per block of 8 channels, whose input lines the next
 * block's sweep reads again from L1 (their other half) and which the hardware prefetcher
 * follows as one strided stream per input row. Pixels outer and channels inner (DW_ROW)
 * kept 3 x 10 input lines per pixel block in flight at once, which missed L1 on a row of
 * 480 channels (33 x 33 x 480, 3 x 3, on Zen 3: 1.3 ms before; 0.43 ms with pxk_256 now). Full channel blocks
 * unmasked, the last one masked; rows shorter than PX take up to 8 full channel blocks
 * per pixel at once. */
INL T256H void rowk_256(const gc_dwf *c, const dw_row *r, const int kind, const int md) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const bool full = c->OW >= PX;
    if (!full) {
        for (int32_t ox = 0; ox < c->OW; ox++)
            for (int32_t c0 = 0; c0 < c->C; c0 += 8) {
                const int32_t nc = c->C - c0 < 8 ? c->C - c0 : 8;
                if (c->C - c0 >= 16) {                        /* 2..8 full blocks at once */
                    const int nb = (c->C - c0) / 8 >= 8 ? 8 : (c->C - c0) / 8;
                    switch (nb) {
                    case 8: px1_blocks_256(c, r, ox, c0, 8, md); break;
                    case 7: px1_blocks_256(c, r, ox, c0, 7, md); break;
                    case 6: px1_blocks_256(c, r, ox, c0, 6, md); break;
                    case 5: px1_blocks_256(c, r, ox, c0, 5, md); break;
                    case 4: px1_blocks_256(c, r, ox, c0, 4, md); break;
                    case 3: px1_blocks_256(c, r, ox, c0, 3, md); break;
                    default: px1_blocks_256(c, r, ox, c0, 2, md); break;
                    }
                    c0 += 8 * (nb - 1);
                    continue;
                }
                const __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), lanes);
                if (nc < 8) px_256(c, r, ox, 1, true, c0, k, true, md);
                else px_256(c, r, ox, 1, true, c0, k, false, md);
            }
        return;
    }
    for (int32_t c0 = 0; c0 < c->C; c0 += 8) {
        const int32_t nc = c->C - c0 < 8 ? c->C - c0 : 8;
        const __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), lanes);
        const bool tail = nc < 8;
        for (int32_t ox = 0; ox < c->OW; ox += PX) {
            if (ox + PX > c->OW) ox = c->OW - PX;
            const bool chk = ox < r->a || ox + PX > r->b;
            if (tail) { if (chk) blk_256(c, r, ox, kind, true, c0, k, true, md); else blk_256(c, r, ox, kind, false, c0, k, true, md); }
            else if (chk) blk_256(c, r, ox, kind, true, c0, k, false, md);
            else blk_256(c, r, ox, kind, false, c0, k, false, md);
        }
    }
}

/* one function per (kind, mode), as ROWK's for AVX-512F */
#define ROWK256(K)                                                                                 \
    T256H __attribute__((noinline)) static void row_256_k##K(const gc_dwf *c, const dw_row *r, int md) { \
        if (md == GC_DWF_H16) rowk_256(c, r, K, GC_DWF_H16);                                        \
        else if (md == GC_DWF_FMA) rowk_256(c, r, K, GC_DWF_FMA);                                   \
        else rowk_256(c, r, K, GC_DWF_F32);                                                         \
    }
ROWK256(0) ROWK256(1) ROWK256(2) ROWK256(3) ROWK256(4) ROWK256(5) ROWK256(6)
#undef ROWK256

/* win_kind's geometries, and on AVX2 also 3 taps 4 apart at stride 1 (kind 6: the atrous
 * depthwise layers of deeplabv3's last stage, 33 x 33 x 480, which took 11 % of the model
 * through px_256) */
T256H static void row_256_(const gc_dwf *c, const dw_row *r, const int md) {
    typedef void (*row_fn)(const gc_dwf *, const dw_row *, int);
    static const row_fn rows[7] = { row_256_k0, row_256_k1, row_256_k2, row_256_k3, row_256_k4, row_256_k5, row_256_k6 };
    int kind = win_kind(c);
    if (!kind && c->KW == 3 && c->sw == 1 && c->dw == 4) kind = 6;
    rows[kind](c, r, md);
}
T256H static void row_256(const gc_dwf *c, const dw_row *r) { row_256_(c, r, GC_DWF_F32); }
T256H static void row_256_h(const gc_dwf *c, const dw_row *r) { row_256_(c, r, GC_DWF_H16); }
T256H static void row_256_f(const gc_dwf *c, const dw_row *r) { row_256_(c, r, GC_DWF_FMA); }
#endif

/* ---- driver ---------------------------------------------------------------------------------- */

int64_t gc_dwf_tiles(const gc_dwf *c) { return (int64_t)c->Bn * c->OH; }

void gc_dwf_run(const gc_dwf *c, const float *x, float *y, int64_t t0, int64_t t1) {
    dw_row r;
    interior(c, &r.a, &r.b);
    r.zpad = true;                                /* dw_row: every filter value finite */
    for (size_t i = 0, nw = (size_t)c->KH * (size_t)c->KW * (size_t)c->C; i < nw && r.zpad; i++) r.zpad = isfinite(c->w[i]);
    for (int64_t t = t0; t < t1; t++) {
        int32_t b = (int32_t)(t / c->OH), oy = (int32_t)(t % c->OH);
        r.xb = x + (size_t)b * (size_t)c->H * (size_t)c->W * (size_t)c->C;
        r.yr = y + ((size_t)b * (size_t)c->OH + (size_t)oy) * (size_t)c->OW * (size_t)c->C;
        r.iy0 = oy * c->sh - c->pt;
        const int md = c->mode;
#ifdef GC_HAVE_F16_SIMD
        if (c->isa == GC_ISA_AVX512) (md == GC_DWF_H16 ? row_512_h : md == GC_DWF_FMA ? row_512_f : row_512)(c, &r);
        else if (c->isa == GC_ISA_AVX2 && (md != GC_DWF_H16 || gc_f16_have_f16c()))
            (md == GC_DWF_H16 ? row_256_h : md == GC_DWF_FMA ? row_256_f : row_256)(c, &r);
        else
#endif
        (md == GC_DWF_H16 ? row_scalar_h : md == GC_DWF_FMA ? row_scalar_f : row_scalar)(c, &r);
        if (c->store) gc_f16_store(c->store, r.yr, (size_t)c->OW * (size_t)c->C);
        if (c->epi) c->epi(r.yr, (size_t)c->OW * (size_t)c->C, c->epi_arg);
    }
}
