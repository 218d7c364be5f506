/* check_report.c — renders a gc_check_result: compiler-style text and JSON (schema 1).
 * Decides nothing; every verdict comes from check.c.
 *
 * JSON fields: schema, tool, model, target,
 *   summary {nodes, gpu_nodes, cpu_nodes, partitions, gpu_clean, residency, fatal, model_error,
 *            gpu_correct, runtime, precision, wrong_nodes, risk_nodes},
 *   subgraphs [{index, name, skipped, nodes, gpu_nodes, candidate_partitions, delegated_partitions,
 *               node_subsets, delegate_log}],
 *   partitions [{subgraph, id, nodes, first_node, delegated}],
 *   nodes [{subgraph, index, op, op_label, version, name, gpu, supported, state, reason, rule, fatal,
 *           partition, tensors [{index, name, role, dtype, shape, const}], culprit,
 *           fix {id, torch, tflite} | null, numerics, numerics_rule, evidence {...} | null}],
 *   risks [{subgraph, node, rule, level, message, fix}]
 */
#include "check_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *node_name(const gc_model *m, const gc_check_node *n) {
    const gc_subgraph *sg = &m->subgraphs[n->subgraph];
    const gc_op *op = &sg->ops[n->index];
    if (op->n_outputs > 0 && op->outputs[0] >= 0 && op->outputs[0] < sg->n_tensors)
        return sg->tensors[op->outputs[0]].name;
    return "";
}

static void shape_str(gc_str *o, const int32_t *shape, int32_t rank) {
    gc_str_putc(o, '[');
    for (int32_t i = 0; i < rank; i++) gc_str_printf(o, "%s%d", i ? "," : "", shape[i]);
    gc_str_putc(o, ']');
}

void gc_check_residency_line(const gc_check_result *r, gc_str *out) {
    gc_str_printf(out, "GPU residency: %d/%d nodes in %d partition(s)", r->gpu_nodes, r->total_nodes, r->partitions);
}

static void where(gc_str *o, const char *path, const gc_check_node *n) {
    if (n->subgraph) gc_str_printf(o, "%s: subgraph %d node %d", path, n->subgraph, n->index);
    else gc_str_printf(o, "%s: node %d", path, n->index);
}

static void text_node(const gc_check_result *r, const gc_model *m, const char *path, const gc_check_node *n,
                      gc_str *o) {
    where(o, path, n);
    gc_str_printf(o, " %s '%s': ", n->op, node_name(m, n));
    switch (n->state) {
    case GC_NODE_GPU:
        if (n->evidence && n->numerics != GC_NUM_OK) { gc_check_numerics_text(r, n, o); return; }
        gc_str_printf(o, "on GPU (partition %d)", n->partition);
        if (n->evidence) gc_str_printf(o, ", measured right [%s]", n->evidence->id);
        gc_str_putc(o, '\n');
        return;
    case GC_NODE_SKIPPED: gc_str_puts(o, "subgraph skipped by the delegate (lowered by its composite)\n"); return;
    case GC_NODE_FP16_DEQUANT:
        gc_str_printf(o, "not on GPU: fp16 weight DEQUANTIZE stays on the CPU when the model is only partly "
                         "delegated (listed as \"DEQUANTIZE: \") [%s]\n", n->rule ? n->rule : "");
        return;
    case GC_NODE_CPU_PARTITION:
        gc_str_printf(o, "not on GPU: supported, but in partition %d; only the largest partition is delegated "
                         "[%s.partition]\n", n->partition, gc_target_name(r->target));
        return;
    case GC_NODE_INIT_FAILED:
        if (n->fatal) gc_str_printf(o, "breaks GPU delegate init: %s [%s]\n", n->reason, n->rule);
        else gc_str_puts(o, "not on GPU: the delegate failed to initialise, everything runs on the CPU\n");
        if (n->fatal && n->evidence) {
            gc_str_puts(o, "  ");
            gc_fact_evidence_text(n->evidence, o);
            gc_str_putc(o, '\n');
        }
        break;
    case GC_NODE_REJECTED:
        gc_str_printf(o, "not on GPU: %s [%s]\n", n->reason, n->rule);
        break;
    }
    if (n->culprit >= 0 && n->culprit < n->n_tensors) {
        const gc_check_tensor *t = &n->tensors[n->culprit];
        gc_str_printf(o, "  tensor %s '%s' %s ", t->role, t->name, gc_type_name(t->type));
        shape_str(o, t->shape, t->rank);
        gc_str_puts(o, t->is_const ? " const\n" : "\n");
    }
    if (n->fix_torch && n->fix_torch[0]) gc_str_printf(o, "  fix: %s\n", n->fix_torch);
    if (n->fix_tflite && n->fix_tflite[0]) gc_str_printf(o, "  fix (.tflite): %s [%s]\n", n->fix_tflite, n->fix_id);
}

/* ---- grouping: identical findings on many nodes print once --------------------------- */

#define GC_LIST_SHOWN 12     /* node-list items (single nodes or ranges) before "... +N more" */

static int scmp(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

/* the text a finding prints apart from its node and name: equal keys group */
static int node_key_cmp(const gc_check_node *a, const gc_check_node *b) {
    int c;
    if (a->state != b->state) return (int)a->state - (int)b->state;
    if (a->fatal != b->fatal) return (int)a->fatal - (int)b->fatal;
    if ((c = scmp(a->op, b->op))) return c;
    if ((c = scmp(a->rule, b->rule))) return c;
    if ((c = scmp(a->reason, b->reason))) return c;
    if ((c = scmp(a->fix_id, b->fix_id))) return c;
    if ((c = scmp(a->fix_torch, b->fix_torch))) return c;
    if (a->numerics != b->numerics) return (int)a->numerics - (int)b->numerics;
    if ((c = scmp(a->numerics_rule, b->numerics_rule))) return c;
    return scmp(a->fix_tflite, b->fix_tflite);
}

static int node_ptr_cmp(const void *x, const void *y) {
    const gc_check_node *a = *(const gc_check_node *const *)x, *b = *(const gc_check_node *const *)y;
    int c = node_key_cmp(a, b);
    if (c) return c;
    return a < b ? -1 : a > b;               /* the result's (subgraph, index) order */
}

typedef struct { const gc_check_risk *k; const gc_check_node *n; } risk_ref;

static int risk_key_cmp(const risk_ref *a, const risk_ref *b) {
    int c;
    if (!a->n != !b->n) return a->n ? 1 : -1;   /* model-level risks never group */
    if (!a->n) return a->k < b->k ? -1 : a->k > b->k;
    if (a->k->level != b->k->level) return (int)a->k->level - (int)b->k->level;
    if ((c = scmp(a->n->op, b->n->op))) return c;
    if ((c = scmp(a->k->rule, b->k->rule))) return c;
    if ((c = scmp(a->k->message, b->k->message))) return c;
    return scmp(a->k->fix, b->k->fix);
}

static int risk_ref_cmp(const void *x, const void *y) {
    const risk_ref *a = x, *b = y;
    int c = risk_key_cmp(a, b);
    if (c) return c;
    return a->k < b->k ? -1 : a->k > b->k;
}

typedef struct { int32_t start, len; size_t first; } group;

static int group_cmp(const void *x, const void *y) {
    const group *a = x, *b = y;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* "2, 3, 29, 2323-2326" (subgraph S > 0: "S:N"); at most GC_LIST_SHOWN items, then
 * "... +N more". nodes[] is in (subgraph, index) order. */
static void node_list(gc_str *o, const gc_check_node *const *nodes, int32_t n) {
    int32_t items = 0, i = 0;
    while (i < n) {
        int32_t j = i;
        while (j + 1 < n && nodes[j + 1]->subgraph == nodes[i]->subgraph && nodes[j + 1]->index == nodes[j]->index + 1) j++;
        if (items == GC_LIST_SHOWN) { gc_str_printf(o, ", ... +%d more", n - i); return; }
        gc_str_puts(o, items ? ", " : "");
        if (nodes[i]->subgraph) gc_str_printf(o, "%d:", nodes[i]->subgraph);
        gc_str_printf(o, "%d", nodes[i]->index);
        if (j > i) gc_str_printf(o, "-%d", nodes[j]->index);
        items++;
        i = j + 1;
    }
}

static bool same_tensor(const gc_check_tensor *a, const gc_check_tensor *b) {
    if (a->type != b->type || a->rank != b->rank || a->is_const != b->is_const || scmp(a->role, b->role) ||
        scmp(a->name, b->name)) return false;
    for (int32_t d = 0; d < a->rank; d++) if (a->shape[d] != b->shape[d]) return false;
    return true;
}

static const gc_check_tensor *culprit_of(const gc_check_node *n) {
    return n->culprit >= 0 && n->culprit < n->n_tensors ? &n->tensors[n->culprit] : NULL;
}

static void tensor_line(gc_str *o, const char *lead, const gc_check_tensor *t) {
    gc_str_printf(o, "  %stensor %s '%s' %s ", lead, t->role, t->name, gc_type_name(t->type));
    shape_str(o, t->shape, t->rank);
    gc_str_puts(o, t->is_const ? " const\n" : "\n");
}

/* one line for n > 1 identical findings: "PATH: N OP nodes (LIST): <verdict> [rule]" */
static void text_group(const gc_check_result *r, const char *path, const gc_check_node *const *g, int32_t n,
                       gc_str *o) {
    const gc_check_node *f = g[0];
    gc_str_printf(o, "%s: %d %s nodes (", path, n, f->op);
    node_list(o, g, n);
    gc_str_puts(o, "): ");
    switch (f->state) {
    case GC_NODE_GPU:                         /* wrong / at risk by a measured fact */
        gc_check_numerics_text(r, f, o);
        return;
    case GC_NODE_FP16_DEQUANT:
        gc_str_printf(o, "not on GPU: fp16 weight DEQUANTIZE stays on the CPU when the model is only partly "
                         "delegated (listed as \"DEQUANTIZE: \") [%s]\n", f->rule ? f->rule : "");
        return;
    case GC_NODE_INIT_FAILED:
        gc_str_printf(o, "breaks GPU delegate init: %s [%s]\n", f->reason, f->rule);
        break;
    case GC_NODE_REJECTED:
        gc_str_printf(o, "not on GPU: %s [%s]\n", f->reason, f->rule);
        break;
    default:                                  /* not grouped (see gc_check_text) */
        gc_str_puts(o, "\n");
        return;
    }
    const gc_check_tensor *t = culprit_of(f);
    bool same = t != NULL;
    for (int32_t i = 1; i < n && same; i++) {
        const gc_check_tensor *u = culprit_of(g[i]);
        same = u && same_tensor(t, u);
    }
    if (same) tensor_line(o, "", t);
    else if (t) {
        char lead[64];
        if (f->subgraph) snprintf(lead, sizeof lead, "e.g. subgraph %d node %d: ", f->subgraph, f->index);
        else snprintf(lead, sizeof lead, "e.g. node %d: ", f->index);
        tensor_line(o, lead, t);
    }
    if (f->fix_torch && f->fix_torch[0]) gc_str_printf(o, "  fix: %s\n", f->fix_torch);
    if (f->fix_tflite && f->fix_tflite[0]) gc_str_printf(o, "  fix (.tflite): %s [%s]\n", f->fix_tflite, f->fix_id);
}

static const gc_check_node *risk_node(const gc_check_result *r, const gc_model *m, const gc_check_risk *k) {
    if (k->node < 0 || k->subgraph < 0 || k->subgraph >= m->n_subgraphs || k->node >= m->subgraphs[k->subgraph].n_ops)
        return NULL;
    /* r->nodes is in (subgraph, index) order: binary search */
    int32_t lo = 0, hi = r->n_nodes - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        const gc_check_node *n = &r->nodes[mid];
        if (n->subgraph == k->subgraph && n->index == k->node) return n;
        if (n->subgraph < k->subgraph || (n->subgraph == k->subgraph && n->index < k->node)) lo = mid + 1;
        else hi = mid - 1;
    }
    for (int32_t j = 0; j < r->n_nodes; j++)  /* not sorted after all: the old linear scan */
        if (r->nodes[j].subgraph == k->subgraph && r->nodes[j].index == k->node) return &r->nodes[j];
    return NULL;
}

static void text_risk(const gc_model *m, const char *path, const gc_check_risk *k, const gc_check_node *n,
                      gc_str *o) {
    if (n) {
        where(o, path, n);
        gc_str_printf(o, " %s '%s': ", n->op, node_name(m, n));
    } else {
        gc_str_printf(o, "%s: ", path);
    }
    gc_str_printf(o, "%s: %s [%s]\n", k->level == GC_RISK_WARN ? "warning" : "note", k->message, k->rule);
    if (k->fix && k->fix[0]) gc_str_printf(o, "  fix: %s\n", k->fix);
}

static bool shown_alone(const gc_check_node *n, bool verbose) {
    if (verbose) return true;
    if (n->gpu) return n->evidence && n->numerics != GC_NUM_OK;
    if (n->state == GC_NODE_CPU_PARTITION || n->state == GC_NODE_SKIPPED) return false;
    if (n->state == GC_NODE_INIT_FAILED && !n->fatal) return false;
    return true;
}

/* Findings in node order; without verbose, nodes whose finding is the same (op, rule,
 * reason, fix) print as one group line with their count and node list (when the
 * grouping cannot be allocated, every finding prints on its own). */
static void text_nodes(const gc_check_result *r, const gc_model *m, const char *path, bool verbose, gc_str *o) {
    int32_t n = 0;
    for (int32_t i = 0; i < r->n_nodes; i++) n += shown_alone(&r->nodes[i], verbose);
    const gc_check_node **v = verbose || n < 2 ? NULL : malloc(sizeof *v * (size_t)n);
    group *gs = v ? malloc(sizeof *gs * (size_t)n) : NULL;
    if (!gs) {                                /* verbose, few, or out of memory: one block per node */
        free(v);
        for (int32_t i = 0; i < r->n_nodes; i++)
            if (shown_alone(&r->nodes[i], verbose)) text_node(r, m, path, &r->nodes[i], o);
        return;
    }
    int32_t k = 0, ng = 0;
    for (int32_t i = 0; i < r->n_nodes; i++) if (shown_alone(&r->nodes[i], false)) v[k++] = &r->nodes[i];
    qsort(v, (size_t)n, sizeof *v, node_ptr_cmp);
    for (int32_t i = 0; i < n;) {
        int32_t j = i + 1;
        while (j < n && !node_key_cmp(v[i], v[j])) j++;
        gs[ng++] = (group){ i, j - i, (size_t)(v[i] - r->nodes) };
        i = j;
    }
    qsort(gs, (size_t)ng, sizeof *gs, group_cmp);
    for (int32_t g = 0; g < ng; g++) {
        if (gs[g].len == 1) text_node(r, m, path, v[gs[g].start], o);
        else text_group(r, path, v + gs[g].start, gs[g].len, o);
    }
    free(gs);
    free(v);
}

static void text_risks(const gc_check_result *r, const gc_model *m, const char *path, bool verbose, gc_str *o) {
    risk_ref *v = r->n_risks > 0 ? malloc(sizeof *v * (size_t)r->n_risks) : NULL;
    group *gs = v && !verbose && r->n_risks > 1 ? malloc(sizeof *gs * (size_t)r->n_risks) : NULL;
    if (!gs) {
        for (int32_t i = 0; i < r->n_risks; i++) text_risk(m, path, &r->risks[i], risk_node(r, m, &r->risks[i]), o);
        free(v);
        return;
    }
    for (int32_t i = 0; i < r->n_risks; i++) v[i] = (risk_ref){ &r->risks[i], risk_node(r, m, &r->risks[i]) };
    qsort(v, (size_t)r->n_risks, sizeof *v, risk_ref_cmp);
    int32_t ng = 0;
    for (int32_t i = 0; i < r->n_risks;) {
        int32_t j = i + 1;
        while (j < r->n_risks && !risk_key_cmp(&v[i], &v[j])) j++;
        gs[ng++] = (group){ i, j - i, (size_t)(v[i].k - r->risks) };
        i = j;
    }
    qsort(gs, (size_t)ng, sizeof *gs, group_cmp);
    for (int32_t g = 0; g < ng; g++) {
        const risk_ref *f = &v[gs[g].start];
        int32_t len = gs[g].len;
        if (len == 1) { text_risk(m, path, f->k, f->n, o); continue; }
        const gc_check_node **nodes = malloc(sizeof *nodes * (size_t)len);
        if (!nodes) { for (int32_t i = 0; i < len; i++) text_risk(m, path, f[i].k, f[i].n, o); continue; }
        for (int32_t i = 0; i < len; i++) nodes[i] = f[i].n;
        gc_str_printf(o, "%s: %d %s nodes (", path, len, f->n->op);
        node_list(o, nodes, len);
        gc_str_printf(o, "): %s: %s [%s]\n", f->k->level == GC_RISK_WARN ? "warning" : "note", f->k->message,
                      f->k->rule);
        if (f->k->fix && f->k->fix[0]) gc_str_printf(o, "  fix: %s\n", f->k->fix);
        free(nodes);
    }
    free(gs);
    free(v);
}

void gc_check_text(const gc_check_result *r, const gc_model *m, const char *path, bool verbose, gc_str *o) {
    text_nodes(r, m, path, verbose, o);
    int32_t outside = 0;
    for (int32_t i = 0; i < r->n_nodes; i++) outside += r->nodes[i].state == GC_NODE_CPU_PARTITION;
    if (outside && !verbose) {
        const gc_check_node **v = malloc(sizeof *v * (size_t)outside);
        gc_str_printf(o, "%s: %d supported node(s) stay on the CPU outside the delegated partition", path, outside);
        if (v) {
            int32_t k = 0;
            for (int32_t i = 0; i < r->n_nodes; i++)
                if (r->nodes[i].state == GC_NODE_CPU_PARTITION) v[k++] = &r->nodes[i];
            gc_str_puts(o, " (");
            node_list(o, v, outside);
            gc_str_putc(o, ')');
            free(v);
        }
        gc_str_putc(o, '\n');
    }
    text_risks(r, m, path, verbose, o);
    for (int32_t s = 0; s < r->n_subgraphs; s++) {
        const gc_check_subgraph *S = &r->subgraphs[s];
        if (!S->delegate_log || !S->delegate_log[0]) continue;
        gc_str_printf(o, "%s: delegate log (subgraph %d):\n", path, s);
        const char *p = S->delegate_log;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            gc_str_printf(o, "  %.*s\n", (int)len, p);
            p += len + (e ? 1 : 0);
        }
    }
    gc_check_summary_text(r, path, true, o);
}

void gc_check_summary_text(const gc_check_result *r, const char *path, bool subgraphs, gc_str *o) {
    if (r->model_error) gc_str_printf(o, "%s: error: %s\n", path, r->model_error);
    if (r->fatal) gc_str_printf(o, "%s: error: %s\n", path, r->fatal);
    if (r->wrong_nodes) {
        int32_t crashed = 0;   /* wrong nodes whose evidence is a crash of the runtime */
        for (int32_t i = 0; i < r->n_nodes; i++)
            crashed += r->nodes[i].numerics == GC_NUM_WRONG && r->nodes[i].evidence &&
                       r->nodes[i].evidence->verdict == GC_FACT_CRASHED;
        const char *rt = r->runtime ? r->runtime->name : "?", *prec = gc_fact_precision_name(r->precision);
        if (crashed)
            gc_str_printf(o, "%s: error: %d node(s) crash the GPU runtime (measured on %s, %s)\n", path, crashed, rt, prec);
        if (r->wrong_nodes > crashed)
            gc_str_printf(o, "%s: error: %d node(s) on the GPU compute wrong numbers (measured on %s, %s)\n", path,
                          r->wrong_nodes - crashed, rt, prec);
    }
    if (subgraphs && r->n_subgraphs > 1)
        for (int32_t s = 0; s < r->n_subgraphs; s++) {
            const gc_check_subgraph *S = &r->subgraphs[s];
            if (S->skipped) gc_str_printf(o, "subgraph %d '%s': skipped by the delegate\n", s, S->name);
            else gc_str_printf(o, "subgraph %d '%s': %d/%d nodes on the GPU\n", s, S->name, S->gpu_nodes, S->nodes);
        }
    if (subgraphs) gc_str_printf(o, "target: %s\n", gc_target_name(r->target));
    if (subgraphs && r->runtime)
        gc_str_printf(o, "runtime: %s, %s (%d measured fact(s); gpuclean check --list-runtimes)\n", r->runtime->name,
                      gc_fact_precision_name(r->precision), gc_facts_count(r->facts, r->runtime->name, NULL));
    gc_check_residency_line(r, o);
    gc_str_puts(o, !r->gpu_clean ? "\n" : r->gpu_correct ? " (GPU-clean)\n" : " (all on the GPU, numbers wrong)\n");
}

static void jstr(gc_str *o, const char *s) { gc_str_json(o, s ? s : ""); }
static void jstr_or_null(gc_str *o, const char *s) { if (s) gc_str_json(o, s); else gc_str_puts(o, "null"); }

void gc_check_json(const gc_check_result *r, const gc_model *m, const char *path, gc_str *o) {
    gc_str_puts(o, "{\"schema\": 1, \"tool\": \"gpuclean check\", \"model\": ");
    jstr(o, path);
    gc_str_puts(o, ", \"target\": ");
    jstr(o, gc_target_name(r->target));
    gc_str_printf(o, ",\n \"summary\": {\"nodes\": %d, \"gpu_nodes\": %d, \"cpu_nodes\": %d, \"partitions\": %d, "
                     "\"gpu_clean\": %s, \"residency\": ",
                  r->total_nodes, r->gpu_nodes, r->total_nodes - r->gpu_nodes, r->partitions,
                  r->gpu_clean ? "true" : "false");
    gc_str line = {0};
    gc_check_residency_line(r, &line);
    jstr(o, line.s);
    gc_str_free(&line);
    gc_str_puts(o, ", \"fatal\": ");
    jstr_or_null(o, r->fatal);
    gc_str_puts(o, ", \"model_error\": ");
    jstr_or_null(o, r->model_error);
    gc_str_printf(o, ", \"gpu_correct\": %s, \"runtime\": ", r->gpu_correct ? "true" : "false");
    jstr_or_null(o, r->runtime ? r->runtime->name : NULL);
    gc_str_printf(o, ", \"precision\": \"%s\", \"wrong_nodes\": %d, \"risk_nodes\": %d",
                  gc_fact_precision_name(r->precision), r->wrong_nodes, r->risk_nodes);
    gc_str_puts(o, "},\n \"subgraphs\": [");
    for (int32_t s = 0; s < r->n_subgraphs; s++) {
        const gc_check_subgraph *S = &r->subgraphs[s];
        gc_str_printf(o, "%s\n  {\"index\": %d, \"name\": ", s ? "," : "", S->index);
        jstr(o, S->name);
        gc_str_printf(o, ", \"skipped\": %s, \"nodes\": %d, \"gpu_nodes\": %d, \"candidate_partitions\": %d, "
                         "\"delegated_partitions\": %d, \"node_subsets\": %d, \"delegate_log\": ",
                      S->skipped ? "true" : "false", S->nodes, S->gpu_nodes, S->n_candidates, S->delegated,
                      S->node_subsets);
        jstr(o, S->delegate_log);
        gc_str_putc(o, '}');
    }
    gc_str_puts(o, "],\n \"partitions\": [");
    for (int32_t i = 0; i < r->n_partitions; i++) {
        const gc_check_partition *p = &r->parts[i];
        gc_str_printf(o, "%s{\"subgraph\": %d, \"id\": %d, \"nodes\": %d, \"first_node\": %d, \"delegated\": %s}",
                      i ? ", " : "", p->subgraph, p->id, p->n_nodes, p->first_node, p->delegated ? "true" : "false");
    }
    gc_str_puts(o, "],\n \"nodes\": [");
    for (int32_t i = 0; i < r->n_nodes; i++) {
        const gc_check_node *n = &r->nodes[i];
        gc_str_printf(o, "%s\n  {\"subgraph\": %d, \"index\": %d, \"op\": ", i ? "," : "", n->subgraph, n->index);
        jstr(o, n->op);
        gc_str_puts(o, ", \"op_label\": ");
        jstr(o, n->op_label);
        gc_str_printf(o, ", \"version\": %d, \"name\": ", n->version);
        jstr(o, node_name(m, n));
        gc_str_printf(o, ", \"gpu\": %s, \"supported\": %s, \"state\": \"%s\", \"reason\": ", n->gpu ? "true" : "false",
                      n->supported ? "true" : "false", gc_node_state_name(n->state));
        jstr(o, n->reason);
        gc_str_puts(o, ", \"rule\": ");
        jstr_or_null(o, n->rule);
        gc_str_printf(o, ", \"fatal\": %s, \"partition\": ", n->fatal ? "true" : "false");
        if (n->partition >= 0) gc_str_printf(o, "%d", n->partition); else gc_str_puts(o, "null");
        gc_str_puts(o, ", \"tensors\": [");
        for (int32_t k = 0; k < n->n_tensors; k++) {
            const gc_check_tensor *t = &n->tensors[k];
            gc_str_printf(o, "%s{\"index\": %d, \"name\": ", k ? ", " : "", t->index);
            jstr(o, t->name);
            gc_str_printf(o, ", \"role\": \"%s\", \"dtype\": \"%s\", \"shape\": ", t->role, gc_type_name(t->type));
            shape_str(o, t->shape, t->rank);
            gc_str_printf(o, ", \"const\": %s}", t->is_const ? "true" : "false");
        }
        gc_str_puts(o, "], \"culprit\": ");
        if (n->culprit >= 0) gc_str_printf(o, "%d", n->culprit); else gc_str_puts(o, "null");
        gc_str_puts(o, ", \"fix\": ");
        if (n->fix_id && n->fix_id[0]) {
            gc_str_puts(o, "{\"id\": ");
            jstr(o, n->fix_id);
            gc_str_puts(o, ", \"torch\": ");
            jstr(o, n->fix_torch);
            gc_str_puts(o, ", \"tflite\": ");
            jstr(o, n->fix_tflite);
            gc_str_putc(o, '}');
        } else {
            gc_str_puts(o, "null");
        }
        gc_str_printf(o, ", \"numerics\": \"%s\", \"numerics_rule\": ", gc_numerics_name(n->numerics));
        jstr_or_null(o, n->numerics_rule);
        gc_str_puts(o, ", \"evidence\": ");
        gc_check_evidence_json(r, n->evidence, o);
        gc_str_putc(o, '}');
    }
    gc_str_puts(o, "],\n \"risks\": [");
    for (int32_t i = 0; i < r->n_risks; i++) {
        const gc_check_risk *k = &r->risks[i];
        gc_str_printf(o, "%s\n  {\"subgraph\": %d, \"node\": %d, \"rule\": ", i ? "," : "", k->subgraph, k->node);
        jstr(o, k->rule);
        gc_str_printf(o, ", \"level\": \"%s\", \"message\": ", k->level == GC_RISK_WARN ? "warning" : "info");
        jstr(o, k->message);
        gc_str_puts(o, ", \"fix\": ");
        jstr(o, k->fix);
        gc_str_putc(o, '}');
    }
    gc_str_puts(o, "]}\n");
}
