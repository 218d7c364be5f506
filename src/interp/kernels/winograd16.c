/* winograd16.c — Winograd F(4x4, 3x3) in half arithmetic, the way ML Drift's three
 * kernels (Winograd4x4To36, the 1x1 convolution over the 36 points, Winograd36To4x4)
 * compute a 3x3 stride-1 convolution at CalculationsPrecision::F16. The open TFLite GPU
 * delegate (tflite/delegates/gpu/common/tasks/winograd.cc, winograd_util.cc) has the same
 * kernels; this file follows their formulas and summation orders, written anew.
 *
 * Matrices (winograd_util.cc: points 0, +-d, +-2d and infinity, d = sqrt(2)/2, computed
 * in float): T[x][y] = px[y]^x py[y]^(n-1-x) with px = {0, d, -d, 2d, -2d, 1},
 * py = {1, 1, 1, 1, 1, 0}; A^T = T(6, 4) (rows x < 4), G^T = T(6, 3), B^T = T(6, 6)^-1
 * by the delegate's Gauss-Jordan steps. A^T and B^T are kernel arguments of the F16
 * kernels, so they are held as half.
 *
 * Per 4x4 output tile at (4 ty, 4 tx), for every channel c (values half, every product
 * and every sum rounded to half: acc = r(acc + r(coef v)), gc_f16_madd_n):
 *   d[y][x]  = input at (4 ty + y - pt, 4 tx + x - pl), 0 outside;          y, x < 6
 *   I[a][x]  = sum over y = 0..5 of bt[a][y] d[y][x], in y order;
 *   V[a][0]  = I[a][0] + bt[0][2] I[a][2] + bt[0][4] I[a][4];
 *   V[a][b]  = bt[b][1] I[a][1] + bt[b][2] I[a][2] + bt[b][3] I[a][3] + bt[b][4] I[a][4],
 *              b = 1..4;
 *   V[a][5]  = bt[5][1] I[a][1] + bt[5][3] I[a][3] + I[a][5];             (left to right)
 * V is stored (half). Then per point p = 6a + b and output channel o:
 *   M[p][o]  = sum over c of V[p][c] U[p][c][o]   (acc GC_ACC_F32: in float, rounded once;
 *              GC_ACC_F16: every step rounded), stored (half);
 *   J[k][x]  = sum over y = 0..5 of at[k][y] M[6y + x][o], in y order;     k < 4
 *   t0 = J[k][1] + J[k][2], t1 = J[k][3] + J[k][4], t2 = J[k][1] - J[k][2], t3 = J[k][3] - J[k][4];
 *   out[k][0] = ((J[k][0] + t0) + t1) + bias,      out[k][1] = (at[1][1] t2 + at[1][3] t3) + bias,
 *   out[k][2] = (at[2][1] t0 + at[2][3] t1) + bias, out[k][3] = ((at[3][1] t2 + at[3][3] t3) + J[k][5]) + bias,
 *   then the fused activation clamp; rows and columns past the output are dropped.
 * U = G g G^T is computed on the CPU in float, (G g) first, then times G^T, each entry
 * summed in index order, and stored as half.
 */
#include "interp/kernels/winograd16.h"

#include <math.h>
#include <string.h>
#include "interp/fp16.h"

bool gc_wino16_eligible(int32_t KH, int32_t KW, int sh, int sw, int dh, int dw, int32_t groups,
                        int32_t C, int32_t OC, int32_t OH, int32_t OW) {
    if (KH != 3 || KW != 3 || sh != 1 || sw != 1 || dh != 1 || dw != 1 || groups != 1) return false;
    int64_t tiles = (int64_t)((OH + 3) / 4) * ((OW + 3) / 4);
    return (C + 3) / 4 >= 16 && (OC + 3) / 4 >= 16 && tiles >= 32;
}

/* T(width, height)[x][y] = px[y]^x py[y]^(height-1-x), x < height, y < width */
static void t_matrix(int width, int height, float *out) {
    const float kd = sqrtf(2.0f) / 2.0f;
    float px[6], py[6];
    px[0] = 0.0f;
    for (int i = 0; i < (width - 1) / 2; i++) { px[i * 2 + 1] = kd * (float)(i + 1); px[i * 2 + 2] = -kd * (float)(i + 1); }
    px[width - 1] = 1.0f;
    for (int i = 0; i < width; i++) py[i] = 1.0f;
    py[width - 1] = 0.0f;
    for (int y = 0; y < width; y++)
        for (int x = 0; x < height; x++)
            out[x * width + y] = powf(px[y], (float)x) * powf(py[y], (float)(height - 1 - x));
}

/* The delegate's inverse of T(6, 6): Gauss-Jordan on rows 1..4 only (rows 0 and 5 of
 * T are already unit rows after the elimination it does), in float. */
static void bt_matrix(float *inv) {
    float m[36];
    t_matrix(6, 6, m);
    for (int i = 0; i < 36; i++) inv[i] = 0.0f;
    for (int i = 0; i < 6; i++) inv[i * 6 + i] = 1.0f;
    for (int i = 1; i < 5; i++) {
        float inv_t = 1.0f / m[i * 6 + i];
        for (int x = i; x < 6; x++) m[i * 6 + x] *= inv_t;
        for (int x = 0; x < 6; x++) inv[i * 6 + x] *= inv_t;
        for (int y = 0; y < 6; y++) {
            if (y == i) continue;
            float t = m[y * 6 + i];
            for (int x = i; x < 6; x++) m[y * 6 + x] -= t * m[i * 6 + x];
            for (int x = 0; x < 6; x++) inv[y * 6 + x] -= t * inv[i * 6 + x];
        }
    }
}

void gc_wino16_setup(gc_wino16 *w, int32_t B, int32_t H, int32_t W, int32_t C, int32_t OH, int32_t OW,
                     int32_t OC, int32_t pt, int32_t pl, gc_f16_acc acc, float lo, float hi, bool half) {
    w->B = B; w->H = H; w->W = W; w->C = C; w->OH = OH; w->OW = OW; w->OC = OC;
    w->pt = pt; w->pl = pl; w->acc = acc; w->lo = lo; w->hi = hi;
    w->tiles_y = (OH + 3) / 4; w->tiles_x = (OW + 3) / 4;
    w->fast = false; w->isa = 0;                  /* the reference, until gc_wino16_set_fast */
    memset(&w->pu, 0, sizeof w->pu);
    bt_matrix(w->bt);
    t_matrix(6, 4, w->at);
    w->half = half;
    if (half) {
        gc_f16_round_n(w->bt, 36);
        gc_f16_round_n(w->at, 24);
    }
}

size_t gc_wino16_u_floats(const gc_wino16 *w) {
    if (w->fast) return gc_gemm_b_layout_mode(&(gc_gemm_b){ 0 }, (gc_isa)w->isa, w->pu.mode, 36, w->C, w->OC);
    return (size_t)36 * (size_t)w->C * (size_t)w->OC;
}

bool gc_wino16_set_fast(gc_wino16 *w, gc_isa isa) {
    if (!w->half) return false;
    gc_gemm_mode mode = w->acc == GC_ACC_F16 ? GC_GEMM_H16 : GC_GEMM_F32;
    if (!gc_gemm_b_layout_mode(&w->pu, isa, mode, 36, w->C, w->OC)) return false;
    w->fast = true;
    w->isa = (int)isa;
    return true;
}

/* U = (G g) G^T for output channel o, input channel c: out[36] */
static void transform_filter(const float *gm, const float *gt, const float *g, size_t C, size_t o, size_t c, float *out) {
    float in[9], tmp[18];
    for (int k = 0; k < 9; k++) in[k] = g[(o * 9 + (size_t)k) * C + c];
    for (int y = 0; y < 6; y++)                   /* (G g) [6][3] */
        for (int x = 0; x < 3; x++) {
            float s = 0.0f;
            for (int i = 0; i < 3; i++) s += gm[y * 3 + i] * in[i * 3 + x];
            tmp[y * 3 + x] = s;
        }
    for (int y = 0; y < 6; y++)                   /* (G g) G^T [6][6] */
        for (int x = 0; x < 6; x++) {
            float s = 0.0f;
            for (int i = 0; i < 3; i++) s += tmp[y * 3 + i] * gt[i * 6 + x];
            out[y * 6 + x] = s;
        }
}

void gc_wino16_weights(gc_wino16 *w, const float *g) {
    if (w->fast) { gc_wino16_weights_fast(w, g); return; }
    float gt[18], gm[18];                       /* G^T [3][6]; G [6][3] */
    t_matrix(6, 3, gt);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 6; x++) gm[x * 3 + y] = gt[y * 6 + x];
    const size_t C = (size_t)w->C, OC = (size_t)w->OC;
    for (size_t o = 0; o < OC; o++)
        for (size_t c = 0; c < C; c++) {
            float t[36];
            transform_filter(gm, gt, g, C, o, c, t);
            for (int p = 0; p < 36; p++) w->u[((size_t)p * C + c) * OC + o] = w->half ? gc_f16_round(t[p]) : t[p];
        }
}

/* The fast path: the same values, packed (gemm_f32.h's layout: group p, panel o / PW,
 * row c, lane o % PW; the lanes past OC stay zero). */
void gc_wino16_weights_fast(gc_wino16 *w, const float *g) {
    float gt[18], gm[18];
    t_matrix(6, 3, gt);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 6; x++) gm[x * 3 + y] = gt[y * 6 + x];
    gc_gemm_b_bind(&w->pu, w->u);
    const size_t C = (size_t)w->C, OC = (size_t)w->OC, PW = (size_t)w->pu.PW, P = (size_t)w->pu.P;
    memset(w->pu.w, 0, (size_t)36 * P * PW * C * sizeof(float));
    for (size_t o = 0; o < OC; o++)
        for (size_t c = 0; c < C; c++) {
            float t[36];
            transform_filter(gm, gt, g, C, o, c, t);
            for (size_t p = 0; p < 36; p++) w->pu.w[((p * P + o / PW) * C + c) * PW + o % PW] = gc_f16_round(t[p]);
        }
    gc_gemm_b_note_range(&w->pu);
}

/* scratch: d [36][C], I [36][C], V [36][C], M [36][OC], J [24][OC], t [4][OC], out [OC] */
size_t gc_wino16_scratch_floats(const gc_wino16 *w) {
    if (w->fast) return gc_wino16_scratch_floats_fast(w);
    return (size_t)108 * (size_t)w->C + (size_t)(36 + 24 + 4 + 1 + 1) * (size_t)w->OC;
}

/* a = r(a + r(c v)) over n channels, starting from 0 when `first` (in float, unrounded,
 * when the transforms are not in half: the tests' exactness check) */
static void madd_(bool half, float *acc, float c, const float *v, size_t n, bool first) {
    if (first) memset(acc, 0, n * sizeof(float));
    if (half) { gc_f16_madd_n(acc, c, v, n); return; }
    for (size_t i = 0; i < n; i++) acc[i] += c * v[i];
}

void gc_wino16_run(const gc_wino16 *w, const float *x, const float *bias, float *y, float *scratch,
                   int32_t ty0, int32_t ty1) {
    if (w->fast) { gc_wino16_run_fast(w, x, bias, y, scratch, ty0, ty1); return; }
    const size_t C = (size_t)w->C, OC = (size_t)w->OC;
    float *d = scratch, *I = d + 36 * C, *V = I + 36 * C, *M = V + 36 * C;
    float *J = M + 36 * OC, *t = J + 24 * OC, *out = t + 4 * OC, *zero = out + OC;
    memset(zero, 0, OC * sizeof(float));
    const float *bi = bias ? bias : zero;
    const float *bt = w->bt, *at = w->at;
    const bool half = w->half;
    for (int32_t b = 0; b < w->B; b++)
        for (int32_t ty = ty0; ty < ty1; ty++)
            for (int32_t tx = 0; tx < w->tiles_x; tx++) {
                for (int yy = 0; yy < 6; yy++)
                    for (int xx = 0; xx < 6; xx++) {
                        int32_t iy = ty * 4 + yy - w->pt, ix = tx * 4 + xx - w->pl;
                        float *dp = d + (size_t)(yy * 6 + xx) * C;
                        if (iy < 0 || iy >= w->H || ix < 0 || ix >= w->W) memset(dp, 0, C * sizeof(float));
                        else memcpy(dp, x + (((size_t)b * w->H + iy) * w->W + ix) * C, C * sizeof(float));
                    }
                for (int a = 0; a < 6; a++)               /* I = B^T d, rows of d in order */
                    for (int xx = 0; xx < 6; xx++)
                        for (int yy = 0; yy < 6; yy++)
                            madd_(half, I + (size_t)(a * 6 + xx) * C, bt[a * 6 + yy], d + (size_t)(yy * 6 + xx) * C, C, yy == 0);
                for (int a = 0; a < 6; a++) {             /* V = I B */
                    const float *r = I + (size_t)a * 6 * C;
                    float *v = V + (size_t)a * 6 * C;
                    memcpy(v, r, C * sizeof(float));
                    madd_(half, v, bt[2], r + 2 * C, C, false);
                    madd_(half, v, bt[4], r + 4 * C, C, false);
                    for (int bb = 1; bb < 5; bb++)
                        for (int k = 1; k < 5; k++)
                            madd_(half, v + (size_t)bb * C, bt[bb * 6 + k], r + (size_t)k * C, C, k == 1);
                    madd_(half, v + 5 * C, bt[31], r + C, C, true);
                    madd_(half, v + 5 * C, bt[33], r + 3 * C, C, false);
                    madd_(half, v + 5 * C, 1.0f, r + 5 * C, C, false);
                }
                for (int p = 0; p < 36; p++) {            /* M[p] = V[p] . U[p] over the channels */
                    float *m = M + (size_t)p * OC;
                    const float *v = V + (size_t)p * C, *u = w->u + (size_t)p * C * OC;
                    memset(m, 0, OC * sizeof(float));
                    if (w->acc == GC_ACC_F16) {
                        for (size_t c = 0; c < C; c++) gc_f16_madd_n(m, v[c], u + c * OC, OC);
                    } else {
                        for (size_t c = 0; c < C; c++) {
                            const float vc = v[c], *uc = u + c * OC;
                            for (size_t o = 0; o < OC; o++) m[o] += vc * uc[o];
                        }
                        if (half) gc_f16_round_n(m, OC);
                    }
                }
                for (int k = 0; k < 4; k++)               /* J = A^T M */
                    for (int xx = 0; xx < 6; xx++)
                        for (int yy = 0; yy < 6; yy++)
                            madd_(half, J + (size_t)(k * 6 + xx) * OC, at[k * 6 + yy], M + (size_t)(yy * 6 + xx) * OC, OC, yy == 0);
                for (int k = 0; k < 4; k++) {             /* out = J A + bias */
                    int32_t oy = ty * 4 + k;
                    if (oy >= w->OH) break;
                    const float *j = J + (size_t)k * 6 * OC;
                    float *t0 = t, *t1 = t + OC, *t2 = t + 2 * OC, *t3 = t + 3 * OC;
                    memcpy(t0, j + OC, OC * sizeof(float));      madd_(half, t0, 1.0f, j + 2 * OC, OC, false);
                    memcpy(t1, j + 3 * OC, OC * sizeof(float));  madd_(half, t1, 1.0f, j + 4 * OC, OC, false);
                    memcpy(t2, j + OC, OC * sizeof(float));      madd_(half, t2, -1.0f, j + 2 * OC, OC, false);
                    memcpy(t3, j + 3 * OC, OC * sizeof(float));  madd_(half, t3, -1.0f, j + 4 * OC, OC, false);
                    for (int col = 0; col < 4; col++) {
                        int32_t ox = tx * 4 + col;
                        if (ox >= w->OW) break;
                        if (col == 0) {
                            memcpy(out, j, OC * sizeof(float));
                            madd_(half, out, 1.0f, t0, OC, false);
                            madd_(half, out, 1.0f, t1, OC, false);
                        } else if (col == 1) {
                            madd_(half, out, at[7], t2, OC, true);
                            madd_(half, out, at[9], t3, OC, false);
                        } else if (col == 2) {
                            madd_(half, out, at[13], t0, OC, true);
                            madd_(half, out, at[15], t1, OC, false);
                        } else {
                            madd_(half, out, at[19], t2, OC, true);
                            madd_(half, out, at[21], t3, OC, false);
                            madd_(half, out, 1.0f, j + 5 * OC, OC, false);
                        }
                        madd_(half, out, 1.0f, bi, OC, false);
                        float *yp = y + (((size_t)b * w->OH + oy) * w->OW + ox) * OC;
                        for (size_t o = 0; o < OC; o++) {
                            float v = out[o];
                            yp[o] = v < w->lo ? w->lo : v > w->hi ? w->hi : v;
                        }
                    }
                }
            }
}
