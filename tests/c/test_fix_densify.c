/* test_fix_densify.c — densify_const [fix.densify]: DENSIFY of a constant stored with
 * TFLite sparsity metadata becomes the dense constant, decoded as the runtime's
 * FormatConverter::SparseToDense does (CSR levels, blocks, traversal orders); metadata
 * the runtime would read or write out of bounds with is declined with the reason and the
 * model left as it was. (tests/fix/densify_litert.py checks the same decoding against
 * LiteRT's own DENSIFY kernel on models LiteRT's encoder wrote.) */
#include "test_fix_lib.h"

/* x + DENSIFY(w) where w [rows, cols] float is stored sparse with `sp` and `vals` */
static gc_model *model_densify(int rank, const int32_t *shape, gc_sparsity *sp, const float *vals, int nvals,
                               int32_t *dense_t) {
    mb b = mb_new();
    int32_t ws = C(&b, "w_sparse", GC_T_FLOAT32, rank, shape, vals, sizeof(float) * (size_t)nvals);
    b.m->subgraphs[0].tensors[ws].sparsity = sp;
    int32_t wd = T(&b, "w_dense", GC_T_FLOAT32, rank, shape);
    OP(&b, GC_OP_DENSIFY, 1, 1, V(ws), 1, V(wd));
    int32_t x = T(&b, "x", GC_T_FLOAT32, rank, shape);
    int32_t y = T(&b, "y", GC_T_FLOAT32, rank, shape);
    OP(&b, GC_OP_ADD, 1, 2, V(x, wd), 1, V(y));
    IO(&b, 1, V(x), 1, V(y));
    *dense_t = wd;
    return b.m;
}

/* the constant now held by the tensor named w_dense (NULL when it is not constant; the
 * final prune renumbers tensors) */
static const float *const_of(const gc_model *m, int32_t t, uint64_t *n) {
    (void)t;
    const gc_tensor *x = NULL;
    for (int32_t i = 0; i < m->subgraphs[0].n_tensors; i++)
        if (!strcmp(m->subgraphs[0].tensors[i].name, "w_dense")) x = &m->subgraphs[0].tensors[i];
    if (!x || !gc_tensor_is_const(m, x)) return NULL;
    const gc_buffer *bf = gc_tensor_buffer(m, x);
    *n = bf->size / 4;
    return (const float *)bf->data;
}

static uint8_t seg_u8[] = { 0, 1, 3, 3 }, idx_u8[] = { 2, 0, 3 };

GC_TEST(fix_densify_csr) {
    /* [3,4]: row 0 has column 2, row 1 columns 0 and 3, row 2 nothing */
    gc_dim_meta dm[2] = {
        { .format = 0, .dense_size = 3 },
        { .format = 1, .segments_type = 3, .indices_type = 3, .n_segments = 4, .n_indices = 3,
          .segments = seg_u8, .indices = idx_u8 },
    };
    int32_t trav[2] = { 0, 1 };
    gc_sparsity sp = { .n_traversal_order = 2, .n_block_map = 0, .n_dim_metadata = 2, .traversal_order = trav,
                       .block_map = NULL, .dim_metadata = dm };
    float vals[3] = { 1, 2, 3 };
    int32_t wd;
    gc_model *m = model_densify(2, V(3, 4), &sp, vals, 3, &wd);
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "densify_const";   /* const_fold could fold the DENSIFY where the interpreter runs it */
    run r;
    fix_run(m, &o, &r, false);
    CHECK_EQ_INT(sites(r.r, "densify_const"), 1);
    if (sites(r.r, "densify_const") != 1) dump(r.r);
    CHECK_EQ_INT(count_ops(m, GC_OP_DENSIFY), 0);
    uint64_t n = 0;
    const float *d = const_of(m, wd, &n);
    const float want[12] = { 0, 0, 1, 0, 2, 0, 0, 3, 0, 0, 0, 0 };
    CHECK(d && n == 12 && !memcmp(d, want, sizeof want));
    CHECK(r.r && r.r->after.gpu_clean && r.r->exactness == GC_FIX_BIT_EXACT);
    CHECK(strstr(detail_of(r.r, "densify_const"), "constant FLOAT32 [3,4] (48 dense bytes from 12 stored)"));
    run_free(&r);
    gc_model_free(m);
}

static int32_t seg_i32[] = { 0, 1, 2 }, idx_i32[] = { 1, 0 };

GC_TEST(fix_densify_blocks_and_column_order) {
    /* [4,4] in 2x2 blocks: block row 0 holds block column 1, block row 1 block column 0 */
    gc_dim_meta dm[4] = {
        { .format = 0, .dense_size = 2 },
        { .format = 1, .segments_type = 1, .indices_type = 1, .n_segments = 3, .n_indices = 2,
          .segments = seg_i32, .indices = idx_i32 },
        { .format = 0, .dense_size = 2 },
        { .format = 0, .dense_size = 2 },
    };
    int32_t trav[4] = { 0, 1, 2, 3 }, bmap[2] = { 0, 1 };
    gc_sparsity sp = { .n_traversal_order = 4, .n_block_map = 2, .n_dim_metadata = 4, .traversal_order = trav,
                       .block_map = bmap, .dim_metadata = dm };
    float vals[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    int32_t wd;
    gc_model *m = model_densify(2, V(4, 4), &sp, vals, 8, &wd);
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "densify_const";
    run r;
    fix_run(m, &o, &r, false);
    CHECK_EQ_INT(sites(r.r, "densify_const"), 1);
    uint64_t n = 0;
    const float *d = const_of(m, wd, &n);
    const float want[16] = { 0, 0, 1, 2,  0, 0, 3, 4,  5, 6, 0, 0,  7, 8, 0, 0 };
    CHECK(d && n == 16 && !memcmp(d, want, sizeof want));
    run_free(&r);
    gc_model_free(m);
    /* CSR by columns (traversal 1,0): column 0 holds rows 1 and 2 of [3,2] */
    static uint16_t seg16[] = { 0, 2, 2 }, idx16[] = { 1, 2 };
    gc_dim_meta dc[2] = {
        { .format = 0, .dense_size = 2 },
        { .format = 1, .segments_type = 2, .indices_type = 2, .n_segments = 3, .n_indices = 2,
          .segments = seg16, .indices = idx16 },
    };
    int32_t tc[2] = { 1, 0 };
    gc_sparsity sc = { .n_traversal_order = 2, .n_dim_metadata = 2, .traversal_order = tc, .dim_metadata = dc };
    float vc[2] = { 9, 10 };
    m = model_densify(2, V(3, 2), &sc, vc, 2, &wd);
    fix_run(m, &o, &r, false);
    CHECK_EQ_INT(sites(r.r, "densify_const"), 1);
    d = const_of(m, wd, &n);
    const float wc[6] = { 0, 0, 9, 0, 10, 0 };
    CHECK(d && n == 6 && !memcmp(d, wc, sizeof wc));
    run_free(&r);
    gc_model_free(m);
}

/* one corrupt variant of the [3,4] CSR case: declined with `reason`, model unchanged */
static void corrupt_case(const char *what, gc_sparsity *sp, int nvals, const char *reason) {
    float vals[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    int32_t wd;
    gc_model *m = model_densify(2, V(3, 4), sp, vals, nvals, &wd);
    gc_fix_opts o = gc_fix_opts_default();
    o.only = "densify_const";
    run r;
    fix_run(m, &o, &r, false);
    CHECK_MSG(sites(r.r, "densify_const") == 0, "%s: rewritten", what);
    CHECK_EQ_INT(count_ops(m, GC_OP_DENSIFY), 1);
    const char *why = decline_reason(r.r, "densify_const");
    CHECK_MSG(why && strstr(why, reason), "%s: %s", what, why ? why : "(no reason)");
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_densify_declines_corrupt_metadata) {
    int32_t trav[2] = { 0, 1 };
    static uint8_t seg_past[] = { 0, 1, 5, 5 }, seg_down[] = { 0, 2, 1, 3 }, idx_big[] = { 2, 0, 9 };
    gc_dim_meta dm[2] = {
        { .format = 0, .dense_size = 3 },
        { .format = 1, .segments_type = 3, .indices_type = 3, .n_segments = 4, .n_indices = 3,
          .segments = seg_past, .indices = idx_u8 },
    };
    gc_sparsity sp = { .n_traversal_order = 2, .n_dim_metadata = 2, .traversal_order = trav, .dim_metadata = dm };
    corrupt_case("segments past indices", &sp, 3, "array_segments point past array_indices");
    dm[1].segments = seg_down;
    corrupt_case("decreasing segments", &sp, 3, "decreasing array_segments");
    dm[1].segments = seg_u8; dm[1].indices = idx_big;
    corrupt_case("column 9 of 4", &sp, 3, "outside the dense shape");
    dm[1].indices = idx_u8;
    corrupt_case("too many values", &sp, 5, "visits 3 positions for 5 stored values");
    corrupt_case("too few values", &sp, 2, "more positions than stored values");
    /* a fourth row where the shape has three: the runtime would write past the tensor */
    static uint8_t seg4[] = { 0, 1, 3, 3, 4 }, idx4[] = { 2, 0, 3, 1 };
    dm[0].dense_size = 4;
    dm[1].n_segments = 5; dm[1].segments = seg4; dm[1].n_indices = 4; dm[1].indices = idx4;
    corrupt_case("dense level larger than the shape", &sp, 4, "outside the dense shape");
    dm[0].dense_size = 3;
    dm[1].n_segments = 4; dm[1].segments = seg_u8; dm[1].n_indices = 3; dm[1].indices = idx_u8;
    int32_t rep[2] = { 0, 0 };
    sp.traversal_order = rep;
    corrupt_case("repeated traversal entry", &sp, 3, "out of range or repeated");
    sp.traversal_order = trav;
    sp.n_dim_metadata = 1;
    corrupt_case("missing dim_metadata", &sp, 3, "inconsistent sparsity");
    sp.n_dim_metadata = 2;
    dm[1].segments = NULL;
    corrupt_case("no segments", &sp, 3, "missing or of unknown type");
}

GC_TEST(fix_densify_size_guard) {
    gc_dim_meta dm[2] = {
        { .format = 0, .dense_size = 3 },
        { .format = 1, .segments_type = 3, .indices_type = 3, .n_segments = 4, .n_indices = 3,
          .segments = seg_u8, .indices = idx_u8 },
    };
    int32_t trav[2] = { 0, 1 };
    gc_sparsity sp = { .n_traversal_order = 2, .n_dim_metadata = 2, .traversal_order = trav, .dim_metadata = dm };
    float vals[3] = { 1, 2, 3 };
    int32_t wd;
    gc_model *m = model_densify(2, V(3, 4), &sp, vals, 3, &wd);
    gc_fix_opts o = gc_fix_opts_default();
    o.max_const_bytes = 40;   /* the dense [3,4] float takes 48 */
    o.only = "densify_const";
    run r;
    fix_run(m, &o, &r, false);
    CHECK_EQ_INT(sites(r.r, "densify_const"), 0);
    const char *why = decline_reason(r.r, "densify_const");
    CHECK_MSG(why && strstr(why, "over the 40-byte limit"), "%s", why ? why : "(none)");
    run_free(&r);
    gc_model_free(m);
}
