/* test_fix_numerics.c — .tflite fixes for GPU miscomputes the H200 measured on nodes the
 * delegate accepts (data/gpu/facts.tsv): the rewrite's structure, that the checker still
 * takes every new node, and the numbers (reference interpreter fp32, original vs fixed,
 * within the pass's stated tolerance). */
#include "test.h"
#include "fix/fix.h"
#include "test_fix_lib.h"

/* y = CUMSUM(x[2,16], axis 1, exclusive, reverse) */
static gc_model *cumsum_model(bool exclusive, bool reverse) {
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 2, V(2, 16));
    int32_t y = T(&b, "y", GC_T_FLOAT32, 2, V(2, 16));
    int32_t one = 1;
    int32_t k = OP(&b, GC_OP_CUMSUM, 1, 2, V(x, C(&b, "axis", GC_T_INT32, 0, NULL, &one, 4)), 1, V(y));
    if (exclusive) gc_opt_set_int(b.m, OPT(&b, k), GC_O_CumsumOptions_exclusive, 1);
    if (reverse) gc_opt_set_int(b.m, OPT(&b, k), GC_O_CumsumOptions_reverse, 1);
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

GC_TEST(fix_cumsum_exclusive) {
    for (int rev = 0; rev < 2; rev++) {
        gc_model *m = cumsum_model(true, rev);
        run r;
        fix_run(m, NULL, &r, true);
        CHECK_EQ_INT(sites(r.r, "cumsum_exclusive"), 1);
        CHECK_EQ_INT(count_ops(m, GC_OP_CUMSUM), 1);
        CHECK_EQ_INT(count_ops(m, GC_OP_SUB), 1);
        const gc_op *o = first_op(m, GC_OP_CUMSUM);
        CHECK(o && gc_opt_int(&o->opt, GC_O_CumsumOptions_exclusive) == 0);
        CHECK(o && gc_opt_int(&o->opt, GC_O_CumsumOptions_reverse) == rev);
        CHECK_EQ_INT(r.refused_after, 0);
        run_free(&r);
        gc_model_free(m);
    }
    /* inclusive sums are what the GPU computes: nothing to do */
    gc_model *m = cumsum_model(false, true);
    run r;
    fix_run(m, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "cumsum_exclusive"), 0);
    CHECK_EQ_INT(count_ops(m, GC_OP_SUB), 0);
    run_free(&r);
    gc_model_free(m);
}
