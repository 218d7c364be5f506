/* litert.h — gpuclean's bridge to the real LiteRT runtime, two ways:
 *
 *   js      LiteRT.js (@litertjs/core, LiteRT built to WebAssembly) under Node.js, run by
 *           runtime/litert/runner.mjs: CPU accelerator (XNNPACK) everywhere, GPU
 *           accelerator (ML Drift over WebGPU, through Dawn) where a Vulkan GPU exists.
 *   native  libLiteRt.so from the ai-edge-litert wheel (its CompiledModel C API), loaded
 *           with dlopen by litert_native.c; GPU through libLiteRtWebGpuAccelerator.so.
 *
 * Both write the same thing into their output folder: result.json (schema 1: versions,
 * the GPU adapter, and per mode — "cpu", "gpu-fp32", "gpu-fp16" — the compile outcome,
 * the delegate's residency line and rejected ops, every signature's inputs and outputs
 * as .npy files). gc_lrt_check runs what the options ask for into OUT/js and OUT/native,
 * compares GPU outputs with CPU outputs and native CPU with LiteRT.js CPU, and reaches
 * one verdict. Every mode runs in a child process under a time limit: a crash, an abort
 * or a hang inside a runtime costs that mode, never the caller.
 *
 * Locations: the runner is found at $GPUCLEAN_HOME/runtime/litert/runner.mjs, else
 * relative to the running executable (build/gpuclean → ../runtime/litert, or
 * PREFIX/share/gpuclean/runtime/litert); node is $GPUCLEAN_NODE or `node` on PATH.
 * libLiteRt.so is $GPUCLEAN_LITERT_LIB, else <home>/build/litert-wheel/lib/libLiteRt.so.
 */
#ifndef GC_RUNTIME_LITERT_H
#define GC_RUNTIME_LITERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/common.h"

enum { GC_LRT_CPU = 1, GC_LRT_GPU = 2 };               /* accelerators (bit set) */
enum { GC_LRT_FP32 = 1, GC_LRT_FP16 = 2 };             /* GPU precisions (bit set) */
enum { GC_LRT_JS = 1, GC_LRT_NATIVE = 2 };             /* runtimes (bit set) */
enum { GC_LRT_IN_PATTERN = 0, GC_LRT_IN_RANDOM = 1 };  /* generated inputs */

typedef struct { const char *key, *file; } gc_lrt_input;   /* NAME_OR_INDEX=file.npy */

typedef struct {
    const char *model;
    int accelerators, precisions, runtimes;
    int input_kind;                /* GC_LRT_IN_* for inputs no file is given for */
    uint64_t seed;                 /* GC_LRT_IN_RANDOM */
    const gc_lrt_input *inputs; int n_inputs;
    const char *inputs_dir;        /* native only: s<j>_input_<k>.npy found here win */
    double timeout_s;              /* per mode; <= 0: 120 */
    int runs;                      /* timed runs after the first; < 0: 3 */
    int threads;                   /* native CPU only: XNNPACK threads ("num_threads" of the
                                      CPU options); 0: the runtime's default */
    /* Native only, for benchmarks that interleave runtimes: called in the runtime's child
     * process before timed run r (0..runs-1) of signature 0 and once more with r == runs
     * after the last; a run's clock starts after the gate returns. NULL: back to back. */
    void (*run_gate)(void *ctx, int run);
    void *run_gate_ctx;
} gc_lrt_opts;

/* ---- one runtime's result.json, loaded -------------------------------------------- */

typedef struct {
    const char *name, *dtype, *file;   /* file relative to the result folder */
    int rank; int64_t shape[8];
    uint64_t n;
} gc_lrt_tensor;

typedef struct {
    int index; const char *key;
    bool ok; const char *error, *error_class;
    gc_lrt_tensor *inputs, *outputs; int n_inputs, n_outputs;
    double first_ms, avg_ms;           /* < 0: unknown */
    double median_ms;                  /* median of the timed runs (native); < 0: unknown */
} gc_lrt_sig;

typedef struct { const char *op, *reason; } gc_lrt_unsup;

typedef struct {
    const char *mode;                  /* "cpu", "gpu-fp32", "gpu-fp16" */
    bool gpu;                          /* accelerator is the GPU */
    const char *status;                /* ok | error | runtime_limit | unavailable | timeout | crashed */
    const char *error, *error_class, *limit;
    bool compile_ok; double compile_ms;
    bool has_residency; int gpu_ops, cpu_ops; const char *residency_line;
    gc_lrt_unsup *unsup; int n_unsup;
    bool fallback_all, delegate_init_failed;
    int fully_accelerated;             /* -1 unknown, 0, 1 */
    const char *executed_on;           /* "gpu" / "cpu" / NULL */
    const char *failed_op, *failed_stage;
    const char **log_errors; int n_log_errors;
    gc_lrt_sig *sigs; int n_sigs;
    int64_t peak_rss_kb;               /* native: the mode's child process's peak RSS
                                          (getrusage ru_maxrss); < 0: unknown */
} gc_lrt_mode;

typedef struct {
    const char *dir;                   /* folder holding result.json */
    const char *runtime;               /* "js" / "native" */
    const char *version;               /* LiteRT.js or libLiteRt version */
    const char *versions_text;         /* one line naming every version known */
    bool gpu_probed, gpu_available;
    const char *gpu_reason, *gpu_adapter;
    int model_nodes;                   /* from the native model reader; -1 unknown */
    gc_lrt_mode *modes; int n_modes;
    gc_arena arena;
} gc_lrt_result;

gc_status gc_lrt_result_load(const char *dir, gc_lrt_result *r, char *err, size_t errlen);
void gc_lrt_result_free(gc_lrt_result *r);
const gc_lrt_mode *gc_lrt_find_mode(const gc_lrt_result *r, const char *mode);

/* ---- running ------------------------------------------------------------------------ */

/* Run the LiteRT.js runner into outdir. GC_ERR_UNSUPPORTED: not installed ("LiteRT.js
 * runtime not installed: run make test / tools/setup.sh"); GC_ERR_USAGE: the runner
 * refused the input (its one-line reason); GC_ERR_RUNTIME: it failed or timed out. */
gc_status gc_lrt_run_js(const gc_lrt_opts *o, const char *outdir, char *err, size_t errlen);
/* Run the native runtime into outdir (same files). GC_ERR_UNSUPPORTED: "native runtime
 * unavailable: <why>". */
gc_status gc_lrt_run_native(const gc_lrt_opts *o, const char *outdir, char *err, size_t errlen);
/* Can libLiteRt.so be found and loaded (in a child process)? GC_OK or the reason. */
gc_status gc_lrt_native_probe(char *why, size_t whylen);
/* Path of the runtime home (repo root or share dir) into buf; false if not found. */
bool gc_lrt_home(char *buf, size_t n);

/* ---- comparing outputs -------------------------------------------------------------- */

typedef struct {
    int sig_index, index;
    char sig[96], name[160], dtype[16];
    uint64_t n;
    double max_abs, ref_max_abs, corr;  /* corr valid only if has_corr */
    bool has_corr, identical, pass;
    uint64_t nan_mismatch;
    char problem[200];                  /* non-empty: could not compare (why) */
} gc_lrt_diff;

typedef struct { double atol, rtol, min_corr; } gc_lrt_tol;
gc_lrt_tol gc_lrt_tol_for(const char *mode);   /* gpu-fp32, gpu-fp16, cpu (runtime vs runtime) */

/* Compare .npy file fb against reference file fa into d (max_abs, corr, pass, ...; the
 * sig/name fields are left as they are). */
void gc_lrt_compare_files(const char *fa, const char *fb, gc_lrt_tol tol, gc_lrt_diff *d);

/* Compare mode b of rb against reference mode a of ra, output by output. */
gc_status gc_lrt_compare(const gc_lrt_result *ra, const gc_lrt_mode *a,
                         const gc_lrt_result *rb, const gc_lrt_mode *b, gc_lrt_tol tol,
                         gc_lrt_diff **out, int *n, char *err, size_t errlen);

/* ---- the whole check ------------------------------------------------------------------ */

typedef enum {
    GC_LRT_V_CLEAN,            /* GPU-clean */
    GC_LRT_V_FALLBACK,         /* CPU fallback: N/M nodes on GPU */
    GC_LRT_V_COMPILE_FAILED,   /* GPU compile failed: <op>: <reason> */
    GC_LRT_V_NO_GPU,           /* no GPU adapter: CPU only */
    GC_LRT_V_MISCOMPUTE,       /* all nodes on the GPU, outputs out of tolerance */
    GC_LRT_V_NOT_RUN,          /* the GPU claims to have run, output identical to CPU */
    GC_LRT_V_RUNTIME_LIMIT,    /* the runtime itself cannot run this model */
    GC_LRT_V_CPU_FAILED,       /* LiteRT cannot run the model even on the CPU */
    GC_LRT_V_CPU_ONLY          /* --accelerator cpu: no GPU verdict asked for */
} gc_lrt_verdict;

typedef struct {
    gc_lrt_verdict kind;
    char text[512];
    const char *runtime;       /* which runtime's GPU run decided it */
    const char *mode;
} gc_lrt_decision;

typedef struct {
    const char *runtime, *ref_mode, *mode;   /* runtime/mode vs runtime/ref_mode */
    const char *ref_runtime;
    gc_lrt_diff *d; int n;
    char problem[200];
} gc_lrt_cmpset;

typedef struct {
    const char *model;
    char outdir[4096];
    gc_lrt_opts opts;
    bool have[3]; gc_lrt_result res[3];      /* indexed by GC_LRT_JS / GC_LRT_NATIVE */
    char unavailable[3][512];                /* why a requested runtime did not run */
    gc_lrt_cmpset *cmps; int n_cmps;         /* GPU vs CPU per runtime, native vs js CPU */
    gc_lrt_decision verdict;                 /* the headline */
    gc_lrt_decision per_runtime[3];
    bool per_runtime_set[3];
    bool cpu_agree, cpu_agree_known;
    char **warnings; int n_warnings;
    int exit_code;                           /* set by gc_lrt_report_exit; -1 before */
} gc_lrt_report;

/* Run everything `o` asks for into outdir (created), compare, decide. GC_ERR_USAGE:
 * bad input (err: one line naming the file); GC_ERR_UNSUPPORTED: no requested runtime
 * is installed. */
gc_status gc_lrt_check(const gc_lrt_opts *o, const char *outdir, gc_lrt_report *rep,
                       char *err, size_t errlen);
/* The comparisons, per-runtime verdicts, headline and warnings of a report whose results
 * (rep->res[rt], rep->have[rt], rep->opts, rep->outdir) are already loaded: the second half
 * of gc_lrt_check, public so that tests can assess results written by hand. */
gc_status gc_lrt_assess(gc_lrt_report *rep);
void gc_lrt_report_text(const gc_lrt_report *rep, gc_str *out);
void gc_lrt_report_json(const gc_lrt_report *rep, gc_str *out);
/* 0 GPU-clean within tolerance (or --accelerator cpu and the CPU ran clean), else 1;
 * no_gpu_ok: "no GPU adapter" with a clean CPU run is 0 too. */
int gc_lrt_report_exit(gc_lrt_report *rep, bool no_gpu_ok);
void gc_lrt_report_free(gc_lrt_report *rep);

#endif
