/* interp_impl.h — what the interpreter core and the kernels share (private).
 *
 * Every op kernel is a pair (TFLite Micro's split):
 *   prepare(ctx, node): checks arity, dtypes, shapes, options and quantization; sets
 *       the output shapes (gc_set_shape); precomputes what eval needs into node->data
 *       (allocated with gc_ctx_alloc, lives as long as the interpreter); asks for
 *       scratch memory (gc_ctx_scratch). Every error message comes from here.
 *   eval(ctx, node): computes; allocates nothing; trusts prepare; checks only
 *       data-dependent things (gather indices, divisors) and returns an error then.
 * Tensor slots are the op's input/output positions; kernels name them with enums.
 *
 * At prepare, inputs with `known` set hold their values already (constants, and the
 * outputs of ops folded at prepare: shape arithmetic). A kernel whose output shape
 * depends on an input's values (RESHAPE's shape, PAD's paddings, ...) requires that
 * input to be known (gc_need_known) and fails otherwise.
 */
#ifndef GC_INTERP_IMPL_H
#define GC_INTERP_IMPL_H

#include <stdio.h>
#include <string.h>
#include "interp/interp.h"
#include "interp/fp16.h"
#include "interp/quant.h"
#include "interp/threadpool.h"

/* A kernel's exported name: each kernel family is compiled twice, once as written and
 * once in double for --precision fp64 (kernels/<family>_f64.c through interp/fp64.h),
 * whose kernels are named with a _f64 suffix. */
#ifndef GC_K
#define GC_K(name) name
#endif
/* a float that stays 32-bit in the double build (model scales read as floats) */
typedef float gc_f32;

/* ---- run-time tensors ------------------------------------------------------- */

enum { GC_RT_NONE = 0,   /* not used by this frame */
       GC_RT_CONST,      /* data in the model's buffer (or a converted copy) */
       GC_RT_FOLDED,     /* computed at prepare, persistent */
       GC_RT_ACT,        /* planned into the arena (inputs, activations, outputs) */
       GC_RT_VAR };      /* variable tensor: persistent state */

typedef struct gc_rt {
    const gc_tensor *ir;        /* the model's description */
    int32_t index;              /* tensor index in the frame's subgraph */
    int8_t dtype;               /* GC_T_* */
    int8_t kind;                /* GC_RT_* */
    bool known;                 /* value available at prepare */
    int32_t rank;
    int32_t shape[GC_MAX_RANK];
    uint8_t *data;
    size_t nbytes;
    float scale;                /* per-tensor quantization; 0 when none or per-channel */
    int32_t zp;
    const gc_quant *q;          /* full quantization (per-channel), NULL when none */
    bool owned;                 /* data is its own allocation (a large fp16-rounded constant
                                   copy): freed once every reader has packed its own copy */
    /* planning */
    int32_t first, last;        /* steps at which it is written first / read last */
    size_t offset;              /* in the frame's arena region */
} gc_rt;

typedef struct gc_frame gc_frame;

typedef struct gc_node {
    const gc_op *op;
    int32_t index;              /* op index in the subgraph */
    int32_t code;               /* builtin code */
    int32_t version;
    const char *name;           /* op name for messages */
    const struct gc_kernel *k;
    int n_in, n_out;
    gc_rt **in, **out;          /* in[i] NULL for an optional input that is absent */
    void *data;                 /* kernel's prepared data */
    bool folded;                /* evaluated at prepare */
    bool keep_float;            /* fp16: output not rounded (a float chain, fp16_chains.c) */
    bool fast;                  /* prepare chose a fast kernel (kernels/gemm_f32.h, qgemm8.h) */
    bool absorbed;              /* a later node computes straight from this one's inputs and
                                   nothing else reads its outputs (a PAD folded into the conv
                                   after it, kernels/qconv8.h): never evaluated */
    bool out_half;              /* fp16: its float outputs are copies of values already half
                                   (a data-movement op on rounded tensors): the core does not
                                   round them again (the identity on halves, saturating too) */
    bool swish_epi_ok;          /* prepare: eval can apply the swish y = y * (1 / (1 + expf(-y)))
                                   to its float output in place as it computes it (the fast
                                   CONV_2D / DEPTHWISE_CONV_2D, conv.c) */
    bool swish_epi;             /* planning (interp.c): do so, for the swish MUL after it, which
                                   is then absorbed */
    bool own_store;             /* fp16: eval stores its float output rounded to half itself,
                                   the way ctx->store says (the fast kernels, tile by tile
                                   while the tile is in cache), so the core does not */
    uint32_t unread_in;         /* bit j: eval never reads in[j]'s data (prepare copied what
                                   it needs): once no other op needs a constant / folded
                                   tensor, its memory is given back (interp.c) */
    int n_scratch;
    size_t scratch_bytes[4];
    size_t scratch_off[4];
    uint8_t *scratch[4];
    gc_frame *sub[4];           /* frames of called subgraphs (control flow) */
    int n_sub;
} gc_node;

struct gc_frame {
    int32_t sg;
    const gc_subgraph *s;
    gc_rt *t;                   /* s->n_tensors */
    gc_node *nodes;             /* execution order */
    int32_t n_nodes;
    size_t base, size;          /* region of the interpreter's arena */
    int depth;
};

typedef struct gc_ctx {
    struct gc_interp *it;
    gc_frame *f;
    const gc_model *m;
    int precision;              /* gc_precision */
    bool fp16;                  /* precision != FP32 */
    bool acc16;                 /* precision == FP16_ACC */
    bool xnn;                   /* qmode == GC_QMODE_XNNPACK */
    bool fma;                   /* fp32 with opts.float_arith fma: CONV_2D, DEPTHWISE_CONV_2D,
                                   TRANSPOSE_CONV, FULLY_CONNECTED and BATCH_MATMUL sum
                                   acc = fmaf(x, w, acc) */
    bool fp64;                  /* precision == FP64: float tensors are held as FLOAT64 */
    const gc_f16_model *hm;     /* precision == FP16: the runtime's half-precision model
                                   (fp16_model.h); NULL in every other mode */
    int threads;                /* >= 1: worker threads a kernel may split its outputs over
                                   (per-thread scratch is sized by it) */
    gc_pool *pool;              /* the interpreter's workers (NULL: one thread); gc_ctx_for */
    bool fast;                  /* fp32 without opts.reference_kernels: float and 8-bit CONV_2D /
                                   DEPTHWISE_CONV_2D / FULLY_CONNECTED / BATCH_MATMUL take the
                                   fast kernels (kernels/gemm_f32.h, qgemm8.h, bit-identical) */
    bool fast_float;            /* fp32 / fp16 / fp16-acc without opts.reference_kernels: float
                                   CONV_2D / DEPTHWISE_CONV_2D / TRANSPOSE_CONV /
                                   FULLY_CONNECTED / BATCH_MATMUL (and the native fp16
                                   Winograd) take the fast kernels (kernels/gemm_f32.h and
                                   its half modes, bit-identical) */
    int isa;                    /* gc_isa the fast kernels use (kernels/cpu_isa.h) */
    bool reference;             /* opts.reference_kernels: also the reductions and pools
                                   take their plain loops (any precision), so that tests
                                   can hold the restructured ones to them */
    bool observed;              /* a node callback sees every op's outputs: no node may be
                                   absorbed into another (gc_node.absorbed) */
    int store;                  /* at eval of a node with own_store: how to round its float
                                   output, as the core would (fp16.h gc_f16_store): NONE
                                   (fp32, a float chain, folding at prepare: the core rounds
                                   then), HALF, HALF_SAT (the native runtime's store) */
    char *err; size_t errlen;   /* the kernel's message (prefixed by the core) */
} gc_ctx;


#define GC_MAX_THREADS 16
/* Splitting work over the interpreter's thread pool (threadpool.h). Kernels split
 * independent outputs only, each computed the same way in any range, so results do not
 * depend on the thread count (tests/c/test_interp_threads.c runs them at 1, 2 and 3).
 *
 * gc_ctx_for: fn(arg, begin, end, worker) over [0, n) in chunks of `chunk` items on
 *   ctx->pool (worker < ctx->threads indexes per-thread scratch); inline when the pool
 *   is absent or n <= chunk.
 * gc_ctx_chunk: the chunk for n items of `item_work` units each (a unit ~ one float
 *   multiply-add or one element of a streaming op): at least GC_PAR_GRAIN units per
 *   chunk, so that small ops do not pay for the dispatch (one chunk = inline).
 * gc_parallel (kept for callers written before the pool): fn(arg, i, n) for
 *   i = 0..n-1, each i once, on the pool of the interpreter running on this thread
 *   (set by gc_interp_prepare / gc_interp_invoke); serially when there is none. */
#define GC_PAR_GRAIN 32768.0
static inline void gc_ctx_for(gc_ctx *ctx, int64_t n, int64_t chunk, gc_pool_fn fn, void *arg) {
    gc_pool_for(ctx->threads > 1 ? ctx->pool : NULL, n, chunk, fn, arg);
}
static inline int64_t gc_ctx_chunk(const gc_ctx *ctx, int64_t n, double item_work) {
    if (ctx->threads <= 1 || !ctx->pool) return n > 0 ? n : 1;
    return gc_pool_chunk(ctx->pool, n, item_work, GC_PAR_GRAIN);
}
void gc_parallel(int n, void (*fn)(void *arg, int i, int n), void *arg);
/* The smallest float t with expf(t) != 0 (libm's own; every t below it gives +0):
 * softmax.c skips expf there, which is slow on underflow. */
float gc_expf_zero_below(void);
/* The pool gc_parallel uses on this thread; returns the previous one (interp.c). */
gc_pool *gc_pool_set_current(gc_pool *p);
gc_pool *gc_pool_current(void);

typedef gc_status (*gc_prepare_fn)(gc_ctx *ctx, gc_node *n);
typedef gc_status (*gc_eval_fn)(gc_ctx *ctx, gc_node *n);

typedef struct gc_kernel {
    const char *name;
    gc_prepare_fn prepare;
    gc_eval_fn eval;
    uint8_t flags;              /* GC_K_* */
} gc_kernel;

enum {
    GC_K_NOFOLD = 1,            /* never evaluate at prepare (control flow, state) */
    GC_K_OWN_ROUND = 2,         /* the kernel rounds its float outputs itself */
    GC_K_SHAPE_ONLY = 4         /* reads only its inputs' shapes: always folded */
};

/* The op table: indexed by builtin code; NULL entry = no kernel. gc_kernel_for_f64: the
 * double build of the same kernel (nodes with FLOAT64 / COMPLEX128 tensors in fp64 mode). */
const gc_kernel *gc_kernel_for(int32_t code);
const gc_kernel *gc_kernel_for_f64(int32_t code);
/* A CUSTOM op's kernel by custom_code (ops.c), the double build when f64; NULL: none. */
const gc_kernel *gc_custom_kernel_for(const char *name, bool f64);

/* ---- helpers for kernels -------------------------------------------------------- */

/* Record an error "<message>" for the current node; returns `st`. */
gc_status gc_fail(gc_ctx *ctx, gc_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define GC_ENSURE(ctx, cond, ...) do { if (!(cond)) return gc_fail((ctx), GC_ERR_FORMAT, __VA_ARGS__); } while (0)
#define GC_UNSUP(ctx, cond, ...) do { if (!(cond)) return gc_fail((ctx), GC_ERR_UNSUPPORTED, __VA_ARGS__); } while (0)
#define GC_TRY(x) do { gc_status st_ = (x); if (st_ != GC_OK) return st_; } while (0)

void *gc_ctx_alloc(gc_ctx *ctx, size_t n);     /* zeroed, persistent; NULL on OOM */
/* Persistent data derived from a constant (a re-laid-out filter, ...), shared by every
 * node that derives the same thing from the same source: the key is (src, kind, a, b).
 * Returns the block (NULL on OOM); *fresh tells the caller to fill it. */
void *gc_ctx_derived(gc_ctx *ctx, const void *src, int kind, int64_t a, int64_t b,
                     size_t bytes, bool *fresh);
/* Ask for per-eval scratch memory (planned with the activations); returns its slot,
 * -1 on failure. Pointer available in eval as node->scratch[slot]. */
int gc_ctx_scratch(gc_ctx *ctx, gc_node *n, size_t bytes);
/* At n's prepare: the node of this frame before n that writes activation x, when n may
 * absorb it (gc_node.absorbed): no node callback, the writer has one output and is neither
 * folded nor absorbed, x is read by n alone and is no result of the subgraph; else NULL. */
gc_node *gc_ctx_sole_producer(gc_ctx *ctx, gc_node *n, const gc_rt *x);

gc_status gc_set_shape(gc_ctx *ctx, gc_rt *t, int rank, const int32_t *shape);
/* Arity check: n_in within [lo, hi] non-null-counted positions, n_out == nout. */
gc_status gc_check_arity(gc_ctx *ctx, gc_node *n, int in_lo, int in_hi, int n_out);
/* The input must hold its value at prepare (constant or folded). */
gc_status gc_need_known(gc_ctx *ctx, gc_node *n, int slot, const char *what);
/* Prepare a called subgraph as a child frame whose inputs take the given shapes. */
gc_status gc_frame_child(gc_ctx *ctx, gc_node *n, int32_t sg, int n_in, gc_rt *const *ins,
                         gc_frame **out);
/* fp16 native: mark the float chains around reductions (fp16_chains.c). */
void gc_f16_mark_chains(gc_frame *f);
/* Run a child frame: copy `ins` into its inputs, run, copy its outputs to `outs`. */
gc_status gc_frame_call(gc_ctx *ctx, gc_frame *f, int n_in, gc_rt *const *ins,
                        int n_out, gc_rt *const *outs);

static inline uint64_t gc_numel(const gc_rt *t) {
    uint64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= (uint64_t)t->shape[i];
    return n;
}
static inline uint64_t gc_numel_shape(int rank, const int32_t *s) {
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) n *= (uint64_t)s[i];
    return n;
}
static inline bool gc_same_shape(const gc_rt *a, const gc_rt *b) {
    if (a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++) if (a->shape[i] != b->shape[i]) return false;
    return true;
}
static inline bool gc_is_float(int dtype) { return dtype == GC_T_FLOAT32; }
static inline bool gc_is_qint(int dtype) {
    return dtype == GC_T_INT8 || dtype == GC_T_UINT8 || dtype == GC_T_INT16;
}
static inline void gc_qrange(int dtype, int32_t *lo, int32_t *hi) {
    switch (dtype) {
    case GC_T_INT8:  *lo = -128; *hi = 127; break;
    case GC_T_UINT8: *lo = 0; *hi = 255; break;
    case GC_T_INT16: *lo = -32768; *hi = 32767; break;
    default:         *lo = INT32_MIN; *hi = INT32_MAX; break;
    }
}
/* Element read / write of the quantized integer types as int32. */
static inline int32_t gc_qget(int dtype, const void *p, size_t i) {
    switch (dtype) {
    case GC_T_INT8:  return ((const int8_t *)p)[i];
    case GC_T_UINT8: return ((const uint8_t *)p)[i];
    case GC_T_INT16: return ((const int16_t *)p)[i];
    default:         return ((const int32_t *)p)[i];
    }
}
static inline void gc_qset(int dtype, void *p, size_t i, int32_t v) {
    switch (dtype) {
    case GC_T_INT8:  ((int8_t *)p)[i] = (int8_t)v; break;
    case GC_T_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case GC_T_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    default:         ((int32_t *)p)[i] = v; break;
    }
}
/* Read an integer tensor (INT32/INT64/INT16/INT8/UINT8) element as int64. */
int64_t gc_get_int(const gc_rt *t, size_t i);

/* Rounding in fp16-acc mode (identity otherwise). */
static inline float gc_racc(const gc_ctx *ctx, float v) { return ctx->acc16 ? gc_f16_round(v) : v; }

/* The op's builtin options must be of `type` (GC_BO_*) or absent. */
static inline gc_status gc_opt_expect(gc_ctx *ctx, const gc_node *n, int type) {
    int t = n->op->opt.type;
    if (t != 0 && t != type)
        return gc_fail(ctx, GC_ERR_FORMAT, "builtin options are of union type %d, expected %d", t, type);
    return GC_OK;
}
static inline const gc_options *gc_opts(const gc_node *n) { return &n->op->opt; }
static inline int gc_esize(int dtype) { return gc_type_size(dtype); }

/* Row-major strides (in elements) of a shape. */
static inline void gc_strides(int rank, const int32_t *shape, int64_t *st) {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) { st[i] = s; s *= shape[i]; }
}

/* Normalise an axis in [-rank, rank). */
static inline int gc_axis(int axis, int rank) { return axis < 0 ? axis + rank : axis; }

/* Broadcast helper: strides (in elements) of `t` seen with the output's rank and
 * shape; 0 on broadcast dims. Returns false if the shapes cannot broadcast. */
bool gc_bcast_shape(const gc_rt *a, const gc_rt *b, int *rank, int32_t *shape);
void gc_bcast_strides(const gc_rt *t, int rank, const int32_t *shape, int64_t *strides);

#endif
