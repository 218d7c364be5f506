/* gpu_bisect_report.c — text and JSON of a GPU bisection (gpu_bisect.h). The JSON's
 * fields are listed in docs/json.md ("gpuclean bisect MODEL --runtime native|js"). */
#include "verify/gpu_bisect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/litert_json.h"

/* ---- text ------------------------------------------------------------------------------ */

static void shape_text(gc_str *o, int rank, const int32_t *shape) {
    gc_str_putc(o, '[');
    for (int d = 0; d < rank; d++) gc_str_printf(o, "%s%d", d ? "," : "", shape[d]);
    gc_str_putc(o, ']');
}

static void target_text(const gc_gb_result *r, const gc_gb_probe *p, gc_str *o) {
    if (p->target == GC_GB_T_FULL) { gc_str_printf(o, "full model (%d output%s)", p->n_outs, p->n_outs == 1 ? "" : "s"); return; }
    const gc_gb_point *pt = &r->points[p->point];
    gc_str_printf(o, "op %d %s -> '%s' ", pt->op, pt->op_name, pt->tensor_name);
    shape_text(o, pt->rank, pt->shape);
}

static void cmp_text(const gc_gb_cmp *c, double min_corr, gc_str *o) {
    if (!c->have) { gc_str_printf(o, "not compared%s%s", c->problem[0] ? ": " : "", c->problem); return; }
    if (c->nan_mismatch)
        gc_str_printf(o, "%llu of %llu value(s) NaN/Inf on one side only; finite ", (unsigned long long)c->nan_mismatch,
                      (unsigned long long)c->n);
    gc_str_printf(o, "max|diff| %.4g %s limit %.4g (rel %.3g), corr ", c->max_abs, c->max_abs > c->limit ? ">" : "<=", c->limit, c->rel);
    if (c->has_corr) gc_str_printf(o, "%.6f%s", c->corr, !c->pass && c->corr < min_corr ? " < min" : "");
    else gc_str_puts(o, "n/a");
}

/* Whatever the checker's JSON says about the node: state, rule, reason, fix, numerics. */
static void check_text(const gc_gb_result *r, gc_str *o) {
    if (!r->check_node) { gc_str_puts(o, "  check:  (no checker verdict for this node)\n"); return; }
    gc_arena a = {0};
    char e[128];
    const gc_lj *n = gc_lj_parse(&a, r->check_node, strlen(r->check_node), e, sizeof e);
    const char *state = gc_lj_str(gc_lj_get(n, "state"), "?");
    const char *rule = gc_lj_str(gc_lj_get(n, "rule"), NULL), *reason = gc_lj_str(gc_lj_get(n, "reason"), "");
    if (!strcmp(state, "gpu") && !rule) gc_str_puts(o, "  check:  on the GPU; no rule names this node\n");
    else {
        gc_str_printf(o, "  check:  %s", state);
        if (rule) gc_str_printf(o, " [%s]", rule);
        if (reason[0]) gc_str_printf(o, ": %s", reason);
        gc_str_putc(o, '\n');
    }
    const gc_lj *fx = gc_lj_get(n, "fix");
    const char *fid = gc_lj_str(gc_lj_get(fx, "id"), NULL), *ftl = gc_lj_str(gc_lj_get(fx, "tflite"), NULL);
    if (fid && strcmp(fid, "fix.none")) gc_str_printf(o, "  fix:    %s%s%s\n", fid, ftl ? ": " : "", ftl ? ftl : "");
    const gc_lj *num = gc_lj_get(n, "numerics");
    if (num && num->type == GC_LJ_STR) {
        gc_str_printf(o, "  numerics: %s", num->str);
        const char *nr = gc_lj_str(gc_lj_get(n, "numerics_rule"), NULL);
        if (nr) gc_str_printf(o, " [%s]", nr);
        const gc_lj *ev = gc_lj_get(n, "evidence");
        if (ev && ev->type == GC_LJ_OBJ) {
            gc_str_puts(o, " evidence:");
            for (int32_t i = 0; i < ev->count; i++) {
                const gc_lj *v = &ev->items[i];
                if (v->type == GC_LJ_STR) gc_str_printf(o, " %s=%s", ev->keys[i], v->str);
                else if (v->type == GC_LJ_NUM) gc_str_printf(o, " %s=%.4g", ev->keys[i], v->num);
                else if (v->type == GC_LJ_BOOL) gc_str_printf(o, " %s=%s", ev->keys[i], v->b ? "true" : "false");
            }
        }
        gc_str_putc(o, '\n');
    } else gc_str_puts(o, "  numerics: (the checker has no numerics verdict for this node)\n");
    gc_arena_free(&a);
    if (r->check_risks) {
        const gc_lj *rs = gc_lj_parse(&a, r->check_risks, strlen(r->check_risks), e, sizeof e);
        for (int32_t i = 0; i < gc_lj_len(rs); i++) {
            const gc_lj *x = gc_lj_at(rs, i);
            gc_str_printf(o, "  risk:   %s: %s\n", gc_lj_str(gc_lj_get(x, "rule"), "?"), gc_lj_str(gc_lj_get(x, "message"), ""));
            const char *f = gc_lj_str(gc_lj_get(x, "fix"), "");
            if (f[0]) gc_str_printf(o, "          fix: %s\n", f);
        }
        gc_arena_free(&a);
    }
}

void gc_gb_text(const gc_gb_result *r, gc_str *o) {
    gc_str_printf(o, "model:     %s (subgraph %d: %d ops, %d probe points in execution order)\n", r->model, r->subgraph,
                  r->n_ops, r->n_points);
    gc_str_printf(o, "runtime:   %s %s: ", r->runtime, r->runtime_version ? r->runtime_version : "");
    if (!strcmp(r->gpu_side, "gpu")) gc_str_printf(o, "GPU %s vs CPU\n", r->precision);
    else gc_str_printf(o, "%s vs CPU (no GPU involved)\n", r->gpu_side);
    gc_str_printf(o, "inputs:    %s\n", r->inputs_desc);
    gc_str_printf(o, "tolerance: |gpu-cpu| <= %g + %g*max|cpu|, corr >= %g (integers: 1 step)\n\n", r->tol.atol, r->tol.rtol,
                  r->tol.min_corr);
    gc_str_printf(o, "probes: %d prefix compile%s (ceil(log2 %d)+2 = %d)\n", r->n_probes, r->n_probes == 1 ? "" : "s",
                  r->n_points, r->probe_bound);
    for (int i = 0; i < r->n_probes; i++) {
        const gc_gb_probe *p = &r->probes[i];
        gc_str_printf(o, "  %3d  ", p->index);
        target_text(r, p, o);
        gc_str_printf(o, ": %s", p->status);
        if (p->cmp.have) { gc_str_puts(o, ": "); cmp_text(&p->cmp, r->tol.min_corr, o); }
        if (p->gpu_ops >= 0) gc_str_printf(o, " (%d/%d nodes on GPU)", p->gpu_ops, p->gpu_ops + p->cpu_ops);
        gc_str_putc(o, '\n');
        if (p->note[0]) gc_str_printf(o, "         %s\n", p->note);
        if (p->target == GC_GB_T_FULL && p->n_outs > 1)
            for (int k = 0; k < p->n_outs; k++) {
                gc_str_printf(o, "         output '%s': ", p->outs[k].name);
                cmp_text(&p->outs[k], r->tol.min_corr, o);
                gc_str_puts(o, p->outs[k].have && !p->outs[k].pass ? " DIVERGES\n" : "\n");
            }
    }
    if (r->kind == GC_GB_R_FOUND && r->first >= 0) {
        const gc_gb_point *f = &r->points[r->first];
        gc_str_printf(o, "\nfirst divergent op: op %d %s -> tensor %d '%s' ", f->op, f->op_name, f->tensor, f->tensor_name);
        shape_text(o, f->rank, f->shape);
        gc_str_printf(o, " %s\n  GPU vs CPU: ", f->dtype);
        cmp_text(&r->first_cmp, r->tol.min_corr, o);
        if (r->first_probe >= 0) gc_str_printf(o, " (probe %d%s)", r->first_probe + 1,
                                               r->probes[r->first_probe].target == GC_GB_T_FULL ? ": the full model's output" : "");
        gc_str_puts(o, "\n  inputs:\n");
        for (int i = 0; i < r->n_inputs; i++) {
            const gc_gb_input *x = &r->inputs[i];
            if (x->kind == GC_GB_IN_NONE) { gc_str_printf(o, "    [%d] (absent)\n", x->slot); continue; }
            gc_str_printf(o, "    [%d] tensor %d '%s' %s", x->slot, x->tensor, x->tensor_name, x->dtype);
            if (x->op >= 0) gc_str_printf(o, " from op %d %s", x->op, x->op_name);
            switch (x->kind) {
            case GC_GB_IN_CONSTANT: gc_str_puts(o, ": constant"); break;
            case GC_GB_IN_GRAPH_INPUT: gc_str_puts(o, ": model input (the same on both sides)"); break;
            case GC_GB_IN_NOT_PROBED: gc_str_puts(o, ": not probed (neither float32 nor quantized)"); break;
            default:
                gc_str_printf(o, ": %s", x->probe >= 0 ? r->probes[x->probe].status : "not probed");
                if (x->cmp.have) { gc_str_puts(o, ": "); cmp_text(&x->cmp, r->tol.min_corr, o); }
                if (x->probe >= 0) gc_str_printf(o, " (probe %d)", x->probe + 1);
            }
            gc_str_putc(o, '\n');
        }
        check_text(r, o);
        for (int i = 0; i < r->n_inputs; i++)
            if (r->inputs[i].kind == GC_GB_IN_NOT_PROBED)
                gc_str_printf(o, "note: input [%d] (%s from op %d %s) is not a probe point: the divergence can start before it\n",
                              r->inputs[i].slot, r->inputs[i].dtype, r->inputs[i].op, r->inputs[i].op_name ? r->inputs[i].op_name : "?");
    }
    if (r->n_restarts)
        gc_str_printf(o, "note: the divergence is not monotone along the execution order: %d confirming probe%s found a divergent input and the search went on before it\n",
                      r->n_restarts, r->n_restarts == 1 ? "" : "s");
    if (r->n_skipped)
        gc_str_printf(o, "note: %d probe%s could not be judged on the GPU (ran on CPU, compile failed, ...): counted as within tolerance\n",
                      r->n_skipped, r->n_skipped == 1 ? "" : "s");
    gc_str_printf(o, "verdict: %s\n", r->text);
}

/* ---- JSON -------------------------------------------------------------------------------- */

static void jnum(gc_str *j, const char *key, double v, bool have) {
    gc_str_printf(j, ",\"%s\":", key);
    if (!have || !isfinite(v)) gc_str_puts(j, "null"); else gc_str_printf(j, "%.9g", v);
}

static void jstr(gc_str *j, const char *key, const char *v) {
    gc_str_printf(j, ",\"%s\":", key);
    if (v) gc_str_json(j, v); else gc_str_puts(j, "null");
}

static void jint(gc_str *j, const char *key, long long v, bool have) {
    gc_str_printf(j, ",\"%s\":", key);
    if (have) gc_str_printf(j, "%lld", v); else gc_str_puts(j, "null");
}

static void cmp_json(gc_str *j, const gc_gb_cmp *c) {
    gc_str_puts(j, "{\"name\":");
    gc_str_json(j, c->name);
    jint(j, "tensor", c->tensor, c->tensor >= 0);
    gc_str_printf(j, ",\"compared\":%s", c->have ? "true" : "false");
    jnum(j, "max_abs", c->max_abs, c->have);
    jnum(j, "ref_max_abs", c->ref_max, c->have);
    jnum(j, "rel", c->rel, c->have);
    jnum(j, "limit", c->limit, c->have);
    jnum(j, "corr", c->corr, c->have && c->has_corr);
    gc_str_printf(j, ",\"nan_mismatch\":%llu,\"identical\":%s,\"pass\":%s", (unsigned long long)c->nan_mismatch,
                  c->identical ? "true" : "false", c->pass ? "true" : "false");
    jstr(j, "problem", c->problem[0] ? c->problem : NULL);
    gc_str_putc(j, '}');
}

static void shape_json(gc_str *j, int rank, const int32_t *shape) {
    gc_str_puts(j, ",\"shape\":[");
    for (int d = 0; d < rank; d++) gc_str_printf(j, "%s%d", d ? "," : "", shape[d]);
    gc_str_putc(j, ']');
}

static void point_json(gc_str *j, const gc_gb_point *p) {
    gc_str_printf(j, "\"op\":%d,\"position\":%d", p->op, p->pos);
    jstr(j, "op_name", p->op_name);
    gc_str_printf(j, ",\"tensor\":%d", p->tensor);
    jstr(j, "tensor_name", p->tensor_name);
    jstr(j, "dtype", p->dtype);
    shape_json(j, p->rank, p->shape);
}

void gc_gb_json(const gc_gb_result *r, gc_str *j) {
    gc_str_puts(j, "{\"schema\":1,\"mode\":\"gpu\",\"model\":");
    gc_str_json(j, r->model);
    jstr(j, "runtime", r->runtime);
    jstr(j, "runtime_version", r->runtime_version);
    jstr(j, "precision", r->precision);
    jstr(j, "gpu_side", r->gpu_side);
    jstr(j, "inputs", r->inputs_desc);
    gc_str_printf(j, ",\"tolerance\":{\"atol\":%g,\"rtol\":%g,\"min_corr\":%g}", r->tol.atol, r->tol.rtol, r->tol.min_corr);
    gc_str_printf(j, ",\"subgraph\":%d,\"ops\":%d,\"points\":%d", r->subgraph, r->n_ops, r->n_points);
    gc_str_printf(j, ",\"verdict\":{\"kind\":\"%s\",\"text\":", gc_gb_kind_name(r->kind));
    gc_str_json(j, r->text);
    gc_str_printf(j, "},\"exit\":%d", gc_gb_exit_code(r));
    gc_str_puts(j, ",\"first\":");
    if (r->kind == GC_GB_R_FOUND && r->first >= 0) {
        gc_str_putc(j, '{');
        point_json(j, &r->points[r->first]);
        jint(j, "probe", r->first_probe + 1, r->first_probe >= 0);
        gc_str_puts(j, ",\"cmp\":");
        cmp_json(j, &r->first_cmp);
        gc_str_putc(j, '}');
    } else gc_str_puts(j, "null");
    gc_str_puts(j, ",\"first_inputs\":[");
    for (int i = 0; i < r->n_inputs; i++) {
        const gc_gb_input *x = &r->inputs[i];
        gc_str_printf(j, "%s{\"slot\":%d", i ? "," : "", x->slot);
        jint(j, "tensor", x->tensor, x->kind != GC_GB_IN_NONE);
        jstr(j, "tensor_name", x->kind != GC_GB_IN_NONE ? x->tensor_name : NULL);
        jstr(j, "dtype", x->kind != GC_GB_IN_NONE ? x->dtype : NULL);
        jstr(j, "kind", gc_gb_in_kind_name(x->kind));
        jint(j, "op", x->op, x->op >= 0);
        jstr(j, "op_name", x->op >= 0 ? x->op_name : NULL);
        jstr(j, "verdict", x->probe >= 0 ? gc_gb_verdict_name(x->verdict) : NULL);
        jint(j, "probe", x->probe + 1, x->probe >= 0);
        gc_str_puts(j, ",\"cmp\":");
        if (x->probe >= 0) cmp_json(j, &x->cmp); else gc_str_puts(j, "null");
        gc_str_putc(j, '}');
    }
    gc_str_puts(j, "],\"check\":");
    gc_str_puts(j, r->check_node ? r->check_node : "null");
    gc_str_puts(j, ",\"check_risks\":");
    gc_str_puts(j, r->check_risks ? r->check_risks : "[]");
    gc_str_printf(j, ",\"monotone\":%s,\"restarts\":%d,\"skipped\":%d,\"probes_used\":%d,\"probe_bound\":%d",
                  r->n_restarts ? "false" : "true", r->n_restarts, r->n_skipped, r->n_probes, r->probe_bound);
    gc_str_puts(j, ",\"probes\":[");
    for (int i = 0; i < r->n_probes; i++) {
        const gc_gb_probe *p = &r->probes[i];
        gc_str_printf(j, "%s{\"index\":%d,\"target\":\"%s\"", i ? "," : "", p->index, p->target == GC_GB_T_FULL ? "full" : "point");
        if (p->target == GC_GB_T_POINT) { gc_str_putc(j, ','); point_json(j, &r->points[p->point]); }
        jstr(j, "verdict", gc_gb_verdict_name(p->verdict));
        jstr(j, "status", p->status);
        jstr(j, "note", p->note[0] ? p->note : NULL);
        gc_str_puts(j, ",\"residency\":");
        if (p->gpu_ops >= 0) gc_str_printf(j, "{\"gpu_ops\":%d,\"cpu_ops\":%d}", p->gpu_ops, p->cpu_ops);
        else gc_str_puts(j, "null");
        gc_str_printf(j, ",\"seconds\":%.3f,\"cmp\":", p->seconds);
        cmp_json(j, &p->cmp);
        if (p->target == GC_GB_T_FULL) {
            gc_str_puts(j, ",\"outputs\":[");
            for (int k = 0; k < p->n_outs; k++) { if (k) gc_str_putc(j, ','); cmp_json(j, &p->outs[k]); }
            gc_str_putc(j, ']');
        }
        gc_str_putc(j, '}');
    }
    gc_str_puts(j, "]}\n");
}
