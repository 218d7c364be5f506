/* model.h — the graph IR of a .tflite model (internal to libgpuclean).
 *
 * One gc_model owns everything: an arena for the small arrays and strings read from
 * the file (shapes, names, quantization, options), growable arrays for the lists that
 * editing changes (tensors, ops, buffers, ...), and the read-only mapping of the file
 * itself. Weights are never copied: gc_buffer.data points into the mapping (or into
 * memory the editor attached with gc_model_add_buffer).
 *
 * Indices, not pointers, link things together, exactly as in the file: an op names
 * its tensors by index into its subgraph's tensor list, a tensor names its buffer by
 * index into the model's buffer list (0 = the empty sentinel buffer), an op names its
 * operator code by index into opcodes. Optional inputs are -1.
 *
 * Everything read from the file has been verified: every index is in range, every
 * dimension is >= 0 (shape) or >= -1 (shape_signature), every buffer's bytes lie in
 * the file. Editors must keep that true (gc_model_validate re-checks it).
 */
#ifndef GC_MODEL_H
#define GC_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "schema.h"
#include "../common/common.h"

/* ---- quantization ------------------------------------------------------- */

typedef struct {
    int32_t n_min, n_max, n_scale, n_zero_point;
    float *min, *max;          /* calibration ranges (rarely present) */
    float *scale;              /* n_scale: 1 = per-tensor, else per-channel */
    int64_t *zero_point;       /* n_zero_point */
    int32_t quantized_dimension;
    uint8_t details_type;      /* QuantizationDetails: 0 none, 1 CustomQuantization,
                                  2 BlockwiseQuantization */
    /* CustomQuantization.custom */
    const uint8_t *custom; uint32_t n_custom;
    /* BlockwiseQuantization: scales / zero_points are tensor indices */
    int32_t bw_scales, bw_zero_points, bw_block_size;
    uint8_t bw_present;        /* bit 0 scales, 1 zero_points, 2 block_size */
} gc_quant;

/* ---- sparsity (TACO-style, see schema SparsityParameters) ---------------- */

typedef struct {
    int8_t format;             /* 0 DENSE, 1 SPARSE_CSR */
    int32_t dense_size;
    uint8_t segments_type;     /* SparseIndexVector: 1 Int32, 2 Uint16, 3 Uint8 */
    uint8_t indices_type;
    uint32_t n_segments, n_indices;
    void *segments, *indices;  /* elements of the width named by the type */
} gc_dim_meta;

typedef struct {
    int32_t n_traversal_order, n_block_map, n_dim_metadata;
    int32_t *traversal_order, *block_map;
    gc_dim_meta *dim_metadata;
} gc_sparsity;

/* Densify constant tensor t whose buffer holds `nbytes` bytes of stored values (`vals`)
 * into dst (C order, dst_bytes = the dense size; unvisited positions are 0). Every index,
 * segment and count is validated (sparse.c); on failure returns GC_ERR_FORMAT (or
 * GC_ERR_UNSUPPORTED for INT4 / UINT4 / unsized types) with one line in err. */
struct gc_tensor;
gc_status gc_sparse_densify(const struct gc_tensor *t, const uint8_t *vals, uint64_t nbytes, void *dst,
                            uint64_t dst_bytes, char *err, size_t errlen);

/* ---- tensors --------------------------------------------------------------- */

typedef struct {
    int32_t rank; int32_t *shape; int8_t type; bool has_rank;
} gc_variant_subtype;

typedef struct gc_tensor {
    const char *name;          /* never NULL ("" when absent) */
    int8_t type;               /* GC_T_* */
    int32_t rank;              /* entries in shape; 0 = scalar (or unknown rank) */
    int32_t *shape;            /* static shape, dims >= 0, e.g. NHWC [1,224,224,3] */
    int32_t n_shape_signature; /* 0 = absent */
    int32_t *shape_signature;  /* -1 marks a dynamic dim */
    uint32_t buffer;           /* index into model buffers; 0 = no data */
    gc_quant *quant;           /* NULL when absent */
    gc_sparsity *sparsity;     /* NULL when absent */
    bool is_variable;
    bool has_rank;             /* schema field 8 */
    uint8_t present;           /* GC_TP_* bits: which optional fields the file had */
    int32_t n_variant; gc_variant_subtype *variant;
} gc_tensor;

enum { GC_TP_SHAPE = 1, GC_TP_HAS_RANK = 2, GC_TP_IS_VARIABLE = 4, GC_TP_NAME = 8 };

/* ---- operators ------------------------------------------------------------- */

typedef struct {
    double f; int64_t i;       /* scalar value (which one depends on the kind) */
    const void *vec;           /* vector elements or NUL-terminated string (arena) */
    uint32_t n;                /* vector element count / string length */
} gc_optval;

/* A builtin options table, decoded generically from its gc_opt_table_def. */
typedef struct {
    uint8_t type;              /* union type byte; 0 = none */
    uint64_t present;          /* bit k: field k was present (or set by an editor) */
    gc_optval *v;              /* n_v values (the table's fields) when type known, else NULL */
    uint8_t n_v;
    const uint8_t *raw;        /* unknown type: vtable bytes then inline table bytes,
                                  kept verbatim (scalars-only tables survive exactly) */
    uint32_t raw_len;
    uint16_t raw_vt_len;       /* bytes of raw that are the vtable */
    uint8_t raw_mod8;          /* the table's file offset mod 8 (keeps its alignment) */
} gc_options;

typedef struct gc_op {
    uint32_t opcode_index;     /* into model opcodes */
    int32_t n_inputs, n_outputs, n_intermediates;
    int32_t *inputs, *outputs, *intermediates;    /* tensor indices; -1 = optional */
    gc_options opt;            /* builtin_options */
    gc_options opt2;           /* builtin_options_2 */
    const uint8_t *custom_options; uint32_t n_custom_options;
    int8_t custom_options_format;
    int32_t n_mutating; uint8_t *mutating_variable_inputs;
    uint64_t large_custom_options_offset, large_custom_options_size;
    int32_t debug_metadata_index; /* -1 when absent */
} gc_op;

typedef struct {
    int8_t deprecated_builtin_code; /* min(code, 127) in files since v2.3 */
    int32_t builtin_code;           /* the real code: max(deprecated, builtin) */
    const char *custom_code;        /* NULL unless CUSTOM */
    int32_t version;
    uint8_t has_builtin_code;       /* the file had field 3 */
} gc_opcode;

typedef struct gc_subgraph {
    const char *name;
    int32_t n_tensors, cap_tensors; gc_tensor *tensors;
    int32_t n_ops, cap_ops;         gc_op *ops;       /* in execution order */
    int32_t n_inputs, n_outputs;    int32_t *inputs, *outputs;
    int32_t debug_metadata_index;   /* -1 when absent */
} gc_subgraph;

typedef struct {
    const uint8_t *data;       /* NULL when empty; into the file mapping or owned */
    uint64_t size;
    uint64_t offset;           /* file offset when stored after the flatbuffer
                                  (models > 2 GB); 0 otherwise (informational) */
    bool external;             /* was stored with offset/size */
} gc_buffer;

typedef struct { const char *name; uint32_t buffer; } gc_metadata;

typedef struct { const char *name; uint32_t tensor; } gc_tensor_map;

typedef struct {
    const char *key;
    uint32_t subgraph;
    int32_t n_inputs, n_outputs;
    gc_tensor_map *inputs, *outputs;
} gc_signature;

struct gc_model {
    uint32_t version;
    const char *description;
    int32_t n_opcodes, cap_opcodes;       gc_opcode *opcodes;
    int32_t n_subgraphs, cap_subgraphs;   gc_subgraph *subgraphs;
    int32_t n_buffers, cap_buffers;       gc_buffer *buffers;
    int32_t n_metadata, cap_metadata;     gc_metadata *metadata;
    int32_t n_metadata_buffer;            int32_t *metadata_buffer;
    int32_t n_signatures, cap_signatures; gc_signature *signatures;

    gc_arena arena;
    const uint8_t *file; uint64_t file_size;  /* the mapping (NULL for built models) */
    int file_is_mapped;
    char path[512];
    char err[512];
};
typedef struct gc_model gc_model;

/* ---- reading, writing ------------------------------------------------------ */

/* Read a model from a file (mmap) or from memory (the memory must outlive the
 * model). On failure returns NULL and fills err (one line, "what is wrong"). */
gc_model *gc_model_read_file(const char *path, char *err, size_t errlen);
/* The same, mapped lazily whatever the size: only the pages something reads come in
 * (the interpreter's verbs: a model's unread weights, such as the rows of an embedding
 * table no token looks up, then cost no memory, as in LiteRT). */
gc_model *gc_model_read_file_lazy(const char *path, char *err, size_t errlen);
gc_model *gc_model_read_mem(const void *data, size_t size, char *err, size_t errlen);
gc_model *gc_model_new(void);                 /* empty model, version 3 */
void gc_model_free(gc_model *m);

/* Serialize. Buffers go after the flatbuffer with offset/size when the total would
 * exceed 2 GB (or when force_external is set), inline otherwise. */
typedef struct { bool force_external; } gc_write_opts;
gc_status gc_model_write_file(const gc_model *m, const char *path, const gc_write_opts *o,
                              char *err, size_t errlen);   /* atomic: temp + rename */
gc_status gc_model_write_mem(const gc_model *m, const gc_write_opts *o,
                             uint8_t **out, size_t *out_size, char *err, size_t errlen);

/* Things that are structurally valid but that LiteRT refuses or that will not run
 * (e.g. per-channel quantized_dimension beyond the rank). One line each; returns
 * the count. */
int gc_model_warnings(const gc_model *m, gc_str *out);

/* Structural equality (every IR field and buffer byte); first difference in err. */
bool gc_model_equal(const gc_model *a, const gc_model *b, char *err, size_t errlen);

/* Re-check every invariant above (indices, dims, buffer bounds). */
gc_status gc_model_validate(const gc_model *m, char *err, size_t errlen);

/* ---- lookups ----------------------------------------------------------------- */

static inline const gc_opcode *gc_op_code(const gc_model *m, const gc_op *op) {
    return &m->opcodes[op->opcode_index];
}
int32_t gc_op_builtin(const gc_model *m, const gc_op *op);  /* GC_OP_* code */
/* Give back the resident pages of [p, p + n) when they lie in the model's file mapping
 * (MADV_DONTNEED on the whole pages inside the range; the mapping is private and never
 * written, so the bytes stay the same and are read from the file again on the next
 * access). Anything not in the mapping is left alone. For callers that keep their own
 * copy of some weights (the interpreter's packed filters). */
void gc_model_drop_pages(const gc_model *m, const void *p, size_t n);
const char *gc_op_name(const gc_model *m, const gc_op *op); /* builtin or custom name */
/* Constant = has a non-empty buffer. */
bool gc_tensor_is_const(const gc_model *m, const gc_tensor *t);
const gc_buffer *gc_tensor_buffer(const gc_model *m, const gc_tensor *t);
/* number of elements (product of shape; 1 for rank 0); UINT64_MAX on overflow */
uint64_t gc_tensor_numel(const gc_tensor *t);
int32_t gc_find_tensor(const gc_subgraph *sg, const char *name); /* -1 when absent */

/* options by field id (GC_O_<Table>_<field>); absent fields give the schema default */
int64_t gc_opt_int(const gc_options *o, int field);
double gc_opt_float(const gc_options *o, int field);
const void *gc_opt_vec(const gc_options *o, int field, uint32_t *n); /* NULL if absent */
/* set a scalar option (editors, builder); the options type must be set first */
void gc_opt_set_int(gc_model *m, gc_options *o, int field, int64_t v);
void gc_opt_set_float(gc_model *m, gc_options *o, int field, double v);
void gc_opt_set_vec(gc_model *m, gc_options *o, int field, const void *data, uint32_t n);
void gc_opt_init(gc_model *m, gc_options *o, int type);

/* ---- editing (all allocations from the model; indices stay stable unless a
 *      function says it renumbers) -------------------------------------------- */

int32_t gc_model_add_opcode(gc_model *m, int32_t builtin, const char *custom, int32_t version);
/* add a buffer with data copied into the model (data may be NULL for size 0) */
int32_t gc_model_add_buffer(gc_model *m, const void *data, uint64_t size);
/* add a buffer pointing at caller memory that outlives the model (zero-copy) */
int32_t gc_model_add_buffer_ref(gc_model *m, const void *data, uint64_t size);
int32_t gc_model_add_subgraph(gc_model *m, const char *name);
int32_t gc_sg_add_tensor(gc_model *m, int32_t sg, const char *name, int type,
                         int rank, const int32_t *shape, uint32_t buffer);
/* insert an op before position `at` (at = n_ops appends); returns its index */
int32_t gc_sg_insert_op(gc_model *m, int32_t sg, int32_t at, int32_t opcode_index,
                        int n_in, const int32_t *in, int n_out, const int32_t *out);
void gc_sg_remove_op(gc_model *m, int32_t sg, int32_t op);
void gc_sg_set_io(gc_model *m, int32_t sg, int n_in, const int32_t *in,
                  int n_out, const int32_t *out);
/* replace every use of tensor `from` as an op input / subgraph output by `to` */
void gc_sg_replace_uses(gc_model *m, int32_t sg, int32_t from, int32_t to);
/* ops that read tensor t (as inputs); fills up to cap, returns the total count */
int32_t gc_sg_consumers(const gc_model *m, int32_t sg, int32_t t, int32_t *ops, int32_t cap);
int32_t gc_sg_producer(const gc_model *m, int32_t sg, int32_t t);  /* -1 = none */
/* topological order of ops (Kahn, stable: ties keep file order); returns
 * GC_ERR_FORMAT on a cycle. order must hold n_ops entries. */
gc_status gc_sg_topo_order(const gc_model *m, int32_t sg, int32_t *order);
/* sort ops into topological order in place */
gc_status gc_sg_toposort(gc_model *m, int32_t sg);
/* drop ops whose outputs reach no subgraph output, then tensors nobody uses, then
 * buffers nobody uses (renumbers tensors and buffers; signatures follow) */
void gc_model_prune(gc_model *m);
/* make `tensors` extra outputs of subgraph sg (and of every signature on it) */
gc_status gc_model_add_outputs(gc_model *m, int32_t sg, int n, const int32_t *tensors);
/* keep only what `tensors` need and make them the outputs (prefix model) */
gc_status gc_model_truncate_at(gc_model *m, int32_t sg, int n, const int32_t *tensors);

#endif
