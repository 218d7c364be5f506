/* schema_gen.c — TFLite schema tables: builtin operator names, the options union
 * member each op carries, and every BuiltinOptions / BuiltinOptions2 table described
 * field by field (kind + schema default, index = field id).
 * Read from google-ai-edge/LiteRT
 * tflite/converter/schema/schema.fbs @ 098fb976230858e7d5fbd2b0318e3aeafe2c9e10.
 * Enum-typed fields use the enum's underlying type; enum defaults are numeric
 * (e.g. UniqueOptions.idx_out_type = INT32 = 2). */
#include "model/schema.h"

#include <stddef.h>
#include <string.h>

const char *const gc_builtin_names[GC_OP_COUNT] = {
    [GC_OP_ADD] = "ADD",
    [GC_OP_AVERAGE_POOL_2D] = "AVERAGE_POOL_2D",
    [GC_OP_CONCATENATION] = "CONCATENATION",
    [GC_OP_CONV_2D] = "CONV_2D",
    [GC_OP_DEPTHWISE_CONV_2D] = "DEPTHWISE_CONV_2D",
    [GC_OP_DEPTH_TO_SPACE] = "DEPTH_TO_SPACE",
    [GC_OP_DEQUANTIZE] = "DEQUANTIZE",
    [GC_OP_EMBEDDING_LOOKUP] = "EMBEDDING_LOOKUP",
    [GC_OP_FLOOR] = "FLOOR",
    [GC_OP_FULLY_CONNECTED] = "FULLY_CONNECTED",
    [GC_OP_HASHTABLE_LOOKUP] = "HASHTABLE_LOOKUP",
    [GC_OP_L2_NORMALIZATION] = "L2_NORMALIZATION",
    [GC_OP_L2_POOL_2D] = "L2_POOL_2D",
    [GC_OP_LOCAL_RESPONSE_NORMALIZATION] = "LOCAL_RESPONSE_NORMALIZATION",
    [GC_OP_LOGISTIC] = "LOGISTIC",
    [GC_OP_LSH_PROJECTION] = "LSH_PROJECTION",
    [GC_OP_LSTM] = "LSTM",
    [GC_OP_MAX_POOL_2D] = "MAX_POOL_2D",
    [GC_OP_MUL] = "MUL",
    [GC_OP_RELU] = "RELU",
    [GC_OP_RELU_N1_TO_1] = "RELU_N1_TO_1",
    [GC_OP_RELU6] = "RELU6",
    [GC_OP_RESHAPE] = "RESHAPE",
    [GC_OP_RESIZE_BILINEAR] = "RESIZE_BILINEAR",
    [GC_OP_RNN] = "RNN",
    [GC_OP_SOFTMAX] = "SOFTMAX",
    [GC_OP_SPACE_TO_DEPTH] = "SPACE_TO_DEPTH",
    [GC_OP_SVDF] = "SVDF",
    [GC_OP_TANH] = "TANH",
    [GC_OP_CONCAT_EMBEDDINGS] = "CONCAT_EMBEDDINGS",
    [GC_OP_SKIP_GRAM] = "SKIP_GRAM",
    [GC_OP_CALL] = "CALL",
    [GC_OP_CUSTOM] = "CUSTOM",
    [GC_OP_EMBEDDING_LOOKUP_SPARSE] = "EMBEDDING_LOOKUP_SPARSE",
    [GC_OP_PAD] = "PAD",
    [GC_OP_UNIDIRECTIONAL_SEQUENCE_RNN] = "UNIDIRECTIONAL_SEQUENCE_RNN",
    [GC_OP_GATHER] = "GATHER",
    [GC_OP_BATCH_TO_SPACE_ND] = "BATCH_TO_SPACE_ND",
    [GC_OP_SPACE_TO_BATCH_ND] = "SPACE_TO_BATCH_ND",
    [GC_OP_TRANSPOSE] = "TRANSPOSE",
    [GC_OP_MEAN] = "MEAN",
    [GC_OP_SUB] = "SUB",
    [GC_OP_DIV] = "DIV",
    [GC_OP_SQUEEZE] = "SQUEEZE",
    [GC_OP_UNIDIRECTIONAL_SEQUENCE_LSTM] = "UNIDIRECTIONAL_SEQUENCE_LSTM",
    [GC_OP_STRIDED_SLICE] = "STRIDED_SLICE",
    [GC_OP_BIDIRECTIONAL_SEQUENCE_RNN] = "BIDIRECTIONAL_SEQUENCE_RNN",
    [GC_OP_EXP] = "EXP",
    [GC_OP_TOPK_V2] = "TOPK_V2",
    [GC_OP_SPLIT] = "SPLIT",
    [GC_OP_LOG_SOFTMAX] = "LOG_SOFTMAX",
    [GC_OP_DELEGATE] = "DELEGATE",
    [GC_OP_BIDIRECTIONAL_SEQUENCE_LSTM] = "BIDIRECTIONAL_SEQUENCE_LSTM",
    [GC_OP_CAST] = "CAST",
    [GC_OP_PRELU] = "PRELU",
    [GC_OP_MAXIMUM] = "MAXIMUM",
    [GC_OP_ARG_MAX] = "ARG_MAX",
    [GC_OP_MINIMUM] = "MINIMUM",
    [GC_OP_LESS] = "LESS",
    [GC_OP_NEG] = "NEG",
    [GC_OP_PADV2] = "PADV2",
    [GC_OP_GREATER] = "GREATER",
    [GC_OP_GREATER_EQUAL] = "GREATER_EQUAL",
    [GC_OP_LESS_EQUAL] = "LESS_EQUAL",
    [GC_OP_SELECT] = "SELECT",
    [GC_OP_SLICE] = "SLICE",
    [GC_OP_SIN] = "SIN",
    [GC_OP_TRANSPOSE_CONV] = "TRANSPOSE_CONV",
    [GC_OP_SPARSE_TO_DENSE] = "SPARSE_TO_DENSE",
    [GC_OP_TILE] = "TILE",
    [GC_OP_EXPAND_DIMS] = "EXPAND_DIMS",
    [GC_OP_EQUAL] = "EQUAL",
    [GC_OP_NOT_EQUAL] = "NOT_EQUAL",
    [GC_OP_LOG] = "LOG",
    [GC_OP_SUM] = "SUM",
    [GC_OP_SQRT] = "SQRT",
    [GC_OP_RSQRT] = "RSQRT",
    [GC_OP_SHAPE] = "SHAPE",
    [GC_OP_POW] = "POW",
    [GC_OP_ARG_MIN] = "ARG_MIN",
    [GC_OP_FAKE_QUANT] = "FAKE_QUANT",
    [GC_OP_REDUCE_PROD] = "REDUCE_PROD",
    [GC_OP_REDUCE_MAX] = "REDUCE_MAX",
    [GC_OP_PACK] = "PACK",
    [GC_OP_LOGICAL_OR] = "LOGICAL_OR",
    [GC_OP_ONE_HOT] = "ONE_HOT",
    [GC_OP_LOGICAL_AND] = "LOGICAL_AND",
    [GC_OP_LOGICAL_NOT] = "LOGICAL_NOT",
    [GC_OP_UNPACK] = "UNPACK",
    [GC_OP_REDUCE_MIN] = "REDUCE_MIN",
    [GC_OP_FLOOR_DIV] = "FLOOR_DIV",
    [GC_OP_REDUCE_ANY] = "REDUCE_ANY",
    [GC_OP_SQUARE] = "SQUARE",
    [GC_OP_ZEROS_LIKE] = "ZEROS_LIKE",
    [GC_OP_FILL] = "FILL",
    [GC_OP_FLOOR_MOD] = "FLOOR_MOD",
    [GC_OP_RANGE] = "RANGE",
    [GC_OP_RESIZE_NEAREST_NEIGHBOR] = "RESIZE_NEAREST_NEIGHBOR",
    [GC_OP_LEAKY_RELU] = "LEAKY_RELU",
    [GC_OP_SQUARED_DIFFERENCE] = "SQUARED_DIFFERENCE",
    [GC_OP_MIRROR_PAD] = "MIRROR_PAD",
    [GC_OP_ABS] = "ABS",
    [GC_OP_SPLIT_V] = "SPLIT_V",
    [GC_OP_UNIQUE] = "UNIQUE",
    [GC_OP_CEIL] = "CEIL",
    [GC_OP_REVERSE_V2] = "REVERSE_V2",
    [GC_OP_ADD_N] = "ADD_N",
    [GC_OP_GATHER_ND] = "GATHER_ND",
    [GC_OP_COS] = "COS",
    [GC_OP_WHERE] = "WHERE",
    [GC_OP_RANK] = "RANK",
    [GC_OP_ELU] = "ELU",
    [GC_OP_REVERSE_SEQUENCE] = "REVERSE_SEQUENCE",
    [GC_OP_MATRIX_DIAG] = "MATRIX_DIAG",
    [GC_OP_QUANTIZE] = "QUANTIZE",
    [GC_OP_MATRIX_SET_DIAG] = "MATRIX_SET_DIAG",
    [GC_OP_ROUND] = "ROUND",
    [GC_OP_HARD_SWISH] = "HARD_SWISH",
    [GC_OP_IF] = "IF",
    [GC_OP_WHILE] = "WHILE",
    [GC_OP_NON_MAX_SUPPRESSION_V4] = "NON_MAX_SUPPRESSION_V4",
    [GC_OP_NON_MAX_SUPPRESSION_V5] = "NON_MAX_SUPPRESSION_V5",
    [GC_OP_SCATTER_ND] = "SCATTER_ND",
    [GC_OP_SELECT_V2] = "SELECT_V2",
    [GC_OP_DENSIFY] = "DENSIFY",
    [GC_OP_SEGMENT_SUM] = "SEGMENT_SUM",
    [GC_OP_BATCH_MATMUL] = "BATCH_MATMUL",
    [GC_OP_PLACEHOLDER_FOR_GREATER_OP_CODES] = "PLACEHOLDER_FOR_GREATER_OP_CODES",
    [GC_OP_CUMSUM] = "CUMSUM",
    [GC_OP_CALL_ONCE] = "CALL_ONCE",
    [GC_OP_BROADCAST_TO] = "BROADCAST_TO",
    [GC_OP_RFFT2D] = "RFFT2D",
    [GC_OP_CONV_3D] = "CONV_3D",
    [GC_OP_IMAG] = "IMAG",
    [GC_OP_REAL] = "REAL",
    [GC_OP_COMPLEX_ABS] = "COMPLEX_ABS",
    [GC_OP_HASHTABLE] = "HASHTABLE",
    [GC_OP_HASHTABLE_FIND] = "HASHTABLE_FIND",
    [GC_OP_HASHTABLE_IMPORT] = "HASHTABLE_IMPORT",
    [GC_OP_HASHTABLE_SIZE] = "HASHTABLE_SIZE",
    [GC_OP_REDUCE_ALL] = "REDUCE_ALL",
    [GC_OP_CONV_3D_TRANSPOSE] = "CONV_3D_TRANSPOSE",
    [GC_OP_VAR_HANDLE] = "VAR_HANDLE",
    [GC_OP_READ_VARIABLE] = "READ_VARIABLE",
    [GC_OP_ASSIGN_VARIABLE] = "ASSIGN_VARIABLE",
    [GC_OP_BROADCAST_ARGS] = "BROADCAST_ARGS",
    [GC_OP_RANDOM_STANDARD_NORMAL] = "RANDOM_STANDARD_NORMAL",
    [GC_OP_BUCKETIZE] = "BUCKETIZE",
    [GC_OP_RANDOM_UNIFORM] = "RANDOM_UNIFORM",
    [GC_OP_MULTINOMIAL] = "MULTINOMIAL",
    [GC_OP_GELU] = "GELU",
    [GC_OP_DYNAMIC_UPDATE_SLICE] = "DYNAMIC_UPDATE_SLICE",
    [GC_OP_RELU_0_TO_1] = "RELU_0_TO_1",
    [GC_OP_UNSORTED_SEGMENT_PROD] = "UNSORTED_SEGMENT_PROD",
    [GC_OP_UNSORTED_SEGMENT_MAX] = "UNSORTED_SEGMENT_MAX",
    [GC_OP_UNSORTED_SEGMENT_SUM] = "UNSORTED_SEGMENT_SUM",
    [GC_OP_ATAN2] = "ATAN2",
    [GC_OP_UNSORTED_SEGMENT_MIN] = "UNSORTED_SEGMENT_MIN",
    [GC_OP_SIGN] = "SIGN",
    [GC_OP_BITCAST] = "BITCAST",
    [GC_OP_BITWISE_XOR] = "BITWISE_XOR",
    [GC_OP_RIGHT_SHIFT] = "RIGHT_SHIFT",
    [GC_OP_STABLEHLO_LOGISTIC] = "STABLEHLO_LOGISTIC",
    [GC_OP_STABLEHLO_ADD] = "STABLEHLO_ADD",
    [GC_OP_STABLEHLO_DIVIDE] = "STABLEHLO_DIVIDE",
    [GC_OP_STABLEHLO_MULTIPLY] = "STABLEHLO_MULTIPLY",
    [GC_OP_STABLEHLO_MAXIMUM] = "STABLEHLO_MAXIMUM",
    [GC_OP_STABLEHLO_RESHAPE] = "STABLEHLO_RESHAPE",
    [GC_OP_STABLEHLO_CLAMP] = "STABLEHLO_CLAMP",
    [GC_OP_STABLEHLO_CONCATENATE] = "STABLEHLO_CONCATENATE",
    [GC_OP_STABLEHLO_BROADCAST_IN_DIM] = "STABLEHLO_BROADCAST_IN_DIM",
    [GC_OP_STABLEHLO_CONVOLUTION] = "STABLEHLO_CONVOLUTION",
    [GC_OP_STABLEHLO_SLICE] = "STABLEHLO_SLICE",
    [GC_OP_STABLEHLO_CUSTOM_CALL] = "STABLEHLO_CUSTOM_CALL",
    [GC_OP_STABLEHLO_REDUCE] = "STABLEHLO_REDUCE",
    [GC_OP_STABLEHLO_ABS] = "STABLEHLO_ABS",
    [GC_OP_STABLEHLO_AND] = "STABLEHLO_AND",
    [GC_OP_STABLEHLO_COSINE] = "STABLEHLO_COSINE",
    [GC_OP_STABLEHLO_EXPONENTIAL] = "STABLEHLO_EXPONENTIAL",
    [GC_OP_STABLEHLO_FLOOR] = "STABLEHLO_FLOOR",
    [GC_OP_STABLEHLO_LOG] = "STABLEHLO_LOG",
    [GC_OP_STABLEHLO_MINIMUM] = "STABLEHLO_MINIMUM",
    [GC_OP_STABLEHLO_NEGATE] = "STABLEHLO_NEGATE",
    [GC_OP_STABLEHLO_OR] = "STABLEHLO_OR",
    [GC_OP_STABLEHLO_POWER] = "STABLEHLO_POWER",
    [GC_OP_STABLEHLO_REMAINDER] = "STABLEHLO_REMAINDER",
    [GC_OP_STABLEHLO_RSQRT] = "STABLEHLO_RSQRT",
    [GC_OP_STABLEHLO_SELECT] = "STABLEHLO_SELECT",
    [GC_OP_STABLEHLO_SUBTRACT] = "STABLEHLO_SUBTRACT",
    [GC_OP_STABLEHLO_TANH] = "STABLEHLO_TANH",
    [GC_OP_STABLEHLO_SCATTER] = "STABLEHLO_SCATTER",
    [GC_OP_STABLEHLO_COMPARE] = "STABLEHLO_COMPARE",
    [GC_OP_STABLEHLO_CONVERT] = "STABLEHLO_CONVERT",
    [GC_OP_STABLEHLO_DYNAMIC_SLICE] = "STABLEHLO_DYNAMIC_SLICE",
    [GC_OP_STABLEHLO_DYNAMIC_UPDATE_SLICE] = "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    [GC_OP_STABLEHLO_PAD] = "STABLEHLO_PAD",
    [GC_OP_STABLEHLO_IOTA] = "STABLEHLO_IOTA",
    [GC_OP_STABLEHLO_DOT_GENERAL] = "STABLEHLO_DOT_GENERAL",
    [GC_OP_STABLEHLO_REDUCE_WINDOW] = "STABLEHLO_REDUCE_WINDOW",
    [GC_OP_STABLEHLO_SORT] = "STABLEHLO_SORT",
    [GC_OP_STABLEHLO_WHILE] = "STABLEHLO_WHILE",
    [GC_OP_STABLEHLO_GATHER] = "STABLEHLO_GATHER",
    [GC_OP_STABLEHLO_TRANSPOSE] = "STABLEHLO_TRANSPOSE",
    [GC_OP_DILATE] = "DILATE",
    [GC_OP_STABLEHLO_RNG_BIT_GENERATOR] = "STABLEHLO_RNG_BIT_GENERATOR",
    [GC_OP_REDUCE_WINDOW] = "REDUCE_WINDOW",
    [GC_OP_STABLEHLO_COMPOSITE] = "STABLEHLO_COMPOSITE",
    [GC_OP_STABLEHLO_SHIFT_LEFT] = "STABLEHLO_SHIFT_LEFT",
    [GC_OP_STABLEHLO_CBRT] = "STABLEHLO_CBRT",
    [GC_OP_STABLEHLO_CASE] = "STABLEHLO_CASE",
};
const int gc_builtin_count = GC_OP_COUNT;

const char *gc_builtin_name(int32_t code) {
    if (code < 0 || code >= GC_OP_COUNT || !gc_builtin_names[code]) return "?";
    return gc_builtin_names[code];
}

int32_t gc_builtin_from_name(const char *name) {
    if (!name) return -1;
    for (int32_t i = 0; i < GC_OP_COUNT; i++)
        if (gc_builtin_names[i] && strcmp(gc_builtin_names[i], name) == 0) return i;
    return -1;
}

/* BuiltinOptions member per op (ops not listed carry no options). */
static const uint8_t op_options[GC_OP_COUNT] = {
    [GC_OP_ADD] = GC_BO_AddOptions,
    [GC_OP_AVERAGE_POOL_2D] = GC_BO_Pool2DOptions,
    [GC_OP_CONCATENATION] = GC_BO_ConcatenationOptions,
    [GC_OP_CONV_2D] = GC_BO_Conv2DOptions,
    [GC_OP_DEPTHWISE_CONV_2D] = GC_BO_DepthwiseConv2DOptions,
    [GC_OP_DEPTH_TO_SPACE] = GC_BO_DepthToSpaceOptions,
    [GC_OP_DEQUANTIZE] = GC_BO_DequantizeOptions,
    [GC_OP_FULLY_CONNECTED] = GC_BO_FullyConnectedOptions,
    [GC_OP_L2_NORMALIZATION] = GC_BO_L2NormOptions,
    [GC_OP_L2_POOL_2D] = GC_BO_Pool2DOptions,
    [GC_OP_LOCAL_RESPONSE_NORMALIZATION] = GC_BO_LocalResponseNormalizationOptions,
    [GC_OP_LSH_PROJECTION] = GC_BO_LSHProjectionOptions,
    [GC_OP_LSTM] = GC_BO_LSTMOptions,
    [GC_OP_MAX_POOL_2D] = GC_BO_Pool2DOptions,
    [GC_OP_MUL] = GC_BO_MulOptions,
    [GC_OP_RESHAPE] = GC_BO_ReshapeOptions,
    [GC_OP_RESIZE_BILINEAR] = GC_BO_ResizeBilinearOptions,
    [GC_OP_RNN] = GC_BO_RNNOptions,
    [GC_OP_SOFTMAX] = GC_BO_SoftmaxOptions,
    [GC_OP_SPACE_TO_DEPTH] = GC_BO_SpaceToDepthOptions,
    [GC_OP_SVDF] = GC_BO_SVDFOptions,
    [GC_OP_CONCAT_EMBEDDINGS] = GC_BO_ConcatEmbeddingsOptions,
    [GC_OP_SKIP_GRAM] = GC_BO_SkipGramOptions,
    [GC_OP_CALL] = GC_BO_CallOptions,
    [GC_OP_EMBEDDING_LOOKUP_SPARSE] = GC_BO_EmbeddingLookupSparseOptions,
    [GC_OP_PAD] = GC_BO_PadOptions,
    [GC_OP_UNIDIRECTIONAL_SEQUENCE_RNN] = GC_BO_SequenceRNNOptions,
    [GC_OP_GATHER] = GC_BO_GatherOptions,
    [GC_OP_BATCH_TO_SPACE_ND] = GC_BO_BatchToSpaceNDOptions,
    [GC_OP_SPACE_TO_BATCH_ND] = GC_BO_SpaceToBatchNDOptions,
    [GC_OP_TRANSPOSE] = GC_BO_TransposeOptions,
    [GC_OP_MEAN] = GC_BO_ReducerOptions,
    [GC_OP_SUB] = GC_BO_SubOptions,
    [GC_OP_DIV] = GC_BO_DivOptions,
    [GC_OP_SQUEEZE] = GC_BO_SqueezeOptions,
    [GC_OP_UNIDIRECTIONAL_SEQUENCE_LSTM] = GC_BO_UnidirectionalSequenceLSTMOptions,
    [GC_OP_STRIDED_SLICE] = GC_BO_StridedSliceOptions,
    [GC_OP_BIDIRECTIONAL_SEQUENCE_RNN] = GC_BO_BidirectionalSequenceRNNOptions,
    [GC_OP_EXP] = GC_BO_ExpOptions,
    [GC_OP_TOPK_V2] = GC_BO_TopKV2Options,
    [GC_OP_SPLIT] = GC_BO_SplitOptions,
    [GC_OP_LOG_SOFTMAX] = GC_BO_LogSoftmaxOptions,
    [GC_OP_BIDIRECTIONAL_SEQUENCE_LSTM] = GC_BO_BidirectionalSequenceLSTMOptions,
    [GC_OP_CAST] = GC_BO_CastOptions,
    [GC_OP_MAXIMUM] = GC_BO_MaximumMinimumOptions,
    [GC_OP_ARG_MAX] = GC_BO_ArgMaxOptions,
    [GC_OP_MINIMUM] = GC_BO_MaximumMinimumOptions,
    [GC_OP_LESS] = GC_BO_LessOptions,
    [GC_OP_NEG] = GC_BO_NegOptions,
    [GC_OP_PADV2] = GC_BO_PadV2Options,
    [GC_OP_GREATER] = GC_BO_GreaterOptions,
    [GC_OP_GREATER_EQUAL] = GC_BO_GreaterEqualOptions,
    [GC_OP_LESS_EQUAL] = GC_BO_LessEqualOptions,
    [GC_OP_SELECT] = GC_BO_SelectOptions,
    [GC_OP_SLICE] = GC_BO_SliceOptions,
    [GC_OP_TRANSPOSE_CONV] = GC_BO_TransposeConvOptions,
    [GC_OP_SPARSE_TO_DENSE] = GC_BO_SparseToDenseOptions,
    [GC_OP_TILE] = GC_BO_TileOptions,
    [GC_OP_EXPAND_DIMS] = GC_BO_ExpandDimsOptions,
    [GC_OP_EQUAL] = GC_BO_EqualOptions,
    [GC_OP_NOT_EQUAL] = GC_BO_NotEqualOptions,
    [GC_OP_SUM] = GC_BO_ReducerOptions,
    [GC_OP_SHAPE] = GC_BO_ShapeOptions,
    [GC_OP_POW] = GC_BO_PowOptions,
    [GC_OP_ARG_MIN] = GC_BO_ArgMinOptions,
    [GC_OP_FAKE_QUANT] = GC_BO_FakeQuantOptions,
    [GC_OP_REDUCE_PROD] = GC_BO_ReducerOptions,
    [GC_OP_REDUCE_MAX] = GC_BO_ReducerOptions,
    [GC_OP_PACK] = GC_BO_PackOptions,
    [GC_OP_LOGICAL_OR] = GC_BO_LogicalOrOptions,
    [GC_OP_ONE_HOT] = GC_BO_OneHotOptions,
    [GC_OP_LOGICAL_AND] = GC_BO_LogicalAndOptions,
    [GC_OP_LOGICAL_NOT] = GC_BO_LogicalNotOptions,
    [GC_OP_UNPACK] = GC_BO_UnpackOptions,
    [GC_OP_REDUCE_MIN] = GC_BO_ReducerOptions,
    [GC_OP_FLOOR_DIV] = GC_BO_FloorDivOptions,
    [GC_OP_REDUCE_ANY] = GC_BO_ReducerOptions,
    [GC_OP_SQUARE] = GC_BO_SquareOptions,
    [GC_OP_ZEROS_LIKE] = GC_BO_ZerosLikeOptions,
    [GC_OP_FILL] = GC_BO_FillOptions,
    [GC_OP_FLOOR_MOD] = GC_BO_FloorModOptions,
    [GC_OP_RANGE] = GC_BO_RangeOptions,
    [GC_OP_RESIZE_NEAREST_NEIGHBOR] = GC_BO_ResizeNearestNeighborOptions,
    [GC_OP_LEAKY_RELU] = GC_BO_LeakyReluOptions,
    [GC_OP_SQUARED_DIFFERENCE] = GC_BO_SquaredDifferenceOptions,
    [GC_OP_MIRROR_PAD] = GC_BO_MirrorPadOptions,
    [GC_OP_ABS] = GC_BO_AbsOptions,
    [GC_OP_SPLIT_V] = GC_BO_SplitVOptions,
    [GC_OP_UNIQUE] = GC_BO_UniqueOptions,
    [GC_OP_REVERSE_V2] = GC_BO_ReverseV2Options,
    [GC_OP_ADD_N] = GC_BO_AddNOptions,
    [GC_OP_GATHER_ND] = GC_BO_GatherNdOptions,
    [GC_OP_COS] = GC_BO_CosOptions,
    [GC_OP_WHERE] = GC_BO_WhereOptions,
    [GC_OP_RANK] = GC_BO_RankOptions,
    [GC_OP_REVERSE_SEQUENCE] = GC_BO_ReverseSequenceOptions,
    [GC_OP_MATRIX_DIAG] = GC_BO_MatrixDiagOptions,
    [GC_OP_QUANTIZE] = GC_BO_QuantizeOptions,
    [GC_OP_MATRIX_SET_DIAG] = GC_BO_MatrixSetDiagOptions,
    [GC_OP_HARD_SWISH] = GC_BO_HardSwishOptions,
    [GC_OP_IF] = GC_BO_IfOptions,
    [GC_OP_WHILE] = GC_BO_WhileOptions,
    [GC_OP_NON_MAX_SUPPRESSION_V4] = GC_BO_NonMaxSuppressionV4Options,
    [GC_OP_NON_MAX_SUPPRESSION_V5] = GC_BO_NonMaxSuppressionV5Options,
    [GC_OP_SCATTER_ND] = GC_BO_ScatterNdOptions,
    [GC_OP_SELECT_V2] = GC_BO_SelectV2Options,
    [GC_OP_DENSIFY] = GC_BO_DensifyOptions,
    [GC_OP_SEGMENT_SUM] = GC_BO_SegmentSumOptions,
    [GC_OP_BATCH_MATMUL] = GC_BO_BatchMatMulOptions,
    [GC_OP_CUMSUM] = GC_BO_CumsumOptions,
    [GC_OP_CALL_ONCE] = GC_BO_CallOnceOptions,
    [GC_OP_BROADCAST_TO] = GC_BO_BroadcastToOptions,
    [GC_OP_RFFT2D] = GC_BO_Rfft2dOptions,
    [GC_OP_CONV_3D] = GC_BO_Conv3DOptions,
    [GC_OP_HASHTABLE] = GC_BO_HashtableOptions,
    [GC_OP_HASHTABLE_FIND] = GC_BO_HashtableFindOptions,
    [GC_OP_HASHTABLE_IMPORT] = GC_BO_HashtableImportOptions,
    [GC_OP_HASHTABLE_SIZE] = GC_BO_HashtableSizeOptions,
    [GC_OP_REDUCE_ALL] = GC_BO_ReducerOptions,
    [GC_OP_CONV_3D_TRANSPOSE] = GC_BO_Conv3DOptions,
    [GC_OP_VAR_HANDLE] = GC_BO_VarHandleOptions,
    [GC_OP_READ_VARIABLE] = GC_BO_ReadVariableOptions,
    [GC_OP_ASSIGN_VARIABLE] = GC_BO_AssignVariableOptions,
    [GC_OP_RANDOM_STANDARD_NORMAL] = GC_BO_RandomOptions,
    [GC_OP_BUCKETIZE] = GC_BO_BucketizeOptions,
    [GC_OP_RANDOM_UNIFORM] = GC_BO_RandomOptions,
    [GC_OP_MULTINOMIAL] = GC_BO_RandomOptions,
    [GC_OP_GELU] = GC_BO_GeluOptions,
    [GC_OP_DYNAMIC_UPDATE_SLICE] = GC_BO_DynamicUpdateSliceOptions,
    [GC_OP_UNSORTED_SEGMENT_PROD] = GC_BO_UnsortedSegmentProdOptions,
    [GC_OP_UNSORTED_SEGMENT_MAX] = GC_BO_UnsortedSegmentMaxOptions,
    [GC_OP_UNSORTED_SEGMENT_SUM] = GC_BO_UnsortedSegmentSumOptions,
    [GC_OP_ATAN2] = GC_BO_ATan2Options,
    [GC_OP_UNSORTED_SEGMENT_MIN] = GC_BO_UnsortedSegmentMinOptions,
    [GC_OP_SIGN] = GC_BO_SignOptions,
    [GC_OP_BITCAST] = GC_BO_BitcastOptions,
    [GC_OP_BITWISE_XOR] = GC_BO_BitwiseXorOptions,
    [GC_OP_RIGHT_SHIFT] = GC_BO_RightShiftOptions,
};

static const uint8_t op_options2[GC_OP_COUNT] = {
    [GC_OP_STABLEHLO_CONCATENATE] = GC_BO2_StablehloConcatenateOptions,
    [GC_OP_STABLEHLO_BROADCAST_IN_DIM] = GC_BO2_StablehloBroadcastInDimOptions,
    [GC_OP_STABLEHLO_CONVOLUTION] = GC_BO2_StablehloConvolutionOptions,
    [GC_OP_STABLEHLO_SLICE] = GC_BO2_StablehloSliceOptions,
    [GC_OP_STABLEHLO_CUSTOM_CALL] = GC_BO2_StablehloCustomCallOptions,
    [GC_OP_STABLEHLO_REDUCE] = GC_BO2_StablehloReduceOptions,
    [GC_OP_STABLEHLO_SCATTER] = GC_BO2_StablehloScatterOptions,
    [GC_OP_STABLEHLO_COMPARE] = GC_BO2_StablehloCompareOptions,
    [GC_OP_STABLEHLO_DYNAMIC_SLICE] = GC_BO2_StablehloDynamicSliceOptions,
    [GC_OP_STABLEHLO_PAD] = GC_BO2_StablehloPadOptions,
    [GC_OP_STABLEHLO_IOTA] = GC_BO2_StablehloIotaOptions,
    [GC_OP_STABLEHLO_DOT_GENERAL] = GC_BO2_StablehloDotGeneralOptions,
    [GC_OP_STABLEHLO_REDUCE_WINDOW] = GC_BO2_StablehloReduceWindowOptions,
    [GC_OP_STABLEHLO_SORT] = GC_BO2_StablehloSortOptions,
    [GC_OP_STABLEHLO_WHILE] = GC_BO2_StablehloWhileOptions,
    [GC_OP_STABLEHLO_GATHER] = GC_BO2_StablehloGatherOptions,
    [GC_OP_STABLEHLO_TRANSPOSE] = GC_BO2_StablehloTransposeOptions,
    [GC_OP_DILATE] = GC_BO2_DilateOptions,
    [GC_OP_STABLEHLO_RNG_BIT_GENERATOR] = GC_BO2_StablehloRngBitGeneratorOptions,
    [GC_OP_REDUCE_WINDOW] = GC_BO2_ReduceWindowOptions,
    [GC_OP_STABLEHLO_COMPOSITE] = GC_BO2_StableHLOCompositeOptions,
    [GC_OP_STABLEHLO_SHIFT_LEFT] = GC_BO2_StablehloShiftLeftOptions,
    [GC_OP_STABLEHLO_CASE] = GC_BO2_StablehloCaseOptions,
};

int gc_builtin_options_type(int32_t code) {
    if (code < 0 || code >= GC_OP_COUNT) return GC_BO_NONE;
    return op_options[code];
}

int gc_builtin_options2_type(int32_t code) {
    if (code < 0 || code >= GC_OP_COUNT) return GC_BO2_NONE;
    return op_options2[code];
}

/* ---- options tables: one array per table, indexed by field id ---- */
static const gc_opt_field_def f_Conv2DOptions[] = {
    [GC_O_Conv2DOptions_padding] = {"padding", GC_F_I8, 0},
    [GC_O_Conv2DOptions_stride_w] = {"stride_w", GC_F_I32, 0},
    [GC_O_Conv2DOptions_stride_h] = {"stride_h", GC_F_I32, 0},
    [GC_O_Conv2DOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_Conv2DOptions_dilation_w_factor] = {"dilation_w_factor", GC_F_I32, 1},
    [GC_O_Conv2DOptions_dilation_h_factor] = {"dilation_h_factor", GC_F_I32, 1},
    [GC_O_Conv2DOptions_quantized_bias_type] = {"quantized_bias_type", GC_F_I8, 0},
};
static const gc_opt_field_def f_DepthwiseConv2DOptions[] = {
    [GC_O_DepthwiseConv2DOptions_padding] = {"padding", GC_F_I8, 0},
    [GC_O_DepthwiseConv2DOptions_stride_w] = {"stride_w", GC_F_I32, 0},
    [GC_O_DepthwiseConv2DOptions_stride_h] = {"stride_h", GC_F_I32, 0},
    [GC_O_DepthwiseConv2DOptions_depth_multiplier] = {"depth_multiplier", GC_F_I32, 0},
    [GC_O_DepthwiseConv2DOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_DepthwiseConv2DOptions_dilation_w_factor] = {"dilation_w_factor", GC_F_I32, 1},
    [GC_O_DepthwiseConv2DOptions_dilation_h_factor] = {"dilation_h_factor", GC_F_I32, 1},
};
static const gc_opt_field_def f_ConcatEmbeddingsOptions[] = {
    [GC_O_ConcatEmbeddingsOptions_num_channels] = {"num_channels", GC_F_I32, 0},
    [GC_O_ConcatEmbeddingsOptions_num_columns_per_channel] = {"num_columns_per_channel", GC_F_VEC_I32, 0},
    [GC_O_ConcatEmbeddingsOptions_embedding_dim_per_channel] = {"embedding_dim_per_channel", GC_F_VEC_I32, 0},
};
static const gc_opt_field_def f_LSHProjectionOptions[] = {
    [GC_O_LSHProjectionOptions_type] = {"type", GC_F_I8, 0},
};
static const gc_opt_field_def f_Pool2DOptions[] = {
    [GC_O_Pool2DOptions_padding] = {"padding", GC_F_I8, 0},
    [GC_O_Pool2DOptions_stride_w] = {"stride_w", GC_F_I32, 0},
    [GC_O_Pool2DOptions_stride_h] = {"stride_h", GC_F_I32, 0},
    [GC_O_Pool2DOptions_filter_width] = {"filter_width", GC_F_I32, 0},
    [GC_O_Pool2DOptions_filter_height] = {"filter_height", GC_F_I32, 0},
    [GC_O_Pool2DOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
};
static const gc_opt_field_def f_SVDFOptions[] = {
    [GC_O_SVDFOptions_rank] = {"rank", GC_F_I32, 0},
    [GC_O_SVDFOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_SVDFOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_RNNOptions[] = {
    [GC_O_RNNOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_RNNOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_FullyConnectedOptions[] = {
    [GC_O_FullyConnectedOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_FullyConnectedOptions_weights_format] = {"weights_format", GC_F_I8, 0},
    [GC_O_FullyConnectedOptions_keep_num_dims] = {"keep_num_dims", GC_F_BOOL, 0},
    [GC_O_FullyConnectedOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
    [GC_O_FullyConnectedOptions_quantized_bias_type] = {"quantized_bias_type", GC_F_I8, 0},
};
static const gc_opt_field_def f_SoftmaxOptions[] = {
    [GC_O_SoftmaxOptions_beta] = {"beta", GC_F_F32, 0},
};
static const gc_opt_field_def f_ConcatenationOptions[] = {
    [GC_O_ConcatenationOptions_axis] = {"axis", GC_F_I32, 0},
    [GC_O_ConcatenationOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
};
static const gc_opt_field_def f_AddOptions[] = {
    [GC_O_AddOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_AddOptions_pot_scale_int16] = {"pot_scale_int16", GC_F_BOOL, 1},
};
static const gc_opt_field_def f_L2NormOptions[] = {
    [GC_O_L2NormOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
};
static const gc_opt_field_def f_LocalResponseNormalizationOptions[] = {
    [GC_O_LocalResponseNormalizationOptions_radius] = {"radius", GC_F_I32, 0},
    [GC_O_LocalResponseNormalizationOptions_bias] = {"bias", GC_F_F32, 0},
    [GC_O_LocalResponseNormalizationOptions_alpha] = {"alpha", GC_F_F32, 0},
    [GC_O_LocalResponseNormalizationOptions_beta] = {"beta", GC_F_F32, 0},
};
static const gc_opt_field_def f_LSTMOptions[] = {
    [GC_O_LSTMOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_LSTMOptions_cell_clip] = {"cell_clip", GC_F_F32, 0},
    [GC_O_LSTMOptions_proj_clip] = {"proj_clip", GC_F_F32, 0},
    [GC_O_LSTMOptions_kernel_type] = {"kernel_type", GC_F_I8, 0},
    [GC_O_LSTMOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_ResizeBilinearOptions[] = {
    [GC_O_ResizeBilinearOptions_new_height] = {"new_height", GC_F_DEPRECATED, 0},
    [GC_O_ResizeBilinearOptions_new_width] = {"new_width", GC_F_DEPRECATED, 0},
    [GC_O_ResizeBilinearOptions_align_corners] = {"align_corners", GC_F_BOOL, 0},
    [GC_O_ResizeBilinearOptions_half_pixel_centers] = {"half_pixel_centers", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_CallOptions[] = {
    [GC_O_CallOptions_subgraph] = {"subgraph", GC_F_U32, 0},
};
static const gc_opt_field_def f_ReshapeOptions[] = {
    [GC_O_ReshapeOptions_new_shape] = {"new_shape", GC_F_VEC_I32, 0},
};
static const gc_opt_field_def f_SkipGramOptions[] = {
    [GC_O_SkipGramOptions_ngram_size] = {"ngram_size", GC_F_I32, 0},
    [GC_O_SkipGramOptions_max_skip_size] = {"max_skip_size", GC_F_I32, 0},
    [GC_O_SkipGramOptions_include_all_ngrams] = {"include_all_ngrams", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_SpaceToDepthOptions[] = {
    [GC_O_SpaceToDepthOptions_block_size] = {"block_size", GC_F_I32, 0},
};
static const gc_opt_field_def f_EmbeddingLookupSparseOptions[] = {
    [GC_O_EmbeddingLookupSparseOptions_combiner] = {"combiner", GC_F_I8, 0},
};
static const gc_opt_field_def f_MulOptions[] = {
    [GC_O_MulOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
};
static const gc_opt_field_def f_GatherOptions[] = {
    [GC_O_GatherOptions_axis] = {"axis", GC_F_I32, 0},
    [GC_O_GatherOptions_batch_dims] = {"batch_dims", GC_F_I32, 0},
};
static const gc_opt_field_def f_ReducerOptions[] = {
    [GC_O_ReducerOptions_keep_dims] = {"keep_dims", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_SubOptions[] = {
    [GC_O_SubOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_SubOptions_pot_scale_int16] = {"pot_scale_int16", GC_F_BOOL, 1},
};
static const gc_opt_field_def f_DivOptions[] = {
    [GC_O_DivOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
};
static const gc_opt_field_def f_SqueezeOptions[] = {
    [GC_O_SqueezeOptions_squeeze_dims] = {"squeeze_dims", GC_F_VEC_I32, 0},
};
static const gc_opt_field_def f_SequenceRNNOptions[] = {
    [GC_O_SequenceRNNOptions_time_major] = {"time_major", GC_F_BOOL, 0},
    [GC_O_SequenceRNNOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_SequenceRNNOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_StridedSliceOptions[] = {
    [GC_O_StridedSliceOptions_begin_mask] = {"begin_mask", GC_F_I32, 0},
    [GC_O_StridedSliceOptions_end_mask] = {"end_mask", GC_F_I32, 0},
    [GC_O_StridedSliceOptions_ellipsis_mask] = {"ellipsis_mask", GC_F_I32, 0},
    [GC_O_StridedSliceOptions_new_axis_mask] = {"new_axis_mask", GC_F_I32, 0},
    [GC_O_StridedSliceOptions_shrink_axis_mask] = {"shrink_axis_mask", GC_F_I32, 0},
    [GC_O_StridedSliceOptions_offset] = {"offset", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_SplitOptions[] = {
    [GC_O_SplitOptions_num_splits] = {"num_splits", GC_F_I32, 0},
};
static const gc_opt_field_def f_CastOptions[] = {
    [GC_O_CastOptions_in_data_type] = {"in_data_type", GC_F_I8, 0},
    [GC_O_CastOptions_out_data_type] = {"out_data_type", GC_F_I8, 0},
};
static const gc_opt_field_def f_ArgMaxOptions[] = {
    [GC_O_ArgMaxOptions_output_type] = {"output_type", GC_F_I8, 0},
};
static const gc_opt_field_def f_TransposeConvOptions[] = {
    [GC_O_TransposeConvOptions_padding] = {"padding", GC_F_I8, 0},
    [GC_O_TransposeConvOptions_stride_w] = {"stride_w", GC_F_I32, 0},
    [GC_O_TransposeConvOptions_stride_h] = {"stride_h", GC_F_I32, 0},
    [GC_O_TransposeConvOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_TransposeConvOptions_quantized_bias_type] = {"quantized_bias_type", GC_F_I8, 0},
};
static const gc_opt_field_def f_SparseToDenseOptions[] = {
    [GC_O_SparseToDenseOptions_validate_indices] = {"validate_indices", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_ShapeOptions[] = {
    [GC_O_ShapeOptions_out_type] = {"out_type", GC_F_I8, 0},
};
static const gc_opt_field_def f_ArgMinOptions[] = {
    [GC_O_ArgMinOptions_output_type] = {"output_type", GC_F_I8, 0},
};
static const gc_opt_field_def f_FakeQuantOptions[] = {
    [GC_O_FakeQuantOptions_min] = {"min", GC_F_F32, 0},
    [GC_O_FakeQuantOptions_max] = {"max", GC_F_F32, 0},
    [GC_O_FakeQuantOptions_num_bits] = {"num_bits", GC_F_I32, 0},
    [GC_O_FakeQuantOptions_narrow_range] = {"narrow_range", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_PackOptions[] = {
    [GC_O_PackOptions_values_count] = {"values_count", GC_F_I32, 0},
    [GC_O_PackOptions_axis] = {"axis", GC_F_I32, 0},
};
static const gc_opt_field_def f_OneHotOptions[] = {
    [GC_O_OneHotOptions_axis] = {"axis", GC_F_I32, 0},
};
static const gc_opt_field_def f_UnpackOptions[] = {
    [GC_O_UnpackOptions_num] = {"num", GC_F_I32, 0},
    [GC_O_UnpackOptions_axis] = {"axis", GC_F_I32, 0},
};
static const gc_opt_field_def f_BidirectionalSequenceLSTMOptions[] = {
    [GC_O_BidirectionalSequenceLSTMOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_BidirectionalSequenceLSTMOptions_cell_clip] = {"cell_clip", GC_F_F32, 0},
    [GC_O_BidirectionalSequenceLSTMOptions_proj_clip] = {"proj_clip", GC_F_F32, 0},
    [GC_O_BidirectionalSequenceLSTMOptions_merge_outputs] = {"merge_outputs", GC_F_BOOL, 0},
    [GC_O_BidirectionalSequenceLSTMOptions_time_major] = {"time_major", GC_F_BOOL, 1},
    [GC_O_BidirectionalSequenceLSTMOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_BidirectionalSequenceRNNOptions[] = {
    [GC_O_BidirectionalSequenceRNNOptions_time_major] = {"time_major", GC_F_BOOL, 0},
    [GC_O_BidirectionalSequenceRNNOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_BidirectionalSequenceRNNOptions_merge_outputs] = {"merge_outputs", GC_F_BOOL, 0},
    [GC_O_BidirectionalSequenceRNNOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_UnidirectionalSequenceLSTMOptions[] = {
    [GC_O_UnidirectionalSequenceLSTMOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_UnidirectionalSequenceLSTMOptions_cell_clip] = {"cell_clip", GC_F_F32, 0},
    [GC_O_UnidirectionalSequenceLSTMOptions_proj_clip] = {"proj_clip", GC_F_F32, 0},
    [GC_O_UnidirectionalSequenceLSTMOptions_time_major] = {"time_major", GC_F_BOOL, 0},
    [GC_O_UnidirectionalSequenceLSTMOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
    [GC_O_UnidirectionalSequenceLSTMOptions_diagonal_recurrent_tensors] = {"diagonal_recurrent_tensors", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_ResizeNearestNeighborOptions[] = {
    [GC_O_ResizeNearestNeighborOptions_align_corners] = {"align_corners", GC_F_BOOL, 0},
    [GC_O_ResizeNearestNeighborOptions_half_pixel_centers] = {"half_pixel_centers", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_LeakyReluOptions[] = {
    [GC_O_LeakyReluOptions_alpha] = {"alpha", GC_F_F32, 0},
};
static const gc_opt_field_def f_MirrorPadOptions[] = {
    [GC_O_MirrorPadOptions_mode] = {"mode", GC_F_I8, 0},
};
static const gc_opt_field_def f_SplitVOptions[] = {
    [GC_O_SplitVOptions_num_splits] = {"num_splits", GC_F_I32, 0},
};
static const gc_opt_field_def f_UniqueOptions[] = {
    [GC_O_UniqueOptions_idx_out_type] = {"idx_out_type", GC_F_I8, 2},
};
static const gc_opt_field_def f_ReverseSequenceOptions[] = {
    [GC_O_ReverseSequenceOptions_seq_dim] = {"seq_dim", GC_F_I32, 0},
    [GC_O_ReverseSequenceOptions_batch_dim] = {"batch_dim", GC_F_I32, 0},
};
static const gc_opt_field_def f_IfOptions[] = {
    [GC_O_IfOptions_then_subgraph_index] = {"then_subgraph_index", GC_F_I32, 0},
    [GC_O_IfOptions_else_subgraph_index] = {"else_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_WhileOptions[] = {
    [GC_O_WhileOptions_cond_subgraph_index] = {"cond_subgraph_index", GC_F_I32, 0},
    [GC_O_WhileOptions_body_subgraph_index] = {"body_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_DepthToSpaceOptions[] = {
    [GC_O_DepthToSpaceOptions_block_size] = {"block_size", GC_F_I32, 0},
};
static const gc_opt_field_def f_BatchMatMulOptions[] = {
    [GC_O_BatchMatMulOptions_adj_x] = {"adj_x", GC_F_BOOL, 0},
    [GC_O_BatchMatMulOptions_adj_y] = {"adj_y", GC_F_BOOL, 0},
    [GC_O_BatchMatMulOptions_asymmetric_quantize_inputs] = {"asymmetric_quantize_inputs", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_CumsumOptions[] = {
    [GC_O_CumsumOptions_exclusive] = {"exclusive", GC_F_BOOL, 0},
    [GC_O_CumsumOptions_reverse] = {"reverse", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_CallOnceOptions[] = {
    [GC_O_CallOnceOptions_init_subgraph_index] = {"init_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_Conv3DOptions[] = {
    [GC_O_Conv3DOptions_padding] = {"padding", GC_F_I8, 0},
    [GC_O_Conv3DOptions_stride_d] = {"stride_d", GC_F_I32, 0},
    [GC_O_Conv3DOptions_stride_w] = {"stride_w", GC_F_I32, 0},
    [GC_O_Conv3DOptions_stride_h] = {"stride_h", GC_F_I32, 0},
    [GC_O_Conv3DOptions_fused_activation_function] = {"fused_activation_function", GC_F_I8, 0},
    [GC_O_Conv3DOptions_dilation_d_factor] = {"dilation_d_factor", GC_F_I32, 1},
    [GC_O_Conv3DOptions_dilation_w_factor] = {"dilation_w_factor", GC_F_I32, 1},
    [GC_O_Conv3DOptions_dilation_h_factor] = {"dilation_h_factor", GC_F_I32, 1},
};
static const gc_opt_field_def f_HashtableOptions[] = {
    [GC_O_HashtableOptions_table_id] = {"table_id", GC_F_I32, 0},
    [GC_O_HashtableOptions_key_dtype] = {"key_dtype", GC_F_I8, 0},
    [GC_O_HashtableOptions_value_dtype] = {"value_dtype", GC_F_I8, 0},
};
static const gc_opt_field_def f_VarHandleOptions[] = {
    [GC_O_VarHandleOptions_container] = {"container", GC_F_STR, 0},
    [GC_O_VarHandleOptions_shared_name] = {"shared_name", GC_F_STR, 0},
};
static const gc_opt_field_def f_RandomOptions[] = {
    [GC_O_RandomOptions_seed] = {"seed", GC_F_I64, 0},
    [GC_O_RandomOptions_seed2] = {"seed2", GC_F_I64, 0},
};
static const gc_opt_field_def f_BucketizeOptions[] = {
    [GC_O_BucketizeOptions_boundaries] = {"boundaries", GC_F_VEC_F32, 0},
};
static const gc_opt_field_def f_GeluOptions[] = {
    [GC_O_GeluOptions_approximate] = {"approximate", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_StablehloConcatenateOptions[] = {
    [GC_O_StablehloConcatenateOptions_dimension] = {"dimension", GC_F_I64, 0},
};
static const gc_opt_field_def f_StablehloBroadcastInDimOptions[] = {
    [GC_O_StablehloBroadcastInDimOptions_broadcast_dimensions] = {"broadcast_dimensions", GC_F_VEC_I64, 0},
};
static const gc_opt_field_def f_StablehloSliceOptions[] = {
    [GC_O_StablehloSliceOptions_start_indices] = {"start_indices", GC_F_VEC_I64, 0},
    [GC_O_StablehloSliceOptions_limit_indices] = {"limit_indices", GC_F_VEC_I64, 0},
    [GC_O_StablehloSliceOptions_strides] = {"strides", GC_F_VEC_I64, 0},
};
static const gc_opt_field_def f_StablehloConvolutionOptions[] = {
    [GC_O_StablehloConvolutionOptions_window_strides] = {"window_strides", GC_F_VEC_I64, 0},
    [GC_O_StablehloConvolutionOptions_padding] = {"padding", GC_F_VEC_I64, 0},
    [GC_O_StablehloConvolutionOptions_lhs_dilation] = {"lhs_dilation", GC_F_VEC_I64, 0},
    [GC_O_StablehloConvolutionOptions_rhs_dilation] = {"rhs_dilation", GC_F_VEC_I64, 0},
    [GC_O_StablehloConvolutionOptions_window_reversal] = {"window_reversal", GC_F_VEC_BOOL, 0},
    [GC_O_StablehloConvolutionOptions_input_batch_dimension] = {"input_batch_dimension", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_input_feature_dimension] = {"input_feature_dimension", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_input_spatial_dimensions] = {"input_spatial_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloConvolutionOptions_kernel_input_feature_dimension] = {"kernel_input_feature_dimension", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_kernel_output_feature_dimension] = {"kernel_output_feature_dimension", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_kernel_spatial_dimensions] = {"kernel_spatial_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloConvolutionOptions_output_batch_dimension] = {"output_batch_dimension", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_output_feature_dimension] = {"output_feature_dimension", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_output_spatial_dimensions] = {"output_spatial_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloConvolutionOptions_feature_group_count] = {"feature_group_count", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_batch_group_count] = {"batch_group_count", GC_F_I64, 0},
    [GC_O_StablehloConvolutionOptions_precision_config] = {"precision_config", GC_F_VEC_U32, 0},
};
static const gc_opt_field_def f_StablehloCustomCallOptions[] = {
    [GC_O_StablehloCustomCallOptions_call_target_name] = {"call_target_name", GC_F_STR, 0},
    [GC_O_StablehloCustomCallOptions_has_side_effect] = {"has_side_effect", GC_F_BOOL, 0},
    [GC_O_StablehloCustomCallOptions_backend_config] = {"backend_config", GC_F_STR, 0},
    [GC_O_StablehloCustomCallOptions_api_version] = {"api_version", GC_F_I32, 0},
    [GC_O_StablehloCustomCallOptions_called_computations] = {"called_computations", GC_F_VEC_I32, 0},
    [GC_O_StablehloCustomCallOptions_custom_attributes] = {"custom_attributes", GC_F_VEC_U8, 0},
};
static const gc_opt_field_def f_StablehloReduceOptions[] = {
    [GC_O_StablehloReduceOptions_dimensions] = {"dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloReduceOptions_body_subgraph_index] = {"body_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_StablehloScatterOptions[] = {
    [GC_O_StablehloScatterOptions_indices_are_sorted] = {"indices_are_sorted", GC_F_BOOL, 0},
    [GC_O_StablehloScatterOptions_update_window_dims] = {"update_window_dims", GC_F_VEC_I64, 0},
    [GC_O_StablehloScatterOptions_inserted_window_dims] = {"inserted_window_dims", GC_F_VEC_I64, 0},
    [GC_O_StablehloScatterOptions_scatter_dims_to_operand_dims] = {"scatter_dims_to_operand_dims", GC_F_VEC_I64, 0},
    [GC_O_StablehloScatterOptions_index_vector_dim] = {"index_vector_dim", GC_F_I64, 0},
    [GC_O_StablehloScatterOptions_unique_indices] = {"unique_indices", GC_F_BOOL, 0},
    [GC_O_StablehloScatterOptions_update_computation_subgraph_index] = {"update_computation_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_StablehloCompareOptions[] = {
    [GC_O_StablehloCompareOptions_comparison_direction] = {"comparison_direction", GC_F_U32, 0},
    [GC_O_StablehloCompareOptions_compare_type] = {"compare_type", GC_F_U32, 0},
};
static const gc_opt_field_def f_StablehloDynamicSliceOptions[] = {
    [GC_O_StablehloDynamicSliceOptions_slice_sizes] = {"slice_sizes", GC_F_VEC_I64, 0},
};
static const gc_opt_field_def f_StablehloPadOptions[] = {
    [GC_O_StablehloPadOptions_edge_padding_low] = {"edge_padding_low", GC_F_VEC_I64, 0},
    [GC_O_StablehloPadOptions_edge_padding_high] = {"edge_padding_high", GC_F_VEC_I64, 0},
    [GC_O_StablehloPadOptions_interior_padding] = {"interior_padding", GC_F_VEC_I64, 0},
};
static const gc_opt_field_def f_StablehloIotaOptions[] = {
    [GC_O_StablehloIotaOptions_iota_dimension] = {"iota_dimension", GC_F_I64, 0},
};
static const gc_opt_field_def f_StablehloDotGeneralOptions[] = {
    [GC_O_StablehloDotGeneralOptions_lhs_batching_dimensions] = {"lhs_batching_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloDotGeneralOptions_rhs_batching_dimensions] = {"rhs_batching_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloDotGeneralOptions_lhs_contracting_dimensions] = {"lhs_contracting_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloDotGeneralOptions_rhs_contracting_dimensions] = {"rhs_contracting_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloDotGeneralOptions_precision_config] = {"precision_config", GC_F_VEC_U32, 0},
};
static const gc_opt_field_def f_StablehloReduceWindowOptions[] = {
    [GC_O_StablehloReduceWindowOptions_window_dimensions] = {"window_dimensions", GC_F_VEC_I64, 0},
    [GC_O_StablehloReduceWindowOptions_window_strides] = {"window_strides", GC_F_VEC_I64, 0},
    [GC_O_StablehloReduceWindowOptions_base_dilations] = {"base_dilations", GC_F_VEC_I64, 0},
    [GC_O_StablehloReduceWindowOptions_window_dilations] = {"window_dilations", GC_F_VEC_I64, 0},
    [GC_O_StablehloReduceWindowOptions_padding] = {"padding", GC_F_VEC_I64, 0},
    [GC_O_StablehloReduceWindowOptions_body_subgraph_index] = {"body_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_StablehloSortOptions[] = {
    [GC_O_StablehloSortOptions_dimension] = {"dimension", GC_F_I64, 0},
    [GC_O_StablehloSortOptions_is_stable] = {"is_stable", GC_F_BOOL, 0},
    [GC_O_StablehloSortOptions_comparator_subgraph_index] = {"comparator_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_StablehloWhileOptions[] = {
    [GC_O_StablehloWhileOptions_cond_subgraph_index] = {"cond_subgraph_index", GC_F_I32, 0},
    [GC_O_StablehloWhileOptions_body_subgraph_index] = {"body_subgraph_index", GC_F_I32, 0},
};
static const gc_opt_field_def f_StablehloGatherOptions[] = {
    [GC_O_StablehloGatherOptions_offset_dims] = {"offset_dims", GC_F_VEC_I64, 0},
    [GC_O_StablehloGatherOptions_collapsed_slice_dims] = {"collapsed_slice_dims", GC_F_VEC_I64, 0},
    [GC_O_StablehloGatherOptions_start_index_map] = {"start_index_map", GC_F_VEC_I64, 0},
    [GC_O_StablehloGatherOptions_index_vector_dim] = {"index_vector_dim", GC_F_I64, 0},
    [GC_O_StablehloGatherOptions_slice_sizes] = {"slice_sizes", GC_F_VEC_I64, 0},
    [GC_O_StablehloGatherOptions_indices_are_sorted] = {"indices_are_sorted", GC_F_BOOL, 0},
};
static const gc_opt_field_def f_StablehloTransposeOptions[] = {
    [GC_O_StablehloTransposeOptions_permutation] = {"permutation", GC_F_VEC_I64, 0},
};
static const gc_opt_field_def f_StablehloRngBitGeneratorOptions[] = {
    [GC_O_StablehloRngBitGeneratorOptions_algorithm] = {"algorithm", GC_F_I8, 0},
};
static const gc_opt_field_def f_ReduceWindowOptions[] = {
    [GC_O_ReduceWindowOptions_reduce_function] = {"reduce_function", GC_F_I32, 0},
};
static const gc_opt_field_def f_StableHLOCompositeOptions[] = {
    [GC_O_StableHLOCompositeOptions_name] = {"name", GC_F_STR, 0},
    [GC_O_StableHLOCompositeOptions_decomposition_subgraph_index] = {"decomposition_subgraph_index", GC_F_I32, 0},
    [GC_O_StableHLOCompositeOptions_composite_attributes] = {"composite_attributes", GC_F_VEC_U8, 0},
    [GC_O_StableHLOCompositeOptions_composite_attributes_format] = {"composite_attributes_format", GC_F_I8, 0},
    [GC_O_StableHLOCompositeOptions_version] = {"version", GC_F_I32, 0},
};
static const gc_opt_field_def f_StablehloCaseOptions[] = {
    [GC_O_StablehloCaseOptions_branch_subgraph_indices] = {"branch_subgraph_indices", GC_F_VEC_I32, 0},
};

#define NF(a) ((uint8_t)(sizeof(a) / sizeof((a)[0])))
#define T(name) {#name, NF(f_##name), f_##name}
#define T0(name) {#name, 0, NULL}

const gc_opt_table_def gc_opt_tables[GC_BO_COUNT] = {
    [GC_BO_NONE] = {NULL, 0, NULL},
    [GC_BO_Conv2DOptions] = T(Conv2DOptions),
    [GC_BO_DepthwiseConv2DOptions] = T(DepthwiseConv2DOptions),
    [GC_BO_ConcatEmbeddingsOptions] = T(ConcatEmbeddingsOptions),
    [GC_BO_LSHProjectionOptions] = T(LSHProjectionOptions),
    [GC_BO_Pool2DOptions] = T(Pool2DOptions),
    [GC_BO_SVDFOptions] = T(SVDFOptions),
    [GC_BO_RNNOptions] = T(RNNOptions),
    [GC_BO_FullyConnectedOptions] = T(FullyConnectedOptions),
    [GC_BO_SoftmaxOptions] = T(SoftmaxOptions),
    [GC_BO_ConcatenationOptions] = T(ConcatenationOptions),
    [GC_BO_AddOptions] = T(AddOptions),
    [GC_BO_L2NormOptions] = T(L2NormOptions),
    [GC_BO_LocalResponseNormalizationOptions] = T(LocalResponseNormalizationOptions),
    [GC_BO_LSTMOptions] = T(LSTMOptions),
    [GC_BO_ResizeBilinearOptions] = T(ResizeBilinearOptions),
    [GC_BO_CallOptions] = T(CallOptions),
    [GC_BO_ReshapeOptions] = T(ReshapeOptions),
    [GC_BO_SkipGramOptions] = T(SkipGramOptions),
    [GC_BO_SpaceToDepthOptions] = T(SpaceToDepthOptions),
    [GC_BO_EmbeddingLookupSparseOptions] = T(EmbeddingLookupSparseOptions),
    [GC_BO_MulOptions] = T(MulOptions),
    [GC_BO_PadOptions] = T0(PadOptions),
    [GC_BO_GatherOptions] = T(GatherOptions),
    [GC_BO_BatchToSpaceNDOptions] = T0(BatchToSpaceNDOptions),
    [GC_BO_SpaceToBatchNDOptions] = T0(SpaceToBatchNDOptions),
    [GC_BO_TransposeOptions] = T0(TransposeOptions),
    [GC_BO_ReducerOptions] = T(ReducerOptions),
    [GC_BO_SubOptions] = T(SubOptions),
    [GC_BO_DivOptions] = T(DivOptions),
    [GC_BO_SqueezeOptions] = T(SqueezeOptions),
    [GC_BO_SequenceRNNOptions] = T(SequenceRNNOptions),
    [GC_BO_StridedSliceOptions] = T(StridedSliceOptions),
    [GC_BO_ExpOptions] = T0(ExpOptions),
    [GC_BO_TopKV2Options] = T0(TopKV2Options),
    [GC_BO_SplitOptions] = T(SplitOptions),
    [GC_BO_LogSoftmaxOptions] = T0(LogSoftmaxOptions),
    [GC_BO_CastOptions] = T(CastOptions),
    [GC_BO_DequantizeOptions] = T0(DequantizeOptions),
    [GC_BO_MaximumMinimumOptions] = T0(MaximumMinimumOptions),
    [GC_BO_ArgMaxOptions] = T(ArgMaxOptions),
    [GC_BO_LessOptions] = T0(LessOptions),
    [GC_BO_NegOptions] = T0(NegOptions),
    [GC_BO_PadV2Options] = T0(PadV2Options),
    [GC_BO_GreaterOptions] = T0(GreaterOptions),
    [GC_BO_GreaterEqualOptions] = T0(GreaterEqualOptions),
    [GC_BO_LessEqualOptions] = T0(LessEqualOptions),
    [GC_BO_SelectOptions] = T0(SelectOptions),
    [GC_BO_SliceOptions] = T0(SliceOptions),
    [GC_BO_TransposeConvOptions] = T(TransposeConvOptions),
    [GC_BO_SparseToDenseOptions] = T(SparseToDenseOptions),
    [GC_BO_TileOptions] = T0(TileOptions),
    [GC_BO_ExpandDimsOptions] = T0(ExpandDimsOptions),
    [GC_BO_EqualOptions] = T0(EqualOptions),
    [GC_BO_NotEqualOptions] = T0(NotEqualOptions),
    [GC_BO_ShapeOptions] = T(ShapeOptions),
    [GC_BO_PowOptions] = T0(PowOptions),
    [GC_BO_ArgMinOptions] = T(ArgMinOptions),
    [GC_BO_FakeQuantOptions] = T(FakeQuantOptions),
    [GC_BO_PackOptions] = T(PackOptions),
    [GC_BO_LogicalOrOptions] = T0(LogicalOrOptions),
    [GC_BO_OneHotOptions] = T(OneHotOptions),
    [GC_BO_LogicalAndOptions] = T0(LogicalAndOptions),
    [GC_BO_LogicalNotOptions] = T0(LogicalNotOptions),
    [GC_BO_UnpackOptions] = T(UnpackOptions),
    [GC_BO_FloorDivOptions] = T0(FloorDivOptions),
    [GC_BO_SquareOptions] = T0(SquareOptions),
    [GC_BO_ZerosLikeOptions] = T0(ZerosLikeOptions),
    [GC_BO_FillOptions] = T0(FillOptions),
    [GC_BO_BidirectionalSequenceLSTMOptions] = T(BidirectionalSequenceLSTMOptions),
    [GC_BO_BidirectionalSequenceRNNOptions] = T(BidirectionalSequenceRNNOptions),
    [GC_BO_UnidirectionalSequenceLSTMOptions] = T(UnidirectionalSequenceLSTMOptions),
    [GC_BO_FloorModOptions] = T0(FloorModOptions),
    [GC_BO_RangeOptions] = T0(RangeOptions),
    [GC_BO_ResizeNearestNeighborOptions] = T(ResizeNearestNeighborOptions),
    [GC_BO_LeakyReluOptions] = T(LeakyReluOptions),
    [GC_BO_SquaredDifferenceOptions] = T0(SquaredDifferenceOptions),
    [GC_BO_MirrorPadOptions] = T(MirrorPadOptions),
    [GC_BO_AbsOptions] = T0(AbsOptions),
    [GC_BO_SplitVOptions] = T(SplitVOptions),
    [GC_BO_UniqueOptions] = T(UniqueOptions),
    [GC_BO_ReverseV2Options] = T0(ReverseV2Options),
    [GC_BO_AddNOptions] = T0(AddNOptions),
    [GC_BO_GatherNdOptions] = T0(GatherNdOptions),
    [GC_BO_CosOptions] = T0(CosOptions),
    [GC_BO_WhereOptions] = T0(WhereOptions),
    [GC_BO_RankOptions] = T0(RankOptions),
    [GC_BO_ReverseSequenceOptions] = T(ReverseSequenceOptions),
    [GC_BO_MatrixDiagOptions] = T0(MatrixDiagOptions),
    [GC_BO_QuantizeOptions] = T0(QuantizeOptions),
    [GC_BO_MatrixSetDiagOptions] = T0(MatrixSetDiagOptions),
    [GC_BO_HardSwishOptions] = T0(HardSwishOptions),
    [GC_BO_IfOptions] = T(IfOptions),
    [GC_BO_WhileOptions] = T(WhileOptions),
    [GC_BO_DepthToSpaceOptions] = T(DepthToSpaceOptions),
    [GC_BO_NonMaxSuppressionV4Options] = T0(NonMaxSuppressionV4Options),
    [GC_BO_NonMaxSuppressionV5Options] = T0(NonMaxSuppressionV5Options),
    [GC_BO_ScatterNdOptions] = T0(ScatterNdOptions),
    [GC_BO_SelectV2Options] = T0(SelectV2Options),
    [GC_BO_DensifyOptions] = T0(DensifyOptions),
    [GC_BO_SegmentSumOptions] = T0(SegmentSumOptions),
    [GC_BO_BatchMatMulOptions] = T(BatchMatMulOptions),
    [GC_BO_CumsumOptions] = T(CumsumOptions),
    [GC_BO_CallOnceOptions] = T(CallOnceOptions),
    [GC_BO_BroadcastToOptions] = T0(BroadcastToOptions),
    [GC_BO_Rfft2dOptions] = T0(Rfft2dOptions),
    [GC_BO_Conv3DOptions] = T(Conv3DOptions),
    [GC_BO_HashtableOptions] = T(HashtableOptions),
    [GC_BO_HashtableFindOptions] = T0(HashtableFindOptions),
    [GC_BO_HashtableImportOptions] = T0(HashtableImportOptions),
    [GC_BO_HashtableSizeOptions] = T0(HashtableSizeOptions),
    [GC_BO_VarHandleOptions] = T(VarHandleOptions),
    [GC_BO_ReadVariableOptions] = T0(ReadVariableOptions),
    [GC_BO_AssignVariableOptions] = T0(AssignVariableOptions),
    [GC_BO_RandomOptions] = T(RandomOptions),
    [GC_BO_BucketizeOptions] = T(BucketizeOptions),
    [GC_BO_GeluOptions] = T(GeluOptions),
    [GC_BO_DynamicUpdateSliceOptions] = T0(DynamicUpdateSliceOptions),
    [GC_BO_UnsortedSegmentProdOptions] = T0(UnsortedSegmentProdOptions),
    [GC_BO_UnsortedSegmentMaxOptions] = T0(UnsortedSegmentMaxOptions),
    [GC_BO_UnsortedSegmentMinOptions] = T0(UnsortedSegmentMinOptions),
    [GC_BO_UnsortedSegmentSumOptions] = T0(UnsortedSegmentSumOptions),
    [GC_BO_ATan2Options] = T0(ATan2Options),
    [GC_BO_SignOptions] = T0(SignOptions),
    [GC_BO_BitcastOptions] = T0(BitcastOptions),
    [GC_BO_BitwiseXorOptions] = T0(BitwiseXorOptions),
    [GC_BO_RightShiftOptions] = T0(RightShiftOptions),
};
const int gc_opt_tables_count = GC_BO_COUNT;

const gc_opt_table_def gc_opt2_tables[GC_BO2_COUNT] = {
    [GC_BO2_NONE] = {NULL, 0, NULL},
    [GC_BO2_StablehloConcatenateOptions] = T(StablehloConcatenateOptions),
    [GC_BO2_StablehloBroadcastInDimOptions] = T(StablehloBroadcastInDimOptions),
    [GC_BO2_StablehloSliceOptions] = T(StablehloSliceOptions),
    [GC_BO2_StablehloConvolutionOptions] = T(StablehloConvolutionOptions),
    [GC_BO2_StablehloCustomCallOptions] = T(StablehloCustomCallOptions),
    [GC_BO2_StablehloReduceOptions] = T(StablehloReduceOptions),
    [GC_BO2_StablehloScatterOptions] = T(StablehloScatterOptions),
    [GC_BO2_StablehloCompareOptions] = T(StablehloCompareOptions),
    [GC_BO2_StablehloDynamicSliceOptions] = T(StablehloDynamicSliceOptions),
    [GC_BO2_StablehloPadOptions] = T(StablehloPadOptions),
    [GC_BO2_StablehloIotaOptions] = T(StablehloIotaOptions),
    [GC_BO2_StablehloDotGeneralOptions] = T(StablehloDotGeneralOptions),
    [GC_BO2_StablehloReduceWindowOptions] = T(StablehloReduceWindowOptions),
    [GC_BO2_StablehloSortOptions] = T(StablehloSortOptions),
    [GC_BO2_StablehloWhileOptions] = T(StablehloWhileOptions),
    [GC_BO2_StablehloGatherOptions] = T(StablehloGatherOptions),
    [GC_BO2_StablehloTransposeOptions] = T(StablehloTransposeOptions),
    [GC_BO2_DilateOptions] = T0(DilateOptions),
    [GC_BO2_StablehloRngBitGeneratorOptions] = T(StablehloRngBitGeneratorOptions),
    [GC_BO2_ReduceWindowOptions] = T(ReduceWindowOptions),
    [GC_BO2_StableHLOCompositeOptions] = T(StableHLOCompositeOptions),
    [GC_BO2_StablehloShiftLeftOptions] = T0(StablehloShiftLeftOptions),
    [GC_BO2_StablehloCaseOptions] = T(StablehloCaseOptions),
};
const int gc_opt2_tables_count = GC_BO2_COUNT;

/* the widest table (StablehloConvolutionOptions, 17 fields) must fit */
_Static_assert(NF(f_StablehloConvolutionOptions) <= GC_OPT_MAX_FIELDS,
               "options table wider than GC_OPT_MAX_FIELDS");

#undef T0
#undef T
#undef NF
