/* html.h — one self-contained HTML file per report (`check`, `verify`, `bisect`,
 * `litert` with --html OUT.html): the graph as a layered DAG in inline SVG, every node
 * coloured by the checker's verdict, partitions outlined, a side panel that shows the op,
 * reason, rule, fix and tensors of the clicked node, the findings, and — when the verb
 * measured them — per-node error plots along the graph with the first divergent node
 * marked. Nothing is fetched: no external resources, a Content-Security-Policy of
 * default-src 'none' with the one inline script allowed by its SHA-256, so the page works
 * offline and a name in the model can never load or run anything.
 *
 * Everything from the model (tensor, op, subgraph names, the delegate's wording) is user
 * data: HTML-escaped (& < > " ' and invalid UTF-8 / control bytes) wherever it lands in the
 * markup, and the per-node data the script reads sits in <script type="application/json">
 * with every '<', '>' and '&' written as \u003c, \u003e, \u0026, so no string can close
 * the block. The script sets textContent only.
 *
 *     gc_html_report rep = { .verb = "check", .model = path, .version = "0.1.0" };
 *     gc_str o = {0};
 *     gc_html_render(&rep, r, m, &o);                  // r: gc_check's result for m
 *     gc_report_write_file("report.html", &o, err, sizeof err);
 *
 * The writer decides nothing: colours come from the check result (its per-node verdict and
 * measured numerics), errors from the series the caller passes.
 */
#ifndef GC_REPORT_HTML_H
#define GC_REPORT_HTML_H
#include <stdbool.h>
#include <stdint.h>
#include "common/common.h"
#include "model/model.h"
#include "check/check.h"

typedef struct { const char *key, *value; } gc_html_fact;   /* a header line */

/* A table of strings (per-output numbers). cells: n_rows * n_cols, row-major, NULL = "". */
typedef struct {
    const char *caption;
    int n_cols; const char *const *cols;
    int n_rows; const char *const *cells;
    const bool *bad;          /* NULL, or one flag per row: shown as failing */
} gc_html_table;

/* One measured point along the graph: the output of op `node` of subgraph `subgraph`
 * (tensor `tensor`, -1 unknown) compared between a reference and a candidate execution.
 * Interpreter bisect, verify and the GPU bisect (prefix probes) all reduce to this.
 *   max_abs  max |ref - cand|            rel   max_abs / max |ref|
 *   corr     Pearson correlation          snr_db 10 log10(sum ref^2 / sum (ref-cand)^2)
 * NAN marks a value the source did not measure; snr_db +INF means identical. */
typedef struct {
    int32_t subgraph, node, tensor;
    double max_abs, rel, corr, snr_db;
    bool nonfinite;           /* NaN/Inf on one side only */
    const char *note;         /* NULL, or e.g. "probe ran on CPU" */
} gc_html_probe;

typedef struct {
    const char *title;        /* "interpreter fp32 (reference) vs interpreter fp16" */
    double tol;               /* rel tolerance (> 0), marked on the rel plot */
    int32_t first;            /* index into probes of the first divergent one, -1 none */
    int32_t n_probes;
    const gc_html_probe *probes;   /* in execution order */
} gc_html_series;

typedef struct {
    const char *verb;         /* "check", "verify", "bisect", "litert" */
    const char *model;        /* the path as given */
    const char *version;      /* gpuclean's version */
    const char *verdict;      /* headline; NULL: the residency line */
    bool verdict_ok;          /* green headline (else red) */
    int n_facts; const gc_html_fact *facts;   /* runtime, version, device, ... */
    int n_tables; const gc_html_table *tables;
    int n_series; const gc_html_series *series;
    bool color_by_error;      /* open with the error colouring (needs a series) */
    const char *text;         /* the verb's text report, shown folded; NULL none */
} gc_html_report;

/* Node colour classes, in legend order. */
typedef enum {
    GC_HTML_GPU = 0,          /* in the delegated partition (green) */
    GC_HTML_REJECTED,         /* refused by a rule, or breaks delegate init (red) */
    GC_HTML_CPU,              /* supported but on the CPU: outside the partition,
                                 fp16 DEQUANTIZE, delegate init failed (orange) */
    GC_HTML_WRONG,            /* on the GPU with wrong numbers: numerics "wrong" (purple) */
    GC_HTML_RISK,             /* on the GPU with an fp16 / numerics risk lint (yellow) */
    GC_HTML_SKIPPED,          /* subgraph the delegate skips (grey) */
    GC_HTML_N_CLASSES
} gc_html_class;
const char *gc_html_class_name(gc_html_class c);   /* "gpu", "rejected", ... */
const char *gc_html_class_colour(gc_html_class c); /* "#a8dab5", ... (the node fill) */

/* The class of check node k. has_risk: a lint (r->risks) names this node. */
gc_html_class gc_html_node_class(const gc_check_result *r, const gc_check_node *n, bool has_risk);

/* Render the report. r and m must belong together (r = gc_check(m, ...)). On allocation
 * failure out->oom is set. */
void gc_html_render(const gc_html_report *rep, const gc_check_result *r, const gc_model *m, gc_str *out);

/* Write a rendered report (or overlay) to path atomically (temp file + rename). An
 * existing path that is a directory, symlink, FIFO or device is refused (GC_ERR_USAGE);
 * out->oom gives GC_ERR_NOMEM; err: one line naming the file. */
gc_status gc_report_write_file(const char *path, const gc_str *s, char *err, size_t errlen);
/* The output path is usable (absent, or a regular file): call before long work. */
gc_status gc_report_check_path(const char *path, char *err, size_t errlen);

/* base64 of the SHA-256 of n bytes (44 characters + NUL into b64) — the CSP hash. */
void gc_html_sha256_b64(const void *data, size_t n, char b64[45]);

#endif
