/* qgemm8_mv.h — int8 matrix times int8 vector for the recurrent integer kernels
 * (lstm_int8.c's gate and projection products, svdf.c's feature filter):
 *
 *   d[r] = sum over c of w[r][c] x[c]   (r < rows, c < cols), modulo 2^32.
 *
 * Exactness: the references sum the same products in wrapping int32 (uint32) arithmetic,
 * whose value does not depend on the order of the terms, so any order gives the same
 * bits (as qgemm8.h). The caller adds its bias and zero-point terms to d and requantizes
 * with its own scalar code.
 *
 * Levels (gc_q8_level, qgemm8.h):
 *   VNNI:  w packed [P][cp / 4][16][4] s8 (rows in panels of 16, units past rows and
 *          depth past cols are zero weights; cp = cols rounded up to 4); x as u8
 *          (x ^ 0x80 = x + 128) in quads broadcast to every lane, vpdpbusd; then
 *          d = sum (x + 128) w - 128 rowsum(w) (the correction kept per row, corr[]);
 *   AVX2:  w as int16 pairs [P][cp / 2][16][2] (cp = cols rounded up to 2), x as int16
 *          pairs broadcast, vpmaddwd (|w x| <= 2^14, a pair's sum fits: no saturation);
 *   SCALAR: not made (gc_q8mv_bytes 0): the callers keep their reference loops.
 */
#ifndef GC_QGEMM8_MV_H
#define GC_QGEMM8_MV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/kernels/qgemm8.h"

typedef struct {
    gc_q8level level;
    int32_t rows, cols, cp, P;  /* cp: padded depth; P: panels of 16 rows */
    const int8_t *w;            /* the panels (VNNI: s8; AVX2: int16 as bytes) */
    const int32_t *corr;        /* VNNI: 128 rowsum(w), [P * 16] (0 past rows) */
} gc_q8mv;

/* Bytes to hold the packed matrix at `level` (0: nothing to pack at this level, or too
 * large). */
size_t gc_q8mv_bytes(gc_q8level level, int32_t rows, int32_t cols);
/* Pack w [rows][cols] (row-major) into mem (gc_q8mv_bytes bytes, zeroed). */
void gc_q8mv_init(gc_q8mv *m, gc_q8level level, const int8_t *w, int32_t rows, int32_t cols, void *mem);
/* Scratch bytes gc_q8mv_run needs (the vector in its encoding). */
size_t gc_q8mv_scratch_bytes(const gc_q8mv *m);
/* d[0 .. rows) for the vector x[0 .. cols) */
void gc_q8mv_run(const gc_q8mv *m, const int8_t *x, void *scratch, int32_t *d);

/* int16 rows dotted with int16 rows (svdf.c's time filter): d[r] = sum over m < M of
 * a[r M + m] b[r M + m] modulo 2^32, r < rows. AVX2 and up: vpmaddwd over the whole
 * arrays (its one overflow, (-2^15)^2 + (-2^15)^2 = 2^31, wraps to the same residue), then
 * each row's pair sums added (M even; otherwise, or at the scalar level, the plain loop). */
void gc_q16_rowdots(gc_q8level level, const int16_t *a, const int16_t *b, int32_t rows, int32_t M, int32_t *d);

#endif
