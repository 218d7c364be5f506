/* write.c — gc_model → .tflite bytes.
 *
 * A front-to-back FlatBuffer writer: a table is written first with placeholder
 * offsets and its children after it, so every uoffset points forward (as the format
 * requires) and is patched once the child's position is known. Each table's vtable is
 * written just before the table (soffset = table - vtable > 0). Layout rules kept:
 * tables start at 4 mod 8 so that 8-byte fields after the soffset are 8-aligned;
 * vectors are aligned for their element size; buffer data is aligned to 16
 * (schema: force_align 16).
 *
 * Weights are not copied into the builder: buffer data is placed after all tables
 * as a list of (small header, pointer into the source mapping) chunks that are
 * written with one pass (file) or concatenated (memory). When the weights would push
 * the file past 2 GB (or when asked), buffers carry offset/size and the data
 * follows the flatbuffer at 64-byte-aligned absolute file offsets.
 * Field ids: see read.c.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint8_t *b; size_t n, cap; bool oom; } wbuf;

/* deferred buffer data: where to patch, what to place */
typedef struct { size_t field; const uint8_t *data; uint64_t size; } wdata;

typedef struct {
    wbuf w;
    wdata *d; int32_t nd, capd;
    bool external;
    char *err; size_t errlen;
} writer;

static void w_reserve(wbuf *w, size_t extra) {
    if (w->oom) return;
    if (w->n + extra <= w->cap) return;
    size_t nc = w->cap ? w->cap : 4096;
    while (nc < w->n + extra) {
        if (nc > SIZE_MAX / 2) { w->oom = true; return; }
        nc *= 2;
    }
    uint8_t *q = realloc(w->b, nc);
    if (!q) { w->oom = true; return; }
    w->b = q; w->cap = nc;
}

static inline size_t w_put(wbuf *w, const void *p, size_t n) {
    if (w->n + n > w->cap) w_reserve(w, n);
    if (w->oom) return 0;
    size_t at = w->n;
    if (!n) return at;
    if (p) memcpy(w->b + at, p, n);
    else if (n <= 8) for (size_t i = 0; i < n; i++) w->b[at + i] = 0;
    else memset(w->b + at, 0, n);
    w->n += n;
    return at;
}

/* pad so that (n + off) % align == 0 (align is a power of two) */
static void w_pad(wbuf *w, size_t align, size_t off) {
    size_t pad = (align - (w->n + off) % align) % align;
    if (pad) w_put(w, NULL, pad);
}

static void w_patch_ref(wbuf *w, size_t field, size_t target) {
    if (w->oom) return;
    uint32_t rel = (uint32_t)(target - field);
    memcpy(w->b + field, &rel, 4);
}

/* ---- tables ----------------------------------------------------------------------- */

#define TB_MAX 64
typedef struct {
    struct { uint8_t id, size; bool ref; uint64_t bits; size_t pos; } f[TB_MAX];
    int n;
} tb;

static void tb_scalar(tb *t, int id, int size, uint64_t bits) {
    if (t->n >= TB_MAX) abort(); /* our bug: no table has that many fields */
    t->f[t->n].id = (uint8_t)id; t->f[t->n].size = (uint8_t)size;
    t->f[t->n].ref = false; t->f[t->n].bits = bits; t->n++;
}
static void tb_i32(tb *t, int id, int32_t v) { tb_scalar(t, id, 4, (uint32_t)v); }
static void tb_u32(tb *t, int id, uint32_t v) { tb_scalar(t, id, 4, v); }
static void tb_u8(tb *t, int id, uint8_t v) { tb_scalar(t, id, 1, v); }
static void tb_u64(tb *t, int id, uint64_t v) { tb_scalar(t, id, 8, v); }
static int tb_ref(tb *t, int id) {
    if (t->n >= TB_MAX) abort();
    t->f[t->n].id = (uint8_t)id; t->f[t->n].size = 4; t->f[t->n].ref = true;
    t->f[t->n].bits = 0;
    return t->n++;
}

/* Write vtable + table; fills f[].pos with each field's absolute position. */
static size_t tb_end(wbuf *w, tb *t) {
    int maxid = -1;
    for (int i = 0; i < t->n; i++) if (t->f[i].id > maxid) maxid = t->f[i].id;
    uint16_t vt[2 + TB_MAX * 2];
    int nf = maxid + 1;
    memset(vt, 0, sizeof(uint16_t) * (size_t)(2 + nf));
    /* inline layout: soffset, then fields by decreasing size */
    uint16_t off = 4;
    for (int sz = 8; sz >= 1; sz /= 2)
        for (int i = 0; i < t->n; i++)
            if (t->f[i].size == sz) { vt[2 + t->f[i].id] = off; off = (uint16_t)(off + sz); }
    uint16_t tsize = (uint16_t)((off + 3u) & ~3u);
    vt[0] = (uint16_t)(4 + 2 * nf); vt[1] = tsize;
    size_t vtbytes = 4 + 2 * (size_t)nf;
    /* table must start at 4 mod 8; the vtable sits right before it (2-aligned) */
    w_pad(w, 2, 0);
    w_put(w, NULL, (8 + 4 - (w->n + vtbytes) % 8) % 8);   /* an even count: n stays even */
    size_t vpos = w_put(w, vt, vtbytes);
    size_t tpos = w_put(w, NULL, tsize);
    if (w->oom) return 0;
    int32_t so = (int32_t)(tpos - vpos);
    memcpy(w->b + tpos, &so, 4);
    for (int i = 0; i < t->n; i++) {
        size_t p = tpos + vt[2 + t->f[i].id];
        t->f[i].pos = p;
        if (!t->f[i].ref) {
            uint64_t b = t->f[i].bits;
            memcpy(w->b + p, &b, t->f[i].size); /* little-endian host */
        }
    }
    return tpos;
}

static size_t w_vector(wbuf *w, const void *data, uint32_t n, size_t elem) {
    w_pad(w, elem > 4 ? elem : 4, 4);
    size_t at = w_put(w, &n, 4);
    if (n) w_put(w, data, (size_t)n * elem);
    return at;
}

static size_t w_string_n(wbuf *w, const char *s, uint32_t n) {
    w_pad(w, 4, 0);
    size_t at = w_put(w, &n, 4);
    w_put(w, s, n);
    w_put(w, NULL, 1);
    return at;
}

static size_t w_string(wbuf *w, const char *s) {
    uint32_t n = (uint32_t)strlen(s);
    w_pad(w, 4, 0);
    size_t at = w_put(w, &n, 4);
    w_put(w, s, n);
    w_put(w, NULL, 1);
    return at;
}

/* A vector of n table offsets; returns the position of element 0's slot. */
static size_t w_table_vector(wbuf *w, uint32_t n, size_t *vec_pos) {
    w_pad(w, 4, 0);
    *vec_pos = w_put(w, &n, 4);
    return w_put(w, NULL, 4 * (size_t)n);
}

#define PATCH(t, i, target) w_patch_ref(&c->w, (t).f[i].pos, (target))

/* ---- options ------------------------------------------------------------------------ */

static size_t write_options(writer *c, const gc_options *o, bool second) {
    wbuf *w = &c->w;
    if (o->raw) {
        /* unknown table: vtable verbatim, table bytes verbatim with a new soffset */
        w_pad(w, 2, 0);
        /* the table at its old offset mod 8 — rounded down to even, since we write
         * vtables at even offsets (a hostile file may have had an odd one) */
        w_put(w, NULL, (8 + (o->raw_mod8 & 6u) - (w->n + o->raw_vt_len) % 8) % 8);
        size_t vpos = w_put(w, o->raw, o->raw_vt_len);
        size_t tpos = w_put(w, o->raw + o->raw_vt_len, o->raw_len - o->raw_vt_len);
        if (w->oom) return 0;
        int32_t so = (int32_t)(tpos - vpos);
        memcpy(w->b + tpos, &so, 4);
        return tpos;
    }
    const gc_opt_table_def *def = second ? &gc_opt2_tables[o->type] : &gc_opt_tables[o->type];
    tb t; t.n = 0;
    int refs[GC_OPT_MAX_FIELDS];
    for (int k = 0; k < def->n_fields; k++) {
        refs[k] = -1;
        if (!o->v || k >= o->n_v || !(o->present & (1ull << k))) continue;
        const gc_optval *v = &o->v[k];
        switch (def->fields[k].kind) {
        case GC_F_BOOL: case GC_F_I8: case GC_F_U8: tb_scalar(&t, k, 1, (uint64_t)v->i); break;
        case GC_F_I16: case GC_F_U16: tb_scalar(&t, k, 2, (uint64_t)v->i); break;
        case GC_F_I32: case GC_F_U32: tb_scalar(&t, k, 4, (uint64_t)v->i); break;
        case GC_F_I64: case GC_F_U64: tb_scalar(&t, k, 8, (uint64_t)v->i); break;
        case GC_F_F32: { float f = (float)v->f; uint32_t b; memcpy(&b, &f, 4); tb_scalar(&t, k, 4, b); break; }
        case GC_F_F64: { uint64_t b; memcpy(&b, &v->f, 8); tb_scalar(&t, k, 8, b); break; }
        case GC_F_DEPRECATED: break;
        default: refs[k] = tb_ref(&t, k); break;
        }
    }
    size_t tpos = tb_end(w, &t);
    for (int k = 0; k < def->n_fields; k++) {
        if (refs[k] < 0) continue;
        const gc_optval *v = &o->v[k];
        size_t at;
        switch (def->fields[k].kind) {
        /* by length: a flatbuffer string may hold NUL bytes */
        case GC_F_STR: at = w_string_n(w, v->vec ? (const char *)v->vec : "", v->vec ? v->n : 0); break;
        case GC_F_VEC_I64: case GC_F_VEC_F64: at = w_vector(w, v->vec, v->n, 8); break;
        case GC_F_VEC_I16: case GC_F_VEC_U16: at = w_vector(w, v->vec, v->n, 2); break;
        case GC_F_VEC_U8: case GC_F_VEC_I8: case GC_F_VEC_BOOL: at = w_vector(w, v->vec, v->n, 1); break;
        default: at = w_vector(w, v->vec, v->n, 4); break;
        }
        w_patch_ref(w, t.f[refs[k]].pos, at);
    }
    return tpos;
}

/* ---- model parts -------------------------------------------------------------------- */

static size_t write_quant(writer *c, const gc_quant *q) {
    tb t; t.n = 0;
    int r_min = -1, r_max = -1, r_sc = -1, r_zp = -1, r_det = -1;
    if (q->n_min) r_min = tb_ref(&t, 0);
    if (q->n_max) r_max = tb_ref(&t, 1);
    if (q->n_scale) r_sc = tb_ref(&t, 2);
    if (q->n_zero_point) r_zp = tb_ref(&t, 3);
    if (q->details_type) { tb_u8(&t, 4, q->details_type); r_det = tb_ref(&t, 5); }
    if (q->quantized_dimension) tb_i32(&t, 6, q->quantized_dimension);
    size_t tp = tb_end(&c->w, &t);
    if (r_min >= 0) PATCH(t, r_min, w_vector(&c->w, q->min, (uint32_t)q->n_min, 4));
    if (r_max >= 0) PATCH(t, r_max, w_vector(&c->w, q->max, (uint32_t)q->n_max, 4));
    if (r_sc >= 0) PATCH(t, r_sc, w_vector(&c->w, q->scale, (uint32_t)q->n_scale, 4));
    if (r_zp >= 0) PATCH(t, r_zp, w_vector(&c->w, q->zero_point, (uint32_t)q->n_zero_point, 8));
    if (r_det >= 0) {
        tb d; d.n = 0;
        if (q->details_type == 1) {
            int r = tb_ref(&d, 0);
            PATCH(t, r_det, tb_end(&c->w, &d));
            PATCH(d, r, w_vector(&c->w, q->custom, q->n_custom, 1));
        } else {
            if (q->bw_present & 1) tb_i32(&d, 0, q->bw_scales);
            if (q->bw_present & 2) tb_i32(&d, 1, q->bw_zero_points);
            if (q->bw_present & 4) tb_i32(&d, 2, q->bw_block_size);
            PATCH(t, r_det, tb_end(&c->w, &d));
        }
    }
    return tp;
}

static size_t write_index_vec(writer *c, uint8_t type, const void *vals, uint32_t n) {
    tb t; t.n = 0;
    int r = tb_ref(&t, 0);
    size_t tp = tb_end(&c->w, &t);
    size_t el = type == 1 ? 4 : type == 2 ? 2 : 1;
    PATCH(t, r, w_vector(&c->w, vals, n, el));
    return tp;
}

static size_t write_sparsity(writer *c, const gc_sparsity *s) {
    tb t; t.n = 0;
    int r0 = tb_ref(&t, 0), r1 = tb_ref(&t, 1), r2 = tb_ref(&t, 2);
    size_t tp = tb_end(&c->w, &t);
    PATCH(t, r0, w_vector(&c->w, s->traversal_order, (uint32_t)s->n_traversal_order, 4));
    PATCH(t, r1, w_vector(&c->w, s->block_map, (uint32_t)s->n_block_map, 4));
    size_t vp, slot = w_table_vector(&c->w, (uint32_t)s->n_dim_metadata, &vp);
    PATCH(t, r2, vp);
    for (int32_t i = 0; i < s->n_dim_metadata; i++) {
        const gc_dim_meta *g = &s->dim_metadata[i];
        tb d; d.n = 0;
        tb_scalar(&d, 0, 1, (uint8_t)g->format);
        tb_i32(&d, 1, g->dense_size);
        int rs = -1, ri = -1;
        if (g->segments_type) { tb_u8(&d, 2, g->segments_type); rs = tb_ref(&d, 3); }
        if (g->indices_type) { tb_u8(&d, 4, g->indices_type); ri = tb_ref(&d, 5); }
        w_patch_ref(&c->w, slot + 4 * (size_t)i, tb_end(&c->w, &d));
        if (rs >= 0) PATCH(d, rs, write_index_vec(c, g->segments_type, g->segments, g->n_segments));
        if (ri >= 0) PATCH(d, ri, write_index_vec(c, g->indices_type, g->indices, g->n_indices));
    }
    return tp;
}

static size_t write_tensor(writer *c, const gc_tensor *x) {
    tb t; t.n = 0;
    int r_shape = -1, r_name = -1, r_q = -1, r_sp = -1, r_sig = -1, r_var = -1;
    if ((x->present & GC_TP_SHAPE) || x->rank) r_shape = tb_ref(&t, 0);
    tb_scalar(&t, 1, 1, (uint8_t)x->type);
    tb_u32(&t, 2, x->buffer);
    if ((x->present & GC_TP_NAME) || x->name[0]) r_name = tb_ref(&t, 3);
    if (x->quant) r_q = tb_ref(&t, 4);
    if (x->is_variable || (x->present & GC_TP_IS_VARIABLE)) tb_u8(&t, 5, x->is_variable);
    if (x->sparsity) r_sp = tb_ref(&t, 6);
    if (x->n_shape_signature) r_sig = tb_ref(&t, 7);
    if (x->has_rank || (x->present & GC_TP_HAS_RANK)) tb_u8(&t, 8, x->has_rank);
    if (x->n_variant) r_var = tb_ref(&t, 9);
    size_t tp = tb_end(&c->w, &t);
    if (r_shape >= 0) PATCH(t, r_shape, w_vector(&c->w, x->shape, (uint32_t)x->rank, 4));
    if (r_name >= 0) PATCH(t, r_name, w_string(&c->w, x->name));
    if (r_q >= 0) PATCH(t, r_q, write_quant(c, x->quant));
    if (r_sp >= 0) PATCH(t, r_sp, write_sparsity(c, x->sparsity));
    if (r_sig >= 0) PATCH(t, r_sig, w_vector(&c->w, x->shape_signature, (uint32_t)x->n_shape_signature, 4));
    if (r_var >= 0) {
        size_t vp, slot = w_table_vector(&c->w, (uint32_t)x->n_variant, &vp);
        PATCH(t, r_var, vp);
        for (int32_t i = 0; i < x->n_variant; i++) {
            const gc_variant_subtype *s = &x->variant[i];
            tb v; v.n = 0;
            int rs = tb_ref(&v, 0);
            tb_scalar(&v, 1, 1, (uint8_t)s->type);
            tb_u8(&v, 2, s->has_rank);
            w_patch_ref(&c->w, slot + 4 * (size_t)i, tb_end(&c->w, &v));
            PATCH(v, rs, w_vector(&c->w, s->shape, (uint32_t)s->rank, 4));
        }
    }
    return tp;
}

static bool opt_known(const gc_options *o, bool second) {
    if (o->raw) return true;
    if (second) return o->type < gc_opt2_tables_count && gc_opt2_tables[o->type].name;
    return o->type < gc_opt_tables_count && gc_opt_tables[o->type].name;
}

static size_t write_op(writer *c, const gc_op *op) {
    tb t; t.n = 0;
    tb_u32(&t, 0, op->opcode_index);
    int r_in = tb_ref(&t, 1), r_out = tb_ref(&t, 2), r_opt = -1, r_cust = -1, r_mut = -1,
        r_int = -1, r_opt2 = -1;
    if (op->opt.type) {
        tb_u8(&t, 3, op->opt.type);
        if (opt_known(&op->opt, false)) r_opt = tb_ref(&t, 4);
    }
    if (op->n_custom_options) r_cust = tb_ref(&t, 5);
    if (op->custom_options_format) tb_scalar(&t, 6, 1, (uint8_t)op->custom_options_format);
    if (op->n_mutating) r_mut = tb_ref(&t, 7);
    if (op->n_intermediates) r_int = tb_ref(&t, 8);
    if (op->opt2.type) {
        tb_u8(&t, 11, op->opt2.type);
        if (opt_known(&op->opt2, true)) r_opt2 = tb_ref(&t, 12);
    }
    if (op->debug_metadata_index != -1) tb_i32(&t, 13, op->debug_metadata_index);
    size_t tp = tb_end(&c->w, &t);
    PATCH(t, r_in, w_vector(&c->w, op->inputs, (uint32_t)op->n_inputs, 4));
    PATCH(t, r_out, w_vector(&c->w, op->outputs, (uint32_t)op->n_outputs, 4));
    if (r_opt >= 0) PATCH(t, r_opt, write_options(c, &op->opt, false));
    if (r_cust >= 0) PATCH(t, r_cust, w_vector(&c->w, op->custom_options, op->n_custom_options, 1));
    if (r_mut >= 0) PATCH(t, r_mut, w_vector(&c->w, op->mutating_variable_inputs, (uint32_t)op->n_mutating, 1));
    if (r_int >= 0) PATCH(t, r_int, w_vector(&c->w, op->intermediates, (uint32_t)op->n_intermediates, 4));
    if (r_opt2 >= 0) PATCH(t, r_opt2, write_options(c, &op->opt2, true));
    return tp;
}

static size_t write_subgraph(writer *c, const gc_subgraph *sg) {
    tb t; t.n = 0;
    int r_t = tb_ref(&t, 0), r_in = tb_ref(&t, 1), r_out = tb_ref(&t, 2), r_ops = tb_ref(&t, 3);
    int r_name = sg->name ? tb_ref(&t, 4) : -1;
    if (sg->debug_metadata_index != -1) tb_i32(&t, 5, sg->debug_metadata_index);
    size_t tp = tb_end(&c->w, &t);
    size_t vp, slot = w_table_vector(&c->w, (uint32_t)sg->n_tensors, &vp);
    PATCH(t, r_t, vp);
    for (int32_t i = 0; i < sg->n_tensors; i++)
        w_patch_ref(&c->w, slot + 4 * (size_t)i, write_tensor(c, &sg->tensors[i]));
    PATCH(t, r_in, w_vector(&c->w, sg->inputs, (uint32_t)sg->n_inputs, 4));
    PATCH(t, r_out, w_vector(&c->w, sg->outputs, (uint32_t)sg->n_outputs, 4));
    slot = w_table_vector(&c->w, (uint32_t)sg->n_ops, &vp);
    PATCH(t, r_ops, vp);
    for (int32_t i = 0; i < sg->n_ops; i++)
        w_patch_ref(&c->w, slot + 4 * (size_t)i, write_op(c, &sg->ops[i]));
    if (r_name >= 0) PATCH(t, r_name, w_string(&c->w, sg->name));
    return tp;
}

static bool defer_data(writer *c, size_t field, const uint8_t *data, uint64_t size) {
    if (!gc_grow((void **)&c->d, &c->capd, c->nd + 1, sizeof *c->d)) { c->w.oom = true; return false; }
    c->d[c->nd].field = field; c->d[c->nd].data = data; c->d[c->nd].size = size;
    c->nd++;
    return true;
}

static size_t write_buffer(writer *c, const gc_buffer *b) {
    tb t; t.n = 0;
    int r = -1, r_off = -1;
    if (b->size) {
        if (c->external) { r_off = t.n; tb_u64(&t, 1, 0); tb_u64(&t, 2, b->size); }
        else r = tb_ref(&t, 0);
    }
    size_t tp = tb_end(&c->w, &t);
    if (r >= 0) defer_data(c, t.f[r].pos, b->data, b->size);
    if (r_off >= 0) defer_data(c, t.f[r_off].pos, b->data, b->size);
    return tp;
}

static size_t write_tensor_maps(writer *c, const gc_tensor_map *tm, int32_t n) {
    size_t vp, slot = w_table_vector(&c->w, (uint32_t)n, &vp);
    for (int32_t i = 0; i < n; i++) {
        tb t; t.n = 0;
        int r = tm[i].name ? tb_ref(&t, 0) : -1;
        tb_u32(&t, 1, tm[i].tensor);
        w_patch_ref(&c->w, slot + 4 * (size_t)i, tb_end(&c->w, &t));
        if (r >= 0) PATCH(t, r, w_string(&c->w, tm[i].name));
    }
    return vp;
}

/* Serialize the tables; fills c->d with deferred data. Returns false on OOM. */
static bool write_model(writer *c, const gc_model *m) {
    wbuf *w = &c->w;
    w_put(w, NULL, 4);          /* root offset */
    w_put(w, "TFL3", 4);
    tb t; t.n = 0;
    tb_u32(&t, 0, m->version);
    int r_oc = tb_ref(&t, 1), r_sg = tb_ref(&t, 2);
    int r_desc = m->description ? tb_ref(&t, 3) : -1;
    int r_buf = tb_ref(&t, 4);
    int r_mb = m->n_metadata_buffer ? tb_ref(&t, 5) : -1;
    int r_md = m->n_metadata ? tb_ref(&t, 6) : -1;
    int r_sig = m->n_signatures ? tb_ref(&t, 7) : -1;
    size_t root = tb_end(w, &t);
    if (w->oom) return false;
    w_patch_ref(w, 0, root);

    size_t vp, slot = w_table_vector(w, (uint32_t)m->n_opcodes, &vp);
    PATCH(t, r_oc, vp);
    for (int32_t i = 0; i < m->n_opcodes; i++) {
        const gc_opcode *oc = &m->opcodes[i];
        tb o; o.n = 0;
        tb_scalar(&o, 0, 1, (uint8_t)oc->deprecated_builtin_code);
        int r = oc->custom_code ? tb_ref(&o, 1) : -1;
        tb_i32(&o, 2, oc->version);
        tb_i32(&o, 3, oc->builtin_code);
        w_patch_ref(w, slot + 4 * (size_t)i, tb_end(w, &o));
        if (r >= 0) PATCH(o, r, w_string(w, oc->custom_code));
    }
    slot = w_table_vector(w, (uint32_t)m->n_subgraphs, &vp);
    PATCH(t, r_sg, vp);
    for (int32_t i = 0; i < m->n_subgraphs; i++)
        w_patch_ref(w, slot + 4 * (size_t)i, write_subgraph(c, &m->subgraphs[i]));
    if (r_desc >= 0) PATCH(t, r_desc, w_string(w, m->description));
    if (r_mb >= 0) PATCH(t, r_mb, w_vector(w, m->metadata_buffer, (uint32_t)m->n_metadata_buffer, 4));
    if (r_md >= 0) {
        slot = w_table_vector(w, (uint32_t)m->n_metadata, &vp);
        PATCH(t, r_md, vp);
        for (int32_t i = 0; i < m->n_metadata; i++) {
            tb o; o.n = 0;
            int r = m->metadata[i].name ? tb_ref(&o, 0) : -1;
            tb_u32(&o, 1, m->metadata[i].buffer);
            w_patch_ref(w, slot + 4 * (size_t)i, tb_end(w, &o));
            if (r >= 0) PATCH(o, r, w_string(w, m->metadata[i].name));
        }
    }
    if (r_sig >= 0) {
        slot = w_table_vector(w, (uint32_t)m->n_signatures, &vp);
        PATCH(t, r_sig, vp);
        for (int32_t i = 0; i < m->n_signatures; i++) {
            const gc_signature *s = &m->signatures[i];
            tb o; o.n = 0;
            int ri = tb_ref(&o, 0), ro = tb_ref(&o, 1);
            int rk = s->key ? tb_ref(&o, 2) : -1;
            tb_u32(&o, 4, s->subgraph);
            w_patch_ref(w, slot + 4 * (size_t)i, tb_end(w, &o));
            PATCH(o, ri, write_tensor_maps(c, s->inputs, s->n_inputs));
            PATCH(o, ro, write_tensor_maps(c, s->outputs, s->n_outputs));
            if (rk >= 0) PATCH(o, rk, w_string(w, s->key));
        }
    }
    /* buffers last, so their data (deferred) directly follows */
    slot = w_table_vector(w, (uint32_t)m->n_buffers, &vp);
    PATCH(t, r_buf, vp);
    for (int32_t i = 0; i < m->n_buffers; i++)
        w_patch_ref(w, slot + 4 * (size_t)i, write_buffer(c, &m->buffers[i]));
    return !w->oom;
}

/* Output as chunks: the table bytes, then the data items. Small items (headers and
 * data under 64 KiB) are staged into one side buffer so that a model with thousands
 * of tiny buffers is written with few large iovecs; big weights stay zero-copy. */
typedef struct { const void **p; size_t *len; int n, cap; wbuf stage; size_t *stage_off; } chunks;

/* append a chunk; staged chunks hold an offset into stage until resolved */
static void ch_add(chunks *ch, const void *p, size_t len, bool staged, size_t off) {
    if (ch->n > 0 && staged && ch->stage_off[ch->n - 1] != SIZE_MAX &&
        ch->stage_off[ch->n - 1] + ch->len[ch->n - 1] == off) {
        ch->len[ch->n - 1] += len;   /* contiguous in the stage: extend */
        return;
    }
    ch->p[ch->n] = p; ch->len[ch->n] = len; ch->stage_off[ch->n] = staged ? off : SIZE_MAX;
    ch->n++;
}

static gc_status serialize(const gc_model *m, const gc_write_opts *o, writer *c, chunks *ch,
                           char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    memset(ch, 0, sizeof *ch);
    uint64_t total = 0;
    for (int32_t i = 0; i < m->n_buffers; i++) {
        if (!gc_add_u64(total, m->buffers[i].size + 64, &total)) {
            gc_errf(err, errlen, "buffer sizes overflow"); return GC_ERR_FORMAT;
        }
    }
    c->external = (o && o->force_external) || total >= (1ull << 31) - (64ull << 20);
    if (!write_model(c, m)) { gc_errf(err, errlen, "out of memory while writing"); return GC_ERR_NOMEM; }
    ch->cap = 1 + 2 * c->nd;
    ch->p = calloc((size_t)ch->cap, sizeof *ch->p);
    ch->len = calloc((size_t)ch->cap, sizeof *ch->len);
    ch->stage_off = calloc((size_t)ch->cap, sizeof *ch->stage_off);
    if (!ch->p || !ch->len || !ch->stage_off) { gc_errf(err, errlen, "out of memory"); return GC_ERR_NOMEM; }
    ch_add(ch, c->w.b, c->w.n, false, 0);
    uint64_t pos = c->w.n;
    for (int32_t i = 0; i < c->nd; i++) {
        wdata *d = &c->d[i];
        uint8_t h[80];
        size_t hl = 0;
        if (c->external) {
            while ((pos + hl) % 64) h[hl++] = 0;
            uint64_t at = pos + hl;
            memcpy(c->w.b + d->field, &at, 8);    /* Buffer.offset */
        } else {
            while ((pos + hl + 4) % 16) h[hl++] = 0;
            uint64_t vec = pos + hl;
            if (vec - d->field > UINT32_MAX) { gc_errf(err, errlen, "model too large for inline buffers"); return GC_ERR_UNSUPPORTED; }
            w_patch_ref(&c->w, d->field, (size_t)vec);
            uint32_t n = (uint32_t)d->size;
            memcpy(h + hl, &n, 4); hl += 4;
        }
        size_t off = w_put(&ch->stage, h, hl);
        ch_add(ch, NULL, hl, true, off);
        if (d->size < (64u << 10)) {
            off = w_put(&ch->stage, d->data, (size_t)d->size);
            ch_add(ch, NULL, (size_t)d->size, true, off);
        } else ch_add(ch, d->data, (size_t)d->size, false, 0);
        pos += hl + d->size;
    }
    if (ch->stage.oom) { gc_errf(err, errlen, "out of memory"); return GC_ERR_NOMEM; }
    for (int i = 0; i < ch->n; i++)
        if (ch->stage_off[i] != SIZE_MAX) ch->p[i] = ch->stage.b + ch->stage_off[i];
    return GC_OK;
}

static void release(writer *c, chunks *ch) {
    free(c->w.b); free(c->d);
    free(ch->p); free(ch->len); free(ch->stage_off); free(ch->stage.b);
}

gc_status gc_model_write_file(const gc_model *m, const char *path, const gc_write_opts *o,
                              char *err, size_t errlen) {
    writer c; chunks ch;
    gc_status s = serialize(m, o, &c, &ch, err, errlen);
    if (s == GC_OK) s = gc_write_atomic(path, ch.p, ch.len, ch.n, err, errlen);
    release(&c, &ch);
    return s;
}

gc_status gc_model_write_mem(const gc_model *m, const gc_write_opts *o, uint8_t **out,
                             size_t *out_size, char *err, size_t errlen) {
    writer c; chunks ch;
    *out = NULL; *out_size = 0;
    gc_status s = serialize(m, o, &c, &ch, err, errlen);
    if (s == GC_OK) {
        size_t total = 0;
        for (int i = 0; i < ch.n; i++) total += ch.len[i];
        uint8_t *b = malloc(total ? total : 1);
        if (!b) { gc_errf(err, errlen, "out of memory"); s = GC_ERR_NOMEM; }
        else {
            size_t at = 0;
            for (int i = 0; i < ch.n; i++) { if (ch.len[i]) memcpy(b + at, ch.p[i], ch.len[i]); at += ch.len[i]; }
            *out = b; *out_size = total;
        }
    }
    release(&c, &ch);
    return s;
}
