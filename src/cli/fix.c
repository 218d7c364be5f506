/* fix.c — `gpuclean fix MODEL -o OUT [--target mldrift|classic] [--runtime R] [--precision P] [--only PASS,...]
 *           [--skip PASS,...] [--force PASS,...|all] [--no-verify] [--seed N] [--json] [--list]
 *           [--quiet] [--progress|--no-progress]`
 * Applies the graph rewrites of src/fix (each re-checked against the GPU rules), writes
 * OUT atomically, prints what changed and the residency before -> after, then re-reads
 * OUT and verifies it against MODEL on the reference interpreter (fp32, sin pattern and
 * random inputs) within the stated exactness of the passes applied.
 * Exit 0: OUT is GPU-clean and verified; 1: findings remain, or a rewrite exceeded its
 * stated exactness, or OUT could not be verified (OUT is still written); 2: bad usage
 * or unreadable input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "fix/fix.h"
#include "check/numerics.h"

static int usage(void) {
    printf("usage: gpuclean fix MODEL -o OUT [--target mldrift|classic] [--runtime R] [--precision fp32|fp16]\n"
           "                    [--only PASS,...] [--skip PASS,...] [--force PASS,...|all] [--no-verify] [--seed N] [--json]\n"
           "                    [--quiet] [--progress | --no-progress]\n"
           "       gpuclean fix --list\n"
           "  Rewrites the nodes the GPU refuses (gpuclean check) into equivalent ones it accepts,\n"
           "  keeping a rewrite only where the checker accepts what it makes, and writes OUT\n"
           "  (MODEL is never modified). Prints each rewrite, the sites left alone and why, and\n"
           "  \"GPU residency: before -> after\". Then runs MODEL and OUT on the reference\n"
           "  interpreter (fp32; --pattern sin inputs and --random SEED, default 1) and fails when an\n"
           "  output differs beyond the stated exactness (bit-exact passes must give 0).\n"
           "  PASS: a pass id or the checker's fix id (see --list). --force also rewrites nodes the\n"
           "  GPU already accepts (e.g. --force split_to_slices). --no-verify skips the run.\n"
           "  --runtime R (native-2.3, js-2.5, ...; default: the native runtime apps ship; gpuclean\n"
           "  check --list-runtimes) selects whose measured GPU facts the checks apply: kernel-building\n"
           "  failures and miscomputes measured on that runtime are fixed (e.g. --runtime js rewrites a\n"
           "  GATHER with constant indices that LiteRT.js cannot build). --precision fp16 (default fp32):\n"
           "  the GPU runs the model at fp16, so miscomputes measured at fp16 only are fixed too (e.g.\n"
           "  LiteRT.js's wide 3x3 convs).\n"
           "  --quiet prints only the residency line and the verification verdict. Progress goes\n"
           "  to stderr when it is a terminal (--progress: always, --no-progress: never).\n"
           "  Exit 0: OUT is GPU-clean and verified; 1: findings remain or verification failed\n"
           "  (OUT is written anyway); 2: bad usage or input.\n");
    return 0;
}

static int list_passes(void) {
    for (int i = 0; i < gc_fix_n_passes(); i++) {
        const gc_fix_pass *p = gc_fix_pass_at(i);
        printf("%-20s %-38s %-24s %s\n", p->id, p->fix_id, gc_fix_exactness_name(p->exactness), p->summary);
    }
    return 0;
}

static const char *value(int argc, char **argv, int *i, const char *flag) {
    size_t n = strlen(flag);
    if (!strncmp(argv[*i], flag, n) && argv[*i][n] == '=') return argv[*i] + n + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool is_flag(const char *a, const char *flag) {
    size_t n = strlen(flag);
    return !strncmp(a, flag, n) && (a[n] == 0 || a[n] == '=');
}

int gc_cli_fix(int argc, char **argv) {
    const char *path = NULL, *out = NULL;
    bool json = false, verify = true, quiet = false;
    int progress = GC_PROGRESS_AUTO;
    uint64_t seed = 1;
    gc_fix_opts o = gc_fix_opts_default();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage();
        if (!strcmp(a, "--list")) return list_passes();
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--no-verify")) verify = false;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "--progress")) progress = GC_PROGRESS_ON;
        else if (!strcmp(a, "--no-progress")) progress = GC_PROGRESS_OFF;
        else if (!strcmp(a, "-o") || is_flag(a, "--out")) {
            out = !strcmp(a, "-o") ? (i + 1 < argc ? argv[++i] : NULL) : value(argc, argv, &i, "--out");
            if (!out) return gc_cli_usage_error("fix", "-o needs a file name");
        } else if (is_flag(a, "--target")) {
            const char *v = value(argc, argv, &i, "--target");
            if (!v) return gc_cli_usage_error("fix", "--target needs a value (mldrift or classic)");
            int t = gc_target_from_name(v);
            if (t < 0) return gc_cli_usage_error("fix", "unknown target '%s' (mldrift or classic)", v);
            o.target = (gc_target)t;
        } else if (is_flag(a, "--runtime")) {
            const char *v = value(argc, argv, &i, "--runtime");
            if (!v || !*v) return gc_cli_usage_error("fix", "--runtime needs a value (native-2.3, js-2.5, ...)");
            if (!gc_facts_runtime(&gc_gpu_facts_builtin, v))
                return gc_cli_usage_error("fix", "unknown runtime '%s' (gpuclean check --list-runtimes)", v);
            o.runtime = v;
        } else if (is_flag(a, "--precision")) {
            const char *v = value(argc, argv, &i, "--precision");
            if (!v || (strcmp(v, "fp32") && strcmp(v, "fp16")))
                return gc_cli_usage_error("fix", "--precision must be fp32 or fp16");
            o.precision = !strcmp(v, "fp16") ? GC_FPREC_FP16 : GC_FPREC_FP32;
        } else if (is_flag(a, "--only") || is_flag(a, "--skip") || is_flag(a, "--force")) {
            const char *flag = is_flag(a, "--only") ? "--only" : is_flag(a, "--skip") ? "--skip" : "--force";
            const char *v = value(argc, argv, &i, flag);
            if (!v) return gc_cli_usage_error("fix", "%s needs a comma-separated list of passes", flag);
            char bad[128];
            if (gc_fix_list_unknown(v, bad, sizeof bad)) {
                if (gc_fix_id_advice(bad))
                    return gc_cli_usage_error("fix", "%s: '%s' is advice only: no .tflite pass implements it yet "
                                              "(gpuclean check names the PyTorch rewrite; gpuclean fix --list)", flag, bad);
                return gc_cli_usage_error("fix", "%s: unknown pass '%s' (gpuclean fix --list)", flag, bad);
            }
            if (!strcmp(flag, "--only")) o.only = v;
            else if (!strcmp(flag, "--skip")) o.skip = v;
            else o.force = v;
        } else if (is_flag(a, "--seed")) {
            const char *v = value(argc, argv, &i, "--seed");
            char *end = NULL;
            if (!v || !*v || (seed = strtoull(v, &end, 10), *end))
                return gc_cli_usage_error("fix", "--seed needs a non-negative integer");
        } else if (is_flag(a, "--max-rounds")) {
            const char *v = value(argc, argv, &i, "--max-rounds");
            char *end = NULL;
            long n = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || n < 1 || n > 1000) return gc_cli_usage_error("fix", "--max-rounds needs 1..1000");
            o.max_rounds = (int)n;
        } else if (a[0] == '-' && a[1]) return gc_cli_usage_error("fix", "unknown option '%s'", a);
        else if (!path) path = a;
        else return gc_cli_usage_error("fix", "more than one model given");
    }
    if (!path) return gc_cli_usage_error("fix", "no model given (gpuclean fix MODEL -o OUT)");
    if (o.runtime && o.target == GC_TARGET_CLASSIC)
        return gc_cli_usage_error("fix", "--runtime selects facts of the LiteRT GPU accelerator (target mldrift)");
    if (!out) return gc_cli_usage_error("fix", "no output given (-o OUT)");
    if (gc_cli_input_file(path)) return 2;
    if (!strcmp(path, out) || gc_same_file(path, out))
        return gc_cli_usage_error("fix", "OUT is MODEL; write the fixed model to another file");

    char err[512];
    if (gc_check_output_path(out, err, sizeof err) != GC_OK) { gc_cli_err("%s", err); return 2; }
    gc_cli_progress pg;
    gc_cli_progress_init(&pg, "fix", quiet && progress == GC_PROGRESS_AUTO ? GC_PROGRESS_OFF : progress);
    gc_model *orig = gc_model_read_file(path, err, sizeof err);
    if (!orig) { gc_cli_err("%s: %s", path, err); return 2; }
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); gc_model_free(orig); return 2; }
    gc_cli_progress_step(&pg, "rewriting %s (target %s)", path, gc_target_name(o.target));
    gc_fix_result *r = gc_fix_apply(m, &o, err, sizeof err);
    if (!r) {
        gc_cli_progress_done(&pg);
        gc_cli_err("%s: %s", path, err);
        gc_model_free(m); gc_model_free(orig);
        return 2;
    }
    int rc = 0;
    bool written = false;
    if (gc_model_validate(m, err, sizeof err) != GC_OK) {
        gc_cli_err("%s: internal error: the fixed model is invalid: %s", path, err);
        rc = 1;
    } else if (gc_model_write_file(m, out, NULL, err, sizeof err) != GC_OK) {
        gc_cli_err("%s: %s", out, err);
        rc = 2;
    } else written = true;

    gc_fix_verify_result v;
    memset(&v, 0, sizeof v);
    bool verified = false, have_v = false;
    if (written && verify && r->n_changes) {
        gc_model *fixed = gc_model_read_file(out, err, sizeof err);
        if (!fixed) { gc_cli_err("%s: cannot re-read the written model: %s", out, err); rc = 1; }
        else {
            gc_cli_progress_step(&pg, "%d rewrite(s); verifying %s against %s on the reference interpreter (fp32)",
                                 r->n_changes, out, path);
            gc_fix_verify(orig, fixed, r->exactness, r->rtol, r->atol, seed, &v);
            have_v = true;
            verified = v.pass;
            gc_model_free(fixed);
        }
    } else if (written && verify) verified = true;   /* nothing rewritten: OUT is MODEL re-serialized */
    gc_cli_progress_done(&pg);

    gc_str s = {0};
    if (json) gc_fix_json(r, m, path, written ? out : NULL, have_v ? &v : NULL, written, &s);
    else {
        gc_fix_text(r, m, path, written ? out : NULL, &s);
        if (have_v) gc_fix_verify_text(&v, &s);
        else if (written && verify) gc_str_puts(&s, "verify: nothing was rewritten\n");
        else if (written) gc_str_puts(&s, "verify: skipped (--no-verify)\n");
    }
    if (s.s && quiet && !json) {
        /* the residency line of the report, then the verdict of the verification */
        static const char *const keep[] = { "GPU residency: ", "verified: ", "FAILED: ", "  FAILED: ",
                                            "  not verified: ", "verify: ", NULL };
        gc_cli_write_lines(stdout, s.s, s.n, keep);
    } else if (s.s) { if (json) fwrite(s.s, 1, s.n, stdout); else gc_cli_write_text(stdout, s.s, s.n); }
    if (s.oom) { gc_cli_err("%s: out of memory rendering the report", path); rc = 2; }
    gc_str_free(&s);
    if (rc == 0) {
        if (!r->after.gpu_clean) rc = 1;
        if (verify && !verified) rc = 1;
    }
    if (have_v) gc_fix_verify_free(&v);
    gc_fix_result_free(r);
    gc_model_free(m);
    gc_model_free(orig);
    return rc;
}
