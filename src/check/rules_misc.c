/* rules_misc.c — reductions, SOFTMAX, quantization / sparsity, LSTM, ONE_HOT, CUMSUM,
 * TOPK_V2, EMBEDDING_LOOKUP, ARG_MAX, and the classic parse-time checks every delegated
 * node goes through (gpu-delegate-rules.md §3.3 SOFTMAX/CUMSUM/ONE_HOT rows, §3.4 MEAN /
 * SUM / REDUCE_* rows, §3.5 DEQUANTIZE / QUANTIZE / DENSIFY / LSTM, §2.1 rank-0 values
 * and §2.4 per-channel activations [P]; §4.2-4.3 ML Drift rows: ARG_MAX, TOPK_V2,
 * EMBEDDING_LOOKUP, DEQUANTIZE "Unsupported dims", ONE_HOT own checks).
 */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

/* ---- reductions ------------------------------------------------------------------------ */

int gc_ml_reduce(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    const gc_tensor *x = gc_in(c, 0), *a = gc_in(c, 1);
    if (!x || !a) GC_REJECT(h, "inputs.count", -1, "input #1 tensor is not available");
    for (int64_t i = 0; i < gc_numel_dims(a->shape, a->rank); i++) {
        int64_t v;
        if (gc_const_int(c, 1, i, &v)) GC_TRY(gc_pre_axis(h, x, v));
    }
    if (!gc_opt_i(c, GC_BO_ReducerOptions, GC_O_ReducerOptions_keep_dims))
        GC_TRY(gc_pre_tensor_shape(h, gc_out(c, 0), gc_out_idx(c, 0)));
    return gc_pre_outputs(c, h);
}

/* ---- SOFTMAX ----------------------------------------------------------------------------- */

int gc_ml_softmax(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 4, .num_outputs = 1, .rt_inputs = GC_N(1),
                                      .const_inputs = GC_N(0))));
    GC_TRY(gc_pre_read_value(c, h, 0));
    if (gc_opt_f(c, GC_BO_SoftmaxOptions, GC_O_SoftmaxOptions_beta) != 1.0)
        GC_REJECT(h, "softmax.beta", -1, "Softmax.beta != 1 is not supported.");
    return 0;
}

int gc_cl_softmax(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- QUANTIZE / DEQUANTIZE / DENSIFY ------------------------------------------------------- */

static bool has_quant_params(const gc_tensor *t) { return t && (gc_affine_quant(t) || gc_blockwise_quant(t)); }

int gc_ml_quantize(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    if (!has_quant_params(gc_out(c, 0)))
        GC_REJECT(h, "quantize.no_params", gc_out_idx(c, 0), "Encountered Quantize output with no quant params");
    return gc_pre_outputs(c, h);
}

int gc_cl_quantize(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_quantize(const gc_rctx *c, gc_hit *h) {
    if (!has_quant_params(gc_out(c, 0)))
        GC_REJECT(h, "quantize.no_params", gc_out_idx(c, 0), "Encountered Quantize output with no quant params");
    return 0;
}

int gc_ml_dequantize(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 3)));
    const gc_tensor *x = gc_in(c, 0);
    if (!x) GC_REJECT(h, "inputs.count", -1, "input #0 tensor is not available");
    if (gc_n_runtime_inputs(c) == 0) {
        if (x->rank < 2 || x->rank > 4)
            GC_REJECT(h, "dequantize.const_rank", gc_in_idx(c, 0), "Unsupported dims for tensor: %s Got dims:%d",
                      x->name, x->rank);
        return gc_pre_read_tensor(c, h, 0, x->rank == 2 ? GC_SH_HW : x->rank == 3 ? GC_SH_HWC : GC_SH_BHWC, true);
    }
    if (!x->quant || !(gc_affine_quant(x) || gc_blockwise_quant(x)))
        GC_REJECT(h, "dequantize.densify", gc_in_idx(c, 0), "Dequantize for Densify is not supported");
    if (gc_affine_quant(x) && x->quant->n_scale > 1)
        GC_REJECT(h, "quant.per_channel_activation", gc_in_idx(c, 0), "Unsupported quantization scale size");
    return gc_pre_read_value(c, h, 0);
}

int gc_cl_dequantize(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 3));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_dequantize(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *x = gc_in(c, 0);
    if (x && !gc_is_const_in(c, 0) && !has_quant_params(x))
        GC_REJECT(h, "dequantize.no_params", gc_in_idx(c, 0), "Encountered Dequantize input with no quant params");
    return 0;
}

int gc_cl_densify(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_densify(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *x = gc_in(c, 0);
    if (!x || !x->sparsity) GC_REJECT(h, "densify.not_sparse", gc_in_idx(c, 0), "Input tensor must be sparse.");
    return 0;
}

/* ---- LSTM ---------------------------------------------------------------------------------- */

/* ML Drift CheckBuildLstmGate on the full kernel: every gate reads its layer-norm weights
 * unconditionally, so a full LSTM without layer normalisation fails the index check. */
static int lstm_tensor_id(const gc_rctx *c, gc_hit *h, int input) {
    if (input < 0 || input >= c->n_in) GC_REJECT(h, "lstm.tensor", -1, "Invalid input tensor index: %d", input);
    if (c->in[input] < 0) GC_REJECT(h, "lstm.tensor", -1, "Invalid Tensor index: %d", c->in[input]);
    return 0;
}

static int lstm_fc_weights(const gc_rctx *c, gc_hit *h, int input) {
    GC_TRY(lstm_tensor_id(c, h, input));
    const gc_tensor *w = gc_in(c, input);
    if (w && w->type == GC_T_INT8 && gc_affine_quant(w) && w->quant->n_scale == 1) return 0;
    return gc_pre_read_tensor(c, h, input, GC_SH_HW, true);
}

static int lstm_gate(const gc_rctx *c, gc_hit *h, int in_w, int rec_w, int cell_w, int bias, int norm,
                     int64_t act, bool peephole) {
    GC_TRY(lstm_fc_weights(c, h, in_w));
    GC_TRY(lstm_fc_weights(c, h, rec_w));
    if (peephole) { GC_TRY(lstm_tensor_id(c, h, cell_w)); GC_TRY(gc_pre_read_tensor(c, h, cell_w, GC_SH_LINEAR, true)); }
    GC_TRY(lstm_tensor_id(c, h, norm));
    GC_TRY(gc_pre_read_tensor(c, h, norm, GC_SH_LINEAR, true));
    GC_TRY(lstm_tensor_id(c, h, bias));
    GC_TRY(gc_pre_read_tensor(c, h, bias, GC_SH_LINEAR, true));
    return gc_pre_fuse_act(c, h, act, false);
}

int gc_ml_lstm(const gc_rctx *c, gc_hit *h) {
    const int B = GC_BO_LSTMOptions;
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 4)));
    int64_t act = gc_opt_i(c, B, GC_O_LSTMOptions_fused_activation_function);
    if (gc_opt_i(c, B, GC_O_LSTMOptions_kernel_type) == 1) {   /* BASIC */
        if (c->n_in != 5) GC_REJECT(h, "lstm.inputs", -1, "LSTM should have 5 input tensors");
        if (c->op->n_outputs != 4) GC_REJECT(h, "lstm.outputs", -1, "LSTM should have 4 output tensors");
        if (act != 4) GC_REJECT(h, "lstm.activation", -1, "Only TANH activation is supported.");
        if (gc_opt_f(c, B, GC_O_LSTMOptions_cell_clip) != 0.0) GC_REJECT(h, "lstm.cell_clip", -1, "cell_clip is not supported.");
        if (gc_opt_f(c, B, GC_O_LSTMOptions_proj_clip) != 0.0) GC_REJECT(h, "lstm.proj_clip", -1, "proj_clip is not supported.");
        GC_TRY(gc_pre_read_tensor(c, h, 2, GC_SH_HW, true));
        GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, 2)));
        GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, 3)));
        GC_TRY(gc_pre_read_value(c, h, 0));
        GC_TRY(gc_pre_read_value(c, h, 1));
        GC_TRY(gc_pre_read_value(c, h, 4));
        GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, 0)));
        return gc_pre_read_value_t(c, h, gc_out_idx(c, 1));
    }
    bool cifg = gc_in_idx(c, 1) < 0, peephole = gc_in_idx(c, 10) >= 0;
    GC_TRY(gc_pre_read_value(c, h, 19));
    GC_TRY(gc_pre_read_value(c, h, 18));
    GC_TRY(lstm_gate(c, h, 2, 6, 10, 13, 21, 6, peephole));
    GC_TRY(lstm_gate(c, h, 2, 6, 10, 13, 21, 6, peephole));
    if (!cifg) GC_TRY(lstm_gate(c, h, 1, 5, 9, 12, 20, 6, peephole));
    GC_TRY(lstm_gate(c, h, 3, 7, -1, 14, 22, act, false));
    GC_TRY(lstm_gate(c, h, 4, 8, 11, 15, 23, 6, peephole));
    GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, 0)));
    if (act != 6 && act != 4) GC_REJECT(h, "lstm.activation", -1, "Only sigmoid or tanh activation is supported.");
    return 0;
}

int gc_cl_lstm(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 4));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_lstm(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *x = gc_in(c, 0);
    if (gc_opt_i(c, GC_BO_LSTMOptions, GC_O_LSTMOptions_kernel_type) == 0 && x && x->rank > 0 && x->shape[0] != 1)
        GC_REJECT(h, "lstm.batch", gc_in_idx(c, 0), "Batched execution is not supported for LSTM");
    return 0;
}

/* ---- ONE_HOT / CUMSUM / TOPK_V2 / EMBEDDING_LOOKUP / ARG_MAX ------------------------------ */

int gc_ml_one_hot(const gc_rctx *c, gc_hit *h) {
    /* the source snapshot skips compat here (check_gpu_compatibility = false), but the
     * shipped accelerator answers with compat's ONE_HOT message (rule-model run on the
     * H200, LiteRT.js 2.5.3): follow the binary */
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 1, .min_inputs = 4, .num_outputs = 1)));
    const gc_tensor *ix = gc_in(c, 0);
    if (!ix) GC_REJECT(h, "inputs.count", -1, "input #0 tensor is not available");
    int64_t axis = gc_opt_i(c, GC_BO_OneHotOptions, GC_O_OneHotOptions_axis);
    if (axis != -1 && (ix->rank == 0 || axis != ix->shape[ix->rank - 1]))
        GC_REJECT(h, "one_hot.axis", -1, "OneHot axis must be -1 or the last dimension.");
    if (ix->rank >= 4 && ix->shape[3] != 1)
        GC_REJECT(h, "one_hot.indices_channels", gc_in_idx(c, 0), "OneHot indices channel dimension must be 1.");
    return gc_pre_read_value(c, h, 0);
}

int gc_cl_one_hot(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_ml_cumsum(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 1)));
    return gc_pre_read_value(c, h, 0);
}

int gc_cl_cumsum(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_ml_topk(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    const gc_tensor *k = gc_in(c, 1);
    if (!k) GC_REJECT(h, "inputs.count", -1, "input #1 tensor is not available");
    if (!gc_is_const_in(c, 1)) GC_REJECT(h, "topk.runtime_k", gc_in_idx(c, 1), "TopK k must be constant tensor.");
    if (gc_numel_dims(k->shape, k->rank) != 1) GC_REJECT(h, "topk.k_shape", gc_in_idx(c, 1), "TopK k must be scalar.");
    if (c->op->n_outputs != 2) GC_REJECT(h, "topk.outputs", -1, "TopK requires 2 output tensors");
    return gc_pre_outputs(c, h);
}

int gc_ml_embedding_lookup(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *w = gc_in(c, 1);
    if (!w) GC_REJECT(h, "inputs.count", -1, "input #1 tensor is not available");
    if (!w->quant && w->type != GC_T_FLOAT32)
        GC_REJECT(h, "embedding.params", gc_in_idx(c, 1), "EMBEDDING_LOOKUP: Empty quantization params.");
    if (w->type == GC_T_INT8 || w->type == GC_T_INT4 || w->type == GC_T_INT2) {
        if (!w->quant) GC_REJECT(h, "embedding.params", gc_in_idx(c, 1), "EMBEDDING_LOOKUP: Empty quantization params.");
        GC_TRY(gc_pre_read_quantized(c, h, gc_in_idx(c, 1)));
    } else if (w->type != GC_T_FLOAT32) {
        GC_REJECT(h, "embedding.table_type", gc_in_idx(c, 1), "EMBEDDING_LOOKUP: Unsupported weights type.");
    }
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    return gc_pre_read_value_t(c, h, gc_out_idx(c, 0));
}

int gc_ml_arg_max(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.num_outputs = 1, .rt_inputs = GC_N(1), .const_inputs = GC_N(1),
                                      .no_compat = true)));
    GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_SCALAR, false));
    const gc_tensor *x = gc_in(c, 0), *o = gc_out(c, 0);
    int64_t axis = 0;
    gc_const_int(c, 1, 0, &axis);
    if (!x || !o) GC_REJECT(h, "inputs.count", -1, "input #0 tensor is not available");
    GC_TRY(gc_pre_axis(h, x, axis));
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_pre_tensor_shape(h, x, gc_in_idx(c, 0)));
    return gc_pre_tensor_shape(h, o, gc_out_idx(c, 0));
}

/* ---- classic parse-time checks shared by every delegated node ------------------------------- */

static int value_checks(const gc_rctx *c, gc_hit *h, int32_t t) {
    const gc_tensor *x = gc_tensor_at(c, t);
    if (!x || gc_is_const_t(c, t)) return 0;
    if (x->rank == 0)
        GC_REJECT(h, "rank0", t, "Tensor \"%s\" has bad input dims size: 0.", x->name);
    if ((x->type == GC_T_INT8 || x->type == GC_T_UINT8) && gc_affine_quant(x) && x->quant->n_scale > 1)
        GC_REJECT(h, "quant.per_channel_activation", t, "Non-constant per-channel quantized tensor: %s", x->name);
    return 0;
}

int gc_clp_common(const gc_rctx *c, gc_hit *h) {
    for (int i = 0; i < c->n_in; i++) GC_TRY(value_checks(c, h, gc_in_idx(c, i)));
    for (int i = 0; i < c->op->n_outputs; i++) GC_TRY(value_checks(c, h, gc_out_idx(c, i)));
    return 0;
}
