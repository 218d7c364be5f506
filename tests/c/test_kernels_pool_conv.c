/* test_kernels_pool_conv.c — the convolution and matrix-product paths on the thread pool
 * (test_kernels_pool.h): fast and reference float CONV_2D / DEPTHWISE_CONV_2D /
 * TRANSPOSE_CONV / FULLY_CONNECTED / BATCH_MATMUL at 1, 2, 3 threads and tiny chunks
 * (the reference kernels split too, and give the fast ones' bits), fp16 / fp16-acc
 * (Winograd included where the native fp16 model takes it), quantized and hybrid
 * CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED and BATCH_MATMUL. */
#include "test_kernels_pool.h"

static void conv_opts(kt_model *r, int code, int stride, int valid) {
    gc_options *o = &r->op->opt;
    if (code == GC_OP_DEPTHWISE_CONV_2D) {
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_padding, valid);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_stride_w, stride);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_stride_h, stride);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
    } else if (code == GC_OP_CONV_2D) {
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_padding, valid);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_stride_w, stride);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_stride_h, stride);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_fused_activation_function, GC_ACT_RELU6);
    } else {
        gc_opt_set_int(r->m, o, GC_O_TransposeConvOptions_padding, valid);
        gc_opt_set_int(r->m, o, GC_O_TransposeConvOptions_stride_w, stride);
        gc_opt_set_int(r->m, o, GC_O_TransposeConvOptions_stride_h, stride);
    }
}

GC_TEST(pool_conv_float) {
    float *x = fdata(2 * 40 * 40 * 24, 1.0f, false), *w = fdata(32 * 3 * 3 * 24, 0.3f, false), *b = fdata(32, 0.1f, false);
    /* CONV_2D 3x3 stride 1 (Winograd-eligible in native fp16) and stride 2 */
    for (int stride = 1; stride <= 2; stride++) {
        int32_t o = stride == 1 ? 40 : 20;
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(2, 40, 40, 24), x), KT_C(GC_T_FLOAT32, 4, KT_S(32, 3, 3, 24), w),
                            KT_C(GC_T_FLOAT32, 1, KT_S(32), b) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(2, o, o, 32)) };
        kt_model r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
        conv_opts(&r, GC_OP_CONV_2D, stride, 0);
        size_t nb;
        done(&r, check(&r, ins, 3, REF_THREADS | FP16, stride == 1 ? "CONV_2D s1" : "CONV_2D s2", &nb));
    }
    /* DEPTHWISE_CONV_2D 3x3 */
    kt_tensor dins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(2, 40, 40, 24), x), KT_C(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 24), w),
                         KT_C(GC_T_FLOAT32, 1, KT_S(24), b) };
    kt_tensor douts[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(2, 40, 40, 24)) };
    kt_model r = kt_build(GC_OP_DEPTHWISE_CONV_2D, GC_BO_DepthwiseConv2DOptions, dins, 3, douts, 1);
    conv_opts(&r, GC_OP_DEPTHWISE_CONV_2D, 1, 0);
    size_t nb;
    done(&r, check(&r, dins, 3, REF_THREADS | FP16, "DEPTHWISE_CONV_2D", &nb));
    /* TRANSPOSE_CONV 3x3 stride 2: [2, 20, 20, 24] -> [2, 40, 40, 32] */
    int32_t oshape[] = { 2, 40, 40, 32 };
    kt_tensor tins[] = { KT_C(GC_T_INT32, 1, KT_S(4), oshape), KT_C(GC_T_FLOAT32, 4, KT_S(32, 3, 3, 24), w),
                         KT_IN(GC_T_FLOAT32, 4, KT_S(2, 20, 20, 24), x), KT_C(GC_T_FLOAT32, 1, KT_S(32), b) };
    kt_tensor touts[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(2, 40, 40, 32)) };
    r = kt_build(GC_OP_TRANSPOSE_CONV, GC_BO_TransposeConvOptions, tins, 4, touts, 1);
    conv_opts(&r, GC_OP_TRANSPOSE_CONV, 2, 0);
    done(&r, check(&r, tins, 4, REF_THREADS | FP16, "TRANSPOSE_CONV", &nb));
    free(x); free(w); free(b);
}

GC_TEST(pool_conv_quantized_hybrid) {
    uint8_t *xq = bdata(2 * 40 * 40 * 24), *wq = bdata(32 * 3 * 3 * 24);
    int32_t bq[32];
    float ws[32];
    for (int i = 0; i < 32; i++) { bq[i] = (int32_t)(rnd() % 2001) - 1000; ws[i] = 0.002f * (float)(1 + i % 5); }
    const int32_t codes[] = { GC_OP_CONV_2D, GC_OP_DEPTHWISE_CONV_2D, GC_OP_TRANSPOSE_CONV };
    for (int k = 0; k < 3; k++) {
        int code = codes[k], oc = code == GC_OP_DEPTHWISE_CONV_2D ? 24 : 32;
        int32_t oshape[] = { 2, 40, 40, 32 };
        kt_tensor xin = { .type = GC_T_INT8, .rank = 4, .shape = { 2, code == GC_OP_TRANSPOSE_CONV ? 20 : 40,
                          code == GC_OP_TRANSPOSE_CONV ? 20 : 40, 24 }, .feed = xq, .scale = 0.05f, .zp = -3 };
        kt_tensor wt = code == GC_OP_DEPTHWISE_CONV_2D ? (kt_tensor)KT_QA(GC_T_INT8, 4, KT_S(1, 3, 3, 24), wq, 24, ws, NULL, 3)
                                                       : (kt_tensor)KT_QA(GC_T_INT8, 4, KT_S(32, 3, 3, 24), wq, 32, ws, NULL, 0);
        kt_tensor bt = KT_C(GC_T_INT32, 1, KT_S(oc), bq);
        kt_tensor outs[] = { KT_QOUT(GC_T_INT8, 4, KT_S(2, 40, 40, oc), 0.1f, 2) };
        kt_tensor ins[4];
        int n_in;
        if (code == GC_OP_TRANSPOSE_CONV) { ins[0] = (kt_tensor)KT_C(GC_T_INT32, 1, KT_S(4), oshape); ins[1] = wt; ins[2] = xin; ins[3] = bt; n_in = 4; }
        else { ins[0] = xin; ins[1] = wt; ins[2] = bt; n_in = 3; }
        kt_model r = kt_build(code, code == GC_OP_CONV_2D ? GC_BO_Conv2DOptions : code == GC_OP_DEPTHWISE_CONV_2D ?
                              GC_BO_DepthwiseConv2DOptions : GC_BO_TransposeConvOptions, ins, n_in, outs, 1);
        conv_opts(&r, code, code == GC_OP_TRANSPOSE_CONV ? 2 : 1, 0);
        char what[48]; snprintf(what, sizeof what, "int8 op %d", code);
        size_t nb;
        done(&r, check(&r, ins, n_in, 0, what, &nb));
    }
    /* hybrid: float input, int8 filter */
    float *x = fdata(2 * 40 * 40 * 24, 1.0f, false), *b = fdata(32, 0.1f, false);
    for (int k = 0; k < 2; k++) {
        int code = codes[k], oc = k ? 24 : 32;
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(2, 40, 40, 24), x),
                            k ? (kt_tensor)KT_QA(GC_T_INT8, 4, KT_S(1, 3, 3, 24), wq, 24, ws, NULL, 3)
                              : (kt_tensor)KT_QA(GC_T_INT8, 4, KT_S(32, 3, 3, 24), wq, 32, ws, NULL, 0),
                            KT_C(GC_T_FLOAT32, 1, KT_S(oc), b) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(2, 40, 40, oc)) };
        kt_model r = kt_build(code, k ? GC_BO_DepthwiseConv2DOptions : GC_BO_Conv2DOptions, ins, 3, outs, 1);
        conv_opts(&r, code, 1, 0);
        size_t nb;
        done(&r, check(&r, ins, 3, 0, k ? "hybrid DEPTHWISE_CONV_2D" : "hybrid CONV_2D", &nb));
    }
    free(xq); free(wq); free(x); free(b);
}

GC_TEST(pool_fc_bmm) {
    float *x = fdata(300 * 160, 1.0f, false), *w = fdata(120 * 160, 0.2f, false), *b = fdata(120, 0.1f, false);
    uint8_t *xq = bdata(300 * 160), *wq = bdata(120 * 160);
    int32_t bq[120];
    float ws[120];
    for (int i = 0; i < 120; i++) { bq[i] = (int32_t)(rnd() % 2001) - 1000; ws[i] = 0.001f * (float)(1 + i % 7); }
    size_t nb;
    {   /* float FC, constant and run-time weights */
        for (int rt = 0; rt < 2; rt++) {
            kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(300, 160), x),
                                rt ? (kt_tensor)KT_IN(GC_T_FLOAT32, 2, KT_S(120, 160), w) : (kt_tensor)KT_C(GC_T_FLOAT32, 2, KT_S(120, 160), w),
                                KT_C(GC_T_FLOAT32, 1, KT_S(120), b) };
            kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(300, 120)) };
            kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
            done(&r, check(&r, ins, 3, REF_THREADS | FP16, rt ? "FC run-time weights" : "FC", &nb));
        }
    }
    {   /* int8 FC */
        kt_tensor ins[] = { { .type = GC_T_INT8, .rank = 2, .shape = { 300, 160 }, .feed = xq, .scale = 0.05f, .zp = 4 },
                            KT_QA(GC_T_INT8, 2, KT_S(120, 160), wq, 120, ws, NULL, 0), KT_C(GC_T_INT32, 1, KT_S(120), bq) };
        kt_tensor outs[] = { KT_QOUT(GC_T_INT8, 2, KT_S(300, 120), 0.2f, -1) };
        kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
        done(&r, check(&r, ins, 3, 0, "int8 FC", &nb));
    }
    {   /* hybrid FC (rows x unit blocks), symmetric and asymmetric inputs */
        for (int asym = 0; asym < 2; asym++) {
            kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(300, 160), x), KT_QA(GC_T_INT8, 2, KT_S(120, 160), wq, 120, ws, NULL, 0),
                                KT_C(GC_T_FLOAT32, 1, KT_S(120), b) };
            kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(300, 120)) };
            kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
            gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_asymmetric_quantize_inputs, asym);
            done(&r, check(&r, ins, 3, 0, asym ? "hybrid FC asymmetric" : "hybrid FC", &nb));
        }
    }
    /* BATCH_MATMUL: run-time b, adj_x, constant broadcast b, hybrid b, int8 */
    float *a = fdata(4 * 60 * 48, 1.0f, false), *bb = fdata(4 * 48 * 50, 1.0f, false);
    for (int form = 0; form < 5; form++) {
        kt_tensor ins[2];
        ins[0] = (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(4, 60, 48), a);
        if (form == 1) ins[0] = (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(4, 48, 60), a);          /* adj_x */
        if (form <= 1) ins[1] = (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(4, 48, 50), bb);
        if (form == 2) ins[1] = (kt_tensor)KT_C(GC_T_FLOAT32, 2, KT_S(48, 50), bb);
        if (form == 3) ins[1] = (kt_tensor)KT_QA(GC_T_INT8, 2, KT_S(48, 50), wq, 1, ws, NULL, 1);
        if (form == 4) {
            ins[0] = (kt_tensor){ .type = GC_T_INT8, .rank = 3, .shape = { 4, 60, 48 }, .feed = xq, .scale = 0.05f, .zp = 1 };
            ins[1] = (kt_tensor){ .type = GC_T_INT8, .rank = 3, .shape = { 4, 48, 50 }, .feed = wq, .scale = 0.02f, .zp = -2 };
        }
        kt_tensor outs[] = { form == 4 ? (kt_tensor)KT_QOUT(GC_T_INT8, 3, KT_S(4, 60, 50), 0.3f, 3)
                                       : (kt_tensor)KT_OUT(GC_T_FLOAT32, 3, KT_S(4, 60, 50)) };
        kt_model r = kt_build(GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, ins, 2, outs, 1);
        if (form == 1) gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_x, 1);
        char what[32]; snprintf(what, sizeof what, "BATCH_MATMUL form %d", form);
        done(&r, check(&r, ins, 2, form <= 2 ? REF_THREADS | FP16 : 0, what, &nb));
    }
    free(x); free(w); free(b); free(xq); free(wq); free(a); free(bb);
}
