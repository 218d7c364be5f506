/* dwconv_f32.h — the fast float32 DEPTHWISE_CONV_2D (depth multiplier 1), NHWC.
 *
 * Exactness: BIT-IDENTICAL to the reference (conv.c dw_f32): each output channel starts
 * at +0.0f, adds x*w for the taps inside the image in (ky, kx) order (taps outside are
 * skipped, as in the reference: no zero row, so any filter values are fine), each product
 * rounded and then added (GC_DWF_F32; GC_DWF_FMA fuses them, below), then + bias (or +0.0f)
 * and the clamp
 * v < lo ? lo : v > hi ? hi : v. Vectorised across channels (16 per zmm, 8 per ymm), with
 * a row of up to 8 output pixels' accumulators in registers; pixels whose taps all lie
 * inside the image run without per-tap checks, the others one at a time with them.
 * The filter is read in place ([1][KH][KW][C], the file's layout): nothing is copied.
 *
 * Threads: gc_dwf_run computes output rows [t0, t1) (row = b * OH + oy); any split gives
 * the same bits.
 */
#ifndef GC_DWCONV_F32_H
#define GC_DWCONV_F32_H

#include <stddef.h>
#include <stdint.h>

/* GC_DWF_F32: as above; GC_DWF_H16: every step in half, acc = r(acc + r(x w)) from +0.0f
 * over the same taps in the same order, then r(acc + bias) (or r(acc + 0.0f)) and the
 * clamp: conv.c dw_f32 with a16 (fp16-acc), bit for bit (kernels/f16_simd.h);
 * GC_DWF_FMA: every step acc = fmaf(x, w, acc) (one rounding), the same taps in the same
 * order, then + bias and the clamp: conv.c dw_f32 with opts.float_arith fma, bit for bit. */
enum { GC_DWF_F32 = 0, GC_DWF_H16 = 1, GC_DWF_FMA = 2 };

typedef struct {
    int isa;                    /* gc_isa (cpu_isa.h) */
    int mode;                   /* GC_DWF_* */
    int store;                  /* GC_F16_STORE_* (fp16.h): round each output row to half
                                   once computed (0: leave it) */
    const float *w;             /* [KH][KW][C] */
    const float *bias;          /* [C] or NULL */
    int32_t Bn, H, W, C, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl;
    float lo, hi;
    /* epi: NULL, or applied in place to each finished output row's outputs (y, n floats; after the
     * fp16 store when there is one): the swish of a MUL absorbed after planning
     * (interp.c plan_swish_epilogues, conv.c), while the tile is in cache; set per run */
    void (*epi)(float *y, size_t n, const void *arg);
    const void *epi_arg;
} gc_dwf;

int64_t gc_dwf_tiles(const gc_dwf *c);     /* output rows: Bn * OH */
void gc_dwf_run(const gc_dwf *c, const float *x, float *y, int64_t t0, int64_t t1);

#endif
