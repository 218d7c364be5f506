/* sweep_shape.c — data-movement cases (sweep.h): PAD / PADV2 / MIRROR_PAD, GATHER /
 * GATHER_ND, RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR.
 *
 * PAD paddings are int32 [rank, 2] (before, after per dim). GATHER: params [6,5,4]
 * (runtime or constant), indices int32 (constant {4,0,2} / {{1,3},{5,0}}, or runtime: the
 * device feeds int32 inputs (i*7+k)%3, i.e. 0..2, valid on every axis here); out =
 * params.shape[:axis] + indices.shape + params.shape[axis+1:]. GATHER_ND: indices
 * [..., depth] into params [6,5,4]. RESIZE: NHWC [1,H,W,3] -> [1,h,w,3], size constant.
 */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

static void shape_str(char *buf, size_t n, int r, const int32_t *s) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < r && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "x" : "", s[i]);
}

/* ---- PAD ------------------------------------------------------------------------------ */

typedef enum { P_PAD, P_PADV2, P_MIRROR_REFLECT, P_MIRROR_SYMMETRIC } pad_kind;

static void pad(sw_ctx *x, pad_kind kind, int rank, const int32_t *pads, const char *ptag) {
    static const int32_t s3[] = { 4, 5, 6 }, s4[] = { 1, 4, 5, 6 };
    const int32_t *s = rank == 3 ? s3 : s4;
    int32_t os[4];
    for (int i = 0; i < rank; i++) os[i] = s[i] + pads[2 * i] + pads[2 * i + 1];
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, rank, s);
    int32_t p = sw_const_i32(&c, "paddings", SW_L(rank, 2), pads);
    int32_t y = sw_t(&c, "y", SW_F32, rank, os);
    const char *op = "PAD", *lower = "pad";
    if (kind == P_PAD) sw_op(&c, GC_OP_PAD, 1, SW_L(in, p), SW_L(y));
    else if (kind == P_PADV2) {
        const float v = -1.5f;
        int32_t cv = sw_const(&c, "constant_values", SW_F32, 0, NULL, &v);
        sw_op(&c, GC_OP_PADV2, 1, SW_L(in, p, cv), SW_L(y));
        op = "PADV2"; lower = "padv2";
    } else {
        int32_t o = sw_op(&c, GC_OP_MIRROR_PAD, 1, SW_L(in, p), SW_L(y));
        sw_opt(&c, o, GC_O_MirrorPadOptions_mode, kind == P_MIRROR_SYMMETRIC);
        op = "MIRROR_PAD"; lower = kind == P_MIRROR_SYMMETRIC ? "mirror_pad_symmetric" : "mirror_pad_reflect";
        sw_attr_s(&c, "mode", kind == P_MIRROR_SYMMETRIC ? "SYMMETRIC" : "REFLECT");
    }
    char ps[96] = "", sh[32], what[256];
    size_t k = 0;
    for (int i = 0; i < 2 * rank; i++) k += (size_t)snprintf(ps + k, sizeof ps - k, "%s%d", i ? "," : "", pads[i]);
    shape_str(sh, sizeof sh, rank, s);
    sw_attr_i(&c, "rank", rank);
    sw_attr_s(&c, "paddings", ps);
    sw_attr_s(&c, "pads_on", ptag);
    snprintf(what, sizeof what, "%s%s rank %d [%s] paddings (%s): %s", op,
             kind == P_MIRROR_SYMMETRIC ? " SYMMETRIC" : kind == P_MIRROR_REFLECT ? " REFLECT" : "", rank, sh, ps, ptag);
    sw_emit(x, &c, "pad", op, what, "%s_r%d_%s", lower, rank, ptag);
}

void sw_family_pad(sw_ctx *x) {
    /* rank 4 [1,4,5,6] / rank 3 [4,5,6]: what is padded */
    static const int32_t hw4[] = { 0, 0, 1, 1, 1, 1, 0, 0 }, asym4[] = { 0, 0, 0, 2, 1, 0, 0, 0 };
    static const int32_t ch4[] = { 0, 0, 0, 0, 0, 0, 1, 2 }, b4[] = { 1, 0, 0, 0, 0, 0, 0, 0 };
    static const int32_t hw3[] = { 1, 1, 1, 1, 0, 0 }, asym3[] = { 0, 2, 1, 0, 0, 0 }, ch3[] = { 0, 0, 0, 0, 1, 2 };
    static const int32_t all3[] = { 2, 1, 1, 2, 1, 1 };
    for (int kind = P_PAD; kind <= P_PADV2; kind++) {
        pad(x, kind, 4, hw4, "hw");
        pad(x, kind, 4, asym4, "hw_asym");
        pad(x, kind, 4, ch4, "channels");
        pad(x, kind, 3, hw3, "hw");
        pad(x, kind, 3, ch3, "channels");
        if (kind == P_PAD) pad(x, kind, 3, all3, "all");
    }
    pad(x, P_PAD, 4, b4, "batch");
    pad(x, P_PAD, 3, asym3, "hw_asym");
    for (int kind = P_MIRROR_REFLECT; kind <= P_MIRROR_SYMMETRIC; kind++) {
        pad(x, kind, 4, hw4, "hw");
        pad(x, kind, 4, ch4, "channels");
        pad(x, kind, 3, hw3, "hw");
        if (kind == P_MIRROR_SYMMETRIC) continue;
        pad(x, kind, 4, asym4, "hw_asym");
        pad(x, kind, 3, asym3, "hw_asym");
        pad(x, kind, 3, ch3, "channels");
    }
}

/* ---- GATHER / GATHER_ND ------------------------------------------------------------------ */

/* one_index: a single constant index [3] instead of three (LiteRT.js fails to build the
 * three-index kernel: "Unable to parse bc coord for BATCH axis", indices laid out as batch) */
static void gather_n(sw_ctx *x, bool params_const, bool idx_const, int idx_rank, int axis, bool one_index) {
    static const int32_t P[3] = { 6, 5, 4 };
    static const int32_t i1[3] = { 3, 0, 2 }, i2[4] = { 1, 3, 2, 0 };   /* < 4: valid on every axis */
    int32_t ishape[2] = { one_index ? 1 : 3, 0 }, os[4];
    int irank = idx_rank;
    if (idx_rank == 2) { ishape[0] = 2; ishape[1] = 2; }
    int on = 0;
    for (int i = 0; i < axis; i++) os[on++] = P[i];
    for (int i = 0; i < irank; i++) os[on++] = ishape[i];
    for (int i = axis + 1; i < 3; i++) os[on++] = P[i];
    sw_case c;
    sw_begin(&c);
    int32_t p = params_const ? sw_const_f32(&c, "params", 3, P) : sw_t(&c, "params", SW_F32, 3, P);
    int32_t idx = idx_const ? sw_const_i32(&c, "indices", irank, ishape, irank == 1 ? i1 : i2)
                            : sw_t(&c, "indices", SW_I32, irank, ishape);
    int32_t y = sw_t(&c, "y", SW_F32, on, os);
    int32_t op = sw_op(&c, GC_OP_GATHER, 1, SW_L(p, idx), SW_L(y));
    sw_opt(&c, op, GC_O_GatherOptions_axis, axis);
    if (params_const) {   /* something on the GPU next to it, as in real graphs */
        int32_t z = sw_t(&c, "z", SW_F32, on, os);
        int32_t one = sw_const_f32(&c, "bias", 0, NULL);
        sw_op(&c, GC_OP_ADD, 1, SW_L(y, one), SW_L(z));
    }
    sw_attr_b(&c, "params_const", params_const);
    sw_attr_b(&c, "indices_const", idx_const);
    sw_attr_i(&c, "indices_rank", idx_rank);
    sw_attr_i(&c, "axis", axis);
    char what[256];
    snprintf(what, sizeof what, "GATHER %s params [6,5,4] axis %d, %s %d-D int32 indices%s", params_const ? "constant" : "runtime",
             axis, idx_const ? "constant" : "runtime", idx_rank, params_const ? " (then ADD)" : "");
    if (one_index) sw_attr_i(&c, "n_indices", 1);
    sw_emit(x, &c, "gather", "GATHER", what, "gather_%s_idx%s%dd%s_axis%d", params_const ? "constp" : "rtp",
            idx_const ? "const" : "rt", idx_rank, one_index ? "_n1" : "", axis);
}

static void gather(sw_ctx *x, bool params_const, bool idx_const, int idx_rank, int axis) {
    gather_n(x, params_const, idx_const, idx_rank, axis, false);
}

static void gather_nd(sw_ctx *x, bool idx_const, int depth, int n) {
    static const int32_t P[3] = { 6, 5, 4 };
    static const int32_t i1[] = { 4, 0, 2 }, i2[] = { 1, 3, 5, 0, 2, 2 };
    int32_t ishape[2] = { n, depth }, os[3];
    int on = 0;
    os[on++] = n;
    for (int i = depth; i < 3; i++) os[on++] = P[i];
    sw_case c;
    sw_begin(&c);
    int32_t p = sw_t(&c, "params", SW_F32, 3, P);
    int32_t idx = idx_const ? sw_const_i32(&c, "indices", 2, ishape, depth == 1 ? i1 : i2) : sw_t(&c, "indices", SW_I32, 2, ishape);
    int32_t y = sw_t(&c, "y", SW_F32, on, os);
    sw_op(&c, GC_OP_GATHER_ND, 1, SW_L(p, idx), SW_L(y));
    sw_attr_b(&c, "indices_const", idx_const);
    sw_attr_i(&c, "index_depth", depth);
    sw_attr_i(&c, "n_indices", n);
    char what[256];
    snprintf(what, sizeof what, "GATHER_ND runtime params [6,5,4], %s int32 indices [%d,%d]", idx_const ? "constant" : "runtime", n, depth);
    sw_emit(x, &c, "gather", "GATHER_ND", what, "gather_nd_idx%s_depth%d", idx_const ? "const" : "rt", depth);
}

void sw_family_gather(sw_ctx *x) {
    for (int pc = 0; pc <= 1; pc++)
        for (int ic = 1; ic >= 0; ic--)
            for (int r = 1; r <= 2; r++)
                for (int axis = 0; axis <= 1; axis++) {
                    if (pc && !ic) continue;   /* constant params + runtime indices: below, once */
                    gather(x, pc, ic, r, axis);
                }
    gather(x, true, false, 1, 0);
    gather(x, false, true, 1, 2);
    gather_n(x, false, true, 1, 1, true);
    for (int ic = 1; ic >= 0; ic--)
        for (int d = 1; d <= 2; d++) gather_nd(x, ic, d, 3);
}

/* ---- RESIZE ----------------------------------------------------------------------------------- */

static void resize(sw_ctx *x, bool bilinear, bool ac, bool hp, int h, int w, int oh, int ow) {
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, SW_L(1, h, w, 3));
    int32_t sz = sw_const_i32(&c, "size", SW_L(2), (const int32_t[]){ oh, ow });
    int32_t y = sw_t(&c, "y", SW_F32, SW_L(1, oh, ow, 3));
    int ver = hp ? 3 : 1;
    int32_t op = sw_op(&c, bilinear ? GC_OP_RESIZE_BILINEAR : GC_OP_RESIZE_NEAREST_NEIGHBOR, ver, SW_L(in, sz), SW_L(y));
    if (bilinear) {
        sw_opt(&c, op, GC_O_ResizeBilinearOptions_align_corners, ac);
        sw_opt(&c, op, GC_O_ResizeBilinearOptions_half_pixel_centers, hp);
    } else {
        sw_opt(&c, op, GC_O_ResizeNearestNeighborOptions_align_corners, ac);
        sw_opt(&c, op, GC_O_ResizeNearestNeighborOptions_half_pixel_centers, hp);
    }
    const char *name = bilinear ? "RESIZE_BILINEAR" : "RESIZE_NEAREST_NEIGHBOR";
    sw_attr_b(&c, "align_corners", ac);
    sw_attr_b(&c, "half_pixel_centers", hp);
    char from[32], to[32], what[256];
    snprintf(from, sizeof from, "%dx%d", h, w);
    snprintf(to, sizeof to, "%dx%d", oh, ow);
    sw_attr_s(&c, "from", from);
    sw_attr_s(&c, "to", to);
    snprintf(what, sizeof what, "%s %s -> %s align_corners=%d half_pixel_centers=%d", name, from, to, ac, hp);
    sw_emit(x, &c, "resize", name, what, "%s_%s_%s_ac%d_hp%d", bilinear ? "resize_bilinear" : "resize_nn", from, to, ac, hp);
}

void sw_family_resize(sw_ctx *x) {
    static const int sizes[][4] = { { 4, 4, 8, 8 }, { 4, 4, 7, 7 }, { 8, 8, 4, 4 }, { 8, 8, 3, 3 }, { 5, 7, 10, 3 } };
    static const bool modes[][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 } };
    for (int bl = 1; bl >= 0; bl--)
        for (int s = 0; s < 5; s++)
            for (int m = 0; m < 3; m++) {
                if (!bl && s == 2) continue;   /* nearest 8->4 is 8->3's easy sibling */
                resize(x, bl, modes[m][0], modes[m][1], sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3]);
            }
}
