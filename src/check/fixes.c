/* fixes.c — what to change when a node is refused: the PyTorch-level rewrite from the
 * seed's symptom table (shared/seed/000_*.txt: GATHER_ND sources, rank-5 sources,
 * TRANSPOSE_CONV version skew, SELECT from PReLU/ELU/where, BROADCAST_TO constant vs
 * runtime, .chunk -> SPLIT, ...) and the .tflite-level rewrite gpuclean applies (its id
 * names the pass in src/fix/, `gpuclean fix --only ID`). Matched on (op, rule) — rule
 * without the target prefix; the first row that matches wins, so specific rows come
 * first. A row marked advice has no .tflite pass: its .tflite text says "no .tflite fix
 * yet (PyTorch rewrite: ...)" (tests/c/test_fix_promises.c holds every id to one or the
 * other).
 */
#include "check_int.h"

#include <string.h>

typedef struct {
    int32_t code;            /* -1: any op */
    const char *rule;        /* rule prefix, NULL: any rule */
    gc_fix fix;
    bool advice;             /* no .tflite pass implements fix.id: the .tflite text says
                                "no .tflite fix yet (PyTorch rewrite: ...)" */
} row;

#define ADVICE(torch_short) "no .tflite fix yet (PyTorch rewrite: " torch_short ")"

static const row rows[] = {
    { GC_OP_GATHER_ND, NULL, { "fix.gather_nd",
      "find its source: stride-2 slicing (x[:, ::2], Focus stems, patch merging), grid_sample, MaxPool padding, "
      "bicubic interpolate and reflect-mode F.pad all lower to GATHER_ND; use patch_grid_sample, "
      "patch_maxpool_zeropad, patch_interpolate, patch_patch_merging",
      "replace a GATHER_ND with constant indices by one STRIDED_SLICE (regular strides) or by RESHAPE + GATHER "
      "+ RESHAPE on the flattened indexed axes" }, false },
    { -1, "rank5", { "fix.rank5",
      "a rank-5+ tensor: PixelShuffle (rank-6 reshape), windowed attention, einops.rearrange or a packed-QKV head "
      "split; use pixelshuffle_to_conv_transpose, patch_window_attention, patch_einops",
      "fold the rank-5 RESHAPE/TRANSPOSE chain into rank-4 ops by dropping unit axes and merging adjacent ones" }, false },
    { -1, "rank6", { "fix.rank5",
      "a rank-6 tensor (PixelShuffle's reshape): use pixelshuffle_to_conv_transpose or nn.PixelShuffle as "
      "DEPTH_TO_SPACE",
      "fold the rank-6 RESHAPE/TRANSPOSE chain into RESHAPE/TRANSPOSE steps of rank <= 4" }, false },
    { GC_OP_TRANSPOSE, "transpose.perm", { "fix.rank5",
      "a permute of a rank-5+ tensor (window attention, einops.rearrange, multi-head splits): rewrite with "
      "rank-4 views; patch_window_attention, patch_einops",
      "fold the rank-5 RESHAPE/TRANSPOSE chain into rank-4 ops by dropping unit axes and merging adjacent ones" }, false },
    { GC_OP_TRANSPOSE_CONV, "transpose_conv.version", { "fix.transpose_conv.unfuse_activation",
      "version skew, not a missing op: ZeroStuffConvT1d / ZeroStuffConvT2d (zero-stuff plus a plain conv, "
      "exact to ~1e-7)",
      "move the fused activation into its own op so TRANSPOSE_CONV drops to version 3" }, false },
    { GC_OP_SELECT, NULL, { "fix.select.arith",
      "PReLU, ELU, in-place index assignment and torch.where masking lower to SELECT; replace with arithmetic: "
      "x*(1-m) + v*m",
      "rewrite SELECT(c, x, y) as x*m + y*(1-m) with m = CAST(c) (exact for finite x, y)" }, false },
    { GC_OP_SELECT_V2, NULL, { "fix.select.arith",
      "PReLU, ELU, in-place index assignment and torch.where masking lower to SELECT_V2; replace with "
      "arithmetic: x*(1-m) + v*m",
      "rewrite SELECT(c, x, y) as x*m + y*(1-m) with m = CAST(c) (exact for finite x, y)" }, false },
    { GC_OP_SPLIT, NULL, { "fix.split.slices",
      ".chunk() lowers to SPLIT: slice directly instead (bit-exact)",
      "replace SPLIT by one STRIDED_SLICE per output" }, false },
    { GC_OP_SPLIT_V, NULL, { "fix.split.slices",
      "torch.split with sizes lowers to SPLIT_V: slice directly instead (bit-exact)",
      "replace SPLIT_V by one STRIDED_SLICE per output" }, false },
    { -1, "numerics.fc_runtime_weights", { "fix.fc.runtime_bmm",
      "a product of two activations exported as FULLY_CONNECTED: use torch.matmul(x, w.transpose(-1, -2)) + b",
      "replace the FULLY_CONNECTED by TRANSPOSE of the weights, BATCH_MATMUL and ADD of the bias" }, false },
    { -1, "numerics.output_also_consumed", { "fix.output.copy",
      "return a separate copy of the FULLY_CONNECTED result as the model output (a y.clone() the converter keeps), "
      "not the tensor the next op reads",
      "let the readers take a new internal tensor and produce the model output with a RESHAPE copy of it" }, false },
    { -1, "numerics.pad_batch", { "fix.pad.batch",
      "pad along the batch axis with torch.cat of constant blocks instead of F.pad on dim 0",
      "pad the batch of 1 as axis 1 of a RESHAPEd [1, 1, H, W*C] view" }, false },
    { GC_OP_UNPACK, NULL, { "fix.unpack.slices",
      "torch.unbind / tuple-unpacking a tensor lowers to UNPACK: index x[:, i] per part instead (bit-exact)",
      "replace UNPACK by one SLICE + RESHAPE per output" }, false },
    { GC_OP_DENSIFY, NULL, { "fix.densify",
      "export dense weights (no sparsity pass before conversion)",
      "bake the DENSIFY of the constant sparse tensor into a dense constant (decoded as TFLite's SparseToDense)" }, false },
    { GC_OP_SQUEEZE, NULL, { "fix.squeeze.reshape",
      "use x.reshape(...) / x.view(...) with the explicit static shape instead of squeeze()",
      "replace SQUEEZE by RESHAPE to its static output shape" }, false },
    { GC_OP_EXPAND_DIMS, NULL, { "fix.squeeze.reshape",
      "use x.reshape(...) with the explicit static shape instead of unsqueeze()",
      "replace EXPAND_DIMS by RESHAPE to its static output shape" }, false },
    { GC_OP_STRIDED_SLICE, "strided_slice.shrink_axis_mask", { "fix.strided_slice.no_shrink",
      "x[:, i] drops an axis: index with x[:, i:i+1] and reshape, or let the reshape happen once at the end",
      "clear shrink_axis_mask and add a RESHAPE to the squeezed shape" }, false },
    { GC_OP_STRIDED_SLICE, "strided_slice.version", { "fix.strided_slice.version",
      "slicing a bool/int64 tensor or with offset semantics raises the op version; slice the float tensor",
      "re-emit the slice at the lowest version it needs: SLICE when every stride is 1 (a bool SLICE is version 1, "
      "a bool STRIDED_SLICE version 3), else a plain STRIDED_SLICE without offset or masks" }, false },
    { GC_OP_FULLY_CONNECTED, "fc.const_input", { "fix.const_fold",
      "a Linear applied to a parameter or constant: precompute it at export time (or feed the factor as an input)",
      "constant-fold the node: all its inputs are constant" }, false },
    /* no rule has this id since the kernel-building failure became a fact
     * (init.gather_const_indices, LiteRT.js 2.5.3): the row holds the fix's texts */
    { GC_OP_GATHER, "gather.const_indices_layout", { "fix.gather.const_indices",
      "index with slices and torch.cat (x[:, a:b]) instead of a constant index list (x[:, [3, 1, 2]])",
      "replace the GATHER by STRIDED_SLICEs over runs of the constant indices + CONCATENATION" }, false },
    { GC_OP_GATHER, "gather.indices_rank", { "fix.gather.flatten_indices",
      "an embedding/index lookup with 2-D indices: flatten the indices to 1-D and reshape the result",
      "RESHAPE the indices to 1-D, GATHER, RESHAPE the result back" }, false },
    { -1, "pad.paddings", { "fix.pad.rank4",
      "pad a rank-3/4 view of the tensor (unsqueeze to NHWC-like rank before F.pad)",
      "RESHAPE to rank 4, PAD with 4x2 paddings, RESHAPE back" }, false },
    { GC_OP_MIRROR_PAD, NULL, { "fix.mirror_pad",
      "reflect/symmetric padding (also padding_mode='reflect' convs, even at padding=0): use slice+concat for small "
      "pads or zero padding",
      ADVICE("slices + torch.cat of the mirrored borders, or zero padding") }, true },
    { GC_OP_ARG_MAX, "dtype", { "fix.arg_max.int32",
      "argmax returns int64: cast to int32 inside the model (x.argmax(...).to(torch.int32)) or move it out",
      ADVICE("x.argmax(...).to(torch.int32), or the argmax outside the model") }, true },
    { -1, "dtype", { "fix.dtype",
      "int64/float64/complex/int16 values are never accepted on the GPU: keep index math in int32 or float, "
      "cast once at the model boundary",
      ADVICE("keep the values int32 or float32, cast once at the model boundary") }, true },
    { GC_OP_RFFT2D, NULL, { "fix.fft.outside",
      "compute the STFT/FFT in preprocessing, or as a matmul with a DFT matrix",
      ADVICE("the STFT/FFT in preprocessing, or a matmul with a DFT matrix") }, true },
    { GC_OP_COMPLEX_ABS, NULL, { "fix.fft.outside",
      "compute the magnitude spectrogram in preprocessing (or as sqrt(re^2 + im^2) of a DFT matmul)",
      ADVICE("the magnitude spectrogram in preprocessing, or sqrt(re^2 + im^2) of a DFT matmul") }, true },
    { GC_OP_SOFTMAX, "softmax.beta", { "fix.softmax.beta",
      "scale the logits explicitly (x * beta) before softmax",
      ADVICE("softmax(x * beta) with the scale explicit") }, true },
    { GC_OP_LOG_SOFTMAX, NULL, { "fix.log_softmax",
      "use torch.log(F.softmax(x)) or x - x.logsumexp(dim, keepdim=True) with an explicit max shift",
      ADVICE("x - x.logsumexp(dim, keepdim=True) with an explicit max shift") }, true },
    { GC_OP_L2_NORMALIZATION, NULL, { "fix.l2norm",
      "write F.normalize as x * torch.rsqrt((x*x).sum(-1, keepdim=True) + eps)",
      ADVICE("x * torch.rsqrt((x*x).sum(-1, keepdim=True) + eps) for F.normalize") }, true },
    { GC_OP_SPACE_TO_BATCH_ND, NULL, { "fix.dilated_conv",
      "a dilated convolution exported through space-to-batch: use Conv2d(dilation=...) directly",
      ADVICE("Conv2d(dilation=...) exported as one dilated CONV_2D, not through space-to-batch") }, true },
    { GC_OP_BATCH_TO_SPACE_ND, NULL, { "fix.dilated_conv",
      "a dilated convolution exported through space-to-batch: use Conv2d(dilation=...) directly",
      ADVICE("Conv2d(dilation=...) exported as one dilated CONV_2D, not through space-to-batch") }, true },
    { GC_OP_ARG_MIN, NULL, { "fix.arg_min",
      "argmin is not on the GPU: use argmax of the negated tensor (int32 output)",
      "rewrite ARG_MIN(x) as ARG_MAX(NEG(x)) (float x: exact)" }, false },
    { -1, "broadcast", { "fix.broadcast.rank4",
      "make both operands the same rank (explicit reshape/unsqueeze to 4-D) before the elementwise op",
      "RESHAPE the lower-rank operand to rank 4 (right-aligned) before the op" }, false },
    { -1, "elementwise.identical_inputs", { "fix.identical_inputs",
      "x - x / x / x style ops on one tensor: simplify the expression (it is a constant)",
      "route the second input through an identity RESHAPE: OP(x, RESHAPE(x))" }, false },
    { -1, "version", { "fix.version",
      "re-export with an older converter or without the feature that raised the op version (int16 activations, "
      "fused activations, bool/int64 operands)",
      ADVICE("re-export without the feature that raised the op version") }, true },
    { -1, "unsupported_op", { "fix.none",
      "no GPU kernel for this op: rewrite it with supported ops at the PyTorch level or keep it at the model's edge",
      ADVICE("the op written with supported ops, or kept at the model's edge") }, true },
    { -1, "custom.unknown", { "fix.none",
      "a custom op the GPU does not know: keep it at the model's edge (pre/post-processing)",
      ADVICE("the custom op moved to pre/post-processing") }, true },
    { -1, "compat.unsupported_op", { "fix.none",
      "the delegate has a parser but the shared checker has no case for this op: rewrite it with other ops",
      ADVICE("the op written with other ops") }, true },
};

/* the two BROADCAST_TO cases gc_fix_for returns before the table */
static const char *const extra_ids[] = { "fix.broadcast_to.const", "fix.broadcast_to.runtime" };
#define N_ROWS (sizeof rows / sizeof rows[0])
#define N_EXTRA (sizeof extra_ids / sizeof extra_ids[0])

const char *gc_fix_id_at(int i, bool *advice_only) {
    if (advice_only) *advice_only = false;
    if (i < 0) return NULL;
    if ((size_t)i < N_EXTRA) return extra_ids[i];
    int k = i - (int)N_EXTRA;
    /* the k-th distinct id of the table, in table order */
    for (size_t r = 0; r < N_ROWS; r++) {
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) seen = !strcmp(rows[q].fix.id, rows[r].fix.id);
        if (seen) continue;
        if (k-- == 0) {
            if (advice_only) *advice_only = rows[r].advice;
            return rows[r].fix.id;
        }
    }
    return NULL;
}

bool gc_fix_id_advice(const char *id) {
    for (size_t r = 0; id && r < N_ROWS; r++)
        if (!strcmp(rows[r].fix.id, id)) return rows[r].advice;
    return false;
}

gc_fix gc_fix_by_id(const char *id) {
    for (size_t r = 0; id && r < N_ROWS; r++)
        if (!strcmp(rows[r].fix.id, id)) return rows[r].fix;
    return (gc_fix){ id ? id : "", "", "" };
}

gc_fix gc_fix_for(const gc_rctx *c, const char *rule) {
    if (c->code == GC_OP_BROADCAST_TO) {   /* two cases (seed table) */
        if (gc_is_const_in(c, 0))
            return (gc_fix){ "fix.broadcast_to.const",
                "an outer product or .expand on a constant that did not fold: bake the result as a constant at "
                "its target shape",
                "constant-fold the BROADCAST_TO into a constant of the target shape" };
        return (gc_fix){ "fix.broadcast_to.runtime",
            "on a runtime tensor the GPU rejects it even at rank 4 (GQA repeat_kv is also rank-5): "
            "torch.cat([x[:, i:i+1].expand(b, n_rep, s, d) for i in range(n_kv)], dim=1), same head order, "
            "bit-exact (LiteRT #9191)",
            "replace BROADCAST_TO by TILE (same rank) or a CONCATENATION of copies along the broadcast axes" };
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        if (r->code >= 0 && r->code != c->code) continue;
        if (r->rule) {
            size_t n = strlen(r->rule);
            /* prefix match, or the generic ".version" suffix */
            bool ok = !strncmp(rule, r->rule, n);
            if (!ok && !strcmp(r->rule, "version")) {
                size_t k = strlen(rule);
                ok = k > 8 && !strcmp(rule + k - 8, ".version");
            }
            if (!ok) continue;
        }
        return r->fix;
    }
    return (gc_fix){ "", "", "" };
}
