/* const_fold.c — pass const_fold [fix.const_fold]
 *
 * Rewrite:      a constant cone -> constants. An op is constant-computable when every
 *               present input is a constant or the output of a constant-computable op;
 *               the cone of the anchor is the connected set of constant-computable ops
 *               around it (joined through the tensors one makes and another reads). The
 *               whole cone is run at once by gpuclean's reference interpreter (fp32 mode)
 *               as one small model, the tensors it hands to the rest of the graph (its
 *               frontier) become constants holding those values, and the cone's ops
 *               disappear. One op is the smallest cone (a Linear applied to a parameter:
 *               FULLY_CONNECTED "doesn't support constant input"); the large ones are
 *               shape and index arithmetic, and computations on parameters, e.g. bicubic
 *               interpolation of a position-embedding table (YOLOS, ViT at another input
 *               size: GATHER_ND / BROADCAST_TO / BATCH_MATMUL on constants). Folding them
 *               one op at a time cannot work: each single fold leaves the next op with
 *               only constant inputs, which the GPU refuses as well, so the refused count
 *               never drops and the driver rolls every step back. The cone is judged as
 *               a whole instead: the driver keeps it when the whole fold refuses fewer
 *               nodes.
 * Size rule:    N = bytes of the frontier constants, F = bytes of the constants only the
 *               cone reads (their buffers go away with it). The cone is folded when
 *               N <= opts.max_const_bytes and N <= F + max(1 MiB, F / 4): the file may
 *               grow by 1 MiB, or by a quarter of what the cone replaces, not more
 *               (seed: "a frozen-param x constant product materializes at full size per
 *               block"). When the whole cone breaks the rule, its largest frontier tensor
 *               is left to be computed at run time — its producer and the cone ops after
 *               it leave the cone — and the rest is judged again, until it fits or
 *               nothing is left. Ops whose own output exceeds max_const_bytes are never
 *               part of a cone.
 * Precondition: the ops have a kernel in the interpreter and no subgraphs or side
 *               effects (not CALL, IF, WHILE, STABLEHLO_COMPOSITE, custom ops), no
 *               variable inputs, static output shapes of fixed-size types; no output of
 *               the cone is a model output.
 * Exactness:    bit-exact with respect to the reference interpreter, the ground truth
 *               for rewrites (the folded bytes are the interpreter's own outputs for the
 *               same inputs, computed by the same kernels in the same order).
 */
#include "fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interp/interp.h"

#define GROWTH_ALLOWED (1ull << 20)

static bool foldable_code(int32_t code) {
    switch (code) {
    case GC_OP_CALL: case GC_OP_IF: case GC_OP_WHILE: case GC_OP_STABLEHLO_COMPOSITE: case GC_OP_CUSTOM:
        return false;
    default:
        return gc_interp_has_kernel(code);
    }
}

static uint64_t tensor_bytes(const gc_tensor *t) { return gc_type_bytes(t->type, gc_tensor_numel(t)); }

/* Why op `o` (all of whose inputs are constant-valued) is not constant-computable
 * itself; NULL when it is. */
static const char *why_not(gc_fix_ctx *c, int32_t o, char *buf, size_t n) {
    const gc_op *op = fx_op(c, o);
    int32_t code = fx_code(c, o);
    if (!foldable_code(code)) {
        snprintf(buf, n, "%s is not folded (no interpreter kernel, subgraphs or side effects)", gc_op_name(c->m, op));
        return buf;
    }
    if (op->n_outputs < 1) return "no outputs";
    int n_present = 0;
    for (int32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0) continue;
        n_present++;
        if (fx_t(c, t)->is_variable) return "a variable input";
    }
    if (!n_present) return "no inputs";
    for (int32_t k = 0; k < op->n_outputs; k++) {
        int32_t t = op->outputs[k];
        if (t < 0) return "missing output";
        if (fx_is_graph_output(c, t)) {
            snprintf(buf, n, "output '%s' is a model output", fx_t(c, t)->name);
            return buf;
        }
        if (!fx_is_static(c, t)) return "dynamic output shape";
        uint64_t nb = tensor_bytes(fx_t(c, t));
        if (nb == UINT64_MAX) {
            snprintf(buf, n, "output type %s has no fixed size", gc_type_name(fx_t(c, t)->type));
            return buf;
        }
        if (nb > c->opts->max_const_bytes) {
            snprintf(buf, n, "its output takes %llu bytes, over the %llu-byte limit", (unsigned long long)nb,
                     (unsigned long long)c->opts->max_const_bytes);
            return buf;
        }
    }
    return NULL;
}

typedef struct {
    int32_t n_ops, n_tensors;
    int32_t *prod;                 /* tensor -> producer op or -1 */
    int32_t *cons_off, *cons;      /* CSR: consumers of each tensor */
    bool *cval;                    /* tensor: constant or made by a constant-computable op */
    bool *cop;                     /* op: constant-computable */
    bool *in;                      /* op: in the cone */
} graph;

static void graph_free(graph *g) {
    free(g->prod); free(g->cons_off); free(g->cons); free(g->cval); free(g->cop); free(g->in);
}

static bool graph_build(gc_fix_ctx *c, graph *g) {
    memset(g, 0, sizeof *g);
    const gc_subgraph *sg = fx_sg(c);
    g->n_ops = sg->n_ops; g->n_tensors = sg->n_tensors;
    size_t nt = (size_t)sg->n_tensors + 1, no = (size_t)sg->n_ops + 1;
    g->prod = malloc(sizeof(int32_t) * nt);
    g->cons_off = calloc(nt + 1, sizeof(int32_t));
    g->cval = calloc(nt, sizeof(bool));
    g->cop = calloc(no, sizeof(bool));
    g->in = calloc(no, sizeof(bool));
    if (!g->prod || !g->cons_off || !g->cval || !g->cop || !g->in) return false;
    size_t total = 0;
    for (int32_t t = 0; t < sg->n_tensors; t++) g->prod[t] = -1;
    for (int32_t o = 0; o < sg->n_ops; o++) {
        const gc_op *op = &sg->ops[o];
        for (int32_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] >= 0 && op->outputs[k] < sg->n_tensors) g->prod[op->outputs[k]] = o;
        for (int32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && op->inputs[k] < sg->n_tensors) { g->cons_off[op->inputs[k] + 1]++; total++; }
    }
    for (int32_t t = 0; t < sg->n_tensors; t++) g->cons_off[t + 1] += g->cons_off[t];
    g->cons = malloc(sizeof(int32_t) * (total + 1));
    int32_t *fill = malloc(sizeof(int32_t) * nt);
    if (!g->cons || !fill) { free(fill); return false; }
    memcpy(fill, g->cons_off, sizeof(int32_t) * (size_t)sg->n_tensors);
    for (int32_t o = 0; o < sg->n_ops; o++) {
        const gc_op *op = &sg->ops[o];
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0 || t >= sg->n_tensors) continue;
            /* an op reading a tensor twice is listed once */
            bool dup = false;
            for (int32_t j = g->cons_off[t]; j < fill[t]; j++) dup = dup || g->cons[j] == o;
            if (!dup) g->cons[fill[t]++] = o;
        }
    }
    /* compact the duplicates away: rebuild offsets from fill */
    {
        int32_t w = 0;
        for (int32_t t = 0; t < sg->n_tensors; t++) {
            int32_t b = g->cons_off[t], e = fill[t];
            g->cons_off[t] = w;
            for (int32_t j = b; j < e; j++) g->cons[w++] = g->cons[j];
        }
        g->cons_off[sg->n_tensors] = w;
    }
    free(fill);
    for (int32_t t = 0; t < sg->n_tensors; t++) g->cval[t] = fx_is_const(c, t);
    /* ops are in execution order: one forward sweep */
    char buf[8];
    for (int32_t o = 0; o < sg->n_ops; o++) {
        const gc_op *op = &sg->ops[o];
        bool all = true;
        for (int32_t k = 0; k < op->n_inputs && all; k++) if (op->inputs[k] >= 0) all = g->cval[op->inputs[k]];
        if (!all || why_not(c, o, buf, sizeof buf)) continue;
        g->cop[o] = true;
        for (int32_t k = 0; k < op->n_outputs; k++) g->cval[op->outputs[k]] = true;
    }
    return true;
}

/* a tensor made in the cone that something outside it reads */
static bool is_frontier(const graph *g, int32_t t) {
    for (int32_t j = g->cons_off[t]; j < g->cons_off[t + 1]; j++) if (!g->in[g->cons[j]]) return true;
    return false;
}

/* N and F of the cone (the size rule); the largest frontier tensor in *big */
static void measure(gc_fix_ctx *c, const graph *g, const int32_t *buf_refs, uint64_t *n_new, uint64_t *freed,
                    int32_t *big, int32_t *n_front) {
    const gc_subgraph *sg = fx_sg(c);
    *n_new = 0; *freed = 0; *big = -1; *n_front = 0;
    uint64_t big_bytes = 0;
    /* constants: each buffer counted once, freed when no tensor outside the cone needs it */
    int32_t *seen_buf = calloc((size_t)c->m->n_buffers + 1, sizeof(int32_t));
    for (int32_t o = 0; o < sg->n_ops; o++) {
        if (!g->in[o]) continue;
        const gc_op *op = &sg->ops[o];
        for (int32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (!is_frontier(g, t)) continue;
            uint64_t nb = tensor_bytes(&sg->tensors[t]);
            *n_new += nb;
            (*n_front)++;
            if (*big < 0 || nb > big_bytes) { *big = t; big_bytes = nb; }
        }
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0 || !fx_is_const(c, t)) continue;
            uint32_t b = sg->tensors[t].buffer;
            if (seen_buf && seen_buf[b]) continue;
            if (seen_buf) seen_buf[b] = 1;
            /* every tensor on this buffer must be a constant only the cone reads */
            bool only = buf_refs && buf_refs[b] == 1 && !is_frontier(g, t) && !fx_is_graph_output(c, t);
            for (int32_t i = 0; only && i < sg->n_inputs; i++) only = sg->inputs[i] != t;
            if (only) {
                uint64_t nb = 0;
                fx_data(c, t, &nb);
                *freed += nb;
            }
        }
    }
    free(seen_buf);
}

static bool fits(const gc_fix_ctx *c, uint64_t n_new, uint64_t freed) {
    uint64_t slack = freed / 4 > GROWTH_ALLOWED ? freed / 4 : GROWTH_ALLOWED;
    return n_new <= c->opts->max_const_bytes && n_new <= freed + slack;
}

/* Run the cone in the interpreter and turn its frontier into constants. 1, 0, -1. */
static int fold(gc_fix_ctx *c, graph *g, int32_t n_in_cone) {
    gc_subgraph *sg = fx_sg(c);
    gc_model *mm = gc_model_new();
    if (!mm) return -1;
    int32_t s = gc_model_add_subgraph(mm, "fold");
    int32_t *map = malloc(sizeof(int32_t) * ((size_t)sg->n_tensors + 1));
    int32_t *front = malloc(sizeof(int32_t) * ((size_t)sg->n_tensors + 1));
    int32_t *fmap = malloc(sizeof(int32_t) * ((size_t)sg->n_tensors + 1));
    if (s < 0 || !map || !front || !fmap) { free(map); free(front); free(fmap); gc_model_free(mm); return -1; }
    for (int32_t t = 0; t < sg->n_tensors; t++) map[t] = -1;
    int32_t nf = 0;
    int rc = 1;
    for (int32_t o = 0; o < sg->n_ops && rc == 1; o++) {
        if (!g->in[o]) continue;
        const gc_op *src = &sg->ops[o];
        const gc_opcode *oc = gc_op_code(c->m, src);
        int32_t in[64], out[64];
        if (src->n_inputs > 64 || src->n_outputs > 64) { rc = fx_decline(c, "too many operands"); break; }
        for (int32_t k = 0; k < src->n_inputs && rc == 1; k++) {
            int32_t t = src->inputs[k];
            if (t < 0) { in[k] = -1; continue; }
            if (map[t] < 0) {
                const gc_tensor *x = &sg->tensors[t];
                if (!fx_is_const(c, t)) { rc = fx_decline(c, "internal: the cone is not in execution order"); break; }
                uint64_t nb = 0;
                const void *d = fx_data(c, t, &nb);
                int32_t b = gc_model_add_buffer_ref(mm, d, nb);
                map[t] = b < 0 ? -1 : gc_sg_add_tensor(mm, s, x->name, x->type, x->rank, x->shape, (uint32_t)b);
                if (b < 0 || map[t] < 0) { rc = -1; break; }
                mm->subgraphs[s].tensors[map[t]].quant = x->quant;
                mm->subgraphs[s].tensors[map[t]].sparsity = x->sparsity;
            }
            in[k] = map[t];
        }
        if (rc != 1) break;
        for (int32_t k = 0; k < src->n_outputs; k++) {
            int32_t t = src->outputs[k];
            const gc_tensor *y = &sg->tensors[t];
            map[t] = gc_sg_add_tensor(mm, s, y->name, y->type, y->rank, y->shape, 0);
            if (map[t] < 0) { rc = -1; break; }
            mm->subgraphs[s].tensors[map[t]].quant = y->quant;
            out[k] = map[t];
            if (is_frontier(g, t)) { front[nf] = t; fmap[nf] = map[t]; nf++; }
        }
        if (rc != 1) break;
        int32_t moc = gc_model_add_opcode(mm, oc->builtin_code, NULL, oc->version);
        int32_t k = moc < 0 ? -1 : gc_sg_insert_op(mm, s, -1, moc, src->n_inputs, in, src->n_outputs, out);
        if (k < 0) { rc = -1; break; }
        mm->subgraphs[s].ops[k].opt = src->opt;      /* read-only views into the source model's arena */
        mm->subgraphs[s].ops[k].opt2 = src->opt2;
    }
    gc_interp *it = NULL;
    if (rc == 1 && nf == 0) rc = fx_decline(c, "the cone feeds nothing");
    if (rc == 1) {
        gc_sg_set_io(mm, s, 0, NULL, nf, fmap);
        gc_interp_opts io;
        memset(&io, 0, sizeof io);
        io.precision = GC_PREC_FP32;
        io.signature = -1;
        io.subgraph = s;
        char err[512];
        it = gc_interp_new(mm, &io, err, sizeof err);
        if (!it) rc = fx_decline(c, "the interpreter cannot fold it: %s", err);
        else if (gc_interp_prepare(it) != GC_OK || gc_interp_invoke(it) != GC_OK)
            rc = fx_decline(c, "the interpreter cannot fold it: %s", gc_interp_errmsg(it));
    }
    uint64_t total = 0;
    if (rc == 1) {
        for (int32_t j = 0; j < nf && rc == 1; j++) {   /* every shape first, then change anything */
            gc_tview v = gc_interp_output(it, j);
            const gc_tensor *y = fx_t(c, front[j]);
            bool same = v.rank == y->rank && v.dtype == y->type;
            for (int d = 0; same && d < v.rank; d++) same = v.shape[d] == y->shape[d];
            if (!same) rc = fx_decline(c, "the folded '%s' has another shape or type than the model says", y->name);
            else if (v.nbytes == 0) rc = fx_decline(c, "empty output");
        }
        for (int32_t j = 0; j < nf && rc == 1; j++) {
            gc_tview v = gc_interp_output(it, j);
            total += v.nbytes;
            if (!fx_make_const(c, front[j], v.data, v.nbytes)) rc = -1;
        }
    }
    if (rc == 1) {
        int32_t first_code = -1;
        for (int32_t o = sg->n_ops - 1; o >= 0; o--) {
            if (o < g->n_ops && g->in[o]) { first_code = fx_code(c, o); fx_remove_op(c, o); }
        }
        char dims[128];
        const gc_tensor *y = fx_t(c, front[0]);
        fx_dims(dims, sizeof dims, y->rank, y->shape);
        if (n_in_cone == 1)
            fx_note(c, "constant %s %s%s (%llu bytes)", gc_type_name(y->type), dims, nf > 1 ? " and more" : "",
                    (unsigned long long)total);
        else
            fx_note(c, "a cone of %d ops folded into %d constant(s) (%llu bytes; %s %s%s)", (int)n_in_cone, (int)nf,
                    (unsigned long long)total, gc_type_name(y->type), dims, nf > 1 ? ", ..." : "");
        (void)first_code;
    }
    gc_interp_free(it);
    gc_model_free(mm);
    free(map); free(front); free(fmap);
    return rc;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o0 = fx_op(c, op);
    /* cheap exit: an input that is a model input or a variable can never be constant */
    for (int32_t k = 0; k < o0->n_inputs; k++) {
        int32_t t = o0->inputs[k];
        if (t < 0) continue;
        if (fx_t(c, t)->is_variable) return fx_pass_over(c);
        if (!fx_is_const(c, t) && fx_producer(c, t) < 0) return fx_pass_over(c);
    }
    graph g;
    if (!graph_build(c, &g)) { graph_free(&g); return -1; }
    int rc;
    if (!g.cop[op]) {
        bool all = true;
        for (int32_t k = 0; k < o0->n_inputs && all; k++) if (o0->inputs[k] >= 0) all = g.cval[o0->inputs[k]];
        char buf[256];
        const char *why = all ? why_not(c, op, buf, sizeof buf) : NULL;
        rc = why ? fx_decline(c, "%s", why) : fx_pass_over(c);
        graph_free(&g);
        return rc;
    }
    /* the cone: constant-computable ops connected to the anchor */
    int32_t *stack = malloc(sizeof(int32_t) * ((size_t)g.n_ops + 1));
    int32_t *buf_refs = calloc((size_t)c->m->n_buffers + 1, sizeof(int32_t));
    if (!stack || !buf_refs) { free(stack); free(buf_refs); graph_free(&g); return -1; }
    for (int32_t si = 0; si < c->m->n_subgraphs; si++) {
        const gc_subgraph *s2 = &c->m->subgraphs[si];
        for (int32_t t = 0; t < s2->n_tensors; t++)
            if (s2->tensors[t].buffer < (uint32_t)c->m->n_buffers) buf_refs[s2->tensors[t].buffer]++;
    }
    int32_t n = 0, n_in = 0;
    stack[n++] = op; g.in[op] = true; n_in++;
    while (n > 0) {
        int32_t o = stack[--n];
        const gc_op *p = fx_op(c, o);
        for (int32_t k = 0; k < p->n_inputs; k++) {
            int32_t t = p->inputs[k];
            if (t < 0) continue;
            int32_t q = g.prod[t];
            if (q >= 0 && g.cop[q] && !g.in[q]) { g.in[q] = true; n_in++; stack[n++] = q; }
        }
        for (int32_t k = 0; k < p->n_outputs; k++) {
            int32_t t = p->outputs[k];
            for (int32_t j = g.cons_off[t]; j < g.cons_off[t + 1]; j++) {
                int32_t q = g.cons[j];
                if (g.cop[q] && !g.in[q]) { g.in[q] = true; n_in++; stack[n++] = q; }
            }
        }
    }
    /* the size rule, trimming the largest frontier tensor while it fails */
    uint64_t n_new, freed, n_new0 = 0, freed0 = 0;
    int32_t big, n_front, n_in0 = n_in;
    measure(c, &g, buf_refs, &n_new, &freed, &big, &n_front);
    n_new0 = n_new; freed0 = freed;
    while (n_in > 0 && !fits(c, n_new, freed) && big >= 0) {
        /* big's producer and everything after it in the cone leave the cone */
        n = 0;
        int32_t p0 = g.prod[big];
        g.in[p0] = false; n_in--; stack[n++] = p0;
        while (n > 0) {
            int32_t o = stack[--n];
            const gc_op *p = fx_op(c, o);
            for (int32_t k = 0; k < p->n_outputs; k++) {
                int32_t t = p->outputs[k];
                for (int32_t j = g.cons_off[t]; j < g.cons_off[t + 1]; j++) {
                    int32_t q = g.cons[j];
                    if (g.in[q]) { g.in[q] = false; n_in--; stack[n++] = q; }
                }
            }
        }
        measure(c, &g, buf_refs, &n_new, &freed, &big, &n_front);
    }
    free(stack); free(buf_refs);
    if (n_in == 0 || !fits(c, n_new, freed)) {
        graph_free(&g);
        if (n_new0 > c->opts->max_const_bytes)
            return fx_decline(c, "the folded constants of the %d-op cone would take %llu bytes, over the %llu-byte limit",
                              (int)n_in0, (unsigned long long)n_new0, (unsigned long long)c->opts->max_const_bytes);
        return fx_decline(c, "folding the %d-op cone would grow the file by %llu bytes (%llu new constant bytes for "
                             "%llu replaced)", (int)n_in0, (unsigned long long)(n_new0 - freed0),
                          (unsigned long long)n_new0, (unsigned long long)freed0);
    }
    rc = fold(c, &g, n_in);
    graph_free(&g);
    return rc;
}

/* ---- dequantize_const [fix.dequantize.const] ------------------------------------------
 *
 * Measured on an NVIDIA H200 (driver 580.159.04), LiteRT GPU accelerator (ML Drift),
 * native libLiteRt 2.3.0 and LiteRT.js 2.5.3, single-op models of tools/sweep: DEQUANTIZE
 * of a constant per-tensor int8 tensor feeding FULLY_CONNECTED or BATCH_MATMUL makes
 * kernel building fail ("init_failed": LiteRtCreateCompiledModel: runtime failure (3),
 * the whole model falls back to the CPU; cases dequant_int8_fc, dequant_int8_bmm); with
 * per-channel int8 the DEQUANTIZE runs on the CPU (1/2 nodes on the GPU); fp16 weights
 * are right. The checker accepts the per-tensor node, so const_fold (scope "refused")
 * never looks at it, and const_fold's size rule would decline real weights anyway (the
 * FLOAT32 constant is 4x the int8 one; 2x for int16) — hence a pass of its own, with the
 * same machinery.
 * Rewrite:      DEQUANTIZE(constant q) -> a FLOAT32 constant holding the interpreter's
 *               DEQUANTIZE output (src/interp/kernels/quantize.c: per-tensor
 *               scale * (float)(q - zero_point), the product in float; per-channel along
 *               quantized_dimension), computed by running the op in the interpreter as
 *               const_fold does for a one-op cone.
 * Precondition: the input is a constant INT8, UINT8 or INT16 tensor (FLOAT16 is left
 *               alone: right on the GPU and half the size), the output FLOAT32 and not a
 *               model output; every consumer is an op with a runtime input (a wholly
 *               constant consumer is const_fold's cone); the FLOAT32 constant fits
 *               opts.max_const_bytes (the file grows by 3 bytes per int8 weight: the
 *               price of keeping the model on the GPU). Applied wherever it holds (scope
 *               "any"): the GPU accepts the node and fails to build its consumers' kernels.
 * Exactness:    bit-exact (the constant is the interpreter's own DEQUANTIZE output).
 */
static const int32_t dq_anchors[] = { GC_OP_DEQUANTIZE, -1 };

static int dq_apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs != 1 || o->n_outputs != 1) return fx_pass_over(c);
    int32_t x = o->inputs[0], y = o->outputs[0];
    if (x < 0 || y < 0 || !fx_is_const(c, x)) return fx_pass_over(c);
    int xt = fx_t(c, x)->type;
    if (xt != GC_T_INT8 && xt != GC_T_UINT8 && xt != GC_T_INT16) return fx_pass_over(c);   /* fp16: right */
    if (fx_t(c, y)->type != GC_T_FLOAT32) return fx_decline(c, "the output is %s, not FLOAT32", gc_type_name(fx_t(c, y)->type));
    if (fx_is_graph_output(c, y)) return fx_decline(c, "the dequantized tensor is a model output");
    graph g;
    if (!graph_build(c, &g)) { graph_free(&g); return -1; }
    int rc = 1;
    if (!g.cop[op]) {
        char buf[256];
        const char *why = why_not(c, op, buf, sizeof buf);
        rc = fx_decline(c, "%s", why ? why : "not constant-computable");
    }
    for (int32_t j = g.cons_off[y]; rc == 1 && j < g.cons_off[y + 1]; j++)
        if (g.cop[g.cons[j]]) rc = fx_pass_over(c);   /* a constant consumer: const_fold's cone */
    if (rc == 1 && g.cons_off[y] == g.cons_off[y + 1]) rc = fx_pass_over(c);
    if (rc == 1) {
        g.in[op] = true;
        rc = fold(c, &g, 1);
    }
    graph_free(&g);
    return rc;
}

const gc_fix_pass gc_fix_dequantize_const = {
    .id = "dequantize_const",
    .fix_id = "fix.dequantize.const",
    .summary = "DEQUANTIZE of a constant int8/uint8/int16 tensor -> a FLOAT32 constant (the interpreter's values)",
    .anchors = dq_anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_ANY,
    .apply = dq_apply,
};

const gc_fix_pass gc_fix_const_fold = {
    .id = "const_fold",
    .fix_id = "fix.const_fold",
    .summary = "a cone of ops computed only from constants -> its results as constants (reference interpreter, "
               "whole cone at once, size-guarded)",
    .anchors = NULL,              /* any op */
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
