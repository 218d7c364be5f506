/* gemm_f32_avx2.c — the AVX2 microkernels (gemm_f32_ukr.h): panels of 8 floats (one
 * ymm). Two sets: for layers of 8 channels or fewer (one panel), tiles of 8 rows x 1 panel
 * = 8 accumulators in registers; for wider ones, tiles of 6 rows x 2 panels = 12
 * accumulators (of 16: the two weight vectors and the broadcast besides), a last odd panel
 * 6 x 1. Per k the 8 x 1 tile issues 8 broadcasts for 8 multiply-adds, the 6 x 2 one 6 for
 * 12, and keeps 12 sums in flight instead of 8 (an FMA's 4-cycle latency on two pipes needs
 * 8): on Zen 3 the 1 x 1 conv 33 x 33 x 512 -> 256 of deeplabv3 runs at 69-89 GFLOP/s
 * under fma (one CONV_2D, 1 thread, best of 30; FMA peak 94; session 13). Single rows take
 * two panels at a time.
 *
 * Bit-identical to the reference: _mm256_mul_ps then _mm256_add_ps (--float-arith muladd;
 * no FMA, although the level requires the CPU to have it), k in order; the clamp is _mm256_max_ps(lo, v) then
 * _mm256_min_ps(hi, v) = v < lo ? lo : v > hi ? hi : v. Stores of a partial panel go
 * through a small buffer. Compiled with __attribute__((target("avx2"))) and only called
 * when the CPU has AVX2 and FMA (cpu_isa.h).
 *
 * The FMA set (gc_ukr_avx2_fma, GC_GEMM_F32_FMA): each multiply-add one _mm256_fmadd_ps
 * (acc = fmaf(a, w, acc)), bit-identical to that mode's reference loops.
 */
#include "interp/kernels/gemm_f32_ukr.h"

#ifdef GC_HAVE_X86_KERNELS
#include <immintrin.h>
#include <string.h>

#define T256 __attribute__((target("avx2,fma")))
#define INL static inline __attribute__((always_inline))

/* acc + a * b: two roundings (fma = 0), or one (fma = 1); fma is a constant at every call */
INL T256 __m256 madd(const int fma, __m256 acc, __m256 a, __m256 b) {
    return fma ? _mm256_fmadd_ps(a, b, acc) : _mm256_add_ps(acc, _mm256_mul_ps(a, b));
}

enum { PW = 8, MR = 8 };

INL T256 void store_part(float *y, __m256 v, int n) {
    if (n >= PW) { _mm256_storeu_ps(y, v); return; }
    if (n <= 0) return;
    float tmp[PW];
    _mm256_storeu_ps(tmp, v);
    memcpy(y, tmp, (size_t)n * sizeof(float));
}

INL T256 void body(const gc_ukr_args *g, const int mrk, const int np, const int fma) {
    __m256 acc[MR][2];
#pragma GCC unroll 8
    for (int m = 0; m < mrk; m++) {
        acc[m][0] = _mm256_setzero_ps();
        acc[m][1] = _mm256_setzero_ps();
    }
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
#pragma GCC unroll 8
        for (int m = 0; m < mrk; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t ic = 0; ic < ICg; ic++) {
            const __m256 v0 = _mm256_load_ps(w0);
            __m256 v1 = v0;
            if (np == 2) v1 = _mm256_load_ps(w1);
            w0 += PW; w1 += PW;
#pragma GCC unroll 8
            for (int m = 0; m < mrk; m++) {
                const __m256 b = _mm256_broadcast_ss(ap[m] + ic);
                acc[m][0] = madd(fma, acc[m][0], b, v0);
                if (np == 2) acc[m][1] = madd(fma, acc[m][1], b, v1);
            }
        }
    }
    const __m256 lo = _mm256_set1_ps(g->lo), hi = _mm256_set1_ps(g->hi);
    __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
    if (g->bias) {
        b0 = _mm256_loadu_ps(g->bias);
        if (np == 2) b1 = _mm256_loadu_ps(g->bias + PW);
    }
    const int nc0 = g->nc < PW ? g->nc : PW, nc1 = g->nc - nc0;
#pragma GCC unroll 8
    for (int m = 0; m < mrk; m++) {
        if (m >= g->mr) break;
        float *y = g->y + (size_t)m * (size_t)g->ldy;
        __m256 v = acc[m][0];
        if (g->bias) v = _mm256_add_ps(v, b0);
        store_part(y, _mm256_min_ps(hi, _mm256_max_ps(lo, v)), nc0);
        if (np == 2) {
            v = acc[m][1];
            if (g->bias) v = _mm256_add_ps(v, b1);
            store_part(y + PW, _mm256_min_ps(hi, _mm256_max_ps(lo, v)), nc1);
        }
    }
}

/* the wide layers' set (see the top): body with 6 rows, 1 or 2 panels */
enum { MR6 = 6 };

T256 static void k_one(const gc_ukr_args *g) { body(g, MR, 1, 0); }
T256 static void k6_two(const gc_ukr_args *g) { body(g, MR6, 2, 0); }
T256 static void k6_one(const gc_ukr_args *g) { body(g, MR6, 1, 0); }
T256 static void f6_two(const gc_ukr_args *g) { body(g, MR6, 2, 1); }
T256 static void f6_one(const gc_ukr_args *g) { body(g, MR6, 1, 1); }
T256 static void k_two_r1(const gc_ukr_args *g) { body(g, 1, 2, 0); }
T256 static void k_one_r1(const gc_ukr_args *g) { body(g, 1, 1, 0); }
T256 static void f_one(const gc_ukr_args *g) { body(g, MR, 1, 1); }
T256 static void f_two_r1(const gc_ukr_args *g) { body(g, 1, 2, 1); }
T256 static void f_one_r1(const gc_ukr_args *g) { body(g, 1, 1, 1); }

static const gc_ukr_set set = { PW, MR, NULL, k_one, k_two_r1, k_one_r1, NULL, NULL };
static const gc_ukr_set set_fma = { PW, MR, NULL, f_one, f_two_r1, f_one_r1, NULL, NULL };
static const gc_ukr_set set6 = { PW, MR6, k6_two, k6_one, k_two_r1, k_one_r1, NULL, NULL };
static const gc_ukr_set set6_fma = { PW, MR6, f6_two, f6_one, f_two_r1, f_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_avx2(void) { return &set; }
const gc_ukr_set *gc_ukr_avx2_fma(void) { return &set_fma; }
const gc_ukr_set *gc_ukr_avx2_wide(void) { return &set6; }
const gc_ukr_set *gc_ukr_avx2_wide_fma(void) { return &set6_fma; }
#endif
