/* qvec_x86.h — TFLite's MultiplyByQuantizedMultiplier (quant.h gc_q_mul) on 16 / 8 int32
 * lanes, exactly: for the 8-bit fast kernels (qgemm8_avx512.c, qgemm8_avx2.c, qelem8.c).
 *
 *   gc_q_mul(v, q, shift), lsh = max(shift, 0), rsh = max(-shift, 0), q in [0, 2^31):
 *   xs = v * 2^lsh saturated to int32 (vpsllvd; it overflowed when shifting back
 *        arithmetically differs);
 *   r  = SaturatingRoundingDoublingHighMul(xs, q) = floor((xs q + 2^30) / 2^31) (with
 *        q >= 0 the one saturating case, both INT32_MIN, cannot occur): 64-bit products of
 *        the even lanes and of the odd lanes (vpmuldq), + 2^30, and the quotient's low 32
 *        bits, which is all of it (it fits in int32), by a logical shift: right by 31 for
 *        the even lanes, left by 1 keeping the high half for the odd ones;
 *   RoundingDivideByPOT(r, rsh) = (r >> rsh) + (r & mask > (mask >> 1) + (r < 0)),
 *        mask = 2^rsh - 1 (rsh <= 31).
 * `left` is false when every lane's lsh is 0 (the common case: the multiplier is < 1).
 * Include after <immintrin.h>, in a file that defines GC_QV512 / GC_QV256 as the target
 * attributes of its AVX-512 / AVX2 functions.
 */
#ifndef GC_QVEC_X86_H
#define GC_QVEC_X86_H

#ifdef GC_QV512
static inline __attribute__((always_inline)) GC_QV512 __m512i gc_qv512_mul(__m512i v, __m512i q, __m512i ls,
                                                                          __m512i rs, const bool left) {
    if (left) {
        const __m512i xl = _mm512_sllv_epi32(v, ls);
        const __mmask16 ovf = _mm512_cmpneq_epi32_mask(_mm512_srav_epi32(xl, ls), v);
        const __m512i sat = _mm512_mask_blend_epi32(_mm512_cmplt_epi32_mask(v, _mm512_setzero_si512()),
                                                    _mm512_set1_epi32(INT32_MAX), _mm512_set1_epi32(INT32_MIN));
        v = _mm512_mask_blend_epi32(ovf, xl, sat);
    }
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    __m512i pe = _mm512_mul_epi32(v, q);
    __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), _mm512_srli_epi64(q, 32));
    pe = _mm512_srli_epi64(_mm512_add_epi64(pe, nudge), 31);
    po = _mm512_slli_epi64(_mm512_add_epi64(po, nudge), 1);
    const __m512i r = _mm512_mask_blend_epi32((__mmask16)0xAAAA, pe, po);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, rs), one);
    const __m512i rem = _mm512_and_si512(r, mask);
    const __m512i thr = _mm512_sub_epi32(_mm512_srai_epi32(mask, 1), _mm512_srai_epi32(r, 31));
    const __m512i res = _mm512_srav_epi32(r, rs);
    return _mm512_mask_add_epi32(res, _mm512_cmpgt_epi32_mask(rem, thr), res, one);
}

/* the same with the per-lane values that depend only on the multiplier made once (a
 * block of columns requantizes many rows): q, its odd lanes moved down, the shifts, the
 * rounding mask 2^rsh - 1 and mask >> 1 */
typedef struct { __m512i q, qodd, ls, rs, mask, half; } gc_qv512p;

static inline __attribute__((always_inline)) GC_QV512 gc_qv512p gc_qv512_prep(__m512i q, __m512i ls, __m512i rs) {
    const __m512i one = _mm512_set1_epi32(1);
    gc_qv512p p = { q, _mm512_srli_epi64(q, 32), ls, rs, _mm512_sub_epi32(_mm512_sllv_epi32(one, rs), one),
                    _mm512_setzero_si512() };
    p.half = _mm512_srai_epi32(p.mask, 1);
    return p;
}

static inline __attribute__((always_inline)) GC_QV512 __m512i gc_qv512_mulp(__m512i v, const gc_qv512p *p,
                                                                           const bool left) {
    if (left) {
        const __m512i xl = _mm512_sllv_epi32(v, p->ls);
        const __mmask16 ovf = _mm512_cmpneq_epi32_mask(_mm512_srav_epi32(xl, p->ls), v);
        const __m512i sat = _mm512_mask_blend_epi32(_mm512_cmplt_epi32_mask(v, _mm512_setzero_si512()),
                                                    _mm512_set1_epi32(INT32_MAX), _mm512_set1_epi32(INT32_MIN));
        v = _mm512_mask_blend_epi32(ovf, xl, sat);
    }
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    __m512i pe = _mm512_mul_epi32(v, p->q);
    __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), p->qodd);
    pe = _mm512_srli_epi64(_mm512_add_epi64(pe, nudge), 31);
    po = _mm512_slli_epi64(_mm512_add_epi64(po, nudge), 1);
    const __m512i r = _mm512_mask_blend_epi32((__mmask16)0xAAAA, pe, po);
    const __m512i rem = _mm512_and_si512(r, p->mask);
    const __m512i thr = _mm512_sub_epi32(p->half, _mm512_srai_epi32(r, 31));
    const __m512i res = _mm512_srav_epi32(r, p->rs);
    return _mm512_mask_add_epi32(res, _mm512_cmpgt_epi32_mask(rem, thr), res, _mm512_set1_epi32(1));
}
#endif

#ifdef GC_QV256
static inline __attribute__((always_inline)) GC_QV256 __m256i gc_qv256_mul(__m256i v, __m256i q, __m256i ls,
                                                                          __m256i rs, const bool left) {
    if (left) {
        const __m256i xl = _mm256_sllv_epi32(v, ls);
        const __m256i same = _mm256_cmpeq_epi32(_mm256_srav_epi32(xl, ls), v);
        const __m256i sat = _mm256_blendv_epi8(_mm256_set1_epi32(INT32_MAX), _mm256_set1_epi32(INT32_MIN),
                                               _mm256_srai_epi32(v, 31));
        v = _mm256_blendv_epi8(sat, xl, same);
    }
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    __m256i pe = _mm256_mul_epi32(v, q);
    __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(v, 32), _mm256_srli_epi64(q, 32));
    pe = _mm256_srli_epi64(_mm256_add_epi64(pe, nudge), 31);
    po = _mm256_slli_epi64(_mm256_add_epi64(po, nudge), 1);
    const __m256i r = _mm256_blend_epi32(pe, po, 0xAA);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, rs), one);
    const __m256i rem = _mm256_and_si256(r, mask);
    const __m256i thr = _mm256_sub_epi32(_mm256_srai_epi32(mask, 1), _mm256_srai_epi32(r, 31));
    const __m256i res = _mm256_srav_epi32(r, rs);
    return _mm256_sub_epi32(res, _mm256_cmpgt_epi32(rem, thr));
}
#endif

#endif
