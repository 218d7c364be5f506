/* dag_layout.c — layered layout of a subgraph's ops (see dag_layout.h for the method). */
#include "dag_layout.h"

#include <stdlib.h>
#include <string.h>

typedef struct { double key; int32_t prev, node; } slot_key;

static int slot_key_cmp(const void *a, const void *b) {
    const slot_key *x = a, *y = b;
    if (x->key < y->key) return -1;
    if (x->key > y->key) return 1;
    return (x->prev > y->prev) - (x->prev < y->prev);   /* stable: the previous order */
}

typedef struct {
    int32_t n, n_layers;
    const int32_t *layer;
    int32_t *pred_off, *pred;      /* CSR: producers of each op (p < j only) */
    int32_t *succ_off, *succ;      /* CSR: readers of each op (s > p only) */
    int32_t *lay_off, *lay;        /* nodes of each layer, in slot order */
    int32_t *slot;                 /* [n] slot within its layer */
    slot_key *tmp;
} ord_ctx;

/* centred slot: comparable between layers of different widths */
static double cslot(const ord_ctx *c, int32_t j) {
    int32_t l = c->layer[j], w = c->lay_off[l + 1] - c->lay_off[l];
    return c->slot[j] - (w - 1) * 0.5;
}

/* reorder layer l by the mean centred slot of its neighbours (producers when down) */
static void sweep_layer(ord_ctx *c, int32_t l, bool down) {
    int32_t a = c->lay_off[l], b = c->lay_off[l + 1];
    for (int32_t k = a; k < b; k++) {
        int32_t j = c->lay[k];
        const int32_t *nb = down ? c->pred : c->succ;
        int32_t s = down ? c->pred_off[j] : c->succ_off[j], e = down ? c->pred_off[j + 1] : c->succ_off[j + 1];
        double key = cslot(c, j);
        if (e > s) {
            double sum = 0;
            for (int32_t q = s; q < e; q++) sum += cslot(c, nb[q]);
            key = sum / (e - s);
        }
        c->tmp[k - a] = (slot_key){ key, c->slot[j], j };
    }
    qsort(c->tmp, (size_t)(b - a), sizeof *c->tmp, slot_key_cmp);
    for (int32_t k = a; k < b; k++) {
        c->lay[k] = c->tmp[k - a].node;
        c->slot[c->lay[k]] = k - a;
    }
}

void gc_dag_layout_free(gc_dag_layout *l) {
    free(l->layer); free(l->x); free(l->edge_from); free(l->edge_to);
    memset(l, 0, sizeof *l);
}

gc_status gc_dag_layout_subgraph(const gc_model *m, int32_t sgi, gc_dag_layout *out) {
    memset(out, 0, sizeof *out);
    if (sgi < 0 || sgi >= m->n_subgraphs) return GC_OK;
    const gc_subgraph *g = &m->subgraphs[sgi];
    int32_t n = g->n_ops, nt = g->n_tensors;
    out->n = n;
    if (n <= 0) return GC_OK;
    size_t cap = 0;                                   /* edges: at most one per op input */
    for (int32_t j = 0; j < n; j++) cap += (size_t)(g->ops[j].n_inputs > 0 ? g->ops[j].n_inputs : 0);
    if (cap > INT32_MAX) return GC_ERR_NOMEM;
    int32_t *producer = malloc(((size_t)nt + 1) * sizeof *producer);
    int32_t *mark = malloc((size_t)n * sizeof *mark);
    out->layer = calloc((size_t)n, sizeof *out->layer);
    out->x = calloc((size_t)n, sizeof *out->x);
    out->edge_from = malloc((cap + 1) * sizeof *out->edge_from);
    out->edge_to = malloc((cap + 1) * sizeof *out->edge_to);
    ord_ctx c; memset(&c, 0, sizeof c);
    c.pred_off = calloc((size_t)n + 1, sizeof *c.pred_off);
    c.succ_off = calloc((size_t)n + 2, sizeof *c.succ_off);
    c.pred = malloc((cap + 1) * sizeof *c.pred);
    c.succ = malloc((cap + 1) * sizeof *c.succ);
    c.slot = malloc((size_t)n * sizeof *c.slot);
    c.lay = malloc((size_t)n * sizeof *c.lay);
    c.tmp = malloc((size_t)n * sizeof *c.tmp);
    double *want = malloc((size_t)n * sizeof *want);
    gc_status st = GC_OK;
    if (!producer || !mark || !out->layer || !out->x || !out->edge_from || !out->edge_to || !c.pred_off ||
        !c.succ_off || !c.pred || !c.succ || !c.slot || !c.lay || !c.tmp || !want) { st = GC_ERR_NOMEM; goto done; }

    /* edges, grouped by reader in execution order */
    for (int32_t t = 0; t < nt; t++) producer[t] = -1;
    for (int32_t j = 0; j < n; j++) {
        const gc_op *op = &g->ops[j];
        for (int32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t >= 0 && t < nt && producer[t] < 0) producer[t] = j;
        }
        mark[j] = -1;
    }
    int32_t ne = 0, np = 0;
    for (int32_t j = 0; j < n; j++) {
        const gc_op *op = &g->ops[j];
        c.pred_off[j] = np;
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0 || t >= nt) continue;
            int32_t p = producer[t];
            if (p < 0 || p == j || mark[p] == j) continue;
            mark[p] = j;
            out->edge_from[ne] = p; out->edge_to[ne] = j; ne++;
            if (p < j) c.pred[np++] = p;
        }
    }
    c.pred_off[n] = np;
    out->n_edges = ne;

    /* 1. layers: longest path forward, then sources pulled down to their first reader */
    int32_t *L = out->layer;
    for (int32_t j = 0; j < n; j++)
        for (int32_t q = c.pred_off[j]; q < c.pred_off[j + 1]; q++)
            if (L[c.pred[q]] + 1 > L[j]) L[j] = L[c.pred[q]] + 1;
    for (int32_t q = 0; q < np; q++) c.succ_off[c.pred[q] + 1]++;      /* CSR of readers */
    for (int32_t j = 0; j < n; j++) c.succ_off[j + 1] += c.succ_off[j];
    for (int32_t j = 0; j < n; j++) mark[j] = c.succ_off[j];
    for (int32_t j = 0; j < n; j++)
        for (int32_t q = c.pred_off[j]; q < c.pred_off[j + 1]; q++) c.succ[mark[c.pred[q]]++] = j;
    for (int32_t j = n - 1; j >= 0; j--) {
        if (c.succ_off[j + 1] == c.succ_off[j]) continue;
        int32_t lo = INT32_MAX;
        for (int32_t q = c.succ_off[j]; q < c.succ_off[j + 1]; q++) if (L[c.succ[q]] < lo) lo = L[c.succ[q]];
        if (lo - 1 > L[j]) L[j] = lo - 1;
    }
    int32_t nl = 0;
    for (int32_t j = 0; j < n; j++) if (L[j] + 1 > nl) nl = L[j] + 1;
    out->n_layers = nl;
    c.n = n; c.n_layers = nl; c.layer = L;
    c.lay_off = calloc((size_t)nl + 2, sizeof *c.lay_off);
    if (!c.lay_off) { st = GC_ERR_NOMEM; goto done; }
    for (int32_t j = 0; j < n; j++) c.lay_off[L[j] + 1]++;
    for (int32_t l = 0; l < nl; l++) c.lay_off[l + 1] += c.lay_off[l];
    {
        int32_t *fill = calloc((size_t)nl + 1, sizeof *fill);
        if (!fill) { st = GC_ERR_NOMEM; goto done; }
        for (int32_t j = 0; j < n; j++) {                 /* 2. execution order first */
            int32_t k = c.lay_off[L[j]] + fill[L[j]]++;
            c.lay[k] = j;
            c.slot[j] = k - c.lay_off[L[j]];
        }
        free(fill);
    }
    for (int r = 0; r < GC_DAG_SWEEPS; r++) {             /*    then barycentre sweeps */
        for (int32_t l = 1; l < nl; l++) sweep_layer(&c, l, true);
        for (int32_t l = nl - 2; l >= 0; l--) sweep_layer(&c, l, false);
    }

    /* 3. x: the mean x of the producers, pushed apart, the layer shifted by the pull */
    double *x = out->x, minx, maxx = 0;
    for (int32_t l = 0; l < nl; l++) {
        int32_t a = c.lay_off[l], b = c.lay_off[l + 1];
        for (int32_t k = a; k < b; k++) {
            int32_t j = c.lay[k];
            double w = cslot(&c, j);
            if (c.pred_off[j + 1] > c.pred_off[j]) {
                double s = 0;
                for (int32_t q = c.pred_off[j]; q < c.pred_off[j + 1]; q++) s += x[c.pred[q]];
                w = s / (c.pred_off[j + 1] - c.pred_off[j]);
            }
            want[k - a] = w;
        }
        double pull = 0;
        for (int32_t k = a; k < b; k++) {
            double v = want[k - a];
            if (k > a && v < x[c.lay[k - 1]] + 1) v = x[c.lay[k - 1]] + 1;
            x[c.lay[k]] = v;
            pull += want[k - a] - v;
        }
        pull /= (b - a) > 0 ? (b - a) : 1;
        for (int32_t k = a; k < b; k++) x[c.lay[k]] += pull;
    }
    minx = x[0];
    for (int32_t j = 0; j < n; j++) if (x[j] < minx) minx = x[j];
    for (int32_t j = 0; j < n; j++) { x[j] -= minx; if (x[j] > maxx) maxx = x[j]; }
    out->width = maxx + 1;
done:
    free(producer); free(mark); free(want);
    free(c.pred_off); free(c.succ_off); free(c.pred); free(c.succ); free(c.slot); free(c.lay); free(c.tmp);
    free(c.lay_off);
    if (st != GC_OK) gc_dag_layout_free(out);
    return st;
}
