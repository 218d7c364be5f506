/* qfc4.c — the fast blockwise-INT4 FULLY_CONNECTED rows (qfc4.h). Panels are taken up to
 * G at a time so that G accumulator chains run side by side (a float add has a latency of
 * several cycles; one chain per panel would wait on it every k).
 */
#include "interp/kernels/qfc4.h"
#include "interp/kernels/cpu_isa.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#include <immintrin.h>
#define T512 __attribute__((target("avx512f")))
#define T2 __attribute__((target("avx2")))
#define T2F __attribute__((target("avx2,fma")))
#define INL static inline __attribute__((always_inline))

enum { G512 = 4, G256 = 2 };

/* the clamp v < lo ? lo : v > hi ? hi : v is max(lo, v) then min(hi, v) (NaN passes) */
INL T512 void store16(float *y, __m512 v, float lo, float hi, int64_t n) {
    v = _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), v));
    _mm512_mask_storeu_ps(y, (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u), v);
}

/* a + b and a * b with a the first source: where both are NaN the result is a's NaN, as
 * the reference's acc + p and x[k] * wd give it (the compiler may commute the operands of
 * _mm512_add_ps / _mm512_mul_ps, which changes only that NaN) */
INL T512 __m512 add1st(__m512 a, __m512 b) {
    __m512 r;
    __asm__("vaddps %2, %1, %0" : "=v"(r) : "v"(a), "v"(b));
    return r;
}
INL T512 __m512 mul1st(__m512 a, __m512 b) {
    __m512 r;
    __asm__("vmulps %2, %1, %0" : "=v"(r) : "v"(a), "v"(b));
    return r;
}

/* one panel's 64 bytes for k = 8 j .. 8 j + 7: lane c holds unit c's w[8 j + i] in bits
 * 4 i .. 4 i + 3; vpermps reads only an index's low 4 bits, so (lane >> 4 i) indexes the
 * table of the nibbles' values directly */
INL T512 void group512(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y,
                       int64_t p0, const int G) {
    const __m512 tab = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1);
    const __m512i itab = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1);
    __m512 acc[G512];
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    const int64_t K = f->K, B = f->B;
    for (int64_t b = 0; b < f->nb; b++) {
        __m512 sc[G512];
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) sc[g] = _mm512_loadu_ps(f->sc + (((p0 + g) * f->nb) + b) * 16);
        if (!f->xnn) {
            for (int64_t k = b * B; k < (b + 1) * B; k += 8) {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    const __m512i wv = _mm512_loadu_si512((const void *)(f->w4 + ((p0 + g) * K + k) * 8));
#pragma GCC unroll 8
                    for (int i = 0; i < 8; i++) {
                        const __m512i idx = i ? _mm512_srli_epi32(wv, 4 * i) : wv;
                        const __m512 wd = _mm512_mul_ps(_mm512_permutexvar_ps(idx, tab), sc[g]);      /* exact */
                        acc[g] = add1st(acc[g], mul1st(_mm512_set1_ps(x[k + i]), wd));
                    }
                }
            }
        } else {
            __m512i ia[G512];
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) ia[g] = _mm512_setzero_si512();
            for (int64_t k = b * B; k < (b + 1) * B; k += 8) {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    const __m512i wv = _mm512_loadu_si512((const void *)(f->w4 + ((p0 + g) * K + k) * 8));
#pragma GCC unroll 8
                    for (int i = 0; i < 8; i++) {
                        const __m512i w = _mm512_permutexvar_epi32(i ? _mm512_srli_epi32(wv, 4 * i) : wv, itab);
                        ia[g] = _mm512_add_epi32(ia[g], _mm512_mullo_epi32(_mm512_set1_epi32((int32_t)qx[k + i] - izp), w));
                    }
                }
            }
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_cvtepi32_ps(ia[g]), sc[g]));
        }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        __m512 v = f->xnn ? _mm512_mul_ps(acc[g], _mm512_set1_ps(inv)) : acc[g];
        store16(y + (p0 + g) * 16, v, f->lo, f->hi, f->N - (p0 + g) * 16);
    }
}

/* TFLite order from w3 (qfc4.h). For the weight in bits j .. j + 3 of a word (j = 8 + 4 i),
 * v & M_j keeps those bits and the exponent of 2^(23 - j): the float f = 2^(23 - j) + n,
 * n = w + 8, exactly. fma(f, s, c_j s) with c_j = -(2^(23 - j) + 8) is then (n - 8) s = w s
 * exactly: c_j s is exact (c_j / 8 = 4097, 257, 17 has at most 13 significant bits, s at
 * most 11 as a half; in range for every finite half), the fma rounds once, and w s is a
 * float (4 + 11 bits). So wd is the reference's (float)w * s and the rest is its
 * x[k] * wd and the add, in k order: bit-identical (a zero wd may differ in sign, which
 * can change only a zero product: adding +-0 to acc, never -0 as it starts at +0, leaves
 * acc as it is, and inf * +-0 is the same default NaN). A non-finite scale would break
 * the fma form (inf - inf): prepare takes w4 then. One vpandd + vfmadd + vmulps + vaddps
 * per 16 weights, where the byte table (vpermps) cost about a fifth more on Zen 4. */
INL T512 void group512_w3(const gc_qfc4 *f, const float *x, float *y, int64_t p0, const int G) {
    const __m512i m0 = _mm512_set1_epi32((int)(142u << 23 | 0xF00u)), m1 = _mm512_set1_epi32((int)(138u << 23 | 0xF000u)),
                  m2 = _mm512_set1_epi32((int)(134u << 23 | 0xF0000u));
    __m512 acc[G512];
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    const int64_t B = f->B, D = (B + 2) / 3, nb = f->nb, ps = nb * D * 16;
    for (int64_t b = 0; b < nb; b++) {
        __m512 sc[G512], b0[G512], b1[G512], b2[G512];
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) {
            sc[g] = _mm512_loadu_ps(f->sc + (((p0 + g) * nb) + b) * 16);
            b0[g] = _mm512_mul_ps(sc[g], _mm512_set1_ps(-32776.0f));          /* exact, as above */
            b1[g] = _mm512_mul_ps(sc[g], _mm512_set1_ps(-2056.0f));
            b2[g] = _mm512_mul_ps(sc[g], _mm512_set1_ps(-136.0f));
        }
        const uint32_t *wb = f->w3 + (p0 * nb + b) * D * 16;
        const float *xb = x + b * B;
#define W3STEP(M, BJ, k) acc[g] = add1st(acc[g], _mm512_mul_ps(_mm512_set1_ps(xb[k]), \
            _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v, M)), sc[g], BJ[g])))
        int64_t d = 0;
        for (; d < B / 3; d++) {
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) {
                const __m512i v = _mm512_loadu_si512((const void *)(wb + g * ps + d * 16));
                W3STEP(m0, b0, 3 * d); W3STEP(m1, b1, 3 * d + 1); W3STEP(m2, b2, 3 * d + 2);
            }
        }
        if (B % 3) {
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) {
                const __m512i v = _mm512_loadu_si512((const void *)(wb + g * ps + d * 16));
                W3STEP(m0, b0, 3 * d);
                if (B % 3 == 2) W3STEP(m1, b1, 3 * d + 1);
            }
        }
#undef W3STEP
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) store16(y + (p0 + g) * 16, acc[g], f->lo, f->hi, f->N - (p0 + g) * 16);
}

#define TV __attribute__((target("avx512f,avx512bw,avx512vnni")))
#include <stdint.h>

/* qe / qo: the row's q + 128 regrouped by the nibble layout: qe[j] = bytes q[8 j + 0, 2, 4, 6],
 * qo[j] = q[8 j + 1, 3, 5, 7] (the dot of a block does not depend on the order of its terms);
 * c8[b] = 8 * (sum of q + 128 over block b). With f->vnni, w4 holds n = w + 8 (prepare XORs
 * the nibbles with 8), so the bytes v & 15 and (v >> 4) & 15 are vpdpbusd's s8 operand as
 * they are (0..15): sum (q + 128) n = sum (q + 128) w + c8[b], and the block's dot is
 * sum (q - zq) w = sum (q + 128) n - c8[b] - (128 + zq) wsum, exact in int32 (the sums
 * may wrap, the result is the true dot, |dot| < 2^31: prepare's block limit) */
INL TV void group_vnni(const gc_qfc4 *f, const uint32_t *qe, const uint32_t *qo, const int32_t *c8, int32_t izp, float inv,
                       float *y, int64_t p0, const int G) {
    __m512 acc[G512];
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    const int64_t K = f->K, B = f->B;
    const __m512i zq = _mm512_set1_epi32(128 + izp), m4 = _mm512_set1_epi8(15);
    for (int64_t b = 0; b < f->nb; b++) {
        __m512i ia[G512];
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) ia[g] = _mm512_setzero_si512();
        for (int64_t k = b * B; k < (b + 1) * B; k += 8) {
            const __m512i ae = _mm512_set1_epi32((int32_t)qe[k / 8]), ao = _mm512_set1_epi32((int32_t)qo[k / 8]);
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) {
                const __m512i v = _mm512_loadu_si512((const void *)(f->w4 + ((p0 + g) * K + k) * 8));
                const __m512i we = _mm512_and_si512(v, m4), wo = _mm512_and_si512(_mm512_srli_epi32(v, 4), m4);
                ia[g] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(ia[g], ae, we), ao, wo);
            }
        }
        const __m512i cb = _mm512_set1_epi32(c8[b]);
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) {
            const size_t o = (size_t)(((p0 + g) * f->nb) + b) * 16;
            const __m512i zw = _mm512_add_epi32(_mm512_mullo_epi32(zq, _mm512_loadu_si512((const void *)(f->wsum + o))), cb);
            const __m512i dot = _mm512_sub_epi32(ia[g], zw);
            acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_cvtepi32_ps(dot), _mm512_loadu_ps(f->sc + o)));
        }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) store16(y + (p0 + g) * 16, _mm512_mul_ps(acc[g], _mm512_set1_ps(inv)), f->lo, f->hi, f->N - (p0 + g) * 16);
}

static void prep_vnni(const gc_qfc4 *f, const int8_t *qx, uint32_t *qeo) {
    uint32_t *qe = qeo, *qo = qeo + f->K / 8;
    int32_t *c8 = (int32_t *)(void *)(qeo + f->K / 4);
    for (int64_t j = 0; j < f->K / 8; j++) {
        const uint8_t *q = (const uint8_t *)qx + 8 * j;
        qe[j] = (uint32_t)(q[0] ^ 0x80) | (uint32_t)(q[2] ^ 0x80) << 8 | (uint32_t)(q[4] ^ 0x80) << 16 | (uint32_t)(q[6] ^ 0x80) << 24;
        qo[j] = (uint32_t)(q[1] ^ 0x80) | (uint32_t)(q[3] ^ 0x80) << 8 | (uint32_t)(q[5] ^ 0x80) << 16 | (uint32_t)(q[7] ^ 0x80) << 24;
    }
    for (int64_t b = 0; b < f->nb; b++) {
        int32_t sa = 0;
        for (int64_t k = b * f->B; k < (b + 1) * f->B; k++) sa += (int32_t)qx[k] + 128;
        c8[b] = (int32_t)((uint32_t)sa * 8u);         /* mod 2^32, as the vector sums */
    }
}

TV static void panels_vnni(const gc_qfc4 *f, const uint32_t *qeo, int32_t izp, float inv, float *y, int64_t p, int64_t p1) {
    const uint32_t *qe = qeo, *qo = qeo + f->K / 8;
    const int32_t *c8 = (const int32_t *)(const void *)(qeo + f->K / 4);
    for (; p + G512 <= p1; p += G512) group_vnni(f, qe, qo, c8, izp, inv, y, p, G512);
    for (; p < p1; p++) group_vnni(f, qe, qo, c8, izp, inv, y, p, 1);
}

T512 static void panels512(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y,
                           int64_t p, int64_t p1) {
    if (f->w3) {
        for (; p + G512 <= p1; p += G512) group512_w3(f, x, y, p, G512);
        for (; p < p1; p++) group512_w3(f, x, y, p, 1);
        return;
    }
    for (; p + G512 <= p1; p += G512) group512(f, x, qx, izp, inv, y, p, G512);
    for (; p < p1; p++) group512(f, x, qx, izp, inv, y, p, 1);
}

INL T2 void store8(float *y, __m256 v, float lo, float hi, int64_t n) {
    v = _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), v));
    if (n >= 8) { _mm256_storeu_ps(y, v); return; }
    if (n <= 0) return;
    float t[8];
    _mm256_storeu_ps(t, v);
    memcpy(y, t, (size_t)n * sizeof(float));
}

/* add1st / mul1st (above) on 8 lanes */
INL T2 __m256 add1st8(__m256 a, __m256 b) {
    __m256 r;
    __asm__("vaddps %2, %1, %0" : "=x"(r) : "x"(a), "x"(b));
    return r;
}
INL T2 __m256 mul1st8(__m256 a, __m256 b) {
    __m256 r;
    __asm__("vmulps %2, %1, %0" : "=x"(r) : "x"(a), "x"(b));
    return r;
}

/* 8 units of a panel (half h) for k = 8 j + i: the signed nibbles as int32 */
INL T2 __m256i nib8(const uint8_t *p, int i) {
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p), eight = _mm256_set1_epi32(8);
    return _mm256_sub_epi32(_mm256_xor_si256(_mm256_and_si256(_mm256_srli_epi32(v, 4 * i), _mm256_set1_epi32(15)), eight), eight);
}

/* G panels as 2 G halves of 8 units */
INL T2 void group256(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y,
                     int64_t p0, const int G) {
    __m256 acc[2 * G256];
#pragma GCC unroll 4
    for (int h = 0; h < 2 * G; h++) acc[h] = _mm256_setzero_ps();
    const int64_t K = f->K, B = f->B;
    for (int64_t b = 0; b < f->nb; b++) {
        __m256 sc[2 * G256];
#pragma GCC unroll 4
        for (int h = 0; h < 2 * G; h++) sc[h] = _mm256_loadu_ps(f->sc + (((p0 + h / 2) * f->nb) + b) * 16 + (h % 2) * 8);
        if (!f->xnn) {
            for (int64_t k = b * B; k < (b + 1) * B; k++) {
                const __m256 xv = _mm256_set1_ps(x[k]);
#pragma GCC unroll 4
                for (int h = 0; h < 2 * G; h++) {
                    const __m256i w = nib8(f->w4 + ((p0 + h / 2) * K + k - k % 8) * 8 + (h % 2) * 32, (int)(k % 8));
                    const __m256 wd = _mm256_mul_ps(_mm256_cvtepi32_ps(w), sc[h]);
                    acc[h] = add1st8(acc[h], mul1st8(xv, wd));
                }
            }
        } else {
            __m256i ia[2 * G256];
#pragma GCC unroll 4
            for (int h = 0; h < 2 * G; h++) ia[h] = _mm256_setzero_si256();
            for (int64_t k = b * B; k < (b + 1) * B; k++) {
                const __m256i qv = _mm256_set1_epi32((int32_t)qx[k] - izp);
#pragma GCC unroll 4
                for (int h = 0; h < 2 * G; h++) {
                    const __m256i w = nib8(f->w4 + ((p0 + h / 2) * K + k - k % 8) * 8 + (h % 2) * 32, (int)(k % 8));
                    ia[h] = _mm256_add_epi32(ia[h], _mm256_mullo_epi32(qv, w));
                }
            }
#pragma GCC unroll 4
            for (int h = 0; h < 2 * G; h++) acc[h] = _mm256_add_ps(acc[h], _mm256_mul_ps(_mm256_cvtepi32_ps(ia[h]), sc[h]));
        }
    }
#pragma GCC unroll 4
    for (int h = 0; h < 2 * G; h++) {
        __m256 v = f->xnn ? _mm256_mul_ps(acc[h], _mm256_set1_ps(inv)) : acc[h];
        store8(y + (p0 + h / 2) * 16 + (h % 2) * 8, v, f->lo, f->hi, f->N - (p0 + h / 2) * 16 - (h % 2) * 8);
    }
}

/* group512_w3 on AVX2 + FMA (the level has both): one panel as two halves of 8 units, the
 * same operations per unit (16 ymm registers: the constants of one panel only) */
INL T2F void group256_w3(const gc_qfc4 *f, const float *x, float *y, int64_t p0) {
    const __m256i m0 = _mm256_set1_epi32((int)(142u << 23 | 0xF00u)), m1 = _mm256_set1_epi32((int)(138u << 23 | 0xF000u)),
                  m2 = _mm256_set1_epi32((int)(134u << 23 | 0xF0000u));
    __m256 acc[2] = { _mm256_setzero_ps(), _mm256_setzero_ps() };
    const int64_t B = f->B, D = (B + 2) / 3, nb = f->nb;
    for (int64_t b = 0; b < nb; b++) {
        __m256 sc[2], b0[2], b1[2], b2[2];
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            sc[h] = _mm256_loadu_ps(f->sc + ((p0 * nb) + b) * 16 + 8 * h);
            b0[h] = _mm256_mul_ps(sc[h], _mm256_set1_ps(-32776.0f));          /* exact (group512_w3) */
            b1[h] = _mm256_mul_ps(sc[h], _mm256_set1_ps(-2056.0f));
            b2[h] = _mm256_mul_ps(sc[h], _mm256_set1_ps(-136.0f));
        }
        const uint32_t *wb = f->w3 + (p0 * nb + b) * D * 16;
        const float *xb = x + b * B;
#define W3STEP8(M, BJ, k) acc[h] = add1st8(acc[h], _mm256_mul_ps(_mm256_set1_ps(xb[k]), \
            _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(v, M)), sc[h], BJ[h])))
        int64_t d = 0;
        for (; d < B / 3; d++) {
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(wb + d * 16 + 8 * h));
                W3STEP8(m0, b0, 3 * d); W3STEP8(m1, b1, 3 * d + 1); W3STEP8(m2, b2, 3 * d + 2);
            }
        }
        if (B % 3) {
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(wb + d * 16 + 8 * h));
                W3STEP8(m0, b0, 3 * d);
                if (B % 3 == 2) W3STEP8(m1, b1, 3 * d + 1);
            }
        }
#undef W3STEP8
    }
    for (int h = 0; h < 2; h++) store8(y + p0 * 16 + 8 * h, acc[h], f->lo, f->hi, f->N - p0 * 16 - 8 * h);
}

T2F static void panels256(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y,
                          int64_t p, int64_t p1) {
    if (f->w3) {
        for (; p < p1; p++) group256_w3(f, x, y, p);
        return;
    }
    for (; p + G256 <= p1; p += G256) group256(f, x, qx, izp, inv, y, p, G256);
    for (; p < p1; p++) group256(f, x, qx, izp, inv, y, p, 1);
}
#define QFC4_X86 1
#endif

#ifdef QFC4_X86
/* qd8's two loops over a row (qfc4.h), 16 floats a step, the tail masked (masked-off
 * lanes load +0, inside the range anyway). min(x, m) returns m where x is NaN or both are
 * zeros, as the reference's `if (x < m) m = x` keeps m: no lane ever holds -0 or NaN. */
T512 static void range512(const float *x, int64_t K, float *mn, float *mx) {
    __m512 lo = _mm512_setzero_ps(), hi = _mm512_setzero_ps();
    for (int64_t k = 0; k < K; k += 16) {
        const __mmask16 m = (__mmask16)(K - k >= 16 ? 0xffffu : (1u << (K - k)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(m, x + k);
        lo = _mm512_min_ps(v, lo);
        hi = _mm512_max_ps(v, hi);
    }
    *mn = _mm512_reduce_min_ps(lo);
    *mx = _mm512_reduce_max_ps(hi);
}

/* q = clamp(rintf(x * scale) + zp) to [-128, 127], NaN -> 0: rintf in the default rounding
 * mode is vrndscaleps's round to nearest even */
T512 static void quant512(const float *x, int64_t K, float scale, int32_t izp, int8_t *q) {
    const __m512 sv = _mm512_set1_ps(scale), zv = _mm512_set1_ps((float)izp);
    for (int64_t k = 0; k < K; k += 16) {
        const __mmask16 m = (__mmask16)(K - k >= 16 ? 0xffffu : (1u << (K - k)) - 1u);
        const __m512 t = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + k), sv);
        __m512 v = _mm512_add_ps(_mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zv);
        const __mmask16 num = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(-128.0f)), _mm512_set1_ps(127.0f));
        const __m512i iv = _mm512_maskz_cvtps_epi32(num, v);            /* exact: integral, in range */
        const __m128i b = _mm512_cvtepi32_epi8(iv);
        if (K - k >= 16) { _mm_storeu_si128((__m128i *)(void *)(q + k), b); continue; }
        int8_t t16[16];
        _mm_storeu_si128((__m128i *)(void *)t16, b);
        memcpy(q + k, t16, (size_t)(K - k));
    }
}
#define QFC4_QD8 1
#endif

bool gc_qfc4_range(const gc_qfc4 *f, const float *x, float *mn, float *mx) {
#ifdef QFC4_QD8
    if (f->isa >= GC_ISA_AVX512) { range512(x, f->K, mn, mx); return true; }
#endif
    (void)f; (void)x; (void)mn; (void)mx;
    return false;
}

bool gc_qfc4_quant(const gc_qfc4 *f, const float *x, float scale, int32_t izp, int8_t *q) {
#ifdef QFC4_QD8
    if (f->isa >= GC_ISA_AVX512) { quant512(x, f->K, scale, izp, q); return true; }
#endif
    (void)f; (void)x; (void)scale; (void)izp; (void)q;
    return false;
}

bool gc_qfc4_level_ok(int isa) {
#ifdef QFC4_X86
    return isa >= GC_ISA_AVX2;
#else
    (void)isa;
    return false;
#endif
}

/* the VNNI path's regrouped row, after qx (qfc4.h) */
static uint32_t *qeo_of(const gc_qfc4 *f, const int8_t *qx) {
    return (uint32_t *)(void *)((uintptr_t)(qx + f->K + 15) & ~(uintptr_t)15);
}

void gc_qfc4_prep(const gc_qfc4 *f, const int8_t *qx) {
#ifdef QFC4_X86
    if (f->vnni && f->xnn) prep_vnni(f, qx, qeo_of(f, qx));
#endif
    (void)f; (void)qx;
}

void gc_qfc4_panels(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y,
                    int64_t p0, int64_t p1) {
#ifdef QFC4_X86
    if (f->vnni && f->xnn) { panels_vnni(f, qeo_of(f, qx), izp, inv, y, p0, p1); return; }
    if (f->isa >= GC_ISA_AVX512) { panels512(f, x, qx, izp, inv, y, p0, p1); return; }
    if (f->isa >= GC_ISA_AVX2) { panels256(f, x, qx, izp, inv, y, p0, p1); return; }
#endif
    (void)f; (void)x; (void)qx; (void)izp; (void)inv; (void)y; (void)p0; (void)p1;
}

