/* signal.c — RFFT2D, COMPLEX_ABS, REAL, IMAG.
 *
 * RFFT2D(x, fft_length[2])  x FLOAT32 [..., M, N]; the last two dims are cropped or
 *   zero-padded to fft_length (m, n); output COMPLEX64 [..., m, n/2 + 1]:
 *   Y[u][v] = sum_y sum_x x[y][x] exp(-2 pi i (u y / m + v x / n)).
 *   Computed in double (as TFLite's kernel, which runs Ooura's double FFT) then rounded
 *   to float: a radix-2 FFT along the last dim when n is a power of two, else a direct
 *   DFT; a direct DFT along the second dim (m is usually 1).
 *   ctx->fast: the cos / sin values come from tables made at prepare by the same
 *   expressions (the same doubles, so the same bits).
 * COMPLEX_ABS(z) = sqrt(re^2 + im^2) (in double, rounded); REAL / IMAG pick a part.
 * fp16: outputs are float tensors (COMPLEX64 is not rounded: the GPU has no complex).
 */
#include "interp/interp_impl.h"

#include <stdlib.h>

/* the butterflies of a stage are independent: vectorising them keeps every value's
 * operations (GCC's -O2 does not, -O3 does) */
#include "interp/kernels/vec_loops.h"

typedef struct { int32_t m, n, M, N; uint64_t outer; int buf_slot;
                 /* ctx->fast: the cos / sin values the loops below compute, made once at
                  * prepare by the same expressions (so the same doubles): */
                 double *tw;        /* power-of-two FFT: per stage len, k < len / 2 at
                                       2 (len / 2 - 1 + k): cos, sin of (-2 pi / len) k */
                 double *twr, *twi; /* the same, split: at len / 2 - 1 + k */
                 int32_t *rev;      /* the bit-reversal permutation of the FFT's swaps */
                 double *row_cs;    /* DFT along the last dim (not a power of two): j < n */
                 double *col_cs;    /* DFT along the second dim: j < m */
} rfft_data;

/* the angle of the direct DFTs: -2 pi j / len, as the loops write it */
static double dft_angle(int64_t j, int32_t len) { return -2.0 * M_PI * (double)j / len; }

static gc_status rfft_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "fft_length"));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, x->dtype == GC_T_FLOAT32 && y->dtype == GC_T_COMPLEX64, "RFFT2D maps FLOAT32 to COMPLEX64");
    GC_ENSURE(ctx, x->rank >= 2 && gc_numel(n->in[1]) == 2, "input rank >= 2 and fft_length [2] needed");
    rfft_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->m = (int32_t)gc_get_int(n->in[1], 0); d->n = (int32_t)gc_get_int(n->in[1], 1);
    GC_ENSURE(ctx, d->m >= 1 && d->n >= 2, "fft_length (%d, %d)", (int)d->m, (int)d->n);
    d->M = x->shape[x->rank - 2]; d->N = x->shape[x->rank - 1];
    d->outer = 1;
    for (int i = 0; i < x->rank - 2; i++) d->outer *= (uint64_t)x->shape[i];
    d->buf_slot = gc_ctx_scratch(ctx, n, (size_t)d->m * (size_t)(d->n / 2 + 1) * 2 * sizeof(double) +
                                       (size_t)d->n * 2 * sizeof(double));
    if (ctx->fast) {
        const bool pow2 = (d->n & (d->n - 1)) == 0;
        d->tw = pow2 ? gc_ctx_alloc(ctx, (size_t)d->n * 2 * sizeof(double)) : NULL;
        d->row_cs = pow2 ? NULL : gc_ctx_alloc(ctx, (size_t)d->n * 2 * sizeof(double));
        d->col_cs = gc_ctx_alloc(ctx, (size_t)d->m * 2 * sizeof(double));
        if ((pow2 && !d->tw) || (!pow2 && !d->row_cs) || !d->col_cs) return GC_ERR_NOMEM;
        d->twr = pow2 ? gc_ctx_alloc(ctx, (size_t)d->n * 2 * sizeof(double)) : NULL;
        if (pow2 && !d->twr) return GC_ERR_NOMEM;
        d->twi = pow2 ? d->twr + d->n : NULL;
        d->rev = pow2 ? gc_ctx_alloc(ctx, (size_t)d->n * sizeof(int32_t)) : NULL;
        if (pow2 && !d->rev) return GC_ERR_NOMEM;
        for (int32_t i = 0; pow2 && i < d->n; i++) d->rev[i] = i;
        for (int32_t i = 1, j = 0; pow2 && i < d->n; i++) {      /* fft_pow2's swaps, on indices */
            int32_t bit = d->n >> 1;
            for (; j & bit; bit >>= 1) j ^= bit;
            j ^= bit;
            if (i < j) { int32_t t = d->rev[i]; d->rev[i] = d->rev[j]; d->rev[j] = t; }
        }
        for (int32_t len = 2; pow2 && len <= d->n; len <<= 1) {
            double ang = -2.0 * M_PI / len;
            for (int32_t k = 0; k < len / 2; k++) {
                d->tw[2 * (len / 2 - 1 + k)] = d->twr[len / 2 - 1 + k] = cos(ang * k);
                d->tw[2 * (len / 2 - 1 + k) + 1] = d->twi[len / 2 - 1 + k] = sin(ang * k);
            }
        }
        for (int32_t j = 0; !pow2 && j < d->n; j++) {
            d->row_cs[2 * j] = cos(dft_angle(j, d->n)); d->row_cs[2 * j + 1] = sin(dft_angle(j, d->n));
        }
        for (int32_t j = 0; j < d->m; j++) {
            d->col_cs[2 * j] = cos(dft_angle(j, d->m)); d->col_cs[2 * j + 1] = sin(dft_angle(j, d->m));
        }
    }
    n->data = d;
    int32_t shp[GC_MAX_RANK];
    memcpy(shp, x->shape, sizeof shp);
    shp[x->rank - 2] = d->m; shp[x->rank - 1] = d->n / 2 + 1;
    return gc_set_shape(ctx, y, x->rank, shp);
}

/* The same FFT as fft_pow2 below (the same operations on the same values, so the same
 * bits) on split real / imaginary arrays, twiddles from the tables (tw: cos at 2 i, sin at
 * 2 i + 1, copied to wr / wi by the caller), so that the butterflies of a stage, which
 * are independent, vectorize. */
/* one stage's butterflies [0, half) of one group: a = re/im, b = a + half */
static inline __attribute__((always_inline)) void bfly(double *restrict ar, double *restrict ai, double *restrict br_,
                                                       double *restrict bi_, const double *restrict cr,
                                                       const double *restrict ci, int half) {
    for (int k = 0; k < half; k++) {
        const double br = br_[k] * cr[k] - bi_[k] * ci[k], bi = br_[k] * ci[k] + bi_[k] * cr[k];
        br_[k] = ar[k] - br; bi_[k] = ai[k] - bi;
        ar[k] = ar[k] + br; ai[k] = ai[k] + bi;
    }
}

/* re / im already in bit-reversed order (the reference's swaps are that permutation) */
GC_CLONES static void fft_pow2_split(double *re, double *im, int n, const double *wr, const double *wi) {
    for (int len = 2; len <= n; len <<= 1) {
        const int half = len / 2;
        const double *cr = wr + (half - 1), *ci = wi + (half - 1);
        for (int i = 0; i < n; i += len) bfly(re + i, im + i, re + i + half, im + i + half, cr, ci, half);
    }
}

/* In-place iterative radix-2 FFT of n complex values (re, im interleaved); tw: the
 * twiddles made at prepare, or NULL (computed here). */
static void fft_pow2(double *z, int n, const double *tw) {
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { double t = z[2 * i]; z[2 * i] = z[2 * j]; z[2 * j] = t;
                     t = z[2 * i + 1]; z[2 * i + 1] = z[2 * j + 1]; z[2 * j + 1] = t; }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = -2.0 * M_PI / len;
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < len / 2; k++) {
                double wr = tw ? tw[2 * (len / 2 - 1 + k)] : cos(ang * k), wi = tw ? tw[2 * (len / 2 - 1 + k) + 1] : sin(ang * k);
                double *a = z + 2 * (i + k), *b = z + 2 * (i + k + len / 2);
                double br = b[0] * wr - b[1] * wi, bi = b[0] * wi + b[1] * wr;
                b[0] = a[0] - br; b[1] = a[1] - bi;
                a[0] += br; a[1] += bi;
            }
    }
}

static gc_status rfft_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    rfft_data *d = n->data;
    const float *x = (const float *)n->in[0]->data;
    float *y = (float *)n->out[0]->data;
    const int32_t m = d->m, nn = d->n, V = nn / 2 + 1;
    double *rows = (double *)n->scratch[d->buf_slot];       /* [m][V] complex */
    double *z = rows + (size_t)m * V * 2;                    /* [n] complex */
    bool pow2 = (nn & (nn - 1)) == 0;
    for (uint64_t o = 0; o < d->outer; o++) {
        const float *xs = x + o * (uint64_t)d->M * d->N;
        for (int32_t r = 0; r < m; r++) {                     /* 1-D real FFT of each row */
            if (pow2 && d->twr) {                             /* split arrays (fft_pow2_split) */
                double *re = z, *im = z + nn, *out = rows + (size_t)r * V * 2;
                for (int32_t k = 0; k < nn; k++) {        /* element k of the swapped array is z[rev[k]] */
                    const int32_t src = d->rev[k];
                    re[k] = (r < d->M && src < d->N) ? xs[(size_t)r * d->N + src] : 0.0;
                    im[k] = 0.0;
                }
                fft_pow2_split(re, im, nn, d->twr, d->twi);
                for (int32_t v = 0; v < V; v++) { out[2 * v] = re[v]; out[2 * v + 1] = im[v]; }
                continue;
            }
            for (int32_t k = 0; k < nn; k++) {
                z[2 * k] = (r < d->M && k < d->N) ? xs[(size_t)r * d->N + k] : 0.0;
                z[2 * k + 1] = 0.0;
            }
            double *out = rows + (size_t)r * V * 2;
            if (pow2) {
                fft_pow2(z, nn, d->tw);
                for (int32_t v = 0; v < V; v++) { out[2 * v] = z[2 * v]; out[2 * v + 1] = z[2 * v + 1]; }
            } else {
                for (int32_t v = 0; v < V; v++) {
                    double re = 0, im = 0;
                    for (int32_t k = 0; k < nn; k++) {
                        int64_t j = (int64_t)v * k % nn;
                        double a = dft_angle(j, nn);
                        re += z[2 * k] * (d->row_cs ? d->row_cs[2 * j] : cos(a));
                        im += z[2 * k] * (d->row_cs ? d->row_cs[2 * j + 1] : sin(a));
                    }
                    out[2 * v] = re; out[2 * v + 1] = im;
                }
            }
        }
        float *ys = y + o * (uint64_t)m * V * 2;
        for (int32_t u = 0; u < m; u++)                       /* DFT along the rows */
            for (int32_t v = 0; v < V; v++) {
                double re = 0, im = 0;
                for (int32_t r = 0; r < m; r++) {
                    int64_t j = (int64_t)u * r % m;
                    double a = dft_angle(j, m);
                    double c = d->col_cs ? d->col_cs[2 * j] : cos(a), s = d->col_cs ? d->col_cs[2 * j + 1] : sin(a);
                    double pr = rows[((size_t)r * V + v) * 2], pi = rows[((size_t)r * V + v) * 2 + 1];
                    re += pr * c - pi * s; im += pr * s + pi * c;
                }
                ys[((size_t)u * V + v) * 2] = (float)re;
                ys[((size_t)u * V + v) * 2 + 1] = (float)im;
            }
    }
    return GC_OK;
}

static gc_status cplx_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    GC_UNSUP(ctx, n->in[0]->dtype == GC_T_COMPLEX64 && n->out[0]->dtype == GC_T_FLOAT32, "%s: COMPLEX64 -> FLOAT32 only", n->name);
    return gc_set_shape(ctx, n->out[0], n->in[0]->rank, n->in[0]->shape);
}

static gc_status cplx_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    const float *z = (const float *)n->in[0]->data;
    float *y = (float *)n->out[0]->data;
    for (uint64_t i = 0, m = gc_numel(n->out[0]); i < m; i++) {
        double re = z[2 * i], im = z[2 * i + 1];
        y[i] = n->code == GC_OP_REAL ? (float)re : n->code == GC_OP_IMAG ? (float)im : (float)sqrt(re * re + im * im);
    }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_rfft2d) = { "RFFT2D", rfft_prepare, rfft_eval, 0 };
const gc_kernel GC_K(gc_k_complex_abs) = { "COMPLEX_ABS", cplx_prepare, cplx_eval, 0 };
const gc_kernel GC_K(gc_k_real) = { "REAL", cplx_prepare, cplx_eval, 0 };
const gc_kernel GC_K(gc_k_imag) = { "IMAG", cplx_prepare, cplx_eval, 0 };
