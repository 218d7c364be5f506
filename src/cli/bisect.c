/* bisect.c — `gpuclean bisect MODEL [--a fp32] [--b fp16|fp16-acc | --ref DIR]
 *             [--pattern sin | --random SEED] [--tol REL] [--top N] [--json] [--quiet]
 *             [--progress | --no-progress]`
 * First divergent tensor between the reference interpreter at precision A (default
 * fp32) and precision B (default fp16, the GPU's storage precision), or reference
 * tensors dumped elsewhere (DIR/tensors/s<S>_t<T>.npy, e.g. from PyTorch or from
 * `gpuclean run --dump-all`). Exit 0 when nothing diverges beyond --tol, 1 when
 * something does (or the interpreter cannot run an op, as `run`), 2 on bad usage or
 * input (a malformed model, an unreadable or mismatched reference tensor). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "verify/bisect.h"

typedef struct { bool random; uint64_t seed; } fill_ctx;

typedef struct { gc_cli_progress *p; const gc_bisect_opts *o; } prog_ctx;

static void on_progress(const char *side, int32_t done, int32_t total, void *user) {
    prog_ctx *c = user;
    if (!strcmp(side, "ref"))
        gc_cli_progress_tick(c->p, "reading reference tensor %d/%d", done, total);
    else
        gc_cli_progress_tick(c->p, "%s: interpreter %s, op %d/%d", side,
                             gc_precision_name(side[0] == 'A' ? c->o->a : c->o->b), done, total);
}

/* --quiet: the one line that decides */
static void verdict_line(const gc_bisect_result *r, const char *path, gc_str *o) {
    if (r->first < 0) {
        gc_str_printf(o, "%s: no tensor diverges beyond rel %.3g (%d compared", path, r->tol, r->n_nodes);
        if (r->n_missing) gc_str_printf(o, ", %d without a reference file", r->n_missing);
        gc_str_puts(o, ")\n");
        return;
    }
    const gc_bisect_node *n = &r->nodes[r->first];
    gc_str_printf(o, "%s: first divergent tensor: subgraph %d op %d %s -> tensor %d '%s': rel %.3g > %.3g\n", path,
                  n->subgraph, n->op, n->op_name, n->tensor, n->tensor_name, n->rel, r->tol);
}

static gc_status fill(const gc_tview *v, int k, void *user) {
    const fill_ctx *f = user;
    return f->random ? gc_fill_random(v, f->seed, 0, k) : gc_fill_pattern_sin(v, k);
}

static int usage(FILE *f) {
    fprintf(f, "usage: gpuclean bisect MODEL [--a fp32|fp16|fp16-acc] [--b fp16|fp16-acc|fp32 | --ref DIR]\n"
               "                       [--pattern sin | --random SEED] [--tol REL] [--top N] [--json]\n"
               "                       [--quiet] [--progress | --no-progress]\n"
               "  Runs MODEL twice on the reference interpreter (A: default fp32, B: default fp16, the\n"
               "  GPU's storage precision) and compares every float op output in execution order:\n"
               "  rel = max|a-b| / max|a|. Reports the first tensor with rel > --tol (default 1e-2) and\n"
               "  the ops with the largest error gain (rel of the output over rel of the inputs): the\n"
               "  op that itself loses precision, often a reduction, not the op you suspect.\n"
               "  --ref DIR compares the interpreter at A against reference tensors\n"
               "  DIR/tensors/s<subgraph>_t<tensor>.npy (PyTorch dumps, `gpuclean run --dump-all`):\n"
               "  tensors without a file are counted and reported; a file that cannot be read, is\n"
               "  not float or has the wrong element count is an error (exit 2).\n"
               "  --quiet prints only the verdict line. Progress (op N/M of each run) goes to\n"
               "  stderr when it is a terminal (--progress: always, --no-progress: never).\n"
               "  Exit 0: nothing diverges; 1: a tensor diverges; 2: bad usage or input.\n");
    return f == stdout ? 0 : 2;
}

int gc_cli_bisect(int argc, char **argv) {
    const char *path = NULL;
    gc_bisect_opts o = { .a = GC_PREC_FP32, .b = GC_PREC_FP16, .tol = 1e-2, .qmode = GC_QMODE_TFLITE };
    fill_ctx fc = {0};
    bool json = false, quiet = false; int top = 5;
    int progress = GC_PROGRESS_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage(stdout);
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "--progress")) progress = GC_PROGRESS_ON;
        else if (!strcmp(a, "--no-progress")) progress = GC_PROGRESS_OFF;
        else if ((!strcmp(a, "--a") || !strcmp(a, "--b")) && val) {
            int p = gc_precision_parse(val);
            if (p < 0) return gc_cli_usage_error("bisect", "unknown precision '%s' (fp32, fp16, fp16-acc)", val);
            if (a[2] == 'a') o.a = (gc_precision)p; else o.b = (gc_precision)p;
            i++;
        } else if (!strcmp(a, "--ref") && val) { o.ref_dir = val; i++; }
        else if (!strcmp(a, "--pattern") && val) {
            if (strcmp(val, "sin")) return gc_cli_usage_error("bisect", "unknown pattern '%s' (sin)", val);
            fc.random = false; i++;
        } else if (!strcmp(a, "--random") && val) {
            char *end; fc.seed = strtoull(val, &end, 10);
            if (*end || !*val) return gc_cli_usage_error("bisect", "--random needs an integer seed, not '%s'", val);
            fc.random = true; i++;
        } else if (!strcmp(a, "--tol") && val) {
            char *end; o.tol = strtod(val, &end);
            if (*end || !(o.tol > 0)) return gc_cli_usage_error("bisect", "--tol needs a positive number, not '%s'", val);
            i++;
        } else if (!strcmp(a, "--top") && val) { top = atoi(val); i++; }
        else if (a[0] == '-') return gc_cli_usage_error("bisect", "unknown or incomplete option '%s'", a);
        else if (!path) path = a;
        else return gc_cli_usage_error("bisect", "more than one model given");
    }
    if (!path) return gc_cli_usage_error("bisect", "no model given (gpuclean bisect MODEL)");
    if (!o.ref_dir && o.a == o.b) return gc_cli_usage_error("bisect", "--a and --b are the same precision");
    o.fill = fill; o.fill_user = &fc;
    if (gc_cli_input_file(path)) return 2;
    struct stat st;
    if (o.ref_dir && (stat(o.ref_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        gc_cli_err("%s: not a directory (--ref DIR holds tensors/s<S>_t<T>.npy)", o.ref_dir);
        return 2;
    }
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    gc_cli_progress pg;
    gc_cli_progress_init(&pg, "bisect", quiet && progress == GC_PROGRESS_AUTO ? GC_PROGRESS_OFF : progress);
    prog_ctx pc = { &pg, &o };
    if (pg.on) { o.progress = on_progress; o.progress_user = &pc; }
    gc_cli_progress_step(&pg, "A: interpreter %s", gc_precision_name(o.a));
    gc_bisect_result r;
    gc_status s = gc_bisect(m, &o, &r, err, sizeof err);
    gc_cli_progress_done(&pg);
    if (s != GC_OK) {
        gc_cli_err("%s: %s", path, err);
        gc_model_free(m);
        return gc_cli_status_exit(s);
    }
    gc_str out = {0};
    if (json) gc_bisect_json(&r, path, top, &out);
    else if (quiet) verdict_line(&r, path, &out);
    else gc_bisect_text(&r, path, top, &out);
    if (out.s) { if (json) fwrite(out.s, 1, out.n, stdout); else gc_cli_write_text(stdout, out.s, out.n); }
    gc_str_free(&out);
    int rc = r.first >= 0 ? 1 : 0;
    gc_bisect_free(&r);
    gc_model_free(m);
    return rc;
}
