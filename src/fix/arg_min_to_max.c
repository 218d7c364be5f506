/* arg_min_to_max.c — pass arg_min_to_max [fix.arg_min]
 *
 * Neither GPU delegate has ARG_MIN; ML Drift has ARG_MAX.
 * Rewrite:      ARG_MIN(x, axis)  ->  ARG_MAX(NEG(x), axis), same output type.
 * Precondition: x FLOAT32 or FLOAT16 (negating an integer overflows at its minimum);
 *               the axis a constant.
 * Exactness:    bit-exact: negation is exact, and a < b exactly when -a > -b for every
 *               pair of floats (NaN compares false both ways, -0 and +0 equal both
 *               ways), so the scan keeps the same first index TFLite's ArgMinMax keeps.
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_ARG_MIN, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo x, y;
    int32_t ax = fx_in(c, op, 1);
    if (!fx_info(c, fx_in(c, op, 0), &x) || !fx_info(c, fx_out(c, op, 0), &y) || ax < 0)
        return fx_decline(c, "ARG_MIN needs an input, an axis and an output of rank <= %d", GC_FIX_MAXR);
    if (x.type != GC_T_FLOAT32 && x.type != GC_T_FLOAT16)
        return fx_decline(c, "%s input: negating an integer is not exact at its minimum", gc_type_name(x.type));
    if (!fx_is_const(c, ax)) return fx_decline(c, "the axis is computed at run time");
    int64_t out_type = gc_opt_int(&fx_op(c, op)->opt, GC_O_ArgMinOptions_output_type);
    if (!out_type) out_type = y.type;
    fx_remove_op(c, op);
    int32_t neg = fx_new_tensor(c, y.name, "neg", x.type, x.rank, x.shape, NULL);
    if (neg < 0) return -1;
    if (fx_add_op(c, op, GC_OP_NEG, fx_version_for(GC_OP_NEG, x.type, x.rank), 1, &x.index, 1, &neg) < 0) return -1;
    int32_t in[2] = { neg, ax };
    int32_t k = fx_add_op(c, op + 1, GC_OP_ARG_MAX, fx_version_for(GC_OP_ARG_MAX, x.type, x.rank), 2, in, 1, &y.index);
    if (k < 0) return -1;
    gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_ArgMaxOptions_output_type, out_type);
    fx_note(c, "ARG_MAX(NEG(x)) with %s output", gc_type_name((int)out_type));
    return 1;
}

const gc_fix_pass gc_fix_arg_min_to_max = {
    .id = "arg_min_to_max",
    .fix_id = "fix.arg_min",
    .summary = "ARG_MIN(x) of a float tensor -> ARG_MAX(NEG(x))",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
