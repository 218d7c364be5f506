/* inspect.c — a model's structure as text or JSON (schema 1): subgraphs, signatures,
 * tensors (name, shape, shape_signature, dtype, quantization, constant, bytes), op
 * histogram with versions, the compute (MACs / FLOPs from static shapes, flops.c),
 * custom ops, metadata names, buffer sizes. Reads nothing
 * but the IR; weights are never touched (sizes come from the buffer table). */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t tensor_bytes(const gc_tensor *t) {
    uint64_t n = gc_tensor_numel(t);
    if (n == UINT64_MAX) return 0;
    uint64_t b = gc_type_bytes(t->type, n);
    return b == UINT64_MAX ? 0 : b;
}

static void shape_str(gc_str *o, const int32_t *d, int32_t n) {
    gc_str_putc(o, '[');
    for (int32_t i = 0; i < n; i++) gc_str_printf(o, "%s%d", i ? "," : "", d[i]);
    gc_str_putc(o, ']');
}

typedef struct { const char *name; int32_t version; int32_t count; int32_t builtin; } hist_row;

static int hist_cmp(const void *a, const void *b) {
    const hist_row *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    /* versions come from the file: compare, never subtract (INT_MIN - 1 overflows) */
    return (x->version > y->version) - (x->version < y->version);
}

/* one row per (opcode name, version) over all subgraphs */
static hist_row *histogram(const gc_model *m, int *n_rows) {
    hist_row *rows = calloc((size_t)m->n_opcodes + 1, sizeof *rows);
    if (!rows) { *n_rows = 0; return NULL; }
    int n = 0;
    for (int32_t i = 0; i < m->n_opcodes; i++) {
        const gc_opcode *oc = &m->opcodes[i];
        const char *name = oc->builtin_code == GC_OP_CUSTOM && oc->custom_code ? oc->custom_code
                                                                                : gc_builtin_name(oc->builtin_code);
        int found = -1;
        for (int k = 0; k < n; k++)
            if (!strcmp(rows[k].name, name) && rows[k].version == oc->version) found = k;
        if (found < 0) { found = n++; rows[found].name = name; rows[found].version = oc->version; rows[found].builtin = oc->builtin_code; }
        for (int32_t s = 0; s < m->n_subgraphs; s++)
            for (int32_t o = 0; o < m->subgraphs[s].n_ops; o++)
                if (m->subgraphs[s].ops[o].opcode_index == (uint32_t)i) rows[found].count++;
    }
    qsort(rows, (size_t)n, sizeof *rows, hist_cmp);
    *n_rows = n;
    return rows;
}

static uint64_t total_buffer_bytes(const gc_model *m) {
    uint64_t t = 0;
    for (int32_t i = 0; i < m->n_buffers; i++) t += m->buffers[i].size;
    return t;
}

static void quant_text(gc_str *o, const gc_quant *q) {
    if (!q || (!q->n_scale && !q->details_type)) return;
    if (q->n_scale == 1)
        gc_str_printf(o, " q(scale=%g zp=%lld)", q->scale[0], q->n_zero_point ? (long long)q->zero_point[0] : 0LL);
    else if (q->n_scale > 1)
        gc_str_printf(o, " q(per-channel %d scales, axis %d)", q->n_scale, q->quantized_dimension);
    if (q->details_type == 2) gc_str_printf(o, " q(blockwise block=%d)", q->bw_block_size);
    if (q->details_type == 1) gc_str_printf(o, " q(custom %u bytes)", q->n_custom);
}

void gc_inspect_text(const gc_model *m, const char *path, bool verbose, gc_str *o) {
    uint64_t total = total_buffer_bytes(m);
    gc_str_printf(o, "%s: TFLite schema v%u, %d subgraph(s), %d operator code(s), %d buffer(s) (%.2f MB of data)\n",
                  path, m->version, m->n_subgraphs, m->n_opcodes, m->n_buffers, (double)total / 1e6);
    if (m->description) gc_str_printf(o, "description: %s\n", m->description);
    for (int32_t i = 0; i < m->n_signatures; i++) {
        const gc_signature *s = &m->signatures[i];
        gc_str_printf(o, "signature '%s' (subgraph %u)\n", s->key ? s->key : "", s->subgraph);
        const gc_subgraph *sg = &m->subgraphs[s->subgraph];
        for (int io = 0; io < 2; io++) {
            int32_t n = io ? s->n_outputs : s->n_inputs;
            const gc_tensor_map *tm = io ? s->outputs : s->inputs;
            for (int32_t k = 0; k < n; k++) {
                const gc_tensor *t = &sg->tensors[tm[k].tensor];
                gc_str_printf(o, "  %s %-20s tensor %u %s ", io ? "output" : "input ", tm[k].name ? tm[k].name : "",
                              tm[k].tensor, gc_type_name(t->type));
                shape_str(o, t->shape, t->rank);
                gc_str_putc(o, '\n');
            }
        }
    }
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        const gc_subgraph *sg = &m->subgraphs[s];
        gc_str_printf(o, "subgraph %d%s%s%s: %d tensors, %d ops\n", s, sg->name ? " '" : "",
                      sg->name ? sg->name : "", sg->name ? "'" : "", sg->n_tensors, sg->n_ops);
        for (int io = 0; io < 2; io++) {
            int32_t n = io ? sg->n_outputs : sg->n_inputs;
            const int32_t *ts = io ? sg->outputs : sg->inputs;
            for (int32_t k = 0; k < n; k++) {
                const gc_tensor *t = &sg->tensors[ts[k]];
                gc_str_printf(o, "  %s %d: '%s' %s ", io ? "output" : "input ", k, t->name, gc_type_name(t->type));
                shape_str(o, t->shape, t->rank);
                if (t->n_shape_signature) { gc_str_puts(o, " signature "); shape_str(o, t->shape_signature, t->n_shape_signature); }
                quant_text(o, t->quant);
                gc_str_putc(o, '\n');
            }
        }
        if (verbose) {
            for (int32_t t = 0; t < sg->n_tensors; t++) {
                const gc_tensor *x = &sg->tensors[t];
                gc_str_printf(o, "  tensor %4d %-9s ", t, gc_type_name(x->type));
                shape_str(o, x->shape, x->rank);
                gc_str_printf(o, " %s%s '%s' %llu bytes", gc_tensor_is_const(m, x) ? "const" : "",
                              x->is_variable ? " variable" : "", x->name, (unsigned long long)tensor_bytes(x));
                if (x->sparsity) gc_str_puts(o, " sparse");
                quant_text(o, x->quant);
                gc_str_putc(o, '\n');
            }
            for (int32_t k = 0; k < sg->n_ops; k++) {
                const gc_op *op = &sg->ops[k];
                gc_str_printf(o, "  op %4d %s v%d in(", k, gc_op_name(m, op), gc_op_code(m, op)->version);
                for (int32_t j = 0; j < op->n_inputs; j++) gc_str_printf(o, "%s%d", j ? "," : "", op->inputs[j]);
                gc_str_puts(o, ") out(");
                for (int32_t j = 0; j < op->n_outputs; j++) gc_str_printf(o, "%s%d", j ? "," : "", op->outputs[j]);
                gc_str_puts(o, ")\n");
            }
        }
    }
    int nr; hist_row *rows = histogram(m, &nr);
    gc_str_puts(o, "ops:\n");
    for (int k = 0; k < nr; k++)
        gc_str_printf(o, "  %5d  %s v%d%s\n", rows[k].count, rows[k].name, rows[k].version,
                      rows[k].builtin == GC_OP_CUSTOM ? " (custom)" : "");
    free(rows);
    gc_flops fl;
    gc_model_flops(m, &fl);
    gc_flops_text(&fl, o);
    if (m->n_metadata) {
        gc_str_puts(o, "metadata:");
        for (int32_t i = 0; i < m->n_metadata; i++)
            gc_str_printf(o, " %s(%llu bytes)", m->metadata[i].name ? m->metadata[i].name : "?",
                          (unsigned long long)m->buffers[m->metadata[i].buffer].size);
        gc_str_putc(o, '\n');
    }
    int ext = 0; uint64_t biggest = 0; int32_t bi = -1;
    for (int32_t i = 0; i < m->n_buffers; i++) {
        if (m->buffers[i].external) ext++;
        if (m->buffers[i].size > biggest) { biggest = m->buffers[i].size; bi = i; }
    }
    gc_str_printf(o, "buffers: %d, %llu bytes in all", m->n_buffers, (unsigned long long)total);
    if (bi >= 0) gc_str_printf(o, ", largest buffer %d (%llu bytes)", bi, (unsigned long long)biggest);
    if (ext) gc_str_printf(o, ", %d stored after the flatbuffer", ext);
    gc_str_putc(o, '\n');
}

static void json_shape(gc_str *o, const char *key, const int32_t *d, int32_t n) {
    gc_str_printf(o, "\"%s\":", key);
    shape_str(o, d, n);
}

void gc_inspect_json(const gc_model *m, const char *path, gc_str *o) {
    gc_str_puts(o, "{\"schema\":1,\"model\":");
    gc_str_json(o, path);
    gc_str_printf(o, ",\"version\":%u,\"description\":", m->version);
    gc_str_json(o, m->description ? m->description : "");
    gc_str_puts(o, ",\"signatures\":[");
    for (int32_t i = 0; i < m->n_signatures; i++) {
        const gc_signature *s = &m->signatures[i];
        gc_str_printf(o, "%s{\"key\":", i ? "," : "");
        gc_str_json(o, s->key ? s->key : "");
        gc_str_printf(o, ",\"subgraph\":%u", s->subgraph);
        for (int io = 0; io < 2; io++) {
            int32_t n = io ? s->n_outputs : s->n_inputs;
            const gc_tensor_map *tm = io ? s->outputs : s->inputs;
            gc_str_printf(o, ",\"%s\":[", io ? "outputs" : "inputs");
            for (int32_t k = 0; k < n; k++) {
                gc_str_printf(o, "%s{\"name\":", k ? "," : "");
                gc_str_json(o, tm[k].name ? tm[k].name : "");
                gc_str_printf(o, ",\"tensor\":%u}", tm[k].tensor);
            }
            gc_str_putc(o, ']');
        }
        gc_str_putc(o, '}');
    }
    gc_str_puts(o, "],\"subgraphs\":[");
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        const gc_subgraph *sg = &m->subgraphs[s];
        gc_str_printf(o, "%s{\"index\":%d,\"name\":", s ? "," : "", s);
        gc_str_json(o, sg->name ? sg->name : "");
        gc_str_puts(o, ",\"inputs\":"); shape_str(o, sg->inputs, sg->n_inputs);
        gc_str_puts(o, ",\"outputs\":"); shape_str(o, sg->outputs, sg->n_outputs);
        gc_str_puts(o, ",\"tensors\":[");
        for (int32_t t = 0; t < sg->n_tensors; t++) {
            const gc_tensor *x = &sg->tensors[t];
            gc_str_printf(o, "%s{\"index\":%d,\"name\":", t ? "," : "", t);
            gc_str_json(o, x->name);
            gc_str_printf(o, ",\"dtype\":\"%s\",", gc_type_name(x->type));
            json_shape(o, "shape", x->shape, x->rank);
            if (x->n_shape_signature) { gc_str_putc(o, ','); json_shape(o, "shape_signature", x->shape_signature, x->n_shape_signature); }
            gc_str_printf(o, ",\"const\":%s,\"buffer\":%u,\"bytes\":%llu", gc_tensor_is_const(m, x) ? "true" : "false",
                          x->buffer, (unsigned long long)tensor_bytes(x));
            if (x->is_variable) gc_str_puts(o, ",\"variable\":true");
            if (x->sparsity) gc_str_puts(o, ",\"sparse\":true");
            const gc_quant *q = x->quant;
            if (q && (q->n_scale || q->details_type)) {
                gc_str_printf(o, ",\"quantization\":{\"scales\":%d,\"axis\":%d", q->n_scale, q->quantized_dimension);
                if (q->n_scale == 1)
                    gc_str_printf(o, ",\"scale\":%.9g,\"zero_point\":%lld", q->scale[0],
                                  q->n_zero_point ? (long long)q->zero_point[0] : 0LL);
                if (q->details_type == 2) gc_str_printf(o, ",\"blockwise\":{\"block_size\":%d,\"scales_tensor\":%d}", q->bw_block_size, q->bw_scales);
                gc_str_putc(o, '}');
            }
            gc_str_putc(o, '}');
        }
        gc_str_puts(o, "],\"ops\":[");
        for (int32_t k = 0; k < sg->n_ops; k++) {
            const gc_op *op = &sg->ops[k];
            gc_str_printf(o, "%s{\"index\":%d,\"op\":", k ? "," : "", k);
            gc_str_json(o, gc_op_name(m, op));
            gc_str_printf(o, ",\"version\":%d,\"inputs\":", gc_op_code(m, op)->version);
            shape_str(o, op->inputs, op->n_inputs);
            gc_str_puts(o, ",\"outputs\":");
            shape_str(o, op->outputs, op->n_outputs);
            gc_str_putc(o, '}');
        }
        gc_str_puts(o, "]}");
    }
    int nr; hist_row *rows = histogram(m, &nr);
    gc_str_puts(o, "],\"op_histogram\":[");
    for (int k = 0; k < nr; k++) {
        gc_str_printf(o, "%s{\"op\":", k ? "," : "");
        gc_str_json(o, rows[k].name);
        gc_str_printf(o, ",\"version\":%d,\"count\":%d,\"custom\":%s}", rows[k].version, rows[k].count,
                      rows[k].builtin == GC_OP_CUSTOM ? "true" : "false");
    }
    free(rows);
    gc_flops fl;
    gc_model_flops(m, &fl);
    gc_str_puts(o, "],\"flops\":");
    gc_flops_json(&fl, o);
    gc_str_puts(o, ",\"metadata\":[");
    for (int32_t i = 0; i < m->n_metadata; i++) {
        gc_str_printf(o, "%s{\"name\":", i ? "," : "");
        gc_str_json(o, m->metadata[i].name ? m->metadata[i].name : "");
        gc_str_printf(o, ",\"buffer\":%u,\"bytes\":%llu}", m->metadata[i].buffer,
                      (unsigned long long)m->buffers[m->metadata[i].buffer].size);
    }
    gc_str_printf(o, "],\"buffers\":{\"count\":%d,\"total_bytes\":%llu,\"sizes\":[", m->n_buffers,
                  (unsigned long long)total_buffer_bytes(m));
    for (int32_t i = 0; i < m->n_buffers; i++)
        gc_str_printf(o, "%s%llu", i ? "," : "", (unsigned long long)m->buffers[i].size);
    gc_str_puts(o, "]}}\n");
}
