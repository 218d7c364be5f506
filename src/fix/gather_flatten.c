/* gather_flatten.c — pass gather_flatten [fix.gather.flatten_indices]
 *
 * Rewrite:      GATHER(params, indices) with indices of rank != 1  ->
 *                   runtime indices: RESHAPE to 1-D -> GATHER (same axis) -> RESHAPE to
 *                   the original output shape;
 *                   constant indices: the rows picked by STRIDED_SLICEs, one per run with
 *                   a constant step, + CONCATENATION on the axis (at most 16 runs; see
 *                   gather_const_rows for why not a GATHER) -> RESHAPE; or, for a 2-D
 *                   index grid affine in both axes (STFT framing: frame f, tap k ->
 *                   f*hop + k, at most 16 taps), one strided slice per tap, RESHAPEd
 *                   to a unit axis and stacked by CONCATENATION; otherwise a 1-D
 *                   constant GATHER -> RESHAPE (ML Drift cannot build that one: the
 *                   driver then rolls the site back and says so).
 *               Both GPU delegates accept only 1-D GATHER indices ("Only support 1D
 *               indices"); an embedding lookup on [batch, seq] token ids is the common
 *               case (movie_review in the corpus).
 * Precondition: batch_dims == 0; static shapes; runtime indices are INT32 (INT64 runtime
 *               tensors are refused by the GPU anyway); constant INT64 indices fit in
 *               INT32; constant indices inside the axis (TFLite errors otherwise); the
 *               flattened GATHER's output has rank <= 8.
 * Exactness:    bit-exact (the same rows are copied in the same order).
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>

static const int32_t anchors[] = { GC_OP_GATHER, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo p, ind, y;
    if (!fx_info(c, fx_in(c, op, 0), &p) || !fx_info(c, fx_in(c, op, 1), &ind) || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "missing input/output or rank > %d", GC_FIX_MAXR);
    if (ind.rank == 1) return fx_pass_over(c);   /* refused for another reason */
    const gc_options *o = &fx_op(c, op)->opt;
    if (gc_opt_int(o, GC_O_GatherOptions_batch_dims) != 0) return fx_decline(c, "batch_dims != 0");
    int64_t axv = gc_opt_int(o, GC_O_GatherOptions_axis);
    int axis = (int)(axv < 0 ? axv + p.rank : axv);
    if (axis < 0 || axis >= p.rank) return fx_decline(c, "axis out of range");
    if (!p.is_static || !ind.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    int64_t n = fx_numel(fx_t(c, ind.index));
    if (n <= 0 || n > INT32_MAX) return fx_decline(c, "%lld indices", (long long)n);
    int32_t gshape[GC_FIX_MAXR];
    int gr = p.rank;
    for (int d = 0; d < p.rank; d++) gshape[d] = d == axis ? (int32_t)n : p.shape[d];
    int32_t flat_shape[1] = { (int32_t)n };
    fx_remove_op(c, op);
    int32_t at = op, idx;
    if (ind.is_const) {
        if (n > (16 << 20)) return fx_decline(c, "too many constant indices");
        int32_t *w;
        int got = fx_const_indices(c, ind.index, n, p.shape[axis], &w);
        if (got <= 0) return got;
        /* a 2-D grid of indices affine in both axes (audio framing: frame f, tap k ->
         * f * hop + k): one strided slice per column k, stacked on a new axis */
        int32_t g0 = ind.rank == 2 ? ind.shape[0] : 0, g1 = ind.rank == 2 ? ind.shape[1] : 0;
        int32_t base = w[0], a = g0 > 1 ? w[g1] - w[0] : 1, bstep = g1 > 1 ? w[1] - w[0] : 0;
        bool affine = ind.rank == 2 && g1 <= GC_FIX_MAX_RUNS && a >= 1 && p.rank + 1 <= GC_FIX_MAXR;
        for (int64_t i = 0; affine && i < n; i++)
            affine = w[i] == base + a * (int32_t)(i / g1) + bstep * (int32_t)(i % g1);
        int runs = fx_row_runs(w, n);
        if (affine && g1 < runs) {
            free(w);
            int32_t parts[GC_FIX_MAX_RUNS];
            int32_t sshape[GC_FIX_MAXR], rshape[GC_FIX_MAXR];
            for (int d = 0; d < p.rank; d++) sshape[d] = d == axis ? g0 : p.shape[d];
            for (int d = 0, k = 0; d < p.rank; d++) {
                rshape[k++] = sshape[d];
                if (d == axis) rshape[k++] = 1;
            }
            for (int32_t k = 0; k < g1; k++) {
                int32_t begin[GC_FIX_MAXR], end[GC_FIX_MAXR], strides[GC_FIX_MAXR];
                for (int d = 0; d < p.rank; d++) { begin[d] = 0; end[d] = p.shape[d]; strides[d] = 1; }
                begin[axis] = base + bstep * k;
                end[axis] = begin[axis] + a * (g0 - 1) + 1;
                strides[axis] = a;
                char what[32];
                snprintf(what, sizeof what, "tap%d", (int)k);
                int32_t sl = fx_new_tensor(c, y.name, what, p.type, p.rank, sshape, y.quant);
                snprintf(what, sizeof what, "tap%d_col", (int)k);
                int32_t col = g1 == 1 ? y.index : fx_new_tensor(c, y.name, what, p.type, p.rank + 1, rshape, y.quant);
                if (sl < 0 || col < 0) return -1;
                if (fx_add_strided_slice(c, at++, p.index, sl, fx_t(c, sl)->name, p.rank, begin, end, strides) < 0 ||
                    fx_add_reshape(c, at++, sl, col) < 0)
                    return -1;
                parts[k] = col;
            }
            if (g1 > 1) {
                int32_t k = fx_add_op(c, at, GC_OP_CONCATENATION, p.type == GC_T_INT8 ? 2 : 1, g1, parts, 1, &y.index);
                if (k < 0) return -1;
                gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_ConcatenationOptions_axis, axis + 1);
            }
            fx_note(c, "%d STRIDED_SLICE(s) (start %d + %d*k, stride %d) on axis %d, stacked by CONCATENATION on "
                       "axis %d", (int)g1, (int)base, (int)bstep, (int)a, axis, axis + 1);
            return 1;
        }
        if (runs <= GC_FIX_MAX_RUNS) {
            /* no GATHER at all: slices of runs of rows (+ CONCATENATION), RESHAPE */
            int32_t g = fx_new_tensor(c, y.name, "rows", p.type, gr, gshape, y.quant);
            at = g < 0 ? -1 : fx_add_row_select(c, at, p.index, g, axis, w, n);
            free(w);
            if (at < 0 || fx_add_reshape(c, at, g, y.index) < 0) return -1;
            char dims[128];
            fx_dims(dims, sizeof dims, y.rank, y.shape);
            fx_note(c, "%d STRIDED_SLICE run(s) on axis %d%s, RESHAPE to %s", runs, axis,
                    runs > 1 ? " + CONCATENATION" : "", dims);
            return 1;
        }
        idx = fx_const_i32(c, y.name, "indices", (int)n, w);
        free(w);
        if (idx < 0) return -1;
        fx_note(c, "1-D constant indices [%lld], ", (long long)n);
    } else {
        if (ind.type != GC_T_INT32) return fx_decline(c, "runtime indices are %s, not INT32", gc_type_name(ind.type));
        idx = fx_new_tensor(c, y.name, "indices", GC_T_INT32, 1, flat_shape, NULL);
        if (idx < 0 || fx_add_reshape(c, at++, ind.index, idx) < 0) return -1;
        fx_note(c, "RESHAPE indices to [%lld], ", (long long)n);
    }
    int32_t g = fx_new_tensor(c, y.name, "gathered", p.type, gr, gshape, y.quant);
    if (g < 0) return -1;
    int32_t in[2] = { p.index, idx };
    int32_t k = fx_add_op(c, at++, GC_OP_GATHER, fx_version_for(GC_OP_GATHER, p.type, gr), 2, in, 1, &g);
    if (k < 0) return -1;
    gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_GatherOptions_axis, axis);
    if (fx_add_reshape(c, at, g, y.index) < 0) return -1;
    char dims[128];
    fx_dims(dims, sizeof dims, y.rank, y.shape);
    fx_note(c, "GATHER axis %d, RESHAPE to %s", axis, dims);
    return 1;
}

const gc_fix_pass gc_fix_gather_flatten = {
    .id = "gather_flatten",
    .fix_id = "fix.gather.flatten_indices",
    .summary = "GATHER with multi-dim indices -> 1-D indices, GATHER, RESHAPE",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
