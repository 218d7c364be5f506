/* bisect.c — first divergent tensor (see bisect.h for the measure). Side A runs once
 * with a node callback that copies every FLOAT32 op output; side B (another precision,
 * or files) is compared against those copies node by node. Memory: one float copy of
 * every float activation of side A (the model's "no reuse" activation total). */
#include "bisect.h"
#include "verify/npy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t sg, op, tensor;
    int rank; int32_t shape[GC_MAX_RANK];
    float *data; size_t n;
} rec;

typedef struct {
    const gc_model *m;
    rec *recs; int32_t n, cap;
    int32_t **index;            /* [sg][tensor] → rec index + 1 (0 = none) */
    bool oom;
    /* side B */
    gc_bisect_result *r; int32_t cap_nodes;
    double **rel;               /* [sg][tensor] → rel of side B's output (NAN = none) */
    /* progress */
    const gc_bisect_opts *o;
    const char *side;
    int32_t entry, total;
} ctx;

static void tick(ctx *c, int32_t op, const gc_tview *outs, int n_outs) {
    if (!c->o || !c->o->progress || n_outs < 1 || outs[0].subgraph != c->entry) return;
    c->o->progress(c->side, op + 1, c->total, c->o->progress_user);
}

static size_t view_numel(const gc_tview *v) {
    size_t n = 1;
    for (int d = 0; d < v->rank; d++) n *= (size_t)v->shape[d];
    return n;
}

static int record_a(int32_t op, const gc_tview *outs, int n_outs, void *user) {
    ctx *c = user;
    for (int k = 0; k < n_outs; k++) {
        const gc_tview *v = &outs[k];
        if (v->dtype != GC_T_FLOAT32 || v->subgraph < 0 || v->subgraph >= c->m->n_subgraphs) continue;
        if (v->tensor < 0 || v->tensor >= c->m->subgraphs[v->subgraph].n_tensors) continue;
        if (!gc_grow((void **)&c->recs, &c->cap, c->n + 1, sizeof *c->recs)) { c->oom = true; return 1; }
        rec *r = &c->recs[c->n];
        r->sg = v->subgraph; r->op = op; r->tensor = v->tensor; r->rank = v->rank;
        memcpy(r->shape, v->shape, sizeof r->shape);
        r->n = view_numel(v);
        r->data = malloc(r->n * sizeof(float) + 1);
        if (!r->data) { c->oom = true; return 1; }
        memcpy(r->data, v->data, r->n * sizeof(float));
        c->index[v->subgraph][v->tensor] = ++c->n;
    }
    tick(c, op, outs, n_outs);
    return 0;
}

/* Compare reference a (n floats) with b; fills the node's error fields. */
static void measure(gc_bisect_node *nd, const float *a, const float *b, size_t n) {
    double mx = 0, ref = 0; int64_t worst = 0; bool nonfinite = false;
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, sdd = 0; size_t nf = 0;   /* finite pairs */
    for (size_t i = 0; i < n; i++) {
        double x = a[i], y = b[i];
        if (isfinite(x) != isfinite(y) || (isnan(x) != isnan(y))) { if (!nonfinite) worst = (int64_t)i; nonfinite = true; continue; }
        if (!isfinite(x)) continue;
        double d = fabs(x - y);
        if (fabs(x) > ref) ref = fabs(x);
        if (d > mx) { mx = d; if (!nonfinite) worst = (int64_t)i; }
        sa += x; sb += y; saa += x * x; sbb += y * y; sab += x * y; sdd += d * d; nf++;
    }
    /* SNR of b against the reference a in dB (+inf when equal), Pearson correlation
     * (NaN with fewer than two finite pairs or a constant side) */
    nd->snr_db = sdd > 0 ? 10 * log10(saa / sdd) : (nf ? INFINITY : NAN);
    double va = saa - sa * sa / (double)(nf ? nf : 1), vb = sbb - sb * sb / (double)(nf ? nf : 1);
    nd->corr = nf >= 2 && va > 0 && vb > 0 ? (sab - sa * sb / (double)nf) / sqrt(va * vb) : NAN;
    nd->max_abs = mx; nd->ref_max = ref; nd->nonfinite = nonfinite;
    nd->rel = nonfinite ? INFINITY : mx / (ref > 1e-30 ? ref : 1e-30);
    if (mx == 0 && !nonfinite) nd->rel = 0;
    nd->worst = worst;
    nd->worst_a = n ? a[worst] : 0; nd->worst_b = n ? b[worst] : 0;
}

static void add_node(ctx *c, const rec *a, const float *b) {
    gc_bisect_result *r = c->r;
    if (!gc_grow((void **)&r->nodes, &c->cap_nodes, r->n_nodes + 1, sizeof *r->nodes)) { c->oom = true; return; }
    gc_bisect_node *nd = &r->nodes[r->n_nodes++];
    memset(nd, 0, sizeof *nd);
    const gc_subgraph *sg = &c->m->subgraphs[a->sg];
    nd->subgraph = a->sg; nd->op = a->op; nd->tensor = a->tensor;
    nd->op_name = a->op >= 0 && a->op < sg->n_ops ? gc_op_name(c->m, &sg->ops[a->op]) : "?";
    nd->tensor_name = sg->tensors[a->tensor].name;
    nd->rank = a->rank; memcpy(nd->shape, a->shape, sizeof nd->shape);
    measure(nd, a->data, b, a->n);
    /* gain over the op's inputs (side B's error on them; 0 for constants/entry inputs) */
    double in_rel = 0;
    if (a->op >= 0 && a->op < sg->n_ops) {
        const gc_op *op = &sg->ops[a->op];
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t >= 0 && t < sg->n_tensors && !isnan(c->rel[a->sg][t]) && c->rel[a->sg][t] > in_rel)
                in_rel = c->rel[a->sg][t];
        }
    }
    const double floor = 1.0 / 2048.0;
    nd->gain = nd->rel / (in_rel > floor ? in_rel : floor);
    c->rel[a->sg][a->tensor] = nd->rel;
}

static int compare_b(int32_t op, const gc_tview *outs, int n_outs, void *user) {
    ctx *c = user;
    for (int k = 0; k < n_outs; k++) {
        const gc_tview *v = &outs[k];
        if (v->dtype != GC_T_FLOAT32 || v->subgraph < 0 || v->subgraph >= c->m->n_subgraphs) continue;
        if (v->tensor < 0 || v->tensor >= c->m->subgraphs[v->subgraph].n_tensors) continue;
        int32_t i = c->index[v->subgraph][v->tensor];
        if (!i) continue;
        const rec *a = &c->recs[i - 1];
        if (a->n != view_numel(v)) continue;
        add_node(c, a, v->data);
    }
    tick(c, op, outs, n_outs);
    return c->oom;
}

static gc_status run_side(const gc_model *m, const gc_bisect_opts *o, gc_precision p,
                          gc_on_node_fn fn, ctx *user, char *err, size_t errlen) {
    gc_interp_opts io = { .precision = p, .qmode = o->qmode, .signature = GC_SIG_AUTO,
                          .on_node = fn, .user = user, .gpu_runtime = o->gpu_runtime };
    gc_interp *it = gc_interp_new(m, &io, err, errlen);
    if (!it) return GC_ERR_FORMAT;                /* no entry, a tensor of rank > 6, ... */
    gc_status s = gc_interp_prepare(it);
    if (s != GC_OK) { gc_errf(err, errlen, "%s", gc_interp_errmsg(it)); gc_interp_free(it); return s; }
    user->entry = gc_interp_entry_subgraph(it);
    user->total = user->entry >= 0 && user->entry < m->n_subgraphs ? m->subgraphs[user->entry].n_ops : 0;
    for (int k = 0; k < gc_interp_n_inputs(it); k++) {
        gc_tview v = gc_interp_input(it, k);
        s = o->fill(&v, k, o->fill_user);
        if (s != GC_OK) { gc_errf(err, errlen, "input %d (%s): cannot fill type %s", k, v.name ? v.name : "",
                                  gc_type_name(v.dtype)); gc_interp_free(it); return s; }
    }
    s = gc_interp_invoke(it);
    if (s != GC_OK) gc_errf(err, errlen, "%s", gc_interp_errmsg(it));
    gc_interp_free(it);
    return s;
}

gc_status gc_bisect(const gc_model *m, const gc_bisect_opts *o, gc_bisect_result *r,
                    char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->first = -1; r->tol = o->tol > 0 ? o->tol : 1e-2;
    ctx c; memset(&c, 0, sizeof c);
    c.m = m; c.r = r; c.o = o; c.side = "A";
    c.index = calloc((size_t)m->n_subgraphs + 1, sizeof *c.index);
    c.rel = calloc((size_t)m->n_subgraphs + 1, sizeof *c.rel);
    gc_status s = GC_OK;
    if (!c.index || !c.rel) { s = GC_ERR_NOMEM; goto out; }
    for (int32_t i = 0; i < m->n_subgraphs; i++) {
        int32_t nt = m->subgraphs[i].n_tensors;
        c.index[i] = calloc((size_t)nt + 1, sizeof **c.index);
        c.rel[i] = malloc(((size_t)nt + 1) * sizeof **c.rel);
        if (!c.index[i] || !c.rel[i]) { s = GC_ERR_NOMEM; goto out; }
        for (int32_t t = 0; t < nt; t++) c.rel[i][t] = NAN;
    }
    snprintf(r->a_desc, sizeof r->a_desc, "interpreter %s", gc_precision_name(o->a));
    s = run_side(m, o, o->a, record_a, &c, err, errlen);
    if (s != GC_OK) goto out;
    if (c.oom) { s = GC_ERR_NOMEM; gc_errf(err, errlen, "out of memory recording activations"); goto out; }
    if (o->ref_dir) {
        /* the files are the reference: a = file, b = our side A */
        snprintf(r->b_desc, sizeof r->b_desc, "interpreter %s", gc_precision_name(o->a));
        snprintf(r->a_desc, sizeof r->a_desc, "reference %s", o->ref_dir);
        int found = 0;
        for (int32_t i = 0; i < c.n && !c.oom; i++) {
            rec *a = &c.recs[i];
            if (o->progress) o->progress("ref", i + 1, c.n, o->progress_user);
            char path[1024]; gc_npy f; char e2[512];
            snprintf(path, sizeof path, "%s/tensors/s%d_t%d.npy", o->ref_dir, a->sg, a->tensor);
            struct stat st;
            if (stat(path, &st) != 0 && errno == ENOENT) {
                if (!r->n_missing++) snprintf(r->first_missing, sizeof r->first_missing, "tensors/s%d_t%d.npy", a->sg, a->tensor);
                continue;
            }
            if (gc_npy_read(path, &f, e2, sizeof e2) != GC_OK) {
                gc_errf(err, errlen, "reference tensor %s", e2);
                s = GC_ERR_FORMAT; goto out;
            }
            size_t n = (size_t)gc_npy_count(&f);
            const char *tn = m->subgraphs[a->sg].tensors[a->tensor].name;
            if (f.dtype != GC_T_FLOAT32 && f.dtype != GC_T_FLOAT16 && f.dtype != GC_T_FLOAT64) {
                gc_errf(err, errlen, "reference tensor %s: dtype %s, tensor %d ('%s') is float", path,
                        gc_npy_dtype_name(f.dtype), (int)a->tensor, tn);
                gc_npy_free(&f); s = GC_ERR_FORMAT; goto out;
            }
            if (n != a->n) {
                gc_errf(err, errlen, "reference tensor %s: %zu elements, tensor %d ('%s') has %zu", path, n,
                        (int)a->tensor, tn, a->n);
                gc_npy_free(&f); s = GC_ERR_FORMAT; goto out;
            }
            float *fd = (float *)f.data, *conv = NULL;
            if (f.dtype != GC_T_FLOAT32) {            /* float16 / float64: compare as float */
                conv = malloc(n * sizeof(float) + 1);
                double buf[256];
                for (size_t i0 = 0; conv && i0 < n; i0 += 256) {
                    size_t k = n - i0 < 256 ? n - i0 : 256;
                    gc_npy_to_f64(f.dtype, f.data, i0, k, buf);
                    for (size_t j = 0; j < k; j++) conv[i0 + j] = (float)buf[j];
                }
                if (!conv) { gc_npy_free(&f); s = GC_ERR_NOMEM; gc_errf(err, errlen, "out of memory"); goto out; }
                fd = conv;
            }
            rec ref = *a; ref.data = fd;
            add_node(&c, &ref, a->data);
            found++;
            free(conv);
            gc_npy_free(&f);
        }
        if (!found) { gc_errf(err, errlen, "%s: no reference tensor matches (want tensors/s<S>_t<T>.npy, float32)", o->ref_dir);
                      s = GC_ERR_USAGE; goto out; }
    } else {
        snprintf(r->b_desc, sizeof r->b_desc, "interpreter %s%s", gc_precision_name(o->b),
                 o->b == GC_PREC_FP16 ? (o->gpu_runtime == GC_GPU_JS ? " (js)" : " (native)") : "");
        c.side = "B";
        s = run_side(m, o, o->b, compare_b, &c, err, errlen);
        if (s != GC_OK) goto out;
    }
    if (c.oom) { s = GC_ERR_NOMEM; gc_errf(err, errlen, "out of memory"); goto out; }
    for (int i = 0; i < r->n_nodes; i++)
        if (r->nodes[i].rel > r->tol) { r->first = i; break; }
out:
    for (int32_t i = 0; i < c.n; i++) free(c.recs[i].data);
    free(c.recs);
    for (int32_t i = 0; c.index && i < m->n_subgraphs; i++) free(c.index[i]);
    for (int32_t i = 0; c.rel && i < m->n_subgraphs; i++) free(c.rel[i]);
    free(c.index); free(c.rel);
    if (s != GC_OK) gc_bisect_free(r);
    return s;
}

void gc_bisect_free(gc_bisect_result *r) {
    free(r->nodes); r->nodes = NULL; r->n_nodes = 0;
}

/* indices of the `top` largest gains (ties keep order) */
static int top_gains(const gc_bisect_result *r, int top, int *idx) {
    int n = 0;
    for (int i = 0; i < r->n_nodes; i++) {
        double g = r->nodes[i].gain;
        if (!(g > 1.0) || top <= 0) continue;
        int at;
        if (n < top) at = n++;
        else if (g > r->nodes[idx[top - 1]].gain) at = top - 1;
        else continue;
        idx[at] = i;
        while (at > 0 && r->nodes[idx[at]].gain > r->nodes[idx[at - 1]].gain) {
            int t = idx[at]; idx[at] = idx[at - 1]; idx[at - 1] = t; at--;
        }
    }
    return n;
}

static void shape_txt(gc_str *o, const gc_bisect_node *n) {
    gc_str_putc(o, '[');
    for (int d = 0; d < n->rank; d++) gc_str_printf(o, "%s%d", d ? "," : "", n->shape[d]);
    gc_str_putc(o, ']');
}

static void node_line(gc_str *o, const char *path, const gc_bisect_node *n) {
    gc_str_printf(o, "%s: subgraph %d op %d %s -> tensor %d '%s' ", path, n->subgraph, n->op, n->op_name,
                  n->tensor, n->tensor_name);
    shape_txt(o, n);
    gc_str_printf(o, ": rel %.3g (max|diff| %.4g of max|ref| %.4g), gain %.1fx; worst element %lld: %.7g vs %.7g%s\n",
                  n->rel, n->max_abs, n->ref_max, n->gain, (long long)n->worst, n->worst_a, n->worst_b,
                  n->nonfinite ? " (NaN/Inf on one side)" : "");
}

void gc_bisect_text(const gc_bisect_result *r, const char *path, int top, gc_str *o) {
    gc_str_printf(o, "%s: compared %d float tensors, %s (reference) vs %s, tolerance rel %.3g\n",
                  path, r->n_nodes, r->a_desc, r->b_desc, r->tol);
    if (r->n_missing)
        gc_str_printf(o, "%s: %d float tensor(s) have no reference file and were not compared (first: %s)\n",
                      path, r->n_missing, r->first_missing);
    if (r->first < 0) gc_str_printf(o, "%s: no tensor diverges beyond rel %.3g\n", path, r->tol);
    else { gc_str_puts(o, "first divergent tensor:\n  "); node_line(o, path, &r->nodes[r->first]); }
    int idx[64]; if (top > 64) top = 64;
    int n = top_gains(r, top, idx);
    if (n) {
        gc_str_puts(o, "largest error gains (the op itself lost precision):\n");
        for (int i = 0; i < n; i++) { gc_str_puts(o, "  "); node_line(o, path, &r->nodes[idx[i]]); }
    }
    if (r->n_nodes) { gc_str_puts(o, "output (last compared tensor):\n  "); node_line(o, path, &r->nodes[r->n_nodes - 1]); }
}

static void node_json(gc_str *o, const gc_bisect_node *n) {
    gc_str_printf(o, "{\"subgraph\":%d,\"op\":%d,\"op_name\":", n->subgraph, n->op);
    gc_str_json(o, n->op_name);
    gc_str_printf(o, ",\"tensor\":%d,\"tensor_name\":", n->tensor);
    gc_str_json(o, n->tensor_name);
    gc_str_puts(o, ",\"shape\":"); shape_txt(o, n);
    gc_str_printf(o, ",\"rel\":%s%.6g%s,\"max_abs\":%.6g,\"ref_max\":%.6g,\"gain\":%s%.6g%s,\"worst\":%lld,\"nonfinite\":%s}",
                  isfinite(n->rel) ? "" : "\"", n->rel, isfinite(n->rel) ? "" : "\"",
                  n->max_abs, n->ref_max, isfinite(n->gain) ? "" : "\"", n->gain, isfinite(n->gain) ? "" : "\"",
                  (long long)n->worst, n->nonfinite ? "true" : "false");
}

void gc_bisect_json(const gc_bisect_result *r, const char *path, int top, gc_str *o) {
    gc_str_puts(o, "{\"schema\":1,\"model\":"); gc_str_json(o, path);
    gc_str_puts(o, ",\"reference\":"); gc_str_json(o, r->a_desc);
    gc_str_puts(o, ",\"candidate\":"); gc_str_json(o, r->b_desc);
    gc_str_printf(o, ",\"tolerance\":%.6g,\"compared\":%d,\"missing\":%d,\"first_missing\":", r->tol, r->n_nodes, r->n_missing);
    if (r->n_missing) gc_str_json(o, r->first_missing); else gc_str_puts(o, "null");
    gc_str_puts(o, ",\"first\":");
    if (r->first < 0) gc_str_puts(o, "null"); else node_json(o, &r->nodes[r->first]);
    int idx[64]; if (top > 64) top = 64;
    int n = top_gains(r, top, idx);
    gc_str_puts(o, ",\"top_gains\":[");
    for (int i = 0; i < n; i++) { if (i) gc_str_putc(o, ','); node_json(o, &r->nodes[idx[i]]); }
    gc_str_puts(o, "],\"nodes\":[");
    for (int i = 0; i < r->n_nodes; i++) { if (i) gc_str_putc(o, ','); node_json(o, &r->nodes[i]); }
    gc_str_puts(o, "]}\n");
}
