/* test_check_pow.c — the POW lint we measured on the H200: POW of a runtime base is NaN
 * for negative bases on the GPU; a constant base is not flagged. */
#include "test.h"
#include "check/check.h"

static gc_model *pow_model(bool const_base) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t s[] = {1, 8}, one[] = {1};
    float two = 2.0f, base[8] = {-1, 2, -3, 4, -5, 6, -7, 8};
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, s, 0);
    int32_t b = const_base ? gc_sg_add_tensor(m, sg, "b", GC_T_FLOAT32, 2, s, (uint32_t)gc_model_add_buffer(m, base, sizeof base)) : x;
    int32_t e = const_base ? x : gc_sg_add_tensor(m, sg, "two", GC_T_FLOAT32, 1, one, (uint32_t)gc_model_add_buffer(m, &two, 4));
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 2, s, 0);
    int32_t in[] = {b, e}, out[] = {y};
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_POW, NULL, 1), 2, in, 1, out);
    gc_sg_set_io(m, sg, 1, &x, 1, &y);
    return m;
}

static int count_rule(const gc_check_result *r, const char *rule) {
    int n = 0;
    for (int32_t i = 0; i < r->n_risks; i++) if (r->risks[i].rule && !strcmp(r->risks[i].rule, rule)) n++;
    return n;
}

GC_TEST(check_lint_pow_runtime_base) {
    for (int cb = 0; cb < 2; cb++) {
        gc_model *m = pow_model(cb);
        char err[256];
        gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
        CHECK_MSG(r != NULL, "%s", err);
        if (r) { CHECK_EQ_INT(count_rule(r, "gpu.pow_negative_base"), cb ? 0 : 1); gc_check_free(r); }
        gc_model_free(m);
    }
}
