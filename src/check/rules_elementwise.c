/* rules_elementwise.c — elementwise ops and the small unary families of both delegates
 * (gpu-delegate-rules.md §3.1 classic ElementwiseOperationParser, §3.1.1 constant second
 * operand [P], §3.3 ReLU/PReLU/HARD_SWISH/CAST rows, §3.4 SELECT row; §4.1-4.3 ML Drift:
 * version limits per op, right-aligned broadcast of two runtime inputs, constant operands
 * via CanParseInputsWithConstTensor, identical inputs, comparison ops without graph
 * context, CAST of any allowed pair; ML Drift's own SELECT_V2 check).
 */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

static bool is_one_arg(int32_t code) {
    switch (code) {
    case GC_OP_ABS: case GC_OP_CEIL: case GC_OP_COS: case GC_OP_ELU: case GC_OP_EXP: case GC_OP_FLOOR:
    case GC_OP_GELU: case GC_OP_LOG: case GC_OP_LOGICAL_NOT: case GC_OP_NEG: case GC_OP_ROUND:
    case GC_OP_RSQRT: case GC_OP_LOGISTIC: case GC_OP_SIGN: case GC_OP_SIN: case GC_OP_SQRT:
    case GC_OP_SQUARE: case GC_OP_TANH:
        return true;
    default: return false;
    }
}

static bool is_comparison(int32_t code) {
    switch (code) {
    case GC_OP_EQUAL: case GC_OP_NOT_EQUAL: case GC_OP_GREATER: case GC_OP_GREATER_EQUAL:
    case GC_OP_LESS: case GC_OP_LESS_EQUAL:
        return true;
    default: return false;
    }
}

static bool is_add_or_mul(int32_t code) {
    return code == GC_OP_ADD || code == GC_OP_ADD_N || code == GC_OP_MUL;
}

/* fused activation of ADD / SUB / MUL / DIV (the only elementwise ops that carry one) */
static int64_t fused_act(const gc_rctx *c) {
    switch (c->code) {
    case GC_OP_ADD: return gc_opt_i(c, GC_BO_AddOptions, GC_O_AddOptions_fused_activation_function);
    case GC_OP_SUB: return gc_opt_i(c, GC_BO_SubOptions, GC_O_SubOptions_fused_activation_function);
    case GC_OP_MUL: return gc_opt_i(c, GC_BO_MulOptions, GC_O_MulOptions_fused_activation_function);
    case GC_OP_DIV: return gc_opt_i(c, GC_BO_DivOptions, GC_O_DivOptions_fused_activation_function);
    default: return 0;
    }
}

static bool broadcastable(const gc_tensor *a, const gc_tensor *b) {
    int32_t n = a->rank > b->rank ? a->rank : b->rank;
    for (int32_t i = 0; i < n; i++) {
        int32_t da = i < a->rank ? a->shape[a->rank - 1 - i] : 1;
        int32_t db = i < b->rank ? b->shape[b->rank - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) return false;
    }
    return true;
}

/* ML Drift CanParseInputsWithConstTensor (§4.3 "elementwise with a constant") */
static bool can_parse_with_const(const gc_rctx *c) {
    bool c0 = gc_is_const_in(c, 0), c1 = gc_is_const_in(c, 1);
    const gc_tensor *k = c0 ? gc_in(c, 0) : gc_in(c, 1);
    if (c0 && c1) return false;
    if (!c0 && !c1) return true;
    if (!k) return false;
    if (k->sparsity) return false;
    bool aq = gc_affine_quant(k);
    bool to_f32 = k->type == GC_T_FLOAT32 || k->type == GC_T_FLOAT16 ||
                  (aq && (k->type == GC_T_INT8 || k->type == GC_T_UINT8 || k->type == GC_T_INT4));
    bool f32ish = k->type == GC_T_FLOAT32 || k->type == GC_T_FLOAT16 || k->type == GC_T_INT4 ||
                  k->type == GC_T_INT8 || k->type == GC_T_UINT8 || k->type == GC_T_INT32;
    int64_t n = gc_numel_dims(k->shape, k->rank);
    if (n == 1) {
        if (to_f32) { if (f32ish) return true; }
        else if (k->type == GC_T_INT32) return true;
        return false;
    }
    if (!to_f32) return true;
    if (gc_is_linear_convertible(k)) return f32ish;
    return f32ish && k->rank < 5;
}

static int ml_version_for(int32_t code) {
    switch (code) {
    case GC_OP_ABS: return 5;
    case GC_OP_FLOOR_DIV: return 3;
    case GC_OP_MAXIMUM: case GC_OP_MINIMUM: return 4;
    case GC_OP_MUL: return 8;
    case GC_OP_ADD: case GC_OP_ADD_N: return 6;
    case GC_OP_GELU: return 3;
    default: return 2;
    }
}

int gc_ml_elementwise(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = ml_version_for(c->code), .bcast = GC_BCAST_ENHANCED)));
    bool need_broadcast = false;
    if (is_one_arg(c->code)) {
        GC_TRY(gc_compat_ico(c, h, 1, 0, 1));
        GC_TRY(gc_pre_read_value(c, h, 0));
    } else {
        gc_hit tmp;
        if (!gc_compat_ico(c, &tmp, 2, 0, 1)) {
            if (c->n_in != 2) GC_REJECT(h, "elementwise.inputs", -1, "Applies only two input tensors");
            int32_t i0 = gc_in_idx(c, 0), i1 = gc_in_idx(c, 1);
            if (i0 == i1) {
                if (!is_add_or_mul(c->code))
                    GC_REJECT(h, "elementwise.identical_inputs", i0,
                              "No support of few identical inputs in the same operation.");
                GC_TRY(gc_pre_read_value(c, h, 0));
            } else {
                const gc_tensor *a = gc_in(c, 0), *b = gc_in(c, 1);
                if (is_add_or_mul(c->code)) {
                    GC_TRY(gc_pre_tensor_shape(h, a, i0));
                    GC_TRY(gc_pre_tensor_shape(h, b, i1));
                }
                GC_TRY(gc_pre_read_value(c, h, 0));
                GC_TRY(gc_pre_read_value(c, h, 1));
                if (a->rank != b->rank) {
                    need_broadcast = broadcastable(a, b);
                    if (!need_broadcast)
                        GC_REJECT(h, "elementwise.broadcast", -1,
                                  "Inputs dimensions sizes don't match, broadcasting isn't applicable.");
                }
                if (need_broadcast) {
                    GC_TRY(gc_pre_tflite_shape(h, a, i0));
                    GC_TRY(gc_pre_tflite_shape(h, b, i1));
                }
            }
        } else {
            GC_TRY(gc_compat_ico(c, h, 1, 1, 1));
            if (!can_parse_with_const(c))
                GC_REJECT(h, "elementwise.const_operand", -1, "Can't parse inputs with const tensors.");
        }
    }
    if (need_broadcast) {
        GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, 0)));
        GC_TRY(gc_pre_tflite_shape(h, gc_out(c, 0), gc_out_idx(c, 0)));
    }
    int64_t act = fused_act(c);
    if (act) GC_TRY(gc_pre_fuse_act(c, h, act, false));
    return 0;
}

/* classic: comparison ops are accepted only as the producer of a CAST / SELECT feeding a
 * float value (graph context, §3.1 EQUAL row) */
int gc_cl_elementwise(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, c->code == GC_OP_MUL ? 3 : 2));
    if (is_comparison(c->code)) {
        int32_t out = gc_out_idx(c, 0);
        if (out < 0 || c->g->producer[out] < 0 || gc_graph_n_consumers(c->g, out) != 1)
            GC_REJECT(h, "logical.graph", out, "Not supported logical op case");
        int32_t consumer = c->g->cons[c->g->cons_off[out]];
        const gc_op *cop = &c->sg->ops[consumer];
        int32_t cc = gc_op_builtin(c->m, cop);
        const gc_tensor *co = (cop->n_outputs > 0 && cop->outputs[0] >= 0) ? &c->sg->tensors[cop->outputs[0]] : NULL;
        bool ok = (cc == GC_OP_CAST || cc == GC_OP_SELECT || cc == GC_OP_SELECT_V2) && co &&
                  (co->type == GC_T_FLOAT16 || co->type == GC_T_FLOAT32);
        if (!ok) GC_REJECT(h, "logical.consumer", out, "Not supported logical op case.");
        return 0;
    }
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* classic Parse-time conditions of elementwise ops (§3.1, §3.1.1) */
int gc_clp_elementwise(const gc_rctx *c, gc_hit *h) {
    if (c->code == GC_OP_ADD && fused_act(c) == 5)
        GC_REJECT(h, "activation", -1, "Unsupported fused activation: 5");
    if (is_one_arg(c->code) || c->n_in < 2) return 0;
    int32_t i0 = gc_in_idx(c, 0), i1 = gc_in_idx(c, 1);
    bool k0 = gc_is_const_t(c, i0), k1 = gc_is_const_t(c, i1);
    if (!k0 && !k1) {
        if (i0 == i1 && !is_add_or_mul(c->code))
            GC_REJECT(h, "elementwise.identical_inputs", i0,
                      "No support of few identical inputs in the same operation.");
        return 0;
    }
    if (k0 && k1)
        GC_REJECT(h, "elementwise.const_inputs", i1, "ReadNonConstantTensor: value is a constant tensor: %d", i1);
    int32_t ki = k0 ? i0 : i1;
    const gc_tensor *k = gc_tensor_at(c, ki);
    if (!k) return 0;
    if (k->type != GC_T_BOOL && k->type != GC_T_INT32 && k->type != GC_T_FLOAT32 && k->type != GC_T_FLOAT16 &&
        k->type != GC_T_INT8 && k->type != GC_T_UINT8)
        GC_REJECT(h, "const.dtype", ki, "Unsupported data type for float32 tensor");
    if (k->rank == 4 && gc_numel_dims(k->shape, 4) != 1 && !gc_is_linear_convertible(k) && k->shape[0] != 1)
        GC_REJECT(h, "const.batch", ki, "Batch size is not equal to 1.");
    return 0;
}

/* ---- CAST ----------------------------------------------------------------------------- */

int gc_ml_cast(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.min_inputs = 1, .max_inputs = 1, .num_outputs = 1, .rt_inputs = GC_N(1),
                                      .const_inputs = GC_N(0), .no_compat = true)));
    return gc_pre_read_value(c, h, 0);
}

int gc_cl_cast(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *i = gc_in(c, 0), *o = gc_out(c, 0);
    if (i && o && i->type == GC_T_BOOL && (o->type == GC_T_FLOAT16 || o->type == GC_T_FLOAT32)) {
        int32_t ti = gc_in_idx(c, 0), to = gc_out_idx(c, 0);
        if (c->g->producer[ti] < 0 || gc_graph_n_consumers(c->g, ti) != 1)
            GC_REJECT(h, "cast.graph", ti, "Not supported cast case");
        if (gc_graph_n_consumers(c->g, to) != 1)
            GC_REJECT(h, "cast.bool_output", to, "Cast from bool not supported for outputs");
    }
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- ReLU family, PReLU, HARD_SWISH -------------------------------------------------- */

int gc_ml_relu(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 2, .num_outputs = 1, .rt_inputs = GC_N(1), .const_inputs = GC_N(0))));
    return gc_pre_read_value(c, h, 0);
}

int gc_cl_relu(const gc_rctx *c, gc_hit *h) { return gc_version(c, h, 2); }


static int prelu_alpha(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *x = gc_in(c, 0), *a = gc_in(c, 1);
    if (!x || !a) GC_REJECT(h, "prelu.alpha", -1, "input #1 tensor is not available");
    int32_t s[4];
    gc_bhwc(x, s);
    gc_hit lin;
    if (!gc_pre_read_tensor(c, &lin, 1, GC_SH_LINEAR, true)) {
        if (gc_numel_dims(a->shape, a->rank) != s[3])
            GC_REJECT(h, "prelu.alpha_shape", gc_in_idx(c, 1),
                      "Linear alpha shape does not match the number of input channels.");
        return 0;
    }
    GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_HWC, true));
    int32_t ah = a->rank == 4 ? a->shape[1] : a->shape[0], aw = a->rank == 4 ? a->shape[2] : a->shape[1],
            ac = a->rank == 4 ? a->shape[3] : a->shape[2];
    if (ah != s[1] || aw != s[2] || ac != s[3])
        GC_REJECT(h, "prelu.alpha_shape", gc_in_idx(c, 1), "Alpha shape does not match input shape.");
    return 0;
}

int gc_ml_prelu(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(prelu_alpha(c, h));
    return gc_pre_outputs(c, h);
}

int gc_cl_prelu(const gc_rctx *c, gc_hit *h) { return gc_version(c, h, 1); }
int gc_clp_prelu(const gc_rctx *c, gc_hit *h) { return prelu_alpha(c, h); }

int gc_ml_hard_swish(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    return gc_pre_outputs(c, h);
}

int gc_cl_compat_only(const gc_rctx *c, gc_hit *h) { return gc_compat(c, h, GC_BCAST_STANDARD); }

/* ---- SELECT / SELECT_V2 ----------------------------------------------------------------- */

/* ML Drift's own check (SelectV2OperationParser::CheckGpuDelegateCompatibility, §4.3) */
int gc_ml_select(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    if (c->n_in != 3 || c->op->n_outputs != 1) GC_REJECT(h, "select.arity", -1, "Expected 3 inputs and 1 output");
    static const char *err = "Cond must be float or bool type, if, else tensors must be either be same "
                             "the shape as output or constant, scalar.";
    const gc_tensor *cond = gc_in(c, 0), *out = gc_out(c, 0);
    if (!cond || !out || (cond->type != GC_T_BOOL && cond->type != GC_T_FLOAT16 && cond->type != GC_T_FLOAT32))
        GC_REJECT(h, "select.cond_type", gc_in_idx(c, 0), "%s", err);
    for (int k = 1; k <= 2; k++) {
        const gc_tensor *x = gc_in(c, k);
        if (x && x->rank > 0 && !gc_dims_eq(x, out) && (x->rank > 1 || x->shape[0] > 1))
            GC_REJECT(h, "select.branch_shape", gc_in_idx(c, k), "%s", err);
    }
    for (int k = 0; k < 3; k++) GC_TRY(gc_pre_runtime_or_const(c, h, k));
    return gc_pre_outputs(c, h);
}

int gc_cl_select(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_select(const gc_rctx *c, gc_hit *h) {
    if (gc_is_const_in(c, 0))
        GC_REJECT(h, "select.const_cond", gc_in_idx(c, 0), "ReadNonConstantTensor: value is a constant tensor: %d",
                  gc_in_idx(c, 0));
    for (int k = 1; k <= 2; k++) {
        const gc_tensor *x = gc_in(c, k);
        if (x && gc_is_const_in(c, k) && x->rank == 2 && gc_numel_dims(x->shape, 2) > 1) {
            char d[64];
            gc_dims_str(x, d, sizeof d, true);
            GC_REJECT(h, "select.const_2d", gc_in_idx(c, k),
                      "Expected a 3D tensor of shape HxWxC or a 4D tensor of shape 1xHxWxC but got %s", d);
        }
    }
    return 0;
}

/* ---- StableHLO elementwise (ML Drift only) ----------------------------------------------- */

int gc_ml_clamp(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    for (int k = 0; k < 3; k++) GC_TRY(gc_pre_read_value(c, h, k));
    return 0;
}

int gc_ml_cbrt(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    return gc_pre_read_value(c, h, 0);
}

int gc_ml_remainder(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_pre_read_value(c, h, 1));
    return gc_pre_outputs(c, h);
}
