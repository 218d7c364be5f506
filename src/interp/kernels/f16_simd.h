/* f16_simd.h — rounding float vectors to half inside the fast fp16 kernels (private to
 * kernels/gemm_h16_*.c, dwconv_f32.c and winograd16_fast.c; x86-64 with GCC / clang).
 *
 * r(v) = vcvtps2ph with round-to-nearest-even (imm8 0, MXCSR ignored), then vcvtph2ps:
 * lane by lane exactly the bits of gc_f16_round_inline (fp16.h) for every float, NaN
 * included (sign kept, quiet bit set, the payload's low 13 bits cleared);
 * tests/c/test_fp16_simd.c checks it against the scalar code over a dense sample of all
 * 2^32 floats (every float with GC_FP16_EXHAUSTIVE=1).
 *
 * One half multiply-add step is acc = r(acc + r(x w)): two conversion pairs. (An exact
 * float-arithmetic rounding of the product, (|p| + c) - c with c = 2^13 max(2^e, 2^-14),
 * was tried for one of the two: it measured slower in the real kernels on Zen 4,
 * 58-64 against 77-80 ms for deeplabv3 at fp16-acc.)
 */
#ifndef GC_F16_SIMD_H
#define GC_F16_SIMD_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
#define GC_HAVE_F16_SIMD 1
#include <immintrin.h>

#define GC_T512 __attribute__((target("avx512f")))
#define GC_T256H __attribute__((target("avx2,f16c")))
#define GC_INL static inline __attribute__((always_inline))

/* ---- AVX-512F (16 lanes) ---- */
GC_INL GC_T512 __m512 gc_r16c_512(__m512 v) {
    return _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
/* r(p) for |p| <= 65504 (finite) in float arithmetic, on the FMA pipes instead of the
 * conversions' (the quick kernels of gemm_h16_avx512.c): e = max(2^floor(log2 |p|), 2^-14)
 * (p's exponent bits, clamped at the smallest normal half), c = 1.5 * 2^13 * e,
 * r = (p + c) - c, each step one FMA (c = C e is exact). |p| < 2e, so p + c lies in
 * [2^13 e, 2^14 e), whose ulp e * 2^-10 is the half's quantum at p's exponent (2^-24 below
 * 2^-14), and c is an even multiple of it: the addition rounds p to the nearest half, ties
 * to even, and the subtraction is exact. The value is gc_r16c_512's; the bits too, except
 * +0 where r(p) is -0 (p = -0, or a negative p that rounds to zero). Past 65504, Inf and
 * NaN it is wrong (no inf, no NaN payload). tests/c/test_fp16_simd.c checks it. */
GC_INL GC_T512 __m512 gc_r16q_512(__m512 p) {
    const __m512i e = _mm512_max_epu32(_mm512_and_si512(_mm512_castps_si512(p), _mm512_set1_epi32(0x7f800000)),
                                       _mm512_set1_epi32(0x38800000));
    const __m512 C = _mm512_set1_ps(12288.0f), ef = _mm512_castsi512_ps(e);
    return _mm512_fnmadd_ps(C, ef, _mm512_fmadd_ps(C, ef, p));
}
/* The split forms (gemm_h16_avx512.c's split set, which explains them): values scaled by
 * S = 2^-125, Veltkamp's splitting with C = 2^13 + 1, float arithmetic only.
 * gc_r16v_prod_512: r(a w) S for halves a, w (|a w| <= 65504) from ws = w S, wcs = w C S;
 * gc_r16v_512: r(x / S) S for x = RN(s + h) of two scaled halves (|s + h| / S <= 65519).
 * A zero may come out +0 where r gives -0. bench/h16_split_check.c checks both over every
 * pair of halves. (Compiled without contraction: -std=c11, so no FMA fuses g into x - g.) */
#define GC_R16V_S 0x1p-125f
#define GC_R16V_C 8193.0f
GC_INL GC_T512 __m512 gc_r16v_prod_512(__m512 a, __m512 ws, __m512 wcs) {
    const __m512 g = _mm512_mul_ps(a, wcs);
    return _mm512_add_ps(g, _mm512_fmsub_ps(a, ws, g));
}
GC_INL GC_T512 __m512 gc_r16v_512(__m512 x) {
    const __m512 g = _mm512_mul_ps(x, _mm512_set1_ps(GC_R16V_C));
    return _mm512_add_ps(g, _mm512_sub_ps(x, g));
}
/* r(acc + r(p)) */
GC_INL GC_T512 __m512 gc_h16_add_512(__m512 acc, __m512 p) { return gc_r16c_512(_mm512_add_ps(acc, gc_r16c_512(p))); }

/* ---- AVX2 + F16C (8 lanes) ---- */
GC_INL GC_T256H __m256 gc_r16c_256(__m256 v) {
    return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
GC_INL GC_T256H __m256 gc_h16_add_256(__m256 acc, __m256 p) { return gc_r16c_256(_mm256_add_ps(acc, gc_r16c_256(p))); }
#endif

#endif
