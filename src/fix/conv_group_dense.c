/* conv_group_dense.c — pass conv_group_dense [fix.conv.group_dense]
 *
 * Measured on an NVIDIA H200 (driver 580.159.04), LiteRT GPU accelerator (ML Drift),
 * native libLiteRt 2.3.0 and LiteRT.js 2.5.3, single-op sweep models fully delegated,
 * GPU vs CPU of the same runtime: a grouped CONV_2D with 2 output channels per group is
 * wrong (2 and 3 groups; max |diff| up to 3.8), with 4 per group it was right (2, 3 and
 * 4 groups) — fact numerics.conv_group_out.
 *
 * Rewrite:      CONV_2D(x [N,H,W,C], w [OC,KH,KW,C/G], b) with G = C / (C/G) > 1 groups
 *               (output channel o belongs to group g = o / (OC/G) and reads input
 *               channels g*(C/G) .. (g+1)*(C/G)-1)  ->
 *               CONV_2D(x, W [OC,KH,KW,C], b) with
 *                   W[o][ky][kx][g*(C/G) + i] = w[o][ky][kx][i], zero elsewhere
 *               (the block-diagonal dense filter), the same bias, strides, padding,
 *               dilations and fused activation.
 * Precondition: FLOAT32 x, w, bias and output without quantization; static rank-4 x; a
 *               constant filter whose depth divides C (G > 1) and whose OC is a multiple
 *               of G; a constant bias or none; G <= 16 (the dense conv does G times the
 *               multiply-adds); W fits opts.max_const_bytes. Scope: nodes the checker
 *               refuses or a measured fact calls wrong with this fix.
 * Exactness:    exact for finite inputs. The reference grouped conv sums, from 0, the
 *               taps (ky, kx, i) of its group in that order, then adds the bias; the
 *               dense conv sums the taps (ky, kx, c) over all C channels in the same
 *               order, so the group's products come in their old order with products
 *               0 * x of the other groups' channels between them, which leave the sum
 *               as it is (they are +-0) — except that a NaN or infinite x makes 0 * x
 *               NaN in every output of its pixel, and a -0 sum may read +0.
 */
#include "fix_int.h"

#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_CONV_2D, -1 };

enum { MAX_GROUPS = 16 };

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo x, w, y, b;
    int32_t bi;
    int rc = fx_conv_operands(c, op, &x, &w, &y, &b, &bi);
    if (rc != 1) return rc;
    int32_t C = x.shape[3], CG = w.shape[3], OC = w.shape[0], KH = w.shape[1], KW = w.shape[2];
    if (CG <= 0 || C <= CG) return fx_pass_over(c);   /* not grouped */
    if (C % CG) return fx_decline(c, "input depth %d is not a multiple of the filter depth %d", (int)C, (int)CG);
    int32_t G = C / CG;
    if (OC <= 0 || OC % G) return fx_decline(c, "%d output channels do not split into %d groups", (int)OC, (int)G);
    if (G > MAX_GROUPS)
        return fx_decline(c, "%d groups: the dense conv would do %dx the multiply-adds (limit %d groups)", (int)G, (int)G,
                          MAX_GROUPS);
    if ((rc = fx_conv_float_consts(c, "CONV_2D", &x, &w, &y, &b, bi)) != 1) return rc;
    if (KH <= 0 || KW <= 0) return fx_decline(c, "empty filter");
    /* each factor < 2^31: the product is checked against the byte limit factor by factor */
    uint64_t lim = c->opts->max_const_bytes / 4, taps = 0;
    bool over = (uint64_t)OC > lim || (uint64_t)KH > lim / (uint64_t)OC || (uint64_t)KW > lim / ((uint64_t)OC * KH);
    if (!over) taps = (uint64_t)OC * (uint64_t)KH * (uint64_t)KW;   /* <= lim */
    if (over || (uint64_t)C > lim / taps)
        return fx_decline(c, "the dense filter [%d,%d,%d,%d] is over the %llu-byte limit", (int)OC, (int)KH, (int)KW, (int)C,
                          (unsigned long long)c->opts->max_const_bytes);
    uint64_t welems = taps * (uint64_t)C, wbytes = welems * 4;
    uint64_t nb = 0;
    const uint8_t *wd = fx_data(c, w.index, &nb);
    if (!wd || nb < taps * (uint64_t)CG * 4) return fx_decline(c, "the filter data is short");
    gc_fix_conv_geom geom = fx_conv_geom(c, op);
    float *W = calloc((size_t)welems, sizeof(float));   /* [OC][KH][KW][C] */
    if (!W) return -1;
    int32_t opg = OC / G;
    for (int64_t oc = 0; oc < OC; oc++) {
        int64_t g = oc / opg;
        for (int64_t t = 0; t < (int64_t)KH * KW; t++)
            memcpy(&W[(oc * KH * KW + t) * C + g * CG], wd + (size_t)((oc * KH * KW + t) * CG) * 4, (size_t)CG * 4);
    }
    int32_t wshape[4] = { OC, KH, KW, C };
    int32_t wt = fx_new_const(c, y.name, "dense_filter", GC_T_FLOAT32, 4, wshape, W, wbytes, NULL);
    free(W);
    if (wt < 0) return -1;
    fx_remove_op(c, op);
    int32_t in[3] = { x.index, wt, bi };
    int32_t k = fx_add_op(c, op, GC_OP_CONV_2D, 1, bi >= 0 ? 3 : 2, in, 1, &y.index);   /* v1: no groups */
    if (k < 0) return -1;
    fx_conv_geom_set(c, k, &geom);
    fx_note(c, "CONV_2D with the block-diagonal dense filter [%d,%d,%d,%d] (%d groups of %d output channels)", (int)OC,
            (int)KH, (int)KW, (int)C, (int)G, (int)opg);
    return 1;
}

const gc_fix_pass gc_fix_conv_group_dense = {
    .id = "conv_group_dense",
    .fix_id = "fix.conv.group_dense",
    .summary = "grouped CONV_2D measured wrong -> CONV_2D with the block-diagonal dense filter",
    .anchors = anchors,
    .exactness = GC_FIX_EXACT_FINITE,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
