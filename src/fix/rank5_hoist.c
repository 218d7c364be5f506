/* rank5_hoist.c — pass rank5_hoist [fix.rank5]
 *
 * rank5_fold folds chains of data movements between a RESHAPE to rank >= 5 and the way
 * back to rank <= 4. Real chains also hold ops that compute, but that do not care how
 * the leading axes are grouped: Swin's window reverse applies the attention output
 * projection (FULLY_CONNECTED on the last axis) to the rank-6 [1,nH,nW,ws,ws,C] tensor,
 * and its shifted-window mask is added as [1,nW,1,N,N] to [1,nW,heads,N,N] scores.
 * Such an op gives the same elements on any grouping of the axes its operands agree
 * on, so it can run before the RESHAPE, on a rank <= 4 view:
 *
 *     X -RESHAPE-> A (rank >= 5) -F-> Y     becomes     X -[RESHAPE]-> W -F-> W' -RESHAPE-> Y
 *
 * and the RESHAPE to rank >= 5 moves below F, where rank5_fold takes the rest of the
 * chain. Which ops, and which view W:
 *   * elementwise unary ops (GELU, RELU, LOGISTIC, TANH, EXP, CAST, ...): W = X;
 *   * last-axis ops (FULLY_CONNECTED, SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION): W keeps
 *     A's last axis whole: X when X's last axis is A's, else X's leading axes with the
 *     trailing ones that make up A's last axis merged, else [rows, A's last axis];
 *     FULLY_CONNECTED's weights and bias are unchanged;
 *   * elementwise binary ops (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
 *     POW, FLOOR_DIV, FLOOR_MOD) with numpy broadcasting: W is a grouping of the output's
 *     non-unit axes into <= 4 runs on which every operand is either whole or broadcast
 *     (size 1) — the shape of the operand's own rank <= 4 source when that grouping
 *     works, else the coarsest one (for the classic delegate, whose elementwise kernels
 *     want batch 1, a 4-D view with a leading 1). Each operand takes its view of W: a constant gets a
 *     new tensor over the same buffer (same bytes, fewer axes; a one-element constant of
 *     rank <= 4 stays as it is), a rank <= 4 runtime tensor or the source of a RESHAPE
 *     to rank >= 5 gets a RESHAPE to the view (none when the shape already is it).
 * Precondition: F has an input of rank >= 5 and (but for FULLY_CONNECTED without
 *               keep_num_dims) its output has rank >= 5; every runtime operand of rank
 *               >= 5 is made by a RESHAPE from rank <= 4; static shapes; F has no
 *               fused activation that depends on the axes (none does).
 * Exactness:    bit-exact: every output element is computed from the same input
 *               elements by the same kernel arithmetic (an elementwise op per element,
 *               FULLY_CONNECTED / SOFTMAX per row of the last axis); the reference
 *               interpreter's kernels do not depend on how rows are grouped.
 */
#include "fix_int.h"

#include <stdio.h>
#include <string.h>

#define MAXA 8

static const int32_t anchors[] = {
    GC_OP_ABS, GC_OP_CEIL, GC_OP_COS, GC_OP_ELU, GC_OP_EXP, GC_OP_FLOOR, GC_OP_GELU, GC_OP_HARD_SWISH,
    GC_OP_LEAKY_RELU, GC_OP_LOG, GC_OP_LOGISTIC, GC_OP_NEG, GC_OP_RELU, GC_OP_RELU6, GC_OP_RELU_N1_TO_1,
    GC_OP_RELU_0_TO_1, GC_OP_ROUND, GC_OP_RSQRT, GC_OP_SIN, GC_OP_SQRT, GC_OP_SQUARE, GC_OP_TANH, GC_OP_CAST,
    GC_OP_SIGN,
    GC_OP_ADD, GC_OP_SUB, GC_OP_MUL, GC_OP_DIV, GC_OP_MAXIMUM, GC_OP_MINIMUM, GC_OP_SQUARED_DIFFERENCE, GC_OP_POW,
    GC_OP_FLOOR_DIV, GC_OP_FLOOR_MOD,
    GC_OP_FULLY_CONNECTED, GC_OP_SOFTMAX, GC_OP_LOG_SOFTMAX, GC_OP_L2_NORMALIZATION,
    -1
};

enum { K_NONE, K_UNARY, K_BINARY, K_LAST };

static int kind_of(int32_t code) {
    switch (code) {
    case GC_OP_FULLY_CONNECTED: case GC_OP_SOFTMAX: case GC_OP_LOG_SOFTMAX: case GC_OP_L2_NORMALIZATION:
        return K_LAST;
    case GC_OP_ADD: case GC_OP_SUB: case GC_OP_MUL: case GC_OP_DIV: case GC_OP_MAXIMUM: case GC_OP_MINIMUM:
    case GC_OP_SQUARED_DIFFERENCE: case GC_OP_POW: case GC_OP_FLOOR_DIV: case GC_OP_FLOOR_MOD:
        return K_BINARY;
    default:
        for (const int32_t *a = anchors; *a >= 0; a++) if (*a == code) return K_UNARY;
        return K_NONE;
    }
}

/* rank5_fold asks: would this pass take op `op` (a consumer of a rank >= 5 tensor)? */
bool gc_fix_rank5_hoistable(gc_fix_ctx *c, int32_t op);
bool gc_fix_rank5_hoistable(gc_fix_ctx *c, int32_t op) {
    int k = kind_of(fx_code(c, op));
    if (k == K_NONE) return false;
    int n = k == K_BINARY ? 2 : 1;
    for (int i = 0; i < n; i++) {
        int32_t t = fx_in(c, op, i);
        if (t < 0 || fx_t(c, t)->rank < 5) continue;
        if (fx_is_const(c, t)) continue;
        int32_t p = fx_producer(c, t);
        if (p < 0 || fx_code(c, p) != GC_OP_RESHAPE || fx_in(c, p, 0) < 0 || fx_t(c, fx_in(c, p, 0))->rank > 4)
            return false;
    }
    return true;
}

/* the rank <= 4 source of a rank >= 5 runtime tensor made by RESHAPE, else -1 */
static int32_t source_of(gc_fix_ctx *c, int32_t t) {
    int32_t p = fx_producer(c, t);
    if (p < 0 || fx_code(c, p) != GC_OP_RESHAPE) return -1;
    int32_t x = fx_in(c, p, 0);
    return x >= 0 && fx_t(c, x)->rank <= 4 && fx_is_static(c, x) ? x : -1;
}

/* A tensor holding `t`'s elements with shape (rank, shape): t itself, a new constant
 * tensor over t's buffer, or a RESHAPE of t (or of its rank <= 4 source). -1 oom or not
 * possible (declined). */
static int32_t view_of(gc_fix_ctx *c, int32_t *at, int32_t t, int rank, const int32_t *shape, const char *base,
                       const char *what) {
    const gc_tensor *x = fx_t(c, t);
    bool same = x->rank == rank;
    for (int k = 0; same && k < rank; k++) same = x->shape[k] == shape[k];
    if (same) return t;
    if (fx_is_const(c, t)) {
        if (fx_numel(x) == 1 && x->rank <= 4) return t;
        char name[600];
        snprintf(name, sizeof name, "%s/gc_fix/%s", base, what);
        uint32_t buf = x->buffer;
        int type = x->type;
        const gc_quant *q = x->quant;
        int32_t v = gc_sg_add_tensor(c->m, c->sg, name, type, rank, shape, buf);
        if (v < 0) { c->oom = true; return -1; }
        fx_t(c, v)->quant = (gc_quant *)q;
        return v;
    }
    int32_t src = t;
    if (x->rank > 4) {
        src = source_of(c, t);
        if (src < 0) return -1;
        const gc_tensor *s = fx_t(c, src);
        bool ss = s->rank == rank;
        for (int k = 0; ss && k < rank; k++) ss = s->shape[k] == shape[k];
        if (ss) return src;
    }
    const gc_tensor *s = fx_t(c, src);
    int32_t v = fx_new_tensor(c, base, what, s->type, rank, shape, s->quant);
    if (v < 0 || fx_add_reshape(c, (*at)++, src, v) < 0) return -1;
    return v;
}

/* Is W (rank nw) a grouping of O's non-unit axes on which every operand (aligned to
 * O's rank) is whole or broadcast? Fills each operand's view. */
static bool fits(int r, const int32_t *O, int n_ops, int32_t al[][MAXA], int nw, const int32_t *W,
                 int32_t views[][MAXA]) {
    int a = 0;
    for (int j = 0; j < nw; j++) {
        int64_t p = 1;
        int st[4] = { -1, -1, -1, -1 };     /* per operand: -1 unknown, 0 broadcast, 1 whole */
        while (p < W[j]) {
            while (a < r && O[a] == 1) a++;
            if (a >= r) return false;
            p *= O[a];
            for (int i = 0; i < n_ops; i++) {
                int s = al[i][a] == O[a] ? 1 : al[i][a] == 1 ? 0 : -2;
                if (s == -2 || (st[i] >= 0 && st[i] != s)) return false;
                st[i] = s;
            }
            a++;
        }
        if (p != W[j]) return false;
        for (int i = 0; i < n_ops; i++) views[i][j] = st[i] == 0 ? 1 : W[j];
    }
    while (a < r && O[a] == 1) a++;
    return a == r;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    int32_t code = fx_code(c, op);
    int kind = kind_of(code);
    if (kind == K_NONE) return fx_pass_over(c);
    gc_fix_tinfo y;
    if (!fx_info(c, fx_out(c, op, 0), &y)) return fx_pass_over(c);
    const gc_op *o = fx_op(c, op);
    if (o->n_outputs != 1) return fx_pass_over(c);
    int n_operands = kind == K_BINARY ? 2 : 1;
    bool any5 = false;
    for (int i = 0; i < n_operands; i++) {
        int32_t t = fx_in(c, op, i);
        if (t < 0) return fx_pass_over(c);
        if (fx_t(c, t)->rank >= 5) any5 = true;
    }
    if (!any5) return fx_pass_over(c);
    bool keep_dims = true;
    if (code == GC_OP_FULLY_CONNECTED)
        keep_dims = gc_opt_int(&o->opt, GC_O_FullyConnectedOptions_keep_num_dims) != 0;
    if (keep_dims && y.rank < 5) return fx_pass_over(c);
    if (!y.is_static) return fx_decline(c, "dynamic shapes");
    for (int i = 0; i < n_operands; i++) {
        int32_t t = fx_in(c, op, i);
        if (!fx_is_static(c, t)) return fx_decline(c, "dynamic shapes");
        if (fx_t(c, t)->rank > MAXA) return fx_decline(c, "rank > %d", MAXA);
        if (fx_t(c, t)->rank >= 5 && !fx_is_const(c, t) && source_of(c, t) < 0)
            return fx_decline(c, "the rank-%d operand '%s' is not made by a RESHAPE from rank <= 4",
                              fx_t(c, t)->rank, fx_t(c, t)->name);
    }
    int32_t in0 = fx_in(c, op, 0);
    int32_t x0 = fx_t(c, in0)->rank >= 5 && !fx_is_const(c, in0) ? source_of(c, in0) : -1;
    int32_t W[MAXA], views[2][MAXA];
    int nw = 0;
    if (kind == K_UNARY) {
        if (x0 < 0) return fx_decline(c, "the rank-%d input is a constant", fx_t(c, in0)->rank);
        const gc_tensor *xs = fx_t(c, x0);
        nw = xs->rank;
        for (int k = 0; k < nw; k++) W[k] = views[0][k] = xs->shape[k];
    } else if (kind == K_LAST) {
        if (x0 < 0) return fx_decline(c, "the rank-%d input is not made by a RESHAPE from rank <= 4", fx_t(c, in0)->rank);
        const gc_tensor *a = fx_t(c, in0), *xs = fx_t(c, x0);
        int64_t last = a->shape[a->rank - 1], total = fx_numel(a), suffix = 1;
        int k = xs->rank;
        while (k > 0 && suffix < last) suffix *= xs->shape[--k];
        if (suffix == last && k > 0) {
            nw = k + 1;
            for (int i = 0; i < k; i++) W[i] = xs->shape[i];
            W[k] = (int32_t)last;
        } else {
            nw = 2;
            W[0] = (int32_t)(total / last);
            W[1] = (int32_t)last;
        }
        for (int i = 0; i < nw; i++) views[0][i] = W[i];
    } else {
        /* align both operands to the output's rank */
        int r = y.rank;
        int32_t al[2][MAXA];
        for (int i = 0; i < 2; i++) {
            const gc_tensor *t = fx_t(c, fx_in(c, op, i));
            int off = r - t->rank;
            if (off < 0) return fx_decline(c, "an operand has a higher rank than the output");
            for (int a = 0; a < r; a++) al[i][a] = a < off ? 1 : t->shape[a - off];
        }
        bool ok = false, classic = c->opts->target == GC_TARGET_CLASSIC;
        for (int i = 0; i < 2 && !ok; i++) {       /* an operand's own source as the view */
            int32_t t = fx_in(c, op, i);
            if (fx_t(c, t)->rank < 5 || fx_is_const(c, t)) continue;
            const gc_tensor *xs = fx_t(c, source_of(c, t));
            if (fx_numel(xs) != fx_numel(fx_t(c, y.index))) continue;
            if (classic && (xs->rank != 4 || xs->shape[0] != 1)) continue;   /* batch 1 only there */
            nw = xs->rank;
            for (int k = 0; k < nw; k++) W[k] = xs->shape[k];
            ok = fits(r, y.shape, 2, al, nw, W, views);
        }
        if (!ok) {                                 /* the coarsest grouping */
            nw = 0;
            int prev[2] = { -1, -1 };
            for (int a = 0; a < r; a++) {
                if (y.shape[a] == 1) continue;
                int s0 = al[0][a] == y.shape[a], s1 = al[1][a] == y.shape[a];
                if (nw > 0 && s0 == prev[0] && s1 == prev[1]) { W[nw - 1] *= y.shape[a]; continue; }
                if (nw == MAXA) return fx_decline(c, "too many axes");
                W[nw++] = y.shape[a];
                prev[0] = s0; prev[1] = s1;
            }
            if (nw == 0) W[nw++] = 1;
            if (nw > 4)
                return fx_decline(c, "the operands' broadcast pattern needs %d axes (at most 4 on the GPU)", nw);
            while (classic && nw < 4) {            /* classic: 4-D, batch 1 */
                for (int j = nw; j > 0; j--) W[j] = W[j - 1];
                W[0] = 1;
                nw++;
            }
            ok = fits(r, y.shape, 2, al, nw, W, views);
            if (!ok) return fx_decline(c, "the operands do not broadcast axis by axis");
        }
    }
    /* copy what the new op needs before the old one goes */
    int32_t ins[8];
    int n_in = o->n_inputs;
    if (n_in > 8) return fx_decline(c, "too many inputs");
    for (int i = 0; i < n_in; i++) ins[i] = o->inputs[i];
    gc_options opt = o->opt, opt2 = o->opt2;
    int32_t version = gc_op_code(c->m, o)->version;
    int32_t old_in[2] = { ins[0], n_operands > 1 ? ins[1] : -1 };
    fx_remove_op(c, op);
    int32_t at = op;
    char what[16];
    for (int i = 0; i < n_operands; i++) {
        snprintf(what, sizeof what, "view%d", i);
        int32_t v = view_of(c, &at, ins[i], nw, views[i], y.name, what);
        if (v < 0) return c->oom ? -1 : fx_decline(c, "operand %d has no rank-%d view", i, nw);
        ins[i] = v;
    }
    int32_t out = y.index;
    int32_t wo[MAXA];
    int nwo = nw;
    for (int k = 0; k < nw; k++) wo[k] = W[k];
    if (kind == K_LAST) wo[nw - 1] = y.shape[y.rank - 1];
    bool direct = code == GC_OP_FULLY_CONNECTED && !keep_dims;
    if (!direct) {
        out = fx_new_tensor(c, y.name, "hoisted", y.type, nwo, wo, y.quant);
        if (out < 0) return -1;
    }
    int32_t k = fx_add_op(c, at++, code, version, n_in, ins, 1, &out);
    if (k < 0) return -1;
    fx_op(c, k)->opt = opt;
    fx_op(c, k)->opt2 = opt2;
    char d1[96];
    fx_dims(d1, sizeof d1, nw, W);
    fx_note(c, "%s on the rank-%d view %s", gc_op_name(c->m, fx_op(c, k)), nw, d1);
    if (!direct) {
        if (fx_add_reshape(c, at, out, y.index) < 0) return -1;
        fx_dims(d1, sizeof d1, y.rank, y.shape);
        fx_note(c, ", then RESHAPE to %s", d1);
    }
    for (int i = 0; i < n_operands; i++) if (old_in[i] >= 0) fx_remove_dead(c, old_in[i]);
    return 1;
}

const gc_fix_pass gc_fix_rank5_hoist = {
    .id = "rank5_hoist",
    .fix_id = "fix.rank5",
    .summary = "elementwise / last-axis op (FULLY_CONNECTED, SOFTMAX) on a RESHAPE to rank>=5 -> the op on a "
               "rank<=4 view first, the RESHAPE after it",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
