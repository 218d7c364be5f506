/* cumsum_canon.c — pass cumsum_canon [fix.cumsum.canon]
 *
 * Measured on an NVIDIA H200 (driver 580.159.04), ML Drift in both native libLiteRt 2.3.0
 * and LiteRT.js 2.5.3, fp32 and fp16, identical numbers on both (data/gpu/facts.tsv,
 * sweep family `cumsum`): the GPU's CUMSUM is right only for the plain form, inclusive
 * and forward along a non-negative axis >= 1 ([6,10] axis 1, [2,6,10] axes 1/2,
 * [1,3,5,8] axes 1/2/3, [1,1000] axis 1). Wrong, fully delegated: exclusive=1 (it returns
 * the inclusive sums, corr 0.75-0.99), reverse=1 (corr -0.35..-0.63), a negative axis
 * ([6,10] axis -1: corr 0.31) and axis 0 ([6,10] axis 0: corr 0.21).
 * Rewrite:      y = CUMSUM(x, axis, exclusive=e, reverse=r), x FLOAT32 of rank n  ->
 *               a = axis mod n; when a == 0 (n <= 3) x' = RESHAPE(x, [1] ++ shape), a' = 1;
 *               s  = CUMSUM(x', a')                 the plain form the GPU gets right
 *               e=1 r=0: y' = s - x'                sum_{j<i}  = sum_{j<=i} - x_i
 *               e=0 r=1: y' = (T - s) + x'          sum_{j>=i} = total - sum_{j<=i} + x_i
 *               e=1 r=1: y' = T - s                 sum_{j>i}  = total - sum_{j<=i}
 *               with T = SUM(x', [a'], keep_dims) broadcast along a'; y = RESHAPE(y')
 *               when x was reshaped.
 * Precondition: FLOAT32 x and y of one static shape, a constant axis, rank <= 4 (rank <= 3
 *               when the axis is 0); anything but the plain form.
 * Exactness:    within fp32 rounding: the forms above round twice or three times where the
 *               direct sum rounds once; the error is a few ulps of the running sum (e) or
 *               of the axis total T (r): atol 1e-5 covers totals up to ~40, rtol 1e-5.
 *               Applied wherever it holds (scope "any"): the GPU accepts the node, its
 *               numbers are what is wrong.
 */
#include "fix_int.h"

#include <string.h>

static const int32_t anchors[] = { GC_OP_CUMSUM, -1 };

static int32_t binary(gc_fix_ctx *c, int32_t at, int32_t code, int32_t a, int32_t b, int32_t out,
                      const gc_fix_tinfo *x) {
    int32_t in[2] = { a, b };
    return fx_add_op(c, at, code, fx_version_for(code, x->type, x->rank), 2, in, 1, &out);
}

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs != 2 || o->n_outputs != 1) return fx_pass_over(c);
    bool excl = gc_opt_int(&o->opt, GC_O_CumsumOptions_exclusive) != 0;
    bool rev = gc_opt_int(&o->opt, GC_O_CumsumOptions_reverse) != 0;
    gc_fix_tinfo x, y;
    int32_t axt = fx_in(c, op, 1);
    if (!fx_info(c, fx_in(c, op, 0), &x) || !fx_info(c, fx_out(c, op, 0), &y) || axt < 0)
        return fx_decline(c, "CUMSUM needs an input, an axis and an output of rank <= %d", GC_FIX_MAXR);
    int64_t axv;
    if (fx_const_ints(c, axt, &axv, 1) != 1) return fx_decline(c, "the axis is not one constant integer");
    if (x.type != GC_T_FLOAT32 || y.type != GC_T_FLOAT32)
        return fx_decline(c, "%s CUMSUM: the GPU runs float CUMSUM only", gc_type_name(x.type));
    if (x.rank < 1 || x.rank > 4) return fx_decline(c, "rank %d (the GPU's tensors are rank 1..4)", x.rank);
    if (axv < -x.rank || axv >= x.rank) return fx_decline(c, "axis %lld out of range", (long long)axv);
    int32_t a = (int32_t)(axv < 0 ? axv + x.rank : axv);
    if (!excl && !rev && axv >= 1) return fx_pass_over(c);   /* the plain form: right on the GPU */
    if (!x.is_static || x.rank != y.rank || memcmp(x.shape, y.shape, sizeof(int32_t) * (size_t)x.rank))
        return fx_decline(c, "input and output shapes differ or are dynamic");
    bool lift = a == 0;
    if (lift && x.rank > 3) return fx_decline(c, "axis 0 of a rank-4 tensor (lifting it would make rank 5)");

    fx_remove_op(c, op);
    int32_t at = op;
    /* x' and the shape the plain CUMSUM works on */
    gc_fix_tinfo w = x;
    int32_t xin = x.index;
    if (lift) {
        w.rank = x.rank + 1;
        w.shape[0] = 1;
        memcpy(w.shape + 1, x.shape, sizeof(int32_t) * (size_t)x.rank);
        xin = fx_new_tensor(c, y.name, "lifted", x.type, w.rank, w.shape, NULL);
        if (xin < 0 || fx_add_reshape(c, at, x.index, xin) < 0) return -1;
        at++;
        a = 1;
    }
    bool last_is_y = !lift;   /* the last op writes y itself unless a RESHAPE follows */
    int32_t yfinal = last_is_y ? y.index : fx_new_tensor(c, y.name, "result", x.type, w.rank, w.shape, NULL);
    if (yfinal < 0) return -1;
    bool plain = !excl && !rev;
    int32_t s = plain ? yfinal : fx_new_tensor(c, y.name, "inclusive", x.type, w.rank, w.shape, NULL);
    if (s < 0) return -1;
    int32_t one[1] = { 1 };   /* CUMSUM's axis: a scalar INT32 */
    int32_t axc = fx_new_const(c, y.name, "axis", GC_T_INT32, 0, one, &a, 4, NULL);
    if (axc < 0) return -1;
    int32_t in[2] = { xin, axc };
    if (fx_add_op(c, at++, GC_OP_CUMSUM, 1, 2, in, 1, &s) < 0) return -1;
    if (excl && !rev) {
        if (binary(c, at++, GC_OP_SUB, s, xin, yfinal, &w) < 0) return -1;
    } else if (rev) {
        int32_t tshape[GC_FIX_MAXR];
        memcpy(tshape, w.shape, sizeof(int32_t) * (size_t)w.rank);
        tshape[a] = 1;
        int32_t t = fx_new_tensor(c, y.name, "total", x.type, w.rank, tshape, NULL);
        int32_t axr = fx_const_i32(c, y.name, "sum_axis", 1, &a);
        if (t < 0 || axr < 0) return -1;
        int32_t sin[2] = { xin, axr };
        int32_t k = fx_add_op(c, at++, GC_OP_SUM, fx_version_for(GC_OP_SUM, x.type, w.rank), 2, sin, 1, &t);
        if (k < 0) return -1;
        gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_ReducerOptions_keep_dims, 1);
        if (excl) {
            if (binary(c, at++, GC_OP_SUB, t, s, yfinal, &w) < 0) return -1;
        } else {
            int32_t d = fx_new_tensor(c, y.name, "rest", x.type, w.rank, w.shape, NULL);
            if (d < 0 || binary(c, at++, GC_OP_SUB, t, s, d, &w) < 0) return -1;
            if (binary(c, at++, GC_OP_ADD, d, xin, yfinal, &w) < 0) return -1;
        }
    }
    if (lift && fx_add_reshape(c, at++, yfinal, y.index) < 0) return -1;
    fx_note(c, "%s%s%s", lift ? "axis 0 lifted to axis 1; " : axv < 0 ? "axis made non-negative; " : "",
            excl && rev ? "SUM - CUMSUM" : excl ? "CUMSUM - x" : rev ? "SUM - CUMSUM + x" : "CUMSUM",
            " (inclusive, forward)");
    return 1;
}

const gc_fix_pass gc_fix_cumsum_canon = {
    .id = "cumsum_canon",
    .fix_id = "fix.cumsum.canon",
    .summary = "CUMSUM exclusive / reverse / negative axis / axis 0 -> the plain inclusive forward CUMSUM the GPU "
               "computes right, with SUM/SUB/ADD",
    .anchors = anchors,
    .exactness = GC_FIX_TOLERANCE,
    .rtol = 1e-5,
    .atol = 1e-5,
    .scope = GC_FIX_SCOPE_ANY,
    .apply = apply,
};
