/* schema_gen.h — TFLite schema numbers as C enums: BuiltinOperator codes (GC_OP_*),
 * BuiltinOptions / BuiltinOptions2 union indices (GC_BO_*, GC_BO2_*) and the field
 * ids of every options table (GC_O_<Table>_<field>). Included by schema.h.
 * Read from google-ai-edge/LiteRT
 * tflite/converter/schema/schema.fbs @ 098fb976230858e7d5fbd2b0318e3aeafe2c9e10.
 * Field id = declaration position (deprecated fields keep their id). No options
 * table in this revision uses (id: N) attributes or union-typed fields. */
#ifndef GC_SCHEMA_GEN_H
#define GC_SCHEMA_GEN_H

#include <stdint.h>

/* BuiltinOperator (enum : int32). Values are dense, 0..209. */
enum {
    GC_OP_ADD = 0,
    GC_OP_AVERAGE_POOL_2D = 1,
    GC_OP_CONCATENATION = 2,
    GC_OP_CONV_2D = 3,
    GC_OP_DEPTHWISE_CONV_2D = 4,
    GC_OP_DEPTH_TO_SPACE = 5,
    GC_OP_DEQUANTIZE = 6,
    GC_OP_EMBEDDING_LOOKUP = 7,
    GC_OP_FLOOR = 8,
    GC_OP_FULLY_CONNECTED = 9,
    GC_OP_HASHTABLE_LOOKUP = 10,
    GC_OP_L2_NORMALIZATION = 11,
    GC_OP_L2_POOL_2D = 12,
    GC_OP_LOCAL_RESPONSE_NORMALIZATION = 13,
    GC_OP_LOGISTIC = 14,
    GC_OP_LSH_PROJECTION = 15,
    GC_OP_LSTM = 16,
    GC_OP_MAX_POOL_2D = 17,
    GC_OP_MUL = 18,
    GC_OP_RELU = 19,
    GC_OP_RELU_N1_TO_1 = 20,
    GC_OP_RELU6 = 21,
    GC_OP_RESHAPE = 22,
    GC_OP_RESIZE_BILINEAR = 23,
    GC_OP_RNN = 24,
    GC_OP_SOFTMAX = 25,
    GC_OP_SPACE_TO_DEPTH = 26,
    GC_OP_SVDF = 27,
    GC_OP_TANH = 28,
    GC_OP_CONCAT_EMBEDDINGS = 29,
    GC_OP_SKIP_GRAM = 30,
    GC_OP_CALL = 31,
    GC_OP_CUSTOM = 32,
    GC_OP_EMBEDDING_LOOKUP_SPARSE = 33,
    GC_OP_PAD = 34,
    GC_OP_UNIDIRECTIONAL_SEQUENCE_RNN = 35,
    GC_OP_GATHER = 36,
    GC_OP_BATCH_TO_SPACE_ND = 37,
    GC_OP_SPACE_TO_BATCH_ND = 38,
    GC_OP_TRANSPOSE = 39,
    GC_OP_MEAN = 40,
    GC_OP_SUB = 41,
    GC_OP_DIV = 42,
    GC_OP_SQUEEZE = 43,
    GC_OP_UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
    GC_OP_STRIDED_SLICE = 45,
    GC_OP_BIDIRECTIONAL_SEQUENCE_RNN = 46,
    GC_OP_EXP = 47,
    GC_OP_TOPK_V2 = 48,
    GC_OP_SPLIT = 49,
    GC_OP_LOG_SOFTMAX = 50,
    GC_OP_DELEGATE = 51,
    GC_OP_BIDIRECTIONAL_SEQUENCE_LSTM = 52,
    GC_OP_CAST = 53,
    GC_OP_PRELU = 54,
    GC_OP_MAXIMUM = 55,
    GC_OP_ARG_MAX = 56,
    GC_OP_MINIMUM = 57,
    GC_OP_LESS = 58,
    GC_OP_NEG = 59,
    GC_OP_PADV2 = 60,
    GC_OP_GREATER = 61,
    GC_OP_GREATER_EQUAL = 62,
    GC_OP_LESS_EQUAL = 63,
    GC_OP_SELECT = 64,
    GC_OP_SLICE = 65,
    GC_OP_SIN = 66,
    GC_OP_TRANSPOSE_CONV = 67,
    GC_OP_SPARSE_TO_DENSE = 68,
    GC_OP_TILE = 69,
    GC_OP_EXPAND_DIMS = 70,
    GC_OP_EQUAL = 71,
    GC_OP_NOT_EQUAL = 72,
    GC_OP_LOG = 73,
    GC_OP_SUM = 74,
    GC_OP_SQRT = 75,
    GC_OP_RSQRT = 76,
    GC_OP_SHAPE = 77,
    GC_OP_POW = 78,
    GC_OP_ARG_MIN = 79,
    GC_OP_FAKE_QUANT = 80,
    GC_OP_REDUCE_PROD = 81,
    GC_OP_REDUCE_MAX = 82,
    GC_OP_PACK = 83,
    GC_OP_LOGICAL_OR = 84,
    GC_OP_ONE_HOT = 85,
    GC_OP_LOGICAL_AND = 86,
    GC_OP_LOGICAL_NOT = 87,
    GC_OP_UNPACK = 88,
    GC_OP_REDUCE_MIN = 89,
    GC_OP_FLOOR_DIV = 90,
    GC_OP_REDUCE_ANY = 91,
    GC_OP_SQUARE = 92,
    GC_OP_ZEROS_LIKE = 93,
    GC_OP_FILL = 94,
    GC_OP_FLOOR_MOD = 95,
    GC_OP_RANGE = 96,
    GC_OP_RESIZE_NEAREST_NEIGHBOR = 97,
    GC_OP_LEAKY_RELU = 98,
    GC_OP_SQUARED_DIFFERENCE = 99,
    GC_OP_MIRROR_PAD = 100,
    GC_OP_ABS = 101,
    GC_OP_SPLIT_V = 102,
    GC_OP_UNIQUE = 103,
    GC_OP_CEIL = 104,
    GC_OP_REVERSE_V2 = 105,
    GC_OP_ADD_N = 106,
    GC_OP_GATHER_ND = 107,
    GC_OP_COS = 108,
    GC_OP_WHERE = 109,
    GC_OP_RANK = 110,
    GC_OP_ELU = 111,
    GC_OP_REVERSE_SEQUENCE = 112,
    GC_OP_MATRIX_DIAG = 113,
    GC_OP_QUANTIZE = 114,
    GC_OP_MATRIX_SET_DIAG = 115,
    GC_OP_ROUND = 116,
    GC_OP_HARD_SWISH = 117,
    GC_OP_IF = 118,
    GC_OP_WHILE = 119,
    GC_OP_NON_MAX_SUPPRESSION_V4 = 120,
    GC_OP_NON_MAX_SUPPRESSION_V5 = 121,
    GC_OP_SCATTER_ND = 122,
    GC_OP_SELECT_V2 = 123,
    GC_OP_DENSIFY = 124,
    GC_OP_SEGMENT_SUM = 125,
    GC_OP_BATCH_MATMUL = 126,
    GC_OP_PLACEHOLDER_FOR_GREATER_OP_CODES = 127,
    GC_OP_CUMSUM = 128,
    GC_OP_CALL_ONCE = 129,
    GC_OP_BROADCAST_TO = 130,
    GC_OP_RFFT2D = 131,
    GC_OP_CONV_3D = 132,
    GC_OP_IMAG = 133,
    GC_OP_REAL = 134,
    GC_OP_COMPLEX_ABS = 135,
    GC_OP_HASHTABLE = 136,
    GC_OP_HASHTABLE_FIND = 137,
    GC_OP_HASHTABLE_IMPORT = 138,
    GC_OP_HASHTABLE_SIZE = 139,
    GC_OP_REDUCE_ALL = 140,
    GC_OP_CONV_3D_TRANSPOSE = 141,
    GC_OP_VAR_HANDLE = 142,
    GC_OP_READ_VARIABLE = 143,
    GC_OP_ASSIGN_VARIABLE = 144,
    GC_OP_BROADCAST_ARGS = 145,
    GC_OP_RANDOM_STANDARD_NORMAL = 146,
    GC_OP_BUCKETIZE = 147,
    GC_OP_RANDOM_UNIFORM = 148,
    GC_OP_MULTINOMIAL = 149,
    GC_OP_GELU = 150,
    GC_OP_DYNAMIC_UPDATE_SLICE = 151,
    GC_OP_RELU_0_TO_1 = 152,
    GC_OP_UNSORTED_SEGMENT_PROD = 153,
    GC_OP_UNSORTED_SEGMENT_MAX = 154,
    GC_OP_UNSORTED_SEGMENT_SUM = 155,
    GC_OP_ATAN2 = 156,
    GC_OP_UNSORTED_SEGMENT_MIN = 157,
    GC_OP_SIGN = 158,
    GC_OP_BITCAST = 159,
    GC_OP_BITWISE_XOR = 160,
    GC_OP_RIGHT_SHIFT = 161,
    GC_OP_STABLEHLO_LOGISTIC = 162,
    GC_OP_STABLEHLO_ADD = 163,
    GC_OP_STABLEHLO_DIVIDE = 164,
    GC_OP_STABLEHLO_MULTIPLY = 165,
    GC_OP_STABLEHLO_MAXIMUM = 166,
    GC_OP_STABLEHLO_RESHAPE = 167,
    GC_OP_STABLEHLO_CLAMP = 168,
    GC_OP_STABLEHLO_CONCATENATE = 169,
    GC_OP_STABLEHLO_BROADCAST_IN_DIM = 170,
    GC_OP_STABLEHLO_CONVOLUTION = 171,
    GC_OP_STABLEHLO_SLICE = 172,
    GC_OP_STABLEHLO_CUSTOM_CALL = 173,
    GC_OP_STABLEHLO_REDUCE = 174,
    GC_OP_STABLEHLO_ABS = 175,
    GC_OP_STABLEHLO_AND = 176,
    GC_OP_STABLEHLO_COSINE = 177,
    GC_OP_STABLEHLO_EXPONENTIAL = 178,
    GC_OP_STABLEHLO_FLOOR = 179,
    GC_OP_STABLEHLO_LOG = 180,
    GC_OP_STABLEHLO_MINIMUM = 181,
    GC_OP_STABLEHLO_NEGATE = 182,
    GC_OP_STABLEHLO_OR = 183,
    GC_OP_STABLEHLO_POWER = 184,
    GC_OP_STABLEHLO_REMAINDER = 185,
    GC_OP_STABLEHLO_RSQRT = 186,
    GC_OP_STABLEHLO_SELECT = 187,
    GC_OP_STABLEHLO_SUBTRACT = 188,
    GC_OP_STABLEHLO_TANH = 189,
    GC_OP_STABLEHLO_SCATTER = 190,
    GC_OP_STABLEHLO_COMPARE = 191,
    GC_OP_STABLEHLO_CONVERT = 192,
    GC_OP_STABLEHLO_DYNAMIC_SLICE = 193,
    GC_OP_STABLEHLO_DYNAMIC_UPDATE_SLICE = 194,
    GC_OP_STABLEHLO_PAD = 195,
    GC_OP_STABLEHLO_IOTA = 196,
    GC_OP_STABLEHLO_DOT_GENERAL = 197,
    GC_OP_STABLEHLO_REDUCE_WINDOW = 198,
    GC_OP_STABLEHLO_SORT = 199,
    GC_OP_STABLEHLO_WHILE = 200,
    GC_OP_STABLEHLO_GATHER = 201,
    GC_OP_STABLEHLO_TRANSPOSE = 202,
    GC_OP_DILATE = 203,
    GC_OP_STABLEHLO_RNG_BIT_GENERATOR = 204,
    GC_OP_REDUCE_WINDOW = 205,
    GC_OP_STABLEHLO_COMPOSITE = 206,
    GC_OP_STABLEHLO_SHIFT_LEFT = 207,
    GC_OP_STABLEHLO_CBRT = 208,
    GC_OP_STABLEHLO_CASE = 209,
    GC_OP_COUNT = 210
};

/* union BuiltinOptions: index = union type byte (NONE = 0). */
enum {
    GC_BO_NONE = 0,
    GC_BO_Conv2DOptions = 1,
    GC_BO_DepthwiseConv2DOptions = 2,
    GC_BO_ConcatEmbeddingsOptions = 3,
    GC_BO_LSHProjectionOptions = 4,
    GC_BO_Pool2DOptions = 5,
    GC_BO_SVDFOptions = 6,
    GC_BO_RNNOptions = 7,
    GC_BO_FullyConnectedOptions = 8,
    GC_BO_SoftmaxOptions = 9,
    GC_BO_ConcatenationOptions = 10,
    GC_BO_AddOptions = 11,
    GC_BO_L2NormOptions = 12,
    GC_BO_LocalResponseNormalizationOptions = 13,
    GC_BO_LSTMOptions = 14,
    GC_BO_ResizeBilinearOptions = 15,
    GC_BO_CallOptions = 16,
    GC_BO_ReshapeOptions = 17,
    GC_BO_SkipGramOptions = 18,
    GC_BO_SpaceToDepthOptions = 19,
    GC_BO_EmbeddingLookupSparseOptions = 20,
    GC_BO_MulOptions = 21,
    GC_BO_PadOptions = 22,
    GC_BO_GatherOptions = 23,
    GC_BO_BatchToSpaceNDOptions = 24,
    GC_BO_SpaceToBatchNDOptions = 25,
    GC_BO_TransposeOptions = 26,
    GC_BO_ReducerOptions = 27,
    GC_BO_SubOptions = 28,
    GC_BO_DivOptions = 29,
    GC_BO_SqueezeOptions = 30,
    GC_BO_SequenceRNNOptions = 31,
    GC_BO_StridedSliceOptions = 32,
    GC_BO_ExpOptions = 33,
    GC_BO_TopKV2Options = 34,
    GC_BO_SplitOptions = 35,
    GC_BO_LogSoftmaxOptions = 36,
    GC_BO_CastOptions = 37,
    GC_BO_DequantizeOptions = 38,
    GC_BO_MaximumMinimumOptions = 39,
    GC_BO_ArgMaxOptions = 40,
    GC_BO_LessOptions = 41,
    GC_BO_NegOptions = 42,
    GC_BO_PadV2Options = 43,
    GC_BO_GreaterOptions = 44,
    GC_BO_GreaterEqualOptions = 45,
    GC_BO_LessEqualOptions = 46,
    GC_BO_SelectOptions = 47,
    GC_BO_SliceOptions = 48,
    GC_BO_TransposeConvOptions = 49,
    GC_BO_SparseToDenseOptions = 50,
    GC_BO_TileOptions = 51,
    GC_BO_ExpandDimsOptions = 52,
    GC_BO_EqualOptions = 53,
    GC_BO_NotEqualOptions = 54,
    GC_BO_ShapeOptions = 55,
    GC_BO_PowOptions = 56,
    GC_BO_ArgMinOptions = 57,
    GC_BO_FakeQuantOptions = 58,
    GC_BO_PackOptions = 59,
    GC_BO_LogicalOrOptions = 60,
    GC_BO_OneHotOptions = 61,
    GC_BO_LogicalAndOptions = 62,
    GC_BO_LogicalNotOptions = 63,
    GC_BO_UnpackOptions = 64,
    GC_BO_FloorDivOptions = 65,
    GC_BO_SquareOptions = 66,
    GC_BO_ZerosLikeOptions = 67,
    GC_BO_FillOptions = 68,
    GC_BO_BidirectionalSequenceLSTMOptions = 69,
    GC_BO_BidirectionalSequenceRNNOptions = 70,
    GC_BO_UnidirectionalSequenceLSTMOptions = 71,
    GC_BO_FloorModOptions = 72,
    GC_BO_RangeOptions = 73,
    GC_BO_ResizeNearestNeighborOptions = 74,
    GC_BO_LeakyReluOptions = 75,
    GC_BO_SquaredDifferenceOptions = 76,
    GC_BO_MirrorPadOptions = 77,
    GC_BO_AbsOptions = 78,
    GC_BO_SplitVOptions = 79,
    GC_BO_UniqueOptions = 80,
    GC_BO_ReverseV2Options = 81,
    GC_BO_AddNOptions = 82,
    GC_BO_GatherNdOptions = 83,
    GC_BO_CosOptions = 84,
    GC_BO_WhereOptions = 85,
    GC_BO_RankOptions = 86,
    GC_BO_ReverseSequenceOptions = 87,
    GC_BO_MatrixDiagOptions = 88,
    GC_BO_QuantizeOptions = 89,
    GC_BO_MatrixSetDiagOptions = 90,
    GC_BO_HardSwishOptions = 91,
    GC_BO_IfOptions = 92,
    GC_BO_WhileOptions = 93,
    GC_BO_DepthToSpaceOptions = 94,
    GC_BO_NonMaxSuppressionV4Options = 95,
    GC_BO_NonMaxSuppressionV5Options = 96,
    GC_BO_ScatterNdOptions = 97,
    GC_BO_SelectV2Options = 98,
    GC_BO_DensifyOptions = 99,
    GC_BO_SegmentSumOptions = 100,
    GC_BO_BatchMatMulOptions = 101,
    GC_BO_CumsumOptions = 102,
    GC_BO_CallOnceOptions = 103,
    GC_BO_BroadcastToOptions = 104,
    GC_BO_Rfft2dOptions = 105,
    GC_BO_Conv3DOptions = 106,
    GC_BO_HashtableOptions = 107,
    GC_BO_HashtableFindOptions = 108,
    GC_BO_HashtableImportOptions = 109,
    GC_BO_HashtableSizeOptions = 110,
    GC_BO_VarHandleOptions = 111,
    GC_BO_ReadVariableOptions = 112,
    GC_BO_AssignVariableOptions = 113,
    GC_BO_RandomOptions = 114,
    GC_BO_BucketizeOptions = 115,
    GC_BO_GeluOptions = 116,
    GC_BO_DynamicUpdateSliceOptions = 117,
    GC_BO_UnsortedSegmentProdOptions = 118,
    GC_BO_UnsortedSegmentMaxOptions = 119,
    GC_BO_UnsortedSegmentMinOptions = 120,
    GC_BO_UnsortedSegmentSumOptions = 121,
    GC_BO_ATan2Options = 122,
    GC_BO_SignOptions = 123,
    GC_BO_BitcastOptions = 124,
    GC_BO_BitwiseXorOptions = 125,
    GC_BO_RightShiftOptions = 126,
    GC_BO_COUNT = 127
};

/* union BuiltinOptions2 (Operator.builtin_options_2): index = union type byte. */
enum {
    GC_BO2_NONE = 0,
    GC_BO2_StablehloConcatenateOptions = 1,
    GC_BO2_StablehloBroadcastInDimOptions = 2,
    GC_BO2_StablehloSliceOptions = 3,
    GC_BO2_StablehloConvolutionOptions = 4,
    GC_BO2_StablehloCustomCallOptions = 5,
    GC_BO2_StablehloReduceOptions = 6,
    GC_BO2_StablehloScatterOptions = 7,
    GC_BO2_StablehloCompareOptions = 8,
    GC_BO2_StablehloDynamicSliceOptions = 9,
    GC_BO2_StablehloPadOptions = 10,
    GC_BO2_StablehloIotaOptions = 11,
    GC_BO2_StablehloDotGeneralOptions = 12,
    GC_BO2_StablehloReduceWindowOptions = 13,
    GC_BO2_StablehloSortOptions = 14,
    GC_BO2_StablehloWhileOptions = 15,
    GC_BO2_StablehloGatherOptions = 16,
    GC_BO2_StablehloTransposeOptions = 17,
    GC_BO2_DilateOptions = 18,
    GC_BO2_StablehloRngBitGeneratorOptions = 19,
    GC_BO2_ReduceWindowOptions = 20,  /* deprecated in the schema */
    GC_BO2_StableHLOCompositeOptions = 21,
    GC_BO2_StablehloShiftLeftOptions = 22,
    GC_BO2_StablehloCaseOptions = 23,
    GC_BO2_COUNT = 24
};

/* BuiltinOptions2 member an op normally carries (0 = none). Ops whose options live
 * in BuiltinOptions2 (STABLEHLO_*, DILATE, REDUCE_WINDOW) report 0 from
 * gc_builtin_options_type() and their member here. */
int gc_builtin_options2_type(int32_t code);

/* Field ids of the options tables (tables without fields have no enum). */
enum {
    GC_O_Conv2DOptions_padding = 0,
    GC_O_Conv2DOptions_stride_w = 1,
    GC_O_Conv2DOptions_stride_h = 2,
    GC_O_Conv2DOptions_fused_activation_function = 3,
    GC_O_Conv2DOptions_dilation_w_factor = 4,
    GC_O_Conv2DOptions_dilation_h_factor = 5,
    GC_O_Conv2DOptions_quantized_bias_type = 6
};
enum {
    GC_O_DepthwiseConv2DOptions_padding = 0,
    GC_O_DepthwiseConv2DOptions_stride_w = 1,
    GC_O_DepthwiseConv2DOptions_stride_h = 2,
    GC_O_DepthwiseConv2DOptions_depth_multiplier = 3,
    GC_O_DepthwiseConv2DOptions_fused_activation_function = 4,
    GC_O_DepthwiseConv2DOptions_dilation_w_factor = 5,
    GC_O_DepthwiseConv2DOptions_dilation_h_factor = 6
};
enum {
    GC_O_ConcatEmbeddingsOptions_num_channels = 0,
    GC_O_ConcatEmbeddingsOptions_num_columns_per_channel = 1,
    GC_O_ConcatEmbeddingsOptions_embedding_dim_per_channel = 2
};
enum {
    GC_O_LSHProjectionOptions_type = 0
};
enum {
    GC_O_Pool2DOptions_padding = 0,
    GC_O_Pool2DOptions_stride_w = 1,
    GC_O_Pool2DOptions_stride_h = 2,
    GC_O_Pool2DOptions_filter_width = 3,
    GC_O_Pool2DOptions_filter_height = 4,
    GC_O_Pool2DOptions_fused_activation_function = 5
};
enum {
    GC_O_SVDFOptions_rank = 0,
    GC_O_SVDFOptions_fused_activation_function = 1,
    GC_O_SVDFOptions_asymmetric_quantize_inputs = 2
};
enum {
    GC_O_RNNOptions_fused_activation_function = 0,
    GC_O_RNNOptions_asymmetric_quantize_inputs = 1
};
enum {
    GC_O_FullyConnectedOptions_fused_activation_function = 0,
    GC_O_FullyConnectedOptions_weights_format = 1,
    GC_O_FullyConnectedOptions_keep_num_dims = 2,
    GC_O_FullyConnectedOptions_asymmetric_quantize_inputs = 3,
    GC_O_FullyConnectedOptions_quantized_bias_type = 4
};
enum {
    GC_O_SoftmaxOptions_beta = 0
};
enum {
    GC_O_ConcatenationOptions_axis = 0,
    GC_O_ConcatenationOptions_fused_activation_function = 1
};
enum {
    GC_O_AddOptions_fused_activation_function = 0,
    GC_O_AddOptions_pot_scale_int16 = 1
};
enum {
    GC_O_L2NormOptions_fused_activation_function = 0
};
enum {
    GC_O_LocalResponseNormalizationOptions_radius = 0,
    GC_O_LocalResponseNormalizationOptions_bias = 1,
    GC_O_LocalResponseNormalizationOptions_alpha = 2,
    GC_O_LocalResponseNormalizationOptions_beta = 3
};
enum {
    GC_O_LSTMOptions_fused_activation_function = 0,
    GC_O_LSTMOptions_cell_clip = 1,
    GC_O_LSTMOptions_proj_clip = 2,
    GC_O_LSTMOptions_kernel_type = 3,
    GC_O_LSTMOptions_asymmetric_quantize_inputs = 4
};
enum {
    GC_O_ResizeBilinearOptions_new_height = 0,  /* deprecated */
    GC_O_ResizeBilinearOptions_new_width = 1,  /* deprecated */
    GC_O_ResizeBilinearOptions_align_corners = 2,
    GC_O_ResizeBilinearOptions_half_pixel_centers = 3
};
enum {
    GC_O_CallOptions_subgraph = 0
};
enum {
    GC_O_ReshapeOptions_new_shape = 0
};
enum {
    GC_O_SkipGramOptions_ngram_size = 0,
    GC_O_SkipGramOptions_max_skip_size = 1,
    GC_O_SkipGramOptions_include_all_ngrams = 2
};
enum {
    GC_O_SpaceToDepthOptions_block_size = 0
};
enum {
    GC_O_EmbeddingLookupSparseOptions_combiner = 0
};
enum {
    GC_O_MulOptions_fused_activation_function = 0
};
/* PadOptions: no fields */
enum {
    GC_O_GatherOptions_axis = 0,
    GC_O_GatherOptions_batch_dims = 1
};
/* BatchToSpaceNDOptions: no fields */
/* SpaceToBatchNDOptions: no fields */
/* TransposeOptions: no fields */
enum {
    GC_O_ReducerOptions_keep_dims = 0
};
enum {
    GC_O_SubOptions_fused_activation_function = 0,
    GC_O_SubOptions_pot_scale_int16 = 1
};
enum {
    GC_O_DivOptions_fused_activation_function = 0
};
enum {
    GC_O_SqueezeOptions_squeeze_dims = 0
};
enum {
    GC_O_SequenceRNNOptions_time_major = 0,
    GC_O_SequenceRNNOptions_fused_activation_function = 1,
    GC_O_SequenceRNNOptions_asymmetric_quantize_inputs = 2
};
enum {
    GC_O_StridedSliceOptions_begin_mask = 0,
    GC_O_StridedSliceOptions_end_mask = 1,
    GC_O_StridedSliceOptions_ellipsis_mask = 2,
    GC_O_StridedSliceOptions_new_axis_mask = 3,
    GC_O_StridedSliceOptions_shrink_axis_mask = 4,
    GC_O_StridedSliceOptions_offset = 5
};
/* ExpOptions: no fields */
/* TopKV2Options: no fields */
enum {
    GC_O_SplitOptions_num_splits = 0
};
/* LogSoftmaxOptions: no fields */
enum {
    GC_O_CastOptions_in_data_type = 0,
    GC_O_CastOptions_out_data_type = 1
};
/* DequantizeOptions: no fields */
/* MaximumMinimumOptions: no fields */
enum {
    GC_O_ArgMaxOptions_output_type = 0
};
/* LessOptions: no fields */
/* NegOptions: no fields */
/* PadV2Options: no fields */
/* GreaterOptions: no fields */
/* GreaterEqualOptions: no fields */
/* LessEqualOptions: no fields */
/* SelectOptions: no fields */
/* SliceOptions: no fields */
enum {
    GC_O_TransposeConvOptions_padding = 0,
    GC_O_TransposeConvOptions_stride_w = 1,
    GC_O_TransposeConvOptions_stride_h = 2,
    GC_O_TransposeConvOptions_fused_activation_function = 3,
    GC_O_TransposeConvOptions_quantized_bias_type = 4
};
enum {
    GC_O_SparseToDenseOptions_validate_indices = 0
};
/* TileOptions: no fields */
/* ExpandDimsOptions: no fields */
/* EqualOptions: no fields */
/* NotEqualOptions: no fields */
enum {
    GC_O_ShapeOptions_out_type = 0
};
/* PowOptions: no fields */
enum {
    GC_O_ArgMinOptions_output_type = 0
};
enum {
    GC_O_FakeQuantOptions_min = 0,
    GC_O_FakeQuantOptions_max = 1,
    GC_O_FakeQuantOptions_num_bits = 2,
    GC_O_FakeQuantOptions_narrow_range = 3
};
enum {
    GC_O_PackOptions_values_count = 0,
    GC_O_PackOptions_axis = 1
};
/* LogicalOrOptions: no fields */
enum {
    GC_O_OneHotOptions_axis = 0
};
/* LogicalAndOptions: no fields */
/* LogicalNotOptions: no fields */
enum {
    GC_O_UnpackOptions_num = 0,
    GC_O_UnpackOptions_axis = 1
};
/* FloorDivOptions: no fields */
/* SquareOptions: no fields */
/* ZerosLikeOptions: no fields */
/* FillOptions: no fields */
enum {
    GC_O_BidirectionalSequenceLSTMOptions_fused_activation_function = 0,
    GC_O_BidirectionalSequenceLSTMOptions_cell_clip = 1,
    GC_O_BidirectionalSequenceLSTMOptions_proj_clip = 2,
    GC_O_BidirectionalSequenceLSTMOptions_merge_outputs = 3,
    GC_O_BidirectionalSequenceLSTMOptions_time_major = 4,
    GC_O_BidirectionalSequenceLSTMOptions_asymmetric_quantize_inputs = 5
};
enum {
    GC_O_BidirectionalSequenceRNNOptions_time_major = 0,
    GC_O_BidirectionalSequenceRNNOptions_fused_activation_function = 1,
    GC_O_BidirectionalSequenceRNNOptions_merge_outputs = 2,
    GC_O_BidirectionalSequenceRNNOptions_asymmetric_quantize_inputs = 3
};
enum {
    GC_O_UnidirectionalSequenceLSTMOptions_fused_activation_function = 0,
    GC_O_UnidirectionalSequenceLSTMOptions_cell_clip = 1,
    GC_O_UnidirectionalSequenceLSTMOptions_proj_clip = 2,
    GC_O_UnidirectionalSequenceLSTMOptions_time_major = 3,
    GC_O_UnidirectionalSequenceLSTMOptions_asymmetric_quantize_inputs = 4,
    GC_O_UnidirectionalSequenceLSTMOptions_diagonal_recurrent_tensors = 5
};
/* FloorModOptions: no fields */
/* RangeOptions: no fields */
enum {
    GC_O_ResizeNearestNeighborOptions_align_corners = 0,
    GC_O_ResizeNearestNeighborOptions_half_pixel_centers = 1
};
enum {
    GC_O_LeakyReluOptions_alpha = 0
};
/* SquaredDifferenceOptions: no fields */
enum {
    GC_O_MirrorPadOptions_mode = 0
};
/* AbsOptions: no fields */
enum {
    GC_O_SplitVOptions_num_splits = 0
};
enum {
    GC_O_UniqueOptions_idx_out_type = 0
};
/* ReverseV2Options: no fields */
/* AddNOptions: no fields */
/* GatherNdOptions: no fields */
/* CosOptions: no fields */
/* WhereOptions: no fields */
/* RankOptions: no fields */
enum {
    GC_O_ReverseSequenceOptions_seq_dim = 0,
    GC_O_ReverseSequenceOptions_batch_dim = 1
};
/* MatrixDiagOptions: no fields */
/* QuantizeOptions: no fields */
/* MatrixSetDiagOptions: no fields */
/* HardSwishOptions: no fields */
enum {
    GC_O_IfOptions_then_subgraph_index = 0,
    GC_O_IfOptions_else_subgraph_index = 1
};
enum {
    GC_O_WhileOptions_cond_subgraph_index = 0,
    GC_O_WhileOptions_body_subgraph_index = 1
};
enum {
    GC_O_DepthToSpaceOptions_block_size = 0
};
/* NonMaxSuppressionV4Options: no fields */
/* NonMaxSuppressionV5Options: no fields */
/* ScatterNdOptions: no fields */
/* SelectV2Options: no fields */
/* DensifyOptions: no fields */
/* SegmentSumOptions: no fields */
enum {
    GC_O_BatchMatMulOptions_adj_x = 0,
    GC_O_BatchMatMulOptions_adj_y = 1,
    GC_O_BatchMatMulOptions_asymmetric_quantize_inputs = 2
};
enum {
    GC_O_CumsumOptions_exclusive = 0,
    GC_O_CumsumOptions_reverse = 1
};
enum {
    GC_O_CallOnceOptions_init_subgraph_index = 0
};
/* BroadcastToOptions: no fields */
/* Rfft2dOptions: no fields */
enum {
    GC_O_Conv3DOptions_padding = 0,
    GC_O_Conv3DOptions_stride_d = 1,
    GC_O_Conv3DOptions_stride_w = 2,
    GC_O_Conv3DOptions_stride_h = 3,
    GC_O_Conv3DOptions_fused_activation_function = 4,
    GC_O_Conv3DOptions_dilation_d_factor = 5,
    GC_O_Conv3DOptions_dilation_w_factor = 6,
    GC_O_Conv3DOptions_dilation_h_factor = 7
};
enum {
    GC_O_HashtableOptions_table_id = 0,
    GC_O_HashtableOptions_key_dtype = 1,
    GC_O_HashtableOptions_value_dtype = 2
};
/* HashtableFindOptions: no fields */
/* HashtableImportOptions: no fields */
/* HashtableSizeOptions: no fields */
enum {
    GC_O_VarHandleOptions_container = 0,
    GC_O_VarHandleOptions_shared_name = 1
};
/* ReadVariableOptions: no fields */
/* AssignVariableOptions: no fields */
enum {
    GC_O_RandomOptions_seed = 0,
    GC_O_RandomOptions_seed2 = 1
};
enum {
    GC_O_BucketizeOptions_boundaries = 0
};
enum {
    GC_O_GeluOptions_approximate = 0
};
/* DynamicUpdateSliceOptions: no fields */
/* UnsortedSegmentProdOptions: no fields */
/* UnsortedSegmentMaxOptions: no fields */
/* UnsortedSegmentMinOptions: no fields */
/* UnsortedSegmentSumOptions: no fields */
/* ATan2Options: no fields */
/* SignOptions: no fields */
/* BitcastOptions: no fields */
/* BitwiseXorOptions: no fields */
/* RightShiftOptions: no fields */
enum {
    GC_O_StablehloConcatenateOptions_dimension = 0
};
enum {
    GC_O_StablehloBroadcastInDimOptions_broadcast_dimensions = 0
};
enum {
    GC_O_StablehloSliceOptions_start_indices = 0,
    GC_O_StablehloSliceOptions_limit_indices = 1,
    GC_O_StablehloSliceOptions_strides = 2
};
enum {
    GC_O_StablehloConvolutionOptions_window_strides = 0,
    GC_O_StablehloConvolutionOptions_padding = 1,
    GC_O_StablehloConvolutionOptions_lhs_dilation = 2,
    GC_O_StablehloConvolutionOptions_rhs_dilation = 3,
    GC_O_StablehloConvolutionOptions_window_reversal = 4,
    GC_O_StablehloConvolutionOptions_input_batch_dimension = 5,
    GC_O_StablehloConvolutionOptions_input_feature_dimension = 6,
    GC_O_StablehloConvolutionOptions_input_spatial_dimensions = 7,
    GC_O_StablehloConvolutionOptions_kernel_input_feature_dimension = 8,
    GC_O_StablehloConvolutionOptions_kernel_output_feature_dimension = 9,
    GC_O_StablehloConvolutionOptions_kernel_spatial_dimensions = 10,
    GC_O_StablehloConvolutionOptions_output_batch_dimension = 11,
    GC_O_StablehloConvolutionOptions_output_feature_dimension = 12,
    GC_O_StablehloConvolutionOptions_output_spatial_dimensions = 13,
    GC_O_StablehloConvolutionOptions_feature_group_count = 14,
    GC_O_StablehloConvolutionOptions_batch_group_count = 15,
    GC_O_StablehloConvolutionOptions_precision_config = 16
};
enum {
    GC_O_StablehloCustomCallOptions_call_target_name = 0,
    GC_O_StablehloCustomCallOptions_has_side_effect = 1,
    GC_O_StablehloCustomCallOptions_backend_config = 2,
    GC_O_StablehloCustomCallOptions_api_version = 3,
    GC_O_StablehloCustomCallOptions_called_computations = 4,
    GC_O_StablehloCustomCallOptions_custom_attributes = 5
};
enum {
    GC_O_StablehloReduceOptions_dimensions = 0,
    GC_O_StablehloReduceOptions_body_subgraph_index = 1
};
enum {
    GC_O_StablehloScatterOptions_indices_are_sorted = 0,
    GC_O_StablehloScatterOptions_update_window_dims = 1,
    GC_O_StablehloScatterOptions_inserted_window_dims = 2,
    GC_O_StablehloScatterOptions_scatter_dims_to_operand_dims = 3,
    GC_O_StablehloScatterOptions_index_vector_dim = 4,
    GC_O_StablehloScatterOptions_unique_indices = 5,
    GC_O_StablehloScatterOptions_update_computation_subgraph_index = 6
};
enum {
    GC_O_StablehloCompareOptions_comparison_direction = 0,
    GC_O_StablehloCompareOptions_compare_type = 1
};
enum {
    GC_O_StablehloDynamicSliceOptions_slice_sizes = 0
};
enum {
    GC_O_StablehloPadOptions_edge_padding_low = 0,
    GC_O_StablehloPadOptions_edge_padding_high = 1,
    GC_O_StablehloPadOptions_interior_padding = 2
};
enum {
    GC_O_StablehloIotaOptions_iota_dimension = 0
};
enum {
    GC_O_StablehloDotGeneralOptions_lhs_batching_dimensions = 0,
    GC_O_StablehloDotGeneralOptions_rhs_batching_dimensions = 1,
    GC_O_StablehloDotGeneralOptions_lhs_contracting_dimensions = 2,
    GC_O_StablehloDotGeneralOptions_rhs_contracting_dimensions = 3,
    GC_O_StablehloDotGeneralOptions_precision_config = 4
};
enum {
    GC_O_StablehloReduceWindowOptions_window_dimensions = 0,
    GC_O_StablehloReduceWindowOptions_window_strides = 1,
    GC_O_StablehloReduceWindowOptions_base_dilations = 2,
    GC_O_StablehloReduceWindowOptions_window_dilations = 3,
    GC_O_StablehloReduceWindowOptions_padding = 4,
    GC_O_StablehloReduceWindowOptions_body_subgraph_index = 5
};
enum {
    GC_O_StablehloSortOptions_dimension = 0,
    GC_O_StablehloSortOptions_is_stable = 1,
    GC_O_StablehloSortOptions_comparator_subgraph_index = 2
};
enum {
    GC_O_StablehloWhileOptions_cond_subgraph_index = 0,
    GC_O_StablehloWhileOptions_body_subgraph_index = 1
};
enum {
    GC_O_StablehloGatherOptions_offset_dims = 0,
    GC_O_StablehloGatherOptions_collapsed_slice_dims = 1,
    GC_O_StablehloGatherOptions_start_index_map = 2,
    GC_O_StablehloGatherOptions_index_vector_dim = 3,
    GC_O_StablehloGatherOptions_slice_sizes = 4,
    GC_O_StablehloGatherOptions_indices_are_sorted = 5
};
enum {
    GC_O_StablehloTransposeOptions_permutation = 0
};
/* DilateOptions: no fields */
enum {
    GC_O_StablehloRngBitGeneratorOptions_algorithm = 0
};
enum {
    GC_O_ReduceWindowOptions_reduce_function = 0
};
enum {
    GC_O_StableHLOCompositeOptions_name = 0,
    GC_O_StableHLOCompositeOptions_decomposition_subgraph_index = 1,
    GC_O_StableHLOCompositeOptions_composite_attributes = 2,
    GC_O_StableHLOCompositeOptions_composite_attributes_format = 3,
    GC_O_StableHLOCompositeOptions_version = 4
};
/* StablehloShiftLeftOptions: no fields */
enum {
    GC_O_StablehloCaseOptions_branch_subgraph_indices = 0
};

#endif
