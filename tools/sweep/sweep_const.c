/* sweep_const.c — constants the GPU does not read as plain floats, and outputs that are
 * also consumed (sweep.h):
 *
 *   densify     a sparse constant (TFLite sparsity metadata, written by the model layer)
 *               -> DENSIFY -> ADD / MUL / CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED
 *               weights. Encodings: every dim DENSE but the last, which is SPARSE_CSR
 *               (segments: one per row of the leading dims + 1, indices: the kept
 *               columns); 1x4 blocks on dim 1 of a 2-D weight (traversal 0,1,2, block_map
 *               {1}: dim 0 DENSE, the I/4 block columns CSR, the 4 in-block values DENSE);
 *               int32, uint16 or uint8 index vectors; fp16 values (DENSIFY -> DEQUANTIZE).
 *               40 % of the weights are kept: element (CSR) or 1x4 block i when (7i+3) mod 5 < 2.
 *   dequantize  fp16, int8 per-tensor (scale 0.01) or int8 per-channel constants ->
 *               DEQUANTIZE -> CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED weights, an
 *               ADD operand, a BATCH_MATMUL rhs. Op versions as the converter writes them:
 *               fp16 3, int8 per-tensor 2, per-channel 5.
 *   alias       an op's output is a graph output and also read by another op (LiteRT#8599).
 */
#include "sweep.h"
#include "interp/fp16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t numel(int r, const int32_t *s) {
    uint64_t n = 1;
    for (int i = 0; i < r; i++) n *= (uint64_t)s[i];
    return n;
}

static bool kept(uint64_t i) { return (7 * i + 3) % 5 < 2; }

static void *arena(sw_case *c, size_t n) {
    void *p = gc_arena_alloc(&c->b.m->arena, n ? n : 1);
    if (!p) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
    memset(p, 0, n ? n : 1);
    return p;
}

/* an index vector of `type` (1 int32, 2 uint16, 3 uint8) holding v[0..n) */
static void *index_vec(sw_case *c, int type, const int32_t *v, uint32_t n) {
    size_t w = type == 1 ? 4 : type == 2 ? 2 : 1;
    uint8_t *p = arena(c, w * n);
    for (uint32_t i = 0; i < n; i++) {
        if (type == 1) memcpy(p + 4 * i, &v[i], 4);
        else if (type == 2) { uint16_t u = (uint16_t)v[i]; memcpy(p + 2 * i, &u, 2); }
        else p[i] = (uint8_t)v[i];
    }
    return p;
}

typedef enum { ENC_CSR_LAST, ENC_BLOCK_1X4 } sparse_enc;

/* A sparse constant of `shape` holding the sweep's fill where kept() (0 elsewhere);
 * values FLOAT32, or FLOAT16 when fp16. */
static int32_t sparse_const(sw_case *c, const char *name, int rank, const int32_t *shape, sparse_enc enc, int itype, bool fp16) {
    uint64_t n = numel(rank, shape);
    float *dense = malloc(sizeof(float) * (size_t)n);
    int32_t *seg = malloc(sizeof(int32_t) * (size_t)(n + 2)), *idx = malloc(sizeof(int32_t) * (size_t)(n + 1));
    float *vals = malloc(sizeof(float) * (size_t)(n + 1));
    if (!dense || !seg || !idx || !vals) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
    sw_fill_f32(dense, n, c->salt++);
    /* CSR: element i is kept when kept(i); blocks: block j (row-major) when kept(j) */
    for (uint64_t i = 0; i < n; i++) if (!kept(enc == ENC_CSR_LAST ? i : i / 4)) dense[i] = 0;
    uint32_t nseg = 0, nidx = 0, nval = 0;
    gc_sparsity *sp = arena(c, sizeof *sp);
    if (enc == ENC_CSR_LAST) {
        int32_t cols = shape[rank - 1];
        uint64_t rows = n / (uint64_t)cols;
        seg[nseg++] = 0;
        for (uint64_t r = 0; r < rows; r++) {
            for (int32_t k = 0; k < cols; k++)
                if (dense[r * (uint64_t)cols + (uint64_t)k] != 0) { idx[nidx++] = k; vals[nval++] = dense[r * (uint64_t)cols + (uint64_t)k]; }
            seg[nseg++] = (int32_t)nidx;
        }
        sp->n_traversal_order = rank;
        sp->traversal_order = arena(c, sizeof(int32_t) * (size_t)rank);
        sp->n_dim_metadata = rank;
        sp->dim_metadata = arena(c, sizeof(gc_dim_meta) * (size_t)rank);
        for (int d = 0; d < rank; d++) {
            sp->traversal_order[d] = d;
            sp->dim_metadata[d].format = 0;
            sp->dim_metadata[d].dense_size = shape[d];
        }
        gc_dim_meta *dm = &sp->dim_metadata[rank - 1];
        dm->format = 1;
        dm->dense_size = 0;
        dm->segments_type = (uint8_t)itype; dm->indices_type = (uint8_t)itype;
        dm->n_segments = nseg; dm->n_indices = nidx;
        dm->segments = index_vec(c, itype, seg, nseg);
        dm->indices = index_vec(c, itype, idx, nidx);
    } else {   /* 2-D [O, I], blocks of 1x4 along dim 1 (I a multiple of 4) */
        int32_t O = shape[0], I = shape[1], B = I / 4;
        seg[nseg++] = 0;
        for (int32_t o = 0; o < O; o++) {
            for (int32_t b = 0; b < B; b++) {
                bool any = false;
                for (int k = 0; k < 4; k++) any |= dense[(uint64_t)o * (uint64_t)I + (uint64_t)(4 * b + k)] != 0;
                if (!any) continue;
                idx[nidx++] = b;
                for (int k = 0; k < 4; k++) vals[nval++] = dense[(uint64_t)o * (uint64_t)I + (uint64_t)(4 * b + k)];
            }
            seg[nseg++] = (int32_t)nidx;
        }
        sp->n_traversal_order = 3;
        sp->traversal_order = arena(c, sizeof(int32_t) * 3);
        for (int d = 0; d < 3; d++) sp->traversal_order[d] = d;
        sp->n_block_map = 1;
        sp->block_map = arena(c, sizeof(int32_t));
        sp->block_map[0] = 1;
        sp->n_dim_metadata = 3;
        sp->dim_metadata = arena(c, sizeof(gc_dim_meta) * 3);
        sp->dim_metadata[0].format = 0; sp->dim_metadata[0].dense_size = O;
        gc_dim_meta *dm = &sp->dim_metadata[1];
        dm->format = 1;
        dm->segments_type = (uint8_t)itype; dm->indices_type = (uint8_t)itype;
        dm->n_segments = nseg; dm->n_indices = nidx;
        dm->segments = index_vec(c, itype, seg, nseg);
        dm->indices = index_vec(c, itype, idx, nidx);
        sp->dim_metadata[2].format = 0; sp->dim_metadata[2].dense_size = 4;
    }
    /* the constant holds the stored values only; its shape is the dense shape */
    int32_t t;
    if (fp16) {
        uint16_t *h = malloc(sizeof(uint16_t) * (size_t)(nval + 1));
        if (!h) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
        for (uint32_t i = 0; i < nval; i++) h[i] = gc_f32_to_f16(vals[i]);
        int32_t buf = gc_model_add_buffer(c->b.m, h, sizeof(uint16_t) * nval);
        t = gc_sg_add_tensor(c->b.m, c->b.sg, name, GC_T_FLOAT16, rank, shape, (uint32_t)buf);
        free(h);
    } else {
        int32_t buf = gc_model_add_buffer(c->b.m, vals, sizeof(float) * nval);
        t = gc_sg_add_tensor(c->b.m, c->b.sg, name, SW_F32, rank, shape, (uint32_t)buf);
    }
    c->b.m->subgraphs[c->b.sg].tensors[t].sparsity = sp;
    free(dense); free(seg); free(idx); free(vals);
    return t;
}

typedef enum { D_ADD, D_ADD_R4, D_MUL_R1, D_CONV, D_DWCONV, D_FC } dense_use;

static void densify(sw_ctx *x, dense_use u, sparse_enc enc, int itype, bool fp16, const char *tag) {
    sw_case c;
    sw_begin(&c);
    int32_t ws[4], wrank;
    const char *op = "ADD", *what_u = "";
    switch (u) {
    case D_ADD: wrank = 2; ws[0] = 4; ws[1] = 16; op = "ADD"; what_u = "x[4,16] + DENSIFY(w)"; break;
    case D_ADD_R4: wrank = 4; ws[0] = 1; ws[1] = 4; ws[2] = 4; ws[3] = 8; op = "ADD"; what_u = "x[1,4,4,8] + DENSIFY(w)"; break;
    case D_MUL_R1: wrank = 1; ws[0] = 16; op = "MUL"; what_u = "x[4,16] * DENSIFY(w[16])"; break;
    case D_CONV: wrank = 4; ws[0] = 8; ws[1] = 3; ws[2] = 3; ws[3] = 8; op = "CONV_2D"; what_u = "CONV_2D 3x3 with DENSIFY'd weights"; break;
    case D_DWCONV: wrank = 4; ws[0] = 1; ws[1] = 3; ws[2] = 3; ws[3] = 8; op = "DEPTHWISE_CONV_2D"; what_u = "DEPTHWISE_CONV_2D 3x3 with DENSIFY'd weights"; break;
    default: wrank = 2; ws[0] = 8; ws[1] = 16; op = "FULLY_CONNECTED"; what_u = "FULLY_CONNECTED with DENSIFY'd weights"; break;
    }
    int32_t sp = sparse_const(&c, "w_sparse", wrank, ws, enc, itype, fp16);
    int32_t w = sw_t(&c, fp16 ? "w_f16" : "w", fp16 ? GC_T_FLOAT16 : SW_F32, wrank, ws);
    sw_op(&c, GC_OP_DENSIFY, 1, SW_L(sp), SW_L(w));
    if (fp16) {
        int32_t wf = sw_t(&c, "w", SW_F32, wrank, ws);
        sw_op(&c, GC_OP_DEQUANTIZE, 3, SW_L(w), SW_L(wf));
        w = wf;
    }
    if (u == D_ADD || u == D_ADD_R4 || u == D_MUL_R1) {
        int32_t xs[4];
        int xr = u == D_ADD_R4 ? 4 : 2;
        if (u == D_ADD_R4) memcpy(xs, ws, sizeof xs); else { xs[0] = 4; xs[1] = 16; }
        int32_t in = sw_t(&c, "x", SW_F32, xr, xs), y = sw_t(&c, "y", SW_F32, xr, xs);
        sw_op(&c, u == D_MUL_R1 ? GC_OP_MUL : GC_OP_ADD, 1, SW_L(in, w), SW_L(y));
    } else if (u == D_CONV || u == D_DWCONV) {
        int32_t in = sw_t(&c, "x", SW_F32, SW_L(1, 8, 8, 8)), b = sw_const_f32(&c, "bias", SW_L(8));
        int32_t y = sw_t(&c, "y", SW_F32, SW_L(1, 8, 8, 8));
        int32_t o = sw_op(&c, u == D_CONV ? GC_OP_CONV_2D : GC_OP_DEPTHWISE_CONV_2D, 1, SW_L(in, w, b), SW_L(y));
        if (u == D_CONV) {
            sw_opt(&c, o, GC_O_Conv2DOptions_stride_w, 1);
            sw_opt(&c, o, GC_O_Conv2DOptions_stride_h, 1);
        } else {
            sw_opt(&c, o, GC_O_DepthwiseConv2DOptions_stride_w, 1);
            sw_opt(&c, o, GC_O_DepthwiseConv2DOptions_stride_h, 1);
            sw_opt(&c, o, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
        }
    } else {
        int32_t in = sw_t(&c, "x", SW_F32, SW_L(3, 16)), b = sw_const_f32(&c, "bias", SW_L(8));
        int32_t y = sw_t(&c, "y", SW_F32, SW_L(3, 8));
        sw_op(&c, GC_OP_FULLY_CONNECTED, 1, SW_L(in, w, b), SW_L(y));
    }
    static const char *const IT[] = { "", "int32", "uint16", "uint8" };
    sw_attr_s(&c, "consumer", op);
    sw_attr_s(&c, "encoding", enc == ENC_CSR_LAST ? "csr_last_dim" : "block_1x4");
    sw_attr_s(&c, "index_type", IT[itype]);
    sw_attr_s(&c, "values", fp16 ? "FLOAT16" : "FLOAT32");
    sw_attr_shape(&c, "weights_shape", wrank, ws);
    char what[256];
    snprintf(what, sizeof what, "%s; sparse %s constant (%s, %s indices)", what_u, fp16 ? "fp16" : "float32",
             enc == ENC_CSR_LAST ? "CSR on the last dim" : "1x4 blocks", IT[itype]);
    sw_emit(x, &c, "densify", op, what, "densify_%s", tag);
}

void sw_family_densify(sw_ctx *x) {
    densify(x, D_ADD, ENC_CSR_LAST, 1, false, "add");
    densify(x, D_ADD, ENC_CSR_LAST, 3, false, "add_uint8_index");
    densify(x, D_ADD_R4, ENC_CSR_LAST, 1, false, "add_rank4");
    densify(x, D_MUL_R1, ENC_CSR_LAST, 2, false, "mul_rank1");
    densify(x, D_CONV, ENC_CSR_LAST, 1, false, "conv");
    densify(x, D_DWCONV, ENC_CSR_LAST, 1, false, "dwconv");
    densify(x, D_FC, ENC_CSR_LAST, 1, false, "fc");
    densify(x, D_FC, ENC_BLOCK_1X4, 1, false, "fc_block1x4");
    densify(x, D_FC, ENC_BLOCK_1X4, 3, false, "fc_block1x4_uint8_index");
    densify(x, D_FC, ENC_CSR_LAST, 1, true, "fc_fp16");
    densify(x, D_ADD, ENC_CSR_LAST, 1, true, "add_fp16");
}

/* ---- DEQUANTIZE ---------------------------------------------------------------------------------- */

typedef enum { Q_FP16, Q_INT8, Q_INT8_PC } qkind;
typedef enum { Q_CONV, Q_DWCONV, Q_FC, Q_ADD, Q_BMM } quse;

/* a quantized constant of `shape` -> DEQUANTIZE -> float32 tensor; per-channel along `axis` */
static int32_t dequant_const(sw_case *c, int rank, const int32_t *shape, qkind k, int axis) {
    uint64_t n = numel(rank, shape);
    float *f = malloc(sizeof(float) * (size_t)n);
    if (!f) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
    sw_fill_f32(f, n, c->salt++);
    int32_t q;
    int ver;
    if (k == Q_FP16) {
        uint16_t *h = malloc(sizeof(uint16_t) * (size_t)n);
        if (!h) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
        for (uint64_t i = 0; i < n; i++) h[i] = gc_f32_to_f16(f[i]);
        q = sw_const(c, "w_q", GC_T_FLOAT16, rank, shape, h);
        free(h);
        ver = 3;
    } else {
        int8_t *v = malloc((size_t)n);
        if (!v) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
        for (uint64_t i = 0; i < n; i++) v[i] = (int8_t)((37 * i + 11) % 251 - 125);
        q = sw_const(c, "w_q", GC_T_INT8, rank, shape, v);
        free(v);
        if (k == Q_INT8) { gc_rb_quant(&c->b, q, 1, 0.01f, 0); ver = 2; }
        else {
            int nc = shape[axis];
            gc_rb_quant(&c->b, q, nc, 0.01f, 0);
            gc_quant *qq = c->b.m->subgraphs[c->b.sg].tensors[q].quant;
            for (int i = 0; i < nc; i++) qq->scale[i] = 0.004f + 0.002f * (float)i;
            qq->quantized_dimension = axis;
            ver = 5;
        }
    }
    free(f);
    int32_t w = sw_t(c, "w", SW_F32, rank, shape);
    sw_op(c, GC_OP_DEQUANTIZE, ver, SW_L(q), SW_L(w));
    return w;
}

static void dequantize(sw_ctx *x, quse u, qkind k) {
    static const char *const KN[] = { "fp16", "int8", "int8_per_channel" };
    static const char *const UN[] = { "conv", "dwconv", "fc", "add", "bmm" };
    static const char *const OPN[] = { "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "BATCH_MATMUL" };
    sw_case c;
    sw_begin(&c);
    int32_t in, w, y, o;
    switch (u) {
    case Q_CONV:
    case Q_DWCONV:
        in = sw_t(&c, "x", SW_F32, SW_L(1, 8, 8, 8));
        w = u == Q_CONV ? dequant_const(&c, SW_L(8, 3, 3, 8), k, 0) : dequant_const(&c, SW_L(1, 3, 3, 8), k, 3);
        y = sw_t(&c, "y", SW_F32, SW_L(1, 8, 8, 8));
        {
            int32_t b = sw_const_f32(&c, "bias", SW_L(8));
            o = sw_op(&c, u == Q_CONV ? GC_OP_CONV_2D : GC_OP_DEPTHWISE_CONV_2D, 1, SW_L(in, w, b), SW_L(y));
        }
        if (u == Q_CONV) { sw_opt(&c, o, GC_O_Conv2DOptions_stride_w, 1); sw_opt(&c, o, GC_O_Conv2DOptions_stride_h, 1); }
        else {
            sw_opt(&c, o, GC_O_DepthwiseConv2DOptions_stride_w, 1);
            sw_opt(&c, o, GC_O_DepthwiseConv2DOptions_stride_h, 1);
            sw_opt(&c, o, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
        }
        break;
    case Q_FC:
        in = sw_t(&c, "x", SW_F32, SW_L(3, 16));
        w = dequant_const(&c, SW_L(8, 16), k, 0);
        y = sw_t(&c, "y", SW_F32, SW_L(3, 8));
        {
            int32_t b = sw_const_f32(&c, "bias", SW_L(8));
            sw_op(&c, GC_OP_FULLY_CONNECTED, 1, SW_L(in, w, b), SW_L(y));
        }
        break;
    case Q_ADD:
        in = sw_t(&c, "x", SW_F32, SW_L(1, 4, 4, 8));
        w = dequant_const(&c, SW_L(1, 4, 4, 8), k, 3);
        y = sw_t(&c, "y", SW_F32, SW_L(1, 4, 4, 8));
        sw_op(&c, GC_OP_ADD, 1, SW_L(in, w), SW_L(y));
        break;
    default:
        in = sw_t(&c, "x", SW_F32, SW_L(2, 4, 16));
        w = dequant_const(&c, SW_L(16, 8), k, 1);
        y = sw_t(&c, "y", SW_F32, SW_L(2, 4, 8));
        sw_op(&c, GC_OP_BATCH_MATMUL, 1, SW_L(in, w), SW_L(y));
        break;
    }
    sw_attr_s(&c, "consumer", OPN[u]);
    sw_attr_s(&c, "weights", KN[k]);
    char what[256];
    snprintf(what, sizeof what, "%s reading a DEQUANTIZE'd %s constant", OPN[u], KN[k]);
    sw_emit(x, &c, "dequantize", OPN[u], what, "dequant_%s_%s", KN[k], UN[u]);
}

/* ADD(x, DEQUANTIZE(fp16 constant)) at equal ranks 1-3 with dim 0 > 1: the GPU folds the
 * DEQUANTIZE into a constant, and ADD([4,16], const [4,16]) was measured wrong
 * (densify_add_fp16 after densify_const). Constant first or second. */
static void dequantize_add_rank(sw_ctx *x, int rank, bool const_first) {
    static const int32_t shapes[3][3] = { { 6 }, { 4, 16 }, { 3, 4, 5 } };
    sw_case c;
    sw_begin(&c);
    const int32_t *sh = shapes[rank - 1];
    int32_t in = sw_t(&c, "x", SW_F32, rank, sh);
    int32_t w = dequant_const(&c, rank, sh, Q_FP16, 0);
    int32_t y = sw_t(&c, "y", SW_F32, rank, sh);
    if (const_first) sw_op(&c, GC_OP_ADD, 1, SW_L(w, in), SW_L(y));
    else sw_op(&c, GC_OP_ADD, 1, SW_L(in, w), SW_L(y));
    sw_attr_s(&c, "consumer", "ADD");
    sw_attr_s(&c, "weights", "fp16");
    sw_attr_i(&c, "rank", rank);
    char what[256];
    snprintf(what, sizeof what, "ADD of a rank-%d runtime tensor and a DEQUANTIZE'd fp16 constant of the same shape%s", rank,
             const_first ? " (constant first)" : "");
    sw_emit(x, &c, "dequantize", "ADD", what, "dequant_fp16_add_r%d%s", rank, const_first ? "_cfirst" : "");
}

void sw_family_dequantize(sw_ctx *x) {
    for (int u = Q_CONV; u <= Q_ADD; u++)
        for (int k = Q_FP16; k <= Q_INT8_PC; k++) dequantize(x, u, k);
    dequantize(x, Q_BMM, Q_FP16);
    dequantize(x, Q_BMM, Q_INT8);
    for (int r = 1; r <= 3; r++) dequantize_add_rank(x, r, false);
    dequantize_add_rank(x, 2, true);
}

/* ---- outputs also consumed ------------------------------------------------------------------ */

typedef enum { A_CONV_RELU, A_ADD_MUL, A_FC_ADD, A_MEAN_SUB, A_SOFTMAX_MUL, A_TWO_CONSUMERS, A_RESHAPE, A_CONCAT, A_N } alias_kind;

static void alias(sw_ctx *x, alias_kind k) {
    static const char *const NM[A_N] = { "conv_relu", "add_mul", "fc_add", "mean_sub", "softmax_mul", "add_two_consumers",
                                         "add_reshape", "add_concat" };
    static const char *const OP[A_N] = { "CONV_2D", "ADD", "FULLY_CONNECTED", "MEAN", "SOFTMAX", "ADD", "ADD", "ADD" };
    static const char *const WH[A_N] = {
        "CONV_2D output is a graph output and feeds RELU (also an output)",
        "ADD output is a graph output and feeds MUL",
        "FULLY_CONNECTED output is a graph output and feeds ADD",
        "MEAN (keep_dims) output is a graph output and feeds SUB(x, mean)",
        "SOFTMAX output is a graph output and feeds MUL",
        "ADD output is a graph output and feeds RELU and TANH",
        "ADD output is a graph output and feeds RESHAPE (also an output)",
        "ADD output is a graph output and feeds CONCATENATION with the input",
    };
    sw_case c;
    sw_begin(&c);
    int32_t outs[4];
    int no = 0;
    if (k == A_CONV_RELU) {
        int32_t in = sw_t(&c, "x", SW_F32, SW_L(1, 8, 8, 4)), w = sw_const_f32(&c, "w", SW_L(4, 3, 3, 4));
        int32_t b = sw_const_f32(&c, "bias", SW_L(4)), y = sw_t(&c, "y", SW_F32, SW_L(1, 8, 8, 4));
        int32_t z = sw_t(&c, "z", SW_F32, SW_L(1, 8, 8, 4));
        int32_t o = sw_op(&c, GC_OP_CONV_2D, 1, SW_L(in, w, b), SW_L(y));
        sw_opt(&c, o, GC_O_Conv2DOptions_stride_w, 1);
        sw_opt(&c, o, GC_O_Conv2DOptions_stride_h, 1);
        sw_op(&c, GC_OP_RELU, 1, SW_L(y), SW_L(z));
        outs[no++] = y; outs[no++] = z;
    } else if (k == A_FC_ADD) {
        int32_t in = sw_t(&c, "x", SW_F32, SW_L(3, 16)), w = sw_const_f32(&c, "w", SW_L(8, 16)), b = sw_const_f32(&c, "bias", SW_L(8));
        int32_t y = sw_t(&c, "y", SW_F32, SW_L(3, 8)), k8 = sw_const_f32(&c, "k", SW_L(8)), z = sw_t(&c, "z", SW_F32, SW_L(3, 8));
        sw_op(&c, GC_OP_FULLY_CONNECTED, 1, SW_L(in, w, b), SW_L(y));
        sw_op(&c, GC_OP_ADD, 1, SW_L(y, k8), SW_L(z));
        outs[no++] = y; outs[no++] = z;
    } else if (k == A_MEAN_SUB) {
        int32_t in = sw_t(&c, "x", SW_F32, SW_L(1, 4, 4, 8)), ax = sw_const_i32(&c, "axes", SW_L(1), (const int32_t[]){ 3 });
        int32_t m = sw_t(&c, "mean", SW_F32, SW_L(1, 4, 4, 1)), z = sw_t(&c, "z", SW_F32, SW_L(1, 4, 4, 8));
        int32_t o = sw_op(&c, GC_OP_MEAN, 1, SW_L(in, ax), SW_L(m));
        sw_opt(&c, o, GC_O_ReducerOptions_keep_dims, 1);
        sw_op(&c, GC_OP_SUB, 1, SW_L(in, m), SW_L(z));
        outs[no++] = m; outs[no++] = z;
    } else if (k == A_SOFTMAX_MUL) {
        int32_t in = sw_t(&c, "x", SW_F32, SW_L(1, 4, 16)), p = sw_t(&c, "p", SW_F32, SW_L(1, 4, 16));
        int32_t z = sw_t(&c, "z", SW_F32, SW_L(1, 4, 16));
        int32_t o = sw_op(&c, GC_OP_SOFTMAX, 1, SW_L(in), SW_L(p));
        sw_optf(&c, o, GC_O_SoftmaxOptions_beta, 1.0);
        sw_op(&c, GC_OP_MUL, 1, SW_L(p, in), SW_L(z));
        outs[no++] = p; outs[no++] = z;
    } else {   /* y = ADD(x, const) is a graph output and feeds ... */
        int32_t in = sw_t(&c, "x", SW_F32, SW_L(1, 4, 4, 8)), kk = sw_const_f32(&c, "k", SW_L(8));
        int32_t y = sw_t(&c, "y", SW_F32, SW_L(1, 4, 4, 8));
        sw_op(&c, GC_OP_ADD, 1, SW_L(in, kk), SW_L(y));
        outs[no++] = y;
        if (k == A_ADD_MUL) {
            int32_t x2 = sw_t(&c, "x2", SW_F32, SW_L(1, 4, 4, 8)), z = sw_t(&c, "z", SW_F32, SW_L(1, 4, 4, 8));
            sw_op(&c, GC_OP_MUL, 1, SW_L(y, x2), SW_L(z));
            outs[no++] = z;
        } else if (k == A_TWO_CONSUMERS) {
            int32_t a = sw_t(&c, "a", SW_F32, SW_L(1, 4, 4, 8)), t = sw_t(&c, "t", SW_F32, SW_L(1, 4, 4, 8));
            sw_op(&c, GC_OP_RELU, 1, SW_L(y), SW_L(a));
            sw_op(&c, GC_OP_TANH, 1, SW_L(y), SW_L(t));
            outs[no++] = a; outs[no++] = t;
        } else if (k == A_RESHAPE) {
            int32_t s = sw_const_i32(&c, "shape", SW_L(2), (const int32_t[]){ 16, 8 }), z = sw_t(&c, "z", SW_F32, SW_L(16, 8));
            sw_op(&c, GC_OP_RESHAPE, 1, SW_L(y, s), SW_L(z));
            outs[no++] = z;
        } else {
            int32_t z = sw_t(&c, "z", SW_F32, SW_L(1, 4, 4, 16));
            int32_t o = sw_op(&c, GC_OP_CONCATENATION, 1, SW_L(y, in), SW_L(z));
            sw_opt(&c, o, GC_O_ConcatenationOptions_axis, 3);
            outs[no++] = z;
        }
    }
    sw_outputs(&c, no, outs);
    sw_attr_s(&c, "pattern", NM[k]);
    sw_attr_i(&c, "n_outputs", no);
    sw_emit(x, &c, "alias", OP[k], WH[k], "alias_%s", NM[k]);
}

void sw_family_alias(sw_ctx *x) {
    for (int k = 0; k < A_N; k++) alias(x, k);
}
