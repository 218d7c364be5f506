/* gpu_bisect.h — the first op whose output the real GPU gets wrong ("bisect by
 * intermediate", done with prefix models on the device).
 *
 * A probe of tensor T is the prefix model that ends at T: the model truncated at T
 * (gc_model_truncate_at, as `gpuclean edit --truncate-at T`), so T is its only output
 * and no op of the prefix reads T (an output that is also consumed inside the graph is
 * what trips LiteRT#8599; a probe never has one). Each probe is compiled and run by one
 * LiteRT runtime (native libLiteRt or LiteRT.js) on the GPU and on the CPU with the same
 * inputs, and T is compared GPU against CPU:
 *
 *     diverges  <=>  NaN/Inf on one side only, or max|gpu - cpu| > atol + rtol * max|cpu|,
 *                    or corr(gpu, cpu) < min_corr while max|gpu - cpu| > atol
 *     fp32: atol 1e-4, rtol 1e-3, min_corr 0.9999; fp16: 1e-3, 2e-2, 0.999
 *     (gc_lrt_tol_for); integer tensors: atol at least 1 (one step).
 *
 * The search (gc_gb_search, pure: it only sees a probe callback) runs over "points": the
 * float32 tensors that ops of the entry subgraph produce (and quantized int8/uint8/int16
 * activations, compared in steps), in topological (execution) order. First the full model runs (its real outputs): no divergent output, no search.
 * Otherwise the earliest divergent output is the anchor "hi", and the search keeps
 *     lo = the last point known within tolerance before hi (-1: the entry inputs, the
 *          same bytes on both sides),
 *     candidates = the points in (lo, hi) that the anchor depends on (its ancestors: a
 *          point it does not read, directly or through other ops, cannot be why it
 *          diverges),
 * and probes the middle candidate: within tolerance, lo moves up to it; divergent, it is
 * the new hi. Either way at most half the candidates remain, so a phase costs at most
 * ceil(log2(candidates + 1)) probes. With no candidate left, the points producing hi's
 * float inputs are probed (confirming step; they lie at or before lo). All within
 * tolerance: hi is the first divergent op (the first in execution order among the
 * anchor's ancestors, when divergence is monotone along that order). One divergent: the
 * predicate is not monotone (divergence flows along edges, branches run side by side),
 * and the search goes on with that input as the anchor and hi. hi only decreases, so the
 * search ends, with a point that diverges while every float input it reads does not. For
 * a predicate monotone along the order that costs ceil(log2 n) probes plus one per input
 * of the found op not probed already (usually 0 or 1), plus the full model.
 *
 * A probe that cannot be judged on the GPU — the runtime ran the whole prefix on the CPU,
 * GPU compilation failed, the CPU itself failed — counts as within tolerance and says why
 * ("probe ran on CPU"). Partial residency is judged normally (and reported).
 */
#ifndef GC_GPU_BISECT_H
#define GC_GPU_BISECT_H
#include <stdbool.h>
#include <stdint.h>
#include "common/common.h"
#include "runtime/litert.h"

/* ---- the search (gpu_bisect_search.c) --------------------------------------------------- */

typedef enum {
    GC_GB_UNKNOWN = 0,      /* not probed yet (or: the probe failed hard) */
    GC_GB_OK = 1,           /* within tolerance */
    GC_GB_DIVERGES = 2,     /* beyond tolerance */
    GC_GB_SKIP = 3          /* not judged on the GPU (ran on the CPU, ...): as OK, noted */
} gc_gb_verdict;
const char *gc_gb_verdict_name(gc_gb_verdict v);   /* "unknown", "ok", "diverges", "skip" */

/* Points 0..n-1 in topological order. in_pts[in_start[i] .. in_start[i+1]) are the points
 * that produce point i's float inputs (the confirming step); dep_pts[dep_start[i] ..
 * dep_start[i+1]) every point that i reads directly or through ops that have no point
 * (integer shape arithmetic, ...): a superset of in_pts. All entries < i; duplicates
 * allowed. dep_start NULL: i may depend on every earlier point. */
typedef struct {
    int32_t n;
    const int32_t *in_start;   /* n + 1 offsets */
    const int32_t *in_pts;
    const int32_t *dep_start;  /* n + 1 offsets, or NULL */
    const int32_t *dep_pts;
} gc_gb_graph;

/* Probe point i: GC_GB_OK / DIVERGES / SKIP, or GC_GB_UNKNOWN to stop the search (error). */
typedef gc_gb_verdict (*gc_gb_probe_fn)(int32_t point, void *user);

typedef struct {
    int32_t first;          /* the first divergent point; -1: hi did not diverge, or error */
    int32_t n_probes;       /* probe calls made */
    int32_t n_restarts;     /* confirming steps that found a divergent input (not monotone) */
    bool error;             /* a probe returned GC_GB_UNKNOWN */
} gc_gb_search_result;

/* verdict[g->n] is in/out: entries already set are known (never probed again), e.g. the
 * anchor from the full model; the search fills what it probes. hi is taken as divergent
 * when verdict[hi] is DIVERGES, else probed first (not divergent: first = -1). */
void gc_gb_search(const gc_gb_graph *g, int32_t hi, gc_gb_probe_fn probe, void *user,
                  uint8_t *verdict, gc_gb_search_result *r);

/* ---- the GPU bisection (gpu_bisect.c) -------------------------------------------------- */

/* What the "GPU" side of a probe is. GC_GB_GPU is the real thing; the other is a test
 * seam (`--gpu-side interp`, documented for testing only): the reference interpreter at
 * the requested precision stands in for the GPU, against the runtime's CPU, so the whole
 * verb runs on a machine without a GPU. */
typedef enum { GC_GB_SIDE_GPU = 0, GC_GB_SIDE_INTERP = 1 } gc_gb_side;

typedef struct {
    const char *model;             /* .tflite path (read again for every probe) */
    const char *workdir;           /* an existing private folder; probes live below it and
                                      are removed as soon as they are judged */
    int runtime;                   /* GC_LRT_NATIVE or GC_LRT_JS */
    int precision;                 /* GC_LRT_FP32 or GC_LRT_FP16 */
    gc_gb_side side;
    int input_kind; uint64_t seed; /* GC_LRT_IN_PATTERN / GC_LRT_IN_RANDOM */
    const gc_lrt_input *inputs; int n_inputs;   /* NAME_OR_INDEX=file.npy */
    double timeout_s;              /* per compile+run mode; <= 0: 120 */
    double rtol;                   /* > 0: overrides the precision's rtol */
    /* progress (may be NULL): probe number `probe` (1-based) starts; what = "full model"
     * or "op 57 CONV_2D -> 'name'" */
    void (*progress)(int probe, const char *what, void *user);
    void *progress_user;
} gc_gb_opts;

/* One point: a float32 or quantized tensor an op produces, or another output of the entry. */
typedef struct {
    int32_t op;                    /* op index in the subgraph (file order) */
    int32_t pos;                   /* the op's position in the execution order */
    const char *op_name;           /* CONV_2D, ... */
    int32_t tensor;
    const char *tensor_name;
    const char *dtype;             /* "FLOAT32", "INT32", ... */
    int rank; int32_t shape[8];
    bool model_output;             /* an output of the entry */
    bool consumed;                 /* some op of the subgraph reads it */
} gc_gb_point;

/* One GPU-vs-CPU comparison of one tensor. */
typedef struct {
    bool have;                     /* false: nothing compared (see the probe's status) */
    char name[160];                /* the output's name as the runtime reports it */
    int32_t tensor;                /* tensor index in the original subgraph, -1 unknown */
    double max_abs, ref_max, rel;  /* max|gpu-cpu|, max|cpu|, max_abs / max(ref_max, 1e-30) */
    double limit;                  /* atol + rtol * ref_max (atol >= 1 for integers) */
    double corr; bool has_corr;
    uint64_t nan_mismatch, n;
    bool identical, pass;
    char problem[200];             /* could not compare: why */
} gc_gb_cmp;

typedef enum { GC_GB_T_FULL = 0, GC_GB_T_POINT = 1 } gc_gb_target;

/* One prefix compile (GPU and CPU run of one model). */
typedef struct {
    int index;                     /* 1-based, in the order made */
    gc_gb_target target;           /* the full model, or the prefix ending at a point */
    int32_t point;                 /* GC_GB_T_POINT: the point; else -1 */
    gc_gb_verdict verdict;
    char status[32];               /* "ok", "diverges", "ran on CPU", "GPU compile failed",
                                      "GPU run failed", "CPU failed", "not compared" */
    char note[320];                /* why, residency, what the runtime said */
    int gpu_ops, cpu_ops;          /* residency of the GPU run; -1 unknown */
    gc_gb_cmp cmp;                 /* the probe tensor (full model: the worst output) */
    gc_gb_cmp *outs; int n_outs;   /* every output compared (the full model: the entry's) */
    double seconds;
} gc_gb_probe;

/* One float input of the first divergent op, and what is known of it. */
typedef enum {
    GC_GB_IN_PROBED = 0,           /* produced by a point that was probed */
    GC_GB_IN_GRAPH_INPUT,          /* an entry input: the same bytes on both sides */
    GC_GB_IN_CONSTANT,             /* a weight */
    GC_GB_IN_NOT_PROBED,           /* from an op but not a point (int32 indices, bool, ...) */
    GC_GB_IN_NONE                  /* optional input absent (-1) */
} gc_gb_in_kind;
const char *gc_gb_in_kind_name(gc_gb_in_kind k);

typedef struct {
    int slot;                      /* input slot of the op */
    int32_t tensor;
    const char *tensor_name, *dtype;
    gc_gb_in_kind kind;
    int32_t point;                 /* GC_GB_IN_PROBED: the producer's point */
    int32_t op; const char *op_name;   /* producer (-1: none) */
    gc_gb_verdict verdict;         /* GC_GB_IN_PROBED: the producer's verdict */
    int probe;                     /* index into probes[] of the measurement; -1 none */
    gc_gb_cmp cmp;                 /* the measurement (cmp.have false: none) */
} gc_gb_input;

typedef enum {
    GC_GB_R_CLEAN = 0,             /* the full model is within tolerance: exit 0 */
    GC_GB_R_FOUND,                 /* the first divergent op: exit 1 */
    GC_GB_R_NOT_ISOLATED,          /* the full model diverges, no prefix does: exit 1 */
    GC_GB_R_NOT_ON_GPU             /* the full model does not run on the GPU: exit 0 */
} gc_gb_kind;
const char *gc_gb_kind_name(gc_gb_kind k);  /* "clean", "divergent_op", "not_isolated", "not_on_gpu" */

typedef struct {
    const char *model;
    const char *runtime;           /* "native" / "js" */
    const char *runtime_version;   /* "2.3.0", ... */
    const char *precision;         /* "fp32" / "fp16" */
    const char *gpu_side;          /* "gpu", or "interpreter fp16 (test seam)" */
    char inputs_desc[64];          /* "pattern sin", "random 7", "files" */
    gc_lrt_tol tol;
    int32_t subgraph, n_ops;
    int32_t n_points; gc_gb_point *points;
    int32_t n_probes; gc_gb_probe *probes;
    gc_gb_kind kind;
    char text[512];                /* the verdict line */
    int32_t first;                 /* GC_GB_R_FOUND: the point; else -1 */
    int first_probe;               /* index into probes[] of its measurement (0: the full
                                      model's output, when first is an output); -1 */
    gc_gb_cmp first_cmp;           /* that measurement */
    int32_t n_inputs; gc_gb_input *inputs;  /* the first op's inputs */
    int32_t n_restarts;            /* > 0: the predicate was not monotone */
    int32_t n_skipped;             /* probes not judged on the GPU */
    int probe_bound;               /* ceil(log2 n_points) + 2 */
    char *check_node;              /* `check --json`'s object for the first op (JSON), or NULL */
    char *check_risks;             /* its risks (a JSON array), or NULL */
    gc_arena arena;
} gc_gb_result;

/* Bisect. GC_ERR_USAGE: bad input (err names the file); GC_ERR_UNSUPPORTED: the runtime
 * is not installed, or no GPU adapter ("no GPU adapter: cannot bisect on the GPU");
 * GC_ERR_RUNTIME: the runtime cannot run the full model on the CPU, or a probe failed
 * hard. On GC_OK, r holds the result (free with gc_gb_free). */
gc_status gc_gpu_bisect(const gc_gb_opts *o, gc_gb_result *r, char *err, size_t errlen);
void gc_gb_free(gc_gb_result *r);
/* 0 clean or not on the GPU, 1 a divergence (found or not isolated) */
int gc_gb_exit_code(const gc_gb_result *r);

/* One probe's verdict from the runtime's report of the prefix (GPU against CPU of
 * `runtime` at `precision`), as gc_gpu_bisect judges it: fills p's status, note,
 * residency, outs (the first signature's outputs, malloc'd) and cmp (the worst);
 * *no_gpu when the runtime found no GPU adapter. (Exposed for tests.) */
void gc_gb_judge_report(const gc_lrt_report *rep, int runtime, int precision, gc_lrt_tol tol, gc_gb_probe *p, bool *no_gpu);

/* ---- reports (gpu_bisect_report.c) ---------------------------------------------------- */
void gc_gb_text(const gc_gb_result *r, gc_str *out);
void gc_gb_json(const gc_gb_result *r, gc_str *out);
#endif
