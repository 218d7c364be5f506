/* qgemm8_scalar.c — the portable microkernels (qgemm8_ukr.h, the I16 encoding: int16
 * (x - zx) times int16 (w - zw), pairs of k, panels of 8 columns, tiles of 4 rows x 1..2
 * panels), the portable depthwise row, and gc_q8rq_one: the reference's requantization of
 * one value through quant.h itself. The only level off x86-64 and with -DGC_NO_SIMD.
 */
#include "interp/kernels/qgemm8_ukr.h"
#include "interp/quant.h"

#include <string.h>

enum { PW = 8, MR = 4, NPMAX = 2 };

int32_t gc_q8rq_one(const gc_q8rq *rq, int32_t v, int32_t n) {
    if (rq->xnn) return gc_q_xnn(v, rq->fscale[n], rq->zp, rq->lo, rq->hi);
    int32_t r = gc_q_mul(v, rq->mult[n], rq->lsh[n] - rq->rsh[n]);
    return gc_clamp_i32((int64_t)r + rq->zp, rq->lo, rq->hi);
}

/* wrapping int32 arithmetic (the kernels' sums are taken modulo 2^32) */
static inline int32_t wadd(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

static inline __attribute__((always_inline)) void gemm(const gc_q8ukr_args *g, const int R, const int NP) {
    int32_t acc[MR][NPMAX * PW];
    for (int m = 0; m < R; m++)
        for (int n = 0; n < NP * PW; n++) acc[m][n] = 0;
    const int16_t *w = (const int16_t *)g->w;
    const int64_t ps = g->pstride / 2;
    for (int32_t t = 0; t < g->T; t++) {
        for (int m = 0; m < R; m++) {
            const int16_t *ap = (const int16_t *)g->a[(size_t)t * g->a_mr + m];
            const int16_t *wk = w + (size_t)t * (size_t)g->KG * 2 * PW;
            for (int32_t kg = 0; kg < g->KG; kg++, wk += 2 * PW) {
                const int32_t a0 = ap[2 * kg], a1 = ap[2 * kg + 1];
                for (int p = 0; p < NP; p++)
                    for (int c = 0; c < PW; c++)
                        acc[m][p * PW + c] = wadd(acc[m][p * PW + c], a0 * wk[p * ps + 2 * c] + a1 * wk[p * ps + 2 * c + 1]);
            }
        }
    }
    for (int m = 0; m < R && m < g->mr; m++)
        for (int n = 0; n < g->nc; n++) {
            int32_t v = wadd(acc[m][n], g->rq.bias[n]);
            if (g->rowc) v = wadd(v, g->rowc[m]);
            g->y[(size_t)m * (size_t)g->ldy + (size_t)n] = (uint8_t)gc_q8rq_one(&g->rq, v, n);
        }
}

static void k4x1(const gc_q8ukr_args *g) { gemm(g, MR, 1); }
static void k4x2(const gc_q8ukr_args *g) { gemm(g, MR, 2); }
static void k1x1(const gc_q8ukr_args *g) { gemm(g, 1, 1); }
static void k1x2(const gc_q8ukr_args *g) { gemm(g, 1, 2); }

/* one pixel at a time, every tap through its pointer (a pad tap reads the zero-point row) */
static void dw_row(const gc_q8dw_args *g, uint8_t *yrow, int32_t oy, int32_t ox0, int32_t ox1) {
    for (int32_t ox = ox0; ox < ox1; ox++) {
        uint8_t *yp = yrow + (size_t)ox * (size_t)g->C;
        for (int32_t c0 = 0; c0 < g->C; c0 += 16) {
            int32_t acc[16];
            const int32_t nc = g->C - c0 < 16 ? g->C - c0 : 16;
            for (int32_t j = 0; j < nc; j++) acc[j] = g->rq.bias[c0 + j];
            for (int32_t ky = 0; ky < g->KH; ky++) {
                const int32_t iy = oy * g->sh - g->pt + ky * g->dh;
                for (int32_t kx = 0; kx < g->KW; kx++) {
                    const int32_t ix = ox * g->sw - g->pl + kx * g->dw;
                    const bool in = iy >= 0 && iy < g->H && ix >= 0 && ix < g->W;
                    const uint8_t *xp = (in ? g->x + ((size_t)iy * (size_t)g->W + (size_t)ix) * (size_t)g->C : g->pad) + c0;
                    const int32_t *wk = g->w + (size_t)(ky * g->KW + kx) * (size_t)g->Cp + c0;
                    for (int32_t j = 0; j < nc; j++) {
                        const int32_t xv = g->x_signed ? (int32_t)(int8_t)xp[j] : (int32_t)xp[j];
                        acc[j] = wadd(acc[j], xv * (int32_t)(int16_t)(uint16_t)wk[j]);
                    }
                }
            }
            for (int32_t j = 0; j < nc; j++) yp[c0 + j] = (uint8_t)gc_q8rq_one(&g->rq, acc[j], c0 + j);
        }
    }
}

static const gc_q8ukr_set set = { PW, MR, 2, NPMAX, { k4x1, k4x2, NULL, NULL }, { k1x1, k1x2, NULL, NULL },
                                  dw_row, 16 };
const gc_q8ukr_set *gc_q8ukr_scalar(void) { return &set; }
