/* test_vgelu.c — the fast float GELU (kernels/vgelu.h): the AVX-512 and AVX2 kernels give
 * the portable kernel's bits (where the CPU has them); all stay within the stated bound of the reference formula
 * (libm's erff): |y - y_ref| <= |x| 2^-23 + ulp(y_ref); and E(z) is within half an ulp
 * of erf(z) but for the polynomials' relative 2.6e-13, z's sign kept, on every 61st float of [-5, 5] and every 4099th bit
 * pattern of all 2^32 (NaN for NaN, +-1 past +-4, -0 for -0), every length 0..40 (tails). */
#include "test.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/vgelu.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static bool same(float a, float b) { return bits(a) == bits(b) || (isnan(a) && isnan(b)); }
static float gelu_ref(float x) { return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f)); }

/* x[0, n) through both levels and against the reference; counts into *bad_* */
static void check_block(const float *x, size_t n, long *bad_isa, long *bad_bound, long *bad_erf, double *worst) {
    static float y0[4096], y1[4096], y2[4096];
    gc_vgelu_run(GC_ISA_SCALAR, x, y0, n);
    const bool v512 = gc_isa_detect() >= GC_ISA_AVX512, v256 = gc_isa_detect() >= GC_ISA_AVX2;
    if (v512) gc_vgelu_run(GC_ISA_AVX512, x, y1, n);
    if (v256) gc_vgelu_run(GC_ISA_AVX2, x, y2, n);
    for (size_t i = 0; i < n; i++) {
        if (v512 && !same(y0[i], y1[i])) {
            if ((*bad_isa)++ < 5) fprintf(stderr, "  x %a: scalar %a avx512 %a\n", (double)x[i], (double)y0[i], (double)y1[i]);
        }
        if (v256 && !same(y0[i], y2[i])) {
            if ((*bad_isa)++ < 5) fprintf(stderr, "  x %a: scalar %a avx2 %a\n", (double)x[i], (double)y0[i], (double)y2[i]);
        }
        const float r = gelu_ref(x[i]);
        if (isnan(r) || isnan(y0[i])) {
            if (isnan(r) != isnan(y0[i])) (*bad_bound)++;
        } else if (isinf(r) || isinf(y0[i])) {
            if (r != y0[i]) (*bad_bound)++;
        } else {
            const double d = fabs((double)y0[i] - (double)r);
            const double ulp = fabs((double)nextafterf(r, INFINITY) - (double)r);
            const double bound = fabs((double)x[i]) * 0x1p-23 + ulp;
            if (d > 0 && bound > 0 && d / bound > *worst) *worst = d / bound;
            if (d > bound && (*bad_bound)++ < 5) fprintf(stderr, "  x %a: gelu %a ref %a (bound %g)\n", (double)x[i], (double)y0[i], (double)r, bound);
        }
        const float z = x[i] * 0.7071067811865476f;
        const float e = gc_vgelu_erf(z);
        if (isnan(z) || fabsf(z) >= 4.0f) {
            if (!same(e, isnan(z) ? z : copysignf(1.0f, z)) && (*bad_erf)++ < 5) fprintf(stderr, "  z %a: E %a\n", (double)z, (double)e);
        } else {
            /* within half an ulp of erf(z) but for the polynomials' 2.6e-13 (libm's double erf
             * as erf: its own error is below 2^-52) */
            const double d = erf((double)z), ulp = fabs((double)nextafterf(e, INFINITY) - (double)e);
            if (!(fabs((double)e - d) <= 0.5 * ulp + 2.6e-13 * fabs(d)) || bits(e) >> 31 != bits(z) >> 31)
                if ((*bad_erf)++ < 5) fprintf(stderr, "  z %a: E %a, erf %a\n", (double)z, (double)e, d);
        }
    }
}

GC_TEST(vgelu_levels_bound_erf) {
    enum { N = 4096 };
    static float x[N];
    long bad_isa = 0, bad_bound = 0, bad_erf = 0;
    double worst = 0;
    size_t n = 0;
    /* every 61st float of [-5, 5] (ordinals across zero) */
    for (int64_t o = -(int64_t)bits(5.0f); o <= (int64_t)bits(5.0f); o += 61) {
        x[n++] = o < 0 ? from_bits(0x80000000u | (uint32_t)(-o)) : from_bits((uint32_t)o);
        if (n == N) { check_block(x, n, &bad_isa, &bad_bound, &bad_erf, &worst); n = 0; }
    }
    for (uint64_t u = 3; u < 0x100000000ull; u += 4099) {
        x[n++] = from_bits((uint32_t)u);
        if (n == N) { check_block(x, n, &bad_isa, &bad_bound, &bad_erf, &worst); n = 0; }
    }
    const float sp[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-45f, 5.656854f, 5.6568546f, -5.6568546f,
                         -5.656854f, 0.35355338f, 0.35355341f, 1.0f, -1.0f, 3.4e38f, -3.4e38f };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) x[n++] = sp[i];
    check_block(x, n, &bad_isa, &bad_bound, &bad_erf, &worst);
    CHECK_EQ_INT(bad_isa, 0);
    CHECK_EQ_INT(bad_bound, 0);
    CHECK_EQ_INT(bad_erf, 0);
    fprintf(stderr, "  largest |y - y_ref| / bound: %.3f\n", worst);
    /* tails: every length, in place */
    for (int lv = 0; lv < 2; lv++) {
        const gc_isa isa = lv ? GC_ISA_AVX512 : GC_ISA_AVX2;
        if (gc_isa_detect() < isa) continue;
        for (size_t len = 0; len <= 40; len++) {
            float a[48], b[48];
            for (size_t i = 0; i < len; i++) a[i] = b[i] = -3.0f + 0.37f * (float)i;
            gc_vgelu_run(isa, a, a, len);
            gc_vgelu_run(GC_ISA_SCALAR, b, b, len);
            for (size_t i = 0; i < len; i++) CHECK(same(a[i], b[i]));
        }
    }
}
