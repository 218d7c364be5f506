/* vgelu.c — float GELU (erf form) with a vector erf (vgelu.h says what it computes). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/kernels/vgelu.h"

/* erf(a), 0 <= a < 4, on 16 intervals of 1/4: interval i = floor(4a); interval 0 holds the
 * odd polynomial a (c1 + c3 a^2 + ...) in a (even coefficients 0: relative accuracy down
 * to the smallest a), the others a polynomial of degree DEG in t = a - MID[i]. Least-
 * squares fits to erf (mpmath, 40 digits) on 400 Chebyshev nodes per interval; largest
 * relative error over 2000 points per interval, Horner in double: 1.6e-12 (interval 0),
 * 1.3e-14 elsewhere. */
enum { DEG = 9 };
static const double MID[16] = {
    0.0, 0x1.8000000000000p-2, 0x1.4000000000000p-1, 0x1.c000000000000p-1, 0x1.2000000000000p+0, 0x1.6000000000000p+0, 0x1.a000000000000p+0, 0x1.e000000000000p+0,
    0x1.1000000000000p+1, 0x1.3000000000000p+1, 0x1.5000000000000p+1, 0x1.7000000000000p+1, 0x1.9000000000000p+1, 0x1.b000000000000p+1, 0x1.d000000000000p+1, 0x1.f000000000000p+1,
};
static const double COEF[DEG + 1][16] = {
    { 0.0, 0x1.9dd0d2b721efbp-2, 0x1.3f196dcd0f12cp-1, 0x1.91724951b8fd9p-1, 0x1.c6dad2829ec7dp-1, 0x1.e5768c3b4a408p-1, 0x1.f4f693b67bd75p-1, 0x1.fbe61eef4cf6bp-1,
      0x1.fea4218d6594fp-1, 0x1.ff9960f3eb32dp-1, 0x1.ffe514bbdc1a0p-1, 0x1.fff9ba420e83dp-1, 0x1.fffeb3ebb2680p-1, 0x1.ffffc316d9ed8p-1, 0x1.fffff618c3dadp-1, 0x1.fffffe92ced9ap-1 },
    { 0x1.20dd750428f14p+0, 0x1.f5f0cdaf15320p-1, 0x1.86e9694134be1p-1, 0x1.0cab61f084bc2p-1, 0x1.45e99bcbb791cp-2, 0x1.5ce595c455ab2p-3, 0x1.499d478bca6f6p-4, 0x1.12ceb37ff9d88p-5,
      0x1.94624e78e157ep-7, 0x1.06918b6355bfcp-8, 0x1.2ce8988094974p-10, 0x1.30538fbb7eb92p-12, 0x1.0f9e1b4de8a20p-14, 0x1.abe09e92b8114p-17, 0x1.296a70f716bd0p-19, 0x1.6ce1aa6245c58p-22 },
    { 0.0, -0x1.78749a431cdc9p-2, -0x1.e8a3c3916f390p-2, -0x1.d62beb64ff444p-2, -0x1.6ea6cf454c430p-2, -0x1.dfbbadee06a53p-3, -0x1.0bcfca21828dfp-3, -0x1.01a1c847d36d3p-4,
      -0x1.ada8736040ab0p-6, -0x1.37ccd58628fe0p-7, -0x1.8af14829dafddp-9, -0x1.b5781e9faf5fep-11, -0x1.a8670aabe8b03p-13, -0x1.690585d36b864p-15, -0x1.0d8876707e5fdp-17, -0x1.617a9da1f0bb3p-20 },
    { -0x1.8127469f24b9cp-2, -0x1.e106c51d314adp-3, -0x1.c8105022c565cp-5, 0x1.7c9d7569a1c32p-4, 0x1.4cb3cf0a9e5a6p-3, 0x1.4374d82e22310p-3, 0x1.d6631e1a3fcf8p-4, 0x1.143d1c6f162b9p-4,
      0x1.0ea475d9d655dp-5, 0x1.c1ec102d66720p-7, 0x1.407fbd1690497p-8, 0x1.89e17c0046ed3p-10, 0x1.a3737e14c3611p-12, 0x1.84522f2535d37p-14, 0x1.394b1e105398bp-16, 0x1.b95f913e71bfep-19 },
    { 0.0, 0x1.5529ab00aee5dp-3, 0x1.6963c858f8837p-3, 0x1.cc6057351f78ep-4, 0x1.ca5086cbf86a4p-6, -0x1.f3b8d42067d3dp-6, -0x1.974c03f83366ep-5, -0x1.5a3165bcb1523p-5,
      -0x1.afe554590ea9fp-6, -0x1.ae5960fcea2c9p-7, -0x1.62d4c5c519b76p-8, -0x1.ed4ac5c3a1675p-10, -0x1.24544e0d0ce91p-11, -0x1.298f8a78f7126p-13, -0x1.057604dab7970p-15, -0x1.8e1f7c7667621p-18 },
    { 0x1.ce2efb3cb62bep-4, 0x1.7488b9065aba3p-5, -0x1.c1242a4560a01p-6, -0x1.1350f41e14ecap-4, -0x1.f65d1602136ffp-5, -0x1.f572c628b8108p-6, -0x1.17d43507683a1p-9, 0x1.779b20543b348p-7,
      0x1.9973b6730cb58p-7, 0x1.11dae56a18e25p-7, 0x1.146c4db80cd0cp-8, 0x1.c11f2e5ee01a4p-10, 0x1.2e7e8157f7142p-11, 0x1.5775df46ecbbdp-13, 0x1.4c20c24e0ae0cp-15, 0x1.137664911acdfp-17 },
    { 0.0, -0x1.9a77091bba771p-5, -0x1.52b1953d1f350p-5, -0x1.53bf4d6b1c7b2p-7, 0x1.fd173e6169757p-7, 0x1.6b16399e8ae54p-6, 0x1.d8598665df7f8p-7, 0x1.0d0d0c66a2031p-8,
      -0x1.dd74b191847cap-10, -0x1.982c318c16429p-9, -0x1.2680a99920f08p-9, -0x1.2ade7daf483e4p-10, -0x1.da4a827184d7fp-12, -0x1.330b8980f31b5p-13, -0x1.4b997e00db19dp-15, -0x1.2ec1e401c46f5p-17 },
    { -0x1.b8106eba3eb17p-6, -0x1.65c299b79d722p-8, 0x1.c7c97dee9eeccp-7, 0x1.30aae241e7e1dp-6, 0x1.3acce4331cdeep-7, -0x1.73f23d8ab1c32p-10, -0x1.954966686ffd3p-8, -0x1.42fe7e2f792bbp-8,
      -0x1.ea0b0168837dfp-10, 0x1.02682392e681ap-13, 0x1.64f14d42a009ap-11, 0x1.151a2fd829198p-11, 0x1.1764d570a12ffp-12, 0x1.ac4a800ef058cp-14, 0x1.0804cb1fa258cp-15, 0x1.0ba2e969af9e6p-17 },
    { 0.0, 0x1.6e0b1e7386e37p-7, 0x1.b44faeafa843fp-8, -0x1.daca22e116419p-10, -0x1.884fe70e1ac36p-8, -0x1.166adee55e4aep-8, -0x1.357fb4df9cb5bp-11, 0x1.7309f63571926p-10,
      0x1.69668d2c27a51p-10, 0x1.38a2a2fccb530p-11, 0x1.3bc7129ab2556p-15, -0x1.1971dede2076fp-13, -0x1.d1bcecfdb7857p-14, -0x1.cc56bb1faa1a9p-15, -0x1.51dfc37c9ee3cp-16, -0x1.861ea7a049bdfp-18 },
    { 0x1.4dead88c4d31cp-8, 0x1.0f93f041eb6afp-13, -0x1.d8441b24ef275p-9, -0x1.a889edbc7083ep-9, -0x1.7f53c84bb5163p-12, 0x1.9a0f5db213448p-10, 0x1.70730be041192p-10, 0x1.80ffcbbf181ffp-12,
      -0x1.2a12738176cd1p-12, -0x1.5f765c3e19a63p-12, -0x1.3cda04a5b04eap-13, -0x1.fd3833d0be30dp-17, 0x1.b901cd59b0a8bp-16, 0x1.8c1457f0ea0c6p-16, 0x1.7e7df41610282p-17, 0x1.651fdf69635acp-18 },
};

/* erf(z) rounded to float, the portable way; the vector code does the same operations */
static inline float erf_f(float z) {
    const double a = fabs((double)z);
    if (!(a < 4.0)) return isnan(z) ? z : copysignf(1.0f, z);   /* erf(4) = 1 - 1.5e-8 */
    const int i = (int)(a * 4.0);
    const double t = a - MID[i];                               /* exact */
    double q = COEF[DEG][i];
    for (int k = DEG - 1; k >= 0; k--) q = fma(q, t, COEF[k][i]);
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

/* ---- AVX2 + FMA (GC_ISA_AVX2 implies FMA): erf8 / step_512's operations on 4 doubles per
 * ymm, the table entries fetched with gathers (AVX2 has no two-register permute); the
 * portable loop calling libm's fma() took 55 % of vit_tiny on Zen 3 */
#define T256F __attribute__((target("avx2,fma")))

/* erf of 4 lanes, 0 <= a (lanes a >= 4 or NaN give anything; the caller replaces them) */
INL T256F __m128 erf4(__m256d a) {
    /* floor(4a) = (int)(4a) for a >= 0; clamped so that every lane's gathers stay in the
     * tables (NaN converts to INT_MIN: lane 0) */
    __m128i idx = _mm256_cvttpd_epi32(_mm256_mul_pd(a, _mm256_set1_pd(4.0)));
    idx = _mm_max_epi32(_mm_min_epi32(idx, _mm_set1_epi32(15)), _mm_setzero_si128());
#define TAB(arr) _mm256_i32gather_pd((arr), idx, 8)
    const __m256d t = _mm256_sub_pd(a, TAB(MID));
    __m256d q = TAB(COEF[DEG]);
    for (int k = DEG - 1; k >= 0; k--) q = _mm256_fmadd_pd(q, t, TAB(COEF[k]));
#undef TAB
    return _mm256_cvtpd_ps(q);
}

T256F static void step_256(const float *x, float *y) {
    const __m256 v = _mm256_loadu_ps(x);
    const __m256 z = _mm256_mul_ps(v, _mm256_set1_ps(0.7071067811865476f));
    const __m256 sign = _mm256_and_ps(z, _mm256_set1_ps(-0.0f));
    const __m256 az = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z);
    const __m128 e0 = erf4(_mm256_cvtps_pd(_mm256_castps256_ps128(az)));
    const __m128 e1 = erf4(_mm256_cvtps_pd(_mm256_extractf128_ps(az, 1)));
    __m256 e = _mm256_insertf128_ps(_mm256_castps128_ps256(e0), e1, 1);
    /* |z| >= 4: 1; then z's sign; NaN: z itself */
    e = _mm256_blendv_ps(e, _mm256_set1_ps(1.0f), _mm256_cmp_ps(az, _mm256_set1_ps(4.0f), _CMP_GE_OQ));
    e = _mm256_or_ps(e, sign);
    e = _mm256_blendv_ps(e, z, _mm256_cmp_ps(z, z, _CMP_UNORD_Q));
    const __m256 half_x = _mm256_mul_ps(_mm256_set1_ps(0.5f), v);
    _mm256_storeu_ps(y, _mm256_mul_ps(half_x, _mm256_add_ps(_mm256_set1_ps(1.0f), e)));
}

T256F static void run_256(const float *x, float *y, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) step_256(x + i, y + i);
    if (i < n) {
        float buf[8] = { 0 };
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        step_256(buf, buf);
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}

/* erf of 8 lanes, 0 <= a (lanes a >= 4 or NaN give anything; the caller replaces them) */
INL T512 __m256 erf8(__m512d a) {
    /* floor(4a) in the low bits of a double (4a < 16 here: exact) */
    const __m512i idx = _mm512_castpd_si512(_mm512_add_pd(
        _mm512_roundscale_pd(_mm512_mul_pd(a, _mm512_set1_pd(4.0)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
        _mm512_set1_pd(0x1.8p52)));
#define TAB(arr) _mm512_permutex2var_pd(_mm512_loadu_pd(arr), idx, _mm512_loadu_pd((arr) + 8))
    const __m512d t = _mm512_sub_pd(a, TAB(MID));
    __m512d q = TAB(COEF[DEG]);
    for (int k = DEG - 1; k >= 0; k--) q = _mm512_fmadd_pd(q, t, TAB(COEF[k]));
#undef TAB
    return _mm512_cvtpd_ps(q);
}

T512 static void step_512(const float *x, float *y) {
    const __m512 v = _mm512_loadu_ps(x);
    const __m512 z = _mm512_mul_ps(v, _mm512_set1_ps(0.7071067811865476f));
    const __m512i sign = _mm512_and_si512(_mm512_castps_si512(z), _mm512_set1_epi32((int)0x80000000u));
    const __m512 az = _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_set1_epi32((int)0x80000000u), _mm512_castps_si512(z)));
    const __m256 e0 = erf8(_mm512_cvtps_pd(_mm512_castps512_ps256(az)));
    const __m256 e1 = erf8(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(az), 1))));
    __m512 e = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(e0)), _mm256_castps_pd(e1), 1));
    /* |z| >= 4: 1; NaN: z itself; then z's sign */
    e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(az, _mm512_set1_ps(4.0f), _CMP_GE_OQ), _mm512_set1_ps(1.0f));
    e = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(e), sign));
    e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(z, z, _CMP_UNORD_Q), z);
    const __m512 half_x = _mm512_mul_ps(_mm512_set1_ps(0.5f), v);
    _mm512_storeu_ps(y, _mm512_mul_ps(half_x, _mm512_add_ps(_mm512_set1_ps(1.0f), e)));
}

T512 static void run_512(const float *x, float *y, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) step_512(x + i, y + i);
    if (i < n) {
        float buf[16] = { 0 };
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
