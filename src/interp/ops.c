/* ops.c — the op table: one entry per TFLite builtin code that has a kernel, indexed
 * by the code (designated initialisers), so a lookup is one array index. A code
 * without an entry is reported by prepare as "op not implemented".
 *
 * To add an op: write its prepare/eval in the family file under kernels/ (spec comment
 * at the top of that file), export `const gc_kernel gc_k_<op>`, add one X() line here,
 * add a case to tests/c/test_kernels*.c. A new family file also needs its double build,
 * kernels/<family>_f64.c (two lines, see interp/fp64.h).
 *
 * CUSTOM ops are matched by their custom_code in a second table (GC_INTERP_CUSTOM_OPS):
 * the CUSTOM entry's prepare finds the kernel by name (the double build's for a node with
 * FLOAT64 tensors), installs it as the node's kernel and runs its prepare, so eval and
 * the kernel flags are the named kernel's. A name without a kernel fails prepare.
 */
#include "interp/interp_impl.h"

#define GC_INTERP_OPS(X) \
    /* shape.c */ \
    X(RESHAPE, gc_k_reshape) X(SQUEEZE, gc_k_squeeze) X(EXPAND_DIMS, gc_k_expand_dims) \
    X(SHAPE, gc_k_shape) X(RANK, gc_k_rank) X(TRANSPOSE, gc_k_transpose) \
    X(CONCATENATION, gc_k_concat) X(PACK, gc_k_pack) X(UNPACK, gc_k_unpack) \
    X(SPLIT, gc_k_split) X(SPLIT_V, gc_k_split_v) X(TILE, gc_k_tile) \
    X(BROADCAST_TO, gc_k_broadcast_to) X(REVERSE_V2, gc_k_reverse_v2) X(FILL, gc_k_fill) \
    X(ZEROS_LIKE, gc_k_zeros_like) X(RANGE, gc_k_range) \
    /* slice.c */ \
    X(SLICE, gc_k_slice) X(STRIDED_SLICE, gc_k_strided_slice) X(GATHER, gc_k_gather) \
    X(GATHER_ND, gc_k_gather_nd) X(EMBEDDING_LOOKUP, gc_k_embedding_lookup) \
    X(PAD, gc_k_pad) X(PADV2, gc_k_padv2) \
    X(MIRROR_PAD, gc_k_mirror_pad) X(SPACE_TO_BATCH_ND, gc_k_space_to_batch) \
    X(BATCH_TO_SPACE_ND, gc_k_batch_to_space) X(DEPTH_TO_SPACE, gc_k_depth_to_space) \
    X(SPACE_TO_DEPTH, gc_k_space_to_depth) \
    /* elementwise.c */ \
    X(ADD, gc_k_add) X(SUB, gc_k_sub) X(MUL, gc_k_mul) X(DIV, gc_k_div) \
    X(MAXIMUM, gc_k_maximum) X(MINIMUM, gc_k_minimum) X(POW, gc_k_pow) \
    X(SQUARED_DIFFERENCE, gc_k_squared_difference) X(FLOOR_DIV, gc_k_floor_div) \
    X(FLOOR_MOD, gc_k_floor_mod) X(LESS, gc_k_less) X(LESS_EQUAL, gc_k_less_equal) \
    X(GREATER, gc_k_greater) X(GREATER_EQUAL, gc_k_greater_equal) X(EQUAL, gc_k_equal) \
    X(NOT_EQUAL, gc_k_not_equal) X(LOGICAL_AND, gc_k_logical_and) \
    X(LOGICAL_OR, gc_k_logical_or) X(PRELU, gc_k_prelu) X(SELECT, gc_k_select) \
    X(SELECT_V2, gc_k_select_v2) \
    /* unary.c */ \
    X(LOGISTIC, gc_k_logistic) X(TANH, gc_k_tanh) X(RELU, gc_k_relu) X(RELU6, gc_k_relu6) \
    X(RELU_N1_TO_1, gc_k_relu_n1_to_1) X(RELU_0_TO_1, gc_k_relu_0_to_1) \
    X(LEAKY_RELU, gc_k_leaky_relu) X(HARD_SWISH, gc_k_hard_swish) X(GELU, gc_k_gelu) \
    X(ELU, gc_k_elu) X(EXP, gc_k_exp) X(LOG, gc_k_log) X(SQRT, gc_k_sqrt) \
    X(RSQRT, gc_k_rsqrt) X(ABS, gc_k_abs) X(NEG, gc_k_neg) X(SQUARE, gc_k_square) \
    X(SIN, gc_k_sin) X(COS, gc_k_cos) X(FLOOR, gc_k_floor) X(CEIL, gc_k_ceil) \
    X(ROUND, gc_k_round) X(SIGN, gc_k_sign) X(LOGICAL_NOT, gc_k_logical_not) \
    /* conv.c */ \
    X(CONV_2D, gc_k_conv_2d) X(DEPTHWISE_CONV_2D, gc_k_depthwise_conv_2d) \
    X(TRANSPOSE_CONV, gc_k_transpose_conv) \
    /* fc.c */ \
    X(FULLY_CONNECTED, gc_k_fully_connected) X(BATCH_MATMUL, gc_k_batch_matmul) \
    /* pool.c */ \
    X(AVERAGE_POOL_2D, gc_k_average_pool_2d) X(MAX_POOL_2D, gc_k_max_pool_2d) \
    X(L2_POOL_2D, gc_k_l2_pool_2d) \
    /* reduce.c */ \
    X(MEAN, gc_k_mean) X(SUM, gc_k_sum) X(REDUCE_MAX, gc_k_reduce_max) \
    X(REDUCE_MIN, gc_k_reduce_min) X(REDUCE_PROD, gc_k_reduce_prod) \
    X(REDUCE_ANY, gc_k_reduce_any) X(REDUCE_ALL, gc_k_reduce_all) X(ARG_MAX, gc_k_arg_max) \
    X(ARG_MIN, gc_k_arg_min) X(CUMSUM, gc_k_cumsum) \
    /* softmax.c */ \
    X(SOFTMAX, gc_k_softmax) X(LOG_SOFTMAX, gc_k_log_softmax) \
    X(L2_NORMALIZATION, gc_k_l2_normalization) \
    /* resize.c */ \
    X(RESIZE_BILINEAR, gc_k_resize_bilinear) X(RESIZE_NEAREST_NEIGHBOR, gc_k_resize_nearest) \
    /* quantize.c */ \
    X(QUANTIZE, gc_k_quantize) X(DEQUANTIZE, gc_k_dequantize) X(CAST, gc_k_cast) \
    X(DENSIFY, gc_k_densify) \
    /* control.c */ \
    X(CALL, gc_k_call) X(STABLEHLO_COMPOSITE, gc_k_composite) X(IF, gc_k_if) X(WHILE, gc_k_while) \
    /* rnn.c */ \
    X(UNIDIRECTIONAL_SEQUENCE_LSTM, gc_k_unidirectional_sequence_lstm) \
    /* svdf.c */ \
    X(SVDF, gc_k_svdf) \
    /* signal.c */ \
    X(RFFT2D, gc_k_rfft2d) X(COMPLEX_ABS, gc_k_complex_abs) X(REAL, gc_k_real) X(IMAG, gc_k_imag) \
    /* custom ops: by name, below */ \
    X(CUSTOM, gc_k_custom)

/* custom_code -> kernel (detection.c: the custom op TFLite's builtin resolver registers;
 * mediapipe.c: MediaPipe's op resolver; "TransformTensor" is the version-1 name of
 * TransformTensorBilinear) */
#define GC_INTERP_CUSTOM_OPS(X) \
    X("TFLite_Detection_PostProcess", gc_k_detection_postprocess) \
    X("Convolution2DTransposeBias", gc_k_mp_transpose_conv_bias) \
    X("MaxPoolingWithArgmax2D", gc_k_mp_max_pool_argmax) \
    X("MaxUnpooling2D", gc_k_mp_max_unpool) \
    X("Landmarks2TransformMatrix", gc_k_mp_landmarks_to_matrix) \
    X("TransformLandmarks", gc_k_mp_transform_landmarks) \
    X("TransformTensorBilinear", gc_k_mp_transform_tensor_bilinear) \
    X("TransformTensor", gc_k_mp_transform_tensor_bilinear)

#define GC_DECL(code, sym) extern const gc_kernel sym; extern const gc_kernel sym##_f64;
GC_INTERP_OPS(GC_DECL)
GC_INTERP_CUSTOM_OPS(GC_DECL)
#undef GC_DECL

typedef struct { const char *name; const gc_kernel *k, *k64; } custom_row;
#define GC_CROW(name, sym) { name, &sym, &sym##_f64 },
static const custom_row custom_table[] = { GC_INTERP_CUSTOM_OPS(GC_CROW) };
#undef GC_CROW

const gc_kernel *gc_custom_kernel_for(const char *name, bool f64) {
    for (size_t i = 0; name && i < sizeof custom_table / sizeof custom_table[0]; i++)
        if (!strcmp(custom_table[i].name, name)) return f64 ? custom_table[i].k64 : custom_table[i].k;
    return NULL;
}

static gc_status custom_prepare(gc_ctx *ctx, gc_node *n, bool f64) {
    const char *name = gc_op_name(ctx->m, n->op);
    const gc_kernel *k = gc_custom_kernel_for(name, f64);
    GC_UNSUP(ctx, k != NULL, "custom op has no kernel in gpuclean's interpreter");
    n->k = k;
    return k->prepare(ctx, n);
}
static gc_status custom_prepare32(gc_ctx *ctx, gc_node *n) { return custom_prepare(ctx, n, false); }
static gc_status custom_prepare64(gc_ctx *ctx, gc_node *n) { return custom_prepare(ctx, n, true); }
static gc_status custom_never(gc_ctx *ctx, gc_node *n) { (void)n; return gc_fail(ctx, GC_ERR_UNSUPPORTED, "custom op not prepared"); }
const gc_kernel gc_k_custom = { "CUSTOM", custom_prepare32, custom_never, 0 };
const gc_kernel gc_k_custom_f64 = { "CUSTOM", custom_prepare64, custom_never, 0 };

#define GC_ROW(code, sym) [GC_OP_##code] = &sym,
static const gc_kernel *const table[GC_OP_COUNT] = { GC_INTERP_OPS(GC_ROW) };
#undef GC_ROW
#define GC_ROW64(code, sym) [GC_OP_##code] = &sym##_f64,
static const gc_kernel *const table64[GC_OP_COUNT] = { GC_INTERP_OPS(GC_ROW64) };
#undef GC_ROW64

_Static_assert(GC_OP_COUNT == 210, "schema gained ops: review the op table");

const gc_kernel *gc_kernel_for(int32_t code) {
    return code >= 0 && code < GC_OP_COUNT ? table[code] : NULL;
}

const gc_kernel *gc_kernel_for_f64(int32_t code) {
    return code >= 0 && code < GC_OP_COUNT ? table64[code] : NULL;
}
