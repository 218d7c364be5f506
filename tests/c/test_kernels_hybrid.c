/* test_kernels_hybrid.c — hybrid (dynamic-range) FULLY_CONNECTED, CONV_2D,
 * DEPTHWISE_CONV_2D and BATCH_MATMUL: float input, constant INT8 / INT4 weights.
 *
 * The inputs are chosen so that the run-time quantization is exact (every input a
 * multiple of 2^-6, the range's extreme 127 * 2^-6 (symmetric) or [0, 255 * 2^-6]
 * (asymmetric), so the step is 2^-6), and every scale is a power of two: then the hybrid
 * result equals the real-valued sum bias + sum x w s exactly, worked out here in double.
 * Other cases check the XNNPACK quantizer against the bound of its rounding, fp16 modes
 * (dequantized weights), INT4 unpacking, and every message of a refused file. */
#include "test_kernels_harness.h"
#include "interp/fp16.h"

static bool has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* kt_run with an integer-arithmetic mode */
static bool hy_run(kt_model *r, gc_precision p, gc_qmode qm, const kt_tensor *ins, int n_in, void *out,
                   size_t nbytes, char *err, size_t errlen) {
    char buf[512];
    if (!err) { err = buf; errlen = sizeof buf; }
    err[0] = 0;
    gc_interp_opts o = { .precision = p, .qmode = qm, .signature = -1 };
    gc_interp *it = gc_interp_new(r->m, &o, err, errlen);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (it && !ok) snprintf(err, errlen, "prepare: %s", gc_interp_errmsg(it));
    int g = 0;
    for (int i = 0; ok && i < n_in; i++) {
        if (ins[i].type < 0 || ins[i].data) continue;
        gc_tview v = gc_interp_input(it, g++);
        memcpy(v.data, ins[i].feed, v.nbytes);
    }
    if (ok && gc_interp_invoke(it) != GC_OK) { snprintf(err, errlen, "invoke: %s", gc_interp_errmsg(it)); ok = false; }
    if (ok) {
        gc_tview v = gc_interp_output(it, 0);
        if (v.nbytes != nbytes) { snprintf(err, errlen, "output has %zu bytes, expected %zu", v.nbytes, nbytes); ok = false; }
        else memcpy(out, v.data, nbytes);
    }
    if (!ok && err == buf) fprintf(stderr, "  %s\n", buf);
    gc_interp_free(it);
    return ok;
}

/* FC weights [3, 4] and two rows of x: one exactly quantizable, one all zero */
static const int8_t fc_w[12] = { 1, 2, 3, 4, -1, -2, -3, -4, 127, -128, 0, 5 };
static const float fc_x[8] = { 1.984375f, -0.5f, 0.25f, 0.015625f, 0, 0, 0, 0 };
static const float fc_b[3] = { 0.25f, -1.0f, 2.0f };

static void fc_ideal(const float *x, int rows, const int8_t *w, const float *ws, int per_unit,
                     const float *b, int N, int K, double *y) {
    for (int r = 0; r < rows; r++)
        for (int u = 0; u < N; u++) {
            double s = 0;
            for (int k = 0; k < K; k++) s += (double)x[r * K + k] * w[u * K + k];
            y[r * N + u] = (b ? b[u] : 0.0) + s * ws[per_unit ? u : 0];
        }
}

GC_TEST(kernel_hybrid_fc_symmetric_per_tensor_and_per_unit_exact) {
    const float s1 = 0.5f, s3[3] = { 0.5f, 0.25f, 1.0f / 1024 };
    for (int pc = 0; pc < 2; pc++) {
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(2, 4), fc_x),
                            pc ? (kt_tensor)KT_QA(GC_T_INT8, 2, KT_S(3, 4), fc_w, 3, s3, NULL, 0)
                               : (kt_tensor)KT_Q(GC_T_INT8, 2, KT_S(3, 4), fc_w, s1, 0),
                            KT_C(GC_T_FLOAT32, 1, KT_S(3), fc_b) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 3)) };
        kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
        float got[6];
        double ideal[6];
        fc_ideal(fc_x, 2, fc_w, pc ? s3 : &s1, pc, fc_b, 3, 4, ideal);
        CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
        for (int i = 0; i < 6; i++) CHECK_MSG((double)got[i] == ideal[i], "pc %d [%d]: %.9g vs %.9g", pc, i, (double)got[i], ideal[i]);
        /* worked by hand: acc = 115, -115, 20230 at step 2^-6 */
        if (!pc) CHECK(got[0] == 1.1484375f && got[1] == -1.8984375f && got[2] == 160.046875f);
        else CHECK(got[0] == 1.1484375f && got[1] == -1.44921875f && got[2] == 2.308685302734375f);
        CHECK(got[3] == 0.25f && got[4] == -1.0f && got[5] == 2.0f);     /* zero row: the bias */
        /* fused RELU clamps the negative unit */
        gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_fused_activation_function, 1);      /* RELU */
        CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
        CHECK(got[1] == 0.0f && got[4] == 0.0f && got[0] == 1.1484375f);
        gc_model_free(r.m);
    }
}

GC_TEST(kernel_hybrid_fc_asymmetric_inputs_exact) {
    /* range [0, 255 * 2^-6]: step 2^-6, zero point -128 */
    const float x[8] = { 0.0f, 3.984375f, 1.0f, 0.5f, 0.5f, 0.25f, 3.984375f, 0.0f };
    const float s1 = 0.5f;
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(2, 4), x), KT_Q(GC_T_INT8, 2, KT_S(3, 4), fc_w, s1, 0),
                        KT_C(GC_T_FLOAT32, 1, KT_S(3), fc_b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 3)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_asymmetric_quantize_inputs, 1);
    float got[6];
    double ideal[6];
    fc_ideal(x, 2, fc_w, &s1, 0, fc_b, 3, 4, ideal);
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
    for (int i = 0; i < 6; i++) CHECK_MSG((double)got[i] == ideal[i], "[%d]: %.9g vs %.9g", i, (double)got[i], ideal[i]);
    CHECK(got[0] == 6.734375f);                 /* acc 830 * 2^-7 + 0.25 */
    gc_model_free(r.m);
}

GC_TEST(kernel_hybrid_fc_int4_weights_unpack_low_nibble_first) {
    /* units 2, depth 4: { 1, -2, 7, -8 }, { 0, 3, -1, 5 } */
    const uint8_t w4[4] = { 0xE1, 0x87, 0x30, 0x5F };
    const int8_t w8[8] = { 1, -2, 7, -8, 0, 3, -1, 5 };
    const float s = 0.5f;
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 4), fc_x), KT_Q(GC_T_INT4, 2, KT_S(2, 4), w4, s, 0), { .type = -1 } };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1, 2)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    float got[2];
    double ideal[2];
    fc_ideal(fc_x, 1, w8, &s, 0, NULL, 2, 4, ideal);
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
    CHECK(got[0] == 2.3046875f && got[1] == -0.8359375f);   /* acc 295, -107 at 2^-7 */
    CHECK((double)got[0] == ideal[0] && (double)got[1] == ideal[1]);
    gc_model_free(r.m);
}

GC_TEST(kernel_hybrid_fc_xnnpack_and_fp16_modes) {
    const float s3[3] = { 0.5f, 0.25f, 1.0f / 1024 };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(2, 4), fc_x), KT_QA(GC_T_INT8, 2, KT_S(3, 4), fc_w, 3, s3, NULL, 0),
                        KT_C(GC_T_FLOAT32, 1, KT_S(3), fc_b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 3)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    float got[6];
    double ideal[6];
    fc_ideal(fc_x, 2, fc_w, s3, 1, fc_b, 3, 4, ideal);
    /* XNNPACK's qd8: range [-0.5, 1.984375] onto 255 levels; every input is off by at
     * most half a step, so each unit by at most step / 2 * sum |w| * s */
    CHECK(hy_run(&r, GC_PREC_FP32, GC_QMODE_XNNPACK, ins, 3, got, sizeof got, NULL, 0));
    const double step = (1.984375 + 0.5) / 255;
    for (int u = 0; u < 3; u++) {
        double sw = 0;
        for (int k = 0; k < 4; k++) sw += abs(fc_w[u * 4 + k]);
        CHECK_MSG(fabs(got[u] - ideal[u]) <= step / 2 * sw * s3[u] * 1.0001, "xnn unit %d: %.9g vs %.9g", u, (double)got[u], ideal[u]);
        CHECK(got[3 + u] == fc_b[u]);
    }
    CHECK(got[0] != (float)ideal[0]);           /* it is the qd8 result, not the exact one */
    /* fp16: the GPU's dequantized weights (exact in half here), output rounded to half */
    CHECK(kt_run(&r, GC_PREC_FP16, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
    for (int i = 0; i < 6; i++) CHECK_MSG(got[i] == gc_f16_round((float)ideal[i]), "fp16 [%d]: %.9g", i, (double)got[i]);
    CHECK(kt_run(&r, GC_PREC_FP16_ACC, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
    for (int i = 0; i < 6; i++) CHECK_MSG(fabs(got[i] - ideal[i]) <= 0.002 * fabs(ideal[i]) + 1e-3, "fp16-acc [%d]", i);
    gc_model_free(r.m);
}

GC_TEST(kernel_hybrid_fc_nan_and_inf_inputs_stay_defined) {
    const float x[8] = { NAN, 1.0f, -2.0f, 0.5f, INFINITY, 1.0f, 0.0f, 0.0f };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(2, 4), x), KT_Q(GC_T_INT8, 2, KT_S(3, 4), fc_w, 0.5f, 0),
                        KT_C(GC_T_FLOAT32, 1, KT_S(3), fc_b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 3)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    float got[6];
    for (int asym = 0; asym < 2; asym++) {
        gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_asymmetric_quantize_inputs, asym);
        CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
        CHECK(hy_run(&r, GC_PREC_FP32, GC_QMODE_XNNPACK, ins, 3, got, sizeof got, NULL, 0));
    }
    gc_model_free(r.m);
}

GC_TEST(kernel_hybrid_fc_refuses_bad_weights) {
    char err[512];
    float got[6];
    /* a nonzero weight zero point */
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(2, 4), fc_x), KT_Q(GC_T_INT8, 2, KT_S(3, 4), fc_w, 0.5f, 3),
                        KT_C(GC_T_FLOAT32, 1, KT_S(3), fc_b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 3)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "zero point 3"), "%s", err);
    gc_model_free(r.m);
    /* per-unit scales along the wrong dimension, then the wrong count */
    const float s4[4] = { 1, 1, 1, 1 }, s3[3] = { 1, 1, 1 };
    ins[1] = (kt_tensor)KT_QA(GC_T_INT8, 2, KT_S(3, 4), fc_w, 3, s3, NULL, 1);
    r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "quantized along dimension 1"), "%s", err);
    gc_model_free(r.m);
    ins[1] = (kt_tensor)KT_QA(GC_T_INT8, 2, KT_S(3, 4), fc_w, 4, s4, NULL, 0);
    r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "4 scales for 3 units"), "%s", err);
    gc_model_free(r.m);
    /* a NaN scale; no quantization at all */
    const float sn = NAN;
    ins[1] = (kt_tensor)KT_QA(GC_T_INT8, 2, KT_S(3, 4), fc_w, 1, &sn, NULL, 0);
    r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "weight scale 0 is nan"), "%s", err);
    gc_model_free(r.m);
    ins[1] = (kt_tensor)KT_C(GC_T_INT8, 2, KT_S(3, 4), fc_w);
    r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "no quantization scale"), "%s", err);
    gc_model_free(r.m);
    /* weights computed at run time */
    ins[1] = (kt_tensor)KT_IN(GC_T_INT8, 2, KT_S(3, 4), fc_w);
    r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "runtime INT8 weights"), "%s", err);
    gc_model_free(r.m);
}

/* ---- convolutions ------------------------------------------------------------------ */

/* NHWC conv in double: w [OC][KH][KW][ICg] (dw: [1][KH][KW][OC]) int8 with scales s */
static void conv_ideal(bool dw, const float *x, int B, int H, int W, int C, const int8_t *w, int OC, int KH, int KW,
                       const float *s, const float *bias, int sh, int sw, int pt, int pl, int OH, int OW, double *y) {
    int mult = dw ? OC / C : 0;
    for (int b = 0; b < B; b++)
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++)
                for (int oc = 0; oc < OC; oc++) {
                    double acc = 0;
                    for (int ky = 0; ky < KH; ky++)
                        for (int kx = 0; kx < KW; kx++) {
                            int iy = oy * sh - pt + ky, ix = ox * sw - pl + kx;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                            if (dw) {
                                acc += (double)x[((b * H + iy) * W + ix) * C + oc / mult] * w[(ky * KW + kx) * OC + oc];
                            } else {
                                for (int ic = 0; ic < C; ic++)
                                    acc += (double)x[((b * H + iy) * W + ix) * C + ic] * w[((oc * KH + ky) * KW + kx) * C + ic];
                            }
                        }
                    y[((b * OH + oy) * OW + ox) * OC + oc] = acc * s[oc] + bias[oc];
                }
}

GC_TEST(kernel_hybrid_conv2d_per_channel_asymmetric_and_per_tensor_exact) {
    /* symmetric per-tensor: x [2, 3, 3, 2], each image with max |x| = 127 * 2^-6;
     * asymmetric per-channel: one image in [0, 255 * 2^-6] */
    float xs[36], xa[18];
    for (int i = 0; i < 36; i++) xs[i] = (float)(((i * 53) % 255) - 127) / 64.0f;
    xs[3] = 1.984375f; xs[20] = -1.984375f;
    for (int i = 0; i < 18; i++) xa[i] = (float)((i * 37) % 256) / 64.0f;
    xa[5] = 3.984375f; xa[7] = 0.0f;
    int8_t w[2 * 3 * 3 * 2];
    for (int i = 0; i < 36; i++) w[i] = (int8_t)((i * 29) % 255 - 127);
    const float s2[2] = { 0.5f, 0.25f }, s1[2] = { 0.125f, 0.125f }, bias[2] = { 1.0f, -0.5f };
    for (int pc = 0; pc < 2; pc++) {
        int B = pc ? 1 : 2;
        const float *x = pc ? xa : xs;
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(B, 3, 3, 2), x),
                            pc ? (kt_tensor)KT_QA(GC_T_INT8, 4, KT_S(2, 3, 3, 2), w, 2, s2, NULL, 0)
                               : (kt_tensor)KT_Q(GC_T_INT8, 4, KT_S(2, 3, 3, 2), w, 0.125f, 0),
                            KT_C(GC_T_FLOAT32, 1, KT_S(2), bias) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(B, 3, 3, 2)) };
        kt_model r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_padding, 0);      /* SAME */
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
        float got[36];
        double ideal[36];
        conv_ideal(false, x, B, 3, 3, 2, w, 2, 3, 3, pc ? s2 : s1, bias, 1, 1, 1, 1, 3, 3, ideal);
        CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, (size_t)B * 18 * 4, NULL, 0, NULL, NULL));
        for (int i = 0; i < B * 18; i++)
            CHECK_MSG((double)got[i] == ideal[i], "pc %d [%d]: %.9g vs %.9g", pc, i, (double)got[i], ideal[i]);
        /* XNNPACK mode: qd8 per image, within half a step per input */
        CHECK(hy_run(&r, GC_PREC_FP32, GC_QMODE_XNNPACK, ins, 3, got, (size_t)B * 18 * 4, NULL, 0));
        for (int i = 0; i < B * 18; i++) CHECK_MSG(fabs(got[i] - ideal[i]) <= 0.02 * 127 * 18 * 0.5 * 0.5, "xnn [%d]", i);
        gc_model_free(r.m);
    }
}

GC_TEST(kernel_hybrid_depthwise_multiplier_stride_padding_exact) {
    /* x [1, 4, 4, 2] in [0, 255 * 2^-6]; filter [1, 3, 3, 4] (multiplier 2), stride 2, SAME */
    float x[32];
    for (int i = 0; i < 32; i++) x[i] = (float)((i * 41) % 256) / 64.0f;
    x[3] = 3.984375f; x[9] = 0.0f;
    int8_t w[36];
    for (int i = 0; i < 36; i++) w[i] = (int8_t)((i * 23) % 255 - 127);
    const float s[4] = { 0.5f, 0.25f, 2.0f, 1.0f / 256 }, bias[4] = { 0.5f, -0.25f, 0, 3.0f };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 4, 4, 2), x), KT_QA(GC_T_INT8, 4, KT_S(1, 3, 3, 4), w, 4, s, NULL, 3),
                        KT_C(GC_T_FLOAT32, 1, KT_S(4), bias) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 4)) };
    kt_model r = kt_build(GC_OP_DEPTHWISE_CONV_2D, GC_BO_DepthwiseConv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_padding, 0);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_stride_w, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_stride_h, 2);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_DepthwiseConv2DOptions_depth_multiplier, 2);
    float got[16];
    double ideal[16];
    /* SAME, 4 -> 2 at stride 2 with a 3x3 kernel: total pad 1, before 0 */
    conv_ideal(true, x, 1, 4, 4, 2, w, 4, 3, 3, s, bias, 2, 2, 0, 0, 2, 2, ideal);
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
    for (int i = 0; i < 16; i++) CHECK_MSG((double)got[i] == ideal[i], "[%d]: %.9g vs %.9g", i, (double)got[i], ideal[i]);
    /* XNNPACK leaves hybrid depthwise to TFLite's kernel: the same result */
    float gx[16];
    CHECK(hy_run(&r, GC_PREC_FP32, GC_QMODE_XNNPACK, ins, 3, gx, sizeof gx, NULL, 0));
    CHECK(memcmp(gx, got, sizeof got) == 0);
    /* fp16: dequantized filter; every value here is exact in half except the sums */
    CHECK(kt_run(&r, GC_PREC_FP16, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
    for (int i = 0; i < 16; i++) CHECK_MSG(fabs(got[i] - ideal[i]) <= 1e-3 * fabs(ideal[i]) + 1e-3, "fp16 [%d]", i);
    gc_model_free(r.m);
}

GC_TEST(kernel_hybrid_conv_int4_filter_and_refusals) {
    /* a 1x1 conv, 2 -> 2 channels, INT4 filter { 3, -8 }, { 7, -1 } */
    const float x[4] = { 1.984375f, -1.0f, 0.5f, 0.015625f };
    const uint8_t w4[2] = { 0x83, 0xF7 };
    const float bias[2] = { 0, 0 };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 1, 2, 2), x), KT_Q(GC_T_INT4, 4, KT_S(2, 1, 1, 2), w4, 0.25f, 0),
                        KT_C(GC_T_FLOAT32, 1, KT_S(2), bias) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 1, 2, 2)) };
    kt_model r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    float got[4];
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
    const float want[4] = { (1.984375f * 3 + 8) * 0.25f, (1.984375f * 7 + 1) * 0.25f,
                            (0.5f * 3 - 8 * 0.015625f) * 0.25f, (0.5f * 7 - 0.015625f) * 0.25f };
    kt_check_f(got, want, 4, 0, "int4 conv");
    gc_model_free(r.m);

    char err[512];
    /* filter zero point, per-channel axis */
    const int8_t w8[4] = { 1, 2, 3, 4 };
    const float s2[2] = { 1, 1 };
    ins[1] = (kt_tensor)KT_QA(GC_T_INT8, 4, KT_S(2, 1, 1, 2), w8, 2, s2, NULL, 3);
    r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "quantized along dimension 3, expected 0"), "%s", err);
    gc_model_free(r.m);
    ins[1] = (kt_tensor)KT_Q(GC_T_INT8, 4, KT_S(2, 1, 1, 2), w8, 1.0f, -1);
    r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "zero point -1"), "%s", err);
    gc_model_free(r.m);
    /* an integer bias with a float input */
    const int32_t ib[2] = { 0, 0 };
    ins[1] = (kt_tensor)KT_Q(GC_T_INT8, 4, KT_S(2, 1, 1, 2), w8, 1.0f, 0);
    ins[2] = (kt_tensor)KT_C(GC_T_INT32, 1, KT_S(2), ib);
    r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "bias must be FLOAT32"), "%s", err);
    gc_model_free(r.m);
    /* TRANSPOSE_CONV hybrid is refused by name */
    const int32_t osh[4] = { 1, 1, 2, 2 };
    kt_tensor tins[] = { KT_C(GC_T_INT32, 1, KT_S(4), osh), KT_Q(GC_T_INT8, 4, KT_S(2, 1, 1, 2), w8, 1.0f, 0),
                         KT_IN(GC_T_FLOAT32, 4, KT_S(1, 1, 2, 2), x) };
    r = kt_build(GC_OP_TRANSPOSE_CONV, GC_BO_TransposeConvOptions, tins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_w, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_h, 1);
    CHECK(!kt_run(&r, GC_PREC_FP32, tins, 3, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "TRANSPOSE_CONV with a float input and INT8 weights"), "%s", err);
    gc_model_free(r.m);
}

/* ---- BATCH_MATMUL ---------------------------------------------------------------------- */

GC_TEST(kernel_hybrid_batch_matmul_adj_broadcast_per_column_exact) {
    /* a [2, 3, 4] with every row exactly quantizable (max |x| = 127 * 2^-6); b [4, 5]
     * shared by both batches, one scale per column; then the same with adj_x / adj_y */
    float a[24];
    for (int i = 0; i < 24; i++) a[i] = (float)(((i * 19) % 200) - 100) / 64.0f;
    for (int r = 0; r < 6; r++) a[r * 4 + r % 4] = (r & 1) ? -1.984375f : 1.984375f;
    int8_t b[20];
    for (int i = 0; i < 20; i++) b[i] = (int8_t)((i * 31) % 255 - 127);
    const float s[5] = { 0.5f, 0.25f, 1.0f, 2.0f, 1.0f / 128 };
    double ideal[30], mag[30];          /* mag: sum of |products|, for the fp16 bound */
    for (int bi = 0; bi < 2; bi++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++) {
                double acc = 0, m = 0;
                for (int k = 0; k < 4; k++) {
                    acc += (double)a[(bi * 3 + i) * 4 + k] * b[k * 5 + j];
                    m += fabs((double)a[(bi * 3 + i) * 4 + k] * b[k * 5 + j]);
                }
                ideal[(bi * 3 + i) * 5 + j] = acc * s[j];
                mag[(bi * 3 + i) * 5 + j] = m * s[j];
            }
    float at[24];                           /* a as [2, 4, 3] */
    for (int bi = 0; bi < 2; bi++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 4; k++) at[(bi * 4 + k) * 3 + i] = a[(bi * 3 + i) * 4 + k];
    int8_t bt[20];                          /* b as [5, 4] */
    for (int k = 0; k < 4; k++) for (int j = 0; j < 5; j++) bt[j * 4 + k] = b[k * 5 + j];
    for (int adj = 0; adj < 4; adj++) {
        bool ax = adj & 1, ay = adj & 2;
        kt_tensor ins[] = { ax ? (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(2, 4, 3), at) : (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(2, 3, 4), a),
                            ay ? (kt_tensor)KT_QA(GC_T_INT8, 2, KT_S(5, 4), bt, 5, s, NULL, 0)
                               : (kt_tensor)KT_QA(GC_T_INT8, 2, KT_S(4, 5), b, 5, s, NULL, 1) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 3, KT_S(2, 3, 5)) };
        kt_model r = kt_build(GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, ins, 2, outs, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_x, ax);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_y, ay);
        float got[30];
        CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
        for (int i = 0; i < 30; i++) CHECK_MSG((double)got[i] == ideal[i], "adj %d [%d]: %.9g vs %.9g", adj, i, (double)got[i], ideal[i]);
        CHECK(kt_run(&r, GC_PREC_FP16, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
        /* fp16 (native: K = 4, half2 FMA chains, fp16_model.h): the inputs' and weights'
         * roundings (2^-11 relative each, 2e-3 of the result with the store), plus at most
         * 4 roundings of partial sums, each within 2^-11 of the sum of |products| */
        for (int i = 0; i < 30; i++)
            CHECK_MSG(fabs(got[i] - ideal[i]) <= 2e-3 * fabs(ideal[i]) + 1e-3 + 4 * 0x1p-11 * mag[i], "fp16 adj %d [%d]", adj, i);
        gc_model_free(r.m);
    }
    /* per-column scales along K are refused */
    char err[512];
    const float s4[4] = { 1, 1, 1, 1 };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 3, KT_S(2, 3, 4), a), KT_QA(GC_T_INT8, 2, KT_S(4, 5), b, 4, s4, NULL, 0) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 3, KT_S(2, 3, 5)) };
    kt_model r = kt_build(GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, ins, 2, outs, 1);
    float got[30];
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "4 scales for 5 units"), "%s", err);
    gc_model_free(r.m);
}
