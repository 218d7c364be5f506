/* cumsum_exclusive.c — pass cumsum_exclusive [fix.cumsum.exclusive]
 *
 * ML Drift's CUMSUM kernel reads the axis and `reverse` but not `exclusive`: an exclusive
 * CUMSUM on the GPU returns the inclusive sums (measured on the H200, both LiteRT.js
 * 2.5.3 and native libLiteRt 2.3.0; data/gpu/facts.tsv numerics.cumsum_exclusive).
 * Rewrite:      y = CUMSUM(x, axis, exclusive=1, reverse=r)   ->
 *               s = CUMSUM(x, axis, exclusive=0, reverse=r);  y = SUB(s, x).
 *               Exclusive sums are the inclusive ones minus the element itself, in both
 *               directions: y[i] = sum_{j<i} x[j] = s[i] - x[i] (reverse: j>i).
 * Precondition: FLOAT32 x and y of the same static shape, a constant axis.
 * Exactness:    within fp32 rounding (rtol 1e-5, atol 1e-6 relative to the running sum):
 *               s[i] - x[i] rounds twice where the direct sum rounds once; the error is
 *               bounded by one ulp of the running sum s[i]. Applied wherever it holds
 *               (scope "any"): the GPU accepts the node, its numbers are what is wrong.
 */
#include "fix_int.h"

#include <string.h>

static const int32_t anchors[] = { GC_OP_CUMSUM, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs != 2 || o->n_outputs != 1) return fx_pass_over(c);
    if (!gc_opt_int(&o->opt, GC_O_CumsumOptions_exclusive)) return fx_pass_over(c);   /* inclusive: right */
    int64_t reverse = gc_opt_int(&o->opt, GC_O_CumsumOptions_reverse);
    gc_fix_tinfo x, y;
    int32_t ax = fx_in(c, op, 1);
    if (!fx_info(c, fx_in(c, op, 0), &x) || !fx_info(c, fx_out(c, op, 0), &y) || ax < 0)
        return fx_decline(c, "CUMSUM needs an input, an axis and an output of rank <= %d", GC_FIX_MAXR);
    if (x.type != GC_T_FLOAT32 || y.type != GC_T_FLOAT32)
        return fx_decline(c, "%s CUMSUM: the GPU runs float CUMSUM only", gc_type_name(x.type));
    if (!fx_is_const(c, ax)) return fx_decline(c, "the axis is computed at run time");
    if (!x.is_static || x.rank != y.rank || memcmp(x.shape, y.shape, sizeof(int32_t) * (size_t)x.rank))
        return fx_decline(c, "input and output shapes differ or are dynamic");
    fx_remove_op(c, op);
    int32_t s = fx_new_tensor(c, y.name, "inclusive", x.type, x.rank, x.shape, NULL);
    if (s < 0) return -1;
    int32_t in[2] = { x.index, ax };
    int32_t k = fx_add_op(c, op, GC_OP_CUMSUM, 1, 2, in, 1, &s);
    if (k < 0) return -1;
    if (reverse) gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_CumsumOptions_reverse, 1);
    int32_t sub_in[2] = { s, x.index };
    if (fx_add_op(c, k + 1, GC_OP_SUB, fx_version_for(GC_OP_SUB, x.type, x.rank), 2, sub_in, 1, &y.index) < 0)
        return -1;
    fx_note(c, "SUB(CUMSUM(x, exclusive=0%s), x)", reverse ? ", reverse=1" : "");
    return 1;
}

const gc_fix_pass gc_fix_cumsum_exclusive = {
    .id = "cumsum_exclusive",
    .fix_id = "fix.cumsum.exclusive",
    .summary = "exclusive CUMSUM -> inclusive CUMSUM - x: the GPU ignores `exclusive`",
    .anchors = anchors,
    .exactness = GC_FIX_TOLERANCE,
    .rtol = 1e-5,
    .atol = 1e-6,
    .scope = GC_FIX_SCOPE_ANY,
    .apply = apply,
};
