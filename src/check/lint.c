/* lint.c — fp16 risk lints: warnings, not verdicts. The GPU computes in fp16 even for an
 * fp32 graph (precision Fp16 / Default; Fp16WithFp32Accum only covers CONV / FC /
 * BATCH_MATMUL, gpu-delegate-rules.md §4.4), so a model can be fully resident and still
 * wrong. The patterns come from §5 (pitfalls 1, 2, 3, 5, 13) and the seed's "Watch for"
 * list: large and squared sums (variance, SUM/MEAN over large axes, L2 norm), long
 * softmax axes, the [1,1,S,S] mask ADD onto a BATCH_MATMUL result (LiteRT #8593),
 * approximated GELU / Swish, large constants that look like folded products, constants
 * beyond the fp16 range, model outputs also consumed inside the graph; classic only:
 * mixed-rank broadcasts (LiteRT #8980) and ignored BATCH_MATMUL adj flags (#8913); and
 * one measured by us: POW of a runtime base is NaN for negative bases on the GPU.
 */
#include "check_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FP16_MAX 65504.0
#define REDUCE_LARGE 1024       /* elements summed per output value */
#define SQUARES_LARGE 64
#define SOFTMAX_LONG 1024
#define FOLDED_CONST 262144     /* elements */
#define SCAN_LIMIT (1u << 20)   /* elements: constants scanned for fp16 overflow */
#define SCAN_BUDGET (16u << 20) /* elements scanned per subgraph (keeps big models fast) */

typedef struct {
    const gc_model *m;
    const gc_subgraph *sg;
    const gc_graph *g;
    const uint8_t *tf;
    int32_t sgi;
    gc_lint_sink sink;
    void *user;
} lctx;

static void emit(const lctx *L, int32_t node, const char *rule, gc_risk_level lvl, const char *fix,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void emit(const lctx *L, int32_t node, const char *rule, gc_risk_level lvl, const char *fix,
                 const char *fmt, ...) {
    gc_lint l = { L->sgi, node, rule, lvl, "", fix };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l.msg, sizeof l.msg, fmt, ap);
    va_end(ap);
    L->sink(L->user, &l);
}

static const gc_tensor *T(const lctx *L, int32_t t) {
    return (t >= 0 && t < L->sg->n_tensors) ? &L->sg->tensors[t] : NULL;
}

static int32_t code_of(const lctx *L, int32_t op) { return op < 0 ? -1 : gc_op_builtin(L->m, &L->sg->ops[op]); }

static int32_t producer(const lctx *L, int32_t t) {
    return (t >= 0 && t < L->g->n_tensors) ? L->g->producer[t] : -1;
}

static bool const_int_at(const lctx *L, int32_t t, int64_t i, int64_t *v) {
    const gc_tensor *x = T(L, t);
    if (!x || !(L->tf[t] & GC_TF_CONST)) return false;
    const gc_buffer *b = gc_tensor_buffer(L->m, x);
    if (!b || !b->data) return false;
    if (x->type == GC_T_INT32 && (uint64_t)(i + 1) * 4 <= b->size) {
        int32_t y; memcpy(&y, b->data + i * 4, 4); *v = y; return true;
    }
    if (x->type == GC_T_INT64 && (uint64_t)(i + 1) * 8 <= b->size) {
        memcpy(v, b->data + i * 8, 8); return true;
    }
    return false;
}

static bool const_float_scalar(const lctx *L, int32_t t, double *v) {
    const gc_tensor *x = T(L, t);
    if (!x || !(L->tf[t] & GC_TF_CONST) || x->type != GC_T_FLOAT32 || gc_tensor_numel(x) != 1) return false;
    const gc_buffer *b = gc_tensor_buffer(L->m, x);
    if (!b || !b->data || b->size < 4) return false;
    float f; memcpy(&f, b->data, 4); *v = f;
    return true;
}

/* product of the reduced dims (axes from constant input 1) */
static int64_t reduced_count(const lctx *L, const gc_op *op) {
    const gc_tensor *x = T(L, op->n_inputs > 0 ? op->inputs[0] : -1);
    const gc_tensor *a = T(L, op->n_inputs > 1 ? op->inputs[1] : -1);
    if (!x || !a) return 0;
    uint32_t seen = 0;
    int64_t prod = 1;
    for (int64_t i = 0; i < (int64_t)gc_tensor_numel(a) && i < 16; i++) {
        int64_t ax;
        if (!const_int_at(L, op->inputs[1], i, &ax)) return 0;
        if (ax < 0) ax += x->rank;
        if (ax < 0 || ax >= x->rank || ax >= 32 || (seen & (1u << ax))) continue;
        seen |= 1u << ax;
        prod *= x->shape[ax];
    }
    return prod;
}

/* is tensor t a square (SQUARE, x*x, SQUARED_DIFFERENCE, POW(x, 2)) */
static bool is_square(const lctx *L, int32_t t) {
    int32_t p = producer(L, t);
    if (p < 0) return false;
    const gc_op *op = &L->sg->ops[p];
    int32_t c = code_of(L, p);
    double e;
    if (c == GC_OP_SQUARE || c == GC_OP_SQUARED_DIFFERENCE) return true;
    if (c == GC_OP_MUL && op->n_inputs == 2 && op->inputs[0] == op->inputs[1]) return true;
    if (c == GC_OP_POW && op->n_inputs == 2 && const_float_scalar(L, op->inputs[1], &e) && e == 2.0) return true;
    return false;
}

/* the tensor comes from a BATCH_MATMUL, possibly through a MUL/DIV by a constant scale */
static bool from_bmm(const lctx *L, int32_t t) {
    for (int hop = 0; hop < 3; hop++) {
        int32_t p = producer(L, t);
        int32_t c = code_of(L, p);
        if (c == GC_OP_BATCH_MATMUL) return true;
        if ((c != GC_OP_MUL && c != GC_OP_DIV) || L->sg->ops[p].n_inputs != 2) return false;
        const gc_op *op = &L->sg->ops[p];
        if (L->tf[op->inputs[1]] & GC_TF_CONST) t = op->inputs[0];
        else if (L->tf[op->inputs[0]] & GC_TF_CONST) t = op->inputs[1];
        else return false;
    }
    return false;
}

static void lint_node(const lctx *L, int32_t i, gc_target target) {
    const gc_op *op = &L->sg->ops[i];
    int32_t c = code_of(L, i);
    const gc_tensor *in0 = T(L, op->n_inputs > 0 ? op->inputs[0] : -1);
    const gc_tensor *out0 = T(L, op->n_outputs > 0 ? op->outputs[0] : -1);
    switch (c) {
    case GC_OP_SUM: case GC_OP_MEAN: {
        int64_t n = reduced_count(L, op);
        bool sq = op->n_inputs > 0 && is_square(L, op->inputs[0]);
        if (sq && n >= SQUARES_LARGE)
            emit(L, i, "fp16.sum_of_squares", GC_RISK_WARN,
                 "compute the variance as mean((x - mean(x))^2) on a pre-scaled x, or keep this reduction in fp32",
                 "%s of squares over %lld elements (variance / sum of squares): fp16 accumulation overflows above "
                 "65504 and loses small terms", gc_builtin_name(c), (long long)n);
        else if (n >= REDUCE_LARGE)
            emit(L, i, "fp16.sum_large", GC_RISK_WARN,
                 "split the reduction into partial sums, scale before summing, or request fp32 precision",
                 "%s over %lld elements accumulates in fp16 on the GPU: totals above 65504 become inf/NaN "
                 "(LiteRT #9249)", gc_builtin_name(c), (long long)n);
        break;
    }
    case GC_OP_POW: {
        /* measured on an NVIDIA H200 (LiteRT.js 2.5.3, ML Drift over WebGPU): POW with a
         * negative base returns NaN where the CPU gives x^n for integral n (28 of 64
         * values of a test model; dp_net's outputs went NaN once fully delegated) */
        const gc_tensor *base = in0, *ex = T(L, op->n_inputs > 1 ? op->inputs[1] : -1);
        if (base && !gc_tensor_is_const(L->m, base))
            emit(L, i, "gpu.pow_negative_base", GC_RISK_WARN,
                 ex && gc_tensor_is_const(L->m, ex) ? "POW(x, 2) -> MUL(x, x) (gpuclean fix: pow_square); x**n as repeated multiplication"
                                                    : "write x**n as repeated multiplication, or |x|**n with the sign applied",
                 "POW of a runtime base: the GPU returns NaN for negative bases (measured on the LiteRT GPU accelerator)");
        break;
    }
    case GC_OP_L2_NORMALIZATION:
        emit(L, i, "fp16.l2norm", GC_RISK_WARN, "normalise a pre-scaled x (divide by max|x| first)",
             "L2 norm sums squares in fp16: overflows when sum(x^2) > 65504");
        break;
    case GC_OP_SQRT: case GC_OP_RSQRT: {
        int32_t p = producer(L, op->n_inputs > 0 ? op->inputs[0] : -1);
        int32_t pc = code_of(L, p);
        if ((pc == GC_OP_SUM || pc == GC_OP_MEAN) && L->sg->ops[p].n_inputs > 0 && is_square(L, L->sg->ops[p].inputs[0]))
            emit(L, i, "fp16.l2norm", GC_RISK_WARN, "normalise a pre-scaled x (divide by max|x| first)",
                 "%s of a sum of squares (an L2 norm / RMS): the squared sum runs in fp16", gc_builtin_name(c));
        break;
    }
    case GC_OP_SOFTMAX: case GC_OP_LOG_SOFTMAX:
        if (in0 && in0->rank > 0 && in0->shape[in0->rank - 1] >= SOFTMAX_LONG)
            emit(L, i, "fp16.softmax_long_axis", GC_RISK_WARN, "mask or chunk the axis, or keep the logits in fp32",
                 "softmax over an axis of %d elements: the fp16 normaliser loses precision", in0->shape[in0->rank - 1]);
        break;
    case GC_OP_ADD: {
        if (op->n_inputs != 2) break;
        for (int k = 0; k < 2; k++) {
            const gc_tensor *mask = T(L, op->inputs[1 - k]), *bmm = T(L, op->inputs[k]);
            if (!mask || !bmm || mask->rank != 4 || bmm->rank != 4 || !from_bmm(L, op->inputs[k])) continue;
            if (mask->shape[0] == 1 && mask->shape[1] == 1 && bmm->shape[1] > 1) {
                emit(L, i, "fp16.bmm_mask_broadcast", GC_RISK_WARN,
                     "pre-expand the mask to the scores' shape, or materialise the BATCH_MATMUL as a second output",
                     "broadcast ADD of a [1,1,%d,%d] mask onto a BATCH_MATMUL result: silently miscomputed on older "
                     "runtimes (token 0 right, later tokens wrong; LiteRT #8593)", mask->shape[2], mask->shape[3]);
                break;
            }
        }
        break;
    }
    case GC_OP_GELU:
        if (op->opt.type == GC_BO_GeluOptions && gc_opt_int(&op->opt, GC_O_GeluOptions_approximate))
            emit(L, i, "fp16.approx_activation", GC_RISK_INFO, "export the exact GELU if the head has a wide range",
                 "tanh-approximated GELU: numerics differ from the erf GELU of the source model");
        break;
    case GC_OP_HARD_SWISH:
        emit(L, i, "fp16.approx_activation", GC_RISK_INFO, "use the exact SiLU if accuracy suffers",
             "HARD_SWISH approximates Swish/SiLU: a wide-range head can lose accuracy");
        break;
    case GC_OP_MUL: {
        /* x * sigmoid(1.702 x): the sigmoid approximation of GELU */
        for (int k = 0; k < 2 && op->n_inputs == 2; k++) {
            int32_t p = producer(L, op->inputs[k]);
            if (code_of(L, p) != GC_OP_LOGISTIC) continue;
            int32_t q = producer(L, L->sg->ops[p].n_inputs ? L->sg->ops[p].inputs[0] : -1);
            if (code_of(L, q) != GC_OP_MUL || L->sg->ops[q].n_inputs != 2) continue;
            double s;
            if ((const_float_scalar(L, L->sg->ops[q].inputs[0], &s) || const_float_scalar(L, L->sg->ops[q].inputs[1], &s)) &&
                fabs(s - 1.702) < 0.01)
                emit(L, i, "fp16.approx_activation", GC_RISK_INFO, "use the exact GELU if accuracy suffers",
                     "x*sigmoid(1.702x) approximates GELU: numerics differ from the source model");
        }
        break;
    }
    case GC_OP_BATCH_MATMUL:
        if (target == GC_TARGET_CLASSIC && op->opt.type == GC_BO_BatchMatMulOptions &&
            (gc_opt_int(&op->opt, GC_O_BatchMatMulOptions_adj_x) || gc_opt_int(&op->opt, GC_O_BatchMatMulOptions_adj_y)))
            emit(L, i, "classic.bmm_adj_ignored", GC_RISK_WARN, "transpose the operand explicitly before the matmul",
                 "BATCH_MATMUL adj_x/adj_y are ignored by the classic delegate: wrong orientation, no error (LiteRT #8913)");
        break;
    default: break;
    }
    if (target == GC_TARGET_CLASSIC && op->n_inputs == 2 &&
        (c == GC_OP_ADD || c == GC_OP_MUL || c == GC_OP_SUB || c == GC_OP_DIV)) {
        const gc_tensor *a = T(L, op->inputs[0]), *b = T(L, op->inputs[1]);
        if (a && b && a->rank != b->rank && !(L->tf[op->inputs[0]] & GC_TF_CONST) && !(L->tf[op->inputs[1]] & GC_TF_CONST))
            emit(L, i, "classic.mixed_rank_broadcast", GC_RISK_WARN, "reshape both operands to rank 4 before the op",
                 "mixed-rank broadcast (%d-D with %d-D): the classic delegate puts dim 0 of rank-1..3 tensors into "
                 "batch and misaligns them (LiteRT #8980)", a->rank, b->rank);
    }
    /* Measured on ML Drift (NVIDIA H200, native libLiteRt 2.3.0 and LiteRT.js 2.5.3,
     * fp32 and fp16, identical on both; data/gpu/sweep, family `elementwise`): a binary
     * op whose RUNTIME operand has the lower rank and whose CONSTANT operand the higher
     * one is misaligned when the constant's axis that the runtime operand's dim 0 meets
     * is > 1: ADD/SUB/MUL/DIV/MAXIMUM of runtime [5] with const [4,5] / [3,4,5] /
     * [2,3,4,5], [4,5] with [3,4,5] / [2,3,4,5], [3,4,5] with [2,3,4,5] (corr 0.08-0.97),
     * Swin's [24,49,49] + const [1,24,49,49] and [4,7,7] + const [1,4,7,7] (corr 0.74 /
     * 0.81). Right: both operands at run time (every rank pair), the constant the
     * lower-rank one, equal ranks, and a BMM's [8,32,32] + mask const [1,1,32,32] (Llama,
     * BERT, DINOv2: the axis met is 1). */
    if (op->n_inputs == 2 && (c == GC_OP_ADD || c == GC_OP_MUL || c == GC_OP_SUB || c == GC_OP_DIV ||
                              c == GC_OP_MAXIMUM || c == GC_OP_MINIMUM)) {
        int32_t ia = op->inputs[0], ib = op->inputs[1];
        const gc_tensor *a = T(L, ia), *b = T(L, ib);
        bool ca = ia >= 0 && (L->tf[ia] & GC_TF_CONST), cb = ib >= 0 && (L->tf[ib] & GC_TF_CONST);
        const gc_tensor *lo = NULL, *hi = NULL;
        if (a && b && a->rank < b->rank && !ca && cb) { lo = a; hi = b; }
        else if (a && b && b->rank < a->rank && !cb && ca) { lo = b; hi = a; }
        if (lo && hi && lo->rank >= 1 && hi->rank <= 4 && lo->shape && hi->shape && lo->shape[0] > 1 &&
            hi->shape[hi->rank - lo->rank] > 1)
            emit(L, i, "mldrift.mixed_rank_broadcast", GC_RISK_WARN, "reshape the lower-rank operand to the constant's rank before the op",
                 "runtime %d-D operand with a %d-D constant: misaligned on the GPU (measured on an NVIDIA H200, "
                 "libLiteRt 2.3.0 and LiteRT.js 2.5.3, fp32 and fp16: corr 0.08-0.97; Swin's ADD([24,49,49], "
                 "const [1,24,49,49]): corr 0.74)", lo->rank, hi->rank);
    }
    (void)out0;
}

static bool is_weight_slot(int32_t code, int k) {
    switch (code) {
    case GC_OP_CONV_2D: case GC_OP_DEPTHWISE_CONV_2D: case GC_OP_FULLY_CONNECTED: case GC_OP_BATCH_MATMUL:
    case GC_OP_EMBEDDING_LOOKUP: case GC_OP_GATHER:
        return k >= 1 || code == GC_OP_GATHER;
    case GC_OP_TRANSPOSE_CONV: return k == 1 || k == 3;
    case GC_OP_DEQUANTIZE: case GC_OP_DENSIFY: return true;
    default: return false;
    }
}

static void lint_constants(const lctx *L) {
    uint64_t budget = SCAN_BUDGET;
    for (int32_t t = 0; t < L->sg->n_tensors; t++) {
        const gc_tensor *x = &L->sg->tensors[t];
        if (!(L->tf[t] & GC_TF_CONST) || x->type != GC_T_FLOAT32) continue;
        uint64_t n = gc_tensor_numel(x);
        int32_t first = -1;
        bool weights = false;
        for (int32_t k = L->g->cons_off[t]; k < L->g->cons_off[t + 1]; k++) {
            int32_t op = L->g->cons[k];
            const gc_op *o = &L->sg->ops[op];
            if (first < 0) first = op;
            for (int32_t s = 0; s < o->n_inputs; s++)
                if (o->inputs[s] == t && is_weight_slot(code_of(L, op), s)) weights = true;
        }
        if (first < 0) continue;
        if (n >= FOLDED_CONST && !weights)
            emit(L, first, "fp16.folded_constant", GC_RISK_WARN,
                 "feed one factor as a runtime input (param x input never folds), or keep the product factored",
                 "constant '%s' of %llu elements feeds %s: looks like a folded product (frozen param x constant "
                 "materialised at full size)", x->name, (unsigned long long)n, gc_builtin_name(code_of(L, first)));
        if (n <= SCAN_LIMIT && n <= budget) {
            budget -= n;
            const gc_buffer *b = gc_tensor_buffer(L->m, x);
            if (!b || !b->data || b->size < n * 4) continue;
            float mx = 0.0f;
            for (uint64_t e = 0; e < n; e++) {
                float v;
                memcpy(&v, b->data + e * 4, 4);
                if (fabsf(v) > mx) mx = fabsf(v);
            }
            if (mx > FP16_MAX)
                emit(L, first, "fp16.const_overflow", GC_RISK_WARN, "rescale the constant (fold the scale elsewhere)",
                     "constant '%s' holds |values| up to %g, beyond fp16's 65504: inf on the GPU", x->name, (double)mx);
        }
    }
}

void gc_lint_subgraph(const gc_model *m, int32_t sgi, const gc_graph *g, const uint8_t *tf, gc_target target,
                      gc_lint_sink sink, void *user) {
    const gc_subgraph *sg = &m->subgraphs[sgi];
    lctx L = { m, sg, g, tf, sgi, sink, user };
    for (int32_t i = 0; i < sg->n_ops; i++) lint_node(&L, i, target);
    lint_constants(&L);
    for (int32_t k = 0; k < sg->n_outputs; k++) {
        int32_t t = sg->outputs[k];
        if (gc_graph_n_consumers(g, t) > 0)
            emit(&L, g->producer[t], "fp16.output_consumed", GC_RISK_INFO,
                 "copy the value into a separate output (e.g. through an identity op) if its numbers look wrong",
                 "model output '%s' is also consumed inside the graph", T(&L, t) ? T(&L, t)->name : "");
    }
}
