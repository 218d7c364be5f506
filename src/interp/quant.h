/* quant.h — TFLite's reference integer arithmetic, as small inline functions.
 *
 * A real multiplier M > 0 is stored as (q, shift) with M = q * 2^(shift - 31),
 * q in [2^30, 2^31). Rescaling an int32 accumulator x by M is done the way TFLite's
 * reference kernels do it (gemmlowp "double rounding"):
 *     SaturatingRoundingDoublingHighMul(x * 2^max(shift,0), q)   -> round-half-away
 *     RoundingDivideByPOT(., max(-shift, 0))                     -> round-half-away
 * The int64 form (16x8 kernels) first reduces q to 15 bits, then does one rounding
 * shift by 15 - shift, as TFLite's int64 MultiplyByQuantizedMultiplier does.
 */
#ifndef GC_QUANT_H
#define GC_QUANT_H

#include <math.h>
#include <stdint.h>
#include <stdbool.h>

/* TFLite QuantizeMultiplier: frexp, then round the fraction to Q31. */
static inline void gc_q_multiplier(double m, int32_t *q, int *shift) {
    if (m == 0.0) { *q = 0; *shift = 0; return; }
    int e;
    double f = frexp(m, &e);
    int64_t qf = (int64_t)llround(f * 2147483648.0);
    if (qf == 2147483648LL) { qf /= 2; e++; }
    if (e < -31) { e = 0; qf = 0; }
    if (e > 30) { e = 30; qf = 2147483647LL; }
    *q = (int32_t)qf; *shift = e;
}

static inline int32_t gc_q_srdhm(int32_t a, int32_t b) {   /* SaturatingRoundingDoublingHighMul */
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    return (int32_t)((ab + nudge) / (1LL << 31));
}

static inline int32_t gc_q_rdpot(int32_t x, int exponent) {  /* RoundingDivideByPOT */
    if (exponent <= 0) return x;
    int32_t mask = (int32_t)((1LL << exponent) - 1);
    int32_t rem = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (rem > threshold ? 1 : 0);
}

static inline int32_t gc_q_mul(int32_t x, int32_t q, int shift) {
    int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    int64_t xs = (int64_t)x * ((int64_t)1 << left);
    if (xs > INT32_MAX) xs = INT32_MAX;           /* the reference wraps; saturate instead */
    if (xs < INT32_MIN) xs = INT32_MIN;
    return gc_q_rdpot(gc_q_srdhm((int32_t)xs, q), right);
}

static inline int32_t gc_q_mul64(int64_t x, int32_t q, int shift) {
    int32_t reduced = q < 0x7FFF0000 ? (int32_t)((q + (1 << 15)) >> 16) : 0x7FFF;
    int total = 15 - shift;
    int64_t r = x * (int64_t)reduced + ((int64_t)1 << (total - 1));
    r >>= total;
    if (r > INT32_MAX) r = INT32_MAX;
    if (r < INT32_MIN) r = INT32_MIN;
    return (int32_t)r;
}

/* XNNPACK's "fp32" requantization: acc * scale in float32, clamped to the output range
 * (relative to the zero point), rounded half to even, plus the zero point. */
static inline int32_t gc_q_xnn(int32_t acc, float scale, int32_t zp, int32_t lo, int32_t hi) {
    float f = (float)acc * scale;
    float flo = (float)(lo - zp), fhi = (float)(hi - zp);
    f = f < flo ? flo : f > fhi ? fhi : f;
    return (int32_t)lrintf(f) + zp;
}

static inline int32_t gc_clamp_i32(int64_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* Fused activation (ActivationFunctionType). */
enum { GC_ACT_NONE = 0, GC_ACT_RELU = 1, GC_ACT_RELU_N1_TO_1 = 2, GC_ACT_RELU6 = 3,
       GC_ACT_TANH = 4, GC_ACT_SIGN_BIT = 5 };

/* Quantized clamp range of a fused activation (CalculateActivationRangeQuantized):
 * the activation's bounds quantized with round-half-away, intersected with [qmin,qmax]. */
static inline void gc_q_act_range(int act, float scale, int32_t zp, int32_t qmin, int32_t qmax,
                                  int32_t *lo, int32_t *hi) {
    *lo = qmin; *hi = qmax;
    double s = scale;
#define GC_QV(f) (zp + (int32_t)round((f) / s))
    if (act == GC_ACT_RELU) { int32_t z = GC_QV(0.0); if (z > *lo) *lo = z; }
    else if (act == GC_ACT_RELU6) {
        int32_t z = GC_QV(0.0), s6 = GC_QV(6.0);
        if (z > *lo) *lo = z;
        if (s6 < *hi) *hi = s6;
    } else if (act == GC_ACT_RELU_N1_TO_1) {
        int32_t a = GC_QV(-1.0), b = GC_QV(1.0);
        if (a > *lo) *lo = a;
        if (b < *hi) *hi = b;
    }
#undef GC_QV
}

/* Float clamp range of a fused activation (TANH/SIGN_BIT are applied separately). */
static inline void gc_act_range_f(int act, float *lo, float *hi) {
    *lo = -INFINITY; *hi = INFINITY;
    if (act == GC_ACT_RELU) *lo = 0.0f;
    else if (act == GC_ACT_RELU6) { *lo = 0.0f; *hi = 6.0f; }
    else if (act == GC_ACT_RELU_N1_TO_1) { *lo = -1.0f; *hi = 1.0f; }
}

static inline float gc_act_f(float v, float lo, float hi) {
    return v < lo ? lo : v > hi ? hi : v;       /* NaN passes through, as in TFLite */
}

#endif
