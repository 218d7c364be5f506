/* test_fix_numerics.c — .tflite fixes for GPU miscomputes the H200 measured on nodes the
 * delegate accepts (data/gpu/facts.tsv): the rewrite's structure, that the checker still
 * takes every new node, and the numbers (reference interpreter fp32, original vs fixed,
 * within the pass's stated tolerance). */
#include "test.h"
#include "fix/fix.h"
#include "test_fix_lib.h"

/* y = CUMSUM(x, axis, exclusive, reverse), x [2,16] or [6,10] */
static gc_model *cumsum_model(int rank, int32_t axis, bool exclusive, bool reverse) {
    mb b = mb_new();
    const int32_t *shape = rank == 2 ? V(6, 10) : V(1, 3, 5, 8);
    int32_t x = T(&b, "x", GC_T_FLOAT32, rank, shape);
    int32_t y = T(&b, "y", GC_T_FLOAT32, rank, shape);
    int32_t k = OP(&b, GC_OP_CUMSUM, 1, 2, V(x, C(&b, "axis", GC_T_INT32, 0, NULL, &axis, 4)), 1, V(y));
    if (exclusive) gc_opt_set_int(b.m, OPT(&b, k), GC_O_CumsumOptions_exclusive, 1);
    if (reverse) gc_opt_set_int(b.m, OPT(&b, k), GC_O_CumsumOptions_reverse, 1);
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

/* the sweep's wrong forms (exclusive, reverse, both, axis -1, axis 0) become the plain
 * inclusive forward CUMSUM on a non-negative axis >= 1, verified on the interpreter */
GC_TEST(fix_cumsum_canon) {
    static const struct { int rank; int32_t axis; bool ex, rev; int subs, adds, sums, reshapes; } k[] = {
        { 2, 1, true, false, 1, 0, 0, 0 },  { 2, 1, false, true, 1, 1, 1, 0 }, { 2, 1, true, true, 1, 0, 1, 0 },
        { 2, -1, false, false, 0, 0, 0, 0 }, { 2, -1, true, false, 1, 0, 0, 0 }, { 2, 0, false, false, 0, 0, 0, 2 },
        { 2, 0, true, true, 1, 0, 1, 2 },   { 4, 3, true, false, 1, 0, 0, 0 }, { 4, 1, false, true, 1, 1, 1, 0 },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        gc_model *m = cumsum_model(k[i].rank, k[i].axis, k[i].ex, k[i].rev);
        run r;
        fix_run(m, NULL, &r, true);
        CHECK_MSG(sites(r.r, "cumsum_canon") == 1, "case %zu", i);
        CHECK_EQ_INT(count_ops(m, GC_OP_CUMSUM), 1);
        const gc_op *o = first_op(m, GC_OP_CUMSUM);
        CHECK(o && gc_opt_int(&o->opt, GC_O_CumsumOptions_exclusive) == 0);
        CHECK(o && gc_opt_int(&o->opt, GC_O_CumsumOptions_reverse) == 0);
        CHECK_MSG(count_ops(m, GC_OP_SUB) == k[i].subs && count_ops(m, GC_OP_ADD) == k[i].adds &&
                  count_ops(m, GC_OP_SUM) == k[i].sums && count_ops(m, GC_OP_RESHAPE) == k[i].reshapes,
                  "case %zu: SUB %d ADD %d SUM %d RESHAPE %d", i, count_ops(m, GC_OP_SUB), count_ops(m, GC_OP_ADD),
                  count_ops(m, GC_OP_SUM), count_ops(m, GC_OP_RESHAPE));
        CHECK_EQ_INT(r.refused_after, 0);
        run_free(&r);
        gc_model_free(m);
    }
    /* the plain form is what the GPU computes right: nothing to do */
    gc_model *m = cumsum_model(2, 1, false, false);
    run r;
    fix_run(m, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "cumsum_canon"), 0);
    CHECK_EQ_INT(count_ops(m, GC_OP_SUB), 0);
    run_free(&r);
    gc_model_free(m);
}

/* runtime [5] against a constant [2,3,4,5]: reshaping alone left it wrong on the H200
 * (sweep ew_add_r1_r4_const), so rank_align also TILEs it to [2,3,4,5]; a runtime [24,4,4]
 * against a constant [1,24,4,4] needs no tile (Swin's case, fixed by the reshape) */
GC_TEST(fix_rank_align_tiles_broadcast_against_const) {
    for (int swin = 0; swin < 2; swin++) {
        mb b = mb_new();
        float k[2 * 3 * 4 * 5];
        for (int i = 0; i < 120; i++) k[i] = 0.01f * (float)i - 0.5f;
        int32_t x = swin ? T(&b, "x", GC_T_FLOAT32, 3, V(6, 4, 5)) : T(&b, "x", GC_T_FLOAT32, 1, V(5));
        int32_t c = swin ? C(&b, "k", GC_T_FLOAT32, 4, V(1, 6, 4, 5), k, sizeof(float) * 120)
                         : C(&b, "k", GC_T_FLOAT32, 4, V(2, 3, 4, 5), k, sizeof k);
        int32_t y = swin ? T(&b, "y", GC_T_FLOAT32, 4, V(1, 6, 4, 5)) : T(&b, "y", GC_T_FLOAT32, 4, V(2, 3, 4, 5));
        OP(&b, GC_OP_ADD, 1, 2, V(x, c), 1, V(y));
        IO(&b, 1, V(x), 1, V(y));
        run r;
        fix_run(b.m, NULL, &r, true);
        CHECK_EQ_INT(sites(r.r, "rank_align"), 1);
        CHECK_EQ_INT(count_ops(b.m, GC_OP_RESHAPE), 1);
        CHECK_EQ_INT(count_ops(b.m, GC_OP_TILE), swin ? 0 : 1);
        const gc_op *o = first_op(b.m, GC_OP_ADD);
        const gc_subgraph *sg = &b.m->subgraphs[0];
        if (o && !swin) {   /* equal shapes meet */
            CHECK_EQ_INT(sg->tensors[o->inputs[0]].rank, 4);
            CHECK(!memcmp(sg->tensors[o->inputs[0]].shape, sg->tensors[o->inputs[1]].shape, 4 * sizeof(int32_t)));
        }
        run_free(&r);
        gc_model_free(b.m);
    }
}
