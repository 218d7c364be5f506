/* tconv_f32.c — the fast float32 TRANSPOSE_CONV (tconv_f32.h): per output row, per
 * column phase, tiles of MR outputs of that phase (ox, ox + sw, ...; row stride sw*OC)
 * through gc_gemm_tile with one row pointer per tap.
 */
#include "interp/kernels/tconv_f32.h"
#include "interp/fp16.h"

#include <math.h>

bool gc_tconvf_exact(const gc_tconvf *c, const float *w) {
    size_t n = (size_t)c->OC * (size_t)c->KH * (size_t)c->KW * (size_t)c->C;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i])) return false;
    return true;
}

void gc_tconvf_pack(const gc_tconvf *c, const float *w, int32_t py, int32_t px, float *tmp) {
    const int32_t ny = c->nky[py], nx = c->nkx[px], T = ny * nx;
    const size_t K = (size_t)T * (size_t)c->C;
    for (int32_t oc = 0; oc < c->OC; oc++)
        for (int32_t i = 0; i < ny; i++)
            for (int32_t j = 0; j < nx; j++) {
                int32_t ky = py + c->sh * (ny - 1 - i), kx = px + c->sw * (nx - 1 - j);
                const float *src = w + (((size_t)oc * c->KH + (size_t)ky) * c->KW + (size_t)kx) * (size_t)c->C;
                float *dst = tmp + (size_t)oc * K + (size_t)(i * nx + j) * (size_t)c->C;
                for (int32_t ic = 0; ic < c->C; ic++) dst[ic] = src[ic];
            }
    gc_gemm_pack_nk(&c->ph[py * c->sw + px], tmp, (int64_t)K);
}

int64_t gc_tconvf_tiles(const gc_tconvf *c) { return (int64_t)c->Bn * c->OH; }

size_t gc_tconvf_scratch_bytes(const gc_tconvf *c) {
    return ((size_t)c->max_taps + 1) * GC_GEMM_MAX_MR * sizeof(const float *) + 64;
}

void gc_tconvf_run(const gc_tconvf *c, const float *x, float *y, void *scratch, int64_t t0, int64_t t1) {
    const float **ind = (const float **)scratch;
    for (int64_t t = t0; t < t1; t++) {
        const int32_t b = (int32_t)(t / c->OH), oy = (int32_t)(t % c->OH);
        const int32_t py = (oy + c->pt) % c->sh, ny = c->nky[py];
        const float *xb = x + (size_t)b * (size_t)c->H * (size_t)c->W * (size_t)c->C;
        float *yr = y + ((size_t)b * (size_t)c->OH + (size_t)oy) * (size_t)c->OW * (size_t)c->OC;
        for (int32_t px = 0; px < c->sw; px++) {
            const int32_t nx = c->nkx[px], T = ny * nx;
            /* first output of this column phase: (ox + pl) % sw == px */
            int32_t ox0 = ((px - c->pl) % c->sw + c->sw) % c->sw;
            if (T == 0) {                      /* no taps: the reference's 0 + bias */
                for (int32_t ox = ox0; ox < c->OW; ox += c->sw)
                    for (int32_t oc = 0; oc < c->OC; oc++) {
                        float v = 0.0f + c->bias[oc];
                        if (c->h16) v = gc_f16_round_inline(v);
                        yr[(size_t)ox * c->OC + oc] = v < c->lo ? c->lo : v > c->hi ? c->hi : v;
                    }
                continue;
            }
            const gc_gemm_b *pb = &c->ph[py * c->sw + px];
            const int32_t MR = pb->MR;
            for (int32_t ox = ox0; ox < c->OW; ox += MR * c->sw) {
                int32_t mr = (c->OW - ox + c->sw - 1) / c->sw;
                if (mr > MR) mr = MR;
                for (int32_t m = 0; m < MR; m++) {
                    const int32_t o = ox + (m < mr ? m : 0) * c->sw;
                    for (int32_t i = 0; i < ny; i++) {
                        const int32_t iy = (oy + c->pt - (py + c->sh * (ny - 1 - i))) / c->sh;
                        for (int32_t j = 0; j < nx; j++) {
                            const int32_t ix = (o + c->pl - (px + c->sw * (nx - 1 - j))) / c->sw;
                            /* the divisions are exact (phase); a negative numerator gives iy < 0 or -0 */
                            const bool in = oy + c->pt - (py + c->sh * (ny - 1 - i)) >= 0 && iy < c->H &&
                                            o + c->pl - (px + c->sw * (nx - 1 - j)) >= 0 && ix < c->W;
                            ind[(size_t)(i * nx + j) * MR + m] =
                                in ? xb + ((size_t)iy * (size_t)c->W + (size_t)ix) * (size_t)c->C : c->zero;
                        }
                    }
                }
                gc_gemm_tile(pb, 0, ind, T, c->C, 0, mr, c->bias, c->lo, c->hi, yr + (size_t)ox * c->OC,
                             (int64_t)c->sw * c->OC);
            }
        }
        if (c->store) gc_f16_store(c->store, yr, (size_t)c->OW * (size_t)c->OC);
    }
}
