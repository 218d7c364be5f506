/* report.h — rendering of results as text and JSON (decides nothing). */
#ifndef GC_REPORT_H
#define GC_REPORT_H
#include "model/model.h"

/* gpuclean inspect: text (verbose adds every tensor and op) and JSON schema 1 */
void gc_inspect_text(const gc_model *m, const char *path, bool verbose, gc_str *out);
void gc_inspect_json(const gc_model *m, const char *path, gc_str *out);

/* Multiply-accumulates of the entry subgraph's matrix-like ops from static shapes
 * (flops.c has the per-op formulas); FLOPs = 2 x macs. */
#define GC_FLOPS_N_OPS 7           /* CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
                                      FULLY_CONNECTED, BATCH_MATMUL, CONV_3D, CONV_3D_TRANSPOSE */
typedef struct {
    int32_t subgraph;              /* counted subgraph (signature 0's, else 0; -1: none) */
    uint64_t macs;                 /* all counted ops */
    uint64_t macs_float, macs_quant, macs_hybrid;  /* by class: float activation and weights;
                                      integer activation; float activation, integer weights */
    int32_t op_count[GC_FLOPS_N_OPS];
    uint64_t op_macs[GC_FLOPS_N_OPS];
    int32_t n_unknown;             /* ops of those kinds whose shapes are not static: not counted */
    bool saturated;                /* over 2^64 MACs (then every sum is UINT64_MAX) */
} gc_flops;
void gc_model_flops(const gc_model *m, gc_flops *f);
const char *gc_flops_op_name(int k);                  /* k < GC_FLOPS_N_OPS */
const char *gc_flops_kind(const gc_flops *f);         /* float | quant | hybrid (most MACs) | none */
void gc_flops_text(const gc_flops *f, gc_str *out);   /* one line "compute (...): ..." */
void gc_flops_json(const gc_flops *f, gc_str *out);   /* one object (docs/json.md, inspect) */
#endif
