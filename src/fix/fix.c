/* fix.c — the pass registry and the driver (fix.h): apply passes site by site, re-check
 * each site with gc_check and keep it only when the GPU refuses fewer nodes, roll it
 * back otherwise, repeat to a fixpoint, prune, check again.
 *
 * Rollback: before a site the driver snapshots what a pass may change through the
 * editing API (fix_int.h lists the rules): the subgraph's op array with every op's
 * input/output index lists, its tensor array, its I/O lists, the signatures, and the
 * counts of buffers and opcodes (passes only append those). Restoring the snapshot gives
 * back the model exactly as it was (memory the site allocated stays in the model's
 * arena until the model is freed).
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the registry ------------------------------------------------------------------ */

static const gc_fix_pass *const registry[] = {
    &gc_fix_densify_const,        /* fix.densify (first: what it makes constant, const_fold can fold on) */
    &gc_fix_broadcast_to_const,   /* fix.broadcast_to.const */
    &gc_fix_const_fold,           /* fix.const_fold (early: no later pass rewrites ops a fold removes) */
    &gc_fix_dequantize_const,     /* fix.dequantize.const (before the BATCH_MATMUL passes: a folded rank-2 rhs is a constant) */
    &gc_fix_broadcast_to_tile,    /* fix.broadcast_to.runtime */
    &gc_fix_gather_nd_const,      /* fix.gather_nd */
    &gc_fix_rank5_fold,           /* fix.rank5 */
    &gc_fix_rank5_hoist,          /* fix.rank5 (after rank5_fold, which fix.rank5 names first: elementwise/last-axis ops before the RESHAPE) */
    &gc_fix_split_to_slices,      /* fix.split.slices */
    &gc_fix_unpack_to_slices,     /* fix.unpack.slices (UNPACK feeding a CONCATENATION: wrong on the GPU) */
    &gc_fix_fc_runtime_bmm,       /* fix.fc.runtime_bmm (FULLY_CONNECTED with run-time weights: wrong on the GPU) */
    &gc_fix_output_copy,          /* fix.output.copy (a FULLY_CONNECTED output also read in the graph: wrong on the GPU) */
    &gc_fix_pad_batch,            /* fix.pad.batch (PAD along the batch axis: wrong on the GPU) */
    &gc_fix_select_to_arith,      /* fix.select.arith */
    &gc_fix_squeeze_to_reshape,   /* fix.squeeze.reshape */
    &gc_fix_strided_slice_canon,  /* fix.strided_slice.no_shrink */
    &gc_fix_strided_slice_lower,  /* fix.strided_slice.version (bool slices as SLICE v1, offset/masks resolved) */
    &gc_fix_gather_flatten,       /* fix.gather.flatten_indices */
    &gc_fix_gather_const_rows,    /* fix.gather.const_indices */
    &gc_fix_pad_rank4,            /* fix.pad.rank4 */
    &gc_fix_arg_min_to_max,       /* fix.arg_min */
    &gc_fix_identical_inputs,     /* fix.identical_inputs */
    &gc_fix_transpose_conv_act,   /* fix.transpose_conv.unfuse_activation */
    &gc_fix_transpose_conv_crop,  /* fix.transpose_conv.valid_crop (ML Drift: 3x3 stride 2 SAME miscomputes) */
    &gc_fix_rank_align,           /* fix.broadcast.rank4 (classic.mixed_rank_broadcast) */
    &gc_fix_bmm_mask_expand,      /* fix.bmm_mask.expand (fp16.bmm_mask_broadcast) */
    &gc_fix_bmm_adj_explicit,     /* fix.bmm.adj_explicit (classic.bmm_adj_ignored) */
    &gc_fix_bmm_batch_explicit,   /* fix.bmm.batch_explicit (ML Drift: unequal batch dims miscompute) */
    &gc_fix_dwconv_k1_multiplier, /* fix.depthwise.k1_multiplier (ML Drift: 1x1 depthwise with multiplier > 1 miscomputes) */
    &gc_fix_conv_group_dense,     /* fix.conv.group_dense (ML Drift: grouped conv with < 4 outputs per group miscomputes) */
    &gc_fix_conv_out_split,       /* fix.conv.split_out_channels (LiteRT.js fp16: Winograd-eligible 3x3 convs miscompute) */
    &gc_fix_pow_square,           /* fix.pow.square (NaN for negative bases on the GPU) */
    &gc_fix_cumsum_canon,     /* fix.cumsum.canon (exclusive, reverse, negative axis, axis 0: wrong on the GPU) */
};
#define N_PASSES ((int)(sizeof registry / sizeof registry[0]))

int gc_fix_n_passes(void) { return N_PASSES; }
const gc_fix_pass *gc_fix_pass_at(int i) { return i >= 0 && i < N_PASSES ? registry[i] : NULL; }

const gc_fix_pass *gc_fix_pass_find(const char *name) {
    for (int i = 0; i < N_PASSES; i++)
        if (!strcmp(name, registry[i]->id) || !strcmp(name, registry[i]->fix_id)) return registry[i];
    return NULL;
}

const char *gc_fix_exactness_name(gc_fix_exactness e) {
    switch (e) {
    case GC_FIX_BIT_EXACT: return "bit-exact";
    case GC_FIX_EXACT_FINITE: return "exact for finite values";
    case GC_FIX_TOLERANCE: return "within tolerance";
    }
    return "?";
}

gc_fix_opts gc_fix_opts_default(void) {
    gc_fix_opts o;
    memset(&o, 0, sizeof o);
    o.target = GC_TARGET_MLDRIFT;
    o.max_rounds = 8;
    o.max_const_bytes = 64ull << 20;
    return o;
}

/* Does the comma list name pass p? ("all" names every pass) */
static bool list_has(const char *list, const gc_fix_pass *p) {
    if (!list) return false;
    const char *s = list;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if ((n == 3 && !strncmp(s, "all", 3)) || (n == strlen(p->id) && !strncmp(s, p->id, n)) ||
            (n == strlen(p->fix_id) && !strncmp(s, p->fix_id, n)))
            return true;
        if (!e) break;
        s = e + 1;
    }
    return false;
}

const char *gc_fix_list_unknown(const char *list, char *buf, size_t bn) {
    if (!list) return NULL;
    const char *s = list;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(n < 127 ? n : 127), s);
        if (n && strcmp(name, "all") && !gc_fix_pass_find(name)) {
            snprintf(buf, bn, "%s", name);
            return buf;
        }
        if (!e) break;
        s = e + 1;
    }
    return NULL;
}

/* ---- snapshots ------------------------------------------------------------------------ */

typedef struct {
    int32_t sg;
    int32_t n_ops; gc_op *ops; int32_t *io;      /* io: every op's inputs then outputs */
    int32_t n_tensors; gc_tensor *tensors;
    int32_t n_in, n_out; int32_t *in_ptr, *out_ptr, *in_vals, *out_vals;
    int32_t n_buffers, n_opcodes;
    gc_signature *sigs;
} snapshot;

static void snap_free(snapshot *s) {
    free(s->ops); free(s->io); free(s->tensors); free(s->in_vals); free(s->out_vals); free(s->sigs);
    memset(s, 0, sizeof *s);
}

static bool snap_take(const gc_model *m, int32_t sgi, snapshot *s) {
    memset(s, 0, sizeof *s);
    const gc_subgraph *sg = &m->subgraphs[sgi];
    s->sg = sgi;
    s->n_ops = sg->n_ops; s->n_tensors = sg->n_tensors;
    s->n_buffers = m->n_buffers; s->n_opcodes = m->n_opcodes;
    size_t nio = 0;
    for (int32_t o = 0; o < sg->n_ops; o++) nio += (size_t)sg->ops[o].n_inputs + (size_t)sg->ops[o].n_outputs;
    s->ops = malloc(sizeof(gc_op) * (size_t)(sg->n_ops + 1));
    s->io = malloc(sizeof(int32_t) * (nio + 1));
    s->tensors = malloc(sizeof(gc_tensor) * (size_t)(sg->n_tensors + 1));
    s->in_vals = malloc(sizeof(int32_t) * (size_t)(sg->n_inputs + 1));
    s->out_vals = malloc(sizeof(int32_t) * (size_t)(sg->n_outputs + 1));
    s->sigs = malloc(sizeof(gc_signature) * (size_t)(m->n_signatures + 1));
    if (!s->ops || !s->io || !s->tensors || !s->in_vals || !s->out_vals || !s->sigs) { snap_free(s); return false; }
    if (sg->n_ops) memcpy(s->ops, sg->ops, sizeof(gc_op) * (size_t)sg->n_ops);
    size_t k = 0;
    for (int32_t o = 0; o < sg->n_ops; o++) {
        const gc_op *op = &sg->ops[o];
        for (int32_t i = 0; i < op->n_inputs; i++) s->io[k++] = op->inputs[i];
        for (int32_t i = 0; i < op->n_outputs; i++) s->io[k++] = op->outputs[i];
    }
    if (sg->n_tensors) memcpy(s->tensors, sg->tensors, sizeof(gc_tensor) * (size_t)sg->n_tensors);
    s->n_in = sg->n_inputs; s->n_out = sg->n_outputs;
    s->in_ptr = sg->inputs; s->out_ptr = sg->outputs;
    if (sg->n_inputs) memcpy(s->in_vals, sg->inputs, sizeof(int32_t) * (size_t)sg->n_inputs);
    if (sg->n_outputs) memcpy(s->out_vals, sg->outputs, sizeof(int32_t) * (size_t)sg->n_outputs);
    if (m->n_signatures) memcpy(s->sigs, m->signatures, sizeof(gc_signature) * (size_t)m->n_signatures);
    return true;
}

static void snap_restore(gc_model *m, const snapshot *s) {
    gc_subgraph *sg = &m->subgraphs[s->sg];
    /* capacities never shrink, so the saved counts fit the current arrays */
    sg->n_ops = s->n_ops;
    if (s->n_ops) memcpy(sg->ops, s->ops, sizeof(gc_op) * (size_t)s->n_ops);
    size_t k = 0;
    for (int32_t o = 0; o < sg->n_ops; o++) {
        gc_op *op = &sg->ops[o];
        for (int32_t i = 0; i < op->n_inputs; i++) op->inputs[i] = s->io[k++];
        for (int32_t i = 0; i < op->n_outputs; i++) op->outputs[i] = s->io[k++];
    }
    sg->n_tensors = s->n_tensors;
    if (s->n_tensors) memcpy(sg->tensors, s->tensors, sizeof(gc_tensor) * (size_t)s->n_tensors);
    sg->n_inputs = s->n_in; sg->n_outputs = s->n_out;
    sg->inputs = s->in_ptr; sg->outputs = s->out_ptr;
    if (s->n_in) memcpy(sg->inputs, s->in_vals, sizeof(int32_t) * (size_t)s->n_in);
    if (s->n_out) memcpy(sg->outputs, s->out_vals, sizeof(int32_t) * (size_t)s->n_out);
    if (m->n_signatures) memcpy(m->signatures, s->sigs, sizeof(gc_signature) * (size_t)m->n_signatures);
    m->n_buffers = s->n_buffers;
    m->n_opcodes = s->n_opcodes;
}

/* ---- check helpers ------------------------------------------------------------------- */

static int32_t count_refused(const gc_check_result *r) {
    int32_t n = 0;
    for (int32_t i = 0; i < r->n_nodes; i++) if (r->nodes[i].state == GC_NODE_REJECTED) n++;
    return n;
}

/* a risk rule of pass p (p->risk or p->risk2) */
static bool is_pass_risk(const gc_fix_pass *p, const char *rule) {
    return p && rule && ((p->risk && !strcmp(rule, p->risk)) || (p->risk2 && !strcmp(rule, p->risk2)));
}

static const gc_check_node *node_of(const gc_check_result *r, int32_t sg, int32_t op);

/* a node the measured facts call wrong whose fact names p's fix id as its fix */
static bool is_pass_wrong(const gc_check_node *n, const gc_fix_pass *p) {
    return p && p->fix_id && n->numerics == GC_NUM_WRONG && n->evidence && n->evidence->fix &&
           !strcmp(n->evidence->fix, p->fix_id);
}

/* the pass's risk notes plus the nodes its measured facts call wrong */
static int32_t count_risk(const gc_check_result *r, const gc_fix_pass *p) {
    int32_t n = 0;
    for (int32_t i = 0; i < r->n_risks; i++) n += is_pass_risk(p, r->risks[i].rule);
    for (int32_t i = 0; i < r->n_nodes; i++) n += is_pass_wrong(&r->nodes[i], p);
    return n;
}

static bool has_risk(const gc_check_result *r, int32_t sg, int32_t node, const gc_fix_pass *p) {
    for (int32_t i = 0; i < r->n_risks; i++)
        if (r->risks[i].subgraph == sg && r->risks[i].node == node && is_pass_risk(p, r->risks[i].rule))
            return true;
    const gc_check_node *n = node_of(r, sg, node);
    return n && is_pass_wrong(n, p);
}

/* a consumer of one of op's outputs has a measured fact (wrong numbers or a kernel-build
 * failure) that names p's fix: the rewrite belongs at the producer (init.split_concat: a
 * CONCATENATION of SPLIT outputs fails to build; split_to_slices rewrites the SPLIT) */
static bool consumer_names_fix(const gc_model *m, const gc_check_result *r, int32_t sgi, int32_t op,
                               const gc_fix_pass *p) {
    if (!p || !p->fix_id) return false;
    const gc_subgraph *sg = &m->subgraphs[sgi];
    const gc_op *o = &sg->ops[op];
    for (int32_t j = 0; j < sg->n_ops; j++) {
        const gc_op *u = &sg->ops[j];
        bool reads = false;
        for (int32_t a = 0; a < u->n_inputs && !reads; a++)
            for (int32_t k = 0; k < o->n_outputs && !reads; k++)
                reads = u->inputs[a] >= 0 && u->inputs[a] == o->outputs[k];
        if (!reads) continue;
        const gc_check_node *n = node_of(r, sgi, j);
        if (n && n->evidence && n->evidence->fix && !strcmp(n->evidence->fix, p->fix_id)) return true;
    }
    return false;
}

/* gc_check for the driver: the target, and the runtime's facts on ML Drift */
static gc_check_result *check_model(const gc_model *m, const gc_fix_opts *o, char *err, size_t errlen) {
    bool ml = o->target == GC_TARGET_MLDRIFT;
    gc_check_opts co = { .runtime = ml ? o->runtime : NULL, .precision = ml ? o->precision : 0 };
    return gc_check_ex(m, o->target, &co, err, errlen);
}

/* What the driver compares before and after a site: the checker's verdict. */
typedef struct {
    bool fatal;                 /* delegate init fails: everything on the CPU */
    int32_t refused;            /* nodes the GPU refuses */
    int32_t cpu;                /* counted nodes not on the GPU */
    int32_t partitions;         /* delegated partitions */
    int32_t segments;           /* CPU + GPU node subsets the interpreter runs */
    int32_t risk;               /* nodes with the pass's risk */
    int32_t fatal_nodes;        /* nodes whose kernel would fail to build */
} verdict;

static verdict verdict_of(const gc_check_result *r, const gc_fix_pass *p) {
    verdict v;
    v.fatal = r->fatal != NULL;
    v.refused = count_refused(r);
    v.cpu = r->total_nodes - r->gpu_nodes;
    v.partitions = r->partitions;
    v.segments = 0;
    for (int32_t s = 0; s < r->n_subgraphs; s++)
        if (!r->subgraphs[s].skipped) v.segments += r->subgraphs[s].node_subsets;
    v.risk = count_risk(r, p);
    v.fatal_nodes = 0;
    for (int32_t i = 0; i < r->n_nodes; i++) v.fatal_nodes += r->nodes[i].fatal;
    return v;
}

/* The GPU work is cut into more pieces: a subgraph that already had GPU nodes gets more
 * delegated partitions or more CPU/GPU node subsets. A subgraph getting its first GPU
 * nodes is not a split (its CPU node count drops). */
static bool more_pieces(const gc_check_result *a, const gc_check_result *b) {
    if (a->n_subgraphs != b->n_subgraphs) return b->partitions > a->partitions;
    for (int32_t s = 0; s < a->n_subgraphs; s++) {
        const gc_check_subgraph *x = &a->subgraphs[s], *y = &b->subgraphs[s];
        if (x->skipped || y->skipped || x->gpu_nodes == 0) continue;
        if (y->delegated > x->delegated || y->node_subsets > x->node_subsets) return true;
    }
    return false;
}

static void residency(const gc_check_result *r, gc_fix_residency *o) {
    o->gpu_nodes = r->gpu_nodes; o->total_nodes = r->total_nodes; o->partitions = r->partitions;
    o->refused = count_refused(r); o->gpu_clean = r->gpu_clean;
}

/* the check node of (sg, op); NULL when the result does not list it */
static const gc_check_node *node_of(const gc_check_result *r, int32_t sg, int32_t op) {
    /* nodes are in (subgraph, index) order: binary search */
    int32_t lo = 0, hi = r->n_nodes - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        const gc_check_node *n = &r->nodes[mid];
        if (n->subgraph == sg && n->index == op) return n;
        if (n->subgraph < sg || (n->subgraph == sg && n->index < op)) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

/* ops whose inputs are produced later in the list (the rewrite inserted out of order) */
static bool is_topological(const gc_model *m, int32_t sgi) {
    const gc_subgraph *sg = &m->subgraphs[sgi];
    int32_t *pos = malloc(sizeof(int32_t) * (size_t)(sg->n_tensors + 1));
    if (!pos) return false;
    for (int32_t t = 0; t < sg->n_tensors; t++) pos[t] = -1;
    for (int32_t o = 0; o < sg->n_ops; o++)
        for (int32_t k = 0; k < sg->ops[o].n_outputs; k++)
            if (sg->ops[o].outputs[k] >= 0 && sg->ops[o].outputs[k] < sg->n_tensors) pos[sg->ops[o].outputs[k]] = o;
    bool ok = true;
    for (int32_t o = 0; o < sg->n_ops && ok; o++)
        for (int32_t k = 0; k < sg->ops[o].n_inputs; k++) {
            int32_t t = sg->ops[o].inputs[k];
            if (t >= 0 && t < sg->n_tensors && pos[t] > o) { ok = false; break; }
        }
    free(pos);
    return ok;
}

/* A node the GPU accepts can still fail when its kernel is built (classic parse-time
 * checks, ML Drift kernel-creation failures seen on the device); gc_check reports that
 * only for nodes inside the delegated partition. A new node outside it today could
 * drop the whole delegation once later rewrites bring it in, so each new node is also
 * checked alone: a one-op model (its runtime inputs as model inputs, its constants
 * shared) where it is the delegated partition. Only an init failure counts here —
 * refusals that depend on graph context (classic comparison/CAST rules) do not.
 * Fills why and returns true when the node would break initialization. */
static bool isolated_init_failure(const gc_model *m, const gc_fix_opts *o, int32_t sgi, int32_t op, char *why,
                                  size_t n) {
    const gc_subgraph *sg = &m->subgraphs[sgi];
    const gc_op *src = &sg->ops[op];
    const gc_opcode *oc = gc_op_code(m, src);
    if (oc->custom_code || src->n_inputs > 64 || src->n_outputs > 64) return false;
    gc_model *mm = gc_model_new();
    if (!mm) return false;
    int32_t s = gc_model_add_subgraph(mm, "node");
    int32_t in[64], out[64], rt[64];
    int n_rt = 0;
    bool ok = s >= 0;
    for (int32_t k = 0; ok && k < src->n_inputs; k++) {
        int32_t t = src->inputs[k];
        if (t < 0) { in[k] = -1; continue; }
        const gc_tensor *x = &sg->tensors[t];
        int32_t b = 0;
        if (gc_tensor_is_const(m, x)) {
            const gc_buffer *buf = gc_tensor_buffer(m, x);
            b = gc_model_add_buffer_ref(mm, buf->data, buf->size);
        }
        in[k] = b < 0 ? -1 : gc_sg_add_tensor(mm, s, x->name, x->type, x->rank, x->shape, (uint32_t)b);
        if (in[k] < 0) { ok = false; break; }
        mm->subgraphs[s].tensors[in[k]].quant = x->quant;
        if (!b) rt[n_rt++] = in[k];
    }
    for (int32_t k = 0; ok && k < src->n_outputs; k++) {
        const gc_tensor *y = &sg->tensors[src->outputs[k]];
        out[k] = gc_sg_add_tensor(mm, s, y->name, y->type, y->rank, y->shape, 0);
        if (out[k] < 0) ok = false;
        else mm->subgraphs[s].tensors[out[k]].quant = y->quant;
    }
    int32_t moc = ok ? gc_model_add_opcode(mm, oc->builtin_code, NULL, oc->version) : -1;
    int32_t k = moc >= 0 ? gc_sg_insert_op(mm, s, 0, moc, src->n_inputs, in, src->n_outputs, out) : -1;
    bool failed = false;
    if (k >= 0) {
        mm->subgraphs[s].ops[k].opt = src->opt;
        mm->subgraphs[s].ops[k].opt2 = src->opt2;
        gc_sg_set_io(mm, s, n_rt, rt, src->n_outputs, out);
        char err[128];
        gc_check_result *r = check_model(mm, o, err, sizeof err);
        if (r && r->fatal) {
            failed = true;
            snprintf(why, n, "%s", r->fatal);
        }
        gc_check_free(r);
    }
    gc_model_free(mm);
    return failed;
}

/* ---- result building ----------------------------------------------------------------- */

typedef struct {
    gc_fix_result *r;
    int32_t cap_changes, cap_declines;
    /* sites already declined: (pass, subgraph, first output tensor) */
    struct { const gc_fix_pass *p; int32_t sg, t; } *seen;
    int32_t n_seen, cap_seen;
    bool oom;
} builder;

static gc_fix_pass_stat *stat_of(gc_fix_result *r, const gc_fix_pass *p) {
    for (int32_t i = 0; i < r->n_stats; i++) if (r->stats[i].pass == p) return &r->stats[i];
    return NULL;
}

static bool seen(const builder *b, const gc_fix_pass *p, int32_t sg, int32_t t) {
    for (int32_t i = 0; i < b->n_seen; i++)
        if (b->seen[i].p == p && b->seen[i].sg == sg && b->seen[i].t == t) return true;
    return false;
}

static void mark_seen(builder *b, const gc_fix_pass *p, int32_t sg, int32_t t) {
    if (!gc_grow((void **)&b->seen, &b->cap_seen, b->n_seen + 1, sizeof *b->seen)) { b->oom = true; return; }
    b->seen[b->n_seen].p = p; b->seen[b->n_seen].sg = sg; b->seen[b->n_seen].t = t;
    b->n_seen++;
}

static void add_change(builder *b, const gc_fix_pass *p, int32_t sg, const char *op, const char *node,
                       const char *detail, int32_t removed, int32_t added) {
    gc_fix_result *r = b->r;
    if (!gc_grow((void **)&r->changes, &b->cap_changes, r->n_changes + 1, sizeof *r->changes)) { b->oom = true; return; }
    gc_fix_change *c = &r->changes[r->n_changes++];
    c->pass = p; c->subgraph = sg;
    c->op = gc_arena_strdup(&r->arena, op);
    c->node = gc_arena_strdup(&r->arena, node);
    c->detail = gc_arena_strdup(&r->arena, detail);
    c->removed = removed; c->added = added;
    if (!c->op || !c->node || !c->detail) b->oom = true;
    gc_fix_pass_stat *s = stat_of(r, p);
    if (s) { s->sites++; s->removed += removed; s->added += added; }
    /* an earlier round may have left this site alone: that is no longer true */
    int32_t k = 0;
    for (int32_t i = 0; i < r->n_declines; i++) {
        const gc_fix_decline *d = &r->declines[i];
        if (d->pass == p && d->subgraph == sg && !strcmp(d->node, node) && !strcmp(d->op, op)) {
            if (s) s->declined--;
            continue;
        }
        r->declines[k++] = *d;
    }
    r->n_declines = k;
}

static void add_decline(builder *b, const gc_fix_pass *p, int32_t sg, const char *op, const char *node,
                        const char *why) {
    gc_fix_result *r = b->r;
    for (int32_t i = 0; i < r->n_declines; i++) {   /* retried in a later round, same answer */
        const gc_fix_decline *d = &r->declines[i];
        if (d->pass == p && d->subgraph == sg && !strcmp(d->node, node) && !strcmp(d->op, op) && !strcmp(d->reason, why))
            return;
    }
    if (!gc_grow((void **)&r->declines, &b->cap_declines, r->n_declines + 1, sizeof *r->declines)) {
        b->oom = true; return;
    }
    gc_fix_decline *d = &r->declines[r->n_declines++];
    d->pass = p; d->subgraph = sg;
    d->op = gc_arena_strdup(&r->arena, op);
    d->node = gc_arena_strdup(&r->arena, node);
    d->reason = gc_arena_strdup(&r->arena, why);
    if (!d->op || !d->node || !d->reason) b->oom = true;
    gc_fix_pass_stat *s = stat_of(r, p);
    if (s) s->declined++;
}

/* ---- one site ---------------------------------------------------------------------- */

enum { SITE_KEPT = 1, SITE_DECLINED = 0, SITE_ERROR = -1 };

/* Try pass p at op `op` of subgraph sgi. *cur is the check of the model as it is; it is
 * replaced when the site is kept. */
static int try_site(builder *b, gc_model *m, const gc_fix_opts *o, const gc_fix_pass *p, int32_t sgi,
                    int32_t op, bool forced, bool strict, gc_check_result **cur, char *err, size_t errlen) {
    gc_subgraph *sg = &m->subgraphs[sgi];
    char opname[96], node[512];
    snprintf(opname, sizeof opname, "%s", gc_op_name(m, &sg->ops[op]));
    int32_t out0 = sg->ops[op].n_outputs > 0 ? sg->ops[op].outputs[0] : -1;
    snprintf(node, sizeof node, "%s", out0 >= 0 ? sg->tensors[out0].name : "");

    const gc_check_node *an = node_of(*cur, sgi, op);
    bool anchor_fatal = an && an->fatal;
    snapshot s;
    if (!snap_take(m, sgi, &s)) { gc_errf(err, errlen, "out of memory (snapshot)"); return SITE_ERROR; }
    gc_fix_ctx *c = calloc(1, sizeof *c);
    if (!c) { snap_free(&s); gc_errf(err, errlen, "out of memory"); return SITE_ERROR; }
    c->m = m; c->opts = o; c->pass = p; c->sg = sgi;
    int rc = p->apply(c, op);
    if (rc < 0 || c->oom) {
        snap_restore(m, &s); snap_free(&s); free(c);
        gc_errf(err, errlen, "out of memory in pass %s", p->id);
        return SITE_ERROR;
    }
    if (rc == 0) {
        snap_restore(m, &s); snap_free(&s);
        if (!c->silent) add_decline(b, p, sgi, opname, node, c->why[0] ? c->why : "precondition not met");
        free(c);
        return SITE_DECLINED;
    }
    char why[700] = "";
    if (!is_topological(m, sgi) && gc_sg_toposort(m, sgi) != GC_OK)
        snprintf(why, sizeof why, "the rewrite would create a cycle");
    char verr[256];
    if (!why[0] && gc_model_validate(m, verr, sizeof verr) != GC_OK)
        snprintf(why, sizeof why, "internal: the rewritten model is invalid (%s)", verr);
    gc_check_result *nr = NULL;
    if (!why[0]) {
        nr = check_model(m, o, verr, sizeof verr);
        if (!nr) {
            snap_restore(m, &s); snap_free(&s); free(c);
            gc_errf(err, errlen, "%s", verr);
            return SITE_ERROR;
        }
        /* Kept only when the verdict is no worse — no new init failure, no more refused
         * nodes, no more of the pass's risk and (strict rounds) no more CPU nodes and the
         * GPU work in no more pieces — and strictly better somewhere: fewer refused, CPU
         * nodes, node subsets or risks, or the init failure gone (forced sites: no worse
         * is enough). */
        verdict vb = verdict_of(*cur, p), va = verdict_of(nr, p);
        bool risky = p->risk || p->risk2 || p->fix_id;   /* risk notes, or wrong facts naming the fix */
        char rname[200];
        snprintf(rname, sizeof rname, "%s%s%s%s%s", p->risk ? p->risk : "", p->risk && p->risk2 ? "/" : "",
                 p->risk2 ? p->risk2 : "", p->risk || p->risk2 ? " or " : "", "a measured miscompute it fixes");
        int32_t before = vb.refused, after = va.refused;
        bool new_fatal = va.fatal && !vb.fatal;
        bool fixed_fatal = vb.fatal && !va.fatal;
        bool more_cpu = strict && va.cpu > vb.cpu;
        bool split = strict && !fixed_fatal && more_pieces(*cur, nr);
        bool worse = after > before || more_cpu || split || (risky && va.risk > vb.risk) ||
                     (va.fatal && va.fatal_nodes > vb.fatal_nodes);
        /* the node that broke delegate init no longer does (the delegate stops at the
         * first such node, so the next one may show now): progress, the failure goes
         * once the last of them is rewritten */
        bool fatal_moved = false;
        if (vb.fatal && va.fatal && anchor_fatal) {
            fatal_moved = true;
            for (int32_t i = 0; i < nr->n_nodes && fatal_moved; i++) {
                const gc_check_node *n = &nr->nodes[i];
                if (!n->fatal || n->subgraph != sgi || n->index >= sg->n_ops) continue;
                const gc_op *nop = &sg->ops[n->index];
                int32_t t0 = nop->n_outputs ? nop->outputs[0] : -1;
                for (int k = 0; k < c->n_new; k++) if (t0 >= 0 && c->new_outs[k] == t0) fatal_moved = false;
            }
        }
        bool better = fixed_fatal || after < before || va.cpu < vb.cpu || va.segments < vb.segments ||
                      (risky && va.risk < vb.risk) || (vb.fatal && va.fatal_nodes < vb.fatal_nodes) ||
                      fatal_moved;
        /* a whole-model blocker (a dynamic-sized tensor) that stays keeps every node on
         * the CPU whatever the site does: only removing it or removing nodes is a gain */
        if ((*cur)->model_error && nr->model_error) better = va.cpu < vb.cpu;
        bool ok = !worse && (forced || better);
        if (new_fatal) {
            const gc_check_node *f = NULL;
            for (int32_t i = 0; i < nr->n_nodes && !f; i++) if (nr->nodes[i].fatal) f = &nr->nodes[i];
            const char *fname = "";
            if (f && f->subgraph < m->n_subgraphs && f->index < m->subgraphs[f->subgraph].n_ops) {
                const gc_subgraph *fs = &m->subgraphs[f->subgraph];
                const gc_op *fo = &fs->ops[f->index];
                if (fo->n_outputs > 0 && fo->outputs[0] >= 0) fname = fs->tensors[fo->outputs[0]].name;
            }
            snprintf(why, sizeof why, "rolled back: %s %s '%s' would break GPU delegate init (%s)",
                     f ? "the" : "the rewrite:", f ? f->op : "", fname, nr->fatal);
        } else if (ok) {
            for (int k = 0; k < c->n_new && !why[0]; k++) {
                int32_t t = c->new_outs[k], p2 = t >= 0 ? gc_sg_producer(m, sgi, t) : -1;
                char f[400];
                if (p2 >= 0 && isolated_init_failure(m, o, sgi, p2, f, sizeof f))
                    snprintf(why, sizeof why, "rolled back: the new %s '%s' would break GPU delegate init once it "
                             "joins the GPU partition (%s)", gc_op_name(m, &sg->ops[p2]), sg->tensors[t].name, f);
            }
        } else {
            /* name the first refused node the site added */
            const gc_check_node *bad = NULL;
            for (int32_t i = 0; i < nr->n_nodes && !bad; i++) {
                const gc_check_node *n = &nr->nodes[i];
                if (n->subgraph != sgi || n->state != GC_NODE_REJECTED) continue;
                const gc_op *nop = &sg->ops[n->index];
                int32_t t0 = nop->n_outputs ? nop->outputs[0] : -1;
                for (int k = 0; k < c->n_new; k++) if (c->new_outs[k] == t0 && t0 >= 0) { bad = n; break; }
            }
            if (bad && after >= before)
                snprintf(why, sizeof why, "rolled back: the GPU would refuse the new %s: %s [%s]", bad->op,
                         bad->reason, bad->rule ? bad->rule : "");
            else if (after > before)
                snprintf(why, sizeof why, "rolled back: the GPU would refuse %d node(s) instead of %d", after, before);
            else if (more_cpu)
                snprintf(why, sizeof why, "rolled back: %d node(s) would run on the CPU instead of %d (GPU residency "
                         "%d/%d -> %d/%d)", va.cpu, vb.cpu, (*cur)->gpu_nodes, (*cur)->total_nodes, nr->gpu_nodes,
                         nr->total_nodes);
            else if (split)
                snprintf(why, sizeof why, "rolled back: the GPU work would be cut into more pieces (%d -> %d CPU/GPU "
                         "node subsets, %d -> %d partition(s))", vb.segments, va.segments, vb.partitions,
                         va.partitions);
            else if (risky && va.risk > vb.risk)
                snprintf(why, sizeof why, "rolled back: the checker would report %s on more nodes", rname);
            else if (risky && va.risk == vb.risk && vb.risk > 0 && !better)
                snprintf(why, sizeof why, "rolled back: the checker still reports %s", rname);
            else if (nr->model_error && (*cur)->model_error)
                snprintf(why, sizeof why, "rolled back: no gain (every node stays on the CPU: %s)", nr->model_error);
            else
                snprintf(why, sizeof why, "rolled back: no gain (the checker's verdict is unchanged: %d refused, "
                         "%d CPU node(s), %d partition(s))", after, va.cpu, va.partitions);
        }
    }
    if (why[0]) {
        if (nr) gc_check_free(nr);
        snap_restore(m, &s); snap_free(&s);
        add_decline(b, p, sgi, opname, node, why);
        free(c);
        return SITE_DECLINED;
    }
    gc_check_free(*cur);
    *cur = nr;
    add_change(b, p, sgi, opname, node, c->detail, c->removed, c->added);
    snap_free(&s);
    free(c);
    return SITE_KEPT;
}

static bool is_anchor(const gc_fix_pass *p, int32_t code) {
    if (!p->anchors) return true;
    for (const int32_t *a = p->anchors; *a >= 0; a++) if (*a == code) return true;
    return false;
}

/* Rounds over the registry until a round keeps nothing (or opts.max_rounds). false on
 * an error (err says which). */
static bool run_rounds(builder *b, gc_model *m, const gc_fix_opts *o, const bool *enabled, bool strict,
                       gc_check_result **cur, int32_t *total_kept, char *err, size_t errlen) {
    gc_fix_result *r = b->r;
    bool failed = false, stop = false;
    /* a guard against a pass that keeps matching what it made: far more sites than the
     * model has nodes means a bug, not progress */
    int64_t max_sites = 1000;
    for (int32_t s = 0; s < m->n_subgraphs; s++) max_sites += 8 * (int64_t)m->subgraphs[s].n_ops;
    for (int round = 1; round <= o->max_rounds && !failed && !stop; round++) {
        r->rounds = round;
        int32_t kept = 0;
        b->n_seen = 0;   /* the last round changed the model: declined sites get another try */
        for (int pi = 0; pi < N_PASSES && !failed && !stop; pi++) {
            if (!enabled[pi]) continue;
            const gc_fix_pass *p = registry[pi];
            bool forced = list_has(o->force, p) || p->scope == GC_FIX_SCOPE_ANY;
            for (int32_t sgi = 0; sgi < m->n_subgraphs && !failed && !stop; sgi++) {
                for (int32_t op = 0; op < m->subgraphs[sgi].n_ops; op++) {
                    const gc_subgraph *sg = &m->subgraphs[sgi];
                    if (!is_anchor(p, gc_op_builtin(m, &sg->ops[op]))) continue;
                    int32_t out0 = sg->ops[op].n_outputs > 0 ? sg->ops[op].outputs[0] : -1;
                    if (out0 < 0 || seen(b, p, sgi, out0)) continue;
                    if (!forced) {
                        const gc_check_node *n = node_of(*cur, sgi, op);
                        if (!n || (n->state != GC_NODE_REJECTED && !n->fatal && !has_risk(*cur, sgi, op, p) &&
                                   !consumer_names_fix(m, *cur, sgi, op, p)))
                            continue;
                    }
                    int rc = try_site(b, m, o, p, sgi, op, forced, strict, cur, err, errlen);
                    if (rc == SITE_ERROR) { failed = true; break; }
                    if (rc == SITE_DECLINED) { mark_seen(b, p, sgi, out0); continue; }
                    kept++;
                    if (*total_kept + kept > max_sites) { r->hit_max_rounds = true; stop = true; break; }
                    op = -1;   /* indices moved: scan the subgraph again */
                }
            }
        }
        *total_kept += kept;
        if (!kept) break;
        if (round == o->max_rounds) r->hit_max_rounds = true;
    }
    return !failed;
}

/* ---- the driver ------------------------------------------------------------------- */

gc_fix_result *gc_fix_apply(gc_model *m, const gc_fix_opts *opts, char *err, size_t errlen) {
    gc_fix_opts o = opts ? *opts : gc_fix_opts_default();
    if (o.max_rounds <= 0) o.max_rounds = 8;
    if (!o.max_const_bytes) o.max_const_bytes = 64ull << 20;
    char bad[128];
    if (gc_fix_list_unknown(o.only, bad, sizeof bad) || gc_fix_list_unknown(o.skip, bad, sizeof bad) ||
        gc_fix_list_unknown(o.force, bad, sizeof bad)) {
        if (gc_fix_id_advice(bad)) gc_errf(err, errlen, "'%s' is advice only: no .tflite pass implements it yet", bad);
        else gc_errf(err, errlen, "unknown pass '%s'", bad);
        return NULL;
    }
    gc_fix_result *r = calloc(1, sizeof *r);
    if (!r) { gc_errf(err, errlen, "out of memory"); return NULL; }
    r->target = o.target;
    r->stats = gc_arena_alloc(&r->arena, sizeof *r->stats * (size_t)N_PASSES);
    if (!r->stats) { free(r); gc_errf(err, errlen, "out of memory"); return NULL; }
    bool enabled[N_PASSES];
    for (int i = 0; i < N_PASSES; i++) {
        const gc_fix_pass *p = registry[i];
        enabled[i] = (!o.only || list_has(o.only, p)) && !list_has(o.skip, p);
        if (enabled[i]) r->stats[r->n_stats++].pass = p;
    }
    builder b = { .r = r };
    gc_check_result *cur = check_model(m, &o, err, errlen);
    if (!cur) { gc_fix_result_free(r); return NULL; }
    residency(cur, &r->before);
    /* Progress rounds first: a site is kept when it removes a refusal (or the init
     * failure, or the pass's risk) without adding any — its new ops may sit outside the
     * delegated partition until a later site brings them in (a chain of refused nodes
     * joins the GPU only once every link is fixed). If the result has more CPU nodes or
     * the GPU work in more pieces than the model had, it is undone and the rounds run
     * again strict: every site judged alone, never more CPU nodes or pieces. */
    gc_check_result *start = check_model(m, &o, err, errlen);
    snapshot *all = start ? calloc((size_t)m->n_subgraphs + 1, sizeof *all) : NULL;
    bool snapped = all != NULL;
    for (int32_t s = 0; snapped && s < m->n_subgraphs; s++)
        if (!snap_take(m, s, &all[s])) snapped = false;
    if (!snapped) {
        if (all) for (int32_t s = 0; s < m->n_subgraphs; s++) snap_free(&all[s]);
        free(all);
        gc_check_free(start); gc_check_free(cur); gc_fix_result_free(r);
        gc_errf(err, errlen, "out of memory (snapshot)");
        return NULL;
    }
    int32_t total_kept = 0;
    bool failed = !run_rounds(&b, m, &o, enabled, false, &cur, &total_kept, err, errlen);
    if (!failed && !b.oom && total_kept) {
        verdict v0 = verdict_of(start, NULL), v1 = verdict_of(cur, NULL);
        if (v1.cpu > v0.cpu || (!(v0.fatal && !v1.fatal) && more_pieces(start, cur))) {
            /* undo every site (passes only append buffers and opcodes: the counts
             * restore the model exactly) */
            r->progress_rejected = true;
            residency(cur, &r->progress);
            for (int32_t s = m->n_subgraphs - 1; s >= 0; s--) snap_restore(m, &all[s]);
            gc_check_free(cur);
            cur = check_model(m, &o, err, errlen);
            if (!cur) failed = true;
            r->n_changes = 0;
            r->n_declines = 0;
            for (int32_t i = 0; i < r->n_stats; i++) {
                gc_fix_pass_stat *st = &r->stats[i];
                st->sites = st->removed = st->added = st->declined = 0;
            }
            r->hit_max_rounds = false;
            total_kept = 0;
            if (!failed) failed = !run_rounds(&b, m, &o, enabled, true, &cur, &total_kept, err, errlen);
        }
    }
    for (int32_t s = 0; s < m->n_subgraphs; s++) snap_free(&all[s]);
    free(all);
    gc_check_free(start);
    if (failed || b.oom) {
        if (b.oom) gc_errf(err, errlen, "out of memory");
        gc_check_free(cur); free(b.seen); gc_fix_result_free(r);
        return NULL;
    }
    free(b.seen);
    for (int32_t i = 0; i < r->n_changes; i++) {
        gc_fix_exactness e = r->changes[i].pass->exactness;
        if (e > r->exactness) r->exactness = e;
        if (e == GC_FIX_TOLERANCE) {
            if (r->changes[i].pass->rtol > r->rtol) r->rtol = r->changes[i].pass->rtol;
            if (r->changes[i].pass->atol > r->atol) r->atol = r->changes[i].pass->atol;
        }
    }
    if (total_kept) {
        int32_t ops_before = 0, ops_after = 0;
        for (int32_t s = 0; s < m->n_subgraphs; s++) ops_before += m->subgraphs[s].n_ops;
        gc_model_prune(m);
        for (int32_t s = 0; s < m->n_subgraphs; s++) ops_after += m->subgraphs[s].n_ops;
        r->pruned_ops = ops_before - ops_after;
        gc_check_free(cur);
        cur = check_model(m, &o, err, errlen);
        if (!cur) { gc_fix_result_free(r); return NULL; }
    }
    /* a site declined in an early round can be gone by the end (a later rewrite, such
     * as a constant cone folded whole, removed its op): only sites still in the model
     * are "left alone" */
    int32_t kd = 0;
    for (int32_t i = 0; i < r->n_declines; i++) {
        const gc_fix_decline *d = &r->declines[i];
        bool present = false;
        if (d->subgraph >= 0 && d->subgraph < m->n_subgraphs) {
            const gc_subgraph *sg = &m->subgraphs[d->subgraph];
            for (int32_t op = 0; op < sg->n_ops && !present; op++) {
                const gc_op *o2 = &sg->ops[op];
                int32_t t0 = o2->n_outputs > 0 ? o2->outputs[0] : -1;
                present = t0 >= 0 && !strcmp(sg->tensors[t0].name, d->node) && !strcmp(gc_op_name(m, o2), d->op);
            }
        }
        if (!present) {
            gc_fix_pass_stat *st = stat_of(r, d->pass);
            if (st) st->declined--;
            continue;
        }
        r->declines[kd++] = *d;
    }
    r->n_declines = kd;
    r->check = cur;
    residency(cur, &r->after);
    return r;
}

void gc_fix_result_free(gc_fix_result *r) {
    if (!r) return;
    if (r->check) gc_check_free(r->check);
    free(r->changes);
    free(r->declines);
    gc_arena_free(&r->arena);
    free(r);
}
