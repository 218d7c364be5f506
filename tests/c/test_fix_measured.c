/* test_fix_measured.c — the fixes for GPU miscomputes measured on the H200 (ML Drift,
 * libLiteRt 2.3.0 and LiteRT.js 2.5.3; the sweep cases of tools/sweep): every wrong
 * shape is rewritten and verified on the reference interpreter, every shape measured
 * right is left alone.
 *   bmm_batch_explicit    BATCH_MATMUL with unequal batch dims
 *   dequantize_const      DEQUANTIZE of a constant int8 tensor (kernel building fails)
 *   dwconv_k1_multiplier  1x1 DEPTHWISE_CONV_2D with depth_multiplier > 1
 *   conv_group_dense      grouped CONV_2D with < 4 output channels per group
 */
#include "test_fix_lib.h"

#include <math.h>
#include "interp/fp16.h"

/* ---- BATCH_MATMUL ------------------------------------------------------------------------ */

enum { BM = 4, BK = 8, BN = 6 };

/* lhs [lb.., M, K] x rhs [rb.., K, N] (adj swaps the last two axes of that operand), as
 * tools/sweep/sweep_matmul.c builds them; rhs constant when rconst */
static gc_model *bmm_model(int lbn, const int32_t *lb, int rbn, const int32_t *rb, bool rconst, bool ax, bool ay) {
    mb b = mb_new();
    int32_t ls[8], rs[8], os[8];   /* ranks up to 5 (the rank-5 decline case) */
    for (int i = 0; i < lbn; i++) ls[i] = lb[i];
    for (int i = 0; i < rbn; i++) rs[i] = rb[i];
    ls[lbn] = ax ? BK : BM; ls[lbn + 1] = ax ? BM : BK;
    rs[rbn] = ay ? BN : BK; rs[rbn + 1] = ay ? BK : BN;
    int obn = lbn > rbn ? lbn : rbn;
    for (int i = 0; i < obn; i++) {
        int li = i - (obn - lbn), ri = i - (obn - rbn);
        int32_t p = li >= 0 ? lb[li] : 1, q = ri >= 0 ? rb[ri] : 1;
        os[i] = p > q ? p : q;
    }
    os[obn] = BM; os[obn + 1] = BN;
    int32_t l = T(&b, "lhs", GC_T_FLOAT32, lbn + 2, ls);
    int32_t r;
    if (rconst) {
        int n = 1;
        for (int i = 0; i < rbn + 2; i++) n *= rs[i];
        float *d = malloc(sizeof(float) * (size_t)n);
        for (int i = 0; i < n; i++) d[i] = sinf(0.37f * (float)i) - 0.25f;
        r = C(&b, "rhs", GC_T_FLOAT32, rbn + 2, rs, d, sizeof(float) * (size_t)n);
        free(d);
    } else r = T(&b, "rhs", GC_T_FLOAT32, rbn + 2, rs);
    int32_t y = T(&b, "y", GC_T_FLOAT32, obn + 2, os);
    int32_t k = OP(&b, GC_OP_BATCH_MATMUL, 1, 2, V(l, r), 1, V(y));
    if (ax) gc_opt_set_int(b.m, OPT(&b, k), GC_O_BatchMatMulOptions_adj_x, 1);
    if (ay) gc_opt_set_int(b.m, OPT(&b, k), GC_O_BatchMatMulOptions_adj_y, 1);
    if (rconst) IO(&b, 1, V(l), 1, V(y));
    else IO(&b, 2, V(l, r), 1, V(y));
    return b.m;
}

/* the one BATCH_MATMUL's operands have the output's rank and batch dims */
static bool bmm_batch_equal(const gc_model *m) {
    const gc_op *op = first_op(m, GC_OP_BATCH_MATMUL);
    if (!op) return false;
    const gc_subgraph *sg = &m->subgraphs[0];
    const gc_tensor *x = &sg->tensors[op->inputs[0]], *y = &sg->tensors[op->inputs[1]], *o = &sg->tensors[op->outputs[0]];
    if (x->rank != o->rank || y->rank != o->rank) return false;
    for (int d = 0; d < o->rank - 2; d++) if (x->shape[d] != o->shape[d] || y->shape[d] != o->shape[d]) return false;
    return true;
}

static void bmm_wrong(int lbn, const int32_t *lb, int rbn, const int32_t *rb, bool rconst, bool ax, bool ay,
                      int tiles) {
    gc_model *m = bmm_model(lbn, lb, rbn, rb, rconst, ax, ay);
    run r;
    fix_run(m, NULL, &r, true);
    CHECK_MSG(sites(r.r, "bmm_batch_explicit") == 1, "lhs batch rank %d, rhs batch rank %d, ax %d ay %d", lbn, rbn, ax, ay);
    if (sites(r.r, "bmm_batch_explicit") != 1) dump(r.r);
    CHECK(r.r && r.r->exactness == GC_FIX_BIT_EXACT);
    CHECK_EQ_INT(count_ops(m, GC_OP_BATCH_MATMUL), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_TILE), tiles);
    CHECK(bmm_batch_equal(m));
    const gc_op *op = first_op(m, GC_OP_BATCH_MATMUL);
    CHECK(op && gc_opt_int(&op->opt, GC_O_BatchMatMulOptions_adj_x) == ax);
    CHECK(op && gc_opt_int(&op->opt, GC_O_BatchMatMulOptions_adj_y) == ay);
    CHECK(r.r && r.r->after.gpu_clean);
    run_free(&r);
    gc_model_free(m);
}

static void bmm_right(int lbn, const int32_t *lb, int rbn, const int32_t *rb, bool rconst, bool ax, bool ay) {
    gc_model *m = bmm_model(lbn, lb, rbn, rb, rconst, ax, ay);
    run r;
    fix_run(m, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "bmm_batch_explicit"), 0);
    CHECK(r.r && r.r->n_changes == 0);
    CHECK(decline_reason(r.r, "bmm_batch_explicit") == NULL);   /* not a site at all */
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 1);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_measured_bmm_unequal_batch_rewritten) {
    for (int ax = 0; ax <= 1; ax++)
        for (int ay = 0; ay <= 1; ay++) {
            bmm_wrong(1, V(2), 1, V(1), false, ax, ay, 1);          /* bmm_rhs_b1 */
            bmm_wrong(1, V(1), 1, V(3), false, ax, ay, 1);          /* bmm_lhs_b1 */
            bmm_wrong(2, V(2, 3), 1, V(3), false, ax, ay, 1);       /* bmm_rank4_rhs_rank3: RESHAPE + TILE */
            bmm_wrong(1, V(2), 0, NULL, false, ax, ay, 1);          /* bmm_rhs_rank2 (runtime) */
            if (ax || ay) bmm_wrong(1, V(2), 0, NULL, true, ax, ay, 0);   /* bmm_const_rhs_rank2 with adj */
        }
    /* the constant is repeated: its data is the rank-2 matrix twice */
    gc_model *m = bmm_model(1, V(2), 0, NULL, true, false, true);
    run r;
    fix_run(m, NULL, &r, true);
    const gc_op *op = first_op(m, GC_OP_BATCH_MATMUL);
    CHECK(op != NULL);
    if (op) {
        const gc_tensor *w = &m->subgraphs[0].tensors[op->inputs[1]];
        CHECK(w->rank == 3 && w->shape[0] == 2 && w->shape[1] == BN && w->shape[2] == BK);
        const gc_buffer *bf = &m->buffers[w->buffer];
        CHECK(bf->size == 2 * BN * BK * sizeof(float));
        const float *d = (const float *)bf->data;
        for (int i = 0; bf->size == 2 * BN * BK * sizeof(float) && i < BN * BK; i++) {
            float want = sinf(0.37f * (float)i) - 0.25f;
            CHECK(d[i] == want && d[BN * BK + i] == want);
        }
    }
    CHECK(strstr(detail_of(r.r, "bmm_batch_explicit"), "constant repeated to [2,6,8]") != NULL);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_measured_bmm_equal_batch_left_alone) {
    for (int ax = 0; ax <= 1; ax++)
        for (int ay = 0; ay <= 1; ay++) {
            bmm_right(1, V(2), 1, V(2), false, ax, ay);           /* bmm_b2 */
            bmm_right(2, V(2, 3), 2, V(2, 3), false, ax, ay);     /* bmm_rank4 */
        }
    bmm_right(1, V(2), 0, NULL, true, false, false);              /* constant rank-2 rhs, no adjoints */
}

GC_TEST(fix_measured_bmm_declines) {
    /* batch dims that do not broadcast: 2 against 3 (an invalid model for the
     * interpreter, so only the pass's answer is looked at) */
    gc_model *m = bmm_model(1, V(2), 1, V(3), false, false, false);
    char err[256];
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "bmm_batch_explicit";
    gc_fix_result *r = gc_fix_apply(m, &o, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    const char *why = decline_reason(r, "bmm_batch_explicit");
    CHECK_MSG(why && strstr(why, "do not broadcast"), "%s", why ? why : "(none)");
    CHECK_EQ_INT(sites(r, "bmm_batch_explicit"), 0);
    gc_fix_result_free(r);
    gc_model_free(m);
    /* rank 5 after alignment */
    m = bmm_model(3, V(2, 1, 3), 1, V(1), false, false, false);
    r = gc_fix_apply(m, &o, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    why = decline_reason(r, "bmm_batch_explicit");
    CHECK_MSG(why && strstr(why, "rank 5"), "%s", why ? why : "(none)");
    gc_fix_result_free(r);
    gc_model_free(m);
    /* a constant repeated past the size limit (2 x 6 x 8 floats = 384 bytes) */
    m = bmm_model(1, V(2), 0, NULL, true, false, true);
    o.max_const_bytes = 383;
    r = gc_fix_apply(m, &o, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    why = decline_reason(r, "bmm_batch_explicit");
    CHECK_MSG(why && strstr(why, "383-byte limit"), "%s", why ? why : "(none)");
    CHECK_EQ_INT(sites(r, "bmm_batch_explicit"), 0);
    gc_fix_result_free(r);
    gc_model_free(m);
    m = bmm_model(1, V(2), 0, NULL, true, false, true);
    o.max_const_bytes = 384;
    r = gc_fix_apply(m, &o, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    CHECK_EQ_INT(sites(r, "bmm_batch_explicit"), 1);
    gc_fix_result_free(r);
    gc_model_free(m);
}

/* ---- DEQUANTIZE of constant weights ----------------------------------------------------------- */

static void set_quant(gc_model *m, int32_t t, int n, const float *scale, const int64_t *zp, int axis) {
    gc_quant *q = gc_arena_alloc(&m->arena, sizeof *q);
    memset(q, 0, sizeof *q);
    q->n_scale = q->n_zero_point = n;
    q->scale = gc_arena_alloc(&m->arena, sizeof(float) * (size_t)n);
    q->zero_point = gc_arena_alloc(&m->arena, sizeof(int64_t) * (size_t)n);
    for (int i = 0; i < n; i++) { q->scale[i] = scale[i]; q->zero_point[i] = zp[i]; }
    q->quantized_dimension = axis;
    m->subgraphs[0].tensors[t].quant = q;
}

enum { DQ_FC, DQ_BMM };
static const int8_t *dq_values(void) {
    static int8_t v[128];
    for (int i = 0; i < 128; i++) v[i] = (int8_t)((37 * i + 11) % 251 - 125);
    return v;
}
static const float dq_scale[8] = { 0.004f, 0.006f, 0.008f, 0.01f, 0.012f, 0.014f, 0.016f, 0.018f };
static const int64_t dq_zp[8] = { 3, 0, -2, 5, 1, 0, 7, -4 };

/* x -> FULLY_CONNECTED(x [3,16], DEQUANTIZE(w_q [8,16])) -> y [3,8], or BATCH_MATMUL(x
 * [2,4,16], DEQUANTIZE(w_q [16,8])) -> y [2,4,8]; int8 per-tensor (scale 0.01, zero
 * point 3) or per-channel along the output channels; fp16 when fp16 */
static gc_model *dq_model(int use, bool per_channel, bool fp16) {
    mb b = mb_new();
    int32_t ws[2] = { use == DQ_FC ? 8 : 16, use == DQ_FC ? 16 : 8 };
    int32_t wq;
    if (fp16) {
        uint16_t h[128];
        for (int i = 0; i < 128; i++) h[i] = gc_f32_to_f16(0.01f * (float)dq_values()[i]);
        wq = C(&b, "w_q", GC_T_FLOAT16, 2, ws, h, sizeof h);
    } else {
        wq = C(&b, "w_q", GC_T_INT8, 2, ws, dq_values(), 128);
        int axis = use == DQ_FC ? 0 : 1;
        if (per_channel) set_quant(b.m, wq, 8, dq_scale, dq_zp, axis);
        else set_quant(b.m, wq, 1, (const float[]){ 0.01f }, (const int64_t[]){ 3 }, 0);
    }
    int32_t w = T(&b, "w", GC_T_FLOAT32, 2, ws);
    OP(&b, GC_OP_DEQUANTIZE, fp16 ? 3 : per_channel ? 5 : 2, 1, V(wq), 1, V(w));
    int32_t x, y;
    if (use == DQ_FC) {
        x = T(&b, "x", GC_T_FLOAT32, 2, V(3, 16));
        y = T(&b, "y", GC_T_FLOAT32, 2, V(3, 8));
        OP(&b, GC_OP_FULLY_CONNECTED, 1, 2, V(x, w), 1, V(y));
    } else {
        x = T(&b, "x", GC_T_FLOAT32, 3, V(2, 4, 16));
        y = T(&b, "y", GC_T_FLOAT32, 3, V(2, 4, 8));
        OP(&b, GC_OP_BATCH_MATMUL, 1, 2, V(x, w), 1, V(y));
    }
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

/* the weights the consumer reads now: FLOAT32 constant s * (float)(q - zp) */
static void check_dequantized(const gc_model *m, int use, bool per_channel) {
    const gc_op *op = first_op(m, use == DQ_FC ? GC_OP_FULLY_CONNECTED : GC_OP_BATCH_MATMUL);
    CHECK(op != NULL);
    if (!op) return;
    const gc_tensor *w = &m->subgraphs[0].tensors[op->inputs[1]];
    CHECK(w->type == GC_T_FLOAT32 && w->buffer > 0 && w->buffer < (uint32_t)m->n_buffers);
    if (!(w->buffer > 0 && w->buffer < (uint32_t)m->n_buffers)) return;
    const gc_buffer *bf = &m->buffers[w->buffer];
    CHECK(bf->size == 128 * sizeof(float));
    if (bf->size != 128 * sizeof(float)) return;
    const float *d = (const float *)bf->data;
    int bad = 0;
    for (int i = 0; i < 128; i++) {
        int ch = use == DQ_FC ? i / 16 : i % 8;
        float s = per_channel ? dq_scale[ch] : 0.01f;
        int32_t zp = per_channel ? (int32_t)dq_zp[ch] : 3;
        float want = s * (float)((int32_t)dq_values()[i] - zp);
        bad += memcmp(&d[i], &want, 4) != 0;
    }
    CHECK_EQ_INT(bad, 0);
}

GC_TEST(fix_measured_dequantize_const) {
    for (int use = DQ_FC; use <= DQ_BMM; use++) {
        /* per-tensor int8: the GPU accepts every node and fails to build the kernels */
        gc_model *m = dq_model(use, false, false);
        run r;
        fix_run(m, NULL, &r, true);
        CHECK_EQ_INT(sites(r.r, "dequantize_const"), 1);
        CHECK(strstr(detail_of(r.r, "dequantize_const"), "constant FLOAT32") != NULL);
        CHECK_EQ_INT(count_ops(m, GC_OP_DEQUANTIZE), 0);
        CHECK_EQ_INT(count_ops(m, GC_OP_TILE), 0);                  /* a constant rank-2 rhs stays as it is */
        CHECK_EQ_INT(sites(r.r, "bmm_batch_explicit"), 0);
        CHECK(r.r && r.r->exactness == GC_FIX_BIT_EXACT && r.r->after.gpu_clean);
        check_dequantized(m, use, false);
        run_free(&r);
        gc_model_free(m);
        /* fp16: right on the GPU and half the size — left alone */
        m = dq_model(use, false, true);
        fix_run(m, NULL, &r, false);
        CHECK_EQ_INT(sites(r.r, "dequantize_const"), 0);
        CHECK_EQ_INT(count_ops(m, GC_OP_DEQUANTIZE), 1);
        run_free(&r);
        gc_model_free(m);
    }
    /* per-channel int8 (the checker refuses DEQUANTIZE v5: const_fold folds it first) —
     * the model becomes fully GPU-resident */
    gc_model *m = dq_model(DQ_FC, true, false);
    run r;
    fix_run(m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "dequantize_const") + sites(r.r, "const_fold"), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_DEQUANTIZE), 0);
    CHECK(r.r && r.r->before.gpu_nodes == 1 && r.r->after.gpu_clean);
    check_dequantized(m, DQ_FC, true);
    run_free(&r);
    /* and dequantize_const alone does the same */
    gc_model_free(m);
    m = dq_model(DQ_BMM, true, false);
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "dequantize_const";
    fix_run(m, &o, &r, true);
    CHECK_EQ_INT(sites(r.r, "dequantize_const"), 1);
    check_dequantized(m, DQ_BMM, true);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_measured_dequantize_model_output_declined) {
    gc_model *m = dq_model(DQ_FC, false, false);
    gc_subgraph *sg = &m->subgraphs[0];
    int32_t w = sg->ops[0].outputs[0], y = sg->ops[1].outputs[0];
    gc_sg_set_io(m, 0, sg->n_inputs, sg->inputs, 2, V(y, w));
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "dequantize_const";
    run r;
    fix_run(m, &o, &r, false);
    CHECK_EQ_INT(sites(r.r, "dequantize_const"), 0);
    const char *why = decline_reason(r.r, "dequantize_const");
    CHECK_MSG(why && strstr(why, "model output"), "%s", why ? why : "(none)");
    run_free(&r);
    gc_model_free(m);
}

/* ---- DEPTHWISE_CONV_2D 1x1 with a multiplier ------------------------------------------------ */

/* x [1,16,16,cin] -> DEPTHWISE_CONV_2D(k x k, stride, SAME, multiplier m, act) -> y */
static gc_model *dw_model(int k, int stride, int cin, int m, int act, bool bias) {
    mb b = mb_new();
    int cout = cin * m, oh = (16 + stride - 1) / stride;
    int32_t x = T(&b, "x", GC_T_FLOAT32, 4, V(1, 16, 16, cin));
    float wd[7 * 7 * 64], bd[64];
    for (int i = 0; i < k * k * cout; i++) wd[i] = cosf(0.71f * (float)i) * 0.9f;
    for (int i = 0; i < cout; i++) bd[i] = 0.05f * (float)i - 0.3f;
    int32_t w = C(&b, "w", GC_T_FLOAT32, 4, V(1, k, k, cout), wd, sizeof(float) * (size_t)(k * k * cout));
    int32_t bb = bias ? C(&b, "b", GC_T_FLOAT32, 1, V(cout), bd, sizeof(float) * (size_t)cout) : -1;
    int32_t y = T(&b, "y", GC_T_FLOAT32, 4, V(1, oh, oh, cout));
    int32_t op = OP(&b, GC_OP_DEPTHWISE_CONV_2D, 1, 3, V(x, w, bb), 1, V(y));
    gc_options *o = OPT(&b, op);
    gc_opt_set_int(b.m, o, GC_O_DepthwiseConv2DOptions_padding, 0);   /* SAME */
    gc_opt_set_int(b.m, o, GC_O_DepthwiseConv2DOptions_stride_w, stride);
    gc_opt_set_int(b.m, o, GC_O_DepthwiseConv2DOptions_stride_h, stride);
    gc_opt_set_int(b.m, o, GC_O_DepthwiseConv2DOptions_depth_multiplier, m);
    if (act) gc_opt_set_int(b.m, o, GC_O_DepthwiseConv2DOptions_fused_activation_function, act);
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

static void dw_wrong(int stride, int cin, int m, int act, bool bias) {
    gc_model *mm = dw_model(1, stride, cin, m, act, bias);
    run r;
    fix_run(mm, NULL, &r, true);
    CHECK_MSG(sites(r.r, "dwconv_k1_multiplier") == 1, "stride %d, %d channels x %d", stride, cin, m);
    CHECK(r.r && r.r->exactness == GC_FIX_EXACT_FINITE && r.r->after.gpu_clean);
    CHECK_EQ_INT(count_ops(mm, GC_OP_DEPTHWISE_CONV_2D), 0);
    CHECK_EQ_INT(count_ops(mm, GC_OP_CONV_2D), 1);
    const gc_op *op = first_op(mm, GC_OP_CONV_2D);
    if (op) {
        const gc_subgraph *sg = &mm->subgraphs[0];
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_stride_w) == stride);
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_stride_h) == stride);
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_fused_activation_function) == act);
        CHECK(bias ? op->inputs[2] >= 0 && !strcmp(sg->tensors[op->inputs[2]].name, "b") : op->n_inputs < 3 || op->inputs[2] < 0);
        const gc_tensor *w = &sg->tensors[op->inputs[1]];
        int cout = cin * m;
        CHECK(w->rank == 4 && w->shape[0] == cout && w->shape[1] == 1 && w->shape[2] == 1 && w->shape[3] == cin);
        const gc_buffer *bf = &mm->buffers[w->buffer];
        CHECK(bf->size == sizeof(float) * (size_t)(cout * cin));
        const float *d = (const float *)bf->data;
        int bad = 0;
        for (int oc = 0; bf->size == sizeof(float) * (size_t)(cout * cin) && oc < cout; oc++)
            for (int c = 0; c < cin; c++) {
                float want = c == oc / m ? cosf(0.71f * (float)oc) * 0.9f : 0.0f;
                bad += d[oc * cin + c] != want;
            }
        CHECK_EQ_INT(bad, 0);
    }
    run_free(&r);
    gc_model_free(mm);
}

GC_TEST(fix_measured_dwconv_k1_multiplier) {
    dw_wrong(1, 4, 2, 0, true);       /* dwconv_k1_s1_d1_same_m2_c4 */
    dw_wrong(1, 4, 4, 0, true);       /* dwconv_k1_s1_d1_same_m4_c4 */
    dw_wrong(2, 4, 2, 3, true);       /* stride 2, RELU6 fused */
    dw_wrong(1, 3, 2, 1, false);      /* no bias, RELU */
    /* measured right: multiplier 1, and larger kernels with multipliers 2 and 4 */
    const int right[][3] = { { 1, 8, 1 }, { 3, 4, 2 }, { 3, 4, 4 }, { 5, 4, 2 } };
    for (int i = 0; i < 4; i++) {
        gc_model *mm = dw_model(right[i][0], 1, right[i][1], right[i][2], 0, true);
        run r;
        fix_run(mm, NULL, &r, false);
        CHECK_EQ_INT(sites(r.r, "dwconv_k1_multiplier"), 0);
        CHECK(decline_reason(r.r, "dwconv_k1_multiplier") == NULL);
        CHECK_EQ_INT(count_ops(mm, GC_OP_DEPTHWISE_CONV_2D), 1);
        run_free(&r);
        gc_model_free(mm);
    }
}

GC_TEST(fix_measured_dwconv_nonfinite_stated) {
    /* the stated exactness is "exact for finite values": an infinite input channel makes
     * 0 * inf = NaN in the other channels of its pixel. The interpreter shows it. */
    gc_model *mm = dw_model(1, 1, 4, 2, 0, true);
    gc_model *orig = NULL;
    uint8_t *keep = NULL;
    orig = clone(mm, &keep);
    run r;
    fix_run(mm, NULL, &r, true);
    CHECK(orig != NULL);
    gc_interp_opts io;
    memset(&io, 0, sizeof io);
    io.precision = GC_PREC_FP32;
    io.signature = -1;
    char err[256];
    float *xin = malloc(sizeof(float) * 16 * 16 * 4);
    for (int i = 0; i < 16 * 16 * 4; i++) xin[i] = 0.5f;
    xin[0] = INFINITY;   /* pixel (0,0), channel 0 */
    float got[2][8];
    const gc_model *ms[2] = { orig, mm };
    for (int k = 0; k < 2 && orig; k++) {
        gc_interp *it = gc_interp_new(ms[k], &io, err, sizeof err);
        CHECK_MSG(it != NULL, "%s", err);
        if (!it) continue;
        CHECK(gc_interp_prepare(it) == GC_OK);
        gc_tview in = gc_interp_input(it, 0);
        CHECK(in.nbytes == sizeof(float) * 16 * 16 * 4);
        if (in.nbytes == sizeof(float) * 16 * 16 * 4) memcpy(in.data, xin, in.nbytes);
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_tview v = gc_interp_output(it, 0);
        memcpy(got[k], v.data, sizeof got[k]);
        gc_interp_free(it);
    }
    if (orig) {
        CHECK(isinf(got[0][0]) && isinf(got[1][0]));          /* channel 0's outputs: inf both */
        CHECK(!isnan(got[0][2]) && isnan(got[1][2]));          /* channel 1's: NaN after the rewrite */
    }
    free(xin);
    run_free(&r);
    gc_model_free(orig); free(keep);
    gc_model_free(mm);
}

/* ---- grouped CONV_2D (fact numerics.conv_group_out) ---------------------------------------- */

/* x [1,9,9,cin] -> CONV_2D 3x3 (stride s, dilation d, VALID, groups cin/cg) with cout outputs */
static gc_model *gconv_model(int cin, int cg, int cout, int s, int d, int act, bool bias) {
    mb b = mb_new();
    int span = 2 * d + 1, oh = (9 - span) / s + 1;
    int32_t x = T(&b, "x", GC_T_FLOAT32, 4, V(1, 9, 9, cin));
    int nw = cout * 9 * cg;
    float *wd = malloc(sizeof(float) * (size_t)nw), bd[64];
    for (int i = 0; i < nw; i++) wd[i] = cosf(0.53f * (float)i) * 0.7f;
    for (int i = 0; i < cout; i++) bd[i] = 0.03f * (float)i - 0.2f;
    int32_t w = C(&b, "w", GC_T_FLOAT32, 4, V(cout, 3, 3, cg), wd, sizeof(float) * (size_t)nw);
    free(wd);
    int32_t bb = bias ? C(&b, "b", GC_T_FLOAT32, 1, V(cout), bd, sizeof(float) * (size_t)cout) : -1;
    int32_t y = T(&b, "y", GC_T_FLOAT32, 4, V(1, oh, oh, cout));
    int32_t op = OP(&b, GC_OP_CONV_2D, 6, bias ? 3 : 2, V(x, w, bb), 1, V(y));
    gc_options *o = OPT(&b, op);
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_padding, 1);   /* VALID */
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_stride_w, s);
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_stride_h, s);
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_dilation_w_factor, d);
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_dilation_h_factor, d);
    if (act) gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_fused_activation_function, act);
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

static void gconv_wrong(int cin, int cg, int cout, int s, int d, int act, bool bias) {
    gc_model *mm = gconv_model(cin, cg, cout, s, d, act, bias);
    run r;
    fix_run(mm, NULL, &r, true);
    CHECK_MSG(sites(r.r, "conv_group_dense") == 1, "%d channels in groups of %d, %d out", cin, cg, cout);
    CHECK(r.r && r.r->exactness == GC_FIX_EXACT_FINITE && r.r->after.gpu_clean);
    CHECK_EQ_INT(count_ops(mm, GC_OP_CONV_2D), 1);
    const gc_op *op = first_op(mm, GC_OP_CONV_2D);
    if (op) {
        const gc_subgraph *sg = &mm->subgraphs[0];
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_stride_w) == s && gc_opt_int(&op->opt, GC_O_Conv2DOptions_stride_h) == s);
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_dilation_w_factor) == d);
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_dilation_h_factor) == d);
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_padding) == 1);
        CHECK(gc_opt_int(&op->opt, GC_O_Conv2DOptions_fused_activation_function) == act);
        const gc_tensor *w = &sg->tensors[op->inputs[1]];
        CHECK(w->rank == 4 && w->shape[0] == cout && w->shape[1] == 3 && w->shape[2] == 3 && w->shape[3] == cin);
        const gc_buffer *bf = &mm->buffers[w->buffer];
        size_t want_bytes = sizeof(float) * (size_t)(cout * 9 * cin);
        CHECK(bf->size == want_bytes);
        int bad = 0, opg = cout / (cin / cg);
        for (int oc = 0; bf->size == want_bytes && oc < cout; oc++)
            for (int t = 0; t < 9; t++)
                for (int ch = 0; ch < cin; ch++) {
                    int g = oc / opg, i = ch - g * cg;
                    float want = i >= 0 && i < cg ? cosf(0.53f * (float)((oc * 9 + t) * cg + i)) * 0.7f : 0.0f;
                    bad += ((const float *)bf->data)[(oc * 9 + t) * cin + ch] != want;
                }
        CHECK_EQ_INT(bad, 0);
    }
    run_free(&r);
    gc_model_free(mm);
}

GC_TEST(fix_measured_conv_group_dense) {
    gconv_wrong(12, 4, 6, 2, 1, 0, true);    /* conv2d_k3x3_s2_d1_valid_g3: 3 groups, 2 out each */
    gconv_wrong(8, 4, 4, 2, 1, 0, true);     /* conv2d_k3x3_s2_d1_valid_g2_c8x4: 2 groups, 2 out each */
    gconv_wrong(6, 2, 3, 1, 2, 1, false);    /* 3 groups, 1 out each, dilation 2, RELU, no bias */
    /* measured right: 4 output channels per group; and a plain conv is not grouped */
    const int right[][3] = { { 12, 4, 12 }, { 8, 4, 8 }, { 8, 8, 2 } };
    for (int i = 0; i < 3; i++) {
        gc_model *mm = gconv_model(right[i][0], right[i][1], right[i][2], 1, 1, 0, true);
        run r;
        fix_run(mm, NULL, &r, false);
        CHECK_EQ_INT(sites(r.r, "conv_group_dense"), 0);
        run_free(&r);
        gc_model_free(mm);
    }
    /* 17 groups of 2 outputs: over the 16-group limit, declined with the reason */
    gc_model *mm = gconv_model(34, 2, 34, 1, 1, 0, true);
    run r;
    fix_run(mm, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "conv_group_dense"), 0);
    const char *why = decline_reason(r.r, "conv_group_dense");
    CHECK_MSG(why && strstr(why, "17 groups"), "decline: %s", why ? why : "(none)");
    run_free(&r);
    gc_model_free(mm);
}

/* ---- LiteRT.js fp16 Winograd convs (fact numerics.conv3x3_wide_fp16_js) -------------------- */

/* x [1,hw,hw,cin] -> CONV_2D 3x3 stride 1 SAME (RELU) cin -> cout, bias */
static gc_model *wide_model(int hw, int cin, int cout) {
    mb b = mb_new();
    int nw = cout * 9 * cin;
    float *wd = malloc(sizeof(float) * (size_t)nw), bd[160];
    for (int i = 0; i < nw; i++) wd[i] = sinf(0.31f * (float)i) * 0.05f;
    for (int i = 0; i < cout; i++) bd[i] = 0.01f * (float)i - 0.4f;
    int32_t x = T(&b, "x", GC_T_FLOAT32, 4, V(1, hw, hw, cin));
    int32_t w = C(&b, "w", GC_T_FLOAT32, 4, V(cout, 3, 3, cin), wd, sizeof(float) * (size_t)nw);
    free(wd);
    int32_t bb = C(&b, "b", GC_T_FLOAT32, 1, V(cout), bd, sizeof(float) * (size_t)cout);
    int32_t y = T(&b, "y", GC_T_FLOAT32, 4, V(1, hw, hw, cout));
    int32_t op = OP(&b, GC_OP_CONV_2D, 1, 3, V(x, w, bb), 1, V(y));
    gc_options *o = OPT(&b, op);
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(b.m, o, GC_O_Conv2DOptions_fused_activation_function, 1);   /* RELU */
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

GC_TEST(fix_measured_conv_out_split) {
    /* measured wrong on LiteRT.js at fp16: split into <= 32-channel convs + CONCATENATION */
    static const int wrong[][3] = { { 28, 64, 64 }, { 28, 64, 128 }, { 28, 64, 80 } };
    for (int i = 0; i < 3; i++) {
        gc_model *mm = wide_model(wrong[i][0], wrong[i][1], wrong[i][2]);
        gc_fix_opts o = gc_fix_opts_default();
        o.runtime = "js-2.5";
        o.precision = GC_FPREC_FP16;
        run r;
        fix_run(mm, &o, &r, true);
        int pieces = (wrong[i][2] + 31) / 32;
        CHECK_MSG(sites(r.r, "conv_out_split") == 1, "case %d", i);
        CHECK(r.r && r.r->exactness == GC_FIX_BIT_EXACT && r.r->after.gpu_clean);
        CHECK_EQ_INT(count_ops(mm, GC_OP_CONV_2D), pieces);
        CHECK_EQ_INT(count_ops(mm, GC_OP_CONCATENATION), 1);
        const gc_subgraph *sg = &mm->subgraphs[0];
        int sum = 0;
        for (int32_t k = 0; k < sg->n_ops; k++)
            if (gc_op_builtin(mm, &sg->ops[k]) == GC_OP_CONV_2D) {
                const gc_tensor *w = &sg->tensors[sg->ops[k].inputs[1]];
                CHECK(w->shape[0] <= 32 && w->shape[3] == wrong[i][1]);
                CHECK(gc_opt_int(&sg->ops[k].opt, GC_O_Conv2DOptions_fused_activation_function) == 1);
                sum += w->shape[0];
            }
        CHECK_EQ_INT(sum, wrong[i][2]);
        gc_check_opts co = { .runtime = "js-2.5", .precision = GC_FPREC_FP16 };
        char err[256];
        gc_check_result *ck = gc_check_ex(mm, GC_TARGET_MLDRIFT, &co, err, sizeof err);
        CHECK(ck && ck->gpu_correct && ck->gpu_clean);
        gc_check_free(ck);
        run_free(&r);
        gc_model_free(mm);
    }
    /* left alone: fp32 on LiteRT.js (right there), native at fp16 (right), and the shapes
     * measured right on LiteRT.js fp16 (16x16; 32 input channels) */
    static const struct { int hw, cin, cout; const char *rt; int prec; } keep[] = {
        { 28, 64, 64, "js-2.5", GC_FPREC_FP32 }, { 28, 64, 64, "native-2.3", GC_FPREC_FP16 },
        { 16, 64, 64, "js-2.5", GC_FPREC_FP16 }, { 56, 32, 32, "js-2.5", GC_FPREC_FP16 },
    };
    for (int i = 0; i < 4; i++) {
        gc_model *mm = wide_model(keep[i].hw, keep[i].cin, keep[i].cout);
        gc_fix_opts o = gc_fix_opts_default();
        o.runtime = keep[i].rt;
        o.precision = keep[i].prec;
        run r;
        fix_run(mm, &o, &r, false);
        CHECK_MSG(sites(r.r, "conv_out_split") == 0, "keep case %d", i);
        CHECK_EQ_INT(count_ops(mm, GC_OP_CONV_2D), 1);
        run_free(&r);
        gc_model_free(mm);
    }
}
