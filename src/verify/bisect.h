/* bisect.h — first divergent tensor between two executions of one model.
 *
 * Side A is the reference interpreter at one precision (normally fp32); side B is the
 * interpreter at another precision (fp16 / fp16-acc: the GPU's), or a directory of
 * reference tensors dumped elsewhere (`gpuclean run --dump-all`, a PyTorch dump named
 * tensors/s<S>_t<T>.npy). Every op output both sides have is compared, in execution
 * order, with one error measure per tensor:
 *
 *     rel = max_i |a_i - b_i| / max(max_i |a_i|, 1e-30)     (a = side A, the reference)
 *
 * The first node with rel > tol (end-to-end mode: errors accumulate) is the first
 * divergent tensor. Because errors flow forward, the node that *creates* an error is
 * often not the first over a loose tolerance; each node therefore also gets its
 * amplification gain = rel(out) / max(rel(inputs), floor) with floor = 2^-11 (the
 * fp16 unit roundoff): the op itself lost precision when gain is large. The report
 * lists the first divergent node and the nodes with the largest gains.
 *
 * With reference files, a tensor without a file is counted (n_missing, reported; a
 * PyTorch dump need not have every tensor) and none at all is an error; a file that
 * exists but cannot be read, is not float (float16/32/64) or has another element count
 * than the tensor is an error naming it (GC_ERR_FORMAT): never skipped silently.
 */
#ifndef GC_BISECT_H
#define GC_BISECT_H
#include "common/common.h"
#include "model/model.h"
#include "interp/interp.h"

typedef struct {
    int32_t subgraph, op, tensor;   /* where: op index in its subgraph, its output tensor */
    const char *op_name, *tensor_name;
    int rank; int32_t shape[GC_MAX_RANK];
    double rel, max_abs, ref_max;   /* the error measure, max |a-b|, max |a| */
    double gain;                    /* rel / max(rel of inputs, 2^-11) */
    double snr_db;                  /* 10 log10(sum a^2 / sum (a-b)^2) over finite pairs; +inf equal */
    double corr;                    /* Pearson correlation of a and b; NaN when undefined */
    int64_t worst;                  /* flat index of the largest |a-b| */
    double worst_a, worst_b;
    bool nonfinite;                 /* NaN/Inf on one side only */
} gc_bisect_node;

typedef struct {
    gc_bisect_node *nodes; int n_nodes;  /* every compared float op output, in order */
    int first;                           /* index into nodes of the first over tol; -1 */
    double tol;
    char a_desc[64], b_desc[256];
    int n_missing;                       /* --ref: float tensors with no reference file */
    char first_missing[64];              /* the first of them, "tensors/s<S>_t<T>.npy" */
} gc_bisect_result;

typedef struct {
    gc_precision a, b;              /* used when ref_dir is NULL */
    const char *ref_dir;            /* side B from files: DIR/tensors/s<S>_t<T>.npy */
    double tol;                     /* rel threshold (default 1e-2) */
    gc_qmode qmode;
    gc_f16_runtime gpu_runtime;     /* whose fp16 arithmetic fp16 emulates (default native) */
    /* inputs: fill(view, k) for each entry input */
    gc_status (*fill)(const gc_tview *v, int k, void *user);
    void *fill_user;
    /* progress (may be NULL): side "A"/"B"/"ref", the entry op just run (1-based; for the
     * reference files: the tensor read) out of total */
    void (*progress)(const char *side, int32_t done, int32_t total, void *user);
    void *progress_user;
} gc_bisect_opts;

gc_status gc_bisect(const gc_model *m, const gc_bisect_opts *o, gc_bisect_result *r,
                    char *err, size_t errlen);
void gc_bisect_free(gc_bisect_result *r);
void gc_bisect_text(const gc_bisect_result *r, const char *path, int top, gc_str *out);
void gc_bisect_json(const gc_bisect_result *r, const char *path, int top, gc_str *out);
#endif
