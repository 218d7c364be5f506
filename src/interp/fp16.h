/* fp16.h — IEEE 754 binary16 ("half"): the one rounding function of the fp16 modes and
 * exact conversions.
 *
 * gc_f16_round(x) is the float nearest to x that a half can hold, ties to even, exactly
 * what storing x into a half register and reading it back gives on a GPU:
 *   |x| >= 65520 (halfway between 65504, the largest half, and 65536) -> +-inf;
 *   |x| <  2^-14 -> a multiple of 2^-24 (half subnormals; tiny values flush to +-0);
 *   inf stays inf; NaN stays NaN (quieted); the sign of zero is kept.
 * The fp16 interpreter modes apply it at the points each kernel file documents; the
 * test tests/c/test_fp16.c checks it on all 65,536 halves and on every halfway tie.
 */
#ifndef GC_FP16_H
#define GC_FP16_H

#include <stdint.h>
#include <string.h>

float gc_f16_round(float x);
uint16_t gc_f32_to_f16(float x);       /* round to nearest even */
float gc_f16_to_f32(uint16_t h);       /* exact */

/* Round n floats in place. */
void gc_f16_round_n(float *x, size_t n);

#endif
