/* edit.c — the graph editing API of model.h: add opcodes/buffers/tensors/ops, rewire,
 * consumers/producers, topological order, pruning, extra outputs, truncation.
 * Signatures are kept consistent with every change that renumbers or changes I/O. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *dup_i32(gc_model *m, const int32_t *p, int n) {
    return gc_arena_dup(&m->arena, p, sizeof(int32_t) * (size_t)(n > 0 ? n : 0));
}

int32_t gc_model_add_opcode(gc_model *m, int32_t builtin, const char *custom, int32_t version) {
    for (int32_t i = 0; i < m->n_opcodes; i++) {
        const gc_opcode *oc = &m->opcodes[i];
        if (oc->builtin_code == builtin && oc->version == version &&
            ((!custom && !oc->custom_code) || (custom && oc->custom_code && !strcmp(custom, oc->custom_code))))
            return i;
    }
    if (!gc_grow((void **)&m->opcodes, &m->cap_opcodes, m->n_opcodes + 1, sizeof *m->opcodes)) return -1;
    gc_opcode *oc = &m->opcodes[m->n_opcodes];
    memset(oc, 0, sizeof *oc);
    oc->builtin_code = builtin;
    oc->deprecated_builtin_code = (int8_t)(builtin < 127 ? builtin : 127);
    oc->custom_code = custom ? gc_arena_strdup(&m->arena, custom) : NULL;
    oc->version = version;
    oc->has_builtin_code = 1;
    return m->n_opcodes++;
}

static int32_t add_buffer(gc_model *m, const void *data, uint64_t size, bool copy) {
    if (m->n_buffers == 0) {   /* buffer 0 is the empty sentinel */
        if (!gc_grow((void **)&m->buffers, &m->cap_buffers, 1, sizeof *m->buffers)) return -1;
        memset(&m->buffers[0], 0, sizeof m->buffers[0]);
        m->n_buffers = 1;
    }
    if (!gc_grow((void **)&m->buffers, &m->cap_buffers, m->n_buffers + 1, sizeof *m->buffers)) return -1;
    gc_buffer *b = &m->buffers[m->n_buffers];
    memset(b, 0, sizeof *b);
    if (size) {
        if (copy) {
            if (size > SIZE_MAX) return -1;
            b->data = gc_arena_dup(&m->arena, data, (size_t)size);
            if (!b->data) return -1;
        } else b->data = data;
        b->size = size;
    }
    return m->n_buffers++;
}

int32_t gc_model_add_buffer(gc_model *m, const void *data, uint64_t size) {
    return add_buffer(m, data, size, true);
}
int32_t gc_model_add_buffer_ref(gc_model *m, const void *data, uint64_t size) {
    return add_buffer(m, data, size, false);
}

int32_t gc_model_add_subgraph(gc_model *m, const char *name) {
    if (!gc_grow((void **)&m->subgraphs, &m->cap_subgraphs, m->n_subgraphs + 1, sizeof *m->subgraphs))
        return -1;
    gc_subgraph *sg = &m->subgraphs[m->n_subgraphs];
    memset(sg, 0, sizeof *sg);
    sg->name = name ? gc_arena_strdup(&m->arena, name) : NULL;
    sg->debug_metadata_index = -1;
    if (m->n_buffers == 0) add_buffer(m, NULL, 0, false), m->n_buffers = 1;
    return m->n_subgraphs++;
}

int32_t gc_sg_add_tensor(gc_model *m, int32_t s, const char *name, int type, int rank,
                         const int32_t *shape, uint32_t buffer) {
    gc_subgraph *sg = &m->subgraphs[s];
    if (!gc_grow((void **)&sg->tensors, &sg->cap_tensors, sg->n_tensors + 1, sizeof *sg->tensors))
        return -1;
    gc_tensor *t = &sg->tensors[sg->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = gc_arena_strdup(&m->arena, name ? name : "");
    t->type = (int8_t)type;
    t->rank = rank;
    t->shape = dup_i32(m, shape, rank);
    t->buffer = buffer;
    t->present = GC_TP_SHAPE | GC_TP_NAME;
    return sg->n_tensors++;
}

int32_t gc_sg_insert_op(gc_model *m, int32_t s, int32_t at, int32_t opcode_index, int n_in,
                        const int32_t *in, int n_out, const int32_t *out) {
    gc_subgraph *sg = &m->subgraphs[s];
    if (at < 0 || at > sg->n_ops) at = sg->n_ops;
    if (!gc_grow((void **)&sg->ops, &sg->cap_ops, sg->n_ops + 1, sizeof *sg->ops)) return -1;
    memmove(&sg->ops[at + 1], &sg->ops[at], sizeof(gc_op) * (size_t)(sg->n_ops - at));
    gc_op *op = &sg->ops[at];
    memset(op, 0, sizeof *op);
    op->opcode_index = (uint32_t)opcode_index;
    op->n_inputs = n_in; op->inputs = dup_i32(m, in, n_in);
    op->n_outputs = n_out; op->outputs = dup_i32(m, out, n_out);
    op->debug_metadata_index = -1;
    int32_t bc = m->opcodes[opcode_index].builtin_code;
    int ot = gc_builtin_options_type(bc);
    if (ot) gc_opt_init(m, &op->opt, ot);
    sg->n_ops++;
    return at;
}

void gc_sg_remove_op(gc_model *m, int32_t s, int32_t o) {
    (void)m;
    gc_subgraph *sg = &m->subgraphs[s];
    if (o < 0 || o >= sg->n_ops) return;
    memmove(&sg->ops[o], &sg->ops[o + 1], sizeof(gc_op) * (size_t)(sg->n_ops - o - 1));
    sg->n_ops--;
}

/* Signatures on subgraph s whose output maps name tensors no longer outputs are
 * rebuilt to follow the subgraph outputs (names kept where the tensor stays). */
static void sync_signatures(gc_model *m, int32_t s) {
    gc_subgraph *sg = &m->subgraphs[s];
    for (int32_t i = 0; i < m->n_signatures; i++) {
        gc_signature *sig = &m->signatures[i];
        if (sig->subgraph != (uint32_t)s) continue;
        for (int io = 0; io < 2; io++) {
            int32_t n = io ? sg->n_outputs : sg->n_inputs;
            const int32_t *ts = io ? sg->outputs : sg->inputs;
            gc_tensor_map *old = io ? sig->outputs : sig->inputs;
            int32_t n_old = io ? sig->n_outputs : sig->n_inputs;
            gc_tensor_map *tm = gc_arena_alloc(&m->arena, sizeof *tm * (size_t)(n ? n : 1));
            if (!tm) return;
            for (int32_t k = 0; k < n; k++) {
                tm[k].tensor = (uint32_t)ts[k];
                tm[k].name = NULL;
                for (int32_t j = 0; j < n_old; j++)
                    if (old[j].tensor == (uint32_t)ts[k]) { tm[k].name = old[j].name; break; }
                if (!tm[k].name) tm[k].name = sg->tensors[ts[k]].name;
            }
            if (io) { sig->outputs = tm; sig->n_outputs = n; }
            else { sig->inputs = tm; sig->n_inputs = n; }
        }
    }
}

void gc_sg_set_io(gc_model *m, int32_t s, int n_in, const int32_t *in, int n_out, const int32_t *out) {
    gc_subgraph *sg = &m->subgraphs[s];
    if (in) { sg->inputs = dup_i32(m, in, n_in); sg->n_inputs = n_in; }
    if (out) { sg->outputs = dup_i32(m, out, n_out); sg->n_outputs = n_out; }
    sync_signatures(m, s);
}

void gc_sg_replace_uses(gc_model *m, int32_t s, int32_t from, int32_t to) {
    gc_subgraph *sg = &m->subgraphs[s];
    for (int32_t o = 0; o < sg->n_ops; o++)
        for (int32_t k = 0; k < sg->ops[o].n_inputs; k++)
            if (sg->ops[o].inputs[k] == from) sg->ops[o].inputs[k] = to;
    bool changed = false;
    for (int32_t k = 0; k < sg->n_outputs; k++)
        if (sg->outputs[k] == from) { sg->outputs[k] = to; changed = true; }
    if (changed) sync_signatures(m, s);
}

int32_t gc_sg_consumers(const gc_model *m, int32_t s, int32_t t, int32_t *ops, int32_t cap) {
    const gc_subgraph *sg = &m->subgraphs[s];
    int32_t n = 0;
    for (int32_t o = 0; o < sg->n_ops; o++)
        for (int32_t k = 0; k < sg->ops[o].n_inputs; k++)
            if (sg->ops[o].inputs[k] == t) {
                if (n < cap) ops[n] = o;
                n++;
                break;
            }
    return n;
}

int32_t gc_sg_producer(const gc_model *m, int32_t s, int32_t t) {
    const gc_subgraph *sg = &m->subgraphs[s];
    for (int32_t o = 0; o < sg->n_ops; o++)
        for (int32_t k = 0; k < sg->ops[o].n_outputs; k++)
            if (sg->ops[o].outputs[k] == t) return o;
    return -1;
}

gc_status gc_sg_topo_order(const gc_model *m, int32_t s, int32_t *order) {
    const gc_subgraph *sg = &m->subgraphs[s];
    int32_t n = sg->n_ops, nt = sg->n_tensors;
    int32_t *prod = malloc(sizeof(int32_t) * (size_t)(nt ? nt : 1));
    int32_t *indeg = calloc((size_t)(n ? n : 1), sizeof(int32_t));
    uint8_t *done = calloc((size_t)(n ? n : 1), 1);
    if (!prod || !indeg || !done) { free(prod); free(indeg); free(done); return GC_ERR_NOMEM; }
    for (int32_t t = 0; t < nt; t++) prod[t] = -1;
    for (int32_t o = 0; o < n; o++)
        for (int32_t k = 0; k < sg->ops[o].n_outputs; k++) {
            int32_t t = sg->ops[o].outputs[k];
            if (t >= 0 && t < nt) prod[t] = o;
        }
    for (int32_t o = 0; o < n; o++)
        for (int32_t k = 0; k < sg->ops[o].n_inputs; k++) {
            int32_t t = sg->ops[o].inputs[k];
            if (t >= 0 && t < nt && prod[t] >= 0 && prod[t] != o) indeg[o]++;
        }
    /* Stable Kahn: repeatedly take the first ready op in file order. O(n^2) worst
     * case, but file order is nearly always already topological: one pass. */
    int32_t cnt = 0, start = 0;
    while (cnt < n) {
        int32_t pick = -1;
        for (int32_t o = start; o < n; o++) if (!done[o] && indeg[o] == 0) { pick = o; break; }
        if (pick < 0) for (int32_t o = 0; o < start; o++) if (!done[o] && indeg[o] == 0) { pick = o; break; }
        if (pick < 0) { free(prod); free(indeg); free(done); return GC_ERR_FORMAT; }
        done[pick] = 1; order[cnt++] = pick; start = pick;
        const gc_op *op = &sg->ops[pick];
        for (int32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t < 0 || t >= nt) continue;
            for (int32_t o = 0; o < n; o++) {
                if (done[o]) continue;
                for (int32_t j = 0; j < sg->ops[o].n_inputs; j++)
                    if (sg->ops[o].inputs[j] == t) indeg[o]--;
            }
        }
    }
    free(prod); free(indeg); free(done);
    return GC_OK;
}

gc_status gc_sg_toposort(gc_model *m, int32_t s) {
    gc_subgraph *sg = &m->subgraphs[s];
    if (sg->n_ops < 2) return GC_OK;
    int32_t *order = malloc(sizeof(int32_t) * (size_t)sg->n_ops);
    gc_op *ops = malloc(sizeof(gc_op) * (size_t)sg->n_ops);
    if (!order || !ops) { free(order); free(ops); return GC_ERR_NOMEM; }
    gc_status st = gc_sg_topo_order(m, s, order);
    if (st == GC_OK) {
        for (int32_t i = 0; i < sg->n_ops; i++) ops[i] = sg->ops[order[i]];
        memcpy(sg->ops, ops, sizeof(gc_op) * (size_t)sg->n_ops);
    }
    free(order); free(ops);
    return st;
}

/* Mark ops needed for the subgraph outputs (walking producers backwards). */
static void mark_needed(const gc_subgraph *sg, uint8_t *op_keep, uint8_t *t_keep) {
    int32_t nt = sg->n_tensors;
    for (int32_t k = 0; k < sg->n_outputs; k++) t_keep[sg->outputs[k]] = 1;
    /* ops in reverse file order: one pass suffices for topologically sorted ops,
     * repeat until stable otherwise */
    bool changed = true;
    while (changed) {
        changed = false;
        for (int32_t o = sg->n_ops - 1; o >= 0; o--) {
            if (op_keep[o]) continue;
            const gc_op *op = &sg->ops[o];
            bool need = false;
            for (int32_t k = 0; k < op->n_outputs; k++) {
                int32_t t = op->outputs[k];
                if (t >= 0 && t < nt && t_keep[t]) need = true;
            }
            /* ops that update variables have effects beyond their outputs */
            for (int32_t k = 0; k < op->n_inputs; k++) {
                int32_t t = op->inputs[k];
                if (t >= 0 && t < nt && sg->tensors[t].is_variable && op->n_outputs == 0) need = true;
            }
            if (!need) continue;
            op_keep[o] = 1; changed = true;
            for (int32_t k = 0; k < op->n_inputs; k++)
                if (op->inputs[k] >= 0 && op->inputs[k] < nt) t_keep[op->inputs[k]] = 1;
            for (int32_t k = 0; k < op->n_outputs; k++)
                if (op->outputs[k] >= 0 && op->outputs[k] < nt) t_keep[op->outputs[k]] = 1;
            for (int32_t k = 0; k < op->n_intermediates; k++)
                if (op->intermediates[k] >= 0 && op->intermediates[k] < nt) t_keep[op->intermediates[k]] = 1;
        }
    }
}

static void renumber_list(int32_t *v, int32_t n, const int32_t *map) {
    for (int32_t k = 0; k < n; k++) if (v[k] >= 0) v[k] = map[v[k]];
}

void gc_model_prune(gc_model *m) {
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        gc_subgraph *sg = &m->subgraphs[s];
        int32_t nt = sg->n_tensors;
        uint8_t *op_keep = calloc((size_t)sg->n_ops + 1, 1);
        uint8_t *t_keep = calloc((size_t)nt + 1, 1);
        int32_t *map = malloc(sizeof(int32_t) * ((size_t)nt + 1));
        if (!op_keep || !t_keep || !map) { free(op_keep); free(t_keep); free(map); return; }
        mark_needed(sg, op_keep, t_keep);
        for (int32_t k = 0; k < sg->n_inputs; k++) t_keep[sg->inputs[k]] = 1;
        for (int32_t o = 0; o < sg->n_ops; o++)
            if (op_keep[o] && sg->ops[o].n_outputs == 0) op_keep[o] = 1;
        /* tensors referenced by blockwise quantization stay with their owner */
        for (int32_t t = 0; t < nt; t++) {
            const gc_quant *q = sg->tensors[t].quant;
            if (t_keep[t] && q && q->details_type == 2) {
                if ((q->bw_present & 1) && q->bw_scales >= 0) t_keep[q->bw_scales] = 1;
                if ((q->bw_present & 2) && q->bw_zero_points >= 0) t_keep[q->bw_zero_points] = 1;
            }
        }
        /* other subgraphs' signatures may name tensors here: keep those too */
        for (int32_t i = 0; i < m->n_signatures; i++) {
            const gc_signature *sig = &m->signatures[i];
            if (sig->subgraph != (uint32_t)s) continue;
            for (int32_t k = 0; k < sig->n_inputs; k++) t_keep[sig->inputs[k].tensor] = 1;
        }
        int32_t no = 0;
        for (int32_t o = 0; o < sg->n_ops; o++) if (op_keep[o]) sg->ops[no++] = sg->ops[o];
        sg->n_ops = no;
        int32_t nk = 0;
        for (int32_t t = 0; t < nt; t++) {
            map[t] = t_keep[t] ? nk : -1;
            if (t_keep[t]) sg->tensors[nk++] = sg->tensors[t];
        }
        sg->n_tensors = nk;
        for (int32_t o = 0; o < sg->n_ops; o++) {
            gc_op *op = &sg->ops[o];
            renumber_list(op->inputs, op->n_inputs, map);
            renumber_list(op->outputs, op->n_outputs, map);
            renumber_list(op->intermediates, op->n_intermediates, map);
        }
        renumber_list(sg->inputs, sg->n_inputs, map);
        renumber_list(sg->outputs, sg->n_outputs, map);
        for (int32_t t = 0; t < nk; t++) {
            gc_quant *q = sg->tensors[t].quant;
            if (q && q->details_type == 2) {
                if ((q->bw_present & 1) && q->bw_scales >= 0) q->bw_scales = map[q->bw_scales];
                if ((q->bw_present & 2) && q->bw_zero_points >= 0) q->bw_zero_points = map[q->bw_zero_points];
            }
        }
        for (int32_t i = 0; i < m->n_signatures; i++) {
            gc_signature *sig = &m->signatures[i];
            if (sig->subgraph != (uint32_t)s) continue;
            for (int32_t k = 0; k < sig->n_inputs; k++) sig->inputs[k].tensor = (uint32_t)map[sig->inputs[k].tensor];
            for (int32_t k = 0; k < sig->n_outputs; k++) sig->outputs[k].tensor = (uint32_t)map[sig->outputs[k].tensor];
        }
        free(op_keep); free(t_keep); free(map);
    }
    /* operator codes nobody uses any more; renumber */
    if (m->n_opcodes) {
        int32_t *omap = malloc(sizeof(int32_t) * (size_t)m->n_opcodes);
        uint8_t *used = calloc((size_t)m->n_opcodes, 1);
        if (omap && used) {
            for (int32_t s = 0; s < m->n_subgraphs; s++)
                for (int32_t o = 0; o < m->subgraphs[s].n_ops; o++) used[m->subgraphs[s].ops[o].opcode_index] = 1;
            int32_t k = 0;
            for (int32_t i = 0; i < m->n_opcodes; i++) {
                omap[i] = used[i] ? k : -1;
                if (used[i]) m->opcodes[k++] = m->opcodes[i];
            }
            m->n_opcodes = k;
            for (int32_t s = 0; s < m->n_subgraphs; s++)
                for (int32_t o = 0; o < m->subgraphs[s].n_ops; o++) {
                    gc_op *op = &m->subgraphs[s].ops[o];
                    op->opcode_index = (uint32_t)omap[op->opcode_index];
                }
        }
        free(omap); free(used);
    }
    /* buffers: keep 0, those used by tensors and metadata; renumber */
    int32_t nb = m->n_buffers;
    if (nb <= 1) return;
    uint8_t *keep = calloc((size_t)nb, 1);
    int32_t *map = malloc(sizeof(int32_t) * (size_t)nb);
    if (!keep || !map) { free(keep); free(map); return; }
    keep[0] = 1;
    for (int32_t s = 0; s < m->n_subgraphs; s++)
        for (int32_t t = 0; t < m->subgraphs[s].n_tensors; t++) keep[m->subgraphs[s].tensors[t].buffer] = 1;
    for (int32_t i = 0; i < m->n_metadata; i++) keep[m->metadata[i].buffer] = 1;
    for (int32_t i = 0; i < m->n_metadata_buffer; i++) keep[m->metadata_buffer[i]] = 1;
    int32_t k = 0;
    for (int32_t b = 0; b < nb; b++) {
        map[b] = keep[b] ? k : -1;
        if (keep[b]) m->buffers[k++] = m->buffers[b];
    }
    m->n_buffers = k;
    for (int32_t s = 0; s < m->n_subgraphs; s++)
        for (int32_t t = 0; t < m->subgraphs[s].n_tensors; t++) {
            gc_tensor *x = &m->subgraphs[s].tensors[t];
            x->buffer = (uint32_t)map[x->buffer];
        }
    for (int32_t i = 0; i < m->n_metadata; i++) m->metadata[i].buffer = (uint32_t)map[m->metadata[i].buffer];
    for (int32_t i = 0; i < m->n_metadata_buffer; i++) m->metadata_buffer[i] = map[m->metadata_buffer[i]];
    free(keep); free(map);
}

gc_status gc_model_add_outputs(gc_model *m, int32_t s, int n, const int32_t *tensors) {
    gc_subgraph *sg = &m->subgraphs[s];
    int32_t *out = malloc(sizeof(int32_t) * (size_t)(sg->n_outputs + n));
    if (!out) return GC_ERR_NOMEM;
    int32_t k = 0;
    for (int32_t i = 0; i < sg->n_outputs; i++) out[k++] = sg->outputs[i];
    for (int i = 0; i < n; i++) {
        if (tensors[i] < 0 || tensors[i] >= sg->n_tensors) { free(out); return GC_ERR_USAGE; }
        bool dup = false;
        for (int32_t j = 0; j < k; j++) if (out[j] == tensors[i]) dup = true;
        if (!dup) out[k++] = tensors[i];
    }
    gc_sg_set_io(m, s, 0, NULL, k, out);
    free(out);
    return GC_OK;
}

gc_status gc_model_truncate_at(gc_model *m, int32_t s, int n, const int32_t *tensors) {
    for (int i = 0; i < n; i++)
        if (tensors[i] < 0 || tensors[i] >= m->subgraphs[s].n_tensors) return GC_ERR_USAGE;
    gc_sg_set_io(m, s, 0, NULL, n, tensors);
    gc_model_prune(m);
    return GC_OK;
}
