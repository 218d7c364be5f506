/* fc_runtime_bmm.c — pass fc_runtime_bmm [fix.fc.runtime_bmm]
 *
 * Rewrite:      FULLY_CONNECTED(x, W, b?) with W a run-time tensor [N, K] (not a constant),
 *               fused activation act, float32  ->
 *                   x2 = RESHAPE(x) to [M, K]      (M = numel(x) / K; skipped when x is [M, K])
 *                   Wt = TRANSPOSE(W) to [K, N]
 *                   z  = BATCH_MATMUL(x2, Wt)      [M, N], no adj flags
 *                   y2 = ADD(z, b or zeros [N]) with act fused
 *                   y  = RESHAPE(y2) to the FC's output shape (skipped when it is [M, N]).
 *               Measured on the H200 (both runtimes, fp32 and fp16): FULLY_CONNECTED with
 *               run-time weights computes wrong numbers (fact numerics.fc_runtime_weights,
 *               corr 0.91-0.94; sweep fc_r2_3x16_keep0_runtime_w, fc_r3_2x3x16_keep1_runtime_w):
 *               a LoRA-style or attention-style product of two activations exported as FC.
 * Precondition: float32 without quantization; static shapes; W of rank 2; a bias of [N]
 *               (constant or not) or none; act one ADD can fuse (NONE, RELU, RELU_N1_TO_1, RELU6).
 * Exactness:    bit-exact: the FC sums x[m][k] W[n][k] over k = 0..K-1 from +0 and then adds
 *               the bias (+0 when absent) before the clamp, which is BATCH_MATMUL's sum (same
 *               order, from +0) followed by ADD's one addition and the same clamp.
 */
#include "fix_int.h"

#include <stdlib.h>

static const int32_t anchors[] = { GC_OP_FULLY_CONNECTED, -1 };

static bool same_shape(const gc_fix_tinfo *t, int rank, const int32_t *s) {
    if (t->rank != rank) return false;
    for (int d = 0; d < rank; d++) if (t->shape[d] != s[d]) return false;
    return true;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    gc_fix_tinfo x, w, y, b;
    int32_t bi = fx_in(c, op, 2);
    if (!fx_info(c, fx_in(c, op, 0), &x) || !fx_info(c, fx_in(c, op, 1), &w) || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "missing input/output or rank > %d", GC_FIX_MAXR);
    if (w.is_const) return fx_pass_over(c);                       /* constant weights: nothing measured */
    if (x.type != GC_T_FLOAT32 || w.type != GC_T_FLOAT32 || y.type != GC_T_FLOAT32 ||
        fx_quantized(x.quant) || fx_quantized(w.quant) || fx_quantized(y.quant))
        return fx_decline(c, "not float32");
    if (!x.is_static || !w.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    if (w.rank != 2) return fx_decline(c, "weights of rank %d", w.rank);
    const int32_t N = w.shape[0], K = w.shape[1];
    int64_t nx = 1;
    for (int d = 0; d < x.rank; d++) nx *= x.shape[d];
    if (K <= 0 || N <= 0 || nx % K || nx / K > INT32_MAX) return fx_decline(c, "input of %lld values for depth %d", (long long)nx, K);
    const int32_t M = (int32_t)(nx / K);
    if (bi >= 0) {
        if (!fx_info(c, bi, &b) || b.rank != 1 || b.shape[0] != N || b.type != GC_T_FLOAT32 || fx_quantized(b.quant))
            return fx_decline(c, "bias is not float32 [%d]", N);
    }
    int64_t act = gc_opt_int(&o->opt, GC_O_FullyConnectedOptions_fused_activation_function);
    if (act < 0 || act > 3) return fx_decline(c, "fused activation %lld (ADD fuses NONE, RELU, RELU_N1_TO_1, RELU6)", (long long)act);
    fx_remove_op(c, op);
    int32_t at = op;
    const int32_t s_mk[2] = { M, K }, s_kn[2] = { K, N }, s_mn[2] = { M, N }, perm[2] = { 1, 0 };
    int32_t x2 = x.index;
    if (!same_shape(&x, 2, s_mk)) {
        if ((x2 = fx_new_tensor(c, y.name, "x2d", GC_T_FLOAT32, 2, s_mk, NULL)) < 0) return -1;
        if (fx_add_reshape(c, at++, x.index, x2) < 0) return -1;
    }
    int32_t wt = fx_new_tensor(c, y.name, "w_t", GC_T_FLOAT32, 2, s_kn, NULL);
    if (wt < 0 || fx_add_transpose(c, at++, w.index, wt, fx_t(c, wt)->name, 2, perm) < 0) return -1;
    int32_t z = fx_new_tensor(c, y.name, "matmul", GC_T_FLOAT32, 2, s_mn, NULL);
    if (z < 0) return -1;
    int32_t in2[2] = { x2, wt };
    if (fx_add_op(c, at++, GC_OP_BATCH_MATMUL, fx_version_for(GC_OP_BATCH_MATMUL, GC_T_FLOAT32, 2), 2, in2, 1, &z) < 0) return -1;
    if (bi < 0) {
        float *zeros = calloc((size_t)N, sizeof *zeros);
        if (!zeros) return -1;
        const int32_t sn[1] = { N };
        bi = fx_new_const(c, y.name, "zero_bias", GC_T_FLOAT32, 1, sn, zeros, (uint64_t)N * sizeof *zeros, NULL);
        free(zeros);
        if (bi < 0) return -1;
    }
    const bool direct = same_shape(&y, 2, s_mn);
    int32_t y2 = direct ? y.index : fx_new_tensor(c, y.name, "biased", GC_T_FLOAT32, 2, s_mn, NULL);
    if (y2 < 0) return -1;
    int32_t ina[2] = { z, bi };
    int32_t k = fx_add_op(c, at++, GC_OP_ADD, fx_version_for(GC_OP_ADD, GC_T_FLOAT32, 2), 2, ina, 1, &y2);
    if (k < 0) return -1;
    if (act) gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_AddOptions_fused_activation_function, act);
    if (!direct && fx_add_reshape(c, at, y2, y.index) < 0) return -1;
    fx_note(c, "TRANSPOSE of the weights, BATCH_MATMUL [%d, %d] x [%d, %d], ADD of the bias%s", M, K, K, N,
            act ? " with the activation" : "");
    return 1;
}

const gc_fix_pass gc_fix_fc_runtime_bmm = {
    .id = "fc_runtime_bmm",
    .fix_id = "fix.fc.runtime_bmm",
    .summary = "FULLY_CONNECTED with run-time weights -> TRANSPOSE + BATCH_MATMUL + ADD",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
