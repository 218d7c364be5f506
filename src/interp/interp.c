/* interp.c — the interpreter core: entry selection, frames (one per executed subgraph
 * instance), prepare (shape propagation, folding, memory planning), invoke, the node
 * callback. Kernels live in kernels/<family>.c, the op table in ops.c.
 *
 * Steps and lifetimes. A frame runs its ops in topological order (gc_sg_topo_order,
 * stable: file order where the graph allows). Op i runs at step i+1; the frame's
 * inputs are written at step 0 and kept to the end (so invoking again reuses them, as
 * TFLite does); its outputs are read at step n+1. An activation lives
 * from the step that writes it to the last step that reads it (inclusive), so an op
 * never writes over its own inputs. Scratch memory lives for its op's step only.
 *
 * Planning (greedy by size, as TFLite's arena planner): sort the activations by size,
 * largest first (ties: earlier first step, then lower index); place each at the lowest
 * offset (64-byte aligned) where it overlaps no placed activation whose lifetime
 * intersects its own. A frame's peak is the end of its highest block. Child frames
 * (called subgraphs) get their own regions after their parent's.
 */
#include "interp/interp_impl.h"
#include "interp/threadpool.h"
#include "interp/kernels/cpu_isa.h"

#include <stdarg.h>
#include <stdlib.h>

#define GC_ALIGN 64
#define GC_MAX_DEPTH 16

typedef struct { const void *src; int kind; int64_t a, b; size_t bytes; void *data; } derived_entry;

struct gc_interp {
    const gc_model *m;
    derived_entry *derived; int32_t n_derived, cap_derived;
    gc_interp_opts o;
    int isa;                    /* gc_isa of the fast kernels, fixed at gc_interp_new */
    int sig;                    /* signature index or -1 */
    int32_t entry_sg;
    int n_in, n_out;
    int32_t *in_t, *out_t;      /* entry tensor indices */
    const char **in_name, **out_name;
    int32_t (*in_shape)[GC_MAX_RANK];
    int *in_rank;
    bool *in_set;
    gc_arena pa;                /* persistent: frames, nodes, kernel data, small folded data */
    void **owned; int32_t n_owned, cap_owned;   /* folded outputs >= GC_OWN_MIN bytes (malloc) */
    size_t owned_bytes;         /* of those, still held */
    gc_frame *entry;
    gc_frame **frames; int32_t n_frames, cap_frames;
    uint8_t *arena; size_t arena_size;
    bool prepared, stopped;
    size_t naive_bytes;
    int32_t shape_mismatch;
    double prepare_ms, invoke_ms;
    /* fp64: FLOAT32 entry inputs / outputs are exchanged through float32 copies (stage),
     * node views narrowed into `narrow` (unless opts.fp64_views) */
    float **in_stage, **out_stage;
    void *narrow; size_t narrow_cap;
    gc_pool *pool;              /* opts.threads > 1: the workers every kernel splits over
                                   (threadpool.h), made at prepare; NULL: one thread */
    char err[512];
};

/* the worker count kernels size per-thread scratch by (the pool may have fewer) */
static int ctx_threads(const gc_interp *it) {
    return it->o.threads < 1 ? 1 : it->o.threads > GC_MAX_THREADS ? GC_MAX_THREADS : it->o.threads;
}

static bool prec_f16(int p) { return p == GC_PREC_FP16 || p == GC_PREC_FP16_ACC; }
/* the type a tensor of the model is held as: fp64 widens FLOAT32 and COMPLEX64 */
static int held_type(const gc_interp *it, int type) {
    if (it->o.precision != GC_PREC_FP64) return type;
    return type == GC_T_FLOAT32 ? GC_T_FLOAT64 : type == GC_T_COMPLEX64 ? GC_T_COMPLEX128 : type;
}
static bool widened(const gc_rt *r) {
    return r->ir && r->dtype != r->ir->type;
}

const char *gc_precision_name(gc_precision p) {
    return p == GC_PREC_FP16 ? "fp16" : p == GC_PREC_FP16_ACC ? "fp16-acc" : p == GC_PREC_FP64 ? "fp64" : "fp32";
}
int gc_precision_parse(const char *s) {
    if (!strcmp(s, "fp32")) return GC_PREC_FP32;
    if (!strcmp(s, "fp16")) return GC_PREC_FP16;
    if (!strcmp(s, "fp16-acc")) return GC_PREC_FP16_ACC;
    if (!strcmp(s, "fp64")) return GC_PREC_FP64;
    return -1;
}

const char *gc_qmode_name(gc_qmode q) { return q == GC_QMODE_XNNPACK ? "xnnpack" : "tflite"; }
int gc_float_arith_parse(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "fma")) return GC_FLOAT_FMA;
    if (!strcmp(s, "muladd")) return GC_FLOAT_MULADD;
    return -1;
}
/* an unknown GPUCLEAN_FLOAT_ARITH value is ignored (the CLI reports it: cli/main.c) */
gc_float_arith gc_float_arith_resolve(gc_float_arith a) {
    if (a == GC_FLOAT_FMA || a == GC_FLOAT_MULADD) return a;
    int e = gc_float_arith_parse(getenv("GPUCLEAN_FLOAT_ARITH"));
    return e > 0 ? (gc_float_arith)e : GC_FLOAT_ARITH_BUILTIN;
}
const char *gc_float_arith_name(gc_float_arith a) {
    return gc_float_arith_resolve(a) == GC_FLOAT_FMA ? "fma" : "muladd";
}
int gc_qmode_parse(const char *s) {
    if (!strcmp(s, "tflite")) return GC_QMODE_TFLITE;
    if (!strcmp(s, "xnnpack")) return GC_QMODE_XNNPACK;
    return -1;
}

/* ---- messages ------------------------------------------------------------------ */

gc_status gc_fail(gc_ctx *ctx, gc_status st, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    if (ctx->err && ctx->errlen) vsnprintf(ctx->err, ctx->errlen, fmt, ap);
    va_end(ap);
    return st;
}

static gc_status node_fail(gc_interp *it, gc_frame *f, const gc_node *n, gc_status st,
                           const char *msg) {
    snprintf(it->err, sizeof it->err, "subgraph %d op %d (%s): %s", (int)f->sg,
             (int)n->index, n->name, msg);
    return st;
}

/* ---- small helpers ---------------------------------------------------------------- */

void *gc_ctx_alloc(gc_ctx *ctx, size_t n) { return gc_arena_alloc(&ctx->it->pa, n ? n : 1); }

void *gc_ctx_derived(gc_ctx *ctx, const void *src, int kind, int64_t a, int64_t b,
                     size_t bytes, bool *fresh) {
    gc_interp *it = ctx->it;
    for (int32_t i = 0; i < it->n_derived; i++) {
        derived_entry *e = &it->derived[i];
        if (e->src == src && e->kind == kind && e->a == a && e->b == b && e->bytes == bytes) {
            *fresh = false;
            return e->data;
        }
    }
    if (!gc_grow((void **)&it->derived, &it->cap_derived, it->n_derived + 1, sizeof *it->derived)) return NULL;
    void *p = gc_arena_alloc(&it->pa, bytes ? bytes : 1);
    if (!p) return NULL;
    it->derived[it->n_derived++] = (derived_entry){ src, kind, a, b, bytes, p };
    *fresh = true;
    return p;
}

int gc_ctx_scratch(gc_ctx *ctx, gc_node *n, size_t bytes) {
    (void)ctx;
    if (n->n_scratch >= 4) return -1;
    n->scratch_bytes[n->n_scratch] = bytes;
    return n->n_scratch++;
}

gc_node *gc_ctx_sole_producer(gc_ctx *ctx, gc_node *n, const gc_rt *x) {
    if (ctx->observed || !x || x->kind != GC_RT_ACT) return NULL;
    gc_node *p = NULL;
    for (gc_node *q = ctx->f->nodes; q < n && !p; q++)
        for (int j = 0; j < q->n_out; j++)
            if (q->out[j] == x) p = q;
    if (!p || p->folded || p->absorbed || p->n_out != 1) return NULL;
    const gc_subgraph *s = ctx->f->s;
    for (int k = 0; k < s->n_outputs; k++)
        if (s->outputs[k] == x->index) return NULL;
    int32_t ops[2];
    if (gc_sg_consumers(ctx->m, ctx->f->sg, x->index, ops, 2) != 1) return NULL;
    return p;
}

gc_status gc_set_shape(gc_ctx *ctx, gc_rt *t, int rank, const int32_t *shape) {
    GC_ENSURE(ctx, rank >= 0 && rank <= GC_MAX_RANK, "tensor %d: rank %d out of range",
              (int)t->index, rank);
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) {
        GC_ENSURE(ctx, shape[i] >= 0, "tensor %d: negative dimension %d", (int)t->index, (int)shape[i]);
        if (!gc_mul_u64(n, (uint64_t)shape[i], &n) || n > ((uint64_t)1 << 40))
            return gc_fail(ctx, GC_ERR_NOMEM, "tensor %d: too many elements", (int)t->index);
    }
    uint64_t bytes = gc_type_bytes(t->dtype, n);
    GC_UNSUP(ctx, bytes != UINT64_MAX, "tensor %d: type %s has no fixed size", (int)t->index,
             gc_type_name(t->dtype));
    /* a small file can ask for a huge computed shape (BROADCAST_TO, TILE, FILL with
     * constant shapes): refuse beyond the limit instead of allocating it */
    uint64_t cap = ctx->it && ctx->it->o.max_tensor_bytes ? ctx->it->o.max_tensor_bytes : GC_DEFAULT_MAX_TENSOR_BYTES;
    if (bytes > cap)
        return gc_fail(ctx, GC_ERR_NOMEM, "tensor %d: %llu bytes, over the limit of %llu (gc_interp_opts.max_tensor_bytes)",
                       (int)t->index, (unsigned long long)bytes, (unsigned long long)cap);
    t->rank = rank;
    for (int i = 0; i < rank; i++) t->shape[i] = shape[i];
    t->nbytes = (size_t)bytes;
    return GC_OK;
}

gc_status gc_check_arity(gc_ctx *ctx, gc_node *n, int in_lo, int in_hi, int n_out) {
    GC_ENSURE(ctx, n->n_in >= in_lo && n->n_in <= in_hi, "expects %d..%d inputs, has %d",
              in_lo, in_hi, n->n_in);
    GC_ENSURE(ctx, n->n_out == n_out, "expects %d outputs, has %d", n_out, n->n_out);
    for (int i = 0; i < in_lo; i++)
        GC_ENSURE(ctx, n->in[i] != NULL, "input %d is required", i);
    return GC_OK;
}

gc_status gc_need_known(gc_ctx *ctx, gc_node *n, int slot, const char *what) {
    GC_ENSURE(ctx, slot < n->n_in && n->in[slot], "missing %s input", what);
    GC_UNSUP(ctx, n->in[slot]->known,
             "%s (input %d, tensor %d) is computed at run time; data-dependent shapes are "
             "not supported", what, slot, (int)n->in[slot]->index);
    return GC_OK;
}

int64_t gc_get_int(const gc_rt *t, size_t i) {
    switch (t->dtype) {
    case GC_T_INT64: { int64_t v; memcpy(&v, t->data + i * 8, 8); return v; }
    case GC_T_INT32: { int32_t v; memcpy(&v, t->data + i * 4, 4); return v; }
    case GC_T_INT16: { int16_t v; memcpy(&v, t->data + i * 2, 2); return v; }
    case GC_T_UINT8: return t->data[i];
    case GC_T_INT8:  return (int8_t)t->data[i];
    case GC_T_BOOL:  return t->data[i] != 0;
    case GC_T_UINT32: { uint32_t v; memcpy(&v, t->data + i * 4, 4); return v; }
    default: return 0;
    }
}

bool gc_bcast_shape(const gc_rt *a, const gc_rt *b, int *rank, int32_t *shape) {
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int32_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) return false;
        shape[i] = da == 1 ? db : da;
    }
    *rank = r;
    return true;
}

void gc_bcast_strides(const gc_rt *t, int rank, const int32_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        int it = i - (rank - t->rank);
        int32_t d = it >= 0 ? t->shape[it] : 1;
        strides[i] = (d == 1 && shape[i] != 1) ? 0 : s;
        s *= d;
    }
}

/* ---- entry ---------------------------------------------------------------------------- */

gc_interp *gc_interp_new(const gc_model *m, const gc_interp_opts *o, char *err, size_t errlen) {
    gc_interp *it = calloc(1, sizeof *it);
    if (!it) { gc_errf(err, errlen, "out of memory"); return NULL; }
    it->m = m;
    if (o) it->o = *o;
    it->o.float_arith = gc_float_arith_resolve(it->o.float_arith);
    it->isa = (int)gc_isa_active();
    int sig = it->o.signature;
    if (sig == GC_SIG_AUTO) sig = m->n_signatures > 0 ? 0 : -1;
    if (sig >= m->n_signatures) {
        gc_errf(err, errlen, "signature %d does not exist (the model has %d)", sig, (int)m->n_signatures);
        free(it); return NULL;
    }
    it->sig = sig;
    if (sig >= 0) {
        const gc_signature *s = &m->signatures[sig];
        it->entry_sg = (int32_t)s->subgraph;
        it->n_in = s->n_inputs; it->n_out = s->n_outputs;
    } else {
        it->entry_sg = it->o.subgraph;
        if (it->entry_sg < 0 || it->entry_sg >= m->n_subgraphs) {
            gc_errf(err, errlen, "subgraph %d does not exist (the model has %d)",
                    (int)it->entry_sg, (int)m->n_subgraphs);
            free(it); return NULL;
        }
        it->n_in = m->subgraphs[it->entry_sg].n_inputs;
        it->n_out = m->subgraphs[it->entry_sg].n_outputs;
    }
    if (it->entry_sg < 0 || it->entry_sg >= m->n_subgraphs) {
        gc_errf(err, errlen, "signature %d names subgraph %d, which does not exist", sig,
                (int)it->entry_sg);
        free(it); return NULL;
    }
    const gc_subgraph *sg = &m->subgraphs[it->entry_sg];
    size_t ni = (size_t)it->n_in + 1, no = (size_t)it->n_out + 1;
    it->in_t = gc_arena_alloc(&it->pa, ni * sizeof(int32_t));
    it->out_t = gc_arena_alloc(&it->pa, no * sizeof(int32_t));
    it->in_name = gc_arena_alloc(&it->pa, ni * sizeof(char *));
    it->out_name = gc_arena_alloc(&it->pa, no * sizeof(char *));
    it->in_shape = gc_arena_alloc(&it->pa, ni * sizeof *it->in_shape);
    it->in_rank = gc_arena_alloc(&it->pa, ni * sizeof(int));
    it->in_set = gc_arena_alloc(&it->pa, ni * sizeof(bool));
    if (!it->in_t || !it->out_t || !it->in_name || !it->out_name || !it->in_shape ||
        !it->in_rank || !it->in_set) {
        gc_errf(err, errlen, "out of memory"); gc_interp_free(it); return NULL;
    }
    for (int k = 0; k < it->n_in; k++) {
        int32_t t = sig >= 0 ? (int32_t)m->signatures[sig].inputs[k].tensor : sg->inputs[k];
        it->in_t[k] = t;
        it->in_name[k] = sig >= 0 ? m->signatures[sig].inputs[k].name : sg->tensors[t].name;
    }
    for (int k = 0; k < it->n_out; k++) {
        int32_t t = sig >= 0 ? (int32_t)m->signatures[sig].outputs[k].tensor : sg->outputs[k];
        it->out_t[k] = t;
        it->out_name[k] = sig >= 0 ? m->signatures[sig].outputs[k].name : sg->tensors[t].name;
    }
    for (int k = 0; k < it->n_in; k++) {
        int32_t t = it->in_t[k];
        if (t < 0 || t >= sg->n_tensors) {
            gc_errf(err, errlen, "entry input %d names tensor %d, out of range", k, (int)t);
            gc_interp_free(it); return NULL;
        }
    }
    for (int k = 0; k < it->n_out; k++) {
        int32_t t = it->out_t[k];
        if (t < 0 || t >= sg->n_tensors) {
            gc_errf(err, errlen, "entry output %d names tensor %d, out of range", k, (int)t);
            gc_interp_free(it); return NULL;
        }
    }
    return it;
}

void gc_interp_free(gc_interp *it) {
    if (!it) return;
    gc_pool_free(it->pool);
    for (int32_t i = 0; i < it->n_owned; i++) free(it->owned[i]);
    free(it->owned);
    free(it->arena);
    free(it->narrow);
    free(it->frames);
    free(it->derived);
    gc_arena_free(&it->pa);
    free(it);
}

int gc_interp_n_inputs(const gc_interp *it) { return it->n_in; }
int gc_interp_n_outputs(const gc_interp *it) { return it->n_out; }
int32_t gc_interp_entry_subgraph(const gc_interp *it) { return it->entry_sg; }
const char *gc_interp_signature_key(const gc_interp *it) {
    return it->sig >= 0 ? it->m->signatures[it->sig].key : NULL;
}
const char *gc_interp_errmsg(const gc_interp *it) { return it->err; }
bool gc_interp_stopped(const gc_interp *it) { return it->stopped; }

int gc_interp_find_input(const gc_interp *it, const char *name) {
    const gc_subgraph *sg = &it->m->subgraphs[it->entry_sg];
    for (int k = 0; k < it->n_in; k++)
        if (it->in_name[k] && !strcmp(it->in_name[k], name)) return k;
    for (int k = 0; k < it->n_in; k++)
        if (!strcmp(sg->tensors[it->in_t[k]].name, name)) return k;
    return -1;
}

gc_status gc_interp_set_input_shape(gc_interp *it, int k, int rank, const int32_t *shape) {
    if (k < 0 || k >= it->n_in) { gc_errf(it->err, sizeof it->err, "no input %d", k); return GC_ERR_USAGE; }
    const gc_tensor *t = &it->m->subgraphs[it->entry_sg].tensors[it->in_t[k]];
    if (rank < 0 || rank > GC_MAX_RANK) {
        gc_errf(it->err, sizeof it->err, "input %d: rank %d out of range", k, rank);
        return GC_ERR_USAGE;
    }
    if (t->rank != rank && !(t->rank == 0 && !t->has_rank)) {
        gc_errf(it->err, sizeof it->err, "input %d ('%s'): rank %d given, the model says %d",
                k, it->in_name[k], rank, (int)t->rank);
        return GC_ERR_USAGE;
    }
    for (int d = 0; d < rank; d++) {
        bool dynamic = t->n_shape_signature == t->rank && d < t->rank && t->shape_signature[d] < 0;
        if (shape[d] < 0 || (d < t->rank && !dynamic && shape[d] != t->shape[d])) {
            gc_errf(it->err, sizeof it->err, "input %d ('%s'): dimension %d is %d, the model "
                    "fixes it at %d", k, it->in_name[k], d, (int)shape[d], (int)t->shape[d]);
            return GC_ERR_USAGE;
        }
        it->in_shape[k][d] = shape[d];
    }
    it->in_rank[k] = rank;
    it->in_set[k] = true;
    return GC_OK;
}

/* ---- frames ------------------------------------------------------------------------- */

static gc_status frame_prepare(gc_interp *it, int32_t sg, int depth, int n_in,
                               gc_rt *const *ins, gc_frame **out);

static gc_status add_frame(gc_interp *it, gc_frame *f) {
    if (!gc_grow((void **)&it->frames, &it->cap_frames, it->n_frames + 1, sizeof(gc_frame *))) {
        snprintf(it->err, sizeof it->err, "out of memory");
        return GC_ERR_NOMEM;
    }
    it->frames[it->n_frames++] = f;
    return GC_OK;
}

static void *own_alloc(gc_interp *it, size_t n);
/* Folded outputs and fp16-rounded constant copies this large get their own allocation,
 * so that they can be given back when every op that reads them has taken its own copy
 * (release_inputs). */
#define GC_OWN_MIN ((size_t)64 << 10)

/* Initialise the run-time view of every tensor of a subgraph. */
static gc_status init_tensors(gc_interp *it, gc_frame *f) {
    const gc_model *m = it->m;
    const gc_subgraph *s = f->s;
    bool fp16 = prec_f16(it->o.precision);
    /* native fp16: one-element float constants reach the kernels as float arguments */
    const gc_f16_model *hm = it->o.precision == GC_PREC_FP16 ? gc_f16_model_for(it->o.gpu_runtime) : NULL;
    bool scalar_float = hm && hm->scalar_args;
    for (int32_t i = 0; i < s->n_tensors; i++) {
        gc_rt *r = &f->t[i];
        const gc_tensor *t = &s->tensors[i];
        r->ir = t; r->index = i; r->dtype = t->type; r->rank = t->rank;
        r->first = r->last = -1;
        for (int d = 0; d < t->rank && d < GC_MAX_RANK; d++) r->shape[d] = t->shape[d];
        if (t->rank > GC_MAX_RANK) {
            snprintf(it->err, sizeof it->err, "subgraph %d tensor %d: rank %d exceeds %d",
                     (int)f->sg, (int)i, (int)t->rank, GC_MAX_RANK);
            return GC_ERR_UNSUPPORTED;
        }
        if (t->quant) {
            r->q = t->quant;
            if (t->quant->n_scale == 1) {
                r->scale = t->quant->scale[0];
                r->zp = t->quant->n_zero_point >= 1 ? (int32_t)t->quant->zero_point[0] : 0;
            }
        }
        uint64_t n = gc_tensor_numel(t), bytes = gc_type_bytes(t->type, n);
        r->nbytes = bytes == UINT64_MAX ? 0 : (size_t)bytes;
        if (gc_tensor_is_const(m, t) && t->sparsity) {
            /* stored sparse: densify once into persistent memory (DENSIFY then copies it) */
            const gc_buffer *b = gc_tensor_buffer(m, t);
            uint64_t cap = it->o.max_tensor_bytes ? it->o.max_tensor_bytes : GC_DEFAULT_MAX_TENSOR_BYTES;
            if (bytes == UINT64_MAX || bytes > cap) {
                snprintf(it->err, sizeof it->err, "subgraph %d tensor %d ('%s'): sparse tensor of %llu dense bytes "
                         "is over the limit of %llu", (int)f->sg, (int)i, t->name, (unsigned long long)bytes,
                         (unsigned long long)cap);
                return bytes == UINT64_MAX ? GC_ERR_FORMAT : GC_ERR_NOMEM;
            }
            uint8_t *p = gc_arena_alloc(&it->pa, r->nbytes ? r->nbytes : 1);
            if (!p) { snprintf(it->err, sizeof it->err, "out of memory"); return GC_ERR_NOMEM; }
            char serr[256];
            gc_status sst = gc_sparse_densify(t, b->data, b->size, p, r->nbytes, serr, sizeof serr);
            if (sst != GC_OK) {
                snprintf(it->err, sizeof it->err, "subgraph %d tensor %d ('%s'): sparse tensor: %s", (int)f->sg,
                         (int)i, t->name, serr);
                return sst;
            }
            if (fp16 && t->type == GC_T_FLOAT32) gc_f16_round_n((float *)p, r->nbytes / 4);
            r->kind = GC_RT_CONST; r->known = true; r->data = p;
        } else if (gc_tensor_is_const(m, t)) {
            const gc_buffer *b = gc_tensor_buffer(m, t);
            if (bytes == UINT64_MAX || b->size < bytes) {
                snprintf(it->err, sizeof it->err, "subgraph %d tensor %d ('%s'): buffer holds %llu "
                         "bytes, shape and type need %llu", (int)f->sg, (int)i, t->name,
                         (unsigned long long)b->size, (unsigned long long)bytes);
                return GC_ERR_FORMAT;
            }
            r->kind = GC_RT_CONST; r->known = true;
            /* data must be aligned for its type; copy when not (or when rounding) */
            bool round16 = fp16 && t->type == GC_T_FLOAT32 && !(scalar_float && n == 1);
            bool copy = ((uintptr_t)b->data % 8) != 0 || round16;
            if (copy) {
                r->owned = round16 && r->nbytes >= GC_OWN_MIN;
                uint8_t *p = r->owned ? own_alloc(it, r->nbytes) : gc_arena_alloc(&it->pa, r->nbytes ? r->nbytes : 1);
                if (!p) { snprintf(it->err, sizeof it->err, "out of memory"); return GC_ERR_NOMEM; }
                memcpy(p, b->data, r->nbytes);
                if (round16) gc_f16_round_n((float *)p, r->nbytes / 4);
                r->data = p;
            } else {
                r->data = (uint8_t *)b->data;
            }
        } else if (t->is_variable) {
            r->kind = GC_RT_VAR;
        }
        /* fp64: float tensors are held in double; constants widened here (exact) */
        int ht = held_type(it, t->type);
        if (ht != t->type && n != UINT64_MAX) {
            uint64_t wb = gc_type_bytes(ht, n);
            if (wb == UINT64_MAX || wb > SIZE_MAX) {
                snprintf(it->err, sizeof it->err, "subgraph %d tensor %d ('%s'): too large to hold in double",
                         (int)f->sg, (int)i, t->name);
                return GC_ERR_NOMEM;
            }
            if (r->kind == GC_RT_CONST) {
                double *w = gc_arena_alloc(&it->pa, wb ? (size_t)wb : 1);
                if (!w) { snprintf(it->err, sizeof it->err, "out of memory"); return GC_ERR_NOMEM; }
                uint64_t ne = (uint64_t)(wb / 8);
                for (uint64_t e = 0; e < ne; e++) { float v; memcpy(&v, r->data + e * 4, 4); w[e] = v; }
                r->data = (uint8_t *)w;
            }
            r->dtype = (int8_t)ht; r->nbytes = (size_t)wb;
        }
        if (r->kind == GC_RT_VAR) {
            r->data = gc_arena_alloc(&it->pa, r->nbytes ? r->nbytes : 1);
            if (!r->data) { snprintf(it->err, sizeof it->err, "out of memory"); return GC_ERR_NOMEM; }
            /* TFLite's ResetVariableTensor: zero bytes, INT8 ones at their zero point */
            if (r->dtype == GC_T_INT8 && r->zp) memset(r->data, (int8_t)r->zp, r->nbytes);
        }
    }
    return GC_OK;
}

static void *own_alloc(gc_interp *it, size_t n) {
    if (!gc_grow((void **)&it->owned, &it->cap_owned, it->n_owned + 1, sizeof *it->owned)) return NULL;
    void *p = calloc(1, n);
    if (!p) return NULL;
    it->owned[it->n_owned++] = p;
    it->owned_bytes += n;
    return p;
}

static void own_free(gc_interp *it, void *p, size_t n) {
    /* derived data is looked up by its source's address, which a later allocation may reuse */
    for (int32_t i = 0; i < it->n_derived; i++)
        if ((const uint8_t *)it->derived[i].src >= (const uint8_t *)p &&
            (const uint8_t *)it->derived[i].src < (const uint8_t *)p + n) it->derived[i].src = NULL;
    for (int32_t i = 0; i < it->n_owned; i++)
        if (it->owned[i] == p) {
            free(p);
            it->owned[i] = it->owned[--it->n_owned];
            it->owned_bytes -= n;
            return;
        }
}

/* Evaluate a node at prepare (all inputs known): outputs go to persistent memory. */
static gc_status fold_node(gc_interp *it, gc_frame *f, gc_node *n, gc_ctx *ctx) {
    for (int j = 0; j < n->n_out; j++) {
        gc_rt *o = n->out[j];
        o->data = o->nbytes >= GC_OWN_MIN ? own_alloc(it, o->nbytes) : gc_arena_alloc(&it->pa, o->nbytes ? o->nbytes : 1);
        if (!o->data) return GC_ERR_NOMEM;
    }
    for (int s = 0; s < n->n_scratch; s++) {
        n->scratch[s] = calloc(1, n->scratch_bytes[s] ? n->scratch_bytes[s] : 1);
        if (!n->scratch[s]) return GC_ERR_NOMEM;
    }
    gc_status st = n->k->eval(ctx, n);
    for (int s = 0; s < n->n_scratch; s++) { free(n->scratch[s]); n->scratch[s] = NULL; }
    if (st != GC_OK) return node_fail(it, f, n, st, ctx->err);
    for (int j = 0; j < n->n_out; j++) {
        gc_rt *o = n->out[j];
        if (prec_f16(it->o.precision) && o->dtype == GC_T_FLOAT32 && !(n->k->flags & GC_K_OWN_ROUND))
            gc_f16_round_n((float *)o->data, o->nbytes / 4);
        o->kind = GC_RT_FOLDED; o->known = true;
    }
    n->folded = true;
    return GC_OK;
}

typedef struct { size_t size; int32_t first, last; size_t *offset; int32_t order; } plan_item;

static int plan_cmp(const void *a, const void *b) {
    const plan_item *x = a, *y = b;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Aliases: the output of a RESHAPE / SQUEEZE / EXPAND_DIMS whose input is an activation
 * of the same size shares the input's block (its eval then copies nothing: the bytes are
 * the same). rep[t]: the tensor whose block t uses (itself when none); the block lives
 * from the first step of any of its tensors to the last. Not in fp16 modes, where the
 * core rounds an op's float outputs in place: an alias would round its input too.
 * In place: a float SOFTMAX / LOG_SOFTMAX whose input block nobody reads after it (the
 * input's tensors, itself and the aliases made so far, last read at the op's step; later
 * aliases would be later reads) writes its output over its input (softmax.c computes each
 * row's max from the row, then writes each element after reading it: the same bits in
 * place). An attention's score tensor is the largest activation of a transformer
 * (whisper-tiny's encoder: 6 x 1500 x 1500 floats, 54 MB), so this halves its peak.
 * Any precision: the input is dead, so rounding the output in place harms nothing.
 * Likewise a swish (a MUL of x and an absorbed LOGISTIC(x), elementwise.c: fp32 only)
 * whose x block nobody reads after it writes y over x (kernels/vexpf.h: x may be y), so
 * that its stores find their lines in cache. And when x comes from an op that can apply the
 * swish to its own output as it computes it (gc_node.swish_epi_ok: the fast float convs)
 * and nothing but the swish's absorbed LOGISTIC reads x in between, that op does (its
 * output block is y's) and the MUL is absorbed too: the same expf bits, while each tile is
 * in cache, and one pass over the tensor less. */
static int32_t last_read(const gc_frame *f, const int32_t *rep, const gc_rt *x) {
    int32_t last = 0;
    for (int32_t t = 0; t < f->s->n_tensors; t++)
        if (rep[t] == rep[x->index] && f->t[t].last > last) last = f->t[t].last;
    return last;
}

/* node i is a swish (its LOGISTIC absorbed): its x, else NULL */
static const gc_rt *swish_x(const gc_frame *f, int32_t i) {
    const gc_node *n = &f->nodes[i];
    if (n->code != GC_OP_MUL || n->n_in != 2 || n->n_out != 1 || !n->in[0] || !n->in[1]) return NULL;
    for (int side = 0; side < 2; side++) {
        const gc_rt *sig = n->in[side], *x = n->in[1 - side];
        for (int32_t j = 0; j < i; j++) {
            const gc_node *p = &f->nodes[j];
            if (p->n_out == 1 && p->out[0] == sig) {
                if (p->absorbed && p->code == GC_OP_LOGISTIC && p->n_in >= 1 && p->in[0] == x) return x;
                break;
            }
        }
    }
    return NULL;
}

/* the swish MUL i over x (y aliased to x): its producer does the swish, when it can (above) */
static void plan_swish_epilogue(gc_frame *f, const int32_t *rep, int32_t i, const gc_rt *x) {
    int32_t j = i - 1;
    for (; j >= 0; j--) {
        const gc_node *p = &f->nodes[j];
        bool writes = false;
        for (int k = 0; k < p->n_out; k++) writes = writes || p->out[k] == x;
        if (writes) break;
    }
    if (j < 0) return;
    gc_node *p = &f->nodes[j];
    if (!p->swish_epi_ok || p->folded || p->absorbed || p->n_out != 1 || p->swish_epi) return;
    for (int32_t k = j + 1; k < i; k++) {                /* between them: only the absorbed LOGISTIC */
        const gc_node *q = &f->nodes[k];
        if (q->folded || (q->absorbed && q->code == GC_OP_LOGISTIC && q->n_in >= 1 && q->in[0] == x)) continue;
        for (int a = 0; a < q->n_in; a++)
            if (q->in[a] && rep[q->in[a]->index] == rep[x->index]) return;
        for (int a = 0; a < q->n_out; a++)
            if (q->out[a] && rep[q->out[a]->index] == rep[x->index]) return;
    }
    p->swish_epi = true;
    f->nodes[i].absorbed = true;
}

static void plan_aliases(const gc_interp *it, gc_frame *f, int32_t *rep) {
    for (int32_t i = 0; i < f->s->n_tensors; i++) rep[i] = i;
    const bool f16 = prec_f16(it->o.precision);
    for (int32_t i = 0; i < f->n_nodes; i++) {
        const gc_node *n = &f->nodes[i];
        const gc_rt *sx = n->folded ? NULL : swish_x(f, i);
        if (sx) {
            const gc_rt *y = n->out[0];
            if (sx->kind == GC_RT_ACT && y->kind == GC_RT_ACT && sx->nbytes == y->nbytes && sx->dtype == GC_T_FLOAT32 &&
                y->dtype == GC_T_FLOAT32 && last_read(f, rep, sx) == i + 1) {
                rep[y->index] = rep[sx->index];
                plan_swish_epilogue(f, rep, i, sx);
            }
            continue;
        }
        if (n->folded || n->n_in < 1 || n->n_out != 1 || !n->in[0] || !n->out[0]) continue;
        const gc_rt *x = n->in[0], *y = n->out[0];
        if (x->kind != GC_RT_ACT || y->kind != GC_RT_ACT || x->nbytes != y->nbytes || x->dtype != y->dtype) continue;
        if (n->code == GC_OP_SOFTMAX || n->code == GC_OP_LOG_SOFTMAX) {
            if ((x->dtype != GC_T_FLOAT32 && x->dtype != GC_T_FLOAT64) || n->n_in != 1) continue;
            if (last_read(f, rep, x) != i + 1) continue;      /* read later, or a subgraph in/output */
            rep[y->index] = rep[x->index];
            continue;
        }
        if (f16) continue;
        if (n->code != GC_OP_RESHAPE && n->code != GC_OP_SQUEEZE && n->code != GC_OP_EXPAND_DIMS) continue;
        rep[y->index] = rep[x->index];             /* x's rep is final: nodes run in order */
    }
}

/* Greedy by size; returns the region size. */
static gc_status plan_frame(gc_interp *it, gc_frame *f) {
    int32_t n_items = 0;
    int32_t *rep = calloc((size_t)f->s->n_tensors + 1, sizeof *rep);
    if (!rep) return GC_ERR_NOMEM;
    plan_aliases(it, f, rep);
    for (int32_t i = 0; i < f->s->n_tensors; i++) {
        gc_rt *r = &f->t[i];
        if (r->kind != GC_RT_ACT) continue;
        it->naive_bytes += (r->nbytes + GC_ALIGN - 1) / GC_ALIGN * GC_ALIGN;
        if (rep[i] == i) { n_items++; continue; }
        gc_rt *g = &f->t[rep[i]];                  /* the shared block's lifetime */
        if (r->first < g->first) g->first = r->first;
        if (r->last > g->last) g->last = r->last;
    }
    for (int32_t i = 0; i < f->n_nodes; i++) n_items += f->nodes[i].folded ? 0 : f->nodes[i].n_scratch;
    plan_item *items = calloc((size_t)n_items + 1, sizeof *items);
    int32_t *placed = calloc((size_t)n_items + 1, sizeof *placed);
    if (!items || !placed) { free(items); free(placed); free(rep); return GC_ERR_NOMEM; }
    int32_t k = 0;
    for (int32_t i = 0; i < f->s->n_tensors; i++) {
        gc_rt *r = &f->t[i];
        if (r->kind != GC_RT_ACT || rep[i] != i) continue;
        items[k] = (plan_item){ (r->nbytes + GC_ALIGN - 1) / GC_ALIGN * GC_ALIGN,
                                r->first, r->last, &r->offset, k };
        k++;
    }
    for (int32_t i = 0; i < f->n_nodes; i++) {
        gc_node *n = &f->nodes[i];
        if (n->folded) continue;
        for (int s = 0; s < n->n_scratch; s++) {
            items[k] = (plan_item){ (n->scratch_bytes[s] + GC_ALIGN - 1) / GC_ALIGN * GC_ALIGN,
                                    i + 1, i + 1, &n->scratch_off[s], k };
            it->naive_bytes += items[k].size;
            k++;
        }
    }
    qsort(items, (size_t)n_items, sizeof *items, plan_cmp);
    size_t peak = 0;
    int32_t n_placed = 0;
    for (int32_t i = 0; i < n_items; i++) {
        plan_item *a = &items[i];
        size_t off = 0;
        /* placed blocks are kept sorted by offset; first gap that fits wins */
        for (int32_t j = 0; j < n_placed; j++) {
            plan_item *b = &items[placed[j]];
            if (b->last < a->first || b->first > a->last) continue;   /* lifetimes apart */
            if (*b->offset >= off + a->size) break;                      /* gap before b fits */
            if (*b->offset + b->size > off) off = *b->offset + b->size;
        }
        *a->offset = off;
        if (off + a->size > peak) peak = off + a->size;
        int32_t pos = n_placed;
        while (pos > 0 && *items[placed[pos - 1]].offset > off) { placed[pos] = placed[pos - 1]; pos--; }
        placed[pos] = i;
        n_placed++;
    }
    for (int32_t i = 0; i < f->s->n_tensors; i++)
        if (f->t[i].kind == GC_RT_ACT && rep[i] != i) f->t[i].offset = f->t[rep[i]].offset;
    free(items); free(placed); free(rep);
    f->size = peak;
    return GC_OK;
}

/* After node n is prepared (and folded, if it was): the constant and folded tensors it
 * was the last to need give their memory back. An input is no longer needed by n when n
 * was folded (it never runs again) or says it does not read it (unread_in). A tensor
 * whose every reader is done: a CONST one drops its pages of the mapped model file
 * (gc_model_drop_pages: they come back from the file if read again), or, when it is an
 * fp16-rounded copy in its own allocation, is freed; a FOLDED one held in its own
 * allocation is freed (not when a node callback may look at it, nor when it is an
 * output of the subgraph). `left` counts, per tensor, the reads not yet done. */
static void release_inputs(gc_interp *it, gc_frame *f, const gc_node *n, int32_t *left) {
    for (int j = 0; j < n->n_in; j++) {
        gc_rt *r = n->in[j];
        if (!r || !(n->folded || (j < 32 && (n->unread_in >> j & 1u)))) continue;
        if (--left[r->index] != 0) continue;
        bool is_out = false;
        for (int k = 0; k < f->s->n_outputs; k++) is_out |= f->s->outputs[k] == r->index;
        if (is_out) continue;
        if (r->kind == GC_RT_CONST && r->owned) { own_free(it, r->data, r->nbytes); r->data = NULL; r->owned = false; }
        else if (r->kind == GC_RT_CONST) gc_model_drop_pages(it->m, r->data, r->nbytes);
        else if (r->kind == GC_RT_FOLDED && !it->o.on_node && r->nbytes >= GC_OWN_MIN) {
            own_free(it, r->data, r->nbytes);
            r->data = NULL;
        }
    }
}

/* fp16: mark the nodes whose float outputs are only copies of float inputs that already
 * hold halves (node->out_half), whose rounding at the store is then the identity (plain
 * or saturating: a half is finite within +-65504, or an infinity, or a NaN whose low
 * payload bits are clear) and is skipped. Known halves: the entry frame's float inputs
 * (rounded at invoke), the constants rounded at init (not the native runtime's
 * one-element ones), the outputs of folded nodes (rounded at prepare), the outputs every
 * other node stores rounded (all but the float chains' keep_float ones), and, in order,
 * the outputs of marked nodes. The data-movement ops: RESHAPE, SQUEEZE, EXPAND_DIMS,
 * TRANSPOSE, SLICE, STRIDED_SLICE, GATHER, CONCATENATION (its fused clamps keep halves
 * halves), PACK, UNPACK, SPLIT, SPLIT_V, TILE, BROADCAST_TO (shape.c, slice.c: copies). */
static gc_status mark_half_copies(gc_interp *it, gc_frame *f, bool entry) {
    const gc_subgraph *s = f->s;
    bool *half = calloc((size_t)s->n_tensors + 1, sizeof *half);
    if (!half) return GC_ERR_NOMEM;
    const gc_f16_model *hm = it->o.precision == GC_PREC_FP16 ? gc_f16_model_for(it->o.gpu_runtime) : NULL;
    const bool scalar_float = hm && hm->scalar_args;
    for (int32_t i = 0; i < s->n_tensors; i++) {
        const gc_rt *r = &f->t[i];
        half[i] = r->kind == GC_RT_CONST && r->dtype == GC_T_FLOAT32 &&
                  (r->ir->sparsity || !(scalar_float && gc_tensor_numel(r->ir) == 1));
    }
    for (int k = 0; entry && k < s->n_inputs; k++) half[s->inputs[k]] = f->t[s->inputs[k]].dtype == GC_T_FLOAT32;
    for (int32_t i = 0; i < f->n_nodes; i++) {
        gc_node *n = &f->nodes[i];
        bool copy = false;
        switch (n->code) {
        case GC_OP_RESHAPE: case GC_OP_SQUEEZE: case GC_OP_EXPAND_DIMS: case GC_OP_TRANSPOSE: case GC_OP_SLICE:
        case GC_OP_STRIDED_SLICE: case GC_OP_GATHER: case GC_OP_CONCATENATION: case GC_OP_PACK: case GC_OP_UNPACK:
        case GC_OP_SPLIT: case GC_OP_SPLIT_V: case GC_OP_TILE: case GC_OP_BROADCAST_TO:
            copy = !n->folded && !n->keep_float && !(n->k->flags & GC_K_OWN_ROUND);
            break;
        default:
            break;
        }
        for (int j = 0; copy && j < n->n_in; j++)
            if (n->in[j] && n->in[j]->dtype == GC_T_FLOAT32 && !half[n->in[j]->index]) copy = false;
        n->out_half = copy;
        /* its outputs hold halves unless they stay float (a chain) or a kernel rounds them
         * its own way */
        const bool out_is_half = n->folded ? !(n->k->flags & GC_K_OWN_ROUND) : !n->keep_float && !(n->k->flags & GC_K_OWN_ROUND);
        for (int j = 0; j < n->n_out; j++)
            if (n->out[j] && n->out[j]->dtype == GC_T_FLOAT32) half[n->out[j]->index] = out_is_half;
    }
    free(half);
    return GC_OK;
}

static gc_status frame_prepare(gc_interp *it, int32_t sg, int depth, int n_in,
                               gc_rt *const *ins, gc_frame **out) {
    const gc_model *m = it->m;
    if (depth > GC_MAX_DEPTH) {
        snprintf(it->err, sizeof it->err, "subgraph %d: calls nested deeper than %d", (int)sg, GC_MAX_DEPTH);
        return GC_ERR_UNSUPPORTED;
    }
    gc_frame *f = gc_arena_alloc(&it->pa, sizeof *f);
    if (!f) return GC_ERR_NOMEM;
    f->sg = sg; f->s = &m->subgraphs[sg]; f->depth = depth;
    const gc_subgraph *s = f->s;
    f->t = gc_arena_alloc(&it->pa, ((size_t)s->n_tensors + 1) * sizeof *f->t);
    f->nodes = gc_arena_alloc(&it->pa, ((size_t)s->n_ops + 1) * sizeof *f->nodes);
    int32_t *order = calloc((size_t)s->n_ops + 1, sizeof *order);
    if (!f->t || !f->nodes || !order) { free(order); return GC_ERR_NOMEM; }
    gc_status st = add_frame(it, f);
    if (st == GC_OK) st = init_tensors(it, f);
    if (st != GC_OK) { free(order); return st; }

    /* inputs: shapes from the caller (entry: the user or the model) */
    if (n_in != s->n_inputs) {
        snprintf(it->err, sizeof it->err, "subgraph %d takes %d inputs, called with %d",
                 (int)sg, (int)s->n_inputs, n_in);
        free(order); return GC_ERR_FORMAT;
    }
    for (int k = 0; k < s->n_inputs; k++) {
        gc_rt *r = &f->t[s->inputs[k]];
        if (r->kind == GC_RT_CONST) continue;          /* odd but harmless */
        r->kind = GC_RT_ACT; r->first = 0;
        if (ins && ins[k]) {
            if (ins[k]->dtype != r->dtype) {
                snprintf(it->err, sizeof it->err, "subgraph %d input %d is %s, called with %s",
                         (int)sg, k, gc_type_name(r->dtype), gc_type_name(ins[k]->dtype));
                free(order); return GC_ERR_FORMAT;
            }
            r->rank = ins[k]->rank;
            memcpy(r->shape, ins[k]->shape, sizeof r->shape);
        }
        uint64_t bytes = gc_type_bytes(r->dtype, gc_numel(r));
        if (bytes == UINT64_MAX) {
            snprintf(it->err, sizeof it->err, "subgraph %d input %d: type %s is not supported",
                     (int)sg, k, gc_type_name(r->dtype));
            free(order); return GC_ERR_UNSUPPORTED;
        }
        r->nbytes = (size_t)bytes;
    }

    st = gc_sg_topo_order(m, sg, order);
    if (st != GC_OK) {
        snprintf(it->err, sizeof it->err, "subgraph %d: the ops form a cycle", (int)sg);
        free(order); return st;
    }
    /* reads per tensor (release_inputs); op inputs were range-checked when the model was read */
    int32_t *left = calloc((size_t)s->n_tensors + 1, sizeof *left);
    if (!left) { free(order); return GC_ERR_NOMEM; }
    for (int32_t i = 0; i < s->n_ops; i++)
        for (int j = 0; j < s->ops[i].n_inputs; j++)
            if (s->ops[i].inputs[j] >= 0 && s->ops[i].inputs[j] < s->n_tensors) left[s->ops[i].inputs[j]]++;
    f->n_nodes = s->n_ops;
    char kerr[384];
    gc_ctx ctx = { .it = it, .f = f, .m = m, .precision = it->o.precision,
                   .fp16 = prec_f16(it->o.precision),
                   .hm = it->o.precision == GC_PREC_FP16 ? gc_f16_model_for(it->o.gpu_runtime) : NULL,
                   .acc16 = it->o.precision == GC_PREC_FP16_ACC,
                   .fp64 = it->o.precision == GC_PREC_FP64,
                   .xnn = it->o.qmode == GC_QMODE_XNNPACK,
                   .fma = it->o.float_arith == GC_FLOAT_FMA && it->o.precision == GC_PREC_FP32,
                   .threads = ctx_threads(it), .pool = it->pool,
                   .fast = it->o.precision == GC_PREC_FP32 && !it->o.reference_kernels,
                   .fast_float = it->o.precision != GC_PREC_FP64 && !it->o.reference_kernels, .isa = it->isa,
                   .reference = it->o.reference_kernels,
                   .observed = it->o.on_node != NULL,
                   .err = kerr, .errlen = sizeof kerr };
    for (int32_t i = 0; i < s->n_ops; i++) {
        gc_node *n = &f->nodes[i];
        const gc_op *op = &s->ops[order[i]];
        n->op = op; n->index = order[i];
        n->code = gc_op_builtin(m, op);
        n->version = m->opcodes[op->opcode_index].version;
        n->name = gc_op_name(m, op);
        n->n_in = op->n_inputs; n->n_out = op->n_outputs;
        n->in = gc_arena_alloc(&it->pa, ((size_t)n->n_in + 1) * sizeof(gc_rt *));
        n->out = gc_arena_alloc(&it->pa, ((size_t)n->n_out + 1) * sizeof(gc_rt *));
        if (!n->in || !n->out) { free(order); free(left); return GC_ERR_NOMEM; }
        for (int j = 0; j < n->n_in; j++)
            n->in[j] = op->inputs[j] >= 0 ? &f->t[op->inputs[j]] : NULL;
        for (int j = 0; j < n->n_out; j++) n->out[j] = op->outputs[j] >= 0 ? &f->t[op->outputs[j]] : NULL;
        bool wide = false;
        for (int j = 0; j < n->n_in; j++) wide |= n->in[j] && widened(n->in[j]);
        for (int j = 0; j < n->n_out; j++) wide |= n->out[j] && widened(n->out[j]);
        n->k = wide ? gc_kernel_for_f64(n->code) : gc_kernel_for(n->code);
        if (!n->k) {
            free(order); free(left);
            if (n->code == GC_OP_CUSTOM)
                return node_fail(it, f, n, GC_ERR_UNSUPPORTED, "custom op has no kernel in gpuclean's interpreter");
            return node_fail(it, f, n, GC_ERR_UNSUPPORTED, "op not implemented by gpuclean's interpreter");
        }
        for (int j = 0; j < n->n_in; j++) {
            gc_rt *r = n->in[j];
            if (!r) continue;
            if (r->kind == GC_RT_NONE) {
                free(order); free(left);
                snprintf(kerr, sizeof kerr, "input %d (tensor %d '%s') is neither constant, nor a "
                         "subgraph input, nor written by an earlier op", j, (int)r->index, r->ir->name);
                return node_fail(it, f, n, GC_ERR_FORMAT, kerr);
            }
        }
        for (int j = 0; j < n->n_out; j++) {
            gc_rt *o = n->out[j];
            if (!o) { free(order); free(left); return node_fail(it, f, n, GC_ERR_FORMAT, "an output is absent (-1)"); }
            if (o->kind != GC_RT_NONE) {
                free(order); free(left);
                snprintf(kerr, sizeof kerr, "output %d (tensor %d) is also a constant, an input or "
                         "another op's output", j, (int)o->index);
                return node_fail(it, f, n, GC_ERR_FORMAT, kerr);
            }
            o->rank = -1;
        }
        kerr[0] = 0;
        st = n->k->prepare(&ctx, n);
        if (st != GC_OK) { free(order); free(left); return node_fail(it, f, n, st, kerr[0] ? kerr : "prepare failed"); }
        for (int j = 0; j < n->n_out; j++) {
            gc_rt *o = n->out[j];
            if (o->rank < 0) { free(order); free(left); return node_fail(it, f, n, GC_ERR_FORMAT, "kernel set no output shape"); }
            /* a kernel's shape that disagrees with a static shape in the file is noted */
            const gc_tensor *t = o->ir;
            bool dyn = false;
            for (int d = 0; d < t->n_shape_signature; d++) dyn |= t->shape_signature[d] < 0;
            if (!dyn && (t->rank > 0 || t->has_rank)) {
                bool same = t->rank == o->rank;
                for (int d = 0; same && d < o->rank; d++) same = t->shape[d] == o->shape[d];
                if (!same) it->shape_mismatch++;
            }
            o->kind = GC_RT_ACT;
        }
        bool all_known = n->n_in > 0;
        for (int j = 0; j < n->n_in; j++) if (n->in[j] && !n->in[j]->known) all_known = false;
        if (n->k->flags & GC_K_SHAPE_ONLY) all_known = true;
        if (all_known && !(n->k->flags & GC_K_NOFOLD)) {
            kerr[0] = 0;
            st = fold_node(it, f, n, &ctx);
            if (st != GC_OK) { free(order); free(left); return st; }
        }
        release_inputs(it, f, n, left);
    }
    free(order); free(left);
    if (it->o.precision == GC_PREC_FP16 && gc_f16_model_for(it->o.gpu_runtime)->reduce_chains)
        gc_f16_mark_chains(f);
    if (prec_f16(it->o.precision)) {
        st = mark_half_copies(it, f, depth == 0);
        if (st != GC_OK) return st;
    }

    /* lifetimes */
    for (int32_t i = 0; i < f->n_nodes; i++) {
        gc_node *n = &f->nodes[i];
        if (n->folded) continue;
        for (int j = 0; j < n->n_out; j++) {
            gc_rt *o = n->out[j];
            if (o->kind == GC_RT_ACT) { o->first = i + 1; if (o->last < i + 1) o->last = i + 1; }
        }
        for (int j = 0; j < n->n_in; j++) {
            gc_rt *r = n->in[j];
            if (r && r->kind == GC_RT_ACT && r->last < i + 1) r->last = i + 1;
        }
    }
    for (int k = 0; k < s->n_outputs; k++) {
        gc_rt *r = &f->t[s->outputs[k]];
        if (r->kind == GC_RT_ACT) r->last = f->n_nodes + 1;
    }
    for (int k = 0; k < s->n_inputs; k++) {   /* inputs survive the run (re-invoke) */
        gc_rt *r = &f->t[s->inputs[k]];
        if (r->kind == GC_RT_ACT) r->last = f->n_nodes + 1;
    }
    /* every called frame keeps its outputs up to the caller's step: nothing more */
    st = plan_frame(it, f);
    if (st != GC_OK) return st;
    *out = f;
    return GC_OK;
}

gc_status gc_frame_child(gc_ctx *ctx, gc_node *n, int32_t sg, int n_in, gc_rt *const *ins,
                         gc_frame **out) {
    gc_interp *it = ctx->it;
    GC_ENSURE(ctx, sg >= 0 && sg < ctx->m->n_subgraphs, "calls subgraph %d, which does not exist", (int)sg);
    GC_ENSURE(ctx, n->n_sub < 4, "too many called subgraphs");
    char saved[512];
    memcpy(saved, it->err, sizeof saved);
    gc_status st = frame_prepare(it, sg, ctx->f->depth + 1, n_in, ins, out);
    if (st != GC_OK) {
        gc_fail(ctx, st, "in called subgraph %d: %s", (int)sg, it->err);
        memcpy(it->err, saved, sizeof saved);
        return st;
    }
    n->sub[n->n_sub++] = *out;
    return GC_OK;
}

/* ---- prepare -------------------------------------------------------------------------- */

static void place_frames(gc_interp *it) {
    size_t base = 0;
    for (int32_t i = 0; i < it->n_frames; i++) {
        gc_frame *f = it->frames[i];
        f->base = base;
        base += (f->size + GC_ALIGN - 1) / GC_ALIGN * GC_ALIGN;
    }
    it->arena_size = base;
}

gc_status gc_interp_prepare(gc_interp *it) {
    if (it->prepared) { snprintf(it->err, sizeof it->err, "already prepared"); return GC_ERR_USAGE; }
    double t0 = gc_now();
    const gc_subgraph *s = &it->m->subgraphs[it->entry_sg];
    /* entry inputs must be subgraph inputs; build caller views with the shapes */
    gc_rt *views = calloc((size_t)s->n_inputs + 1, sizeof *views);
    gc_rt **vp = calloc((size_t)s->n_inputs + 1, sizeof *vp);
    if (!views || !vp) { free(views); free(vp); return GC_ERR_NOMEM; }
    for (int k = 0; k < s->n_inputs; k++) {
        const gc_tensor *t = &s->tensors[s->inputs[k]];
        views[k].dtype = (int8_t)held_type(it, t->type); views[k].rank = t->rank;
        for (int d = 0; d < t->rank && d < GC_MAX_RANK; d++) views[k].shape[d] = t->shape[d];
        vp[k] = &views[k];
    }
    for (int k = 0; k < it->n_in; k++) {
        int pos = -1;
        for (int j = 0; j < s->n_inputs; j++) if (s->inputs[j] == it->in_t[k]) pos = j;
        if (pos < 0) {
            snprintf(it->err, sizeof it->err, "signature input %d ('%s') is tensor %d, not an "
                     "input of subgraph %d", k, it->in_name[k], (int)it->in_t[k], (int)it->entry_sg);
            free(views); free(vp); return GC_ERR_FORMAT;
        }
        if (it->in_set[k]) {
            views[pos].rank = it->in_rank[k];
            memcpy(views[pos].shape, it->in_shape[k], sizeof views[pos].shape);
        }
    }
    /* the pool, before any op folds at prepare (a pool that cannot start runs single-threaded) */
    if (ctx_threads(it) > 1 && !it->pool) it->pool = gc_pool_new(ctx_threads(it));
    gc_pool *outer = gc_pool_set_current(it->pool);
    gc_status st = frame_prepare(it, it->entry_sg, 0, s->n_inputs, vp, &it->entry);
    gc_pool_set_current(outer);
    free(views); free(vp);
    if (st != GC_OK) {
        if (!it->err[0]) snprintf(it->err, sizeof it->err, "%s", gc_status_str(st));
        return st;
    }
    place_frames(it);
    it->arena = calloc(1, it->arena_size ? it->arena_size : 1);
    if (!it->arena) { snprintf(it->err, sizeof it->err, "cannot allocate the %zu-byte arena", it->arena_size); return GC_ERR_NOMEM; }
    for (int32_t i = 0; i < it->n_frames; i++) {
        gc_frame *f = it->frames[i];
        uint8_t *b = it->arena + f->base;
        for (int32_t j = 0; j < f->s->n_tensors; j++)
            if (f->t[j].kind == GC_RT_ACT) f->t[j].data = b + f->t[j].offset;
        for (int32_t j = 0; j < f->n_nodes; j++) {
            gc_node *n = &f->nodes[j];
            if (n->folded) continue;
            for (int sc = 0; sc < n->n_scratch; sc++) n->scratch[sc] = b + n->scratch_off[sc];
        }
    }
    /* fp64: the float32 copies the caller fills and reads */
    it->in_stage = gc_arena_alloc(&it->pa, ((size_t)it->n_in + 1) * sizeof(float *));
    it->out_stage = gc_arena_alloc(&it->pa, ((size_t)it->n_out + 1) * sizeof(float *));
    if (!it->in_stage || !it->out_stage) { snprintf(it->err, sizeof it->err, "out of memory"); return GC_ERR_NOMEM; }
    for (int k = 0; k < it->n_in + it->n_out; k++) {
        gc_rt *r = &it->entry->t[k < it->n_in ? it->in_t[k] : it->out_t[k - it->n_in]];
        if (!widened(r)) continue;
        float *p = gc_arena_alloc(&it->pa, r->nbytes / 2 + 1);
        if (!p) { snprintf(it->err, sizeof it->err, "out of memory"); return GC_ERR_NOMEM; }
        if (k < it->n_in) it->in_stage[k] = p; else it->out_stage[k - it->n_in] = p;
    }
    it->prepared = true;
    it->prepare_ms = (gc_now() - t0) * 1e3;
    return GC_OK;
}

/* ---- invoke ----------------------------------------------------------------------------- */

static gc_tview view_of(const gc_frame *f, const gc_rt *r, const char *name) {
    gc_tview v;
    memset(&v, 0, sizeof v);
    v.subgraph = f->sg; v.tensor = r->index;
    v.name = name ? name : r->ir->name;
    v.dtype = r->dtype; v.rank = r->rank;
    for (int d = 0; d < r->rank; d++) v.shape[d] = r->shape[d];
    v.data = r->data; v.nbytes = r->nbytes;
    v.scale = r->scale; v.zero_point = r->zp;
    return v;
}

static void narrow_n(float *dst, const double *src, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = (float)src[i];
}
static void widen_n(double *dst, const float *src, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = (double)src[i];
}

/* A view of a tensor held in double as the model's type (float32 copy in `buf`). */
static gc_tview narrowed_view(const gc_frame *f, const gc_rt *r, const char *name, float *buf) {
    gc_tview v = view_of(f, r, name);
    v.dtype = r->ir->type;
    v.nbytes = r->nbytes / 2;
    v.data = buf;
    return v;
}

static gc_status report(gc_interp *it, gc_frame *f, gc_node *n) {
    if (!it->o.on_node) return GC_OK;
    if (it->o.ask && !it->o.ask(f->sg, n->index, it->o.user)) return GC_OK;
    gc_tview vs[16];
    int k = n->n_out < 16 ? n->n_out : 16;
    size_t need = 0;
    for (int j = 0; j < k; j++)
        if (widened(n->out[j]) && !it->o.fp64_views) need += (n->out[j]->nbytes / 2 + 63) / 64 * 64;
    if (need > it->narrow_cap) {
        void *p = realloc(it->narrow, need);
        if (!p) { snprintf(it->err, sizeof it->err, "out of memory"); return GC_ERR_NOMEM; }
        it->narrow = p; it->narrow_cap = need;
    }
    size_t off = 0;
    for (int j = 0; j < k; j++) {
        const gc_rt *o = n->out[j];
        if (widened(o) && !it->o.fp64_views && o->data) {
            float *b = (float *)((uint8_t *)it->narrow + off);
            narrow_n(b, (const double *)o->data, o->nbytes / 8);
            vs[j] = narrowed_view(f, o, NULL, b);
            off += (o->nbytes / 2 + 63) / 64 * 64;
        } else {
            vs[j] = view_of(f, o, NULL);
        }
    }
    if (it->o.on_node(n->index, vs, k, it->o.user)) it->stopped = true;
    return GC_OK;
}

/* fp16: an op output or an entry input stored as half on the GPU (the native runtime's
 * store saturates, fp16_model.h) */
static void store_half(const gc_interp *it, float *p, size_t n) {
    const gc_f16_model *hm = it->o.precision == GC_PREC_FP16 ? gc_f16_model_for(it->o.gpu_runtime) : NULL;
    if (hm && hm->saturate) gc_f16_round_sat_n(p, n);
    else gc_f16_round_n(p, n);
}

static gc_status run_frame(gc_interp *it, gc_frame *f) {
    char kerr[384];
    gc_ctx ctx = { .it = it, .f = f, .m = it->m, .precision = it->o.precision,
                   .fp16 = prec_f16(it->o.precision),
                   .hm = it->o.precision == GC_PREC_FP16 ? gc_f16_model_for(it->o.gpu_runtime) : NULL,
                   .acc16 = it->o.precision == GC_PREC_FP16_ACC,
                   .fp64 = it->o.precision == GC_PREC_FP64,
                   .xnn = it->o.qmode == GC_QMODE_XNNPACK,
                   .fma = it->o.float_arith == GC_FLOAT_FMA && it->o.precision == GC_PREC_FP32,
                   .threads = ctx_threads(it), .pool = it->pool,
                   .fast = it->o.precision == GC_PREC_FP32 && !it->o.reference_kernels,
                   .fast_float = it->o.precision != GC_PREC_FP64 && !it->o.reference_kernels, .isa = it->isa,
                   .reference = it->o.reference_kernels,
                   .observed = it->o.on_node != NULL,
                   .err = kerr, .errlen = sizeof kerr };
    const gc_f16_model *hm = ctx.hm;
    for (int32_t i = 0; i < f->n_nodes && !it->stopped; i++) {
        gc_node *n = &f->nodes[i];
        if (!n->folded && !n->absorbed) {
            kerr[0] = 0;
            /* a kernel with own_store rounds its output itself (as store_half would) */
            const bool round = ctx.fp16 && !(n->k->flags & GC_K_OWN_ROUND) && !n->keep_float && !n->out_half;
            ctx.store = round && n->own_store ? (hm && hm->saturate ? GC_F16_STORE_SAT : GC_F16_STORE_HALF) : GC_F16_STORE_NONE;
            gc_status st = n->k->eval(&ctx, n);
            if (st != GC_OK) {
                return node_fail(it, f, n, st, kerr[0] ? kerr : "eval failed");
            }
            if (round && ctx.store == GC_F16_STORE_NONE)
                for (int j = 0; j < n->n_out; j++)
                    if (n->out[j]->dtype == GC_T_FLOAT32)
                        store_half(it, (float *)n->out[j]->data, n->out[j]->nbytes / 4);
        }
        report(it, f, n);
    }
    return GC_OK;
}

gc_status gc_frame_call(gc_ctx *ctx, gc_frame *f, int n_in, gc_rt *const *ins,
                        int n_out, gc_rt *const *outs) {
    const gc_subgraph *s = f->s;
    GC_ENSURE(ctx, n_in == s->n_inputs && n_out <= s->n_outputs, "called subgraph %d arity mismatch", (int)f->sg);
    for (int k = 0; k < n_in; k++) {
        gc_rt *d = &f->t[s->inputs[k]];
        GC_ENSURE(ctx, d->nbytes == ins[k]->nbytes, "called subgraph %d input %d: %zu bytes given, %zu expected",
                  (int)f->sg, k, ins[k]->nbytes, d->nbytes);
        GC_ENSURE(ctx, !d->nbytes || (d->data && ins[k]->data), "called subgraph %d input %d has no storage",
                  (int)f->sg, k);
        if (d->nbytes && d->data != ins[k]->data) memmove(d->data, ins[k]->data, d->nbytes);
    }
    gc_status st = run_frame(ctx->it, f);
    if (st != GC_OK) { gc_fail(ctx, st, "%s", ctx->it->err); return st; }
    for (int k = 0; k < n_out; k++) {
        gc_rt *r = &f->t[s->outputs[k]];
        GC_ENSURE(ctx, r->nbytes == outs[k]->nbytes, "called subgraph %d output %d: %zu bytes, %zu expected",
                  (int)f->sg, k, r->nbytes, outs[k]->nbytes);
        GC_ENSURE(ctx, !r->nbytes || (r->data && outs[k]->data), "called subgraph %d output %d is never computed",
                  (int)f->sg, k);
        if (r->nbytes && outs[k]->data != r->data) memmove(outs[k]->data, r->data, r->nbytes);
    }
    return GC_OK;
}

gc_status gc_interp_invoke(gc_interp *it) {
    if (!it->prepared) { snprintf(it->err, sizeof it->err, "invoke before prepare"); return GC_ERR_USAGE; }
    double t0 = gc_now();
    it->stopped = false;
    gc_frame *f = it->entry;
    if (prec_f16(it->o.precision))
        for (int k = 0; k < f->s->n_inputs; k++) {
            gc_rt *r = &f->t[f->s->inputs[k]];
            if (r->dtype == GC_T_FLOAT32 && r->kind == GC_RT_ACT)
                store_half(it, (float *)r->data, r->nbytes / 4);
        }
    for (int k = 0; k < it->n_in; k++)            /* fp64: widen what the caller wrote */
        if (it->in_stage[k]) {
            gc_rt *r = &f->t[it->in_t[k]];
            widen_n((double *)r->data, it->in_stage[k], r->nbytes / 8);
        }
    gc_pool *outer = gc_pool_set_current(it->pool);
    gc_status st = run_frame(it, f);
    gc_pool_set_current(outer);
    for (int k = 0; k < it->n_out && st == GC_OK && !it->o.fp64_views; k++)   /* ... narrow what it reads */
        if (it->out_stage[k]) {
            gc_rt *r = &f->t[it->out_t[k]];
            if (r->data) narrow_n(it->out_stage[k], (const double *)r->data, r->nbytes / 8);
        }
    it->invoke_ms = (gc_now() - t0) * 1e3;
    return st;
}

gc_tview gc_interp_input(const gc_interp *it, int k) {
    gc_tview v; memset(&v, 0, sizeof v);
    const gc_subgraph *s = &it->m->subgraphs[it->entry_sg];
    if (k < 0 || k >= it->n_in) return v;
    if (it->entry && it->in_stage && it->in_stage[k])
        return narrowed_view(it->entry, &it->entry->t[it->in_t[k]], it->in_name[k], it->in_stage[k]);
    if (it->entry) return view_of(it->entry, &it->entry->t[it->in_t[k]], it->in_name[k]);
    const gc_tensor *t = &s->tensors[it->in_t[k]];
    v.subgraph = it->entry_sg; v.tensor = it->in_t[k]; v.name = it->in_name[k];
    v.dtype = t->type;
    v.rank = it->in_set[k] ? it->in_rank[k] : t->rank;
    for (int d = 0; d < v.rank && d < GC_MAX_RANK; d++) v.shape[d] = it->in_set[k] ? it->in_shape[k][d] : t->shape[d];
    if (t->quant && t->quant->n_scale == 1) {
        v.scale = t->quant->scale[0];
        v.zero_point = t->quant->n_zero_point ? (int32_t)t->quant->zero_point[0] : 0;
    }
    return v;
}

gc_tview gc_interp_output(const gc_interp *it, int k) {
    gc_tview v; memset(&v, 0, sizeof v);
    if (k < 0 || k >= it->n_out) return v;
    const gc_subgraph *s = &it->m->subgraphs[it->entry_sg];
    if (it->entry && it->out_stage && it->out_stage[k] && !it->o.fp64_views)
        return narrowed_view(it->entry, &it->entry->t[it->out_t[k]], it->out_name[k], it->out_stage[k]);
    if (it->entry) return view_of(it->entry, &it->entry->t[it->out_t[k]], it->out_name[k]);
    const gc_tensor *t = &s->tensors[it->out_t[k]];
    v.subgraph = it->entry_sg; v.tensor = it->out_t[k]; v.name = it->out_name[k];
    v.dtype = t->type; v.rank = t->rank;
    for (int d = 0; d < t->rank && d < GC_MAX_RANK; d++) v.shape[d] = t->shape[d];
    return v;
}

void gc_interp_stats_get(const gc_interp *it, gc_interp_stats *s) {
    memset(s, 0, sizeof *s);
    s->arena_bytes = it->arena_size;
    s->naive_bytes = it->naive_bytes;
    s->persistent_bytes = it->pa.used_total + it->owned_bytes;
    if (it->entry) {
        s->n_nodes = it->entry->n_nodes;
        for (int32_t i = 0; i < it->entry->n_nodes; i++) {
            s->n_folded += it->entry->nodes[i].folded;
            s->n_fast += it->entry->nodes[i].fast && !it->entry->nodes[i].folded;
            s->n_absorbed += it->entry->nodes[i].absorbed;
        }
    }
    s->prepare_ms = it->prepare_ms;
    s->invoke_ms = it->invoke_ms;
    s->shape_mismatch = it->shape_mismatch;
    s->isa = gc_isa_name((gc_isa)it->isa);
    s->pool_threads = gc_pool_size(it->pool);
    s->pool_jobs = gc_pool_jobs(it->pool);
}

bool gc_interp_has_kernel(int32_t code) { return gc_kernel_for(code) != NULL; }
