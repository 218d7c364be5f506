/* qfc4.h — the fast FULLY_CONNECTED with blockwise INT4 weights (fc.c blockwise_eval),
 * bit-identical to the reference:
 *
 *   TFLite order (default): y[u] = clamp(sum over k in order of x[k] * (w[u][k] * s[u][k/B]))
 *     in float, starting at +0, each product and each sum rounded, no FMA. w * s is exact
 *     (a 4-bit integer times a half-precision scale fits in a float's 24 bits), so the
 *     weights are held as int8 and the scale applied on the fly: per k, 16 units in a
 *     vector, w converted to float, times s, times x[k], added: the reference's operations,
 *     vectorized across independent units only.
 *   XNNPACK (--int-arith xnnpack): x quantized per row as the reference does (qd8), then
 *     per block an exact int32 dot product (q - zq) w, and acc += (float)dot * s in block
 *     order, y = clamp(acc * (1 / scale)).
 *
 * Layout (prepare; block a multiple of 8): units in panels of 16; w4[p][k / 8][16] words,
 * word c holding w[8 j .. 8 j + 7] of unit 16 p + c as nibbles (units past N are 0);
 * sc[p][b][16] float (the reference's block scales, bf16-rounded in XNNPACK mode).
 * TFLite order on AVX-512 takes w1 instead: one byte per weight, w1[p][k / 4][16][4]
 * (byte i of lane c's word: unit 16 p + c's w[4 j + i] in its low nibble), so that the
 * 64-byte load at byte offset i puts w[4 j + i] in the low nibble of every lane, which is
 * all vpermps reads of an index: no shift per weight (twice the memory of w4).
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
    const uint8_t *w1;          /* TFLite order, AVX-512: [P][K / 4][16][4] bytes (else NULL) */
    const float *sc;            /* [P][nb][16] */
    /* XNNPACK mode on AVX-512 VNNI: the block dots by vpdpbusd, u8 (q + 128) x s8 w, less
     * (128 + zq) times the block's weight sum */
    bool vnni;                  /* the nibbles of w4 unpacked to s8 in registers */
    const int32_t *wsum;        /* [P][nb][16] */
} gc_qfc4;

/* can this level run it (else the caller keeps its reference loop)? */
bool gc_qfc4_level_ok(int isa);
/* one row: y[0..N) from x[0..K); qx: the row quantized (XNNPACK mode; K bytes, followed by
 * room for K + 16 more: the VNNI path's regrouped copy), izp, inv */
void gc_qfc4_row(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y);

#endif
