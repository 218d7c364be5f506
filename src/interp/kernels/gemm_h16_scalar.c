/* gemm_h16_scalar.c — the portable microkernels of the half-arithmetic GEMM modes
 * (gemm_f32.h: GC_GEMM_H16, GC_GEMM_SLICE): panels of 4 floats as gemm_f32_scalar.c (the
 * same packed layout), tiles of 4 rows x 2 panels, every rounding through
 * gc_f16_round_inline (fp16.h) lane by lane. The formulas are gemm_h16_avx512.c's; the
 * only level off x86-64, and the fallback on x86 CPUs without F16C.
 */
#include "interp/kernels/gemm_f32_ukr.h"

#include <stdbool.h>
#include "interp/fp16.h"

enum { PW = 4, MR = 4, NW = 2 * PW };

static inline float r16(float v) { return gc_f16_round_inline(v); }

static inline __attribute__((always_inline)) void body(const gc_ukr_args *g, const int mrk, const int np, const bool slice) {
    float acc[MR][NW], part[MR][NW];
    const int nl = np * PW;
    for (int m = 0; m < mrk; m++)
        for (int n = 0; n < nl; n++) acc[m][n] = 0.0f;
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
        for (int m = 0; m < mrk; m++) ap[m] = g->a[(size_t)t * g->a_mr + m] + g->a_off;
        for (int32_t i0 = 0; i0 < ICg; i0 += slice ? 4 : ICg) {
            const int32_t i1 = !slice || ICg - i0 < 4 ? ICg : i0 + 4;
            for (int m = 0; m < mrk; m++)
                for (int n = 0; n < nl; n++) part[m][n] = 0.0f;
            for (int32_t ic = i0; ic < i1; ic++) {
                for (int m = 0; m < mrk; m++) {
                    const float xv = ap[m][ic];
                    float *s = slice ? part[m] : acc[m];
                    for (int n = 0; n < PW; n++) s[n] = r16(s[n] + r16(xv * w0[n]));
                    if (np == 2)
                        for (int n = 0; n < PW; n++) s[PW + n] = r16(s[PW + n] + r16(xv * w1[n]));
                }
                w0 += PW; w1 += PW;
            }
            if (slice)
                for (int m = 0; m < mrk; m++)
                    for (int n = 0; n < nl; n++) acc[m][n] = acc[m][n] + part[m][n];
        }
    }
    const int nc = g->nc < nl ? g->nc : nl;
    for (int m = 0; m < mrk && m < g->mr; m++) {
        float *y = g->y + (size_t)m * (size_t)g->ldy;
        for (int n = 0; n < nc; n++) {
            float v = acc[m][n];
            if (g->bias) { v = v + g->bias[n]; if (!slice) v = r16(v); }
            y[n] = v < g->lo ? g->lo : v > g->hi ? g->hi : v;
        }
    }
}

static void h_two(const gc_ukr_args *g) { body(g, MR, 2, false); }
static void h_one(const gc_ukr_args *g) { body(g, MR, 1, false); }
static void h_two_r1(const gc_ukr_args *g) { body(g, 1, 2, false); }
static void h_one_r1(const gc_ukr_args *g) { body(g, 1, 1, false); }
static void s_two(const gc_ukr_args *g) { body(g, MR, 2, true); }
static void s_one(const gc_ukr_args *g) { body(g, MR, 1, true); }
static void s_two_r1(const gc_ukr_args *g) { body(g, 1, 2, true); }
static void s_one_r1(const gc_ukr_args *g) { body(g, 1, 1, true); }

static const gc_ukr_set h16 = { PW, MR, h_two, h_one, h_two_r1, h_one_r1, NULL, NULL };
static const gc_ukr_set slice = { PW, MR, s_two, s_one, s_two_r1, s_one_r1, NULL, NULL };
const gc_ukr_set *gc_ukr_h16_scalar(void) { return &h16; }
const gc_ukr_set *gc_ukr_slice_scalar(void) { return &slice; }
