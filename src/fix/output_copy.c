/* output_copy.c — pass output_copy [fix.output.copy]
 *
 * Rewrite:      y = FULLY_CONNECTED(...) where y is a subgraph output AND read by other ops
 *               (y = fc(x); return y, y + k)  ->
 *                   t = the same FULLY_CONNECTED writing a new tensor t ("<y>/gc_fix/value",
 *                       y's type, static shape and quantization)
 *                   every op that read y reads t instead
 *                   y = RESHAPE(t) to y's static shape (an identity copy)
 *               y keeps its tensor index and name, so the subgraph's output list, the
 *               signatures and the names users read outputs by are unchanged; only the ops
 *               inside the graph now read t. Measured on the H200 (both runtimes, fp32 and
 *               fp16): a FULLY_CONNECTED whose output tensor is both a graph output and read
 *               by another op comes back wrong (fact numerics.output_also_consumed, corr
 *               0.38 native / 0.07-0.20 LiteRT.js; sweep alias_fc_add; LiteRT#8599).
 * Precondition: the FULLY_CONNECTED has one output y; y is named exactly once in the
 *               subgraph's outputs (a list naming it twice is declined) and read by at least
 *               one op; y is not a subgraph input nor a variable; y has a static shape, rank
 *               <= GC_FIX_MAXR and a plain element type. Otherwise nothing is measured
 *               (passed over silently) or the site is declined with the reason.
 * Exactness:    bit-exact: the FULLY_CONNECTED computes the same values into t, the consumers
 *               read exactly those values, and RESHAPE to the same shape copies every byte.
 *
 * Unlike most passes this one rewires consumers (their input lists name t instead of y:
 * fx_replace_input_uses) and keeps the anchor op, changing only its output index in place;
 * the driver's snapshot restores every op's input and output lists on rollback (fix.c
 * snap_take / snap_restore).
 */
#include "fix_int.h"

static const int32_t anchors[] = { GC_OP_FULLY_CONNECTED, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_outputs != 1) return fx_decline(c, "%d outputs (one expected)", (int)o->n_outputs);
    gc_fix_tinfo y;
    if (!fx_info(c, fx_out(c, op, 0), &y)) return fx_decline(c, "missing output or rank > %d", GC_FIX_MAXR);
    const gc_subgraph *sg = fx_sg(c);
    int named = 0;
    for (int32_t k = 0; k < sg->n_outputs; k++) named += sg->outputs[k] == y.index;
    int32_t readers = gc_sg_consumers(c->m, c->sg, y.index, NULL, 0);
    if (named == 0 || readers == 0) return fx_pass_over(c);   /* not output-and-consumed: nothing measured */
    if (named > 1) return fx_decline(c, "the subgraph's output list names '%s' %d times", y.name, named);
    for (int32_t k = 0; k < sg->n_inputs; k++)
        if (sg->inputs[k] == y.index) return fx_decline(c, "'%s' is also a subgraph input", y.name);
    if (fx_t(c, y.index)->is_variable) return fx_decline(c, "'%s' is a variable tensor", y.name);
    if (!y.is_static) return fx_decline(c, "dynamic shapes");
    if (!fx_plain_type(y.type)) return fx_decline(c, "element type %d", y.type);
    if (y.rank < 1) return fx_decline(c, "a rank-0 output");
    int32_t t = fx_new_tensor(c, y.name, "value", y.type, y.rank, y.shape, y.quant);
    if (t < 0) return -1;
    /* the FULLY_CONNECTED writes t (its options, version and inputs untouched) */
    fx_op(c, op)->outputs[0] = t;
    int32_t moved = fx_replace_input_uses(c, y.index, t, op);
    if (fx_add_reshape(c, op + 1, t, y.index) < 0) return -1;
    char d[96];
    fx_dims(d, sizeof d, y.rank, y.shape);
    fx_note(c, "the FULLY_CONNECTED writes '%s', its %d reader input(s) read that; the output '%s' is a RESHAPE copy %s",
            fx_t(c, t)->name, (int)moved, y.name, d);
    return 1;
}

const gc_fix_pass gc_fix_output_copy = {
    .id = "output_copy",
    .fix_id = "fix.output.copy",
    .summary = "a FULLY_CONNECTED output that is also read inside the graph -> readers take an internal tensor, "
               "the output is a RESHAPE copy",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
