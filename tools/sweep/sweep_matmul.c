/* sweep_matmul.c — FULLY_CONNECTED and BATCH_MATMUL cases (sweep.h).
 *
 * FULLY_CONNECTED: x [..., 16] (ranks 2-4), weights [units=8, 16] (OI), bias [8] or
 * absent (input -1). keep_num_dims=0 flattens to [numel/16, 8]; keep_num_dims=1 keeps the
 * leading dims: [..., 8] (op version 5, as the converter writes it).
 * BATCH_MATMUL: lhs [..., M=4, K=8] (adj_x: stored [..., K, M]) times rhs [..., K, N=6]
 * (adj_y: stored [..., N, K]); the batch dims broadcast NumPy-style; out [..., M, N].
 */
#include "sweep.h"

#include <stdio.h>

#include <string.h>

static void fc(sw_ctx *x, int rank, const int32_t *shape, bool keep, bool bias, bool runtime_w, int act, const char *tag) {
    const int K = 16, U = 8;
    int32_t oshape[4];
    int orank;
    int64_t rows = 1;
    for (int i = 0; i < rank - 1; i++) rows *= shape[i];
    if (keep) { orank = rank; memcpy(oshape, shape, sizeof(int32_t) * (size_t)rank); oshape[rank - 1] = U; }
    else { orank = 2; oshape[0] = (int32_t)rows; oshape[1] = U; }
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, rank, shape);
    int32_t w = runtime_w ? sw_t(&c, "weights", SW_F32, SW_L(U, K)) : sw_const_f32(&c, "weights", SW_L(U, K));
    int32_t b = bias ? sw_const_f32(&c, "bias", SW_L(U)) : -1;
    int32_t y = sw_t(&c, "y", SW_F32, orank, oshape);
    int32_t op = sw_op(&c, GC_OP_FULLY_CONNECTED, keep ? 5 : 1, SW_L(in, w, b), SW_L(y));
    if (keep) sw_opt(&c, op, GC_O_FullyConnectedOptions_keep_num_dims, 1);
    if (act) sw_opt(&c, op, GC_O_FullyConnectedOptions_fused_activation_function, act);
    sw_attr_i(&c, "input_rank", rank);
    sw_attr_shape(&c, "input_shape", rank, shape);
    sw_attr_b(&c, "keep_num_dims", keep);
    sw_attr_b(&c, "bias", bias);
    sw_attr_b(&c, "runtime_weights", runtime_w);
    sw_attr_s(&c, "activation", act == SW_ACT_RELU ? "RELU" : "NONE");
    char what[200], sh[64] = "";
    size_t n = 0;
    for (int i = 0; i < rank; i++) n += (size_t)snprintf(sh + n, sizeof sh - n, "%s%d", i ? "x" : "", shape[i]);
    snprintf(what, sizeof what, "FULLY_CONNECTED [%s] x [%d,%d]%s keep_num_dims=%d%s%s", sh, U, K, bias ? " + bias" : "",
             keep, runtime_w ? ", runtime weights" : "", act ? ", RELU" : "");
    sw_emit(x, &c, "fully_connected", "FULLY_CONNECTED", what, "fc_r%d_%s_keep%d%s%s", rank, sh, keep, bias ? "" : "_nobias", tag);
}

void sw_family_fully_connected(sw_ctx *x) {
    static const int32_t s2[] = { 3, 16 }, s3[] = { 2, 3, 16 }, s4[] = { 1, 2, 3, 16 }, s4b[] = { 2, 3, 4, 16 };
    for (int keep = 0; keep <= 1; keep++)
        for (int bias = 1; bias >= 0; bias--) {
            fc(x, 2, s2, keep, bias, false, 0, "");
            fc(x, 3, s3, keep, bias, false, 0, "");
            fc(x, 4, s4, keep, bias, false, 0, "");
        }
    for (int keep = 0; keep <= 1; keep++) {
        fc(x, 4, s4b, keep, true, false, 0, "");
    }
    fc(x, 2, s2, false, true, true, 0, "_runtime_w");
    fc(x, 3, s3, true, true, true, 0, "_runtime_w");
}

typedef struct { const char *tag; int lr; int32_t lb[2]; int rr; int32_t rb[2]; bool rconst; } bmm_cfg;

static void bmm(sw_ctx *x, const bmm_cfg *g, bool ax, bool ay) {
    const int M = 4, K = 8, N = 6;
    int32_t ls[4], rs[4], os[4];
    int lbn = g->lr - 2, rbn = g->rr - 2;
    for (int i = 0; i < lbn; i++) ls[i] = g->lb[i];
    for (int i = 0; i < rbn; i++) rs[i] = g->rb[i];
    ls[lbn] = ax ? K : M; ls[lbn + 1] = ax ? M : K;
    rs[rbn] = ay ? N : K; rs[rbn + 1] = ay ? K : N;
    int obn = lbn > rbn ? lbn : rbn;
    for (int i = 0; i < obn; i++) {   /* right-aligned broadcast of the batch dims */
        int li = i - (obn - lbn), ri = i - (obn - rbn);
        int a = li >= 0 ? g->lb[li] : 1, b = ri >= 0 ? g->rb[ri] : 1;
        os[i] = a > b ? a : b;
    }
    os[obn] = M; os[obn + 1] = N;
    sw_case c;
    sw_begin(&c);
    int32_t l = sw_t(&c, "lhs", SW_F32, g->lr, ls);
    int32_t r = g->rconst ? sw_const_f32(&c, "rhs", g->rr, rs) : sw_t(&c, "rhs", SW_F32, g->rr, rs);
    int32_t y = sw_t(&c, "y", SW_F32, obn + 2, os);
    int32_t op = sw_op(&c, GC_OP_BATCH_MATMUL, 1, SW_L(l, r), SW_L(y));
    sw_opt(&c, op, GC_O_BatchMatMulOptions_adj_x, ax);
    sw_opt(&c, op, GC_O_BatchMatMulOptions_adj_y, ay);
    sw_attr_b(&c, "adj_x", ax);
    sw_attr_b(&c, "adj_y", ay);
    sw_attr_shape(&c, "lhs_shape", g->lr, ls);
    sw_attr_shape(&c, "rhs_shape", g->rr, rs);
    sw_attr_b(&c, "rhs_const", g->rconst);
    sw_attr_s(&c, "batch", g->tag);
    char what[200];
    snprintf(what, sizeof what, "BATCH_MATMUL adj_x=%d adj_y=%d, batch %s%s", ax, ay, g->tag, g->rconst ? ", constant rhs" : "");
    sw_emit(x, &c, "batch_matmul", "BATCH_MATMUL", what, "bmm_%s_ax%d_ay%d", g->tag, ax, ay);
}

void sw_family_batch_matmul(sw_ctx *x) {
    static const bmm_cfg cfgs[] = {
        { "b2", 3, { 2 }, 3, { 2 }, false },
        { "rhs_b1", 3, { 2 }, 3, { 1 }, false },     /* rhs batch broadcast */
        { "lhs_b1", 3, { 1 }, 3, { 3 }, false },     /* lhs batch broadcast */
        { "rank4", 4, { 2, 3 }, 4, { 2, 3 }, false },
        { "rank4_rhs_rank3", 4, { 2, 3 }, 3, { 3 }, false },
        { "rhs_rank2", 3, { 2 }, 2, { 0 }, false },  /* batch broadcast by rank */
        { "const_rhs_rank2", 3, { 2 }, 2, { 0 }, true },
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        for (int ax = 0; ax <= 1; ax++)
            for (int ay = 0; ay <= 1; ay++) bmm(x, &cfgs[i], ax, ay);
}
