/* numerics_doc.c — renders the measured GPU facts (numerics.h): the evidence of one fact,
 * a node's numerics finding in check's text and JSON, `check --list-runtimes`, the fact
 * rows of `--list-rules`, `--explain FACT` and the "Measured GPU facts" section of
 * docs/rules.md. Decides nothing; the engine is numerics.c. */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

static const char *s0(const char *s) { return s ? s : ""; }

/* "a, b, c" from "a,b,c" */
static void cases_text(gc_str *o, const char *ev) {
    for (const char *p = s0(ev); *p; p++) {
        if (*p == ',') { gc_str_puts(o, ", "); while (p[1] == ' ') p++; }
        else gc_str_putc(o, *p);
    }
}

static void measured_on(gc_str *o, const gc_gpu_fact *f) {
    gc_str_printf(o, "measured on %s (%s, %s)", s0(f->runtime), s0(f->device), gc_fact_precision_name(f->precision));
}

void gc_fact_evidence_text(const gc_gpu_fact *f, gc_str *o) {
    if (!f) return;
    measured_on(o, f);
    if (f->verdict != GC_FACT_INIT_FAILED && f->error && f->error[0]) gc_str_printf(o, ": %s", f->error);
    if (f->evidence && f->evidence[0]) { gc_str_puts(o, "; cases: "); cases_text(o, f->evidence); }
}

static void fix_lines(gc_str *o, const char *id, const char *torch, const char *tflite) {
    if (!id || !id[0]) return;
    if (torch && torch[0]) gc_str_printf(o, "  fix: %s\n", torch);
    if (tflite && tflite[0]) gc_str_printf(o, "  fix (.tflite): %s [%s]\n", tflite, id);
    if ((!torch || !torch[0]) && (!tflite || !tflite[0])) gc_str_printf(o, "  fix: %s\n", id);
}

void gc_check_numerics_text(const gc_check_result *r, const gc_check_node *n, gc_str *o) {
    const gc_gpu_fact *f = n->evidence;
    if (!f) return;
    if (n->numerics == GC_NUM_WRONG && f->verdict == GC_FACT_CRASHED)
        gc_str_printf(o, "error: the GPU runtime crashed on this node: %s [%s]\n", s0(f->message), s0(f->id));
    else if (n->numerics == GC_NUM_WRONG)
        gc_str_printf(o, "error: wrong numbers on the GPU: %s [%s]\n", s0(f->message), s0(f->id));
    else
        gc_str_printf(o, "warning: wrong numbers on the GPU at %s: %s [%s] (counted as wrong with --precision %s)\n",
                      gc_fact_precision_name(f->precision), s0(f->message), s0(f->id),
                      gc_fact_precision_name(f->precision));
    gc_str_puts(o, "  ");
    gc_fact_evidence_text(f, o);
    gc_str_putc(o, '\n');
    if (n->numerics == GC_NUM_WRONG) fix_lines(o, n->fix_id, n->fix_torch, n->fix_tflite);
    else if (f->fix && f->fix[0]) {
        gc_fix x = gc_fix_by_id(f->fix);
        fix_lines(o, f->fix, x.torch, x.tflite);
    }
    (void)r;
}

void gc_check_evidence_json(const gc_check_result *r, const gc_gpu_fact *f, gc_str *o) {
    if (!f) { gc_str_puts(o, "null"); return; }
    const gc_gpu_runtime *rt = r && r->facts ? gc_facts_runtime(r->facts, f->runtime) : NULL;
    gc_str_puts(o, "{\"fact\": ");
    gc_str_json(o, s0(f->id));
    gc_str_puts(o, ", \"runtime\": ");
    gc_str_json(o, rt ? rt->kind : s0(f->runtime));
    gc_str_puts(o, ", \"version\": ");
    gc_str_json(o, rt ? rt->version : "");
    gc_str_puts(o, ", \"device\": ");
    gc_str_json(o, s0(f->device));
    gc_str_printf(o, ", \"precision\": \"%s\", \"verdict\": \"%s\", \"error\": ", gc_fact_precision_name(f->precision),
                  gc_fact_verdict_name(f->verdict));
    gc_str_json(o, s0(f->error));
    gc_str_puts(o, ", \"cases\": [");
    int k = 0;
    for (const char *p = s0(f->evidence); *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ') { p++; len--; }
        while (len && p[len - 1] == ' ') len--;
        if (len) {
            char buf[256];
            snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), p);
            if (k++) gc_str_puts(o, ", ");
            gc_str_json(o, buf);
        }
        if (!e) break;
        p = e + 1;
    }
    gc_str_puts(o, "], \"message\": ");
    gc_str_json(o, s0(f->message));
    gc_str_puts(o, ", \"fix\": ");
    if (f->fix && f->fix[0]) gc_str_json(o, f->fix); else gc_str_puts(o, "null");
    gc_str_puts(o, ", \"source\": ");
    char src[300];
    snprintf(src, sizeof src, "%s:%d", r && r->facts && r->facts->source ? r->facts->source : "facts", f->line);
    gc_str_json(o, src);
    gc_str_putc(o, '}');
}

/* ---- the catalogue ------------------------------------------------------------------------- */

/* distinct devices of a runtime's facts, in table order */
static int devices_of(const gc_gpu_facts *t, const char *rt, const char **dev, int cap) {
    int n = 0;
    for (int i = 0; i < t->n_facts; i++) {
        if (strcmp(t->facts[i].runtime, rt)) continue;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++) seen = !strcmp(dev[k], t->facts[i].device);
        if (!seen && n < cap) dev[n++] = t->facts[i].device;
    }
    return n;
}

#define MAX_DEVICES 32

void gc_facts_runtimes_text(const gc_gpu_facts *t, gc_str *o) {
    gc_str_puts(o, "# runtime\tkind\tversion\tdevice\tfacts\tdefault\twhat\n");
    for (int i = 0; t && i < t->n_runtimes; i++) {
        const gc_gpu_runtime *rt = &t->runtimes[i];
        const char *dev[MAX_DEVICES];
        int nd = devices_of(t, rt->name, dev, MAX_DEVICES);
        for (int k = 0; k < (nd ? nd : 1); k++)
            gc_str_printf(o, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", rt->name, rt->kind, rt->version, nd ? dev[k] : "-",
                          nd ? gc_facts_count(t, rt->name, dev[k]) : 0, rt->is_default ? "default" : "-", rt->what);
    }
}

void gc_facts_runtimes_json(const gc_gpu_facts *t, gc_str *o) {
    gc_str_puts(o, "{\"schema\": 1, \"tool\": \"gpuclean check\", \"facts\": ");
    gc_str_json(o, t && t->source ? t->source : "");
    gc_str_printf(o, ", \"n_facts\": %d, \"runtimes\": [", t ? t->n_facts : 0);
    for (int i = 0; t && i < t->n_runtimes; i++) {
        const gc_gpu_runtime *rt = &t->runtimes[i];
        gc_str_printf(o, "%s\n  {\"name\": ", i ? "," : "");
        gc_str_json(o, rt->name);
        gc_str_puts(o, ", \"runtime\": ");
        gc_str_json(o, rt->kind);
        gc_str_puts(o, ", \"version\": ");
        gc_str_json(o, rt->version);
        gc_str_printf(o, ", \"default\": %s, \"what\": ", rt->is_default ? "true" : "false");
        gc_str_json(o, rt->what);
        gc_str_printf(o, ", \"facts\": %d, \"devices\": [", gc_facts_count(t, rt->name, NULL));
        const char *dev[MAX_DEVICES];
        int nd = devices_of(t, rt->name, dev, MAX_DEVICES);
        for (int k = 0; k < nd; k++) {
            gc_str_puts(o, k ? ", {\"device\": " : "{\"device\": ");
            gc_str_json(o, dev[k]);
            gc_str_printf(o, ", \"facts\": %d}", gc_facts_count(t, rt->name, dev[k]));
        }
        gc_str_puts(o, "]}");
    }
    gc_str_puts(o, "]}\n");
}

static void where_text(gc_str *o, const gc_gpu_fact *f, const char *sep) {
    gc_str_printf(o, "%s%s%s%s%s", f->runtime, sep, f->device, sep, gc_fact_precision_name(f->precision));
}

void gc_facts_list_text(const gc_gpu_facts *t, gc_str *o) {
    for (int i = 0; t && i < t->n_facts; i++) {
        const gc_gpu_fact *f = &t->facts[i];
        gc_str_printf(o, "%s\tfact (%s)\t", f->id, gc_fact_verdict_name(f->verdict));
        where_text(o, f, " ");
        gc_str_printf(o, "\t%s", f->op);
        if (f->n_cond) gc_str_printf(o, " [%s]", f->when);
        gc_str_printf(o, "\t%s\t%s", f->fix && f->fix[0] ? f->fix : "-", f->message);
        if (f->error && f->error[0]) gc_str_printf(o, " (%s)", f->error);
        gc_str_putc(o, '\n');
    }
}

void gc_fact_explain(const gc_gpu_facts *t, const char *id, void (*passes)(const char *, gc_str *), gc_str *o) {
    int k = 0;
    for (int i = 0; t && id && i < t->n_facts; i++) {
        const gc_gpu_fact *f = &t->facts[i];
        if (strcmp(f->id, id)) continue;
        const gc_gpu_runtime *rt = gc_facts_runtime(t, f->runtime);
        if (k++) gc_str_putc(o, '\n');
        gc_str_printf(o, "fact: %s\nverdict: %s\nruntime: %s%s%s%s\ndevice: %s\nop: %s\nwhen: %s\nprecision: %s\n",
                      f->id, gc_fact_verdict_name(f->verdict), f->runtime, rt ? " (" : "", rt ? rt->what : "",
                      rt ? ")" : "", f->device, f->op, f->n_cond ? f->when : "always",
                      gc_fact_precision_name(f->precision));
        gc_str_printf(o, "%s: %s\n", f->verdict == GC_FACT_INIT_FAILED ? "delegate message" : "measured",
                      f->error && f->error[0] ? f->error : "-");
        gc_str_puts(o, "cases: ");
        if (f->evidence && f->evidence[0]) cases_text(o, f->evidence); else gc_str_puts(o, "-");
        gc_str_printf(o, "\nmessage: %s\n", f->message);
        if (f->fix && f->fix[0]) {
            gc_fix x = gc_fix_by_id(f->fix);
            gc_str_printf(o, "fix: %s", f->fix);
            if (passes) {
                gc_str p = {0};
                passes(f->fix, &p);
                gc_str_printf(o, ", gpuclean fix pass: %s", p.s && p.n ? p.s : "none");
                gc_str_free(&p);
            }
            gc_str_putc(o, '\n');
            if (x.torch && x.torch[0]) gc_str_printf(o, "  PyTorch: %s\n  .tflite: %s\n", x.torch, s0(x.tflite));
        }
        gc_str_printf(o, "source: %s:%d\n", t->source ? t->source : "facts", f->line);
    }
}

static void md(gc_str *o, const char *s) {
    for (; s && *s; s++) {
        if (*s == '|') gc_str_puts(o, "\\|");
        else if (*s == '\n') gc_str_putc(o, ' ');
        else gc_str_putc(o, *s);
    }
}

void gc_facts_markdown(const gc_gpu_facts *t, gc_str *o) {
    int n = t ? t->n_facts : 0;
    gc_str_printf(o, "\n## Measured GPU facts (%d)\n\n"
                     "Measured on the device, per runtime, version and device (data/gpu/facts.tsv, curated from the\n"
                     "device sweep; format: data/gpu/README-facts.md). `wrong`: the node runs on the GPU and computes\n"
                     "wrong numbers (`gpuclean check` reports it as an error and exits 1); `init_failed`: kernel\n"
                     "building fails and the whole model falls back to the CPU; `ok`: measured right; `crashed`: the\n"
                     "runtime's process died on the GPU (counted as wrong). A fact applies to\n"
                     "the runtime `--runtime` selects (default: the one apps ship); `gpuclean check --list-runtimes`\n"
                     "lists them, `gpuclean check --explain ID` prints one fact.\n\n", n);
    if (!n) {
        gc_str_puts(o, "None yet: the rows come from the device sweep.\n");
        return;
    }
    gc_str_puts(o, "| id | verdict | runtime | device | precision | op | when | measured | fix | message |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const gc_gpu_fact *f = &t->facts[i];
        gc_str_printf(o, "| `%s` | %s | %s | %s | %s | ", f->id, gc_fact_verdict_name(f->verdict), f->runtime,
                      f->device, gc_fact_precision_name(f->precision));
        md(o, f->op);
        gc_str_puts(o, " | ");
        if (f->n_cond) { gc_str_putc(o, '`'); md(o, f->when); gc_str_putc(o, '`'); } else gc_str_puts(o, "-");
        gc_str_puts(o, " | ");
        md(o, f->error && f->error[0] ? f->error : "-");
        gc_str_printf(o, " | %s%s%s | ", f->fix && f->fix[0] ? "`" : "", f->fix && f->fix[0] ? f->fix : "-",
                      f->fix && f->fix[0] ? "`" : "");
        md(o, f->message);
        gc_str_puts(o, " |\n");
    }
}
