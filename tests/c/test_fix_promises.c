/* test_fix_promises.c — what `fix` promises (issue 12, "Promises not kept"): a rewrite
 * is kept only when the checker's verdict strictly improves, the result never has more
 * CPU nodes or partitions than the original (the progress rounds are undone and re-run
 * strict when they end worse), a whole-model blocker makes refusal counts no gain; and
 * every fix id the checker can name is either a pass of `fix` or marked advice-only. */
#include "test_fix_lib.h"

/* four ADDs on x (the delegated partition), a custom op the GPU does not know, then a
 * rank-2 PAD the GPU refuses: pad_rank4 makes it RESHAPE + PAD + RESHAPE, three
 * supported nodes in a partition of their own behind the custom op, not delegated —
 * two CPU nodes would become four */
static gc_model *model_pad_apart(void) {
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 4, V(1, 8, 8, 4));
    float one = 1;
    int32_t c = C(&b, "one", GC_T_FLOAT32, 1, V(1), &one, sizeof one);
    int32_t cur = x;
    for (int k = 0; k < 4; k++) {
        char n[16];
        snprintf(n, sizeof n, "add%d", k);
        int32_t y = T(&b, n, GC_T_FLOAT32, 4, V(1, 8, 8, 4));
        OP(&b, GC_OP_ADD, 1, 2, V(cur, c), 1, V(y));
        cur = y;
    }
    int32_t u = T(&b, "opaque", GC_T_FLOAT32, 2, V(16, 16));
    gc_sg_insert_op(b.m, b.sg, -1, gc_model_add_opcode(b.m, GC_OP_CUSTOM, "GcTestOpaque", 1), 1, V(cur), 1, V(u));
    int32_t pads[4] = { 1, 1, 1, 1 };
    int32_t p = C(&b, "pads", GC_T_INT32, 2, V(2, 2), pads, sizeof pads);
    int32_t y2 = T(&b, "padded", GC_T_FLOAT32, 2, V(18, 18));
    OP(&b, GC_OP_PAD, 1, 2, V(u, p), 1, V(y2));
    IO(&b, 1, V(x), 1, V(y2));
    return b.m;
}

GC_TEST(fix_never_more_cpu_nodes) {
    gc_model *m = model_pad_apart();
    char err[256];
    gc_check_result *ck = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(ck && ck->gpu_nodes == 4 && ck->total_nodes == 6);
    gc_check_free(ck);
    run r;
    fix_run(m, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "pad_rank4"), 0);
    const char *why = decline_reason(r.r, "pad_rank4");
    CHECK_MSG(why && strstr(why, "4 node(s) would run on the CPU instead of 2"), "%s", why ? why : "(none)");
    CHECK(r.r && r.r->progress_rejected);
    CHECK(r.r && r.r->progress.total_nodes - r.r->progress.gpu_nodes == 4);
    CHECK(r.r && r.r->after.gpu_nodes == 4 && r.r->after.total_nodes == 6 && r.r->after.partitions == 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_PAD), 1);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 6);
    /* the report says why */
    gc_str t = {0};
    gc_fix_text(r.r, m, "in.tflite", "out.tflite", &t);
    CHECK(t.s && strstr(t.s, "judged strictly: keeping every rewrite that removed a refusal gave 4/8 nodes"));
    CHECK(t.s && strstr(t.s, "GPU residency: 4/6 nodes -> 4/6 nodes in 1 partition(s)\n"));
    gc_str_free(&t);
    run_free(&r);
    /* forced, the rule holds too */
    gc_fix_opts o = gc_fix_opts_default();
    o.force = "pad_rank4";
    fix_run(m, &o, &r, false);
    CHECK_EQ_INT(sites(r.r, "pad_rank4"), 0);
    CHECK(r.r && r.r->after.total_nodes - r.r->after.gpu_nodes == 2);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_progress_kept_when_the_result_is_better) {
    /* the same PAD feeding the ADD chain: its rewrite joins the delegated partition, so
     * the progress rounds stand (no strict re-run) and the model is GPU-clean */
    mb b = mb_new();
    int32_t x2 = T(&b, "x2", GC_T_FLOAT32, 4, V(1, 1, 4, 4));
    int32_t r2 = T(&b, "x2_2d", GC_T_FLOAT32, 2, V(4, 4));
    int32_t s = CI(&b, "s", NV(4, 4));
    int32_t k = OP(&b, GC_OP_RESHAPE, 1, 2, V(x2, s), 1, V(r2));
    gc_opt_set_vec(b.m, OPT(&b, k), GC_O_ReshapeOptions_new_shape, V(4, 4), 2);
    int32_t pads[4] = { 1, 1, 1, 1 };
    int32_t p = C(&b, "pads", GC_T_INT32, 2, V(2, 2), pads, sizeof pads);
    int32_t y2 = T(&b, "padded", GC_T_FLOAT32, 2, V(6, 6));
    OP(&b, GC_OP_PAD, 1, 2, V(r2, p), 1, V(y2));
    float one = 1;
    int32_t c = C(&b, "one", GC_T_FLOAT32, 1, V(1), &one, sizeof one);
    int32_t y = T(&b, "y", GC_T_FLOAT32, 2, V(6, 6));
    OP(&b, GC_OP_ADD, 1, 2, V(y2, c), 1, V(y));
    IO(&b, 1, V(x2), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "pad_rank4"), 1);
    if (sites(r.r, "pad_rank4") != 1) dump(r.r);
    CHECK(r.r && !r.r->progress_rejected && r.r->after.gpu_clean);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_no_gain_under_a_model_blocker) {
    /* a RESHAPE to a run-time shape makes a dynamic-sized tensor: every node stays on
     * the CPU, so SQUEEZE -> RESHAPE (one refusal less, same nodes) is no gain */
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 3, V(1, 2, 8));
    int32_t sq = T(&b, "squeezed", GC_T_FLOAT32, 2, V(2, 8));
    int32_t k = OP(&b, GC_OP_SQUEEZE, 1, 1, V(x), 1, V(sq));
    gc_opt_set_vec(b.m, OPT(&b, k), GC_O_SqueezeOptions_squeeze_dims, V(0), 1);
    int32_t shp = T(&b, "shape", GC_T_INT32, 1, V(2));
    int32_t d = T(&b, "dyn", GC_T_FLOAT32, 2, V(4, 4));
    OP(&b, GC_OP_RESHAPE, 1, 2, V(sq, shp), 1, V(d));
    IO(&b, 2, V(x, shp), 2, V(sq, d));
    char err[256];
    gc_check_result *ck = gc_check(b.m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(ck && ck->model_error && ck->gpu_nodes == 0);
    int32_t ref = 0;
    for (int32_t i = 0; ck && i < ck->n_nodes; i++) ref += ck->nodes[i].state == GC_NODE_REJECTED;
    gc_check_free(ck);
    run r;
    fix_run(b.m, NULL, &r, false);
    CHECK_EQ_INT(r.r ? r.r->n_changes : -1, 0);
    if (ref > 0) {
        const char *why = decline_reason(r.r, "squeeze_to_reshape");
        CHECK_MSG(why && strstr(why, "no gain (every node stays on the CPU"), "%s", why ? why : "(none)");
    }
    CHECK_EQ_INT(count_ops(b.m, GC_OP_SQUEEZE), 1);
    run_free(&r);
    gc_model_free(b.m);
}
