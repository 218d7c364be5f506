/* fp16_chains.c — the float chains around reductions (fp16_model.h, reduce_chains; both
 * runtimes, measured): ML Drift's reduce kernels sum in float (float4 accumulators) and the
 * elementwise ops linked to a kernel run in its registers before the one store, so a
 * chain
 *     SQUARED_DIFFERENCE -> MEAN / SUM -> ADD / SUB / MUL / DIV / RSQRT / SQRT ... (RESHAPEs between)
 * keeps float from the reduction's input to the chain's last op, which alone is stored
 * (rounded to half). A link needs a single consumer and no graph output in between; the
 * linked binary ops take any other operand (a constant, a scalar, or a runtime tensor:
 * measured, docs/fp16-model.md).
 * This marks node->keep_float on every op of such a chain but the last; the core then
 * skips their output rounding (and SQUARED_DIFFERENCE its difference rounding).
 */
#include "interp/interp_impl.h"

#include <stdlib.h>

static int consumers(const gc_frame *f, const gc_rt *t, const gc_node **only) {
    int c = 0;
    for (int32_t i = 0; i < f->n_nodes; i++) {
        const gc_node *n = &f->nodes[i];
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] == t) { c++; *only = n; break; }
    }
    return c;
}

static bool graph_output(const gc_frame *f, const gc_rt *t) {
    for (int k = 0; k < f->s->n_outputs; k++) if (&f->t[f->s->outputs[k]] == t) return true;
    return false;
}

static bool linkable(const gc_node *n) {
    switch (n->code) {
    case GC_OP_RESHAPE: case GC_OP_RSQRT: case GC_OP_SQRT:
        return true;
    case GC_OP_ADD: case GC_OP_SUB: case GC_OP_MUL: case GC_OP_DIV: {
        if (n->n_in < 2 || !n->in[0] || !n->in[1]) return false;
        /* the other operand: a constant, one element, or (measured 2026-12-02: a zero row's
         * (x - mean) * rsqrt(0 + 1e-12) came back finite on the H200, so the 1e6 was not
         * stored to half) a runtime tensor read by the linked kernel */
        return true;
    }
    default:
        return false;
    }
}

/* the single float consumer of node n's output, when n may stay float for it */
static gc_node *next_link(gc_frame *f, gc_node *n) {
    if (n->n_out != 1 || !n->out[0] || n->out[0]->dtype != GC_T_FLOAT32 || graph_output(f, n->out[0])) return NULL;
    const gc_node *c = NULL;
    if (consumers(f, n->out[0], &c) != 1 || c->folded) return NULL;
    return (gc_node *)c;
}

void gc_f16_mark_chains(gc_frame *f) {
    for (int32_t i = 0; i < f->n_nodes; i++) {
        gc_node *n = &f->nodes[i];
        if (n->folded || (n->code != GC_OP_MEAN && n->code != GC_OP_SUM)) continue;
        if (n->n_out != 1 || !n->out[0] || n->out[0]->dtype != GC_T_FLOAT32) continue;
        /* the reduction's input: a SQUARED_DIFFERENCE read in float by the reduce kernel */
        if (n->in[0]) {
            for (int32_t k = 0; k < i; k++) {
                gc_node *p = &f->nodes[k];
                if (!p->folded && p->code == GC_OP_SQUARED_DIFFERENCE && p->n_out == 1 && p->out[0] == n->in[0] &&
                    next_link(f, p) == n)
                    p->keep_float = true;
            }
        }
        /* after it: the linked elementwise ops */
        gc_node *cur = n;
        for (;;) {
            gc_node *c = next_link(f, cur);
            if (!c || !linkable(c)) break;
            cur->keep_float = true;
            cur = c;
        }
    }
}
