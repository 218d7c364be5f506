/* fix_report.c — renders a gc_fix_result (and a gc_fix_verify_result): text and JSON.
 * Decides nothing.
 *
 * JSON (schema 1): schema, tool, model, out, written, target, rounds, hit_max_rounds,
 *   pruned_ops, exactness,
 *   passes [{id, fix_id, exactness, sites, removed, added, declined}],
 *   changes [{pass, subgraph, op, node, detail, removed, added}],
 *   declined [{pass, subgraph, op, node, reason}],
 *   residency {before, after: {gpu_nodes, total_nodes, partitions, refused, gpu_clean}},
 *   gpu_clean,
 *   remaining [{subgraph, index, op, name, state, rule, reason, fix_id, pass, pass_declined}],
 *   verify null | {ran, why, exactness, rtol, atol, pass,
 *                  rows [{signature, inputs, output, n, max_abs, nan_mismatch, inf_mismatch,
 *                         violations, bytes_equal, ok}]}
 */
#include "fix_int.h"

#include <stdio.h>
#include <string.h>

static const char *node_name(const gc_model *m, int32_t sg, int32_t op) {
    if (sg < 0 || sg >= m->n_subgraphs || op < 0 || op >= m->subgraphs[sg].n_ops) return "";
    const gc_subgraph *s = &m->subgraphs[sg];
    const gc_op *o = &s->ops[op];
    if (o->n_outputs > 0 && o->outputs[0] >= 0 && o->outputs[0] < s->n_tensors) return s->tensors[o->outputs[0]].name;
    return "";
}

/* the decline a pass recorded for this node, if any */
static const gc_fix_decline *decline_in(const gc_fix_result *r, const gc_fix_pass *p, int32_t sg, const char *op,
                                        const char *name) {
    for (int32_t i = r->n_declines - 1; i >= 0; i--) {
        const gc_fix_decline *d = &r->declines[i];
        if ((!p || d->pass == p) && d->subgraph == sg && !strcmp(d->op, op) && !strcmp(d->node, name)) return d;
    }
    return NULL;
}

/* the pass the checker names for the node first, then any pass */
static const gc_fix_decline *decline_for(const gc_fix_result *r, const gc_check_node *n, const char *name) {
    const gc_fix_pass *p = n->fix_id && n->fix_id[0] ? gc_fix_pass_find(n->fix_id) : NULL;
    const gc_fix_decline *d = p ? decline_in(r, p, n->subgraph, n->op, name) : NULL;
    return d ? d : decline_in(r, NULL, n->subgraph, n->op, name);
}

static void residency_text(gc_str *o, const gc_fix_residency *x) {
    gc_str_printf(o, "%d/%d nodes", x->gpu_nodes, x->total_nodes);
}

void gc_fix_text(const gc_fix_result *r, const gc_model *m, const char *in_path, const char *out_path, gc_str *o) {
    gc_str_printf(o, "gpuclean fix: %s -> %s (target %s)\n", in_path, out_path ? out_path : "(not written)",
                  gc_target_name(r->target));
    gc_str idle = {0};
    int n_idle = 0;
    for (int32_t i = 0; i < r->n_stats; i++) {
        const gc_fix_pass_stat *s = &r->stats[i];
        if (!s->sites) { gc_str_printf(&idle, "%s%s", n_idle++ ? ", " : "", s->pass->id); continue; }
        gc_str_printf(o, "%s [%s]: %d site(s), %d op(s) removed, %d added (%s)\n", s->pass->id, s->pass->fix_id,
                      s->sites, s->removed, s->added, gc_fix_exactness_name(s->pass->exactness));
        for (int32_t k = 0; k < r->n_changes; k++) {
            const gc_fix_change *c = &r->changes[k];
            if (c->pass != s->pass) continue;
            if (c->subgraph) gc_str_printf(o, "  subgraph %d ", c->subgraph); else gc_str_puts(o, "  ");
            gc_str_printf(o, "%s '%s' -> %s\n", c->op, c->node, c->detail);
        }
    }
    if (n_idle) gc_str_printf(o, "nothing to do: %s\n", idle.s);
    gc_str_free(&idle);
    if (r->n_declines) {
        gc_str_puts(o, "left alone:\n");
        for (int32_t k = 0; k < r->n_declines; k++) {
            const gc_fix_decline *d = &r->declines[k];
            gc_str_printf(o, "  %s: %s '%s': %s\n", d->pass->id, d->op, d->node, d->reason);
        }
    }
    if (r->pruned_ops) gc_str_printf(o, "pruned %d op(s) whose outputs nothing reads\n", r->pruned_ops);
    if (r->hit_max_rounds) gc_str_printf(o, "stopped after %d rounds (not a fixpoint)\n", r->rounds);
    if (r->progress_rejected) {
        gc_str_puts(o, "judged strictly: keeping every rewrite that removed a refusal gave ");
        residency_text(o, &r->progress);
        gc_str_printf(o, " in %d partition(s) (%d CPU node(s) instead of %d), so each rewrite had to add no CPU "
                      "node and no partition on its own\n", r->progress.partitions,
                      r->progress.total_nodes - r->progress.gpu_nodes, r->before.total_nodes - r->before.gpu_nodes);
    }
    gc_str_puts(o, "GPU residency: ");
    residency_text(o, &r->before);
    gc_str_puts(o, " -> ");
    residency_text(o, &r->after);
    gc_str_printf(o, " in %d partition(s)%s\n", r->after.partitions, r->after.gpu_clean ? " (GPU-clean)" : "");
    const gc_check_result *ck = r->check;
    if (ck && !ck->gpu_clean) {
        gc_str_puts(o, "remaining:\n");
        if (ck->fatal) gc_str_printf(o, "  delegate init fails: %s\n", ck->fatal);
        if (ck->model_error) gc_str_printf(o, "  %s\n", ck->model_error);
        int32_t outside = 0;
        for (int32_t i = 0; i < ck->n_nodes; i++) {
            const gc_check_node *n = &ck->nodes[i];
            if (n->state == GC_NODE_CPU_PARTITION) { outside++; continue; }
            if (n->state != GC_NODE_REJECTED && n->state != GC_NODE_FP16_DEQUANT) continue;
            const char *name = node_name(m, n->subgraph, n->index);
            gc_str_puts(o, "  ");
            if (n->subgraph) gc_str_printf(o, "subgraph %d ", n->subgraph);
            gc_str_printf(o, "node %d %s '%s': %s [%s]", n->index, n->op, name, n->reason, n->rule ? n->rule : "");
            const gc_fix_pass *p = n->fix_id && n->fix_id[0] ? gc_fix_pass_find(n->fix_id) : NULL;
            const gc_fix_decline *d = decline_for(r, n, name);
            if (d) gc_str_printf(o, "\n    %s left it: %s\n", d->pass->id, d->reason);
            else if (p) gc_str_printf(o, "\n    %s [%s] did not apply\n", p->id, n->fix_id);
            else if (n->fix_id && n->fix_id[0] && gc_fix_id_advice(n->fix_id))
                gc_str_printf(o, "\n    no gpuclean rewrite for %s: %s\n", n->fix_id, n->fix_tflite ? n->fix_tflite : "");
            else if (n->fix_id && n->fix_id[0])
                gc_str_printf(o, "\n    no gpuclean rewrite for %s (%s)\n", n->fix_id, n->fix_tflite ? n->fix_tflite : "");
            else gc_str_puts(o, "\n    no gpuclean rewrite\n");
        }
        if (outside) gc_str_printf(o, "  %d supported node(s) stay on the CPU outside the delegated partition\n", outside);
    }
}

void gc_fix_verify_text(const gc_fix_verify_result *v, gc_str *o) {
    gc_str_printf(o, "verify (reference interpreter, fp32; stated: %s", gc_fix_exactness_name(v->exactness));
    if (v->exactness == GC_FIX_TOLERANCE) gc_str_printf(o, ", rtol %g atol %g", v->rtol, v->atol);
    gc_str_puts(o, "):\n");
    for (int32_t i = 0; i < v->n_rows; i++) {
        const gc_fix_vrow *r = &v->rows[i];
        gc_str_printf(o, "  %-12s", r->inputs);
        if (r->signature > 0) gc_str_printf(o, " signature %d", r->signature);
        gc_str_printf(o, " output '%s': max |diff| %.9g%s", r->output, r->max_abs, r->bytes_equal ? ", bytes equal" : "");
        if (r->nan_mismatch) gc_str_printf(o, ", %llu NaN mismatch(es)", (unsigned long long)r->nan_mismatch);
        if (r->inf_mismatch) gc_str_printf(o, ", %llu inf mismatch(es)", (unsigned long long)r->inf_mismatch);
        gc_str_puts(o, r->ok ? "  ok\n" : "  EXCEEDS the stated exactness\n");
    }
    if (!v->ran) gc_str_printf(o, "  not verified: %s\n", v->why);
    else if (v->why[0]) gc_str_printf(o, "  FAILED: %s\n", v->why);
    else gc_str_puts(o, v->pass ? "verified: every output within the stated exactness\n"
                                : "FAILED: a rewrite changed fp32 outputs beyond its stated exactness\n");
}

/* ---- JSON -------------------------------------------------------------------------- */

static void jstr(gc_str *o, const char *s) { gc_str_json(o, s ? s : ""); }

static void jres(gc_str *o, const gc_fix_residency *x) {
    gc_str_printf(o, "{\"gpu_nodes\": %d, \"total_nodes\": %d, \"partitions\": %d, \"refused\": %d, \"gpu_clean\": %s}",
                  x->gpu_nodes, x->total_nodes, x->partitions, x->refused, x->gpu_clean ? "true" : "false");
}

static void jnum(gc_str *o, double v) {
    if (v != v || v > 1e308 || v < -1e308) gc_str_puts(o, "null");
    else gc_str_printf(o, "%.17g", v);
}

void gc_fix_json(const gc_fix_result *r, const gc_model *m, const char *in_path, const char *out_path,
                 const gc_fix_verify_result *v, bool written, gc_str *o) {
    gc_str_puts(o, "{\"schema\": 1, \"tool\": \"gpuclean fix\", \"model\": ");
    jstr(o, in_path);
    gc_str_puts(o, ", \"out\": ");
    if (out_path) jstr(o, out_path); else gc_str_puts(o, "null");
    gc_str_printf(o, ", \"written\": %s, \"target\": \"%s\", \"rounds\": %d, \"hit_max_rounds\": %s, \"pruned_ops\": %d, "
                     "\"exactness\": \"%s\",\n \"passes\": [",
                  written ? "true" : "false", gc_target_name(r->target), r->rounds, r->hit_max_rounds ? "true" : "false",
                  r->pruned_ops, gc_fix_exactness_name(r->exactness));
    for (int32_t i = 0; i < r->n_stats; i++) {
        const gc_fix_pass_stat *s = &r->stats[i];
        gc_str_printf(o, "%s\n  {\"id\": \"%s\", \"fix_id\": \"%s\", \"exactness\": \"%s\", \"sites\": %d, "
                         "\"removed\": %d, \"added\": %d, \"declined\": %d}",
                      i ? "," : "", s->pass->id, s->pass->fix_id, gc_fix_exactness_name(s->pass->exactness), s->sites,
                      s->removed, s->added, s->declined);
    }
    gc_str_puts(o, "],\n \"changes\": [");
    for (int32_t i = 0; i < r->n_changes; i++) {
        const gc_fix_change *c = &r->changes[i];
        gc_str_printf(o, "%s\n  {\"pass\": \"%s\", \"subgraph\": %d, \"op\": ", i ? "," : "", c->pass->id, c->subgraph);
        jstr(o, c->op);
        gc_str_puts(o, ", \"node\": ");
        jstr(o, c->node);
        gc_str_puts(o, ", \"detail\": ");
        jstr(o, c->detail);
        gc_str_printf(o, ", \"removed\": %d, \"added\": %d}", c->removed, c->added);
    }
    gc_str_puts(o, "],\n \"declined\": [");
    for (int32_t i = 0; i < r->n_declines; i++) {
        const gc_fix_decline *d = &r->declines[i];
        gc_str_printf(o, "%s\n  {\"pass\": \"%s\", \"subgraph\": %d, \"op\": ", i ? "," : "", d->pass->id, d->subgraph);
        jstr(o, d->op);
        gc_str_puts(o, ", \"node\": ");
        jstr(o, d->node);
        gc_str_puts(o, ", \"reason\": ");
        jstr(o, d->reason);
        gc_str_putc(o, '}');
    }
    gc_str_puts(o, "],\n \"residency\": {\"before\": ");
    jres(o, &r->before);
    gc_str_puts(o, ", \"after\": ");
    jres(o, &r->after);
    gc_str_printf(o, "},\n \"gpu_clean\": %s,\n \"remaining\": [", r->after.gpu_clean ? "true" : "false");
    const gc_check_result *ck = r->check;
    int32_t k = 0;
    for (int32_t i = 0; ck && i < ck->n_nodes; i++) {
        const gc_check_node *n = &ck->nodes[i];
        if (n->gpu || n->state == GC_NODE_SKIPPED) continue;
        const char *name = node_name(m, n->subgraph, n->index);
        gc_str_printf(o, "%s\n  {\"subgraph\": %d, \"index\": %d, \"op\": ", k++ ? "," : "", n->subgraph, n->index);
        jstr(o, n->op);
        gc_str_puts(o, ", \"name\": ");
        jstr(o, name);
        gc_str_printf(o, ", \"state\": \"%s\", \"rule\": ", gc_node_state_name(n->state));
        if (n->rule) jstr(o, n->rule); else gc_str_puts(o, "null");
        gc_str_puts(o, ", \"reason\": ");
        jstr(o, n->reason);
        gc_str_puts(o, ", \"fix_id\": ");
        if (n->fix_id && n->fix_id[0]) jstr(o, n->fix_id); else gc_str_puts(o, "null");
        const gc_fix_pass *p = n->fix_id && n->fix_id[0] ? gc_fix_pass_find(n->fix_id) : NULL;
        const gc_fix_decline *d = decline_for(r, n, name);
        gc_str_puts(o, ", \"pass\": ");
        if (d) jstr(o, d->pass->id); else if (p) jstr(o, p->id); else gc_str_puts(o, "null");
        gc_str_puts(o, ", \"pass_declined\": ");
        if (d) jstr(o, d->reason); else gc_str_puts(o, "null");
        gc_str_putc(o, '}');
    }
    gc_str_puts(o, "],\n \"verify\": ");
    if (!v) gc_str_puts(o, "null");
    else {
        gc_str_printf(o, "{\"ran\": %s, \"why\": ", v->ran ? "true" : "false");
        if (v->why[0]) jstr(o, v->why); else gc_str_puts(o, "null");
        gc_str_printf(o, ", \"exactness\": \"%s\", \"rtol\": ", gc_fix_exactness_name(v->exactness));
        jnum(o, v->rtol);
        gc_str_puts(o, ", \"atol\": ");
        jnum(o, v->atol);
        gc_str_printf(o, ", \"pass\": %s, \"rows\": [", v->pass ? "true" : "false");
        for (int32_t i = 0; i < v->n_rows; i++) {
            const gc_fix_vrow *w = &v->rows[i];
            gc_str_printf(o, "%s\n  {\"signature\": %d, \"inputs\": ", i ? "," : "", w->signature);
            jstr(o, w->inputs);
            gc_str_puts(o, ", \"output\": ");
            jstr(o, w->output);
            gc_str_printf(o, ", \"n\": %llu, \"max_abs\": ", (unsigned long long)w->n);
            jnum(o, w->max_abs);
            gc_str_printf(o, ", \"nan_mismatch\": %llu, \"inf_mismatch\": %llu, \"violations\": %llu, "
                             "\"bytes_equal\": %s, \"ok\": %s}",
                          (unsigned long long)w->nan_mismatch, (unsigned long long)w->inf_mismatch,
                          (unsigned long long)w->violations, w->bytes_equal ? "true" : "false", w->ok ? "true" : "false");
        }
        gc_str_puts(o, "]}");
    }
    gc_str_puts(o, "}\n");
}
