/* test_kernels_qelem.c — the fast 8-bit elementwise paths (kernels/qelem8.h and the
 * tables of quantize.c / unary.c) give exactly the reference's bytes at every
 * instruction-set level, both integer-arithmetic modes: ADD / SUB / MUL with every
 * broadcast the fast runs see (same shape, a scalar on either side, a repeating
 * per-channel run, an outer product), fused activations, multipliers that need a left
 * shift; QUANTIZE float -> int8 / uint8 with ties, NaN, infinities and huge values;
 * QUANTIZE 8 -> 8 bit; DEQUANTIZE; the RELU family, LEAKY_RELU and the table-driven
 * activations; 8-bit RESIZE_BILINEAR; TRANSPOSE (1-byte tiles); PAD; ARG_MAX / ARG_MIN;
 * MEAN / SUM; CAST; blockwise-INT4 FULLY_CONNECTED (kernels/qfc4.h).
 */
#include "test_qfast_harness.h"
#include "interp/fp16.h"
#include "interp/threadpool.h"

static int rdt(void) { return irand(0, 1) ? GC_T_INT8 : GC_T_UINT8; }

static void binary_case(int code, int dt, int ra, const int32_t *sa, int rb, const int32_t *sb, int act, bool tiny_out) {
    int32_t so[6]; int ro = ra > rb ? ra : rb;
    for (int i = 0; i < ro; i++) {
        int ia = i - (ro - ra), ib = i - (ro - rb);
        int32_t da = ia >= 0 ? sa[ia] : 1, db = ib >= 0 ? sb[ib] : 1;
        so[i] = da > db ? da : db;
    }
    size_t na = 1, nb = 1;
    for (int i = 0; i < ra; i++) na *= (size_t)sa[i];
    for (int i = 0; i < rb; i++) nb *= (size_t)sb[i];
    uint8_t *a = bytes(na, dt), *b = bytes(nb, dt);
    float s1 = frand(0.002f, 0.2f), s2 = irand(0, 3) ? frand(0.002f, 0.2f) : s1;
    float sy = tiny_out ? frand(1e-7f, 1e-6f) : frand(0.005f, 0.3f);
    kt_tensor ins[2] = { qin(dt, ra, sa, a, s1, zp_for(dt)), qin(dt, rb, sb, b, s2, zp_for(dt)) };
    kt_tensor outs[1] = { qout(dt, ro, so, sy, zp_for(dt)) };
    int ot = code == GC_OP_ADD ? GC_BO_AddOptions : code == GC_OP_SUB ? GC_BO_SubOptions : GC_BO_MulOptions;
    kt_model r = kt_build(code, ot, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, code == GC_OP_ADD ? GC_O_AddOptions_fused_activation_function
                                    : code == GC_OP_SUB ? GC_O_SubOptions_fused_activation_function
                                                        : GC_O_MulOptions_fused_activation_function, act);
    char what[200];
    int k = snprintf(what, sizeof what, "%s %s a[", gc_builtin_name(code), gc_type_name(dt));
    for (int i = 0; i < ra; i++) k += snprintf(what + k, sizeof what - (size_t)k, "%d,", (int)sa[i]);
    k += snprintf(what + k, sizeof what - (size_t)k, "] b[");
    for (int i = 0; i < rb; i++) k += snprintf(what + k, sizeof what - (size_t)k, "%d,", (int)sb[i]);
    snprintf(what + k, sizeof what - (size_t)k, "] act%d tiny%d", act, tiny_out);
    const void *feeds[2] = { a, b };
    compare(r.m, feeds, 2, 0, 0, what);
    gc_model_free(r.m);
    free(a); free(b);
}

GC_TEST(kernels_qelem_binary) {
    const int codes[3] = { GC_OP_ADD, GC_OP_SUB, GC_OP_MUL };
    for (int i = 0; i < 60; i++) {
        int code = codes[irand(0, 2)], dt = rdt(), act = irand(0, 3), kind = irand(0, 4);
        int32_t H = irand(1, 9), W = irand(1, 11), C = irand(1, 40);
        int32_t full[4] = { 1, H, W, C }, chan[4] = { 1, 1, 1, C }, one[1] = { 1 }, hw1[3] = { H, W, 1 }, c2[2] = { 1, C };
        bool tiny = irand(0, 9) == 0;
        if (kind == 0) binary_case(code, dt, 4, full, 4, full, act, tiny);
        else if (kind == 1) binary_case(code, dt, 4, full, 0, one, act, tiny);      /* scalar b */
        else if (kind == 2) binary_case(code, dt, 0, one, 4, full, act, tiny);      /* scalar a */
        else if (kind == 3) binary_case(code, dt, 4, full, 4, chan, act, tiny);     /* per-channel run */
        else binary_case(code, dt, 3, hw1, 2, c2, act, tiny);                       /* outer product */
    }
    int32_t big[4] = { 1, 37, 41, 3 }, ch3[4] = { 1, 1, 1, 3 }, big2[4] = { 1, 3, 5, 5 }, ch5[4] = { 5, 1, 1, 5 };
    binary_case(GC_OP_SUB, GC_T_INT8, 4, big, 4, ch3, 0, false);                 /* movenet's input */
    binary_case(GC_OP_ADD, GC_T_UINT8, 4, ch3, 4, big, 1, false);               /* the repeating input first */
    binary_case(GC_OP_MUL, GC_T_INT8, 4, big2, 4, ch5, 0, false);                /* no merge: the plain runs */
}

/* QUANTIZE float32 -> dt */
static void quantize_case(int dt, int n, bool specials) {
    float *x = malloc((size_t)n * sizeof(float));
    float s = frand(0.001f, 0.1f);
    for (int i = 0; i < n; i++) {
        int kind = irand(0, 5);
        if (kind == 0) x[i] = ((float)irand(-300, 300) + 0.5f) * s;           /* near a tie */
        else x[i] = frand(-200.0f, 200.0f) * s;
    }
    if (specials && n >= 8) {
        x[0] = NAN; x[1] = INFINITY; x[2] = -INFINITY; x[3] = 3e38f; x[4] = -3e38f; x[5] = -0.0f;
        x[6] = 0.5f * s; x[7] = -2.5f * s;
    }
    int32_t sh[2] = { 1, n };
    kt_tensor ins[1] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, n), x) };
    kt_tensor outs[1] = { qout(dt, 2, sh, s, zp_for(dt)) };
    kt_model r = kt_build(GC_OP_QUANTIZE, 0, ins, 1, outs, 1);
    char what[96];
    snprintf(what, sizeof what, "QUANTIZE float -> %s n%d specials%d", gc_type_name(dt), n, specials);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, 0, 0, what);
    gc_model_free(r.m);
    free(x);
}

/* QUANTIZE xdt -> ydt (requantize), DEQUANTIZE xdt -> float */
static void requant_case(int code, int xdt, int ydt, int n) {
    uint8_t *x = bytes((size_t)n, xdt);
    int32_t sh[1] = { n };
    kt_tensor ins[1] = { qin(xdt, 1, sh, x, frand(0.001f, 0.5f), zp_for(xdt)) };
    kt_tensor outs[1] = { code == GC_OP_QUANTIZE ? qout(ydt, 1, sh, frand(0.001f, 0.5f), zp_for(ydt))
                                                 : (kt_tensor)KT_OUT(GC_T_FLOAT32, 1, KT_S(n)) };
    kt_model r = kt_build(code, 0, ins, 1, outs, 1);
    char what[96];
    snprintf(what, sizeof what, "%s %s -> %s n%d", gc_builtin_name(code), gc_type_name(xdt),
             code == GC_OP_QUANTIZE ? gc_type_name(ydt) : "FLOAT32", n);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, 0, 0, what);
    gc_model_free(r.m);
    free(x);
}

GC_TEST(kernels_qelem_quantize) {
    for (int i = 0; i < 20; i++) quantize_case(rdt(), irand(1, 300), irand(0, 1));
    quantize_case(GC_T_INT8, 4096 + 13, true);
    for (int i = 0; i < 16; i++) {
        int xdt = rdt();
        requant_case(GC_OP_QUANTIZE, xdt, irand(0, 1) ? xdt : rdt(), irand(1, 700));
        requant_case(GC_OP_DEQUANTIZE, xdt, 0, irand(1, 700));
    }
}

static void unary_case(int code, int dt, int n, float alpha) {
    uint8_t *x = bytes((size_t)n, dt);
    int32_t sh[2] = { 1, n };
    kt_tensor ins[1] = { qin(dt, 2, sh, x, frand(0.005f, 0.1f), zp_for(dt)) };
    kt_tensor outs[1] = { qout(dt, 2, sh, frand(0.005f, 0.1f), zp_for(dt)) };
    kt_model r = kt_build(code, code == GC_OP_LEAKY_RELU ? GC_BO_LeakyReluOptions : 0, ins, 1, outs, 1);
    if (code == GC_OP_LEAKY_RELU) gc_opt_set_float(r.m, &r.op->opt, GC_O_LeakyReluOptions_alpha, alpha);
    char what[96];
    snprintf(what, sizeof what, "%s %s n%d alpha %g", gc_builtin_name(code), gc_type_name(dt), n, (double)alpha);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, 0, 0, what);
    gc_model_free(r.m);
    free(x);
}

GC_TEST(kernels_qelem_unary) {
    const int codes[] = { GC_OP_RELU, GC_OP_RELU6, GC_OP_RELU_N1_TO_1, GC_OP_RELU_0_TO_1, GC_OP_LEAKY_RELU,
                          GC_OP_LOGISTIC, GC_OP_TANH, GC_OP_HARD_SWISH, GC_OP_ELU };
    for (size_t c = 0; c < sizeof codes / sizeof codes[0]; c++)
        for (int k = 0; k < 3; k++)
            unary_case(codes[c], rdt(), irand(1, 200) + (k == 2 ? 4096 : 0), k == 1 ? frand(1.0f, 3.0f) : frand(-0.5f, 0.5f));
    printf("  (%d cases compared)\n", n_cases);
}

/* RESIZE_BILINEAR, 8 bits (the fast path's two formulas) */
static void resize_case(int dt, int H, int W, int C, int OH, int OW, bool align, bool half) {
    uint8_t *x = bytes((size_t)H * W * C, dt);
    int32_t size[2] = { OH, OW }, xs[4] = { 1, H, W, C }, ys[4] = { 1, OH, OW, C };
    float s = frand(0.01f, 0.1f);
    int32_t z = zp_for(dt);
    kt_tensor ins[2] = { qin(dt, 4, xs, x, s, z), KT_C(GC_T_INT32, 1, KT_S(2), size) };
    kt_tensor outs[1] = { qout(dt, 4, ys, s, z) };
    kt_model r = kt_build(GC_OP_RESIZE_BILINEAR, GC_BO_ResizeBilinearOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_ResizeBilinearOptions_align_corners, align);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_ResizeBilinearOptions_half_pixel_centers, half);
    char what[128];
    snprintf(what, sizeof what, "RESIZE_BILINEAR %s %dx%dx%d -> %dx%d align%d half%d", gc_type_name(dt), H, W, C, OH, OW,
             align, half);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, 0, 0, what);
    gc_model_free(r.m);
    free(x);
}

GC_TEST(kernels_qelem_resize) {
    for (int i = 0; i < 24; i++) {
        bool align = irand(0, 2) == 0, half = !align && irand(0, 1);
        resize_case(rdt(), irand(1, 9), irand(1, 9), irand(1, 40), irand(1, 20), irand(1, 20), align, half);
    }
    resize_case(GC_T_UINT8, 9, 9, 21, 65, 65, true, false);      /* deeplab's last upsampling, smaller */
}

/* TRANSPOSE of 1-byte and 4-byte elements, every permutation of rank 2..4 */
static void transpose_case(int dt, int rank, const int32_t *shape, const int32_t *perm) {
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)shape[i];
    uint8_t *x = bytes(n * (size_t)gc_type_size(dt), dt);
    int32_t ys[6];
    for (int i = 0; i < rank; i++) ys[i] = shape[perm[i]];
    kt_tensor in0 = dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = rank, .feed = x } : qin(dt, rank, shape, x, 0.1f, 0);
    memcpy(in0.shape, shape, (size_t)rank * sizeof(int32_t));
    kt_tensor ins[2] = { in0, { .type = GC_T_INT32, .rank = 1, .shape = { rank }, .data = perm } };
    kt_tensor outs[1] = { dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = rank } : qout(dt, rank, ys, 0.1f, 0) };
    memcpy(outs[0].shape, ys, (size_t)rank * sizeof(int32_t));
    kt_model r = kt_build(GC_OP_TRANSPOSE, 0, ins, 2, outs, 1);
    char what[128];
    int k = snprintf(what, sizeof what, "TRANSPOSE %s [", gc_type_name(dt));
    for (int i = 0; i < rank; i++) k += snprintf(what + k, sizeof what - (size_t)k, "%d,", (int)shape[i]);
    k += snprintf(what + k, sizeof what - (size_t)k, "] perm ");
    for (int i = 0; i < rank; i++) k += snprintf(what + k, sizeof what - (size_t)k, "%d", (int)perm[i]);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, 0, 0, what);
    gc_model_free(r.m);
    free(x);
}

GC_TEST(kernels_qelem_transpose) {
    for (int rank = 2; rank <= 4; rank++) {
        int32_t perm[4] = { 0, 1, 2, 3 };
        /* every permutation (Heap's algorithm would do; rank <= 4: enumerate by index) */
        int total = rank == 2 ? 2 : rank == 3 ? 6 : 24;
        for (int p = 0; p < total; p++) {
            int used[4] = { 0 }, v = p, f = total;
            for (int i = 0; i < rank; i++) {
                f /= rank - i;
                int q = v / f; v %= f;
                for (int j = 0; j < rank; j++) if (!used[j] && q-- == 0) { perm[i] = j; used[j] = 1; break; }
            }
            int32_t sh[4];
            for (int i = 0; i < rank; i++) sh[i] = irand(1, 37);
            transpose_case(irand(0, 3) ? rdt() : GC_T_FLOAT32, rank, sh, perm);
        }
    }
    int32_t nhwc[4] = { 1, 60, 80, 8 }, to_nchw[4] = { 0, 3, 1, 2 }, nchw[4] = { 1, 16, 62, 82 }, to_nhwc[4] = { 0, 2, 3, 1 };
    transpose_case(GC_T_INT8, 4, nhwc, to_nchw);                   /* retinaface's */
    transpose_case(GC_T_INT8, 4, nchw, to_nhwc);
}

/* PAD / PADV2 of int8 and float tensors, pads on any dim */
static void pad_case2(int dt, int rank, bool v2) {
    int32_t sh[4], ys[4], pads[8];
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        sh[i] = irand(1, 9); pads[2 * i] = irand(0, 3); pads[2 * i + 1] = irand(0, 3);
        ys[i] = sh[i] + pads[2 * i] + pads[2 * i + 1]; n *= (size_t)sh[i];
    }
    uint8_t *x = bytes(n * (size_t)gc_type_size(dt), dt);
    float fv = 1.5f; uint8_t bv = (uint8_t)irand(0, 255);
    kt_tensor in0 = dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = rank, .feed = x } : qin(dt, rank, sh, x, 0.1f, zp_for(dt));
    memcpy(in0.shape, sh, (size_t)rank * sizeof(int32_t));
    kt_tensor ins[3] = { in0, { .type = GC_T_INT32, .rank = 2, .shape = { rank, 2 }, .data = pads },
                         v2 ? (dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = 0, .data = &fv }
                                                  : (kt_tensor){ .type = dt, .rank = 0, .data = &bv, .scale = 0.1f, .zp = in0.zp })
                            : (kt_tensor){ .type = -1 } };
    kt_tensor outs[1] = { dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = rank } : qout(dt, rank, ys, 0.1f, in0.zp) };
    memcpy(outs[0].shape, ys, (size_t)rank * sizeof(int32_t));
    kt_model r = kt_build(v2 ? GC_OP_PADV2 : GC_OP_PAD, 0, ins, v2 ? 3 : 2, outs, 1);
    char what[96];
    snprintf(what, sizeof what, "PAD%s %s rank %d", v2 ? "V2" : "", gc_type_name(dt), rank);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, 0, 0, what);
    gc_model_free(r.m);
    free(x);
}

GC_TEST(kernels_qelem_pad) {
    for (int i = 0; i < 30; i++) pad_case2(irand(0, 2) ? rdt() : GC_T_FLOAT32, irand(1, 4), irand(0, 1));
}

/* ARG_MAX / ARG_MIN over any axis, ties and NaN */
static void arg_case(int code, int dt, int rank, int axis) {
    int32_t sh[4], ys[4]; int r = 0;
    size_t n = 1;
    for (int i = 0; i < rank; i++) { sh[i] = irand(1, 9); n *= (size_t)sh[i]; if (i != axis) ys[r++] = sh[i]; }
    uint8_t *x = bytes(n * (size_t)gc_type_size(dt), dt);
    if (dt == GC_T_FLOAT32) {
        float *f = (float *)(void *)x;
        for (size_t i = 0; i < n; i++) f[i] = (float)irand(-3, 3);        /* many ties */
        if (n > 3) { f[n / 2] = NAN; f[1] = -0.0f; }
    } else for (size_t i = 0; i < n; i++) x[i] = (uint8_t)irand(0, 3) * 85;
    int32_t ax = axis;
    kt_tensor in0 = dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = rank, .feed = x } : qin(dt, rank, sh, x, 0.1f, 0);
    memcpy(in0.shape, sh, (size_t)rank * sizeof(int32_t));
    kt_tensor ins[2] = { in0, { .type = GC_T_INT32, .rank = 1, .shape = { 1 }, .data = &ax } };
    kt_tensor outs[1] = { { .type = irand(0, 1) ? GC_T_INT32 : GC_T_INT64, .rank = r } };
    memcpy(outs[0].shape, ys, (size_t)r * sizeof(int32_t));
    kt_model k = kt_build(code, 0, ins, 2, outs, 1);
    char what[96];
    snprintf(what, sizeof what, "%s %s rank %d axis %d", gc_builtin_name(code), gc_type_name(dt), rank, axis);
    const void *feeds[1] = { x };
    compare(k.m, feeds, 1, 0, 0, what);
    gc_model_free(k.m);
    free(x);
}

/* over the last axis of len (the vector rows), pixels x len bytes of values with ties */
static void arg_rows_case(int code, int dt, int pixels, int len) {
    uint8_t *x = bytes((size_t)pixels * len, dt);
    for (int i = 0; i < pixels * len; i++) if (irand(0, 2) == 0) x[i] = (uint8_t)(irand(0, 1) ? 0x7f : 0x80);
    int32_t ax = 1, sh[2] = { pixels, len };
    kt_tensor ins[2] = { qin(dt, 2, sh, x, 0.1f, 0), { .type = GC_T_INT32, .rank = 1, .shape = { 1 }, .data = &ax } };
    kt_tensor outs[1] = { { .type = irand(0, 1) ? GC_T_INT32 : GC_T_INT64, .rank = 1, .shape = { pixels } } };
    kt_model k = kt_build(code, 0, ins, 2, outs, 1);
    char what[96];
    snprintf(what, sizeof what, "%s %s %d x %d", gc_builtin_name(code), gc_type_name(dt), pixels, len);
    const void *feeds[1] = { x };
    compare(k.m, feeds, 1, 0, 0, what);
    gc_model_free(k.m);
    free(x);
}

GC_TEST(kernels_qelem_argmax) {
    for (int i = 0; i < 24; i++) {
        int rank = irand(1, 4);
        arg_case(irand(0, 1) ? GC_OP_ARG_MAX : GC_OP_ARG_MIN, irand(0, 2) ? rdt() : GC_T_FLOAT32, rank, irand(0, rank - 1));
    }
    for (int i = 0; i < 8; i++) arg_rows_case(irand(0, 1) ? GC_OP_ARG_MAX : GC_OP_ARG_MIN, rdt(), irand(1, 300), irand(1, 33));
    arg_rows_case(GC_OP_ARG_MAX, GC_T_UINT8, 999, 21);            /* deeplab's last op */
    arg_rows_case(GC_OP_ARG_MIN, GC_T_INT8, 77, 32);
}

/* byte-identical float outputs, except that any two NaNs count as equal: which NaN an
 * x86 addition returns when both operands are NaN follows the operand order, which the
 * compiler may swap in the reference's scalar `acc + p` (seen under -O1, the sanitizer
 * build) */
static bool same_bits_or_nan(const uint8_t *a, const uint8_t *b, size_t n) {
    for (size_t i = 0; i + 4 <= n; i += 4) {
        float x, y;
        memcpy(&x, a + i, 4); memcpy(&y, b + i, 4);
        if (memcmp(a + i, b + i, 4) && !(x != x && y != y)) return false;
    }
    return n % 4 == 0;
}

/* FULLY_CONNECTED with blockwise INT4 weights (kernels/qfc4.h): x [rows, K] FLOAT32, W INT4
 * [N, K] packed two per byte, FLOAT16 scales [N, K / block]. specials: 1 zeros and a huge x,
 * 2 also infinities and a NaN in x, 3 that and scales of 0, -0, the smallest subnormal
 * half, 65504 and (sometimes) an infinite or NaN scale (the w3 layout's fallback) */
static void blockwise_case(int rows, int K, int N, int block, int act, int specials) {
    float *x = malloc((size_t)rows * K * sizeof(float));
    for (int i = 0; i < rows * K; i++) x[i] = frand(-4.0f, 4.0f);
    if (specials && rows * K > 4) { x[1] = 0.0f; x[2] = -0.0f; x[3] = 1e30f; }
    if (specials >= 2 && rows * K > 8) { x[5] = INFINITY; x[rows * K - 1] = -INFINITY; x[rows * K / 2] = NAN; }
    uint8_t *w = bytes((size_t)(N * K + 1) / 2, 0);
    int nb = K / block;
    uint16_t *sc = malloc((size_t)N * nb * sizeof(uint16_t));
    for (int i = 0; i < N * nb; i++) sc[i] = gc_f32_to_f16(frand(0.001f, 0.2f) * (irand(0, 9) ? 1.0f : -1.0f));
    if (specials >= 3) {
        static const uint16_t odd[] = { 0x0000, 0x8000, 0x0001, 0x7bff, 0x8001, 0x03ff };
        for (int i = 0; i < N * nb; i += irand(1, 5)) sc[i] = odd[irand(0, 5)];
        if (irand(0, 1)) { sc[irand(0, N * nb - 1)] = irand(0, 1) ? 0x7c00 : 0x7e00; }
    }
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t xs[2] = { rows, K }, ws[2] = { N, K }, ss[2] = { N, nb }, ys[2] = { rows, N };
    int32_t tx = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, xs, 0);
    int32_t tw = gc_sg_add_tensor(m, sg, "w", GC_T_INT4, 2, ws, (uint32_t)gc_model_add_buffer(m, w, (size_t)(N * K + 1) / 2));
    int32_t ts = gc_sg_add_tensor(m, sg, "s", GC_T_FLOAT16, 2, ss, (uint32_t)gc_model_add_buffer(m, sc, (size_t)N * nb * 2));
    int32_t ty = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 2, ys, 0);
    gc_quant *q = gc_arena_alloc(&m->arena, sizeof *q);
    memset(q, 0, sizeof *q);
    q->details_type = 2; q->bw_scales = ts; q->bw_zero_points = -1; q->bw_block_size = block; q->bw_present = 1 | 4;
    m->subgraphs[sg].tensors[tw].quant = q;
    int32_t in[3] = { tx, tw, -1 }, out[1] = { ty };
    gc_sg_insert_op(m, sg, 0, gc_model_add_opcode(m, GC_OP_FULLY_CONNECTED, NULL, 1), 3, in, 1, out);
    gc_op *op = &m->subgraphs[sg].ops[0];
    gc_opt_init(m, &op->opt, GC_BO_FullyConnectedOptions);
    gc_opt_set_int(m, &op->opt, GC_O_FullyConnectedOptions_fused_activation_function, act);
    gc_sg_set_io(m, sg, 1, &tx, 1, &ty);
    char what[96];
    snprintf(what, sizeof what, "FC blockwise INT4 %dx%d * [%d,%d]' block %d act%d", rows, K, N, K, block, act);
    const void *feeds[1] = { x };
    /* the fast path exists from AVX2 up, for blocks of a multiple of 8 (else the reference runs);
     * in fp32 and the fp16 modes that sum in float (native, js: the half-rounded scales), not
     * fp16-acc's half sums */
    static const struct { gc_precision p; gc_f16_runtime rt; } precs[4] = {
        { GC_PREC_FP32, GC_GPU_NATIVE }, { GC_PREC_FP16, GC_GPU_NATIVE }, { GC_PREC_FP16, GC_GPU_JS },
        { GC_PREC_FP16_ACC, GC_GPU_NATIVE } };
    for (int pi = 0; pi < 4; pi++)
    for (int qmode = 0; qmode <= 1; qmode++) {
        qf_prec = precs[pi].p; qf_rt = precs[pi].rt;
        const bool fast_here = precs[pi].p != GC_PREC_FP16_ACC;
        uint8_t *want = NULL, *got = NULL; size_t nw = 0, ng = 0; path p;
        CHECK_MSG(run(m, feeds, 1, true, 1, qmode, &want, &nw, &p), "%s: reference failed", what);
        for (int isa = GC_ISA_SCALAR; want && isa <= (int)gc_isa_detect(); isa++) {
            gc_isa_force(isa);
            /* 1, 2, 3 threads, then 3 in chunks of 1 item (panel ranges split everywhere) */
            for (int t = 1; t <= 4; t++) {
                if (t == 4) gc_pool_force_chunk(1);
                bool ok = run(m, feeds, 1, false, t == 4 ? 3 : t, qmode, &got, &ng, &p);
                if (t == 4) gc_pool_force_chunk(0);
                if (ok) {
                    CHECK_MSG(p.n_fast == (fast_here && isa >= GC_ISA_AVX2 && block % 8 == 0 ? 1 : 0), "%s: prec %d: isa %s: %d fast",
                              what, pi, gc_isa_name((gc_isa)isa), p.n_fast);
                    CHECK_MSG(ng == nw && same_bits_or_nan(got, want, nw), "%s: prec %d: isa %s mode %d threads %d: output differs", what,
                              pi, gc_isa_name((gc_isa)isa), qmode, t);
                } else CHECK_MSG(false, "%s: fast run failed", what);
                free(got); got = NULL;
            }
        }
        gc_isa_force(-1);
        free(want);
        n_cases++;
    }
    qf_prec = GC_PREC_FP32; qf_rt = GC_GPU_NATIVE;
    gc_model_free(m);
    free(x); free(w); free(sc);
}

GC_TEST(kernels_qelem_blockwise_fc) {
    for (int i = 0; i < 24; i++) {
        int block = 2 << irand(0, 5), N = irand(1, 150);
        blockwise_case(irand(1, 3), block * irand(1, 6), N, block, irand(0, 3), irand(0, 3));
    }
    blockwise_case(2, 24 * 5, 70, 24, 0, 3);                   /* blocks of a multiple of 3 */
    blockwise_case(1, 40 * 3, 33, 40, 1, 3);                   /* 40 mod 3 = 1 */
    blockwise_case(1, 1024, 1024, 32, 0, 0);                   /* qwen's */
    /* large enough to split over threads in the XNNPACK order too (fc.c: below 2^19 units
     * of work one thread runs it), with a partial last panel */
    blockwise_case(1, 2048, 1100, 64, 0, 2);
}

/* CAST of integers and floats to FLOAT32 (the typed loops of the fast path) */
GC_TEST(kernels_qelem_cast) {
    const int types[] = { GC_T_INT32, GC_T_UINT8, GC_T_INT8, GC_T_FLOAT32, GC_T_INT64, GC_T_INT16 };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        int n = irand(1, 300);
        uint8_t *x = bytes((size_t)n * (size_t)gc_type_size(types[t]), 0);
        if (types[t] == GC_T_FLOAT32) ((float *)(void *)x)[0] = NAN;
        if (types[t] == GC_T_INT32 && n > 1) { ((int32_t *)(void *)x)[0] = INT32_MAX; ((int32_t *)(void *)x)[1] = 16777217; }
        kt_tensor ins[1] = { { .type = types[t], .rank = 1, .shape = { n }, .feed = x } };
        kt_tensor outs[1] = { KT_OUT(GC_T_FLOAT32, 1, KT_S(n)) };
        kt_model r = kt_build(GC_OP_CAST, 0, ins, 1, outs, 1);
        char what[64];
        snprintf(what, sizeof what, "CAST %s -> FLOAT32 n%d", gc_type_name(types[t]), n);
        const void *feeds[1] = { x };
        compare(r.m, feeds, 1, 0, 0, what);
        gc_model_free(r.m);
        free(x);
    }
}

/* MEAN / SUM over random axes (one contiguous block: the fast path; others: the reference) */
static void reduce_case(int code, int dt, int rank, unsigned axes_mask, bool keep) {
    int32_t sh[4], ys[4], axes[4]; int na = 0, ry = 0;
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        sh[i] = irand(1, 9); n *= (size_t)sh[i];
        if (axes_mask >> i & 1) { axes[na++] = i; if (keep) ys[ry++] = 1; }
        else ys[ry++] = sh[i];
    }
    if (!na) { axes[na++] = 0; if (!keep) { memmove(ys, ys + 1, (size_t)(ry - 1) * 4); ry--; } else ys[0] = 1; }
    uint8_t *x = bytes(n * (size_t)gc_type_size(dt), dt);
    if (dt == GC_T_FLOAT32) for (size_t i = 0; i < n; i++) ((float *)(void *)x)[i] = frand(-10.0f, 10.0f);
    kt_tensor in0 = dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = rank, .feed = x } : qin(dt, rank, sh, x, 0.05f, zp_for(dt));
    memcpy(in0.shape, sh, (size_t)rank * sizeof(int32_t));
    kt_tensor ins[2] = { in0, { .type = GC_T_INT32, .rank = 1, .shape = { na }, .data = axes } };
    kt_tensor outs[1] = { dt == GC_T_FLOAT32 ? (kt_tensor){ .type = dt, .rank = ry } : qout(dt, ry, ys, irand(0, 1) ? 0.05f : 0.03f, zp_for(dt)) };
    memcpy(outs[0].shape, ys, (size_t)ry * sizeof(int32_t));
    kt_model r = kt_build(code, GC_BO_ReducerOptions, ins, 2, outs, 1);
    gc_opt_set_int(r.m, &r.op->opt, GC_O_ReducerOptions_keep_dims, keep);
    char what[96];
    snprintf(what, sizeof what, "%s %s rank %d axes %#x keep %d", gc_builtin_name(code), gc_type_name(dt), rank, axes_mask, keep);
    const void *feeds[1] = { x };
    compare(r.m, feeds, 1, 0, 0, what);
    gc_model_free(r.m);
    free(x);
}

GC_TEST(kernels_qelem_reduce) {
    for (int i = 0; i < 30; i++) {
        int rank = irand(1, 4);
        reduce_case(irand(0, 1) ? GC_OP_MEAN : GC_OP_SUM, irand(0, 2) ? rdt() : GC_T_FLOAT32, rank,
                    (unsigned)irand(1, (1 << rank) - 1), irand(0, 1));
    }
    reduce_case(GC_OP_MEAN, GC_T_INT8, 4, 6, true);             /* the global average pool */
    reduce_case(GC_OP_MEAN, GC_T_UINT8, 4, 6, true);
}
