/* gpu_bisect_search.c — the search of gpu_bisect.h: binary search over the ancestors of
 * the current divergent point in execution order, a confirming probe of the found
 * point's inputs, and going on at a divergent input when the predicate is not monotone.
 * Pure: it sees points, what each reads, and a probe callback; every probe result is
 * memoised in verdict[]. */
#include "verify/gpu_bisect.h"

#include <stdlib.h>

const char *gc_gb_verdict_name(gc_gb_verdict v) {
    switch (v) {
    case GC_GB_OK: return "ok";
    case GC_GB_DIVERGES: return "diverges";
    case GC_GB_SKIP: return "skip";
    default: return "unknown";
    }
}

typedef struct {
    gc_gb_probe_fn probe;
    void *user;
    uint8_t *verdict;
    gc_gb_search_result *r;
} search_ctx;

/* The verdict of point i, probing it when unknown. GC_GB_UNKNOWN: the probe failed. */
static gc_gb_verdict get(search_ctx *c, int32_t i) {
    if (c->verdict[i] != GC_GB_UNKNOWN) return (gc_gb_verdict)c->verdict[i];
    gc_gb_verdict v = c->probe(i, c->user);
    c->r->n_probes++;
    if (v != GC_GB_OK && v != GC_GB_DIVERGES && v != GC_GB_SKIP) { c->r->error = true; return GC_GB_UNKNOWN; }
    c->verdict[i] = (uint8_t)v;
    return v;
}

static bool good(uint8_t v) { return v == GC_GB_OK || v == GC_GB_SKIP; }

/* The points in (lo, hi) that hi depends on, ascending, into cand; mark[] is scratch
 * (n bytes, left zero). Without dependency lists: every point in (lo, hi). */
static int32_t candidates(const gc_gb_graph *g, int32_t lo, int32_t hi, uint8_t *mark, int32_t *cand, int32_t *stack) {
    int32_t nc = 0;
    if (!g->dep_start) {
        for (int32_t i = lo + 1; i < hi; i++) cand[nc++] = i;
        return nc;
    }
    int32_t sp = 0;
    stack[sp++] = hi;
    while (sp) {                         /* depth-first over dependencies, never below lo */
        int32_t i = stack[--sp];
        for (int32_t k = g->dep_start[i]; k < g->dep_start[i + 1]; k++) {
            int32_t p = g->dep_pts[k];
            if (p <= lo || p >= i || mark[p]) continue;
            mark[p] = 1;
            stack[sp++] = p;
        }
    }
    for (int32_t i = lo + 1; i < hi; i++) if (mark[i]) { cand[nc++] = i; mark[i] = 0; }
    return nc;
}

void gc_gb_search(const gc_gb_graph *g, int32_t hi, gc_gb_probe_fn probe, void *user,
                  uint8_t *verdict, gc_gb_search_result *r) {
    r->first = -1; r->n_probes = 0; r->n_restarts = 0; r->error = false;
    if (!g || hi < 0 || hi >= g->n) return;
    search_ctx c = { probe, user, verdict, r };
    gc_gb_verdict v = get(&c, hi);
    if (v != GC_GB_DIVERGES) return;                 /* the anchor is not divergent (or error) */
    uint8_t *mark = calloc((size_t)g->n, 1);
    int32_t *cand = malloc(sizeof(int32_t) * (size_t)g->n), *stack = malloc(sizeof(int32_t) * (size_t)g->n);
    if (!mark || !cand || !stack) { r->error = true; goto out; }
    for (;;) {
        int32_t lo = -1;
        for (int32_t i = hi - 1; i >= 0; i--) if (good(verdict[i])) { lo = i; break; }
        int32_t nc = candidates(g, lo, hi, mark, cand, stack);
        int32_t known_bad = -1;
        for (int32_t j = 0; j < nc && known_bad < 0; j++) if (verdict[cand[j]] == GC_GB_DIVERGES) known_bad = cand[j];
        if (known_bad >= 0) { hi = known_bad; continue; }
        if (nc > 0) {                                /* halve the candidates */
            if (get(&c, cand[nc / 2]) == GC_GB_UNKNOWN) goto out;
            if (verdict[cand[nc / 2]] == GC_GB_DIVERGES) hi = cand[nc / 2];
            continue;
        }
        /* confirming step: every float input of hi within tolerance */
        int32_t bad = -1;
        for (int32_t k = g->in_start[hi]; k < g->in_start[hi + 1] && bad < 0; k++) {
            int32_t p = g->in_pts[k];
            if (p < 0 || p >= hi) continue;          /* not a point before hi: nothing to probe */
            v = get(&c, p);
            if (v == GC_GB_UNKNOWN) goto out;
            if (v == GC_GB_DIVERGES) bad = p;
        }
        if (bad < 0) { r->first = hi; goto out; }
        r->n_restarts++;
        hi = bad;                                    /* strictly smaller: the search ends */
    }
out:
    free(mark); free(cand); free(stack);
}
