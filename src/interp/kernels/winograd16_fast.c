/* winograd16_fast.c — the fast path of the native fp16 Winograd F(4x4, 3x3) convolution
 * (winograd16.h, gc_wino16_set_fast): BIT-IDENTICAL to gc_wino16_run's reference loops.
 *
 * The tiles of the thread's tile rows are taken in blocks of MR (the GEMM kernels' rows,
 * gemm_f32.h), tiles flattened row by row. Per block:
 *   1. every tile's input transform, VW channels at a time (winograd16_tx.h): V [36][MR][C];
 *   2. per point p, one GEMM tile M[p] = V[p] U[p] (MR rows, K = C, N = OC) with U packed
 *      per point at prepare: GC_GEMM_F32 (acc GC_ACC_F32: products summed in float from
 *      +0 in channel order, as the reference's loop) or GC_GEMM_H16 (GC_ACC_F16:
 *      gc_f16_madd_n's steps); no bias, no clamp: M [36][MR][OC];
 *   3. every tile's output transform, VW output channels at a time, M rounded to half as
 *      it is read (the reference rounds M once stored; rounding again is the identity
 *      on halves, so the H16 case needs no branch), bias and clamp, into y; then, with
 *      w->store, the tile's outputs stored as half (what the interpreter's core would do
 *      to the whole output afterwards).
 * The transforms are the reference's formulas, step for step, lanes across channels:
 * AVX-512F (VW 16), AVX2 + F16C (VW 8; kernels/f16_simd.h), portable C (VW 1, the
 * fallback). Scratch per thread: V, M and the row pointers.
 */
#include "interp/kernels/winograd16.h"

#include <math.h>
#include <string.h>
#include "interp/fp16.h"
#include "interp/kernels/f16_simd.h"

size_t gc_wino16_scratch_floats_fast(const gc_wino16 *w) {
    const size_t MR = (size_t)w->pu.MR;
    /* V, M, the MR row pointers (as floats, 2 each), 64-byte alignment of each */
    return 36 * MR * ((size_t)w->C + (size_t)w->OC) + 2 * MR + 64;
}

/* ---- the transform instances ---- */

/* portable: one channel per "vector" */
#define TX(name) name##_c
#define TXFN static inline
#define VEC float
#define MASK int
#define V_ZERO 0.0f
#define V_SET1(c) (c)
#define V_LOAD(p, k) (*(p))
#define V_STORE(p, v, k) (*(p) = (v))
#define V_R16(v) gc_f16_round_inline(v)
#define V_MADD(acc, c, v) gc_f16_round_inline((acc) + gc_f16_round_inline((c) * (v)))
#define V_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
#include "interp/kernels/winograd16_tx.h"

#ifdef GC_HAVE_F16_SIMD
#define TX(name) name##_512
#define TXFN GC_INL GC_T512
#define VEC __m512
#define MASK __mmask16
#define V_ZERO _mm512_setzero_ps()
#define V_SET1(c) _mm512_set1_ps(c)
#define V_LOAD(p, k) _mm512_maskz_loadu_ps((k), (p))
#define V_STORE(p, v, k) _mm512_mask_storeu_ps((p), (k), (v))
#define V_R16(v) gc_r16c_512(v)
#define V_MADD(acc, c, v) gc_h16_add_512((acc), _mm512_mul_ps(_mm512_set1_ps(c), (v)))
#define V_CLAMP(v, lo, hi) _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), (v)))
#include "interp/kernels/winograd16_tx.h"

#define TX(name) name##_256
#define TXFN GC_INL GC_T256H
#define VEC __m256
#define MASK __m256i
#define V_ZERO _mm256_setzero_ps()
#define V_SET1(c) _mm256_set1_ps(c)
#define V_LOAD(p, k) _mm256_maskload_ps((p), (k))
#define V_STORE(p, v, k) _mm256_maskstore_ps((p), (k), (v))
#define V_R16(v) gc_r16c_256(v)
#define V_MADD(acc, c, v) gc_h16_add_256((acc), _mm256_mul_ps(_mm256_set1_ps(c), (v)))
#define V_CLAMP(v, lo, hi) _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), (v)))
#include "interp/kernels/winograd16_tx.h"

GC_T512 static void tx_in_all_512(const gc_wino16 *w, const float *xb, int32_t ty, int32_t tx, float *vp, size_t ps) {
    for (int32_t c0 = 0; c0 < w->C; c0 += 16) {
        const int32_t nc = w->C - c0 < 16 ? w->C - c0 : 16;
        tx_in_512(w, xb, ty, tx, c0, (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u), vp, ps);
    }
}
GC_T512 static void tx_out_all_512(const gc_wino16 *w, const float *mp, size_t ps, const float *bias, float *yb,
                                   int32_t ty, int32_t tx) {
    for (int32_t o0 = 0; o0 < w->OC; o0 += 16) {
        const int32_t nc = w->OC - o0 < 16 ? w->OC - o0 : 16;
        tx_out_512(w, mp, ps, bias, yb, ty, tx, o0, (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u));
    }
}
GC_T256H static __m256i mask256(int32_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
GC_T256H static void tx_in_all_256(const gc_wino16 *w, const float *xb, int32_t ty, int32_t tx, float *vp, size_t ps) {
    for (int32_t c0 = 0; c0 < w->C; c0 += 8) tx_in_256(w, xb, ty, tx, c0, mask256(w->C - c0), vp, ps);
}
GC_T256H static void tx_out_all_256(const gc_wino16 *w, const float *mp, size_t ps, const float *bias, float *yb,
                                    int32_t ty, int32_t tx) {
    for (int32_t o0 = 0; o0 < w->OC; o0 += 8) tx_out_256(w, mp, ps, bias, yb, ty, tx, o0, mask256(w->OC - o0));
}
#endif

static void tx_in_all_c(const gc_wino16 *w, const float *xb, int32_t ty, int32_t tx, float *vp, size_t ps) {
    for (int32_t c0 = 0; c0 < w->C; c0++) tx_in_c(w, xb, ty, tx, c0, 1, vp, ps);
}
static void tx_out_all_c(const gc_wino16 *w, const float *mp, size_t ps, const float *bias, float *yb,
                         int32_t ty, int32_t tx) {
    for (int32_t o0 = 0; o0 < w->OC; o0++) tx_out_c(w, mp, ps, bias, yb, ty, tx, o0, 1);
}

/* 0: portable, 1: AVX2 + F16C, 2: AVX-512F */
static int level(const gc_wino16 *w) {
#ifdef GC_HAVE_F16_SIMD
    if (w->isa == GC_ISA_AVX512) return 2;
    if (w->isa == GC_ISA_AVX2 && gc_f16_have_f16c()) return 1;
#else
    (void)w;
#endif
    return 0;
}

static float *align64(float *p) { return (float *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

void gc_wino16_run_fast(const gc_wino16 *w, const float *x, const float *bias, float *y, float *scratch,
                        int32_t ty0, int32_t ty1) {
    const int32_t MR = w->pu.MR;
    const size_t C = (size_t)w->C, OC = (size_t)w->OC;
    const size_t vps = (size_t)MR * C, mps = (size_t)MR * OC;     /* floats between points */
    float *V = align64(scratch), *M = align64(V + 36 * vps);
    const float **ind = (const float **)align64(M + 36 * mps);
    const int lv = level(w);
    (void)lv;                                  /* (unused without the vector levels) */
    const int64_t t0 = (int64_t)ty0 * w->tiles_x, t1 = (int64_t)ty1 * w->tiles_x;
    for (int32_t b = 0; b < w->B; b++) {
        const float *xb = x + (size_t)b * (size_t)w->H * (size_t)w->W * C;
        float *yb = y + (size_t)b * (size_t)w->OH * (size_t)w->OW * OC;
        for (int64_t tb = t0; tb < t1; tb += MR) {
            const int32_t mr = (int32_t)(t1 - tb < MR ? t1 - tb : MR);
            for (int32_t m = 0; m < mr; m++) {
                const int32_t ty = (int32_t)((tb + m) / w->tiles_x), tx = (int32_t)((tb + m) % w->tiles_x);
                float *vp = V + (size_t)m * C;
#ifdef GC_HAVE_F16_SIMD
                if (lv == 2) { tx_in_all_512(w, xb, ty, tx, vp, vps); continue; }
                if (lv == 1) { tx_in_all_256(w, xb, ty, tx, vp, vps); continue; }
#endif
                tx_in_all_c(w, xb, ty, tx, vp, vps);
            }
            for (int32_t p = 0; p < 36; p++) {
                for (int32_t m = 0; m < MR; m++) ind[m] = V + (size_t)p * vps + (size_t)(m < mr ? m : 0) * C;
                gc_gemm_tile(&w->pu, p, ind, 1, w->C, 0, mr, NULL, -INFINITY, INFINITY, M + (size_t)p * mps, (int64_t)OC);
            }
            for (int32_t m = 0; m < mr; m++) {
                const int32_t ty = (int32_t)((tb + m) / w->tiles_x), tx = (int32_t)((tb + m) % w->tiles_x);
                const float *mp = M + (size_t)m * OC;
#ifdef GC_HAVE_F16_SIMD
                if (lv == 2) tx_out_all_512(w, mp, mps, bias, yb, ty, tx);
                else if (lv == 1) tx_out_all_256(w, mp, mps, bias, yb, ty, tx);
                else
#endif
                tx_out_all_c(w, mp, mps, bias, yb, ty, tx);
                for (int32_t k = 0; w->store && k < 4 && ty * 4 + k < w->OH; k++) {
                    const int32_t ox = tx * 4, nx = w->OW - ox < 4 ? w->OW - ox : 4;
                    gc_f16_store(w->store, yb + ((size_t)(ty * 4 + k) * (size_t)w->OW + (size_t)ox) * OC, (size_t)nx * OC);
                }
            }
        }
    }
}
