/* test_fp16_simd.c — the vector roundings of the fast fp16 kernels (kernels/f16_simd.h,
 * AVX-512F and AVX2 + F16C) and the array forms' AVX-512 paths (fp16.c:
 * gc_f16_round_copy, gc_f16_round_sat_n) give the scalar rounding's bits, NaN payloads
 * included, on a dense sample of all 2^32 floats (every 61st bit pattern, and 4 ulps
 * around every half and every tie between neighbouring halves); GC_FP16_EXHAUSTIVE=1
 * checks every float. Levels the CPU lacks are skipped. */
#include "test.h"
#include "interp/fp16.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/f16_simd.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

enum { F_C512, F_C256, F_COPY, F_SAT, N_FORMS };
static const char *form_name[N_FORMS] = { "cvt512", "cvt256", "round_copy", "round_sat_n" };

#ifdef GC_HAVE_F16_SIMD
GC_T512 static void apply512(float *x, size_t n) {
    for (size_t i = 0; i < n; i += 16) _mm512_storeu_ps(x + i, gc_r16c_512(_mm512_loadu_ps(x + i)));
}
GC_T256H static void apply256(float *x, size_t n) {
    for (size_t i = 0; i < n; i += 8) _mm256_storeu_ps(x + i, gc_r16c_256(_mm256_loadu_ps(x + i)));
}
#endif

static bool form_runs(int form) {
#ifdef GC_HAVE_F16_SIMD
    if (form == F_C512) return __builtin_cpu_supports("avx512f") && gc_f16_have_f16c();
    if (form == F_C256) return __builtin_cpu_supports("avx2") && gc_f16_have_f16c();
#endif
    return form == F_COPY || form == F_SAT;
}

/* form over the floats with bit patterns lo, lo + step, ... (< 2^32) against the scalar
 * rounding (the saturating one for F_SAT) */
static long vs_scalar(int form, uint64_t lo, uint64_t step, uint64_t count) {
    enum { N = 4096 };                     /* a multiple of 16 */
    static float a[N], b[N];
    static uint32_t in[N];
    long bad = 0;
    uint64_t u = lo;
    for (uint64_t done = 0; done < count && u < 0x100000000ull;) {
        size_t n = 0;
        for (; n < N && done < count && u < 0x100000000ull; n++, done++, u += step) {
            in[n] = (uint32_t)u;
            b[n] = from_bits(in[n]);
            a[n] = form == F_SAT ? gc_f16_round_sat_inline(b[n]) : gc_f16_round_inline(b[n]);
        }
        size_t nv = form == F_COPY || form == F_SAT ? n : (n + 15) / 16 * 16;
        for (size_t i = n; i < nv; i++) b[i] = 0.0f;
#ifdef GC_HAVE_F16_SIMD
        if (form == F_C512) apply512(b, nv);
        if (form == F_C256) apply256(b, nv);
#endif
        if (form == F_COPY) gc_f16_round_copy(b, b, n);
        if (form == F_SAT) gc_f16_round_sat_n(b, n);
        for (size_t i = 0; i < n; i++)
            if (bits(a[i]) != bits(b[i])) {
                if (bad < 5) fprintf(stderr, "  %s 0x%08x: scalar 0x%08x, got 0x%08x\n", form_name[form], in[i],
                                     bits(a[i]), bits(b[i]));
                bad++;
            }
    }
    return bad;
}

GC_TEST(fp16_simd_forms_match_scalar) {
    const char *all = getenv("GC_FP16_EXHAUSTIVE");
    bool every = all && !strcmp(all, "1");
    int ran = 0;
    for (int f = 0; f < N_FORMS; f++) {
        if (!form_runs(f)) continue;
        ran++;
        long bad = every ? vs_scalar(f, 0, 1, 0x100000000ull) : vs_scalar(f, 0, 61, 0x100000000ull / 61 + 1);
        for (uint32_t h = 0; h < 0x10000 && !every; h++) {
            float v = gc_f16_to_f32((uint16_t)h);
            if (v != v) continue;
            bad += vs_scalar(f, (uint64_t)bits(v) >= 4 ? bits(v) - 4 : 0, 1, 9);
            if ((h & 0x7fff) < 0x7bff) {          /* the tie with the next half up in magnitude */
                float mid = (v + gc_f16_to_f32((uint16_t)(h + 1))) * 0.5f;
                bad += vs_scalar(f, bits(mid) - 2, 1, 5);
            }
        }
        /* the saturating store's edges and NaN payloads, on every form */
        static const uint32_t edge[] = { 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, 0x7f7fffffu, 0xc77ff000u,
                                         0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7f800001u, 0xffbfffffu, 0x7fa02000u,
                                         0x00000001u, 0x80000001u, 0x33000000u, 0xb3000001u, 0x38800000u, 0x387fffffu };
        for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) bad += vs_scalar(f, edge[i], 1, 1);
        CHECK_MSG(bad == 0, "%s: %ld floats differ from the scalar rounding", form_name[f], bad);
    }
    printf("  (%d forms checked%s)\n", ran, every ? ", every float" : "");
}

#ifdef GC_HAVE_F16_SIMD
GC_T512 static void apply512q(float *x, size_t n) {
    for (size_t i = 0; i < n; i += 16) _mm512_storeu_ps(x + i, gc_r16q_512(_mm512_loadu_ps(x + i)));
}

/* gc_r16q_512 over the floats lo, lo + step, ... below 65504 in magnitude (bit patterns
 * 0 .. 0x477fe000 and their negatives): the scalar rounding's bits, or +0 for its -0 */
static long quick_vs_scalar(uint64_t lo, uint64_t step, uint64_t count) {
    enum { N = 4096 };
    static float a[N], b[N];
    long bad = 0;
    uint64_t u = lo;
    for (uint64_t done = 0; done < count && u <= 0x477fe000u;) {
        size_t n = 0;
        for (; n < N - 1 && done < count && u <= 0x477fe000u; n += 2, done++, u += step) {
            b[n] = from_bits((uint32_t)u);
            b[n + 1] = from_bits((uint32_t)u | 0x80000000u);
            a[n] = gc_f16_round_inline(b[n]);
            a[n + 1] = gc_f16_round_inline(b[n + 1]);
            if (bits(a[n + 1]) == 0x80000000u) a[n + 1] = 0.0f;
        }
        size_t nv = (n + 15) / 16 * 16;
        for (size_t i = n; i < nv; i++) b[i] = 0.0f;
        float in[N];
        memcpy(in, b, n * sizeof(float));
        apply512q(b, nv);
        for (size_t i = 0; i < n; i++)
            if (bits(a[i]) != bits(b[i])) {
                if (bad < 5) fprintf(stderr, "  quick 0x%08x: scalar 0x%08x, got 0x%08x\n", bits(in[i]), bits(a[i]), bits(b[i]));
                bad++;
            }
    }
    return bad;
}
#endif

/* The quick product rounding of the half GEMM kernels (f16_simd.h gc_r16q_512) in its
 * range: the same as the conversions, but +0 for -0. */
GC_TEST(fp16_simd_quick_rounding) {
#ifdef GC_HAVE_F16_SIMD
    if (!form_runs(F_C512)) { printf("  (no AVX-512F: skipped)\n"); return; }
    const char *all = getenv("GC_FP16_EXHAUSTIVE");
    bool every = all && !strcmp(all, "1");
    long bad = every ? quick_vs_scalar(0, 1, 0x477fe001ull) : quick_vs_scalar(0, 61, 0x477fe000ull / 61 + 1);
    for (uint32_t h = 0; h < 0x7bff && !every; h++) {       /* around every half and every tie */
        float v = gc_f16_to_f32((uint16_t)h), mid = (v + gc_f16_to_f32((uint16_t)(h + 1))) * 0.5f;
        bad += quick_vs_scalar(bits(v) >= 4 ? bits(v) - 4 : 0, 1, 9);
        bad += quick_vs_scalar(bits(mid) - 2, 1, 5);
    }
    static const uint32_t edge[] = { 0x00000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x33000000u, 0x33000001u,
                                     0x337fffffu, 0x387fffffu, 0x38800000u, 0x38801000u, 0x38803000u, 0x477fe000u };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) bad += quick_vs_scalar(edge[i], 1, 1);
    CHECK_MSG(bad == 0, "gc_r16q_512: %ld floats differ from the scalar rounding", bad);
    printf("  (%s)\n", every ? "every float up to 65504" : "a dense sample up to 65504");
#endif
}

/* The saturating store by hand: finite past the half range -> +-65504, inf and NaN kept. */
GC_TEST(fp16_simd_round_sat_values) {
    float v[19] = { 65519.0f, 65520.0f, 1e30f, -70000.0f, -3.4e38f, from_bits(0x7f800000u), from_bits(0xff800000u),
                    from_bits(0x7fc00001u), 1.0f, -0.0f, 65504.0f, 0x1p-25f, 0x1p-24f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f };
    gc_f16_round_sat_n(v, 19);
    CHECK(v[0] == 65504.0f && v[1] == 65504.0f && v[2] == 65504.0f && v[3] == -65504.0f && v[4] == -65504.0f);
    CHECK(bits(v[5]) == 0x7f800000u && bits(v[6]) == 0xff800000u && bits(v[7]) == 0x7fc00000u);
    CHECK(v[8] == 1.0f && bits(v[9]) == 0x80000000u && v[10] == 65504.0f && v[11] == 0.0f && v[12] == 0x1p-24f);
    CHECK(v[18] == 8.0f);
}
