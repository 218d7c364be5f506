/* broadcast_to_tile.c — pass broadcast_to_tile [fix.broadcast_to.runtime]
 *
 * Rewrite:      BROADCAST_TO(x, shape) with x a runtime tensor  ->
 *                   [RESHAPE x to the output rank, leading 1s]  ->  TILE(multiples)
 *               where multiples[d] = out[d] / in[d] (1 where the sizes agree). Both GPU
 *               delegates reject BROADCAST_TO outright, even at rank 4 (LiteRT #9191:
 *               GQA's repeat_kv); TILE with constant multiples is accepted. When no axis
 *               grows the result is the RESHAPE alone.
 * Rank > 4 (GQA's repeat_kv as transformers writes it: [1,kv,S,D] -RESHAPE-> [1,kv,1,S,D]
 *               -BROADCAST_TO-> [1,kv,rep,S,D] -RESHAPE-> [1,kv*rep,S,D]): the GPU refuses
 *               every rank-5 tensor, so the chain is done on a view of rank <= 4 — unit
 *               axes dropped, neighbouring axes that do not grow merged, neighbouring
 *               axes that grow merged ([kv,1,S*D] -> [kv,rep,S*D]):
 *                   RESHAPE(x4 -> view) -> TILE -> RESHAPE(view -> each consumer's output)
 *               replacing the RESHAPE that made x (when BROADCAST_TO is its only use
 *               and its input has rank <= 4) and the RESHAPEs that read the output
 *               (which must be its only uses). Same elements in the same order.
 * Precondition: x is not constant (a constant is baked by broadcast_to_const); the shape
 *               operand is constant and equals the static output shape; x broadcasts to
 *               it (right-aligned, each dim 1 or equal); same element type and
 *               quantization on x and the output.
 * Exactness:    bit-exact (TILE and RESHAPE copy elements).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_BROADCAST_TO, -1 };

/* the rank > 4 case: a view of rank <= 4, the RESHAPEs around absorbed */
static int high_rank(gc_fix_ctx *c, int32_t op, const gc_fix_tinfo *x, const gc_fix_tinfo *y, const int32_t *in4) {
    int32_t vin[GC_FIX_MAXR], vout[GC_FIX_MAXR];
    int vr = 0, last = -1;                        /* last: 0 same, 1 grows */
    for (int d = 0; d < y->rank; d++) {
        if (y->shape[d] == 1) continue;
        int kind = in4[d] == y->shape[d] ? 0 : 1;
        if (vr > 0 && kind == last) {
            vin[vr - 1] *= in4[d]; vout[vr - 1] *= y->shape[d];
        } else {
            if (vr == GC_FIX_MAXR) return fx_decline(c, "no view of rank <= 4");
            vin[vr] = in4[d]; vout[vr] = y->shape[d]; vr++;
        }
        last = kind;
    }
    if (vr > 4) return fx_decline(c, "rank %d: no view of rank <= 4 (%d groups of axes)", y->rank, vr);
    /* the input: a RESHAPE from rank <= 4 that only feeds this op */
    int32_t rp = fx_producer(c, x->index), src = -1;
    if (rp >= 0 && fx_code(c, rp) == GC_OP_RESHAPE && fx_uses(c, x->index) == 1 && !fx_is_graph_output(c, x->index)) {
        int32_t s0 = fx_in(c, rp, 0);
        if (s0 >= 0 && fx_t(c, s0)->rank <= 4) src = s0;
    }
    if (src < 0) return fx_decline(c, "rank %d: the input is not a RESHAPE from rank <= 4 used only here", y->rank);
    /* the output: only RESHAPEs to rank <= 4 read it */
    if (fx_is_graph_output(c, y->index)) return fx_decline(c, "rank %d: the output is a model output", y->rank);
    int32_t cons[16];
    int32_t nc = gc_sg_consumers(c->m, c->sg, y->index, cons, 16);
    if (nc < 1 || nc > 16) return fx_decline(c, "rank %d: %d readers of the output", y->rank, nc);
    int32_t outs[16];
    for (int32_t k = 0; k < nc; k++) {
        if (fx_code(c, cons[k]) != GC_OP_RESHAPE || fx_in(c, cons[k], 0) != y->index)
            return fx_decline(c, "rank %d: the output feeds %s, not a RESHAPE", y->rank, fx_name(c, cons[k]));
        outs[k] = fx_out(c, cons[k], 0);
        if (outs[k] < 0 || fx_t(c, outs[k])->rank > 4 || !fx_is_static(c, outs[k]))
            return fx_decline(c, "rank %d: a RESHAPE after it stays at rank > 4", y->rank);
        for (int32_t j = 0; j < k; j++) if (outs[j] == outs[k]) return fx_decline(c, "a RESHAPE writes twice");
    }
    int32_t mult[GC_FIX_MAXR];
    for (int d = 0; d < vr; d++) mult[d] = vout[d] / vin[d];
    int32_t xsrc = src;
    /* remove the BROADCAST_TO, the RESHAPE before it, the RESHAPEs after it */
    fx_remove_op(c, op);
    fx_remove_op(c, fx_producer(c, x->index));
    for (int32_t k = 0; k < nc; k++) fx_remove_op(c, fx_producer(c, outs[k]));
    int32_t at = fx_producer(c, xsrc) + 1;       /* right after what makes the input */
    if (at < 0) at = 0;
    char d1[128], d2[128], d3[128];
    const gc_tensor *ts = fx_t(c, xsrc);
    bool same_in = ts->rank == vr;
    for (int d = 0; same_in && d < vr; d++) same_in = ts->shape[d] == vin[d];
    int32_t vi = xsrc;
    if (!same_in) {
        vi = fx_new_tensor(c, y->name, "view_in", x->type, vr, vin, x->quant);
        if (vi < 0 || fx_add_reshape(c, at++, xsrc, vi) < 0) return -1;
    }
    int32_t vo = fx_new_tensor(c, y->name, "view_out", x->type, vr, vout, y->quant);
    int32_t m = vo < 0 ? -1 : fx_const_i32(c, y->name, "multiples", vr, mult);
    if (m < 0) return -1;
    int32_t in[2] = { vi, m };
    if (fx_add_op(c, at++, GC_OP_TILE, fx_version_for(GC_OP_TILE, y->type, vr), 2, in, 1, &vo) < 0) return -1;
    for (int32_t k = 0; k < nc; k++)
        if (fx_add_reshape(c, at++, vo, outs[k]) < 0) return -1;
    fx_dims(d1, sizeof d1, vr, vin); fx_dims(d2, sizeof d2, vr, vout); fx_dims(d3, sizeof d3, vr, mult);
    fx_note(c, "rank %d chain on a rank-%d view: RESHAPE to %s, TILE multiples %s -> %s, RESHAPE to %d output(s) "
            "(the RESHAPEs around it absorbed)", y->rank, vr, d1, d3, d2, (int)nc);
    return 1;
}

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
    if (y.rank > 4 && grows) return high_rank(c, op, &x, &y, in4);
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
