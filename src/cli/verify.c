/* verify.c — `gpuclean verify MODEL --ref DIR [--precision fp32|fp16|fp16-acc|both]
 *             [--min-corr C] [--rtol R] [--atol A] [--argmax] [--json] [--quiet]`
 *
 * Parity of a converted model against its source model: DIR holds what the source
 * model (PyTorch) was fed and what it returned, as a recipe's dump_*_ref.py writes it:
 * DIR/input_<k>.npy and DIR/output_<k>.npy (k in the model's input / output order:
 * the signature's, or subgraph 0's without one). The model runs on gpuclean's
 * reference interpreter on exactly those inputs — at fp32 and, with --precision fp16
 * or both, emulating the GPU's half precision — and every output is compared with the
 * reference: max/mean abs, Pearson correlation, argmax agreement over the last axis.
 * An output passes when corr >= --min-corr (default 0.9999) and, if --rtol/--atol are
 * given, every element is within atol + rtol*|ref|; --argmax also requires the
 * argmax of every row to agree (classification heads). Correlation is undefined for a
 * 1-element output (MediaPipe score heads) or a constant one: such an output is judged
 * by the tolerance instead (--rtol/--atol, default atol 1e-5 + rtol 1e-3 at fp32,
 * 1e-3 + 1e-2 at fp16), and the line says so. NaN/Inf where the reference has none (or
 * the other way round) always fails and is counted on the line. Exit 0 all pass, 1 any
 * fails or the interpreter lacks a kernel the model needs (as `run`), 2 bad usage or input
 * (a missing or unreadable reference file, a malformed model). On-device parity is `gpuclean litert --input ...`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include "cli.h"
#include "interp/interp.h"
#include "verify/compare.h"
#include "verify/npy.h"
#include "verify/bisect.h"
#include "check/check.h"
#include "report_out.h"

#define MAXIO 64

static int usage(FILE *f) {
    fprintf(f, "usage: gpuclean verify MODEL --ref DIR [--precision fp32|fp16|fp16-acc|both]\n"
               "                       [--gpu-runtime native|js] [--min-corr C] [--rtol R] [--atol A] [--argmax] [--json]\n"
               "                       [--quiet] [--html OUT.html]\n"
               "  Runs MODEL on the reference interpreter on DIR/input_<k>.npy (what the source\n"
               "  model was fed) and compares each output with DIR/output_<k>.npy (what it\n"
               "  returned). Pass: corr >= --min-corr (default 0.9999); with --rtol/--atol every\n"
               "  element within atol + rtol*|ref|; with --argmax every row's argmax agrees.\n"
               "  A 1-element or constant output has no correlation: it is judged by the tolerance\n"
               "  (--rtol/--atol; default atol 1e-5 + rtol 1e-3 at fp32, 1e-3 + 1e-2 at fp16).\n"
               "  NaN/Inf mismatches always fail.\n"
               "  --precision both (default fp32) also runs the GPU's fp16 mode, as --gpu-runtime\n"
               "  computes it: native (default, libLiteRt) or js (LiteRT.js); docs/fp16-model.md.\n"
               "  --quiet prints only the verdict line (\"MODEL: PASS against DIR\").\n"
               "  --html OUT.html also writes a self-contained report: the per-output numbers, the\n"
               "  graph coloured by the checker's verdict or by per-node error, and max|diff|, rel and\n"
               "  SNR along the graph with the first divergent node marked. The per-node errors are\n"
               "  the interpreter at fp32 against DIR/tensors/s<S>_t<T>.npy when DIR has them (a\n"
               "  PyTorch dump), else fp32 against the first other --precision, else fp32 against\n"
               "  fp64 (docs/reports.md). Stdout and the exit code stay the same; an output that\n"
               "  cannot be written is exit 2.\n"
               "  Exit 0 pass, 1 parity failed (or an op the interpreter cannot run), 2 bad usage\n"
               "  or input (malformed model, missing or unreadable reference).\n");
    return f == stdout ? 0 : 2;
}

typedef struct { double min_corr, rtol, atol; bool tol, argmax; gc_f16_runtime grt; } crit;

/* --html: one table row per (precision, output), strings in the arena */
#define VCOLS 8
typedef struct { gc_arena a; const char **cells; bool *bad; int32_t n, cap_cells, cap_bad; bool oom; } vrows;

static void vrow(vrows *h, gc_precision p, int k, const char *name, const gc_metrics *mt, bool undefined, bool pass) {
    if (!h) return;
    if (!gc_grow((void **)&h->cells, &h->cap_cells, (h->n + 1) * VCOLS, sizeof *h->cells) ||
        !gc_grow((void **)&h->bad, &h->cap_bad, h->n + 1, sizeof *h->bad)) { h->oom = true; return; }
    char b[VCOLS][64];
    snprintf(b[0], sizeof b[0], "%s", gc_precision_name(p));
    snprintf(b[1], sizeof b[1], "%d", k);
    if (undefined) snprintf(b[3], sizeof b[3], "n/a"); else snprintf(b[3], sizeof b[3], "%.7f", mt->pearson);
    snprintf(b[4], sizeof b[4], "%.4g", mt->max_abs);
    snprintf(b[5], sizeof b[5], "%.3g", mt->mean_abs);
    snprintf(b[6], sizeof b[6], "%.4f", mt->argmax_agree);
    snprintf(b[7], sizeof b[7], "%s", pass ? "PASS" : "FAIL");
    const char **row = h->cells + (size_t)h->n * VCOLS;
    for (int c = 0; c < VCOLS; c++) row[c] = gc_arena_strdup(&h->a, c == 2 ? (name ? name : "") : b[c]);
    for (int c = 0; c < VCOLS; c++) if (!row[c]) h->oom = true;
    h->bad[h->n++] = !pass;
}

/* run one precision; append results; returns 0 pass, 1 fail, 2 error */
static int run_one(const gc_model *m, const char *path, gc_precision p, gc_npy *ins, int n_in,
                   gc_npy *refs, int n_ref, const crit *c, bool json, gc_str *o, bool *first, vrows *hr) {
    gc_interp_opts io = { .precision = p, .signature = GC_SIG_AUTO, .gpu_runtime = c->grt };
    char err[512];
    gc_interp *it = gc_interp_new(m, &io, err, sizeof err);
    if (!it) { gc_cli_err("%s: %s", path, err); return 2; }
    if (gc_interp_n_inputs(it) != n_in) {
        gc_cli_err("%s: the model has %d input(s), the reference directory %d", path,
                gc_interp_n_inputs(it), n_in);
        gc_interp_free(it); return 2;
    }
    for (int k = 0; k < n_in; k++) {
        if (ins[k].rank > GC_MAX_RANK) {
            gc_cli_err("%s: input_%d.npy has rank %d (at most %d)", path, k, ins[k].rank, GC_MAX_RANK);
            gc_interp_free(it); return 2;
        }
        int32_t shp[GC_MAX_RANK];
        for (int d = 0; d < ins[k].rank && d < GC_MAX_RANK; d++) shp[d] = (int32_t)ins[k].shape[d];
        gc_interp_set_input_shape(it, k, ins[k].rank, shp);
    }
    gc_status st = gc_interp_prepare(it);
    if (st != GC_OK) { gc_cli_err("%s: %s", path, gc_interp_errmsg(it)); gc_interp_free(it); return gc_cli_status_exit(st); }
    for (int k = 0; k < n_in; k++) {
        gc_tview v = gc_interp_input(it, k);
        if (v.dtype != ins[k].dtype || v.nbytes != ins[k].nbytes) {
            gc_cli_err("%s: input_%d.npy is %s with %llu bytes, the model wants %s with %zu", path, k,
                    gc_type_name(ins[k].dtype), (unsigned long long)ins[k].nbytes, gc_type_name(v.dtype), v.nbytes);
            gc_interp_free(it); return 2;
        }
        memcpy(v.data, ins[k].data, v.nbytes);
    }
    if ((st = gc_interp_invoke(it)) != GC_OK) { gc_cli_err("%s: %s", path, gc_interp_errmsg(it)); gc_interp_free(it); return gc_cli_status_exit(st); }
    int n_out = gc_interp_n_outputs(it), rc = 0;
    if (n_out != n_ref) {
        gc_cli_err("%s: the model has %d output(s), the reference directory %d", path, n_out, n_ref);
        gc_interp_free(it); return 2;
    }
    for (int k = 0; k < n_out; k++) {
        gc_tview v = gc_interp_output(it, k);
        gc_npy a; memset(&a, 0, sizeof a);
        a.dtype = v.dtype; a.rank = v.rank; a.data = v.data; a.nbytes = v.nbytes;
        for (int d = 0; d < v.rank; d++) a.shape[d] = v.shape[d];
        gc_metrics mt;
        if (gc_compare(&a, &refs[k], c->tol ? c->rtol : 0, c->tol ? c->atol : 1e300, &mt, err, sizeof err) != GC_OK) {
            gc_cli_err("%s: output %d: %s", path, k, err);
            gc_interp_free(it); return 2;
        }
        /* correlation is undefined with fewer than two finite pairs or a constant side:
         * then the tolerance decides (the default one when none was given) */
        bool undefined = mt.n_finite < 2 || isnan(mt.pearson);
        bool use_tol = c->tol;
        if (undefined && !c->tol) {
            double rt = p == GC_PREC_FP32 ? 1e-3 : 1e-2, at = p == GC_PREC_FP32 ? 1e-5 : 1e-3;
            if (gc_compare(&a, &refs[k], rt, at, &mt, err, sizeof err) != GC_OK) {
                gc_cli_err("%s: output %d: %s", path, k, err);
                gc_interp_free(it); return 2;
            }
            use_tol = true;
        }
        bool corr_ok = undefined || mt.pearson >= c->min_corr || (mt.max_abs == 0 && mt.nan_mismatch == 0);
        bool nonfinite = mt.nan_mismatch || mt.inf_mismatch;
        bool pass = corr_ok && (!use_tol || mt.pass) && (!c->argmax || mt.argmax_agree == 1.0) && !nonfinite;
        if (!pass) rc = 1;
        vrow(hr, p, k, v.name, &mt, undefined, pass);
        const char *why = mt.n == 1 ? "1 element" : mt.n_finite < 2 ? "fewer than 2 finite values" : "constant output";
        if (json) {
            gc_str_printf(o, "%s{\"precision\":\"%s\",\"output\":%d,\"name\":", *first ? "" : ",", gc_precision_name(p), k);
            gc_str_json(o, v.name ? v.name : "");
            gc_str_puts(o, ",\"metrics\":"); gc_metrics_json(&mt, o);
            gc_str_printf(o, ",\"corr_defined\":%s,\"judged_by\":\"%s\"", undefined ? "false" : "true",
                          undefined ? "tolerance" : c->tol ? "correlation+tolerance" : "correlation");
            gc_str_printf(o, ",\"pass\":%s}", pass ? "true" : "false");
            *first = false;
        } else {
            gc_str_printf(o, "%s  %-8s output %d %-24s ", pass ? "PASS" : "FAIL", gc_precision_name(p), k, v.name ? v.name : "");
            if (undefined) gc_str_printf(o, "corr n/a (%s)", why);
            else gc_str_printf(o, "corr %.7f", mt.pearson);
            gc_str_printf(o, "  max|diff| %.4g  mean|diff| %.3g  argmax %.4f", mt.max_abs, mt.mean_abs, mt.argmax_agree);
            if (nonfinite)
                gc_str_printf(o, "  NaN/Inf mismatches %llu/%llu", (unsigned long long)mt.nan_mismatch,
                              (unsigned long long)mt.inf_mismatch);
            uint64_t both = mt.n - mt.n_finite - mt.nan_mismatch - mt.inf_mismatch;
            if (both) gc_str_printf(o, "  NaN/Inf on both sides %llu", (unsigned long long)both);
            if (undefined)
                gc_str_printf(o, "  judged by tolerance atol %g + rtol %g*|ref|: %s", mt.atol, mt.rtol,
                              mt.pass ? "within" : "OVER");
            else if (c->tol) gc_str_puts(o, mt.pass ? "  within tol" : "  OVER tol");
            gc_str_putc(o, '\n');
        }
    }
    gc_interp_free(it);
    return rc;
}

static int load_set(const char *dir, const char *stem, gc_npy *arr, int *n) {
    *n = 0;
    for (int k = 0; k < MAXIO; k++) {
        char p[1024], err[512];
        snprintf(p, sizeof p, "%s/%s_%d.npy", dir, stem, k);
        struct stat st;
        if (stat(p, &st) != 0) break;             /* no probing open: a FIFO would block */
        if (gc_npy_read(p, &arr[k], err, sizeof err) != GC_OK) { gc_cli_err("%s", err); return 2; }
        (*n)++;
    }
    return 0;
}

/* the per-node error run feeds the interpreter the reference inputs */
typedef struct { const gc_npy *ins; int n; } feed;

static gc_status feed_input(const gc_tview *v, int k, void *user) {
    const feed *f = user;
    if (k < 0 || k >= f->n || f->ins[k].dtype != v->dtype || f->ins[k].nbytes != v->nbytes) return GC_ERR_USAGE;
    memcpy(v->data, f->ins[k].data, v->nbytes);
    return GC_OK;
}

static int write_html(const char *out, const char *path, const char *ref, const gc_model *m, const gc_precision *precs,
                      int np, const gc_npy *ins, int n_in, const crit *c, int rc, vrows *hr, const char *text) {
    char err[512], dir[1100], title[400], note[700] = "", crit_s[96];
    if (hr->oom) { gc_cli_err("%s: out of memory", out); return 2; }
    gc_check_result *cr = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    if (!cr) { gc_cli_err("%s: %s", path, err); return 2; }
    /* per-node errors: reference tensors if DIR has them, else fp32 vs the other precision / fp64 */
    feed f = { ins, n_in };
    gc_bisect_opts bo = { .a = GC_PREC_FP32, .b = GC_PREC_FP64, .tol = 1e-2, .qmode = GC_QMODE_TFLITE,
                          .fill = feed_input, .fill_user = &f };
    struct stat st;
    snprintf(dir, sizeof dir, "%s/tensors", ref);
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) bo.ref_dir = ref;
    else for (int i = 0; i < np; i++) if (precs[i] != GC_PREC_FP32) { bo.b = precs[i]; break; }
    gc_bisect_result br;
    gc_html_series s;
    gc_html_probe *probes = NULL;
    bool have = gc_bisect(m, &bo, &br, err, sizeof err) == GC_OK;
    if (have) {
        snprintf(title, sizeof title, "%s (reference) vs %s", br.a_desc, br.b_desc);
        if (!gc_cli_bisect_series(&br, title, &s, &probes)) { gc_bisect_free(&br); have = false; snprintf(note, sizeof note, "out of memory"); }
    } else snprintf(note, sizeof note, "not measured: %s", err);
    snprintf(crit_s, sizeof crit_s, "corr >= %g%s%s", c->min_corr, c->tol ? ", elementwise tolerance" : "",
             c->argmax ? ", argmax agrees" : "");
    gc_html_fact facts[] = {
        { "reference", ref }, { "criterion", crit_s },
        { "runtime", "gpuclean's reference interpreter (no GPU runtime; gpuclean litert runs the real one)" },
        { note[0] ? "per-node errors" : NULL, note },
    };
    static const char *const cols[VCOLS] = { "precision", "output", "name", "corr", "max|diff|", "mean|diff|",
                                             "argmax", "verdict" };
    gc_html_table t = { .caption = "Outputs against the source model", .n_cols = VCOLS, .cols = cols,
                        .n_rows = hr->n, .cells = hr->cells, .bad = hr->bad };
    char verdict[1200];
    snprintf(verdict, sizeof verdict, "%s against %s", rc == 0 ? "PASS" : "FAIL", ref);
    gc_html_report rep = { .verb = "verify", .model = path, .version = gc_cli_version(), .verdict = verdict,
                           .verdict_ok = rc == 0, .n_facts = 4, .facts = facts, .n_tables = 1, .tables = &t,
                           .n_series = have ? 1 : 0, .series = have ? &s : NULL, .text = text };
    int w = gc_cli_write_report(out, &rep, cr, m);
    if (have) gc_bisect_free(&br);
    free(probes);
    gc_check_free(cr);
    (void)np;
    return w;
}

int gc_cli_verify(int argc, char **argv) {
    const char *path = NULL, *ref = NULL, *prec = "fp32";
    crit c = { .min_corr = 0.9999, .rtol = 0, .atol = 0 };
    bool json = false, quiet = false;
    const char *html = NULL;
    vrows hr; memset(&hr, 0, sizeof hr);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage(stdout);
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--argmax")) c.argmax = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "--ref") && val) { ref = val; i++; }
        else if (!strcmp(a, "--html") && val) { html = val; i++; }
        else if (!strcmp(a, "--precision") && val) { prec = val; i++; }
        else if (!strcmp(a, "--gpu-runtime") && val) {
            int g = gc_f16_runtime_parse(val);
            if (g < 0) return gc_cli_usage_error("verify", "--gpu-runtime must be native or js, not '%s'", val);
            c.grt = (gc_f16_runtime)g; i++;
        }
        else if ((!strcmp(a, "--min-corr") || !strcmp(a, "--rtol") || !strcmp(a, "--atol")) && val) {
            char *end; double d = strtod(val, &end);
            if (*end || !*val || d < 0) return gc_cli_usage_error("verify", "%s needs a number >= 0, not '%s'", a, val);
            if (a[2] == 'm') c.min_corr = d; else { c.tol = true; if (a[2] == 'r') c.rtol = d; else c.atol = d; }
            i++;
        } else if (a[0] == '-') return gc_cli_usage_error("verify", "unknown or incomplete option '%s'", a);
        else if (!path) path = a;
        else return gc_cli_usage_error("verify", "more than one model given");
    }
    if (!path) return gc_cli_usage_error("verify", "no model given (gpuclean verify MODEL --ref DIR)");
    if (!ref) return gc_cli_usage_error("verify", "no reference directory given (--ref DIR)");
    if (gc_cli_input_file(path)) return 2;
    if (gc_cli_report_path("verify", html, path)) return 2;
    gc_precision precs[2]; int np = 0;
    if (!strcmp(prec, "both")) { precs[np++] = GC_PREC_FP32; precs[np++] = GC_PREC_FP16; }
    else {
        int p = gc_precision_parse(prec);
        if (p < 0) return gc_cli_usage_error("verify", "unknown precision '%s' (fp32, fp16, fp16-acc, both)", prec);
        precs[np++] = (gc_precision)p;
    }
    static gc_npy ins[MAXIO], refs[MAXIO];
    int n_in = 0, n_ref = 0, rc = 0;
    if (load_set(ref, "input", ins, &n_in) || load_set(ref, "output", refs, &n_ref)) rc = 2;
    else if (!n_ref) { gc_cli_err("%s: no output_0.npy (want input_<k>.npy and output_<k>.npy)", ref); rc = 2; }
    char err[512];
    gc_model *m = rc ? NULL : gc_model_read_file_lazy(path, err, sizeof err);
    if (!rc && !m) { gc_cli_err("%s: %s", path, err); rc = 2; }
    if (!rc) {
        gc_str o = {0};
        bool first = true;
        if (json) { gc_str_puts(&o, "{\"schema\":1,\"model\":"); gc_str_json(&o, path);
                    gc_str_puts(&o, ",\"reference\":"); gc_str_json(&o, ref);
                    gc_str_printf(&o, ",\"gpu_runtime\":\"%s\",\"results\":[", gc_f16_runtime_name(c.grt)); }
        for (int i = 0; i < np && rc != 2; i++) {
            int r = run_one(m, path, precs[i], ins, n_in, refs, n_ref, &c, json, &o, &first, html ? &hr : NULL);
            if (r > rc) rc = r;
        }
        if (json) gc_str_printf(&o, "],\"pass\":%s}\n", rc == 0 ? "true" : "false");
        else if (rc != 2) gc_str_printf(&o, "%s: %s against %s\n", path, rc == 0 ? "PASS" : "FAIL", ref);
        if (rc != 2 && o.s && quiet && !json) {      /* only the verdict: the last line */
            size_t k = o.n > 0 ? o.n - 1 : 0;
            while (k > 0 && o.s[k - 1] != '\n') k--;
            gc_cli_write_text(stdout, o.s + k, o.n - k);
        } else if (rc != 2 && o.s) { if (json) fwrite(o.s, 1, o.n, stdout); else gc_cli_write_text(stdout, o.s, o.n); }
        if (html && rc != 2 && write_html(html, path, ref, m, precs, np, ins, n_in, &c, rc, &hr, o.s)) rc = 2;
        gc_str_free(&o);
    }
    for (int k = 0; k < n_in; k++) gc_npy_free(&ins[k]);
    for (int k = 0; k < n_ref; k++) gc_npy_free(&refs[k]);
    gc_model_free(m);
    free(hr.cells); free(hr.bad); gc_arena_free(&hr.a);
    return rc;
}
