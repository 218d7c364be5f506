/* html_int.h — shared between the HTML report's files: html.c (the document, findings,
 * data blob), html_graph.c (the DAG in SVG), html_plot.c (error plots), html_assets.c
 * (the inline style and script). */
#ifndef GC_REPORT_HTML_INT_H
#define GC_REPORT_HTML_INT_H
#include "html.h"

/* graph geometry in SVG user units (px at zoom 1) */
#define GC_HTML_NW 120.0     /* node box width */
#define GC_HTML_NH 24.0      /* node box height */
#define GC_HTML_DX 140.0     /* column pitch */
#define GC_HTML_DY 46.0      /* layer pitch */
#define GC_HTML_PAD 24.0     /* margin around a subgraph's drawing */
#define GC_HTML_TOP 44.0     /* room for a subgraph's title and a partition label */
#define GC_HTML_SGGAP 60.0   /* between subgraphs (drawn side by side) */

typedef struct {
    const gc_html_report *rep;
    const gc_check_result *r;
    const gc_model *m;
    int32_t *sg_off;         /* [n_subgraphs + 1]: kmap offsets (the subgraph's n_ops) */
    int32_t *kmap;           /* (subgraph, op) -> index into r->nodes, -1 none */
    uint8_t *cls;            /* [r->n_nodes] gc_html_class */
    bool *risk_warn;         /* [r->n_nodes] a warning-level lint names the node */
    double *px, *py;         /* [r->n_nodes] centre of the node's box; NAN: not drawn */
    double gw, gh;           /* the whole graph's size */
} gc_hctx;

/* r->nodes index of op `op` of subgraph sg; -1 when there is none */
int32_t gc_hctx_node(const gc_hctx *c, int32_t sg, int32_t op);
/* the node's name: its first output tensor's name ("" when none) */
const char *gc_hctx_node_name(const gc_hctx *c, const gc_check_node *n);

/* HTML text / attribute value: & < > " ' escaped, control bytes (but \n \t) and invalid
 * UTF-8 as U+FFFD. _n: at most n bytes of s, cut at a character boundary. */
void gc_html_esc(gc_str *o, const char *s);
void gc_html_esc_n(gc_str *o, const char *s, size_t n);
/* a JSON number (%.6g), null when not finite */
void gc_html_jnum(gc_str *o, double v);

/* the DAG: <svg id="gc-graph" ...> with every subgraph; fills c->px/py/gw/gh */
void gc_html_graph(gc_hctx *c, gc_str *o);
/* the error plots of one series (inline SVG) */
void gc_html_plots(const gc_hctx *c, const gc_html_series *s, int si, gc_str *o);

/* NULL-terminated pieces (C99 caps one literal at 4095 bytes); concatenated in order */
extern const char *const gc_html_css[];
extern const char *const gc_html_js[];
/* fill colour of each class (legend swatches; CSS holds the same values) */
extern const char *const gc_html_class_fill[GC_HTML_N_CLASSES];
extern const char *const gc_html_class_label[GC_HTML_N_CLASSES];

#endif
