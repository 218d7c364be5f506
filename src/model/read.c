/* read.c — .tflite (FlatBuffer, identifier "TFL3") → gc_model.
 *
 * Schema facts (field ids) used here, from TFLite's schema.fbs:
 *   Model:           0 version:uint  1 operator_codes  2 subgraphs  3 description:string
 *                    4 buffers  5 metadata_buffer:[int]  6 metadata  7 signature_defs
 *   OperatorCode:    0 deprecated_builtin_code:byte  1 custom_code:string
 *                    2 version:int=1  3 builtin_code:int
 *   SubGraph:        0 tensors  1 inputs:[int]  2 outputs:[int]  3 operators  4 name
 *                    5 debug_metadata_index:int=-1
 *   Tensor:          0 shape:[int]  1 type:byte  2 buffer:uint  3 name  4 quantization
 *                    5 is_variable:bool  6 sparsity  7 shape_signature:[int]
 *                    8 has_rank:bool  9 variant_tensors:[VariantSubType]
 *   VariantSubType:  0 shape:[int]  1 type:byte  2 has_rank:bool
 *   Quantization:    0 min:[float] 1 max:[float] 2 scale:[float] 3 zero_point:[long]
 *                    4 details_type:ubyte 5 details 6 quantized_dimension:int
 *   CustomQuantization: 0 custom:[ubyte]
 *   BlockwiseQuantization: 0 scales:int 1 zero_points:int 2 block_size:int
 *   Sparsity:        0 traversal_order:[int] 1 block_map:[int] 2 dim_metadata
 *   DimensionMetadata: 0 format:byte 1 dense_size:int 2 array_segments_type:ubyte
 *                    3 array_segments 4 array_indices_type:ubyte 5 array_indices
 *   Int32Vector/Uint16Vector/Uint8Vector: 0 values
 *   Operator:        0 opcode_index:uint 1 inputs 2 outputs 3 builtin_options_type
 *                    4 builtin_options 5 custom_options:[ubyte] 6 custom_options_format
 *                    7 mutating_variable_inputs:[bool] 8 intermediates:[int]
 *                    9 large_custom_options_offset:ulong 10 large_custom_options_size
 *                    11 builtin_options_2_type 12 builtin_options_2
 *                    13 debug_metadata_index:int=-1
 *   Buffer:          0 data:[ubyte] 1 offset:ulong 2 size:ulong
 *                    (offset > 1: the bytes live at file offset `offset`, after the
 *                    flatbuffer — models over 2 GB)
 *   Metadata:        0 name 1 buffer:uint
 *   SignatureDef:    0 inputs:[TensorMap] 1 outputs 2 signature_key 3 (deprecated)
 *                    4 subgraph_index:uint
 *   TensorMap:       0 name 1 tensor_index:uint
 *
 * Everything is verified as it is read (fb.c); after reading, gc_model_validate
 * checks the cross references. Large custom options (offset/size) are loaded into
 * custom_options and written back inline.
 */
#include "model.h"
#include "fb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    fb_reader r; gc_model *m;
    /* where we are, formatted only when something fails */
    int cur_sg; const char *cur_kind; int64_t cur_idx;
} rd;

#define TRY(x) do { if (!(x)) return false; } while (0)

static void *arena(rd *c, size_t n) {
    void *p = gc_arena_alloc(&c->m->arena, n ? n : 1);
    if (!p) fb_fail(&c->r, "out of memory");
    return p;
}

/* Copy a vector of n elements of `elem` bytes at data into the arena. */
static bool copy_vec(rd *c, uint64_t data, uint32_t n, uint32_t elem, void **out) {
    *out = NULL;
    if (!n) return true;
    TRY(fb_spend(&c->r, n));
    void *p = gc_arena_alloc_nz(&c->m->arena, (size_t)n * elem);
    if (!p) return fb_fail(&c->r, "out of memory");
    memcpy(p, c->r.b + data, (size_t)n * elem);
    *out = p;
    return true;
}

static bool get_vec(rd *c, const fb_table *t, int id, uint32_t elem, int32_t *n, void **out,
                    bool *present, const char *what) {
    uint32_t cnt; uint64_t d;
    TRY(fb_get_vector(&c->r, t, id, elem, &cnt, &d, present, what));
    if (cnt > INT32_MAX / 2) return fb_fail(&c->r, "%s: vector too long (%u)", what, cnt);
    *n = (int32_t)cnt;
    return copy_vec(c, d, cnt, elem, out);
}

static bool get_str(rd *c, const fb_table *t, int id, const char **s, const char *what) {
    TRY(fb_get_string(&c->r, t, id, s, NULL, what));
    return true;
}

/* ---- builtin options: generic, table-driven ------------------------------- */

static uint32_t kind_elem(int kind) {
    switch (kind) {
    case GC_F_VEC_I32: case GC_F_VEC_F32: case GC_F_VEC_U32: return 4;
    case GC_F_VEC_I64: case GC_F_VEC_F64: return 8;
    case GC_F_VEC_I16: case GC_F_VEC_U16: return 2;
    case GC_F_VEC_U8: case GC_F_VEC_I8: case GC_F_VEC_BOOL: case GC_F_STR: return 1;
    default: return 0;
    }
}

static bool read_options(rd *c, const fb_table *op, int type_id, int tab_id, bool second,
                         gc_options *o, const char *what) {
    uint8_t type;
    TRY(fb_get_u8(&c->r, op, type_id, 0, &type));
    memset(o, 0, sizeof *o);
    uint64_t pos;
    TRY(fb_get_ref(&c->r, op, tab_id, &pos));
    if (!type) return true;  /* NONE: a table without a type means nothing */
    o->type = type;
    const gc_opt_table_def *def = NULL;
    if (second) { if (type < gc_opt2_tables_count && gc_opt2_tables[type].name) def = &gc_opt2_tables[type]; }
    else if (type < gc_opt_tables_count && gc_opt_tables[type].name) def = &gc_opt_tables[type];
    fb_table t;
    if (pos) TRY(fb_table_at(&c->r, pos, &t, what));
    else memset(&t, 0, sizeof t);   /* a type without a table: all defaults */
    if (!def && !pos) return true;
    if (!def) {
        /* Unknown options table: keep its vtable and inline bytes verbatim. */
        uint32_t vtl = 4 + 2 * t.nfields;
        uint8_t *raw = arena(c, (size_t)vtl + t.size);
        TRY(raw);
        memcpy(raw, c->r.b + t.vt, vtl);
        memcpy(raw + vtl, c->r.b + t.pos, t.size);
        o->raw = raw; o->raw_len = vtl + t.size; o->raw_vt_len = (uint16_t)vtl;
        o->raw_mod8 = (uint8_t)(t.pos % 8);
        return true;
    }
    o->n_v = def->n_fields;
    o->v = arena(c, sizeof(gc_optval) * (def->n_fields ? def->n_fields : 1));
    TRY(o->v);
    for (int k = 0; k < def->n_fields && k < GC_OPT_MAX_FIELDS; k++) {
        const gc_opt_field_def *f = &def->fields[k];
        gc_optval *v = &o->v[k];
        v->i = (int64_t)f->dflt; v->f = f->dflt;
        if (!fb_has(&c->r, &t, k) || f->kind == GC_F_DEPRECATED) continue;
        o->present |= 1ull << k;
        uint32_t el = kind_elem(f->kind);
        if (el) {
            uint32_t n; uint64_t d;
            TRY(fb_get_vector(&c->r, &t, k, el, &n, &d, NULL, what));
            if (f->kind == GC_F_STR) {
                if (d + n >= c->r.n || c->r.b[d + n] != 0)
                    return fb_fail(&c->r, "%s: option string not NUL-terminated", what);
                void *p = NULL;
                TRY(copy_vec(c, d, n + 1, 1, &p));
                v->vec = p; v->n = n;
            } else {
                void *p = NULL;
                TRY(copy_vec(c, d, n, el, &p));
                v->vec = p; v->n = n;
            }
            continue;
        }
        switch (f->kind) {
        case GC_F_BOOL: case GC_F_U8: { uint8_t x; TRY(fb_get_u8(&c->r, &t, k, 0, &x)); v->i = x; break; }
        case GC_F_I8: { int8_t x; TRY(fb_get_i8(&c->r, &t, k, 0, &x)); v->i = x; break; }
        case GC_F_I16: { int16_t x; TRY(fb_get_i16(&c->r, &t, k, 0, &x)); v->i = x; break; }
        case GC_F_U16: { uint16_t x; TRY(fb_get_u16(&c->r, &t, k, 0, &x)); v->i = x; break; }
        case GC_F_I32: { int32_t x; TRY(fb_get_i32(&c->r, &t, k, 0, &x)); v->i = x; break; }
        case GC_F_U32: { uint32_t x; TRY(fb_get_u32(&c->r, &t, k, 0, &x)); v->i = x; break; }
        case GC_F_I64: case GC_F_U64: { uint64_t x; TRY(fb_get_u64(&c->r, &t, k, 0, &x)); v->i = (int64_t)x; break; }
        case GC_F_F32: { float x; TRY(fb_get_f32(&c->r, &t, k, 0, &x)); v->f = x; break; }
        case GC_F_F64: { double x; TRY(fb_get_f64(&c->r, &t, k, 0, &x)); v->f = x; break; }
        default: break;
        }
        if (f->kind == GC_F_F32 || f->kind == GC_F_F64) v->i = gc_f2i(v->f);
        else v->f = (double)v->i;
    }
    return true;
}

/* ---- quantization, sparsity ------------------------------------------------- */

static bool read_quant(rd *c, uint64_t pos, gc_quant **out, const char *what) {
    fb_table t;
    TRY(fb_table_at(&c->r, pos, &t, what));
    gc_quant *q = arena(c, sizeof *q);
    TRY(q);
    void *p;
    TRY(get_vec(c, &t, 0, 4, &q->n_min, &p, NULL, what)); q->min = p;
    TRY(get_vec(c, &t, 1, 4, &q->n_max, &p, NULL, what)); q->max = p;
    TRY(get_vec(c, &t, 2, 4, &q->n_scale, &p, NULL, what)); q->scale = p;
    TRY(get_vec(c, &t, 3, 8, &q->n_zero_point, &p, NULL, what)); q->zero_point = p;
    TRY(fb_get_u8(&c->r, &t, 4, 0, &q->details_type));
    TRY(fb_get_i32(&c->r, &t, 6, 0, &q->quantized_dimension));
    uint64_t dpos;
    TRY(fb_get_ref(&c->r, &t, 5, &dpos));
    if (dpos && q->details_type == 1) {
        fb_table d; TRY(fb_table_at(&c->r, dpos, &d, what));
        int32_t n; TRY(get_vec(c, &d, 0, 1, &n, &p, NULL, what));
        q->custom = p; q->n_custom = (uint32_t)n;
    } else if (dpos && q->details_type == 2) {
        fb_table d; TRY(fb_table_at(&c->r, dpos, &d, what));
        TRY(fb_get_i32(&c->r, &d, 0, 0, &q->bw_scales));
        TRY(fb_get_i32(&c->r, &d, 1, 0, &q->bw_zero_points));
        TRY(fb_get_i32(&c->r, &d, 2, 0, &q->bw_block_size));
        q->bw_present = (uint8_t)((fb_has(&c->r, &d, 0) ? 1 : 0) | (fb_has(&c->r, &d, 1) ? 2 : 0) |
                                  (fb_has(&c->r, &d, 2) ? 4 : 0));
    } else if (dpos || q->details_type > 2) {
        return fb_fail(&c->r, "%s: unknown quantization details type %u", what, q->details_type);
    }
    *out = q;
    return true;
}

static bool read_index_vec(rd *c, const fb_table *dm, int type_id, int id, uint8_t *type,
                           uint32_t *n, void **vals, const char *what) {
    TRY(fb_get_u8(&c->r, dm, type_id, 0, type));
    uint64_t pos; TRY(fb_get_ref(&c->r, dm, id, &pos));
    *n = 0; *vals = NULL;
    if (!pos) return true;
    uint32_t el = *type == 1 ? 4 : *type == 2 ? 2 : *type == 3 ? 1 : 0;
    if (!el) return fb_fail(&c->r, "%s: unknown sparse index vector type %u", what, *type);
    fb_table v; TRY(fb_table_at(&c->r, pos, &v, what));
    int32_t cnt; TRY(get_vec(c, &v, 0, el, &cnt, vals, NULL, what));
    *n = (uint32_t)cnt;
    return true;
}

static bool read_sparsity(rd *c, uint64_t pos, gc_sparsity **out, const char *what) {
    fb_table t;
    TRY(fb_table_at(&c->r, pos, &t, what));
    gc_sparsity *s = arena(c, sizeof *s);
    TRY(s);
    void *p;
    TRY(get_vec(c, &t, 0, 4, &s->n_traversal_order, &p, NULL, what)); s->traversal_order = p;
    TRY(get_vec(c, &t, 1, 4, &s->n_block_map, &p, NULL, what)); s->block_map = p;
    uint32_t n; uint64_t d;
    TRY(fb_get_vector(&c->r, &t, 2, 4, &n, &d, NULL, what));
    if (n > 64) return fb_fail(&c->r, "%s: %u sparsity dimensions", what, n);
    s->n_dim_metadata = (int32_t)n;
    s->dim_metadata = arena(c, sizeof(gc_dim_meta) * (n ? n : 1));
    TRY(s->dim_metadata);
    for (uint32_t i = 0; i < n; i++) {
        fb_table dm; TRY(fb_vector_table(&c->r, d, i, &dm, what));
        gc_dim_meta *g = &s->dim_metadata[i];
        TRY(fb_get_i8(&c->r, &dm, 0, 0, &g->format));
        TRY(fb_get_i32(&c->r, &dm, 1, 0, &g->dense_size));
        TRY(read_index_vec(c, &dm, 2, 3, &g->segments_type, &g->n_segments, &g->segments, what));
        TRY(read_index_vec(c, &dm, 4, 5, &g->indices_type, &g->n_indices, &g->indices, what));
    }
    *out = s;
    return true;
}

/* ---- tensors, ops, subgraphs ------------------------------------------------- */

static bool read_tensor(rd *c, const fb_table *t, gc_tensor *x, const char *what) {
    void *p; bool present;
    TRY(get_vec(c, t, 0, 4, &x->rank, &p, &present, what)); x->shape = p;
    if (present) x->present |= GC_TP_SHAPE;
    TRY(fb_get_i8(&c->r, t, 1, 0, &x->type));
    TRY(fb_get_u32(&c->r, t, 2, 0, &x->buffer));
    const char *name; TRY(get_str(c, t, 3, &name, what));
    x->name = name ? name : "";
    if (name) x->present |= GC_TP_NAME;
    uint64_t pos;
    TRY(fb_get_ref(&c->r, t, 4, &pos));
    if (pos) TRY(read_quant(c, pos, &x->quant, what));
    uint8_t b;
    TRY(fb_get_u8(&c->r, t, 5, 0, &b)); x->is_variable = b != 0;
    if (fb_has(&c->r, t, 5)) x->present |= GC_TP_IS_VARIABLE;
    TRY(fb_get_ref(&c->r, t, 6, &pos));
    if (pos) TRY(read_sparsity(c, pos, &x->sparsity, what));
    TRY(get_vec(c, t, 7, 4, &x->n_shape_signature, &p, NULL, what)); x->shape_signature = p;
    TRY(fb_get_u8(&c->r, t, 8, 0, &b)); x->has_rank = b != 0;
    if (fb_has(&c->r, t, 8)) x->present |= GC_TP_HAS_RANK;
    uint32_t n; uint64_t d;
    TRY(fb_get_vector(&c->r, t, 9, 4, &n, &d, NULL, what));
    if (n) {
        if (n > 1024) return fb_fail(&c->r, "%s: %u variant subtypes", what, n);
        x->variant = arena(c, sizeof(gc_variant_subtype) * n);
        TRY(x->variant);
        x->n_variant = (int32_t)n;
        for (uint32_t i = 0; i < n; i++) {
            fb_table v; TRY(fb_vector_table(&c->r, d, i, &v, what));
            gc_variant_subtype *s = &x->variant[i];
            TRY(get_vec(c, &v, 0, 4, &s->rank, &p, NULL, what)); s->shape = p;
            TRY(fb_get_i8(&c->r, &v, 1, 0, &s->type));
            TRY(fb_get_u8(&c->r, &v, 2, 0, &b)); s->has_rank = b != 0;
        }
    }
    return true;
}

static bool read_op(rd *c, const fb_table *t, gc_op *op, const char *what) {
    void *p;
    TRY(fb_get_u32(&c->r, t, 0, 0, &op->opcode_index));
    TRY(get_vec(c, t, 1, 4, &op->n_inputs, &p, NULL, what)); op->inputs = p;
    TRY(get_vec(c, t, 2, 4, &op->n_outputs, &p, NULL, what)); op->outputs = p;
    TRY(read_options(c, t, 3, 4, false, &op->opt, what));
    int32_t n;
    TRY(get_vec(c, t, 5, 1, &n, &p, NULL, what));
    op->custom_options = p; op->n_custom_options = (uint32_t)n;
    TRY(fb_get_i8(&c->r, t, 6, 0, &op->custom_options_format));
    TRY(get_vec(c, t, 7, 1, &op->n_mutating, &p, NULL, what)); op->mutating_variable_inputs = p;
    TRY(get_vec(c, t, 8, 4, &op->n_intermediates, &p, NULL, what)); op->intermediates = p;
    TRY(fb_get_u64(&c->r, t, 9, 0, &op->large_custom_options_offset));
    TRY(fb_get_u64(&c->r, t, 10, 0, &op->large_custom_options_size));
    if (op->large_custom_options_offset > 1) {
        uint64_t o = op->large_custom_options_offset, s = op->large_custom_options_size;
        if (o > c->r.n || s > c->r.n - o || s > UINT32_MAX)
            return fb_fail(&c->r, "%s: large custom options (offset %llu, size %llu) lie outside the file",
                           what, (unsigned long long)o, (unsigned long long)s);
        op->custom_options = c->r.b + o; op->n_custom_options = (uint32_t)s;
    }
    TRY(read_options(c, t, 11, 12, true, &op->opt2, what));
    TRY(fb_get_i32(&c->r, t, 13, -1, &op->debug_metadata_index));
    return true;
}

static bool read_subgraph(rd *c, const fb_table *t, gc_subgraph *sg, int si) {
    char what[96];
    snprintf(what, sizeof what, "subgraph %d", si);
    const char *name; TRY(get_str(c, t, 4, &name, what));
    sg->name = name;
    void *p;
    TRY(get_vec(c, t, 1, 4, &sg->n_inputs, &p, NULL, what)); sg->inputs = p;
    TRY(get_vec(c, t, 2, 4, &sg->n_outputs, &p, NULL, what)); sg->outputs = p;
    TRY(fb_get_i32(&c->r, t, 5, -1, &sg->debug_metadata_index));
    uint32_t n; uint64_t d;
    TRY(fb_get_vector(&c->r, t, 0, 4, &n, &d, NULL, what));
    if (n > (1u << 24)) return fb_fail(&c->r, "%s: %u tensors", what, n);
    if (n && !gc_grow((void **)&sg->tensors, &sg->cap_tensors, (int32_t)n, sizeof(gc_tensor)))
        return fb_fail(&c->r, "out of memory");
    c->cur_sg = si; c->cur_kind = "tensor";
    for (uint32_t i = 0; i < n; i++) {
        fb_table tt;
        c->cur_idx = i;
        TRY(fb_vector_table(&c->r, d, i, &tt, "tensor"));
        TRY(read_tensor(c, &tt, &sg->tensors[i], "tensor"));
        sg->n_tensors = (int32_t)i + 1;
    }
    TRY(fb_get_vector(&c->r, t, 3, 4, &n, &d, NULL, what));
    if (n > (1u << 24)) return fb_fail(&c->r, "%s: %u operators", what, n);
    if (n && !gc_grow((void **)&sg->ops, &sg->cap_ops, (int32_t)n, sizeof(gc_op)))
        return fb_fail(&c->r, "out of memory");
    c->cur_kind = "operator";
    for (uint32_t i = 0; i < n; i++) {
        fb_table ot;
        c->cur_idx = i;
        TRY(fb_vector_table(&c->r, d, i, &ot, "operator"));
        TRY(read_op(c, &ot, &sg->ops[i], "operator"));
        sg->n_ops = (int32_t)i + 1;
    }
    c->cur_kind = NULL;
    return true;
}

/* Read vector-of-tables field `id` into a growable array, one callback per element. */
#define READ_TABLES(c, t, id, arr, cnt, cap, limit, what, ...)                         \
    do {                                                                             \
        uint32_t n_; uint64_t d_;                                                    \
        TRY(fb_get_vector(&(c)->r, t, id, 4, &n_, &d_, NULL, what));                 \
        if (n_ > (limit)) return fb_fail(&(c)->r, "%s: %u entries (limit %u)", what, n_, (unsigned)(limit)); \
        if (n_ && !gc_grow((void **)&(arr), &(cap), (int32_t)n_, sizeof *(arr)))     \
            return fb_fail(&(c)->r, "out of memory");                                \
        for (uint32_t i_ = 0; i_ < n_; i_++) {                                       \
            fb_table e_;                                                             \
            TRY(fb_vector_table(&(c)->r, d_, i_, &e_, what));                        \
            __typeof__(&(arr)[0]) x_ = &(arr)[i_];                                   \
            __VA_ARGS__                                                              \
            (cnt) = (int32_t)i_ + 1;                                                 \
        }                                                                            \
    } while (0)

static bool read_model(rd *c) {
    gc_model *m = c->m;
    fb_table root;
    TRY(fb_root(&c->r, "TFL3", &root));
    TRY(fb_get_u32(&c->r, &root, 0, 0, &m->version));
    TRY(get_str(c, &root, 3, &m->description, "model description"));

    READ_TABLES(c, &root, 1, m->opcodes, m->n_opcodes, m->cap_opcodes, 1u << 20, "operator codes", {
        TRY(fb_get_i8(&c->r, &e_, 0, 0, &x_->deprecated_builtin_code));
        TRY(get_str(c, &e_, 1, &x_->custom_code, "operator code custom_code"));
        TRY(fb_get_i32(&c->r, &e_, 2, 1, &x_->version));
        int32_t bc; TRY(fb_get_i32(&c->r, &e_, 3, 0, &bc));
        x_->has_builtin_code = fb_has(&c->r, &e_, 3);
        /* TFLite's rule: the real code is the larger of the two fields */
        x_->builtin_code = bc > x_->deprecated_builtin_code ? bc : x_->deprecated_builtin_code;
    });

    READ_TABLES(c, &root, 4, m->buffers, m->n_buffers, m->cap_buffers, 1u << 24, "buffers", {
        uint32_t n; uint64_t d;
        TRY(fb_get_vector(&c->r, &e_, 0, 1, &n, &d, NULL, "buffer data"));
        uint64_t off, size;
        TRY(fb_get_u64(&c->r, &e_, 1, 0, &off));
        TRY(fb_get_u64(&c->r, &e_, 2, 0, &size));
        if (off > 1) {
            if (off > c->r.n || size > c->r.n - off)
                return fb_fail(&c->r, "buffer %u: data (offset %llu, size %llu) lies outside the file (%llu bytes)",
                               i_, (unsigned long long)off, (unsigned long long)size,
                               (unsigned long long)c->r.n);
            x_->data = size ? c->r.b + off : NULL; x_->size = size;
            x_->offset = off; x_->external = true;
        } else {
            x_->data = n ? c->r.b + d : NULL; x_->size = n;
        }
    });

    READ_TABLES(c, &root, 2, m->subgraphs, m->n_subgraphs, m->cap_subgraphs, 1u << 16, "subgraphs", {
        TRY(read_subgraph(c, &e_, x_, (int)i_));
    });

    void *p;
    TRY(get_vec(c, &root, 5, 4, &m->n_metadata_buffer, &p, NULL, "metadata_buffer"));
    m->metadata_buffer = p;

    READ_TABLES(c, &root, 6, m->metadata, m->n_metadata, m->cap_metadata, 1u << 16, "metadata", {
        TRY(get_str(c, &e_, 0, &x_->name, "metadata name"));
        TRY(fb_get_u32(&c->r, &e_, 1, 0, &x_->buffer));
    });

    READ_TABLES(c, &root, 7, m->signatures, m->n_signatures, m->cap_signatures, 1u << 16, "signature defs", {
        TRY(get_str(c, &e_, 2, &x_->key, "signature key"));
        TRY(fb_get_u32(&c->r, &e_, 4, 0, &x_->subgraph));
        for (int io = 0; io < 2; io++) {
            uint32_t n; uint64_t d;
            TRY(fb_get_vector(&c->r, &e_, io, 4, &n, &d, NULL, "signature tensor map"));
            if (n > (1u << 20)) return fb_fail(&c->r, "signature: %u tensors", n);
            gc_tensor_map *tm = arena(c, sizeof *tm * (n ? n : 1));
            TRY(tm);
            for (uint32_t k = 0; k < n; k++) {
                fb_table mt; TRY(fb_vector_table(&c->r, d, k, &mt, "signature tensor map"));
                TRY(get_str(c, &mt, 0, &tm[k].name, "signature tensor name"));
                TRY(fb_get_u32(&c->r, &mt, 1, 0, &tm[k].tensor));
            }
            if (io == 0) { x_->inputs = tm; x_->n_inputs = (int32_t)n; }
            else { x_->outputs = tm; x_->n_outputs = (int32_t)n; }
        }
    });
    return true;
}

/* ---- entry points ------------------------------------------------------------- */

static gc_model *read_common(gc_model *m, char *err, size_t errlen) {
    rd c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.r.b = m->file; c.r.n = m->file_size;
    c.r.err = m->err; c.r.errlen = sizeof m->err;
    /* Work budget: generous for any real file, finite for hostile ones. */
    c.r.budget = 64 * m->file_size + (1u << 20);
    if (!read_model(&c)) {
        size_t kl = c.cur_kind ? strlen(c.cur_kind) : 0;
        if (c.cur_kind && !strncmp(m->err, c.cur_kind, kl))   /* "tensor: ..." */
            gc_errf(err, errlen, "subgraph %d %s %lld%s", c.cur_sg, c.cur_kind,
                    (long long)c.cur_idx, m->err + kl);
        else gc_errf(err, errlen, "%s", m->err);
        gc_model_free(m);
        return NULL;
    }
    if (gc_model_validate(m, err, errlen) != GC_OK) {
        gc_model_free(m);
        return NULL;
    }
    return m;
}

gc_model *gc_model_read_mem(const void *data, size_t size, char *err, size_t errlen) {
    gc_model *m = gc_model_new();
    if (!m) { gc_errf(err, errlen, "out of memory"); return NULL; }
    m->file = data; m->file_size = size;
    return read_common(m, err, errlen);
}

static gc_model *read_file(const char *path, bool lazy, char *err, size_t errlen) {
    /* O_NONBLOCK: opening a FIFO for reading blocks until a writer appears (it would
     * hang every verb and the Python binding); with it the open returns at once and
     * fstat below refuses anything that is not a regular file. On a regular file the
     * flag changes nothing (reads are never "would block"; the file is mmap'd). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) { gc_errf(err, errlen, "cannot open: %s", strerror(errno)); return NULL; }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        gc_errf(err, errlen, "not a regular file");
        close(fd); return NULL;
    }
    if (st.st_size < 8) {
        gc_errf(err, errlen, "file too small to be a .tflite model (%lld bytes)", (long long)st.st_size);
        close(fd); return NULL;
    }
    /* Small files are mapped populated (one batched fault instead of one per page:
     * writing a model back touches every weight) unless `lazy`; big ones stay lazy so
     * that inspecting a multi-GB model reads only its flatbuffer. */
    int flags = MAP_PRIVATE | (!lazy && st.st_size <= (64 << 20) ? MAP_POPULATE : 0);
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
    close(fd);
    if (map == MAP_FAILED) { gc_errf(err, errlen, "cannot map: %s", strerror(errno)); return NULL; }
    gc_model *m = gc_model_new();
    if (!m) { munmap(map, (size_t)st.st_size); gc_errf(err, errlen, "out of memory"); return NULL; }
    m->file = map; m->file_size = (uint64_t)st.st_size; m->file_is_mapped = 1;
    snprintf(m->path, sizeof m->path, "%s", path);
    return read_common(m, err, errlen);
}

gc_model *gc_model_read_file(const char *path, char *err, size_t errlen) { return read_file(path, false, err, errlen); }
gc_model *gc_model_read_file_lazy(const char *path, char *err, size_t errlen) { return read_file(path, true, err, errlen); }
