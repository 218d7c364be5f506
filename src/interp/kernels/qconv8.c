/* qconv8.c — the interpreter's side of the fast 8-bit CONV_2D / DEPTHWISE_CONV_2D /
 * FULLY_CONNECTED / BATCH_MATMUL (qconv8.h): eligibility, PAD folding, packing at prepare
 * (gc_ctx_derived: nodes sharing a filter share its panels), scratch, the split over
 * threads at eval.
 */
#include "interp/kernels/qconv8.h"
#include "interp/kernels/qgemm8.h"

typedef struct gc_q8op {
    gc_q8conv c;
    int shared_slot, thread_slot;
    size_t thread_bytes;
    double work;                    /* multiply-adds per eval */
} gc_q8op;

static bool is_8bit(int dt) { return dt == GC_T_INT8 || dt == GC_T_UINT8; }

/* The reference's weight zero point of column n (conv.c quant_prepare, fc.c fc_prepare). */
static int32_t wzp_of(const gc_quant *q, int32_t n, int32_t N) {
    if (!q || q->n_zero_point < 1) return 0;
    if (q->n_zero_point == N && N > 1) return (int32_t)q->zero_point[n];
    return (int32_t)q->zero_point[0];
}

/* The node that wrote tensor x in this frame (prepared before n), or NULL. */
static gc_node *producer(gc_ctx *ctx, gc_node *n, const gc_rt *x) {
    gc_frame *f = ctx->f;
    for (gc_node *p = f->nodes; p < n && p < f->nodes + f->n_nodes; p++)
        for (int j = 0; j < p->n_out; j++)
            if (p->out[j] == x) return p;
    return NULL;
}

/* PAD folding (qconv8.h): on success the conv's geometry reads the PAD's input. */
static void fold_pad(gc_ctx *ctx, gc_node *n, gc_q8conv *c) {
    gc_rt *x = n->in[0];
    if (ctx->observed || x->kind != GC_RT_ACT) return;
    gc_node *p = producer(ctx, n, x);
    if (!p || p->folded || p->absorbed || (p->code != GC_OP_PAD && p->code != GC_OP_PADV2) || p->n_out != 1) return;
    gc_rt *px = p->in[0], *pd = p->n_in > 1 ? p->in[1] : NULL;
    if (!px || !pd || !pd->known || px->dtype != x->dtype || px->rank != 4 || gc_numel(pd) != 8) return;
    int64_t pads[8];
    for (int i = 0; i < 8; i++) pads[i] = gc_get_int(pd, (size_t)i);
    if (pads[0] || pads[1] || pads[6] || pads[7]) return;          /* batch and channels unpadded */
    for (int i = 2; i < 6; i++) if (pads[i] < 0 || pads[i] > (1 << 24)) return;
    if (p->code == GC_OP_PADV2 && p->n_in > 2 && p->in[2]) {         /* the constant must be zx */
        const gc_rt *v = p->in[2];
        if (!v->known || v->dtype != x->dtype || gc_numel(v) != 1 || gc_qget(v->dtype, v->data, 0) != c->zx) return;
    } else if (x->zp != c->zx) return;                                  /* PAD writes its output's zero point */
    if (px->shape[0] != c->Bn || px->shape[3] != c->C || px->shape[1] + pads[2] + pads[3] != c->H ||
        px->shape[2] + pads[4] + pads[5] != c->W)
        return;
    /* x read by this node only, and not a result of the subgraph */
    const gc_subgraph *s = ctx->f->s;
    for (int k = 0; k < s->n_outputs; k++) if (s->outputs[k] == x->index) return;
    int32_t ops[2];
    if (gc_sg_consumers(ctx->m, ctx->f->sg, x->index, ops, 2) != 1) return;
    c->H = px->shape[1]; c->W = px->shape[2];
    c->pt += (int32_t)pads[2]; c->pl += (int32_t)pads[4];
    n->in[0] = px;
    p->absorbed = true;
}

/* requantization arrays of `cols` columns (the first `real` from the reference's) */
static gc_status rq_setup(gc_ctx *ctx, gc_q8rq *rq, int32_t cols, int32_t real, const int32_t *qm, const int *qs,
                          const float *qf, bool xnn, int32_t zy, int32_t lo, int32_t hi) {
    int32_t *bias = gc_ctx_alloc(ctx, (size_t)cols * 4 * sizeof(int32_t));
    float *fs = gc_ctx_alloc(ctx, (size_t)cols * sizeof(float));
    if (!bias || !fs) return GC_ERR_NOMEM;
    int32_t *mult = bias + cols, *lsh = mult + cols, *rsh = lsh + cols;
    bool any_left = false;
    for (int32_t i = 0; i < real; i++) {
        mult[i] = qm[i];
        lsh[i] = qs[i] > 0 ? qs[i] : 0;
        rsh[i] = qs[i] < 0 ? -qs[i] : 0;
        any_left |= lsh[i] > 0;
        fs[i] = qf ? qf[i] : 0.0f;
    }
    *rq = (gc_q8rq){ .bias = bias, .mult = mult, .lsh = lsh, .rsh = rsh, .fscale = fs, .xnn = xnn,
                     .any_left = any_left, .zp = zy, .lo = lo, .hi = hi };
    return GC_OK;
}

/* a pad row of the input zero point: raw (depthwise) or in A's encoding (GEMM) */
static gc_status pad_rows(gc_ctx *ctx, gc_q8conv *c) {
    const size_t n = (size_t)(c->Cp > c->C ? c->Cp : c->C) + 64;
    uint8_t *raw = gc_ctx_alloc(ctx, n);
    if (!raw) return GC_ERR_NOMEM;
    memset(raw, (int)(uint8_t)c->zx, n);
    c->xpad = raw;
    if (c->kind == GC_Q8_DW) return GC_OK;
    if (c->level == GC_Q8_VNNI) {
        uint8_t *p = gc_ctx_alloc(ctx, n);
        if (!p) return GC_ERR_NOMEM;
        memset(p, (int)(uint8_t)((uint8_t)c->zx ^ c->flip), n);
        c->pad = p;
        c->padsum = (int32_t)(((uint8_t)c->zx ^ c->flip) * (uint32_t)c->C);
    } else {
        c->pad = gc_ctx_alloc(ctx, 2 * n);                  /* zeros: x - zx */
        if (!c->pad) return GC_ERR_NOMEM;
    }
    return GC_OK;
}

gc_status gc_q8_prepare(gc_ctx *ctx, gc_node *n, const gc_q8desc *d, gc_q8op **out) {
    *out = NULL;
#ifdef GC_FP64_BUILD
    (void)ctx; (void)n; (void)d;
    return GC_OK;
#else
    const gc_rt *w = d->w;
    if (!ctx->fast || !is_8bit(d->xdt) || !w->known || !is_8bit(w->dtype) || (d->b && d->b->dtype != GC_T_INT32))
        return GC_OK;
    if (d->Bn <= 0 || d->OH <= 0 || d->OW <= 0 || d->OC <= 0 || d->C <= 0) return GC_OK;
    if (d->kind == GC_Q8_GEMM && d->G != 1) return GC_OK;
    /* a depthwise conv of one input channel (any multiplier: OC = mult) is the CONV_2D of
     * that channel: B(n, t) = filter[0][t][n] (the same products, per output channel) */
    const bool dw1 = d->kind == GC_Q8_DW && d->C == 1 && d->mult == d->OC;
    const int kind = dw1 ? GC_Q8_GEMM : d->kind;
    if (kind == GC_Q8_DW && (d->mult != 1 || (int64_t)d->KH * d->KW > 64)) return GC_OK;
    gc_q8op *op = gc_ctx_alloc(ctx, sizeof *op);
    if (!op) return GC_ERR_NOMEM;
    gc_q8conv *c = &op->c;
    *c = (gc_q8conv){ .kind = kind, .Bn = d->Bn, .H = d->H, .W = d->W, .C = d->C, .OH = d->OH, .OW = d->OW,
                      .OC = d->OC, .KH = d->KH, .KW = d->KW, .sh = d->sh, .sw = d->sw, .dh = d->dh, .dw = d->dw,
                      .pt = d->pt, .pl = d->pl, .x_signed = d->xdt == GC_T_INT8, .zx = d->zx };
    /* weight zero points per column; are they all the same? */
    const int32_t N = d->OC;
    int32_t *zw = gc_ctx_alloc(ctx, (size_t)N * sizeof(int32_t));
    if (!zw) return GC_ERR_NOMEM;
    bool uniform = true;
    for (int32_t i = 0; i < N; i++) { zw[i] = wzp_of(w->q, i, N); uniform &= zw[i] == zw[0]; }
    gc_q8wsrc src = { .src = w->data, .w_signed = w->dtype == GC_T_INT8, .zw = zw,
                      .sn = (int64_t)d->KH * d->KW * d->C, .sk = 1 };
    if (dw1) { src.sn = 1; src.sk = N; }
    size_t wb = gc_q8conv_layout(c, gc_q8_level(ctx->isa), src.w_signed, uniform);
    GC_UNSUP(ctx, wb > 0, "filter of %d x %lld is too large to pack", (int)N, (long long)src.sn);
    bool fresh;
    void *mem = gc_ctx_derived(ctx, w->data, dw1 ? 98 + (int)c->level : 90 + 4 * d->kind + (int)c->level, N,
                               dw1 ? (int64_t)d->KH * d->KW : src.sn, wb, &fresh);
    const int32_t cols = gc_q8conv_cols(c);
    int32_t *colsum = gc_ctx_alloc(ctx, (size_t)cols * sizeof(int32_t));
    if (!mem || !colsum) return GC_ERR_NOMEM;
    gc_q8conv_bind(c, mem);
    gc_q8conv_pack(c, &src, fresh, colsum);
    GC_TRY(rq_setup(ctx, &c->rq, cols, N, d->qm, d->qs, d->qf, d->xnn, d->zy, d->lo, d->hi));
    gc_q8conv_bias(c, d->b ? (const int32_t *)(const void *)d->b->data : NULL, colsum, &src, (int32_t *)c->rq.bias);
    if (d->is_conv) fold_pad(ctx, n, c);
    GC_TRY(pad_rows(ctx, c));
    size_t sb = gc_q8conv_shared_bytes(c);
    op->thread_bytes = gc_q8conv_thread_bytes(c);
    int nt = ctx->threads > 0 ? ctx->threads : 1;
    op->shared_slot = sb ? gc_ctx_scratch(ctx, n, sb) : -1;
    op->thread_slot = op->thread_bytes ? gc_ctx_scratch(ctx, n, op->thread_bytes * (size_t)nt) : -1;
    if ((sb && op->shared_slot < 0) || (op->thread_bytes && op->thread_slot < 0)) return GC_ERR_NOMEM;
    op->work = (double)d->Bn * d->OH * d->OW * d->OC * d->KH * d->KW * (kind == GC_Q8_DW ? 1 : d->C);
    n->fast = true;
    n->unread_in |= 1u << 1 | 1u << 2;         /* filter and bias: packed copies */
    *out = op;
    return GC_OK;
#endif
}

typedef struct { const gc_q8op *op; const uint8_t *x; const void *shared; char *thr; uint8_t *y; int64_t tiles; } q8_job;

static void q8_job_run(void *arg, int i, int n) {
    const q8_job *j = arg;
    gc_q8conv_run(&j->op->c, j->x, j->shared, j->thr + (size_t)i * j->op->thread_bytes, j->y,
                  j->tiles * i / n, j->tiles * (i + 1) / n);
}

static int threads_for(const gc_ctx *ctx, double work, int64_t tiles) {
    int nt = ctx->threads;
    if (work < 65536.0 * nt) nt = work / 65536 > 1 ? (int)(work / 65536) : 1;
    if (nt > ctx->threads) nt = ctx->threads;
    if (nt > tiles) nt = (int)tiles;
    return nt > 0 ? nt : 1;
}

void gc_q8_eval(gc_ctx *ctx, gc_node *n, const gc_q8op *op, const uint8_t *x, uint8_t *y) {
    void *shared = op->shared_slot >= 0 ? n->scratch[op->shared_slot] : NULL;
    gc_q8conv_prep(&op->c, x, shared);
    q8_job j = { op, x, shared, op->thread_slot >= 0 ? (char *)n->scratch[op->thread_slot] : NULL, y,
                 gc_q8conv_tiles(&op->c) };
    gc_parallel(threads_for(ctx, op->work, j.tiles), q8_job_run, &j);
}

/* ---- BATCH_MATMUL ------------------------------------------------------------------------ */

typedef struct gc_q8bmm {
    gc_q8op op;
    bool adj_x, adj_y;
    int32_t *zw;                    /* N copies of b's zero point */
    int w_slot, cs_slot, bias_slot;
    size_t wbytes;
} gc_q8bmm;

gc_status gc_q8bmm_prepare(gc_ctx *ctx, gc_node *n, int64_t M, int64_t K, int64_t N, bool adj_x, bool adj_y,
                           int32_t za, int32_t zb, int32_t zy, int32_t qm, int qs, gc_q8bmm **out) {
    *out = NULL;
#ifdef GC_FP64_BUILD
    (void)ctx; (void)n; (void)M; (void)K; (void)N; (void)adj_x; (void)adj_y; (void)za; (void)zb; (void)zy; (void)qm; (void)qs;
    return GC_OK;
#else
    if (!ctx->fast || M <= 0 || K <= 0 || N <= 0 || M > INT32_MAX || K > INT32_MAX || N > INT32_MAX) return GC_OK;
    gc_q8bmm *b = gc_ctx_alloc(ctx, sizeof *b);
    if (!b) return GC_ERR_NOMEM;
    gc_q8conv *c = &b->op.c;
    *c = (gc_q8conv){ .kind = GC_Q8_GEMM, .Bn = 1, .H = (int32_t)M, .W = 1, .C = (int32_t)K, .OH = (int32_t)M,
                      .OW = 1, .OC = (int32_t)N, .KH = 1, .KW = 1, .sh = 1, .sw = 1, .dh = 1, .dw = 1,
                      .x_signed = true, .zx = za };
    b->wbytes = gc_q8conv_layout(c, gc_q8_level(ctx->isa), true, true);
    GC_UNSUP(ctx, b->wbytes > 0, "right-hand side [%lld, %lld] is too large to pack", (long long)K, (long long)N);
    c->a_direct = false;
    const int32_t cols = gc_q8conv_cols(c);
    int32_t one_m = qm; int one_s = qs;
    int32_t *qmv = gc_ctx_alloc(ctx, (size_t)cols * sizeof(int32_t));
    int *qsv = gc_ctx_alloc(ctx, (size_t)cols * sizeof(int));
    if (!qmv || !qsv) return GC_ERR_NOMEM;
    for (int32_t i = 0; i < cols; i++) { qmv[i] = one_m; qsv[i] = one_s; }
    GC_TRY(rq_setup(ctx, &c->rq, cols, (int32_t)N, qmv, qsv, NULL, false, zy, -128, 127));
    c->zws = c->level == GC_Q8_VNNI ? zb : 0;     /* set by the packer too; needed for the scratch plan */
    GC_TRY(pad_rows(ctx, c));
    b->adj_x = adj_x; b->adj_y = adj_y;
    b->zw = gc_ctx_alloc(ctx, (size_t)cols * sizeof(int32_t));
    if (!b->zw) return GC_ERR_NOMEM;
    for (int32_t i = 0; i < cols; i++) b->zw[i] = zb;
    b->w_slot = gc_ctx_scratch(ctx, n, b->wbytes);
    b->cs_slot = gc_ctx_scratch(ctx, n, (size_t)cols * sizeof(int32_t) * 2);
    size_t sb = gc_q8conv_shared_bytes(c);
    b->op.thread_bytes = gc_q8conv_thread_bytes(c);
    int nt = ctx->threads > 0 ? ctx->threads : 1;
    b->op.shared_slot = gc_ctx_scratch(ctx, n, sb);
    b->op.thread_slot = gc_ctx_scratch(ctx, n, b->op.thread_bytes * (size_t)nt);
    if (b->w_slot < 0 || b->cs_slot < 0 || b->op.shared_slot < 0 || b->op.thread_slot < 0) return GC_ERR_NOMEM;
    b->op.work = (double)M * (double)K * (double)N;
    n->fast = true;
    *out = b;
    return GC_OK;
#endif
}

/* A in the GEMM's encoding from a (element (m, k) at a[m * sm + k * sk]) */
static void bmm_prep_a(const gc_q8conv *c, const int8_t *a, int64_t sm, int64_t sk, void *shared) {
    uint8_t *base = (uint8_t *)(((uintptr_t)shared + 63) & ~(uintptr_t)63);
    const int64_t M = c->H, K = c->C;
    const size_t abytes = (size_t)M * (size_t)c->Cp * (c->level == GC_Q8_VNNI ? 1u : 2u);
    int32_t *sums = c->zws ? (int32_t *)(base + (abytes + 63) / 64 * 64) : NULL;
    for (int64_t m = 0; m < M; m++) {
        int32_t s = 0;
        if (c->level == GC_Q8_VNNI) {
            uint8_t *r = base + (size_t)m * (size_t)c->Cp;
            for (int64_t k = 0; k < K; k++) { r[k] = (uint8_t)a[m * sm + k * sk] ^ 0x80; s += r[k]; }
            for (int64_t k = K; k < c->Cp; k++) r[k] = 0;
        } else {
            int16_t *r = (int16_t *)(void *)base + (size_t)m * (size_t)c->Cp;
            for (int64_t k = 0; k < K; k++) r[k] = (int16_t)(a[m * sm + k * sk] - c->zx);
            for (int64_t k = K; k < c->Cp; k++) r[k] = 0;
        }
        if (sums) sums[m] = s;
    }
}

void gc_q8bmm_eval(gc_ctx *ctx, gc_node *n, const gc_q8bmm *b, const int8_t *a, const int8_t *bm, int8_t *y) {
    gc_q8conv c = b->op.c;                           /* the panels and bias of this b */
    const int64_t M = c.H, K = c.C, N = c.OC;
    gc_q8conv_bind(&c, n->scratch[b->w_slot]);
    int32_t *colsum = (int32_t *)n->scratch[b->cs_slot], *bias = colsum + gc_q8conv_cols(&c);
    gc_q8wsrc src = { .src = (const uint8_t *)bm, .w_signed = true, .zw = b->zw,
                      .sn = b->adj_y ? K : 1, .sk = b->adj_y ? 1 : N };
    gc_q8conv_pack(&c, &src, true, colsum);
    gc_q8conv_bias(&c, NULL, colsum, &src, bias);
    c.rq.bias = bias;
    void *shared = n->scratch[b->op.shared_slot];
    bmm_prep_a(&c, a, b->adj_x ? 1 : K, b->adj_x ? M : 1, shared);
    gc_q8op op = b->op;
    op.c = c;
    q8_job j = { &op, NULL, shared, (char *)n->scratch[b->op.thread_slot], (uint8_t *)y, gc_q8conv_tiles(&c) };
    gc_parallel(threads_for(ctx, op.work, j.tiles), q8_job_run, &j);
}
