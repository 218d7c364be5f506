/* gpu_bisect_search.c — the search of gpu_bisect.h: binary search over the ancestors of
 * the current divergent point in execution order, a confirming probe of the found
 * point's inputs, and going on at a divergent input when the predicate is not monotone.
 * Pure: it sees points, what each reads, and a probe callback; every probe result is
 * memoised in verdict[]. */
#include "verify/gpu_bisect.h"

#include <stdlib.h>
#include <string.h>

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

/* mark[i] = 1 for every point root depends on, directly or not (root excluded); mark
 * holds n bytes. Without dependency lists every earlier point counts. */
static void ancestors(const gc_gb_graph *g, int32_t root, uint8_t *mark, int32_t *stack) {
    memset(mark, 0, (size_t)g->n);
    if (!g->dep_start) { memset(mark, 1, (size_t)root); return; }
    int32_t sp = 0;
    stack[sp++] = root;
    while (sp) {                                    /* each point is pushed at most once */
        int32_t i = stack[--sp];
        for (int32_t k = g->dep_start[i]; k < g->dep_start[i + 1]; k++) {
            int32_t p = g->dep_pts[k];
            if (p < 0 || p >= i || mark[p]) continue;
            mark[p] = 1;
            stack[sp++] = p;
        }
    }
}

void gc_gb_search(const gc_gb_graph *g, int32_t hi, gc_gb_probe_fn probe, void *user,
                  uint8_t *verdict, gc_gb_search_result *r) {
    r->first = -1; r->n_probes = 0; r->n_restarts = 0; r->error = false;
    if (!g || hi < 0 || hi >= g->n) return;
    search_ctx c = { probe, user, verdict, r };
    gc_gb_verdict v = get(&c, hi);
    if (v != GC_GB_DIVERGES) return;                 /* the anchor is not divergent (or error) */
    uint8_t *mark = malloc((size_t)g->n);
    int32_t *cand = malloc(sizeof(int32_t) * (size_t)g->n), *stack = malloc(sizeof(int32_t) * (size_t)g->n);
    if (!mark || !cand || !stack) { r->error = true; goto out; }
    int32_t root = hi;                               /* candidates are root's ancestors */
    ancestors(g, root, mark, stack);
    for (;;) {
        int32_t lo = -1;
        for (int32_t i = hi - 1; i >= 0; i--) if (good(verdict[i])) { lo = i; break; }
        int32_t nc = 0, known_bad = -1;
        for (int32_t i = lo + 1; i < hi; i++) if (mark[i]) cand[nc++] = i;
        for (int32_t j = 0; j < nc && known_bad < 0; j++) if (verdict[cand[j]] == GC_GB_DIVERGES) known_bad = cand[j];
        if (known_bad >= 0) { hi = known_bad; continue; }
        if (nc > 0) {                                /* halve the candidates */
            int32_t mid = cand[nc / 2];
            if (get(&c, mid) == GC_GB_UNKNOWN) goto out;
            if (verdict[mid] == GC_GB_DIVERGES) hi = mid;
            continue;
        }
        /* confirming step: every float input of hi within tolerance (they are root's
         * ancestors before hi, so at or before lo) */
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
        hi = root = bad;                             /* strictly smaller: the search ends */
        ancestors(g, root, mark, stack);
    }
out:
    free(mark); free(cand); free(stack);
}
