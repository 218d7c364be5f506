/* litert_native.c — the native LiteRT runtime: libLiteRt.so from the ai-edge-litert
 * wheel (2.3.0), opened with dlopen, driven through its CompiledModel C API.
 *
 * We declare the few entry points we use ourselves (from LiteRT's public headers
 * litert/c/litert_{environment,model,model_types,layout,options,opaque_options,
 * compiled_model,tensor_buffer,tensor_buffer_requirements}.h of that release): no
 * LiteRT header or library is needed to build gpuclean, and a machine without the wheel
 * reports "native runtime unavailable: <why>".
 *
 * Each mode (cpu, gpu-fp32, gpu-fp16) runs in a forked child whose stdout/stderr go to
 * OUT/<mode>/native.log: LiteRT logs there (the GPU delegate's residency line and
 * rejected ops too), and a crash or hang inside the library costs that mode only. The
 * child writes OUT/<mode>/mode.json; the parent assembles OUT/result.json in the LiteRT.js
 * runner's schema, so both runtimes are read by the same code.
 */
#include "runtime/litert.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/schema.h"
#include "verify/npy.h"
#include "interp/interp.h"

/* ---- the slice of the LiteRT C API we use ------------------------------------------- */

typedef int lrt_status;                        /* LiteRtStatus; 0 = kLiteRtStatusOk */
typedef void *lrt_handle;                      /* every LiteRt* handle is a pointer */

enum { LRT_HW_CPU = 1, LRT_HW_GPU = 2 };       /* kLiteRtHwAccelerator{Cpu,Gpu} */
enum { LRT_LOCK_READ = 0, LRT_LOCK_WRITE = 1 };
enum { LRT_RANKED = 0 };                       /* kLiteRtRankedTensorType */
enum { LRT_BUF_HOST = 1 };                     /* kLiteRtTensorBufferTypeHostMemory */
enum { LRT_PREC_FP16 = 1, LRT_PREC_FP32 = 2 }; /* kLiteRtDelegatePrecision* */

/* LiteRtLayout: a 7-bit rank and a has_strides bit packed in one unsigned int, then
 * dimensions[8] and strides[8]. LiteRtRankedTensorType: element type, then layout. */
#define LRT_MAX_RANK 8
typedef struct { uint32_t rank_bits; int32_t dims[LRT_MAX_RANK]; uint32_t strides[LRT_MAX_RANK]; } lrt_layout;
typedef struct { int32_t element_type; lrt_layout layout; } lrt_ranked_type;
_Static_assert(sizeof(lrt_layout) == 68, "LiteRtLayout is 68 bytes");
_Static_assert(sizeof(lrt_ranked_type) == 72, "LiteRtRankedTensorType is 72 bytes");

#define LRT_FUNCS(X) \
    X(lrt_status, LiteRtCreateEnvironment, (int, const void *, lrt_handle *)) \
    X(void, LiteRtDestroyEnvironment, (lrt_handle)) \
    X(lrt_status, LiteRtCreateModelFromFile, (lrt_handle, const char *, lrt_handle *)) \
    X(void, LiteRtDestroyModel, (lrt_handle)) \
    X(lrt_status, LiteRtGetNumModelSignatures, (lrt_handle, size_t *)) \
    X(lrt_status, LiteRtGetModelSignature, (lrt_handle, size_t, lrt_handle *)) \
    X(lrt_status, LiteRtGetSignatureKey, (lrt_handle, const char **)) \
    X(lrt_status, LiteRtGetSignatureSubgraph, (lrt_handle, lrt_handle *)) \
    X(lrt_status, LiteRtGetNumSubgraphOps, (lrt_handle, size_t *)) \
    X(lrt_status, LiteRtGetNumSignatureInputs, (lrt_handle, size_t *)) \
    X(lrt_status, LiteRtGetNumSignatureOutputs, (lrt_handle, size_t *)) \
    X(lrt_status, LiteRtGetSignatureInputName, (lrt_handle, size_t, const char **)) \
    X(lrt_status, LiteRtGetSignatureOutputName, (lrt_handle, size_t, const char **)) \
    X(lrt_status, LiteRtGetSignatureInputTensorByIndex, (lrt_handle, size_t, lrt_handle *)) \
    X(lrt_status, LiteRtGetSignatureOutputTensorByIndex, (lrt_handle, size_t, lrt_handle *)) \
    X(lrt_status, LiteRtGetTensorTypeId, (lrt_handle, int *)) \
    X(lrt_status, LiteRtGetRankedTensorType, (lrt_handle, lrt_ranked_type *)) \
    X(lrt_status, LiteRtCreateOptions, (lrt_handle *)) \
    X(void, LiteRtDestroyOptions, (lrt_handle)) \
    X(lrt_status, LiteRtSetOptionsHardwareAccelerators, (lrt_handle, int)) \
    X(lrt_status, LiteRtAddOpaqueOptions, (lrt_handle, lrt_handle)) \
    X(lrt_status, LiteRtCreateOpaqueOptions, (const char *, void *, void (*)(void *), lrt_handle *)) \
    X(lrt_status, LiteRtCreateCompiledModel, (lrt_handle, lrt_handle, lrt_handle, lrt_handle *)) \
    X(void, LiteRtDestroyCompiledModel, (lrt_handle)) \
    X(lrt_status, LiteRtCompiledModelIsFullyAccelerated, (lrt_handle, bool *)) \
    X(lrt_status, LiteRtCompiledModelResizeInputTensor, (lrt_handle, size_t, size_t, const int *, size_t)) \
    X(lrt_status, LiteRtGetCompiledModelOutputTensorLayouts, (lrt_handle, size_t, size_t, lrt_layout *, bool)) \
    X(lrt_status, LiteRtGetCompiledModelInputBufferRequirements, (lrt_handle, size_t, size_t, lrt_handle *)) \
    X(lrt_status, LiteRtGetCompiledModelOutputBufferRequirements, (lrt_handle, size_t, size_t, lrt_handle *)) \
    X(lrt_status, LiteRtCreateManagedTensorBufferFromRequirements, (lrt_handle, const lrt_ranked_type *, lrt_handle, lrt_handle *)) \
    X(lrt_status, LiteRtCreateManagedTensorBuffer, (lrt_handle, int, const lrt_ranked_type *, size_t, lrt_handle *)) \
    X(lrt_status, LiteRtGetTensorBufferPackedSize, (lrt_handle, size_t *)) \
    X(lrt_status, LiteRtLockTensorBuffer, (lrt_handle, void **, int)) \
    X(lrt_status, LiteRtUnlockTensorBuffer, (lrt_handle)) \
    X(void, LiteRtDestroyTensorBuffer, (lrt_handle)) \
    X(lrt_status, LiteRtRunCompiledModel, (lrt_handle, size_t, size_t, lrt_handle *, size_t, lrt_handle *))

typedef struct {
    void *lib, *gpu_lib;
#define LRT_FIELD(ret, name, args) ret (*name) args;
    LRT_FUNCS(LRT_FIELD)
#undef LRT_FIELD
} lrt_api;

static const char *lrt_status_str(lrt_status s) {
    switch (s) {
    case 0: return "ok";
    case 1: return "invalid argument";
    case 2: return "memory allocation failure";
    case 3: return "runtime failure";
    case 4: return "missing input tensor";
    case 5: return "unsupported";
    case 6: return "not found";
    case 7: return "timeout expired";
    case 8: return "wrong version";
    case 9: return "unknown error";
    case 10: return "already exists";
    case 100: return "cancelled";
    case 500: return "file I/O error";
    case 501: return "invalid flatbuffer";
    case 502: return "dynamic loading error";
    case 503: return "serialization error";
    case 504: return "compilation error";
    case 1000: return "index out of bounds";
    case 1001: return "invalid IR type";
    case 1002: return "invalid graph invariant";
    case 1003: return "graph modification error";
    default: return "error";
    }
}

/* LiteRtElementType (TfLiteType numbering) -> GC_T_* (the .tflite schema's numbering). */
static int lrt_to_gc_type(int et) {
    switch (et) {
    case 1: return GC_T_FLOAT32;  case 2: return GC_T_INT32;   case 3: return GC_T_UINT8;
    case 4: return GC_T_INT64;    case 5: return GC_T_STRING;  case 6: return GC_T_BOOL;
    case 7: return GC_T_INT16;    case 8: return GC_T_COMPLEX64; case 9: return GC_T_INT8;
    case 10: return GC_T_FLOAT16; case 11: return GC_T_FLOAT64; case 12: return GC_T_COMPLEX128;
    case 13: return GC_T_UINT64;  case 16: return GC_T_UINT32; case 17: return GC_T_UINT16;
    case 18: return GC_T_INT4;    case 19: return GC_T_BFLOAT16; case 20: return GC_T_INT2;
    default: return -1;
    }
}

/* Copy a C string into a fixed buffer, truncating (always NUL-terminated). */
static void sncopy(char *dst, size_t n, const char *src) {
    if (!n) return;
    size_t k = strnlen(src, n - 1);
    memcpy(dst, src, k);
    dst[k] = 0;
}

/* ---- locating things ------------------------------------------------------------------- */

static bool is_file(const char *p) { struct stat st; return stat(p, &st) == 0 && S_ISREG(st.st_mode); }
static bool is_dir(const char *p) { struct stat st; return stat(p, &st) == 0 && S_ISDIR(st.st_mode); }

bool gc_lrt_home(char *buf, size_t n) {
    const char *h = getenv("GPUCLEAN_HOME");
    if (h && *h) {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/runtime/litert", h);
        if (is_dir(probe)) { snprintf(buf, n, "%s", h); return true; }
    }
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return false;
    exe[k] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = 0;                                    /* folder of the executable */
    const char *cands[] = { "/..", "/../..", "/../share/gpuclean", "/../../.." };
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        char probe[4200];
        snprintf(probe, sizeof probe, "%s%s/runtime/litert/runner.mjs", exe, cands[i]);
        if (is_file(probe)) {
            char rp[4096];
            snprintf(probe, sizeof probe, "%s%s", exe, cands[i]);
            if (realpath(probe, rp)) { snprintf(buf, n, "%s", rp); return true; }
        }
    }
    return false;
}

static bool native_lib_path(char *buf, size_t n, char *why, size_t whylen) {
    const char *e = getenv("GPUCLEAN_LITERT_LIB");
    if (e && *e) {
        /* "./" before a bare file name, so that the library's folder is always the text
         * before the last '/' */
        if (is_file(e)) { snprintf(buf, n, "%s%s", strchr(e, '/') ? "" : "./", e); return true; }
        gc_errf(why, whylen, "GPUCLEAN_LITERT_LIB=%s: no such file", e);
        return false;
    }
    char home[4096];
    if (!gc_lrt_home(home, sizeof home)) {
        gc_errf(why, whylen, "gpuclean's runtime folder not found (set GPUCLEAN_HOME)");
        return false;
    }
    snprintf(buf, n, "%.3900s/build/litert-wheel/lib/libLiteRt.so", home);
    if (is_file(buf)) return true;
    gc_errf(why, whylen, "%s not found: run runtime/litert/setup.sh (or tools/setup.sh); "
            "a pip install: pip install 'gpuclean[runtime]'", buf);
    return false;
}

static bool lrt_load(lrt_api *api, bool want_gpu, char *why, size_t whylen) {
    char path[4096];
    memset(api, 0, sizeof *api);
    if (!native_lib_path(path, sizeof path, why, whylen)) return false;
    if (want_gpu) {
        /* libLiteRt.so dlopens "libLiteRtWebGpuAccelerator.so" by name; loading it first
         * from the same folder makes that name resolve to this copy. */
        char gpu[4200];
        snprintf(gpu, sizeof gpu, "%.*s/libLiteRtWebGpuAccelerator.so",
                 (int)(strrchr(path, '/') - path), path);
        api->gpu_lib = dlopen(gpu, RTLD_NOW | RTLD_GLOBAL);
        if (!api->gpu_lib) fprintf(stderr, "gpuclean: could not preload %s: %s\n", gpu, dlerror());
    }
    api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) { gc_errf(why, whylen, "dlopen %s: %s", path, dlerror()); return false; }
#define LRT_SYM(ret, name, args) \
    *(void **)&api->name = dlsym(api->lib, #name); \
    if (!api->name) { gc_errf(why, whylen, "%s: missing symbol %s", path, #name); return false; }
    LRT_FUNCS(LRT_SYM)
#undef LRT_SYM
    return true;
}

/* The runtime's version: DIR/VERSION beside DIR/libLiteRt.so (runtime/litert/setup.sh
 * writes it), else pip's layout, SITE/ai_edge_litert/libLiteRt.so beside
 * SITE/ai_edge_litert-<version>.dist-info (a `pip install gpuclean[runtime]`). */
static const char *lib_version(void) {
    static char v[64];
    char path[4096], why[64], vf[4200];
    if (!native_lib_path(path, sizeof path, why, sizeof why)) return "unknown";
    const char *slash = strrchr(path, '/');
    if (!slash) return "unknown";                       /* a bare file name: no folder to read */
    int dirlen = (int)(slash - path);
    snprintf(vf, sizeof vf, "%.*s/VERSION", dirlen, path);
    FILE *f = fopen(vf, "r");
    if (f) {
        if (!fgets(v, sizeof v, f)) snprintf(v, sizeof v, "unknown");
        fclose(f);
        v[strcspn(v, "\r\n")] = 0;
        return v;
    }
    path[dirlen] = 0;                                   /* DIR */
    char *up = strrchr(path, '/');
    if (!up) return "unknown";
    *up = 0;                                            /* SITE */
    DIR *d = opendir(up == path ? "/" : path);
    if (!d) return "unknown";
    const char *pre = "ai_edge_litert-", *suf = ".dist-info";
    size_t lp = strlen(pre), ls = strlen(suf);
    snprintf(v, sizeof v, "unknown");
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > lp + ls && n - lp - ls < sizeof v && !strncmp(e->d_name, pre, lp) &&
            !strcmp(e->d_name + n - ls, suf)) {
            snprintf(v, sizeof v, "%.*s", (int)(n - lp - ls), e->d_name + lp);
            break;
        }
    }
    closedir(d);
    return v;
}

/* ---- deterministic inputs: one definition for the whole project (interp/inputs.c,
 * the same bytes as runner.mjs and the oracle for float32 / int32 / uint8) ------------- */

static bool gen_input(int gct, void *data, size_t n, int k, int sig, const gc_lrt_opts *o) {
    gc_tview v;
    memset(&v, 0, sizeof v);
    v.dtype = gct; v.rank = 1; v.shape[0] = (int32_t)n; v.data = data;
    v.nbytes = n * (size_t)gc_type_size(gct);
    if (o->input_kind == GC_LRT_IN_RANDOM) return gc_fill_random(&v, o->seed, sig, k) == GC_OK;
    return gc_fill_pattern_sin(&v, k) == GC_OK;
}

/* Fill `dst` (gct, n elements) from an .npy, converting numeric dtypes. */
static bool fill_from_npy(const char *file, int gct, void *dst, size_t n, char *err, size_t errlen) {
    gc_npy a;
    if (gc_npy_read(file, &a, err, errlen) != GC_OK) return false;
    bool ok = false;
    if (gc_npy_count(&a) != n) {
        gc_errf(err, errlen, "%s: %llu elements, the input needs %zu", file, (unsigned long long)gc_npy_count(&a), n);
    } else if (a.dtype == gct) {
        memcpy(dst, a.data, n * (size_t)gc_npy_itemsize(gct));
        ok = true;
    } else if (gct == GC_T_FLOAT32 || gct == GC_T_INT32 || gct == GC_T_UINT8 || gct == GC_T_INT8 ||
               gct == GC_T_INT16 || gct == GC_T_INT64 || gct == GC_T_BOOL) {
        double buf[256];
        for (size_t i = 0; i < n; i += 256) {
            size_t m = n - i < 256 ? n - i : 256;
            gc_npy_to_f64(a.dtype, a.data, i, m, buf);
            for (size_t j = 0; j < m; j++) {
                double v = buf[j];
                switch (gct) {
                case GC_T_FLOAT32: ((float *)dst)[i + j] = (float)v; break;
                case GC_T_INT32: ((int32_t *)dst)[i + j] = (int32_t)v; break;
                case GC_T_UINT8: case GC_T_BOOL: ((uint8_t *)dst)[i + j] = (uint8_t)v; break;
                case GC_T_INT8: ((int8_t *)dst)[i + j] = (int8_t)v; break;
                case GC_T_INT16: ((int16_t *)dst)[i + j] = (int16_t)v; break;
                default: ((int64_t *)dst)[i + j] = (int64_t)v; break;
                }
            }
        }
        ok = true;
    } else gc_errf(err, errlen, "%s: cannot convert %s to %s", file, gc_npy_dtype_name(a.dtype), gc_npy_dtype_name(gct));
    gc_npy_free(&a);
    return ok;
}

/* ---- the child: one mode ------------------------------------------------------------------ */

static void json_shape(gc_str *j, const int64_t *shape, int rank) {
    gc_str_putc(j, '[');
    for (int i = 0; i < rank; i++) gc_str_printf(j, "%s%lld", i ? "," : "", (long long)shape[i]);
    gc_str_putc(j, ']');
}

static double now_ms(void) { return gc_now() * 1000.0; }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (n >= 1; v is reordered). */
static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* What the LiteRT log says (the same facts runner.mjs's parseLog reads). */
static void parse_log(const char *log, gc_str *j) {
    int gpu = -1, cpu = -1;
    char resline[512] = "";
    bool fallback = false, init_failed = false, in_uns = false, first_uns = true;
    char failed_op[128] = "", failed_stage[32] = "";
    gc_str uns = {0}, errs = {0};
    int n_errs = 0;
    const char *p = log;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = 0;
        p = e ? e + 1 : NULL;
        const char *s;
        int a, b;
        if ((s = strstr(line, " operations will run on the GPU, and the remaining "))) {
            const char *d = s;
            while (d > line && d[-1] >= '0' && d[-1] <= '9') d--;
            if (sscanf(d, "%d operations will run on the GPU, and the remaining %d", &a, &b) == 2) {
                gpu = a; cpu = b; sncopy(resline, sizeof resline, d);
            }
            in_uns = false;
            continue;
        }
        if ((s = strstr(line, "No operations will run on the GPU, and all "))) {
            if (sscanf(s, "No operations will run on the GPU, and all %d", &b) == 1) {
                gpu = 0; cpu = b; sncopy(resline, sizeof resline, s);
            }
            in_uns = false;
            continue;
        }
        if (strstr(line, "Following operations are not supported by GPU delegate")) { in_uns = true; continue; }
        if (in_uns) {
            const char *body = !strncmp(line, "ERROR: ", 7) ? line + 7 : line;
            const char *colon = strstr(body, ": ");
            bool opname = colon && body[0] >= 'A' && body[0] <= 'Z';
            for (const char *q = body; opname && q < colon; q++)
                if (!((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_' || *q == ' ' ||
                      (*q >= 'a' && *q <= 'z'))) opname = false;
            if (opname && strncmp(body, "INFO", 4) && strncmp(body, "WARNING", 7)) {
                char op[128];
                snprintf(op, sizeof op, "%.*s", (int)(colon - body), body);
                gc_str_puts(&uns, first_uns ? "" : ",");
                gc_str_puts(&uns, "{\"op\":"); gc_str_json(&uns, op);
                gc_str_puts(&uns, ",\"reason\":"); gc_str_json(&uns, colon + 2);
                gc_str_putc(&uns, '}');
                first_uns = false;
                continue;
            }
            in_uns = false;
        }
        if (strstr(line, "Restored original execution plan after delegate application failure")) init_failed = true;
        if (strstr(line, "Falling back to")) fallback = true;
        if (!failed_op[0] && (s = strstr(line, "Node number "))) {
            const char *o = strchr(s, '('), *c = o ? strchr(o, ')') : NULL;
            const char *st = c ? strstr(c, "failed to ") : NULL;
            if (o && c && st) {
                snprintf(failed_op, sizeof failed_op, "%.*s", (int)(c - o - 1), o + 1);
                snprintf(failed_stage, sizeof failed_stage, "%.20s", st + 10);
                failed_stage[strcspn(failed_stage, ". ")] = 0;
            }
        }
        if ((!strncmp(line, "ERROR", 5) || strstr(line, "rror")) && n_errs < 40 && !strstr(line, "npu_registry")) {
            gc_str_puts(&errs, n_errs ? "," : "");
            gc_str_json(&errs, line);
            n_errs++;
        }
    }
    gc_str_puts(j, ",\"residency\":");
    if (gpu >= 0) {
        gc_str_printf(j, "{\"gpu_ops\":%d,\"cpu_ops\":%d,\"line\":", gpu, cpu);
        gc_str_json(j, resline);
        gc_str_putc(j, '}');
    } else gc_str_puts(j, "null");
    gc_str_printf(j, ",\"unsupported\":[%s]", uns.s ? uns.s : "");
    gc_str_printf(j, ",\"fallback_all\":%s,\"delegate_init_failed\":%s", fallback ? "true" : "false",
                  init_failed ? "true" : "false");
    gc_str_puts(j, ",\"failed_node\":");
    if (failed_op[0]) {
        gc_str_puts(j, "{\"op\":"); gc_str_json(j, failed_op);
        gc_str_puts(j, ",\"stage\":"); gc_str_json(j, failed_stage);
        gc_str_putc(j, '}');
    } else gc_str_puts(j, "null");
    gc_str_printf(j, ",\"log_errors\":[%s]", errs.s ? errs.s : "");
    gc_str_free(&uns);
    gc_str_free(&errs);
}

static char *slurp(const char *path, size_t max) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = malloc(max + 1);
    size_t n = b ? fread(b, 1, max, f) : 0;
    fclose(f);
    if (b) b[n] = 0;
    return b;
}

typedef struct {
    const gc_lrt_opts *o;
    const char *outdir, *mode;
    bool gpu; int precision;
} mode_job;

static void gpu_payload_free(void *p) { free(p); }

/* Runs in the child. Writes <outdir>/<mode>/mode.json; returns the exit code (0). */
static int native_child(const mode_job *job) {
    const gc_lrt_opts *o = job->o;
    char dir[4200], logp[4300], path[4400];
    snprintf(dir, sizeof dir, "%s/%s", job->outdir, job->mode);
    snprintf(logp, sizeof logp, "%s/native.log", dir);
    int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { fflush(stdout); fflush(stderr); dup2(fd, 1); dup2(fd, 2); close(fd); }
    setvbuf(stderr, NULL, _IONBF, 0);

    gc_str j = {0}, sigs = {0};
    char err[1024] = "", why[1024];
    const char *status = "ok", *error_class = NULL;
    bool compile_ok = false;
    double compile_ms = -1;
    int fully = -1;
    lrt_api api;
    lrt_handle env = NULL, model = NULL, opts = NULL, cm = NULL;

    if (!lrt_load(&api, job->gpu, why, sizeof why)) {
        snprintf(err, sizeof err, "native runtime unavailable: %.900s", why);
        status = "unavailable"; error_class = "unavailable";
        goto out;
    }
    lrt_status s;
    if ((s = api.LiteRtCreateEnvironment(0, NULL, &env))) {
        snprintf(err, sizeof err, "LiteRtCreateEnvironment: %s (%d)", lrt_status_str(s), s);
        status = "error"; error_class = "runner_failed"; goto out;
    }
    if ((s = api.LiteRtCreateModelFromFile(env, o->model, &model))) {
        snprintf(err, sizeof err, "LiteRtCreateModelFromFile: %s (%d)", lrt_status_str(s), s);
        status = "error"; error_class = "compile_failed"; goto out;
    }
    api.LiteRtCreateOptions(&opts);
    /* GPU runs ask for GPU|CPU, as an app with CPU fallback does: with the GPU alone,
     * CompiledModel refuses any model with one undelegated node ("Some ops are not
     * accelerated", status 504 — seen on the H200 for every partial model). */
    api.LiteRtSetOptionsHardwareAccelerators(opts, job->gpu ? (LRT_HW_GPU | LRT_HW_CPU) : LRT_HW_CPU);
    if (job->gpu) {
        char *toml = malloc(32);
        if (toml) {
            snprintf(toml, 32, "precision = %d\n", job->precision == GC_LRT_FP16 ? LRT_PREC_FP16 : LRT_PREC_FP32);
            lrt_handle go = NULL;
            if (!api.LiteRtCreateOpaqueOptions("gpu_options", toml, gpu_payload_free, &go)) api.LiteRtAddOpaqueOptions(opts, go);
            else free(toml);
        }
    } else if (o->threads > 0) {
        /* CPU options are a TOML payload under the XNNPACK accelerator's identifier,
         * "xnnpack" (litert/runtime/litert_cpu_options of that release) */
        char *toml = malloc(32);
        if (toml) {
            snprintf(toml, 32, "num_threads = %d\n", o->threads);
            lrt_handle co = NULL;
            if (!api.LiteRtCreateOpaqueOptions("xnnpack", toml, gpu_payload_free, &co)) api.LiteRtAddOpaqueOptions(opts, co);
            else free(toml);
        }
    }
    double t0 = now_ms();
    s = api.LiteRtCreateCompiledModel(env, model, opts, &cm);
    compile_ms = now_ms() - t0;
    if (s || !cm) {
        snprintf(err, sizeof err, "LiteRtCreateCompiledModel: %s (%d)", lrt_status_str(s), s);
        status = "error"; error_class = "compile_failed"; goto out;
    }
    compile_ok = true;
    bool fa = false;
    if (!api.LiteRtCompiledModelIsFullyAccelerated(cm, &fa)) fully = fa;

    char indir[4300];
    snprintf(indir, sizeof indir, "%s/inputs", job->outdir);
    mkdir(indir, 0755);
    size_t nsig = 0;
    api.LiteRtGetNumModelSignatures(model, &nsig);
    for (size_t sj = 0; sj < nsig && sj < 64; sj++) {
        lrt_handle sig = NULL;
        const char *key = "";
        size_t nin = 0, nout = 0;
        api.LiteRtGetModelSignature(model, sj, &sig);
        api.LiteRtGetSignatureKey(sig, &key);
        api.LiteRtGetNumSignatureInputs(sig, &nin);
        api.LiteRtGetNumSignatureOutputs(sig, &nout);
        lrt_handle *ib = calloc(nin + 1, sizeof *ib), *ob = calloc(nout + 1, sizeof *ob);
        bool resized = false;
        gc_str ij = {0}, oj = {0};
        char serr[1024] = "";
        double first = -1, avg = -1, median = -1, *run_ms = NULL;
        int n_run_ms = 0;
        if (!ib || !ob) { snprintf(serr, sizeof serr, "out of memory"); goto sig_done; }
        for (size_t k = 0; k < nin; k++) {
            lrt_handle t = NULL, req = NULL;
            const char *name = "";
            lrt_ranked_type ty;
            int tid = -1;
            memset(&ty, 0, sizeof ty);
            api.LiteRtGetSignatureInputName(sig, k, &name);
            if (api.LiteRtGetSignatureInputTensorByIndex(sig, k, &t) || api.LiteRtGetTensorTypeId(t, &tid) ||
                tid != LRT_RANKED || api.LiteRtGetRankedTensorType(t, &ty)) {
                snprintf(serr, sizeof serr, "input %zu '%s': not a ranked tensor", k, name); goto sig_done;
            }
            int rank = (int)(ty.layout.rank_bits & 0x7F);
            if (rank > LRT_MAX_RANK) { snprintf(serr, sizeof serr, "input '%s': rank %d", name, rank); goto sig_done; }
            int dims[LRT_MAX_RANK];
            int64_t shape[LRT_MAX_RANK];
            bool dyn = false;
            size_t n = 1;
            for (int d = 0; d < rank; d++) {
                if (ty.layout.dims[d] < 0) { dyn = true; ty.layout.dims[d] = 1; }
                dims[d] = ty.layout.dims[d];
                shape[d] = dims[d];
                n *= (size_t)dims[d];
            }
            if (dyn) {
                if ((s = api.LiteRtCompiledModelResizeInputTensor(cm, sj, k, dims, (size_t)rank))) {
                    snprintf(serr, sizeof serr, "resizing dynamic input '%s': %s", name, lrt_status_str(s)); goto sig_done;
                }
                resized = true;
            }
            int gct = lrt_to_gc_type(ty.element_type);
            int isz = gct >= 0 ? gc_npy_itemsize(gct) : 0;
            if (isz <= 0) { snprintf(serr, sizeof serr, "input '%s': element type %d not supported here", name, ty.element_type); goto sig_done; }
            void *host = NULL;
            size_t packed = 0;
            if ((s = api.LiteRtGetCompiledModelInputBufferRequirements(cm, sj, k, &req)) ||
                (s = api.LiteRtCreateManagedTensorBufferFromRequirements(env, &ty, req, &ib[k]))) {
                snprintf(serr, sizeof serr, "input '%s': buffer: %s (%d)", name, lrt_status_str(s), s); goto sig_done;
            }
            api.LiteRtGetTensorBufferPackedSize(ib[k], &packed);
            if (packed != n * (size_t)isz) { snprintf(serr, sizeof serr, "input '%s': buffer holds %zu bytes, expected %zu", name, packed, n * (size_t)isz); goto sig_done; }
            void *data = calloc(n ? n : 1, (size_t)isz);
            if (!data) { snprintf(serr, sizeof serr, "out of memory"); goto sig_done; }
            char fname[64], src[4400] = "";
            snprintf(fname, sizeof fname, "s%zu_input_%zu.npy", sj, k);
            bool have = false;
            if (o->inputs_dir) {
                snprintf(path, sizeof path, "%s/%s", o->inputs_dir, fname);
                if (is_file(path)) {
                    if (!fill_from_npy(path, gct, data, n, serr, sizeof serr)) { free(data); goto sig_done; }
                    have = true; snprintf(src, sizeof src, "%s", path);
                }
            }
            for (int g = 0; !have && g < o->n_inputs; g++) {
                char idx[32];
                snprintf(idx, sizeof idx, "%zu", k);
                if (!strcmp(o->inputs[g].key, name) || !strcmp(o->inputs[g].key, idx)) {
                    if (!fill_from_npy(o->inputs[g].file, gct, data, n, serr, sizeof serr)) { free(data); goto sig_done; }
                    have = true; snprintf(src, sizeof src, "%s", o->inputs[g].file);
                }
            }
            if (!have) {
                if (!gen_input(gct, data, n, (int)k, (int)sj, o)) {
                    free(data);
                    snprintf(serr, sizeof serr, "input '%s': no generator for %s", name, gc_npy_dtype_name(gct)); goto sig_done;
                }
                if (o->input_kind == GC_LRT_IN_RANDOM) snprintf(src, sizeof src, "random %llu", (unsigned long long)o->seed);
                else snprintf(src, sizeof src, "pattern sin");
            }
            snprintf(path, sizeof path, "%s/%s", indir, fname);
            char werr[256];
            if (!is_file(path)) gc_npy_write(path, gct, rank, shape, data, werr, sizeof werr);
            if (!api.LiteRtLockTensorBuffer(ib[k], &host, LRT_LOCK_WRITE) && host) {
                memcpy(host, data, packed);
                api.LiteRtUnlockTensorBuffer(ib[k]);
            } else { free(data); snprintf(serr, sizeof serr, "input '%s': cannot lock buffer", name); goto sig_done; }
            free(data);
            gc_str_puts(&ij, k ? "," : "");
            gc_str_puts(&ij, "{\"name\":"); gc_str_json(&ij, name);
            gc_str_printf(&ij, ",\"dtype\":\"%s\",\"shape\":", gc_npy_dtype_name(gct));
            json_shape(&ij, shape, rank);
            gc_str_printf(&ij, ",\"file\":\"inputs/%s\",\"source\":", fname);
            gc_str_json(&ij, src);
            gc_str_putc(&ij, '}');
        }
        lrt_layout outl[64];
        bool have_outl = false;
        /* Output shapes as the compiled model allocated them: they differ from the
         * signature's for dynamic inputs and for ops that size their outputs at prepare
         * time (detection post-processing has rank-0 outputs in the file). */
        if (nout <= 64) {
            have_outl = !api.LiteRtGetCompiledModelOutputTensorLayouts(cm, sj, nout, outl, resized);
            bool rank0 = false;
            for (size_t k = 0; have_outl && k < nout; k++) if (!(outl[k].rank_bits & 0x7F)) rank0 = true;
            /* Rank 0 here means "not known before allocation": ask again, allocating. */
            if (rank0 && !resized) have_outl = !api.LiteRtGetCompiledModelOutputTensorLayouts(cm, sj, nout, outl, true);
        }
        int out_gct[64];
        for (size_t k = 0; k < nout && k < 64; k++) {
            lrt_handle t = NULL, req = NULL;
            lrt_ranked_type ty;
            int tid = -1;
            memset(&ty, 0, sizeof ty);
            if (api.LiteRtGetSignatureOutputTensorByIndex(sig, k, &t) || api.LiteRtGetTensorTypeId(t, &tid) ||
                tid != LRT_RANKED || api.LiteRtGetRankedTensorType(t, &ty)) {
                snprintf(serr, sizeof serr, "output %zu: not a ranked tensor", k); goto sig_done;
            }
            if (have_outl) ty.layout = outl[k];
            out_gct[k] = lrt_to_gc_type(ty.element_type);
            if ((s = api.LiteRtGetCompiledModelOutputBufferRequirements(cm, sj, k, &req)) ||
                (s = api.LiteRtCreateManagedTensorBufferFromRequirements(env, &ty, req, &ob[k]))) {
                snprintf(serr, sizeof serr, "output %zu: buffer: %s (%d)", k, lrt_status_str(s), s); goto sig_done;
            }
            size_t packed = 0, want = (size_t)(gc_npy_itemsize(out_gct[k] >= 0 ? out_gct[k] : GC_T_FLOAT32));
            for (unsigned d = 0; d < (ty.layout.rank_bits & 0x7F) && d < LRT_MAX_RANK; d++)
                want *= (size_t)(ty.layout.dims[d] > 0 ? ty.layout.dims[d] : 1);
            api.LiteRtGetTensorBufferPackedSize(ob[k], &packed);
            if (want > packed && want < ((size_t)1 << 34)) {       /* requirements lag the real shape */
                api.LiteRtDestroyTensorBuffer(ob[k]);
                ob[k] = NULL;
                if ((s = api.LiteRtCreateManagedTensorBuffer(env, LRT_BUF_HOST, &ty, want, &ob[k]))) {
                    snprintf(serr, sizeof serr, "output %zu: buffer of %zu bytes: %s (%d)", k, want, lrt_status_str(s), s); goto sig_done;
                }
                api.LiteRtGetTensorBufferPackedSize(ob[k], &packed);
            }
            fprintf(stderr, "gpuclean: signature %zu output %zu: element type %d, rank %u [%d,%d,%d,%d], buffer %zu bytes\n",
                    sj, k, ty.element_type, ty.layout.rank_bits & 0x7F, ty.layout.dims[0], ty.layout.dims[1],
                    ty.layout.dims[2], ty.layout.dims[3], packed);
        }
        if (nout > 64) { snprintf(serr, sizeof serr, "more than 64 outputs"); goto sig_done; }
        double t1 = now_ms();
        if ((s = api.LiteRtRunCompiledModel(cm, sj, nin, ib, nout, ob))) {
            snprintf(serr, sizeof serr, "LiteRtRunCompiledModel: %s (%d)", lrt_status_str(s), s); goto sig_done;
        }
        first = now_ms() - t1;
        int runs = o->runs < 0 ? 3 : o->runs;
        bool gated = o->run_gate && sj == 0;
        /* every timed run on its own clock (the gate, when set, outside it) */
        if (runs > 0 && !(run_ms = malloc((size_t)runs * sizeof *run_ms))) { snprintf(serr, sizeof serr, "out of memory"); goto sig_done; }
        for (int r = 0; r < runs; r++) {
            if (gated) o->run_gate(o->run_gate_ctx, r);
            t1 = now_ms();
            api.LiteRtRunCompiledModel(cm, sj, nin, ib, nout, ob);
            run_ms[n_run_ms++] = now_ms() - t1;
        }
        if (gated) o->run_gate(o->run_gate_ctx, runs);
        if (n_run_ms) {
            double sum = 0;
            for (int r = 0; r < n_run_ms; r++) sum += run_ms[r];
            avg = sum / n_run_ms;
            double *sorted = malloc((size_t)n_run_ms * sizeof *sorted);
            if (sorted) {
                memcpy(sorted, run_ms, (size_t)n_run_ms * sizeof *sorted);
                median = median_of(sorted, n_run_ms);
                free(sorted);
            }
        }
        for (size_t k = 0; k < nout; k++) {
            const char *name = "";
            lrt_handle t = NULL;
            lrt_ranked_type ty;
            memset(&ty, 0, sizeof ty);
            api.LiteRtGetSignatureOutputName(sig, k, &name);
            api.LiteRtGetSignatureOutputTensorByIndex(sig, k, &t);
            api.LiteRtGetRankedTensorType(t, &ty);
            if (have_outl) ty.layout = outl[k];
            int rank = (int)(ty.layout.rank_bits & 0x7F);
            if (rank > LRT_MAX_RANK) rank = LRT_MAX_RANK;
            int64_t shape[LRT_MAX_RANK];
            size_t n = 1;
            for (int d = 0; d < rank; d++) { shape[d] = ty.layout.dims[d] < 0 ? 1 : ty.layout.dims[d]; n *= (size_t)shape[d]; }
            int gct = out_gct[k];
            int isz = gct >= 0 ? gc_npy_itemsize(gct) : 0;
            size_t packed = 0;
            void *host = NULL;
            api.LiteRtGetTensorBufferPackedSize(ob[k], &packed);
            if (isz <= 0) { snprintf(serr, sizeof serr, "output '%s': element type %d not supported here", name, ty.element_type); goto sig_done; }
            if (packed != n * (size_t)isz) {           /* shape unknown statically: flat */
                n = packed / (size_t)isz; rank = 1; shape[0] = (int64_t)n;
            }
            if (api.LiteRtLockTensorBuffer(ob[k], &host, LRT_LOCK_READ) || !host) {
                snprintf(serr, sizeof serr, "output '%s': cannot lock buffer", name); goto sig_done;
            }
            char fname[64], werr[512];
            if (sj == 0) snprintf(fname, sizeof fname, "output_%zu.npy", k);
            else snprintf(fname, sizeof fname, "s%zu_output_%zu.npy", sj, k);
            snprintf(path, sizeof path, "%s/%s", dir, fname);
            gc_status ws = gc_npy_write(path, gct, rank, shape, host, werr, sizeof werr);
            api.LiteRtUnlockTensorBuffer(ob[k]);
            if (ws != GC_OK) { snprintf(serr, sizeof serr, "%s", werr); goto sig_done; }
            gc_str_puts(&oj, k ? "," : "");
            gc_str_printf(&oj, "{\"index\":%zu,\"name\":", k);
            gc_str_json(&oj, name);
            gc_str_printf(&oj, ",\"dtype\":\"%s\",\"shape\":", gc_npy_dtype_name(gct));
            json_shape(&oj, shape, rank);
            gc_str_printf(&oj, ",\"file\":\"%s/%s\",\"n\":%zu}", job->mode, fname, n);
        }
sig_done:
        for (size_t k = 0; ib && k < nin; k++) if (ib[k]) api.LiteRtDestroyTensorBuffer(ib[k]);
        for (size_t k = 0; ob && k < nout; k++) if (ob[k]) api.LiteRtDestroyTensorBuffer(ob[k]);
        free(ib); free(ob);
        gc_str_puts(&sigs, sj ? "," : "");
        gc_str_printf(&sigs, "{\"index\":%zu,\"key\":", sj);
        gc_str_json(&sigs, key);
        gc_str_printf(&sigs, ",\"ok\":%s,\"inputs\":[%s],\"outputs\":[%s]", serr[0] ? "false" : "true",
                      ij.s ? ij.s : "", oj.s ? oj.s : "");
        if (first >= 0) gc_str_printf(&sigs, ",\"first_ms\":%.3f", first); else gc_str_puts(&sigs, ",\"first_ms\":null");
        if (avg >= 0) gc_str_printf(&sigs, ",\"avg_ms\":%.4f", avg); else gc_str_puts(&sigs, ",\"avg_ms\":null");
        if (median >= 0) gc_str_printf(&sigs, ",\"median_ms\":%.4f", median); else gc_str_puts(&sigs, ",\"median_ms\":null");
        gc_str_puts(&sigs, ",\"run_ms\":[");
        for (int r = 0; r < n_run_ms; r++) gc_str_printf(&sigs, "%s%.4f", r ? "," : "", run_ms[r]);
        gc_str_putc(&sigs, ']');
        free(run_ms);
        gc_str_puts(&sigs, ",\"error\":");
        if (serr[0]) gc_str_json(&sigs, serr); else gc_str_puts(&sigs, "null");
        gc_str_putc(&sigs, '}');
        gc_str_free(&ij); gc_str_free(&oj);
        if (serr[0] && !err[0]) { snprintf(err, sizeof err, "%s", serr); status = "error"; error_class = "run_failed"; }
    }

out:
    if (cm) api.LiteRtDestroyCompiledModel(cm);
    if (opts) api.LiteRtDestroyOptions(opts);
    if (model) api.LiteRtDestroyModel(model);
    if (env) api.LiteRtDestroyEnvironment(env);
    fflush(stdout); fflush(stderr);
    char *log = slurp(logp, 1 << 20);
    /* Limits of the LiteRT runtime itself (not GPU verdicts), as runner.mjs names them. */
    const char *limit = NULL;
    char limbuf[256];
    if (log && strcmp(status, "ok") && strcmp(status, "unavailable")) {
        const char *u = strstr(log, "unresolved custom op: ");
        if (u) {
            u += strlen("unresolved custom op: ");
            int len = (int)strcspn(u, ". \n");
            snprintf(limbuf, sizeof limbuf, "custom op %.*s is not registered in LiteRT", len > 100 ? 100 : len, u);
            limit = limbuf;
        } else if (strstr(log, "Variable tensors not yet supported")) limit = "LiteRT cannot load models with variable tensors";
        if (limit) { status = "runtime_limit"; error_class = "runtime_limit"; }
    }

    gc_str_printf(&j, "{\"mode\":\"%s\",\"accelerator\":\"%s\",\"precision\":", job->mode, job->gpu ? "gpu" : "cpu");
    if (job->gpu) gc_str_printf(&j, "\"%s\"", job->precision == GC_LRT_FP16 ? "fp16" : "fp32"); else gc_str_puts(&j, "null");
    gc_str_printf(&j, ",\"compile\":{\"ok\":%s,\"ms\":", compile_ok ? "true" : "false");
    if (compile_ms >= 0) gc_str_printf(&j, "%.1f", compile_ms); else gc_str_puts(&j, "null");
    gc_str_puts(&j, ",\"error\":");
    if (!compile_ok && err[0]) gc_str_json(&j, err); else gc_str_puts(&j, "null");
    gc_str_printf(&j, "},\"status\":\"%s\",\"error\":", status);
    if (err[0]) gc_str_json(&j, err); else gc_str_puts(&j, "null");
    gc_str_puts(&j, ",\"error_class\":");
    if (error_class) gc_str_json(&j, error_class); else gc_str_puts(&j, "null");
    if (limit) { gc_str_puts(&j, ",\"limit\":"); gc_str_json(&j, limit); }
    gc_str_printf(&j, ",\"executed_on\":\"%s\",\"fully_accelerated\":%s", job->gpu ? "gpu" : "cpu",
                  fully < 0 ? "null" : fully ? "true" : "false");
    struct rusage ru;                       /* this child's high-water mark: load, compile, runs */
    if (!getrusage(RUSAGE_SELF, &ru)) gc_str_printf(&j, ",\"peak_rss_kb\":%ld", (long)ru.ru_maxrss);
    gc_str_printf(&j, ",\"signatures\":[%s]", sigs.s ? sigs.s : "");
    parse_log(log ? log : "", &j);
    /* The whole log (bounded) for the report's "log" view. */
    gc_str_puts(&j, ",\"log\":[");
    int nl = 0;
    for (char *q = log, *e; q && *q && nl < 400; q = e ? e + 1 : NULL) {
        e = strchr(q, '\n');
        if (e) *e = 0;
        if (*q) { gc_str_puts(&j, nl++ ? "," : ""); q[strnlen(q, 500)] = 0; gc_str_json(&j, q); }
        if (!e) break;
    }
    gc_str_puts(&j, "]}\n");
    free(log);
    snprintf(path, sizeof path, "%s/mode.json", dir);
    const void *chunks[1] = { j.s };
    size_t lens[1] = { j.n };
    char werr[256];
    gc_write_atomic(path, chunks, lens, 1, werr, sizeof werr);
    gc_str_free(&j);
    gc_str_free(&sigs);
    return 0;
}

/* ---- the parent ----------------------------------------------------------------------- */

/* Fork, run fn in the child, wait at most `seconds`. Returns the wait status, or -1 on
 * fork failure; *timed_out when the child was killed for running over. */
static int run_forked(int (*fn)(const mode_job *), const mode_job *job, double seconds, bool *timed_out) {
    *timed_out = false;
    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int rc = fn(job);
        _exit(rc);
    }
    double deadline = gc_now() + seconds;
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) return st;
        if (w < 0 && errno != EINTR) return -1;
        if (gc_now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            *timed_out = true;
            return st;
        }
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
}

static int probe_child(const mode_job *job) {
    (void)job;
    lrt_api api;
    char why[1024];
    if (!lrt_load(&api, false, why, sizeof why)) {
        fprintf(stdout, "%s\n", why);
        return 1;
    }
    return 0;
}

gc_status gc_lrt_native_probe(char *why, size_t whylen) {
    char lib[4096];
    if (!native_lib_path(lib, sizeof lib, why, whylen)) return GC_ERR_UNSUPPORTED;
    /* Load in a child: a broken library must not take the caller down, and the parent
     * stays free of LiteRT's threads and globals. Its one line of output is the reason. */
    int pfd[2];
    if (pipe(pfd)) { gc_errf(why, whylen, "pipe: %s", strerror(errno)); return GC_ERR_RUNTIME; }
    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); gc_errf(why, whylen, "fork: %s", strerror(errno)); return GC_ERR_RUNTIME; }
    if (pid == 0) {
        close(pfd[0]);
        dup2(pfd[1], 1);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) dup2(nul, 2);
        _exit(probe_child(NULL));
    }
    close(pfd[1]);
    char buf[1024];
    size_t n = 0;
    ssize_t k;
    while (n < sizeof buf - 1 && (k = read(pfd[0], buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)k;
    buf[n] = 0;
    close(pfd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return GC_OK;
    buf[strcspn(buf, "\n")] = 0;
    if (buf[0]) gc_errf(why, whylen, "%s", buf);
    else if (WIFSIGNALED(st)) gc_errf(why, whylen, "loading %s killed the process (signal %d)", lib, WTERMSIG(st));
    else gc_errf(why, whylen, "loading %s failed", lib);
    return GC_ERR_UNSUPPORTED;
}

static void log_tail_json(gc_str *j, const char *logp) {
    char *log = slurp(logp, 1 << 20);
    const char *lines[40];
    int n = 0;
    for (char *q = log, *e; q && *q; q = e ? e + 1 : NULL) {
        e = strchr(q, '\n');
        if (e) *e = 0;
        if (*q) { if (n == 40) { memmove(lines, lines + 1, sizeof lines - sizeof lines[0]); n--; } lines[n++] = q; }
        if (!e) break;
    }
    gc_str_puts(j, ",\"log\":[");
    for (int i = 0; i < n; i++) { gc_str_puts(j, i ? "," : ""); gc_str_json(j, lines[i]); }
    gc_str_putc(j, ']');
    free(log);
}

gc_status gc_lrt_run_native(const gc_lrt_opts *o, const char *outdir, char *err, size_t errlen) {
    char why[1024];
    if (gc_lrt_native_probe(why, sizeof why) != GC_OK) {
        gc_errf(err, errlen, "native runtime unavailable: %s", why);
        return GC_ERR_UNSUPPORTED;
    }
    if (mkdir(outdir, 0755) && errno != EEXIST) { gc_errf(err, errlen, "%s: %s", outdir, strerror(errno)); return GC_ERR_IO; }
    struct stat st;
    if (stat(o->model, &st)) { gc_errf(err, errlen, "%s: %s", o->model, strerror(errno)); return GC_ERR_USAGE; }

    const char *modes[3]; int precs[3]; int nm = 0;
    if (o->accelerators & GC_LRT_CPU) { modes[nm] = "cpu"; precs[nm++] = 0; }
    if (o->accelerators & GC_LRT_GPU) {
        if (o->precisions & GC_LRT_FP32) { modes[nm] = "gpu-fp32"; precs[nm++] = GC_LRT_FP32; }
        if (o->precisions & GC_LRT_FP16) { modes[nm] = "gpu-fp16"; precs[nm++] = GC_LRT_FP16; }
    }
    double limit = o->timeout_s > 0 ? o->timeout_s : 120;
    gc_str j = {0};
    char absmodel[4096];
    if (!realpath(o->model, absmodel)) snprintf(absmodel, sizeof absmodel, "%s", o->model);
    gc_str_printf(&j, "{\"schema\":1,\"runtime\":\"native\",\"model\":");
    gc_str_json(&j, absmodel);
    gc_str_printf(&j, ",\"model_bytes\":%lld,\"inputs_from\":", (long long)st.st_size);
    if (o->n_inputs) gc_str_puts(&j, "\"files\"");
    else if (o->input_kind == GC_LRT_IN_RANDOM) gc_str_printf(&j, "\"random %llu\"", (unsigned long long)o->seed);
    else gc_str_puts(&j, "\"pattern sin\"");
    gc_str_puts(&j, ",\"versions\":{\"litert_native\":");
    gc_str_json(&j, lib_version());
    gc_str_puts(&j, ",\"library\":\"libLiteRt.so (ai-edge-litert wheel)\"},\"gpu\":null,\"modes\":[");
    for (int m = 0; m < nm; m++) {
        char dir[4200], path[4300];
        snprintf(dir, sizeof dir, "%s/%s", outdir, modes[m]);
        if (mkdir(dir, 0755) && errno != EEXIST) { gc_str_free(&j); gc_errf(err, errlen, "%s: %s", dir, strerror(errno)); return GC_ERR_IO; }
        snprintf(path, sizeof path, "%s/mode.json", dir);
        unlink(path);
        mode_job job = { o, outdir, modes[m], precs[m] != 0, precs[m] };
        bool to = false;
        double t0 = gc_now();
        int wst = run_forked(native_child, &job, limit, &to);
        double wall = (gc_now() - t0) * 1000.0;
        char *rec = slurp(path, 32u << 20);
        gc_str_puts(&j, m ? "," : "");
        if (rec && rec[0] == '{') {
            size_t n = strlen(rec);
            while (n && (rec[n - 1] == '\n' || rec[n - 1] == '}')) { if (rec[n - 1] == '}') { n--; break; } n--; }
            rec[n] = 0;
            gc_str_puts(&j, rec);
            gc_str_printf(&j, ",\"wall_ms\":%.0f}", wall);
        } else {
            char what[256];
            if (to) snprintf(what, sizeof what, "no result within %.0f s (killed)", limit);
            else if (wst == -1) snprintf(what, sizeof what, "fork failed");
            else if (WIFSIGNALED(wst)) snprintf(what, sizeof what, "native runtime crashed (signal %d: %s)", WTERMSIG(wst), strsignal(WTERMSIG(wst)));
            else snprintf(what, sizeof what, "native runtime exited with status %d and no result", WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
            gc_str_printf(&j, "{\"mode\":\"%s\",\"accelerator\":\"%s\",\"precision\":", modes[m], precs[m] ? "gpu" : "cpu");
            if (precs[m]) gc_str_printf(&j, "\"%s\"", precs[m] == GC_LRT_FP16 ? "fp16" : "fp32"); else gc_str_puts(&j, "null");
            gc_str_printf(&j, ",\"compile\":{\"ok\":false,\"ms\":null,\"error\":null},\"status\":\"%s\",\"error_class\":\"%s\",\"error\":",
                          to ? "timeout" : "crashed", to ? "timeout" : "crashed");
            gc_str_json(&j, what);
            snprintf(path, sizeof path, "%s/native.log", dir);
            log_tail_json(&j, path);
            /* The residency line may be in the log even when the run crashed. */
            char *log = slurp(path, 1 << 20);
            gc_str tmp = {0};
            parse_log(log ? log : "", &tmp);
            free(log);
            if (tmp.s) gc_str_puts(&j, tmp.s);
            gc_str_free(&tmp);
            gc_str_printf(&j, ",\"signatures\":[],\"wall_ms\":%.0f}", wall);
        }
        free(rec);
    }
    gc_str_puts(&j, "]}\n");
    if (j.oom) { gc_str_free(&j); gc_errf(err, errlen, "out of memory"); return GC_ERR_NOMEM; }
    char path[4200];
    snprintf(path, sizeof path, "%s/result.json", outdir);
    const void *chunks[1] = { j.s };
    size_t lens[1] = { j.n };
    gc_status s = gc_write_atomic(path, chunks, lens, 1, err, errlen);
    gc_str_free(&j);
    return s;
}
