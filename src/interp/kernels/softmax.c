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
 * exp of a very negative argument (a -3.4e38 attention mask: x_i - m ~ -3.4e38) is +0,
 *   and libm's expf takes a slow path (underflow) to say so: arguments below zero_below
 *   (the smallest float whose expf is not 0, found at prepare by bisection on this libm's
 *   own expf: about -103.97; the double build: exp's, about -745.13) give +0 without the
 *   call: the same bits, as exp is monotonic (tests/c/test_interp_threads.c checks it).
 * Native fp16 (half_math): e_i = r(exp(r(r(x_i - m) beta))), s = sum e_i in float in
 *   order, y_i = e_i r(1 / s), each rounding over the whole row at once
 *   (gc_f16_round_copy: F16C, the same bits); an argument below -17.5 gives e_i = +0
 *   without calling expf: exp(-17.5) < 2.6e-8 is below 2^-25, half of the smallest half,
 *   so any expf within 10% rounds to +0 there; unless opts.reference_kernels, the exps
 *   through the vector expf (kernels/vexpf.h, zero_below -17.5: the same bits).
 * Float SOFTMAX outside fp16-acc, unless opts.reference_kernels: the same bits in another
 *   order of work: e_i by the vector expf with libm's bits (kernels/vexpf.h: the argument
 *   (x_i - m) beta formed as above, +0 below zero_below), and up to 8 rows at once: their
 *   sums interleaved (row g's s in order over i, each its own chain: adding the +0 of an
 *   exp below zero_below to s >= +0 changes nothing), then each row's quotients.
 * Rows are split over the pool (each row computed as above on one thread); in the fp16
 *   modes each row is stored as half as soon as it is computed (node->own_store).
 */
#include "interp/interp_impl.h"
#ifndef GC_FP64_BUILD
#include "interp/kernels/vexpf.h"
#endif

/* The quotient and copy loops run across independent outputs, so vectorising them keeps
 * every result; GCC's -O2 does not vectorise them, -O3 does (as conv.c). */
#include "interp/kernels/vec_loops.h"

typedef struct { float beta, zero_below; uint64_t rows, len; float table[256]; int idx_slot; } softmax_data;

/* The smallest t with expf(t) != 0: bisection between -1000 (expf 0) and -1 (expf > 0)
 * until the two ends are neighbouring floats (type-generic: the double build bisects exp). */
float GC_K(gc_expf_zero_below)(void) {
    float lo = -1000.0f, hi = -1.0f;
    for (int i = 0; i < 4096; i++) {
        float mid = lo + (hi - lo) * 0.5f;
        if (mid <= lo || mid >= hi) break;
        if (expf(mid) == 0.0f) lo = mid; else hi = mid;
    }
    return hi;
}

static gc_status softmax_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, x->rank >= 1, "input must have rank >= 1");
    softmax_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->beta = n->code == GC_OP_SOFTMAX ? (float)gc_opt_float(gc_opts(n), GC_O_SoftmaxOptions_beta) : 1.0f;
    if (n->code == GC_OP_SOFTMAX && n->op->opt.type == 0) d->beta = 1.0f;
    d->zero_below = GC_K(gc_expf_zero_below)();
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
    /* fp16: each float row is stored as half once computed, in cache (softmax_rows) */
    n->own_store = ctx->fp16 && x->dtype == GC_T_FLOAT32;
    /* fp32 SOFTMAX: one row of kept positions per worker (softmax_rows) */
    d->idx_slot = -1;
    if (x->dtype == GC_T_FLOAT32 && n->code == GC_OP_SOFTMAX) {
        GC_UNSUP(ctx, d->len < ((uint64_t)1 << 31), "softmax rows of %llu values are too long", (unsigned long long)d->len);
        d->idx_slot = gc_ctx_scratch(ctx, n, ((size_t)d->len * sizeof(int32_t) + 64) * (size_t)ctx->threads);
        if (d->idx_slot < 0) return GC_ERR_NOMEM;
    }
    n->data = d;
    return gc_set_shape(ctx, y, x->rank, x->shape);
}

typedef struct { gc_ctx *ctx; const softmax_data *d; gc_node *n; char *idx; } softmax_job;

/* max over a row, as `if (a[i] > m) m = a[i]` from -inf does (NaN never taken), in 8
 * lanes of a GNU vector (the compiler will not reorder a float max itself). Of +0 and -0
 * it may return the other one: every use (x - m, then exp, or - log(sum)) gives the same
 * bits either way. */
typedef float row_v8 __attribute__((vector_size(8 * sizeof(float))));
typedef __typeof__((row_v8){ 0 } > (row_v8){ 0 }) row_m8;

static inline __attribute__((always_inline)) float row_max(const float *a, uint64_t L) {
    row_v8 m8 = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    uint64_t i = 0;
    for (; i + 8 <= L; i += 8) {
        row_v8 v;
        memcpy(&v, a + i, sizeof v);
        row_m8 gt = v > m8;                            /* false for NaN */
        m8 = (row_v8)(((row_m8)v & gt) | ((row_m8)m8 & ~gt));
    }
    float m = -INFINITY;
    for (int k = 0; k < 8; k++) if (m8[k] > m) m = m8[k];
    for (; i < L; i++) if (a[i] > m) m = a[i];
    return m;
}

#ifndef GC_FP64_BUILD
/* float SOFTMAX rows [r0, r1) with the vector expf (see the top): groups of up to 8 rows,
 * each row's exps, then the 8 sums side by side (8 chains of adds, each in its row's
 * order), then each row's quotients */
enum { SM_GROUP = 8 };

GC_CLONES static void softmax_rows_vexp(const softmax_job *j, int64_t r0, int64_t r1) {
    const softmax_data *d = j->d;
    const gc_ctx *ctx = j->ctx;
    const uint64_t L = d->len;
    const float *xs = (const float *)j->n->in[0]->data;
    float *ys = (float *)j->n->out[0]->data;
    for (int64_t g0 = r0; g0 < r1; g0 += SM_GROUP) {
        const int G = r1 - g0 < SM_GROUP ? (int)(r1 - g0) : SM_GROUP;
        float *b = ys + (uint64_t)g0 * L;
        for (int g = 0; g < G; g++) {
            const float *a = xs + (uint64_t)(g0 + g) * L;
            const gc_vexp_params p = { row_max(a, L), d->beta, d->zero_below };
            gc_vexpf_run((gc_isa)ctx->isa, GC_VEXP_SHIFT, a, b + (uint64_t)g * L, (size_t)L, &p);
        }
        float s[SM_GROUP] = { 0 };
        if (G == SM_GROUP) {
            for (uint64_t i = 0; i < L; i++)
#pragma GCC unroll 8
                for (int g = 0; g < SM_GROUP; g++) s[g] += b[(uint64_t)g * L + i];
        } else {
            for (int g = 0; g < G; g++)
                for (uint64_t i = 0; i < L; i++) s[g] += b[(uint64_t)g * L + i];
        }
        for (int g = 0; g < G; g++) {
            float *bg = b + (uint64_t)g * L;
            const float sg = s[g];
            for (uint64_t i = 0; i < L; i++) bg[i] = bg[i] / sg;      /* vectorised */
            gc_f16_store(ctx->store, bg, (size_t)L);                  /* fp16: as half (own_store) */
        }
    }
}
#endif

GC_CLONES static void softmax_rows(void *arg, int64_t r0, int64_t r1, int wk) {
    const softmax_job *j = arg;
    const softmax_data *d = j->d;
    gc_ctx *ctx = j->ctx;
    const int32_t code = j->n->code;
    const uint64_t L = d->len;
    const float zb = d->zero_below;
    const bool acc16 = ctx->acc16;
    (void)acc16;
    const float *xs = (const float *)j->n->in[0]->data;
    float *ys = (float *)j->n->out[0]->data;
#ifndef GC_FP64_BUILD
    if (code == GC_OP_SOFTMAX && !acc16 && !ctx->reference && !(ctx->hm && ctx->hm->half_math)) {
        softmax_rows_vexp(j, r0, r1);
        return;
    }
#endif
    for (int64_t r = r0; r < r1; r++) {
        const float *a = xs + (uint64_t)r * L; float *b = ys + (uint64_t)r * L;
        if (code == GC_OP_L2_NORMALIZATION) {
            float s = 0;
            for (uint64_t i = 0; i < L; i++) s = gc_racc(ctx, s + a[i] * a[i]);
            float norm = sqrtf(s);
            if (norm < 1e-6f) norm = 1e-6f;
            for (uint64_t i = 0; i < L; i++) b[i] = a[i] / norm;
#ifndef GC_FP64_BUILD
            gc_f16_store(ctx->store, b, (size_t)L);          /* fp16: stored as half (own_store) */
#endif
            continue;
        }
        const float m = row_max(a, L);
        float s = 0;
#ifndef GC_FP64_BUILD
        if (code == GC_OP_SOFTMAX && ctx->hm && ctx->hm->half_math) {
            /* native fp16: exp(x - max) in half, the sum in float, times r(1 / sum); each
             * rounding over the row at once (F16C), expf skipped where r(exp) is +0 */
            for (uint64_t i = 0; i < L; i++) b[i] = a[i] - m;
            gc_f16_round_copy(b, b, (size_t)L);
            for (uint64_t i = 0; i < L; i++) b[i] = b[i] * d->beta;
            gc_f16_round_copy(b, b, (size_t)L);
            if (!ctx->reference && ctx->isa > GC_ISA_SCALAR) {     /* expf's bits, vectorized */
                const gc_vexp_params vp = { 0.0f, 1.0f, -17.5f };
                gc_vexpf_run((gc_isa)ctx->isa, GC_VEXP_PLAIN, b, b, (size_t)L, &vp);
            } else
                for (uint64_t i = 0; i < L; i++) b[i] = b[i] < -17.5f ? 0.0f : expf(b[i]);
            gc_f16_round_copy(b, b, (size_t)L);
            for (uint64_t i = 0; i < L; i++) s += b[i];
            float inv = gc_f16_round(1.0f / s);
            for (uint64_t i = 0; i < L; i++) b[i] = b[i] * inv;
        } else
#endif
        if (code == GC_OP_SOFTMAX) {
            for (uint64_t i = 0; i < L; i++) b[i] = (a[i] - m) * d->beta;         /* vectorised */
            /* s + 0 == s: s starts at +0 and only grows, so the zero terms are not added */
            if (!acc16) {
                /* the kept positions (t >= zero_below, or NaN) listed in order without a
                 * branch (masks are irregular: a branch per element mispredicts), the
                 * others set to 0; then expf and the sum over the list, in order */
                int32_t *idx = (int32_t *)(j->idx + (size_t)wk * ((size_t)L * sizeof(int32_t) + 64));
                uint64_t nk = 0;
                for (uint64_t i = 0; i < L; i++) { idx[nk] = (int32_t)i; nk += !(b[i] < zb); }
                for (uint64_t i = 0; i < L; i++) b[i] = b[i] < zb ? 0.0f : b[i];      /* vectorised */
                for (uint64_t k = 0; k < nk; k++) b[idx[k]] = expf(b[idx[k]]);
                for (uint64_t k = 0; k < nk; k++) s += b[idx[k]];
                for (uint64_t i = 0; i < L; i++) b[i] = b[i] / s;
            } else {
                for (uint64_t i = 0; i < L; i++)
                    if (b[i] < zb) b[i] = 0.0f;
                    else { b[i] = gc_racc(ctx, expf(b[i])); s = gc_racc(ctx, s + b[i]); }
                for (uint64_t i = 0; i < L; i++) b[i] = gc_racc(ctx, b[i] / s);
            }
        } else {
            for (uint64_t i = 0; i < L; i++) {
                float t = a[i] - m;
                s = gc_racc(ctx, s + gc_racc(ctx, t < zb ? 0.0f : expf(t)));
            }
            float ls = logf(s);
            for (uint64_t i = 0; i < L; i++) b[i] = (a[i] - m) - ls;
        }
#ifndef GC_FP64_BUILD
        gc_f16_store(ctx->store, b, (size_t)L);              /* fp16: stored as half (own_store) */
#endif
    }
}

/* quantized rows [r0, r1) */
static void softmax_q_rows(void *arg, int64_t r0, int64_t r1, int wk) {
    (void)wk;
    const softmax_job *j = arg;
    const softmax_data *d = j->d;
    const gc_rt *x = j->n->in[0], *y = j->n->out[0];
    const uint64_t L = d->len;
    int dt = x->dtype, yt = y->dtype;
    int32_t lo, hi;
    gc_qrange(yt, &lo, &hi);
    for (int64_t r = r0; r < r1; r++) {
        size_t base = (size_t)((uint64_t)r * L);
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
}

static gc_status softmax_eval(gc_ctx *ctx, gc_node *n) {
    softmax_data *d = n->data;
    softmax_job j = { ctx, d, n, d->idx_slot >= 0 ? (char *)n->scratch[d->idx_slot] : NULL };
    int64_t chunk = gc_ctx_chunk(ctx, (int64_t)d->rows, 16.0 * (double)d->len);
    gc_ctx_for(ctx, (int64_t)d->rows, chunk, n->in[0]->dtype == GC_T_FLOAT32 ? softmax_rows : softmax_q_rows, &j);
    return GC_OK;
}

const gc_kernel GC_K(gc_k_softmax) = { "SOFTMAX", softmax_prepare, softmax_eval, 0 };
const gc_kernel GC_K(gc_k_log_softmax) = { "LOG_SOFTMAX", softmax_prepare, softmax_eval, 0 };
const gc_kernel GC_K(gc_k_l2_normalization) = { "L2_NORMALIZATION", softmax_prepare, softmax_eval, 0 };
