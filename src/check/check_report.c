/* check_report.c — renders a gc_check_result: compiler-style text and JSON (schema 1).
 * Decides nothing; every verdict comes from check.c.
 *
 * JSON fields: schema, tool, model, target,
 *   summary {nodes, gpu_nodes, cpu_nodes, partitions, gpu_clean, residency, fatal, model_error},
 *   subgraphs [{index, name, skipped, nodes, gpu_nodes, candidate_partitions, delegated_partitions,
 *               node_subsets, delegate_log}],
 *   partitions [{subgraph, id, nodes, first_node, delegated}],
 *   nodes [{subgraph, index, op, op_label, version, name, gpu, supported, state, reason, rule, fatal,
 *           partition, tensors [{index, name, role, dtype, shape, const}], culprit,
 *           fix {id, torch, tflite} | null}],
 *   risks [{subgraph, node, rule, level, message, fix}]
 */
#include "check_int.h"

#include <stdio.h>
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
    case GC_NODE_GPU: gc_str_printf(o, "on GPU (partition %d)\n", n->partition); return;
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

void gc_check_text(const gc_check_result *r, const gc_model *m, const char *path, bool verbose, gc_str *o) {
    int32_t outside = 0;
    for (int32_t i = 0; i < r->n_nodes; i++) {
        const gc_check_node *n = &r->nodes[i];
        if (n->state == GC_NODE_CPU_PARTITION && !verbose) { outside++; continue; }
        if (n->state == GC_NODE_SKIPPED && !verbose) continue;
        if (n->state == GC_NODE_INIT_FAILED && !n->fatal && !verbose) continue;
        if (n->gpu && !verbose) continue;
        text_node(r, m, path, n, o);
    }
    if (outside) {
        gc_str_printf(o, "%s: %d supported node(s) stay on the CPU outside the delegated partition:", path, outside);
        int32_t shown = 0;
        for (int32_t i = 0; i < r->n_nodes && shown < 24; i++)
            if (r->nodes[i].state == GC_NODE_CPU_PARTITION) {
                gc_str_printf(o, " %s%d", r->nodes[i].subgraph ? "" : "", r->nodes[i].index);
                shown++;
            }
        gc_str_puts(o, outside > shown ? " ...\n" : "\n");
    }
    for (int32_t i = 0; i < r->n_risks; i++) {
        const gc_check_risk *k = &r->risks[i];
        if (k->node >= 0 && k->subgraph < m->n_subgraphs && k->node < m->subgraphs[k->subgraph].n_ops) {
            const gc_check_node *n = NULL;
            for (int32_t j = 0; j < r->n_nodes; j++)
                if (r->nodes[j].subgraph == k->subgraph && r->nodes[j].index == k->node) { n = &r->nodes[j]; break; }
            if (n) {
                where(o, path, n);
                gc_str_printf(o, " %s '%s': ", n->op, node_name(m, n));
            } else {
                gc_str_printf(o, "%s: ", path);
            }
        } else {
            gc_str_printf(o, "%s: ", path);
        }
        gc_str_printf(o, "%s: %s [%s]\n", k->level == GC_RISK_WARN ? "warning" : "note", k->message, k->rule);
        if (k->fix && k->fix[0]) gc_str_printf(o, "  fix: %s\n", k->fix);
    }
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
    if (r->model_error) gc_str_printf(o, "%s: error: %s\n", path, r->model_error);
    if (r->fatal) gc_str_printf(o, "%s: error: %s\n", path, r->fatal);
    if (r->n_subgraphs > 1)
        for (int32_t s = 0; s < r->n_subgraphs; s++) {
            const gc_check_subgraph *S = &r->subgraphs[s];
            if (S->skipped) gc_str_printf(o, "subgraph %d '%s': skipped by the delegate\n", s, S->name);
            else gc_str_printf(o, "subgraph %d '%s': %d/%d nodes on the GPU\n", s, S->name, S->gpu_nodes, S->nodes);
        }
    gc_str_printf(o, "target: %s\n", gc_target_name(r->target));
    gc_check_residency_line(r, o);
    gc_str_puts(o, r->gpu_clean ? " (GPU-clean)\n" : "\n");
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
