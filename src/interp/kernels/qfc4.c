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
#define INL static inline __attribute__((always_inline))

enum { G512 = 4, G256 = 2 };

/* the clamp v < lo ? lo : v > hi ? hi : v is max(lo, v) then min(hi, v) (NaN passes) */
INL T512 void store16(float *y, __m512 v, float lo, float hi, int64_t n) {
    v = _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), v));
    _mm512_mask_storeu_ps(y, (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u), v);
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
                        acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(x[k + i]), wd));
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

/* TFLite order from w1 (qfc4.h): for k = 4 j + i the load at byte offset i of the panel's
 * 64 bytes; the same operations as group512's */
INL T512 void group512_w1(const gc_qfc4 *f, const float *x, float *y, int64_t p0, const int G) {
    const __m512 tab = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1);
    __m512 acc[G512];
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    const int64_t K = f->K, B = f->B;
    for (int64_t b = 0; b < f->nb; b++) {
        __m512 sc[G512];
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) sc[g] = _mm512_loadu_ps(f->sc + (((p0 + g) * f->nb) + b) * 16);
        for (int64_t k = b * B; k < (b + 1) * B; k += 4) {
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) {
                const uint8_t *wp = f->w1 + ((p0 + g) * K + k) * 16;
#pragma GCC unroll 4
                for (int i = 0; i < 4; i++) {
                    const __m512i idx = _mm512_loadu_si512((const void *)(wp + i));
                    const __m512 wd = _mm512_mul_ps(_mm512_permutexvar_ps(idx, tab), sc[g]);      /* exact */
                    acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(x[k + i]), wd));
                }
            }
        }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) store16(y + (p0 + g) * 16, acc[g], f->lo, f->hi, f->N - (p0 + g) * 16);
}

#define TV __attribute__((target("avx512f,avx512bw,avx512vnni")))
#include <stdint.h>

/* qe / qo: the row's q + 128 regrouped by the nibble layout: qe[j] = bytes q[8 j + 0, 2, 4, 6],
 * qo[j] = q[8 j + 1, 3, 5, 7] (the dot of a block does not depend on the order of its terms) */
INL TV void group_vnni(const gc_qfc4 *f, const uint32_t *qe, const uint32_t *qo, int32_t izp, float inv, float *y,
                       int64_t p0, const int G) {
    __m512 acc[G512];
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    const int64_t K = f->K, B = f->B;
    const __m512i zq = _mm512_set1_epi32(128 + izp), m4 = _mm512_set1_epi8(15), e8 = _mm512_set1_epi8(8);
    for (int64_t b = 0; b < f->nb; b++) {
        __m512i ia[G512];
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) ia[g] = _mm512_setzero_si512();
        for (int64_t k = b * B; k < (b + 1) * B; k += 8) {
            const __m512i ae = _mm512_set1_epi32((int32_t)qe[k / 8]), ao = _mm512_set1_epi32((int32_t)qo[k / 8]);
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) {
                const __m512i v = _mm512_loadu_si512((const void *)(f->w4 + ((p0 + g) * K + k) * 8));
                /* nibbles -> signed bytes: (n ^ 8) - 8 */
                const __m512i we = _mm512_sub_epi8(_mm512_xor_si512(_mm512_and_si512(v, m4), e8), e8);
                const __m512i wo = _mm512_sub_epi8(_mm512_xor_si512(_mm512_and_si512(_mm512_srli_epi32(v, 4), m4), e8), e8);
                ia[g] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(ia[g], ae, we), ao, wo);
            }
        }
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) {
            const size_t o = (size_t)(((p0 + g) * f->nb) + b) * 16;
            const __m512i dot = _mm512_sub_epi32(ia[g], _mm512_mullo_epi32(zq, _mm512_loadu_si512((const void *)(f->wsum + o))));
            acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_cvtepi32_ps(dot), _mm512_loadu_ps(f->sc + o)));
        }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) store16(y + (p0 + g) * 16, _mm512_mul_ps(acc[g], _mm512_set1_ps(inv)), f->lo, f->hi, f->N - (p0 + g) * 16);
}

TV static void row_vnni(const gc_qfc4 *f, const int8_t *qx, int32_t izp, float inv, float *y, uint32_t *qeo) {
    uint32_t *qe = qeo, *qo = qeo + f->K / 8;
    for (int64_t j = 0; j < f->K / 8; j++) {
        const uint8_t *q = (const uint8_t *)qx + 8 * j;
        qe[j] = (uint32_t)(q[0] ^ 0x80) | (uint32_t)(q[2] ^ 0x80) << 8 | (uint32_t)(q[4] ^ 0x80) << 16 | (uint32_t)(q[6] ^ 0x80) << 24;
        qo[j] = (uint32_t)(q[1] ^ 0x80) | (uint32_t)(q[3] ^ 0x80) << 8 | (uint32_t)(q[5] ^ 0x80) << 16 | (uint32_t)(q[7] ^ 0x80) << 24;
    }
    int64_t p = 0;
    for (; p + G512 <= f->P; p += G512) group_vnni(f, qe, qo, izp, inv, y, p, G512);
    for (; p < f->P; p++) group_vnni(f, qe, qo, izp, inv, y, p, 1);
}

T512 static void row512(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y) {
    int64_t p = 0;
    if (f->w1) {
        for (; p + G512 <= f->P; p += G512) group512_w1(f, x, y, p, G512);
        for (; p < f->P; p++) group512_w1(f, x, y, p, 1);
        return;
    }
    for (; p + G512 <= f->P; p += G512) group512(f, x, qx, izp, inv, y, p, G512);
    for (; p < f->P; p++) group512(f, x, qx, izp, inv, y, p, 1);
}

INL T2 void store8(float *y, __m256 v, float lo, float hi, int64_t n) {
    v = _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), v));
    if (n >= 8) { _mm256_storeu_ps(y, v); return; }
    if (n <= 0) return;
    float t[8];
    _mm256_storeu_ps(t, v);
    memcpy(y, t, (size_t)n * sizeof(float));
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
                    acc[h] = _mm256_add_ps(acc[h], _mm256_mul_ps(xv, wd));
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

T2 static void row256(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y) {
    int64_t p = 0;
    for (; p + G256 <= f->P; p += G256) group256(f, x, qx, izp, inv, y, p, G256);
    for (; p < f->P; p++) group256(f, x, qx, izp, inv, y, p, 1);
}
#define QFC4_X86 1
#endif

bool gc_qfc4_level_ok(int isa) {
#ifdef QFC4_X86
    return isa >= GC_ISA_AVX2;
#else
    (void)isa;
    return false;
#endif
}

void gc_qfc4_row(const gc_qfc4 *f, const float *x, const int8_t *qx, int32_t izp, float inv, float *y) {
#ifdef QFC4_X86
    if (f->vnni && f->xnn) { row_vnni(f, qx, izp, inv, y, (uint32_t *)(void *)((uintptr_t)(qx + f->K + 15) & ~(uintptr_t)15)); return; }
    if (f->isa >= GC_ISA_AVX512) { row512(f, x, qx, izp, inv, y); return; }
    if (f->isa >= GC_ISA_AVX2) { row256(f, x, qx, izp, inv, y); return; }
#endif
    (void)f; (void)x; (void)qx; (void)izp; (void)inv; (void)y;
}
