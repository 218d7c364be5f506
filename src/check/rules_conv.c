/* rules_conv.c — convolution, matmul and pooling families, custom ops and StableHLO
 * composites (gpu-delegate-rules.md §3.2 CONV_2D / DEPTHWISE_CONV_2D / TRANSPOSE_CONV /
 * FULLY_CONNECTED / BATCH_MATMUL rows with their [P] notes, §3.3 pooling, §2.8 custom
 * ops and composites, §4.3 ML Drift rows: runtime input 0 for CONV_2D, quantized FC/1x1
 * weights, BATCH_MATMUL constant RHS ranks, composite GroupNorm / LayerNorm / RmsNorm /
 * SDPA / RoPE checks).
 */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

/* ---- CONV_2D ---------------------------------------------------------------------------- */

int gc_ml_conv2d(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 6)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    if (gc_is_const_in(c, 0)) GC_REJECT(h, "conv_2d.const_input", gc_in_idx(c, 0), "input must be a runtime tensor");
    const gc_tensor *w = gc_in(c, 1);
    if (!w) GC_REJECT(h, "conv_2d.weights", -1, "input #1 tensor is not available");
    if (w->rank == 4 && w->shape[1] == 1 && w->shape[2] == 1 && gc_affine_quant(w) &&
        (w->type == GC_T_INT4 || w->type == GC_T_INT8))
        GC_TRY(gc_pre_read_quantized(c, h, gc_in_idx(c, 1)));
    if (gc_n_runtime_inputs(c) == 2) GC_TRY(gc_pre_read_value(c, h, 1));
    const gc_tensor *b = gc_in(c, 2);
    if (b && b->is_variable) GC_TRY(gc_pre_read_value(c, h, 2));
    return gc_pre_fuse_act(c, h, gc_opt_i(c, GC_BO_Conv2DOptions, GC_O_Conv2DOptions_fused_activation_function),
                           false);
}

int gc_cl_conv2d(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 6));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_conv2d(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *x = gc_in(c, 0), *w = gc_in(c, 1);
    if (!x || !w) return 0;
    char d[64];
    if (gc_is_const_in(c, 1)) {
        if (w->rank != 4) {
            gc_dims_str(w, d, sizeof d, true);
            GC_REJECT(h, "conv_2d.weights_rank", gc_in_idx(c, 1), "Expected a 4D tensor of shape OxHxWxI but got %s", d);
        }
    } else if (w->rank == 4 && x->rank == 4 && w->shape[3] != x->shape[3]) {
        GC_REJECT(h, "conv_2d.runtime_grouped", gc_in_idx(c, 1),
                  "No support of CONVOLUTION_2D with runtime grouped weights.");
    }
    return 0;
}

/* ---- DEPTHWISE_CONV_2D ------------------------------------------------------------------- */

int gc_ml_dwconv(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 6)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    int rt = gc_n_runtime_inputs(c);
    if (rt == 2) GC_TRY(gc_pre_read_value(c, h, 1));
    else if (rt == 1) GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_OHWI, true));
    else GC_REJECT(h, "dwconv.inputs", -1, "Unsupported Depthwise Convolution case.");
    return gc_pre_fuse_act(
        c, h, gc_opt_i(c, GC_BO_DepthwiseConv2DOptions, GC_O_DepthwiseConv2DOptions_fused_activation_function),
        false);
}

int gc_cl_dwconv(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 6));
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    /* runtime weights with a channel multiplier are not really handled (§3.2 note) */
    if (!gc_is_const_in(c, 1) &&
        gc_opt_i(c, GC_BO_DepthwiseConv2DOptions, GC_O_DepthwiseConv2DOptions_depth_multiplier) != 1)
        GC_REJECT(h, "dwconv.runtime_multiplier", gc_in_idx(c, 1),
                  "No support of depthwise runtime weights with channel multiplier != 1");
    return 0;
}

/* ---- TRANSPOSE_CONV ----------------------------------------------------------------------- */

int gc_ml_transpose_conv(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 3));
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 2));
    GC_TRY(gc_pre_outputs(c, h));
    if (gc_n_runtime_inputs(c) == 2) return gc_pre_read_value(c, h, 1);
    return gc_pre_read_tensor(c, h, 1, GC_SH_OHWI, true);
}

int gc_cl_transpose_conv(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 3));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- FULLY_CONNECTED ----------------------------------------------------------------------- */

int gc_ml_fc(const gc_rctx *c, gc_hit *h) {
    const int B = GC_BO_FullyConnectedOptions;
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 14)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    const gc_tensor *w = gc_in(c, 1);
    if (!w) GC_REJECT(h, "fc.weights", -1, "input #1 tensor is not available");
    if (gc_affine_quant(w)) GC_TRY(gc_pre_read_quantized(c, h, gc_in_idx(c, 1)));
    else if (!gc_blockwise_quant(w)) GC_TRY(gc_pre_read_value(c, h, 1));
    const gc_tensor *b = gc_in(c, 2);
    if (b && b->is_variable) GC_TRY(gc_pre_read_value(c, h, 2));
    GC_TRY(gc_pre_outputs(c, h));
    if (gc_opt_i(c, B, GC_O_FullyConnectedOptions_weights_format) != 0)
        GC_REJECT(h, "fc.weights_format", -1, "Unsupported fully connected weights format.");
    return gc_pre_fuse_act(c, h, gc_opt_i(c, B, GC_O_FullyConnectedOptions_fused_activation_function), false);
}

int gc_cl_fc(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 9));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_fc(const gc_rctx *c, gc_hit *h) {
    if (gc_opt_i(c, GC_BO_FullyConnectedOptions, GC_O_FullyConnectedOptions_fused_activation_function) == 5)
        GC_REJECT(h, "activation", -1, "Unsupported fused activation: 5");
    const gc_tensor *x = gc_in(c, 0), *w = gc_in(c, 1);
    if (x && w && gc_is_const_in(c, 1) && w->rank == 2 && x->rank > 0 && x->shape[x->rank - 1] != w->shape[1])
        GC_REJECT(h, "fc.input_channels", gc_in_idx(c, 0), "Amount of input channels should match weights width");
    return 0;
}

/* ---- BATCH_MATMUL ---------------------------------------------------------------------------- */

int gc_ml_bmm(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.num_outputs = 1)));
    int rt = gc_n_runtime_inputs(c);
    if (rt == 1) {
        GC_TRY(gc_pre_read_value(c, h, 0));
        const gc_tensor *b = gc_in(c, 1);
        if (!b) GC_REJECT(h, "bmm.inputs", -1, "input #1 tensor is not available");
        if (!gc_is_const_in(c, 1))
            GC_REJECT(h, "bmm.const_lhs", gc_in_idx(c, 0), "Not supported batched mat mul case: non-constant tensor");
        if (b->rank == 2) GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_HW, true));
        else if (b->rank == 3 || b->rank == 4) GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_BHWC, true));
        else GC_REJECT(h, "bmm.rhs_rank", gc_in_idx(c, 1),
                       "Not supported batched mat mul case: second input has unsupported rank");
    } else if (rt == 2) {
        GC_TRY(gc_pre_read_value(c, h, 0));
        GC_TRY(gc_pre_read_value(c, h, 1));
    } else {
        GC_REJECT(h, "bmm.const_inputs", -1, "Not supported batched mat mul case: too many inputs");
    }
    return gc_pre_outputs(c, h);
}

int gc_cl_bmm(const gc_rctx *c, gc_hit *h) { return gc_compat(c, h, GC_BCAST_STANDARD); }

int gc_clp_bmm(const gc_rctx *c, gc_hit *h) {
    if (gc_n_runtime_inputs(c) == 1) {
        const gc_tensor *b = gc_in(c, 1);
        if (!b || !gc_is_const_in(c, 1) || b->rank != 2)
            GC_REJECT(h, "bmm.rhs", gc_in_idx(c, 1), "Not supported batched mat mul case");
    }
    return 0;
}

/* ---- pooling (builtin and MaxPoolingWithArgmax2D) --------------------------------------------- */

int gc_ml_pool(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 2)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    int32_t act;
    if (c->custom) {
        if (!gc_custom_i32(c, 5, &act)) GC_REJECT(h, "custom.params", -1, "Missing TfLitePoolParams.");
    } else {
        act = (int32_t)gc_opt_i(c, GC_BO_Pool2DOptions, GC_O_Pool2DOptions_fused_activation_function);
    }
    return gc_pre_fuse_act(c, h, act, true);
}

int gc_cl_pool(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- custom ops -------------------------------------------------------------------------------- */


/* optional Linear float parameter at `input` whose length must equal channels */
static int linear_param(const gc_rctx *c, gc_hit *h, int input, int32_t channels, bool allow_empty,
                        const char *mismatch) {
    if (input >= c->n_in) return 0;
    GC_TRY(gc_pre_read_tensor(c, h, input, GC_SH_LINEAR, true));
    const gc_tensor *p = gc_in(c, input);
    int64_t n = gc_numel_dims(p->shape, p->rank);
    if (allow_empty && n == 0) return 0;
    if (n != channels) GC_REJECT(h, "norm.param_channels", gc_in_idx(c, input), "%s", mismatch);
    return 0;
}

static int norm_custom(const gc_rctx *c, gc_hit *h, bool has_bias) {
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_pre_outputs(c, h));
    const gc_tensor *x = gc_in(c, 0);
    int32_t s[4];
    gc_bhwc(x, s);
    GC_TRY(linear_param(c, h, 1, s[3], false, "Scale tensor channels don't match input tensor channels."));
    if (has_bias) GC_TRY(linear_param(c, h, 2, s[3], true, "Bias tensor channels don't match input tensor channels."));
    return 0;
}

static int rope(const gc_rctx *c, gc_hit *h) {
    int n = c->n_in, no = c->op->n_outputs;
    if (n == 2) {
        if (no != 1) GC_REJECT(h, "rope.outputs", -1, "Invalid number of outputs: %d, while expected 1.", no);
    } else if (n == 3) {
        if (no != 2) GC_REJECT(h, "rope.outputs", -1, "Invalid number of outputs: %d, while expected 2.", no);
    } else {
        GC_REJECT(h, "rope.inputs", -1, "Invalid number of inputs: %d, while expected 2 or 3.", n);
    }
    const gc_tensor *src = gc_in(c, 0), *pos = gc_in(c, n == 2 ? 1 : 2);
    if (!src || !pos) GC_REJECT(h, "rope.inputs", -1, "input #%d tensor is not available", src ? (n == 2 ? 1 : 2) : 0);
    int32_t a[4], b[4];
    gc_bhwc(src, a); gc_bhwc(pos, b);
    if (a[2] != b[2])
        GC_REJECT(h, "rope.width", -1, "src and pos must have the same width for PositionalEmbedding.");
    for (int k = 0; k < n; k++) GC_TRY(gc_pre_runtime_or_const(c, h, k));
    return gc_pre_outputs(c, h);
}

static bool composite_factory_name(const char *n) {
    return !strcmp(n, "odml.cache_update") || !strcmp(n, "odml.runtime_bmm") || !strcmp(n, "moe") ||
           !strcmp(n, "odml.rope") || !strcmp(n, "odml.sdpa_transposed");
}

int gc_ml_custom(const gc_rctx *c, gc_hit *h) {
    const char *n = c->custom ? c->custom : "";
    if (!strcmp(n, "custom_call.GroupNorm") || !strcmp(n, "custom_call.LayerNorm")) return norm_custom(c, h, true);
    if (!strcmp(n, "custom_call.RmsNorm")) return norm_custom(c, h, false);
    if (!strcmp(n, "custom_call.PixelShuffle")) {
        GC_TRY(gc_pre_read_value(c, h, 0));
        return gc_pre_outputs(c, h);
    }
    if (!strcmp(n, "custom_call.absolute_positional_embedding")) {
        if (c->n_in != 2) GC_REJECT(h, "posemb.inputs", -1, "Invalid number of inputs: %d, while expected 2.", c->n_in);
        if (c->op->n_outputs != 1)
            GC_REJECT(h, "posemb.outputs", -1, "Invalid number of outputs: %d, while expected 1.", c->op->n_outputs);
        int32_t a[4], b[4];
        gc_bhwc(gc_in(c, 0), a); gc_bhwc(gc_in(c, 1), b);
        if (a[2] != b[2])
            GC_REJECT(h, "posemb.width", -1, "src and pos must have the same width for PositionalEmbedding.");
        GC_TRY(gc_pre_read_value(c, h, 0));
        GC_TRY(gc_pre_read_value(c, h, 1));
        return gc_pre_outputs(c, h);
    }
    if (!strcmp(n, "custom_call.rotary_positional_embedding")) return rope(c, h);
    if (!strcmp(n, "Convolution2DTransposeBias")) {
        GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
        GC_TRY(gc_pre_read_value(c, h, 0));
        GC_TRY(gc_pre_outputs(c, h));
        return gc_pre_read_tensor(c, h, 1, GC_SH_OHWI, true);
    }
    if (!strcmp(n, "MaxPoolingWithArgmax2D")) return gc_ml_pool(c, h);
    if (!strcmp(n, "MaxUnpooling2D")) {
        GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
        GC_TRY(gc_pre_read_value(c, h, 0));
        GC_TRY(gc_pre_read_value(c, h, 1));
        return gc_pre_outputs(c, h);
    }
    if (!strcmp(n, "Resampler")) {
        GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
        GC_TRY(gc_pre_read_value(c, h, 0));
        GC_TRY(gc_pre_read_value(c, h, 1));
        return gc_pre_outputs(c, h);
    }
    if (composite_factory_name(n)) return 0;
    GC_REJECT(h, "custom.unknown", -1, "%s", n);
}

int gc_cl_custom(const gc_rctx *c, gc_hit *h) {
    const char *n = c->custom ? c->custom : "";
    if (!strcmp(n, "Convolution2DTransposeBias") || !strcmp(n, "MaxPoolingWithArgmax2D") ||
        !strcmp(n, "MaxUnpooling2D") || !strcmp(n, "Resampler"))
        return gc_compat(c, h, GC_BCAST_STANDARD);
    GC_REJECT(h, "custom.unknown", -1, "%s", n);
}

/* ---- STABLEHLO_COMPOSITE (ML Drift only) ------------------------------------------------------ */

static void dims_join(const gc_tensor *t, char *b, size_t n) {
    size_t k = 0;
    b[0] = 0;
    for (int32_t i = 0; i < t->rank && k < n; i++)
        k += (size_t)snprintf(b + k, n - k, "%s%d", i ? ", " : "", t->shape[i]);
}

static int reduction_axes(gc_hit *h, gc_flex fb, int32_t rank, bool group, bool has_sub_type) {
    int64_t got[16];
    int n = gc_flex_root_get_ivec2(fb, "_TENSOR_V1_reduction_axes", "TENSOR_DATA", got, 16);
    if (n < 0) return 0;
    int64_t want[16];
    int nw = 0;
    if (group && has_sub_type) for (int32_t i = 1; i < rank && nw < 16; i++) want[nw++] = i;
    else want[nw++] = rank - 1;
    bool same = n == nw;
    for (int i = 0; same && i < n; i++) same = got[i] == want[i];
    if (same) return 0;
    char a[96] = "", b[96] = "";
    size_t ka = 0, kb = 0;
    for (int i = 0; i < nw && ka < sizeof a; i++) ka += (size_t)snprintf(a + ka, sizeof a - ka, "%s%lld", i ? ", " : "", (long long)want[i]);
    for (int i = 0; i < n && kb < sizeof b; i++) kb += (size_t)snprintf(b + kb, sizeof b - kb, "%s%lld", i ? ", " : "", (long long)got[i]);
    GC_REJECT(h, "composite.norm_axes", -1, "%s has unexpected reduction axes. Expected axes [%s] but got [%s]",
              group ? "GroupNorm" : "LayerNorm", a, b);
}

static int composite_norm(const gc_rctx *c, gc_hit *h, gc_flex fb, bool group, bool has_sub_type) {
    const char *what = group ? "GroupNorm" : "LayerNorm";
    const gc_tensor *x = gc_in(c, 0);
    char d[96];
    if (!x) GC_REJECT(h, "composite.norm_input", -1, "%s is missing input tensor.", what);
    if (x->rank > 4) {
        dims_join(x, d, sizeof d);
        GC_REJECT(h, "composite.norm_rank", gc_in_idx(c, 0), "%s has bad input tensor dims. Expected at most 4D input, got %s",
                  what, d);
    }
    int32_t ch = x->rank ? x->shape[x->rank - 1] : 0;
    const gc_tensor *g = c->n_in > 1 ? gc_in(c, 1) : NULL, *b = c->n_in > 2 ? gc_in(c, 2) : NULL;
    if (g) {
        if (g->rank != 1) GC_REJECT(h, "composite.norm_param", gc_in_idx(c, 1), "%s has bad %s tensor dims.", what,
                                    group ? "gamma" : "scale");
        if (ch != g->shape[0])
            GC_REJECT(h, "composite.norm_param", gc_in_idx(c, 1), "Scale tensor channels don't match input tensor channels.");
    }
    if (b) {
        if (b->rank != 1) GC_REJECT(h, "composite.norm_param", gc_in_idx(c, 2), "%s has bad beta tensor dims.", what);
        if (ch != b->shape[0])
            GC_REJECT(h, "composite.norm_param", gc_in_idx(c, 2), "%s tensor channels don't match input tensor channels.",
                      group ? "Beta" : "Bias");
    }
    int64_t iv; double fv;
    if (group) {
        GC_TRY(reduction_axes(h, fb, x->rank, true, has_sub_type));
        if (gc_flex_root_get(fb, "channel_axis", &iv, &fv) == 1 && iv != x->rank - 1)
            GC_REJECT(h, "composite.norm_channel_axis", -1,
                      "Only channel-last tensor is supported for GroupNorm. Expected axis %d but got %lld",
                      x->rank - 1, (long long)iv);
        if (!gc_flex_root_get(fb, "num_groups", &iv, &fv))
            GC_REJECT(h, "composite.norm_attrs", -1, "GroupNorm is missing num_groups.");
        if (!gc_flex_root_get(fb, "epsilon", &iv, &fv))
            GC_REJECT(h, "composite.norm_attrs", -1, "GroupNorm is missing epsilon.");
    } else {
        if (!gc_flex_root_get(fb, "epsilon", &iv, &fv))
            GC_REJECT(h, "composite.norm_attrs", -1, "LayerNorm is missing epsilon.");
        GC_TRY(reduction_axes(h, fb, x->rank, false, false));
    }
    return 0;
}

static int composite_sdpa(const gc_rctx *c, gc_hit *h) {
    if (c->n_in < 3 || c->n_in > 4)
        GC_REJECT(h, "composite.sdpa_inputs", -1, "Invalid number of inputs: %d, while expected 3 or 4.", c->n_in);
    const gc_tensor *q = gc_in(c, 0), *k = gc_in(c, 1), *v = gc_in(c, 2);
    if (!q || !k || !v) GC_REJECT(h, "composite.sdpa_inputs", -1, "Invalid number of inputs: %d, while expected 3 or 4.", c->n_in);
    int32_t sq[4], sk[4], sv[4];
    gc_bhwc(q, sq); gc_bhwc(k, sk); gc_bhwc(v, sv);
    if (!(sq[3] == sk[3] && sq[3] == sv[3]))
        GC_REJECT(h, "composite.sdpa_channels", -1,
                  "Q, K and V tensors' channels must match, but they are: Q.c = %d, K.c = %d, and V.c = %d.",
                  sq[3], sk[3], sv[3]);
    if (memcmp(sk, sv, sizeof sk))
        GC_REJECT(h, "composite.sdpa_kv", -1,
                  "K and V tensors' shapes must identical, but they are: K = {%d, %d, %d, %d}, V = {%d, %d, %d, %d}.",
                  sk[0], sk[1], sk[2], sk[3], sv[0], sv[1], sv[2], sv[3]);
    if (c->n_in == 4 && gc_in(c, 3)) {
        int32_t sm[4];
        gc_bhwc(gc_in(c, 3), sm);
        if (sk[1] != sm[3])
            GC_REJECT(h, "composite.sdpa_mask", gc_in_idx(c, 3),
                      "K tensor's height must match Mask tensor's channels, but they are: K = {%d, %d, %d, %d}, "
                      "Mask = {%d, %d, %d, %d}.", sk[0], sk[1], sk[2], sk[3], sm[0], sm[1], sm[2], sm[3]);
    }
    return 0;
}

int gc_ml_composite(const gc_rctx *c, gc_hit *h) {
    const gc_options *o = &c->op->opt2;
    if (o->type != GC_BO2_StableHLOCompositeOptions) GC_REJECT(h, "unsupported_op", -1, "Operation is not supported.");
    uint32_t nl = 0, na = 0;
    const char *name = gc_opt_vec(o, GC_O_StableHLOCompositeOptions_name, &nl);
    const uint8_t *attrs = gc_opt_vec(o, GC_O_StableHLOCompositeOptions_composite_attributes, &na);
    gc_flex fb = { attrs, attrs ? na : 0 };
    if (!name) GC_REJECT(h, "unsupported_op", -1, "Operation is not supported.");
    if (!strcmp(name, "odml.group_norm")) {
        int64_t st; double f;
        int k = gc_flex_root_get(fb, "sub_type", &st, &f);
        int64_t axes[1];
        bool group;
        if (k) group = (k == 1 && st == 0);
        else group = gc_flex_root_get_ivec2(fb, "_TENSOR_V1_reduction_axes", "TENSOR_DATA", axes, 1) >= 0;
        return composite_norm(c, h, fb, group, k != 0);
    }
    if (!strcmp(name, "odml.rms_norm")) return norm_custom(c, h, false);
    if (!strcmp(name, "custom_call.rotary_positional_embedding")) return rope(c, h);
    if (!strcmp(name, "odml.scaled_dot_product_attention")) return composite_sdpa(c, h);
    if (composite_factory_name(name)) return 0;
    GC_REJECT(h, "composite.unknown", -1, "Operation is not supported.");
}
