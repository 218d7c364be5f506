/* api.h — a small C facade over libgpuclean for foreign-function callers (Python
 * ctypes: python/gpuclean/_lib.py). Only ints, doubles, C strings, opaque handles and
 * one plain struct (gc_api_tensor) cross it; results with structure come back as one
 * JSON document (the same documents the CLI prints with --json).
 *
 *     char err[512], *json = NULL;
 *     gc_model *m = gc_api_model_open("model.tflite", err, sizeof err);
 *     if (!m) { puts(err); return; }
 *     if (gc_api_check_json(m, "model.tflite", "mldrift", &json, err, sizeof err) == 0)
 *         puts(json);
 *     gc_api_free(json);
 *     gc_api_model_close(m);
 *
 * Every function returning int returns 0 (GC_OK) or a gc_status and then writes one
 * line into err. Strings returned through `char **` are malloc'd: free them with
 * gc_api_free. Parts of the library that are not built into this copy (the checker,
 * the interpreter) are linked weakly: their facade functions return
 * GC_ERR_UNSUPPORTED with "<C function> is not built into this libgpuclean".
 */
#ifndef GC_API_H
#define GC_API_H

#include <stddef.h>
#include <stdint.h>

#define GC_API_VERSION 1

typedef struct gc_model gc_model;
typedef struct gc_interp gc_interp;

/* A dense tensor: a view, never owned by the caller. */
typedef struct {
    const char *name;          /* "" when unnamed */
    int dtype;                 /* GC_T_* (model/schema.h) */
    int rank;
    int64_t shape[8];
    void *data;                /* NULL when the tensor has no data (activations of a model) */
    uint64_t nbytes;
} gc_api_tensor;

int gc_api_version(void);
void gc_api_free(void *p);
/* 1 when the named part is built in: "check", "check_json", "interp", "compare" */
int gc_api_has(const char *part);

/* ---- models (gc_model_read_file / gc_model_free) ------------------------------ */
gc_model *gc_api_model_open(const char *path, char *err, size_t errlen);
void gc_api_model_close(gc_model *m);
int gc_api_model_n_subgraphs(const gc_model *m);
int gc_api_model_n_tensors(const gc_model *m, int sg);          /* -1: no such subgraph */
int gc_api_model_find_tensor(const gc_model *m, int sg, const char *name);  /* -1 */
/* tensor t of subgraph sg; data points into the model's mapping (constants only) */
int gc_api_model_tensor(const gc_model *m, int sg, int t, gc_api_tensor *out,
                        char *err, size_t errlen);
/* gpuclean inspect --json */
int gc_api_inspect_json(const gc_model *m, const char *path, char **json,
                        char *err, size_t errlen);
/* gpuclean check --json; target "mldrift" (default when NULL) or "classic" */
int gc_api_check_json(const gc_model *m, const char *path, const char *target,
                      char **json, char *err, size_t errlen);
/* the same with the measured GPU facts of a runtime ("native-2.3", "js-2.5.3", "js"; NULL:
 * the default) at a precision ("fp32" when NULL, or "fp16"): `check --runtime R --precision P`;
 * an unknown runtime or precision is GC_ERR_USAGE */
int gc_api_check_json_ex(const gc_model *m, const char *path, const char *target, const char *runtime,
                         const char *precision, char **json, char *err, size_t errlen);

/* ---- the reference interpreter ------------------------------------------------------ */
/* precision "fp32" / "fp16" / "fp16-acc"; signature >= 0, or -2 (auto) */
gc_interp *gc_api_interp_new(const gc_model *m, const char *precision, int signature,
                             char *err, size_t errlen);
/* the same with the GPU runtime whose fp16 arithmetic "fp16" emulates: "native"
 * (default, also when NULL) or "js" (interp/fp16_model.h) */
gc_interp *gc_api_interp_new_rt(const gc_model *m, const char *precision, const char *gpu_runtime,
                                int signature, char *err, size_t errlen);
void gc_api_interp_free(gc_interp *it);
int gc_api_interp_n_io(const gc_interp *it, int outputs);        /* counts */
int gc_api_interp_set_input_shape(gc_interp *it, int k, int rank, const int64_t *shape,
                                  char *err, size_t errlen);
int gc_api_interp_prepare(gc_interp *it, char *err, size_t errlen);
/* input k (writable after prepare) or output k (valid until the next invoke) */
int gc_api_interp_tensor(const gc_interp *it, int output, int k, gc_api_tensor *out,
                         char *err, size_t errlen);
int gc_api_interp_invoke(gc_interp *it, char *err, size_t errlen);

/* ---- metrics (gpuclean compare) ------------------------------------------------------ */
/* compare a against ref (same shape); the metrics as gc_metrics_json writes them */
int gc_api_compare_json(const gc_api_tensor *a, const gc_api_tensor *ref, double rtol,
                        double atol, char **json, char *err, size_t errlen);

#endif
