/* resize.c — RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR (NHWC; size input [2] = new H, W,
 * known at prepare). Options: align_corners, half_pixel_centers.
 *
 * Scale per axis: align_corners and out > 1 ? (in-1)/(out-1) : in/out (float).
 * BILINEAR (TFLite reference): src = half_pixel ? (o + 0.5) s - 0.5 : o s;
 *   lo = max(floor(src), 0), hi = min(ceil(src), in-1), f = src - lo;
 *   out = v(y0,x0)(1-fy)(1-fx) + v(y1,x0) fy (1-fx) + v(y0,x1)(1-fy) fx + v(y1,x1) fy fx,
 *   summed in that order (float32).
 *   Quantized (INT8/UINT8/INT16, input and output share one quantization): the same
 *   float formula on the raw integers, rounded half away from zero. TFLite's integer
 *   variants and XNNPACK's fixed-point kernel agree with it within one quantum.
 *   With --int-arith xnnpack on INT8 / UINT8: XNNPACK's kernel: source coordinate in
 *   float (half-pixel: o s + (s/2 - 1/2) clamped to [0, in-1]), weights rounded to 1/2048,
 *   t = 2048 tl + (tr - tl) wx, b likewise, out = (2048 t + (b - t) wy + 2^21) >> 22.
 * NEAREST: align_corners ? round_half_away((o + off) s) : floor((o + off) s), off =
 *   0.5 with half_pixel_centers, then clamped to [0, in-1]. Any type (copies).
 * fp16: float math in float32; output rounded by the core.
 * Output rows (b, oy) are split over the pool.
 * ctx->fast: 8-bit BILINEAR runs both formulas on vectors (kernels/qelem8.h, bit-identical).
 */
#include "interp/interp_impl.h"
#include "interp/kernels/qelem8.h"

/* The channel loops run across independent outputs, so vectorising them keeps every
 * output's expression; GCC's -O2 does not vectorise them, -O3 does (as conv.c). */
#include "interp/kernels/vec_loops.h"

typedef struct { int32_t B, H, W, C, OH, OW; float sy, sx; bool align, half, xnn;
                 bool f8; gc_q8bil q8; int isa;   /* 8-bit bilinear on vectors (ctx->fast; qelem8.h) */
                 /* f8: the reference's source coordinates and weights, made at prepare by its
                  * own functions: per output column (byte offsets of the two pixels, weight)
                  * and row (the two input rows, weight) */
                 int32_t *xo0, *xo1, *wxq, *y0, *y1, *wyq;
                 float *wx, *wy;
} resize_data;

static void interp_values(int32_t o, float s, bool half, int32_t in, float *src, int32_t *lo, int32_t *hi);
static void xnn_coord(const resize_data *d, int32_t o, int32_t in, int32_t out, bool vertical,
                      int32_t *lo, int32_t *hi, int32_t *w);

static gc_status resize_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "size"));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, x->rank == 4, "input must be 4-D (NHWC)");
    GC_ENSURE(ctx, gc_numel(n->in[1]) == 2, "size must have 2 entries");
    GC_ENSURE(ctx, x->dtype == y->dtype, "input and output types differ");
    bool bil = n->code == GC_OP_RESIZE_BILINEAR;
    if (bil) GC_UNSUP(ctx, x->dtype == GC_T_FLOAT32 || gc_is_qint(x->dtype), "RESIZE_BILINEAR on %s", gc_type_name(x->dtype));
    resize_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->B = x->shape[0]; d->H = x->shape[1]; d->W = x->shape[2]; d->C = x->shape[3];
    d->OH = (int32_t)gc_get_int(n->in[1], 0); d->OW = (int32_t)gc_get_int(n->in[1], 1);
    GC_ENSURE(ctx, d->OH > 0 && d->OW > 0, "size %dx%d", (int)d->OH, (int)d->OW);
    const gc_options *o = gc_opts(n);
    d->align = gc_opt_int(o, bil ? GC_O_ResizeBilinearOptions_align_corners : GC_O_ResizeNearestNeighborOptions_align_corners) != 0;
    d->half = gc_opt_int(o, bil ? GC_O_ResizeBilinearOptions_half_pixel_centers : GC_O_ResizeNearestNeighborOptions_half_pixel_centers) != 0;
    d->sy = (d->align && d->OH > 1) ? (float)(d->H - 1) / (float)(d->OH - 1) : (float)d->H / (float)d->OH;
    d->sx = (d->align && d->OW > 1) ? (float)(d->W - 1) / (float)(d->OW - 1) : (float)d->W / (float)d->OW;
    if (gc_is_qint(x->dtype)) GC_UNSUP(ctx, x->scale == y->scale && x->zp == y->zp, "requantizing resize is not supported");
    d->xnn = ctx->xnn && bil && (x->dtype == GC_T_INT8 || x->dtype == GC_T_UINT8);
    if (ctx->fast && bil && (x->dtype == GC_T_INT8 || x->dtype == GC_T_UINT8)) {
        int32_t lo, hi;
        gc_qrange(x->dtype, &lo, &hi);
        d->f8 = true;
        d->isa = ctx->isa;
        d->q8 = (gc_q8bil){ .xnn = d->xnn, .sgn = x->dtype == GC_T_INT8, .lo = lo, .hi = hi };
        const size_t nx = (size_t)d->OW, ny = (size_t)d->OH;
        d->xo0 = gc_ctx_alloc(ctx, nx * 3 * sizeof(int32_t));
        d->y0 = gc_ctx_alloc(ctx, ny * 3 * sizeof(int32_t));
        d->wx = gc_ctx_alloc(ctx, nx * sizeof(float));
        d->wy = gc_ctx_alloc(ctx, ny * sizeof(float));
        if (!d->xo0 || !d->y0 || !d->wx || !d->wy) return GC_ERR_NOMEM;
        d->xo1 = d->xo0 + nx; d->wxq = d->xo1 + nx; d->y1 = d->y0 + ny; d->wyq = d->y1 + ny;
        GC_UNSUP(ctx, (int64_t)d->W * d->C <= INT32_MAX, "resize row of %d x %d out of range", (int)d->W, (int)d->C);
        for (int32_t ox = 0; ox < d->OW; ox++) {
            int32_t a, b, w = 0;
            float f = 0.0f;
            if (d->xnn) xnn_coord(d, ox, d->W, d->OW, false, &a, &b, &w);
            else { interp_values(ox, d->sx, d->half, d->W, &f, &a, &b); f = f - (float)a; }
            d->xo0[ox] = a * d->C; d->xo1[ox] = b * d->C; d->wxq[ox] = w; d->wx[ox] = f;
        }
        for (int32_t oy = 0; oy < d->OH; oy++) {
            int32_t a, b, w = 0;
            float f = 0.0f;
            if (d->xnn) xnn_coord(d, oy, d->H, d->OH, true, &a, &b, &w);
            else { interp_values(oy, d->sy, d->half, d->H, &f, &a, &b); f = f - (float)a; }
            d->y0[oy] = a; d->y1[oy] = b; d->wyq[oy] = w; d->wy[oy] = f;
        }
    }
    n->data = d;
    int32_t shp[4] = { d->B, d->OH, d->OW, d->C };
    return gc_set_shape(ctx, y, 4, shp);
}

static void interp_values(int32_t o, float s, bool half, int32_t in, float *src, int32_t *lo, int32_t *hi) {
    *src = half ? ((float)o + 0.5f) * s - 0.5f : (float)o * s;
    int32_t f = (int32_t)floorf(*src), c = (int32_t)ceilf(*src);
    *lo = f > 0 ? f : 0;
    *hi = c < in - 1 ? c : in - 1;
}

static int32_t nearest(int32_t o, float s, bool align, bool half, int32_t in) {
    float off = half ? 0.5f : 0.0f;
    int32_t v = align ? (int32_t)roundf(((float)o + off) * s) : (int32_t)floorf(((float)o + off) * s);
    if (v > in - 1) v = in - 1;
    if (half && v < 0) v = 0;
    return v;
}

/* XNNPACK's source coordinate, left index and 11-bit weight along one axis. */
static void xnn_coord(const resize_data *d, int32_t o, int32_t in, int32_t out, bool vertical,
                      int32_t *lo, int32_t *hi, int32_t *w) {
    int32_t adj = d->align && out != 1;
    float scale = (float)(in - adj) / (float)(out - adj);
    float src;
    if (d->align || !d->half) src = (float)o * scale;
    else {
        src = (float)o * scale + (0.5f * scale - 0.5f);
        src = src < 0.0f ? 0.0f : src > (float)(in - 1) ? (float)(in - 1) : src;
    }
    (void)vertical;
    *lo = (int32_t)src;
    *hi = *lo + 1 < in - 1 ? *lo + 1 : in - 1;
    *w = (int32_t)lrintf((src - (float)*lo) * 2048.0f);
}

/* output rows r0..r1-1 (r = b * OH + oy) */
GC_CLONES static void resize_rows(void *arg, int64_t r0, int64_t r1, int wk) {
    (void)wk;
    const gc_node *n = arg;
    const resize_data *d = n->data;
    const gc_rt *x = n->in[0], *y = n->out[0];
    int dt = x->dtype;
    size_t es = (size_t)gc_esize(dt);
    const int32_t C = d->C;
    for (int64_t r = r0; r < r1; r++) {
        const int32_t b = (int32_t)(r / d->OH), oy = (int32_t)(r % d->OH);
        if (d->f8) {                               /* a row at a time, where this CPU has the kernel */
            const uint8_t *img = x->data + (size_t)b * d->H * d->W * C;
            if (gc_q8bil_row(d->isa, &d->q8, img + (size_t)d->y0[oy] * d->W * C, img + (size_t)d->y1[oy] * d->W * C,
                             d->xo0, d->xo1, d->wx, d->wxq, d->wy[oy], d->wyq[oy], d->OW, C, y->data + (size_t)r * d->OW * C))
                continue;
        }
            for (int32_t ox = 0; ox < d->OW; ox++) {
                size_t yi = (((size_t)b * d->OH + oy) * d->OW + ox) * C;
                if (n->code == GC_OP_RESIZE_NEAREST_NEIGHBOR) {
                    int32_t iy = nearest(oy, d->sy, d->align, d->half, d->H), ix = nearest(ox, d->sx, d->align, d->half, d->W);
                    memcpy(y->data + yi * es, x->data + (((size_t)b * d->H + iy) * d->W + ix) * C * es, (size_t)C * es);
                    continue;
                }
                if (d->xnn) {                     /* XNNPACK's Q11 fixed-point kernel */
                    int32_t y0, y1, x0, x1, wy, wx;
                    xnn_coord(d, oy, d->H, d->OH, true, &y0, &y1, &wy);
                    xnn_coord(d, ox, d->W, d->OW, false, &x0, &x1, &wx);
                    size_t p00 = (((size_t)b * d->H + y0) * d->W + x0) * C, p01 = (((size_t)b * d->H + y0) * d->W + x1) * C;
                    size_t p10 = (((size_t)b * d->H + y1) * d->W + x0) * C, p11 = (((size_t)b * d->H + y1) * d->W + x1) * C;
                    if (d->f8 && gc_q8bil_px(d->isa, &d->q8, x->data + p00, x->data + p10, x->data + p01, x->data + p11,
                                             NULL, wx, wy, C, y->data + yi))
                        continue;
                    for (int32_t c = 0; c < C; c++) {
                        int32_t tl = gc_qget(dt, x->data, p00 + (size_t)c), tr = gc_qget(dt, x->data, p01 + (size_t)c);
                        int32_t bl = gc_qget(dt, x->data, p10 + (size_t)c), br = gc_qget(dt, x->data, p11 + (size_t)c);
                        int32_t t = tl * 2048 + (tr - tl) * wx, bt = bl * 2048 + (br - bl) * wx;
                        int32_t acc = t * 2048 + (bt - t) * wy;
                        gc_qset(dt, y->data, yi + (size_t)c, (acc + (1 << 21)) >> 22);
                    }
                    continue;
                }
                float fy, fx; int32_t y0, y1, x0, x1;
                interp_values(oy, d->sy, d->half, d->H, &fy, &y0, &y1);
                interp_values(ox, d->sx, d->half, d->W, &fx, &x0, &x1);
                float wy = fy - (float)y0, wx = fx - (float)x0;
                size_t i00 = (((size_t)b * d->H + y0) * d->W + x0) * C, i01 = (((size_t)b * d->H + y0) * d->W + x1) * C;
                size_t i10 = (((size_t)b * d->H + y1) * d->W + x0) * C, i11 = (((size_t)b * d->H + y1) * d->W + x1) * C;
                float w00 = (1 - wy) * (1 - wx), w10 = wy * (1 - wx), w01 = (1 - wy) * wx, w11 = wy * wx;
                if (dt == GC_T_FLOAT32) {
                    const float *xs = (const float *)x->data;
                    float *ys = (float *)y->data;
                    for (int32_t c = 0; c < C; c++)
                        ys[yi + (size_t)c] = xs[i00 + (size_t)c] * (1 - wy) * (1 - wx) + xs[i10 + (size_t)c] * wy * (1 - wx) +
                                             xs[i01 + (size_t)c] * (1 - wy) * wx + xs[i11 + (size_t)c] * wy * wx;
                } else {
                    const float wv[4] = { w00, w10, w01, w11 };
                    if (d->f8 && gc_q8bil_px(d->isa, &d->q8, x->data + i00, x->data + i10, x->data + i01, x->data + i11,
                                             wv, 0, 0, C, y->data + yi))
                        continue;
                    int32_t lo, hi;
                    gc_qrange(dt, &lo, &hi);
                    for (int32_t c = 0; c < C; c++) {
                        float v = (float)gc_qget(dt, x->data, i00 + (size_t)c) * w00 + (float)gc_qget(dt, x->data, i10 + (size_t)c) * w10 +
                                  (float)gc_qget(dt, x->data, i01 + (size_t)c) * w01 + (float)gc_qget(dt, x->data, i11 + (size_t)c) * w11;
                        gc_qset(dt, y->data, yi + (size_t)c, gc_clamp_i32((int64_t)roundf(v), lo, hi));
                    }
                }
            }
    }
}

static gc_status resize_eval(gc_ctx *ctx, gc_node *n) {
    resize_data *d = n->data;
    int64_t rows = (int64_t)d->B * d->OH;
    gc_ctx_for(ctx, rows, gc_ctx_chunk(ctx, rows, (double)d->OW * d->C), resize_rows, n);
    return GC_OK;
}

const gc_kernel GC_K(gc_k_resize_bilinear) = { "RESIZE_BILINEAR", resize_prepare, resize_eval, 0 };
const gc_kernel GC_K(gc_k_resize_nearest) = { "RESIZE_NEAREST_NEIGHBOR", resize_prepare, resize_eval, 0 };
