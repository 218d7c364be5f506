/* sweep_pattern.c — small transformer patterns (sweep.h): where a converted timm model
 * runs every node on the GPU and still disagrees with the CPU, the suspects are the
 * blocks every ViT repeats. Each case is one block, float32 I/O:
 *   layernorm   MEAN(last, keep) -> SUB -> MUL(d,d) -> MEAN -> ADD eps -> RSQRT -> MUL ->
 *               MUL gamma -> ADD beta, over [1,50,64] and [1,7,7,64]
 *   gelu        GELU approximate 0 / 1 on [1,50,64]
 *   attention   softmax(q k^T * 0.25) v: BATCH_MATMUL(adj_y) -> MUL -> SOFTMAX -> BATCH_MATMUL,
 *               q, k, v [1,4,50,16] (rank 4) and [4,50,16] (rank 3)
 *   heads       RESHAPE [1,50,64] -> [1,50,4,16] -> TRANSPOSE (0,2,1,3), and back
 *   transpose   TRANSPOSE rank 3 / 4 with the perms converters emit
 */
#include "sweep.h"

#include <stdio.h>

static void layernorm(sw_ctx *x, int rank, const int32_t *s, const char *tag) {
    sw_case c;
    sw_begin(&c);
    int32_t ms[4];
    for (int i = 0; i < rank; i++) ms[i] = s[i];
    ms[rank - 1] = 1;
    int C = s[rank - 1];
    int32_t in = sw_t(&c, "x", SW_F32, rank, s);
    int32_t ax = sw_const_i32(&c, "axes", SW_L(1), (const int32_t[]){ rank - 1 });
    int32_t mu = sw_t(&c, "mean", SW_F32, rank, ms), d = sw_t(&c, "centered", SW_F32, rank, s);
    int32_t d2 = sw_t(&c, "squared", SW_F32, rank, s), var = sw_t(&c, "var", SW_F32, rank, ms);
    const float eps = 1e-5f;
    int32_t e = sw_const(&c, "eps", SW_F32, 0, NULL, &eps), ve = sw_t(&c, "var_eps", SW_F32, rank, ms);
    int32_t inv = sw_t(&c, "inv_std", SW_F32, rank, ms), nrm = sw_t(&c, "normed", SW_F32, rank, s);
    int32_t g = sw_const_f32(&c, "gamma", SW_L(C)), b = sw_const_f32(&c, "beta", SW_L(C));
    int32_t sc = sw_t(&c, "scaled", SW_F32, rank, s), y = sw_t(&c, "y", SW_F32, rank, s);
    int32_t o = sw_op(&c, GC_OP_MEAN, 1, SW_L(in, ax), SW_L(mu));
    sw_opt(&c, o, GC_O_ReducerOptions_keep_dims, 1);
    sw_op(&c, GC_OP_SUB, 1, SW_L(in, mu), SW_L(d));
    sw_op(&c, GC_OP_MUL, 1, SW_L(d, d), SW_L(d2));
    o = sw_op(&c, GC_OP_MEAN, 1, SW_L(d2, ax), SW_L(var));
    sw_opt(&c, o, GC_O_ReducerOptions_keep_dims, 1);
    sw_op(&c, GC_OP_ADD, 1, SW_L(var, e), SW_L(ve));
    sw_op(&c, GC_OP_RSQRT, 1, SW_L(ve), SW_L(inv));
    sw_op(&c, GC_OP_MUL, 1, SW_L(d, inv), SW_L(nrm));
    sw_op(&c, GC_OP_MUL, 1, SW_L(nrm, g), SW_L(sc));
    sw_op(&c, GC_OP_ADD, 1, SW_L(sc, b), SW_L(y));
    sw_attr_s(&c, "pattern", "layernorm");
    sw_attr_shape(&c, "shape", rank, s);
    char what[200];
    snprintf(what, sizeof what, "LayerNorm over the last axis of a rank-%d tensor (MEAN, SUB, MUL, MEAN, ADD, RSQRT, MUL, MUL, ADD)", rank);
    sw_emit(x, &c, "pattern", "MEAN", what, "pattern_layernorm_%s", tag);
}

static void gelu(sw_ctx *x, bool approx) {
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, SW_L(1, 50, 64)), y = sw_t(&c, "y", SW_F32, SW_L(1, 50, 64));
    int32_t o = sw_op(&c, GC_OP_GELU, 1, SW_L(in), SW_L(y));
    sw_opt(&c, o, GC_O_GeluOptions_approximate, approx);
    sw_attr_s(&c, "pattern", "gelu");
    sw_attr_b(&c, "approximate", approx);
    sw_emit(x, &c, "pattern", "GELU", approx ? "GELU (tanh approximation) on [1,50,64]" : "GELU (erf) on [1,50,64]",
            "pattern_gelu_approx%d", approx);
}

static void attention(sw_ctx *x, int rank) {
    sw_case c;
    sw_begin(&c);
    int32_t s4[4] = { 1, 4, 50, 16 }, p4[4] = { 1, 4, 50, 50 }, s3[3] = { 4, 50, 16 }, p3[3] = { 4, 50, 50 };
    const int32_t *s = rank == 4 ? s4 : s3, *ps = rank == 4 ? p4 : p3;
    int32_t q = sw_t(&c, "q", SW_F32, rank, s), k = sw_t(&c, "k", SW_F32, rank, s), v = sw_t(&c, "v", SW_F32, rank, s);
    int32_t sc = sw_t(&c, "scores", SW_F32, rank, ps), ss = sw_t(&c, "scaled", SW_F32, rank, ps);
    int32_t pr = sw_t(&c, "probs", SW_F32, rank, ps), y = sw_t(&c, "y", SW_F32, rank, s);
    const float scale = 0.25f;
    int32_t sk = sw_const(&c, "scale", SW_F32, 0, NULL, &scale);
    int32_t o = sw_op(&c, GC_OP_BATCH_MATMUL, 1, SW_L(q, k), SW_L(sc));
    sw_opt(&c, o, GC_O_BatchMatMulOptions_adj_y, 1);
    sw_op(&c, GC_OP_MUL, 1, SW_L(sc, sk), SW_L(ss));
    o = sw_op(&c, GC_OP_SOFTMAX, 1, SW_L(ss), SW_L(pr));
    sw_optf(&c, o, GC_O_SoftmaxOptions_beta, 1.0);
    sw_op(&c, GC_OP_BATCH_MATMUL, 1, SW_L(pr, v), SW_L(y));
    sw_attr_s(&c, "pattern", "attention");
    sw_attr_i(&c, "rank", rank);
    char what[200];
    snprintf(what, sizeof what, "attention softmax(q k^T / 4) v on rank-%d q, k, v [%s4,50,16]", rank, rank == 4 ? "1," : "");
    sw_emit(x, &c, "pattern", "BATCH_MATMUL", what, "pattern_attention_r%d", rank);
}

static void heads(sw_ctx *x, bool back) {
    sw_case c;
    sw_begin(&c);
    int32_t in, y, o;
    if (!back) {   /* [1,50,64] -> [1,50,4,16] -> [1,4,50,16] */
        in = sw_t(&c, "x", SW_F32, SW_L(1, 50, 64));
        int32_t sh = sw_const_i32(&c, "shape", SW_L(4), (const int32_t[]){ 1, 50, 4, 16 });
        int32_t r = sw_t(&c, "split_heads", SW_F32, SW_L(1, 50, 4, 16));
        int32_t pm = sw_const_i32(&c, "perm", SW_L(4), (const int32_t[]){ 0, 2, 1, 3 });
        y = sw_t(&c, "y", SW_F32, SW_L(1, 4, 50, 16));
        o = sw_op(&c, GC_OP_RESHAPE, 1, SW_L(in, sh), SW_L(r));
        sw_op(&c, GC_OP_TRANSPOSE, 1, SW_L(r, pm), SW_L(y));
    } else {       /* [1,4,50,16] -> [1,50,4,16] -> [1,50,64] */
        in = sw_t(&c, "x", SW_F32, SW_L(1, 4, 50, 16));
        int32_t pm = sw_const_i32(&c, "perm", SW_L(4), (const int32_t[]){ 0, 2, 1, 3 });
        int32_t t = sw_t(&c, "merged", SW_F32, SW_L(1, 50, 4, 16));
        int32_t sh = sw_const_i32(&c, "shape", SW_L(3), (const int32_t[]){ 1, 50, 64 });
        y = sw_t(&c, "y", SW_F32, SW_L(1, 50, 64));
        o = sw_op(&c, GC_OP_TRANSPOSE, 1, SW_L(in, pm), SW_L(t));
        sw_op(&c, GC_OP_RESHAPE, 1, SW_L(t, sh), SW_L(y));
    }
    (void)o;
    sw_attr_s(&c, "pattern", back ? "merge_heads" : "split_heads");
    sw_emit(x, &c, "pattern", back ? "TRANSPOSE" : "RESHAPE",
            back ? "merge heads: TRANSPOSE (0,2,1,3) then RESHAPE [1,4,50,16] -> [1,50,64]"
                 : "split heads: RESHAPE [1,50,64] -> [1,50,4,16] then TRANSPOSE (0,2,1,3)",
            "pattern_%s", back ? "merge_heads" : "split_heads");
}

static void transpose(sw_ctx *x, int rank, const int32_t *s, const int32_t *perm) {
    int32_t os[4];
    char ps[16] = "";
    for (int i = 0; i < rank; i++) { os[i] = s[perm[i]]; ps[i] = (char)('0' + perm[i]); }
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, rank, s), pm = sw_const_i32(&c, "perm", SW_L(rank), perm);
    int32_t y = sw_t(&c, "y", SW_F32, rank, os);
    sw_op(&c, GC_OP_TRANSPOSE, 1, SW_L(in, pm), SW_L(y));
    sw_attr_i(&c, "rank", rank);
    sw_attr_s(&c, "perm", ps);
    sw_attr_s(&c, "pattern", "transpose");
    char what[200];
    snprintf(what, sizeof what, "TRANSPOSE rank %d perm %s", rank, ps);
    sw_emit(x, &c, "pattern", "TRANSPOSE", what, "pattern_transpose_r%d_%s", rank, ps);
}

void sw_family_pattern(sw_ctx *x) {
    layernorm(x, 3, (const int32_t[]){ 1, 50, 64 }, "r3");
    layernorm(x, 4, (const int32_t[]){ 1, 7, 7, 64 }, "r4");
    gelu(x, false);
    gelu(x, true);
    attention(x, 4);
    attention(x, 3);
    heads(x, false);
    heads(x, true);
    static const int32_t s3[] = { 2, 5, 6 }, s4[] = { 1, 3, 5, 6 };
    transpose(x, 3, s3, (const int32_t[]){ 0, 2, 1 });
    transpose(x, 3, s3, (const int32_t[]){ 2, 0, 1 });
    transpose(x, 4, s4, (const int32_t[]){ 0, 3, 1, 2 });
    transpose(x, 4, s4, (const int32_t[]){ 0, 2, 3, 1 });
}
