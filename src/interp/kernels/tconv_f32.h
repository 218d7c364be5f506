/* tconv_f32.h — the fast float32 TRANSPOSE_CONV (NHWC, filter [OC][KH][KW][C]) as one
 * indirect GEMM per output phase.
 *
 * The reference (conv.c tconv_f32) scatters: y = 0, then for every input pixel (iy, ix) in
 * order, every channel ic, every tap (ky, kx): y[iy*sh + ky - pt][ix*sw + kx - pl][oc] +=
 * x[iy][ix][ic] * w[oc][ky][kx][ic]; then y + bias and the clamp. So one output (oy, ox)
 * adds its terms in (iy, ix, ic) order, with ky = oy + pt - iy*sh and kx = ox + pl - ix*sw:
 * the taps of its phase ((oy + pt) mod sh, (ox + pl) mod sw), ky and kx descending. Here
 * every phase gets its own packed filter (k = t*C + ic over those taps in that order) and
 * the outputs of the phase are gathered as a GEMM with row pointers (gemm_f32.h), taps
 * outside the input reading a zero row.
 *
 * Exactness: BIT-IDENTICAL to the reference (each output's products added one at a time
 * in the same order, fused or not as the phases' GEMM mode says (GC_GEMM_F32_FMA with
 * opts.float_arith fma: fmaf, as the reference then), + bias or +0.0f, the same clamp; a phase with no taps gives
 * clamp(0.0f + bias)), given finite weights (a tap outside the input reads the zero row:
 * gemm_f32.h); gc_tconvf_exact says whether the filter qualifies. With the phases packed
 * for GC_GEMM_H16 (h16) it is the reference's fp16-acc scatter, r(y + r(x w)) per term in
 * the same order and r(y + bias) at the end, bit for bit as well.
 *
 * Threads: gc_tconvf_run computes output rows [t0, t1) (row = b * OH + oy).
 */
#ifndef GC_TCONV_F32_H
#define GC_TCONV_F32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/kernels/gemm_f32.h"

typedef struct {
    int32_t Bn, H, W, C, OH, OW, OC, KH, KW, sh, sw, pt, pl;
    float lo, hi;
    gc_gemm_b *ph;              /* [sh * sw] packed filters, phase (py, px) at py * sw + px */
    int32_t *nky, *nkx;         /* [sh], [sw]: taps per row / column phase */
    const float *bias;          /* OC floats padded to the panels (gc_gemm_pack_bias) */
    const float *zero;          /* C zeros */
    int32_t max_taps;
    bool h16;                   /* the phases' GEMM mode is GC_GEMM_H16 (fp16-acc): a phase
                                   without taps gives clamp(r(0.0f + bias)) */
    int store;                  /* GC_F16_STORE_* (fp16.h): round each output row to half once
                                   computed (0: leave it) */
} gc_tconvf;

/* Taps of row phase p (stride s, kernel k): ky = p + s*(n-1-i), i = 0..n-1 (descending). */
static inline int32_t gc_tconvf_ntaps(int32_t p, int32_t s, int32_t k) { return p < k ? (k - p + s - 1) / s : 0; }
/* true when every weight is finite (see the top) */
bool gc_tconvf_exact(const gc_tconvf *c, const float *w);
/* Pack phase (py, px) of the filter w [OC][KH][KW][C] into c->ph[py*sw + px] (its
 * layout set and its memory bound by the caller); tmp holds OC * K floats of that phase. */
void gc_tconvf_pack(const gc_tconvf *c, const float *w, int32_t py, int32_t px, float *tmp);
int64_t gc_tconvf_tiles(const gc_tconvf *c);               /* output rows: Bn * OH */
size_t gc_tconvf_scratch_bytes(const gc_tconvf *c);        /* per thread */
void gc_tconvf_run(const gc_tconvf *c, const float *x, float *y, void *scratch, int64_t t0, int64_t t1);

#endif
