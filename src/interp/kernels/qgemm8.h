/* qgemm8.h — the fast 8-bit paths of CONV_2D, DEPTHWISE_CONV_2D (depth multiplier 1),
 * FULLY_CONNECTED and BATCH_MATMUL: int8 / uint8 activations and weights (per-tensor or
 * per-channel), weights packed once into panels, register-blocked microkernels
 * (qgemm8_ukr.h) for AVX-512 VNNI, AVX2 and portable C, chosen at run time.
 *
 * Exactness: BIT-IDENTICAL to the reference kernels (conv.c conv_q32 / conv_q64, fc.c
 * fc_eval and bmm_eval). The reference sums (x - zx)(w - zw) over the taps inside the
 * image (8-bit: in int32, or in int64 and then truncated to int32 before the rescale),
 * adds the bias and requantizes (quant.h: TFLite's gc_q_mul or XNNPACK's gc_q_xnn), then
 * clamps. Integer sums do not depend on their order, and the kernels sum modulo 2^32,
 * which is the reference's int32 value in both cases; so any order and any split give the
 * same bits. A tap outside the image reads a row holding the input zero point, whose
 * terms (zx - zx)(w - zw) are 0, so it may be summed like any other.
 *
 * Levels (gc_q8_level): VNNI (cpu_isa AVX-512 and the CPU has AVX-512 BW, VL and VNNI):
 * a = x as u8 (int8 x: x ^ 0x80 = x + 128), w as s8 (uint8 w: w - 128), vpdpbusd; with
 *     xu = x + cx, zxu = zx + cx, ws = w - cw, zws = zw - cw (cx, cw = 128 or 0):
 *     sum (x - zx)(w - zw) = sum xu ws - zxu * colsum(ws)[n] - zws * rowsum(xu)[m] + K zxu zws
 *   where K counts every tap and channel (pad taps included, reading zxu). The column terms
 *   go into the packed bias; the row term (only when zws != 0, i.e. uint8 weights or a
 *   nonzero weight zero point; it must be the same for every column, else the I16 level is
 *   used) is computed per output pixel from per-pixel channel sums.
 * I16 (AVX2, portable C): a = x - zx and w - zw as int16, no corrections.
 * The input goes through a per-eval copy (gc_q8conv_prep) where the encoding needs one:
 * I16 always; VNNI when x is int8 or the channels are not a multiple of 4 (padded with
 * zero weights).
 *
 * Threads: gc_q8conv_run computes tiles [t0, t1) (MR output pixels each; depthwise: output
 * rows) and writes only theirs; gc_q8conv_prep runs once before, on one thread.
 */
#ifndef GC_QGEMM8_H
#define GC_QGEMM8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/kernels/qgemm8_ukr.h"

typedef enum { GC_Q8_SCALAR = 0, GC_Q8_AVX2 = 1, GC_Q8_VNNI = 2 } gc_q8level;

/* the level for the float kernels' instruction set `isa` (cpu_isa.h) on this CPU */
gc_q8level gc_q8_level(int isa);
const char *gc_q8_level_name(gc_q8level l);

enum { GC_Q8_GEMM = 0, GC_Q8_DW = 1 };

/* The weights as the packers read them: element (n, k) of the GEMM's B (n: output column,
 * k = t * C + c: tap t, input channel c) is src[n * sn + k * sk]; depthwise: (c, t) is
 * src[t * C + c] (the file's [1][KH][KW][C]). zw: per column. */
typedef struct {
    const uint8_t *src;
    bool w_signed;
    int64_t sn, sk;
    const int32_t *zw;
} gc_q8wsrc;

typedef struct gc_q8conv {
    const gc_q8ukr_set *ks;
    gc_q8level level;
    int kind;                   /* GC_Q8_GEMM / GC_Q8_DW */
    /* geometry, as conv.c's (FULLY_CONNECTED: Bn 1, H rows, W 1, C depth, 1x1) */
    int32_t Bn, H, W, C, OH, OW, OC, KH, KW, sh, sw, dh, dw, pt, pl;
    bool x_signed;
    int32_t zx;                 /* input zero point */
    /* GEMM */
    int32_t Cp;                 /* channels per tap in A, a multiple of the level's GS */
    int32_t T, KG, P;           /* taps, lane groups per tap, panels */
    void *w;                    /* panels, 64-byte aligned */
    int64_t pstride;            /* bytes per panel */
    bool a_direct;              /* A is x itself (VNNI, uint8 x, C % 4 == 0) */
    uint8_t flip;               /* VNNI: x byte ^ flip = xu */
    int32_t zws;                /* VNNI: the row term's factor (0: none) */
    int32_t padsum;             /* VNNI: rowsum of a pad tap, C * zxu */
    const void *pad;            /* a pad row in A's encoding (Cp elements) */
    /* depthwise */
    int32_t *wdw;               /* [T][Cp] int32 lanes: (uint16)(w - zw) */
    const uint8_t *xpad;        /* C + 64 bytes of the raw input zero point */
    gc_q8rq rq;                 /* arrays of P * PW (depthwise: Cp) columns */
} gc_q8conv;

/* Choose the layout (c's geometry, kind, x_signed, zx set; uniform_zws: every column has
 * the same weight zero point): sets ks, Cp, T, KG, P, pstride, a_direct, flip. Returns
 * the bytes to allocate for the weights (+ 64 for the alignment), 0 when too large. */
size_t gc_q8conv_layout(gc_q8conv *c, gc_q8level level, bool w_signed, bool uniform_zw);
/* Point c->w / c->wdw into mem (gc_q8conv_layout's bytes). */
void gc_q8conv_bind(gc_q8conv *c, void *mem);
/* Fill the panels (fill = true) and the per-column sums colsum[n] of the packed s8 values
 * (VNNI; always computed), and set zws from zw. */
void gc_q8conv_pack(gc_q8conv *c, const gc_q8wsrc *s, bool fill, int32_t *colsum);
/* The padded columns of the requantization arrays (P * PW, depthwise Cp). */
int32_t gc_q8conv_cols(const gc_q8conv *c);
/* The packed bias: bias (may be NULL) plus the corrections, into out[cols]. */
void gc_q8conv_bias(const gc_q8conv *c, const int32_t *bias, const int32_t *colsum, const gc_q8wsrc *s,
                    int32_t *out);

size_t gc_q8conv_shared_bytes(const gc_q8conv *c);
size_t gc_q8conv_thread_bytes(const gc_q8conv *c);
void gc_q8conv_prep(const gc_q8conv *c, const uint8_t *x, void *shared);
int64_t gc_q8conv_tiles(const gc_q8conv *c);
void gc_q8conv_run(const gc_q8conv *c, const uint8_t *x, const void *shared, void *thread, uint8_t *y,
                   int64_t t0, int64_t t1);

#endif
