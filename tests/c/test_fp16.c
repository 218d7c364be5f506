/* test_fp16.c — the fp16 rounding function and conversions, exhaustively:
 * every one of the 65,536 half bit patterns round-trips (NaN stays NaN), every
 * float halfway between two neighbouring halves rounds to the even one, the floats
 * just beside each tie round to the nearer half, and the edges (overflow to inf,
 * subnormals, signed zero) behave as IEEE 754 says. */
#include "test.h"
#include "interp/fp16.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static bool is_nan_half(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu); }

GC_TEST(fp16_all_halves_roundtrip) {
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = gc_f16_to_f32((uint16_t)h);
        uint16_t back = gc_f32_to_f16(f);
        float r = gc_f16_round(f);
        if (is_nan_half((uint16_t)h)) {
            if (!isnan(f) || !isnan(r) || !is_nan_half(back)) bad++;
            continue;
        }
        if (back != h || bits(r) != bits(f)) {
            if (bad < 5) fprintf(stderr, "  half 0x%04x -> %g -> 0x%04x\n", h, (double)f, back);
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
}

GC_TEST(fp16_values_of_halves) {
    CHECK(gc_f16_to_f32(0x3c00) == 1.0f);
    CHECK(gc_f16_to_f32(0xc000) == -2.0f);
    CHECK(gc_f16_to_f32(0x7bff) == 65504.0f);
    CHECK(gc_f16_to_f32(0x0400) == ldexpf(1.0f, -14));          /* smallest normal */
    CHECK(gc_f16_to_f32(0x0001) == ldexpf(1.0f, -24));          /* smallest subnormal */
    CHECK(gc_f16_to_f32(0x03ff) == ldexpf(1023.0f, -24));       /* largest subnormal */
    CHECK(isinf(gc_f16_to_f32(0x7c00)) && gc_f16_to_f32(0xfc00) < 0);
    CHECK(bits(gc_f16_to_f32(0x8000)) == 0x80000000u);          /* -0 */
}

/* Every tie between two neighbouring finite halves (both signs), and its neighbours. */
GC_TEST(fp16_ties_go_to_even) {
    int bad = 0;
    for (uint32_t h = 0; h < 0x7bff; h++) {
        for (int sgn = 0; sgn < 2; sgn++) {
            uint16_t lo = (uint16_t)(h | (sgn ? 0x8000u : 0)), hi = (uint16_t)((h + 1) | (sgn ? 0x8000u : 0));
            float a = gc_f16_to_f32(lo), b = gc_f16_to_f32(hi);
            float mid = (a + b) * 0.5f;                 /* exact: 11 + 1 significant bits */
            float even = (lo & 1) ? b : a;
            if (bits(gc_f16_round(mid)) != bits(even)) bad++;
            /* one float ulp either side goes to the nearer half */
            float below = from_bits(bits(mid) - 1), above = from_bits(bits(mid) + 1);
            float near_a = fabsf(below) < fabsf(mid) ? a : b;   /* toward zero from the tie */
            float near_b = fabsf(above) > fabsf(mid) ? b : a;
            if (mid != 0 && bits(gc_f16_round(below)) != bits(near_a)) bad++;
            if (mid != 0 && bits(gc_f16_round(above)) != bits(near_b)) bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
}

GC_TEST(fp16_edges) {
    CHECK(gc_f16_round(65504.0f) == 65504.0f);
    CHECK(gc_f16_round(65519.99f) == 65504.0f);
    CHECK(isinf(gc_f16_round(65520.0f)) && gc_f16_round(65520.0f) > 0);   /* tie -> even = inf */
    CHECK(isinf(gc_f16_round(-1e9f)) && gc_f16_round(-1e9f) < 0);
    CHECK(isinf(gc_f16_round(INFINITY)));
    CHECK(isnan(gc_f16_round(NAN)));
    CHECK(gc_f16_round(ldexpf(1.0f, -25)) == 0.0f);                        /* tie -> even = 0 */
    CHECK(gc_f16_round(ldexpf(1.5f, -25)) == ldexpf(1.0f, -24));
    CHECK(gc_f16_round(ldexpf(3.0f, -25)) == ldexpf(2.0f, -24));           /* tie 1.5 -> 2 */
    CHECK(bits(gc_f16_round(-ldexpf(1.0f, -30))) == 0x80000000u);          /* -0 kept */
    CHECK(gc_f16_round(1.0f + ldexpf(1.0f, -11)) == 1.0f);                 /* tie -> even */
    CHECK(gc_f16_round(1.0f + ldexpf(3.0f, -11)) == 1.0f + ldexpf(1.0f, -9));
    CHECK(gc_f16_round(0.1f) == gc_f16_to_f32(0x2e66));
    CHECK(gc_f32_to_f16(0.1f) == 0x2e66);
    CHECK(gc_f32_to_f16(-65520.0f) == 0xfc00);
}

#if defined(__FLT16_MAX__) && defined(__x86_64__)
/* Cross-check with the compiler's own float -> _Float16 conversion (RNE). */
GC_TEST(fp16_matches_compiler_float16) {
    uint32_t x = 12345u;
    int bad = 0;
    for (int i = 0; i < 2000000; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        float f = from_bits(x);
        if (isnan(f)) continue;
        __extension__ _Float16 h = (_Float16)f;
        float ref = (float)h;
        if (bits(gc_f16_round(f)) != bits(ref)) bad++;
    }
    CHECK_EQ_INT(bad, 0);
}
#endif
