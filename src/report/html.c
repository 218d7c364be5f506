/* html.c — the HTML report document (see html.h): header (verdict, residency, runtime,
 * version, device), legend, the graph with its side panel (html_graph.c), the findings
 * grouped like the text report, the lints, the verb's tables, the error plots
 * (html_plot.c), the text report folded, and the data blob the script reads:
 *
 *   {"verb", "colorByError", "classes": [label per class],
 *    "nodes": [{sg, i, op, label, v, name, state, cls, reason, rule, fatal, part, num, numr,
 *               ev {id, message, measured} | null,
 *               fix {id, torch, tflite} | null, risks [index into risks],
 *               t [{i, name, role, dtype, shape, c}], x, y}],       (one per check node)
 *    "risks": [{rule, level, message, fix, k}],
 *    "series": [{title, tol, first, probes [{j, k, sg, op, t, max_abs, rel, snr, exact,
 *                corr, nf, note}]}]}
 */
#include "html_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const CLASS_NAME[GC_HTML_N_CLASSES] = {
    "gpu", "rejected", "cpu", "wrong", "risk", "skipped",
};

const char *gc_html_class_name(gc_html_class c) {
    return (unsigned)c < GC_HTML_N_CLASSES ? CLASS_NAME[c] : "?";
}

const char *gc_html_class_colour(gc_html_class c) {
    return (unsigned)c < GC_HTML_N_CLASSES ? gc_html_class_fill[c] : "#ffffff";
}

/* The node's numerics verdict ("ok" / "risk" / "wrong": check's measured facts of the
 * selected runtime, and its lints) for a node on the GPU; NULL for the others (the check
 * result makes no numerics claim about CPU nodes). The one place the report reads it. */
static const char *node_numerics(const gc_check_node *n) {
    return n->state == GC_NODE_GPU ? gc_numerics_name(n->numerics) : NULL;
}

gc_html_class gc_html_node_class(const gc_check_result *r, const gc_check_node *n, bool has_risk) {
    (void)r;
    const char *num = node_numerics(n);
    switch (n->state) {
    case GC_NODE_GPU:
        if (num && !strcmp(num, "wrong")) return GC_HTML_WRONG;
        if (has_risk || (num && !strcmp(num, "risk"))) return GC_HTML_RISK;
        return GC_HTML_GPU;
    case GC_NODE_REJECTED: return GC_HTML_REJECTED;
    case GC_NODE_INIT_FAILED: return n->fatal ? GC_HTML_REJECTED : GC_HTML_CPU;
    case GC_NODE_CPU_PARTITION:
    case GC_NODE_FP16_DEQUANT: return GC_HTML_CPU;
    case GC_NODE_SKIPPED: return GC_HTML_SKIPPED;
    }
    return GC_HTML_CPU;
}

/* ---- escaping ------------------------------------------------------------------------ */

void gc_html_esc_n(gc_str *o, const char *s, size_t n) {
    if (!s) return;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n && p[i]) {
        unsigned char ch = p[i];
        if (ch < 0x80) {
            switch (ch) {
            case '&': gc_str_puts(o, "&amp;"); break;
            case '<': gc_str_puts(o, "&lt;"); break;
            case '>': gc_str_puts(o, "&gt;"); break;
            case '"': gc_str_puts(o, "&quot;"); break;
            case '\'': gc_str_puts(o, "&#39;"); break;
            default:
                if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f) gc_str_puts(o, "\xef\xbf\xbd");
                else gc_str_putc(o, (char)ch);
            }
            i++;
            continue;
        }
        size_t l = gc_utf8_len(p + i, n - i);
        /* C1 controls (U+0080..U+009F) are as unwelcome as C0 */
        if (!l || (l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) { gc_str_puts(o, "\xef\xbf\xbd"); i++; continue; }
        for (size_t k = 0; k < l; k++) gc_str_putc(o, (char)p[i + k]);
        i += l;
    }
}

void gc_html_esc(gc_str *o, const char *s) { if (s) gc_html_esc_n(o, s, strlen(s)); }

void gc_html_jnum(gc_str *o, double v) {
    if (isfinite(v)) gc_str_printf(o, "%.6g", v);
    else gc_str_puts(o, "null");
}

/* JSON into a <script type="application/json"> block: '<' '>' '&' (only ever inside
 * strings) become \u003c \u003e \u0026, so no data can end the block or open a comment */
static void json_for_script(gc_str *o, const gc_str *j) {
    for (size_t i = 0; i < j->n; i++) {
        char ch = j->s[i];
        if (ch == '<') gc_str_puts(o, "\\u003c");
        else if (ch == '>') gc_str_puts(o, "\\u003e");
        else if (ch == '&') gc_str_puts(o, "\\u0026");
        else gc_str_putc(o, ch);
    }
}

/* a JSON string for the data block: the text the markup would show (control bytes and
 * invalid UTF-8 as U+FFFD, like gc_html_esc), '"' '\\' escaped, newline and tab as \n \t */
static void jstr(gc_str *o, const char *s) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p), i = 0;
    gc_str_putc(o, '"');
    while (i < n) {
        unsigned char ch = p[i];
        if (ch < 0x80) {
            if (ch == '"' || ch == '\\') { gc_str_putc(o, '\\'); gc_str_putc(o, (char)ch); }
            else if (ch == '\n') gc_str_puts(o, "\\n");
            else if (ch == '\t') gc_str_puts(o, "\\t");
            else if (ch < 0x20 || ch == 0x7f) gc_str_puts(o, "\\ufffd");
            else gc_str_putc(o, (char)ch);
            i++;
            continue;
        }
        size_t l = gc_utf8_len(p + i, n - i);
        if (!l || (l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) { gc_str_puts(o, "\\ufffd"); i++; continue; }
        for (size_t k = 0; k < l; k++) gc_str_putc(o, (char)p[i + k]);
        i += l;
    }
    gc_str_putc(o, '"');
}
static void jstr_or_null(gc_str *o, const char *s) { if (s) jstr(o, s); else gc_str_puts(o, "null"); }

/* ---- the node map -------------------------------------------------------------------- */

int32_t gc_hctx_node(const gc_hctx *c, int32_t sg, int32_t op) {
    if (sg < 0 || sg >= c->m->n_subgraphs || op < 0 || op >= c->sg_off[sg + 1] - c->sg_off[sg]) return -1;
    return c->kmap[c->sg_off[sg] + op];
}

const char *gc_hctx_node_name(const gc_hctx *c, const gc_check_node *n) {
    if (n->subgraph < 0 || n->subgraph >= c->m->n_subgraphs) return "";
    const gc_subgraph *sg = &c->m->subgraphs[n->subgraph];
    if (n->index < 0 || n->index >= sg->n_ops) return "";
    const gc_op *op = &sg->ops[n->index];
    if (op->n_outputs > 0 && op->outputs[0] >= 0 && op->outputs[0] < sg->n_tensors) return sg->tensors[op->outputs[0]].name;
    return "";
}

static bool hctx_init(gc_hctx *c, const gc_html_report *rep, const gc_check_result *r, const gc_model *m) {
    memset(c, 0, sizeof *c);
    c->rep = rep; c->r = r; c->m = m;
    c->sg_off = calloc((size_t)m->n_subgraphs + 1, sizeof *c->sg_off);
    if (!c->sg_off) return false;
    for (int32_t s = 0; s < m->n_subgraphs; s++) c->sg_off[s + 1] = c->sg_off[s] + m->subgraphs[s].n_ops;
    size_t nk = (size_t)c->sg_off[m->n_subgraphs], nn = (size_t)(r->n_nodes > 0 ? r->n_nodes : 0);
    c->kmap = malloc((nk + 1) * sizeof *c->kmap);
    c->cls = calloc(nn + 1, 1);
    c->risk_warn = calloc(nn + 1, sizeof *c->risk_warn);
    c->px = malloc((nn + 1) * sizeof *c->px);
    c->py = malloc((nn + 1) * sizeof *c->py);
    if (!c->kmap || !c->cls || !c->risk_warn || !c->px || !c->py) return false;
    for (size_t i = 0; i < nk; i++) c->kmap[i] = -1;
    for (int32_t k = 0; k < r->n_nodes; k++) {
        const gc_check_node *n = &r->nodes[k];
        if (n->subgraph >= 0 && n->subgraph < m->n_subgraphs && n->index >= 0 &&
            n->index < c->sg_off[n->subgraph + 1] - c->sg_off[n->subgraph] && c->kmap[c->sg_off[n->subgraph] + n->index] < 0)
            c->kmap[c->sg_off[n->subgraph] + n->index] = k;
        c->px[k] = c->py[k] = NAN;
    }
    for (int32_t i = 0; i < r->n_risks; i++) {
        const gc_check_risk *k = &r->risks[i];
        int32_t nk2 = gc_hctx_node(c, k->subgraph, k->node);
        if (nk2 >= 0 && k->level == GC_RISK_WARN) c->risk_warn[nk2] = true;
    }
    for (int32_t k = 0; k < r->n_nodes; k++)
        c->cls[k] = (uint8_t)gc_html_node_class(r, &r->nodes[k], c->risk_warn[k]);
    return true;
}

static void hctx_free(gc_hctx *c) {
    free(c->sg_off); free(c->kmap); free(c->cls); free(c->risk_warn); free(c->px); free(c->py);
}

/* ---- the document -------------------------------------------------------------------- */

static void node_link(gc_str *o, const gc_check_node *n, int32_t k) {
    gc_str_printf(o, "<a class=\"nk\" href=\"#gc-graph\" data-k=\"%d\">", k);
    if (n->subgraph) gc_str_printf(o, "%d:", n->subgraph);
    gc_str_printf(o, "%d</a>", n->index);
}

static void header(const gc_hctx *c, gc_str *o) {
    const gc_html_report *rep = c->rep;
    const gc_check_result *r = c->r;
    gc_str line = {0};
    gc_check_residency_line(r, &line);
    gc_str_puts(o, "<header><h1>gpuclean ");
    gc_html_esc(o, rep->verb ? rep->verb : "report");
    gc_str_puts(o, ": ");
    gc_html_esc(o, rep->model ? rep->model : "");
    gc_str_puts(o, "</h1>\n");
    bool ok = rep->verdict ? rep->verdict_ok : r->gpu_clean;
    gc_str_printf(o, "<div class=\"verdict %s\" id=\"gc-verdict\">", ok ? "ok" : "bad");
    gc_html_esc(o, rep->verdict ? rep->verdict : line.s ? line.s : "");
    if (!rep->verdict && r->gpu_clean) gc_str_puts(o, " (GPU-clean)");
    gc_str_puts(o, "</div>\n<dl class=\"facts\">");
    gc_str_puts(o, "<dt>residency (static check)</dt><dd id=\"gc-residency\">");
    gc_html_esc(o, line.s ? line.s : "");
    gc_str_printf(o, "</dd><dt>target</dt><dd>%s</dd>", gc_target_name(r->target));
    if (r->fatal) { gc_str_puts(o, "<dt>delegate init</dt><dd>"); gc_html_esc(o, r->fatal); gc_str_puts(o, "</dd>"); }
    if (r->model_error) { gc_str_puts(o, "<dt>model</dt><dd>"); gc_html_esc(o, r->model_error); gc_str_puts(o, "</dd>"); }
    bool have_rt = false;
    for (int i = 0; i < rep->n_facts; i++) {
        const gc_html_fact *f = &rep->facts[i];
        if (!f->key) continue;
        have_rt |= !strcmp(f->key, "runtime");
        gc_str_puts(o, "<dt>");
        gc_html_esc(o, f->key);
        gc_str_puts(o, "</dt><dd>");
        gc_html_esc(o, f->value ? f->value : "");
        gc_str_puts(o, "</dd>");
    }
    if (!have_rt) gc_str_puts(o, "<dt>runtime</dt><dd>none: a static prediction of the LiteRT GPU delegate "
                                 "(gpuclean litert runs the real one)</dd>");
    gc_str_puts(o, "<dt>gpuclean</dt><dd>");
    gc_html_esc(o, rep->version ? rep->version : "");
    gc_str_puts(o, "</dd></dl>\n");
    /* legend with counts */
    int32_t cnt[GC_HTML_N_CLASSES] = {0};
    for (int32_t k = 0; k < r->n_nodes; k++) cnt[c->cls[k] < GC_HTML_N_CLASSES ? c->cls[k] : 0]++;
    gc_str_puts(o, "<div class=\"legend\" id=\"gc-legend-v\">");
    for (int i = 0; i < GC_HTML_N_CLASSES; i++)
        gc_str_printf(o, "<span><i class=\"sw\" style=\"background:%s\"></i>%s: %d</span>", gc_html_class_fill[i],
                      gc_html_class_label[i], cnt[i]);
    gc_str_puts(o, "<span><i class=\"sw pd\"></i>delegated partition</span><span><i class=\"sw pc\"></i>"
                   "other candidate partition</span><span><i class=\"sw x\"></i>data crossing GPU/CPU</span></div>\n"
                   "<div class=\"legend\" id=\"gc-legend-e\" hidden><span>error (worst rel of the node's probes): "
                   "<i class=\"errbar\"></i> green rel &le; 10<sup>&minus;4</sup>&middot;tol, red rel &ge; 10&middot;tol; black "
                   "NaN/Inf mismatch; grey not measured</span></div>\n</header>\n");
    gc_str_free(&line);
}

typedef struct { const gc_check_node *n; int32_t k; } nref;

static int scmp(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

static int finding_cmp(const void *x, const void *y) {
    const nref *a = x, *b = y;
    int c;
    if (a->n->state != b->n->state) return (int)a->n->state - (int)b->n->state;
    if ((c = scmp(a->n->op, b->n->op))) return c;
    if ((c = scmp(a->n->rule, b->n->rule))) return c;
    if ((c = scmp(a->n->reason, b->n->reason))) return c;
    if ((c = scmp(a->n->fix_id, b->n->fix_id))) return c;
    return (a->k > b->k) - (a->k < b->k);
}

static bool same_finding(const gc_check_node *a, const gc_check_node *b) {
    return a->state == b->state && !scmp(a->op, b->op) && !scmp(a->rule, b->rule) && !scmp(a->reason, b->reason) &&
           !scmp(a->fix_id, b->fix_id);
}

#define LINKS_SHOWN 200

static void links(gc_str *o, const nref *v, int32_t n) {
    for (int32_t i = 0; i < n && i < LINKS_SHOWN; i++) {
        if (i) gc_str_puts(o, ", ");
        node_link(o, v[i].n, v[i].k);
    }
    if (n > LINKS_SHOWN) gc_str_printf(o, ", &hellip; +%d more", n - LINKS_SHOWN);
}

static int numerics_cmp(const void *x, const void *y) {
    const nref *a = x, *b = y;
    int c;
    if (a->n->numerics != b->n->numerics) return (int)b->n->numerics - (int)a->n->numerics;   /* wrong first */
    if ((c = scmp(a->n->numerics_rule, b->n->numerics_rule))) return c;
    return (a->k > b->k) - (a->k < b->k);
}

/* nodes on the GPU that a measured fact says compute wrong numbers (or would at fp16),
 * one row per fact: its message, what was measured and where, the fix */
static void numerics_findings(const gc_hctx *c, gc_str *o) {
    const gc_check_result *r = c->r;
    nref *v = malloc(sizeof *v * (size_t)(r->n_nodes + 1));
    if (!v) { o->oom = true; return; }
    int32_t n = 0;
    for (int32_t k = 0; k < r->n_nodes; k++) {
        const gc_check_node *x = &r->nodes[k];
        if (x->state == GC_NODE_GPU && x->evidence && x->numerics != GC_NUM_OK) v[n++] = (nref){ x, k };
    }
    if (n) {
        qsort(v, (size_t)n, sizeof *v, numerics_cmp);
        gc_str_puts(o, "<table id=\"gc-numerics\"><tr><th>nodes</th><th>op</th><th>numbers</th><th>measured fact</th>"
                       "<th>evidence</th><th>fix</th></tr>\n");
        for (int32_t i = 0; i < n;) {
            int32_t j = i + 1;
            while (j < n && v[j].n->numerics == v[i].n->numerics && !scmp(v[j].n->numerics_rule, v[i].n->numerics_rule)) j++;
            const gc_check_node *f = v[i].n;
            gc_str_printf(o, "<tr class=\"finding\"><td>%d: ", j - i);
            links(o, v + i, j - i);
            gc_str_puts(o, "</td><td>");
            gc_html_esc(o, f->op);
            gc_str_printf(o, "</td><td>%s</td><td class=\"w\">",
                          f->numerics == GC_NUM_WRONG ? "wrong on the GPU" : "wrong at the other precision (risk)");
            gc_html_esc(o, f->evidence->message);
            gc_str_puts(o, " <code>");
            gc_html_esc(o, f->numerics_rule ? f->numerics_rule : f->evidence->id);
            gc_str_puts(o, "</code></td><td class=\"w\">");
            gc_str ev = {0};
            gc_fact_evidence_text(f->evidence, &ev);
            gc_html_esc(o, ev.s);
            if (ev.oom) o->oom = true;
            gc_str_free(&ev);
            gc_str_puts(o, "</td><td class=\"w\">");
            gc_html_esc(o, f->evidence->fix);
            gc_str_puts(o, "</td></tr>\n");
            i = j;
        }
        gc_str_puts(o, "</table>\n");
    }
    free(v);
}

/* every node that is not on the GPU for a reason of its own, grouped like the text
 * report: one row per (state, op, rule, reason, fix) with its nodes; the supported nodes
 * left outside the partition as one row */
static void findings(const gc_hctx *c, gc_str *o) {
    const gc_check_result *r = c->r;
    nref *v = malloc(sizeof *v * (size_t)(r->n_nodes + 1)), *cpu = malloc(sizeof *cpu * (size_t)(r->n_nodes + 1));
    if (!v || !cpu) { free(v); free(cpu); o->oom = true; return; }
    int32_t n = 0, nc = 0;
    for (int32_t k = 0; k < r->n_nodes; k++) {
        const gc_check_node *x = &r->nodes[k];
        if (x->state == GC_NODE_CPU_PARTITION || (x->state == GC_NODE_INIT_FAILED && !x->fatal)) cpu[nc++] = (nref){ x, k };
        else if (x->state == GC_NODE_REJECTED || x->state == GC_NODE_FP16_DEQUANT || x->state == GC_NODE_INIT_FAILED)
            v[n++] = (nref){ x, k };
    }
    gc_str_puts(o, "<section id=\"gc-findings\"><h2>Findings</h2>\n");
    if (!n && !nc && !r->wrong_nodes) gc_str_puts(o, "<p>Every node the delegate sees is on the GPU.</p>\n");
    if (n) {
        qsort(v, (size_t)n, sizeof *v, finding_cmp);
        gc_str_puts(o, "<table><tr><th>nodes</th><th>op</th><th>verdict</th><th>reason</th><th>rule</th><th>fix</th></tr>\n");
        for (int32_t i = 0; i < n;) {
            int32_t j = i + 1;
            while (j < n && same_finding(v[i].n, v[j].n)) j++;
            const gc_check_node *f = v[i].n;
            gc_str_printf(o, "<tr class=\"finding\"><td>%d: ", j - i);
            links(o, v + i, j - i);
            gc_str_puts(o, "</td><td>");
            gc_html_esc(o, f->op);
            gc_str_printf(o, "</td><td>%s</td><td class=\"reason w\">",
                          f->state == GC_NODE_FP16_DEQUANT ? "fp16 DEQUANTIZE kept on the CPU"
                          : f->state == GC_NODE_INIT_FAILED ? "breaks GPU delegate init" : "rejected");
            if (f->state == GC_NODE_FP16_DEQUANT && !(f->reason && f->reason[0]))
                gc_str_puts(o, "fp16 weight DEQUANTIZE stays on the CPU when the model is only partly delegated");
            else gc_html_esc(o, f->reason);
            gc_str_puts(o, "</td><td>");
            gc_html_esc(o, f->rule);
            gc_str_puts(o, "</td><td class=\"w\">");
            if (f->fix_torch && f->fix_torch[0]) { gc_html_esc(o, f->fix_torch); gc_str_puts(o, "<br>"); }
            if (f->fix_tflite && f->fix_tflite[0]) { gc_str_puts(o, ".tflite: "); gc_html_esc(o, f->fix_tflite); gc_str_puts(o, "<br>"); }
            if (f->fix_id && f->fix_id[0]) { gc_str_puts(o, "<code>"); gc_html_esc(o, f->fix_id); gc_str_puts(o, "</code>"); }
            gc_str_puts(o, "</td></tr>\n");
            i = j;
        }
        gc_str_puts(o, "</table>\n");
    }
    numerics_findings(c, o);
    if (nc) {
        gc_str_printf(o, "<p>%d supported node(s) stay on the CPU outside the delegated partition: ", nc);
        links(o, cpu, nc);
        gc_str_puts(o, "</p>\n");
    }
    for (int32_t s = 0; s < r->n_subgraphs; s++) {
        const gc_check_subgraph *S = &r->subgraphs[s];
        if (!S->delegate_log || !S->delegate_log[0]) continue;
        gc_str_printf(o, "<details><summary>delegate log (subgraph %d)</summary><pre>", s);
        gc_html_esc(o, S->delegate_log);
        gc_str_puts(o, "</pre></details>\n");
    }
    gc_str_puts(o, "</section>\n");
    free(v);
    free(cpu);
}

static void risks(const gc_hctx *c, gc_str *o) {
    const gc_check_result *r = c->r;
    if (!r->n_risks) return;
    gc_str_puts(o, "<section id=\"gc-risks\"><h2>Numerics lints</h2>\n<table><tr><th>node</th><th>level</th>"
                   "<th>rule</th><th>message</th><th>fix</th></tr>\n");
    for (int32_t i = 0; i < r->n_risks; i++) {
        const gc_check_risk *k = &r->risks[i];
        int32_t nk = gc_hctx_node(c, k->subgraph, k->node);
        gc_str_puts(o, "<tr><td>");
        if (nk >= 0) node_link(o, &r->nodes[nk], nk); else gc_str_puts(o, "model");
        gc_str_printf(o, "</td><td>%s</td><td>", k->level == GC_RISK_WARN ? "warning" : "note");
        gc_html_esc(o, k->rule);
        gc_str_puts(o, "</td><td class=\"w\">");
        gc_html_esc(o, k->message);
        gc_str_puts(o, "</td><td class=\"w\">");
        gc_html_esc(o, k->fix);
        gc_str_puts(o, "</td></tr>\n");
    }
    gc_str_puts(o, "</table></section>\n");
}

static void tables(const gc_html_report *rep, gc_str *o) {
    for (int t = 0; t < rep->n_tables; t++) {
        const gc_html_table *T = &rep->tables[t];
        gc_str_puts(o, "<section class=\"tbl\"><h2>");
        gc_html_esc(o, T->caption ? T->caption : "");
        gc_str_puts(o, "</h2>\n<table><tr>");
        for (int j = 0; j < T->n_cols; j++) { gc_str_puts(o, "<th>"); gc_html_esc(o, T->cols[j]); gc_str_puts(o, "</th>"); }
        gc_str_puts(o, "</tr>\n");
        if (!T->n_rows) gc_str_printf(o, "<tr><td colspan=\"%d\">nothing was compared</td></tr>\n", T->n_cols > 0 ? T->n_cols : 1);
        for (int i = 0; i < T->n_rows; i++) {
            gc_str_puts(o, T->bad && T->bad[i] ? "<tr class=\"bad\">" : "<tr>");
            for (int j = 0; j < T->n_cols; j++) {
                gc_str_puts(o, "<td class=\"w\">");
                gc_html_esc(o, T->cells ? T->cells[(size_t)i * (size_t)T->n_cols + (size_t)j] : NULL);
                gc_str_puts(o, "</td>");
            }
            gc_str_puts(o, "</tr>\n");
        }
        gc_str_puts(o, "</table></section>\n");
    }
}

static void series_section(const gc_hctx *c, gc_str *o) {
    const gc_html_report *rep = c->rep;
    for (int si = 0; si < rep->n_series; si++) {
        const gc_html_series *s = &rep->series[si];
        gc_str_printf(o, "<section class=\"series w\" id=\"gc-series-%d\"><h2>Per-node error: ", si);
        gc_html_esc(o, s->title);
        gc_str_printf(o, "</h2>\n<p>%d probe(s) in execution order; tolerance rel %.3g. ", s->n_probes, s->tol);
        if (s->first >= 0 && s->first < s->n_probes) {
            const gc_html_probe *p = &s->probes[s->first];
            int32_t k = gc_hctx_node(c, p->subgraph, p->node);
            gc_str_puts(o, "<strong id=\"gc-first-divergent\">First divergent: ");
            if (k >= 0) { gc_str_puts(o, "node "); node_link(o, &c->r->nodes[k], k); gc_str_putc(o, ' '); gc_html_esc(o, c->r->nodes[k].op); }
            else gc_str_printf(o, "subgraph %d op %d", p->subgraph, p->node);
            const gc_subgraph *g = p->subgraph >= 0 && p->subgraph < c->m->n_subgraphs ? &c->m->subgraphs[p->subgraph] : NULL;
            if (g && p->tensor >= 0 && p->tensor < g->n_tensors) {
                gc_str_printf(o, " &rarr; tensor %d &lsquo;", p->tensor);
                gc_html_esc(o, g->tensors[p->tensor].name);
                gc_str_puts(o, "&rsquo;");
            }
            if (p->nonfinite) gc_str_puts(o, ": NaN/Inf on one side");
            else gc_str_printf(o, ": rel %.3g &gt; %.3g (max|diff| %.4g)", p->rel, s->tol, p->max_abs);
            gc_str_puts(o, "</strong>");
        } else {
            gc_str_puts(o, "<strong id=\"gc-first-divergent\">No probe diverges beyond the tolerance.</strong>");
        }
        gc_str_puts(o, "</p>\n");
        gc_html_plots(c, s, si, o);
        gc_str_puts(o, "</section>\n");
    }
}

/* the lints of each node as CSR: ridx[roff[k] .. roff[k+1]) index r->risks */
static bool risk_lists(const gc_hctx *c, int32_t **roff_out, int32_t **ridx_out) {
    const gc_check_result *r = c->r;
    int32_t *roff = calloc((size_t)r->n_nodes + 2, sizeof *roff);
    int32_t *ridx = malloc(((size_t)r->n_risks + 1) * sizeof *ridx);
    int32_t *fill = calloc((size_t)r->n_nodes + 1, sizeof *fill);
    *roff_out = *ridx_out = NULL;
    if (!roff || !ridx || !fill) { free(roff); free(ridx); free(fill); return false; }
    for (int32_t i = 0; i < r->n_risks; i++) {
        int32_t k = gc_hctx_node(c, r->risks[i].subgraph, r->risks[i].node);
        if (k >= 0) roff[k + 1]++;
    }
    for (int32_t k = 0; k < r->n_nodes; k++) roff[k + 1] += roff[k];
    for (int32_t i = 0; i < r->n_risks; i++) {
        int32_t k = gc_hctx_node(c, r->risks[i].subgraph, r->risks[i].node);
        if (k >= 0) ridx[roff[k] + fill[k]++] = i;
    }
    free(fill);
    *roff_out = roff; *ridx_out = ridx;
    return true;
}

static void data_blob(const gc_hctx *c, gc_str *j) {
    const gc_check_result *r = c->r;
    const gc_html_report *rep = c->rep;
    gc_str_puts(j, "{\"verb\":");
    jstr(j, rep->verb);
    gc_str_printf(j, ",\"colorByError\":%s,\"classes\":[", rep->color_by_error ? "true" : "false");
    for (int i = 0; i < GC_HTML_N_CLASSES; i++) { if (i) gc_str_putc(j, ','); jstr(j, gc_html_class_label[i]); }
    gc_str_puts(j, "],\n\"nodes\":[");
    int32_t *roff = NULL, *ridx = NULL;
    if (!risk_lists(c, &roff, &ridx)) j->oom = true;
    for (int32_t k = 0; k < r->n_nodes; k++) {
        const gc_check_node *n = &r->nodes[k];
        gc_str_printf(j, "%s\n{\"sg\":%d,\"i\":%d,\"op\":", k ? "," : "", n->subgraph, n->index);
        jstr(j, n->op);
        gc_str_puts(j, ",\"label\":");
        jstr(j, n->op_label);
        gc_str_printf(j, ",\"v\":%d,\"name\":", n->version);
        jstr(j, gc_hctx_node_name(c, n));
        gc_str_printf(j, ",\"state\":\"%s\",\"cls\":%d,\"reason\":", gc_node_state_name(n->state), c->cls[k]);
        jstr(j, n->reason);
        gc_str_puts(j, ",\"rule\":");
        jstr_or_null(j, n->rule);
        gc_str_printf(j, ",\"fatal\":%s,\"part\":", n->fatal ? "true" : "false");
        if (n->partition >= 0) gc_str_printf(j, "%d", n->partition); else gc_str_puts(j, "null");
        gc_str_puts(j, ",\"num\":");
        jstr_or_null(j, node_numerics(n));
        gc_str_puts(j, ",\"numr\":");
        jstr_or_null(j, n->numerics_rule);
        gc_str_puts(j, ",\"ev\":");
        if (n->evidence) {
            gc_str ev = {0};
            gc_fact_evidence_text(n->evidence, &ev);
            gc_str_puts(j, "{\"id\":"); jstr(j, n->evidence->id);
            gc_str_puts(j, ",\"message\":"); jstr(j, n->evidence->message);
            gc_str_puts(j, ",\"measured\":"); jstr(j, ev.s);
            gc_str_putc(j, '}');
            if (ev.oom) j->oom = true;
            gc_str_free(&ev);
        } else gc_str_puts(j, "null");
        gc_str_puts(j, ",\"fix\":");
        if (n->fix_id && n->fix_id[0]) {
            gc_str_puts(j, "{\"id\":"); jstr(j, n->fix_id);
            gc_str_puts(j, ",\"torch\":"); jstr(j, n->fix_torch);
            gc_str_puts(j, ",\"tflite\":"); jstr(j, n->fix_tflite);
            gc_str_putc(j, '}');
        } else gc_str_puts(j, "null");
        gc_str_puts(j, ",\"risks\":[");
        for (int32_t q = roff ? roff[k] : 0; roff && q < roff[k + 1]; q++) gc_str_printf(j, "%s%d", q > roff[k] ? "," : "", ridx[q]);
        gc_str_puts(j, "],\"t\":[");
        for (int32_t t = 0; t < n->n_tensors; t++) {
            const gc_check_tensor *x = &n->tensors[t];
            gc_str_printf(j, "%s{\"i\":%d,\"name\":", t ? "," : "", x->index);
            jstr(j, x->name);
            gc_str_printf(j, ",\"role\":\"%s\",\"dtype\":\"%s\",\"shape\":[", x->role ? x->role : "", gc_type_name(x->type));
            for (int32_t d = 0; d < x->rank; d++) gc_str_printf(j, "%s%d", d ? "," : "", x->shape[d]);
            gc_str_printf(j, "],\"c\":%s}", x->is_const ? "true" : "false");
        }
        gc_str_puts(j, "],\"x\":");
        gc_html_jnum(j, c->px[k]);
        gc_str_puts(j, ",\"y\":");
        gc_html_jnum(j, c->py[k]);
        gc_str_putc(j, '}');
    }
    free(roff);
    free(ridx);
    gc_str_puts(j, "],\n\"risks\":[");
    for (int32_t i = 0; i < r->n_risks; i++) {
        const gc_check_risk *k = &r->risks[i];
        gc_str_puts(j, i ? ",{\"rule\":" : "{\"rule\":");
        jstr(j, k->rule);
        gc_str_printf(j, ",\"level\":\"%s\",\"message\":", k->level == GC_RISK_WARN ? "warning" : "note");
        jstr(j, k->message);
        gc_str_puts(j, ",\"fix\":");
        jstr(j, k->fix);
        gc_str_printf(j, ",\"k\":%d}", gc_hctx_node(c, k->subgraph, k->node));
    }
    gc_str_puts(j, "],\n\"series\":[");
    for (int si = 0; si < rep->n_series; si++) {
        const gc_html_series *s = &rep->series[si];
        gc_str_puts(j, si ? ",{\"title\":" : "{\"title\":");
        jstr(j, s->title);
        gc_str_puts(j, ",\"tol\":");
        gc_html_jnum(j, s->tol);
        gc_str_printf(j, ",\"first\":%d,\"probes\":[", s->first);
        for (int32_t i = 0; i < s->n_probes; i++) {
            const gc_html_probe *p = &s->probes[i];
            int32_t k = gc_hctx_node(c, p->subgraph, p->node);
            gc_str_printf(j, "%s{\"j\":%d,\"k\":", i ? "," : "", i);
            if (k >= 0) gc_str_printf(j, "%d", k); else gc_str_puts(j, "null");
            gc_str_printf(j, ",\"sg\":%d,\"op\":%d,\"t\":", p->subgraph, p->node);
            const gc_subgraph *g = p->subgraph >= 0 && p->subgraph < c->m->n_subgraphs ? &c->m->subgraphs[p->subgraph] : NULL;
            if (g && p->tensor >= 0 && p->tensor < g->n_tensors) jstr(j, g->tensors[p->tensor].name);
            else gc_str_puts(j, "null");
            gc_str_puts(j, ",\"max_abs\":"); gc_html_jnum(j, p->max_abs);
            gc_str_puts(j, ",\"rel\":"); gc_html_jnum(j, p->rel);
            gc_str_puts(j, ",\"snr\":"); gc_html_jnum(j, p->snr_db);
            gc_str_printf(j, ",\"exact\":%s,\"corr\":", isinf(p->snr_db) && p->snr_db > 0 ? "true" : "false");
            gc_html_jnum(j, p->corr);
            gc_str_printf(j, ",\"nf\":%s,\"note\":", p->nonfinite ? "true" : "false");
            jstr_or_null(j, p->note);
            gc_str_putc(j, '}');
        }
        gc_str_puts(j, "]}");
    }
    gc_str_puts(j, "]}");
}

void gc_html_render(const gc_html_report *rep, const gc_check_result *r, const gc_model *m, gc_str *o) {
    gc_hctx c;
    if (!hctx_init(&c, rep, r, m)) { hctx_free(&c); o->oom = true; return; }
    gc_str graph = {0}, j = {0};
    gc_html_graph(&c, &graph);                   /* first: it places the nodes */
    gc_str js = {0};
    for (int i = 0; gc_html_js[i]; i++) gc_str_puts(&js, gc_html_js[i]);
    if (js.oom || !js.s) { o->oom = true; gc_str_free(&js); gc_str_free(&graph); hctx_free(&c); return; }
    char hash[45];
    gc_html_sha256_b64(js.s, js.n, hash);
    gc_str_printf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "script-src 'sha256-%s'; style-src 'unsafe-inline'; img-src data:\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"gpuclean ", hash);
    gc_html_esc(o, rep->version ? rep->version : "");
    gc_str_puts(o, "\">\n<title>gpuclean ");
    gc_html_esc(o, rep->verb ? rep->verb : "report");
    gc_str_puts(o, ": ");
    gc_html_esc(o, rep->model ? rep->model : "");
    gc_str_puts(o, "</title>\n<style>");
    for (int i = 0; gc_html_css[i]; i++) gc_str_puts(o, gc_html_css[i]);
    gc_str_puts(o, "</style>\n</head>\n<body data-js=\"loading\">\n<div id=\"gc-jserr\" hidden></div>\n");
    header(&c, o);
    gc_str_puts(o, "<div id=\"gc-main\"><div id=\"gc-wrap\"><div id=\"gc-tools\">"
                   "<button data-act=\"top\" title=\"fit the width, show the top\">top</button>"
                   "<button data-act=\"fit\" title=\"the whole graph\">fit</button>"
                   "<button data-act=\"in\">+</button><button data-act=\"out\">&minus;</button>"
                   "<button data-mode=\"verdict\" data-s=\"0\" class=\"on\">colour: verdict</button>");
    for (int si = 0; si < rep->n_series; si++) {
        gc_str_printf(o, "<button data-mode=\"error\" data-s=\"%d\" title=\"", si);
        gc_html_esc(o, rep->series[si].title);
        gc_str_printf(o, "\">colour: error%s", rep->n_series > 1 ? " " : "");
        if (rep->n_series > 1) gc_str_printf(o, "%d", si + 1);
        gc_str_puts(o, "</button>");
    }
    gc_str_puts(o, "</div>\n");
    if (graph.s) gc_str_puts(o, graph.s);
    if (graph.oom) o->oom = true;
    gc_str_puts(o, "</div>\n<aside id=\"gc-panel\"><p>Click a node (or a node number below) for its op, "
                   "verdict, reason, rule, fix and tensors. Drag to pan, wheel to zoom.</p></aside></div>\n");
    findings(&c, o);
    risks(&c, o);
    tables(rep, o);
    series_section(&c, o);
    if (rep->text) {
        gc_str_puts(o, "<section><details><summary>text report</summary><pre>");
        gc_html_esc(o, rep->text);
        gc_str_puts(o, "</pre></details></section>\n");
    }
    data_blob(&c, &j);
    if (j.oom) o->oom = true;
    gc_str_puts(o, "<script type=\"application/json\" id=\"gc-data\">");
    json_for_script(o, &j);
    gc_str_puts(o, "</script>\n<script>");
    gc_str_puts(o, js.s);
    gc_str_puts(o, "</script>\n</body></html>\n");
    gc_str_free(&js);
    gc_str_free(&graph);
    gc_str_free(&j);
    hctx_free(&c);
}

/* ---- files ---------------------------------------------------------------------------- */

gc_status gc_report_check_path(const char *path, char *err, size_t errlen) {
    if (!path || !*path) { gc_errf(err, errlen, "no output file given"); return GC_ERR_USAGE; }
    return gc_check_output_path(path, err, errlen);
}

gc_status gc_report_write_file(const char *path, const gc_str *s, char *err, size_t errlen) {
    if (s->oom) { gc_errf(err, errlen, "%s: out of memory rendering the report", path); return GC_ERR_NOMEM; }
    const void *chunks[1] = { s->s ? s->s : "" };
    size_t lens[1] = { s->n };
    return gc_write_atomic(path, chunks, lens, 1, err, errlen);
}
