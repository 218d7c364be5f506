/* softmax.c — SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION over the last axis.
 *
 * FLOAT32 (TFLite reference order, per row):
 *   SOFTMAX (options.beta): m = max x; e_i = exp((x_i - m) beta); s = sum e_i in order;
 *     y_i = e_i / s.
 *   LOG_SOFTMAX: y_i = (x_i - m) - log(sum exp(x_i - m)).
 *   L2_NORMALIZATION: y_i = x_i / max(sqrt(sum x_i^2), 1e-6).
 * INT8 / UINT8 SOFTMAX (output INT8, UINT8 or INT16), as TFLite's kernels on x86:
 *   table[255 - v] = expf(-s_in beta v), v = 0..255; per row: m = max raw input;
 *   e_i = table[255 - (m - x_i)]; S = sum e_i (float, in order);
 *   p_i = e_i * (1 / (S s_out)); UINT8 output: (int)(p_i + 0.5) + zp; INT8/INT16
 *   output: round_half_away(p_i) + zp; clamped.
 * fp16: float math in float32 (output rounded by the core); fp16-acc also rounds every
 *   exp term, every partial sum and every quotient.
 */
#include "interp/interp_impl.h"

/* The quotient and copy loops run across independent outputs, so vectorising them keeps
 * every result; GCC's -O2 does not vectorise them, -O3 does (as conv.c). */
#include "interp/kernels/vec_loops.h"

typedef struct { float beta; uint64_t rows, len; float table[256]; } softmax_data;

static gc_status softmax_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, x->rank >= 1, "input must have rank >= 1");
    softmax_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->beta = n->code == GC_OP_SOFTMAX ? (float)gc_opt_float(gc_opts(n), GC_O_SoftmaxOptions_beta) : 1.0f;
    if (n->code == GC_OP_SOFTMAX && n->op->opt.type == 0) d->beta = 1.0f;
    d->len = (uint64_t)x->shape[x->rank - 1];
    d->rows = d->len ? gc_numel(x) / d->len : 0;
    if (x->dtype == GC_T_FLOAT32) {
        GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32, "output must be FLOAT32");
    } else {
        GC_UNSUP(ctx, n->code == GC_OP_SOFTMAX && (x->dtype == GC_T_INT8 || x->dtype == GC_T_UINT8),
                 "%s on %s is not supported", n->name, gc_type_name(x->dtype));
        GC_UNSUP(ctx, y->dtype == GC_T_INT8 || y->dtype == GC_T_UINT8 || y->dtype == GC_T_INT16,
                 "quantized SOFTMAX to %s", gc_type_name(y->dtype));
        GC_ENSURE(ctx, x->scale > 0 && y->scale > 0, "quantized SOFTMAX needs scales");
        float s = -x->scale * d->beta;
        for (int v = 0; v < 256; v++) d->table[255 - v] = expf(s * (float)v);
    }
    n->data = d;
    return gc_set_shape(ctx, y, x->rank, x->shape);
}

GC_CLONES static gc_status softmax_eval(gc_ctx *ctx, gc_node *n) {
    softmax_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    const uint64_t L = d->len;
    if (x->dtype == GC_T_FLOAT32) {
        const float *xs = (const float *)x->data;
        float *ys = (float *)y->data;
        for (uint64_t r = 0; r < d->rows; r++) {
            const float *a = xs + r * L; float *b = ys + r * L;
            if (n->code == GC_OP_L2_NORMALIZATION) {
                float s = 0;
                for (uint64_t i = 0; i < L; i++) s = gc_racc(ctx, s + a[i] * a[i]);
                float norm = sqrtf(s);
                if (norm < 1e-6f) norm = 1e-6f;
                for (uint64_t i = 0; i < L; i++) b[i] = a[i] / norm;
                continue;
            }
            float m = -INFINITY;
            for (uint64_t i = 0; i < L; i++) if (a[i] > m) m = a[i];
            float s = 0;
            if (n->code == GC_OP_SOFTMAX && ctx->hm && ctx->hm->half_math) {
                /* native fp16: exp(x - max) in half, the sum in float, times r(1 / sum) */
                for (uint64_t i = 0; i < L; i++) { b[i] = gc_f16_round(expf(gc_f16_round(gc_f16_round(a[i] - m) * d->beta))); s += b[i]; }
                float inv = gc_f16_round(1.0f / s);
                for (uint64_t i = 0; i < L; i++) b[i] = b[i] * inv;
            } else if (n->code == GC_OP_SOFTMAX) {
                for (uint64_t i = 0; i < L; i++) { b[i] = gc_racc(ctx, expf((a[i] - m) * d->beta)); s = gc_racc(ctx, s + b[i]); }
                for (uint64_t i = 0; i < L; i++) b[i] = gc_racc(ctx, b[i] / s);
            } else {
                for (uint64_t i = 0; i < L; i++) s = gc_racc(ctx, s + gc_racc(ctx, expf(a[i] - m)));
                float ls = logf(s);
                for (uint64_t i = 0; i < L; i++) b[i] = (a[i] - m) - ls;
            }
        }
        return GC_OK;
    }
    int dt = x->dtype, yt = y->dtype;
    int32_t lo, hi;
    gc_qrange(yt, &lo, &hi);
    for (uint64_t r = 0; r < d->rows; r++) {
        size_t base = (size_t)(r * L);
        int32_t m = INT32_MIN;
        for (uint64_t i = 0; i < L; i++) { int32_t v = gc_qget(dt, x->data, base + i); if (v > m) m = v; }
        float s = 0;
        for (uint64_t i = 0; i < L; i++) s += d->table[255 - (m - gc_qget(dt, x->data, base + i))];
        float inv = 1.0f / (s * y->scale);
        for (uint64_t i = 0; i < L; i++) {
            float p = d->table[255 - (m - gc_qget(dt, x->data, base + i))] * inv;
            int32_t q = yt == GC_T_UINT8 ? (int32_t)(p + 0.5f) + y->zp : (int32_t)roundf(p) + y->zp;
            gc_qset(yt, y->data, base + i, gc_clamp_i32(q, lo, hi));
        }
    }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_softmax) = { "SOFTMAX", softmax_prepare, softmax_eval, 0 };
const gc_kernel GC_K(gc_k_log_softmax) = { "LOG_SOFTMAX", softmax_prepare, softmax_eval, 0 };
const gc_kernel GC_K(gc_k_l2_normalization) = { "L2_NORMALIZATION", softmax_prepare, softmax_eval, 0 };
