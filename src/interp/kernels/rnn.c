/* rnn.c — UNIDIRECTIONAL_SEQUENCE_LSTM (float32).
 *
 * Inputs (TFLite order): 0 x [time, batch, in] (options.time_major) or [batch, time, in];
 * 1-4 input-to-{input, forget, cell, output} weights [cell, in] (input gate absent =
 * CIFG: i = 1 - f); 5-8 recurrent-to-{i, f, c, o} weights [cell, out]; 9-11 peephole
 * cell-to-{i, f, o} [cell] (optional); 12-15 gate biases {i, f, c, o} [cell]; 16
 * projection weights [out, cell], 17 projection bias [out] (optional); 18 output state
 * [batch, out] and 19 cell state [batch, cell] (variable tensors: they persist across
 * invokes, zero at prepare, as TFLite); 20-23 layer-norm coefficients (not supported).
 * Options: fused_activation_function (the cell / output activation, usually TANH),
 * cell_clip, proj_clip (0 = none), time_major.
 *
 * Per time step and batch row (TFLite's reference order):
 *   z_g = b_g + W_g x_t + R_g h (+ p_g . c for i, f), each dot product summed in index
 *   order after the bias; i = sigma(z_i), f = sigma(z_f), g = act(z_c);
 *   c = f . c + i . g (clipped); o = sigma(z_o + p_o . c); h = o . act(c);
 *   h = P h + b_P (clipped) with projection; y_t = h.
 * INT8 LSTMs (int8 activations and weights, int16 cell state) go to lstm_int8.c.
 * fp16: weights rounded at prepare; the gates and states are rounded after every step
 *   (the GPU keeps them in half); fp16-acc also rounds inside each dot product.
 * fp32 fast path (ctx->fast): the constant gate weights transposed once ([in][cell]), so
 *   that the products run across the cells, each cell's sum in its own order (the same
 *   bits), vectorised by the compiler (vec_loops.h); other products sum several rows side
 *   by side.
 */
#include "interp/interp_impl.h"
#include "interp/kernels/vec_loops.h"

enum { L_X = 0, L_WI = 1, L_WF, L_WC, L_WO, L_RI, L_RF, L_RC, L_RO, L_PI, L_PF, L_PO,
       L_BI, L_BF, L_BC, L_BO, L_PW, L_PB, L_H, L_C };

typedef struct {
    int T, B, I, C, O;          /* time, batch, input, cell, output sizes */
    bool time_major, cifg, peep, proj;
    int act;
    float cell_clip, proj_clip;
    int gate_slot;              /* scratch: 4 * C floats + C for the projection input */
    float *wt[8];               /* fast path: weights L_WI .. L_RO transposed, [cols][rows] (else NULL) */
} lstm_data;

static float act_f(int act, float v) {
    switch (act) {
    case GC_ACT_RELU: return v < 0 ? 0 : v;
    case GC_ACT_RELU6: return v < 0 ? 0 : v > 6 ? 6 : v;
    case GC_ACT_RELU_N1_TO_1: return v < -1 ? -1 : v > 1 ? 1 : v;
    case GC_ACT_TANH: return tanhf(v);
    case GC_ACT_SIGN_BIT: return v < 0 ? 1.0f : 0.0f;
    default: return v;
    }
}
static float sigm(float v) { return 1.0f / (1.0f + expf(-v)); }

extern const gc_kernel gc_k_lstm_int8;   /* lstm_int8.c: integer-only, one build */

static gc_status lstm_prepare(gc_ctx *ctx, gc_node *n) {
    if (n->n_in > 0 && n->in[0] && n->in[0]->dtype == GC_T_INT8) {
        n->k = &gc_k_lstm_int8;
        return n->k->prepare(ctx, n);
    }
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_UnidirectionalSequenceLSTMOptions));
    GC_ENSURE(ctx, n->n_in >= 20 && n->n_out == 1, "expects 20-24 inputs and 1 output");
    for (int i = 20; i < n->n_in; i++) GC_UNSUP(ctx, n->in[i] == NULL, "layer-norm LSTM is not supported");
    gc_rt *x = n->in[L_X], *y = n->out[0];
    GC_UNSUP(ctx, x->dtype == GC_T_FLOAT32, "%s LSTM is not supported (float32 only)", gc_type_name(x->dtype));
    int req[] = { L_WF, L_WC, L_WO, L_RF, L_RC, L_RO, L_BF, L_BC, L_BO, L_H, L_C };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++) {
        GC_ENSURE(ctx, n->in[req[k]], "input %d is required", req[k]);
        GC_UNSUP(ctx, n->in[req[k]]->dtype == GC_T_FLOAT32, "input %d is %s (hybrid LSTM is not supported)",
                 req[k], gc_type_name(n->in[req[k]]->dtype));
    }
    lstm_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    const gc_options *o = gc_opts(n);
    d->time_major = gc_opt_int(o, GC_O_UnidirectionalSequenceLSTMOptions_time_major) != 0;
    d->act = (int)gc_opt_int(o, GC_O_UnidirectionalSequenceLSTMOptions_fused_activation_function);
    d->cell_clip = (float)gc_opt_float(o, GC_O_UnidirectionalSequenceLSTMOptions_cell_clip);
    d->proj_clip = (float)gc_opt_float(o, GC_O_UnidirectionalSequenceLSTMOptions_proj_clip);
    GC_ENSURE(ctx, x->rank == 3, "input must be 3-D");
    d->T = d->time_major ? x->shape[0] : x->shape[1];
    d->B = d->time_major ? x->shape[1] : x->shape[0];
    d->I = x->shape[2];
    d->C = n->in[L_WF]->shape[0];
    d->O = n->in[L_RF]->shape[1];
    d->cifg = n->in[L_WI] == NULL;
    d->peep = n->in[L_PF] != NULL;
    d->proj = n->in[L_PW] != NULL;
    GC_ENSURE(ctx, n->in[L_WF]->rank == 2 && n->in[L_WF]->shape[1] == d->I, "input weights must be [cell, input]");
    GC_ENSURE(ctx, n->in[L_RF]->rank == 2 && n->in[L_RF]->shape[0] == d->C, "recurrent weights must be [cell, output]");
    GC_ENSURE(ctx, d->proj || d->O == d->C, "output size %d differs from cell size %d without projection", d->O, d->C);
    GC_ENSURE(ctx, gc_numel(n->in[L_H]) == (uint64_t)d->B * d->O && gc_numel(n->in[L_C]) == (uint64_t)d->B * d->C,
              "state tensors have the wrong size");
    if (!d->cifg) GC_ENSURE(ctx, n->in[L_RI] && n->in[L_BI], "input gate weights without recurrent weights / bias");
    d->gate_slot = gc_ctx_scratch(ctx, n, (size_t)(5 * d->C + d->O) * sizeof(float));
    for (int k = L_WI; ctx->fast && k <= L_RO; k++) {
        const gc_rt *w = n->in[k];
        if (!w || !w->known || w->rank != 2) continue;
        const int rows = w->shape[0], cols = w->shape[1];
        float *t = gc_ctx_alloc(ctx, (size_t)rows * cols * sizeof(float));
        if (!t) return GC_ERR_NOMEM;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) t[(size_t)c * rows + r] = ((const float *)w->data)[(size_t)r * cols + c];
        d->wt[k - L_WI] = t;
        n->fast = true;
    }
    n->data = d;
    int32_t shp[3] = { x->shape[0], x->shape[1], d->O };
    return gc_set_shape(ctx, y, 3, shp);
}

/* acc[r] += W[r][:] . v  for r < rows (in index order) */
/* acc[r] += W[r] . v in k order, each product and sum rounded (fp16-acc: to half). Without
 * the half rounding (ctx->fast: fp32), NR rows at a time: the same operations on each row in the same order
 * (so the same bits), NR independent chains instead of one waiting on its add. */
static inline __attribute__((always_inline)) void rows_plain(const float *W, const float *v, int cols, float *acc,
                                                             const int NR) {
    float a[8];
#pragma GCC unroll 8
    for (int j = 0; j < NR; j++) a[j] = acc[j];
    for (int k = 0; k < cols; k++) {
        const float vk = v[k];
#pragma GCC unroll 8
        for (int j = 0; j < NR; j++) a[j] = a[j] + W[(size_t)j * cols + k] * vk;
    }
#pragma GCC unroll 8
    for (int j = 0; j < NR; j++) acc[j] = a[j];
}

/* acc[r] += W[r] . v from the transposed wt [cols][rows]: k outer, the cells inner */
GC_CLONES static void matvec_t(const float *restrict wt, const float *restrict v, int rows, int cols, float *restrict acc) {
    for (int k = 0; k < cols; k++) {
        const float vk = v[k], *w = wt + (size_t)k * rows;
        for (int r = 0; r < rows; r++) acc[r] = acc[r] + w[r] * vk;
    }
}

static void matvec_acc(const gc_ctx *ctx, const float *W, const float *v, int rows, int cols, float *acc) {
    int r = 0;
    if (ctx->fast) {                     /* fp32 without opts.reference_kernels */
        for (; r + 8 <= rows; r += 8) rows_plain(W + (size_t)r * cols, v, cols, acc + r, 8);
        for (; r + 4 <= rows; r += 4) rows_plain(W + (size_t)r * cols, v, cols, acc + r, 4);
        for (; r + 2 <= rows; r += 2) rows_plain(W + (size_t)r * cols, v, cols, acc + r, 2);
    }
    for (; r < rows; r++) {
        float a = acc[r];
        const float *w = W + (size_t)r * cols;
        for (int k = 0; k < cols; k++) a = gc_racc(ctx, a + gc_racc(ctx, w[k] * v[k]));
        acc[r] = a;
    }
}

static gc_status lstm_eval(gc_ctx *ctx, gc_node *n) {
    lstm_data *d = n->data;
    const int C = d->C, O = d->O, I = d->I;
#define F(k) ((const float *)(n->in[k] ? n->in[k]->data : NULL))
    float *hs = (float *)n->in[L_H]->data, *cs = (float *)n->in[L_C]->data;
    float *zi = (float *)n->scratch[d->gate_slot], *zf = zi + C, *zc = zf + C, *zo = zc + C, *hc = zo + C;
    const float *x = F(L_X);
    float *y = (float *)n->out[0]->data;
    for (int t = 0; t < d->T; t++)
        for (int b = 0; b < d->B; b++) {
            size_t row = d->time_major ? (size_t)t * d->B + b : (size_t)b * d->T + t;
            const float *xt = x + row * I;
            float *h = hs + (size_t)b * O, *c = cs + (size_t)b * C;
            for (int k = 0; k < C; k++) {
                zi[k] = d->cifg ? 0 : F(L_BI)[k];
                zf[k] = F(L_BF)[k]; zc[k] = F(L_BC)[k]; zo[k] = F(L_BO)[k];
            }
#define MV(k, v, cols, acc) (d->wt[(k) - L_WI] ? matvec_t(d->wt[(k) - L_WI], v, C, cols, acc) : matvec_acc(ctx, F(k), v, C, cols, acc))
            if (!d->cifg) { MV(L_WI, xt, I, zi); MV(L_RI, h, O, zi); }
            MV(L_WF, xt, I, zf); MV(L_RF, h, O, zf);
            MV(L_WC, xt, I, zc); MV(L_RC, h, O, zc);
            MV(L_WO, xt, I, zo); MV(L_RO, h, O, zo);
#undef MV
            for (int k = 0; k < C; k++) {
                float fg = sigm(zf[k] + (d->peep ? F(L_PF)[k] * c[k] : 0));
                float ig = d->cifg ? 1.0f - fg : sigm(zi[k] + (d->peep && F(L_PI) ? F(L_PI)[k] * c[k] : 0));
                float g = act_f(d->act, zc[k]);
                float cn = fg * c[k] + ig * g;
                if (d->cell_clip > 0) cn = cn > d->cell_clip ? d->cell_clip : cn < -d->cell_clip ? -d->cell_clip : cn;
                c[k] = ctx->fp16 ? gc_f16_round(cn) : cn;
                float og = sigm(zo[k] + (d->peep ? F(L_PO)[k] * c[k] : 0));
                float hv = og * act_f(d->act, c[k]);
                hc[k] = ctx->fp16 ? gc_f16_round(hv) : hv;
            }
            if (d->proj) {
                for (int k = 0; k < O; k++) h[k] = F(L_PB) ? F(L_PB)[k] : 0.0f;
                matvec_acc(ctx, F(L_PW), hc, O, C, h);
                for (int k = 0; k < O; k++) {
                    if (d->proj_clip > 0) h[k] = h[k] > d->proj_clip ? d->proj_clip : h[k] < -d->proj_clip ? -d->proj_clip : h[k];
                    if (ctx->fp16) h[k] = gc_f16_round(h[k]);
                }
            } else {
                memcpy(h, hc, (size_t)O * sizeof(float));
            }
            memcpy(y + row * O, h, (size_t)O * sizeof(float));
        }
#undef F
    return GC_OK;
}

const gc_kernel GC_K(gc_k_unidirectional_sequence_lstm) = { "UNIDIRECTIONAL_SEQUENCE_LSTM", lstm_prepare, lstm_eval, GC_K_NOFOLD };
