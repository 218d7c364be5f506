/* qconv8.h — how conv.c and fc.c hand an 8-bit CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED or BATCH_MATMUL to the fast kernels (qgemm8.h, bit-identical to their
 * reference loops), and the PAD folding.
 *
 * gc_q8_prepare takes what the reference prepared (geometry, per-channel multipliers,
 * activation range) and, when the fast path applies (ctx->fast, int8 / uint8 input and
 * weights, an int32 bias or none, CONV_2D without groups, DEPTHWISE_CONV_2D with depth
 * multiplier 1 and at most 64 taps, or of one input channel with any multiplier, run as
 * the CONV_2D it is), packs the weights and plans the scratch; otherwise it
 * sets *out = NULL and the caller runs its reference loops.
 *
 * PAD folding (CONV_2D / DEPTHWISE_CONV_2D): when x is the output of a PAD / PADV2 on the
 * two spatial dims whose pad value is x's zero point, read by this node only, not a
 * subgraph output, and no node callback is watching (ctx->observed), the conv reads the
 * PAD's input instead (n->in[0] is replaced; the padding joins its own) and the PAD node is
 * marked absorbed (never evaluated). Exact: the fast kernels read every tap outside the
 * image as the zero point, which is what the PAD wrote there.
 */
#ifndef GC_QCONV8_H
#define GC_QCONV8_H

#include "interp/interp_impl.h"

struct gc_q8op;

typedef struct {
    int kind;                       /* GC_Q8_GEMM (CONV_2D, FULLY_CONNECTED) / GC_Q8_DW */
    bool is_conv;                   /* CONV_2D / DEPTHWISE_CONV_2D: PAD folding may apply */
    int32_t Bn, H, W, C, OH, OW, OC, KH, KW, sh, sw, dh, dw, pt, pl, G, mult;
    int xdt;                        /* x's and y's type */
    const gc_rt *w;                 /* constant filter: CONV_2D [OC][KH][KW][C], DEPTHWISE [1][KH][KW][OC],
                                       FULLY_CONNECTED [N][K] */
    const gc_rt *b;                 /* bias or NULL */
    int32_t zx, zy, lo, hi;         /* input / output zero points; output clamp (activation included) */
    const int32_t *qm; const int *qs; const float *qf;   /* per output channel (reference's) */
    bool xnn;                       /* XNNPACK's rescale */
} gc_q8desc;

gc_status gc_q8_prepare(gc_ctx *ctx, gc_node *n, const gc_q8desc *d, struct gc_q8op **out);
void gc_q8_eval(gc_ctx *ctx, gc_node *n, const struct gc_q8op *op, const uint8_t *x, uint8_t *y);

/* BATCH_MATMUL int8 x int8 -> int8 (fc.c bmm_eval): a [.., M, K] (adj_x: [.., K, M]), b
 * [.., K, N] (adj_y: [.., N, K]), one multiplier; b packed at each eval (or once when
 * constant). Batch offsets are computed by the caller. */
struct gc_q8bmm;
gc_status gc_q8bmm_prepare(gc_ctx *ctx, gc_node *n, int64_t M, int64_t K, int64_t N, bool adj_x, bool adj_y,
                           int32_t za, int32_t zb, int32_t zy, int32_t qm, int qs, struct gc_q8bmm **out);
void gc_q8bmm_eval(gc_ctx *ctx, gc_node *n, const struct gc_q8bmm *op, const int8_t *a, const int8_t *b, int8_t *y);

#endif
