/* test_custom_harness.h — models with CUSTOM ops for kernel tests: a FlexBuffer map
 * encoder for custom options (every width 8 bytes: ints, floats, int vectors, strings),
 * a builder for a few ops over shared tensors (cm_build) and a runner (cm_run). Used by
 * test_kernels_mediapipe.c and test_kernels_detection.c. */
#ifndef GC_TEST_CUSTOM_HARNESS_H
#define GC_TEST_CUSTOM_HARNESS_H

#include "test_kernels_harness.h"

/* ---- a FlexBuffer map encoder (every width 8 bytes) ------------------------------------ */

typedef struct { const char *key; int kind; int64_t i; double f; const int64_t *v; int nv; const char *s; } fb_ent;
enum { FBE_INT, FBE_FLOAT, FBE_IVEC, FBE_STR };
#define FB_I(k, x) { .key = (k), .kind = FBE_INT, .i = (x) }
#define FB_F(k, x) { .key = (k), .kind = FBE_FLOAT, .f = (x) }
#define FB_V(k, p, n) { .key = (k), .kind = FBE_IVEC, .v = (p), .nv = (n) }
#define FB_S(k, str) { .key = (k), .kind = FBE_STR, .s = (str) }

typedef struct { uint8_t b[2048]; size_t n; } fb_buf;
static inline void fb_u64(fb_buf *o, uint64_t x) { for (int i = 0; i < 8; i++) o->b[o->n++] = (uint8_t)(x >> (8 * i)); }
static inline void fb_align(fb_buf *o) { while (o->n % 8) o->b[o->n++] = 0; }

/* FlexBuffers: keys are NUL-terminated; a map is [keys-vector offset][key width][size]
 * [values][types], its reference pointing at the first value; offsets go backwards. */
static inline size_t fb_map(fb_buf *o, const fb_ent *e, int ne) {
    size_t kpos[16], vpos[16];
    o->n = 0;
    for (int i = 0; i < ne; i++) {
        kpos[i] = o->n;
        size_t l = strlen(e[i].key) + 1;
        memcpy(o->b + o->n, e[i].key, l); o->n += l;
    }
    for (int i = 0; i < ne; i++) {
        vpos[i] = 0;
        fb_align(o);
        if (e[i].kind == FBE_IVEC) {
            fb_u64(o, (uint64_t)e[i].nv);
            vpos[i] = o->n;
            for (int k = 0; k < e[i].nv; k++) fb_u64(o, (uint64_t)e[i].v[k]);
        } else if (e[i].kind == FBE_STR) {
            size_t l = strlen(e[i].s);
            fb_u64(o, l);
            vpos[i] = o->n;
            memcpy(o->b + o->n, e[i].s, l + 1); o->n += l + 1;
        }
    }
    fb_align(o);
    fb_u64(o, (uint64_t)ne);
    size_t kvec = o->n;
    for (int i = 0; i < ne; i++) fb_u64(o, (uint64_t)(o->n - kpos[i]));
    fb_u64(o, (uint64_t)(o->n - kvec));           /* keys vector offset */
    fb_u64(o, 8);                                  /* key width */
    fb_u64(o, (uint64_t)ne);
    size_t map = o->n;
    for (int i = 0; i < ne; i++) {
        if (e[i].kind == FBE_INT) fb_u64(o, (uint64_t)e[i].i);
        else if (e[i].kind == FBE_FLOAT) { uint64_t u; memcpy(&u, &e[i].f, 8); fb_u64(o, u); }
        else fb_u64(o, (uint64_t)(o->n - vpos[i]));
    }
    static const int type[] = { 1, 3, 11, 5 };     /* INT, FLOAT, VECTOR_INT, STRING */
    for (int i = 0; i < ne; i++) o->b[o->n++] = (uint8_t)(type[e[i].kind] << 2 | 3);
    fb_align(o);
    fb_u64(o, (uint64_t)(o->n - map));            /* root: the map */
    o->b[o->n++] = (uint8_t)(9 << 2 | 3);
    o->b[o->n++] = 8;
    return o->n;
}

/* ---- models with custom ops ------------------------------------------------------------- */

typedef struct { const char *name; int version; const uint8_t *opts; size_t n_opts;
                 int in[4], n_in, out[4], n_out; } cop;

/* tensors t[0..nt): those with data are constants; graph inputs: `gin`, outputs: `gout` */
static inline gc_model *cm_build(const kt_tensor *t, int nt, const cop *ops, int nops, const int *gin, int ngin,
                          const int *gout, int ngout) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t idx[16];
    for (int i = 0; i < nt; i++) {
        char name[16]; snprintf(name, sizeof name, "t%d", i);
        uint32_t buf = t[i].data ? (uint32_t)gc_model_add_buffer(m, t[i].data, kt_bytes(&t[i])) : 0;
        idx[i] = gc_sg_add_tensor(m, sg, name, t[i].type, t[i].rank, t[i].shape, buf);
    }
    for (int k = 0; k < nops; k++) {
        int32_t oc = gc_model_add_opcode(m, GC_OP_CUSTOM, ops[k].name, ops[k].version);
        int32_t in[4], out[4];
        for (int i = 0; i < ops[k].n_in; i++) in[i] = idx[ops[k].in[i]];
        for (int i = 0; i < ops[k].n_out; i++) out[i] = idx[ops[k].out[i]];
        gc_sg_insert_op(m, sg, k, oc, ops[k].n_in, in, ops[k].n_out, out);
        gc_op *op = &m->subgraphs[sg].ops[k];
        op->custom_options = ops[k].opts; op->n_custom_options = (uint32_t)ops[k].n_opts;
    }
    int32_t gi[8], go[8];
    for (int i = 0; i < ngin; i++) gi[i] = idx[gin[i]];
    for (int i = 0; i < ngout; i++) go[i] = idx[gout[i]];
    gc_sg_set_io(m, sg, ngin, gi, ngout, go);
    return m;
}

/* run with inputs feeds[k] (graph input order); output k copied to outs[k] (sizes checked) */
static inline bool cm_run(gc_model *m, gc_precision p, const void *const *feeds, int nfeed, void *const *outs,
                   const size_t *sizes, int nout, char *err, size_t errlen) {
    gc_interp_opts o = { .precision = p, .signature = -1 };
    err[0] = 0;
    gc_interp *it = gc_interp_new(m, &o, err, errlen);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (it && !ok) snprintf(err, errlen, "prepare: %s", gc_interp_errmsg(it));
    for (int k = 0; ok && k < nfeed; k++) { gc_tview v = gc_interp_input(it, k); memcpy(v.data, feeds[k], v.nbytes); }
    if (ok && gc_interp_invoke(it) != GC_OK) { snprintf(err, errlen, "invoke: %s", gc_interp_errmsg(it)); ok = false; }
    for (int k = 0; ok && k < nout; k++) {
        gc_tview v = gc_interp_output(it, k);
        if (v.nbytes != sizes[k]) { snprintf(err, errlen, "output %d: %zu bytes, expected %zu", k, v.nbytes, sizes[k]); ok = false; }
        else memcpy(outs[k], v.data, sizes[k]);
    }
    gc_interp_free(it);
    return ok;
}

static inline void le32(uint8_t *p, const int32_t *v, int n) {
    for (int i = 0; i < n; i++)
        for (int b = 0; b < 4; b++) p[4 * i + b] = (uint8_t)((uint32_t)v[i] >> (8 * b));
}

#endif
