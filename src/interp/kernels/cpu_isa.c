/* cpu_isa.c — run-time choice of the fast kernels' instruction set (cpu_isa.h). */
#include "interp/kernels/cpu_isa.h"

#include <stdlib.h>
#include <string.h>

gc_isa gc_isa_detect(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GC_NO_SIMD)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return GC_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return GC_ISA_AVX2;
#endif
    return GC_ISA_SCALAR;
}

/* -1: not decided yet. Written once per process in the ordinary case (a benign race:
 * every thread computes the same value), and by gc_isa_force in tests. */
static volatile int env_level = -1, forced = -1;

static int from_env(void) {
    gc_isa hw = gc_isa_detect();
    const char *s = getenv("GPUCLEAN_ISA");
    int want = (int)hw;
    if (s && !strcmp(s, "scalar")) want = GC_ISA_SCALAR;
    else if (s && !strcmp(s, "avx2")) want = GC_ISA_AVX2;
    else if (s && !strcmp(s, "avx512")) want = GC_ISA_AVX512;
    return want < (int)hw ? want : (int)hw;
}

gc_isa gc_isa_active(void) {
    if (forced >= 0) return (gc_isa)forced;
    if (env_level < 0) env_level = from_env();
    return (gc_isa)env_level;
}

void gc_isa_force(int level) {
    if (level < 0) { forced = -1; return; }
    int hw = (int)gc_isa_detect();
    forced = level < hw ? level : hw;
}

const char *gc_isa_name(gc_isa level) {
    return level == GC_ISA_AVX512 ? "avx512" : level == GC_ISA_AVX2 ? "avx2" : "scalar";
}
