/* test_kernels.c — golden cases per kernel family: a one-op model built here, literal
 * inputs, expected outputs worked out by hand (or by a separate naive loop in double
 * where a hand table would be too long), one scoped case per behaviour. */
#include "test.h"
#include "interp/interp.h"
#include "interp/quant.h"
#include "model/model.h"

#include <stdint.h>
#include <string.h>

/* A tensor of the one-op model: data == NULL makes it a run-time input (fed from
 * `feed`), else a constant. */
typedef struct {
    int type, rank;
    int32_t shape[6];
    const void *data;       /* constant data */
    const void *feed;       /* run-time input data */
    float scale; int32_t zp;
} T;

typedef struct { gc_model *m; gc_op *op; int32_t t[16]; } one_op;

static size_t tbytes(const T *t) {
    size_t n = (size_t)gc_type_size(t->type);
    for (int i = 0; i < t->rank; i++) n *= (size_t)t->shape[i];
    return n;
}

static one_op build(int32_t code, int opt_type, const T *ins, int n_in, const T *outs, int n_out) {
    one_op r;
    memset(&r, 0, sizeof r);
    r.m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(r.m, "main");
    int32_t in_idx[8], out_idx[8], graph_in[8], n_graph_in = 0;
    for (int i = 0; i < n_in + n_out; i++) {
        const T *t = i < n_in ? &ins[i] : &outs[i - n_in];
        char name[16]; snprintf(name, sizeof name, "t%d", i);
        if (t->type < 0) { in_idx[i] = -1; continue; }           /* absent optional input */
        uint32_t buf = t->data ? (uint32_t)gc_model_add_buffer(r.m, t->data, tbytes(t)) : 0;
        int32_t k = gc_sg_add_tensor(r.m, sg, name, t->type, t->rank, t->shape, buf);
        if (t->scale > 0) {
            gc_quant *q = gc_arena_alloc(&r.m->arena, sizeof *q);
            q->n_scale = 1; q->n_zero_point = 1;
            q->scale = gc_arena_alloc(&r.m->arena, sizeof(float));
            q->zero_point = gc_arena_alloc(&r.m->arena, sizeof(int64_t));
            q->scale[0] = t->scale; q->zero_point[0] = t->zp;
            r.m->subgraphs[sg].tensors[k].quant = q;
        }
        r.t[i] = k;
        if (i < n_in) { in_idx[i] = k; if (!t->data) graph_in[n_graph_in++] = k; }
        else out_idx[i - n_in] = k;
    }
    int32_t oc = gc_model_add_opcode(r.m, code, NULL, 1);
    gc_sg_insert_op(r.m, sg, 0, oc, n_in, in_idx, n_out, out_idx);
    r.op = &r.m->subgraphs[sg].ops[0];
    if (opt_type) gc_opt_init(r.m, &r.op->opt, opt_type);
    gc_sg_set_io(r.m, sg, n_graph_in, graph_in, n_out, out_idx);
    return r;
}

static gc_qmode g_qmode = GC_QMODE_TFLITE;   /* integer arithmetic for the next run() */

/* Run; copy output k into `out` (nbytes checked); returns false with a message. */
static bool run(one_op *r, const T *ins, int n_in, int k, void *out, size_t nbytes, int32_t *shape_out, int *rank_out) {
    char err[512];
    gc_interp_opts o = { .signature = -1, .qmode = g_qmode };
    gc_interp *it = gc_interp_new(r->m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (!ok) { fprintf(stderr, "  prepare: %s\n", it ? gc_interp_errmsg(it) : err); gc_interp_free(it); return false; }
    int g = 0;
    for (int i = 0; i < n_in; i++) {
        if (ins[i].type < 0 || ins[i].data) continue;
        gc_tview v = gc_interp_input(it, g++);
        memcpy(v.data, ins[i].feed, v.nbytes);
    }
    ok = gc_interp_invoke(it) == GC_OK;
    if (!ok) fprintf(stderr, "  invoke: %s\n", gc_interp_errmsg(it));
    gc_tview v = gc_interp_output(it, k);
    if (ok && v.nbytes != nbytes) { fprintf(stderr, "  output has %zu bytes, expected %zu\n", v.nbytes, nbytes); ok = false; }
    if (ok) memcpy(out, v.data, nbytes);
    if (shape_out) for (int d = 0; d < v.rank; d++) shape_out[d] = v.shape[d];
    if (rank_out) *rank_out = v.rank;
    gc_interp_free(it);
    return ok;
}

static void check_f(const float *got, const float *want, int n, float tol, const char *what) {
    for (int i = 0; i < n; i++)
        CHECK_MSG(fabsf(got[i] - want[i]) <= tol, "%s[%d]: %.7g vs %.7g", what, i, (double)got[i], (double)want[i]);
}

#define S(...) { __VA_ARGS__ }

/* ---- conv.c ---------------------------------------------------------------------------- */

/* naive CONV_2D in double, SAME/VALID, stride, dilation (independent of the kernel) */
static void conv_ref(const float *x, int H, int W, int C, const float *w, int OC, int KH, int KW, const float *b,
                     int sh, int sw, int dh, int dw, int same, float *y, int *OH, int *OW) {
    int eh = (KH - 1) * dh + 1, ew = (KW - 1) * dw + 1;
    *OH = same ? (H + sh - 1) / sh : (H - eh + sh) / sh;
    *OW = same ? (W + sw - 1) / sw : (W - ew + sw) / sw;
    int pt = same ? ((*OH - 1) * sh + eh - H) / 2 : 0, pl = same ? ((*OW - 1) * sw + ew - W) / 2 : 0;
    if (pt < 0) pt = 0;
    if (pl < 0) pl = 0;
    for (int oy = 0; oy < *OH; oy++)
        for (int ox = 0; ox < *OW; ox++)
            for (int oc = 0; oc < OC; oc++) {
                double acc = b[oc];
                for (int ky = 0; ky < KH; ky++)
                    for (int kx = 0; kx < KW; kx++) {
                        int iy = oy * sh - pt + ky * dh, ix = ox * sw - pl + kx * dw;
                        if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                        for (int c = 0; c < C; c++)
                            acc += (double)x[(iy * W + ix) * C + c] * w[((oc * KH + ky) * KW + kx) * C + c];
                    }
                y[(oy * *OW + ox) * OC + oc] = (float)acc;
            }
}

GC_TEST(kernel_conv2d_float_padding_stride_dilation) {
    enum { H = 7, W = 6, C = 3, OC = 4, K = 3 };
    float x[H * W * C], w[OC * K * K * C], b[OC];
    for (int i = 0; i < H * W * C; i++) x[i] = (float)((i * 7) % 11) - 5.0f;
    for (int i = 0; i < OC * K * K * C; i++) w[i] = (float)((i * 5) % 7) * 0.25f - 0.75f;
    for (int i = 0; i < OC; i++) b[i] = (float)i - 1.5f;
    int cfg[][5] = { { 1, 1, 1, 1, 1 }, { 2, 2, 1, 1, 1 }, { 1, 2, 2, 1, 0 }, { 2, 1, 1, 2, 0 }, { 3, 3, 1, 1, 1 } };
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        int sh = cfg[c][0], sw = cfg[c][1], dh = cfg[c][2], dw = cfg[c][3], same = cfg[c][4];
        float want[H * W * OC]; int OH, OW;
        conv_ref(x, H, W, C, w, OC, K, K, b, sh, sw, dh, dw, same, want, &OH, &OW);
        T ins[] = { { GC_T_FLOAT32, 4, S(1, H, W, C), NULL, x, 0, 0 }, { GC_T_FLOAT32, 4, S(OC, K, K, C), w, NULL, 0, 0 },
                    { GC_T_FLOAT32, 1, S(OC), b, NULL, 0, 0 } };
        T outs[] = { { GC_T_FLOAT32, 4, S(1, OH, OW, OC), NULL, NULL, 0, 0 } };
        one_op r = build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_padding, same ? 0 : 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, sh);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, sw);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_dilation_h_factor, dh);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_dilation_w_factor, dw);
        float got[H * W * OC];
        CHECK(run(&r, ins, 3, 0, got, (size_t)(OH * OW * OC) * 4, NULL, NULL));
        check_f(got, want, OH * OW * OC, 1e-4f, "conv");
        gc_model_free(r.m);
    }
}

GC_TEST(kernel_depthwise_multiplier_and_relu6) {
    /* 1x3x3x2 input, multiplier 2, 2x2 VALID filter, RELU6 */
    float x[18]; for (int i = 0; i < 18; i++) x[i] = (float)i;
    float w[16]; for (int i = 0; i < 16; i++) w[i] = (i % 3 == 0) ? 0.5f : -0.25f;
    float b[4] = { 0, 1, -1, 2 };
    float want[16];
    for (int oy = 0; oy < 2; oy++) for (int ox = 0; ox < 2; ox++) for (int c = 0; c < 2; c++) for (int mm = 0; mm < 2; mm++) {
        int oc = c * 2 + mm; double acc = b[oc];
        for (int ky = 0; ky < 2; ky++) for (int kx = 0; kx < 2; kx++)
            acc += x[((oy + ky) * 3 + ox + kx) * 2 + c] * w[(ky * 2 + kx) * 4 + oc];
        want[(oy * 2 + ox) * 4 + oc] = (float)fmin(fmax(acc, 0), 6);
    }
    T ins[] = { { GC_T_FLOAT32, 4, S(1, 3, 3, 2), NULL, x, 0, 0 }, { GC_T_FLOAT32, 4, S(1, 2, 2, 4), w, NULL, 0, 0 },
                { GC_T_FLOAT32, 1, S(4), b, NULL, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 4, S(1, 2, 2, 4), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_DEPTHWISE_CONV_2D, GC_BO_DepthwiseConv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_padding, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_stride_w, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_depth_multiplier, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_fused_activation_function, 3);
    float got[16];
    CHECK(run(&r, ins, 3, 0, got, sizeof got, NULL, NULL));
    check_f(got, want, 16, 1e-5f, "dw");
    gc_model_free(r.m);
}

GC_TEST(kernel_transpose_conv_by_hand) {
    /* 1x2x2x1 input, 3x3 filter of ones, stride 2, VALID -> 1x5x5x1 */
    float x[4] = { 1, 2, 3, 4 }, w[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    int32_t os[4] = { 1, 5, 5, 1 };
    float want[25] = { 1, 1, 3, 2, 2,  1, 1, 3, 2, 2,  4, 4, 10, 6, 6,  3, 3, 7, 4, 4,  3, 3, 7, 4, 4 };
    T ins[] = { { GC_T_INT32, 1, S(4), os, NULL, 0, 0 }, { GC_T_FLOAT32, 4, S(1, 3, 3, 1), w, NULL, 0, 0 },
                { GC_T_FLOAT32, 4, S(1, 2, 2, 1), NULL, x, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 4, S(1, 5, 5, 1), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_TRANSPOSE_CONV, GC_BO_TransposeConvOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_padding, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_h, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_w, 2);
    float got[25];
    CHECK(run(&r, ins, 3, 0, got, sizeof got, NULL, NULL));
    check_f(got, want, 25, 0, "tconv");
    gc_model_free(r.m);
}

GC_TEST(kernel_conv2d_int8_per_channel) {
    /* 1x1 conv, 2 input channels, 2 output channels with different scales */
    int8_t x[4] = { -128, 0, 10, 127 };                 /* two pixels, zp -1 */
    int8_t w[4] = { 1, 2, -3, 4 };
    int32_t b[2] = { 5, -7 };
    float ws[2] = { 0.5f, 0.25f };
    T ins[] = { { GC_T_INT8, 4, S(1, 1, 2, 2), NULL, x, 0.1f, -1 }, { GC_T_INT8, 4, S(2, 1, 1, 2), w, NULL, 0, 0 },
                { GC_T_INT32, 1, S(2), b, NULL, 0, 0 } };
    T outs[] = { { GC_T_INT8, 4, S(1, 1, 2, 2), NULL, NULL, 0.2f, 3 } };
    one_op r = build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    /* per-channel weight quantization */
    gc_tensor *wt = &r.m->subgraphs[0].tensors[r.t[1]];
    gc_quant *q = gc_arena_alloc(&r.m->arena, sizeof *q);
    q->n_scale = 2; q->n_zero_point = 2; q->scale = ws;
    q->zero_point = gc_arena_alloc(&r.m->arena, 2 * sizeof(int64_t));
    wt->quant = q;
    int8_t got[4], want[4];
    for (int p = 0; p < 2; p++)
        for (int oc = 0; oc < 2; oc++) {
            int32_t acc = b[oc];
            for (int c = 0; c < 2; c++) acc += (x[p * 2 + c] + 1) * w[oc * 2 + c];
            int32_t m; int s;
            gc_q_multiplier((double)0.1f * (double)ws[oc] / (double)0.2f, &m, &s);
            int32_t v = gc_q_mul(acc, m, s) + 3;
            want[p * 2 + oc] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
        }
    CHECK(run(&r, ins, 3, 0, got, sizeof got, NULL, NULL));
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(got[i], want[i]);
    gc_model_free(r.m);
}

/* ---- fc.c -------------------------------------------------------------------------------- */

GC_TEST(kernel_fully_connected_keep_dims_and_bmm) {
    float x[6] = { 1, 2, 3, 4, 5, 6 }, w[6] = { 1, 0, -1, 0.5f, 0.5f, 0.5f }, b[2] = { 10, 20 };
    T ins[] = { { GC_T_FLOAT32, 3, S(1, 2, 3), NULL, x, 0, 0 }, { GC_T_FLOAT32, 2, S(2, 3), w, NULL, 0, 0 },
                { GC_T_FLOAT32, 1, S(2), b, NULL, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 3, S(1, 2, 2), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_keep_num_dims, 1);
    float got[4], want[4] = { 1 - 3 + 10, 3 + 20, 4 - 6 + 10, 7.5f + 20 };
    int32_t shp[8]; int rank;
    CHECK(run(&r, ins, 3, 0, got, sizeof got, shp, &rank));
    CHECK(rank == 3 && shp[2] == 2);
    check_f(got, want, 4, 0, "fc");
    gc_model_free(r.m);

    /* BATCH_MATMUL: a [2,2,3] x b [3,2] (broadcast), adj_x on a [2,3,2] */
    float a[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, bb[6] = { 1, 0, 0, 1, 1, 1 };
    T bins[] = { { GC_T_FLOAT32, 3, S(2, 3, 2), NULL, a, 0, 0 }, { GC_T_FLOAT32, 2, S(3, 2), bb, NULL, 0, 0 } };
    T bouts[] = { { GC_T_FLOAT32, 3, S(2, 2, 2), NULL, NULL, 0, 0 } };
    r = build(GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, bins, 2, bouts, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_x, 1);
    float bg[8], bw[8];
    for (int bt = 0; bt < 2; bt++)           /* a^T [2,3] per batch: at[i][k] = a[k][i] */
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                float s = 0;
                for (int k = 0; k < 3; k++) s += a[bt * 6 + k * 2 + i] * bb[k * 2 + j];
                bw[bt * 4 + i * 2 + j] = s;
            }
    CHECK(run(&r, bins, 2, 0, bg, sizeof bg, NULL, NULL));
    check_f(bg, bw, 8, 0, "bmm");
    gc_model_free(r.m);
}

/* ---- elementwise.c ------------------------------------------------------------------------ */

GC_TEST(kernel_broadcast_arith_and_floor_mod) {
    float a[6] = { -7, -1, 0, 1, 5, 7 }, b[2] = { 3, -2 };
    T ins[] = { { GC_T_FLOAT32, 2, S(3, 2), NULL, a, 0, 0 }, { GC_T_FLOAT32, 1, S(2), b, NULL, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 2, S(3, 2), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_FLOOR_MOD, 0, ins, 2, outs, 1);
    float got[6], want[6] = { 2, -1, 0, -1, 2, -1 };
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    check_f(got, want, 6, 0, "floor_mod");
    gc_model_free(r.m);

    int32_t ia[4] = { -7, 7, -8, 9 }, ib[1] = { 2 };
    T iins[] = { { GC_T_INT32, 1, S(4), NULL, ia, 0, 0 }, { GC_T_INT32, 0, S(0), ib, NULL, 0, 0 } };
    T iouts[] = { { GC_T_INT32, 1, S(4), NULL, NULL, 0, 0 } };
    r = build(GC_OP_FLOOR_DIV, 0, iins, 2, iouts, 1);
    int32_t ig[4];
    CHECK(run(&r, iins, 2, 0, ig, sizeof ig, NULL, NULL));
    CHECK(ig[0] == -4 && ig[1] == 3 && ig[2] == -4 && ig[3] == 4);
    gc_model_free(r.m);

    /* [2,1,3] * [4,1] -> [2,4,3] */
    float x[6] = { 1, 2, 3, 4, 5, 6 }, y[4] = { 1, 10, 100, 1000 };
    T mins[] = { { GC_T_FLOAT32, 3, S(2, 1, 3), NULL, x, 0, 0 }, { GC_T_FLOAT32, 2, S(4, 1), NULL, y, 0, 0 } };
    T mouts[] = { { GC_T_FLOAT32, 3, S(2, 4, 3), NULL, NULL, 0, 0 } };
    r = build(GC_OP_MUL, GC_BO_MulOptions, mins, 2, mouts, 1);
    float mg[24];
    CHECK(run(&r, mins, 2, 0, mg, sizeof mg, NULL, NULL));
    for (int i = 0; i < 2; i++) for (int j = 0; j < 4; j++) for (int k = 0; k < 3; k++)
        CHECK(mg[(i * 4 + j) * 3 + k] == x[i * 3 + k] * y[j]);
    gc_model_free(r.m);
}

GC_TEST(kernel_quantized_add_matches_reference_arithmetic) {
    uint8_t a[5] = { 0, 64, 128, 200, 255 }, b[5] = { 255, 3, 128, 10, 255 };
    float sa = 0.05f, sb = 0.1f, so = 0.12f; int32_t za = 128, zb = 100, zo = 60;
    T ins[] = { { GC_T_UINT8, 1, S(5), NULL, a, sa, za }, { GC_T_UINT8, 1, S(5), NULL, b, sb, zb } };
    T outs[] = { { GC_T_UINT8, 1, S(5), NULL, NULL, so, zo } };
    one_op r = build(GC_OP_ADD, GC_BO_AddOptions, ins, 2, outs, 1);
    uint8_t got[5];
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    for (int i = 0; i < 5; i++) {
        double real = sa * (a[i] - za) + sb * (b[i] - zb);
        double q = real / so + zo;
        q = q < 0 ? 0 : q > 255 ? 255 : q;
        CHECK_MSG(fabs(got[i] - q) <= 0.5 + 1e-6 || fabs(got[i] - round(q)) <= 1, "add[%d]: %d vs %.3f", i, got[i], q);
    }
    gc_model_free(r.m);
}

GC_TEST(kernel_select_v2_broadcast) {
    uint8_t c[2] = { 1, 0 };
    float x[6] = { 1, 2, 3, 4, 5, 6 }, y[1] = { -1 };
    T ins[] = { { GC_T_BOOL, 2, S(2, 1), NULL, c, 0, 0 }, { GC_T_FLOAT32, 2, S(2, 3), NULL, x, 0, 0 },
                { GC_T_FLOAT32, 0, S(0), y, NULL, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_SELECT_V2, 0, ins, 3, outs, 1);
    float got[6], want[6] = { 1, 2, 3, -1, -1, -1 };
    CHECK(run(&r, ins, 3, 0, got, sizeof got, NULL, NULL));
    check_f(got, want, 6, 0, "select_v2");
    gc_model_free(r.m);
}

/* ---- unary.c, softmax.c, reduce.c ------------------------------------------------------------ */

GC_TEST(kernel_softmax_log_softmax_mean) {
    float x[6] = { 1, 2, 3, -1, 0, 1000 };
    T ins[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, x, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_SOFTMAX, GC_BO_SoftmaxOptions, ins, 1, outs, 1);
    gc_opt_set_float(r.m, &r.op->opt, GC_O_SoftmaxOptions_beta, 1.0);
    float got[6];
    CHECK(run(&r, ins, 1, 0, got, sizeof got, NULL, NULL));
    double s = exp(-2.0) + exp(-1.0) + 1;
    float want[6] = { (float)(exp(-2.0) / s), (float)(exp(-1.0) / s), (float)(1 / s), 0, 0, 1 };
    check_f(got, want, 6, 1e-6f, "softmax");
    gc_model_free(r.m);

    r = build(GC_OP_LOG_SOFTMAX, 0, ins, 1, outs, 1);
    CHECK(run(&r, ins, 1, 0, got, sizeof got, NULL, NULL));
    CHECK_NEAR(got[2], -log(s), 1e-5);
    CHECK_NEAR(got[5], 0, 1e-6);
    gc_model_free(r.m);

    int32_t axes[1] = { 0 };
    T mins[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, x, 0, 0 }, { GC_T_INT32, 1, S(1), axes, NULL, 0, 0 } };
    T mouts[] = { { GC_T_FLOAT32, 1, S(3), NULL, NULL, 0, 0 } };
    r = build(GC_OP_MEAN, GC_BO_ReducerOptions, mins, 2, mouts, 1);
    float mg[3], mw[3] = { 0, 1, 501.5f };
    CHECK(run(&r, mins, 2, 0, mg, sizeof mg, NULL, NULL));
    check_f(mg, mw, 3, 0, "mean");
    gc_model_free(r.m);
}

GC_TEST(kernel_quantized_logistic_table) {
    int8_t x[4] = { -128, -1, 0, 127 };
    T ins[] = { { GC_T_INT8, 1, S(4), NULL, x, 0.05f, -1 } };
    T outs[] = { { GC_T_INT8, 1, S(4), NULL, NULL, 1.0f / 256, -128 } };
    one_op r = build(GC_OP_LOGISTIC, 0, ins, 1, outs, 1);
    int8_t got[4];
    CHECK(run(&r, ins, 1, 0, got, sizeof got, NULL, NULL));
    for (int i = 0; i < 4; i++) {
        double v = 1 / (1 + exp(-0.05 * (x[i] + 1)));
        long q = lround(v * 256) - 128;
        if (q > 127) q = 127;
        CHECK_MSG(got[i] == q, "logistic[%d]: %d vs %ld", i, got[i], q);
    }
    gc_model_free(r.m);
}

/* ---- shape.c / slice.c ---------------------------------------------------------------------- */

GC_TEST(kernel_strided_slice_masks) {
    float x[24]; for (int i = 0; i < 24; i++) x[i] = (float)i;   /* [2,3,4] */
    int32_t b[3] = { 0, 2, -1 }, e[3] = { 0, 0, 0 }, st[3] = { 1, -1, -2 };
    T ins[] = { { GC_T_FLOAT32, 3, S(2, 3, 4), NULL, x, 0, 0 }, { GC_T_INT32, 1, S(3), b, NULL, 0, 0 },
                { GC_T_INT32, 1, S(3), e, NULL, 0, 0 }, { GC_T_INT32, 1, S(3), st, NULL, 0, 0 } };
    /* dim 0 shrunk at 0; dim 1 from 2 down to the start (end_mask); dim 2 from 3 by -2 (end_mask) */
    T outs[] = { { GC_T_FLOAT32, 2, S(3, 2), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_STRIDED_SLICE, GC_BO_StridedSliceOptions, ins, 4, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_StridedSliceOptions_shrink_axis_mask, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_StridedSliceOptions_end_mask, 6);
    float got[6], want[6] = { 11, 9, 7, 5, 3, 1 };
    int32_t shp[8]; int rank;
    CHECK(run(&r, ins, 4, 0, got, sizeof got, shp, &rank));
    CHECK(rank == 2 && shp[0] == 3 && shp[1] == 2);
    check_f(got, want, 6, 0, "strided_slice");
    gc_model_free(r.m);
}

GC_TEST(kernel_gather_pad_mirror_pad) {
    float p[6] = { 1, 2, 3, 4, 5, 6 };                  /* [2,3] */
    int32_t idx[4] = { 2, 0, 0, 1 };                      /* [2,2] along axis 1 */
    T ins[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, p, 0, 0 }, { GC_T_INT32, 2, S(2, 2), idx, NULL, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 3, S(2, 2, 2), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_GATHER, GC_BO_GatherOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_GatherOptions_axis, 1);
    float got[8], want[8] = { 3, 1, 1, 2, 6, 4, 4, 5 };
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    check_f(got, want, 8, 0, "gather");
    gc_model_free(r.m);

    int32_t bad[4] = { 0, 3, 1, 1 };
    T bins[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, p, 0, 0 }, { GC_T_INT32, 2, S(2, 2), NULL, bad, 0, 0 } };
    r = build(GC_OP_GATHER, GC_BO_GatherOptions, bins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_GatherOptions_axis, 1);
    CHECK(!run(&r, bins, 2, 0, got, sizeof got, NULL, NULL));          /* index 3 out of range */
    gc_model_free(r.m);

    int32_t pads[4] = { 0, 0, 2, 2 };
    T pins[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, p, 0, 0 }, { GC_T_INT32, 2, S(2, 2), pads, NULL, 0, 0 } };
    T pouts[] = { { GC_T_FLOAT32, 2, S(2, 7), NULL, NULL, 0, 0 } };
    float pg[14];
    r = build(GC_OP_MIRROR_PAD, GC_BO_MirrorPadOptions, pins, 2, pouts, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_MirrorPadOptions_mode, 0);             /* REFLECT */
    float reflect[14] = { 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4 };
    CHECK(run(&r, pins, 2, 0, pg, sizeof pg, NULL, NULL));
    check_f(pg, reflect, 14, 0, "reflect");
    gc_model_free(r.m);
    r = build(GC_OP_MIRROR_PAD, GC_BO_MirrorPadOptions, pins, 2, pouts, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_MirrorPadOptions_mode, 1);             /* SYMMETRIC */
    float symmetric[14] = { 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5 };
    CHECK(run(&r, pins, 2, 0, pg, sizeof pg, NULL, NULL));
    check_f(pg, symmetric, 14, 0, "symmetric");
    gc_model_free(r.m);
    r = build(GC_OP_PAD, 0, pins, 2, pouts, 1);
    float zeros[14] = { 0, 0, 1, 2, 3, 0, 0, 0, 0, 4, 5, 6, 0, 0 };
    CHECK(run(&r, pins, 2, 0, pg, sizeof pg, NULL, NULL));
    check_f(pg, zeros, 14, 0, "pad");
    gc_model_free(r.m);
}

GC_TEST(kernel_concat_split_pack_transpose) {
    float a[4] = { 1, 2, 3, 4 }, b[2] = { 5, 6 };
    T ins[] = { { GC_T_FLOAT32, 2, S(2, 2), NULL, a, 0, 0 }, { GC_T_FLOAT32, 2, S(2, 1), NULL, b, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_CONCATENATION, GC_BO_ConcatenationOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_ConcatenationOptions_axis, -1);
    float got[6], want[6] = { 1, 2, 5, 3, 4, 6 };
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    check_f(got, want, 6, 0, "concat");
    gc_model_free(r.m);

    int32_t sizes[2] = { -1, 2 }, axis[1] = { 1 };
    float x[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    T sins[] = { { GC_T_FLOAT32, 2, S(2, 5), NULL, x, 0, 0 }, { GC_T_INT32, 1, S(2), sizes, NULL, 0, 0 },
                 { GC_T_INT32, 0, S(0), axis, NULL, 0, 0 } };
    T souts[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, NULL, 0, 0 }, { GC_T_FLOAT32, 2, S(2, 2), NULL, NULL, 0, 0 } };
    r = build(GC_OP_SPLIT_V, GC_BO_SplitVOptions, sins, 3, souts, 2);
    float s0[6], s1[4], w0[6] = { 0, 1, 2, 5, 6, 7 }, w1[4] = { 3, 4, 8, 9 };
    CHECK(run(&r, sins, 3, 0, s0, sizeof s0, NULL, NULL));
    CHECK(run(&r, sins, 3, 1, s1, sizeof s1, NULL, NULL));
    check_f(s0, w0, 6, 0, "split_v 0");
    check_f(s1, w1, 4, 0, "split_v 1");
    gc_model_free(r.m);

    T pins[] = { { GC_T_FLOAT32, 1, S(2), NULL, a, 0, 0 }, { GC_T_FLOAT32, 1, S(2), NULL, b, 0, 0 } };
    T pouts[] = { { GC_T_FLOAT32, 2, S(2, 2), NULL, NULL, 0, 0 } };
    r = build(GC_OP_PACK, GC_BO_PackOptions, pins, 2, pouts, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_PackOptions_axis, 1);
    float pg[4], pw[4] = { 1, 5, 2, 6 };
    CHECK(run(&r, pins, 2, 0, pg, sizeof pg, NULL, NULL));
    check_f(pg, pw, 4, 0, "pack");
    gc_model_free(r.m);

    float t[24]; for (int i = 0; i < 24; i++) t[i] = (float)i;
    int32_t perm[3] = { 2, 0, 1 };
    T tins[] = { { GC_T_FLOAT32, 3, S(2, 3, 4), NULL, t, 0, 0 }, { GC_T_INT32, 1, S(3), perm, NULL, 0, 0 } };
    T touts[] = { { GC_T_FLOAT32, 3, S(4, 2, 3), NULL, NULL, 0, 0 } };
    r = build(GC_OP_TRANSPOSE, 0, tins, 2, touts, 1);
    float tg[24];
    CHECK(run(&r, tins, 2, 0, tg, sizeof tg, NULL, NULL));
    for (int i = 0; i < 4; i++) for (int j = 0; j < 2; j++) for (int k = 0; k < 3; k++)
        CHECK(tg[(i * 2 + j) * 3 + k] == t[(j * 3 + k) * 4 + i]);
    gc_model_free(r.m);

    /* NCHW -> NHWC of 3 channels (shape.c tr_tile4's rows of 3): B 2, pixel counts with
     * every remainder mod 4 and wider than one tile */
    const int32_t hw[][2] = { { 5, 7 }, { 4, 4 }, { 3, 2 }, { 1, 1 }, { 37, 41 }, { 1, 1203 } };
    for (int c = 0; c < 6; c++) {
        const int32_t H = hw[c][0], W = hw[c][1], n = 2 * 3 * H * W;
        float *xi = malloc((size_t)n * sizeof *xi), *yo = malloc((size_t)n * sizeof *yo);
        for (int i = 0; i < n; i++) xi[i] = (float)i * 0.5f - 7.0f;
        int32_t p4[4] = { 0, 2, 3, 1 };
        T nins[] = { { GC_T_FLOAT32, 4, S(2, 3, H, W), NULL, xi, 0, 0 }, { GC_T_INT32, 1, S(4), p4, NULL, 0, 0 } };
        T nouts[] = { { GC_T_FLOAT32, 4, S(2, H, W, 3), NULL, NULL, 0, 0 } };
        r = build(GC_OP_TRANSPOSE, 0, nins, 2, nouts, 1);
        CHECK(run(&r, nins, 2, 0, yo, (size_t)n * sizeof *yo, NULL, NULL));
        long bad = 0;
        for (int bi = 0; bi < 2; bi++) for (int h = 0; h < H; h++) for (int w = 0; w < W; w++) for (int k = 0; k < 3; k++)
            bad += yo[((bi * H + h) * W + w) * 3 + k] != xi[((bi * 3 + k) * H + h) * W + w];
        CHECK_MSG(bad == 0, "NCHW->NHWC %dx%d: %ld wrong", H, W, bad);
        gc_model_free(r.m);
        free(xi); free(yo);
    }

    /* the last dim kept (shape.c tr_rows: whole rows, an odometer over the others): every
     * permutation of the first three dims of [5, 2, 3, L], rows of 1..9 elements (the
     * constant-size copies and the others), against the index definition */
    const int32_t perms[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    for (int32_t L = 1; L <= 9; L++)
        for (int pi = 0; pi < 6; pi++) {
            const int32_t D[4] = { 5, 2, 3, L }, n = 5 * 2 * 3 * L;
            float xi[270], yo[270];
            for (int i = 0; i < n; i++) xi[i] = (float)i;
            int32_t p4[4] = { perms[pi][0], perms[pi][1], perms[pi][2], 3 };
            T nins[] = { { GC_T_FLOAT32, 4, S(5, 2, 3, L), NULL, xi, 0, 0 }, { GC_T_INT32, 1, S(4), p4, NULL, 0, 0 } };
            T nouts[] = { { GC_T_FLOAT32, 4, S(D[p4[0]], D[p4[1]], D[p4[2]], L), NULL, NULL, 0, 0 } };
            r = build(GC_OP_TRANSPOSE, 0, nins, 2, nouts, 1);
            CHECK(run(&r, nins, 2, 0, yo, (size_t)n * sizeof *yo, NULL, NULL));
            long bad = 0;
            int32_t o[4];
            for (o[0] = 0; o[0] < D[p4[0]]; o[0]++) for (o[1] = 0; o[1] < D[p4[1]]; o[1]++)
                for (o[2] = 0; o[2] < D[p4[2]]; o[2]++) for (o[3] = 0; o[3] < L; o[3]++) {
                    int32_t in[4];
                    for (int k = 0; k < 4; k++) in[p4[k]] = o[k];
                    const int32_t yi = ((o[0] * D[p4[1]] + o[1]) * D[p4[2]] + o[2]) * L + o[3];
                    bad += yo[yi] != xi[((in[0] * 2 + in[1]) * 3 + in[2]) * L + in[3]];
                }
            CHECK_MSG(bad == 0, "rows of %d, perm %d %d %d: %ld wrong", L, p4[0], p4[1], p4[2], bad);
            gc_model_free(r.m);
        }
}

GC_TEST(kernel_space_batch_depth_roundtrips) {
    float x[16]; for (int i = 0; i < 16; i++) x[i] = (float)i;     /* 1x4x4x1 */
    int32_t block[2] = { 2, 2 }, pads[4] = { 0, 0, 0, 0 };
    T ins[] = { { GC_T_FLOAT32, 4, S(1, 4, 4, 1), NULL, x, 0, 0 }, { GC_T_INT32, 1, S(2), block, NULL, 0, 0 },
                { GC_T_INT32, 2, S(2, 2), pads, NULL, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 4, S(4, 2, 2, 1), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_SPACE_TO_BATCH_ND, 0, ins, 3, outs, 1);
    float sb[16];
    CHECK(run(&r, ins, 3, 0, sb, sizeof sb, NULL, NULL));
    /* batch 1 = block offset (0,1): x[0][1], x[0][3], x[2][1], x[2][3] */
    CHECK(sb[4] == 1 && sb[5] == 3 && sb[6] == 9 && sb[7] == 11);
    gc_model_free(r.m);
    T bins[] = { { GC_T_FLOAT32, 4, S(4, 2, 2, 1), NULL, sb, 0, 0 }, { GC_T_INT32, 1, S(2), block, NULL, 0, 0 },
                 { GC_T_INT32, 2, S(2, 2), pads, NULL, 0, 0 } };
    T bouts[] = { { GC_T_FLOAT32, 4, S(1, 4, 4, 1), NULL, NULL, 0, 0 } };
    r = build(GC_OP_BATCH_TO_SPACE_ND, 0, bins, 3, bouts, 1);
    float back[16];
    CHECK(run(&r, bins, 3, 0, back, sizeof back, NULL, NULL));
    check_f(back, x, 16, 0, "b2s(s2b)");
    gc_model_free(r.m);

    float d[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };                          /* 1x1x2x4 -> 1x2x4x1 */
    T dins[] = { { GC_T_FLOAT32, 4, S(1, 1, 2, 4), NULL, d, 0, 0 } };
    T douts[] = { { GC_T_FLOAT32, 4, S(1, 2, 4, 1), NULL, NULL, 0, 0 } };
    r = build(GC_OP_DEPTH_TO_SPACE, GC_BO_DepthToSpaceOptions, dins, 1, douts, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthToSpaceOptions_block_size, 2);
    float dg[8], dw[8] = { 0, 1, 4, 5, 2, 3, 6, 7 };
    CHECK(run(&r, dins, 1, 0, dg, sizeof dg, NULL, NULL));
    check_f(dg, dw, 8, 0, "depth_to_space");
    gc_model_free(r.m);
}

/* ---- resize.c -------------------------------------------------------------------------------- */

GC_TEST(kernel_resize_bilinear_modes) {
    float x[4] = { 0, 1, 2, 3 };                                       /* 1x2x2x1 */
    int32_t size[2] = { 3, 3 };
    T ins[] = { { GC_T_FLOAT32, 4, S(1, 2, 2, 1), NULL, x, 0, 0 }, { GC_T_INT32, 1, S(2), size, NULL, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 4, S(1, 3, 3, 1), NULL, NULL, 0, 0 } };
    float got[9];
    one_op r = build(GC_OP_RESIZE_BILINEAR, GC_BO_ResizeBilinearOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_ResizeBilinearOptions_align_corners, 1);
    float ac[9] = { 0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3 };
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    check_f(got, ac, 9, 1e-6f, "align_corners");
    gc_model_free(r.m);
    r = build(GC_OP_RESIZE_BILINEAR, GC_BO_ResizeBilinearOptions, ins, 2, outs, 1);
    float plain[9] = { 0, 2.0f / 3, 1, 4.0f / 3, 2, 7.0f / 3, 2, 8.0f / 3, 3 };
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    check_f(got, plain, 9, 1e-6f, "plain");
    gc_model_free(r.m);
    r = build(GC_OP_RESIZE_BILINEAR, GC_BO_ResizeBilinearOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_ResizeBilinearOptions_half_pixel_centers, 1);
    /* src = (o + 0.5) * 2/3 - 0.5: -1/6, 1/2, 7/6 -> clamped rows 0, 0.5, 1 */
    float half[9] = { 0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3 };
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    check_f(got, half, 9, 1e-6f, "half_pixel");
    gc_model_free(r.m);
    r = build(GC_OP_RESIZE_NEAREST_NEIGHBOR, GC_BO_ResizeNearestNeighborOptions, ins, 2, outs, 1);
    float nn[9] = { 0, 0, 1, 0, 0, 1, 2, 2, 3 };
    CHECK(run(&r, ins, 2, 0, got, sizeof got, NULL, NULL));
    check_f(got, nn, 9, 0, "nearest");
    gc_model_free(r.m);
}

/* ---- quantize.c, reduce.c (cumsum, arg_max) ---------------------------------------------------- */

GC_TEST(kernel_quantize_dequantize_cast_cumsum_argmax) {
    float x[5] = { -1.0f, -0.25f, 0.0f, 0.126f, 10.0f };
    T ins[] = { { GC_T_FLOAT32, 1, S(5), NULL, x, 0, 0 } };
    T outs[] = { { GC_T_INT8, 1, S(5), NULL, NULL, 0.05f, 2 } };
    one_op r = build(GC_OP_QUANTIZE, 0, ins, 1, outs, 1);
    int8_t q[5];
    CHECK(run(&r, ins, 1, 0, q, sizeof q, NULL, NULL));
    CHECK(q[0] == -18 && q[1] == -3 && q[2] == 2 && q[3] == 5 && q[4] == 127);
    gc_model_free(r.m);
    T dins[] = { { GC_T_INT8, 1, S(5), NULL, q, 0.05f, 2 } };
    T douts[] = { { GC_T_FLOAT32, 1, S(5), NULL, NULL, 0, 0 } };
    r = build(GC_OP_DEQUANTIZE, 0, dins, 1, douts, 1);
    float dq[5];
    CHECK(run(&r, dins, 1, 0, dq, sizeof dq, NULL, NULL));
    CHECK_NEAR(dq[0], -1.0, 1e-6);
    CHECK_NEAR(dq[4], 6.25, 1e-5);
    gc_model_free(r.m);
    T couts[] = { { GC_T_INT32, 1, S(5), NULL, NULL, 0, 0 } };
    float cx[5] = { -1.7f, -0.5f, 0.0f, 0.9f, 3.99f };
    T cins[] = { { GC_T_FLOAT32, 1, S(5), NULL, cx, 0, 0 } };
    r = build(GC_OP_CAST, 0, cins, 1, couts, 1);
    int32_t ci[5];
    CHECK(run(&r, cins, 1, 0, ci, sizeof ci, NULL, NULL));
    CHECK(ci[0] == -1 && ci[1] == 0 && ci[3] == 0 && ci[4] == 3);
    gc_model_free(r.m);

    float cs[6] = { 1, 2, 3, 4, 5, 6 };
    int32_t ax[1] = { 1 };
    T sins[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, cs, 0, 0 }, { GC_T_INT32, 0, S(0), ax, NULL, 0, 0 } };
    T souts[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, NULL, 0, 0 } };
    r = build(GC_OP_CUMSUM, GC_BO_CumsumOptions, sins, 2, souts, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_CumsumOptions_exclusive, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_CumsumOptions_reverse, 1);
    float sg[6], sw[6] = { 5, 3, 0, 11, 6, 0 };
    CHECK(run(&r, sins, 2, 0, sg, sizeof sg, NULL, NULL));
    check_f(sg, sw, 6, 0, "cumsum");
    gc_model_free(r.m);

    float am[6] = { 1, 9, 9, 7, -1, 0 };
    T ains[] = { { GC_T_FLOAT32, 2, S(2, 3), NULL, am, 0, 0 }, { GC_T_INT32, 1, S(1), ax, NULL, 0, 0 } };
    T aouts[] = { { GC_T_INT64, 1, S(2), NULL, NULL, 0, 0 } };
    r = build(GC_OP_ARG_MAX, GC_BO_ArgMaxOptions, ains, 2, aouts, 1);
    int64_t ag[2];
    CHECK(run(&r, ains, 2, 0, ag, sizeof ag, NULL, NULL));
    CHECK(ag[0] == 1 && ag[1] == 0);                                  /* first index wins ties */
    gc_model_free(r.m);
}

/* ---- pool.c ----------------------------------------------------------------------------------- */

GC_TEST(kernel_pooling_same_padding_counts_valid_taps) {
    float x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };                           /* 1x3x3x1 */
    T ins[] = { { GC_T_FLOAT32, 4, S(1, 3, 3, 1), NULL, x, 0, 0 } };
    T outs[] = { { GC_T_FLOAT32, 4, S(1, 2, 2, 1), NULL, NULL, 0, 0 } };
    one_op r = build(GC_OP_AVERAGE_POOL_2D, GC_BO_Pool2DOptions, ins, 1, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_padding, 0);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_stride_h, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_stride_w, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_filter_height, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_filter_width, 2);
    float got[4], want[4] = { 3, 4.5f, 7.5f, 9 };
    CHECK(run(&r, ins, 1, 0, got, sizeof got, NULL, NULL));
    check_f(got, want, 4, 0, "avgpool");
    gc_model_free(r.m);
    r = build(GC_OP_MAX_POOL_2D, GC_BO_Pool2DOptions, ins, 1, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_padding, 0);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_stride_h, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_stride_w, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_filter_height, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Pool2DOptions_filter_width, 2);
    float mw[4] = { 5, 6, 8, 9 };
    CHECK(run(&r, ins, 1, 0, got, sizeof got, NULL, NULL));
    check_f(got, mw, 4, 0, "maxpool");
    gc_model_free(r.m);
}

/* ---- --int-arith xnnpack (XNNPACK's integer arithmetic, as LiteRT's CPU runtime) ------------ */

GC_TEST(kernel_xnnpack_arith_leaky_relu_add_quantize) {
    g_qmode = GC_QMODE_XNNPACK;
    /* LEAKY_RELU: m+ = rint(256 * 0.05/0.04) = 320, m- = rint(256 * 1.25 * 0.1) = 32,
     * out = (256 zp_out + 128 + (x - zp_in) m) >> 8 */
    int8_t x[5] = { -128, -10, -3, 0, 100 };
    T ins[] = { { GC_T_INT8, 1, S(5), NULL, x, 0.05f, -3 } };
    T outs[] = { { GC_T_INT8, 1, S(5), NULL, NULL, 0.04f, 5 } };
    one_op r = build(GC_OP_LEAKY_RELU, GC_BO_LeakyReluOptions, ins, 1, outs, 1);
    gc_opt_set_float(r.m, &r.op->opt, GC_O_LeakyReluOptions_alpha, 0.1);
    int8_t got[5];
    CHECK(run(&r, ins, 1, 0, got, sizeof got, NULL, NULL));
    for (int i = 0; i < 5; i++) {
        int32_t v = x[i] + 3, m = v >= 0 ? 320 : 32;
        int32_t want = (5 * 256 + 128 + v * m) >> 8;
        want = want < -128 ? -128 : want > 127 ? 127 : want;
        CHECK_MSG(got[i] == want, "lrelu[%d]: %d vs %d", i, got[i], want);
    }
    gc_model_free(r.m);

    /* QUANTIZE float -> int8: x * (1/s), ties to even (0.5 -> 0, 1.5 -> 2, -2.5 -> -2) */
    float f[4] = { 0.5f, 1.5f, -2.5f, 1000.0f };
    T qins[] = { { GC_T_FLOAT32, 1, S(4), NULL, f, 0, 0 } };
    T qouts[] = { { GC_T_INT8, 1, S(4), NULL, NULL, 1.0f, 0 } };
    r = build(GC_OP_QUANTIZE, 0, qins, 1, qouts, 1);
    int8_t q[4];
    CHECK(run(&r, qins, 1, 0, q, sizeof q, NULL, NULL));
    CHECK(q[0] == 0 && q[1] == 2 && q[2] == -2 && q[3] == 127);
    gc_model_free(r.m);
    g_qmode = GC_QMODE_TFLITE;                     /* TFLite rounds half away from zero */
    r = build(GC_OP_QUANTIZE, 0, qins, 1, qouts, 1);
    CHECK(run(&r, qins, 1, 0, q, sizeof q, NULL, NULL));
    CHECK(q[0] == 1 && q[1] == 2 && q[2] == -3);
    gc_model_free(r.m);

    /* ADD: multipliers with 2^(20 - floor(log2 max ratio)) scaling, bias holds the
     * rounding and the zero points, arithmetic shift */
    g_qmode = GC_QMODE_XNNPACK;
    int8_t a[4] = { -128, -1, 50, 127 }, b[4] = { 3, -128, 60, 127 };
    float sa = 0.02f, sb = 0.03f, so = 0.07f;
    T ains[] = { { GC_T_INT8, 1, S(4), NULL, a, sa, -4 }, { GC_T_INT8, 1, S(4), NULL, b, sb, 7 } };
    T aouts[] = { { GC_T_INT8, 1, S(4), NULL, NULL, so, -2 } };
    r = build(GC_OP_ADD, GC_BO_AddOptions, ains, 2, aouts, 1);
    int8_t ag[4];
    CHECK(run(&r, ains, 2, 0, ag, sizeof ag, NULL, NULL));
    float ra = sa / so, rb = sb / so, mx = ra > rb ? ra : rb;
    int shift = 20 - ((int)floorf(log2f(mx)));
    int32_t ma = (int32_t)lrintf(ldexpf(ra, shift)), mb = (int32_t)lrintf(ldexpf(rb, shift));
    for (int i = 0; i < 4; i++) {
        int32_t acc = (1 << (shift - 1)) - ma * -4 - mb * 7 + a[i] * ma + b[i] * mb;
        int32_t want = (acc >> shift) - 2;
        want = want < -128 ? -128 : want > 127 ? 127 : want;
        CHECK_MSG(ag[i] == want, "add[%d]: %d vs %d", i, ag[i], want);
        double real = sa * (a[i] + 4) + sb * (b[i] - 7);
        CHECK(fabs((ag[i] + 2) * so - real) <= so * 0.5 + 1e-6 || ag[i] == 127 || ag[i] == -128);
    }
    gc_model_free(r.m);
    g_qmode = GC_QMODE_TFLITE;
}
