/* h16_split_check.c — the split forms of f16_simd.h (gemm_h16_avx512.c's split set) against
 * the conversions, over every case they are used for:
 *   products: every a >= 0 and every w, both halves (finite), with |a w| <= 65504:
 *     gc_r16v_prod_512(a, w S, w C S) == r(a w) S   (and w S, w C S exact floats);
 *   sums: every pair s, h of halves with |s + h| <= 65519 (below the tie to Inf):
 *     gc_r16v_512(s S + h S) == r(s + h) S;
 * r being vcvtps2ph / vcvtph2ps (gc_r16c_512), equality as floats (+0 == -0: a zero's sign
 * does not reach the kernels' outputs). Negative a follows by symmetry (round-to-nearest-
 * even is odd-symmetric, and so is every step). About 6e9 cases, a few seconds.
 *
 *   h16_split_check        exit 0: all equal; 1: some differ (the first few printed);
 *                          2: no AVX-512F / F16C */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "interp/fp16.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/f16_simd.h"

#ifdef GC_HAVE_F16_SIMD
static float hv[65536 + 16], ws[65536 + 16], wcs[65536 + 16];

GC_T512 static long check(long *tested) {
    int n = 0;
    long bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = gc_f16_to_f32((uint16_t)h);
        if (!isfinite(f)) continue;
        hv[n] = f;
        ws[n] = f * GC_R16V_S;
        wcs[n] = f * GC_R16V_C * GC_R16V_S;
        if ((double)ws[n] != (double)f * 0x1p-125 || (double)wcs[n] != (double)f * 8193.0 * 0x1p-125) {
            if (bad++ < 5) printf("scaled weight inexact: %a\n", (double)f);
        }
        n++;
    }
    const int nv = n;
    while (n % 16) { hv[n] = ws[n] = wcs[n] = 0.0f; n++; }
    const __m512 S = _mm512_set1_ps(GC_R16V_S), lim = _mm512_set1_ps(65504.0f), slim = _mm512_set1_ps(65519.0f);
    for (int i = 0; i < nv; i++) {
        const __m512 s1 = _mm512_set1_ps(hv[i]), ss = _mm512_mul_ps(s1, S);
        const bool pos = !signbit(hv[i]);
        for (int j = 0; j < n; j += 16) {
            const __m512 w = _mm512_loadu_ps(hv + j);
            if (pos) {                                         /* products a = hv[i] >= 0 */
                const __m512 p = _mm512_mul_ps(s1, w);
                const __mmask16 ok = _mm512_cmp_ps_mask(_mm512_abs_ps(p), lim, _CMP_LE_OQ);
                const __m512 got = gc_r16v_prod_512(s1, _mm512_loadu_ps(ws + j), _mm512_loadu_ps(wcs + j));
                const __mmask16 d = ok & ~_mm512_cmp_ps_mask(got, _mm512_mul_ps(gc_r16c_512(p), S), _CMP_EQ_OQ);
                if (d && bad < 5) printf("product %a * lanes from %a differ\n", (double)hv[i], (double)hv[j]);
                bad += __builtin_popcount(d);
                *tested += __builtin_popcount(ok);
            }
            const __m512 x = _mm512_add_ps(s1, w);             /* sums s = hv[i], h = w */
            const __mmask16 ok = _mm512_cmp_ps_mask(_mm512_abs_ps(x), slim, _CMP_LE_OQ);
            const __m512 got = gc_r16v_512(_mm512_add_ps(ss, _mm512_mul_ps(w, S)));
            const __mmask16 d = ok & ~_mm512_cmp_ps_mask(got, _mm512_mul_ps(gc_r16c_512(x), S), _CMP_EQ_OQ);
            if (d && bad < 5) printf("sum %a + lanes from %a differ\n", (double)hv[i], (double)hv[j]);
            bad += __builtin_popcount(d);
            *tested += __builtin_popcount(ok);
        }
    }
    return bad;
}
#endif

int main(void) {
#ifdef GC_HAVE_F16_SIMD
    if (gc_isa_active() >= GC_ISA_AVX512 && gc_f16_have_f16c()) {
        long tested = 0, bad = check(&tested);
        printf("h16_split_check: %ld cases, %ld different\n", tested, bad);
        return bad ? 1 : 0;
    }
#endif
    fprintf(stderr, "h16_split_check: no AVX-512F / F16C\n");
    return 2;
}
