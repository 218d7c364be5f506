/* gather_const_rows.c — pass gather_const_rows [fix.gather.const_indices]
 *
 * Rewrite:      GATHER(params, indices) with constant 1-D indices  ->
 *                   one STRIDED_SLICE per run of indices with a constant positive step
 *                   (a single index is a run), joined by CONCATENATION on the gather axis.
 *               The compat rules accept such a GATHER, but LiteRT.js 2.5.3 builds the
 *               kernel with the indices laid out as batch and fails ("Unable to parse bc
 *               coord for BATCH axis"; measured on the H200, the fact
 *               init.gather_const_indices) — which drops the whole delegation; native
 *               2.3.0 builds it and is exact (ok.gather_const_indices). A row permutation,
 *               a reversed or repeated row, or a handful of picked rows become a few
 *               slices.
 * Precondition: indices constant INT32/INT64, each inside the axis (TFLite errors on an
 *               out-of-range index); batch_dims 0; static shapes; at most 16 runs.
 *               By default only for GATHERs the checker refuses or marks as breaking
 *               delegate init on the fix's runtime (gpuclean fix --runtime js); --force
 *               gather_const_rows applies it anywhere.
 * Exactness:    bit-exact (slices and concatenation copy the same elements).
 */
#include "fix_int.h"

#include <stdlib.h>

static const int32_t anchors[] = { GC_OP_GATHER, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo p, ind, y;
    if (!fx_info(c, fx_in(c, op, 0), &p) || !fx_info(c, fx_in(c, op, 1), &ind) || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "missing input/output or rank > %d", GC_FIX_MAXR);
    if (!ind.is_const || ind.rank != 1) return fx_pass_over(c);   /* gather_flatten's case, or runtime */
    const gc_options *o = &fx_op(c, op)->opt;
    if (gc_opt_int(o, GC_O_GatherOptions_batch_dims) != 0) return fx_decline(c, "batch_dims != 0");
    int64_t axv = gc_opt_int(o, GC_O_GatherOptions_axis);
    int axis = (int)(axv < 0 ? axv + p.rank : axv);
    if (axis < 0 || axis >= p.rank) return fx_decline(c, "axis out of range");
    if (!p.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    int64_t n = ind.shape[0];
    if (n <= 0 || n > (1 << 20)) return fx_decline(c, "%lld indices", (long long)n);
    if (y.rank != p.rank || y.shape[axis] != n) return fx_decline(c, "unexpected output shape");
    int32_t *w;
    int got = fx_const_indices(c, ind.index, n, p.shape[axis], &w);
    if (got <= 0) return got;
    int runs = fx_row_runs(w, n);
    if (runs > GC_FIX_MAX_RUNS) {
        free(w);
        return fx_decline(c, "%d runs of indices (at most %d slices are made)", runs, GC_FIX_MAX_RUNS);
    }
    fx_remove_op(c, op);
    int32_t at = fx_add_row_select(c, op, p.index, y.index, axis, w, n);
    free(w);
    if (at < 0) return -1;
    fx_note(c, "%d STRIDED_SLICE run(s) on axis %d%s", runs, axis, runs > 1 ? " + CONCATENATION" : "");
    return 1;
}

const gc_fix_pass gc_fix_gather_const_rows = {
    .id = "gather_const_rows",
    .fix_id = "fix.gather.const_indices",
    .summary = "GATHER with constant 1-D indices -> STRIDED_SLICE runs + CONCATENATION",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
