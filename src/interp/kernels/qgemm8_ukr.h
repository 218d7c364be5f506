/* qgemm8_ukr.h — the microkernels behind qgemm8.h (private to qgemm8*.c).
 *
 * Two encodings of the 8-bit products, chosen per instruction-set level (qgemm8.h):
 *
 *   VNNI  (AVX-512 with VNNI and BW): a is u8, w is s8, groups of 4 k per 32-bit lane
 *         (vpdpbusd, non-saturating: exact). Panels of 16 output columns:
 *         w[p][k4][c][4] = ws[k4*4 + j][p*16 + c], 64 bytes per k4. The accumulator is
 *         the raw sum of xu * ws; the corrections that make it sum (x - zx)(w - zw) come in
 *         through the per-column bias and the per-row term (qgemm8.h).
 *   I16   (AVX2, portable C): a is int16 (x - zx), w is int16 (w - zw), pairs of k per
 *         32-bit lane (vpmaddwd: products of 9-bit values, never the one saturating case
 *         -32768 * -32768). Panels of 8 columns: w[p][k2][c][2], 32 bytes per k2. The
 *         accumulator is the exact sum; no corrections.
 *
 * One call computes an MR x (NP * PW) tile of accumulators over K = T taps x KG groups per
 * tap (KG = channels per tap / 4 (VNNI) or / 2 (I16)), k = t * KG + g:
 *     acc[m][n] = sum over t, g, j of a[t][m][g * GS + j] * w[k][n][j]   (int32, wrapping)
 * then (requantization, the reference's integer arithmetic, gc_q8rq):
 *     v = acc + bias[n] (+ rowc[m] when rowc != NULL), wrapping in int32;
 *     y[m][n] = requant(v, n) for m < mr, n < nc.
 * a[t * a_mr + m] points at the channels of one input pixel (or a pad row). Rows m >= mr
 * must point at readable memory (the drivers repeat row 0); their results are dropped.
 * Arithmetic modulo 2^32 gives the reference's value: the reference's sum fits in int32
 * or, in 64 bits, is truncated to int32 before the rescale (conv.c / fc.c requant).
 */
#ifndef GC_QGEMM8_UKR_H
#define GC_QGEMM8_UKR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per-column requantization, arrays padded to the panels (qgemm8.h: gc_q8rq_*). The
 * reference (quant.h): TFLite: gc_q_mul(v, mult, shift), shift = lsh - rsh (one of them 0),
 * then + zp, clamp [lo, hi]; XNNPACK: gc_q_xnn(v, fscale, zp, lo, hi). */
typedef struct {
    const int32_t *bias;        /* per column: the bias and the corrections */
    const int32_t *mult;        /* TFLite: Q31 multiplier */
    const int32_t *lsh, *rsh;   /* TFLite: left shift (0..30), right shift (0..31) */
    const float *fscale;        /* XNNPACK: float scale */
    bool xnn, any_left;         /* any_left: some lsh > 0 */
    int32_t zp, lo, hi;         /* output zero point; clamp (the activation's, in [-128, 255]) */
} gc_q8rq;

typedef struct {
    int32_t mr;                 /* rows to store, 1..MR */
    int32_t nc;                 /* columns to store, 1..NP*PW */
    int32_t T, KG;              /* taps, groups per tap */
    const void *const *a;       /* [T][a_mr] row pointers: u8 (VNNI) or int16 (I16) */
    int32_t a_mr;
    const void *w;              /* first panel; the next ones pstride bytes apart */
    int64_t pstride;
    const int32_t *rowc;        /* per row, or NULL */
    gc_q8rq rq;                 /* arrays already offset to the first panel's columns */
    uint8_t *y;                 /* row m, column n at y[m * ldy + n] (int8 / uint8 bytes) */
    int64_t ldy;
} gc_q8ukr_args;

typedef void (*gc_q8ukr_fn)(const gc_q8ukr_args *g);

/* Depthwise (multiplier 1): one output row's pixels [ox0, ox1), all channels.
 * acc[c] = bias[c] + sum over taps t of x[t][c] * w[t][c] with x read raw (int8 or uint8,
 * pad taps reading a row of the input zero point) and w = w_file - zw as int32 lanes
 * (qgemm8.h); then requant as above. */
typedef struct {
    const uint8_t *x;           /* this image */
    const uint8_t *pad;         /* C (+ 64) bytes of the input zero point */
    const int32_t *w;           /* [T][Cp] */
    int32_t H, W, C, Cp, KH, KW, sh, sw, dh, dw, pt, pl;
    bool x_signed;
    gc_q8rq rq;
} gc_q8dw_args;

typedef void (*gc_q8dw_fn)(const gc_q8dw_args *g, uint8_t *yrow, int32_t oy, int32_t ox0, int32_t ox1);

typedef struct gc_q8ukr_set {
    int32_t PW, MR, GS;         /* panel width (columns), rows per tile, k per lane group (4 / 2) */
    int32_t NPMAX;              /* most panels per call */
    gc_q8ukr_fn full[4];        /* MR rows x (i + 1) panels */
    gc_q8ukr_fn row1[4];        /* 1 row x (i + 1) panels */
    gc_q8dw_fn dw;              /* depthwise row */
    int32_t DWV;                /* channels per depthwise weight block (Cp is a multiple) */
} gc_q8ukr_set;

const gc_q8ukr_set *gc_q8ukr_scalar(void);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#define GC_HAVE_X86_Q8 1
const gc_q8ukr_set *gc_q8ukr_avx2(void);
const gc_q8ukr_set *gc_q8ukr_vnni(void);
#endif

/* The reference's requantization of one value (quant.h), for the portable kernels and the
 * drivers' tails. */
int32_t gc_q8rq_one(const gc_q8rq *rq, int32_t v, int32_t n);

#endif
