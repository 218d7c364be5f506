/* pad_batch.c — pass pad_batch [fix.pad.batch]
 *
 * Rewrite:      PAD / PADV2 of a rank-4 x [1, H, W, C] with padding (p0, p1) on axis 0  ->
 *                   y1 = the same op with axis 0's padding set to 0   [1, H', W', C']
 *                        (skipped when no other axis is padded)
 *                   r1 = RESHAPE(y1) to [1, 1, H', W' * C']
 *                   r2 = the same op padding axis 1 by (p0, p1)       [1, n, H', W' * C']
 *                   y  = RESHAPE(r2) to [n, H', W', C']
 *               A batch of 1 lies in memory as one more axis of size 1, so padding it is
 *               padding that axis. Measured on the H200 (both runtimes, fp32 and fp16): PAD
 *               along the batch axis computes wrong numbers (fact numerics.pad_batch, corr
 *               0.50; sweep pad_r4_batch), PAD of rank-4 H / W / C right.
 * Precondition: rank 4, input batch 1, constant [4, 2] paddings, static shapes; PADV2's
 *               value tensor is reused as it is.
 * Exactness:    bit-exact (the same elements in the same places, the padded ones the same
 *               value).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_PAD, GC_OP_PADV2, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    int32_t code = fx_code(c, op);
    gc_fix_tinfo x, y;
    if (!fx_info(c, fx_in(c, op, 0), &x) || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "missing input/output or rank > %d", GC_FIX_MAXR);
    if (x.rank != 4 || x.shape[0] != 1) return fx_pass_over(c);
    if (!x.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    int64_t pv[8];
    if (fx_const_ints(c, fx_in(c, op, 1), pv, 8) != 8) return fx_decline(c, "paddings are not a constant [4, 2]");
    for (int i = 0; i < 8; i++) if (pv[i] < 0 || pv[i] > INT32_MAX) return fx_decline(c, "negative padding");
    if (pv[0] == 0 && pv[1] == 0) return fx_pass_over(c);
    bool others = false;
    for (int i = 2; i < 8; i++) others |= pv[i] != 0;
    const gc_op *old = fx_op(c, op);
    gc_options opt = old->opt;
    int32_t version = gc_op_code(c->m, old)->version;
    int32_t value = code == GC_OP_PADV2 ? fx_in(c, op, 2) : -1;
    const int32_t H = y.shape[1], W = y.shape[2], C = y.shape[3], n = y.shape[0];
    if ((int64_t)W * C > INT32_MAX) return fx_decline(c, "W x C too large");
    fx_remove_op(c, op);
    int32_t at = op, y1 = x.index;
    const int32_t s1[4] = { 1, H, W, C }, sr1[4] = { 1, 1, H, W * C }, sr2[4] = { 1, n, H, W * C }, p2sh[2] = { 4, 2 };
    if (others) {
        int32_t p1[8] = { 0, 0, (int32_t)pv[2], (int32_t)pv[3], (int32_t)pv[4], (int32_t)pv[5], (int32_t)pv[6], (int32_t)pv[7] };
        int32_t pt = fx_new_const(c, y.name, "pads_hwc", GC_T_INT32, 2, p2sh, p1, sizeof p1, NULL);
        if (pt < 0 || (y1 = fx_new_tensor(c, y.name, "padded_hwc", x.type, 4, s1, x.quant)) < 0) return -1;
        int32_t in[3] = { x.index, pt, value };
        int32_t k = fx_add_op(c, at++, code, version, value >= 0 ? 3 : 2, in, 1, &y1);
        if (k < 0) return -1;
        fx_op(c, k)->opt = opt;
    }
    int32_t r1 = fx_new_tensor(c, y.name, "batch_as_axis1", x.type, 4, sr1, x.quant);
    int32_t r2 = fx_new_tensor(c, y.name, "padded_axis1", x.type, 4, sr2, x.quant);
    int32_t pb[8] = { 0, 0, (int32_t)pv[0], (int32_t)pv[1], 0, 0, 0, 0 };
    int32_t pt2 = fx_new_const(c, y.name, "pads_batch", GC_T_INT32, 2, p2sh, pb, sizeof pb, NULL);
    if (r1 < 0 || r2 < 0 || pt2 < 0) return -1;
    if (fx_add_reshape(c, at++, y1, r1) < 0) return -1;
    int32_t in2[3] = { r1, pt2, value };
    int32_t k = fx_add_op(c, at++, code, version, value >= 0 ? 3 : 2, in2, 1, &r2);
    if (k < 0) return -1;
    fx_op(c, k)->opt = opt;
    if (fx_add_reshape(c, at, r2, y.index) < 0) return -1;
    fx_note(c, "%sthe batch padding (%lld, %lld) as axis 1 of [1, 1, %d, %d]", others ? "H / W / C padded first, " : "",
            (long long)pv[0], (long long)pv[1], H, W * C);
    return 1;
}

const gc_fix_pass gc_fix_pad_batch = {
    .id = "pad_batch",
    .fix_id = "fix.pad.batch",
    .summary = "PAD of a batch of 1 along the batch axis -> PAD of axis 1 between RESHAPEs",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
