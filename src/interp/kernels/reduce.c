/* reduce.c — reductions: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_ANY,
 * REDUCE_ALL, ARG_MAX, ARG_MIN, CUMSUM.
 *
 * MEAN/SUM/REDUCE_*(x, axes)  axes: int32 list (known at prepare, negative allowed,
 *     duplicates ignored); options.keep_dims keeps reduced dims as 1. Each output
 *     accumulates its inputs in row-major order of the input (TFLite's reference
 *     order); MEAN divides the float sum by the count at the end.
 *   FLOAT32, INT32, INT64 (SUM/MAX/MIN/PROD/MEAN), BOOL (ANY/ALL).
 *   INT8/UINT8/INT16 MEAN and SUM follow TFLite's reduce kernel case by case:
 *     MEAN over H, W of a 4-D tensor with keep_dims: UINT8: MultiplyByQuantizedMultiplier(
 *       sum, s_in/(N s_out)) + zp_out - round_half_away(zp_in s_in/s_out); INT8/INT16:
 *       a = MultiplyByQuantizedMultiplier(sum (x - zp_in), s_in/s_out), then a/N rounded
 *       half away from zero, + zp_out;
 *     other MEAN with input and output sharing one quantization: raw sum / N truncated;
 *     otherwise QuantizedMeanOrSum: MEAN: round_half_away((sum/N) s - zp_in s) + zp_out,
 *       s = s_in/s_out, in float; SUM: round_half_away(sum s - zp_in s N) + zp_out;
 *     all clamped. With --int-arith xnnpack (XNNPACK): MEAN = rint((sum - N zp_in)
 *     s_in / (s_out N)) + zp_out, float scale, half to even.
 *     REDUCE_MAX/MIN on quantized data compare raw values (same quantization required).
 * ARG_MAX/ARG_MIN(x, axis)  options.output_type INT32/INT64; first index wins ties
 *   (ctx->fast: int8 / uint8 / float32 scanned in their own type, the same comparisons).
 * CUMSUM(x, axis)  options exclusive, reverse; float / int32 / int64.
 * ctx->fast: MEAN / SUM of INT8 / UINT8 over one contiguous block of dims sum
 *   [outer][R][inner] with the outputs innermost (exact integer sums).
 * fp16: float reductions run in float32 (fp16: output rounded by the core);
 *   fp16-acc rounds every partial sum / product (MEAN: also the final division).
 *
 * Float MEAN / SUM / REDUCE_MAX / MIN / PROD run on the input seen as groups of adjacent
 * dims with the same reduced-or-kept flag (size-1 dims dropped), in the order above
 * (each output adds its inputs in increasing input index). When the innermost group is
 * kept, C contiguous outputs take C contiguous inputs per step (vectorised across them);
 * when it is reduced, 8 outputs at a time add their rows of L contiguous inputs side by
 * side (8 independent sums in flight instead of one chain). The pool splits the outputs.
 * opts.reference_kernels runs the plain loop instead (tests compare the two).
 */
#include "interp/interp_impl.h"
#include "interp/kernels/qelem8.h"

#include <stdlib.h>

/* the float loops run across independent outputs (kernels/vec_loops.h) */
#include "interp/kernels/vec_loops.h"

/* float reductions as groups of dims (see the top): g[0..ng), innermost last */
typedef struct {
    int ng;
    int64_t size[GC_MAX_RANK];
    int64_t istride[GC_MAX_RANK];     /* input stride (elements) of the group */
    bool red[GC_MAX_RANK];
    int nk, nr;                       /* kept / reduced groups, outermost first */
    int kept[GC_MAX_RANK], rdc[GC_MAX_RANK];
    uint64_t n_out, n_red;            /* outputs; inputs per output */
} red_groups;

typedef struct {
    red_groups g;
    bool red[GC_MAX_RANK];
    int64_t ostride[GC_MAX_RANK];     /* output stride of each input dim (0 if reduced) */
    uint64_t count;                   /* inputs per output */
    int acc_slot;
    int qmode;                        /* quantized MEAN: Q_* below */
    int32_t qm; int qs; int32_t qbias;
    bool xnn; float xscale;           /* XNNPACK's MEAN: float rescale of sum - N zp */
    /* ctx->fast, MEAN / SUM of INT8 / UINT8 whose reduced dims are one contiguous block:
     * x as [outer][R][inner], acc[o][c] += x[o][r][c] (exact integer sums), vectorizable
     * across c */
    bool blk;
    uint64_t outer, R, inner;
} reduce_data;

enum { Q_FLOAT = 0,                   /* QuantizedMeanOrSum (float rescale) */
       Q_SAME,                        /* same quantization: raw sum / N, truncated */
       Q_HW_U8,                       /* 4-D, keep_dims, axes {1,2}, UINT8 */
       Q_HW_INT };                    /* 4-D, keep_dims, axes {1,2}, INT8 / INT16 */

static gc_status reduce_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "axes"));
    gc_rt *x = n->in[0], *y = n->out[0];
    reduce_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    for (uint64_t i = 0; i < gc_numel(n->in[1]); i++) {
        int a = gc_axis((int)gc_get_int(n->in[1], (size_t)i), x->rank);
        GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis %d out of range for rank %d", (int)gc_get_int(n->in[1], (size_t)i), (int)x->rank);
        d->red[a] = true;
    }
    bool keep = gc_opt_int(gc_opts(n), GC_O_ReducerOptions_keep_dims) != 0;
    int32_t shp[GC_MAX_RANK], full[GC_MAX_RANK]; int r = 0;
    d->count = 1;
    for (int i = 0; i < x->rank; i++) {
        full[i] = d->red[i] ? 1 : x->shape[i];
        if (d->red[i]) { d->count *= (uint64_t)x->shape[i]; if (keep) shp[r++] = 1; }
        else shp[r++] = x->shape[i];
    }
    int64_t os[GC_MAX_RANK];
    gc_strides(x->rank, full, os);
    for (int i = 0; i < x->rank; i++) d->ostride[i] = d->red[i] ? 0 : os[i];
    int dt = x->dtype;
    bool logical = n->code == GC_OP_REDUCE_ANY || n->code == GC_OP_REDUCE_ALL;
    if (logical) GC_ENSURE(ctx, dt == GC_T_BOOL, "%s needs BOOL", n->name);
    else if (gc_is_qint(dt)) {
        GC_UNSUP(ctx, n->code == GC_OP_MEAN || n->code == GC_OP_SUM || n->code == GC_OP_REDUCE_MAX || n->code == GC_OP_REDUCE_MIN,
                 "quantized %s is not supported", n->name);
        GC_ENSURE(ctx, x->scale > 0 && y->scale > 0, "quantized %s needs scales", n->name);
    } else GC_UNSUP(ctx, dt == GC_T_FLOAT32 || dt == GC_T_INT32 || dt == GC_T_INT64, "%s on %s is not supported",
                    n->name, gc_type_name(dt));
    GC_ENSURE(ctx, y->dtype == dt, "output type %s, input %s", gc_type_name(y->dtype), gc_type_name(dt));
    if (gc_is_qint(dt) && n->code == GC_OP_MEAN && ctx->xnn && dt != GC_T_INT16) {
        d->xnn = true;
        d->xscale = x->scale / (y->scale * (float)d->count);
    } else if (gc_is_qint(dt) && n->code == GC_OP_MEAN) {
        bool hw = keep && x->rank == 4 && !d->red[0] && d->red[1] && d->red[2] && !d->red[3];
        if (hw && dt == GC_T_UINT8) {
            d->qmode = Q_HW_U8;
            float t = (float)x->zp * x->scale / y->scale;
            t = t > 0 ? t + 0.5f : t - 0.5f;
            d->qbias = y->zp - (int32_t)t;
            gc_q_multiplier((double)(x->scale / ((float)d->count * y->scale)), &d->qm, &d->qs);
        } else if (hw) {
            d->qmode = Q_HW_INT;
            gc_q_multiplier((double)x->scale / (double)y->scale, &d->qm, &d->qs);
        } else if (x->scale == y->scale && x->zp == y->zp) {
            d->qmode = Q_SAME;
        }
    }
    if (ctx->fast && (n->code == GC_OP_MEAN || n->code == GC_OP_SUM) && (dt == GC_T_INT8 || dt == GC_T_UINT8) &&
        x->rank >= 1) {
        int i0 = 0, i1;
        while (i0 < x->rank && !d->red[i0]) i0++;
        for (i1 = i0; i1 < x->rank && d->red[i1]; i1++) {}
        bool one_block = i0 < x->rank;
        for (int i = i1; i < x->rank; i++) one_block &= !d->red[i];
        if (one_block) {
            d->blk = true; d->outer = 1; d->R = 1; d->inner = 1;
            for (int i = 0; i < x->rank; i++) *(i < i0 ? &d->outer : i < i1 ? &d->R : &d->inner) *= (uint64_t)x->shape[i];
        }
    }
    GC_TRY(gc_set_shape(ctx, y, r, shp));
    {   /* the groups of the float path */
        red_groups *g = &d->g;
        int64_t st[GC_MAX_RANK];
        gc_strides(x->rank, x->shape, st);
        for (int i = 0; i < x->rank; i++) {
            if (x->shape[i] == 1) continue;
            if (g->ng > 0 && g->red[g->ng - 1] == d->red[i]) {
                g->size[g->ng - 1] *= x->shape[i];
                g->istride[g->ng - 1] = st[i];
                continue;
            }
            g->size[g->ng] = x->shape[i]; g->istride[g->ng] = st[i]; g->red[g->ng] = d->red[i]; g->ng++;
        }
        g->n_out = 1; g->n_red = 1;
        for (int i = 0; i < g->ng; i++) {
            if (g->red[i]) { g->rdc[g->nr++] = i; g->n_red *= (uint64_t)g->size[i]; }
            else { g->kept[g->nk++] = i; g->n_out *= (uint64_t)g->size[i]; }
        }
    }
    uint64_t m = 1;
    for (int i = 0; i < x->rank; i++) m *= (uint64_t)full[i];
    d->acc_slot = gc_ctx_scratch(ctx, n, (size_t)m * sizeof(double) + 8);
    n->data = d;
    return GC_OK;
}

/* ---- float fast path ---------------------------------------------------------------------- */

typedef struct { gc_ctx *ctx; const reduce_data *d; int code; bool a16; const float *x; float *y; } red_job;

#define RED_OP(code, a, v, a16)                                                              \
    ((code) == GC_OP_REDUCE_MAX ? (((v) > (a) || (v) != (v)) ? (v) : (a)) :                   \
     (code) == GC_OP_REDUCE_MIN ? (((v) < (a) || (v) != (v)) ? (v) : (a)) :                   \
     (code) == GC_OP_REDUCE_PROD ? ((a16) ? gc_f16_round((a) * (v)) : (a) * (v)) :           \
     ((a16) ? gc_f16_round((a) + (v)) : (a) + (v)))

static float red_init(int code) {
    return code == GC_OP_REDUCE_MAX ? -INFINITY : code == GC_OP_REDUCE_MIN ? INFINITY :
           code == GC_OP_REDUCE_PROD ? 1.0f : 0.0f;
}
static float red_final(const red_job *j, float v) {
    if (j->code != GC_OP_MEAN) return v;
    v = v / (float)j->d->count;
    return j->a16 ? gc_f16_round(v) : v;
}

/* input offset of the reduced position q (lexicographic over the reduced groups) */
static int64_t red_offset(const red_groups *g, uint64_t q, int skip_last) {
    int64_t off = 0;
    for (int k = g->nr - 1 - skip_last; k >= 0; k--) {
        int gi = g->rdc[k];
        off += (int64_t)(q % (uint64_t)g->size[gi]) * g->istride[gi];
        q /= (uint64_t)g->size[gi];
    }
    return off;
}
/* input offset of the output o's kept position, leaving out the innermost kept group
 * when skip_last */
static int64_t kept_offset(const red_groups *g, uint64_t o, int skip_last) {
    int64_t off = 0;
    for (int k = g->nk - 1 - skip_last; k >= 0; k--) {
        int gi = g->kept[k];
        off += (int64_t)(o % (uint64_t)g->size[gi]) * g->istride[gi];
        o /= (uint64_t)g->size[gi];
    }
    return off;
}

enum { RED_CB = 64 };                 /* outputs per item when the innermost group is kept */

/* innermost group kept (C outputs side by side): item = (outer kept position, block of
 * RED_CB channels); for each reduced position in order, acc[c] op= x[c] */
GC_CLONES static void red_kept_inner(void *arg, int64_t i0, int64_t i1, int wk) {
    (void)wk;
    const red_job *j = arg;
    const red_groups *g = &j->d->g;
    const int code = j->code;
    const bool a16 = j->a16;
    const int64_t C = g->size[g->ng - 1], nb = (C + RED_CB - 1) / RED_CB;
    float acc[RED_CB];
    for (int64_t it = i0; it < i1; it++) {
        const uint64_t ko = (uint64_t)(it / nb);
        const int64_t c0 = (it % nb) * RED_CB, nc = C - c0 < RED_CB ? C - c0 : RED_CB;
        const float *xb = j->x + kept_offset(g, ko, 1) + c0;
        const float init = red_init(code);
        for (int64_t c = 0; c < nc; c++) acc[c] = init;
        for (uint64_t q = 0; q < g->n_red; q++) {
            const float *xp = xb + red_offset(g, q, 0);
            switch (code) {
            case GC_OP_REDUCE_MAX: for (int64_t c = 0; c < nc; c++) acc[c] = RED_OP(GC_OP_REDUCE_MAX, acc[c], xp[c], 0); break;
            case GC_OP_REDUCE_MIN: for (int64_t c = 0; c < nc; c++) acc[c] = RED_OP(GC_OP_REDUCE_MIN, acc[c], xp[c], 0); break;
            case GC_OP_REDUCE_PROD:
                if (a16) for (int64_t c = 0; c < nc; c++) acc[c] = gc_f16_round(acc[c] * xp[c]);
                else for (int64_t c = 0; c < nc; c++) acc[c] = acc[c] * xp[c];
                break;
            default:
                if (a16) for (int64_t c = 0; c < nc; c++) acc[c] = gc_f16_round(acc[c] + xp[c]);
                else for (int64_t c = 0; c < nc; c++) acc[c] = acc[c] + xp[c];
                break;
            }
        }
        float *yp = j->y + ko * (uint64_t)C + (uint64_t)c0;
        for (int64_t c = 0; c < nc; c++) yp[c] = red_final(j, acc[c]);
    }
}

/* innermost group reduced (rows of L contiguous inputs): outputs [o0, o1), 8 at a time
 * while they are neighbours in the innermost kept group */
GC_CLONES static void red_red_inner(void *arg, int64_t o0, int64_t o1, int wk) {
    (void)wk;
    const red_job *j = arg;
    const red_groups *g = &j->d->g;
    const int code = j->code;
    const bool a16 = j->a16;
    const int64_t L = g->size[g->ng - 1];
    const uint64_t nq = g->n_red / (uint64_t)L;            /* reduced positions outside the rows */
    const int64_t ks = g->nk ? g->istride[g->kept[g->nk - 1]] : 0;
    const int64_t kn = g->nk ? g->size[g->kept[g->nk - 1]] : 1;
    const float init = red_init(code);
    for (int64_t o = o0; o < o1;) {
        int64_t in_run = kn - o % kn, cnt = o1 - o < in_run ? o1 - o : in_run;
        if (cnt > 8) cnt = 8;
        const float *xb = j->x + kept_offset(g, (uint64_t)o, 0);
        float a[8];
        for (int k = 0; k < 8; k++) a[k] = init;
        for (uint64_t q = 0; q < nq; q++) {
            const float *xr = xb + red_offset(g, q, 1);
            if (cnt == 8 && !a16 && (code == GC_OP_MEAN || code == GC_OP_SUM)) {
                for (int64_t l = 0; l < L; l++)
                    for (int k = 0; k < 8; k++) a[k] = a[k] + xr[k * ks + l];
            } else {
                for (int64_t l = 0; l < L; l++)
                    for (int64_t k = 0; k < cnt; k++) a[k] = RED_OP(code, a[k], xr[k * ks + l], a16);
            }
        }
        for (int64_t k = 0; k < cnt; k++) j->y[o + k] = red_final(j, a[k]);
        o += cnt;
    }
}

static void reduce_float(gc_ctx *ctx, const reduce_data *d, int code, bool a16, const float *x, float *y) {
    const red_groups *g = &d->g;
    red_job j = { ctx, d, code, a16, x, y };
    const float init = red_init(code);
    if (g->n_out == 0) return;
    if (g->n_red == 0 || g->ng == 0) {            /* nothing to reduce (or a single value): copy */
        for (uint64_t o = 0; o < g->n_out; o++) y[o] = red_final(&j, g->n_red ? RED_OP(code, init, x[o], a16) : init);
        return;
    }
    if (!g->red[g->ng - 1]) {
        const int64_t C = g->size[g->ng - 1], nb = (C + RED_CB - 1) / RED_CB;
        const int64_t items = (int64_t)(g->n_out / (uint64_t)C) * nb;
        double work = (double)g->n_red * (double)(C < RED_CB ? C : RED_CB);
        gc_ctx_for(ctx, items, gc_ctx_chunk(ctx, items, work), red_kept_inner, &j);
    } else {
        gc_ctx_for(ctx, (int64_t)g->n_out, gc_ctx_chunk(ctx, (int64_t)g->n_out, (double)g->n_red), red_red_inner, &j);
    }
}

/* the contiguous-block sums of reduce_data.blk (8 bits): exact integer sums, the loop
 * over outputs innermost */
GC_CLONES static void sum_blk_q(const reduce_data *d, const uint8_t *x, bool sgn, int64_t *acc) {
    const uint64_t R = d->R, C = d->inner;
    for (uint64_t o = 0; o < d->outer; o++) {
        int64_t *a = acc + o * C;
        for (uint64_t r = 0; r < R; r++) {
            const uint8_t *xr = x + (o * R + r) * C;
            if (sgn) for (uint64_t c = 0; c < C; c++) a[c] += (int8_t)xr[c];
            else for (uint64_t c = 0; c < C; c++) a[c] += xr[c];
        }
    }
}

static gc_status reduce_eval(gc_ctx *ctx, gc_node *n) {
    reduce_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    int r = x->rank, dt = x->dtype, code = n->code;
    uint64_t m = gc_numel(y), total = gc_numel(x);
    int32_t idx[GC_MAX_RANK] = { 0 };
    if (dt == GC_T_FLOAT32) {
        /* fp16: half sums where the runtime's model says so (fp16-acc: always) */
        const bool a16 = ctx->acc16 || (ctx->hm && ctx->hm->reduce == GC_ACC_F16);
        if (!ctx->reference && code != GC_OP_REDUCE_ANY && code != GC_OP_REDUCE_ALL) {
            reduce_float(ctx, d, code, a16, (const float *)x->data, (float *)y->data);
            return GC_OK;
        }
#define RACC(v) (a16 ? gc_f16_round(v) : (v))
        float *acc = (float *)n->scratch[d->acc_slot];
        const float *xs = (const float *)x->data;
        float init = code == GC_OP_REDUCE_MAX ? -INFINITY : code == GC_OP_REDUCE_MIN ? INFINITY :
                     code == GC_OP_REDUCE_PROD ? 1.0f : 0.0f;
        for (uint64_t o = 0; o < m; o++) acc[o] = init;
        int64_t oo = 0;
        for (uint64_t i = 0; i < total; i++) {
            float v = xs[i];
            float *a = &acc[oo];
            switch (code) {
            case GC_OP_REDUCE_MAX: if (v > *a || isnan(v)) *a = v; break;
            case GC_OP_REDUCE_MIN: if (v < *a || isnan(v)) *a = v; break;
            case GC_OP_REDUCE_PROD: *a = RACC(*a * v); break;
            default: *a = RACC(*a + v); break;
            }
            for (int k = r - 1; k >= 0; k--) {
                oo += d->ostride[k];
                if (++idx[k] < x->shape[k]) break;
                oo -= d->ostride[k] * x->shape[k]; idx[k] = 0;
            }
        }
        float *ys = (float *)y->data;
        for (uint64_t o = 0; o < m; o++)
            ys[o] = code == GC_OP_MEAN ? RACC(acc[o] / (float)d->count) : acc[o];
#undef RACC
        return GC_OK;
    }
    /* integers: int64 accumulators (exact); bool via 0/1 */
    int64_t *acc = (int64_t *)n->scratch[d->acc_slot];
    int64_t init = code == GC_OP_REDUCE_MAX ? INT64_MIN : code == GC_OP_REDUCE_MIN ? INT64_MAX :
                   (code == GC_OP_REDUCE_PROD || code == GC_OP_REDUCE_ALL) ? 1 : 0;
    for (uint64_t o = 0; o < m; o++) acc[o] = init;
    int64_t oo = 0;
    if (d->blk) { sum_blk_q(d, x->data, dt == GC_T_INT8, acc); total = 0; }
    for (uint64_t i = 0; i < total; i++) {
        int64_t v = gc_is_qint(dt) ? gc_qget(dt, x->data, (size_t)i) : gc_get_int(x, (size_t)i);
        int64_t *a = &acc[oo];
        switch (code) {
        case GC_OP_REDUCE_MAX: if (v > *a) *a = v; break;
        case GC_OP_REDUCE_MIN: if (v < *a) *a = v; break;
        case GC_OP_REDUCE_PROD: *a *= v; break;
        case GC_OP_REDUCE_ANY: *a = *a || v; break;
        case GC_OP_REDUCE_ALL: *a = *a && v; break;
        default: *a += v; break;
        }
        for (int k = r - 1; k >= 0; k--) {
            oo += d->ostride[k];
            if (++idx[k] < x->shape[k]) break;
            oo -= d->ostride[k] * x->shape[k]; idx[k] = 0;
        }
    }
    for (uint64_t o = 0; o < m; o++) {
        int64_t v = acc[o];
        if (d->xnn) {
            int32_t lo, hi; gc_qrange(dt, &lo, &hi);
            gc_qset(dt, y->data, (size_t)o, gc_q_xnn((int32_t)(v - (int64_t)d->count * x->zp), d->xscale, y->zp, lo, hi));
        } else if (gc_is_qint(dt) && code == GC_OP_MEAN && d->qmode != Q_FLOAT) {
            int32_t lo, hi; gc_qrange(dt, &lo, &hi);
            int64_t q, N = (int64_t)d->count;
            if (d->qmode == Q_SAME) q = v / N;
            else if (d->qmode == Q_HW_U8) q = (int64_t)gc_q_mul((int32_t)v, d->qm, d->qs) + d->qbias;
            else {
                int32_t a = gc_q_mul((int32_t)(v - N * x->zp), d->qm, d->qs);
                q = (a > 0 ? (a + N / 2) / N : (a - N / 2) / N) + y->zp;
            }
            gc_qset(dt, y->data, (size_t)o, gc_clamp_i32(q, lo, hi));
        } else if (gc_is_qint(dt) && (code == GC_OP_MEAN || code == GC_OP_SUM)) {
            int32_t lo, hi; gc_qrange(dt, &lo, &hi);
            float scale = x->scale / y->scale, res;
            if (code == GC_OP_MEAN) {
                float bias = -(float)x->zp * scale;
                float mean = (float)v / (float)d->count;
                res = roundf(mean * scale + bias) + (float)y->zp;
            } else {
                float bias = -(float)x->zp * scale * (float)d->count;
                res = roundf((float)v * scale + bias) + (float)y->zp;
            }
            res = res < (float)lo ? (float)lo : res > (float)hi ? (float)hi : res;
            gc_qset(dt, y->data, (size_t)o, (int32_t)res);
        } else if (gc_is_qint(dt)) {
            gc_qset(dt, y->data, (size_t)o, (int32_t)v);
        } else if (code == GC_OP_MEAN) {
            GC_ENSURE(ctx, d->count > 0, "mean of nothing");
            v /= (int64_t)d->count;
            if (dt == GC_T_INT64) ((int64_t *)y->data)[o] = v; else ((int32_t *)y->data)[o] = (int32_t)v;
        } else if (dt == GC_T_BOOL) y->data[o] = v != 0;
        else if (dt == GC_T_INT64) ((int64_t *)y->data)[o] = v;
        else ((int32_t *)y->data)[o] = (int32_t)v;
    }
    return GC_OK;
}

/* ---- ARG_MAX / ARG_MIN ------------------------------------------------------------------ */

typedef struct { int axis; uint64_t outer, len, inner; bool fast; int isa; } arg_data;

static gc_status arg_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "axis"));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, y->dtype == GC_T_INT32 || y->dtype == GC_T_INT64, "output must be INT32 or INT64");
    GC_UNSUP(ctx, x->dtype == GC_T_FLOAT32 || x->dtype == GC_T_INT32 || x->dtype == GC_T_INT64 || gc_is_qint(x->dtype) ||
             x->dtype == GC_T_BOOL, "%s on %s", n->name, gc_type_name(x->dtype));
    int a = gc_axis((int)gc_get_int(n->in[1], 0), x->rank);
    GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis out of range");
    arg_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->axis = a; d->outer = 1; d->inner = 1; d->len = (uint64_t)x->shape[a];
    d->fast = ctx->fast && (x->dtype == GC_T_INT8 || x->dtype == GC_T_UINT8 || x->dtype == GC_T_FLOAT32);
    d->isa = ctx->isa;
    int32_t shp[GC_MAX_RANK]; int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i < a) d->outer *= (uint64_t)x->shape[i];
        if (i > a) d->inner *= (uint64_t)x->shape[i];
        if (i != a) shp[r++] = x->shape[i];
    }
    n->data = d;
    return gc_set_shape(ctx, y, r, shp);
}

static double elem_d(const gc_rt *t, uint64_t i) {
    if (t->dtype == GC_T_FLOAT32) return ((const float *)t->data)[i];
    if (gc_is_qint(t->dtype)) return gc_qget(t->dtype, t->data, (size_t)i);
    return (double)gc_get_int(t, (size_t)i);
}

/* ctx->fast: the same scan on the typed values (int8 / uint8 / float32 convert to double
 * exactly, so the comparisons are the reference's), the index written as it is found */
#define ARG_FAST(T, CMP)                                                                           \
    for (uint64_t o = 0; o < d->outer; o++)                                                        \
        for (uint64_t in = 0; in < d->inner; in++) {                                               \
            const T *xp = (const T *)x->data + o * d->len * d->inner + in;                         \
            uint64_t best = 0;                                                                     \
            T bv = xp[0];                                                                          \
            for (uint64_t k = 1; k < d->len; k++) {                                                \
                const T v = xp[k * d->inner];                                                      \
                if (v CMP bv) { bv = v; best = k; }                                                \
            }                                                                                      \
            uint64_t oi = o * d->inner + in;                                                       \
            if (y->dtype == GC_T_INT64) ((int64_t *)y->data)[oi] = (int64_t)best;                  \
            else ((int32_t *)y->data)[oi] = (int32_t)best;                                         \
        }

static void arg_fast(const arg_data *d, const gc_rt *x, gc_rt *y, bool mx) {
    /* 8 bits over the last axis: a row at a time on vectors (qelem8.h) */
    if ((x->dtype == GC_T_INT8 || x->dtype == GC_T_UINT8) && d->inner == 1 && d->len <= 32 &&
        gc_q8arg_rows(d->isa, x->data, (int64_t)d->outer, (int32_t)d->len, x->dtype == GC_T_INT8, mx,
                      y->dtype == GC_T_INT64, y->data))
        return;
    switch (x->dtype) {
    case GC_T_INT8: if (mx) { ARG_FAST(int8_t, >) } else { ARG_FAST(int8_t, <) } break;
    case GC_T_UINT8: if (mx) { ARG_FAST(uint8_t, >) } else { ARG_FAST(uint8_t, <) } break;
    default: if (mx) { ARG_FAST(float, >) } else { ARG_FAST(float, <) } break;
    }
}
#undef ARG_FAST

static gc_status arg_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    arg_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    bool mx = n->code == GC_OP_ARG_MAX;
    if (d->fast) { arg_fast(d, x, y, mx); return GC_OK; }
    for (uint64_t o = 0; o < d->outer; o++)
        for (uint64_t in = 0; in < d->inner; in++) {
            uint64_t best = 0;
            double bv = elem_d(x, o * d->len * d->inner + in);
            for (uint64_t k = 1; k < d->len; k++) {
                double v = elem_d(x, (o * d->len + k) * d->inner + in);
                if (mx ? v > bv : v < bv) { bv = v; best = k; }
            }
            uint64_t oi = o * d->inner + in;
            if (y->dtype == GC_T_INT64) ((int64_t *)y->data)[oi] = (int64_t)best;
            else ((int32_t *)y->data)[oi] = (int32_t)best;
        }
    return GC_OK;
}

/* ---- CUMSUM --------------------------------------------------------------------------------- */

typedef struct { arg_data a; bool exclusive, reverse; } cumsum_data;

static gc_status cumsum_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "axis"));
    gc_rt *x = n->in[0];
    GC_UNSUP(ctx, x->dtype == GC_T_FLOAT32 || x->dtype == GC_T_INT32 || x->dtype == GC_T_INT64, "CUMSUM on %s", gc_type_name(x->dtype));
    int a = gc_axis((int)gc_get_int(n->in[1], 0), x->rank);
    GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis out of range");
    cumsum_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->a.axis = a; d->a.outer = 1; d->a.inner = 1; d->a.len = (uint64_t)x->shape[a];
    for (int i = 0; i < x->rank; i++) {
        if (i < a) d->a.outer *= (uint64_t)x->shape[i];
        if (i > a) d->a.inner *= (uint64_t)x->shape[i];
    }
    d->exclusive = gc_opt_int(gc_opts(n), GC_O_CumsumOptions_exclusive) != 0;
    d->reverse = gc_opt_int(gc_opts(n), GC_O_CumsumOptions_reverse) != 0;
    n->data = d;
    return gc_set_shape(ctx, n->out[0], x->rank, x->shape);
}

static gc_status cumsum_eval(gc_ctx *ctx, gc_node *n) {
    cumsum_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    for (uint64_t o = 0; o < d->a.outer; o++)
        for (uint64_t in = 0; in < d->a.inner; in++) {
            int64_t acci = 0; float accs = 0;
            for (uint64_t j = 0; j < d->a.len; j++) {
                uint64_t k = d->reverse ? d->a.len - 1 - j : j;
                uint64_t i = (o * d->a.len + k) * d->a.inner + in;
                if (x->dtype == GC_T_FLOAT32) {
                    float v = ((const float *)x->data)[i];
                    if (!d->exclusive) accs = gc_racc(ctx, accs + v);
                    ((float *)y->data)[i] = accs;
                    if (d->exclusive) accs = gc_racc(ctx, accs + v);
                } else {
                    int64_t v = gc_get_int(x, (size_t)i);
                    if (!d->exclusive) acci += v;
                    if (x->dtype == GC_T_INT64) ((int64_t *)y->data)[i] = acci; else ((int32_t *)y->data)[i] = (int32_t)acci;
                    if (d->exclusive) acci += v;
                }
            }
        }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_mean) = { "MEAN", reduce_prepare, reduce_eval, 0 };
const gc_kernel GC_K(gc_k_sum) = { "SUM", reduce_prepare, reduce_eval, 0 };
const gc_kernel GC_K(gc_k_reduce_max) = { "REDUCE_MAX", reduce_prepare, reduce_eval, 0 };
const gc_kernel GC_K(gc_k_reduce_min) = { "REDUCE_MIN", reduce_prepare, reduce_eval, 0 };
const gc_kernel GC_K(gc_k_reduce_prod) = { "REDUCE_PROD", reduce_prepare, reduce_eval, 0 };
const gc_kernel GC_K(gc_k_reduce_any) = { "REDUCE_ANY", reduce_prepare, reduce_eval, 0 };
const gc_kernel GC_K(gc_k_reduce_all) = { "REDUCE_ALL", reduce_prepare, reduce_eval, 0 };
const gc_kernel GC_K(gc_k_arg_max) = { "ARG_MAX", arg_prepare, arg_eval, 0 };
const gc_kernel GC_K(gc_k_arg_min) = { "ARG_MIN", arg_prepare, arg_eval, 0 };
const gc_kernel GC_K(gc_k_cumsum) = { "CUMSUM", cumsum_prepare, cumsum_eval, 0 };
