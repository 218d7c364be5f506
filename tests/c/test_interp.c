/* test_interp.c — the interpreter core on graphs built here: execution, planning,
 * callbacks, errors that name the op, folding, dynamic shapes, signatures, control
 * flow, precision modes, re-invoke; then every corpus model end to end. */
#include "test.h"
#include "interp/interp.h"
#include "interp/fp16.h"
#include "model/model.h"

#include <stdint.h>
#include <string.h>

/* ---- building graphs ----------------------------------------------------------------- */

static int32_t tens(gc_model *m, int32_t sg, const char *name, int type, int rank, const int32_t *shape,
                    const void *data, size_t bytes) {
    uint32_t buf = data ? (uint32_t)gc_model_add_buffer(m, data, bytes) : 0;
    return gc_sg_add_tensor(m, sg, name, type, rank, shape, buf);
}

static gc_op *add_op(gc_model *m, int32_t sg, int32_t code, int opt_type, int n_in, const int32_t *in,
                     int n_out, const int32_t *out) {
    int32_t oc = gc_model_add_opcode(m, code, NULL, 1);
    int32_t k = gc_sg_insert_op(m, sg, m->subgraphs[sg].n_ops, oc, n_in, in, n_out, out);
    gc_op *op = &m->subgraphs[sg].ops[k];
    if (opt_type) gc_opt_init(m, &op->opt, opt_type);
    return op;
}

static gc_interp *prepared(gc_model *m, gc_precision p, char *err, size_t errlen) {
    gc_interp_opts o = { .precision = p, .signature = GC_SIG_AUTO };
    gc_interp *it = gc_interp_new(m, &o, err, errlen);
    if (!it) return NULL;
    if (gc_interp_prepare(it) != GC_OK) {
        snprintf(err, errlen, "%s", gc_interp_errmsg(it));
        gc_interp_free(it);
        return NULL;
    }
    return it;
}

/* y = relu(x + c), x [2,3], c [3] */
static gc_model *build_add_relu(void) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t s23[] = { 2, 3 }, s3[] = { 3 };
    float c[3] = { 1.0f, -2.0f, 1.0f / 3.0f };
    int32_t x = tens(m, sg, "x", GC_T_FLOAT32, 2, s23, NULL, 0);
    int32_t k = tens(m, sg, "c", GC_T_FLOAT32, 1, s3, c, sizeof c);
    int32_t y = tens(m, sg, "y", GC_T_FLOAT32, 2, s23, NULL, 0);
    int32_t in[] = { x, k }, out[] = { y };
    gc_op *op = add_op(m, sg, GC_OP_ADD, GC_BO_AddOptions, 2, in, 1, out);
    gc_opt_set_int(m, &op->opt, GC_O_AddOptions_fused_activation_function, 1);
    gc_sg_set_io(m, sg, 1, &x, 1, &y);
    return m;
}

GC_TEST(interp_add_relu_fp32_and_fp16) {
    gc_model *m = build_add_relu();
    char err[512];
    gc_interp *it = prepared(m, GC_PREC_FP32, err, sizeof err);
    CHECK_MSG(it != NULL, "%s", err);
    if (!it) { gc_model_free(m); return; }
    gc_tview in = gc_interp_input(it, 0);
    CHECK_EQ_INT(in.rank, 2);
    float xs[6] = { 0, 1, 2, -3, 4, 5 };
    memcpy(in.data, xs, sizeof xs);
    CHECK(gc_interp_invoke(it) == GC_OK);
    gc_tview out = gc_interp_output(it, 0);
    const float *y = out.data;
    float want[6] = { 1, 0, 2 + 1.0f / 3.0f, 0, 2, 5 + 1.0f / 3.0f };
    for (int i = 0; i < 6; i++) CHECK_NEAR(y[i], want[i], 0);
    gc_interp_free(it);

    it = prepared(m, GC_PREC_FP16, err, sizeof err);
    CHECK_MSG(it != NULL, "%s", err);
    if (it) {
        memcpy(gc_interp_input(it, 0).data, xs, sizeof xs);
        CHECK(gc_interp_invoke(it) == GC_OK);
        y = gc_interp_output(it, 0).data;
        /* the constant 1/3 is stored as a half, and so is the sum */
        float third = gc_f16_round(1.0f / 3.0f);
        CHECK(y[2] == gc_f16_round(2.0f + third));
        CHECK(y[5] == gc_f16_round(5.0f + third));
        CHECK(y[2] != want[2]);
        gc_interp_free(it);
    }
    gc_model_free(m);
}

/* x -> TANH -> ... (n ops) -> y on [1, 4096]: the plan reuses memory. */
static gc_model *build_chain(int n) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t shp[] = { 1, 4096 };
    int32_t prev = tens(m, sg, "x", GC_T_FLOAT32, 2, shp, NULL, 0), x = prev;
    for (int i = 0; i < n; i++) {
        char name[32]; snprintf(name, sizeof name, "t%d", i);
        int32_t t = tens(m, sg, name, GC_T_FLOAT32, 2, shp, NULL, 0);
        int32_t in[] = { prev }, out[] = { t };
        add_op(m, sg, i % 2 ? GC_OP_NEG : GC_OP_ABS, 0, 1, in, 1, out);
        prev = t;
    }
    gc_sg_set_io(m, sg, 1, &x, 1, &prev);
    return m;
}

GC_TEST(interp_plan_reuses_memory) {
    gc_model *m = build_chain(8);
    char err[512];
    gc_interp *it = prepared(m, GC_PREC_FP32, err, sizeof err);
    CHECK_MSG(it != NULL, "%s", err);
    if (it) {
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        /* input (kept) + two live intermediates at a time + output */
        CHECK(st.arena_bytes <= 4 * 4096 * 4);
        CHECK(st.naive_bytes == 9 * 4096 * 4);
        float *x = gc_interp_input(it, 0).data;
        for (int i = 0; i < 4096; i++) x[i] = (float)i - 2000.0f;
        CHECK(gc_interp_invoke(it) == GC_OK);
        const float *y = gc_interp_output(it, 0).data;
        CHECK(y[0] == -2000.0f && y[4095] == -2095.0f);
        /* invoking again reuses the inputs: same answer */
        CHECK(gc_interp_invoke(it) == GC_OK);
        CHECK(y[0] == -2000.0f && y[4095] == -2095.0f);
        gc_interp_free(it);
    }
    gc_model_free(m);
}

typedef struct { int32_t ops[64]; int n; int stop_at; int asked; } trace;
static int on_node(int32_t op, const gc_tview *outs, int n_outs, void *user) {
    trace *t = user;
    if (t->n < 64) t->ops[t->n++] = op;
    (void)outs; (void)n_outs;
    return op == t->stop_at;
}
static bool ask_odd(int32_t sg, int32_t op, void *user) {
    (void)sg; ((trace *)user)->asked++;
    return op % 2 == 1;
}

GC_TEST(interp_callback_order_ask_and_stop) {
    gc_model *m = build_chain(6);
    char err[512];
    trace t = { .stop_at = 3 };
    gc_interp_opts o = { .signature = GC_SIG_AUTO, .on_node = on_node, .user = &t };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    CHECK(it && gc_interp_prepare(it) == GC_OK);
    if (it) {
        CHECK(gc_interp_invoke(it) == GC_OK);
        CHECK(gc_interp_stopped(it));
        CHECK_EQ_INT(t.n, 4);
        for (int i = 0; i < t.n; i++) CHECK_EQ_INT(t.ops[i], i);
        gc_interp_free(it);
    }
    trace t2 = { .stop_at = -1 };
    o.user = &t2; o.ask = ask_odd;
    it = gc_interp_new(m, &o, err, sizeof err);
    CHECK(it && gc_interp_prepare(it) == GC_OK);
    if (it) {
        CHECK(gc_interp_invoke(it) == GC_OK);
        CHECK(!gc_interp_stopped(it));
        CHECK_EQ_INT(t2.asked, 6);
        CHECK_EQ_INT(t2.n, 3);
        CHECK(t2.ops[0] == 1 && t2.ops[1] == 3 && t2.ops[2] == 5);
        gc_interp_free(it);
    }
    gc_model_free(m);
}

GC_TEST(interp_unsupported_ops_are_named) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t s[] = { 4 };
    int32_t x = tens(m, sg, "x", GC_T_FLOAT32, 1, s, NULL, 0);
    int32_t y = tens(m, sg, "y", GC_T_FLOAT32, 1, s, NULL, 0);
    int32_t z = tens(m, sg, "z", GC_T_FLOAT32, 1, s, NULL, 0);
    int32_t in1[] = { x }, o1[] = { y }, in2[] = { y }, o2[] = { z };
    add_op(m, sg, GC_OP_ABS, 0, 1, in1, 1, o1);
    add_op(m, sg, GC_OP_LOCAL_RESPONSE_NORMALIZATION, 0, 1, in2, 1, o2);
    gc_sg_set_io(m, sg, 1, &x, 1, &z);
    char err[512];
    gc_interp *it = prepared(m, GC_PREC_FP32, err, sizeof err);
    CHECK(it == NULL);
    CHECK_MSG(strstr(err, "op 1 (LOCAL_RESPONSE_NORMALIZATION)") && strstr(err, "not implemented"), "%s", err);
    gc_interp_free(it);
    gc_model_free(m);

    m = gc_model_new();
    sg = gc_model_add_subgraph(m, "main");
    x = tens(m, sg, "x", GC_T_FLOAT32, 1, s, NULL, 0);
    y = tens(m, sg, "y", GC_T_FLOAT32, 1, s, NULL, 0);
    int32_t oc = gc_model_add_opcode(m, GC_OP_CUSTOM, "MyFancyOp", 1);
    gc_sg_insert_op(m, sg, 0, oc, 1, &x, 1, &y);
    gc_sg_set_io(m, sg, 1, &x, 1, &y);
    it = prepared(m, GC_PREC_FP32, err, sizeof err);
    CHECK(it == NULL);
    CHECK_MSG(strstr(err, "MyFancyOp") && strstr(err, "custom op"), "%s", err);
    gc_interp_free(it);
    gc_model_free(m);
}

/* y = reshape(x, shape(x)[0:1] ++ [-1]): the shape arithmetic is folded at prepare, and a
 * dynamic batch dimension follows the input given. */
GC_TEST(interp_folding_and_dynamic_shapes) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t s4[] = { 1, 2, 3, 4 }, s1[] = { 1 }, s2[] = { 2 }, s24[] = { 1, 24 };
    int32_t x = tens(m, sg, "x", GC_T_FLOAT32, 4, s4, NULL, 0);
    gc_tensor *xt = &m->subgraphs[sg].tensors[x];
    xt->n_shape_signature = 4;
    xt->shape_signature = gc_arena_alloc(&m->arena, 4 * sizeof(int32_t));
    int32_t sig[] = { -1, 2, 3, 4 };
    memcpy(xt->shape_signature, sig, sizeof sig);
    int32_t shp = tens(m, sg, "shape", GC_T_INT32, 1, (int32_t[]){ 4 }, NULL, 0);
    int32_t b0[] = { 0 }, e1[] = { 1 }, st1[] = { 1 }, minus1[] = { -1 };
    int32_t b = tens(m, sg, "b", GC_T_INT32, 1, s1, b0, 4), e = tens(m, sg, "e", GC_T_INT32, 1, s1, e1, 4);
    int32_t st = tens(m, sg, "s", GC_T_INT32, 1, s1, st1, 4), m1 = tens(m, sg, "m1", GC_T_INT32, 1, s1, minus1, 4);
    int32_t n0 = tens(m, sg, "n0", GC_T_INT32, 1, s1, NULL, 0);
    int32_t ns = tens(m, sg, "newshape", GC_T_INT32, 1, s2, NULL, 0);
    int32_t y = tens(m, sg, "y", GC_T_FLOAT32, 2, s24, NULL, 0);
    gc_tensor *yt = &m->subgraphs[sg].tensors[y];
    yt->n_shape_signature = 2;
    yt->shape_signature = gc_arena_alloc(&m->arena, 2 * sizeof(int32_t));
    yt->shape_signature[0] = -1; yt->shape_signature[1] = 24;
    add_op(m, sg, GC_OP_SHAPE, GC_BO_ShapeOptions, 1, &x, 1, &shp);
    int32_t ssin[] = { shp, b, e, st };
    add_op(m, sg, GC_OP_STRIDED_SLICE, GC_BO_StridedSliceOptions, 4, ssin, 1, &n0);
    int32_t pin[] = { n0, m1 };
    gc_op *op = add_op(m, sg, GC_OP_CONCATENATION, GC_BO_ConcatenationOptions, 2, pin, 1, &ns);
    gc_opt_set_int(m, &op->opt, GC_O_ConcatenationOptions_axis, 0);
    int32_t rin[] = { x, ns };
    add_op(m, sg, GC_OP_RESHAPE, 0, 2, rin, 1, &y);
    gc_sg_set_io(m, sg, 1, &x, 1, &y);

    char err[512];
    gc_interp_opts o = { .signature = GC_SIG_AUTO };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    CHECK(it != NULL);
    if (!it) { gc_model_free(m); return; }
    int32_t bad[] = { 3, 2, 3, 5 };
    CHECK(gc_interp_set_input_shape(it, 0, 4, bad) == GC_ERR_USAGE);   /* dim 3 is static */
    int32_t three[] = { 3, 2, 3, 4 };
    CHECK(gc_interp_set_input_shape(it, 0, 4, three) == GC_OK);
    CHECK_MSG(gc_interp_prepare(it) == GC_OK, "%s", gc_interp_errmsg(it));
    gc_interp_stats stt;
    gc_interp_stats_get(it, &stt);
    CHECK_EQ_INT(stt.n_folded, 3);
    float *xs = gc_interp_input(it, 0).data;
    for (int i = 0; i < 72; i++) xs[i] = (float)i;
    CHECK(gc_interp_invoke(it) == GC_OK);
    gc_tview v = gc_interp_output(it, 0);
    CHECK_EQ_INT(v.rank, 2);
    CHECK_EQ_INT(v.shape[0], 3);
    CHECK_EQ_INT(v.shape[1], 24);
    CHECK(((float *)v.data)[71] == 71.0f);
    gc_interp_free(it);
    gc_model_free(m);
}

/* Signature inputs are given in signature-def order, not the subgraph's. */
GC_TEST(interp_signature_order) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t s[] = { 2 };
    int32_t a = tens(m, sg, "a", GC_T_FLOAT32, 1, s, NULL, 0);
    int32_t b = tens(m, sg, "b", GC_T_FLOAT32, 1, s, NULL, 0);
    int32_t y = tens(m, sg, "y", GC_T_FLOAT32, 1, s, NULL, 0);
    int32_t in[] = { a, b };
    add_op(m, sg, GC_OP_SUB, GC_BO_SubOptions, 2, in, 1, &y);
    gc_sg_set_io(m, sg, 2, in, 1, &y);
    if (!gc_grow((void **)&m->signatures, &m->cap_signatures, 1, sizeof *m->signatures)) { gc_model_free(m); return; }
    gc_signature *sd = &m->signatures[m->n_signatures++];
    memset(sd, 0, sizeof *sd);
    sd->key = "serving_default"; sd->subgraph = 0;
    sd->n_inputs = 2; sd->n_outputs = 1;
    sd->inputs = gc_arena_alloc(&m->arena, 2 * sizeof *sd->inputs);
    sd->outputs = gc_arena_alloc(&m->arena, sizeof *sd->outputs);
    sd->inputs[0] = (gc_tensor_map){ "second", (uint32_t)b };
    sd->inputs[1] = (gc_tensor_map){ "first", (uint32_t)a };
    sd->outputs[0] = (gc_tensor_map){ "out", (uint32_t)y };
    char err[512];
    gc_interp *it = prepared(m, GC_PREC_FP32, err, sizeof err);
    CHECK_MSG(it != NULL, "%s", err);
    if (it) {
        CHECK(!strcmp(gc_interp_signature_key(it), "serving_default"));
        gc_tview v0 = gc_interp_input(it, 0), v1 = gc_interp_input(it, 1);
        CHECK(!strcmp(v0.name, "second") && v0.tensor == b);
        CHECK_EQ_INT(gc_interp_find_input(it, "first"), 1);
        CHECK_EQ_INT(gc_interp_find_input(it, "a"), 1);
        ((float *)v0.data)[0] = 10; ((float *)v0.data)[1] = 20;   /* b */
        ((float *)v1.data)[0] = 1; ((float *)v1.data)[1] = 2;     /* a */
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_tview o = gc_interp_output(it, 0);
        CHECK(!strcmp(o.name, "out"));
        CHECK(((float *)o.data)[0] == -9.0f && ((float *)o.data)[1] == -18.0f);
        gc_interp_free(it);
    }
    gc_model_free(m);
}

/* WHILE (i < 5) { i = i + 1; acc = acc * 2 } and IF / CALL around it. */
GC_TEST(interp_control_flow) {
    gc_model *m = gc_model_new();
    int32_t main_sg = gc_model_add_subgraph(m, "main");
    int32_t cond_sg = gc_model_add_subgraph(m, "cond");
    int32_t body_sg = gc_model_add_subgraph(m, "body");
    int32_t s0[1] = { 0 };
    int32_t five = 5, one = 1; float two = 2.0f;
    /* cond: (i, acc) -> i < 5 */
    int32_t ci = tens(m, cond_sg, "i", GC_T_INT32, 0, s0, NULL, 0);
    int32_t ca = tens(m, cond_sg, "acc", GC_T_FLOAT32, 0, s0, NULL, 0);
    int32_t c5 = tens(m, cond_sg, "five", GC_T_INT32, 0, s0, &five, 4);
    int32_t cr = tens(m, cond_sg, "lt", GC_T_BOOL, 0, s0, NULL, 0);
    int32_t cin[] = { ci, c5 }, cio[] = { ci, ca };
    add_op(m, cond_sg, GC_OP_LESS, 0, 2, cin, 1, &cr);
    gc_sg_set_io(m, cond_sg, 2, cio, 1, &cr);
    /* body */
    int32_t bi = tens(m, body_sg, "i", GC_T_INT32, 0, s0, NULL, 0);
    int32_t ba = tens(m, body_sg, "acc", GC_T_FLOAT32, 0, s0, NULL, 0);
    int32_t b1 = tens(m, body_sg, "one", GC_T_INT32, 0, s0, &one, 4);
    int32_t b2 = tens(m, body_sg, "two", GC_T_FLOAT32, 0, s0, &two, 4);
    int32_t bi2 = tens(m, body_sg, "i2", GC_T_INT32, 0, s0, NULL, 0);
    int32_t ba2 = tens(m, body_sg, "acc2", GC_T_FLOAT32, 0, s0, NULL, 0);
    int32_t bin1[] = { bi, b1 }, bin2[] = { ba, b2 };
    add_op(m, body_sg, GC_OP_ADD, GC_BO_AddOptions, 2, bin1, 1, &bi2);
    add_op(m, body_sg, GC_OP_MUL, GC_BO_MulOptions, 2, bin2, 1, &ba2);
    int32_t bio[] = { bi, ba }, boo[] = { bi2, ba2 };
    gc_sg_set_io(m, body_sg, 2, bio, 2, boo);
    /* main: (i0, acc0) -> WHILE -> (i, acc) */
    int32_t mi = tens(m, main_sg, "i0", GC_T_INT32, 0, s0, NULL, 0);
    int32_t ma = tens(m, main_sg, "acc0", GC_T_FLOAT32, 0, s0, NULL, 0);
    int32_t mo1 = tens(m, main_sg, "i", GC_T_INT32, 0, s0, NULL, 0);
    int32_t mo2 = tens(m, main_sg, "acc", GC_T_FLOAT32, 0, s0, NULL, 0);
    int32_t win[] = { mi, ma }, wout[] = { mo1, mo2 };
    gc_op *w = add_op(m, main_sg, GC_OP_WHILE, GC_BO_WhileOptions, 2, win, 2, wout);
    gc_opt_set_int(m, &w->opt, GC_O_WhileOptions_cond_subgraph_index, cond_sg);
    gc_opt_set_int(m, &w->opt, GC_O_WhileOptions_body_subgraph_index, body_sg);
    gc_sg_set_io(m, main_sg, 2, win, 2, wout);
    char err[512];
    trace t = { .stop_at = -1 };
    gc_interp_opts o = { .signature = GC_SIG_AUTO, .on_node = on_node, .user = &t };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    CHECK(it != NULL);
    if (it) {
        CHECK_MSG(gc_interp_prepare(it) == GC_OK, "%s", gc_interp_errmsg(it));
        *(int32_t *)gc_interp_input(it, 0).data = 1;
        *(float *)gc_interp_input(it, 1).data = 3.0f;
        CHECK_MSG(gc_interp_invoke(it) == GC_OK, "%s", gc_interp_errmsg(it));
        CHECK_EQ_INT(*(int32_t *)gc_interp_output(it, 0).data, 5);
        CHECK(*(float *)gc_interp_output(it, 1).data == 48.0f);
        /* 5 cond runs (1 op), 4 body runs (2 ops), then the WHILE itself */
        CHECK_EQ_INT(t.n, 5 + 8 + 1);
        gc_interp_free(it);
    }
    gc_model_free(m);
}

/* ---- the corpus, end to end ------------------------------------------------------------ */

typedef struct { const char *file; const char *expect_error; } corpus_case;

GC_TEST(interp_corpus_models) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("no corpus");
    static const corpus_case cases[] = {
        { "dilated_conv.tflite", NULL },
        { "group_norm_2_groups_op.tflite", NULL },
        { "movie_review.tflite", NULL },
        { "trained_lstm.tflite", NULL },
        { "mobilenet_v1_0.25_224_1_default_1.tflite", NULL },
        { "mobilenet_v1_0.25_128_quant.tflite", NULL },
        { "dp_net.tflite", NULL },
        { "retinaface.tflite", NULL },
        { "deeplabv3.tflite", NULL },
        { "yamnet_audio_classifier_with_metadata.tflite", NULL },
        { "movenet_single_pose_lightning_ptq.tflite", NULL },
        { "tf2_mobilenet_v2_1.0_224_ptq.tflite", NULL },
        { "mobilenet_v2_quantized_1x3x224x224.tflite", NULL },
        { "deeplabv3_mnv2_dm05_pascal_quant.tflite", NULL },
        { "torchaudio_conformer.tflite", NULL },
        { "qwen_fc_blockwise_quantized.tflite", NULL },
        { "seanet_transpose_conv0.tflite", "output_shape[0]" },         /* pattern input is no shape */
        { "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite", NULL },   /* TFLite_Detection_PostProcess */
        { "posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite", "PosenetDecoderOp" },
        { "audio_preprocessor_int8.tflite", "SignalWindow" },
        { "keyword_scrambled.tflite", NULL },                             /* int8 SVDF */
        { "dtln_noise_suppression.tflite", NULL },                        /* int8 LSTMs */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
        gc_model *m = gc_model_read_file(path, err, sizeof err);
        CHECK_MSG(m != NULL, "%s: %s", cases[i].file, err);
        if (!m) continue;
        gc_interp_opts o = { .signature = GC_SIG_AUTO };
        gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
        gc_status st = it ? gc_interp_prepare(it) : GC_ERR_USAGE;
        for (int k = 0; st == GC_OK && k < gc_interp_n_inputs(it); k++) {
            gc_tview v = gc_interp_input(it, k);
            st = gc_fill_pattern_sin(&v, k);
        }
        if (st == GC_OK) st = gc_interp_invoke(it);
        const char *msg = it ? gc_interp_errmsg(it) : err;
        if (cases[i].expect_error) {
            CHECK_MSG(st != GC_OK && strstr(msg, cases[i].expect_error), "%s: expected an error naming %s, got '%s'",
                      cases[i].file, cases[i].expect_error, st == GC_OK ? "success" : msg);
        } else {
            CHECK_MSG(st == GC_OK, "%s: %s", cases[i].file, msg);
            if (st == GC_OK) {
                gc_interp_stats s;
                gc_interp_stats_get(it, &s);
                CHECK_MSG(s.shape_mismatch == 0, "%s: %d computed shapes differ from the file", cases[i].file,
                          (int)s.shape_mismatch);
                CHECK_MSG(s.arena_bytes <= s.naive_bytes, "%s: plan larger than no reuse", cases[i].file);
                for (int k = 0; k < gc_interp_n_outputs(it); k++) {
                    gc_tview v = gc_interp_output(it, k);
                    CHECK(v.data != NULL || v.nbytes == 0);
                }
            }
        }
        gc_interp_free(it);
        gc_model_free(m);
    }
}

/* fp16 predictions stay close to fp32 on a float CNN, and fp16-acc is no closer. */
GC_TEST(interp_corpus_fp16_modes) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("no corpus");
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/mobilenet_v1_0.25_224_1_default_1.tflite", dir);
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) SKIP("mobilenet_v1_0.25_224 missing");
    float *outs[3] = { NULL, NULL, NULL };
    size_t n = 0;
    for (int p = 0; p < 3; p++) {
        gc_interp_opts o = { .signature = GC_SIG_AUTO, .precision = (gc_precision)p };
        gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
        CHECK(it && gc_interp_prepare(it) == GC_OK);
        if (!it) continue;
        gc_tview v = gc_interp_input(it, 0);
        gc_fill_pattern_sin(&v, 0);
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_tview out = gc_interp_output(it, 0);
        n = out.nbytes / 4;
        outs[p] = malloc(out.nbytes);
        if (outs[p]) memcpy(outs[p], out.data, out.nbytes);
        gc_interp_free(it);
    }
    if (outs[0] && outs[1] && outs[2]) {
        double e16 = 0, e16a = 0;
        int halves = 1;
        for (size_t i = 0; i < n; i++) {
            e16 = fmax(e16, fabs(outs[1][i] - outs[0][i]));
            e16a = fmax(e16a, fabs(outs[2][i] - outs[0][i]));
            halves &= gc_f16_round(outs[1][i]) == outs[1][i];
        }
        CHECK(halves);
        CHECK(e16 > 0 && e16 < 1e-2);
        CHECK(e16a >= e16 * 0.5 && e16a < 5e-2);
    }
    for (int p = 0; p < 3; p++) free(outs[p]);
    gc_model_free(m);
}
