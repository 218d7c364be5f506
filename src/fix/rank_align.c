/* rank_align.c — pass rank_align [fix.broadcast.rank4]
 *
 * Rewrite:      ADD / SUB / MUL / DIV (and the other two-input elementwise ops) whose two
 *               runtime operands have different ranks  ->  the lower-rank operand
 *               RESHAPEd to the higher rank with leading 1s (NumPy's right alignment,
 *               made explicit), then the same op with the same options.
 *               The classic delegate maps rank-1..3 tensors with dim 0 in *batch*, so a
 *               rank-3 [20,128,128] + rank-4 [1,1,128,128] is aligned on the wrong axes
 *               and computes garbage while fully resident (LiteRT #8980; the checker's
 *               classic.mixed_rank_broadcast risk). It also turns classic refusals
 *               ("Doesn't support broadcasting - input0: [..], input1: [..]") into
 *               same-rank broadcasts the allow-list does not police.
 *               The same misalignment was measured on ML Drift, with a constant
 *               operand too (the checker's mldrift.mixed_rank_broadcast risk, both
 *               targets): in Swin's last stage ADD([24,49,49], const [1,24,49,49]) gave
 *               corr 0.985 on an NVIDIA H200 (LiteRT.js 2.5.3, libLiteRt 2.3.0).
 *               A constant lower-rank operand becomes a new tensor over the same
 *               buffer with the higher-rank shape (no new op).
 * Precondition: two inputs of ranks that differ (not both constant), both static, that
 *               broadcast (right-aligned, each dim 1 or equal); the op's output rank is
 *               the larger rank. Targets: nodes the checker refuses, or that carry the
 *               classic.mixed_rank_broadcast or mldrift.mixed_rank_broadcast risk.
 *               A runtime lower-rank operand that still broadcasts against a constant
 *               after the reshape is also TILEd to the output's shape: measured on the
 *               H200, the reshape alone left 34 of 37 such sweep cases wrong.
 * Equal ranks:  a runtime operand of rank 2 against a rank-2 constant whose dim 0 is > 1
 *               (DENSIFY->ADD after densify_const: ADD([4,16], const [4,16])) was measured
 *               wrong on the H200 (the checker's fact numerics.equal_rank_const), while a
 *               runtime [1,1,4,5] with a constant [1,1,4,5] (the mixed-rank cases after
 *               this pass) was right. So at equal ranks 1-3, for nodes a measured fact
 *               calls wrong with this fix: the runtime operand RESHAPEd to rank 4 (leading
 *               1s) and TILEd to the output's shape when it broadcasts, the op at rank 4
 *               with the constant viewed at rank 4 (same buffer), RESHAPE back. The
 *               constant must have the output's shape (a broadcasting constant has no
 *               measured-right form). Measured right on the H200 (ranks 1-3, both
 *               runtimes). A DEQUANTIZE'd constant (fp16 weights) counts as the constant:
 *               the GPU folds it into one, and ADD([4,16], DEQUANTIZE(fp16 [4,16])) was
 *               measured wrong the same way (densify_add_fp16 after densify_const); its
 *               FLOAT16 buffer is viewed at rank 4 and DEQUANTIZEd there.
 * Exactness:    bit-exact (the same elements meet; a reshape or tile copies values).
 */
#include "fix_int.h"

#include <stdio.h>

static const int32_t anchors[] = {
    GC_OP_ADD, GC_OP_SUB, GC_OP_MUL, GC_OP_DIV, GC_OP_MAXIMUM, GC_OP_MINIMUM, GC_OP_POW,
    GC_OP_SQUARED_DIFFERENCE, GC_OP_FLOOR_DIV, GC_OP_FLOOR_MOD, -1
};

/* Equal ranks R < 4, runtime x against constant k of the output's shape y:
 *   RESHAPE x -> [1..1, x]            (rank 4)
 *   TILE    -> [1..1, y]              (only when x broadcasts)
 *   OP(x4, k viewed as [1..1, y])     (operand order kept) -> [1..1, y]
 *   RESHAPE -> y */
/* The operand a DEQUANTIZE writes from a constant (fp16 weights: the GPU folds it into a
 * constant, so it meets the op as one): that constant's index, else -1. */
static int32_t dequantized_const(gc_fix_ctx *c, const gc_fix_tinfo *t) {
    if (t->is_const) return -1;
    int32_t p = fx_producer(c, t->index);
    if (p < 0 || fx_code(c, p) != GC_OP_DEQUANTIZE || fx_op(c, p)->n_inputs != 1) return -1;
    int32_t q = fx_in(c, p, 0);
    return q >= 0 && fx_is_const(c, q) && fx_is_static(c, q) ? q : -1;
}

/* k: the constant operand, or (kq >= 0) the DEQUANTIZE output of constant kq */
static int equal_rank(gc_fix_ctx *c, int32_t op, const gc_fix_tinfo *a, const gc_fix_tinfo *b, const gc_fix_tinfo *y,
                      int32_t kq) {
    bool a_k = kq >= 0 ? fx_producer(c, a->index) >= 0 && fx_in(c, fx_producer(c, a->index), 0) == kq : a->is_const;
    const gc_fix_tinfo *rt = a_k ? b : a, *k = a_k ? a : b;
    int R = y->rank, pad = 4 - R;
    if (R < 1 || R > 3 || y->rank != rt->rank) return fx_pass_over(c);   /* rank 4: the GPU's own */
    if (!rt->is_static || !k->is_static || !y->is_static) return fx_decline(c, "dynamic shapes");
    for (int d = 0; d < R; d++) {
        if (k->shape[d] != y->shape[d])
            return fx_decline(c, "the constant broadcasts too (%d vs %d on axis %d): no form measured right",
                              k->shape[d], y->shape[d], d);
        if (rt->shape[d] != 1 && rt->shape[d] != y->shape[d]) return fx_decline(c, "the operands do not broadcast");
    }
    if (!fx_data(c, kq >= 0 ? kq : k->index, NULL)) return fx_decline(c, "the constant operand has no data");
    const gc_op *o = fx_op(c, op);
    gc_options opt = o->opt;
    int32_t code = fx_code(c, op), version = gc_op_code(c->m, o)->version;
    bool rt_first = o->inputs[0] == rt->index;
    int32_t s4[4], y4[4], m4[4];
    bool tile = false;
    for (int d = 0; d < 4; d++) {
        s4[d] = d < pad ? 1 : rt->shape[d - pad];
        y4[d] = d < pad ? 1 : y->shape[d - pad];
        m4[d] = s4[d] == y4[d] ? 1 : y4[d];
        tile |= m4[d] != 1;
    }
    fx_remove_op(c, op);
    int32_t at = op;
    int32_t x4 = fx_new_tensor(c, y->name, "rank4", rt->type, 4, s4, rt->quant);
    if (x4 < 0 || fx_add_reshape(c, at++, rt->index, x4) < 0) return -1;
    if (tile) {
        int32_t mc = fx_const_i32(c, y->name, "tile_multiples", 4, m4);
        int32_t full = fx_new_tensor(c, y->name, "tiled", rt->type, 4, y4, rt->quant);
        if (mc < 0 || full < 0) return -1;
        int32_t tin[2] = { x4, mc };
        if (fx_add_op(c, at++, GC_OP_TILE, fx_version_for(GC_OP_TILE, rt->type, 4), 2, tin, 1, &full) < 0) return -1;
        x4 = full;
    }
    char hn[600];
    snprintf(hn, sizeof hn, "%s/gc_fix/const_rank4", y->name);
    int32_t src = kq >= 0 ? kq : k->index;   /* the buffer viewed at rank 4 */
    const gc_tensor *st = fx_t(c, src);
    int32_t h = gc_sg_add_tensor(c->m, c->sg, hn, st->type, 4, y4, st->buffer);
    if (h < 0) { c->oom = true; return -1; }
    fx_t(c, h)->quant = fx_t(c, src)->quant;
    if (kq >= 0) {   /* DEQUANTIZE the rank-4 view: the weights stay as the file stores them */
        int32_t dp = fx_producer(c, k->index), dv = gc_op_code(c->m, fx_op(c, dp))->version;
        int32_t d4 = fx_new_tensor(c, y->name, "dequantized_rank4", k->type, 4, y4, k->quant);
        if (d4 < 0 || fx_add_op(c, at++, GC_OP_DEQUANTIZE, dv, 1, &h, 1, &d4) < 0) return -1;
        h = d4;
    }
    int32_t in[2] = { rt_first ? x4 : h, rt_first ? h : x4 };
    int32_t o4 = fx_new_tensor(c, y->name, "out_rank4", y->type, 4, y4, y->quant);
    if (o4 < 0) return -1;
    int32_t k4 = fx_add_op(c, at++, code, version, 2, in, 1, &o4);
    if (k4 < 0) return -1;
    fx_op(c, k4)->opt = opt;
    if (fx_add_reshape(c, at, o4, y->index) < 0) return -1;
    if (kq >= 0) fx_remove_dead(c, k->index);   /* the old DEQUANTIZE, when nothing else reads it */
    fx_note(c, "RESHAPE '%s' to rank 4%s, %s with the %s at rank 4, RESHAPE back", rt->name,
            tile ? ", TILE to the output's shape" : "", gc_builtin_name(code),
            kq >= 0 ? "DEQUANTIZE'd constant" : "constant");
    return 1;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs != 2 || o->n_outputs != 1) return fx_pass_over(c);
    gc_fix_tinfo a, b, y;
    if (!fx_info(c, o->inputs[0], &a) || !fx_info(c, o->inputs[1], &b) || !fx_info(c, o->outputs[0], &y))
        return fx_decline(c, "missing operand or rank > %d", GC_FIX_MAXR);
    if (a.is_const && b.is_const) return fx_pass_over(c);   /* refused for another reason */
    if (a.rank == b.rank) {
        if (a.is_const || b.is_const) return equal_rank(c, op, &a, &b, &y, -1);
        int32_t qa = dequantized_const(c, &a), qb = dequantized_const(c, &b);
        if ((qa >= 0) != (qb >= 0)) return equal_rank(c, op, &a, &b, &y, qa >= 0 ? qa : qb);
        return fx_pass_over(c);
    }
    if (!a.is_static || !b.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    gc_fix_tinfo *lo = a.rank < b.rank ? &a : &b, *hi = a.rank < b.rank ? &b : &a;
    if (y.rank != hi->rank) return fx_decline(c, "the output rank is not the operands' larger rank");
    int32_t shape[GC_FIX_MAXR];
    for (int d = 0; d < hi->rank; d++) {
        int k = d - (hi->rank - lo->rank);
        shape[d] = k >= 0 ? lo->shape[k] : 1;
        if (shape[d] != 1 && hi->shape[d] != 1 && shape[d] != hi->shape[d])
            return fx_decline(c, "the operands do not broadcast");
    }
    gc_options opt = o->opt;
    int32_t code = fx_code(c, op), version = gc_op_code(c->m, o)->version;
    int32_t in[2] = { a.index, b.index };
    bool lo_const = lo->is_const;
    if (lo_const && !fx_data(c, lo->index, NULL)) return fx_decline(c, "the constant operand has no data");
    fx_remove_op(c, op);
    int32_t lr, at = op;
    if (lo_const) {
        /* the same bytes under the higher-rank shape: a new constant tensor over the buffer */
        char name[600];
        snprintf(name, sizeof name, "%s/gc_fix/rank_aligned", y.name);
        uint32_t buf = fx_t(c, lo->index)->buffer;
        lr = gc_sg_add_tensor(c->m, c->sg, name, lo->type, hi->rank, shape, buf);
        if (lr < 0) { c->oom = true; return -1; }
        fx_t(c, lr)->quant = (gc_quant *)lo->quant;
    } else {
        lr = fx_new_tensor(c, y.name, "rank_aligned", lo->type, hi->rank, shape, lo->quant);
        if (lr < 0 || fx_add_reshape(c, at++, lo->index, lr) < 0) return -1;
    }
    /* A runtime operand that still broadcasts against a constant (runtime [1,1,1,5] with
     * const [2,3,4,5]) stays wrong on the GPU after the reshape (measured on the H200: 34 of
     * the sweep's 37 cases): TILE it to the output's shape, so the op meets equal shapes
     * (a runtime operand with an equal-shape constant was measured right). */
    bool tiled = false;
    if (!lo_const && hi->is_const) {
        int32_t mult[GC_FIX_MAXR];
        for (int d = 0; d < hi->rank; d++) {
            mult[d] = shape[d] == y.shape[d] ? 1 : y.shape[d] / (shape[d] ? shape[d] : 1);
            tiled |= mult[d] != 1;
        }
        if (tiled) {
            /* at rank 4: a TILE and an op of rank 2/3 stayed wrong on the H200 (sweep
             * ew_*_r1_r2_const / r1_r3 / r2_r3 after the tile), rank 4 was right */
            int R = 4, pad = R - hi->rank;
            int32_t s4[GC_FIX_MAXR], y4[GC_FIX_MAXR], h4[GC_FIX_MAXR], m4[GC_FIX_MAXR];
            for (int d = 0; d < R; d++) {
                bool lead = d < pad;
                s4[d] = lead ? 1 : shape[d - pad];
                y4[d] = lead ? 1 : y.shape[d - pad];
                h4[d] = lead ? 1 : hi->shape[d - pad];
                m4[d] = lead ? 1 : mult[d - pad];
            }
            if (pad > 0) {
                int32_t l4 = fx_new_tensor(c, y.name, "rank4", lo->type, R, s4, lo->quant);
                if (l4 < 0 || fx_add_reshape(c, at++, lr, l4) < 0) return -1;
                lr = l4;
                char hn[600];
                snprintf(hn, sizeof hn, "%s/gc_fix/const_rank4", y.name);
                int32_t h = gc_sg_add_tensor(c->m, c->sg, hn, hi->type, R, h4, fx_t(c, hi->index)->buffer);
                if (h < 0) { c->oom = true; return -1; }
                fx_t(c, h)->quant = (gc_quant *)hi->quant;
                if (in[0] == hi->index) in[0] = h; else in[1] = h;
            }
            int32_t mc = fx_const_i32(c, y.name, "tile_multiples", R, m4);
            int32_t full = fx_new_tensor(c, y.name, "tiled", lo->type, R, y4, lo->quant);
            if (mc < 0 || full < 0) return -1;
            int32_t tin[2] = { lr, mc };
            if (fx_add_op(c, at++, GC_OP_TILE, fx_version_for(GC_OP_TILE, lo->type, R), 2, tin, 1, &full) < 0)
                return -1;
            if (pad > 0) {   /* the op at rank 4, then back to y's shape */
                if (in[0] == lo->index) in[0] = full; else in[1] = full;
                int32_t o4 = fx_new_tensor(c, y.name, "out_rank4", y.type, R, y4, y.quant);
                if (o4 < 0) return -1;
                int32_t k4 = fx_add_op(c, at++, code, version, 2, in, 1, &o4);
                if (k4 < 0) return -1;
                fx_op(c, k4)->opt = opt;
                if (fx_add_reshape(c, at, o4, y.index) < 0) return -1;
                fx_note(c, "RESHAPE '%s' to rank 4, TILE to the output's shape, %s at rank 4, RESHAPE back",
                        lo->name, gc_builtin_name(code));
                return 1;
            }
            lr = full;
        }
    }
    if (in[0] == lo->index) in[0] = lr; else in[1] = lr;
    int32_t k = fx_add_op(c, at, code, version, 2, in, 1, &y.index);
    if (k < 0) return -1;
    fx_op(c, k)->opt = opt;
    char dims[128];
    fx_dims(dims, sizeof dims, hi->rank, shape);
    if (lo_const)
        fx_note(c, "constant '%s' viewed as %s, then %s on equal ranks", lo->name, dims, gc_builtin_name(code));
    else
        fx_note(c, "RESHAPE '%s' to %s%s, then %s on equal ranks", lo->name, dims,
                tiled ? " and TILE to the output's shape" : "", gc_builtin_name(code));
    return 1;
}

const gc_fix_pass gc_fix_rank_align = {
    .id = "rank_align",
    .fix_id = "fix.broadcast.rank4",
    .summary = "mixed-rank elementwise op -> RESHAPE the lower-rank operand to the same rank; an equal-rank "
               "runtime-vs-constant op measured wrong -> the op at rank 4",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .risk = "classic.mixed_rank_broadcast",
    .risk2 = "mldrift.mixed_rank_broadcast",
    .apply = apply,
};
