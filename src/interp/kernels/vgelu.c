/* vgelu.c — float GELU (erf form) with a vector erf (vgelu.h says what it computes). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/kernels/vgelu.h"

/* erf(a), 0 <= a < 4, on two intervals: interval 0, a < ERF_CUT = 2, holds erf(a) / a as a
 * polynomial of degree DEG in u = a^2 (relative accuracy down to the smallest a; then times
 * a); interval 1, [2, 4), erf(a) as one of degree DEG in t = a - ERF_MID (3). u and t are
 * exact in double for a float a. Two intervals so that one blend picks a lane's
 * coefficient, and none is needed where every lane of a step lies in one interval (GELU's
 * inputs mostly have |x| / sqrt 2 < 2). Least-squares fits to erf (mpmath, 40 digits) by
 * tools/verf_fit.py, which prints these arrays; largest relative error of the rounded
 * polynomials, Horner in double with one fma rounding per step: 8.4e-16 on [0, 2),
 * 2.56e-13 on [2, 4). (Session 12's table of 16 intervals needed a gather per coefficient
 * on AVX2; session 13's first try, 4 intervals, a vpermps per coefficient: 3 times a blend.) */
enum { DEG = 16 };
static const double ERF_CUT = 0x1.0000000000000p+1, ERF_MID = 0x1.8000000000000p+1;
static const double ERF_COEF[2][DEG + 1] = {
    { 0x1.20dd750429b6dp+0, -0x1.812746b03799dp-2, 0x1.ce2f21a040d28p-4, -0x1.b82ce3123c860p-6, 0x1.565bcd0854b1bp-8, -0x1.c02db36a90030p-11, 0x1.f9a31d84b45ffp-14, -0x1.f4d1f1ee1660ap-17, 0x1.b9e36c5cfecf9p-20, -0x1.5f600d5c64b6ap-23, 0x1.fc110ed966cb0p-27, -0x1.4f7575744c48bp-30, 0x1.9245a8bf36005p-34, -0x1.a9d38087f6f81p-38, 0x1.73100f2e0ea1dp-42, -0x1.ce69aaa5e1a81p-47, 0x1.2b776f61e93a0p-52 },
    { 0x1.fffd1ac413705p-1, 0x1.2408ea4438fd3p-13, -0x1.b60d5eec516d1p-12, 0x1.9db744a36bf9fp-11, -0x1.11c858e3cd8c2p-10, 0x1.0a7b82a710070p-10, -0x1.82f263e54aa99p-11, 0x1.9986d15708027p-12, -0x1.1aa21f82a56d2p-13, 0x1.d4800e9f7c73ap-17, 0x1.05a6b95027f61p-16, -0x1.6db3f7ff2edbdp-17, 0x1.9b98f392a7a48p-19, 0x1.fcc3457722078p-23, -0x1.06e58026a6569p-21, 0x1.b10e8f99d223cp-24, 0x1.a36c9a5626eeap-27 },
};

/* erf(z) rounded to float, the portable way; the vector code does the same operations */
static inline float erf_f(float z) {
    const double a = fabs((double)z);
    if (!(a < 4.0)) return isnan(z) ? z : copysignf(1.0f, z);   /* erf(4) = 1 - 1.5e-8 */
    const int i = a >= ERF_CUT;
    const double v = i ? a - ERF_MID : a * a;                    /* exact */
    double q = ERF_COEF[i][DEG];
    for (int k = DEG - 1; k >= 0; k--) q = fma(q, v, ERF_COEF[i][k]);
    if (!i) q *= a;
    return copysignf((float)q, z);
}

static inline float gelu_one(float x) { return 0.5f * x * (1.0f + erf_f(x * 0.7071067811865476f)); }

float gc_vgelu_erf(float z) { return erf_f(z); }

static void run_scalar(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = gelu_one(x[i]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#include <immintrin.h>

#define T512 __attribute__((target("avx512f")))
#define INL static inline __attribute__((always_inline))

/* Each step computes NV vectors of doubles at once (16 floats: 4 x 4 doubles on AVX2,
 * 32: 4 x 8 on AVX-512): the Horner chain is DEG dependent fmas (~4 cycles each), so one
 * vector at a time waits on latency; four in flight keep the FMA units busy. */
enum { NV = 4 };

/* ---- AVX2 + FMA (GC_ISA_AVX2 implies FMA): erf_f's operations on 4 doubles per ymm */
#define T256F __attribute__((target("avx2,fma")))

/* erf of NV x 4 lanes, 0 <= a (lanes a >= 4 or NaN give anything; the caller replaces
 * them; NaN compares false: interval 0) */
INL T256F void erf4n(const __m256d *a, __m128 *e) {
    __m256d m[NV], v[NV], q[NV];
    int any = 0, all = 0xf;
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) {
        m[j] = _mm256_cmp_pd(a[j], _mm256_set1_pd(ERF_CUT), _CMP_GE_OQ);
        const int b = _mm256_movemask_pd(m[j]);
        any |= b;
        all &= b;
    }
    if (!any) {                                                  /* every lane in interval 0 */
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) { v[j] = _mm256_mul_pd(a[j], a[j]); q[j] = _mm256_set1_pd(ERF_COEF[0][DEG]); }
#pragma GCC unroll 16
        for (int k = DEG - 1; k >= 0; k--) {
            const __m256d c = _mm256_set1_pd(ERF_COEF[0][k]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++) q[j] = _mm256_fmadd_pd(q[j], v[j], c);
        }
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) q[j] = _mm256_mul_pd(q[j], a[j]);
    } else if (all == 0xf) {                                     /* every lane in interval 1 */
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) { v[j] = _mm256_sub_pd(a[j], _mm256_set1_pd(ERF_MID)); q[j] = _mm256_set1_pd(ERF_COEF[1][DEG]); }
#pragma GCC unroll 16
        for (int k = DEG - 1; k >= 0; k--) {
            const __m256d c = _mm256_set1_pd(ERF_COEF[1][k]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++) q[j] = _mm256_fmadd_pd(q[j], v[j], c);
        }
    } else {                                                     /* mixed: blend per coefficient */
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) {
            v[j] = _mm256_blendv_pd(_mm256_mul_pd(a[j], a[j]), _mm256_sub_pd(a[j], _mm256_set1_pd(ERF_MID)), m[j]);
            q[j] = _mm256_blendv_pd(_mm256_set1_pd(ERF_COEF[0][DEG]), _mm256_set1_pd(ERF_COEF[1][DEG]), m[j]);
        }
#pragma GCC unroll 16
        for (int k = DEG - 1; k >= 0; k--) {
            const __m256d c0 = _mm256_set1_pd(ERF_COEF[0][k]), c1 = _mm256_set1_pd(ERF_COEF[1][k]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++) q[j] = _mm256_fmadd_pd(q[j], v[j], _mm256_blendv_pd(c0, c1, m[j]));
        }
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) q[j] = _mm256_blendv_pd(_mm256_mul_pd(q[j], a[j]), q[j], m[j]);
    }
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) e[j] = _mm256_cvtpd_ps(q[j]);
}

/* y[0, 16) from x[0, 16) */
T256F static void step_256(const float *x, float *y) {
    __m256 v[2], z[2], az[2];
    __m256d a[NV];
    __m128 e[NV];
    for (int h = 0; h < 2; h++) {
        v[h] = _mm256_loadu_ps(x + 8 * h);
        z[h] = _mm256_mul_ps(v[h], _mm256_set1_ps(0.7071067811865476f));
        az[h] = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z[h]);
        a[2 * h] = _mm256_cvtps_pd(_mm256_castps256_ps128(az[h]));
        a[2 * h + 1] = _mm256_cvtps_pd(_mm256_extractf128_ps(az[h], 1));
    }
    erf4n(a, e);
    for (int h = 0; h < 2; h++) {
        __m256 r = _mm256_insertf128_ps(_mm256_castps128_ps256(e[2 * h]), e[2 * h + 1], 1);
        /* |z| >= 4: 1; then z's sign; NaN: z itself */
        r = _mm256_blendv_ps(r, _mm256_set1_ps(1.0f), _mm256_cmp_ps(az[h], _mm256_set1_ps(4.0f), _CMP_GE_OQ));
        r = _mm256_or_ps(r, _mm256_and_ps(z[h], _mm256_set1_ps(-0.0f)));
        r = _mm256_blendv_ps(r, z[h], _mm256_cmp_ps(z[h], z[h], _CMP_UNORD_Q));
        const __m256 half_x = _mm256_mul_ps(_mm256_set1_ps(0.5f), v[h]);
        _mm256_storeu_ps(y + 8 * h, _mm256_mul_ps(half_x, _mm256_add_ps(_mm256_set1_ps(1.0f), r)));
    }
}

T256F static void run_256(const float *x, float *y, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) step_256(x + i, y + i);
    if (i < n) {
        float buf[16] = { 0 };
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        step_256(buf, buf);
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}

/* ---- AVX-512F: erf4n's three cases on 8 doubles per zmm, the blends masked */
INL T512 void erf8n(const __m512d *a, __m256 *e) {
    __m512d v[NV], q[NV];
    __mmask8 m[NV];
    unsigned any = 0, all = 0xff;
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) {
        m[j] = _mm512_cmp_pd_mask(a[j], _mm512_set1_pd(ERF_CUT), _CMP_GE_OQ);
        any |= m[j];
        all &= m[j];
    }
    if (!any) {
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) { v[j] = _mm512_mul_pd(a[j], a[j]); q[j] = _mm512_set1_pd(ERF_COEF[0][DEG]); }
#pragma GCC unroll 16
        for (int k = DEG - 1; k >= 0; k--) {
            const __m512d c = _mm512_set1_pd(ERF_COEF[0][k]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++) q[j] = _mm512_fmadd_pd(q[j], v[j], c);
        }
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) q[j] = _mm512_mul_pd(q[j], a[j]);
    } else if (all == 0xff) {
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) { v[j] = _mm512_sub_pd(a[j], _mm512_set1_pd(ERF_MID)); q[j] = _mm512_set1_pd(ERF_COEF[1][DEG]); }
#pragma GCC unroll 16
        for (int k = DEG - 1; k >= 0; k--) {
            const __m512d c = _mm512_set1_pd(ERF_COEF[1][k]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++) q[j] = _mm512_fmadd_pd(q[j], v[j], c);
        }
    } else {
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) {
            v[j] = _mm512_mask_sub_pd(_mm512_mul_pd(a[j], a[j]), m[j], a[j], _mm512_set1_pd(ERF_MID));
            q[j] = _mm512_mask_blend_pd(m[j], _mm512_set1_pd(ERF_COEF[0][DEG]), _mm512_set1_pd(ERF_COEF[1][DEG]));
        }
#pragma GCC unroll 16
        for (int k = DEG - 1; k >= 0; k--) {
            const __m512d c0 = _mm512_set1_pd(ERF_COEF[0][k]), c1 = _mm512_set1_pd(ERF_COEF[1][k]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++) q[j] = _mm512_fmadd_pd(q[j], v[j], _mm512_mask_blend_pd(m[j], c0, c1));
        }
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++) q[j] = _mm512_mask_mov_pd(_mm512_mul_pd(q[j], a[j]), m[j], q[j]);
    }
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) e[j] = _mm512_cvtpd_ps(q[j]);
}

/* y[0, 32) from x[0, 32) */
T512 static void step_512(const float *x, float *y) {
    const __m512i sgn = _mm512_set1_epi32((int)0x80000000u);
    __m512 v[2], z[2], az[2];
    __m512d a[NV];
    __m256 e[NV];
    for (int h = 0; h < 2; h++) {
        v[h] = _mm512_loadu_ps(x + 16 * h);
        z[h] = _mm512_mul_ps(v[h], _mm512_set1_ps(0.7071067811865476f));
        az[h] = _mm512_castsi512_ps(_mm512_andnot_si512(sgn, _mm512_castps_si512(z[h])));
        a[2 * h] = _mm512_cvtps_pd(_mm512_castps512_ps256(az[h]));
        a[2 * h + 1] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(az[h]), 1)));
    }
    erf8n(a, e);
    for (int h = 0; h < 2; h++) {
        __m512 r = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(e[2 * h])), _mm256_castps_pd(e[2 * h + 1]), 1));
        /* |z| >= 4: 1; NaN: z itself; then z's sign */
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(az[h], _mm512_set1_ps(4.0f), _CMP_GE_OQ), _mm512_set1_ps(1.0f));
        r = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), _mm512_and_si512(_mm512_castps_si512(z[h]), sgn)));
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(z[h], z[h], _CMP_UNORD_Q), z[h]);
        const __m512 half_x = _mm512_mul_ps(_mm512_set1_ps(0.5f), v[h]);
        _mm512_storeu_ps(y + 16 * h, _mm512_mul_ps(half_x, _mm512_add_ps(_mm512_set1_ps(1.0f), r)));
    }
}

T512 static void run_512(const float *x, float *y, size_t n) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) step_512(x + i, y + i);
    if (i < n) {
        float buf[32] = { 0 };
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        step_512(buf, buf);
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}
#endif

void gc_vgelu_run(gc_isa isa, const float *x, float *y, size_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
    if (isa >= GC_ISA_AVX512) { run_512(x, y, n); return; }
    if (isa >= GC_ISA_AVX2) { run_256(x, y, n); return; }
#endif
    (void)isa;
    run_scalar(x, y, n);
}
