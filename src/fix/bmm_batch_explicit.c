/* bmm_batch_explicit.c — pass bmm_batch_explicit [fix.bmm.batch_explicit]
 *
 * Measured on an NVIDIA H200 (driver 580.159.04), LiteRT GPU accelerator (ML Drift),
 * native libLiteRt 2.3.0 and LiteRT.js 2.5.3 with identical numbers, fp32 and fp16,
 * single-op models of tools/sweep fully delegated, GPU vs CPU of the same runtime:
 * BATCH_MATMUL whose batch dims are not equal is wrong — lhs [2,4,8] x rhs [1,8,6]
 * (corr 0.47), lhs [1,4,8] x rhs [3,8,6] (corr 0.99..0.11), lhs [2,3,4,8] x rhs [3,8,6]
 * (corr 0.38), lhs [2,4,8] x runtime rhs [8,6] (corr 0.47), and a constant rank-2 rhs
 * with adj_x or adj_y set (corr 0.54 / -0.02 / 0.28). Right: equal batch dims for every
 * adj_x/adj_y combination (lhs [2,4,8] x rhs [2,8,6]; [2,3,4,8] x [2,3,8,6]) and a
 * constant rank-2 rhs without adjoints. (Sweep cases bmm_rhs_b1_*, bmm_lhs_b1_*,
 * bmm_rank4_rhs_rank3_*, bmm_rhs_rank2_*, bmm_const_rhs_rank2_ax*_ay* wrong; bmm_b2_*,
 * bmm_rank4_* right.)
 *
 * Rewrite:      BATCH_MATMUL(x [bx.., M, K], y [by.., K, N])  ->  both operands with the
 *               output's batch dims, explicitly:
 *                 1. the lower-rank operand aligned to the output rank R with leading
 *                    1s (NumPy's right alignment of the batch dims);
 *                 2. where one side's batch dim is 1 and the other's is B > 1, that
 *                    operand repeated B times along the axis: a runtime operand by
 *                    [RESHAPE] + TILE (constant multiples [m0,..,1,1]); a constant one
 *                    by a new constant holding the data repeated (and reshaped).
 *               then BATCH_MATMUL with the same adj_x / adj_y / asymmetric flag.
 * Precondition: FLOAT32 operands and output without quantization; static shapes; both
 *               operands of rank >= 2 and output rank R <= 4; batch dims that broadcast
 *               (each pair equal, or one of them 1) to the output's. A constant rank-2
 *               y without adj flags is left alone (measured right); so are equal batch
 *               dims. A repeated constant must fit opts.max_const_bytes. Applied wherever
 *               it holds (scope "any"): the GPU accepts the node, its numbers are what
 *               is wrong.
 * Exactness:    bit-exact (every output element is the same dot product of the same
 *               rows and columns, summed in the same order; TILE and RESHAPE copy).
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_BATCH_MATMUL, -1 };

/* Operand t made to shape `want` (rank R: t right-aligned, each batch dim 1 or equal):
 * the new tensor's index, t itself when nothing changes; -1 out of memory, -2 a
 * constant over the size limit. */
static int32_t expand(gc_fix_ctx *c, int32_t *at, const gc_fix_tinfo *t, int R, const int32_t *want, const char *base,
                      const char *what, char *note, size_t nn) {
    int32_t al[GC_FIX_MAXR], mult[GC_FIX_MAXR];
    bool grows = false;
    for (int d = 0; d < R; d++) {
        int k = d - (R - t->rank);
        al[d] = k >= 0 ? t->shape[k] : 1;
        mult[d] = al[d] == want[d] ? 1 : want[d];
        grows |= mult[d] != 1;
    }
    if (!grows && t->rank == R) return t->index;
    char dims[64];
    fx_dims(dims, sizeof dims, R, want);
    if (t->is_const) {
        /* repeat the constant: out[i0..i_{R-1}] = src[i_d mod al[d]] (row-major) */
        uint64_t nb = 0;
        const uint8_t *src = fx_data(c, t->index, &nb);
        int64_t n_in = fx_numel(fx_t(c, t->index)), n_out = 1, cap = (int64_t)(c->opts->max_const_bytes / 4);
        for (int d = 0; d < R; d++) {
            if (want[d] <= 0 || n_out > cap / want[d]) return -2;   /* over the limit (no overflow) */
            n_out *= want[d];
        }
        if (!src || n_in <= 0 || nb < (uint64_t)n_in * 4) return -2;
        float *dst = malloc((size_t)n_out * 4);
        if (!dst) return -1;
        int64_t idx[GC_FIX_MAXR] = { 0 };
        for (int64_t i = 0; i < n_out; i++) {
            int64_t s = 0;
            for (int d = 0; d < R; d++) s = s * al[d] + (al[d] == 1 ? 0 : idx[d]);
            memcpy(&dst[i], src + (size_t)s * 4, 4);
            for (int d = R - 1; d >= 0; d--) { if (++idx[d] < want[d]) break; idx[d] = 0; }
        }
        int32_t k = fx_new_const(c, base, what, t->type, R, want, dst, (uint64_t)n_out * 4, NULL);
        free(dst);
        snprintf(note, nn, "%s constant repeated to %s", what, dims);
        return k;
    }
    int32_t src = t->index;
    if (t->rank != R) {
        char w2[64];
        snprintf(w2, sizeof w2, "%s_aligned", what);
        src = grows ? fx_new_tensor(c, base, w2, t->type, R, al, NULL)
                    : fx_new_tensor(c, base, what, t->type, R, want, NULL);
        if (src < 0 || fx_add_reshape(c, (*at)++, t->index, src) < 0) return -1;
        if (!grows) { snprintf(note, nn, "%s RESHAPEd to %s", what, dims); return src; }
    }
    int32_t y = fx_new_tensor(c, base, what, t->type, R, want, NULL);
    int32_t m = y >= 0 ? fx_const_i32(c, base, "multiples", R, mult) : -1;
    if (m < 0) return -1;
    int32_t in[2] = { src, m };
    if (fx_add_op(c, (*at)++, GC_OP_TILE, fx_version_for(GC_OP_TILE, t->type, R), 2, in, 1, &y) < 0) return -1;
    char md[64];
    fx_dims(md, sizeof md, R, mult);
    snprintf(note, nn, "%s %sTILE multiples %s -> %s", what, t->rank != R ? "RESHAPE + " : "", md, dims);
    return y;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs != 2 || o->n_outputs != 1) return fx_pass_over(c);
    gc_fix_tinfo x, y, out;
    if (!fx_info(c, o->inputs[0], &x) || !fx_info(c, o->inputs[1], &y) || !fx_info(c, o->outputs[0], &out))
        return fx_pass_over(c);
    int64_t ax = gc_opt_int(&o->opt, GC_O_BatchMatMulOptions_adj_x), ay = gc_opt_int(&o->opt, GC_O_BatchMatMulOptions_adj_y);
    int64_t aq = gc_opt_int(&o->opt, GC_O_BatchMatMulOptions_asymmetric_quantize_inputs);
    if (x.rank < 2 || y.rank < 2) return fx_pass_over(c);
    int R = x.rank > y.rank ? x.rank : y.rank;
    /* equal batch dims (measured right), and a constant rank-2 y without adjoints */
    bool equal = x.rank == y.rank;
    for (int d = 0; d < x.rank - 2 && equal; d++) equal = x.shape[d] == y.shape[d];
    if (equal) return fx_pass_over(c);
    if (y.rank == 2 && y.is_const && !ax && !ay) return fx_pass_over(c);
    if (x.is_const && y.is_const) return fx_pass_over(c);   /* const_fold's */
    if (x.type != GC_T_FLOAT32 || y.type != GC_T_FLOAT32 || out.type != GC_T_FLOAT32 || fx_quantized(x.quant) ||
        fx_quantized(y.quant) || fx_quantized(out.quant))
        return fx_decline(c, "only float32 BATCH_MATMUL without quantization is rewritten");
    if (!x.is_static || !y.is_static || !out.is_static) return fx_decline(c, "dynamic shape");
    if (R > 4 || out.rank != R) return fx_decline(c, "rank %d after alignment (output rank %d): only rank <= 4", R, out.rank);
    int32_t wx[GC_FIX_MAXR], wy[GC_FIX_MAXR];
    for (int d = 0; d < R - 2; d++) {
        int kx = d - (R - x.rank), ky = d - (R - y.rank);
        int32_t bx = kx >= 0 ? x.shape[kx] : 1, by = ky >= 0 ? y.shape[ky] : 1;
        if (bx != by && bx != 1 && by != 1)
            return fx_decline(c, "batch dim %d: %d and %d do not broadcast", d, (int)bx, (int)by);
        int32_t b = bx > by ? bx : by;
        if (out.shape[d] != b) return fx_decline(c, "output batch dim %d is %d, not %d", d, (int)out.shape[d], (int)b);
        wx[d] = wy[d] = b;
    }
    wx[R - 2] = x.shape[x.rank - 2]; wx[R - 1] = x.shape[x.rank - 1];
    wy[R - 2] = y.shape[y.rank - 2]; wy[R - 1] = y.shape[y.rank - 1];
    int32_t version = gc_op_code(c->m, o)->version;
    fx_remove_op(c, op);
    int32_t at = op;
    char nx[512] = "", ny[512] = "";
    int32_t in[2];
    if ((in[0] = expand(c, &at, &x, R, wx, out.name, "x_batch", nx, sizeof nx)) < 0 ||
        (in[1] = expand(c, &at, &y, R, wy, out.name, "y_batch", ny, sizeof ny)) < 0) {
        if (in[0] == -2 || in[1] == -2)
            return fx_decline(c, "the repeated constant operand would exceed the %llu-byte limit (or its data is short)",
                              (unsigned long long)c->opts->max_const_bytes);
        return -1;
    }
    int32_t k = fx_add_op(c, at, GC_OP_BATCH_MATMUL, version, 2, in, 1, &out.index);
    if (k < 0) return -1;
    if (ax) gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_BatchMatMulOptions_adj_x, ax);
    if (ay) gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_BatchMatMulOptions_adj_y, ay);
    if (aq) gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_BatchMatMulOptions_asymmetric_quantize_inputs, aq);
    fx_note(c, "%s%s%s; BATCH_MATMUL on equal batch dims%s%s", nx, nx[0] && ny[0] ? ", " : "", ny,
            ax ? " adj_x" : "", ay ? " adj_y" : "");
    return 1;
}

const gc_fix_pass gc_fix_bmm_batch_explicit = {
    .id = "bmm_batch_explicit",
    .fix_id = "fix.bmm.batch_explicit",
    .summary = "BATCH_MATMUL with unequal batch dims -> both operands at the output's batch dims "
               "([RESHAPE] + TILE, or a repeated constant)",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_ANY,
    .apply = apply,
};
