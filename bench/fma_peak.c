/* fma_peak.c — the machine's fp32 peak on one core, measured: independent chains of
 * fused multiply-adds acc = acc * a + b, enough chains to cover the FMA latency of every
 * x86 core we know (4 cycles, 2 pipes: 8 chains needed; AVX-512 uses 24 zmm chains,
 * AVX2 12 ymm chains), in registers, no memory traffic. One FMA lane = 2 FLOP.
 * a = 0.999999, b = 1e-6 keep every value near 1 (no overflow, no denormals).
 *
 * The instruction sets are picked at run time with __builtin_cpu_supports (cpuid, and the
 * OS's XSAVE state for the wide registers), each kernel compiled for its set with a
 * target attribute, so the binary needs no -m flags. On Zen 4 an AVX-512 FMA is split in
 * two 256-bit halves: both sets give the same peak there, which is why both are measured
 * and the best is kept. */
#include "fma_peak.h"

#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile float g_sink;   /* the chains' results go here, so no kernel is elided */

/* Scalar fallback (a multiply and an add per lane, 8 chains; the compiler may vectorize). */
static double kernel_scalar(long iters) {
    float acc[8];
    for (int i = 0; i < 8; i++) acc[i] = 1.0f + 0.01f * (float)i;
    const float a = 0.999999f, b = 1e-6f;
    for (long it = 0; it < iters; it++)
        for (int i = 0; i < 8; i++) acc[i] = acc[i] * a + b;
    float s = 0;
    for (int i = 0; i < 8; i++) s += acc[i];
    g_sink = s;
    return 8.0 * 2.0 * (double)iters;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Independent chains acc = acc * a + b, NC of them (enough to cover the latency), fused
 * (one FMA, the peak) or as a separate multiply and add (two roundings: where the adds have
 * pipes of their own, Zen 4, as fast as the fused form; where they share the FMA ports,
 * Intel's server cores, half as fast). `fused` is a constant at every call. */
__attribute__((target("avx2,fma"))) static inline __attribute__((always_inline))
double chains256(long iters, const int fused) {
    enum { NC = 12 };
    __m256 acc[NC];
    for (int i = 0; i < NC; i++) acc[i] = _mm256_set1_ps(1.0f + 0.01f * (float)i);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < NC; i++)
            acc[i] = fused ? _mm256_fmadd_ps(acc[i], a, b) : _mm256_add_ps(_mm256_mul_ps(acc[i], a), b);
    }
    __m256 s = acc[0];
    for (int i = 1; i < NC; i++) s = _mm256_add_ps(s, acc[i]);
    float out[8];
    _mm256_storeu_ps(out, s);
    g_sink = out[0] + out[7];
    return NC * 8.0 * 2.0 * (double)iters;
}

__attribute__((target("avx512f"))) static inline __attribute__((always_inline))
double chains512(long iters, const int fused) {
    enum { NC = 24 };
    __m512 acc[NC];
    for (int i = 0; i < NC; i++) acc[i] = _mm512_set1_ps(1.0f + 0.01f * (float)i);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < NC; i++)
            acc[i] = fused ? _mm512_fmadd_ps(acc[i], a, b) : _mm512_add_ps(_mm512_mul_ps(acc[i], a), b);
    }
    __m512 s = acc[0];
    for (int i = 1; i < NC; i++) s = _mm512_add_ps(s, acc[i]);
    g_sink = _mm512_reduce_add_ps(s);
    return NC * 16.0 * 2.0 * (double)iters;
}

__attribute__((target("avx2,fma"))) static double kernel_avx2(long iters) { return chains256(iters, 1); }
__attribute__((target("avx2,fma"))) static double kernel_muladd256(long iters) { return chains256(iters, 0); }
__attribute__((target("avx512f"))) static double kernel_avx512(long iters) { return chains512(iters, 1); }
__attribute__((target("avx512f"))) static double kernel_muladd512(long iters) { return chains512(iters, 0); }
#endif

/* Best GFLOP/s of `trials` runs of about `seconds` each (iterations calibrated first). */
static double best_of(double (*kernel)(long), int trials, double seconds) {
    long iters = 1000;
    for (;;) {                                    /* calibrate: grow until a run takes 10 ms */
        double t0 = now_s();
        kernel(iters);
        double t = now_s() - t0;
        if (t > 0.01 || iters > (1L << 40)) { iters = (long)((double)iters * seconds / (t > 0 ? t : 1e-9)) + 1; break; }
        iters *= 4;
    }
    double best = 0;
    for (int r = 0; r < trials; r++) {
        double t0 = now_s();
        double flop = kernel(iters);
        double t = now_s() - t0;
        if (t > 0 && flop / t / 1e9 > best) best = flop / t / 1e9;
    }
    return best;
}

void gc_fma_peak_measure(gc_fma_peak *p, int trials, double seconds) {
    memset(p, 0, sizeof *p);
    if (trials < 1) trials = 1;
    p->scalar = best_of(kernel_scalar, trials, seconds);
    p->gflops = p->scalar;
    p->isa = "scalar";
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        p->avx2 = best_of(kernel_avx2, trials, seconds);
        if (p->avx2 > p->gflops) { p->gflops = p->avx2; p->isa = "avx2+fma"; }
    }
    if (__builtin_cpu_supports("avx512f")) {
        p->avx512 = best_of(kernel_avx512, trials, seconds);
        if (p->avx512 > p->gflops) { p->gflops = p->avx512; p->isa = "avx512f"; }
    }
    if (p->isa && !strcmp(p->isa, "avx512f")) p->muladd = best_of(kernel_muladd512, trials, seconds);
    else if (p->isa && !strcmp(p->isa, "avx2+fma")) p->muladd = best_of(kernel_muladd256, trials, seconds);
#endif
}
