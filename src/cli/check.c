/* check.c — `gpuclean check MODEL [--target mldrift|classic] [--json] [--verbose|--quiet]`:
 * static GPU verdict per node (library: src/check/check.h). Exit 0 when the model is
 * fully GPU-resident, 1 otherwise, 2 on bad usage or an unreadable model. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "check/check.h"

static int usage(void) {
    printf("usage: gpuclean check MODEL [--target mldrift|classic] [--json] [--verbose | --quiet]\n"
           "  per-node verdict for the LiteRT GPU accelerator (mldrift, default) or the TFLite GPU\n"
           "  delegate v2 (classic): why a node is refused, in the delegate's own words, with a\n"
           "  stable rule id and the rewrite that fixes it; the partitioning as the runtime does\n"
           "  it; fp16 risk warnings; \"GPU residency: N/M nodes in K partition(s)\".\n"
           "  Nodes refused for the same reason (op, rule, wording) print as one line with their\n"
           "  count and node list; --verbose lists every node on its own, the GPU ones too;\n"
           "  --quiet prints only the residency line (and a delegate error, if any). --json is\n"
           "  always complete, one entry per node (docs/json.md).\n"
           "  Exit 0: fully GPU-resident, 1: not, 2: bad input.\n");
    return 0;
}

int gc_cli_check(int argc, char **argv) {
    const char *path = NULL;
    bool json = false, verbose = false, quiet = false;
    int target = GC_TARGET_MLDRIFT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) verbose = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage();
        else if (!strcmp(a, "--target") || !strncmp(a, "--target=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) return gc_cli_usage_error("check", "--target needs a value (mldrift or classic)");
            target = gc_target_from_name(v);
            if (target < 0) return gc_cli_usage_error("check", "unknown target '%s' (mldrift or classic)", v);
        } else if (a[0] == '-' && a[1]) return gc_cli_usage_error("check", "unknown option '%s'", a);
        else if (!path) path = a;
        else return gc_cli_usage_error("check", "more than one model given");
    }
    if (verbose && quiet) return gc_cli_usage_error("check", "--verbose and --quiet exclude each other");
    if (!path) return gc_cli_usage_error("check", "no model given (gpuclean check MODEL)");
    if (gc_cli_input_file(path)) return 2;
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    gc_check_result *r = gc_check(m, (gc_target)target, err, sizeof err);
    if (!r) { gc_cli_err("%s: %s", path, err); gc_model_free(m); return 2; }
    gc_str o = {0};
    if (json) gc_check_json(r, m, path, &o);
    else if (quiet) gc_check_summary_text(r, path, false, &o);
    else gc_check_text(r, m, path, verbose, &o);
    if (o.s) { if (json) fwrite(o.s, 1, o.n, stdout); else gc_cli_write_text(stdout, o.s, o.n); }
    int rc = o.oom ? 2 : (r->gpu_clean ? 0 : 1);
    if (o.oom) gc_cli_err("%s: out of memory rendering the report", path);
    gc_str_free(&o);
    gc_check_free(r);
    gc_model_free(m);
    return rc;
}
