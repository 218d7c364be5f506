/* fp16.h — IEEE 754 binary16 ("half"): the rounding of the fp16 modes and exact
 * conversions.
 *
 * gc_f16_round(x) is the float nearest to x that a half can hold, ties to even, exactly
 * what storing x into a half register and reading it back gives on a GPU (and what the
 * x86 F16C pair vcvtps2ph / vcvtph2ps gives with round-to-nearest-even):
 *   |x| >= 65520 (halfway between 65504, the largest half, and 65536) -> +-inf;
 *   |x| <  2^-14 -> a multiple of 2^-24 (half subnormals; tiny values flush to +-0);
 *   inf stays inf; the sign of zero is kept;
 *   NaN stays NaN, quieted, with the top 10 bits of its payload (what a half keeps):
 *   bits sign | 0x7fc00000 | (payload & 0x007fe000).
 *
 * The array forms round whole tensors at op boundaries. They use F16C when the CPU
 * has it (checked once at run time: CPUID F16C and AVX with the OS saving the YMM
 * state) and a portable scalar loop otherwise; both give the same bits for every float
 * (tests/c/test_fp16.c checks them against each other on a dense sample of all 2^32
 * floats; GC_FP16_EXHAUSTIVE=1 makes it check every one).
 */
#ifndef GC_FP16_H
#define GC_FP16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The scalar rounding, inline for use inside kernels' loops. */
static inline float gc_f16_round_inline(float x) {
    uint32_t u; memcpy(&u, &x, 4);
    uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) {                       /* inf; NaN quieted, payload's top 10 bits */
        if (a != 0x7f800000u) u = sign | 0x7fc00000u | (a & 0x007fe000u);
    } else if (a >= 0x477ff000u) {                /* >= 65520: rounds to inf */
        u = sign | 0x7f800000u;
    } else if (a < 0x38800000u) {                 /* < 2^-14: half subnormal range */
        float t; memcpy(&t, &a, 4);
        t = (t + 0.5f) - 0.5f;                    /* rounds to a multiple of 2^-24 (the ulp of 0.5) */
        memcpy(&a, &t, 4);
        u = sign | a;
    } else {                                      /* round the low 13 bits, ties to even */
        a += 0x0fffu + ((a >> 13) & 1u);
        u = sign | (a & ~0x1fffu);
    }
    float r; memcpy(&r, &u, 4);
    return r;
}

float gc_f16_round(float x);
uint16_t gc_f32_to_f16(float x);       /* round to nearest even */
float gc_f16_to_f32(uint16_t h);       /* exact */

/* Round n floats in place (F16C when available). */
void gc_f16_round_n(float *x, size_t n);
/* y[i] = round(x[i]) for n floats (y may equal x). */
void gc_f16_round_copy(float *y, const float *x, size_t n);
/* acc[i] = round(acc[i] + round(x * w[i])): one multiply-add in half arithmetic (the
 * product of two halves is exact in float, so each step rounds once, as a half ALU). */
void gc_f16_madd_n(float *acc, float x, const float *w, size_t n);
/* acc[i] = round(acc[i] + round(x[i] * w[i])) (elementwise operands). */
void gc_f16_vmadd_n(float *acc, const float *x, const float *w, size_t n);

/* The native GPU's matrix arithmetic (fp16_model.h GC_ACC_K16H / GC_ACC_H2FMA, measured
 * bit for bit on the H200: docs/measurements/fp16-arith-2026-12-03.md):
 *   gc_f16_flush_n   acc[i] = round(acc[i] + part[i])   (a 16-term chunk's float sum
 *                    joining the half accumulator; the sum rounded to float first)
 *   gc_f16_fma_n     acc[i] = round(fmaf(x, w[i], acc[i])): a half fused multiply-add
 *                    through float (one float rounding, then the half's; a true half FMA
 *                    rounds once: they differ where the float lands on a midpoint between
 *                    halves, ~2^-13 of the steps; gc_f16_round_d rounds a double once, for
 *                    the exact form) */
void gc_f16_flush_n(float *acc, const float *part, size_t n);
void gc_f16_fma_n(float *acc, float x, const float *w, size_t n);
/* the half nearest to d (ties to even, inf past 65520): one rounding, as gc_f16_round
 * is for a float */
float gc_f16_round_d(double d);

/* Round n floats in place, finite values beyond the half range (|x| >= 65520) going to
 * +-65504 instead of +-inf (a saturating float -> half store); inf and NaN as above. */
void gc_f16_round_sat_n(float *x, size_t n);
static inline float gc_f16_round_sat_inline(float x) {
    if (x >= 65520.0f && x <= 3.4028235e38f) return 65504.0f;
    if (x <= -65520.0f && x >= -3.4028235e38f) return -65504.0f;
    return gc_f16_round_inline(x);
}

/* A float tensor stored as half, as the interpreter's core does at op boundaries (and
 * the fast kernels that store their outputs rounded, tile by tile): NONE leaves it,
 * HALF rounds (gc_f16_round_n), SAT rounds with saturation (gc_f16_round_sat_n). */
enum { GC_F16_STORE_NONE = 0, GC_F16_STORE_HALF = 1, GC_F16_STORE_SAT = 2 };
void gc_f16_store(int mode, float *x, size_t n);

/* The two implementations, for tests and benchmarks: the scalar loop, and F16C
 * (returns false and does nothing when the CPU lacks it). */
void gc_f16_round_n_scalar(float *x, size_t n);
bool gc_f16_round_n_f16c(float *x, size_t n);
bool gc_f16_have_f16c(void);
/* Force the scalar paths (tests, benchmarks): 1 = scalar only, 0 = automatic. */
void gc_f16_force_scalar(int on);

#endif
