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
 * The FMA sets (gc_ukr_avx512_fma, GC_GEMM_F32_FMA): the same kernels with each multiply-add
 * one fused instruction (acc = fmaf(a, w, acc), rounded once), bit-identical to the reference
 * loops of that mode. Where multiplies and adds share the FMA ports (Intel's server cores:
 * two 512-bit FMA ports, no separate adder) they do twice the multiply-adds per cycle.
 */
#include "interp/kernels/gemm_f32_ukr.h"

#ifdef GC_HAVE_X86_KERNELS
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>

#define T512 __attribute__((target("avx512f")))
#define T512VL __attribute__((target("avx512f,avx512vl,fma")))   /* ymm16-31, {1to8} */
#define INL static inline __attribute__((always_inline))

/* acc + a * b: two roundings (fma = 0), or one (fma = 1); fma is a constant at every call */
INL T512 __m512 madd(const int fma, __m512 acc, __m512 a, __m512 b) {
    return fma ? _mm512_fmadd_ps(a, b, acc) : _mm512_add_ps(acc, _mm512_mul_ps(a, b));
}
INL T512VL __m256 madd8(const int fma, __m256 acc, __m256 a, __m256 b) {
    return fma ? _mm256_fmadd_ps(a, b, acc) : _mm256_add_ps(acc, _mm256_mul_ps(a, b));
}

enum { PW = 16, MR = 16 };
/* The tile kernels prefetch the panel row WPF rows (4 KiB) ahead of the one they load: the
 * hardware prefetchers stop at 4 KiB pages, and a tile's K loop reads a panel's 64-byte rows
 * one after the other, so every 64 rows it waited for memory (a filter too large to stay in
 * cache: the 7x7 layers of efficientnet_b0, 192 x 1152 floats and more, 2.96 -> 2.43 ms in
 * build/op_profile; 32 rows ahead 2.61, 128 rows 2.54). A prefetch past the filter's end
 * reads nothing (no fault). */
enum { WPF = 64 };

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

/* R (16, 8 or 4: a constant where it is inlined) rows x 1 panel of nc <= 16 columns (w,
 * bias, y: the panel's): the broadcast of each a value folds into its multiply (an
 * embedded-broadcast memory operand), so the shuffle unit stays out of the K loop. R < 16
 * for a last tile of at most R rows (14 x 14 maps: 196 = 12 x 16 + 4), which would
 * otherwise compute 16. Rows mr..R-1 are computed and dropped, as in a full tile. */
INL T512 void bodyR(const gc_ukr_args *g, const float *w0, const float *bias, float *y, const int32_t nc, const int R,
                     const int fma) {
    __m512 acc[MR];
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) acc[m] = _mm512_setzero_ps();
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
#pragma GCC unroll 16
        for (int m = 0; m < R; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t ic = 0; ic < ICg; ic++) {
            const __m512 v0 = _mm512_load_ps(w0);
            _mm_prefetch((const char *)(w0 + WPF * PW), _MM_HINT_T0);
            w0 += PW;
#pragma GCC unroll 16
            for (int m = 0; m < R; m++) acc[m] = madd(fma, acc[m], _mm512_set1_ps(ap[m][ic]), v0);
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    const __m512 b0 = bias ? _mm512_loadu_ps(bias) : _mm512_setzero_ps();
    const __mmask16 k0 = (__mmask16)(nc >= PW ? 0xffffu : (1u << nc) - 1u);
    /* no activation (lo = -inf, hi = inf): the clamp is the identity on every v (NaN and
     * -0 included), so it is left out */
    const bool clamp = !(g->lo == -INFINITY && g->hi == INFINITY);
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) {
        if (m >= g->mr) break;
        __m512 v = acc[m];
        if (bias) v = _mm512_add_ps(v, b0);
        if (clamp) v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
        _mm512_mask_storeu_ps(y + (size_t)m * (size_t)g->ldy, k0, v);
    }
}

/* R rows x the first 8 columns of a panel (a last panel with nc <= 8: N = 24, 40, ...):
 * the same sums as bodyR's lanes 0..7 (each lane's k order unchanged) in ymm registers,
 * which take half the multiply / add slots of a zmm. The panel rows stay 16 floats apart
 * (the packing is shared); only their first 32 bytes are read. */
INL T512VL void halfR(const gc_ukr_args *g, const float *w0, const float *bias, float *y, const int32_t nc, const int R,
                       const int fma) {
    __m256 acc[MR];
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) acc[m] = _mm256_setzero_ps();
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
#pragma GCC unroll 16
        for (int m = 0; m < R; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t ic = 0; ic < ICg; ic++) {
            const __m256 v0 = _mm256_load_ps(w0);
            _mm_prefetch((const char *)(w0 + WPF * PW), _MM_HINT_T0);
            w0 += PW;
#pragma GCC unroll 16
            for (int m = 0; m < R; m++) acc[m] = madd8(fma, acc[m], _mm256_set1_ps(ap[m][ic]), v0);
        }
    }
    const __m256 lo = _mm256_set1_ps(g->lo), hi = _mm256_set1_ps(g->hi);
    const __m256 b0 = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
    const __mmask8 k0 = (__mmask8)(nc >= 8 ? 0xffu : (1u << nc) - 1u);
    const bool clamp = !(g->lo == -INFINITY && g->hi == INFINITY);
#pragma GCC unroll 16
    for (int m = 0; m < R; m++) {
        if (m >= g->mr) break;
        __m256 v = acc[m];
        if (bias) v = _mm256_add_ps(v, b0);
        if (clamp) v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));   /* max(lo, v) then min(hi, v) */
        _mm512_mask_storeu_ps(y + (size_t)m * (size_t)g->ldy, (__mmask16)k0, _mm512_castps256_ps512(v));
    }
}

T512 static void k_one(const gc_ukr_args *g) { bodyR(g, g->w, g->bias, g->y, g->nc, MR, 0); }
T512 static void f_one(const gc_ukr_args *g) { bodyR(g, g->w, g->bias, g->y, g->nc, MR, 1); }
/* every panel of the tile (gemm_f32_ukr.h `all`): full panels in zmm; with AVX-512VL (the
 * 16 ymm accumulators need ymm16-31 to stay in registers) a last one of at most 8
 * columns in ymm */
INL T512VL void all_panels(const gc_ukr_args *g, const bool vl, const int R, const int fma) {
    for (int32_t n0 = 0, p = 0; n0 < g->nc; n0 += PW, p++) {
        const int32_t nc = g->nc - n0 < PW ? g->nc - n0 : PW;
        const float *w = g->w + (size_t)p * (size_t)g->pstride, *bias = g->bias ? g->bias + n0 : NULL;
        if (vl && nc <= 8) halfR(g, w, bias, g->y + n0, nc, R, fma);
        else bodyR(g, w, bias, g->y + n0, nc, R, fma);
    }
}
INL T512VL void all_vl(const gc_ukr_args *g, const int fma) {
    if (g->mr <= 4) all_panels(g, true, 4, fma);
    else if (g->mr <= 8) all_panels(g, true, 8, fma);
    else all_panels(g, true, MR, fma);
}
INL T512 void all_zmm(const gc_ukr_args *g, const int fma) {
    for (int32_t n0 = 0, p = 0; n0 < g->nc; n0 += PW, p++)
        bodyR(g, g->w + (size_t)p * (size_t)g->pstride, g->bias ? g->bias + n0 : NULL, g->y + n0,
              g->nc - n0 < PW ? g->nc - n0 : PW, MR, fma);
}
T512VL static void k_all_vl(const gc_ukr_args *g) { all_vl(g, 0); }
T512VL static void f_all_vl(const gc_ukr_args *g) { all_vl(g, 1); }
T512 static void k_all(const gc_ukr_args *g) { all_zmm(g, 0); }
T512 static void f_all(const gc_ukr_args *g) { all_zmm(g, 1); }
T512 static void k_two_r1(const gc_ukr_args *g) { row1(g, 2, 0); }
T512 static void k_one_r1(const gc_ukr_args *g) { row1(g, 1, 0); }
T512 static void f_two_r1(const gc_ukr_args *g) { row1(g, 2, 1); }
T512 static void f_one_r1(const gc_ukr_args *g) { row1(g, 1, 1); }

static const gc_ukr_set set = { PW, MR, NULL, k_one, k_two_r1, k_one_r1, NULL, k_all };
static const gc_ukr_set set_vl = { PW, MR, NULL, k_one, k_two_r1, k_one_r1, NULL, k_all_vl };
static const gc_ukr_set set_fma = { PW, MR, NULL, f_one, f_two_r1, f_one_r1, NULL, f_all };
static const gc_ukr_set set_fma_vl = { PW, MR, NULL, f_one, f_two_r1, f_one_r1, NULL, f_all_vl };
const gc_ukr_set *gc_ukr_avx512(void) { return __builtin_cpu_supports("avx512vl") ? &set_vl : &set; }
const gc_ukr_set *gc_ukr_avx512_fma(void) { return __builtin_cpu_supports("avx512vl") ? &set_fma_vl : &set_fma; }
#endif
