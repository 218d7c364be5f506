/* fp16_model.c — the per-runtime fp16 tables (fp16_model.h; evidence in docs/fp16-model.md). */
#include "interp/fp16_model.h"

#include <string.h>

const char *gc_f16_runtime_name(gc_f16_runtime r) { return r == GC_GPU_JS ? "js" : "native"; }

int gc_f16_runtime_parse(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "native")) return GC_GPU_NATIVE;
    if (!strcmp(s, "js")) return GC_GPU_JS;
    return -1;
}

static const gc_f16_model native_model = {
    .name = "native", .runtime = "native libLiteRt 2.3.0 (WebGPU accelerator, shader-f16)",
    .conv_small = GC_ACC_F16, .conv_small_max_ic = 4,
    .conv = GC_ACC_F32, .depthwise = GC_ACC_F32,
    .winograd = true,
    /* measured bit for bit on the H200 2026-12-03 (tools/fp16_arith_probe.py,
     * docs/measurements/fp16-arith-2026-12-03.md): matrix-core chunks of 16 into a half
     * accumulator where K % 16, N % 32 and M >= 16 allow, else half2 fused multiply-add
     * chains */
    .fc = GC_ACC_K16H, .bmm = GC_ACC_K16H,
    .mma_k = 16, .mma_n = 32, .mma_min_m = 16, .mm_other = GC_ACC_H2FMA, .mm_gemv = GC_ACC_SLICE,
    .conv_mma = true,
    .reduce = GC_ACC_F32, .softmax = GC_ACC_F32,
    .half_math = true, .reduce_chains = true, .saturate = false,
    .scalar_args = true,
};

static const gc_f16_model js_model = {
    .name = "js", .runtime = "LiteRT.js 2.5.3 (WebGPU over Dawn, no shader-f16)",
    .conv_small = GC_ACC_F32, .conv_small_max_ic = 4,
    .conv = GC_ACC_F32, .depthwise = GC_ACC_F32,
    .winograd = false,
    .fc = GC_ACC_F32, .bmm = GC_ACC_F32,
    .reduce = GC_ACC_F32, .softmax = GC_ACC_F32,
    /* measured on the H200 2026-12-02: fp16sem_zero_row_norm, (x - mean) * rsqrt(var +
     * 1e-12) over a zero row, came back finite on LiteRT.js too: the 1e-12 was not
     * stored to half (0) and the rsqrt's 1e6 not either (inf), so as on native the eps is
     * a float kernel argument and the reduce kernel links the elementwise tail */
    .reduce_chains = true, .scalar_args = true,
};

bool gc_f16_on_mma(const gc_f16_model *m, long long M, long long K, long long N) {
    return m->mma_k > 0 && K % m->mma_k == 0 && N % m->mma_n == 0 && M >= m->mma_min_m;
}

gc_f16_acc gc_f16_mm_acc(const gc_f16_model *m, bool bmm, long long M, long long K, long long N) {
    if (m->mma_k > 0 && !gc_f16_on_mma(m, M, K, N))
        return M < m->mma_min_m && !bmm ? m->mm_gemv : m->mm_other;
    return bmm ? m->bmm : m->fc;
}

const gc_f16_model *gc_f16_model_for(gc_f16_runtime r) {
    return r == GC_GPU_JS ? &js_model : &native_model;
}
