/* test_numerics.c — the measured-facts engine (src/check/numerics.c) with a test-only facts
 * table: every node feature on small gc_rb models, every condition kind, op patterns,
 * runtime lookup and selection, precision selection (wrong at fp16 only: a risk at fp32),
 * ok facts as evidence, risk from a warning-level lint, init_failed -> the whole model on
 * the CPU, target classic untouched, the table validator, and the JSON and text a check
 * result renders. The rows imitate facts the device sweep measures (float->int CAST,
 * CUMSUM exclusive, GATHER with constant indices on LiteRT.js, DENSIFY'd constants,
 * Swin's mixed-rank ADD) but are test data, not measurements. */
#include "test.h"
#include "../../tools/rule-models.h"
#include "check/check.h"

#include <dirent.h>
#include <string.h>

#define L(...) (int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (const int32_t[]){__VA_ARGS__}
#define F32 GC_T_FLOAT32
#define T(name, type, ...) gc_rb_t(&b, name, type, L(__VA_ARGS__))
#define C(name, type, ...) gc_rb_c(&b, name, type, L(__VA_ARGS__), NULL)
#define SCALAR_I32(name, v) gc_rb_c(&b, name, GC_T_INT32, 0, NULL, (const int32_t[]){v})
#define OP(code, ins, outs) gc_rb_op(&b, code, 1, ins, outs)
#define IN(...) L(__VA_ARGS__)
#define OUT(...) L(__VA_ARGS__)

/* ---- the test table -------------------------------------------------------------------------- */

static const gc_gpu_runtime rts[] = {
    { "native-2.3.0", "native", "2.3.0", true, "test native" },
    { "js-2.5.3", "js", "2.5.3", false, "test js" },
    { "native-2.4.1", "native", "2.4.1", false, "a newer native, not the default" },
};
static const gc_fact_cond c_cast[] = { { "in0.dtype", GC_FC_EQ, "FLOAT32" }, { "out0.dtype", GC_FC_EQ, "INT32|INT16" } };
static const gc_fact_cond c_cumsum[] = { { "opt.exclusive", GC_FC_EQ, "1" } };
static const gc_fact_cond c_gather[] = { { "in1.const", GC_FC_EQ, "1" }, { "in1.rank", GC_FC_EQ, "1" } };
static const gc_fact_cond c_densify[] = { { "in*.producer", GC_FC_EQ, "DENSIFY" } };
static const gc_fact_cond c_swin[] = { { "bcast", GC_FC_EQ, "3x4|4x3" }, { "lo.dim0", GC_FC_GT, "1" },
                                       { "bcast_meet", GC_FC_GT, "1" } };
static const gc_fact_cond c_mask_ok[] = { { "bcast", GC_FC_EQ, "3x4|4x3" }, { "bcast_meet", GC_FC_EQ, "1" } };
static const gc_fact_cond c_sm_long[] = { { "axis_size", GC_FC_GE, "1000" } };
static const gc_fact_cond c_sm_short[] = { { "axis_size", GC_FC_LT, "1000" } };

static const gc_gpu_fact facts[] = {
    { "numerics.cast_float_int", "native-2.3.0", "nvidia-h200", "CAST", "in0.dtype=FLOAT32 out0.dtype=INT32|INT16",
      2, c_cast, GC_FPREC_ANY, GC_FACT_WRONG, "max_abs=14", "cast_frac,cast_neg", "fix.cast.round",
      "float->int CAST rounds differently from the CPU", 10 },
    { "numerics.cast_float_int", "js-2.5.3", "nvidia-h200", "CAST", "in0.dtype=FLOAT32 out0.dtype=INT32|INT16",
      2, c_cast, GC_FPREC_ANY, GC_FACT_WRONG, "max_abs=14", "cast_frac", "fix.cast.round",
      "float->int CAST rounds differently from the CPU", 11 },
    { "numerics.cumsum_exclusive", "native-2.3.0", "nvidia-h200", "CUMSUM", "opt.exclusive=1", 1, c_cumsum,
      GC_FPREC_FP32, GC_FACT_WRONG, "max_abs=3.5 corr=0.71", "cumsum_excl, cumsum_excl_rev", "fix.cumsum.exclusive",
      "CUMSUM ignores exclusive on the GPU", 12 },
    { "init.gather_const_indices", "js-2.5.3", "nvidia-h200", "GATHER", "in1.const=1 in1.rank=1", 2, c_gather,
      GC_FPREC_ANY, GC_FACT_INIT_FAILED, "Unable to parse bc coord for BATCH axis", "gather_c1", "fix.gather.const_indices",
      "GATHER with constant 1-D indices fails kernel building: the whole model runs on the CPU", 13 },
    { "numerics.densify_input", "native-2.3.0", "nvidia-h200", "*", "in*.producer=DENSIFY", 1, c_densify,
      GC_FPREC_FP32, GC_FACT_WRONG, "corr=0.08", "densify_add", "fix.densify", "a DENSIFY'd constant reads as garbage", 14 },
    { "numerics.mixed_rank", "native-2.3.0", "nvidia-h200", "ADD|SUB|MUL|DIV", "bcast=3x4|4x3 lo.dim0>1 bcast_meet>1",
      3, c_swin, GC_FPREC_FP32, GC_FACT_WRONG, "corr=0.985", "add_3x4_swin", "fix.broadcast.rank4",
      "mixed-rank broadcast misaligned", 15 },
    { "ok.mixed_rank_mask", "native-2.3.0", "nvidia-h200", "ADD", "bcast=3x4|4x3 bcast_meet=1", 2, c_mask_ok,
      GC_FPREC_FP32, GC_FACT_OK, "max_abs=0", "add_3x4_mask", "", "a mask broadcast over heads is right", 16 },
    { "numerics.softmax_long", "native-2.3.0", "nvidia-h200", "SOFTMAX", "axis_size>=1000", 1, c_sm_long,
      GC_FPREC_FP16, GC_FACT_WRONG, "max_abs=0.02", "softmax_1000", "", "softmax over a long axis at fp16", 17 },
    { "ok.softmax_short", "native-2.3.0", "nvidia-h200", "SOFTMAX", "axis_size<1000", 1, c_sm_short,
      GC_FPREC_ANY, GC_FACT_OK, "", "softmax_7", "", "softmax over a short axis is right", 18 },
};
static const gc_gpu_facts table = { "test-facts.tsv", 3, rts, (int)(sizeof facts / sizeof facts[0]), facts };

static gc_check_result *check(gc_model *m, const char *runtime, int precision) {
    gc_check_opts o = { .facts = &table, .runtime = runtime, .precision = precision };
    char err[256];
    gc_check_result *r = gc_check_ex(m, GC_TARGET_MLDRIFT, &o, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    return r;
}

/* the node writing tensor `probe` */
static const gc_check_node *probe(const gc_check_result *r, const gc_model *m) {
    int32_t t = gc_find_tensor(&m->subgraphs[0], "probe");
    for (int32_t i = 0; r && i < m->subgraphs[0].n_ops; i++)
        if (m->subgraphs[0].ops[i].n_outputs > 0 && m->subgraphs[0].ops[i].outputs[0] == t) return &r->nodes[i];
    return NULL;
}

static void feat_is(const gc_model *m, int32_t node, const char *key, const uint8_t *on_gpu, const char *want) {
    char buf[64];
    bool got = gc_fact_feature(m, 0, node, key, on_gpu, buf, sizeof buf);
    if (want) CHECK_MSG(got && !strcmp(buf, want), "node %d %s: got %s'%s', want '%s'", node, key,
                        got ? "" : "(undefined) ", buf, want);
    else CHECK_MSG(!got, "node %d %s: want undefined, got '%s'", node, key, buf);
}

/* ---- models ---------------------------------------------------------------------------------- */

/* x[2,5] -> CUMSUM(axis 1, exclusive) -> probe; probe -> RELU -> y */
static gc_model *m_cumsum(bool exclusive, bool probe_is_output) {
    gc_rb b = gc_rb_new();
    int32_t x = T("x", F32, 2, 5), a = SCALAR_I32("axis", -1), p = T("probe", F32, 2, 5);
    int32_t op = OP(GC_OP_CUMSUM, IN(x, a), OUT(p));
    gc_rb_opt(&b, op, GC_O_CumsumOptions_exclusive, exclusive);
    if (!probe_is_output) {
        int32_t y = T("y", F32, 2, 5);
        OP(GC_OP_RELU, IN(p), OUT(y));
    }
    return gc_rb_done(&b);
}

/* x[1,4] -> RELU -> r; ADD(r, r) -> s; MUL(r, const) -> probe; ADD(s, probe) -> y (y and s: s is consumed) */
static gc_model *m_chain(void) {
    gc_rb b = gc_rb_new();
    int32_t x = T("x", F32, 1, 4), r = T("r", F32, 1, 4), s = T("s", F32, 1, 4), k = C("k", F32, 1, 4);
    int32_t p = T("probe", F32, 1, 4), y = T("y", F32, 1, 4);
    OP(GC_OP_RELU, IN(x), OUT(r));
    OP(GC_OP_ADD, IN(r, r), OUT(s));
    OP(GC_OP_MUL, IN(r, k), OUT(p));
    OP(GC_OP_ADD, IN(s, p), OUT(y));
    return gc_rb_done(&b);
}

/* ADD(a[24,49,49], const b[lead,24,49,49]) (or swapped) -> probe */
static gc_model *m_mixed(int lead, int meet, bool swap) {
    gc_rb b = gc_rb_new();
    int32_t lo = T("lo", F32, 24, 49, 49);
    int32_t hi = gc_rb_c(&b, "hi", F32, L(lead, meet, 49, 49), NULL);
    int32_t p = T("probe", F32, lead, 24, 49, 49);
    if (swap) OP(GC_OP_ADD, IN(hi, lo), OUT(p));
    else OP(GC_OP_ADD, IN(lo, hi), OUT(p));
    return gc_rb_done(&b);
}

/* x[1,n] -> SOFTMAX -> probe */
static gc_model *m_softmax(int n) {
    gc_rb b = gc_rb_new();
    int32_t x = T("x", F32, 1, n), p = T("probe", F32, 1, n);
    int32_t op = OP(GC_OP_SOFTMAX, IN(x), OUT(p));
    gc_rb_optf(&b, op, GC_O_SoftmaxOptions_beta, 1.0);   /* the schema's default is 0 */
    return gc_rb_done(&b);
}

/* x[4,3] -> RELU -> r -> GATHER(r, const indices [n]) -> probe */
static gc_model *m_gather(int n) {
    gc_rb b = gc_rb_new();
    int32_t x = T("x", F32, 4, 3), r = T("r", F32, 4, 3);
    int32_t ix = gc_rb_c(&b, "idx", GC_T_INT32, L(n), (const int32_t[]){ 2, 0, 1 });
    int32_t p = T("probe", F32, n, 3);
    OP(GC_OP_RELU, IN(x), OUT(r));
    OP(GC_OP_GATHER, IN(r, ix), OUT(p));
    return gc_rb_done(&b);
}

GC_TEST(numerics_runtime_lookup) {
    const struct { const char *name, *want; } cases[] = {
        { NULL, "native-2.3.0" }, { "", "native-2.3.0" }, { "native", "native-2.3.0" }, { "js", "js-2.5.3" },
        { "native-2.3", "native-2.3.0" }, { "native-2.3.0", "native-2.3.0" }, { "native-2", "native-2.3.0" },
        { "native-2.4", "native-2.4.1" }, { "js-2.5", "js-2.5.3" }, { "js-2.5.3", "js-2.5.3" },
        { "native-2.3.00", NULL }, { "native-2.", NULL }, { "native-2.5", NULL }, { "nat", NULL }, { "js-", NULL },
        { "js-2.5.3.1", NULL }, { "webgpu", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const gc_gpu_runtime *rt = gc_facts_runtime(&table, cases[i].name);
        CHECK_MSG(cases[i].want ? rt && !strcmp(rt->name, cases[i].want) : !rt, "'%s' -> %s, want %s",
                  cases[i].name ? cases[i].name : "(null)", rt ? rt->name : "NULL", cases[i].want ? cases[i].want : "NULL");
    }
    CHECK_EQ_INT(gc_facts_count(&table, "native-2.3.0", NULL), 7);
    CHECK_EQ_INT(gc_facts_count(&table, "js-2.5.3", "nvidia-h200"), 2);
    CHECK_EQ_INT(gc_facts_count(&table, NULL, "mali-g710"), 0);
    CHECK(gc_facts_find(&table, "init.gather_const_indices") == &facts[3]);
    CHECK(gc_facts_find(&table, "numerics.cast_float_int") == &facts[0]);
    CHECK(gc_facts_find(&table, "no.such") == NULL);
    /* the built-in table: the runtimes of data/gpu/runtimes.tsv, one default, valid */
    const gc_gpu_runtime *d = gc_facts_runtime(&gc_gpu_facts_builtin, NULL);
    CHECK(d && !strcmp(d->kind, "native"));
    CHECK(gc_facts_runtime(&gc_gpu_facts_builtin, "js-2.5") != NULL);
    char err[256];
    CHECK_MSG(gc_facts_validate(&gc_gpu_facts_builtin, err, sizeof err), "%s", err);
    CHECK_MSG(gc_facts_validate(&table, err, sizeof err), "%s", err);
}

GC_TEST(numerics_features_tensor) {
    gc_model *m = m_cumsum(true, false);
    feat_is(m, 0, "n_in", NULL, "2");
    feat_is(m, 0, "n_out", NULL, "1");
    feat_is(m, 0, "version", NULL, "1");
    feat_is(m, 0, "in0.dtype", NULL, "FLOAT32");
    feat_is(m, 0, "in1.dtype", NULL, "INT32");
    feat_is(m, 0, "in0.rank", NULL, "2");
    feat_is(m, 0, "in1.rank", NULL, "0");
    feat_is(m, 0, "in0.dim0", NULL, "2");
    feat_is(m, 0, "in0.dim1", NULL, "5");
    feat_is(m, 0, "in0.dim2", NULL, NULL);
    feat_is(m, 0, "in0.numel", NULL, "10");
    feat_is(m, 0, "in0.const", NULL, "0");
    feat_is(m, 0, "in1.const", NULL, "1");
    feat_is(m, 0, "in0.producer", NULL, "input");
    feat_is(m, 0, "in1.producer", NULL, "const");
    feat_is(m, 0, "in0.graph_input", NULL, "1");
    feat_is(m, 0, "in1.graph_input", NULL, "0");
    feat_is(m, 0, "in0.producer_gpu", NULL, NULL);            /* a graph input has no producer */
    feat_is(m, 0, "out0.graph_output", NULL, "0");
    feat_is(m, 0, "out0.consumed", NULL, "1");
    feat_is(m, 0, "in2.dtype", NULL, NULL);                   /* no slot 2 */
    feat_is(m, 0, "out1.rank", NULL, NULL);
    feat_is(m, 0, "opt.exclusive", NULL, "1");
    feat_is(m, 0, "opt.reverse", NULL, "0");
    feat_is(m, 0, "opt.keep_num_dims", NULL, NULL);           /* not a CUMSUM option */
    feat_is(m, 0, "axis", NULL, "1");                         /* -1 normalised */
    feat_is(m, 0, "axis_raw", NULL, "-1");                    /* as the model gives it */
    feat_is(m, 0, "axis_size", NULL, "5");
    feat_is(m, 0, "reduce_size", NULL, "5");
    feat_is(m, 0, "bcast", NULL, "2x0");                      /* two inputs: ranks of in0 x in1 */
    feat_is(m, 0, "rank_mismatch_lead", NULL, "10");          /* the rank-0 axis lacks both dims of x: 2*5 */
    feat_is(m, 0, "bcast_meet", NULL, NULL);                  /* a rank-0 operand has no dim 0 */
    feat_is(m, 0, "lo.rank", NULL, "0");
    feat_is(m, 1, "in0.producer", NULL, "CUMSUM");
    uint8_t gpu[2] = { 1, 0 };
    feat_is(m, 1, "in0.producer_gpu", gpu, "1");
    feat_is(m, 1, "in0.producer_gpu", NULL, "0");
    feat_is(m, 1, "out0.graph_output", NULL, "1");
    feat_is(m, 1, "out0.consumed", NULL, "0");
    feat_is(m, 1, "bcast", NULL, NULL);                       /* one input */
    feat_is(m, 1, "axis", NULL, NULL);
    feat_is(m, 1, "axis_raw", NULL, NULL);
    feat_is(m, 1, "groups", NULL, NULL);                      /* not a CONV_2D */
    /* the producer's features: the RELU reads the CUMSUM's output */
    feat_is(m, 1, "in0.producer.opt.exclusive", NULL, "1");
    feat_is(m, 1, "in0.producer.in1.const", NULL, "1");
    feat_is(m, 1, "in0.producer.in0.producer", NULL, "input");
    feat_is(m, 1, "in*.producer.axis_raw", NULL, "-1");
    feat_is(m, 1, "in0.producer.out0.consumed", NULL, "1");
    feat_is(m, 1, "in0.producer.in0.producer_gpu", gpu, NULL);   /* a graph input: no producer */
    feat_is(m, 0, "in0.producer.n_in", NULL, NULL);           /* a graph input: nobody writes it */
    feat_is(m, 0, "in1.producer.n_in", NULL, NULL);           /* a constant */
    /* keys the engine does not know */
    const char *bad[] = { "in0.bogus", "opt.", "opt.Exclusive", "in64.dtype", "in0.dim16", "foo", "in.dtype", "in0dtype",
                          "out*", "lo.", "in0.dim", "in0.rank2", "in100.rank", "", "in0.producer.", "out0.producer.n_in",
                          "in0.producer.in0.producer.n_in", "in0.producer.bogus", "producer.n_in", "in0.producer.in0" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) feat_is(m, 0, bad[i], NULL, NULL);
    CHECK(!gc_fact_feature(m, 0, 2, "n_in", NULL, (char[8]){0}, 8));   /* no node 2 */
    CHECK(!gc_fact_feature(m, 1, 0, "n_in", NULL, (char[8]){0}, 8));   /* no subgraph 1 */
    gc_model_free(m);
}

GC_TEST(numerics_features_graph) {
    gc_model *m = m_chain();
    feat_is(m, 0, "out0.consumed", NULL, "2");   /* r: ADD(r, r) counts once, MUL once */
    feat_is(m, 1, "in0.producer", NULL, "RELU");
    feat_is(m, 1, "in*.producer", NULL, "RELU");
    feat_is(m, 2, "in1.producer", NULL, "const");
    feat_is(m, 2, "in*.const", NULL, "0");       /* the first input where it is defined */
    feat_is(m, 3, "in1.producer", NULL, "MUL");
    feat_is(m, 3, "out*.graph_output", NULL, "1");
    feat_is(m, 1, "out0.graph_output", NULL, "0");
    feat_is(m, 1, "bcast", NULL, "2x2");
    feat_is(m, 1, "rank_mismatch_lead", NULL, NULL);   /* equal ranks */
    feat_is(m, 1, "bcast_meet", NULL, NULL);
    feat_is(m, 1, "lo.rank", NULL, NULL);
    feat_is(m, 1, "opt.fused_activation_function", NULL, "0");
    gc_model_free(m);
    /* mixed rank: lo / hi whatever the operand order */
    for (int swap = 0; swap < 2; swap++) {
        m = m_mixed(2, 24, swap);
        feat_is(m, 0, "bcast", NULL, swap ? "4x3" : "3x4");
        feat_is(m, 0, "lo.rank", NULL, "3");
        feat_is(m, 0, "hi.rank", NULL, "4");
        feat_is(m, 0, "lo.dim0", NULL, "24");
        feat_is(m, 0, "hi.dim0", NULL, "2");
        feat_is(m, 0, "lo.const", NULL, "0");
        feat_is(m, 0, "hi.const", NULL, "1");
        feat_is(m, 0, "rank_mismatch_lead", NULL, "2");
        feat_is(m, 0, "bcast_meet", NULL, "24");
        feat_is(m, 0, swap ? "in0.const" : "in1.const", NULL, "1");
        gc_model_free(m);
    }
}

GC_TEST(numerics_features_axes) {
    /* SUM over axes [1, -1] of [2,3,4]: 12 per output, no single axis; over [-1]: axis 2 */
    for (int k = 0; k < 2; k++) {
        gc_rb b = gc_rb_new();
        int32_t x = T("x", F32, 2, 3, 4);
        int32_t ax = k ? gc_rb_i32(&b, "axes", L(-1)) : gc_rb_i32(&b, "axes", L(1, -1, 1));
        int32_t p = k ? T("probe", F32, 2, 3) : T("probe", F32, 2);
        OP(GC_OP_SUM, IN(x, ax), OUT(p));
        gc_model *m = gc_rb_done(&b);
        feat_is(m, 0, "reduce_size", NULL, k ? "4" : "12");
        feat_is(m, 0, "axis", NULL, k ? "2" : NULL);
        feat_is(m, 0, "axis_size", NULL, k ? "4" : NULL);
        feat_is(m, 0, "opt.keep_dims", NULL, "0");
        gc_model_free(m);
    }
    gc_model *m = m_softmax(7);
    feat_is(m, 0, "axis", NULL, "1");
    feat_is(m, 0, "axis_size", NULL, "7");
    feat_is(m, 0, "reduce_size", NULL, "7");
    feat_is(m, 0, "opt.beta", NULL, "1");
    gc_model_free(m);
    gc_rb lb = gc_rb_new();
    int32_t lx = gc_rb_t(&lb, "x", F32, L(1, 8)), ly = gc_rb_t(&lb, "probe", F32, L(1, 8));
    int32_t lop = gc_rb_op(&lb, GC_OP_LEAKY_RELU, 1, IN(lx), OUT(ly));
    gc_rb_optf(&lb, lop, GC_O_LeakyReluOptions_alpha, 0.25);
    m = gc_rb_done(&lb);
    feat_is(m, 0, "opt.alpha", NULL, "0.25");
    gc_model_free(m);
    m = m_gather(3);
    feat_is(m, 1, "axis", NULL, "0");
    feat_is(m, 1, "axis_raw", NULL, "0");
    feat_is(m, 1, "in1.numel", NULL, "3");
    feat_is(m, 1, "axis_size", NULL, "4");
    feat_is(m, 1, "opt.batch_dims", NULL, "0");
    feat_is(m, 1, "reduce_size", NULL, NULL);
    gc_model_free(m);
    /* SPLIT(axis const 1, x[2,6]) -> probe, b; probe is a graph output, b is consumed */
    gc_rb b = gc_rb_new();
    int32_t ax = SCALAR_I32("axis", 1), x = T("x", F32, 2, 6), p = T("probe", F32, 2, 3), q = T("q", F32, 2, 3);
    int32_t y = T("y", F32, 2, 3);
    int32_t op = OP(GC_OP_SPLIT, IN(ax, x), OUT(p, q));
    gc_rb_opt(&b, op, GC_O_SplitOptions_num_splits, 2);
    OP(GC_OP_RELU, IN(q), OUT(y));
    m = gc_rb_done(&b);
    feat_is(m, 0, "axis", NULL, "1");
    feat_is(m, 0, "axis_size", NULL, "6");
    feat_is(m, 0, "n_out", NULL, "2");
    feat_is(m, 0, "opt.num_splits", NULL, "2");
    feat_is(m, 0, "out0.graph_output", NULL, "1");
    feat_is(m, 0, "out1.graph_output", NULL, "0");
    feat_is(m, 0, "out1.consumed", NULL, "1");
    gc_model_free(m);
    /* FULLY_CONNECTED keep_num_dims, BATCH_MATMUL adj_x */
    b = gc_rb_new();
    int32_t fx = T("x", F32, 2, 3, 8), w = C("w", F32, 4, 8), fy = T("probe", F32, 2, 3, 4);
    op = OP(GC_OP_FULLY_CONNECTED, IN(fx, w, -1), OUT(fy));
    gc_rb_opt(&b, op, GC_O_FullyConnectedOptions_keep_num_dims, 1);
    int32_t u = T("u", F32, 2, 4, 3), v = T("v", F32, 2, 4, 5), z = T("z", F32, 2, 3, 5);
    op = OP(GC_OP_BATCH_MATMUL, IN(u, v), OUT(z));
    gc_rb_opt(&b, op, GC_O_BatchMatMulOptions_adj_x, 1);
    m = gc_rb_done(&b);
    feat_is(m, 0, "opt.keep_num_dims", NULL, "1");
    feat_is(m, 0, "n_in", NULL, "2");            /* the absent bias slot is not counted */
    feat_is(m, 0, "in2.dtype", NULL, NULL);
    feat_is(m, 0, "bcast", NULL, "3x2");          /* slots 0 and 1 present, the bias absent */
    feat_is(m, 1, "opt.adj_x", NULL, "1");
    feat_is(m, 1, "opt.adj_y", NULL, "0");
    feat_is(m, 1, "bcast", NULL, "3x3");
    gc_model_free(m);
    /* CONV_2D groups: input channels / the filter's input channels */
    for (int g = 1; g <= 3; g++) {
        b = gc_rb_new();
        int32_t cx = T("x", F32, 1, 8, 8, 12), cw = C("w", F32, 6, 3, 3, 12 / g), cy = T("probe", F32, 1, 6, 6, 6);
        op = OP(GC_OP_CONV_2D, IN(cx, cw, -1), OUT(cy));
        gc_rb_opt(&b, op, GC_O_Conv2DOptions_padding, 1);
        m = gc_rb_done(&b);
        feat_is(m, 0, "groups", NULL, g == 1 ? "1" : g == 2 ? "2" : "3");
        gc_model_free(m);
    }
    b = gc_rb_new();   /* 12 channels with a filter of 5: no whole number of groups */
    int32_t gx = T("x", F32, 1, 8, 8, 12), gw = C("w", F32, 6, 3, 3, 5), gy = T("probe", F32, 1, 6, 6, 6);
    OP(GC_OP_CONV_2D, IN(gx, gw, -1), OUT(gy));
    m = gc_rb_done(&b);
    feat_is(m, 0, "groups", NULL, NULL);
    gc_model_free(m);
}

GC_TEST(numerics_producer_features) {
    /* w_q int8 const -> DEQUANTIZE -> w; x[3,16] -> FULLY_CONNECTED(x, w) -> probe; the
     * fact's conditions read the producer of the weights: one level of producer. */
    gc_rb b = gc_rb_new();
    int32_t x = T("x", F32, 3, 16), wq = C("w_q", GC_T_INT8, 8, 16), w = T("w", F32, 8, 16), p = T("probe", F32, 3, 8);
    OP(GC_OP_DEQUANTIZE, IN(wq), OUT(w));
    OP(GC_OP_FULLY_CONNECTED, IN(x, w, -1), OUT(p));
    gc_model *m = gc_rb_done(&b);
    uint8_t both[2] = { 1, 1 };
    feat_is(m, 1, "in1.producer", NULL, "DEQUANTIZE");
    feat_is(m, 1, "in1.producer.in0.dtype", NULL, "INT8");
    feat_is(m, 1, "in1.producer.in0.const", NULL, "1");
    feat_is(m, 1, "in1.producer.n_in", NULL, "1");
    feat_is(m, 1, "in*.producer.in0.dtype", NULL, "INT8");   /* x is a graph input: only w has a producer */
    feat_is(m, 1, "in0.producer.in0.dtype", NULL, NULL);
    feat_is(m, 1, "in1.producer_gpu", both, "1");
    static const gc_fact_cond c[] = { { "in1.producer", GC_FC_EQ, "DEQUANTIZE" },
                                      { "in1.producer.in0.dtype", GC_FC_EQ, "INT8|UINT8" } };
    gc_gpu_fact f = { "t.t", "native-2.3.0", "d", "FULLY_CONNECTED", "", 2, c, 0, 0, "e", "", "", "m", 1 };
    CHECK(gc_fact_matches(&f, m, 0, 1, NULL));
    static const gc_fact_cond c_f16[] = { { "in*.producer.in0.dtype", GC_FC_EQ, "FLOAT16" } };
    gc_gpu_fact g = { "t.t", "native-2.3.0", "d", "*", "", 1, c_f16, 0, 0, "e", "", "", "m", 1 };
    CHECK(!gc_fact_matches(&g, m, 0, 1, NULL));
    static const gc_fact_cond c_ne[] = { { "in0.producer.in0.dtype", GC_FC_NE, "INT8" } };   /* undefined: false */
    gc_gpu_fact h = { "t.t", "native-2.3.0", "d", "*", "", 1, c_ne, 0, 0, "e", "", "", "m", 1 };
    CHECK(!gc_fact_matches(&h, m, 0, 1, NULL));
    /* the validator knows the keys: an option of the producer is checked against every op */
    static const gc_fact_cond c_opt[] = { { "in0.producer.opt.axis", GC_FC_EQ, "1" } };
    gc_gpu_fact ok = { "a.b", "js-2.5.3", "d", "CONCATENATION", "x", 1, c_opt, 0, 0, "e", "", "", "m", 9 };
    gc_gpu_facts t = { "ok.tsv", 3, rts, 1, &ok };
    char err[256];
    CHECK_MSG(gc_facts_validate(&t, err, sizeof err), "%s", err);
    static const gc_fact_cond c_bad[] = { { "in0.producer.opt.no_such_option", GC_FC_EQ, "1" } };
    ok.cond = c_bad;
    CHECK(!gc_facts_validate(&t, err, sizeof err) && strstr(err, "no_such_option"));
    gc_model_free(m);
}

static bool match(const char *op, const char *key, int cmp, const char *value, gc_model *m, int32_t node) {
    gc_fact_cond cd = { key, cmp, value };
    gc_gpu_fact f = { .id = "t.t", .runtime = "native-2.3.0", .device = "d", .op = op, .when = key, .n_cond = 1,
                      .cond = &cd, .message = "m" };
    return gc_fact_matches(&f, m, 0, node, NULL);
}

GC_TEST(numerics_conditions) {
    gc_model *m = m_mixed(2, 24, false);   /* ADD [24,49,49] + const [2,24,49,49] */
    CHECK(match("ADD", "lo.dim0", GC_FC_EQ, "24", m, 0));
    CHECK(!match("ADD", "lo.dim0", GC_FC_EQ, "25", m, 0));
    CHECK(match("ADD", "lo.dim0", GC_FC_EQ, "1|24", m, 0));
    CHECK(!match("ADD", "lo.dim0", GC_FC_EQ, "1|2", m, 0));
    CHECK(match("ADD", "lo.dim0", GC_FC_NE, "1|2", m, 0));
    CHECK(!match("ADD", "lo.dim0", GC_FC_NE, "24|1", m, 0));
    CHECK(match("ADD", "lo.dim0", GC_FC_GT, "23", m, 0));
    CHECK(!match("ADD", "lo.dim0", GC_FC_GT, "24", m, 0));
    CHECK(match("ADD", "lo.dim0", GC_FC_GE, "24", m, 0));
    CHECK(match("ADD", "lo.dim0", GC_FC_LT, "25", m, 0));
    CHECK(!match("ADD", "lo.dim0", GC_FC_LT, "24", m, 0));
    CHECK(match("ADD", "lo.dim0", GC_FC_LE, "24", m, 0));
    CHECK(!match("ADD", "lo.dim0", GC_FC_LE, "23.5", m, 0));
    CHECK(match("ADD", "lo.dim0", GC_FC_EQ, "24.0", m, 0));          /* numbers compare as numbers */
    CHECK(match("ADD", "bcast", GC_FC_EQ, "4x4|3x4", m, 0));          /* strings as strings */
    CHECK(!match("ADD", "bcast", GC_FC_GT, "2", m, 0));               /* a string is not ordered */
    CHECK(match("ADD", "in0.dtype", GC_FC_NE, "INT32", m, 0));
    CHECK(!match("ADD", "in0.dtype", GC_FC_EQ, "float32", m, 0));     /* exact: the tool writes FLOAT32 */
    /* undefined: false, != included */
    CHECK(!match("ADD", "in5.dtype", GC_FC_NE, "INT32", m, 0));
    CHECK(!match("ADD", "axis", GC_FC_NE, "0", m, 0));
    CHECK(!match("ADD", "in0.bogus", GC_FC_NE, "0", m, 0));
    /* op patterns */
    CHECK(match("*", "n_in", GC_FC_EQ, "2", m, 0));
    CHECK(match("SUB|ADD", "n_in", GC_FC_EQ, "2", m, 0));
    CHECK(!match("SUB|MUL", "n_in", GC_FC_EQ, "2", m, 0));
    CHECK(!match("AD", "n_in", GC_FC_EQ, "2", m, 0));
    CHECK(!match("ADD|", "n_in", GC_FC_NE, "2", m, 0));
    /* in*: any input */
    CHECK(match("ADD", "in*.const", GC_FC_EQ, "1", m, 0));
    CHECK(match("ADD", "in*.const", GC_FC_EQ, "0", m, 0));
    CHECK(!match("ADD", "in*.rank", GC_FC_GT, "4", m, 0));
    CHECK(match("ADD", "out*.rank", GC_FC_EQ, "4", m, 0));
    /* every condition must hold */
    gc_gpu_fact f = facts[5];
    CHECK(gc_fact_matches(&f, m, 0, 0, NULL));
    gc_model_free(m);
    m = m_mixed(1, 1, false);                                          /* the mask case: meet 1 */
    CHECK(!gc_fact_matches(&f, m, 0, 0, NULL));
    CHECK(gc_fact_matches(&facts[6], m, 0, 0, NULL));
    gc_model_free(m);
}

GC_TEST(numerics_wrong_fact) {
    gc_model *m = m_cumsum(true, false);
    gc_check_result *r = check(m, NULL, 0);
    const gc_check_node *n = probe(r, m);
    CHECK(r && r->runtime && !strcmp(r->runtime->name, "native-2.3.0"));
    CHECK(n && n->gpu && n->numerics == GC_NUM_WRONG);
    CHECK(n && n->numerics_rule && !strcmp(n->numerics_rule, "numerics.cumsum_exclusive"));
    CHECK(n && n->evidence == &facts[2]);
    CHECK(n && n->fix_id && !strcmp(n->fix_id, "fix.cumsum.exclusive"));
    CHECK(r && r->gpu_clean && !r->gpu_correct && r->wrong_nodes == 1 && r->risk_nodes == 0);
    CHECK(r && r->nodes[1].numerics == GC_NUM_OK && !r->nodes[1].numerics_rule && !r->nodes[1].evidence);
    gc_check_free(r);
    /* the same model on a runtime without the fact; the fact's id on another runtime */
    r = check(m, "js-2.5", 0);
    n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_OK && !n->evidence);
    CHECK(r && r->gpu_correct && r->wrong_nodes == 0);
    gc_check_free(r);
    r = check(m, "native-2.4", 0);
    CHECK(r && r->gpu_correct && !strcmp(r->runtime->name, "native-2.4.1"));
    gc_check_free(r);
    gc_model_free(m);
    /* not exclusive: silent */
    m = m_cumsum(false, true);
    r = check(m, NULL, 0);
    n = probe(r, m);
    CHECK(n && n->gpu && n->numerics == GC_NUM_OK && !n->numerics_rule);
    CHECK(r && r->gpu_correct);
    gc_check_free(r);
    gc_model_free(m);
    /* an unknown runtime is an error, not a silent default */
    m = m_cumsum(true, true);
    gc_check_opts o = { .facts = &table, .runtime = "native-9" };
    char err[256] = "";
    CHECK(gc_check_ex(m, GC_TARGET_MLDRIFT, &o, err, sizeof err) == NULL);
    CHECK_MSG(strstr(err, "unknown runtime 'native-9'"), "%s", err);
    o.runtime = NULL; o.precision = 7;
    CHECK(gc_check_ex(m, GC_TARGET_MLDRIFT, &o, err, sizeof err) == NULL);
    /* the classic delegate is another runtime: no facts apply */
    o.precision = 0;
    r = gc_check_ex(m, GC_TARGET_CLASSIC, &o, err, sizeof err);
    CHECK(r && !r->runtime && r->gpu_correct && r->wrong_nodes == 0);
    n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_OK && !n->evidence);
    gc_check_free(r);
    gc_model_free(m);
}

GC_TEST(numerics_cast_and_densify) {
    /* float -> INT32 CAST: wrong on both runtimes (same id); int32 -> float: silent */
    for (int k = 0; k < 2; k++) {
        gc_rb b = gc_rb_new();
        int32_t x = T("x", k ? GC_T_INT32 : F32, 1, 8), p = T("probe", k ? F32 : GC_T_INT32, 1, 8);
        OP(GC_OP_CAST, IN(x), OUT(p));
        gc_model *m = gc_rb_done(&b);
        for (int js = 0; js < 2; js++) {
            gc_check_result *r = check(m, js ? "js" : "native", 0);
            const gc_check_node *n = probe(r, m);
            CHECK(n && n->gpu);
            CHECK_MSG(n && n->numerics == (k ? GC_NUM_OK : GC_NUM_WRONG), "cast %d on %s: %s", k, js ? "js" : "native",
                      n ? gc_numerics_name(n->numerics) : "?");
            if (!k) CHECK(n && n->evidence == &facts[js]);
            gc_check_free(r);
        }
        gc_model_free(m);
    }
    /* x + DENSIFY(w): DENSIFY stays on the CPU, the ADD on the GPU reads it (wrong) */
    gc_rb b = gc_rb_new();
    int32_t w = C("w", F32, 4, 8), d = T("d", F32, 4, 8), x = T("x", F32, 4, 8), p = T("probe", F32, 4, 8);
    OP(GC_OP_DENSIFY, IN(w), OUT(d));
    OP(GC_OP_ADD, IN(x, d), OUT(p));
    gc_model *m = gc_rb_done(&b);
    gc_check_result *r = check(m, NULL, 0);
    const gc_check_node *n = probe(r, m);
    CHECK(r && !r->nodes[0].gpu && r->nodes[0].numerics == GC_NUM_OK);   /* the CPU is the reference */
    CHECK(n && n->gpu && n->numerics == GC_NUM_WRONG && n->evidence == &facts[4]);
    CHECK(r && !r->gpu_clean && !r->gpu_correct);
    gc_check_free(r);
    gc_model_free(m);
}

GC_TEST(numerics_precision_and_ok) {
    /* wrong at fp16 only: a risk when checking fp32, wrong when checking fp16 */
    gc_model *m = m_softmax(1000);
    gc_check_result *r = check(m, NULL, GC_FPREC_FP32);
    const gc_check_node *n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_RISK && n->evidence == &facts[7]);
    CHECK(r && r->gpu_correct && r->risk_nodes == 1 && r->wrong_nodes == 0 && r->precision == GC_FPREC_FP32);
    CHECK(n && !n->fix_id);                    /* a risk changes no fix */
    gc_check_free(r);
    r = check(m, NULL, GC_FPREC_FP16);
    n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_WRONG && n->evidence == &facts[7]);
    CHECK(r && !r->gpu_correct && r->wrong_nodes == 1);
    gc_check_free(r);
    gc_model_free(m);
    /* wrong at fp32: wrong when checking fp16 too */
    m = m_cumsum(true, true);
    r = check(m, NULL, GC_FPREC_FP16);
    n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_WRONG);
    gc_check_free(r);
    gc_model_free(m);
    /* an ok fact: ok, with the measurement as evidence */
    m = m_softmax(7);
    r = check(m, NULL, 0);
    n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_OK && n->evidence == &facts[8]);
    CHECK(n && n->numerics_rule && !strcmp(n->numerics_rule, "ok.softmax_short"));
    gc_check_free(r);
    gc_model_free(m);
    /* Swin's ADD: the wrong fact decides; the lint stays a risk note; the mask case is ok */
    m = m_mixed(1, 24, false);
    r = check(m, NULL, 0);
    n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_WRONG && n->evidence == &facts[5]);
    bool lint = false;
    for (int32_t i = 0; r && i < r->n_risks; i++) lint |= !strcmp(r->risks[i].rule, "mldrift.mixed_rank_broadcast");
    CHECK(lint);
    gc_check_free(r);
    gc_model_free(m);
    m = m_mixed(1, 1, false);
    r = check(m, NULL, 0);
    n = probe(r, m);
    CHECK(n && n->numerics == GC_NUM_OK && n->evidence == &facts[6]);
    gc_check_free(r);
    gc_model_free(m);
}

GC_TEST(numerics_lint_risk) {
    /* SUM over 4096 elements: fp16.sum_large (a warning) makes the GPU node a risk */
    gc_rb b = gc_rb_new();
    int32_t x = T("x", F32, 1, 4096), ax = gc_rb_i32(&b, "axes", L(1)), p = T("probe", F32, 1);
    OP(GC_OP_SUM, IN(x, ax), OUT(p));
    gc_model *m = gc_rb_done(&b);
    gc_check_result *r = check(m, NULL, 0);
    const gc_check_node *n = probe(r, m);
    CHECK(n && n->gpu && n->numerics == GC_NUM_RISK && !n->evidence);
    CHECK(n && n->numerics_rule && !strcmp(n->numerics_rule, "fp16.sum_large"));
    CHECK(r && r->gpu_correct && r->risk_nodes == 1);
    gc_check_free(r);
    gc_model_free(m);
    /* HARD_SWISH: only an info note (fp16.approx_activation): ok */
    b = gc_rb_new();
    x = T("x", F32, 1, 8, 8, 4); p = T("probe", F32, 1, 8, 8, 4);
    OP(GC_OP_HARD_SWISH, IN(x), OUT(p));
    m = gc_rb_done(&b);
    r = check(m, NULL, 0);
    n = probe(r, m);
    CHECK(r && r->n_risks == 1 && r->risks[0].level == GC_RISK_INFO);
    CHECK(n && n->gpu && n->numerics == GC_NUM_OK && !n->numerics_rule);
    gc_check_free(r);
    gc_model_free(m);
}

GC_TEST(numerics_init_failed_fallback) {
    /* the test table: a constant index is fine on native, kernel building fails on js ->
     * every node on the CPU */
    gc_model *m = m_gather(1);
    gc_check_result *r = check(m, "native", 0);
    CHECK(r && r->gpu_clean && r->gpu_nodes == 2 && !r->fatal);
    gc_check_free(r);
    r = check(m, "js-2.5.3", 0);
    const gc_check_node *n = probe(r, m);
    CHECK(r && !r->gpu_clean && r->gpu_nodes == 0 && r->partitions == 0 && r->gpu_correct);
    CHECK(r && r->fatal && !strcmp(r->fatal, facts[3].message));
    CHECK(n && n->state == GC_NODE_INIT_FAILED && n->fatal && !n->gpu);
    CHECK(n && n->rule && !strcmp(n->rule, "init.gather_const_indices"));
    CHECK(n && !strcmp(n->reason, "Unable to parse bc coord for BATCH axis"));
    CHECK(n && n->evidence == &facts[3] && n->numerics == GC_NUM_OK);
    CHECK(n && n->fix_id && !strcmp(n->fix_id, "fix.gather.const_indices") && n->fix_tflite && n->fix_tflite[0]);
    CHECK(r && r->nodes[0].state == GC_NODE_INIT_FAILED && !r->nodes[0].fatal);   /* the RELU too */
    CHECK(r && r->subgraphs[0].gpu_nodes == 0 && r->subgraphs[0].delegated == 0);
    gc_check_free(r);
    gc_model_free(m);
    /* the builtin table: three constant indices build on native 2.3.0 (an ok fact: its
     * evidence) and fail kernel building on LiteRT.js 2.5.3; no static rule decides */
    m = m_gather(3);
    char err[256];
    gc_check_opts o = { .runtime = "js-2.5" };
    r = gc_check_ex(m, GC_TARGET_MLDRIFT, &o, err, sizeof err);
    n = probe(r, m);
    CHECK(r && r->fatal && n && n->rule && !strcmp(n->rule, "init.gather_const_indices"));
    CHECK(n && n->evidence && strstr(n->evidence->evidence, "gather_rtp_idxconst1d_axis0"));
    gc_check_free(r);
    r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    n = probe(r, m);
    CHECK(r && !r->fatal && r->gpu_clean && r->gpu_correct && n && n->gpu);
    CHECK(n && n->numerics == GC_NUM_OK && n->numerics_rule && !strcmp(n->numerics_rule, "ok.gather_const_indices"));
    gc_check_free(r);
    gc_model_free(m);
}

GC_TEST(numerics_validate_bad_tables) {
    char err[256];
    gc_fact_cond cd = { "in0.dtype", GC_FC_EQ, "FLOAT32" };
    struct { gc_gpu_fact f; const char *want; } cases[] = {
        { { "a.b", "native-9", "d", "ADD", "-", 0, NULL, 0, 0, "e", "", "", "m", 3 }, "runtime 'native-9' is not declared" },
        { { "a.b", "js-2.5.3", "d", "ADDD", "-", 0, NULL, 0, 0, "e", "", "", "m", 4 }, "unknown op 'ADDD'" },
        { { "a.b", "js-2.5.3", "d", "ADD|", "-", 0, NULL, 0, 0, "e", "", "", "m", 5 }, "unknown op" },
        { { "a.b", "js-2.5.3", "d", "ADD", "-", 1, &cd, 0, 5, "e", "", "", "m", 6 }, "verdict 5" },
        { { "a.b", "js-2.5.3", "d", "ADD", "-", 0, NULL, 0, 0, "e", "", "", "", 7 }, "no message" },
        { { "a.b", "js-2.5.3", "d", "ADD", "-", 1, NULL, 0, 0, "e", "", "", "m", 8 }, "1 conditions, none given" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gc_gpu_facts t = { "bad.tsv", 3, rts, 1, &cases[i].f };
        CHECK(!gc_facts_validate(&t, err, sizeof err));
        CHECK_MSG(strstr(err, cases[i].want) && strstr(err, "bad.tsv:"), "case %zu: %s", i, err);
    }
    const gc_fact_cond bad[][1] = { { { "in0.bogus", GC_FC_EQ, "1" } }, { { "opt.no_such_option", GC_FC_EQ, "1" } },
                                    { { "in0.rank", GC_FC_GT, "four" } }, { { "in0.rank", 9, "4" } } };
    const char *want[] = { "unknown key 'in0.bogus'", "no builtin option is called 'no_such_option'", "not a number",
                           "condition kind 9" };
    for (int i = 0; i < 4; i++) {
        gc_gpu_fact f = { "a.b", "js-2.5.3", "d", "ADD", "x", 1, bad[i], 0, 0, "e", "", "", "m", 9 };
        gc_gpu_facts t = { "bad.tsv", 3, rts, 1, &f };
        CHECK(!gc_facts_validate(&t, err, sizeof err));
        CHECK_MSG(strstr(err, want[i]) && strstr(err, "bad.tsv:9"), "%s", err);
    }
    gc_gpu_runtime two[2] = { rts[0], rts[0] };
    two[1].name = "native-2.3.1";
    gc_gpu_facts t2 = { "two.tsv", 2, two, 0, NULL };
    CHECK(!gc_facts_validate(&t2, err, sizeof err) && strstr(err, "2 default runtimes"));
}

GC_TEST(numerics_json_and_text) {
    gc_model *m = m_cumsum(true, false);
    gc_check_result *r = check(m, NULL, 0);
    gc_str j = {0}, t = {0}, q = {0};
    gc_check_json(r, m, "m.tflite", &j);
    const char *want_json[] = {
        "\"gpu_correct\": false, \"runtime\": \"native-2.3.0\", \"precision\": \"fp32\", \"wrong_nodes\": 1, \"risk_nodes\": 0",
        "\"numerics\": \"wrong\", \"numerics_rule\": \"numerics.cumsum_exclusive\", \"evidence\": {\"fact\": "
        "\"numerics.cumsum_exclusive\", \"runtime\": \"native\", \"version\": \"2.3.0\", \"device\": \"nvidia-h200\", "
        "\"precision\": \"fp32\", \"verdict\": \"wrong\", \"error\": \"max_abs=3.5 corr=0.71\", \"cases\": [\"cumsum_excl\", "
        "\"cumsum_excl_rev\"], \"message\": \"CUMSUM ignores exclusive on the GPU\", \"fix\": \"fix.cumsum.exclusive\", "
        "\"source\": \"test-facts.tsv:12\"}",
        "\"numerics\": \"ok\", \"numerics_rule\": null, \"evidence\": null}",
        "\"fix\": {\"id\": \"fix.cumsum.exclusive\", \"torch\": \"\", \"tflite\": \"\"}",
    };
    for (size_t i = 0; i < sizeof want_json / sizeof want_json[0]; i++)
        CHECK_MSG(j.s && strstr(j.s, want_json[i]), "JSON lacks %s\n%s", want_json[i], j.s ? j.s : "");
    gc_check_text(r, m, "m.tflite", false, &t);
    const char *want_text[] = {
        "m.tflite: node 0 CUMSUM 'probe': error: wrong numbers on the GPU: CUMSUM ignores exclusive on the GPU "
        "[numerics.cumsum_exclusive]\n"
        "  measured on native-2.3.0 (nvidia-h200, fp32): max_abs=3.5 corr=0.71; cases: cumsum_excl, cumsum_excl_rev\n"
        "  fix: fix.cumsum.exclusive\n",
        "m.tflite: error: 1 node(s) on the GPU compute wrong numbers (measured on native-2.3.0, fp32)\n",
        "runtime: native-2.3.0, fp32 (7 measured fact(s); gpuclean check --list-runtimes)\n",
        "GPU residency: 2/2 nodes in 1 partition(s) (all on the GPU, numbers wrong)\n",
    };
    for (size_t i = 0; i < sizeof want_text / sizeof want_text[0]; i++)
        CHECK_MSG(t.s && strstr(t.s, want_text[i]), "text lacks:\n%s\n--- got:\n%s", want_text[i], t.s ? t.s : "");
    CHECK(t.s && !strstr(t.s, "node 1 RELU"));          /* ok GPU nodes stay quiet */
    gc_check_summary_text(r, "m.tflite", false, &q);   /* --quiet: the error line, then the residency line */
    CHECK_MSG(q.s && !strcmp(q.s, "m.tflite: error: 1 node(s) on the GPU compute wrong numbers (measured on "
                                  "native-2.3.0, fp32)\nGPU residency: 2/2 nodes in 1 partition(s) (all on the GPU, "
                                  "numbers wrong)\n"), "%s", q.s ? q.s : "");
    gc_str_free(&j); gc_str_free(&t); gc_str_free(&q);
    gc_check_free(r);
    gc_model_free(m);
    /* two wrong CAST nodes print as one group; an fp16-only fact prints as a warning */
    gc_rb b = gc_rb_new();
    int32_t x = T("x", F32, 1, 8), c1 = T("c1", GC_T_INT32, 1, 8), y = T("y", F32, 1, 8), p = T("probe", GC_T_INT32, 1, 8);
    OP(GC_OP_CAST, IN(x), OUT(c1));
    OP(GC_OP_RELU, IN(x), OUT(y));
    OP(GC_OP_CAST, IN(y), OUT(p));
    int32_t s = T("s", F32, 1, 1000), sp = T("sm", F32, 1, 1000);
    gc_rb_optf(&b, OP(GC_OP_SOFTMAX, IN(s), OUT(sp)), GC_O_SoftmaxOptions_beta, 1.0);
    m = gc_rb_done(&b);
    r = check(m, NULL, 0);
    gc_str g = {0};
    gc_check_text(r, m, "g.tflite", false, &g);
    CHECK_MSG(g.s && strstr(g.s, "g.tflite: 2 CAST nodes (0, 2): error: wrong numbers on the GPU: float->int CAST rounds "
                                 "differently from the CPU [numerics.cast_float_int]\n  measured on native-2.3.0 "
                                 "(nvidia-h200, any): max_abs=14; cases: cast_frac, cast_neg\n  fix: fix.cast.round\n"),
              "%s", g.s ? g.s : "");
    CHECK_MSG(g.s && strstr(g.s, "g.tflite: node 3 SOFTMAX 'sm': warning: wrong numbers on the GPU at fp16: softmax over "
                                 "a long axis at fp16 [numerics.softmax_long] (counted as wrong with --precision fp16)\n"),
              "%s", g.s ? g.s : "");
    CHECK(g.s && strstr(g.s, "error: 2 node(s) on the GPU compute wrong numbers"));
    gc_str_free(&g);
    /* verbose: every node alone; an ok GPU node names nothing */
    gc_check_text(r, m, "g.tflite", true, &g);
    CHECK_MSG(g.s && strstr(g.s, "g.tflite: node 0 CAST 'c1': error: wrong numbers") &&
              strstr(g.s, "g.tflite: node 1 RELU 'y': on GPU (partition 0)\n"), "%s", g.s ? g.s : "");
    gc_str_free(&g);
    gc_check_free(r);
    gc_model_free(m);
    /* an init_failed node: its evidence under the delegate's message */
    m = m_gather(1);
    r = check(m, "js", 0);
    gc_check_text(r, m, "i.tflite", false, &g);
    CHECK_MSG(g.s && strstr(g.s, "i.tflite: node 1 GATHER 'probe': breaks GPU delegate init: Unable to parse bc coord for "
                                 "BATCH axis [init.gather_const_indices]\n  measured on js-2.5.3 (nvidia-h200, any); "
                                 "cases: gather_c1\n") &&
              strstr(g.s, "i.tflite: error: GATHER with constant 1-D indices fails kernel building: the whole model runs "
                          "on the CPU\n") && strstr(g.s, "GPU residency: 0/2 nodes in 0 partition(s)\n"),
              "%s", g.s ? g.s : "");
    gc_str_free(&g);
    gc_check_json(r, m, "i.tflite", &g);
    CHECK(g.s && strstr(g.s, "\"rule\": \"init.gather_const_indices\"") && strstr(g.s, "\"verdict\": \"init_failed\""));
    gc_str_free(&g);
    gc_check_free(r);
    gc_model_free(m);
}

GC_TEST(numerics_catalogue_text) {
    gc_str o = {0};
    gc_facts_runtimes_text(&table, &o);
    CHECK_MSG(o.s && strstr(o.s, "native-2.3.0\tnative\t2.3.0\tnvidia-h200\t7\tdefault\ttest native\n") &&
              strstr(o.s, "js-2.5.3\tjs\t2.5.3\tnvidia-h200\t2\t-\ttest js\n") &&
              strstr(o.s, "native-2.4.1\tnative\t2.4.1\t-\t0\t-\t"), "%s", o.s ? o.s : "");
    gc_str_free(&o);
    gc_facts_runtimes_json(&table, &o);
    CHECK(o.s && strstr(o.s, "{\"name\": \"js-2.5.3\", \"runtime\": \"js\", \"version\": \"2.5.3\", \"default\": false, "
                             "\"what\": \"test js\", \"facts\": 2, \"devices\": [{\"device\": \"nvidia-h200\", \"facts\": 2}]}"));
    gc_str_free(&o);
    gc_facts_list_text(&table, &o);
    CHECK_MSG(o.s && strstr(o.s, "numerics.cumsum_exclusive\tfact (wrong)\tnative-2.3.0 nvidia-h200 fp32\tCUMSUM "
                                 "[opt.exclusive=1]\tfix.cumsum.exclusive\tCUMSUM ignores exclusive on the GPU "
                                 "(max_abs=3.5 corr=0.71)\n"), "%s", o.s ? o.s : "");
    gc_str_free(&o);
    gc_fact_explain(&table, "numerics.cast_float_int", NULL, &o);
    CHECK_MSG(o.s && strstr(o.s, "fact: numerics.cast_float_int\nverdict: wrong\nruntime: native-2.3.0 (test native)\n") &&
              strstr(o.s, "runtime: js-2.5.3 (test js)") && strstr(o.s, "source: test-facts.tsv:11\n") &&
              strstr(o.s, "when: in0.dtype=FLOAT32 out0.dtype=INT32|INT16\n"), "%s", o.s ? o.s : "");
    gc_str_free(&o);
    gc_facts_markdown(&table, &o);
    CHECK(o.s && strstr(o.s, "## Measured GPU facts (9)") &&
          strstr(o.s, "| `numerics.mixed_rank` | wrong | native-2.3.0 | nvidia-h200 | fp32 | ADD\\|SUB\\|MUL\\|DIV | "
                      "`bcast=3x4\\|4x3 lo.dim0>1 bcast_meet>1` | corr=0.985 | `fix.broadcast.rank4` |"));
    gc_str_free(&o);
    gc_facts_markdown(&gc_gpu_facts_builtin, &o);   /* the shipped table: the section is there, empty or not */
    CHECK(o.s && strstr(o.s, "## Measured GPU facts ("));
    gc_str_free(&o);
}

/* A table of broad facts (any op, any input from any producer, ...) over every corpus model,
 * both runtimes, both precisions: the engine reads real graphs without a crash, and the
 * result's counts agree with its nodes. */
GC_TEST(numerics_corpus_counts) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("../shared/corpus absent");
    DIR *d = opendir(dir);
    if (!d) SKIP("cannot open %s", dir);
    static const gc_fact_cond wide[] = { { "in*.producer", GC_FC_NE, "input" }, { "out*.consumed", GC_FC_GE, "0" },
                                         { "reduce_size", GC_FC_GT, "64" } };
    static const gc_fact_cond some[] = { { "bcast", GC_FC_EQ, "4x4|3x3|2x2" }, { "in1.const", GC_FC_EQ, "1" } };
    static const gc_fact_cond deq[] = { { "in*.const", GC_FC_EQ, "1" }, { "in*.producer", GC_FC_NE, "DENSIFY" } };
    static const gc_gpu_fact broad[] = {
        { "t.reduce", "native-2.3.0", "d", "*", "", 3, wide, GC_FPREC_FP16, GC_FACT_WRONG, "e", "", "", "m", 1 },
        { "t.bcast", "native-2.3.0", "d", "ADD|MUL|SUB|DIV", "", 2, some, GC_FPREC_FP32, GC_FACT_WRONG, "e", "", "", "m", 2 },
        { "t.ok", "native-2.3.0", "d", "*", "", 0, NULL, GC_FPREC_ANY, GC_FACT_OK, "", "", "", "m", 3 },
        { "t.init", "js-2.5.3", "d", "*", "", 1, deq, GC_FPREC_ANY, GC_FACT_INIT_FAILED, "e", "", "", "m", 4 },
    };
    const gc_gpu_facts bt = { "broad", 3, rts, 4, broad };
    struct dirent *e;
    int models = 0, wrong = 0, fell_back = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".tflite")) continue;
        char path[1200], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gc_model *m = gc_model_read_file(path, err, sizeof err);
        if (!m) continue;
        models++;
        for (int k = 0; k < 3; k++) {
            gc_check_opts o = { .facts = &bt, .runtime = k == 2 ? "js" : "native",
                                .precision = k == 1 ? GC_FPREC_FP16 : GC_FPREC_FP32 };
            gc_check_result *r = gc_check_ex(m, GC_TARGET_MLDRIFT, &o, err, sizeof err);
            CHECK_MSG(r != NULL, "%s: %s", e->d_name, err);
            if (!r) continue;
            int32_t w = 0, k2 = 0, gpu = 0;
            for (int32_t i = 0; i < r->n_nodes; i++) {
                const gc_check_node *nd = &r->nodes[i];
                w += nd->numerics == GC_NUM_WRONG;
                k2 += nd->numerics == GC_NUM_RISK;
                gpu += nd->gpu;
                CHECK_MSG(nd->gpu || nd->numerics == GC_NUM_OK, "%s node %d: %s off the GPU", e->d_name, nd->index,
                          gc_numerics_name(nd->numerics));
                CHECK_MSG(nd->numerics != GC_NUM_WRONG || (nd->evidence && nd->evidence->verdict == GC_FACT_WRONG),
                          "%s node %d: wrong without a wrong fact", e->d_name, nd->index);
                if (nd->gpu && k == 0 && !nd->evidence) CHECK_MSG(nd->numerics == GC_NUM_RISK, "%s node %d: no evidence",
                                                                 e->d_name, nd->index);   /* t.ok matches every node */
            }
            CHECK_EQ_INT(w, r->wrong_nodes);
            CHECK_EQ_INT(k2, r->risk_nodes);
            CHECK_EQ_INT(gpu, r->gpu_nodes);
            CHECK(r->gpu_correct == (w == 0));
            wrong += w;
            if (k == 2 && r->fatal && !strcmp(r->fatal, "m")) fell_back++;
            gc_check_free(r);
        }
        gc_model_free(m);
    }
    closedir(d);
    CHECK(models > 10);
    CHECK_MSG(wrong > 0 && fell_back > 0, "%d wrong nodes, %d models on the CPU: the broad facts matched nothing", wrong,
              fell_back);
}

/* Facts measured on whole corpus models (evidence corpus:<model>): the features they read
 * (composite, quant) and the crashed verdict, with the built-in table. */
GC_TEST(numerics_corpus_composite_int4) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("../shared/corpus absent");
    static const struct { const char *file, *native_id, *js_id, *feat, *want; } cases[] = {
        { "group_norm_2_groups_op.tflite", "crash.group_norm_composite", "numerics.group_norm_composite", "composite",
          "odml.group_norm" },
        { "qwen_fc_blockwise_quantized.tflite", "crash.fc_int4_blockwise", "numerics.fc_int4_blockwise", "in1.quant",
          "blockwise" },
    };
    for (int c = 0; c < 2; c++) {
        char path[1200], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, cases[c].file);
        gc_model *m = gc_model_read_file(path, err, sizeof err);
        if (!m) SKIP("%s unreadable", cases[c].file);
        feat_is(m, 0, cases[c].feat, NULL, cases[c].want);
        if (c == 1) { feat_is(m, 0, "in1.dtype", NULL, "INT4"); feat_is(m, 0, "in0.quant", NULL, "none"); }
        else feat_is(m, 0, "in0.quant", NULL, "none");
        for (int k = 0; k < 2; k++) {
            gc_check_opts o = { .facts = &gc_gpu_facts_builtin, .runtime = k ? "js-2.5" : "native-2.3" };
            gc_check_result *r = gc_check_ex(m, GC_TARGET_MLDRIFT, &o, err, sizeof err);
            CHECK_MSG(r != NULL, "%s: %s", cases[c].file, err);
            if (!r) continue;
            const gc_check_node *n = &r->nodes[0];
            const char *want = k ? cases[c].js_id : cases[c].native_id;
            CHECK_MSG(n->numerics == GC_NUM_WRONG && n->evidence && !strcmp(n->evidence->id, want), "%s on %s: %s %s",
                      cases[c].file, o.runtime, gc_numerics_name(n->numerics), n->evidence ? n->evidence->id : "-");
            CHECK(n->evidence && n->evidence->verdict == (k ? GC_FACT_WRONG : GC_FACT_CRASHED));
            CHECK(r->gpu_clean && !r->gpu_correct && r->wrong_nodes == 1);
            gc_str s = { 0 };
            gc_check_summary_text(r, "m", false, &s);
            CHECK_MSG(s.s && strstr(s.s, k ? "compute wrong numbers" : "crash the GPU runtime"), "%s",
                      s.s ? s.s : "");
            CHECK(s.s && (k || !strstr(s.s, "compute wrong numbers")));
            gc_str_free(&s);
            gc_check_free(r);
        }
        gc_model_free(m);
    }
}
