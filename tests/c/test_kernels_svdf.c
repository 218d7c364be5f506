/* test_kernels_svdf.c — SVDF (kernels/svdf.c) over several invokes (its state persists),
 * float32 and fp64 worked out by hand; the refusals; and the integer LSTM's refusals
 * (kernels/lstm_int8.c). Parity with LiteRT's kernels, step by step, is
 * tests/interp/lstm_svdf_litert.py (integration). */
#include "test_kernels_harness.h"

static bool has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* x [1,2] -> SVDF(rank 2, units 1, memory 2) with a variable state [1, 4] */
static kt_model svdf_model(const float *wf, const float *wt, const float *bias, int act) {
    static float x[2];
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 2), x), KT_C(GC_T_FLOAT32, 2, KT_S(2, 2), wf),
                        KT_C(GC_T_FLOAT32, 2, KT_S(2, 2), wt), KT_C(GC_T_FLOAT32, 1, KT_S(1), bias),
                        KT_IN(GC_T_FLOAT32, 2, KT_S(1, 4), x) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1, 1)) };
    kt_model r = kt_build(GC_OP_SVDF, GC_BO_SVDFOptions, ins, 5, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_SVDFOptions_rank, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_SVDFOptions_fused_activation_function, act);
    /* the state: a variable tensor, not a graph input */
    gc_subgraph *sg = &r.m->subgraphs[0];
    sg->tensors[r.t[4]].is_variable = true;
    int32_t in0 = r.t[0], out0 = r.t[5];
    gc_sg_set_io(r.m, 0, 1, &in0, 1, &out0);
    return r;
}

GC_TEST(kernel_svdf_float_state_across_invokes) {
    /* weights_feature = identity: the features are x itself; weights_time rows (oldest,
     * newest): f0 (1, 10), f1 (100, 1000); bias .5.
     * invoke 1, x (1, 2): memories f0 (0, 1), f1 (0, 2): y = 10 + 2000 + .5 = 2010.5
     * invoke 2, x (3, 4): f0 (1, 3), f1 (2, 4): y = 1 + 30 + 200 + 4000 + .5 = 4231.5
     * invoke 3, x (-5, 0), RELU: f0 (3, -5), f1 (4, 0): 3 - 50 + 400 + 0 + .5 = 353.5 */
    static const float wf[4] = { 1, 0, 0, 1 }, wt[4] = { 1, 10, 100, 1000 }, b[1] = { 0.5f };
    const float xs[3][2] = { { 1, 2 }, { 3, 4 }, { -5, 0 } }, want[3] = { 2010.5f, 4231.5f, 353.5f };
    for (int p = 0; p < 2; p++) {
        kt_model r = svdf_model(wf, wt, b, 1 /* RELU */);
        gc_interp_opts o = { .precision = p ? GC_PREC_FP64 : GC_PREC_FP32, .signature = -1 };
        char err[512];
        gc_interp *it = gc_interp_new(r.m, &o, err, sizeof err);
        CHECK_MSG(it && gc_interp_prepare(it) == GC_OK, "%s", it ? gc_interp_errmsg(it) : err);
        for (int s = 0; it && s < 3; s++) {
            gc_tview v = gc_interp_input(it, 0);
            memcpy(v.data, xs[s], sizeof xs[s]);
            CHECK(gc_interp_invoke(it) == GC_OK);
            gc_tview y = gc_interp_output(it, 0);
            CHECK_MSG(((const float *)y.data)[0] == want[s], "%s step %d: %g vs %g", p ? "fp64" : "fp32", s,
                      (double)((const float *)y.data)[0], (double)want[s]);
        }
        gc_interp_free(it);
        gc_model_free(r.m);
    }
}

GC_TEST(kernel_svdf_refusals) {
    static const float wf[4] = { 1, 0, 0, 1 }, wt[4] = { 1, 10, 100, 1000 }, b[1] = { 0.5f };
    char err[512]; float x[2] = { 0 }, y[1];
    /* rank 3 does not divide the 2 filters */
    kt_model r = svdf_model(wf, wt, b, 0 /* NONE */);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_SVDFOptions_rank, 3);
    kt_tensor feed[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 2), x) };
    CHECK(!kt_run(&r, GC_PREC_FP32, feed, 1, 0, y, sizeof y, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "rank 3 does not divide the 2 filters"), "%s", err);
    gc_model_free(r.m);
    /* a state that is not a variable tensor */
    r = svdf_model(wf, wt, b, 0 /* NONE */);
    r.m->subgraphs[0].tensors[r.t[4]].is_variable = false;
    int32_t ins[2] = { r.t[0], r.t[4] }, out0 = r.t[5];
    gc_sg_set_io(r.m, 0, 2, ins, 1, &out0);
    float st[4] = { 0 };
    kt_tensor feed2[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 2), x), KT_IN(GC_T_FLOAT32, 2, KT_S(1, 4), st) };
    CHECK(!kt_run(&r, GC_PREC_FP32, feed2, 2, 0, y, sizeof y, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "must be a variable tensor"), "%s", err);
    gc_model_free(r.m);
}

GC_TEST(kernel_lstm_int8_refusals) {
    /* an INT8 LSTM without its 5 intermediates (the hidden scale) is refused by name */
    int8_t x[4] = { 0 }, w[4] = { 1, 2, 3, 4 };
    int32_t bias[2] = { 0 };
    kt_tensor ins[20];
    memset(ins, 0, sizeof ins);
    for (int i = 0; i < 20; i++) ins[i].type = -1;
    ins[0] = (kt_tensor)KT_QOUT(GC_T_INT8, 3, KT_S(1, 2, 2), 0.1f, 0); ins[0].feed = x;
    for (int g = 1; g <= 8; g++) ins[g] = (kt_tensor)KT_Q(GC_T_INT8, 2, KT_S(2, 2), w, 0.01f, 0);
    for (int g = 12; g <= 15; g++) ins[g] = (kt_tensor)KT_Q(GC_T_INT32, 1, KT_S(2), bias, 1e-4f, 0);
    ins[18] = (kt_tensor)KT_QOUT(GC_T_INT8, 2, KT_S(2, 2), 0.02f, 0); ins[18].feed = x;
    ins[19] = (kt_tensor)KT_QOUT(GC_T_INT16, 2, KT_S(2, 2), 1.0f / 2048, 0); ins[19].feed = x;
    /* kt_build takes at most 8 tensors per op: build the 20-input op by hand */
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main"), idx[21];
    for (int i = 0; i < 20; i++) {
        if (ins[i].type < 0) { idx[i] = -1; continue; }
        uint32_t buf = ins[i].data ? (uint32_t)gc_model_add_buffer(m, ins[i].data, kt_bytes(&ins[i])) : 0;
        char name[16]; snprintf(name, sizeof name, "t%d", i);
        idx[i] = gc_sg_add_tensor(m, sg, name, ins[i].type, ins[i].rank, ins[i].shape, buf);
        kt_quant(m, &m->subgraphs[sg].tensors[idx[i]], &ins[i]);
        if (i == 18 || i == 19) m->subgraphs[sg].tensors[idx[i]].is_variable = true;
    }
    kt_tensor out = KT_QOUT(GC_T_INT8, 3, KT_S(1, 2, 2), 0.02f, 0);
    idx[20] = gc_sg_add_tensor(m, sg, "y", out.type, out.rank, out.shape, 0);
    kt_quant(m, &m->subgraphs[sg].tensors[idx[20]], &out);
    int32_t oc = gc_model_add_opcode(m, GC_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, NULL, 1);
    gc_sg_insert_op(m, sg, 0, oc, 20, idx, 1, &idx[20]);
    gc_opt_init(m, &m->subgraphs[sg].ops[0].opt, GC_BO_UnidirectionalSequenceLSTMOptions);
    gc_opt_set_int(m, &m->subgraphs[sg].ops[0].opt, GC_O_UnidirectionalSequenceLSTMOptions_time_major, 1);
    gc_sg_set_io(m, sg, 1, &idx[0], 1, &idx[20]);
    gc_interp_opts o = { .precision = GC_PREC_FP32, .signature = -1 };
    char err[512];
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    CHECK(it && gc_interp_prepare(it) != GC_OK);
    if (it) CHECK_MSG(has(gc_interp_errmsg(it), "integer LSTM needs 5 intermediate tensors, has 0"), "%s", gc_interp_errmsg(it));
    gc_interp_free(it);
    gc_model_free(m);
}
