/* fix_util.c — helpers the passes share (fix_int.h): reading a site (producers, uses,
 * constants), making tensors, constants and ops, and removing what a rewrite replaced.
 * Nothing here decides whether a rewrite is right; the passes and the driver do.
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fx_decline(gc_fix_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return 0;
}

int fx_pass_over(gc_fix_ctx *c) {
    c->silent = true;
    c->why[0] = 0;
    return 0;
}

void fx_note(gc_fix_ctx *c, const char *fmt, ...) {
    size_t n = strlen(c->detail);
    if (n + 1 >= sizeof c->detail) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail + n, sizeof c->detail - n, fmt, ap);
    va_end(ap);
}

int32_t fx_code(gc_fix_ctx *c, int32_t op) { return gc_op_builtin(c->m, fx_op(c, op)); }

int32_t fx_in(gc_fix_ctx *c, int32_t op, int k) {
    const gc_op *o = fx_op(c, op);
    return k >= 0 && k < o->n_inputs ? o->inputs[k] : -1;
}

int32_t fx_out(gc_fix_ctx *c, int32_t op, int k) {
    const gc_op *o = fx_op(c, op);
    return k >= 0 && k < o->n_outputs ? o->outputs[k] : -1;
}

const char *fx_name(gc_fix_ctx *c, int32_t op) {
    int32_t t = fx_out(c, op, 0);
    return t >= 0 ? fx_t(c, t)->name : "";
}

bool fx_is_const(gc_fix_ctx *c, int32_t t) {
    if (t < 0) return false;
    const gc_tensor *x = fx_t(c, t);
    return !x->is_variable && gc_tensor_is_const(c->m, x);
}

bool fx_is_static(gc_fix_ctx *c, int32_t t) {
    const gc_tensor *x = fx_t(c, t);
    for (int32_t i = 0; i < x->n_shape_signature; i++)
        if (x->shape_signature[i] < 0) return false;
    return true;
}

int64_t fx_numel(const gc_tensor *t) {
    uint64_t n = gc_tensor_numel(t);
    return n > (uint64_t)INT64_MAX / 2 ? -1 : (int64_t)n;
}

const void *fx_data(gc_fix_ctx *c, int32_t t, uint64_t *nbytes) {
    if (!fx_is_const(c, t)) return NULL;
    const gc_buffer *b = gc_tensor_buffer(c->m, fx_t(c, t));
    if (!b || !b->data) return NULL;
    if (nbytes) *nbytes = b->size;
    return b->data;
}

int fx_const_ints(gc_fix_ctx *c, int32_t t, int64_t *v, int cap) {
    uint64_t nb;
    const uint8_t *p = fx_data(c, t, &nb);
    if (!p) return -1;
    const gc_tensor *x = fx_t(c, t);
    int64_t n = fx_numel(x);
    if (n < 0 || n > cap) return -1;
    if (x->type == GC_T_INT32) {
        if (nb < (uint64_t)n * 4) return -1;
        for (int64_t i = 0; i < n; i++) { int32_t e; memcpy(&e, p + 4 * i, 4); v[i] = e; }
    } else if (x->type == GC_T_INT64) {
        if (nb < (uint64_t)n * 8) return -1;
        for (int64_t i = 0; i < n; i++) memcpy(&v[i], p + 8 * i, 8);
    } else return -1;
    return (int)n;
}

int fx_const_indices(gc_fix_ctx *c, int32_t t, int64_t n, int32_t dim, int32_t **out) {
    *out = NULL;
    int64_t *v = malloc(sizeof(int64_t) * (size_t)n);
    int32_t *w = malloc(sizeof(int32_t) * (size_t)n);
    if (!v || !w) { free(v); free(w); return -1; }
    if (fx_const_ints(c, t, v, (int)n) != n) { free(v); free(w); return fx_decline(c, "indices are not INT32/INT64"); }
    for (int64_t i = 0; i < n; i++) {
        if (v[i] < 0 || v[i] >= dim) {
            long long bad = (long long)v[i];
            free(v); free(w);
            return fx_decline(c, "index %lld is outside [0, %d)", bad, dim);
        }
        w[i] = (int32_t)v[i];
    }
    free(v);
    *out = w;
    return 1;
}

static bool quant_empty(const gc_quant *q) {
    return !q || (q->n_scale == 0 && q->n_zero_point == 0 && q->details_type == 0);
}

bool fx_same_quant(const gc_quant *x, const gc_quant *y) {
    if (quant_empty(x) && quant_empty(y)) return true;
    if (quant_empty(x) || quant_empty(y)) return false;
    if (x == y) return true;
    if (x->n_scale != y->n_scale || x->n_zero_point != y->n_zero_point || x->details_type || y->details_type)
        return false;
    if (x->n_scale > 1 && x->quantized_dimension != y->quantized_dimension) return false;
    for (int32_t i = 0; i < x->n_scale; i++) if (x->scale[i] != y->scale[i]) return false;
    for (int32_t i = 0; i < x->n_zero_point; i++) if (x->zero_point[i] != y->zero_point[i]) return false;
    return true;
}

bool fx_plain_type(int type) {
    switch (type) {
    case GC_T_FLOAT32: case GC_T_FLOAT16: case GC_T_INT32: case GC_T_UINT8: case GC_T_INT64:
    case GC_T_BOOL: case GC_T_INT16: case GC_T_INT8: case GC_T_FLOAT64: case GC_T_UINT64:
    case GC_T_UINT32: case GC_T_UINT16: case GC_T_BFLOAT16:
        return true;
    default:
        return false;
    }
}

bool fx_is_graph_output(gc_fix_ctx *c, int32_t t) {
    const gc_subgraph *sg = fx_sg(c);
    for (int32_t k = 0; k < sg->n_outputs; k++) if (sg->outputs[k] == t) return true;
    return false;
}

int32_t fx_uses(gc_fix_ctx *c, int32_t t) {
    int32_t n = gc_sg_consumers(c->m, c->sg, t, NULL, 0);
    return n + (fx_is_graph_output(c, t) ? 1 : 0);
}

int32_t fx_producer(gc_fix_ctx *c, int32_t t) { return t < 0 ? -1 : gc_sg_producer(c->m, c->sg, t); }
int32_t fx_find_op_writing(gc_fix_ctx *c, int32_t t) { return fx_producer(c, t); }

bool fx_info(gc_fix_ctx *c, int32_t t, gc_fix_tinfo *i) {
    memset(i, 0, sizeof *i);
    if (t < 0 || t >= fx_sg(c)->n_tensors) return false;
    const gc_tensor *x = fx_t(c, t);
    if (x->rank > GC_FIX_MAXR) return false;
    i->index = t; i->type = x->type; i->rank = x->rank;
    for (int d = 0; d < x->rank; d++) i->shape[d] = x->shape[d];
    i->quant = x->quant; i->name = x->name;
    i->is_const = fx_is_const(c, t); i->is_static = fx_is_static(c, t);
    return true;
}

int32_t fx_new_tensor(gc_fix_ctx *c, const char *base, const char *what, int type, int rank,
                      const int32_t *shape, const gc_quant *q) {
    char name[600];
    snprintf(name, sizeof name, "%s/gc_fix/%s", base && base[0] ? base : "t", what);
    int32_t t = gc_sg_add_tensor(c->m, c->sg, name, type, rank, shape, 0);
    if (t < 0) { c->oom = true; return -1; }
    fx_t(c, t)->quant = (gc_quant *)q;
    return t;
}

int32_t fx_new_const(gc_fix_ctx *c, const char *base, const char *what, int type, int rank,
                     const int32_t *shape, const void *data, uint64_t nbytes, const gc_quant *q) {
    int32_t b = gc_model_add_buffer(c->m, data, nbytes);
    if (b < 0) { c->oom = true; return -1; }
    int32_t t = fx_new_tensor(c, base, what, type, rank, shape, q);
    if (t < 0) return -1;
    fx_t(c, t)->buffer = (uint32_t)b;
    return t;
}

int32_t fx_const_i32(gc_fix_ctx *c, const char *base, const char *what, int n, const int32_t *v) {
    int32_t shape[1] = { n };
    return fx_new_const(c, base, what, GC_T_INT32, 1, shape, v, (uint64_t)n * 4, NULL);
}

int32_t fx_const_f32(gc_fix_ctx *c, const char *base, const char *what, float v, bool rank0) {
    int32_t shape[1] = { 1 };
    return fx_new_const(c, base, what, GC_T_FLOAT32, rank0 ? 0 : 1, shape, &v, 4, NULL);
}

int32_t fx_add_op(gc_fix_ctx *c, int32_t at, int32_t code, int32_t version, int n_in, const int32_t *in,
                  int n_out, const int32_t *out) {
    int32_t oc = gc_model_add_opcode(c->m, code, NULL, version);
    if (oc < 0) { c->oom = true; return -1; }
    int32_t k = gc_sg_insert_op(c->m, c->sg, at, oc, n_in, in, n_out, out);
    if (k < 0) { c->oom = true; return -1; }
    c->added++;
    if (c->n_new < (int)(sizeof c->new_outs / sizeof c->new_outs[0])) c->new_outs[c->n_new++] = n_out > 0 ? out[0] : -1;
    return k;
}

bool fx_make_const(gc_fix_ctx *c, int32_t t, const void *data, uint64_t nbytes) {
    int32_t b = gc_model_add_buffer(c->m, data, nbytes);
    if (b < 0) { c->oom = true; return false; }
    fx_t(c, t)->buffer = (uint32_t)b;
    return true;
}

int32_t fx_add_reshape(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y) {
    const gc_tensor *ty = fx_t(c, y);
    int32_t rank = ty->rank;
    int32_t shape[GC_FIX_MAXR];
    for (int32_t i = 0; i < rank && i < GC_FIX_MAXR; i++) shape[i] = ty->shape[i];
    char base[300];
    snprintf(base, sizeof base, "%s", ty->name);
    /* a scalar target has no shape constant (a zero-length buffer would read as a
     * runtime tensor): RESHAPE with one input and new_shape [] */
    int32_t s = rank > 0 ? fx_const_i32(c, base, "shape", rank, shape) : -1;
    if (rank > 0 && s < 0) return -1;
    int32_t in[2] = { x, s };
    int32_t k = fx_add_op(c, at, GC_OP_RESHAPE, 1, rank > 0 ? 2 : 1, in, 1, &y);
    if (k < 0) return -1;
    gc_opt_set_vec(c->m, &fx_op(c, k)->opt, GC_O_ReshapeOptions_new_shape, shape, (uint32_t)rank);
    return k;
}

int32_t fx_add_transpose(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y, const char *base, int rank,
                         const int32_t *perm) {
    int32_t p = fx_const_i32(c, base, "perm", rank, perm);
    if (p < 0) return -1;
    int32_t in[2] = { x, p };
    return fx_add_op(c, at, GC_OP_TRANSPOSE, fx_version_for(GC_OP_TRANSPOSE, fx_t(c, x)->type, rank), 2, in, 1, &y);
}

int32_t fx_add_strided_slice(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y, const char *base, int rank,
                             const int32_t *begin, const int32_t *end, const int32_t *strides) {
    int32_t b = fx_const_i32(c, base, "begin", rank, begin);
    int32_t e = fx_const_i32(c, base, "end", rank, end);
    int32_t s = fx_const_i32(c, base, "strides", rank, strides);
    if (b < 0 || e < 0 || s < 0) return -1;
    int32_t in[4] = { x, b, e, s };
    return fx_add_op(c, at, GC_OP_STRIDED_SLICE, fx_version_for(GC_OP_STRIDED_SLICE, fx_t(c, x)->type, rank),
                     4, in, 1, &y);
}

int32_t fx_add_slice(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y, const char *base, int rank,
                     const int32_t *begin, const int32_t *size) {
    int32_t b = fx_const_i32(c, base, "begin", rank, begin);
    int32_t s = fx_const_i32(c, base, "size", rank, size);
    if (b < 0 || s < 0) return -1;
    int32_t in[3] = { x, b, s };
    return fx_add_op(c, at, GC_OP_SLICE, fx_version_for(GC_OP_SLICE, fx_t(c, x)->type, rank), 3, in, 1, &y);
}

/* length of the run starting at i (step rows[i+1] - rows[i] > 0, kept while equal) */
static int64_t run_len(const int32_t *rows, int64_t n, int64_t i) {
    if (i + 1 >= n || rows[i + 1] <= rows[i]) return 1;
    int64_t step = (int64_t)rows[i + 1] - rows[i], k = i + 1;
    while (k + 1 < n && (int64_t)rows[k + 1] - rows[k] == step) k++;
    return k - i + 1;
}

int fx_row_runs(const int32_t *rows, int64_t n) {
    int runs = 0;
    for (int64_t i = 0; i < n; i += run_len(rows, n, i)) runs++;
    return runs;
}

int32_t fx_add_row_select(gc_fix_ctx *c, int32_t at, int32_t src, int32_t dst, int axis, const int32_t *rows,
                          int64_t n) {
    gc_fix_tinfo x, y;
    if (!fx_info(c, src, &x) || !fx_info(c, dst, &y)) return -1;
    int runs = fx_row_runs(rows, n);
    if (runs > 64) return -1;
    int32_t parts[64];
    int np = 0;
    for (int64_t i = 0; i < n; ) {
        int64_t len = run_len(rows, n, i);
        int32_t step = len > 1 ? rows[i + 1] - rows[i] : 1;
        int32_t begin[GC_FIX_MAXR], end[GC_FIX_MAXR], strides[GC_FIX_MAXR], shape[GC_FIX_MAXR];
        for (int d = 0; d < x.rank; d++) { begin[d] = 0; end[d] = x.shape[d]; strides[d] = 1; shape[d] = x.shape[d]; }
        begin[axis] = rows[i];
        end[axis] = rows[i] + step * (int32_t)(len - 1) + 1;
        strides[axis] = step;
        shape[axis] = (int32_t)len;
        int32_t part = dst;
        if (runs > 1) {
            char what[32];
            snprintf(what, sizeof what, "rows%d", np);
            part = fx_new_tensor(c, y.name, what, x.type, x.rank, shape, x.quant);
            if (part < 0) return -1;
        }
        /* a bool STRIDED_SLICE needs version 3, which the GPU delegates refuse; a SLICE of
         * bool is version 1 (op_version.cc): runs with step 1 of bool rows are SLICEs */
        if (x.type == GC_T_BOOL && step == 1) {
            if (fx_add_slice(c, at++, src, part, fx_t(c, part)->name, x.rank, begin, shape) < 0) return -1;
        } else if (fx_add_strided_slice(c, at++, src, part, fx_t(c, part)->name, x.rank, begin, end, strides) < 0)
            return -1;
        parts[np++] = part;
        i += len;
    }
    if (runs > 1) {
        int32_t k = fx_add_op(c, at++, GC_OP_CONCATENATION, fx_version_for(GC_OP_CONCATENATION, x.type, x.rank), np,
                              parts, 1, &dst);
        if (k < 0) return -1;
        gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_ConcatenationOptions_axis, axis);
    }
    return at;
}

int32_t fx_replace_input_uses(gc_fix_ctx *c, int32_t from, int32_t to, int32_t except_op) {
    gc_subgraph *sg = fx_sg(c);
    int32_t n = 0;
    for (int32_t o = 0; o < sg->n_ops; o++) {
        if (o == except_op) continue;
        gc_op *op = &sg->ops[o];
        for (int32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] == from) { op->inputs[k] = to; n++; }
    }
    return n;
}

void fx_remove_op(gc_fix_ctx *c, int32_t op) {
    gc_sg_remove_op(c->m, c->sg, op);
    c->removed++;
}

gc_fix_conv_geom fx_conv_geom(gc_fix_ctx *c, int32_t op) {
    const gc_options *o = &fx_op(c, op)->opt;
    gc_fix_conv_geom g;
    if (fx_code(c, op) == GC_OP_DEPTHWISE_CONV_2D) {
        g.padding = gc_opt_int(o, GC_O_DepthwiseConv2DOptions_padding);
        g.stride_w = gc_opt_int(o, GC_O_DepthwiseConv2DOptions_stride_w);
        g.stride_h = gc_opt_int(o, GC_O_DepthwiseConv2DOptions_stride_h);
        g.dilation_w = gc_opt_int(o, GC_O_DepthwiseConv2DOptions_dilation_w_factor);
        g.dilation_h = gc_opt_int(o, GC_O_DepthwiseConv2DOptions_dilation_h_factor);
        g.act = gc_opt_int(o, GC_O_DepthwiseConv2DOptions_fused_activation_function);
    } else {
        g.padding = gc_opt_int(o, GC_O_Conv2DOptions_padding);
        g.stride_w = gc_opt_int(o, GC_O_Conv2DOptions_stride_w);
        g.stride_h = gc_opt_int(o, GC_O_Conv2DOptions_stride_h);
        g.dilation_w = gc_opt_int(o, GC_O_Conv2DOptions_dilation_w_factor);
        g.dilation_h = gc_opt_int(o, GC_O_Conv2DOptions_dilation_h_factor);
        g.act = gc_opt_int(o, GC_O_Conv2DOptions_fused_activation_function);
    }
    return g;
}

void fx_conv_geom_set(gc_fix_ctx *c, int32_t k, const gc_fix_conv_geom *g) {
    gc_options *co = &fx_op(c, k)->opt;
    gc_opt_set_int(c->m, co, GC_O_Conv2DOptions_padding, g->padding);
    gc_opt_set_int(c->m, co, GC_O_Conv2DOptions_stride_w, g->stride_w);
    gc_opt_set_int(c->m, co, GC_O_Conv2DOptions_stride_h, g->stride_h);
    if (g->dilation_w != 1) gc_opt_set_int(c->m, co, GC_O_Conv2DOptions_dilation_w_factor, g->dilation_w);
    if (g->dilation_h != 1) gc_opt_set_int(c->m, co, GC_O_Conv2DOptions_dilation_h_factor, g->dilation_h);
    if (g->act) gc_opt_set_int(c->m, co, GC_O_Conv2DOptions_fused_activation_function, g->act);
}

bool fx_quantized(const gc_quant *q) { return q && (q->n_scale > 0 || q->n_zero_point > 0); }

int fx_conv_operands(gc_fix_ctx *c, int32_t op, gc_fix_tinfo *x, gc_fix_tinfo *w, gc_fix_tinfo *y, gc_fix_tinfo *b,
                     int32_t *bias) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs < 2 || o->n_inputs > 3 || o->n_outputs != 1) return fx_pass_over(c);
    *bias = o->n_inputs > 2 ? o->inputs[2] : -1;
    if (!fx_info(c, o->inputs[0], x) || !fx_info(c, o->inputs[1], w) || !fx_info(c, o->outputs[0], y) ||
        (*bias >= 0 && !fx_info(c, *bias, b)))
        return fx_pass_over(c);
    if (x->rank != 4 || w->rank != 4 || y->rank != 4 || !x->is_static) return fx_pass_over(c);
    return 1;
}

int fx_conv_float_consts(gc_fix_ctx *c, const char *op, const gc_fix_tinfo *x, const gc_fix_tinfo *w,
                         const gc_fix_tinfo *y, const gc_fix_tinfo *b, int32_t bias) {
    if (!w->is_const) return fx_decline(c, "the filter is not a constant");
    if (x->type != GC_T_FLOAT32 || w->type != GC_T_FLOAT32 || y->type != GC_T_FLOAT32 || fx_quantized(x->quant) ||
        fx_quantized(w->quant) || fx_quantized(y->quant))
        return fx_decline(c, "only float32 %s without quantization is rewritten", op);
    if (bias >= 0 && (!b->is_const || b->type != GC_T_FLOAT32 || fx_quantized(b->quant)))
        return fx_decline(c, "the bias is not a float32 constant");
    return 1;
}

void fx_remove_dead(gc_fix_ctx *c, int32_t t) {
    /* a small explicit stack: the chain above a site is short */
    int32_t stack[64];
    int n = 0;
    if (t >= 0) stack[n++] = t;
    while (n > 0) {
        int32_t x = stack[--n];
        int32_t p = fx_producer(c, x);
        if (p < 0) continue;
        const gc_op *op = fx_op(c, p);
        bool used = false;
        for (int32_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] >= 0 && fx_uses(c, op->outputs[k]) > 0) used = true;
        if (used) continue;
        /* variables and ops without outputs have effects beyond their outputs */
        bool effect = op->n_outputs == 0;
        for (int32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && fx_t(c, op->inputs[k])->is_variable) effect = true;
        if (effect) continue;
        int32_t ins[16]; int ni = 0;
        for (int32_t k = 0; k < op->n_inputs && ni < 16; k++)
            if (op->inputs[k] >= 0 && !fx_is_const(c, op->inputs[k])) ins[ni++] = op->inputs[k];
        fx_remove_op(c, p);
        for (int k = 0; k < ni && n < 64; k++) stack[n++] = ins[k];
    }
}

/* The versions TFLite's converter stamps (tensorflow/lite/tools/versioning/op_version.cc,
 * GetBuiltinOperatorVersion) for the plain forms passes emit: no masks, offset, batch
 * dims or fused activations, so only the element type and the input rank count. The
 * checks run in op_version.cc's order (the first that matches wins). */
int32_t fx_version_for(int32_t code, int type, int rank) {
    switch (code) {
    case GC_OP_TRANSPOSE:
        if (rank > 5) return 6;
        if (type == GC_T_INT16) return 5;
        if (rank > 4) return 4;
        if (type == GC_T_BOOL) return 3;
        if (type == GC_T_INT8) return 2;
        return 1;
    case GC_OP_STRIDED_SLICE:
        if (type == GC_T_UINT32) return 7;
        if (type == GC_T_STRING) return 5;
        if (rank > 4) return 4;
        if (type == GC_T_BOOL) return 3;
        if (type == GC_T_INT8) return 2;
        return 1;                                /* int16 has no version of its own */
    case GC_OP_SLICE:
        if (type == GC_T_UINT32) return 6;
        if (rank > 4) return 5;
        if (type == GC_T_INT16) return 4;
        if (type == GC_T_STRING) return 3;
        if (type == GC_T_INT8) return 2;
        return 1;                                /* bool included */
    case GC_OP_GATHER:
        if (type == GC_T_INT4) return 7;
        if (type == GC_T_INT16) return 4;
        if (type == GC_T_BOOL) return 3;
        if (type == GC_T_INT8) return 2;
        return 1;
    case GC_OP_CONCATENATION:
        if (type == GC_T_UINT32) return 4;
        if (type == GC_T_INT16) return 3;
        if (type == GC_T_INT8) return 2;
        return 1;
    case GC_OP_TILE:
        if (type == GC_T_INT8) return 3;
        if (type == GC_T_STRING) return 2;
        return 1;
    case GC_OP_PAD: case GC_OP_PADV2:
        if (rank > 4) return 4;
        if (type == GC_T_INT16) return 3;
        return type == GC_T_INT8 ? 2 : 1;
    case GC_OP_MUL:
        if (type == GC_T_INT16 || type == GC_T_UINT32) return 7;   /* int16 not quantized */
        if (type == GC_T_COMPLEX64) return 6;
        if (type == GC_T_INT64) return 5;
        return type == GC_T_INT8 ? 2 : 1;
    case GC_OP_ADD: case GC_OP_SUB:
        if (type == GC_T_INT64) return 4;
        return type == GC_T_INT8 ? 2 : 1;
    case GC_OP_ARG_MAX: case GC_OP_ARG_MIN:
        if (type == GC_T_BOOL) return 3;
        return type == GC_T_INT8 ? 2 : 1;
    case GC_OP_RELU:
        if (type == GC_T_INT16) return 3;
        return type == GC_T_INT8 || type == GC_T_UINT8 ? 2 : 1;
    case GC_OP_RELU6: case GC_OP_TANH: case GC_OP_LOGISTIC:
        if (type == GC_T_INT16) return 3;
        return type == GC_T_INT8 ? 2 : 1;
    case GC_OP_RELU_N1_TO_1:
        return type == GC_T_INT8 ? 2 : 1;
    default:
        return 1;                                /* RESHAPE, NEG, CAST between float/int32/bool, ... */
    }
}

void fx_dims(char *buf, size_t n, int rank, const int32_t *shape) {
    size_t k = 0;
    if (n == 0) return;
    buf[0] = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", shape[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

void fx_dims64(char *buf, size_t n, int rank, const int64_t *v) {
    size_t k = 0;
    if (n == 0) return;
    buf[0] = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "", (long long)v[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

/* True when STRIDED_SLICE `op` is already plain: constant begin/end (and strides) with one
 * entry per input axis, begin and end >= 0, and no mask or offset set. */
bool fx_strided_slice_is_plain(gc_fix_ctx *c, int32_t op, int rank) {
    int64_t bv[32], ev[32], sv[32];
    int ns = fx_const_ints(c, fx_in(c, op, 1), bv, 32);
    if (ns != rank || fx_const_ints(c, fx_in(c, op, 2), ev, 32) != ns) return false;
    if (fx_in(c, op, 3) >= 0 && fx_const_ints(c, fx_in(c, op, 3), sv, 32) != ns) return false;
    const gc_options *o = &fx_op(c, op)->opt;
    if (gc_opt_int(o, GC_O_StridedSliceOptions_begin_mask) || gc_opt_int(o, GC_O_StridedSliceOptions_end_mask) ||
        gc_opt_int(o, GC_O_StridedSliceOptions_ellipsis_mask) || gc_opt_int(o, GC_O_StridedSliceOptions_new_axis_mask) ||
        gc_opt_int(o, GC_O_StridedSliceOptions_shrink_axis_mask) || gc_opt_int(o, GC_O_StridedSliceOptions_offset))
        return false;
    for (int i = 0; i < ns; i++) if (bv[i] < 0 || ev[i] < 0) return false;
    return true;
}

int fx_strided_slice_spec(gc_fix_ctx *c, int32_t op, int rank, const int32_t *dims, int32_t *start, int32_t *stride,
                          int32_t *size, uint32_t *shrunk) {
    int64_t bv[32], ev[32], sv[32];
    int ns = fx_const_ints(c, fx_in(c, op, 1), bv, 32);
    if (ns < 0 || fx_const_ints(c, fx_in(c, op, 2), ev, 32) != ns)
        return fx_decline(c, "begin/end are not constants of equal length");
    if (fx_in(c, op, 3) >= 0) {
        if (fx_const_ints(c, fx_in(c, op, 3), sv, 32) != ns) return fx_decline(c, "strides are not a constant");
    } else for (int i = 0; i < ns; i++) sv[i] = 1;
    const gc_options *o = &fx_op(c, op)->opt;
    uint32_t bm = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_begin_mask);
    uint32_t em = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_end_mask);
    uint32_t elm = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_ellipsis_mask);
    uint32_t nam = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_new_axis_mask);
    uint32_t sam = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_shrink_axis_mask);
    bool offset = gc_opt_int(o, GC_O_StridedSliceOptions_offset) != 0;
    if (shrunk) *shrunk = 0;
    if (shrunk && nam) return fx_decline(c, "new_axis_mask inserts an axis");
    int d = 0;
    bool seen_ell = false;
    for (int i = 0; i <= ns; i++) {
        if (i == ns) { for (; d < rank; d++) { start[d] = 0; stride[d] = 1; size[d] = dims[d]; } break; }
        if (elm >> i & 1) {
            if (seen_ell) return fx_decline(c, "more than one ellipsis");
            seen_ell = true;
            int rest = 0;
            for (int j = i + 1; j < ns; j++) if (!(nam >> j & 1) && !(elm >> j & 1)) rest++;
            for (; d < rank - rest; d++) { start[d] = 0; stride[d] = 1; size[d] = dims[d]; }
            continue;
        }
        if (nam >> i & 1) continue;
        if (d >= rank) return fx_decline(c, "the slice spec is longer than the input rank");
        int64_t dim = dims[d], b = bv[i], e = ev[i], s = sv[i];
        if (s <= 0) return fx_decline(c, "stride %lld on axis %d (reverse slices stay: the GPU refuses them)",
                                          (long long)s, d);
        if (offset) e = b + e;
        int64_t st, sp;
        if (sam >> i & 1) {
            st = b < 0 ? b + dim : b;
            if (st < 0 || st >= dim) return fx_decline(c, "shrunk index %lld out of range", (long long)b);
            start[d] = (int32_t)st; stride[d] = 1; size[d] = 1;
            if (shrunk) *shrunk |= 1u << d;
            d++;
            continue;
        }
        if (bm >> i & 1) st = 0;
        else { st = b < 0 ? b + dim : b; st = st < 0 ? 0 : st > dim ? dim : st; }
        if (em >> i & 1) sp = dim;
        else { sp = e < 0 ? e + dim : e; sp = sp < 0 ? 0 : sp > dim ? dim : sp; }
        int64_t n = (sp - st + s - 1) / s;
        if (n <= 0) return fx_decline(c, "empty slice on axis %d", d);
        start[d] = (int32_t)st; stride[d] = (int32_t)s; size[d] = (int32_t)n; d++;
    }
    return 1;
}
