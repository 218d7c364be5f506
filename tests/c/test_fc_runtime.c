/* test_fc_runtime.c — FULLY_CONNECTED whose weights are a graph input (litert-torch
 * emits this for matrix products) must give exactly what the same weights give as a
 * constant. */
#include "test.h"
#include "interp/interp.h"

static gc_model *fc_model(bool runtime_w, const float *w) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t sx[] = {2, 3}, sw[] = {4, 3}, sy[] = {2, 4};
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, sx, 0);
    int32_t wt = gc_sg_add_tensor(m, sg, "w", GC_T_FLOAT32, 2, sw,
                                  runtime_w ? 0 : (uint32_t)gc_model_add_buffer(m, w, 12 * sizeof(float)));
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 2, sy, 0);
    int32_t in[] = {x, wt, -1}, out[] = {y};
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_FULLY_CONNECTED, NULL, 1), 3, in, 1, out);
    int32_t ins[] = {x, wt};
    gc_sg_set_io(m, sg, runtime_w ? 2 : 1, ins, 1, &y);
    return m;
}

GC_TEST(interp_fc_runtime_weights_match_constant) {
    float w[12], x[6], got[2][8];
    for (int i = 0; i < 12; i++) w[i] = 0.1f * (float)(i - 5);
    for (int i = 0; i < 6; i++) x[i] = 0.3f * (float)(i + 1);
    for (int rt = 0; rt < 2; rt++) {
        gc_model *m = fc_model(rt, w);
        char err[512];
        gc_interp_opts o = { .precision = GC_PREC_FP32, .signature = GC_SIG_AUTO };
        gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
        CHECK_MSG(it != NULL, "%s", err);
        if (!it) { gc_model_free(m); return; }
        CHECK_MSG(gc_interp_prepare(it) == GC_OK, "%s", gc_interp_errmsg(it));
        gc_tview v = gc_interp_input(it, 0);
        memcpy(v.data, x, sizeof x);
        if (rt) { v = gc_interp_input(it, 1); memcpy(v.data, w, sizeof w); }
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_tview y = gc_interp_output(it, 0);
        memcpy(got[rt], y.data, sizeof got[rt]);
        gc_interp_free(it);
        gc_model_free(m);
    }
    CHECK(!memcmp(got[0], got[1], sizeof got[0]));
    /* y[0][0] = sum_k x[k] w[0][k] = 0.3*-0.5 + 0.6*-0.4 + 0.9*-0.3 */
    CHECK_NEAR(got[1][0], 0.3 * -0.5 + 0.6 * -0.4 + 0.9 * -0.3, 1e-6);
}
