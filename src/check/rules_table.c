/* rules_table.c — the one op table: for every builtin code, the parser each delegate
 * picks in NewOperationParser (gpu-delegate-rules.md §1.1 step 3, §3 classic tables,
 * §4.1 ML Drift coverage deltas) and the classic parse-time ([P]) checks. A NULL entry
 * means the delegate has no parser for the op: "Operation is not supported."
 * (UnsupportedOperationParser, §2.9). CUSTOM and STABLEHLO_COMPOSITE dispatch on the
 * custom / composite name inside their rules (§2.8).
 */
#include "check_int.h"

#define EW { gc_ml_elementwise, gc_cl_elementwise, gc_clp_elementwise }
#define EW_ML_ONLY { gc_ml_elementwise, NULL, NULL }
#define RELU { gc_ml_relu, gc_cl_relu, NULL }
#define REDUCE { gc_ml_reduce, gc_cl_compat_only, NULL }

static const gc_op_rules table[GC_OP_COUNT] = {
    /* elementwise, one argument */
    [GC_OP_ABS] = EW, [GC_OP_COS] = EW, [GC_OP_ELU] = EW, [GC_OP_EXP] = EW, [GC_OP_FLOOR] = EW,
    [GC_OP_GELU] = EW, [GC_OP_LOG] = EW, [GC_OP_LOGISTIC] = EW, [GC_OP_NEG] = EW, [GC_OP_RSQRT] = EW,
    [GC_OP_SIGN] = EW, [GC_OP_SIN] = EW, [GC_OP_SQRT] = EW, [GC_OP_SQUARE] = EW, [GC_OP_TANH] = EW,
    [GC_OP_CEIL] = EW_ML_ONLY, [GC_OP_ROUND] = EW_ML_ONLY, [GC_OP_LOGICAL_NOT] = EW_ML_ONLY,
    /* elementwise, two arguments */
    [GC_OP_ADD] = EW, [GC_OP_ADD_N] = EW, [GC_OP_SUB] = EW, [GC_OP_MUL] = EW, [GC_OP_DIV] = EW,
    [GC_OP_POW] = EW, [GC_OP_SQUARED_DIFFERENCE] = EW, [GC_OP_MAXIMUM] = EW, [GC_OP_MINIMUM] = EW,
    [GC_OP_FLOOR_DIV] = EW, [GC_OP_FLOOR_MOD] = EW, [GC_OP_LOGICAL_AND] = EW,
    [GC_OP_EQUAL] = EW, [GC_OP_NOT_EQUAL] = EW, [GC_OP_GREATER] = EW, [GC_OP_GREATER_EQUAL] = EW,
    [GC_OP_LESS] = EW, [GC_OP_LESS_EQUAL] = EW,
    [GC_OP_ATAN2] = EW_ML_ONLY, [GC_OP_LOGICAL_OR] = EW_ML_ONLY, [GC_OP_BITWISE_XOR] = EW_ML_ONLY,
    [GC_OP_RIGHT_SHIFT] = EW_ML_ONLY, [GC_OP_STABLEHLO_SHIFT_LEFT] = EW_ML_ONLY,
    [GC_OP_STABLEHLO_REMAINDER] = { gc_ml_remainder, NULL, NULL },
    [GC_OP_STABLEHLO_CLAMP] = { gc_ml_clamp, NULL, NULL },
    [GC_OP_STABLEHLO_CBRT] = { gc_ml_cbrt, NULL, NULL },
    [GC_OP_CAST] = { gc_ml_cast, gc_cl_cast, NULL },
    [GC_OP_RELU] = RELU, [GC_OP_RELU6] = RELU, [GC_OP_RELU_N1_TO_1] = RELU, [GC_OP_RELU_0_TO_1] = RELU,
    [GC_OP_LEAKY_RELU] = RELU,
    [GC_OP_PRELU] = { gc_ml_prelu, gc_cl_prelu, gc_clp_prelu },
    [GC_OP_HARD_SWISH] = { gc_ml_hard_swish, gc_cl_compat_only, NULL },
    [GC_OP_SELECT] = { gc_ml_select, gc_cl_select, gc_clp_select },
    [GC_OP_SELECT_V2] = { gc_ml_select, gc_cl_select, gc_clp_select },
    /* convolution, matmul, pooling */
    [GC_OP_CONV_2D] = { gc_ml_conv2d, gc_cl_conv2d, gc_clp_conv2d },
    [GC_OP_DEPTHWISE_CONV_2D] = { gc_ml_dwconv, gc_cl_dwconv, NULL },
    [GC_OP_TRANSPOSE_CONV] = { gc_ml_transpose_conv, gc_cl_transpose_conv, NULL },
    [GC_OP_FULLY_CONNECTED] = { gc_ml_fc, gc_cl_fc, gc_clp_fc },
    [GC_OP_BATCH_MATMUL] = { gc_ml_bmm, gc_cl_bmm, gc_clp_bmm },
    [GC_OP_AVERAGE_POOL_2D] = { gc_ml_pool, gc_cl_pool, NULL },
    [GC_OP_MAX_POOL_2D] = { gc_ml_pool, gc_cl_pool, NULL },
    [GC_OP_CUSTOM] = { gc_ml_custom, gc_cl_custom, NULL },
    [GC_OP_STABLEHLO_COMPOSITE] = { gc_ml_composite, NULL, NULL },
    /* shape and data movement */
    [GC_OP_RESHAPE] = { gc_ml_reshape, gc_cl_reshape, NULL },
    [GC_OP_CONCATENATION] = { gc_ml_concat, gc_cl_concat, gc_clp_concat },
    [GC_OP_PACK] = { gc_ml_pack, gc_cl_compat_only, gc_clp_pack },
    [GC_OP_UNPACK] = { gc_ml_unpack, gc_cl_always, NULL },
    [GC_OP_SPLIT] = { gc_ml_split, gc_cl_always, NULL },
    [GC_OP_SPLIT_V] = { gc_ml_split_v, gc_cl_always, NULL },
    [GC_OP_SLICE] = { gc_ml_slice, gc_cl_slice, gc_clp_slice },
    [GC_OP_STRIDED_SLICE] = { gc_ml_strided_slice, gc_cl_strided_slice, gc_clp_strided_slice },
    [GC_OP_TRANSPOSE] = { gc_ml_transpose, gc_cl_transpose, gc_clp_transpose },
    [GC_OP_PAD] = { gc_ml_pad, gc_cl_pad, NULL },
    [GC_OP_PADV2] = { gc_ml_pad, gc_cl_pad, NULL },
    [GC_OP_MIRROR_PAD] = { gc_ml_pad, gc_cl_pad, NULL },
    [GC_OP_TILE] = { gc_ml_tile, gc_cl_compat_only, NULL },
    [GC_OP_GATHER] = { gc_ml_gather, gc_cl_gather, NULL },
    [GC_OP_DEPTH_TO_SPACE] = { gc_ml_depth_to_space, gc_cl_compat_only, NULL },
    [GC_OP_SPACE_TO_DEPTH] = { gc_ml_space_to_depth, gc_cl_space_to_depth, NULL },
    [GC_OP_RESIZE_BILINEAR] = { gc_ml_resize, gc_cl_resize, NULL },
    [GC_OP_RESIZE_NEAREST_NEIGHBOR] = { gc_ml_resize, gc_cl_resize, NULL },
    [GC_OP_REVERSE_V2] = { gc_ml_reverse, NULL, NULL },
    [GC_OP_STABLEHLO_BROADCAST_IN_DIM] = { gc_ml_broadcast_in_dim, NULL, NULL },
    [GC_OP_DYNAMIC_UPDATE_SLICE] = { gc_ml_dus, NULL, NULL },
    [GC_OP_BITCAST] = { gc_ml_bitcast, NULL, NULL },
    /* reductions, normalisation, misc */
    [GC_OP_MEAN] = REDUCE, [GC_OP_SUM] = REDUCE, [GC_OP_REDUCE_MAX] = REDUCE, [GC_OP_REDUCE_MIN] = REDUCE,
    [GC_OP_REDUCE_PROD] = REDUCE,
    [GC_OP_REDUCE_ALL] = { gc_ml_reduce, NULL, NULL }, [GC_OP_REDUCE_ANY] = { gc_ml_reduce, NULL, NULL },
    [GC_OP_SOFTMAX] = { gc_ml_softmax, gc_cl_softmax, NULL },
    [GC_OP_QUANTIZE] = { gc_ml_quantize, gc_cl_quantize, gc_clp_quantize },
    [GC_OP_DEQUANTIZE] = { gc_ml_dequantize, gc_cl_dequantize, gc_clp_dequantize },
    [GC_OP_DENSIFY] = { NULL, gc_cl_densify, gc_clp_densify },
    [GC_OP_LSTM] = { gc_ml_lstm, gc_cl_lstm, gc_clp_lstm },
    [GC_OP_ONE_HOT] = { gc_ml_one_hot, gc_cl_one_hot, NULL },
    [GC_OP_CUMSUM] = { gc_ml_cumsum, gc_cl_cumsum, NULL },
    [GC_OP_TOPK_V2] = { gc_ml_topk, NULL, NULL },
    [GC_OP_EMBEDDING_LOOKUP] = { gc_ml_embedding_lookup, NULL, NULL },
    [GC_OP_ARG_MAX] = { gc_ml_arg_max, NULL, NULL },
};

_Static_assert(GC_OP_COUNT == 210, "new builtin codes: review the GPU op table");

/* ML Drift kernel creation rules from the delegate source: none today. Kernel-building
 * failures measured on a device (GATHER with constant 1-D indices on LiteRT.js 2.5.3, a
 * CONCATENATION of SPLIT outputs, ...) are facts per runtime and version
 * (data/gpu/facts.tsv, init_failed rows), applied by src/check/numerics.c. */
gc_rule_fn gc_mldrift_init_rule(int32_t code) {
    (void)code;
    return NULL;
}

const gc_op_rules *gc_op_rules_for(int32_t code) {
    static const gc_op_rules none = { NULL, NULL, NULL };
    return (code >= 0 && code < GC_OP_COUNT) ? &table[code] : &none;
}
