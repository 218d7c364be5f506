/* hybrid.h — dynamic-range ("hybrid") quantization: float activations, constant integer
 * weights (INT8, or INT4 packed two per byte, low nibble first), float outputs. Shared by
 * FULLY_CONNECTED / BATCH_MATMUL (fc.c) and CONV_2D / DEPTHWISE_CONV_2D (conv.c).
 *
 * At run time a slice of the float input (a row of FC / BMM, a whole batch image of a conv)
 * is quantized to int8 with a step s_x (the real value of one level) and a zero point z_x;
 * the op accumulates acc = sum (q - z_x) w in integers (exact), and rescales:
 *   TFLite (the builtin kernels: fully_connected.cc EvalHybrid*, conv.cc EvalHybrid /
 *   EvalHybridPerChannel, depthwise_conv.cc EvalHybridPerChannel, batch_matmul.cc
 *   EvalHybrid):    y = bias + (float)acc * (s_x * s_w[unit])      (products in float)
 *   XNNPACK (qd8 x qc8w/qc4w, --int-arith xnnpack):
 *                   y = ((float)acc * s_x) * s_w[unit] + bias
 * then the fused activation clamp.
 *
 * Input quantization (GC_HQ_*):
 *   SYMMETRIC   (TFLite SymmetricQuantizeFloats): r = max(|min x|, |max x|); r == 0: all 0,
 *               s_x = 1; else s_x = r / 127, q = clamp(round_half_away(x * (127 / r)), +-127).
 *   ASYMMETRIC  (TFLite AsymmetricQuantizeFloats): range [min(0, min x), max(0, max x)]
 *               (float; its width in float) onto [-128, 127] in double; zero point from the end with the smaller error,
 *               nudged to an integer; s_x = (float) scale; q = clamp(round_half_away(x *
 *               (float)(1 / s_x)) + z, -128, 127) (LiteRT's vectorised kernels round before
 *               adding z). An all-zero range gives q = 0, s_x = 1, z = 0.
 *   XNNPACK     (XNNPACK's f32 -> qd8 convert): range [min(0, min x), max(0, max x)], inverse
 *               step 255 / (max - min) in float, zero point from the smaller-error end,
 *               rounded half to even; q = rint(x * inverse step) + z, s_x = 1 / inverse step.
 * NaN inputs quantize to the zero point (they are never converted to integers).
 * fp16 / fp16-acc / fp64 precisions run hybrid ops on the dequantized weights w * s (the
 * GPU's way; in fp64 the float semantics the weights stand for) with no run-time
 * quantization.
 */
#ifndef GC_INTERP_HYBRID_H
#define GC_INTERP_HYBRID_H

#include "interp/interp_impl.h"

enum { GC_HQ_SYMMETRIC = 0, GC_HQ_ASYMMETRIC = 1, GC_HQ_XNNPACK = 2 };

/* Quantize n floats to int8 (see above): q[0..n-1], *step = s_x, *zp = z_x. */
void gc_hq_quantize(int mode, const float *x, size_t n, int8_t *q, float *step, int32_t *zp);

/* Element i of constant INT8 / INT4 weights as an int8 value. */
static inline int8_t gc_hq_wget(const gc_rt *w, size_t i) {
    if (w->dtype == GC_T_INT4) {
        uint8_t b = w->data[i / 2];
        int v = (i & 1) ? b >> 4 : b & 15;
        return (int8_t)(v >= 8 ? v - 16 : v);
    }
    return ((const int8_t *)w->data)[i];
}

/* Is this a hybrid op's weight: a constant INT8 / INT4 tensor without blockwise scales. */
static inline bool gc_hq_is_weight(const gc_rt *w) {
    return (w->dtype == GC_T_INT8 || w->dtype == GC_T_INT4) && !(w->q && w->q->details_type == 2);
}

/* Validate hybrid weights with `units` output units along dimension `qdim` and return one
 * scale per unit (a per-tensor scale repeated): constant, INT8 / INT4, finite scales >= 0,
 * one scale or one per unit (then quantized_dimension must be qdim), zero points 0.
 * *per_channel: more than one scale; *all_equal: every scale the same. */
gc_status gc_hq_scales(gc_ctx *ctx, const gc_rt *w, int64_t units, int qdim, gc_f32 **scales,
                       bool *per_channel, bool *all_equal);

/* The double build's stand-in for gc_hq_quantize (interp/fp64.h maps one to the other):
 * --precision fp64 runs hybrid ops on dequantized weights and never quantizes
 * activations, so this only zeroes its outputs. */
void gc_hq_quantize_d(int mode, const double *x, size_t n, int8_t *q, double *step, int32_t *zp);

#endif
