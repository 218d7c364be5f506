/* qelem8.h — fast paths of 8-bit elementwise ops, bit-identical to their reference loops:
 *
 *   gc_q8bin_run     ADD / SUB / MUL on int8 / uint8 (elementwise.c run_q's arithmetic,
 *                    TFLite's and XNNPACK's), 16 lanes (AVX-512F) or 8 (AVX2) at a time,
 *                    for inner runs of stride 1 or broadcast (0) on either input.
 *   gc_q8quant_run   QUANTIZE float32 -> int8 / uint8 with one scale (quantize.c's two
 *                    formulas: x / s rounded half away from zero, or XNNPACK's x * (1/s)
 *                    rounded half to even, clamped).
 *   gc_q8lut_run     y = table[x] for 8-bit x: what QUANTIZE (8 -> 8 bit), the RELU family,
 *                    LEAKY_RELU and every other table-driven activation use; the tables are
 *                    built at prepare by the reference's own per-value code, so they are
 *                    exact by construction.
 * Each returns false where it has no fast code for the case (the scalar level, other
 * strides); the caller then runs its reference loop. Levels: cpu_isa.h's (ctx->isa).
 */
#ifndef GC_QELEM8_H
#define GC_QELEM8_H

#include <stdbool.h>
#include <stdint.h>

enum { GC_Q8E_ADD = 0, GC_Q8E_MUL = 1 };

typedef struct {
    int op;                     /* GC_Q8E_ADD (ADD, and SUB with b_mult / xb negated) or GC_Q8E_MUL */
    bool xnn;                   /* XNNPACK's arithmetic */
    bool a_signed, b_signed;    /* int8 (else uint8) inputs */
    int32_t a_off, b_off, y_off, left_shift;
    int32_t a_mult, b_mult, y_mult; int a_shift, b_shift, y_shift;
    int32_t lo, hi;             /* output clamp */
    int32_t xa, xb, xbias, xshift;
    float xscale;
} gc_q8bin;

bool gc_q8bin_run(int isa, const gc_q8bin *p, const uint8_t *a, int64_t sa, const uint8_t *b, int64_t sb,
                  int64_t n, uint8_t *y);

typedef struct {
    bool xnn;
    float scale, inv_scale;     /* TFLite: x / scale; XNNPACK: x * inv_scale */
    int32_t zp, lo, hi;
} gc_q8quant;

bool gc_q8quant_run(int isa, const gc_q8quant *p, const float *x, int64_t n, uint8_t *y);

/* RESIZE_BILINEAR, 8 bits, one output pixel: C channels from the four source pixels
 * (resize.c's arithmetic). TFLite: v = ((x00 w[0] + x10 w[1]) + x01 w[2]) + x11 w[3] in float,
 * roundf, clamped to [lo, hi]; XNNPACK: t = 2048 x00 + (x01 - x00) wx, b = 2048 x10 +
 * (x11 - x10) wx, (2048 t + (b - t) wy + 2^21) >> 22. */
typedef struct { bool xnn, sgn; int32_t lo, hi; } gc_q8bil;
bool gc_q8bil_px(int isa, const gc_q8bil *p, const uint8_t *x00, const uint8_t *x10, const uint8_t *x01,
                 const uint8_t *x11, const float *w, int32_t wx, int32_t wy, int32_t C, uint8_t *y);

/* y[n][b][a] = x[n][a][b] for 1-byte elements (x: batch matrices of A rows of B bytes): the
 * TRANSPOSE of NHWC <-> NCHW after merging dims; 16 x 16 tiles transposed in registers.
 * Items [i0, i1) of batch * ceil(A / 16): (matrix, band of 16 rows), each written by one
 * item only (a split over threads gives the same bytes). */
void gc_q8transpose(const uint8_t *x, uint8_t *y, int64_t A, int64_t B, int64_t i0, int64_t i1);

/* One output row of the same (AVX-512 BW, or AVX2 on 8 lanes): pixel ox reads columns xo0[ox] / xo1[ox] (byte
 * offsets of the left / right pixels) of the rows r0 (y0) and r1 (y1); TFLite: the weights
 * are the reference's per pixel, w00 = (1 - wy)(1 - wx[ox]), w10 = wy (1 - wx[ox]), w01 =
 * (1 - wy) wx[ox], w11 = wy wx[ox]; XNNPACK: wxq[ox], wyq. False: not on this CPU. */
bool gc_q8bil_row(int isa, const gc_q8bil *p, const uint8_t *r0, const uint8_t *r1, const int32_t *xo0,
                  const int32_t *xo1, const float *wx, const int32_t *wxq, float wy, int32_t wyq, int32_t OW, int32_t C,
                  uint8_t *yrow);

/* ARG_MAX / ARG_MIN of 8-bit values over the last axis of len <= 32 (reduce.c's scan: the
 * first index of the extreme value): npix rows of len values, indices as int32 or int64.
 * False: not on this level (AVX2 needed). */
bool gc_q8arg_rows(int isa, const uint8_t *x, int64_t npix, int32_t len, bool sgn, bool mx, bool i64, void *y);

/* table indexed by the byte (int8: the two's complement byte) */
void gc_q8lut_run(int isa, const uint8_t *table, const uint8_t *x, int64_t n, uint8_t *y);

#endif
