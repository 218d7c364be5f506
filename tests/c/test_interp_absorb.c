/* test_interp_absorb.c — float ops absorbed into the op after them in fp32 (gc_node.absorbed):
 * a LOGISTIC into the MUL of x and LOGISTIC(x) (swish, elementwise.c) and a PAD of zeros into
 * the DEPTHWISE_CONV_2D or CONV_2D after it (conv.c), a squeeze-excite MUL into the 1x1
 * CONV_2D after it (conv.c absorb_se_mul). Small models, each run fp32 by default, with a
 * node callback (nothing absorbed) and with --reference-kernels: the same bits, and the
 * absorption counted only where allowed (not when the LOGISTIC is also a result, not for a
 * PAD of 1, not for an Inf weight, never in fp16); a swish over a dead x writes y over it.  */
#include "test.h"
#include "interp/interp.h"
#include "model/model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float frand(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return ((float)(*s >> 8) / 16777216.0f - 0.5f) * 24.0f;       /* [-12, 12) */
}

static int on_node_nop(int32_t op, const gc_tview *outs, int n_outs, void *user) {
    (void)op; (void)outs; (void)n_outs; (void)user;
    return 0;
}

static size_t last_arena;           /* run's planned activation peak */

/* run m (one float input of n floats) and copy output 0 (n_out floats); absorbed ops into *abs */
static bool run(gc_model *m, const float *x, size_t n, float *out, size_t n_out, gc_precision p, bool observe,
                bool ref, int *abs) {
    char err[256];
    gc_interp_opts o = { .precision = p, .signature = -1, .reference_kernels = ref,
                         .on_node = observe ? on_node_nop : NULL };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (ok) {
        gc_tview v = gc_interp_input(it, 0);
        ok = v.nbytes == n * sizeof(float);
        if (ok) memcpy(v.data, x, v.nbytes);
    }
    ok = ok && gc_interp_invoke(it) == GC_OK;
    if (ok) {
        gc_tview v = gc_interp_output(it, 0);
        ok = v.nbytes == n_out * sizeof(float);
        if (ok) memcpy(out, v.data, v.nbytes);
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        *abs = st.n_absorbed;
        last_arena = st.arena_bytes;
    }
    if (!ok) fprintf(stderr, "  run failed: %s\n", it ? gc_interp_errmsg(it) : err);
    gc_interp_free(it);
    return ok;
}

static void check_same(const float *a, const float *b, size_t n, const char *what) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], 4) != 0 && !(isnan(a[i]) && isnan(b[i]))) bad++;
    CHECK_MSG(bad == 0, "%s: %zu of %zu outputs differ", what, bad, n);
}

/* x -> LOGISTIC -> s; y = MUL(x, s) or MUL(s, x); s also a result when `s_out`. pre 1: x is
 * not the input but MUL(in, in) (an activation the swish may overwrite: y over x, interp.c
 * plan_aliases); pre 2: that x is read again after the swish (y2 = ADD(y, x), the output) */
static gc_model *swish_model_pre(int n, bool s_first, bool s_out, int pre) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t shp[2] = { 1, n };
    int32_t in = gc_sg_add_tensor(m, sg, "in", GC_T_FLOAT32, 2, shp, 0);
    int32_t x = pre ? gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, shp, 0) : in;
    int32_t s = gc_sg_add_tensor(m, sg, "s", GC_T_FLOAT32, 2, shp, 0);
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 2, shp, 0);
    int32_t lg = gc_model_add_opcode(m, GC_OP_LOGISTIC, NULL, 1), mu = gc_model_add_opcode(m, GC_OP_MUL, NULL, 1);
    int32_t k = 0;
    if (pre) { int32_t sq[2] = { in, in }; gc_sg_insert_op(m, sg, k++, mu, 2, sq, 1, &x); }
    gc_sg_insert_op(m, sg, k++, lg, 1, &x, 1, &s);
    int32_t min[2] = { s_first ? s : x, s_first ? x : s };
    gc_sg_insert_op(m, sg, k++, mu, 2, min, 1, &y);
    int32_t out = y;
    if (pre == 2) {
        out = gc_sg_add_tensor(m, sg, "y2", GC_T_FLOAT32, 2, shp, 0);
        int32_t ad = gc_model_add_opcode(m, GC_OP_ADD, NULL, 1), ain[2] = { y, x };
        gc_sg_insert_op(m, sg, k++, ad, 2, ain, 1, &out);
    }
    int32_t outs[2] = { out, s };
    gc_sg_set_io(m, sg, 1, &in, s_out ? 2 : 1, outs);
    return m;
}
static gc_model *swish_model(int n, bool s_first, bool s_out) { return swish_model_pre(n, s_first, s_out, 0); }

GC_TEST(interp_absorb_swish) {
    enum { N = 1000 };
    static float x[N], ref[N], got[N];
    uint32_t seed = 7;
    for (int i = 0; i < N; i++) x[i] = frand(&seed);
    x[0] = 0.0f; x[1] = -0.0f; x[2] = INFINITY; x[3] = -INFINITY; x[4] = NAN; x[5] = -120.0f; x[6] = 100.0f; x[7] = -95.0f;
    for (int f = 0; f < 2; f++) {
        gc_model *m = swish_model(N, f == 1, false);
        int ab = -1;
        CHECK(run(m, x, N, ref, N, GC_PREC_FP32, false, true, &ab));
        CHECK_EQ_INT(ab, 0);
        CHECK(run(m, x, N, got, N, GC_PREC_FP32, false, false, &ab));
        check_same(got, ref, N, f ? "swish MUL(s, x)" : "swish MUL(x, s)");
        CHECK_EQ_INT(ab, 1);
        CHECK(run(m, x, N, got, N, GC_PREC_FP32, true, false, &ab));   /* a callback sees every op */
        check_same(got, ref, N, "swish observed");
        CHECK_EQ_INT(ab, 0);
        CHECK(run(m, x, N, got, N, GC_PREC_FP16, false, false, &ab));
        CHECK_EQ_INT(ab, 0);
        gc_model_free(m);
    }
    gc_model *m = swish_model(N, false, true);                          /* s is a result too */
    int ab = -1;
    CHECK(run(m, x, N, got, N, GC_PREC_FP32, false, false, &ab));
    CHECK_EQ_INT(ab, 0);
    gc_model_free(m);
    /* x an activation: y written over x when x is dead after the swish (a smaller arena
     * than the reference run's, which keeps both), not when x is read again */
    for (int pre = 1; pre <= 2; pre++)
        for (int f = 0; f < 2; f++) {
            m = swish_model_pre(N, f == 1, false, pre);
            CHECK(run(m, x, N, ref, N, GC_PREC_FP32, false, true, &ab));
            const size_t arena_ref = last_arena;
            CHECK(run(m, x, N, got, N, GC_PREC_FP32, false, false, &ab));
            check_same(got, ref, N, pre == 1 ? "swish over x" : "swish, x read after");
            CHECK_EQ_INT(ab, 1);
            CHECK_MSG(pre == 1 ? last_arena < arena_ref : last_arena == arena_ref, "pre %d: arena %zu vs %zu", pre,
                      last_arena, arena_ref);
            gc_model_free(m);
        }
}

/* x [1, H, W, C] -> PADV2 (value v) -> DEPTHWISE_CONV_2D 3x3 stride 2 VALID (w [1, 3, 3, C]),
 * or with OC > 0 CONV_2D 3x3 stride 2 VALID (w [OC, 3, 3, C]) -> y */
static gc_model *pad_dw_model(int H, int W, int C, int OC, const int32_t *pads, const float *v, const float *w,
                              const float *bias, int *OH, int *OW) {
    const bool conv = OC > 0;
    if (!conv) OC = C;
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t xs[4] = { 1, H, W, C }, ps[2] = { 4, 2 }, one[1] = { 1 };
    int32_t Hp = H + pads[2] + pads[3], Wp = W + pads[4] + pads[5];
    *OH = (Hp - 3) / 2 + 1; *OW = (Wp - 3) / 2 + 1;
    int32_t pshp[4] = { 1, Hp, Wp, C }, ws[4] = { conv ? OC : 1, 3, 3, C }, bs[1] = { OC }, ys[4] = { 1, *OH, *OW, OC };
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 4, xs, 0);
    int32_t pd = gc_sg_add_tensor(m, sg, "pads", GC_T_INT32, 2, ps, (uint32_t)gc_model_add_buffer(m, pads, 8 * 4));
    int32_t pv = gc_sg_add_tensor(m, sg, "v", GC_T_FLOAT32, 1, one, (uint32_t)gc_model_add_buffer(m, v, 4));
    int32_t xp = gc_sg_add_tensor(m, sg, "xp", GC_T_FLOAT32, 4, pshp, 0);
    int32_t wt = gc_sg_add_tensor(m, sg, "w", GC_T_FLOAT32, 4, ws,
                                  (uint32_t)gc_model_add_buffer(m, w, (uint64_t)9 * C * (conv ? OC : 1) * 4));
    int32_t bt = gc_sg_add_tensor(m, sg, "b", GC_T_FLOAT32, 1, bs, (uint32_t)gc_model_add_buffer(m, bias, (uint64_t)OC * 4));
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 4, ys, 0);
    int32_t opad = gc_model_add_opcode(m, GC_OP_PADV2, NULL, 1),
            odw = gc_model_add_opcode(m, conv ? GC_OP_CONV_2D : GC_OP_DEPTHWISE_CONV_2D, NULL, conv ? 1 : 2);
    int32_t pin[3] = { x, pd, pv };
    gc_sg_insert_op(m, sg, 0, opad, 3, pin, 1, &xp);
    int32_t din[3] = { xp, wt, bt };
    int32_t k = gc_sg_insert_op(m, sg, 1, odw, 3, din, 1, &y);
    gc_op *op = &m->subgraphs[sg].ops[k];
    if (conv) {
        gc_opt_init(m, &op->opt, GC_BO_Conv2DOptions);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_padding, 1);                /* VALID */
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_stride_h, 2);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_stride_w, 2);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_dilation_h_factor, 1);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_dilation_w_factor, 1);
        gc_sg_set_io(m, sg, 1, &x, 1, &y);
        return m;
    }
    gc_opt_init(m, &op->opt, GC_BO_DepthwiseConv2DOptions);
    gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_padding, 1);       /* VALID */
    gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_stride_h, 2);
    gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_stride_w, 2);
    gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
    gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_dilation_h_factor, 1);
    gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_dilation_w_factor, 1);
    gc_sg_set_io(m, sg, 1, &x, 1, &y);
    return m;
}

/* the PAD sets and variants through DEPTHWISE_CONV_2D (OC 0) or CONV_2D (OC > 0; C = 3 is
 * the RGB stem conv after the NCHW transpose) */
static void pad_conv_cases(int H, int W, int C, int OC) {
    const int nw = 9 * C * (OC > 0 ? OC : 1), ncol = OC > 0 ? OC : C;
    float *x = malloc((size_t)H * W * C * sizeof *x), *w = malloc((size_t)nw * sizeof *w), *wv = malloc((size_t)nw * sizeof *wv);
    float *bias = malloc((size_t)ncol * sizeof *bias);
    float *ref = malloc((size_t)H * W * ncol * sizeof *ref), *got = malloc((size_t)H * W * ncol * sizeof *got);
    uint32_t seed = 11;
    for (int i = 0; i < H * W * C; i++) x[i] = frand(&seed);
    x[5] = INFINITY; x[77] = NAN;                                   /* inside the image: no matter */
    for (int i = 0; i < nw; i++) w[i] = frand(&seed) * 0.1f;
    w[3] = -0.0f;
    for (int i = 0; i < ncol; i++) bias[i] = frand(&seed);
    const int32_t padsets[3][8] = { { 0, 0, 1, 1, 1, 1, 0, 0 }, { 0, 0, 0, 1, 2, 0, 0, 0 }, { 0, 0, 3, 0, 0, 2, 0, 0 } };
    const float zero = 0.0f, onev = 1.0f;
    for (int ps = 0; ps < 3; ps++)
        for (int variant = 0; variant < 3; variant++) {        /* 0: zeros; 1: a PAD of 1; 2: an Inf weight */
            memcpy(wv, w, (size_t)nw * sizeof *wv);
            if (variant == 2) wv[nw - 1] = INFINITY;
            int OH, OW, ab = -1;
            gc_model *m = pad_dw_model(H, W, C, OC, padsets[ps], variant == 1 ? &onev : &zero, wv, bias, &OH, &OW);
            const size_t ny = (size_t)OH * OW * ncol;
            CHECK(run(m, x, (size_t)H * W * C, ref, ny, GC_PREC_FP32, false, true, &ab));
            CHECK_EQ_INT(ab, 0);
            CHECK(run(m, x, (size_t)H * W * C, got, ny, GC_PREC_FP32, false, false, &ab));
            char what[80];
            snprintf(what, sizeof what, "%s PAD set %d variant %d", OC > 0 ? "CONV_2D" : "DEPTHWISE", ps, variant);
            check_same(got, ref, ny, what);
            CHECK_MSG(ab == (variant == 0), "%s: %d absorbed", what, ab);
            CHECK(run(m, x, (size_t)H * W * C, got, ny, GC_PREC_FP32, true, false, &ab));
            check_same(got, ref, ny, "observed");
            CHECK_EQ_INT(ab, 0);
            gc_model_free(m);
        }
    free(x); free(w); free(wv); free(bias); free(ref); free(got);
}

GC_TEST(interp_absorb_pad_depthwise) { pad_conv_cases(13, 10, 19, 0); }

GC_TEST(interp_absorb_pad_conv) {
    pad_conv_cases(13, 10, 3, 16);
    pad_conv_cases(9, 12, 8, 33);
}

/* Squeeze-excite into the 1x1 CONV_2D after it (conv.c absorb_se_mul): x [1, H, W, C];
 * s = MEAN(x, axes 1 and 2, kept) [1, 1, 1, C]; u = MUL(x, s) or MUL(s, x) (mode 1) or,
 * mode 2, the swish u = MUL(x, LOGISTIC(x)) (the same shapes: not absorbed by the conv, its
 * LOGISTIC is absorbed by the MUL); y = CONV_2D 1x1 (u, w [OC, 1, 1, C], bias) with
 * activation act; u_out: u a result too (then the MUL must run). kh 3: a 3x3 SAME conv
 * instead (not absorbed). */
static gc_model *se_model(int H, int W, int C, int OC, int mode, bool u_out, int act, int kh, const float *w,
                          const float *bias) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t xs[4] = { 1, H, W, C }, ss[4] = { 1, 1, 1, C }, as[1] = { 2 }, ws[4] = { OC, kh, kh, C }, bs[1] = { OC },
            ys[4] = { 1, H, W, OC };
    static const int32_t axes[2] = { 1, 2 };
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 4, xs, 0);
    int32_t ax = gc_sg_add_tensor(m, sg, "axes", GC_T_INT32, 1, as, (uint32_t)gc_model_add_buffer(m, axes, 8));
    int32_t s = gc_sg_add_tensor(m, sg, "s", GC_T_FLOAT32, 4, mode == 2 ? xs : ss, 0);
    int32_t u = gc_sg_add_tensor(m, sg, "u", GC_T_FLOAT32, 4, xs, 0);
    int32_t wt = gc_sg_add_tensor(m, sg, "w", GC_T_FLOAT32, 4, ws,
                                  (uint32_t)gc_model_add_buffer(m, w, (uint64_t)OC * kh * kh * C * 4));
    int32_t bt = gc_sg_add_tensor(m, sg, "b", GC_T_FLOAT32, 1, bs, (uint32_t)gc_model_add_buffer(m, bias, (uint64_t)OC * 4));
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 4, ys, 0);
    int32_t k = 0;
    if (mode == 2) {
        int32_t lg = gc_model_add_opcode(m, GC_OP_LOGISTIC, NULL, 1);
        gc_sg_insert_op(m, sg, k++, lg, 1, &x, 1, &s);
    } else {
        int32_t mo = gc_model_add_opcode(m, GC_OP_MEAN, NULL, 1), min[2] = { x, ax };
        int32_t i = gc_sg_insert_op(m, sg, k++, mo, 2, min, 1, &s);
        gc_op *op = &m->subgraphs[sg].ops[i];
        gc_opt_init(m, &op->opt, GC_BO_ReducerOptions);
        gc_opt_set_int(m, &op->opt, GC_O_ReducerOptions_keep_dims, 1);
    }
    int32_t mu = gc_model_add_opcode(m, GC_OP_MUL, NULL, 1);
    int32_t uin[2] = { mode == 1 ? s : x, mode == 1 ? x : s };
    gc_sg_insert_op(m, sg, k++, mu, 2, uin, 1, &u);
    int32_t co = gc_model_add_opcode(m, GC_OP_CONV_2D, NULL, 1), cin[3] = { u, wt, bt };
    int32_t i = gc_sg_insert_op(m, sg, k++, co, 3, cin, 1, &y);
    gc_op *op = &m->subgraphs[sg].ops[i];
    gc_opt_init(m, &op->opt, GC_BO_Conv2DOptions);
    gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_padding, 0);                    /* SAME */
    gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_dilation_h_factor, 1);
    gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_dilation_w_factor, 1);
    gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_fused_activation_function, act);
    int32_t outs[2] = { y, u };
    gc_sg_set_io(m, sg, 1, &x, u_out ? 2 : 1, outs);
    return m;
}

GC_TEST(interp_absorb_se_mul_conv) {
    enum { H = 5, W = 7, C = 37, OC = 24 };               /* 35 pixels: a partial tile; C: a tail of 5 */
    static float x[H * W * C], w[OC * 9 * C], bias[OC], ref[H * W * OC], got[H * W * OC];
    uint32_t seed = 5;
    for (int i = 0; i < H * W * C; i++) x[i] = frand(&seed);
    for (int i = 0; i < OC * 9 * C; i++) w[i] = frand(&seed) * 0.05f;
    for (int i = 0; i < OC; i++) bias[i] = frand(&seed);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { x[3] = INFINITY; x[100] = NAN; x[C + 1] = -INFINITY; }   /* pixel 2 gets NaN too */
        for (int mode = 0; mode < 3; mode++)
            for (int variant = 0; variant < 4; variant++) {   /* 0: plain; 1: RELU6; 2: u a result; 3: 3x3 */
                const int act = variant == 1 ? 3 : 0, kh = variant == 3 ? 3 : 1;
                gc_model *m = se_model(H, W, C, OC, mode, variant == 2, act, kh, w, bias);
                int ab = -1;
                char what[96];
                snprintf(what, sizeof what, "SE mode %d variant %d pass %d", mode, variant, pass);
                CHECK(run(m, x, (size_t)H * W * C, ref, (size_t)H * W * OC, GC_PREC_FP32, false, true, &ab));
                CHECK_EQ_INT(ab, 0);
                CHECK(run(m, x, (size_t)H * W * C, got, (size_t)H * W * OC, GC_PREC_FP32, false, false, &ab));
                check_same(got, ref, (size_t)H * W * OC, what);
                /* mode 2: only the swish's LOGISTIC; else the MUL when the conv is 1x1 and u unseen */
                const int want = mode == 2 ? 1 : variant == 2 || variant == 3 ? 0 : 1;
                CHECK_MSG(ab == want, "%s: %d absorbed, want %d", what, ab, want);
                CHECK(run(m, x, (size_t)H * W * C, got, (size_t)H * W * OC, GC_PREC_FP32, true, false, &ab));
                check_same(got, ref, (size_t)H * W * OC, "observed");
                CHECK_EQ_INT(ab, 0);
                gc_model_free(m);
            }
    }
}

/* The swish as the conv's epilogue (interp.c plan_swish_epilogue, conv.c swish_epi):
 * x [1, H, W, C] -> conv -> c; [mode 1: z = ADD(c, c), a second output, read between];
 * s = LOGISTIC(c); y = MUL(c, s) [mode 2: c a result too]. kind 0: CONV_2D 1x1; 1: CONV_2D
 * 3x3 SAME; 2: DEPTHWISE_CONV_2D 3x3 SAME (OC = C). The conv does the swish (LOGISTIC and
 * MUL absorbed: 2) only in mode 0; else the MUL runs (the LOGISTIC absorbed by it: 1). */
static gc_model *conv_swish_model(int H, int W, int C, int OC, int kind, int mode, const float *w, const float *bias) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    const int kh = kind == 0 ? 1 : 3;
    int32_t xs[4] = { 1, H, W, C }, ws[4] = { kind == 2 ? 1 : OC, kh, kh, kind == 2 ? OC : C }, bs[1] = { OC },
            ys[4] = { 1, H, W, OC };
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 4, xs, 0);
    int32_t wt = gc_sg_add_tensor(m, sg, "w", GC_T_FLOAT32, 4, ws,
                                  (uint32_t)gc_model_add_buffer(m, w, (uint64_t)OC * kh * kh * (kind == 2 ? 1 : C) * 4));
    int32_t bt = gc_sg_add_tensor(m, sg, "b", GC_T_FLOAT32, 1, bs, (uint32_t)gc_model_add_buffer(m, bias, (uint64_t)OC * 4));
    int32_t c = gc_sg_add_tensor(m, sg, "c", GC_T_FLOAT32, 4, ys, 0), s = gc_sg_add_tensor(m, sg, "s", GC_T_FLOAT32, 4, ys, 0);
    int32_t z = gc_sg_add_tensor(m, sg, "z", GC_T_FLOAT32, 4, ys, 0), y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 4, ys, 0);
    int32_t co = gc_model_add_opcode(m, kind == 2 ? GC_OP_DEPTHWISE_CONV_2D : GC_OP_CONV_2D, NULL, kind == 2 ? 2 : 1);
    int32_t cin[3] = { x, wt, bt }, k = 0;
    int32_t i = gc_sg_insert_op(m, sg, k++, co, 3, cin, 1, &c);
    gc_op *op = &m->subgraphs[sg].ops[i];
    if (kind == 2) {
        gc_opt_init(m, &op->opt, GC_BO_DepthwiseConv2DOptions);
        gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_padding, 0);
        gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_stride_h, 1);
        gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_stride_w, 1);
        gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
        gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_dilation_h_factor, 1);
        gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_dilation_w_factor, 1);
    } else {
        gc_opt_init(m, &op->opt, GC_BO_Conv2DOptions);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_padding, 0);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_stride_h, 1);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_stride_w, 1);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_dilation_h_factor, 1);
        gc_opt_set_int(m, &op->opt, GC_O_Conv2DOptions_dilation_w_factor, 1);
    }
    if (mode == 1) {
        int32_t ad = gc_model_add_opcode(m, GC_OP_ADD, NULL, 1), ain[2] = { c, c };
        gc_sg_insert_op(m, sg, k++, ad, 2, ain, 1, &z);
    }
    int32_t lg = gc_model_add_opcode(m, GC_OP_LOGISTIC, NULL, 1), mu = gc_model_add_opcode(m, GC_OP_MUL, NULL, 1);
    gc_sg_insert_op(m, sg, k++, lg, 1, &c, 1, &s);
    int32_t min[2] = { c, s };
    gc_sg_insert_op(m, sg, k++, mu, 2, min, 1, &y);
    int32_t outs[2] = { y, mode == 1 ? z : c };
    gc_sg_set_io(m, sg, 1, &x, mode == 0 ? 1 : 2, outs);
    return m;
}

GC_TEST(interp_absorb_conv_swish_epilogue) {
    enum { H = 6, W = 7, C = 19, OC = 21 };              /* 42 pixels: a partial tile */
    static float x[H * W * C], w[OC * 9 * C], bias[OC], ref[H * W * OC], got[H * W * OC];
    uint32_t seed = 9;
    for (int i = 0; i < H * W * C; i++) x[i] = frand(&seed);
    for (int i = 0; i < OC * 9 * C; i++) w[i] = frand(&seed) * 0.5f;   /* sums past +-100: expf's edges */
    for (int i = 0; i < OC; i++) bias[i] = frand(&seed);
    x[10] = INFINITY; x[200] = NAN; x[400] = -INFINITY;
    for (int kind = 0; kind < 3; kind++)
        for (int mode = 0; mode < 3; mode++) {
            const int oc = kind == 2 ? C : OC;
            const size_t ny = (size_t)H * W * oc;
            gc_model *m = conv_swish_model(H, W, C, oc, kind, mode, w, bias);
            int ab = -1;
            char what[64];
            snprintf(what, sizeof what, "conv swish kind %d mode %d", kind, mode);
            CHECK(run(m, x, (size_t)H * W * C, ref, ny, GC_PREC_FP32, false, true, &ab));
            CHECK_EQ_INT(ab, 0);
            CHECK(run(m, x, (size_t)H * W * C, got, ny, GC_PREC_FP32, false, false, &ab));
            check_same(got, ref, ny, what);
            CHECK_MSG(ab == (mode == 0 ? 2 : 1), "%s: %d absorbed", what, ab);
            CHECK(run(m, x, (size_t)H * W * C, got, ny, GC_PREC_FP32, true, false, &ab));
            check_same(got, ref, ny, "observed");
            CHECK_EQ_INT(ab, 0);
            gc_model_free(m);
        }
}
