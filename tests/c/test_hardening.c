/* test_hardening.c — issue 12: hostile models must be refused at prepare with a clear
 * message, never run into a buffer overflow or undefined behaviour (make asan runs
 * these under ASan + UBSan). The mutated models are built here, one op each, or
 * derived in memory from a corpus model (skipped when the corpus is absent). */
#include "test.h"
#include "test_kernels_harness.h"
#include "interp/interp.h"
#include "interp/quant.h"
#include "model/model.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A tensor of the one-op model: data == NULL makes it a run-time input, else a
 * constant. scale > 0 quantizes it per tensor (n_scale > 1: per channel, axis 3). */
typedef struct {
    int type, rank;
    int32_t shape[6];
    const void *data;
    float scale; int64_t zp;
    int n_scale;
} T;

typedef kt_model one_op;

/* The one-op model of ins[] / outs[] (test_kernels_harness.h builds it): data == NULL is
 * a run-time input, scale > 0 per-tensor quantization, n_scale > 1 per channel on axis 3. */
static one_op build(int32_t code, int opt_type, const T *ins, int n_in, const T *outs, int n_out) {
    kt_tensor k[16];
    float scales[16][8];
    int64_t zps[16][8];
    CHECK(n_in + n_out <= 16);
    for (int i = 0; i < n_in + n_out && i < 16; i++) {
        const T *t = i < n_in ? &ins[i] : &outs[i - n_in];
        k[i] = (kt_tensor){ .type = t->type, .rank = t->rank, .data = t->data, .scale = t->scale, .zp = (int32_t)t->zp };
        memcpy(k[i].shape, t->shape, sizeof k[i].shape);
        if (t->n_scale > 1 && t->n_scale <= 8) {
            for (int c = 0; c < t->n_scale; c++) { scales[i][c] = t->scale; zps[i][c] = t->zp; }
            k[i].n_scales = t->n_scale; k[i].scales = scales[i]; k[i].zps = zps[i]; k[i].qdim = 3;
        }
    }
    return kt_build(code, opt_type, k, n_in, k + n_in, n_out);
}

/* Prepare (and, when it succeeds, invoke on zeroed inputs); returns the status of the
 * first failing step and copies its message. */
static gc_status prepare_msg(const gc_model *m, char *msg, size_t n) {
    char err[512];
    gc_interp_opts o = { .signature = -1 };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    if (!it) { snprintf(msg, n, "%s", err); return GC_ERR_FORMAT; }
    gc_status s = gc_interp_prepare(it);
    if (s == GC_OK) {
        for (int k = 0; k < gc_interp_n_inputs(it); k++) { gc_tview v = gc_interp_input(it, k); memset(v.data, 0, v.nbytes); }
        s = gc_interp_invoke(it);
    }
    snprintf(msg, n, "%s", s == GC_OK ? "" : gc_interp_errmsg(it));
    gc_interp_free(it);
    return s;
}

#define EXPECT_REFUSED(model, substr) do {                                                  \
    char msg_[600];                                                                         \
    gc_status st_ = prepare_msg((model), msg_, sizeof msg_);                               \
    CHECK_MSG(st_ != GC_OK && strstr(msg_, (substr)), "status %d, message '%s', want '%s'", \
              (int)st_, msg_, (substr));                                                    \
} while (0)

#define S(...) { __VA_ARGS__ }

/* ---- blockwise FULLY_CONNECTED (fc.c) --------------------------------------------------- */

/* x [1,1,xk] FLOAT32, W INT4 [4,4] with FLOAT16 block scales (scale shape / block as
 * given), keep_num_dims */
static one_op blockwise_fc(int xk, int srank, const int32_t *sshape, int32_t block) {
    static uint8_t w4[8] = { 0x21, 0x43, 0x65, 0x07, 0x9f, 0xba, 0xdc, 0x8e };   /* two int4 per byte */
    static uint16_t sc[8] = { 0x3c00, 0x3800, 0x4000, 0x3c00, 0x3c00, 0x3c00, 0x3400, 0x3c00 };
    T ins[] = { { GC_T_FLOAT32, 3, S(1, 1, xk), NULL, 0, 0, 0 }, { GC_T_INT4, 2, S(4, 4), w4, 0, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 3, S(1, 1, 4), NULL, 0, 0, 0 } };
    one_op r = build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_keep_num_dims, 1);
    uint32_t b = (uint32_t)gc_model_add_buffer(r.m, sc, sizeof sc);
    int32_t st = gc_sg_add_tensor(r.m, 0, "scales", GC_T_FLOAT16, srank, sshape, b);
    gc_quant *q = gc_arena_alloc(&r.m->arena, sizeof *q);
    q->details_type = 2; q->bw_scales = st; q->bw_zero_points = -1; q->bw_block_size = block;
    q->bw_present = 1 | 4;
    r.m->subgraphs[0].tensors[r.t[1]].quant = q;
    return r;
}

GC_TEST(harden_fc_blockwise_valid_still_runs) {
    one_op r = blockwise_fc(4, 2, (int32_t[]){ 4, 2 }, 2);
    char err[512];
    gc_interp_opts o = { .signature = -1 };
    gc_interp *it = gc_interp_new(r.m, &o, err, sizeof err);
    CHECK(it && gc_interp_prepare(it) == GC_OK);
    if (it && gc_interp_n_inputs(it) == 1) {
        gc_tview v = gc_interp_input(it, 0);
        float x[4] = { 1, 2, 3, 4 };
        memcpy(v.data, x, sizeof x);
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_tview y = gc_interp_output(it, 0);
        /* unit 0: w = 1,2,3,4 (low nibble first), scales 1, 0.5 -> 1 + 4 + 4.5 + 8 */
        CHECK_EQ_INT(y.nbytes, 16);
        CHECK_NEAR(((float *)y.data)[0], 17.5, 1e-6);
    }
    gc_interp_free(it);
    gc_model_free(r.m);
}

/* the write overflow of issue 12: keep_num_dims with x's last dimension a multiple of
 * the depth made rows * units outputs into an output of x.shape[:-1] + [units] */
GC_TEST(harden_fc_blockwise_keep_num_dims_depth_mismatch) {
    one_op r = blockwise_fc(8, 2, (int32_t[]){ 4, 2 }, 2);
    EXPECT_REFUSED(r.m, "keep_num_dims: the input's last dimension (8) must be the depth 4");
    gc_model_free(r.m);
}

GC_TEST(harden_fc_blockwise_scales_and_block) {
    one_op r = blockwise_fc(4, 1, (int32_t[]){ 8 }, 2);              /* right count, wrong shape */
    EXPECT_REFUSED(r.m, "blockwise scales must be a constant FLOAT16 [4, 2]");
    gc_model_free(r.m);
    r = blockwise_fc(4, 2, (int32_t[]){ 2, 4 }, 2);                  /* transposed */
    EXPECT_REFUSED(r.m, "blockwise scales must be a constant FLOAT16 [4, 2]");
    gc_model_free(r.m);
    r = blockwise_fc(4, 2, (int32_t[]){ 4, 2 }, 3);
    EXPECT_REFUSED(r.m, "block size 3 does not divide depth 4");
    gc_model_free(r.m);
    r = blockwise_fc(4, 2, (int32_t[]){ 4, 2 }, 0);
    EXPECT_REFUSED(r.m, "block size 0");
    gc_model_free(r.m);
    r = blockwise_fc(4, 2, (int32_t[]){ 4, 2 }, -4);
    EXPECT_REFUSED(r.m, "block size -4");
    gc_model_free(r.m);
}

/* the corpus model itself, mutated as the sweep did: input [1,1,2048] for depth 1024 */
GC_TEST(harden_fc_blockwise_corpus_mutated_input) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("corpus absent");
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/qwen_fc_blockwise_quantized.tflite", dir);
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) SKIP("qwen_fc_blockwise_quantized.tflite unreadable");
    char msg[600];
    CHECK_MSG(prepare_msg(m, msg, sizeof msg) == GC_OK, "unmutated: %s", msg);
    gc_tensor *x = &m->subgraphs[0].tensors[m->subgraphs[0].inputs[0]];
    CHECK_EQ_INT(x->rank, 3);
    x->shape[2] *= 2; x->n_shape_signature = 0;
    EXPECT_REFUSED(m, "keep_num_dims");
    gc_model_free(m);
}

GC_TEST(harden_fc_float_keep_num_dims_depth_mismatch) {
    float w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    T ins[] = { { GC_T_FLOAT32, 2, S(3, 4), NULL, 0, 0, 0 }, { GC_T_FLOAT32, 2, S(2, 2), w, 0, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 2, S(3, 2), NULL, 0, 0, 0 } };
    one_op r = build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_keep_num_dims, 1);
    EXPECT_REFUSED(r.m, "keep_num_dims: the input's last dimension (4) must be the depth 2");
    gc_model_free(r.m);
}

GC_TEST(harden_fc_int8_zero_points_out_of_range) {
    int8_t w[4] = { 1, 2, 3, 4 };
    int64_t bad[] = { INT32_MIN, INT32_MAX, 128, -129 };
    for (int which = 0; which < 3; which++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            T ins[] = { { GC_T_INT8, 2, S(1, 2), NULL, 0.5f, which == 0 ? bad[i] : 0, 0 },
                        { GC_T_INT8, 2, S(2, 2), w, 0.25f, which == 1 ? bad[i] : 0, 0 } };
            T outs[] = { { GC_T_INT8, 2, S(1, 2), NULL, 1.0f, which == 2 ? bad[i] : 0, 0 } };
            one_op r = build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 2, outs, 1);
            EXPECT_REFUSED(r.m, which == 0 ? "input zero point" : which == 1 ? "weight zero point" : "output zero point");
            gc_model_free(r.m);
        }
}

/* ---- quantized CONV_2D / DEPTHWISE_CONV_2D (conv.c) -------------------------------------- */

/* int8 conv: x [1,2,2,2] zp zx, filter [2,1,1,2] per channel zp zw, output zp zy / scale sy */
static one_op int8_conv(int32_t code, int64_t zx, int64_t zw, int64_t zy, float sy, int act) {
    static int8_t w[4] = { 1, -2, 3, -4 };
    static int32_t bias[2] = { 5, -6 };
    int dw = code == GC_OP_DEPTHWISE_CONV_2D;
    T ins[] = { { GC_T_INT8, 4, S(1, 2, 2, 2), NULL, 0.5f, zx, 0 },
                { GC_T_INT8, 4, S(dw ? 1 : 2, 1, 1, 2), w, 0.25f, zw, 2 },
                { GC_T_INT32, 1, S(2), bias, 0.125f, 0, 0 } };
    T outs[] = { { GC_T_INT8, 4, S(1, 2, 2, 2), NULL, sy, zy, 0 } };
    one_op r = build(code, dw ? GC_BO_DepthwiseConv2DOptions : GC_BO_Conv2DOptions, ins, 3, outs, 1);
    if (dw) {
        gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_stride_h, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_stride_w, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_fused_activation_function, act);
    } else {
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_fused_activation_function, act);
    }
    return r;
}

/* the two UB sites of issue 12: -zp of INT32_MIN, and x + (-zp) for zp = INT32_MAX */
GC_TEST(harden_conv_int8_zero_points_out_of_range) {
    int32_t codes[2] = { GC_OP_CONV_2D, GC_OP_DEPTHWISE_CONV_2D };
    int64_t bad[] = { INT32_MIN, INT32_MAX, 100000, 128, -129 };
    for (int c = 0; c < 2; c++) {
        one_op ok = int8_conv(codes[c], -1, 0, 3, 0.5f, 3);
        char msg[600];
        CHECK_MSG(prepare_msg(ok.m, msg, sizeof msg) == GC_OK, "valid model refused: %s", msg);
        gc_model_free(ok.m);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            one_op r = int8_conv(codes[c], bad[i], 0, 0, 0.5f, 0);
            EXPECT_REFUSED(r.m, "input zero point");
            gc_model_free(r.m);
            r = int8_conv(codes[c], 0, bad[i], 0, 0.5f, 0);
            EXPECT_REFUSED(r.m, "filter zero point");
            gc_model_free(r.m);
            r = int8_conv(codes[c], 0, 0, bad[i], 0.5f, 3);
            EXPECT_REFUSED(r.m, "output zero point");
            gc_model_free(r.m);
        }
    }
}

/* RELU6's bound zp + round(6 / scale) left int32 for a tiny output scale */
GC_TEST(harden_conv_int8_tiny_output_scale_with_activation) {
    one_op r = int8_conv(GC_OP_DEPTHWISE_CONV_2D, 0, 0, -128, 1e-30f, 3);
    EXPECT_REFUSED(r.m, "too small for fused activation");
    gc_model_free(r.m);
    r = int8_conv(GC_OP_CONV_2D, 0, 0, 0, 1e-30f, 0);                 /* no activation: runs */
    char msg[600];
    CHECK_MSG(prepare_msg(r.m, msg, sizeof msg) == GC_OK, "%s", msg);
    gc_model_free(r.m);
}

/* 70000 taps of (-128 - 127) * -128 = 32640 overflow TFLite's int32 accumulator: computed
 * in int64 (no UB), then wrapped to int32 as the reference's int32 sum would */
GC_TEST(harden_conv_int8_accumulator_beyond_int32) {
    enum { K = 70000 };
    int8_t *w = malloc(K), *x = malloc(K);
    for (int i = 0; i < K; i++) { w[i] = -128; x[i] = -128; }
    T ins[] = { { GC_T_INT8, 4, S(1, 1, 1, K), NULL, 1.0f, 127, 0 }, { GC_T_INT8, 4, S(1, 1, 1, K), w, 1.0f, 0, 0 } };
    T outs[] = { { GC_T_INT8, 4, S(1, 1, 1, 1), NULL, 67108864.0f, 0, 0 } };
    one_op r = build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    char err[512];
    gc_interp_opts o = { .signature = -1 };
    gc_interp *it = gc_interp_new(r.m, &o, err, sizeof err);
    CHECK(it && gc_interp_prepare(it) == GC_OK);
    if (it) {
        gc_tview v = gc_interp_input(it, 0);
        memcpy(v.data, x, K);
        CHECK(gc_interp_invoke(it) == GC_OK);
        int64_t acc = (int64_t)K * 32640;
        int32_t wrapped = (int32_t)(uint32_t)(uint64_t)acc;
        int32_t q; int sh;
        gc_q_multiplier(1.0 / 67108864.0, &q, &sh);
        int32_t want = gc_clamp_i32(gc_q_mul(wrapped, q, sh), -128, 127);
        CHECK_EQ_INT(((int8_t *)gc_interp_output(it, 0).data)[0], want);
    }
    gc_interp_free(it);
    gc_model_free(r.m);
    free(w); free(x);
}

/* (k - 1) * dilation overflowed int: a 40000-tap kernel at dilation 65536 */
GC_TEST(harden_conv_dilated_kernel_out_of_range) {
    enum { KH = 40000 };
    float *w = calloc(KH, sizeof(float));
    T ins[] = { { GC_T_FLOAT32, 4, S(1, 4, 1, 1), NULL, 0, 0, 0 }, { GC_T_FLOAT32, 4, S(1, KH, 1, 1), w, 0, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 4, S(1, 4, 1, 1), NULL, 0, 0, 0 } };
    one_op r = build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_padding, 0);            /* SAME */
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_dilation_h_factor, 65536);
    EXPECT_REFUSED(r.m, "dilated kernel 40000x1 (dilation 65536x1) out of range");
    gc_model_free(r.m);
    free(w);
}

/* TRANSPOSE_CONV scatters to iy * stride: 40000 rows at stride 65536 overflowed int */
GC_TEST(harden_transpose_conv_stride_out_of_range) {
    enum { H = 40000 };
    static int32_t oshape[4] = { 1, 100, 1, 1 };
    static float w[1] = { 1 };
    T ins[] = { { GC_T_INT32, 1, S(4), oshape, 0, 0, 0 }, { GC_T_FLOAT32, 4, S(1, 1, 1, 1), w, 0, 0, 0 },
                { GC_T_FLOAT32, 4, S(1, H, 1, 1), NULL, 0, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 4, S(1, 100, 1, 1), NULL, 0, 0, 0 } };
    one_op r = build(GC_OP_TRANSPOSE_CONV, GC_BO_TransposeConvOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_h, 65536);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_w, 1);
    EXPECT_REFUSED(r.m, "at stride 65536x1 out of range");
    gc_model_free(r.m);
}

/* ---- output hygiene (common.c) ------------------------------------------------------------ */

static void json_is(const char *in, const char *want) {
    gc_str s = {0};
    gc_str_json(&s, in);
    CHECK_MSG(s.s && !strcmp(s.s, want), "json(%s) = %s, want %s", in, s.s ? s.s : "(null)", want);
    gc_str_free(&s);
}

/* tensor names are bytes: JSON output stays valid UTF-8, invalid bytes become U+FFFD */
GC_TEST(harden_json_strings_valid_utf8) {
    json_is("plain", "\"plain\"");
    json_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    json_is("\xff", "\"\\ufffd\"");
    json_is("a\xc3(", "\"a\\ufffd(\"");                     /* lead byte without continuation */
    json_is("\xc0\xaf", "\"\\ufffd\\ufffd\"");               /* overlong '/' */
    json_is("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");    /* UTF-16 surrogate */
    json_is("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  /* > U+10FFFF */
    json_is("end\xe2\x82", "\"end\\ufffd\\ufffd\"");         /* truncated at the end */
    json_is("q\"\\\x1b", "\"q\\\"\\\\\\u001b\"");
}

static void text_is(const char *in, const char *want) {
    gc_str s = {0};
    gc_str_text(&s, in, strlen(in));
    CHECK_MSG(s.s && !strcmp(s.s, want), "text(%s) = %s, want %s", in, s.s ? s.s : "(null)", want);
    gc_str_free(&s);
}

/* terminal escape sequences from tensor names are shown, not obeyed */
GC_TEST(harden_text_escapes_control_characters) {
    text_is("name\ttab\n", "name\ttab\n");
    text_is("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
    text_is("bell\x07 del\x7f cr\r", "bell\\x07 del\\x7f cr\\x0d");
    text_is("csi \xc2\x9b" "2J", "csi \\xc2\\x9b2J");               /* C1 control in UTF-8 */
    text_is("caf\xc3\xa9 \xc2\xa0nbsp", "caf\xc3\xa9 \xc2\xa0nbsp");
    text_is("bad \xff\xc3", "bad \\xff\\xc3");
}

/* -o onto a FIFO, a device or a symlink must not replace the node with a regular file */
GC_TEST(harden_write_atomic_refuses_non_regular) {
    char dir[] = "/tmp/gctest-harden-XXXXXX";
    if (!mkdtemp(dir)) SKIP("mkdtemp failed");
    char fifo[64], link[64], reg[64], err[256];
    snprintf(fifo, sizeof fifo, "%s/f", dir);
    snprintf(link, sizeof link, "%s/l", dir);
    snprintf(reg, sizeof reg, "%s/r", dir);
    const void *chunks[1] = { "x" }; size_t lens[1] = { 1 };
    CHECK(gc_write_atomic(reg, chunks, lens, 1, err, sizeof err) == GC_OK);
    CHECK(gc_write_atomic(reg, chunks, lens, 1, err, sizeof err) == GC_OK);   /* replacing a file is fine */
    CHECK(mkfifo(fifo, 0644) == 0);
    CHECK(gc_write_atomic(fifo, chunks, lens, 1, err, sizeof err) == GC_ERR_USAGE && strstr(err, "not a regular file"));
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(symlink(reg, link) == 0);
    CHECK(gc_write_atomic(link, chunks, lens, 1, err, sizeof err) == GC_ERR_USAGE && strstr(err, "symbolic link"));
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(gc_write_atomic("/dev/null", chunks, lens, 1, err, sizeof err) == GC_ERR_USAGE);
    CHECK(gc_same_file(link, reg) && !gc_same_file(fifo, reg));
    unlink(fifo); unlink(link); unlink(reg); rmdir(dir);
}

/* output folders: replaced whole, earlier outputs only, nothing left behind on abort */
GC_TEST(harden_outdir_replaced_whole) {
    char base[] = "/tmp/gctest-outdir-XXXXXX";
    if (!mkdtemp(base)) SKIP("mkdtemp failed");
    char out[128], tmp[256], p[300], err[512];
    static const char *const markers[] = { "manifest.json", NULL };
    snprintf(out, sizeof out, "%s/o", base);
    const void *chunks[1] = { "{}" }; size_t lens[1] = { 2 };
    for (int round = 0; round < 2; round++) {
        CHECK(gc_outdir_begin(out, markers, tmp, sizeof tmp, err, sizeof err) == GC_OK);
        snprintf(p, sizeof p, "%s/manifest.json", tmp);
        CHECK(gc_write_atomic(p, chunks, lens, 1, err, sizeof err) == GC_OK);
        if (round == 0) { snprintf(p, sizeof p, "%s/stale.npy", tmp); CHECK(gc_write_atomic(p, chunks, lens, 1, err, sizeof err) == GC_OK); }
        CHECK(gc_outdir_commit(out, tmp, err, sizeof err) == GC_OK);
    }
    struct stat st;
    snprintf(p, sizeof p, "%s/stale.npy", out);
    CHECK_MSG(stat(p, &st) != 0, "a file of the first round survived the second");
    snprintf(p, sizeof p, "%s/manifest.json", out);
    CHECK(stat(p, &st) == 0);
    /* abort leaves the old folder and no temporary one */
    CHECK(gc_outdir_begin(out, markers, tmp, sizeof tmp, err, sizeof err) == GC_OK);
    gc_outdir_abort(tmp);
    CHECK(stat(tmp, &st) != 0 && stat(p, &st) == 0);
    /* a folder that is not ours is refused */
    snprintf(p, sizeof p, "%s/mine", base);
    CHECK(mkdir(p, 0755) == 0);
    char q[320]; snprintf(q, sizeof q, "%s/notes.txt", p);
    CHECK(gc_write_atomic(q, chunks, lens, 1, err, sizeof err) == GC_OK);
    CHECK(gc_outdir_begin(p, markers, tmp, sizeof tmp, err, sizeof err) == GC_ERR_USAGE && strstr(err, "refusing"));
    CHECK(gc_path_inside(q, p) && !gc_path_inside(p, q) && gc_path_inside(p, p));
    gc_remove_tree(base);
    CHECK(stat(base, &st) != 0);
}
