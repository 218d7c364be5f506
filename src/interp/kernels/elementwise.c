/* elementwise.c — binary and ternary elementwise ops with NumPy broadcasting:
 * ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, POW, SQUARED_DIFFERENCE, FLOOR_DIV, FLOOR_MOD,
 * LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL, LOGICAL_AND, LOGICAL_OR,
 * PRELU, SELECT, SELECT_V2.
 *
 * Broadcasting: shapes align at the right; a dim of 1 stretches (every version of these
 * ops in TFLite broadcasts up to rank 6; we allow rank 8). SELECT (v1) also accepts a
 * rank-1 condition selecting whole rows of x / y.
 *
 * Types:
 *   FLOAT32   all ops; ADD/SUB/MUL/DIV apply options.fused_activation_function
 *             (RELU, RELU6, RELU_N1_TO_1 clamps). FLOOR_MOD follows the divisor's sign.
 *   INT32, INT64  arithmetic (DIV/FLOOR_DIV/FLOOR_MOD: a zero divisor is an eval error),
 *             comparisons, MAXIMUM/MINIMUM.
 *   BOOL      LOGICAL_*, EQUAL/NOT_EQUAL, and SELECT's condition.
 *   INT8/UINT8/INT16 (quantized), TFLite's reference integer arithmetic:
 *     ADD / SUB: left_shift 20 (8-bit) or 15 (16-bit); input multipliers
 *       s_i / (2 max(s1, s2)); output multiplier 2 max(s1,s2) / (2^left_shift s_out);
 *       SUB negates input 2's multiplier; each term rescaled with
 *       MultiplyByQuantizedMultiplier, summed, rescaled, offset, clamped to the
 *       activation range.
 *     MUL: (x1 - zp1)(x2 - zp2) rescaled by s1 s2 / s_out, offset, clamped.
 *     With --int-arith xnnpack (XNNPACK's kernels): ADD/SUB: multipliers m = rint(s_i/s_out
 *       2^k) with k = 20 - floor(log2(max ratio)), acc = 2^(k-1) - m1 zp1 - m2 zp2 +
 *       m1 x1 +- m2 x2, out = (acc >> k) + zp_out; MUL: float rescale by s1 s2 / s_out,
 *       rounded half to even.
 *     MAXIMUM / MINIMUM: on the raw integers (TFLite requires one quantization).
 *     comparisons: on the raw integers when both inputs share scale and zero point,
 *       else on the dequantized values.
 *     PRELU: TFLite's reference: x >= zp: (x - zp) * s_in/s_out; else
 *       (x - zp)(a - zp_a) * s_in s_a / s_out; both via MultiplyByQuantizedMultiplier.
 * fp16: arithmetic in float32; the output is rounded by the core (no accumulation).
 * Swish: in fp32 (ctx->fast, no node callback), a float MUL of x and LOGISTIC(x) (same
 *   shapes, no activation, the LOGISTIC read by nothing else and no result of the
 *   subgraph) absorbs the LOGISTIC: y = x * (1 / (1 + expf(-x))) in one pass through the
 *   vector expf (kernels/vexpf.h GC_VEXP_SWISH): the two ops' bits.
 * Large outputs (float and quantized; integer ops stay on one thread, their errors are
 * data-dependent) are split into element ranges over the pool; the float inner runs are
 * specialised for contiguous and scalar operands, so that they vectorise (each element
 * is the same expression: the same bits).
 */
#include "interp/interp_impl.h"
#include "interp/kernels/qelem8.h"
#ifndef GC_FP64_BUILD
#include "interp/kernels/vexpf.h"
#endif

#include <stdlib.h>

#include "interp/kernels/vec_loops.h"

enum { E_ADD, E_SUB, E_MUL, E_DIV, E_MAX, E_MIN, E_POW, E_SQDIFF, E_FLOORDIV, E_FLOORMOD,
       E_LT, E_LE, E_GT, E_GE, E_EQ, E_NE, E_AND, E_OR, E_PRELU };

typedef struct {
    int op;
    int rank;                               /* after merging dims */
    int32_t shape[GC_MAX_RANK];
    int64_t sa[GC_MAX_RANK], sb[GC_MAX_RANK];
    float lo, hi;                           /* float activation clamp */
    /* quantized */
    int32_t a_off, b_off, y_off, left_shift;
    int32_t a_mult, b_mult, y_mult, y_mult2; int a_shift, b_shift, y_shift, y_shift2;
    int32_t qlo, qhi;
    bool q_same;                            /* comparisons: same quantization */
    bool xnn;                               /* XNNPACK's ADD / SUB / MUL arithmetic */
    int32_t xa, xb, xbias; int xshift;      /* xnn ADD/SUB: multipliers, bias, shift */
    float xscale;                           /* xnn MUL: s_a s_b / s_out */
    bool h16;                   /* fp16 native: SQUARED_DIFFERENCE rounds the difference */
    /* fast 8-bit ADD / SUB / MUL (ctx->fast; qelem8.h, bit-identical to run_q) */
    bool f8;
    gc_q8bin q8;
    int isa;
    int pat_slot;               /* scratch: a repeating inner run laid out REP times (-1: none) */
    int pat_side;               /* 1: b repeats along the outer dim, 2: a does */
    int64_t pat_len;            /* elements of the laid-out pattern (a multiple of the inner run) */
    int gather_slot;            /* scratch: short runs gathered into 2 x 256 contiguous bytes (-1: none) */
    int swish;                  /* MUL absorbing LOGISTIC: 1 + the index of x among the inputs (0: no) */
    float zero_below;           /* swish: gc_expf_zero_below() */
} bin_data;

static int op_of(int32_t code) {
    switch (code) {
    case GC_OP_ADD: return E_ADD; case GC_OP_SUB: return E_SUB; case GC_OP_MUL: return E_MUL;
    case GC_OP_DIV: return E_DIV; case GC_OP_MAXIMUM: return E_MAX; case GC_OP_MINIMUM: return E_MIN;
    case GC_OP_POW: return E_POW; case GC_OP_SQUARED_DIFFERENCE: return E_SQDIFF;
    case GC_OP_FLOOR_DIV: return E_FLOORDIV; case GC_OP_FLOOR_MOD: return E_FLOORMOD;
    case GC_OP_LESS: return E_LT; case GC_OP_LESS_EQUAL: return E_LE; case GC_OP_GREATER: return E_GT;
    case GC_OP_GREATER_EQUAL: return E_GE; case GC_OP_EQUAL: return E_EQ; case GC_OP_NOT_EQUAL: return E_NE;
    case GC_OP_LOGICAL_AND: return E_AND; case GC_OP_LOGICAL_OR: return E_OR; default: return E_PRELU;
    }
}
static bool is_cmp(int op) { return op >= E_LT && op <= E_NE; }

/* Merge adjacent dims whose broadcast pattern agrees, so inner runs are long. */
static void merge_dims(bin_data *d) {
    int r = 0;
    for (int i = 0; i < d->rank; i++) {
        if (d->shape[i] == 1 && d->rank > 1) continue;           /* drop size-1 dims */
        if (r > 0) {
            int j = r - 1;
            bool ca = (d->sa[j] == 0 && d->sa[i] == 0) || (d->sa[j] == d->sa[i] * d->shape[i] && d->sa[i] != 0);
            bool cb = (d->sb[j] == 0 && d->sb[i] == 0) || (d->sb[j] == d->sb[i] * d->shape[i] && d->sb[i] != 0);
            if (ca && cb) { d->shape[j] *= d->shape[i]; d->sa[j] = d->sa[i]; d->sb[j] = d->sb[i]; continue; }
        }
        d->shape[r] = d->shape[i]; d->sa[r] = d->sa[i]; d->sb[r] = d->sb[i]; r++;
    }
    if (r == 0) { d->shape[0] = 1; d->sa[0] = 0; d->sb[0] = 0; r = 1; }
    d->rank = r;
}

#ifndef GC_FP64_BUILD
/* Swish (see the top): MUL n of x and LOGISTIC(x) takes the LOGISTIC's work when nothing
 * else can see the LOGISTIC's output. */
static void absorb_logistic(gc_ctx *ctx, gc_node *n, bin_data *d) {
    if (!ctx->fast || ctx->isa == GC_ISA_SCALAR) return;
    gc_rt *a = n->in[0], *b = n->in[1], *y = n->out[0];
    if (gc_numel(a) != gc_numel(y) || gc_numel(b) != gc_numel(y)) return;   /* no broadcast */
    for (int side = 0; side < 2; side++) {
        gc_rt *sig = side ? a : b, *x = side ? b : a;               /* y = x * sig or sig * x */
        gc_node *p = gc_ctx_sole_producer(ctx, n, sig);
        if (!p || p->code != GC_OP_LOGISTIC || p->in[0] != x) continue;
        p->absorbed = true;
        d->swish = 1 + (side ? 1 : 0);
        d->zero_below = gc_expf_zero_below();
        return;
    }
}

typedef struct { gc_ctx *ctx; const gc_node *n; const bin_data *d; } swish_job;

static void swish_job_run(void *arg, int64_t e0, int64_t e1, int wk) {
    (void)wk;
    const swish_job *j = arg;
    const gc_vexp_params p = { 0, 1, j->d->zero_below };
    const float *x = (const float *)j->n->in[j->d->swish - 1]->data;
    gc_vexpf_run((gc_isa)j->ctx->isa, GC_VEXP_SWISH, x + e0, (float *)j->n->out[0]->data + e0, (size_t)(e1 - e0), &p);
}
#endif

static gc_status binary_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    gc_rt *a = n->in[0], *b = n->in[1], *y = n->out[0];
    bin_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->h16 = ctx->hm && ctx->hm->half_math;
    d->pat_slot = -1;
    d->gather_slot = -1;
    d->op = op_of(n->code);
    int rank; int32_t shp[GC_MAX_RANK];
    GC_ENSURE(ctx, gc_bcast_shape(a, b, &rank, shp), "shapes do not broadcast");
    if (d->op == E_PRELU) {                 /* alpha broadcasts to x; output is x's shape */
        rank = a->rank; memcpy(shp, a->shape, sizeof shp);
        GC_ENSURE(ctx, b->rank <= a->rank, "alpha has a higher rank than the input");
    }
    GC_ENSURE(ctx, a->dtype == b->dtype || d->op == E_PRELU, "input types differ: %s and %s",
              gc_type_name(a->dtype), gc_type_name(b->dtype));
    int dt = a->dtype;
    if (is_cmp(d->op)) GC_ENSURE(ctx, y->dtype == GC_T_BOOL, "comparison output must be BOOL");
    else GC_ENSURE(ctx, y->dtype == dt, "output is %s, inputs %s", gc_type_name(y->dtype), gc_type_name(dt));
    if (d->op == E_AND || d->op == E_OR) GC_ENSURE(ctx, dt == GC_T_BOOL, "logical ops need BOOL");
    d->rank = rank; memcpy(d->shape, shp, sizeof shp);
    gc_bcast_strides(a, rank, shp, d->sa);
    gc_bcast_strides(b, rank, shp, d->sb);
    merge_dims(d);
    int act = 0;
    if (n->code == GC_OP_ADD) act = (int)gc_opt_int(gc_opts(n), GC_O_AddOptions_fused_activation_function);
    if (n->code == GC_OP_SUB) act = (int)gc_opt_int(gc_opts(n), GC_O_SubOptions_fused_activation_function);
    if (n->code == GC_OP_MUL) act = (int)gc_opt_int(gc_opts(n), GC_O_MulOptions_fused_activation_function);
    if (n->code == GC_OP_DIV) act = (int)gc_opt_int(gc_opts(n), GC_O_DivOptions_fused_activation_function);
    GC_UNSUP(ctx, act <= GC_ACT_RELU6, "fused activation %d is not supported", act);
    gc_act_range_f(act, &d->lo, &d->hi);
    if (dt == GC_T_FLOAT32 || dt == GC_T_INT32 || dt == GC_T_INT64 || dt == GC_T_BOOL) {
        GC_UNSUP(ctx, dt != GC_T_BOOL || d->op == E_AND || d->op == E_OR || d->op == E_EQ || d->op == E_NE,
                 "BOOL inputs only for logical ops and (in)equality");
        GC_UNSUP(ctx, !(d->op == E_PRELU && dt != GC_T_FLOAT32), "PRELU on %s", gc_type_name(dt));
        GC_UNSUP(ctx, dt == GC_T_FLOAT32 || d->op != E_POW || dt == GC_T_INT32, "POW on %s", gc_type_name(dt));
        n->data = d;
        GC_TRY(gc_set_shape(ctx, y, rank, shp));
#ifndef GC_FP64_BUILD
        if (dt == GC_T_FLOAT32 && d->op == E_MUL && act == 0) absorb_logistic(ctx, n, d);
#endif
        return GC_OK;
    }
    GC_UNSUP(ctx, gc_is_qint(dt), "type %s is not supported", gc_type_name(dt));
    GC_ENSURE(ctx, a->scale > 0 && b->scale > 0 && (is_cmp(d->op) || y->scale > 0), "quantized tensors need per-tensor scales");
    gc_qrange(y->dtype, &d->qlo, &d->qhi);
    if (!is_cmp(d->op)) gc_q_act_range(act, y->scale, y->zp, d->qlo, d->qhi, &d->qlo, &d->qhi);
    d->a_off = -a->zp; d->b_off = -b->zp; d->y_off = y->zp;
    switch (d->op) {
    case E_ADD: case E_SUB: {
        d->left_shift = dt == GC_T_INT16 ? 15 : 20;
        double twice = 2.0 * (double)(a->scale > b->scale ? a->scale : b->scale);
        gc_q_multiplier((double)a->scale / twice, &d->a_mult, &d->a_shift);
        gc_q_multiplier((double)b->scale / twice, &d->b_mult, &d->b_shift);
        if (d->op == E_SUB) d->b_mult = -d->b_mult;
        gc_q_multiplier(twice / ((double)(1 << d->left_shift) * (double)y->scale), &d->y_mult, &d->y_shift);
        if (ctx->xnn && dt != GC_T_INT16) {
            /* XNNPACK: 21-bit multipliers scaled so the larger is in [2^20, 2^21) */
            float as = a->scale / y->scale, bs = b->scale / y->scale, mx = as > bs ? as : bs;
            uint32_t bits; memcpy(&bits, &mx, 4);
            int e = (int)(bits >> 23) - 127;
            d->xshift = 20 - e;
            GC_UNSUP(ctx, d->xshift >= 1 && d->xshift <= 30, "ADD/SUB scale ratio out of XNNPACK's range");
            d->xa = (int32_t)lrintf(ldexpf(as, d->xshift));
            d->xb = (int32_t)lrintf(ldexpf(bs, d->xshift));
            if (d->op == E_SUB) d->xb = -d->xb;
            d->xbias = (int32_t)(1 << (d->xshift - 1)) - d->xa * a->zp - d->xb * b->zp;
            d->xnn = true;
        }
        break;
    }
    case E_MUL:
        gc_q_multiplier((double)a->scale * (double)b->scale / (double)y->scale, &d->y_mult, &d->y_shift);
        d->xscale = a->scale * b->scale / y->scale;
        d->xnn = ctx->xnn && dt != GC_T_INT16;
        break;
    case E_MAX: case E_MIN:
        break;
    case E_PRELU:
        GC_ENSURE(ctx, b->dtype == a->dtype, "alpha type differs");
        gc_q_multiplier((double)a->scale / (double)y->scale, &d->y_mult, &d->y_shift);
        gc_q_multiplier((double)a->scale * (double)b->scale / (double)y->scale, &d->y_mult2, &d->y_shift2);
        break;
    default:
        if (is_cmp(d->op)) { d->q_same = a->scale == b->scale && a->zp == b->zp; break; }
        return gc_fail(ctx, GC_ERR_UNSUPPORTED, "quantized %s is not supported", n->name);
    }
    if (ctx->fast && (d->op == E_ADD || d->op == E_SUB || d->op == E_MUL) && (dt == GC_T_INT8 || dt == GC_T_UINT8) &&
        b->dtype == dt && y->dtype == dt) {
        d->f8 = true;
        d->isa = ctx->isa;
        d->q8 = (gc_q8bin){ .op = d->op == E_MUL ? GC_Q8E_MUL : GC_Q8E_ADD, .xnn = d->xnn, .a_signed = dt == GC_T_INT8,
                            .b_signed = dt == GC_T_INT8, .a_off = d->a_off, .b_off = d->b_off, .y_off = d->y_off,
                            .left_shift = d->left_shift, .a_mult = d->a_mult, .b_mult = d->b_mult, .y_mult = d->y_mult,
                            .a_shift = d->a_shift, .b_shift = d->b_shift, .y_shift = d->y_shift, .lo = d->qlo,
                            .hi = d->qhi, .xa = d->xa, .xb = d->xb, .xbias = d->xbias, .xshift = d->xshift,
                            .xscale = d->xscale };
        /* [outer, inner] with one input repeating the same short inner run (a per-channel
         * constant): that run laid out ~256 elements long makes the runs long */
        int last = d->rank - 1;
        if (d->rank == 2 && d->shape[last] < 64 && d->sa[last] == 1 && d->sb[last] == 1 &&
            ((d->sa[0] == d->shape[last] && d->sb[0] == 0) || (d->sb[0] == d->shape[last] && d->sa[0] == 0))) {
            d->pat_side = d->sb[0] == 0 ? 1 : 2;
            d->pat_len = (int64_t)d->shape[last] * ((256 + d->shape[last] - 1) / d->shape[last]);
            d->pat_slot = gc_ctx_scratch(ctx, n, (size_t)d->pat_len);
            if (d->pat_slot < 0) return GC_ERR_NOMEM;
        } else if (d->shape[last] < 64 && gc_numel(y) >= 128) {      /* short runs: gathered */
            d->gather_slot = gc_ctx_scratch(ctx, n, 512);
            if (d->gather_slot < 0) return GC_ERR_NOMEM;
        }
    }
    n->data = d;
    return gc_set_shape(ctx, y, rank, shp);
}

/* ---- inner runs: y[0..cnt) = f(a[i*sa], b[i*sb]) ------------------------------------------ */

/* One float run: y[i] = EXPR(p = a[i * sa], q = b[i * sb]), with the contiguous / scalar
 * operand cases written out (vectorised; GCC does not version strided loops itself). */
#define F32_RUN(EXPR)                                                                        \
    do {                                                                                     \
        if (sa == 1 && sb == 1)                                                              \
            for (int64_t i = 0; i < cnt; i++) { const float p = a[i], q = b[i]; y[i] = (EXPR); } \
        else if (sa == 1 && sb == 0) {                                                       \
            const float q = b[0];                                                            \
            for (int64_t i = 0; i < cnt; i++) { const float p = a[i]; y[i] = (EXPR); }       \
        } else if (sa == 0 && sb == 1) {                                                     \
            const float p = a[0];                                                            \
            for (int64_t i = 0; i < cnt; i++) { const float q = b[i]; y[i] = (EXPR); }       \
        } else                                                                               \
            for (int64_t i = 0; i < cnt; i++) { const float p = a[i * sa], q = b[i * sb]; y[i] = (EXPR); } \
    } while (0)
#define CMP_RUN(EXPR)                                                                        \
    for (int64_t i = 0; i < cnt; i++) { const float p = a[i * sa], q = b[i * sb]; yb[i] = (EXPR); }

GC_CLONES static gc_status run_f32(const bin_data *d, bool h16, float *y, const float *a, int64_t sa,
                                   const float *b, int64_t sb, int64_t cnt, uint8_t *yb) {
    const float lo = d->lo, hi = d->hi;
    switch (d->op) {
    case E_ADD: F32_RUN(gc_act_f(p + q, lo, hi)); break;
    case E_SUB: F32_RUN(gc_act_f(p - q, lo, hi)); break;
    case E_MUL: F32_RUN(gc_act_f(p * q, lo, hi)); break;
    case E_DIV: F32_RUN(gc_act_f(p / q, lo, hi)); break;
    case E_MAX: F32_RUN(p > q ? p : q); break;
    case E_MIN: F32_RUN(p < q ? p : q); break;
    case E_POW: F32_RUN(powf(p, q)); break;
    case E_SQDIFF:
        if (h16) for (int64_t i = 0; i < cnt; i++) { float t = gc_f16_round(a[i * sa] - b[i * sb]); y[i] = t * t; }
        else F32_RUN((p - q) * (p - q));
        break;
    case E_FLOORDIV: F32_RUN(floorf(p / q)); break;
    case E_FLOORMOD:
        for (int64_t i = 0; i < cnt; i++) {
            float p = a[i * sa], q = b[i * sb], r = fmodf(p, q);
            if (r != 0 && ((r < 0) != (q < 0))) r += q;
            y[i] = r;
        }
        break;
    case E_PRELU: F32_RUN(p >= 0 ? p : p * q); break;
    case E_LT: CMP_RUN(p < q) break;
    case E_LE: CMP_RUN(p <= q) break;
    case E_GT: CMP_RUN(p > q) break;
    case E_GE: CMP_RUN(p >= q) break;
    case E_EQ: CMP_RUN(p == q) break;
    case E_NE: CMP_RUN(p != q) break;
    default: return GC_ERR_UNSUPPORTED;
    }
    return GC_OK;
}
#undef F32_RUN
#undef CMP_RUN

static int64_t ipow(int64_t b, int64_t e) {
    int64_t r = 1;
    while (e > 0) { if (e & 1) r *= b; b *= b; e >>= 1; }
    return r;
}

/* int32 / int64 / bool, read as int64 */
static gc_status run_int(gc_ctx *ctx, const bin_data *d, int dt, uint8_t *y, const uint8_t *a, int64_t sa,
                         const uint8_t *b, int64_t sb, int64_t cnt, int ydt) {
    int es = gc_esize(dt);
    for (int64_t i = 0; i < cnt; i++) {
        int64_t p, q, r = 0;
        if (es == 8) { memcpy(&p, a + i * sa * 8, 8); memcpy(&q, b + i * sb * 8, 8); }
        else if (es == 4) { int32_t t; memcpy(&t, a + i * sa * 4, 4); p = t; memcpy(&t, b + i * sb * 4, 4); q = t; }
        else { p = a[i * sa] != 0; q = b[i * sb] != 0; }
        switch (d->op) {
        case E_ADD: r = p + q; break;
        case E_SUB: r = p - q; break;
        case E_MUL: r = p * q; break;
        case E_DIV: GC_ENSURE(ctx, q != 0, "integer division by zero"); r = p / q; break;
        case E_MAX: r = p > q ? p : q; break;
        case E_MIN: r = p < q ? p : q; break;
        case E_POW: GC_ENSURE(ctx, q >= 0, "integer POW with a negative exponent"); r = ipow(p, q); break;
        case E_SQDIFF: r = (p - q) * (p - q); break;
        case E_FLOORDIV:
            GC_ENSURE(ctx, q != 0, "integer division by zero");
            r = p / q; if ((p % q != 0) && ((p < 0) != (q < 0))) r--; break;
        case E_FLOORMOD:
            GC_ENSURE(ctx, q != 0, "integer modulo by zero");
            r = p % q; if (r != 0 && ((r < 0) != (q < 0))) r += q; break;
        case E_LT: r = p < q; break; case E_LE: r = p <= q; break;
        case E_GT: r = p > q; break; case E_GE: r = p >= q; break;
        case E_EQ: r = p == q; break; case E_NE: r = p != q; break;
        case E_AND: r = p && q; break; case E_OR: r = p || q; break;
        default: return GC_ERR_UNSUPPORTED;
        }
        if (ydt == GC_T_BOOL) y[i] = r != 0;
        else if (ydt == GC_T_INT64) memcpy(y + i * 8, &r, 8);
        else { int32_t t = (int32_t)r; memcpy(y + i * 4, &t, 4); }
    }
    return GC_OK;
}

static gc_status run_q(const bin_data *d, int dt, int ydt, uint8_t *y, const uint8_t *a, int64_t sa,
                       const uint8_t *b, int64_t sb, int64_t cnt, const gc_rt *ra, const gc_rt *rb) {
    if (d->f8 && gc_q8bin_run(d->isa, &d->q8, a, sa, b, sb, cnt, y)) return GC_OK;
    for (int64_t i = 0; i < cnt; i++) {
        int32_t p = gc_qget(dt, a, (size_t)(i * sa)), q = gc_qget(rb->dtype, b, (size_t)(i * sb)), r = 0;
        switch (d->op) {
        case E_ADD: case E_SUB: {
            if (d->xnn) {
                int32_t acc = d->xbias + p * d->xa + q * d->xb;
                r = gc_clamp_i32((int64_t)(acc >> d->xshift) + d->y_off, d->qlo, d->qhi);
                break;
            }
            int32_t x1 = (p + d->a_off) * (1 << d->left_shift), x2 = (q + d->b_off) * (1 << d->left_shift);
            int32_t s1 = gc_q_mul(x1, d->a_mult, d->a_shift), s2 = gc_q_mul(x2, d->b_mult, d->b_shift);
            r = gc_clamp_i32((int64_t)gc_q_mul(s1 + s2, d->y_mult, d->y_shift) + d->y_off, d->qlo, d->qhi);
            break;
        }
        case E_MUL:
            if (d->xnn) { r = gc_q_xnn((p + d->a_off) * (q + d->b_off), d->xscale, d->y_off, d->qlo, d->qhi); break; }
            r = gc_clamp_i32((int64_t)gc_q_mul((p + d->a_off) * (q + d->b_off), d->y_mult, d->y_shift) + d->y_off,
                             d->qlo, d->qhi);
            break;
        case E_MAX: r = p > q ? p : q; break;
        case E_MIN: r = p < q ? p : q; break;
        case E_PRELU: {
            int32_t xv = p + d->a_off;
            int64_t v = xv >= 0 ? gc_q_mul(xv, d->y_mult, d->y_shift)
                                : gc_q_mul(xv * (q + d->b_off), d->y_mult2, d->y_shift2);
            r = gc_clamp_i32(v + d->y_off, d->qlo, d->qhi);
            break;
        }
        default: {                                   /* comparisons */
            float fp, fq;
            if (d->q_same) { fp = (float)p; fq = (float)q; }
            else { fp = ra->scale * (float)(p - ra->zp); fq = rb->scale * (float)(q - rb->zp); }
            switch (d->op) {
            case E_LT: r = fp < fq; break; case E_LE: r = fp <= fq; break;
            case E_GT: r = fp > fq; break; case E_GE: r = fp >= fq; break;
            case E_EQ: r = fp == fq; break; default: r = fp != fq; break;
            }
            y[i] = (uint8_t)r;
            continue;
        }
        }
        gc_qset(ydt, y, (size_t)i, r);
    }
    return GC_OK;
}

/* Output elements [e0, e1) of the merged shape: runs along the last dim, the start's
 * index unravelled once. */
static gc_status bin_range(gc_ctx *ctx, const gc_node *n, const bin_data *d, uint64_t e0, uint64_t e1) {
    gc_rt *a = n->in[0], *b = n->in[1], *y = n->out[0];
    int r = d->rank, last = r - 1, dt = a->dtype;
    int ea = gc_esize(dt), eb = gc_esize(b->dtype), ey = gc_esize(y->dtype);
    const int64_t cnt = d->shape[last];
    int32_t idx[GC_MAX_RANK] = { 0 };
    int64_t oa = 0, ob = 0;
    uint64_t rest = e0 / (uint64_t)cnt;
    for (int k = last - 1; k >= 0; k--) {
        idx[k] = (int32_t)(rest % (uint64_t)d->shape[k]);
        rest /= (uint64_t)d->shape[k];
        oa += idx[k] * d->sa[k]; ob += idx[k] * d->sb[k];
    }
    int64_t j = (int64_t)(e0 % (uint64_t)cnt);               /* position in the first run */
    for (uint64_t o = e0; o < e1;) {
        int64_t len = cnt - j < (int64_t)(e1 - o) ? cnt - j : (int64_t)(e1 - o);
        int64_t pa = oa + j * d->sa[last], pb = ob + j * d->sb[last];
        gc_status st;
        if (dt == GC_T_FLOAT32)
            st = run_f32(d, d->h16 && !n->keep_float, (float *)y->data + o, (const float *)a->data + pa, d->sa[last],
                         (const float *)b->data + pb, d->sb[last], len, y->data + o);
        else if (dt == GC_T_INT32 || dt == GC_T_INT64 || dt == GC_T_BOOL)
            st = run_int(ctx, d, dt, y->data + o * (uint64_t)ey, a->data + pa * ea, d->sa[last],
                         b->data + pb * eb, d->sb[last], len, y->dtype);
        else
            st = run_q(d, dt, y->dtype, y->data + o * (uint64_t)ey, a->data + pa * ea, d->sa[last],
                       b->data + pb * eb, d->sb[last], len, a, b);
        if (st != GC_OK) return st;
        o += (uint64_t)len;
        j = 0;
        for (int k = last - 1; k >= 0; k--) {
            oa += d->sa[k]; ob += d->sb[k];
            if (++idx[k] < d->shape[k]) break;
            oa -= d->sa[k] * d->shape[k]; ob -= d->sb[k] * d->shape[k]; idx[k] = 0;
        }
    }
    return GC_OK;
}

/* 8-bit ADD / SUB / MUL (binary_prepare's f8 cases): the repeating inner run laid out
 * long (pat_slot), or short runs gathered into contiguous chunks (gather_slot), then the
 * contiguous runs through run_q's fast path; one thread (the runs are cheap) */
static gc_status q8_runs(gc_ctx *ctx, const gc_node *n, const bin_data *d) {
    gc_rt *a = n->in[0], *b = n->in[1], *y = n->out[0];
    const int last = d->rank - 1, dt = a->dtype;
    const uint64_t total = gc_numel(y);
    if (d->pat_slot >= 0) {
        const int64_t inner = d->shape[last], len = d->pat_len;
        uint8_t *pat = n->scratch[d->pat_slot];
        const uint8_t *rep = d->pat_side == 1 ? b->data : a->data, *full = d->pat_side == 1 ? a->data : b->data;
        for (int64_t i = 0; i < len; i++) pat[i] = rep[i % inner];
        for (uint64_t o = 0; o < total; o += (uint64_t)len) {
            const int64_t k = total - o < (uint64_t)len ? (int64_t)(total - o) : len;
            gc_status st = d->pat_side == 1 ? run_q(d, dt, y->dtype, y->data + o, full + o, 1, pat, 1, k, a, b)
                                            : run_q(d, dt, y->dtype, y->data + o, pat, 1, full + o, 1, k, a, b);
            if (st != GC_OK) return gc_fail(ctx, st, "unsupported case");
        }
        return GC_OK;
    }
    int32_t idx[GC_MAX_RANK] = { 0 };
    int64_t oa = 0, ob = 0;
    const int64_t cnt = d->shape[last];
    uint8_t *ta = n->scratch[d->gather_slot], *tb = ta + 256;
    uint64_t start = 0; int64_t pos = 0;
    for (uint64_t o = 0; o < total; o += (uint64_t)cnt) {
        for (int64_t j = 0; j < cnt; j++) { ta[pos + j] = a->data[oa + j * d->sa[last]]; tb[pos + j] = b->data[ob + j * d->sb[last]]; }
        pos += cnt;
        if (pos + cnt > 256 || o + (uint64_t)cnt >= total) {
            gc_status st = run_q(d, dt, y->dtype, y->data + start, ta, 1, tb, 1, pos, a, b);
            if (st != GC_OK) return gc_fail(ctx, st, "unsupported case");
            start += (uint64_t)pos; pos = 0;
        }
        for (int k = last - 1; k >= 0; k--) {
            oa += d->sa[k]; ob += d->sb[k];
            if (++idx[k] < d->shape[k]) break;
            oa -= d->sa[k] * d->shape[k]; ob -= d->sb[k] * d->shape[k]; idx[k] = 0;
        }
    }
    return GC_OK;
}

typedef struct { gc_ctx *ctx; const gc_node *n; const bin_data *d; } bin_job;

static void bin_job_run(void *arg, int64_t e0, int64_t e1, int wk) {
    (void)wk;
    const bin_job *j = arg;
    (void)bin_range(j->ctx, j->n, j->d, (uint64_t)e0, (uint64_t)e1);   /* float / quantized: cannot fail */
}

static gc_status binary_eval(gc_ctx *ctx, gc_node *n) {
    bin_data *d = n->data;
    int dt = n->in[0]->dtype;
    uint64_t total = gc_numel(n->out[0]);
    if (total == 0) return GC_OK;
    if (d->pat_slot >= 0 || d->gather_slot >= 0) return q8_runs(ctx, n, d);
#ifndef GC_FP64_BUILD
    if (d->swish) {
        swish_job j = { ctx, n, d };
        int64_t chunk = (gc_ctx_chunk(ctx, (int64_t)total, 4.0) + 63) / 64 * 64;
        gc_ctx_for(ctx, (int64_t)total, chunk, swish_job_run, &j);
        return GC_OK;
    }
#endif
    bool split = dt != GC_T_INT32 && dt != GC_T_INT64 && dt != GC_T_BOOL;
    double cost = d->op == E_POW || d->op == E_FLOORMOD ? 20.0 : dt == GC_T_FLOAT32 ? 0.25 : 2.0;
    int64_t chunk = split ? gc_ctx_chunk(ctx, (int64_t)total, cost) : (int64_t)total;
    if (chunk < (int64_t)total) {
        chunk = (chunk + 63) / 64 * 64;                          /* whole cache lines of floats */
        bin_job j = { ctx, n, d };
        gc_ctx_for(ctx, (int64_t)total, chunk, bin_job_run, &j);
        return GC_OK;
    }
    gc_status st = bin_range(ctx, n, d, 0, total);
    return st == GC_ERR_UNSUPPORTED ? gc_fail(ctx, st, "unsupported case") : st;
}

/* ---- SELECT / SELECT_V2: y = cond ? x : y, three-way broadcast ------------------------------- */

typedef struct { int rank; int32_t shape[GC_MAX_RANK]; int64_t sc[GC_MAX_RANK], sx[GC_MAX_RANK], sy[GC_MAX_RANK]; } select_data;

static gc_status select_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 3, 3, 1));
    gc_rt *c = n->in[0], *x = n->in[1], *y = n->in[2], *o = n->out[0];
    GC_ENSURE(ctx, c->dtype == GC_T_BOOL, "condition must be BOOL");
    GC_ENSURE(ctx, x->dtype == y->dtype && x->dtype == o->dtype, "x, y and output types differ");
    if (gc_is_qint(x->dtype))
        GC_UNSUP(ctx, x->scale == o->scale && y->scale == o->scale && x->zp == o->zp && y->zp == o->zp,
                 "quantized SELECT with differing quantization");
    select_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    int r; int32_t shp[GC_MAX_RANK];
    GC_ENSURE(ctx, gc_bcast_shape(x, y, &r, shp), "x and y do not broadcast");
    gc_rt tmp = { .rank = r };
    memcpy(tmp.shape, shp, sizeof shp);
    gc_rt cc = *c;
    if (n->code == GC_OP_SELECT && c->rank == 1 && r > 1 && c->shape[0] == shp[0] && !(r == 1)) {
        cc.rank = r;                                  /* v1: a vector picks rows */
        cc.shape[0] = c->shape[0];
        for (int i = 1; i < r; i++) cc.shape[i] = 1;
    }
    GC_ENSURE(ctx, gc_bcast_shape(&cc, &tmp, &r, shp), "condition does not broadcast");
    d->rank = r; memcpy(d->shape, shp, sizeof shp);
    gc_bcast_strides(&cc, r, shp, d->sc);
    gc_bcast_strides(x, r, shp, d->sx);
    gc_bcast_strides(y, r, shp, d->sy);
    n->data = d;
    return gc_set_shape(ctx, o, r, shp);
}

static gc_status select_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    select_data *d = n->data;
    gc_rt *c = n->in[0], *x = n->in[1], *y = n->in[2], *o = n->out[0];
    size_t es = (size_t)gc_esize(o->dtype);
    int32_t idx[GC_MAX_RANK] = { 0 };
    for (uint64_t i = 0, m = gc_numel(o); i < m; i++) {
        int64_t ic = 0, ix = 0, iy = 0;
        for (int k = 0; k < d->rank; k++) { ic += idx[k] * d->sc[k]; ix += idx[k] * d->sx[k]; iy += idx[k] * d->sy[k]; }
        const uint8_t *src = c->data[ic] ? x->data + (size_t)ix * es : y->data + (size_t)iy * es;
        memcpy(o->data + i * es, src, es);
        for (int k = d->rank - 1; k >= 0; k--) { if (++idx[k] < d->shape[k]) break; idx[k] = 0; }
    }
    return GC_OK;
}

#define BIN(sym, name) const gc_kernel GC_K(sym) = { name, binary_prepare, binary_eval, 0 };
BIN(gc_k_add, "ADD")
BIN(gc_k_sub, "SUB")
BIN(gc_k_mul, "MUL")
BIN(gc_k_div, "DIV")
BIN(gc_k_maximum, "MAXIMUM")
BIN(gc_k_minimum, "MINIMUM")
BIN(gc_k_pow, "POW")
BIN(gc_k_squared_difference, "SQUARED_DIFFERENCE")
BIN(gc_k_floor_div, "FLOOR_DIV")
BIN(gc_k_floor_mod, "FLOOR_MOD")
BIN(gc_k_less, "LESS")
BIN(gc_k_less_equal, "LESS_EQUAL")
BIN(gc_k_greater, "GREATER")
BIN(gc_k_greater_equal, "GREATER_EQUAL")
BIN(gc_k_equal, "EQUAL")
BIN(gc_k_not_equal, "NOT_EQUAL")
BIN(gc_k_logical_and, "LOGICAL_AND")
BIN(gc_k_logical_or, "LOGICAL_OR")
BIN(gc_k_prelu, "PRELU")
#undef BIN
const gc_kernel GC_K(gc_k_select) = { "SELECT", select_prepare, select_eval, 0 };
const gc_kernel GC_K(gc_k_select_v2) = { "SELECT_V2", select_prepare, select_eval, 0 };
