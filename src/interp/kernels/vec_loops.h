/* vec_loops.h — included by a kernel file whose plain C loops run across independent
 * outputs (each output keeps its own expression and accumulation order), so that the
 * compiler may vectorise them without changing a bit: GCC's -O2 does not vectorise such
 * loops, -O3 does, so the rest of the including file is compiled at O3; and GC_CLONES
 * marks a function to be built twice, for AVX2 and for the baseline, picked at load time
 * (x86-64 Linux with GCC; nothing elsewhere, or with -DGC_NO_SIMD). Include it after the
 * other headers, before the first function. */
#ifndef GC_VEC_LOOPS_H
#define GC_VEC_LOOPS_H

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(GC_NO_SIMD)
#define GC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GC_CLONES
#endif

#endif
