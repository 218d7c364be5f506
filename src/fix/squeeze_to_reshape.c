/* squeeze_to_reshape.c — pass squeeze_to_reshape [fix.squeeze.reshape]
 *
 * Rewrite:      SQUEEZE(x) / EXPAND_DIMS(x, axis)  ->  RESHAPE(x, shape) to the output's
 *               shape. Neither GPU delegate has a parser for SQUEEZE or EXPAND_DIMS
 *               (gpu-delegate-rules.md §2.9: "Operation is not supported."); RESHAPE
 *               with a constant shape is accepted. A model whose classifier ends in
 *               SQUEEZE (mobilenet_v1 in the corpus) loses its last CPU node this way.
 * Precondition: the output shape is known; at most one of its dims is dynamic in
 *               shape_signature (that dim becomes -1 in the new shape, so batch-dynamic
 *               models stay batch-dynamic); same type and quantization in and out.
 * Exactness:    bit-exact (a reshape does not touch the elements).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_SQUEEZE, GC_OP_EXPAND_DIMS, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo x, y;
    if (!fx_info(c, fx_in(c, op, 0), &x) || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "missing input/output or rank > %d", GC_FIX_MAXR);
    if (x.type != y.type || !fx_same_quant(x.quant, y.quant)) return fx_decline(c, "input and output types differ");
    int32_t shape[GC_FIX_MAXR];
    int dyn = 0;
    const gc_tensor *ty = fx_t(c, y.index);
    for (int d = 0; d < y.rank; d++) {
        shape[d] = y.shape[d];
        if (ty->n_shape_signature == y.rank && ty->shape_signature[d] < 0) { shape[d] = -1; dyn++; }
    }
    if (dyn > 1) return fx_decline(c, "%d dynamic dims in the output shape (a RESHAPE allows one -1)", dyn);
    int64_t nx = fx_numel(fx_t(c, x.index)), ny = fx_numel(ty);
    if (nx != ny) return fx_decline(c, "input and output sizes differ");
    fx_remove_op(c, op);
    int32_t s = fx_const_i32(c, y.name, "shape", y.rank, shape);
    if (s < 0) return -1;
    int32_t in[2] = { x.index, s };
    int32_t k = fx_add_op(c, op, GC_OP_RESHAPE, 1, 2, in, 1, &y.index);
    if (k < 0) return -1;
    gc_opt_set_vec(c->m, &fx_op(c, k)->opt, GC_O_ReshapeOptions_new_shape, shape, (uint32_t)y.rank);
    char dims[128];
    fx_dims(dims, sizeof dims, y.rank, shape);
    fx_note(c, "RESHAPE to %s", dims);
    return 1;
}

const gc_fix_pass gc_fix_squeeze_to_reshape = {
    .id = "squeeze_to_reshape",
    .fix_id = "fix.squeeze.reshape",
    .summary = "SQUEEZE / EXPAND_DIMS -> RESHAPE to the static output shape",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
