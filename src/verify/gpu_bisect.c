/* gpu_bisect.c — the driver of gpu_bisect.h: the points of the entry subgraph, prefix
 * probes (a truncated copy of the model written under the work folder, removed once
 * judged), one LiteRT runtime's GPU and CPU runs through gc_lrt_check, a verdict per
 * probe, the search, and what is known about the first divergent op: its inputs'
 * measurements and the checker's JSON object for it. */
#include "verify/gpu_bisect.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check.h"
#include "interp/interp.h"
#include "model/model.h"
#include "runtime/litert_json.h"
#include "verify/npy.h"

const char *gc_gb_kind_name(gc_gb_kind k) {
    switch (k) {
    case GC_GB_R_CLEAN: return "clean";
    case GC_GB_R_FOUND: return "divergent_op";
    case GC_GB_R_NOT_ISOLATED: return "not_isolated";
    case GC_GB_R_NOT_ON_GPU: return "not_on_gpu";
    }
    return "?";
}

const char *gc_gb_in_kind_name(gc_gb_in_kind k) {
    switch (k) {
    case GC_GB_IN_PROBED: return "probed";
    case GC_GB_IN_GRAPH_INPUT: return "graph_input";
    case GC_GB_IN_CONSTANT: return "constant";
    case GC_GB_IN_NOT_PROBED: return "not_probed";
    case GC_GB_IN_NONE: return "none";
    }
    return "?";
}

int gc_gb_exit_code(const gc_gb_result *r) {
    return r->kind == GC_GB_R_FOUND || r->kind == GC_GB_R_NOT_ISOLATED ? 1 : 0;
}

typedef struct {
    const gc_gb_opts *o;
    gc_gb_result *r;
    const gc_model *m;            /* the original, for the structure and the full probe */
    int32_t sg;
    int32_t n_entry_out;          /* the entry's outputs: signature 0's, else subgraph's */
    const int32_t *entry_out_t;   /* their tensors */
    const char **entry_out_name;  /* their names as the runtime reports them */
    int32_t *pt_of_tensor;        /* tensor -> point, -1 */
    int *pt_probe;                /* point -> index into probes[] of its measurement, -1 */
    int *pt_out;                  /* point -> output index of that probe (full model), -1 */
    int cap_probes;
    bool no_gpu;                  /* a probe found no GPU adapter */
    gc_status fail;               /* a hard failure (err says what) */
    char err[1024];
} bctx;

/* ---- one comparison ----------------------------------------------------------------- */

static bool dtype_is_float(const char *numpy_name) {
    return !strcmp(numpy_name, "float32") || !strcmp(numpy_name, "float16") || !strcmp(numpy_name, "float64");
}

/* d (GPU against CPU, as gc_lrt_compare measured it) judged with tol. */
static void judge(const gc_lrt_diff *d, gc_lrt_tol tol, gc_gb_cmp *c) {
    memset(c, 0, sizeof *c);
    c->tensor = -1;
    snprintf(c->name, sizeof c->name, "%s", d->name);
    if (d->problem[0]) { snprintf(c->problem, sizeof c->problem, "%s", d->problem); return; }
    c->have = true;
    c->max_abs = d->max_abs;
    c->ref_max = d->ref_max_abs;
    c->rel = d->max_abs / fmax(d->ref_max_abs, 1e-30);
    c->corr = d->corr; c->has_corr = d->has_corr;
    c->nan_mismatch = d->nan_mismatch;
    c->n = d->n;
    c->identical = d->identical;
    double atol = !dtype_is_float(d->dtype) && tol.atol < 1 ? 1 : tol.atol;
    c->limit = atol + tol.rtol * d->ref_max_abs;
    bool corr_ok = !d->has_corr || d->corr >= tol.min_corr || d->max_abs <= atol;
    c->pass = d->nan_mismatch == 0 && d->max_abs <= c->limit && corr_ok;
}

/* The worst of a probe's comparisons: a failing one first, then the largest rel. */
static bool worse(const gc_gb_cmp *a, const gc_gb_cmp *b) {
    if (!b->have) return a->have || (a->problem[0] && !b->problem[0]);
    if (!a->have) return false;
    if (a->pass != b->pass) return !a->pass;
    if ((a->nan_mismatch > 0) != (b->nan_mismatch > 0)) return a->nan_mismatch > 0;
    return a->rel > b->rel;
}

/* ---- the test seam: the reference interpreter as the "GPU" ------------------------- */

/* Run pm on the interpreter with the inputs the runtime's CPU got (rdir/inputs), write
 * its outputs to odir/output_<k>.npy and compare each with the CPU's. *out: n_out
 * diffs (malloc'd). false with why on failure. */
static bool interp_side(const gc_gb_opts *o, const gc_model *pm, const gc_lrt_result *res, const gc_lrt_mode *cpu,
                        const char *odir, gc_lrt_tol tol, gc_lrt_diff **out, int *n_out, char *why, size_t whylen) {
    *out = NULL; *n_out = 0;
    if (!cpu->n_sigs) { gc_errf(why, whylen, "the CPU run has no signature"); return false; }
    const gc_lrt_sig *s0 = &cpu->sigs[0];
    gc_interp_opts io;
    memset(&io, 0, sizeof io);
    io.precision = o->precision == GC_LRT_FP16 ? GC_PREC_FP16 : GC_PREC_FP32;
    io.gpu_runtime = o->runtime == GC_LRT_JS ? GC_GPU_JS : GC_GPU_NATIVE;  /* fp16: that runtime's model */
    io.signature = GC_SIG_AUTO;
    char e[512];
    gc_interp *it = gc_interp_new(pm, &io, e, sizeof e);
    if (!it) { gc_errf(why, whylen, "interpreter: %s", e); return false; }
    int nin = gc_interp_n_inputs(it), nout = gc_interp_n_outputs(it);
    gc_npy *ins = calloc((size_t)nin + 1, sizeof *ins);
    bool ok = ins != NULL;
    if (!ok) gc_errf(why, whylen, "out of memory");
    for (int k = 0; ok && k < nin; k++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/inputs/s0_input_%d.npy", res->dir, k);
        if (gc_npy_read(p, &ins[k], e, sizeof e) != GC_OK) { gc_errf(why, whylen, "%s", e); ok = false; break; }
        int32_t dims[GC_MAX_RANK];
        int rank = ins[k].rank;
        if (rank > GC_MAX_RANK) { gc_errf(why, whylen, "%s: rank %d", p, rank); ok = false; break; }
        for (int d = 0; d < rank; d++) dims[d] = (int32_t)ins[k].shape[d];
        gc_interp_set_input_shape(it, k, rank, dims);     /* static dims: checked equal */
    }
    if (ok && gc_interp_prepare(it) != GC_OK) { gc_errf(why, whylen, "interpreter: %s", gc_interp_errmsg(it)); ok = false; }
    for (int k = 0; ok && k < nin; k++) {
        gc_tview v = gc_interp_input(it, k);
        if (v.dtype != ins[k].dtype || v.nbytes != ins[k].nbytes) {
            gc_errf(why, whylen, "input %d: the runtime fed %s x %llu bytes, the interpreter wants %s x %zu", k,
                    gc_type_name(ins[k].dtype), (unsigned long long)ins[k].nbytes, gc_type_name(v.dtype), v.nbytes);
            ok = false; break;
        }
        memcpy(v.data, ins[k].data, v.nbytes);
    }
    if (ok && gc_interp_invoke(it) != GC_OK) { gc_errf(why, whylen, "interpreter: %s", gc_interp_errmsg(it)); ok = false; }
    if (ok && nout != s0->n_outputs) { gc_errf(why, whylen, "%d outputs on the CPU, %d in the interpreter", s0->n_outputs, nout); ok = false; }
    gc_lrt_diff *d = ok ? calloc((size_t)nout + 1, sizeof *d) : NULL;
    if (ok && !d) { gc_errf(why, whylen, "out of memory"); ok = false; }
    if (ok && mkdir(odir, 0755) && errno != EEXIST) { gc_errf(why, whylen, "%s: %s", odir, strerror(errno)); ok = false; }
    for (int k = 0; ok && k < nout; k++) {
        gc_tview v = gc_interp_output(it, k);
        int64_t shape[GC_MAX_RANK];
        for (int q = 0; q < v.rank; q++) shape[q] = v.shape[q];
        char fi[4400], fc[4400];
        snprintf(fi, sizeof fi, "%s/output_%d.npy", odir, k);
        if (gc_npy_write(fi, v.dtype, v.rank, shape, v.data, e, sizeof e) != GC_OK) { gc_errf(why, whylen, "%s", e); ok = false; break; }
        gc_lrt_diff *x = &d[k];
        x->index = k;
        snprintf(x->name, sizeof x->name, "%s", s0->outputs[k].name);
        snprintf(x->dtype, sizeof x->dtype, "%s", s0->outputs[k].dtype);
        if (!s0->outputs[k].file) { snprintf(x->problem, sizeof x->problem, "no CPU output file"); continue; }
        snprintf(fc, sizeof fc, "%s/%s", res->dir, s0->outputs[k].file);
        gc_lrt_compare_files(fc, fi, tol, x);
    }
    for (int k = 0; ins && k < nin; k++) gc_npy_free(&ins[k]);
    free(ins);
    gc_interp_free(it);
    if (!ok) { free(d); return false; }
    *out = d; *n_out = nout;
    return true;
}

/* ---- one probe ------------------------------------------------------------------------ */

static gc_gb_probe *new_probe(bctx *c, gc_gb_target target, int32_t point) {
    gc_gb_result *r = c->r;
    if (r->n_probes == c->cap_probes) {
        int cap = c->cap_probes ? 2 * c->cap_probes : 16;
        gc_gb_probe *p = realloc(r->probes, (size_t)cap * sizeof *p);
        if (!p) return NULL;
        r->probes = p; c->cap_probes = cap;
    }
    gc_gb_probe *p = &r->probes[r->n_probes++];
    memset(p, 0, sizeof *p);
    p->index = r->n_probes;
    p->target = target;
    p->point = point;
    p->gpu_ops = p->cpu_ops = -1;
    p->cmp.tensor = -1;
    return p;
}

/* Copy a C string into a fixed buffer, truncating (always NUL-terminated). */
static void sncopy(char *dst, size_t n, const char *src) {
    size_t k = strnlen(src, n - 1);
    memcpy(dst, src, k);
    dst[k] = 0;
}

static void set_status(gc_gb_probe *p, gc_gb_verdict v, const char *status, const char *note) {
    p->verdict = v;
    sncopy(p->status, sizeof p->status, status);
    if (note && note[0]) sncopy(p->note, sizeof p->note, note);
}

/* Tensor of the full model's output called `name` (index k as a fallback). */
static int32_t entry_tensor(const bctx *c, const char *name, int k) {
    for (int32_t i = 0; i < c->n_entry_out; i++) if (!strcmp(c->entry_out_name[i], name)) return c->entry_out_t[i];
    return k >= 0 && k < c->n_entry_out ? c->entry_out_t[k] : -1;
}

/* Judge the first signature's comparisons d[0..nd) into p: p->outs (every output), p->cmp
 * (the worst), the verdict and status; note is kept as the probe's note. */
static void judge_diffs(const gc_lrt_diff *d, int nd, gc_lrt_tol tol, const char *note, gc_gb_probe *p) {
    int n0 = 0;
    for (int k = 0; k < nd; k++) if (d[k].sig_index == 0) n0++;
    if (!n0) { set_status(p, GC_GB_SKIP, "not compared", note && note[0] ? note : "no output to compare"); return; }
    gc_gb_cmp *outs = calloc((size_t)n0, sizeof *outs);
    if (!outs) { set_status(p, GC_GB_UNKNOWN, "error", "out of memory"); return; }
    int j = 0;
    bool any_bad = false, count_differs = false, compared = false;
    for (int k = 0; k < nd; k++) {
        if (d[k].sig_index != 0) continue;
        gc_gb_cmp *x = &outs[j++];
        judge(&d[k], tol, x);
        if (x->have) { compared = true; if (!x->pass) any_bad = true; }
        else if (strstr(x->problem, "element counts differ")) { count_differs = true; any_bad = true; }
        if (j == 1 || worse(x, &p->cmp)) p->cmp = *x;
    }
    p->outs = outs; p->n_outs = j;
    if (any_bad) set_status(p, GC_GB_DIVERGES, "diverges", note);
    else if (compared) set_status(p, GC_GB_OK, "ok", note);
    else set_status(p, GC_GB_SKIP, "not compared", p->cmp.problem);
    if (count_differs && !p->note[0]) sncopy(p->note, sizeof p->note, p->cmp.problem);
    if (p->verdict == GC_GB_OK && p->cmp.identical && !p->note[0]) sncopy(p->note, sizeof p->note, "bit-identical to the CPU");
}

void gc_gb_judge_report(const gc_lrt_report *rep, int runtime, int precision, gc_lrt_tol tol, gc_gb_probe *p, bool *no_gpu) {
    *no_gpu = false;
    const gc_lrt_result *res = &rep->res[runtime];
    const char *gmode = precision == GC_LRT_FP16 ? "gpu-fp16" : "gpu-fp32";
    const gc_lrt_mode *g = gc_lrt_find_mode(res, gmode);
    if (g && g->has_residency) { p->gpu_ops = g->gpu_ops; p->cpu_ops = g->cpu_ops; }
    if (!rep->per_runtime_set[runtime]) { set_status(p, GC_GB_SKIP, "not compared", "the runtime did not run"); return; }
    const gc_lrt_decision *dec = &rep->per_runtime[runtime];
    char note[320] = "";
    switch (dec->kind) {
    case GC_LRT_V_NO_GPU:
        *no_gpu = true;
        set_status(p, GC_GB_SKIP, "no GPU adapter", dec->text);
        return;
    case GC_LRT_V_CPU_FAILED: case GC_LRT_V_RUNTIME_LIMIT: case GC_LRT_V_CPU_ONLY:
        set_status(p, GC_GB_SKIP, "CPU failed", dec->text);
        return;
    case GC_LRT_V_COMPILE_FAILED:                   /* also a GPU run that crashed or hung */
        set_status(p, GC_GB_SKIP, strstr(dec->text, "GPU run failed") ? "GPU run failed" : "GPU compile failed", dec->text);
        return;
    case GC_LRT_V_FALLBACK:
        if (!(g && !strcmp(g->status, "ok") && g->has_residency && g->gpu_ops > 0 && !g->delegate_init_failed && !g->fallback_all)) {
            set_status(p, GC_GB_SKIP, "ran on CPU", dec->text);
            return;
        }
        snprintf(note, sizeof note, "partial residency: %d/%d nodes on the GPU", g->gpu_ops, g->gpu_ops + g->cpu_ops);
        break;
    default:                                        /* clean, miscompute, bit-identical */
        break;
    }
    for (int i = 0; i < rep->n_cmps; i++) {
        const gc_lrt_cmpset *cs = &rep->cmps[i];
        if (strcmp(cs->mode, gmode) || strcmp(cs->ref_mode, "cpu") || strcmp(cs->runtime, cs->ref_runtime)) continue;
        if (cs->problem[0] && !note[0]) sncopy(note, sizeof note, cs->problem);
        judge_diffs(cs->d, cs->n, tol, note, p);
        return;
    }
    set_status(p, GC_GB_SKIP, "not compared", note[0] ? note : "no GPU-vs-CPU comparison");
}

/* Compile and run `path` (in memory: pm) GPU and CPU, judge, fill p. Work in dir. */
static void run_probe(bctx *c, const char *path, const gc_model *pm, const char *dir, gc_gb_probe *p) {
    const gc_gb_opts *o = c->o;
    gc_lrt_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.model = path;
    lo.accelerators = o->side == GC_GB_SIDE_GPU ? (GC_LRT_CPU | GC_LRT_GPU) : GC_LRT_CPU;
    lo.precisions = o->precision;
    lo.runtimes = o->runtime;
    lo.input_kind = o->input_kind;
    lo.seed = o->seed;
    lo.inputs = o->inputs; lo.n_inputs = o->n_inputs;
    lo.timeout_s = o->timeout_s;
    lo.runs = 0;
    char out[4200], e[1024];
    snprintf(out, sizeof out, "%s/run", dir);
    double t0 = gc_now();
    gc_lrt_report rep;
    gc_status s = gc_lrt_check(&lo, out, &rep, e, sizeof e);
    if (s == GC_ERR_USAGE || s == GC_ERR_UNSUPPORTED) {          /* bad input, no runtime */
        c->fail = s;
        sncopy(c->err, sizeof c->err, e);
        set_status(p, GC_GB_UNKNOWN, "error", e);
        return;
    }
    if (s != GC_OK) { set_status(p, GC_GB_SKIP, "not compared", e); p->seconds = gc_now() - t0; return; }
    const gc_lrt_result *res = &rep.res[o->runtime];
    if (!c->r->runtime_version && res->version) c->r->runtime_version = gc_arena_strdup(&c->r->arena, res->version);
    if (o->side == GC_GB_SIDE_GPU) {
        bool no_gpu = false;
        gc_gb_judge_report(&rep, o->runtime, o->precision, c->r->tol, p, &no_gpu);
        if (no_gpu) c->no_gpu = true;
    } else {
        const gc_lrt_mode *cpu = gc_lrt_find_mode(res, "cpu");
        gc_lrt_diff *own = NULL;
        int nd = 0;
        char odir[4300], why[512];
        snprintf(odir, sizeof odir, "%s/interp", dir);
        if (!cpu || strcmp(cpu->status, "ok")) set_status(p, GC_GB_SKIP, "CPU failed", rep.per_runtime[o->runtime].text);
        else if (interp_side(o, pm, res, cpu, odir, c->r->tol, &own, &nd, why, sizeof why)) judge_diffs(own, nd, c->r->tol, "", p);
        else set_status(p, GC_GB_SKIP, "not compared", why);
        free(own);
    }
    if (p->verdict == GC_GB_UNKNOWN && !strcmp(p->status, "error")) { c->fail = GC_ERR_NOMEM; sncopy(c->err, sizeof c->err, "out of memory"); }
    /* which tensor each comparison is of */
    for (int k = 0; k < p->n_outs; k++)
        p->outs[k].tensor = p->target == GC_GB_T_FULL ? entry_tensor(c, p->outs[k].name, k) : c->r->points[p->point].tensor;
    p->cmp.tensor = -1;
    for (int k = 0; k < p->n_outs; k++) if (!strcmp(p->outs[k].name, p->cmp.name)) { p->cmp.tensor = p->outs[k].tensor; break; }
    gc_lrt_report_free(&rep);
    p->seconds = gc_now() - t0;
}

/* The prefix ending at the point's tensor, written to path; the model stays in memory
 * for the interpreter seam. NULL with err on failure. */
static gc_model *build_prefix(const bctx *c, int32_t point, const char *path, char *err, size_t errlen) {
    gc_model *pm = gc_model_read_file(c->o->model, err, errlen);
    if (!pm) return NULL;
    int32_t t = c->r->points[point].tensor;
    char e[512];
    if (gc_model_truncate_at(pm, c->sg, 1, &t) != GC_OK) {
        gc_errf(err, errlen, "%s: cannot truncate at tensor %d", c->o->model, t);
        gc_model_free(pm); return NULL;
    }
    const gc_subgraph *g = &pm->subgraphs[c->sg];
    if (g->n_outputs != 1) { gc_errf(err, errlen, "prefix at tensor %d: %d outputs", t, g->n_outputs); gc_model_free(pm); return NULL; }
    /* the probe tensor is the only output and nothing in the prefix reads it (LiteRT#8599) */
    for (int32_t i = 0; i < g->n_ops; i++)
        for (int32_t k = 0; k < g->ops[i].n_inputs; k++)
            if (g->ops[i].inputs[k] == g->outputs[0]) {
                gc_errf(err, errlen, "prefix at tensor %d: op %d reads the probe output", t, i);
                gc_model_free(pm); return NULL;
            }
    if (gc_model_validate(pm, e, sizeof e) != GC_OK || gc_model_write_file(pm, path, NULL, e, sizeof e) != GC_OK) {
        gc_errf(err, errlen, "prefix at tensor %d: %s", t, e);
        gc_model_free(pm); return NULL;
    }
    return pm;
}

static void point_label(const gc_gb_point *pt, char *buf, size_t n) {
    snprintf(buf, n, "op %d %s -> '%.100s'", pt->op, pt->op_name, pt->tensor_name);
}

static gc_gb_verdict probe_point(int32_t point, void *user) {
    bctx *c = user;
    gc_gb_probe *p = new_probe(c, GC_GB_T_POINT, point);
    if (!p) { c->fail = GC_ERR_NOMEM; snprintf(c->err, sizeof c->err, "out of memory"); return GC_GB_UNKNOWN; }
    int idx = p->index - 1;
    char what[200], dir[4200], path[4300];
    point_label(&c->r->points[point], what, sizeof what);
    if (c->o->progress) c->o->progress(p->index, what, c->o->progress_user);
    snprintf(dir, sizeof dir, "%s/p%03d", c->o->workdir, p->index);
    snprintf(path, sizeof path, "%s/probe.tflite", dir);
    if (mkdir(dir, 0700)) {
        c->fail = GC_ERR_IO; gc_errf(c->err, sizeof c->err, "%s: %s", dir, strerror(errno));
        return GC_GB_UNKNOWN;
    }
    gc_model *pm = build_prefix(c, point, path, c->err, sizeof c->err);
    if (!pm) { c->fail = GC_ERR_RUNTIME; gc_remove_tree(dir); return GC_GB_UNKNOWN; }
    run_probe(c, path, pm, dir, p);
    gc_model_free(pm);
    gc_remove_tree(dir);
    if (c->fail) return GC_GB_UNKNOWN;
    c->pt_probe[point] = idx;
    c->pt_out[point] = -1;
    return c->r->probes[idx].verdict;
}

/* ---- the checker's view of one node ----------------------------------------------- */

static void lj_write(gc_str *s, const gc_lj *v) {
    if (!v) { gc_str_puts(s, "null"); return; }
    switch (v->type) {
    case GC_LJ_NULL: gc_str_puts(s, "null"); break;
    case GC_LJ_BOOL: gc_str_puts(s, v->b ? "true" : "false"); break;
    case GC_LJ_NUM:
        if (!isfinite(v->num)) gc_str_puts(s, "null");
        else if (v->num == floor(v->num) && fabs(v->num) < 1e15) gc_str_printf(s, "%.0f", v->num);
        else gc_str_printf(s, "%.17g", v->num);
        break;
    case GC_LJ_STR: gc_str_json(s, v->str); break;
    case GC_LJ_ARR:
        gc_str_putc(s, '[');
        for (int32_t i = 0; i < v->count; i++) { if (i) gc_str_putc(s, ','); lj_write(s, &v->items[i]); }
        gc_str_putc(s, ']');
        break;
    case GC_LJ_OBJ:
        gc_str_putc(s, '{');
        for (int32_t i = 0; i < v->count; i++) {
            if (i) gc_str_putc(s, ',');
            gc_str_json(s, v->keys[i]);
            gc_str_putc(s, ':');
            lj_write(s, &v->items[i]);
        }
        gc_str_putc(s, '}');
        break;
    }
}

/* `check --json` on the model, and keep what it says about (sg, op): the node object and
 * its risks, whatever fields the checker has. */
static void attach_check(bctx *c, int32_t op) {
    char e[256];
    gc_check_result *cr = gc_check(c->m, GC_TARGET_MLDRIFT, e, sizeof e);
    if (!cr) return;
    gc_str js = {0};
    gc_check_json(cr, c->m, c->o->model, &js);
    gc_check_free(cr);
    gc_arena a = {0};
    const gc_lj *root = js.s ? gc_lj_parse(&a, js.s, js.n, e, sizeof e) : NULL;
    const gc_lj *nodes = gc_lj_get(root, "nodes"), *risks = gc_lj_get(root, "risks");
    for (int32_t i = 0; i < gc_lj_len(nodes); i++) {
        const gc_lj *n = gc_lj_at(nodes, i);
        if (gc_lj_num(gc_lj_get(n, "subgraph"), -1) != c->sg || gc_lj_num(gc_lj_get(n, "index"), -1) != op) continue;
        gc_str s = {0};
        lj_write(&s, n);
        if (s.s && !s.oom) c->r->check_node = gc_arena_strdup(&c->r->arena, s.s);
        gc_str_free(&s);
        break;
    }
    gc_str s = {0};
    gc_str_putc(&s, '[');
    int k = 0;
    for (int32_t i = 0; i < gc_lj_len(risks); i++) {
        const gc_lj *x = gc_lj_at(risks, i);
        if (gc_lj_num(gc_lj_get(x, "subgraph"), -1) != c->sg || gc_lj_num(gc_lj_get(x, "node"), -1) != op) continue;
        if (k++) gc_str_putc(&s, ',');
        lj_write(&s, x);
    }
    gc_str_putc(&s, ']');
    if (root && s.s && !s.oom) c->r->check_risks = gc_arena_strdup(&c->r->arena, s.s);
    gc_str_free(&s);
    gc_arena_free(&a);
    gc_str_free(&js);
}

/* ---- points ---------------------------------------------------------------------------- */

/* A tensor a probe compares: float32, or a quantized activation (int8/uint8/int16 with a
 * scale: a float in disguise, compared in steps, one allowed plus rtol of its range). */
static bool probe_dtype(const gc_tensor *x) {
    if (x->type == GC_T_FLOAT32) return true;
    return (x->type == GC_T_INT8 || x->type == GC_T_UINT8 || x->type == GC_T_INT16) && x->quant && x->quant->n_scale > 0;
}

static bool is_entry_input(const gc_subgraph *g, int32_t t) {
    for (int32_t i = 0; i < g->n_inputs; i++) if (g->inputs[i] == t) return true;
    return false;
}

/* A growable int32 list. */
typedef struct { int32_t *v; int32_t n, cap; bool oom; } ilist;
static void ilist_push(ilist *l, int32_t x) {
    if (l->oom) return;
    if (l->n == l->cap && !gc_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) { l->oom = true; return; }
    l->v[l->n++] = x;
}

/* dep lists (gc_gb_graph): for each point, every point its op reads directly or through
 * ops without a point (integer shape arithmetic, ...). The points a non-point tensor
 * depends on are collected once per tensor, in execution order. false: too large
 * (over `cap` entries) or out of memory; the search then treats every earlier point as
 * a candidate. */
static bool make_deps(const bctx *c, const int32_t *order, int32_t **dep_start, int32_t **dep_pts) {
    const gc_subgraph *g = &c->m->subgraphs[c->sg];
    const gc_gb_result *r = c->r;
    int32_t nt = g->n_tensors, n = r->n_points;
    int64_t cap = 32 * ((int64_t)n + nt) + 4096;
    int32_t *tf_off = malloc(sizeof(int32_t) * ((size_t)nt + 1)), *tf_len = calloc((size_t)nt + 1, sizeof(int32_t));
    int32_t *stamp = calloc((size_t)n + 1, sizeof(int32_t));
    ilist tf = {0}, dep = {0};
    *dep_start = malloc(sizeof(int32_t) * ((size_t)n + 1));
    bool ok = tf_off && tf_len && stamp && *dep_start;
    int32_t st = 0;
#define ADD_TENSOR(L, u, below) do {                                                  \
        int32_t u_ = (u);                                                             \
        if (u_ < 0 || u_ >= nt) break;                                                \
        int32_t p_ = c->pt_of_tensor[u_];                                             \
        if (p_ >= 0) { if (p_ < (below) && stamp[p_] != st) { stamp[p_] = st; ilist_push(L, p_); } } \
        else for (int32_t z_ = 0; z_ < tf_len[u_]; z_++) {                            \
            int32_t q_ = tf.v[tf_off[u_] + z_];                                       \
            if (q_ < (below) && stamp[q_] != st) { stamp[q_] = st; ilist_push(L, q_); } \
        }                                                                             \
    } while (0)
    for (int32_t q = 0; ok && q < g->n_ops; q++) {          /* non-point tensors, in order */
        const gc_op *op = &g->ops[order[q]];
        for (int32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t < 0 || t >= nt || c->pt_of_tensor[t] >= 0 || tf_len[t]) continue;
            st++;
            tf_off[t] = tf.n;
            for (int32_t j = 0; j < op->n_inputs; j++) ADD_TENSOR(&tf, op->inputs[j], n);
            tf_len[t] = tf.n - tf_off[t];
            if (tf.oom || tf.n > cap) ok = false;
        }
    }
    for (int32_t i = 0; ok && i < n; i++) {
        (*dep_start)[i] = dep.n;
        const gc_op *op = &g->ops[r->points[i].op];
        st++;
        for (int32_t j = 0; j < op->n_inputs; j++) ADD_TENSOR(&dep, op->inputs[j], i);
        if (dep.oom || dep.n > cap) ok = false;
    }
#undef ADD_TENSOR
    if (ok) { (*dep_start)[n] = dep.n; *dep_pts = dep.v ? dep.v : malloc(sizeof(int32_t)); ok = *dep_pts != NULL; }
    if (!ok) { free(*dep_start); *dep_start = NULL; free(dep.v); *dep_pts = NULL; }
    free(tf_off); free(tf_len); free(stamp); free(tf.v);
    return ok;
}

/* The float32 (and quantized) tensors ops produce, in execution order, and the other
 * outputs of the entry (a full-model divergence can start there: float->int CAST). */
static gc_status make_points(bctx *c, int32_t **in_start, int32_t **in_pts, int32_t **dep_start, int32_t **dep_pts) {
    const gc_model *m = c->m;
    const gc_subgraph *g = &m->subgraphs[c->sg];
    gc_gb_result *r = c->r;
    int32_t nt = g->n_tensors, no = g->n_ops;
    int32_t *order = malloc(sizeof(int32_t) * (size_t)(no ? no : 1));
    uint8_t *is_out = calloc((size_t)nt + 1, 1), *read = calloc((size_t)nt + 1, 1);
    c->pt_of_tensor = malloc(sizeof(int32_t) * ((size_t)nt + 1));
    r->points = gc_arena_alloc(&r->arena, sizeof *r->points * ((size_t)nt + 1));
    if (!order || !is_out || !read || !c->pt_of_tensor || !r->points) { free(order); free(is_out); free(read); return GC_ERR_NOMEM; }
    gc_status s = gc_sg_topo_order(m, c->sg, order);
    if (s != GC_OK) { free(order); free(is_out); free(read); return s; }
    for (int32_t t = 0; t < nt; t++) c->pt_of_tensor[t] = -1;
    for (int32_t i = 0; i < c->n_entry_out; i++) if (c->entry_out_t[i] >= 0 && c->entry_out_t[i] < nt) is_out[c->entry_out_t[i]] = 1;
    for (int32_t o = 0; o < no; o++)
        for (int32_t k = 0; k < g->ops[o].n_inputs; k++) {
            int32_t t = g->ops[o].inputs[k];
            if (t >= 0 && t < nt) read[t] = 1;
        }
    for (int32_t q = 0; q < no; q++) {
        const gc_op *op = &g->ops[order[q]];
        for (int32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t < 0 || t >= nt || c->pt_of_tensor[t] >= 0) continue;
            const gc_tensor *x = &g->tensors[t];
            if (gc_tensor_is_const(m, x) || is_entry_input(g, t)) continue;
            if (!probe_dtype(x) && !is_out[t]) continue;
            gc_gb_point *p = &r->points[r->n_points];
            p->op = order[q]; p->pos = q;
            p->op_name = gc_arena_strdup(&r->arena, gc_op_name(m, op));
            p->tensor = t;
            p->tensor_name = gc_arena_strdup(&r->arena, x->name);
            p->dtype = gc_type_name(x->type);
            p->rank = x->rank > 8 ? 8 : x->rank;
            for (int d = 0; d < p->rank; d++) p->shape[d] = x->shape[d];
            p->model_output = is_out[t];
            p->consumed = read[t];
            c->pt_of_tensor[t] = r->n_points++;
        }
    }
    /* inputs of each point: the points that produce its op's float inputs */
    int32_t n = r->n_points;
    *in_start = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t total = 0;
    for (int32_t i = 0; i < n; i++) total += g->ops[r->points[i].op].n_inputs;
    *in_pts = malloc(sizeof(int32_t) * ((size_t)total + 1));
    c->pt_probe = malloc(sizeof(int) * ((size_t)n + 1));
    c->pt_out = malloc(sizeof(int) * ((size_t)n + 1));
    if (!*in_start || !*in_pts || !c->pt_probe || !c->pt_out) { free(order); free(is_out); free(read); return GC_ERR_NOMEM; }
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        (*in_start)[i] = k;
        const gc_op *op = &g->ops[r->points[i].op];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t t = op->inputs[j];
            if (t < 0 || t >= nt) continue;
            int32_t p = c->pt_of_tensor[t];
            if (p >= 0 && p < i && probe_dtype(&g->tensors[t])) (*in_pts)[k++] = p;
        }
        c->pt_probe[i] = -1; c->pt_out[i] = -1;
    }
    (*in_start)[n] = k;
    make_deps(c, order, dep_start, dep_pts);
    free(order); free(is_out); free(read);
    return GC_OK;
}

/* The first op's inputs, with what the probes measured. */
static void describe_inputs(bctx *c) {
    gc_gb_result *r = c->r;
    const gc_subgraph *g = &c->m->subgraphs[c->sg];
    const gc_gb_point *f = &r->points[r->first];
    const gc_op *op = &g->ops[f->op];
    r->inputs = gc_arena_alloc(&r->arena, sizeof *r->inputs * ((size_t)op->n_inputs + 1));
    if (!r->inputs) return;
    for (int32_t j = 0; j < op->n_inputs; j++) {
        gc_gb_input *x = &r->inputs[r->n_inputs++];
        int32_t t = op->inputs[j];
        x->slot = j; x->tensor = t; x->point = -1; x->op = -1; x->probe = -1;
        x->cmp.tensor = -1;
        if (t < 0 || t >= g->n_tensors) { x->kind = GC_GB_IN_NONE; x->tensor_name = ""; x->dtype = ""; continue; }
        const gc_tensor *tt = &g->tensors[t];
        x->tensor_name = gc_arena_strdup(&r->arena, tt->name);
        x->dtype = gc_type_name(tt->type);
        int32_t prod = gc_sg_producer(c->m, c->sg, t);
        if (prod >= 0) { x->op = prod; x->op_name = gc_arena_strdup(&r->arena, gc_op_name(c->m, &g->ops[prod])); }
        if (gc_tensor_is_const(c->m, tt)) x->kind = GC_GB_IN_CONSTANT;
        else if (is_entry_input(g, t)) x->kind = GC_GB_IN_GRAPH_INPUT;
        else if (c->pt_of_tensor[t] >= 0 && probe_dtype(tt)) {
            x->kind = GC_GB_IN_PROBED;
            x->point = c->pt_of_tensor[t];
            x->probe = c->pt_probe[x->point];
            if (x->probe >= 0) {
                const gc_gb_probe *p = &r->probes[x->probe];
                x->verdict = p->verdict;
                int oi = c->pt_out[x->point];
                x->cmp = oi >= 0 && oi < p->n_outs ? p->outs[oi] : p->cmp;
            }
        } else x->kind = GC_GB_IN_NOT_PROBED;
    }
}

static const char *const SIDE_INTERP[2] = { "interpreter fp32 (test seam)", "interpreter fp16 (test seam)" };

gc_status gc_gpu_bisect(const gc_gb_opts *o, gc_gb_result *r, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->first = -1; r->first_probe = -1; r->first_cmp.tensor = -1;
    if (!o->model || !o->workdir || (o->runtime != GC_LRT_NATIVE && o->runtime != GC_LRT_JS) ||
        (o->precision != GC_LRT_FP32 && o->precision != GC_LRT_FP16)) {
        gc_errf(err, errlen, "gpu bisect: bad options");
        return GC_ERR_USAGE;
    }
    char e[512];
    gc_model *m = gc_model_read_file(o->model, e, sizeof e);
    if (!m) { gc_errf(err, errlen, "%s: %s", o->model, e); return GC_ERR_USAGE; }
    bctx c;
    memset(&c, 0, sizeof c);
    c.o = o; c.r = r; c.m = m;
    r->model = gc_arena_strdup(&r->arena, o->model);
    r->runtime = o->runtime == GC_LRT_JS ? "js" : "native";
    r->precision = o->precision == GC_LRT_FP16 ? "fp16" : "fp32";
    r->gpu_side = o->side == GC_GB_SIDE_GPU ? "gpu" : SIDE_INTERP[o->precision == GC_LRT_FP16];
    if (o->n_inputs) snprintf(r->inputs_desc, sizeof r->inputs_desc, "files");
    else if (o->input_kind == GC_LRT_IN_RANDOM) snprintf(r->inputs_desc, sizeof r->inputs_desc, "random %llu", (unsigned long long)o->seed);
    else snprintf(r->inputs_desc, sizeof r->inputs_desc, "pattern sin");
    r->tol = gc_lrt_tol_for(o->precision == GC_LRT_FP16 ? "gpu-fp16" : "gpu-fp32");
    if (o->rtol > 0) r->tol.rtol = o->rtol;

    /* the entry: signature 0 (LiteRT runs signatures), else subgraph 0 */
    int32_t *eo_t = NULL; const char **eo_n = NULL;
    int32_t *in_start = NULL, *in_pts = NULL, *dep_start = NULL, *dep_pts = NULL;
    uint8_t *verdict = NULL;
    gc_status st = GC_OK;
    if (m->n_subgraphs < 1) { gc_errf(err, errlen, "%s: no subgraph", o->model); st = GC_ERR_USAGE; goto done; }
    if (m->n_signatures > 0) {
        const gc_signature *sig = &m->signatures[0];
        if (sig->subgraph >= (uint32_t)m->n_subgraphs) { gc_errf(err, errlen, "%s: signature 0 names subgraph %u", o->model, sig->subgraph); st = GC_ERR_USAGE; goto done; }
        c.sg = (int32_t)sig->subgraph;
        c.n_entry_out = sig->n_outputs;
        eo_t = malloc(sizeof *eo_t * ((size_t)sig->n_outputs + 1));
        eo_n = malloc(sizeof *eo_n * ((size_t)sig->n_outputs + 1));
        if (!eo_t || !eo_n) { st = GC_ERR_NOMEM; goto nomem; }
        for (int32_t i = 0; i < sig->n_outputs; i++) { eo_t[i] = (int32_t)sig->outputs[i].tensor; eo_n[i] = sig->outputs[i].name ? sig->outputs[i].name : ""; }
    } else {
        const gc_subgraph *g = &m->subgraphs[0];
        c.sg = 0;
        c.n_entry_out = g->n_outputs;
        eo_t = malloc(sizeof *eo_t * ((size_t)g->n_outputs + 1));
        eo_n = malloc(sizeof *eo_n * ((size_t)g->n_outputs + 1));
        if (!eo_t || !eo_n) { st = GC_ERR_NOMEM; goto nomem; }
        for (int32_t i = 0; i < g->n_outputs; i++) {
            eo_t[i] = g->outputs[i];
            eo_n[i] = g->outputs[i] >= 0 && g->outputs[i] < g->n_tensors ? g->tensors[g->outputs[i]].name : "";
        }
    }
    c.entry_out_t = eo_t; c.entry_out_name = eo_n;
    r->subgraph = c.sg;
    r->n_ops = m->subgraphs[c.sg].n_ops;
    st = make_points(&c, &in_start, &in_pts, &dep_start, &dep_pts);
    if (st == GC_ERR_FORMAT) { gc_errf(err, errlen, "%s: subgraph %d has a cycle", o->model, c.sg); st = GC_ERR_USAGE; goto done; }
    if (st != GC_OK) goto nomem;
    int lg = 0;
    while ((1L << lg) < (long)(r->n_points > 0 ? r->n_points : 1)) lg++;
    r->probe_bound = lg + 2;
    verdict = calloc((size_t)r->n_points + 1, 1);
    if (!verdict) { st = GC_ERR_NOMEM; goto nomem; }

    /* 1. the full model */
    gc_gb_probe *full = new_probe(&c, GC_GB_T_FULL, -1);
    if (!full) { st = GC_ERR_NOMEM; goto nomem; }
    if (o->progress) o->progress(1, "full model", o->progress_user);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/p001", o->workdir);
    if (mkdir(dir, 0700)) { gc_errf(err, errlen, "%s: %s", dir, strerror(errno)); st = GC_ERR_IO; goto done; }
    run_probe(&c, o->model, m, dir, full);
    gc_remove_tree(dir);
    full = &r->probes[0];
    if (c.fail) { gc_errf(err, errlen, "%s", c.err); st = c.fail == GC_ERR_NOMEM ? GC_ERR_NOMEM : c.fail; goto done; }
    if (c.no_gpu) {
        gc_errf(err, errlen, "no GPU adapter: cannot bisect on the GPU (%s runtime: %s)", r->runtime, full->note);
        st = GC_ERR_UNSUPPORTED; goto done;
    }
    if (!strcmp(full->status, "CPU failed") || !strcmp(full->status, "not compared")) {
        gc_errf(err, errlen, "%s: cannot bisect: %s", o->model, full->note[0] ? full->note : full->status);
        st = GC_ERR_RUNTIME; goto done;
    }
    if (full->verdict == GC_GB_SKIP) {
        r->kind = GC_GB_R_NOT_ON_GPU;
        snprintf(r->text, sizeof r->text, "the full model does not run on the GPU (%s: %.300s): no GPU-vs-CPU divergence to bisect",
                 full->status, full->note);
        goto found;
    }
    if (full->verdict == GC_GB_OK) {
        r->kind = GC_GB_R_CLEAN;
        if (o->side == GC_GB_SIDE_GPU)
            snprintf(r->text, sizeof r->text, "no divergence: every output of the full model is within tolerance (GPU %s vs CPU, %s)",
                     r->precision, r->runtime);
        else
            snprintf(r->text, sizeof r->text, "no divergence: every output of the full model is within tolerance (%s vs %s CPU)",
                     r->gpu_side, r->runtime);
        goto found;
    }

    /* 2. anchors: the points of the divergent outputs, earliest first */
    gc_gb_graph gr = { r->n_points, in_start, in_pts, dep_start, dep_pts };
    int32_t *anchors = malloc(sizeof(int32_t) * ((size_t)full->n_outs + 1));
    int *anchor_out = malloc(sizeof(int) * ((size_t)full->n_outs + 1));
    if (!anchors || !anchor_out) { free(anchors); free(anchor_out); st = GC_ERR_NOMEM; goto nomem; }
    int na = 0;
    for (int k = 0; k < full->n_outs; k++) {
        const gc_gb_cmp *x = &full->outs[k];
        bool bad = x->have ? !x->pass : strstr(x->problem, "element counts differ") != NULL;
        if (!bad || x->tensor < 0 || x->tensor >= m->subgraphs[c.sg].n_tensors) continue;
        int32_t p = c.pt_of_tensor[x->tensor];
        if (p < 0) continue;
        bool dup = false;
        for (int q = 0; q < na; q++) if (anchors[q] == p) dup = true;
        if (dup) continue;
        int q = na++;                                   /* insertion sort by point */
        while (q > 0 && anchors[q - 1] > p) { anchors[q] = anchors[q - 1]; anchor_out[q] = anchor_out[q - 1]; q--; }
        anchors[q] = p; anchor_out[q] = k;
    }
    for (int q = 0; q < na && r->first < 0; q++) {
        int32_t a = anchors[q];
        /* an output no op reads: its prefix computes what the full model did, so the full
         * model's measurement stands for it while the search runs (saves one compile
         * unless the search ends there; then its prefix is probed to confirm) */
        if (!r->points[a].consumed && verdict[a] == GC_GB_UNKNOWN) {
            verdict[a] = GC_GB_DIVERGES;
            c.pt_probe[a] = 0; c.pt_out[a] = anchor_out[q];
        }
        gc_gb_search_result sr;
        gc_gb_search(&gr, a, probe_point, &c, verdict, &sr);
        r->n_restarts += sr.n_restarts;
        if (c.fail || sr.error) {
            free(anchors); free(anchor_out);
            gc_errf(err, errlen, "%s", c.err[0] ? c.err : "a probe failed");
            st = c.fail ? c.fail : GC_ERR_RUNTIME; goto done;
        }
        if (sr.first >= 0 && c.pt_probe[sr.first] == 0) {
            /* the answer rests on the full model's measurement: its own prefix must diverge
             * too (else the whole graph is needed, e.g. an output the graph also reads) */
            gc_gb_verdict pv = probe_point(sr.first, &c);
            if (pv == GC_GB_UNKNOWN) {
                free(anchors); free(anchor_out);
                gc_errf(err, errlen, "%s", c.err[0] ? c.err : "a probe failed");
                st = c.fail ? c.fail : GC_ERR_RUNTIME; goto done;
            }
            verdict[sr.first] = (uint8_t)pv;
            if (pv != GC_GB_DIVERGES) continue;
        }
        if (sr.first >= 0) r->first = sr.first;
    }
    free(anchors); free(anchor_out);
    full = &r->probes[0];                               /* probes[] may have moved */
    if (r->first < 0) {
        r->kind = GC_GB_R_NOT_ISOLATED;
        snprintf(r->text, sizeof r->text, "the full model diverges (%.160s: max|diff| %.4g) but no prefix does: %s",
                 full->cmp.name, full->cmp.max_abs,
                 na ? "the divergence needs the whole graph (an output also consumed inside it? LiteRT#8599)"
                    : "the divergent outputs are not produced by an op of the entry");
        goto found;
    }
    r->kind = GC_GB_R_FOUND;
    r->first_probe = c.pt_probe[r->first];
    if (r->first_probe >= 0) {
        const gc_gb_probe *p = &r->probes[r->first_probe];
        int oi = c.pt_out[r->first];
        r->first_cmp = oi >= 0 && oi < p->n_outs ? p->outs[oi] : p->cmp;
    }
    describe_inputs(&c);
    attach_check(&c, r->points[r->first].op);
    {
        const gc_gb_point *f = &r->points[r->first];
        snprintf(r->text, sizeof r->text, "first divergent op: op %d %s -> tensor %d '%.200s' (%d probes)",
                 f->op, f->op_name, f->tensor, f->tensor_name, r->n_probes);
    }
found:
    for (int i = 0; i < r->n_probes; i++) if (r->probes[i].verdict == GC_GB_SKIP) r->n_skipped++;
    st = GC_OK;
    goto done;
nomem:
    gc_errf(err, errlen, "out of memory");
    st = GC_ERR_NOMEM;
done:
    free(eo_t); free(eo_n); free(in_start); free(in_pts); free(dep_start); free(dep_pts); free(verdict);
    free(c.pt_of_tensor); free(c.pt_probe); free(c.pt_out);
    gc_model_free(m);
    if (st != GC_OK) gc_gb_free(r);
    return st;
}

void gc_gb_free(gc_gb_result *r) {
    for (int i = 0; i < r->n_probes; i++) free(r->probes[i].outs);
    free(r->probes);
    gc_arena_free(&r->arena);
    memset(r, 0, sizeof *r);
    r->first = -1; r->first_probe = -1;
}
