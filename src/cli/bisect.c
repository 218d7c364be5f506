/* bisect.c — `gpuclean bisect MODEL ...`, two modes:
 *
 * interpreter (the default, no --runtime): [--a fp32] [--b fp16|fp16-acc | --ref DIR]
 *             [--pattern sin | --random SEED] [--tol REL] [--top N] [--json] [--quiet]
 *             [--progress | --no-progress]
 * First divergent tensor between the reference interpreter at precision A (default
 * fp32) and precision B (default fp16, the GPU's storage precision), or reference
 * tensors dumped elsewhere (DIR/tensors/s<S>_t<T>.npy, e.g. from PyTorch or from
 * `gpuclean run --dump-all`). Exit 0 when nothing diverges beyond --tol, 1 when
 * something does (or the interpreter cannot run an op, as `run`), 2 on bad usage or
 * input (a malformed model, an unreadable or mismatched reference tensor).
 *
 * real GPU (--runtime native|js): [--precision fp32|fp16] [--pattern sin | --random SEED]
 *             [--input NAME=FILE.npy]... [--tol REL] [--timeout S] [--json] [--quiet]
 * The first op whose GPU output diverges from the CPU's in one LiteRT runtime, found
 * with prefix-model probes (src/verify/gpu_bisect.h). Exit 0 no divergence, 1 a
 * divergence, 2 bad usage/input, no runtime, no GPU adapter. The probes live in a
 * private temporary folder that is removed at the end (and on SIGINT/SIGTERM/SIGHUP).
 * `--gpu-side interp` is a test seam: the interpreter stands in for the GPU. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "model/model.h"
#include "runtime/litert.h"
#include "verify/bisect.h"
#include "verify/gpu_bisect.h"
#include "verify/npy.h"
#include "check/check.h"
#include "report/model_explorer.h"
#include "report_out.h"

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
               "                       [--gpu-runtime native|js] [--quiet] [--progress | --no-progress]\n"
               "       gpuclean bisect MODEL --runtime native|js [--precision fp32|fp16]\n"
               "                       [--pattern sin | --random SEED] [--input NAME_OR_INDEX=FILE.npy]...\n"
               "                       [--tol REL] [--timeout S] [--json] [--quiet] [--progress | --no-progress]\n"
               "       (both: [--html OUT.html] [--model-explorer OUT.json])\n"
               "Without --runtime (the default): the reference interpreter.\n"
               "  Runs MODEL twice on the reference interpreter (A: default fp32, B: default fp16, the\n"
               "  GPU's fp16 mode as --gpu-runtime computes it: native, the default, or js) and\n"
               "  compares every float op output in execution order:\n"
               "  rel = max|a-b| / max|a|. Reports the first tensor with rel > --tol (default 1e-2) and\n"
               "  the ops with the largest error gain (rel of the output over rel of the inputs): the\n"
               "  op that itself loses precision, often a reduction, not the op you suspect.\n"
               "  --ref DIR compares the interpreter at A against reference tensors\n"
               "  DIR/tensors/s<subgraph>_t<tensor>.npy (PyTorch dumps, `gpuclean run --dump-all`):\n"
               "  tensors without a file are counted and reported; a file that cannot be read, is\n"
               "  not float or has the wrong element count is an error (exit 2).\n"
               "  Exit 0: nothing diverges; 1: a tensor diverges; 2: bad usage or input.\n"
               "With --runtime native|js: the real GPU of that LiteRT runtime, against its CPU.\n"
               "  Finds the first op whose output the GPU gets wrong with prefix models (MODEL cut\n"
               "  after one op's output, which is then the only output): first the full model, then\n"
               "  a binary search over the float32 (and quantized) op outputs that the divergent\n"
               "  output depends on, in execution order, then a probe of the\n"
               "  found op's inputs (they must be within tolerance; if one is not, the search goes on\n"
               "  before it). Each probe compiles and runs one prefix on the GPU and the CPU with the\n"
               "  same inputs (--pattern sin, the default; --random SEED; --input as `gpuclean litert`)\n"
               "  at --precision (default fp32). Divergent: NaN/Inf on one side only, or\n"
               "  max|gpu-cpu| > 1e-4 + 1e-3*max|cpu| and corr < 0.9999 beyond 1e-4 (fp32),\n"
               "  1e-3 + 2e-2*max|cpu| and corr < 0.999 (fp16); integers: 1 step; --tol REL replaces\n"
               "  the relative part. A probe the runtime runs wholly on the CPU (or cannot compile for\n"
               "  the GPU) counts as within tolerance and is reported as such. Reports the op, its\n"
               "  error, its inputs' errors, what `gpuclean check` says about it, every probe made.\n"
               "  --timeout S: per compile+run (default 120). About ceil(log2 N)+2 probes for N points.\n"
               "  Exit 0: no divergence (or the model does not run on the GPU at all); 1: a divergent\n"
               "  op, or the full model diverges and no single op could be isolated; 2: bad usage or\n"
               "  input, the runtime is not installed, or no GPU adapter (\"no GPU adapter: cannot\n"
               "  bisect on the GPU\": there is no CPU-only answer).\n"
               "Both: --quiet prints only the verdict line. Progress goes to stderr when it is a\n"
               "  terminal (--progress: always, --no-progress: never).\n"
               "  --html OUT.html writes a self-contained report: the graph coloured by error (or\n"
               "  by the checker's verdict), max|diff|, rel and SNR (interpreter) along the graph with\n"
               "  the first divergent node marked (docs/reports.md); --model-explorer OUT.json the same\n"
               "  errors as a Model Explorer node-data overlay. Neither changes stdout or the exit\n"
               "  code; an output that cannot be written is exit 2.\n");
    return f == stdout ? 0 : 2;
}

/* --html / --model-explorer: the errors along the graph, the graph coloured by them */
/* the overlay and the page of one series; facts and verdict from the caller */
static int write_series(const char *html, const char *me, const char *path, const gc_model *m, const gc_html_series *s,
                        const gc_html_fact *facts, int n_facts, const char *verdict, bool ok, const char *text) {
    char err[512];
    int rc = 0;
    if (me) {
        gc_str j = {0};
        gc_me_error_json(s, m, &j);
        rc = gc_cli_write_string(me, &j);
        gc_str_free(&j);
    }
    gc_check_result *cr = html ? gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err) : NULL;
    if (html && !cr) { gc_cli_err("%s: %s", path, err); rc = 2; }
    if (cr) {
        gc_html_report rep = { .verb = "bisect", .model = path, .version = gc_cli_version(), .verdict = verdict,
                               .verdict_ok = ok, .n_facts = n_facts, .facts = facts, .n_series = 1, .series = s,
                               .color_by_error = true, .text = text };
        if (gc_cli_write_report(html, &rep, cr, m)) rc = 2;
        gc_check_free(cr);
    }
    return rc;
}

static int write_reports(const char *html, const char *me, const char *path, const gc_model *m,
                         const gc_bisect_result *r) {
    char title[400], tol[32], cmp[32];
    snprintf(title, sizeof title, "%s (reference) vs %s", r->a_desc, r->b_desc);
    gc_html_series s;
    gc_html_probe *probes = NULL;
    if (!gc_cli_bisect_series(r, title, &s, &probes)) { gc_cli_err("%s: out of memory", path); return 2; }
    int rc = 0;
    gc_str text = {0};
    if (html) gc_bisect_text(r, path, 5, &text);
    snprintf(tol, sizeof tol, "rel %.3g", r->tol);
    snprintf(cmp, sizeof cmp, "%d float tensors", r->n_nodes);
    const gc_html_fact facts[] = {
        { "reference", r->a_desc }, { "candidate", r->b_desc }, { "tolerance", tol }, { "compared", cmp },
        { "runtime", "gpuclean's reference interpreter (no GPU runtime)" },
    };
    char verdict[600];
    if (r->first >= 0) {
        const gc_bisect_node *n = &r->nodes[r->first];
        snprintf(verdict, sizeof verdict, "first divergent tensor: subgraph %d op %d %s (rel %.3g > %.3g)",
                 n->subgraph, n->op, n->op_name, n->rel, r->tol);
    } else snprintf(verdict, sizeof verdict, "no tensor diverges beyond rel %.3g", r->tol);
    rc = write_series(html, me, path, m, &s, facts, (int)(sizeof facts / sizeof facts[0]), verdict, r->first < 0, text.s);
    gc_str_free(&text);
    free(probes);
    return rc;
}

/* --runtime with --html / --model-explorer: every probe made (GPU against CPU of one
 * runtime), in execution order, as the report's series; the first divergent op marked */
static int write_gpu_reports(const char *html, const char *me, const char *path, const gc_gb_result *r) {
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    gc_html_probe *pr = calloc((size_t)r->n_probes + 1, sizeof *pr);
    int32_t *pos = calloc((size_t)r->n_probes + 1, sizeof *pos);
    if (!pr || !pos) { free(pr); free(pos); gc_model_free(m); gc_cli_err("%s: out of memory", path); return 2; }
    int n = 0, first = -1;
    for (int i = 0; i < r->n_probes; i++) {
        const gc_gb_probe *p = &r->probes[i];
        int32_t pt = p->point;
        if (pt < 0 && p->cmp.have)            /* the full model: its worst output, if a point */
            for (int32_t q = 0; q < r->n_points && pt < 0; q++) if (r->points[q].tensor == p->cmp.tensor) pt = q;
        if (pt < 0 || pt >= r->n_points || !p->cmp.have) continue;
        const gc_gb_point *P = &r->points[pt];
        bool dup = false;
        for (int k = 0; k < n; k++) if (pr[k].tensor == P->tensor) dup = true;
        if (dup) continue;
        /* insertion in execution order */
        int at = n++;
        while (at > 0 && pos[at - 1] > P->pos) { pr[at] = pr[at - 1]; pos[at] = pos[at - 1]; at--; }
        pr[at] = (gc_html_probe){ .subgraph = r->subgraph, .node = P->op, .tensor = P->tensor, .max_abs = p->cmp.max_abs,
                                  .rel = p->cmp.rel, .corr = p->cmp.has_corr ? p->cmp.corr : NAN, .snr_db = NAN,
                                  .nonfinite = p->cmp.nan_mismatch > 0,
                                  .note = p->verdict == GC_GB_DIVERGES || p->verdict == GC_GB_OK ? NULL : p->status };
        pos[at] = P->pos;
    }
    if (r->first >= 0 && r->first < r->n_points)
        for (int k = 0; k < n; k++) if (pr[k].tensor == r->points[r->first].tensor) first = k;
    char title[200], tol[96], probes[32];
    snprintf(title, sizeof title, "%s CPU (reference) vs %s GPU %s, %s", r->runtime, r->runtime, r->precision, r->gpu_side);
    snprintf(tol, sizeof tol, "max|gpu-cpu| <= %g + %g*max|cpu|, corr >= %g", r->tol.atol, r->tol.rtol, r->tol.min_corr);
    snprintf(probes, sizeof probes, "%d (bound %d)", r->n_probes, r->probe_bound);
    char rt[200];
    snprintf(rt, sizeof rt, "LiteRT %s %s", r->runtime, r->runtime_version ? r->runtime_version : "");
    const gc_html_fact facts[] = {
        { "runtime", rt }, { "gpu", r->gpu_side }, { "precision", r->precision }, { "inputs", r->inputs_desc },
        { "tolerance", tol }, { "prefix probes", probes },
    };
    gc_html_series s = { .title = title, .tol = r->tol.rtol, .first = first, .n_probes = n, .probes = pr };
    gc_str text = {0};
    if (html) gc_gb_text(r, &text);
    int rc = write_series(html, me, path, m, &s, facts, (int)(sizeof facts / sizeof facts[0]), r->text,
                          gc_gb_exit_code(r) == 0, text.s);
    gc_str_free(&text);
    free(pr); free(pos);
    gc_model_free(m);
    return rc;
}

/* ---- --runtime: the real GPU ----------------------------------------------------------- */

static char g_workdir[4096];
static pid_t g_owner;

/* SIGINT/SIGTERM/SIGHUP: remove the probe folder, then die of the signal. Forked runtime
 * children inherit the handler but do not own the folder. */
static void on_signal(int sig) {
    if (getpid() == g_owner && g_workdir[0]) gc_remove_tree(g_workdir);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void gpu_progress(int probe, const char *what, void *user) {
    gc_cli_progress_step(user, "probe %d: %s", probe, what);
}

/* Every --input names an input of the entry (signature 0 by its signature names, else
 * subgraph 0 by tensor names; or its index), as the runtimes match them, and has its
 * element count (dynamic inputs: any). 0 or 2 (message printed). */
static int check_gpu_inputs(const char *path, const gc_lrt_input *ins, int n) {
    if (!n) return 0;
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    int rc = 0;
    const gc_signature *sig = m->n_signatures > 0 ? &m->signatures[0] : NULL;
    int32_t sg = sig ? (int32_t)sig->subgraph : 0;
    if (sg < 0 || sg >= m->n_subgraphs) { gc_cli_err("%s: no entry subgraph", path); gc_model_free(m); return 2; }
    const gc_subgraph *g = &m->subgraphs[sg];
    int32_t nin = sig ? sig->n_inputs : g->n_inputs;
    for (int i = 0; i < n && !rc; i++) {
        int k = -1;
        for (int32_t j = 0; j < nin && k < 0; j++) {
            int32_t t = sig ? (int32_t)sig->inputs[j].tensor : g->inputs[j];
            const char *name = sig ? sig->inputs[j].name : t >= 0 && t < g->n_tensors ? g->tensors[t].name : "";
            char num[16];
            snprintf(num, sizeof num, "%d", j);
            if ((name && !strcmp(ins[i].key, name)) || !strcmp(ins[i].key, num)) k = j;
        }
        if (k < 0) { rc = gc_cli_usage_error("bisect", "--input %s: the model has no input named or numbered '%s'", ins[i].key, ins[i].key); break; }
        gc_npy a;
        if (gc_npy_read(ins[i].file, &a, err, sizeof err) != GC_OK) { rc = gc_cli_usage_error("bisect", "%s", err); break; }
        uint64_t have = gc_npy_count(&a);
        gc_npy_free(&a);
        int32_t t = sig ? (int32_t)sig->inputs[k].tensor : g->inputs[k];
        if (t < 0 || t >= g->n_tensors) continue;
        const gc_tensor *x = &g->tensors[t];
        bool dyn = false;
        for (int d = 0; d < x->n_shape_signature; d++) dyn |= x->shape_signature[d] < 0;
        uint64_t need = gc_tensor_numel(x);
        if (!dyn && have != need) {
            gc_cli_err("gpuclean bisect: %s: %llu elements, input %d ('%s') needs %llu", ins[i].file,
                       (unsigned long long)have, k, x->name, (unsigned long long)need);
            rc = 2;
        }
    }
    gc_model_free(m);
    return rc;
}

static int bisect_gpu(const char *path, gc_gb_opts *o, bool json, bool quiet, int progress, const char *html,
                      const char *me) {
    if (gc_cli_input_file(path)) return 2;
    char err[1024];
    gc_model *m = gc_model_read_file(path, err, sizeof err);     /* bad input is exit 2, early */
    if (!m) { gc_cli_err("%s: %s", path, err); return 2; }
    gc_model_free(m);
    if (check_gpu_inputs(path, o->inputs, o->n_inputs)) return 2;
    const char *tmp = getenv("TMPDIR");
    snprintf(g_workdir, sizeof g_workdir, "%s/gpuclean-bisect-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_workdir)) { g_workdir[0] = 0; gc_cli_err("gpuclean bisect: mkdtemp: %s", strerror(errno)); return 2; }
    g_owner = getpid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL); sigaction(SIGTERM, &sa, NULL); sigaction(SIGHUP, &sa, NULL);
    o->model = path;
    o->workdir = g_workdir;
    gc_cli_progress pg;
    gc_cli_progress_init(&pg, "bisect", quiet && progress == GC_PROGRESS_AUTO ? GC_PROGRESS_OFF : progress);
    if (pg.on) { o->progress = gpu_progress; o->progress_user = &pg; }
    gc_gb_result r;
    gc_status s = gc_gpu_bisect(o, &r, err, sizeof err);
    gc_cli_progress_done(&pg);
    gc_remove_tree(g_workdir);
    g_workdir[0] = 0;
    if (s != GC_OK) { gc_cli_err("gpuclean bisect: %s", err); return 2; }
    gc_str out = {0};
    if (json) gc_gb_json(&r, &out); else gc_gb_text(&r, &out);
    static const char *const keep[] = { "verdict: ", NULL };
    if (out.s) {
        if (json) fwrite(out.s, 1, out.n, stdout);
        else if (quiet) gc_cli_write_lines(stdout, out.s, out.n, keep);
        else gc_cli_write_text(stdout, out.s, out.n);
    }
    gc_str_free(&out);
    int rc = gc_gb_exit_code(&r);
    if ((html || me) && write_gpu_reports(html, me, path, &r)) rc = 2;
    gc_gb_free(&r);
    return rc;
}

int gc_cli_bisect(int argc, char **argv) {
    const char *path = NULL;
    gc_bisect_opts o = { .a = GC_PREC_FP32, .b = GC_PREC_FP16, .tol = 1e-2, .qmode = GC_QMODE_TFLITE };
    fill_ctx fc = {0};
    bool json = false, quiet = false; int top = 5;
    const char *html = NULL, *me = NULL;
    int progress = GC_PROGRESS_AUTO;
    /* --runtime mode */
    gc_gb_opts g;
    memset(&g, 0, sizeof g);
    g.precision = GC_LRT_FP32;
    g.input_kind = GC_LRT_IN_PATTERN;
    bool interp_only = false, gpu_only = false, tol_given = false;
    gc_lrt_input *inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (!inputs) return gc_cli_usage_error("bisect", "out of memory");
    int rc = 2;
#define USAGE(...) do { rc = gc_cli_usage_error("bisect", __VA_ARGS__); goto done; } while (0)
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { rc = usage(stdout); goto done; }
        else if (!strcmp(a, "--runtime") && val) {
            if (!strcmp(val, "native")) g.runtime = GC_LRT_NATIVE;
            else if (!strcmp(val, "js")) g.runtime = GC_LRT_JS;
            else USAGE("--runtime must be native or js, not '%s'", val);
            i++;
        } else if (!strcmp(a, "--precision") && val) {
            if (!strcmp(val, "fp32")) g.precision = GC_LRT_FP32;
            else if (!strcmp(val, "fp16")) g.precision = GC_LRT_FP16;
            else USAGE("--precision must be fp32 or fp16 (with --runtime), not '%s'", val);
            gpu_only = true; i++;
        } else if (!strcmp(a, "--input") && val) {
            const char *eq = strchr(val, '=');
            if (!eq || eq == val || !eq[1]) USAGE("--input needs NAME_OR_INDEX=FILE.npy, not '%s'", val);
            char *key = strndup(val, (size_t)(eq - val));
            if (!key) USAGE("out of memory");
            inputs[g.n_inputs].key = key;
            inputs[g.n_inputs++].file = eq + 1;
            gpu_only = true; i++;
        } else if (!strcmp(a, "--timeout") && val) {
            char *end; g.timeout_s = strtod(val, &end);
            if (*end || !(g.timeout_s > 0) || g.timeout_s > 86400) USAGE("--timeout needs seconds in (0, 86400]");
            gpu_only = true; i++;
        } else if (!strcmp(a, "--gpu-side") && val) {         /* test seam (see usage of gpu_bisect.h) */
            if (!strcmp(val, "interp")) g.side = GC_GB_SIDE_INTERP;
            else if (!strcmp(val, "gpu")) g.side = GC_GB_SIDE_GPU;
            else USAGE("--gpu-side must be gpu or interp");
            gpu_only = true; i++;
        }
        else if ((!strcmp(a, "--html") || !strcmp(a, "--model-explorer")) && val) { *(a[2] == 'h' ? &html : &me) = val; i++; }
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "--progress")) progress = GC_PROGRESS_ON;
        else if (!strcmp(a, "--no-progress")) progress = GC_PROGRESS_OFF;
        else if ((!strcmp(a, "--a") || !strcmp(a, "--b")) && val) {
            int p = gc_precision_parse(val);
            if (p < 0) USAGE("unknown precision '%s' (fp32, fp16, fp16-acc)", val);
            if (a[2] == 'a') o.a = (gc_precision)p; else o.b = (gc_precision)p;
            interp_only = true; i++;
        } else if (!strcmp(a, "--ref") && val) { o.ref_dir = val; interp_only = true; i++; }
        else if (!strcmp(a, "--gpu-runtime") && val) {
            int grt = gc_f16_runtime_parse(val);
            if (grt < 0) USAGE("--gpu-runtime must be native or js, not '%s'", val);
            o.gpu_runtime = (gc_f16_runtime)grt; interp_only = true; i++;
        }
        else if (!strcmp(a, "--pattern") && val) {
            if (strcmp(val, "sin")) USAGE("unknown pattern '%s' (sin)", val);
            fc.random = false; i++;
        } else if (!strcmp(a, "--random") && val) {
            char *end; fc.seed = strtoull(val, &end, 10);
            if (*end || !*val || *val == '-') USAGE("--random needs an integer seed, not '%s'", val);
            fc.random = true; i++;
        } else if (!strcmp(a, "--tol") && val) {
            char *end; o.tol = strtod(val, &end);
            if (*end || !(o.tol > 0)) USAGE("--tol needs a positive number, not '%s'", val);
            tol_given = true; i++;
        } else if (!strcmp(a, "--top") && val) { top = atoi(val); interp_only = true; i++; }
        else if (a[0] == '-') USAGE("unknown or incomplete option '%s'", a);
        else if (!path) path = a;
        else USAGE("more than one model given");
    }
    if (!path) USAGE("no model given (gpuclean bisect MODEL)");
    if (gc_cli_report_path("bisect", html, path) || gc_cli_report_path("bisect", me, path)) goto done;
    if (g.runtime) {
        if (interp_only) USAGE("--a, --b, --ref, --top and --gpu-runtime belong to the interpreter mode, not --runtime");
        g.input_kind = fc.random ? GC_LRT_IN_RANDOM : GC_LRT_IN_PATTERN;
        g.seed = fc.seed;
        g.inputs = inputs;
        if (tol_given) g.rtol = o.tol;
        rc = bisect_gpu(path, &g, json, quiet, progress, html, me);
        goto done;
    }
    if (gpu_only) USAGE("--precision, --input, --timeout and --gpu-side need --runtime native|js");
    if (!o.ref_dir && o.a == o.b) USAGE("--a and --b are the same precision");
    o.fill = fill; o.fill_user = &fc;
    if (gc_cli_input_file(path)) goto done;
    struct stat st;
    if (o.ref_dir && (stat(o.ref_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        gc_cli_err("%s: not a directory (--ref DIR holds tensors/s<S>_t<T>.npy)", o.ref_dir);
        goto done;
    }
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", path, err); goto done; }
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
        rc = gc_cli_status_exit(s);
        goto done;
    }
    gc_str out = {0};
    if (json) gc_bisect_json(&r, path, top, &out);
    else if (quiet) verdict_line(&r, path, &out);
    else gc_bisect_text(&r, path, top, &out);
    if (out.s) { if (json) fwrite(out.s, 1, out.n, stdout); else gc_cli_write_text(stdout, out.s, out.n); }
    gc_str_free(&out);
    rc = r.first >= 0 ? 1 : 0;
    if ((html || me) && write_reports(html, me, path, m, &r)) rc = 2;
    gc_bisect_free(&r);
    gc_model_free(m);
done:
    for (int i = 0; i < g.n_inputs; i++) free((char *)inputs[i].key);
    free(inputs);
    return rc;
#undef USAGE
}
