/* const_fold.c — pass const_fold [fix.const_fold]
 *
 * Rewrite:      an op whose inputs are all constants  ->  its outputs as constants, the
 *               values computed by gpuclean's reference interpreter (fp32 mode) on a
 *               one-op model built around the op; the op disappears. Typical sources: a
 *               Linear applied to a parameter (FULLY_CONNECTED "doesn't support constant
 *               input"), shape arithmetic left in the graph, DEQUANTIZE of weights
 *               feeding a refused op, and chains of these (each fold can make the next
 *               op all-constant; the driver repeats).
 * Precondition: every present input is a constant (not a variable); the op has a kernel
 *               in the interpreter and no subgraphs or side effects (not CALL, IF,
 *               WHILE, STABLEHLO_COMPOSITE, custom ops); no output is a model output;
 *               static output shapes; the outputs take at most opts.max_const_bytes, and
 *               either no more bytes than the inputs or at most 1 MiB — folding must not
 *               explode the file (seed: "a frozen-param x constant product materializes
 *               at full size per block").
 * Exactness:    bit-exact with respect to the reference interpreter, the ground truth
 *               for rewrites (the folded bytes are the interpreter's own output for the
 *               same inputs).
 */
#include "fix_int.h"

#include <string.h>
#include "interp/interp.h"

#define GROWTH_ALLOWED (1u << 20)

static bool foldable_code(int32_t code) {
    switch (code) {
    case GC_OP_CALL: case GC_OP_IF: case GC_OP_WHILE: case GC_OP_STABLEHLO_COMPOSITE: case GC_OP_CUSTOM:
        return false;
    default:
        return gc_interp_has_kernel(code);
    }
}

/* Run op `op` alone in fp32 and store each output as a constant. 1 done, 0 declined. */
static int fold(gc_fix_ctx *c, int32_t op) {
    const gc_op *src = fx_op(c, op);
    const gc_opcode *oc = gc_op_code(c->m, src);
    gc_model *mm = gc_model_new();
    if (!mm) return -1;
    int rc = 1;
    int32_t sg = gc_model_add_subgraph(mm, "fold");
    int32_t in[64], out[64];
    int n_in = src->n_inputs, n_out = src->n_outputs;
    if (sg < 0 || n_in > 64 || n_out > 64) { gc_model_free(mm); return n_in > 64 || n_out > 64 ? fx_decline(c, "too many operands") : -1; }
    for (int k = 0; k < n_in; k++) {
        int32_t t = src->inputs[k];
        if (t < 0) { in[k] = -1; continue; }
        const gc_tensor *x = fx_t(c, t);
        uint64_t nb = 0;
        const void *d = fx_data(c, t, &nb);
        int32_t b = gc_model_add_buffer_ref(mm, d, nb);
        in[k] = b < 0 ? -1 : gc_sg_add_tensor(mm, sg, x->name, x->type, x->rank, x->shape, (uint32_t)b);
        if (b < 0 || in[k] < 0) { gc_model_free(mm); return -1; }
        mm->subgraphs[sg].tensors[in[k]].quant = x->quant;
        mm->subgraphs[sg].tensors[in[k]].sparsity = x->sparsity;
    }
    for (int k = 0; k < n_out; k++) {
        const gc_tensor *y = fx_t(c, src->outputs[k]);
        out[k] = gc_sg_add_tensor(mm, sg, y->name, y->type, y->rank, y->shape, 0);
        if (out[k] < 0) { gc_model_free(mm); return -1; }
        mm->subgraphs[sg].tensors[out[k]].quant = y->quant;
    }
    int32_t moc = gc_model_add_opcode(mm, oc->builtin_code, NULL, oc->version);
    int32_t k = moc < 0 ? -1 : gc_sg_insert_op(mm, sg, 0, moc, n_in, in, n_out, out);
    if (k < 0) { gc_model_free(mm); return -1; }
    gc_op *dst = &mm->subgraphs[sg].ops[k];
    dst->opt = src->opt;          /* read-only views into the source model's arena */
    dst->opt2 = src->opt2;
    gc_sg_set_io(mm, sg, 0, NULL, n_out, out);
    gc_interp_opts io;
    memset(&io, 0, sizeof io);
    io.precision = GC_PREC_FP32;
    io.signature = -1;
    io.subgraph = sg;
    char err[512];
    gc_interp *it = gc_interp_new(mm, &io, err, sizeof err);
    if (!it) rc = fx_decline(c, "the interpreter cannot fold it: %s", err);
    else if (gc_interp_prepare(it) != GC_OK || gc_interp_invoke(it) != GC_OK)
        rc = fx_decline(c, "the interpreter cannot fold it: %s", gc_interp_errmsg(it));
    if (rc == 1) {
        /* outputs in order; check every shape before changing anything */
        for (int j = 0; j < n_out && rc == 1; j++) {
            gc_tview v = gc_interp_output(it, j);
            const gc_tensor *y = fx_t(c, src->outputs[j]);
            bool same = v.rank == y->rank && v.dtype == y->type;
            for (int d = 0; same && d < v.rank; d++) same = v.shape[d] == y->shape[d];
            if (!same) rc = fx_decline(c, "the folded output %d has another shape or type than the model says", j);
            else if (v.nbytes == 0) rc = fx_decline(c, "empty output");
        }
        int32_t outs[64];
        for (int j = 0; j < n_out; j++) outs[j] = src->outputs[j];
        uint64_t total = 0;
        for (int j = 0; j < n_out && rc == 1; j++) {
            gc_tview v = gc_interp_output(it, j);
            total += v.nbytes;
            if (!fx_make_const(c, outs[j], v.data, v.nbytes)) rc = -1;
        }
        if (rc == 1) {
            fx_remove_op(c, op);
            char dims[128];
            const gc_tensor *y = fx_t(c, outs[0]);
            fx_dims(dims, sizeof dims, y->rank, y->shape);
            fx_note(c, "constant %s %s%s (%llu bytes)", gc_type_name(y->type), dims, n_out > 1 ? " and more" : "",
                        (unsigned long long)total);
        }
    }
    gc_interp_free(it);
    gc_model_free(mm);
    return rc;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    int32_t code = fx_code(c, op);
    const gc_op *o0 = fx_op(c, op);
    for (int32_t k = 0; k < o0->n_inputs; k++)
        if (o0->inputs[k] >= 0 && !fx_is_const(c, o0->inputs[k])) return fx_pass_over(c);
    if (!foldable_code(code))
        return fx_decline(c, "%s is not folded (no interpreter kernel, subgraphs or side effects)",
                              gc_op_name(c->m, fx_op(c, op)));
    const gc_op *o = fx_op(c, op);
    if (o->n_outputs < 1) return fx_decline(c, "no outputs");
    uint64_t in_bytes = 0, out_bytes = 0;
    int n_present = 0;
    for (int32_t k = 0; k < o->n_inputs; k++) {
        int32_t t = o->inputs[k];
        if (t < 0) continue;
        n_present++;
        uint64_t nb = 0;
        if (!fx_data(c, t, &nb)) return fx_pass_over(c);   /* not a constant subgraph */
        in_bytes += nb;
    }
    if (!n_present) return fx_decline(c, "no inputs");
    for (int32_t k = 0; k < o->n_outputs; k++) {
        int32_t t = o->outputs[k];
        if (t < 0) return fx_decline(c, "missing output");
        if (fx_is_graph_output(c, t)) return fx_decline(c, "output '%s' is a model output", fx_t(c, t)->name);
        if (!fx_is_static(c, t)) return fx_decline(c, "dynamic output shape");
        uint64_t nb = gc_type_bytes(fx_t(c, t)->type, gc_tensor_numel(fx_t(c, t)));
        if (nb == UINT64_MAX) return fx_decline(c, "output type %s has no fixed size", gc_type_name(fx_t(c, t)->type));
        out_bytes += nb;
    }
    if (out_bytes > c->opts->max_const_bytes)
        return fx_decline(c, "the folded constants would take %llu bytes, over the %llu-byte limit",
                              (unsigned long long)out_bytes, (unsigned long long)c->opts->max_const_bytes);
    if (out_bytes > in_bytes && out_bytes > GROWTH_ALLOWED)
        return fx_decline(c, "folding would grow the file by %llu bytes (from %llu input bytes)",
                              (unsigned long long)(out_bytes - in_bytes), (unsigned long long)in_bytes);
    return fold(c, op);
}

const gc_fix_pass gc_fix_const_fold = {
    .id = "const_fold",
    .fix_id = "fix.const_fold",
    .summary = "an op whose inputs are all constant -> constants computed by the reference interpreter",
    .anchors = NULL,              /* any op */
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
