/* html_graph.c — the HTML report's graph: every subgraph as a layered DAG (dag_layout.c)
 * in one inline SVG, subgraphs side by side. Per node a <g class="n c<class>" id="n<k>"
 * data-k="<k>"> (k: index into the check result's nodes and the data blob) with a box and
 * the op name; edges as curves (lighter when they skip layers, dashed orange where data
 * crosses between the GPU and the CPU); one box per candidate partition around its nodes
 * (solid: the delegated one). The only model strings in the markup are op names (custom
 * ops) and subgraph names, escaped. */
#include "html_int.h"
#include "dag_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* at most `max` bytes of an op name, cut at a UTF-8 character boundary, "…" when cut */
static void label(gc_str *o, const char *s, size_t max) {
    size_t n = strlen(s);
    if (n <= max) { gc_html_esc(o, s); return; }
    size_t k = 0;
    while (k < n) {
        size_t l = gc_utf8_len((const unsigned char *)s + k, n - k);
        if (!l) l = 1;
        if (k + l > max - 1) break;
        k += l;
    }
    gc_html_esc_n(o, s, k);
    gc_str_puts(o, "\xe2\x80\xa6");
}

static bool on_gpu(const gc_hctx *c, int32_t k) {
    return k >= 0 && c->r->nodes[k].gpu;
}

/* One partition's outline: per layer the x-extent of its nodes, as a band one layer pitch
 * high; consecutive layers join into one rectilinear polygon (down the left edges, up the
 * right ones), a gap of a layer or more starts another. The label sits above the first. */
static void outline(gc_hctx *c, const gc_dag_layout *L, int32_t sg, const gc_check_partition *P, double x0,
                    double y0, gc_str *o) {
    const gc_check_result *r = c->r;
    int32_t nl = L->n_layers;
    double *lo = malloc(sizeof *lo * (size_t)(nl + 1)), *hi = malloc(sizeof *hi * (size_t)(nl + 1));
    if (!lo || !hi) { free(lo); free(hi); o->oom = true; return; }
    for (int32_t l = 0; l < nl; l++) { lo[l] = INFINITY; hi[l] = -INFINITY; }
    for (int32_t j = 0; j < L->n; j++) {
        int32_t k = gc_hctx_node(c, sg, j);
        if (k < 0 || r->nodes[k].partition != P->id) continue;
        double x = x0 + L->x[j] * GC_HTML_DX;
        if (x < lo[L->layer[j]]) lo[L->layer[j]] = x;
        if (x > hi[L->layer[j]]) hi[L->layer[j]] = x;
    }
    const double m0 = 7, band = GC_HTML_DY / 2;          /* margin; half a band */
    bool labelled = false;
    const char *d = P->delegated ? " d" : "";
    for (int32_t l = 0; l < nl;) {
        if (!(lo[l] <= hi[l])) { l++; continue; }
        int32_t e = l;
        while (e + 1 < nl && lo[e + 1] <= hi[e + 1]) e++;
        /* layers l..e: centre line of layer q at y0 + q*DY + NH/2 */
        double top = y0 + l * GC_HTML_DY + GC_HTML_NH / 2 - band + 2, bot = y0 + e * GC_HTML_DY + GC_HTML_NH / 2 + band - 2;
        gc_str_printf(o, "<path class=\"pb%s\" d=\"M%.1f %.1f", d, lo[l] - m0, top);
        for (int32_t q = l; q <= e; q++) {               /* down the left side */
            double yb = q == e ? bot : y0 + q * GC_HTML_DY + GC_HTML_NH / 2 + band;
            gc_str_printf(o, "L%.1f %.1fL%.1f %.1f", lo[q] - m0, q == l ? top : y0 + q * GC_HTML_DY + GC_HTML_NH / 2 - band,
                          lo[q] - m0, yb);
        }
        for (int32_t q = e; q >= l; q--) {               /* up the right side */
            double yt = q == l ? top : y0 + q * GC_HTML_DY + GC_HTML_NH / 2 - band;
            gc_str_printf(o, "L%.1f %.1fL%.1f %.1f", hi[q] + GC_HTML_NW + m0,
                          q == e ? bot : y0 + q * GC_HTML_DY + GC_HTML_NH / 2 + band, hi[q] + GC_HTML_NW + m0, yt);
        }
        gc_str_puts(o, "Z\"/>\n");
        if (!labelled) {
            gc_str_printf(o, "<text class=\"pbt%s\" x=\"%.1f\" y=\"%.1f\">partition %d: %d node(s)%s</text>\n", d,
                          lo[l] - m0, top - 3, P->id, P->n_nodes,
                          P->delegated ? ", delegated to the GPU" : ", on the CPU (not the largest)");
            labelled = true;
        }
        l = e + 1;
    }
    free(lo);
    free(hi);
}

/* one subgraph at x offset ox; returns its drawing's width */
static double subgraph(gc_hctx *c, int32_t sg, double ox, gc_str *o, gc_str *under, double *height) {
    const gc_model *m = c->m;
    const gc_check_result *r = c->r;
    gc_dag_layout L;
    *height = 0;
    if (gc_dag_layout_subgraph(m, sg, &L) != GC_OK) { o->oom = true; return 0; }
    if (L.n == 0) { gc_dag_layout_free(&L); return 0; }
    double w = L.width * GC_HTML_DX - (GC_HTML_DX - GC_HTML_NW) + 2 * GC_HTML_PAD;
    double h = GC_HTML_TOP + L.n_layers * GC_HTML_DY - (GC_HTML_DY - GC_HTML_NH) + 2 * GC_HTML_PAD;
    const char *name = m->subgraphs[sg].name ? m->subgraphs[sg].name : "";
    int32_t gpu = 0;
    for (int32_t j = 0; j < L.n; j++) gpu += on_gpu(c, gc_hctx_node(c, sg, j));
    gc_str_printf(o, "<text class=\"sgt\" x=\"%.1f\" y=\"%.1f\">subgraph %d", ox + GC_HTML_PAD, GC_HTML_PAD + 12.0, sg);
    if (name[0]) { gc_str_puts(o, " \xe2\x80\x98"); label(o, name, 80); gc_str_puts(o, "\xe2\x80\x99"); }
    gc_str_printf(o, ": %d/%d ops on the GPU</text>\n", gpu, L.n);
    double x0 = ox + GC_HTML_PAD, y0 = GC_HTML_PAD + GC_HTML_TOP;
    for (int32_t j = 0; j < L.n; j++) {
        int32_t k = gc_hctx_node(c, sg, j);
        if (k < 0) continue;
        c->px[k] = x0 + L.x[j] * GC_HTML_DX + GC_HTML_NW / 2;
        c->py[k] = y0 + L.layer[j] * GC_HTML_DY + GC_HTML_NH / 2;
    }
    /* partitions (drawn first: under the edges and nodes) */
    for (int32_t p = 0; p < r->n_partitions; p++) {
        const gc_check_partition *P = &r->parts[p];
        if (P->subgraph == sg) outline(c, &L, sg, P, x0, y0, under);
    }
    /* edges */
    for (int32_t q = 0; q < L.n_edges; q++) {
        int32_t fj = L.edge_from[q], tj = L.edge_to[q];
        int32_t fk = gc_hctx_node(c, sg, fj), tk = gc_hctx_node(c, sg, tj);
        double x1 = x0 + L.x[fj] * GC_HTML_DX + GC_HTML_NW / 2, y1 = y0 + L.layer[fj] * GC_HTML_DY + GC_HTML_NH;
        double x2 = x0 + L.x[tj] * GC_HTML_DX + GC_HTML_NW / 2, y2 = y0 + L.layer[tj] * GC_HTML_DY;
        int span = L.layer[tj] - L.layer[fj];
        bool cross = fk >= 0 && tk >= 0 && on_gpu(c, fk) != on_gpu(c, tk);
        const char *cl = cross ? "e x" : span > 1 ? "e l" : "e";
        if (span < 1) {
            gc_str_printf(o, "<path class=\"%s\" d=\"M%.1f %.1fL%.1f %.1f\"/>\n", cl, x1, y1, x2, y2);
            continue;
        }
        double d = (y2 - y1) / 2 < GC_HTML_DY ? (y2 - y1) / 2 : GC_HTML_DY;
        gc_str_printf(o, "<path class=\"%s\" d=\"M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\"/>\n", cl, x1, y1, x1,
                      y1 + d, x2, y2 - d, x2, y2);
    }
    /* nodes */
    for (int32_t j = 0; j < L.n; j++) {
        int32_t k = gc_hctx_node(c, sg, j);
        if (k < 0) continue;
        const gc_check_node *n = &r->nodes[k];
        gc_str_printf(o, "<g class=\"n c%d\" id=\"n%d\" data-k=\"%d\" transform=\"translate(%.1f %.1f)\">"
                         "<rect width=\"%.0f\" height=\"%.0f\" rx=\"4\"/><text x=\"5\" y=\"16\">",
                      c->cls[k], k, k, c->px[k] - GC_HTML_NW / 2, c->py[k] - GC_HTML_NH / 2, GC_HTML_NW, GC_HTML_NH);
        label(o, n->op ? n->op : "?", 14);
        gc_str_printf(o, "</text><text class=\"ix\" x=\"%.0f\" y=\"16\">%d</text></g>\n", GC_HTML_NW - 4, n->index);
    }
    *height = h;
    gc_dag_layout_free(&L);
    return w;
}

void gc_html_graph(gc_hctx *c, gc_str *o) {
    gc_str body = {0}, under = {0};
    double ox = 0, H = 0;
    for (int32_t s = 0; s < c->m->n_subgraphs; s++) {
        double h = 0, w = subgraph(c, s, ox, &body, &under, &h);
        if (w <= 0) continue;
        ox += w + GC_HTML_SGGAP;
        if (h > H) H = h;
    }
    double W = ox > 0 ? ox - GC_HTML_SGGAP : 200;
    if (H <= 0) H = 80;
    c->gw = W; c->gh = H;
    gc_str_printf(o, "<svg id=\"gc-graph\" xmlns=\"http://www.w3.org/2000/svg\" data-w=\"%.0f\" data-h=\"%.0f\" "
                     "viewBox=\"0 0 %.0f %.0f\" preserveAspectRatio=\"xMidYMin meet\" role=\"img\" "
                     "aria-label=\"the model graph, one box per op\">\n",
                  W, H, W, H);
    if (!body.n) gc_str_puts(o, "<text x=\"10\" y=\"30\">the model has no ops</text>\n");
    if (under.s) gc_str_puts(o, under.s);
    if (body.s) gc_str_puts(o, body.s);
    gc_str_puts(o, "</svg>\n");
    if (body.oom || under.oom) o->oom = true;
    gc_str_free(&body);
    gc_str_free(&under);
}
