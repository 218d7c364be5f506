/* control.c — ops that run other subgraphs: CALL, STABLEHLO_COMPOSITE, IF, WHILE.
 *
 * Each called subgraph is prepared as a child frame (its own tensors, plan and arena
 * region) with the caller's input shapes; its outputs are copied back to the op's
 * outputs. The child's nodes are reported to on_node with their own subgraph index.
 *   CALL(x...)                 options.subgraph.
 *   STABLEHLO_COMPOSITE(x...)  runs options (BuiltinOptions2) decomposition_subgraph_index,
 *                              which is the composite's reference semantics.
 *   IF(cond, x...)             cond: BOOL (or number) scalar; then / else subgraphs must
 *                              give the same output shapes.
 *   WHILE(x...)                loop state = the op's outputs (initialised from x);
 *                              cond subgraph -> BOOL scalar; body maps state -> state with
 *                              unchanged shapes (shape-changing loops are not supported).
 * Never evaluated at prepare. fp16: the child's own kernels round.
 */
#include "interp/interp_impl.h"

typedef struct { gc_frame *a, *b; } ctl_data;

static gc_status call_common(gc_ctx *ctx, gc_node *n, int32_t sg) {
    ctl_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    GC_TRY(gc_frame_child(ctx, n, sg, n->n_in, n->in, &d->a));
    const gc_subgraph *s = d->a->s;
    GC_ENSURE(ctx, s->n_outputs == n->n_out, "subgraph %d has %d outputs, the op %d", (int)sg, (int)s->n_outputs, n->n_out);
    for (int k = 0; k < n->n_out; k++) {
        gc_rt *r = &d->a->t[s->outputs[k]];
        GC_ENSURE(ctx, r->dtype == n->out[k]->dtype, "output %d: subgraph gives %s, op says %s", k,
                  gc_type_name(r->dtype), gc_type_name(n->out[k]->dtype));
        GC_TRY(gc_set_shape(ctx, n->out[k], r->rank, r->shape));
    }
    n->data = d;
    return GC_OK;
}

static gc_status call_prepare(gc_ctx *ctx, gc_node *n) {
    for (int i = 0; i < n->n_in; i++) GC_ENSURE(ctx, n->in[i], "input %d is absent", i);
    return call_common(ctx, n, (int32_t)gc_opt_int(gc_opts(n), GC_O_CallOptions_subgraph));
}

static gc_status composite_prepare(gc_ctx *ctx, gc_node *n) {
    for (int i = 0; i < n->n_in; i++) GC_ENSURE(ctx, n->in[i], "input %d is absent", i);
    int32_t sg = (int32_t)gc_opt_int(&n->op->opt2, GC_O_StableHLOCompositeOptions_decomposition_subgraph_index);
    return call_common(ctx, n, sg);
}

static gc_status call_eval(gc_ctx *ctx, gc_node *n) {
    ctl_data *d = n->data;
    return gc_frame_call(ctx, d->a, n->n_in, n->in, n->n_out, n->out);
}

/* ---- IF ------------------------------------------------------------------------------------ */

static gc_status if_prepare(gc_ctx *ctx, gc_node *n) {
    GC_ENSURE(ctx, n->n_in >= 1 && n->in[0], "IF needs a condition");
    for (int i = 0; i < n->n_in; i++) GC_ENSURE(ctx, n->in[i], "input %d is absent", i);
    GC_ENSURE(ctx, gc_numel(n->in[0]) == 1, "condition must be a scalar");
    ctl_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    int32_t t = (int32_t)gc_opt_int(gc_opts(n), GC_O_IfOptions_then_subgraph_index);
    int32_t e = (int32_t)gc_opt_int(gc_opts(n), GC_O_IfOptions_else_subgraph_index);
    GC_TRY(gc_frame_child(ctx, n, t, n->n_in - 1, n->in + 1, &d->a));
    GC_TRY(gc_frame_child(ctx, n, e, n->n_in - 1, n->in + 1, &d->b));
    GC_ENSURE(ctx, d->a->s->n_outputs == n->n_out && d->b->s->n_outputs == n->n_out, "branch output counts differ from the op's");
    for (int k = 0; k < n->n_out; k++) {
        gc_rt *ra = &d->a->t[d->a->s->outputs[k]], *rb = &d->b->t[d->b->s->outputs[k]];
        GC_UNSUP(ctx, gc_same_shape(ra, rb), "IF branches give different shapes for output %d", k);
        GC_ENSURE(ctx, ra->dtype == n->out[k]->dtype, "output %d type differs", k);
        GC_TRY(gc_set_shape(ctx, n->out[k], ra->rank, ra->shape));
    }
    n->data = d;
    return GC_OK;
}

static gc_status if_eval(gc_ctx *ctx, gc_node *n) {
    ctl_data *d = n->data;
    bool c = n->in[0]->dtype == GC_T_FLOAT32 ? ((float *)n->in[0]->data)[0] != 0 : gc_get_int(n->in[0], 0) != 0;
    return gc_frame_call(ctx, c ? d->a : d->b, n->n_in - 1, n->in + 1, n->n_out, n->out);
}

/* ---- WHILE ----------------------------------------------------------------------------------- */

static gc_status while_prepare(gc_ctx *ctx, gc_node *n) {
    GC_ENSURE(ctx, n->n_in == n->n_out, "WHILE needs as many outputs as inputs");
    for (int i = 0; i < n->n_in; i++) GC_ENSURE(ctx, n->in[i], "input %d is absent", i);
    ctl_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    int32_t c = (int32_t)gc_opt_int(gc_opts(n), GC_O_WhileOptions_cond_subgraph_index);
    int32_t b = (int32_t)gc_opt_int(gc_opts(n), GC_O_WhileOptions_body_subgraph_index);
    GC_TRY(gc_frame_child(ctx, n, c, n->n_in, n->in, &d->a));
    GC_TRY(gc_frame_child(ctx, n, b, n->n_in, n->in, &d->b));
    GC_ENSURE(ctx, d->a->s->n_outputs == 1, "cond subgraph must have one output");
    gc_rt *cr = &d->a->t[d->a->s->outputs[0]];
    GC_ENSURE(ctx, gc_numel(cr) == 1, "cond must give a scalar");
    GC_ENSURE(ctx, d->b->s->n_outputs == n->n_out, "body gives %d outputs for %d loop variables", (int)d->b->s->n_outputs, n->n_out);
    for (int k = 0; k < n->n_out; k++) {
        gc_rt *r = &d->b->t[d->b->s->outputs[k]];
        GC_UNSUP(ctx, gc_same_shape(r, n->in[k]), "loop variable %d changes shape in the body", k);
        GC_ENSURE(ctx, n->out[k]->dtype == n->in[k]->dtype, "output %d type differs from input", k);
        GC_TRY(gc_set_shape(ctx, n->out[k], n->in[k]->rank, n->in[k]->shape));
    }
    n->data = d;
    return GC_OK;
}

static gc_status while_eval(gc_ctx *ctx, gc_node *n) {
    ctl_data *d = n->data;
    for (int k = 0; k < n->n_in; k++) memmove(n->out[k]->data, n->in[k]->data, n->out[k]->nbytes);
    gc_rt *cr = &d->a->t[d->a->s->outputs[0]];
    for (long iter = 0;; iter++) {
        GC_ENSURE(ctx, iter < 100000000L, "WHILE ran 1e8 iterations");
        GC_TRY(gc_frame_call(ctx, d->a, n->n_out, n->out, 0, NULL));
        bool go = cr->dtype == GC_T_FLOAT32 ? ((float *)cr->data)[0] != 0 : gc_get_int(cr, 0) != 0;
        if (!go) break;
        GC_TRY(gc_frame_call(ctx, d->b, n->n_out, n->out, n->n_out, n->out));
    }
    return GC_OK;
}

const gc_kernel GC_K(gc_k_call) = { "CALL", call_prepare, call_eval, GC_K_NOFOLD };
const gc_kernel GC_K(gc_k_composite) = { "STABLEHLO_COMPOSITE", composite_prepare, call_eval, GC_K_NOFOLD };
const gc_kernel GC_K(gc_k_if) = { "IF", if_prepare, if_eval, GC_K_NOFOLD };
const gc_kernel GC_K(gc_k_while) = { "WHILE", while_prepare, while_eval, GC_K_NOFOLD };
