/* qfc4_floor.c — how fast can the TFLite-order blockwise INT4 FULLY_CONNECTED (fc.c's
 * reference: y[u] = sum over k in order of x[k] * (w[u][k] * s[u][k / B]), every product
 * and sum rounded to float, no FMA) go on one core? qwen_fc's shape (1 row, K = N = 1024,
 * block 32), AVX-512, 16 units per vector, 4 accumulator chains; best of 2000 calls each:
 *
 *   nib    qfc4.c's w4 nibbles (the fallback for non-finite scales: a shift + vpermps +
 *          2 vmulps + vaddps)
 *   byte   the kernel of 2026-12-02 (one byte per weight, loads at byte offsets: no shift)
 *   w3     the kernel now (qfc4.c group512_w3: words of three weights, vpandd + an exact
 *          vfmadd for w s + vmulps + vaddps)
 *   noscale  probe: vpermps + vmulps + vaddps (the scale multiply left out: wrong sums)
 *   int16  probe: w s pre-multiplied as int16 (vpmovsxwd + vcvtdq2ps + vmulps + vaddps)
 *   floor2 probe: vmulps (w s) + vmulps (x times it) + vaddps, the weights from a 16 KB
 *          buffer that stays in L1: the operations the reference's order needs whatever
 *          the weights' format (w s and x (w s) are two roundings-free-or-not multiplies
 *          per weight: only the multiply pipes do them, 1 zmm a cycle on Zen 4)
 *   floor  probe: vmulps + vaddps only (the w s multiply left out: not this order's floor,
 *          it would need w s as floats in memory, 4 bytes a weight)
 *
 * "nib", "byte" and "w3" must equal the scalar reference bit for bit (checked). Build, run:
 *   cc -std=c11 -O2 -D_GNU_SOURCE -o build/qfc4_floor bench/qfc4_floor.c -lm && build/qfc4_floor
 * (-std=c11: no contraction of a multiply and an add into an FMA, as the project builds).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define T512 __attribute__((target("avx512f,avx512bw,fma")))
#define INL static inline __attribute__((always_inline))

enum { N = 1024, K = 1024, B = 32, NB = K / B, P = N / 16, G = 4 };

static int8_t W[N][K];
static float S[N][NB], X[K], sc[P * NB * 16];
static uint8_t w4[P * K * 8], w1[P * K * 16 + 64];
enum { D3 = (B + 2) / 3 };
static uint32_t w3[P * NB * D3 * 16] __attribute__((aligned(64)));
static int16_t m16[64 * 64 * 16];
static float l1w[4 * 64 * 16];

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + t.tv_nsec * 1e-9; }

static void reference(float *y) {
    for (int u = 0; u < N; u++) {
        float a = 0;
        for (int k = 0; k < K; k++) a = a + X[k] * ((float)W[u][k] * S[u][k / B]);
        y[u] = a;
    }
}

#define TAB _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1)

INL T512 void g_nib(const float *x, float *y, int p0, int mode) {
    const __m512 tab = TAB;
    __m512 acc[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    for (int b = 0; b < NB; b++) {
        __m512 s[G];
#pragma GCC unroll 4
        for (int g = 0; g < G; g++) s[g] = _mm512_loadu_ps(sc + ((p0 + g) * NB + b) * 16);
        for (int k = b * B; k < (b + 1) * B; k += 8)
#pragma GCC unroll 4
            for (int g = 0; g < G; g++) {
                const __m512i wv = _mm512_loadu_si512((const void *)(w4 + ((p0 + g) * K + k) * 8));
#pragma GCC unroll 8
                for (int i = 0; i < 8; i++) {
                    __m512 wd = _mm512_permutexvar_ps(i ? _mm512_srli_epi32(wv, 4 * i) : wv, tab);
                    if (mode == 0) wd = _mm512_mul_ps(wd, s[g]);
                    acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(x[k + i]), wd));
                }
            }
    }
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) _mm512_storeu_ps(y + (p0 + g) * 16, acc[g]);
}

INL T512 void g_byte(const float *x, float *y, int p0, int mode) {
    const __m512 tab = TAB;
    __m512 acc[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    for (int b = 0; b < NB; b++) {
        __m512 s[G];
#pragma GCC unroll 4
        for (int g = 0; g < G; g++) s[g] = _mm512_loadu_ps(sc + ((p0 + g) * NB + b) * 16);
        for (int k = b * B; k < (b + 1) * B; k += 4)
#pragma GCC unroll 4
            for (int g = 0; g < G; g++) {
                const uint8_t *wp = w1 + ((p0 + g) * K + k) * 16;
#pragma GCC unroll 4
                for (int i = 0; i < 4; i++) {
                    __m512 wd = _mm512_permutexvar_ps(_mm512_loadu_si512((const void *)(wp + i)), tab);
                    if (mode == 0) wd = _mm512_mul_ps(wd, s[g]);
                    acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(x[k + i]), wd));
                }
            }
    }
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) _mm512_storeu_ps(y + (p0 + g) * 16, acc[g]);
}

/* qfc4.c's group512_w3: v & M_j = 2^(23 - j) + n, fma(that, s, -(2^(23 - j) + 8) s) = w s */
INL T512 void g_w3(const float *x, float *y, int p0) {
    const __m512i m0 = _mm512_set1_epi32((int)(142u << 23 | 0xF00u)), m1 = _mm512_set1_epi32((int)(138u << 23 | 0xF000u)),
                  m2 = _mm512_set1_epi32((int)(134u << 23 | 0xF0000u));
    __m512 acc[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    for (int b = 0; b < NB; b++) {
        __m512 s[G], b0[G], b1[G], b2[G];
#pragma GCC unroll 4
        for (int g = 0; g < G; g++) {
            s[g] = _mm512_loadu_ps(sc + ((p0 + g) * NB + b) * 16);
            b0[g] = _mm512_mul_ps(s[g], _mm512_set1_ps(-32776.0f));
            b1[g] = _mm512_mul_ps(s[g], _mm512_set1_ps(-2056.0f));
            b2[g] = _mm512_mul_ps(s[g], _mm512_set1_ps(-136.0f));
        }
        const float *xb = x + b * B;
#define W3(M, BJ, k) acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(xb[k]), \
            _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v, M)), s[g], BJ[g])))
        for (int d = 0; d < D3; d++)
#pragma GCC unroll 4
            for (int g = 0; g < G; g++) {
                const __m512i v = _mm512_load_si512((const void *)(w3 + (((p0 + g) * NB + b) * D3 + d) * 16));
                W3(m0, b0, 3 * d);
                if (3 * d + 1 < B) W3(m1, b1, 3 * d + 1);
                if (3 * d + 2 < B) W3(m2, b2, 3 * d + 2);
            }
#undef W3
    }
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) _mm512_storeu_ps(y + (p0 + g) * 16, acc[g]);
}

/* probes on buffers that stay in L1 (the same count of steps, wrong sums) */
INL T512 void g_int16(const float *x, float *y, int p0) {
    __m512 acc[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    for (int k = 0; k < K; k++)
#pragma GCC unroll 4
        for (int g = 0; g < G; g++) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(m16 + (g * 64 + (k & 63)) * 16));
            acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(x[k]), _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(v))));
        }
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) _mm512_storeu_ps(y + (p0 + g) * 16, acc[g]);
}
INL T512 void g_floor(const float *x, float *y, int p0) {
    __m512 acc[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) acc[g] = _mm512_setzero_ps();
    for (int k = 0; k < K; k++)
#pragma GCC unroll 4
        for (int g = 0; g < G; g++)
            acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(x[k]), _mm512_loadu_ps(l1w + (g * 64 + (k & 63)) * 16)));
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) _mm512_storeu_ps(y + (p0 + g) * 16, acc[g]);
}

/* two multiplies and an add per 16 weights; s kept opaque (a constant would be folded) */
INL T512 void g_floor2(const float *x, float *y, int p0) {
    __m512 acc[G], s[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) { acc[g] = _mm512_setzero_ps(); s[g] = _mm512_set1_ps(1.0f + 0.001f * (float)g); __asm__("" : "+v"(s[g])); }
    for (int k = 0; k < K; k++)
#pragma GCC unroll 4
        for (int g = 0; g < G; g++)
            acc[g] = _mm512_add_ps(acc[g], _mm512_mul_ps(_mm512_set1_ps(x[k]), _mm512_mul_ps(_mm512_loadu_ps(l1w + (g * 64 + (k & 63)) * 16), s[g])));
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) _mm512_storeu_ps(y + (p0 + g) * 16, acc[g]);
}

T512 static void r_nib(const float *x, float *y) { for (int p = 0; p < P; p += G) g_nib(x, y, p, 0); }
T512 static void r_w3(const float *x, float *y) { for (int p = 0; p < P; p += G) g_w3(x, y, p); }
T512 static void r_floor2(const float *x, float *y) { for (int p = 0; p < P; p += G) g_floor2(x, y, p); }
T512 static void r_byte(const float *x, float *y) { for (int p = 0; p < P; p += G) g_byte(x, y, p, 0); }
T512 static void r_noscale(const float *x, float *y) { for (int p = 0; p < P; p += G) g_byte(x, y, p, 1); }
T512 static void r_int16(const float *x, float *y) { for (int p = 0; p < P; p += G) g_int16(x, y, p); }
T512 static void r_floor(const float *x, float *y) { for (int p = 0; p < P; p += G) g_floor(x, y, p); }

static void bench(const char *name, void (*f)(const float *, float *), const float *want) {
    static float y[N];
    f(X, y);
    double best = 1e9;
    for (int r = 0; r < 2000; r++) { double t = now(); f(X, y); t = now() - t; if (t < best) best = t; }
    printf("%-8s %7.2f us%s\n", name, best * 1e6, want ? (memcmp(y, want, sizeof y) ? "  DIFFERS from the reference" : "  bit-identical") : "");
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) { printf("needs AVX-512F/BW\n"); return 0; }
    srand(1);
    for (int u = 0; u < N; u++) for (int k = 0; k < K; k++) W[u][k] = (int8_t)(rand() % 16 - 8);
    for (int u = 0; u < N; u++) for (int b = 0; b < NB; b++) S[u][b] = (float)(rand() % 2048 + 1) / 65536.0f;
    for (int k = 0; k < K; k++) X[k] = sinf(0.37f * (float)k) * 3.1f;
    for (int u = 0; u < N; u++) {
        for (int k = 0; k < K; k++) {
            int v = W[u][k] & 15, p = u / 16, c = u % 16;
            w4[(p * K + k - k % 8) * 8 + c * 4 + (k % 8) / 2] |= (uint8_t)(k % 2 ? v << 4 : v);
            w1[(p * K + k - k % 4) * 16 + c * 4 + k % 4] = (uint8_t)v;
            w3[((p * NB + k / B) * D3 + (k % B) / 3) * 16 + c] |= 142u << 23 | (uint32_t)(W[u][k] + 8) << (8 + 4 * ((k % B) % 3));
        }
        for (int b = 0; b < NB; b++) sc[((u / 16) * NB + b) * 16 + u % 16] = S[u][b];
    }
    for (int i = 0; i < 64 * 64 * 16; i++) m16[i] = (int16_t)(rand() % 30000 - 15000);
    for (int i = 0; i < 4 * 64 * 16; i++) l1w[i] = (float)(rand() % 15 - 7) * 1e-3f;
    static float want[N];
    reference(want);
    bench("nib", r_nib, want);
    bench("byte", r_byte, want);
    bench("w3", r_w3, want);
    bench("noscale", r_noscale, NULL);
    bench("int16", r_int16, NULL);
    bench("floor2", r_floor2, NULL);
    bench("floor", r_floor, NULL);
    return 0;
}
#else
int main(void) { printf("x86-64 with GCC or clang only\n"); return 0; }
#endif
