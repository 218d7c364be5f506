/* rank5_fold.c — pass rank5_fold [fix.rank5]
 *
 * Both GPU delegates refuse any tensor of rank >= 5 (gpu-delegate-rules.md §2.1). The
 * PixelShuffle / packed-QKV head-split / einops idiom puts one only *between* two
 * reshapes:
 *
 *     X (rank <= 4) -RESHAPE-> A (rank >= 5) -TRANSPOSE P1-> ... -TRANSPOSE Pk-> B -RESHAPE-> Y (rank <= 4)
 *
 * (zero or more TRANSPOSEs with constant perms; the composed permutation is P). Only
 * the element order of Y matters, and a permutation of A's axes can often be written
 * on fewer axes:
 *   1. unit axes of A carry no data: drop them from A and from P;
 *   2. axes adjacent in A that stay adjacent and in order in P move as one block:
 *      merge them (product of sizes).
 * If the canonical permutation has <= 4 axes the chain becomes
 *     RESHAPE X -> A' (rank <= 4), TRANSPOSE P', RESHAPE -> Y
 * (a lone RESHAPE when P' is the identity). Otherwise (e.g. torch's PixelShuffle order
 * [H,W,C,r,r] -> [H,r,W,r,C], five canonical axes) the permutation is split into the
 * shortest sequence of transposes that each canonicalize to <= 4 axes (breadth-first
 * over the orders of up to 6 canonical axes; every permutation is a product of block
 * swaps, which have <= 4 blocks), with a RESHAPE between steps where the merged shapes
 * differ.
 *
 * Precondition: the anchor is a RESHAPE from rank >= 5 to rank <= 4; walking back from
 *               it through TRANSPOSEs with constant perms reaches a RESHAPE whose input
 *               has rank <= 4; static shapes; at most 8 axes (6 canonical ones for the
 *               multi-step form). Intermediate tensors of the old chain that have other
 *               consumers stay (the chain's ops are removed only when nothing else
 *               reads them).
 * Exactness:    bit-exact (RESHAPE and TRANSPOSE only move elements; the new chain
 *               computes the same element permutation).
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_RESHAPE, -1 };

#define MAXA 8          /* axes of A */
#define MAX_BFS_AXES 6  /* canonical axes the multi-step search handles (720 orders) */

/* One transpose step on a shape: `in` dims (n), output axis k takes input axis q[k].
 * Merges runs of q (q[k+1] == q[k] + 1) and drops nothing else. Fills the merged input
 * shape (mi, rank mr), merged perm (mp) and merged output shape (mo). Returns mr. */
static int merge_step(const int64_t *in, int n, const int *q, int64_t *mi, int *mp, int64_t *mo) {
    int start[MAXA], len[MAXA], nr = 0;       /* runs in output order: first input axis, length */
    for (int k = 0; k < n; k++) {
        if (k > 0 && q[k] == q[k - 1] + 1) { len[nr - 1]++; continue; }
        start[nr] = q[k]; len[nr] = 1; nr++;
    }
    /* input order of the runs */
    int order[MAXA];
    for (int r = 0; r < nr; r++) order[r] = r;
    for (int i = 1; i < nr; i++)
        for (int j = i; j > 0 && start[order[j - 1]] > start[order[j]]; j--) {
            int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    int pos[MAXA];                            /* run -> merged input axis */
    for (int i = 0; i < nr; i++) {
        int r = order[i];
        int64_t s = 1;
        for (int a = start[r]; a < start[r] + len[r]; a++) s *= in[a];
        mi[i] = s;
        pos[r] = i;
    }
    for (int r = 0; r < nr; r++) { mp[r] = pos[r]; mo[r] = mi[pos[r]]; }
    return nr;
}

static int runs_of(const int *q, int n) {
    int r = n > 0 ? 1 : 0;
    for (int k = 1; k < n; k++) if (q[k] != q[k - 1] + 1) r++;
    return r;
}

/* permutations of n items <-> index (lexicographic rank) */
static int perm_rank(const int *p, int n) {
    int r = 0;
    for (int i = 0; i < n; i++) {
        int smaller = 0;
        for (int j = i + 1; j < n; j++) if (p[j] < p[i]) smaller++;
        r = r * (n - i) + smaller;
    }
    return r;
}

static void perm_unrank(int r, int n, int *p) {
    int digits[MAXA], used[MAXA] = {0};
    for (int i = n - 1; i >= 0; i--) { digits[i] = r % (n - i); r /= (n - i); }
    for (int i = 0; i < n; i++) {
        int d = digits[i];
        for (int v = 0; v < n; v++) if (!used[v]) { if (d-- == 0) { p[i] = v; used[v] = 1; break; } }
    }
}

/* Shortest sequence of steps (each with <= 4 runs) from the identity arrangement to
 * `target` on n axes. steps[s][k]: output position k of step s takes input position
 * steps[s][k]. Returns the number of steps, 0 when n > MAX_BFS_AXES, -1 on oom. */
static int plan_steps(const int *target, int n, int steps[][MAXA], int max_steps) {
    if (n > MAX_BFS_AXES) return 0;
    int total = 1;
    for (int i = 2; i <= n; i++) total *= i;
    int *prev = malloc(sizeof(int) * (size_t)total), *via = malloc(sizeof(int) * (size_t)total);
    int *queue = malloc(sizeof(int) * (size_t)total);
    int *moves = malloc(sizeof(int) * (size_t)total);   /* step perms with <= 4 runs */
    if (!prev || !via || !queue || !moves) { free(prev); free(via); free(queue); free(moves); return -1; }
    int n_moves = 0;
    for (int i = 0; i < total; i++) {
        int q[MAXA];
        perm_unrank(i, n, q);
        int r = runs_of(q, n);
        if (r > 1 && r <= 4) moves[n_moves++] = i;
        prev[i] = -2;
    }
    int id[MAXA];
    for (int i = 0; i < n; i++) id[i] = i;
    int start = perm_rank(id, n), goal = perm_rank(target, n);
    int head = 0, tail = 0;
    queue[tail++] = start; prev[start] = -1;
    while (head < tail && prev[goal] == -2) {
        int cur = queue[head++], s[MAXA];
        perm_unrank(cur, n, s);
        for (int m = 0; m < n_moves; m++) {
            int q[MAXA], ns[MAXA];
            perm_unrank(moves[m], n, q);
            for (int k = 0; k < n; k++) ns[k] = s[q[k]];
            int nx = perm_rank(ns, n);
            if (prev[nx] != -2) continue;
            prev[nx] = cur; via[nx] = moves[m];
            queue[tail++] = nx;
        }
    }
    int count = 0;
    if (prev[goal] != -2) {
        int path[64], np = 0;
        for (int x = goal; prev[x] >= 0 && np < 64; x = prev[x]) path[np++] = via[x];
        if (np <= max_steps) {
            for (int i = 0; i < np; i++) perm_unrank(path[np - 1 - i], n, steps[i]);
            count = np;
        }
    }
    free(prev); free(via); free(queue); free(moves);
    return count;
}

static void dims32(const int64_t *v, int n, int32_t *o) { for (int i = 0; i < n; i++) o[i] = (int32_t)v[i]; }

/* The RESHAPE that starts a chain (rank <= 4 -> rank >= 5): quiet when every path from
 * its output runs through TRANSPOSEs into RESHAPEs back to rank <= 4 (the end RESHAPEs
 * are the anchors that rewrite it), else say where the rank-5 tensor goes. */
static int start_of_chain(gc_fix_ctx *c, int32_t op) {
    int32_t stack[32], n = 0;
    stack[n++] = fx_out(c, op, 0);
    int visited = 0;
    while (n > 0) {
        int32_t t = stack[--n];
        if (++visited > 64) return fx_decline(c, "the rank-%d tensor fans out too widely", fx_t(c, t)->rank);
        if (fx_is_graph_output(c, t))
            return fx_decline(c, "the rank-%d tensor '%s' is a model output", fx_t(c, t)->rank, fx_t(c, t)->name);
        int32_t cons[32];
        int32_t nc = gc_sg_consumers(c->m, c->sg, t, cons, 32);
        if (nc > 32) return fx_decline(c, "the rank-%d tensor has too many consumers", fx_t(c, t)->rank);
        for (int32_t i = 0; i < nc; i++) {
            int32_t code = fx_code(c, cons[i]), u = fx_out(c, cons[i], 0);
            if (code == GC_OP_TRANSPOSE && u >= 0 && n < 32) { stack[n++] = u; continue; }
            if (code == GC_OP_RESHAPE && u >= 0 && fx_t(c, u)->rank <= 4) continue;
            return fx_decline(c, "the rank-%d tensor '%s' feeds %s '%s', not a RESHAPE/TRANSPOSE chain back to rank <= 4",
                              fx_t(c, t)->rank, fx_t(c, t)->name, gc_op_name(c->m, fx_op(c, cons[i])), fx_name(c, cons[i]));
        }
    }
    return fx_pass_over(c);
}

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_fix_tinfo tin, y;
    if (!fx_info(c, fx_in(c, op, 0), &tin) || !fx_info(c, fx_out(c, op, 0), &y))
        return fx_decline(c, "the chain has a tensor of rank > %d", GC_FIX_MAXR);
    if (tin.rank <= 4 && y.rank >= 5) return start_of_chain(c, op);
    if (tin.rank < 5 || y.rank > 4) return fx_pass_over(c);   /* refused for another reason */
    if (!tin.is_static || !y.is_static) return fx_decline(c, "dynamic shapes");
    /* walk back through TRANSPOSEs to the RESHAPE that made the rank >= 5 tensor */
    int r = tin.rank, P[MAXA];
    for (int k = 0; k < r; k++) P[k] = k;
    int32_t t = tin.index, n_tr = 0;
    int32_t first = -1;
    for (;;) {
        int32_t p = fx_producer(c, t);
        if (p < 0) return fx_decline(c, "the rank-%d tensor '%s' is not made by a RESHAPE/TRANSPOSE chain", r,
                                         fx_t(c, t)->name);
        int32_t code = fx_code(c, p);
        if (code == GC_OP_TRANSPOSE) {
            int64_t pv[MAXA];
            int32_t u = fx_in(c, p, 0);
            if (u < 0 || fx_t(c, u)->rank != r || fx_const_ints(c, fx_in(c, p, 1), pv, MAXA) != r)
                return fx_decline(c, "TRANSPOSE '%s' has no constant perm of rank %d", fx_name(c, p), r);
            for (int k = 0; k < r; k++) {
                if (pv[k] < 0 || pv[k] >= r) return fx_decline(c, "TRANSPOSE '%s' has a bad perm", fx_name(c, p));
                P[k] = (int)pv[P[k]];
            }
            t = u; n_tr++;
            if (n_tr > 16) return fx_decline(c, "chain too long");
            continue;
        }
        if (code == GC_OP_RESHAPE) {
            int32_t x = fx_in(c, p, 0);
            if (x < 0 || fx_t(c, x)->rank > 4)
                return fx_decline(c, "the chain starts from a tensor of rank > 4");
            first = p;
            break;
        }
        return fx_decline(c, "the rank-%d tensor '%s' comes from %s, not a RESHAPE/TRANSPOSE chain", r,
                              fx_t(c, t)->name, gc_op_name(c->m, fx_op(c, p)));
    }
    gc_fix_tinfo a, x;
    if (!fx_info(c, t, &a) || !fx_info(c, fx_in(c, first, 0), &x)) return fx_decline(c, "rank too high");
    if (!a.is_static || !x.is_static) return fx_decline(c, "dynamic shapes");
    {   /* P must be a permutation */
        int seen_ax[MAXA] = {0};
        for (int k = 0; k < r; k++) { if (seen_ax[P[k]]++) return fx_decline(c, "not a permutation"); }
    }
    /* 1. drop unit axes */
    int keep[MAXA], n1 = 0, newidx[MAXA];
    int64_t A1[MAXA];
    for (int i = 0; i < r; i++) {
        newidx[i] = -1;
        if (a.shape[i] != 1) { newidx[i] = n1; A1[n1] = a.shape[i]; keep[n1++] = i; }
    }
    (void)keep;
    int P1[MAXA], k1 = 0;
    for (int k = 0; k < r; k++) if (newidx[P[k]] >= 0) P1[k1++] = newidx[P[k]];
    /* 2. merge runs: the canonical problem (A2, P2) */
    int64_t A2[MAXA], B2[MAXA];
    int P2[MAXA];
    int n2 = merge_step(A1, n1, P1, A2, P2, B2);

    int steps[16][MAXA], n_steps;
    if (n2 <= 1) n_steps = 0;
    else if (n2 <= 4) { for (int k = 0; k < n2; k++) steps[0][k] = P2[k]; n_steps = 1; }
    else {
        n_steps = plan_steps(P2, n2, steps, 16);
        if (n_steps < 0) return -1;
        if (n_steps == 0)
            return fx_decline(c, "the permutation needs %d axes even after dropping unit axes and merging "
                                     "adjacent ones (at most %d handled)", n2, MAX_BFS_AXES);
    }

    /* build: RESHAPE X -> in(step 1), TRANSPOSE, [RESHAPE -> in(step 2), TRANSPOSE]..., RESHAPE -> Y */
    int32_t at = first;
    fx_remove_op(c, op);                 /* anchor after `first`: `first` keeps its index */
    char d1[96];
    int32_t cur = x.index;
    int64_t cur_shape[MAXA];             /* shape of the arrangement, axes of A2 */
    int arr[MAXA];                       /* current arrangement: position -> A2 axis */
    for (int k = 0; k < n2; k++) { cur_shape[k] = A2[k]; arr[k] = k; }
    int cur_rank = x.rank;
    int32_t cur_dims[MAXA];
    for (int k = 0; k < x.rank; k++) cur_dims[k] = x.shape[k];
    for (int s = 0; s < n_steps; s++) {
        int64_t mi[MAXA], mo[MAXA];
        int mp[MAXA];
        int mr = merge_step(cur_shape, n2, steps[s], mi, mp, mo);
        int32_t mi32[MAXA], mo32[MAXA];
        dims32(mi, mr, mi32); dims32(mo, mr, mo32);
        bool same = cur_rank == mr;
        for (int k = 0; same && k < mr; k++) same = cur_dims[k] == mi32[k];
        fx_dims64(d1, sizeof d1, mr, mi);
        if (!same) {
            char what[32];
            snprintf(what, sizeof what, "in%d", s + 1);
            int32_t nt = fx_new_tensor(c, y.name, what, x.type, mr, mi32, x.quant);
            if (nt < 0 || fx_add_reshape(c, at++, cur, nt) < 0) return -1;
            cur = nt;
            fx_note(c, "%sRESHAPE to %s, ", s ? ", " : "", d1);
        } else if (s) fx_note(c, ", ");
        char what[32];
        snprintf(what, sizeof what, "t%d", s + 1);
        int32_t to = fx_new_tensor(c, y.name, what, x.type, mr, mo32, x.quant);
        if (to < 0 || fx_add_transpose(c, at++, cur, to, fx_t(c, to)->name, mr, mp) < 0) return -1;
        fx_note(c, "TRANSPOSE perm");
        for (int k = 0; k < mr; k++) fx_note(c, "%s%d", k ? "," : " [", mp[k]);
        fx_note(c, "]");
        cur = to; cur_rank = mr;
        for (int k = 0; k < mr; k++) cur_dims[k] = mo32[k];
        int na[MAXA];
        int64_t ns[MAXA];
        for (int k = 0; k < n2; k++) { na[k] = arr[steps[s][k]]; ns[k] = cur_shape[steps[s][k]]; }
        memcpy(arr, na, sizeof arr); memcpy(cur_shape, ns, sizeof cur_shape);
    }
    if (fx_add_reshape(c, at, cur, y.index) < 0) return -1;
    fx_dims(d1, sizeof d1, y.rank, y.shape);
    fx_note(c, "%sRESHAPE to %s (rank-%d chain with %d TRANSPOSE(s) folded)", n_steps ? ", " : "", d1, r, (int)n_tr);
    fx_remove_dead(c, tin.index);
    return 1;
}

const gc_fix_pass gc_fix_rank5_fold = {
    .id = "rank5_fold",
    .fix_id = "fix.rank5",
    .summary = "RESHAPE(->rank>=5) [TRANSPOSE...] RESHAPE(->rank<=4) -> the same permutation on rank <= 4",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
