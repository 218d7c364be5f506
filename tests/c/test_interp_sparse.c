/* test_interp_sparse.c — constant tensors stored with TFLite sparsity metadata and the
 * DENSIFY op: CSR in either traversal order, 1x4 and 2x2 blocks, Int32 / Uint16 / Uint8
 * index vectors (encodings as LiteRT's FormatConverter writes them), a sparse weight read
 * directly by FULLY_CONNECTED (float and hybrid), fp16 rounding, a write + read round
 * trip, and a clear message for every malformed field of a hostile file. */
#include "test_kernels_harness.h"
#include "interp/fp16.h"

static bool has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

typedef struct { int fmt, dense; int type; int ns, ni; const int32_t *seg, *idx; } sp_dim;

/* Give tensor slot `k` of r sparsity metadata and a buffer of `nv` stored values. */
static void sp_attach(kt_model *r, int k, const void *vals, size_t vbytes, int n_trav, const int32_t *trav,
                      int n_bm, const int32_t *bm, const sp_dim *dims) {
    gc_model *m = r->m;
    gc_tensor *t = &m->subgraphs[0].tensors[r->t[k]];
    gc_sparsity *s = gc_arena_alloc(&m->arena, sizeof *s);
    s->n_traversal_order = n_trav;
    s->traversal_order = gc_arena_alloc(&m->arena, sizeof(int32_t) * (size_t)(n_trav + 1));
    memcpy(s->traversal_order, trav, sizeof(int32_t) * (size_t)n_trav);
    s->n_block_map = n_bm;
    s->block_map = gc_arena_alloc(&m->arena, sizeof(int32_t) * (size_t)(n_bm + 1));
    if (n_bm) memcpy(s->block_map, bm, sizeof(int32_t) * (size_t)n_bm);
    s->n_dim_metadata = n_trav;
    s->dim_metadata = gc_arena_alloc(&m->arena, sizeof(gc_dim_meta) * (size_t)n_trav);
    for (int p = 0; p < n_trav; p++) {
        gc_dim_meta *g = &s->dim_metadata[p];
        g->format = (int8_t)dims[p].fmt;
        g->dense_size = dims[p].dense;
        if (dims[p].fmt != 1) continue;
        int w = dims[p].type == 1 ? 4 : dims[p].type == 2 ? 2 : 1;
        g->segments_type = g->indices_type = (uint8_t)dims[p].type;
        g->n_segments = (uint32_t)dims[p].ns; g->n_indices = (uint32_t)dims[p].ni;
        uint8_t *sg = gc_arena_alloc(&m->arena, (size_t)w * (size_t)(dims[p].ns + 1));
        uint8_t *ix = gc_arena_alloc(&m->arena, (size_t)w * (size_t)(dims[p].ni + 1));
        for (int i = 0; i < dims[p].ns; i++) {
            int32_t v = dims[p].seg[i]; uint16_t v16 = (uint16_t)v; uint8_t v8 = (uint8_t)v;
            memcpy(sg + (size_t)i * w, w == 4 ? (void *)&v : w == 2 ? (void *)&v16 : (void *)&v8, (size_t)w);
        }
        for (int i = 0; i < dims[p].ni; i++) {
            int32_t v = dims[p].idx[i]; uint16_t v16 = (uint16_t)v; uint8_t v8 = (uint8_t)v;
            memcpy(ix + (size_t)i * w, w == 4 ? (void *)&v : w == 2 ? (void *)&v16 : (void *)&v8, (size_t)w);
        }
        g->segments = sg; g->indices = ix;
    }
    t->sparsity = s;
    t->buffer = (uint32_t)gc_model_add_buffer(m, vals, vbytes);
}

/* DENSIFY model: constant sparse input (slot 0) -> output; `dense_dummy` only sizes the
 * constant the harness makes before sp_attach replaces its buffer. */
static kt_model densify_model(int type, int rank, const int32_t *shape, const void *dense_dummy) {
    kt_tensor ins[1] = { { .type = type, .rank = rank, .data = dense_dummy } };
    kt_tensor outs[1] = { { .type = type, .rank = rank } };
    for (int i = 0; i < rank; i++) { ins[0].shape[i] = shape[i]; outs[0].shape[i] = shape[i]; }
    return kt_build(GC_OP_DENSIFY, 0, ins, 1, outs, 1);
}

static bool densify_run(kt_model *r, gc_precision p, void *out, size_t nbytes, char *err, size_t errlen) {
    kt_tensor none[1] = { { .type = -1 } };
    return kt_run(r, p, none, 0, 0, out, nbytes, err, errlen, NULL, NULL);
}

/* the 3x4 matrix of TFLite's FormatConverter example */
static const float mat34[12] = { 1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 4, 0 };
static const int32_t shp34[2] = { 3, 4 };
static float dummy[64];

GC_TEST(interp_sparse_csr_row_major_int32_and_column_major_uint8) {
    /* rows dense, columns CSR: segments 0 2 2 4, indices 0 3 1 2 */
    const float vals[4] = { 1, 2, 3, 4 };
    const int32_t trav[2] = { 0, 1 }, seg[4] = { 0, 2, 2, 4 }, idx[4] = { 0, 3, 1, 2 };
    sp_dim dims[2] = { { 0, 3, 0, 0, 0, NULL, NULL }, { 1, 0, 1, 4, 4, seg, idx } };
    kt_model r = densify_model(GC_T_FLOAT32, 2, shp34, dummy);
    sp_attach(&r, 0, vals, sizeof vals, 2, trav, 0, NULL, dims);
    float got[12];
    CHECK(densify_run(&r, GC_PREC_FP32, got, sizeof got, NULL, 0));
    kt_check_f(got, mat34, 12, 0, "csr");
    gc_model_free(r.m);
    /* traversal (1, 0): columns CSR (all four kept), rows dense: values column by column */
    const float cvals[12] = { 1, 0, 0, 0, 0, 3, 0, 0, 4, 2, 0, 0 };
    const int32_t ctrav[2] = { 1, 0 }, cseg[2] = { 0, 4 }, cidx[4] = { 0, 1, 2, 3 };
    sp_dim cdims[2] = { { 1, 0, 3, 2, 4, cseg, cidx }, { 0, 3, 0, 0, 0, NULL, NULL } };
    r = densify_model(GC_T_FLOAT32, 2, shp34, dummy);
    sp_attach(&r, 0, cvals, sizeof cvals, 2, ctrav, 0, NULL, cdims);
    CHECK(densify_run(&r, GC_PREC_FP32, got, sizeof got, NULL, 0));
    kt_check_f(got, mat34, 12, 0, "csc");
    gc_model_free(r.m);
}

GC_TEST(interp_sparse_blocks_1x4_uint16_2x2_int32_int8_values) {
    /* [4, 8] in 1x4 blocks (block_map 1): rows dense, block columns CSR, blocks dense */
    const float vals[8] = { 0, 1, 0, 0, 0, 2, 3, 0 };
    const int32_t trav[3] = { 0, 1, 2 }, bm[1] = { 1 }, seg[5] = { 0, 1, 1, 2, 2 }, idx[2] = { 1, 0 };
    sp_dim dims[3] = { { 0, 4, 0, 0, 0, NULL, NULL }, { 1, 0, 2, 5, 2, seg, idx }, { 0, 4, 0, 0, 0, NULL, NULL } };
    const int32_t shp[2] = { 4, 8 };
    kt_model r = densify_model(GC_T_FLOAT32, 2, shp, dummy);
    sp_attach(&r, 0, vals, sizeof vals, 3, trav, 1, bm, dims);
    float got[32], want[32] = { 0 };
    want[0 * 8 + 5] = 1; want[2 * 8 + 1] = 2; want[2 * 8 + 2] = 3;
    CHECK(densify_run(&r, GC_PREC_FP32, got, sizeof got, NULL, 0));
    kt_check_f(got, want, 32, 0, "1x4");
    gc_model_free(r.m);
    /* [4, 4] in 2x2 blocks: block (0, 1) = a b / c d, block (1, 0) = e f / g h, as INT8 */
    const int8_t q[8] = { 1, 2, 3, 4, -5, -6, -7, -8 };
    const int32_t trav4[4] = { 0, 1, 2, 3 }, bm2[2] = { 0, 1 }, seg2[3] = { 0, 1, 2 }, idx2[2] = { 1, 0 };
    sp_dim d4[4] = { { 0, 2, 0, 0, 0, NULL, NULL }, { 1, 0, 1, 3, 2, seg2, idx2 },
                     { 0, 2, 0, 0, 0, NULL, NULL }, { 0, 2, 0, 0, 0, NULL, NULL } };
    const int32_t shp44[2] = { 4, 4 };
    r = densify_model(GC_T_INT8, 2, shp44, dummy);
    sp_attach(&r, 0, q, sizeof q, 4, trav4, 2, bm2, d4);
    int8_t g8[16];
    const int8_t w8[16] = { 0, 0, 1, 2, 0, 0, 3, 4, -5, -6, 0, 0, -7, -8, 0, 0 };
    CHECK(densify_run(&r, GC_PREC_FP32, g8, sizeof g8, NULL, 0));
    CHECK(memcmp(g8, w8, 16) == 0);
    gc_model_free(r.m);
}

GC_TEST(interp_sparse_weight_read_directly_by_fully_connected) {
    /* W [4, 8] stored 1x4-block sparse (as above) feeding FULLY_CONNECTED with no DENSIFY,
     * float and hybrid INT8 (scale 0.5) */
    const float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    const float vals[8] = { 0, 1, 0, 0, 0, 2, 3, 0 };
    const int8_t qv[8] = { 0, 2, 0, 0, 0, 4, 6, 0 };
    const int32_t trav[3] = { 0, 1, 2 }, bm[1] = { 1 }, seg[5] = { 0, 1, 1, 2, 2 }, idx[2] = { 1, 0 };
    sp_dim dims[3] = { { 0, 4, 0, 0, 0, NULL, NULL }, { 1, 0, 2, 5, 2, seg, idx }, { 0, 4, 0, 0, 0, NULL, NULL } };
    for (int hybrid = 0; hybrid < 2; hybrid++) {
        kt_tensor ins[] = { KT_IN(GC_T_FLOAT32, 2, KT_S(1, 8), x),
                            hybrid ? (kt_tensor)KT_Q(GC_T_INT8, 2, KT_S(4, 8), dummy, 0.5f, 0)
                                   : (kt_tensor)KT_C(GC_T_FLOAT32, 2, KT_S(4, 8), dummy), { .type = -1 } };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(1, 4)) };
        kt_model r = kt_build(GC_OP_FULLY_CONNECTED, GC_BO_FullyConnectedOptions, ins, 3, outs, 1);
        if (hybrid) sp_attach(&r, 1, qv, sizeof qv, 3, trav, 1, bm, dims);
        else sp_attach(&r, 1, vals, sizeof vals, 3, trav, 1, bm, dims);
        float got[4];
        CHECK(kt_run(&r, GC_PREC_FP32, ins, 3, 0, got, sizeof got, NULL, 0, NULL, NULL));
        /* unit 0: x[5] * 1 = 6; unit 2: 2 x[1] + 3 x[2] = 13 (the hybrid rounds x to 8 / 127 steps) */
        CHECK_MSG(fabsf(got[0] - 6) < 0.05f && got[1] == 0 && fabsf(got[2] - 13) < 0.2f && got[3] == 0,
                  "hybrid %d: %g %g %g %g", hybrid, (double)got[0], (double)got[1], (double)got[2], (double)got[3]);
        if (!hybrid) CHECK(got[0] == 6 && got[2] == 13);
        gc_model_free(r.m);
    }
}

GC_TEST(interp_sparse_fp16_rounding_and_write_read_round_trip) {
    const float vals[4] = { 1.0001f, 2, 3, 4 };
    const int32_t trav[2] = { 0, 1 }, seg[4] = { 0, 2, 2, 4 }, idx[4] = { 0, 3, 1, 2 };
    sp_dim dims[2] = { { 0, 3, 0, 0, 0, NULL, NULL }, { 1, 0, 2, 4, 4, seg, idx } };
    kt_model r = densify_model(GC_T_FLOAT32, 2, shp34, dummy);
    sp_attach(&r, 0, vals, sizeof vals, 2, trav, 0, NULL, dims);
    float got[12];
    CHECK(densify_run(&r, GC_PREC_FP16, got, sizeof got, NULL, 0));
    CHECK(got[0] == gc_f16_round(1.0001f) && got[0] != 1.0001f && got[3] == 2 && got[10] == 4 && got[1] == 0);
    /* serialize, read back, run: the metadata survives the writer and the reader */
    uint8_t *buf = NULL; size_t n = 0;
    char err[512];
    CHECK(gc_model_write_mem(r.m, NULL, &buf, &n, err, sizeof err) == GC_OK);
    gc_model *m2 = gc_model_read_mem(buf, n, err, sizeof err);
    CHECK_MSG(m2 != NULL, "%s", err);
    if (m2) {
        const gc_tensor *t = &m2->subgraphs[0].tensors[r.t[0]];
        CHECK(t->sparsity && t->sparsity->n_dim_metadata == 2 && t->sparsity->dim_metadata[1].segments_type == 2);
        kt_model r2 = r;
        r2.m = m2;
        CHECK(densify_run(&r2, GC_PREC_FP32, got, sizeof got, NULL, 0));
        CHECK(got[0] == 1.0001f && got[3] == 2 && got[9] == 3 && got[10] == 4);
        gc_model_free(m2);
    }
    free(buf);
    gc_model_free(r.m);
}

/* run a CSR [3, 4] DENSIFY with the given pieces; expect prepare to fail with `msg` */
static void bad_csr(const char *what, int type, const float *vals, size_t vbytes, int n_trav, const int32_t *trav,
                    int n_bm, const int32_t *bm, const sp_dim *dims, const int32_t *shape, const char *msg) {
    kt_model r = densify_model(type, 2, shape ? shape : shp34, dummy);
    sp_attach(&r, 0, vals, vbytes, n_trav, trav, n_bm, bm, dims);
    char err[512];
    float got[64];
    uint64_t numel = (uint64_t)(shape ? shape[0] * shape[1] : 12);
    CHECK_MSG(!densify_run(&r, GC_PREC_FP32, got, (size_t)gc_type_bytes(type, numel), err, sizeof err), "%s: accepted", what);
    CHECK_MSG(has(err, msg), "%s: %s", what, err);
    CHECK_MSG(has(err, "sparse tensor"), "%s: %s", what, err);
    gc_model_free(r.m);
}

GC_TEST(interp_sparse_hostile_metadata_gives_messages) {
    const float v4[4] = { 1, 2, 3, 4 };
    const int32_t t01[2] = { 0, 1 }, t00[2] = { 0, 0 }, seg[4] = { 0, 2, 2, 4 }, idx[4] = { 0, 3, 1, 2 };
    const int32_t idx_oob[4] = { 0, 4, 1, 2 }, seg_dec[4] = { 0, 2, 1, 4 }, seg_past[4] = { 0, 2, 2, 5 };
    sp_dim ok[2] = { { 0, 3, 0, 0, 0, NULL, NULL }, { 1, 0, 1, 4, 4, seg, idx } };
    sp_dim d[2];
    memcpy(d, ok, sizeof d); d[1].idx = idx_oob;
    bad_csr("index", GC_T_FLOAT32, v4, sizeof v4, 2, t01, 0, NULL, d, NULL, "index 4 (entry 1) is outside [0, 4)");
    memcpy(d, ok, sizeof d); d[1].seg = seg_dec;
    bad_csr("decreasing", GC_T_FLOAT32, v4, sizeof v4, 2, t01, 0, NULL, d, NULL, "segment 1 is [2, 1)");
    memcpy(d, ok, sizeof d); d[1].seg = seg_past;
    bad_csr("past", GC_T_FLOAT32, v4, sizeof v4, 2, t01, 0, NULL, d, NULL, "outside the 4 indices");
    memcpy(d, ok, sizeof d); d[1].ns = 3;
    bad_csr("short segments", GC_T_FLOAT32, v4, sizeof v4, 2, t01, 0, NULL, d, NULL, "array_segments has 3 entries");
    bad_csr("values", GC_T_FLOAT32, v4, 3 * sizeof(float), 2, t01, 0, NULL, ok, NULL, "more than the 3 values");
    bad_csr("traversal", GC_T_FLOAT32, v4, sizeof v4, 2, t00, 0, NULL, ok, NULL, "traversal_order is not");
    bad_csr("traversal count", GC_T_FLOAT32, v4, sizeof v4, 1, t01, 0, NULL, ok, NULL, "traversal_order has 1 entries");
    memcpy(d, ok, sizeof d); d[0].dense = 5;
    bad_csr("dense_size", GC_T_FLOAT32, v4, sizeof v4, 2, t01, 0, NULL, d, NULL, "DENSE with dense_size 5, its extent is 3");
    memcpy(d, ok, sizeof d); d[0].fmt = 2;
    bad_csr("format", GC_T_FLOAT32, v4, sizeof v4, 2, t01, 0, NULL, d, NULL, "unknown format 2");
    memcpy(d, ok, sizeof d); d[1].type = 0;
    bad_csr("vectors", GC_T_FLOAT32, v4, sizeof v4, 2, t01, 0, NULL, d, NULL, "without array_segments");
    bad_csr("int4", GC_T_INT4, v4, sizeof v4, 2, t01, 0, NULL, ok, NULL, "type INT4 are not supported");
    /* blocks: a block size that does not divide, a block_map naming a dimension twice */
    const int32_t t012[3] = { 0, 1, 2 }, bm1[1] = { 1 }, bm_bad[1] = { 2 };
    const int32_t bseg[5] = { 0, 1, 1, 2, 2 }, bidx[2] = { 1, 0 }, shp48[2] = { 4, 8 };
    sp_dim bd[3] = { { 0, 4, 0, 0, 0, NULL, NULL }, { 1, 0, 2, 5, 2, bseg, bidx }, { 0, 3, 0, 0, 0, NULL, NULL } };
    const float v8[8] = { 0 };
    bad_csr("block size", GC_T_FLOAT32, v8, sizeof v8, 3, t012, 1, bm1, bd, shp48, "block size 3 does not divide dimension 1 of size 8");
    bd[2].dense = 4;
    bad_csr("block_map", GC_T_FLOAT32, v8, sizeof v8, 3, t012, 1, bm_bad, bd, shp48, "block_map entry 0 names dimension 2");
    /* repeated indices: the walk would visit more positions than the tensor has */
    int32_t rseg[2] = { 0, 40 }, ridx[40] = { 0 };
    float many[160] = { 0 };
    const int32_t shp24[2] = { 2, 4 };
    sp_dim rd[2] = { { 1, 0, 1, 2, 40, rseg, ridx }, { 0, 4, 0, 0, 0, NULL, NULL } };
    bad_csr("repeats", GC_T_FLOAT32, many, sizeof many, 2, t01, 0, NULL, rd, shp24, "visits more positions");
}
