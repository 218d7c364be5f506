/* cpu_isa.h — which vector instruction set the fast float kernels (gemm_f32.h) use.
 *
 * Levels, each including the ones below it:
 *   GC_ISA_SCALAR  portable C (any target; the only level off x86-64)
 *   GC_ISA_AVX2    AVX2 + FMA (x86-64; FMA for --float-arith fma, see gemm_f32.h)
 *   GC_ISA_AVX512  AVX-512F (x86-64)
 * gc_isa_detect() is what this CPU runs (__builtin_cpu_supports; GCC / clang on x86-64;
 * always scalar when built with -DGC_NO_SIMD, which compiles only the portable kernels).
 * gc_isa_active() is what the kernels use: the detected level, lowered by the environment
 * variable GPUCLEAN_ISA=scalar|avx2|avx512 (a level above the CPU's is clamped to it; any
 * other value is ignored), or by gc_isa_force() (tests). The environment is read once.
 * An interpreter takes gc_isa_active() when it is made (gc_interp_new) and keeps it
 * (packed weights depend on it), so forcing a level affects interpreters made afterwards.
 */
#ifndef GC_CPU_ISA_H
#define GC_CPU_ISA_H

typedef enum { GC_ISA_SCALAR = 0, GC_ISA_AVX2 = 1, GC_ISA_AVX512 = 2 } gc_isa;

gc_isa gc_isa_detect(void);
gc_isa gc_isa_active(void);
/* level < 0: back to the environment's / detected level; else min(level, detected) */
void gc_isa_force(int level);
const char *gc_isa_name(gc_isa level);      /* "scalar", "avx2", "avx512" */

#endif
