/* dwconv_f32.c — the fast float32 DEPTHWISE_CONV_2D (dwconv_f32.h): per output row,
 * per block of VW channels, blocks of PX output pixels whose every tap lies inside the
 * image (no checks), the rest one pixel at a time skipping the taps outside. One body per
 * instruction set: AVX-512F (VW 16), AVX2 (VW 8), portable C (VW 8).
 */
#include "interp/kernels/dwconv_f32.h"
#include "interp/kernels/cpu_isa.h"

#include <stdbool.h>
#include <stddef.h>

enum { PX = 8 };

/* One output row's pixel ranges: [0, a) and [b, OW) need tap checks, [a, b) do not. */
typedef struct { const float *xb; float *yr; int32_t iy0, a, b; } dw_row;

static void interior(const gc_dwf *c, int32_t *a, int32_t *b) {
    int64_t lo = ((int64_t)c->pl + c->sw - 1) / c->sw;
    int64_t num = (int64_t)c->W - 1 - (int64_t)(c->KW - 1) * c->dw + c->pl;
    int64_t hi = num < 0 ? 0 : num / c->sw + 1;
    if (lo > c->OW) lo = c->OW;
    if (hi > c->OW) hi = c->OW;
    if (hi < lo) hi = lo;
    *a = (int32_t)lo; *b = (int32_t)hi;
}

/* ---- portable C ------------------------------------------------------------------------ */

enum { SW = 8 };

static inline void px_scalar(const gc_dwf *c, const dw_row *r, int32_t ox, const int np, bool check,
                             int32_t c0, int32_t nc) {
    float acc[PX][SW];
    for (int p = 0; p < np; p++)
        for (int j = 0; j < SW; j++) acc[p][j] = 0.0f;
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const float *wk = c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0;
            for (int p = 0; p < np; p++) {
                int32_t ix = (ox + p) * c->sw - c->pl + kx * c->dw;
                if (check && (ix < 0 || ix >= c->W)) continue;
                const float *xp = xrow + (size_t)ix * (size_t)c->C;
                for (int32_t j = 0; j < nc; j++) {
                    const float pr = xp[j] * wk[j];
                    acc[p][j] = acc[p][j] + pr;
                }
            }
        }
    }
    for (int p = 0; p < np; p++) {
        float *yp = r->yr + (size_t)(ox + p) * (size_t)c->C + (size_t)c0;
        for (int32_t j = 0; j < nc; j++) {
            float v = acc[p][j] + (c->bias ? c->bias[c0 + j] : 0.0f);
            yp[j] = v < c->lo ? c->lo : v > c->hi ? c->hi : v;
        }
    }
}

static void row_scalar(const gc_dwf *c, const dw_row *r) {
    for (int32_t c0 = 0; c0 < c->C; c0 += SW) {
        int32_t nc = c->C - c0 < SW ? c->C - c0 : SW;
        int32_t ox = 0;
        for (; ox < r->a; ox++) px_scalar(c, r, ox, 1, true, c0, nc);
        for (; ox + PX <= r->b; ox += PX) px_scalar(c, r, ox, PX, false, c0, nc);
        for (; ox < r->b; ox++) px_scalar(c, r, ox, 1, false, c0, nc);
        for (; ox < c->OW; ox++) px_scalar(c, r, ox, 1, true, c0, nc);
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define INL static inline __attribute__((always_inline))

/* ---- AVX-512F ---------------------------------------------------------------------------- */

#define T512 __attribute__((target("avx512f")))

INL T512 void px_512(const gc_dwf *c, const dw_row *r, int32_t ox, const int np, const bool check,
                     int32_t c0, __mmask16 k) {
    __m512 acc[PX];
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) acc[p] = _mm512_setzero_ps();
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const __m512 wv = _mm512_maskz_loadu_ps(k, c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0);
#pragma GCC unroll 8
            for (int p = 0; p < np; p++) {
                int32_t ix = (ox + p) * c->sw - c->pl + kx * c->dw;
                if (check && (ix < 0 || ix >= c->W)) continue;
                const __m512 xv = _mm512_maskz_loadu_ps(k, xrow + (size_t)ix * (size_t)c->C);
                acc[p] = _mm512_add_ps(acc[p], _mm512_mul_ps(xv, wv));
            }
        }
    }
    const __m512 bv = c->bias ? _mm512_maskz_loadu_ps(k, c->bias + c0) : _mm512_setzero_ps();
    const __m512 lo = _mm512_set1_ps(c->lo), hi = _mm512_set1_ps(c->hi);
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) {
        __m512 v = _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(acc[p], bv)));
        _mm512_mask_storeu_ps(r->yr + (size_t)(ox + p) * (size_t)c->C + (size_t)c0, k, v);
    }
}

T512 static void row_512(const gc_dwf *c, const dw_row *r) {
    for (int32_t c0 = 0; c0 < c->C; c0 += 16) {
        int32_t nc = c->C - c0 < 16 ? c->C - c0 : 16;
        const __mmask16 k = (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u);
        int32_t ox = 0;
        for (; ox < r->a; ox++) px_512(c, r, ox, 1, true, c0, k);
        for (; ox + PX <= r->b; ox += PX) px_512(c, r, ox, PX, false, c0, k);
        for (; ox < r->b; ox++) px_512(c, r, ox, 1, false, c0, k);
        for (; ox < c->OW; ox++) px_512(c, r, ox, 1, true, c0, k);
    }
}

/* ---- AVX2 ---------------------------------------------------------------------------------- */

#define T256 __attribute__((target("avx2")))

INL T256 void px_256(const gc_dwf *c, const dw_row *r, int32_t ox, const int np, const bool check,
                     int32_t c0, __m256i k) {
    __m256 acc[PX];
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) acc[p] = _mm256_setzero_ps();
    for (int32_t ky = 0; ky < c->KH; ky++) {
        int32_t iy = r->iy0 + ky * c->dh;
        if (iy < 0 || iy >= c->H) continue;
        const float *xrow = r->xb + (size_t)iy * (size_t)c->W * (size_t)c->C + (size_t)c0;
        for (int32_t kx = 0; kx < c->KW; kx++) {
            const __m256 wv = _mm256_maskload_ps(c->w + ((size_t)ky * (size_t)c->KW + (size_t)kx) * (size_t)c->C + (size_t)c0, k);
#pragma GCC unroll 8
            for (int p = 0; p < np; p++) {
                int32_t ix = (ox + p) * c->sw - c->pl + kx * c->dw;
                if (check && (ix < 0 || ix >= c->W)) continue;
                const __m256 xv = _mm256_maskload_ps(xrow + (size_t)ix * (size_t)c->C, k);
                acc[p] = _mm256_add_ps(acc[p], _mm256_mul_ps(xv, wv));
            }
        }
    }
    const __m256 bv = c->bias ? _mm256_maskload_ps(c->bias + c0, k) : _mm256_setzero_ps();
    const __m256 lo = _mm256_set1_ps(c->lo), hi = _mm256_set1_ps(c->hi);
#pragma GCC unroll 8
    for (int p = 0; p < np; p++) {
        __m256 v = _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(acc[p], bv)));
        _mm256_maskstore_ps(r->yr + (size_t)(ox + p) * (size_t)c->C + (size_t)c0, k, v);
    }
}

T256 static void row_256(const gc_dwf *c, const dw_row *r) {
    for (int32_t c0 = 0; c0 < c->C; c0 += 8) {
        int32_t nc = c->C - c0 < 8 ? c->C - c0 : 8;
        const __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        int32_t ox = 0;
        for (; ox < r->a; ox++) px_256(c, r, ox, 1, true, c0, k);
        for (; ox + PX <= r->b; ox += PX) px_256(c, r, ox, PX, false, c0, k);
        for (; ox < r->b; ox++) px_256(c, r, ox, 1, false, c0, k);
        for (; ox < c->OW; ox++) px_256(c, r, ox, 1, true, c0, k);
    }
}
#endif

/* ---- driver ---------------------------------------------------------------------------------- */

int64_t gc_dwf_tiles(const gc_dwf *c) { return (int64_t)c->Bn * c->OH; }

void gc_dwf_run(const gc_dwf *c, const float *x, float *y, int64_t t0, int64_t t1) {
    dw_row r;
    interior(c, &r.a, &r.b);
    for (int64_t t = t0; t < t1; t++) {
        int32_t b = (int32_t)(t / c->OH), oy = (int32_t)(t % c->OH);
        r.xb = x + (size_t)b * (size_t)c->H * (size_t)c->W * (size_t)c->C;
        r.yr = y + ((size_t)b * (size_t)c->OH + (size_t)oy) * (size_t)c->OW * (size_t)c->C;
        r.iy0 = oy * c->sh - c->pt;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        if (c->isa == GC_ISA_AVX512) { row_512(c, &r); continue; }
        if (c->isa == GC_ISA_AVX2) { row_256(c, &r); continue; }
#endif
        row_scalar(c, &r);
    }
}
