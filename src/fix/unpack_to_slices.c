/* unpack_to_slices.c — pass unpack_to_slices [fix.unpack.slices]
 *
 * Rewrite:      UNPACK(x, axis, num) [.., n, ..] -> num outputs without the axis  ->
 *               per used output k: SLICE x[.., k:k+1, ..] (the axis kept, size 1), then
 *               RESHAPE to the output's shape. torch.unbind and tuple-unpacking a tensor
 *               lower to UNPACK. Measured on the H200 (both runtimes, fp32 and fp16): a
 *               CONCATENATION of UNPACK outputs on axis 1 computes wrong numbers (fact
 *               numerics.unpack_concat, corr 0.22, sweep case unpack_axis1_n2_combined);
 *               the pass runs where such a fact sits on a consumer (the driver's
 *               consumer rule) or with --force unpack_to_slices.
 * Precondition: static shapes; num equals the axis' size and every output has the input's
 *               shape without that axis; outputs nobody reads get no slice.
 * Exactness:    bit-exact (slices and reshapes copy elements).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_UNPACK, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo x;
    if (!fx_info(c, fx_in(c, op, 0), &x)) return fx_decline(c, "missing input or rank > %d", GC_FIX_MAXR);
    if (!x.is_static) return fx_decline(c, "dynamic shapes");
    const gc_op *o = fx_op(c, op);
    int64_t axv = gc_opt_int(&o->opt, GC_O_UnpackOptions_axis);
    int axis = (int)(axv < 0 ? axv + x.rank : axv);
    if (axis < 0 || axis >= x.rank) return fx_decline(c, "axis %lld out of range", (long long)axv);
    int n_out = o->n_outputs;
    if (n_out < 1 || n_out != x.shape[axis] || n_out > 1024) return fx_decline(c, "%d outputs for an axis of %d", n_out, x.shape[axis]);
    int32_t outs[1024];
    for (int k = 0; k < n_out; k++) {
        gc_fix_tinfo y;
        if (!fx_info(c, fx_out(c, op, k), &y)) return fx_decline(c, "missing output");
        if (!y.is_static || y.rank != x.rank - 1 || y.type != x.type) return fx_decline(c, "output %d does not match the input", k);
        for (int d = 0; d < y.rank; d++)
            if (y.shape[d] != x.shape[d < axis ? d : d + 1]) return fx_decline(c, "output %d does not match the input", k);
        outs[k] = y.index;
    }
    fx_remove_op(c, op);
    int32_t at = op, made = 0;
    for (int k = 0; k < n_out; k++) {
        if (fx_uses(c, outs[k]) == 0) continue;
        gc_fix_tinfo y;
        fx_info(c, outs[k], &y);
        int32_t begin[GC_FIX_MAXR], size[GC_FIX_MAXR], s1[GC_FIX_MAXR];
        for (int d = 0; d < x.rank; d++) { begin[d] = 0; size[d] = x.shape[d]; s1[d] = x.shape[d]; }
        begin[axis] = k; size[axis] = 1; s1[axis] = 1;
        int32_t part = fx_new_tensor(c, y.name, "slice", x.type, x.rank, s1, x.quant);
        if (part < 0) return -1;
        if (fx_add_slice(c, at++, x.index, part, y.name, x.rank, begin, size) < 0) return -1;
        if (fx_add_reshape(c, at++, part, outs[k]) < 0) return -1;
        made++;
    }
    fx_note(c, "%d SLICE + RESHAPE pair(s) on axis %d (%d output(s) unused)", (int)made, axis, n_out - (int)made);
    return 1;
}

const gc_fix_pass gc_fix_unpack_to_slices = {
    .id = "unpack_to_slices",
    .fix_id = "fix.unpack.slices",
    .summary = "UNPACK -> one SLICE + RESHAPE per used output",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
