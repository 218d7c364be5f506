/* diff.c — structural equality of two models (round-trip tests, fuzzing): every
 * field of the IR, buffer bytes included. Reports the first difference. */
#include "model.h"

#include <stdio.h>
#include <string.h>

#define D(...) do { gc_errf(err, errlen, __VA_ARGS__); return false; } while (0)

static bool str_eq(const char *a, const char *b) {
    if (!a) a = "";
    if (!b) b = "";
    return !strcmp(a, b);
}
static bool mem_eq(const void *a, const void *b, size_t n) { return !n || !memcmp(a, b, n); }

static bool quant_eq(const gc_quant *a, const gc_quant *b) {
    if (!a || !b) {
        /* an empty quantization table equals none */
        const gc_quant *q = a ? a : b;
        return !q || (!q->n_scale && !q->n_zero_point && !q->n_min && !q->n_max && !q->details_type);
    }
    return a->n_min == b->n_min && a->n_max == b->n_max && a->n_scale == b->n_scale &&
           a->n_zero_point == b->n_zero_point && mem_eq(a->min, b->min, 4 * (size_t)a->n_min) &&
           mem_eq(a->max, b->max, 4 * (size_t)a->n_max) && mem_eq(a->scale, b->scale, 4 * (size_t)a->n_scale) &&
           mem_eq(a->zero_point, b->zero_point, 8 * (size_t)a->n_zero_point) &&
           a->quantized_dimension == b->quantized_dimension && a->details_type == b->details_type &&
           a->n_custom == b->n_custom && mem_eq(a->custom, b->custom, a->n_custom) &&
           a->bw_scales == b->bw_scales && a->bw_zero_points == b->bw_zero_points &&
           a->bw_block_size == b->bw_block_size;
}

static bool sparsity_eq(const gc_sparsity *a, const gc_sparsity *b) {
    if (!a || !b) return a == b;
    if (a->n_traversal_order != b->n_traversal_order || a->n_block_map != b->n_block_map ||
        a->n_dim_metadata != b->n_dim_metadata ||
        !mem_eq(a->traversal_order, b->traversal_order, 4 * (size_t)a->n_traversal_order) ||
        !mem_eq(a->block_map, b->block_map, 4 * (size_t)a->n_block_map))
        return false;
    for (int32_t i = 0; i < a->n_dim_metadata; i++) {
        const gc_dim_meta *x = &a->dim_metadata[i], *y = &b->dim_metadata[i];
        size_t es = x->segments_type == 1 ? 4 : x->segments_type == 2 ? 2 : 1;
        size_t ei = x->indices_type == 1 ? 4 : x->indices_type == 2 ? 2 : 1;
        if (x->format != y->format || x->dense_size != y->dense_size ||
            x->segments_type != y->segments_type || x->indices_type != y->indices_type ||
            x->n_segments != y->n_segments || x->n_indices != y->n_indices ||
            !mem_eq(x->segments, y->segments, es * x->n_segments) ||
            !mem_eq(x->indices, y->indices, ei * x->n_indices))
            return false;
    }
    return true;
}

static bool options_eq(const gc_options *a, const gc_options *b, int nf) {
    if (a->type != b->type) return false;
    if (a->raw || b->raw)
        /* vtable and inline bytes, except the soffset (bytes 0..4 of the table),
         * which depends on where the writer placed the vtable */
        return a->raw && b->raw && a->raw_len == b->raw_len && a->raw_vt_len == b->raw_vt_len &&
               !memcmp(a->raw, b->raw, a->raw_vt_len) &&
               !memcmp(a->raw + a->raw_vt_len + 4, b->raw + b->raw_vt_len + 4, a->raw_len - a->raw_vt_len - 4);
    if (!a->v || !b->v) return !a->v && !b->v;
    if (a->present != b->present) return false;
    if (a->n_v != b->n_v) return false;
    for (int k = 0; k < nf && k < a->n_v; k++) {
        const gc_optval *x = &a->v[k], *y = &b->v[k];
        if (x->i != y->i || x->n != y->n) return false;
        if (x->f != y->f && !(x->f != x->f && y->f != y->f)) return false;
        if ((x->vec == NULL) != (y->vec == NULL)) return false;
    }
    return true;
}

bool gc_model_equal(const gc_model *a, const gc_model *b, char *err, size_t errlen) {
    if (a->version != b->version) D("version %u vs %u", a->version, b->version);
    if (!str_eq(a->description, b->description)) D("description differs");
    if (a->n_opcodes != b->n_opcodes) D("%d vs %d operator codes", a->n_opcodes, b->n_opcodes);
    for (int32_t i = 0; i < a->n_opcodes; i++) {
        const gc_opcode *x = &a->opcodes[i], *y = &b->opcodes[i];
        if (x->builtin_code != y->builtin_code || x->version != y->version ||
            x->deprecated_builtin_code != y->deprecated_builtin_code || !str_eq(x->custom_code, y->custom_code))
            D("operator code %d differs", i);
    }
    if (a->n_buffers != b->n_buffers) D("%d vs %d buffers", a->n_buffers, b->n_buffers);
    for (int32_t i = 0; i < a->n_buffers; i++)
        if (a->buffers[i].size != b->buffers[i].size ||
            !mem_eq(a->buffers[i].data, b->buffers[i].data, (size_t)a->buffers[i].size))
            D("buffer %d differs", i);
    if (a->n_metadata != b->n_metadata) D("metadata count differs");
    for (int32_t i = 0; i < a->n_metadata; i++)
        if (!str_eq(a->metadata[i].name, b->metadata[i].name) || a->metadata[i].buffer != b->metadata[i].buffer)
            D("metadata %d differs", i);
    if (a->n_metadata_buffer != b->n_metadata_buffer ||
        !mem_eq(a->metadata_buffer, b->metadata_buffer, 4 * (size_t)a->n_metadata_buffer))
        D("metadata_buffer differs");
    if (a->n_signatures != b->n_signatures) D("signature count differs");
    for (int32_t i = 0; i < a->n_signatures; i++) {
        const gc_signature *x = &a->signatures[i], *y = &b->signatures[i];
        if (!str_eq(x->key, y->key) || x->subgraph != y->subgraph || x->n_inputs != y->n_inputs ||
            x->n_outputs != y->n_outputs)
            D("signature %d differs", i);
        for (int32_t k = 0; k < x->n_inputs; k++)
            if (!str_eq(x->inputs[k].name, y->inputs[k].name) || x->inputs[k].tensor != y->inputs[k].tensor)
                D("signature %d input %d differs", i, k);
        for (int32_t k = 0; k < x->n_outputs; k++)
            if (!str_eq(x->outputs[k].name, y->outputs[k].name) || x->outputs[k].tensor != y->outputs[k].tensor)
                D("signature %d output %d differs", i, k);
    }
    if (a->n_subgraphs != b->n_subgraphs) D("%d vs %d subgraphs", a->n_subgraphs, b->n_subgraphs);
    for (int32_t s = 0; s < a->n_subgraphs; s++) {
        const gc_subgraph *x = &a->subgraphs[s], *y = &b->subgraphs[s];
        if (!str_eq(x->name, y->name)) D("subgraph %d name differs", s);
        if (x->n_tensors != y->n_tensors || x->n_ops != y->n_ops) D("subgraph %d sizes differ", s);
        if (x->n_inputs != y->n_inputs || !mem_eq(x->inputs, y->inputs, 4 * (size_t)x->n_inputs) ||
            x->n_outputs != y->n_outputs || !mem_eq(x->outputs, y->outputs, 4 * (size_t)x->n_outputs))
            D("subgraph %d inputs/outputs differ", s);
        for (int32_t t = 0; t < x->n_tensors; t++) {
            const gc_tensor *p = &x->tensors[t], *q = &y->tensors[t];
            if (!str_eq(p->name, q->name) || p->type != q->type || p->rank != q->rank ||
                !mem_eq(p->shape, q->shape, 4 * (size_t)p->rank) || p->buffer != q->buffer ||
                p->is_variable != q->is_variable || p->has_rank != q->has_rank ||
                p->n_shape_signature != q->n_shape_signature ||
                !mem_eq(p->shape_signature, q->shape_signature, 4 * (size_t)p->n_shape_signature) ||
                p->n_variant != q->n_variant)
                D("subgraph %d tensor %d ('%s') differs", s, t, p->name);
            if (!quant_eq(p->quant, q->quant)) D("subgraph %d tensor %d quantization differs", s, t);
            if (!sparsity_eq(p->sparsity, q->sparsity)) D("subgraph %d tensor %d sparsity differs", s, t);
        }
        for (int32_t o = 0; o < x->n_ops; o++) {
            const gc_op *p = &x->ops[o], *q = &y->ops[o];
            if (p->opcode_index != q->opcode_index || p->n_inputs != q->n_inputs ||
                p->n_outputs != q->n_outputs || p->n_intermediates != q->n_intermediates ||
                !mem_eq(p->inputs, q->inputs, 4 * (size_t)p->n_inputs) ||
                !mem_eq(p->outputs, q->outputs, 4 * (size_t)p->n_outputs) ||
                !mem_eq(p->intermediates, q->intermediates, 4 * (size_t)p->n_intermediates))
                D("subgraph %d op %d wiring differs", s, o);
            int nf = p->opt.type < gc_opt_tables_count && gc_opt_tables[p->opt.type].name
                         ? gc_opt_tables[p->opt.type].n_fields : 0;
            int nf2 = p->opt2.type < gc_opt2_tables_count && gc_opt2_tables[p->opt2.type].name
                          ? gc_opt2_tables[p->opt2.type].n_fields : 0;
            if (!options_eq(&p->opt, &q->opt, nf)) D("subgraph %d op %d builtin options differ", s, o);
            if (!options_eq(&p->opt2, &q->opt2, nf2)) D("subgraph %d op %d builtin options 2 differ", s, o);
            if (p->n_custom_options != q->n_custom_options ||
                !mem_eq(p->custom_options, q->custom_options, p->n_custom_options) ||
                p->custom_options_format != q->custom_options_format)
                D("subgraph %d op %d custom options differ", s, o);
            if (p->n_mutating != q->n_mutating ||
                !mem_eq(p->mutating_variable_inputs, q->mutating_variable_inputs, (size_t)p->n_mutating))
                D("subgraph %d op %d mutating_variable_inputs differ", s, o);
        }
    }
    return true;
}
