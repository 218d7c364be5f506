/* signal.c — RFFT2D, COMPLEX_ABS, REAL, IMAG.
 *
 * RFFT2D(x, fft_length[2])  x FLOAT32 [..., M, N]; the last two dims are cropped or
 *   zero-padded to fft_length (m, n); output COMPLEX64 [..., m, n/2 + 1]:
 *   Y[u][v] = sum_y sum_x x[y][x] exp(-2 pi i (u y / m + v x / n)).
 *   Computed in double (as TFLite's kernel, which runs Ooura's double FFT) then rounded
 *   to float: a radix-2 FFT along the last dim when n is a power of two, else a direct
 *   DFT; a direct DFT along the second dim (m is usually 1).
 * COMPLEX_ABS(z) = sqrt(re^2 + im^2) (in double, rounded); REAL / IMAG pick a part.
 * fp16: outputs are float tensors (COMPLEX64 is not rounded: the GPU has no complex).
 */
#include "interp/interp_impl.h"

#include <stdlib.h>

typedef struct { int32_t m, n, M, N; uint64_t outer; int buf_slot; } rfft_data;

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
    n->data = d;
    int32_t shp[GC_MAX_RANK];
    memcpy(shp, x->shape, sizeof shp);
    shp[x->rank - 2] = d->m; shp[x->rank - 1] = d->n / 2 + 1;
    return gc_set_shape(ctx, y, x->rank, shp);
}

/* In-place iterative radix-2 FFT of n complex values (re, im interleaved). */
static void fft_pow2(double *z, int n) {
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
                double wr = cos(ang * k), wi = sin(ang * k);
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
            for (int32_t k = 0; k < nn; k++) {
                z[2 * k] = (r < d->M && k < d->N) ? xs[(size_t)r * d->N + k] : 0.0;
                z[2 * k + 1] = 0.0;
            }
            double *out = rows + (size_t)r * V * 2;
            if (pow2) {
                fft_pow2(z, nn);
                for (int32_t v = 0; v < V; v++) { out[2 * v] = z[2 * v]; out[2 * v + 1] = z[2 * v + 1]; }
            } else {
                for (int32_t v = 0; v < V; v++) {
                    double re = 0, im = 0;
                    for (int32_t k = 0; k < nn; k++) {
                        double a = -2.0 * M_PI * (double)((int64_t)v * k % nn) / nn;
                        re += z[2 * k] * cos(a); im += z[2 * k] * sin(a);
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
                    double a = -2.0 * M_PI * (double)((int64_t)u * r % m) / m, c = cos(a), s = sin(a);
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
