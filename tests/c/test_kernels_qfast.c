/* test_kernels_qfast.c — the fast 8-bit kernels (kernels/qgemm8.h through qconv8.h) give
 * exactly the reference kernels' bytes (opts.reference_kernels), at every instruction-set
 * level this CPU has (gc_isa_force: scalar, avx2, avx512 = VNNI where the CPU has it), one
 * and three threads, both integer-arithmetic modes (tflite, xnnpack), over randomized
 * shapes: int8 / uint8 inputs and weights, per-tensor and per-channel scales, random zero
 * points (per-channel uint8 ones too, which the VNNI level hands to the int16 kernels),
 * strides, dilations, SAME / VALID padding, channel counts off the 4 / 16 grid, every
 * fused activation, multipliers that need a left shift, accumulators past int32 (the
 * reference's int64 sum truncated), with and without bias; plus PAD folded into the conv
 * after it (and the cases that must not fold), and the cases the fast path refuses (groups,
 * depth multiplier 2, an INT64 bias) still matching. Each case checks which path ran.
 */
#include "test_qfast_harness.h"

static int32_t out_dim(int32_t in, int32_t k, int32_t s, int32_t d, bool same) {
    int32_t e = (k - 1) * d + 1;
    return same ? (in + s - 1) / s : (in - e + s) / s;
}

/* quantization of one case: input / output scales and zero points, weight scales
 * (per channel or one) and zero points */
typedef struct {
    int xdt, wdt;
    float sx, sy; int32_t zx, zy;
    int nws; float *sw; int64_t *zw;
} qcase;

static qcase make_q(int xdt, int wdt, int nch, bool per_channel, bool uniform_zw, bool big_mult) {
    qcase q = { .xdt = xdt, .wdt = wdt };
    q.sx = frand(0.005f, 0.05f);
    q.sy = big_mult ? frand(1e-5f, 1e-4f) : frand(0.01f, 0.5f);
    q.zx = zp_for(xdt); q.zy = zp_for(xdt);
    q.nws = per_channel ? nch : 1;
    q.sw = malloc((size_t)q.nws * sizeof(float));
    q.zw = malloc((size_t)q.nws * sizeof(int64_t));
    int32_t z0 = wdt == GC_T_INT8 ? (irand(0, 3) ? 0 : irand(-20, 20)) : irand(0, 255);
    for (int i = 0; i < q.nws; i++) {
        q.sw[i] = frand(0.001f, 0.02f);
        if (irand(0, 15) == 0) q.sw[i] = 0.0f;                          /* a zero scale: multiplier 0 */
        q.zw[i] = uniform_zw ? z0 : wdt == GC_T_INT8 ? 0 : irand(0, 255);
    }
    return q;
}
static void free_q(qcase *q) { free(q->sw); free(q->zw); }

static kt_tensor qconst(int dt, int rank, const int32_t *shape, const void *data, const qcase *q, int qdim) {
    kt_tensor t = { .type = dt, .rank = rank, .data = data, .n_scales = q->nws, .scales = q->sw, .zps = q->zw,
                    .qdim = qdim };
    memcpy(t.shape, shape, (size_t)rank * sizeof(int32_t));
    return t;
}

/* One CONV_2D (dw = false) or DEPTHWISE_CONV_2D case. bias_kind: 0 none, 1 INT32, 2 INT64 */
static void conv_case(bool dw, int xdt, int wdt, int B, int H, int W, int C, int G, int OCg, int mult, int KH, int KW,
                      int sh, int sw, int dh, int dwl, bool same, int act, int bias_kind, bool per_channel,
                      bool uniform_zw, bool big_mult) {
    int ICg = C / G, OC = dw ? C * mult : G * OCg;
    int32_t OH = out_dim(H, KH, sh, dh, same), OW = out_dim(W, KW, sw, dwl, same);
    if (OH <= 0 || OW <= 0) return;
    size_t nx = (size_t)B * H * W * C, nw = dw ? (size_t)KH * KW * OC : (size_t)OC * KH * KW * ICg;
    uint8_t *x = bytes(nx, xdt), *w = bytes(nw, wdt);
    int32_t *b32 = malloc((size_t)OC * 4);
    int64_t *b64 = malloc((size_t)OC * 8);
    for (int i = 0; i < OC; i++) { b32[i] = irand(-20000, 20000); b64[i] = b32[i]; }
    qcase q = make_q(xdt, wdt, OC, per_channel, uniform_zw, big_mult);
    int32_t xs[4] = { B, H, W, C }, ys[4] = { B, OH, OW, OC }, bs[1] = { OC };
    int32_t ws[4] = { dw ? 1 : OC, KH, KW, dw ? OC : ICg };
    float bscale = q.sx * q.sw[0];
    kt_tensor ins[3] = {
        qin(xdt, 4, xs, x, q.sx, q.zx),
        qconst(wdt, 4, ws, w, &q, dw ? 3 : 0),
        bias_kind == 0 ? (kt_tensor){ .type = -1 }
                       : (kt_tensor){ .type = bias_kind == 1 ? GC_T_INT32 : GC_T_INT64, .rank = 1, .shape = { OC },
                                      .data = bias_kind == 1 ? (void *)b32 : (void *)b64, .scale = bscale },
    };
    (void)bs;
    kt_tensor outs[] = { qout(xdt, 4, ys, q.sy, q.zy) };
    kt_model r = kt_build(dw ? GC_OP_DEPTHWISE_CONV_2D : GC_OP_CONV_2D,
                          dw ? GC_BO_DepthwiseConv2DOptions : GC_BO_Conv2DOptions, ins, 3, outs, 1);
    kt_conv_opts(&r, dw, same, sh, sw, dh, dwl, mult, act);
    /* depthwise of one input channel: as the CONV_2D it is, any multiplier and tap count */
    bool want_fast = (dw ? (mult == 1 && KH * KW <= 64) || C == 1 : G == 1) && bias_kind != 2;
    char what[320];
    snprintf(what, sizeof what, "%s %s/%s B%d %dx%dx%d G%d OCg%d m%d k%dx%d s%dx%d d%dx%d %s act%d bias%d pc%d uz%d big%d",
             dw ? "DEPTHWISE" : "CONV", gc_type_name(xdt), gc_type_name(wdt), B, H, W, C, G, OCg, mult, KH, KW, sh, sw,
             dh, dwl, same ? "SAME" : "VALID", act, bias_kind, per_channel, uniform_zw, big_mult);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, want_fast ? 1 : 0, 0, what);
    gc_model_free(r.m);
    free(x); free(w); free(b32); free(b64); free_q(&q);
}

static int rdt(void) { return irand(0, 1) ? GC_T_INT8 : GC_T_UINT8; }

GC_TEST(kernels_qfast_conv_random) {
    for (int i = 0; i < 90; i++) {
        int xdt = rdt(), wdt = irand(0, 3) ? xdt : rdt();
        int C = irand(0, 3) == 0 ? irand(1, 7) : irand(8, 70);
        int pick = irand(0, 3);
        int OC = pick == 0 ? irand(1, 9) : pick == 1 ? irand(10, 20) : pick == 2 ? irand(21, 50) : irand(51, 100);
        int KH = irand(1, 4), KW = irand(1, 4);
        if (irand(0, 2) == 0) KH = KW = 1;
        bool pc = wdt == GC_T_INT8 ? irand(0, 3) != 0 : irand(0, 3) == 0;
        conv_case(false, xdt, wdt, irand(1, 2), irand(1, 12), irand(1, 13), C, 1, OC, 1, KH, KW, irand(1, 3),
                  irand(1, 3), irand(1, 2), irand(1, 2), irand(0, 1), irand(0, 3), irand(0, 4) ? 1 : 0, pc,
                  irand(0, 3) != 0, irand(0, 7) == 0);
    }
    CHECK_MSG(n_fast_cases > 0, "no case took the fast path");
}

GC_TEST(kernels_qfast_conv_edges) {
    for (int oc = 1; oc <= 17; oc += 4)        /* 1x1 as a GEMM, tails of panels and of row tiles */
        conv_case(false, GC_T_INT8, GC_T_INT8, 1, 5, 7, 16, 1, oc, 1, 1, 1, 1, 1, 1, 1, false, 0, 1, true, true, false);
    conv_case(false, GC_T_UINT8, GC_T_UINT8, 1, 9, 9, 3, 1, 32, 1, 3, 3, 2, 2, 1, 1, true, 3, 1, false, true, false);
    conv_case(false, GC_T_INT8, GC_T_INT8, 1, 6, 6, 160, 1, 48, 1, 3, 3, 1, 1, 1, 1, true, 1, 1, true, true, false);
    conv_case(false, GC_T_UINT8, GC_T_UINT8, 1, 6, 6, 24, 1, 40, 1, 1, 1, 1, 1, 1, 1, false, 0, 1, true, false, false);
    conv_case(false, GC_T_INT8, GC_T_INT8, 1, 4, 4, 8, 1, 20, 1, 3, 3, 1, 1, 1, 1, true, 0, 1, true, true, true);
    /* 33100 channels: the reference sums in int64 (65025 * K > 2^31) and truncates */
    conv_case(false, GC_T_UINT8, GC_T_UINT8, 1, 1, 2, 33100, 1, 3, 1, 1, 1, 1, 1, 1, 1, false, 0, 1, false, true, false);
    /* refused: groups, an INT64 bias */
    conv_case(false, GC_T_INT8, GC_T_INT8, 1, 6, 6, 8, 2, 6, 1, 3, 3, 1, 1, 1, 1, true, 0, 1, true, true, false);
    conv_case(false, GC_T_INT8, GC_T_INT8, 1, 6, 6, 8, 1, 6, 1, 3, 3, 1, 1, 1, 1, true, 0, 2, true, true, false);
}

GC_TEST(kernels_qfast_depthwise_random) {
    for (int i = 0; i < 80; i++) {
        int xdt = rdt(), wdt = irand(0, 3) ? xdt : rdt();
        int K = irand(0, 4) == 0 ? irand(4, 7) : irand(1, 3) * 2 - 1;
        int KW = irand(0, 5) == 0 ? irand(1, 5) : K;
        bool pc = wdt == GC_T_INT8 ? irand(0, 3) != 0 : irand(0, 3) == 0;
        conv_case(true, xdt, wdt, irand(1, 2), irand(1, 21), irand(1, 23), irand(1, 70), 1, 0, irand(0, 9) == 0 ? 2 : 1,
                  K, KW, irand(1, 2), irand(1, 2), irand(1, 2), irand(1, 2), irand(0, 1), irand(0, 3), irand(0, 4) ? 1 : 0,
                  pc, irand(0, 1), irand(0, 7) == 0);
    }
    conv_case(true, GC_T_INT8, GC_T_INT8, 1, 33, 33, 35, 1, 0, 1, 3, 3, 1, 1, 1, 1, true, 3, 1, true, true, false);
    conv_case(true, GC_T_UINT8, GC_T_UINT8, 1, 34, 35, 48, 1, 0, 1, 3, 3, 2, 2, 1, 1, true, 0, 1, false, true, false);
    conv_case(true, GC_T_INT8, GC_T_INT8, 1, 12, 12, 16, 1, 0, 1, 9, 9, 1, 1, 1, 1, true, 0, 1, true, true, false);   /* 81 taps: refused */
    /* one input channel, multiplier 8 (person_detect's first layer), 3, and 81 taps: the GEMM */
    conv_case(true, GC_T_INT8, GC_T_INT8, 1, 96, 96, 1, 1, 0, 8, 3, 3, 2, 2, 1, 1, true, 1, 1, true, true, false);
    conv_case(true, GC_T_UINT8, GC_T_UINT8, 2, 13, 11, 1, 1, 0, 3, 3, 2, 1, 2, 1, 1, false, 3, 1, false, true, false);
    conv_case(true, GC_T_UINT8, GC_T_INT8, 1, 10, 9, 1, 1, 0, 5, 3, 3, 1, 1, 2, 2, true, 0, 0, true, false, true);
    conv_case(true, GC_T_INT8, GC_T_INT8, 1, 12, 12, 1, 1, 0, 1, 9, 9, 1, 1, 1, 1, true, 0, 1, true, true, false);
    for (int i = 0; i < 12; i++)
        conv_case(true, rdt(), rdt(), irand(1, 2), irand(1, 17), irand(1, 19), 1, 1, 0, irand(1, 9), irand(1, 5), irand(1, 5),
                  irand(1, 2), irand(1, 2), irand(1, 2), irand(1, 2), irand(0, 1), irand(0, 3), irand(0, 2), irand(0, 1),
                  irand(0, 1), irand(0, 7) == 0);
    /* the dilated window kernels (deeplab's atrous blocks) */
    conv_case(true, GC_T_UINT8, GC_T_UINT8, 1, 17, 29, 40, 1, 0, 1, 3, 3, 1, 1, 4, 4, true, 3, 1, false, true, false);
    conv_case(true, GC_T_INT8, GC_T_INT8, 1, 17, 29, 24, 1, 0, 1, 3, 3, 1, 1, 2, 2, true, 0, 1, true, true, false);
    conv_case(true, GC_T_INT8, GC_T_INT8, 1, 17, 29, 24, 1, 0, 1, 3, 3, 2, 2, 2, 2, true, 0, 1, true, true, false);
    conv_case(true, GC_T_UINT8, GC_T_UINT8, 1, 9, 6, 24, 1, 0, 1, 3, 3, 1, 1, 4, 4, true, 0, 1, false, true, false);
}

/* FULLY_CONNECTED [rows, K] x [N, K]' */
static void fc_case(int xdt, int wdt, int rows, int K, int N, int act, int bias_kind, bool per_channel, bool uniform_zw,
                    bool big_mult, bool max_x) {
    uint8_t *x = bytes((size_t)rows * K, xdt), *w = bytes((size_t)N * K, wdt);
    if (max_x) { memset(x, xdt == GC_T_INT8 ? 0x7f : 0xff, (size_t)rows * K); memset(w, wdt == GC_T_INT8 ? 0x80 : 0xff, (size_t)N * K); }
    int32_t *b32 = malloc((size_t)N * 4);
    int64_t *b64 = malloc((size_t)N * 8);
    for (int i = 0; i < N; i++) { b32[i] = irand(-30000, 30000); b64[i] = b32[i]; }
    qcase q = make_q(xdt, wdt, N, per_channel, uniform_zw, big_mult);
    if (max_x) { q.zx = xdt == GC_T_INT8 ? -128 : 0; for (int i = 0; i < q.nws; i++) q.zw[i] = wdt == GC_T_INT8 ? 0 : 0; }
    int32_t xs[2] = { rows, K }, ws[2] = { N, K }, ys[2] = { rows, N };
    kt_tensor ins[3] = {
        qin(xdt, 2, xs, x, q.sx, q.zx),
        qconst(wdt, 2, ws, w, &q, 0),
        bias_kind == 0 ? (kt_tensor){ .type = -1 }
                       : (kt_tensor){ .type = bias_kind == 1 ? GC_T_INT32 : GC_T_INT64, .rank = 1, .shape = { N },
                                      .data = bias_kind == 1 ? (void *)b32 : (void *)b64, .scale = q.sx * q.sw[0] },
    };
    kt_tensor outs[] = { qout(xdt, 2, ys, q.sy, q.zy) };
    kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_FullyConnectedOptions_fused_activation_function, act);
    char what[200];
    snprintf(what, sizeof what, "FC %s/%s %dx%d * [%d,%d]' act%d bias%d pc%d uz%d big%d max%d", gc_type_name(xdt),
             gc_type_name(wdt), rows, K, N, K, act, bias_kind, per_channel, uniform_zw, big_mult, max_x);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, bias_kind != 2 ? 1 : 0, 0, what);
    gc_model_free(r.m);
    free(x); free(w); free(b32); free(b64); free_q(&q);
}

GC_TEST(kernels_qfast_fully_connected) {
    for (int i = 0; i < 50; i++) {
        int xdt = rdt(), wdt = irand(0, 3) ? xdt : rdt();
        fc_case(xdt, wdt, irand(0, 2) == 0 ? 1 : irand(1, 21), irand(1, 90), irand(1, 70), irand(0, 3), irand(0, 3) ? 1 : 0,
                irand(0, 1), irand(0, 3) != 0, irand(0, 7) == 0, false);
    }
    fc_case(GC_T_INT8, GC_T_INT8, 1, 1280, 1001, 0, 1, true, true, false, false);
    fc_case(GC_T_UINT8, GC_T_UINT8, 1, 40000, 3, 0, 1, false, true, false, true);     /* the int64 sum, truncated */
    fc_case(GC_T_INT8, GC_T_INT8, 2, 70000, 5, 0, 1, true, true, false, true);
    fc_case(GC_T_INT8, GC_T_INT8, 9, 33, 5, 3, 2, true, true, false, false);          /* INT64 bias: the reference */
}

/* PAD (or PADV2 with `value`) on H / W, then a CONV_2D / DEPTHWISE_CONV_2D (VALID), a
 * second reader of the PAD's output when `shared` */
static void pad_case(bool dw, int xdt, int top, int bottom, int left, int right, bool v2, int32_t value_off, bool shared) {
    int B = 1, H = irand(3, 9), W = irand(3, 9), C = irand(1, 20), OC = dw ? C : irand(1, 20), KH = 3, KW = 3;
    int PH = H + top + bottom, PW = W + left + right;
    int32_t OH = PH - KH + 1, OW = PW - KW + 1;
    uint8_t *x = bytes((size_t)B * H * W * C, xdt), *w = bytes((size_t)OC * KH * KW * C, xdt);
    qcase q = make_q(xdt, xdt, OC, xdt == GC_T_INT8, true, false);
    int32_t pads[8] = { 0, 0, top, bottom, left, right, 0, 0 };
    uint8_t value = (uint8_t)(q.zx + value_off);
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t xsh[4] = { B, H, W, C }, psh[4] = { B, PH, PW, C }, pdsh[2] = { 4, 2 }, one[1] = { 1 };
    int32_t wsh[4] = { dw ? 1 : OC, KH, KW, dw ? OC : C }, ysh[4] = { B, OH, OW, OC };
    int32_t tx = gc_sg_add_tensor(m, sg, "x", xdt, 4, xsh, 0);
    int32_t tpd = gc_sg_add_tensor(m, sg, "pads", GC_T_INT32, 2, pdsh, (uint32_t)gc_model_add_buffer(m, pads, sizeof pads));
    int32_t tv = gc_sg_add_tensor(m, sg, "value", xdt, 1, one, (uint32_t)gc_model_add_buffer(m, &value, 1));
    int32_t tp = gc_sg_add_tensor(m, sg, "padded", xdt, 4, psh, 0);
    int32_t tw = gc_sg_add_tensor(m, sg, "w", xdt, 4, wsh, (uint32_t)gc_model_add_buffer(m, w, (size_t)OC * KH * KW * C));
    int32_t ty = gc_sg_add_tensor(m, sg, "y", xdt, 4, ysh, 0);
    int32_t ty2 = gc_sg_add_tensor(m, sg, "y2", xdt, 4, psh, 0);
    kt_tensor qx = { .scale = q.sx, .zp = q.zx }, qy = { .scale = q.sy, .zp = q.zy };
    kt_tensor qw = { .n_scales = q.nws, .scales = q.sw, .zps = q.zw, .qdim = dw ? 3 : 0 };
    kt_quant(m, &m->subgraphs[sg].tensors[tx], &qx);
    kt_quant(m, &m->subgraphs[sg].tensors[tp], &qx);
    kt_quant(m, &m->subgraphs[sg].tensors[tv], &qx);
    kt_quant(m, &m->subgraphs[sg].tensors[ty2], &qx);
    kt_quant(m, &m->subgraphs[sg].tensors[tw], &qw);
    kt_quant(m, &m->subgraphs[sg].tensors[ty], &qy);
    int32_t pin[3] = { tx, tpd, tv }, pout[1] = { tp };
    int32_t oc_pad = gc_model_add_opcode(m, v2 ? GC_OP_PADV2 : GC_OP_PAD, NULL, 1);
    gc_sg_insert_op(m, sg, 0, oc_pad, v2 ? 3 : 2, pin, 1, pout);
    int32_t cin[2] = { tp, tw }, cout[1] = { ty };
    int32_t oc_conv = gc_model_add_opcode(m, dw ? GC_OP_DEPTHWISE_CONV_2D : GC_OP_CONV_2D, NULL, 1);
    gc_sg_insert_op(m, sg, 1, oc_conv, 2, cin, 1, cout);
    gc_op *op = &m->subgraphs[sg].ops[1];
    gc_opt_init(m, &op->opt, dw ? GC_BO_DepthwiseConv2DOptions : GC_BO_Conv2DOptions);
    gc_opt_set_int(m, &op->opt, dw ? GC_O_DepthwiseConv2DOptions_padding : GC_O_Conv2DOptions_padding, 1);
    gc_opt_set_int(m, &op->opt, dw ? GC_O_DepthwiseConv2DOptions_stride_h : GC_O_Conv2DOptions_stride_h, 1);
    gc_opt_set_int(m, &op->opt, dw ? GC_O_DepthwiseConv2DOptions_stride_w : GC_O_Conv2DOptions_stride_w, 1);
    if (dw) gc_opt_set_int(m, &op->opt, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
    int32_t outs[2] = { ty, ty2 };
    if (shared) {                                   /* a second reader: MAXIMUM(padded, padded) */
        int32_t min_[2] = { tp, tp }, mout[1] = { ty2 };
        gc_sg_insert_op(m, sg, 2, gc_model_add_opcode(m, GC_OP_MAXIMUM, NULL, 1), 2, min_, 1, mout);
    }
    gc_sg_set_io(m, sg, 1, &tx, shared ? 2 : 1, outs);
    char what[160];
    snprintf(what, sizeof what, "PAD%s(%d,%d,%d,%d value zp%+d) -> %s %s shared%d", v2 ? "V2" : "", top, bottom, left,
             right, value_off, dw ? "DEPTHWISE" : "CONV", gc_type_name(xdt), shared);
    const void *feeds[1] = { x };
    bool fold = value_off == 0 && !shared;
    compare(m, feeds, 1, 1, fold ? 1 : 0, what);
    gc_model_free(m);
    free(x); free(w); free_q(&q);
}

GC_TEST(kernels_qfast_pad_fold) {
    for (int i = 0; i < 16; i++)
        pad_case(irand(0, 1), rdt(), irand(0, 2), irand(0, 2), irand(0, 2), irand(0, 2), irand(0, 1), 0, false);
    pad_case(false, GC_T_INT8, 1, 1, 1, 1, true, 3, false);      /* PADV2 with another value: no folding */
    pad_case(true, GC_T_UINT8, 1, 0, 0, 1, false, 0, true);      /* a second reader: no folding */
    printf("  (cpu: %s; %d cases compared, %d on the fast path)\n", gc_isa_name(gc_isa_detect()), n_cases, n_fast_cases);
}

/* BATCH_MATMUL int8 [Ba, 1, M, K] x [Bb, K, N] (adj_x / adj_y transpose the last two dims) */
static void bmm_case(int Ba, int Bb, int M, int K, int N, bool adj_x, bool adj_y, bool b_const, bool max_vals) {
    uint8_t *a = bytes((size_t)Ba * M * K, GC_T_INT8), *b = bytes((size_t)Bb * K * N, GC_T_INT8);
    if (max_vals) { memset(a, 0x80, (size_t)Ba * M * K); memset(b, 0x80, (size_t)Bb * K * N); }
    float sa = frand(0.01f, 0.1f), sb = frand(0.01f, 0.1f), sy = frand(0.05f, 2.0f);
    int32_t za = max_vals ? 127 : zp_for(GC_T_INT8), zb = max_vals ? 127 : zp_for(GC_T_INT8), zy = zp_for(GC_T_INT8);
    int32_t as[4] = { Ba, 1, adj_x ? K : M, adj_x ? M : K }, bs[3] = { Bb, adj_y ? N : K, adj_y ? K : N }, ys[4] = { Ba, Bb, M, N };
    kt_tensor ins[2] = { qin(GC_T_INT8, 4, as, a, sa, za), qin(GC_T_INT8, 3, bs, b, sb, zb) };
    if (b_const) { ins[1].data = b; ins[1].feed = NULL; }
    kt_tensor outs[1] = { qout(GC_T_INT8, 4, ys, sy, zy) };
    kt_model r = kt_build(GC_OP_BATCH_MATMUL, GC_BO_BatchMatMulOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_x, adj_x);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_BatchMatMulOptions_adj_y, adj_y);
    char what[160];
    snprintf(what, sizeof what, "BMM int8 [%d,1,%d,%d] x [%d,%d,%d] adj %d%d const %d max %d", Ba, M, K, Bb, K, N, adj_x, adj_y,
             b_const, max_vals);
    const void *feeds[2] = { a, b };
    compare(r.m, feeds, b_const ? 1 : 2, 1, 0, what);
    gc_model_free(r.m);
    free(a); free(b);
}

GC_TEST(kernels_qfast_batch_matmul) {
    for (int i = 0; i < 30; i++)
        bmm_case(irand(1, 2), irand(1, 3), irand(1, 19), irand(1, 70), irand(1, 40), irand(0, 1), irand(0, 1), irand(0, 1), false);
    bmm_case(1, 1, 3, 40000, 2, false, false, false, true);       /* past int32: the reference truncates */
    bmm_case(2, 1, 40, 64, 80, true, true, false, false);
}
