/* mediapipe.c — MediaPipe's custom ops (the CPU kernels of mediapipe/util/tflite/operations,
 * registered by MediaPipe's op resolver; matched here by custom_code in ops.c). Float32
 * (float64 in the double build); NHWC; batch as stated per op.
 *
 * Custom options, two layouts:
 *   raw C structs (little-endian int32 fields), as the converter wrote them:
 *     TfLiteTransposeConvParams  { padding, stride_width, stride_height, ... } >= 12 bytes
 *     TfLitePoolParams           { padding, stride_width, stride_height, filter_width,
 *                                  filter_height, activation, ... }          >= 24 bytes
 *     padding: 1 SAME, 2 VALID (TfLitePadding); activation: fused activation code.
 *   a FlexBuffer map (model/flexbuf.h) for the landmark / transform ops (keys below).
 * The op version (opcode version) picks the variant where MediaPipe has two.
 *
 * Convolution2DTransposeBias (x [N,H,W,Ci], w [Co,kh,kw,Ci] (OHWI), b [Co]) -> [N,Ho,Wo,Co]
 *   SAME: pad_h = max(0, kh - (H-1) % sh - 1) (pad_w likewise), VALID: 0;
 *   Ho = sh*(H-1) + kh - pad_h, Wo likewise; offsets pad_h/2, pad_w/2.
 *   y = b, then for every input pixel (in_y, in_x), in_c, filter (fy, fx), out_c in that
 *   order: y[in_y*sh - pad_h/2 + fy][in_x*sw - pad_w/2 + fx][oc] += x * w (inside only).
 * MaxPoolingWithArgmax2D (x [N,H,W,C]) -> values [N,Ho,Wo,C], indices [N,Ho,Wo,C] (FLOAT32)
 *   Ho = SAME: ceil(H/sh), VALID: (H - fh + sh) / sh; pad = max(0, ((Ho-1)*sh + fh - H) / 2);
 *   window clamped to the input; the first strict maximum (row-major) wins, starting from
 *   the lowest float; value clamped by the fused activation; index = fy*fw + fx + 0.1
 *   (window-local, as a float; (0, 0) when the window is empty).
 * MaxUnpooling2D (values [N,h,w,C], indices [N,h,w,C] FLOAT32) -> [N, h*fh, w*fw, C]
 *   pad = max(0, ((h-1)*sh + fh - h*fh) / 2); output zero, then for each input element
 *   k = (int)index: y[in_y*sh - pad_h + k / fw][in_x*sw - pad_w + k % fw][c] = value
 *   (a later element overwrites). An index that is negative, not finite, or lands outside
 *   the output fails the invoke (MediaPipe writes out of bounds).
 * Landmarks2TransformMatrix v2 (landmarks [1,N,3]) -> [1,4,4]; options subset_idxs (ints,
 *   pairs; an odd last one paired with itself), left_rotation_idx, right_rotation_idx,
 *   target_rotation_radians, output_height, output_width, scale_x, scale_y:
 *   r = target - atan2(yR - yL, xR - xL); the subset's (x, y) rotated by r; crop size =
 *   max - min of the rotated points, centre = (min + max) / 2 rotated back by -r;
 *   M = shift(cx, cy) * rot(-r) * scale(scale_x * w / out_w, scale_y * h / out_h)
 *       * shift(-out_w / 2, -out_h / 2)   (4x4, row-major, float products in k order).
 *   v1 (the older bbox form) is not registered by MediaPipe's CPU resolver: refused.
 * TransformLandmarks v2 (landmarks [1,N,D], matrix [1,4,4]) -> [1,N,D], D = 2 or 3:
 *   x' = m0 x + m1 y + m2 0 + m3 1, y' = m4 x + m5 y + m6 0 + m7 1 (summed left to right),
 *   z copied. v1 (landmarks [1,H,W,C], options dimensions (2|3), scale != 0): the same
 *   per landmark with m3, m7 multiplied by scale.
 * TransformTensorBilinear v2 (x [1,H,W,C], matrix [1,4,4]) -> [1,Ho,Wo,Co] (Co <= C; the
 *   file's output shape, or options output_height/output_width with Co = C): for each
 *   output pixel, (u, v) = rows 0 and 1 of M (x, y, 0, 1)-dotted, after the align-corners
 *   correction m3 += m0/2 + m1/2 - 1/2, m7 += m4/2 + m5/2 - 1/2 (in double); outside
 *   [0, W-1] x [0, H-1]: 0; else bilinear of the four neighbours (those past the edge read
 *   0): upper = (1 - fx) q11 + fx q21, lower likewise, y = fy lower + (1 - fy) upper,
 *   the (1 - f) factors in double as MediaPipe writes them. v1 ("TransformTensor", options
 *   output_size [h, w], mode "bilinear"): no align-corners correction.
 * fp16 modes: outputs rounded to half by the core (the argmax indices are kept exact);
 * fp16-acc also rounds each multiply-add of the transposed convolution.
 */
#include <float.h>
#include <math.h>
#include "interp/interp_impl.h"
#include "model/flexbuf.h"

enum { MP_SAME = 1, MP_VALID = 2 };

/* little-endian int32 field k of a raw custom-options struct */
static int32_t mp_field(const gc_node *n, int k) {
    const uint8_t *p = n->op->custom_options + 4 * k;
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static gc_status mp_need_struct(gc_ctx *ctx, const gc_node *n, int fields, const char *what) {
    GC_ENSURE(ctx, n->op->custom_options && n->op->n_custom_options >= (uint32_t)(4 * fields),
              "custom options must hold %s (%d bytes), the op has %u", what, 4 * fields,
              n->op->custom_options ? n->op->n_custom_options : 0u);
    return GC_OK;
}

static gc_status mp_float_io(gc_ctx *ctx, const gc_node *n) {
    for (int i = 0; i < n->n_in; i++)
        GC_UNSUP(ctx, n->in[i] && gc_is_float(n->in[i]->dtype), "input %d is %s (float32 only)", i,
                 n->in[i] ? gc_type_name(n->in[i]->dtype) : "absent");
    for (int i = 0; i < n->n_out; i++)
        GC_UNSUP(ctx, gc_is_float(n->out[i]->dtype), "output %d is %s (float32 only)", i, gc_type_name(n->out[i]->dtype));
    return GC_OK;
}

static gc_status mp_dims_ok(gc_ctx *ctx, int64_t h, int64_t w, const char *what) {
    GC_ENSURE(ctx, h > 0 && w > 0 && h <= INT32_MAX && w <= INT32_MAX, "%s %lldx%lld is empty or too large",
              what, (long long)h, (long long)w);
    return GC_OK;
}

/* ---- Convolution2DTransposeBias ------------------------------------------------------ */

typedef struct { int sh, sw, ph, pw; } tcb_data;

static gc_status tcb_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 3, 3, 1));
    GC_TRY(mp_float_io(ctx, n));
    GC_TRY(mp_need_struct(ctx, n, 3, "TfLiteTransposeConvParams"));
    gc_rt *x = n->in[0], *w = n->in[1], *b = n->in[2];
    GC_ENSURE(ctx, x->rank == 4 && w->rank == 4 && b->rank == 1, "expects input [N,H,W,C], weights [O,H,W,I], bias [O]");
    GC_ENSURE(ctx, w->shape[3] == x->shape[3], "weights have %d input channels, the input %d", (int)w->shape[3], (int)x->shape[3]);
    GC_ENSURE(ctx, b->shape[0] == w->shape[0], "bias has %d values for %d output channels", (int)b->shape[0], (int)w->shape[0]);
    int pad = mp_field(n, 0), sw = mp_field(n, 1), sh = mp_field(n, 2);
    GC_ENSURE(ctx, pad == MP_SAME || pad == MP_VALID, "padding %d is neither SAME (1) nor VALID (2)", pad);
    GC_ENSURE(ctx, sw >= 1 && sh >= 1 && sw <= 4096 && sh <= 4096, "strides %dx%d out of range", sh, sw);
    int kh = w->shape[1], kw = w->shape[2], H = x->shape[1], W = x->shape[2];
    GC_ENSURE(ctx, kh > 0 && kw > 0 && H > 0 && W > 0, "empty input or filter");
    tcb_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    int ph = 0, pw = 0;
    if (pad == MP_SAME) {
        ph = kh - (H - 1) % sh - 1; if (ph < 0) ph = 0;
        pw = kw - (W - 1) % sw - 1; if (pw < 0) pw = 0;
    }
    int64_t ho = (int64_t)sh * (H - 1) + kh - ph, wo = (int64_t)sw * (W - 1) + kw - pw;
    GC_TRY(mp_dims_ok(ctx, ho, wo, "output"));
    d->sh = sh; d->sw = sw; d->ph = ph / 2; d->pw = pw / 2;
    n->data = d;
    int32_t shp[4] = { x->shape[0], (int32_t)ho, (int32_t)wo, w->shape[0] };
    return gc_set_shape(ctx, n->out[0], 4, shp);
}

static gc_status tcb_eval(gc_ctx *ctx, gc_node *n) {
    const tcb_data *d = n->data;
    const gc_rt *xr = n->in[0], *wr = n->in[1], *yr = n->out[0];
    const float *x = (const float *)xr->data, *w = (const float *)wr->data, *b = (const float *)n->in[2]->data;
    float *y = (float *)yr->data;
    const int N = xr->shape[0], H = xr->shape[1], W = xr->shape[2], CI = xr->shape[3];
    const int KH = wr->shape[1], KW = wr->shape[2], HO = yr->shape[1], WO = yr->shape[2], CO = yr->shape[3];
    for (int bt = 0; bt < N; bt++) {
        float *yb = y + (size_t)bt * HO * WO * CO;
        for (size_t p = 0; p < (size_t)HO * WO; p++)
            for (int oc = 0; oc < CO; oc++) yb[p * CO + oc] = b[oc];
        for (int iy = 0; iy < H; iy++)
            for (int ix = 0; ix < W; ix++)
                for (int ic = 0; ic < CI; ic++) {
                    float xv = x[(((size_t)bt * H + iy) * W + ix) * CI + ic];
                    int oy0 = iy * d->sh - d->ph, ox0 = ix * d->sw - d->pw;
                    for (int fy = 0; fy < KH; fy++) {
                        int oy = oy0 + fy;
                        if (oy < 0 || oy >= HO) continue;
                        for (int fx = 0; fx < KW; fx++) {
                            int ox = ox0 + fx;
                            if (ox < 0 || ox >= WO) continue;
                            float *yp = yb + ((size_t)oy * WO + ox) * CO;
                            for (int oc = 0; oc < CO; oc++)
                                yp[oc] = gc_racc(ctx, yp[oc] + gc_racc(ctx, xv * w[(((size_t)oc * KH + fy) * KW + fx) * CI + ic]));
                        }
                    }
                }
    }
    return GC_OK;
}

/* ---- MaxPoolingWithArgmax2D / MaxUnpooling2D ---------------------------------------- */

typedef struct { int sh, sw, fh, fw, ph, pw, act; } pool_data;

static gc_status pool_params(gc_ctx *ctx, gc_node *n, pool_data *d, int *padding) {
    GC_TRY(mp_need_struct(ctx, n, 6, "TfLitePoolParams"));
    *padding = mp_field(n, 0);
    d->sw = mp_field(n, 1); d->sh = mp_field(n, 2); d->fw = mp_field(n, 3); d->fh = mp_field(n, 4);
    d->act = mp_field(n, 5);
    GC_ENSURE(ctx, *padding == MP_SAME || *padding == MP_VALID, "padding %d is neither SAME (1) nor VALID (2)", *padding);
    GC_ENSURE(ctx, d->sw >= 1 && d->sh >= 1 && d->sw <= 4096 && d->sh <= 4096, "strides %dx%d out of range", d->sh, d->sw);
    GC_ENSURE(ctx, d->fw >= 1 && d->fh >= 1 && d->fw <= 4096 && d->fh <= 4096, "filter %dx%d out of range", d->fh, d->fw);
    GC_UNSUP(ctx, d->act == GC_ACT_NONE || d->act == GC_ACT_RELU || d->act == GC_ACT_RELU6 || d->act == GC_ACT_RELU_N1_TO_1,
             "fused activation %d is not supported", d->act);
    return GC_OK;
}

/* TFLite ComputePadding with dilation 1 */
static int mp_pad(int stride, int in, int filter, int out) {
    int64_t p = ((int64_t)(out - 1) * stride + filter - in) / 2;
    return p > 0 ? (int)p : 0;
}

static gc_status argmax_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 2));
    GC_TRY(mp_float_io(ctx, n));
    gc_rt *x = n->in[0];
    GC_ENSURE(ctx, x->rank == 4, "input must be [N,H,W,C]");
    pool_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    int padding;
    GC_TRY(pool_params(ctx, n, d, &padding));
    int H = x->shape[1], W = x->shape[2];
    int ho = padding == MP_SAME ? (H + d->sh - 1) / d->sh : (H - d->fh + d->sh) / d->sh;
    int wo = padding == MP_SAME ? (W + d->sw - 1) / d->sw : (W - d->fw + d->sw) / d->sw;
    GC_TRY(mp_dims_ok(ctx, ho, wo, "output"));
    d->ph = mp_pad(d->sh, H, d->fh, ho); d->pw = mp_pad(d->sw, W, d->fw, wo);
    n->data = d;
    int32_t shp[4] = { x->shape[0], ho, wo, x->shape[3] };
    GC_TRY(gc_set_shape(ctx, n->out[0], 4, shp));
    return gc_set_shape(ctx, n->out[1], 4, shp);
}

static gc_status argmax_eval(gc_ctx *ctx, gc_node *n) {
    const pool_data *d = n->data;
    const gc_rt *xr = n->in[0], *yr = n->out[0];
    const float *x = (const float *)xr->data;
    float *y = (float *)yr->data, *ix = (float *)n->out[1]->data;
    const int N = xr->shape[0], H = xr->shape[1], W = xr->shape[2], C = xr->shape[3];
    const int HO = yr->shape[1], WO = yr->shape[2];
    float lo, hi;
    gc_act_range_f(d->act, &lo, &hi);
    for (int b = 0; b < N; b++)
        for (int oy = 0; oy < HO; oy++)
            for (int ox = 0; ox < WO; ox++)
                for (int c = 0; c < C; c++) {
                    int y0 = oy * d->sh - d->ph, x0 = ox * d->sw - d->pw;
                    int fy0 = y0 < 0 ? -y0 : 0, fy1 = d->fh < H - y0 ? d->fh : H - y0;
                    int fx0 = x0 < 0 ? -x0 : 0, fx1 = d->fw < W - x0 ? d->fw : W - x0;
                    float m = -FLT_MAX;
                    int my = 0, mx = 0;
                    for (int fy = fy0; fy < fy1; fy++)
                        for (int fx = fx0; fx < fx1; fx++) {
                            float v = x[(((size_t)b * H + y0 + fy) * W + x0 + fx) * C + c];
                            if (v > m) { m = v; my = fy; mx = fx; }
                        }
                    size_t o = (((size_t)b * HO + oy) * WO + ox) * C + c;
                    float v = gc_act_f(m, lo, hi);
                    y[o] = ctx->fp16 ? gc_f16_round(v) : v;
                    ix[o] = (float)(my * d->fw + mx) + 0.1f;
                }
    return GC_OK;
}

static gc_status unpool_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(mp_float_io(ctx, n));
    gc_rt *x = n->in[0], *k = n->in[1];
    GC_ENSURE(ctx, x->rank == 4 && gc_same_shape(x, k), "values and indices must be [N,H,W,C] of one shape");
    pool_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    int padding;
    GC_TRY(pool_params(ctx, n, d, &padding));
    int64_t ho = (int64_t)x->shape[1] * d->fh, wo = (int64_t)x->shape[2] * d->fw;
    GC_TRY(mp_dims_ok(ctx, ho, wo, "output"));
    d->ph = mp_pad(d->sh, (int)ho, d->fh, x->shape[1]); d->pw = mp_pad(d->sw, (int)wo, d->fw, x->shape[2]);
    n->data = d;
    int32_t shp[4] = { x->shape[0], (int32_t)ho, (int32_t)wo, x->shape[3] };
    return gc_set_shape(ctx, n->out[0], 4, shp);
}

static gc_status unpool_eval(gc_ctx *ctx, gc_node *n) {
    const pool_data *d = n->data;
    const gc_rt *xr = n->in[0], *yr = n->out[0];
    const float *x = (const float *)xr->data, *k = (const float *)n->in[1]->data;
    float *y = (float *)yr->data;
    const int N = xr->shape[0], H = xr->shape[1], W = xr->shape[2], C = xr->shape[3];
    const int HO = yr->shape[1], WO = yr->shape[2];
    memset(y, 0, yr->nbytes);
    for (int b = 0; b < N; b++)
        for (int iy = 0; iy < H; iy++)
            for (int ixx = 0; ixx < W; ixx++)
                for (int c = 0; c < C; c++) {
                    size_t i = (((size_t)b * H + iy) * W + ixx) * C + c;
                    float kf = k[i];
                    if (!(kf >= 0 && kf < 2147483647.0f))
                        return gc_fail(ctx, GC_ERR_FORMAT, "index %g at element %zu is negative or not finite", (double)kf, i);
                    int idx = (int)kf;
                    int64_t oy = (int64_t)iy * d->sh - d->ph + idx / d->fw, ox = (int64_t)ixx * d->sw - d->pw + idx % d->fw;
                    if (oy < 0 || oy >= HO || ox < 0 || ox >= WO)
                        return gc_fail(ctx, GC_ERR_FORMAT, "index %d at element %zu points outside the %dx%d output",
                                       idx, i, HO, WO);
                    y[(((size_t)b * HO + oy) * WO + ox) * C + c] = x[i];
                }
    return GC_OK;
}

/* ---- Landmarks2TransformMatrix (v2) --------------------------------------------------- */

#define MP_MAX_SUBSET 256
typedef struct {
    int n_idx;                  /* 2 * pairs */
    int32_t idx[2 * MP_MAX_SUBSET];
    int left, right, out_h, out_w;
    gc_f32 target, scale_x, scale_y;
} l2m_data;

static gc_status flex_int(gc_ctx *ctx, gc_flex fb, const char *key, int64_t lo, int64_t hi, int32_t *out) {
    int64_t i = 0; double f = 0;
    int k = gc_flex_root_get(fb, key, &i, &f);
    GC_ENSURE(ctx, k == 1, "custom option '%s' is %s (an integer is needed)", key, k == 0 ? "absent" : "not an integer");
    GC_ENSURE(ctx, i >= lo && i <= hi, "custom option '%s' = %lld is out of range [%lld, %lld]", key, (long long)i,
              (long long)lo, (long long)hi);
    *out = (int32_t)i;
    return GC_OK;
}

static gc_status flex_num(gc_ctx *ctx, gc_flex fb, const char *key, gc_f32 *out) {
    int64_t i = 0; double f = 0;
    int k = gc_flex_root_get(fb, key, &i, &f);
    GC_ENSURE(ctx, k == 1 || k == 2, "custom option '%s' is %s (a number is needed)", key, k == 0 ? "absent" : "not a number");
    *out = k == 1 ? (gc_f32)i : (gc_f32)f;      /* AsFloat of an int converts it */
    GC_ENSURE(ctx, isfinite(*out), "custom option '%s' is not finite", key);
    return GC_OK;
}

static gc_flex mp_flex(const gc_node *n) {
    gc_flex fb = { n->op->custom_options, n->op->custom_options ? n->op->n_custom_options : 0 };
    return fb;
}

static gc_status l2m_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    GC_TRY(mp_float_io(ctx, n));
    GC_UNSUP(ctx, n->version == 2, "version %d is not supported (MediaPipe's CPU resolver registers version 2)", n->version);
    gc_rt *x = n->in[0];
    GC_ENSURE(ctx, x->rank == 3, "landmarks must be [1, N, 3] (rank 3), got rank %d", x->rank);
    uint64_t nl = gc_numel(x) / 3;
    l2m_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    gc_flex fb = mp_flex(n);
    int64_t v[2 * MP_MAX_SUBSET];
    int cnt = gc_flex_root_get_ivec(fb, "subset_idxs", v, 2 * MP_MAX_SUBSET);
    GC_ENSURE(ctx, cnt >= 1, "custom option 'subset_idxs' is absent, empty or not an int vector");
    GC_UNSUP(ctx, cnt <= 2 * MP_MAX_SUBSET, "%d subset indices (at most %d supported)", cnt, 2 * MP_MAX_SUBSET);
    for (int i = 0; i < cnt; i++) {
        GC_ENSURE(ctx, v[i] >= 0 && (uint64_t)v[i] < nl, "subset index %d = %lld is outside the %llu landmarks", i,
                  (long long)v[i], (unsigned long long)nl);
        d->idx[i] = (int32_t)v[i];
    }
    d->n_idx = cnt;
    if (cnt % 2) d->idx[d->n_idx++] = d->idx[cnt - 1];
    GC_TRY(flex_int(ctx, fb, "left_rotation_idx", 0, (int64_t)nl - 1, &d->left));
    GC_TRY(flex_int(ctx, fb, "right_rotation_idx", 0, (int64_t)nl - 1, &d->right));
    GC_TRY(flex_int(ctx, fb, "output_height", 1, INT32_MAX, &d->out_h));
    GC_TRY(flex_int(ctx, fb, "output_width", 1, INT32_MAX, &d->out_w));
    GC_TRY(flex_num(ctx, fb, "target_rotation_radians", &d->target));
    GC_TRY(flex_num(ctx, fb, "scale_x", &d->scale_x));
    GC_TRY(flex_num(ctx, fb, "scale_y", &d->scale_y));
    GC_ENSURE(ctx, d->scale_x > 0 && d->scale_y > 0, "scale_x and scale_y must be > 0 (%g, %g)", (double)d->scale_x,
              (double)d->scale_y);
    n->data = d;
    int32_t shp[3] = { 1, 4, 4 };
    return gc_set_shape(ctx, n->out[0], 3, shp);
}

/* r = a * b (4x4 row-major, sums in k order) */
static void mat4_mul(float *a, const float *b) {
    float r[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            float s = 0;
            for (int k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 4 + j];
            r[i * 4 + j] = s;
        }
    memcpy(a, r, sizeof r);
}

static gc_status l2m_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    const l2m_data *d = n->data;
    const float *lm = (const float *)n->in[0]->data;
    float *out = (float *)n->out[0]->data;
    float rot = atan2f(lm[d->right * 3 + 1] - lm[d->left * 3 + 1], lm[d->right * 3] - lm[d->left * 3]);
    float r = d->target - rot;
    float c = cosf(r), s = sinf(r), ci = cosf(-r), si = sinf(-r);
    float xmax = 0, xmin = 0, ymax = 0, ymin = 0;
    for (int i = 0; i < d->n_idx; i++) {
        float px = lm[d->idx[i] * 3], py = lm[d->idx[i] * 3 + 1];
        /* Mat3 rotation * (x, y, 1): row sums in k order */
        float rx = c * px + -s * py + 0.0f * 1.0f, ry = s * px + c * py + 0.0f * 1.0f;
        if (i == 0) { xmax = xmin = rx; ymax = ymin = ry; continue; }
        if (xmax < rx) xmax = rx;
        if (ymax < ry) ymax = ry;
        if (xmin > rx) xmin = rx;
        if (ymin > ry) ymin = ry;
    }
    float w = xmax - xmin, h = ymax - ymin;
    float mx = (xmin + xmax) / 2, my = (ymin + ymax) / 2;
    float cx = ci * mx + -si * my + 0.0f * 1.0f, cy = si * mx + ci * my + 0.0f * 1.0f;
    float t[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    float sh1[16] = { 1, 0, 0, cx, 0, 1, 0, cy, 0, 0, 1, 0, 0, 0, 0, 1 };
    mat4_mul(t, sh1);
    float c2 = cosf(-r), s2 = sinf(-r);
    float ro[16] = { c2, -s2, 0, 0, s2, c2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    mat4_mul(t, ro);
    float sx = d->scale_x * w / (float)d->out_w, sy = d->scale_y * h / (float)d->out_h;
    float sc[16] = { sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    mat4_mul(t, sc);
    float shx = (float)(-1.0 * (d->out_w / 2.0)), shy = (float)(-1.0 * (d->out_h / 2.0));
    float sh2[16] = { 1, 0, 0, shx, 0, 1, 0, shy, 0, 0, 1, 0, 0, 0, 0, 1 };
    mat4_mul(t, sh2);
    memcpy(out, t, sizeof t);
    return GC_OK;
}

/* ---- TransformLandmarks ---------------------------------------------------------------- */

typedef struct { int dims; gc_f32 scale; } tl_data;

static gc_status matrix_input(gc_ctx *ctx, const gc_rt *m) {
    GC_ENSURE(ctx, gc_numel(m) >= 8, "the transform matrix has %llu values (at least 8: rows 0 and 1 of a 4x4)",
              (unsigned long long)gc_numel(m));
    return GC_OK;
}

static gc_status tl_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(mp_float_io(ctx, n));
    GC_TRY(matrix_input(ctx, n->in[1]));
    gc_rt *x = n->in[0];
    tl_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    if (n->version >= 2) {
        GC_ENSURE(ctx, x->rank == 3 && x->shape[0] == 1, "landmarks must be [1, N, D] (v2)");
        d->dims = x->shape[2]; d->scale = 1.0f;
    } else {
        GC_ENSURE(ctx, x->rank == 4 && x->shape[0] == 1, "landmarks must be [1, H, W, C] (v1)");
        gc_flex fb = mp_flex(n);
        GC_TRY(flex_int(ctx, fb, "dimensions", 2, 3, &d->dims));
        GC_TRY(flex_num(ctx, fb, "scale", &d->scale));
        GC_ENSURE(ctx, d->scale != 0, "custom option 'scale' is 0");
        GC_ENSURE(ctx, x->shape[3] % d->dims == 0, "%d channels are not a whole number of %d-D landmarks",
                  (int)x->shape[3], d->dims);
    }
    GC_ENSURE(ctx, d->dims == 2 || d->dims == 3, "landmarks of %d values (2 or 3 supported)", d->dims);
    n->data = d;
    return gc_set_shape(ctx, n->out[0], x->rank, x->shape);
}

static gc_status tl_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    const tl_data *d = n->data;
    const float *x = (const float *)n->in[0]->data, *m = (const float *)n->in[1]->data;
    float *y = (float *)n->out[0]->data;
    float m3 = m[3] * d->scale, m7 = m[7] * d->scale;
    size_t nl = (size_t)(gc_numel(n->in[0]) / (uint64_t)d->dims);
    for (size_t l = 0; l < nl; l++) {
        const float *p = x + l * (size_t)d->dims;
        float *q = y + l * (size_t)d->dims;
        float px = p[0], py = p[1];
        float tx = px * m[0] + py * m[1] + 0.0f * m[2] + 1.0f * m3;
        float ty = px * m[4] + py * m[5] + 0.0f * m[6] + 1.0f * m7;
        q[0] = tx; q[1] = ty;
        if (d->dims == 3) q[2] = p[2];
    }
    return GC_OK;
}

/* ---- TransformTensorBilinear --------------------------------------------------------- */

typedef struct { bool align; } ttb_data;

static gc_status ttb_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(mp_float_io(ctx, n));
    GC_TRY(matrix_input(ctx, n->in[1]));
    gc_rt *x = n->in[0];
    GC_ENSURE(ctx, x->rank == 4 && x->shape[0] == 1, "input must be [1, H, W, C]");
    GC_ENSURE(ctx, x->shape[1] > 0 && x->shape[2] > 0, "input is empty");
    const char *name = gc_op_name(ctx->m, n->op);
    bool v1 = n->version < 2 || !strcmp(name, "TransformTensor");
    ttb_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->align = !v1;
    gc_flex fb = mp_flex(n);
    int32_t oh = -1, ow = -1;
    if (v1) {
        const char *s; size_t len;
        if (gc_flex_root_get_str(fb, "mode", &s, &len))
            GC_UNSUP(ctx, len == 8 && !memcmp(s, "bilinear", 8), "mode '%.*s' (bilinear only)", (int)(len > 32 ? 32 : len), s);
        int64_t hw[2];
        if (gc_flex_root_get_ivec(fb, "output_size", hw, 2) == 2 && hw[0] > 0 && hw[1] > 0 && hw[0] <= INT32_MAX && hw[1] <= INT32_MAX) {
            oh = (int32_t)hw[0]; ow = (int32_t)hw[1];
        }
    } else {
        int64_t i; double f;
        if (gc_flex_root_get(fb, "output_height", &i, &f) == 1 && i > 0 && i <= INT32_MAX) oh = (int32_t)i;
        if (gc_flex_root_get(fb, "output_width", &i, &f) == 1 && i > 0 && i <= INT32_MAX) ow = (int32_t)i;
    }
    /* MediaPipe keeps the output tensor's shape from the file */
    const gc_tensor *t = n->out[0]->ir;
    bool file_static = t->rank == 4;
    for (int k = 0; k < t->n_shape_signature; k++) file_static &= t->shape_signature[k] >= 0;
    int32_t shp[4] = { 1, oh, ow, x->shape[3] };
    if (file_static) {
        GC_ENSURE(ctx, (oh < 0 || t->shape[1] == oh) && (ow < 0 || t->shape[2] == ow),
                  "the output's shape [%d,%d,%d,%d] disagrees with the options' %dx%d", (int)t->shape[0],
                  (int)t->shape[1], (int)t->shape[2], (int)t->shape[3], (int)oh, (int)ow);
        for (int k = 0; k < 4; k++) shp[k] = t->shape[k];
    }
    GC_ENSURE(ctx, shp[1] > 0 && shp[2] > 0, "output size unknown: no static output shape and no size in the options");
    GC_ENSURE(ctx, shp[0] == 1 && shp[3] >= 1 && shp[3] <= x->shape[3], "output [%d,%d,%d,%d] must be [1, h, w, c <= %d]",
              (int)shp[0], (int)shp[1], (int)shp[2], (int)shp[3], (int)x->shape[3]);
    n->data = d;
    return gc_set_shape(ctx, n->out[0], 4, shp);
}

static gc_status ttb_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    const ttb_data *d = n->data;
    const gc_rt *xr = n->in[0], *yr = n->out[0];
    const float *x = (const float *)xr->data, *m = (const float *)n->in[1]->data;
    float *y = (float *)yr->data;
    const int H = xr->shape[1], W = xr->shape[2], C = xr->shape[3];
    const int HO = yr->shape[1], WO = yr->shape[2], CO = yr->shape[3];
    float a0 = m[0], a1 = m[1], a2 = m[2], a3 = m[3], b0 = m[4], b1 = m[5], b2 = m[6], b3 = m[7];
    if (d->align) {
        a3 = (float)(a3 + ((double)a0 * 0.5 + (double)a1 * 0.5 - 0.5));
        b3 = (float)(b3 + ((double)b0 * 0.5 + (double)b1 * 0.5 - 0.5));
    }
    for (int oy = 0; oy < HO; oy++)
        for (int ox = 0; ox < WO; ox++) {
            float fxo = (float)ox, fyo = (float)oy;
            float u = fxo * a0 + fyo * a1 + 0.0f * a2 + 1.0f * a3;
            float v = fxo * b0 + fyo * b1 + 0.0f * b2 + 1.0f * b3;
            bool out = u < 0.0f || u > (float)(W - 1) || v < 0.0f || v > (float)(H - 1) || u != u || v != v;
            float *yp = y + ((size_t)oy * WO + ox) * CO;
            if (out) { for (int c = 0; c < CO; c++) yp[c] = 0; continue; }
            int fx = (int)floorf(u), fy = (int)floorf(v);
            float rc = u - floorf(u), lc = v - floorf(v);
            for (int c = 0; c < CO; c++) {
#define MP_AT(h, w) ((h) < 0 || (w) < 0 || (h) >= H || (w) >= W ? 0.0f : x[((size_t)(h) * W + (w)) * C + c])
                float q11 = MP_AT(fy, fx), q21 = MP_AT(fy, fx + 1), q12 = MP_AT(fy + 1, fx), q22 = MP_AT(fy + 1, fx + 1);
#undef MP_AT
                float upper = (float)((1.0 - (double)rc) * (double)q11 + (double)(rc * q21));
                float lower = (float)((1.0 - (double)rc) * (double)q12 + (double)(rc * q22));
                yp[c] = (float)((double)(lc * lower) + (1.0 - (double)lc) * (double)upper);
            }
        }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_mp_transpose_conv_bias) = { "Convolution2DTransposeBias", tcb_prepare, tcb_eval, 0 };
const gc_kernel GC_K(gc_k_mp_max_pool_argmax) = { "MaxPoolingWithArgmax2D", argmax_prepare, argmax_eval, GC_K_OWN_ROUND };
const gc_kernel GC_K(gc_k_mp_max_unpool) = { "MaxUnpooling2D", unpool_prepare, unpool_eval, 0 };
const gc_kernel GC_K(gc_k_mp_landmarks_to_matrix) = { "Landmarks2TransformMatrix", l2m_prepare, l2m_eval, 0 };
const gc_kernel GC_K(gc_k_mp_transform_landmarks) = { "TransformLandmarks", tl_prepare, tl_eval, 0 };
const gc_kernel GC_K(gc_k_mp_transform_tensor_bilinear) = { "TransformTensorBilinear", ttb_prepare, ttb_eval, 0 };
