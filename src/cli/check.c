/* check.c — `gpuclean check MODEL [--target mldrift|classic] [--json] [--verbose|--quiet]`:
 * static GPU verdict per node (library: src/check/check.h). Exit 0 when the model is
 * fully GPU-resident, 1 otherwise, 2 on bad usage or an unreadable model. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "check/check.h"
#include "fix/fix.h"

/* the gpuclean fix passes that implement a fix id */
static void passes_for(const char *fix_id, gc_str *o) {
    int k = 0;
    for (int i = 0; i < gc_fix_n_passes(); i++) {
        const gc_fix_pass *p = gc_fix_pass_at(i);
        if (p && p->fix_id && !strcmp(p->fix_id, fix_id)) gc_str_printf(o, "%s%s", k++ ? ", " : "", p->id);
    }
}

static int usage(void) {
    printf("usage: gpuclean check MODEL [--target mldrift|classic] [--json] [--verbose | --quiet]\n"
           "       gpuclean check --list-rules [--markdown]\n"
           "       gpuclean check --explain RULE\n"
           "  per-node verdict for the LiteRT GPU accelerator (mldrift, default) or the TFLite GPU\n"
           "  delegate v2 (classic): why a node is refused, in the delegate's own words, with a\n"
           "  stable rule id and the rewrite that fixes it; the partitioning as the runtime does\n"
           "  it; fp16 risk warnings; \"GPU residency: N/M nodes in K partition(s)\".\n"
           "  Nodes refused for the same reason (op, rule, wording) print as one line with their\n"
           "  count and node list; --verbose lists every node on its own, the GPU ones too;\n"
           "  --quiet prints only the residency line (and a delegate error, if any). --json is\n"
           "  always complete, one entry per node (docs/json.md).\n"
           "  --list-rules prints every rule id (tab-separated: id, kind, where it fires, ops, fix\n"
           "  id, the delegate's wording; --markdown: docs/rules.md); --explain RULE one of them\n"
           "  (\"mldrift.gather.indices_rank\" or \"gather.indices_rank\") with its fix texts.\n"
           "  Exit 0: fully GPU-resident, 1: not, 2: bad input.\n");
    return 0;
}

int gc_cli_check(int argc, char **argv) {
    const char *path = NULL;
    bool json = false, verbose = false, quiet = false, list = false, markdown = false;
    const char *explain = NULL;
    int target = GC_TARGET_MLDRIFT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) verbose = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "--list-rules")) list = true;
        else if (!strcmp(a, "--markdown")) markdown = true;
        else if (!strcmp(a, "--explain") || !strncmp(a, "--explain=", 10)) {
            explain = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!explain || !*explain) return gc_cli_usage_error("check", "--explain needs a rule id (gpuclean check --list-rules)");
        }
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
    if (markdown && !list) return gc_cli_usage_error("check", "--markdown goes with --list-rules");
    if (list || explain) {
        if (path) return gc_cli_usage_error("check", "%s takes no model", list ? "--list-rules" : "--explain");
        if (list && explain) return gc_cli_usage_error("check", "--list-rules and --explain exclude each other");
        const gc_rule_info *ri = explain ? gc_rule_find(explain) : NULL;
        if (explain && !ri) {
            gc_cli_err("gpuclean check: unknown rule '%s' (gpuclean check --list-rules)", explain);
            return 2;
        }
        gc_str o = {0};
        if (ri) gc_rule_explain(ri, passes_for, &o);
        else if (markdown) gc_rules_markdown(passes_for, &o);
        else gc_rules_list_text(passes_for, &o);
        if (o.oom) { gc_str_free(&o); gc_cli_err("gpuclean check: out of memory"); return 2; }
        if (o.s) fwrite(o.s, 1, o.n, stdout);
        gc_str_free(&o);
        return 0;
    }
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
