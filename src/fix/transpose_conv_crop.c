/* transpose_conv_crop.c — pass transpose_conv_crop [fix.transpose_conv.valid_crop]
 *
 * Rewrite:      TRANSPOSE_CONV(output_shape [N,OH,OW,OC], w [OC,KH,KW,C], x [N,H,W,C][, b])
 *               with SAME padding  ->
 *                   TRANSPOSE_CONV VALID (output_shape [N,OHv,OWv,OC], same w, x, b, strides,
 *                   fused activation, op version) -> t [N,OHv,OWv,OC]
 *                   SLICE(t, begin [0,pt,pl,0], size [N,OH,OW,OC]) -> y
 *               where OHv = (H-1)*sh + KH (the full scatter, VALID's padding is 0) and pt is
 *               SAME's top padding as TFLite computes it from the output size (the
 *               forward conv of OH: f = ceil(OH/sh), total = (f-1)*sh + KH - OH,
 *               pt = max(total, 0) / 2; pl likewise): the SAME output is
 *               out[oy][ox] = t[oy+pt][ox+pl].
 *               Measured on the H200 (both runtimes): 3x3 stride 2 SAME is wrong (sweep
 *               tconv_k3_s2_same, _bias; the fact numerics.tconv_k3_s2_same), while 3x3
 *               stride 2 VALID, every stride-1 kernel and 2x2 / 4x4 stride 2 either way were
 *               right. The VALID + SLICE form itself is not measured yet.
 * Precondition: padding SAME; output_shape a constant of 4 int32 equal to the output's
 *               static shape; x, w static 4-D; FLOAT32 output; OH + pt <= OHv and
 *               OW + pl <= OWv (a SAME output reaching past the full scatter would have
 *               rows with no taps, which a slice cannot make). Scope: nodes the checker
 *               refuses or a measured fact calls wrong with this fix.
 * Exactness:    bit-exact: every output element receives the same taps in the same
 *               order (the reference scatter over iy, ix, ic, ky, kx; a tap's position
 *               only moves by the padding), then the same bias and activation.
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_TRANSPOSE_CONV, -1 };

/* SAME's leading padding of a transpose conv of output size out (TFLite: the forward conv of out) */
static int64_t same_pad(int64_t out, int64_t k, int64_t s) {
    int64_t fwd = (out + s - 1) / s, total = (fwd - 1) * s + k - out;
    return total > 0 ? total / 2 : 0;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *old = fx_op(c, op);
    if (gc_opt_int(&old->opt, GC_O_TransposeConvOptions_padding) != 0) return fx_pass_over(c);   /* VALID */
    int n_in = old->n_inputs;
    if (n_in < 3 || n_in > 4 || old->n_outputs != 1) return fx_decline(c, "%d inputs, %d outputs", n_in, old->n_outputs);
    gc_fix_tinfo os, w, x, y;
    if (!fx_info(c, old->inputs[0], &os) || !fx_info(c, old->inputs[1], &w) || !fx_info(c, old->inputs[2], &x) ||
        !fx_info(c, old->outputs[0], &y))
        return fx_decline(c, "missing input or output");
    if (y.type != GC_T_FLOAT32) return fx_decline(c, "%s output (FLOAT32 only)", gc_type_name(y.type));
    if (!x.is_static || !w.is_static || !y.is_static || x.rank != 4 || w.rank != 4 || y.rank != 4)
        return fx_decline(c, "input, filter and output must be static 4-D");
    int64_t v[4];
    if (!os.is_const || os.type != GC_T_INT32 || fx_const_ints(c, os.index, v, 4) != 4)
        return fx_decline(c, "output_shape is not a constant of 4 int32");
    for (int d = 0; d < 4; d++)
        if (v[d] != y.shape[d]) return fx_decline(c, "output_shape disagrees with the output's shape");
    int64_t sh = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_stride_h);
    int64_t sw = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_stride_w);
    if (sh < 1 || sw < 1 || sh > 65536 || sw > 65536) return fx_decline(c, "stride %lldx%lld", (long long)sh, (long long)sw);
    int64_t H = x.shape[1], W = x.shape[2], KH = w.shape[1], KW = w.shape[2], OH = y.shape[1], OW = y.shape[2];
    if (H < 1 || W < 1 || KH < 1 || KW < 1) return fx_decline(c, "empty input or filter");
    int64_t ohv = (H - 1) * sh + KH, owv = (W - 1) * sw + KW;   /* <= 2^24 * 2^16 + 2^31: int64 */
    int64_t pt = same_pad(OH, KH, sh), pl = same_pad(OW, KW, sw);
    if (OH + pt > ohv || OW + pl > owv)
        return fx_decline(c, "the SAME output (%lldx%lld from offset %lld,%lld) reaches past the full scatter %lldx%lld",
                          (long long)OH, (long long)OW, (long long)pt, (long long)pl, (long long)ohv, (long long)owv);
    if (ohv > INT32_MAX || owv > INT32_MAX) return fx_decline(c, "the full scatter %lldx%lld is too large",
                                                            (long long)ohv, (long long)owv);
    int32_t in[4];
    for (int i = 0; i < n_in; i++) in[i] = old->inputs[i];
    int64_t act = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_fused_activation_function);
    int64_t qbt = gc_opt_int(&old->opt, GC_O_TransposeConvOptions_quantized_bias_type);
    int32_t version = gc_op_code(c->m, old)->version;
    int32_t full[4] = { y.shape[0], (int32_t)ohv, (int32_t)owv, y.shape[3] };
    fx_remove_op(c, op);
    int32_t shape = fx_const_i32(c, y.name, "valid_output_shape", 4, full);
    int32_t t = fx_new_tensor(c, y.name, "valid", y.type, 4, full, y.quant);
    if (shape < 0 || t < 0) return -1;
    in[0] = shape;
    int32_t k = fx_add_op(c, op, GC_OP_TRANSPOSE_CONV, version, n_in, in, 1, &t);
    if (k < 0) return -1;
    /* fresh options (the old op's value array stays as it was: a rollback restores it) */
    gc_options *o = &fx_op(c, k)->opt;
    gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_padding, 1);   /* VALID */
    gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_stride_w, sw);
    gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_stride_h, sh);
    if (act) gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_fused_activation_function, act);
    if (qbt) gc_opt_set_int(c->m, o, GC_O_TransposeConvOptions_quantized_bias_type, qbt);
    int32_t begin[4] = { 0, (int32_t)pt, (int32_t)pl, 0 };
    int32_t bt = fx_const_i32(c, y.name, "crop_begin", 4, begin);
    int32_t st = fx_const_i32(c, y.name, "crop_size", 4, y.shape);
    if (bt < 0 || st < 0) return -1;
    int32_t sin[3] = { t, bt, st };
    if (fx_add_op(c, op + 1, GC_OP_SLICE, fx_version_for(GC_OP_SLICE, y.type, 4), 3, sin, 1, &y.index) < 0) return -1;
    fx_note(c, "TRANSPOSE_CONV VALID to %lldx%lld, SLICE %lldx%lld from (%lld, %lld)", (long long)ohv, (long long)owv,
            (long long)OH, (long long)OW, (long long)pt, (long long)pl);
    return 1;
}

const gc_fix_pass gc_fix_transpose_conv_crop = {
    .id = "transpose_conv_crop",
    .fix_id = "fix.transpose_conv.valid_crop",
    .summary = "TRANSPOSE_CONV SAME measured wrong -> TRANSPOSE_CONV VALID + SLICE of the SAME window",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
