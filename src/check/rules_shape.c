/* rules_shape.c — shape and data-movement ops (gpu-delegate-rules.md §3.4 classic rows:
 * RESHAPE, CONCATENATION, PACK, UNPACK, SPLIT(_V), SLICE, STRIDED_SLICE, TRANSPOSE, TILE,
 * PAD / PADV2 / MIRROR_PAD, DEPTH_TO_SPACE, SPACE_TO_DEPTH, GATHER with their [P] notes;
 * §3.3 RESIZE_*; §4.3 ML Drift rows: SLICE ranks 1-4, STRIDED_SLICE own check (v2,
 * params length rank or rank-1, "Output shape mismatch"), TRANSPOSE perm length, PAD
 * paddings readable as INT32, GATHER dtype match, REVERSE_V2, BROADCAST_IN_DIM,
 * DYNAMIC_UPDATE_SLICE, BITCAST; §2.1 BHWC mapping used by every shape computation).
 */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

/* gc_bhwc widened to int64 for the size arithmetic below */
static void bhwc(const gc_tensor *t, int64_t s[4]) {
    int32_t s32[4];
    gc_bhwc(t, s32);
    for (int i = 0; i < 4; i++) s[i] = s32[i];
}

static int64_t div_up(int64_t n, int64_t d) { return d ? (n + d - 1) / d : 0; }

/* ---- RESHAPE ------------------------------------------------------------------------------- */

int gc_ml_reshape(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    return gc_pre_outputs(c, h);
}

int gc_cl_reshape(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- CONCATENATION / PACK / UNPACK ------------------------------------------------------------ */

/* the axis both delegates infer from the input shapes; -1 = UNKNOWN */
static int concat_axis(const gc_rctx *c) {
    int n = c->n_in;
    if (n < 1 || !gc_in(c, 0)) return 0;
    int64_t s0[4], si[4];
    bhwc(gc_in(c, 0), s0);
    /* (the three compared axes for BATCH->HEIGHT, HEIGHT->WIDTH, WIDTH->CHANNELS, CHANNELS->?) */
    static const int cmp[4][3] = { {1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 2, 1} };
    for (int step = 0; step < 4; step++) {
        bool found = false;
        for (int i = 1; i < n && !found; i++) {
            const gc_tensor *t = gc_in(c, i);
            if (!t) continue;
            bhwc(t, si);
            found = s0[cmp[step][0]] != si[cmp[step][0]] && s0[cmp[step][1]] != si[cmp[step][1]] &&
                    s0[cmp[step][2]] != si[cmp[step][2]];
        }
        if (!found) return step;       /* BATCH, HEIGHT, WIDTH, CHANNELS */
    }
    return -1;
}

int gc_ml_concat(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 6)));
    for (int i = 0; i < c->n_in; i++) GC_TRY(gc_pre_read_value(c, h, i));
    if (concat_axis(c) < 0) GC_REJECT(h, "concat.axis", -1, "Couldn't find an axis to concatenate by.");
    return gc_pre_fuse_act(
        c, h, gc_opt_i(c, GC_BO_ConcatenationOptions, GC_O_ConcatenationOptions_fused_activation_function), false);
}

int gc_cl_concat(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

static int const_inputs_4d(const gc_rctx *c, gc_hit *h) {
    for (int i = 0; i < c->n_in; i++) {
        const gc_tensor *t = gc_in(c, i);
        if (t && gc_is_const_in(c, i) && t->rank != 4) {
            char d[64];
            gc_dims_str(t, d, sizeof d, true);
            GC_REJECT(h, "concat.const_rank", gc_in_idx(c, i), "Expected a 4D tensor of shape BxHxWxC but got %s", d);
        }
    }
    return 0;
}

int gc_clp_concat(const gc_rctx *c, gc_hit *h) {
    if (gc_opt_i(c, GC_BO_ConcatenationOptions, GC_O_ConcatenationOptions_fused_activation_function) == 5)
        GC_REJECT(h, "activation", -1, "Unsupported fused activation: 5");
    GC_TRY(const_inputs_4d(c, h));
    if (concat_axis(c) < 0)
        GC_REJECT(h, "concat.axis", -1, "Can concatenate tensors only by batch, height, width, or channels.");
    return 0;
}

int gc_ml_pack(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    if (c->n_in == 1) {
        GC_TRY(gc_pre_read_value(c, h, 0));
        return gc_pre_outputs(c, h);
    }
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    for (int i = 0; i < c->n_in; i++) GC_TRY(gc_pre_runtime_or_const(c, h, i));
    const gc_tensor *o = gc_out(c, 0);
    if (!o) GC_REJECT(h, "outputs.count", -1, "output #0 tensor is not available");
    GC_TRY(gc_pre_axis(h, o, gc_opt_i(c, GC_BO_PackOptions, GC_O_PackOptions_axis)));
    return gc_pre_tensor_shape(h, o, gc_out_idx(c, 0));
}

int gc_clp_pack(const gc_rctx *c, gc_hit *h) {
    if (c->n_in < 2) return 0;
    GC_TRY(const_inputs_4d(c, h));
    const gc_tensor *o = gc_out(c, 0);
    if (o) GC_TRY(gc_pre_axis(h, o, gc_opt_i(c, GC_BO_PackOptions, GC_O_PackOptions_axis)));
    return 0;
}

int gc_ml_unpack(const gc_rctx *c, gc_hit *h) {
    if (gc_opt_i(c, GC_BO_UnpackOptions, GC_O_UnpackOptions_num) == 1) {
        GC_TRY(gc_pre_read_value(c, h, 0));
        return gc_pre_outputs(c, h);
    }
    const gc_tensor *x = gc_in(c, 0);
    if (!x) GC_REJECT(h, "inputs.count", -1, "input #0 tensor is not available");
    GC_TRY(gc_pre_tensor_shape(h, x, gc_in_idx(c, 0)));
    GC_TRY(gc_pre_axis(h, x, gc_opt_i(c, GC_BO_UnpackOptions, GC_O_UnpackOptions_axis)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    for (int i = 0; i < c->op->n_outputs; i++) {
        GC_TRY(gc_pre_tensor_shape(h, gc_out(c, 0), gc_out_idx(c, 0)));
        GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, i)));
    }
    return 0;
}

int gc_cl_always(const gc_rctx *c, gc_hit *h) { (void)c; (void)h; return 0; }

/* ---- SLICE ------------------------------------------------------------------------------------ */

static int out_match(gc_hit *h, const int64_t st[4], const int64_t en[4], const int64_t str[4], const gc_tensor *out) {
    int64_t o[4];
    bhwc(out, o);
    static const char *msg[4] = { "Output batch don't match", "Output height doesn't match",
                                  "Output width doesn't match", "Output channels don't match" };
    for (int k = 0; k < 4; k++)
        if (div_up(en[k] - st[k], str[k]) != o[k]) GC_REJECT(h, "slice.output_shape", -1, "%s", msg[k]);
    return 0;
}

/* starts / sizes of SLICE mapped to BHWC exactly as the parsers do */
static int slice_attrs(const gc_rctx *c, gc_hit *h, int64_t st[4], int64_t en[4], bool classic) {
    const gc_tensor *x = gc_in(c, 0), *b = gc_in(c, 1), *s = gc_in(c, 2);
    if (!b || !s) GC_REJECT(h, "slice.params", -1, "input #1 tensor is not available");
    int64_t nb = gc_numel_dims(b->shape, b->rank), ns = gc_numel_dims(s->shape, s->rank);
    if (nb != ns) {
        if (classic) GC_REJECT(h, "slice.params", -1, "Starts amount != sizes amount.");
        GC_REJECT(h, "slice.params", -1, "The dimensionality of `starts` (%lldD) must match `sizes` (%lldD).",
                  (long long)nb, (long long)ns);
    }
    int64_t in[4], sz[4], v0[4] = {0}, v1[4] = {0};
    bhwc(x, in);
    for (int k = 0; k < 4; k++) { st[k] = 0; sz[k] = in[k]; }
    for (int64_t i = 0; i < nb && i < 4; i++) {
        if (!gc_const_int(c, 1, i, &v0[i]) || !gc_const_int(c, 2, i, &v1[i]))
            GC_REJECT(h, "slice.params", -1, "src has no data.");
    }
    static const int map4[4] = {0, 1, 2, 3}, map3h[3] = {1, 2, 3}, map3[3] = {0, 2, 3}, map2[2] = {0, 3},
                     map1[1] = {0};
    const int *map = NULL;
    if (x->rank == 4) {
        if (nb == 4) map = map4;
        else if (nb == 3) map = map3h;
        else GC_REJECT(h, "slice.params", -1, "Slicing starts count must be 3 or 4 for 4d input");
    } else if (x->rank == 3) {
        if (nb != 3) GC_REJECT(h, "slice.params", -1, "Slicing starts count must be 3 for 3d input");
        map = map3;
    } else if (x->rank == 2) {
        if (nb != 2) GC_REJECT(h, "slice.params", -1, "Slicing starts count must be 2 for 2d input");
        map = map2;
    } else if (x->rank == 1) {
        if (nb != 1) GC_REJECT(h, "slice.params", -1, "Slicing starts count must be 1 for 1d input");
        map = map1;
    } else {
        GC_REJECT(h, "slice.rank", gc_in_idx(c, 0), "Slicing is unsupported for input with rank > 4");
    }
    for (int64_t i = 0; i < nb; i++) { st[map[i]] = v0[i]; sz[map[i]] = v1[i]; }
    for (int k = 0; k < 4; k++) {
        if (sz[k] == -1) sz[k] = in[k] - st[k];
        en[k] = st[k] + sz[k];
        if (en[k] < 0) en[k] += in[k];
    }
    return 0;
}

int gc_ml_slice(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 8, .min_inputs = 3, .no_compat = true)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    if (gc_is_const_in(c, 0)) GC_REJECT(h, "slice.const_input", gc_in_idx(c, 0), "Constant input is not supported.");
    GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_LINEAR, false));
    GC_TRY(gc_pre_read_tensor(c, h, 2, GC_SH_LINEAR, false));
    int64_t st[4], en[4], one[4] = {1, 1, 1, 1};
    GC_TRY(slice_attrs(c, h, st, en, false));
    return out_match(h, st, en, one, gc_out(c, 0));
}

int gc_cl_slice(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_slice(const gc_rctx *c, gc_hit *h) {
    int64_t st[4], en[4], one[4] = {1, 1, 1, 1};
    GC_TRY(slice_attrs(c, h, st, en, true));
    return out_match(h, st, en, one, gc_out(c, 0));
}

/* ---- STRIDED_SLICE ------------------------------------------------------------------------------ */

/* ML Drift: params of length rank ("with batch") or rank-1 ("without batch") */
static int ml_ss_attrs(const gc_rctx *c, gc_hit *h, int64_t st[4], int64_t en[4], int64_t str[4]) {
    const gc_tensor *x = gc_in(c, 0);
    int64_t in[4];
    bhwc(x, in);
    int64_t n = gc_numel_dims(gc_in(c, 1)->shape, gc_in(c, 1)->rank);
    bool with_batch = x->rank == n, without = x->rank == n + 1;
    for (int k = 0; k < 4; k++) { st[k] = 0; en[k] = in[k]; str[k] = 1; }
    for (int p = 1; p <= 3; p++) {
        GC_TRY(gc_pre_read_tensor(c, h, p, GC_SH_LINEAR, false));
        int64_t *dst = p == 1 ? st : p == 2 ? en : str, v[4] = {0};
        int64_t m = gc_numel_dims(gc_in(c, p)->shape, gc_in(c, p)->rank);
        for (int64_t i = 0; i < m && i < 4; i++) gc_const_int(c, p, i, &v[i]);
        if (with_batch) {
            if (m == 4) for (int k = 0; k < 4; k++) dst[k] = v[k];
            else if (m == 3) { dst[0] = v[0]; dst[2] = v[1]; dst[3] = v[2]; }
            else if (m == 2) { dst[0] = v[0]; dst[3] = v[1]; }
            else if (m == 1) dst[0] = v[0];
        } else if (without) {
            if (m == 3) { dst[1] = v[0]; dst[2] = v[1]; dst[3] = v[2]; }
            else if (m == 2) { dst[2] = v[0]; dst[3] = v[1]; }
            else if (m == 1) dst[3] = v[0];
        }
    }
    for (int k = 0; k < 4; k++) {
        if (en[k] < 0) en[k] += in[k];
        if (st[k] < 0) st[k] += in[k];
    }
    const int B = GC_BO_StridedSliceOptions;
    int bm = (int)gc_opt_i(c, B, GC_O_StridedSliceOptions_begin_mask);
    int em = (int)gc_opt_i(c, B, GC_O_StridedSliceOptions_end_mask);
    if (x->rank == 3) {   /* cwb -> cw0b */
        bm = ((bm & 4) << 1) | ((bm & 2) << 1) | (bm & 1);
        em = ((em & 4) << 1) | ((em & 2) << 1) | (em & 1);
    } else if (x->rank == 2) {   /* cb -> c00b */
        bm = ((bm & 2) << 2) | (bm & 1);
        em = ((em & 2) << 2) | (em & 1);
    }
    for (int k = 0; k < 4; k++) {
        if (bm & (1 << k)) st[k] = 0;
        if (em & (1 << k)) en[k] = in[k];
    }
    return 0;
}

int gc_ml_strided_slice(const gc_rctx *c, gc_hit *h) {
    const int B = GC_BO_StridedSliceOptions;
    GC_TRY(gc_version(c, h, 2));
    if (gc_opt_i(c, B, GC_O_StridedSliceOptions_ellipsis_mask))
        GC_REJECT(h, "strided_slice.ellipsis_mask", -1, "Slice does not support ellipsis_mask.");
    if (gc_opt_i(c, B, GC_O_StridedSliceOptions_new_axis_mask))
        GC_REJECT(h, "strided_slice.new_axis_mask", -1, "Slice does not support new_axis_mask.");
    if (gc_opt_i(c, B, GC_O_StridedSliceOptions_shrink_axis_mask))
        GC_REJECT(h, "strided_slice.shrink_axis_mask", -1, "Slice does not support shrink_axis_mask parameter. ");
    if (c->n_in < 4) GC_REJECT(h, "strided_slice.inputs", -1, "STRIDED_SLICE requires 4 inputs.");
    const gc_tensor *x = gc_in(c, 0), *b = gc_in(c, 1);
    if (!x || !b) GC_REJECT(h, "strided_slice.inputs", -1, "STRIDED_SLICE requires 4 inputs.");
    int64_t start_dims = b->rank ? b->shape[0] : 0;
    if (x->rank != start_dims + 1 && x->rank != start_dims)
        GC_REJECT(h, "strided_slice.params_rank", -1, "STRIDED_SLICE input/params dimensions mismatch.");
    GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_LINEAR, false));
    int64_t n = gc_numel_dims(b->shape, b->rank);
    if (x->rank != n + 1 && x->rank != n)
        GC_REJECT(h, "strided_slice.params_rank", -1, "STRIDED_SLICE input/params dimensions mismatch.");
    int64_t st[4], en[4], str[4];
    GC_TRY(ml_ss_attrs(c, h, st, en, str));
    for (int k = 0; k < 4; k++)
        if (str[k] == 0) GC_REJECT(h, "strided_slice.stride_zero", -1, "stride values must be non-zero");
    for (int k = 0; k < 4; k++)
        if (str[k] < 0) GC_REJECT(h, "strided_slice.reverse", -1, "Reverse slices are not supported.");
    int64_t o[4];
    bhwc(gc_out(c, 0), o);
    for (int k = 0; k < 4; k++)
        if (div_up(en[k] - st[k], str[k]) != o[k]) GC_REJECT(h, "strided_slice.output_shape", -1, "Output shape mismatch");
    return gc_pre_outputs(c, h);
}

int gc_cl_strided_slice(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 4));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* classic StridedSliceOperationParser::Parse (length 4 = BHWC, 3 = HWC) */
int gc_clp_strided_slice(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *x = gc_in(c, 0), *b = gc_in(c, 1);
    if (!x || !b) return 0;
    int64_t n = gc_numel_dims(b->shape, b->rank);
    if (n != 3 && n != 4)
        GC_REJECT(h, "strided_slice.params_rank", -1, "Slicing is supported for 3 or 4 dimensional tensors only.");
    int64_t in[4], st[4], en[4], str[4];
    bhwc(x, in);
    int64_t *dst[3] = { st, en, str };
    for (int p = 0; p < 3; p++) {
        int64_t v[4] = {0};
        for (int64_t i = 0; i < n; i++)
            if (!gc_const_int(c, p + 1, i, &v[i])) GC_REJECT(h, "strided_slice.params", -1, "src has no data.");
        if (n == 4) for (int k = 0; k < 4; k++) dst[p][k] = v[k];
        else { dst[p][0] = 0; dst[p][1] = v[0]; dst[p][2] = v[1]; dst[p][3] = v[2]; }
    }
    for (int k = 0; k < 4; k++) {
        if (en[k] < 0) en[k] += in[k];
        if (st[k] < 0) st[k] += in[k];
    }
    const int B = GC_BO_StridedSliceOptions;
    int bm = (int)gc_opt_i(c, B, GC_O_StridedSliceOptions_begin_mask);
    int em = (int)gc_opt_i(c, B, GC_O_StridedSliceOptions_end_mask);
    int bits[4];
    if (n == 4) { bits[0] = 1; bits[1] = 2; bits[2] = 4; bits[3] = 8; }
    else { bits[0] = 0; bits[1] = 1; bits[2] = 2; bits[3] = 4; }
    for (int k = 0; k < 4; k++) {
        if (bm & bits[k]) st[k] = 0;
        if (em & bits[k]) en[k] = in[k];
    }
    if (n == 3) { st[0] = 0; en[0] = in[0]; str[0] = 1; }
    for (int k = 0; k < 4; k++)
        if (str[k] == 0) GC_REJECT(h, "strided_slice.stride_zero", -1, "stride values must be non-zero");
    for (int k = 0; k < 4; k++)
        if (str[k] < 0) GC_REJECT(h, "strided_slice.reverse", -1, "Reverse slices are not supported.");
    return out_match(h, st, en, str, gc_out(c, 0));
}

/* ---- TRANSPOSE ---------------------------------------------------------------------------------- */

int gc_ml_transpose(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 9));
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_pre_outputs(c, h));
    GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_LINEAR, false));
    const gc_tensor *p = gc_in(c, 1);
    int64_t n = gc_numel_dims(p->shape, p->rank);
    if (n > 4 || n < 2) GC_REJECT(h, "transpose.perm", gc_in_idx(c, 1), "Permutation for transpose is invalid.");
    return 0;
}

int gc_cl_transpose(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 4));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_clp_transpose(const gc_rctx *c, gc_hit *h) {
    const gc_tensor *p = gc_in(c, 1);
    int64_t n = p ? gc_numel_dims(p->shape, p->rank) : 0;
    if (n > 4 || n < 2) GC_REJECT(h, "transpose.perm", gc_in_idx(c, 1), "Permutation for transpose is invalid.");
    return 0;
}

/* ---- PAD / PADV2 / MIRROR_PAD ------------------------------------------------------------------- */

int gc_ml_pad(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 5)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_HW, false));
    if (c->code == GC_OP_PADV2 && c->n_in == 3) GC_TRY(gc_pre_read_tensor(c, h, 2, GC_SH_SCALAR, true));
    const gc_tensor *p = gc_in(c, 1);
    if (!((p->shape[0] == 4 && p->shape[1] == 2) || (p->shape[0] == 3 && p->shape[1] == 2)))
        GC_REJECT(h, "pad.paddings_shape", gc_in_idx(c, 1), "Paddings tensor has unexpected shape.");
    return 0;
}

int gc_cl_pad(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- SPLIT / SPLIT_V / TILE / GATHER ---------------------------------------------------------- */

int gc_ml_split(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    if (gc_opt_i(c, GC_BO_SplitOptions, GC_O_SplitOptions_num_splits) == 1) {
        GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
        return gc_pre_read_value(c, h, 0);
    }
    const gc_tensor *x = gc_in(c, 1);
    if (!x) GC_REJECT(h, "inputs.count", -1, "input #1 tensor is not available");
    int64_t axis;
    if (gc_const_int(c, 0, 0, &axis)) GC_TRY(gc_pre_axis(h, x, axis));
    GC_TRY(gc_pre_read_value(c, h, 1));
    for (int i = 0; i < c->op->n_outputs; i++) GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, i)));
    return 0;
}

int gc_ml_split_v(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.rt_inputs = GC_N(1), .const_inputs = GC_N(2))));
    GC_TRY(gc_pre_read_value(c, h, 0));
    if (gc_opt_i(c, GC_BO_SplitVOptions, GC_O_SplitVOptions_num_splits) == 1) return 0;
    int64_t axis;
    if (gc_in(c, 0) && gc_const_int(c, 2, 0, &axis)) GC_TRY(gc_pre_axis(h, gc_in(c, 0), axis));
    return 0;
}

int gc_ml_tile(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    return gc_pre_outputs(c, h);
}

int gc_ml_gather(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_pre_read_value(c, h, 1));
    GC_TRY(gc_pre_outputs(c, h));
    const gc_tensor *x = gc_in(c, 0), *o = gc_out(c, 0);
    if (x && o && x->type != o->type) GC_REJECT(h, "gather.dtype", -1, "Input / output dtype mismatch.");
    return 0;
}

int gc_cl_gather(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 1));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH / RESIZE ---------------------------------------------------- */

int gc_ml_depth_to_space(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    return gc_pre_read_value(c, h, 0);
}

int gc_ml_space_to_depth(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(.max_version = 2, .num_outputs = 1, .rt_inputs = GC_N(1),
                                      .const_inputs = GC_N(0))));
    return gc_pre_read_value(c, h, 0);
}

int gc_cl_space_to_depth(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 2));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

int gc_ml_resize(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 3));
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    return gc_pre_outputs(c, h);
}

int gc_cl_resize(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_version(c, h, 3));
    return gc_compat(c, h, GC_BCAST_STANDARD);
}

/* ---- ML Drift only: REVERSE_V2, BROADCAST_IN_DIM, DYNAMIC_UPDATE_SLICE, BITCAST ----------------- */

int gc_ml_reverse(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_compat(c, h, GC_BCAST_STANDARD));
    GC_TRY(gc_pre_read_value(c, h, 0));
    GC_TRY(gc_pre_outputs(c, h));
    const gc_tensor *x = gc_in(c, 0), *a = gc_in(c, 1);
    if (!x || !a) return 0;
    for (int64_t i = 0; i < gc_numel_dims(a->shape, a->rank); i++) {
        int64_t v;
        if (gc_const_int(c, 1, i, &v)) GC_TRY(gc_pre_axis(h, x, v));
    }
    return 0;
}

int gc_ml_broadcast_in_dim(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    const gc_tensor *x = gc_in(c, 0), *o = gc_out(c, 0);
    if (!x || x->rank < 1 || x->rank > 4) GC_REJECT(h, "broadcast_in_dim.rank", gc_in_idx(c, 0), "Only supports 1D-4D input tensor.");
    if (!o || o->rank < 1 || o->rank > 4) GC_REJECT(h, "broadcast_in_dim.rank", gc_out_idx(c, 0), "Only supports 1D-4D output tensor.");
    GC_TRY(gc_pre_read_tensor(c, h, 1, GC_SH_LINEAR, false));
    const gc_tensor *ix = gc_in(c, 1);
    int64_t n = gc_numel_dims(ix->shape, ix->rank), seen = 0;
    for (int64_t d = 0; d < n; d++) {
        int64_t v = 0;
        gc_const_int(c, 1, d, &v);
        if (v < 0 || v >= o->rank) GC_REJECT(h, "broadcast_in_dim.indices", gc_in_idx(c, 1), "Require 0 <= index val < rank(result)");
        if (d < x->rank && x->shape[d] != 1 && x->shape[d] != o->shape[v])
            GC_REJECT(h, "broadcast_in_dim.dims", -1, "Requires dim(input, d) = 1 || dim(input, d) = dim(output, index[d])");
        if (seen & (1ll << v)) GC_REJECT(h, "broadcast_in_dim.indices", gc_in_idx(c, 1), "Index values must be unique");
        seen |= 1ll << v;
    }
    GC_TRY(gc_pre_read_value(c, h, 0));
    return gc_pre_tensor_shape(h, o, gc_out_idx(c, 0));
}

static void dus_map(const gc_tensor *t, int64_t s[4]) {   /* DynamicUpdateSlice MapAxis: right-aligned */
    s[0] = s[1] = s[2] = s[3] = 1;
    for (int32_t i = 0; i < t->rank && i < 4; i++) s[4 - t->rank + i] = t->shape[i];
}

int gc_ml_dus(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    const gc_tensor *op = gc_in(c, 0), *up = gc_in(c, 1), *st = gc_in(c, 2), *o = gc_out(c, 0);
    if (!op || !up || !st || !o) GC_REJECT(h, "dus.inputs", -1, "DynamicUpdateSlice requires 3 inputs.");
    if (gc_is_const_in(c, 2)) GC_REJECT(h, "dus.const_start", gc_in_idx(c, 2), "start_indices must be a runtime tensor");
    GC_TRY(gc_pre_read_value(c, h, 0));
    if (op->rank < 1 || op->rank > 4) GC_REJECT(h, "dus.rank", gc_in_idx(c, 0), "operand dims must be 1D-4D.");
    GC_TRY(gc_pre_read_value(c, h, 1));
    if (up->rank < 1 || up->rank > 4) GC_REJECT(h, "dus.rank", gc_in_idx(c, 1), "update dims must be 1D-4D.");
    int64_t a[4], u[4];
    dus_map(op, a); dus_map(up, u);
    for (int k = 0; k < 4; k++)
        if (u[k] > a[k])
            GC_REJECT(h, "dus.update_shape", gc_in_idx(c, 1), "Updated_slice shape must be less or equal to the array to "
                      "update, but they are updated_slice: [%lld%lld%lld%lld], array_to_update: [%lld%lld%lld%lld]",
                      (long long)u[0], (long long)u[1], (long long)u[2], (long long)u[3], (long long)a[0],
                      (long long)a[1], (long long)a[2], (long long)a[3]);
    GC_TRY(gc_pre_read_value(c, h, 2));
    if (st->rank < 1 || st->rank > 4) GC_REJECT(h, "dus.rank", gc_in_idx(c, 2), "start_indices dims must be 1D-4D.");
    GC_TRY(gc_pre_read_value_t(c, h, gc_out_idx(c, 0)));
    if (o->rank < 1 || o->rank > 4) GC_REJECT(h, "dus.rank", gc_out_idx(c, 0), "output dims must be 1D-4D.");
    return 0;
}

int gc_ml_bitcast(const gc_rctx *c, gc_hit *h) {
    GC_TRY(gc_validate(c, h, GC_VOPTS(0)));
    GC_TRY(gc_pre_read_value(c, h, 0));
    const gc_tensor *x = gc_in(c, 0), *o = gc_out(c, 0);
    if (x && o && x->rank != o->rank) GC_TRY(gc_pre_tensor_shape(h, o, gc_out_idx(c, 0)));
    return 0;
}
