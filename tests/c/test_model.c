/* test_model.c — the model layer: builder, writer, reader, round trips on the corpus,
 * editing, external data, hostile input. */
#include "test.h"
#include "model/model.h"

#include <dirent.h>
#include <stdint.h>

/* A graph a converter would not give us easily: x[1,2,3,4] → RESHAPE to rank 5 →
 * RESHAPE back → SELECT_V2(cond, ·, const) → output. */
static gc_model *build_hostile(void) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t s4[] = {1, 2, 3, 4}, s5[] = {1, 2, 3, 2, 2}, s1[] = {5};
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 4, s4, 0);
    int32_t c = gc_sg_add_tensor(m, sg, "cond", GC_T_BOOL, 4, s4, 0);
    int32_t shp5 = gc_sg_add_tensor(m, sg, "shape5", GC_T_INT32, 1, s1,
                                     (uint32_t)gc_model_add_buffer(m, s5, sizeof s5));
    int32_t y5 = gc_sg_add_tensor(m, sg, "y5", GC_T_FLOAT32, 5, s5, 0);
    int32_t s4c[] = {4};
    int32_t shp4 = gc_sg_add_tensor(m, sg, "shape4", GC_T_INT32, 1, s4c,
                                    (uint32_t)gc_model_add_buffer(m, s4, sizeof s4));
    int32_t y4 = gc_sg_add_tensor(m, sg, "y4", GC_T_FLOAT32, 4, s4, 0);
    float zeros[24] = {0};
    int32_t z = gc_sg_add_tensor(m, sg, "zeros", GC_T_FLOAT32, 4, s4,
                                 (uint32_t)gc_model_add_buffer(m, zeros, sizeof zeros));
    int32_t out = gc_sg_add_tensor(m, sg, "out", GC_T_FLOAT32, 4, s4, 0);
    int32_t oc_r = gc_model_add_opcode(m, GC_OP_RESHAPE, NULL, 1);
    int32_t oc_s = gc_model_add_opcode(m, GC_OP_SELECT_V2, NULL, 1);
    int32_t in1[] = {x, shp5}, o1[] = {y5};
    int32_t op = gc_sg_insert_op(m, sg, -1, oc_r, 2, in1, 1, o1);
    gc_opt_set_vec(m, &m->subgraphs[sg].ops[op].opt, GC_O_ReshapeOptions_new_shape, s5, 5);
    int32_t in2[] = {y5, shp4}, o2[] = {y4};
    gc_sg_insert_op(m, sg, -1, oc_r, 2, in2, 1, o2);
    int32_t in3[] = {c, y4, z}, o3[] = {out};
    gc_sg_insert_op(m, sg, -1, oc_s, 3, in3, 1, o3);
    int32_t ins[] = {x, c}, outs[] = {out};
    gc_sg_set_io(m, sg, 2, ins, 1, outs);
    return m;
}

GC_TEST(model_builder_roundtrip) {
    gc_model *m = build_hostile();
    char err[512];
    CHECK_MSG(gc_model_validate(m, err, sizeof err) == GC_OK, "%s", err);
    uint8_t *bytes; size_t n;
    CHECK(gc_model_write_mem(m, NULL, &bytes, &n, err, sizeof err) == GC_OK);
    gc_model *r = gc_model_read_mem(bytes, n, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    if (r) {
        CHECK_MSG(gc_model_equal(m, r, err, sizeof err), "%s", err);
        CHECK_EQ_INT(r->subgraphs[0].n_ops, 3);
        CHECK_EQ_INT(r->subgraphs[0].tensors[3].rank, 5);
        CHECK(!strcmp(gc_op_name(r, &r->subgraphs[0].ops[2]), "SELECT_V2"));
        uint32_t nv;
        const int32_t *ns = gc_opt_vec(&r->subgraphs[0].ops[0].opt, GC_O_ReshapeOptions_new_shape, &nv);
        CHECK_EQ_INT(nv, 5);
        if (ns && nv == 5) CHECK_EQ_INT(ns[3], 2);
        gc_model_free(r);
    }
    free(bytes);
    gc_model_free(m);
}

GC_TEST(model_external_data_roundtrip) {
    gc_model *m = build_hostile();
    char err[512];
    gc_write_opts wo = { .force_external = true };
    uint8_t *bytes; size_t n;
    CHECK(gc_model_write_mem(m, &wo, &bytes, &n, err, sizeof err) == GC_OK);
    gc_model *r = gc_model_read_mem(bytes, n, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    if (r) {
        CHECK_MSG(gc_model_equal(m, r, err, sizeof err), "%s", err);
        int ext = 0;
        for (int32_t i = 0; i < r->n_buffers; i++) ext += r->buffers[i].external;
        CHECK_EQ_INT(ext, 3);
        gc_model_free(r);
    }
    free(bytes);
    gc_model_free(m);
}

GC_TEST(model_edit_add_output_and_truncate) {
    gc_model *m = build_hostile();
    char err[512];
    int32_t y5 = gc_find_tensor(&m->subgraphs[0], "y5");
    CHECK(gc_model_add_outputs(m, 0, 1, &y5) == GC_OK);
    CHECK_EQ_INT(m->subgraphs[0].n_outputs, 2);
    CHECK(gc_model_truncate_at(m, 0, 1, &y5) == GC_OK);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(m->subgraphs[0].n_outputs, 1);
    CHECK(!strcmp(m->subgraphs[0].tensors[m->subgraphs[0].outputs[0]].name, "y5"));
    CHECK_MSG(gc_model_validate(m, err, sizeof err) == GC_OK, "%s", err);
    /* unused buffers were dropped: sentinel + shape5 */
    CHECK_EQ_INT(m->n_buffers, 2);
    gc_model_free(m);
}

GC_TEST(model_topo_order) {
    gc_model *m = build_hostile();
    gc_subgraph *sg = &m->subgraphs[0];
    gc_op tmp = sg->ops[0]; sg->ops[0] = sg->ops[2]; sg->ops[2] = tmp;  /* scramble */
    CHECK(gc_sg_toposort(m, 0) == GC_OK);
    CHECK(!strcmp(gc_op_name(m, &sg->ops[2]), "SELECT_V2"));
    CHECK_EQ_INT(gc_sg_producer(m, 0, gc_find_tensor(sg, "y4")), 1);
    int32_t cons[4];
    CHECK_EQ_INT(gc_sg_consumers(m, 0, gc_find_tensor(sg, "y5"), cons, 4), 1);
    /* a cycle is reported, not looped on */
    sg->ops[0].inputs[0] = gc_find_tensor(sg, "y4");
    int32_t order[3];
    CHECK(gc_sg_topo_order(m, 0, order) == GC_ERR_FORMAT);
    gc_model_free(m);
}

/* read → write → read on every corpus model; the second write is byte-identical. */
GC_TEST(model_corpus_roundtrip) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("../shared/corpus not found (set GPUCLEAN_CORPUS)");
    DIR *d = opendir(dir);
    if (!d) SKIP("cannot open %s", dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 7, ".tflite")) continue;
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gc_model *a = gc_model_read_file(path, err, sizeof err);
        CHECK_MSG(a != NULL, "%s: %s", e->d_name, err);
        if (!a) continue;
        for (int ext = 0; ext < 2; ext++) {
            gc_write_opts wo = { .force_external = ext };
            uint8_t *b1 = NULL, *b2 = NULL; size_t n1 = 0, n2 = 0;
            CHECK(gc_model_write_mem(a, &wo, &b1, &n1, err, sizeof err) == GC_OK);
            gc_model *b = b1 ? gc_model_read_mem(b1, n1, err, sizeof err) : NULL;
            CHECK_MSG(b != NULL, "%s (external=%d): re-read failed: %s", e->d_name, ext, err);
            if (b) {
                CHECK_MSG(gc_model_equal(a, b, err, sizeof err), "%s (external=%d): %s", e->d_name, ext, err);
                CHECK(gc_model_write_mem(b, &wo, &b2, &n2, err, sizeof err) == GC_OK);
                CHECK_MSG(n1 == n2 && b2 && !memcmp(b1, b2, n1), "%s: second write differs", e->d_name);
                gc_model_free(b);
            }
            free(b1); free(b2);
        }
        gc_model_free(a);
        n++;
    }
    closedir(d);
    CHECK(n >= 20);
}

/* Every truncation of a small valid model and many byte mutations must fail cleanly
 * or read as a valid model — never crash (run under ASan/UBSan). */
GC_TEST(model_hostile_truncations_and_mutations) {
    gc_model *m = build_hostile();
    char err[512];
    uint8_t *bytes; size_t n;
    CHECK(gc_model_write_mem(m, NULL, &bytes, &n, err, sizeof err) == GC_OK);
    gc_model_free(m);
    int fails = 0;
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *b = malloc(cut ? cut : 1);
        memcpy(b, bytes, cut);
        gc_model *r = gc_model_read_mem(b, cut, err, sizeof err);
        if (!r) { fails++; CHECK(err[0] != 0); }
        gc_model_free(r);
        free(b);
    }
    CHECK(fails > (int)n / 2);
    uint32_t seed = 12345;
    uint8_t *b = malloc(n);
    for (int it = 0; it < 20000; it++) {
        memcpy(b, bytes, n);
        for (int k = 0; k < 1 + it % 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1664525u + 1013904223u;
            b[at] = (uint8_t)(seed >> 24);
        }
        gc_model *r = gc_model_read_mem(b, n, err, sizeof err);
        if (r) {
            uint8_t *w; size_t wn;
            if (gc_model_write_mem(r, NULL, &w, &wn, err, sizeof err) == GC_OK) {
                gc_model *r2 = gc_model_read_mem(w, wn, err, sizeof err);
                CHECK_MSG(r2 != NULL, "re-read of a written mutant failed: %s", err);
                if (r2) CHECK_MSG(gc_model_equal(r, r2, err, sizeof err), "mutant round trip: %s", err);
                gc_model_free(r2);
                free(w);
            }
            gc_model_free(r);
        }
    }
    free(b);
    free(bytes);
}

GC_TEST(model_bad_identifier_message) {
    uint8_t junk[64] = {16, 0, 0, 0, 'N', 'O', 'P', 'E'};
    char err[512];
    gc_model *r = gc_model_read_mem(junk, sizeof junk, err, sizeof err);
    CHECK(r == NULL);
    CHECK_MSG(strstr(err, "not a TFLite model") != NULL, "%s", err);
    r = gc_model_read_mem(junk, 4, err, sizeof err);
    CHECK(r == NULL);
    CHECK_MSG(strstr(err, "too small") != NULL, "%s", err);
}

/* Options tables of a type this build does not know are kept verbatim (vtable and
 * inline scalars) and survive write → read (a fuzzer finding: the soffset inside the
 * kept bytes must not take part in the comparison). */
GC_TEST(model_unknown_options_kept_verbatim) {
    gc_model *m = build_hostile();
    static const uint8_t raw[] = { 6, 0, 8, 0, 4, 0,          /* vtable: 1 field at +4 */
                                   0, 0, 0, 0, 42, 0, 0, 0 }; /* soffset, int32 42 */
    gc_op *op = &m->subgraphs[0].ops[2];
    memset(&op->opt, 0, sizeof op->opt);
    op->opt.type = 250; op->opt.raw = raw; op->opt.raw_len = sizeof raw; op->opt.raw_vt_len = 6;
    op->opt.raw_mod8 = 4;
    char err[512]; uint8_t *bytes; size_t n;
    CHECK(gc_model_write_mem(m, NULL, &bytes, &n, err, sizeof err) == GC_OK);
    gc_model *r = gc_model_read_mem(bytes, n, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    if (r) {
        const gc_options *o = &r->subgraphs[0].ops[2].opt;
        CHECK_EQ_INT(o->type, 250);
        CHECK(o->raw != NULL && o->raw_len == sizeof raw);
        if (o->raw) CHECK_EQ_INT(o->raw[o->raw_vt_len + 4], 42);
        CHECK_MSG(gc_model_equal(m, r, err, sizeof err), "%s", err);
        gc_model_free(r);
    }
    free(bytes);
    gc_model_free(m);
}

/* Build the hostile model, break one thing, write it (the writer does not judge), and
 * read it back: the reader must refuse with a message naming the problem. */
typedef void (*breaker)(gc_model *m);
static void expect_refused(breaker brk, const char *want, bool external, int cut_tail) {
    gc_model *m = build_hostile();
    brk(m);
    char err[512] = ""; uint8_t *bytes; size_t n;
    gc_write_opts wo = { .force_external = external };
    CHECK(gc_model_write_mem(m, &wo, &bytes, &n, err, sizeof err) == GC_OK);
    gc_model_free(m);
    gc_model *r = gc_model_read_mem(bytes, n - (size_t)cut_tail, err, sizeof err);
    CHECK_MSG(r == NULL, "a model with '%s' was accepted", want);
    CHECK_MSG(strstr(err, want) != NULL, "want '%s' in: %s", want, err);
    gc_model_free(r);
    free(bytes);
}
static void neg_dim(gc_model *m) { m->subgraphs[0].tensors[0].shape[2] = -3; }
static void huge_dims(gc_model *m) { for (int d = 0; d < 4; d++) m->subgraphs[0].tensors[0].shape[d] = 65536; }
static void bad_buffer(gc_model *m) { m->subgraphs[0].tensors[0].buffer = 99; }
static void bad_opcode(gc_model *m) { m->subgraphs[0].ops[1].opcode_index = 7; }
static void bad_input(gc_model *m) { m->subgraphs[0].ops[2].inputs[1] = 1000; }
static void bad_sg_output(gc_model *m) { m->subgraphs[0].outputs[0] = -5; }
static void short_buffer(gc_model *m) { m->subgraphs[0].tensors[6].shape[3] = 400; }
static void nothing(gc_model *m) { (void)m; }
static void deep_rank(gc_model *m) {
    static int32_t dims[40];
    for (int i = 0; i < 40; i++) dims[i] = 1;
    m->subgraphs[0].tensors[0].shape = dims; m->subgraphs[0].tensors[0].rank = 40;
}

GC_TEST(model_hostile_named_errors) {
    expect_refused(neg_dim, "negative dimension -3", false, 0);
    expect_refused(huge_dims, "element count overflows", false, 0);
    expect_refused(bad_buffer, "buffer index 99 out of range", false, 0);
    expect_refused(bad_opcode, "opcode index 7 out of range", false, 0);
    expect_refused(bad_input, "names tensor 1000, out of range", false, 0);
    expect_refused(bad_sg_output, "names tensor -5, out of range", false, 0);
    expect_refused(short_buffer, "but its buffer", false, 0);
    expect_refused(deep_rank, "rank 40 is beyond the limit", false, 0);
    /* weights stored after the flatbuffer, file cut short: data outside the file */
    expect_refused(nothing, "lies outside the file", true, 64);
}

/* A verbatim options table that sat at an odd file offset (only a hostile file does
 * that) must not stop the writer from placing it (it once looped forever). */
GC_TEST(model_unknown_options_odd_offset) {
    gc_model *m = build_hostile();
    static const uint8_t raw[] = { 6, 0, 8, 0, 4, 0, 0, 0, 0, 0, 7, 0, 0, 0 };
    gc_op *op = &m->subgraphs[0].ops[2];
    memset(&op->opt, 0, sizeof op->opt);
    op->opt.type = 251; op->opt.raw = raw; op->opt.raw_len = sizeof raw; op->opt.raw_vt_len = 6;
    op->opt.raw_mod8 = 5;
    char err[512]; uint8_t *bytes; size_t n;
    CHECK(gc_model_write_mem(m, NULL, &bytes, &n, err, sizeof err) == GC_OK);
    gc_model *r = gc_model_read_mem(bytes, n, err, sizeof err);
    CHECK_MSG(r != NULL, "%s", err);
    if (r) { CHECK_MSG(gc_model_equal(m, r, err, sizeof err), "%s", err); gc_model_free(r); }
    free(bytes);
    gc_model_free(m);
}
