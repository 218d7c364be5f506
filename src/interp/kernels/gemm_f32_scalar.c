/* gemm_f32_scalar.c — the portable microkernels (gemm_f32_ukr.h): panels of 4 floats,
 * tiles of 4 rows x 2 panels, in plain C (the compiler may vectorise the fixed-size lane
 * loops; there is nothing to contract: products and sums are separate statements and
 * the build is ISO C, -ffp-contract=off). Bit-identical to the reference; the clamp is
 * the reference's own expression. The only level on non-x86 targets.
 */
#include "interp/kernels/gemm_f32_ukr.h"

enum { PW = 4, MR = 4, NW = 2 * PW };

static inline void body(const gc_ukr_args *g, const int mrk, const int np) {
    float acc[MR][NW];
    const int nw = np * PW;
    for (int m = 0; m < mrk; m++)
        for (int n = 0; n < NW; n++) acc[m][n] = 0.0f;
    const float *w0 = g->w, *w1 = g->w + g->pstride;
    const int32_t T = g->T, ICg = g->ICg;
    for (int32_t t = 0; t < T; t++) {
        const float *ap[MR];
        for (int m = 0; m < mrk; m++) ap[m] = g->a[(size_t)t * MR + m] + g->a_off;
        for (int32_t ic = 0; ic < ICg; ic++) {
            float wv[NW];
            for (int n = 0; n < PW; n++) { wv[n] = w0[n]; wv[PW + n] = np == 2 ? w1[n] : 0.0f; }
            w0 += PW; w1 += PW;
            for (int m = 0; m < mrk; m++) {
                const float xv = ap[m][ic];
                for (int n = 0; n < NW; n++) {
                    const float p = xv * wv[n];
                    acc[m][n] = acc[m][n] + p;
                }
            }
        }
    }
    const int nc = g->nc < nw ? g->nc : nw;
    for (int m = 0; m < mrk && m < g->mr; m++) {
        float *y = g->y + (size_t)m * (size_t)g->ldy;
        for (int n = 0; n < nc; n++) {
            float v = g->bias ? acc[m][n] + g->bias[n] : acc[m][n];
            y[n] = v < g->lo ? g->lo : v > g->hi ? g->hi : v;
        }
    }
}

static void k_two(const gc_ukr_args *g) { body(g, MR, 2); }
static void k_one(const gc_ukr_args *g) { body(g, MR, 1); }
static void k_two_r1(const gc_ukr_args *g) { body(g, 1, 2); }
static void k_one_r1(const gc_ukr_args *g) { body(g, 1, 1); }

static const gc_ukr_set set = { PW, MR, k_two, k_one, k_two_r1, k_one_r1 };
const gc_ukr_set *gc_ukr_scalar(void) { return &set; }
