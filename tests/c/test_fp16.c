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

/* ---- the F16C array path against the portable scalar one --------------------------------- */

/* Both paths over the floats with bit patterns lo, lo + step, ... (< 2^32): every
 * difference counts. */
static long f16c_vs_scalar(uint64_t lo, uint64_t step, uint64_t count) {
    enum { N = 4096 };
    static float a[N], b[N];
    static uint32_t in[N];
    long bad = 0;
    uint64_t u = lo;
    for (uint64_t done = 0; done < count && u < 0x100000000ull;) {
        size_t n = 0;
        for (; n < N && done < count && u < 0x100000000ull; n++, done++, u += step) {
            in[n] = (uint32_t)u;
            a[n] = b[n] = from_bits(in[n]);
        }
        gc_f16_round_n_scalar(a, n);
        if (!gc_f16_round_n_f16c(b, n)) return -1;
        for (size_t i = 0; i < n; i++)
            if (bits(a[i]) != bits(b[i])) {
                if (bad < 5) fprintf(stderr, "  0x%08x: scalar 0x%08x, F16C 0x%08x\n", in[i], bits(a[i]), bits(b[i]));
                bad++;
            }
    }
    return bad;
}

/* A dense sample of all 2^32 floats (every 61st bit pattern: every exponent, both signs,
 * NaN payloads, infinities, subnormals), and around every half: each tie between two
 * neighbouring halves and 4 float ulps either side of every half. GC_FP16_EXHAUSTIVE=1
 * checks every float (about a minute). */
GC_TEST(fp16_f16c_matches_scalar) {
    if (!gc_f16_have_f16c()) SKIP("this CPU has no F16C: only the scalar path runs");
    const char *all = getenv("GC_FP16_EXHAUSTIVE");
    if (all && !strcmp(all, "1")) { CHECK_EQ_INT(f16c_vs_scalar(0, 1, 0x100000000ull), 0); return; }
    CHECK_EQ_INT(f16c_vs_scalar(0, 61, 0x100000000ull / 61 + 1), 0);
    long bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = gc_f16_to_f32((uint16_t)h);
        if (isnan(f)) continue;
        bad += f16c_vs_scalar((uint64_t)bits(f) >= 4 ? bits(f) - 4 : 0, 1, 9);
        if ((h & 0x7fff) < 0x7bff) {          /* the tie with the next half up in magnitude */
            float mid = (f + gc_f16_to_f32((uint16_t)(h + 1))) * 0.5f;
            bad += f16c_vs_scalar(bits(mid) - 2, 1, 5);
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* NaN: quiet, the top 10 payload bits kept, on both paths */
    float v[4] = { from_bits(0x7f800001u), from_bits(0xffbfffffu), from_bits(0x7fc00000u), from_bits(0x7fa02000u) };
    gc_f16_round_n_f16c(v, 4);
    CHECK_EQ_INT(bits(v[0]), 0x7fc00000u);
    CHECK_EQ_INT(bits(v[1]), 0xffffe000u);
    CHECK_EQ_INT(bits(v[2]), 0x7fc00000u);
    CHECK_EQ_INT(bits(v[3]), 0x7fe02000u);
    CHECK_EQ_INT(bits(gc_f16_round(from_bits(0x7fa02000u))), 0x7fe02000u);
}

/* gc_f16_madd_n / gc_f16_vmadd_n: F16C and scalar agree, and one step is
 * r(acc + r(x w)) as computed by hand. */
GC_TEST(fp16_madd_paths_agree) {
    enum { N = 37 };                           /* a tail after 4 vectors of 8 */
    float acc1[N], acc2[N], acc3[N], acc4[N], w[N], xs[N];
    uint32_t s = 99u;
    for (int i = 0; i < N; i++) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        acc1[i] = acc2[i] = acc3[i] = acc4[i] = gc_f16_round((float)(s % 2001) / 64.0f - 15.0f);
        w[i] = gc_f16_round((float)((s >> 11) % 997) / 300.0f - 1.6f);
        xs[i] = gc_f16_round((float)((s >> 3) % 503) / 97.0f - 2.5f);
    }
    for (int k = 0; k < 50; k++) {
        float x = gc_f16_round(1.0f + (float)k / 7.0f);
        gc_f16_force_scalar(1);
        gc_f16_madd_n(acc1, x, w, N);
        gc_f16_vmadd_n(acc3, xs, w, N);
        gc_f16_force_scalar(0);
        gc_f16_madd_n(acc2, x, w, N);
        gc_f16_vmadd_n(acc4, xs, w, N);
    }
    int bad = 0;
    for (int i = 0; i < N; i++) bad += bits(acc1[i]) != bits(acc2[i]) || bits(acc3[i]) != bits(acc4[i]);
    CHECK_EQ_INT(bad, 0);
    /* by hand: 1 + r(2^-11 * 1) = 1 + 2^-11, a tie between 1 and 1 + 2^-10: stays 1 */
    float a[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 }, ww[9];
    for (int i = 0; i < 9; i++) ww[i] = ldexpf(1.0f, -11);
    gc_f16_madd_n(a, 1.0f, ww, 9);
    for (int i = 0; i < 9; i++) CHECK(a[i] == 1.0f);
    /* 1 + r(3 * 2^-11) = 1 + 1.5 * 2^-10 -> 1 + 2^-9 (tie to even mantissa 2) */
    gc_f16_madd_n(a, 3.0f, ww, 9);
    for (int i = 0; i < 9; i++) CHECK(a[i] == 1.0f + ldexpf(1.0f, -9));
}
