/* model_explorer.c — Model Explorer node-data overlays (see model_explorer.h for the
 * format and the adapter's naming). */
#include "model_explorer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gc_me_graph_id(const gc_model *m, int32_t sg, bool signature_fallback, char *buf, size_t n) {
    const char *name = sg >= 0 && sg < m->n_subgraphs ? m->subgraphs[sg].name : NULL;
    if (name && name[0]) { snprintf(buf, n, "%s", name); return; }
    if (signature_fallback)
        for (int32_t i = 0; i < m->n_signatures; i++)
            if ((int64_t)m->signatures[i].subgraph == sg) {      /* the first signature of sg decides */
                if (m->signatures[i].key && m->signatures[i].key[0]) { snprintf(buf, n, "%s", m->signatures[i].key); return; }
                break;
            }
    if (sg == 0) snprintf(buf, n, "main");
    else snprintf(buf, n, "subgraph_%d", sg);
}

typedef struct { char id[256]; int32_t sg; } graph_key;

/* the ids to write each subgraph's data under: the newer adapter's (signature fallback)
 * for every subgraph with ops, then the older adapter's where it differs and no other
 * subgraph uses it. Returns the count (*out: malloc'd), -1 on allocation failure. */
static int graph_keys(const gc_model *m, graph_key **out) {
    *out = NULL;
    graph_key *k = calloc((size_t)m->n_subgraphs * 2 + 1, sizeof *k);
    if (!k) return -1;
    int n = 0;
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        if (m->subgraphs[s].n_ops <= 0) continue;
        gc_me_graph_id(m, s, true, k[n].id, sizeof k[n].id);
        k[n++].sg = s;
    }
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        if (m->subgraphs[s].n_ops <= 0) continue;
        char id[256];
        gc_me_graph_id(m, s, false, id, sizeof id);
        bool taken = false;
        for (int i = 0; i < n && !taken; i++) taken = !strcmp(k[i].id, id);
        if (taken) continue;
        snprintf(k[n].id, sizeof k[n].id, "%s", id);
        k[n++].sg = s;
    }
    *out = k;
    return n;
}

/* (subgraph, op) -> offset into a flat per-op array */
static int32_t *op_offsets(const gc_model *m) {
    int32_t *off = calloc((size_t)m->n_subgraphs + 1, sizeof *off);
    if (!off) return NULL;
    for (int32_t s = 0; s < m->n_subgraphs; s++) off[s + 1] = off[s] + m->subgraphs[s].n_ops;
    return off;
}

void gc_me_verdict_json(const gc_check_result *r, const gc_model *m, gc_str *o) {
    graph_key *keys = NULL;
    int nk = graph_keys(m, &keys);
    int32_t *off = op_offsets(m);
    uint8_t *cls = off ? malloc((size_t)off[m->n_subgraphs] + 1) : NULL;
    bool *warn = off ? calloc((size_t)off[m->n_subgraphs] + 1, sizeof *warn) : NULL;
    if (nk < 0 || !off || !cls || !warn) { o->oom = true; goto out; }
    memset(cls, 0xff, (size_t)off[m->n_subgraphs] + 1);
    for (int32_t i = 0; i < r->n_risks; i++) {
        const gc_check_risk *k = &r->risks[i];
        if (k->level != GC_RISK_WARN || k->subgraph < 0 || k->subgraph >= m->n_subgraphs || k->node < 0 ||
            k->node >= m->subgraphs[k->subgraph].n_ops) continue;
        warn[off[k->subgraph] + k->node] = true;
    }
    for (int32_t i = 0; i < r->n_nodes; i++) {
        const gc_check_node *n = &r->nodes[i];
        if (n->subgraph < 0 || n->subgraph >= m->n_subgraphs || n->index < 0 || n->index >= m->subgraphs[n->subgraph].n_ops)
            continue;
        int32_t at = off[n->subgraph] + n->index;
        cls[at] = (uint8_t)gc_html_node_class(r, n, warn[at]);
    }
    gc_str_putc(o, '{');
    for (int g = 0; g < nk; g++) {
        int32_t s = keys[g].sg;
        gc_str_puts(o, g ? ",\n" : "\n");
        gc_str_json(o, keys[g].id);
        gc_str_puts(o, ": {\"name\": \"gpuclean GPU verdict\", \"showExpandedSummaryOnGroupNode\": true, "
                       "\"showLabelCountColumnsInChildrenStatsTable\": true, \"results\": {");
        int w = 0;
        for (int32_t j = 0; j < m->subgraphs[s].n_ops; j++) {
            uint8_t c = cls[off[s] + j];
            if (c >= GC_HTML_N_CLASSES) continue;
            gc_str_printf(o, "%s\n  \"%d\": {\"value\": \"%s\", \"bgColor\": \"%s\"}", w++ ? "," : "", j,
                          gc_html_class_name((gc_html_class)c), gc_html_class_colour((gc_html_class)c));
        }
        gc_str_puts(o, "}}");
    }
    gc_str_puts(o, "\n}\n");
out:
    free(keys); free(off); free(cls); free(warn);
}

void gc_me_error_json(const gc_html_series *s, const gc_model *m, gc_str *o) {
    graph_key *keys = NULL;
    int nk = graph_keys(m, &keys);
    int32_t *off = op_offsets(m);
    int32_t *worst = off ? malloc(((size_t)off[m->n_subgraphs] + 1) * sizeof *worst) : NULL;
    if (nk < 0 || !off || !worst) { o->oom = true; goto out; }
    for (int32_t i = 0; i < off[m->n_subgraphs]; i++) worst[i] = -1;
    /* the worst probe of each op: a NaN/Inf mismatch, else the largest rel */
    for (int32_t i = 0; i < s->n_probes; i++) {
        const gc_html_probe *p = &s->probes[i];
        if (p->subgraph < 0 || p->subgraph >= m->n_subgraphs || p->node < 0 || p->node >= m->subgraphs[p->subgraph].n_ops)
            continue;
        if (!p->nonfinite && !isfinite(p->rel)) continue;
        int32_t at = off[p->subgraph] + p->node, w = worst[at];
        if (w < 0 || (p->nonfinite && !s->probes[w].nonfinite) ||
            (!s->probes[w].nonfinite && !p->nonfinite && p->rel > s->probes[w].rel)) worst[at] = i;
    }
    double tol = s->tol > 0 ? s->tol : 1e-2;
    gc_str_putc(o, '{');
    for (int g = 0; g < nk; g++) {
        int32_t sg = keys[g].sg;
        gc_str_puts(o, g ? ",\n" : "\n");
        gc_str_json(o, keys[g].id);
        gc_str_puts(o, ": {\"name\": ");
        gc_str_json(o, s->title ? s->title : "gpuclean error");
        gc_str_printf(o, ", \"thresholds\": [{\"value\": %.6g, \"bgColor\": \"#34a853\"}, {\"value\": %.6g, "
                         "\"bgColor\": \"#fbbc04\"}, {\"value\": 1e+300, \"bgColor\": \"#ea4335\"}], \"results\": {",
                      tol / 100, tol);
        int w = 0;
        for (int32_t j = 0; j < m->subgraphs[sg].n_ops; j++) {
            int32_t i = worst[off[sg] + j];
            if (i < 0) continue;
            const gc_html_probe *p = &s->probes[i];
            gc_str_printf(o, "%s\n  \"%d\": ", w++ ? "," : "", j);
            if (p->nonfinite) gc_str_puts(o, "{\"value\": \"nonfinite\", \"bgColor\": \"#000000\"}");
            else gc_str_printf(o, "{\"value\": %.6g, \"bgColor\": \"%s\"}", p->rel,
                               p->rel <= tol / 100 ? "#34a853" : p->rel <= tol ? "#fbbc04" : "#ea4335");
        }
        gc_str_puts(o, "}}");
    }
    gc_str_puts(o, "\n}\n");
out:
    free(keys); free(off); free(worst);
}
