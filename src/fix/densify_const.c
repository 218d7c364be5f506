/* densify_const.c — pass densify_const [fix.densify]
 *
 * A constant stored sparse (schema SparsityParameters: a pruned weight the converter
 * encoded with TFLite's FormatConverter) reaches the graph as DENSIFY(sparse const) ->
 * dense weight; ML Drift has no DENSIFY. The dense values are known ahead of time:
 *
 * Rewrite:   DENSIFY(sparse const) -> its output becomes a constant holding the dense
 *            values (the DENSIFY is removed; a DEQUANTIZE of fp16 values after it is
 *            then a constant cone for const_fold).
 * Not here:  a FULLY_CONNECTED reading sparse weights directly (LiteRT's sparse kernel,
 *            version 8): a dense FULLY_CONNECTED sums in another order (LiteRT differs
 *            by ~1e-6), so it would not be bit-exact.
 *
 * The decoding is TFLite's FormatConverter::SparseToDense (sparsity_format_converter.cc)
 * as the runtime runs it: the traversal levels 0..n+k-1 (n original dimensions, k block
 * dimensions) are walked in order; a DENSE level of dense_size s has children
 * prev * s + i for i < s, a SPARSE_CSR level the entries i in
 * [segments[prev], segments[prev + 1]) with coordinate indices[i]. Each leaf takes the
 * next stored value; its original index is indices[p] on dimension traversal_order[p]
 * for p < n, then for each block level p >= n with b = traversal_order[p] - n:
 * idx[block_map[b]] = idx[block_map[b]] * block_size[b] + indices[p], where block_size[b]
 * is the dense_size of metadata entry traversal_order[n + b] (the runtime's indexing).
 * Positions never visited are zero.
 * Precondition (where the runtime would read or write out of bounds, or a file is
 *            inconsistent, the pass declines and says why): every traversal entry and
 *            block_map entry in range, a dim_metadata entry per level, every segment
 *            inside its vector, non-decreasing, every coordinate inside the dense
 *            shape, exactly as many leaves as stored values, a fixed-size element type,
 *            the dense constant within opts.max_const_bytes, bounded work.
 * Exactness: bit-exact (the stored values are copied bytewise).
 */
#include "fix_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_DENSIFY, -1 };

#define MAX_LEVELS 16

typedef struct {
    const gc_tensor *t;
    int n, L;                      /* original rank, levels */
    int32_t trav[MAX_LEVELS];
    int64_t bsize[MAX_LEVELS];     /* block size per block dimension */
    int32_t bmap[MAX_LEVELS];
    int64_t idx[MAX_LEVELS];       /* coordinate per level */
    const uint8_t *vals;
    uint64_t nvals, vi;
    uint8_t *dst;
    uint64_t numel;
    size_t es;
    uint64_t work, budget;
    char why[200];
} dctx;

static int64_t vec_get(uint8_t type, const void *v, uint64_t i) {
    const uint8_t *p = v;
    if (type == 1) { int32_t x; memcpy(&x, p + i * 4, 4); return x; }
    if (type == 2) { uint16_t x; memcpy(&x, p + i * 2, 2); return x; }
    return p[i];
}

static bool dfail(dctx *d, const char *msg, int level) {
    if (!d->why[0]) snprintf(d->why, sizeof d->why, "%s (level %d)", msg, level);
    return false;
}

static bool leaf(dctx *d) {
    int64_t o[MAX_LEVELS];
    for (int i = 0; i < d->n; i++) {
        o[d->trav[i]] = d->idx[i];
        /* a blocked dimension's outer coordinate is at most shape / block: no overflow */
        if (d->idx[i] < 0 || d->idx[i] > d->t->shape[d->trav[i]])
            return dfail(d, "a coordinate falls outside the dense shape", i);
    }
    for (int i = d->n; i < d->L; i++) {
        int b = d->trav[i] - d->n;
        int od = d->bmap[b];
        o[od] = o[od] * d->bsize[b] + d->idx[i];
    }
    uint64_t flat = 0;
    for (int i = 0; i < d->n; i++) {
        if (o[i] < 0 || o[i] >= d->t->shape[i]) return dfail(d, "a coordinate falls outside the dense shape", i);
        flat = flat * (uint64_t)d->t->shape[i] + (uint64_t)o[i];
    }
    if (d->vi >= d->nvals) return dfail(d, "more positions than stored values", d->L);
    memcpy(d->dst + flat * d->es, d->vals + d->vi * d->es, d->es);
    d->vi++;
    return true;
}

static bool walk(dctx *d, int level, int64_t prev) {
    if (++d->work > d->budget) return dfail(d, "the metadata describes more positions than the dense tensor has", level);
    if (level == d->L) return leaf(d);
    const gc_dim_meta *m = &d->t->sparsity->dim_metadata[level];
    if (m->format == 0) {
        int64_t s = m->dense_size;
        if (s < 0) return dfail(d, "negative dense_size", level);
        if (s > 0 && prev > (INT64_MAX - s) / s) return dfail(d, "positions overflow", level);
        for (int64_t i = 0; i < s; i++) {
            d->idx[level] = i;
            if (!walk(d, level + 1, prev * s + i)) return false;
        }
        return true;
    }
    if (m->format != 1) return dfail(d, "unknown dimension format", level);
    /* the runtime skips a parent without a segment pair */
    if (prev < 0 || (uint64_t)prev + 1 >= m->n_segments) return true;
    int64_t a = vec_get(m->segments_type, m->segments, (uint64_t)prev);
    int64_t b = vec_get(m->segments_type, m->segments, (uint64_t)prev + 1);
    if (a < 0 || b < a) return dfail(d, "decreasing array_segments", level);
    if ((uint64_t)b > m->n_indices) return dfail(d, "array_segments point past array_indices", level);
    for (int64_t i = a; i < b; i++) {
        d->idx[level] = vec_get(m->indices_type, m->indices, (uint64_t)i);
        if (!walk(d, level + 1, i)) return false;
    }
    return true;
}

static bool vec_ok(uint8_t type, uint32_t n, const void *v) {
    return (type == 1 || type == 2 || type == 3) && (n == 0 || v);
}

/* Decode sparse constant t (its stored values `vals`, nbytes) into a malloc'd dense
 * buffer (*out, *out_bytes). 1 ok; 0 after fx_decline; -1 out of memory. */
static int densify(gc_fix_ctx *c, const gc_tensor *t, const uint8_t *vals, uint64_t nbytes, uint8_t **out,
                   uint64_t *out_bytes) {
    const gc_sparsity *sp = t->sparsity;
    int es = gc_type_size(t->type);
    if (es <= 0) return fx_decline(c, "sparse %s values are not a fixed-size type", gc_type_name(t->type));
    int n = t->rank, k = sp->n_block_map, L = sp->n_traversal_order;
    if (n < 1 || n > GC_FIX_MAXR) return fx_decline(c, "sparse tensor of rank %d", n);
    if (L != n + k || L > MAX_LEVELS || sp->n_dim_metadata < L)
        return fx_decline(c, "inconsistent sparsity: %d traversal entries, %d block dims, %d dim_metadata for rank %d",
                          L, k, sp->n_dim_metadata, n);
    dctx d;
    memset(&d, 0, sizeof d);
    d.t = t; d.n = n; d.L = L; d.es = (size_t)es;
    bool used[MAX_LEVELS] = {0};
    for (int i = 0; i < L; i++) {
        int32_t v = sp->traversal_order[i];
        if (v < 0 || v >= L || (i < n && v >= n) || (i >= n && v < n) || used[v])
            return fx_decline(c, "traversal_order[%d] = %d is out of range or repeated", i, v);
        used[v] = true;
        d.trav[i] = v;
    }
    bool blocked[MAX_LEVELS] = {0};
    for (int b = 0; b < k; b++) {
        if (sp->block_map[b] < 0 || sp->block_map[b] >= n || blocked[sp->block_map[b]])
            return fx_decline(c, "block_map[%d] = %d is out of range or repeated", b, sp->block_map[b]);
        blocked[sp->block_map[b]] = true;
        d.bmap[b] = sp->block_map[b];
        int32_t md = d.trav[n + b];           /* the runtime's index into dim_metadata */
        d.bsize[b] = sp->dim_metadata[md].dense_size;
        if (d.bsize[b] <= 0) return fx_decline(c, "block %d has size %lld", b, (long long)d.bsize[b]);
    }
    for (int i = 0; i < L; i++) {
        const gc_dim_meta *m = &sp->dim_metadata[i];
        if (m->format == 1 && (!vec_ok(m->segments_type, m->n_segments, m->segments) ||
                               !vec_ok(m->indices_type, m->n_indices, m->indices)))
            return fx_decline(c, "level %d: array_segments / array_indices missing or of unknown type", i);
    }
    int64_t numel = fx_numel(t);
    if (numel <= 0) return fx_decline(c, "empty or dynamic sparse tensor");
    uint64_t bytes = (uint64_t)numel * (uint64_t)es;
    if (bytes > c->opts->max_const_bytes)
        return fx_decline(c, "the dense constant would take %llu bytes, over the %llu-byte limit",
                          (unsigned long long)bytes, (unsigned long long)c->opts->max_const_bytes);
    if (nbytes % (uint64_t)es) return fx_decline(c, "the stored values are not a whole number of elements");
    d.vals = vals; d.nvals = nbytes / (uint64_t)es;
    d.numel = (uint64_t)numel;
    d.budget = 4 * (uint64_t)numel * (uint64_t)(L + 1) + 1024;
    d.dst = calloc(1, (size_t)bytes);
    if (!d.dst) return -1;
    if (!walk(&d, 0, 0)) {
        free(d.dst);
        return fx_decline(c, "the sparsity metadata does not decode: %s", d.why);
    }
    if (d.vi != d.nvals) {
        free(d.dst);
        return fx_decline(c, "the metadata visits %llu positions for %llu stored values", (unsigned long long)d.vi,
                          (unsigned long long)d.nvals);
    }
    *out = d.dst;
    *out_bytes = bytes;
    return 1;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    int32_t x = fx_in(c, op, 0), y = fx_out(c, op, 0);
    if (x < 0 || y < 0) return fx_decline(c, "DENSIFY without input or output");
    if (!fx_is_const(c, x)) return fx_decline(c, "the DENSIFY input is computed at run time");
    const gc_tensor *tx = fx_t(c, x), *ty = fx_t(c, y);
    if (!tx->sparsity) return fx_decline(c, "the DENSIFY input has no sparsity metadata");
    if (tx->type != ty->type || tx->rank != ty->rank)
        return fx_decline(c, "DENSIFY changes type or rank");
    for (int d = 0; d < tx->rank; d++)
        if (tx->shape[d] != ty->shape[d]) return fx_decline(c, "DENSIFY changes the shape");
    if (!fx_is_static(c, y)) return fx_decline(c, "dynamic shape");
    uint64_t nb = 0;
    const uint8_t *v = fx_data(c, x, &nb);
    if (!v) return fx_decline(c, "the sparse input has no data");
    uint8_t *dense = NULL;
    uint64_t bytes = 0;
    int rc = densify(c, tx, v, nb, &dense, &bytes);
    if (rc <= 0) return rc;
    char dims[128];
    fx_dims(dims, sizeof dims, ty->rank, ty->shape);
    int type = ty->type;
    uint64_t stored = nb;
    fx_remove_op(c, op);
    bool ok = fx_make_const(c, y, dense, bytes);
    free(dense);
    if (!ok) return -1;
    fx_note(c, "constant %s %s (%llu dense bytes from %llu stored)", gc_type_name(type), dims,
            (unsigned long long)bytes, (unsigned long long)stored);
    return 1;
}

const gc_fix_pass gc_fix_densify_const = {
    .id = "densify_const",
    .fix_id = "fix.densify",
    .summary = "DENSIFY of a sparse constant -> the dense constant (TFLite's SparseToDense, every index "
               "validated)",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
