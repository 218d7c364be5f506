/* svdf.c — SVDF (TFLite's builtin: a fully connected layer factored into a feature
 * filter and a time filter, with a memory of past feature activations).
 *
 * Inputs: 0 x [batch, in]; 1 weights_feature [F, in] (F = units * rank filters);
 * 2 weights_time [F, M] (M = memory); 3 bias [units] (optional); 4 state [batch, F*M]
 * (a variable tensor: persists across invokes, zero at prepare). Output [batch, units].
 * Options: rank, fused_activation_function, asymmetric_quantize_inputs (hybrid).
 *
 * Per invoke (TFLite's reference_ops::Eval*SVDF, state row-major [batch][filter][memory]):
 *   1. the whole state shifts left by one element (the oldest activation of each filter
 *      drops out; the slot it frees is overwritten next);
 *   2. feature: state[b][f][M-1] = weights_feature[f] . x[b] (float: a dot product from 0,
 *      in index order);
 *   3. time: s[b][f] = weights_time[f] . state[b][f] (index order);
 *   4. y[b][u] = sum of s[b][u*rank .. u*rank+rank-1] (in order), + bias[u], then the
 *      fused activation (NONE, RELU, RELU_N1_TO_1, RELU6, TANH).
 * Types:
 *   float32          all float (float64 in the double build);
 *   hybrid           x float, weights_feature INT8 (per-tensor scale s_f), weights_time
 *                    INT8 dequantized w * s_t once: step 2 quantizes each batch row of x
 *                    (hybrid.h: symmetric, or asymmetric with asymmetric_quantize_inputs)
 *                    and computes (sum q w - zp * sum w) * (s_x * s_f), skipped (0) when x
 *                    is all zero; the rest in float. fp16/fp64 modes use the float path on
 *                    dequantized weights (hybrid.h's rule);
 *   int8 (integer)   x INT8 (zp z_x), weights_feature INT8, weights_time INT16, bias INT32,
 *                    state INT16 (zp 0), output INT8 (z_y); activation must be RELU (TFLite
 *                    refuses others; no clamp beyond int8 is applied, as in TFLite):
 *                    step 2: clamp16(MBQM(sum w (x - z_x), s_x s_f / s_state)); step 3 in
 *                    int32; step 4: clamp8(MBQM(sum + bias, s_state s_t / s_y) + z_y).
 *                    MBQM: TFLite's MultiplyByQuantizedMultiplier (quant.h), multipliers
 *                    from the double products of the float scales. Sums wrap as int32.
 *                    Fast path (ctx->fast; qgemm8_mv.h): step 2 as sum w x - z_x sum w
 *                    by gc_q8mv, step 3 by gc_q16_rowdots: the same residues mod 2^32,
 *                    so the same bits.
 */
#include "interp/interp_impl.h"
#include "interp/hybrid.h"
#ifndef GC_FP64_BUILD
#include "interp/kernels/qgemm8_mv.h"
#endif

enum { S_X = 0, S_WF, S_WT, S_B, S_STATE };
enum { SV_FLOAT, SV_HYBRID, SV_INT8 };

typedef struct {
    int kind, B, I, F, M, U, rank, act;
    bool asym;
    float *wt;                  /* hybrid / fp16 / fp64: dequantized weights_time [F, M] */
    float *wf;                  /* fp16 / fp64 on hybrid weights: dequantized features */
    int32_t *row_sums;          /* hybrid asymmetric: sum_c weights_feature[f][c] */
    gc_f32 sf;                  /* hybrid: weights_feature scale */
    int32_t m1, m2; int sh1, sh2, zx, zy;
    int scratch;                /* F floats / int32 per batch row, + quantized x row */
#ifndef GC_FP64_BUILD
    gc_q8mv *mv;                /* int8 fast path: weights_feature packed (NULL: the loops) */
    int32_t *wf_sum;            /* its row sums */
    gc_q8level lv;
#endif
} svdf_data;

static gc_status svdf_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_SVDFOptions));
    GC_TRY(gc_check_arity(ctx, n, 5, 5, 1));
    GC_ENSURE(ctx, n->in[S_STATE] != NULL, "input 4 (state) is required");
    gc_rt *x = n->in[S_X], *wf = n->in[S_WF], *wt = n->in[S_WT], *b = n->in[S_B], *st = n->in[S_STATE], *y = n->out[0];
    GC_ENSURE(ctx, x->rank == 2 && wf->rank == 2 && wt->rank == 2, "expects x [batch, in], weights_feature [F, in], "
              "weights_time [F, memory]");
    svdf_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    const gc_options *o = gc_opts(n);
    d->rank = (int)gc_opt_int(o, GC_O_SVDFOptions_rank);
    d->act = (int)gc_opt_int(o, GC_O_SVDFOptions_fused_activation_function);
    d->asym = gc_opt_int(o, GC_O_SVDFOptions_asymmetric_quantize_inputs) != 0;
    d->B = x->shape[0]; d->I = x->shape[1]; d->F = wf->shape[0]; d->M = wt->shape[1];
    GC_ENSURE(ctx, d->rank > 0 && d->F % d->rank == 0, "rank %d does not divide the %d filters", d->rank, d->F);
    d->U = d->F / d->rank;
    GC_ENSURE(ctx, wf->shape[1] == d->I, "weights_feature has %d columns, the input %d", (int)wf->shape[1], d->I);
    GC_ENSURE(ctx, wt->shape[0] == d->F && d->M > 0, "weights_time must be [%d, memory > 0]", d->F);
    GC_ENSURE(ctx, !b || (b->rank == 1 && b->shape[0] == d->U), "bias must be [%d]", d->U);
    GC_ENSURE(ctx, st->kind == GC_RT_VAR, "the state (tensor %d) must be a variable tensor", (int)st->index);
    GC_ENSURE(ctx, st->rank == 2 && st->shape[0] == d->B && (int64_t)st->shape[1] == (int64_t)d->F * d->M,
              "state must be [%d, %lld]", d->B, (long long)d->F * d->M);
    GC_UNSUP(ctx, d->act >= GC_ACT_NONE && d->act <= GC_ACT_TANH, "fused activation %d is not supported", d->act);
    bool fx = gc_is_float(x->dtype);
    if (x->dtype == GC_T_INT8) {
        d->kind = SV_INT8;
        GC_UNSUP(ctx, wf->dtype == GC_T_INT8 && wt->dtype == GC_T_INT16 && st->dtype == GC_T_INT16 &&
                 y->dtype == GC_T_INT8 && (!b || b->dtype == GC_T_INT32),
                 "integer SVDF needs INT8 x / weights_feature / output, INT16 weights_time / state, INT32 bias");
        GC_UNSUP(ctx, d->act == GC_ACT_RELU, "integer SVDF supports only RELU (as TFLite), activation is %d", d->act);
        GC_ENSURE(ctx, x->scale > 0 && wf->scale > 0 && wt->scale > 0 && st->scale > 0 && y->scale > 0,
                  "integer SVDF needs per-tensor scales on x, weights, state and output");
        double e1 = (double)x->scale * (double)wf->scale / (double)st->scale;
        double e2 = (double)st->scale * (double)wt->scale / (double)y->scale;
        gc_q_multiplier(e1, &d->m1, &d->sh1);
        gc_q_multiplier(e2, &d->m2, &d->sh2);
        d->zx = x->zp; d->zy = y->zp;
        d->scratch = gc_ctx_scratch(ctx, n, (size_t)d->B * d->F * sizeof(int32_t) + 64);
#ifndef GC_FP64_BUILD
        d->lv = ctx->fast ? gc_q8_level(ctx->isa) : GC_Q8_SCALAR;
        size_t nb = gc_q8mv_bytes(d->lv, d->F, d->I);
        if (nb && wf->known) {
            d->mv = gc_ctx_alloc(ctx, sizeof *d->mv);
            void *mem = gc_ctx_alloc(ctx, nb);
            d->wf_sum = gc_ctx_alloc(ctx, (size_t)d->F * sizeof(int32_t));
            if (!d->mv || !mem || !d->wf_sum) return GC_ERR_NOMEM;
            gc_q8mv_init(d->mv, d->lv, (const int8_t *)wf->data, d->F, d->I, mem);
            for (int f = 0; f < d->F; f++) {
                uint32_t sum = 0;
                for (int c = 0; c < d->I; c++) sum += (uint32_t)(int32_t)((const int8_t *)wf->data)[(size_t)f * d->I + c];
                d->wf_sum[f] = (int32_t)sum;
            }
            d->scratch = gc_ctx_scratch(ctx, n, (size_t)d->B * d->F * sizeof(int32_t) + 64 + gc_q8mv_scratch_bytes(d->mv));
            n->fast = true;
        } else d->lv = GC_Q8_SCALAR;
#endif
    } else {
        GC_UNSUP(ctx, fx && gc_is_float(y->dtype) && gc_is_float(st->dtype) && (!b || gc_is_float(b->dtype)),
                 "SVDF of %s input is not supported (float32, hybrid or int8)", gc_type_name(x->dtype));
        bool hyb = wf->dtype == GC_T_INT8;
        GC_UNSUP(ctx, hyb ? wt->dtype == GC_T_INT8 || gc_is_float(wt->dtype) : gc_is_float(wf->dtype) && gc_is_float(wt->dtype),
                 "weights %s / %s are not supported (float32, or INT8 for hybrid)", gc_type_name(wf->dtype),
                 gc_type_name(wt->dtype));
        size_t nwt = (size_t)d->F * d->M, nwf = (size_t)d->F * d->I;
        if (wt->dtype == GC_T_INT8) {
            GC_ENSURE(ctx, wt->known && wt->scale > 0, "INT8 weights_time must be constant with a per-tensor scale");
            d->wt = gc_ctx_alloc(ctx, nwt * sizeof(float));
            if (!d->wt) return GC_ERR_NOMEM;
            for (size_t i = 0; i < nwt; i++) {
                gc_f32 v = (gc_f32)((const int8_t *)wt->data)[i] * (gc_f32)wt->scale;
                d->wt[i] = ctx->fp16 ? gc_f16_round(v) : v;
            }
        }
        d->kind = hyb ? SV_HYBRID : SV_FLOAT;
        if (hyb) {
            GC_ENSURE(ctx, wf->known && wf->scale > 0 && wf->zp == 0, "INT8 weights_feature must be constant, per-tensor, zero point 0");
            d->sf = wf->scale;
            if (ctx->fp16 || ctx->fp64) {            /* the GPU's / the float semantics: dequantized */
                d->wf = gc_ctx_alloc(ctx, nwf * sizeof(float));
                if (!d->wf) return GC_ERR_NOMEM;
                for (size_t i = 0; i < nwf; i++) {
                    gc_f32 v = (gc_f32)((const int8_t *)wf->data)[i] * d->sf;
                    d->wf[i] = ctx->fp16 ? gc_f16_round(v) : v;
                }
                d->kind = SV_FLOAT;
            } else {
                d->row_sums = gc_ctx_alloc(ctx, (size_t)d->F * sizeof(int32_t));
                if (!d->row_sums) return GC_ERR_NOMEM;
                for (int f = 0; f < d->F; f++) {
                    int32_t s = 0;
                    for (int c = 0; c < d->I; c++) s += ((const int8_t *)wf->data)[(size_t)f * d->I + c];
                    d->row_sums[f] = s;
                }
            }
        }
        d->scratch = gc_ctx_scratch(ctx, n, (size_t)d->B * d->F * sizeof(float) + (size_t)d->I + 64);
    }
    n->data = d;
    int32_t shp[2] = { d->B, d->U };
    return gc_set_shape(ctx, y, 2, shp);
}

static float svdf_act(int act, float v) {
    switch (act) {
    case GC_ACT_RELU: return v < 0 ? 0 : v;
    case GC_ACT_RELU_N1_TO_1: return v < -1 ? -1 : v > 1 ? 1 : v;
    case GC_ACT_RELU6: return v < 0 ? 0 : v > 6 ? 6 : v;
    case GC_ACT_TANH: return tanhf(v);
    default: return v;
    }
}

#ifndef GC_FP64_BUILD
#define FAST_SVDF(d) ((d)->mv != NULL)
#else
#define FAST_SVDF(d) false
#endif

static gc_status svdf_eval_int8(const svdf_data *d, gc_node *n) {
    const int B = d->B, I = d->I, F = d->F, M = d->M, U = d->U, R = d->rank;
    const int8_t *x = (const int8_t *)n->in[S_X]->data, *wf = (const int8_t *)n->in[S_WF]->data;
    const int16_t *wt = (const int16_t *)n->in[S_WT]->data;
    const int32_t *bias = n->in[S_B] ? (const int32_t *)n->in[S_B]->data : NULL;
    int16_t *st = (int16_t *)n->in[S_STATE]->data;
    int8_t *y = (int8_t *)n->out[0]->data;
    int32_t *s = (int32_t *)n->scratch[d->scratch];
    size_t total = (size_t)B * F * M;
    memmove(st, st + 1, (total - 1) * sizeof *st);
#ifndef GC_FP64_BUILD
    if (d->mv) {
        for (int b = 0; b < B; b++) {
            gc_q8mv_run(d->mv, x + (size_t)b * I, s + (size_t)B * F + 16, s);
            for (int f = 0; f < F; f++) {
                uint32_t acc = (uint32_t)s[f] - (uint32_t)d->zx * (uint32_t)d->wf_sum[f];
                int32_t v = gc_q_mul((int32_t)acc, d->m1, d->sh1);
                st[((size_t)b * F + f) * M + M - 1] = (int16_t)gc_clamp_i32(v, -32768, 32767);
            }
        }
        gc_q16_rowdots(d->lv, wt, st, F, M, s);               /* batch row 0; wt is per filter */
        for (int b = 1; b < B; b++) gc_q16_rowdots(d->lv, wt, st + (size_t)b * F * M, F, M, s + (size_t)b * F);
    } else
#endif
    for (int b = 0; b < B; b++)
        for (int f = 0; f < F; f++) {
            uint32_t acc = 0;                      /* int32 arithmetic, wrapping */
            for (int c = 0; c < I; c++)
                acc += (uint32_t)((int32_t)wf[(size_t)f * I + c] * ((int32_t)x[(size_t)b * I + c] - d->zx));
            int32_t v = gc_q_mul((int32_t)acc, d->m1, d->sh1);
            st[((size_t)b * F + f) * M + M - 1] = (int16_t)gc_clamp_i32(v, -32768, 32767);
        }
    for (int b = 0; b < B && !FAST_SVDF(d); b++)
        for (int f = 0; f < F; f++) {
            uint32_t acc = 0;
            const int16_t *sp = st + ((size_t)b * F + f) * M, *wp = wt + (size_t)f * M;
            for (int m = 0; m < M; m++) acc += (uint32_t)((int32_t)wp[m] * (int32_t)sp[m]);
            s[(size_t)b * F + f] = (int32_t)acc;
        }
    for (int b = 0; b < B; b++)
        for (int u = 0; u < U; u++) {
            uint32_t acc = 0;
            for (int r = 0; r < R; r++) acc += (uint32_t)s[(size_t)b * F + (size_t)u * R + r];
            if (bias) acc += (uint32_t)bias[u];
            int32_t v = gc_q_mul((int32_t)acc, d->m2, d->sh2) + d->zy;
            y[(size_t)b * U + u] = (int8_t)gc_clamp_i32(v, -128, 127);
        }
    return GC_OK;
}

static gc_status svdf_eval(gc_ctx *ctx, gc_node *n) {
    const svdf_data *d = n->data;
    if (d->kind == SV_INT8) return svdf_eval_int8(d, n);
    const int B = d->B, I = d->I, F = d->F, M = d->M, U = d->U, R = d->rank;
    const float *x = (const float *)n->in[S_X]->data;
    const float *wt = d->wt ? d->wt : (const float *)n->in[S_WT]->data;
    const float *bias = n->in[S_B] ? (const float *)n->in[S_B]->data : NULL;
    float *st = (float *)n->in[S_STATE]->data, *y = (float *)n->out[0]->data;
    float *s = (float *)n->scratch[d->scratch];
    int8_t *q = (int8_t *)(s + (size_t)B * F);
    size_t total = (size_t)B * F * M;
    memmove(st, st + 1, (total - 1) * sizeof *st);
    if (d->kind == SV_HYBRID) {
        const int8_t *wf = (const int8_t *)n->in[S_WF]->data;
        bool zero = true;
        for (size_t i = 0; i < (size_t)B * I && zero; i++) zero = x[i] == 0;
        for (size_t i = 0; i < (size_t)B * F; i++) s[i] = 0;
        for (int b = 0; !zero && b < B; b++) {
            float sx; int32_t zp;
            gc_hq_quantize(d->asym ? GC_HQ_ASYMMETRIC : GC_HQ_SYMMETRIC, x + (size_t)b * I, (size_t)I, q, &sx, &zp);
            float scale = sx * d->sf;
            for (int f = 0; f < F; f++) {
                int32_t acc = 0;
                for (int c = 0; c < I; c++) acc += (int32_t)wf[(size_t)f * I + c] * (int32_t)q[c];
                if (d->asym) acc -= d->row_sums[f] * zp;
                s[(size_t)b * F + f] += (float)acc * scale;
            }
        }
    } else {
        const float *wf = d->wf ? d->wf : (const float *)n->in[S_WF]->data;
        for (int b = 0; b < B; b++)
            for (int f = 0; f < F; f++) {
                float acc = 0;
                for (int c = 0; c < I; c++) acc = gc_racc(ctx, acc + gc_racc(ctx, wf[(size_t)f * I + c] * x[(size_t)b * I + c]));
                s[(size_t)b * F + f] = acc;
            }
    }
    for (size_t i = 0; i < (size_t)B * F; i++) {
        float v = s[i];
        st[i * M + M - 1] = ctx->fp16 ? gc_f16_round(v) : v;    /* the GPU keeps state in half */
    }
    for (int b = 0; b < B; b++)
        for (int f = 0; f < F; f++) {
            float acc = 0;
            const float *sp = st + ((size_t)b * F + f) * M, *wp = wt + (size_t)f * M;
            for (int m = 0; m < M; m++) acc = gc_racc(ctx, acc + gc_racc(ctx, wp[m] * sp[m]));
            s[(size_t)b * F + f] = acc;
        }
    for (int b = 0; b < B; b++)
        for (int u = 0; u < U; u++) {
            float acc = 0;
            for (int r = 0; r < R; r++) acc = gc_racc(ctx, acc + s[(size_t)b * F + (size_t)u * R + r]);
            if (bias) acc = gc_racc(ctx, acc + bias[u]);
            y[(size_t)b * U + u] = svdf_act(d->act, acc);
        }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_svdf) = { "SVDF", svdf_prepare, svdf_eval, GC_K_NOFOLD };
