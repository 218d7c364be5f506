/* fp16_model.h — what `--precision fp16` emulates on each GPU runtime: where ML Drift
 * (LiteRT's GPU accelerator) keeps half precision and where it keeps float, per op kind.
 * docs/fp16-model.md gives the evidence (LiteRT source and H200 measurements).
 *
 * Both runtimes store every float tensor as half (inputs, constants, op outputs, and
 * the intermediate tensors of ops that ML Drift splits into several kernels). They
 * differ in arithmetic:
 *   GC_GPU_NATIVE  native libLiteRt 2.3.0 (the ai-edge-litert wheel's WebGPU accelerator,
 *                  its own Dawn with shader-f16): CalculationsPrecision::F16, so kernels
 *                  compute in half where their source says FLT / half;
 *   GC_GPU_JS      LiteRT.js 2.5.3 over Dawn without shader-f16: half storage, float
 *                  arithmetic everywhere (what the interpreter's fp16 did before).
 * The default is GC_GPU_NATIVE, the runtime apps ship.
 *
 * The model is a table of accumulation precisions, one per op kind (gc_f16_acc):
 *   GC_ACC_F32   products of half operands (exact in float) summed in float, the
 *                result rounded to half once when stored;
 *   GC_ACC_F16   half arithmetic: every product and every partial sum rounded to half
 *                (acc = r(acc + r(x w)) in the op's own summation order);
 *   GC_ACC_SLICE ML Drift's F32_F16 scheme: each 4-channel slice's products summed in
 *                half (p = r(p + r(x w)) over the 4), the slice sums added in float.
 *   GC_ACC_K16H  matrix-core tiles: k in chunks of 16 (k = 16 c .. 16 c + 15, the last
 *                chunk shorter), each chunk's products summed in float from +0 in k
 *                order, the chunk sum added to a half accumulator: acc = r(acc + part),
 *                acc from +0 (measured bit for bit on the H200's native runtime for
 *                FULLY_CONNECTED and BATCH_MATMUL on the matrix cores: 99.93-100 % of outputs).
 *   GC_ACC_H2FMA half2 fused multiply-add chains: lane A sums the even k, lane B the odd
 *                k, each step A = r(x w + A) with one rounding, the result r(A + B)
 *                (measured bit for bit, 100 %, for K <= 16 off the matrix cores; larger K
 *                off them came out with about the same error, 0.65-1.5x, but other bits:
 *                the kernel there is not known exactly).
 */
#ifndef GC_FP16_MODEL_H
#define GC_FP16_MODEL_H

#include <stdbool.h>

typedef enum { GC_GPU_NATIVE = 0, GC_GPU_JS = 1 } gc_f16_runtime;
const char *gc_f16_runtime_name(gc_f16_runtime r);     /* "native", "js" */
int gc_f16_runtime_parse(const char *s);               /* -1 when unknown */

typedef enum { GC_ACC_F32 = 0, GC_ACC_F16 = 1, GC_ACC_SLICE = 2, GC_ACC_K16H = 3, GC_ACC_H2FMA = 4 } gc_f16_acc;

typedef struct gc_f16_model {
    const char *name;           /* "native" / "js" */
    const char *runtime;        /* what it stands for, for reports */
    /* CONV_2D whose input channels (per group) fit in one 4-channel slice: ML Drift's
     * generic convolution with half accumulators */
    gc_f16_acc conv_small;
    int conv_small_max_ic;      /* "small": input channels per group <= this */
    gc_f16_acc conv;            /* other CONV_2D (and TRANSPOSE_CONV) */
    gc_f16_acc depthwise;       /* DEPTHWISE_CONV_2D */
    /* 3x3, stride 1, dilation 1, groups 1 CONV_2D with >= 64 input and output channels
     * and >= 32 output tiles of 4x4: Winograd F(4x4, 3x3) (kernels/winograd16.c), its
     * input and output transforms in half, the 36 products per tile summed as `conv` */
    bool winograd;
    gc_f16_acc fc;              /* FULLY_CONNECTED */
    gc_f16_acc bmm;             /* BATCH_MATMUL */
    /* FULLY_CONNECTED / BATCH_MATMUL [M x K] x [K x N] (FULLY_CONNECTED: M rows, N units)
     * that the runtime runs on its matrix cores take `fc` / `bmm`: those with K a multiple
     * of mma_k, N a multiple of mma_n and M >= mma_min_m (mma_k 0: every one); the others
     * take mm_other (gc_f16_mm_acc). Measured on the H200 2026-12-03: K 16..512 by 16, N 32
     * ... 8128 by 32 and M 64..256 took the matrix cores; K 24 / 100 / 197, N 20 / 120 /
     * 197 / 496 and M 1 / 7 did not (M between 8 and 63: not measured; 16 assumed). */
    int mma_k, mma_n, mma_min_m;
    gc_f16_acc mm_other;
    /* FULLY_CONNECTED with M < mma_min_m (matrix-vector products) off the matrix cores:
     * measured at K = 64 between k16h's and h2fma's error (1 and 7 rows); the F32_F16
     * slices (float accumulation) keep long classifier heads (K = 1280, one row) within
     * the measured error where h2fma over-predicts it 4-5x */
    gc_f16_acc mm_gemv;
    /* CONV_2D (one group, not Winograd) on the matrix cores by the same shape rule, K = taps
     * x channels, N = output channels, M = output pixels: GC_ACC_K16H over (tap, channel);
     * the other convs as conv_small / conv */
    bool conv_mma;
    gc_f16_acc reduce;          /* MEAN, SUM, REDUCE_PROD, pooling averages */
    gc_f16_acc softmax;         /* SOFTMAX / LOG_SOFTMAX: the exp sum */
    /* ops whose GPU formula has several steps compute each step in half:
     * SQUARED_DIFFERENCE r(r(a - b)^2); LOGISTIC r(1 / r(1 + r(exp(-x))));
     * HARD_SWISH r(x r(clamp(r(r(x / 6) + 0.5), 0, 1))); GELU (erf form)
     * r(r(x / 2) r(1 + r(erf(r(x r(1/sqrt 2)))))), tanh form likewise step by step;
     * SOFTMAX e_i = r(exp(r(x_i - max))), y_i = r(e_i r(1 / sum)) */
    bool half_math;
    /* SQUARED_DIFFERENCE -> MEAN/SUM -> linked elementwise ops stay float until the
     * chain's last op (fp16_chains.c) */
    bool reduce_chains;
    /* storing a float result as half saturates: finite values past 65504 become +-65504
     * (not inf). No runtime sets it: measured on the H200 2026-12-02, both store inf
     * (docs/fp16-model.md); kept for runtimes that may saturate. */
    bool saturate;
    /* one-element float constants (eps, scales) are kernel arguments in float, not
     * half tensors */
    bool scalar_args;
} gc_f16_model;

/* Whether [M x K] x [K x N] takes the matrix cores (the mma_* shape rule above). */
bool gc_f16_on_mma(const gc_f16_model *m, long long M, long long K, long long N);
/* The accumulation of a FULLY_CONNECTED (bmm false) or BATCH_MATMUL [M x K] x [K x N]. */
gc_f16_acc gc_f16_mm_acc(const gc_f16_model *m, bool bmm, long long M, long long K, long long N);

/* The model of a runtime (never NULL for a valid runtime). */
const gc_f16_model *gc_f16_model_for(gc_f16_runtime r);

#endif
