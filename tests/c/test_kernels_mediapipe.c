/* test_kernels_mediapipe.c — MediaPipe's custom ops (kernels/mediapipe.c) on one-op and
 * two-op models built here, with their custom options: the raw TfLite*Params structs and
 * FlexBuffer maps encoded below. Expected values are worked out by hand in the comments
 * (MediaPipe's ops are not registered in the stock LiteRT, so there is no runtime to ask).
 * Also: fp64 and fp16 modes, and the refusals (options, shapes, indices). */
#include "test_custom_harness.h"
#include "interp/fp16.h"

static bool has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* ---- Convolution2DTransposeBias ------------------------------------------------------- */

GC_TEST(kernel_mp_transpose_conv_bias_same_valid_channels) {
    /* x [1,2,2,1] = 1 2 / 3 4; w [1,3,3,1] = 1..9 row-major; bias 0.5; stride 2.
     * SAME: pad = 3 - (2-1)%2 - 1 = 1 -> out 2*1 + 3 - 1 = 4, offset 1/2 = 0: each input
     * pixel adds x*w at (2iy+fy, 2ix+fx), e.g. y[2][2] = 1*9 + 2*7 + 3*3 + 4*1 = 36. */
    float x[4] = { 1, 2, 3, 4 }, w[9], b[1] = { 0.5f };
    for (int i = 0; i < 9; i++) w[i] = (float)(i + 1);
    static const float want_same[16] = { 1.5f, 2.5f, 5.5f, 4.5f, 4.5f, 5.5f, 14.5f, 10.5f,
                                         10.5f, 14.5f, 36.5f, 24.5f, 12.5f, 15.5f, 34.5f, 20.5f };
    int32_t p_same[3] = { 1, 2, 2 }, p_valid[3] = { 2, 2, 2 };
    uint8_t o_same[12], o_valid[12];
    le32(o_same, p_same, 3); le32(o_valid, p_valid, 3);
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1), x), KT_C(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 1), w),
                      KT_C(GC_T_FLOAT32, 1, KT_S(1), b), KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 4, 4, 1)) };
    cop op = { "Convolution2DTransposeBias", 1, o_same, 12, { 0, 1, 2 }, 3, { 3 }, 1 };
    int gin[] = { 0 }, gout[] = { 3 };
    gc_model *m = cm_build(t, 4, &op, 1, gin, 1, gout, 1);
    float got[25]; char err[512];
    const void *feeds[] = { x }; void *outs[] = { got }; size_t sz16[] = { 64 }, sz25[] = { 100 };
    CHECK_MSG(cm_run(m, GC_PREC_FP32, feeds, 1, outs, sz16, 1, err, sizeof err), "%s", err);
    kt_check_f(got, want_same, 16, 0, "same");
    CHECK_MSG(cm_run(m, GC_PREC_FP64, feeds, 1, outs, sz16, 1, err, sizeof err), "%s", err);
    kt_check_f(got, want_same, 16, 0, "same fp64");
    CHECK_MSG(cm_run(m, GC_PREC_FP16, feeds, 1, outs, sz16, 1, err, sizeof err), "%s", err);
    kt_check_f(got, want_same, 16, 0, "same fp16");     /* every value is a half */
    gc_model_free(m);
    /* VALID: no padding, 5x5; the corners get one tap each: y[4][4] = 4*9 + 0.5 */
    t[3] = (kt_tensor)KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 5, 5, 1));
    op.opts = o_valid;
    m = cm_build(t, 4, &op, 1, gin, 1, gout, 1);
    CHECK_MSG(cm_run(m, GC_PREC_FP32, feeds, 1, outs, sz25, 1, err, sizeof err), "%s", err);
    CHECK_NEAR(got[0], 1.5, 0); CHECK_NEAR(got[24], 36.5, 0);
    CHECK_NEAR(got[2], 1 * 3 + 2 * 1 + 0.5, 0);          /* (0,2): x00*w02 + x01*w00 */
    gc_model_free(m);

    /* 1x1, two in / two out channels: y_oc = b_oc + sum_ic x_ic w[oc][ic] */
    float x2[2] = { 1, 2 }, w2[4] = { 1, 10, 100, 1000 }, b2[2] = { 0, 1 };
    int32_t p1[3] = { 2, 1, 1 };
    uint8_t o1[12]; le32(o1, p1, 3);
    kt_tensor t2[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 2), x2), KT_C(GC_T_FLOAT32, 4, KT_S(2, 1, 1, 2), w2),
                       KT_C(GC_T_FLOAT32, 1, KT_S(2), b2), KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 2)) };
    cop op2 = { "Convolution2DTransposeBias", 1, o1, 12, { 0, 1, 2 }, 3, { 3 }, 1 };
    m = cm_build(t2, 4, &op2, 1, gin, 1, gout, 1);
    size_t sz2[] = { 8 };
    const void *f2[] = { x2 };
    CHECK_MSG(cm_run(m, GC_PREC_FP32, f2, 1, outs, sz2, 1, err, sizeof err), "%s", err);
    CHECK_NEAR(got[0], 21, 0); CHECK_NEAR(got[1], 2101, 0);
    gc_model_free(m);
}

GC_TEST(kernel_mp_transpose_conv_bias_refusals) {
    float x[4] = { 0 }, w[9] = { 0 }, b[1] = { 0 };
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1), x), KT_C(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 1), w),
                      KT_C(GC_T_FLOAT32, 1, KT_S(1), b), KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 4, 4, 1)) };
    int gin[] = { 0 }, gout[] = { 3 };
    float got[16]; char err[512];
    const void *feeds[] = { x }; void *outs[] = { got }; size_t sz[] = { 64 };
    /* no options; options too short; bad padding; zero stride */
    int32_t bad_pad[3] = { 7, 2, 2 }, bad_stride[3] = { 1, 0, 2 };
    uint8_t o1[12], o2[12]; le32(o1, bad_pad, 3); le32(o2, bad_stride, 3);
    struct { const uint8_t *o; size_t n; const char *msg; } c[] = {
        { NULL, 0, "custom options must hold TfLiteTransposeConvParams" }, { o1, 8, "(12 bytes), the op has 8" },
        { o1, 12, "padding 7 is neither SAME" }, { o2, 12, "strides 2x0 out of range" } };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        cop op = { "Convolution2DTransposeBias", 1, c[k].o, c[k].n, { 0, 1, 2 }, 3, { 3 }, 1 };
        gc_model *m = cm_build(t, 4, &op, 1, gin, 1, gout, 1);
        CHECK(!cm_run(m, GC_PREC_FP32, feeds, 1, outs, sz, 1, err, sizeof err));
        CHECK_MSG(has(err, c[k].msg) && has(err, "op 0 (Convolution2DTransposeBias)"), "%s", err);
        gc_model_free(m);
    }
    /* an unknown custom op names itself */
    cop op = { "NoSuchOp", 1, NULL, 0, { 0, 1, 2 }, 3, { 3 }, 1 };
    gc_model *m = cm_build(t, 4, &op, 1, gin, 1, gout, 1);
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 1, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "(NoSuchOp): custom op has no kernel"), "%s", err);
    gc_model_free(m);
}

/* ---- MaxPoolingWithArgmax2D -> MaxUnpooling2D ----------------------------------------- */

GC_TEST(kernel_mp_max_pool_argmax_then_unpool) {
    /* x [1,4,4,1]; 2x2 windows, stride 2, VALID:
     *    1 5 | 2 2        max 5 at (0,1) -> 1.1;   max 2 (tie) first at (0,0) -> 0.1
     *    3 4 | 2 2
     *   ---------
     *   -1 -2| 9 0        max -1 at (0,0) -> 0.1;  max 9 at (0,0) -> 0.1
     *   -3 -4| 8 9        (the later 9 is not strictly greater)               */
    float x[16] = { 1, 5, 2, 2, 3, 4, 2, 2, -1, -2, 9, 0, -3, -4, 8, 9 };
    int32_t pp[6] = { 2, 2, 2, 2, 2, 0 };
    uint8_t po[40] = { 0 }; le32(po, pp, 6);
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 4, 4, 1), x), KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1)),
                      KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1)), KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 4, 4, 1)) };
    cop ops[] = { { "MaxPoolingWithArgmax2D", 1, po, 40, { 0 }, 1, { 1, 2 }, 2 },
                  { "MaxUnpooling2D", 1, po, 40, { 1, 2 }, 2, { 3 }, 1 } };
    int gin[] = { 0 }, gout[] = { 1, 2, 3 };
    gc_model *m = cm_build(t, 4, ops, 2, gin, 1, gout, 3);
    float v[4], ix[4], un[16]; char err[512];
    const void *feeds[] = { x }; void *outs[] = { v, ix, un }; size_t sz[] = { 16, 16, 64 };
    static const float want_v[4] = { 5, 2, -1, 9 }, want_i[4] = { 1.1f, 0.1f, 0.1f, 0.1f };
    static const float want_un[16] = { 0, 5, 2, 0, 0, 0, 0, 0, -1, 0, 9, 0, 0, 0, 0, 0 };
    for (int p = 0; p < 3; p++) {
        gc_precision prec = p == 0 ? GC_PREC_FP32 : p == 1 ? GC_PREC_FP64 : GC_PREC_FP16;
        CHECK_MSG(cm_run(m, prec, feeds, 1, outs, sz, 3, err, sizeof err), "%s", err);
        kt_check_f(v, want_v, 4, 0, "values");
        kt_check_f(ix, want_i, 4, prec == GC_PREC_FP64 ? 1e-7f : 0, "indices");   /* fp16: indices not rounded */
        kt_check_f(un, want_un, 16, 0, "unpooled");
    }
    gc_model_free(m);

    /* SAME 3x3 -> 2x2 (pad 0; the last window clamped to one row / column), RELU clamps
     * the all-negative window; its index still names the maximum */
    float y[9] = { -5, -1, -7, -2, -3, 4, 6, -8, -9 };
    int32_t ps[6] = { 1, 2, 2, 2, 2, 1 };
    uint8_t so[24]; le32(so, ps, 6);
    kt_tensor t2[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 1), y), KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1)),
                       KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1)) };
    cop op2 = { "MaxPoolingWithArgmax2D", 1, so, 24, { 0 }, 1, { 1, 2 }, 2 };
    int gout2[] = { 1, 2 };
    m = cm_build(t2, 3, &op2, 1, gin, 1, gout2, 2);
    const void *f2[] = { y };
    CHECK_MSG(cm_run(m, GC_PREC_FP32, f2, 1, outs, sz, 2, err, sizeof err), "%s", err);
    /* windows: {-5,-1,-2,-3} max -1 at (0,1); {-7,4} max 4 at (1,0) -> 2.1; {6,-8} 6 at (0,0);
     * {-9} at (0,0) */
    static const float wv[4] = { 0, 4, 6, 0 }, wi[4] = { 1.1f, 2.1f, 0.1f, 0.1f };
    kt_check_f(v, wv, 4, 0, "same values");
    kt_check_f(ix, wi, 4, 0, "same indices");
    gc_model_free(m);
}

GC_TEST(kernel_mp_unpool_bad_index_and_options) {
    float x[4] = { 1, 2, 3, 4 }, k[4] = { 0.1f, 3.1f, 7.1f, 0.1f }, got[16];
    int32_t pp[6] = { 2, 2, 2, 2, 2, 0 };
    uint8_t po[24]; le32(po, pp, 6);
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1), x), KT_IN(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1), k),
                      KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 4, 4, 1)) };
    cop op = { "MaxUnpooling2D", 1, po, 24, { 0, 1 }, 2, { 2 }, 1 };
    int gin[] = { 0, 1 }, gout[] = { 2 };
    gc_model *m = cm_build(t, 3, &op, 1, gin, 2, gout, 1);
    char err[512];
    const void *feeds[] = { x, k }; void *outs[] = { got }; size_t sz[] = { 64 };
    /* index 7 in a 2x2 window: row 7/2 = 3 of the window, outside the 4x4 output */
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "index 7 at element 2 points outside the 4x4 output"), "%s", err);
    k[2] = -1.0f;
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "negative or not finite"), "%s", err);
    k[2] = 2.1f;          /* (1,0) of the window of input (1,0): output (3,0) */
    CHECK_MSG(cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err), "%s", err);
    static const float want[16] = { 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 4, 0, 3, 0, 0, 0 };
    kt_check_f(got, want, 16, 0, "unpooled");
    gc_model_free(m);
    /* a 5-field struct is too short for TfLitePoolParams */
    op.n_opts = 20;
    m = cm_build(t, 3, &op, 1, gin, 2, gout, 1);
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "TfLitePoolParams (24 bytes), the op has 20"), "%s", err);
    gc_model_free(m);
}

/* ---- Landmarks2TransformMatrix v2 ------------------------------------------------------- */

static void l2m_case(const float *lm, int nl, const fb_ent *e, int ne, const float *want, float tol, const char *what) {
    fb_buf fb;
    fb_map(&fb, e, ne);
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 3, KT_S(1, nl, 3), lm), KT_OUT(GC_T_FLOAT32, 3, KT_S(1, 4, 4)) };
    cop op = { "Landmarks2TransformMatrix", 2, fb.b, fb.n, { 0 }, 1, { 1 }, 1 };
    int gin[] = { 0 }, gout[] = { 1 };
    gc_model *m = cm_build(t, 2, &op, 1, gin, 1, gout, 1);
    float got[16]; char err[512];
    const void *feeds[] = { lm }; void *outs[] = { got }; size_t sz[] = { 64 };
    for (int p = 0; p < 2; p++) {
        CHECK_MSG(cm_run(m, p ? GC_PREC_FP64 : GC_PREC_FP32, feeds, 1, outs, sz, 1, err, sizeof err), "%s: %s", what, err);
        kt_check_f(got, want, 16, tol, what);
    }
    gc_model_free(m);
}

GC_TEST(kernel_mp_landmarks_to_transform_matrix) {
    /* landmarks: 0 (0,0), 1 (1,0), 2 (4,2), 3 (0,1). Rotation from 0 -> 1: atan2(0, 1) = 0,
     * target 0: r = 0. Subset {0, 2}: box [0,4] x [0,2], size 4 x 2, centre (2, 1).
     * out 8x8, scale_x 2, scale_y 1: sx = 2*4/8 = 1, sy = 1*2/8 = 0.25.
     * M = shift(2,1) scale(1, 0.25) shift(-4,-4) = [1 0 0 -2; 0 .25 0 0; 0 0 1 0; 0 0 0 1] */
    float lm[12] = { 0, 0, 0, 1, 0, 0, 4, 2, 0, 0, 1, 0 };
    int64_t sub[2] = { 0, 2 };
    fb_ent e[] = { FB_V("subset_idxs", sub, 2), FB_I("left_rotation_idx", 0), FB_I("right_rotation_idx", 1),
                   FB_F("target_rotation_radians", 0.0), FB_I("output_height", 8), FB_I("output_width", 8),
                   FB_F("scale_x", 2.0), FB_F("scale_y", 1.0) };
    static const float want0[16] = { 1, 0, 0, -2, 0, 0.25f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    l2m_case(lm, 4, e, 8, want0, 0, "r=0");
    /* rotation from 0 -> 3: atan2(1, 0) = pi/2, r = -pi/2: points (x,y) -> (y,-x): (0,0),
     * (2,-4): size 2 x 4, centre (1,-2) rotated back: (2, 1). sx = 2*2/8 = .5, sy = 4/8 = .5;
     * rot(pi/2) scale(.5) maps (-4,-4) to (2,-2): M = [0 -.5 0 4; .5 0 0 -1; 0 0 1 0; 0 0 0 1] */
    e[2] = (fb_ent)FB_I("right_rotation_idx", 3);
    static const float want1[16] = { 0, -0.5f, 0, 4, 0.5f, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 1 };
    l2m_case(lm, 4, e, 8, want1, 2e-6f, "r=-pi/2");
    /* an odd subset pairs its last index with itself: {2} alone is a point box (size 0):
     * M = shift(4,2) scale(0,0) shift(-4,-4) = translation (4, 2) */
    int64_t one[1] = { 2 };
    e[0] = (fb_ent)FB_V("subset_idxs", one, 1);
    e[2] = (fb_ent)FB_I("right_rotation_idx", 1);
    static const float want2[16] = { 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 1 };
    l2m_case(lm, 4, e, 8, want2, 0, "odd subset");
}

GC_TEST(kernel_mp_landmarks_to_transform_matrix_refusals) {
    float lm[12] = { 0 };
    int64_t sub[2] = { 0, 9 };
    fb_ent e[] = { FB_V("subset_idxs", sub, 2), FB_I("left_rotation_idx", 0), FB_I("right_rotation_idx", 1),
                   FB_F("target_rotation_radians", 0.0), FB_I("output_height", 8), FB_I("output_width", 8),
                   FB_F("scale_x", 2.0), FB_F("scale_y", 1.0) };
    fb_buf fb;
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 3, KT_S(1, 4, 3), lm), KT_OUT(GC_T_FLOAT32, 3, KT_S(1, 4, 4)) };
    int gin[] = { 0 }, gout[] = { 1 };
    float got[16]; char err[512];
    const void *feeds[] = { lm }; void *outs[] = { got }; size_t sz[] = { 64 };
    struct { int ne, version; const char *msg; } c[] = {
        { 8, 2, "subset index 1 = 9 is outside the 4 landmarks" },
        { 5, 2, "custom option 'output_width' is absent" },
        { 8, 1, "version 1 is not supported" } };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        sub[1] = k == 0 ? 9 : 2;
        fb_map(&fb, e, c[k].ne);
        cop op = { "Landmarks2TransformMatrix", c[k].version, fb.b, fb.n, { 0 }, 1, { 1 }, 1 };
        gc_model *m = cm_build(t, 2, &op, 1, gin, 1, gout, 1);
        CHECK(!cm_run(m, GC_PREC_FP32, feeds, 1, outs, sz, 1, err, sizeof err));
        CHECK_MSG(has(err, c[k].msg), "%s", err);
        gc_model_free(m);
    }
    sub[1] = 2;
    e[7] = (fb_ent)FB_F("scale_y", -1.0);
    fb_map(&fb, e, 8);
    cop op = { "Landmarks2TransformMatrix", 2, fb.b, fb.n, { 0 }, 1, { 1 }, 1 };
    gc_model *m = cm_build(t, 2, &op, 1, gin, 1, gout, 1);
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 1, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "scale_x and scale_y must be > 0"), "%s", err);
    gc_model_free(m);
    /* garbage bytes are not a FlexBuffer: every key reads as absent */
    uint8_t junk[5] = { 1, 2, 3, 200, 4 };
    op.opts = junk; op.n_opts = 5;
    m = cm_build(t, 2, &op, 1, gin, 1, gout, 1);
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 1, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "'subset_idxs' is absent"), "%s", err);
    gc_model_free(m);
}

/* ---- TransformLandmarks ------------------------------------------------------------------ */

GC_TEST(kernel_mp_transform_landmarks_v2_v1) {
    /* M rows 0, 1: [2 0 0 1], [0 3 0 -1]: (x, y) -> (2x + 1, 3y - 1), z kept */
    float mat[16] = { 2, 0, 0, 1, 0, 3, 0, -1, 0, 0, 1, 0, 0, 0, 0, 1 };
    float lm3[6] = { 1, 2, 5, 3, 4, 6 }, got[6]; char err[512];
    static const float want3[6] = { 3, 5, 5, 7, 11, 6 };
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 3, KT_S(1, 2, 3), lm3), KT_IN(GC_T_FLOAT32, 3, KT_S(1, 4, 4), mat),
                      KT_OUT(GC_T_FLOAT32, 3, KT_S(1, 2, 3)) };
    cop op = { "TransformLandmarks", 2, NULL, 0, { 0, 1 }, 2, { 2 }, 1 };
    int gin[] = { 0, 1 }, gout[] = { 2 };
    gc_model *m = cm_build(t, 3, &op, 1, gin, 2, gout, 1);
    const void *feeds[] = { lm3, mat }; void *outs[] = { got }; size_t sz[] = { 24 };
    CHECK_MSG(cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err), "%s", err);
    kt_check_f(got, want3, 6, 0, "v2 3-D");
    CHECK_MSG(cm_run(m, GC_PREC_FP64, feeds, 2, outs, sz, 1, err, sizeof err), "%s", err);
    kt_check_f(got, want3, 6, 0, "v2 3-D fp64");
    gc_model_free(m);
    /* 2-D landmarks [1,3,2] */
    t[0] = (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(1, 3, 2), lm3);
    t[2] = (kt_tensor)KT_OUT(GC_T_FLOAT32, 3, KT_S(1, 3, 2));
    m = cm_build(t, 3, &op, 1, gin, 2, gout, 1);
    static const float want2[6] = { 3, 5, 11, 8, 9, 17 };
    CHECK_MSG(cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err), "%s", err);
    kt_check_f(got, want2, 6, 0, "v2 2-D");
    gc_model_free(m);
    /* 5 values per landmark (MediaPipe's x, y, z, visibility, presence) are refused */
    float lm5[5] = { 0 };
    t[0] = (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(1, 1, 5), lm5);
    t[2] = (kt_tensor)KT_OUT(GC_T_FLOAT32, 3, KT_S(1, 1, 5));
    m = cm_build(t, 3, &op, 1, gin, 2, gout, 1);
    size_t sz5[] = { 20 };
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz5, 1, err, sizeof err));
    CHECK_MSG(has(err, "landmarks of 5 values"), "%s", err);
    gc_model_free(m);
    /* v1: [1,1,1,6] of 3-D landmarks, options dimensions 3, scale 2: m3, m7 doubled */
    fb_ent e[] = { FB_I("dimensions", 3), FB_F("scale", 2.0) };
    fb_buf fb; fb_map(&fb, e, 2);
    cop op1 = { "TransformLandmarks", 1, fb.b, fb.n, { 0, 1 }, 2, { 2 }, 1 };
    t[0] = (kt_tensor)KT_IN(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 6), lm3);
    t[2] = (kt_tensor)KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 1, 1, 6));
    m = cm_build(t, 3, &op1, 1, gin, 2, gout, 1);
    static const float want1[6] = { 4, 4, 5, 8, 10, 6 };
    CHECK_MSG(cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err), "%s", err);
    kt_check_f(got, want1, 6, 0, "v1 scale 2");
    gc_model_free(m);
}

/* ---- TransformTensorBilinear ----------------------------------------------------------- */

GC_TEST(kernel_mp_transform_tensor_bilinear) {
    /* x [1,2,2,1] = 1 2 / 3 4, out [1,3,3,1], M rows [.5 0 0 0], [0 .5 0 0].
     * v2 align-corners correction: m3 = 0 + .25 + 0 - .5 = -.25 (m7 likewise), so
     * u = .5 ox - .25: ox 0 -> -.25 (outside: 0), 1 -> .25, 2 -> .75.
     * (u, v) = (.25, .25): upper = .75*1 + .25*2 = 1.25, lower = .75*3 + .25*4 = 3.25,
     * y = .25*3.25 + .75*1.25 = 1.75; (.75,.25): 2.25; (.25,.75): 2.75; (.75,.75): 3.25. */
    float x[4] = { 1, 2, 3, 4 }, mat[16] = { 0.5f, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    float got[9]; char err[512];
    static const float want[9] = { 0, 0, 0, 0, 1.75f, 2.25f, 0, 2.75f, 3.25f };
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 2, 2, 1), x), KT_IN(GC_T_FLOAT32, 3, KT_S(1, 4, 4), mat),
                      KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 3, 3, 1)) };
    fb_ent e[] = { FB_I("output_height", 3), FB_I("output_width", 3) };
    fb_buf fb; fb_map(&fb, e, 2);
    cop op = { "TransformTensorBilinear", 2, fb.b, fb.n, { 0, 1 }, 2, { 2 }, 1 };
    int gin[] = { 0, 1 }, gout[] = { 2 };
    gc_model *m = cm_build(t, 3, &op, 1, gin, 2, gout, 1);
    const void *feeds[] = { x, mat }; void *outs[] = { got }; size_t sz[] = { 36 };
    for (int p = 0; p < 2; p++) {
        CHECK_MSG(cm_run(m, p ? GC_PREC_FP64 : GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err), "%s", err);
        kt_check_f(got, want, 9, 0, p ? "v2 fp64" : "v2");
    }
    gc_model_free(m);
    /* the options disagree with the file's output shape */
    fb_ent e2[] = { FB_I("output_height", 4), FB_I("output_width", 3) };
    op.n_opts = fb_map(&fb, e2, 2);
    m = cm_build(t, 3, &op, 1, gin, 2, gout, 1);
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "disagrees with the options' 4x3"), "%s", err);
    gc_model_free(m);
    /* v1 ("TransformTensor", output_size [3, 3], mode bilinear): no correction, u = .5 ox:
     * 0, .5, 1 (1 = W-1 is inside; its right neighbour reads 0) */
    int64_t hw[2] = { 3, 3 };
    fb_ent e1[] = { FB_S("mode", "bilinear"), FB_V("output_size", hw, 2) };
    fb_map(&fb, e1, 2);
    cop op1 = { "TransformTensor", 1, fb.b, fb.n, { 0, 1 }, 2, { 2 }, 1 };
    m = cm_build(t, 3, &op1, 1, gin, 2, gout, 1);
    CHECK_MSG(cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err), "%s", err);
    /* (0,0) = 1; (0,.5) = 1.5; (0,1) = 2; (.5,.5): upper 1.5, lower 3.5 -> 2.5; (1,1) = 4 */
    static const float want1[9] = { 1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4 };
    kt_check_f(got, want1, 9, 0, "v1");
    gc_model_free(m);
    fb_ent e3[] = { FB_S("mode", "nearest"), FB_V("output_size", hw, 2) };
    op1.n_opts = fb_map(&fb, e3, 2);
    m = cm_build(t, 3, &op1, 1, gin, 2, gout, 1);
    CHECK(!cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 1, err, sizeof err));
    CHECK_MSG(has(err, "mode 'nearest' (bilinear only)"), "%s", err);
    gc_model_free(m);
}
