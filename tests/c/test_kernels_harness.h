/* test_kernels_harness.h — one-op models for kernel tests (the harness of test_kernels.c,
 * extended with per-axis quantization, a precision, and the error message of a failed
 * run), for the test_kernels_*.c files that include it.
 *
 *   kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(3), ids), KT_C(GC_T_FLOAT32, 2, KT_S(4, 2), table) };
 *   kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(3, 2)) };
 *   kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
 *   kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, err, sizeof err);
 *
 * A tensor with `data` is a constant; one without is a run-time input fed from `feed`
 * (in the order of ins[]); type < 0 marks an absent optional input ({ .type = -1 }). */
#ifndef GC_TEST_KERNELS_HARNESS_H
#define GC_TEST_KERNELS_HARNESS_H

#include "test.h"
#include "interp/interp.h"
#include "model/model.h"

#include <stdint.h>
#include <string.h>

typedef struct {
    int type, rank;
    int32_t shape[6];
    const void *data;           /* constant data, or NULL */
    const void *feed;           /* run-time input data */
    float scale; int32_t zp;    /* per-tensor quantization when scale > 0 */
    int n_scales;               /* per-axis quantization when > 0: scales/zps along qdim */
    const float *scales; const int64_t *zps; int qdim;
} kt_tensor;

typedef struct { gc_model *m; gc_op *op; int32_t t[16]; } kt_model;

#define KT_S(...) { __VA_ARGS__ }
/* run-time input fed from p; constant holding p; output; per-tensor quantized constant
 * or output; per-axis quantized constant (n scales and zero points, zps may be NULL) */
#define KT_IN(ty, r, sh, p) { .type = (ty), .rank = (r), .shape = sh, .feed = (p) }
#define KT_C(ty, r, sh, p) { .type = (ty), .rank = (r), .shape = sh, .data = (p) }
#define KT_OUT(ty, r, sh) { .type = (ty), .rank = (r), .shape = sh }
#define KT_Q(ty, r, sh, p, s, z) { .type = (ty), .rank = (r), .shape = sh, .data = (p), .scale = (s), .zp = (z) }
#define KT_QOUT(ty, r, sh, s, z) { .type = (ty), .rank = (r), .shape = sh, .scale = (s), .zp = (z) }
#define KT_QA(ty, r, sh, p, n, s, z, qd) { .type = (ty), .rank = (r), .shape = sh, .data = (p), \
    .n_scales = (n), .scales = (s), .zps = (z), .qdim = (qd) }

static inline size_t kt_bytes(const kt_tensor *t) {
    uint64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= (uint64_t)t->shape[i];
    return (size_t)gc_type_bytes(t->type, n);
}

static inline void kt_quant(gc_model *m, gc_tensor *t, const kt_tensor *d) {
    int ns = d->n_scales > 0 ? d->n_scales : d->scale > 0 ? 1 : 0;
    if (!ns) return;
    gc_quant *q = gc_arena_alloc(&m->arena, sizeof *q);
    q->n_scale = ns; q->n_zero_point = ns;
    q->scale = gc_arena_alloc(&m->arena, (size_t)ns * sizeof(float));
    q->zero_point = gc_arena_alloc(&m->arena, (size_t)ns * sizeof(int64_t));
    for (int i = 0; i < ns; i++) {
        q->scale[i] = d->n_scales > 0 ? d->scales[i] : d->scale;
        q->zero_point[i] = d->n_scales > 0 ? (d->zps ? d->zps[i] : 0) : d->zp;
    }
    q->quantized_dimension = d->qdim;
    t->quant = q;
}

static inline kt_model kt_build(int32_t code, int opt_type, const kt_tensor *ins, int n_in,
                                const kt_tensor *outs, int n_out) {
    kt_model r;
    memset(&r, 0, sizeof r);
    r.m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(r.m, "main");
    int32_t in_idx[8], out_idx[8], graph_in[8], n_graph_in = 0;
    for (int i = 0; i < n_in + n_out; i++) {
        const kt_tensor *t = i < n_in ? &ins[i] : &outs[i - n_in];
        char name[16]; snprintf(name, sizeof name, "t%d", i);
        if (t->type < 0) { in_idx[i] = -1; continue; }
        uint32_t buf = t->data ? (uint32_t)gc_model_add_buffer(r.m, t->data, kt_bytes(t)) : 0;
        int32_t k = gc_sg_add_tensor(r.m, sg, name, t->type, t->rank, t->shape, buf);
        kt_quant(r.m, &r.m->subgraphs[sg].tensors[k], t);
        r.t[i] = k;
        if (i < n_in) { in_idx[i] = k; if (!t->data) graph_in[n_graph_in++] = k; }
        else out_idx[i - n_in] = k;
    }
    int32_t oc = gc_model_add_opcode(r.m, code, NULL, 1);
    gc_sg_insert_op(r.m, sg, 0, oc, n_in, in_idx, n_out, out_idx);
    r.op = &r.m->subgraphs[sg].ops[0];
    if (opt_type) gc_opt_init(r.m, &r.op->opt, opt_type);
    gc_sg_set_io(r.m, sg, n_graph_in, graph_in, n_out, out_idx);
    return r;
}

/* Geometry and activation of a CONV_2D (dw false) or DEPTHWISE_CONV_2D (dw true; mult its
 * depth multiplier) built by kt_build: SAME when same, strides sh x sw, dilations dh x dwl. */
static inline void kt_conv_opts(kt_model *r, bool dw, bool same, int sh, int sw, int dh, int dwl, int mult, int act) {
    gc_options *o = &r->op->opt;
    if (dw) {
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_padding, same ? 0 : 1);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_stride_h, sh);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_stride_w, sw);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_dilation_h_factor, dh);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_dilation_w_factor, dwl);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_depth_multiplier, mult);
        gc_opt_set_int(r->m, o, GC_O_DepthwiseConv2DOptions_fused_activation_function, act);
    } else {
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_padding, same ? 0 : 1);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_stride_h, sh);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_stride_w, sw);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_dilation_h_factor, dh);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_dilation_w_factor, dwl);
        gc_opt_set_int(r->m, o, GC_O_Conv2DOptions_fused_activation_function, act);
    }
}

/* Prepare and invoke at precision p; copy output k (nbytes checked) into `out`. On
 * failure returns false with the interpreter's message in err (when err != NULL; else
 * the message goes to stderr). shape_out / rank_out: the output's shape when non-NULL. */
static inline bool kt_run(kt_model *r, gc_precision p, const kt_tensor *ins, int n_in, int k, void *out,
                          size_t nbytes, char *err, size_t errlen, int32_t *shape_out, int *rank_out) {
    char buf[512];
    if (!err) { err = buf; errlen = sizeof buf; }
    err[0] = 0;
    gc_interp_opts o = { .precision = p, .signature = -1 };
    gc_interp *it = gc_interp_new(r->m, &o, err, errlen);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (it && !ok) snprintf(err, errlen, "prepare: %s", gc_interp_errmsg(it));
    int g = 0;
    for (int i = 0; ok && i < n_in; i++) {
        if (ins[i].type < 0 || ins[i].data) continue;
        gc_tview v = gc_interp_input(it, g++);
        memcpy(v.data, ins[i].feed, v.nbytes);
    }
    if (ok && gc_interp_invoke(it) != GC_OK) { snprintf(err, errlen, "invoke: %s", gc_interp_errmsg(it)); ok = false; }
    if (ok) {
        gc_tview v = gc_interp_output(it, k);
        if (v.nbytes != nbytes) { snprintf(err, errlen, "output has %zu bytes, expected %zu", v.nbytes, nbytes); ok = false; }
        else memcpy(out, v.data, nbytes);
        if (shape_out) for (int d = 0; d < v.rank; d++) shape_out[d] = v.shape[d];
        if (rank_out) *rank_out = v.rank;
    }
    if (!ok && err == buf) fprintf(stderr, "  %s\n", buf);
    gc_interp_free(it);
    return ok;
}

/* Exact (tol 0) or near comparison of float arrays, one failure line per element. */
static inline void kt_check_f(const float *got, const float *want, int n, float tol, const char *what) {
    for (int i = 0; i < n; i++)
        CHECK_MSG(fabsf(got[i] - want[i]) <= tol, "%s[%d]: %.7g vs %.7g", what, i, (double)got[i], (double)want[i]);
}

#endif
