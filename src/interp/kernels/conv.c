/* conv.c — CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV (NHWC).
 *
 * Layouts: input [N, H, W, C]; CONV_2D filter [OC, KH, KW, IC/groups] (groups =
 * C / filter IC, TFLite v1-v8), bias [OC]; DEPTHWISE filter [1, KH, KW, C*multiplier]
 * (output channel c*multiplier + m reads input channel c), bias [C*multiplier];
 * TRANSPOSE_CONV inputs (output_shape [4], filter [OC, KH, KW, C], input, bias?).
 * Options read: padding (SAME / VALID), stride_w/h, dilation_w/h_factor (not
 * TRANSPOSE_CONV), depth_multiplier (checked against the filter), fused activation.
 *
 * Padding (TFLite ComputePaddingHeightWidth): effective kernel e = (k-1)*d + 1;
 * SAME: out = ceil(in/s), total = max((out-1)*s + e - in, 0), before = total/2;
 * VALID: out = (in - e + s)/s, before = 0. Taps outside the input contribute nothing
 * (float: skipped; quantized: the input reads as its zero point).
 * TRANSPOSE_CONV's output_shape input must be known at prepare, or else the output
 * tensor must have a static shape (checked against output_shape at eval).
 * TRANSPOSE_CONV computes its padding as the forward conv from its output size, and
 * scatters: out[iy*s + ky - pad][ix*s + kx - pad][oc] += x[iy][ix][ic] w[oc][ky][kx][ic].
 *
 * Accumulation order (float): each output starts at 0 and adds the taps in the order
 * (ky, kx, ic) — TRANSPOSE_CONV: in scatter order (iy, ix, ic, ky, kx) — then the bias,
 * then the activation clamp. This is TFLite's reference order. The loops keep it while
 * running over output channels innermost, on weights transposed once at prepare to
 * [KH][KW][IC][OC], so that the compiler can vectorise across output channels.
 *
 * Fast path (ctx->fast_float: fp32, fp16 or fp16-acc without opts.reference_kernels, constant
 * filter and bias): CONV_2D through kernels/gemm_f32.h (filter packed once into panels,
 * register-blocked microkernels, row pointers instead of im2col), DEPTHWISE_CONV_2D with
 * depth multiplier 1 through kernels/dwconv_f32.h (filter read in place), TRANSPOSE_CONV
 * through kernels/tconv_f32.h (one packed filter per output phase). All three are
 * bit-identical to the loops above (same order per output; each multiply-add fused with
 * opts.float_arith fma, the default, else a multiply then an add); a filter with Inf /
 * NaN weights (in the fp16 modes: after rounding to half) where a tap can fall outside
 * the input takes the reference loops. In the fp16 modes the same kernels run on the
 * half-rounded values: float sums as they are (GC_GEMM_F32 / GC_DWF_F32), sums in half
 * (a16) in their GC_GEMM_H16 / GC_DWF_H16 mode, which keeps every rounding of the loops
 * below; the native runtime's Winograd convs take winograd16_fast.c. The packed copy
 * replaces the transposed one, and the filter and bias are marked unread
 * (node->unread_in) so that the interpreter can give their memory back (in fp16, the
 * half-rounded copy of the filter; Winograd reads only its transformed filter).
 *
 * 8-bit fast path (ctx->fast, int8 / uint8 input and filter, INT32 bias or none, CONV_2D
 * without groups, DEPTHWISE_CONV_2D with multiplier 1): kernels/qconv8.h (qgemm8.h: packed
 * filter, VNNI / AVX2 / C microkernels, the requantization below on vectors; a PAD before
 * the conv folded into it), bit-identical to the loops below; the int32 filter copy is
 * then not made.
 *
 * Quantized (TFLite reference integer kernels):
 *   INT8 per-channel (filter zero point 0): acc = sum (x - zp_x) w + bias (int32);
 *   (8-bit activations accumulate in int32 as TFLite does; 16-bit ones in int64)
 *   UINT8 per-tensor: acc = sum (x - zp_x)(w - zp_w) + bias (int32);
 *   INT16 activations x INT8 weights: int64 accumulator and bias, 64-bit rescale;
 *   out = clamp(MultiplyByQuantizedMultiplier(acc, M_oc) + zp_out, act range),
 *   M_oc = s_x s_w[oc] / s_out (double), TFLite's QuantizeMultiplier.
 * Hybrid (float input, constant INT8 / INT4 filter with per-tensor or per-channel scales,
 *   zero points 0; CONV_2D and DEPTHWISE_CONV_2D; interp/hybrid.h): each batch image is
 *   quantized at run time (TFLite: CONV_2D with distinct per-channel scales or groups,
 *   and DEPTHWISE_CONV_2D: asymmetric; CONV_2D with one scale: symmetric; --int-arith
 *   xnnpack: INT8 CONV_2D as XNNPACK's qd8 (INT4 ones stay TFLite's), per pixel for a 1x1 stride-1 conv which XNNPACK
 *   runs as a fully connected layer; DEPTHWISE_CONV_2D as TFLite's, which XNNPACK leaves
 *   to the builtin kernel), acc = sum over the taps inside the image of (q - z_x) w in
 *   int32, y = acc * (s_x s_w[oc]) + bias (DEPTHWISE_CONV_2D: (acc * s_w[oc]) * s_x + bias;
 *   XNNPACK: fma(acc * s_x, s_w[oc], bias)), then the clamp: LiteRT's optimized kernels'
 *   orders (its reference conv kernel rounds (acc s_w) s_x, one ulp apart at times). A single scale is used for every channel (TFLite's depthwise kernel reads
 *   one scale per channel whatever the file has). fp16 / fp16-acc: the float path on the
 *   dequantized filter w * s rounded to half (the GPU dequantizes constant weights).
 *
 * fp16: weights and bias are rounded at prepare (as every float constant); output
 * rounded by the core. How the products are summed follows the runtime's model
 * (interp/fp16_model.h, ctx->hm): in float, or in half (acc = r(acc + r(x w)) per
 * multiply-add, out = r(acc + b)), per kind: CONV_2D with at most conv_small_max_ic
 * input channels per group, other CONV_2D and TRANSPOSE_CONV, DEPTHWISE_CONV_2D. A
 * CONV_2D that ML Drift runs as Winograd F(4x4, 3x3) (model.winograd and
 * gc_wino16_eligible) goes through kernels/winograd16.c on transformed weights made
 * from the file's float32 filter (its fast path, winograd16_fast.c, with ctx->fast_float).
 * fp16-acc: every conv sums in half as above.
 */
#include "interp/interp_impl.h"
#include "interp/hybrid.h"
#include "interp/kernels/winograd16.h"
#ifndef GC_FP64_BUILD
#include "interp/kernels/gemm_f32.h"
#include "interp/kernels/dwconv_f32.h"
#include "interp/kernels/tconv_f32.h"
#include "interp/kernels/qconv8.h"
#include "interp/kernels/qgemm8.h"
#include "interp/kernels/vexpf.h"
#endif

/* The inner loops run across independent outputs, so vectorising them keeps every
 * output's accumulation order; GCC's -O2 does not vectorise them, -O3 does. */
#include "interp/kernels/vec_loops.h"

#include <stdlib.h>

enum { K_CONV, K_DW, K_TCONV };

typedef struct {
    int kind;
    int dt;                             /* input type */
    int32_t B, H, W, C, OH, OW, OC, KH, KW, ICg, G, mult;
    int sh, sw, dh, dw, pt, pl;
    float lo, hi;
    int act;
    float *wt;                          /* float weights, transposed (see above) */
    int32_t *wq;                        /* integer weights minus their zero point, transposed */
    const uint8_t *bias_q;              /* int32 or int64 bias bytes */
    bool bias64;
    int32_t *qm; int *qs;               /* per output channel multiplier / shift */
    float *qf;                          /* per output channel float scale (xnnpack mode) */
    bool xnn;
    bool acc64;                         /* 8-bit: int64 accumulators (int32 could overflow) */
    int32_t x_off, y_off, qlo, qhi;
    int w_slot;                         /* scratch for per-eval transposition (-1: none) */
    bool check_shape;                   /* TRANSPOSE_CONV: output_shape known only at eval */
    int acc_slot;                       /* scratch for the accumulator row */
    /* hybrid (float x, INT8 / INT4 filter) */
    bool hybrid;
    int hq;                             /* GC_HQ_* */
    int8_t *w8;                         /* filter as int8, [KH][KW][ICg][OC] ([KH][KW][OC] dw) */
    gc_f32 *hs;                         /* per output channel filter scale */
    int q_slot, qp_slot;                /* scratch: quantized input; per-batch step and zero point */
    bool hq_pixel;                      /* XNNPACK 1x1 stride-1 conv: quantized per pixel */
    /* fp16 */
    bool a16;                           /* float path sums in half (fp16-acc, or the model says so) */
    bool fma;                           /* fp32 with opts.float_arith fma: every multiply-add of
                                           CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV is
                                           acc = fmaf(x, w, acc), one rounding (GC_GEMM_F32_FMA,
                                           GC_DWF_FMA); the order of the terms is unchanged */
    bool k16h;                          /* fp16 native on the matrix cores: GC_ACC_K16H over the
                                           flattened (tap, channel) k (fp16_model.h conv_mma) */
    gc_wino16 *wino;                    /* Winograd in half (native fp16), else NULL */
    int wino_slot;                      /* scratch: one gc_wino16 worker area per thread */
    /* fast path (ctx->fast_float: fp32 and the fp16 modes; gemm_f32.h, dwconv_f32.h): bit-identical, replaces wt */
#ifndef GC_FP64_BUILD
    gc_convf *fast;                     /* CONV_2D: packed filter and geometry, else NULL */
    gc_dwf *dwf;                        /* DEPTHWISE_CONV_2D, else NULL */
    gc_tconvf *tcf;                     /* TRANSPOSE_CONV, else NULL */
    gc_vexp_params swp;                 /* n->swish_epi: the swish's parameters ... */
    int swisa;                          /* ... and level (gc_isa) */
#endif
    int fast_slot;                      /* scratch: one gc_convf row-pointer area per thread */
    struct gc_q8op *q8;                 /* 8-bit fast path (qconv8.h), else NULL */
} conv_data;

/* In 64 bits: kernel, dilation and stride come from the file ((k - 1) * d alone can
 * exceed int); conv_prepare range-checks the results. */
static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t d, int same) {
    int64_t e = (k - 1) * d + 1;
    return same ? (in + s - 1) / s : (in - e + s) / s;
}
static int64_t pad_before(int64_t in, int64_t k, int64_t s, int64_t d, int64_t out) {
    int64_t e = (k - 1) * d + 1;
    int64_t total = (out - 1) * s + e - in;
    return total > 0 ? total / 2 : 0;
}

/* Transpose a filter [OC][KH][KW][ICg] to [KH][KW][ICg][OC] (conv, tconv). */
static void transpose_filter_f(const float *w, float *wt, int OC, int K) {
    for (int oc = 0; oc < OC; oc++)
        for (int k = 0; k < K; k++) wt[(size_t)k * OC + oc] = w[(size_t)oc * K + k];
}

/* Zero points must lie in their type's range: the file can say anything, and the integer
 * arithmetic relies on |x - zp|, |w - zp| <= 2^16 (a zero point of INT32_MIN overflowed
 * the negation, one of INT32_MAX the input offset). */
static gc_status zp_in_range(gc_ctx *ctx, const char *what, int dtype, int64_t zp) {
    int32_t lo, hi;
    gc_qrange(dtype, &lo, &hi);
    GC_ENSURE(ctx, zp >= lo && zp <= hi, "%s zero point %lld is outside the range of %s",
              what, (long long)zp, gc_type_name(dtype));
    return GC_OK;
}

static gc_status quant_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, gc_rt *x, gc_rt *w, gc_rt *b, gc_rt *y, int K) {
    GC_ENSURE(ctx, w->known, "quantized weights must be constant");
    GC_UNSUP(ctx, w->dtype == GC_T_INT8 || w->dtype == GC_T_UINT8, "weights of type %s", gc_type_name(w->dtype));
    GC_ENSURE(ctx, x->scale > 0 && y->scale > 0 && isfinite(x->scale) && isfinite(y->scale) && w->q && w->q->n_scale >= 1,
              "quantized conv needs finite positive scales");
    GC_ENSURE(ctx, x->dtype == y->dtype, "input %s, output %s", gc_type_name(x->dtype), gc_type_name(y->dtype));
    int ns = w->q->n_scale;
    GC_ENSURE(ctx, ns == 1 || ns == d->OC, "filter has %d scales for %d output channels", ns, (int)d->OC);
    for (int i = 0; i < ns; i++)
        GC_ENSURE(ctx, w->q->scale[i] >= 0 && isfinite(w->q->scale[i]), "filter scale %d is %g", i, (double)w->q->scale[i]);
    GC_TRY(zp_in_range(ctx, "input", x->dtype, x->zp));
    GC_TRY(zp_in_range(ctx, "output", y->dtype, y->zp));
    for (int i = 0; i < w->q->n_zero_point; i++) GC_TRY(zp_in_range(ctx, "filter", w->dtype, w->q->zero_point[i]));
    /* a fused activation's bounds are zp + round(6 / scale): keep that inside int32 */
    GC_ENSURE(ctx, d->act == GC_ACT_NONE || (double)y->scale * 1073741824.0 >= 6.0,
              "output scale %g is too small for fused activation %d", (double)y->scale, d->act);
    /* 8-bit: TFLite sums in int32; K taps of at most 255 * 255 each must fit, else int64 */
    d->acc64 = x->dtype == GC_T_INT16 || (int64_t)K * 65025 > INT32_MAX;
    d->qm = gc_ctx_alloc(ctx, (size_t)d->OC * sizeof(int32_t));
    d->qs = gc_ctx_alloc(ctx, (size_t)d->OC * sizeof(int));
    d->qf = gc_ctx_alloc(ctx, (size_t)d->OC * sizeof(float));
    if (!d->qm || !d->qs || !d->qf) return GC_ERR_NOMEM;
    d->xnn = ctx->xnn && x->dtype != GC_T_INT16;
    for (int oc = 0; oc < d->OC; oc++) {
        double m = (double)x->scale * (double)w->q->scale[ns == 1 ? 0 : oc] / (double)y->scale;
        gc_q_multiplier(m, &d->qm[oc], &d->qs[oc]);
        /* the 64-bit rescale (16-bit activations) shifts by 15 - shift: needs shift <= 14 */
        GC_ENSURE(ctx, x->dtype != GC_T_INT16 || d->qs[oc] <= 14,
                  "output channel %d: requantization multiplier %g is out of range", oc, m);
        d->qf[oc] = x->scale * w->q->scale[ns == 1 ? 0 : oc] / y->scale;   /* float32, as XNNPACK */
    }
    if (b) {
        GC_ENSURE(ctx, b->known, "quantized bias must be constant");
        GC_ENSURE(ctx, b->dtype == GC_T_INT32 || b->dtype == GC_T_INT64, "bias must be INT32 or INT64, not %s", gc_type_name(b->dtype));
        GC_ENSURE(ctx, (int64_t)gc_numel(b) == d->OC, "bias has %llu entries for %d channels", (unsigned long long)gc_numel(b), (int)d->OC);
        d->bias_q = b->data; d->bias64 = b->dtype == GC_T_INT64;
        /* |acc| < 2^56 (K < 2^31 taps of < 2^25); a bias within 2^56 keeps acc + bias in int64 */
        for (int oc = 0; oc < d->OC && d->bias64; oc++) {
            int64_t v; memcpy(&v, d->bias_q + (size_t)oc * 8, 8);
            GC_ENSURE(ctx, v > -((int64_t)1 << 56) && v < ((int64_t)1 << 56), "bias %d is %lld, out of range", oc, (long long)v);
        }
    }
    d->x_off = -x->zp; d->y_off = y->zp;
    gc_qrange(y->dtype, &d->qlo, &d->qhi);
    gc_q_act_range(d->act, y->scale, y->zp, d->qlo, d->qhi, &d->qlo, &d->qhi);
#ifndef GC_FP64_BUILD
    if (d->kind != K_TCONV) {                 /* 8-bit: the fast kernels (qconv8.h), when they apply */
        gc_q8desc q = { .kind = d->kind == K_DW ? GC_Q8_DW : GC_Q8_GEMM, .is_conv = true, .Bn = d->B, .H = d->H,
                        .W = d->W, .C = d->C, .OH = d->OH, .OW = d->OW, .OC = d->OC, .KH = d->KH, .KW = d->KW,
                        .sh = d->sh, .sw = d->sw, .dh = d->dh, .dw = d->dw, .pt = d->pt, .pl = d->pl, .G = d->G,
                        .mult = d->mult, .xdt = x->dtype, .w = w, .b = b, .zx = x->zp, .zy = y->zp, .lo = d->qlo,
                        .hi = d->qhi, .qm = d->qm, .qs = d->qs, .qf = d->qf, .xnn = d->xnn };
        GC_TRY(gc_q8_prepare(ctx, n, &q, &d->q8));
        if (d->q8) return GC_OK;
    }
#endif
    /* zero points: per tensor for uint8, 0 for int8 (per-channel) */
    bool fresh;
    d->wq = gc_ctx_derived(ctx, w->data, 10 + d->kind, d->OC, (int64_t)(uintptr_t)w->q,
                           (size_t)K * (size_t)d->OC * sizeof(int32_t), &fresh);
    if (!d->wq) return GC_ERR_NOMEM;
    int32_t wzp_all = w->q->n_zero_point >= 1 ? (int32_t)w->q->zero_point[0] : 0;
    for (int oc = 0; oc < d->OC && fresh; oc++) {
        int32_t wzp = w->q->n_zero_point == d->OC && d->OC > 1 ? (int32_t)w->q->zero_point[oc] : wzp_all;
        for (int k = 0; k < K; k++) {
            size_t src = d->kind == K_DW ? (size_t)k * d->OC + oc : (size_t)oc * K + k;
            d->wq[(size_t)k * d->OC + oc] = gc_qget(w->dtype, w->data, src) - wzp;
        }
    }
    return GC_OK;
}

#ifndef GC_FP64_BUILD
static gc_status fp16_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, gc_rt *w);
static gc_status fast_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, gc_rt *w, gc_rt *b, int64_t K);
#endif

static gc_status hybrid_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, gc_rt *x, gc_rt *w, gc_rt *b, gc_rt *y, int64_t K) {
    GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32, "output must be FLOAT32");
    GC_ENSURE(ctx, !b || b->dtype == GC_T_FLOAT32, "bias must be FLOAT32");
    bool pc, eq;
    GC_TRY(gc_hq_scales(ctx, w, d->OC, d->kind == K_DW ? 3 : 0, &d->hs, &pc, &eq));
    gc_act_range_f(d->act, &d->lo, &d->hi);
    const size_t kn = (size_t)K * (size_t)d->OC;
    bool fresh;
    if (ctx->fp16 || ctx->fp64) {          /* dequantized, rounded to half: the float path */
        d->wt = gc_ctx_derived(ctx, w->data, 30 + d->kind, d->OC, K, kn * sizeof(float), &fresh);
        if (!d->wt) return GC_ERR_NOMEM;
        for (int64_t oc = 0; oc < d->OC && fresh; oc++)
            for (int64_t k = 0; k < K; k++) {
                size_t src = d->kind == K_DW ? (size_t)k * d->OC + (size_t)oc : (size_t)oc * K + (size_t)k;
                d->wt[(size_t)k * d->OC + (size_t)oc] = gc_f16_round((float)gc_hq_wget(w, src) * d->hs[oc]);
            }
#ifndef GC_FP64_BUILD
        if (ctx->fp16) return fp16_prepare(ctx, n, d, NULL);
#endif
        return GC_OK;
    }
    /* int32 accumulators as TFLite's: K taps of |q - z| <= 255 times |w| <= 128 */
    GC_UNSUP(ctx, K <= 65793, "hybrid filter of %lld taps per output channel could overflow the int32 accumulator",
             (long long)K);
    d->hybrid = true;
    if (ctx->xnn && d->kind == K_CONV && w->dtype == GC_T_INT8) d->hq = GC_HQ_XNNPACK;
    else d->hq = (d->kind == K_DW || (pc && !eq) || d->G != 1) ? GC_HQ_ASYMMETRIC : GC_HQ_SYMMETRIC;
    d->w8 = gc_ctx_derived(ctx, w->data, 12 + d->kind, d->OC, K, kn, &fresh);
    if (!d->w8) return GC_ERR_NOMEM;
    for (int64_t oc = 0; oc < d->OC && fresh; oc++)
        for (int64_t k = 0; k < K; k++) {
            size_t src = d->kind == K_DW ? (size_t)k * d->OC + (size_t)oc : (size_t)oc * K + (size_t)k;
            d->w8[(size_t)k * d->OC + (size_t)oc] = gc_hq_wget(w, src);
        }
    /* XNNPACK runs a pointwise convolution as a fully connected layer: one quantization
     * per pixel */
    d->hq_pixel = d->hq == GC_HQ_XNNPACK && d->KH == 1 && d->KW == 1 && d->sh == 1 && d->sw == 1 && d->G == 1;
    d->q_slot = gc_ctx_scratch(ctx, n, gc_numel(x) + 16);
    d->qp_slot = gc_ctx_scratch(ctx, n, (d->hq_pixel ? gc_numel(x) / (uint64_t)d->C : (uint64_t)d->B) * 8 + 16);
    return GC_OK;
}

static gc_status conv_prepare(gc_ctx *ctx, gc_node *n) {
    conv_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->kind = n->code == GC_OP_CONV_2D ? K_CONV : n->code == GC_OP_DEPTHWISE_CONV_2D ? K_DW : K_TCONV;
    d->fma = ctx->fma;
    d->w_slot = -1;
    const gc_options *o = gc_opts(n);
    gc_rt *x, *w, *b, *y = NULL;
    int same;
    if (d->kind == K_TCONV) {
        GC_TRY(gc_opt_expect(ctx, n, GC_BO_TransposeConvOptions));
        GC_TRY(gc_check_arity(ctx, n, 3, 4, 1));
        x = n->in[2]; w = n->in[1]; b = n->n_in > 3 ? n->in[3] : NULL;
        same = gc_opt_int(o, GC_O_TransposeConvOptions_padding) == 0;
        d->sw = (int)gc_opt_int(o, GC_O_TransposeConvOptions_stride_w);
        d->sh = (int)gc_opt_int(o, GC_O_TransposeConvOptions_stride_h);
        d->dw = d->dh = 1;
        d->act = (int)gc_opt_int(o, GC_O_TransposeConvOptions_fused_activation_function);
    } else if (d->kind == K_CONV) {
        GC_TRY(gc_opt_expect(ctx, n, GC_BO_Conv2DOptions));
        GC_TRY(gc_check_arity(ctx, n, 2, 3, 1));
        x = n->in[0]; w = n->in[1]; b = n->n_in > 2 ? n->in[2] : NULL;
        same = gc_opt_int(o, GC_O_Conv2DOptions_padding) == 0;
        d->sw = (int)gc_opt_int(o, GC_O_Conv2DOptions_stride_w);
        d->sh = (int)gc_opt_int(o, GC_O_Conv2DOptions_stride_h);
        d->dw = (int)gc_opt_int(o, GC_O_Conv2DOptions_dilation_w_factor);
        d->dh = (int)gc_opt_int(o, GC_O_Conv2DOptions_dilation_h_factor);
        d->act = (int)gc_opt_int(o, GC_O_Conv2DOptions_fused_activation_function);
    } else {
        GC_TRY(gc_opt_expect(ctx, n, GC_BO_DepthwiseConv2DOptions));
        GC_TRY(gc_check_arity(ctx, n, 2, 3, 1));
        x = n->in[0]; w = n->in[1]; b = n->n_in > 2 ? n->in[2] : NULL;
        same = gc_opt_int(o, GC_O_DepthwiseConv2DOptions_padding) == 0;
        d->sw = (int)gc_opt_int(o, GC_O_DepthwiseConv2DOptions_stride_w);
        d->sh = (int)gc_opt_int(o, GC_O_DepthwiseConv2DOptions_stride_h);
        d->dw = (int)gc_opt_int(o, GC_O_DepthwiseConv2DOptions_dilation_w_factor);
        d->dh = (int)gc_opt_int(o, GC_O_DepthwiseConv2DOptions_dilation_h_factor);
        d->act = (int)gc_opt_int(o, GC_O_DepthwiseConv2DOptions_fused_activation_function);
    }
    y = n->out[0];
    if (n->op->opt.type == 0) { d->sw = d->sh = 1; }
    if (d->dw < 1) d->dw = 1;
    if (d->dh < 1) d->dh = 1;
    GC_ENSURE(ctx, d->sw >= 1 && d->sh >= 1, "stride %dx%d", d->sh, d->sw);
    /* keeps (k - 1) * dilation and positions * stride inside int */
    GC_ENSURE(ctx, d->sw <= 65536 && d->sh <= 65536 && d->dw <= 65536 && d->dh <= 65536,
              "stride %dx%d / dilation %dx%d out of range", d->sh, d->sw, d->dh, d->dw);
    GC_UNSUP(ctx, d->act <= GC_ACT_RELU6, "fused activation %d is not supported", d->act);
    GC_ENSURE(ctx, x->rank == 4 && w->rank == 4, "input and filter must be 4-D (NHWC)");
    d->dt = x->dtype;
    d->B = x->shape[0]; d->H = x->shape[1]; d->W = x->shape[2]; d->C = x->shape[3];
    d->KH = w->shape[1]; d->KW = w->shape[2];
    GC_ENSURE(ctx, d->KH <= 65536 && d->KW <= 65536 && d->H <= (1 << 24) && d->W <= (1 << 24),
              "kernel %dx%d / input %dx%d out of range", (int)d->KH, (int)d->KW, (int)d->H, (int)d->W);
    GC_ENSURE(ctx, d->C > 0 && d->KH > 0 && d->KW > 0 && w->shape[0] > 0 && w->shape[3] > 0,
              "empty input depth or filter (%dx%d kernel, depth %d)", (int)d->KH, (int)d->KW, (int)d->C);
    int64_t K, oh = 0, ow = 0;
    /* effective kernels (k - 1) * dilation + 1 up to 2^30 keep every tap position
     * (oy * stride - pad + ky * dilation) inside int32 */
    GC_ENSURE(ctx, (int64_t)(d->KH - 1) * d->dh < (1 << 30) && (int64_t)(d->KW - 1) * d->dw < (1 << 30),
              "dilated kernel %dx%d (dilation %dx%d) out of range", (int)d->KH, (int)d->KW, d->dh, d->dw);
    if (d->kind == K_CONV) {
        d->OC = w->shape[0]; d->ICg = w->shape[3];
        GC_ENSURE(ctx, d->ICg > 0 && d->C % d->ICg == 0, "input depth %d not a multiple of filter depth %d", (int)d->C, (int)d->ICg);
        d->G = d->C / d->ICg;
        GC_ENSURE(ctx, d->OC % d->G == 0, "output channels %d not divisible into %d groups", (int)d->OC, (int)d->G);
        oh = out_size(d->H, d->KH, d->sh, d->dh, same);
        ow = out_size(d->W, d->KW, d->sw, d->dw, same);
        K = (int64_t)d->KH * d->KW * d->ICg;
    } else if (d->kind == K_DW) {
        GC_ENSURE(ctx, w->shape[0] == 1, "depthwise filter must be [1, KH, KW, C*m]");
        d->OC = w->shape[3];
        GC_ENSURE(ctx, d->C > 0 && d->OC % d->C == 0, "filter depth %d not a multiple of input depth %d", (int)d->OC, (int)d->C);
        d->mult = d->OC / d->C;
        oh = out_size(d->H, d->KH, d->sh, d->dh, same);
        ow = out_size(d->W, d->KW, d->sw, d->dw, same);
        K = (int64_t)d->KH * d->KW;
    } else {
        GC_ENSURE(ctx, gc_numel(n->in[0]) == 4, "output_shape must have 4 entries");
        d->OC = w->shape[0]; d->ICg = w->shape[3];
        GC_ENSURE(ctx, d->ICg == d->C, "filter depth %d, input depth %d", (int)d->ICg, (int)d->C);
        if (n->in[0]->known) {
            GC_ENSURE(ctx, gc_get_int(n->in[0], 3) == d->OC && gc_get_int(n->in[0], 0) == d->B,
                      "output_shape disagrees with the filter / batch");
            oh = gc_get_int(n->in[0], 1); ow = gc_get_int(n->in[0], 2);
        } else {
            /* given at run time: take the file's static output shape, check it at eval */
            const gc_tensor *t = y->ir;
            bool dyn = t->rank != 4;
            for (int i = 0; i < t->n_shape_signature; i++) dyn |= t->shape_signature[i] < 0;
            GC_UNSUP(ctx, !dyn && t->shape[0] == d->B && t->shape[3] == d->OC,
                     "output_shape is computed at run time and the output has no static shape");
            oh = t->shape[1]; ow = t->shape[2];
            d->check_shape = true;
        }
        K = (int64_t)d->KH * d->KW * d->C;
        /* the scatter's positions iy * stride + ky - pad stay inside int32 */
        GC_ENSURE(ctx, (int64_t)d->H * d->sh <= (1 << 30) && (int64_t)d->W * d->sw <= (1 << 30),
                  "input %dx%d at stride %dx%d out of range", (int)d->H, (int)d->W, d->sh, d->sw);
    }
    GC_ENSURE(ctx, oh >= 0 && ow >= 0, "output would be empty");
    GC_ENSURE(ctx, oh <= (1 << 24) && ow <= (1 << 24), "output %lldx%lld out of range", (long long)oh, (long long)ow);
    GC_ENSURE(ctx, K <= INT32_MAX, "filter of %lld taps per output channel out of range", (long long)K);
    d->OH = (int32_t)oh; d->OW = (int32_t)ow;
    if (d->kind == K_TCONV) {
        d->pt = same ? (int)pad_before(d->OH, d->KH, d->sh, 1, out_size(d->OH, d->KH, d->sh, 1, 1)) : 0;
        d->pl = same ? (int)pad_before(d->OW, d->KW, d->sw, 1, out_size(d->OW, d->KW, d->sw, 1, 1)) : 0;
    } else {
        d->pt = same ? (int)pad_before(d->H, d->KH, d->sh, d->dh, d->OH) : 0;
        d->pl = same ? (int)pad_before(d->W, d->KW, d->sw, d->dw, d->OW) : 0;
    }
    if (b) GC_ENSURE(ctx, (int64_t)gc_numel(b) == d->OC, "bias has %llu entries for %d channels",
                     (unsigned long long)gc_numel(b), (int)d->OC);
    if (x->dtype == GC_T_FLOAT32 && gc_hq_is_weight(w)) {
        GC_UNSUP(ctx, d->kind != K_TCONV, "TRANSPOSE_CONV with a float input and %s weights (hybrid) is not supported",
                 gc_type_name(w->dtype));
        GC_TRY(hybrid_prepare(ctx, n, d, x, w, b, y, K));
    } else if (x->dtype == GC_T_FLOAT32) {
        GC_UNSUP(ctx, w->dtype == GC_T_FLOAT32, "float input with %s weights (hybrid) is not supported",
                 gc_type_name(w->dtype));
        GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32, "output must be FLOAT32");
        GC_ENSURE(ctx, !b || b->dtype == GC_T_FLOAT32, "bias must be FLOAT32");
        gc_act_range_f(d->act, &d->lo, &d->hi);
        size_t wbytes = (size_t)K * (size_t)d->OC * sizeof(float);
#ifndef GC_FP64_BUILD
        GC_TRY(fp16_prepare(ctx, n, d, w));           /* d->a16; Winograd: d->wino */
        if (ctx->fast_float && !d->wino && w->known && (!b || b->known)) GC_TRY(fast_prepare(ctx, n, d, w, b, K));
        if (d->fast || d->dwf || d->tcf || d->wino) {
            /* the fast kernels read only their own packed copy; Winograd its transformed one */
        } else
#endif
        if (w->known && d->kind == K_DW) {
            d->wt = (float *)w->data;                 /* already [KH][KW][OC] */
        } else if (w->known) {
            bool fresh;
            d->wt = gc_ctx_derived(ctx, w->data, d->kind, d->OC, K, wbytes, &fresh);
            if (!d->wt) return GC_ERR_NOMEM;
            if (fresh) transpose_filter_f((const float *)w->data, d->wt, d->OC, K);
        } else if (d->kind != K_DW) {
            d->w_slot = gc_ctx_scratch(ctx, n, wbytes);
        }
    } else {
        GC_UNSUP(ctx, gc_is_qint(x->dtype), "input type %s is not supported", gc_type_name(x->dtype));
        GC_TRY(quant_prepare(ctx, n, d, x, w, b, y, (int)K));
    }
    if (d->kind == K_TCONV && d->dt != GC_T_FLOAT32)   /* the whole output, int64 */
        d->acc_slot = gc_ctx_scratch(ctx, n, (size_t)d->B * d->OH * d->OW * d->OC * sizeof(int64_t));
    else   /* one accumulator row per thread (conv_job) */
        d->acc_slot = gc_ctx_scratch(ctx, n, ((size_t)d->OC * 8 + 64) * (size_t)(ctx->threads > 0 ? ctx->threads : 1));
    n->data = d;
    int32_t shp[4] = { d->B, d->OH, d->OW, d->OC };
    return gc_set_shape(ctx, y, 4, shp);
}

/* ---- float ---------------------------------------------------------------------------- */

#ifndef GC_FP64_BUILD
/* Does some output read a tap outside the input (top / left padding, or the last output
 * reaching past the bottom / right edge)? */
static bool has_padding_taps(const conv_data *d) {
    return d->pt > 0 || d->pl > 0 ||
           (int64_t)(d->OH - 1) * d->sh - d->pt + (int64_t)(d->KH - 1) * d->dh >= d->H ||
           (int64_t)(d->OW - 1) * d->sw - d->pl + (int64_t)(d->KW - 1) * d->dw >= d->W;
}

/* fp32 TRANSPOSE_CONV (tconv_f32.h): one packed filter per output phase. */
static gc_status tconv_fast_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, const float *wf, const float *bias) {
    gc_tconvf *c = gc_ctx_alloc(ctx, sizeof *c);
    if (!c) return GC_ERR_NOMEM;
    *c = (gc_tconvf){ .Bn = d->B, .H = d->H, .W = d->W, .C = d->C, .OH = d->OH, .OW = d->OW, .OC = d->OC,
                      .KH = d->KH, .KW = d->KW, .sh = d->sh, .sw = d->sw, .pt = d->pt, .pl = d->pl,
                      .lo = d->lo, .hi = d->hi, .h16 = d->a16 };
    if (!gc_tconvf_exact(c, wf) || d->sh > 64 || d->sw > 64) return GC_OK;
    const gc_gemm_mode mode = d->a16 ? GC_GEMM_H16 : d->fma ? GC_GEMM_F32_FMA : GC_GEMM_F32;
    const int32_t nph = d->sh * d->sw;
    c->ph = gc_ctx_alloc(ctx, (size_t)nph * sizeof *c->ph);
    c->nky = gc_ctx_alloc(ctx, (size_t)d->sh * sizeof(int32_t));
    c->nkx = gc_ctx_alloc(ctx, (size_t)d->sw * sizeof(int32_t));
    c->zero = gc_ctx_alloc(ctx, (size_t)d->C * sizeof(float));
    if (!c->ph || !c->nky || !c->nkx || !c->zero) return GC_ERR_NOMEM;
    for (int32_t p = 0; p < d->sh; p++) c->nky[p] = gc_tconvf_ntaps(p, d->sh, d->KH);
    for (int32_t p = 0; p < d->sw; p++) c->nkx[p] = gc_tconvf_ntaps(p, d->sw, d->KW);
    size_t total = 0, maxk = 0;
    const gc_gemm_b *any = NULL;
    for (int32_t py = 0; py < d->sh; py++)
        for (int32_t px = 0; px < d->sw; px++) {
            int32_t T = c->nky[py] * c->nkx[px];
            if (T > c->max_taps) c->max_taps = T;
            if (!T) continue;
            size_t nf = gc_gemm_b_layout_mode(&c->ph[py * d->sw + px], (gc_isa)ctx->isa, mode, 1, T * d->C, d->OC);
            GC_UNSUP(ctx, nf > 0 && total <= SIZE_MAX / sizeof(float) - nf, "filter too large to pack");
            total += nf;
            if ((size_t)T * (size_t)d->C > maxk) maxk = (size_t)T * (size_t)d->C;
            any = &c->ph[py * d->sw + px];
        }
    if (!any) return GC_OK;                    /* no taps at all: the reference */
    bool fresh;
    float *mem = gc_ctx_derived(ctx, wf, 70 + ctx->isa + 100 * mode, d->sh * 256 + d->sw, (int64_t)d->KH * 65536 + d->KW,
                                total * sizeof(float), &fresh);
    float *pbias = gc_ctx_alloc(ctx, gc_gemm_bias_floats(any) * sizeof(float));
    float *tmp = fresh ? malloc(maxk * (size_t)d->OC * sizeof(float)) : NULL;
    if (!mem || !pbias || (fresh && !tmp)) { free(tmp); return GC_ERR_NOMEM; }
    size_t off = 0;
    for (int32_t py = 0; py < d->sh; py++)
        for (int32_t px = 0; px < d->sw; px++) {
            gc_gemm_b *pb = &c->ph[py * d->sw + px];
            if (!pb->ks) continue;
            gc_gemm_b_bind(pb, mem + off);
            off += gc_gemm_b_layout_mode(&(gc_gemm_b){ 0 }, (gc_isa)ctx->isa, mode, 1, pb->K, pb->N);
            if (fresh) gc_tconvf_pack(c, wf, py, px, tmp);
        }
    free(tmp);
    gc_gemm_pack_bias(any, bias, pbias);
    c->bias = pbias;
    int nt = ctx->threads > 0 ? ctx->threads : 1;
    d->fast_slot = gc_ctx_scratch(ctx, n, gc_tconvf_scratch_bytes(c) * (size_t)nt);
    if (d->fast_slot < 0) return GC_ERR_NOMEM;
    d->tcf = c;
    n->fast = true;
    n->own_store = ctx->fp16;                     /* fast_eval rounds the rows (ctx->store) */
    n->unread_in = 1u << 1 | 1u << 3;             /* filter and bias: packed copies */
    return GC_OK;
}

/* fp32 DEPTHWISE_CONV_2D / CONV_2D after a PAD / PADV2 of zeros on H and W only: the conv
 * reads the PAD's input, its padding grown by the PAD's top / left (the PAD is absorbed,
 * never run). The reference adds x*w = 0*w over the padded taps; the fast depthwise kernel
 * skips taps outside the image, the fast CONV_2D reads them from a row of zeros (0*w
 * again): the same sums while 0*w is +-0, so every weight must be finite (the sums start
 * at +0 and never become -0 in round-to-nearest: adding +-0 leaves them; and then
 * gc_convf_exact takes the filter, so the fast kernel runs). */
static void absorb_pad(gc_ctx *ctx, gc_node *n, conv_data *d, const float *wf, int64_t K) {
    if (!ctx->fast) return;
    gc_node *p = gc_ctx_sole_producer(ctx, n, n->in[0]);
    if (!p || (p->code != GC_OP_PAD && p->code != GC_OP_PADV2) || p->n_in < 2) return;
    gc_rt *px = p->in[0], *pd = p->in[1];
    if (!px || !pd || !pd->known || px->dtype != GC_T_FLOAT32 || px->rank != 4 || gc_numel(pd) != 8) return;
    int64_t pads[8];
    for (int i = 0; i < 8; i++) pads[i] = gc_get_int(pd, (size_t)i);
    if (pads[0] || pads[1] || pads[6] || pads[7]) return;          /* batch and channels unpadded */
    for (int i = 2; i < 6; i++) if (pads[i] < 0 || pads[i] > (1 << 24)) return;
    if (p->code == GC_OP_PADV2 && p->n_in > 2 && p->in[2]) {        /* the constant must be 0 */
        const gc_rt *v = p->in[2];
        if (!v->known || v->dtype != GC_T_FLOAT32 || gc_numel(v) != 1 || ((const float *)v->data)[0] != 0.0f) return;
    }
    if (px->shape[0] != d->B || px->shape[3] != d->C || px->shape[1] + pads[2] + pads[3] != d->H ||
        px->shape[2] + pads[4] + pads[5] != d->W || d->pt + pads[2] > (1 << 24) || d->pl + pads[4] > (1 << 24))
        return;
    for (int64_t i = 0; i < K * d->OC; i++) if (!isfinite(wf[i])) return;
    d->H = px->shape[1]; d->W = px->shape[2];
    d->pt += (int32_t)pads[2]; d->pl += (int32_t)pads[4];
    n->in[0] = px;
    p->absorbed = true;
}

/* fp32 CONV_2D 1x1, stride 1, no padding, one group (gc_convf_run's direct rows), whose
 * input is a float MUL (no activation) of x [.., C] (the conv's input shape) and a
 * per-channel s (C values, every other dimension 1: the squeeze-excite scale of the
 * mobile nets): the conv reads x and s (in[0] = x, in[3] = s, so the planner keeps both
 * alive) and forms each tile's products x * s itself (gemm_f32.h gc_convf.scaled), the
 * MUL absorbed, never run: the same products summed in the same order. Only once the fast
 * path is set up (the reference kernel reads in[0] as the conv's input). */
static gc_status absorb_se_mul(gc_ctx *ctx, gc_node *n, conv_data *d, gc_convf *c) {
    if (!ctx->fast || d->kind != K_CONV || d->a16 || d->k16h ||
        (c->b.mode != GC_GEMM_F32 && c->b.mode != GC_GEMM_F32_FMA))
        return GC_OK;
    if (d->KH != 1 || d->KW != 1 || d->sh != 1 || d->sw != 1 || d->pt || d->pl || d->G != 1 || d->H != d->OH ||
        d->W != d->OW || n->n_in > 3)
        return GC_OK;
    gc_node *p = gc_ctx_sole_producer(ctx, n, n->in[0]);
    if (!p || p->code != GC_OP_MUL || p->n_in != 2 || !p->in[0] || !p->in[1]) return GC_OK;
    if (gc_opt_int(gc_opts(p), GC_O_MulOptions_fused_activation_function) != 0) return GC_OK;
    const gc_rt *u = n->in[0];
    for (int side = 0; side < 2; side++) {
        gc_rt *xm = p->in[side], *sm = p->in[1 - side];
        if (xm->dtype != GC_T_FLOAT32 || sm->dtype != GC_T_FLOAT32 || xm->rank != u->rank || sm->rank < 1) continue;
        bool same = true;
        for (int i = 0; i < u->rank; i++) same = same && xm->shape[i] == u->shape[i];
        bool per_c = sm->shape[sm->rank - 1] == d->C;
        for (int i = 0; i + 1 < sm->rank; i++) per_c = per_c && sm->shape[i] == 1;
        /* a true broadcast: a swish MUL (x * LOGISTIC(x), the same shapes) has absorbed its
         * LOGISTIC, whose output is then never written (elementwise.c) */
        if (!same || !per_c || gc_numel(xm) <= gc_numel(sm)) continue;
        gc_rt **in = gc_ctx_alloc(ctx, 4 * sizeof *in);
        if (!in) return GC_ERR_NOMEM;
        in[0] = xm; in[1] = n->in[1]; in[2] = n->n_in > 2 ? n->in[2] : NULL; in[3] = sm;
        n->in = in;
        n->n_in = 4;
        c->scaled = true;
        c->xs_first = side == 1;                 /* MUL(s, x): s is the first operand */
        p->absorbed = true;
        return GC_OK;
    }
    return GC_OK;
}

/* The swish epilogue (gc_node.swish_epi, interp.c): y = y * (1 / (1 + expf(-y))) over each
 * finished tile / output row in place, by the vector expf (kernels/vexpf.h GC_VEXP_SWISH):
 * the bits of the swish MUL it stands for (elementwise.c), computed while the outputs are
 * in cache. Offered in fp32 only (plain float sums, no fp16 store). */
static void swish_epi(float *y, size_t n, const void *arg) {
    const conv_data *d = arg;
    gc_vexpf_run((gc_isa)d->swisa, GC_VEXP_SWISH, y, y, n, &d->swp);
}

static void swish_epi_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, bool plain_f32) {
    if (!ctx->fast || ctx->fp16 || !plain_f32 || ctx->isa == GC_ISA_SCALAR) return;
    d->swp = (gc_vexp_params){ 0.0f, 1.0f, gc_expf_zero_below() };
    d->swisa = ctx->isa;
    n->swish_epi_ok = true;
}

/* fp32: the fast CONV_2D / DEPTHWISE_CONV_2D (gemm_f32.h, dwconv_f32.h) on a constant
 * filter; leaves d->fast / d->dwf NULL where the fast path would not give the reference's
 * bits (it then runs the reference). */
static gc_status fast_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, gc_rt *w, gc_rt *b, int64_t K) {
    const float *wf = (const float *)w->data, *bias = b ? (const float *)b->data : NULL;
    if (!d->OH || !d->OW || !d->B) return GC_OK;
    if (d->kind == K_DW) {
        if (d->mult != 1) return GC_OK;
        absorb_pad(ctx, n, d, wf, K);
        d->dwf = gc_ctx_alloc(ctx, sizeof *d->dwf);
        if (!d->dwf) return GC_ERR_NOMEM;
        n->fast = true;
        swish_epi_prepare(ctx, n, d, !d->a16);
        n->own_store = ctx->fp16;                 /* fast_eval rounds the rows (ctx->store) */
        *d->dwf = (gc_dwf){ .isa = ctx->isa, .mode = d->a16 ? GC_DWF_H16 : d->fma ? GC_DWF_FMA : GC_DWF_F32, .w = wf, .bias = bias,
                            .Bn = d->B, .H = d->H, .W = d->W, .C = d->C,
                            .OH = d->OH, .OW = d->OW, .KH = d->KH, .KW = d->KW, .sh = d->sh, .sw = d->sw,
                            .dh = d->dh, .dw = d->dw, .pt = d->pt, .pl = d->pl, .lo = d->lo, .hi = d->hi };
        return GC_OK;
    }
    if (d->kind == K_TCONV) return tconv_fast_prepare(ctx, n, d, wf, bias);
    absorb_pad(ctx, n, d, wf, K);
    bool pad = has_padding_taps(d);
    if (!gc_convf_exact(wf, (size_t)K * (size_t)d->OC, pad)) return GC_OK;
    gc_convf *c = gc_ctx_alloc(ctx, sizeof *c);
    if (!c) return GC_ERR_NOMEM;
    const gc_gemm_mode mode = d->k16h ? GC_GEMM_K16H : d->a16 ? GC_GEMM_H16 : d->fma ? GC_GEMM_F32_FMA : GC_GEMM_F32;
    size_t nf = gc_gemm_b_layout_mode(&c->b, (gc_isa)ctx->isa, mode, d->G, (int32_t)K, d->OC / d->G);
    GC_UNSUP(ctx, nf > 0, "filter of %d x %lld is too large to pack", (int)d->OC, (long long)K);
    bool fresh;
    float *mem = gc_ctx_derived(ctx, w->data, 60 + ctx->isa + 100 * mode, d->G, K, nf * sizeof(float), &fresh);
    float *pb = gc_ctx_alloc(ctx, gc_gemm_bias_floats(&c->b) * sizeof(float));
    if (!mem || !pb) return GC_ERR_NOMEM;
    gc_gemm_b_bind(&c->b, mem);
    if (fresh) gc_gemm_pack_nk(&c->b, wf, K);
    else gc_gemm_b_note_range(&c->b);
    gc_gemm_pack_bias(&c->b, bias, pb);
    c->bias = pb;
    c->zero = gc_ctx_alloc(ctx, (size_t)d->C * (d->G == 1 ? (size_t)d->KW : 1) * sizeof(float));   /* zeroed */
    if (!c->zero) return GC_ERR_NOMEM;
    c->Bn = d->B; c->H = d->H; c->W = d->W; c->C = d->C; c->OH = d->OH; c->OW = d->OW; c->OC = d->OC;
    c->KH = d->KH; c->KW = d->KW; c->sh = d->sh; c->sw = d->sw; c->dh = d->dh; c->dw = d->dw;
    c->pt = d->pt; c->pl = d->pl; c->lo = d->lo; c->hi = d->hi;
    GC_TRY(absorb_se_mul(ctx, n, d, c));         /* last: the fast path is taken from here */
    int nt = ctx->threads > 0 ? ctx->threads : 1;
    d->fast_slot = gc_ctx_scratch(ctx, n, gc_convf_scratch_bytes(c) * (size_t)nt);
    if (d->fast_slot < 0) return GC_ERR_NOMEM;
    d->fast = c;
    n->fast = true;
    swish_epi_prepare(ctx, n, d, c->b.mode == GC_GEMM_F32 || c->b.mode == GC_GEMM_F32_FMA);
    n->own_store = ctx->fp16;                     /* fast_eval rounds the tiles (ctx->store) */
    n->unread_in = 1u << 1 | 1u << 2;             /* filter and bias: packed copies */
    return GC_OK;
}

typedef struct { const conv_data *d; const float *x; float *y; char *scratch; size_t per; } fast_job;

/* tiles [t0, t1) of the fast kernels on worker w's scratch */
static void fast_job_run(void *arg, int64_t t0, int64_t t1, int w) {
    const fast_job *j = arg;
    if (j->d->fast) gc_convf_run(j->d->fast, j->x, j->y, j->scratch + (size_t)w * j->per, t0, t1);
    else if (j->d->tcf) gc_tconvf_run(j->d->tcf, j->x, j->y, j->scratch + (size_t)w * j->per, t0, t1);
    else gc_dwf_run(j->d->dwf, j->x, j->y, t0, t1);
}

static void fast_eval(gc_ctx *ctx, const conv_data *d, gc_node *n, const float *x, float *y) {
    /* fp16: the outputs rounded to half as they are computed (n->own_store) */
    if (d->fast) {
        d->fast->b.store = ctx->store;
        if (d->fast->scaled) d->fast->xs = (const float *)n->in[3]->data;
        d->fast->epi = n->swish_epi ? swish_epi : NULL;
        d->fast->epi_arg = d;
    } else if (d->tcf) d->tcf->store = ctx->store;
    else {
        d->dwf->store = ctx->store;
        d->dwf->epi = n->swish_epi ? swish_epi : NULL;
        d->dwf->epi_arg = d;
    }
    int64_t units = d->fast ? gc_convf_tiles(d->fast) : d->tcf ? gc_tconvf_tiles(d->tcf) : gc_dwf_tiles(d->dwf);
    double work = (double)d->B * d->OH * d->OW * d->OC * d->KH * d->KW * (d->kind == K_DW ? 1 : d->ICg);
    if (d->tcf) work /= (double)d->sh * d->sw;
    fast_job j = { d, x, y, d->fast || d->tcf ? (char *)n->scratch[d->fast_slot] : NULL,
                   d->fast ? gc_convf_scratch_bytes(d->fast) : d->tcf ? gc_tconvf_scratch_bytes(d->tcf) : 0 };
    gc_ctx_for(ctx, units, gc_ctx_chunk(ctx, units, units ? work / (double)units : 0), fast_job_run, &j);
}
#endif

#ifndef GC_FP64_BUILD
/* How this node sums in the fp16 modes (see the top of the file). The Winograd weights
 * come from the file's float32 filter (a constant: the delegate transforms it on the
 * CPU), not from the half-rounded copy the interpreter holds. */
static gc_status fp16_prepare(gc_ctx *ctx, gc_node *n, conv_data *d, gc_rt *w) {
    const gc_f16_model *hm = ctx->hm;
    d->a16 = ctx->acc16;
    if (!hm) return GC_OK;
    if (d->kind == K_DW) d->a16 = hm->depthwise == GC_ACC_F16;
    else if (d->kind == K_CONV && d->ICg <= hm->conv_small_max_ic) d->a16 = hm->conv_small == GC_ACC_F16;
    else d->a16 = hm->conv == GC_ACC_F16;
    const bool wino = d->kind == K_CONV && hm->winograd && w && w->known &&
                      gc_wino16_eligible(d->KH, d->KW, d->sh, d->sw, d->dh, d->dw, d->G, d->C, d->OC, d->OH, d->OW);
    /* the matrix cores' shapes (fp16_model.h): K = taps x channels, N = output channels,
     * M = output pixels per image; one group */
    const int64_t K = (int64_t)d->KH * d->KW * d->ICg;
    if (d->kind == K_CONV && hm->conv_mma && !wino && d->G == 1 && gc_f16_on_mma(hm, (int64_t)d->OH * d->OW, K, d->OC)) {
        d->k16h = true;
        d->a16 = false;
    }
    if (!wino) return GC_OK;
    /* the transformed filter holds 36 / 9 = 4 times the filter's floats (which exist) */
    GC_UNSUP(ctx, w->nbytes == (size_t)d->OC * 9 * (size_t)d->C * sizeof(float) && w->nbytes <= SIZE_MAX / 8,
             "Winograd filter of %d x %d channels is too large", (int)d->C, (int)d->OC);
    const gc_buffer *buf = w->kind == GC_RT_CONST ? gc_tensor_buffer(ctx->m, w->ir) : NULL;
    const float *g = (const float *)w->data;              /* folded: computed in half already */
    if (buf && !w->ir->sparsity && buf->size >= (size_t)d->OC * 9 * (size_t)d->C * sizeof(float) &&
        (uintptr_t)buf->data % sizeof(float) == 0)
        g = (const float *)buf->data;
    d->wino = gc_ctx_alloc(ctx, sizeof *d->wino);
    if (!d->wino) return GC_ERR_NOMEM;
    gc_wino16_setup(d->wino, d->B, d->H, d->W, d->C, d->OH, d->OW, d->OC, d->pt, d->pl,
                    hm->conv, d->lo, d->hi, true);
    /* fast (ctx->fast_float): U packed per point, one GEMM per point and block of tiles */
    const bool fast = ctx->fast_float && gc_wino16_set_fast(d->wino, (gc_isa)ctx->isa);
    bool fresh;
    d->wino->u = gc_ctx_derived(ctx, w->data, fast ? 41 + ctx->isa : 40, d->OC, d->C,
                                gc_wino16_u_floats(d->wino) * sizeof(float), &fresh);
    if (!d->wino->u) return GC_ERR_NOMEM;
    if (fresh) gc_wino16_weights(d->wino, g);
    else if (fast) gc_gemm_b_bind(&d->wino->pu, d->wino->u);
    n->fast = fast;
    n->own_store = fast;                          /* the fast path rounds its tiles (ctx->store) */
    n->unread_in = 1u << 1;                       /* the filter: eval reads only U */
    int nt = ctx->threads > 0 ? ctx->threads : 1;
    d->wino_slot = gc_ctx_scratch(ctx, n, gc_wino16_scratch_floats(d->wino) * sizeof(float) * (size_t)nt);
    return d->wino_slot < 0 ? GC_ERR_NOMEM : GC_OK;
}

typedef struct { const conv_data *d; const float *x, *bias; float *y; float *scratch; size_t per; } wino_job;

/* tile rows [t0, t1) on worker w's scratch */
static void wino_job_run(void *arg, int64_t t0, int64_t t1, int w) {
    const wino_job *j = arg;
    gc_wino16_run(j->d->wino, j->x, j->bias, j->y, j->scratch + (size_t)w * j->per, (int32_t)t0, (int32_t)t1);
}
#endif

/* rows r0..r1-1 of the output, r = b * OH + oy (threads take disjoint row ranges; each
 * output's accumulation order is the same whatever the split) */
/* fp16 native on the matrix cores (d->k16h, one group): per output pixel, k over (ky, kx,
 * ic) in order, chunks of 16 summed in float from +0, acc = r(acc + part) at each chunk's
 * end (fp16_model.h GC_ACC_K16H); taps outside the image count as k's whose products are
 * zero (the GPU's im2col reads zeros; the fast kernels read a zero row), so the chunks
 * stay aligned; then acc + bias in float */
static void conv_f32_k16h(const conv_data *d, const float *x, const float *wt, const float *bias,
                          float *y, float *acc, int64_t r0, int64_t r1) {
    const int32_t OC = d->OC, C = d->C;
    float *part = acc + OC;
    for (int64_t r = r0; r < r1; r++) {
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);
        for (int32_t ox = 0; ox < d->OW; ox++) {
            for (int32_t oc = 0; oc < OC; oc++) acc[oc] = part[oc] = 0.0f;
            int32_t cnt = 0;
            for (int32_t ky = 0; ky < d->KH; ky++) {
                const int32_t iy = oy * d->sh - d->pt + ky * d->dh;
                for (int32_t kx = 0; kx < d->KW; kx++) {
                    const int32_t ix = ox * d->sw - d->pl + kx * d->dw;
                    const bool in = iy >= 0 && iy < d->H && ix >= 0 && ix < d->W;
                    const float *xp = in ? x + (((size_t)b * d->H + iy) * d->W + ix) * C : NULL;
                    const float *wk = wt + ((size_t)ky * d->KW + kx) * C * OC;
                    for (int32_t ic = 0; ic < C; ic++) {
                        if (in) {
                            const float xv = xp[ic], *w = wk + (size_t)ic * OC;
                            for (int32_t oc = 0; oc < OC; oc++) part[oc] += xv * w[oc];
                        }
                        if (++cnt == 16) {
                            gc_f16_flush_n(acc, part, (size_t)OC);
                            for (int32_t oc = 0; oc < OC; oc++) part[oc] = 0.0f;
                            cnt = 0;
                        }
                    }
                }
            }
            if (cnt) gc_f16_flush_n(acc, part, (size_t)OC);
            float *yp = y + (((size_t)b * d->OH + oy) * d->OW + ox) * OC;
            for (int32_t oc = 0; oc < OC; oc++) yp[oc] = gc_act_f(acc[oc] + (bias ? bias[oc] : 0.0f), d->lo, d->hi);
        }
    }
}

GC_CLONES static void conv_f32(bool a16, const conv_data *d, const float *x, const float *wt, const float *bias,
                     float *y, float *acc, int64_t r0, int64_t r1) {
    const int32_t OC = d->OC, ICg = d->ICg, OCg = d->OC / d->G;
    if (d->k16h) { conv_f32_k16h(d, x, wt, bias, y, acc, r0, r1); return; }
    for (int64_t r = r0; r < r1; r++) {
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);
        for (int32_t ox = 0; ox < d->OW; ox++) {
            for (int32_t oc = 0; oc < OC; oc++) acc[oc] = 0.0f;
            for (int32_t ky = 0; ky < d->KH; ky++) {
                int32_t iy = oy * d->sh - d->pt + ky * d->dh;
                if (iy < 0 || iy >= d->H) continue;
                for (int32_t kx = 0; kx < d->KW; kx++) {
                    int32_t ix = ox * d->sw - d->pl + kx * d->dw;
                    if (ix < 0 || ix >= d->W) continue;
                    const float *xp = x + (((size_t)b * d->H + iy) * d->W + ix) * d->C;
                    const float *wk = wt + ((size_t)ky * d->KW + kx) * ICg * OC;
                    for (int32_t g = 0; g < d->G; g++) {
                        const float *xg = xp + (size_t)g * ICg;
                        int32_t o0 = g * OCg, o1 = o0 + OCg;
                        for (int32_t ic = 0; ic < ICg; ic++) {
                            const float xv = xg[ic];
                            const float *w = wk + (size_t)ic * OC;
                            if (a16) gc_f16_madd_n(acc + o0, xv, w + o0, (size_t)(o1 - o0));
                            else if (d->fma) for (int32_t oc = o0; oc < o1; oc++) acc[oc] = fmaf(xv, w[oc], acc[oc]);
                            else for (int32_t oc = o0; oc < o1; oc++) acc[oc] += xv * w[oc];
                        }
                    }
                }
            }
            float *yp = y + (((size_t)b * d->OH + oy) * d->OW + ox) * OC;
            for (int32_t oc = 0; oc < OC; oc++) {
                float v = acc[oc] + (bias ? bias[oc] : 0.0f);
                yp[oc] = gc_act_f(a16 ? gc_f16_round(v) : v, d->lo, d->hi);
            }
        }
    }
}

GC_CLONES static void dw_f32(bool a16, const conv_data *d, const float *x, const float *w, const float *bias,
                   float *y, float *acc, int64_t r0, int64_t r1) {
    const int32_t OC = d->OC, M = d->mult;
    for (int64_t r = r0; r < r1; r++) {
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);
        for (int32_t ox = 0; ox < d->OW; ox++) {
            for (int32_t oc = 0; oc < OC; oc++) acc[oc] = 0.0f;
            for (int32_t ky = 0; ky < d->KH; ky++) {
                int32_t iy = oy * d->sh - d->pt + ky * d->dh;
                if (iy < 0 || iy >= d->H) continue;
                for (int32_t kx = 0; kx < d->KW; kx++) {
                    int32_t ix = ox * d->sw - d->pl + kx * d->dw;
                    if (ix < 0 || ix >= d->W) continue;
                    const float *xp = x + (((size_t)b * d->H + iy) * d->W + ix) * d->C;
                    const float *wk = w + ((size_t)ky * d->KW + kx) * OC;
                    if (M == 1 && !a16 && d->fma) {
                        for (int32_t c = 0; c < OC; c++) acc[c] = fmaf(xp[c], wk[c], acc[c]);
                    } else if (M == 1 && !a16) {
                        for (int32_t c = 0; c < OC; c++) acc[c] += xp[c] * wk[c];
                    } else if (M == 1) {
                        gc_f16_vmadd_n(acc, xp, wk, (size_t)OC);
                    } else {
                        for (int32_t c = 0; c < d->C; c++)
                            for (int32_t m = 0; m < M; m++) {
                                int32_t oc = c * M + m;
                                if (a16) gc_f16_madd_n(acc + oc, xp[c], wk + oc, 1);
                                else if (d->fma) acc[oc] = fmaf(xp[c], wk[oc], acc[oc]);
                                else acc[oc] += xp[c] * wk[oc];
                            }
                    }
                }
            }
            float *yp = y + (((size_t)b * d->OH + oy) * d->OW + ox) * OC;
            for (int32_t oc = 0; oc < OC; oc++) {
                float v = acc[oc] + (bias ? bias[oc] : 0.0f);
                yp[oc] = gc_act_f(a16 ? gc_f16_round(v) : v, d->lo, d->hi);
            }
        }
    }
}

/* the float CONV_2D / DEPTHWISE_CONV_2D work, split by output rows over threads */
typedef struct {
    const conv_data *d; bool a16;
    const float *x, *w, *bias; float *y;
    char *acc;                  /* one accumulator row per thread, acc_stride bytes apart */
    size_t acc_stride;
} conv_job;

static void conv_job_run(void *arg, int64_t r0, int64_t r1, int w) {
    const conv_job *j = arg;
    float *acc = (float *)(j->acc + (size_t)w * j->acc_stride);
    if (j->d->kind == K_CONV) conv_f32(j->a16, j->d, j->x, j->w, j->bias, j->y, acc, r0, r1);
    else dw_f32(j->a16, j->d, j->x, j->w, j->bias, j->y, acc, r0, r1);
}

/* multiply-adds per output row (b, oy) of a CONV_2D / DEPTHWISE_CONV_2D */
static double row_work(const conv_data *d) {
    return (double)d->OW * d->OC * d->KH * d->KW * (d->kind == K_CONV ? d->ICg : 1);
}

/* The reference TRANSPOSE_CONV scatters; threads split the outputs by (batch image,
 * block of output channels): each output still adds its taps in scatter order. */
enum { TC_OCB = 64 };                   /* output channels per item (a multiple of the vector) */

GC_CLONES static void tconv_f32(const conv_data *d, const float *x, const float *wt, const float *bias, float *y,
                                int32_t b, int32_t o0, int32_t o1) {
    const bool a16 = d->a16;
    const int32_t OC = d->OC, C = d->C, no = o1 - o0;
    const size_t m = (size_t)d->OH * d->OW;
    float *yb = y + (size_t)b * m * OC;
    for (size_t p = 0; p < m; p++) memset(yb + p * OC + o0, 0, (size_t)no * sizeof(float));
    for (int32_t iy = 0; iy < d->H; iy++)
        for (int32_t ix = 0; ix < d->W; ix++) {
            const float *xp = x + (((size_t)b * d->H + iy) * d->W + ix) * C;
            for (int32_t ic = 0; ic < C; ic++) {
                const float xv = xp[ic];
                for (int32_t ky = 0; ky < d->KH; ky++) {
                    int32_t oy = iy * d->sh + ky - d->pt;
                    if (oy < 0 || oy >= d->OH) continue;
                    for (int32_t kx = 0; kx < d->KW; kx++) {
                        int32_t ox = ix * d->sw + kx - d->pl;
                        if (ox < 0 || ox >= d->OW) continue;
                        float *yp = yb + ((size_t)oy * d->OW + ox) * OC + o0;
                        const float *w = wt + (((size_t)ky * d->KW + kx) * C + ic) * OC + o0;
                        if (a16) gc_f16_madd_n(yp, xv, w, (size_t)no);
                        else if (d->fma) for (int32_t oc = 0; oc < no; oc++) yp[oc] = fmaf(xv, w[oc], yp[oc]);
                        else for (int32_t oc = 0; oc < no; oc++) yp[oc] += xv * w[oc];
                    }
                }
            }
        }
    for (size_t p = 0; p < m; p++)
        for (int32_t oc = o0; oc < o1; oc++) {
            float v = yb[p * OC + oc] + (bias ? bias[oc] : 0.0f);
            yb[p * OC + oc] = gc_act_f(a16 ? gc_f16_round(v) : v, d->lo, d->hi);
        }
}

/* ---- quantized ------------------------------------------------------------------------ */

static inline int32_t requant(const conv_data *d, int64_t acc, int oc) {
    if (d->xnn) return gc_q_xnn((int32_t)acc, d->qf[oc], d->y_off, d->qlo, d->qhi);
    /* the 64-bit rescale multiplies by up to 2^15: clamp what no real model reaches */
    if (acc > ((int64_t)1 << 47)) acc = (int64_t)1 << 47;
    if (acc < -((int64_t)1 << 47)) acc = -((int64_t)1 << 47);
    int32_t v = d->dt == GC_T_INT16 ? gc_q_mul64(acc, d->qm[oc], d->qs[oc])
                                    : gc_q_mul((int32_t)acc, d->qm[oc], d->qs[oc]);
    return gc_clamp_i32((int64_t)v + d->y_off, d->qlo, d->qhi);
}
static inline int64_t bias_at(const conv_data *d, int oc) {
    if (!d->bias_q) return 0;
    if (d->bias64) { int64_t v; memcpy(&v, d->bias_q + (size_t)oc * 8, 8); return v; }
    int32_t v; memcpy(&v, d->bias_q + (size_t)oc * 4, 4); return v;
}

/* One accumulator row per output pixel: int32 for 8-bit activations (as TFLite),
 * int64 for 16-bit ones. */
#define CONV_Q_BODY(ACC_T)                                                                   \
    for (int64_t r = r0; r < r1; r++) {                                                      \
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);                   \
            for (int32_t ox = 0; ox < d->OW; ox++) {                                         \
                for (int32_t oc = 0; oc < OC; oc++) acc[oc] = 0;                             \
                for (int32_t ky = 0; ky < d->KH; ky++) {                                     \
                    int32_t iy = oy * d->sh - d->pt + ky * d->dh;                            \
                    if (iy < 0 || iy >= d->H) continue;                                      \
                    for (int32_t kx = 0; kx < d->KW; kx++) {                                 \
                        int32_t ix = ox * d->sw - d->pl + kx * d->dw;                        \
                        if (ix < 0 || ix >= d->W) continue;                                  \
                        size_t xi = (((size_t)b * d->H + iy) * d->W + ix) * d->C;            \
                        if (d->kind == K_DW) {                                               \
                            const int32_t *wk = d->wq + ((size_t)ky * d->KW + kx) * OC;      \
                            /* 8-bit, multiplier 1: typed loads, vectorisable; integer sums \
                             * are exact, so the result is the same in any order */         \
                            if (d->mult == 1 && dt == GC_T_UINT8) {                          \
                                const uint8_t *xp = (const uint8_t *)xr->data + xi;          \
                                for (int32_t c = 0; c < d->C; c++)                           \
                                    acc[c] += (ACC_T)((int32_t)xp[c] + d->x_off) * wk[c];    \
                                continue;                                                    \
                            }                                                                \
                            if (d->mult == 1 && dt == GC_T_INT8) {                           \
                                const int8_t *xp = (const int8_t *)xr->data + xi;            \
                                for (int32_t c = 0; c < d->C; c++)                           \
                                    acc[c] += (ACC_T)((int32_t)xp[c] + d->x_off) * wk[c];    \
                                continue;                                                    \
                            }                                                                \
                            for (int32_t c = 0; c < d->C; c++) {                             \
                                ACC_T xv = gc_qget(dt, xr->data, xi + (size_t)c) + d->x_off; \
                                for (int32_t m = 0; m < d->mult; m++)                        \
                                    acc[c * d->mult + m] += xv * wk[c * d->mult + m];        \
                            }                                                                \
                            continue;                                                        \
                        }                                                                    \
                        const int32_t *wk = d->wq + ((size_t)ky * d->KW + kx) * ICg * OC;    \
                        for (int32_t g = 0; g < d->G; g++)                                   \
                            for (int32_t ic = 0; ic < ICg; ic++) {                           \
                                ACC_T xv = gc_qget(dt, xr->data, xi + (size_t)g * ICg + (size_t)ic) + d->x_off; \
                                const int32_t *w = wk + (size_t)ic * OC;                     \
                                for (int32_t oc = g * OCg; oc < (g + 1) * OCg; oc++) acc[oc] += xv * w[oc]; \
                            }                                                                \
                    }                                                                        \
                }                                                                            \
                size_t yi = (((size_t)b * d->OH + oy) * d->OW + ox) * OC;                    \
                for (int32_t oc = 0; oc < OC; oc++)                                          \
                    gc_qset(dt, yr->data, yi + (size_t)oc, requant(d, (int64_t)acc[oc] + bias_at(d, oc), oc)); \
            }                                                                                \
    }

/* output rows r0..r1-1 (r = b * OH + oy), as conv_f32 */
GC_CLONES static void conv_q32(const conv_data *d, const gc_rt *xr, gc_rt *yr, int32_t *acc, int64_t r0, int64_t r1) {
    const int dt = d->dt;
    const int32_t OC = d->OC;
    const int32_t ICg = d->kind == K_CONV ? d->ICg : 1, OCg = d->kind == K_CONV ? d->OC / d->G : 1;
    CONV_Q_BODY(int32_t)
}

static void conv_q64(const conv_data *d, const gc_rt *xr, gc_rt *yr, int64_t *acc, int64_t r0, int64_t r1) {
    const int dt = d->dt;
    const int32_t OC = d->OC;
    const int32_t ICg = d->kind == K_CONV ? d->ICg : 1, OCg = d->kind == K_CONV ? d->OC / d->G : 1;
    CONV_Q_BODY(int64_t)
}
#undef CONV_Q_BODY

/* batch image b, output channels o0..o1-1 (as tconv_f32); the int64 accumulators are
 * the whole output's (scratch), each item touching only its own */
static void tconv_q(const conv_data *d, const gc_rt *xr, gc_rt *yr, int64_t *accbuf, int32_t b, int32_t o0, int32_t o1) {
    const int dt = d->dt;
    const int32_t OC = d->OC, C = d->C;
    const size_t m = (size_t)d->OH * d->OW;
    int64_t *acc = accbuf + (size_t)b * m * OC;
    for (size_t p = 0; p < m; p++) memset(acc + p * OC + o0, 0, (size_t)(o1 - o0) * sizeof(int64_t));
    for (int32_t iy = 0; iy < d->H; iy++)
        for (int32_t ix = 0; ix < d->W; ix++)
            for (int32_t ic = 0; ic < C; ic++) {
                int32_t xv = gc_qget(dt, xr->data, (((size_t)b * d->H + iy) * d->W + ix) * C + (size_t)ic) + d->x_off;
                for (int32_t ky = 0; ky < d->KH; ky++) {
                    int32_t oy = iy * d->sh + ky - d->pt;
                    if (oy < 0 || oy >= d->OH) continue;
                    for (int32_t kx = 0; kx < d->KW; kx++) {
                        int32_t ox = ix * d->sw + kx - d->pl;
                        if (ox < 0 || ox >= d->OW) continue;
                        int64_t *ap = acc + ((size_t)oy * d->OW + ox) * OC;
                        const int32_t *w = d->wq + (((size_t)ky * d->KW + kx) * C + ic) * OC;
                        for (int32_t oc = o0; oc < o1; oc++) ap[oc] += (int64_t)xv * w[oc];
                    }
                }
            }
    size_t yb = (size_t)b * m * OC;
    for (size_t p = 0; p < m; p++)
        for (int32_t oc = o0; oc < o1; oc++)
            gc_qset(dt, yr->data, yb + p * OC + (size_t)oc, requant(d, acc[p * OC + oc] + bias_at(d, oc), oc));
}

/* the reference TRANSPOSE_CONV (float or quantized) and the quantized CONV_2D /
 * DEPTHWISE_CONV_2D, split over the pool */
typedef struct {
    const conv_data *d;
    const gc_rt *xr; gc_rt *yr;
    const float *w, *bias;              /* float TRANSPOSE_CONV */
    char *acc; size_t acc_stride;       /* quantized CONV_2D: per worker; TRANSPOSE_CONV: whole */
    int32_t nob;                        /* TRANSPOSE_CONV: output channel blocks per image */
} ref_job;

static void tconv_job_run(void *arg, int64_t i0, int64_t i1, int w) {
    (void)w;
    const ref_job *j = arg;
    const conv_data *d = j->d;
    for (int64_t i = i0; i < i1; i++) {
        int32_t b = (int32_t)(i / j->nob), o0 = (int32_t)(i % j->nob) * TC_OCB;
        int32_t o1 = d->OC - o0 < TC_OCB ? d->OC : o0 + TC_OCB;
        if (d->dt == GC_T_FLOAT32)
            tconv_f32(d, (const float *)j->xr->data, j->w, j->bias, (float *)j->yr->data, b, o0, o1);
        else tconv_q(d, j->xr, j->yr, (int64_t *)j->acc, b, o0, o1);
    }
}

static void conv_q_job_run(void *arg, int64_t r0, int64_t r1, int w) {
    const ref_job *j = arg;
    char *acc = j->acc + (size_t)w * j->acc_stride;
    if (j->d->acc64) conv_q64(j->d, j->xr, j->yr, (int64_t *)acc, r0, r1);
    else conv_q32(j->d, j->xr, j->yr, (int32_t *)acc, r0, r1);
}

static void tconv_ref(gc_ctx *ctx, const conv_data *d, const gc_rt *x, gc_rt *y, const float *w, const float *bias,
                      char *acc) {
    ref_job j = { .d = d, .xr = x, .yr = y, .w = w, .bias = bias, .acc = acc,
                  .nob = (d->OC + TC_OCB - 1) / TC_OCB };
    int64_t items = (int64_t)d->B * j.nob;
    double work = (double)d->H * d->W * d->C * d->KH * d->KW * (d->OC < TC_OCB ? d->OC : TC_OCB);
    gc_ctx_for(ctx, items, gc_ctx_chunk(ctx, items, work), tconv_job_run, &j);
}

/* ---- hybrid ----------------------------------------------------------------------------- */

typedef struct {
    const conv_data *d;
    const int8_t *q; const float *step; const int32_t *zp;
    const float *bias; float *y;
    char *acc; size_t acc_stride;
} hyb_job;

GC_CLONES static void hybrid_rows(const hyb_job *j, int32_t *acc, int64_t r0, int64_t r1) {
    const conv_data *d = j->d;
    const int32_t OC = d->OC, ICg = d->kind == K_CONV ? d->ICg : 1, OCg = d->kind == K_CONV ? d->OC / d->G : 1;
    for (int64_t r = r0; r < r1; r++) {
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);
        int32_t z = j->zp[b];
        float st = j->step[b];
        for (int32_t ox = 0; ox < d->OW; ox++) {
            if (d->hq_pixel) { z = j->zp[r * d->OW + ox]; st = j->step[r * d->OW + ox]; }
            for (int32_t oc = 0; oc < OC; oc++) acc[oc] = 0;
            for (int32_t ky = 0; ky < d->KH; ky++) {
                int32_t iy = oy * d->sh - d->pt + ky * d->dh;
                if (iy < 0 || iy >= d->H) continue;
                for (int32_t kx = 0; kx < d->KW; kx++) {
                    int32_t ix = ox * d->sw - d->pl + kx * d->dw;
                    if (ix < 0 || ix >= d->W) continue;
                    const int8_t *xp = j->q + (((size_t)b * d->H + iy) * d->W + ix) * d->C;
                    if (d->kind == K_DW) {
                        const int8_t *wk = d->w8 + ((size_t)ky * d->KW + kx) * OC;
                        if (d->mult == 1) {
                            for (int32_t c = 0; c < OC; c++) acc[c] += ((int32_t)xp[c] - z) * wk[c];
                        } else {
                            for (int32_t c = 0; c < d->C; c++) {
                                const int32_t xv = (int32_t)xp[c] - z;
                                for (int32_t m = 0; m < d->mult; m++) acc[c * d->mult + m] += xv * wk[c * d->mult + m];
                            }
                        }
                        continue;
                    }
                    const int8_t *wk = d->w8 + ((size_t)ky * d->KW + kx) * ICg * OC;
                    for (int32_t g = 0; g < d->G; g++)
                        for (int32_t ic = 0; ic < ICg; ic++) {
                            const int32_t xv = (int32_t)xp[(size_t)g * ICg + ic] - z;
                            const int8_t *w = wk + (size_t)ic * OC;
                            for (int32_t oc = g * OCg; oc < (g + 1) * OCg; oc++) acc[oc] += xv * w[oc];
                        }
                }
            }
            float *yp = j->y + (((size_t)b * d->OH + oy) * d->OW + ox) * OC;
            for (int32_t oc = 0; oc < OC; oc++) {
                float dv = (float)acc[oc], bv = j->bias ? j->bias[oc] : 0.0f, v;
                if (d->hq == GC_HQ_XNNPACK) v = fmaf(dv * st, d->hs[oc], bv);
                else if (d->kind == K_DW) v = (dv * d->hs[oc]) * st + bv;
                else v = dv * (st * d->hs[oc]) + bv;
                yp[oc] = gc_act_f(v, d->lo, d->hi);
            }
        }
    }
}

static void hyb_job_run(void *arg, int64_t r0, int64_t r1, int w) {
    const hyb_job *j = arg;
    hybrid_rows(j, (int32_t *)(j->acc + (size_t)w * j->acc_stride), r0, r1);
}

/* the per-image (per-pixel) input quantization, split over the pool */
typedef struct { const conv_data *d; const float *x; size_t per; int8_t *q; float *step; int32_t *zp; } hq_job;
static void hq_job_run(void *arg, int64_t i0, int64_t i1, int w) {
    (void)w;
    const hq_job *j = arg;
    for (int64_t i = i0; i < i1; i++)
        gc_hq_quantize(j->d->hq, j->x + (size_t)i * j->per, j->per, j->q + (size_t)i * j->per, &j->step[i], &j->zp[i]);
}

static gc_status hybrid_eval(gc_ctx *ctx, gc_node *n) {
    const conv_data *d = n->data;
    gc_rt *x = n->in[0], *b = n->n_in > 2 ? n->in[2] : NULL;
    int8_t *q = (int8_t *)n->scratch[d->q_slot];
    const size_t per = d->hq_pixel ? (size_t)d->C : (size_t)d->H * d->W * d->C;
    const size_t nq = d->hq_pixel ? (size_t)d->B * d->H * d->W : (size_t)d->B;
    float *step = (float *)n->scratch[d->qp_slot];
    int32_t *zp = (int32_t *)(step + nq);
    hq_job qj = { d, (const float *)x->data, per, q, step, zp };
    gc_ctx_for(ctx, (int64_t)nq, gc_ctx_chunk(ctx, (int64_t)nq, 4.0 * (double)per), hq_job_run, &qj);
    hyb_job j = { d, q, step, zp, b ? (const float *)b->data : NULL, (float *)n->out[0]->data,
                  (char *)n->scratch[d->acc_slot], (size_t)d->OC * 8 + 64 };
    int64_t rows = (int64_t)d->B * d->OH;
    gc_ctx_for(ctx, rows, gc_ctx_chunk(ctx, rows, row_work(d)), hyb_job_run, &j);
    return GC_OK;
}

static gc_status conv_eval(gc_ctx *ctx, gc_node *n) {
    conv_data *d = n->data;
    if (d->hybrid) return hybrid_eval(ctx, n);
    gc_rt *x, *w, *b, *y = n->out[0];
    if (d->kind == K_TCONV) {
        x = n->in[2]; w = n->in[1]; b = n->n_in > 3 ? n->in[3] : NULL;
        if (d->check_shape) {
            int64_t want[4] = { d->B, d->OH, d->OW, d->OC };
            for (int i = 0; i < 4; i++)
                GC_ENSURE(ctx, gc_get_int(n->in[0], (size_t)i) == want[i],
                          "output_shape[%d] is %lld at run time; the model's static output shape says %lld",
                          i, (long long)gc_get_int(n->in[0], (size_t)i), (long long)want[i]);
        }
    } else { x = n->in[0]; w = n->in[1]; b = n->n_in > 2 ? n->in[2] : NULL; }
    if (d->dt == GC_T_FLOAT32) {
#ifndef GC_FP64_BUILD
        if (d->fast || d->dwf || d->tcf) { fast_eval(ctx, d, n, (const float *)x->data, (float *)y->data); return GC_OK; }
        if (d->wino) {
            d->wino->store = ctx->store;
            wino_job wj = { d, (const float *)x->data, b ? (const float *)b->data : NULL, (float *)y->data,
                            (float *)n->scratch[d->wino_slot], gc_wino16_scratch_floats(d->wino) };
            int64_t ty = d->wino->tiles_y;
            gc_ctx_for(ctx, ty, gc_ctx_chunk(ctx, ty, row_work(d) * d->OH / (double)(ty > 0 ? ty : 1)), wino_job_run, &wj);
            return GC_OK;
        }
#endif
        const float *wt = d->wt;
        if (!wt) {
            if (d->kind == K_DW) wt = (const float *)w->data;
            else {
                float *t = (float *)n->scratch[d->w_slot];
                transpose_filter_f((const float *)w->data, t, d->OC, d->KH * d->KW * d->ICg);
                wt = t;
            }
        }
        const float *bias = b ? (const float *)b->data : NULL;
        if (d->kind == K_TCONV) { tconv_ref(ctx, d, x, y, wt, bias, NULL); return GC_OK; }
        conv_job j = { d, d->a16, (const float *)x->data, wt, bias, (float *)y->data,
                       (char *)n->scratch[d->acc_slot], (size_t)d->OC * 8 + 64 };
        int64_t rows = (int64_t)d->B * d->OH;
        gc_ctx_for(ctx, rows, gc_ctx_chunk(ctx, rows, row_work(d)), conv_job_run, &j);
        return GC_OK;
    }
#ifndef GC_FP64_BUILD
    if (d->q8) { gc_q8_eval(ctx, n, d->q8, n->in[0]->data, y->data); return GC_OK; }
#endif
    if (d->kind == K_TCONV) { tconv_ref(ctx, d, x, y, NULL, NULL, (char *)n->scratch[d->acc_slot]); return GC_OK; }
    ref_job j = { .d = d, .xr = x, .yr = y, .acc = (char *)n->scratch[d->acc_slot], .acc_stride = (size_t)d->OC * 8 + 64 };
    int64_t rows = (int64_t)d->B * d->OH;
    gc_ctx_for(ctx, rows, gc_ctx_chunk(ctx, rows, row_work(d)), conv_q_job_run, &j);
    return GC_OK;
}

const gc_kernel GC_K(gc_k_conv_2d) = { "CONV_2D", conv_prepare, conv_eval, 0 };
const gc_kernel GC_K(gc_k_depthwise_conv_2d) = { "DEPTHWISE_CONV_2D", conv_prepare, conv_eval, 0 };
const gc_kernel GC_K(gc_k_transpose_conv) = { "TRANSPOSE_CONV", conv_prepare, conv_eval, 0 };
