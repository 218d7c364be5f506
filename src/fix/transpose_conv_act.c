/* transpose_conv_act.c — pass transpose_conv_act [fix.transpose_conv.unfuse_activation]
 *
 * Rewrite:      TRANSPOSE_CONV with a fused activation (op version 4)  ->
 *                   TRANSPOSE_CONV without it (version 3 with a bias input, else 1)
 *                   -> RELU / RELU_N1_TO_1 / RELU6 / TANH
 *               The seed's "TRANSPOSE_CONV rejected: version skew, not a missing op":
 *               both delegates cap TRANSPOSE_CONV at version 3 ("Max version supported:
 *               3. Requested version 4."), and version 4 means exactly "has a fused
 *               activation".
 * Precondition: FLOAT32 output (the activation of a quantized op is a clamp of the
 *               requantized result, not a separate float op); activation RELU,
 *               RELU_N1_TO_1, RELU6 or TANH.
 * Exactness:    bit-exact (the activation is applied to the same fp32 values, after the
 *               bias, in both forms).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_TRANSPOSE_CONV, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *old = fx_op(c, op);
    int64_t act = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_fused_activation_function);
    int32_t act_code;
    switch (act) {
    case 1: act_code = GC_OP_RELU; break;
    case 2: act_code = GC_OP_RELU_N1_TO_1; break;
    case 3: act_code = GC_OP_RELU6; break;
    case 4: act_code = GC_OP_TANH; break;
    case 0: return fx_pass_over(c);   /* refused for another reason */
    default: return fx_decline(c, "fused activation %lld has no separate op", (long long)act);
    }
    gc_fix_tinfo y;
    if (!fx_info(c, fx_out(c, op, 0), &y)) return fx_decline(c, "missing output");
    if (y.type != GC_T_FLOAT32) return fx_decline(c, "%s output (FLOAT32 only)", gc_type_name(y.type));
    int n_in = old->n_inputs;
    if (n_in < 3 || n_in > 4) return fx_decline(c, "%d inputs", n_in);
    int32_t in[4];
    for (int i = 0; i < n_in; i++) in[i] = old->inputs[i];
    bool bias = n_in == 4 && in[3] >= 0;
    int64_t padding = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_padding);
    int64_t sw = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_stride_w);
    int64_t sh = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_stride_h);
    int64_t qbt = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_quantized_bias_type);
    fx_remove_op(c, op);
    int32_t pre = fx_new_tensor(c, y.name, "pre_activation", y.type, y.rank, y.shape, NULL);
    if (pre < 0) return -1;
    int32_t k = fx_add_op(c, op, GC_OP_TRANSPOSE_CONV, bias ? 3 : 1, n_in, in, 1, &pre);
    if (k < 0) return -1;
    gc_options *o = &fx_op(c, k)->opt;
    gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_padding, padding);
    gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_stride_w, sw);
    gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_stride_h, sh);
    if (qbt) gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_quantized_bias_type, qbt);
    if (fx_add_op(c, op + 1, act_code, 1, 1, &pre, 1, &y.index) < 0) return -1;
    fx_note(c, "TRANSPOSE_CONV v%d without activation, then %s", bias ? 3 : 1, gc_builtin_name(act_code));
    return 1;
}

const gc_fix_pass gc_fix_transpose_conv_act = {
    .id = "transpose_conv_act",
    .fix_id = "fix.transpose_conv.unfuse_activation",
    .summary = "TRANSPOSE_CONV v4 (fused activation) -> TRANSPOSE_CONV v3 + activation op",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
