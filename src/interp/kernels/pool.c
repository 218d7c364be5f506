/* pool.c — AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D (NHWC).
 *
 * Options read: padding (SAME / VALID, as conv.c with dilation 1), stride_w/h,
 * filter_width/height, fused activation. The window is clipped to the input: padded
 * positions are not counted (TFLite's reference pooling).
 * FLOAT32: AVERAGE sums the window in (ky, kx) order then divides by the count of
 *   taps inside; MAX takes the largest; L2 is sqrt(sum of squares / count); then the
 *   activation clamp.
 * INT8 / UINT8 / INT16 (AVERAGE, MAX; input and output share one quantization as TFLite
 *   requires): AVERAGE: integer sum, then divided with rounding half away from zero,
 *   (sum +- count/2) / count; MAX: raw max; both clamped to the activation range.
 *   With --int-arith xnnpack (XNNPACK): AVERAGE = rint((sum - count zp_in) s_in /
 *   (s_out count)) + zp_out, float scale, half to even.
 * fp16: float pools compute in float32 (output rounded by the core); fp16-acc rounds
 *   every partial sum and the division.
 * Float pools run the window over blocks of channels (each channel's taps in (ky, kx)
 * order as above, vectorised across channels; opts.reference_kernels: the plain loop per
 * output); output rows (b, oy) are split over the pool, on every path.
 */
#include "interp/interp_impl.h"

#include "interp/kernels/vec_loops.h"

typedef struct {
    int32_t B, H, W, C, OH, OW, KH, KW;
    int sh, sw, pt, pl;
    float lo, hi;
    int32_t qlo, qhi;
    bool xnn;                  /* XNNPACK's average: float rescale, half to even */
    float xratio;              /* s_in / s_out */
} pool_data;

static gc_status pool_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_Pool2DOptions));
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, x->rank == 4, "input must be 4-D (NHWC)");
    const gc_options *o = gc_opts(n);
    pool_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    bool same = gc_opt_int(o, GC_O_Pool2DOptions_padding) == 0;
    d->sw = (int)gc_opt_int(o, GC_O_Pool2DOptions_stride_w);
    d->sh = (int)gc_opt_int(o, GC_O_Pool2DOptions_stride_h);
    d->KW = (int32_t)gc_opt_int(o, GC_O_Pool2DOptions_filter_width);
    d->KH = (int32_t)gc_opt_int(o, GC_O_Pool2DOptions_filter_height);
    int act = (int)gc_opt_int(o, GC_O_Pool2DOptions_fused_activation_function);
    GC_ENSURE(ctx, d->sw >= 1 && d->sh >= 1 && d->KW >= 1 && d->KH >= 1, "stride %dx%d / filter %dx%d",
              d->sh, d->sw, (int)d->KH, (int)d->KW);
    GC_UNSUP(ctx, act <= GC_ACT_RELU6, "fused activation %d is not supported", act);
    d->B = x->shape[0]; d->H = x->shape[1]; d->W = x->shape[2]; d->C = x->shape[3];
    d->OH = same ? (d->H + d->sh - 1) / d->sh : (d->H - d->KH + d->sh) / d->sh;
    d->OW = same ? (d->W + d->sw - 1) / d->sw : (d->W - d->KW + d->sw) / d->sw;
    GC_ENSURE(ctx, d->OH >= 0 && d->OW >= 0, "window larger than the input");
    if (same) {
        int th = (d->OH - 1) * d->sh + d->KH - d->H, tw = (d->OW - 1) * d->sw + d->KW - d->W;
        d->pt = th > 0 ? th / 2 : 0; d->pl = tw > 0 ? tw / 2 : 0;
    }
    GC_ENSURE(ctx, y->dtype == x->dtype, "input and output types differ");
    if (x->dtype == GC_T_FLOAT32) gc_act_range_f(act, &d->lo, &d->hi);
    else {
        GC_UNSUP(ctx, gc_is_qint(x->dtype) && n->code != GC_OP_L2_POOL_2D, "%s on %s", n->name, gc_type_name(x->dtype));
        GC_ENSURE(ctx, y->scale > 0, "quantized pool needs an output scale");
        gc_qrange(x->dtype, &d->qlo, &d->qhi);
        gc_q_act_range(act, y->scale, y->zp, d->qlo, d->qhi, &d->qlo, &d->qhi);
        d->xnn = ctx->xnn && x->dtype != GC_T_INT16 && x->scale > 0;
        d->xratio = x->scale > 0 ? x->scale / y->scale : 1.0f;
    }
    n->data = d;
    int32_t shp[4] = { d->B, d->OH, d->OW, d->C };
    return gc_set_shape(ctx, y, 4, shp);
}

/* The reference loop, output rows r0..r1-1 (r = b * OH + oy); the quantized pools too. */
static void pool_ref_rows(gc_ctx *ctx, const gc_node *n, int64_t r0, int64_t r1) {
    const pool_data *d = n->data;
    const gc_rt *x = n->in[0], *y = n->out[0];
    int code = n->code, dt = x->dtype;
    for (int64_t r = r0; r < r1; r++) {
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);
            for (int32_t ox = 0; ox < d->OW; ox++) {
                int32_t y0 = oy * d->sh - d->pt, x0 = ox * d->sw - d->pl;
                int32_t ky0 = y0 < 0 ? -y0 : 0, ky1 = d->H - y0 < d->KH ? d->H - y0 : d->KH;
                int32_t kx0 = x0 < 0 ? -x0 : 0, kx1 = d->W - x0 < d->KW ? d->W - x0 : d->KW;
                int32_t count = (ky1 - ky0) * (kx1 - kx0);
                size_t yi = (((size_t)b * d->OH + oy) * d->OW + ox) * d->C;
                for (int32_t c = 0; c < d->C; c++) {
                    if (dt == GC_T_FLOAT32) {
                        const float *xs = (const float *)x->data;
                        float acc = code == GC_OP_MAX_POOL_2D ? -INFINITY : 0.0f;
                        for (int32_t ky = ky0; ky < ky1; ky++)
                            for (int32_t kx = kx0; kx < kx1; kx++) {
                                float v = xs[(((size_t)b * d->H + y0 + ky) * d->W + x0 + kx) * d->C + c];
                                if (code == GC_OP_MAX_POOL_2D) { if (v > acc) acc = v; }
                                else if (code == GC_OP_L2_POOL_2D) acc = gc_racc(ctx, acc + v * v);
                                else acc = gc_racc(ctx, acc + v);
                            }
                        if (code == GC_OP_AVERAGE_POOL_2D) acc = count ? gc_racc(ctx, acc / (float)count) : 0.0f;
                        if (code == GC_OP_L2_POOL_2D) acc = count ? sqrtf(acc / (float)count) : 0.0f;
                        ((float *)y->data)[yi + (size_t)c] = gc_act_f(acc, d->lo, d->hi);
                    } else {
                        int32_t acc = code == GC_OP_MAX_POOL_2D ? INT32_MIN : 0;
                        for (int32_t ky = ky0; ky < ky1; ky++)
                            for (int32_t kx = kx0; kx < kx1; kx++) {
                                int32_t v = gc_qget(dt, x->data, (((size_t)b * d->H + y0 + ky) * d->W + x0 + kx) * d->C + (size_t)c);
                                if (code == GC_OP_MAX_POOL_2D) { if (v > acc) acc = v; } else acc += v;
                            }
                        if (code == GC_OP_AVERAGE_POOL_2D && d->xnn) {
                            float sc = x->scale / (y->scale * (float)count);
                            acc = count ? gc_q_xnn(acc - count * x->zp, sc, y->zp, d->qlo, d->qhi) : 0;
                        } else if (code == GC_OP_AVERAGE_POOL_2D) {
                            acc = !count ? 0 : acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                        }
                        gc_qset(dt, y->data, yi + (size_t)c, gc_clamp_i32(acc, d->qlo, d->qhi));
                    }
                }
            }
    }
}

enum { POOL_CB = 64 };                  /* channels per block of the float path */

/* Float output rows r0..r1-1: for each output pixel and block of channels, the window's
 * taps in (ky, kx) order, acc[c] op= x[c] across the block. */
GC_CLONES static void pool_f32_rows(gc_ctx *ctx, const gc_node *n, int64_t r0, int64_t r1) {
    const pool_data *d = n->data;
    const float *xs = (const float *)n->in[0]->data;
    float *ys = (float *)n->out[0]->data;
    const int code = n->code;
    const bool a16 = ctx->acc16;
    const int32_t C = d->C;
    float acc[POOL_CB];
    for (int64_t r = r0; r < r1; r++) {
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);
        for (int32_t ox = 0; ox < d->OW; ox++) {
            int32_t y0 = oy * d->sh - d->pt, x0 = ox * d->sw - d->pl;
            int32_t ky0 = y0 < 0 ? -y0 : 0, ky1 = d->H - y0 < d->KH ? d->H - y0 : d->KH;
            int32_t kx0 = x0 < 0 ? -x0 : 0, kx1 = d->W - x0 < d->KW ? d->W - x0 : d->KW;
            int32_t count = (ky1 - ky0) * (kx1 - kx0);
            float *yp = ys + (((size_t)b * d->OH + oy) * d->OW + ox) * C;
            for (int32_t c0 = 0; c0 < C; c0 += POOL_CB) {
                const int32_t nc = C - c0 < POOL_CB ? C - c0 : POOL_CB;
                const float init = code == GC_OP_MAX_POOL_2D ? -INFINITY : 0.0f;
                for (int32_t c = 0; c < nc; c++) acc[c] = init;
                for (int32_t ky = ky0; ky < ky1; ky++)
                    for (int32_t kx = kx0; kx < kx1; kx++) {
                        const float *xp = xs + (((size_t)b * d->H + y0 + ky) * d->W + x0 + kx) * C + c0;
                        if (code == GC_OP_MAX_POOL_2D)
                            for (int32_t c = 0; c < nc; c++) acc[c] = xp[c] > acc[c] ? xp[c] : acc[c];
                        else if (a16 && code == GC_OP_L2_POOL_2D)
                            for (int32_t c = 0; c < nc; c++) acc[c] = gc_f16_round(acc[c] + xp[c] * xp[c]);
                        else if (a16)
                            for (int32_t c = 0; c < nc; c++) acc[c] = gc_f16_round(acc[c] + xp[c]);
                        else if (code == GC_OP_L2_POOL_2D)
                            for (int32_t c = 0; c < nc; c++) acc[c] = acc[c] + xp[c] * xp[c];
                        else
                            for (int32_t c = 0; c < nc; c++) acc[c] = acc[c] + xp[c];
                    }
                if (code == GC_OP_AVERAGE_POOL_2D) {
                    const float fc = (float)count;
                    for (int32_t c = 0; c < nc; c++) acc[c] = count ? (a16 ? gc_f16_round(acc[c] / fc) : acc[c] / fc) : 0.0f;
                } else if (code == GC_OP_L2_POOL_2D) {
                    const float fc = (float)count;
                    for (int32_t c = 0; c < nc; c++) acc[c] = count ? sqrtf(acc[c] / fc) : 0.0f;
                }
                for (int32_t c = 0; c < nc; c++) yp[c0 + c] = gc_act_f(acc[c], d->lo, d->hi);
            }
        }
    }
}

/* every output window holds at least one tap */
static bool windows_nonempty(const pool_data *d) {
    if (!d->B || !d->OH || !d->OW) return true;
    for (int32_t oy = 0; oy < d->OH; oy++) {
        int32_t y0 = oy * d->sh - d->pt, ky0 = y0 < 0 ? -y0 : 0, ky1 = d->H - y0 < d->KH ? d->H - y0 : d->KH;
        if (ky1 <= ky0) return false;
    }
    for (int32_t ox = 0; ox < d->OW; ox++) {
        int32_t x0 = ox * d->sw - d->pl, kx0 = x0 < 0 ? -x0 : 0, kx1 = d->W - x0 < d->KW ? d->W - x0 : d->KW;
        if (kx1 <= kx0) return false;
    }
    return true;
}

typedef struct { gc_ctx *ctx; const gc_node *n; bool fast; } pool_job;

static void pool_job_run(void *arg, int64_t r0, int64_t r1, int wk) {
    (void)wk;
    const pool_job *j = arg;
    if (j->fast) pool_f32_rows(j->ctx, j->n, r0, r1);
    else pool_ref_rows(j->ctx, j->n, r0, r1);
}

static gc_status pool_eval(gc_ctx *ctx, gc_node *n) {
    pool_data *d = n->data;
    if (n->code == GC_OP_AVERAGE_POOL_2D && n->in[0]->dtype != GC_T_FLOAT32)   /* the quantized average divides */
        GC_ENSURE(ctx, windows_nonempty(d), "empty pooling window");
    pool_job j = { ctx, n, n->in[0]->dtype == GC_T_FLOAT32 && !ctx->reference };
    int64_t rows = (int64_t)d->B * d->OH;
    gc_ctx_for(ctx, rows, gc_ctx_chunk(ctx, rows, (double)d->OW * d->C * d->KH * d->KW * 0.25), pool_job_run, &j);
    return GC_OK;
}

const gc_kernel GC_K(gc_k_average_pool_2d) = { "AVERAGE_POOL_2D", pool_prepare, pool_eval, 0 };
const gc_kernel GC_K(gc_k_max_pool_2d) = { "MAX_POOL_2D", pool_prepare, pool_eval, 0 };
const gc_kernel GC_K(gc_k_l2_pool_2d) = { "L2_POOL_2D", pool_prepare, pool_eval, 0 };
