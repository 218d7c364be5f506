/* test_kernels_pool.c — every op that splits its work over the thread pool gives the same
 * bytes at 1, 2 and 3 threads, and with tiny forced chunks (range boundaries everywhere;
 * gc_pool_force_chunk); the multi-thread runs must really have split (gc_interp_stats
 * pool_jobs > 0). Where a plain loop is kept (reductions, pools: opts.reference_kernels)
 * the fast one is held to it bit for bit; PAD, TRANSPOSE and CONCATENATION are checked
 * against naive index loops written here. Inputs mix in -0, +-Inf and NaN where the op's
 * order or comparisons could tell them apart.
 */
#include "test_kernels_pool.h"

/* ---- elementwise ------------------------------------------------------------------------- */

GC_TEST(pool_binary_float) {
    const int32_t codes[] = { GC_OP_ADD, GC_OP_SUB, GC_OP_MUL, GC_OP_DIV, GC_OP_MAXIMUM, GC_OP_SQUARED_DIFFERENCE,
                              GC_OP_POW, GC_OP_LESS };
    float *a = fdata(3 * 200 * 300, 3.0f, true), *b = fdata(3 * 200 * 300, 3.0f, true), *c = fdata(200, 2.0f, false);
    for (int k = 0; k < 8; k++)
        for (int form = 0; form < 3; form++) {
            /* same shapes; [3,200,300] x [200,1] (broadcast runs); [3,200,300] x scalar */
            kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 3, KT_S(3, 200, 300), a),
                                form == 0 ? (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(3, 200, 300), b)
                                : form == 1 ? (kt_tensor)KT_IN(GC_T_FLOAT32, 2, KT_S(200, 1), c)
                                : (kt_tensor)KT_IN(GC_T_FLOAT32, 0, KT_S(0), c) };
            kt_tensor outs[] = { KT_OUT(codes[k] == GC_OP_LESS ? GC_T_BOOL : GC_T_FLOAT32, 3, KT_S(3, 200, 300)) };
            kt_model r = kt_build(codes[k], 0, ins, 2, outs, 1);
            char what[64]; snprintf(what, sizeof what, "binary op %d form %d", (int)codes[k], form);
            size_t nb;
            void *out = check(&r, ins, 2, form == 0 && k < 2 ? FP16 : 0, what, &nb);
            if (out && codes[k] == GC_OP_SUB && form == 1) {      /* spot values: the broadcast is right */
                const float *y = out;
                for (int i = 0; i < 3 * 200 * 300; i += 997) {
                    float want = a[i] - c[(i / 300) % 200];
                    CHECK_MSG(!memcmp(&y[i], &want, 4) || (isnan(y[i]) && isnan(want)), "SUB[%d]", i);
                }
            }
            done(&r, out);
        }
    free(a); free(b); free(c);
}

GC_TEST(pool_binary_quantized) {
    uint8_t *a = bdata(4 * 180 * 200), *b = bdata(4 * 180 * 200);
    const int32_t codes[] = { GC_OP_ADD, GC_OP_MUL };
    for (int k = 0; k < 2; k++) {
        kt_tensor ins[] = { { .type = GC_T_INT8, .rank = 3, .shape = { 4, 180, 200 }, .feed = a, .scale = 0.05f, .zp = 3 },
                            { .type = GC_T_INT8, .rank = 3, .shape = { 4, 180, 200 }, .feed = b, .scale = 0.02f, .zp = -7 } };
        kt_tensor outs[] = { KT_QOUT(GC_T_INT8, 3, KT_S(4, 180, 200), 0.08f, 1) };
        kt_model r = kt_build(codes[k], 0, ins, 2, outs, 1);
        size_t nb;
        done(&r, check(&r, ins, 2, 0, codes[k] == GC_OP_ADD ? "int8 ADD" : "int8 MUL", &nb));
    }
    free(a); free(b);
}

GC_TEST(pool_unary) {
    const int32_t codes[] = { GC_OP_HARD_SWISH, GC_OP_RELU6, GC_OP_RELU, GC_OP_LOGISTIC, GC_OP_TANH, GC_OP_RSQRT,
                              GC_OP_LEAKY_RELU, GC_OP_ABS };
    float *a = fdata(2 * 300 * 300, 8.0f, true);
    for (int k = 0; k < 8; k++) {
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 3, KT_S(2, 300, 300), a) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 3, KT_S(2, 300, 300)) };
        kt_model r = kt_build(codes[k], codes[k] == GC_OP_LEAKY_RELU ? GC_BO_LeakyReluOptions : 0, ins, 1, outs, 1);
        if (codes[k] == GC_OP_LEAKY_RELU) gc_opt_set_float(r.m, &r.op->opt, GC_O_LeakyReluOptions_alpha, 0.125);
        char what[48]; snprintf(what, sizeof what, "unary op %d", (int)codes[k]);
        size_t nb;
        void *out = check(&r, ins, 1, k == 0 ? FP16 : 0, what, &nb);
        if (out && codes[k] == GC_OP_HARD_SWISH) {
            const float *y = out;
            for (int i = 0; i < 2 * 300 * 300; i += 101) {
                float x = a[i], t = x + 3.0f;
                t = t < 0 ? 0 : t > 6 ? 6 : t;
                float want = x * t / 6.0f;
                CHECK_MSG(!memcmp(&y[i], &want, 4) || (isnan(y[i]) && isnan(want)), "HARD_SWISH[%d] of %g", i, (double)x);
            }
        }
        done(&r, out);
    }
    uint8_t *q = bdata(2 * 300 * 300);
    kt_tensor ins[] = { { .type = GC_T_INT8, .rank = 3, .shape = { 2, 300, 300 }, .feed = q, .scale = 0.1f, .zp = 0 } };
    kt_tensor outs[] = { KT_QOUT(GC_T_INT8, 3, KT_S(2, 300, 300), 1.0f / 256, -128) };
    kt_model r = kt_build(GC_OP_LOGISTIC, 0, ins, 1, outs, 1);
    size_t nb;
    done(&r, check(&r, ins, 1, 0, "int8 LOGISTIC", &nb));
    free(a); free(q);
}

/* ---- softmax ----------------------------------------------------------------------------- */

GC_TEST(pool_softmax) {
    float *a = fdata(48 * 700, 20.0f, true);
    for (int i = 0; i < 48 * 700; i++) if (rnd() % 3 == 0) a[i] = -3.4e38f;      /* an attention mask */
    for (int i = 0; i < 700; i++) a[5 * 700 + i] = -3.4e38f;                     /* a fully masked row */
    const int32_t codes[] = { GC_OP_SOFTMAX, GC_OP_LOG_SOFTMAX, GC_OP_L2_NORMALIZATION };
    for (int k = 0; k < 3; k++)
        for (int beta = 0; beta < 2; beta++) {
            if (beta && codes[k] != GC_OP_SOFTMAX) continue;
            kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(48, 700), a) };
            kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(48, 700)) };
            kt_model r = kt_build(codes[k], codes[k] == GC_OP_SOFTMAX ? GC_BO_SoftmaxOptions : 0, ins, 1, outs, 1);
            if (codes[k] == GC_OP_SOFTMAX) gc_opt_set_float(r.m, &r.op->opt, GC_O_SoftmaxOptions_beta, beta ? 0.37 : 1.0);
            char what[48]; snprintf(what, sizeof what, "softmax op %d beta %d", (int)codes[k], beta);
            size_t nb;
            void *out = check(&r, ins, 1, FP16, what, &nb);
            if (out && codes[k] == GC_OP_SOFTMAX) {     /* rows against expf on every term, in order */
                const float *y = out;
                float bt = beta ? 0.37f : 1.0f;
                for (int row = 0; row < 48; row += 7) {
                    const float *x = a + row * 700;
                    float m = -INFINITY, s = 0, e[700];
                    for (int i = 0; i < 700; i++) if (x[i] > m) m = x[i];
                    for (int i = 0; i < 700; i++) { e[i] = expf((x[i] - m) * bt); s += e[i]; }
                    for (int i = 0; i < 700; i++) {
                        float want = e[i] / s;
                        CHECK_MSG(!memcmp(&y[row * 700 + i], &want, 4) || (isnan(want) && isnan(y[row * 700 + i])),
                                  "softmax row %d [%d]: %a vs %a", row, i, (double)y[row * 700 + i], (double)want);
                    }
                }
            }
            done(&r, out);
        }
    free(a);
}

/* expf skipped below the threshold: it is libm's own edge (expf there is 0, just above it not) */
GC_TEST(pool_expf_zero_threshold) {
    float z = gc_expf_zero_below();
    CHECK(expf(z) > 0.0f);
    CHECK(expf(nextafterf(z, -INFINITY)) == 0.0f);
    CHECK(z < -100.0f && z > -110.0f);
    float t = nextafterf(z, -INFINITY);
    for (int i = 0; i < 100000; i++, t = nextafterf(t, -INFINITY)) CHECK(expf(t) == 0.0f);
    for (int i = 0; i < 100000; i++) {
        float v = z - (float)(rnd() % 1000000) * 1e-2f - 1e-3f * (float)(rnd() % 1000);
        if (v < z) CHECK_MSG(expf(v) == 0.0f, "expf(%a) = %a", (double)v, (double)expf(v));
    }
    CHECK(expf(-3.4e38f) == 0.0f && expf(-INFINITY) == 0.0f);
}

/* ---- reductions ---------------------------------------------------------------------------- */

GC_TEST(pool_reduce) {
    struct { int rank; int32_t shape[4]; int na; int32_t axes[3]; int keep; } cases[] = {
        { 3, { 1, 3350, 80 }, 1, { 2 }, 1 },            /* innermost reduced: rows side by side */
        { 4, { 2, 60, 50, 36 }, 2, { 1, 2 }, 1 },       /* NHWC mean over H, W: channels kept */
        { 3, { 300, 20, 40 }, 1, { 0 }, 0 },            /* outermost reduced */
        { 4, { 6, 30, 5, 70 }, 2, { 0, 2 }, 0 },        /* interleaved */
        { 2, { 200, 1000 }, 2, { -1, 0 }, 0 },          /* everything: one output */
        { 4, { 3, 1, 200, 90 }, 2, { 1, 3 }, 1 },       /* a size-1 dim among them */
    };
    const int32_t codes[] = { GC_OP_MEAN, GC_OP_SUM, GC_OP_REDUCE_MAX, GC_OP_REDUCE_MIN, GC_OP_REDUCE_PROD };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = 1;
        for (int i = 0; i < cases[c].rank; i++) n *= (size_t)cases[c].shape[i];
        float *x = fdata(n, 1.5f, true);
        for (int k = 0; k < 5; k++) {
            kt_tensor ins[] = { { .type = GC_T_FLOAT32, .rank = cases[c].rank, .feed = x },
                                KT_C(GC_T_INT32, 1, KT_S(cases[c].na), cases[c].axes) };
            memcpy(ins[0].shape, cases[c].shape, sizeof cases[c].shape);
            kt_tensor outs[] = { { .type = GC_T_FLOAT32, .rank = 0 } };   /* shape set at prepare */
            int32_t oshape[4]; int orank = 0;
            for (int i = 0; i < cases[c].rank; i++) {
                bool red = false;
                for (int a = 0; a < cases[c].na; a++) red |= (cases[c].axes[a] + cases[c].rank) % cases[c].rank == i;
                if (!red) oshape[orank++] = cases[c].shape[i]; else if (cases[c].keep) oshape[orank++] = 1;
            }
            outs[0].rank = orank;
            memcpy(outs[0].shape, oshape, sizeof oshape);
            kt_model r = kt_build(codes[k], GC_BO_ReducerOptions, ins, 2, outs, 1);
            gc_opt_set_int(r.m, &r.op->opt, GC_O_ReducerOptions_keep_dims, cases[c].keep);
            char what[64]; snprintf(what, sizeof what, "reduce op %d case %zu", (int)codes[k], c);
            size_t nb;
            /* one output (case 4) cannot split */
            done(&r, check(&r, ins, 2, HAS_REF | (k < 2 ? FP16 : 0) | (c == 4 ? NO_SPLIT : 0), what, &nb));
        }
        free(x);
    }
}

/* ---- pooling, resize ----------------------------------------------------------------------- */

GC_TEST(pool_pooling) {
    float *x = fdata(2 * 57 * 57 * 72, 4.0f, true);
    const int32_t codes[] = { GC_OP_MAX_POOL_2D, GC_OP_AVERAGE_POOL_2D, GC_OP_L2_POOL_2D };
    for (int k = 0; k < 3; k++)
        for (int same_pad = 0; same_pad < 2; same_pad++) {
            int32_t o = same_pad ? 29 : 28;
            kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(2, 57, 57, 72), x) };
            kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(2, o, o, 72)) };
            kt_model r = kt_build(codes[k], GC_BO_Pool2DOptions, ins, 1, outs, 1);
            gc_options *op = &r.op->opt;
            gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_padding, same_pad ? 0 : 1);
            gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_stride_w, 2);
            gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_stride_h, 2);
            gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_filter_width, 3);
            gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_filter_height, 3);
            gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_fused_activation_function, k == 1 ? GC_ACT_RELU6 : 0);
            char what[48]; snprintf(what, sizeof what, "pool op %d same %d", (int)codes[k], same_pad);
            size_t nb;
            done(&r, check(&r, ins, 1, HAS_REF | FP16, what, &nb));
        }
    uint8_t *q = bdata(2 * 57 * 57 * 72);
    kt_tensor ins[] = { { .type = GC_T_INT8, .rank = 4, .shape = { 2, 57, 57, 72 }, .feed = q, .scale = 0.1f, .zp = 2 } };
    kt_tensor outs[] = { KT_QOUT(GC_T_INT8, 4, KT_S(2, 29, 29, 72), 0.1f, 2) };
    kt_model r = kt_build(GC_OP_AVERAGE_POOL_2D, GC_BO_Pool2DOptions, ins, 1, outs, 1);
    gc_options *op = &r.op->opt;
    gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_stride_w, 2);
    gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_stride_h, 2);
    gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_filter_width, 3);
    gc_opt_set_int(r.m, op, GC_O_Pool2DOptions_filter_height, 3);
    size_t nb;
    done(&r, check(&r, ins, 1, HAS_REF, "int8 AVERAGE_POOL_2D", &nb));
    free(x); free(q);
}

GC_TEST(pool_resize) {
    float *x = fdata(1 * 60 * 50 * 32, 4.0f, false);
    int32_t size[] = { 121, 97 };
    const int32_t codes[] = { GC_OP_RESIZE_BILINEAR, GC_OP_RESIZE_NEAREST_NEIGHBOR };
    for (int k = 0; k < 2; k++) {
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 60, 50, 32), x), KT_C(GC_T_INT32, 1, KT_S(2), size) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 121, 97, 32)) };
        kt_model r = kt_build(codes[k], k == 0 ? GC_BO_ResizeBilinearOptions : 0, ins, 2, outs, 1);
        if (k == 0) gc_opt_set_int(r.m, &r.op->opt, GC_O_ResizeBilinearOptions_half_pixel_centers, 1);
        size_t nb;
        done(&r, check(&r, ins, 2, 0, k ? "RESIZE_NEAREST_NEIGHBOR" : "RESIZE_BILINEAR", &nb));
    }
    free(x);
}

/* ---- data movement, against naive loops ---------------------------------------------------- */

/* row-major index helpers for the naive loops */
static size_t lin(int rank, const int32_t *shape, const int32_t *idx) {
    size_t o = 0;
    for (int i = 0; i < rank; i++) o = o * (size_t)shape[i] + (size_t)idx[i];
    return o;
}
static bool next_idx(int rank, const int32_t *shape, int32_t *idx) {
    for (int i = rank - 1; i >= 0; i--) { if (++idx[i] < shape[i]) return true; idx[i] = 0; }
    return false;
}

GC_TEST(pool_pad) {
    struct { int rank; int32_t shape[4]; int32_t pads[8]; int mode; int es; } cases[] = {
        { 4, { 1, 100, 120, 32 }, { 0, 0, 1, 1, 2, 1, 0, 0 }, 0, 4 },   /* H, W of NHWC */
        { 4, { 4, 40, 30, 24 }, { 0, 0, 0, 0, 0, 0, 3, 5 }, 0, 4 },     /* the last dim */
        { 3, { 5, 400, 256 }, { 2, 1, 0, 0, 0, 0 }, 0, 1 },             /* the first dim, int8 */
        { 4, { 1, 96, 104, 32 }, { 0, 0, 3, 2, 1, 3, 0, 0 }, 1, 4 },    /* MIRROR_PAD reflect */
        { 3, { 30, 70, 40 }, { 1, 2, 2, 0, 4, 4 }, 2, 4 },              /* symmetric, every dim */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int R = cases[c].rank, es = cases[c].es;
        int type = es == 4 ? GC_T_FLOAT32 : GC_T_INT8;
        size_t n = 1, on = 1;
        int32_t os[4];
        for (int i = 0; i < R; i++) {
            n *= (size_t)cases[c].shape[i];
            os[i] = cases[c].shape[i] + cases[c].pads[2 * i] + cases[c].pads[2 * i + 1];
            on *= (size_t)os[i];
        }
        uint8_t *x = bdata(n * (size_t)es);
        int32_t pads[8];
        memcpy(pads, cases[c].pads, sizeof pads);
        kt_tensor ins[] = { { .type = type, .rank = R, .feed = x, .scale = es == 1 ? 0.5f : 0, .zp = es == 1 ? 9 : 0 },
                            KT_C(GC_T_INT32, 2, KT_S(R, 2), pads) };
        memcpy(ins[0].shape, cases[c].shape, sizeof cases[c].shape);
        kt_tensor outs[] = { { .type = type, .rank = R, .scale = es == 1 ? 0.5f : 0, .zp = es == 1 ? 9 : 0 } };
        memcpy(outs[0].shape, os, sizeof os);
        kt_model r = kt_build(cases[c].mode ? GC_OP_MIRROR_PAD : GC_OP_PAD, cases[c].mode ? GC_BO_MirrorPadOptions : 0,
                              ins, 2, outs, 1);
        if (cases[c].mode) gc_opt_set_int(r.m, &r.op->opt, GC_O_MirrorPadOptions_mode, cases[c].mode == 1 ? 0 : 1);
        char what[32]; snprintf(what, sizeof what, "pad case %zu", c);
        size_t nb;
        uint8_t *y = check(&r, ins, 2, 0, what, &nb);
        if (y) {                                    /* naive: each output coordinate mapped back */
            int32_t idx[4] = { 0 }, src[4];
            size_t bad = 0;
            do {
                bool out = false;
                for (int i = 0; i < R; i++) {
                    int32_t j = idx[i] - cases[c].pads[2 * i], nk = cases[c].shape[i];
                    if (j < 0 || j >= nk) {
                        if (!cases[c].mode) out = true;
                        else if (j < 0) j = cases[c].mode == 1 ? -j : -j - 1;
                        else j = cases[c].mode == 1 ? 2 * nk - 2 - j : 2 * nk - 1 - j;
                    }
                    src[i] = j;
                }
                const uint8_t *want = out ? (const uint8_t *)(es == 1 ? "\x09" : "\0\0\0\0")
                                          : x + lin(R, cases[c].shape, src) * (size_t)es;
                bad += memcmp(y + lin(R, os, idx) * (size_t)es, want, (size_t)es) != 0;
            } while (next_idx(R, os, idx));
            CHECK_MSG(bad == 0, "%s: %zu elements differ from the naive loop", what, bad);
        }
        done(&r, y);
        free(x);
    }
}

GC_TEST(pool_transpose) {
    struct { int rank; int32_t shape[5]; int32_t perm[5]; int es; } cases[] = {
        { 4, { 4, 80, 60, 24 }, { 0, 3, 1, 2 }, 4 },            /* NHWC -> NCHW */
        { 5, { 1, 28, 28, 2, 58 }, { 0, 1, 2, 4, 3 }, 4 },      /* channel shuffle */
        { 2, { 300, 410 }, { 1, 0 }, 4 },
        { 4, { 6, 500, 1, 140 }, { 2, 3, 0, 1 }, 1 },           /* int8, a size-1 dim */
        { 3, { 60, 50, 40 }, { 0, 1, 2 }, 4 },                  /* identity */
        { 4, { 10, 40, 70, 20 }, { 0, 2, 1, 3 }, 2 },           /* innermost stays: row copies */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int R = cases[c].rank, es = cases[c].es;
        int type = es == 4 ? GC_T_FLOAT32 : es == 2 ? GC_T_INT16 : GC_T_INT8;
        size_t n = 1;
        int32_t os[5];
        for (int i = 0; i < R; i++) { n *= (size_t)cases[c].shape[i]; os[i] = cases[c].shape[cases[c].perm[i]]; }
        uint8_t *x = bdata(n * (size_t)es);
        int32_t perm[5];
        memcpy(perm, cases[c].perm, sizeof perm);
        float qs = es < 4 ? 0.25f : 0;
        kt_tensor ins[] = { { .type = type, .rank = R, .feed = x, .scale = qs }, KT_C(GC_T_INT32, 1, KT_S(R), perm) };
        memcpy(ins[0].shape, cases[c].shape, sizeof cases[c].shape);
        kt_tensor outs[] = { { .type = type, .rank = R, .scale = qs } };
        memcpy(outs[0].shape, os, sizeof os);
        kt_model r = kt_build(GC_OP_TRANSPOSE, 0, ins, 2, outs, 1);
        char what[32]; snprintf(what, sizeof what, "transpose case %zu", c);
        size_t nb;
        uint8_t *y = check(&r, ins, 2, c == 4 ? NO_SPLIT : 0, what, &nb);
        if (y) {
            int32_t idx[5] = { 0 }, src[5];
            size_t bad = 0;
            do {
                for (int i = 0; i < R; i++) src[cases[c].perm[i]] = idx[i];
                bad += memcmp(y + lin(R, os, idx) * (size_t)es, x + lin(R, cases[c].shape, src) * (size_t)es, (size_t)es) != 0;
            } while (next_idx(R, os, idx));
            CHECK_MSG(bad == 0, "%s: %zu elements differ from the naive loop", what, bad);
        }
        done(&r, y);
        free(x);
    }
}

GC_TEST(pool_concat_reshape) {
    for (int axis = 0; axis < 4; axis++) {
        int32_t s0[4] = { 2, 80, 80, 16 }, s1[4] = { 2, 80, 80, 16 }, s2[4] = { 2, 80, 80, 16 }, so[4];
        s1[axis] = axis == 0 ? 1 : 24; s2[axis] = 8;
        memcpy(so, s0, sizeof so);
        so[axis] = s0[axis] + s1[axis] + s2[axis];
        size_t n0 = 2 * 80 * 80 * 16, n1 = n0 / (size_t)s0[axis] * (size_t)s1[axis], n2 = n0 / (size_t)s0[axis] * (size_t)s2[axis];
        float *a = fdata(n0, 2.0f, false), *b = fdata(n1, 2.0f, false), *c = fdata(n2, 2.0f, false);
        kt_tensor ins[3] = { { .type = GC_T_FLOAT32, .rank = 4, .feed = a }, { .type = GC_T_FLOAT32, .rank = 4, .feed = b },
                             { .type = GC_T_FLOAT32, .rank = 4, .feed = c } };
        memcpy(ins[0].shape, s0, sizeof s0); memcpy(ins[1].shape, s1, sizeof s1); memcpy(ins[2].shape, s2, sizeof s2);
        kt_tensor outs[] = { { .type = GC_T_FLOAT32, .rank = 4 } };
        memcpy(outs[0].shape, so, sizeof so);
        kt_model r = kt_build(GC_OP_CONCATENATION, GC_BO_ConcatenationOptions, ins, 3, outs, 1);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_ConcatenationOptions_axis, axis);
        gc_opt_set_int(r.m, &r.op->opt, GC_O_ConcatenationOptions_fused_activation_function, axis == 2 ? GC_ACT_RELU : 0);
        char what[32]; snprintf(what, sizeof what, "concat axis %d", axis);
        size_t nb;
        float *y = check(&r, ins, 3, 0, what, &nb);
        if (y) {
            int32_t idx[4] = { 0 };
            size_t bad = 0;
            do {
                int32_t j[4]; memcpy(j, idx, sizeof j);
                const float *src; const int32_t *sh;
                if (j[axis] < s0[axis]) { src = a; sh = s0; }
                else if ((j[axis] -= s0[axis]) < s1[axis]) { src = b; sh = s1; }
                else { j[axis] -= s1[axis]; src = c; sh = s2; }
                float want = src[lin(4, sh, j)];
                if (axis == 2 && want < 0) want = 0;
                bad += memcmp(&y[lin(4, so, idx)], &want, 4) != 0;
            } while (next_idx(4, so, idx));
            CHECK_MSG(bad == 0, "%s: %zu elements differ from the naive loop", what, bad);
        }
        done(&r, y);
        free(a); free(b); free(c);
    }
    /* RESHAPE: in fp32 its output shares the input's block (no copy, no split: one block
     * in the arena); in fp16 (outputs rounded in place) a large copy in byte ranges */
    float *x = fdata(400 * 1000, 1.0f, true);
    int32_t shp[] = { 1000, 400 };
    kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(400, 1000), x), KT_C(GC_T_INT32, 1, KT_S(2), shp) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1000, 400)) };
    kt_model r = kt_build(GC_OP_RESHAPE, 0, ins, 2, outs, 1);
    size_t nb;
    float *y = check(&r, ins, 2, NO_SPLIT | FP16, "RESHAPE", &nb);
    CHECK(y && nb == sizeof(float) * 400 * 1000 && !memcmp(y, x, nb));
    for (int p = GC_PREC_FP32; p <= GC_PREC_FP16; p++) {
        char err[256];
        gc_interp_opts o = { .precision = (gc_precision)p, .signature = -1, .threads = 2 };
        gc_interp *it = gc_interp_new(r.m, &o, err, sizeof err);
        CHECK(it && gc_interp_prepare(it) == GC_OK);
        gc_tview v = gc_interp_input(it, 0);
        memcpy(v.data, x, v.nbytes);
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        if (p == GC_PREC_FP32) CHECK_MSG(st.arena_bytes < 2 * nb && st.pool_jobs == 0, "fp32 RESHAPE: arena %zu, %llu jobs",
                                         st.arena_bytes, (unsigned long long)st.pool_jobs);
        else CHECK_MSG(st.arena_bytes >= 2 * nb && st.pool_jobs > 0, "fp16 RESHAPE: arena %zu, %llu jobs",
                       st.arena_bytes, (unsigned long long)st.pool_jobs);
        gc_interp_free(it);
    }
    done(&r, y);
    free(x);
}
