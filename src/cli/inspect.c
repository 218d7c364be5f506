/* inspect.c — `gpuclean inspect MODEL [--json] [--verbose]` */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "report/report.h"

int gc_cli_inspect(int argc, char **argv) {
    const char *path = NULL; bool json = false, verbose = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: gpuclean inspect MODEL [--json] [--verbose]\n"
                   "  subgraphs, signatures, inputs/outputs, op histogram with versions, custom ops,\n"
                   "  metadata, buffer sizes; --verbose lists every tensor and op; --json gives all of\n"
                   "  it as one JSON document (schema 1). Weights are never read.\n");
            return 0;
        } else if (argv[i][0] == '-') return gc_cli_usage_error("inspect", "unknown option '%s'", argv[i]);
        else if (!path) path = argv[i];
        else return gc_cli_usage_error("inspect", "more than one model given");
    }
    if (!path) return gc_cli_usage_error("inspect", "no model given (gpuclean inspect MODEL)");
    if (gc_cli_input_file(path)) return 2;
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    gc_str o = {0};
    gc_str w = {0};
    if (gc_model_warnings(m, &w) && w.s) {
        char *line = w.s, *nl;
        while ((nl = strchr(line, '\n'))) { *nl = 0; gc_cli_err("%s: warning: %s", path, line); line = nl + 1; }
    }
    gc_str_free(&w);
    if (json) gc_inspect_json(m, path, &o); else gc_inspect_text(m, path, verbose, &o);
    if (o.s) { if (json) fwrite(o.s, 1, o.n, stdout); else gc_cli_write_text(stdout, o.s, o.n); }
    gc_str_free(&o);
    gc_model_free(m);
    return 0;
}
