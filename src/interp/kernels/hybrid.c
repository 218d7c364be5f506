/* hybrid.c — dynamic-range quantization helpers (interp/hybrid.h has the semantics). */
#include "interp/hybrid.h"

/* round half away from zero, clamped to [lo, hi]; NaN gives `nan` */
static inline int8_t q_round_away(float v, int lo, int hi, int nan) {
    if (v != v) return (int8_t)nan;
    float r = roundf(v);
    return (int8_t)(r < (float)lo ? lo : r > (float)hi ? hi : (int)r);
}

void gc_hq_quantize(int mode, const float *x, size_t n, int8_t *q, float *step, int32_t *zp) {
    float mn = 0.0f, mx = 0.0f;             /* the range always includes 0 */
    bool any = false;
    float amn = 0.0f, amx = 0.0f;           /* symmetric: the actual min and max */
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        if (v != v) continue;
        if (!any) { amn = amx = v; any = true; }
        if (v < amn) amn = v;
        if (v > amx) amx = v;
        if (v < mn) mn = v;
        if (v > mx) mx = v;
    }
    if (mode == GC_HQ_SYMMETRIC) {
        float r = fmaxf(fabsf(amn), fabsf(amx));
        *zp = 0;
        if (r == 0.0f || !isfinite(r)) {
            /* an infinite range would give a zero inverse step: TFLite would produce NaN
             * levels; all-zero levels keep the integer arithmetic defined */
            memset(q, 0, n);
            *step = r == 0.0f ? 1.0f : r / 127.0f;
            return;
        }
        *step = r / 127.0f;
        const float inv = 127.0f / r;
        for (size_t i = 0; i < n; i++) q[i] = q_round_away(x[i] * inv, -127, 127, 0);
        return;
    }
    if (mode == GC_HQ_ASYMMETRIC) {
        const double rmin = mn, rmax = mx, qmin = -128.0, qmax = 127.0;
        if (rmin == rmax || !isfinite(rmin) || !isfinite(rmax)) {
            memset(q, 0, n);
            *step = 1.0f; *zp = 0;
            return;
        }
        /* the range's width in float, as LiteRT's kernels compute it (min and max are floats) */
        double scale = (double)(mx - mn) / (qmax - qmin);
        double zmin = qmin - rmin / scale, zmax = qmax - rmax / scale;
        double emin = fabs(qmin) + fabs(rmin / scale), emax = fabs(qmax) + fabs(rmax / scale);
        double z = emin < emax ? zmin : zmax;
        int32_t nz = z <= qmin ? -128 : z >= qmax ? 127 : (int32_t)round(z);
        *step = (float)scale; *zp = nz;
        const float inv = (float)(1.0 / (double)*step);
        /* LiteRT's kernels round x * inv first, then add the zero point */
        for (size_t i = 0; i < n; i++) {
            float v = x[i] * inv;
            if (v != v) { q[i] = (int8_t)nz; continue; }
            float r = roundf(v) + (float)nz;         /* exact: |r| < 2^24 or clamped below */
            q[i] = (int8_t)(r < -128.0f ? -128 : r > 127.0f ? 127 : (int)r);
        }
        return;
    }
    /* XNNPACK qd8 */
    if (!isfinite(mn) || !isfinite(mx)) { mn = 0.0f; mx = 0.0f; }
    float scale = mn == mx ? 1.0f : 255.0f / (mx - mn);
    float zmin_err = -128.0f + mn * scale, zmax_err = 127.0f + mx * scale;
    float z = zmin_err + zmax_err > 0 ? -128.0f - mn * scale : 127.0f - mx * scale;
    z = z < -128.0f ? -128.0f : z > 127.0f ? 127.0f : z;
    if (z != z) z = 0.0f;
    int32_t iz = (int32_t)rintf(z);
    const float step_ = 1.0f / scale;
    for (size_t i = 0; i < n; i++) {
        float v = rintf(x[i] * scale) + (float)iz;
        q[i] = (int8_t)(v != v ? iz : v < -128.0f ? -128 : v > 127.0f ? 127 : (int)v);
    }
    *step = step_;
    *zp = iz;
}

void gc_hq_quantize_d(int mode, const double *x, size_t n, int8_t *q, double *step, int32_t *zp) {
    (void)mode; (void)x;
    memset(q, 0, n);
    *step = 1.0; *zp = 0;
}

gc_status gc_hq_scales(gc_ctx *ctx, const gc_rt *w, int64_t units, int qdim, gc_f32 **scales,
                       bool *per_channel, bool *all_equal) {
    GC_ENSURE(ctx, w->known, "hybrid weights must be constant");
    GC_UNSUP(ctx, w->dtype == GC_T_INT8 || w->dtype == GC_T_INT4, "hybrid weights of type %s are not supported",
             gc_type_name(w->dtype));
    const gc_quant *q = w->q;
    GC_ENSURE(ctx, q && q->n_scale >= 1, "hybrid %s weights have no quantization scale", gc_type_name(w->dtype));
    GC_ENSURE(ctx, q->n_scale == 1 || q->n_scale == units, "weights have %d scales for %lld units",
              (int)q->n_scale, (long long)units);
    if (q->n_scale > 1)
        GC_ENSURE(ctx, q->quantized_dimension == qdim, "per-channel weights are quantized along dimension %d, "
                  "expected %d (the output units)", (int)q->quantized_dimension, qdim);
    GC_ENSURE(ctx, q->n_zero_point == 0 || q->n_zero_point == 1 || q->n_zero_point == q->n_scale,
              "weights have %d zero points for %d scales", (int)q->n_zero_point, (int)q->n_scale);
    for (int i = 0; i < q->n_zero_point; i++)
        GC_UNSUP(ctx, q->zero_point[i] == 0, "hybrid weights with zero point %lld (only symmetric weights)",
                 (long long)q->zero_point[i]);
    for (int i = 0; i < q->n_scale; i++)
        GC_ENSURE(ctx, isfinite(q->scale[i]) && q->scale[i] >= 0, "weight scale %d is %g", i, (double)q->scale[i]);
    float *s = gc_ctx_alloc(ctx, (size_t)units * sizeof(float));
    if (!s) return GC_ERR_NOMEM;
    bool eq = true;
    for (int64_t u = 0; u < units; u++) {
        s[u] = q->scale[q->n_scale == 1 ? 0 : u];
        if (s[u] != s[0]) eq = false;
    }
    *scales = s;
    *per_channel = q->n_scale > 1;
    *all_equal = eq;
    return GC_OK;
}
