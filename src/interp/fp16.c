/* fp16.c — binary16 rounding and conversion, bit-exact, no dependence on the compiler's
 * _Float16 support.
 *
 * Layout: half = sign(1) exponent(5, bias 15) mantissa(10); float = sign(1)
 * exponent(8, bias 127) mantissa(23). A normal half keeps the top 10 of the float's 23
 * mantissa bits, so rounding a float in the half-normal range means rounding away its
 * low 13 bits (ties to even). Below 2^-14 halves are subnormal with a fixed quantum of
 * 2^-24: there we round |x| to a multiple of 2^-24 by adding and subtracting 0.5f (whose
 * ulp is 2^-24), which the FPU does in round-to-nearest-even.
 */
#include "interp/fp16.h"

#include <stddef.h>

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float gc_f16_round(float x) {
    uint32_t u = f2u(x);
    uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
    if (a >= 0x7f800000u)                         /* inf, or NaN made quiet */
        return a == 0x7f800000u ? x : u2f(u | 0x00400000u);
    if (a >= 0x477ff000u)                         /* >= 65520: rounds to inf */
        return u2f(sign | 0x7f800000u);
    if (a < 0x38800000u) {                        /* < 2^-14: half subnormal range */
        float t = u2f(a) + 0.5f;                  /* rounds to a multiple of 2^-24 */
        float r = t - 0.5f;
        return u2f(sign | f2u(r));
    }
    a += 0x0fffu + ((a >> 13) & 1u);              /* round the low 13 bits, ties to even */
    a &= ~0x1fffu;
    return u2f(sign | a);
}

void gc_f16_round_n(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = gc_f16_round(x[i]);
}

uint16_t gc_f32_to_f16(float x) {
    float r = gc_f16_round(x);
    uint32_t u = f2u(r);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u)                         /* inf / NaN (keep top payload bits) */
        return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? (0x0200u | ((a >> 13) & 0x3ffu)) : 0));
    if (a < 0x38800000u) {                        /* subnormal half: value / 2^-24 */
        float m = u2f(a) * 16777216.0f;          /* exact: r is a multiple of 2^-24 */
        return (uint16_t)(sign | (uint16_t)m);
    }
    uint32_t e = (a >> 23) - 127 + 15, mant = (a >> 13) & 0x3ffu;
    return (uint16_t)(sign | (e << 10) | mant);
}

float gc_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (e == 0x1f) return u2f(sign | 0x7f800000u | (mant << 13));
    if (e == 0) {                                 /* zero or subnormal: mant * 2^-24 */
        float v = (float)mant * (1.0f / 16777216.0f);
        return u2f(sign | f2u(v));
    }
    return u2f(sign | ((e - 15 + 127) << 23) | (mant << 13));
}
