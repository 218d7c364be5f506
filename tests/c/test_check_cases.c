/* test_check_cases.c — the per-rule model catalogue (tools/rule-models.h): for each GPU
 * rule of src/check a tiny model that triggers it and, next to it, one that does not.
 * The expected rule ids and messages are the delegates' (gpu-delegate-rules.md §3, §4,
 * §6). Used by test_check_rules.c and by tools/rule-models.c (which writes them out for a
 * run on the real accelerator). The node under test writes the tensor "probe".
 */
#include "../../tools/rule-models.h"
#include "check/check.h"

#include <stdlib.h>
#include <string.h>

/* ---- builder -------------------------------------------------------------------------- */

gc_rb gc_rb_new(void) {
    gc_rb b = { gc_model_new(), 0, 0 };
    b.sg = gc_model_add_subgraph(b.m, "main");
    return b;
}

int32_t gc_rb_t(gc_rb *b, const char *name, int type, int rank, const int32_t *shape) {
    return gc_sg_add_tensor(b->m, b->sg, name, type, rank, shape, 0);
}

int32_t gc_rb_c(gc_rb *b, const char *name, int type, int rank, const int32_t *shape, const void *data) {
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) n *= (uint64_t)shape[i];
    uint64_t bytes = gc_type_bytes(type, n);
    void *fill = NULL;
    if (!data) {
        fill = calloc(1, bytes ? bytes : 1);
        for (uint64_t i = 0; fill && i < n; i++) {
            if (type == GC_T_FLOAT32) ((float *)fill)[i] = 0.5f + 0.25f * (float)(i % 4);
            else if (type == GC_T_INT32) ((int32_t *)fill)[i] = 1;
            else if (type == GC_T_INT64) ((int64_t *)fill)[i] = 1;
            else if (type == GC_T_FLOAT16) ((uint16_t *)fill)[i] = 0x3800;   /* 0.5 */
            else if (type == GC_T_INT8 || type == GC_T_UINT8 || type == GC_T_BOOL) ((uint8_t *)fill)[i] = 1;
        }
        data = fill;
    }
    int32_t buf = gc_model_add_buffer(b->m, data, bytes);
    free(fill);
    return gc_sg_add_tensor(b->m, b->sg, name, type, rank, shape, (uint32_t)buf);
}

int32_t gc_rb_i32(gc_rb *b, const char *name, int n, const int32_t *v) {
    int32_t sh[1] = { n };
    return gc_rb_c(b, name, GC_T_INT32, 1, sh, v);
}

int32_t gc_rb_op(gc_rb *b, int32_t code, int version, int n_in, const int32_t *in, int n_out, const int32_t *out) {
    int32_t oc = gc_model_add_opcode(b->m, code, NULL, version);
    return gc_sg_insert_op(b->m, b->sg, -1, oc, n_in, in, n_out, out);
}

int32_t gc_rb_custom(gc_rb *b, const char *name, int n_in, const int32_t *in, int n_out, const int32_t *out,
                     const void *options, uint32_t n_options) {
    int32_t oc = gc_model_add_opcode(b->m, GC_OP_CUSTOM, name, 1);
    int32_t op = gc_sg_insert_op(b->m, b->sg, -1, oc, n_in, in, n_out, out);
    if (options && n_options) {
        gc_op *o = &b->m->subgraphs[b->sg].ops[op];
        o->custom_options = gc_arena_dup(&b->m->arena, options, n_options);
        o->n_custom_options = n_options;
    }
    return op;
}

void gc_rb_opt(gc_rb *b, int32_t op, int field, int64_t v) {
    gc_op *o = &b->m->subgraphs[b->sg].ops[op];
    gc_opt_set_int(b->m, &o->opt, field, v);
}

void gc_rb_optf(gc_rb *b, int32_t op, int field, double v) {
    gc_op *o = &b->m->subgraphs[b->sg].ops[op];
    gc_opt_set_float(b->m, &o->opt, field, v);
}

void gc_rb_quant(gc_rb *b, int32_t t, int n_scale, float scale, int64_t zero_point) {
    gc_quant *q = gc_arena_alloc(&b->m->arena, sizeof *q);
    q->n_scale = q->n_zero_point = n_scale;
    q->scale = gc_arena_alloc(&b->m->arena, sizeof(float) * (size_t)n_scale);
    q->zero_point = gc_arena_alloc(&b->m->arena, sizeof(int64_t) * (size_t)n_scale);
    for (int i = 0; i < n_scale; i++) { q->scale[i] = scale; q->zero_point[i] = zero_point; }
    b->m->subgraphs[b->sg].tensors[t].quant = q;
}

gc_model *gc_rb_done(gc_rb *b) {
    gc_subgraph *sg = &b->m->subgraphs[b->sg];
    int32_t *ins = malloc(sizeof(int32_t) * (size_t)(sg->n_tensors + 1));
    int32_t *outs = malloc(sizeof(int32_t) * (size_t)(sg->n_tensors + 1));
    int ni = 0, no = 0;
    for (int32_t t = 0; t < sg->n_tensors; t++) {
        bool produced = gc_sg_producer(b->m, b->sg, t) >= 0;
        int32_t cons = gc_sg_consumers(b->m, b->sg, t, NULL, 0);
        if (!produced && !gc_tensor_is_const(b->m, &sg->tensors[t]) && cons > 0) ins[ni++] = t;
        if (produced && cons == 0) outs[no++] = t;
    }
    gc_sg_set_io(b->m, b->sg, ni, ins, no, outs);
    free(ins); free(outs);
    return b->m;
}

/* ---- shorthands -------------------------------------------------------------------------- */

#define L(...) (int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (const int32_t[]){__VA_ARGS__}
#define F32 GC_T_FLOAT32
#define T(name, type, ...) gc_rb_t(&b, name, type, L(__VA_ARGS__))
#define C(name, type, ...) gc_rb_c(&b, name, type, L(__VA_ARGS__), NULL)
#define I32(name, ...) gc_rb_i32(&b, name, L(__VA_ARGS__))
#define OP(code, ver, ins, outs) gc_rb_op(&b, code, ver, ins, outs)
#define IN(...) L(__VA_ARGS__)
#define OUT(...) L(__VA_ARGS__)
#define BEGIN gc_rb b = gc_rb_new()
#define END return gc_rb_done(&b)

/* a unary probe: x[shape] -> op -> probe[shape] */
static gc_model *unary(int32_t code, int ver, int type, int rank, const int32_t *shape) {
    BEGIN;
    int32_t x = gc_rb_t(&b, "x", type, rank, shape), p = gc_rb_t(&b, "probe", type, rank, shape);
    OP(code, ver, IN(x), OUT(p));
    END;
}

/* ---- rank, type, unsupported ops ------------------------------------------------------- */

static gc_model *m_reshape_rank5(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 2, 3, 4), s = I32("shape", 1, 2, 3, 2, 2), p = T("probe", F32, 1, 2, 3, 2, 2);
    int32_t y = T("y", F32, 1, 2, 3, 4), s4 = I32("shape4", 1, 2, 3, 4);
    OP(GC_OP_RESHAPE, 1, IN(x, s), OUT(p));
    OP(GC_OP_RESHAPE, 1, IN(p, s4), OUT(y));
    END;
}
static gc_model *m_reshape_rank4(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 2, 3, 4), s = I32("shape", 1, 6, 2, 2), p = T("probe", F32, 1, 6, 2, 2);
    OP(GC_OP_RESHAPE, 1, IN(x, s), OUT(p));
    END;
}
static gc_model *m_reshape_rank6(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 2, 3, 4), s = I32("shape", 1, 2, 3, 2, 1, 2), p = T("probe", F32, 1, 2, 3, 2, 1, 2);
    OP(GC_OP_RESHAPE, 1, IN(x, s), OUT(p));
    END;
}
static gc_model *m_argmax(int out_type) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), a = I32("axis", 3), p = T("probe", out_type, 1, 4, 4);
    int32_t op = OP(GC_OP_ARG_MAX, 2, IN(x, a), OUT(p));
    gc_rb_opt(&b, op, GC_O_ArgMaxOptions_output_type, out_type);
    END;
}
static gc_model *m_argmax_i64(void) { return m_argmax(GC_T_INT64); }
static gc_model *m_argmax_i32(void) { return m_argmax(GC_T_INT32); }
static gc_model *m_gather_nd(void) {
    BEGIN;
    int32_t x = T("x", F32, 4, 3), i = gc_rb_c(&b, "idx", GC_T_INT32, L(2, 1), NULL), p = T("probe", F32, 2, 3);
    OP(GC_OP_GATHER_ND, 1, IN(x, i), OUT(p));
    END;
}
static gc_model *m_squeeze(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 1, 1, 8), p = T("probe", F32, 1, 8);
    int32_t op = OP(GC_OP_SQUEEZE, 1, IN(x), OUT(p));
    gc_opt_set_vec(b.m, &b.m->subgraphs[0].ops[op].opt, GC_O_SqueezeOptions_squeeze_dims, (const int32_t[]){1, 2}, 2);
    END;
}
static gc_model *m_broadcast_to_runtime(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 1, 4, 8), s = I32("shape", 1, 3, 4, 8), p = T("probe", F32, 1, 3, 4, 8);
    OP(GC_OP_BROADCAST_TO, 2, IN(x, s), OUT(p));
    END;
}
static gc_model *m_add_i32(void) {
    BEGIN;
    int32_t x = T("x", GC_T_INT32, 1, 8), y = T("y", GC_T_INT32, 1, 8), p = T("probe", GC_T_INT32, 1, 8);
    OP(GC_OP_ADD, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_logical_and_float(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), y = T("y", F32, 1, 8), p = T("probe", GC_T_BOOL, 1, 8);
    OP(GC_OP_LOGICAL_AND, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_cast_to_int64(void) {   /* float -> INT64 -> float */
    BEGIN;
    int32_t x = T("x", F32, 1, 8), p = T("probe", GC_T_INT64, 1, 8), y = T("y", F32, 1, 8);
    OP(GC_OP_CAST, 1, IN(x), OUT(p));
    OP(GC_OP_CAST, 1, IN(p), OUT(y));
    END;
}
static gc_model *m_logical_and_const_bool(void) {   /* GREATER -> LOGICAL_AND(b, true) -> CAST */
    BEGIN;
    int32_t x = T("x", F32, 1, 8), y = T("y", F32, 1, 8), g = T("g", GC_T_BOOL, 1, 8);
    int32_t k = gc_rb_c(&b, "k", GC_T_BOOL, 0, NULL, NULL), p = T("probe", GC_T_BOOL, 1, 8), f = T("f", F32, 1, 8);
    OP(GC_OP_GREATER, 1, IN(x, y), OUT(g));
    OP(GC_OP_LOGICAL_AND, 1, IN(g, k), OUT(p));
    OP(GC_OP_CAST, 1, IN(p), OUT(f));
    END;
}
static gc_model *m_relu_0_to_1(void) { return unary(GC_OP_RELU_0_TO_1, 1, F32, L(1, 8, 8, 4)); }
static gc_model *m_relu(void) { return unary(GC_OP_RELU, 1, F32, L(1, 8, 8, 4)); }
static gc_model *m_hard_swish(void) { return unary(GC_OP_HARD_SWISH, 1, F32, L(1, 8, 8, 4)); }
static gc_model *m_bitwise_xor(void) {
    BEGIN;
    int32_t x = T("x", GC_T_INT32, 1, 8), y = T("y", GC_T_INT32, 1, 8), p = T("probe", GC_T_INT32, 1, 8);
    OP(GC_OP_BITWISE_XOR, 1, IN(x, y), OUT(p));
    END;
}

/* ---- versions ---------------------------------------------------------------------------- */

static gc_model *m_transpose_conv(int ver) {
    BEGIN;
    int32_t os = I32("output_shape", 1, 8, 8, 4), w = C("w", F32, 4, 3, 3, 2), x = T("x", F32, 1, 4, 4, 2);
    int32_t p = T("probe", F32, 1, 8, 8, 4);
    int32_t op = OP(GC_OP_TRANSPOSE_CONV, ver, IN(os, w, x), OUT(p));
    gc_rb_opt(&b, op, GC_O_TransposeConvOptions_stride_w, 2);
    gc_rb_opt(&b, op, GC_O_TransposeConvOptions_stride_h, 2);
    gc_rb_opt(&b, op, GC_O_TransposeConvOptions_padding, 0);
    if (ver >= 4) gc_rb_opt(&b, op, GC_O_TransposeConvOptions_fused_activation_function, 1);
    END;
}
static gc_model *m_tconv_v4(void) { return m_transpose_conv(4); }
static gc_model *m_tconv_v3(void) { return m_transpose_conv(3); }
static gc_model *m_add_v(int ver) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), y = T("y", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_ADD, ver, IN(x, y), OUT(p));
    END;
}
static gc_model *m_add_v7(void) { return m_add_v(7); }
static gc_model *m_add_v3(void) { return m_add_v(3); }

/* ---- elementwise ------------------------------------------------------------------------- */

static gc_model *m_sub_identical(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_SUB, 1, IN(x, x), OUT(p));
    END;
}
static gc_model *m_add_identical(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_ADD, 1, IN(x, x), OUT(p));
    END;
}
static gc_model *m_add_bcast_bad(void) {   /* invalid for the CPU runtime: C tests only */
    BEGIN;
    int32_t x = T("x", F32, 2, 3, 4), y = T("y", F32, 5, 4), p = T("probe", F32, 2, 3, 4);
    OP(GC_OP_ADD, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_add_bcast_3_2(void) {   /* [2,3,4] + [3,4]: NumPy yes, kStandard no */
    BEGIN;
    int32_t x = T("x", F32, 2, 3, 4), y = T("y", F32, 3, 4), p = T("probe", F32, 2, 3, 4);
    OP(GC_OP_ADD, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_sub_bcast_bad(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 3, 4), y = T("y", F32, 5, 4), p = T("probe", F32, 2, 3, 4);
    OP(GC_OP_SUB, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_mul_bcast_mixed(void) {   /* [1,2,3,4] * [3,4]: NumPy-broadcastable */
    BEGIN;
    int32_t x = T("x", F32, 1, 2, 3, 4), y = T("y", F32, 3, 4), p = T("probe", F32, 1, 2, 3, 4);
    OP(GC_OP_MUL, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_sub_scalar_runtime(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 3), s = gc_rb_t(&b, "s", F32, 0, NULL), p = T("probe", F32, 2, 3);
    OP(GC_OP_SUB, 1, IN(x, s), OUT(p));
    END;
}
static gc_model *m_add_bool_const(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), k = gc_rb_c(&b, "k", GC_T_BOOL, 0, NULL, NULL), p = T("probe", F32, 1, 8);
    OP(GC_OP_ADD, 1, IN(x, k), OUT(p));
    END;
}
static gc_model *m_add_sign_bit(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), y = T("y", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    int32_t op = OP(GC_OP_ADD, 1, IN(x, y), OUT(p));
    gc_rb_opt(&b, op, GC_O_AddOptions_fused_activation_function, 5);
    END;
}
static gc_model *m_greater_to_output(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), y = T("y", F32, 1, 8), p = T("probe", GC_T_BOOL, 1, 8);
    OP(GC_OP_GREATER, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_greater_to_cast(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), y = T("y", F32, 1, 8), p = T("probe", GC_T_BOOL, 1, 8), f = T("f", F32, 1, 8);
    int32_t r = T("r", F32, 1, 8);
    OP(GC_OP_GREATER, 1, IN(x, y), OUT(p));
    OP(GC_OP_CAST, 1, IN(p), OUT(f));
    OP(GC_OP_RELU, 1, IN(f), OUT(r));
    END;
}
static gc_model *m_cast_i32_f32(void) {
    BEGIN;
    int32_t x = T("x", GC_T_INT32, 1, 8), p = T("probe", F32, 1, 8);
    OP(GC_OP_CAST, 1, IN(x), OUT(p));
    END;
}
static gc_model *m_cast_bool_input(void) {
    BEGIN;
    int32_t x = T("x", GC_T_BOOL, 1, 8), p = T("probe", F32, 1, 8);
    OP(GC_OP_CAST, 1, IN(x), OUT(p));
    END;
}
static gc_model *m_mul_scalar_runtime_classic(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), s = gc_rb_t(&b, "s", F32, 0, NULL), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_MUL, 1, IN(x, s), OUT(p));
    END;
}

/* ---- conv / matmul / pool ---------------------------------------------------------------- */

static gc_model *m_conv(int dil, int act) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 3), w = C("w", F32, 4, 3, 3, 3), bias = C("bias", F32, 4), p = T("probe", F32, 1, 8, 8, 4);
    int32_t op = OP(GC_OP_CONV_2D, 1, IN(x, w, bias), OUT(p));
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_stride_w, 1);
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_stride_h, 1);
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_dilation_w_factor, dil);
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_dilation_h_factor, dil);
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_fused_activation_function, act);
    END;
}
static gc_model *m_conv_ok(void) { return m_conv(1, 0); }
static gc_model *m_conv_dilation0(void) { return m_conv(0, 0); }
static gc_model *m_conv_sign_bit(void) { return m_conv(1, 5); }
static gc_model *m_dw(int mult, bool runtime_w) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 2);
    int32_t w = runtime_w ? T("w", F32, 1, 3, 3, 4) : C("w", F32, 1, 3, 3, 4);
    int32_t bias = C("bias", F32, 4), p = T("probe", F32, 1, 8, 8, 4);
    int32_t op = OP(GC_OP_DEPTHWISE_CONV_2D, 1, IN(x, w, bias), OUT(p));
    gc_rb_opt(&b, op, GC_O_DepthwiseConv2DOptions_stride_w, 1);
    gc_rb_opt(&b, op, GC_O_DepthwiseConv2DOptions_stride_h, 1);
    gc_rb_opt(&b, op, GC_O_DepthwiseConv2DOptions_depth_multiplier, mult);
    END;
}
static gc_model *m_dw_mult_bad(void) { return m_dw(1, false); }
static gc_model *m_dw_mult_ok(void) { return m_dw(2, false); }
static gc_model *m_dw_runtime_mult(void) { return m_dw(2, true); }
static gc_model *m_fc(bool const_in, bool keep_bad) {
    BEGIN;
    int32_t x = const_in ? C("x", F32, 2, 8) : keep_bad ? T("x", F32, 1, 2, 8) : T("x", F32, 2, 8);
    int32_t w = C("w", F32, 4, 8), bias = C("bias", F32, 4);
    int32_t p = keep_bad ? T("probe", F32, 1, 2, 4) : T("probe", F32, 2, 4);
    int32_t op = OP(GC_OP_FULLY_CONNECTED, 1, IN(x, w, bias), OUT(p));
    if (keep_bad) gc_rb_opt(&b, op, GC_O_FullyConnectedOptions_keep_num_dims, 1);
    if (const_in) {   /* something to run on the GPU next to it */
        int32_t y = T("y", F32, 2, 4), z = T("z", F32, 2, 4);
        OP(GC_OP_ADD, 1, IN(p, y), OUT(z));
    }
    END;
}
static gc_model *m_fc_ok(void) { return m_fc(false, false); }
static gc_model *m_fc_const_input(void) { return m_fc(true, false); }
static gc_model *m_fc_keep_dims(void) { return m_fc(false, true); }
static gc_model *m_bmm(bool const_lhs, int rhs_rank) {
    BEGIN;
    int32_t a = const_lhs ? C("a", F32, 1, 4, 8) : T("a", F32, 1, 4, 8);
    int32_t bb = rhs_rank == 5 ? C("b", F32, 1, 1, 1, 8, 6) : T("b", F32, 1, 8, 6);
    int32_t p = rhs_rank == 5 ? T("probe", F32, 1, 1, 1, 4, 6) : T("probe", F32, 1, 4, 6);
    OP(GC_OP_BATCH_MATMUL, 1, IN(a, bb), OUT(p));
    END;
}
static gc_model *m_bmm_ok(void) { return m_bmm(false, 3); }
static gc_model *m_bmm_const_lhs(void) { return m_bmm(true, 3); }
static gc_model *m_bmm_rhs_rank5(void) { return m_bmm(false, 5); }
static gc_model *m_pool(int k) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 3), p = T("probe", F32, 1, 4, 4, 3);
    int32_t op = OP(GC_OP_MAX_POOL_2D, 1, IN(x), OUT(p));
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_filter_width, k);
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_filter_height, k);
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_stride_w, 2);
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_stride_h, 2);
    END;
}
static gc_model *m_pool_ok(void) { return m_pool(2); }
static gc_model *m_pool_kernel0(void) { return m_pool(0); }

/* ---- shape ops ---------------------------------------------------------------------------- */

static gc_model *m_gather(int idx_rank, bool i32_data) {
    BEGIN;
    int type = i32_data ? GC_T_INT32 : F32;
    int32_t x = i32_data ? T("x", type, 10, 4) : C("x", type, 10, 4);
    int32_t i = idx_rank == 1 ? T("idx", GC_T_INT32, 3) : T("idx", GC_T_INT32, 1, 3);
    int32_t p = idx_rank == 1 ? T("probe", type, 3, 4) : T("probe", type, 1, 3, 4);
    OP(GC_OP_GATHER, 1, IN(x, i), OUT(p));
    END;
}
static gc_model *m_gather_1d(void) { return m_gather(1, false); }
static gc_model *m_gather_2d(void) { return m_gather(2, false); }
static gc_model *m_gather_i32(void) { return m_gather(1, true); }
static gc_model *m_strided_slice(int shrink, int ver) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 6, 3), be = I32("begin", 0, 0, 0, 0), en = I32("end", 1, 4, 6, 3);
    int32_t st = I32("strides", 1, 1, 2, 1);
    int32_t p = shrink ? T("probe", F32, 4, 3, 3) : T("probe", F32, 1, 4, 3, 3);
    int32_t op = OP(GC_OP_STRIDED_SLICE, ver, IN(x, be, en, st), OUT(p));
    if (shrink) gc_rb_opt(&b, op, GC_O_StridedSliceOptions_shrink_axis_mask, 1);
    END;
}
static gc_model *m_ss_ok(void) { return m_strided_slice(0, 1); }
static gc_model *m_ss_shrink(void) { return m_strided_slice(1, 1); }
static gc_model *m_ss_v3(void) { return m_strided_slice(0, 3); }
static gc_model *m_ss_bad_shape(void) {   /* output shape inconsistent with the slice */
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 6, 3), be = I32("begin", 0, 0, 0, 0), en = I32("end", 1, 4, 6, 3);
    int32_t st = I32("strides", 1, 1, 2, 1), p = T("probe", F32, 1, 4, 6, 3);
    OP(GC_OP_STRIDED_SLICE, 1, IN(x, be, en, st), OUT(p));
    END;
}
static gc_model *m_pad(int pr, bool i64) {
    BEGIN;
    int32_t x = pr == 4 ? T("x", F32, 1, 4, 4, 3) : T("x", F32, 4, 3);
    int32_t pad = i64 ? C("paddings", GC_T_INT64, pr, 2) : C("paddings", GC_T_INT32, pr, 2);
    int32_t p = pr == 4 ? T("probe", F32, 3, 6, 6, 5) : T("probe", F32, 6, 5);
    OP(GC_OP_PAD, 1, IN(x, pad), OUT(p));
    END;
}
static gc_model *m_pad_ok(void) { return m_pad(4, false); }
static gc_model *m_pad_2x2(void) { return m_pad(2, false); }
static gc_model *m_pad_i64(void) { return m_pad(4, true); }
static gc_model *m_mirror_pad(int mode) {
    BEGIN;
    static const int32_t pads[8] = { 0, 0, 1, 1, 1, 1, 0, 0 };
    int32_t x = T("x", F32, 1, 4, 4, 3), pad = gc_rb_c(&b, "paddings", GC_T_INT32, L(4, 2), pads);
    int32_t p = T("probe", F32, 1, 6, 6, 3);
    int32_t op = OP(GC_OP_MIRROR_PAD, 1, IN(x, pad), OUT(p));
    gc_rb_opt(&b, op, GC_O_MirrorPadOptions_mode, mode);
    END;
}
static gc_model *m_mirror_pad_reflect(void) { return m_mirror_pad(0); }
static gc_model *m_mirror_pad_symmetric(void) { return m_mirror_pad(1); }
static gc_model *m_transpose(int rank) {
    BEGIN;
    int32_t x, perm, p;
    if (rank == 5) {
        x = T("x", F32, 1, 2, 3, 4, 5); perm = I32("perm", 0, 2, 1, 3, 4); p = T("probe", F32, 1, 3, 2, 4, 5);
    } else {
        x = T("x", F32, 1, 2, 3, 4); perm = I32("perm", 0, 2, 1, 3); p = T("probe", F32, 1, 3, 2, 4);
    }
    OP(GC_OP_TRANSPOSE, 1, IN(x, perm), OUT(p));
    END;
}
static gc_model *m_transpose_ok(void) { return m_transpose(4); }
static gc_model *m_transpose_rank5(void) { return m_transpose(5); }
static gc_model *m_slice_rank5(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 2, 3, 4, 5), be = I32("begin", 0, 0, 0, 0, 0), sz = I32("size", 1, 1, 3, 4, 5);
    int32_t p = T("probe", F32, 1, 1, 3, 4, 5);
    OP(GC_OP_SLICE, 1, IN(x, be, sz), OUT(p));
    END;
}
static gc_model *m_slice_ok(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), be = I32("begin", 0, 1, 0, 0), sz = I32("size", 1, 2, 4, 3);
    int32_t p = T("probe", F32, 1, 2, 4, 3);
    OP(GC_OP_SLICE, 1, IN(x, be, sz), OUT(p));
    END;
}
static gc_model *m_concat_const2d(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 3), k = C("k", F32, 2, 3), p = T("probe", F32, 2, 6);
    int32_t op = OP(GC_OP_CONCATENATION, 1, IN(x, k), OUT(p));
    gc_rb_opt(&b, op, GC_O_ConcatenationOptions_axis, 1);
    END;
}
static gc_model *m_concat_ok(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), y = T("y", F32, 1, 4, 4, 5), p = T("probe", F32, 1, 4, 4, 8);
    int32_t op = OP(GC_OP_CONCATENATION, 1, IN(x, y), OUT(p));
    gc_rb_opt(&b, op, GC_O_ConcatenationOptions_axis, 3);
    END;
}
static gc_model *m_d2s(int block) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 8), p = block == 2 ? T("probe", F32, 1, 8, 8, 2) : T("probe", F32, 1, 4, 4, 8);
    int32_t op = OP(GC_OP_DEPTH_TO_SPACE, 1, IN(x), OUT(p));
    gc_rb_opt(&b, op, GC_O_DepthToSpaceOptions_block_size, block);
    END;
}
static gc_model *m_d2s_ok(void) { return m_d2s(2); }
static gc_model *m_d2s_block1(void) { return m_d2s(1); }
static gc_model *m_resize(bool both) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), s = I32("size", 8, 8), p = T("probe", F32, 1, 8, 8, 3);
    int32_t op = OP(GC_OP_RESIZE_BILINEAR, 1, IN(x, s), OUT(p));
    gc_rb_opt(&b, op, GC_O_ResizeBilinearOptions_align_corners, both);
    gc_rb_opt(&b, op, GC_O_ResizeBilinearOptions_half_pixel_centers, 1);
    END;
}
static gc_model *m_resize_ok(void) { return m_resize(false); }
static gc_model *m_resize_both(void) { return m_resize(true); }
static gc_model *m_split(void) {
    BEGIN;
    int32_t a = I32("axis", 3), x = T("x", F32, 1, 4, 4, 6), p = T("probe", F32, 1, 4, 4, 3), q = T("q", F32, 1, 4, 4, 3);
    int32_t op = OP(GC_OP_SPLIT, 1, IN(a, x), OUT(p, q));
    gc_rb_opt(&b, op, GC_O_SplitOptions_num_splits, 2);
    END;
}
static gc_model *m_dyn_reshape(void) {   /* shape computed at run time -> dynamic tensors downstream */
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), s = T("shape", GC_T_INT32, 2), y = T("y", F32, 4, 12), p = T("probe", F32, 4, 12);
    OP(GC_OP_RESHAPE, 1, IN(x, s), OUT(y));
    OP(GC_OP_RELU, 1, IN(y), OUT(p));
    END;
}

/* ---- select, reductions, softmax, misc ------------------------------------------------------ */

static gc_model *m_select(bool bcast, bool else_2d) {
    BEGIN;
    int32_t c = else_2d ? T("cond", GC_T_BOOL, 2, 4) : T("cond", GC_T_BOOL, 1, 2, 4);
    int32_t u = else_2d ? T("u", F32, 2, 4) : T("u", F32, 1, 2, 4), v = else_2d ? T("v", F32, 2, 4) : T("v", F32, 1, 2, 4);
    OP(GC_OP_GREATER, 1, IN(u, v), OUT(c));
    int32_t x = else_2d ? T("a", F32, 2, 4) : T("a", F32, 1, 2, 4);
    int32_t y = bcast ? T("b", F32, 1, 1, 4) : else_2d ? T("b", F32, 2, 4) : T("b", F32, 1, 2, 4);
    int32_t p = else_2d ? T("probe", F32, 2, 4) : T("probe", F32, 1, 2, 4);
    OP(GC_OP_SELECT_V2, 1, IN(c, x, y), OUT(p));
    END;
}
static gc_model *m_select_ok(void) { return m_select(false, false); }
static gc_model *m_select_bcast(void) { return m_select(true, false); }
static gc_model *m_select_2d(void) { return m_select(false, true); }
static gc_model *m_mean(int axes_type) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), a = C("axes", axes_type, 2), p = T("probe", F32, 1, 1, 1, 3);
    int32_t op = OP(GC_OP_MEAN, 1, IN(x, a), OUT(p));
    gc_rb_opt(&b, op, GC_O_ReducerOptions_keep_dims, 1);
    END;
}
static gc_model *m_mean_ok(void) { return m_mean(GC_T_INT32); }
static gc_model *m_mean_i64_axes(void) { return m_mean(GC_T_INT64); }
static gc_model *m_softmax(double beta) {   /* beta has no schema default (0): always set */
    BEGIN;
    int32_t x = T("x", F32, 1, 16), p = T("probe", F32, 1, 16);
    int32_t op = OP(GC_OP_SOFTMAX, 1, IN(x), OUT(p));
    gc_rb_optf(&b, op, GC_O_SoftmaxOptions_beta, beta);
    END;
}
static gc_model *m_softmax_ok(void) { return m_softmax(1.0); }
static gc_model *m_softmax_beta(void) { return m_softmax(2.0); }
static gc_model *m_quantize_no_params(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), p = T("probe", GC_T_INT8, 1, 8);
    OP(GC_OP_QUANTIZE, 1, IN(x), OUT(p));
    END;
}
static gc_model *m_quantize_ok(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), p = T("probe", GC_T_INT8, 1, 8), y = T("y", F32, 1, 8);
    gc_rb_quant(&b, p, 1, 0.05f, 0);
    OP(GC_OP_QUANTIZE, 1, IN(x), OUT(p));
    OP(GC_OP_DEQUANTIZE, 1, IN(p), OUT(y));
    END;
}
static gc_model *m_relu_per_channel(void) {
    BEGIN;
    int32_t x = T("x", GC_T_INT8, 1, 4, 4, 2), p = T("probe", GC_T_INT8, 1, 4, 4, 2);
    gc_rb_quant(&b, x, 2, 0.1f, 0);
    b.m->subgraphs[0].tensors[x].quant->quantized_dimension = 3;
    gc_rb_quant(&b, p, 1, 0.1f, 0);
    OP(GC_OP_RELU, 1, IN(x), OUT(p));
    END;
}
static gc_model *m_dequant_const_rank1(void) {
    BEGIN;
    int32_t w = C("w", GC_T_INT8, 8), p = T("probe", F32, 8), x = T("x", F32, 8), y = T("y", F32, 8);
    gc_rb_quant(&b, w, 1, 0.1f, 0);
    OP(GC_OP_DEQUANTIZE, 1, IN(w), OUT(p));
    OP(GC_OP_ADD, 1, IN(x, p), OUT(y));
    END;
}
static gc_model *m_fp16_weights(bool with_unsupported) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 3), w16 = C("w16", GC_T_FLOAT16, 4, 1, 1, 3), w = T("probe", F32, 4, 1, 1, 3);
    int32_t bias = C("bias", F32, 4), y = T("y", F32, 1, 8, 8, 4);
    OP(GC_OP_DEQUANTIZE, 1, IN(w16), OUT(w));
    int32_t op = OP(GC_OP_CONV_2D, 1, IN(x, w, bias), OUT(y));
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_stride_w, 1);
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_stride_h, 1);
    if (with_unsupported) {
        int32_t z = T("z", F32, 1, 8, 8, 4), q = T("q", F32, 8, 8, 4);
        OP(GC_OP_RELU, 1, IN(y), OUT(z));
        OP(GC_OP_SQUEEZE, 1, IN(z), OUT(q));
    }
    END;
}
static gc_model *m_fp16_full(void) { return m_fp16_weights(false); }
static gc_model *m_fp16_partial(void) { return m_fp16_weights(true); }
static gc_model *m_partition_split(void) {   /* ADD -> GATHER_ND -> RELU -> RELU: largest partition wins */
    BEGIN;
    int32_t x = T("x", F32, 4, 3), y = T("y", F32, 4, 3), a = T("a", F32, 4, 3);
    int32_t i = gc_rb_c(&b, "idx", GC_T_INT32, L(2, 1), NULL), g = T("g", F32, 2, 3), r = T("r", F32, 2, 3);
    int32_t p = T("probe", F32, 2, 3);
    OP(GC_OP_ADD, 1, IN(x, y), OUT(a));
    OP(GC_OP_GATHER_ND, 1, IN(a, i), OUT(g));
    OP(GC_OP_RELU, 1, IN(g), OUT(r));
    OP(GC_OP_RELU6, 1, IN(r), OUT(p));
    END;
}
static gc_model *m_custom_unknown(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), p = T("probe", F32, 1, 8);
    gc_rb_custom(&b, "MyCustomOp", IN(x), OUT(p), NULL, 0);
    END;
}
static gc_model *m_custom_argmax_pool(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 3), p = T("probe", F32, 1, 4, 4, 3), ix = T("indices", F32, 1, 4, 4, 3);
    const int32_t params[8] = { 1 /*VALID*/, 2, 2, 2, 2, 0, 0, 0 };   /* TfLitePoolParams */
    gc_rb_custom(&b, "MaxPoolingWithArgmax2D", IN(x), OUT(p, ix), params, sizeof params);
    END;
}
static gc_model *m_custom_tconv_bias(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 2), w = C("w", F32, 4, 3, 3, 2), bias = C("bias", F32, 4);
    int32_t p = T("probe", F32, 1, 8, 8, 4);
    const int32_t params[4] = { 1 /*SAME*/, 2, 2, 0 };   /* TfLiteTransposeConvParams */
    gc_rb_custom(&b, "Convolution2DTransposeBias", IN(x, w, bias), OUT(p), params, sizeof params);
    END;
}
static gc_model *m_one_hot_axis0(void) {
    BEGIN;
    int32_t i = T("indices", GC_T_INT32, 1, 3), d = I32("depth", 5), on = C("on", F32, 1), off = C("off", F32, 1);
    int32_t p = T("probe", F32, 5, 1, 3);
    int32_t op = OP(GC_OP_ONE_HOT, 1, IN(i, d, on, off), OUT(p));
    gc_rb_opt(&b, op, GC_O_OneHotOptions_axis, 0);
    END;
}
static gc_model *m_dus_const_start(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 4), u = T("u", F32, 1, 2, 4), s = I32("start", 0, 1, 0), p = T("probe", F32, 1, 8, 4);
    OP(GC_OP_DYNAMIC_UPDATE_SLICE, 1, IN(x, u, s), OUT(p));
    END;
}
static gc_model *m_embedding_no_quant(void) {
    BEGIN;
    int32_t ids = T("ids", GC_T_INT32, 3), w = C("table", GC_T_INT8, 10, 4), p = T("probe", F32, 3, 4);
    OP(GC_OP_EMBEDDING_LOOKUP, 1, IN(ids, w), OUT(p));
    END;
}
static gc_model *m_prelu(int alpha_len) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 4), a = C("alpha", F32, alpha_len), p = T("probe", F32, 1, 4, 4, 4);
    OP(GC_OP_PRELU, 1, IN(x, a), OUT(p));
    END;
}
static gc_model *m_prelu_ok(void) { return m_prelu(4); }
static gc_model *m_prelu_bad(void) { return m_prelu(1); }
static gc_model *m_densify(void) {
    BEGIN;
    int32_t w = C("w", F32, 4, 8), p = T("probe", F32, 4, 8), x = T("x", F32, 4, 8), y = T("y", F32, 4, 8);
    OP(GC_OP_DENSIFY, 1, IN(w), OUT(p));
    OP(GC_OP_ADD, 1, IN(x, p), OUT(y));
    END;
}
static gc_model *m_add_n3(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), y = T("y", F32, 1, 8), z = T("z", F32, 1, 8), p = T("probe", F32, 1, 8);
    OP(GC_OP_ADD_N, 1, IN(x, y, z), OUT(p));
    END;
}
static gc_model *m_cumsum_runtime_axis(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), a = gc_rb_t(&b, "axis", GC_T_INT32, 0, NULL), p = T("probe", F32, 1, 8);
    OP(GC_OP_CUMSUM, 1, IN(x, a), OUT(p));
    END;
}

/* ---- more shapes the accelerator must accept (and a few it must not) ------------------------ */

static gc_model *m_unary_f(int32_t code) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    OP(code, 1, IN(x), OUT(p));
    END;
}
static gc_model *m_exp(void) { return m_unary_f(GC_OP_EXP); }
static gc_model *m_rsqrt(void) { return m_unary_f(GC_OP_RSQRT); }
static gc_model *m_logistic(void) { return m_unary_f(GC_OP_LOGISTIC); }
static gc_model *m_elu(void) { return m_unary_f(GC_OP_ELU); }
static gc_model *m_gelu_approx(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    int32_t op = OP(GC_OP_GELU, 1, IN(x), OUT(p));
    gc_rb_opt(&b, op, GC_O_GeluOptions_approximate, 1);
    END;
}
static gc_model *m_leaky_relu(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    int32_t op = OP(GC_OP_LEAKY_RELU, 1, IN(x), OUT(p));
    gc_rb_optf(&b, op, GC_O_LeakyReluOptions_alpha, 0.2);
    END;
}
static gc_model *m_log_softmax(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 16), p = T("probe", F32, 1, 16);
    OP(GC_OP_LOG_SOFTMAX, 1, IN(x), OUT(p));
    END;
}
static gc_model *m_l2norm(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 16), p = T("probe", F32, 1, 16);
    OP(GC_OP_L2_NORMALIZATION, 1, IN(x), OUT(p));
    END;
}
static gc_model *m_squared_diff(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), y = T("y", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_SQUARED_DIFFERENCE, 1, IN(x, y), OUT(p));
    END;
}
static gc_model *m_mul_scalar_const(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), k = gc_rb_c(&b, "k", F32, 0, NULL, NULL), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_MUL, 1, IN(x, k), OUT(p));
    END;
}
static gc_model *m_add_channel_const(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), k = C("k", F32, 3), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_ADD, 1, IN(x, k), OUT(p));
    END;
}
static gc_model *m_floor_div_int(void) {
    BEGIN;
    int32_t x = T("x", GC_T_INT32, 1, 8), k = gc_rb_c(&b, "k", GC_T_INT32, 0, NULL, NULL), p = T("probe", GC_T_INT32, 1, 8);
    OP(GC_OP_FLOOR_DIV, 1, IN(x, k), OUT(p));
    END;
}
static gc_model *m_conv_runtime_weights(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 3), w = T("w", F32, 4, 3, 3, 3), p = T("probe", F32, 1, 6, 6, 4);
    int32_t op = OP(GC_OP_CONV_2D, 1, IN(x, w, -1), OUT(p));
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_stride_w, 1);
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_stride_h, 1);
    gc_rb_opt(&b, op, GC_O_Conv2DOptions_padding, 1);
    END;
}
static gc_model *m_avg_pool(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 3), p = T("probe", F32, 1, 4, 4, 3);
    int32_t op = OP(GC_OP_AVERAGE_POOL_2D, 1, IN(x), OUT(p));
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_filter_width, 2);
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_filter_height, 2);
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_stride_w, 2);
    gc_rb_opt(&b, op, GC_O_Pool2DOptions_stride_h, 2);
    END;
}
static gc_model *m_resize_nn(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), s = I32("size", 8, 8), p = T("probe", F32, 1, 8, 8, 3);
    OP(GC_OP_RESIZE_NEAREST_NEIGHBOR, 1, IN(x, s), OUT(p));
    END;
}
static gc_model *m_space_to_depth(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 8, 3), p = T("probe", F32, 1, 4, 4, 12);
    int32_t op = OP(GC_OP_SPACE_TO_DEPTH, 1, IN(x), OUT(p));
    gc_rb_opt(&b, op, GC_O_SpaceToDepthOptions_block_size, 2);
    END;
}
static gc_model *m_space_to_batch(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), bs = I32("block", 2, 2), pd = gc_rb_c(&b, "pad", GC_T_INT32, L(2, 2), (const int32_t[]){0, 0, 0, 0});
    int32_t p = T("probe", F32, 4, 2, 2, 3);
    OP(GC_OP_SPACE_TO_BATCH_ND, 1, IN(x, bs, pd), OUT(p));
    END;
}
static gc_model *m_tile(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), mu = I32("multiples", 1, 2, 1, 1), p = T("probe", F32, 1, 8, 4, 3);
    OP(GC_OP_TILE, 1, IN(x, mu), OUT(p));
    END;
}
static gc_model *m_pack(void) {
    BEGIN;
    int32_t x = T("x", F32, 4, 3), y = T("y", F32, 4, 3), p = T("probe", F32, 4, 2, 3);
    int32_t op = OP(GC_OP_PACK, 1, IN(x, y), OUT(p));
    gc_rb_opt(&b, op, GC_O_PackOptions_values_count, 2);
    gc_rb_opt(&b, op, GC_O_PackOptions_axis, 1);
    END;
}
static gc_model *m_unpack(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 2, 4, 3), p = T("probe", F32, 1, 4, 3), q = T("q", F32, 1, 4, 3);
    int32_t op = OP(GC_OP_UNPACK, 1, IN(x), OUT(p, q));
    gc_rb_opt(&b, op, GC_O_UnpackOptions_num, 2);
    gc_rb_opt(&b, op, GC_O_UnpackOptions_axis, 1);
    END;
}
static gc_model *m_split_v(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 6), sz = I32("sizes", 2, 4), a = I32("axis", 3);
    int32_t p = T("probe", F32, 1, 4, 4, 2), q = T("q", F32, 1, 4, 4, 4);
    int32_t op = OP(GC_OP_SPLIT_V, 1, IN(x, sz, a), OUT(p, q));
    gc_rb_opt(&b, op, GC_O_SplitVOptions_num_splits, 2);
    END;
}
static gc_model *m_transpose3(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 3, 4), perm = I32("perm", 0, 2, 1), p = T("probe", F32, 2, 4, 3);
    OP(GC_OP_TRANSPOSE, 1, IN(x, perm), OUT(p));
    END;
}
static gc_model *m_slice3(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 6, 4), be = I32("begin", 0, 1, 0), sz = I32("size", 2, 3, 4), p = T("probe", F32, 2, 3, 4);
    OP(GC_OP_SLICE, 1, IN(x, be, sz), OUT(p));
    END;
}
static gc_model *m_strided_slice3(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 6, 4), be = I32("begin", 0, 0, 0), en = I32("end", 2, 6, 4), st = I32("strides", 1, 2, 1);
    int32_t p = T("probe", F32, 2, 3, 4);
    OP(GC_OP_STRIDED_SLICE, 1, IN(x, be, en, st), OUT(p));
    END;
}
static gc_model *m_pad3(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 4, 3), pad = gc_rb_c(&b, "paddings", GC_T_INT32, L(3, 2), (const int32_t[]){0, 0, 1, 1, 0, 0});
    int32_t p = T("probe", F32, 2, 6, 3);
    OP(GC_OP_PAD, 1, IN(x, pad), OUT(p));
    END;
}
static gc_model *m_padv2(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), pad = C("paddings", GC_T_INT32, 4, 2), v = C("value", F32, 1);
    int32_t p = T("probe", F32, 3, 6, 6, 5);
    OP(GC_OP_PADV2, 1, IN(x, pad, v), OUT(p));
    END;
}
static gc_model *m_mean_nokeep(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), a = I32("axes", 1, 2), p = T("probe", F32, 1, 3);
    OP(GC_OP_MEAN, 1, IN(x, a), OUT(p));
    END;
}
static gc_model *m_sum(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), a = I32("axes", 3), p = T("probe", F32, 1, 4, 4, 1);
    int32_t op = OP(GC_OP_SUM, 1, IN(x, a), OUT(p));
    gc_rb_opt(&b, op, GC_O_ReducerOptions_keep_dims, 1);
    END;
}
static gc_model *m_reduce_max(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), a = I32("axes", 1), p = T("probe", F32, 1, 1, 4, 3);
    int32_t op = OP(GC_OP_REDUCE_MAX, 1, IN(x, a), OUT(p));
    gc_rb_opt(&b, op, GC_O_ReducerOptions_keep_dims, 1);
    END;
}
static gc_model *m_gather_axis1(void) {
    BEGIN;
    int32_t x = T("x", F32, 2, 10, 4), i = I32("idx", 1, 3, 5), p = T("probe", F32, 2, 3, 4);
    int32_t op = OP(GC_OP_GATHER, 1, IN(x, i), OUT(p));
    gc_rb_opt(&b, op, GC_O_GatherOptions_axis, 1);
    END;
}
static gc_model *m_gather_const0(void) {
    BEGIN;
    int32_t x = T("x", F32, 10, 4), i = I32("idx", 1, 3, 5), p = T("probe", F32, 3, 4);
    OP(GC_OP_GATHER, 1, IN(x, i), OUT(p));
    END;
}
static gc_model *m_gather_const1(void) {
    BEGIN;
    int32_t x = T("x", F32, 10, 4), i = I32("idx", 3), p = T("probe", F32, 1, 4);
    OP(GC_OP_GATHER, 1, IN(x, i), OUT(p));
    END;
}
static gc_model *m_topk(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 16), k = gc_rb_c(&b, "k", GC_T_INT32, 0, NULL, (const int32_t[]){4});
    int32_t p = T("probe", F32, 1, 4), ix = T("indices", GC_T_INT32, 1, 4);
    OP(GC_OP_TOPK_V2, 1, IN(x, k), OUT(p, ix));
    END;
}
static gc_model *m_reverse(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), a = I32("axis", 2), p = T("probe", F32, 1, 4, 4, 3);
    OP(GC_OP_REVERSE_V2, 1, IN(x, a), OUT(p));
    END;
}
static gc_model *m_dus(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8, 4), u = T("u", F32, 1, 2, 4), s = T("start", GC_T_INT32, 3), p = T("probe", F32, 1, 8, 4);
    OP(GC_OP_DYNAMIC_UPDATE_SLICE, 1, IN(x, u, s), OUT(p));
    END;
}
static gc_model *m_embedding_f32(void) {
    BEGIN;
    int32_t ids = T("ids", GC_T_INT32, 3), w = C("table", F32, 10, 4), p = T("probe", F32, 3, 4);
    OP(GC_OP_EMBEDDING_LOOKUP, 1, IN(ids, w), OUT(p));
    END;
}
static gc_model *m_cumsum(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 8), a = gc_rb_c(&b, "axis", GC_T_INT32, 0, NULL, (const int32_t[]){1}), p = T("probe", F32, 1, 8);
    OP(GC_OP_CUMSUM, 1, IN(x, a), OUT(p));
    END;
}
static gc_model *m_select_scalar_else(void) {
    BEGIN;
    int32_t u = T("u", F32, 1, 2, 4), v = T("v", F32, 1, 2, 4), c = T("cond", GC_T_BOOL, 1, 2, 4);
    int32_t a = T("a", F32, 1, 2, 4), e = gc_rb_c(&b, "else", F32, 0, NULL, NULL), p = T("probe", F32, 1, 2, 4);
    OP(GC_OP_GREATER, 1, IN(u, v), OUT(c));
    OP(GC_OP_SELECT_V2, 1, IN(c, a, e), OUT(p));
    END;
}
static gc_model *m_max_unpool(void) {
    BEGIN;
    int32_t x = T("x", F32, 1, 4, 4, 3), ix = T("indices", F32, 1, 4, 4, 3), p = T("probe", F32, 1, 8, 8, 3);
    const int32_t params[8] = { 1, 2, 2, 2, 2, 0, 0, 0 };
    gc_rb_custom(&b, "MaxUnpooling2D", IN(x, ix), OUT(p), params, sizeof params);
    END;
}
static gc_model *m_mask_bmm(void) {   /* scores + mask[1,1,S,S]: supported, with an fp16 lint */
    BEGIN;
    int32_t q = T("q", F32, 1, 4, 16, 8), k = T("k", F32, 1, 4, 8, 16), sc = T("scores", F32, 1, 4, 16, 16);
    int32_t mask = T("mask", F32, 1, 1, 16, 16), p = T("probe", F32, 1, 4, 16, 16);
    OP(GC_OP_BATCH_MATMUL, 1, IN(q, k), OUT(sc));
    OP(GC_OP_ADD, 1, IN(sc, mask), OUT(p));
    END;
}
static gc_model *m_three_partitions(void) {   /* RELU | SQUEEZE | RELU, RELU6, TANH | SQUEEZE | ADD */
    BEGIN;
    int32_t x = T("x", F32, 1, 1, 4, 3), a = T("a", F32, 1, 1, 4, 3), s1 = T("s1", F32, 1, 4, 3), r1 = T("r1", F32, 1, 4, 3);
    int32_t r2 = T("r2", F32, 1, 4, 3), p = T("probe", F32, 1, 4, 3), s2 = T("s2", F32, 4, 3), y = T("y", F32, 4, 3);
    int32_t z = T("z", F32, 4, 3);
    OP(GC_OP_RELU, 1, IN(x), OUT(a));
    OP(GC_OP_SQUEEZE, 1, IN(a), OUT(s1));
    OP(GC_OP_RELU, 1, IN(s1), OUT(r1));
    OP(GC_OP_RELU6, 1, IN(r1), OUT(r2));
    OP(GC_OP_TANH, 1, IN(r2), OUT(p));
    OP(GC_OP_SQUEEZE, 1, IN(p), OUT(s2));
    OP(GC_OP_ADD, 1, IN(s2, y), OUT(z));
    END;
}

/* ---- the catalogue ------------------------------------------------------------------------- */

#define ML GC_TARGET_MLDRIFT
#define CL GC_TARGET_CLASSIC
#define BOTH -1

const gc_rule_case gc_rule_cases[] = {
    /* rank / dtype filter (§2.1, §2.2) */
    { "reshape_rank5", "RESHAPE to a rank-5 tensor", m_reshape_rank5, ML, "rank5",
      "Tensor dimensions must be less than 5. probe", 0, false, false },
    { "reshape_rank5_classic", "RESHAPE to a rank-5 tensor (classic)", m_reshape_rank5, CL, "rank5",
      "OP is supported, but tensor type/shape isn't compatible.", 0, false, false },
    { "reshape_rank4", "RESHAPE within rank 4", m_reshape_rank4, BOTH, NULL, NULL, 1, false, false },
    { "reshape_rank6", "RESHAPE to a rank-6 tensor (PixelShuffle)", m_reshape_rank6, ML, "rank6",
      "Tensor \"probe\" has bad input dims size: 6.", 0, false, false },
    { "arg_max_int64", "ARG_MAX with an INT64 output", m_argmax_i64, ML, "dtype",
      "Tensor type(INT64) is not supported. probe", 0, false, false },
    { "arg_max_int32", "ARG_MAX with an INT32 output", m_argmax_i32, ML, NULL, NULL, 1, false, false },
    { "arg_max_classic", "ARG_MAX has no classic parser", m_argmax_i32, CL, "unsupported_op",
      "Operation is not supported.", 0, false, false },
    { "gather_nd", "GATHER_ND has no parser", m_gather_nd, BOTH, "unsupported_op", "Operation is not supported.", 0, false, false },
    { "squeeze", "SQUEEZE has no parser", m_squeeze, BOTH, "unsupported_op", "Operation is not supported.", 0, false, false },
    { "broadcast_to_runtime", "BROADCAST_TO of a runtime tensor", m_broadcast_to_runtime, BOTH, "unsupported_op",
      "Operation is not supported.", 0, false, false },
    { "add_int32", "ADD of INT32 tensors (IsIntSupportedOp)", m_add_i32, ML, NULL, NULL, 1, false, false },
    { "add_int32_classic", "ADD of INT32 tensors (classic type filter)", m_add_i32, CL, "dtype",
      "OP is supported, but tensor type/shape isn't compatible.", 0, false, false },
    { "logical_and_float", "LOGICAL_AND of float tensors (invalid for the CPU runtime)", m_logical_and_float, ML,
      "dtype", "Tensor type(FLOAT32) is not supported. x", 0, false, true },
    { "cast_to_int64", "CAST to an INT64 value", m_cast_to_int64, ML, "dtype",
      "Tensor type(INT64) is not supported. probe", 0, false, false },
    { "logical_and_const_bool", "LOGICAL_AND with a BOOL scalar constant", m_logical_and_const_bool, ML,
      "elementwise.const_operand", "Can't parse inputs with const tensors.", 1, false, false },
    { "relu_0_to_1", "RELU_0_TO_1 (no compat case)", m_relu_0_to_1, ML, "compat.unsupported_op",
      "Not supported op RELU_0_TO_1", 0, false, false },
    { "relu_0_to_1_classic", "RELU_0_TO_1 on classic", m_relu_0_to_1, CL, NULL, NULL, 1, false, false },
    { "relu", "RELU", m_relu, BOTH, NULL, NULL, 1, false, false },
    { "hard_swish", "HARD_SWISH", m_hard_swish, BOTH, NULL, NULL, 1, false, false },
    { "bitwise_xor", "BITWISE_XOR (parser, but no compat case)", m_bitwise_xor, ML, "compat.unsupported_op",
      "Not supported op BITWISE_XOR", 0, false, false },
    /* versions (§3, §4.2) */
    { "transpose_conv_v4", "TRANSPOSE_CONV v4 (fused activation)", m_tconv_v4, BOTH, "transpose_conv.version",
      "Max version supported: 3. Requested version 4.", 0, false, false },
    { "transpose_conv_v3", "TRANSPOSE_CONV v3", m_tconv_v3, BOTH, NULL, NULL, 1, false, false },
    { "add_v7", "ADD v7", m_add_v7, ML, "add.version", "Max version supported: 6. Requested version 7.", 0, false, true },
    { "add_v3_classic", "ADD v3 on classic", m_add_v3, CL, "add.version", "Max version supported: 2. Requested version 3.", 0, false, false },
    { "add_v3", "ADD v3 on ML Drift", m_add_v3, ML, NULL, NULL, 1, false, false },
    { "strided_slice_v3", "STRIDED_SLICE v3", m_ss_v3, ML, "strided_slice.version",
      "Max version supported: 2. Requested version 3.", 0, false, false },
    /* elementwise (§3.1, §4.3) */
    { "sub_identical", "SUB(x, x)", m_sub_identical, ML, "elementwise.identical_inputs",
      "No support of few identical inputs in the same operation.", 0, false, false },
    { "sub_identical_classic", "SUB(x, x) on classic: init failure", m_sub_identical, CL, "elementwise.identical_inputs",
      "No support of few identical inputs in the same operation.", 0, true, false },
    { "add_identical", "ADD(x, x) becomes MUL by 2", m_add_identical, BOTH, NULL, NULL, 1, false, false },
    { "add_broadcast_bad", "ADD of [2,3,4] and [5,4] (invalid for the CPU runtime)", m_add_bcast_bad, BOTH,
      "broadcast", "Doesn't support broadcasting - input0: [2,3,4], input1: [5,4]", 0, false, true },
    { "sub_broadcast_bad", "SUB of [2,3,4] and [5,4] (invalid for the CPU runtime)", m_sub_bcast_bad, ML,
      "elementwise.broadcast", "Inputs dimensions sizes don't match, broadcasting isn't applicable.", 0, false, true },
    { "add_broadcast_3_2", "ADD of [2,3,4] and [3,4]", m_add_bcast_3_2, ML, NULL, NULL, 1, false, false },
    { "add_broadcast_3_2_classic", "ADD of [2,3,4] and [3,4] (kStandard)", m_add_bcast_3_2, CL, "broadcast",
      "Doesn't support broadcasting - input0: [2,3,4], input1: [3,4]", 0, false, false },
    { "mul_broadcast_mixed", "MUL of [1,2,3,4] and [3,4]", m_mul_bcast_mixed, ML, NULL, NULL, 1, false, false },
    { "mul_broadcast_mixed_classic", "MUL of [1,2,3,4] and [3,4] (kStandard)", m_mul_bcast_mixed, CL, "broadcast",
      "Doesn't support broadcasting - input0: [1,2,3,4], input1: [3,4]", 0, false, false },
    { "sub_scalar_runtime", "SUB of [2,3] and a runtime scalar", m_sub_scalar_runtime, ML, "broadcast.rank",
      "Tensor \"s\" has bad input dims size: 0.", 0, false, false },
    { "mul_scalar_runtime_classic", "MUL with a runtime scalar on classic: init failure", m_mul_scalar_runtime_classic,
      CL, "rank0", "Tensor \"s\" has bad input dims size: 0.", 0, true, false },
    { "add_bool_const", "ADD with a BOOL scalar constant (invalid for the CPU runtime)", m_add_bool_const, ML,
      "elementwise.const_operand",
      "Can't parse inputs with const tensors.", 0, false, true },
    { "add_sign_bit", "ADD with a SIGN_BIT fused activation", m_add_sign_bit, ML, "activation",
      "Unsupported fused activation: 5", 0, false, false },
    { "add_sign_bit_classic", "ADD with a SIGN_BIT fused activation on classic", m_add_sign_bit, CL, "activation",
      "Unsupported fused activation: 5", 0, true, false },
    { "greater_to_output", "GREATER feeding a graph output", m_greater_to_output, CL, "logical.graph",
      "Not supported logical op case", 0, false, false },
    { "greater_to_output_mldrift", "GREATER with a BOOL output", m_greater_to_output, ML, NULL, NULL, 1, false, false },
    { "greater_to_cast", "GREATER feeding CAST to float", m_greater_to_cast, BOTH, NULL, NULL, 3, false, false },
    { "cast_int32_float", "CAST INT32 to FLOAT32", m_cast_i32_f32, BOTH, NULL, NULL, 1, false, false },
    { "cast_bool_graph_input", "CAST of a BOOL graph input on classic", m_cast_bool_input, CL, "cast.graph",
      "Not supported cast case", 0, false, false },
    /* convolution family (§3.2) */
    { "conv_2d", "CONV_2D 3x3", m_conv_ok, BOTH, NULL, NULL, 1, false, false },
    { "conv_2d_dilation0", "CONV_2D with dilation 0", m_conv_dilation0, BOTH, "dilation",
      "Incorrect dilation values: dilation_height = 0, dilation_width = 0", 0, false, true },
    { "conv_2d_sign_bit", "CONV_2D with a SIGN_BIT activation", m_conv_sign_bit, BOTH, "activation.sign_bit",
      "TfLiteFusedActivation.kTfLiteActSignBit", 0, false, false },
    { "dwconv_multiplier_bad", "DEPTHWISE_CONV_2D output channels != in * multiplier", m_dw_mult_bad, BOTH,
      "dwconv.multiplier", "output.c != input.c * depth_multiplier", 0, false, false },
    { "dwconv_multiplier2", "DEPTHWISE_CONV_2D with multiplier 2", m_dw_mult_ok, BOTH, NULL, NULL, 1, false, false },
    { "dwconv_runtime_multiplier", "DEPTHWISE_CONV_2D runtime weights, multiplier 2 (classic)", m_dw_runtime_mult, CL,
      "dwconv.runtime_multiplier", "No support of depthwise runtime weights with channel multiplier != 1", 0, false, false },
    { "fully_connected", "FULLY_CONNECTED", m_fc_ok, BOTH, NULL, NULL, 1, false, false },
    { "fully_connected_const_input", "FULLY_CONNECTED of a constant input", m_fc_const_input, BOTH, "fc.const_input",
      "FullyConnected doesn't support constant input.", 1, false, false },
    { "fully_connected_keep_num_dims", "FULLY_CONNECTED keep_num_dims (the runtime makes ranks agree)",
      m_fc_keep_dims, BOTH, NULL, NULL, 1, false, false },
    { "batch_matmul", "BATCH_MATMUL of two runtime tensors", m_bmm_ok, BOTH, NULL, NULL, 1, false, false },
    { "batch_matmul_const_lhs", "BATCH_MATMUL with a constant LHS", m_bmm_const_lhs, ML, "bmm.const_lhs",
      "Not supported batched mat mul case: non-constant tensor", 0, false, false },
    { "batch_matmul_rhs_rank5", "BATCH_MATMUL with a rank-5 constant RHS", m_bmm_rhs_rank5, ML, "bmm.rhs_rank",
      "Not supported batched mat mul case: second input has unsupported rank", 0, false, false },
    { "max_pool", "MAX_POOL_2D 2x2", m_pool_ok, BOTH, NULL, NULL, 1, false, false },
    { "max_pool_kernel0", "MAX_POOL_2D with a 0x0 kernel", m_pool_kernel0, BOTH, "kernel",
      "Incorrect kernel values: kernel_height = 0, kernel_width = 0", 0, false, false },
    /* shape ops (§3.4, §4.3) */
    { "gather_indices_1d", "GATHER with 1-D indices", m_gather_1d, BOTH, NULL, NULL, 1, false, false },
    { "gather_indices_2d", "GATHER with 2-D indices", m_gather_2d, BOTH, "gather.indices_rank",
      "Only support 1D indices", 0, false, false },
    { "gather_int32_data", "GATHER of INT32 data", m_gather_i32, ML, NULL, NULL, 1, false, false },
    { "gather_int32_data_classic", "GATHER of INT32 data (classic output types)", m_gather_i32, CL, "dtype",
      "OP is supported, but tensor type/shape isn't compatible.", 0, false, false },
    { "strided_slice", "STRIDED_SLICE with stride 2", m_ss_ok, BOTH, NULL, NULL, 1, false, false },
    { "strided_slice_shrink", "STRIDED_SLICE with shrink_axis_mask", m_ss_shrink, ML, "strided_slice.shrink_axis_mask",
      "Slice does not support shrink_axis_mask parameter. ", 0, false, false },
    { "strided_slice_shrink_classic", "STRIDED_SLICE with shrink_axis_mask (classic)", m_ss_shrink, CL,
      "strided_slice.shrink_axis_mask", "StridedSlice does not support shrink_axis_mask parameter.", 0, false, false },
    { "strided_slice_bad_output", "STRIDED_SLICE whose file output shape is wrong (C tests only)", m_ss_bad_shape,
      ML, "strided_slice.output_shape", "Output shape mismatch", 0, false, true },
    { "pad", "PAD with 4x2 paddings", m_pad_ok, BOTH, NULL, NULL, 1, false, false },
    { "pad_2x2", "PAD of a rank-2 tensor (2x2 paddings)", m_pad_2x2, BOTH, "pad.paddings_shape",
      "Invalid paddings tensor shape: expected 4x2 or 3x2, got 2x2", 0, false, false },
    { "pad_int64_paddings", "PAD with INT64 paddings (read as INT32)", m_pad_i64, ML, "const.dtype",
      "src has wrong size.", 0, false, false },
    { "mirror_pad_reflect", "MIRROR_PAD REFLECT", m_mirror_pad_reflect, BOTH, NULL, NULL, 1, false, false },
    { "mirror_pad_symmetric", "MIRROR_PAD SYMMETRIC", m_mirror_pad_symmetric, BOTH, "mirror_pad.mode",
      "Only Reflective padding is supported for Mirror Pad operation. But node has 2", 0, false, false },
    { "transpose", "TRANSPOSE rank 4", m_transpose_ok, BOTH, NULL, NULL, 1, false, false },
    { "transpose_rank5", "TRANSPOSE of a rank-5 tensor", m_transpose_rank5, ML, "transpose.perm",
      "Permutation for transpose is invalid.", 0, false, false },
    { "slice", "SLICE rank 4", m_slice_ok, BOTH, NULL, NULL, 1, false, false },
    { "slice_rank5", "SLICE of a rank-5 tensor", m_slice_rank5, ML, "slice.rank",
      "Slicing is unsupported for input with rank > 4", 0, false, false },
    { "concat", "CONCATENATION on channels", m_concat_ok, BOTH, NULL, NULL, 1, false, false },
    { "concat_const_2d", "CONCATENATION with a rank-2 constant (classic init failure)", m_concat_const2d, CL,
      "concat.const_rank", "Expected a 4D tensor of shape BxHxWxC but got 2x3", 0, true, false },
    { "concat_const_2d_mldrift", "CONCATENATION with a rank-2 constant", m_concat_const2d, ML, NULL, NULL, 1, false, false },
    { "depth_to_space", "DEPTH_TO_SPACE block 2", m_d2s_ok, BOTH, NULL, NULL, 1, false, false },
    { "depth_to_space_block1", "DEPTH_TO_SPACE block 1", m_d2s_block1, BOTH, "block_size",
      "DEPTH_TO_SPACE block_size = 1 is a no-op.", 0, false, false },
    { "resize_bilinear", "RESIZE_BILINEAR half-pixel", m_resize_ok, BOTH, NULL, NULL, 1, false, false },
    { "resize_bilinear_align_half", "RESIZE_BILINEAR align_corners + half_pixel_centers", m_resize_both, BOTH,
      "resize.align_half_pixel", "If half_pixel_centers is True, align_corners must be False.", 0, false, true },
    { "split", "SPLIT in two", m_split, BOTH, NULL, NULL, 1, false, false },
    /* select, reductions, softmax, quantization (§3.3-3.5) */
    { "select_v2", "SELECT_V2 with same-shape operands", m_select_ok, BOTH, NULL, NULL, 2, false, false },
    { "select_v2_broadcast", "SELECT_V2 with a broadcast else operand", m_select_bcast, BOTH, "select.branch_shape",
      NULL, 1, false, false },
    { "select_v2_runtime_2d", "SELECT_V2 with runtime 2-D operands (classic)", m_select_2d, CL, "select.runtime_2d",
      "2-D if tensor only supported if constant.", 1, false, false },
    { "select_v2_runtime_2d_mldrift", "SELECT_V2 with runtime 2-D operands", m_select_2d, ML, NULL, NULL, 2, false, false },
    { "mean", "MEAN over H, W", m_mean_ok, BOTH, NULL, NULL, 1, false, false },
    { "mean_int64_axes", "MEAN with INT64 axes", m_mean_i64_axes, BOTH, "axes.dtype",
      "MEAN supports int32 tensor for axes. But node has INT64", 0, false, true },
    { "softmax", "SOFTMAX beta 1", m_softmax_ok, BOTH, NULL, NULL, 1, false, false },
    { "softmax_beta", "SOFTMAX beta 2", m_softmax_beta, BOTH, "softmax.beta", "Softmax.beta != 1 is not supported.", 0, false, false },
    { "quantize", "QUANTIZE to per-tensor INT8", m_quantize_ok, BOTH, NULL, NULL, 2, false, false },
    { "quantize_no_params", "QUANTIZE without output quantization", m_quantize_no_params, ML, "quantize.no_params",
      "Encountered Quantize output with no quant params", 0, false, true },
    { "relu_per_channel_activation", "RELU of a per-channel quantized activation", m_relu_per_channel, ML,
      "quant.per_channel_activation", "Unsupported quantization scale size", 0, false, false },
    { "relu_per_channel_activation_classic", "RELU of a per-channel quantized activation (classic init failure)",
      m_relu_per_channel, CL, "quant.per_channel_activation", "Non-constant per-channel quantized tensor: x", 0, true, false },
    { "dequantize_const_rank1", "DEQUANTIZE of a rank-1 INT8 constant", m_dequant_const_rank1, ML,
      "dequantize.const_rank", "Unsupported dims for tensor: w Got dims:1", 1, false, false },
    { "fp16_weights_full", "fp16 weights + DEQUANTIZE, everything supported", m_fp16_full, BOTH, NULL, NULL, 2, false, false },
    { "fp16_weights_partial", "fp16 weights + DEQUANTIZE, an unsupported op downstream", m_fp16_partial, BOTH,
      "fp16_dequantize", "", 2, false, false },
    { "partition_largest", "two candidate partitions: only the largest is delegated", m_partition_split, BOTH, NULL,
      NULL, 2, false, false },
    { "dynamic_reshape", "RESHAPE with a runtime shape: dynamic tensor", m_dyn_reshape, BOTH, NULL, NULL, 0, false, false },
    /* custom ops (§2.8) */
    { "custom_unknown", "an unknown custom op", m_custom_unknown, BOTH, "custom.unknown", "MyCustomOp", 0, false, false },
    { "custom_max_pool_argmax", "MaxPoolingWithArgmax2D", m_custom_argmax_pool, BOTH, NULL, NULL, 1, false, false },
    { "custom_transpose_conv_bias", "Convolution2DTransposeBias", m_custom_tconv_bias, BOTH, NULL, NULL, 1, false, false },
    /* ML Drift-only ops */
    { "one_hot_axis0", "ONE_HOT on axis 0", m_one_hot_axis0, ML, "one_hot.params",
      "Indices must be int32 type, on/off tensors must be constant, scalar, float type, axis must be -1 or last dim",
      0, false, false },
    { "dus_const_start", "DYNAMIC_UPDATE_SLICE with constant start indices", m_dus_const_start, ML, "dus.const_start",
      "start_indices must be a runtime tensor", 0, false, false },
    { "embedding_lookup_no_quant", "EMBEDDING_LOOKUP of an INT8 table without quantization", m_embedding_no_quant, ML,
      "embedding.params", "EMBEDDING_LOOKUP: Empty quantization params.", 0, false, false },
    { "prelu", "PRELU with per-channel alpha", m_prelu_ok, BOTH, NULL, NULL, 1, false, false },
    { "prelu_alpha_mismatch", "PRELU with one alpha for 4 channels", m_prelu_bad, ML, "prelu.alpha_shape",
      "Linear alpha shape does not match the number of input channels.", 0, false, false },
    { "densify", "DENSIFY (ML Drift has no parser)", m_densify, ML, "unsupported_op", "Operation is not supported.", 1, false, true },
    { "densify_classic", "DENSIFY of a dense tensor (classic init failure)", m_densify, CL, "densify.not_sparse",
      "Input tensor must be sparse.", 0, true, true },
    { "add_n_3", "ADD_N with 3 inputs", m_add_n3, BOTH, "add_n.inputs", "ADD_N only supports 2 inputs.", 0, false, false },
    { "cumsum_runtime_axis", "CUMSUM with a runtime axis", m_cumsum_runtime_axis, BOTH, "cumsum.types",
      "Input/output must be float type and indices must be constant int32 type", 0, false, false },
    /* more accelerator coverage (supported unless a rule is named) */
    { "exp", "EXP", m_exp, BOTH, NULL, NULL, 1, false, false },
    { "rsqrt", "RSQRT", m_rsqrt, BOTH, NULL, NULL, 1, false, false },
    { "logistic", "LOGISTIC", m_logistic, BOTH, NULL, NULL, 1, false, false },
    { "elu", "ELU", m_elu, BOTH, NULL, NULL, 1, false, false },
    { "gelu_approx", "GELU approximate", m_gelu_approx, BOTH, NULL, NULL, 1, false, false },
    { "leaky_relu", "LEAKY_RELU", m_leaky_relu, BOTH, NULL, NULL, 1, false, false },
    { "log_softmax", "LOG_SOFTMAX has no parser", m_log_softmax, BOTH, "unsupported_op", "Operation is not supported.", 0, false, false },
    { "l2_normalization", "L2_NORMALIZATION has no parser", m_l2norm, BOTH, "unsupported_op", "Operation is not supported.", 0, false, false },
    { "squared_difference", "SQUARED_DIFFERENCE", m_squared_diff, BOTH, NULL, NULL, 1, false, false },
    { "mul_scalar_const", "MUL by a scalar constant", m_mul_scalar_const, BOTH, NULL, NULL, 1, false, false },
    { "add_channel_const", "ADD of a per-channel constant", m_add_channel_const, BOTH, NULL, NULL, 1, false, false },
    { "floor_div_int32", "FLOOR_DIV of INT32 by a scalar", m_floor_div_int, ML, NULL, NULL, 1, false, false },
    { "conv_2d_runtime_weights", "CONV_2D with runtime weights, no bias (the CPU kernel wants a bias)",
      m_conv_runtime_weights, BOTH, NULL, NULL, 1, false, true },
    { "average_pool", "AVERAGE_POOL_2D", m_avg_pool, BOTH, NULL, NULL, 1, false, false },
    { "resize_nearest", "RESIZE_NEAREST_NEIGHBOR", m_resize_nn, BOTH, NULL, NULL, 1, false, false },
    { "space_to_depth", "SPACE_TO_DEPTH", m_space_to_depth, BOTH, NULL, NULL, 1, false, false },
    { "space_to_batch", "SPACE_TO_BATCH_ND has no registered parser", m_space_to_batch, BOTH, "unsupported_op",
      "Operation is not supported.", 0, false, false },
    { "tile", "TILE", m_tile, BOTH, NULL, NULL, 1, false, false },
    { "pack", "PACK of two rank-2 tensors", m_pack, BOTH, NULL, NULL, 1, false, false },
    { "unpack", "UNPACK on axis 1", m_unpack, BOTH, NULL, NULL, 1, false, false },
    { "split_v", "SPLIT_V", m_split_v, BOTH, NULL, NULL, 1, false, false },
    { "transpose_rank3", "TRANSPOSE rank 3", m_transpose3, BOTH, NULL, NULL, 1, false, false },
    { "slice_rank3", "SLICE rank 3", m_slice3, BOTH, NULL, NULL, 1, false, false },
    { "strided_slice_rank3", "STRIDED_SLICE rank 3", m_strided_slice3, ML, NULL, NULL, 1, false, false },
    { "strided_slice_rank3_classic", "STRIDED_SLICE rank 3, batch 2: params read as HWC (TF #60817)", m_strided_slice3,
      CL, "slice.output_shape", "Output height doesn't match", 0, true, false },
    { "pad_rank3", "PAD rank 3 (3x2 paddings)", m_pad3, BOTH, NULL, NULL, 1, false, false },
    { "padv2", "PADV2 with a constant value", m_padv2, BOTH, NULL, NULL, 1, false, false },
    { "mean_no_keep_dims", "MEAN over H, W without keep_dims", m_mean_nokeep, BOTH, NULL, NULL, 1, false, false },
    { "sum_channels", "SUM over channels", m_sum, BOTH, NULL, NULL, 1, false, false },
    { "reduce_max", "REDUCE_MAX", m_reduce_max, BOTH, NULL, NULL, 1, false, false },
    /* constant 1-D indices: built and exact on native 2.3.0 (the default runtime's facts);
     * LiteRT.js 2.5.3 fails kernel building, a measured fact (tests/c/test_numerics.c) */
    { "gather_axis1", "GATHER on axis 1 with constant 1-D indices", m_gather_axis1, ML, NULL, NULL, 1, false, false },
    { "gather_axis1_classic", "GATHER on axis 1 with constant indices (classic)", m_gather_axis1, CL, NULL, NULL, 1,
      false, false },
    { "gather_const_indices_axis0", "GATHER on axis 0 with constant 1-D indices", m_gather_const0, ML, NULL, NULL, 1,
      false, false },
    { "gather_const_index_single", "GATHER with one constant index", m_gather_const1, BOTH, NULL, NULL, 1, false, false },
    { "topk", "TOPK_V2 with constant k", m_topk, ML, NULL, NULL, 1, false, false },
    { "reverse_v2", "REVERSE_V2", m_reverse, ML, NULL, NULL, 1, false, false },
    { "dynamic_update_slice", "DYNAMIC_UPDATE_SLICE with runtime start", m_dus, ML, NULL, NULL, 1, false, false },
    { "embedding_lookup_f32", "EMBEDDING_LOOKUP of a float table", m_embedding_f32, ML, NULL, NULL, 1, false, false },
    { "cumsum", "CUMSUM with a constant axis", m_cumsum, BOTH, NULL, NULL, 1, false, false },
    { "select_v2_scalar_else", "SELECT_V2 with a scalar constant else", m_select_scalar_else, BOTH, NULL, NULL, 2, false, false },
    { "custom_max_unpooling", "MaxUnpooling2D", m_max_unpool, BOTH, NULL, NULL, 1, false, false },
    { "mask_add_on_bmm", "scores = q @ k; scores + mask[1,1,S,S]", m_mask_bmm, BOTH, NULL, NULL, 2, false, false },
    { "three_partitions", "RELU | SQUEEZE | RELU RELU6 TANH | SQUEEZE | ADD", m_three_partitions, BOTH, NULL, NULL, 3, false, false },
};

const int gc_rule_cases_n = (int)(sizeof gc_rule_cases / sizeof gc_rule_cases[0]);
