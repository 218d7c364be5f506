/* broadcast_to_const.c — pass broadcast_to_const [fix.broadcast_to.const]
 *
 * Rewrite:      BROADCAST_TO(C, shape) with C constant  ->  a constant of the target shape
 *               (the op disappears; its output tensor keeps its index and name and now
 *               holds the broadcast values). The .expand / outer product that did not
 *               fold at conversion (seed: "bake the result as a constant at its target
 *               shape"); neither GPU delegate has a BROADCAST_TO parser.
 * Precondition: input 0 and the shape are constants; output shape static and equal to
 *               the NumPy broadcast of C's shape (right-aligned, each dim 1 or equal);
 *               a fixed-size element type; same quantization on input and output; the
 *               output is not a model output; the constant is at most
 *               opts.max_const_bytes (64 MiB by default) — larger ones are refused with
 *               the size, since the file would grow by that much (seed: "constant
 *               folding can explode the file").
 * Exactness:    bit-exact (bytes are copied).
 */
#include "fix_int.h"

#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_BROADCAST_TO, -1 };

/* Broadcast `in` (rank ri, dims di) to `out` (rank ro, dims dout), element size es. */
static void broadcast_copy(const uint8_t *in, int ri, const int32_t *di, uint8_t *out, int ro,
                           const int32_t *dout, size_t es) {
    int64_t istride[GC_FIX_MAXR];   /* input stride for each output dim (0: broadcast) */
    int64_t s = 1;
    for (int d = ro - 1; d >= 0; d--) {
        int k = d - (ro - ri);
        if (k < 0 || di[k] == 1) istride[d] = 0;
        else istride[d] = s;
        if (k >= 0) s *= di[k];
    }
    int64_t n = 1;
    for (int d = 0; d < ro; d++) n *= dout[d];
    int32_t idx[GC_FIX_MAXR] = {0};
    int64_t off = 0;
    for (int64_t i = 0; i < n; i++) {
        memcpy(out + (size_t)i * es, in + (size_t)off * es, es);
        for (int d = ro - 1; d >= 0; d--) {   /* odometer */
            idx[d]++; off += istride[d];
            if (idx[d] < dout[d]) break;
            off -= istride[d] * idx[d]; idx[d] = 0;
        }
    }
}

static int apply(gc_fix_ctx *c, int32_t op) {
    int32_t x = fx_in(c, op, 0), sh = fx_in(c, op, 1), y = fx_out(c, op, 0);
    if (x < 0 || sh < 0 || y < 0) return fx_decline(c, "BROADCAST_TO needs an input, a shape and an output");
    if (!fx_is_const(c, x)) return fx_pass_over(c);   /* broadcast_to_tile's case */
    if (!fx_is_const(c, sh)) return fx_decline(c, "the target shape is computed at run time");
    if (fx_is_graph_output(c, y)) return fx_decline(c, "the output is a model output; it is kept as an op");
    const gc_tensor *tx = fx_t(c, x), *ty = fx_t(c, y);
    if (!fx_is_static(c, y)) return fx_decline(c, "the output shape is dynamic");
    if (!fx_plain_type(tx->type) || tx->type != ty->type)
        return fx_decline(c, "element type %s is not copied byte by byte", gc_type_name(tx->type));
    if (!fx_same_quant(tx->quant, ty->quant)) return fx_decline(c, "input and output quantization differ");
    if (ty->rank > GC_FIX_MAXR || tx->rank > ty->rank) return fx_decline(c, "rank %d not handled", ty->rank);
    int64_t want[GC_FIX_MAXR];
    int nw = fx_const_ints(c, sh, want, GC_FIX_MAXR);
    if (nw != ty->rank) return fx_decline(c, "the shape operand does not match the output rank");
    for (int d = 0; d < ty->rank; d++) {
        if (want[d] != ty->shape[d]) return fx_decline(c, "the shape operand does not match the output shape");
        int k = d - (ty->rank - tx->rank);
        if (k >= 0 && tx->shape[k] != 1 && tx->shape[k] != ty->shape[d])
            return fx_decline(c, "input dim %d (%d) does not broadcast to %d", k, tx->shape[k], ty->shape[d]);
    }
    int64_t n = fx_numel(ty), ni = fx_numel(tx);
    size_t es = (size_t)gc_type_size(tx->type);
    if (n <= 0 || ni <= 0) return fx_decline(c, "empty tensor");
    uint64_t bytes = (uint64_t)n * es, in_bytes = 0;
    if (bytes > c->opts->max_const_bytes)
        return fx_decline(c, "the constant would take %llu bytes, over the %llu-byte limit",
                              (unsigned long long)bytes, (unsigned long long)c->opts->max_const_bytes);
    const uint8_t *src = fx_data(c, x, &in_bytes);
    if (!src || in_bytes < (uint64_t)ni * es) return fx_decline(c, "the input constant is truncated");
    uint8_t *dst = malloc((size_t)bytes);
    if (!dst) return -1;
    broadcast_copy(src, tx->rank, tx->shape, dst, ty->rank, ty->shape, es);
    char dims[128];
    fx_dims(dims, sizeof dims, ty->rank, ty->shape);
    fx_remove_op(c, op);
    bool ok = fx_make_const(c, y, dst, bytes);
    free(dst);
    if (!ok) return -1;
    fx_note(c, "constant %s %s (%llu bytes)", gc_type_name(ty->type), dims, (unsigned long long)bytes);
    return 1;
}

const gc_fix_pass gc_fix_broadcast_to_const = {
    .id = "broadcast_to_const",
    .fix_id = "fix.broadcast_to.const",
    .summary = "BROADCAST_TO of a constant -> a constant of the target shape (size-guarded)",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
