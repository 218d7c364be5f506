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
#define WIN ((1 << 20) + (1 << 16))

/* exp(t) = 2^(k/16) exp(r), k = round(16 t / ln 2), r = t - k LN2_16 (|r| <= 0.0217; one
 * FMA: LN2_16 is ln2/16 rounded to double, off by 1.5e-18, so r is off by at most 2043 x
 * that = 2^-48.3 relative in exp(r)); 2^(k/16) = 2^floor(k/16) TAB[k mod 16] (TAB[j]: 2^(j/16)
 * rounded to double, held as bits in TABK below); exp(r) by a degree-4 polynomial fitted for
 * relative error on [-0.02167, 0.02167] (ln2/32 (1 + 1e-6); Remez in mpmath, then the coefficients rounded
 * to double: 2^-38.55 at most on 200001 points, the equioscillation bound of the fit).
 * With Horner's roundings in double (4 steps, < 2^-50.9), TAB's and the last product's
 * (2^-53 each) and r's error: |m - e^t| < 2^-38.5 e^t. */
#define TJ(u, j) ((uint64_t)(u) - ((uint64_t)(j) << 48))       /* TABK[j] from bits(TAB[j]) */
static const uint64_t TABK[16] = {      /* bits(TAB[j]): 0x1.0p+0, 0x1.0b5586cf9890fp+0, ... */
    TJ(0x3ff0000000000000ull, 0), TJ(0x3ff0b5586cf9890full, 1), TJ(0x3ff172b83c7d517bull, 2), TJ(0x3ff2387a6e756238ull, 3),
    TJ(0x3ff306fe0a31b715ull, 4), TJ(0x3ff3dea64c123422ull, 5), TJ(0x3ff4bfdad5362a27ull, 6), TJ(0x3ff5ab07dd485429ull, 7),
    TJ(0x3ff6a09e667f3bcdull, 8), TJ(0x3ff7a11473eb0187ull, 9), TJ(0x3ff8ace5422aa0dbull, 10), TJ(0x3ff9c49182a3f090ull, 11),
    TJ(0x3ffae89f995ad3adull, 12), TJ(0x3ffc199bdd85529cull, 13), TJ(0x3ffd5818dcfba487ull, 14), TJ(0x3ffea4afa2a490daull, 15),
};
/* the polynomial's coefficients of r^4 down to r^0 (tools/vexpf_fit.py) */
#define NC 5
static const double C[NC] = { 0x1.5553a004c70eep-5, 0x1.5557e54b8e892p-3, 0x1.00000005bec02p-1,
                              0x1.fffffffb1374dp-1, 0x1.ffffffffffe6cp-1 };
#define K_SCALE 0x1.71547652b82fep+4                /* 16 / ln 2 */
#define LN2_16 0x1.62e42fefa39efp-5                 /* ln 2 / 16 rounded to double */
#define MAGIC 0x1.8p52                              /* 16 t / ln2 + MAGIC: k in the low bits */
/* 2^floor(k/16) TAB[j], j = k mod 16, as bits: kb = bits(kd) holds k mod 2^16 in its low 16
 * bits, so (kb << 48) = k << 48 modulo 2^64 = (floor(k/16) << 52) + (j << 48) (a negative
 * k borrows from bits past 63: the same sum). TABK[j] = bits(TAB[j]) - (j << 48) takes the
 * j << 48 back: TABK[j] + (kb << 48) = bits(TAB[j]) + (floor(k/16) << 52), TAB[j] with
 * floor(k/16) added to its exponent (the result a normal double over the fast range). */
#define T512 __attribute__((target("avx512f")))
#define T256 __attribute__((target("avx2,fma")))
#define INL static inline __attribute__((always_inline))

/* ---- AVX-512F: nv (1 or 2) vectors of 16 floats a step, each as two halves of 8 doubles,
 * every stage written across all 2 nv halves so that the independent chains interleave (one
 * vector's chain is about 60 cycles of latency: the scheduler cannot overlap enough of
 * them on its own) ---- */

/* e[0, 16 nv) = (t < zb ? +0 : expf(t)), t = T(x[i]), from x[0, 16 nv); sl[j] = the lanes
 * of vector j still to compute the plain way (neither fast and unambiguous nor zero: their
 * e is left as the vector gave it). No call in here, so that the constants stay in
 * registers across the loop. */
INL T512 void exp_512(const gc_vexp_op op, const int nv, const float *x, float *eo, const gc_vexp_params *p,
                      __mmask16 *sl) {
    enum { MV = 2 };
    const __m512 sub = _mm512_set1_ps(p->sub), mul = _mm512_set1_ps(p->mul);
    const __m512 zb = _mm512_set1_ps(p->zero_below);
    const __m512 lo = _mm512_set1_ps(FAST_LO), hi = _mm512_set1_ps(FAST_HI);
    __m512 v[MV], t[MV];
    __m512d d[2 * MV], kd[2 * MV], q[2 * MV];
    __mmask16 fast[MV], zero[MV];
#pragma GCC unroll 4
    for (int j = 0; j < nv; j++) {
        v[j] = _mm512_loadu_ps(x + 16 * j);
        t[j] = op == GC_VEXP_SHIFT ? _mm512_mul_ps(_mm512_sub_ps(v[j], sub), mul)
             : op >= GC_VEXP_LOGISTIC ? _mm512_sub_ps(_mm512_setzero_ps(), v[j]) : v[j];
        /* ordered compares: NaN is in neither range and takes expf */
        fast[j] = _mm512_cmp_ps_mask(t[j], lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(t[j], hi, _CMP_LE_OQ);
        zero[j] = _mm512_cmp_ps_mask(t[j], zb, _CMP_LT_OQ);
        d[2 * j] = _mm512_cvtps_pd(_mm512_castps512_ps256(t[j]));
        d[2 * j + 1] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(t[j]), 1)));
    }
    /* m = exp(d) in double (see the constants) */
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++) kd[h] = _mm512_fmadd_pd(d[h], _mm512_set1_pd(K_SCALE), _mm512_set1_pd(MAGIC));
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++)             /* r, in place of d */
        d[h] = _mm512_fnmadd_pd(_mm512_sub_pd(kd[h], _mm512_set1_pd(MAGIC)), _mm512_set1_pd(LN2_16), d[h]);
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++) q[h] = _mm512_fmadd_pd(_mm512_set1_pd(C[0]), d[h], _mm512_set1_pd(C[1]));
#pragma GCC unroll 4
    for (int i = 2; i < NC; i++)
#pragma GCC unroll 8
        for (int h = 0; h < 2 * nv; h++) q[h] = _mm512_fmadd_pd(q[h], d[h], _mm512_set1_pd(C[i]));
    __m256 ef[2 * MV];
    __mmask8 amb[2 * MV];
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++) {
        const __m512i kb = _mm512_castpd_si512(kd[h]);                 /* k in the low bits */
        const __m512i tab = _mm512_permutex2var_epi64(_mm512_loadu_si512(TABK), kb, _mm512_loadu_si512(TABK + 8));
        const __m512i sc = _mm512_add_epi64(tab, _mm512_slli_epi64(kb, 48));
        const __m512d m = _mm512_mul_pd(q[h], _mm512_castsi512_pd(sc));
        const __m512i low = _mm512_and_si512(_mm512_castpd_si512(m), _mm512_set1_epi64((1 << 29) - 1));
        /* |low - 2^28| <= WIN  <=>  low - (2^28 - WIN) <= 2 WIN (unsigned) */
        amb[h] = _mm512_cmple_epu64_mask(_mm512_sub_epi64(low, _mm512_set1_epi64((1 << 28) - WIN)),
                                         _mm512_set1_epi64(2 * WIN));
        ef[h] = _mm512_cvtpd_ps(m);
    }
#pragma GCC unroll 4
    for (int j = 0; j < nv; j++) {
        __m512 e = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(ef[2 * j])),
                                                       _mm256_castps_pd(ef[2 * j + 1]), 1));
        _mm512_storeu_ps(eo + 16 * j, _mm512_maskz_mov_ps((__mmask16)~zero[j], e));
        const __mmask16 a = (__mmask16)(amb[2 * j] | ((unsigned)amb[2 * j + 1] << 8));
        sl[j] = (__mmask16)(~(fast[j] & ~a) & ~zero[j]);
    }
}

/* Blocks of 16 in chunks of CH, in two passes over each chunk: exp_512 writes e = expf(t)
 * to a buffer (and notes the slow lanes: about 0.4 % of random arguments, vexpf.h), the
 * slow lanes' e are computed by expf from x, then y = E(e) (e itself for PLAIN / SHIFT)
 * in float. Same bits as a one-pass loop (E is the same float operations on the same e),
 * and each pass's chains are short enough to overlap (the division at the end of one
 * long chain held everything behind it). x may be y: x is read before y is written. */
enum { CH = 256 };

/* e[l] = expf(T(x[l])) for the lanes of `m` (never zero lanes: t < zb is not slow) */
static void redo_exp(gc_vexp_op op, unsigned m, const float *x, float *e, const gc_vexp_params *p) {
    for (; m; m &= m - 1) {
        const int l = __builtin_ctz(m);
        const float v = x[l], t = op == GC_VEXP_SHIFT ? (v - p->sub) * p->mul : op >= GC_VEXP_LOGISTIC ? -v : v;
        e[l] = expf(t);
    }
}

/* y[0, 16 nb) = E(e, x) */
INL T512 void fin_512(const gc_vexp_op op, const float *x, const float *e, float *y, size_t nb) {
    const __m512 one1 = _mm512_set1_ps(1.0f);
    for (size_t b = 0; b < nb; b++) {
        __m512 r = _mm512_loadu_ps(e + 16 * b);
        if (op >= GC_VEXP_LOGISTIC) r = _mm512_div_ps(one1, _mm512_add_ps(one1, r));
        if (op == GC_VEXP_SWISH) r = _mm512_mul_ps(_mm512_loadu_ps(x + 16 * b), r);
        _mm512_storeu_ps(y + 16 * b, r);
    }
}

/* one chunk of nb full blocks (nb <= CH / 16) */
INL T512 void chunk_512(const gc_vexp_op op, const float *x, float *y, size_t nb, const gc_vexp_params *p) {
    float eb[CH];
    __mmask16 sl[CH / 16];
    size_t b = 0;
    for (; b + 2 <= nb; b += 2) exp_512(op, 2, x + 16 * b, eb + 16 * b, p, sl + b);
    for (; b < nb; b++) exp_512(op, 1, x + 16 * b, eb + 16 * b, p, sl + b);
    unsigned any = 0;
    for (b = 0; b < nb; b++) any |= sl[b];
    for (b = 0; any && b < nb; b++) redo_exp(op, sl[b], x + 16 * b, eb + 16 * b, p);
    fin_512(op, x, eb, y, nb);
}

INL T512 void run_512(const gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p) {
    size_t i = 0;
    for (; i + 16 <= n;) {
        const size_t nb = (n - i) / 16 < CH / 16 ? (n - i) / 16 : CH / 16;
        chunk_512(op, x + i, y + i, nb, p);
        i += 16 * nb;
    }
    if (i < n) {                                     /* the tail through a padded block */
        float buf[16] = { 0 };
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        chunk_512(op, buf, buf, 1, p);
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}

T512 static void run_512_plain(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_PLAIN, x, y, n, p); }
T512 static void run_512_shift(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_SHIFT, x, y, n, p); }
T512 static void run_512_logistic(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_LOGISTIC, x, y, n, p); }
T512 static void run_512_swish(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_512(GC_VEXP_SWISH, x, y, n, p); }

/* ---- AVX2 + FMA: no table (AVX2 has no cheap 16-entry lookup: a gather per 4 lanes took
 * 38 % of efficientnet_b0 on Zen 3): exp(t) = 2^k exp(r), k = round(t / ln 2),
 * r = t - k LN2 (|r| <= ln2/2 (1 + 1e-6); one FMA: LN2 is ln 2 rounded to double, off by
 * 2.3e-17 relatively, so for |k| <= 128 r is off by at most 4.9e-15 = 2^-47.5 relative in
 * exp(r)); exp(r) by a degree-8 polynomial fitted for relative error (tools/vexpf_fit.py 2 8:
 * 2^-40.23 with the coefficients rounded to double); Horner's 8 roundings in double
 * (< 2^-50) and 2^k exact (k + 1023 in the exponent field): |m - e^t| < 2^-40 e^t, inside
 * the 2^-38.5 that WIN assumes (vexpf.h), so the same lanes are unambiguous and the bits
 * are libm's as at the other levels. Written as exp_512: nv (<= 4) vectors of 8 floats a
 * step, each as two halves of 4 doubles, every stage across all of them (8 chains in
 * flight), then chunks in two passes (chunk_256). */
#define NC2 9
static const double C2[NC2] = {        /* r^8 down to r^0 */
    0x1.9eda9562f1a65p-16, 0x1.a1a81bdfe9794p-13, 0x1.6c18b3389eb09p-10, 0x1.111082af49dfdp-7, 0x1.5555540512088p-5,
    0x1.555555a081a69p-3, 0x1.0000000087f37p-1, 0x1.ffffffffd563ap-1, 0x1.ffffffffff7a3p-1,
};
#define K2_SCALE 0x1.71547652b82fep+0               /* 1 / ln 2 */
#define LN2 0x1.62e42fefa39efp-1                    /* ln 2 rounded to double */

INL T256 void exp_256(const gc_vexp_op op, const int nv, const float *x, float *eo, const gc_vexp_params *p,
                      unsigned *sl) {
    enum { MV = 4 };
    const __m256 sub = _mm256_set1_ps(p->sub), mul = _mm256_set1_ps(p->mul);
    const __m256 zb = _mm256_set1_ps(p->zero_below);
    const __m256 lo = _mm256_set1_ps(FAST_LO), hi = _mm256_set1_ps(FAST_HI);
    __m256 v[MV], t[MV], zm[MV];
    __m256d d[2 * MV], kd[2 * MV], q[2 * MV];
    unsigned fast[MV], zero[MV];
#pragma GCC unroll 4
    for (int j = 0; j < nv; j++) {
        v[j] = _mm256_loadu_ps(x + 8 * j);
        t[j] = op == GC_VEXP_SHIFT ? _mm256_mul_ps(_mm256_sub_ps(v[j], sub), mul)
             : op >= GC_VEXP_LOGISTIC ? _mm256_sub_ps(_mm256_setzero_ps(), v[j]) : v[j];
        /* ordered compares: NaN is in neither range and takes expf */
        fast[j] = (unsigned)_mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(t[j], lo, _CMP_GE_OQ), _mm256_cmp_ps(t[j], hi, _CMP_LE_OQ)));
        zm[j] = _mm256_cmp_ps(t[j], zb, _CMP_LT_OQ);
        zero[j] = (unsigned)_mm256_movemask_ps(zm[j]);
        d[2 * j] = _mm256_cvtps_pd(_mm256_castps256_ps128(t[j]));
        d[2 * j + 1] = _mm256_cvtps_pd(_mm256_extractf128_ps(t[j], 1));
    }
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++) kd[h] = _mm256_fmadd_pd(d[h], _mm256_set1_pd(K2_SCALE), _mm256_set1_pd(MAGIC));
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++)             /* r, in place of d */
        d[h] = _mm256_fnmadd_pd(_mm256_sub_pd(kd[h], _mm256_set1_pd(MAGIC)), _mm256_set1_pd(LN2), d[h]);
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++) q[h] = _mm256_fmadd_pd(_mm256_set1_pd(C2[0]), d[h], _mm256_set1_pd(C2[1]));
#pragma GCC unroll 8
    for (int i = 2; i < NC2; i++)
#pragma GCC unroll 8
        for (int h = 0; h < 2 * nv; h++) q[h] = _mm256_fmadd_pd(q[h], d[h], _mm256_set1_pd(C2[i]));
    __m128 ef[2 * MV];
    unsigned amb[2 * MV];
#pragma GCC unroll 8
    for (int h = 0; h < 2 * nv; h++) {
        /* kd's low bits hold k (two's complement): (k << 52) + bits(1.0) = bits(2^k) */
        const __m256i sc = _mm256_add_epi64(_mm256_slli_epi64(_mm256_castpd_si256(kd[h]), 52),
                                            _mm256_set1_epi64x(0x3ff0000000000000ll));
        const __m256d m = _mm256_mul_pd(q[h], _mm256_castsi256_pd(sc));
        const __m256i low = _mm256_and_si256(_mm256_castpd_si256(m), _mm256_set1_epi64x((1 << 29) - 1));
        /* d = low - (2^28 - WIN) lies in (-2^28, 2^29): ambiguous when 0 <= d <= 2 WIN */
        const __m256i dd = _mm256_sub_epi64(low, _mm256_set1_epi64x((1 << 28) - WIN));
        const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), dd),
                                            _mm256_cmpgt_epi64(dd, _mm256_set1_epi64x(2 * WIN)));
        amb[h] = ~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(out)) & 0xfu;
        ef[h] = _mm256_cvtpd_ps(m);
    }
#pragma GCC unroll 4
    for (int j = 0; j < nv; j++) {
        const __m256 e = _mm256_insertf128_ps(_mm256_castps128_ps256(ef[2 * j]), ef[2 * j + 1], 1);
        _mm256_storeu_ps(eo + 8 * j, _mm256_andnot_ps(zm[j], e));       /* zero lanes: +0 */
        const unsigned a = amb[2 * j] | (amb[2 * j + 1] << 4);
        sl[j] = ~(fast[j] & ~a) & ~zero[j] & 0xffu;
    }
}

/* y[0, 8 nb) = E(e, x) */
INL T256 void fin_256(const gc_vexp_op op, const float *x, const float *e, float *y, size_t nb) {
    const __m256 one1 = _mm256_set1_ps(1.0f);
    for (size_t b = 0; b < nb; b++) {
        __m256 r = _mm256_loadu_ps(e + 8 * b);
        if (op >= GC_VEXP_LOGISTIC) r = _mm256_div_ps(one1, _mm256_add_ps(one1, r));
        if (op == GC_VEXP_SWISH) r = _mm256_mul_ps(_mm256_loadu_ps(x + 8 * b), r);
        _mm256_storeu_ps(y + 8 * b, r);
    }
}

/* one chunk of nb full blocks of 8 (nb <= CH / 8): chunk_512's two passes */
INL T256 void chunk_256(const gc_vexp_op op, const float *x, float *y, size_t nb, const gc_vexp_params *p) {
    float eb[CH];
    unsigned sl[CH / 8];
    size_t b = 0;
    for (; b + 4 <= nb; b += 4) exp_256(op, 4, x + 8 * b, eb + 8 * b, p, sl + b);
    for (; b < nb; b++) exp_256(op, 1, x + 8 * b, eb + 8 * b, p, sl + b);
    unsigned any = 0;
    for (b = 0; b < nb; b++) any |= sl[b];
    for (b = 0; any && b < nb; b++) redo_exp(op, sl[b], x + 8 * b, eb + 8 * b, p);
    fin_256(op, x, eb, y, nb);
}

INL T256 void run_256(const gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p) {
    size_t i = 0;
    for (; i + 8 <= n;) {
        const size_t nb = (n - i) / 8 < CH / 8 ? (n - i) / 8 : CH / 8;
        chunk_256(op, x + i, y + i, nb, p);
        i += 8 * nb;
    }
    if (i < n) {                                     /* the tail through a padded block */
        float buf[8] = { 0 };
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        chunk_256(op, buf, buf, 1, p);
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}

T256 static void run_256_plain(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_PLAIN, x, y, n, p); }
T256 static void run_256_shift(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_SHIFT, x, y, n, p); }
T256 static void run_256_logistic(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_LOGISTIC, x, y, n, p); }
T256 static void run_256_swish(const float *x, float *y, size_t n, const gc_vexp_params *p) { run_256(GC_VEXP_SWISH, x, y, n, p); }
#endif

void gc_vexpf_run(gc_isa isa, gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p) {
    gc_vexp_params q;
    if (op >= GC_VEXP_LOGISTIC && !(p->zero_below >= GC_VEXP_ONE_BELOW)) {   /* vexpf.h */
        q = *p;
        q.zero_below = GC_VEXP_ONE_BELOW;
        p = &q;
    }
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
