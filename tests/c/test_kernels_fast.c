/* test_kernels_fast.c — the fast kernels (kernels/gemm_f32.h and its half modes,
 * dwconv_f32.h, tconv_f32.h, the fast Winograd of winograd16_fast.c) give exactly the
 * reference kernels' bits (opts.reference_kernels), in every precision that runs them
 * (fp32; fp16 as the native and the js runtime compute it: float sums, half sums in small
 * convs, F32_F16 slices in FULLY_CONNECTED, Winograd in half; fp16-acc: every multiply-add
 * in half), at every instruction-set level this CPU has (gc_isa_force: scalar, avx2,
 * avx512), single- and multi-threaded, over randomized shapes: odd sizes, strides,
 * dilations, SAME / VALID padding, groups, 1..9 and wider output channels, every fused
 * activation, with and without bias; plus the cases the fast path must refuse (Inf
 * weights with padding taps, also a weight past the half range in the fp16 modes, depth
 * multiplier 2, a run-time bias) and still match. Each case also checks which path ran
 * (ops_fast).
 */
#include "test_kernels_harness.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/fp16_model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {                     /* xorshift64* */
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (uint32_t)((rs * 0x2545f4914f6cdd1dull) >> 32);
}
static int irand(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static float frand(void) { return ((float)(rnd() >> 8) / 16777216.0f) * 2.0f - 1.0f; }
/* scale of every case's inputs and weights (kernels_fast_big_values: sums past the half range) */
static float big = 1.0f;
static float *fill(size_t n, float scale) {
    scale *= big;
    float *p = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = frand() * scale;
    return p;
}

/* The precisions every case runs in. */
typedef struct { gc_precision prec; gc_f16_runtime rt; const char *name; gc_float_arith fa; } prec_mode;
static const prec_mode modes[] = {
    { GC_PREC_FP32, GC_GPU_NATIVE, "fp32 muladd", GC_FLOAT_MULADD },
    { GC_PREC_FP16, GC_GPU_NATIVE, "fp16 native", GC_FLOAT_DEFAULT },
    { GC_PREC_FP16, GC_GPU_JS, "fp16 js", GC_FLOAT_DEFAULT },
    { GC_PREC_FP16_ACC, GC_GPU_NATIVE, "fp16-acc", GC_FLOAT_DEFAULT },
    { GC_PREC_FP32, GC_GPU_NATIVE, "fp32 fma", GC_FLOAT_FMA },  /* GC_GEMM_F32_FMA, GC_DWF_FMA */
};
enum { N_MODES = sizeof modes / sizeof modes[0] };

/* Run the one-op model; copy output 0 into *out (malloc'd), its size into *nbytes. */
static bool run(kt_model *r, const kt_tensor *ins, int n_in, const prec_mode *pm, bool ref, int threads, float **out,
                size_t *nbytes, int *n_fast) {
    char err[512];
    gc_interp_opts o = { .precision = pm->prec, .gpu_runtime = pm->rt, .signature = -1, .threads = threads,
                         .reference_kernels = ref, .float_arith = pm->fa };
    gc_interp *it = gc_interp_new(r->m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (!ok) fprintf(stderr, "  prepare: %s\n", it ? gc_interp_errmsg(it) : err);
    int g = 0;
    for (int i = 0; ok && i < n_in; i++) {
        if (ins[i].type < 0 || ins[i].data) continue;
        gc_tview v = gc_interp_input(it, g++);
        memcpy(v.data, ins[i].feed, v.nbytes);
    }
    if (ok && gc_interp_invoke(it) != GC_OK) { fprintf(stderr, "  invoke: %s\n", gc_interp_errmsg(it)); ok = false; }
    if (ok) {
        gc_tview v = gc_interp_output(it, 0);
        *nbytes = v.nbytes;
        *out = malloc(v.nbytes ? v.nbytes : 1);
        memcpy(*out, v.data, v.nbytes);
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        *n_fast = st.n_fast;
    }
    gc_interp_free(it);
    return ok;
}

/* Same bits, or both NaN. */
static size_t first_diff(const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        memcpy(&x, &a[i], 4); memcpy(&y, &b[i], 4);
        if (x != y && !(isnan(a[i]) && isnan(b[i]))) return i;
    }
    return n;
}

static int n_cases, n_fast_cases;

/* In each precision: the reference once, then the fast kernels at each level (1 and 3
 * threads): identical, and the fast path taken exactly when `want_fast` (fp32) /
 * `want_fast16` (the fp16 modes). */
/* FULLY_CONNECTED / BATCH_MATMUL cases set their M, K, N here: the native fp16 model
 * runs the shapes off the matrix cores (half2 FMA chains) on the reference loop only (fc.c) */
static int64_t case_m, case_k, case_n;
static bool case_bmm;

static void compare2(kt_model *r, const kt_tensor *ins, int n_in, bool want_fast, bool want_fast16, const char *what) {
    for (int mi = 0; mi < N_MODES; mi++) {
        const prec_mode *pm = &modes[mi];
        bool wf = pm->prec == GC_PREC_FP32 ? want_fast : want_fast16;
        (void)case_m; (void)case_k; (void)case_n; (void)case_bmm;   /* every mode has fast kernels now */
        float *want = NULL; size_t nw = 0; int nf = 0;
        CHECK_MSG(run(r, ins, n_in, pm, true, 1, &want, &nw, &nf), "%s [%s]: reference run failed", what, pm->name);
        if (!want) continue;
        CHECK_MSG(nf == 0, "%s [%s]: reference run used %d fast kernels", what, pm->name, nf);
        n_cases++;
        n_fast_cases += wf;
        for (int isa = GC_ISA_SCALAR; isa <= (int)gc_isa_detect(); isa++) {
            gc_isa_force(isa);
            for (int threads = 1; threads <= 3; threads += 2) {
                float *got = NULL; size_t ng = 0;
                bool ok = run(r, ins, n_in, pm, false, threads, &got, &ng, &nf);
                CHECK_MSG(ok, "%s [%s]: fast run failed (isa %s)", what, pm->name, gc_isa_name((gc_isa)isa));
                if (ok) {
                    CHECK_MSG(nf == (wf ? 1 : 0), "%s [%s]: isa %s: %d fast kernels, expected %d", what, pm->name,
                              gc_isa_name((gc_isa)isa), nf, wf ? 1 : 0);
                    CHECK_MSG(ng == nw, "%s [%s]: %zu bytes vs %zu", what, pm->name, ng, nw);
                    size_t d = ng == nw ? first_diff(got, want, nw / 4) : 0;
                    CHECK_MSG(d == nw / 4, "%s [%s]: isa %s, %d threads: output[%zu] = %.9g, reference %.9g", what,
                              pm->name, gc_isa_name((gc_isa)isa), threads, d, d < nw / 4 ? (double)got[d] : 0.0,
                              d < nw / 4 ? (double)want[d] : 0.0);
                }
                free(got);
            }
        }
        gc_isa_force(-1);
        free(want);
    }
}
static void compare(kt_model *r, const kt_tensor *ins, int n_in, bool want_fast, const char *what) {
    compare2(r, ins, n_in, want_fast, want_fast, what);
}

static int32_t out_dim(int32_t in, int32_t k, int32_t s, int32_t d, bool same) {
    int32_t e = (k - 1) * d + 1;
    return same ? (in + s - 1) / s : (in - e + s) / s;
}

/* One CONV_2D (dw = false) or DEPTHWISE_CONV_2D case. x_special: put Inf / NaN into x;
 * w_inf: two Inf weights (a centre and a corner tap); w_big (conv_case_big): a weight of 70000, finite in fp32 and Inf
 * once rounded to half. */
static bool w_big;
static void conv_case(bool dw, int B, int H, int W, int C, int G, int OCg, int mult, int KH, int KW, int sh, int sw,
                      int dh, int dwl, bool same, int act, bool bias, bool x_special, bool w_inf) {
    int ICg = C / G, OC = dw ? C * mult : G * OCg;
    int32_t OH = out_dim(H, KH, sh, dh, same), OW = out_dim(W, KW, sw, dwl, same);
    if (OH <= 0 || OW <= 0) return;
    size_t nx = (size_t)B * H * W * C, nw = dw ? (size_t)KH * KW * OC : (size_t)OC * KH * KW * ICg;
    float *x = fill(nx, 2.0f), *w = fill(nw, 1.0f), *b = fill((size_t)OC, 0.5f);
    if (x_special && nx > 2) { x[nx / 2] = INFINITY; x[nx / 3] = NAN; x[0] = -INFINITY; }
    if (w_inf) { w[nw / 2] = INFINITY; w[0] = -INFINITY; }   /* a centre tap and a corner tap (outside the image at a border) */
    if (w_big) w[nw / 3] = 70000.0f;
    kt_tensor ins[3] = {
        KT_IN(GC_T_FLOAT32, 4, KT_S(B, H, W, C), x),
        dw ? (kt_tensor)KT_C(GC_T_FLOAT32, 4, KT_S(1, KH, KW, OC), w) : (kt_tensor)KT_C(GC_T_FLOAT32, 4, KT_S(OC, KH, KW, ICg), w),
        bias ? (kt_tensor)KT_C(GC_T_FLOAT32, 1, KT_S(OC), b) : (kt_tensor){ .type = -1 },
    };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(B, OH, OW, OC)) };
    kt_model r = kt_build(dw ? GC_OP_DEPTHWISE_CONV_2D : GC_OP_CONV_2D,
                          dw ? GC_BO_DepthwiseConv2DOptions : GC_BO_Conv2DOptions, ins, 3, outs, 1);
    kt_conv_opts(&r, dw, same, sh, sw, dh, dwl, mult, act);
    /* padding taps: some output reads outside the input */
    int pt = same ? ((OH - 1) * sh + (KH - 1) * dh + 1 - H) / 2 : 0, pl = same ? ((OW - 1) * sw + (KW - 1) * dwl + 1 - W) / 2 : 0;
    bool pad = pt > 0 || pl > 0 || (OH - 1) * sh - (pt > 0 ? pt : 0) + (KH - 1) * dh >= H ||
               (OW - 1) * sw - (pl > 0 ? pl : 0) + (KW - 1) * dwl >= W;
    bool want_fast = dw ? mult == 1 : !(w_inf && pad);
    bool want_fast16 = dw ? mult == 1 : !((w_inf || w_big) && pad);
    char what[256];
    snprintf(what, sizeof what, "%s B%d %dx%dx%d G%d OCg%d m%d k%dx%d s%dx%d d%dx%d %s act%d bias%d xs%d winf%d wbig%d",
             dw ? "DEPTHWISE" : "CONV", B, H, W, C, G, OCg, mult, KH, KW, sh, sw, dh, dwl, same ? "SAME" : "VALID", act,
             bias, x_special, w_inf, w_big);
    compare2(&r, ins, 3, want_fast, want_fast16, what);
    gc_model_free(r.m);
    free(x); free(w); free(b);
}

GC_TEST(kernels_fast_conv_random) {
    for (int i = 0; i < 120; i++) {
        int G = irand(1, 6) == 1 ? irand(2, 3) : 1;
        int ICg = irand(1, 13), OCg;
        int pick = irand(0, 3);
        OCg = pick == 0 ? irand(1, 9) : pick == 1 ? irand(10, 20) : pick == 2 ? irand(21, 40) : irand(41, 70);
        int KH = irand(1, 4), KW = irand(1, 4);
        if (irand(0, 3) == 0) KH = KW = 1;
        conv_case(false, irand(1, 2), irand(1, 11), irand(1, 13), ICg * G, G, OCg, 1, KH, KW, irand(1, 3), irand(1, 3),
                  irand(1, 2), irand(1, 2), irand(0, 1), irand(0, 3), irand(0, 3) != 0, irand(0, 9) == 0, false);
    }
    CHECK_MSG(n_fast_cases > 0, "no case took the fast path");
}

GC_TEST(kernels_fast_conv_edges) {
    /* 1..9 output channels, a 1x1 conv as a GEMM, big K, non-finite weights */
    for (int oc = 1; oc <= 9; oc++) conv_case(false, 1, 9, 7, 5, 1, oc, 1, 3, 3, 1, 1, 1, 1, true, oc % 4, true, false, false);
    conv_case(false, 1, 17, 19, 33, 1, 47, 1, 1, 1, 1, 1, 1, 1, false, 3, true, false, false);
    conv_case(false, 1, 6, 6, 160, 1, 35, 1, 3, 3, 2, 2, 1, 1, true, 1, true, false, false);
    conv_case(false, 1, 1, 1, 7, 1, 3, 1, 1, 1, 1, 1, 1, 1, false, 0, false, false, false);     /* one pixel */
    conv_case(false, 1, 8, 8, 4, 1, 16, 1, 3, 3, 1, 1, 1, 1, true, 0, true, false, true);      /* Inf, padding: reference */
    conv_case(false, 1, 8, 8, 4, 1, 16, 1, 3, 3, 1, 1, 1, 1, false, 0, true, false, true);     /* Inf, VALID: fast */
    conv_case(false, 2, 9, 9, 6, 2, 5, 1, 2, 3, 2, 1, 2, 1, true, 2, false, true, false);      /* Inf / NaN in x */
    /* a weight past the half range: Inf in the fp16 modes, so padding taps refuse the fast path there */
    w_big = true;
    conv_case(false, 1, 8, 8, 4, 1, 16, 1, 3, 3, 1, 1, 1, 1, true, 0, true, false, false);
    conv_case(false, 1, 8, 8, 4, 1, 16, 1, 3, 3, 1, 1, 1, 1, false, 0, true, false, false);
    w_big = false;
    /* 1..4 input channels: the native runtime sums in half (its small convs), a 3-channel stem */
    for (int ic = 1; ic <= 4; ic++) conv_case(false, 1, 13, 11, ic, 1, 8 + ic * 5, 1, 3, 3, 2, 2, 1, 1, true, 3, true, false, false);
    conv_case(false, 1, 33, 31, 3, 1, 16, 1, 3, 3, 2, 2, 1, 1, true, 3, true, false, false);
}

/* The AVX-512 tile kernel over every panel (gemm_f32_avx512.c k_all): full 16-column panels
 * in zmm, a last panel of 1..8 columns in ymm, of 9..15 in a masked zmm, last tiles of
 * 1..4 / 5..8 / 9..16 rows (the 4-, 8- and 16-row kernels); with and without
 * an activation (the clamp is skipped only without one), with and without a bias, pixel
 * counts that leave a partial tile, small K (16, 24) and groups (the bias and panels of
 * group g), Inf / NaN in x. */
GC_TEST(kernels_fast_conv_panels) {
    static const int ocs[] = { 1, 5, 8, 9, 15, 16, 17, 24, 31, 40, 41, 48 };
    for (size_t i = 0; i < sizeof ocs / sizeof ocs[0]; i++)
        for (int act = 0; act <= 3; act += 3) {
            conv_case(false, 1, 5, 7, 16, 1, ocs[i], 1, 1, 1, 1, 1, 1, 1, false, act, act == 0, false, false);
            conv_case(false, 1, 6, 6, 24, 1, ocs[i], 1, 1, 1, 1, 1, 1, 1, true, act, true, i % 3 == 0, false);
            conv_case(false, 2, 3, 5, 6, 2, ocs[i], 1, 1, 1, 1, 1, 1, 1, false, act, act != 0, i % 2 == 0, false);
            conv_case(false, 1, 7, 6, 5, 1, ocs[i], 1, 3, 3, 1, 1, 1, 1, true, act, true, i % 4 == 1, false);
            /* last tiles of 5 and 8 rows (the 8-row kernel), 1..4 rows (the 4-row one) */
            conv_case(false, 1, 3, 7, 20, 1, ocs[i], 1, 1, 1, 1, 1, 1, 1, false, act, true, i % 5 == 2, false);
            conv_case(false, 1, 4, 6, 9, 1, ocs[i], 1, 1, 1, 1, 1, 1, 1, false, act, act == 0, false, false);
            conv_case(false, 1, 1, 1 + (int)i % 4, 33, 1, ocs[i], 1, 1, 1, 1, 1, 1, 1, false, act, true, false, false);
        }
    CHECK_MSG(n_fast_cases > 0, "no case took the fast path");
}

/* The native runtime's small conv sums in half and rounds acc + bias itself, before the
 * saturating store: 65504 + 16 rounds to Inf there (and would store as 65504 unrounded). */
GC_TEST(kernels_fast_small_conv_saturation) {
    enum { H = 5, W = 6, OC = 19 };
    float x[H * W], w[OC], b[OC];
    for (int i = 0; i < H * W; i++) x[i] = i % 3 ? 255.875f : -255.875f;
    for (int i = 0; i < OC; i++) { w[i] = 256.0f; b[i] = i % 2 ? 16.0f : 8.0f; }
    kt_tensor ins[3] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, H, W, 1), x), KT_C(GC_T_FLOAT32, 4, KT_S(OC, 1, 1, 1), w),
                         KT_C(GC_T_FLOAT32, 1, KT_S(OC), b) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, H, W, OC)) };
    kt_model r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_padding, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    compare(&r, ins, 3, true, "CONV 1x1, 65504 + bias");
    float *got = NULL; size_t ng = 0; int nf = 0;
    CHECK(run(&r, ins, 3, &modes[1], false, 1, &got, &ng, &nf));
    /* pixel 0 (x < 0): -65504 + 8 -> -65504, -65504 + 16 (a tie) -> -65472; pixel 1: 65504 + 8 -> 65504,
     * 65504 + 16 = 65520 -> Inf */
    if (got) CHECK_MSG(got[0] == -65504.0f && got[1] == -65472.0f && got[OC] == 65504.0f && isinf(got[OC + 1]) &&
                       got[OC + 1] > 0, "native fp16: %g %g %g %g", (double)got[0], (double)got[1], (double)got[OC],
                       (double)got[OC + 1]);
    free(got);
    gc_model_free(r.m);
}

/* 3x3 stride-1 convolutions with >= 61 channels each way and >= 32 output tiles: the
 * native fp16 mode runs them as Winograd F(4x4, 3x3) in half (fast: per-point GEMMs and
 * vectorised transforms), the other modes as plain convolutions. Channel tails, partial
 * tiles at the bottom and right, padding, two images, activations, no bias. */
GC_TEST(kernels_fast_winograd) {
    conv_case(false, 1, 24, 24, 64, 1, 64, 1, 3, 3, 1, 1, 1, 1, true, 0, true, false, false);
    conv_case(false, 2, 22, 26, 61, 1, 70, 1, 3, 3, 1, 1, 1, 1, true, 3, false, false, false);
    conv_case(false, 1, 30, 27, 67, 1, 65, 1, 3, 3, 1, 1, 1, 1, false, 1, true, false, false);
    conv_case(false, 1, 23, 25, 64, 1, 64, 1, 3, 3, 1, 1, 1, 1, true, 2, true, true, false);    /* Inf / NaN in x */
}

GC_TEST(kernels_fast_depthwise_random) {
    for (int i = 0; i < 100; i++) {
        int K = irand(0, 4) == 0 ? irand(4, 7) : irand(1, 3) * 2 - 1;
        int KW = irand(0, 5) == 0 ? irand(1, 5) : K;
        conv_case(true, irand(1, 2), irand(1, 21), irand(1, 23), irand(1, 40), 1, 0, irand(0, 7) == 0 ? 2 : 1, K, KW,
                  irand(1, 2), irand(1, 2), irand(1, 2), irand(1, 2), irand(0, 1), irand(0, 3), irand(0, 3) != 0,
                  irand(0, 9) == 0, irand(0, 9) == 0);
    }
    /* the window kernels' geometries, wide rows, a channel tail */
    /* border blocks with an Inf weight (dwconv_f32.c dw_row zpad: their taps outside the
     * image are skipped, not staged as zeros: 0 * Inf is NaN) and with Inf / NaN in x */
    conv_case(true, 1, 12, 21, 19, 1, 0, 1, 3, 3, 1, 1, 1, 1, true, 0, true, false, true);
    conv_case(true, 1, 12, 21, 19, 1, 0, 1, 5, 5, 2, 2, 1, 1, true, 3, true, true, true);
    conv_case(true, 1, 12, 21, 24, 1, 0, 1, 5, 5, 1, 1, 1, 1, true, 3, false, true, false);
    /* 3 taps 4 apart (the AVX2 kind 6), SAME and VALID, a tail, an Inf weight */
    conv_case(true, 1, 23, 27, 21, 1, 0, 1, 3, 3, 1, 1, 4, 4, true, 0, true, false, false);
    conv_case(true, 1, 23, 27, 16, 1, 0, 1, 3, 3, 1, 1, 4, 4, true, 3, true, true, true);
    conv_case(true, 1, 23, 27, 24, 1, 0, 1, 3, 3, 1, 1, 4, 4, false, 0, false, false, false);
    conv_case(true, 1, 33, 33, 35, 1, 0, 1, 3, 3, 1, 1, 1, 1, true, 3, true, false, false);
    conv_case(true, 1, 33, 33, 35, 1, 0, 1, 3, 3, 1, 1, 2, 2, true, 3, true, false, false);
    conv_case(true, 1, 34, 35, 48, 1, 0, 1, 3, 3, 2, 2, 1, 1, true, 0, true, false, false);
    conv_case(true, 1, 20, 29, 17, 1, 0, 1, 5, 5, 1, 1, 1, 1, true, 1, false, false, false);
    conv_case(true, 1, 20, 29, 17, 1, 0, 1, 5, 5, 1, 1, 1, 1, false, 2, true, false, true);
    conv_case(true, 1, 5, 6, 16, 1, 0, 1, 3, 3, 1, 1, 1, 1, true, 0, true, true, false);
    /* 5 x 5 stride 2 (SAME and VALID, a tail, Inf / NaN in x); rows of exactly 7 pixels
     * (row7_512: every window kind, SAME with checks, VALID without, a channel tail) */
    conv_case(true, 1, 31, 37, 35, 1, 0, 1, 5, 5, 2, 2, 1, 1, true, 3, true, false, false);
    conv_case(true, 1, 29, 40, 32, 1, 0, 1, 5, 5, 2, 2, 1, 1, false, 0, true, true, false);
    conv_case(true, 1, 7, 7, 72, 1, 0, 1, 5, 5, 1, 1, 1, 1, true, 0, true, false, false);
    conv_case(true, 2, 7, 7, 35, 1, 0, 1, 3, 3, 1, 1, 1, 1, true, 3, true, true, false);
    conv_case(true, 1, 14, 14, 48, 1, 0, 1, 5, 5, 2, 2, 1, 1, true, 1, true, false, false);
    conv_case(true, 1, 13, 13, 33, 1, 0, 1, 5, 5, 2, 2, 1, 1, false, 0, false, false, false);
    conv_case(true, 1, 14, 14, 64, 1, 0, 1, 3, 3, 2, 2, 1, 1, true, 0, true, false, false);
    conv_case(true, 1, 11, 11, 40, 1, 0, 1, 5, 5, 1, 1, 1, 1, false, 2, true, false, false);
    conv_case(true, 1, 9, 11, 16, 1, 0, 1, 3, 3, 1, 1, 2, 2, false, 0, true, false, false);
    conv_case(true, 1, 7, 7, 17, 1, 0, 1, 3, 3, 1, 1, 2, 2, true, 0, true, false, true);
    /* rows shorter than the pixel block with several channel blocks (summed side by side):
     * a 31 x 1 filter over W = 1 (conformer), 2, 3 and 4 full blocks, a tail, padding */
    conv_case(true, 2, 40, 1, 80, 1, 0, 1, 31, 1, 1, 1, 1, 1, true, 0, true, false, false);
    conv_case(true, 1, 9, 3, 72, 1, 0, 1, 3, 3, 1, 1, 1, 1, true, 3, true, true, false);
    conv_case(true, 1, 7, 5, 35, 1, 0, 1, 3, 3, 2, 1, 1, 1, false, 1, false, false, false);
    conv_case(true, 1, 6, 4, 48, 1, 0, 1, 5, 5, 1, 1, 1, 2, true, 0, true, false, true);
}

/* TRANSPOSE_CONV (output_shape, filter [OC, KH, KW, C], x, bias?): output OH x OW given. */
static void tconv_case(int B, int H, int W, int C, int OC, int KH, int KW, int sh, int sw, bool same, int act,
                       bool bias, bool w_inf) {
    int32_t OH = same ? H * sh : (H - 1) * sh + KH, OW = same ? W * sw : (W - 1) * sw + KW;
    int32_t oshape[4] = { B, OH, OW, OC };
    size_t nx = (size_t)B * H * W * C, nw = (size_t)OC * KH * KW * C;
    float *x = fill(nx, 2.0f), *w = fill(nw, 1.0f), *b = fill((size_t)OC, 0.5f);
    if (w_inf) w[nw / 2] = -INFINITY;
    kt_tensor ins[4] = {
        KT_C(GC_T_INT32, 1, KT_S(4), oshape),
        KT_C(GC_T_FLOAT32, 4, KT_S(OC, KH, KW, C), w),
        KT_IN(GC_T_FLOAT32, 4, KT_S(B, H, W, C), x),
        bias ? (kt_tensor)KT_C(GC_T_FLOAT32, 1, KT_S(OC), b) : (kt_tensor){ .type = -1 },
    };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(B, OH, OW, OC)) };
    kt_model r = kt_build(GC_OP_TRANSPOSE_CONV, GC_BO_TransposeConvOptions, ins, 4, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_padding, same ? 0 : 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_h, sh);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_stride_w, sw);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_TransposeConvOptions_fused_activation_function, act);
    char what[160];
    snprintf(what, sizeof what, "TCONV B%d %dx%dx%d->%d k%dx%d s%dx%d %s act%d bias%d winf%d", B, H, W, C, OC, KH, KW,
             sh, sw, same ? "SAME" : "VALID", act, bias, w_inf);
    compare(&r, ins, 4, !w_inf, what);
    gc_model_free(r.m);
    free(x); free(w); free(b);
}

GC_TEST(kernels_fast_transpose_conv) {
    for (int i = 0; i < 50; i++)
        tconv_case(irand(1, 2), irand(1, 9), irand(1, 11), irand(1, 20), irand(1, 40), irand(1, 5), irand(1, 5),
                   irand(1, 3), irand(1, 3), irand(0, 1), irand(0, 3), irand(0, 1), false);
    tconv_case(1, 1, 32, 64, 2, 1, 5, 1, 2, true, 0, true, false);     /* dp_net's last layers */
    tconv_case(1, 4, 4, 8, 8, 1, 1, 3, 3, false, 1, true, false);      /* kernel smaller than the stride */
    tconv_case(1, 5, 5, 4, 6, 3, 3, 2, 2, true, 0, true, true);        /* -Inf weight: the reference */
}

/* FULLY_CONNECTED: constant or run-time weights, constant / absent / run-time bias. */
static void fc_case(int rows, int K, int N, int act, int bias_kind, bool w_runtime) {
    float *x = fill((size_t)rows * K, 2.0f), *w = fill((size_t)N * K, 1.0f), *b = fill((size_t)N, 0.5f);
    kt_tensor ins[3] = {
        KT_IN(GC_T_FLOAT32, 2, KT_S(rows, K), x),
        w_runtime ? (kt_tensor)KT_IN(GC_T_FLOAT32, 2, KT_S(N, K), w) : (kt_tensor)KT_C(GC_T_FLOAT32, 2, KT_S(N, K), w),
        bias_kind == 0 ? (kt_tensor){ .type = -1 } : bias_kind == 1 ? (kt_tensor)KT_C(GC_T_FLOAT32, 1, KT_S(N), b)
                                                                     : (kt_tensor)KT_IN(GC_T_FLOAT32, 1, KT_S(N), b),
    };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(rows, N)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_fused_activation_function, act);
    char what[128];
    snprintf(what, sizeof what, "FC %dx%d * [%d,%d]' act%d bias%d wrt%d", rows, K, N, K, act, bias_kind, w_runtime);
    case_m = rows; case_k = K; case_n = N; case_bmm = false;
    compare(&r, ins, 3, bias_kind != 2, what);
    case_k = 0;
    gc_model_free(r.m);
    free(x); free(w); free(b);
}

GC_TEST(kernels_fast_fully_connected) {
    for (int i = 0; i < 60; i++)
        fc_case(irand(0, 2) == 0 ? 1 : irand(1, 21), irand(1, 70), irand(1, 70), irand(0, 3), irand(0, 1), irand(0, 4) == 0);
    fc_case(1, 300, 257, 0, 1, false);
    fc_case(70, 200, 70, 3, 1, false);            /* big enough to be split over 3 threads */
    fc_case(1, 128, 64, 0, 1, false);             /* one row, four panels, whole groups of four slices */
    fc_case(1, 37, 200, 1, 0, false);             /* slices of 4 and a tail of 1 */
    fc_case(32, 128, 128, 0, 1, false);
    fc_case(3, 70, 70, 0, 1, true);               /* run-time weights, packed per eval */
    fc_case(9, 33, 5, 3, 2, false);               /* run-time bias: the reference */
    fc_case(37, 1024, 40, 1, 1, false);           /* rows 4 KiB apart: tiles copied apart (gemm_f32.h) */
    fc_case(17, 2048, 20, 0, 0, true);            /* the same with a one-row last tile */
    fc_case(40, 48, 96, 1, 1, false);             /* fp16 native on the matrix cores (K16H) */
    fc_case(16, 64, 32, 0, 0, true);
}

/* --float-arith fma is not the multiply-then-add: on a deep FULLY_CONNECTED some outputs
 * differ, and both stay within the classic bound of a K-term float sum of the exact
 * (double) result: |y - exact| <= K u / (1 - K u) sum_k |x_k w_k| (u = 2^-24), the fused
 * one with its one rounding per step, the plain one's two roundings per step as 2K. */
GC_TEST(kernels_fast_fma_differs_within_bound) {
    const int rows = 8, K = 1024, N = 48;
    float *x = fill((size_t)rows * K, 2.0f), *w = fill((size_t)N * K, 1.0f);
    kt_tensor ins[3] = { KT_IN(GC_T_FLOAT32, 2, KT_S(rows, K), x), KT_C(GC_T_FLOAT32, 2, KT_S(N, K), w),
                         { .type = -1 } };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(rows, N)) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    float *ym = NULL, *yf = NULL; size_t nm = 0, nf = 0; int fast = 0;
    CHECK(run(&r, ins, 3, &modes[0], false, 1, &ym, &nm, &fast));
    CHECK(run(&r, ins, 3, &modes[4], false, 1, &yf, &nf, &fast));
    CHECK(fast == 1);
    int differ = 0;
    const double u = 1.0 / 16777216.0;
    for (int i = 0; ym && yf && nm == nf && i < rows; i++)
        for (int n = 0; n < N; n++) {
            double exact = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double p = (double)x[(size_t)i * K + k] * (double)w[(size_t)n * K + k];
                exact += p; mag += fabs(p);
            }
            const float a = ym[i * N + n], b = yf[i * N + n];
            differ += a != b;
            CHECK_MSG(fabs((double)b - exact) <= K * u / (1 - K * u) * mag, "fma y[%d][%d] = %.9g, exact %.9g", i, n, (double)b, exact);
            CHECK_MSG(fabs((double)a - exact) <= 2 * K * u / (1 - 2 * K * u) * mag, "muladd y[%d][%d] = %.9g, exact %.9g", i, n, (double)a, exact);
        }
    CHECK_MSG(differ > 0, "--float-arith fma gave the multiply-then-add's bits on all %d outputs", rows * N);
    printf("  (fma vs muladd: %d of %d outputs differ)\n", differ, rows * N);
    free(ym); free(yf);
    gc_model_free(r.m);
    free(x); free(w);
}

/* DEPTHWISE_CONV_2D under --float-arith fma, by the definition: every output channel
 * starts at +0.0f and takes acc = fmaf(x, w, acc) over the taps in (ky, kx) order, then
 * + 0.0f (no bias) — the fast kernels (every level) give exactly those bits, and some of
 * them differ from the multiply-then-add's. */
GC_TEST(kernels_fast_depthwise_fma_definition) {
    enum { H = 9, W = 11, C = 19, KH = 5, KW = 5 };
    const int OH = H - KH + 1, OW = W - KW + 1;
    float *x = fill((size_t)H * W * C, 2.0f), *w = fill((size_t)KH * KW * C, 1.0f);
    kt_tensor ins[3] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, H, W, C), x), KT_C(GC_T_FLOAT32, 4, KT_S(1, KH, KW, C), w),
                         { .type = -1 } };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, OH, OW, C)) };
    kt_model r = kt_build(GC_OP_DEPTHWISE_CONV_2D, GC_BO_DepthwiseConv2DOptions, ins, 3, outs, 1);
    kt_conv_opts(&r, true, false, 1, 1, 1, 1, 1, 0);
    int differ = 0;
    for (int isa = GC_ISA_SCALAR; isa <= (int)gc_isa_detect(); isa++) {
        gc_isa_force(isa);
        float *ym = NULL, *yf = NULL; size_t nm = 0, nf = 0; int fast = 0;
        CHECK(run(&r, ins, 3, &modes[0], false, 1, &ym, &nm, &fast));
        CHECK(run(&r, ins, 3, &modes[4], false, 1, &yf, &nf, &fast));
        CHECK_MSG(fast == 1, "isa %s: the fast depthwise kernel was not taken", gc_isa_name((gc_isa)isa));
        for (int oy = 0; ym && yf && nm == nf && oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++)
                for (int c = 0; c < C; c++) {
                    float acc = 0.0f;
                    for (int ky = 0; ky < KH; ky++)
                        for (int kx = 0; kx < KW; kx++)
                            acc = fmaf(x[((size_t)(oy + ky) * W + (ox + kx)) * C + c], w[(size_t)(ky * KW + kx) * C + c], acc);
                    acc = acc + 0.0f;
                    const size_t i = ((size_t)oy * OW + ox) * C + c;
                    CHECK_MSG(!memcmp(&yf[i], &acc, 4), "isa %s: y[%d][%d][%d] = %.9g, fmaf definition %.9g",
                              gc_isa_name((gc_isa)isa), oy, ox, c, (double)yf[i], (double)acc);
                    differ += isa == GC_ISA_SCALAR && ym[i] != yf[i];
                }
        free(ym); free(yf);
    }
    gc_isa_force(-1);
    CHECK_MSG(differ > 0, "--float-arith fma gave the multiply-then-add's bits on every depthwise output");
    printf("  (depthwise fma vs muladd: %d of %d outputs differ)\n", differ, OH * OW * C);
    gc_model_free(r.m);
    free(x); free(w);
}

/* BATCH_MATMUL [Ba, 1, M, K] x [Bb, K, N] (adj_x / adj_y transpose the last two dims). */
static void bmm_case(int Ba, int Bb, int M, int K, int N, bool adj_x, bool adj_y, bool b_const) {
    float *a = fill((size_t)Ba * M * K, 2.0f), *b = fill((size_t)Bb * K * N, 1.0f);
    kt_tensor ins[2] = {
        adj_x ? (kt_tensor)KT_IN(GC_T_FLOAT32, 4, KT_S(Ba, 1, K, M), a) : (kt_tensor)KT_IN(GC_T_FLOAT32, 4, KT_S(Ba, 1, M, K), a),
        b_const ? (adj_y ? (kt_tensor)KT_C(GC_T_FLOAT32, 3, KT_S(Bb, N, K), b) : (kt_tensor)KT_C(GC_T_FLOAT32, 3, KT_S(Bb, K, N), b))
                : (adj_y ? (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(Bb, N, K), b) : (kt_tensor)KT_IN(GC_T_FLOAT32, 3, KT_S(Bb, K, N), b)),
    };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(Ba, Bb, M, N)) };
    kt_model r = kt_build(GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_x, adj_x);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_y, adj_y);
    char what[128];
    snprintf(what, sizeof what, "BMM [%d,1,%d,%d] x [%d,%d,%d] adj %d%d const %d", Ba, M, K, Bb, K, N, adj_x, adj_y, b_const);
    case_m = M; case_k = K; case_n = N; case_bmm = true;
    compare(&r, ins, 2, true, what);
    case_k = 0;
    gc_model_free(r.m);
    free(a); free(b);
}

GC_TEST(kernels_fast_batch_matmul) {
    for (int i = 0; i < 40; i++)
        bmm_case(irand(1, 2), irand(1, 3), irand(1, 19), irand(1, 40), irand(1, 40), irand(0, 1), irand(0, 1), irand(0, 1));
    bmm_case(1, 1, 1, 64, 100, false, false, true);
    bmm_case(2, 1, 70, 64, 80, true, false, false);  /* split over 3 threads */
    bmm_case(1, 2, 20, 1024, 24, false, true, false); /* rows 4 KiB apart: tiles copied apart */
    bmm_case(2, 1, 33, 64, 64, false, false, false);  /* fp16 native on the matrix cores (K16H) */
    bmm_case(1, 1, 16, 32, 96, true, true, true);
}

GC_TEST(kernels_fast_isa_levels) {
    /* gc_isa_force clamps to the CPU and -1 goes back to the detected / environment level */
    gc_isa hw = gc_isa_detect();
    gc_isa_force(GC_ISA_AVX512);
    CHECK(gc_isa_active() == hw);
    gc_isa_force(GC_ISA_SCALAR);
    CHECK(gc_isa_active() == GC_ISA_SCALAR);
    gc_isa_force(-1);
    CHECK(gc_isa_active() <= hw);
    CHECK(!strcmp(gc_isa_name(GC_ISA_AVX2), "avx2"));
    printf("  (cpu: %s; %d cases compared so far)\n", gc_isa_name(hw), n_cases);
}

/* Values past the half range (inputs and weights x 300: sums of up to ~10^7): the fast
 * kernels round their outputs themselves, the native runtime's store saturating at
 * +-65504, the others' going to +-Inf, exactly as the core does after the reference. */
static int n_sat, n_inf;
static int count_node(int32_t op, const gc_tview *outs, int n, void *user) {
    (void)op; (void)user;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; outs[i].dtype == GC_T_FLOAT32 && k < outs[i].nbytes / 4; k++) {
            float v = ((const float *)outs[i].data)[k];
            n_sat += v == 65504.0f || v == -65504.0f;
            n_inf += isinf(v) != 0;
        }
    return 0;
}
GC_TEST(kernels_fast_big_values) {
    big = 300.0f;
    conv_case(false, 1, 9, 11, 8, 1, 20, 1, 3, 3, 1, 1, 1, 1, true, 0, true, false, false);
    conv_case(false, 1, 9, 11, 3, 1, 20, 1, 3, 3, 2, 1, 1, 1, true, 0, true, false, false);     /* native: in half */
    conv_case(true, 1, 9, 11, 20, 1, 0, 1, 5, 5, 1, 1, 1, 1, true, 0, true, false, false);
    conv_case(false, 1, 24, 24, 64, 1, 64, 1, 3, 3, 1, 1, 1, 1, true, 0, true, false, false); /* Winograd */
    tconv_case(1, 5, 6, 20, 18, 3, 3, 2, 2, true, 0, true, false);
    fc_case(5, 70, 40, 0, 1, false);
    bmm_case(1, 2, 5, 40, 30, false, false, true);
    /* and the fast conv sent the outputs past 65504 to Inf on both runtimes (no saturation:
     * measured on the H200 2026-12-02, docs/fp16-model.md) */
    float *x = fill(9 * 11 * 8, 2.0f), *w = fill(20 * 9 * 8, 1.0f);
    kt_tensor ins[2] = { KT_IN(GC_T_FLOAT32, 4, KT_S(1, 9, 11, 8), x), KT_C(GC_T_FLOAT32, 4, KT_S(20, 3, 3, 8), w) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 4, KT_S(1, 9, 11, 20)) };
    kt_model r = kt_build(GC_OP_CONV_2D, GC_BO_Conv2DOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_Conv2DOptions_stride_w, 1);
    for (int mi = 1; mi <= 2; mi++) {
        char err[256];
        gc_interp_opts o = { .precision = modes[mi].prec, .gpu_runtime = modes[mi].rt, .signature = -1, .on_node = count_node };
        gc_interp *it = gc_interp_new(r.m, &o, err, sizeof err);
        CHECK(it && gc_interp_prepare(it) == GC_OK);
        if (!it) continue;
        memcpy(gc_interp_input(it, 0).data, x, sizeof(float) * 9 * 11 * 8);
        n_sat = n_inf = 0;
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        CHECK(st.n_fast == 1);
        CHECK_MSG(n_sat == 0 && n_inf > 0, "%s: %d saturated, %d Inf", mi == 1 ? "native" : "js", n_sat, n_inf);
        gc_interp_free(it);
    }
    gc_model_free(r.m);
    free(x); free(w);
    big = 1.0f;
}
