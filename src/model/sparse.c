/* sparse.c — densify a constant tensor stored with TFLite sparsity metadata.
 *
 * Format (schema SparsityParameters, TACO-style): a tensor of rank n with a k-dimensional
 * block (block_map[j] = the original dimension block j splits, 0 <= k <= n) is traversed
 * over n + k dimensions in traversal_order: the first n entries a permutation of the
 * original dimensions 0..n-1, the last k a permutation of the block dimensions n..n+k-1.
 * dim_metadata[p] describes traversal position p: DENSE (dense_size = its extent) or
 * SPARSE_CSR (array_segments, array_indices: Int32 / Uint16 / Uint8 vectors). The extent
 * of a position is: a block dimension j: its dense_size (the block size b_j); an original
 * dimension d split by block j: shape[d] / b_j; any other: shape[d].
 * Walking the positions in order with a parent position `prev` (0 at the top; a DENSE
 * level's children are prev * extent + i, a SPARSE level's are the entries
 * i in [segments[prev], segments[prev + 1]) with index indices[i]) visits the stored
 * values in buffer order; a value lands at original index outer_d * b_j + inner_d of
 * each dimension. Positions not visited are zero. This is TFLite's FormatConverter
 * (sparsity_format_converter.cc) read as the schema documents it.
 *
 * Every index is checked against its extent, every segment against its vector and the
 * previous one, the value count against the buffer, and the total work against the
 * dense size: a hostile file gets a message, never an out-of-bounds access or a loop
 * that outlasts the dense tensor. Elements are copied bytewise (any fixed-size type).
 */
#include "model/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SP_MAX_LEVELS 16

typedef struct {
    int L, n;                   /* levels (n + k), original rank */
    int64_t ext[SP_MAX_LEVELS]; /* extent of each traversal position */
    int od[SP_MAX_LEVELS];      /* original dimension of each position */
    bool inner[SP_MAX_LEVELS];  /* a block (inner) position */
    int64_t bsz[SP_MAX_LEVELS]; /* block size per original dimension (1 if not blocked) */
    int64_t stride[SP_MAX_LEVELS];
    const gc_dim_meta *dm;
    int64_t idx[SP_MAX_LEVELS];
    const uint8_t *vals; uint64_t nvals, vi;
    uint8_t *dst; uint64_t numel;
    int esize;
    uint64_t work, budget;
    char *err; size_t errlen;
} sp_ctx;

static bool sp_fail(sp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool sp_fail(sp_ctx *c, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    if (c->err && c->errlen) vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return false;
}

/* element i of a SparseIndexVector (1 Int32, 2 Uint16, 3 Uint8) */
static int64_t sp_get(uint8_t type, const void *v, uint64_t i) {
    const uint8_t *p = v;
    if (type == 1) { int32_t x; memcpy(&x, p + i * 4, 4); return x; }
    if (type == 2) { uint16_t x; memcpy(&x, p + i * 2, 2); return x; }
    return p[i];
}

static bool sp_walk(sp_ctx *c, int level, int64_t prev) {
    if (++c->work > c->budget)
        return sp_fail(c, "the sparsity metadata visits more positions than the dense tensor has (%llu)",
                       (unsigned long long)c->numel);
    if (level == c->L) {
        int64_t orig[SP_MAX_LEVELS] = { 0 }, in[SP_MAX_LEVELS] = { 0 };
        for (int p = 0; p < c->L; p++) {
            if (c->inner[p]) in[c->od[p]] = c->idx[p];
            else orig[c->od[p]] = c->idx[p];
        }
        uint64_t flat = 0;
        for (int d = 0; d < c->n; d++) flat += (uint64_t)(orig[d] * c->bsz[d] + in[d]) * (uint64_t)c->stride[d];
        if (c->vi >= c->nvals)
            return sp_fail(c, "the sparsity metadata needs more than the %llu values its buffer holds",
                           (unsigned long long)c->nvals);
        memcpy(c->dst + flat * (uint64_t)c->esize, c->vals + c->vi * (uint64_t)c->esize, (size_t)c->esize);
        c->vi++;
        return true;
    }
    const gc_dim_meta *m = &c->dm[level];
    const int64_t S = c->ext[level];
    if (m->format == 0) {
        for (int64_t i = 0; i < S; i++) {
            c->idx[level] = i;
            if (!sp_walk(c, level + 1, prev * S + i)) return false;
        }
        return true;
    }
    if ((uint64_t)prev + 1 >= m->n_segments)
        return sp_fail(c, "dimension %d: array_segments has %u entries, position %lld needs %lld", level,
                       m->n_segments, (long long)prev, (long long)prev + 2);
    int64_t a = sp_get(m->segments_type, m->segments, (uint64_t)prev);
    int64_t b = sp_get(m->segments_type, m->segments, (uint64_t)prev + 1);
    if (a < 0 || b < a || (uint64_t)b > m->n_indices)
        return sp_fail(c, "dimension %d: segment %lld is [%lld, %lld), outside the %u indices or decreasing",
                       level, (long long)prev, (long long)a, (long long)b, m->n_indices);
    for (int64_t i = a; i < b; i++) {
        int64_t v = sp_get(m->indices_type, m->indices, (uint64_t)i);
        if (v < 0 || v >= S)
            return sp_fail(c, "dimension %d: index %lld (entry %lld) is outside [0, %lld)", level,
                           (long long)v, (long long)i, (long long)S);
        c->idx[level] = v;
        if (!sp_walk(c, level + 1, i)) return false;
    }
    return true;
}

gc_status gc_sparse_densify(const gc_tensor *t, const uint8_t *vals, uint64_t nbytes, void *dst,
                            uint64_t dst_bytes, char *err, size_t errlen) {
    sp_ctx c;
    memset(&c, 0, sizeof c);
    c.err = err; c.errlen = errlen;
    const gc_sparsity *s = t->sparsity;
    if (!s) { sp_fail(&c, "the tensor has no sparsity parameters"); return GC_ERR_USAGE; }
    const int n = t->rank, k = s->n_block_map;
    c.esize = gc_type_size(t->type);
    if (c.esize <= 0 || t->type == GC_T_INT4 || t->type == GC_T_UINT4) {
        sp_fail(&c, "sparse tensors of type %s are not supported", gc_type_name(t->type));
        return GC_ERR_UNSUPPORTED;
    }
#define BAD(...) do { sp_fail(&c, __VA_ARGS__); return GC_ERR_FORMAT; } while (0)
    if (k < 0 || k > n) BAD("block_map has %d entries for a rank-%d tensor", k, n);
    if (n + k > SP_MAX_LEVELS) BAD("rank %d with %d block dimensions is out of range", n, k);
    c.L = n + k; c.n = n;
    if (s->n_traversal_order != c.L) BAD("traversal_order has %d entries, rank %d with %d block dimensions needs %d",
                                         s->n_traversal_order, n, k, c.L);
    if (s->n_dim_metadata != c.L) BAD("dim_metadata has %d entries, the traversal has %d", s->n_dim_metadata, c.L);
    bool seen[SP_MAX_LEVELS] = { false };
    for (int p = 0; p < c.L; p++) {
        int32_t v = s->traversal_order[p];
        bool ok = p < n ? (v >= 0 && v < n) : (v >= n && v < c.L);
        if (!ok || seen[v]) BAD("traversal_order is not the original dimensions then the block dimensions, each once "
                                "(entry %d is %d)", p, (int)v);
        seen[v] = true;
    }
    bool blocked[SP_MAX_LEVELS] = { false };
    for (int d = 0; d < n; d++) c.bsz[d] = 1;
    for (int j = 0; j < k; j++) {
        int32_t d = s->block_map[j];
        if (d < 0 || d >= n || blocked[d]) BAD("block_map entry %d names dimension %d (rank %d, each dimension once)", j, (int)d, n);
        blocked[d] = true;
    }
    for (int p = 0; p < c.L; p++) {        /* block sizes first: outer extents need them */
        int32_t v = s->traversal_order[p];
        if (v < n) continue;
        int d = s->block_map[v - n];
        const gc_dim_meta *m = &s->dim_metadata[p];
        if (m->format != 0) BAD("dimension %d: a block dimension must be DENSE", p);
        if (m->dense_size <= 0 || t->shape[d] % m->dense_size != 0)
            BAD("dimension %d: block size %d does not divide dimension %d of size %d", p, (int)m->dense_size, d,
                (int)t->shape[d]);
        c.bsz[d] = m->dense_size;
    }
    for (int p = 0; p < c.L; p++) {
        int32_t v = s->traversal_order[p];
        const gc_dim_meta *m = &s->dim_metadata[p];
        c.inner[p] = v >= n;
        c.od[p] = v < n ? v : s->block_map[v - n];
        c.ext[p] = v < n ? t->shape[v] / c.bsz[v] : c.bsz[c.od[p]];
        if (m->format == 0) {
            if (m->dense_size != c.ext[p]) BAD("dimension %d is DENSE with dense_size %d, its extent is %lld", p,
                                               (int)m->dense_size, (long long)c.ext[p]);
        } else if (m->format == 1) {
            if (m->segments_type < 1 || m->segments_type > 3 || m->indices_type < 1 || m->indices_type > 3)
                BAD("dimension %d is SPARSE_CSR without array_segments and array_indices", p);
        } else {
            BAD("dimension %d has unknown format %d", p, (int)m->format);
        }
    }
#undef BAD
    uint64_t numel = gc_tensor_numel(t);
    if (numel == UINT64_MAX || gc_type_bytes(t->type, numel) != dst_bytes) {
        sp_fail(&c, "the dense buffer has %llu bytes for %llu elements", (unsigned long long)dst_bytes,
                (unsigned long long)numel);
        return GC_ERR_USAGE;
    }
    int64_t st = 1;
    for (int d = n - 1; d >= 0; d--) { c.stride[d] = st; st *= t->shape[d]; }
    c.dm = s->dim_metadata;
    c.vals = vals; c.nvals = nbytes / (uint64_t)c.esize;
    c.dst = dst; c.numel = numel;
    c.budget = (uint64_t)(c.L + 1) * (numel + 1) + 64;
    memset(dst, 0, (size_t)dst_bytes);
    if (!sp_walk(&c, 0, 0)) return GC_ERR_FORMAT;
    return GC_OK;
}
