/* qfc4.h — the fast FULLY_CONNECTED with blockwise INT4 weights (fc.c blockwise_eval),
 * bit-identical to the reference:
 *
 *   TFLite order (default): y[u] = clamp(sum over k in order of x[k] * (w[u][k] * s[u][k/B]))
 *     in float, starting at +0, each product and each sum rounded, no FMA. w * s is exact
 *     (a 4-bit integer times a half-precision scale fits in a float's 24 bits), so the
 *     weights are held as 4-bit codes and w * s formed exactly on the fly: per k, 16 units
 *     in a vector, w * s (the one FMA of the kernel, exact: group512_w3), times x[k],
 *     added: the reference's operations, vectorized across independent units only (the
 *     adds with acc as the first operand, so that NaN meeting NaN keeps acc's, as the
 *     reference's). Per 16 weights that is two multiplies on Zen 4's two multiply pipes:
 *     about 2.3 cycles, near 45 us for qwen's 1024 x 1024 on one core (docs/measurements/
 *     qfc4-2026-12-03.md: the bound, and why this order cannot reach XNNPACK's speed).
 *   XNNPACK (--int-arith xnnpack): x quantized per row as the reference does (qd8), then
 *     per block an exact int32 dot product (q - zq) w, and acc += (float)dot * s in block
 *     order, y = clamp(acc * (1 / scale)).
 *
 * Layout (prepare; block a multiple of 8): units in panels of 16; w4[p][k / 8][16] words,
 * word c holding w[8 j .. 8 j + 7] of unit 16 p + c as nibbles (units past N are 0);
 * sc[p][b][16] float (the reference's block scales, bf16-rounded in XNNPACK mode).
 * TFLite order takes w3 instead (when every scale is finite; AVX-512 and AVX2): per block, the
 * weights in words of three, w3[p][b][d][16] (d < D = ceil(B / 3)): word c holds unit
 * 16 p + c's n = w + 8 for k = b B + 3 d + i in bits 8 + 4 i .. 11 + 4 i (i < 3; a block's
 * last word holds B mod 3 when that is not 0), bits 23 .. 30 the exponent of 2^15 (142),
 * the rest 0 (units past N: all 0). A vpandd turns a weight into the float 2^(23 - j) + n
 * and one FMA into w s exactly (qfc4.c, group512_w3): 4 / 3 bytes a weight.
 * Threads: the panels are independent; gc_qfc4_panels runs a range of them, the same
 * arithmetic in any range, so a caller may split [0, P) anywhere (fc.c: in items of
 * GC_QFC4_ITEM panels over ctx->threads).
 * Levels: AVX-512F (16 lanes), AVX2 (2 x 8 lanes); the scalar level keeps the reference.
 */
#ifndef GC_QFC4_H
#define GC_QFC4_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int isa;
    int64_t N, K, B, P, nb;     /* units, depth, block, panels of 16, blocks */
    bool xnn;
    float lo, hi;
    const uint8_t *w4;          /* [P][K / 8][16] 32-bit words: unit c's w[8 j + i] in bits 4 i .. 4 i + 3 */
    const uint32_t *w3;         /* TFLite order, finite scales: [P][nb][ceil(B / 3)][16] (else NULL) */
    const float *sc;            /* [P][nb][16] */
    /* XNNPACK mode on AVX-512 VNNI: the block dots by vpdpbusd, u8 (q + 128) x s8 w, less
     * (128 + zq) times the block's weight sum */
    bool vnni;                  /* the nibbles of w4 (then n = w + 8) taken as s8 in registers */
    const int32_t *wsum;        /* [P][nb][16] */
} gc_qfc4;

/* can this level run it (else the caller keeps its reference loop)? */
bool gc_qfc4_level_ok(int isa);
/* one row: y[0..N) from x[0..K); qx: the row quantized (XNNPACK mode; K bytes, followed by
 * room for K + 16 + 4 K / B more: the VNNI path's regrouped copy and block sums), izp, inv:
 * gc_qfc4_prep once per row (that regrouped copy), then gc_qfc4_panels for the panels
 * [p0, p1), units [16 p0, min(16 p1, N)) of y, by any split of [0, P). */
/* XNNPACK mode: fc.c qd8_row's loops over a row of K, vectorized (the same bits): the range
 * [min(0, min x), max(0, max x)] over the non-NaN x, and q = clamp(rintf(x scale) + zp) with
 * NaN -> 0. false: no vector version at this level (the caller runs its loops). */
bool gc_qfc4_range(const gc_qfc4 *f, const float *x, float *mn, float *mx);
bool gc_qfc4_quant(const gc_qfc4 *f, const float *x, float scale, int32_t zp, int8_t *q);
enum { GC_QFC4_ITEM = 4 };      /* panels per item when splitting (a multiple of every level's group) */
void gc_qfc4_prep(const gc_qfc4 *f, const int8_t *qx);
void gc_qfc4_panels(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y,
                    int64_t p0, int64_t p1);

#endif
