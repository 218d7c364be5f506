/* fp16.c — binary16 rounding and conversion, bit-exact, no dependence on the compiler's
 * _Float16 support.
 *
 * Layout: half = sign(1) exponent(5, bias 15) mantissa(10); float = sign(1)
 * exponent(8, bias 127) mantissa(23). A normal half keeps the top 10 of the float's 23
 * mantissa bits, so rounding a float in the half-normal range means rounding away its
 * low 13 bits (ties to even). Below 2^-14 halves are subnormal with a fixed quantum of
 * 2^-24: there we round |x| to a multiple of 2^-24 by adding and subtracting 0.5f (whose
 * ulp is 2^-24), which the FPU does in round-to-nearest-even (gc_f16_round_inline).
 *
 * The array forms go through F16C on x86 CPUs that have it: vcvtps2ph with
 * round-to-nearest-even (imm8 = 0, the MXCSR mode ignored) then vcvtph2ps, 8 floats at
 * a time (16 with AVX-512F, when the CPU has it and GPUCLEAN_ISA allows it: cpu_isa.h). F16C rounds exactly as the scalar code (the only freedom IEEE leaves, the NaN
 * payload, is the top 10 bits with the quiet bit set on both). The scalar code is also
 * the fallback for the tail of each array and for other CPUs.
 */
#include "interp/fp16.h"
#include "interp/kernels/cpu_isa.h"

#include <math.h>
#include <stddef.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#define GC_F16C 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float gc_f16_round(float x) { return gc_f16_round_inline(x); }

void gc_f16_round_n_scalar(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = gc_f16_round_inline(x[i]);
}

static int force_scalar;
void gc_f16_force_scalar(int on) { force_scalar = on; }

#ifdef GC_F16C
/* F16C needs the VEX encoding, so AVX with the YMM state enabled by the OS (XCR0 bits
 * 1 and 2), as Intel's manual says to check before using either. */
static int have_f16c = -1;
bool gc_f16_have_f16c(void) {
    if (have_f16c < 0) {
        unsigned a, b, c, d;
        int ok = 0;
        if (__get_cpuid(1, &a, &b, &c, &d)) {
            bool f16c = (c >> 29) & 1, avx = (c >> 28) & 1, osxsave = (c >> 27) & 1;
            if (f16c && avx && osxsave) {
                uint32_t lo, hi;
                __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
                ok = (lo & 6u) == 6u;
            }
        }
        have_f16c = ok;
    }
    return have_f16c == 1;
}

/* AVX-512F: 16 at a time; the saturating form clamps to +-65504 all but inf and NaN
 * (vfpclassps), which is the scalar form's rule */
static int have_512 = -1;
static bool use_512(void) {
    if (have_512 < 0) have_512 = gc_isa_active() >= GC_ISA_AVX512;
    return have_512 == 1;
}

__attribute__((target("avx512f")))
static void round_copy_512(float *y, const float *x, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT)));
    if (i < n) {
        const __mmask16 k = (__mmask16)((1u << (n - i)) - 1u);
        _mm512_mask_storeu_ps(y + i, k, _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_maskz_loadu_ps(k, x + i), _MM_FROUND_TO_NEAREST_INT)));
    }
}

__attribute__((target("avx512f,avx512dq")))
static void round_sat_512(float *x, size_t n) {
    const __m512 hmax = _mm512_set1_ps(65504.0f), hmin = _mm512_set1_ps(-65504.0f);
    size_t i = 0;
    for (; i < n; i += 16) {
        const __mmask16 k = (__mmask16)(n - i >= 16 ? 0xffffu : (1u << (n - i)) - 1u);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        const __mmask16 keep = _mm512_fpclass_ps_mask(v, 0x99);   /* QNaN | +inf | -inf | SNaN */
        v = _mm512_mask_mov_ps(_mm512_min_ps(hmax, _mm512_max_ps(hmin, v)), keep, v);
        _mm512_mask_storeu_ps(x + i, k, _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)));
    }
}

__attribute__((target("avx,f16c")))
static void round_copy_f16c(float *y, const float *x, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++) y[i] = gc_f16_round_inline(x[i]);
}

__attribute__((target("avx,f16c")))
static void madd_f16c(float *acc, float x, const float *w, size_t n) {
    const __m256 xv = _mm256_set1_ps(x);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 p = _mm256_mul_ps(xv, _mm256_loadu_ps(w + i));
        p = _mm256_cvtph_ps(_mm256_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT));
        __m256 s = _mm256_add_ps(_mm256_loadu_ps(acc + i), p);
        _mm256_storeu_ps(acc + i, _mm256_cvtph_ps(_mm256_cvtps_ph(s, _MM_FROUND_TO_NEAREST_INT)));
    }
    for (; i < n; i++) acc[i] = gc_f16_round_inline(acc[i] + gc_f16_round_inline(x * w[i]));
}

__attribute__((target("avx,f16c")))
static void vmadd_f16c(float *acc, const float *x, const float *w, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 p = _mm256_mul_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i));
        p = _mm256_cvtph_ps(_mm256_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT));
        __m256 s = _mm256_add_ps(_mm256_loadu_ps(acc + i), p);
        _mm256_storeu_ps(acc + i, _mm256_cvtph_ps(_mm256_cvtps_ph(s, _MM_FROUND_TO_NEAREST_INT)));
    }
    for (; i < n; i++) acc[i] = gc_f16_round_inline(acc[i] + gc_f16_round_inline(x[i] * w[i]));
}

/* clamp finite |x| > 65504 to 65504 with its sign (ordered compares: NaN and inf kept) */
__attribute__((target("avx,f16c")))
static void round_sat_f16c(float *x, size_t n) {
    const __m256 sign = _mm256_set1_ps(-0.0f), hmax = _mm256_set1_ps(65504.0f), inf = _mm256_set1_ps(INFINITY);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 a = _mm256_andnot_ps(sign, v);
        __m256 big = _mm256_and_ps(_mm256_cmp_ps(a, hmax, _CMP_GT_OQ), _mm256_cmp_ps(a, inf, _CMP_LT_OQ));
        v = _mm256_blendv_ps(v, _mm256_or_ps(_mm256_and_ps(v, sign), hmax), big);
        _mm256_storeu_ps(x + i, _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)));
    }
    for (; i < n; i++) x[i] = gc_f16_round_sat_inline(x[i]);
}

bool gc_f16_round_n_f16c(float *x, size_t n) {
    if (!gc_f16_have_f16c()) return false;
    round_copy_f16c(x, x, n);
    return true;
}

void gc_f16_round_copy(float *y, const float *x, size_t n) {
    if (!force_scalar && gc_f16_have_f16c()) {
        if (use_512()) round_copy_512(y, x, n);
        else round_copy_f16c(y, x, n);
        return;
    }
    for (size_t i = 0; i < n; i++) y[i] = gc_f16_round_inline(x[i]);
}

void gc_f16_round_sat_n(float *x, size_t n) {
    if (!force_scalar && gc_f16_have_f16c()) {
        if (use_512() && __builtin_cpu_supports("avx512dq")) round_sat_512(x, n);
        else round_sat_f16c(x, n);
        return;
    }
    for (size_t i = 0; i < n; i++) x[i] = gc_f16_round_sat_inline(x[i]);
}

void gc_f16_madd_n(float *acc, float x, const float *w, size_t n) {
    if (!force_scalar && gc_f16_have_f16c()) { madd_f16c(acc, x, w, n); return; }
    for (size_t i = 0; i < n; i++) acc[i] = gc_f16_round_inline(acc[i] + gc_f16_round_inline(x * w[i]));
}

void gc_f16_vmadd_n(float *acc, const float *x, const float *w, size_t n) {
    if (!force_scalar && gc_f16_have_f16c()) { vmadd_f16c(acc, x, w, n); return; }
    for (size_t i = 0; i < n; i++) acc[i] = gc_f16_round_inline(acc[i] + gc_f16_round_inline(x[i] * w[i]));
}
#else
bool gc_f16_have_f16c(void) { return false; }
void gc_f16_round_sat_n(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = gc_f16_round_sat_inline(x[i]);
}
bool gc_f16_round_n_f16c(float *x, size_t n) { (void)x; (void)n; return false; }
void gc_f16_round_copy(float *y, const float *x, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = gc_f16_round_inline(x[i]);
}
void gc_f16_madd_n(float *acc, float x, const float *w, size_t n) {
    for (size_t i = 0; i < n; i++) acc[i] = gc_f16_round_inline(acc[i] + gc_f16_round_inline(x * w[i]));
}
void gc_f16_vmadd_n(float *acc, const float *x, const float *w, size_t n) {
    for (size_t i = 0; i < n; i++) acc[i] = gc_f16_round_inline(acc[i] + gc_f16_round_inline(x[i] * w[i]));
}
#endif

void gc_f16_round_n(float *x, size_t n) { gc_f16_round_copy(x, x, n); }

/* |d| / q is exact (q a power of two: the half's quantum at d, 2^(e - 10) for |d| in
 * [2^e, 2^(e+1)), e >= -14, else 2^-24), so nearbyint (ties to even, the default rounding
 * mode) rounds it once; |d| >= 65520 rounds past 65504: inf. */
float gc_f16_round_d(double d) {
    if (d != d) return gc_f16_round_inline((float)d);
    const double a = fabs(d);
    if (a >= 65520.0) return d > 0 ? INFINITY : -INFINITY;
    if (a == 0.0) return (float)d;
    int e;
    (void)frexp(a, &e);                                /* a in [2^(e-1), 2^e) */
    const double q = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
    return (float)copysign(nearbyint(a / q) * q, d);
}

void gc_f16_flush_n(float *acc, const float *part, size_t n) {
    for (size_t i = 0; i < n; i++) acc[i] = gc_f16_round_inline(acc[i] + part[i]);
}

void gc_f16_fma_n(float *acc, float x, const float *w, size_t n) {
    for (size_t i = 0; i < n; i++) acc[i] = gc_f16_round_inline(fmaf(x, w[i], acc[i]));
}

void gc_f16_store(int mode, float *x, size_t n) {
    if (mode == GC_F16_STORE_SAT) gc_f16_round_sat_n(x, n);
    else if (mode == GC_F16_STORE_HALF) gc_f16_round_n(x, n);
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
