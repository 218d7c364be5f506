/* strided_slice_canon.c — pass strided_slice_canon [fix.strided_slice.no_shrink]
 *
 * Rewrite:      STRIDED_SLICE(x, begin, end, strides) with shrink_axis_mask,
 *               new_axis_mask, ellipsis_mask, begin/end masks, negative or clamped
 *               bounds, or `offset`  ->
 *                   STRIDED_SLICE(x) with one explicit (begin, end, stride) per axis of x,
 *                   no masks  ->  RESHAPE to the original output shape
 *               (the RESHAPE is left out when the shapes already agree). x[:, i] drops
 *               an axis through shrink_axis_mask, which both GPU delegates refuse
 *               ("Slice does not support shrink_axis_mask parameter."); the canonical
 *               slice keeps the axis with size 1 and the RESHAPE drops it.
 * Precondition: begin/end/strides constant; x static with rank <= 8; the resolved
 *               slice is not empty and has positive strides on every axis (the GPU
 *               rejects reverse slices, so there is nothing to gain); the masks follow
 *               TF's rules (one ellipsis at most) — resolved the way the reference
 *               interpreter resolves them (src/interp/kernels/slice.c).
 * Exactness:    bit-exact (the same elements in the same order).
 */
#include "fix_int.h"

#include <string.h>

static const int32_t anchors[] = { GC_OP_STRIDED_SLICE, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo x, y;
    if (!fx_info(c, fx_in(c, op, 0), &x) || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "missing input/output or rank > %d", GC_FIX_MAXR);
    if (!x.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    /* already canonical? then this pass has nothing to add: it is refused for another reason */
    if (fx_strided_slice_is_plain(c, op, x.rank)) return fx_pass_over(c);
    int32_t start[GC_FIX_MAXR], stride[GC_FIX_MAXR], size[GC_FIX_MAXR];
    int rs = fx_strided_slice_spec(c, op, x.rank, x.shape, start, stride, size, NULL);
    if (rs <= 0) return rs;
    int64_t total = 1;
    for (int k = 0; k < x.rank; k++) total *= size[k];
    if (total != fx_numel(fx_t(c, y.index))) return fx_decline(c, "the resolved slice does not match the output");
    int32_t end[GC_FIX_MAXR];
    for (int k = 0; k < x.rank; k++) end[k] = start[k] + stride[k] * (size[k] - 1) + 1;
    bool same = y.rank == x.rank && !memcmp(y.shape, size, sizeof(int32_t) * (size_t)x.rank);
    fx_remove_op(c, op);
    int32_t at = op, dst = y.index;
    if (!same) {
        dst = fx_new_tensor(c, y.name, "slice", x.type, x.rank, size, y.quant);
        if (dst < 0) return -1;
    }
    if (fx_add_strided_slice(c, at++, x.index, dst, y.name, x.rank, start, end, stride) < 0) return -1;
    char b1[128], b2[128], b3[128];
    fx_dims(b1, sizeof b1, x.rank, start); fx_dims(b2, sizeof b2, x.rank, end); fx_dims(b3, sizeof b3, x.rank, stride);
    fx_note(c, "STRIDED_SLICE begin %s end %s strides %s, no masks", b1, b2, b3);
    if (!same) {
        if (fx_add_reshape(c, at, dst, y.index) < 0) return -1;
        fx_dims(b1, sizeof b1, y.rank, y.shape);
        fx_note(c, ", RESHAPE to %s", b1);
    }
    return 1;
}

const gc_fix_pass gc_fix_strided_slice_canon = {
    .id = "strided_slice_canon",
    .fix_id = "fix.strided_slice.no_shrink",
    .summary = "STRIDED_SLICE with shrink/new-axis/ellipsis masks -> plain STRIDED_SLICE + RESHAPE",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
