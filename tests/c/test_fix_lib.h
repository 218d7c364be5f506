/* test_fix_lib.h — building small models and running the fixer on them, for every fix
 * test file. Every helper is static; include this once per test file. */
#ifndef GC_TEST_FIX_LIB_H
#define GC_TEST_FIX_LIB_H
#include "test.h"
#include "fix/fix.h"
#include "interp/interp.h"

#include <stdint.h>

#define FX_UNUSED __attribute__((unused))

typedef struct { gc_model *m; int32_t sg; } mb;

static FX_UNUSED mb mb_new(void) {
    mb b;
    b.m = gc_model_new();
    b.sg = gc_model_add_subgraph(b.m, "main");
    return b;
}
static FX_UNUSED int32_t T(mb *b, const char *name, int type, int rank, const int32_t *shape) {
    return gc_sg_add_tensor(b->m, b->sg, name, type, rank, shape, 0);
}
static FX_UNUSED int32_t C(mb *b, const char *name, int type, int rank, const int32_t *shape, const void *data,
                           size_t n) {
    return gc_sg_add_tensor(b->m, b->sg, name, type, rank, shape, (uint32_t)gc_model_add_buffer(b->m, data, n));
}
static FX_UNUSED int32_t CI(mb *b, const char *name, int n, const int32_t *v) {
    int32_t s[1] = { n };
    return C(b, name, GC_T_INT32, 1, s, v, sizeof(int32_t) * (size_t)n);
}
static FX_UNUSED int32_t OP(mb *b, int32_t code, int32_t version, int n_in, const int32_t *in, int n_out,
                            const int32_t *out) {
    return gc_sg_insert_op(b->m, b->sg, -1, gc_model_add_opcode(b->m, code, NULL, version), n_in, in, n_out, out);
}
static FX_UNUSED gc_options *OPT(mb *b, int32_t k) { return &b->m->subgraphs[b->sg].ops[k].opt; }
static FX_UNUSED void IO(mb *b, int n_in, const int32_t *in, int n_out, const int32_t *out) {
    gc_sg_set_io(b->m, b->sg, n_in, in, n_out, out);
}
#define V(...) ((const int32_t[]){ __VA_ARGS__ })
#define NV(...) (int)(sizeof((int32_t[]){ __VA_ARGS__ }) / sizeof(int32_t)), ((const int32_t[]){ __VA_ARGS__ })

/* ---- looking at models ------------------------------------------------------------- */

static FX_UNUSED int count_ops(const gc_model *m, int32_t code) {
    int n = 0;
    for (int32_t s = 0; s < m->n_subgraphs; s++)
        for (int32_t o = 0; o < m->subgraphs[s].n_ops; o++)
            if (gc_op_builtin(m, &m->subgraphs[s].ops[o]) == code) n++;
    return n;
}

/* the first op with this code in subgraph 0, or NULL */
static FX_UNUSED const gc_op *first_op(const gc_model *m, int32_t code) {
    const gc_subgraph *sg = &m->subgraphs[0];
    for (int32_t o = 0; o < sg->n_ops; o++) if (gc_op_builtin(m, &sg->ops[o]) == code) return &sg->ops[o];
    return NULL;
}

/* the version of the first op with this code; -1 when there is none */
static FX_UNUSED int op_version(const gc_model *m, int32_t code) {
    const gc_op *op = first_op(m, code);
    return op ? gc_op_code(m, op)->version : -1;
}

static FX_UNUSED gc_model *clone(const gc_model *m, uint8_t **keep) {
    char err[256];
    size_t n;
    *keep = NULL;
    if (gc_model_write_mem(m, NULL, keep, &n, err, sizeof err) != GC_OK) return NULL;
    return gc_model_read_mem(*keep, n, err, sizeof err);
}

static FX_UNUSED int32_t refused(const gc_model *m, gc_target t) {
    char err[256];
    gc_check_result *r = gc_check(m, t, err, sizeof err);
    int32_t n = 0;
    for (int32_t i = 0; r && i < r->n_nodes; i++) n += r->nodes[i].state == GC_NODE_REJECTED;
    gc_check_free(r);
    return n;
}

/* ---- running the fixer ---------------------------------------------------------------- */

typedef struct {
    gc_fix_result *r;
    gc_fix_verify_result v;
    int32_t refused_before, refused_after;
} run;

/* Fix m in place; verify the written-and-re-read result against a copy of the
 * original. expect_verified: the interpreter must run it and agree within the stated
 * exactness (bit-exact: every byte). */
static FX_UNUSED void fix_run(gc_model *m, const gc_fix_opts *o, run *out, bool expect_verified) {
    memset(out, 0, sizeof *out);
    char err[512];
    CHECK_MSG(gc_model_validate(m, err, sizeof err) == GC_OK, "test model invalid: %s", err);
    uint8_t *ob = NULL;
    gc_model *orig = clone(m, &ob);
    CHECK(orig != NULL);
    gc_fix_opts opts = o ? *o : gc_fix_opts_default();
    out->refused_before = refused(m, opts.target);
    out->r = gc_fix_apply(m, &opts, err, sizeof err);
    CHECK_MSG(out->r != NULL, "%s", err);
    CHECK_MSG(gc_model_validate(m, err, sizeof err) == GC_OK, "fixed model invalid: %s", err);
    out->refused_after = refused(m, opts.target);
    uint8_t *fb = NULL;
    gc_model *fixed = clone(m, &fb);
    CHECK(fixed != NULL);
    if (orig && fixed && out->r) {
        gc_fix_verify(orig, fixed, out->r->exactness, out->r->rtol, out->r->atol, 7, &out->v);
        if (expect_verified) {
            CHECK_MSG(out->v.ran && out->v.pass, "verify: %s", out->v.why);
            for (int32_t i = 0; i < out->v.n_rows; i++) {
                const gc_fix_vrow *w = &out->v.rows[i];
                CHECK_MSG(w->ok, "%s output '%s': max |diff| %g", w->inputs, w->output, w->max_abs);
                if (out->r->exactness == GC_FIX_BIT_EXACT) CHECK(w->bytes_equal && w->max_abs == 0);
                else if (out->r->exactness == GC_FIX_EXACT_FINITE) CHECK(w->max_abs == 0);
            }
            CHECK(out->v.n_rows >= 2);   /* sin pattern and random inputs */
        }
    }
    gc_model_free(fixed); free(fb);
    gc_model_free(orig); free(ob);
}

static FX_UNUSED void run_free(run *r) {
    gc_fix_result_free(r->r);
    gc_fix_verify_free(&r->v);
}

static FX_UNUSED int sites(const gc_fix_result *r, const char *pass) {
    int n = 0;
    for (int32_t i = 0; r && i < r->n_changes; i++) n += !strcmp(r->changes[i].pass->id, pass);
    return n;
}

static FX_UNUSED const char *detail_of(const gc_fix_result *r, const char *pass) {
    for (int32_t i = 0; r && i < r->n_changes; i++) if (!strcmp(r->changes[i].pass->id, pass)) return r->changes[i].detail;
    return "";
}

static FX_UNUSED const char *decline_reason(const gc_fix_result *r, const char *pass) {
    for (int32_t i = 0; r && i < r->n_declines; i++)
        if (!strcmp(r->declines[i].pass->id, pass)) return r->declines[i].reason;
    return NULL;
}

static FX_UNUSED void dump(const gc_fix_result *r) {
    for (int32_t i = 0; r && i < r->n_changes; i++)
        fprintf(stderr, "    %s %s '%s': %s\n", r->changes[i].pass->id, r->changes[i].op, r->changes[i].node,
                r->changes[i].detail);
    for (int32_t i = 0; r && i < r->n_declines; i++)
        fprintf(stderr, "    declined %s %s '%s': %s\n", r->declines[i].pass->id, r->declines[i].op,
                r->declines[i].node, r->declines[i].reason);
}

#endif
