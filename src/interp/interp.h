/* interp.h — gpuclean's reference interpreter: runs a gc_model in fp32, or emulating the
 * GPU's half precision.
 *
 *     gc_interp_opts o = { .precision = GC_PREC_FP32, .signature = 0 };
 *     char err[512];
 *     gc_interp *it = gc_interp_new(model, &o, err, sizeof err);    // picks the entry
 *     // optional: gc_interp_set_input_shape(it, k, rank, dims) for dynamic inputs
 *     if (!it || gc_interp_prepare(it) != GC_OK) ... gc_interp_errmsg(it) ...
 *     gc_tview in = gc_interp_input(it, 0);     // dense, C order; fill in.data
 *     gc_interp_invoke(it);
 *     gc_tview out = gc_interp_output(it, 0);   // valid until the next invoke / free
 *     gc_interp_free(it);
 *
 * The entry is a signature (opts.signature >= 0; inputs and outputs in signature-def
 * order, which is the order LiteRT's CompiledModel gives) or a subgraph
 * (opts.signature = -1, opts.subgraph; inputs and outputs in the subgraph's order).
 * gc_interp_new with signature = GC_SIG_AUTO takes signature 0 when the model has
 * signatures, subgraph 0 otherwise.
 *
 * Prepare propagates shapes (static shapes; dims that are -1 in shape_signature take
 * the input shapes given), evaluates at prepare time every op whose inputs are all
 * constant (shape arithmetic, dequantized weights), plans every activation into one
 * arena (greedy by size over lifetimes; gc_interp_stats reports the peak), and
 * prepares called subgraphs (control flow) the same way. An op without a kernel, or
 * with a case its kernel does not handle, fails prepare with a message naming the op
 * index and op ("subgraph 0 op 17 (CONV_2D): ..."): never a silent wrong answer.
 *
 * Precision modes (where each kernel rounds is documented at the top of its file):
 *   GC_PREC_FP32      plain float32;
 *   GC_PREC_FP16      the GPU's fp16 mode on one runtime (opts.gpu_runtime, interp/
 *                     fp16_model.h): float tensors are stored as half (float inputs,
 *                     constants and every float op output rounded with gc_f16_round);
 *                     GC_GPU_JS computes inside ops in float32, GC_GPU_NATIVE (the
 *                     default) in half where ML Drift does (small-channel convolutions,
 *                     Winograd transforms; docs/fp16-model.md);
 *   GC_PREC_FP16_ACC  as FP16, and accumulations (conv / FC / BMM dot products,
 *                     reductions, softmax sums, ...) round after every step, modelling
 *                     half-precision arithmetic.
 *   GC_PREC_FP64      the truth to judge fp32 results by: every FLOAT32 (COMPLEX64) tensor
 *                     is held as FLOAT64 (COMPLEX128): constants and entry inputs widened
 *                     exactly, every float op computed in double (each kernel family's
 *                     double build, interp/fp64.h; math functions are libm's double
 *                     ones), in the same accumulation order as fp32. Entry inputs are
 *                     written and outputs read as FLOAT32 (narrowed once, at the end);
 *                     with opts.fp64_views the outputs and node views are the FLOAT64
 *                     tensors themselves. Hybrid ops run on dequantized weights.
 * Integer tensors are never touched by the precision mode (integer-only ops run the same
 * code in every mode).
 *
 * Node callback: after every op (including ops folded at prepare, reported in order)
 * the interpreter calls on_node(op_index, outs, n_outs, user) with views of the op's
 * outputs (valid only during the call: memory is reused). A nonzero return stops the
 * invoke (gc_interp_invoke returns GC_OK and gc_interp_stopped says so). If `ask` is
 * set, it is asked first per node ("do you want this node?") so a caller watching one
 * node does not pay for the others. Nodes inside called subgraphs are reported too,
 * with their own subgraph index in the view.
 */
#ifndef GC_INTERP_H
#define GC_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "common/common.h"
#include "model/model.h"
#include "interp/fp16_model.h"

#define GC_MAX_RANK 8
#define GC_SIG_AUTO (-2)
#define GC_DEFAULT_MAX_TENSOR_BYTES (16ull << 30)

typedef enum { GC_PREC_FP32 = 0, GC_PREC_FP16 = 1, GC_PREC_FP16_ACC = 2, GC_PREC_FP64 = 3 } gc_precision;
const char *gc_precision_name(gc_precision p);       /* "fp32", "fp16", "fp16-acc", "fp64" */
int gc_precision_parse(const char *s);               /* -1 when unknown */

/* A dense tensor as the interpreter holds it. */
typedef struct {
    int32_t subgraph, tensor;   /* where it lives (tensor index in its subgraph) */
    const char *name;           /* the tensor's name (or the signature's for entry I/O) */
    int dtype;                  /* GC_T_* */
    int rank;
    int32_t shape[GC_MAX_RANK];
    void *data;                 /* C order; INT4 stays packed as in the file */
    size_t nbytes;
    float scale;                /* per-tensor quantization (0: none / per-channel) */
    int32_t zero_point;
} gc_tview;

typedef int (*gc_on_node_fn)(int32_t op_index, const gc_tview *outs, int n_outs, void *user);
typedef bool (*gc_ask_node_fn)(int32_t subgraph, int32_t op_index, void *user);

/* How integer kernels rescale (requantize) their accumulators. */
typedef enum {
    GC_QMODE_TFLITE = 0,    /* TFLite's reference integer kernels (fixed-point multipliers,
                               round half away from zero): the default */
    GC_QMODE_XNNPACK = 1    /* XNNPACK's, which LiteRT's CPU accelerator uses for most
                               quantized ops: float32 scale, round half to even */
} gc_qmode;
const char *gc_qmode_name(gc_qmode q);                 /* "tflite", "xnnpack" */
int gc_qmode_parse(const char *s);                     /* -1 when unknown */

/* The fp32 multiply-add of CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED and
 * BATCH_MATMUL, fast kernels and reference loops alike, the terms in the same order either
 * way: GC_FLOAT_FMA acc = fmaf(x, w, acc) (one rounding; what GPUs, XNNPACK and PyTorch's
 * CPU kernels do where the CPU has FMA), GC_FLOAT_MULADD acc + x * w (the product rounded,
 * then the sum). The same bits on every machine and at every thread count in both modes
 * (C's fmaf is correctly rounded). FMA is up to 2x faster on CPUs whose adds share the FMA
 * ports (Intel cores since Haswell); a CPU without FMA hardware (x86 before 2013) computes
 * fmaf in software, many times slower: choose muladd there. GC_FLOAT_DEFAULT: the
 * environment's GPUCLEAN_FLOAT_ARITH (fma or muladd) for every interpreter (verify,
 * compare, bisect, the Python API), else GC_FLOAT_ARITH_BUILTIN. */
typedef enum { GC_FLOAT_DEFAULT = 0, GC_FLOAT_FMA = 1, GC_FLOAT_MULADD = 2 } gc_float_arith;
#define GC_FLOAT_ARITH_BUILTIN GC_FLOAT_FMA
gc_float_arith gc_float_arith_resolve(gc_float_arith a);   /* GC_FLOAT_FMA or GC_FLOAT_MULADD */
const char *gc_float_arith_name(gc_float_arith a);         /* "fma" / "muladd" (resolved) */
int gc_float_arith_parse(const char *s);                   /* "fma" / "muladd", else -1 */

typedef struct {
    gc_precision precision;
    gc_qmode qmode;
    int signature;              /* >= 0: signature index; -1: subgraph; GC_SIG_AUTO */
    int32_t subgraph;           /* entry subgraph when signature == -1 */
    gc_on_node_fn on_node;      /* may be NULL */
    gc_ask_node_fn ask;         /* may be NULL: every node is reported */
    void *user;
    uint64_t max_tensor_bytes;  /* refuse any tensor larger than this (0: 16 GiB) */
    int threads;                /* 0/1 = single thread; N (<= 16): one pool of N - 1 worker
                                   threads plus the caller, made at prepare and kept until
                                   gc_interp_free (src/interp/threadpool.h); the heavy ops
                                   (convolutions, FULLY_CONNECTED, BATCH_MATMUL, SOFTMAX,
                                   large elementwise ops, pools, resizes, reductions, PAD,
                                   TRANSPOSE, CONCATENATION, large copies) split their
                                   outputs over it: the same results at any N */
    bool fp64_views;            /* GC_PREC_FP64: outputs and node views as FLOAT64 (default:
                                   float tensors narrowed to FLOAT32 for the caller) */
    gc_f16_runtime gpu_runtime; /* GC_PREC_FP16: whose fp16 arithmetic (default native) */
    bool reference_kernels;     /* run the reference kernels instead of the fast paths: float
                                   CONV_2D / DEPTHWISE_CONV_2D / TRANSPOSE_CONV /
                                   FULLY_CONNECTED / BATCH_MATMUL in fp32, fp16 and fp16-acc
                                   (kernels/gemm_f32.h and its half modes, the fast fp16
                                   Winograd), the 8-bit ones and the other ops' fast loops in
                                   fp32 (qgemm8.h, qelem8.h, qfc4.h); the same bits, the
                                   reference is just slower; any precision: the
                                   float reductions and pools take their plain loops */
    gc_float_arith float_arith; /* GC_PREC_FP32: how CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
                                   FULLY_CONNECTED and BATCH_MATMUL multiply-add (below) */
} gc_interp_opts;

typedef struct {
    size_t arena_bytes;         /* planned activation peak (all frames) */
    size_t naive_bytes;         /* sum of every activation's size (no reuse) */
    size_t persistent_bytes;    /* folded constants, rounded weights, kernel data */
    int32_t n_nodes, n_folded;  /* entry frame: ops, ops evaluated at prepare */
    int32_t shape_mismatch;     /* outputs whose computed shape differs from a static
                                   shape in the file (0 unless a kernel or file is off) */
    double prepare_ms, invoke_ms;
    int32_t n_fast;             /* entry frame: ops (not folded) that run a fast kernel
                                   (kernels/gemm_f32.h and its half modes, the fast Winograd,
                                   qgemm8.h; 0 with opts.reference_kernels) */
    int32_t n_absorbed;         /* entry frame: ops never evaluated because the op after them
                                   computes from their inputs (a PAD folded into an 8-bit conv) */
    const char *isa;            /* the fast kernels' instruction set: "avx512", "avx2",
                                   "scalar" (cpu_isa.h; GPUCLEAN_ISA caps it) */
    int32_t pool_threads;       /* participants of the thread pool (1: no pool threads) */
    uint64_t pool_jobs;         /* kernel calls split over more than one of them so far */
} gc_interp_stats;

typedef struct gc_interp gc_interp;

gc_interp *gc_interp_new(const gc_model *m, const gc_interp_opts *o, char *err, size_t errlen);
void gc_interp_free(gc_interp *it);

/* Entry inputs / outputs (before prepare: shapes from the model). */
int gc_interp_n_inputs(const gc_interp *it);
int gc_interp_n_outputs(const gc_interp *it);
/* index of the input whose signature name or tensor name is `name`; -1 when none */
int gc_interp_find_input(const gc_interp *it, const char *name);
/* Set an input's shape before prepare (dims that are static in the model must match). */
gc_status gc_interp_set_input_shape(gc_interp *it, int k, int rank, const int32_t *shape);

gc_status gc_interp_prepare(gc_interp *it);
gc_tview gc_interp_input(const gc_interp *it, int k);    /* writable after prepare */
gc_status gc_interp_invoke(gc_interp *it);
gc_tview gc_interp_output(const gc_interp *it, int k);
bool gc_interp_stopped(const gc_interp *it);             /* last invoke stopped by on_node */

const char *gc_interp_errmsg(const gc_interp *it);
void gc_interp_stats_get(const gc_interp *it, gc_interp_stats *s);
/* the entry's subgraph index and signature key (NULL when none) */
int32_t gc_interp_entry_subgraph(const gc_interp *it);
const char *gc_interp_signature_key(const gc_interp *it);

/* Deterministic inputs (inputs.c), the same bytes as runtime/litert/runner.mjs and the
 * oracle make for float32 / int32 / uint8 (k = the input's index in its signature,
 * sig = the signature's index, 0 without one):
 *   pattern sin: float32 0.5 + 0.5 sin(0.37 i + k) (computed in double, stored float);
 *                int32 / int64 (i*7 + k) % 3; uint8 (i*37 + k) % 256; int8 that minus 128;
 *                int16 ((i*37 + k) % 256 - 128) * 128; bool (i + k) % 2.
 *   random SEED: xorshift64* seeded with SplitMix64 of (SEED, sig, k); float32 N(0, 1)
 *                (Box-Muller, pairs); int32 / int64 uniform in [0, 2]; uint8 [0, 255];
 *                int8 [-128, 127]; int16 [-32768, 32767]; bool {0, 1}.
 * GC_ERR_UNSUPPORTED for other types. */
gc_status gc_fill_pattern_sin(const gc_tview *v, int k);
gc_status gc_fill_random(const gc_tview *v, uint64_t seed, int sig, int k);

/* Every builtin op code the interpreter has a kernel for (for reports and tests). */
bool gc_interp_has_kernel(int32_t builtin_code);

#endif
