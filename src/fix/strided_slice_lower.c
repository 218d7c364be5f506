/* strided_slice_lower.c — pass strided_slice_lower [fix.strided_slice.version]
 *
 * A STRIDED_SLICE asks for a higher op version than the GPU delegates take (ML Drift:
 * <= 2, classic: <= 4) when it slices bool (version 3), has rank > 4 (4), string (5),
 * an ellipsis or new axis (6), uint32 (7) or the `offset` semantics (8) — TFLite's
 * op_version.cc. Most of that is the form, not the meaning:
 *
 * Rewrite:      STRIDED_SLICE(x, begin, end, strides)  ->  the same selection at the
 *               lowest version it needs, resolved per axis of x (masks, negative and
 *               clamped bounds, offset) the way the reference interpreter does:
 *               - SLICE(x, start, size) when every stride is 1 (a SLICE of bool is
 *                 version 1: BERT-style bool masks), else
 *               - a plain STRIDED_SLICE (no masks, no offset),
 *               + RESHAPE to the original output shape when the axes differ (shrunk
 *                 or new axes).
 * Precondition: begin/end/strides constant; x static with rank <= 8; the resolved
 *               slice is not empty and has positive strides; the new form's version is
 *               lower than the node's.
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
    int32_t have = gc_op_code(c->m, fx_op(c, op))->version;
    int32_t start[GC_FIX_MAXR], stride[GC_FIX_MAXR], size[GC_FIX_MAXR];
    int rs = fx_strided_slice_spec(c, op, x.rank, x.shape, start, stride, size, NULL);
    if (rs <= 0) return rs;
    int64_t total = 1;
    bool unit = true;
    for (int k = 0; k < x.rank; k++) { total *= size[k]; unit = unit && stride[k] == 1; }
    if (total != fx_numel(fx_t(c, y.index))) return fx_decline(c, "the resolved slice does not match the output");
    int32_t want = unit ? fx_version_for(GC_OP_SLICE, x.type, x.rank) : fx_version_for(GC_OP_STRIDED_SLICE, x.type, x.rank);
    if (want >= have)
        return fx_decline(c, "no lower version: %s of %s rank %d is version %d", unit ? "SLICE" : "STRIDED_SLICE",
                          gc_type_name(x.type), x.rank, want);
    bool same = y.rank == x.rank && !memcmp(y.shape, size, sizeof(int32_t) * (size_t)x.rank);
    fx_remove_op(c, op);
    int32_t at = op, dst = y.index;
    if (!same) {
        dst = fx_new_tensor(c, y.name, "slice", x.type, x.rank, size, y.quant);
        if (dst < 0) return -1;
    }
    char b1[128], b2[128], b3[128];
    fx_dims(b1, sizeof b1, x.rank, start);
    if (unit) {
        if (fx_add_slice(c, at++, x.index, dst, y.name, x.rank, start, size) < 0) return -1;
        fx_dims(b2, sizeof b2, x.rank, size);
        fx_note(c, "SLICE v%d begin %s size %s (was STRIDED_SLICE v%d)", want, b1, b2, have);
    } else {
        int32_t end[GC_FIX_MAXR];
        for (int k = 0; k < x.rank; k++) end[k] = start[k] + stride[k] * (size[k] - 1) + 1;
        if (fx_add_strided_slice(c, at++, x.index, dst, y.name, x.rank, start, end, stride) < 0) return -1;
        fx_dims(b2, sizeof b2, x.rank, end); fx_dims(b3, sizeof b3, x.rank, stride);
        fx_note(c, "STRIDED_SLICE v%d begin %s end %s strides %s (was v%d)", want, b1, b2, b3, have);
    }
    if (!same) {
        if (fx_add_reshape(c, at, dst, y.index) < 0) return -1;
        fx_dims(b1, sizeof b1, y.rank, y.shape);
        fx_note(c, ", RESHAPE to %s", b1);
    }
    return 1;
}

const gc_fix_pass gc_fix_strided_slice_lower = {
    .id = "strided_slice_lower",
    .fix_id = "fix.strided_slice.version",
    .summary = "STRIDED_SLICE at a version the GPU refuses (bool, offset, masks) -> SLICE (unit strides) or a plain "
               "STRIDED_SLICE at the lowest version, + RESHAPE",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
