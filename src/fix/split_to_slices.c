/* split_to_slices.c — pass split_to_slices [fix.split.slices]
 *
 * Rewrite:      SPLIT(axis, x) / SPLIT_V(x, size_splits, axis)  ->  one STRIDED_SLICE per
 *               used output: begin = offset on the split axis (0 elsewhere), end =
 *               offset + size (full elsewhere), strides 1, no masks. .chunk() and
 *               torch.split lower to SPLIT; the seed calls it GPU-rejected (the classic
 *               delegate excludes SPLIT without OpenCL, and SPLIT with many outputs
 *               exhausts resources on Mali, TF #56328). The checker accepts SPLIT on
 *               ML Drift and classic/OpenCL, so by default this pass only touches
 *               refused SPLITs; --force split_to_slices applies it everywhere.
 * Precondition: the axis is a constant; static shapes; the outputs' sizes along the axis
 *               add up to the input's and every other dim equals the input's (SPLIT_V's
 *               -1 size is already resolved in the output shapes); outputs nobody reads
 *               get no slice.
 * Exactness:    bit-exact (slices copy elements).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_SPLIT, GC_OP_SPLIT_V, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    bool v = fx_code(c, op) == GC_OP_SPLIT_V;
    int32_t xi = fx_in(c, op, v ? 0 : 1), ai = fx_in(c, op, v ? 2 : 0);
    gc_fix_tinfo x;
    if (!fx_info(c, xi, &x) || ai < 0) return fx_decline(c, "missing input or rank > %d", GC_FIX_MAXR);
    int64_t axv;
    if (fx_const_ints(c, ai, &axv, 1) != 1) return fx_decline(c, "the axis is not a constant scalar");
    int axis = (int)(axv < 0 ? axv + x.rank : axv);
    if (axis < 0 || axis >= x.rank) return fx_decline(c, "axis %lld out of range", (long long)axv);
    if (!x.is_static) return fx_decline(c, "dynamic shapes");
    int n_out = fx_op(c, op)->n_outputs;
    if (n_out < 1 || n_out > 1024) return fx_decline(c, "%d outputs", n_out);
    int32_t outs[1024];
    int64_t total = 0;
    for (int k = 0; k < n_out; k++) {
        gc_fix_tinfo o;
        if (!fx_info(c, fx_out(c, op, k), &o)) return fx_decline(c, "missing output");
        if (!o.is_static || o.rank != x.rank || o.type != x.type) return fx_decline(c, "output %d does not match the input", k);
        for (int d = 0; d < x.rank; d++)
            if (d != axis && o.shape[d] != x.shape[d]) return fx_decline(c, "output %d does not match the input", k);
        total += o.shape[axis];
        outs[k] = o.index;
    }
    if (total != x.shape[axis]) return fx_decline(c, "output sizes add up to %lld, not %d", (long long)total, x.shape[axis]);
    fx_remove_op(c, op);
    int32_t at = op, off = 0, made = 0;
    for (int k = 0; k < n_out; k++) {
        gc_fix_tinfo o;
        fx_info(c, outs[k], &o);
        int32_t begin[GC_FIX_MAXR], end[GC_FIX_MAXR], strides[GC_FIX_MAXR];
        for (int d = 0; d < x.rank; d++) { begin[d] = 0; end[d] = x.shape[d]; strides[d] = 1; }
        begin[axis] = off; end[axis] = off + o.shape[axis];
        off += o.shape[axis];
        if (fx_uses(c, o.index) == 0) continue;
        if (fx_add_strided_slice(c, at++, x.index, o.index, o.name, x.rank, begin, end, strides) < 0) return -1;
        made++;
    }
    fx_note(c, "%d STRIDED_SLICE(s) on axis %d (%d output(s) unused)", (int)made, axis, n_out - (int)made);
    return 1;
}

const gc_fix_pass gc_fix_split_to_slices = {
    .id = "split_to_slices",
    .fix_id = "fix.split.slices",
    .summary = "SPLIT / SPLIT_V -> one STRIDED_SLICE per used output",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
