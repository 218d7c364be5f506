/* test_gemm_k16h.c — the native GPU's matrix arithmetic (fp16_model.h GC_ACC_K16H,
 * GC_ACC_H2FMA; docs/measurements/fp16-arith-2026-12-03.md):
 *  - gc_f16_round_d rounds a double to half once (against a brute-force nearest half);
 *  - the double-rounding case the H200 data exposed rounds right through gc_f16_round_d;
 *  - GC_GEMM_K16H's kernels (gemm_k16h.c) at every level the CPU has give the bits of the
 *    reference loop written here from the definition, for FULLY_CONNECTED-shaped runs
 *    (full tiles, single rows, K not a multiple of 16, a last partial panel, bias, clamp). */
#include "test.h"
#include "interp/fp16.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/gemm_f32.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {                     /* xorshift64* */
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (uint32_t)((rs * 0x2545f4914f6cdd1dull) >> 32);
}
static float rhalf(float scale) {
    const float u = (float)(rnd() >> 8) / 16777216.0f * 2.0f - 1.0f;
    return gc_f16_round(u * scale);
}

/* the half nearest to d by search over the half grid: the finite halves as floats from
 * their bits (ties to the even bit pattern) */
static float nearest_half(double d) {
    if (fabs(d) >= 65520.0) return d > 0 ? INFINITY : -INFINITY;
    float best = 0.0f;
    double bd = INFINITY;
    uint16_t bb = 0;
    for (uint32_t h = 0; h < 0x7c00u; h++) {
        float v = gc_f16_to_f32((uint16_t)h);
        double dv = fabs(fabs(d) - (double)v);
        if (dv < bd || (dv == bd && (h & 1u) == 0 && (bb & 1u))) { bd = dv; best = v; bb = (uint16_t)h; }
    }
    return d < 0 ? -best : best;
}

GC_TEST(f16_round_d_one_rounding) {
    long bad = 0;
    for (int i = 0; i < 400; i++) {
        /* midpoints and their double neighbours (where rounding through float fails),
         * random doubles, subnormal-range values */
        double d;
        const int kind = i % 4;
        const float h = rhalf(kind == 3 ? 1e-5f : 100.0f);
        int e;
        (void)frexp(fabs((double)h) + 1e-30, &e);
        const double q = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
        if (kind == 0) d = (double)h + q / 2;
        else if (kind == 1) d = nextafter((double)h + q / 2, (rnd() & 1) ? INFINITY : -INFINITY);
        else d = (double)h + q * ((double)(rnd() >> 8) / 16777216.0 - 0.5) * 1.999;
        const float got = gc_f16_round_d(d), want = nearest_half(d);
        if (memcmp(&got, &want, 4) && !(got == 0 && want == 0)) {
            if (bad < 3) fprintf(stderr, "  round_d(%a) = %a, nearest %a\n", d, (double)got, (double)want);
            bad++;
        }
    }
    CHECK(bad == 0);
    CHECK(isinf(gc_f16_round_d(65520.0)) && gc_f16_round_d(65519.99) == 65504.0f);
    /* the H200 case: 0.08496111631393433 + 2.154296875 lies 1.8e-7 above a midpoint between
     * halves, so its half is the upper one (2.240234375) */
    CHECK(gc_f16_round_d(0.08496111631393433 + 2.154296875) == 2.240234375f);
}

/* y = clamp(a B + bias) by the definition (gemm_f32.h GC_GEMM_K16H) */
static void k16h_ref(const float *a, const float *w, const float *bias, float lo, float hi, float *y,
                     int64_t M, int32_t K, int32_t N) {
    for (int64_t m = 0; m < M; m++)
        for (int32_t n = 0; n < N; n++) {
            float acc = 0.0f, part = 0.0f;
            for (int32_t k = 0; k < K; k++) {
                part += a[m * K + k] * w[(int64_t)n * K + k];
                if (k % 16 == 15 || k == K - 1) { acc = gc_f16_round(acc + part); part = 0.0f; }
            }
            float v = bias ? acc + bias[n] : acc;
            y[m * N + n] = v < lo ? lo : v > hi ? hi : v;
        }
}

/* GC_GEMM_H2FMA by the definition: lanes by k parity, L = r(fmaf(a, w, L)), r(L0 + L1),
 * + bias, clamp */
static void h2fma_ref(const float *a, const float *w, const float *bias, float lo, float hi, float *y,
                      int64_t M, int32_t K, int32_t N) {
    for (int64_t m = 0; m < M; m++)
        for (int32_t n = 0; n < N; n++) {
            float L[2] = { 0.0f, 0.0f };
            for (int32_t k = 0; k < K; k++)
                L[k & 1] = gc_f16_round(fmaf(a[m * K + k], w[(int64_t)n * K + k], L[k & 1]));
            float v = gc_f16_round(L[0] + L[1]);
            if (bias) v = v + bias[n];
            y[m * N + n] = v < lo ? lo : v > hi ? hi : v;
        }
}

/* values that make exact midpoints common: multiples of 1/8 up to 40 (sums pass 2048, where
 * halves are 2 apart), a few of them large (products up to ~60000: overflow to inf too) */
static float tie_val(void) {
    float v = (float)((int)(rnd() % 641) - 320) / 8.0f;
    return rnd() % 50 == 0 ? v * 6.0f : v;
}

/* y = a B through `mode`'s kernels at `isa` against its definition above: the same bits
 * (H2FMA: any two NaNs equal, as its tie data overflows to inf and inf - inf) */
static long mode_case(gc_isa isa, gc_gemm_mode mode, int64_t M, int32_t K, int32_t N, bool bias, float lo, float hi,
                      bool ties) {
    gc_gemm_b b;
    size_t nf = gc_gemm_b_layout_mode(&b, isa, mode, 1, K, N);
    float *mem = malloc(nf * sizeof(float)), *w = malloc((size_t)N * K * sizeof(float));
    float *a = malloc((size_t)M * K * sizeof(float)), *y = malloc((size_t)M * N * sizeof(float));
    float *yr = malloc((size_t)M * N * sizeof(float)), *pb = malloc(gc_gemm_bias_floats(&b) * sizeof(float));
    float *bv = malloc((size_t)N * sizeof(float));
    for (size_t i = 0; i < (size_t)N * K; i++) w[i] = ties ? tie_val() : rhalf(1.0f);
    for (size_t i = 0; i < (size_t)M * K; i++) a[i] = ties ? tie_val() : rhalf(i % 7 == 0 ? 300.0f : 2.0f);
    for (int32_t i = 0; i < N; i++) bv[i] = rhalf(1.0f);
    gc_gemm_b_bind(&b, mem);
    gc_gemm_pack_nk(&b, w, K);
    gc_gemm_pack_bias(&b, bias ? bv : NULL, pb);
    gc_gemmf_run(&b, bias ? pb : NULL, lo, hi, a, K, y, N, M, 0, gc_gemmf_tiles(&b, M), NULL);
    (mode == GC_GEMM_K16H ? k16h_ref : h2fma_ref)(a, w, bias ? bv : NULL, lo, hi, yr, M, K, N);
    const bool nan_eq = mode == GC_GEMM_H2FMA;
    long bad = 0;
    for (int64_t i = 0; i < M * N; i++)
        if (memcmp(&y[i], &yr[i], 4) && !(nan_eq && y[i] != y[i] && yr[i] != yr[i])) {
            if (bad < 3) fprintf(stderr, "  mode %d isa %d %lldx%dx%d: y[%lld] kernel %a ref %a\n", (int)mode, (int)isa,
                                 (long long)M, K, N, (long long)i, (double)y[i], (double)yr[i]);
            bad++;
        }
    free(mem); free(w); free(a); free(y); free(yr); free(pb); free(bv);
    return bad;
}

GC_TEST(gemm_k16h_matches_definition) {
    static const int shapes[][3] = { { 16, 64, 32 }, { 9, 37, 17 }, { 1, 128, 64 }, { 1, 33, 40 }, { 23, 200, 70 },
                                     { 3, 5, 16 }, { 8, 16, 8 }, { 7, 17, 5 }, { 64, 768, 48 } };
    long bad = 0;
    for (int lvl = GC_ISA_SCALAR; lvl <= (int)gc_isa_active(); lvl++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            bad += mode_case((gc_isa)lvl, GC_GEMM_K16H, shapes[s][0], shapes[s][1], shapes[s][2], s % 2 == 0, -INFINITY, INFINITY, false);
            bad += mode_case((gc_isa)lvl, GC_GEMM_K16H, shapes[s][0], shapes[s][1], shapes[s][2], true, -1.0f, 6.0f, false);
        }
    CHECK(bad == 0);
}

GC_TEST(gemm_h2fma_matches_definition) {
    static const int shapes[][3] = { { 16, 64, 32 }, { 9, 37, 17 }, { 1, 128, 64 }, { 1, 33, 40 }, { 23, 197, 70 },
                                     { 3, 5, 16 }, { 8, 16, 8 }, { 7, 17, 5 }, { 40, 49, 49 } };
    long bad = 0;
    for (int lvl = GC_ISA_SCALAR; lvl <= (int)gc_isa_active(); lvl++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int ties = 0; ties <= 1; ties++)
                bad += mode_case((gc_isa)lvl, GC_GEMM_H2FMA, shapes[s][0], shapes[s][1], shapes[s][2], (s + ties) % 2 == 0,
                                 -INFINITY, INFINITY, ties);
    CHECK(bad == 0);
}
