/* fix_int.h — what a pass implementation sees: the context of the site being rewritten
 * and small helpers over the model's editing API (fix_util.c).
 *
 * Rules every pass follows, so the driver can roll a site back (fix.c snapshots the
 * ops, tensors and I/O of the subgraph, plus the counts of buffers and opcodes):
 *   * never mutate an existing op's options or an existing tensor's shape/type/quant in
 *     place — make new ops and tensors (fx_new_tensor, fx_add_op);
 *   * the new ops write the site's original output tensors (same indices, names,
 *     quantization), so consumers and the model's outputs need no rewiring; new
 *     intermediate tensors are named "<anchor name>/gc_fix/<what>" (the exception:
 *     output_copy moves consumers off a graph output with fx_replace_input_uses; op
 *     input/output lists are part of the snapshot, so that rolls back too);
 *   * the replaced ops are removed with fx_remove_op / fx_remove_dead, never left
 *     behind as a second producer;
 *   * insert new ops at a position where all their inputs exist (normally the anchor's
 *     position, or the first removed op's); the driver re-sorts if needed.
 */
#ifndef GC_FIX_INT_H
#define GC_FIX_INT_H

#include <stdarg.h>
#include "fix.h"

#define GC_FIX_MAXR 8          /* highest tensor rank a pass handles */

struct gc_fix_ctx {
    gc_model *m;
    const gc_fix_opts *opts;
    const gc_fix_pass *pass;
    int32_t sg;                 /* subgraph of the site */
    int32_t added, removed;     /* ops, counted by the helpers */
    char detail[512];           /* what the site became (gc_fix_note) */
    char why[512];              /* why it was declined (gc_fix_decline) */
    bool oom;                   /* a helper failed to allocate */
    int32_t new_outs[128];      /* first output of every op the site added (the driver
                                   names them when the checker refuses one) */
    int n_new;
    bool silent;                /* declined without a note: another anchor of the same
                                   site reports it (fx_pass_over) */
};

/* Record the reason a site is left alone; returns 0 (the pass's "declined"). */
int fx_decline(gc_fix_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decline without recording anything: the node belongs to a site anchored elsewhere. */
int fx_pass_over(gc_fix_ctx *c);
/* Record what the site became (appends). */
void fx_note(gc_fix_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- access -------------------------------------------------------------------- */
static inline gc_subgraph *fx_sg(gc_fix_ctx *c) { return &c->m->subgraphs[c->sg]; }
static inline gc_op *fx_op(gc_fix_ctx *c, int32_t i) { return &c->m->subgraphs[c->sg].ops[i]; }
static inline gc_tensor *fx_t(gc_fix_ctx *c, int32_t t) { return &c->m->subgraphs[c->sg].tensors[t]; }
int32_t fx_code(gc_fix_ctx *c, int32_t op);                 /* builtin code */
int32_t fx_in(gc_fix_ctx *c, int32_t op, int k);            /* -1 when absent/optional */
int32_t fx_out(gc_fix_ctx *c, int32_t op, int k);
const char *fx_name(gc_fix_ctx *c, int32_t op);             /* first output's name */
bool fx_is_const(gc_fix_ctx *c, int32_t t);                 /* has data, not a variable */
/* no dynamic dim (shape_signature without -1) */
bool fx_is_static(gc_fix_ctx *c, int32_t t);
/* element count of a tensor's static shape; -1 on overflow */
int64_t fx_numel(const gc_tensor *t);
/* a constant's bytes (NULL when not constant) */
const void *fx_data(gc_fix_ctx *c, int32_t t, uint64_t *nbytes);
/* a constant INT32/INT64 tensor read into v (at most cap values); number read, or -1
 * when not a constant integer tensor or longer than cap */
int fx_const_ints(gc_fix_ctx *c, int32_t t, int64_t *v, int cap);
/* The n constant indices of tensor t (INT32/INT64), each checked to lie in [0, dim), as
 * a malloc'd int32 array in *out. Returns 1; 0 after fx_decline (says why); -1 out of
 * memory. */
int fx_const_indices(gc_fix_ctx *c, int32_t t, int64_t n, int32_t dim, int32_t **out);
/* same quantization (both none, or equal per-tensor/per-channel scales and zero points) */
bool fx_same_quant(const gc_quant *a, const gc_quant *b);
/* a plain element type passes can move bytes of (fixed size, not packed) */
bool fx_plain_type(int type);
/* subgraph outputs naming t + ops reading t */
int32_t fx_uses(gc_fix_ctx *c, int32_t t);
bool fx_is_graph_output(gc_fix_ctx *c, int32_t t);
int32_t fx_producer(gc_fix_ctx *c, int32_t t);              /* op index or -1 */
int32_t fx_find_op_writing(gc_fix_ctx *c, int32_t t);       /* same as fx_producer */

/* ---- building --------------------------------------------------------------------- */
/* Adding a tensor may move the tensor array: gc_tensor pointers taken before are stale
 * afterwards. Passes copy what they need into a gc_fix_tinfo first. */
typedef struct {
    int32_t index;
    int type, rank;
    int32_t shape[GC_FIX_MAXR];
    const gc_quant *quant;
    const char *name;           /* arena string: stays valid */
    bool is_const, is_static;
} gc_fix_tinfo;
/* false when t < 0 or its rank exceeds GC_FIX_MAXR */
bool fx_info(gc_fix_ctx *c, int32_t t, gc_fix_tinfo *i);

/* A CONV_2D's geometry and activation (from a CONV_2D or DEPTHWISE_CONV_2D's options; a
 * depthwise dilation becomes the conv's): read before the op is removed, set on new ones. */
typedef struct { int64_t padding, stride_w, stride_h, dilation_w, dilation_h, act; } gc_fix_conv_geom;
gc_fix_conv_geom fx_conv_geom(gc_fix_ctx *c, int32_t op);
void fx_conv_geom_set(gc_fix_ctx *c, int32_t conv2d_op, const gc_fix_conv_geom *g);

/* quantization parameters present (an empty table on a float tensor is none) */
bool fx_quantized(const gc_quant *q);
/* The operands of a conv-like op (CONV_2D, DEPTHWISE_CONV_2D): x = input 0, w = input 1,
 * y = output 0, *bias = input 2's index or -1 (b filled when present). 1 when the op has
 * 2-3 inputs and 1 output and x, w and y are rank 4 with x static; else fx_pass_over. */
int fx_conv_operands(gc_fix_ctx *c, int32_t op, gc_fix_tinfo *x, gc_fix_tinfo *w, gc_fix_tinfo *y, gc_fix_tinfo *b,
                     int32_t *bias);
/* 1 when x, w, y are FLOAT32 without quantization, w a constant and the bias (bias >= 0)
 * a FLOAT32 constant without quantization; else fx_decline with the reason (`op` names the
 * op in it: "CONV_2D"). */
int fx_conv_float_consts(gc_fix_ctx *c, const char *op, const gc_fix_tinfo *x, const gc_fix_tinfo *w,
                         const gc_fix_tinfo *y, const gc_fix_tinfo *b, int32_t bias);

/* A new activation tensor "<base>/gc_fix/<what>" with quantization q (may be NULL).
 * Returns the tensor index or -1. */
int32_t fx_new_tensor(gc_fix_ctx *c, const char *base, const char *what, int type, int rank,
                      const int32_t *shape, const gc_quant *q);
/* A new constant tensor with a copy of `data` (nbytes). */
int32_t fx_new_const(gc_fix_ctx *c, const char *base, const char *what, int type, int rank,
                     const int32_t *shape, const void *data, uint64_t nbytes, const gc_quant *q);
/* A rank-1 INT32 constant [n]. */
int32_t fx_const_i32(gc_fix_ctx *c, const char *base, const char *what, int n, const int32_t *v);
/* A scalar-like FLOAT32 constant of shape [1] (rank 0 when rank0). */
int32_t fx_const_f32(gc_fix_ctx *c, const char *base, const char *what, float v, bool rank0);
/* Insert an op at position `at` (clamped; ops from `at` on shift by one); returns its
 * index or -1. Options get the op's default table (set fields with gc_opt_set_*). */
int32_t fx_add_op(gc_fix_ctx *c, int32_t at, int32_t code, int32_t version, int n_in, const int32_t *in,
                  int n_out, const int32_t *out);
/* Ready-made ops; each returns the new op's index or -1. */
int32_t fx_add_reshape(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y);   /* y's static shape */
int32_t fx_add_transpose(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y, const char *base, int rank,
                         const int32_t *perm);
int32_t fx_add_strided_slice(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y, const char *base, int rank,
                             const int32_t *begin, const int32_t *end, const int32_t *strides);
/* SLICE x[begin : begin + size] (every axis given) writing y. */
int32_t fx_add_slice(gc_fix_ctx *c, int32_t at, int32_t x, int32_t y, const char *base, int rank,
                     const int32_t *begin, const int32_t *size);
/* Turn an existing tensor (a site output) into a constant holding a copy of data. */
bool fx_make_const(gc_fix_ctx *c, int32_t t, const void *data, uint64_t nbytes);
/* Selecting rows of a tensor by constant indices without GATHER: the indices are cut
 * into runs with a constant positive step (a run of one index is a run too); each run
 * is a STRIDED_SLICE on `axis`, and more than one run are joined by CONCATENATION on
 * `axis`. fx_row_runs counts the runs; fx_add_row_select emits them writing dst (src's
 * shape with n rows on `axis`). Returns the index after the last op added, or -1. */
#define GC_FIX_MAX_RUNS 16
int fx_row_runs(const int32_t *rows, int64_t n);
int32_t fx_add_row_select(gc_fix_ctx *c, int32_t at, int32_t src, int32_t dst, int axis, const int32_t *rows,
                          int64_t n);
/* Resolve the constant spec of STRIDED_SLICE `op` on an input of shape dims (rank) the
 * way the reference interpreter does (masks, negative and clamped bounds, offset): per
 * input axis the first index, stride and count. With shrunk non-NULL the input axes
 * the slice drops are flagged there (bit d) and a new_axis_mask is declined. Returns 1;
 * 0 after fx_decline (reverse or empty slices, bad specs). */
bool fx_strided_slice_is_plain(gc_fix_ctx *c, int32_t op, int rank);
int fx_strided_slice_spec(gc_fix_ctx *c, int32_t op, int rank, const int32_t *dims, int32_t *start, int32_t *stride,
                          int32_t *size, uint32_t *shrunk);
/* Every op input naming tensor `from` names `to` instead, except in op except_op (-1:
 * none); the subgraph's outputs and the signatures are left as they are (unlike
 * gc_sg_replace_uses). Returns the number of input slots changed. The driver's snapshot
 * restores op input lists on rollback. */
int32_t fx_replace_input_uses(gc_fix_ctx *c, int32_t from, int32_t to, int32_t except_op);
/* Remove op `op` (indices after it shift down by one). */
void fx_remove_op(gc_fix_ctx *c, int32_t op);
/* Remove the producer of t if none of its outputs is used any more, then the same for
 * the producers of its non-constant inputs (the chain that only fed it). */
void fx_remove_dead(gc_fix_ctx *c, int32_t t);

/* Op versions for the ops passes emit, from the element type and input rank: what
 * TFLite's op_version.cc stamps for the plain forms (no masks, no fused activation). */
int32_t fx_version_for(int32_t code, int type, int rank);

/* "[1,2,3]" */
void fx_dims(char *buf, size_t n, int rank, const int32_t *shape);
void fx_dims64(char *buf, size_t n, int rank, const int64_t *v);

/* ---- the passes (one file each) ----------------------------------------------------- */
extern const gc_fix_pass gc_fix_densify_const;
extern const gc_fix_pass gc_fix_broadcast_to_const;
extern const gc_fix_pass gc_fix_broadcast_to_tile;
extern const gc_fix_pass gc_fix_gather_nd_const;
extern const gc_fix_pass gc_fix_rank5_fold;
extern const gc_fix_pass gc_fix_rank5_hoist;
extern const gc_fix_pass gc_fix_split_to_slices;
extern const gc_fix_pass gc_fix_unpack_to_slices;
extern const gc_fix_pass gc_fix_fc_runtime_bmm;
extern const gc_fix_pass gc_fix_output_copy;
extern const gc_fix_pass gc_fix_pad_batch;
extern const gc_fix_pass gc_fix_select_to_arith;
extern const gc_fix_pass gc_fix_squeeze_to_reshape;
extern const gc_fix_pass gc_fix_strided_slice_canon;
extern const gc_fix_pass gc_fix_strided_slice_lower;
extern const gc_fix_pass gc_fix_arg_min_to_max;
extern const gc_fix_pass gc_fix_identical_inputs;
extern const gc_fix_pass gc_fix_gather_flatten;
extern const gc_fix_pass gc_fix_gather_const_rows;
extern const gc_fix_pass gc_fix_pad_rank4;
extern const gc_fix_pass gc_fix_transpose_conv_act;
extern const gc_fix_pass gc_fix_transpose_conv_crop;
extern const gc_fix_pass gc_fix_rank_align;
extern const gc_fix_pass gc_fix_bmm_mask_expand;
extern const gc_fix_pass gc_fix_bmm_adj_explicit;
extern const gc_fix_pass gc_fix_bmm_batch_explicit;
extern const gc_fix_pass gc_fix_dwconv_k1_multiplier;
extern const gc_fix_pass gc_fix_conv_group_dense;
extern const gc_fix_pass gc_fix_conv_out_split;
extern const gc_fix_pass gc_fix_pow_square;
extern const gc_fix_pass gc_fix_cumsum_canon;
extern const gc_fix_pass gc_fix_const_fold;
extern const gc_fix_pass gc_fix_dequantize_const;

#endif
