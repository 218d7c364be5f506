/* sweep_lib.c — the case builder of the GPU sweep (sweep.h): constants with the sweep's
 * fill, flat attributes, explicit graph outputs, per-case input values, and the family
 * table. */
#include "sweep.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sw_family sw_families[] = {
    { "conv", "CONV_2D: kernel 1-7, stride 1/2, dilation 1/2, SAME/VALID, grouped", sw_family_conv },
    { "conv_wide", "CONV_2D with 16-128 channels at 16x16, 28x28 and 56x56 (ResNet geometry)", sw_family_conv_wide },
    { "depthwise", "DEPTHWISE_CONV_2D: kernel 1-7, stride, dilation, depth multiplier 1/2/4", sw_family_depthwise },
    { "transpose_conv", "TRANSPOSE_CONV: kernel, stride, padding, bias, fused activation", sw_family_transpose_conv },
    { "fully_connected", "FULLY_CONNECTED: keep_num_dims 0/1, input rank 2-4, bias, runtime weights", sw_family_fully_connected },
    { "batch_matmul", "BATCH_MATMUL: adj_x/adj_y, batch broadcast, constant rhs", sw_family_batch_matmul },
    { "elementwise", "ADD/SUB/MUL/DIV/MAXIMUM over every broadcast pair of ranks 1-4, runtime and constant operand", sw_family_elementwise },
    { "pad", "PAD/PADV2/MIRROR_PAD rank 3 and 4", sw_family_pad },
    { "reduce", "SUM/MEAN/REDUCE_MAX: axes, keep_dims, sizes near the fp16 limits", sw_family_reduce },
    { "softmax", "SOFTMAX over axis sizes 1..4096, large logits, beta", sw_family_softmax },
    { "cast", "CAST float<->int32: rounding of fractions, negatives, large values", sw_family_cast },
    { "cumsum", "CUMSUM: exclusive/reverse, axes, ranks", sw_family_cumsum },
    { "gather", "GATHER/GATHER_ND: constant vs runtime indices, 1-D/2-D indices, axis", sw_family_gather },
    { "split", "SPLIT/SPLIT_V/UNPACK: outputs consumed vs graph outputs vs both vs unused", sw_family_split },
    { "densify", "DENSIFY'd sparse constants feeding GPU ops", sw_family_densify },
    { "dequantize", "DEQUANTIZE'd fp16/int8 constants feeding CONV/FC/ADD", sw_family_dequantize },
    { "resize", "RESIZE_BILINEAR/RESIZE_NEAREST_NEIGHBOR: align_corners, half_pixel_centers, scales", sw_family_resize },
    { "alias", "outputs that are also consumed inside the graph (LiteRT#8599)", sw_family_alias },
    { "pattern", "transformer blocks: LayerNorm, GELU, attention, head split/merge, transposes", sw_family_pattern },
};
const int sw_families_n = (int)(sizeof sw_families / sizeof sw_families[0]);

bool sw_selected(const sw_ctx *x, const char *f) {
    if (!x->only || !x->only[0]) return true;
    size_t n = strlen(f);
    for (const char *p = x->only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, f, n)) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

int sw_run_all(sw_ctx *x) {
    for (int i = 0; i < sw_families_n && !x->n_errors; i++)
        if (sw_selected(x, sw_families[i].name)) sw_families[i].run(x);
    for (int i = 0; i < x->n_names; i++) free(x->names[i]);
    free(x->names);
    x->names = NULL; x->n_names = x->cap_names = 0;
    return x->n_cases;
}

/* false (and an error) when `name` was emitted before */
static bool remember(sw_ctx *x, const char *name) {
    for (int i = 0; i < x->n_names; i++)
        if (!strcmp(x->names[i], name)) return false;
    if (!gc_grow((void **)&x->names, &x->cap_names, x->n_names + 1, sizeof *x->names)) return true;
    x->names[x->n_names] = strdup(name);
    if (x->names[x->n_names]) x->n_names++;
    return true;
}

int sw_conv_out(int in, int k, int stride, int dilation, int padding) {
    int eff = (k - 1) * dilation + 1;
    return padding == SW_SAME ? (in + stride - 1) / stride : (in - eff + stride) / stride;
}

/* ---- building ----------------------------------------------------------------------- */

void sw_begin(sw_case *c) {
    memset(c, 0, sizeof *c);
    c->b = gc_rb_new();
}

int32_t sw_t(sw_case *c, const char *name, int type, int rank, const int32_t *shape) {
    return gc_rb_t(&c->b, name, type, rank, shape);
}

void sw_fill_f32(float *v, uint64_t n, int salt) {
    for (uint64_t i = 0; i < n; i++)
        v[i] = (float)((double)((37 * i + 11 + 53 * (uint64_t)salt) % 251) / 125.5 - 1.0);
}

static uint64_t numel(int rank, const int32_t *shape) {
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) n *= (uint64_t)shape[i];
    return n;
}

int32_t sw_const_f32(sw_case *c, const char *name, int rank, const int32_t *shape) {
    uint64_t n = numel(rank, shape);
    float *v = malloc(sizeof(float) * (size_t)(n ? n : 1));
    if (!v) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
    sw_fill_f32(v, n, c->salt++);
    int32_t t = gc_rb_c(&c->b, name, SW_F32, rank, shape, v);
    free(v);
    return t;
}

int32_t sw_const_i32(sw_case *c, const char *name, int rank, const int32_t *shape, const int32_t *v) {
    return gc_rb_c(&c->b, name, SW_I32, rank, shape, v);
}

int32_t sw_const(sw_case *c, const char *name, int type, int rank, const int32_t *shape, const void *data) {
    return gc_rb_c(&c->b, name, type, rank, shape, data);
}

int32_t sw_op(sw_case *c, int32_t code, int version, int n_in, const int32_t *in, int n_out, const int32_t *out) {
    return gc_rb_op(&c->b, code, version, n_in, in, n_out, out);
}

void sw_opt(sw_case *c, int32_t op, int field, int64_t v) { gc_rb_opt(&c->b, op, field, v); }
void sw_optf(sw_case *c, int32_t op, int field, double v) { gc_rb_optf(&c->b, op, field, v); }

/* ---- attributes ------------------------------------------------------------------------ */

static void attr_key(sw_case *c, const char *k) {
    if (c->n_attrs++) gc_str_putc(&c->attrs, ',');
    gc_str_json(&c->attrs, k);
    gc_str_putc(&c->attrs, ':');
}
void sw_attr_i(sw_case *c, const char *k, long long v) { attr_key(c, k); gc_str_printf(&c->attrs, "%lld", v); }
void sw_attr_s(sw_case *c, const char *k, const char *v) { attr_key(c, k); gc_str_json(&c->attrs, v); }
void sw_attr_b(sw_case *c, const char *k, bool v) { attr_key(c, k); gc_str_puts(&c->attrs, v ? "true" : "false"); }
void sw_attr_shape(sw_case *c, const char *k, int rank, const int32_t *shape) {
    char buf[128] = "";
    size_t n = 0;
    for (int i = 0; i < rank && n < sizeof buf - 16; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? "x" : "", shape[i]);
    if (!rank) snprintf(buf, sizeof buf, "scalar");
    sw_attr_s(c, k, buf);
}

/* ---- I/O ------------------------------------------------------------------------------ */

void sw_outputs(sw_case *c, int n, const int32_t *t) {
    if (n > SW_MAX_OUTPUTS) { fprintf(stderr, "gpu-sweep: too many outputs\n"); exit(1); }
    c->n_outs = n;
    memcpy(c->outs, t, sizeof(int32_t) * (size_t)n);
}

static void set_input(sw_case *c, int k, int type, const void *v, size_t bytes) {
    if (k < 0 || k >= SW_MAX_INPUTS) { fprintf(stderr, "gpu-sweep: input index %d out of range\n", k); exit(1); }
    free(c->in[k].data);
    c->in[k].type = type;
    c->in[k].data = malloc(bytes ? bytes : 1);
    if (!c->in[k].data) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
    memcpy(c->in[k].data, v, bytes);
    c->in[k].n = bytes / 4;   /* checked against the tensor at emit time */
}
void sw_in_f32(sw_case *c, int k, const float *v, uint64_t n) { set_input(c, k, SW_F32, v, (size_t)n * sizeof(float)); }
void sw_in_i32(sw_case *c, int k, const int32_t *v, uint64_t n) { set_input(c, k, SW_I32, v, (size_t)n * sizeof(int32_t)); }

static void fail(sw_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(sw_ctx *x, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, sizeof x->err, fmt, ap);
    va_end(ap);
    x->n_errors++;
}

void sw_emit(sw_ctx *x, sw_case *c, const char *family, const char *op, const char *what, const char *name_fmt, ...) {
    char name[128];
    va_list ap;
    va_start(ap, name_fmt);
    vsnprintf(name, sizeof name, name_fmt, ap);
    va_end(ap);
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) {
            fail(x, "%s: case names are [a-z0-9_]", name);
            break;
        }
    if (!x->n_errors && !remember(x, name)) fail(x, "%s: two cases with this name", name);
    gc_model *m = c->b.m;
    if (!c->n_outs) {
        gc_rb_done(&c->b);
    } else {
        /* inputs as gc_rb_done finds them; the outputs as given */
        gc_subgraph *sg = &m->subgraphs[c->b.sg];
        int32_t *ins = malloc(sizeof(int32_t) * (size_t)(sg->n_tensors + 1));
        int ni = 0;
        for (int32_t t = 0; ins && t < sg->n_tensors; t++)
            if (gc_sg_producer(m, c->b.sg, t) < 0 && !gc_tensor_is_const(m, &sg->tensors[t]) &&
                gc_sg_consumers(m, c->b.sg, t, NULL, 0) > 0) ins[ni++] = t;
        gc_sg_set_io(m, c->b.sg, ni, ins, c->n_outs, c->outs);
        free(ins);
    }
    const gc_subgraph *sg = &m->subgraphs[c->b.sg];
    int n_in = sg->n_inputs < SW_MAX_INPUTS ? sg->n_inputs : SW_MAX_INPUTS;
    for (int k = 0; k < SW_MAX_INPUTS && !x->n_errors; k++) {
        if (!c->in[k].data) continue;
        if (k >= sg->n_inputs) { fail(x, "%s: values for input %d but the model has %d", name, k, sg->n_inputs); break; }
        const gc_tensor *t = &sg->tensors[sg->inputs[k]];
        uint64_t n = gc_tensor_numel(t);
        if (c->in[k].n != n || t->type != c->in[k].type) {
            fail(x, "%s: input %d values do not match its tensor (%llu values, tensor has %llu)", name, k,
                 (unsigned long long)c->in[k].n, (unsigned long long)n);
            break;
        }
        c->in[k].rank = t->rank;
        for (int d = 0; d < t->rank && d < 8; d++) c->in[k].shape[d] = t->shape[d];
    }
    if (!x->n_errors) {
        char *attrs = malloc(c->attrs.n + 3);
        if (attrs) snprintf(attrs, c->attrs.n + 3, "{%s}", c->attrs.s ? c->attrs.s : "");
        sw_meta meta = { name, family, op, what, attrs ? attrs : "{}" };
        if (x->sink && x->sink(x, &meta, m, c->in, n_in)) { if (!x->n_errors) fail(x, "%s: the sink failed", name); }
        else x->n_cases++;
        free(attrs);
    }
    for (int k = 0; k < SW_MAX_INPUTS; k++) free(c->in[k].data);
    gc_str_free(&c->attrs);
    gc_model_free(m);
    memset(c, 0, sizeof *c);
}
