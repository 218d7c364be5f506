/* qgemm8_mv.c — int8 matrix-vector products (qgemm8_mv.h). Panels are taken up to four
 * at a time so that four accumulator chains run side by side and share each broadcast of
 * the vector.
 */
#include "interp/kernels/qgemm8_mv.h"

#include <string.h>

#ifdef GC_HAVE_X86_Q8
#include <immintrin.h>
#define TV __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define T2 __attribute__((target("avx2")))
#define INL static inline __attribute__((always_inline))

enum { NPB = 4 };

/* NP panels from p0: xq holds the vector's u8 quads (cp / 4 words) */
INL TV void panels_vnni(const gc_q8mv *m, const uint32_t *xq, int32_t *d, int32_t p0, const int NP) {
    const int32_t G = m->cp / 4;
    __m512i acc[NPB];
#pragma GCC unroll 4
    for (int j = 0; j < NP; j++) acc[j] = _mm512_setzero_si512();
    for (int32_t g = 0; g < G; g++) {
        const __m512i a = _mm512_set1_epi32((int32_t)xq[g]);
#pragma GCC unroll 4
        for (int j = 0; j < NP; j++)
            acc[j] = _mm512_dpbusd_epi32(acc[j], a, _mm512_loadu_si512((const void *)(m->w + ((int64_t)(p0 + j) * G + g) * 64)));
    }
#pragma GCC unroll 4
    for (int j = 0; j < NP; j++) {
        const int32_t r0 = (p0 + j) * 16, n = m->rows - r0;
        const __m512i v = _mm512_sub_epi32(acc[j], _mm512_loadu_si512((const void *)(m->corr + r0)));
        _mm512_mask_storeu_epi32(d + r0, (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u), v);
    }
}

TV static void run_vnni(const gc_q8mv *m, const int8_t *x, uint8_t *xu, int32_t *d) {
    int32_t c = 0;
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    for (; c + 64 <= m->cols; c += 64)
        _mm512_storeu_si512((void *)(xu + c), _mm512_xor_si512(_mm512_loadu_si512((const void *)(x + c)), flip));
    for (; c < m->cols; c++) xu[c] = (uint8_t)(x[c] ^ 0x80);
    for (; c < m->cp; c++) xu[c] = 0;                /* against zero weights */
    const uint32_t *xq = (const uint32_t *)(const void *)xu;
    int32_t p = 0;
    for (; p + NPB <= m->P; p += NPB) panels_vnni(m, xq, d, p, NPB);
    for (; p < m->P; p++) panels_vnni(m, xq, d, p, 1);
}

INL T2 void store8(int32_t *d, __m256i v, int32_t n) {
    if (n >= 8) { _mm256_storeu_si256((__m256i *)(void *)d, v); return; }
    if (n <= 0) return;
    int32_t t[8];
    _mm256_storeu_si256((__m256i *)(void *)t, v);
    memcpy(d, t, (size_t)n * sizeof *d);
}

/* NP panels from p0 as 2 NP halves of 8 rows: xp holds the vector's int16 pairs */
INL T2 void panels_avx2(const gc_q8mv *m, const uint32_t *xp, int32_t *d, int32_t p0, const int NP) {
    const int32_t G = m->cp / 2;
    __m256i acc[2 * NPB];
#pragma GCC unroll 8
    for (int h = 0; h < 2 * NP; h++) acc[h] = _mm256_setzero_si256();
    for (int32_t g = 0; g < G; g++) {
        const __m256i a = _mm256_set1_epi32((int32_t)xp[g]);
#pragma GCC unroll 8
        for (int h = 0; h < 2 * NP; h++) {
            const int8_t *w = m->w + ((int64_t)(p0 + h / 2) * G + g) * 64 + (h % 2) * 32;
            acc[h] = _mm256_add_epi32(acc[h], _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i *)(const void *)w)));
        }
    }
#pragma GCC unroll 8
    for (int h = 0; h < 2 * NP; h++) {
        const int32_t r0 = (p0 + h / 2) * 16 + (h % 2) * 8;
        store8(d + r0, acc[h], m->rows - r0);
    }
}

T2 static void run_avx2(const gc_q8mv *m, const int8_t *x, int16_t *xs, int32_t *d) {
    int32_t c = 0;
    for (; c < m->cols; c++) xs[c] = x[c];
    for (; c < m->cp; c++) xs[c] = 0;
    const uint32_t *xp = (const uint32_t *)(const void *)xs;
    int32_t p = 0;
    for (; p + NPB <= m->P; p += NPB) panels_avx2(m, xp, d, p, NPB);
    for (; p < m->P; p++) panels_avx2(m, xp, d, p, 1);
}

/* rows of M (even) int16: 16 values a time through vpmaddwd, the pair sums summed per row */
T2 static void rowdots_avx2(const int16_t *a, const int16_t *b, int32_t rows, int32_t M, int32_t *d) {
    const int64_t n = (int64_t)rows * M;
    int64_t i = 0;
    int32_t r = 0, left = M / 2;                     /* pair sums still owed to row r */
    uint32_t acc = 0;
    for (; i + 16 <= n; i += 16) {
        int32_t t[8];
        _mm256_storeu_si256((__m256i *)(void *)t, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(a + i)),
                                                                      _mm256_loadu_si256((const __m256i *)(const void *)(b + i))));
        for (int j = 0; j < 8; j++) {
            acc += (uint32_t)t[j];
            if (--left == 0) { d[r++] = (int32_t)acc; acc = 0; left = M / 2; }
        }
    }
    for (; i < n; i += 2) {
        acc += (uint32_t)((int32_t)a[i] * b[i]) + (uint32_t)((int32_t)a[i + 1] * b[i + 1]);
        if (--left == 0) { d[r++] = (int32_t)acc; acc = 0; left = M / 2; }
    }
}
#endif

void gc_q16_rowdots(gc_q8level level, const int16_t *a, const int16_t *b, int32_t rows, int32_t M, int32_t *d) {
#ifdef GC_HAVE_X86_Q8
    if (level != GC_Q8_SCALAR && M % 2 == 0 && M > 0) { rowdots_avx2(a, b, rows, M, d); return; }
#endif
    (void)level;
    for (int32_t r = 0; r < rows; r++) {
        uint32_t acc = 0;
        for (int32_t m = 0; m < M; m++) acc += (uint32_t)((int32_t)a[(size_t)r * M + m] * (int32_t)b[(size_t)r * M + m]);
        d[r] = (int32_t)acc;
    }
}

static int32_t padded_depth(gc_q8level level, int32_t cols) {
    return level == GC_Q8_VNNI ? (cols + 3) / 4 * 4 : (cols + 1) / 2 * 2;
}

size_t gc_q8mv_bytes(gc_q8level level, int32_t rows, int32_t cols) {
    if (level == GC_Q8_SCALAR || rows <= 0 || cols <= 0 || cols > (1 << 24)) return 0;
    const uint64_t P = ((uint64_t)rows + 15) / 16, cp = (uint64_t)padded_depth(level, cols);
    const uint64_t wb = P * 16 * cp * (level == GC_Q8_VNNI ? 1 : 2), cb = level == GC_Q8_VNNI ? P * 16 * 4 : 0;
    if (wb + cb + 64 > (uint64_t)SIZE_MAX / 2) return 0;
    return (size_t)(wb + cb + 64);
}

void gc_q8mv_init(gc_q8mv *m, gc_q8level level, const int8_t *w, int32_t rows, int32_t cols, void *mem) {
    const int32_t cp = padded_depth(level, cols), P = (rows + 15) / 16;
    *m = (gc_q8mv){ .level = level, .rows = rows, .cols = cols, .cp = cp, .P = P };
    uint8_t *base = (uint8_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    if (level == GC_Q8_VNNI) {
        int8_t *pw = (int8_t *)base;
        int32_t *corr = (int32_t *)(void *)(base + (size_t)P * 16 * cp);
        for (int32_t r = 0; r < rows; r++) {
            int32_t s = 0;
            for (int32_t c = 0; c < cols; c++) {
                int8_t v = w[(size_t)r * cols + c];
                /* panel r / 16, quad c / 4, lane r % 16, byte c % 4 */
                pw[(((size_t)(r / 16) * (cp / 4) + c / 4) * 16 + r % 16) * 4 + c % 4] = v;
                s += v;
            }
            corr[r] = (int32_t)((uint32_t)s * 128u);
        }
        m->w = pw; m->corr = corr;
    } else {
        int16_t *pw = (int16_t *)(void *)base;
        for (int32_t r = 0; r < rows; r++)
            for (int32_t c = 0; c < cols; c++)
                pw[(((size_t)(r / 16) * (cp / 2) + c / 2) * 16 + r % 16) * 2 + c % 2] = w[(size_t)r * cols + c];
        m->w = (const int8_t *)(const void *)pw;
    }
}

size_t gc_q8mv_scratch_bytes(const gc_q8mv *m) { return (size_t)m->cp * 2 + 64; }

void gc_q8mv_run(const gc_q8mv *m, const int8_t *x, void *scratch, int32_t *d) {
#ifdef GC_HAVE_X86_Q8
    void *s = (void *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    if (m->level == GC_Q8_VNNI) { run_vnni(m, x, (uint8_t *)s, d); return; }
    if (m->level == GC_Q8_AVX2) { run_avx2(m, x, (int16_t *)s, d); return; }
#endif
    (void)m; (void)x; (void)scratch; (void)d;
}
