/* gemm_f32_avx512.c — the AVX-512F microkernels (gemm_f32_ukr.h): panels of 16 floats
 * (one zmm), tiles of 8 rows x 2 panels = 16 accumulators in registers.
 *
 * Bit-identical to the reference: _mm512_mul_ps then _mm512_add_ps (each rounded, as the
 * reference's `acc += x * w` compiled without contraction), k in order; the clamp is
 * _mm512_max_ps(lo, v) then _mm512_min_ps(hi, v), which is exactly
 * v < lo ? lo : v > hi ? hi : v (NaN and -0 included). Compiled with
 * __attribute__((target("avx512f"))) and only called when the CPU has it (cpu_isa.h).
 */
#include "interp/kernels/gemm_f32_ukr.h"

#ifdef GC_HAVE_X86_KERNELS
#include <immintrin.h>

#define T512 __attribute__((target("avx512f")))
#define INL static inline __attribute__((always_inline))

enum { PW = 16, MR = 8 };

INL T512 void body(const gc_ukr_args *g, const int mrk, const int np) {
    __m512 acc[MR][2];
#pragma GCC unroll 8
    for (int m = 0; m < mrk; m++) {
        acc[m][0] = _mm512_setzero_ps();
        acc[m][1] = _mm512_setzero_ps();
    }
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
#pragma GCC unroll 8
        for (int m = 0; m < mrk; m++) ap[m] = g->a[(size_t)t * MR + m] + g->a_off;
        for (int32_t ic = 0; ic < ICg; ic++) {
            const __m512 v0 = _mm512_load_ps(w0);
            __m512 v1 = v0;
            if (np == 2) v1 = _mm512_load_ps(w1);
            w0 += PW; w1 += PW;
#pragma GCC unroll 8
            for (int m = 0; m < mrk; m++) {
                const __m512 b = _mm512_set1_ps(ap[m][ic]);
                acc[m][0] = _mm512_add_ps(acc[m][0], _mm512_mul_ps(b, v0));
                if (np == 2) acc[m][1] = _mm512_add_ps(acc[m][1], _mm512_mul_ps(b, v1));
            }
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    __m512 b0 = _mm512_setzero_ps(), b1 = _mm512_setzero_ps();
    if (g->bias) {
        b0 = _mm512_loadu_ps(g->bias);
        if (np == 2) b1 = _mm512_loadu_ps(g->bias + PW);
    }
    const int nc0 = g->nc < PW ? g->nc : PW, nc1 = g->nc - nc0;
    const __mmask16 k0 = (__mmask16)(nc0 >= PW ? 0xffffu : (1u << nc0) - 1u);
    const __mmask16 k1 = (__mmask16)(nc1 >= PW ? 0xffffu : nc1 > 0 ? (1u << nc1) - 1u : 0u);
#pragma GCC unroll 8
    for (int m = 0; m < mrk; m++) {
        if (m >= g->mr) break;
        float *y = g->y + (size_t)m * (size_t)g->ldy;
        __m512 v = acc[m][0];
        if (g->bias) v = _mm512_add_ps(v, b0);
        v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
        _mm512_mask_storeu_ps(y, k0, v);
        if (np == 2) {
            v = acc[m][1];
            if (g->bias) v = _mm512_add_ps(v, b1);
            v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
            _mm512_mask_storeu_ps(y + PW, k1, v);
        }
    }
}

T512 static void k_two(const gc_ukr_args *g) { body(g, MR, 2); }
T512 static void k_one(const gc_ukr_args *g) { body(g, MR, 1); }
T512 static void k_two_r1(const gc_ukr_args *g) { body(g, 1, 2); }
T512 static void k_one_r1(const gc_ukr_args *g) { body(g, 1, 1); }

static const gc_ukr_set set = { PW, MR, k_two, k_one, k_two_r1, k_one_r1 };
const gc_ukr_set *gc_ukr_avx512(void) { return &set; }
#endif
