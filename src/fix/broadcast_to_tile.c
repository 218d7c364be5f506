/* broadcast_to_tile.c — pass broadcast_to_tile [fix.broadcast_to.runtime]
 *
 * Rewrite:      BROADCAST_TO(x, shape) with x a runtime tensor  ->
 *                   [RESHAPE x to the output rank, leading 1s]  ->  TILE(multiples)
 *               where multiples[d] = out[d] / in[d] (1 where the sizes agree). Both GPU
 *               delegates reject BROADCAST_TO outright, even at rank 4 (LiteRT #9191:
 *               GQA's repeat_kv); TILE with constant multiples is accepted. When no axis
 *               grows the result is the RESHAPE alone.
 * Precondition: x is not constant (a constant is baked by broadcast_to_const); the shape
 *               operand is constant and equals the static output shape; x broadcasts to
 *               it (right-aligned, each dim 1 or equal); same element type and
 *               quantization on x and the output.
 * Exactness:    bit-exact (TILE and RESHAPE copy elements).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_BROADCAST_TO, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    int32_t sh = fx_in(c, op, 1);
    gc_fix_tinfo x, y;
    if (!fx_info(c, fx_in(c, op, 0), &x) || sh < 0 || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "BROADCAST_TO needs an input, a shape and an output of rank <= %d", GC_FIX_MAXR);
    if (x.is_const) return fx_pass_over(c);   /* broadcast_to_const's case */
    if (!fx_is_const(c, sh)) return fx_decline(c, "the target shape is computed at run time");
    if (!x.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    if (x.type != y.type || !fx_same_quant(x.quant, y.quant)) return fx_decline(c, "input and output types differ");
    if (x.rank > y.rank) return fx_decline(c, "the input has the higher rank");
    int64_t want[GC_FIX_MAXR];
    if (fx_const_ints(c, sh, want, GC_FIX_MAXR) != y.rank)
        return fx_decline(c, "the shape operand does not match the output rank");
    int32_t in4[GC_FIX_MAXR], mult[GC_FIX_MAXR];
    bool grows = false;
    for (int d = 0; d < y.rank; d++) {
        if (want[d] != y.shape[d]) return fx_decline(c, "the shape operand does not match the output shape");
        int k = d - (y.rank - x.rank);
        in4[d] = k >= 0 ? x.shape[k] : 1;
        if (in4[d] != 1 && in4[d] != y.shape[d])
            return fx_decline(c, "input dim %d (%d) does not broadcast to %d", k, in4[d], y.shape[d]);
        mult[d] = in4[d] == y.shape[d] ? 1 : y.shape[d];
        if (mult[d] != 1) grows = true;
    }
    int32_t at = op;
    fx_remove_op(c, op);
    char dims[128];
    if (!grows) {
        if (fx_add_reshape(c, at, x.index, y.index) < 0) return -1;
        fx_dims(dims, sizeof dims, y.rank, y.shape);
        fx_note(c, "RESHAPE to %s (no axis grows)", dims);
        return 1;
    }
    int32_t src = x.index;
    if (x.rank != y.rank) {
        src = fx_new_tensor(c, y.name, "reshaped", x.type, y.rank, in4, x.quant);
        if (src < 0 || fx_add_reshape(c, at++, x.index, src) < 0) return -1;
        fx_dims(dims, sizeof dims, y.rank, in4);
        fx_note(c, "RESHAPE to %s, ", dims);
    }
    int32_t m = fx_const_i32(c, y.name, "multiples", y.rank, mult);
    if (m < 0) return -1;
    int32_t in[2] = { src, m };
    if (fx_add_op(c, at, GC_OP_TILE, fx_version_for(GC_OP_TILE, y.type, y.rank), 2, in, 1, &y.index) < 0) return -1;
    fx_dims(dims, sizeof dims, y.rank, mult);
    fx_note(c, "TILE multiples %s", dims);
    return 1;
}

const gc_fix_pass gc_fix_broadcast_to_tile = {
    .id = "broadcast_to_tile",
    .fix_id = "fix.broadcast_to.runtime",
    .summary = "BROADCAST_TO of a runtime tensor -> [RESHAPE] + TILE",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
