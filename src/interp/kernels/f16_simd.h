/* f16_simd.h — rounding float vectors to half inside the fast fp16 kernels (private to
 * kernels/gemm_h16_*.c, dwconv_f32.c and winograd16_fast.c; x86-64 with GCC / clang).
 *
 * Both forms below give, lane by lane, exactly the bits of gc_f16_round_inline (fp16.h)
 * for every float, NaN included (sign kept, quiet bit set, the payload's low 13 bits
 * cleared); tests/c/test_fp16_simd.c checks them against it over a dense sample of all
 * 2^32 floats (every float with GC_FP16_EXHAUSTIVE=1).
 *
 *   cvt: vcvtps2ph with round-to-nearest-even (imm8 0, MXCSR ignored), then vcvtph2ps.
 *   alu: float arithmetic. With a = |v| and E = a's exponent bits alone (2^floor(log2 a)
 *        for a normal a, 0 below, +inf for inf / NaN), c = max(E, 2^-14) * 2^13 and
 *        r = (a + c) - c. a + c lies in c's binade (a < 2 E << c), where one float ulp is
 *        max(E, 2^-14) * 2^-10: the quantum of a half of a's exponent (2^-24 for the half
 *        subnormals below 2^-14), so the addition rounds a to the nearest half, ties to
 *        even, and the subtraction is exact. a >= 65520 (halfway from the largest half,
 *        65504, to 2^16), inf included, gives +inf; a NaN passes through both additions
 *        (quieted, payload kept). Then v's sign goes back on and the low 13 bits are
 *        cleared (zero already in every result but a NaN). Needs round-to-nearest and no
 *        flush-to-zero in MXCSR, the defaults (the scalar code relies on them as well).
 *
 * Half arithmetic acc = r(acc + r(x w)) (one step of a half multiply-add) rounds the
 * product with alu and the sum with cvt: the conversion unit and the float ALUs then
 * work in parallel (Zen 4, 16 rows x 16 lanes: 12 G multiply-adds/s, against 7 with cvt
 * for both roundings and 8.6 with alu for both).
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
GC_INL GC_T512 __m512 gc_r16a_512(__m512 v) {
    const __m512i vi = _mm512_castps_si512(v);
    const __m512 a = _mm512_castsi512_ps(_mm512_and_si512(vi, _mm512_set1_epi32(0x7fffffff)));
    const __m512 e = _mm512_castsi512_ps(_mm512_and_si512(vi, _mm512_set1_epi32(0x7f800000)));
    const __m512 c = _mm512_mul_ps(_mm512_max_ps(e, _mm512_set1_ps(0x1p-14f)), _mm512_set1_ps(8192.0f));
    __m512 r = _mm512_sub_ps(_mm512_add_ps(a, c), c);
    const __mmask16 big = _mm512_cmp_ps_mask(a, _mm512_set1_ps(65520.0f), _CMP_GE_OQ);
    r = _mm512_mask_mov_ps(r, big, _mm512_castsi512_ps(_mm512_set1_epi32(0x7f800000)));
    /* r | (v & sign): r is >= 0 (or a positive NaN) */
    const __m512i s = _mm512_ternarylogic_epi32(_mm512_castps_si512(r), vi, _mm512_set1_epi32((int)0x80000000u), 0xf8);
    return _mm512_castsi512_ps(_mm512_and_si512(s, _mm512_set1_epi32((int)0xffffe000u)));
}
/* r(acc + r(p)) */
GC_INL GC_T512 __m512 gc_h16_add_512(__m512 acc, __m512 p) { return gc_r16c_512(_mm512_add_ps(acc, gc_r16a_512(p))); }

/* ---- AVX2 + F16C (8 lanes) ---- */
GC_INL GC_T256H __m256 gc_r16c_256(__m256 v) {
    return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
GC_INL GC_T256H __m256 gc_r16a_256(__m256 v) {
    const __m256 a = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
    const __m256 e = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7f800000)));
    const __m256 c = _mm256_mul_ps(_mm256_max_ps(e, _mm256_set1_ps(0x1p-14f)), _mm256_set1_ps(8192.0f));
    __m256 r = _mm256_sub_ps(_mm256_add_ps(a, c), c);
    const __m256 big = _mm256_cmp_ps(a, _mm256_set1_ps(65520.0f), _CMP_GE_OQ);
    r = _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(0x7f800000)), big);
    r = _mm256_and_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xffffe000u)));
    return _mm256_or_ps(r, _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u))));
}
GC_INL GC_T256H __m256 gc_h16_add_256(__m256 acc, __m256 p) { return gc_r16c_256(_mm256_add_ps(acc, gc_r16a_256(p))); }
#endif

#endif
