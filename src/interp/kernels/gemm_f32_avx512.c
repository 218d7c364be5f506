/* gemm_f32_avx512.c — the AVX-512F microkernels (gemm_f32_ukr.h): panels of 16 floats
 * (one zmm), tiles of 16 rows x 1 panel = 16 accumulators in registers; single rows
 * (matrix-vector products) take two panels at a time.
 *
 * Why 16 x 1: without FMA every multiply-add is a multiply and an add, which already
 * fill the multiply and add pipes (Zen 4: one 512-bit multiply and one 512-bit add per
 * cycle); a separate broadcast of each a value would take pipe slots too (an 8 x 2 tile
 * measured 2/3 of the 16 x 1 one). With one panel every broadcast feeds a single
 * multiply, so it folds into it as an embedded-broadcast memory operand ({1to16}).
 *
 * Bit-identical to the reference: _mm512_mul_ps then _mm512_add_ps (each rounded, as the
 * reference's `acc += x * w` compiled without contraction), k in order; the clamp is
 * _mm512_max_ps(lo, v) then _mm512_min_ps(hi, v), which is exactly
 * v < lo ? lo : v > hi ? hi : v (NaN and -0 included). Compiled with
 * __attribute__((target("avx512f"))) and only called when the CPU has it (cpu_isa.h).
 *
 * The FMA set (gc_ukr_avx512_fma, GC_GEMM_F32_FMA): the same kernels with each multiply-add
 * one _mm512_fmadd_ps (acc = fmaf(a, w, acc), rounded once), bit-identical to the reference
 * loops of that mode. Where multiplies and adds share the FMA ports (Intel's server cores:
 * two 512-bit FMA ports, no separate adder) it does twice the multiply-adds per cycle.
 */
#include "interp/kernels/gemm_f32_ukr.h"

#ifdef GC_HAVE_X86_KERNELS
#include <immintrin.h>

#define T512 __attribute__((target("avx512f")))
#define INL static inline __attribute__((always_inline))

/* acc + a * b: two roundings (fma = 0), or one (fma = 1); fma is a constant at every call */
INL T512 __m512 madd(const int fma, __m512 acc, __m512 a, __m512 b) {
    return fma ? _mm512_fmadd_ps(a, b, acc) : _mm512_add_ps(acc, _mm512_mul_ps(a, b));
}

enum { PW = 16, MR = 16 };

/* One row (mr = 1), one or two panels: matrix-vector products stream the weights. */
INL T512 void row1(const gc_ukr_args *g, const int np, const int fma) {
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    for (int32_t t = 0; t < g->T; t++) {
        const float *ap = g->a[(size_t)t * g->a_mr] + g->a_off;
        for (int32_t ic = 0; ic < g->ICg; ic++) {
            const __m512 b = _mm512_set1_ps(ap[ic]);
            acc0 = madd(fma, acc0, b, _mm512_load_ps(w0));
            if (np == 2) acc1 = madd(fma, acc1, b, _mm512_load_ps(w1));
            w0 += PW; w1 += PW;
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    const int nc0 = g->nc < PW ? g->nc : PW, nc1 = g->nc - nc0;
    if (g->bias) {
        acc0 = _mm512_add_ps(acc0, _mm512_loadu_ps(g->bias));
        if (np == 2) acc1 = _mm512_add_ps(acc1, _mm512_loadu_ps(g->bias + PW));
    }
    _mm512_mask_storeu_ps(g->y, (__mmask16)(nc0 >= PW ? 0xffffu : (1u << nc0) - 1u),
                          _mm512_min_ps(hi, _mm512_max_ps(lo, acc0)));
    if (np == 2)
        _mm512_mask_storeu_ps(g->y + PW, (__mmask16)(nc1 >= PW ? 0xffffu : (1u << nc1) - 1u),
                              _mm512_min_ps(hi, _mm512_max_ps(lo, acc1)));
}

/* 16 rows x 1 panel: the broadcast of each a value folds into its multiply (an
 * embedded-broadcast memory operand), so the shuffle unit stays out of the K loop. */
INL T512 void body16(const gc_ukr_args *g, const int fma) {
    enum { R = MR };
    __m512 acc[R];
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) acc[m] = _mm512_setzero_ps();
    const float *w0 = g->w;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[R];
#pragma GCC unroll 16
        for (int m = 0; m < R; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t ic = 0; ic < ICg; ic++) {
            const __m512 v0 = _mm512_load_ps(w0);
            w0 += PW;
#pragma GCC unroll 16
            for (int m = 0; m < R; m++) acc[m] = madd(fma, acc[m], _mm512_set1_ps(ap[m][ic]), v0);
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    const __m512 b0 = g->bias ? _mm512_loadu_ps(g->bias) : _mm512_setzero_ps();
    const __mmask16 k0 = (__mmask16)(g->nc >= PW ? 0xffffu : (1u << g->nc) - 1u);
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) {
        if (m >= g->mr) break;
        __m512 v = acc[m];
        if (g->bias) v = _mm512_add_ps(v, b0);
        _mm512_mask_storeu_ps(g->y + (size_t)m * (size_t)g->ldy, k0, _mm512_min_ps(hi, _mm512_max_ps(lo, v)));
    }
}

T512 static void k_one(const gc_ukr_args *g) { body16(g, 0); }
T512 static void k_two_r1(const gc_ukr_args *g) { row1(g, 2, 0); }
T512 static void k_one_r1(const gc_ukr_args *g) { row1(g, 1, 0); }
T512 static void f_one(const gc_ukr_args *g) { body16(g, 1); }
T512 static void f_two_r1(const gc_ukr_args *g) { row1(g, 2, 1); }
T512 static void f_one_r1(const gc_ukr_args *g) { row1(g, 1, 1); }

static const gc_ukr_set set = { PW, MR, NULL, k_one, k_two_r1, k_one_r1, NULL };
static const gc_ukr_set set_fma = { PW, MR, NULL, f_one, f_two_r1, f_one_r1, NULL };
const gc_ukr_set *gc_ukr_avx512(void) { return &set; }
const gc_ukr_set *gc_ukr_avx512_fma(void) { return &set_fma; }
#endif
