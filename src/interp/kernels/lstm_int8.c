/* lstm_int8.c — the integer UNIDIRECTIONAL_SEQUENCE_LSTM: int8 activations and weights,
 * int16 cell state (TFLite's "8x8_16" kernel: lstm_eval.cc EvalInteger8x8_16, the
 * parameters of unidirectional_sequence_lstm.cc PopulateQuantizedLstmParams8x8_16).
 * rnn.c hands INT8-input LSTMs here.
 *
 * Tensors (TFLite order, as rnn.c): x INT8 [T,B,I] / [B,T,I]; weights INT8 (input-to-gate
 * [C,I], recurrent [C,O], projection [O,C]); peepholes INT16 [C]; gate biases INT32 [C];
 * projection bias INT32 [O]; output state INT8 [B,O] and cell state INT16 [B,C] (variable
 * tensors); layer-norm coefficients INT16 [C] (all four or none: inputs 20-23). The op's
 * five intermediates carry scales: 0-3 the gate pre-activations (used with layer norm;
 * without it they are 2^-12, zero point 0), 4 the hidden state (scale s_h, zero point z_h).
 * The cell state's scale must be a power of two 2^cs (cs = log2, checked to 1e-3).
 *
 * Prepare (float products in float as TFLite computes them, then QuantizeMultiplier):
 *   input-to-gate g:     s_x s_w / s_g       recurrent-to-gate: s_h_out s_r / s_g
 *   cell-to-gate:        2^cs s_p / s_g      hidden: 2^-15 / s_h 2^-15 (double)
 *   projection:          s_P s_h / s_out     layer norm:  the coefficients' scale
 *   effective biases: b_g (none with layer norm) - z_x sum_row W; -z_out sum_row R;
 *   projection: b_P + z_h sum_row P. Clips: cell_clip / 2^cs -> int16, proj_clip / s_out
 *   -> int8 (truncated, 0 = none). Variance guards max(1, (int)(10000 s_ln)).
 * Per time step and batch row, gate order input, forget, cell (update), output:
 *   gate_g = clamp16(MBQM(bias_x + W x, m) + clamp16(MBQM(bias_r + R h, m)))
 *            (+ MBQM(p_g c, m) accumulated with clamp for peepholes)
 *   layer norm (integer: mean and variance in 2^10 units, the inverse square root of
 *   gemmlowp, rescaled by the coefficients and the bias, MBQM by the norm scale (+12));
 *   i, f, o = logistic(Q3.12 gate) in Q0.15; g = tanh(Q3.12 gate) in Q0.15;
 *   c = rdpot(f c, 15) +sat rdpot(i g, 30 + cs) (CIFG: i = 32767 - f); clipped;
 *   h = clamp8(MBQM(o tanh(c in Q(15+cs)), m_hidden) + z_h); with projection
 *   h = clamp8(MBQM(bias_P + P (o tanh(c) - z_h...), m_P) + z_out) as TFLite writes it,
 *   clipped; the output row is h. MBQM = MultiplyByQuantizedMultiplier (int32 products
 *   wrap as in TFLite's two's-complement arithmetic).
 * Peepholes with projection need the output size to equal the cell size (TFLite indexes
 * the cell state with the output size); otherwise refused. Not supported: the 8x8_8
 * LSTM builtin form, hybrid LSTMs (float x, int8 weights).
 */
#include "interp/interp_impl.h"
#include "interp/kernels/fixedpoint.h"
#include "interp/kernels/qgemm8_mv.h"

enum { L_X = 0, L_WI = 1, L_WF, L_WC, L_WO, L_RI, L_RF, L_RC, L_RO, L_PI, L_PF, L_PO,
       L_BI, L_BF, L_BC, L_BO, L_PW, L_PB, L_H, L_C, L_NI, L_NF, L_NC, L_NO };

typedef struct { int32_t m; int s; } mq;            /* a quantized multiplier */

typedef struct {
    int T, B, I, C, O, cs;
    bool time_major, cifg, peep, proj, ln;
    mq in[4], rec[4], cell[4], ln_s[4], hid, prj;
    int32_t var_guard[4], hidden_zp, out_zp;
    int16_t cell_clip;
    int8_t proj_clip;
    int32_t *eb_in[4], *eb_rec[4], *eb_prj;         /* effective biases */
    int slot;                                       /* scratch: 4 gates (int16) + int16 + int8 rows */
    /* fast path (ctx->fast; qgemm8_mv.h): the products W x, R h and P h packed; NULL where
     * the gate is absent or the level is scalar */
    gc_q8mv *mv_in[4], *mv_rec[4], *mv_prj;
    int mv_slot;                                    /* scratch: C int32 dots + the vector's encoding */
} ilstm;

/* TFLite MultiplyByQuantizedMultiplier, the left shift wrapping like its int32 product */
static inline int32_t mbqm(int32_t x, mq q) {
    int left = q.s > 0 ? q.s : 0, right = q.s > 0 ? 0 : -q.s;
    return fp_rdpot(fp_srdhm32((int32_t)((uint32_t)x * ((uint32_t)1 << left)), q.m), right);
}
static mq quantize_mult(double m) { mq r; gc_q_multiplier(m, &r.m, &r.s); return r; }

static const gc_tensor *intermediate(gc_ctx *ctx, const gc_node *n, int k) {
    if (k >= n->op->n_intermediates) return NULL;
    int32_t t = n->op->intermediates[k];
    return t >= 0 && t < ctx->f->s->n_tensors ? &ctx->f->s->tensors[t] : NULL;
}
static bool tq(const gc_tensor *t, float *s, int32_t *zp) {
    if (!t || !t->quant || t->quant->n_scale < 1) return false;
    *s = t->quant->scale[0];
    *zp = t->quant->n_zero_point ? (int32_t)t->quant->zero_point[0] : 0;
    return true;
}

/* bias (or 0) + scalar * row sums of W [rows, cols] */
static int32_t *eff_bias(gc_ctx *ctx, const gc_rt *w, const gc_rt *bias, int32_t scalar) {
    if (!w) return NULL;
    int rows = w->shape[0], cols = w->shape[1];
    int32_t *o = gc_ctx_alloc(ctx, (size_t)rows * sizeof(int32_t));
    if (!o) return NULL;
    for (int r = 0; r < rows; r++) {
        uint32_t s = 0;
        for (int c = 0; c < cols; c++) s += (uint32_t)(int32_t)((const int8_t *)w->data)[(size_t)r * cols + c];
        o[r] = (int32_t)((uint32_t)(bias ? ((const int32_t *)bias->data)[r] : 0) + s * (uint32_t)scalar);
    }
    return o;
}

static gc_status ilstm_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_UnidirectionalSequenceLSTMOptions));
    GC_ENSURE(ctx, (n->n_in == 20 || n->n_in == 24) && n->n_out == 1, "expects 20 or 24 inputs and 1 output");
    gc_rt *x = n->in[L_X], *y = n->out[0];
#define IN(k) (k < n->n_in ? n->in[k] : NULL)
    ilstm *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    const gc_options *o = gc_opts(n);
    d->time_major = gc_opt_int(o, GC_O_UnidirectionalSequenceLSTMOptions_time_major) != 0;
    float cell_clip = (float)gc_opt_float(o, GC_O_UnidirectionalSequenceLSTMOptions_cell_clip);
    float proj_clip = (float)gc_opt_float(o, GC_O_UnidirectionalSequenceLSTMOptions_proj_clip);
    GC_ENSURE(ctx, x->rank == 3, "input must be 3-D");
    int req[] = { L_WF, L_WC, L_WO, L_RF, L_RC, L_RO, L_BF, L_BC, L_BO, L_H, L_C };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++) GC_ENSURE(ctx, IN(req[k]), "input %d is required", req[k]);
    d->cifg = IN(L_WI) == NULL;
    d->peep = IN(L_PO) != NULL;
    d->proj = IN(L_PW) != NULL;
    d->ln = IN(L_NF) != NULL;
    d->T = d->time_major ? x->shape[0] : x->shape[1];
    d->B = d->time_major ? x->shape[1] : x->shape[0];
    d->I = x->shape[2];
    d->C = IN(L_WO)->shape[0];
    d->O = IN(L_RO)->rank == 2 ? IN(L_RO)->shape[1] : 0;
    const int W[4] = { L_WI, L_WF, L_WC, L_WO }, R[4] = { L_RI, L_RF, L_RC, L_RO }, P[4] = { L_PI, L_PF, -1, L_PO },
              BI[4] = { L_BI, L_BF, L_BC, L_BO }, NL[4] = { L_NI, L_NF, L_NC, L_NO };
    for (int g = 0; g < 4; g++) {
        if (g == 0 && d->cifg) {
            GC_ENSURE(ctx, !IN(L_RI) && !IN(L_BI) && !IN(L_PI) && !IN(L_NI), "CIFG LSTM with input-gate tensors");
            continue;
        }
        gc_rt *w = IN(W[g]), *r = IN(R[g]), *b = IN(BI[g]);
        GC_ENSURE(ctx, w && r && b, "gate %d lacks weights or bias", g);
        GC_UNSUP(ctx, w->dtype == GC_T_INT8 && r->dtype == GC_T_INT8 && b->dtype == GC_T_INT32 && w->known && r->known && b->known,
                 "gate %d: integer LSTM needs constant INT8 weights and INT32 bias (have %s / %s / %s)", g,
                 gc_type_name(w->dtype), gc_type_name(r->dtype), gc_type_name(b->dtype));
        GC_ENSURE(ctx, w->rank == 2 && w->shape[0] == d->C && w->shape[1] == d->I, "gate %d input weights must be [%d, %d]", g, d->C, d->I);
        GC_ENSURE(ctx, r->rank == 2 && r->shape[0] == d->C && r->shape[1] == d->O, "gate %d recurrent weights must be [%d, %d]", g, d->C, d->O);
        GC_ENSURE(ctx, gc_numel(b) == (uint64_t)d->C, "gate %d bias must have %d values", g, d->C);
        GC_ENSURE(ctx, w->scale > 0 && r->scale > 0, "gate %d weights need per-tensor scales", g);
        if (P[g] >= 0 && d->peep) {
            gc_rt *p = IN(P[g]);
            GC_ENSURE(ctx, p && p->dtype == GC_T_INT16 && p->known && gc_numel(p) == (uint64_t)d->C && p->scale > 0,
                      "gate %d peephole must be a constant INT16 [%d] with a scale", g, d->C);
        }
        if (d->ln) {
            gc_rt *c = IN(NL[g]);
            GC_ENSURE(ctx, c && c->dtype == GC_T_INT16 && c->known && gc_numel(c) == (uint64_t)d->C && c->scale > 0,
                      "gate %d layer-norm coefficients must be a constant INT16 [%d] with a scale", g, d->C);
        }
    }
    gc_rt *hs = IN(L_H), *cst = IN(L_C);
    GC_UNSUP(ctx, y->dtype == GC_T_INT8 && hs->dtype == GC_T_INT8 && cst->dtype == GC_T_INT16,
             "integer LSTM needs INT8 output and output state, INT16 cell state");
    GC_ENSURE(ctx, hs->kind == GC_RT_VAR && cst->kind == GC_RT_VAR, "the states must be variable tensors");
    GC_ENSURE(ctx, gc_numel(hs) == (uint64_t)d->B * d->O && gc_numel(cst) == (uint64_t)d->B * d->C, "state tensors have the wrong size");
    GC_ENSURE(ctx, d->proj || d->O == d->C, "output size %d differs from cell size %d without projection", d->O, d->C);
    GC_UNSUP(ctx, !d->peep || d->O == d->C, "peepholes with output size %d != cell size %d (TFLite reads the cell "
             "state with the output size)", d->O, d->C);
    GC_ENSURE(ctx, x->scale > 0 && hs->scale > 0 && cst->scale > 0 && y->scale > 0, "x, states and output need per-tensor scales");
    GC_ENSURE(ctx, n->op->n_intermediates == 5, "integer LSTM needs 5 intermediate tensors, has %d", (int)n->op->n_intermediates);
    /* the cell scale: a power of two (TFLite CheckedLog2) */
    float l2 = logf(cst->scale) * (1.0f / logf(2.0f)), l2r = roundf(l2);
    GC_ENSURE(ctx, fabsf(l2 - l2r) < 1e-3f, "cell state scale %g is not a power of two", (double)cst->scale);
    d->cs = (int)l2r;
    GC_UNSUP(ctx, 15 + d->cs >= 0 && 15 + d->cs <= 6, "cell state scale 2^%d: tanh input with %d integer bits (0..6 supported, as TFLite)",
             d->cs, 15 + d->cs);
    float gs[4]; int32_t gz[4];
    for (int g = 0; g < 4; g++) {
        if (d->ln) {
            GC_ENSURE(ctx, tq(intermediate(ctx, n, g), &gs[g], &gz[g]) && gs[g] > 0, "intermediate %d has no quantization", g);
        } else { gs[g] = (float)pow(2, -12); gz[g] = 0; }
    }
    float sh; int32_t zh;
    GC_ENSURE(ctx, tq(intermediate(ctx, n, 4), &sh, &zh) && sh > 0, "intermediate 4 (hidden) has no quantization");
    float sx = x->scale, so = hs->scale;
    for (int g = 0; g < 4; g++) {
        if (g == 0 && d->cifg) continue;
        float sw = IN(W[g])->scale, sr = IN(R[g])->scale;
        d->in[g] = quantize_mult(sw * sx / gs[g]);
        d->rec[g] = quantize_mult(sr * so / gs[g]);
        if (d->peep && P[g] >= 0) d->cell[g] = quantize_mult((float)(pow(2, d->cs) * IN(P[g])->scale / gs[g]));
        float lns = d->ln ? IN(NL[g])->scale : 1.0f;
        d->ln_s[g] = quantize_mult(lns);
        int32_t vg = (int32_t)(10000 * lns);
        d->var_guard[g] = vg > 1 ? vg : 1;
        d->eb_in[g] = eff_bias(ctx, IN(W[g]), d->ln ? NULL : IN(BI[g]), -x->zp);
        d->eb_rec[g] = eff_bias(ctx, IN(R[g]), NULL, -hs->zp);
        if (!d->eb_in[g] || !d->eb_rec[g]) return GC_ERR_NOMEM;
    }
    float hidden = (float)(pow(2, -15) / sh * pow(2, -15));
    d->hid = quantize_mult(hidden);
    d->hidden_zp = zh;
    d->out_zp = hs->zp;
    if (d->proj) {
        gc_rt *pw = IN(L_PW), *pb = IN(L_PB);
        GC_UNSUP(ctx, pw->dtype == GC_T_INT8 && pw->known && pw->scale > 0 && (!pb || (pb->dtype == GC_T_INT32 && pb->known)),
                 "projection needs constant INT8 weights (scaled) and INT32 bias");
        GC_ENSURE(ctx, pw->rank == 2 && pw->shape[0] == d->O && pw->shape[1] == d->C && (!pb || gc_numel(pb) == (uint64_t)d->O),
                  "projection weights must be [%d, %d]", d->O, d->C);
        d->prj = quantize_mult(pw->scale * sh / so);
        d->eb_prj = eff_bias(ctx, pw, pb, zh);
        if (!d->eb_prj) return GC_ERR_NOMEM;
    }
    if (cell_clip > 0) {
        float v = cell_clip / cst->scale;
        d->cell_clip = (int16_t)(v > 32767.0f ? 32767.0f : v < -32768.0f ? -32768.0f : v);
    }
    if (proj_clip > 0) {
        float v = proj_clip / y->scale;
        d->proj_clip = (int8_t)(v > 127.0f ? 127.0f : v < -128.0f ? -128.0f : v);
    }
    size_t rows = (size_t)d->B * d->C;
    d->slot = gc_ctx_scratch(ctx, n, rows * 5 * sizeof(int16_t) + rows + 64);
    d->mv_slot = -1;
#ifndef GC_FP64_BUILD
    gc_q8level lv = ctx->fast ? gc_q8_level(ctx->isa) : GC_Q8_SCALAR;
    if (gc_q8mv_bytes(lv, d->C, d->I) && gc_q8mv_bytes(lv, d->C, d->O) && (!d->proj || gc_q8mv_bytes(lv, d->O, d->C))) {
        size_t need = 0;
        for (int g = 0; g < 5; g++) {
            if (g < 4 && g == 0 && d->cifg) continue;
            if (g == 4 && !d->proj) continue;
            for (int k = 0; k < (g < 4 ? 2 : 1); k++) {
                const int wi = g == 4 ? L_PW : k ? R[g] : W[g];
                const gc_rt *w = IN(wi);
                gc_q8mv *m = gc_ctx_alloc(ctx, sizeof *m);
                void *mem = gc_ctx_alloc(ctx, gc_q8mv_bytes(lv, w->shape[0], w->shape[1]));
                if (!m || !mem) return GC_ERR_NOMEM;
                gc_q8mv_init(m, lv, (const int8_t *)w->data, w->shape[0], w->shape[1], mem);
                if (gc_q8mv_scratch_bytes(m) > need) need = gc_q8mv_scratch_bytes(m);
                if (g == 4) d->mv_prj = m;
                else if (k) d->mv_rec[g] = m;
                else d->mv_in[g] = m;
            }
        }
        d->mv_slot = gc_ctx_scratch(ctx, n, (size_t)(d->C > d->O ? d->C : d->O) * sizeof(int32_t) + need + 64);
        n->fast = true;
    }
#endif
    n->data = d;
#undef IN
    int32_t shp[3] = { x->shape[0], x->shape[1], d->O };
    return gc_set_shape(ctx, y, 3, shp);
}

/* gate[b][r] = clamp16(gate + MBQM(bias[r] + W[r] . v[b], q) + zp) over nb rows; the dot
 * products by mv when there is one (ms: its scratch, rows int32 then the encoding) */
static void mbvma16(const int8_t *v, const int32_t *bias, const int8_t *W, mq q, int nb, int cols, int rows, int16_t *gate,
                    const gc_q8mv *mv, uint8_t *ms) {
    int32_t *dots = (int32_t *)(void *)ms;
    for (int b = 0; b < nb; b++) {
        if (mv) gc_q8mv_run(mv, v + (size_t)b * cols, ms + (size_t)rows * sizeof(int32_t), dots);
        for (int r = 0; r < rows; r++) {
            uint32_t acc = (uint32_t)bias[r];
            if (mv) acc += (uint32_t)dots[r];
            else {
                const int8_t *w = W + (size_t)r * cols, *x = v + (size_t)b * cols;
                for (int c = 0; c < cols; c++) acc += (uint32_t)((int32_t)x[c] * (int32_t)w[c]);
            }
            int32_t a = mbqm((int32_t)acc, q) + gate[(size_t)b * rows + r];
            gate[(size_t)b * rows + r] = fp_sat16(a);
        }
    }
}

static void layer_norm(int16_t *g, const int16_t *w, const int32_t *bias, mq s, int32_t guard, int nb, int n) {
    for (int b = 0; b < nb; b++) {
        int16_t *row = g + (size_t)b * n;
        int64_t sum = 0, sq = 0;
        for (int j = 0; j < n; j++) { int32_t v = row[j]; sum += v; sq += v * v; }
        int32_t mean = (int32_t)(sum * 1024 / n);
        int32_t temp = (1 << 20) / n;
        int64_t var = sq * temp - (int64_t)mean * mean;
        int32_t v2 = (int32_t)(var / (1 << 20));
        if (v2 < 1) v2 = guard;
        mq inv; fp_inv_sqrt(v2, &inv.m, &inv.s);
        mq s12 = { s.m, s.s + 12 };
        for (int j = 0; j < n; j++) {
            int32_t shifted = (int32_t)((uint32_t)(1024 * (int32_t)row[j]) - (uint32_t)mean);
            int32_t resc = mbqm(shifted, inv);
            int64_t v3 = (int32_t)((uint32_t)resc * (uint32_t)(int32_t)w[j] + (uint32_t)bias[j]);
            int32_t v4 = (int32_t)((v3 > 0 ? v3 + 512 : v3 - 512) / 1024);
            row[j] = fp_sat16(mbqm(v4, s12));
        }
    }
}

static void gate_eval(const ilstm *d, int g, gc_node *n, const int8_t *x, const int8_t *h, const int16_t *c, int nb,
                      bool tanh_gate, int16_t *out) {
    uint8_t *ms = d->mv_slot >= 0 ? n->scratch[d->mv_slot] : NULL;
#define CT(k) ((const void *)n->in[k]->data)
    static const int W[4] = { L_WI, L_WF, L_WC, L_WO }, R[4] = { L_RI, L_RF, L_RC, L_RO }, P[4] = { L_PI, L_PF, -1, L_PO },
                     BI[4] = { L_BI, L_BF, L_BC, L_BO }, NL[4] = { L_NI, L_NF, L_NC, L_NO };
    const int C = d->C;
    memset(out, 0, (size_t)nb * C * sizeof *out);
    mbvma16(x, d->eb_in[g], (const int8_t *)CT(W[g]), d->in[g], nb, d->I, C, out, d->mv_in[g], ms);
    mbvma16(h, d->eb_rec[g], (const int8_t *)CT(R[g]), d->rec[g], nb, d->O, C, out, d->mv_rec[g], ms);
    if (d->peep && P[g] >= 0) {
        const int16_t *p = (const int16_t *)CT(P[g]);
        for (int b = 0; b < nb; b++)
            for (int v = 0; v < d->O; v++) {     /* TFLite's vector size: the output size */
                int32_t prod = mbqm((int32_t)p[v] * (int32_t)c[(size_t)b * d->O + v], d->cell[g]);
                out[(size_t)b * d->O + v] = fp_sat16(prod + out[(size_t)b * d->O + v]);
            }
    }
    if (d->ln)
        layer_norm(out, (const int16_t *)CT(NL[g]), (const int32_t *)CT(BI[g]), d->ln_s[g], d->var_guard[g], nb, C);
    for (size_t i = 0; i < (size_t)nb * C; i++) out[i] = tanh_gate ? fp_tanh16(out[i], 3) : fp_logistic16(out[i], 3);
#undef CT
}

static void step(const ilstm *d, gc_node *n, const int8_t *x, int8_t *h, int16_t *c, int nb, int8_t *y, uint8_t *scr) {
    const int C = d->C, O = d->O;
    size_t rows = (size_t)nb * C;
    int16_t *ig = (int16_t *)scr, *fg = ig + rows, *cg = fg + rows, *og = cg + rows, *t = og + rows;
    int8_t *hq = (int8_t *)(t + rows);
    if (!d->cifg) gate_eval(d, 0, n, x, h, c, nb, false, ig);
    gate_eval(d, 1, n, x, h, c, nb, false, fg);
    gate_eval(d, 2, n, x, h, c, nb, true, cg);
    /* cell update */
    for (size_t i = 0; i < rows; i++) {
        int16_t fc = fp_w16(fp_rdpot((int32_t)fg[i] * c[i], 15));
        int16_t in_g = d->cifg ? fp_w16(INT16_MAX - fg[i]) : ig[i];
        int16_t ic = fp_w16(fp_rdpot((int32_t)in_g * cg[i], 30 + d->cs));
        int16_t v = fp_sat16((int32_t)fc + ic);
        if (d->cell_clip > 0) v = v > d->cell_clip ? d->cell_clip : v < -d->cell_clip ? (int16_t)-d->cell_clip : v;
        c[i] = v;
    }
    gate_eval(d, 3, n, x, h, c, nb, false, og);
    for (size_t i = 0; i < rows; i++) t[i] = fp_tanh16(c[i], 15 + d->cs);
    if (d->proj) {
        for (size_t i = 0; i < rows; i++)
            hq[i] = (int8_t)gc_clamp_i32((int64_t)mbqm((int32_t)og[i] * t[i], d->hid) - d->hidden_zp, -128, 127);
        const int8_t *P = (const int8_t *)n->in[L_PW]->data;
        uint8_t *ms = d->mv_prj ? n->scratch[d->mv_slot] : NULL;
        int32_t *dots = (int32_t *)(void *)ms;
        for (int b = 0; b < nb; b++) {
            if (d->mv_prj) gc_q8mv_run(d->mv_prj, hq + (size_t)b * C, ms + (size_t)O * sizeof(int32_t), dots);
            for (int r = 0; r < O; r++) {
                uint32_t acc = (uint32_t)d->eb_prj[r];
                if (d->mv_prj) acc += (uint32_t)dots[r];
                else
                    for (int k = 0; k < C; k++) acc += (uint32_t)((int32_t)hq[(size_t)b * C + k] * (int32_t)P[(size_t)r * C + k]);
                int32_t v = mbqm((int32_t)acc, d->prj) + d->out_zp;     /* accumulated onto 0 */
                v = gc_clamp_i32(v, -128, 127);
                if (d->proj_clip > 0) v = v > d->proj_clip ? d->proj_clip : v < -d->proj_clip ? -d->proj_clip : v;
                h[(size_t)b * O + r] = (int8_t)v;
            }
        }
    } else {
        for (size_t i = 0; i < rows; i++)
            h[i] = (int8_t)gc_clamp_i32((int64_t)mbqm((int32_t)og[i] * t[i], d->hid) + d->hidden_zp, -128, 127);
    }
    memcpy(y, h, (size_t)nb * O);
}

static gc_status ilstm_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    const ilstm *d = n->data;
    const int8_t *x = (const int8_t *)n->in[L_X]->data;
    int8_t *y = (int8_t *)n->out[0]->data, *h = (int8_t *)n->in[L_H]->data;
    int16_t *c = (int16_t *)n->in[L_C]->data;
    uint8_t *scr = n->scratch[d->slot];
    if (d->time_major) {
        for (int t = 0; t < d->T; t++)
            step(d, n, x + (size_t)t * d->B * d->I, h, c, d->B, y + (size_t)t * d->B * d->O, scr);
    } else {
        for (int b = 0; b < d->B; b++)
            for (int t = 0; t < d->T; t++) {
                size_t row = (size_t)b * d->T + t;
                step(d, n, x + row * d->I, h + (size_t)b * d->O, c + (size_t)b * d->C, 1, y + row * d->O, scr);
            }
    }
    return GC_OK;
}

const gc_kernel gc_k_lstm_int8 = { "UNIDIRECTIONAL_SEQUENCE_LSTM", ilstm_prepare, ilstm_eval, GC_K_NOFOLD };
