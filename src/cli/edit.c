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

int gc_cli_edit(int argc, char **argv) {
    const char *path = NULL, *out = NULL;
    const char *add[256], *trunc[256];
    int n_add = 0, n_trunc = 0;
    gc_write_opts wo = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--add-output") && i + 1 < argc) { if (n_add < 256) add[n_add++] = argv[++i]; }
        else if (!strcmp(a, "--truncate-at") && i + 1 < argc) { if (n_trunc < 256) trunc[n_trunc++] = argv[++i]; }
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
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { fprintf(stderr, "%s: %s\n", path, err); return 2; }
    int rc = 0;
    const char **specs = n_add ? add : trunc;
    int n = n_add ? n_add : n_trunc;
    if (n) {
        int32_t ts[256], sg0 = -1;
        for (int i = 0; i < n; i++) {
            int32_t sg;
            if (resolve(m, specs[i], &sg, &ts[i]) != 0) {
                fprintf(stderr, "%s: no tensor '%s'\n", path, specs[i]);
                gc_model_free(m); return 2;
            }
            if (sg0 >= 0 && sg != sg0) {
                fprintf(stderr, "%s: tensors from different subgraphs given\n", path);
                gc_model_free(m); return 2;
            }
            sg0 = sg;
        }
        gc_status s = n_add ? gc_model_add_outputs(m, sg0, n, ts) : gc_model_truncate_at(m, sg0, n, ts);
        if (s != GC_OK) { fprintf(stderr, "%s: edit failed: %s\n", path, gc_status_str(s)); gc_model_free(m); return 2; }
    }
    if (gc_model_validate(m, err, sizeof err) != GC_OK) {
        fprintf(stderr, "%s: edited model is invalid: %s\n", path, err); rc = 2;
    } else if (gc_model_write_file(m, out, &wo, err, sizeof err) != GC_OK) {
        fprintf(stderr, "%s: %s\n", out, err); rc = 2;
    }
    gc_model_free(m);
    return rc;
}
