/* sweep.h — the GPU miscompute sweep (issue 10): single-op and small-pattern .tflite
 * models built with the rule-model builder (tools/rule-models.h: gc_rb_*) across the
 * attribute spaces where LiteRT's GPU accelerator (ML Drift) rejects, fails to build or
 * miscomputes, so that tools/gpu_sweep.py can run them through both LiteRT runtimes on a
 * real GPU and store the measured matrix (data/gpu/sweep/).
 *
 * One family file per op family (sweep_conv.c, sweep_elementwise.c, ...) emits its
 * cases through sw_emit; sweep.c's main writes each case to OUT_DIR/<case>.tflite and
 * one line of OUT_DIR/manifest.jsonl. Everything is deterministic: the same build writes
 * the same bytes.
 *
 * Inputs: the GPU run (runtime/litert/device.sh) feeds every input the LiteRT oracle's
 * sin pattern (float input k: 0.5+0.5*sin(0.37*i+k), int32: (i*7+k)%3) unless the case
 * gives its own values (sw_in_*), which are written as OUT_DIR/inputs/<case>/input_<k>.npy
 * (device.sh feeds DIR/inputs/<model>/input_<k>.npy to input k).
 *
 * Constants: sw_const_f32 fills element i of a float constant with
 * ((37*i + 11 + 53*salt) mod 251)/125.5 - 1, in (-1, 1): period 251 (prime), so a wrong
 * broadcast or layout index shows up unless it is off by a multiple of 251, and the file
 * still compresses well.
 */
#ifndef GC_SWEEP_H
#define GC_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include "../rule-models.h"

#define SW_MAX_INPUTS 4
#define SW_MAX_OUTPUTS 16

typedef struct {
    int type;                 /* GC_T_FLOAT32 or GC_T_INT32 */
    uint64_t n;               /* values given */
    int rank; int64_t shape[8];   /* the graph input's shape (filled in by sw_emit) */
    void *data;               /* malloc'd; NULL = the device's sin pattern */
} sw_input;

/* One case being built. */
typedef struct {
    gc_rb b;                  /* the builder: b.m is the model */
    gc_str attrs;             /* body of the flat attribute object: "\"k\":v,..." */
    int n_attrs;
    int n_outs; int32_t outs[SW_MAX_OUTPUTS];   /* explicit graph outputs; 0 = automatic */
    sw_input in[SW_MAX_INPUTS];                 /* by graph input index */
    int salt;                 /* next constant's fill salt */
} sw_case;

typedef struct sw_ctx sw_ctx;

/* What a case is, for the manifest. */
typedef struct {
    const char *name, *family, *op, *what;
    const char *attrs_json;   /* "{...}" */
} sw_meta;

/* A sink receives each finished case (the model is freed after it returns); nonzero
 * return = stop with an error. */
typedef int (*sw_sink)(sw_ctx *x, const sw_meta *meta, const gc_model *m, const sw_input *in, int n_in);

struct sw_ctx {
    sw_sink sink;
    void *user;
    const char *only;         /* comma-separated families, NULL = all */
    int n_cases, n_errors;
    char err[512];
    char **names; int n_names, cap_names;   /* every case name so far (must be unique) */
};

typedef struct {
    const char *name;
    const char *what;
    void (*run)(sw_ctx *x);
} sw_family;

extern const sw_family sw_families[];
extern const int sw_families_n;
/* true when family `f` is selected by x->only */
bool sw_selected(const sw_ctx *x, const char *f);
/* run every selected family; returns the number of cases emitted (errors in x) */
int sw_run_all(sw_ctx *x);

/* ---- building a case --------------------------------------------------------------- */

void sw_begin(sw_case *c);
/* runtime tensor / float constant (the fill above) / int32 constant / any constant */
int32_t sw_t(sw_case *c, const char *name, int type, int rank, const int32_t *shape);
int32_t sw_const_f32(sw_case *c, const char *name, int rank, const int32_t *shape);
int32_t sw_const_i32(sw_case *c, const char *name, int rank, const int32_t *shape, const int32_t *v);
int32_t sw_const(sw_case *c, const char *name, int type, int rank, const int32_t *shape, const void *data);
int32_t sw_op(sw_case *c, int32_t code, int version, int n_in, const int32_t *in, int n_out, const int32_t *out);
void sw_opt(sw_case *c, int32_t op, int field, int64_t v);
void sw_optf(sw_case *c, int32_t op, int field, double v);
/* the float fill of sw_const_f32 for n values with the given salt */
void sw_fill_f32(float *v, uint64_t n, int salt);

/* attributes (flat: ints, strings, bools, shapes as "2x3x4") */
void sw_attr_i(sw_case *c, const char *k, long long v);
void sw_attr_s(sw_case *c, const char *k, const char *v);
void sw_attr_b(sw_case *c, const char *k, bool v);
void sw_attr_shape(sw_case *c, const char *k, int rank, const int32_t *shape);

/* explicit graph outputs (in this order); without a call, the outputs are the produced
 * tensors nobody consumes (gc_rb_done) */
void sw_outputs(sw_case *c, int n, const int32_t *t);
/* values for graph input k (its shape is taken from the tensor at emit time); copied */
void sw_in_f32(sw_case *c, int k, const float *v, uint64_t n);
void sw_in_i32(sw_case *c, int k, const int32_t *v, uint64_t n);

/* Finish the case: set I/O, hand it to the sink, free it. name is printf-style. */
void sw_emit(sw_ctx *x, sw_case *c, const char *family, const char *op, const char *what,
             const char *name_fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- shorthands for the family files ------------------------------------------------- */

#define SW_L(...) (int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (const int32_t[]){__VA_ARGS__}
#define SW_F32 GC_T_FLOAT32
#define SW_I32 GC_T_INT32
enum { SW_SAME = 0, SW_VALID = 1 };                       /* tflite Padding */
enum { SW_ACT_NONE = 0, SW_ACT_RELU = 1, SW_ACT_RELU6 = 3 }; /* ActivationFunctionType */

/* output size of a conv / pool along one axis (tflite's ComputeOutSize) */
int sw_conv_out(int in, int k, int stride, int dilation, int padding);

/* the family entry points */
void sw_family_conv(sw_ctx *x);
void sw_family_conv_wide(sw_ctx *x);
void sw_family_depthwise(sw_ctx *x);
void sw_family_transpose_conv(sw_ctx *x);
void sw_family_fully_connected(sw_ctx *x);
void sw_family_batch_matmul(sw_ctx *x);
void sw_family_elementwise(sw_ctx *x);
void sw_family_pad(sw_ctx *x);
void sw_family_reduce(sw_ctx *x);
void sw_family_softmax(sw_ctx *x);
void sw_family_cast(sw_ctx *x);
void sw_family_cumsum(sw_ctx *x);
void sw_family_gather(sw_ctx *x);
void sw_family_split(sw_ctx *x);
void sw_family_densify(sw_ctx *x);
void sw_family_dequantize(sw_ctx *x);
void sw_family_resize(sw_ctx *x);
void sw_family_alias(sw_ctx *x);
void sw_family_pattern(sw_ctx *x);

#endif
