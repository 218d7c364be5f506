/* bmm_adj_explicit.c — pass bmm_adj_explicit [fix.bmm.adj_explicit]
 *
 * Rewrite:      BATCH_MATMUL(x, y) with adj_x and/or adj_y  ->  the adjoint operand
 *               transposed explicitly (last two axes swapped: a TRANSPOSE op for a
 *               runtime operand, the constant's data transposed for a constant one),
 *               then BATCH_MATMUL without adj flags. The classic delegate ignores the
 *               flags and multiplies the wrong orientation without an error (LiteRT
 *               #8913; the checker's classic.bmm_adj_ignored risk).
 * Precondition: the node carries classic.bmm_adj_ignored; the transposed operand has
 *               rank 2..4, a static shape and a fixed-size element type; a constant
 *               operand is transposed in place of the original (a new constant of the
 *               same size).
 * Exactness:    bit-exact (the same products summed in the same order).
 */
#include "fix_int.h"

#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_BATCH_MATMUL, -1 };

/* a new tensor holding operand t with its last two axes swapped; -1 oom, -2 declined */
static int32_t swapped(gc_fix_ctx *c, int32_t *at, const gc_fix_tinfo *t, const char *base, const char *what) {
    int32_t shape[GC_FIX_MAXR], perm[GC_FIX_MAXR];
    int r = t->rank;
    for (int d = 0; d < r; d++) { shape[d] = t->shape[d]; perm[d] = d; }
    shape[r - 2] = t->shape[r - 1]; shape[r - 1] = t->shape[r - 2];
    perm[r - 2] = r - 1; perm[r - 1] = r - 2;
    if (t->is_const) {
        uint64_t nb = 0;
        const uint8_t *src = fx_data(c, t->index, &nb);
        size_t es = (size_t)gc_type_size(t->type);
        int64_t n = fx_numel(fx_t(c, t->index));
        if (!src || !fx_plain_type(t->type) || n <= 0 || nb < (uint64_t)n * es) return -2;
        uint8_t *dst = malloc((size_t)n * es);
        if (!dst) return -1;
        int64_t R = t->shape[r - 2], C = t->shape[r - 1], mats = n / (R * C);
        for (int64_t b = 0; b < mats; b++)
            for (int64_t i = 0; i < R; i++)
                for (int64_t j = 0; j < C; j++)
                    memcpy(dst + (size_t)((b * C + j) * R + i) * es, src + (size_t)((b * R + i) * C + j) * es, es);
        int32_t k = fx_new_const(c, base, what, t->type, r, shape, dst, (uint64_t)n * es, t->quant);
        free(dst);
        return k;
    }
    int32_t k = fx_new_tensor(c, base, what, t->type, r, shape, t->quant);
    if (k < 0 || fx_add_transpose(c, (*at)++, t->index, k, fx_t(c, k)->name, r, perm) < 0) return -1;
    return k;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    int64_t ax = gc_opt_int(&o->opt, GC_O_BatchMatMulOptions_adj_x), ay = gc_opt_int(&o->opt, GC_O_BatchMatMulOptions_adj_y);
    if (!ax && !ay) return fx_pass_over(c);
    if (o->n_inputs != 2 || o->n_outputs != 1) return fx_decline(c, "BATCH_MATMUL needs 2 inputs and 1 output");
    gc_fix_tinfo x, y, out;
    if (!fx_info(c, o->inputs[0], &x) || !fx_info(c, o->inputs[1], &y) || !fx_info(c, o->outputs[0], &out))
        return fx_decline(c, "rank > %d", GC_FIX_MAXR);
    if ((ax && (x.rank < 2 || x.rank > 4 || !x.is_static)) || (ay && (y.rank < 2 || y.rank > 4 || !y.is_static)))
        return fx_decline(c, "the adjoint operand needs a static rank of 2..4");
    int64_t aq = gc_opt_int(&o->opt, GC_O_BatchMatMulOptions_asymmetric_quantize_inputs);
    int32_t version = gc_op_code(c->m, o)->version;
    fx_remove_op(c, op);
    int32_t at = op, in[2] = { x.index, y.index };
    if (ax && (in[0] = swapped(c, &at, &x, out.name, "x_t")) < 0)
        return in[0] == -2 ? fx_decline(c, "the constant operand cannot be transposed") : -1;
    if (ay && (in[1] = swapped(c, &at, &y, out.name, "y_t")) < 0)
        return in[1] == -2 ? fx_decline(c, "the constant operand cannot be transposed") : -1;
    int32_t k = fx_add_op(c, at, GC_OP_BATCH_MATMUL, version, 2, in, 1, &out.index);
    if (k < 0) return -1;
    if (aq) gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_BatchMatMulOptions_asymmetric_quantize_inputs, aq);
    fx_note(c, "%s%s%sBATCH_MATMUL without adj flags", ax ? "x transposed, " : "", ay ? "y transposed, " : "",
            (ax && x.is_const) || (ay && y.is_const) ? "(constant data transposed) " : "");
    return 1;
}

const gc_fix_pass gc_fix_bmm_adj_explicit = {
    .id = "bmm_adj_explicit",
    .fix_id = "fix.bmm.adj_explicit",
    .summary = "BATCH_MATMUL adj_x/adj_y -> explicit transpose of the operand, flags cleared",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .risk = "classic.bmm_adj_ignored",
    .apply = apply,
};
