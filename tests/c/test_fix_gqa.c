/* test_fix_gqa.c — broadcast_to_tile on GQA's repeat_kv as transformers writes it:
 * [1,kv,S,D] -RESHAPE-> [1,kv,1,S,D] -BROADCAST_TO-> [1,kv,rep,S,D] -RESHAPE->
 * [1,kv*rep,S,D]. Every rank-5 tensor is refused, so the chain is redone on a rank-3
 * view (RESHAPE [kv,1,S*D], TILE, RESHAPE back); bit-exact. */
#include "test_fix_lib.h"

static int32_t reshape_to(mb *b, int32_t x, const char *name, int rank, const int32_t *shape) {
    int32_t y = T(b, name, GC_T_FLOAT32, rank, shape);
    char sn[128];
    snprintf(sn, sizeof sn, "%s.shape", name);
    int32_t s = CI(b, sn, rank, shape);
    int32_t k = OP(b, GC_OP_RESHAPE, 1, 2, V(x, s), 1, V(y));
    gc_opt_set_vec(b->m, OPT(b, k), GC_O_ReshapeOptions_new_shape, shape, (uint32_t)rank);
    return y;
}

static int max_rank(const gc_model *m) {
    int r = 0;
    const gc_subgraph *sg = &m->subgraphs[0];
    for (int32_t o = 0; o < sg->n_ops; o++)
        for (int32_t k = 0; k < sg->ops[o].n_outputs; k++)
            if (sg->tensors[sg->ops[o].outputs[k]].rank > r) r = sg->tensors[sg->ops[o].outputs[k]].rank;
    return r;
}

GC_TEST(fix_gqa_repeat_kv_rank5_broadcast) {
    /* kv = 2 heads repeated 4 times, S = 6, D = 8; two readers of the repeated tensor
     * (keys for the scores, values for the output) as in the zoo's Llama */
    mb b = mb_new();
    int32_t k = T(&b, "k", GC_T_FLOAT32, 4, V(1, 2, 6, 8));
    int32_t k5 = reshape_to(&b, k, "k5", 5, V(1, 2, 1, 6, 8));
    int32_t rep = T(&b, "k_rep", GC_T_FLOAT32, 5, V(1, 2, 4, 6, 8));
    OP(&b, GC_OP_BROADCAST_TO, 2, 2, V(k5, CI(&b, "shape", NV(1, 2, 4, 6, 8))), 1, V(rep));
    int32_t a = reshape_to(&b, rep, "k_heads", 4, V(1, 8, 6, 8));
    int32_t a3 = reshape_to(&b, rep, "k_flat", 3, V(8, 6, 8));
    int32_t one = T(&b, "a3r", GC_T_FLOAT32, 4, V(1, 8, 6, 8));
    int32_t s = CI(&b, "a3r.shape", NV(1, 8, 6, 8));
    int32_t kk = OP(&b, GC_OP_RESHAPE, 1, 2, V(a3, s), 1, V(one));
    gc_opt_set_vec(b.m, OPT(&b, kk), GC_O_ReshapeOptions_new_shape, V(1, 8, 6, 8), 4);
    int32_t y = T(&b, "y", GC_T_FLOAT32, 4, V(1, 8, 6, 8));
    OP(&b, GC_OP_ADD, 1, 2, V(a, one), 1, V(y));
    IO(&b, 1, V(k), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "broadcast_to_tile"), 1);
    if (sites(r.r, "broadcast_to_tile") != 1) dump(r.r);
    CHECK(strstr(detail_of(r.r, "broadcast_to_tile"), "rank 5 chain on a rank-3 view: RESHAPE to [2,1,48], TILE "
                                                      "multiples [1,4,1] -> [2,4,48], RESHAPE to 2 output(s)"));
    CHECK_EQ_INT(count_ops(b.m, GC_OP_BROADCAST_TO), 0);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_TILE), 1);
    CHECK(max_rank(b.m) <= 4);
    CHECK(r.r && r.r->after.gpu_clean && r.r->exactness == GC_FIX_BIT_EXACT);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_gqa_rank5_broadcast_other_reader_declined) {
    /* the rank-5 output also feeds a MUL: the chain cannot leave rank 5, declined */
    mb b = mb_new();
    int32_t k = T(&b, "k", GC_T_FLOAT32, 4, V(1, 2, 6, 8));
    int32_t k5 = reshape_to(&b, k, "k5", 5, V(1, 2, 1, 6, 8));
    int32_t rep = T(&b, "k_rep", GC_T_FLOAT32, 5, V(1, 2, 4, 6, 8));
    OP(&b, GC_OP_BROADCAST_TO, 2, 2, V(k5, CI(&b, "shape", NV(1, 2, 4, 6, 8))), 1, V(rep));
    int32_t y = T(&b, "y", GC_T_FLOAT32, 5, V(1, 2, 4, 6, 8));
    OP(&b, GC_OP_MUL, 1, 2, V(rep, rep), 1, V(y));
    IO(&b, 1, V(k), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "broadcast_to_tile"), 0);
    const char *why = decline_reason(r.r, "broadcast_to_tile");
    CHECK_MSG(why && (strstr(why, "not a RESHAPE") || strstr(why, "model output") || strstr(why, "rolled back")), "%s",
              why ? why : "(none)");
    CHECK_EQ_INT(count_ops(b.m, GC_OP_BROADCAST_TO), 1);
    run_free(&r);
    gc_model_free(b.m);
}
