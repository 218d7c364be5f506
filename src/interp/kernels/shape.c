/* shape.c — ops that only move or relabel elements: RESHAPE, SQUEEZE, EXPAND_DIMS,
 * SHAPE, RANK, TRANSPOSE, CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V, TILE,
 * BROADCAST_TO, REVERSE_V2, FILL, ZEROS_LIKE, RANGE.
 *
 * Semantics (TFLite builtin ops, all versions seen in the corpus and litert-torch output;
 * any element type: the kernels copy bytes):
 *   RESHAPE(x, shape?)           new shape from input 1 when present (and known at
 *                                prepare), else options.new_shape, else the output
 *                                tensor's static shape; one -1 is inferred.
 *   SQUEEZE(x)                   options.squeeze_dims (negative allowed); empty = all 1s.
 *   EXPAND_DIMS(x, axis)         axis in [-rank-1, rank].
 *   SHAPE(x) / RANK(x)           int32 (or int64, options.out_type) from the shape only;
 *                                always evaluated at prepare.
 *   TRANSPOSE(x, perm)           out.shape[i] = x.shape[perm[i]].
 *   CONCATENATION(x0..xn)        options.axis, fused activation (float: clamp);
 *                                quantized inputs with another scale / zero point than
 *                                the output are requantized as TFLite's reference
 *                                ConcatenationWithScaling: round(q*s + b) in float,
 *                                s = s_in/s_out, b = -zp_in*s, half away from zero.
 *   PACK / UNPACK                options.axis (values_count / num from the arity).
 *   SPLIT(axis, x) / SPLIT_V(x, size_splits, axis)  equal parts / given sizes (one -1).
 *   TILE(x, multiples), BROADCAST_TO(x, shape), REVERSE_V2(x, axes),
 *   FILL(dims, value), ZEROS_LIKE(x), RANGE(start, limit, delta).
 * Shape-giving inputs (perm, axes, dims, ...) must be known at prepare.
 * fp16: copies are exact; the core's output rounding (no-op on rounded data) applies;
 * CONCATENATION with a fused activation clamps, which keeps halves halves.
 */
#include "interp/interp_impl.h"
#include "interp/kernels/qelem8.h"

#include <stdlib.h>

/* ---- RESHAPE / SQUEEZE / EXPAND_DIMS: same bytes, new shape ---------------------------- */

typedef struct { uint8_t *dst; const uint8_t *src; } copy_job;
static void copy_range(void *arg, int64_t b0, int64_t b1, int wk) {
    (void)wk;
    const copy_job *j = arg;
    memcpy(j->dst + b0, j->src + b0, (size_t)(b1 - b0));
}

/* large copies in ranges of bytes over the pool */
static gc_status copy_eval(gc_ctx *ctx, gc_node *n) {
    if (n->out[0]->data == n->in[0]->data) return GC_OK;
    copy_job j = { n->out[0]->data, n->in[0]->data };
    int64_t nb = (int64_t)n->out[0]->nbytes, chunk = gc_ctx_chunk(ctx, nb, 1.0 / 32.0);
    if (chunk < nb) chunk = (chunk + 4095) / 4096 * 4096;
    gc_ctx_for(ctx, nb, chunk, copy_range, &j);
    return GC_OK;
}

static gc_status reshape_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 2, 1));
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, x->dtype == y->dtype, "input is %s, output %s", gc_type_name(x->dtype), gc_type_name(y->dtype));
    int32_t shp[GC_MAX_RANK]; int rank = -1;
    gc_rt *s = n->n_in > 1 ? n->in[1] : NULL;
    if (s && s->known && gc_numel(s) > 0 && s->rank == 1) {
        GC_ENSURE(ctx, gc_numel(s) <= GC_MAX_RANK, "new shape has %llu dims", (unsigned long long)gc_numel(s));
        rank = (int)gc_numel(s);
        for (int i = 0; i < rank; i++) shp[i] = (int32_t)gc_get_int(s, (size_t)i);
    } else if (s && s->known && s->rank == 1 && gc_numel(s) == 0) {
        rank = 0;                                             /* reshape to a scalar */
    } else {
        uint32_t nv = 0;
        const int32_t *ns = n->op->opt.type == GC_BO_ReshapeOptions
            ? gc_opt_vec(gc_opts(n), GC_O_ReshapeOptions_new_shape, &nv) : NULL;
        if (ns && !(s && !s->known)) {
            GC_ENSURE(ctx, nv <= GC_MAX_RANK, "new_shape has %u dims", nv);
            rank = (int)nv;
            for (int i = 0; i < rank; i++) shp[i] = ns[i];
        } else {
            /* the shape is computed at run time: accept the file's static shape */
            const gc_tensor *t = y->ir;
            bool dyn = false;
            for (int i = 0; i < t->n_shape_signature; i++) dyn |= t->shape_signature[i] < 0;
            GC_UNSUP(ctx, !dyn && t->rank <= GC_MAX_RANK && gc_tensor_numel(t) == gc_numel(x),
                     "the new shape (input 1) is computed at run time and the output has no "
                     "static shape; data-dependent shapes are not supported");
            rank = t->rank;
            for (int i = 0; i < rank; i++) shp[i] = t->shape[i];
        }
    }
    int infer = -1; uint64_t known = 1;
    for (int i = 0; i < rank; i++) {
        if (shp[i] == -1) { GC_ENSURE(ctx, infer < 0, "more than one -1 in the new shape"); infer = i; }
        else { GC_ENSURE(ctx, shp[i] >= 0, "negative dimension %d in the new shape", (int)shp[i]); known *= (uint64_t)shp[i]; }
    }
    uint64_t total = gc_numel(x);
    if (infer >= 0) {
        GC_ENSURE(ctx, known > 0 && total % known == 0, "cannot infer -1: %llu elements into %llu",
                  (unsigned long long)total, (unsigned long long)known);
        shp[infer] = (int32_t)(total / known);
        known = total;
    }
    GC_ENSURE(ctx, known == total, "reshape of %llu elements into a shape of %llu",
              (unsigned long long)total, (unsigned long long)known);
    return gc_set_shape(ctx, y, rank, shp);
}

static gc_status squeeze_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *x = n->in[0];
    uint32_t nd = 0;
    const int32_t *dims = gc_opt_vec(gc_opts(n), GC_O_SqueezeOptions_squeeze_dims, &nd);
    bool drop[GC_MAX_RANK] = { false };
    if (!dims || nd == 0) {
        for (int i = 0; i < x->rank; i++) drop[i] = x->shape[i] == 1;
    } else {
        for (uint32_t k = 0; k < nd; k++) {
            int a = gc_axis(dims[k], x->rank);
            GC_ENSURE(ctx, a >= 0 && a < x->rank, "squeeze dim %d out of range for rank %d", (int)dims[k], (int)x->rank);
            GC_ENSURE(ctx, x->shape[a] == 1, "squeeze dim %d has size %d", a, (int)x->shape[a]);
            drop[a] = true;
        }
    }
    int32_t shp[GC_MAX_RANK]; int r = 0;
    for (int i = 0; i < x->rank; i++) if (!drop[i]) shp[r++] = x->shape[i];
    return gc_set_shape(ctx, n->out[0], r, shp);
}

static gc_status expand_dims_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "axis"));
    gc_rt *x = n->in[0];
    GC_ENSURE(ctx, x->rank < GC_MAX_RANK, "rank %d too high", (int)x->rank);
    int a = (int)gc_get_int(n->in[1], 0);
    if (a < 0) a += x->rank + 1;
    GC_ENSURE(ctx, a >= 0 && a <= x->rank, "axis %d out of range", a);
    int32_t shp[GC_MAX_RANK]; int r = 0;
    for (int i = 0; i <= x->rank; i++) {
        if (i == a) shp[r++] = 1;
        if (i < x->rank) shp[r++] = x->shape[i];
    }
    return gc_set_shape(ctx, n->out[0], r, shp);
}

/* ---- SHAPE / RANK -------------------------------------------------------------------------- */

static gc_status shape_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    gc_rt *y = n->out[0];
    GC_ENSURE(ctx, y->dtype == GC_T_INT32 || y->dtype == GC_T_INT64, "output must be INT32 or INT64");
    int32_t d = n->in[0]->rank;
    return gc_set_shape(ctx, y, 1, &d);
}
static gc_status shape_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    gc_rt *x = n->in[0], *y = n->out[0];
    for (int i = 0; i < x->rank; i++) {
        if (y->dtype == GC_T_INT64) ((int64_t *)y->data)[i] = x->shape[i];
        else ((int32_t *)y->data)[i] = x->shape[i];
    }
    return GC_OK;
}
static gc_status rank_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    GC_ENSURE(ctx, n->out[0]->dtype == GC_T_INT32, "output must be INT32");
    return gc_set_shape(ctx, n->out[0], 0, NULL);
}
static gc_status rank_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    ((int32_t *)n->out[0]->data)[0] = n->in[0]->rank;
    return GC_OK;
}

/* ---- TRANSPOSE -------------------------------------------------------------------------------- */

typedef struct {
    int rank; int perm[GC_MAX_RANK];
    /* eval's form: size-1 dims dropped, output dims that are consecutive input dims in
       order merged; r dims of size os[], input stride st[] (elements) each */
    int r;
    int64_t os[GC_MAX_RANK], st[GC_MAX_RANK];
    bool t2d; int64_t batch, A, B;   /* ctx->fast, 1-byte: [batch][A][B] -> [batch][B][A] (qelem8.h) */
} transpose_data;

static gc_status transpose_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "perm"));
    gc_rt *x = n->in[0];
    GC_ENSURE(ctx, (int)gc_numel(n->in[1]) == x->rank, "perm has %llu entries for rank %d",
              (unsigned long long)gc_numel(n->in[1]), (int)x->rank);
    transpose_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->rank = x->rank;
    bool seen[GC_MAX_RANK] = { false };
    int32_t shp[GC_MAX_RANK];
    for (int i = 0; i < x->rank; i++) {
        int p = gc_axis((int)gc_get_int(n->in[1], (size_t)i), x->rank);
        GC_ENSURE(ctx, p >= 0 && p < x->rank && !seen[p], "perm is not a permutation");
        seen[p] = true; d->perm[i] = p; shp[i] = x->shape[p];
    }
    int64_t xs[GC_MAX_RANK];
    gc_strides(x->rank, x->shape, xs);
    for (int i = 0; i < x->rank; i++) {
        int p = d->perm[i];
        if (x->shape[p] == 1) continue;
        if (d->r > 0 && d->st[d->r - 1] == xs[p] * x->shape[p]) {   /* the input dim right above it */
            d->os[d->r - 1] *= x->shape[p]; d->st[d->r - 1] = xs[p];
        } else {
            d->os[d->r] = x->shape[p]; d->st[d->r] = xs[p]; d->r++;
        }
    }
    if (ctx->fast && gc_esize(x->dtype) == 1 && x->rank >= 2) {
        /* perm = (0..k-1, j..r-1, k..j-1): a batch of [A][B] matrices transposed (qelem8.h) */
        int k = 0;
        while (k < x->rank && d->perm[k] == k) k++;
        int j = k < x->rank ? d->perm[k] : 0;
        bool ok = k < x->rank && j > k;
        for (int i = k; ok && i < x->rank; i++) ok = d->perm[i] == (i - k < x->rank - j ? j + (i - k) : k + (i - k) - (x->rank - j));
        if (ok) {
            d->t2d = true; d->batch = 1; d->A = 1; d->B = 1;
            for (int i = 0; i < x->rank; i++) *(i < k ? &d->batch : i < j ? &d->A : &d->B) *= x->shape[i];
        }
    }
    n->data = d;
    return gc_set_shape(ctx, n->out[0], x->rank, shp);
}

/* Output in row-major order; for each output index read x at the permuted index. On the
 * merged form: when the last output dim is the input's innermost one, rows are copied
 * whole; otherwise each 2-D plane (the output dim p that is the input's innermost, the
 * last output dim) is copied in tiles of TP x TP elements (4-byte elements: 4 x 4 blocks
 * transposed in vector registers), both sides reading or writing runs. Items (outer
 * position, block of bp along p, block of bj along the last dim; bp * bj ~ 4096
 * elements) are split over the pool. */
enum { TP = 16 };

typedef struct { const transpose_data *d; const uint8_t *x; uint8_t *y; int es, p;
                 int64_t ost[GC_MAX_RANK], bp, bj, nbp, nbj; } tr_job;

#define TR_TILE(T)                                                                           \
    do {                                                                                     \
        const T *xs_ = (const T *)xb; T *ys_ = (T *)yb;                                      \
        for (int64_t j0 = ja; j0 < jb; j0 += TP) {                                           \
            const int64_t j1 = jb - j0 < TP ? jb : j0 + TP;                                  \
            for (int64_t i = ia; i < ib; i++)                                                \
                for (int64_t jj = j0; jj < j1; jj++) ys_[i * ostp + jj] = xs_[i + jj * stj];  \
        }                                                                                    \
    } while (0)

#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector) && !defined(GC_FP64_BUILD)
#define TR_V4 1
typedef float tr_v4 __attribute__((vector_size(16)));
/* the [ia, ib) x [ja, jb) tile of 4-byte elements: 4 x 4 blocks, the edges one by one */
static void tr_tile4(const uint32_t *xs, uint32_t *ys, int64_t ia, int64_t ib, int64_t ja, int64_t jb,
                     int64_t stj, int64_t ostp) {
    int64_t i4 = ia + (ib - ia) / 4 * 4, j4 = ja + (jb - ja) / 4 * 4;
    if (jb - ja == 3 && ostp == 3) {
        /* three planes interleaved into rows of 3 (NCHW -> NHWC of an RGB image): 4 pixels
         * a step, ys[3 i + k] = xs[i + (ja + k) stj] for k < 3, as 3 vectors of 4 */
        const uint32_t *x0 = xs + ja * stj, *x1 = x0 + stj, *x2 = x1 + stj;
        for (int64_t i = ia; i < i4; i += 4) {
            tr_v4 r0, r1, r2;
            memcpy(&r0, x0 + i, 16); memcpy(&r1, x1 + i, 16); memcpy(&r2, x2 + i, 16);
            tr_v4 a = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);          /* r0_0 r1_0 r0_1 r1_1 */
            tr_v4 b = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);          /* r0_2 r1_2 r0_3 r1_3 */
            tr_v4 o0 = __builtin_shufflevector(a, r2, 0, 1, 4, 2);          /* r0_0 r1_0 r2_0 r0_1 */
            tr_v4 c = __builtin_shufflevector(a, r2, 3, 5, 3, 5);           /* r1_1 r2_1 . . */
            tr_v4 o1 = __builtin_shufflevector(c, b, 0, 1, 4, 5);           /* r1_1 r2_1 r0_2 r1_2 */
            tr_v4 o2 = __builtin_shufflevector(b, r2, 6, 2, 3, 7);          /* r2_2 r0_3 r1_3 r2_3 */
            memcpy(ys + i * 3 + ja, &o0, 16); memcpy(ys + i * 3 + ja + 4, &o1, 16); memcpy(ys + i * 3 + ja + 8, &o2, 16);
        }
        for (int64_t i = i4; i < ib; i++)
            for (int64_t j = ja; j < jb; j++) ys[i * ostp + j] = xs[i + j * stj];
        return;
    }
    for (int64_t j = ja; j < j4; j += 4)
        for (int64_t i = ia; i < i4; i += 4) {
            tr_v4 r0, r1, r2, r3;               /* rows j..j+3 of the input plane, i..i+3 */
            memcpy(&r0, xs + i + (j + 0) * stj, 16); memcpy(&r1, xs + i + (j + 1) * stj, 16);
            memcpy(&r2, xs + i + (j + 2) * stj, 16); memcpy(&r3, xs + i + (j + 3) * stj, 16);
            tr_v4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
            tr_v4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
            tr_v4 o0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5), o1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
            tr_v4 o2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5), o3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
            memcpy(ys + (i + 0) * ostp + j, &o0, 16); memcpy(ys + (i + 1) * ostp + j, &o1, 16);
            memcpy(ys + (i + 2) * ostp + j, &o2, 16); memcpy(ys + (i + 3) * ostp + j, &o3, 16);
        }
    for (int64_t i = ia; i < ib; i++)                    /* the edges */
        for (int64_t j = i < i4 ? j4 : ja; j < jb; j++) ys[i * ostp + j] = xs[i + j * stj];
}
#endif
#endif

/* out_rows(t0, t1): the output rows [t0, t1) (row t: output index t over the dims before
 * the last; the last dim contiguous in the input too), each a copy of os[last] elements.
 * The start's input offset from divisions, then an odometer over the dims (short rows,
 * as mobilevit's [1024, 2, 16, 2] -> [1024, 16, 2, 2], spent more on the divisions per
 * row and a memcpy call than on the 8 bytes) */
static void tr_rows(const tr_job *j, int64_t t0, int64_t t1) {
    const transpose_data *d = j->d;
    const int last = d->r - 1;
    const int64_t es = j->es;
    const size_t rb = (size_t)(d->os[last] * es);
    int64_t idx[GC_MAX_RANK], xo = 0, rest = t0;
    for (int k = last - 1; k >= 0; k--) { idx[k] = rest % d->os[k]; xo += idx[k] * d->st[k]; rest /= d->os[k]; }
    uint8_t *y = j->y + (size_t)t0 * rb;
    for (int64_t t = t0; t < t1; t++, y += rb) {
        const uint8_t *x = j->x + (size_t)(xo * es);
        switch (rb) {                                  /* constant sizes: inline moves */
        case 4: memcpy(y, x, 4); break;
        case 8: memcpy(y, x, 8); break;
        case 16: memcpy(y, x, 16); break;
        case 32: memcpy(y, x, 32); break;
        default: memcpy(y, x, rb);
        }
        for (int k = last - 1; k >= 0; k--) {          /* next row */
            xo += d->st[k];
            if (++idx[k] < d->os[k]) break;
            xo -= idx[k] * d->st[k];
            idx[k] = 0;
        }
    }
}

static void tr_items(void *arg, int64_t t0, int64_t t1, int wk) {
    (void)wk;
    const tr_job *j = arg;
    const transpose_data *d = j->d;
    const int r = d->r, last = r - 1, p = j->p;
    const int64_t es = j->es;
    if (p < 0) { tr_rows(j, t0, t1); return; }                       /* rows: copy whole */
    for (int64_t t = t0; t < t1; t++) {
        int64_t outer = t / (j->nbp * j->nbj), pk = t / j->nbj % j->nbp, jk = t % j->nbj;
        int64_t xo = 0, yo = 0;
        for (int k = last - 1; k >= 0; k--) {
            if (k == p) continue;
            int64_t i = outer % d->os[k];
            outer /= d->os[k];
            xo += i * d->st[k]; yo += i * j->ost[k];
        }
        const int64_t ia = pk * j->bp, ib = d->os[p] - ia < j->bp ? d->os[p] : ia + j->bp;
        const int64_t nj = d->os[last], stj = d->st[last], ostp = j->ost[p];
        const int64_t ja = jk * j->bj, jb = nj - ja < j->bj ? nj : ja + j->bj;
        const uint8_t *xb = j->x + (size_t)(xo * es);
        uint8_t *yb = j->y + (size_t)(yo * es);
        switch (es) {
        case 1: TR_TILE(uint8_t); break;
        case 2: TR_TILE(uint16_t); break;
#ifdef TR_V4
        case 4: tr_tile4((const uint32_t *)xb, (uint32_t *)yb, ia, ib, ja, jb, stj, ostp); break;
#else
        case 4: TR_TILE(uint32_t); break;
#endif
        case 8: TR_TILE(uint64_t); break;
        default:
            for (int64_t i = ia; i < ib; i++)
                for (int64_t jj = ja; jj < jb; jj++)
                    memcpy(yb + (size_t)((i * ostp + jj) * es), xb + (size_t)((i + jj * stj) * es), (size_t)es);
        }
    }
}
#undef TR_TILE

typedef struct { const transpose_data *d; const uint8_t *x; uint8_t *y; } tr8_job;

static void tr8_items(void *arg, int64_t i0, int64_t i1, int wk) {
    (void)wk;
    const tr8_job *j = arg;
    gc_q8transpose(j->x, j->y, j->d->A, j->d->B, i0, i1);
}

static gc_status transpose_eval(gc_ctx *ctx, gc_node *n) {
    transpose_data *d = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    int es = gc_esize(x->dtype);
    uint64_t total = gc_numel(y);
    if (total == 0) return GC_OK;
    if (d->r <= 1) { memcpy(y->data, x->data, y->nbytes); return GC_OK; }   /* the same order */
    if (d->t2d) {                               /* bands of 16 rows over the pool (qelem8.h) */
        tr8_job j8 = { d, x->data, y->data };
        const int64_t items = d->batch * ((d->A + 15) / 16);
        gc_ctx_for(ctx, items, gc_ctx_chunk(ctx, items, 16.0 * (double)d->B / 8.0), tr8_items, &j8);
        return GC_OK;
    }
    tr_job j = { d, x->data, y->data, es, -1, { 0 }, 1, 1, 1, 1 };
    const int last = d->r - 1;
    int64_t s = 1;
    for (int k = last; k >= 0; k--) { j.ost[k] = s; s *= d->os[k]; }
    int64_t items;
    if (d->st[last] == 1) items = (int64_t)(total / (uint64_t)d->os[last]);
    else {
        for (int k = 0; k < last; k++) if (d->st[k] == 1) j.p = k;
        j.bj = d->os[last] < 256 ? d->os[last] : 256;
        j.bp = (4096 / j.bj + TP - 1) / TP * TP;
        j.nbp = (d->os[j.p] + j.bp - 1) / j.bp;
        j.nbj = (d->os[last] + j.bj - 1) / j.bj;
        items = (int64_t)(total / (uint64_t)(d->os[j.p] * d->os[last])) * j.nbp * j.nbj;
    }
    double per = (double)total / (double)(items ? items : 1);
    gc_ctx_for(ctx, items, gc_ctx_chunk(ctx, items, per * (double)es / 8.0), tr_items, &j);
    return GC_OK;
}

/* ---- CONCATENATION / PACK -------------------------------------------------------------------- */

typedef struct { int axis; int act; bool requant; float lo, hi; } concat_data;

static gc_status concat_common(gc_ctx *ctx, gc_node *n, int axis, bool pack) {
    GC_ENSURE(ctx, n->n_in >= 1 && n->n_out == 1, "expects >= 1 inputs and 1 output");
    gc_rt *x0 = n->in[0], *y = n->out[0];
    for (int i = 0; i < n->n_in; i++) GC_ENSURE(ctx, n->in[i], "input %d is absent", i);
    int rank = pack ? x0->rank + 1 : x0->rank;
    GC_ENSURE(ctx, rank <= GC_MAX_RANK, "rank %d too high", rank);
    int a = gc_axis(axis, rank);
    GC_ENSURE(ctx, a >= 0 && a < rank, "axis %d out of range for rank %d", axis, rank);
    int32_t shp[GC_MAX_RANK];
    int64_t sum = 0;
    for (int i = 0; i < n->n_in; i++) {
        gc_rt *x = n->in[i];
        GC_ENSURE(ctx, x->dtype == y->dtype, "input %d is %s, output %s", i, gc_type_name(x->dtype), gc_type_name(y->dtype));
        GC_ENSURE(ctx, x->rank == x0->rank, "input %d has rank %d, input 0 %d", i, (int)x->rank, (int)x0->rank);
        for (int d = 0; d < x->rank; d++) {
            if (!pack && d == a) continue;
            GC_ENSURE(ctx, x->shape[d] == x0->shape[d], "input %d dim %d is %d, input 0 has %d", i, d,
                      (int)x->shape[d], (int)x0->shape[d]);
        }
        sum += pack ? 1 : x->shape[a];
    }
    for (int d = 0, s = 0; d < rank; d++) {
        if (d == a) { shp[d] = (int32_t)sum; if (pack) continue; s++; continue; }
        shp[d] = x0->shape[s++];
    }
    concat_data *cd = gc_ctx_alloc(ctx, sizeof *cd);
    if (!cd) return GC_ERR_NOMEM;
    cd->axis = a;
    if (!pack) cd->act = (int)gc_opt_int(gc_opts(n), GC_O_ConcatenationOptions_fused_activation_function);
    gc_act_range_f(cd->act, &cd->lo, &cd->hi);
    if (gc_is_qint(y->dtype)) {
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i]->scale != y->scale || n->in[i]->zp != y->zp) cd->requant = true;
        GC_ENSURE(ctx, !cd->requant || y->scale > 0, "quantized output without a scale");
    }
    n->data = cd;
    return gc_set_shape(ctx, y, rank, shp);
}

static gc_status concat_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_ConcatenationOptions));
    return concat_common(ctx, n, (int)gc_opt_int(gc_opts(n), GC_O_ConcatenationOptions_axis), false);
}
static gc_status pack_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_PackOptions));
    return concat_common(ctx, n, (int)gc_opt_int(gc_opts(n), GC_O_PackOptions_axis), true);
}

/* Output = for each outer index, the inputs' slabs one after another along the axis;
 * split over the pool in ranges of output elements (a row = one outer index). */
typedef struct { const gc_node *n; const concat_data *cd; uint64_t outer, row; uint64_t slab[64]; } concat_job;

static void concat_range(void *arg, int64_t e0, int64_t e1, int wk) {
    (void)wk;
    const concat_job *j = arg;
    const gc_node *n = j->n;
    const concat_data *cd = j->cd;
    gc_rt *y = n->out[0];
    const int es = gc_esize(y->dtype);
    for (uint64_t e = (uint64_t)e0; e < (uint64_t)e1;) {
        uint64_t o = e / j->row, pos = e % j->row, start = 0;
        int i = 0;
        uint64_t slab = n->n_in <= 64 ? j->slab[0] : gc_numel(n->in[0]) / j->outer;
        while (pos >= start + slab) {                   /* the input this element comes from */
            start += slab; i++;
            slab = i < 64 ? j->slab[i] : gc_numel(n->in[i]) / j->outer;
        }
        gc_rt *x = n->in[i];
        uint64_t off = pos - start, len = slab - off;
        if (len > (uint64_t)e1 - e) len = (uint64_t)e1 - e;
        const uint8_t *src = x->data + (o * slab + off) * (uint64_t)es;
        uint8_t *dst = y->data + e * (uint64_t)es;
        if (cd->requant && (x->scale != y->scale || x->zp != y->zp)) {
            int32_t lo, hi; gc_qrange(y->dtype, &lo, &hi);
            float scale = x->scale * (1.0f / y->scale), bias = -(float)x->zp * scale;
            for (uint64_t k = 0; k < len; k++) {
                int32_t v = gc_qget(x->dtype, src, k);
                int64_t q = (int64_t)roundf((float)v * scale + bias) + y->zp;
                gc_qset(y->dtype, dst, k, gc_clamp_i32(q, lo, hi));
            }
        } else {
            memcpy(dst, src, len * (uint64_t)es);
        }
        if (y->dtype == GC_T_FLOAT32 && (cd->act == GC_ACT_RELU || cd->act == GC_ACT_RELU6 ||
                                         cd->act == GC_ACT_RELU_N1_TO_1)) {
            float *p = (float *)dst;
            for (uint64_t k = 0; k < len; k++) p[k] = gc_act_f(p[k], cd->lo, cd->hi);
        }
        e += len;
    }
}

static gc_status concat_eval(gc_ctx *ctx, gc_node *n) {
    concat_data *cd = n->data;
    gc_rt *y = n->out[0];
    uint64_t total = gc_numel(y);
    if (!total) return GC_OK;
    concat_job j = { n, cd, 1, 0, { 0 } };
    for (int d = 0; d < cd->axis; d++) j.outer *= (uint64_t)y->shape[d];
    j.row = total / j.outer;
    for (int i = 0; i < n->n_in && i < 64; i++) j.slab[i] = gc_numel(n->in[i]) / j.outer;
    int64_t chunk = gc_ctx_chunk(ctx, (int64_t)total, cd->requant ? 2.0 : 0.125);
    if (chunk < (int64_t)total) chunk = (chunk + 63) / 64 * 64;
    gc_ctx_for(ctx, (int64_t)total, chunk, concat_range, &j);
    return GC_OK;
}

/* ---- UNPACK / SPLIT / SPLIT_V ------------------------------------------------------------------ */

typedef struct { int axis, src; } axis_data;   /* src: the data input's slot */

/* Shared eval: outputs are consecutive pieces of x along the axis. */
static gc_status split_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    axis_data *ad = n->data;
    gc_rt *x = n->in[ad->src];
    int es = gc_esize(x->dtype);
    uint64_t outer = 1;
    for (int d = 0; d < ad->axis; d++) outer *= (uint64_t)x->shape[d];
    const uint8_t *src = x->data;
    uint64_t pos = 0;
    for (uint64_t o = 0; o < outer; o++)
        for (int j = 0; j < n->n_out; j++) {
            gc_rt *y = n->out[j];
            uint64_t slab = outer ? gc_numel(y) / outer : 0;
            memcpy(y->data + o * slab * (uint64_t)es, src + pos, slab * (uint64_t)es);
            pos += slab * (uint64_t)es;
        }
    return GC_OK;
}

static gc_status unpack_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_UnpackOptions));
    GC_ENSURE(ctx, n->n_in == 1 && n->in[0] && n->n_out >= 1, "expects 1 input and >= 1 outputs");
    gc_rt *x = n->in[0];
    int a = gc_axis((int)gc_opt_int(gc_opts(n), GC_O_UnpackOptions_axis), x->rank);
    GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis out of range");
    GC_ENSURE(ctx, x->shape[a] == n->n_out, "axis size %d, %d outputs", (int)x->shape[a], n->n_out);
    axis_data *ad = gc_ctx_alloc(ctx, sizeof *ad);
    if (!ad) return GC_ERR_NOMEM;
    ad->axis = a; n->data = ad;
    int32_t shp[GC_MAX_RANK]; int r = 0;
    for (int d = 0; d < x->rank; d++) if (d != a) shp[r++] = x->shape[d];
    for (int j = 0; j < n->n_out; j++) {
        GC_ENSURE(ctx, n->out[j]->dtype == x->dtype, "output %d type differs from the input", j);
        GC_TRY(gc_set_shape(ctx, n->out[j], r, shp));
    }
    return GC_OK;
}

static gc_status split_common(gc_ctx *ctx, gc_node *n, gc_rt *x, int axis, const int64_t *sizes) {
    int a = gc_axis(axis, x->rank);
    GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis %d out of range for rank %d", axis, (int)x->rank);
    axis_data *ad = gc_ctx_alloc(ctx, sizeof *ad);
    if (!ad) return GC_ERR_NOMEM;
    ad->axis = a; ad->src = n->code == GC_OP_SPLIT ? 1 : 0; n->data = ad;
    int64_t total = 0;
    for (int j = 0; j < n->n_out; j++) total += sizes[j];
    GC_ENSURE(ctx, total == x->shape[a], "split sizes add to %lld, axis has %d", (long long)total, (int)x->shape[a]);
    for (int j = 0; j < n->n_out; j++) {
        int32_t shp[GC_MAX_RANK];
        memcpy(shp, x->shape, sizeof shp);
        shp[a] = (int32_t)sizes[j];
        GC_ENSURE(ctx, n->out[j]->dtype == x->dtype, "output %d type differs from the input", j);
        GC_TRY(gc_set_shape(ctx, n->out[j], x->rank, shp));
    }
    return GC_OK;
}

static gc_status split_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, n->n_out));
    GC_ENSURE(ctx, n->n_out >= 1, "no outputs");
    GC_TRY(gc_need_known(ctx, n, 0, "axis"));
    gc_rt *x = n->in[1];
    int a = gc_axis((int)gc_get_int(n->in[0], 0), x->rank);
    GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis out of range");
    GC_ENSURE(ctx, x->shape[a] % n->n_out == 0, "axis size %d not divisible into %d", (int)x->shape[a], n->n_out);
    int64_t sizes[64];
    GC_ENSURE(ctx, n->n_out <= 64, "too many outputs");
    for (int j = 0; j < n->n_out; j++) sizes[j] = x->shape[a] / n->n_out;
    return split_common(ctx, n, x, a, sizes);
}

static gc_status split_v_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 3, 3, n->n_out));
    GC_TRY(gc_need_known(ctx, n, 1, "size_splits"));
    GC_TRY(gc_need_known(ctx, n, 2, "axis"));
    gc_rt *x = n->in[0];
    int a = gc_axis((int)gc_get_int(n->in[2], 0), x->rank);
    GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis out of range");
    GC_ENSURE(ctx, (int)gc_numel(n->in[1]) == n->n_out && n->n_out <= 64, "size_splits has %llu entries for %d outputs",
              (unsigned long long)gc_numel(n->in[1]), n->n_out);
    int64_t sizes[64], known = 0; int infer = -1;
    for (int j = 0; j < n->n_out; j++) {
        sizes[j] = gc_get_int(n->in[1], (size_t)j);
        if (sizes[j] == -1) { GC_ENSURE(ctx, infer < 0, "more than one -1"); infer = j; }
        else known += sizes[j];
    }
    if (infer >= 0) sizes[infer] = x->shape[a] - known;
    return split_common(ctx, n, x, a, sizes);
}

/* ---- TILE / BROADCAST_TO / REVERSE_V2 ------------------------------------------------------------ */

/* y[i] = x[i mod x.shape] per dim (tile: x.shape divides y.shape; broadcast: x dims 1),
 * by blocks: dim d of the output at offset yoff is x's xs[d] sub-blocks (dim d + 1 down)
 * written once, then that run of xs[d] blocks copied from y to itself until y.shape[d]
 * is filled (copies of doubling length); the last dim's sub-blocks are x's elements. */
typedef struct {
    int r, es;
    const int32_t *ys, *xs;
    int64_t xst[GC_MAX_RANK], yst[GC_MAX_RANK];     /* element strides */
    const uint8_t *x;
    uint8_t *y;
} tile_walk;

/* fill [y, y + total) with copies of its first `block` bytes */
static void tile_replicate(uint8_t *y, size_t block, size_t total) {
    for (size_t done = block; done < total;) {
        size_t c = done < total - done ? done : total - done;
        memcpy(y + done, y, c);
        done += c;
    }
}

static void tile_dim(const tile_walk *w, int d, int64_t xoff, int64_t yoff) {
    uint8_t *y = w->y + yoff * w->es;
    const size_t run = (size_t)w->xs[d] * (size_t)w->yst[d] * (size_t)w->es;
    if (d == w->r - 1) memcpy(y, w->x + xoff * w->es, run);
    else
        for (int32_t i = 0; i < w->xs[d]; i++) tile_dim(w, d + 1, xoff + i * w->xst[d], yoff + i * w->yst[d]);
    tile_replicate(y, run, (size_t)w->ys[d] * (size_t)w->yst[d] * (size_t)w->es);
}

static gc_status tile_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    gc_rt *x = n->in[0], *y = n->out[0];
    int r = y->rank;
    int32_t xs[GC_MAX_RANK];
    for (int d = 0; d < r; d++) { int k = d - (r - x->rank); xs[d] = k >= 0 ? x->shape[k] : 1; }
    if (gc_numel(y) == 0) return GC_OK;
    if (r == 0) { memcpy(y->data, x->data, (size_t)gc_esize(y->dtype)); return GC_OK; }
    tile_walk w = { r, gc_esize(y->dtype), y->shape, xs, { 0 }, { 0 }, x->data, y->data };
    gc_strides(r, xs, w.xst);
    gc_strides(r, y->shape, w.yst);
    tile_dim(&w, 0, 0, 0);
    return GC_OK;
}

static gc_status tile_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "multiples"));
    gc_rt *x = n->in[0];
    GC_ENSURE(ctx, (int)gc_numel(n->in[1]) == x->rank, "multiples has %llu entries for rank %d",
              (unsigned long long)gc_numel(n->in[1]), (int)x->rank);
    int32_t shp[GC_MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        int64_t m = gc_get_int(n->in[1], (size_t)d);
        GC_ENSURE(ctx, m >= 0, "negative multiple");
        shp[d] = (int32_t)(x->shape[d] * m);
    }
    return gc_set_shape(ctx, n->out[0], x->rank, shp);
}

static gc_status broadcast_to_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "shape"));
    gc_rt *x = n->in[0];
    int r = (int)gc_numel(n->in[1]);
    GC_ENSURE(ctx, r <= GC_MAX_RANK && r >= x->rank, "target rank %d vs input rank %d", r, (int)x->rank);
    int32_t shp[GC_MAX_RANK];
    for (int d = 0; d < r; d++) {
        shp[d] = (int32_t)gc_get_int(n->in[1], (size_t)d);
        int k = d - (r - x->rank);
        int32_t xd = k >= 0 ? x->shape[k] : 1;
        GC_ENSURE(ctx, xd == shp[d] || xd == 1, "cannot broadcast dim %d (%d) to %d", d, (int)xd, (int)shp[d]);
    }
    return gc_set_shape(ctx, n->out[0], r, shp);
}

typedef struct { bool rev[GC_MAX_RANK]; } reverse_data;

static gc_status reverse_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 1, "axis"));
    gc_rt *x = n->in[0];
    reverse_data *rd = gc_ctx_alloc(ctx, sizeof *rd);
    if (!rd) return GC_ERR_NOMEM;
    for (uint64_t i = 0; i < gc_numel(n->in[1]); i++) {
        int a = gc_axis((int)gc_get_int(n->in[1], (size_t)i), x->rank);
        GC_ENSURE(ctx, a >= 0 && a < x->rank, "axis out of range");
        rd->rev[a] = true;
    }
    n->data = rd;
    return gc_set_shape(ctx, n->out[0], x->rank, x->shape);
}

static gc_status reverse_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    reverse_data *rd = n->data;
    gc_rt *x = n->in[0], *y = n->out[0];
    int r = x->rank, es = gc_esize(x->dtype);
    int64_t st[GC_MAX_RANK];
    gc_strides(r, x->shape, st);
    int32_t idx[GC_MAX_RANK] = { 0 };
    for (uint64_t o = 0, total = gc_numel(y); o < total; o++) {
        int64_t src = 0;
        for (int d = 0; d < r; d++) src += (rd->rev[d] ? x->shape[d] - 1 - idx[d] : idx[d]) * st[d];
        memcpy(y->data + o * (uint64_t)es, x->data + src * es, (size_t)es);
        for (int d = r - 1; d >= 0; d--) { if (++idx[d] < y->shape[d]) break; idx[d] = 0; }
    }
    return GC_OK;
}

/* ---- FILL / ZEROS_LIKE / RANGE ------------------------------------------------------------------- */

static gc_status fill_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    GC_TRY(gc_need_known(ctx, n, 0, "dims"));
    GC_ENSURE(ctx, n->in[1]->dtype == n->out[0]->dtype && gc_numel(n->in[1]) == 1, "value must be a scalar of the output type");
    int r = (int)gc_numel(n->in[0]);
    GC_ENSURE(ctx, r <= GC_MAX_RANK, "rank %d too high", r);
    int32_t shp[GC_MAX_RANK];
    for (int d = 0; d < r; d++) shp[d] = (int32_t)gc_get_int(n->in[0], (size_t)d);
    return gc_set_shape(ctx, n->out[0], r, shp);
}
static gc_status fill_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    gc_rt *y = n->out[0];
    int es = gc_esize(y->dtype);
    for (uint64_t i = 0, m = gc_numel(y); i < m; i++) memcpy(y->data + i * (uint64_t)es, n->in[1]->data, (size_t)es);
    return GC_OK;
}
static gc_status zeros_like_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 1, 1, 1));
    return gc_set_shape(ctx, n->out[0], n->in[0]->rank, n->in[0]->shape);
}
static gc_status zeros_like_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    memset(n->out[0]->data, 0, n->out[0]->nbytes);
    return GC_OK;
}

static double scalar_d(const gc_rt *t) {
    if (t->dtype == GC_T_FLOAT32) return ((const float *)t->data)[0];
    return (double)gc_get_int(t, 0);
}
static gc_status range_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 3, 3, 1));
    for (int i = 0; i < 3; i++) GC_TRY(gc_need_known(ctx, n, i, "range bound"));
    double s = scalar_d(n->in[0]), l = scalar_d(n->in[1]), d = scalar_d(n->in[2]);
    GC_ENSURE(ctx, d != 0, "delta is 0");
    double cnt = n->out[0]->dtype == GC_T_FLOAT32 ? ceil(fabs((l - s) / d)) : ceil(fabs((l - s) / d));
    GC_ENSURE(ctx, cnt >= 0 && cnt < 1e9, "range of %g elements", cnt);
    int32_t c = (int32_t)cnt;
    return gc_set_shape(ctx, n->out[0], 1, &c);
}
static gc_status range_eval(gc_ctx *ctx, gc_node *n) {
    (void)ctx;
    gc_rt *y = n->out[0];
    for (uint64_t i = 0, m = gc_numel(y); i < m; i++) {
        if (y->dtype == GC_T_FLOAT32)
            ((float *)y->data)[i] = (float)(scalar_d(n->in[0]) + (double)i * scalar_d(n->in[2]));
        else if (y->dtype == GC_T_INT64)
            ((int64_t *)y->data)[i] = gc_get_int(n->in[0], 0) + (int64_t)i * gc_get_int(n->in[2], 0);
        else
            ((int32_t *)y->data)[i] = (int32_t)(gc_get_int(n->in[0], 0) + (int64_t)i * gc_get_int(n->in[2], 0));
    }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_reshape) = { "RESHAPE", reshape_prepare, copy_eval, 0 };
const gc_kernel GC_K(gc_k_squeeze) = { "SQUEEZE", squeeze_prepare, copy_eval, 0 };
const gc_kernel GC_K(gc_k_expand_dims) = { "EXPAND_DIMS", expand_dims_prepare, copy_eval, 0 };
const gc_kernel GC_K(gc_k_shape) = { "SHAPE", shape_prepare, shape_eval, GC_K_SHAPE_ONLY };
const gc_kernel GC_K(gc_k_rank) = { "RANK", rank_prepare, rank_eval, GC_K_SHAPE_ONLY };
const gc_kernel GC_K(gc_k_transpose) = { "TRANSPOSE", transpose_prepare, transpose_eval, 0 };
const gc_kernel GC_K(gc_k_concat) = { "CONCATENATION", concat_prepare, concat_eval, 0 };
const gc_kernel GC_K(gc_k_pack) = { "PACK", pack_prepare, concat_eval, 0 };
const gc_kernel GC_K(gc_k_unpack) = { "UNPACK", unpack_prepare, split_eval, 0 };
const gc_kernel GC_K(gc_k_split) = { "SPLIT", split_prepare, split_eval, 0 };
const gc_kernel GC_K(gc_k_split_v) = { "SPLIT_V", split_v_prepare, split_eval, 0 };
const gc_kernel GC_K(gc_k_tile) = { "TILE", tile_prepare, tile_eval, 0 };
const gc_kernel GC_K(gc_k_broadcast_to) = { "BROADCAST_TO", broadcast_to_prepare, tile_eval, 0 };
const gc_kernel GC_K(gc_k_reverse_v2) = { "REVERSE_V2", reverse_prepare, reverse_eval, 0 };
const gc_kernel GC_K(gc_k_fill) = { "FILL", fill_prepare, fill_eval, 0 };
const gc_kernel GC_K(gc_k_zeros_like) = { "ZEROS_LIKE", zeros_like_prepare, zeros_like_eval, 0 };
const gc_kernel GC_K(gc_k_range) = { "RANGE", range_prepare, range_eval, 0 };
