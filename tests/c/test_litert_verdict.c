/* test_litert_verdict.c — `gpuclean litert`'s verdict (gc_lrt_assess) on results written by
 * hand: a result.json (schema 1) with modes cpu, gpu-fp32 and gpu-fp16, all nodes on the
 * GPU, and one float output per mode as .npy. What is asserted:
 *   - fp32 and fp16 both within tolerance          -> GPU-clean
 *   - fp32 right, fp16 broken (corr ~0, LiteRT.js's wide 3x3 convs at fp16 on resnet18)
 *                                                  -> GPU miscompute at fp16 (mode gpu-fp16)
 *   - fp32 right, fp16 off by rounding only (out of the fp16 tolerance, corr 0.99)
 *                                                  -> GPU-clean (rounding is not a miscompute)
 *   - fp32 wrong                                   -> GPU miscompute (mode gpu-fp32)
 */
#include "test.h"

#include "runtime/litert.h"
#include "verify/npy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 256

static void write_out(const char *dir, const char *file, const float *v) {
    char p[700], e[256];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    int64_t shape[1] = { N };
    CHECK_MSG(gc_npy_write(p, GC_T_FLOAT32, 1, shape, v, e, sizeof e) == GC_OK, "%s", e);
}

static void write_result(const char *dir) {
    char p[700];
    snprintf(p, sizeof p, "%s/result.json", dir);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"schema\": 1, \"runtime\": \"js\", \"versions\": {\"litertjs\": \"2.5.3\", \"webgpu\": \"0.6.2\", \"node\": \"20\"},\n"
          " \"gpu\": {\"available\": true}, \"modes\": [\n", f);
    static const char *modes[] = { "cpu", "gpu-fp32", "gpu-fp16" };
    for (int m = 0; m < 3; m++)
        fprintf(f, "  {\"mode\": \"%s\", \"accelerator\": \"%s\", \"status\": \"ok\", \"compile\": {\"ok\": true, \"ms\": 1},\n"
                   "   %s\"signatures\": [{\"index\": 0, \"key\": \"serving_default\", \"ok\": true,\n"
                   "    \"outputs\": [{\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [%d], \"n\": %d, \"file\": \"%s.npy\"}]}]}%s\n",
                modes[m], m ? "gpu" : "cpu",
                m ? "\"residency\": {\"gpu_ops\": 4, \"cpu_ops\": 0, \"line\": \"4/4\"}, \"fully_accelerated\": true, " : "",
                N, N, modes[m], m < 2 ? "," : "");
    fputs("]}\n", f);
    fclose(f);
}

/* The report for CPU output `cpu`, GPU fp32 `g32`, GPU fp16 `g16`. */
static gc_lrt_verdict assess(const float *cpu, const float *g32, const float *g16, char *text, size_t n,
                             char *mode, size_t mn) {
    char root[] = "/tmp/gc-lrt-verdict-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char js[600];
    snprintf(js, sizeof js, "%s/js", root);
    CHECK(mkdir(js, 0755) == 0);
    write_result(js);
    write_out(js, "cpu.npy", cpu);
    write_out(js, "gpu-fp32.npy", g32);
    write_out(js, "gpu-fp16.npy", g16);
    gc_lrt_report *rep = calloc(1, sizeof *rep);
    CHECK(rep != NULL);
    if (!rep) return GC_LRT_V_CPU_FAILED;
    rep->opts.runtimes = GC_LRT_JS;
    snprintf(rep->outdir, sizeof rep->outdir, "%s", root);
    char e[512];
    gc_status st = gc_lrt_result_load(js, &rep->res[GC_LRT_JS], e, sizeof e);
    CHECK_MSG(st == GC_OK, "%s", e);
    rep->have[GC_LRT_JS] = st == GC_OK;
    CHECK(gc_lrt_assess(rep) == GC_OK);
    gc_lrt_verdict k = rep->verdict.kind;
    snprintf(text, n, "%s", rep->verdict.text);
    snprintf(mode, mn, "%s", rep->verdict.mode ? rep->verdict.mode : "");
    gc_lrt_report_free(rep);
    free(rep);
    static const char *files[] = { "result.json", "cpu.npy", "gpu-fp32.npy", "gpu-fp16.npy" };
    char p[700];
    for (int i = 0; i < 4; i++) { snprintf(p, sizeof p, "%s/%s", js, files[i]); unlink(p); }
    rmdir(js);
    rmdir(root);
    return k;
}

GC_TEST(test_litert_verdict_fp16) {
    float cpu[N], g32[N], ok16[N], broken16[N], round16[N], bad32[N];
    for (int i = 0; i < N; i++) {
        cpu[i] = 4.0f * sinf(0.37f * (float)i);
        g32[i] = cpu[i] + 1e-7f;
        ok16[i] = cpu[i] + 1e-3f * cosf((float)i);
        broken16[i] = 4.0f * sinf(1.91f * (float)i + 0.5f);           /* same range, unrelated */
        round16[i] = cpu[i] + ((i & 1) ? 0.2f : -0.2f);                  /* 5% of max: out of fp16 tol, corr 0.99 */
        bad32[i] = cpu[i] * (i % 7 == 0 ? -1.0f : 1.0f);
    }
    char text[1100], mode[32];
    gc_lrt_verdict k = assess(cpu, g32, ok16, text, sizeof text, mode, sizeof mode);
    CHECK_MSG(k == GC_LRT_V_CLEAN, "clean: %s", text);

    k = assess(cpu, g32, broken16, text, sizeof text, mode, sizeof mode);
    CHECK_MSG(k == GC_LRT_V_MISCOMPUTE, "broken fp16: %s", text);
    CHECK_MSG(strstr(text, "at fp16") != NULL, "%s", text);
    CHECK_MSG(!strcmp(mode, "gpu-fp16"), "mode %s", mode);

    k = assess(cpu, g32, round16, text, sizeof text, mode, sizeof mode);
    CHECK_MSG(k == GC_LRT_V_CLEAN, "fp16 rounding only: %s", text);

    k = assess(cpu, bad32, ok16, text, sizeof text, mode, sizeof mode);
    CHECK_MSG(k == GC_LRT_V_MISCOMPUTE, "bad fp32: %s", text);
    CHECK_MSG(!strcmp(mode, "gpu-fp32") && !strstr(text, "at fp16"), "%s (%s)", text, mode);
}
