/* test_kernels_detection.c — TFLite_Detection_PostProcess (kernels/detection.c): fast and
 * regular NMS on four float anchors worked out by hand, class ties, the option checks.
 * (The uint8 SSD of the corpus is bit-identical to LiteRT: tools/coverage.py.) */
#include "test_custom_harness.h"

/* anchors (y, x, h, w); encodings 0 and scales 1 decode each to its anchor's box:
 *   a0 (0,0)-(1,1); a1 (.125,0)-(1.125,1): IoU with a0 = .875/1.125 = .78 (suppressed at .5);
 *   a2 (3,3)-(4,4): disjoint; a3 (0,.5)-(1,1.5): IoU with a0 1/3, with a1 .4375/1.5625.
 * scores [1,4,3]: a background column, then classes 0 and 1 */
static const float anchors[16] = { 0.5f, 0.5f, 1, 1, 0.625f, 0.5f, 1, 1, 3.5f, 3.5f, 1, 1, 0.5f, 1.0f, 1, 1 };
static const float scores[12] = { 0.9f, 0.9f, 0.1f, 0.1f, 0.8f, 0.7f, 0.5f, 0.2f, 0.6f, 0.4f, 0.3f, 0.3f };
static const float box[4][4] = { { 0, 0, 1, 1 }, { 0.125f, 0, 1.125f, 1 }, { 3, 3, 4, 4 }, { 0, 0.5f, 1, 1.5f } };

static bool dpp_run(const fb_ent *e, int ne, int D, float *b, float *c, float *s, float *cnt, char *err, size_t errlen) {
    static float enc[16] = { 0 };
    fb_buf fb; fb_map(&fb, e, ne);
    kt_tensor t[] = { KT_IN(GC_T_FLOAT32, 3, KT_S(1, 4, 4), enc), KT_IN(GC_T_FLOAT32, 3, KT_S(1, 4, 3), scores),
                      KT_C(GC_T_FLOAT32, 2, KT_S(4, 4), anchors), KT_OUT(GC_T_FLOAT32, 3, KT_S(1, D, 4)),
                      KT_OUT(GC_T_FLOAT32, 2, KT_S(1, D)), KT_OUT(GC_T_FLOAT32, 2, KT_S(1, D)), KT_OUT(GC_T_FLOAT32, 1, KT_S(1)) };
    cop op = { "TFLite_Detection_PostProcess", 1, fb.b, fb.n, { 0, 1, 2 }, 3, { 3, 4, 5, 6 }, 4 };
    int gin[] = { 0, 1 }, gout[] = { 3, 4, 5, 6 };
    gc_model *m = cm_build(t, 7, &op, 1, gin, 2, gout, 4);
    const void *feeds[] = { enc, scores }; void *outs[] = { b, c, s, cnt };
    size_t sz[] = { (size_t)D * 16, (size_t)D * 4, (size_t)D * 4, 4 };
    bool ok = cm_run(m, GC_PREC_FP32, feeds, 2, outs, sz, 4, err, errlen);
    gc_model_free(m);
    return ok;
}

static void want_row(const float *b, const float *c, const float *s, int row, int anchor, int klass, float score) {
    for (int k = 0; k < 4; k++) CHECK_MSG(b[4 * row + k] == box[anchor][k], "row %d coord %d: %g vs %g", row, k,
                                          (double)b[4 * row + k], (double)box[anchor][k]);
    CHECK_MSG(c[row] == (float)klass && s[row] == score, "row %d: class %g score %g, want %d %g", row, (double)c[row],
              (double)s[row], klass, (double)score);
}

GC_TEST(kernel_detection_postprocess_fast_nms) {
    /* top class per anchor: a0 c0 .9, a1 c0 .8, a2 c1 .6, a3 c0 .3 (a tie: the first);
     * NMS (>= .25, IoU > .5 drops): a0 kept, a1 dropped, a2 and a3 kept */
    fb_ent e[] = { FB_I("max_detections", 3), FB_I("max_classes_per_detection", 1), FB_I("num_classes", 2),
                   FB_F("nms_score_threshold", 0.25), FB_F("nms_iou_threshold", 0.5), FB_F("y_scale", 1),
                   FB_F("x_scale", 1), FB_F("h_scale", 1), FB_F("w_scale", 1) };
    float b[24], c[6], s[6], n; char err[512];
    CHECK_MSG(dpp_run(e, 9, 3, b, c, s, &n, err, sizeof err), "%s", err);
    CHECK(n == 3);
    want_row(b, c, s, 0, 0, 0, 0.9f); want_row(b, c, s, 1, 2, 1, 0.6f); want_row(b, c, s, 2, 3, 0, 0.3f);
    /* two classes per detection: each kept anchor's classes by decreasing score; a3's tie
     * comes out as libstdc++'s partial_sort leaves it (class 0 first) */
    e[1] = (fb_ent)FB_I("max_classes_per_detection", 2);
    CHECK_MSG(dpp_run(e, 9, 6, b, c, s, &n, err, sizeof err), "%s", err);
    CHECK(n == 3);
    want_row(b, c, s, 0, 0, 0, 0.9f); want_row(b, c, s, 1, 0, 1, 0.1f);
    want_row(b, c, s, 2, 2, 1, 0.6f); want_row(b, c, s, 3, 2, 0, 0.2f);
    want_row(b, c, s, 4, 3, 0, 0.3f); want_row(b, c, s, 5, 3, 1, 0.3f);
    /* a high threshold keeps a0 alone: the other rows are 0 */
    e[1] = (fb_ent)FB_I("max_classes_per_detection", 1);
    e[3] = (fb_ent)FB_F("nms_score_threshold", 0.85);
    CHECK_MSG(dpp_run(e, 9, 3, b, c, s, &n, err, sizeof err), "%s", err);
    CHECK(n == 1);
    want_row(b, c, s, 0, 0, 0, 0.9f);
    for (int i = 4; i < 12; i++) CHECK(b[i] == 0);
    CHECK(s[1] == 0 && s[2] == 0 && c[1] == 0);
}

GC_TEST(kernel_detection_postprocess_regular_nms) {
    /* per class, at most 2: class 0 keeps a0 (.9), a3 (.3) (a1 dropped by a0; a2 .2 < .25);
     * class 1 keeps a1 (.7), a2 (.6) (a3 .3 would be third). Merged by score, cut at 3:
     * a0 c0 .9, a1 c1 .7, a2 c1 .6 */
    fb_ent e[] = { FB_I("max_detections", 3), FB_I("max_classes_per_detection", 1), FB_I("num_classes", 2),
                   FB_F("nms_score_threshold", 0.25), FB_F("nms_iou_threshold", 0.5), FB_F("y_scale", 1),
                   FB_F("x_scale", 1), FB_F("h_scale", 1), FB_F("w_scale", 1), FB_I("use_regular_nms", 1),
                   FB_I("detections_per_class", 2) };
    float b[12], c[3], s[3], n; char err[512];
    CHECK_MSG(dpp_run(e, 11, 3, b, c, s, &n, err, sizeof err), "%s", err);
    CHECK(n == 3);
    want_row(b, c, s, 0, 0, 0, 0.9f); want_row(b, c, s, 1, 1, 1, 0.7f); want_row(b, c, s, 2, 2, 1, 0.6f);
}

GC_TEST(kernel_detection_postprocess_refusals) {
    fb_ent e[] = { FB_I("max_detections", 3), FB_I("max_classes_per_detection", 1), FB_I("num_classes", 2),
                   FB_F("nms_score_threshold", 0.25), FB_F("nms_iou_threshold", 1.5), FB_F("y_scale", 1),
                   FB_F("x_scale", 1), FB_F("h_scale", 1), FB_F("w_scale", 1) };
    float b[12], c[3], s[3], n; char err[512];
    CHECK(!dpp_run(e, 9, 3, b, c, s, &n, err, sizeof err));
    CHECK_MSG(strstr(err, "nms_iou_threshold 1.5 is outside (0, 1]") != NULL, "%s", err);
    CHECK(!dpp_run(e, 4, 3, b, c, s, &n, err, sizeof err));
    CHECK_MSG(strstr(err, "custom option 'nms_iou_threshold' is absent") != NULL, "%s", err);
    e[2] = (fb_ent)FB_I("num_classes", 5);
    e[4] = (fb_ent)FB_F("nms_iou_threshold", 0.5);
    CHECK(!dpp_run(e, 9, 3, b, c, s, &n, err, sizeof err));
    CHECK_MSG(strstr(err, "3 score columns for 5 classes") != NULL, "%s", err);
}
