/* dwconv_k1_multiplier.c — pass dwconv_k1_multiplier [fix.depthwise.k1_multiplier]
 *
 * Measured on an NVIDIA H200 (driver 580.159.04), LiteRT GPU accelerator (ML Drift),
 * native libLiteRt 2.3.0 and LiteRT.js 2.5.3 with identical numbers, fp32 and fp16,
 * single-op models of tools/sweep fully delegated, GPU vs CPU of the same runtime:
 * DEPTHWISE_CONV_2D with a 1x1 kernel and depth_multiplier > 1 is wrong — input
 * [1,16,16,4], multiplier 2 (corr 0.91) and 4 (corr 0.65); multiplier 1 is right, and so
 * are larger kernels with multiplier 2 or 4 (cases dwconv_k1_*_m2_c4, dwconv_k1_*_m4_c4
 * wrong).
 *
 * Rewrite:      DEPTHWISE_CONV_2D(x [N,H,W,Cin], w [1,1,1,Cin*m], b)  ->
 *               CONV_2D(x, W [Cin*m,1,1,Cin], b) with
 *                   W[c*m + j][0][0][c] = w[0][0][0][c*m + j], zero elsewhere
 *               (output channel c*m + j reads input channel c, as in the depthwise op),
 *               the same bias, stride, padding and fused activation; dilation 1 (a 1x1
 *               kernel has no taps to spread).
 * Precondition: FLOAT32 x, w, bias and output without quantization; a static rank-4 x;
 *               a constant 1x1 filter whose channels are Cin*m with m > 1 (and the
 *               depth_multiplier option 0 or m); a constant bias or none; W fits
 *               opts.max_const_bytes. Applied wherever it holds (scope "any"): the GPU
 *               accepts the node, its numbers are what is wrong.
 * Exactness:    exact for finite inputs. The depthwise output is 0 + w x (+ b); the
 *               CONV_2D one (reference order: from 0, taps in input-channel order, then
 *               the bias) adds the Cin - 1 products 0 x as well, which leave w x as it
 *               is (they are +-0) — except that a NaN or infinite x of one channel makes
 *               0 x NaN in the other channels of its pixel, and a -0 product may read +0.
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_DEPTHWISE_CONV_2D, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo x, w, y, b;
    int32_t bi;
    int rc = fx_conv_operands(c, op, &x, &w, &y, &b, &bi);
    if (rc != 1) return rc;
    const gc_op *o = fx_op(c, op);
    if (w.shape[0] != 1 || w.shape[1] != 1 || w.shape[2] != 1 || !w.is_const) return fx_pass_over(c);   /* not 1x1 */
    int32_t cin = x.shape[3], cout = w.shape[3];
    if (cin <= 0 || cout % cin) return fx_pass_over(c);
    int32_t m = cout / cin;
    if (m <= 1) return fx_pass_over(c);   /* multiplier 1: measured right */
    const gc_options *opt = &o->opt;
    int64_t dm = gc_opt_int(opt, GC_O_DepthwiseConv2DOptions_depth_multiplier);
    if (dm != 0 && dm != m) return fx_decline(c, "depth_multiplier %lld does not match the filter (%d)", (long long)dm, (int)m);
    if ((rc = fx_conv_float_consts(c, "DEPTHWISE_CONV_2D", &x, &w, &y, &b, bi)) != 1) return rc;
    /* cout, cin < 2^31: the product fits; the limit is checked before the bytes */
    uint64_t welems = (uint64_t)cout * (uint64_t)cin, wbytes = welems <= UINT64_MAX / 4 ? welems * 4 : UINT64_MAX;
    if (wbytes > c->opts->max_const_bytes)
        return fx_decline(c, "the CONV_2D filter would take %llu bytes, over the %llu-byte limit",
                          (unsigned long long)wbytes, (unsigned long long)c->opts->max_const_bytes);
    uint64_t nb = 0;
    const uint8_t *wd = fx_data(c, w.index, &nb);
    if (!wd || nb < (uint64_t)cout * 4) return fx_decline(c, "the filter data is short");
    gc_fix_conv_geom geom = fx_conv_geom(c, op);
    geom.dilation_w = geom.dilation_h = 1;   /* a 1x1 kernel has no taps to spread */
    float *W = calloc((size_t)cout * (size_t)cin, sizeof(float));   /* [Cin*m][1][1][Cin] */
    if (!W) return -1;
    for (int32_t ch = 0; ch < cin; ch++)
        for (int32_t j = 0; j < m; j++) {
            int64_t oc = (int64_t)ch * m + j;
            memcpy(&W[oc * cin + ch], wd + (size_t)oc * 4, 4);
        }
    int32_t wshape[4] = { cout, 1, 1, cin };
    int32_t wt = fx_new_const(c, y.name, "conv_filter", GC_T_FLOAT32, 4, wshape, W, wbytes, NULL);
    free(W);
    if (wt < 0) return -1;
    fx_remove_op(c, op);
    int32_t in[3] = { x.index, wt, bi };
    int32_t k = fx_add_op(c, op, GC_OP_CONV_2D, 1, 3, in, 1, &y.index);
    if (k < 0) return -1;
    fx_conv_geom_set(c, k, &geom);
    fx_note(c, "CONV_2D 1x1 stride %lld/%lld, filter [%d,1,1,%d] (multiplier %d spread over the input channels)",
            (long long)geom.stride_h, (long long)geom.stride_w, (int)cout, (int)cin, (int)m);
    return 1;
}

const gc_fix_pass gc_fix_dwconv_k1_multiplier = {
    .id = "dwconv_k1_multiplier",
    .fix_id = "fix.depthwise.k1_multiplier",
    .summary = "DEPTHWISE_CONV_2D 1x1 with depth_multiplier > 1 -> CONV_2D 1x1 with the block-diagonal filter",
    .anchors = anchors,
    .exactness = GC_FIX_EXACT_FINITE,
    .scope = GC_FIX_SCOPE_ANY,
    .apply = apply,
};
