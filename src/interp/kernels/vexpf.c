/* vexpf.c — expf over arrays with libm's bits (vexpf.h says how and why it holds). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/kernels/vexpf.h"

/* one element, the plain way (the scalar level, the tails' fallback lanes) */
static inline float one(gc_vexp_op op, float v, const gc_vexp_params *p) {
    float t = op == GC_VEXP_SHIFT ? (v - p->sub) * p->mul : op >= GC_VEXP_LOGISTIC ? -v : v;
    float e = t < p->zero_below ? 0.0f : expf(t);
    return op == GC_VEXP_LOGISTIC ? 1.0f / (1.0f + e) : op == GC_VEXP_SWISH ? v * (1.0f / (1.0f + e)) : e;
}

static void run_scalar(gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p) {
    for (size_t i = 0; i < n; i++) y[i] = one(op, x[i], p);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#include <immintrin.h>

/* The fast range (exp(t) a normal float, far from overflow) and the ambiguity window
 * (vexpf.h): lanes whose double result has |low 29 bits - 2^28| <= WIN call expf. */
#define FAST_LO (-87.0f)
#define FAST_HI 88.5f
#define WIN ((1 << 20) + (1 << 10))

/* exp(t) = 2^(k/16) exp(r), k = round(16 t / ln 2), r = t - k LN2_16 (|r| <= 0.0217; one
 * FMA: LN2_16 is ln2/16 rounded to double, off by 1.5e-18, so r is off by at most 2043 x
 * that = 2^-48.3 relative in exp(r)); 2^(k/16) = 2^floor(k/16) TAB[k mod 16] (TAB: 2^(j/16)
 * rounded to double); exp(r) by a degree-5 polynomial fitted for relative error on
 * [-0.0217, 0.0217] (Lawson's iteration, mpmath: 2^-47.2 at most on 4001 points). With the
 * roundings, |m - e^t| < 2^-46 e^t. */
static const double TAB[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0,
};
/* the polynomial's coefficients of r^5 down to r^0 */
static const double C[6] = { 0x1.110c594bd1dd8p-7, 0x1.55575f329f966p-5, 0x1.55555560e822ap-3,
                             0x1.fffffffd143f9p-2, 0x1.ffffffffffe8bp-1, 0x1.0000000000011p+0 };
#define K_SCALE 0x1.71547652b82fep+4                /* 16 / ln 2 */
#define LN2_16 0x1.62e42fefa39efp-5                 /* ln 2 / 16 rounded to double */
#define MAGIC 0x1.8p52                              /* 16 t / ln2 + MAGIC: k in the low bits */
/* 2^floor(k/16) added to TAB[k mod 16]'s exponent: ((k << 48) with k's low 4 bits cleared)
 * is floor(k/16) << 52 modulo 2^64 (a negative k borrows from bits past 63: the same sum) */
#define EXP_MASK 0xfff0000000000000ull

#define T512 __attribute__((target("avx512f")))
#define T256 __attribute__((target("avx2,fma")))
#define INL static inline __attribute__((always_inline))

/* ---- AVX-512F: 16 floats a step, two halves of 8 doubles ---------------------------- */

/* m = exp(t) in double for 8 lanes; *amb = the lanes near a float midpoint */
INL T512 __m256 exp8_512(__m256 tf, __mmask8 *amb) {
    const __m512d t = _mm512_cvtps_pd(tf);
    const __m512d kd = _mm512_fmadd_pd(t, _mm512_set1_pd(K_SCALE), _mm512_set1_pd(MAGIC));
    const __m512d k = _mm512_sub_pd(kd, _mm512_set1_pd(MAGIC));
    const __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(LN2_16), t);
    __m512d q = _mm512_set1_pd(C[0]);
    for (int i = 1; i < 6; i++) q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(C[i]));
    const __m512i kb = _mm512_castpd_si512(kd);                 /* k in the low bits */
    const __m512d tab = _mm512_permutex2var_pd(_mm512_loadu_pd(TAB), kb, _mm512_loadu_pd(TAB + 8));
    const __m512i sc = _mm512_add_epi64(_mm512_castpd_si512(tab),
                                        _mm512_and_si512(_mm512_slli_epi64(kb, 48), _mm512_set1_epi64((long long)EXP_MASK)));
    const __m512d m = _mm512_mul_pd(q, _mm512_castsi512_pd(sc));
    const __m512i low = _mm512_and_si512(_mm512_castpd_si512(m), _mm512_set1_epi64((1 << 29) - 1));
    /* |low - 2^28| <= WIN  <=>  low - (2^28 - WIN) <= 2 WIN (unsigned) */
    *amb = _mm512_cmple_epu64_mask(_mm512_sub_epi64(low, _mm512_set1_epi64((1 << 28) - WIN)),
                                   _mm512_set1_epi64(2 * WIN));
    return _mm512_cvtpd_ps(m);
}

/* y[0, 16) from x[0, 16); returns the lanes still to compute the plain way (neither
 * fast and unambiguous nor zero), whose inputs the caller kept (x may be y). No call in
 * here, so that the constants stay in registers across the loop. */
INL T512 __mmask16 step_512(const gc_vexp_op op, const float *x, float *y, const gc_vexp_params *p) {
    const __m512 sub = _mm512_set1_ps(p->sub), mul = _mm512_set1_ps(p->mul), one1 = _mm512_set1_ps(1.0f);
    const __m512 zb = _mm512_set1_ps(p->zero_below);
    const __m512 lo = _mm512_set1_ps(FAST_LO), hi = _mm512_set1_ps(FAST_HI);
    const __m512 v = _mm512_loadu_ps(x);
    const __m512 t = op == GC_VEXP_SHIFT ? _mm512_mul_ps(_mm512_sub_ps(v, sub), mul)
                   : op >= GC_VEXP_LOGISTIC ? _mm512_sub_ps(_mm512_setzero_ps(), v) : v;
    /* ordered compares: NaN is in neither range and takes expf */
    const __mmask16 fast = _mm512_cmp_ps_mask(t, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(t, hi, _CMP_LE_OQ);
    const __mmask16 zero = _mm512_cmp_ps_mask(t, zb, _CMP_LT_OQ);
    __mmask8 a0, a1;
    const __m256 e0 = exp8_512(_mm512_castps512_ps256(t), &a0);
    const __m256 e1 = exp8_512(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(t), 1)), &a1);
    __m512 e = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(e0)), _mm256_castps_pd(e1), 1));
    e = _mm512_maskz_mov_ps((__mmask16)~zero, e);
    if (op >= GC_VEXP_LOGISTIC) e = _mm512_div_ps(one1, _mm512_add_ps(one1, e));
    if (op == GC_VEXP_SWISH) e = _mm512_mul_ps(v, e);
    _mm512_storeu_ps(y, e);
    const __mmask16 amb = (__mmask16)(a0 | ((unsigned)a1 << 8));
    return (__mmask16)(~(fast & ~amb) & ~zero);
}

/* Blocks of 16 in chunks of CH: the vector pass over a chunk keeps each block's inputs
 * (xin) and its slow lanes (sl), then the slow lanes (about 0.4 % of random arguments,
 * vexpf.h) are computed the plain way from the kept inputs. */
enum { CH = 256 };

/* the lanes of `m` the plain way: y[l] = one(op, xin[l]) */
static void redo_lanes(gc_vexp_op op, unsigned m, const float *xin, float *y, const gc_vexp_params *p) {
    for (; m; m &= m - 1) {
        const int l = __builtin_ctz(m);
        y[l] = one(op, xin[l], p);
    }
}

INL T512 void run_512(const gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p) {
    float xin[CH];
    __mmask16 sl[CH / 16];
    size_t i = 0;
    for (; i + 16 <= n;) {
        const size_t nb = (n - i) / 16 < CH / 16 ? (n - i) / 16 : CH / 16;
        unsigned any = 0;
        for (size_t b = 0; b < nb; b++) {
            _mm512_storeu_ps(xin + 16 * b, _mm512_loadu_ps(x + i + 16 * b));
            sl[b] = step_512(op, x + i + 16 * b, y + i + 16 * b, p);
            any |= sl[b];
        }
        for (size_t b = 0; any && b < nb; b++) redo_lanes(op, sl[b], xin + 16 * b, y + i + 16 * b, p);
        i += 16 * nb;
    }
    if (i < n) {                                     /* the tail through a padded block */
        float buf[16] = { 0 }, keep[16];
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        memcpy(keep, buf, sizeof keep);
        redo_lanes(op, step_512(op, buf, buf, p), keep, buf, p);
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}

T512 static void run_512_plain(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_PLAIN, x, y, n, p); }
T512 static void run_512_shift(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_SHIFT, x, y, n, p); }
T512 static void run_512_logistic(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_LOGISTIC, x, y, n, p); }
T512 static void run_512_swish(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_SWISH, x, y, n, p); }

/* ---- AVX2 + FMA: 8 floats a step, two halves of 4 doubles --------------------------- */

INL T256 __m128 exp4_256(__m128 tf, int *amb) {
    const __m256d t = _mm256_cvtps_pd(tf);
    const __m256d kd = _mm256_fmadd_pd(t, _mm256_set1_pd(K_SCALE), _mm256_set1_pd(MAGIC));
    const __m256d k = _mm256_sub_pd(kd, _mm256_set1_pd(MAGIC));
    const __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(LN2_16), t);
    __m256d q = _mm256_set1_pd(C[0]);
    for (int i = 1; i < 6; i++) q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(C[i]));
    const __m256i kb = _mm256_castpd_si256(kd);
    const __m256d tab = _mm256_i64gather_pd(TAB, _mm256_and_si256(kb, _mm256_set1_epi64x(15)), 8);
    const __m256i sc = _mm256_add_epi64(_mm256_castpd_si256(tab),
                                        _mm256_and_si256(_mm256_slli_epi64(kb, 48), _mm256_set1_epi64x((long long)EXP_MASK)));
    const __m256d m = _mm256_mul_pd(q, _mm256_castsi256_pd(sc));
    const __m256i low = _mm256_and_si256(_mm256_castpd_si256(m), _mm256_set1_epi64x((1 << 29) - 1));
    /* d = low - (2^28 - WIN) lies in (-2^28, 2^29): ambiguous when 0 <= d <= 2 WIN */
    const __m256i d = _mm256_sub_epi64(low, _mm256_set1_epi64x((1 << 28) - WIN));
    const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), d),
                                        _mm256_cmpgt_epi64(d, _mm256_set1_epi64x(2 * WIN)));
    *amb = ~_mm256_movemask_pd(_mm256_castsi256_pd(out)) & 0xf;
    return _mm256_cvtpd_ps(m);
}

INL T256 void step_256(const gc_vexp_op op, const float *x, float *y, const gc_vexp_params *p) {
    const __m256 sub = _mm256_set1_ps(p->sub), mul = _mm256_set1_ps(p->mul), one1 = _mm256_set1_ps(1.0f);
    const __m256 zb = _mm256_set1_ps(p->zero_below);
    const __m256 lo = _mm256_set1_ps(FAST_LO), hi = _mm256_set1_ps(FAST_HI);
    {
        const __m256 v = _mm256_loadu_ps(x);
        const __m256 t = op == GC_VEXP_SHIFT ? _mm256_mul_ps(_mm256_sub_ps(v, sub), mul)
                       : op >= GC_VEXP_LOGISTIC ? _mm256_sub_ps(_mm256_setzero_ps(), v) : v;
        const __m256 fastv = _mm256_and_ps(_mm256_cmp_ps(t, lo, _CMP_GE_OQ), _mm256_cmp_ps(t, hi, _CMP_LE_OQ));
        const __m256 zerov = _mm256_cmp_ps(t, zb, _CMP_LT_OQ);
        int a0, a1;
        const __m128 e0 = exp4_256(_mm256_castps256_ps128(t), &a0);
        const __m128 e1 = exp4_256(_mm256_extractf128_ps(t, 1), &a1);
        __m256 e = _mm256_andnot_ps(zerov, _mm256_insertf128_ps(_mm256_castps128_ps256(e0), e1, 1));
        if (op >= GC_VEXP_LOGISTIC) e = _mm256_div_ps(one1, _mm256_add_ps(one1, e));
        if (op == GC_VEXP_SWISH) e = _mm256_mul_ps(v, e);
        _mm256_storeu_ps(y, e);
        const unsigned fast = (unsigned)_mm256_movemask_ps(fastv), zero = (unsigned)_mm256_movemask_ps(zerov);
        unsigned slow = (~(fast & ~((unsigned)a0 | ((unsigned)a1 << 4))) & ~zero) & 0xffu;
        if (slow) {
            float vin[8];
            _mm256_storeu_ps(vin, v);
            while (slow) {
                int l = __builtin_ctz(slow);
                slow &= slow - 1;
                y[l] = one(op, vin[l], p);
            }
        }
    }
}

INL T256 void run_256(const gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) step_256(op, x + i, y + i, p);
    if (i < n) {
        float buf[8] = { 0 };
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        step_256(op, buf, buf, p);
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}

T256 static void run_256_plain(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_PLAIN, x, y, n, p); }
T256 static void run_256_shift(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_SHIFT, x, y, n, p); }
T256 static void run_256_logistic(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_LOGISTIC, x, y, n, p); }
T256 static void run_256_swish(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_SWISH, x, y, n, p); }
#endif

void gc_vexpf_run(gc_isa isa, gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
    if (isa >= GC_ISA_AVX512) {
        if (op == GC_VEXP_SHIFT) run_512_shift(x, y, n, p);
        else if (op == GC_VEXP_LOGISTIC) run_512_logistic(x, y, n, p);
        else if (op == GC_VEXP_SWISH) run_512_swish(x, y, n, p);
        else run_512_plain(x, y, n, p);
        return;
    }
    if (isa >= GC_ISA_AVX2) {
        if (op == GC_VEXP_SHIFT) run_256_shift(x, y, n, p);
        else if (op == GC_VEXP_LOGISTIC) run_256_logistic(x, y, n, p);
        else if (op == GC_VEXP_SWISH) run_256_swish(x, y, n, p);
        else run_256_plain(x, y, n, p);
        return;
    }
#endif
    (void)isa;
    run_scalar(op, x, y, n, p);
}
