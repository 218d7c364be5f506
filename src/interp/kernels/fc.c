/* fc.c — FULLY_CONNECTED and BATCH_MATMUL.
 *
 * FULLY_CONNECTED(x, W, bias?)  W [units, depth] (weights_format DEFAULT only; float W may
 *   be computed by the graph: it is transposed at every eval instead of at prepare), bias
 *   [units]; x is read as [rows, depth], rows = numel(x) / depth. Output [rows, units],
 *   or x.shape[:-1] + [units] with options.keep_num_dims. Fused activation clamp.
 * BATCH_MATMUL(a, b)  a [..., M, K] (options.adj_x: [..., K, M]), b [..., K, N]
 *   (options.adj_y: [..., N, K]); batch dims broadcast; output [..., M, N].
 *
 * Accumulation order (float): every output starts at 0 and adds x[k] w[k] for
 * k = 0..K-1 in order, then the bias (TFLite's reference order), then the clamp. The
 * loops run over output units innermost on weights transposed at prepare to [K][units]
 * (BATCH_MATMUL: b as [K][N]), which keeps that order per output.
 *
 * Quantized (TFLite reference integer kernels): acc = sum (x - zp_x)(w - zp_w) + bias
 *   (INT8 per-tensor or per-channel weights with zp_w = 0; UINT8 per-tensor; INT16
 *   activations with INT8 weights accumulate in int64 with an int64 or int32 bias),
 *   out = clamp(MultiplyByQuantizedMultiplier(acc, s_x s_w / s_out) + zp_out). INT8
 *   BATCH_MATMUL likewise with both zero points.
 * Hybrid (float x, constant INT8 / INT4 W with one scale or one per unit, zero points 0;
 *   interp/hybrid.h): FULLY_CONNECTED quantizes each row of x (asymmetric_quantize_inputs:
 *   asymmetric, else symmetric; --int-arith xnnpack: XNNPACK's qd8), acc = sum q w - z_x
 *   rowsum(w) in int32 (int64 past 65793 terms), y = bias + acc (s_x s_w[u]) (XNNPACK:
 *   fma(acc s_x, s_w[u], bias)), then the clamp; BATCH_MATMUL with a constant INT8 / INT4 b
 *   likewise per row of a (no bias). Bit-exact with LiteRT's builtin kernels and with
 *   XNNPACK on single-op models (tests/interp/parity_litert.py).
 * Blockwise INT4 weights (BlockwiseQuantization: FLOAT16 scale per unit and block of the
 *   depth, no zero points; FLOAT32 x): the reference dequantizes, w s, and accumulates
 *   x w s in k order. With --int-arith xnnpack, as LiteRT's CPU runtime (XNNPACK's
 *   qd8 x qb4w): block scales rounded to bf16, each row of x quantized to int8 on the
 *   fly (asymmetric, range including 0), integer dot product per block, scaled by the
 *   block scale, summed in float in block order, times the input scale. ctx->fast: both
 *   through kernels/qfc4.h (the same operations vectorized across units, bit-identical).
 * With --int-arith xnnpack, quantized FULLY_CONNECTED rescales as conv.c does (float32
 *   scale s_x s_w / s_out, round half to even).
 * fp16: weights / bias rounded at prepare; fp16-acc rounds each product and each
 *   partial sum, then the bias addition. Hybrid weights in fp16 / fp16-acc / fp64 are
 *   dequantized (w s, rounded to half in fp16) and run the float path; blockwise weights
 *   in fp64 always take the dequantizing reference (in double).
 * fp64 (fc_f64.c): the same loops in double.
 * 8-bit fast path (ctx->fast; kernels/qconv8.h, qgemm8.h, bit-identical): quantized
 *   FULLY_CONNECTED with INT8 / UINT8 input and weights and an INT32 bias (or none) as a 1x1
 *   conv over its rows; INT8 BATCH_MATMUL with b packed at each eval.
 * Float fast path (ctx->fast_float: fp32, fp16 or fp16-acc without opts.reference_kernels):
 *   float FULLY_CONNECTED (constant bias) and BATCH_MATMUL through kernels/gemm_f32.h,
 *   weights packed once into panels (per eval when the graph computes them), bit-identical
 *   to the loops above; in the fp16 modes on the half-rounded values, in the mode of the
 *   sums below (GC_GEMM_F32, GC_GEMM_H16 for sums in half, GC_GEMM_SLICE for GC_ACC_SLICE);
 *   row tiles split over ctx->threads.
 */
#include "interp/interp_impl.h"
#include "interp/hybrid.h"
#ifndef GC_FP64_BUILD
#include "interp/kernels/gemm_f32.h"
#include "interp/kernels/qconv8.h"
#include "interp/kernels/qgemm8.h"
#include "interp/kernels/qfc4.h"
#endif

/* The inner loops run across independent outputs, so vectorising them keeps every
 * output's accumulation order; GCC's -O2 does not vectorise them, -O3 does. */
#include "interp/kernels/vec_loops.h"

#include <stdlib.h>

/* the fp16 modes' accumulation of a FULLY_CONNECTED / BATCH_MATMUL of depth K
 * (fp16_model.h; fp16-acc: every step in half; fp32: float) */
static gc_f16_acc mm_acc(const gc_ctx *ctx, bool bmm, int64_t M, int64_t K, int64_t N) {
    if (ctx->acc16) return GC_ACC_F16;
    return ctx->hm ? gc_f16_mm_acc(ctx->hm, bmm, M, K, N) : GC_ACC_F32;
}

typedef struct fc_data {
    int64_t rows, K, N;
    float lo, hi;
    bool blockwise;             /* INT4 weights, FLOAT16 scale per (unit, block of K) */
    int64_t block;
    int8_t *w4;                 /* blockwise: unpacked int4 values [N][K] */
    float *bscale;              /* blockwise: scales [N][K/block] (bf16-rounded in xnn mode) */
    bool xnn;
    float *wt;                  /* float [K][N] */
    bool runtime_w;             /* float weights computed by the graph: transposed per eval */
    int32_t *wq;                /* integer [K][N], zero point removed */
    int32_t *qm; int *qs;       /* per unit */
    float *qf;                  /* per unit float scale (xnnpack mode) */
    int32_t x_off, y_off, qlo, qhi;
    int acc_slot;
    /* hybrid: float x, INT8 / INT4 weights (interp/hybrid.h) */
    bool hybrid;
    int hq;                     /* GC_HQ_* input quantization */
    int8_t *w8;                 /* weights [K][N] */
    int32_t *rowsum;            /* per unit: sum over k of w */
    gc_f32 *hs;                 /* per unit weight scale */
    int q_slot;                 /* scratch: one quantized row of x */
#ifndef GC_FP64_BUILD
    /* fast path (ctx->fast_float: fp32 and the fp16 modes; gemm_f32.h, bit-identical): the packed weights replace wt */
    gc_gemm_b *pb;              /* NULL: the reference loops */
    float *pbias;               /* the bias padded to the panels */
    int apack_slot;             /* scratch: each worker's copy of a row tile (gemm_f32.h), or -1 */
#endif
    struct gc_q8op *q8;         /* 8-bit fast path (qconv8.h), else NULL */
#ifndef GC_FP64_BUILD
    gc_qfc4 *q4;                /* blockwise INT4 fast path (qfc4.h), else NULL */
#endif
} fc_data;

#ifndef GC_FP64_BUILD
/* y = a B over M rows, its row tiles split over the pool (chunks of ~GC_PAR_GRAIN
 * multiply-adds at least; every tile's outputs are computed the same way on any thread) */
typedef struct { const gc_gemm_b *b; const float *bias; float lo, hi; const float *a; int64_t lda;
                 float *y; int64_t ldy, M; float *apack; size_t apack_per; } gemm_job;

static void gemm_job_run(void *arg, int64_t t0, int64_t t1, int w) {
    const gemm_job *j = arg;
    gc_gemmf_run(j->b, j->bias, j->lo, j->hi, j->a, j->lda, j->y, j->ldy, j->M, t0, t1,
                 j->apack ? j->apack + (size_t)w * j->apack_per : NULL);
}

/* apack: threads x gc_gemmf_apack_floats(b, lda) floats, or NULL */
static void gemm_split(gc_ctx *ctx, const gc_gemm_b *b, const float *bias, float lo, float hi, const float *a,
                       int64_t lda, float *y, int64_t ldy, int64_t M, float *apack) {
    gemm_job j = { b, bias, lo, hi, a, lda, y, ldy, M, apack, gc_gemmf_apack_floats(b, lda) };
    int64_t tiles = gc_gemmf_tiles(b, M);
    double work = (double)M * b->K * b->N;
    gc_ctx_for(ctx, tiles, gc_ctx_chunk(ctx, tiles, tiles ? work / (double)tiles : 0), gemm_job_run, &j);
}

/* fp32: lay out (and, for constant weights, pack once) W [N][K] for gemm_f32.h; the bias
 * must be constant (else the reference runs). */
static gc_status fc_fast_prepare(gc_ctx *ctx, gc_node *n, fc_data *d, gc_rt *w, gc_rt *b) {
    if (!ctx->fast_float || (b && !b->known)) return GC_OK;
    gc_gemm_b *pb = gc_ctx_alloc(ctx, sizeof *pb);
    if (!pb) return GC_ERR_NOMEM;
    GC_UNSUP(ctx, d->N <= INT32_MAX && d->K <= INT32_MAX, "weights [%lld, %lld] out of range", (long long)d->N, (long long)d->K);
    /* fp16: fc_eval's sums (fp16-acc and GC_ACC_F16: every step in half; GC_ACC_SLICE;
     * GC_ACC_K16H; GC_ACC_H2FMA) */
    const gc_f16_acc fa = mm_acc(ctx, false, d->rows, d->K, d->N);
    const gc_gemm_mode mode = fa == GC_ACC_F16 ? GC_GEMM_H16 : fa == GC_ACC_SLICE ? GC_GEMM_SLICE
                            : fa == GC_ACC_K16H ? GC_GEMM_K16H : fa == GC_ACC_H2FMA ? GC_GEMM_H2FMA
                            : ctx->fma ? GC_GEMM_F32_FMA : GC_GEMM_F32;
    size_t nf = gc_gemm_b_layout_mode(pb, (gc_isa)ctx->isa, mode, 1, (int32_t)d->K, (int32_t)d->N);
    GC_UNSUP(ctx, nf > 0, "weights [%lld, %lld] are too large to pack", (long long)d->N, (long long)d->K);
    float *mem;
    if (w->known) {
        bool fresh;
        mem = gc_ctx_derived(ctx, w->data, 63 + ctx->isa + 100 * mode, d->N, d->K, nf * sizeof(float), &fresh);
        if (!mem) return GC_ERR_NOMEM;
        gc_gemm_b_bind(pb, mem);
        if (fresh) gc_gemm_pack_nk(pb, (const float *)w->data, d->K);
        else gc_gemm_b_note_range(pb);
    } else {                                   /* packed at every eval */
        mem = gc_ctx_alloc(ctx, nf * sizeof(float));
        if (!mem) return GC_ERR_NOMEM;
        gc_gemm_b_bind(pb, mem);
    }
    d->pbias = gc_ctx_alloc(ctx, gc_gemm_bias_floats(pb) * sizeof(float));
    if (!d->pbias) return GC_ERR_NOMEM;
    gc_gemm_pack_bias(pb, b ? (const float *)b->data : NULL, d->pbias);
    d->pb = pb;
    d->apack_slot = -1;
    const size_t ap = gc_gemmf_apack_floats(pb, d->K);
    if (ap) {
        d->apack_slot = gc_ctx_scratch(ctx, n, ap * sizeof(float) * (size_t)ctx->threads);
        if (d->apack_slot < 0) return GC_ERR_NOMEM;
    }
    n->fast = true;
    n->own_store = ctx->fp16;                  /* fc_eval rounds the row tiles (ctx->store) */
    if (w->known) n->unread_in = 1u << 1 | 1u << 2;   /* weights and bias: packed copies */
    return GC_OK;
}
#endif

static gc_status blockwise_prepare(gc_ctx *ctx, gc_node *n, struct fc_data *d, int act);

/* bytes of one worker's accumulator row of n outputs (int64 or 2 x float each) */
static size_t acc_stride(int64_t n) { return (size_t)n * 8 + 64; }
static gc_status hybrid_prepare(gc_ctx *ctx, gc_node *n, fc_data *d, int act);

/* Output shape: [rows, units], or x.shape[:-1] + [units] with keep_num_dims, which
 * needs x's last dimension to be the depth (else the output would hold fewer than
 * rows * units values: a mutated model wrote past it). */
static gc_status fc_out_shape(gc_ctx *ctx, gc_node *n, const fc_data *d) {
    gc_rt *x = n->in[0], *y = n->out[0];
    GC_ENSURE(ctx, d->rows <= INT32_MAX && d->N <= INT32_MAX, "%lld rows of %lld units is out of range",
              (long long)d->rows, (long long)d->N);
    int32_t shp[GC_MAX_RANK]; int r;
    if (gc_opt_int(gc_opts(n), GC_O_FullyConnectedOptions_keep_num_dims)) {
        GC_ENSURE(ctx, x->rank >= 1 && x->shape[x->rank - 1] == d->K,
                  "keep_num_dims: the input's last dimension (%d) must be the depth %lld",
                  x->rank >= 1 ? (int)x->shape[x->rank - 1] : 0, (long long)d->K);
        r = x->rank;
        memcpy(shp, x->shape, sizeof shp);
        shp[r - 1] = (int32_t)d->N;
    } else { r = 2; shp[0] = (int32_t)d->rows; shp[1] = (int32_t)d->N; }
    return gc_set_shape(ctx, y, r, shp);
}

/* Zero points must lie in their type's range (a file can say anything; the integer
 * arithmetic below relies on |x - zp| <= 2^16). */
static gc_status zp_in_range(gc_ctx *ctx, const char *what, int dtype, int64_t zp) {
    int32_t lo, hi;
    gc_qrange(dtype, &lo, &hi);
    GC_ENSURE(ctx, zp >= lo && zp <= hi, "%s zero point %lld is outside the range of %s",
              what, (long long)zp, gc_type_name(dtype));
    return GC_OK;
}

static gc_status fc_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_FullyConnectedOptions));
    GC_TRY(gc_check_arity(ctx, n, 2, 3, 1));
    gc_rt *x = n->in[0], *w = n->in[1], *b = n->n_in > 2 ? n->in[2] : NULL, *y = n->out[0];
    const gc_options *o = gc_opts(n);
    GC_UNSUP(ctx, gc_opt_int(o, GC_O_FullyConnectedOptions_weights_format) == 0, "shuffled weights are not supported");
    int act = (int)gc_opt_int(o, GC_O_FullyConnectedOptions_fused_activation_function);
    GC_UNSUP(ctx, act <= GC_ACT_RELU6, "fused activation %d is not supported", act);
    GC_ENSURE(ctx, w->rank == 2, "weights must be 2-D [units, depth]");
    fc_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    if (w->q && w->q->details_type == 2) return blockwise_prepare(ctx, n, d, act);
    d->N = w->shape[0]; d->K = w->shape[1];
    GC_ENSURE(ctx, d->K > 0 && gc_numel(x) % (uint64_t)d->K == 0, "input of %llu elements is not a multiple of depth %lld",
              (unsigned long long)gc_numel(x), (long long)d->K);
    d->rows = (int64_t)(gc_numel(x) / (uint64_t)d->K);
    if (b) GC_ENSURE(ctx, (int64_t)gc_numel(b) == d->N, "bias has %llu entries for %lld units", (unsigned long long)gc_numel(b), (long long)d->N);
    size_t kn = (size_t)d->K * (size_t)d->N;
    if (x->dtype == GC_T_FLOAT32 && !w->known) {
        /* float weights produced by the graph (litert-torch emits this for matrix
         * products such as grid_sample's): same loops, transposed at every eval */
        GC_UNSUP(ctx, w->dtype == GC_T_FLOAT32, "float input with runtime %s weights is not supported", gc_type_name(w->dtype));
        GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32 && (!b || b->dtype == GC_T_FLOAT32), "output and bias must be FLOAT32");
        gc_act_range_f(act, &d->lo, &d->hi);
        d->runtime_w = true;
#ifndef GC_FP64_BUILD
        GC_TRY(fc_fast_prepare(ctx, n, d, w, b));
        if (!d->pb)
#endif
        {
            d->wt = gc_ctx_alloc(ctx, kn * sizeof(float) + 1);
            if (!d->wt) return GC_ERR_NOMEM;
        }
    } else if (x->dtype == GC_T_FLOAT32 && gc_hq_is_weight(w)) {
        GC_TRY(hybrid_prepare(ctx, n, d, act));
    } else if (x->dtype == GC_T_FLOAT32) {
        GC_ENSURE(ctx, w->known || w->dtype == GC_T_FLOAT32, "weights must be constant");
        GC_UNSUP(ctx, w->dtype == GC_T_FLOAT32, "float input with %s weights (hybrid) is not supported", gc_type_name(w->dtype));
        GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32 && (!b || b->dtype == GC_T_FLOAT32), "output and bias must be FLOAT32");
        gc_act_range_f(act, &d->lo, &d->hi);
#ifndef GC_FP64_BUILD
        GC_TRY(fc_fast_prepare(ctx, n, d, w, b));
        if (!d->pb)
#endif
        {
            bool fresh;
            d->wt = gc_ctx_derived(ctx, w->data, 20, d->N, d->K, kn * sizeof(float), &fresh);
            if (!d->wt) return GC_ERR_NOMEM;
            const float *ws = (const float *)w->data;
            for (int64_t u = 0; u < d->N && fresh; u++)
                for (int64_t k = 0; k < d->K; k++) d->wt[k * d->N + u] = ws[u * d->K + k];
        }
    } else {
        GC_ENSURE(ctx, w->known, "quantized weights must be constant");
        GC_UNSUP(ctx, gc_is_qint(x->dtype) && (w->dtype == GC_T_INT8 || w->dtype == GC_T_UINT8),
                 "%s input with %s weights is not supported", gc_type_name(x->dtype), gc_type_name(w->dtype));
        GC_ENSURE(ctx, y->dtype == x->dtype, "output type %s, input %s", gc_type_name(y->dtype), gc_type_name(x->dtype));
        GC_ENSURE(ctx, x->scale > 0 && y->scale > 0 && isfinite(x->scale) && isfinite(y->scale) && w->q && w->q->n_scale >= 1,
                  "quantized FULLY_CONNECTED needs finite positive scales");
        int ns = w->q->n_scale;
        GC_ENSURE(ctx, ns == 1 || ns == d->N, "weights have %d scales for %lld units", ns, (long long)d->N);
        for (int i = 0; i < ns; i++)
            GC_ENSURE(ctx, w->q->scale[i] >= 0 && isfinite(w->q->scale[i]), "weight scale %d is %g", i, (double)w->q->scale[i]);
        GC_TRY(zp_in_range(ctx, "input", x->dtype, x->zp));
        GC_TRY(zp_in_range(ctx, "output", y->dtype, y->zp));
        for (int i = 0; i < w->q->n_zero_point; i++) GC_TRY(zp_in_range(ctx, "weight", w->dtype, w->q->zero_point[i]));
        /* a fused activation's bounds are zp + round(6 / scale): keep that inside int32 */
        GC_ENSURE(ctx, act == GC_ACT_NONE || (double)y->scale * 1073741824.0 >= 6.0,
                  "output scale %g is too small for fused activation %d", (double)y->scale, act);
        d->qm = gc_ctx_alloc(ctx, (size_t)d->N * sizeof(int32_t));
        d->qs = gc_ctx_alloc(ctx, (size_t)d->N * sizeof(int));
        d->qf = gc_ctx_alloc(ctx, (size_t)d->N * sizeof(float));
        if (!d->qf) return GC_ERR_NOMEM;
        d->xnn = ctx->xnn && x->dtype != GC_T_INT16;
        if (!d->qm || !d->qs) return GC_ERR_NOMEM;
        for (int64_t u = 0; u < d->N; u++) {
            gc_q_multiplier((double)x->scale * (double)w->q->scale[ns == 1 ? 0 : u] / (double)y->scale, &d->qm[u], &d->qs[u]);
            /* the 64-bit rescale shifts by 15 - shift: needs shift <= 14 */
            GC_ENSURE(ctx, x->dtype != GC_T_INT16 || d->qs[u] <= 14, "unit %lld: requantization multiplier %g is out of range",
                      (long long)u, (double)x->scale * (double)w->q->scale[ns == 1 ? 0 : u] / (double)y->scale);
            d->qf[u] = x->scale * w->q->scale[ns == 1 ? 0 : u] / y->scale;
        }
        if (b) GC_ENSURE(ctx, b->dtype == GC_T_INT32 || b->dtype == GC_T_INT64, "bias must be INT32/INT64");
        d->x_off = -x->zp; d->y_off = y->zp;
        gc_qrange(y->dtype, &d->qlo, &d->qhi);
        gc_q_act_range(act, y->scale, y->zp, d->qlo, d->qhi, &d->qlo, &d->qhi);
#ifndef GC_FP64_BUILD
        /* 8-bit: the fast kernels (qconv8.h), when they apply: rows as the pixels of a 1x1 conv */
        GC_UNSUP(ctx, d->rows <= INT32_MAX && d->N <= INT32_MAX && d->K <= INT32_MAX, "FULLY_CONNECTED of %lld x %lld x %lld "
                 "is out of range", (long long)d->rows, (long long)d->K, (long long)d->N);
        gc_q8desc q = { .kind = GC_Q8_GEMM, .Bn = 1, .H = (int32_t)d->rows, .W = 1, .C = (int32_t)d->K,
                        .OH = (int32_t)d->rows, .OW = 1, .OC = (int32_t)d->N, .KH = 1, .KW = 1, .sh = 1, .sw = 1,
                        .dh = 1, .dw = 1, .G = 1, .mult = 1, .xdt = x->dtype, .w = w, .b = b, .zx = x->zp,
                        .zy = y->zp, .lo = d->qlo, .hi = d->qhi, .qm = d->qm, .qs = d->qs, .qf = d->qf, .xnn = d->xnn };
        GC_TRY(gc_q8_prepare(ctx, n, &q, &d->q8));
        if (!d->q8)
#endif
        {
            bool fresh;
            d->wq = gc_ctx_derived(ctx, w->data, 21, d->N, (int64_t)(uintptr_t)w->q, kn * sizeof(int32_t), &fresh);
            if (!d->wq) return GC_ERR_NOMEM;
            int32_t wzp = w->q->n_zero_point >= 1 ? (int32_t)w->q->zero_point[0] : 0;
            for (int64_t u = 0; u < d->N && fresh; u++) {
                int32_t z = (w->q->n_zero_point == d->N && d->N > 1) ? (int32_t)w->q->zero_point[u] : wzp;
                for (int64_t k = 0; k < d->K; k++) d->wq[k * d->N + u] = gc_qget(w->dtype, w->data, (size_t)(u * d->K + k)) - z;
            }
        }
    }
    d->acc_slot = gc_ctx_scratch(ctx, n, acc_stride(d->N) * (size_t)ctx->threads);   /* one row per worker */
    n->data = d;
    return fc_out_shape(ctx, n, d);
}

/* Round a float to bfloat16 (nearest, ties to even), returned as float. */
static float bf16_round(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

#ifndef GC_FP64_BUILD
/* n zeroed bytes from the arena at a 64-byte boundary */
static void *alloc64(gc_ctx *ctx, size_t n) {
    uint8_t *p = gc_ctx_alloc(ctx, n + 64);
    return p ? (void *)(p + (64 - (uintptr_t)p % 64) % 64) : NULL;
}
#endif

/* FLOAT32 x, INT4 weights with BlockwiseQuantization (scales: a FLOAT16 tensor
 * [units, depth/block], no zero points), no bias: y = sum_k x[k] w[n][k] s[n][k/block]. */
static gc_status blockwise_prepare(gc_ctx *ctx, gc_node *n, fc_data *d, int act) {
    gc_rt *x = n->in[0], *w = n->in[1], *y = n->out[0];
    const gc_quant *q = w->q;
    GC_UNSUP(ctx, x->dtype == GC_T_FLOAT32 && y->dtype == GC_T_FLOAT32 && w->dtype == GC_T_INT4,
             "blockwise weights: only FLOAT32 x INT4 is supported (%s x %s)", gc_type_name(x->dtype), gc_type_name(w->dtype));
    GC_UNSUP(ctx, !(q->bw_present & 2) || q->bw_zero_points < 0, "blockwise zero points are not supported");
    GC_ENSURE(ctx, (q->bw_present & 1) && q->bw_scales >= 0 && q->bw_scales < ctx->f->s->n_tensors, "blockwise scales missing");
    GC_ENSURE(ctx, w->known, "weights must be constant");
    gc_rt *st = &ctx->f->t[q->bw_scales];
    d->N = w->shape[0]; d->K = w->shape[1]; d->block = q->bw_block_size;
    GC_ENSURE(ctx, d->K > 0, "blockwise weights [%lld, %lld] have no depth", (long long)d->N, (long long)d->K);
    GC_ENSURE(ctx, d->block > 0 && d->K % d->block == 0, "block size %lld does not divide depth %lld", (long long)d->block, (long long)d->K);
    GC_ENSURE(ctx, w->nbytes >= (size_t)((d->N * d->K + 1) / 2), "packed INT4 weights hold %zu bytes, [%lld, %lld] needs %lld",
              w->nbytes, (long long)d->N, (long long)d->K, (long long)((d->N * d->K + 1) / 2));
    GC_ENSURE(ctx, st->known && st->dtype == GC_T_FLOAT16 && st->rank == 2 && st->shape[0] == d->N &&
                   st->shape[1] == d->K / d->block && st->nbytes >= (size_t)(d->N * (d->K / d->block)) * 2,
              "blockwise scales must be a constant FLOAT16 [%lld, %lld] (units, depth / block %lld)",
              (long long)d->N, (long long)(d->K / d->block), (long long)d->block);
    GC_ENSURE(ctx, gc_numel(x) % (uint64_t)d->K == 0, "input is not a multiple of depth %lld", (long long)d->K);
    GC_UNSUP(ctx, n->n_in < 3 || n->in[2] == NULL, "bias with blockwise weights is not supported");
    d->rows = (int64_t)(gc_numel(x) / (uint64_t)d->K);
    d->blockwise = true;
    d->xnn = ctx->xnn && !ctx->fp64;     /* fp64: the dequantizing reference */
    gc_act_range_f(act, &d->lo, &d->hi);
    size_t nb = (size_t)(d->N * (d->K / d->block));
    d->bscale = gc_ctx_alloc(ctx, nb * sizeof(float));
    if (!d->bscale) return GC_ERR_NOMEM;
    for (size_t i = 0; i < nb; i++) {
        uint16_t h; memcpy(&h, st->data + i * 2, 2);
        float f = gc_f16_to_f32(h);
        if (ctx->fp16) f = gc_f16_round(f);
        d->bscale[i] = d->xnn ? bf16_round(f) : f;
    }
    d->acc_slot = gc_ctx_scratch(ctx, n, (size_t)d->K * 4 + 32);      /* >= 2 K + 16 + 4 K / block (qfc4.h) */
    n->data = d;
#ifndef GC_FP64_BUILD
    /* fast path (qfc4.h): int8 weights in panels of 16 units, block scales beside them; the
     * XNNPACK mode sums a block in int32, which holds it while block * 255 * 8 < 2^31 */
    /* fp16 (native, js): the same float sums on the half-rounded scales; not fp16-acc (half sums) */
    if ((ctx->fast || (ctx->fast_float && !ctx->acc16)) && gc_qfc4_level_ok(ctx->isa) && d->block % 8 == 0 &&
        (!d->xnn || d->block < (1 << 20))) {
        gc_qfc4 *f = gc_ctx_alloc(ctx, sizeof *f);
        if (!f) return GC_ERR_NOMEM;
        const int64_t P = (d->N + 15) / 16, NB = d->K / d->block;
        GC_UNSUP(ctx, (uint64_t)P * 16 <= SIZE_MAX / (uint64_t)d->K / sizeof(float), "blockwise weights too large");
        /* TFLite order with finite scales: words of three weights (w3), else the nibbles
         * (w4); qfc4.h */
        bool fin = true;
        for (size_t i = 0; i < nb; i++) fin = fin && isfinite(d->bscale[i]);
        const bool w3 = !d->xnn && fin;
        const int64_t D = (d->block + 2) / 3;
        /* 64-byte aligned: every vector load of a panel is one cache line (a load across two
         * cost the w3 kernel a sixth of its time) */
        uint8_t *w4 = w3 ? NULL : alloc64(ctx, (size_t)(P * 16 * d->K / 2));
        uint32_t *w3w = w3 ? alloc64(ctx, (size_t)(P * NB * D * 16) * sizeof(uint32_t)) : NULL;
        float *sc = alloc64(ctx, (size_t)(P * 16 * NB) * sizeof(float));
        if ((!w4 && !w3w) || !sc) return GC_ERR_NOMEM;
        for (int64_t u = 0; u < d->N; u++) {
            for (int64_t k = 0; k < d->K; k++) {
                size_t i = (size_t)(u * d->K + k);            /* two per byte, low nibble first */
                int v = (i & 1) ? w->data[i / 2] >> 4 : w->data[i / 2] & 15;
                if (w3) {                                     /* w3[p][b][d][16], n = w + 8 */
                    const int64_t b = k / d->block, kk = k % d->block;
                    w3w[(((u / 16) * NB + b) * D + kk / 3) * 16 + u % 16] |=
                        142u << 23 | (uint32_t)((v ^ 8) & 15) << (8 + 4 * (kk % 3));
                    continue;
                }
                uint8_t *word = w4 + ((u / 16) * d->K + k - k % 8) * 8 + (u % 16) * 4;   /* little-endian word */
                word[(k % 8) / 2] |= (uint8_t)(k % 2 ? v << 4 : v);
            }
            for (int64_t b = 0; b < NB; b++) sc[((u / 16) * NB + b) * 16 + u % 16] = d->bscale[u * NB + b];
        }
        *f = (gc_qfc4){ .isa = ctx->isa, .N = d->N, .K = d->K, .B = d->block, .P = P, .nb = NB, .xnn = d->xnn,
                        .lo = d->lo, .hi = d->hi, .w4 = w4, .w3 = w3w, .sc = sc };
        if (d->xnn && gc_q8_level(ctx->isa) == GC_Q8_VNNI) {     /* the block dots by vpdpbusd */
            int32_t *ws = alloc64(ctx, (size_t)(P * 16 * NB) * sizeof(int32_t));
            if (!ws) return GC_ERR_NOMEM;
            for (int64_t u = 0; u < d->N; u++)
                for (int64_t k = 0; k < d->K; k++) {
                    size_t i = (size_t)(u * d->K + k);
                    int v = (i & 1) ? w->data[i / 2] >> 4 : w->data[i / 2] & 15;
                    ws[((u / 16) * NB + k / d->block) * 16 + u % 16] += v >= 8 ? v - 16 : v;
                }
            for (size_t i = 0; i < (size_t)(P * 16 * d->K / 2); i++) w4[i] ^= 0x88;   /* n = w + 8 (qfc4.c) */
            f->vnni = true; f->wsum = ws;
        }
        d->q4 = f;
        n->fast = true;
        n->unread_in = 1u << 1;               /* the packed nibbles: copied */
        return fc_out_shape(ctx, n, d);
    }
#endif
    d->w4 = gc_ctx_alloc(ctx, (size_t)(d->N * d->K));
    if (!d->w4) return GC_ERR_NOMEM;
    for (size_t i = 0; i < (size_t)(d->N * d->K); i++) {     /* two per byte, low nibble first */
        uint8_t byte = w->data[i / 2];
        int v = (i & 1) ? byte >> 4 : byte & 15;
        d->w4[i] = (int8_t)(v >= 8 ? v - 16 : v);
    }
    return fc_out_shape(ctx, n, d);
}

/* XNNPACK's qd8 quantization of one row of x (K values) into qx: range [min(0, min x),
 * max(0, max x)] onto [-128, 127], zero point nudged, scale rounded as float; returns the
 * zero point, *inv = 1 / scale */
#ifdef GC_FP64_BUILD
typedef void gc_qfc4;
#endif
/* q4: the fast path's vector loops (qfc4.h: the same bits), or NULL */
static int32_t qd8_row(const float *xr, int64_t K, int8_t *qx, float *inv, const gc_qfc4 *q4) {
    float mn = 0.0f, mx = 0.0f;
#ifdef GC_FP64_BUILD
    (void)q4;
#else
    if (!q4 || !gc_qfc4_range(q4, xr, &mn, &mx))
#endif
    for (int64_t k = 0; k < K; k++) { if (xr[k] < mn) mn = xr[k]; if (xr[k] > mx) mx = xr[k]; }
    float scale = mn == mx ? 1.0f : 255.0f / (mx - mn);
    float zmin_err = -128.0f + mn * scale, zmax_err = 127.0f + mx * scale;
    float zp = zmin_err + zmax_err > 0 ? -128.0f - mn * scale : 127.0f - mx * scale;
    zp = zp < -128.0f ? -128.0f : zp > 127.0f ? 127.0f : zp;
    if (zp != zp) zp = 0.0f;                  /* Inf in x: no float to int of NaN */
    int32_t izp = (int32_t)rintf(zp);
#ifndef GC_FP64_BUILD
    if (!q4 || !gc_qfc4_quant(q4, xr, scale, izp, qx))
#endif
    for (int64_t k = 0; k < K; k++) {
        float v = rintf(xr[k] * scale) + (float)izp;
        qx[k] = (int8_t)(v < -128.0f ? -128 : v > 127.0f ? 127 : v == v ? v : 0);
    }
    *inv = 1.0f / scale;
    return izp;
}

/* Reference: dequantized weights, float accumulation in k order per output.
 * xnnpack: the row of x is quantized to int8 on the fly as XNNPACK's qd8 does (range
 * [min(0, min x), max(0, max x)] onto [-128, 127], zero point nudged, scale rounded as
 * float), integer dot products per block, each scaled by the bf16 block scale and
 * summed in float, times the input scale. */
typedef struct { gc_ctx *ctx; const fc_data *d; const float *xr; float *yr; const int8_t *qx; int32_t izp; float inv; } bw_job;

/* units [u0, u1) of one row */
static void bw_units(void *arg, int64_t u0, int64_t u1, int wk) {
    (void)wk;
    const bw_job *j = arg;
    const fc_data *d = j->d;
    const int64_t K = d->K, B = d->block, nb = K / B;
    for (int64_t u = u0; u < u1; u++) {
        const int8_t *w = d->w4 + u * K;
        if (!j->qx) {
            const float *sc = d->bscale + u * nb;
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++) acc = gc_racc(j->ctx, acc + gc_racc(j->ctx, j->xr[k] * ((float)w[k] * sc[k / B])));
            j->yr[u] = gc_act_f(acc, d->lo, d->hi);
            continue;
        }
        float acc = 0.0f;
        for (int64_t b = 0; b < nb; b++) {
            int64_t ia = 0;               /* int32 in XNNPACK; the same unless a huge block overflows it */
            for (int64_t k = b * B; k < (b + 1) * B; k++) ia += ((int32_t)j->qx[k] - j->izp) * w[k];
            acc += (float)ia * d->bscale[u * nb + b];
        }
        j->yr[u] = gc_act_f(acc * j->inv, d->lo, d->hi);
    }
}

#ifndef GC_FP64_BUILD
typedef struct { const gc_qfc4 *f; const float *x; const int8_t *qx; int32_t izp; float inv; float *y; } q4_job;

/* items [i0, i1) of GC_QFC4_ITEM panels */
static void q4_items(void *arg, int64_t i0, int64_t i1, int wk) {
    (void)wk;
    const q4_job *j = arg;
    const int64_t p1 = i1 * GC_QFC4_ITEM;
    gc_qfc4_panels(j->f, j->x, j->qx, j->izp, j->inv, j->y, i0 * GC_QFC4_ITEM, p1 < j->f->P ? p1 : j->f->P);
}
#endif

static gc_status blockwise_eval(gc_ctx *ctx, gc_node *n) {
    fc_data *d = n->data;
    const int64_t K = d->K, N = d->N;
#ifndef GC_FP64_BUILD
    if (d->q4) {
        /* items of GC_QFC4_ITEM panels over the threads (qfc4.h: any split, the same bits).
         * Work in float multiply-adds of the TFLite order; the XNNPACK order's int8 dots take
         * about a quarter of that time. Under 2^19 such units in all (about 23 us on one Zen 4
         * core) one thread: qwen's 1024 x 1024 in the XNNPACK order (11-16 us) gained 6% from
         * a second core that was free and lost 18% where it was not (qfc4-2026-12-03.md) */
        const int64_t items = (d->q4->P + GC_QFC4_ITEM - 1) / GC_QFC4_ITEM;
        const double item_work = (double)GC_QFC4_ITEM * 16.0 * (double)K * (d->xnn ? 0.25 : 1.0);
        const int64_t chunk = (double)items * item_work < 524288.0 ? items : gc_ctx_chunk(ctx, items, item_work);
        for (int64_t r = 0; r < d->rows; r++) {
            q4_job j = { d->q4, (const float *)n->in[0]->data + r * K, (int8_t *)n->scratch[d->acc_slot], 0, 1.0f,
                         (float *)n->out[0]->data + r * N };
            if (d->xnn) j.izp = qd8_row(j.x, K, (int8_t *)n->scratch[d->acc_slot], &j.inv, d->q4);
            gc_qfc4_prep(d->q4, j.qx);
            gc_ctx_for(ctx, items, chunk, q4_items, &j);
        }
        return GC_OK;
    }
#endif
    const int64_t chunk = gc_ctx_chunk(ctx, N, (double)K);
    for (int64_t r = 0; r < d->rows; r++) {
        const float *xr = (const float *)n->in[0]->data + r * K;
        float *yr = (float *)n->out[0]->data + r * N;
        bw_job j = { ctx, d, xr, yr, NULL, 0, 0.0f };
        if (!d->xnn) { gc_ctx_for(ctx, N, chunk, bw_units, &j); continue; }
        int8_t *qx = (int8_t *)n->scratch[d->acc_slot];
        float inv;
        int32_t izp = qd8_row(xr, K, qx, &inv, NULL);
        j.qx = qx; j.izp = izp; j.inv = inv;
        gc_ctx_for(ctx, N, chunk, bw_units, &j);
    }
    return GC_OK;
}

/* Hybrid weights (INT8 / INT4 with per-tensor or per-unit scales, zero points 0).
 * fp32: x quantized per row at run time (asymmetric_quantize_inputs: asymmetric, else
 * symmetric; --int-arith xnnpack: XNNPACK's qd8), integer dot products, rescaled as
 * interp/hybrid.h says. fp16 / fp16-acc: the GPU dequantizes constant weights, so the
 * float path runs on w * s rounded to half. */
static gc_status hybrid_prepare(gc_ctx *ctx, gc_node *n, fc_data *d, int act) {
    gc_rt *x = n->in[0], *w = n->in[1], *b = n->n_in > 2 ? n->in[2] : NULL, *y = n->out[0];
    GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32 && (!b || b->dtype == GC_T_FLOAT32), "output and bias must be FLOAT32");
    bool pc, eq;
    GC_TRY(gc_hq_scales(ctx, w, d->N, 0, &d->hs, &pc, &eq));
    gc_act_range_f(act, &d->lo, &d->hi);
    const int64_t K = d->K, N = d->N;
    size_t kn = (size_t)K * (size_t)N;
    bool fresh;
    if (ctx->fp16 || ctx->fp64) {
        d->wt = gc_ctx_derived(ctx, w->data, 23, N, K, kn * sizeof(float), &fresh);
        if (!d->wt) return GC_ERR_NOMEM;
        for (int64_t u = 0; u < N && fresh; u++)
            for (int64_t k = 0; k < K; k++)
                d->wt[k * N + u] = gc_f16_round((float)gc_hq_wget(w, (size_t)(u * K + k)) * d->hs[u]);
        return GC_OK;
    }
    (void)x;
    d->hybrid = true;
    d->hq = ctx->xnn ? GC_HQ_XNNPACK
          : gc_opt_int(gc_opts(n), GC_O_FullyConnectedOptions_asymmetric_quantize_inputs) ? GC_HQ_ASYMMETRIC
          : GC_HQ_SYMMETRIC;
    d->w8 = gc_ctx_derived(ctx, w->data, 22, N, K, kn, &fresh);
    d->rowsum = gc_ctx_alloc(ctx, (size_t)N * sizeof(int32_t));
    if (!d->w8 || !d->rowsum) return GC_ERR_NOMEM;
    for (int64_t u = 0; u < N; u++) {
        int32_t s = 0;
        for (int64_t k = 0; k < K; k++) {
            int8_t v = gc_hq_wget(w, (size_t)(u * K + k));
            if (fresh) d->w8[k * N + u] = v;
            s += v;             /* |sum| <= 128 K: K < 2^24 (checked below) keeps it in int32 */
        }
        d->rowsum[u] = s;
    }
    GC_UNSUP(ctx, K < (1 << 24), "hybrid depth %lld is too large", (long long)K);
    /* every row quantized (rows * K bytes), then its step and zero point per row */
    GC_UNSUP(ctx, d->rows < ((int64_t)1 << 40) / (K + 16), "hybrid input of %lld rows is too large", (long long)d->rows);
    d->q_slot = gc_ctx_scratch(ctx, n, (size_t)(d->rows * (K + 16)) + (size_t)d->rows * 8 + 64);
    return GC_OK;
}

/* int32 accumulators while K * 255 * 128 fits (as TFLite's), int64 beyond; units
 * [u0, u1) of one row */
#define HYB_ROW(ACC_T)                                                                       \
    do {                                                                                     \
        ACC_T *acc = (ACC_T *)accb;                                                          \
        for (int64_t u = u0; u < u1; u++) acc[u - u0] = 0;                                   \
        for (int64_t k = 0; k < K; k++) {                                                    \
            const ACC_T qv = q[k];                                                           \
            const int8_t *w = d->w8 + k * N;                                                 \
            for (int64_t u = u0; u < u1; u++) acc[u - u0] += qv * w[u];                      \
        }                                                                                    \
        for (int64_t u = u0; u < u1; u++) {                                                  \
            float dv = (float)((int64_t)acc[u - u0] - (int64_t)zp * d->rowsum[u]);           \
            float bv = bias ? bias[u] : 0.0f, v;                                             \
            if (d->hq == GC_HQ_XNNPACK) v = fmaf(dv * step, d->hs[u], bv);                  \
            else v = bv + dv * (step * d->hs[u]);                                            \
            yr[u] = gc_act_f(v, d->lo, d->hi);                                               \
        }                                                                                    \
    } while (0)

/* items: (row, block of HYB_UB units); rows quantized first (hq_rows) */
enum { HYB_UB = 512 };
typedef struct { const fc_data *d; const float *x, *bias; float *y; int8_t *q; float *step; int32_t *zp;
                 char *acc; size_t acc_stride; int64_t nub; } hyb_job;

static void hq_rows(void *arg, int64_t r0, int64_t r1, int w) {
    (void)w;
    const hyb_job *j = arg;
    const int64_t K = j->d->K;
    for (int64_t r = r0; r < r1; r++)
        gc_hq_quantize(j->d->hq, j->x + r * K, (size_t)K, j->q + r * (K + 16), &j->step[r], &j->zp[r]);
}

GC_CLONES static void hyb_items(void *arg, int64_t i0, int64_t i1, int wk) {
    const hyb_job *j = arg;
    const fc_data *d = j->d;
    const int64_t K = d->K, N = d->N;
    const float *bias = j->bias;
    char *accb = j->acc + (size_t)wk * j->acc_stride;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t r = i / j->nub, u0 = (i % j->nub) * HYB_UB, u1 = N - u0 < HYB_UB ? N : u0 + HYB_UB;
        const int8_t *q = j->q + r * (K + 16);
        const float step = j->step[r];
        const int32_t zp = j->zp[r];
        float *yr = j->y + r * N;
        if (K <= 65793) HYB_ROW(int32_t);
        else HYB_ROW(int64_t);
    }
}

static gc_status hybrid_eval(gc_ctx *ctx, gc_node *n) {
    fc_data *d = n->data;
    gc_rt *b = n->n_in > 2 ? n->in[2] : NULL;
    const int64_t K = d->K, N = d->N, R = d->rows;
    int8_t *q = (int8_t *)n->scratch[d->q_slot];
    float *step = (float *)(q + ((size_t)(R * (K + 16)) + 15) / 16 * 16);
    hyb_job j = { d, (const float *)n->in[0]->data, b ? (const float *)b->data : NULL, (float *)n->out[0]->data,
                  q, step, (int32_t *)(step + R), (char *)n->scratch[d->acc_slot], acc_stride(N < HYB_UB ? N : HYB_UB),
                  (N + HYB_UB - 1) / HYB_UB };
    gc_ctx_for(ctx, R, gc_ctx_chunk(ctx, R, 4.0 * (double)K), hq_rows, &j);
    const int64_t items = R * j.nub;
    gc_ctx_for(ctx, items, gc_ctx_chunk(ctx, items, (double)K * (double)(N < HYB_UB ? N : HYB_UB)), hyb_items, &j);
    return GC_OK;
}
#undef HYB_ROW

/* the reference FULLY_CONNECTED rows [r0, r1) (float or quantized) on worker w's accumulators */
typedef struct { gc_ctx *ctx; const fc_data *d; const gc_rt *x, *b; gc_rt *y; char *acc; } fc_job;

GC_CLONES static void fc_rows(void *arg, int64_t r0, int64_t r1, int wk) {
    const fc_job *j = arg;
    const fc_data *d = j->d;
    gc_ctx *ctx = j->ctx;
    const gc_rt *x = j->x, *b = j->b;
    gc_rt *y = j->y;
    const int64_t K = d->K, N = d->N;
    if (x->dtype == GC_T_FLOAT32) {
        float *acc = (float *)(j->acc + (size_t)wk * acc_stride(N));
        const float *bias = b ? (const float *)b->data : NULL;
        const gc_f16_acc fa = mm_acc(ctx, false, d->rows, K, N);
        const bool a16 = fa == GC_ACC_F16, slice = fa == GC_ACC_SLICE;
        float *part = acc + N;                   /* SLICE, K16H: the partial sums; H2FMA: lane B */
        for (int64_t r = r0; r < r1; r++) {
            const float *xr = (const float *)x->data + r * K;
            for (int64_t u = 0; u < N; u++) acc[u] = 0.0f;
            if (fa == GC_ACC_K16H) {
                for (int64_t k0 = 0; k0 < K; k0 += 16) {
                    for (int64_t u = 0; u < N; u++) part[u] = 0.0f;
                    for (int64_t k = k0; k < k0 + 16 && k < K; k++) {
                        const float xv = xr[k], *w = d->wt + k * N;
                        for (int64_t u = 0; u < N; u++) part[u] += xv * w[u];
                    }
                    gc_f16_flush_n(acc, part, (size_t)N);
                }
            } else if (fa == GC_ACC_H2FMA) {
                for (int64_t u = 0; u < N; u++) part[u] = 0.0f;
                for (int64_t k = 0; k < K; k++) gc_f16_fma_n(k % 2 ? part : acc, xr[k], d->wt + k * N, (size_t)N);
                gc_f16_flush_n(acc, part, (size_t)N);
            } else if (slice) {
                for (int64_t k0 = 0; k0 < K; k0 += 4) {
                    for (int64_t u = 0; u < N; u++) part[u] = 0.0f;
                    for (int64_t k = k0; k < k0 + 4 && k < K; k++) gc_f16_madd_n(part, xr[k], d->wt + k * N, (size_t)N);
                    for (int64_t u = 0; u < N; u++) acc[u] += part[u];
                }
            } else
            for (int64_t k = 0; k < K; k++) {
                const float xv = xr[k], *w = d->wt + k * N;
                if (a16) gc_f16_madd_n(acc, xv, w, (size_t)N);
                else if (ctx->fma) for (int64_t u = 0; u < N; u++) acc[u] = fmaf(xv, w[u], acc[u]);
                else for (int64_t u = 0; u < N; u++) acc[u] += xv * w[u];
            }
            float *yr = (float *)y->data + r * N;
            for (int64_t u = 0; u < N; u++) {
                float v = acc[u] + (bias ? bias[u] : 0.0f);
                yr[u] = gc_act_f(a16 ? gc_f16_round(v) : v, d->lo, d->hi);
            }
        }
        return;
    }
    int64_t *acc = (int64_t *)(j->acc + (size_t)wk * acc_stride(N));
    int dt = x->dtype;
    for (int64_t r = r0; r < r1; r++) {
        for (int64_t u = 0; u < N; u++) acc[u] = 0;
        for (int64_t k = 0; k < K; k++) {
            int32_t xv = gc_qget(dt, x->data, (size_t)(r * K + k)) + d->x_off;
            const int32_t *w = d->wq + k * N;
            for (int64_t u = 0; u < N; u++) acc[u] += (int64_t)xv * w[u];
        }
        for (int64_t u = 0; u < N; u++) {
            int64_t a;
            if (__builtin_add_overflow(acc[u], b ? gc_get_int(b, (size_t)u) : 0, &a)) a = acc[u] > 0 ? INT64_MAX : INT64_MIN;
            if (a > ((int64_t)1 << 47)) a = (int64_t)1 << 47;    /* keeps the 64-bit rescale in range; */
            if (a < -((int64_t)1 << 47)) a = -((int64_t)1 << 47); /* no real accumulator gets there */
            if (d->xnn) { gc_qset(dt, y->data, (size_t)(r * N + u), gc_q_xnn((int32_t)a, d->qf[u], d->y_off, d->qlo, d->qhi)); continue; }
            int32_t v = dt == GC_T_INT16 ? gc_q_mul64(a, d->qm[u], d->qs[u]) : gc_q_mul((int32_t)a, d->qm[u], d->qs[u]);
            gc_qset(dt, y->data, (size_t)(r * N + u), gc_clamp_i32((int64_t)v + d->y_off, d->qlo, d->qhi));
        }
    }
}

static gc_status fc_eval(gc_ctx *ctx, gc_node *n) {
    fc_data *d = n->data;
    if (d->blockwise) return blockwise_eval(ctx, n);
    if (d->hybrid) return hybrid_eval(ctx, n);
    gc_rt *x = n->in[0], *b = n->n_in > 2 ? n->in[2] : NULL, *y = n->out[0];
    const int64_t K = d->K, N = d->N;
    if (x->dtype == GC_T_FLOAT32) {
#ifndef GC_FP64_BUILD
        if (d->pb) {
            if (d->runtime_w) gc_gemm_pack_nk(d->pb, (const float *)n->in[1]->data, K);
            d->pb->store = ctx->store;
            gemm_split(ctx, d->pb, d->pbias, d->lo, d->hi, (const float *)x->data, K, (float *)y->data, N, d->rows,
                       d->apack_slot >= 0 ? (float *)n->scratch[d->apack_slot] : NULL);
            return GC_OK;
        }
#endif
        if (d->runtime_w) {
            const float *ws = (const float *)n->in[1]->data;
            for (int64_t u = 0; u < N; u++)
                for (int64_t k = 0; k < K; k++) d->wt[k * N + u] = ws[u * K + k];
        }
    }
#ifndef GC_FP64_BUILD
    if (d->q8) { gc_q8_eval(ctx, n, d->q8, x->data, y->data); return GC_OK; }
#endif
    fc_job j = { ctx, d, x, b, y, (char *)n->scratch[d->acc_slot] };
    gc_ctx_for(ctx, d->rows, gc_ctx_chunk(ctx, d->rows, (double)K * (double)N), fc_rows, &j);
    return GC_OK;
}

/* ---- BATCH_MATMUL ------------------------------------------------------------------------ */

typedef struct {
    int rank;                                   /* of the output */
    int32_t bshape[GC_MAX_RANK];                /* batch dims of the output */
    int64_t sa[GC_MAX_RANK], sb[GC_MAX_RANK];   /* batch strides in matrices (0 = broadcast) */
    int64_t nbatch, M, K, N;
    bool adj_x, adj_y;
    int32_t qm; int qs; int32_t a_off, b_off, y_off, qlo, qhi;
    int bt_slot, acc_slot;
    /* hybrid: float a, constant INT8 / INT4 b */
    bool hybrid;
    int hq;
    int8_t *b8;                 /* every matrix of b as [K][N] */
    int32_t *rowsum;            /* per matrix of b and column n: sum over k */
    gc_f32 *hs;                 /* per column scale */
    int q_slot, row_slot;
    const float *bf;            /* fp16 modes: b dequantized (the float path reads it) */
#ifndef GC_FP64_BUILD
    /* fast path (ctx->fast_float: fp32 and the fp16 modes; gemm_f32.h, bit-identical) */
    gc_gemm_b *pb;              /* layout of one matrix of b; NULL: the reference loops */
    float *pconst;              /* constant b: every matrix packed at prepare, pstride floats apart */
    size_t pstride;
    int pk_slot, at_slot;       /* scratch: b packed per eval; a transposed (adj_x) */
    float *wmconst;             /* constant b, half modes' quick tiles (pb->ksq): max |w| per matrix */
    int wm_slot;                /* scratch: the same per eval for b packed per eval (pb->ksq), or -1 */
    int apack_slot;             /* scratch: each worker's copy of a row tile (gemm_f32.h), or -1 */
    struct gc_q8bmm *q8b;       /* int8 fast path (qconv8.h), else NULL */
#endif
} bmm_data;

/* Hybrid BATCH_MATMUL (TFLite batch_matmul.cc EvalHybrid): each row of a (K values, after
 * adj_x) is quantized (asymmetric_quantize_inputs: asymmetric, else symmetric; --int-arith
 * xnnpack: XNNPACK's qd8), out = (float)acc * (s_x s_b[n]) (XNNPACK: (acc s_x) s_b[n]).
 * b's scales: one, or one per output column (quantized along b's N dimension).
 * fp16 / fp16-acc: the float path on b dequantized and rounded to half. */
static gc_status bmm_hybrid_prepare(gc_ctx *ctx, gc_node *n, bmm_data *d) {
    gc_rt *b = n->in[1], *y = n->out[0];
    GC_ENSURE(ctx, y->dtype == GC_T_FLOAT32, "output must be FLOAT32");
    GC_ENSURE(ctx, b->known, "hybrid BATCH_MATMUL needs a constant right-hand side");
    bool pc, eq;
    GC_TRY(gc_hq_scales(ctx, b, d->N, d->adj_y ? b->rank - 2 : b->rank - 1, &d->hs, &pc, &eq));
    const int64_t K = d->K, N = d->N;
    GC_ENSURE(ctx, K > 0 && N > 0 && gc_numel(b) % (uint64_t)(K * N) == 0, "right-hand side of %llu elements is not "
              "a set of [%lld, %lld] matrices", (unsigned long long)gc_numel(b), (long long)K, (long long)N);
    GC_UNSUP(ctx, K < (1 << 24), "hybrid depth %lld is too large", (long long)K);
    const int64_t nm = (int64_t)(gc_numel(b) / (uint64_t)(K * N));
    size_t total = (size_t)nm * (size_t)K * (size_t)N;
    if (ctx->fp16 || ctx->fp64) {          /* dequantize into a FLOAT32 copy of b the float path reads */
        float *f = gc_ctx_alloc(ctx, total * sizeof(float));
        if (!f) return GC_ERR_NOMEM;
        for (size_t i = 0; i < total; i++) {
            size_t col = d->adj_y ? (i / (size_t)K) % (size_t)N : i % (size_t)N;
            f[i] = gc_f16_round((float)gc_hq_wget(b, i) * d->hs[col]);
        }
        d->bf = f;
        return GC_OK;
    }
    d->hybrid = true;
    d->hq = ctx->xnn ? GC_HQ_XNNPACK
          : gc_opt_int(gc_opts(n), GC_O_BatchMatMulOptions_asymmetric_quantize_inputs) ? GC_HQ_ASYMMETRIC
          : GC_HQ_SYMMETRIC;
    d->b8 = gc_ctx_alloc(ctx, total);
    d->rowsum = gc_ctx_alloc(ctx, (size_t)nm * (size_t)N * sizeof(int32_t));
    if (!d->b8 || !d->rowsum) return GC_ERR_NOMEM;
    for (int64_t m = 0; m < nm; m++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t j = 0; j < N; j++) {
                size_t src = (size_t)(m * K * N) + (size_t)(d->adj_y ? j * K + k : k * N + j);
                int8_t v = gc_hq_wget(b, src);
                d->b8[(size_t)(m * K * N + k * N + j)] = v;
                d->rowsum[m * N + j] += v;
            }
    const size_t nt = (size_t)ctx->threads;        /* one of each per worker */
    d->q_slot = gc_ctx_scratch(ctx, n, ((size_t)K + 64) * nt);
    d->row_slot = gc_ctx_scratch(ctx, n, ((size_t)K * sizeof(float) + 64) * nt);
    d->acc_slot = gc_ctx_scratch(ctx, n, acc_stride(N) * nt);
    return GC_OK;
}

/* The matrices of a / b the output batch bi reads (batch dims broadcast). */
static void bmm_batch(const bmm_data *d, int64_t bi, int64_t *oa, int64_t *ob) {
    *oa = 0; *ob = 0;
    for (int k = d->rank - 3; k >= 0; k--) {
        int64_t i = bi % d->bshape[k];
        bi /= d->bshape[k];
        *oa += i * d->sa[k]; *ob += i * d->sb[k];
    }
}


/* rows (batch bi, row i) of a hybrid BATCH_MATMUL, item = bi * M + i, on worker w's scratch */
typedef struct { const bmm_data *d; gc_node *n; } bmm_hjob;

GC_CLONES static void bmm_hybrid_rows(void *arg, int64_t r0, int64_t r1, int wk) {
    const bmm_hjob *j = arg;
    const bmm_data *d = j->d;
    gc_node *n = j->n;
    gc_rt *a = n->in[0], *y = n->out[0];
    const int64_t M = d->M, K = d->K, N = d->N;
    int8_t *q = (int8_t *)n->scratch[d->q_slot] + (size_t)wk * ((size_t)K + 64);
    float *row = (float *)((char *)n->scratch[d->row_slot] + (size_t)wk * ((size_t)K * sizeof(float) + 64));
    char *accb = (char *)n->scratch[d->acc_slot] + (size_t)wk * acc_stride(N);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t bi = r / M, i = r % M;
        int64_t oa, ob;
        bmm_batch(d, bi, &oa, &ob);
        const float *as = (const float *)a->data + oa * M * K;
        const int8_t *bm = d->b8 + ob * K * N;
        const int32_t *rs = d->rowsum + ob * N;
        const float *xr = as + i * K;
        if (d->adj_x) { for (int64_t k = 0; k < K; k++) row[k] = as[k * M + i]; xr = row; }
        float step; int32_t zp;
        gc_hq_quantize(d->hq, xr, (size_t)K, q, &step, &zp);
        float *yr = (float *)y->data + (bi * M + i) * N;
        if (K <= 65793) {
            int32_t *acc = (int32_t *)accb;
            for (int64_t jn = 0; jn < N; jn++) acc[jn] = 0;
            for (int64_t k = 0; k < K; k++) {
                const int32_t qv = q[k];
                const int8_t *w = bm + k * N;
                for (int64_t jn = 0; jn < N; jn++) acc[jn] += qv * w[jn];
            }
            for (int64_t jn = 0; jn < N; jn++) {
                float dv = (float)((int64_t)acc[jn] - (int64_t)zp * rs[jn]);
                yr[jn] = d->hq == GC_HQ_XNNPACK ? (dv * step) * d->hs[jn] : 0.0f + (step * d->hs[jn]) * dv;
            }
        } else {
            int64_t *acc = (int64_t *)accb;
            for (int64_t jn = 0; jn < N; jn++) acc[jn] = 0;
            for (int64_t k = 0; k < K; k++) {
                const int64_t qv = q[k];
                const int8_t *w = bm + k * N;
                for (int64_t jn = 0; jn < N; jn++) acc[jn] += qv * w[jn];
            }
            for (int64_t jn = 0; jn < N; jn++) {
                float dv = (float)(acc[jn] - (int64_t)zp * rs[jn]);
                yr[jn] = d->hq == GC_HQ_XNNPACK ? (dv * step) * d->hs[jn] : 0.0f + (step * d->hs[jn]) * dv;
            }
        }
    }
}

static gc_status bmm_hybrid_eval(gc_ctx *ctx, gc_node *n) {
    bmm_data *d = n->data;
    bmm_hjob j = { d, n };
    const int64_t rows = d->nbatch * d->M;
    gc_ctx_for(ctx, rows, gc_ctx_chunk(ctx, rows, (double)d->K * (double)d->N), bmm_hybrid_rows, &j);
    return GC_OK;
}

#ifndef GC_FP64_BUILD
/* fp32: b laid out for gemm_f32.h, packed at prepare when constant, else at each eval
 * (once per distinct matrix in a row of batches); a transposed to [M][K] first with adj_x. */
static gc_status bmm_fast_prepare(gc_ctx *ctx, gc_node *n, bmm_data *d) {
    gc_rt *b = n->in[1];
    if (!ctx->fast_float || d->M <= 0 || d->K <= 0 || d->N <= 0) return GC_OK;
    GC_UNSUP(ctx, d->K <= INT32_MAX && d->N <= INT32_MAX, "matrices [%lld, %lld] out of range", (long long)d->K, (long long)d->N);
    gc_gemm_b *pb = gc_ctx_alloc(ctx, sizeof *pb);
    if (!pb) return GC_ERR_NOMEM;
    /* fp16: bmm_eval's sums (fp16-acc and GC_ACC_F16: every step in half; GC_ACC_K16H;
     * GC_ACC_H2FMA) */
    const gc_f16_acc fa = mm_acc(ctx, true, d->M, d->K, d->N);
    if (fa == GC_ACC_SLICE) return GC_OK;
    const gc_gemm_mode mode = fa == GC_ACC_F16 ? GC_GEMM_H16 : fa == GC_ACC_K16H ? GC_GEMM_K16H
                            : fa == GC_ACC_H2FMA ? GC_GEMM_H2FMA : ctx->fma ? GC_GEMM_F32_FMA : GC_GEMM_F32;
    size_t nf = gc_gemm_b_layout_mode(pb, (gc_isa)ctx->isa, mode, 1, (int32_t)d->K, (int32_t)d->N);
    GC_UNSUP(ctx, nf > 0, "right-hand side [%lld, %lld] is too large to pack", (long long)d->K, (long long)d->N);
    d->pstride = nf - 16;                  /* one matrix's panels (a multiple of the alignment) */
    if (b->known) {
        uint64_t nm = gc_numel(b) / (uint64_t)(d->K * d->N);
        GC_UNSUP(ctx, nm >= 1 && nm <= (SIZE_MAX / sizeof(float) - 16) / d->pstride, "right-hand side too large to pack");
        bool fresh;
        float *mem = gc_ctx_derived(ctx, b->data, 66 + ctx->isa + (d->adj_y ? 3 : 0) + 100 * mode, d->K, d->N,
                                    ((size_t)nm * d->pstride + 16) * sizeof(float), &fresh);
        if (!mem) return GC_ERR_NOMEM;
        gc_gemm_b_bind(pb, mem);
        d->pconst = pb->w;
        const float *bs = (const float *)b->data;
        if (pb->ksq) {
            d->wmconst = gc_ctx_alloc(ctx, (size_t)nm * sizeof(float));
            if (!d->wmconst) return GC_ERR_NOMEM;
        }
        for (uint64_t m = 0; m < nm; m++) {
            gc_gemm_b one = *pb;
            one.w = d->pconst + m * d->pstride;
            if (!fresh) { if (pb->ksq) gc_gemm_b_note_range(&one); }     /* packed before: its range */
            else if (d->adj_y) gc_gemm_pack_nk(&one, bs + m * (uint64_t)(d->K * d->N), d->K);
            else gc_gemm_pack_kn(&one, bs + m * (uint64_t)(d->K * d->N));
            if (pb->ksq) d->wmconst[m] = one.wmax;
        }
    } else {                               /* every matrix of b packed at each eval */
        uint64_t nm = gc_numel(b) / (uint64_t)(d->K * d->N);
        GC_UNSUP(ctx, nm >= 1 && nm <= (((uint64_t)1 << 40) / sizeof(float)) / d->pstride, "right-hand side too large to pack");
        d->pk_slot = gc_ctx_scratch(ctx, n, ((size_t)nm * d->pstride + 16) * sizeof(float));
        if (d->pk_slot < 0) return GC_ERR_NOMEM;
    }
    d->wm_slot = -1;
    if (pb->ksq && !d->pconst) {           /* each matrix's max |w|, noted when it is packed */
        d->wm_slot = gc_ctx_scratch(ctx, n, (size_t)(gc_numel(b) / (uint64_t)(d->K * d->N)) * sizeof(float));
        if (d->wm_slot < 0) return GC_ERR_NOMEM;
    }
    d->at_slot = -1;
    if (d->adj_x) {                        /* every matrix of a transposed at each eval */
        d->at_slot = gc_ctx_scratch(ctx, n, (size_t)gc_numel(n->in[0]) * sizeof(float) + 16);
        if (d->at_slot < 0) return GC_ERR_NOMEM;
    }
    d->pb = pb;
    d->apack_slot = -1;
    const size_t ap = gc_gemmf_apack_floats(pb, d->K);
    if (ap) {
        d->apack_slot = gc_ctx_scratch(ctx, n, ap * sizeof(float) * (size_t)ctx->threads);
        if (d->apack_slot < 0) return GC_ERR_NOMEM;
    }
    n->fast = true;
    n->own_store = ctx->fp16;                      /* bmm_fast_eval rounds the row tiles (ctx->store) */
    if (d->pconst) n->unread_in = 1u << 1;         /* b: packed at prepare */
    return GC_OK;
}

/* fp32 BATCH_MATMUL: b's matrices packed (constant: at prepare; else here, one item per
 * matrix), a's transposed with adj_x, then one range of (batch, row tile) items */
typedef struct { const bmm_data *d; const float *a, *b; float *at, *pk; float *y; int64_t tiles; float *apack;
                 float *wm; /* per matrix of b: max |w| (pb->ksq), else NULL */ } bmm_job;

static void bmm_pack_run(void *arg, int64_t m0, int64_t m1, int w) {
    (void)w;
    const bmm_job *j = arg;
    const bmm_data *d = j->d;
    for (int64_t m = m0; m < m1; m++) {
        gc_gemm_b one = *d->pb;
        one.w = j->pk + (size_t)m * d->pstride;
        const float *bs = j->b + m * d->K * d->N;
        if (d->adj_y) gc_gemm_pack_nk(&one, bs, d->K);
        else gc_gemm_pack_kn(&one, bs);
        if (j->wm) j->wm[m] = one.wmax;            /* (the pack functions note it) */
    }
}

static void bmm_transpose_run(void *arg, int64_t m0, int64_t m1, int w) {
    (void)w;
    const bmm_job *j = arg;
    const int64_t M = j->d->M, K = j->d->K;
    for (int64_t m = m0; m < m1; m++) {       /* a is [K][M]: rows of [M][K] */
        const float *as = j->a + m * M * K;
        float *t = j->at + m * M * K;
        for (int64_t i = 0; i < M; i++)
            for (int64_t k = 0; k < K; k++) t[i * K + k] = as[k * M + i];
    }
}

static void bmm_tiles_run(void *arg, int64_t i0, int64_t i1, int w) {
    const bmm_job *j = arg;
    const bmm_data *d = j->d;
    const int64_t M = d->M, K = d->K, N = d->N;
    float *apack = j->apack ? j->apack + (size_t)w * gc_gemmf_apack_floats(d->pb, K) : NULL;
    for (int64_t i = i0; i < i1;) {
        const int64_t bi = i / j->tiles, t0 = i % j->tiles;
        const int64_t t1 = i1 - (i - t0) < j->tiles ? i1 - (i - t0) : j->tiles;
        int64_t oa, ob;
        bmm_batch(d, bi, &oa, &ob);
        gc_gemm_b pb = *d->pb;
        pb.w = j->pk + (size_t)ob * d->pstride;
        pb.wmax = j->wm ? j->wm[ob] : INFINITY;    /* this matrix's max |w| (half modes' quick tiles) */
        gc_gemmf_run(&pb, NULL, -INFINITY, INFINITY, j->a + oa * M * K, K, j->y + bi * M * N, N, M, t0, t1, apack);
        i += t1 - t0;
    }
}

static void bmm_fast_eval(gc_ctx *ctx, gc_node *n, bmm_data *d) {
    gc_rt *a = n->in[0], *b = n->in[1], *y = n->out[0];
    const int64_t M = d->M, K = d->K, N = d->N;
    d->pb->store = ctx->store;                 /* fp16: the row tiles rounded as stored (n->own_store) */
    bmm_job j = { d, (const float *)a->data, (const float *)b->data, NULL, d->pconst, (float *)y->data,
                  gc_gemmf_tiles(d->pb, M), d->apack_slot >= 0 ? (float *)n->scratch[d->apack_slot] : NULL,
                  d->pconst ? d->wmconst : d->wm_slot >= 0 ? (float *)n->scratch[d->wm_slot] : NULL };
    if (!d->pconst) {
        gc_gemm_b al = *d->pb;
        gc_gemm_b_bind(&al, (float *)n->scratch[d->pk_slot]);
        j.pk = al.w;
        int64_t nm = (int64_t)(gc_numel(b) / (uint64_t)(K * N));
        gc_ctx_for(ctx, nm, gc_ctx_chunk(ctx, nm, 2.0 * (double)(K * N)), bmm_pack_run, &j);
    }
    if (d->adj_x) {
        j.at = (float *)n->scratch[d->at_slot];
        int64_t nm = (int64_t)(gc_numel(a) / (uint64_t)(M * K));
        gc_ctx_for(ctx, nm, gc_ctx_chunk(ctx, nm, 2.0 * (double)(M * K)), bmm_transpose_run, &j);
        j.a = j.at;
    }
    const int64_t items = d->nbatch * j.tiles;
    double work = (double)M * K * N / (double)(j.tiles ? j.tiles : 1);
    gc_ctx_for(ctx, items, gc_ctx_chunk(ctx, items, work), bmm_tiles_run, &j);
}
#endif

static gc_status bmm_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_opt_expect(ctx, n, GC_BO_BatchMatMulOptions));
    GC_TRY(gc_check_arity(ctx, n, 2, 2, 1));
    gc_rt *a = n->in[0], *b = n->in[1], *y = n->out[0];
    GC_ENSURE(ctx, a->rank >= 2 && b->rank >= 2, "inputs must have rank >= 2");
    bmm_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    d->adj_x = gc_opt_int(gc_opts(n), GC_O_BatchMatMulOptions_adj_x) != 0;
    d->adj_y = gc_opt_int(gc_opts(n), GC_O_BatchMatMulOptions_adj_y) != 0;
    int32_t am = a->shape[a->rank - 2], ak = a->shape[a->rank - 1];
    int32_t bk = b->shape[b->rank - 2], bn = b->shape[b->rank - 1];
    if (d->adj_x) { int32_t t = am; am = ak; ak = t; }
    if (d->adj_y) { int32_t t = bk; bk = bn; bn = t; }
    GC_ENSURE(ctx, ak == bk, "inner dimensions differ: %d vs %d", (int)ak, (int)bk);
    d->M = am; d->K = ak; d->N = bn;
    gc_rt ba = { .rank = a->rank - 2 }, bb = { .rank = b->rank - 2 };
    memcpy(ba.shape, a->shape, sizeof ba.shape); memcpy(bb.shape, b->shape, sizeof bb.shape);
    int r; int32_t shp[GC_MAX_RANK];
    GC_ENSURE(ctx, gc_bcast_shape(&ba, &bb, &r, shp), "batch dims do not broadcast");
    GC_ENSURE(ctx, r + 2 <= GC_MAX_RANK, "rank too high");
    gc_bcast_strides(&ba, r, shp, d->sa);
    gc_bcast_strides(&bb, r, shp, d->sb);
    d->nbatch = 1;
    for (int i = 0; i < r; i++) { d->bshape[i] = shp[i]; d->nbatch *= shp[i]; }
    d->rank = r + 2;
    shp[r] = (int32_t)d->M; shp[r + 1] = (int32_t)d->N;
    if (a->dtype == GC_T_FLOAT32 && gc_hq_is_weight(b)) {
        GC_TRY(bmm_hybrid_prepare(ctx, n, d));
        if (d->hybrid) { n->data = d; return gc_set_shape(ctx, y, d->rank, shp); }
    } else if (a->dtype == GC_T_FLOAT32) {
        GC_ENSURE(ctx, b->dtype == GC_T_FLOAT32 && y->dtype == GC_T_FLOAT32, "mixed types");
#ifndef GC_FP64_BUILD
        GC_TRY(bmm_fast_prepare(ctx, n, d));
#endif
    } else {
        GC_UNSUP(ctx, a->dtype == GC_T_INT8 && b->dtype == GC_T_INT8 && y->dtype == GC_T_INT8,
                 "BATCH_MATMUL on %s x %s -> %s", gc_type_name(a->dtype), gc_type_name(b->dtype), gc_type_name(y->dtype));
        GC_ENSURE(ctx, a->scale > 0 && b->scale > 0 && y->scale > 0, "quantized BATCH_MATMUL needs scales");
        gc_q_multiplier((double)a->scale * (double)b->scale / (double)y->scale, &d->qm, &d->qs);
        d->a_off = -a->zp; d->b_off = -b->zp; d->y_off = y->zp;
        gc_qrange(y->dtype, &d->qlo, &d->qhi);
#ifndef GC_FP64_BUILD
        if (a->zp >= -128 && a->zp <= 127 && b->zp >= -128 && b->zp <= 127)
            GC_TRY(gc_q8bmm_prepare(ctx, n, d->M, d->K, d->N, d->adj_x, d->adj_y, a->zp, b->zp, y->zp, d->qm, d->qs, &d->q8b));
        if (d->q8b) { n->data = d; return gc_set_shape(ctx, y, d->rank, shp); }
#endif
    }
#ifndef GC_FP64_BUILD
    if (!d->pb)
#endif
    {
        /* every matrix of b as [K][N] (float, which is double in the fp64 build, or int32),
         * one accumulator row per worker */
        d->bt_slot = gc_ctx_scratch(ctx, n, (size_t)gc_numel(b) * (b->dtype == GC_T_FLOAT32 ? sizeof(float) : sizeof(int32_t)) + 64);
        d->acc_slot = gc_ctx_scratch(ctx, n, acc_stride(d->N) * (size_t)ctx->threads);
    }
    n->data = d;
    return gc_set_shape(ctx, y, d->rank, shp);
}

/* The reference BATCH_MATMUL: b's matrices laid out [K][N] once per eval (float, or
 * int32 minus the zero point), then rows (batch bi, row i), item = bi * M + i. */
typedef struct { gc_ctx *ctx; const bmm_data *d; gc_node *n; } bmm_rjob;

static void bmm_ref_layout(void *arg, int64_t m0, int64_t m1, int wk) {
    (void)wk;
    const bmm_rjob *j = arg;
    const bmm_data *d = j->d;
    gc_node *n = j->n;
    const int64_t K = d->K, N = d->N;
    for (int64_t m = m0; m < m1; m++) {
        if (n->in[0]->dtype == GC_T_FLOAT32) {
            const float *bs = (d->bf ? d->bf : (const float *)n->in[1]->data) + m * K * N;
            float *bt = (float *)n->scratch[d->bt_slot] + m * K * N;
            for (int64_t k = 0; k < K; k++)
                for (int64_t jn = 0; jn < N; jn++) bt[k * N + jn] = d->adj_y ? bs[jn * K + k] : bs[k * N + jn];
        } else {
            const int8_t *bs = (const int8_t *)n->in[1]->data + m * K * N;
            int32_t *bt = (int32_t *)n->scratch[d->bt_slot] + m * K * N;
            for (int64_t k = 0; k < K; k++)
                for (int64_t jn = 0; jn < N; jn++) bt[k * N + jn] = (d->adj_y ? bs[jn * K + k] : bs[k * N + jn]) + d->b_off;
        }
    }
}

GC_CLONES static void bmm_ref_rows(void *arg, int64_t r0, int64_t r1, int wk) {
    const bmm_rjob *j = arg;
    const bmm_data *d = j->d;
    gc_ctx *ctx = j->ctx;
    gc_node *n = j->n;
    gc_rt *a = n->in[0], *y = n->out[0];
    const int64_t M = d->M, K = d->K, N = d->N;
    const gc_f16_acc fa = mm_acc(ctx, true, M, K, N);
    const bool a16 = fa == GC_ACC_F16;
    char *accb = (char *)n->scratch[d->acc_slot] + (size_t)wk * acc_stride(N);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t bi = r / M, i = r % M;
        int64_t oa, ob;
        bmm_batch(d, bi, &oa, &ob);
        if (a->dtype == GC_T_FLOAT32) {
            const float *bt = (const float *)n->scratch[d->bt_slot] + ob * K * N;
            const float *as = (const float *)a->data + oa * M * K;
            float *acc = (float *)accb, *part = acc + N;  /* K16H: the chunk's sums; H2FMA: lane B */
            for (int64_t jn = 0; jn < N; jn++) acc[jn] = 0.0f;
            if (fa == GC_ACC_K16H || fa == GC_ACC_H2FMA)    /* (never in the fp64 build: 8 N bytes) */
                for (int64_t jn = 0; jn < N; jn++) part[jn] = 0.0f;
            for (int64_t k = 0; k < K; k++) {
                const float av = d->adj_x ? as[k * M + i] : as[i * K + k], *w = bt + k * N;
                if (fa == GC_ACC_K16H) {
                    for (int64_t jn = 0; jn < N; jn++) part[jn] += av * w[jn];
                    if (k % 16 == 15 || k == K - 1) {
                        gc_f16_flush_n(acc, part, (size_t)N);
                        for (int64_t jn = 0; jn < N; jn++) part[jn] = 0.0f;
                    }
                } else if (fa == GC_ACC_H2FMA) gc_f16_fma_n(k % 2 ? part : acc, av, w, (size_t)N);
                else if (a16) gc_f16_madd_n(acc, av, w, (size_t)N);
                else if (ctx->fma) for (int64_t jn = 0; jn < N; jn++) acc[jn] = fmaf(av, w[jn], acc[jn]);
                else for (int64_t jn = 0; jn < N; jn++) acc[jn] += av * w[jn];
            }
            if (fa == GC_ACC_H2FMA) gc_f16_flush_n(acc, part, (size_t)N);
            float *ys = (float *)y->data + (bi * M + i) * N;
            for (int64_t jn = 0; jn < N; jn++) ys[jn] = acc[jn];
        } else {
            const int32_t *bt = (const int32_t *)n->scratch[d->bt_slot] + ob * K * N;
            const int8_t *as = (const int8_t *)a->data + oa * M * K;
            int64_t *acc = (int64_t *)accb;
            for (int64_t jn = 0; jn < N; jn++) acc[jn] = 0;
            for (int64_t k = 0; k < K; k++) {
                int32_t av = (d->adj_x ? as[k * M + i] : as[i * K + k]) + d->a_off;
                for (int64_t jn = 0; jn < N; jn++) acc[jn] += (int64_t)av * bt[k * N + jn];
            }
            int8_t *ys = (int8_t *)y->data + (bi * M + i) * N;
            for (int64_t jn = 0; jn < N; jn++)
                ys[jn] = (int8_t)gc_clamp_i32((int64_t)gc_q_mul((int32_t)acc[jn], d->qm, d->qs) + d->y_off, d->qlo, d->qhi);
        }
    }
}

static gc_status bmm_eval(gc_ctx *ctx, gc_node *n) {
    bmm_data *d = n->data;
    if (d->hybrid) return bmm_hybrid_eval(ctx, n);
#ifndef GC_FP64_BUILD
    if (d->pb) { bmm_fast_eval(ctx, n, d); return GC_OK; }
#endif
#ifndef GC_FP64_BUILD
    if (d->q8b) {                               /* int8: the fast kernels per pair of matrices */
        gc_rt *a = n->in[0], *b = n->in[1], *y = n->out[0];
        const int64_t M = d->M, K = d->K, N = d->N;
        int32_t idx[GC_MAX_RANK] = { 0 };
        const int br = d->rank - 2;
        for (int64_t bi = 0; bi < d->nbatch; bi++) {
            int64_t oa = 0, ob = 0;
            for (int k = 0; k < br; k++) { oa += idx[k] * d->sa[k]; ob += idx[k] * d->sb[k]; }
            gc_q8bmm_eval(ctx, n, d->q8b, (const int8_t *)a->data + oa * M * K, (const int8_t *)b->data + ob * K * N,
                          (int8_t *)y->data + bi * M * N);
            for (int k = br - 1; k >= 0; k--) { if (++idx[k] < d->bshape[k]) break; idx[k] = 0; }
        }
        return GC_OK;
    }
#endif
    bmm_rjob j = { ctx, d, n };
    const int64_t K = d->K, N = d->N;
    int64_t nm = K > 0 && N > 0 ? (int64_t)(gc_numel(n->in[1]) / (uint64_t)(K * N)) : 0;
    gc_ctx_for(ctx, nm, gc_ctx_chunk(ctx, nm, 2.0 * (double)(K * N)), bmm_ref_layout, &j);
    const int64_t rows = d->nbatch * d->M;
    gc_ctx_for(ctx, rows, gc_ctx_chunk(ctx, rows, (double)K * (double)N), bmm_ref_rows, &j);
    return GC_OK;
}

const gc_kernel GC_K(gc_k_fully_connected) = { "FULLY_CONNECTED", fc_prepare, fc_eval, 0 };
const gc_kernel GC_K(gc_k_batch_matmul) = { "BATCH_MATMUL", bmm_prepare, bmm_eval, 0 };
