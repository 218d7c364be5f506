/* gemm_f32.h — the fast float32 paths of CONV_2D, FULLY_CONNECTED and BATCH_MATMUL:
 * weights packed once into panels, register-blocked microkernels (gemm_f32_ukr.h) for
 * AVX-512, AVX2 and portable C, chosen at run time (cpu_isa.h).
 *
 * Exactness: BIT-IDENTICAL to the reference kernels (conv.c conv_f32, fc.c fc_eval and
 * bmm_eval in fp32). Every output starts at +0.0f and adds its products one at a time in
 * the reference order — CONV_2D: taps (ky, kx) in order, then the group's input channels
 * in order; FULLY_CONNECTED / BATCH_MATMUL: k = 0..K-1 — each product rounded to float
 * and then added (separate multiply and add instructions, never FMA), then the bias is
 * added (CONV_2D / FULLY_CONNECTED: the bias or +0.0f; BATCH_MATMUL: nothing) and the
 * clamp applied (v < lo ? lo : v > hi ? hi : v). Vectorisation runs across independent
 * outputs only (output channels within a panel, rows within a tile). NaN payloads aside,
 * the same bits come out for every input. One condition: a CONV_2D tap outside the image
 * is read from a row of zeros instead of being skipped, which adds x*w = +-0 to a sum
 * that is never -0 (it starts at +0 and adds in round-to-nearest), a no-op only while
 * 0 * w is not NaN: gc_convf_exact refuses filters with Inf or NaN weights when the conv
 * has padding taps (the caller then runs the reference kernel).
 *
 * The fp16 modes' half arithmetic (gc_gemm_b.mode, chosen at layout; the same packing,
 * kernels gemm_h16_*.c; r() = rounding to the nearest half, gc_f16_round's bits):
 *   GC_GEMM_F32    as above;
 *   GC_GEMM_F32_FMA  the same order with each multiply-add fused: acc = fmaf(a, w, acc),
 *                  rounded once (--float-arith fma, the fp32 default); bit-identical to the reference
 *                  loops of that mode (gc_fmadd_f below), not to GC_GEMM_F32's;
 *   GC_GEMM_H16    every multiply-add in half: acc = r(acc + r(a w)) from +0.0f in the same
 *                  order, then r(acc + bias) (nothing without a bias), then the clamp: the
 *                  reference loops with a16 (fp16-acc; the native runtime's small convs);
 *   GC_GEMM_SLICE  ML Drift's F32_F16 scheme: per tap, slices of 4 channels from the tap's
 *                  first: part = r(part + r(a w)) from +0.0f over the slice, acc = acc + part
 *                  in float, then acc + bias (or nothing) and the clamp, unrounded: fc.c's
 *                  GC_ACC_SLICE loop (FULLY_CONNECTED: one tap, slices of k).
 *   GC_GEMM_K16H   the native GPU's matrix-core sums (fp16_model.h GC_ACC_K16H): over the
 *                  flattened k in chunks of 16, part = part + a w in float from +0,
 *                  acc = r(acc + part) at each chunk's end, then acc + bias (or nothing)
 *                  and the clamp, unrounded (kernels/gemm_k16h.c; no quick or split sets).
 *   GC_GEMM_H2FMA  the half2 fused multiply-add chains (fp16_model.h GC_ACC_H2FMA): lanes by
 *                  the parity of the flattened k, L = r(a w + L) rounded once, r(L0 + L1),
 *                  then + bias and the clamp (kernels/gemm_k16h.c: AVX-512 and portable).
 * H16 and SLICE are bit-identical to the reference loops that use gc_f16_madd_n, with the same
 * refusal of Inf / NaN filters where taps read the zero row (r(acc + r(0 w)) = acc then,
 * acc being +0 or a half, never -0).
 * Quick tiles (both half modes, AVX-512): where max |a| over the tile's rows times
 * max |w| over the packed weights (gc_gemm_b.wmax) is at most 65504, so that every product
 * is finite and in the half range, the drivers call the set's quick kernels (ksq), which
 * round the products in float arithmetic (gemm_h16_avx512.c) with the same results; any
 * other tile runs the plain ones. wmax is set by the pack functions (and
 * gc_gemm_b_note_range for panels filled or reused otherwise); inf means "never quick".
 * Split tiles (SLICE, AVX-512): quick tiles whose rows and weights are all half values
 * (gc_gemm_b.whalf) and with 4 max|a| max|w| <= 65000 (so every slice's partial sums stay
 * below 65520, where the half rounding would overflow) run the split kernels (ksv,
 * gemm_h16_avx512.c: every rounding in float arithmetic), again with the same results.
 *
 * Threads: every entry point computes a range of tiles [t0, t1) on the calling thread
 * and writes only those tiles' outputs; a tile's results do not depend on the range it
 * is computed in, so any split over threads gives the same bits.
 */
#ifndef GC_GEMM_F32_H
#define GC_GEMM_F32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/kernels/cpu_isa.h"

struct gc_ukr_set;

#define GC_GEMM_MAX_MR 16       /* the most rows a kernel set's tile has (gc_gemm_b.MR) */

/* B (the weights) packed for one kernel set: G groups of a K x N matrix each, split into
 * P = ceil(N / PW) panels of PW columns: w[((g*P + p)*K + k)*PW + c] = B_g[k][p*PW + c],
 * zero for p*PW + c >= N. 64-byte aligned. */
typedef enum { GC_GEMM_F32 = 0, GC_GEMM_H16 = 1, GC_GEMM_SLICE = 2, GC_GEMM_K16H = 3, GC_GEMM_H2FMA = 4,
               GC_GEMM_F32_FMA = 5 } gc_gemm_mode;

typedef struct {
    const struct gc_ukr_set *ks;
    int32_t G, K, N, PW, P, MR;
    int32_t mode;               /* gc_gemm_mode */
    int32_t store;              /* gc_gemmf_run / gc_convf_run: GC_F16_STORE_* (fp16.h): round
                                   each tile's outputs to half once computed (0: leave them) */
    const struct gc_ukr_set *ksq;   /* the half modes' quick kernels (see the top), or NULL */
    const struct gc_ukr_set *ksv;   /* SLICE's split kernels (see the top), or NULL */
    float wmax;                 /* max |w| over the panels (inf: unknown, or an Inf / NaN weight) */
    bool whalf;                 /* with ksv: every packed weight is a half's value (noted with wmax) */
    float *w;
} gc_gemm_b;

/* Choose the layout for `isa` (AVX-512 with N <= 8 uses the AVX2 kernels: 8-float
 * panels waste fewer lanes) and return the floats to allocate for the weights (with
 * room for the 64-byte alignment), 0 when the sizes overflow. */
size_t gc_gemm_b_layout(gc_gemm_b *b, gc_isa isa, int32_t G, int32_t K, int32_t N);
/* The same for a mode (gc_gemm_b_layout is GC_GEMM_F32). The half modes' kernels need
 * F16C at the AVX2 level (else the portable ones, 4-float panels). */
size_t gc_gemm_b_layout_mode(gc_gemm_b *b, gc_isa isa, gc_gemm_mode mode, int32_t G, int32_t K, int32_t N);
/* Point b->w into `mem` (gc_gemm_b_layout's floats). */
void gc_gemm_b_bind(gc_gemm_b *b, float *mem);
/* Fill the panels from B_g[k][n] = src[(g*N + n)*ld + k] (a filter [G*N][K] with row
 * stride ld, FULLY_CONNECTED's [units][depth], BATCH_MATMUL's adj_y b) ... */
void gc_gemm_pack_nk(gc_gemm_b *b, const float *src, int64_t ld);
/* ... or from B[k][n] = src[k*N + n] (G = 1: BATCH_MATMUL's b). */
void gc_gemm_pack_kn(gc_gemm_b *b, const float *src);
/* Set b->wmax (and with b->ksv, b->whalf) from the packed panels (the pack functions do
 * it themselves). */
void gc_gemm_b_note_range(gc_gemm_b *b);
/* gemm_h16_range.c: the kernels for one tile of b whose rows[0..nrows) each read len
 * floats from rows[r] + off: b->ks, b->ksq (a quick tile) or b->ksv (a split tile). */
const struct gc_ukr_set *gc_h16q_tile_set(const gc_gemm_b *b, const float *const *rows, int32_t nrows,
                                          int64_t off, int64_t len);
/* The bias padded to the panels: out[g*P*PW + n] = bias[g*N + n] (0 past N; all 0
 * when bias is NULL); out holds G*P*PW floats. */
void gc_gemm_pack_bias(const gc_gemm_b *b, const float *bias, float *out);
size_t gc_gemm_bias_floats(const gc_gemm_b *b);

/* One tile of any indirect GEMM: rows m < mr of y (row stride ldy) from the row pointers
 * ind[t*MR + m] (+ a_off; T taps of ICg values, K = T*ICg = b->K; rows mr..MR-1 must
 * point at readable memory), every panel of group g; bias: the group's padded bias or NULL. */
void gc_gemm_tile(const gc_gemm_b *b, int32_t g, const float *const *ind, int32_t T, int32_t ICg, int64_t a_off,
                  int32_t mr, const float *bias, float lo, float hi, float *y, int64_t ldy);

/* ---- FULLY_CONNECTED / BATCH_MATMUL: y = clamp(a B + bias) ------------------------------
 * a: M rows of K floats, row stride lda; y: M rows of N floats, row stride ldy; bias: the
 * padded bias (gc_gemm_pack_bias) or NULL (no addition, BATCH_MATMUL). Tiles are the
 * groups of MR rows.
 * apack: NULL, or gc_gemmf_apack_floats(b, lda) floats of the calling thread's own: when
 * that is not 0 (a row stride of a multiple of 4 KiB, K >= 512: the MR rows a tile reads
 * side by side would share one set of the L1 cache), each tile's rows are first copied
 * there at a stride that spreads them over the sets (the same values: the same bits). */
int64_t gc_gemmf_tiles(const gc_gemm_b *b, int64_t M);
size_t gc_gemmf_apack_floats(const gc_gemm_b *b, int64_t lda);
void gc_gemmf_run(const gc_gemm_b *b, const float *bias, float lo, float hi,
                  const float *a, int64_t lda, float *y, int64_t ldy, int64_t M,
                  int64_t t0, int64_t t1, float *apack);

/* ---- CONV_2D (NHWC, groups) ---------------------------------------------------------------
 * Geometry as conv.c's: input [Bn, H, W, C], output [Bn, OH, OW, OC], OC = G * OCg, filter
 * [OC][KH][KW][ICg] packed with G groups, K = KH*KW*ICg, N = OCg. Tiles are groups of MR
 * consecutive output pixels (b, oy, ox flattened), all groups and channels. */
typedef struct {
    gc_gemm_b b;
    const float *bias;          /* gc_gemm_pack_bias */
    const float *zero;          /* zeros a tap outside the image reads: KW*C with one
                                   group (row runs, gemm_f32.c), else C */
    int32_t Bn, H, W, C, OH, OW, OC, KH, KW, sh, sw, dh, dw, pt, pl;
    float lo, hi;
    /* scaled (1x1, stride 1, no padding, one group only: the squeeze-excite MUL absorbed,
     * conv.c): the conv's input is not x but the MUL's product u[p][c] = x[p][c] * xs[c]
     * (xs_first: xs[c] * x[p][c]; the same float product, its operands in the MUL's order),
     * computed per tile into the scratch (gc_convf_scratch_bytes counts it) and summed
     * like any input row: the same bits as the MUL then the conv. xs is set per run. */
    bool scaled, xs_first;
    const float *xs;
    /* epi: NULL, or applied in place to each finished tile's outputs (y, n floats; after the
     * fp16 store when there is one): the swish of a MUL absorbed after planning
     * (interp.c plan_swish_epilogues, conv.c), while the tile is in cache; set per run */
    void (*epi)(float *y, size_t n, const void *arg);
    const void *epi_arg;
} gc_convf;

/* true when the fast path computes this conv bit-identically (see the top): filters
 * with Inf / NaN weights and padding taps are refused. */
bool gc_convf_exact(const float *w, size_t n, bool has_padding_taps);
int64_t gc_convf_tiles(const gc_convf *c);
size_t gc_convf_scratch_bytes(const gc_convf *c);          /* per thread */
void gc_convf_run(const gc_convf *c, const float *x, float *y, void *scratch, int64_t t0, int64_t t1);

#endif
