/* conv_out_split.c — pass conv_out_split [fix.conv.split_out_channels]
 *
 * Measured on an NVIDIA H200 (driver 580.159.04), LiteRT.js 2.5.3 at fp16, GPU vs CPU:
 * a 3x3 stride-1 CONV_2D with 64 input channels on a 28x28 or 56x56 input computes wrong
 * numbers (sweep family conv_wide: max |diff| 3.1-5.4 on outputs of ~5; resnet18's layer1,
 * named by gpuclean bisect), while 32 channels at 56x56, 64 channels at 16x16, 1x1 and
 * stride-2 convs are right, and the native runtime is right on all of them (fact
 * numerics.conv3x3_wide_fp16_js). Those are the convs ML Drift computes with Winograd
 * F(4x4,3x3) (3x3, stride 1, dilation 1, >= 16 source and destination slices of 4
 * channels, >= 32 output tiles of 4x4): LiteRT.js's half-precision Winograd is wrong.
 *
 * Rewrite:      CONV_2D(x [N,H,W,C], w [OC,KH,KW,C], b [OC]) -> y [N,OH,OW,OC]  ->
 *                   CONV_2D(x, w[o0:o1], b[o0:o1]) -> y_k [N,OH,OW,o1-o0]   for each
 *                   piece of at most 32 output channels (o0 = 32 k), the same strides,
 *                   padding, dilations and fused activation;
 *                   CONCATENATION(y_0, y_1, ..., axis 3) -> y
 *               (fewer than 16 destination slices per conv: ML Drift's direct conv, the
 *               form measured right).
 * Precondition: FLOAT32 x, w, bias, output without quantization, static rank 4; constant
 *               filter (and bias, or none) of a conv with one group; OC > 32 and at most
 *               32 pieces. Scope: nodes a measured fact calls wrong with this fix (at the
 *               precision `fix --precision` names).
 * Exactness:    bit-exact: every output channel is computed from the same taps, in the
 *               same order, with the same bias and activation; the concatenation copies.
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_CONV_2D, -1 };

enum { PIECE = 32, MAX_PIECES = 32 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo x, w, y, b;
    int32_t bi;
    int rc = fx_conv_operands(c, op, &x, &w, &y, &b, &bi);
    if (rc != 1) return rc;
    const gc_op *o = fx_op(c, op);
    if (!y.is_static) return fx_pass_over(c);
    int32_t OC = w.shape[0], KH = w.shape[1], KW = w.shape[2], C = w.shape[3];
    if (C != x.shape[3]) return fx_decline(c, "a grouped conv (filter depth %d, input depth %d)", (int)C, (int)x.shape[3]);
    if (OC <= PIECE) return fx_pass_over(c);
    if (OC > PIECE * MAX_PIECES) return fx_decline(c, "%d output channels: more than %d pieces", (int)OC, MAX_PIECES);
    if ((rc = fx_conv_float_consts(c, "CONV_2D", &x, &w, &y, &b, bi)) != 1) return rc;
    if (bi >= 0 && (b.rank != 1 || b.shape[0] != OC)) return fx_decline(c, "the bias is not [%d]", (int)OC);
    if (KH <= 0 || KW <= 0 || C <= 0) return fx_decline(c, "empty filter");
    /* per-channel filter size; OC * row_elems <= the filter's own element count */
    uint64_t row = (uint64_t)KH * (uint64_t)KW * (uint64_t)C, nb = 0, bb = 0;
    const uint8_t *wd = fx_data(c, w.index, &nb);
    if (!wd || nb / 4 / row < (uint64_t)OC) return fx_decline(c, "the filter data is short");
    const uint8_t *bd = bi >= 0 ? fx_data(c, bi, &bb) : NULL;
    if (bi >= 0 && (!bd || bb < (uint64_t)OC * 4)) return fx_decline(c, "the bias data is short");
    gc_fix_conv_geom geom = fx_conv_geom(c, op);
    int32_t version = gc_op_code(c->m, o)->version;
    int n = (OC + PIECE - 1) / PIECE;
    int32_t parts[MAX_PIECES];
    fx_remove_op(c, op);
    int32_t at = op;
    char what[48];
    for (int k = 0; k < n; k++) {
        int32_t o0 = k * PIECE, cnt = OC - o0 < PIECE ? OC - o0 : PIECE;
        int32_t ws[4] = { cnt, KH, KW, C }, bs[1] = { cnt }, ys[4] = { y.shape[0], y.shape[1], y.shape[2], cnt };
        snprintf(what, sizeof what, "filter_%d", k);
        int32_t wt = fx_new_const(c, y.name, what, GC_T_FLOAT32, 4, ws, wd + (size_t)((uint64_t)o0 * row * 4),
                                  (uint64_t)cnt * row * 4, NULL);
        int32_t bt = -1;
        if (bd) {
            snprintf(what, sizeof what, "bias_%d", k);
            bt = fx_new_const(c, y.name, what, GC_T_FLOAT32, 1, bs, bd + (size_t)o0 * 4, (uint64_t)cnt * 4, NULL);
        }
        snprintf(what, sizeof what, "channels_%d", k);
        int32_t yt = fx_new_tensor(c, y.name, what, GC_T_FLOAT32, 4, ys, NULL);
        if (wt < 0 || yt < 0 || (bd && bt < 0)) return -1;
        int32_t in[3] = { x.index, wt, bt };
        int32_t kk = fx_add_op(c, at++, GC_OP_CONV_2D, version, bd ? 3 : 2, in, 1, &yt);
        if (kk < 0) return -1;
        fx_conv_geom_set(c, kk, &geom);
        parts[k] = yt;
    }
    int32_t cat = fx_add_op(c, at, GC_OP_CONCATENATION, 1, n, parts, 1, &y.index);
    if (cat < 0) return -1;
    gc_opt_set_int(c->m, &fx_op(c, cat)->opt, GC_O_ConcatenationOptions_axis, 3);
    fx_note(c, "%d CONV_2D of <= %d output channels, CONCATENATION on the channel axis", n, PIECE);
    return 1;
}

const gc_fix_pass gc_fix_conv_out_split = {
    .id = "conv_out_split",
    .fix_id = "fix.conv.split_out_channels",
    .summary = "CONV_2D measured wrong (LiteRT.js fp16 Winograd) -> CONV_2Ds of <= 32 output channels + CONCATENATION",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
