/* check_int.h — internals of the GPU checker shared by the src/check sources.
 *
 * A rule is a pure predicate over one node (gc_rctx): it returns 0 when the node passes
 * and 1 when the delegate would refuse it, filling a gc_hit with a stable rule id (the
 * target prefix "mldrift." / "classic." is added by the driver) and the delegate's own
 * message. Rules never allocate and never look beyond the model and the precomputed
 * per-tensor flags, so a verdict is identical across runs.
 *
 * The TFLite runtime facts the rules emulate (gpu-delegate-rules.md §2.3): a tensor is
 * constant when allocation_type == kTfLiteMmapRo, i.e. it has a non-empty buffer and is
 * not a variable; consumers of an fp16-constant DEQUANTIZE see the fp16 constant
 * (FP16GraphPartitionHelper::RemapFp16InputTensors, §1.1 step 1) — gc_rctx.in holds the
 * remapped inputs.
 */
#ifndef GC_CHECK_INT_H
#define GC_CHECK_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "check.h"

/* per-tensor flags (gc_rctx.tf) */
enum {
    GC_TF_CONST = 1,       /* kTfLiteMmapRo */
    GC_TF_VARIABLE = 2,    /* kTfLiteArenaRwPersistent */
    GC_TF_DYNAMIC = 4,     /* kTfLiteDynamic (shape known only at run time) */
    GC_TF_PERSIST_RO = 8,  /* kTfLitePersistentRo (SHAPE/RANK outputs) */
    GC_TF_GRAPH_IN = 16,
    GC_TF_GRAPH_OUT = 32
};

/* producers and consumers of every tensor of a subgraph (CSR) */
typedef struct {
    int32_t n_tensors;
    int32_t *producer;     /* op index or -1 */
    int32_t *cons_off;     /* n_tensors + 1 */
    int32_t *cons;         /* op indices */
} gc_graph;

typedef struct {
    const gc_model *m;
    const gc_subgraph *sg;
    int32_t sgi, node;
    const gc_op *op;
    int32_t code;            /* GC_OP_* */
    const char *custom;      /* custom op name, NULL for builtins */
    int32_t version;
    gc_target target;
    int32_t n_in;
    const int32_t *in;       /* inputs after the fp16-DEQUANTIZE remap */
    const uint8_t *tf;       /* GC_TF_* per tensor */
    const gc_graph *g;
} gc_rctx;

typedef struct {
    char rule[64];           /* without the target prefix: "gather.indices_rank" */
    char reason[400];        /* the delegate's wording */
    int32_t tensor;          /* tensor the message is about, -1 */
    bool fatal;              /* classic [P]: init failure */
} gc_hit;

typedef int (*gc_rule_fn)(const gc_rctx *c, gc_hit *h);

/* One row of the op table (rules_table.c), indexed by builtin code. */
typedef struct {
    gc_rule_fn mldrift;        /* ML Drift IsSupported; NULL = no parser */
    gc_rule_fn classic;        /* classic IsSupported; NULL = no parser */
    gc_rule_fn classic_parse;  /* classic Parse-time ([P]) checks; NULL = none */
} gc_op_rules;
const gc_op_rules *gc_op_rules_for(int32_t code);
/* ML Drift kernel-creation rules that the delegate source states: nodes IsSupported
 * accepts but whose GPU kernel cannot be built, which drops the whole delegation
 * ("Restored original execution plan"); NULL = none (none today: failures measured on a
 * device are init_failed facts, src/check/numerics.c) */
gc_rule_fn gc_mldrift_init_rule(int32_t code);

/* ---- hits ---------------------------------------------------------------------- */
int gc_hit_set(gc_hit *h, const char *rule, int32_t tensor, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));   /* returns 1 */
int gc_hit_vset(gc_hit *h, const char *rule, int32_t tensor, const char *fmt, va_list ap);
#define GC_REJECT(h, rule, t, ...) return gc_hit_set((h), (rule), (t), __VA_ARGS__)
#define GC_TRY(x) do { int r_ = (x); if (r_) return r_; } while (0)

/* ---- node / tensor access ------------------------------------------------------- */
int32_t gc_in_idx(const gc_rctx *c, int i);              /* -1 if absent/optional */
const gc_tensor *gc_in(const gc_rctx *c, int i);         /* NULL if absent/optional */
int32_t gc_out_idx(const gc_rctx *c, int i);
const gc_tensor *gc_out(const gc_rctx *c, int i);
int gc_n_out(const gc_rctx *c);
const gc_tensor *gc_tensor_at(const gc_rctx *c, int32_t t);
bool gc_is_const_t(const gc_rctx *c, int32_t t);         /* kTfLiteMmapRo */
bool gc_is_const_in(const gc_rctx *c, int i);
int gc_n_runtime_inputs(const gc_rctx *c);               /* present, not constant */
int gc_n_const_inputs(const gc_rctx *c);
const char *gc_op_label(const gc_rctx *c);               /* "ADD" / custom name */
int64_t gc_numel_dims(const int32_t *d, int32_t n);
bool gc_dims_eq(const gc_tensor *a, const gc_tensor *b);
bool gc_is_linear_convertible(const gc_tensor *t);       /* all dims 1 but the last */
bool gc_affine_quant(const gc_tensor *t);
bool gc_blockwise_quant(const gc_tensor *t);
/* options, read only when the op carries the expected options table */
int64_t gc_opt_i(const gc_rctx *c, int bo_type, int field);
double gc_opt_f(const gc_rctx *c, int bo_type, int field);
/* constant int32/int64 element i of an input (false if not constant/readable) */
bool gc_const_int(const gc_rctx *c, int input, int64_t i, int64_t *v);
/* custom_initial_data as little-endian int32 fields; false if too short */
bool gc_custom_i32(const gc_rctx *c, int field, int32_t *v);
/* "[1,2,3]" (TFLite GetShapeDebugString) / "1x2x3" (classic ToString) */
void gc_dims_str(const gc_tensor *t, char *buf, size_t n, bool x_style);
const char *gc_tflite_type_name(int type);               /* kTfLite enum spelling: "INT64" */

/* ---- the shared compat checker (rules_compat.c): CheckGpuDelegateCompatibility ---- */
enum { GC_BCAST_STANDARD = 0, GC_BCAST_ENHANCED = 1 };
int gc_compat(const gc_rctx *c, gc_hit *h, int bcast_flags);
int gc_compat_io(const gc_rctx *c, gc_hit *h, int rt, int outs);
int gc_compat_ico(const gc_rctx *c, gc_hit *h, int rt, int cst, int outs);
int gc_compat_activation(gc_hit *h, int64_t act);
int gc_version(const gc_rctx *c, gc_hit *h, int max_version);

/* ---- ML Drift pre-checks (rules_common.c): operation_parser.cc PreCheck* ---------- */
/* ParserValidationOptions; zero means "not checked" (no op needs a limit of 0 there);
 * the two input counts can be 0, so they are stored plus one: .rt_inputs = GC_N(1) */
typedef struct {
    int max_version, min_inputs, max_inputs, num_outputs, rt_inputs, const_inputs;
    bool no_compat;
    int bcast;
} gc_vopts;
#define GC_VOPTS(...) ((gc_vopts){ __VA_ARGS__ })
#define GC_N(n) ((n) + 1)
int gc_validate(const gc_rctx *c, gc_hit *h, gc_vopts o);       /* ValidateSupport */
int gc_pre_read_value_t(const gc_rctx *c, gc_hit *h, int32_t t);/* PreCheckReadValueByTensorIdx */
int gc_pre_read_value(const gc_rctx *c, gc_hit *h, int input);  /* PreCheckReadValue */
int gc_pre_outputs(const gc_rctx *c, gc_hit *h);
int gc_pre_tensor_shape(gc_hit *h, const gc_tensor *t, int32_t ti);   /* rank <= 5 */
int gc_pre_tflite_shape(gc_hit *h, const gc_tensor *t, int32_t ti);   /* rank 1..4 */
int gc_pre_axis(gc_hit *h, const gc_tensor *t, int64_t axis);
enum { GC_SH_SCALAR, GC_SH_LINEAR, GC_SH_HW, GC_SH_HWC, GC_SH_OHWI, GC_SH_BHWC };
/* PreReadTensor / PreCheckReadTensor: float_dst selects the float copy rules */
int gc_pre_read_tensor(const gc_rctx *c, gc_hit *h, int input, int shape_kind, bool float_dst);
int gc_pre_runtime_or_const(const gc_rctx *c, gc_hit *h, int input);
int gc_pre_fuse_act(const gc_rctx *c, gc_hit *h, int64_t act, bool skip_size);
int gc_pre_read_quantized(const gc_rctx *c, gc_hit *h, int32_t t);

/* ---- type / rank filter (rules_common.c) ----------------------------------------- */
int gc_type_filter(const gc_rctx *c, gc_hit *h);

/* ---- op rule families --------------------------------------------------------------- */
/* rules_elementwise.c */
int gc_ml_elementwise(const gc_rctx *c, gc_hit *h);
int gc_cl_elementwise(const gc_rctx *c, gc_hit *h);
int gc_clp_elementwise(const gc_rctx *c, gc_hit *h);
int gc_ml_cast(const gc_rctx *c, gc_hit *h);
int gc_cl_cast(const gc_rctx *c, gc_hit *h);
int gc_ml_relu(const gc_rctx *c, gc_hit *h);
int gc_cl_relu(const gc_rctx *c, gc_hit *h);
int gc_ml_prelu(const gc_rctx *c, gc_hit *h);
int gc_cl_prelu(const gc_rctx *c, gc_hit *h);
int gc_clp_prelu(const gc_rctx *c, gc_hit *h);
int gc_ml_hard_swish(const gc_rctx *c, gc_hit *h);
int gc_ml_select(const gc_rctx *c, gc_hit *h);
int gc_cl_select(const gc_rctx *c, gc_hit *h);
int gc_clp_select(const gc_rctx *c, gc_hit *h);
int gc_ml_clamp(const gc_rctx *c, gc_hit *h);
int gc_ml_cbrt(const gc_rctx *c, gc_hit *h);
int gc_ml_remainder(const gc_rctx *c, gc_hit *h);
int gc_cl_compat_only(const gc_rctx *c, gc_hit *h);      /* classic: compat, no version */
/* rules_conv.c */
int gc_ml_conv2d(const gc_rctx *c, gc_hit *h);
int gc_cl_conv2d(const gc_rctx *c, gc_hit *h);
int gc_clp_conv2d(const gc_rctx *c, gc_hit *h);
int gc_ml_dwconv(const gc_rctx *c, gc_hit *h);
int gc_cl_dwconv(const gc_rctx *c, gc_hit *h);
int gc_ml_transpose_conv(const gc_rctx *c, gc_hit *h);
int gc_cl_transpose_conv(const gc_rctx *c, gc_hit *h);
int gc_ml_fc(const gc_rctx *c, gc_hit *h);
int gc_cl_fc(const gc_rctx *c, gc_hit *h);
int gc_clp_fc(const gc_rctx *c, gc_hit *h);
int gc_ml_bmm(const gc_rctx *c, gc_hit *h);
int gc_cl_bmm(const gc_rctx *c, gc_hit *h);
int gc_clp_bmm(const gc_rctx *c, gc_hit *h);
int gc_ml_pool(const gc_rctx *c, gc_hit *h);
int gc_cl_pool(const gc_rctx *c, gc_hit *h);
int gc_ml_custom(const gc_rctx *c, gc_hit *h);
int gc_cl_custom(const gc_rctx *c, gc_hit *h);
int gc_ml_composite(const gc_rctx *c, gc_hit *h);
/* rules_shape.c */
int gc_ml_reshape(const gc_rctx *c, gc_hit *h);
int gc_cl_reshape(const gc_rctx *c, gc_hit *h);
int gc_ml_concat(const gc_rctx *c, gc_hit *h);
int gc_cl_concat(const gc_rctx *c, gc_hit *h);
int gc_clp_concat(const gc_rctx *c, gc_hit *h);
int gc_ml_pack(const gc_rctx *c, gc_hit *h);
int gc_clp_pack(const gc_rctx *c, gc_hit *h);
int gc_ml_unpack(const gc_rctx *c, gc_hit *h);
int gc_cl_always(const gc_rctx *c, gc_hit *h);
int gc_ml_slice(const gc_rctx *c, gc_hit *h);
int gc_cl_slice(const gc_rctx *c, gc_hit *h);
int gc_clp_slice(const gc_rctx *c, gc_hit *h);
int gc_ml_strided_slice(const gc_rctx *c, gc_hit *h);
int gc_cl_strided_slice(const gc_rctx *c, gc_hit *h);
int gc_clp_strided_slice(const gc_rctx *c, gc_hit *h);
int gc_ml_transpose(const gc_rctx *c, gc_hit *h);
int gc_cl_transpose(const gc_rctx *c, gc_hit *h);
int gc_clp_transpose(const gc_rctx *c, gc_hit *h);
int gc_ml_pad(const gc_rctx *c, gc_hit *h);
int gc_cl_pad(const gc_rctx *c, gc_hit *h);
int gc_ml_split(const gc_rctx *c, gc_hit *h);
int gc_ml_split_v(const gc_rctx *c, gc_hit *h);
int gc_ml_tile(const gc_rctx *c, gc_hit *h);
int gc_ml_gather(const gc_rctx *c, gc_hit *h);
int gc_cl_gather(const gc_rctx *c, gc_hit *h);
int gc_ml_depth_to_space(const gc_rctx *c, gc_hit *h);
int gc_ml_space_to_depth(const gc_rctx *c, gc_hit *h);
int gc_cl_space_to_depth(const gc_rctx *c, gc_hit *h);
int gc_ml_resize(const gc_rctx *c, gc_hit *h);
int gc_cl_resize(const gc_rctx *c, gc_hit *h);
int gc_ml_reverse(const gc_rctx *c, gc_hit *h);
int gc_ml_broadcast_in_dim(const gc_rctx *c, gc_hit *h);
int gc_ml_dus(const gc_rctx *c, gc_hit *h);
int gc_ml_bitcast(const gc_rctx *c, gc_hit *h);
/* rules_misc.c */
int gc_ml_reduce(const gc_rctx *c, gc_hit *h);
int gc_ml_softmax(const gc_rctx *c, gc_hit *h);
int gc_cl_softmax(const gc_rctx *c, gc_hit *h);
int gc_ml_quantize(const gc_rctx *c, gc_hit *h);
int gc_cl_quantize(const gc_rctx *c, gc_hit *h);
int gc_clp_quantize(const gc_rctx *c, gc_hit *h);
int gc_ml_dequantize(const gc_rctx *c, gc_hit *h);
int gc_cl_dequantize(const gc_rctx *c, gc_hit *h);
int gc_clp_dequantize(const gc_rctx *c, gc_hit *h);
int gc_cl_densify(const gc_rctx *c, gc_hit *h);
int gc_clp_densify(const gc_rctx *c, gc_hit *h);
int gc_ml_lstm(const gc_rctx *c, gc_hit *h);
int gc_cl_lstm(const gc_rctx *c, gc_hit *h);
int gc_clp_lstm(const gc_rctx *c, gc_hit *h);
int gc_ml_one_hot(const gc_rctx *c, gc_hit *h);
int gc_cl_one_hot(const gc_rctx *c, gc_hit *h);
int gc_ml_cumsum(const gc_rctx *c, gc_hit *h);
int gc_cl_cumsum(const gc_rctx *c, gc_hit *h);
int gc_ml_topk(const gc_rctx *c, gc_hit *h);
int gc_ml_embedding_lookup(const gc_rctx *c, gc_hit *h);
int gc_ml_arg_max(const gc_rctx *c, gc_hit *h);
/* classic parse-time checks common to every delegated node (rank-0 values, per-channel
 * quantized activations) — check.c runs it before the op's own [P] rule */
int gc_clp_common(const gc_rctx *c, gc_hit *h);

/* ---- rewrite hints (fixes.c) ---------------------------------------------------------- */
typedef struct { const char *id, *torch, *tflite; } gc_fix;
/* hint for a rejected node; rule without target prefix */
gc_fix gc_fix_for(const gc_rctx *c, const char *rule);
/* the texts of a fix id (the first row naming it); "" texts when no row does */
gc_fix gc_fix_by_id(const char *id);

/* ---- fp16 risk lints (lint.c) --------------------------------------------------------- */
typedef struct {
    int32_t sg, node; const char *rule; gc_risk_level level;
    char msg[320]; const char *fix;
} gc_lint;
typedef void (*gc_lint_sink)(void *user, const gc_lint *l);
void gc_lint_subgraph(const gc_model *m, int32_t sgi, const gc_graph *g, const uint8_t *tf,
                      gc_target target, gc_lint_sink sink, void *user);

/* ---- partitioning (partition.c): PartitionGraphIntoIndependentNodeSubsets ------------ */
typedef struct {
    int32_t n_subsets;
    int32_t *subset_of;      /* per node: subset id */
    uint8_t *subset_type;    /* per subset: 1 = delegated kind (kTfPartition), 0 = other */
    int32_t *subset_size;
} gc_partitioning;
/* supported[n_ops]; side_effect[n_ops]; returns false on a cycle (runtime error) */
bool gc_partition(const gc_subgraph *sg, const uint8_t *supported, const uint8_t *side_effect,
                  gc_partitioning *out);
void gc_partitioning_free(gc_partitioning *p);

/* ---- graph helpers (check.c) ----------------------------------------------------------- */
bool gc_graph_build(const gc_subgraph *sg, gc_graph *g);
void gc_graph_free(gc_graph *g);
int32_t gc_graph_n_consumers(const gc_graph *g, int32_t t);

#include "model/flexbuf.h"   /* gc_flex: composite attributes, custom options */

/* the delegates' BHWC view of a tensor (ExtractTensorShape, gpu-delegate-rules.md §2.1) */
void gc_bhwc(const gc_tensor *t, int32_t s[4]);

#endif
