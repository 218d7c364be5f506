/* test_fix_rank5.c — issue 9 at the .tflite level, on small built graphs: rank5_fold
 * through SLICE / STRIDED_SLICE / GATHER / UNPACK (timm's qkv split), rank5_hoist
 * (Swin's FULLY_CONNECTED on the rank-6 window tensor, the shifted-window mask ADD), and
 * const_fold over whole constant cones (YOLOS' interpolated position embedding) with its
 * size rule. Each case checks the structure (what the site became), the checker (no
 * refused node left where the pass applies) and the numbers (reference interpreter,
 * fp32, original vs fixed: bit-exact, as every pass here states). */
#include "test_fix_lib.h"

#include <stdint.h>

/* ---- building models: test_fix_lib.h ---- */

static const int32_t *shape_of(mb *b, int32_t t) { return b->m->subgraphs[b->sg].tensors[t].shape; }
static int rank_of(mb *b, int32_t t) { return b->m->subgraphs[b->sg].tensors[t].rank; }

static int32_t reshape(mb *b, int32_t x, const char *name, int rank, const int32_t *shape) {
    int32_t y = T(b, name, b->m->subgraphs[b->sg].tensors[x].type, rank, shape);
    char sn[128];
    snprintf(sn, sizeof sn, "%s.shape", name);
    int32_t s = CI(b, sn, rank, shape);
    int32_t k = OP(b, GC_OP_RESHAPE, 1, 2, V(x, s), 1, V(y));
    gc_opt_set_vec(b->m, OPT(b, k), GC_O_ReshapeOptions_new_shape, shape, (uint32_t)rank);
    return y;
}

static int32_t transpose(mb *b, int32_t x, const char *name, int rank, const int32_t *perm) {
    int32_t shape[8];
    for (int i = 0; i < rank; i++) shape[i] = shape_of(b, x)[perm[i]];
    char pn[128];
    snprintf(pn, sizeof pn, "%s.perm", name);
    int32_t p = CI(b, pn, rank, perm);
    int32_t y = T(b, name, GC_T_FLOAT32, rank, shape);
    OP(b, GC_OP_TRANSPOSE, rank > 4 ? 4 : 1, 2, V(x, p), 1, V(y));
    return y;
}

/* SLICE x[begin : begin+size] (rank r) */
static int32_t slice(mb *b, int32_t x, const char *name, int r, const int32_t *begin, const int32_t *size) {
    char n1[128], n2[128];
    snprintf(n1, sizeof n1, "%s.begin", name);
    snprintf(n2, sizeof n2, "%s.size", name);
    int32_t tb = CI(b, n1, r, begin), ts = CI(b, n2, r, size);
    int32_t y = T(b, name, GC_T_FLOAT32, r, size);
    OP(b, GC_OP_SLICE, r > 4 ? 5 : 1, 3, V(x, tb, ts), 1, V(y));
    return y;
}

/* ---- running the fixer ------------------------------------------------------------- */

static int max_rank_used(const gc_model *m) {
    int r = 0;
    const gc_subgraph *sg = &m->subgraphs[0];
    for (int32_t o = 0; o < sg->n_ops; o++) {
        const gc_op *op = &sg->ops[o];
        for (int32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && sg->tensors[op->inputs[k]].rank > r) r = sg->tensors[op->inputs[k]].rank;
        for (int32_t k = 0; k < op->n_outputs; k++)
            if (sg->tensors[op->outputs[k]].rank > r) r = sg->tensors[op->outputs[k]].rank;
    }
    return r;
}

/* every pass here states bit-exactness: fix, verify, and hold it to that */
static void fix_run_bit_exact(gc_model *m, const gc_fix_opts *o, run *out) {
    fix_run(m, o, out, true);
    CHECK(out->r && out->r->exactness == GC_FIX_BIT_EXACT);
}

/* ---- rank5_fold through slices: timm's qkv split --------------------------------------- */

/* [1,N,3*H*D] -> [1,N,3,H,D] -> perm (2,0,3,1,4) -> [3,1,H,N,D]: N=6, H=2, D=4 */
static int32_t qkv_prefix(mb *b, int32_t *x) {
    *x = T(b, "qkv", GC_T_FLOAT32, 3, V(1, 6, 24));
    int32_t r5 = reshape(b, *x, "qkv5", 5, V(1, 6, 3, 2, 4));
    return transpose(b, r5, "qkv5_t", 5, V(2, 0, 3, 1, 4));
}

GC_TEST(fix_rank5_timm_qkv_slices) {
    mb b = mb_new();
    int32_t x, t5 = qkv_prefix(&b, &x), outs[3];
    const char *names[3] = { "q", "k", "v" };
    for (int i = 0; i < 3; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "%s5", names[i]);
        int32_t s = slice(&b, t5, nm, 5, V(i, 0, 0, 0, 0), V(1, 1, 2, 6, 4));
        outs[i] = reshape(&b, s, names[i], 4, V(1, 2, 6, 4));
    }
    IO(&b, 1, V(x), 3, outs);
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_fold"), 3);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_SLICE), 0);
    /* each head group is a slice of the last axis of [1,6,24], then a head transpose */
    CHECK_EQ_INT(count_ops(b.m, GC_OP_STRIDED_SLICE), 3);
    const gc_op *ss = first_op(b.m, GC_OP_STRIDED_SLICE);
    CHECK(ss && ss->inputs[0] == x);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_TRANSPOSE), 3);
    const char *d = detail_of(r.r, "rank5_fold");
    CHECK_MSG(strstr(d, "STRIDED_SLICE begin [0,0,0] end [1,6,8]") && strstr(d, "TRANSPOSE perm [1,0,2]"), "%s", d);
    if (r.refused_after) dump(r.r);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_rank5_timm_qkv_unpack) {
    mb b = mb_new();
    int32_t x, t5 = qkv_prefix(&b, &x);
    int32_t q = T(&b, "q", GC_T_FLOAT32, 4, V(1, 2, 6, 4)), k = T(&b, "k", GC_T_FLOAT32, 4, V(1, 2, 6, 4));
    int32_t v = T(&b, "v", GC_T_FLOAT32, 4, V(1, 2, 6, 4));
    int32_t u = OP(&b, GC_OP_UNPACK, 1, 1, V(t5), 3, V(q, k, v));
    gc_opt_set_int(b.m, OPT(&b, u), GC_O_UnpackOptions_num, 3);
    gc_opt_set_int(b.m, OPT(&b, u), GC_O_UnpackOptions_axis, 0);
    /* scores = q * k (elementwise stand-in), v passed on */
    int32_t s = T(&b, "s", GC_T_FLOAT32, 4, V(1, 2, 6, 4));
    OP(&b, GC_OP_MUL, 1, 2, V(q, k), 1, V(s));
    IO(&b, 1, V(x), 2, V(s, v));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_fold"), 1);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_UNPACK), 0);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_STRIDED_SLICE), 3);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    CHECK(r.r && r.r->after.gpu_clean);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_rank5_gather_scalar_and_shrink) {
    /* q = qkv[0] by GATHER with a scalar index; k = qkv[1] by STRIDED_SLICE with
     * shrink_axis_mask; v = qkv[2:3] by GATHER with a one-element index list */
    mb b = mb_new();
    int32_t x, t5 = qkv_prefix(&b, &x);
    int32_t i0 = C(&b, "i0", GC_T_INT32, 0, NULL, V(0), 4);
    int32_t q = T(&b, "q", GC_T_FLOAT32, 4, V(1, 2, 6, 4));
    OP(&b, GC_OP_GATHER, 1, 2, V(t5, i0), 1, V(q));
    int32_t bb = CI(&b, "kb", NV(1, 0, 0, 0, 0)), be = CI(&b, "ke", NV(2, 1, 2, 6, 4)), bs = CI(&b, "ks", NV(1, 1, 1, 1, 1));
    int32_t k = T(&b, "k", GC_T_FLOAT32, 4, V(1, 2, 6, 4));
    int32_t so = OP(&b, GC_OP_STRIDED_SLICE, 4, 4, V(t5, bb, be, bs), 1, V(k));
    gc_opt_set_int(b.m, OPT(&b, so), GC_O_StridedSliceOptions_shrink_axis_mask, 1);
    int32_t i2 = CI(&b, "i2", NV(2));
    int32_t v5 = T(&b, "v5", GC_T_FLOAT32, 5, V(1, 1, 2, 6, 4));
    OP(&b, GC_OP_GATHER, 1, 2, V(t5, i2), 1, V(v5));
    int32_t v = reshape(&b, v5, "v", 4, V(1, 2, 6, 4));
    int32_t s = T(&b, "s", GC_T_FLOAT32, 4, V(1, 2, 6, 4)), y = T(&b, "y", GC_T_FLOAT32, 4, V(1, 2, 6, 4));
    OP(&b, GC_OP_MUL, 1, 2, V(q, k), 1, V(s));
    OP(&b, GC_OP_ADD, 1, 2, V(s, v), 1, V(y));
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_fold"), 3);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_GATHER), 0);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    if (r.refused_after) dump(r.r);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_rank5_strided_box_needs_view) {
    /* [24] -> [2,2,3,1,2], every other row of axis 2 (0 and 2), -> [16]: the sliced axis
     * does not start an axis of x, so x is viewed as [4,3,2] and sliced there */
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 1, V(24));
    int32_t r5 = reshape(&b, x, "r5", 5, V(2, 2, 3, 1, 2));
    int32_t bb = CI(&b, "b", NV(0, 0, 0, 0, 0)), be = CI(&b, "e", NV(2, 2, 3, 1, 2)), bs = CI(&b, "s", NV(1, 1, 2, 1, 1));
    int32_t s5 = T(&b, "s5", GC_T_FLOAT32, 5, V(2, 2, 2, 1, 2));
    OP(&b, GC_OP_STRIDED_SLICE, 4, 4, V(r5, bb, be, bs), 1, V(s5));
    int32_t y = reshape(&b, s5, "y", 1, V(16));
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_fold"), 1);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    const char *d = detail_of(r.r, "rank5_fold");
    CHECK_MSG(strstr(d, "RESHAPE to [4,3,2]") && strstr(d, "strides [1,2,1]"), "%s", d);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_rank5_declines_gather_not_a_run) {
    mb b = mb_new();
    int32_t x, t5 = qkv_prefix(&b, &x);
    int32_t ix = CI(&b, "idx", NV(2, 0));
    int32_t g = T(&b, "g", GC_T_FLOAT32, 5, V(2, 1, 2, 6, 4));
    OP(&b, GC_OP_GATHER, 1, 2, V(t5, ix), 1, V(g));
    int32_t y = reshape(&b, g, "y", 4, V(2, 2, 6, 4));
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_fold"), 0);
    const char *why = decline_reason(r.r, "rank5_fold");
    CHECK_MSG(why && strstr(why, "not a run"), "%s", why ? why : "(none)");
    run_free(&r);
    gc_model_free(b.m);
}

/* ---- rank5_hoist: Swin ----------------------------------------------------------------- */

GC_TEST(fix_rank5_hoist_swin_window_reverse_fc) {
    /* attention output [nW, N, heads, hd] = [4,4,3,2] -> [1,2,2,2,2,6] (window grid 2x2,
     * window 2x2, C 6) -> FULLY_CONNECTED 6->6 on the rank-6 tensor -> perm
     * (0,1,3,2,4,5) -> [1,4,4,6] */
    mb b = mb_new();
    float w[36], bias[6];
    for (int i = 0; i < 36; i++) w[i] = 0.03f * (float)((i * 7) % 11) - 0.1f;
    for (int i = 0; i < 6; i++) bias[i] = 0.01f * (float)i;
    int32_t x = T(&b, "attn", GC_T_FLOAT32, 4, V(4, 4, 3, 2));
    int32_t r6 = reshape(&b, x, "win6", 6, V(1, 2, 2, 2, 2, 6));
    int32_t tw = C(&b, "proj.w", GC_T_FLOAT32, 2, V(6, 6), w, sizeof w);
    int32_t tb = C(&b, "proj.b", GC_T_FLOAT32, 1, V(6), bias, sizeof bias);
    int32_t p6 = T(&b, "proj6", GC_T_FLOAT32, 6, V(1, 2, 2, 2, 2, 6));
    int32_t k = OP(&b, GC_OP_FULLY_CONNECTED, 1, 3, V(r6, tw, tb), 1, V(p6));
    gc_opt_set_int(b.m, OPT(&b, k), GC_O_FullyConnectedOptions_keep_num_dims, 1);
    int32_t t6 = transpose(&b, p6, "rev6", 6, V(0, 1, 3, 2, 4, 5));
    int32_t y = reshape(&b, t6, "y", 4, V(1, 4, 4, 6));
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_hoist"), 1);
    CHECK_EQ_INT(sites(r.r, "rank5_fold"), 1);
    CHECK(r.refused_before >= 4);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    const gc_op *fc = first_op(b.m, GC_OP_FULLY_CONNECTED);
    /* the FC runs on [4,4,6]: x's leading axes, its trailing [3,2] merged into C */
    CHECK(fc && rank_of(&b, fc->inputs[0]) == 3 && shape_of(&b, fc->inputs[0])[2] == 6);
    const char *d = detail_of(r.r, "rank5_hoist");
    CHECK_MSG(strstr(d, "view [4,4,6]"), "%s", d);
    if (r.refused_after) dump(r.r);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_rank5_hoist_swin_mask_add_const) {
    /* scores [nW,heads,N,N] = [4,3,5,5] -> [1,4,3,5,5] + mask [1,4,1,5,5] -> [4,3,5,5] */
    mb b = mb_new();
    float mask[100];
    for (int i = 0; i < 100; i++) mask[i] = (i % 3) ? 0.0f : -100.0f;
    int32_t x = T(&b, "scores", GC_T_FLOAT32, 4, V(4, 3, 5, 5));
    int32_t r5 = reshape(&b, x, "s5", 5, V(1, 4, 3, 5, 5));
    int32_t m = C(&b, "mask", GC_T_FLOAT32, 5, V(1, 4, 1, 5, 5), mask, sizeof mask);
    int32_t a5 = T(&b, "masked5", GC_T_FLOAT32, 5, V(1, 4, 3, 5, 5));
    OP(&b, GC_OP_ADD, 1, 2, V(r5, m), 1, V(a5));
    int32_t y = reshape(&b, a5, "masked", 4, V(4, 3, 5, 5));
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_hoist"), 1);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    const gc_op *add = first_op(b.m, GC_OP_ADD);
    CHECK(add && add->inputs[0] == x);
    if (add) {
        const gc_tensor *mt = &b.m->subgraphs[0].tensors[add->inputs[1]];
        CHECK(mt->rank == 4 && mt->shape[0] == 4 && mt->shape[1] == 1 && mt->shape[2] == 5 && mt->shape[3] == 5);
        CHECK(gc_tensor_is_const(b.m, mt));
    }
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_rank5_hoist_binary_two_reshapes) {
    /* torchvision's mask is a runtime tensor: [4,5,5] -> [1,4,1,5,5] */
    mb b = mb_new();
    int32_t x = T(&b, "scores", GC_T_FLOAT32, 4, V(4, 3, 5, 5));
    int32_t z = T(&b, "mask", GC_T_FLOAT32, 3, V(4, 5, 5));
    int32_t r5 = reshape(&b, x, "s5", 5, V(1, 4, 3, 5, 5));
    int32_t m5 = reshape(&b, z, "m5", 5, V(1, 4, 1, 5, 5));
    int32_t a5 = T(&b, "masked5", GC_T_FLOAT32, 5, V(1, 4, 3, 5, 5));
    OP(&b, GC_OP_ADD, 1, 2, V(r5, m5), 1, V(a5));
    int32_t y = reshape(&b, a5, "masked", 4, V(4, 3, 5, 5));
    IO(&b, 2, V(x, z), 1, V(y));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_hoist"), 1);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_rank5_hoist_unary_and_declines) {
    /* GELU between the reshapes runs on x; a rank-5 model input cannot be hoisted */
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 3, V(2, 6, 8));
    int32_t r5 = reshape(&b, x, "r5", 5, V(2, 2, 3, 2, 4));
    int32_t g5 = T(&b, "g5", GC_T_FLOAT32, 5, V(2, 2, 3, 2, 4));
    OP(&b, GC_OP_GELU, 1, 1, V(r5), 1, V(g5));
    int32_t t5 = transpose(&b, g5, "t5", 5, V(0, 2, 1, 3, 4));
    int32_t y = reshape(&b, t5, "y", 3, V(6, 2, 8));
    int32_t w = T(&b, "w5", GC_T_FLOAT32, 5, V(1, 1, 1, 2, 2));
    int32_t u = T(&b, "u5", GC_T_FLOAT32, 5, V(1, 1, 1, 2, 2));
    OP(&b, GC_OP_RELU, 1, 1, V(w), 1, V(u));
    IO(&b, 2, V(x, w), 2, V(y, u));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_hoist"), 1);
    CHECK_EQ_INT(sites(r.r, "rank5_fold"), 1);
    const gc_op *g = first_op(b.m, GC_OP_GELU);
    CHECK(g && g->inputs[0] == x);
    const char *why = decline_reason(r.r, "rank5_hoist");
    CHECK_MSG(why && strstr(why, "not made by a RESHAPE"), "%s", why ? why : "(none)");
    CHECK_EQ_INT(r.refused_after, 1);     /* the RELU on the rank-5 model input */
    run_free(&r);
    gc_model_free(b.m);
}

/* ---- const_fold over whole cones ---------------------------------------------------------- */

GC_TEST(fix_const_fold_whole_cone) {
    /* a YOLOS-like position-embedding lookup: two BROADCAST_TO index grids, RESHAPE,
     * CONCATENATION into [4,4,2] indices, GATHER_ND into a [5,5,3] table; added to x.
     * Folding any one op leaves the next with constant inputs only (refused too), so
     * only the whole cone helps. */
    mb b = mb_new();
    float table[75];
    for (int i = 0; i < 75; i++) table[i] = 0.1f * (float)i - 3.0f;
    int32_t rows = C(&b, "rows", GC_T_INT32, 2, V(4, 1), V(0, 1, 3, 4), 16);
    int32_t cols = C(&b, "cols", GC_T_INT32, 1, V(4), V(4, 2, 1, 0), 16);
    int32_t sh = CI(&b, "grid", NV(4, 4));
    int32_t br = T(&b, "br", GC_T_INT32, 2, V(4, 4)), bc = T(&b, "bc", GC_T_INT32, 2, V(4, 4));
    OP(&b, GC_OP_BROADCAST_TO, 2, 2, V(rows, sh), 1, V(br));
    OP(&b, GC_OP_BROADCAST_TO, 2, 2, V(cols, sh), 1, V(bc));
    int32_t r1 = reshape(&b, br, "r1", 3, V(4, 4, 1)), r2 = reshape(&b, bc, "r2", 3, V(4, 4, 1));
    int32_t idx = T(&b, "idx", GC_T_INT32, 3, V(4, 4, 2));
    int32_t cc = OP(&b, GC_OP_CONCATENATION, 1, 2, V(r1, r2), 1, V(idx));
    gc_opt_set_int(b.m, OPT(&b, cc), GC_O_ConcatenationOptions_axis, 2);
    int32_t tab = C(&b, "table", GC_T_FLOAT32, 3, V(5, 5, 3), table, sizeof table);
    int32_t pos = T(&b, "pos", GC_T_FLOAT32, 3, V(4, 4, 3));
    OP(&b, GC_OP_GATHER_ND, 1, 2, V(tab, idx), 1, V(pos));
    int32_t x = T(&b, "x", GC_T_FLOAT32, 3, V(4, 4, 3)), y = T(&b, "y", GC_T_FLOAT32, 3, V(4, 4, 3));
    OP(&b, GC_OP_ADD, 1, 2, V(x, pos), 1, V(y));
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "const_fold"), 1);
    CHECK(r.r && r.r->n_changes >= 1 && r.r->changes[0].removed == 6);
    /* the cone is one constant now; the ADD of x against it ([4,4,3] with a constant [4,4,3]:
     * numerics.equal_rank_const) is then done at rank 4 by rank_align, two RESHAPEs around it */
    CHECK_EQ_INT(count_ops(b.m, GC_OP_ADD), 1);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_GATHER_ND) + count_ops(b.m, GC_OP_CONCATENATION) + count_ops(b.m, GC_OP_BROADCAST_TO), 0);
    CHECK_EQ_INT(b.m->subgraphs[0].n_ops, 1 + 2 * sites(r.r, "rank_align"));
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(r.r && r.r->after.gpu_clean);
    const char *d = detail_of(r.r, "const_fold");
    CHECK_MSG(strstr(d, "a cone of 6 ops folded into 1 constant"), "%s", d);
    /* broadcast_to_const tried the BROADCAST_TOs first (rolled back: the RESHAPE after
     * each would be all-constant); they are gone now, so nothing is "left alone" */
    CHECK(decline_reason(r.r, "broadcast_to_const") == NULL);
    CHECK(r.r && r.r->n_declines == 0);
    run_free(&r);
    gc_model_free(b.m);
}

/* c[4] + c2[4] -> BROADCAST_TO [rows, 1000] -> MUL with x */
static gc_model *model_big_broadcast(int rows) {
    mb b = mb_new();
    float c4[4] = { 1, 2, 3, 4 }, d4[4] = { 0.5f, 0.25f, -1, 2 };
    int32_t c1 = C(&b, "c1", GC_T_FLOAT32, 1, V(4), c4, sizeof c4), c2 = C(&b, "c2", GC_T_FLOAT32, 1, V(4), d4, sizeof d4);
    int32_t s = T(&b, "sum", GC_T_FLOAT32, 1, V(4));
    OP(&b, GC_OP_ADD, 1, 2, V(c1, c2), 1, V(s));
    int32_t sh = CI(&b, "target", NV(rows, 250, 4));
    int32_t bb = T(&b, "big", GC_T_FLOAT32, 3, V(rows, 250, 4));
    OP(&b, GC_OP_BROADCAST_TO, 2, 2, V(s, sh), 1, V(bb));
    int32_t x = T(&b, "x", GC_T_FLOAT32, 3, V(rows, 250, 4)), y = T(&b, "y", GC_T_FLOAT32, 3, V(rows, 250, 4));
    OP(&b, GC_OP_MUL, 1, 2, V(x, bb), 1, V(y));
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

GC_TEST(fix_const_fold_size_rule_trims_the_cone) {
    /* 600x250x4 floats = 2.4 MB from 32 constant bytes: over F + 1 MiB. The broadcast is
     * left to run; the ADD before it still folds. */
    gc_model *m = model_big_broadcast(600);
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "const_fold";
    run r;
    fix_run_bit_exact(m, &o, &r);
    CHECK_EQ_INT(sites(r.r, "const_fold"), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_ADD), 0);
    CHECK_EQ_INT(count_ops(m, GC_OP_BROADCAST_TO), 1);
    const char *why = decline_reason(r.r, "const_fold");
    CHECK_MSG(why && strstr(why, "would grow the file by") && strstr(why, "2400000 new constant bytes"), "%s",
              why ? why : "(none)");
    run_free(&r);
    gc_model_free(m);
    /* a small result folds whole: 100x250x4 floats = 400 KB */
    m = model_big_broadcast(100);
    fix_run_bit_exact(m, &o, &r);
    CHECK_EQ_INT(sites(r.r, "const_fold"), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_BROADCAST_TO), 0);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(r.refused_after, 0);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_const_fold_max_const_bytes) {
    gc_model *m = model_big_broadcast(100);
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "const_fold";
    o.max_const_bytes = 1000;        /* the 400 KB broadcast is never part of a cone */
    run r;
    fix_run_bit_exact(m, &o, &r);
    CHECK_EQ_INT(count_ops(m, GC_OP_ADD), 0);
    CHECK_EQ_INT(count_ops(m, GC_OP_BROADCAST_TO), 1);
    const char *why = decline_reason(r.r, "const_fold");
    CHECK_MSG(why && strstr(why, "over the 1000-byte limit"), "%s", why ? why : "(none)");
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_rank5_hoist_softmax_and_flat_fc) {
    /* SOFTMAX over the last axis of a rank-5 view, then back; and a FULLY_CONNECTED
     * without keep_num_dims reading a rank-5 tensor (its output is already [rows, units]) */
    mb b = mb_new();
    float w[12];
    for (int i = 0; i < 12; i++) w[i] = 0.1f * (float)(i % 5) - 0.2f;
    int32_t x = T(&b, "x", GC_T_FLOAT32, 3, V(2, 6, 4));
    int32_t r5 = reshape(&b, x, "r5", 5, V(2, 2, 3, 1, 4));
    int32_t s5 = T(&b, "sm5", GC_T_FLOAT32, 5, V(2, 2, 3, 1, 4));
    OP(&b, GC_OP_SOFTMAX, 1, 1, V(r5), 1, V(s5));
    gc_opt_set_float(b.m, OPT(&b, b.m->subgraphs[0].n_ops - 1), GC_O_SoftmaxOptions_beta, 1.0);
    int32_t y = reshape(&b, s5, "y", 3, V(2, 6, 4));
    int32_t z = T(&b, "z", GC_T_FLOAT32, 3, V(3, 2, 8));
    int32_t q5 = reshape(&b, z, "q5", 5, V(3, 2, 1, 2, 4));
    int32_t tw = C(&b, "w", GC_T_FLOAT32, 2, V(3, 4), w, sizeof w);
    int32_t f = T(&b, "flat", GC_T_FLOAT32, 2, V(12, 3));
    OP(&b, GC_OP_FULLY_CONNECTED, 1, 3, V(q5, tw, -1), 1, V(f));
    IO(&b, 2, V(x, z), 2, V(y, f));
    (void)f;
    run r;
    fix_run_bit_exact(b.m, NULL, &r);
    CHECK_EQ_INT(sites(r.r, "rank5_hoist"), 2);
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(max_rank_used(b.m) <= 4);
    const gc_op *fc = first_op(b.m, GC_OP_FULLY_CONNECTED);
    /* (tensor indices move when the driver prunes: compare names) */
    CHECK(fc && !strcmp(b.m->subgraphs[0].tensors[fc->outputs[0]].name, "flat") && rank_of(&b, fc->inputs[0]) <= 4);
    const gc_op *sm = first_op(b.m, GC_OP_SOFTMAX);
    CHECK(sm && sm->inputs[0] == x);
    if (r.refused_after) dump(r.r);
    run_free(&r);
    gc_model_free(b.m);
}
