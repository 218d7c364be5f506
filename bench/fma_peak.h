/* fma_peak.h — the machine's measured fp32 peak on one core (fma_peak.c). */
#ifndef GC_BENCH_FMA_PEAK_H
#define GC_BENCH_FMA_PEAK_H

typedef struct {
    double gflops;          /* best of the instruction sets measured, GFLOP/s (1 FMA = 2 FLOP) */
    const char *isa;        /* the one that gave it: "avx512f", "avx2+fma", "scalar" */
    double avx512, avx2, scalar;   /* each one's best, GFLOP/s; 0 when not measured */
    double muladd;          /* the best ISA's rate with each multiply-add a separate multiply
                               and add (what the interpreter's default --float-arith muladd
                               issues), GFLOP/s counted as 2 per pair; 0 when not measured */
} gc_fma_peak;

/* Runs chains of independent fused multiply-adds on the calling thread for each
 * instruction set the CPU reports (cpuid, through __builtin_cpu_supports) and keeps the
 * best of `trials` timings of about `seconds` each. */
void gc_fma_peak_measure(gc_fma_peak *p, int trials, double seconds);

#endif
