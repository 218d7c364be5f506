/* slice.c — ops that select, pad or rearrange elements by index: SLICE, STRIDED_SLICE,
 * GATHER, GATHER_ND, PAD, PADV2, MIRROR_PAD, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND,
 * DEPTH_TO_SPACE, SPACE_TO_DEPTH.
 *
 * Semantics (TFLite builtin ops; any element type unless noted, bytes are copied):
 *   SLICE(x, begin, size)            size -1 = to the end of the dim.
 *   STRIDED_SLICE(x, begin, end, strides)  options begin/end/ellipsis/new_axis/
 *       shrink_axis masks and `offset` (end = begin + end). TF's rules: a masked begin is
 *       0 (stride > 0) or dim-1 (stride < 0); a masked end is dim or -1; negative values
 *       count from the end; begin/end are clamped to [0, dim] (stride > 0) or
 *       [-1, dim-1] (stride < 0); a shrunk dim takes the single element at begin.
 *   GATHER(params, indices)          options axis, batch_dims; out shape
 *       params[:axis] + indices[batch_dims:] + params[axis+1:]; an index out of range
 *       is an error at eval (TFLite returns an error too).
 *   GATHER_ND(params, indices)       out shape indices[:-1] + params[indices[-1]:].
 *   EMBEDDING_LOOKUP(ids, table)     ids INT32 [N] (rank 1, as TFLite's kernel demands),
 *       table rank >= 2 seen as [R, C] rows (C = prod(table.shape[1:])); out shape
 *       [N] + table.shape[1:], out row i = table row ids[i]. An id outside [0, R) is an
 *       error at eval. Cases (TFLite's embedding_lookup.cc, plus two marked extensions):
 *         table type == out type: the row's bytes are copied (TFLite: FLOAT32, INT8,
 *           UINT8; extension: any fixed-size type, e.g. FLOAT16, INT32, INT64).
 *         hybrid, INT8 / UINT8 / INT4 table -> FLOAT32: out = q * s, the product in
 *           double; s the per-tensor scale or the id's row scale (per-axis quantization
 *           on dimension 0, one scale per row). Symmetric only: every zero point must
 *           be 0. UINT8 bytes are read as int8, as TFLite does (the legacy hybrid
 *           convention: a "uint8" hybrid table holds symmetric int8 values). INT4 is
 *           packed two per byte over the flat table, element e in byte e/2, the low
 *           nibble first, sign-extended.
 *         extension: FLOAT16 table -> FLOAT32 out, exact widening.
 *   PAD(x, paddings) / PADV2(x, paddings, value)  paddings [rank, 2]; pad value 0, or
 *       the output zero point for quantized PAD, or `value` (PADV2).
 *   MIRROR_PAD(x, paddings)          options.mode REFLECT (edge not repeated) or
 *       SYMMETRIC (edge repeated).
 *   SPACE_TO_BATCH_ND(x, block, pads) / BATCH_TO_SPACE_ND(x, block, crops)  NHWC-style
 *       (batch first, then the blocked spatial dims, then the rest); the output batch
 *       index is block_offset * batch + b, block offsets row-major over the block dims;
 *       padding value 0 (quantized: the output zero point).
 *   DEPTH_TO_SPACE / SPACE_TO_DEPTH  NHWC, options.block_size, TFLite's DCR order:
 *       out[b][h*bs+i][w*bs+j][c] = in[b][h][w][(i*bs+j)*C + c].
 * Index inputs must be known at prepare where they set the output shape.
 * fp16: pure copies; the pad value of PADV2 is a (rounded) constant. EMBEDDING_LOOKUP
 * copies a FLOAT32 table's (already half-rounded) rows; a hybrid lookup's float output
 * is rounded to half by the core, as a DEQUANTIZE followed by a GATHER would be.
 */
#include "interp/interp_impl.h"

#include <stdlib.h>

/* ---- SLICE / STRIDED_SLICE: out[i] = x[start + i*stride] per dim ------------------------- */

typedef struct {
    int rank;                        /* of the (dense) input */
    int32_t start[GC_MAX_RANK], stride[GC_MAX_RANK], size[GC_MAX_RANK];
} slice_data;

static gc_status slice_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    slice_data *sd = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    int r = sd->rank, es = gc_esize(x->dtype);
    int64_t st[GC_MAX_RANK] = { 0 };
    gc_strides(r, x->shape, st);
    uint64_t total = 1;
    for (int d = 0; d < r; d++) total *= (uint64_t)sd->size[d];
    if (total == 0) return GC_OK;
    int32_t idx[GC_MAX_RANK] = { 0 };
    int64_t base = 0;
    for (int d = 0; d < r; d++) base += (int64_t)sd->start[d] * st[d];
    int last = r - 1;
    if (r == 0) { memcpy(y->data, x->data, (size_t)es); return GC_OK; }
    int64_t ist = (int64_t)sd->stride[last] * st[last];
    int32_t inner = sd->size[last];
    uint8_t *out = y->data;
    for (uint64_t o = 0; o < total; o += (uint64_t)inner) {
        int64_t src = base;
        for (int d = 0; d < last; d++) src += (int64_t)idx[d] * sd->stride[d] * st[d];
        if (ist == 1) memcpy(out + o * (uint64_t)es, x->data + src * es, (size_t)inner * (size_t)es);
        else for (int32_t j = 0; j < inner; j++)
            memcpy(out + (o + (uint64_t)j) * (uint64_t)es, x->data + (src + j * ist) * es, (size_t)es);
        for (int d = last - 1; d >= 0; d--) { if (++idx[d] < sd->size[d]) break; idx[d] = 0; }
    }
    return GC_OK;
}

static gc_status slice_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 3, 3, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "begin"));
    GC_TRY(gc_need_known(ctx, n, 2, "size"));
    gc_rt *x = n->in[0];
    GC_ENSURE(ctx, (int)gc_numel(n->in[1]) == x->rank && (int)gc_numel(n->in[2]) == x->rank,
              "begin/size must have %d entries", (int)x->rank);
    slice_data *sd = gc_ctx_alloc(ctx, sizeof *sd);
    if (!sd) return GC_ERR_NOMEM;
    sd->rank = x->rank;
    for (int d = 0; d < x->rank; d++) {
        int64_t b = gc_get_int(n->in[1], (size_t)d), s = gc_get_int(n->in[2], (size_t)d);
        if (s == -1) s = x->shape[d] - b;
        GC_ENSURE(ctx, b >= 0 && s >= 0 && b + s <= x->shape[d], "dim %d: begin %lld size %lld out of [0, %d]",
                  d, (long long)b, (long long)s, (int)x->shape[d]);
        sd->start[d] = (int32_t)b; sd->size[d] = (int32_t)s; sd->stride[d] = 1;
    }
    n->data = sd;
    return gc_set_shape(ctx, n->out[0], x->rank, sd->size);
}

static gc_status strided_slice_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_StridedSliceOptions));
    GC_TRY(gc_check_arity(ctx, n, 3, 4, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "begin"));
    GC_TRY(gc_need_known(ctx, n, 2, "end"));
    if (n->n_in > 3 && n->in[3]) GC_TRY(gc_need_known(ctx, n, 3, "strides"));
    gc_rt *x = n->in[0];
    const gc_options *o = gc_opts(n);
    uint32_t bm = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_begin_mask);
    uint32_t em = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_end_mask);
    uint32_t elm = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_ellipsis_mask);
    uint32_t nam = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_new_axis_mask);
    uint32_t sam = (uint32_t)gc_opt_int(o, GC_O_StridedSliceOptions_shrink_axis_mask);
    bool offset = gc_opt_int(o, GC_O_StridedSliceOptions_offset) != 0;
    int ns = (int)gc_numel(n->in[1]);
    GC_ENSURE(ctx, ns <= 32 && (int)gc_numel(n->in[2]) == ns, "begin and end must have the same length");
    GC_ENSURE(ctx, n->n_in < 4 || !n->in[3] || (int)gc_numel(n->in[3]) == ns, "strides length differs");
    int n_new_after_ellipsis = 0, n_real = 0;
    bool seen_ell = false;
    for (int i = 0; i < ns; i++) {
        if (elm >> i & 1) { GC_ENSURE(ctx, !seen_ell, "more than one ellipsis"); seen_ell = true; continue; }
        if (nam >> i & 1) { if (seen_ell) n_new_after_ellipsis++; continue; }
        n_real++;
    }
    (void)n_new_after_ellipsis;
    GC_ENSURE(ctx, n_real <= x->rank, "slice spec names %d dims of a rank-%d input", n_real, (int)x->rank);
    slice_data *sd = gc_ctx_alloc(ctx, sizeof *sd);
    if (!sd) return GC_ERR_NOMEM;
    sd->rank = x->rank;
    int32_t oshape[GC_MAX_RANK]; int orank = 0;
    int d = 0;                                   /* dense input dim */
    for (int i = 0; i <= ns && d <= x->rank; i++) {
        if (i == ns) {                           /* dims past the spec: full range */
            for (; d < x->rank; d++) {
                sd->start[d] = 0; sd->stride[d] = 1; sd->size[d] = x->shape[d];
                GC_ENSURE(ctx, orank < GC_MAX_RANK, "output rank too high");
                oshape[orank++] = x->shape[d];
            }
            break;
        }
        if (elm >> i & 1) {
            int rest = 0;
            for (int j = i + 1; j < ns; j++) if (!(nam >> j & 1) && !(elm >> j & 1)) rest++;
            for (; d < x->rank - rest; d++) {
                sd->start[d] = 0; sd->stride[d] = 1; sd->size[d] = x->shape[d];
                GC_ENSURE(ctx, orank < GC_MAX_RANK, "output rank too high");
                oshape[orank++] = x->shape[d];
            }
            continue;
        }
        if (nam >> i & 1) {
            GC_ENSURE(ctx, orank < GC_MAX_RANK, "output rank too high");
            oshape[orank++] = 1;
            continue;
        }
        GC_ENSURE(ctx, d < x->rank, "slice spec longer than the input rank");
        int64_t dim = x->shape[d];
        int64_t b = gc_get_int(n->in[1], (size_t)i), e = gc_get_int(n->in[2], (size_t)i);
        int64_t s = (n->n_in > 3 && n->in[3]) ? gc_get_int(n->in[3], (size_t)i) : 1;
        GC_ENSURE(ctx, s != 0, "stride 0 in dim %d", d);
        if (offset) e = b + e;
        int64_t start, stop;
        if (sam >> i & 1) {
            start = b < 0 ? b + dim : b;
            GC_ENSURE(ctx, start >= 0 && start < dim, "shrunk dim %d: index %lld out of range", d, (long long)b);
            sd->start[d] = (int32_t)start; sd->stride[d] = 1; sd->size[d] = 1;
            d++;
            continue;
        }
        if (bm >> i & 1) start = s > 0 ? 0 : dim - 1;
        else {
            start = b < 0 ? b + dim : b;
            if (s > 0) start = start < 0 ? 0 : start > dim ? dim : start;
            else start = start < -1 ? -1 : start > dim - 1 ? dim - 1 : start;
        }
        if (em >> i & 1) stop = s > 0 ? dim : -1;
        else {
            stop = e < 0 ? e + dim : e;
            if (s > 0) stop = stop < 0 ? 0 : stop > dim ? dim : stop;
            else stop = stop < -1 ? -1 : stop > dim - 1 ? dim - 1 : stop;
        }
        int64_t size = s > 0 ? (stop - start + s - 1) / s : (start - stop + (-s) - 1) / (-s);
        if (size < 0) size = 0;
        sd->start[d] = (int32_t)(size > 0 ? start : 0); sd->stride[d] = (int32_t)s; sd->size[d] = (int32_t)size;
        GC_ENSURE(ctx, orank < GC_MAX_RANK, "output rank too high");
        oshape[orank++] = (int32_t)size;
        d++;
    }
    n->data = sd;
    return gc_set_shape(ctx, n->out[0], orank, oshape);
}

/* ---- GATHER ---------------------------------------------------------------------------------- */

typedef struct { int axis, batch_dims; uint64_t batch, outer, n_idx, inner; int32_t axis_size; } gather_data;

static gc_status gather_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_GatherOptions));
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    gc_rt *p = n->in[0], *ix = n->in[1];
    GC_ENSURE(ctx, ix->dtype == GC_T_INT32 || ix->dtype == GC_T_INT64 || ix->dtype == GC_T_INT16 || ix->dtype == GC_T_INT8,
              "indices must be an integer type, not %s", gc_type_name(ix->dtype));
    GC_ENSURE(ctx, p->dtype == n->out[0]->dtype, "params and output types differ");
    int axis = gc_axis((int)gc_opt_int(gc_opts(n), GC_O_GatherOptions_axis), p->rank);
    int bd = (int)gc_opt_int(gc_opts(n), GC_O_GatherOptions_batch_dims);
    if (bd < 0) bd += ix->rank;
    GC_ENSURE(ctx, axis >= 0 && axis < p->rank, "axis out of range");
    GC_ENSURE(ctx, bd >= 0 && bd <= axis && bd <= ix->rank, "batch_dims %d invalid", bd);
    for (int d = 0; d < bd; d++) GC_ENSURE(ctx, p->shape[d] == ix->shape[d], "batch dim %d differs", d);
    gather_data *g = gc_ctx_alloc(ctx, sizeof *g);
    if (!g) return GC_ERR_NOMEM;
    g->axis = axis; g->batch_dims = bd; g->axis_size = p->shape[axis];
    g->batch = 1; g->outer = 1; g->n_idx = 1; g->inner = 1;
    for (int d = 0; d < bd; d++) g->batch *= (uint64_t)p->shape[d];
    for (int d = bd; d < axis; d++) g->outer *= (uint64_t)p->shape[d];
    for (int d = bd; d < ix->rank; d++) g->n_idx *= (uint64_t)ix->shape[d];
    for (int d = axis + 1; d < p->rank; d++) g->inner *= (uint64_t)p->shape[d];
    int32_t shp[GC_MAX_RANK]; int r = 0;
    GC_ENSURE(ctx, p->rank - 1 + ix->rank - bd <= GC_MAX_RANK, "output rank too high");
    for (int d = 0; d < axis; d++) shp[r++] = p->shape[d];
    for (int d = bd; d < ix->rank; d++) shp[r++] = ix->shape[d];
    for (int d = axis + 1; d < p->rank; d++) shp[r++] = p->shape[d];
    n->data = g;
    return gc_set_shape(ctx, n->out[0], r, shp);
}

static gc_status gather_eval(gc_ctx *ctx, gc_node *n) {
    gather_data *g = n->data;
    gc_rt *p = n->in[0], *ix = n->in[1], *y = n->out[0];
    size_t es = (size_t)gc_esize(p->dtype), row = g->inner * es;
    uint8_t *dst = y->data;
    for (uint64_t b = 0; b < g->batch; b++)
        for (uint64_t o = 0; o < g->outer; o++)
            for (uint64_t i = 0; i < g->n_idx; i++) {
                int64_t k = gc_get_int(ix, (size_t)(b * g->n_idx + i));
                GC_ENSURE(ctx, k >= 0 && k < g->axis_size, "index %lld out of range [0, %d)", (long long)k, (int)g->axis_size);
                const uint8_t *src = p->data + (((b * g->outer + o) * (uint64_t)g->axis_size + (uint64_t)k) * row);
                memcpy(dst, src, row);
                dst += row;
            }
    return GC_OK;
}

/* ---- GATHER_ND --------------------------------------------------------------------------------- */

static gc_status gather_nd_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    gc_rt *p = n->in[0], *ix = n->in[1];
    GC_ENSURE(ctx, ix->rank >= 1, "indices must have rank >= 1");
    int k = ix->shape[ix->rank - 1];
    GC_ENSURE(ctx, k <= p->rank, "index depth %d exceeds params rank %d", k, (int)p->rank);
    int32_t shp[GC_MAX_RANK]; int r = 0;
    GC_ENSURE(ctx, ix->rank - 1 + p->rank - k <= GC_MAX_RANK, "output rank too high");
    for (int d = 0; d < ix->rank - 1; d++) shp[r++] = ix->shape[d];
    for (int d = k; d < p->rank; d++) shp[r++] = p->shape[d];
    return gc_set_shape(ctx, n->out[0], r, shp);
}

static gc_status gather_nd_eval(gc_ctx *ctx, gc_node *n) {
    gc_rt *p = n->in[0], *ix = n->in[1], *y = n->out[0];
    int k = ix->shape[ix->rank - 1];
    int64_t st[GC_MAX_RANK];
    gc_strides(p->rank, p->shape, st);
    uint64_t inner = 1;
    for (int d = k; d < p->rank; d++) inner *= (uint64_t)p->shape[d];
    size_t es = (size_t)gc_esize(p->dtype);
    uint64_t m = k ? gc_numel(ix) / (uint64_t)k : gc_numel(ix);
    for (uint64_t i = 0; i < m; i++) {
        int64_t off = 0;
        for (int d = 0; d < k; d++) {
            int64_t v = gc_get_int(ix, (size_t)(i * (uint64_t)k + (uint64_t)d));
            GC_ENSURE(ctx, v >= 0 && v < p->shape[d], "index %lld out of range in dim %d", (long long)v, d);
            off += v * st[d];
        }
        memcpy(y->data + i * inner * es, p->data + (uint64_t)off * es, inner * es);
    }
    return GC_OK;
}

/* ---- EMBEDDING_LOOKUP ------------------------------------------------------------------------- */

enum { EL_COPY, EL_HYBRID8, EL_HYBRID4, EL_F16 };

typedef struct {
    int mode;                       /* EL_* */
    uint64_t rows, cols, n;         /* table [rows, cols] (flattened), n ids */
    size_t row_bytes;               /* EL_COPY: bytes of one row */
    double scale;                   /* hybrid, per-tensor */
    const gc_f32 *row_scale;        /* hybrid, per-row: rows scales, else NULL */
} embed_data;

static gc_status embedding_lookup_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    gc_rt *ids = n->in[0], *tab = n->in[1], *y = n->out[0];
    GC_UNSUP(ctx, ids->dtype == GC_T_INT32, "ids must be INT32 (as TFLite's kernel requires), not %s",
             gc_type_name(ids->dtype));
    GC_ENSURE(ctx, ids->rank == 1, "ids must have rank 1 (as TFLite's kernel requires), not %d", (int)ids->rank);
    GC_ENSURE(ctx, tab->rank >= 2, "the table must have rank >= 2, not %d", (int)tab->rank);
    embed_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->rows = (uint64_t)tab->shape[0];
    d->n = (uint64_t)ids->shape[0];
    d->cols = 1;
    for (int i = 1; i < tab->rank; i++)
        GC_ENSURE(ctx, gc_mul_u64(d->cols, (uint64_t)tab->shape[i], &d->cols), "table row size overflows");
    const gc_quant *q = tab->q;
    int32_t nq = q ? q->n_scale : 0;
    bool hybrid_in = tab->dtype == GC_T_INT8 || tab->dtype == GC_T_UINT8 || tab->dtype == GC_T_INT4;
    if (hybrid_in && y->dtype == GC_T_FLOAT32) {
        d->mode = tab->dtype == GC_T_INT4 ? EL_HYBRID4 : EL_HYBRID8;
        GC_ENSURE(ctx, nq >= 1, "hybrid lookup: the %s table (tensor %d) has no quantization scale",
                  gc_type_name(tab->dtype), (int)tab->index);
        for (int32_t i = 0; i < q->n_zero_point; i++)
            GC_UNSUP(ctx, q->zero_point[i] == 0, "hybrid lookup: zero point %lld at %d; only symmetric "
                     "tables (zero point 0) are supported, as in TFLite", (long long)q->zero_point[i], (int)i);
        if (nq > 1) {
            GC_ENSURE(ctx, q->quantized_dimension == 0, "per-axis table quantization must be on dimension 0 "
                      "(one scale per row), not %d", (int)q->quantized_dimension);
            GC_ENSURE(ctx, (uint64_t)nq == d->rows, "per-row table quantization has %d scales for %llu rows",
                      (int)nq, (unsigned long long)d->rows);
            GC_ENSURE(ctx, q->n_zero_point <= 1 || q->n_zero_point == nq, "%d zero points for %d scales",
                      (int)q->n_zero_point, (int)nq);
            d->row_scale = q->scale;
        } else {
            d->scale = (double)q->scale[0];
        }
    } else if (tab->dtype == GC_T_FLOAT16 && y->dtype == GC_T_FLOAT32) {
        d->mode = EL_F16;
    } else {
        GC_UNSUP(ctx, tab->dtype == y->dtype, "table type %s with output type %s (supported: the same type, or an "
                 "INT8/UINT8/INT4 or FLOAT16 table with a FLOAT32 output)",
                 gc_type_name(tab->dtype), gc_type_name(y->dtype));
        GC_UNSUP(ctx, tab->dtype != GC_T_INT4 && tab->dtype != GC_T_INT2 && tab->dtype != GC_T_UINT4,
                 "copying rows of packed %s tables", gc_type_name(tab->dtype));
        GC_UNSUP(ctx, gc_type_bytes(tab->dtype, 1) != UINT64_MAX, "%s tables", gc_type_name(tab->dtype));
        GC_ENSURE(ctx, nq <= 1, "per-axis quantization of a copied table (TFLite allows it only for a "
                  "FLOAT32 output)");
        d->mode = EL_COPY;
        uint64_t rb = gc_type_bytes(tab->dtype, d->cols);
        GC_ENSURE(ctx, rb != UINT64_MAX && rb <= SIZE_MAX, "table row size overflows");
        d->row_bytes = (size_t)rb;
    }
    int32_t shp[GC_MAX_RANK];
    shp[0] = ids->shape[0];
    for (int i = 1; i < tab->rank; i++) shp[i] = tab->shape[i];
    n->data = d;
    return gc_set_shape(ctx, y, tab->rank, shp);
}

static gc_status embedding_lookup_eval(gc_ctx *ctx, gc_node *n) {
    const embed_data *d = n->data;
    gc_rt *ids = n->in[0], *tab = n->in[1], *y = n->out[0];
    const uint64_t C = d->cols;
    for (uint64_t i = 0; i < d->n; i++) {
        int32_t id;
        memcpy(&id, ids->data + i * 4, 4);
        GC_ENSURE(ctx, id >= 0 && (uint64_t)id < d->rows, "id %d at position %llu is out of range [0, %llu)",
                  (int)id, (unsigned long long)i, (unsigned long long)d->rows);
        uint64_t r = (uint64_t)id;
        float *yf = (float *)y->data + i * C;
        switch (d->mode) {
        case EL_COPY:
            memcpy(y->data + i * d->row_bytes, tab->data + r * d->row_bytes, d->row_bytes);
            break;
        case EL_HYBRID8: {
            const int8_t *src = (const int8_t *)tab->data + r * C;
            double s = d->row_scale ? (double)d->row_scale[r] : d->scale;
            for (uint64_t j = 0; j < C; j++) yf[j] = (float)(src[j] * s);
            break;
        }
        case EL_HYBRID4: {
            double s = d->row_scale ? (double)d->row_scale[r] : d->scale;
            for (uint64_t j = 0; j < C; j++) {
                uint64_t e = r * C + j;
                int nib = (e & 1) ? tab->data[e / 2] >> 4 : tab->data[e / 2] & 15;
                int v = nib >= 8 ? nib - 16 : nib;      /* two's-complement nibble */
                yf[j] = (float)(v * s);
            }
            break;
        }
        default: {                    /* EL_F16 */
            const uint8_t *src = tab->data + r * C * 2;
            for (uint64_t j = 0; j < C; j++) { uint16_t h; memcpy(&h, src + j * 2, 2); yf[j] = gc_f16_to_f32(h); }
            break;
        }
        }
    }
    return GC_OK;
}

/* ---- PAD / PADV2 / MIRROR_PAD ------------------------------------------------------------------- */

typedef struct { int32_t before[GC_MAX_RANK]; int mode; /* 0 const, 1 reflect, 2 symmetric */
                 uint8_t value[8];
                 /* eval: the innermost dims without padding fold into units of `unit`
                    bytes; dims 0..pr-1 remain, the last of them padded (pr = 0: a copy) */
                 int pr;
                 size_t unit;
                 uint8_t *fill;   /* mode 0: one output row (the last remaining dim) of the value */
} pad_data;

static gc_status pad_common(gc_ctx *ctx, gc_node *n, int mode) {
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_TRY(gc_need_known(ctx, n, 1, "paddings"));
    gc_rt *pd = n->in[1];
    GC_ENSURE(ctx, gc_numel(pd) == (uint64_t)(2 * x->rank), "paddings must be [%d, 2]", (int)x->rank);
    GC_ENSURE(ctx, x->dtype == y->dtype, "input and output types differ");
    pad_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->mode = mode;
    int32_t shp[GC_MAX_RANK];
    for (int i = 0; i < x->rank; i++) {
        int64_t a = gc_get_int(pd, (size_t)(2 * i)), b = gc_get_int(pd, (size_t)(2 * i + 1));
        GC_ENSURE(ctx, a >= 0 && b >= 0, "negative padding in dim %d", i);
        if (mode == 1) GC_ENSURE(ctx, a < x->shape[i] && b < x->shape[i], "REFLECT padding must be < dim in dim %d", i);
        if (mode == 2) GC_ENSURE(ctx, a <= x->shape[i] && b <= x->shape[i], "SYMMETRIC padding must be <= dim in dim %d", i);
        d->before[i] = (int32_t)a;
        shp[i] = (int32_t)(x->shape[i] + a + b);
    }
    int es = gc_esize(y->dtype);
    if (mode == 0) {
        if (n->code == GC_OP_PADV2 && n->n_in > 2 && n->in[2]) {
            GC_TRY(gc_need_known(ctx, n, 2, "constant value"));
            GC_ENSURE(ctx, n->in[2]->dtype == y->dtype && gc_numel(n->in[2]) == 1, "constant value must be a scalar of the output type");
            memcpy(d->value, n->in[2]->data, (size_t)es);
        } else if (gc_is_qint(y->dtype)) {
            gc_qset(y->dtype, d->value, 0, y->zp);
        }
    }
    d->unit = (size_t)es;
    d->pr = x->rank;
    while (d->pr > 0 && d->before[d->pr - 1] == 0 && shp[d->pr - 1] == x->shape[d->pr - 1])
        d->unit *= (size_t)x->shape[--d->pr];
    if (mode == 0 && d->pr > 0) {
        size_t row = (size_t)shp[d->pr - 1] * d->unit;
        d->fill = gc_ctx_alloc(ctx, row + 1);
        if (!d->fill) return GC_ERR_NOMEM;
        for (size_t i = 0; i < row; i += (size_t)es) memcpy(d->fill + i, d->value, (size_t)es);
    }
    n->data = d;
    return gc_set_shape(ctx, y, x->rank, shp);
}

/* a padded coordinate mapped into [0, nk) (mirror modes), or -1 (outside, constant) */
static int64_t pad_src(const pad_data *d, int64_t j, int64_t nk) {
    if (j >= 0 && j < nk) return j;
    if (d->mode == 0) return -1;
    if (j < 0) return d->mode == 1 ? -j : -j - 1;
    return d->mode == 1 ? 2 * nk - 2 - j : 2 * nk - 1 - j;
}

typedef struct { const pad_data *d; const gc_rt *x; gc_rt *y; int64_t ol; } pad_job;

/* items t = row * ol + c over the output rows (dims 0..pr-2) and positions c of the last
 * remaining dim, each `unit` bytes */
static void pad_items(void *arg, int64_t t0, int64_t t1, int wk) {
    (void)wk;
    const pad_job *j = arg;
    const pad_data *d = j->d;
    const gc_rt *x = j->x;
    const int last = d->pr - 1;
    const size_t U = d->unit;
    const int64_t nl = x->shape[last], bl = d->before[last], ol = j->ol;
    int64_t xst[GC_MAX_RANK];                         /* input strides in units */
    int64_t st = 1;
    for (int k = last; k >= 0; k--) { xst[k] = st; st *= x->shape[k]; }
    for (int64_t t = t0; t < t1;) {
        const int64_t row = t / ol, c0 = t % ol, c1 = t1 - t < ol - c0 ? c0 + (t1 - t) : ol;
        /* the row's source, or none (constant padding) */
        int64_t base = 0, rest = row;
        bool outside = false;
        for (int k = last - 1; k >= 0; k--) {
            int64_t osz = j->y->shape[k], i = rest % osz;
            rest /= osz;
            int64_t src = pad_src(d, i - d->before[k], x->shape[k]);
            if (src < 0) { outside = true; break; }
            base += src * xst[k];
        }
        uint8_t *dst = j->y->data + (size_t)(row * ol + c0) * U;
        if (outside) memcpy(dst, d->fill + (size_t)c0 * U, (size_t)(c1 - c0) * U);
        else {
            const uint8_t *src = x->data + (size_t)base * U;
            int64_t c = c0;
            for (; c < c1 && c < bl; c++, dst += U) {               /* before */
                int64_t sj = pad_src(d, c - bl, nl);
                if (sj < 0) memcpy(dst, d->fill, U); else memcpy(dst, src + (size_t)sj * U, U);
            }
            int64_t m1 = bl + nl < c1 ? bl + nl : c1;
            if (c < m1) {                                            /* the input's own run */
                memcpy(dst, src + (size_t)(c - bl) * U, (size_t)(m1 - c) * U);
                dst += (size_t)(m1 - c) * U;
                c = m1;
            }
            for (; c < c1; c++, dst += U) {                          /* after */
                int64_t sj = pad_src(d, c - bl, nl);
                if (sj < 0) memcpy(dst, d->fill, U); else memcpy(dst, src + (size_t)sj * U, U);
            }
        }
        t += c1 - c0;
    }
}

static gc_status pad_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 3, 1));
    return pad_common(ctx, n, 0);
}
static gc_status mirror_pad_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    int mode = (int)gc_opt_int(gc_opts(n), GC_O_MirrorPadOptions_mode);
    return pad_common(ctx, n, mode == 0 ? 1 : 2);
}

/* For each output element: map each coordinate back (constant: outside -> value); in
 * rows of units (pad_items), split over the pool. */
static gc_status pad_eval(gc_ctx *ctx, gc_node *n) {
    pad_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    uint64_t total = gc_numel(y);
    if (!total) return GC_OK;
    if (d->pr == 0) { memcpy(y->data, x->data, y->nbytes); return GC_OK; }    /* nothing padded */
    pad_job j = { d, x, y, y->shape[d->pr - 1] };
    int64_t items = (int64_t)(y->nbytes / d->unit);
    gc_ctx_for(ctx, items, gc_ctx_chunk(ctx, items, (double)d->unit / 8.0), pad_items, &j);
    return GC_OK;
}

/* ---- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND ------------------------------------------------------ */

typedef struct { int m; int32_t block[4], pad[4]; } s2b_data;

static gc_status s2b_common(gc_ctx *ctx, gc_node *n, bool to_batch) {
    GC_TRY(gc_check_arity(ctx, n, 3, 3, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "block_shape"));
    GC_TRY(gc_need_known(ctx, n, 2, to_batch ? "paddings" : "crops"));
    gc_rt *x = n->in[0];
    int m = (int)gc_numel(n->in[1]);
    GC_ENSURE(ctx, m >= 1 && m <= 4 && x->rank >= m + 1, "block_shape of %d dims for a rank-%d input", m, (int)x->rank);
    GC_ENSURE(ctx, gc_numel(n->in[2]) == (uint64_t)(2 * m), "paddings/crops must be [%d, 2]", m);
    s2b_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->m = m;
    int32_t shp[GC_MAX_RANK];
    memcpy(shp, x->shape, sizeof shp);
    int64_t prod = 1;
    for (int i = 0; i < m; i++) {
        int64_t b = gc_get_int(n->in[1], (size_t)i);
        int64_t p0 = gc_get_int(n->in[2], (size_t)(2 * i)), p1 = gc_get_int(n->in[2], (size_t)(2 * i + 1));
        GC_ENSURE(ctx, b >= 1 && p0 >= 0 && p1 >= 0, "bad block %lld / padding (%lld, %lld)", (long long)b, (long long)p0, (long long)p1);
        d->block[i] = (int32_t)b; d->pad[i] = (int32_t)p0;
        prod *= b;
        if (to_batch) {
            int64_t padded = x->shape[1 + i] + p0 + p1;
            GC_ENSURE(ctx, padded % b == 0, "padded dim %d (%lld) not divisible by block %lld", 1 + i, (long long)padded, (long long)b);
            shp[1 + i] = (int32_t)(padded / b);
        } else {
            int64_t full = (int64_t)x->shape[1 + i] * b - p0 - p1;
            GC_ENSURE(ctx, full >= 0, "crops exceed dim %d", 1 + i);
            shp[1 + i] = (int32_t)full;
        }
    }
    if (to_batch) shp[0] = (int32_t)(x->shape[0] * prod);
    else {
        GC_ENSURE(ctx, x->shape[0] % prod == 0, "batch %d not divisible by block product %lld", (int)x->shape[0], (long long)prod);
        shp[0] = (int32_t)(x->shape[0] / prod);
    }
    n->data = d;
    return gc_set_shape(ctx, n->out[0], x->rank, shp);
}

static gc_status s2b_prepare(gc_ctx *ctx, gc_node *n) { return s2b_common(ctx, n, true); }
static gc_status b2s_prepare(gc_ctx *ctx, gc_node *n) { return s2b_common(ctx, n, false); }

/* Walk the batched tensor (output for s2b, input for b2s); map to the spatial one. */
static gc_status s2b_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    s2b_data *d = n->data;
    bool to_batch = n->code == GC_OP_SPACE_TO_BATCH_ND;
    gc_rt *sp = to_batch ? n->in[0] : n->out[0], *bt = to_batch ? n->out[0] : n->in[0];
    int r = sp->rank, m = d->m, es = gc_esize(sp->dtype);
    uint64_t rest = 1;
    for (int k = m + 1; k < r; k++) rest *= (uint64_t)sp->shape[k];
    int64_t sst[GC_MAX_RANK];
    gc_strides(r, sp->shape, sst);
    uint8_t zero[8] = { 0 };
    if (gc_is_qint(sp->dtype)) gc_qset(sp->dtype, zero, 0, n->out[0]->zp);
    int32_t B = sp->shape[0];
    uint64_t nb = (uint64_t)bt->shape[0], cells = 1;
    for (int k = 0; k < m; k++) cells *= (uint64_t)bt->shape[1 + k];
    const size_t row = rest * (size_t)es;
    for (uint64_t ob = 0; ob < nb; ob++) {
        int64_t off_idx = (int64_t)(ob / (uint64_t)B), b = (int64_t)(ob % (uint64_t)B);
        int32_t boff[4];
        for (int k = m - 1; k >= 0; k--) { boff[k] = (int32_t)(off_idx % d->block[k]); off_idx /= d->block[k]; }
        int32_t idx[4] = { 0 };
        for (uint64_t c = 0; c < cells; c++) {
            bool in = true; int64_t src = b * sst[0];
            for (int k = 0; k < m; k++) {
                int64_t s = (int64_t)idx[k] * d->block[k] + boff[k] - d->pad[k];
                if (s < 0 || s >= sp->shape[1 + k]) { in = false; break; }
                src += s * sst[1 + k];
            }
            uint8_t *bp = bt->data + (ob * cells + c) * row;
            if (to_batch) {
                if (in) memcpy(bp, sp->data + (uint64_t)src * (uint64_t)es, row);
                else for (uint64_t e = 0; e < rest; e++) memcpy(bp + e * (uint64_t)es, zero, (size_t)es);
            } else if (in) {
                memcpy(sp->data + (uint64_t)src * (uint64_t)es, bp, row);
            }
            for (int k = m - 1; k >= 0; k--) { if (++idx[k] < bt->shape[1 + k]) break; idx[k] = 0; }
        }
    }
    return GC_OK;
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ---------------------------------------------------------- */

static gc_status d2s_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0];
    bool d2s = n->code == GC_OP_DEPTH_TO_SPACE;
    int bs = (int)gc_opt_int(gc_opts(n), d2s ? GC_O_DepthToSpaceOptions_block_size : GC_O_SpaceToDepthOptions_block_size);
    GC_ENSURE(ctx, x->rank == 4 && bs >= 1, "needs a 4-D NHWC input and block_size >= 1");
    int32_t shp[4] = { x->shape[0], 0, 0, 0 };
    if (d2s) {
        GC_ENSURE(ctx, x->shape[3] % (bs * bs) == 0, "depth %d not divisible by %d", (int)x->shape[3], bs * bs);
        shp[1] = x->shape[1] * bs; shp[2] = x->shape[2] * bs; shp[3] = x->shape[3] / (bs * bs);
    } else {
        GC_ENSURE(ctx, x->shape[1] % bs == 0 && x->shape[2] % bs == 0, "H, W not divisible by %d", bs);
        shp[1] = x->shape[1] / bs; shp[2] = x->shape[2] / bs; shp[3] = x->shape[3] * bs * bs;
    }
    int *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    *d = bs; n->data = d;
    return gc_set_shape(ctx, n->out[0], 4, shp);
}

static gc_status d2s_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    int bs = *(int *)n->data;
    bool d2s = n->code == GC_OP_DEPTH_TO_SPACE;
    gc_rt *deep = d2s ? n->in[0] : n->out[0], *wide = d2s ? n->out[0] : n->in[0];
    size_t es = (size_t)gc_esize(deep->dtype);
    int32_t B = deep->shape[0], H = deep->shape[1], W = deep->shape[2], C = wide->shape[3];
    size_t row = (size_t)C * es;
    for (int32_t b = 0; b < B; b++)
        for (int32_t h = 0; h < H; h++)
            for (int32_t w = 0; w < W; w++)
                for (int i = 0; i < bs; i++)
                    for (int j = 0; j < bs; j++) {
                        uint8_t *dp = deep->data + ((((size_t)b * H + h) * W + w) * (size_t)deep->shape[3] + (size_t)(i * bs + j) * C) * es;
                        uint8_t *wp = wide->data + ((((size_t)b * wide->shape[1] + (size_t)h * bs + i) * wide->shape[2] + (size_t)w * bs + j) * C) * es;
                        if (d2s) memcpy(wp, dp, row); else memcpy(dp, wp, row);
                    }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_slice) = { "SLICE", slice_prepare, slice_eval, 0 };
const gc_kernel GC_K(gc_k_strided_slice) = { "STRIDED_SLICE", strided_slice_prepare, slice_eval, 0 };
const gc_kernel GC_K(gc_k_gather) = { "GATHER", gather_prepare, gather_eval, 0 };
const gc_kernel GC_K(gc_k_gather_nd) = { "GATHER_ND", gather_nd_prepare, gather_nd_eval, 0 };
const gc_kernel GC_K(gc_k_embedding_lookup) = { "EMBEDDING_LOOKUP", embedding_lookup_prepare, embedding_lookup_eval, 0 };
const gc_kernel GC_K(gc_k_pad) = { "PAD", pad_prepare, pad_eval, 0 };
const gc_kernel GC_K(gc_k_padv2) = { "PADV2", pad_prepare, pad_eval, 0 };
const gc_kernel GC_K(gc_k_mirror_pad) = { "MIRROR_PAD", mirror_pad_prepare, pad_eval, 0 };
const gc_kernel GC_K(gc_k_space_to_batch) = { "SPACE_TO_BATCH_ND", s2b_prepare, s2b_eval, 0 };
const gc_kernel GC_K(gc_k_batch_to_space) = { "BATCH_TO_SPACE_ND", b2s_prepare, s2b_eval, 0 };
const gc_kernel GC_K(gc_k_depth_to_space) = { "DEPTH_TO_SPACE", d2s_prepare, d2s_eval, 0 };
const gc_kernel GC_K(gc_k_space_to_depth) = { "SPACE_TO_DEPTH", d2s_prepare, d2s_eval, 0 };
