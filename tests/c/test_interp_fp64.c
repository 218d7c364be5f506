/* test_interp_fp64.c — --precision fp64: float tensors held in double, every float op in
 * its family's double build. Checks: crafted sums where fp32's order loses everything and
 * fp64 is exact; views (FLOAT32 narrowed by default, FLOAT64 with fp64_views, node
 * callbacks); integer ops unchanged; one op of every float family against fp32 (the
 * double builds compute the same thing, closer); control flow; hybrid and sparse
 * weights; a corpus float model. */
#include "test_kernels_harness.h"

static bool run_opts(kt_model *r, const gc_interp_opts *o0, const kt_tensor *ins, int n_in, int k, void *out,
                     size_t nbytes, int *dtype_out) {
    char err[512];
    gc_interp_opts o = *o0;
    o.signature = -1;
    gc_interp *it = gc_interp_new(r->m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (it && !ok) fprintf(stderr, "  prepare: %s\n", gc_interp_errmsg(it));
    int g = 0;
    for (int i = 0; ok && i < n_in; i++) {
        if (ins[i].type < 0 || ins[i].data) continue;
        gc_tview v = gc_interp_input(it, g++);
        CHECK_MSG(v.nbytes == kt_bytes(&ins[i]), "input %d view has %zu bytes", i, v.nbytes);
        memcpy(v.data, ins[i].feed, v.nbytes);
    }
    if (ok && gc_interp_invoke(it) != GC_OK) { fprintf(stderr, "  invoke: %s\n", gc_interp_errmsg(it)); ok = false; }
    if (ok) {
        gc_tview v = gc_interp_output(it, k);
        if (dtype_out) *dtype_out = v.dtype;
        if (v.nbytes != nbytes) { fprintf(stderr, "  output %zu bytes, expected %zu\n", v.nbytes, nbytes); ok = false; }
        else memcpy(out, v.data, nbytes);
    }
    gc_interp_free(it);
    return ok;
}

GC_TEST(interp_fp64_crafted_sums_are_exact_where_fp32_loses_them) {
    /* FULLY_CONNECTED: 1e8, then 1024 ones, then -1e8, against weights of 1: fp32 adds
     * each 1 to 1e8 and loses it (spacing 8 there): 0; fp64 keeps every one: 1024 */
    enum { K = 1026 };
    static float x[K], w[K];
    x[0] = 1e8f; x[K - 1] = -1e8f;
    for (int i = 1; i < K - 1; i++) x[i] = 1.0f;
    for (int i = 0; i < K; i++) w[i] = 1.0f;
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, K), x), KT_C(GC_T_FLOAT32, 2, KT_S(1, K), w), { .type = -1 } };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1, 1)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    float y32 = -1, y64 = -1;
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, &y32, 4, NULL, 0, NULL, NULL));
    CHECK(kt_run(&r, GC_PREC_FP64, ins, 3, 0, &y64, 4, NULL, 0, NULL, NULL));
    CHECK_MSG(y32 == 0.0f && y64 == 1024.0f, "fp32 %g, fp64 %g (exact 1024)", (double)y32, (double)y64);
    gc_model_free(r.m);

    /* SUM of 2^20 copies of 0.1f: the exact sum 13421773 * 2^-7 = 104857.6015625 is a float;
     * fp64 reaches it exactly, fp32's running sum drifts */
    enum { N = 1 << 20 };
    float *v = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) v[i] = 0.1f;
    const int32_t axis = 0;
    kt_tensor sins[] = { KT_IN(GC_T_FLOAT32, 1, KT_S(N), v), KT_C(GC_T_INT32, 1, KT_S(1), &axis) };
    kt_tensor souts[] = { KT_OUT(GC_T_FLOAT32, 0, KT_S(0)) };
    r = kt_build(GC_OP_SUM, GC_BO_ReducerOptions, sins, 2, souts, 1);
    CHECK(kt_run(&r, GC_PREC_FP32, sins, 2, 0, &y32, 4, NULL, 0, NULL, NULL));
    CHECK(kt_run(&r, GC_PREC_FP64, sins, 2, 0, &y64, 4, NULL, 0, NULL, NULL));
    const double exact = 104857.6015625;
    CHECK_MSG((double)y64 == exact, "fp64 %.9g vs %.9g", (double)y64, exact);
    CHECK_MSG(fabs((double)y32 - exact) > 100 * fabs((double)y64 - exact) + 0.01, "fp32 %.9g", (double)y32);
    printf("  sum of 2^20 x 0.1f: exact %.7f, fp64 %.7f, fp32 %.7f (|err| %.3g)\n", exact, (double)y64, (double)y32,
           fabs((double)y32 - exact));
    free(v);
    gc_model_free(r.m);
}

static int seen_dtype;
static int on_node_dtype(int32_t op, const gc_tview *outs, int n, void *user) {
    (void)op; (void)user;
    if (n > 0) seen_dtype = outs[0].dtype;
    return 0;
}

GC_TEST(interp_fp64_views_inputs_outputs_callbacks) {
    const float a[4] = { 1.0f, 2.0f, 3.0f, 1e-8f }, b[4] = { 1e8f, -2.0f, 0.5f, 1.0f };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 1, KT_S(4), a), KT_IN(GC_T_FLOAT32, 1, KT_S(4), b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 1, KT_S(4)) };
    kt_model r = kt_build(GC_OP_ADD, GC_BO_AddOptions, ins, 2, outs, 1);
    gc_interp_opts o = { .precision = GC_PREC_FP64, .on_node = on_node_dtype };
    float y[4];
    int dt = -1;
    seen_dtype = -1;
    CHECK(run_opts(&r, &o, ins, 2, 0, y, sizeof y, &dt));
    CHECK(dt == GC_T_FLOAT32 && seen_dtype == GC_T_FLOAT32);
    CHECK(y[0] == 1e8f + 1.0f && y[1] == 0.0f && y[2] == 3.5f && y[3] == 1.0f);
    /* fp64_views: the double tensor itself, and the callback sees FLOAT64 */
    o.fp64_views = true;
    double yd[4];
    CHECK(run_opts(&r, &o, ins, 2, 0, yd, sizeof yd, &dt));
    CHECK(dt == GC_T_FLOAT64 && seen_dtype == GC_T_FLOAT64);
    CHECK(yd[0] == 100000001.0 && yd[3] == 1.0 + (double)1e-8f);   /* not rounded to float */
    gc_model_free(r.m);
    CHECK_EQ_INT(gc_precision_parse("fp64"), GC_PREC_FP64);
    CHECK(!strcmp(gc_precision_name(GC_PREC_FP64), "fp64"));
}

GC_TEST(interp_fp64_integer_ops_unchanged) {
    /* a quantized int8 ADD (fixed-point rescale) and an int32 MUL: bit-identical */
    int8_t qa[6] = { -128, -5, 0, 7, 100, 127 }, qb[6] = { 3, -7, 11, 90, 127, -128 };
    kt_tensor ins[] = { { .type = GC_T_INT8, .rank = 1, .shape = { 6 }, .feed = qa, .scale = 0.05f, .zp = 3 },
                        { .type = GC_T_INT8, .rank = 1, .shape = { 6 }, .feed = qb, .scale = 0.11f, .zp = -2 } };
    kt_tensor outs[] = { KT_QOUT(GC_T_INT8, 1, KT_S(6), 0.13f, 1) };
    kt_model r = kt_build(GC_OP_ADD, GC_BO_AddOptions, ins, 2, outs, 1);
    int8_t y32[6], y64[6];
    for (int qm = 0; qm < 2; qm++) {
        gc_interp_opts o = { .precision = GC_PREC_FP32, .qmode = (gc_qmode)qm };
        CHECK(run_opts(&r, &o, ins, 2, 0, y32, 6, NULL));
        o.precision = GC_PREC_FP64;
        CHECK(run_opts(&r, &o, ins, 2, 0, y64, 6, NULL));
        CHECK(memcmp(y32, y64, 6) == 0);
    }
    gc_model_free(r.m);
}

/* ---- one op of every float family: fp64 within fp32's rounding of fp32 ------------------ */

typedef struct {
    const char *name;
    int32_t code, opt;
    int n_in;
    kt_tensor in[4];
    kt_tensor out;
    int64_t set[4][2];          /* option field, value; field -1 ends */
} fam_case;

static float R1[4096];
static const int32_t ax1[1] = { 1 }, perm[3] = { 2, 0, 1 }, pads[6] = { 0, 0, 1, 2, 3, 0 };
static const int32_t rsz[2] = { 7, 5 }, gidx[3] = { 2, 0, 1 }, sb[2] = { 0, 1 }, se[2] = { 2, 5 }, ss[2] = { 1, 2 };
static const int32_t tshape[4] = { 1, 6, 6, 3 }, nshape[2] = { 6, 4 }, fftlen[2] = { 4, 8 };
static const int8_t q8[12] = { -128, -60, -3, 0, 1, 2, 50, 99, 127, -1, 64, -64 };

GC_TEST(interp_fp64_every_float_family_agrees_with_fp32) {
    for (int i = 0; i < 4096; i++) R1[i] = sinf(0.37f * (float)i) * 1.5f + 0.25f;
    const fam_case cases[] = {
        { "ADD bcast", GC_OP_ADD, GC_BO_AddOptions, 2, { KT_IN(GC_T_FLOAT32, 2, KT_S(3, 4), R1), KT_IN(GC_T_FLOAT32, 1, KT_S(4), R1 + 50) },
          KT_OUT(GC_T_FLOAT32, 2, KT_S(3, 4)), { { -1 } } },
        { "DIV", GC_OP_DIV, GC_BO_DivOptions, 2, { KT_IN(GC_T_FLOAT32, 1, KT_S(8), R1), KT_IN(GC_T_FLOAT32, 1, KT_S(8), R1 + 9) },
          KT_OUT(GC_T_FLOAT32, 1, KT_S(8)), { { -1 } } },
        { "LESS", GC_OP_LESS, 0, 2, { KT_IN(GC_T_FLOAT32, 1, KT_S(8), R1), KT_IN(GC_T_FLOAT32, 1, KT_S(8), R1 + 3) },
          KT_OUT(GC_T_BOOL, 1, KT_S(8)), { { -1 } } },
        { "TANH", GC_OP_TANH, 0, 1, { KT_IN(GC_T_FLOAT32, 1, KT_S(16), R1) }, KT_OUT(GC_T_FLOAT32, 1, KT_S(16)), { { -1 } } },
        { "LOGISTIC", GC_OP_LOGISTIC, 0, 1, { KT_IN(GC_T_FLOAT32, 1, KT_S(16), R1) }, KT_OUT(GC_T_FLOAT32, 1, KT_S(16)), { { -1 } } },
        { "GELU", GC_OP_GELU, 0, 1, { KT_IN(GC_T_FLOAT32, 1, KT_S(16), R1) }, KT_OUT(GC_T_FLOAT32, 1, KT_S(16)), { { -1 } } },
        { "SOFTMAX", GC_OP_SOFTMAX, GC_BO_SoftmaxOptions, 1, { KT_IN(GC_T_FLOAT32, 2, KT_S(3, 10), R1) },
          KT_OUT(GC_T_FLOAT32, 2, KT_S(3, 10)), { { -1 } } },
        { "MEAN", GC_OP_MEAN, GC_BO_ReducerOptions, 2, { KT_IN(GC_T_FLOAT32, 2, KT_S(6, 40), R1), KT_C(GC_T_INT32, 1, KT_S(1), ax1) },
          KT_OUT(GC_T_FLOAT32, 1, KT_S(6)), { { -1 } } },
        { "ARG_MAX", GC_OP_ARG_MAX, GC_BO_ArgMaxOptions, 2, { KT_IN(GC_T_FLOAT32, 2, KT_S(6, 40), R1), KT_C(GC_T_INT32, 1, KT_S(1), ax1) },
          KT_OUT(GC_T_INT32, 1, KT_S(6)), { { GC_O_ArgMaxOptions_output_type, GC_T_INT32 }, { -1 } } },
        { "AVERAGE_POOL_2D", GC_OP_AVERAGE_POOL_2D, GC_BO_Pool2DOptions, 1, { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 6, 6, 3), R1) },
          KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 3)), { { GC_O_Pool2DOptions_stride_w, 2 }, { GC_O_Pool2DOptions_stride_h, 2 },
          { GC_O_Pool2DOptions_filter_width, 2 }, { GC_O_Pool2DOptions_filter_height, 2 } } },
        { "CONV_2D", GC_OP_CONV_2D, GC_BO_Conv2DOptions, 3, { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 6, 6, 3), R1),
          KT_C(GC_T_FLOAT32, 4, KT_S(4, 3, 3, 3), R1 + 200), KT_C(GC_T_FLOAT32, 1, KT_S(4), R1 + 300) },
          KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 6, 6, 4)), { { GC_O_Conv2DOptions_stride_w, 1 }, { GC_O_Conv2DOptions_stride_h, 1 }, { -1 } } },
        { "DEPTHWISE_CONV_2D", GC_OP_DEPTHWISE_CONV_2D, GC_BO_DepthwiseConv2DOptions, 3, { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 6, 6, 3), R1),
          KT_C(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 3), R1 + 400), KT_C(GC_T_FLOAT32, 1, KT_S(3), R1 + 500) },
          KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 6, 6, 3)), { { GC_O_DepthwiseConv2DOptions_stride_w, 1 },
          { GC_O_DepthwiseConv2DOptions_stride_h, 1 }, { GC_O_DepthwiseConv2DOptions_depth_multiplier, 1 }, { -1 } } },
        { "TRANSPOSE_CONV", GC_OP_TRANSPOSE_CONV, GC_BO_TransposeConvOptions, 3, { KT_C(GC_T_INT32, 1, KT_S(4), tshape),
          KT_C(GC_T_FLOAT32, 4, KT_S(3, 3, 3, 2), R1 + 600), KT_IN(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 2), R1) },
          KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 6, 6, 3)), { { GC_O_TransposeConvOptions_stride_w, 2 },
          { GC_O_TransposeConvOptions_stride_h, 2 }, { -1 } } },
        { "BATCH_MATMUL", GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, 2, { KT_IN(GC_T_FLOAT32, 3, KT_S(2, 3, 5), R1),
          KT_IN(GC_T_FLOAT32, 2, KT_S(5, 4), R1 + 700) }, KT_OUT(GC_T_FLOAT32, 3, KT_S(2, 3, 4)), { { -1 } } },
        /* a runtime b of 400 doubles: its [K][N] layout needs 3200 bytes of scratch (sized for
         * 4-byte floats before 2026-12-03: the layout overran into the next block) */
        { "BATCH_MATMUL runtime b", GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, 2, { KT_IN(GC_T_FLOAT32, 3, KT_S(2, 3, 5), R1),
          KT_IN(GC_T_FLOAT32, 3, KT_S(2, 5, 40), R1 + 700) }, KT_OUT(GC_T_FLOAT32, 3, KT_S(2, 3, 40)), { { -1 } } },
        { "RESIZE_BILINEAR", GC_OP_RESIZE_BILINEAR, GC_BO_ResizeBilinearOptions, 2, { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 3, 4, 2), R1),
          KT_C(GC_T_INT32, 1, KT_S(2), rsz) }, KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 7, 5, 2)),
          { { GC_O_ResizeBilinearOptions_half_pixel_centers, 1 }, { -1 } } },
        { "TRANSPOSE", GC_OP_TRANSPOSE, 0, 2, { KT_IN(GC_T_FLOAT32, 3, KT_S(2, 3, 4), R1), KT_C(GC_T_INT32, 1, KT_S(3), perm) },
          KT_OUT(GC_T_FLOAT32, 3, KT_S(4, 2, 3)), { { -1 } } },
        { "PAD", GC_OP_PAD, 0, 2, { KT_IN(GC_T_FLOAT32, 3, KT_S(2, 3, 4), R1), KT_C(GC_T_INT32, 2, KT_S(3, 2), pads) },
          KT_OUT(GC_T_FLOAT32, 3, KT_S(2, 6, 7)), { { -1 } } },
        { "GATHER", GC_OP_GATHER, GC_BO_GatherOptions, 2, { KT_IN(GC_T_FLOAT32, 2, KT_S(3, 5), R1), KT_C(GC_T_INT32, 1, KT_S(3), gidx) },
          KT_OUT(GC_T_FLOAT32, 2, KT_S(3, 5)), { { -1 } } },
        { "STRIDED_SLICE", GC_OP_STRIDED_SLICE, GC_BO_StridedSliceOptions, 4, { KT_IN(GC_T_FLOAT32, 2, KT_S(4, 6), R1),
          KT_C(GC_T_INT32, 1, KT_S(2), sb), KT_C(GC_T_INT32, 1, KT_S(2), se), KT_C(GC_T_INT32, 1, KT_S(2), ss) },
          KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 2)), { { -1 } } },
        { "RESHAPE", GC_OP_RESHAPE, 0, 2, { KT_IN(GC_T_FLOAT32, 3, KT_S(2, 3, 4), R1), KT_C(GC_T_INT32, 1, KT_S(2), nshape) },
          KT_OUT(GC_T_FLOAT32, 2, KT_S(6, 4)), { { -1 } } },
        { "DEQUANTIZE", GC_OP_DEQUANTIZE, 0, 1, { { .type = GC_T_INT8, .rank = 1, .shape = { 12 }, .feed = q8, .scale = 0.37f, .zp = 3 } },
          KT_OUT(GC_T_FLOAT32, 1, KT_S(12)), { { -1 } } },
        { "QUANTIZE", GC_OP_QUANTIZE, 0, 1, { KT_IN(GC_T_FLOAT32, 1, KT_S(12), R1) }, KT_QOUT(GC_T_INT8, 1, KT_S(12), 0.013f, -4), { { -1 } } },
        { "CAST", GC_OP_CAST, 0, 1, { KT_IN(GC_T_FLOAT32, 1, KT_S(12), R1) }, KT_OUT(GC_T_INT32, 1, KT_S(12)), { { -1 } } },
        { "RFFT2D", GC_OP_RFFT2D, 0, 2, { KT_IN(GC_T_FLOAT32, 2, KT_S(4, 8), R1), KT_C(GC_T_INT32, 1, KT_S(2), fftlen) },
          KT_OUT(GC_T_COMPLEX64, 2, KT_S(4, 5)), { { -1 } } },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const fam_case *fc = &cases[c];
        kt_model r = kt_build(fc->code, fc->opt, fc->in, fc->n_in, &fc->out, 1);
        for (int s = 0; s < 4 && fc->set[s][0] >= 0; s++) {
            if (fc->set[s][0] == 0 && fc->set[s][1] == 0 && s > 0) break;   /* unused entries */
            gc_opt_set_int(r.m, &r.op->opt, (int)fc->set[s][0], fc->set[s][1]);
        }
        if (fc->code == GC_OP_SOFTMAX) gc_opt_set_float(r.m, &r.op->opt, GC_O_SoftmaxOptions_beta, 1.0);
        size_t nb = kt_bytes(&fc->out);
        uint8_t *a = malloc(nb), *b = malloc(nb);
        char err[512];
        bool ok32 = kt_run(&r, GC_PREC_FP32, fc->in, fc->n_in, 0, a, nb, err, sizeof err, NULL, NULL);
        CHECK_MSG(ok32, "%s fp32: %s", fc->name, err);
        bool ok64 = kt_run(&r, GC_PREC_FP64, fc->in, fc->n_in, 0, b, nb, err, sizeof err, NULL, NULL);
        CHECK_MSG(ok64, "%s fp64: %s", fc->name, err);
        if (ok32 && ok64) {
            if (fc->out.type == GC_T_FLOAT32 || fc->out.type == GC_T_COMPLEX64) {
                const float *x = (const float *)a, *y = (const float *)b;
                for (size_t i = 0; i < nb / 4; i++)
                    CHECK_MSG(fabsf(x[i] - y[i]) <= 4e-6f * fmaxf(1.0f, fabsf(x[i])), "%s [%zu]: fp32 %.9g fp64 %.9g",
                              fc->name, i, (double)x[i], (double)y[i]);
            } else {
                /* integer / bool results: the same except where fp32 rounding decides a tie */
                size_t diff = 0;
                for (size_t i = 0; i < nb; i++) diff += a[i] != b[i];
                CHECK_MSG(diff <= nb / 8, "%s: %zu of %zu bytes differ", fc->name, diff, nb);
            }
        }
        /* the double results themselves: arithmetic gives values no float holds */
        static const char *moves = "TRANSPOSE PAD GATHER STRIDED_SLICE RESHAPE ARG_MAX LESS CAST QUANTIZE";
        if (!strstr(moves, fc->name) && (fc->out.type == GC_T_FLOAT32 || fc->out.type == GC_T_COMPLEX64)) {
            double *d = malloc(nb * 2);
            gc_interp_opts o = { .precision = GC_PREC_FP64, .signature = -1, .fp64_views = true };
            gc_interp *it = gc_interp_new(r.m, &o, err, sizeof err);
            bool ok = it && gc_interp_prepare(it) == GC_OK;
            int g = 0;
            for (int i = 0; ok && i < fc->n_in; i++) {
                if (fc->in[i].type < 0 || fc->in[i].data) continue;
                gc_tview v = gc_interp_input(it, g++);
                memcpy(v.data, fc->in[i].feed, v.nbytes);
            }
            ok = ok && gc_interp_invoke(it) == GC_OK;
            gc_tview v = ok ? gc_interp_output(it, 0) : (gc_tview){ 0 };
            CHECK_MSG(ok && v.nbytes == nb * 2 && (v.dtype == GC_T_FLOAT64 || v.dtype == GC_T_COMPLEX128), "%s views", fc->name);
            size_t wide = 0;
            if (ok && v.nbytes == nb * 2) {
                memcpy(d, v.data, nb * 2);
                for (size_t i = 0; i < nb / 4; i++) wide += (double)(float)d[i] != d[i];
            }
            CHECK_MSG(wide > 0, "%s: every fp64 result is a float: computed in float?", fc->name);
            gc_interp_free(it);
            free(d);
        }
        free(a); free(b);
        gc_model_free(r.m);
    }
}

GC_TEST(interp_fp64_hybrid_and_sparse_weights_dequantized_exactly) {
    /* hybrid FC in fp64: dequantized weights, no activation quantization: x w s in double */
    const float x[4] = { 0.3f, -1.7f, 2.2f, 0.001f };
    const int8_t w[8] = { 1, -2, 3, 4, 127, -128, 5, 0 };
    const float ws[2] = { 0.02f, 0.003f };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 4), x), KT_QA(GC_T_INT8, 2, KT_S(2, 4), w, 2, ws, NULL, 0), { .type = -1 } };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1, 2)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    float y[2];
    CHECK(kt_run(&r, GC_PREC_FP64, ins, 3, 0, y, sizeof y, NULL, 0, NULL, NULL));
    for (int u = 0; u < 2; u++) {
        double s = 0;
        for (int k = 0; k < 4; k++) s += (double)x[k] * ((double)w[u * 4 + k] * (double)ws[u]);
        CHECK_MSG(y[u] == (float)s, "unit %d: %.9g vs %.9g", u, (double)y[u], s);
    }
    gc_model_free(r.m);
}

/* ---- control flow: WHILE with float state ----------------------------------------------- */

static int32_t tens(gc_model *m, int32_t sg, const char *name, int type, const void *data, size_t n) {
    uint32_t buf = data ? (uint32_t)gc_model_add_buffer(m, data, n) : 0;
    return gc_sg_add_tensor(m, sg, name, type, 0, NULL, buf);
}
static gc_op *add_op(gc_model *m, int32_t sg, int32_t code, int opt, int n_in, const int32_t *in, int n_out,
                     const int32_t *out) {
    int32_t oc = gc_model_add_opcode(m, code, NULL, 1);
    int32_t i = gc_sg_insert_op(m, sg, m->subgraphs[sg].n_ops, oc, n_in, in, n_out, out);
    gc_op *op = &m->subgraphs[sg].ops[i];
    if (opt) gc_opt_init(m, &op->opt, opt);
    return op;
}

GC_TEST(interp_fp64_while_loop_keeps_double_state) {
    /* acc = acc * 3 + 1e-9 ten times from 1: the 1e-9 terms survive in double only */
    gc_model *m = gc_model_new();
    int32_t main_sg = gc_model_add_subgraph(m, "main"), cond_sg = gc_model_add_subgraph(m, "cond"),
            body_sg = gc_model_add_subgraph(m, "body");
    int32_t ten = 10, one = 1; float three = 3.0f, tiny = 1e-9f;
    int32_t ci = tens(m, cond_sg, "i", GC_T_INT32, NULL, 0), ca = tens(m, cond_sg, "acc", GC_T_FLOAT32, NULL, 0);
    int32_t c10 = tens(m, cond_sg, "ten", GC_T_INT32, &ten, 4), cr = tens(m, cond_sg, "lt", GC_T_BOOL, NULL, 0);
    int32_t cin[] = { ci, c10 }, cio[] = { ci, ca };
    add_op(m, cond_sg, GC_OP_LESS, 0, 2, cin, 1, &cr);
    gc_sg_set_io(m, cond_sg, 2, cio, 1, &cr);
    int32_t bi = tens(m, body_sg, "i", GC_T_INT32, NULL, 0), ba = tens(m, body_sg, "acc", GC_T_FLOAT32, NULL, 0);
    int32_t b1 = tens(m, body_sg, "one", GC_T_INT32, &one, 4), b3 = tens(m, body_sg, "three", GC_T_FLOAT32, &three, 4);
    int32_t bt = tens(m, body_sg, "tiny", GC_T_FLOAT32, &tiny, 4);
    int32_t bi2 = tens(m, body_sg, "i2", GC_T_INT32, NULL, 0), bm = tens(m, body_sg, "m", GC_T_FLOAT32, NULL, 0);
    int32_t ba2 = tens(m, body_sg, "acc2", GC_T_FLOAT32, NULL, 0);
    int32_t bin1[] = { bi, b1 }, bin2[] = { ba, b3 }, bin3[] = { bm, bt };
    add_op(m, body_sg, GC_OP_ADD, GC_BO_AddOptions, 2, bin1, 1, &bi2);
    add_op(m, body_sg, GC_OP_MUL, GC_BO_MulOptions, 2, bin2, 1, &bm);
    add_op(m, body_sg, GC_OP_ADD, GC_BO_AddOptions, 2, bin3, 1, &ba2);
    int32_t bio[] = { bi, ba }, boo[] = { bi2, ba2 };
    gc_sg_set_io(m, body_sg, 2, bio, 2, boo);
    int32_t mi = tens(m, main_sg, "i0", GC_T_INT32, NULL, 0), ma = tens(m, main_sg, "acc0", GC_T_FLOAT32, NULL, 0);
    int32_t mo1 = tens(m, main_sg, "i", GC_T_INT32, NULL, 0), mo2 = tens(m, main_sg, "acc", GC_T_FLOAT32, NULL, 0);
    int32_t win[] = { mi, ma }, wout[] = { mo1, mo2 };
    gc_op *w = add_op(m, main_sg, GC_OP_WHILE, GC_BO_WhileOptions, 2, win, 2, wout);
    gc_opt_set_int(m, &w->opt, GC_O_WhileOptions_cond_subgraph_index, cond_sg);
    gc_opt_set_int(m, &w->opt, GC_O_WhileOptions_body_subgraph_index, body_sg);
    gc_sg_set_io(m, main_sg, 2, win, 2, wout);
    double expect = 1.0;
    for (int i = 0; i < 10; i++) expect = expect * 3.0 + (double)1e-9f;
    char err[512];
    gc_interp_opts o = { .precision = GC_PREC_FP64, .signature = GC_SIG_AUTO, .fp64_views = true };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    CHECK(it != NULL);
    if (it) {
        CHECK_MSG(gc_interp_prepare(it) == GC_OK, "%s", gc_interp_errmsg(it));
        *(int32_t *)gc_interp_input(it, 0).data = 0;
        gc_tview in1 = gc_interp_input(it, 1);
        CHECK(in1.dtype == GC_T_FLOAT32 && in1.nbytes == 4);       /* the caller writes float32 */
        *(float *)in1.data = 1.0f;
        CHECK_MSG(gc_interp_invoke(it) == GC_OK, "%s", gc_interp_errmsg(it));
        CHECK_EQ_INT(*(int32_t *)gc_interp_output(it, 0).data, 10);
        gc_tview v = gc_interp_output(it, 1);
        CHECK(v.dtype == GC_T_FLOAT64);
        CHECK_MSG(*(double *)v.data == expect, "%.17g vs %.17g", *(double *)v.data, expect);
        gc_interp_free(it);
    }
    gc_model_free(m);
}

/* ---- a corpus float model ------------------------------------------------------------- */

GC_TEST(interp_fp64_corpus_float_model_close_to_fp32) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("no corpus");
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/mobilenet_v1_0.25_224_1_default_1.tflite", dir);
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    CHECK_MSG(m != NULL, "%s", err);
    if (!m) return;
    float *out[2] = { NULL, NULL };
    size_t n = 0;
    for (int p = 0; p < 2; p++) {
        gc_interp_opts o = { .precision = p ? GC_PREC_FP64 : GC_PREC_FP32, .signature = GC_SIG_AUTO };
        gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
        CHECK(it && gc_interp_prepare(it) == GC_OK);
        if (!it) continue;
        gc_tview v = gc_interp_input(it, 0);
        CHECK(v.dtype == GC_T_FLOAT32);
        CHECK(gc_fill_random(&v, 7, 0, 0) == GC_OK);
        CHECK_MSG(gc_interp_invoke(it) == GC_OK, "%s", gc_interp_errmsg(it));
        gc_tview y = gc_interp_output(it, 0);
        CHECK(y.dtype == GC_T_FLOAT32);
        n = y.nbytes / 4;
        out[p] = malloc(y.nbytes);
        memcpy(out[p], y.data, y.nbytes);
        gc_interp_free(it);
    }
    if (out[0] && out[1]) {
        double md = 0, mx = 0;
        for (size_t i = 0; i < n; i++) {
            md = fmax(md, fabs((double)out[0][i] - out[1][i]));
            mx = fmax(mx, fabs((double)out[1][i]));
        }
        printf("  mobilenet_v1_0.25_224 fp64 vs fp32: max|diff| %.3g (max|y| %.3g)\n", md, mx);
        CHECK_MSG(md > 0 && md <= 1e-5 * mx, "max|diff| %g, max|y| %g", md, mx);
    }
    free(out[0]); free(out[1]);
    gc_model_free(m);
}
