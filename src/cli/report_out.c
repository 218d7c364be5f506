/* report_out.c — `--html OUT.html` for the verbs that take it (check, verify, bisect,
 * litert): render the report (src/report/html.c) and write it atomically; a file that
 * cannot be written is one line on stderr naming it. */
#include "cli.h"
#include "report_out.h"

#include <stdlib.h>

int gc_cli_write_report(const char *out, const gc_html_report *rep, const gc_check_result *r, const gc_model *m) {
    gc_str o = {0};
    gc_html_render(rep, r, m, &o);
    int rc = gc_cli_write_string(out, &o);
    gc_str_free(&o);
    return rc;
}

int gc_cli_report_path(const char *verb, const char *out, const char *model) {
    char err[1024];
    if (!out) return 0;
    if (gc_report_check_path(out, err, sizeof err) != GC_OK) return gc_cli_usage_error(verb, "%s", err);
    if (model && gc_same_file(out, model))
        return gc_cli_usage_error(verb, "%s: is the model itself; refusing to overwrite an input", out);
    return 0;
}

int gc_cli_write_string(const char *out, const gc_str *s) {
    char err[1024];
    if (gc_report_write_file(out, s, err, sizeof err) != GC_OK) { gc_cli_err("%s", err); return 2; }
    return 0;
}

bool gc_cli_bisect_series(const gc_bisect_result *b, const char *title, gc_html_series *s, gc_html_probe **probes) {
    *probes = malloc(sizeof **probes * (size_t)(b->n_nodes + 1));
    if (!*probes) return false;
    for (int i = 0; i < b->n_nodes; i++) {
        const gc_bisect_node *n = &b->nodes[i];
        (*probes)[i] = (gc_html_probe){ .subgraph = n->subgraph, .node = n->op, .tensor = n->tensor,
                                        .max_abs = n->max_abs, .rel = n->rel, .corr = n->corr,
                                        .snr_db = n->snr_db, .nonfinite = n->nonfinite };
    }
    *s = (gc_html_series){ .title = title, .tol = b->tol, .first = b->first, .n_probes = b->n_nodes,
                           .probes = *probes };
    return true;
}
