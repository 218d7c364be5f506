/* op_profile.c — where the reference interpreter's time goes, op by op: one interpreter
 * (fp32, signature 0, inputs by pattern sin, --threads T), one untimed invoke, then R timed
 * invokes; the time between consecutive on_node callbacks (and from the invoke's start to
 * the first) is charged to the op reported, and the minimum over the R invokes is kept per
 * op (the least disturbed by other load). Prints the ops grouped by name (total ms, count,
 * share) and the N costliest single ops with their first output's shape.
 *
 *   op_profile [--runs R] [--threads T] [--top N] MODEL.tflite...   (defaults: 5, 1, 12)
 *
 * Ops of called subgraphs are charged to themselves (their subgraph's op, not the caller).
 * Exit 0 when every model ran, 1 when one failed, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/interp.h"
#include "model/model.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

typedef struct {
    const gc_model *m;
    double last;                /* time of the previous callback (or the invoke's start) */
    double *cur, *best;         /* per (subgraph, op): this invoke's time, min over invokes */
    int32_t *base;              /* first slot of each subgraph in cur / best */
    char (*shape)[48];          /* first output's shape, per slot */
} prof;

static int on_node(int32_t op, const gc_tview *outs, int n_outs, void *user) {
    prof *p = user;
    double t = now_ms();
    int32_t sg = n_outs > 0 ? outs[0].subgraph : 0;
    int32_t slot = p->base[sg] + op;
    p->cur[slot] += t - p->last;
    if (n_outs > 0 && !p->shape[slot][0]) {
        char *s = p->shape[slot];
        size_t len = 0;
        for (int d = 0; d < outs[0].rank && len + 12 < sizeof p->shape[0]; d++)
            len += (size_t)snprintf(s + len, sizeof p->shape[0] - len, d ? "x%d" : "%d", outs[0].shape[d]);
        if (!outs[0].rank) snprintf(s, sizeof p->shape[0], "scalar");
    }
    p->last = now_ms();
    return 0;
}

typedef struct { const char *name; double ms; int n; } group;

static int cmp_group(const void *a, const void *b) {
    double x = ((const group *)a)->ms, y = ((const group *)b)->ms;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int cmp_slot_desc(const void *a, const void *b, void *ctx) {
    const double *best = ctx;
    double x = best[*(const int32_t *)a], y = best[*(const int32_t *)b];
    return x < y ? 1 : x > y ? -1 : 0;
}

/* insertion sort with a context (qsort_r is not portable C11) */
static void sort_slots(int32_t *v, int32_t n, const double *best) {
    for (int32_t i = 1; i < n; i++) {
        int32_t x = v[i], j = i;
        while (j > 0 && cmp_slot_desc(&v[j - 1], &x, (void *)best) > 0) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
}

static int profile(const char *path, int runs, int threads, int top) {
    char err[512];
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    if (!m) { printf("%s: %s\n", path, err); return 1; }
    prof p = { .m = m };
    int32_t total = 0;
    p.base = calloc((size_t)m->n_subgraphs + 1, sizeof *p.base);
    for (int32_t s = 0; s < m->n_subgraphs; s++) { p.base[s] = total; total += m->subgraphs[s].n_ops; }
    p.cur = calloc((size_t)total + 1, sizeof *p.cur);
    p.best = calloc((size_t)total + 1, sizeof *p.best);
    p.shape = calloc((size_t)total + 1, sizeof *p.shape);
    gc_interp_opts o = { .precision = GC_PREC_FP32, .signature = GC_SIG_AUTO, .threads = threads,
                         .on_node = on_node, .user = &p };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    int rc = 0;
    if (!it || gc_interp_prepare(it) != GC_OK) {
        printf("%s: %s\n", path, it ? gc_interp_errmsg(it) : err);
        rc = 1;
        goto done;
    }
    for (int k = 0; k < gc_interp_n_inputs(it); k++) {
        gc_tview v = gc_interp_input(it, k);
        gc_fill_pattern_sin(&v, k);
    }
    double best_total = 1e300;
    for (int r = -1; r < runs; r++) {
        memset(p.cur, 0, sizeof *p.cur * (size_t)total);
        double t0 = now_ms();
        p.last = t0;
        if (gc_interp_invoke(it) != GC_OK) { printf("%s: %s\n", path, gc_interp_errmsg(it)); rc = 1; goto done; }
        double t = now_ms() - t0;
        if (r < 0) continue;                          /* the untimed first invoke */
        if (t < best_total) best_total = t;
        for (int32_t i = 0; i < total; i++)
            if (r == 0 || p.cur[i] < p.best[i]) p.best[i] = p.cur[i];
    }
    group *g = calloc((size_t)total + 1, sizeof *g);
    int ng = 0;
    double sum = 0;
    for (int32_t s = 0; s < m->n_subgraphs; s++)
        for (int32_t i = 0; i < m->subgraphs[s].n_ops; i++) {
            const char *name = gc_op_name(m, &m->subgraphs[s].ops[i]);
            double ms = p.best[p.base[s] + i];
            sum += ms;
            int k = 0;
            while (k < ng && strcmp(g[k].name, name)) k++;
            if (k == ng) g[ng++] = (group){ name, 0, 0 };
            g[k].ms += ms;
            g[k].n++;
        }
    qsort(g, (size_t)ng, sizeof *g, cmp_group);
    const char *base = strrchr(path, '/');
    printf("## %s: best invoke %.3f ms, sum of per-op minima %.3f ms (%d threads, %d runs)\n",
           base ? base + 1 : path, best_total, sum, threads < 1 ? 1 : threads, runs);
    printf("| op | count | ms | share |\n|---|---:|---:|---:|\n");
    for (int k = 0; k < ng; k++)
        if (g[k].ms >= 0.001 || k < 8)
            printf("| %s | %d | %.3f | %.1f%% |\n", g[k].name, g[k].n, g[k].ms, sum > 0 ? 100 * g[k].ms / sum : 0);
    int32_t *order = malloc(sizeof *order * ((size_t)total + 1));
    for (int32_t i = 0; i < total; i++) order[i] = i;
    sort_slots(order, total, p.best);
    printf("\n| sg | op# | op | output | ms |\n|---:|---:|---|---|---:|\n");
    for (int k = 0; k < top && k < total; k++) {
        int32_t slot = order[k], s = 0;
        while (s + 1 < m->n_subgraphs && p.base[s + 1] <= slot) s++;
        printf("| %d | %d | %s | %s | %.3f |\n", s, slot - p.base[s],
               gc_op_name(m, &m->subgraphs[s].ops[slot - p.base[s]]), p.shape[slot], p.best[slot]);
    }
    printf("\n");
    free(order);
    free(g);
done:
    gc_interp_free(it);
    free(p.base); free(p.cur); free(p.best); free(p.shape);
    gc_model_free(m);
    return rc;
}

int main(int argc, char **argv) {
    int runs = 5, threads = 1, top = 12, a = 1, rc = 0;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--runs") && a + 1 < argc) runs = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc) threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--top") && a + 1 < argc) top = atoi(argv[++a]);
        else { fprintf(stderr, "usage: op_profile [--runs R] [--threads T] [--top N] MODEL...\n"); return 2; }
    }
    if (a >= argc || runs < 1) { fprintf(stderr, "usage: op_profile [--runs R] [--threads T] [--top N] MODEL...\n"); return 2; }
    for (; a < argc; a++) rc |= profile(argv[a], runs, threads, top);
    return rc;
}
