/* vexpf.h — expf over arrays in vector registers, with the bits of this libm's expf.
 *
 *   gc_vexpf_run(isa, op, x, y, n, p):  for i < n:  t = T(x[i]);  e = t < zb ? +0 : expf(t);
 *                                                   y[i] = E(e)
 *   op GC_VEXP_PLAIN     T(v) = v               E(e) = e           (EXP)
 *      GC_VEXP_SHIFT     T(v) = (v - p.sub) * p.mul   E(e) = e     (SOFTMAX: (x - max) beta)
 *      GC_VEXP_LOGISTIC  T(v) = -v              E(e) = 1 / (1 + e) (LOGISTIC)
 *      GC_VEXP_SWISH     T(v) = -v              E(e) = v * (1 / (1 + e))  (MUL of x and
 *                                               LOGISTIC(x), elementwise.c)
 * T and E are the float operations written (each rounded, no FMA), so y holds the bits
 * the plain loop `y[i] = E(t < zb ? 0 : expf(T(x[i])))` gives; x may equal y.
 * zb = gc_expf_zero_below() (softmax.c): the smallest float t with expf(t) != 0 (about -103.97; found
 * by bisection on this libm's expf, which is monotonic), so skipping expf below it keeps
 * every bit. LOGISTIC and SWISH raise zb to GC_VEXP_ONE_BELOW = -17: below it expf(t) <=
 * expf(-17) = 4.14e-8 < 2^-24 (monotonic), so 1 + e rounds to 1 for that e and for +0
 * alike and E(e) has the same bits (y = 1, y = v * 1 = v); the lanes with t in
 * [-104, -87) (v in (87, 104]: subnormal e), which took the plain expf, no longer do.
 *
 * How the bits are kept (AVX-512F and AVX2 + FMA; the scalar level is the plain loop):
 * each t in [-87, 88.5] (exp(t) a normal float) is widened to double and exp(t) computed
 * there as 2^(k/16) exp(r), r = t - k ln2/16 with |r| <= 0.0217 (one FMA), 2^(k/16) from
 * a table of 16 doubles and the exponent, exp(r) by a fitted polynomial of degree 4
 * (vexpf.c; tools/vexpf_fit.py): a double m with |m - e^t| <= 2^-38.5 e^t. (The AVX2 level,
 * which has no cheap 16-entry lookup, takes 2^k exp(r), |r| <= ln2/2, with a polynomial of
 * degree 8: |m - e^t| < 2^-40 e^t, within the same bound.) Rounding m to
 * float gives the float nearest e^t unless e^t is close to a midpoint between two floats.
 * The libm expf this matches is assumed to return the float nearest to some y with
 * |y - e^t| <= 2^-33 e^t (glibc and musl since 2018 compute y in double with relative
 * error 1.69 * 2^-34 = 2^-33.24 before their one rounding).
 * Then whenever m lies farther than (2^-33 + 2^-38.5) e^t from every midpoint, y and e^t
 * and m all round to the same float. In units of m's last bit (2^-52 of its binade), with
 * e^t < 2 * binade * (1 + 2^-38), that distance is below 2^20 + 2^14.5 + 1: lanes whose
 * low 29 bits (the ones float drops) are within WIN = 2^20 + 2^16 of the midpoint 2^28
 * call expf instead (about 0.41% of random arguments), as do the arguments outside
 * [-87, 88.5] that are not below zb (NaN, overflow, subnormal results).
 * tests/c/test_vexpf.c holds every level to expf on a sweep of the float range, and on all
 * 2^32 floats with GC_VEXPF_EXHAUSTIVE=1 (docs/measurements/floatfast-2026-12-02b.md).
 */
#ifndef GC_VEXPF_H
#define GC_VEXPF_H

#include <stddef.h>
#include "interp/kernels/cpu_isa.h"

/* softmax.c (also in interp_impl.h): the smallest float t with expf(t) != 0 */
float gc_expf_zero_below(void);

#define GC_VEXP_ONE_BELOW (-17.0f)  /* LOGISTIC / SWISH: t below it is taken as e = +0 (above) */

typedef enum { GC_VEXP_PLAIN = 0, GC_VEXP_SHIFT = 1, GC_VEXP_LOGISTIC = 2, GC_VEXP_SWISH = 3 } gc_vexp_op;

typedef struct {
    float sub, mul;             /* GC_VEXP_SHIFT */
    float zero_below;           /* gc_expf_zero_below() */
} gc_vexp_params;

void gc_vexpf_run(gc_isa isa, gc_vexp_op op, const float *x, float *y, size_t n, const gc_vexp_params *p);

#endif
