/* flops.c — the arithmetic a model asks for: multiply-accumulates (MACs) of its
 * matrix-like ops, counted from the static shapes in the file (nothing is run, no
 * weight is read). One MAC = one multiply and one add, so FLOPs = 2 x MACs.
 *
 * Per op (NHWC layouts as TFLite stores them; numel = product of the dims):
 *   CONV_2D            filter [OC, KH, KW, IC/groups]   MACs = numel(out) * KH*KW*(IC/groups)
 *   DEPTHWISE_CONV_2D  filter [1, KH, KW, OC]           MACs = numel(out) * KH*KW
 *   TRANSPOSE_CONV     filter [OC, KH, KW, IC], input 2 MACs = numel(in) * KH*KW*OC
 *   FULLY_CONNECTED    weights [O, I]                   MACs = numel(out) * I
 *   BATCH_MATMUL       a [..., M, K] (adj_x: [..., K, M]) MACs = numel(out) * K
 *   CONV_3D            filter [KD, KH, KW, IC, OC]      MACs = numel(out) * KD*KH*KW*IC
 *   CONV_3D_TRANSPOSE  filter [KD, KH, KW, OC, IC], input 2  MACs = numel(in) * KD*KH*KW*OC
 * Bias adds, activations and every other op are not counted (they are bandwidth, not
 * arithmetic, for these models). Dims that are dynamic (-1 in shape_signature) count at
 * the size stored in the shape (usually 1). Only the entry subgraph is counted (signature
 * 0's, else subgraph 0): ops in called subgraphs run a data-dependent number of times.
 *
 * Class of each op, from its activation input and its weights: float (float activation,
 * float weights), hybrid (float activation, integer weights: dynamic-range quantization)
 * or quant (integer activation). */
#include "report.h"

#include <stdio.h>
#include <string.h>

static const int32_t FLOP_OPS[GC_FLOPS_N_OPS] = {
    GC_OP_CONV_2D, GC_OP_DEPTHWISE_CONV_2D, GC_OP_TRANSPOSE_CONV, GC_OP_FULLY_CONNECTED,
    GC_OP_BATCH_MATMUL, GC_OP_CONV_3D, GC_OP_CONV_3D_TRANSPOSE,
};

const char *gc_flops_op_name(int k) {
    return k >= 0 && k < GC_FLOPS_N_OPS ? gc_builtin_name(FLOP_OPS[k]) : "?";
}

static const gc_tensor *input_at(const gc_subgraph *sg, const gc_op *op, int k) {
    if (k >= op->n_inputs || op->inputs[k] < 0 || op->inputs[k] >= sg->n_tensors) return NULL;
    return &sg->tensors[op->inputs[k]];
}

static const gc_tensor *output0(const gc_subgraph *sg, const gc_op *op) {
    if (op->n_outputs < 1 || op->outputs[0] < 0 || op->outputs[0] >= sg->n_tensors) return NULL;
    return &sg->tensors[op->outputs[0]];
}

/* numel of t when its rank is at least min_rank and every dim is >= 1; 0 otherwise */
static uint64_t known_numel(const gc_tensor *t, int32_t min_rank) {
    if (!t || t->rank < min_rank || t->rank < 1) return 0;
    for (int32_t d = 0; d < t->rank; d++) if (t->shape[d] < 1) return 0;
    uint64_t n = gc_tensor_numel(t);
    return n == UINT64_MAX ? 0 : n;
}

/* product of dims [from, to) of t (all >= 1, checked by known_numel first); 0 on overflow */
static uint64_t dims_product(const gc_tensor *t, int32_t from, int32_t to) {
    uint64_t p = 1;
    for (int32_t d = from; d < to; d++)
        if (!gc_mul_u64(p, (uint64_t)t->shape[d], &p)) return 0;
    return p;
}

static bool is_float(int8_t type) { return type == GC_T_FLOAT32 || type == GC_T_FLOAT16 || type == GC_T_BFLOAT16 || type == GC_T_FLOAT64; }

/* MACs of one op (0: shapes not known), and its activation / weight tensors for the class. */
static uint64_t op_macs(const gc_subgraph *sg, const gc_op *op, int32_t code,
                        const gc_tensor **act, const gc_tensor **wt) {
    const gc_tensor *out = output0(sg, op), *in0 = input_at(sg, op, 0), *in1 = input_at(sg, op, 1),
                    *in2 = input_at(sg, op, 2);
    uint64_t n = 0, per = 0;
    *act = in0; *wt = in1;
    switch (code) {
    case GC_OP_CONV_2D:                          /* filter [OC, KH, KW, IC/groups] */
        if (!(n = known_numel(out, 1)) || known_numel(in1, 4) == 0 || in1->rank != 4) return 0;
        per = dims_product(in1, 1, 4);
        break;
    case GC_OP_DEPTHWISE_CONV_2D:                /* filter [1, KH, KW, OC] */
        if (!(n = known_numel(out, 1)) || known_numel(in1, 4) == 0 || in1->rank != 4) return 0;
        per = dims_product(in1, 1, 3);
        break;
    case GC_OP_TRANSPOSE_CONV:                   /* output_shape, filter [OC, KH, KW, IC], input */
        *act = in2;
        if (!(n = known_numel(in2, 1)) || known_numel(in1, 4) == 0 || in1->rank != 4) return 0;
        per = dims_product(in1, 0, 3);
        break;
    case GC_OP_FULLY_CONNECTED:                  /* weights [O, I] */
        if (!(n = known_numel(out, 1)) || known_numel(in1, 2) == 0 || in1->rank != 2) return 0;
        per = (uint64_t)in1->shape[1];
        break;
    case GC_OP_BATCH_MATMUL: {                   /* a [..., M, K] or, adj_x, [..., K, M] */
        if (!(n = known_numel(out, 2)) || known_numel(in0, 2) == 0) return 0;
        bool adj_x = gc_opt_int(&op->opt, GC_O_BatchMatMulOptions_adj_x) != 0;
        per = (uint64_t)in0->shape[in0->rank - (adj_x ? 2 : 1)];
        break;
    }
    case GC_OP_CONV_3D:                          /* filter [KD, KH, KW, IC, OC] */
        if (!(n = known_numel(out, 1)) || known_numel(in1, 5) == 0 || in1->rank != 5) return 0;
        per = dims_product(in1, 0, 4);
        break;
    case GC_OP_CONV_3D_TRANSPOSE:                /* output_shape, filter [KD, KH, KW, OC, IC], input */
        *act = in2;
        if (!(n = known_numel(in2, 1)) || known_numel(in1, 5) == 0 || in1->rank != 5) return 0;
        per = dims_product(in1, 0, 4);
        break;
    default:
        return 0;
    }
    uint64_t macs;
    if (!per || !gc_mul_u64(n, per, &macs)) return 0;
    return macs;
}

static int32_t entry_subgraph(const gc_model *m) {
    if (m->n_signatures > 0 && m->signatures[0].subgraph < (uint32_t)m->n_subgraphs) return (int32_t)m->signatures[0].subgraph;
    return m->n_subgraphs > 0 ? 0 : -1;
}

void gc_model_flops(const gc_model *m, gc_flops *f) {
    memset(f, 0, sizeof *f);
    f->subgraph = entry_subgraph(m);
    if (f->subgraph < 0) return;
    const gc_subgraph *sg = &m->subgraphs[f->subgraph];
    for (int32_t i = 0; i < sg->n_ops; i++) {
        const gc_op *op = &sg->ops[i];
        int32_t code = gc_op_builtin(m, op);
        int k = -1;
        for (int j = 0; j < GC_FLOPS_N_OPS; j++) if (FLOP_OPS[j] == code) k = j;
        if (k < 0) continue;
        const gc_tensor *act = NULL, *wt = NULL;
        uint64_t macs = op_macs(sg, op, code, &act, &wt);
        if (!macs) { f->n_unknown++; continue; }
        uint64_t *cls = !act || is_float(act->type) ? (!wt || is_float(wt->type) ? &f->macs_float : &f->macs_hybrid)
                                                    : &f->macs_quant;
        if (!gc_add_u64(f->macs, macs, &f->macs) || !gc_add_u64(*cls, macs, cls) ||
            !gc_add_u64(f->op_macs[k], macs, &f->op_macs[k])) {
            f->saturated = true;                 /* more than 2^64 MACs: not a real model */
            f->macs = f->macs_float = f->macs_quant = f->macs_hybrid = UINT64_MAX;
            return;
        }
        f->op_count[k]++;
    }
}

const char *gc_flops_kind(const gc_flops *f) {
    if (!f->macs) return "none";
    if (f->macs_float >= f->macs_quant && f->macs_float >= f->macs_hybrid) return "float";
    return f->macs_quant >= f->macs_hybrid ? "quant" : "hybrid";
}

/* 1234567 -> "1.23 M" (k, M, G, T) */
static void human(char *buf, size_t n, uint64_t v) {
    const char *u[] = { "", " k", " M", " G", " T", " P" };
    double x = (double)v;
    int i = 0;
    while (x >= 1000 && i < 5) { x /= 1000; i++; }
    if (i == 0) snprintf(buf, n, "%llu", (unsigned long long)v);
    else snprintf(buf, n, "%.3g%s", x, u[i]);
}

void gc_flops_text(const gc_flops *f, gc_str *out) {
    char a[32], b[32];
    if (f->subgraph < 0) { gc_str_puts(out, "compute: no subgraph\n"); return; }
    if (f->saturated) { gc_str_printf(out, "compute (subgraph %d): more than 2^64 MACs\n", f->subgraph); return; }
    human(a, sizeof a, f->macs);
    gc_str_printf(out, "compute (subgraph %d, static shapes): %.4g GFLOP = 2 x %s MACs (%s", f->subgraph,
                  2.0 * (double)f->macs / 1e9, a, gc_flops_kind(f));
    gc_str_puts(out, ")");
    bool first = true;
    for (int k = 0; k < GC_FLOPS_N_OPS; k++) {
        if (!f->op_count[k]) continue;
        human(b, sizeof b, f->op_macs[k]);
        gc_str_printf(out, "%s%s x%d %s", first ? ": " : ", ", gc_flops_op_name(k), f->op_count[k], b);
        first = false;
    }
    if (f->n_unknown) gc_str_printf(out, "; %d op(s) with unknown shapes not counted", f->n_unknown);
    gc_str_putc(out, '\n');
}

void gc_flops_json(const gc_flops *f, gc_str *out) {
    uint64_t flops;
    if (!gc_mul_u64(f->macs, 2, &flops)) flops = UINT64_MAX;
    gc_str_printf(out, "{\"subgraph\":%d,\"flops\":%llu,\"macs\":%llu,\"macs_float\":%llu,\"macs_quant\":%llu,"
                  "\"macs_hybrid\":%llu,\"kind\":\"%s\",\"unknown_ops\":%d,\"by_op\":[", f->subgraph,
                  (unsigned long long)flops, (unsigned long long)f->macs, (unsigned long long)f->macs_float,
                  (unsigned long long)f->macs_quant, (unsigned long long)f->macs_hybrid, gc_flops_kind(f), f->n_unknown);
    bool first = true;
    for (int k = 0; k < GC_FLOPS_N_OPS; k++) {
        if (!f->op_count[k]) continue;
        gc_str_printf(out, "%s{\"op\":\"%s\",\"count\":%d,\"macs\":%llu}", first ? "" : ",", gc_flops_op_name(k),
                      f->op_count[k], (unsigned long long)f->op_macs[k]);
        first = false;
    }
    gc_str_puts(out, "]}");
}
