/* gemm_f32_ukr.h — the register-blocked microkernels behind gemm_f32.h (private to
 * gemm_f32*.c and dwconv_f32.c).
 *
 * One call computes an MR x (NP*PW) tile of outputs: MR rows (output pixels, or rows of
 * x) by NP panels of PW output channels. The accumulators stay in vector registers for
 * the whole K loop, K = T taps x ICg channels, k = t*ICg + ic:
 *
 *     acc[m][n] = +0.0f
 *     for t, ic:  acc[m][n] = acc[m][n] + a[t][m][a_off + ic] * w[k][n]   (product rounded
 *                                                                          to float, then
 *                                                                          the sum: no FMA)
 *     y[m][n] = clamp(bias ? acc[m][n] + bias[n] : acc[m][n], lo, hi)  for m < mr, n < nc
 *     clamp(v) = v < lo ? lo : v > hi ? hi : v       (max(lo, v) then min(hi, v): NaN stays)
 *
 * a[t][m] (the row pointers, a[t*MR + m]) point at ICg floats each: an input pixel's
 * channels, or a zero row for a tap outside the image. Rows m >= mr must still point at
 * readable memory (the drivers repeat row 0); their results are computed and dropped.
 * Panels are [K][PW] floats, 64-byte aligned, the second one `pstride` floats after the
 * first (panel i at w + i * pstride); lanes past nc hold zeros. The ISA files provide each
 * a set: kernels for one and two panels (single rows: four as well, where a set has them),
 * for a full tile of MR rows and for a single row (mr == 1: FULLY_CONNECTED with one row,
 * matrix-vector products), so a one-row call does not compute MR rows.
 */
#ifndef GC_GEMM_F32_UKR_H
#define GC_GEMM_F32_UKR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int32_t mr;                 /* rows to store, 1..MR (the single-row kernels: 1) */
    int32_t nc;                 /* columns to store, 1..NP*PW */
    int32_t T, ICg;             /* taps and channels per tap: K = T * ICg */
    const float *const *a;      /* [T][MR] row pointers, MR = the set's (a_mr) */
    int32_t a_mr;
    int64_t a_off;              /* added to every row pointer (the group's first channel) */
    const float *w;             /* first panel [K][PW]; the second at w + pstride */
    int64_t pstride;
    const float *bias;          /* NP*PW values, or NULL: no addition (BATCH_MATMUL) */
    float lo, hi;               /* clamp (-inf, inf: none) */
    float *y;                   /* row m, column n at y[m*ldy + n] */
    int64_t ldy;
} gc_ukr_args;

typedef void (*gc_ukr_fn)(const gc_ukr_args *g);

typedef struct gc_ukr_set {
    int32_t PW, MR;             /* panel width (floats), rows per full tile */
    gc_ukr_fn two, one;         /* MR rows x 2 panels (NULL: none, one panel at a time) / x 1 panel */
    gc_ukr_fn two_r1, one_r1;   /* 1 row */
    gc_ukr_fn four_r1;          /* 1 row x 4 panels (the panels at w + i * pstride, bias + i * PW,
                                   y + i * PW), or NULL: pairs */
    gc_ukr_fn all;              /* MR rows x every panel of the group in one call (nc = N: the
                                   panels at w + i * pstride, bias + i * PW, y + i * PW), or
                                   NULL: the drivers step through them with one / two */
} gc_ukr_set;

const gc_ukr_set *gc_ukr_scalar(void);
const gc_ukr_set *gc_ukr_scalar_fma(void);        /* GC_GEMM_F32_FMA: acc = fmaf(a, w, acc) */
/* gemm_h16_range.c: whether the rows[0..nrows) (each len floats from rows[r] + off) times
 * weights of max magnitude wmax make a quick tile (gemm_f32.h) */
bool gc_h16q_rows_ok(float wmax, const float *const *rows, int32_t nrows, int64_t off, int64_t len);
/* the half-arithmetic modes (gemm_f32.h GC_GEMM_H16 / GC_GEMM_SLICE; gemm_h16_*.c): the
 * same panel widths as the float sets of their level, so the packed layout is shared */
const gc_ukr_set *gc_ukr_h16_scalar(void);
const gc_ukr_set *gc_ukr_slice_scalar(void);
/* GC_GEMM_K16H (gemm_k16h.c) */
const gc_ukr_set *gc_ukr_k16h_scalar(void);
const gc_ukr_set *gc_ukr_h2fma_scalar(void);      /* GC_GEMM_H2FMA (gemm_k16h.c) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#define GC_HAVE_X86_KERNELS 1
const gc_ukr_set *gc_ukr_avx2(void);
const gc_ukr_set *gc_ukr_avx512(void);
const gc_ukr_set *gc_ukr_avx2_fma(void);          /* GC_GEMM_F32_FMA */
const gc_ukr_set *gc_ukr_avx2_wide(void);         /* N > 8: 6 x 2 tiles (gemm_f32_avx2.c) */
const gc_ukr_set *gc_ukr_avx2_wide_fma(void);
const gc_ukr_set *gc_ukr_avx512_fma(void);
const gc_ukr_set *gc_ukr_h16_avx2(void);          /* AVX2 + F16C */
const gc_ukr_set *gc_ukr_slice_avx2(void);
const gc_ukr_set *gc_ukr_h16_avx512(void);
const gc_ukr_set *gc_ukr_slice_avx512(void);
/* the same with the products rounded in float arithmetic, for tiles whose products are
 * all finite and at most 65504 in magnitude (gemm_f32.h: gc_gemm_b.ksq) */
const gc_ukr_set *gc_ukr_h16q_avx512(void);
const gc_ukr_set *gc_ukr_sliceq_avx512(void);
/* SLICE with every rounding in float arithmetic, for quick tiles of half values whose
 * slice sums stay below 65520 (gemm_f32.h: gc_gemm_b.ksv) */
const gc_ukr_set *gc_ukr_slicev_avx512(void);
const gc_ukr_set *gc_ukr_k16h_avx2(void);         /* AVX2 + F16C */
const gc_ukr_set *gc_ukr_k16h_avx512(void);
const gc_ukr_set *gc_ukr_h2fma_avx512(void);
#endif

#endif
