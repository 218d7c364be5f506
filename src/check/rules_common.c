/* rules_common.c — what every GPU rule leans on: node and tensor access with the TFLite
 * runtime's notion of "constant" (gpu-delegate-rules.md §2.3), the ML Drift pre-check
 * helpers of ml_drift_delegate/tflite/operation_parser.cc (ValidateSupport,
 * PreCheckReadValue, PreCheckOutputs, PreCheckAxisFromIndex, PreReadTensor and their
 * exact messages, §4 and §6.4), and the per-node tensor type / rank filter of both
 * delegates (IsAllAllowedTensors, §2.1 and §2.2.1-2.2.2).
 */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

/* ---- hits --------------------------------------------------------------------------- */

int gc_hit_vset(gc_hit *h, const char *rule, int32_t tensor, const char *fmt, va_list ap) {
    snprintf(h->rule, sizeof h->rule, "%s", rule);
    vsnprintf(h->reason, sizeof h->reason, fmt, ap);
    h->tensor = tensor;
    return 1;
}

int gc_hit_set(gc_hit *h, const char *rule, int32_t tensor, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gc_hit_vset(h, rule, tensor, fmt, ap);
    va_end(ap);
    return 1;
}

/* ---- access ------------------------------------------------------------------------- */

int32_t gc_in_idx(const gc_rctx *c, int i) {
    if (i < 0 || i >= c->n_in) return -1;
    int32_t t = c->in[i];
    return (t >= 0 && t < c->sg->n_tensors) ? t : -1;
}

const gc_tensor *gc_in(const gc_rctx *c, int i) {
    int32_t t = gc_in_idx(c, i);
    return t < 0 ? NULL : &c->sg->tensors[t];
}

int32_t gc_out_idx(const gc_rctx *c, int i) {
    if (i < 0 || i >= c->op->n_outputs) return -1;
    int32_t t = c->op->outputs[i];
    return (t >= 0 && t < c->sg->n_tensors) ? t : -1;
}

const gc_tensor *gc_out(const gc_rctx *c, int i) {
    int32_t t = gc_out_idx(c, i);
    return t < 0 ? NULL : &c->sg->tensors[t];
}

int gc_n_out(const gc_rctx *c) { return c->op->n_outputs; }

const gc_tensor *gc_tensor_at(const gc_rctx *c, int32_t t) {
    return (t >= 0 && t < c->sg->n_tensors) ? &c->sg->tensors[t] : NULL;
}

bool gc_is_const_t(const gc_rctx *c, int32_t t) {
    return t >= 0 && t < c->sg->n_tensors && (c->tf[t] & GC_TF_CONST);
}

bool gc_is_const_in(const gc_rctx *c, int i) { return gc_is_const_t(c, gc_in_idx(c, i)); }

int gc_n_runtime_inputs(const gc_rctx *c) {
    int n = 0;
    for (int i = 0; i < c->n_in; i++)
        if (gc_in_idx(c, i) >= 0 && !gc_is_const_in(c, i)) n++;
    return n;
}

int gc_n_const_inputs(const gc_rctx *c) {
    int n = 0;
    for (int i = 0; i < c->n_in; i++)
        if (gc_is_const_in(c, i)) n++;
    return n;
}

const char *gc_op_label(const gc_rctx *c) {
    return c->custom ? c->custom : gc_builtin_name(c->code);
}

int64_t gc_numel_dims(const int32_t *d, int32_t n) {
    int64_t p = 1;
    for (int32_t i = 0; i < n; i++) p *= d[i];
    return p;
}

bool gc_dims_eq(const gc_tensor *a, const gc_tensor *b) {
    if (a->rank != b->rank) return false;
    for (int32_t i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

bool gc_is_linear_convertible(const gc_tensor *t) {
    if (t->rank == 0) return false;
    for (int32_t i = 0; i + 1 < t->rank; i++)
        if (t->shape[i] != 1) return false;
    return true;
}

bool gc_affine_quant(const gc_tensor *t) {
    return t->quant && t->quant->details_type != 2 && t->quant->n_scale > 0 &&
           t->quant->n_zero_point > 0;
}

bool gc_blockwise_quant(const gc_tensor *t) {
    return t->quant && t->quant->details_type == 2;
}

static const gc_opt_field_def *field_def(int bo_type, int field) {
    if (bo_type <= 0 || bo_type >= gc_opt_tables_count || !gc_opt_tables[bo_type].name) return NULL;
    if (field < 0 || field >= gc_opt_tables[bo_type].n_fields) return NULL;
    return &gc_opt_tables[bo_type].fields[field];
}

int64_t gc_opt_i(const gc_rctx *c, int bo_type, int field) {
    if (c->op->opt.type == bo_type) return gc_opt_int(&c->op->opt, field);
    const gc_opt_field_def *f = field_def(bo_type, field);
    return f ? (int64_t)f->dflt : 0;
}

double gc_opt_f(const gc_rctx *c, int bo_type, int field) {
    if (c->op->opt.type == bo_type) return gc_opt_float(&c->op->opt, field);
    const gc_opt_field_def *f = field_def(bo_type, field);
    return f ? f->dflt : 0.0;
}

bool gc_const_int(const gc_rctx *c, int input, int64_t i, int64_t *v) {
    int32_t ti = gc_in_idx(c, input);
    if (ti < 0 || !gc_is_const_t(c, ti)) return false;
    const gc_tensor *t = &c->sg->tensors[ti];
    const gc_buffer *b = gc_tensor_buffer(c->m, t);
    if (!b || !b->data || i < 0) return false;
    uint64_t off;
    switch (t->type) {
    case GC_T_INT32: {
        int32_t x;
        off = (uint64_t)i * 4;
        if (off + 4 > b->size) return false;
        memcpy(&x, b->data + off, 4); *v = x; return true;
    }
    case GC_T_INT64: {
        int64_t x;
        off = (uint64_t)i * 8;
        if (off + 8 > b->size) return false;
        memcpy(&x, b->data + off, 8); *v = x; return true;
    }
    default: return false;
    }
}

bool gc_custom_i32(const gc_rctx *c, int field, int32_t *v) {
    uint64_t off = (uint64_t)field * 4;
    if (!c->op->custom_options || off + 4 > c->op->n_custom_options) return false;
    memcpy(v, c->op->custom_options + off, 4);
    return true;
}

void gc_dims_str(const gc_tensor *t, char *buf, size_t n, bool x_style) {
    size_t k = 0;
    buf[0] = 0;
    if (!x_style) k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "[");
    for (int32_t i = 0; i < t->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? (x_style ? "x" : ",") : "", t->shape[i]);
    if (!x_style && k < n) snprintf(buf + k, n - k, "]");
}

const char *gc_tflite_type_name(int type) {
    switch (type) {   /* TfLiteTypeGetName spellings */
    case GC_T_FLOAT32: return "FLOAT32";
    case GC_T_FLOAT16: return "FLOAT16";
    case GC_T_BFLOAT16: return "BFLOAT16";
    case GC_T_FLOAT64: return "FLOAT64";
    case GC_T_INT32: return "INT32";
    case GC_T_UINT32: return "UINT32";
    case GC_T_UINT8: return "UINT8";
    case GC_T_INT8: return "INT8";
    case GC_T_INT16: return "INT16";
    case GC_T_UINT16: return "UINT16";
    case GC_T_INT64: return "INT64";
    case GC_T_UINT64: return "UINT64";
    case GC_T_BOOL: return "BOOL";
    case GC_T_STRING: return "STRING";
    case GC_T_COMPLEX64: return "COMPLEX64";
    case GC_T_COMPLEX128: return "COMPLEX128";
    case GC_T_RESOURCE: return "RESOURCE";
    case GC_T_VARIANT: return "VARIANT";
    case GC_T_INT4: return "INT4";
    case GC_T_INT2: return "INT2";
    case -1: return "NOTYPE";
    default: return "Unknown type";
    }
}

/* ---- version gate (CheckMaxSupportedOpVersion, both delegates) ---------------------- */

int gc_version(const gc_rctx *c, gc_hit *h, int max_version) {
    if (max_version >= 0 && c->version > max_version) {
        char rule[64], lower[48];
        const char *name = gc_op_label(c);
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof lower; i++)
            lower[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
        lower[i] = 0;
        snprintf(rule, sizeof rule, "%s.version", lower);
        GC_REJECT(h, rule, -1, "Max version supported: %d. Requested version %d.", max_version,
                  c->version);
    }
    return 0;
}

/* ---- ML Drift pre-checks ----------------------------------------------------------------- */

int gc_pre_tensor_shape(gc_hit *h, const gc_tensor *t, int32_t ti) {
    if (t && t->rank > 5)
        GC_REJECT(h, "rank6", ti, "Tensor \"%s\" has bad input dims size: %d.", t->name, t->rank);
    return 0;
}

int gc_pre_tflite_shape(gc_hit *h, const gc_tensor *t, int32_t ti) {
    if (t && (t->rank < 1 || t->rank > 4))
        GC_REJECT(h, "broadcast.rank", ti, "Tensor \"%s\" has bad input dims size: %d.", t->name,
                  t->rank);
    return 0;
}

int gc_pre_read_value_t(const gc_rctx *c, gc_hit *h, int32_t ti) {
    const gc_tensor *t = gc_tensor_at(c, ti);
    if (!t) GC_REJECT(h, "tensor.missing", -1, "PreCheckReadValue: input tensor index: %d", ti);
    GC_TRY(gc_pre_tensor_shape(h, t, ti));
    if ((t->type == GC_T_INT8 || t->type == GC_T_UINT8) && gc_affine_quant(t) &&
        t->quant->n_scale > 1)
        GC_REJECT(h, "quant.per_channel_activation", ti, "Unsupported quantization scale size");
    return 0;
}

int gc_pre_read_value(const gc_rctx *c, gc_hit *h, int input) {
    if (input < 0 || input >= c->n_in)
        GC_REJECT(h, "tensor.missing", -1, "Invalid input tensor index: %d", input);
    int32_t ti = c->in[input];
    if (ti < 0 || ti > c->sg->n_tensors)
        GC_REJECT(h, "tensor.missing", -1, "Invalid Tensor index: %d", ti);
    return gc_pre_read_value_t(c, h, ti);
}

int gc_pre_outputs(const gc_rctx *c, gc_hit *h) {
    for (int i = 0; i < c->op->n_outputs; i++) GC_TRY(gc_pre_read_value_t(c, h, c->op->outputs[i]));
    return 0;
}

int gc_pre_axis(gc_hit *h, const gc_tensor *t, int64_t axis) {
    int64_t a = axis < 0 ? t->rank + axis : axis;
    if (a < 0 || a >= t->rank) GC_REJECT(h, "axis.range", -1, "Index for axis out of range");
    if (t->rank < 1 || t->rank > 4) GC_REJECT(h, "axis.layout", -1, "Unknown layout.");
    return 0;
}

int gc_pre_read_quantized(const gc_rctx *c, gc_hit *h, int32_t ti) {
    const gc_tensor *t = gc_tensor_at(c, ti);
    if (!t) return 0;
    if (!t->quant)
        GC_REJECT(h, "quant.weights_params", ti,
                  "PreCheckReadQuantizedValueByTensorIdx: Empty quantization params: %d", ti);
    if (!gc_affine_quant(t) && !gc_blockwise_quant(t))
        GC_REJECT(h, "quant.weights_params", ti,
                  "PreCheckReadQuantizedValueByTensorIdx: Tensor is not quantized: %d", ti);
    if (t->type != GC_T_INT8 && t->type != GC_T_INT4 && t->type != GC_T_INT2)
        GC_REJECT(h, "quant.weights_type", ti, "Expected Int8, Int4, or Int2 quantized tensor: %d", ti);
    if (t->rank != 2 && t->rank != 4)
        GC_REJECT(h, "quant.weights_rank", ti,
                  "PreCheckReadQuantizedValueByTensorIdx: Expected 2D or 4D quantized tensor: %d", ti);
    if (t->rank == 4 && (t->shape[1] != 1 || t->shape[2] != 1))
        GC_REJECT(h, "quant.weights_rank", ti,
                  "PreCheckReadQuantizedValueByTensorIdx: Expected 4D quantized tensor with height "
                  "of 1 and width of 1: %d", ti);
    return 0;
}

/* PreCheckTensorToTensor: sparsity, CreateVectorCopyData, CheckAllDimensions<Shape> */
static int pre_tensor_to_tensor(const gc_rctx *c, gc_hit *h, int32_t ti, int shape_kind,
                                bool float_dst, int elem_size) {
    const gc_tensor *t = gc_tensor_at(c, ti);
    char dims[96];
    if (!t) GC_REJECT(h, "tensor.missing", -1, "Invalid Tensor index: %d", ti);
    if (t->sparsity) GC_REJECT(h, "const.sparse", ti, "ML Drift doesn't support sparsity.");
    if (!gc_is_const_t(c, ti)) GC_REJECT(h, "const.required", ti, "src has no data.");
    if (float_dst) {
        switch (t->type) {
        case GC_T_FLOAT32: case GC_T_FLOAT16: case GC_T_INT4: case GC_T_INT8: case GC_T_UINT8:
        case GC_T_INT32: break;
        default: GC_REJECT(h, "const.dtype", ti, "Unsupported data type for float32 tensor");
        }
    } else {
        uint64_t bytes = gc_type_bytes(t->type, gc_tensor_numel(t));
        if (bytes == UINT64_MAX) bytes = 0;
        if (bytes % (uint64_t)elem_size)
            GC_REJECT(h, "const.dtype", ti, "Input data size %llu is not aligned to expected type: %d",
                      (unsigned long long)bytes, elem_size);
        if (gc_tensor_numel(t) * (uint64_t)elem_size != bytes)
            GC_REJECT(h, "const.dtype", ti, "src has wrong size.");
        switch (t->type) {
        case GC_T_FLOAT16: GC_REJECT(h, "const.dtype", ti, "src can't be float16.");
        case GC_T_STRING: GC_REJECT(h, "const.dtype", ti, "src can't be string.");
        case GC_T_COMPLEX64: GC_REJECT(h, "const.dtype", ti, "src can't be complex64.");
        case GC_T_COMPLEX128: GC_REJECT(h, "const.dtype", ti, "src can't be complex128.");
        case GC_T_RESOURCE: GC_REJECT(h, "const.dtype", ti, "src can't be resource.");
        case GC_T_VARIANT: GC_REJECT(h, "const.dtype", ti, "src can't be variant.");
        case GC_T_BFLOAT16: case GC_T_INT2: case GC_T_UINT4: case GC_T_FLOAT8_E4M3FN:
        case GC_T_FLOAT8_E5M2:
            GC_REJECT(h, "const.dtype", ti, "src type not allowed: %d", t->type);
        default: break;
        }
    }
    gc_dims_str(t, dims, sizeof dims, false);
    switch (shape_kind) {
    case GC_SH_SCALAR:
        for (int32_t i = 0; i < t->rank; i++)
            if (t->shape[i] != 1) GC_REJECT(h, "const.shape", ti, "%s  cannot be reduced to scalar.", dims);
        break;
    case GC_SH_LINEAR:
        if (!gc_is_linear_convertible(t)) GC_REJECT(h, "const.shape", ti, "Isn't linear convertible.");
        break;
    case GC_SH_HWC:
        if (t->rank == 3) break;
        if (t->rank == 4) {
            if (t->shape[0] != 1) GC_REJECT(h, "const.batch", ti, "Batch size is not equal to 1.");
            break;
        }
        GC_REJECT(h, "const.shape", ti,
                  "Expected a 3D tensor of shape HxWxC or a 4D tensor of shape 1xHxWxC but got %s", dims);
    case GC_SH_HW:
        if (t->rank != 2) GC_REJECT(h, "const.shape", ti, "Expected a 2D tensor of shape HxW but got %s", dims);
        break;
    case GC_SH_OHWI:
        if (t->rank != 4)
            GC_REJECT(h, "const.shape", ti, "Expected a 4D tensor of shape OxHxWxI but got %s", dims);
        break;
    default:
        if (t->rank > 5)
            GC_REJECT(h, "rank6", ti, "Tensor \"nullptr\" has bad input dims size: %d.", t->rank);
        break;
    }
    return 0;
}

int gc_pre_read_tensor(const gc_rctx *c, gc_hit *h, int input, int shape_kind, bool float_dst) {
    if (input < 0 || input >= c->n_in)
        GC_REJECT(h, "tensor.missing", -1, "Invalid input tensor index: %d", input);
    return pre_tensor_to_tensor(c, h, c->in[input], shape_kind, float_dst, 4);
}

int gc_pre_runtime_or_const(const gc_rctx *c, gc_hit *h, int input) {
    gc_hit tmp;
    if (!gc_pre_read_value(c, &tmp, input)) return 0;
    const gc_tensor *t = gc_in(c, input);
    if (!t) GC_REJECT(h, "tensor.missing", -1, "input #%d tensor is not available", input);
    if (t->type == GC_T_FLOAT32) return pre_tensor_to_tensor(c, h, c->in[input], GC_SH_BHWC, true, 4);
    if (t->type == GC_T_BOOL) return pre_tensor_to_tensor(c, h, c->in[input], GC_SH_BHWC, false, 1);
    if (t->type == GC_T_INT32) return pre_tensor_to_tensor(c, h, c->in[input], GC_SH_BHWC, false, 4);
    GC_REJECT(h, "const.dtype", c->in[input], "Unsupported tensor type in NewConstNode: %s",
              gc_tflite_type_name(t->type));
}

int gc_pre_fuse_act(const gc_rctx *c, gc_hit *h, int64_t act, bool skip_size) {
    if (!skip_size && c->op->n_outputs != 1)
        GC_REJECT(h, "activation.outputs", -1, "Number of outputs != 1");
    switch (act) {
    case 0: case 1: case 2: case 3: case 4: case 6: return 0;
    default: GC_REJECT(h, "activation", -1, "Unsupported fused activation: %lld", (long long)act);
    }
}

int gc_validate(const gc_rctx *c, gc_hit *h, gc_vopts o) {
    GC_TRY(gc_version(c, h, o.max_version ? o.max_version : -1));
    if (!o.no_compat) GC_TRY(gc_compat(c, h, o.bcast));
    int n_in = c->n_in;
    if (o.min_inputs && n_in < o.min_inputs)
        GC_REJECT(h, "inputs.count", -1, "Invalid number of inputs: %d, while expected at least %d.",
                  n_in, o.min_inputs);
    if (o.max_inputs && n_in > o.max_inputs)
        GC_REJECT(h, "inputs.count", -1, "Invalid number of inputs: %d, while expected at most %d.",
                  n_in, o.max_inputs);
    if (o.num_outputs && c->op->n_outputs != o.num_outputs)
        GC_REJECT(h, "outputs.count", -1, "Expected %d output tensor(s), but node has %d output(s).",
                  o.num_outputs, c->op->n_outputs);
    if (o.rt_inputs && gc_n_runtime_inputs(c) != o.rt_inputs - 1)
        GC_REJECT(h, "inputs.runtime_count", -1,
                  "Expected %d runtime input tensor(s), but node has %d runtime input(s).",
                  o.rt_inputs - 1, gc_n_runtime_inputs(c));
    if (o.const_inputs && gc_n_const_inputs(c) != o.const_inputs - 1)
        GC_REJECT(h, "inputs.const_count", -1,
                  "Expected %d const input tensor(s), but node has %d const input(s).",
                  o.const_inputs - 1, gc_n_const_inputs(c));
    return gc_pre_outputs(c, h);
}

/* ---- the tensor type / rank filter --------------------------------------------------------
 * Runs after the parser accepted the node. Every non-optional tensor with rank >= 5 fails
 * (constants included); kTfLiteArenaRw tensors (not constant, not variable, not dynamic,
 * not persistent read-only) must have an allowed type. */

typedef struct { uint32_t in, out; } typeset;   /* bit k = GC_T_k allowed */
#define B(t) (1u << (t))

static typeset mldrift_types(const gc_rctx *c) {
    typeset s = { B(GC_T_FLOAT32) | B(GC_T_FLOAT16) | B(GC_T_BOOL), B(GC_T_FLOAT32) | B(GC_T_FLOAT16) };
    const uint32_t ints = B(GC_T_INT8) | B(GC_T_INT16) | B(GC_T_INT32);
    const uint32_t uints = B(GC_T_UINT8) | B(GC_T_UINT16) | B(GC_T_UINT32);
    s.in |= B(GC_T_INT2) | B(GC_T_INT4) | B(GC_T_INT8) | B(GC_T_UINT8);   /* quant ops allowed */
    s.out |= B(GC_T_INT8) | B(GC_T_UINT8);
    switch (c->code) {
    case GC_OP_ARG_MAX: s.out = B(GC_T_INT32); break;
    case GC_OP_REDUCE_ALL: case GC_OP_REDUCE_ANY: s.in = s.out = B(GC_T_BOOL); break;
    case GC_OP_EMBEDDING_LOOKUP: case GC_OP_ONE_HOT: case GC_OP_DYNAMIC_UPDATE_SLICE:
        s.in |= B(GC_T_INT32); break;
    case GC_OP_EQUAL: case GC_OP_NOT_EQUAL: case GC_OP_GREATER: case GC_OP_GREATER_EQUAL:
    case GC_OP_LESS: case GC_OP_LESS_EQUAL:
        s.in |= ints | uints; s.out |= B(GC_T_BOOL); break;
    case GC_OP_LOGICAL_AND: case GC_OP_LOGICAL_OR: case GC_OP_LOGICAL_NOT: case GC_OP_BITWISE_XOR:
        s.in = s.out = B(GC_T_BOOL) | ints; break;
    case GC_OP_TOPK_V2: s.out |= B(GC_T_INT32); break;
    default: break;
    }
    switch (c->code) {   /* IsBf16SupportedOp */
    case GC_OP_ABS: case GC_OP_ADD: case GC_OP_ATAN2: case GC_OP_STABLEHLO_CBRT: case GC_OP_CEIL:
    case GC_OP_STABLEHLO_CLAMP: case GC_OP_CONV_2D: case GC_OP_COS: case GC_OP_DIV: case GC_OP_EXP:
    case GC_OP_FLOOR: case GC_OP_GATHER: case GC_OP_LOG: case GC_OP_LOGISTIC: case GC_OP_MAXIMUM:
    case GC_OP_MINIMUM: case GC_OP_MUL: case GC_OP_NEG: case GC_OP_POW: case GC_OP_ROUND:
    case GC_OP_RSQRT: case GC_OP_SIGN: case GC_OP_SIN: case GC_OP_SQRT: case GC_OP_SUB: case GC_OP_TANH:
        s.in |= B(GC_T_BFLOAT16); s.out |= B(GC_T_BFLOAT16); break;
    default: break;
    }
    switch (c->code) {   /* IsIntSupportedOp */
    case GC_OP_ABS: case GC_OP_ADD: case GC_OP_ATAN2: case GC_OP_COS: case GC_OP_DIV:
    case GC_OP_FLOOR_DIV: case GC_OP_FLOOR_MOD: case GC_OP_MAXIMUM: case GC_OP_MINIMUM: case GC_OP_MUL:
    case GC_OP_NEG: case GC_OP_REDUCE_MAX: case GC_OP_REDUCE_MIN: case GC_OP_REDUCE_PROD:
    case GC_OP_RIGHT_SHIFT: case GC_OP_SIGN: case GC_OP_SIN: case GC_OP_STABLEHLO_CLAMP: case GC_OP_SUB:
    case GC_OP_SUM: case GC_OP_STABLEHLO_REMAINDER: case GC_OP_TILE:
        s.in |= ints; s.out |= ints; break;
    default: break;
    }
    if (c->custom && (!strcmp(c->custom, "odml.cache_update") || !strcmp(c->custom, "odml.runtime_bmm") ||
                      !strcmp(c->custom, "moe") || !strcmp(c->custom, "odml.rope") ||
                      !strcmp(c->custom, "odml.sdpa_transposed")))
        s.in |= B(GC_T_INT32);
    switch (c->code) {   /* SupportAllPrecisionOp */
    case GC_OP_STABLEHLO_BROADCAST_IN_DIM: case GC_OP_BITCAST: case GC_OP_CAST: case GC_OP_CONCATENATION:
    case GC_OP_DYNAMIC_UPDATE_SLICE: case GC_OP_GATHER: case GC_OP_PACK: case GC_OP_PAD: case GC_OP_PADV2:
    case GC_OP_RESHAPE: case GC_OP_REVERSE_V2: case GC_OP_SELECT: case GC_OP_SELECT_V2: case GC_OP_SLICE:
    case GC_OP_STRIDED_SLICE: case GC_OP_TRANSPOSE:
        s.in |= ints | uints | B(GC_T_BOOL) | B(GC_T_BFLOAT16);
        s.out |= ints | uints | B(GC_T_BOOL) | B(GC_T_BFLOAT16);
        break;
    default: break;
    }
    if (c->code == GC_OP_STABLEHLO_SHIFT_LEFT) { s.in |= ints; s.out |= ints; }
    return s;
}

static typeset classic_types(const gc_rctx *c) {
    typeset s = { B(GC_T_FLOAT32) | B(GC_T_FLOAT16) | B(GC_T_INT8) | B(GC_T_UINT8),
                  B(GC_T_FLOAT32) | B(GC_T_FLOAT16) | B(GC_T_INT8) | B(GC_T_UINT8) };
    switch (c->code) {
    case GC_OP_EQUAL: case GC_OP_NOT_EQUAL: case GC_OP_GREATER: case GC_OP_GREATER_EQUAL:
    case GC_OP_LESS: case GC_OP_LESS_EQUAL: s.out |= B(GC_T_BOOL); break;
    case GC_OP_CAST: s.in |= B(GC_T_BOOL) | B(GC_T_INT32); s.out |= B(GC_T_INT32) | B(GC_T_BOOL); break;
    case GC_OP_ONE_HOT: s.in |= B(GC_T_INT32); break;
    case GC_OP_SELECT: case GC_OP_SELECT_V2: s.in |= B(GC_T_BOOL); break;
    case GC_OP_LOGICAL_AND: s.in |= B(GC_T_BOOL); s.out |= B(GC_T_BOOL); break;
    case GC_OP_GATHER: s.in |= B(GC_T_INT32); break;
    default: break;
    }
    return s;
}

static bool arena_rw(const gc_rctx *c, int32_t t) {
    return !(c->tf[t] & (GC_TF_CONST | GC_TF_VARIABLE | GC_TF_DYNAMIC | GC_TF_PERSIST_RO));
}

static int filter_list(const gc_rctx *c, gc_hit *h, const int32_t *ts, int n, uint32_t allowed) {
    bool ml = c->target == GC_TARGET_MLDRIFT;
    for (int i = 0; i < n; i++) {
        int32_t t = ts[i];
        if (t < 0 || t >= c->sg->n_tensors) continue;
        const gc_tensor *x = &c->sg->tensors[t];
        if (x->rank >= 5) {
            if (ml) GC_REJECT(h, "rank5", t, "Tensor dimensions must be less than 5. %s", x->name);
            GC_REJECT(h, "rank5", t, "OP is supported, but tensor type/shape isn't compatible.");
        }
        bool ok = x->type >= 0 && x->type < 32 && (allowed & B(x->type));
        if (arena_rw(c, t) && !ok) {
            if (ml)
                GC_REJECT(h, "dtype", t, "Tensor type(%s) is not supported. %s",
                          gc_tflite_type_name(x->type), x->name);
            GC_REJECT(h, "dtype", t, "OP is supported, but tensor type/shape isn't compatible.");
        }
    }
    return 0;
}

int gc_type_filter(const gc_rctx *c, gc_hit *h) {
    typeset s = c->target == GC_TARGET_MLDRIFT ? mldrift_types(c) : classic_types(c);
    GC_TRY(filter_list(c, h, c->in, c->n_in, s.in));
    return filter_list(c, h, c->op->outputs, c->op->n_outputs, s.out);
}

/* ExtractTensorShape (§2.1): rank 1 [a] -> (a,1,1,1), 2 -> (a,1,1,b), 3 -> (a,1,b,c),
 * 4 as is; other ranks (and no tensor) -> (1,1,1,1). */
void gc_bhwc(const gc_tensor *t, int32_t s[4]) {
    s[0] = s[1] = s[2] = s[3] = 1;
    if (!t) return;
    switch (t->rank) {
    case 1: s[0] = t->shape[0]; break;
    case 2: s[0] = t->shape[0]; s[3] = t->shape[1]; break;
    case 3: s[0] = t->shape[0]; s[2] = t->shape[1]; s[3] = t->shape[2]; break;
    case 4: memcpy(s, t->shape, 4 * sizeof(int32_t)); break;
    default: break;
    }
}
