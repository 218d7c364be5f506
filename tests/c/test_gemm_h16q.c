/* test_gemm_h16q.c — the half GEMM modes' quick tiles (gemm_f32.h "Quick tiles",
 * gemm_h16_avx512.c, gemm_h16_range.c): the quick kernels give the plain kernels' bits
 * on data built to hit rq's edges (products below the smallest normal half, exact ties,
 * zeros of both signs, products just under 65504, sums that cancel to zero), for
 * FULLY_CONNECTED-shaped runs (gc_gemmf_run: tiles of 8 / 16 rows, single rows, a tail
 * slice and a last partial panel) in both modes, GC_GEMM_H16 and GC_GEMM_SLICE; and the
 * range test says quick exactly when max|a| * max|w| <= 65504 with both finite. Skipped
 * where the CPU has no AVX-512F (no quick kernels there). */
#include "test.h"
#include "interp/fp16.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/gemm_f32.h"
#include "interp/kernels/gemm_f32_ukr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void) {                     /* xorshift64* */
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (uint32_t)((rs * 0x2545f4914f6cdd1dull) >> 32);
}

/* a half of the given kind: 0 general, 1 tiny (|x| < 2^-7, products below 2^-14), 2 zero
 * of either sign, 3 a power of two (products exactly representable or ties), 4 large */
static float half_of(int kind, float big) {
    const float sign = (rnd() & 1) ? -1.0f : 1.0f;
    const float u = (float)(rnd() >> 8) / 16777216.0f;
    switch (kind) {
    case 1: return gc_f16_round(sign * u * 0x1p-7f);
    case 2: return sign * 0.0f;
    case 3: return sign * ldexpf(1.0f, (int)(rnd() % 12) - 6);
    case 4: return gc_f16_round(sign * (0.5f + 0.5f * u) * big);
    default: return gc_f16_round(sign * (u * 2.0f));
    }
}

static void fill(float *x, size_t n, float big) {
    for (size_t i = 0; i < n; i++) {
        uint32_t k = rnd() % 10;
        x[i] = half_of(k < 4 ? 0 : k < 7 ? 1 : k < 8 ? 2 : k < 9 ? 3 : 4, big);
    }
}

/* y = a B through the quick and the plain kernels of `mode`: same bits */
static long quick_vs_plain(gc_gemm_mode mode, int64_t M, int32_t K, int32_t N, float abig, float wbig, bool bias, bool *was_quick) {
    gc_gemm_b b;
    size_t nf = gc_gemm_b_layout_mode(&b, GC_ISA_AVX512, mode, 1, K, N);
    float *mem = malloc(nf * sizeof(float)), *w = malloc((size_t)N * K * sizeof(float));
    float *a = malloc((size_t)M * K * sizeof(float)), *yq = malloc((size_t)M * N * sizeof(float));
    float *yp = malloc((size_t)M * N * sizeof(float)), *pb = malloc(gc_gemm_bias_floats(&b) * sizeof(float));
    float *bv = malloc((size_t)N * sizeof(float));
    fill(w, (size_t)N * K, wbig);
    fill(a, (size_t)M * K, abig);
    fill(bv, (size_t)N, 1.0f);
    if (abig > 100.0f) { a[0] = abig; w[0] = wbig; }       /* the largest product is there */
    gc_gemm_b_bind(&b, mem);
    gc_gemm_pack_nk(&b, w, K);
    gc_gemm_pack_bias(&b, bias ? bv : NULL, pb);
    const float *rows[1] = { a };
    *was_quick = b.ksq && gc_h16q_rows_ok(b.wmax, rows, 1, 0, (int64_t)M * K);
    gc_gemmf_run(&b, pb, -INFINITY, INFINITY, a, K, yq, N, M, 0, gc_gemmf_tiles(&b, M), NULL);
    b.ksq = NULL;
    gc_gemmf_run(&b, pb, -INFINITY, INFINITY, a, K, yp, N, M, 0, gc_gemmf_tiles(&b, M), NULL);
    long bad = 0;
    for (int64_t i = 0; i < M * N; i++)
        if (memcmp(&yq[i], &yp[i], 4)) {
            if (bad < 3) fprintf(stderr, "  mode %d %lldx%dx%d: y[%lld] quick %a plain %a\n", (int)mode, (long long)M, K, N,
                                 (long long)i, (double)yq[i], (double)yp[i]);
            bad++;
        }
    free(mem); free(w); free(a); free(yq); free(yp); free(pb); free(bv);
    return bad;
}

GC_TEST(gemm_h16q_matches_plain) {
    if (gc_isa_active() < GC_ISA_AVX512 || !gc_f16_have_f16c()) SKIP("no AVX-512F");
    static const int shapes[][3] = { { 16, 64, 32 }, { 9, 37, 17 }, { 1, 128, 64 }, { 1, 33, 40 }, { 23, 200, 70 }, { 3, 5, 16 } };
    long bad = 0;
    int quick = 0, runs = 0;
    for (int mode = GC_GEMM_H16; mode <= GC_GEMM_SLICE; mode++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int big = 0; big < 3; big++) {
                /* big 0: small products; 1: products up to ~60000 (quick, at the top of the range);
                 * 2: past the half range (plain tiles: the flag must say so) */
                const float ab = big == 0 ? 4.0f : 240.0f, wb = big == 0 ? 4.0f : big == 1 ? 250.0f : 400.0f;
                bool q = false;
                bad += quick_vs_plain((gc_gemm_mode)mode, shapes[s][0], shapes[s][1], shapes[s][2], ab, wb, s & 1, &q);
                quick += q;
                runs++;
                CHECK(q == (big < 2));
            }
    CHECK_MSG(bad == 0, "%ld outputs differ between the quick and the plain kernels", bad);
    printf("  (%d runs, %d quick)\n", runs, quick);
}

GC_TEST(gemm_h16q_range) {
    float r[4] = { 1.0f, -256.0f, 0.5f, 0.0f };
    const float *rows[2] = { r, r + 2 };
    CHECK(gc_h16q_rows_ok(255.875f, rows, 2, 0, 2));          /* 256 * 255.875 = 65504 */
    CHECK(!gc_h16q_rows_ok(255.9f, rows, 2, 0, 2));
    CHECK(!gc_h16q_rows_ok(INFINITY, rows, 2, 0, 2));
    CHECK(gc_h16q_rows_ok(65504.0f, rows + 1, 1, 1, 1));        /* only r[3] = 0 read */
    CHECK(!gc_h16q_rows_ok(1e6f, rows + 1, 1, 1, 1));           /* weights past the range: never */
    r[3] = NAN;
    CHECK(!gc_h16q_rows_ok(1.0f, rows, 2, 0, 2));
    r[3] = -INFINITY;
    CHECK(!gc_h16q_rows_ok(1.0f, rows, 2, 0, 2));
    gc_gemm_b b;
    size_t nf = gc_gemm_b_layout_mode(&b, GC_ISA_AVX512, GC_GEMM_SLICE, 1, 3, 2);
    CHECK(nf > 0 && b.wmax == INFINITY);                       /* unknown until packed */
    float *mem = malloc(nf * sizeof(float)), w[6] = { 1.0f, -3.0f, 2.0f, 0.25f, 0.0f, -0.0f };
    gc_gemm_b_bind(&b, mem);
    gc_gemm_pack_nk(&b, w, 3);
    CHECK(b.wmax == 3.0f);
    w[4] = NAN;
    gc_gemm_pack_nk(&b, w, 3);
    CHECK(b.wmax == INFINITY);
    free(mem);
}

/* SLICE's split tiles (gemm_f32.h "Split tiles"): y through the split kernels, the quick
 * ones (ksv off) and the plain ones (both off), every output's bits equal; the data as
 * above (subnormal products, ties, zeros), the largest product up to 65000 / 4. */
static long split_vs_plain(int64_t M, int32_t K, int32_t N, float abig, float wbig, bool bias, int *nsplit) {
    gc_gemm_b b;
    size_t nf = gc_gemm_b_layout_mode(&b, GC_ISA_AVX512, GC_GEMM_SLICE, 1, K, N);
    float *mem = malloc(nf * sizeof(float)), *w = malloc((size_t)N * K * sizeof(float));
    float *a = malloc((size_t)M * K * sizeof(float)), *y[3], *pb = malloc(gc_gemm_bias_floats(&b) * sizeof(float));
    float *bv = malloc((size_t)N * sizeof(float));
    for (int i = 0; i < 3; i++) y[i] = malloc((size_t)M * N * sizeof(float));
    fill(w, (size_t)N * K, wbig);
    fill(a, (size_t)M * K, abig);
    fill(bv, (size_t)N, 1.0f);
    a[0] = abig; w[0] = wbig;
    gc_gemm_b_bind(&b, mem);
    gc_gemm_pack_nk(&b, w, K);
    gc_gemm_pack_bias(&b, bias ? bv : NULL, pb);
    CHECK(b.ksv && b.whalf);
    const float *rows[8];
    for (int64_t m0 = 0; m0 < M; m0 += 8) {                   /* the tiles the split kernels take */
        for (int m = 0; m < 8; m++) rows[m] = a + (size_t)(m0 + m < M ? m0 + m : m0) * (size_t)K;
        *nsplit += gc_h16q_tile_set(&b, rows, M - m0 < 8 ? (int32_t)(M - m0) : 8, 0, K) == b.ksv;
    }
    gc_gemmf_run(&b, pb, -INFINITY, INFINITY, a, K, y[0], N, M, 0, gc_gemmf_tiles(&b, M), NULL);
    b.ksv = NULL;
    gc_gemmf_run(&b, pb, -INFINITY, INFINITY, a, K, y[1], N, M, 0, gc_gemmf_tiles(&b, M), NULL);
    b.ksq = NULL;
    gc_gemmf_run(&b, pb, -INFINITY, INFINITY, a, K, y[2], N, M, 0, gc_gemmf_tiles(&b, M), NULL);
    long bad = 0;
    for (int64_t i = 0; i < M * N; i++)
        if (memcmp(&y[0][i], &y[2][i], 4) || memcmp(&y[1][i], &y[2][i], 4)) {
            if (bad < 3) fprintf(stderr, "  %lldx%dx%d: y[%lld] split %a quick %a plain %a\n", (long long)M, K, N,
                                 (long long)i, (double)y[0][i], (double)y[1][i], (double)y[2][i]);
            bad++;
        }
    free(mem); free(w); free(a); free(pb); free(bv);
    for (int i = 0; i < 3; i++) free(y[i]);
    return bad;
}

GC_TEST(gemm_slicev_matches_plain) {
    if (gc_isa_active() < GC_ISA_AVX512 || !gc_f16_have_f16c()) SKIP("no AVX-512F");
    static const int shapes[][3] = { { 16, 64, 32 }, { 9, 37, 17 }, { 23, 200, 70 }, { 8, 3, 16 }, { 40, 130, 48 } };
    /* max products 1/16, 16, 16000 (sums near the 65000 bound), 2^-20 (every product subnormal) */
    static const float big[][2] = { { 0.25f, 0.25f }, { 4.0f, 4.0f }, { 125.0f, 128.0f }, { 0x1p-10f, 0x1p-10f } };
    long bad = 0;
    int nsplit = 0;
    for (int rep = 0; rep < 4; rep++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (size_t g = 0; g < sizeof big / sizeof big[0]; g++)
                bad += split_vs_plain(shapes[s][0], shapes[s][1], shapes[s][2], big[g][0], big[g][1], (s + rep) & 1, &nsplit);
    CHECK_MSG(bad == 0, "%ld outputs differ between the split, quick and plain kernels", bad);
    CHECK(nsplit > 0);
    printf("  (%d split tiles)\n", nsplit);
}

GC_TEST(gemm_slicev_selection) {
    if (gc_isa_active() < GC_ISA_AVX512 || !gc_f16_have_f16c()) SKIP("no AVX-512F");
    gc_gemm_b b;
    size_t nf = gc_gemm_b_layout_mode(&b, GC_ISA_AVX512, GC_GEMM_SLICE, 1, 4, 16);
    CHECK(nf > 0 && b.ksv != NULL);
    float *mem = malloc(nf * sizeof(float)), w[64];
    for (int i = 0; i < 64; i++) w[i] = (float)(i % 7) * 0.125f - 0.25f;     /* halves, max |w| 0.5 */
    w[5] = 0x1p-24f;                                          /* the smallest half: a half's value */
    gc_gemm_b_bind(&b, mem);
    gc_gemm_pack_nk(&b, w, 4);
    CHECK(b.whalf && b.wmax == 0.5f);
    float r[4] = { 1.0f, -2.0f, 0x1p-20f, 0.0f };
    const float *rows[1] = { r };
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksv);
    r[0] = 32496.0f;                                          /* 4 * 16248 = 64992: still split */
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksv);
    r[0] = 32512.0f;                                          /* past 65000 / 4: quick */
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksq);
    r[0] = 1.0f + 0x1p-12f;                                   /* not a half: quick */
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksq);
    r[0] = 0x1p-25f;                                          /* below the smallest half: quick */
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksq);
    r[0] = 0x1.8p-24f;                                        /* between subnormal halves: quick */
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksq);
    r[0] = 0x1.4p-15f;                                        /* 2^-15 + 2^-17: a subnormal half */
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksv);
    r[0] = 2e5f;                                              /* past the quick range: plain */
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ks);
    w[7] = 1.0f + 0x1p-11f;                                   /* a weight no half has: never split */
    gc_gemm_pack_nk(&b, w, 4);
    CHECK(!b.whalf);
    r[0] = 1.0f;
    CHECK(gc_h16q_tile_set(&b, rows, 1, 0, 4) == b.ksq);
    free(mem);
}
