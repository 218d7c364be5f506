/* litert.c — `gpuclean litert MODEL ...`: run a model on the real LiteRT runtime (LiteRT.js
 * and/or the native libLiteRt.so), CPU and GPU accelerators, and print one verdict.
 * Argument parsing and wiring only; the work is in src/runtime/litert.c. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/common.h"
#include "model/model.h"
#include "runtime/litert.h"
#include "verify/npy.h"
#include "check/check.h"
#include "report_out.h"

static const char *HELP =
"usage: gpuclean litert MODEL [options]\n"
"\n"
"Compile MODEL.tflite with the real LiteRT runtime for the CPU accelerator and, where a\n"
"Vulkan GPU exists, the GPU accelerator; run every signature; compare GPU outputs with\n"
"CPU outputs; print the delegate's residency line and one verdict:\n"
"  GPU-clean                          every node on the GPU, outputs within tolerance\n"
"  CPU fallback: N/M nodes on GPU     the delegate left nodes to the CPU\n"
"  GPU compile failed: <op>: <reason>\n"
"  GPU miscompute: ...                every node on the GPU, outputs out of tolerance\n"
"  GPU output bit-identical to CPU: the GPU did not run\n"
"  no GPU adapter: CPU only           no WebGPU/Vulkan GPU here; the CPU still runs\n"
"  runtime limit (...): ...           the runtime itself cannot run this model (e.g.\n"
"                                     LiteRT.js cannot feed int8/int16/bool/int64 I/O)\n"
"  CPU failed: <reason>               LiteRT refuses the model even on the CPU\n"
"\n"
"options:\n"
"  --accelerator cpu|gpu|both   (default both)\n"
"  --precision fp32|fp16|both   GPU precision (default fp32; the verdict uses fp32 when run)\n"
"  --runtime js|native|both     LiteRT.js under Node, native libLiteRt.so, or both\n"
"                               (default both: native is fed LiteRT.js's inputs and the\n"
"                               two CPU results must agree)\n"
"  --pattern sin                inputs 0.5+0.5*sin(0.37*i+k) / (i*7+k)%3 / (i*37+k)%256\n"
"                               (float / int32 / uint8; the default)\n"
"  --random SEED                deterministic random inputs (normal floats, small ints)\n"
"  --input NAME_OR_INDEX=FILE.npy   feed this input from a file (repeatable)\n"
"  --out DIR                    keep everything there: DIR/js, DIR/native (result.json,\n"
"                               <mode>/output_<k>.npy, inputs/); default: a temporary\n"
"                               folder, removed afterwards\n"
"  --json                       print one JSON document (schema 1) instead of text\n"
"  --quiet                      print only the residency line(s) and the verdict\n"
"  --timeout SECONDS            per compile+run mode (default 120)\n"
"  --runs N                     timed runs after the first (default 3)\n"
"  --threads N                  native CPU: XNNPACK threads (default: the runtime's own;\n"
"                               LiteRT.js runs its single-threaded build either way)\n"
"  --no-gpu-ok                  exit 0 for \"no GPU adapter: CPU only\" when the CPU ran clean\n"
"  --html OUT.html              also write a self-contained report: runtime, version,\n"
"                               device, residency, per-output GPU-vs-CPU numbers and the\n"
"                               graph coloured by the checker's verdict (docs/reports.md);\n"
"                               stdout and the exit code stay the same\n"
"\n"
"tolerance (GPU vs CPU): fp32 |diff| <= 1e-4 + 1e-3*max|cpu| and corr >= 0.9999;\n"
"fp16 |diff| <= 1e-3 + 2e-2*max|cpu| and corr >= 0.999; native vs LiteRT.js CPU:\n"
"1e-4 + 1e-3*max|ref|, corr >= 0.99999 (integer outputs: at least 1 step).\n"
"\n"
"exit status:\n"
"  0  GPU-clean and within tolerance (with --accelerator cpu: the CPU ran clean and the\n"
"     runtimes agree)\n"
"  1  findings: anything else, including \"no GPU adapter: CPU only\". On a machine without\n"
"     a GPU (CI) the command still runs the CPU, reports the GPU as unavailable and exits\n"
"     1, because GPU-cleanness was not shown; pass --no-gpu-ok (or --accelerator cpu) to\n"
"     make a clean CPU-only run exit 0.\n"
"  2  bad usage or bad input (not a .tflite file, unreadable .npy), or no LiteRT runtime\n"
"     installed (run make test / tools/setup.sh)\n";

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

static uint64_t shape_numel(int rank, const int32_t *shape) {
    uint64_t n = 1;
    for (int d = 0; d < rank; d++) n *= (uint64_t)shape[d];
    return n;
}

/* One --input against one entry's input list (names from the signature, or the
 * subgraph's tensor names; or the index): 0 no match, 1 fits, 2 wrong size (message). */
static int input_fits(const gc_model *m, int32_t sg, int n, const gc_tensor_map *map, const int32_t *idx,
                      const char *entry, const gc_lrt_input *in, uint64_t have) {
    const gc_subgraph *g = &m->subgraphs[sg];
    for (int k = 0; k < n; k++) {
        int32_t t = map ? (int32_t)map[k].tensor : idx[k];
        if (t < 0 || t >= g->n_tensors) continue;
        const char *name = map ? map[k].name : g->tensors[t].name;
        char num[16]; snprintf(num, sizeof num, "%d", k);
        if (strcmp(in->key, name) && strcmp(in->key, num)) continue;
        const gc_tensor *x = &g->tensors[t];
        bool dyn = false;
        for (int d = 0; d < x->n_shape_signature; d++) dyn |= x->shape_signature[d] < 0;
        uint64_t need = shape_numel(x->rank, x->shape);
        if (!dyn && need != have) {
            gc_cli_err("gpuclean litert: %s: %llu elements, input %d ('%s') of %s needs %llu", in->file,
                       (unsigned long long)have, k, name, entry, (unsigned long long)need);
            return 2;
        }
        return 1;
    }
    return 0;
}

/* Every --input must name an input of some entry and have its element count (a
 * wrong-shape file is bad input, exit 2, whichever runtime would have noticed). */
static int check_inputs(const char *path, const gc_lrt_input *ins, int n_ins) {
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) return gc_cli_usage_error("litert", "%s: %s", path, err);
    int rc = 0;
    for (int i = 0; i < n_ins && !rc; i++) {
        gc_npy a;
        if (gc_npy_read(ins[i].file, &a, err, sizeof err) != GC_OK) { rc = gc_cli_usage_error("litert", "%s", err); break; }
        uint64_t have = gc_npy_count(&a);
        gc_npy_free(&a);
        int found = 0;
        for (int s = 0; s < m->n_signatures && found != 2; s++) {
            const gc_signature *sig = &m->signatures[s];
            if (sig->subgraph >= (uint32_t)m->n_subgraphs) continue;
            char entry[160]; snprintf(entry, sizeof entry, "signature '%s'", sig->key);
            int r = input_fits(m, (int32_t)sig->subgraph, sig->n_inputs, sig->inputs, NULL, entry, &ins[i], have);
            if (r > found) found = r;
        }
        if (!m->n_signatures && m->n_subgraphs > 0)
            found = input_fits(m, 0, m->subgraphs[0].n_inputs, NULL, m->subgraphs[0].inputs, "subgraph 0", &ins[i], have);
        if (found == 2) rc = 2;
        else if (!found) rc = gc_cli_usage_error("litert", "--input %s: the model has no input named or numbered '%s'",
                                                 ins[i].key, ins[i].key);
    }
    gc_model_free(m);
    return rc;
}

static int check_model(const char *path) {
    if (gc_cli_input_file(path)) return 2;
    FILE *f = fopen(path, "rb");
    if (!f) return gc_cli_usage_error("litert", "%s: cannot open (%s)", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) { fclose(f); return gc_cli_usage_error("litert", "%s: not a regular file", path); }
    unsigned char h[8];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < 8 || memcmp(h + 4, "TFL3", 4)) return gc_cli_usage_error("litert", "%s: not a .tflite model (no TFL3 file identifier)", path);
    /* a malformed model is bad input (exit 2), not a runtime finding: verify it with our
     * reader before handing it to a runtime */
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) return gc_cli_usage_error("litert", "%s: %s", path, err);
    gc_model_free(m);
    return 0;
}

/* --html: the header (runtimes, versions, device, residency), GPU-vs-CPU numbers per
 * output, the graph coloured by the static checker's verdict */
static int write_html(const char *out, const gc_lrt_report *rep, const char *text) {
    char err[512];
    gc_model *m = gc_model_read_file(rep->model, err, sizeof err);
    if (!m) { gc_cli_err("%s: %s", rep->model, err); return 2; }
    gc_check_result *cr = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    if (!cr) { gc_cli_err("%s: %s", rep->model, err); gc_model_free(m); return 2; }
    gc_arena a = {0};
    gc_html_fact facts[16];
    int nf = 0;
    static const char *const RT[3] = { "", "js", "native" };
    for (int rt = 1; rt <= 2; rt++) {
        char k[64], v[1024];
        if (rep->have[rt]) {
            const gc_lrt_result *r = &rep->res[rt];
            snprintf(k, sizeof k, "runtime (%s)", RT[rt]);
            facts[nf++] = (gc_html_fact){ gc_arena_strdup(&a, k), r->versions_text };
            if (r->gpu_probed) {
                snprintf(k, sizeof k, "device (%s)", RT[rt]);
                snprintf(v, sizeof v, "%s%s", r->gpu_available ? "" : "no GPU: ",
                         r->gpu_available ? (r->gpu_adapter ? r->gpu_adapter : "GPU adapter")
                                          : (r->gpu_reason ? r->gpu_reason : "no adapter"));
                facts[nf++] = (gc_html_fact){ gc_arena_strdup(&a, k), gc_arena_strdup(&a, v) };
            }
            for (int i = 0; i < r->n_modes && nf < 14; i++) {
                const gc_lrt_mode *md = &r->modes[i];
                if (!md->gpu || !md->has_residency) continue;
                snprintf(k, sizeof k, "residency (%s %s)", RT[rt], md->mode);
                facts[nf++] = (gc_html_fact){ gc_arena_strdup(&a, k), md->residency_line ? md->residency_line : "" };
            }
        } else if (rep->opts.runtimes & rt) {
            snprintf(k, sizeof k, "runtime (%s)", RT[rt]);
            snprintf(v, sizeof v, "not run: %s", rep->unavailable[rt]);
            facts[nf++] = (gc_html_fact){ gc_arena_strdup(&a, k), gc_arena_strdup(&a, v) };
        }
    }
    facts[nf++] = (gc_html_fact){ "runtime", "the real LiteRT runtime (the graph's colours are gpuclean's static check)" };
    /* one row per compared output */
    int rows = 0;
    for (int i = 0; i < rep->n_cmps; i++) rows += rep->cmps[i].n ? rep->cmps[i].n : 1;
    enum { NC = 7 };
    const char **cells = gc_arena_alloc(&a, sizeof *cells * (size_t)(rows * NC + 1));
    bool *bad = gc_arena_alloc(&a, sizeof *bad * (size_t)(rows + 1));
    int nr = 0;
    for (int i = 0; cells && bad && i < rep->n_cmps; i++) {
        const gc_lrt_cmpset *c = &rep->cmps[i];
        char what[200];
        snprintf(what, sizeof what, "%s %s vs %s %s", c->runtime, c->mode, c->ref_runtime, c->ref_mode);
        for (int k = 0; k < (c->n ? c->n : 1); k++) {
            const gc_lrt_diff *d = c->n ? &c->d[k] : NULL;
            char b[5][200];
            snprintf(b[0], sizeof b[0], "%s", d ? (d->sig_index ? d->sig : "") : "");
            snprintf(b[1], sizeof b[1], "%s", d ? d->name : "");
            snprintf(b[2], sizeof b[2], "%s", d ? d->dtype : "");
            if (d && !d->problem[0]) snprintf(b[3], sizeof b[3], "%.4g", d->max_abs); else b[3][0] = 0;
            if (d && !d->problem[0] && d->has_corr) snprintf(b[4], sizeof b[4], "%.6f", d->corr);
            else snprintf(b[4], sizeof b[4], "%s", d && !d->problem[0] ? "n/a" : "");
            const char *verdict = !d ? c->problem : d->problem[0] ? d->problem : d->pass ? (d->identical ? "ok (bit-identical)" : "ok") : "FAIL";
            const char *row[NC] = { what, b[0][0] ? b[0] : b[1], b[2], b[3], b[4], verdict, NULL };
            char nbuf[32];
            snprintf(nbuf, sizeof nbuf, "%llu", d ? (unsigned long long)d->n : 0ULL);
            row[6] = nbuf;
            for (int j = 0; j < NC; j++) cells[(size_t)nr * NC + (size_t)j] = gc_arena_strdup(&a, row[j] ? row[j] : "");
            bad[nr++] = !d || d->problem[0] || !d->pass;
        }
    }
    static const char *const cols[NC] = { "comparison", "output", "dtype", "max|diff|", "corr", "verdict", "elements" };
    gc_html_table t = { .caption = "GPU against CPU, per output", .n_cols = NC, .cols = cols, .n_rows = nr,
                        .cells = cells, .bad = bad };
    gc_html_report hr = { .verb = "litert", .model = rep->model, .version = gc_cli_version(), .verdict = rep->verdict.text,
                          .verdict_ok = rep->exit_code == 0, .n_facts = nf, .facts = facts, .n_tables = 1, .tables = &t,
                          .text = text };
    int w = gc_cli_write_report(out, &hr, cr, m);
    gc_arena_free(&a);
    gc_check_free(cr);
    gc_model_free(m);
    return w;
}

int gc_cli_litert(int argc, char **argv) {
    gc_lrt_opts o;
    memset(&o, 0, sizeof o);
    o.accelerators = GC_LRT_CPU | GC_LRT_GPU;
    o.precisions = GC_LRT_FP32;
    o.runtimes = GC_LRT_JS | GC_LRT_NATIVE;
    o.input_kind = GC_LRT_IN_PATTERN;
    o.runs = -1;
    const char *out = NULL, *html = NULL;
    bool json = false, no_gpu_ok = false, quiet = false;
    gc_lrt_input *inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (!inputs) return gc_cli_usage_error("litert", "out of memory");
    int rc = 2;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED() do { if (!v) { rc = gc_cli_usage_error("litert", "%s needs a value", a); goto done; } i++; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto done; }
        else if (!strcmp(a, "--accelerator")) {
            NEED();
            if (!strcmp(v, "cpu")) o.accelerators = GC_LRT_CPU;
            else if (!strcmp(v, "gpu")) o.accelerators = GC_LRT_GPU;
            else if (!strcmp(v, "both")) o.accelerators = GC_LRT_CPU | GC_LRT_GPU;
            else { rc = gc_cli_usage_error("litert", "--accelerator must be cpu, gpu or both"); goto done; }
        } else if (!strcmp(a, "--precision")) {
            NEED();
            if (!strcmp(v, "fp32")) o.precisions = GC_LRT_FP32;
            else if (!strcmp(v, "fp16")) o.precisions = GC_LRT_FP16;
            else if (!strcmp(v, "both")) o.precisions = GC_LRT_FP32 | GC_LRT_FP16;
            else { rc = gc_cli_usage_error("litert", "--precision must be fp32, fp16 or both"); goto done; }
        } else if (!strcmp(a, "--runtime")) {
            NEED();
            if (!strcmp(v, "js")) o.runtimes = GC_LRT_JS;
            else if (!strcmp(v, "native")) o.runtimes = GC_LRT_NATIVE;
            else if (!strcmp(v, "both")) o.runtimes = GC_LRT_JS | GC_LRT_NATIVE;
            else { rc = gc_cli_usage_error("litert", "--runtime must be js, native or both"); goto done; }
        } else if (!strcmp(a, "--pattern")) {
            NEED();
            if (strcmp(v, "sin")) { rc = gc_cli_usage_error("litert", "--pattern knows only 'sin'"); goto done; }
            o.input_kind = GC_LRT_IN_PATTERN;
        } else if (!strcmp(a, "--random")) {
            NEED();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(v, &end, 10);
            if (errno || *end || !*v || *v == '-') { rc = gc_cli_usage_error("litert", "--random needs a non-negative integer seed, not '%s'", v); goto done; }
            o.input_kind = GC_LRT_IN_RANDOM;
            o.seed = s;
        } else if (!strcmp(a, "--input")) {
            NEED();
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) { rc = gc_cli_usage_error("litert", "--input needs NAME_OR_INDEX=FILE.npy, not '%s'", v); goto done; }
            char *key = strndup(v, (size_t)(eq - v));
            if (!key) { rc = gc_cli_usage_error("litert", "out of memory"); goto done; }
            inputs[o.n_inputs].key = key;
            inputs[o.n_inputs].file = eq + 1;
            o.n_inputs++;
            gc_npy probe;
            char err[512];
            if (gc_npy_read(eq + 1, &probe, err, sizeof err) != GC_OK) { rc = gc_cli_usage_error("litert", "%s", err); goto done; }
            gc_npy_free(&probe);
        } else if (!strcmp(a, "--out")) { NEED(); out = v; }
        else if (!strcmp(a, "--html")) { NEED(); html = v; }
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = true;
        else if (!strcmp(a, "--no-gpu-ok")) no_gpu_ok = true;
        else if (!strcmp(a, "--timeout")) {
            NEED();
            char *end;
            o.timeout_s = strtod(v, &end);
            if (*end || !(o.timeout_s > 0) || o.timeout_s > 86400) { rc = gc_cli_usage_error("litert", "--timeout needs seconds in (0, 86400]"); goto done; }
        } else if (!strcmp(a, "--runs")) {
            NEED();
            char *end;
            long r = strtol(v, &end, 10);
            if (*end || r < 0 || r > 1000) { rc = gc_cli_usage_error("litert", "--runs needs an integer 0..1000"); goto done; }
            o.runs = (int)r;
        } else if (!strcmp(a, "--threads")) {
            NEED();
            char *end;
            long t = strtol(v, &end, 10);
            if (*end || !*v || t < 1 || t > 256) { rc = gc_cli_usage_error("litert", "--threads needs an integer 1..256, not '%s'", v); goto done; }
            o.threads = (int)t;
        } else if (a[0] == '-' && a[1]) { rc = gc_cli_usage_error("litert", "unknown option %s (see --help)", a); goto done; }
        else if (!o.model) o.model = a;
        else { rc = gc_cli_usage_error("litert", "unexpected argument '%s'", a); goto done; }
#undef NEED
    }
    if (!o.model) { fputs(HELP, stderr); rc = 2; goto done; }
    if ((rc = gc_cli_report_path("litert", html, o.model))) goto done;
    if ((rc = check_model(o.model))) goto done;
    if ((rc = check_inputs(o.model, inputs, o.n_inputs))) goto done;
    o.inputs = inputs;

    /* --out DIR is built whole beside it and replaces it only when the run finished */
    char tmpdir[4096] = "/tmp/gpuclean-litert-XXXXXX";
    char err[1024];
    static const char *const markers[] = { "js/result.json", "native/result.json", NULL };
    if (out) {
        if (gc_path_inside(o.model, out)) { rc = gc_cli_usage_error("litert", "%s: MODEL lies inside the output directory %s, which is replaced", o.model, out); goto done; }
        for (int i = 0; i < o.n_inputs; i++)
            if (gc_path_inside(inputs[i].file, out)) { rc = gc_cli_usage_error("litert", "%s: the input lies inside the output directory %s, which is replaced", inputs[i].file, out); goto done; }
        if (gc_outdir_begin(out, markers, tmpdir, sizeof tmpdir, err, sizeof err) != GC_OK) { rc = gc_cli_usage_error("litert", "%s", err); goto done; }
    } else if (!mkdtemp(tmpdir)) { rc = gc_cli_usage_error("litert", "mkdtemp: %s", strerror(errno)); goto done; }

    gc_lrt_report rep;
    gc_status s = gc_lrt_check(&o, tmpdir, &rep, err, sizeof err);
    if (s != GC_OK) {
        rc = gc_cli_usage_error("litert", "%s", err);
    } else if (out && gc_outdir_commit(out, tmpdir, err, sizeof err) != GC_OK) {
        rc = gc_cli_usage_error("litert", "%s", err);
        gc_lrt_report_free(&rep);
    } else {
        if (out) {                                /* the report names the final folder */
            tmpdir[0] = 0;
            snprintf(rep.outdir, sizeof rep.outdir, "%s", out);
            for (int rt = 1; rt <= 2; rt++) {
                if (!rep.have[rt]) continue;
                char d[4200];
                snprintf(d, sizeof d, "%s/%s", out, rt == GC_LRT_JS ? "js" : "native");
                rep.res[rt].dir = gc_arena_strdup(&rep.res[rt].arena, d);
            }
        }
        rc = gc_lrt_report_exit(&rep, no_gpu_ok);
        gc_str text = {0};
        if (json) gc_lrt_report_json(&rep, &text);
        else {
            gc_lrt_report_text(&rep, &text);
            if (out) gc_str_printf(&text, "outputs: %s\n", out);
        }
        static const char *const keep[] = { "residency (", "verdict: ", NULL };
        if (text.s && quiet && !json) gc_cli_write_lines(stdout, text.s, text.n, keep);
        else if (text.s) { if (json) fputs(text.s, stdout); else gc_cli_write_text(stdout, text.s, text.n); }
        if (html && write_html(html, &rep, text.s)) rc = 2;
        gc_str_free(&text);
        gc_lrt_report_free(&rep);
    }
    if (tmpdir[0]) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
done:
    for (int i = 0; i < o.n_inputs; i++) free((char *)inputs[i].key);
    free(inputs);
    return rc;
}
