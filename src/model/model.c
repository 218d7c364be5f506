/* model.c — lifetime, validation and lookups of the graph IR (model.h). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

gc_model *gc_model_new(void) {
    gc_model *m = calloc(1, sizeof *m);
    if (m) m->version = 3;
    return m;
}

void gc_model_free(gc_model *m) {
    if (!m) return;
    /* up to cap: a read that failed half-way leaves a partly filled subgraph */
    for (int32_t i = 0; i < m->cap_subgraphs; i++) {
        free(m->subgraphs[i].tensors);
        free(m->subgraphs[i].ops);
    }
    free(m->subgraphs); free(m->opcodes); free(m->buffers); free(m->metadata);
    free(m->signatures);
    gc_arena_free(&m->arena);
    if (m->file_is_mapped) munmap((void *)m->file, (size_t)m->file_size);
    free(m);
}

void gc_model_drop_pages(const gc_model *m, const void *p, size_t n) {
    if (!m || !m->file_is_mapped || !p || !n) return;
    uintptr_t f0 = (uintptr_t)m->file, f1 = f0 + (uintptr_t)m->file_size, a = (uintptr_t)p;
    if (a < f0 || a >= f1 || n > f1 - a) return;
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0) return;
    uintptr_t lo = (a + (uintptr_t)ps - 1) & ~((uintptr_t)ps - 1), hi = (a + n) & ~((uintptr_t)ps - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Largest rank we accept; TFLite itself has no limit, real models stay below 8. */
#define GC_MAX_RANK 16

gc_status gc_model_validate(const gc_model *m, char *err, size_t errlen) {
#define BAD(...) do { gc_errf(err, errlen, __VA_ARGS__); return GC_ERR_FORMAT; } while (0)
    for (int32_t i = 0; i < m->n_opcodes; i++) {
        const gc_opcode *oc = &m->opcodes[i];
        if (oc->builtin_code < 0) BAD("operator code %d: negative builtin code %d", i, oc->builtin_code);
    }
    for (int32_t i = 0; i < m->n_metadata_buffer; i++)
        if (m->metadata_buffer[i] < 0 || m->metadata_buffer[i] >= m->n_buffers)
            BAD("metadata_buffer %d: buffer index %d out of range (%d buffers)", i,
                m->metadata_buffer[i], m->n_buffers);
    for (int32_t i = 0; i < m->n_metadata; i++)
        if (m->metadata[i].buffer >= (uint32_t)m->n_buffers)
            BAD("metadata %d ('%s'): buffer index %u out of range (%d buffers)", i,
                m->metadata[i].name ? m->metadata[i].name : "", m->metadata[i].buffer, m->n_buffers);
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        const gc_subgraph *sg = &m->subgraphs[s];
        for (int32_t t = 0; t < sg->n_tensors; t++) {
            const gc_tensor *x = &sg->tensors[t];
            if (x->rank > GC_MAX_RANK)
                BAD("subgraph %d tensor %d ('%s'): rank %d is beyond the limit of %d", s, t,
                    x->name, x->rank, GC_MAX_RANK);
            if (x->n_shape_signature > GC_MAX_RANK)
                BAD("subgraph %d tensor %d ('%s'): shape_signature rank %d is beyond the limit of %d",
                    s, t, x->name, x->n_shape_signature, GC_MAX_RANK);
            for (int32_t d = 0; d < x->rank; d++)
                if (x->shape[d] < 0)
                    BAD("subgraph %d tensor %d ('%s'): negative dimension %d in shape", s, t,
                        x->name, x->shape[d]);
            for (int32_t d = 0; d < x->n_shape_signature; d++)
                if (x->shape_signature[d] < -1)
                    BAD("subgraph %d tensor %d ('%s'): bad dimension %d in shape_signature", s, t,
                        x->name, x->shape_signature[d]);
            if (x->type < 0 || x->type >= GC_T_COUNT)
                BAD("subgraph %d tensor %d ('%s'): unknown tensor type %d", s, t, x->name, x->type);
            uint64_t numel = gc_tensor_numel(x);
            if (numel == UINT64_MAX)
                BAD("subgraph %d tensor %d ('%s'): element count overflows", s, t, x->name);
            if (x->buffer >= (uint32_t)m->n_buffers)
                BAD("subgraph %d tensor %d ('%s'): buffer index %u out of range (%d buffers)", s, t,
                    x->name, x->buffer, m->n_buffers);
            const gc_buffer *b = &m->buffers[x->buffer];
            if (b->size && !x->sparsity && gc_type_size(x->type) > 0) {
                uint64_t need = gc_type_bytes(x->type, numel);
                if (need == UINT64_MAX || need > b->size)
                    BAD("subgraph %d tensor %d ('%s'): shape needs %llu bytes but its buffer %u holds %llu",
                        s, t, x->name, (unsigned long long)need, x->buffer, (unsigned long long)b->size);
            }
            if (x->quant) {
                const gc_quant *q = x->quant;
                if (q->quantized_dimension < 0 || q->quantized_dimension > GC_MAX_RANK)
                    BAD("subgraph %d tensor %d ('%s'): quantized_dimension %d is not a dimension",
                        s, t, x->name, q->quantized_dimension);
                if (q->details_type == 2) {
                    if ((q->bw_present & 1) && (q->bw_scales < 0 || q->bw_scales >= sg->n_tensors))
                        BAD("subgraph %d tensor %d ('%s'): blockwise scales tensor %d out of range",
                            s, t, x->name, q->bw_scales);
                    if ((q->bw_present & 2) && (q->bw_zero_points < -1 || q->bw_zero_points >= sg->n_tensors))
                        BAD("subgraph %d tensor %d ('%s'): blockwise zero_points tensor %d out of range",
                            s, t, x->name, q->bw_zero_points);
                }
            }
        }
        for (int32_t k = 0; k < sg->n_inputs; k++)
            if (sg->inputs[k] < 0 || sg->inputs[k] >= sg->n_tensors)
                BAD("subgraph %d: input %d names tensor %d, out of range (%d tensors)", s, k,
                    sg->inputs[k], sg->n_tensors);
        for (int32_t k = 0; k < sg->n_outputs; k++)
            if (sg->outputs[k] < 0 || sg->outputs[k] >= sg->n_tensors)
                BAD("subgraph %d: output %d names tensor %d, out of range (%d tensors)", s, k,
                    sg->outputs[k], sg->n_tensors);
        for (int32_t o = 0; o < sg->n_ops; o++) {
            const gc_op *op = &sg->ops[o];
            if (op->opcode_index >= (uint32_t)m->n_opcodes)
                BAD("subgraph %d operator %d: opcode index %u out of range (%d operator codes)", s, o,
                    op->opcode_index, m->n_opcodes);
            for (int32_t k = 0; k < op->n_inputs; k++)
                if (op->inputs[k] < -1 || op->inputs[k] >= sg->n_tensors)
                    BAD("subgraph %d operator %d (%s): input %d names tensor %d, out of range (%d tensors)",
                        s, o, gc_op_name(m, op), k, op->inputs[k], sg->n_tensors);
            for (int32_t k = 0; k < op->n_outputs; k++)
                if (op->outputs[k] < -1 || op->outputs[k] >= sg->n_tensors)
                    BAD("subgraph %d operator %d (%s): output %d names tensor %d, out of range (%d tensors)",
                        s, o, gc_op_name(m, op), k, op->outputs[k], sg->n_tensors);
            for (int32_t k = 0; k < op->n_intermediates; k++)
                if (op->intermediates[k] < -1 || op->intermediates[k] >= sg->n_tensors)
                    BAD("subgraph %d operator %d (%s): intermediate %d names tensor %d, out of range",
                        s, o, gc_op_name(m, op), k, op->intermediates[k]);
        }
    }
    for (int32_t i = 0; i < m->n_signatures; i++) {
        const gc_signature *sig = &m->signatures[i];
        if (sig->subgraph >= (uint32_t)m->n_subgraphs)
            BAD("signature %d ('%s'): subgraph index %u out of range (%d subgraphs)", i,
                sig->key ? sig->key : "", sig->subgraph, m->n_subgraphs);
        const gc_subgraph *sg = &m->subgraphs[sig->subgraph];
        for (int io = 0; io < 2; io++) {
            int32_t n = io ? sig->n_outputs : sig->n_inputs;
            const gc_tensor_map *tm = io ? sig->outputs : sig->inputs;
            for (int32_t k = 0; k < n; k++)
                if (tm[k].tensor >= (uint32_t)sg->n_tensors)
                    BAD("signature %d ('%s'): %s '%s' names tensor %u, out of range (%d tensors)", i,
                        sig->key ? sig->key : "", io ? "output" : "input",
                        tm[k].name ? tm[k].name : "", tm[k].tensor, sg->n_tensors);
        }
    }
    return GC_OK;
#undef BAD
}

/* ---- lookups ------------------------------------------------------------------- */

int32_t gc_op_builtin(const gc_model *m, const gc_op *op) {
    return m->opcodes[op->opcode_index].builtin_code;
}

const char *gc_op_name(const gc_model *m, const gc_op *op) {
    if (op->opcode_index >= (uint32_t)m->n_opcodes) return "?";
    const gc_opcode *oc = &m->opcodes[op->opcode_index];
    if (oc->builtin_code == GC_OP_CUSTOM) return oc->custom_code ? oc->custom_code : "CUSTOM";
    return gc_builtin_name(oc->builtin_code);
}

const gc_buffer *gc_tensor_buffer(const gc_model *m, const gc_tensor *t) {
    return t->buffer < (uint32_t)m->n_buffers ? &m->buffers[t->buffer] : NULL;
}

bool gc_tensor_is_const(const gc_model *m, const gc_tensor *t) {
    const gc_buffer *b = gc_tensor_buffer(m, t);
    return t->buffer != 0 && b && b->size > 0;
}

uint64_t gc_tensor_numel(const gc_tensor *t) {
    uint64_t n = 1;
    for (int32_t d = 0; d < t->rank; d++) {
        if (t->shape[d] < 0) return UINT64_MAX;
        if (!gc_mul_u64(n, (uint64_t)t->shape[d], &n)) return UINT64_MAX;
    }
    return n;
}

int32_t gc_find_tensor(const gc_subgraph *sg, const char *name) {
    for (int32_t i = 0; i < sg->n_tensors; i++)
        if (!strcmp(sg->tensors[i].name, name)) return i;
    return -1;
}

/* ---- options ---------------------------------------------------------------------- */

static const gc_opt_field_def *opt_field(const gc_options *o, int field, bool second) {
    const gc_opt_table_def *def = NULL;
    if (second) { if (o->type < gc_opt2_tables_count) def = &gc_opt2_tables[o->type]; }
    else if (o->type < gc_opt_tables_count) def = &gc_opt_tables[o->type];
    if (!def || !def->name || field < 0 || field >= def->n_fields) return NULL;
    return &def->fields[field];
}

int64_t gc_opt_int(const gc_options *o, int field) {
    if (o->v && field >= 0 && field < o->n_v) return o->v[field].i;
    const gc_opt_field_def *f = opt_field(o, field, false);
    return f ? (int64_t)f->dflt : 0;
}

double gc_opt_float(const gc_options *o, int field) {
    if (o->v && field >= 0 && field < o->n_v) return o->v[field].f;
    const gc_opt_field_def *f = opt_field(o, field, false);
    return f ? f->dflt : 0.0;
}

const void *gc_opt_vec(const gc_options *o, int field, uint32_t *n) {
    *n = 0;
    if (!o->v || field < 0 || field >= o->n_v || !(o->present & (1ull << field)))
        return NULL;
    *n = o->v[field].n;
    return o->v[field].vec;
}

void gc_opt_init(gc_model *m, gc_options *o, int type) {
    memset(o, 0, sizeof *o);
    o->type = (uint8_t)type;
    if (!type || type >= gc_opt_tables_count || !gc_opt_tables[type].name) return;
    const gc_opt_table_def *def = &gc_opt_tables[type];
    o->v = gc_arena_alloc(&m->arena, sizeof(gc_optval) * (def->n_fields ? def->n_fields : 1));
    if (!o->v) return;
    o->n_v = def->n_fields;
    for (int k = 0; k < def->n_fields; k++) {
        o->v[k].f = def->fields[k].dflt; o->v[k].i = gc_f2i(def->fields[k].dflt);
    }
}

void gc_opt_set_int(gc_model *m, gc_options *o, int field, int64_t v) {
    (void)m;
    if (!o->v || field < 0 || field >= o->n_v) return;
    o->v[field].i = v; o->v[field].f = (double)v;
    o->present |= 1ull << field;
}

void gc_opt_set_float(gc_model *m, gc_options *o, int field, double v) {
    (void)m;
    if (!o->v || field < 0 || field >= o->n_v) return;
    o->v[field].f = v; o->v[field].i = gc_f2i(v);
    o->present |= 1ull << field;
}

void gc_opt_set_vec(gc_model *m, gc_options *o, int field, const void *data, uint32_t n) {
    const gc_opt_field_def *f = opt_field(o, field, false);
    if (!o->v || !f) return;
    size_t el = 4;
    switch (f->kind) {
    case GC_F_VEC_I64: case GC_F_VEC_F64: el = 8; break;
    case GC_F_VEC_I16: case GC_F_VEC_U16: el = 2; break;
    case GC_F_VEC_U8: case GC_F_VEC_I8: case GC_F_VEC_BOOL: el = 1; break;
    case GC_F_STR: el = 1; break;
    default: break;
    }
    void *p = gc_arena_alloc(&m->arena, n * el + 1);
    if (!p) return;
    if (n) memcpy(p, data, n * el);
    o->v[field].vec = p; o->v[field].n = n;
    o->present |= 1ull << field;
}

int gc_model_warnings(const gc_model *m, gc_str *out) {
    int n = 0;
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        const gc_subgraph *sg = &m->subgraphs[s];
        for (int32_t t = 0; t < sg->n_tensors; t++) {
            const gc_tensor *x = &sg->tensors[t];
            const gc_quant *q = x->quant;
            if (q && q->n_scale > 1 && q->quantized_dimension >= x->rank) {
                if (n++ < 3)
                    gc_str_printf(out, "subgraph %d tensor %d ('%s'): per-channel quantization on dimension %d "
                                  "of a rank-%d tensor: LiteRT refuses to load this model "
                                  "(\"quantized_dimension must be in range\")\n",
                                  s, t, x->name, q->quantized_dimension, x->rank);
            } else if (q && q->n_scale > 1 && q->quantized_dimension < x->rank &&
                       q->n_scale != x->shape[q->quantized_dimension]) {
                if (n++ < 3)
                    gc_str_printf(out, "subgraph %d tensor %d ('%s'): %d scales for dimension %d of size %d\n",
                                  s, t, x->name, q->n_scale, q->quantized_dimension, x->shape[q->quantized_dimension]);
            }
        }
    }
    if (n > 3) gc_str_printf(out, "... and %d more such tensors\n", n - 3);
    return n;
}
