/* fixedpoint.h — gemmlowp's scalar fixed-point arithmetic as TFLite's integer LSTM uses it
 * (written from the documented semantics; lstm_int8.c): Q-format values in int16 / int32
 * with `ib` integer bits (fractional bits 15 - ib / 31 - ib), round-half-away products,
 * logistic / tanh / exp on int16, and the inverse square root of the layer norm.
 *
 *   srdhm16(a, b)   SaturatingRoundingDoublingHighMul: (a b + nudge) / 2^15 truncated,
 *                   nudge +-2^14 by the sign of a b; -32768 * -32768 saturates to 32767.
 *   rdpot(x, e)     RoundingDivideByPOT: x / 2^e rounded half away from zero.
 *   srmpot16(x, e)  SaturatingRoundingMultiplyByPOT: e > 0 a saturating left shift,
 *                   e < 0 rdpot(x, -e).
 *   Additions and subtractions of int16 values wrap (gemmlowp's plain Add / Sub), except
 *   where gemmlowp saturates (AddSaturatingIf16Bit).
 *   Constants: gemmlowp writes them as Q0.31 int32 raw values; an int16 constant is
 *   rdpot(raw, 16).
 */
#ifndef GC_INTERP_FIXEDPOINT_H
#define GC_INTERP_FIXEDPOINT_H

#include <stdint.h>

static inline int32_t fp_rdpot(int32_t x, int e) {
    if (e <= 0) return x;
    int32_t mask = (int32_t)((1LL << e) - 1), rem = x & mask, thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (rem > thr ? 1 : 0);
}
static inline int16_t fp_w16(int32_t v) { return (int16_t)(uint16_t)(uint32_t)v; }     /* wrap to int16 */
static inline int16_t fp_sat16(int32_t v) { return (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); }

static inline int16_t fp_srdhm16(int16_t a, int16_t b) {
    if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
    int32_t ab = (int32_t)a * (int32_t)b;
    int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}
static inline int32_t fp_srdhm32(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    return (int32_t)((ab + nudge) / (1LL << 31));
}
static inline int16_t fp_srmpot16(int16_t x, int e) {
    if (e == 0) return x;
    if (e < 0) return (int16_t)fp_rdpot(x, -e);
    int32_t thr = (1 << (15 - e)) - 1;
    if (x > thr) return INT16_MAX;
    if (x < -thr) return INT16_MIN;
    return fp_w16((int32_t)x * (1 << e));
}
static inline int32_t fp_srmpot32(int32_t x, int e) {
    if (e == 0) return x;
    if (e < 0) return fp_rdpot(x, -e);
    int32_t thr = (int32_t)((1LL << (31 - e)) - 1);
    if (x > thr) return INT32_MAX;
    if (x < -thr) return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}
static inline int16_t fp_c16(int32_t raw32) { return (int16_t)fp_rdpot(raw32, 16); }
static inline int16_t fp_one16(int ib) { return ib == 0 ? INT16_MAX : (int16_t)(1 << (15 - ib)); }

/* exp(a) for a in [-1/4, 0), Q0.15 */
static inline int16_t fp_exp_quarter16(int16_t a) {
    const int16_t c = fp_c16(1895147668), third = fp_c16(715827883);
    int16_t x = fp_w16(a + (1 << 12));
    int16_t x2 = fp_srdhm16(x, x), x3 = fp_srdhm16(x2, x), x4 = fp_srdhm16(x2, x2);
    int16_t x4q = (int16_t)fp_rdpot(x4, 2);
    int16_t t = (int16_t)fp_rdpot(fp_w16(fp_srdhm16(fp_w16(x4q + x3), third) + x2), 1);
    return fp_sat16((int32_t)c + fp_srdhm16(c, fp_w16(x + t)));
}

/* exp(a) for a <= 0 with ib integer bits, result Q0.15 */
static inline int16_t fp_exp_neg16(int16_t a, int ib) {
    const int fb = 15 - ib;
    int16_t quarter = (int16_t)(1 << (fb - 2)), mask = (int16_t)(quarter - 1);
    int16_t amod = fp_w16((a & mask) - quarter);
    int16_t r = fp_exp_quarter16(fp_srmpot16(amod, ib));
    int16_t rem = fp_w16(amod - a);
    static const int32_t mult[7] = { 1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242 };
    for (int k = 0; k < 7; k++) {
        int ex = k - 2;
        if (ib > ex && (rem & (1 << (fb + ex)))) r = fp_srdhm16(r, fp_c16(mult[k]));
    }
    if (ib > 5) {
        int16_t clamp = fp_c16(-(1 << (36 - ib)));
        if (a < clamp) r = 0;
    }
    if (a == 0) r = INT16_MAX;
    return r;
}

/* the Newton-Raphson reciprocal of gemmlowp (Q2.13 iterate), shared by the two below */
static inline int16_t fp_nr_x16(int16_t half_den) {
    int16_t x = fp_w16(fp_c16(1515870810) + fp_srdhm16(half_den, fp_c16(-1010580540)));
    for (int i = 0; i < 3; i++) {
        int16_t hdx = fp_srdhm16(half_den, x);
        int16_t omh = fp_w16((1 << 13) - hdx);
        x = fp_w16(x + fp_srmpot16(fp_srdhm16(x, omh), 2));
    }
    return x;
}
static inline int16_t fp_half_sum16(int16_t a, int16_t b) {
    int32_t s = (int32_t)a + b;
    return (int16_t)((s + (s >= 0 ? 1 : -1)) / 2);
}
/* 1 / (1 + a) and (1 - a) / (1 + a) for a in (0, 1), Q0.15 */
static inline int16_t fp_one_over_one_plus16(int16_t a) {
    return fp_srmpot16(fp_nr_x16(fp_half_sum16(a, INT16_MAX)), 1);
}
static inline int16_t fp_one_minus_over_one_plus16(int16_t a) {
    return fp_srmpot16(fp_w16(fp_nr_x16(fp_half_sum16(a, INT16_MAX)) - (1 << 13)), 2);
}

/* logistic(a), a with ib integer bits, result Q0.15 */
static inline int16_t fp_logistic16(int16_t a, int ib) {
    int16_t absx = a > 0 ? a : fp_w16(-a);
    int16_t pos = fp_one_over_one_plus16(fp_exp_neg16(fp_w16(-absx), ib));
    int16_t neg = fp_w16(INT16_MAX - pos);
    if (a == 0) return fp_c16(1 << 30);
    return a > 0 ? pos : neg;
}
/* tanh(a), a with ib integer bits, result Q0.15 */
static inline int16_t fp_tanh16(int16_t a, int ib) {
    int16_t nx = a < 0 ? a : fp_w16(-a);
    int16_t t = fp_one_minus_over_one_plus16(fp_exp_neg16(nx, ib + 1));
    if (a == 0) return 0;
    return a < 0 ? fp_w16(-t) : t;
}

/* TFLite GetInvSqrtQuantizedMultiplierExp(input, reverse_shift = -1): 1 / sqrt(input)
 * as a multiplier and a (right-positive, then negated) shift */
static inline void fp_inv_sqrt(int32_t input, int32_t *mult, int *shift) {
    if (input <= 1) { *mult = INT32_MAX; *shift = 0; return; }
    int sh = 11;
    while (input >= (1 << 29)) { input /= 4; ++sh; }
    unsigned lz = (unsigned)__builtin_clz((uint32_t)input);
    unsigned pairs = (lz - 1) / 2 - 1;
    sh -= (int)pairs;
    input <<= 2 * pairs;
    int32_t fin = input >> 1, half = fp_rdpot(fin, 1);
    const int32_t half_three = (1 << 28) + (1 << 27);
    int32_t x = 1 << 28;                                   /* Q3.28 one */
    for (int i = 0; i < 5; i++) {
        int32_t x3 = fp_srmpot32(fp_srdhm32(fp_srdhm32(x, x), x), 6);
        x = fp_srmpot32((int32_t)((uint32_t)fp_srdhm32(half_three, x) - (uint32_t)fp_srdhm32(half, x3)), 3);
    }
    x = fp_srdhm32(x, 1518500250);
    if (sh < 0) { x = (int32_t)((uint32_t)x << -sh); sh = 0; }
    *mult = x; *shift = -sh;
}

#endif
