/* check.c — `gpuclean check MODEL [--target mldrift|classic] [--runtime R] [--precision P] [--json]
 * [--verbose|--quiet]`: static GPU verdict per node, and the measured numerics of the selected
 * runtime (library: src/check/check.h, numerics.h). Exit 0 when the model is fully GPU-resident
 * and no node computes measured-wrong numbers, 1 otherwise, 2 on bad usage or an unreadable model. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "check/check.h"
#include "fix/fix.h"
#include "report/model_explorer.h"
#include "report_out.h"

/* the gpuclean fix passes that implement a fix id */
static void passes_for(const char *fix_id, gc_str *o) {
    int k = 0;
    for (int i = 0; i < gc_fix_n_passes(); i++) {
        const gc_fix_pass *p = gc_fix_pass_at(i);
        if (p && p->fix_id && !strcmp(p->fix_id, fix_id)) gc_str_printf(o, "%s%s", k++ ? ", " : "", p->id);
    }
}

static int usage(void) {
    printf("usage: gpuclean check MODEL [--target mldrift|classic] [--runtime R] [--precision fp32|fp16]\n"
           "                             [--json] [--verbose | --quiet]\n"
           "                             [--html OUT.html] [--model-explorer OUT.json]\n"
           "       gpuclean check --list-rules [--markdown]\n"
           "       gpuclean check --explain RULE\n"
           "       gpuclean check --list-runtimes [--json]\n"
           "  per-node verdict for the LiteRT GPU accelerator (mldrift, default) or the TFLite GPU\n"
           "  delegate v2 (classic): why a node is refused, in the delegate's own words, with a\n"
           "  stable rule id and the rewrite that fixes it; the partitioning as the runtime does\n"
           "  it; fp16 risk warnings; \"GPU residency: N/M nodes in K partition(s)\".\n"
           "  Nodes refused for the same reason (op, rule, wording) print as one line with their\n"
           "  count and node list; --verbose lists every node on its own, the GPU ones too;\n"
           "  --quiet prints only the residency line (and a delegate error or the count of nodes\n"
           "  computing wrong numbers, if any). --json is always complete, one entry per node\n"
           "  (docs/json.md).\n"
           "  --html OUT.html writes a self-contained report (the graph coloured by verdict and\n"
           "  measured numerics, partitions outlined, click a node for its reason, rule, fix and\n"
           "  tensors; docs/reports.md); --model-explorer OUT.json a node-data overlay for Model\n"
           "  Explorer (model-explorer MODEL --node_data_paths=OUT.json). Stdout and the exit code\n"
           "  stay the same; an output that cannot be written is exit 2.\n"
           "  --list-rules prints every rule id (tab-separated: id, kind, where it fires, ops, fix\n"
           "  id, the delegate's wording; --markdown: docs/rules.md); --explain RULE one of them\n"
           "  (\"mldrift.gather.indices_rank\" or \"gather.indices_rank\") with its fix texts, or a\n"
           "  measured fact (\"numerics.cumsum_exclusive\") with its measurements.\n"
           "  Measured facts (data/gpu/facts.tsv, from the device sweep) of the runtime --runtime selects\n"
           "  (native-2.3, js-2.5, native-2.3.0, native, js; default: the native runtime apps ship;\n"
           "  --list-runtimes lists them with their fact counts) say where a node on the GPU computes\n"
           "  wrong numbers (an error: \"numerics\": \"wrong\" in --json) and where kernel building fails so\n"
           "  that the whole model falls back to the CPU. --precision (default fp32): facts measured\n"
           "  wrong only at fp16 count as wrong with fp16, as a risk with fp32. Target mldrift only.\n"
           "  Exit 0: fully GPU-resident and no measured-wrong node, 1: not, 2: bad input.\n");
    return 0;
}

int gc_cli_check(int argc, char **argv) {
    const char *path = NULL;
    bool json = false, verbose = false, quiet = false, list = false, markdown = false;
    const char *explain = NULL, *runtime = NULL, *html = NULL, *me = NULL;
    int target = GC_TARGET_MLDRIFT, precision = GC_FPREC_FP32;
    bool list_rt = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--html") || !strcmp(a, "--model-explorer")) {
            if (i + 1 >= argc) return gc_cli_usage_error("check", "%s needs an output file", a);
            *(a[2] == 'h' ? &html : &me) = argv[++i];
        }
        else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) verbose = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "--list-rules")) list = true;
        else if (!strcmp(a, "--markdown")) markdown = true;
        else if (!strcmp(a, "--list-runtimes")) list_rt = true;
        else if (!strcmp(a, "--runtime") || !strncmp(a, "--runtime=", 10)) {
            runtime = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!runtime || !*runtime) return gc_cli_usage_error("check", "--runtime needs a value (native-2.3, js-2.5, ...)");
            if (!gc_facts_runtime(&gc_gpu_facts_builtin, runtime))
                return gc_cli_usage_error("check", "unknown runtime '%s' (gpuclean check --list-runtimes)", runtime);
        } else if (!strcmp(a, "--precision") || !strncmp(a, "--precision=", 12)) {
            const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
            precision = v && !strcmp(v, "fp16") ? GC_FPREC_FP16 : GC_FPREC_FP32;
            if (!v || (strcmp(v, "fp16") && strcmp(v, "fp32")))
                return gc_cli_usage_error("check", "--precision must be fp32 or fp16");
        }
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
    if (runtime && target == GC_TARGET_CLASSIC)
        return gc_cli_usage_error("check", "--runtime selects facts of the LiteRT GPU accelerator (target mldrift)");
    if (list_rt) {
        if (path || list || explain) return gc_cli_usage_error("check", "--list-runtimes takes no model or other listing");
        gc_str o = {0};
        if (json) gc_facts_runtimes_json(&gc_gpu_facts_builtin, &o); else gc_facts_runtimes_text(&gc_gpu_facts_builtin, &o);
        if (o.s) fwrite(o.s, 1, o.n, stdout);
        gc_str_free(&o);
        return 0;
    }
    if (list || explain) {
        if (path) return gc_cli_usage_error("check", "%s takes no model", list ? "--list-rules" : "--explain");
        if (list && explain) return gc_cli_usage_error("check", "--list-rules and --explain exclude each other");
        const gc_rule_info *ri = explain ? gc_rule_find(explain) : NULL;
        const gc_gpu_fact *fact = explain && !ri ? gc_facts_find(&gc_gpu_facts_builtin, explain) : NULL;
        if (explain && !ri && !fact) {
            gc_cli_err("gpuclean check: unknown rule '%s' (gpuclean check --list-rules)", explain);
            return 2;
        }
        gc_str o = {0};
        if (ri) gc_rule_explain(ri, passes_for, &o);
        else if (fact) gc_fact_explain(&gc_gpu_facts_builtin, explain, passes_for, &o);
        else if (markdown) { gc_rules_markdown(passes_for, &o); gc_facts_markdown(&gc_gpu_facts_builtin, &o); }
        else { gc_rules_list_text(passes_for, &o); gc_facts_list_text(&gc_gpu_facts_builtin, &o); }
        if (o.oom) { gc_str_free(&o); gc_cli_err("gpuclean check: out of memory"); return 2; }
        if (o.s) fwrite(o.s, 1, o.n, stdout);
        gc_str_free(&o);
        return 0;
    }
    if (!path) return gc_cli_usage_error("check", "no model given (gpuclean check MODEL)");
    if (gc_cli_input_file(path)) return 2;
    if (gc_cli_report_path("check", html, path) || gc_cli_report_path("check", me, path)) return 2;
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    gc_check_opts co = { .runtime = runtime, .precision = precision };
    gc_check_result *r = gc_check_ex(m, (gc_target)target, &co, err, sizeof err);
    if (!r) { gc_cli_err("%s: %s", path, err); gc_model_free(m); return 2; }
    gc_str o = {0};
    if (json) gc_check_json(r, m, path, &o);
    else if (quiet) gc_check_summary_text(r, path, false, &o);
    else gc_check_text(r, m, path, verbose, &o);
    if (o.s) { if (json) fwrite(o.s, 1, o.n, stdout); else gc_cli_write_text(stdout, o.s, o.n); }
    int rc = o.oom ? 2 : (r->gpu_clean && r->gpu_correct ? 0 : 1);
    if (o.oom) gc_cli_err("%s: out of memory rendering the report", path);
    if (html || me) {                            /* the files: the exit code stays the verdict's */
        gc_str t = {0};
        if (html) {
            gc_check_text(r, m, path, false, &t);
            char facts_rt[200] = "";
            if (r->runtime)
                snprintf(facts_rt, sizeof facts_rt, "%s (%s), at %s", r->runtime->name, r->runtime->what ? r->runtime->what : "",
                         r->precision == GC_FPREC_FP16 ? "fp16" : "fp32");
            const gc_html_fact facts[] = { { r->runtime ? "measured facts of" : NULL, facts_rt } };
            gc_html_report rep = { .verb = "check", .model = path, .version = gc_cli_version(), .text = t.s,
                                   .n_facts = 1, .facts = facts };
            if (gc_cli_write_report(html, &rep, r, m)) rc = 2;
        }
        if (me) {
            gc_str j = {0};
            gc_me_verdict_json(r, m, &j);
            if (gc_cli_write_string(me, &j)) rc = 2;
            gc_str_free(&j);
        }
        gc_str_free(&t);
    }
    gc_str_free(&o);
    gc_check_free(r);
    gc_model_free(m);
    return rc;
}
