/* select_to_arith.c — pass select_to_arith [fix.select.arith]
 *
 * Rewrite:      SELECT(c, x, y) / SELECT_V2(c, x, y)  ->
 *                   m  = CAST(c -> T)            (1 where c, else 0)
 *                   nm = SUB(1, m)               (exact: m is 0 or 1)
 *                   out = ADD(MUL(x, m), MUL(y, nm))
 *               The seed's arithmetic form of torch.where / PReLU / ELU masking
 *               (x*m + v*(1-m)). Not y + m*(x - y): that rounds (x - y) and is not exact.
 *               SELECT's rank-1 condition (one flag per row) is reshaped to
 *               [n, 1, ..., 1] so it broadcasts like SELECT does.
 * Precondition: c is BOOL; x, y and the output share the type T, FLOAT32 or INT32, with
 *               no quantization; static shapes that broadcast (NumPy rules) to the
 *               output shape; constant x or y hold only finite values (inf * 0 is NaN).
 *               The checker accepts SELECT_V2 on ML Drift (and classic when if/else are
 *               not runtime 2-D), so by default only refused SELECTs are rewritten;
 *               --force select_to_arith rewrites all. The driver keeps a site only when
 *               the GPU accepts the CAST, SUB, MUL and ADD it makes (per src/check).
 * Exactness:    for finite x and y, every output equals the selected value (x*1 + y*0
 *               = x, 0 + y = y, in fp32 and int32); a -0 may come out as +0. If the
 *               selected-away value is inf or NaN the output is NaN (inf * 0): the
 *               caveat of the arithmetic form, stated as "exact for finite values".
 */
#include "fix_int.h"

#include <math.h>
#include <string.h>

static const int32_t anchors[] = { GC_OP_SELECT, GC_OP_SELECT_V2, -1 };

/* NumPy broadcast of two shapes; false when they do not broadcast */
static bool bcast(const int32_t *a, int ra, const int32_t *b, int rb, int32_t *o, int *ro) {
    int r = ra > rb ? ra : rb;
    if (r > GC_FIX_MAXR) return false;
    for (int d = 0; d < r; d++) {
        int ka = d - (r - ra), kb = d - (r - rb);
        int32_t da = ka >= 0 ? a[ka] : 1, db = kb >= 0 ? b[kb] : 1;
        if (da != db && da != 1 && db != 1) return false;
        o[d] = da == 1 ? db : da;
    }
    *ro = r;
    return true;
}

static bool all_finite(gc_fix_ctx *c, int32_t t) {
    uint64_t nb;
    const uint8_t *p = fx_data(c, t, &nb);
    if (!p) return true;
    if (fx_t(c, t)->type != GC_T_FLOAT32) return true;
    for (uint64_t i = 0; i + 4 <= nb; i += 4) {
        float f; memcpy(&f, p + i, 4);
        if (!isfinite(f)) return false;
    }
    return true;
}

static int apply(gc_fix_ctx *c, int32_t op) {
    bool v1 = fx_code(c, op) == GC_OP_SELECT;
    gc_fix_tinfo cd, x, y, o;
    if (!fx_info(c, fx_in(c, op, 0), &cd) || !fx_info(c, fx_in(c, op, 1), &x) || !fx_info(c, fx_in(c, op, 2), &y) ||
        !fx_info(c, fx_out(c, op, 0), &o))
        return fx_decline(c, "SELECT needs a condition, two values and an output of rank <= %d", GC_FIX_MAXR);
    if (cd.type != GC_T_BOOL) return fx_decline(c, "the condition is %s, not BOOL", gc_type_name(cd.type));
    if (o.type != GC_T_FLOAT32 && o.type != GC_T_INT32)
        return fx_decline(c, "values are %s (FLOAT32 and INT32 are rewritten)", gc_type_name(o.type));
    if (x.type != o.type || y.type != o.type) return fx_decline(c, "value types differ");
    if (!fx_same_quant(x.quant, NULL) || !fx_same_quant(y.quant, NULL) || !fx_same_quant(o.quant, NULL)) return fx_decline(c, "quantized values");
    if (!cd.is_static || !x.is_static || !y.is_static || !o.is_static) return fx_decline(c, "dynamic shapes");
    if (!all_finite(c, x.index) || !all_finite(c, y.index))
        return fx_decline(c, "a constant operand holds inf or NaN: inf * 0 would give NaN");
    /* the mask's shape: SELECT's rank-1 row condition becomes [n, 1, ..., 1] */
    int32_t mshape[GC_FIX_MAXR];
    int mrank = cd.rank;
    for (int d = 0; d < cd.rank; d++) mshape[d] = cd.shape[d];
    bool row_cond = false;
    if (v1 && cd.rank == 1 && x.rank > 1) {
        if (cd.shape[0] != x.shape[0]) return fx_decline(c, "row condition does not match the values");
        row_cond = true;
        mrank = x.rank;
        for (int d = 1; d < mrank; d++) mshape[d] = 1;
    }
    int32_t sa[GC_FIX_MAXR], sb[GC_FIX_MAXR], so[GC_FIX_MAXR];
    int ra, rb, rq;
    if (!bcast(x.shape, x.rank, mshape, mrank, sa, &ra) || !bcast(y.shape, y.rank, mshape, mrank, sb, &rb) ||
        !bcast(sa, ra, sb, rb, so, &rq))
        return fx_decline(c, "condition and values do not broadcast");
    if (rq != o.rank || memcmp(so, o.shape, sizeof(int32_t) * (size_t)rq))
        return fx_decline(c, "the broadcast shape is not the output shape");

    fx_remove_op(c, op);
    int32_t at = op;
    int T = o.type;
    int32_t m = fx_new_tensor(c, o.name, "mask", T, cd.rank, cd.shape, NULL);
    if (m < 0) return -1;
    int32_t k = fx_add_op(c, at++, GC_OP_CAST, 1, 1, &cd.index, 1, &m);
    if (k < 0) return -1;
    gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_CastOptions_in_data_type, GC_T_BOOL);
    gc_opt_set_int(c->m, &fx_op(c, k)->opt, GC_O_CastOptions_out_data_type, T);
    if (row_cond) {
        int32_t mr = fx_new_tensor(c, o.name, "mask_rows", T, mrank, mshape, NULL);
        if (mr < 0 || fx_add_reshape(c, at++, m, mr) < 0) return -1;
        m = mr;
    }
    int32_t one;
    if (T == GC_T_FLOAT32) one = fx_const_f32(c, o.name, "one", 1.0f, false);
    else { int32_t v = 1; one = fx_const_i32(c, o.name, "one", 1, &v); }
    int32_t nm = fx_new_tensor(c, o.name, "not_mask", T, mrank, mshape, NULL);
    if (one < 0 || nm < 0) return -1;
    int32_t in_s[2] = { one, m };
    if (fx_add_op(c, at++, GC_OP_SUB, 1, 2, in_s, 1, &nm) < 0) return -1;
    int32_t xa = fx_new_tensor(c, o.name, "x_masked", T, ra, sa, NULL);
    int32_t yb = fx_new_tensor(c, o.name, "y_masked", T, rb, sb, NULL);
    if (xa < 0 || yb < 0) return -1;
    int32_t in_a[2] = { x.index, m }, in_b[2] = { y.index, nm }, in_o[2] = { xa, yb };
    if (fx_add_op(c, at++, GC_OP_MUL, 1, 2, in_a, 1, &xa) < 0) return -1;
    if (fx_add_op(c, at++, GC_OP_MUL, 1, 2, in_b, 1, &yb) < 0) return -1;
    if (fx_add_op(c, at, GC_OP_ADD, 1, 2, in_o, 1, &o.index) < 0) return -1;
    fx_note(c, "CAST(cond -> %s)%s, SUB(1, m), MUL(x, m) + MUL(y, 1 - m)", gc_type_name(T),
                row_cond ? ", RESHAPE to rows" : "");
    return 1;
}

const gc_fix_pass gc_fix_select_to_arith = {
    .id = "select_to_arith",
    .fix_id = "fix.select.arith",
    .summary = "SELECT / SELECT_V2 -> x*m + y*(1-m), m = CAST(cond)",
    .anchors = anchors,
    .exactness = GC_FIX_EXACT_FINITE,
    .scope = GC_FIX_SCOPE_REFUSED,
    .apply = apply,
};
