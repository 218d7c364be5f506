/* vgelu.h — float GELU (erf form, options.approximate = false) with a vector erf: the fp32
 * fast path of unary.c's GELU (ctx->fast: fp32 without opts.reference_kernels).
 *
 *   gc_vgelu_run(isa, x, y, n):  y[i] = 0.5f * x[i] * (1.0f + E(x[i] * 0.70710678f))
 *
 * the reference's float operations, with E(z) in place of libm's erff: erf(|z|) in double
 * from a table of 2 polynomials on [0, 4) (vgelu.c, tools/verf_fit.py; relative error
 * <= 2.6e-13), rounded to float, given z's sign; 1 for |z| >= 4 (erf(4) = 1 - 1.5e-8
 * rounds to 1); NaN for NaN. So E(z) is the float nearest erf(z) except where erf(z) lies
 * within 2.6e-13 relatively of a midpoint between floats.
 *
 * NOT bit-identical to the reference: glibc 2.36's erff is not correctly rounded (it
 * differs from the nearest float on 5.9% of the positive floats, by 1 ulp), and where the
 * two erf values differ (by 1 ulp of e, |e| <= 1: ulp(e) <= 2^-24), 1 + e may differ by
 * that and one more rounding (ulp(1 + e) <= 2^-23), then times 0.5 x and one rounding of
 * y: |y_fast - y_ref| <= |x| 2^-23 + ulp(y), which test_vgelu.c checks over a sweep of
 * the float range. Identical at every ISA level (the AVX-512, AVX2 and portable kernels do
 * the same double operations, FMA included).
 */
#ifndef GC_VGELU_H
#define GC_VGELU_H

#include <stddef.h>
#include "interp/kernels/cpu_isa.h"

void gc_vgelu_run(gc_isa isa, const float *x, float *y, size_t n);
float gc_vgelu_erf(float z);     /* E(z) above (tests) */

#endif
