/* winograd16.h — ML Drift's Winograd F(4x4, 3x3) convolution in half arithmetic, as the
 * native runtime's fp16 mode runs a 3x3 stride-1 CONV_2D (interp/fp16_model.h says
 * which runtimes; kernels/winograd16.c has the arithmetic).
 *
 * Layouts: input x [B, H, W, C] (values already half), weights given as float
 * [OC][3][3][C] (the model's own float32 values: the delegate transforms them in float
 * and stores the result as half), bias [OC] (half), output y [B, OH, OW, OC].
 */
#ifndef GC_WINOGRAD16_H
#define GC_WINOGRAD16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/fp16_model.h"
#include "interp/kernels/gemm_f32.h"

typedef struct gc_wino16 {
    int32_t B, H, W, C, OH, OW, OC, pt, pl;
    int32_t tiles_y, tiles_x;
    gc_f16_acc acc;             /* how the 36 per-point products over C are summed */
    float lo, hi;               /* fused activation clamp */
    bool half;                  /* coefficients, U, transforms and stores in half; false:
                                   all in float (a plain convolution: the tests' check) */
    float bt[36];               /* B^T [6][6] as the kernel holds it (half) */
    float at[24];               /* A^T [4][6] (half) */
    float *u;                   /* transformed weights [36][C][OC] (half); fast: packed as pu */
    /* fast path (winograd16_fast.c, gc_wino16_set_fast): U packed for gemm_f32.h as 36
     * groups of C x OC (pu.w = u), the 36 point products of a block of pu.MR tiles one
     * GEMM per point, the transforms vectorised across channels: the same bits */
    bool fast;
    int isa;                    /* gc_isa of the transforms */
    int store;                  /* fast: GC_F16_STORE_* (fp16.h), each tile's outputs rounded
                                   to half once computed (0: left as they are) */
    gc_gemm_b pu;
} gc_wino16;

/* ML Drift's rule (TFLite GPU's IsSuitableForWinograd4x4To6x6 and
 * IsRecommendedForWinograd4x4To6x6 for a non-Adreno, non-AMD GPU): 3x3 kernel, stride 1,
 * dilation 1, one group, >= 16 slices of 4 input and output channels, >= 32 tiles. */
bool gc_wino16_eligible(int32_t KH, int32_t KW, int sh, int sw, int dh, int dw, int32_t groups,
                        int32_t C, int32_t OC, int32_t OH, int32_t OW);

/* The coefficient matrices and the tile grid; u must hold gc_wino16_u_floats() floats. */
void gc_wino16_setup(gc_wino16 *w, int32_t B, int32_t H, int32_t W, int32_t C, int32_t OH, int32_t OW,
                     int32_t OC, int32_t pt, int32_t pl, gc_f16_acc acc, float lo, float hi, bool half);
size_t gc_wino16_u_floats(const gc_wino16 *w);
/* Take the fast path (call after gc_wino16_setup, before sizing u and the scratch): U
 * packed for `isa`'s GEMM kernels. false (and nothing changed) when it does not apply
 * (the transforms in float: half false; sizes past the packing's range). */
bool gc_wino16_set_fast(gc_wino16 *w, gc_isa isa);
/* U = G g G^T per (oc, c) in float (TFLite GPU's RearrangeWeightsToWinograd4x4To6x6Weights
 * order), stored rounded to half; w_oc_k_c is [OC][3][3][C]. */
void gc_wino16_weights(gc_wino16 *w, const float *w_oc_k_c);
/* Scratch floats one worker needs. */
size_t gc_wino16_scratch_floats(const gc_wino16 *w);
/* Tile rows [ty0, ty1) of every batch image (the fast path when set). */
void gc_wino16_run(const gc_wino16 *w, const float *x, const float *bias, float *y, float *scratch,
                   int32_t ty0, int32_t ty1);
/* winograd16_fast.c: the fast path's weights, scratch and run */
void gc_wino16_weights_fast(gc_wino16 *w, const float *w_oc_k_c);
size_t gc_wino16_scratch_floats_fast(const gc_wino16 *w);
void gc_wino16_run_fast(const gc_wino16 *w, const float *x, const float *bias, float *y, float *scratch,
                        int32_t ty0, int32_t ty1);

#endif
