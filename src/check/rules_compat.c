/* rules_compat.c — the shared "compat" checker, CheckGpuDelegateCompatibility of
 * tflite/tools/versioning/gpu_compatibility.cc at LiteRT HEAD (gpu-delegate-rules.md §0,
 * §3 "IsSupported (compat)" columns, §4.3, §6.2, §7). Both delegates call it from most
 * parsers; the classic ADD/MUL pass kStandard broadcast flags, ML Drift elementwise ops
 * kEnhancedBroadcast. It works on the op signature: input types and dims, const =
 * kTfLiteMmapRo, optional inputs have no type and do not count as runtime inputs.
 */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

/* the op signature has an entry for an optional (-1) input too: no type, no dims */
static const gc_tensor *sig_in(const gc_rctx *c, int i) {
    static const gc_tensor none = { .name = "", .type = -1, .rank = 0 };
    const gc_tensor *t = gc_in(c, i);
    return t ? t : (i < c->n_in ? &none : NULL);
}
#define gc_in(c, i) sig_in((c), (i))

static int64_t numel_t(const gc_tensor *t) { return t ? gc_numel_dims(t->shape, t->rank) : 1; }

int gc_compat_io(const gc_rctx *c, gc_hit *h, int rt, int outs) {
    int n = gc_n_runtime_inputs(c);
    if (n != rt)
        GC_REJECT(h, "inputs.runtime_count", -1,
                  "Expected %d runtime input tensor(s), but node has %d runtime input(s).", rt, n);
    if (c->op->n_outputs != outs)
        GC_REJECT(h, "outputs.count", -1, "Expected %d output tensor(s), but node has %d output(s).",
                  outs, c->op->n_outputs);
    return 0;
}

int gc_compat_ico(const gc_rctx *c, gc_hit *h, int rt, int cst, int outs) {
    int n = gc_n_const_inputs(c);
    if (n != cst)
        GC_REJECT(h, "inputs.const_count", -1,
                  "Expected %d const input tensor(s), but node has %d const input(s).", cst, n);
    return gc_compat_io(c, h, rt, outs);
}

static bool ico_ok(const gc_rctx *c, int rt, int cst, int outs) {
    gc_hit tmp;
    return !gc_compat_ico(c, &tmp, rt, cst, outs);
}

int gc_compat_activation(gc_hit *h, int64_t act) {
    if (act == 5) GC_REJECT(h, "activation.sign_bit", -1, "TfLiteFusedActivation.kTfLiteActSignBit");
    return 0;
}

static int tensor_available(const gc_rctx *c, gc_hit *h, int idx) {
    if (idx >= c->n_in)
        GC_REJECT(h, "inputs.count", -1, "Requested index goes beyond array size: %d vs %d", idx, c->n_in);
    return 0;
}

static int conv_io(const gc_rctx *c, gc_hit *h) {
    int rt = gc_n_runtime_inputs(c);
    if (rt > 2 || rt == 0)
        GC_REJECT(h, "conv.inputs", -1, "Expected 1 or 2 input tensor(s), but node has %d runtime inputs.", rt);
    if (c->op->n_outputs != 1)
        GC_REJECT(h, "conv.outputs", -1, "Expected 1 output tensor(s), but node has %d runtime outputs.",
                  c->op->n_outputs);
    if (rt == 1) GC_TRY(tensor_available(c, h, 1));
    return 0;
}

static int strides(gc_hit *h, int64_t sh, int64_t sw) {
    if (sh <= 0 || sw <= 0)
        GC_REJECT(h, "strides", -1, "Incorrect stride values: stride_height = %lld, stride_width = %lld",
                  (long long)sh, (long long)sw);
    return 0;
}

static int dilation(gc_hit *h, int64_t dh, int64_t dw) {
    if (dh <= 0 || dw <= 0)
        GC_REJECT(h, "dilation", -1,
                  "Incorrect dilation values: dilation_height = %lld, dilation_width = %lld",
                  (long long)dh, (long long)dw);
    return 0;
}

static int kernels(gc_hit *h, int64_t kh, int64_t kw) {
    if (kh <= 0 || kw <= 0)
        GC_REJECT(h, "kernel", -1, "Incorrect kernel values: kernel_height = %lld, kernel_width = %lld",
                  (long long)kh, (long long)kw);
    return 0;
}

static int axes_i32_const(const gc_rctx *c, gc_hit *h, int idx) {
    const gc_tensor *a = gc_in(c, idx);
    if (!a || !gc_is_const_in(c, idx))
        GC_REJECT(h, "axes.runtime", gc_in_idx(c, idx), "%s is only supported with constant axes.",
                  gc_op_label(c));
    if (a->type != GC_T_INT32)
        GC_REJECT(h, "axes.dtype", gc_in_idx(c, idx), "%s supports int32 tensor for axes. But node has %s",
                  gc_op_label(c), gc_tflite_type_name(a->type));
    return 0;
}

static int pooling(const gc_rctx *c, gc_hit *h) {
    int32_t kh, kw, sh, sw, act;
    if (c->custom) {
        int32_t pad;
        if (!gc_custom_i32(c, 0, &pad) || !gc_custom_i32(c, 1, &sw) || !gc_custom_i32(c, 2, &sh) ||
            !gc_custom_i32(c, 3, &kw) || !gc_custom_i32(c, 4, &kh) || !gc_custom_i32(c, 5, &act))
            GC_REJECT(h, "custom.params", -1, "Unable to retrieve custom_initial_data.");
        GC_TRY(gc_compat_io(c, h, 1, 2));
    } else {
        kh = (int32_t)gc_opt_i(c, GC_BO_Pool2DOptions, GC_O_Pool2DOptions_filter_height);
        kw = (int32_t)gc_opt_i(c, GC_BO_Pool2DOptions, GC_O_Pool2DOptions_filter_width);
        sh = (int32_t)gc_opt_i(c, GC_BO_Pool2DOptions, GC_O_Pool2DOptions_stride_h);
        sw = (int32_t)gc_opt_i(c, GC_BO_Pool2DOptions, GC_O_Pool2DOptions_stride_w);
        act = (int32_t)gc_opt_i(c, GC_BO_Pool2DOptions, GC_O_Pool2DOptions_fused_activation_function);
        GC_TRY(gc_compat_io(c, h, 1, 1));
    }
    GC_TRY(kernels(h, kh, kw));
    GC_TRY(strides(h, sh, sw));
    return gc_compat_activation(h, act);
}

static int dwconv(const gc_rctx *c, gc_hit *h) {
    GC_TRY(conv_io(c, h));
    const int B = GC_BO_DepthwiseConv2DOptions;
    GC_TRY(strides(h, gc_opt_i(c, B, GC_O_DepthwiseConv2DOptions_stride_h),
                   gc_opt_i(c, B, GC_O_DepthwiseConv2DOptions_stride_w)));
    GC_TRY(dilation(h, gc_opt_i(c, B, GC_O_DepthwiseConv2DOptions_dilation_h_factor),
                    gc_opt_i(c, B, GC_O_DepthwiseConv2DOptions_dilation_w_factor)));
    GC_TRY(gc_compat_activation(h, gc_opt_i(c, B, GC_O_DepthwiseConv2DOptions_fused_activation_function)));
    int64_t mult = gc_opt_i(c, B, GC_O_DepthwiseConv2DOptions_depth_multiplier);
    const gc_tensor *in = gc_in(c, 0), *f = gc_in(c, 1), *bias = gc_in(c, 2), *out = gc_out(c, 0);
    if (!in || in->rank != 4) GC_REJECT(h, "dwconv.input_rank", gc_in_idx(c, 0), "input.dims.size != 4");
    if (!f || f->rank != 4) GC_REJECT(h, "dwconv.filter_rank", gc_in_idx(c, 1), "filter.dims.size != 4");
    if (!out || out->rank != 4) GC_REJECT(h, "dwconv.output_rank", gc_out_idx(c, 0), "output.dims.size != 4");
    if (in->shape[0] != out->shape[0]) GC_REJECT(h, "dwconv.batch", -1, "input.b != output.b");
    if (f->shape[3] != out->shape[3]) GC_REJECT(h, "dwconv.filter_channels", -1, "filter.i != output.c");
    if (out->shape[3] != in->shape[3] * mult)
        GC_REJECT(h, "dwconv.multiplier", -1, "output.c != input.c * depth_multiplier");
    if (c->n_in > 2 && bias && numel_t(bias) != out->shape[3])
        GC_REJECT(h, "dwconv.bias", gc_in_idx(c, 2), "bias.size != output.c");
    return 0;
}

/* right-aligned NumPy broadcasting of two shapes */
static bool broadcastable(const gc_tensor *a, const gc_tensor *b) {
    int32_t n = a->rank > b->rank ? a->rank : b->rank;
    for (int32_t i = 0; i < n; i++) {
        int32_t da = i < a->rank ? a->shape[a->rank - 1 - i] : 1;
        int32_t db = i < b->rank ? b->shape[b->rank - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) return false;
    }
    return true;
}

static int add_mul_broadcast(const gc_rctx *c, gc_hit *h, const gc_tensor *x0, const gc_tensor *x1,
                             int flags) {
    if (!(x0->rank > 1 && x1->rank > 1 && x0->rank != x1->rank)) return 0;
    const gc_tensor *lo = x0->rank >= x1->rank ? x0 : x1, *sh = x0->rank >= x1->rank ? x1 : x0;
    bool ok = false;
    if (flags == GC_BCAST_ENHANCED) ok = broadcastable(lo, sh);
    else if (lo->rank == 4 && sh->rank == 3 && lo->shape[0] == 1) ok = true;
    else if (lo->rank == 4 && sh->rank == 2 && lo->shape[0] == 1 && sh->shape[0] == 1 && sh->shape[1] == 1)
        ok = true;
    else if (lo->rank == 4 && sh->rank == 2 && lo->shape[0] == sh->shape[0] && lo->shape[3] == sh->shape[1])
        ok = true;
    if (!ok) {
        char a[96], b[96];
        gc_dims_str(x0, a, sizeof a, false);
        gc_dims_str(x1, b, sizeof b, false);
        /* absl::StrJoin(dims, ",") inside "[...]" — same as the TFLite debug string */
        (void)c;
        GC_REJECT(h, "broadcast", -1, "Doesn't support broadcasting - input0: %s, input1: %s", a, b);
    }
    return 0;
}

static int cast_types(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat_io(c, h, 1, 1));
    const gc_tensor *i = gc_in(c, 0), *o = gc_out(c, 0);
    if (!i || !o) return 0;
    int it = i->type, ot = o->type;
    bool f = it == GC_T_FLOAT16 || it == GC_T_FLOAT32;
    if (it == GC_T_BOOL && (ot == GC_T_FLOAT16 || ot == GC_T_FLOAT32)) return 0;
    if (f && ot == GC_T_BOOL) return 0;
    if ((it == GC_T_FLOAT32 || it == GC_T_INT32) && (ot == GC_T_FLOAT32 || ot == GC_T_INT32)) return 0;
    GC_REJECT(h, "cast.types", -1, "Not supported Cast case. Input type: %s and output type: %s",
              gc_tflite_type_name(it), gc_tflite_type_name(ot));
}

/* SELECT / SELECT_V2 at LiteRT HEAD (§3.4 SELECT row; changed 2026-06-22, §7) */
static int select_v2(const gc_rctx *c, gc_hit *h) {
    if (c->n_in != 3 || c->op->n_outputs != 1)
        GC_REJECT(h, "select.arity", -1, "Expected 3 inputs and 1 output");
    static const char *generic = "Cond must be float or bool type, if, else tensors must either be "
                                 "the same shape as output or constant, scalar.";
    const gc_tensor *cond = gc_in(c, 0), *out = gc_out(c, 0);
    if (!cond || !out) GC_REJECT(h, "select.types", -1, "%s", generic);
    if (cond->type != GC_T_BOOL && cond->type != GC_T_FLOAT16 && cond->type != GC_T_FLOAT32)
        GC_REJECT(h, "select.cond_type", gc_in_idx(c, 0), "%s", generic);
    for (int32_t i = 0; i < cond->rank; i++) {   /* cond right-aligned broadcastable to output */
        int32_t oi = out->rank - cond->rank + i;
        if (oi < 0 || (cond->shape[i] != 1 && cond->shape[i] != out->shape[oi]))
            GC_REJECT(h, "select.cond_shape", gc_in_idx(c, 0), "%s", generic);
    }
    for (int k = 1; k <= 2; k++) {
        const gc_tensor *x = gc_in(c, k);
        if (!x) continue;
        bool scalar_like = x->rank == 0 || (x->rank == 1 && x->shape[0] <= 1);
        if (!scalar_like && !gc_dims_eq(x, out))
            GC_REJECT(h, "select.branch_shape", gc_in_idx(c, k), "%s", generic);
        if (x->rank == 2 && !gc_is_const_in(c, k))
            GC_REJECT(h, "select.runtime_2d", gc_in_idx(c, k), "2-D %s tensor only supported if constant.",
                      k == 1 ? "if" : "else");
    }
    return 0;
}

static int one_hot(const gc_rctx *c, gc_hit *h) {
    if (c->n_in != 4 || c->op->n_outputs != 1)
        GC_REJECT(h, "one_hot.arity", -1, "Expects 4 inputs and 1 output");
    static const char *err = "Indices must be int32 type, on/off tensors must be constant, scalar, "
                             "float type, axis must be -1 or last dim";
    const gc_tensor *idx = gc_in(c, 0), *on = gc_in(c, 2), *off = gc_in(c, 3);
    if (!idx || idx->type != GC_T_INT32) GC_REJECT(h, "one_hot.params", gc_in_idx(c, 0), "%s", err);
    int64_t axis = gc_opt_i(c, GC_BO_OneHotOptions, GC_O_OneHotOptions_axis);
    int32_t nd = idx->rank;
    if (axis != -1 && (nd == 0 || axis != idx->shape[nd - 1]))
        GC_REJECT(h, "one_hot.params", -1, "%s", err);
    for (int32_t i = 0; i + 1 < nd; i++) {
        if (nd > 3 && i == 0) continue;
        if (idx->shape[i] != 1)
            GC_REJECT(h, "one_hot.shape", gc_in_idx(c, 0), "Unsupported non-singleton dim at %d", i);
    }
    if (!on || !off || on->type != GC_T_FLOAT32 || off->type != GC_T_FLOAT32)
        GC_REJECT(h, "one_hot.params", -1, "%s", err);
    if (!gc_is_const_in(c, 2) || !gc_is_const_in(c, 3) || on->rank > 1 || off->rank > 1)
        GC_REJECT(h, "one_hot.params", -1, "%s", err);
    if ((on->rank == 1 && on->shape[0] > 1) || (off->rank == 1 && off->shape[0] > 1))
        GC_REJECT(h, "one_hot.params", -1, "%s", err);
    return 0;
}

static int custom(const gc_rctx *c, gc_hit *h) {
    const char *n = c->custom ? c->custom : "";
    if (!strcmp(n, "Convolution2DTransposeBias")) {
        GC_TRY(tensor_available(c, h, 1));
        int32_t pad, sw, sh;
        if (!gc_custom_i32(c, 0, &pad) || !gc_custom_i32(c, 1, &sw) || !gc_custom_i32(c, 2, &sh))
            GC_REJECT(h, "custom.params", -1, "Unable to retrieve custom_initial_data.");
        return strides(h, sh, sw);
    }
    if (!strcmp(n, "MaxPoolingWithArgmax2D")) return pooling(c, h);
    if (!strcmp(n, "MaxUnpooling2D")) {
        GC_TRY(gc_compat_io(c, h, 2, 1));
        int32_t pad, sw, sh, kw, kh;
        if (!gc_custom_i32(c, 0, &pad) || !gc_custom_i32(c, 1, &sw) || !gc_custom_i32(c, 2, &sh) ||
            !gc_custom_i32(c, 3, &kw) || !gc_custom_i32(c, 4, &kh))
            GC_REJECT(h, "custom.params", -1, "Unable to retrieve custom_initial_data.");
        GC_TRY(kernels(h, kh, kw));
        return strides(h, sh, sw);
    }
    if (!strcmp(n, "Resampler")) {
        GC_TRY(gc_compat_io(c, h, 2, 1));
        const gc_tensor *src = gc_in(c, 0), *warp = gc_in(c, 1);
        if (!src || !warp || src->rank != 4 || warp->rank != 4)
            GC_REJECT(h, "resampler.rank", -1, "src or warp dims size != 4");
        if (src->shape[0] != warp->shape[0]) GC_REJECT(h, "resampler.batch", -1, "src.b != warp.b");
        if (warp->shape[3] < 2) GC_REJECT(h, "resampler.warp", gc_in_idx(c, 1), "warp.c < 2");
        return 0;
    }
    GC_REJECT(h, "custom.unknown", -1, "Not supported custom op %s", n);
}

static int fully_connected(const gc_rctx *c, gc_hit *h) {
    const int B = GC_BO_FullyConnectedOptions;
    if (c->n_in < 1) GC_REJECT(h, "fc.inputs", -1, "Expected at least 1 input");
    int64_t wf = gc_opt_i(c, B, GC_O_FullyConnectedOptions_weights_format);
    if (wf != 0) GC_REJECT(h, "fc.weights_format", -1, "Unsupported FullyConnected weights format: %lld",
                           (long long)wf);
    if (gc_n_runtime_inputs(c) > 2)
        GC_REJECT(h, "fc.runtime_inputs", -1, "FullyConnected doesn't support more than 2 runtime inputs.");
    if (gc_is_const_in(c, 0))
        GC_REJECT(h, "fc.const_input", gc_in_idx(c, 0), "FullyConnected doesn't support constant input.");
    if (gc_opt_i(c, B, GC_O_FullyConnectedOptions_keep_num_dims)) {
        const gc_tensor *i = gc_in(c, 0), *o = gc_out(c, 0);
        if (i && o && i->rank != o->rank)
            GC_REJECT(h, "fc.keep_num_dims", -1,
                      "Input and output dimensions different and FullyConnected doesn't support keep_num_dims.");
    }
    return 0;
}

static int lstm(const gc_rctx *c, gc_hit *h) {
    const int B = GC_BO_LSTMOptions;
    int64_t kind = gc_opt_i(c, B, GC_O_LSTMOptions_kernel_type);
    int64_t act = gc_opt_i(c, B, GC_O_LSTMOptions_fused_activation_function);
    if (kind == 0) {
        if (c->n_in != 20 && c->n_in != 24)
            GC_REJECT(h, "lstm.inputs", -1, "Expected 20 or 24 input tensors, but node has %d input(s).", c->n_in);
        if (c->op->n_outputs != 1)
            GC_REJECT(h, "lstm.outputs", -1, "Expected 1 output tensor, but node has %d output(s).",
                      c->op->n_outputs);
        if (act != 6 && act != 4)
            GC_REJECT(h, "lstm.activation", -1, "Only sigmoid or tanh activation is supported, but node has %lld",
                      (long long)act);
        return 0;
    }
    GC_TRY(gc_compat_ico(c, h, 3, 2, 4));
    const gc_tensor *o3 = gc_out(c, 3);
    if (o3 && o3->rank > 0 && o3->shape[o3->rank - 1] % 4 != 0)
        GC_REJECT(h, "lstm.depth", gc_out_idx(c, 3), "BasicLSTM activation depth must be a multiple of 4.");
    if (act != 4)
        GC_REJECT(h, "lstm.activation", -1, "Only TANH activation is supported. but node has %lld", (long long)act);
    if (gc_opt_f(c, B, GC_O_LSTMOptions_cell_clip) != 0.0)
        GC_REJECT(h, "lstm.cell_clip", -1, "cell_clip is not supported.");
    if (gc_opt_f(c, B, GC_O_LSTMOptions_proj_clip) != 0.0)
        GC_REJECT(h, "lstm.proj_clip", -1, "proj_clip is not supported.");
    return 0;
}

static int pad(const gc_rctx *c, gc_hit *h) {
    if (c->code == GC_OP_MIRROR_PAD) {
        int64_t mode = gc_opt_i(c, GC_BO_MirrorPadOptions, GC_O_MirrorPadOptions_mode);
        if (mode != 0)   /* schema REFLECT = 0; TfLiteMirrorPaddingMode = schema + 1 */
            GC_REJECT(h, "mirror_pad.mode", -1,
                      "Only Reflective padding is supported for Mirror Pad operation. But node has %lld",
                      (long long)mode + 1);
    }
    GC_TRY(gc_compat_io(c, h, 1, 1));
    GC_TRY(tensor_available(c, h, 1));
    const gc_tensor *p = gc_in(c, 1);
    int32_t r = p ? p->rank : 0;
    if (r != 2)
        GC_REJECT(h, "pad.paddings_rank", gc_in_idx(c, 1),
                  "Invalid paddings tensor dimension: expected 2 dim, got %d dim", r);
    if ((p->shape[0] != 3 && p->shape[0] != 4) || p->shape[1] != 2)
        GC_REJECT(h, "pad.paddings_shape", gc_in_idx(c, 1),
                  "Invalid paddings tensor shape: expected 4x2 or 3x2, got %dx%d", p->shape[0], p->shape[1]);
    return 0;
}

static int bitcast(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat_io(c, h, 1, 1));
    const gc_tensor *i = gc_in(c, 0), *o = gc_out(c, 0);
    if (!i || !o) GC_REJECT(h, "bitcast.type", -1, "Could not parse input type");
    int si = gc_type_size(i->type), so = gc_type_size(o->type);
    if (si <= 0) GC_REJECT(h, "bitcast.type", -1, "Could not parse input type");
    if (so <= 0) GC_REJECT(h, "bitcast.type", -1, "Could not parse output type");
    if (si == so) {
        if (!gc_dims_eq(i, o))
            GC_REJECT(h, "bitcast.shape", -1,
                      "If input and output types have the same element size, they must have the same shapes");
    } else if (si > so) {
        if (i->rank + 1 != o->rank)
            GC_REJECT(h, "bitcast.shape", -1, "If input element size is greater than output element size, "
                      "require that input rank is one greater than output rank");
        for (int32_t d = 0; d < i->rank; d++)
            if (i->shape[d] != o->shape[d]) GC_REJECT(h, "bitcast.shape", -1, "Shapes must match in all but last dim");
        if (o->shape[o->rank - 1] * so != si)
            GC_REJECT(h, "bitcast.shape", -1,
                      "Last output dim must be equal to input element size divided by output element size");
    } else {
        if (i->rank != o->rank + 1)
            GC_REJECT(h, "bitcast.shape", -1, "If output element size is greater than input element size, "
                      "require that output rank is on greater than input rank");
        for (int32_t d = 0; d < o->rank; d++)
            if (i->shape[d] != o->shape[d]) GC_REJECT(h, "bitcast.shape", -1, "Shapes must match in all but last dim");
        if (i->shape[i->rank - 1] * si != so)
            GC_REJECT(h, "bitcast.shape", -1,
                      "Last input dim must be equal to output element size divided by input element size");
    }
    return 0;
}

static int embedding_lookup(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *ids = gc_in(c, 0), *val = gc_in(c, 1), *out = gc_out(c, 0);
    if (c->n_in != 2) GC_REJECT(h, "embedding.inputs", -1, "Expected 2, but got %d inputs.", c->n_in);
    if (!ids || ids->rank != 1)
        GC_REJECT(h, "embedding.ids_rank", gc_in_idx(c, 0), "Expected 1D, but got %dD input #0.", ids ? ids->rank : 0);
    if (!val || val->rank < 2)
        GC_REJECT(h, "embedding.table_rank", gc_in_idx(c, 1), "Expected > 1D, but got %dD input #1.",
                  val ? val->rank : 0);
    if (c->op->n_outputs != 1)
        GC_REJECT(h, "outputs.count", -1, "Expected 1, but got %d outputs.", c->op->n_outputs);
    if (val->rank != out->rank)
        GC_REJECT(h, "embedding.output", -1, "Expected %d, but got %d for output.", val->rank, out->rank);
    for (int32_t i = 1; i < out->rank; i++)
        if (val->shape[i] != out->shape[i])
            GC_REJECT(h, "embedding.output", -1, "Expected %d, but got %d for output.dim[%d].", val->shape[i],
                      out->shape[i], i);
    if (val->type != GC_T_INT8 && val->type != GC_T_INT4 && val->type != GC_T_INT2 && val->type != GC_T_FLOAT32)
        GC_REJECT(h, "embedding.table_type", gc_in_idx(c, 1),
                  "Expected int8, int4, int2, or float32, but got %s for input #1.", gc_tflite_type_name(val->type));
    return 0;
}

/* TfLiteType enum values (the DUS message prints them as numbers) */
static int tflite_type_enum(int t) {
    static const int map[] = { 1, 10, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
    return (t >= 0 && t < (int)(sizeof map / sizeof map[0])) ? map[t] : t;
}

static int dus(const gc_rctx *c, gc_hit *h) {
    if (c->n_in != 3) GC_REJECT(h, "dus.inputs", -1, "DynamicUpdateSlice requires 3 inputs.");
    const gc_tensor *op = gc_in(c, 0), *up = gc_in(c, 1), *st = gc_in(c, 2);
    if (!op || !up || !st) GC_REJECT(h, "dus.inputs", -1, "DynamicUpdateSlice requires 3 inputs.");
    if (op->type != up->type)
        GC_REJECT(h, "dus.types", -1, "Array to update and updated slice must have the same data type, but got: "
                  "array to update: %d, updated slice: %d", tflite_type_enum(op->type), tflite_type_enum(up->type));
    if (st->rank != 1)
        GC_REJECT(h, "dus.start_rank", gc_in_idx(c, 2), "Start indices must be 1D, but got: %d", st->rank);
    if (st->type != GC_T_INT32) GC_REJECT(h, "dus.start_type", gc_in_idx(c, 2), "start_indices must be of type int32.");
    if (up->rank != op->rank)
        GC_REJECT(h, "dus.rank", -1, "Operand and update must have the same number of dimensions, but got: "
                  "operand: %d, update: %d", op->rank, up->rank);
    return 0;
}

static int clamp(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *mn = gc_in(c, 0), *x = gc_in(c, 1), *mx = gc_in(c, 2);
    if (!mn || !x || !mx) return gc_compat_ico(c, h, 3, 0, 1);
    if (mn->type != x->type || x->type != mx->type)
        GC_REJECT(h, "clamp.types", -1, "Clamp tensors must all be the same type");
    if (!gc_dims_eq(mn, x) && numel_t(mn) != 1)
        GC_REJECT(h, "clamp.min_shape", -1, "Min tensor must be the same shape as the input, or a scalar");
    if (!gc_dims_eq(mx, x) && numel_t(mx) != 1)
        GC_REJECT(h, "clamp.max_shape", -1, "Max tensor must be the same shape as the input, or a scalar");
    return gc_compat_ico(c, h, 3, 0, 1);
}

int gc_compat(const gc_rctx *c, gc_hit *h, int bcast) {
    switch (c->code) {
    case GC_OP_ADD: {
        if (c->n_in != 2) GC_REJECT(h, "add.inputs", -1, "ADD requires two input tensors.");
        const gc_tensor *a = gc_in(c, 0), *b = gc_in(c, 1);
        if (a && b) GC_TRY(add_mul_broadcast(c, h, a, b, bcast));
        return 0;
    }
    case GC_OP_ADD_N:
        if (c->n_in != 2) GC_REJECT(h, "add_n.inputs", -1, "ADD_N only supports 2 inputs.");
        return 0;
    case GC_OP_AVERAGE_POOL_2D: case GC_OP_MAX_POOL_2D: return pooling(c, h);
    case GC_OP_BATCH_MATMUL:
        if (!(c->n_in == 2 && c->op->n_outputs == 1))
            GC_REJECT(h, "bmm.arity", -1, "Expected 2 inputs and 1 output, got: %d inputs and %d outputs",
                      c->n_in, c->op->n_outputs);
        return 0;
    case GC_OP_BITCAST: return bitcast(c, h);
    case GC_OP_CAST: return cast_types(c, h);
    case GC_OP_CONCATENATION: return 0;
    case GC_OP_CONV_2D: {
        const int B = GC_BO_Conv2DOptions;
        GC_TRY(conv_io(c, h));
        GC_TRY(strides(h, gc_opt_i(c, B, GC_O_Conv2DOptions_stride_h), gc_opt_i(c, B, GC_O_Conv2DOptions_stride_w)));
        GC_TRY(dilation(h, gc_opt_i(c, B, GC_O_Conv2DOptions_dilation_h_factor),
                        gc_opt_i(c, B, GC_O_Conv2DOptions_dilation_w_factor)));
        return gc_compat_activation(h, gc_opt_i(c, B, GC_O_Conv2DOptions_fused_activation_function));
    }
    case GC_OP_CUMSUM: {
        if (c->n_in != 2 || c->op->n_outputs != 1)
            GC_REJECT(h, "cumsum.arity", -1, "Expects 2 inputs and 1 output");
        const gc_tensor *x = gc_in(c, 0), *ax = gc_in(c, 1), *o = gc_out(c, 0);
        if (!x || !ax || !o || (x->type != GC_T_FLOAT16 && x->type != GC_T_FLOAT32) || o->type != x->type ||
            ax->type != GC_T_INT32 || !gc_is_const_in(c, 1))
            GC_REJECT(h, "cumsum.types", -1,
                      "Input/output must be float type and indices must be constant int32 type");
        return 0;
    }
    case GC_OP_DENSIFY: return gc_compat_io(c, h, 0, 1);
    case GC_OP_DEPTHWISE_CONV_2D: return dwconv(c, h);
    case GC_OP_DEPTH_TO_SPACE: case GC_OP_SPACE_TO_DEPTH: {
        GC_TRY(gc_compat_io(c, h, 1, 1));
        int64_t bs = c->code == GC_OP_DEPTH_TO_SPACE
                         ? gc_opt_i(c, GC_BO_DepthToSpaceOptions, GC_O_DepthToSpaceOptions_block_size)
                         : gc_opt_i(c, GC_BO_SpaceToDepthOptions, GC_O_SpaceToDepthOptions_block_size);
        if (bs == 1) GC_REJECT(h, "block_size", -1, "%s block_size = 1 is a no-op.", gc_op_label(c));
        if (bs < 1) GC_REJECT(h, "block_size", -1, "%s block_size must be > 1.", gc_op_label(c));
        return 0;
    }
    case GC_OP_DEQUANTIZE: {
        if (c->n_in != 1 || c->op->n_outputs != 1)
            GC_REJECT(h, "dequantize.arity", -1, "Expected 1 input & output each from Dequantize, got: %d, %d",
                      c->n_in, c->op->n_outputs);
        const gc_tensor *x = gc_in(c, 0);
        if (x && x->type == GC_T_INT16) GC_REJECT(h, "dequantize.int16", gc_in_idx(c, 0), "Unsupported dequantization type.");
        return 0;
    }
    case GC_OP_EMBEDDING_LOOKUP: return embedding_lookup(c, h);
    case GC_OP_DYNAMIC_UPDATE_SLICE: return dus(c, h);
    case GC_OP_FULLY_CONNECTED: return fully_connected(c, h);
    case GC_OP_GATHER: {
        if (!ico_ok(c, 2, 0, 1) && !ico_ok(c, 1, 1, 1))
            GC_REJECT(h, "gather.operands", -1, "Op can only handle 1 or 2 operand(s).");
        const gc_tensor *ix = gc_in(c, 1);
        if (!ix || ix->rank != 1) GC_REJECT(h, "gather.indices_rank", gc_in_idx(c, 1), "Only support 1D indices");
        if (ix->type != GC_T_INT32) GC_REJECT(h, "gather.indices_type", gc_in_idx(c, 1), "Only accept INT32 indices");
        return 0;
    }
    case GC_OP_HARD_SWISH: return gc_compat_io(c, h, 1, 1);
    case GC_OP_LSTM: return lstm(c, h);
    case GC_OP_MEAN:
        GC_TRY(gc_compat_ico(c, h, 1, 1, 1));
        return axes_i32_const(c, h, 1);
    case GC_OP_MUL: {
        if (c->n_in != 2) GC_REJECT(h, "mul.inputs", -1, "MUL requires two input tensors.");
        const gc_tensor *a = gc_in(c, 0), *b = gc_in(c, 1);
        if (a && b && a->rank != b->rank) GC_TRY(add_mul_broadcast(c, h, a, b, bcast));
        return gc_compat_activation(h, gc_opt_i(c, GC_BO_MulOptions, GC_O_MulOptions_fused_activation_function));
    }
    case GC_OP_PACK: return 0;
    case GC_OP_ONE_HOT: return one_hot(c, h);
    case GC_OP_QUANTIZE: return gc_compat_io(c, h, 1, 1);
    case GC_OP_RELU_N1_TO_1: case GC_OP_PRELU: case GC_OP_RELU: case GC_OP_RELU6: case GC_OP_LEAKY_RELU:
        return 0;
    case GC_OP_RESHAPE: return gc_compat_io(c, h, 1, 1);
    case GC_OP_SELECT: case GC_OP_SELECT_V2: return select_v2(c, h);
    case GC_OP_SLICE: {
        if (c->n_in < 3)
            GC_REJECT(h, "slice.inputs", -1, "SLICE requires 3 inputs, but node has %d inputs.", c->n_in);
        const gc_tensor *x = gc_in(c, 0);
        int32_t r = x ? x->rank : 0;
        if (r != 3 && r != 4)
            GC_REJECT(h, "slice.rank", gc_in_idx(c, 0),
                      "SLICE supports for 3 or 4 dimensional tensors only, but node has %d dimensional tensors.", r);
        return 0;
    }
    case GC_OP_SOFTMAX:
        if (gc_opt_f(c, GC_BO_SoftmaxOptions, GC_O_SoftmaxOptions_beta) != 1.0)
            GC_REJECT(h, "softmax.beta", -1, "Softmax.beta != 1 is not supported.");
        return 0;
    case GC_OP_SPLIT: case GC_OP_SPLIT_V: return 0;
    case GC_OP_STRIDED_SLICE: {
        const int B = GC_BO_StridedSliceOptions;
        if (gc_opt_i(c, B, GC_O_StridedSliceOptions_ellipsis_mask))
            GC_REJECT(h, "strided_slice.ellipsis_mask", -1, "StridedSlice does not support ellipsis_mask.");
        if (gc_opt_i(c, B, GC_O_StridedSliceOptions_new_axis_mask))
            GC_REJECT(h, "strided_slice.new_axis_mask", -1, "StridedSlice does not support new_axis_mask.");
        if (gc_opt_i(c, B, GC_O_StridedSliceOptions_shrink_axis_mask))
            GC_REJECT(h, "strided_slice.shrink_axis_mask", -1,
                      "StridedSlice does not support shrink_axis_mask parameter.");
        if (c->n_in < 4) GC_REJECT(h, "strided_slice.inputs", -1, "STRIDED_SLICE requires 4 inputs.");
        const gc_tensor *x = gc_in(c, 0);
        if (!x || (x->rank != 3 && x->rank != 4))
            GC_REJECT(h, "strided_slice.rank", gc_in_idx(c, 0),
                      "STRIDED_SLICE supports for 3 or 4 dimensional tensors only.");
        return 0;
    }
    case GC_OP_TILE: case GC_OP_TRANSPOSE: return gc_compat_io(c, h, 1, 1);
    case GC_OP_TOPK_V2: return gc_compat_io(c, h, 1, 2);
    case GC_OP_TRANSPOSE_CONV:
        GC_TRY(conv_io(c, h));
        return strides(h, gc_opt_i(c, GC_BO_TransposeConvOptions, GC_O_TransposeConvOptions_stride_h),
                       gc_opt_i(c, GC_BO_TransposeConvOptions, GC_O_TransposeConvOptions_stride_w));
    case GC_OP_RESIZE_BILINEAR:
        GC_TRY(gc_compat_io(c, h, 1, 1));
        if (gc_opt_i(c, GC_BO_ResizeBilinearOptions, GC_O_ResizeBilinearOptions_align_corners) &&
            gc_opt_i(c, GC_BO_ResizeBilinearOptions, GC_O_ResizeBilinearOptions_half_pixel_centers))
            GC_REJECT(h, "resize.align_half_pixel", -1, "If half_pixel_centers is True, align_corners must be False.");
        return 0;
    case GC_OP_RESIZE_NEAREST_NEIGHBOR: return gc_compat_io(c, h, 1, 1);
    case GC_OP_REDUCE_ALL: case GC_OP_REDUCE_ANY: case GC_OP_REDUCE_MAX: case GC_OP_REDUCE_MIN:
    case GC_OP_REDUCE_PROD: case GC_OP_SUM:
        GC_TRY(gc_compat_ico(c, h, 1, 1, 1));
        return axes_i32_const(c, h, 1);
    case GC_OP_PAD: case GC_OP_PADV2: case GC_OP_MIRROR_PAD: return pad(c, h);
    case GC_OP_REVERSE_V2:
        GC_TRY(gc_compat_ico(c, h, 1, 1, 1));
        return axes_i32_const(c, h, 1);
    case GC_OP_ABS: case GC_OP_CEIL: case GC_OP_COS: case GC_OP_ELU: case GC_OP_EXP: case GC_OP_FLOOR:
    case GC_OP_GELU: case GC_OP_LOG: case GC_OP_LOGICAL_NOT: case GC_OP_LOGISTIC: case GC_OP_NEG:
    case GC_OP_ROUND: case GC_OP_RSQRT: case GC_OP_SIGN: case GC_OP_SIN: case GC_OP_SQRT: case GC_OP_SQUARE:
    case GC_OP_TANH:
        return gc_compat_ico(c, h, 1, 0, 1);
    case GC_OP_ATAN2: case GC_OP_DIV: case GC_OP_EQUAL: case GC_OP_FLOOR_DIV: case GC_OP_FLOOR_MOD:
    case GC_OP_GREATER: case GC_OP_GREATER_EQUAL: case GC_OP_LOGICAL_AND: case GC_OP_LOGICAL_OR:
    case GC_OP_LESS: case GC_OP_LESS_EQUAL: case GC_OP_MAXIMUM: case GC_OP_MINIMUM: case GC_OP_NOT_EQUAL:
    case GC_OP_POW: case GC_OP_RIGHT_SHIFT: case GC_OP_STABLEHLO_REMAINDER: case GC_OP_STABLEHLO_SHIFT_LEFT:
    case GC_OP_SQUARED_DIFFERENCE: case GC_OP_SUB: {
        if (!ico_ok(c, 2, 0, 1) && !ico_ok(c, 1, 1, 1))
            GC_REJECT(h, "elementwise.operands", -1, "Op can only handle 1 or 2 operand(s).");
        int64_t act = 0;
        if (c->code == GC_OP_DIV) act = gc_opt_i(c, GC_BO_DivOptions, GC_O_DivOptions_fused_activation_function);
        if (c->code == GC_OP_SUB) act = gc_opt_i(c, GC_BO_SubOptions, GC_O_SubOptions_fused_activation_function);
        return gc_compat_activation(h, act);
    }
    case GC_OP_STABLEHLO_BROADCAST_IN_DIM: {
        if (!ico_ok(c, 1, 1, 1))
            GC_REJECT(h, "broadcast_in_dim.inputs", -1, "requires one runtime input, one const input, and one output");
        const gc_tensor *x = gc_in(c, 0), *ix = gc_in(c, 1);
        if (ix->rank != 1) GC_REJECT(h, "broadcast_in_dim.indices", gc_in_idx(c, 1), "Only support 1D indices");
        if (ix->type != GC_T_INT32) GC_REJECT(h, "broadcast_in_dim.indices", gc_in_idx(c, 1), "Only support int32 indices");
        if (x->rank != ix->shape[0]) GC_REJECT(h, "broadcast_in_dim.indices", -1, "Require size(indices) = rank(operand)");
        return 0;
    }
    case GC_OP_STABLEHLO_CBRT: {
        const gc_tensor *x = gc_in(c, 0), *o = gc_out(c, 0);
        if (x && x->type != GC_T_FLOAT16 && x->type != GC_T_FLOAT32 && x->type != GC_T_BFLOAT16)
            GC_REJECT(h, "cbrt.type", gc_in_idx(c, 0), "Only support float inputs");
        if (x && o && x->type != o->type) GC_REJECT(h, "cbrt.type", -1, "Input and output types must match");
        return gc_compat_ico(c, h, 1, 0, 1);
    }
    case GC_OP_STABLEHLO_CLAMP: return clamp(c, h);
    case GC_OP_CUSTOM: return custom(c, h);
    default: break;
    }
    GC_REJECT(h, "compat.unsupported_op", -1, "Not supported op %s", gc_builtin_name(c->code));
}
