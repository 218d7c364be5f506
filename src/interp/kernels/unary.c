/* unary.c — elementwise functions of one tensor: LOGISTIC, TANH, RELU, RELU6,
 * RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU, HARD_SWISH, GELU, ELU, EXP, LOG, SQRT, RSQRT,
 * ABS, NEG, SQUARE, SIN, COS, FLOOR, CEIL, ROUND, SIGN, LOGICAL_NOT.
 *
 * Float32 definitions (evaluated in float, libm):
 *   LOGISTIC 1/(1+exp(-x)); TANH tanh; RELU max(x,0); RELU6 min(max(x,0),6);
 *   RELU_N1_TO_1 clamp to [-1,1]; RELU_0_TO_1 clamp to [0,1]; LEAKY_RELU (options.alpha)
 *   x >= 0 ? x : alpha x; HARD_SWISH x relu6(x+3)/6; GELU (options.approximate)
 *   0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) or 0.5x(1+erf(x/sqrt 2)); ELU x > 0 ? x :
 *   exp(x)-1; RSQRT 1/sqrt(x); ROUND half to even (TF's Round); SIGN -1/0/1.
 * INT32: ABS, NEG, SQUARE, SIGN. BOOL: LOGICAL_NOT.
 * INT8 / UINT8 (quantized):
 *   RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1: requantize (x - zp_in) by s_in/s_out
 *     (MultiplyByQuantizedMultiplier), add zp_out, clamp to the activation range.
 *   LEAKY_RELU: TFLite's reference: x >= zp_in uses multiplier s_in/s_out, else
 *     alpha s_in/s_out. With --int-arith xnnpack: XNNPACK's multipliers rounded to 1/256,
 *     m = lrintf(256 s_in/s_out [* alpha]), out = (256 zp_out + 128 + (x - zp_in) m) >> 8.
 *   everything else: a 256-entry table built as TFLite's optimized kernels and XNNPACK
 *     do: q -> round_half_away(f(s_in (q - zp_in)) / s_out) + zp_out, clamped.
 *   ctx->fast: the RELU family and LEAKY_RELU through a table too, made by the formulas
 *     above (exact by construction); tables are looked up by qelem8.h (AVX-512 VBMI).
 * INT16 is not supported (an error names the op).
 * fp16: float math in float32; the output is rounded by the core.
 * Float LOGISTIC and EXP outside the native fp16 mode, unless opts.reference_kernels: the
 *   vector expf with libm's bits (kernels/vexpf.h; 1 / (1 + e) in float after it): the
 *   same bits.
 * Float GELU (erf form) in fp32 (ctx->fast): the same float operations around a vector erf
 *   (kernels/vgelu.h): NOT the reference's bits (libm's erff is not correctly rounded),
 *   within |x| 2^-23 + ulp(y) of them; opts.reference_kernels keeps erff.
 * Large tensors are split into element ranges over the pool; the float loops of the
 * arithmetic-only functions are written one per op (vectorised: the same expression per
 * element, the same bits).
 */
#include "interp/interp_impl.h"
#include "interp/kernels/qelem8.h"
#ifndef GC_FP64_BUILD
#include "interp/kernels/vexpf.h"
#include "interp/kernels/vgelu.h"
#endif

#include <stdlib.h>

#include "interp/kernels/vec_loops.h"

typedef struct {
    float alpha;                       /* LEAKY_RELU */
    int approximate;                   /* GELU */
    float zero_below;                  /* LOGISTIC, EXP: below it expf is +0 (vexpf.h) */
    /* quantized */
    bool lut;
    uint8_t table[256];
    int32_t m1, m2; int s1, s2;        /* requantization multipliers */
    int32_t lo, hi;
    bool xnn;                          /* LEAKY_RELU with XNNPACK's 8-bit multipliers */
    int32_t xpos, xneg;
    uint8_t btable[256];               /* the table indexed by the raw byte (int8: table[b ^ 0x80]) */
} unary_data;

static float f_apply(int32_t code, const unary_data *d, float x) {
    switch (code) {
    case GC_OP_LOGISTIC: return 1.0f / (1.0f + expf(-x));
    case GC_OP_TANH: return tanhf(x);
    case GC_OP_RELU: return x < 0 ? 0.0f : x;
    case GC_OP_RELU6: return x < 0 ? 0.0f : x > 6 ? 6.0f : x;
    case GC_OP_RELU_N1_TO_1: return x < -1 ? -1.0f : x > 1 ? 1.0f : x;
    case GC_OP_RELU_0_TO_1: return x < 0 ? 0.0f : x > 1 ? 1.0f : x;
    case GC_OP_LEAKY_RELU: return x >= 0 ? x : x * d->alpha;
    case GC_OP_HARD_SWISH: { float t = x + 3.0f; t = t < 0 ? 0 : t > 6 ? 6 : t; return x * t / 6.0f; }
    case GC_OP_GELU:
        if (d->approximate) {
            const float k = 0.7978845608028654f;   /* sqrt(2/pi) */
            return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
        }
        return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
    case GC_OP_ELU: return x > 0 ? x : expm1f(x);
    case GC_OP_EXP: return expf(x);
    case GC_OP_LOG: return logf(x);
    case GC_OP_SQRT: return sqrtf(x);
    case GC_OP_RSQRT: return 1.0f / sqrtf(x);
    case GC_OP_ABS: return fabsf(x);
    case GC_OP_NEG: return -x;
    case GC_OP_SQUARE: return x * x;
    case GC_OP_SIN: return sinf(x);
    case GC_OP_COS: return cosf(x);
    case GC_OP_FLOOR: return floorf(x);
    case GC_OP_CEIL: return ceilf(x);
    case GC_OP_ROUND: return nearbyintf(x);       /* default rounding mode: half to even */
    case GC_OP_SIGN: return x > 0 ? 1.0f : x < 0 ? -1.0f : x;
    default: return x;
    }
}

/* The quantized RELU family / LEAKY_RELU of one element (raw value q), the reference */
static int32_t q_one(int32_t code, const unary_data *d, const gc_rt *x, const gc_rt *y, int32_t q) {
    int32_t v = q - x->zp, r;
    if (d->xnn) {           /* (zp_out * 256 + 128 + v * m) >> 8, m in 1/256 steps */
        int32_t acc = y->zp * 256 + 0x80 + v * (v >= 0 ? d->xpos : d->xneg);
        return gc_clamp_i32(acc >> 8, d->lo, d->hi);
    }
    if (code == GC_OP_LEAKY_RELU)
        r = v >= 0 ? gc_q_mul(v, d->m1, d->s1) : gc_q_mul(v, d->m2, d->s2);
    else
        r = gc_q_mul(v, d->m1, d->s1);
    return gc_clamp_i32((int64_t)r + y->zp, d->lo, d->hi);
}

static bool is_relu_family(int32_t c) {
    return c == GC_OP_RELU || c == GC_OP_RELU6 || c == GC_OP_RELU_N1_TO_1 || c == GC_OP_RELU_0_TO_1;
}

static gc_status unary_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    unary_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    if (n->code == GC_OP_LEAKY_RELU) d->alpha = (float)gc_opt_float(gc_opts(n), GC_O_LeakyReluOptions_alpha);
    if (n->code == GC_OP_GELU) d->approximate = (int)gc_opt_int(gc_opts(n), GC_O_GeluOptions_approximate);
#ifndef GC_FP64_BUILD
    if (n->code == GC_OP_LOGISTIC || n->code == GC_OP_EXP) d->zero_below = gc_expf_zero_below();
#endif
    n->data = d;
    int dt = x->dtype;
    if (n->code == GC_OP_LOGICAL_NOT) {
        GC_ENSURE(ctx, dt == GC_T_BOOL && y->dtype == GC_T_BOOL, "LOGICAL_NOT needs BOOL");
        return gc_set_shape(ctx, y, x->rank, x->shape);
    }
    GC_ENSURE(ctx, y->dtype == dt, "output is %s, input %s", gc_type_name(y->dtype), gc_type_name(dt));
    if (dt == GC_T_FLOAT32) return gc_set_shape(ctx, y, x->rank, x->shape);
    if (dt == GC_T_INT32 || dt == GC_T_INT64) {
        GC_UNSUP(ctx, n->code == GC_OP_ABS || n->code == GC_OP_NEG || n->code == GC_OP_SQUARE || n->code == GC_OP_SIGN,
                 "%s on %s is not supported", n->name, gc_type_name(dt));
        return gc_set_shape(ctx, y, x->rank, x->shape);
    }
    GC_UNSUP(ctx, dt == GC_T_INT8 || dt == GC_T_UINT8, "%s on %s is not supported", n->name, gc_type_name(dt));
    GC_ENSURE(ctx, x->scale > 0 && y->scale > 0, "quantized %s needs per-tensor scales", n->name);
    int32_t qlo, qhi;
    gc_qrange(dt, &qlo, &qhi);
    d->lo = qlo; d->hi = qhi;
    if (is_relu_family(n->code)) {
        gc_q_multiplier((double)x->scale / (double)y->scale, &d->m1, &d->s1);
        int act = n->code == GC_OP_RELU ? GC_ACT_RELU : n->code == GC_OP_RELU6 ? GC_ACT_RELU6 : GC_ACT_RELU_N1_TO_1;
        if (n->code == GC_OP_RELU_0_TO_1) {
            int32_t z = y->zp, one = y->zp + (int32_t)round(1.0 / (double)y->scale);
            d->lo = z > qlo ? z : qlo; d->hi = one < qhi ? one : qhi;
        } else {
            gc_q_act_range(act, y->scale, y->zp, qlo, qhi, &d->lo, &d->hi);
        }
    } else if (n->code == GC_OP_LEAKY_RELU) {
        gc_q_multiplier((double)x->scale / (double)y->scale, &d->m1, &d->s1);
        gc_q_multiplier((double)d->alpha * (double)x->scale / (double)y->scale, &d->m2, &d->s2);
        if (ctx->xnn) {
            float ps = x->scale / y->scale, ns = ps * d->alpha;
            d->xnn = true;
            d->xpos = (int32_t)lrintf(256.0f * ps);
            d->xneg = (int32_t)lrintf(256.0f * ns);
        }
    }
    if (is_relu_family(n->code) || n->code == GC_OP_LEAKY_RELU) {
        /* ctx->fast: the same function as a table (exact by construction) */
        if (ctx->fast) {
            d->lut = true;
            for (int i = 0; i < 256; i++)
                d->table[i] = (uint8_t)q_one(n->code, d, x, y, dt == GC_T_INT8 ? i - 128 : i);
        }
    } else {
        d->lut = true;
        for (int i = 0; i < 256; i++) {
            int32_t q = dt == GC_T_INT8 ? i - 128 : i;
            float v = x->scale * (float)(q - x->zp);
            float f = f_apply(n->code, d, v);
            float r = roundf(f / y->scale);
            int64_t o = isnan(r) ? y->zp : r > 1e9f ? (int64_t)1e9 : r < -1e9f ? (int64_t)-1e9 : (int64_t)r + y->zp;
            int32_t c = gc_clamp_i32(o, qlo, qhi);
            d->table[i] = (uint8_t)(dt == GC_T_INT8 ? (uint8_t)(int8_t)c : (uint8_t)c);
        }
    }
    for (int i = 0; i < 256 && d->lut; i++) d->btable[i] = d->table[dt == GC_T_INT8 ? i ^ 0x80 : i];
    return gc_set_shape(ctx, y, x->rank, x->shape);
}

#ifndef GC_FP64_BUILD
/* The native runtime's half arithmetic for the multi-step formulas (fp16_model.h,
 * half_math); the result is rounded once more by the core. */
static float f_half(int32_t code, const unary_data *d, float x) {
#define R gc_f16_round_inline
    switch (code) {
    case GC_OP_LOGISTIC: return 1.0f / R(1.0f + R(expf(-x)));
    case GC_OP_HARD_SWISH: { float t = R(R(x * R(1.0f / 6.0f)) + 0.5f); t = t < 0 ? 0 : t > 1 ? 1 : t; return x * t; }
    case GC_OP_GELU:
        if (d->approximate) {
            float x3 = R(R(x * x) * x), in = R(x + R(R(0.044715f) * x3));
            return R(0.5f * x) * R(1.0f + R(tanhf(R(R(0.7978845608028654f) * in))));
        }
        return R(0.5f * x) * R(1.0f + R(erff(R(x * R(0.7071067811865476f)))));
    default: return f_apply(code, d, x);
    }
#undef R
}

/* f_half over x[0, n) into y for LOGISTIC, HARD_SWISH and GELU (erf form), step by step
 * over blocks of the array: every rounding of a block at once (gc_f16_round_copy, F16C),
 * the libm calls one by one; the same operations on every element as f_half, so the same
 * bits. LOGISTIC skips expf where r(exp(t)) is known: t > 11.2 gives +inf (exp(11.2) >
 * 73000, past 65520 for any expf within 10%), t < -17.5 gives +0 (exp(-17.5) < 2^-25).
 * y may be x. false: another op or form (f_half per element then). */
static bool half_block(int32_t code, const unary_data *d, const float *x, float *y, uint64_t n) {
    if (code != GC_OP_LOGISTIC && code != GC_OP_HARD_SWISH && !(code == GC_OP_GELU && !d->approximate)) return false;
    enum { NB = 256 };
    float t[NB], u[NB];
    const float c6 = gc_f16_round_inline(1.0f / 6.0f), cs = gc_f16_round_inline(0.7071067811865476f);
    for (uint64_t k = 0; k < n; k += NB) {
        const size_t nb = n - k < NB ? (size_t)(n - k) : NB;
        const float *a = x + k;
        float *b = y + k;
        if (code == GC_OP_LOGISTIC) {                   /* 1 / r(1 + r(exp(-x))) */
            for (size_t i = 0; i < nb; i++) { float v = -a[i]; t[i] = v > 11.2f ? INFINITY : v < -17.5f ? 0.0f : expf(v); }
            gc_f16_round_copy(t, t, nb);
            for (size_t i = 0; i < nb; i++) t[i] = 1.0f + t[i];
            gc_f16_round_copy(t, t, nb);
            for (size_t i = 0; i < nb; i++) b[i] = 1.0f / t[i];
        } else if (code == GC_OP_HARD_SWISH) {          /* x clamp(r(r(x r(1/6)) + 0.5), 0, 1) */
            for (size_t i = 0; i < nb; i++) t[i] = a[i] * c6;
            gc_f16_round_copy(t, t, nb);
            for (size_t i = 0; i < nb; i++) t[i] = t[i] + 0.5f;
            gc_f16_round_copy(t, t, nb);
            for (size_t i = 0; i < nb; i++) { float v = t[i]; v = v < 0 ? 0 : v > 1 ? 1 : v; b[i] = a[i] * v; }
        } else {                                        /* r(x / 2) r(1 + r(erf(r(x r(1/sqrt 2))))) */
            for (size_t i = 0; i < nb; i++) t[i] = a[i] * cs;
            gc_f16_round_copy(t, t, nb);
            for (size_t i = 0; i < nb; i++) t[i] = erff(t[i]);
            gc_f16_round_copy(t, t, nb);
            for (size_t i = 0; i < nb; i++) t[i] = 1.0f + t[i];
            gc_f16_round_copy(t, t, nb);
            for (size_t i = 0; i < nb; i++) u[i] = 0.5f * a[i];
            gc_f16_round_copy(u, u, nb);
            for (size_t i = 0; i < nb; i++) b[i] = u[i] * t[i];
        }
    }
    return true;
}
#endif

/* elements [i0, i1) */
GC_CLONES static void unary_range(gc_ctx *ctx, const gc_node *n, uint64_t i0, uint64_t i1) {
    const unary_data *d = n->data;
    const gc_rt *x = n->in[0], *y = n->out[0];
    int dt = x->dtype;
    if (n->code == GC_OP_LOGICAL_NOT) {
        for (uint64_t i = i0; i < i1; i++) y->data[i] = !x->data[i];
        return;
    }
    if (dt == GC_T_FLOAT32) {
        const float *a = (const float *)x->data; float *b = (float *)y->data;
#ifndef GC_FP64_BUILD
        if (ctx->hm && ctx->hm->half_math &&
            (n->code == GC_OP_LOGISTIC || n->code == GC_OP_HARD_SWISH || n->code == GC_OP_GELU)) {
            if (half_block(n->code, d, a + i0, b + i0, i1 - i0)) return;
            for (uint64_t i = i0; i < i1; i++) b[i] = f_half(n->code, d, a[i]);
            return;
        }
        if ((n->code == GC_OP_LOGISTIC || n->code == GC_OP_EXP) && !ctx->reference && ctx->isa > GC_ISA_SCALAR) {
            const gc_vexp_params p = { 0, 1, d->zero_below };
            gc_vexpf_run((gc_isa)ctx->isa, n->code == GC_OP_EXP ? GC_VEXP_PLAIN : GC_VEXP_LOGISTIC, a + i0, b + i0,
                         (size_t)(i1 - i0), &p);
            return;
        }
        if (n->code == GC_OP_GELU && !d->approximate && ctx->fast) {
            gc_vgelu_run((gc_isa)ctx->isa, a + i0, b + i0, (size_t)(i1 - i0));
            return;
        }
#endif
        switch (n->code) {                    /* the common ones without the switch per element */
        case GC_OP_RELU: for (uint64_t i = i0; i < i1; i++) b[i] = a[i] < 0 ? 0.0f : a[i]; break;
        case GC_OP_RELU6: for (uint64_t i = i0; i < i1; i++) { float v = a[i]; b[i] = v < 0 ? 0.0f : v > 6 ? 6.0f : v; } break;
        case GC_OP_RELU_N1_TO_1: for (uint64_t i = i0; i < i1; i++) { float v = a[i]; b[i] = v < -1 ? -1.0f : v > 1 ? 1.0f : v; } break;
        case GC_OP_RELU_0_TO_1: for (uint64_t i = i0; i < i1; i++) { float v = a[i]; b[i] = v < 0 ? 0.0f : v > 1 ? 1.0f : v; } break;
        case GC_OP_LEAKY_RELU: { const float al = d->alpha; for (uint64_t i = i0; i < i1; i++) { float v = a[i]; b[i] = v >= 0 ? v : v * al; } break; }
        case GC_OP_HARD_SWISH:
            for (uint64_t i = i0; i < i1; i++) {
                float v = a[i], t = v + 3.0f;
                t = t < 0 ? 0 : t > 6 ? 6 : t;
                b[i] = v * t / 6.0f;
            }
            break;
        case GC_OP_ABS: for (uint64_t i = i0; i < i1; i++) b[i] = fabsf(a[i]); break;
        case GC_OP_NEG: for (uint64_t i = i0; i < i1; i++) b[i] = -a[i]; break;
        case GC_OP_SQUARE: for (uint64_t i = i0; i < i1; i++) b[i] = a[i] * a[i]; break;
        case GC_OP_SQRT: for (uint64_t i = i0; i < i1; i++) b[i] = sqrtf(a[i]); break;
        case GC_OP_RSQRT: for (uint64_t i = i0; i < i1; i++) b[i] = 1.0f / sqrtf(a[i]); break;
        case GC_OP_LOGISTIC: for (uint64_t i = i0; i < i1; i++) b[i] = 1.0f / (1.0f + expf(-a[i])); break;
        case GC_OP_TANH: for (uint64_t i = i0; i < i1; i++) b[i] = tanhf(a[i]); break;
        default: for (uint64_t i = i0; i < i1; i++) b[i] = f_apply(n->code, d, a[i]); break;
        }
        return;
    }
    if (dt == GC_T_INT32 || dt == GC_T_INT64) {
        for (uint64_t i = i0; i < i1; i++) {
            int64_t v = gc_get_int(x, (size_t)i), r;
            switch (n->code) {
            case GC_OP_ABS: r = v < 0 ? -v : v; break;
            case GC_OP_NEG: r = -v; break;
            case GC_OP_SQUARE: r = v * v; break;
            default: r = v > 0 ? 1 : v < 0 ? -1 : 0; break;
            }
            if (dt == GC_T_INT64) ((int64_t *)y->data)[i] = r; else ((int32_t *)y->data)[i] = (int32_t)r;
        }
        return;
    }
    if (d->lut) {
        if (ctx->fast) { gc_q8lut_run(ctx->isa, d->btable, x->data + i0, (int64_t)(i1 - i0), y->data + i0); return; }
        for (uint64_t i = i0; i < i1; i++) y->data[i] = d->table[dt == GC_T_INT8 ? (uint8_t)(x->data[i] ^ 0x80) : x->data[i]];
        return;
    }
    for (uint64_t i = i0; i < i1; i++)
        gc_qset(dt, y->data, (size_t)i, q_one(n->code, d, x, y, gc_qget(dt, x->data, (size_t)i)));
}

typedef struct { gc_ctx *ctx; const gc_node *n; } unary_job;

static void unary_job_run(void *arg, int64_t i0, int64_t i1, int wk) {
    (void)wk;
    const unary_job *j = arg;
    unary_range(j->ctx, j->n, (uint64_t)i0, (uint64_t)i1);
}

/* per-element cost in GC_PAR_GRAIN units: libm calls ~20, arithmetic ~0.25 */
static double unary_cost(const gc_node *n) {
    if (n->in[0]->dtype != GC_T_FLOAT32) return 1.0;
    switch (n->code) {
    case GC_OP_RELU: case GC_OP_RELU6: case GC_OP_RELU_N1_TO_1: case GC_OP_RELU_0_TO_1: case GC_OP_LEAKY_RELU:
    case GC_OP_HARD_SWISH: case GC_OP_ABS: case GC_OP_NEG: case GC_OP_SQUARE: case GC_OP_SQRT: case GC_OP_RSQRT:
        return 0.25;
    default: return 20.0;
    }
}

static gc_status unary_eval(gc_ctx *ctx, gc_node *n) {
    uint64_t m = gc_numel(n->in[0]);
    unary_job j = { ctx, n };
    int64_t chunk = gc_ctx_chunk(ctx, (int64_t)m, unary_cost(n));
    if (chunk < (int64_t)m) chunk = (chunk + 63) / 64 * 64;
    gc_ctx_for(ctx, (int64_t)m, chunk, unary_job_run, &j);
    return GC_OK;
}

#define UN(sym, name) const gc_kernel GC_K(sym) = { name, unary_prepare, unary_eval, 0 };
UN(gc_k_logistic, "LOGISTIC")
UN(gc_k_tanh, "TANH")
UN(gc_k_relu, "RELU")
UN(gc_k_relu6, "RELU6")
UN(gc_k_relu_n1_to_1, "RELU_N1_TO_1")
UN(gc_k_relu_0_to_1, "RELU_0_TO_1")
UN(gc_k_leaky_relu, "LEAKY_RELU")
UN(gc_k_hard_swish, "HARD_SWISH")
UN(gc_k_gelu, "GELU")
UN(gc_k_elu, "ELU")
UN(gc_k_exp, "EXP")
UN(gc_k_log, "LOG")
UN(gc_k_sqrt, "SQRT")
UN(gc_k_rsqrt, "RSQRT")
UN(gc_k_abs, "ABS")
UN(gc_k_neg, "NEG")
UN(gc_k_square, "SQUARE")
UN(gc_k_sin, "SIN")
UN(gc_k_cos, "COS")
UN(gc_k_floor, "FLOOR")
UN(gc_k_ceil, "CEIL")
UN(gc_k_round, "ROUND")
UN(gc_k_sign, "SIGN")
UN(gc_k_logical_not, "LOGICAL_NOT")
#undef UN
