/* edit.c — `gpuclean edit MODEL -o OUT [--add-output TENSOR]... [--truncate-at TENSOR]...
 *           [--external-data]`
 * With no option: a faithful re-serialization. TENSOR is a tensor name or a number
 * (index in subgraph 0; use SG:INDEX or SG:NAME for another subgraph). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "model/model.h"

static int resolve(const gc_model *m, const char *spec, int32_t *sg, int32_t *t) {
    *sg = 0;
    const char *colon = strchr(spec, ':');
    if (colon && colon != spec) {
        char *end; long s = strtol(spec, &end, 10);
        if (end == colon) { *sg = (int32_t)s; spec = colon + 1; }
    }
    if (*sg < 0 || *sg >= m->n_subgraphs) return -1;
    const gc_subgraph *g = &m->subgraphs[*sg];
    *t = gc_find_tensor(g, spec);
    if (*t >= 0) return 0;
    char *end; long v = strtol(spec, &end, 10);
    if (*spec && !*end && v >= 0 && v < g->n_tensors) { *t = (int32_t)v; return 0; }
    return -1;
}

static int edit(int argc, char **argv, const char **add, const char **trunc, int32_t *ts);

int gc_cli_edit(int argc, char **argv) {
    /* as many tensors as arguments: no fixed limit */
    const char **add = calloc((size_t)argc + 1, sizeof *add), **trunc = calloc((size_t)argc + 1, sizeof *trunc);
    int32_t *ts = calloc((size_t)argc + 1, sizeof *ts);
    int rc = add && trunc && ts ? edit(argc, argv, add, trunc, ts) : gc_cli_usage_error("edit", "out of memory");
    free(add); free(trunc); free(ts);
    return rc;
}

static int edit(int argc, char **argv, const char **add, const char **trunc, int32_t *ts) {
    const char *path = NULL, *out = NULL;
    int n_add = 0, n_trunc = 0;
    gc_write_opts wo = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--add-output") && i + 1 < argc) add[n_add++] = argv[++i];
        else if (!strcmp(a, "--truncate-at") && i + 1 < argc) trunc[n_trunc++] = argv[++i];
        else if (!strcmp(a, "--external-data")) wo.force_external = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: gpuclean edit MODEL -o OUT [--add-output TENSOR]... [--truncate-at TENSOR]...\n"
                   "                      [--external-data]\n"
                   "  no option        faithful re-serialization of MODEL\n"
                   "  --add-output T   expose intermediate tensor T as an extra output (and in every\n"
                   "                   signature of its subgraph), to dump it on a real device\n"
                   "  --truncate-at T  keep only what the named tensors need and make them the outputs\n"
                   "                   (prefix models for bisection)\n"
                   "  --external-data  store weights after the flatbuffer (offset/size, as >2 GB models)\n"
                   "  TENSOR: a name, an index into subgraph 0, or SG:NAME / SG:INDEX.\n"
                   "  OUT is written atomically; MODEL is never modified.\n");
            return 0;
        } else if (a[0] == '-') return gc_cli_usage_error("edit", "unknown or incomplete option '%s'", a);
        else if (!path) path = a;
        else return gc_cli_usage_error("edit", "more than one model given");
    }
    if (!path) return gc_cli_usage_error("edit", "no model given (gpuclean edit MODEL -o OUT)");
    if (!out) return gc_cli_usage_error("edit", "no output given (-o OUT)");
    if (n_add && n_trunc) return gc_cli_usage_error("edit", "--add-output and --truncate-at cannot be combined");
    if (gc_cli_input_file(path)) return 2;
    if (!strcmp(path, out) || gc_same_file(path, out))
        return gc_cli_usage_error("edit", "OUT is MODEL; write the edited model to another file");
    char err[512];
    if (gc_check_output_path(out, err, sizeof err) != GC_OK) { gc_cli_err("%s", err); return 2; }
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    int rc = 0;
    const char **specs = n_add ? add : trunc;
    int n = n_add ? n_add : n_trunc;
    if (n) {
        int32_t sg0 = -1;
        for (int i = 0; i < n; i++) {
            int32_t sg;
            if (resolve(m, specs[i], &sg, &ts[i]) != 0) {
                gc_cli_err("%s: no tensor '%s'", path, specs[i]);
                gc_model_free(m); return 2;
            }
            if (sg0 >= 0 && sg != sg0) {
                gc_cli_err("%s: tensors from different subgraphs given", path);
                gc_model_free(m); return 2;
            }
            sg0 = sg;
        }
        gc_status s = n_add ? gc_model_add_outputs(m, sg0, n, ts) : gc_model_truncate_at(m, sg0, n, ts);
        if (s != GC_OK) { gc_cli_err("%s: edit failed: %s", path, gc_status_str(s)); gc_model_free(m); return 2; }
    }
    if (gc_model_validate(m, err, sizeof err) != GC_OK) {
        gc_cli_err("%s: edited model is invalid: %s", path, err); rc = 2;
    } else if (gc_model_write_file(m, out, &wo, err, sizeof err) != GC_OK) {
        gc_cli_err("%s: %s", out, err); rc = 2;
    }
    gc_model_free(m);
    return rc;
}
