/* test_fp16_model.c — `--precision fp16` per GPU runtime (interp/fp16_model.h): one-op
 * models whose results differ between float arithmetic (js), the native runtime's half
 * arithmetic and fp16-acc, with the expected values worked out by hand (or in numpy
 * float16, quoted) in the comments. Every input is a half, so storage rounding alone
 * changes nothing until the op's own arithmetic. */
#include "test_kernels_harness.h"
#include "interp/fp16.h"
#include "interp/kernels/winograd16.h"

static const float E11 = 1.0f / 2048.0f;      /* 2^-11: half of the ulp of 1 in half */

/* Run a one-op model at fp16 on a runtime (or fp16-acc: rt < 0); output 0 into out. */
static bool run16(kt_model *r, int rt, const kt_tensor *ins, int n_in, float *out, size_t nbytes) {
    char err[512] = "";
    gc_interp_opts o = { .precision = rt < 0 ? GC_PREC_FP16_ACC : GC_PREC_FP16, .signature = -1,
                         .gpu_runtime = rt < 0 ? GC_GPU_NATIVE : (gc_f16_runtime)rt };
    gc_interp *it = gc_interp_new(r->m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    int g = 0;
    for (int i = 0; ok && i < n_in; i++) {
        if (ins[i].type < 0 || ins[i].data) continue;
        gc_tview v = gc_interp_input(it, g++);
        memcpy(v.data, ins[i].feed, v.nbytes);
    }
    ok = ok && gc_interp_invoke(it) == GC_OK;
    if (ok) {
        gc_tview v = gc_interp_output(it, 0);
        ok = v.nbytes == nbytes;
        if (ok) memcpy(out, v.data, nbytes);
    }
    if (!ok) fprintf(stderr, "  run16: %s\n", it ? gc_interp_errmsg(it) : err);
    gc_interp_free(it);
    return ok;
}

GC_TEST(fp16_model_runtime_names) {
    CHECK_EQ_INT(gc_f16_runtime_parse("native"), GC_GPU_NATIVE);
    CHECK_EQ_INT(gc_f16_runtime_parse("js"), GC_GPU_JS);
    CHECK_EQ_INT(gc_f16_runtime_parse("webgpu"), -1);
    CHECK_EQ_INT(gc_f16_runtime_parse(NULL), -1);
    CHECK(!strcmp(gc_f16_runtime_name(GC_GPU_JS), "js") && !strcmp(gc_f16_runtime_name(GC_GPU_NATIVE), "native"));
    const gc_f16_model *js = gc_f16_model_for(GC_GPU_JS), *nat = gc_f16_model_for(GC_GPU_NATIVE);
    CHECK(js->conv == GC_ACC_F32 && js->conv_small == GC_ACC_F32 && js->fc == GC_ACC_F32 && !js->winograd && !js->half_math);
    CHECK(nat->conv_small == GC_ACC_F16 && nat->winograd && nat->half_math);
}

/* FULLY_CONNECTED, W = ones [1, 8], x = [1, e, e, 0, e, e, e, e], e = 2^-11:
 *   js: float sum 1 + 6e = 1 + 3 * 2^-10, a half: 1.0029296875;
 *   native (F32_F16 slices of 4): slice 0 in half: r(1 + e) = 1 (tie to even), again 1,
 *     + 0 = 1; slice 1: 4e = 2^-9 exactly; float 1 + 2^-9 = 1.001953125;
 *   fp16-acc: every r(1 + e) = 1: 1.0. */
GC_TEST(fp16_model_fc_slices) {
    float x[8] = { 1, E11, E11, 0, E11, E11, E11, E11 }, w[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, got;
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 8), x), KT_C(GC_T_FLOAT32, 2, KT_S(1, 8), w) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1, 1)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 2, outs, 1);
    CHECK(run16(&r, GC_GPU_JS, ins, 2, &got, 4)); CHECK(got == 1.0029296875f);
    CHECK(run16(&r, GC_GPU_NATIVE, ins, 2, &got, 4)); CHECK(got == 1.001953125f);
    CHECK(run16(&r, -1, ins, 2, &got, 4)); CHECK(got == 1.0f);
    gc_model_free(r.m);
}

/* CONV_2D 1x1, one output channel, w = ones:
 *   IC 3 (one slice: the half-accumulating generic kernel), x = [1, e, e]:
 *     js 1 + 2e = 1.0009765625; native r(r(1 + e) + e) = 1;
 *   IC 8 (float accumulation on native too), x = [1, e x 7]: 1 + 7e = 1 + 3.5 * 2^-10,
 *     a tie between mantissas 3 and 4: 1.00390625 on both runtimes; fp16-acc 1. */
GC_TEST(fp16_model_conv_small_channels) {
    float x3[3] = { 1, E11, E11 }, w3[3] = { 1, 1, 1 }, got;
    kt_tensor a[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 3), x3), KT_C(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 3), w3) };
    kt_tensor ao[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 1)) };
    kt_model r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, a, 2, ao, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    CHECK(run16(&r, GC_GPU_JS, a, 2, &got, 4)); CHECK(got == 1.0009765625f);
    CHECK(run16(&r, GC_GPU_NATIVE, a, 2, &got, 4)); CHECK(got == 1.0f);
    gc_model_free(r.m);
    float x8[8] = { 1, E11, E11, E11, E11, E11, E11, E11 }, w8[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    kt_tensor b[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 8), x8), KT_C(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 8), w8) };
    r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, b, 2, ao, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    CHECK(run16(&r, GC_GPU_JS, b, 2, &got, 4)); CHECK(got == 1.00390625f);
    CHECK(run16(&r, GC_GPU_NATIVE, b, 2, &got, 4)); CHECK(got == 1.00390625f);
    CHECK(run16(&r, -1, b, 2, &got, 4)); CHECK(got == 1.0f);
    gc_model_free(r.m);
}

/* MEAN over 8: x = [1, e x 7]: float (both runtimes) (1 + 7e) / 8 = 0.125 + 3.5 * 2^-13,
 * a tie -> 0.125 + 4 * 2^-13 = 0.12548828125; fp16-acc: the sum stays 1 -> 0.125. */
GC_TEST(fp16_model_mean_in_float) {
    float x[8] = { 1, E11, E11, E11, E11, E11, E11, E11 }, got;
    int32_t ax[1] = { 1 };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 8), x), KT_C(GC_T_INT32, 1, KT_S(1), ax) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 1, KT_S(1)) };
    kt_model r = kt_build(GC_OP_MEAN, 0, ins, 2, outs, 1);
    CHECK(run16(&r, GC_GPU_JS, ins, 2, &got, 4)); CHECK(got == 0.12548828125f);
    CHECK(run16(&r, GC_GPU_NATIVE, ins, 2, &got, 4)); CHECK(got == 0.12548828125f);
    CHECK(run16(&r, -1, ins, 2, &got, 4)); CHECK(got == 0.125f);
    gc_model_free(r.m);
}

/* SOFTMAX [0, -1, -2] (numpy float16, quoted): native e = r(exp(r(x - max))) =
 * [1, 0.367919921875, 0.1353759765625], float sum, inv = r(1 / sum) = 0.6650390625,
 * y = r(e inv) = [0.6650390625, 0.24462890625, 0.09002685546875]; js r(exp(x) / sum) =
 * [0.6650390625, 0.2447509765625, 0.09002685546875]. */
GC_TEST(fp16_model_softmax_steps) {
    float x[3] = { 0, -1, -2 }, got[3];
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 3), x) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1, 3)) };
    kt_model r = kt_build(GC_OP_SOFTMAX, GC_BO_SoftmaxOptions, ins, 1, outs, 1);
    gc_opt_set_float(r.m, &r.op->opt, GC_O_SoftmaxOptions_beta, 1.0);
    CHECK(run16(&r, GC_GPU_NATIVE, ins, 1, got, 12));
    CHECK(got[0] == 0.6650390625f && got[1] == 0.24462890625f && got[2] == 0.09002685546875f);
    CHECK(run16(&r, GC_GPU_JS, ins, 1, got, 12));
    CHECK(got[0] == 0.6650390625f && got[1] == 0.2447509765625f && got[2] == 0.09002685546875f);
    gc_model_free(r.m);
}

/* SQUARED_DIFFERENCE(1, 2^-12): native rounds the difference first: 1 - 2^-12 is a tie
 * between 1 - 2^-11 (odd) and 1 -> 1, squared 1; js: (1 - 2^-12)^2 = 1 - 2^-11 + 2^-24
 * -> 0.99951171875. */
GC_TEST(fp16_model_squared_difference) {
    float a[1] = { 1 }, b[1] = { 1.0f / 4096.0f }, got;
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 1, KT_S(1), a), KT_IN(GC_T_FLOAT32, 1, KT_S(1), b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 1, KT_S(1)) };
    kt_model r = kt_build(GC_OP_SQUARED_DIFFERENCE, 0, ins, 2, outs, 1);
    CHECK(run16(&r, GC_GPU_NATIVE, ins, 2, &got, 4)); CHECK(got == 1.0f);
    CHECK(run16(&r, GC_GPU_JS, ins, 2, &got, 4)); CHECK(got == 0.99951171875f);
    gc_model_free(r.m);
}

/* Winograd F(4x4, 3x3) in half: the rule (>= 16 slices in and out, >= 32 tiles, 3x3
 * stride 1), exactness in float, and a 3x3 SAME conv at 64 channels on 32x32 going
 * through it on native only. */
GC_TEST(fp16_model_winograd) {
    CHECK(gc_wino16_eligible(3, 3, 1, 1, 1, 1, 1, 64, 64, 32, 32));
    CHECK(!gc_wino16_eligible(3, 3, 1, 1, 1, 1, 1, 60, 64, 32, 32));     /* 15 slices in */
    CHECK(!gc_wino16_eligible(3, 3, 1, 1, 1, 1, 1, 64, 64, 20, 20));     /* 25 tiles */
    CHECK(!gc_wino16_eligible(3, 3, 2, 2, 1, 1, 1, 64, 64, 32, 32));
    CHECK(!gc_wino16_eligible(5, 5, 1, 1, 1, 1, 1, 64, 64, 32, 32));
    enum { H = 32, W = 32, C = 64, OC = 64 };
    static float x[H * W * C], w[OC * 9 * C], b[OC], nat[H * W * OC], js[H * W * OC];
    static double ex[H * W * OC];
    uint32_t s = 7u;
    for (int i = 0; i < H * W * C; i++) { s ^= s << 13; s ^= s >> 17; s ^= s << 5; x[i] = gc_f16_round((float)(s % 1000) / 500.0f - 1.0f); }
    for (int i = 0; i < OC * 9 * C; i++) { s ^= s << 13; s ^= s >> 17; s ^= s << 5; w[i] = gc_f16_round(((float)(s % 1000) / 500.0f - 1.0f) * 0.05f); }
    for (int i = 0; i < OC; i++) b[i] = gc_f16_round((float)i / 64.0f - 0.5f);
    double mx = 0;
    for (int oy = 0; oy < H; oy++)
        for (int ox = 0; ox < W; ox++)
            for (int o = 0; o < OC; o++) {
                double acc = b[o];
                for (int ky = 0; ky < 3; ky++)
                    for (int kx = 0; kx < 3; kx++) {
                        int iy = oy + ky - 1, ix = ox + kx - 1;
                        if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                        for (int c = 0; c < C; c++)
                            acc += (double)x[(iy * W + ix) * C + c] * w[((o * 3 + ky) * 3 + kx) * C + c];
                    }
                ex[(oy * W + ox) * OC + o] = acc;
                if (fabs(acc) > mx) mx = fabs(acc);
            }
    /* all in float, the kernel is the convolution up to float rounding */
    gc_wino16 wg;
    static float u[36 * C * OC], scratch[108 * C + 66 * OC], y32[H * W * OC];
    gc_wino16_setup(&wg, 1, H, W, C, H, W, OC, 1, 1, GC_ACC_F32, -INFINITY, INFINITY, false);
    CHECK(gc_wino16_u_floats(&wg) == sizeof u / sizeof u[0]);
    CHECK(gc_wino16_scratch_floats(&wg) <= sizeof scratch / sizeof scratch[0]);
    wg.u = u;
    gc_wino16_weights(&wg, w);
    gc_wino16_run(&wg, x, b, y32, scratch, 0, wg.tiles_y);
    double e32 = 0, en = 0, ej = 0;
    for (int i = 0; i < H * W * OC; i++) if (fabs(y32[i] - ex[i]) > e32) e32 = fabs(y32[i] - ex[i]);
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, H, W, C), x), KT_C(GC_T_FLOAT32, 4, KT_S(OC, 3, 3, C), w),
                        KT_C(GC_T_FLOAT32, 1, KT_S(OC), b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, H, W, OC)) };
    kt_model r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_padding, 0);     /* SAME */
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    CHECK(run16(&r, GC_GPU_NATIVE, ins, 3, nat, sizeof nat));
    CHECK(run16(&r, GC_GPU_JS, ins, 3, js, sizeof js));
    int differ = 0;
    for (int i = 0; i < H * W * OC; i++) {
        if (fabs(nat[i] - ex[i]) > en) en = fabs(nat[i] - ex[i]);
        if (fabs(js[i] - ex[i]) > ej) ej = fabs(js[i] - ex[i]);
        differ += nat[i] != js[i];
    }
    /* float Winograd: ~1e-6 of the largest output; js: storage rounding only, one half
     * ulp of the largest output (2^-11 relative); native: the half transforms add more,
     * but stay within the half precision of the 36 summed terms (a few 2^-11) */
    CHECK_MSG(e32 <= 1e-5 * mx, "float winograd error %g (max %g)", e32, mx);
    CHECK_MSG(ej <= ldexp(mx, -11), "js error %g (max %g)", ej, mx);
    CHECK_MSG(en > ej && en <= 16 * ldexp(mx, -11), "native error %g, js %g (max %g)", en, ej, mx);
    CHECK_MSG(differ > H * W * OC / 4, "native differs from js on %d of %d outputs", differ, H * W * OC);
    gc_model_free(r.m);
}

/* The store of a data-movement op (RESHAPE here) is skipped when its input already holds
 * halves (node->out_half), not when the input is the float of a reduction chain: there
 * the RESHAPE is the chain's last op and alone rounds. x [1, 2] -> SQUARED_DIFFERENCE(x, 0)
 * -> MEAN(axis 1) -> RESHAPE [1]: native keeps ((1 + 2^-10)^2 + 0) / 2 = 0.5 + 2^-10 +
 * 2^-21 in float until the RESHAPE, which stores r() = 0.5 + 2^-10; also x -> RESHAPE
 * [2] -> TRANSPOSE... as copies of halves, output 1 = the input rounded at invoke. */
GC_TEST(fp16_model_copies_of_halves) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    static const float zero[1] = { 0 };
    static const int32_t ax[1] = { 1 }, shp1[1] = { 1 }, shp2[2] = { 2, 1 };
    int32_t s12[] = { 1, 2 }, s1[] = { 1 }, s11[] = { 1, 1 }, s2[] = { 2 }, s21[] = { 2, 1 };
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, s12, 0);
    int32_t c = gc_sg_add_tensor(m, sg, "c", GC_T_FLOAT32, 1, s1, (uint32_t)gc_model_add_buffer(m, zero, sizeof zero));
    int32_t sq = gc_sg_add_tensor(m, sg, "sq", GC_T_FLOAT32, 2, s12, 0);
    int32_t ta = gc_sg_add_tensor(m, sg, "ax", GC_T_INT32, 1, s1, (uint32_t)gc_model_add_buffer(m, ax, sizeof ax));
    int32_t mean = gc_sg_add_tensor(m, sg, "mean", GC_T_FLOAT32, 2, s11, 0);
    int32_t ts1 = gc_sg_add_tensor(m, sg, "s1", GC_T_INT32, 1, s1, (uint32_t)gc_model_add_buffer(m, shp1, sizeof shp1));
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 1, s1, 0);
    int32_t ts2 = gc_sg_add_tensor(m, sg, "s2", GC_T_INT32, 1, s2, (uint32_t)gc_model_add_buffer(m, shp2, sizeof shp2));
    int32_t z = gc_sg_add_tensor(m, sg, "z", GC_T_FLOAT32, 2, s21, 0);
    int32_t i1[] = { x, c }, o1[] = { sq }, i2[] = { sq, ta }, o2[] = { mean }, i3[] = { mean, ts1 }, o3[] = { y };
    int32_t i4[] = { x, ts2 }, o4[] = { z };
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_SQUARED_DIFFERENCE, NULL, 1), 2, i1, 1, o1);
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_MEAN, NULL, 1), 2, i2, 1, o2);
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_RESHAPE, NULL, 1), 2, i3, 1, o3);
    gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_RESHAPE, NULL, 1), 2, i4, 1, o4);
    int32_t outs[] = { y, z };
    gc_sg_set_io(m, sg, 1, &x, 2, outs);
    const float xv[2] = { 1.0f + 1.0f / 1024.0f, 1.0f + 1.0f / 8192.0f };    /* the second rounds to 1 */
    for (int rt = 0; rt < 2; rt++) {
        char err[256];
        gc_interp_opts o = { .precision = GC_PREC_FP16, .signature = -1, .gpu_runtime = (gc_f16_runtime)rt };
        gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
        CHECK(it && gc_interp_prepare(it) == GC_OK);
        if (!it) continue;
        memcpy(gc_interp_input(it, 0).data, xv, sizeof xv);
        CHECK(gc_interp_invoke(it) == GC_OK);
        const float *yo = gc_interp_output(it, 0).data, *zo = gc_interp_output(it, 1).data;
        /* native: float chain (1 + 2^-9 + 2^-20 + 1) / 2, stored once; js: every op rounded:
         * r((1 + 2^-10)^2) = 1 + 2^-9, r(x1^2) = 1, mean r((2 + 2^-9) / 2) = 1 + 2^-10 */
        float want = rt == 0 ? gc_f16_round((float)(((1.0 + 1.0 / 1024) * (1.0 + 1.0 / 1024) + 1.0) / 2)) : 1.0f + 1.0f / 1024.0f;
        CHECK_MSG(yo[0] == want && gc_f16_round(yo[0]) == yo[0], "%s: mean %.10g, want %.10g", rt ? "js" : "native",
                  (double)yo[0], (double)want);
        CHECK(zo[0] == 1.0f + 1.0f / 1024.0f && zo[1] == 1.0f);
        gc_interp_free(it);
    }
    gc_model_free(m);
}

/* The native runtime's multi-step activations (each step in half), over every half
 * (but NaN) as input: LOGISTIC 1 / r(1 + r(exp(-x))), HARD_SWISH x clamp(r(r(x r(1/6)) +
 * 0.5), 0, 1), GELU r(x / 2) r(1 + r(erf(r(x r(1/sqrt 2))))), each stored with the
 * native saturating rounding; the kernel's blocked form (unary.c half_block, with its
 * expf shortcuts) gives these bits. */
GC_TEST(fp16_model_half_activations_all_halves) {
    enum { N = 63490 };
    static float x[N], got[N];
    int n = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float v = gc_f16_to_f32((uint16_t)h);
        if (v == v && (h & 0x7fffu) <= 0x7c00u) x[n++] = v;        /* finite or inf */
    }
    CHECK(n == N);                                                 /* 2 x 31 x 1024 finite, 2 inf */
    const int32_t codes[3] = { GC_OP_LOGISTIC, GC_OP_HARD_SWISH, GC_OP_GELU };
    for (int c = 0; c < 3; c++) {
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 1, KT_S(n), x) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 1, KT_S(n)) };
        kt_model r = kt_build(codes[c], 0, ins, 1, outs, 1);
        CHECK(run16(&r, GC_GPU_NATIVE, ins, 1, got, (size_t)n * sizeof(float)));
        int bad = 0;
        for (int i = 0; i < n; i++) {
            const float v = x[i];
            float want;
#define R gc_f16_round
            if (codes[c] == GC_OP_LOGISTIC) want = 1.0f / R(1.0f + R(expf(-v)));
            else if (codes[c] == GC_OP_HARD_SWISH) { float t = R(R(v * R(1.0f / 6.0f)) + 0.5f); t = t < 0 ? 0 : t > 1 ? 1 : t; want = v * t; }
            else want = R(0.5f * v) * R(1.0f + R(erff(R(v * R(0.7071067811865476f)))));
#undef R
            want = gc_f16_round_sat_inline(want);
            uint32_t a, b;
            memcpy(&a, &want, 4); memcpy(&b, &got[i], 4);
            if (a != b && !(want != want && got[i] != got[i])) {
                if (bad < 3) fprintf(stderr, "  op %d x %g: got %g want %g\n", (int)codes[c], (double)v, (double)got[i], (double)want);
                bad++;
            }
        }
        CHECK_MSG(bad == 0, "op %d: %d of %d inputs differ", (int)codes[c], bad, n);
        gc_model_free(r.m);
    }
}
