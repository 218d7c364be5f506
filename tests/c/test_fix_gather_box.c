/* test_fix_gather_box.c — gather_nd_const picks the cheapest exact form for constant
 * indices that walk a box of the params: RESHAPE for an identity (transformers' BERT
 * attention mask: GATHER_ND of a bool [1,32] with indices (0,k) -> [1,1,1,32]), SLICE
 * for a contiguous box (bool included: a SLICE of bool is version 1 while a
 * STRIDED_SLICE of bool is version 3, which ML Drift refuses), STRIDED_SLICE only for
 * strides > 1; and the op versions passes stamp follow TFLite's op_version.cc. */
#include "test_fix_lib.h"
#include "fix/fix_int.h"

/* GATHER_ND(x, const idx) with x of `type` */
static gc_model *model_gnd(int type, const int32_t *idx, int rank_i, const int32_t *ishape, int rank_x,
                           const int32_t *xshape, int rank_y, const int32_t *yshape) {
    mb b = mb_new();
    int32_t x = T(&b, "x", type, rank_x, xshape);
    int64_t n = 1;
    for (int d = 0; d < rank_i; d++) n *= ishape[d];
    int32_t i = C(&b, "indices", GC_T_INT32, rank_i, ishape, idx, sizeof(int32_t) * (size_t)n);
    int32_t y = T(&b, "g", type, rank_y, yshape);
    OP(&b, GC_OP_GATHER_ND, type == GC_T_BOOL ? 5 : 1, 2, V(x, i), 1, V(y));
    IO(&b, 1, V(x), 1, V(y));
    return b.m;
}

GC_TEST(fix_gather_nd_bert_mask_identity_is_reshape) {
    /* BertModel (transformers 5.x, litert-torch): CAST(int32 mask -> bool) [1,32],
     * GATHER_ND with indices [1,1,1,32,2] = (0,k), then the mask selects scores */
    mb b = mb_new();
    int32_t mask = T(&b, "attention_mask", GC_T_INT32, 2, V(1, 32));
    int32_t x = T(&b, "scores", GC_T_FLOAT32, 4, V(1, 1, 1, 32));
    int32_t mb_ = T(&b, "mask_bool", GC_T_BOOL, 2, V(1, 32));
    OP(&b, GC_OP_CAST, 1, 1, V(mask), 1, V(mb_));
    int32_t idx[64];
    for (int k = 0; k < 32; k++) { idx[2 * k] = 0; idx[2 * k + 1] = k; }
    int32_t ti = C(&b, "idx", GC_T_INT32, 5, V(1, 1, 1, 32, 2), idx, sizeof idx);
    int32_t g = T(&b, "mask4", GC_T_BOOL, 4, V(1, 1, 1, 32));
    OP(&b, GC_OP_GATHER_ND, 5, 2, V(mb_, ti), 1, V(g));
    float zero = 0;
    int32_t z = C(&b, "zero", GC_T_FLOAT32, 1, V(1), &zero, sizeof zero);
    int32_t y = T(&b, "masked", GC_T_FLOAT32, 4, V(1, 1, 1, 32));
    OP(&b, GC_OP_SELECT_V2, 1, 3, V(g, x, z), 1, V(y));
    IO(&b, 2, V(mask, x), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "gather_nd_const"), 1);
    if (sites(r.r, "gather_nd_const") != 1) dump(r.r);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_GATHER_ND), 0);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_STRIDED_SLICE) + count_ops(b.m, GC_OP_SLICE), 0);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_RESHAPE), 1);
    CHECK_EQ_INT(op_version(b.m, GC_OP_RESHAPE), 1);
    CHECK(strstr(detail_of(r.r, "gather_nd_const"), "RESHAPE to [1,1,1,32]"));
    CHECK_EQ_INT(r.refused_after, 0);
    CHECK(r.r && r.r->after.gpu_clean && r.r->exactness == GC_FIX_BIT_EXACT);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_gather_nd_contiguous_box_is_slice) {
    /* rows 2..4, columns 1..4 of [1,8,8,4], one index row per point, grid-shaped
     * indices [1,3,4,3]: the output is the box itself (no RESHAPE) */
    int32_t idx[3 * 4 * 3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) { int k = (i * 4 + j) * 3; idx[k] = 0; idx[k + 1] = 2 + i; idx[k + 2] = 1 + j; }
    gc_model *m = model_gnd(GC_T_FLOAT32, idx, 4, V(1, 3, 4, 3), 4, V(1, 8, 8, 4), 4, V(1, 3, 4, 4));
    run r;
    fix_run(m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "gather_nd_const"), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_SLICE), 1);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 1);
    CHECK(strstr(detail_of(r.r, "gather_nd_const"), "SLICE begin [0,2,1,0] size [1,3,4,4]"));
    CHECK_EQ_INT(r.refused_after, 0);
    run_free(&r);
    gc_model_free(m);
    /* the same points as a flat list of 12 tuples: SLICE + RESHAPE to [12,4] */
    m = model_gnd(GC_T_FLOAT32, idx, 2, V(12, 3), 4, V(1, 8, 8, 4), 2, V(12, 4));
    fix_run(m, NULL, &r, true);
    CHECK_EQ_INT(count_ops(m, GC_OP_SLICE), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_RESHAPE), 1);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 2);
    CHECK(strstr(detail_of(r.r, "gather_nd_const"), ", RESHAPE to [12,4]"));
    run_free(&r);
    gc_model_free(m);
    /* out of row-major order (columns first): not a box walk, the general path */
    int32_t t[3 * 4 * 3];
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 3; i++) { int k = (j * 3 + i) * 3; t[k] = 0; t[k + 1] = 2 + i; t[k + 2] = 1 + j; }
    m = model_gnd(GC_T_FLOAT32, t, 2, V(12, 3), 4, V(1, 8, 8, 4), 2, V(12, 4));
    fix_run(m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "gather_nd_const"), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_SLICE), 0);
    CHECK(!strstr(detail_of(r.r, "gather_nd_const"), "SLICE begin"));
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_gather_nd_bool_box_slice_version_1) {
    /* a bool box: SLICE version 1 — a STRIDED_SLICE would be version 3 */
    int32_t idx[2 * 2];
    for (int j = 0; j < 2; j++) { idx[2 * j] = 1; idx[2 * j + 1] = 3 + j; }
    gc_model *m = model_gnd(GC_T_BOOL, idx, 2, V(2, 2), 3, V(2, 8, 4), 2, V(2, 4));
    /* the bool output goes through a SELECT_V2 so the model has a float output */
    run r;
    fix_run(m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "gather_nd_const"), 1);
    if (sites(r.r, "gather_nd_const") != 1) dump(r.r);
    CHECK_EQ_INT(count_ops(m, GC_OP_STRIDED_SLICE), 0);
    CHECK_EQ_INT(count_ops(m, GC_OP_SLICE), 1);
    CHECK_EQ_INT(op_version(m, GC_OP_SLICE), 1);
    run_free(&r);
    gc_model_free(m);
    /* bool rows in runs of step 1 (rows 5,6 then 0,1 of [8,4]): SLICEs + CONCATENATION */
    m = model_gnd(GC_T_BOOL, V(5, 6, 0, 1), 2, V(4, 1), 2, V(8, 4), 2, V(4, 4));
    fix_run(m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "gather_nd_const"), 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_STRIDED_SLICE), 0);
    CHECK_EQ_INT(count_ops(m, GC_OP_SLICE), 2);
    CHECK_EQ_INT(count_ops(m, GC_OP_CONCATENATION), 1);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_gather_nd_strided_box_version_1) {
    /* x[:, 1::2] of [1,8,4] as (0, 1+2i): a strided box -> STRIDED_SLICE v1 (float) */
    int32_t idx[8];
    for (int i = 0; i < 4; i++) { idx[2 * i] = 0; idx[2 * i + 1] = 1 + 2 * i; }
    gc_model *m = model_gnd(GC_T_FLOAT32, idx, 3, V(1, 4, 2), 3, V(1, 8, 4), 3, V(1, 4, 4));
    run r;
    fix_run(m, NULL, &r, true);
    CHECK_EQ_INT(count_ops(m, GC_OP_STRIDED_SLICE), 1);
    CHECK_EQ_INT(op_version(m, GC_OP_STRIDED_SLICE), 1);
    CHECK(strstr(detail_of(r.r, "gather_nd_const"), "strides [1,2,1]"));
    CHECK_EQ_INT(r.refused_after, 0);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_gather_nd_rank5_params_box_on_a_view) {
    /* x[0, 1] of [1,2,3,4,5] -> [3,4,5]: the box is one contiguous run of the flat
     * params, so the slice runs on a rank-1 view; no new op reads rank 5 except the
     * RESHAPE to the view */
    gc_model *m = model_gnd(GC_T_FLOAT32, V(0, 1), 1, V(2), 5, V(1, 2, 3, 4, 5), 3, V(3, 4, 5));
    run r;
    gc_fix_opts o = gc_fix_opts_default();
    o.force = "gather_nd_const";
    o.only = "gather_nd_const";
    fix_run(m, &o, &r, true);
    CHECK_EQ_INT(sites(r.r, "gather_nd_const"), 1);
    if (sites(r.r, "gather_nd_const") != 1) dump(r.r);
    CHECK(strstr(detail_of(r.r, "gather_nd_const"), "RESHAPE params to [120], SLICE begin [60] size [60], RESHAPE to [3,4,5]"));
    CHECK_EQ_INT(op_version(m, GC_OP_SLICE), 1);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_op_versions_follow_op_version_cc) {
    /* tensorflow/lite/tools/versioning/op_version.cc, GetBuiltinOperatorVersion */
    CHECK_EQ_INT(fx_version_for(GC_OP_STRIDED_SLICE, GC_T_FLOAT32, 4), 1);
    CHECK_EQ_INT(fx_version_for(GC_OP_STRIDED_SLICE, GC_T_INT8, 4), 2);
    CHECK_EQ_INT(fx_version_for(GC_OP_STRIDED_SLICE, GC_T_BOOL, 2), 3);      /* BERT's mask */
    CHECK_EQ_INT(fx_version_for(GC_OP_STRIDED_SLICE, GC_T_FLOAT32, 5), 4);   /* num_dims > 4 */
    CHECK_EQ_INT(fx_version_for(GC_OP_STRIDED_SLICE, GC_T_BOOL, 5), 4);
    CHECK_EQ_INT(fx_version_for(GC_OP_STRIDED_SLICE, GC_T_INT16, 4), 1);     /* no int16 version */
    CHECK_EQ_INT(fx_version_for(GC_OP_SLICE, GC_T_BOOL, 4), 1);
    CHECK_EQ_INT(fx_version_for(GC_OP_SLICE, GC_T_INT8, 4), 2);
    CHECK_EQ_INT(fx_version_for(GC_OP_SLICE, GC_T_INT16, 4), 4);
    CHECK_EQ_INT(fx_version_for(GC_OP_SLICE, GC_T_FLOAT32, 5), 5);
    CHECK_EQ_INT(fx_version_for(GC_OP_TRANSPOSE, GC_T_FLOAT32, 5), 4);
    CHECK_EQ_INT(fx_version_for(GC_OP_TRANSPOSE, GC_T_FLOAT32, 6), 6);
    CHECK_EQ_INT(fx_version_for(GC_OP_TRANSPOSE, GC_T_INT16, 4), 5);
    CHECK_EQ_INT(fx_version_for(GC_OP_TRANSPOSE, GC_T_BOOL, 4), 3);
    CHECK_EQ_INT(fx_version_for(GC_OP_GATHER, GC_T_BOOL, 2), 3);
    CHECK_EQ_INT(fx_version_for(GC_OP_GATHER, GC_T_INT16, 2), 4);
    CHECK_EQ_INT(fx_version_for(GC_OP_CONCATENATION, GC_T_INT8, 4), 2);
    CHECK_EQ_INT(fx_version_for(GC_OP_CONCATENATION, GC_T_INT16, 4), 3);
    CHECK_EQ_INT(fx_version_for(GC_OP_RESHAPE, GC_T_BOOL, 5), 1);
    CHECK_EQ_INT(fx_version_for(GC_OP_PAD, GC_T_FLOAT32, 5), 4);
    CHECK_EQ_INT(fx_version_for(GC_OP_MUL, GC_T_INT64, 4), 5);
}
