/* identical_inputs.c — pass identical_inputs [fix.identical_inputs]
 *
 * Both GPU delegates refuse a two-input elementwise op other than ADD / MUL whose two
 * inputs are the same tensor ("No support of few identical inputs in the same
 * operation.": SUB(x, x), DIV(x, x), MAXIMUM(x, x), x == x, ...; group norms written as
 * (x - mean) with a shared tensor hit it).
 * Rewrite:      OP(x, x)  ->  OP(x, RESHAPE(x)) — the second input through an identity
 *               RESHAPE (same shape), the op re-made with its options unchanged.
 * Precondition: exactly two inputs, the same runtime tensor, static shape.
 * Exactness:    bit-exact (the RESHAPE copies x; the op sees the same values).
 */
#include "fix_int.h"

static const int32_t anchors[] = {
    GC_OP_SUB, GC_OP_DIV, GC_OP_MAXIMUM, GC_OP_MINIMUM, GC_OP_POW, GC_OP_SQUARED_DIFFERENCE, GC_OP_FLOOR_DIV,
    GC_OP_FLOOR_MOD, GC_OP_EQUAL, GC_OP_NOT_EQUAL, GC_OP_LESS, GC_OP_LESS_EQUAL, GC_OP_GREATER, GC_OP_GREATER_EQUAL,
    GC_OP_LOGICAL_AND, GC_OP_LOGICAL_OR, GC_OP_ATAN2, -1
};

static int apply(gc_fix_ctx *c, int32_t op) {
    gc_op old = *fx_op(c, op);
    if (old.n_inputs != 2 || old.n_outputs != 1 || old.inputs[0] < 0 || old.inputs[0] != old.inputs[1])
        return fx_pass_over(c);
    gc_fix_tinfo x;
    if (!fx_info(c, old.inputs[0], &x)) return fx_decline(c, "rank > %d", GC_FIX_MAXR);
    if (x.is_const) return fx_decline(c, "both inputs are the same constant (const_fold's case)");
    if (!x.is_static) return fx_decline(c, "dynamic shape");
    int32_t code = fx_code(c, op), y = old.outputs[0];
    int32_t version = gc_op_code(c->m, &old)->version;
    gc_options opt = old.opt, opt2 = old.opt2;
    int32_t cp = fx_new_tensor(c, fx_name(c, op), "copy", x.type, x.rank, x.shape, x.quant);
    if (cp < 0) return -1;
    fx_remove_op(c, op);
    if (fx_add_reshape(c, op, x.index, cp) < 0) return -1;
    int32_t in[2] = { x.index, cp };
    int32_t k = fx_add_op(c, op + 1, code, version, 2, in, 1, &y);
    if (k < 0) return -1;
    fx_op(c, k)->opt = opt;
    fx_op(c, k)->opt2 = opt2;
    fx_note(c, "%s(x, RESHAPE(x)): the second input through an identity RESHAPE", gc_builtin_name(code));
    return 1;
}

const gc_fix_pass gc_fix_identical_inputs = {
    .id = "identical_inputs",
    .fix_id = "fix.identical_inputs",
    .summary = "OP(x, x) (SUB, DIV, MAXIMUM, comparisons, ...) -> OP(x, RESHAPE(x))",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
