/* bmm_mask_expand.c — pass bmm_mask_expand [fix.bmm_mask.expand]
 *
 * Rewrite:      ADD(scores, mask) where scores [B,H,S,T] comes from a BATCH_MATMUL and the
 *               mask is [1,1,S,T] (or any shape broadcast on the head axis)  ->
 *               ADD(scores, mask expanded to the scores' shape): a constant mask is
 *               baked at the full shape (size-guarded), a runtime mask goes through
 *               TILE. The seed's "masked attention wrong only on device: token 0
 *               bit-exact, every later token wrong" — the broadcast ADD onto a
 *               BATCH_MATMUL result is silently miscomputed on older runtimes (head-axis
 *               size-1 broadcast only; LiteRT #8593, the checker's
 *               fp16.bmm_mask_broadcast risk). Fixed in newer runtimes; the rewrite
 *               costs H times the mask's memory (constant) or one TILE per inference.
 * Precondition: the node carries the fp16.bmm_mask_broadcast risk (the checker found
 *               the BATCH_MATMUL); rank-4 static operands; the mask broadcasts to the
 *               output shape; a constant mask takes at most opts.max_const_bytes
 *               expanded; same element type.
 * Exactness:    bit-exact (each score meets the same mask value as before).
 */
#include "fix_int.h"

#include <stdlib.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_ADD, -1 };

static int apply(gc_fix_ctx *c, int32_t op) {
    const gc_op *o = fx_op(c, op);
    if (o->n_inputs != 2 || o->n_outputs != 1) return fx_pass_over(c);
    gc_fix_tinfo in[2], y;
    if (!fx_info(c, o->inputs[0], &in[0]) || !fx_info(c, o->inputs[1], &in[1]) || !fx_info(c, o->outputs[0], &y))
        return fx_pass_over(c);
    int mk = -1;
    for (int k = 0; k < 2; k++)
        if (in[k].rank == 4 && in[1 - k].rank == 4 && in[k].shape[1] == 1 && in[1 - k].shape[1] > 1) mk = k;
    if (mk < 0) return fx_pass_over(c);
    gc_fix_tinfo *m = &in[mk], *s = &in[1 - mk];
    if (!m->is_static || !s->is_static || !y.is_static || y.rank != 4) return fx_decline(c, "dynamic shapes");
    if (m->type != y.type || !fx_same_quant(m->quant, y.quant))
        return fx_decline(c, "the mask's type or quantization differs from the output's");
    int32_t mult[4];
    for (int d = 0; d < 4; d++) {
        if (m->shape[d] != y.shape[d] && m->shape[d] != 1) return fx_decline(c, "the mask does not broadcast");
        mult[d] = m->shape[d] == y.shape[d] ? 1 : y.shape[d];
    }
    gc_options opt = o->opt;
    int32_t version = gc_op_code(c->m, o)->version;
    int32_t ins[2] = { in[0].index, in[1].index };
    fx_remove_op(c, op);
    int32_t at = op, full;
    char dims[128];
    fx_dims(dims, sizeof dims, 4, y.shape);
    if (m->is_const) {
        uint64_t nb = 0;
        const uint8_t *src = fx_data(c, m->index, &nb);
        size_t es = (size_t)gc_type_size(m->type);
        int64_t n = fx_numel(fx_t(c, y.index));
        if (!src || !fx_plain_type(m->type) || n <= 0) return fx_decline(c, "the mask constant is not readable");
        uint64_t bytes = (uint64_t)n * es;
        if (bytes > c->opts->max_const_bytes)
            return fx_decline(c, "the expanded mask would take %llu bytes, over the %llu-byte limit",
                              (unsigned long long)bytes, (unsigned long long)c->opts->max_const_bytes);
        uint8_t *dst = malloc((size_t)bytes);
        if (!dst) return -1;
        int64_t ms[4];
        ms[3] = m->shape[3] == 1 ? 0 : 1;
        ms[2] = m->shape[2] == 1 ? 0 : m->shape[3];
        ms[1] = m->shape[1] == 1 ? 0 : (int64_t)m->shape[3] * m->shape[2];
        ms[0] = m->shape[0] == 1 ? 0 : (int64_t)m->shape[3] * m->shape[2] * m->shape[1];
        size_t k = 0;
        for (int32_t i0 = 0; i0 < y.shape[0]; i0++)
            for (int32_t i1 = 0; i1 < y.shape[1]; i1++)
                for (int32_t i2 = 0; i2 < y.shape[2]; i2++)
                    for (int32_t i3 = 0; i3 < y.shape[3]; i3++, k++)
                        memcpy(dst + k * es, src + (size_t)(i0 * ms[0] + i1 * ms[1] + i2 * ms[2] + i3 * ms[3]) * es, es);
        full = fx_new_const(c, y.name, "mask_full", m->type, 4, y.shape, dst, bytes, m->quant);
        free(dst);
        if (full < 0) return -1;
        fx_note(c, "mask baked at %s (%llu bytes), ", dims, (unsigned long long)bytes);
    } else {
        full = fx_new_tensor(c, y.name, "mask_full", m->type, 4, y.shape, m->quant);
        int32_t mt = fx_const_i32(c, y.name, "multiples", 4, mult);
        if (full < 0 || mt < 0) return -1;
        int32_t tin[2] = { m->index, mt };
        if (fx_add_op(c, at++, GC_OP_TILE, fx_version_for(GC_OP_TILE, m->type, 4), 2, tin, 1, &full) < 0) return -1;
        fx_note(c, "mask TILEd to %s, ", dims);
    }
    ins[mk] = full;
    int32_t k = fx_add_op(c, at, GC_OP_ADD, version, 2, ins, 1, &y.index);
    if (k < 0) return -1;
    fx_op(c, k)->opt = opt;
    fx_note(c, "ADD without head-axis broadcast");
    return 1;
}

const gc_fix_pass gc_fix_bmm_mask_expand = {
    .id = "bmm_mask_expand",
    .fix_id = "fix.bmm_mask.expand",
    .summary = "attention mask [1,1,S,T] added to a BATCH_MATMUL result -> mask expanded to the scores' shape",
    .anchors = anchors,
    .exactness = GC_FIX_BIT_EXACT,
    .scope = GC_FIX_SCOPE_REFUSED,
    .risk = "fp16.bmm_mask_broadcast",
    .apply = apply,
};
