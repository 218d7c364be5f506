/* pow_square.c — pass pow_square [fix.pow.square]
 *
 * Rewrite:      POW(x, 2) (the exponent a constant whose every element is 2.0)  ->
 *               MUL(x, x).
 *               A fully resident model can still compute POW wrong: measured on the H200
 *               (LiteRT.js 2.5.3, ML Drift over WebGPU, fp32 and fp16), POW(x - 0.5, 2)
 *               on the sin pattern gives NaN for 28 of 64 values — exactly the negative
 *               bases (the GPU evaluates pow through exp/log); MUL(x, x) matches the
 *               CPU bit for bit in fp32. In the corpus, dp_net fully delegated returned
 *               NaN in 130 of 257 values of two outputs downstream of POW(x, 2.0); after
 *               this rewrite they agree with the CPU (max |diff| 1.9e-5, corr 0.99999999999).
 * Precondition: FLOAT32 base and output; the exponent constant (any shape that
 *               broadcasts without changing the output shape) with every value 2.0.
 *               Applied wherever it holds (scope "any"): the GPU accepts the node, the
 *               numbers are what is wrong.
 * Exactness:    within tolerance (rtol 1e-5, atol 1e-6 at the model's outputs). Per
 *               element the two agree except where x*x is subnormal (|x| < 1.1e-19):
 *               there the reference interpreter's powf (glibc 2.36) is off by one
 *               subnormal ulp (2^-149) from the correctly rounded square x*x gives —
 *               516,315 of 1.43e9 finite float32 patterns tested, all of them in that
 *               range. GPUs flush subnormals anyway; downstream divisions can magnify the
 *               last bit (dp_net, random inputs: 6e-8 at the outputs).
 */
#include "fix_int.h"

#include <string.h>

static const int32_t anchors[] = { GC_OP_POW, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs != 2 || o->n_outputs != 1) return fx_pass_over(c);
    gc_fix_tinfo x, e, y;
    if (!fx_info(c, o->inputs[0], &x) || !fx_info(c, o->inputs[1], &e) || !fx_info(c, o->outputs[0], &y))
        return fx_pass_over(c);
    if (!e.is_const || e.type != GC_T_FLOAT32 || x.type != GC_T_FLOAT32 || y.type != GC_T_FLOAT32)
        return fx_pass_over(c);
    uint64_t nb = 0;
    const uint8_t *p = fx_data(c, e.index, &nb);
    if (!p || nb < 4) return fx_pass_over(c);
    for (uint64_t i = 0; i + 4 <= nb; i += 4) {
        float v;
        memcpy(&v, p + i, 4);
        if (v != 2.0f) return fx_pass_over(c);   /* another exponent: not this rewrite */
    }
    bool same = x.rank == y.rank && !memcmp(x.shape, y.shape, sizeof(int32_t) * (size_t)x.rank);
    if (!same) return fx_decline(c, "the exponent broadcasts the base to another shape");
    fx_remove_op(c, op);
    int32_t in[2] = { x.index, x.index };
    if (fx_add_op(c, op, GC_OP_MUL, 1, 2, in, 1, &y.index) < 0) return -1;
    fx_note(c, "MUL(x, x)");
    return 1;
}

const gc_fix_pass gc_fix_pow_square = {
    .id = "pow_square",
    .fix_id = "fix.pow.square",
    .summary = "POW(x, 2) -> MUL(x, x): the GPU's pow is NaN for a negative base",
    .anchors = anchors,
    .exactness = GC_FIX_TOLERANCE,
    .rtol = 1e-5,
    .atol = 1e-6,
    .scope = GC_FIX_SCOPE_ANY,
    .apply = apply,
};
