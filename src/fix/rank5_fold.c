/* rank5_fold.c — pass rank5_fold [fix.rank5]
 *
 * Both GPU delegates refuse any tensor of rank >= 5 (gpu-delegate-rules.md §2.1). The
 * PixelShuffle / packed-QKV head-split / einops / window-partition idioms put one only
 * *between* a RESHAPE that makes it and ops that bring the rank back to <= 4:
 *
 *     X (rank <= 4) -RESHAPE-> A (rank >= 5) -op-> ... -op-> Y (rank <= 4)
 *
 * where each op is a pure data movement on A's elements:
 *     TRANSPOSE (constant perm), SLICE / STRIDED_SLICE (constant, positive strides; a
 *     shrunk axis is dropped), GATHER with constant indices that are one index or a
 *     run with a constant positive step (batch_dims 0), UNPACK (output k = slice
 *     [k, k+1) of the axis, dropped), SQUEEZE;
 * and the last op (the anchor, the site's exit) is a RESHAPE to rank <= 4 or one of
 * those ops with every output of rank <= 4. timm's shared Attention,
 * qkv.reshape(B,N,3,H,D).permute(2,0,3,1,4).unbind(0), is this chain with the SLICE
 * (or UNPACK / GATHER) on the "3" axis.
 *
 * Any such chain computes Y = reshape(permute_P(box(A))): a box (begin, stride, count
 * per axis of A; a slice after a transpose is a box on the axes it came from), then
 * one permutation P of A's axes. The rewrite:
 *   1. the box: A's axes are grouped into a view V of X (runs of unsliced axes merged,
 *      unit axes dropped, each sliced axis alone); when V has <= 4 axes the box is one
 *      STRIDED_SLICE — on X itself when every sliced axis of V starts an axis of X at
 *      the same outer extent (the qkv split becomes a slice of the last axis of
 *      [B,N,3*H*D]), else on RESHAPE(X -> V); for the classic delegate, which slices
 *      only 3-D and 4-D tensors in its BHWC mapping, the slice is always 4-D (V gets
 *      leading unit axes);
 *   2. the permutation on the sliced tensor, as before: unit axes of A carry no data
 *      and are dropped from A and P; axes adjacent in A that stay adjacent and in order
 *      in P move as one block and are merged (product of sizes). If the canonical
 *      permutation has <= 4 axes it becomes RESHAPE -> A' (rank <= 4), TRANSPOSE P',
 *      RESHAPE -> Y (a lone RESHAPE when P' is the identity). Otherwise (torch's
 *      PixelShuffle order [H,W,C,r,r] -> [H,r,W,r,C], five canonical axes) the
 *      permutation is split into the shortest sequence of transposes that each
 *      canonicalize to <= 4 axes (breadth-first over the orders of up to 6 canonical
 *      axes; every permutation is a product of block swaps, which have <= 4 blocks),
 *      with a RESHAPE between steps where the merged shapes differ.
 * Every exit is rewritten on its own from X (an UNPACK's outputs together); the shared
 * rank >= 5 ops go once nothing reads them any more.
 *
 * Precondition: the anchor is an exit (input rank >= 5, outputs rank <= 4); walking
 *               back from it through the ops above reaches a RESHAPE whose input has
 *               rank <= 4; static shapes; at most 8 axes; the sliced axes and the runs
 *               between them fit in 4 axes; the permutation needs at most 6 canonical
 *               axes. Intermediate tensors of the old chain that have other consumers
 *               stay (the chain's ops are removed only when nothing else reads them).
 *               The RESHAPE that starts a chain is not a site: it is reported only
 *               when the rank >= 5 tensor goes somewhere else (a model output, an op
 *               outside the list that rank5_hoist does not take either).
 * Exactness:    bit-exact (RESHAPE, TRANSPOSE and STRIDED_SLICE only move elements; the
 *               new ops select the same elements in the same order).
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_RESHAPE, GC_OP_SLICE, GC_OP_STRIDED_SLICE, GC_OP_GATHER, GC_OP_UNPACK,
                                   GC_OP_SQUEEZE, -1 };

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


/* ---- the chain as a box on A and a permutation ------------------------------------- */

typedef struct {
    int r;                               /* rank of A */
    int64_t A[MAXA];                     /* A's shape */
    int64_t begin[MAXA], stride[MAXA], count[MAXA];   /* the box, per axis of A */
    int n_cur, cur[MAXA];                /* axis k of the current tensor is axis cur[k] of A */
} chain;

bool gc_fix_rank5_is_move(int32_t code);  /* also used by rank5_hoist.c */
bool gc_fix_rank5_is_move(int32_t code) {
    switch (code) {
    case GC_OP_TRANSPOSE: case GC_OP_SLICE: case GC_OP_STRIDED_SLICE: case GC_OP_GATHER: case GC_OP_UNPACK:
    case GC_OP_SQUEEZE:
        return true;
    default:
        return false;
    }
}

/* drop axis k of the current tensor (its box count must be 1) */
static void drop_axis(chain *s, int k) {
    for (int j = k; j + 1 < s->n_cur; j++) s->cur[j] = s->cur[j + 1];
    s->n_cur--;
}

/* narrow axis k of the current tensor to (first, step, n), in its own indices */
static void narrow(chain *s, int k, int64_t first, int64_t step, int64_t n) {
    int a = s->cur[k];
    s->begin[a] += first * s->stride[a];
    s->stride[a] *= step;
    s->count[a] = n;
}

/* the current tensor's shape */
static void cur_dims(const chain *s, int32_t *d) { for (int k = 0; k < s->n_cur; k++) d[k] = (int32_t)s->count[s->cur[k]]; }

/* Apply op `op` (its output `out_k`) to the chain. 1 done; 0 declined (why). */
static int step(gc_fix_ctx *c, chain *s, int32_t op, int out_k) {
    int32_t code = fx_code(c, op);
    const gc_options *o = &fx_op(c, op)->opt;
    const char *nm = fx_name(c, op);
    int32_t dims[MAXA];
    cur_dims(s, dims);
    int n = s->n_cur;
    switch (code) {
    case GC_OP_TRANSPOSE: {
        int64_t pv[MAXA];
        if (fx_const_ints(c, fx_in(c, op, 1), pv, MAXA) != n)
            return fx_decline(c, "TRANSPOSE '%s' has no constant perm of rank %d", nm, n);
        int nc[MAXA], used[MAXA] = {0};
        for (int k = 0; k < n; k++) {
            if (pv[k] < 0 || pv[k] >= n || used[pv[k]]++) return fx_decline(c, "TRANSPOSE '%s' has a bad perm", nm);
            nc[k] = s->cur[pv[k]];
        }
        memcpy(s->cur, nc, sizeof nc);
        break;
    }
    case GC_OP_SLICE: {
        int64_t bv[MAXA], sv[MAXA];
        if (fx_const_ints(c, fx_in(c, op, 1), bv, MAXA) != n || fx_const_ints(c, fx_in(c, op, 2), sv, MAXA) != n)
            return fx_decline(c, "SLICE '%s' has no constant begin/size of rank %d", nm, n);
        for (int k = 0; k < n; k++) {
            int64_t cnt = sv[k] < 0 ? dims[k] - bv[k] : sv[k];
            if (bv[k] < 0 || cnt <= 0 || bv[k] + cnt > dims[k])
                return fx_decline(c, "SLICE '%s' is empty or out of range on axis %d", nm, k);
            narrow(s, k, bv[k], 1, cnt);
        }
        break;
    }
    case GC_OP_STRIDED_SLICE: {
        int32_t st[GC_FIX_MAXR], sd[GC_FIX_MAXR], sz[GC_FIX_MAXR];
        uint32_t shrunk = 0;
        int rc = fx_strided_slice_spec(c, op, n, dims, st, sd, sz, &shrunk);
        if (rc <= 0) return rc;
        for (int k = 0; k < n; k++) narrow(s, k, st[k], sd[k], sz[k]);
        for (int k = n - 1; k >= 0; k--) if (shrunk >> k & 1) drop_axis(s, k);
        break;
    }
    case GC_OP_GATHER: {
        int64_t ax = gc_opt_int(o, GC_O_GatherOptions_axis);
        if (gc_opt_int(o, GC_O_GatherOptions_batch_dims) != 0) return fx_decline(c, "GATHER '%s' has batch_dims", nm);
        if (ax < 0) ax += n;
        if (ax < 0 || ax >= n) return fx_decline(c, "GATHER '%s' has a bad axis", nm);
        int32_t it = fx_in(c, op, 1);
        if (it < 0 || !fx_is_const(c, it)) return fx_decline(c, "GATHER '%s' has indices computed at run time", nm);
        int irank = fx_t(c, it)->rank;
        int64_t ni = fx_numel(fx_t(c, it));
        if (irank > 1) return fx_decline(c, "GATHER '%s' has rank-%d indices", nm, irank);
        if (ni < 1 || ni > dims[ax]) return fx_decline(c, "GATHER '%s' has %lld indices", nm, (long long)ni);
        int32_t *iv = NULL;
        int rc = fx_const_indices(c, it, ni, dims[ax], &iv);
        if (rc <= 0) return rc;
        int64_t stp = ni > 1 ? (int64_t)iv[1] - iv[0] : 1;
        bool run = stp > 0;
        for (int64_t i = 1; run && i < ni; i++) run = (int64_t)iv[i] - iv[i - 1] == stp;
        int64_t first = iv[0];
        free(iv);
        if (!run) return fx_decline(c, "GATHER '%s' indices are not a run with a constant positive step", nm);
        narrow(s, (int)ax, first, stp, ni);
        if (irank == 0) drop_axis(s, (int)ax);
        break;
    }
    case GC_OP_UNPACK: {
        int64_t ax = gc_opt_int(o, GC_O_UnpackOptions_axis);
        if (ax < 0) ax += n;
        if (ax < 0 || ax >= n || out_k >= dims[ax]) return fx_decline(c, "UNPACK '%s' has a bad axis", nm);
        narrow(s, (int)ax, out_k, 1, 1);
        drop_axis(s, (int)ax);
        break;
    }
    case GC_OP_SQUEEZE: {
        uint32_t nd = 0;
        const int32_t *sq = gc_opt_vec(o, GC_O_SqueezeOptions_squeeze_dims, &nd);
        bool drop[MAXA] = {false};
        if (!sq || nd == 0) { for (int k = 0; k < n; k++) drop[k] = dims[k] == 1; }
        else for (uint32_t i = 0; i < nd; i++) {
            int32_t d = sq[i] < 0 ? sq[i] + n : sq[i];
            if (d < 0 || d >= n || dims[d] != 1) return fx_decline(c, "SQUEEZE '%s' has a bad axis", nm);
            drop[d] = true;
        }
        for (int k = n - 1; k >= 0; k--) if (drop[k]) drop_axis(s, k);
        break;
    }
    default:
        return fx_decline(c, "%s '%s' is not a data movement this pass folds", gc_op_name(c->m, fx_op(c, op)), nm);
    }
    /* the chain must say what the model says */
    int32_t y = fx_out(c, op, out_k);
    const gc_tensor *ty = y >= 0 ? fx_t(c, y) : NULL;
    bool same = ty && ty->rank == s->n_cur;
    cur_dims(s, dims);
    for (int k = 0; same && k < s->n_cur; k++) same = ty->shape[k] == dims[k];
    if (!same) return fx_decline(c, "%s '%s': the resolved shape does not match the model's", gc_op_name(c->m, fx_op(c, op)), nm);
    return 1;
}

/* ---- emitting ---------------------------------------------------------------------- */

/* The permutation part: src holds box(A) in A's order (shape anything with that
 * element order), A2s its per-axis counts (rank r), P the full permutation (output axis
 * k takes axis P[k]). Emits RESHAPE/TRANSPOSE steps from src into y at *at. 1 done,
 * 0 declined, -1 oom. */
static int emit_perm(gc_fix_ctx *c, int32_t *at, int32_t src, int r, const int64_t *Ab, const int *P, int32_t y,
                     int *n_tr_out) {
    gc_fix_tinfo x, yi;
    if (!fx_info(c, src, &x) || !fx_info(c, y, &yi)) return fx_decline(c, "rank too high");
    /* 1. drop unit axes */
    int n1 = 0, newidx[MAXA];
    int64_t A1[MAXA];
    for (int i = 0; i < r; i++) {
        newidx[i] = -1;
        if (Ab[i] != 1) { newidx[i] = n1; A1[n1++] = Ab[i]; }
    }
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
    if (n_steps == 1 && n2 <= 4) {
        /* identity after merging? then no transpose at all */
        bool id = true;
        for (int k = 0; k < n2; k++) id = id && steps[0][k] == k;
        if (id) n_steps = 0;
    }
    char d1[96];
    int32_t cur = src;
    int64_t cur_shape[MAXA];
    for (int k = 0; k < n2; k++) cur_shape[k] = A2[k];
    int cur_rank = x.rank;
    int32_t cdims[MAXA];
    for (int k = 0; k < x.rank; k++) cdims[k] = x.shape[k];
    for (int s = 0; s < n_steps; s++) {
        int64_t mi[MAXA], mo[MAXA];
        int mp[MAXA];
        int mr = merge_step(cur_shape, n2, steps[s], mi, mp, mo);
        int32_t mi32[MAXA], mo32[MAXA];
        dims32(mi, mr, mi32); dims32(mo, mr, mo32);
        bool same = cur_rank == mr;
        for (int k = 0; same && k < mr; k++) same = cdims[k] == mi32[k];
        fx_dims64(d1, sizeof d1, mr, mi);
        if (!same) {
            char what[32];
            snprintf(what, sizeof what, "in%d", s + 1);
            int32_t nt = fx_new_tensor(c, yi.name, what, x.type, mr, mi32, x.quant);
            if (nt < 0 || fx_add_reshape(c, (*at)++, cur, nt) < 0) return -1;
            cur = nt;
            fx_note(c, "RESHAPE to %s, ", d1);
        }
        char what[32];
        snprintf(what, sizeof what, "t%d", s + 1);
        bool last = s == n_steps - 1 && yi.rank == mr;   /* the last step may write y itself */
        for (int k = 0; last && k < mr; k++) last = yi.shape[k] == mo32[k];
        int32_t to = last ? y : fx_new_tensor(c, yi.name, what, x.type, mr, mo32, x.quant);
        if (to < 0 || fx_add_transpose(c, (*at)++, cur, to, fx_t(c, to)->name, mr, mp) < 0) return -1;
        if (last) {
            fx_note(c, "TRANSPOSE perm");
            for (int k = 0; k < mr; k++) fx_note(c, "%s%d", k ? "," : " [", mp[k]);
            fx_note(c, "]");
            *n_tr_out = n_steps;
            return 1;
        }
        fx_note(c, "TRANSPOSE perm");
        for (int k = 0; k < mr; k++) fx_note(c, "%s%d", k ? "," : " [", mp[k]);
        fx_note(c, "], ");
        cur = to; cur_rank = mr;
        for (int k = 0; k < mr; k++) cdims[k] = mo32[k];
        int64_t ns[MAXA];
        for (int k = 0; k < n2; k++) ns[k] = cur_shape[steps[s][k]];
        memcpy(cur_shape, ns, sizeof cur_shape);
    }
    *n_tr_out = n_steps;
    bool same = cur != x.index && cur_rank == yi.rank;
    for (int k = 0; same && k < cur_rank; k++) same = cdims[k] == yi.shape[k];
    if (same && *at > 0 && fx_out(c, *at - 1, 0) == cur) {
        /* the slice made y's shape already: let it write y */
        fx_op(c, *at - 1)->outputs[0] = y;
        return 1;
    }
    if (fx_add_reshape(c, (*at)++, cur, y) < 0) return -1;
    fx_dims(d1, sizeof d1, yi.rank, yi.shape);
    fx_note(c, "RESHAPE to %s", d1);
    return 1;
}

/* The box part: STRIDED_SLICE of X (or of a RESHAPE of X) selecting box(A); *out the
 * tensor holding it (X itself when nothing is sliced). 1, 0 declined, -1 oom. */
static int emit_box(gc_fix_ctx *c, int32_t *at, const gc_fix_tinfo *x, const chain *s, const char *base,
                    int32_t *out) {
    *out = x->index;
    int nv = 0;
    int64_t V[MAXA], vb[MAXA], vs[MAXA], vn[MAXA];
    bool vsl[MAXA], any = false;
    for (int a = 0; a < s->r; a++) {
        if (s->A[a] == 1) continue;
        bool sl = s->begin[a] != 0 || s->stride[a] != 1 || s->count[a] != s->A[a];
        any = any || sl;
        if (!sl && nv > 0 && !vsl[nv - 1]) { V[nv - 1] *= s->A[a]; continue; }
        V[nv] = s->A[a]; vsl[nv] = sl; vb[nv] = s->begin[a]; vs[nv] = s->stride[a]; vn[nv] = s->count[a];
        nv++;
    }
    if (!any) return 1;
    /* directly on X: every sliced axis j of V starts at the outer extent of an axis i of
     * X whose inner extent divides V's (X[i] = V[j] * q) */
    int32_t xb[GC_FIX_MAXR], xe[GC_FIX_MAXR], xs[GC_FIX_MAXR], xo[GC_FIX_MAXR];
    for (int i = 0; i < x->rank; i++) { xb[i] = 0; xe[i] = x->shape[i]; xs[i] = 1; xo[i] = x->shape[i]; }
    /* the classic delegate slices only 3-D and 4-D tensors, and reads 3-D ones in its
     * own BHWC mapping: give it 4-D views */
    int min_rank = c->opts->target == GC_TARGET_CLASSIC ? 4 : 1;
    bool direct = x->rank >= min_rank;
    for (int j = 0; j < nv && direct; j++) {
        if (!vsl[j]) continue;
        int64_t outer_v = 1, inner_v = 1;
        for (int k = 0; k < j; k++) outer_v *= V[k];
        for (int k = j + 1; k < nv; k++) inner_v *= V[k];
        bool found = false;
        int64_t outer_x = 1;
        for (int i = 0; i < x->rank && !found; i++) {
            int64_t inner_x = 1;
            for (int k = i + 1; k < x->rank; k++) inner_x *= x->shape[k];
            if (outer_x == outer_v && x->shape[i] > 1 && inner_v % inner_x == 0) {
                int64_t q = inner_v / inner_x;
                if (x->shape[i] == V[j] * q && (vs[j] == 1 || q == 1) && xs[i] == 1 && xb[i] == 0 &&
                    xe[i] == x->shape[i]) {
                    xb[i] = (int32_t)(vb[j] * q);
                    if (q == 1) { xe[i] = (int32_t)(vb[j] + (vn[j] - 1) * vs[j] + 1); xs[i] = (int32_t)vs[j]; }
                    else xe[i] = (int32_t)((vb[j] + vn[j]) * q);
                    xo[i] = (int32_t)(vn[j] * q);
                    found = true;
                }
            }
            outer_x *= x->shape[i];
        }
        direct = found;
    }
    char b1[128], b2[128], b3[128];
    if (direct) {
        int32_t t = fx_new_tensor(c, base, "box", x->type, x->rank, xo, x->quant);
        if (t < 0 || fx_add_strided_slice(c, (*at)++, x->index, t, fx_t(c, t)->name, x->rank, xb, xe, xs) < 0) return -1;
        fx_dims(b1, sizeof b1, x->rank, xb); fx_dims(b2, sizeof b2, x->rank, xe); fx_dims(b3, sizeof b3, x->rank, xs);
        fx_note(c, "STRIDED_SLICE begin %s end %s strides %s, ", b1, b2, b3);
        *out = t;
        return 1;
    }
    if (nv > 4)
        return fx_decline(c, "the slices need a %d-axis view (sliced axes and the runs between them)", nv);
    while (nv < min_rank) {                  /* leading unit axes */
        for (int j = nv; j > 0; j--) { V[j] = V[j - 1]; vsl[j] = vsl[j - 1]; vb[j] = vb[j - 1]; vs[j] = vs[j - 1]; vn[j] = vn[j - 1]; }
        V[0] = 1; vsl[0] = false; vb[0] = 0; vs[0] = 1; vn[0] = 1;
        nv++;
    }
    int32_t v32[MAXA], vb32[MAXA], ve32[MAXA], vs32[MAXA], vo32[MAXA];
    for (int j = 0; j < nv; j++) {
        v32[j] = (int32_t)V[j];
        vb32[j] = vsl[j] ? (int32_t)vb[j] : 0;
        vs32[j] = vsl[j] ? (int32_t)vs[j] : 1;
        vo32[j] = vsl[j] ? (int32_t)vn[j] : (int32_t)V[j];
        ve32[j] = vb32[j] + vs32[j] * (vo32[j] - 1) + 1;
    }
    int32_t src = x->index;
    bool same = x->rank == nv;
    for (int j = 0; same && j < nv; j++) same = x->shape[j] == v32[j];
    if (!same) {
        int32_t t = fx_new_tensor(c, base, "view", x->type, nv, v32, x->quant);
        if (t < 0 || fx_add_reshape(c, (*at)++, src, t) < 0) return -1;
        fx_dims(b1, sizeof b1, nv, v32);
        fx_note(c, "RESHAPE to %s, ", b1);
        src = t;
    }
    int32_t t = fx_new_tensor(c, base, "box", x->type, nv, vo32, x->quant);
    if (t < 0 || fx_add_strided_slice(c, (*at)++, src, t, fx_t(c, t)->name, nv, vb32, ve32, vs32) < 0) return -1;
    fx_dims(b1, sizeof b1, nv, vb32); fx_dims(b2, sizeof b2, nv, ve32); fx_dims(b3, sizeof b3, nv, vs32);
    fx_note(c, "STRIDED_SLICE begin %s end %s strides %s, ", b1, b2, b3);
    *out = t;
    return 1;
}

/* Emit the whole chain s from x into y. */
static int emit(gc_fix_ctx *c, int32_t *at, const gc_fix_tinfo *x, const chain *s, int32_t y, int *n_tr) {
    int32_t src;
    int rc = emit_box(c, at, x, s, fx_t(c, y)->name, &src);
    if (rc <= 0) return rc;
    /* P: A's axes the chain dropped (count 1) first, then the current tensor's */
    int P[MAXA], np = 0;
    bool in_cur[MAXA] = {false};
    for (int k = 0; k < s->n_cur; k++) in_cur[s->cur[k]] = true;
    for (int a = 0; a < s->r; a++) if (!in_cur[a]) P[np++] = a;
    for (int k = 0; k < s->n_cur; k++) P[np++] = s->cur[k];
    return emit_perm(c, at, src, s->r, s->count, P, y, n_tr);
}

/* ---- the site ------------------------------------------------------------------------ */

bool gc_fix_rank5_hoistable(gc_fix_ctx *c, int32_t op);   /* rank5_hoist.c */

/* The RESHAPE that starts a chain (rank <= 4 -> rank >= 5): quiet when every path from
 * its output runs through data movements to exits (which rewrite it) or into ops
 * rank5_hoist moves, else say where the rank >= 5 tensor goes. */
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
            int32_t code = fx_code(c, cons[i]);
            if (code == GC_OP_RESHAPE && fx_out(c, cons[i], 0) >= 0 && fx_t(c, fx_out(c, cons[i], 0))->rank <= 4) continue;
            if (gc_fix_rank5_is_move(code) && fx_in(c, cons[i], 0) == t) {
                const gc_op *co = fx_op(c, cons[i]);
                for (int32_t k = 0; k < co->n_outputs; k++) {
                    int32_t u = co->outputs[k];
                    if (u >= 0 && fx_t(c, u)->rank >= 5 && n < 32) stack[n++] = u;
                }
                continue;
            }
            if (gc_fix_rank5_hoistable(c, cons[i])) continue;
            return fx_decline(c, "the rank-%d tensor '%s' feeds %s '%s', not a chain of data movements back to rank <= 4",
                              fx_t(c, t)->rank, fx_t(c, t)->name, gc_op_name(c->m, fx_op(c, cons[i])), fx_name(c, cons[i]));
        }
    }
    return fx_pass_over(c);
}

static int apply(gc_fix_ctx *c, int32_t op) {
    int32_t code = fx_code(c, op);
    gc_fix_tinfo tin;
    if (!fx_info(c, fx_in(c, op, 0), &tin)) return fx_decline(c, "the chain has a tensor of rank > %d", GC_FIX_MAXR);
    const gc_op *o = fx_op(c, op);
    int max_out = 0;
    for (int32_t k = 0; k < o->n_outputs; k++) {
        int32_t t = o->outputs[k];
        if (t < 0) return fx_pass_over(c);
        if (fx_t(c, t)->rank > max_out) max_out = fx_t(c, t)->rank;
        if (fx_t(c, t)->rank > GC_FIX_MAXR) return fx_decline(c, "the chain has a tensor of rank > %d", GC_FIX_MAXR);
    }
    if (code == GC_OP_RESHAPE && tin.rank <= 4 && max_out >= 5) return start_of_chain(c, op);
    if (tin.rank < 5 || max_out > 4) return fx_pass_over(c);   /* inside a chain, or refused for another reason */
    if (!tin.is_static) return fx_decline(c, "dynamic shapes");
    for (int32_t k = 0; k < o->n_outputs; k++)
        if (!fx_is_static(c, o->outputs[k])) return fx_decline(c, "dynamic shapes");
    /* walk back to the RESHAPE that made the rank >= 5 tensor */
    int32_t path[32], out_of[32];
    int np = 0;
    int32_t t = tin.index, first = -1;
    for (;;) {
        int32_t p = fx_producer(c, t);
        if (p < 0) return fx_decline(c, "the rank-%d tensor '%s' is not made by a chain of data movements",
                                     fx_t(c, t)->rank, fx_t(c, t)->name);
        int32_t pc = fx_code(c, p);
        if (pc == GC_OP_RESHAPE) {
            int32_t x = fx_in(c, p, 0);
            if (x < 0 || fx_t(c, x)->rank > 4)
                return fx_decline(c, "the chain starts from a tensor of rank > 4 (RESHAPE '%s')", fx_name(c, p));
            first = p;
            break;
        }
        if (!gc_fix_rank5_is_move(pc))
            return fx_decline(c, "the rank-%d tensor '%s' comes from %s, not a chain of data movements", fx_t(c, t)->rank,
                              fx_t(c, t)->name, gc_op_name(c->m, fx_op(c, p)));
        if (np >= 32) return fx_decline(c, "chain too long");
        const gc_op *po = fx_op(c, p);
        int k = 0;
        while (k < po->n_outputs && po->outputs[k] != t) k++;
        path[np] = p; out_of[np] = k; np++;
        t = fx_in(c, p, 0);
        if (t < 0) return fx_decline(c, "missing input");
    }
    gc_fix_tinfo a, x;
    if (!fx_info(c, t, &a) || !fx_info(c, fx_in(c, first, 0), &x)) return fx_decline(c, "rank too high");
    if (!a.is_static || !x.is_static) return fx_decline(c, "dynamic shapes");
    chain s;
    memset(&s, 0, sizeof s);
    s.r = a.rank;
    for (int i = 0; i < a.rank; i++) {
        s.A[i] = a.shape[i]; s.begin[i] = 0; s.stride[i] = 1; s.count[i] = a.shape[i]; s.cur[i] = i;
    }
    s.n_cur = a.rank;
    int n_moves = 0;
    for (int i = np - 1; i >= 0; i--) {
        int rc = step(c, &s, path[i], out_of[i]);
        if (rc <= 0) return rc;
        n_moves++;
    }
    /* the exit: a RESHAPE, or a data movement per output */
    int n_outs = code == GC_OP_RESHAPE ? 1 : o->n_outputs;
    chain outs[16];
    int32_t ys[16];
    if (n_outs > 16) return fx_decline(c, "too many outputs");
    for (int k = 0; k < n_outs; k++) {
        outs[k] = s;
        ys[k] = fx_out(c, op, k);
        if (code != GC_OP_RESHAPE) {
            int rc = step(c, &outs[k], op, k);
            if (rc <= 0) return rc;
        } else {
            int64_t cnt = 1;
            for (int i = 0; i < s.n_cur; i++) cnt *= s.count[s.cur[i]];
            if (cnt != fx_numel(fx_t(c, ys[k]))) return fx_decline(c, "the RESHAPE changes the element count");
        }
    }
    char opname[32];
    snprintf(opname, sizeof opname, "%s", gc_op_name(c->m, fx_op(c, op)));
    fx_remove_op(c, op);                 /* after `first`: `first` keeps its index */
    int32_t at = first;
    int total_tr = 0, emitted = 0;
    for (int k = 0; k < n_outs; k++) {
        if (fx_uses(c, ys[k]) == 0) continue;   /* an unused UNPACK output */
        if (emitted) fx_note(c, "; ");
        if (n_outs > 1) fx_note(c, "output %d: ", k);
        int n_tr = 0;
        int rc = emit(c, &at, &x, &outs[k], ys[k], &n_tr);
        if (rc <= 0) return rc;
        total_tr += n_tr;
        emitted++;
    }
    fx_note(c, " (rank-%d chain of %d data movement(s) and the %s folded)", a.rank, n_moves, opname);
    fx_remove_dead(c, tin.index);
    (void)total_tr;
    return 1;
}

const gc_fix_pass gc_fix_rank5_fold = {
    .id = "rank5_fold",
    .fix_id = "fix.rank5",
    .summary = "RESHAPE(->rank>=5) then TRANSPOSE/SLICE/STRIDED_SLICE/GATHER/UNPACK/SQUEEZE back to rank<=4 -> "
               "one STRIDED_SLICE + the same permutation on rank <= 4",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
