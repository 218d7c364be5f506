/* gemm_k16h.c — the microkernels of GC_GEMM_K16H (gemm_f32.h): the native GPU's matrix-core
 * sums (fp16_model.h GC_ACC_K16H), for every level (portable C, AVX2 + F16C, AVX-512F), on
 * the float sets' packed layouts (4-, 8- and 16-float panels).
 *
 * Per output, over the flattened k = t*ICg + ic in order, in chunks of 16 (the last one
 * shorter):  part = +0;  part = part + a w  (product rounded to float, then the sum: no
 * FMA, as the reference's `part[u] += xv * w[u]`);  at the chunk's end acc = r(acc + part)
 * (the float sum, then the rounding to half: fp16.h gc_f16_flush_n); acc from +0. Then
 * y = clamp(bias ? acc + bias : acc) in float (the store rounds it to half later).
 * Bit-identical to fc.c / bmm's GC_ACC_K16H reference loops: the same operations in the
 * same order per output; vectors run across outputs only. r() is vcvtps2ph / vcvtph2ps
 * (f16_simd.h, gc_f16_round_inline's bits for every float) or gc_f16_round_inline.
 */
#include "interp/kernels/gemm_f32_ukr.h"

#include <stdbool.h>
#include <math.h>
#include <string.h>
#include "interp/fp16.h"
#include "interp/kernels/f16_simd.h"

enum { CH = 16 };                   /* the chunk of k */

/* ---- portable: 4-float panels, 4 rows x 2 panels ------------------------------------------ */
enum { PW_S = 4, MR_S = 4, NW_S = 2 * PW_S };

/* the portable sets' epilogue: rows m < mr of y = clamp(acc + bias), nl (<= NW_S) columns */
static void store_rows_s(const gc_ukr_args *g, int mrk, int nl, float acc[MR_S][NW_S]) {
    const int nc = g->nc < nl ? g->nc : nl;
    for (int m = 0; m < mrk && m < g->mr; m++) {
        float *y = g->y + (size_t)m * (size_t)g->ldy;
        for (int n = 0; n < nc; n++) {
            float v = acc[m][n];
            if (g->bias) v = v + g->bias[n];
            y[n] = v < g->lo ? g->lo : v > g->hi ? g->hi : v;
        }
    }
}

static inline __attribute__((always_inline)) void body_s(const gc_ukr_args *g, const int mrk, const int np) {
    float acc[MR_S][NW_S], part[MR_S][NW_S];
    const int nl = np * PW_S;
    for (int m = 0; m < mrk; m++)
        for (int n = 0; n < nl; n++) acc[m][n] = part[m][n] = 0.0f;
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    int32_t cnt = 0;
    for (int32_t t = 0; t < g->T; t++) {
        const float *ap[MR_S];
        for (int m = 0; m < mrk; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t ic = 0; ic < g->ICg; ic++) {
            for (int m = 0; m < mrk; m++) {
                const float xv = ap[m][ic];
                for (int n = 0; n < PW_S; n++) part[m][n] += xv * w0[n];
                if (np == 2)
                    for (int n = 0; n < PW_S; n++) part[m][PW_S + n] += xv * w1[n];
            }
            w0 += PW_S; w1 += PW_S;
            if (++cnt == CH) {
                for (int m = 0; m < mrk; m++)
                    for (int n = 0; n < nl; n++) { acc[m][n] = gc_f16_round_inline(acc[m][n] + part[m][n]); part[m][n] = 0.0f; }
                cnt = 0;
            }
        }
    }
    if (cnt)
        for (int m = 0; m < mrk; m++)
            for (int n = 0; n < nl; n++) acc[m][n] = gc_f16_round_inline(acc[m][n] + part[m][n]);
    store_rows_s(g, mrk, nl, acc);
}

static void s_two(const gc_ukr_args *g) { body_s(g, MR_S, 2); }
static void s_one(const gc_ukr_args *g) { body_s(g, MR_S, 1); }
static void s_two_r1(const gc_ukr_args *g) { body_s(g, 1, 2); }
static void s_one_r1(const gc_ukr_args *g) { body_s(g, 1, 1); }
static const gc_ukr_set set_s = { PW_S, MR_S, s_two, s_one, s_two_r1, s_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_k16h_scalar(void) { return &set_s; }

#if defined(GC_HAVE_X86_KERNELS) && defined(GC_HAVE_F16_SIMD)

/* ---- x86: one body for both widths (V = the vector type, PW its floats) -------------------
 * R rows x 1 panel, or (R = 1) one row x np panels; `cnt` counts the chunk's k across taps. */
#define K16H_BODY(V, PW, ZERO, LOAD, SET1, ADD, MUL, R16, LOADU, STORE_N, MIN, MAX)                 \
    V acc[8][2], part[8][2];                                                                        \
    _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) acc[m][0] = acc[m][1] = part[m][0] = part[m][1] = ZERO;             \
    const float *w0 = g->w, *w1 = g->w + g->pstride;                                                \
    int32_t cnt = 0;                                                                                \
    for (int32_t t = 0; t < g->T; t++) {                                                            \
        const float *ap[8];                                                                         \
        _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;               \
        for (int32_t ic = 0; ic < g->ICg;) {                                                        \
            int32_t e = g->ICg - ic < CH - cnt ? g->ICg : ic + (CH - cnt);                          \
            cnt += e - ic;                                                                          \
            for (; ic < e; ic++) {                                                                  \
                const V v0 = LOAD(w0);                                                              \
                V v1 = v0;                                                                          \
                if (np == 2) v1 = LOAD(w1);                                                         \
                w0 += PW; w1 += PW;                                                                 \
                _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) {                                                       \
                    const V b = SET1(ap[m][ic]);                                                    \
                    part[m][0] = ADD(part[m][0], MUL(b, v0));                                       \
                    if (np == 2) part[m][1] = ADD(part[m][1], MUL(b, v1));                          \
                }                                                                                   \
            }                                                                                       \
            if (cnt == CH) {                                                                        \
                _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) {                                                       \
                    acc[m][0] = R16(ADD(acc[m][0], part[m][0])); part[m][0] = ZERO;                 \
                    if (np == 2) { acc[m][1] = R16(ADD(acc[m][1], part[m][1])); part[m][1] = ZERO; }\
                }                                                                                   \
                cnt = 0;                                                                            \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
    if (cnt)                                                                                        \
        _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) {                                                               \
            acc[m][0] = R16(ADD(acc[m][0], part[m][0]));                                            \
            if (np == 2) acc[m][1] = R16(ADD(acc[m][1], part[m][1]));                               \
        }                                                                                           \
    const V lo = SET1(g->lo), hi = SET1(g->hi);                                                     \
    const int nc0 = g->nc < PW ? g->nc : PW, nc1 = g->nc - nc0;                                     \
    _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) {                                                                   \
        if (m >= g->mr) break;                                                                      \
        float *y = g->y + (size_t)m * (size_t)g->ldy;                                               \
        V v = acc[m][0];                                                                            \
        if (g->bias) v = ADD(v, LOADU(g->bias));                                                    \
        STORE_N(y, MIN(hi, MAX(lo, v)), nc0);                                                       \
        if (np == 2) {                                                                              \
            V u = acc[m][1];                                                                        \
            if (g->bias) u = ADD(u, LOADU(g->bias + PW));                                           \
            STORE_N(y + PW, MIN(hi, MAX(lo, u)), nc1);                                              \
        }                                                                                           \
    }

/* AVX2 + F16C: 8-float panels, 6 rows x 1 panel (12 accumulators) */
enum { PW_2 = 8, MR_2 = 6 };
GC_INL GC_T256H void store8(float *y, __m256 v, int n) {
    if (n >= PW_2) { _mm256_storeu_ps(y, v); return; }
    if (n <= 0) return;
    float tmp[PW_2];
    _mm256_storeu_ps(tmp, v);
    memcpy(y, tmp, (size_t)n * sizeof(float));
}
GC_INL GC_T256H void body_2(const gc_ukr_args *g, const int R, const int np) {
    K16H_BODY(__m256, PW_2, _mm256_setzero_ps(), _mm256_load_ps, _mm256_set1_ps, _mm256_add_ps, _mm256_mul_ps,
              gc_r16c_256, _mm256_loadu_ps, store8, _mm256_min_ps, _mm256_max_ps)
}
GC_T256H static void a_one(const gc_ukr_args *g) { body_2(g, MR_2, 1); }
GC_T256H static void a_two_r1(const gc_ukr_args *g) { body_2(g, 1, 2); }
GC_T256H static void a_one_r1(const gc_ukr_args *g) { body_2(g, 1, 1); }
static const gc_ukr_set set_2 = { PW_2, MR_2, NULL, a_one, a_two_r1, a_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_k16h_avx2(void) { return &set_2; }

/* AVX-512F: 16-float panels, 8 rows x 1 panel (16 accumulators, the broadcasts folded
 * into the multiplies as in gemm_f32_avx512.c) */
enum { PW_5 = 16, MR_5 = 8 };
GC_INL GC_T512 void store16(float *y, __m512 v, int n) {
    if (n <= 0) return;
    _mm512_mask_storeu_ps(y, (__mmask16)(n >= PW_5 ? 0xffffu : (1u << n) - 1u), v);
}
GC_INL GC_T512 void body_5(const gc_ukr_args *g, const int R, const int np) {
    K16H_BODY(__m512, PW_5, _mm512_setzero_ps(), _mm512_load_ps, _mm512_set1_ps, _mm512_add_ps, _mm512_mul_ps,
              gc_r16c_512, _mm512_loadu_ps, store16, _mm512_min_ps, _mm512_max_ps)
}
GC_T512 static void b_one(const gc_ukr_args *g) { body_5(g, MR_5, 1); }
GC_T512 static void b_two_r1(const gc_ukr_args *g) { body_5(g, 1, 2); }
GC_T512 static void b_one_r1(const gc_ukr_args *g) { body_5(g, 1, 1); }
static const gc_ukr_set set_5 = { PW_5, MR_5, NULL, b_one, b_two_r1, b_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_k16h_avx512(void) { return &set_5; }
#endif

/* ==== GC_GEMM_H2FMA (gemm_f32.h): the half2 fused multiply-add chains ========================
 * Per output: lane L[k & 1] = r(fma(a, w, L[k & 1])) (the float fused multiply-add, then the
 * half rounding), k over the flattened (tap, channel) index from 0, both lanes from +0; the
 * result r(L0 + L1), then + bias in float and the clamp: the bits of fp16.h gc_f16_fma_n,
 * the reference's. (A half FMA rounds a w + L once; going through float rounds twice, which
 * differs where the float lands exactly on a midpoint between halves, about 2^-13 of the
 * steps: measured 100 % -> 99.9x % of the H200's bits on its K <= 16 probes, for a kernel
 * 5x cheaper than the exact one.) */

static inline __attribute__((always_inline)) void body_hs(const gc_ukr_args *g, const int mrk, const int np) {
    float acc[MR_S][2][NW_S];
    const int nl = np * PW_S;
    for (int m = 0; m < mrk; m++)
        for (int n = 0; n < nl; n++) acc[m][0][n] = acc[m][1][n] = 0.0f;
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    int32_t par = 0;
    for (int32_t t = 0; t < g->T; t++) {
        const float *ap[MR_S];
        for (int m = 0; m < mrk; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t ic = 0; ic < g->ICg; ic++) {
            for (int m = 0; m < mrk; m++) {
                const float xv = ap[m][ic];
                float *L = acc[m][par];
                gc_f16_fma_n(L, xv, w0, PW_S);
                if (np == 2) gc_f16_fma_n(L + PW_S, xv, w1, PW_S);
            }
            w0 += PW_S; w1 += PW_S;
            par ^= 1;
        }
    }
    float out[MR_S][NW_S];                       /* r(L0 + L1) */
    for (int m = 0; m < mrk; m++)
        for (int n = 0; n < nl; n++) out[m][n] = gc_f16_round_inline(acc[m][0][n] + acc[m][1][n]);
    store_rows_s(g, mrk, nl, out);
}
static void hs_two(const gc_ukr_args *g) { body_hs(g, MR_S, 2); }
static void hs_one(const gc_ukr_args *g) { body_hs(g, MR_S, 1); }
static void hs_two_r1(const gc_ukr_args *g) { body_hs(g, 1, 2); }
static void hs_one_r1(const gc_ukr_args *g) { body_hs(g, 1, 1); }
static const gc_ukr_set set_hs = { PW_S, MR_S, hs_two, hs_one, hs_two_r1, hs_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_h2fma_scalar(void) { return &set_hs; }

#if defined(GC_HAVE_X86_KERNELS) && defined(GC_HAVE_F16_SIMD)
/* one step L = r(fma(a, w, L)) on 16 lanes (see above) */
GC_INL GC_T512 __m512 h2step_512(__m512 L, __m512 a, __m512 w) { return gc_r16c_512(_mm512_fmadd_ps(a, w, L)); }
GC_INL GC_T512 void body_h5(const gc_ukr_args *g, const int R) {
    __m512 L0[8], L1[8];
    _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) L0[m] = L1[m] = _mm512_setzero_ps();
    const float *w0 = g->w;
    int32_t par = 0;
    for (int32_t t = 0; t < g->T; t++) {
        const float *ap[8];
        _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        int32_t ic = 0;
        if (par) {                                   /* an odd lane first: this tap starts at odd k */
            const __m512 v = _mm512_load_ps(w0); w0 += PW_5;
            _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) L1[m] = h2step_512(L1[m], _mm512_set1_ps(ap[m][0]), v);
            ic = 1;
        }
        for (; ic + 2 <= g->ICg; ic += 2) {
            const __m512 v0 = _mm512_load_ps(w0), v1 = _mm512_load_ps(w0 + PW_5);
            w0 += 2 * PW_5;
            _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) {
                L0[m] = h2step_512(L0[m], _mm512_set1_ps(ap[m][ic]), v0);
                L1[m] = h2step_512(L1[m], _mm512_set1_ps(ap[m][ic + 1]), v1);
            }
        }
        if (ic < g->ICg) {                           /* one left: an even lane; the next tap starts odd */
            const __m512 v = _mm512_load_ps(w0); w0 += PW_5;
            _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) L0[m] = h2step_512(L0[m], _mm512_set1_ps(ap[m][ic]), v);
        }
        par = (par + g->ICg) & 1;
    }
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    _Pragma("GCC unroll 8") for (int m = 0; m < R; m++) {
        if (m >= g->mr) break;
        __m512 v = gc_r16c_512(_mm512_add_ps(L0[m], L1[m]));
        if (g->bias) v = _mm512_add_ps(v, _mm512_loadu_ps(g->bias));
        store16(g->y + (size_t)m * (size_t)g->ldy, _mm512_min_ps(hi, _mm512_max_ps(lo, v)), g->nc);
    }
}
GC_T512 static void h5_one(const gc_ukr_args *g) { body_h5(g, MR_5); }
GC_T512 static void h5_one_r1(const gc_ukr_args *g) { body_h5(g, 1); }
static const gc_ukr_set set_h5 = { PW_5, MR_5, NULL, h5_one, NULL, h5_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_h2fma_avx512(void) { return &set_h5; }
#endif
