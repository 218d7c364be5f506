/* fp64.h — the double build of a kernel family, for --precision fp64.
 *
 * kernels/<family>_f64.c is two lines:
 *     #include "interp/fp64.h"
 *     #include "<family>.c"
 * The family's source is compiled again with `float` meaning double, every float math
 * function its double one, FLOAT32 / COMPLEX64 meaning FLOAT64 / COMPLEX128 (the
 * interpreter holds float tensors that way in fp64 mode), the fp16 rounding helpers the
 * identity (fp64 never rounds to half) and the kernels named <name>_f64. The core uses
 * these for every node that has a FLOAT64 or COMPLEX128 tensor; integer-only nodes keep
 * the float32 build, so quantized arithmetic (float32 rescales included) is unchanged.
 *
 * Rules for kernel sources (what makes the double build right):
 *   - a value that must stay 32-bit (a model scale, a quantization step) is gc_f32;
 *   - helpers from headers that take or return float go through the names mapped below
 *     (a new one must be added here, else it narrows to float: grep the family for it);
 *   - no 4-byte memcpy of a float (bit tricks), no `/ 4` for float counts: sizeof(float).
 * Every system and project header is included here first, so the `float` macro below
 * touches only the family's own code.
 */
#ifndef GC_INTERP_FP64_H
#define GC_INTERP_FP64_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interp/interp_impl.h"
#include "interp/hybrid.h"

static inline void gc_act_range_d(int act, double *lo, double *hi) {
    *lo = -INFINITY; *hi = INFINITY;
    if (act == GC_ACT_RELU) *lo = 0.0;
    else if (act == GC_ACT_RELU6) { *lo = 0.0; *hi = 6.0; }
    else if (act == GC_ACT_RELU_N1_TO_1) { *lo = -1.0; *hi = 1.0; }
}
static inline double gc_act_d(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

#define GC_FP64_BUILD 1
#undef GC_K
#define GC_K(name) name##_f64

#if defined(__clang__)
#pragma clang diagnostic ignored "-Wkeyword-macro"
#endif
#define float double
#define GC_T_FLOAT32 GC_T_FLOAT64
#define GC_T_COMPLEX64 GC_T_COMPLEX128
#define gc_is_float(dt) ((dt) == GC_T_FLOAT64)
#define gc_act_range_f gc_act_range_d
#define gc_act_f gc_act_d
#define gc_racc(ctx, v) (v)
#define gc_f16_round(x) (x)
#define gc_f16_round_n(p, n) ((void)(p), (void)(n))
#define gc_f16_madd_n(a, x, w, n) ((void)(a), (void)(x), (void)(w), (void)(n))
#define gc_f16_vmadd_n(a, x, w, n) ((void)(a), (void)(x), (void)(w), (void)(n))
#define gc_f16_flush_n(a, p, n) ((void)(a), (void)(p), (void)(n))
#define gc_f16_fma_n(a, x, w, n) ((void)(a), (void)(x), (void)(w), (void)(n))
#define gc_hq_quantize gc_hq_quantize_d

#define acosf acos
#define asinf asin
#define atanf atan
#define atan2f atan2
#define cbrtf cbrt
#define ceilf ceil
#define copysignf copysign
#define cosf cos
#define coshf cosh
#define erff erf
#define erfcf erfc
#define exp2f exp2
#define expf exp
#define expm1f expm1
#define fabsf fabs
#define floorf floor
#define fmaf fma
#define fmaxf fmax
#define fminf fmin
#define fmodf fmod
#define hypotf hypot
#define ldexpf ldexp
#define log10f log10
#define log1pf log1p
#define log2f log2
#define logf log
#define lrintf lrint
#define lroundf lround
#define nearbyintf nearbyint
#define powf pow
#define remainderf remainder
#define rintf rint
#define roundf round
#define sinf sin
#define sinhf sinh
#define sqrtf sqrt
#define tanf tan
#define tanhf tanh
#define truncf trunc

#endif
