/* quantize.c — QUANTIZE, DEQUANTIZE, CAST, DENSIFY.
 *
 * QUANTIZE(x):
 *   FLOAT32 -> INT8/UINT8/INT16: q = round_half_away(x / s) + zp, clamped (TFLite's
 *     AffineQuantize, division in float); per-channel scales along quantized_dimension.
 *   INT8/UINT8/INT16 -> INT8/UINT8/INT16/INT32 (requantize): q = MultiplyByQuantizedMultiplier(
 *     x - zp_in, s_in/s_out) + zp_out, clamped (TFLite's Requantize).
 *   With --int-arith xnnpack (XNNPACK's converts): float -> int: rint(x * (1/s)) half to
 *     even, clamped first in float (NaN: the type's minimum); int -> int of one type: (256 zp_out + 128 +
 *     (x - zp_in) lrintf(256 s_in/s_out)) >> 8, clamped.
 * DEQUANTIZE(x): INT8/UINT8/INT16/INT32 -> FLOAT32: s (x - zp), the product in float
 *   (per-channel scales along quantized_dimension); FLOAT16 -> FLOAT32 exactly.
 * Fast paths (ctx->fast): QUANTIZE float -> int8 / uint8 with one scale on vectors
 *   (kernels/qelem8.h, bit-identical); QUANTIZE 8 -> 8 bit and DEQUANTIZE of 8 bits with one
 *   scale through 256-entry tables made at prepare by the formulas above (exact by
 *   construction).
 * CAST(x): numeric conversion between FLOAT32, FLOAT16, INT32, INT64, INT16, INT8, UINT8,
 *   UINT32, BOOL: float -> integer truncates toward zero (C cast, as TFLite's
 *   static_cast), anything -> BOOL is x != 0. ctx->fast: INT32 / UINT8 / INT8 -> FLOAT32 on
 *   typed loops (the same values).
 * DENSIFY(x): x is a constant stored with sparsity metadata, densified (and validated)
 *   when the interpreter loads its constants (model/sparse.c); the output is a copy of
 *   that dense tensor, same type and shape. A dense constant input is copied as is.
 * fp16: DEQUANTIZE / CAST outputs are float tensors and are rounded by the core.
 * All of them are evaluated at prepare when their input is constant (dequantized weights).
 */
#include "interp/interp_impl.h"
#include "interp/kernels/qelem8.h"

typedef struct {
    int axis;                   /* per-channel axis or -1 */
    uint64_t outer, ch, inner;
    int32_t qm; int qs;
    int32_t lo, hi;
    bool xnn;                   /* XNNPACK's conversions */
    float inv_scale;            /* float -> int: 1 / s_out */
    int32_t xmul;               /* int -> int: lrintf(256 s_in / s_out) */
    /* fast paths (ctx->fast; qelem8.h): exact by construction or bit-identical */
    bool f8;                    /* QUANTIZE float -> 8 bit, one scale: gc_q8quant_run */
    gc_q8quant fq;
    int isa;
    uint8_t *lut;               /* QUANTIZE 8 -> 8 bit: the reference's value for each byte */
    float *flut;                /* DEQUANTIZE 8 bit, one scale: likewise */
} quant_data;

static gc_status qparams(gc_ctx *ctx, quant_data *d, const gc_rt *t) {
    d->axis = -1;
    if (t->q && t->q->n_scale > 1) {
        int a = t->q->quantized_dimension;
        GC_ENSURE(ctx, a >= 0 && a < t->rank && t->shape[a] == t->q->n_scale,
                  "per-channel quantization: %d scales on dimension %d", (int)t->q->n_scale, a);
        d->axis = a; d->outer = 1; d->inner = 1; d->ch = (uint64_t)t->shape[a];
        for (int i = 0; i < a; i++) d->outer *= (uint64_t)t->shape[i];
        for (int i = a + 1; i < t->rank; i++) d->inner *= (uint64_t)t->shape[i];
    } else {
        GC_ENSURE(ctx, t->scale > 0, "tensor %d has no quantization scale", (int)t->index);
    }
    return GC_OK;
}
static inline void chan_params(const quant_data *d, const gc_rt *t, uint64_t i, float *s, int32_t *zp) {
    if (d->axis < 0) { *s = t->scale; *zp = t->zp; return; }
    uint64_t c = (i / d->inner) % d->ch;
    *s = t->q->scale[c];
    *zp = t->q->n_zero_point > (int32_t)c ? (int32_t)t->q->zero_point[c] : 0;
}

/* QUANTIZE int -> int of one element (the reference; also what the 8-bit table holds) */
static inline int32_t requant_one(const quant_data *d, const gc_rt *x, const gc_rt *y, int32_t q) {
    int32_t v = q - x->zp;
    int32_t r = d->xnn ? (y->zp * 256 + 0x80 + v * d->xmul) >> 8 : gc_q_mul(v, d->qm, d->qs) + y->zp;
    return gc_clamp_i32(r, d->lo, d->hi);
}

static bool is8(int dt) { return dt == GC_T_INT8 || dt == GC_T_UINT8; }

static gc_status quantize_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    quant_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    GC_UNSUP(ctx, gc_is_qint(y->dtype) || (y->dtype == GC_T_INT32 && gc_is_qint(x->dtype)),
             "QUANTIZE to %s", gc_type_name(y->dtype));     /* INT16 -> INT32: TFLite requantizes */
    GC_TRY(qparams(ctx, d, y));
    gc_qrange(y->dtype, &d->lo, &d->hi);
    if (x->dtype == GC_T_FLOAT32) {
        d->xnn = ctx->xnn && d->axis < 0 && y->dtype != GC_T_INT16;
        d->inv_scale = 1.0f / y->scale;
    } else {
        GC_UNSUP(ctx, gc_is_qint(x->dtype), "QUANTIZE from %s", gc_type_name(x->dtype));
        GC_UNSUP(ctx, d->axis < 0 && x->scale > 0, "per-channel requantization");
        gc_q_multiplier((double)x->scale / (double)y->scale, &d->qm, &d->qs);
        float r = x->scale / y->scale;
        d->xnn = ctx->xnn && x->dtype == y->dtype && y->dtype != GC_T_INT16 && r >= 1.0f / 256 && r <= 128.0f;
        d->xmul = (int32_t)lrintf(256.0f * r);
    }
    if (ctx->fast && x->dtype == GC_T_FLOAT32 && d->axis < 0 && is8(y->dtype)) {
        d->f8 = true;
        d->isa = ctx->isa;
        d->fq = (gc_q8quant){ .xnn = d->xnn, .scale = y->scale, .inv_scale = d->inv_scale, .zp = y->zp,
                              .lo = d->lo, .hi = d->hi };
    } else if (ctx->fast && is8(x->dtype) && is8(y->dtype)) {
        d->lut = gc_ctx_alloc(ctx, 256);
        if (!d->lut) return GC_ERR_NOMEM;
        for (int i = 0; i < 256; i++)
            d->lut[i] = (uint8_t)requant_one(d, x, y, x->dtype == GC_T_INT8 ? (int32_t)(int8_t)i : i);
    }
    n->data = d;
    return gc_set_shape(ctx, y, x->rank, x->shape);
}

static gc_status quantize_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    quant_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    uint64_t m = gc_numel(x);
    if (d->f8 && gc_q8quant_run(d->isa, &d->fq, (const float *)x->data, (int64_t)m, y->data)) return GC_OK;
    if (d->lut) { gc_q8lut_run(ctx->isa, d->lut, x->data, (int64_t)m, y->data); return GC_OK; }
    if (x->dtype == GC_T_FLOAT32) {
        const float *xs = (const float *)x->data;
        for (uint64_t i = 0; i < m && d->xnn; i++) {
            float f = xs[i] * d->inv_scale, lo = (float)(d->lo - y->zp), hi = (float)(d->hi - y->zp);
            f = f < lo ? lo : f > hi ? hi : f;
            /* NaN: the lower bound (lrintf(NaN) is LONG_MIN, which plus a negative zero point
             * would overflow) */
            gc_qset(y->dtype, y->data, (size_t)i, isnan(f) ? d->lo : gc_clamp_i32((int64_t)lrintf(f) + y->zp, d->lo, d->hi));
        }
        for (uint64_t i = 0; i < m && !d->xnn; i++) {
            float s; int32_t zp;
            chan_params(d, y, i, &s, &zp);
            float r = roundf(xs[i] / s);
            int64_t q = isnan(r) ? zp : r > 2e9f ? (int64_t)2e9 : r < -2e9f ? (int64_t)-2e9 : (int64_t)r + zp;
            gc_qset(y->dtype, y->data, (size_t)i, gc_clamp_i32(q, d->lo, d->hi));
        }
        return GC_OK;
    }
    for (uint64_t i = 0; i < m; i++)
        gc_qset(y->dtype, y->data, (size_t)i, requant_one(d, x, y, gc_qget(x->dtype, x->data, (size_t)i)));
    return GC_OK;
}

static gc_status dequantize_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32, "output must be FLOAT32");
    quant_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    if (x->dtype != GC_T_FLOAT16) {
        GC_UNSUP(ctx, gc_is_qint(x->dtype) || x->dtype == GC_T_INT32, "DEQUANTIZE from %s", gc_type_name(x->dtype));
        GC_TRY(qparams(ctx, d, x));
        if (ctx->fast && is8(x->dtype) && d->axis < 0) {
            d->flut = gc_ctx_alloc(ctx, 256 * sizeof(float));
            if (!d->flut) return GC_ERR_NOMEM;
            for (int i = 0; i < 256; i++)
                d->flut[i] = x->scale * (float)((x->dtype == GC_T_INT8 ? (int32_t)(int8_t)i : i) - x->zp);
        }
    }
    n->data = d;
    return gc_set_shape(ctx, y, x->rank, x->shape);
}

static gc_status dequantize_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    quant_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    uint64_t m = gc_numel(x);
    float *ys = (float *)y->data;
    if (x->dtype == GC_T_FLOAT16) {
        for (uint64_t i = 0; i < m; i++) { uint16_t h; memcpy(&h, x->data + i * 2, 2); ys[i] = gc_f16_to_f32(h); }
        return GC_OK;
    }
    if (d->flut) {
        for (uint64_t i = 0; i < m; i++) ys[i] = d->flut[x->data[i]];
        return GC_OK;
    }
    for (uint64_t i = 0; i < m; i++) {
        float s; int32_t zp;
        chan_params(d, x, i, &s, &zp);
        ys[i] = s * (float)(gc_qget(x->dtype, x->data, (size_t)i) - zp);
    }
    return GC_OK;
}

static bool cast_ok(int t) {
    return t == GC_T_FLOAT32 || t == GC_T_FLOAT16 || t == GC_T_INT32 || t == GC_T_INT64 || t == GC_T_INT16 ||
           t == GC_T_INT8 || t == GC_T_UINT8 || t == GC_T_UINT32 || t == GC_T_BOOL || t == GC_T_UINT16;
}

static gc_status cast_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_UNSUP(ctx, cast_ok(x->dtype) && cast_ok(y->dtype), "CAST %s -> %s", gc_type_name(x->dtype), gc_type_name(y->dtype));
    return gc_set_shape(ctx, y, x->rank, x->shape);
}

/* ctx->fast: the common integer -> FLOAT32 casts on typed loops (the same conversions: an
 * integer of 32 bits or fewer converts to the float the int64 path gives); false when the
 * pair is not one of them (FLOAT32 -> FLOAT32 stays with the reference, which goes through
 * double and so quiets signaling NaNs) */
static bool cast_fast(const gc_rt *x, gc_rt *y, uint64_t m) {
    float *yf = (float *)y->data;
    if (y->dtype != GC_T_FLOAT32) return false;
    switch (x->dtype) {
    case GC_T_INT32: { const int32_t *p = (const int32_t *)x->data; for (uint64_t i = 0; i < m; i++) yf[i] = (float)p[i]; return true; }
    case GC_T_UINT8: for (uint64_t i = 0; i < m; i++) yf[i] = (float)x->data[i]; return true;
    case GC_T_INT8: { const int8_t *p = (const int8_t *)x->data; for (uint64_t i = 0; i < m; i++) yf[i] = (float)p[i]; return true; }
    default: return false;
    }
}

static gc_status cast_eval(gc_ctx *ctx, gc_node *n) {
    gc_rt *x = n->in[0], *y = n->out[0];
    uint64_t m = gc_numel(x);
    if (ctx->fast && cast_fast(x, y, m)) return GC_OK;
    for (uint64_t i = 0; i < m; i++) {
        double v; int64_t iv = 0; bool isf = false;
        switch (x->dtype) {
        case GC_T_FLOAT32: v = ((const float *)x->data)[i]; isf = true; break;
        case GC_T_FLOAT16: { uint16_t h; memcpy(&h, x->data + i * 2, 2); v = gc_f16_to_f32(h); isf = true; break; }
        case GC_T_UINT16: { uint16_t h; memcpy(&h, x->data + i * 2, 2); iv = h; v = (double)iv; break; }
        default: iv = gc_get_int(x, (size_t)i); v = (double)iv; break;
        }
        switch (y->dtype) {
        case GC_T_FLOAT32: ((float *)y->data)[i] = isf ? (float)v : (float)iv; break;
        case GC_T_FLOAT16: { uint16_t h = gc_f32_to_f16(isf ? (float)v : (float)iv); memcpy(y->data + i * 2, &h, 2); break; }
        case GC_T_BOOL: y->data[i] = isf ? v != 0 : iv != 0; break;
        default: {
            int64_t w = isf ? (isnan(v) ? 0 : v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v) : iv;
            switch (y->dtype) {
            case GC_T_INT64: ((int64_t *)y->data)[i] = w; break;
            case GC_T_INT32: ((int32_t *)y->data)[i] = (int32_t)w; break;
            case GC_T_UINT32: ((uint32_t *)y->data)[i] = (uint32_t)w; break;
            case GC_T_INT16: ((int16_t *)y->data)[i] = (int16_t)w; break;
            case GC_T_UINT16: ((uint16_t *)y->data)[i] = (uint16_t)w; break;
            case GC_T_INT8: ((int8_t *)y->data)[i] = (int8_t)w; break;
            default: y->data[i] = (uint8_t)w; break;
            }
        }
        }
    }
    return GC_OK;
}

static gc_status densify_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_TRY(gc_need_known(ctx, n, 0, "the sparse tensor"));
    GC_ENSURE(ctx, x->dtype == y->dtype, "input %s, output %s", gc_type_name(x->dtype), gc_type_name(y->dtype));
    GC_UNSUP(ctx, gc_type_size(x->dtype) > 0 && x->dtype != GC_T_INT4 && x->dtype != GC_T_UINT4,
             "DENSIFY of %s is not supported", gc_type_name(x->dtype));
    return gc_set_shape(ctx, y, x->rank, x->shape);
}

static gc_status densify_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    if (n->out[0]->nbytes) memcpy(n->out[0]->data, n->in[0]->data, n->out[0]->nbytes);
    return GC_OK;
}

const gc_kernel GC_K(gc_k_quantize) = { "QUANTIZE", quantize_prepare, quantize_eval, 0 };
const gc_kernel GC_K(gc_k_dequantize) = { "DEQUANTIZE", dequantize_prepare, dequantize_eval, 0 };
const gc_kernel GC_K(gc_k_cast) = { "CAST", cast_prepare, cast_eval, 0 };
const gc_kernel GC_K(gc_k_densify) = { "DENSIFY", densify_prepare, densify_eval, 0 };
