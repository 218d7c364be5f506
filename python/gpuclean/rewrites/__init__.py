"""The PyTorch rewrite catalogue: GPU-hostile patterns -> forms the LiteRT GPU
accelerator runs, each with its exactness stated in its docstring and measured by
python/tests/test_rewrites.py.

Two kinds of rewrite, both reversible and never process-global beyond a `with`:
  * module swaps, `patch_*(model) -> int` (count); they mutate the model you pass
    (convert_for_gpu works on a deep copy);
  * function patches, `patch_*() -> Patch`: a context manager that rebinds F.xxx /
    torch.xxx / Tensor.xxx and restores it on exit.

REMEDIES maps a remedy name to how convert_for_gpu applies it; router.py maps the
checker's verdicts to remedy names.
"""
from __future__ import annotations

import sys

from ._util import Patch, swap_modules
from .attention import (expand_mask, patch_repeat_kv, preexpand_mask_buffers, repeat_kv,
                        repeat_kv_namespaces, repeat_kv_reference)
from .broadcast import expand_concat, patch_expand
from .convt import (ZeroStuffConvT1d, ZeroStuffConvT2d, conv_transpose2d_zs,
                    patch_conv_transpose, zero_stuff)
from .gather import (EdgePadMaxPool2d, ZeroPadMaxPool, ZeroPadMaxPool2d,
                     grid_sample_tent, interpolate_matmul, patch_grid_sample,
                     patch_interpolate, patch_maxpool_zeropad, space_to_depth2, stride2_slice)
from .misc import (Conv1x1Linear, ReflectPad, ReflectPadConv2d, chunk_slices, edge_pad,
                   inplace_sensitive_modules, linear_to_conv1x1, patch_channel_attention,
                   patch_chunk, patch_inplace_activations, patch_reflect_pad, reflect_pad,
                   split_slices)
from .masks import padding_mask_reshape, patch_padding_mask
from .norms import (GuardedNorm, SafeGroupNorm, SafeInstanceNorm2d, SafeLayerNorm, SafeRMSNorm,
                    hierarchical_max, hierarchical_mean, norm_spec, patch_fp16_eps,
                    patch_fp16_norms, patch_group_norm, patch_instance_norm, patch_rmsnorm,
                    patch_safe_layernorm, safe_group_norm, safe_layer_norm, safe_rms_norm,
                    safe_variance, staged_mean)
from .rank import (ChannelShuffle4, PixelShuffle4, PixelUnshuffle4, channel_shuffle4,
                   patch_channel_shuffle, patch_einops, patch_pixel_shuffle, permute4,
                   pixel_shuffle4, pixel_unshuffle4, pixelshuffle_to_conv_transpose, rearrange)
from .select import (ELUArith, PReLUArith, elu_arith, ge_mask, gt_mask, le_mask, lt_mask,
                     masked_fill_arith, patch_select, prelu_arith, where_arith)
from .sdpa import patch_sdpa_gqa, patch_sdpa_mask
from .swin import (PatchMergingGPU, ShiftedWindowAttentionGPU, TimmSwinBlockGPU,
                   WindowAttentionGPU, l2_normalize, merge2x2, patch_patch_merging, patch_swin,
                   patch_window_attention, roll4, shift_mask_np, split_qkv, window_partition4,
                   window_reverse4)
from .vit import (FrozenPosEmbedding, PackedQKVAttentionGPU, patch_packed_qkv,
                  patch_pos_embed_interpolation)


def _namespaces_with(model, attr):
    """The model's own Python modules (and imported transformers modeling_* and
    transformers.integrations.* modules) that define `attr` — where a module-level
    helper such as repeat_kv lives."""
    seen, out = set(), []
    for m in model.modules():
        mod = sys.modules.get(type(m).__module__)
        if mod is not None and id(mod) not in seen and hasattr(mod, attr):
            seen.add(id(mod))
            out.append(mod)
    for name, mod in list(sys.modules.items()):
        if mod is not None and ("modeling_" in name or name.startswith("transformers.integrations."))\
                and id(mod) not in seen and hasattr(mod, attr):
            seen.add(id(mod))
            out.append(mod)
    return out


class Remedy:
    """One entry of the router: what it fixes and how to apply it to a model copy."""

    def __init__(self, name, removes, exactness, apply, doc):
        self.name, self.removes, self.exactness, self._apply, self.doc = (
            name, removes, exactness, apply, doc)

    def apply(self, model, sample_inputs):
        """-> (modules swapped, [Patch, ...] to keep active while converting)"""
        return self._apply(model, sample_inputs)

    def __repr__(self):
        return "<Remedy %s: %s>" % (self.name, self.doc)


def _fn_only(make):
    def apply(model, inputs):
        p = make()
        return getattr(p, "count", 0), [p]
    return apply


def _repeat_kv(model, inputs):
    """repeat_kv rebound wherever it lives (the model's modules, transformers modeling_*
    for eager attention, transformers.integrations.sdpa_attention for the default SDPA
    path), and enable_gqa=True SDPA calls done as the same repeat."""
    ns = [m for m in _namespaces_with(model, "repeat_kv") if callable(getattr(m, "repeat_kv"))]
    p = patch_repeat_kv(*ns) if ns else Patch("repeat_kv", [])
    return len(ns), [p, patch_sdpa_gqa()]


def _select(model, inputs):
    p = patch_select(model)
    return p.count, [p]


def _reflect(model, inputs):
    p = patch_reflect_pad(model)
    return p.count, [p]


def _gather(model, inputs):
    # frozen position embeddings first: the recording run must see the original math
    n = patch_pos_embed_interpolation(model, inputs)
    n += patch_maxpool_zeropad(model) + patch_swin(model)
    return n, [patch_grid_sample(), patch_interpolate()]


def _rank(model, inputs):
    n = patch_pixel_shuffle(model) + patch_swin(model) + patch_packed_qkv(model)
    p, cs = patch_einops(), patch_channel_shuffle(model)
    return n + p.count + cs.count, [p, cs]


def _mask(model, inputs):
    """Pre-expand [B, 1, S, T] mask buffers of modules that know their head count, and
    masks passed to scaled_dot_product_attention."""
    n = 0
    for m in model.modules():
        heads = next((getattr(m, a) for a in ("num_heads", "n_heads", "num_attention_heads")
                      if isinstance(getattr(m, a, None), int)), None)
        if heads:
            sub = type("_One", (), {"named_modules": lambda self, m=m: [("", m)]})()
            n += preexpand_mask_buffers(sub, heads)
    return n, [patch_sdpa_mask()]


REMEDIES = {r.name: r for r in [
    Remedy("gather_nd", ["GATHER_ND", "GATHER", "PADV2"], "grid_sample ~1e-6; maxpool, patch "
           "merging, Swin attention, frozen position embeddings bit-exact; bicubic interpolate ~1e-6",
           _gather,
           "interpolated position embeddings frozen for the traced size, grid_sample -> tent "
           "matmul, bicubic -> matrices, padded MaxPool -> edge pad, Swin (roll, windows, "
           "relative position bias, shift mask, PatchMerging) -> rank 4 + constants"),
    Remedy("rank5", ["rank>4", "L2_NORMALIZATION"], "bit-exact (swin v2 cosine attention ~1e-6)", _rank,
           "PixelShuffle/Unshuffle, Swin windows / PatchMerging, timm packed-QKV Attention, "
           "channel shuffle, einops -> rank 4"),
    Remedy("repeat_kv", ["BROADCAST_TO", "rank>4"], "bit-exact", _repeat_kv,
           "GQA repeat_kv (modeling_*, integrations.sdpa_attention) and SDPA enable_gqa -> "
           "concatenation of head slices"),
    Remedy("expand", ["BROADCAST_TO"], "bit-exact", _fn_only(patch_expand),
           "Tensor.expand -> concatenation"),
    Remedy("select", ["SELECT", "SELECT_V2"], "PReLU bit-exact, ELU ~6e-8", _select,
           "PReLU / ELU -> RELU arithmetic"),
    Remedy("chunk", ["SPLIT", "SPLIT_V"], "bit-exact", _fn_only(patch_chunk),
           ".chunk / split -> slices"),
    Remedy("reflect_pad", ["MIRROR_PAD"], "bit-exact", _reflect,
           "reflect pad -> slice + concat"),
    Remedy("conv_transpose", ["TRANSPOSE_CONV"], "~1e-7",
           lambda m, i: (patch_conv_transpose(m), []),
           "ConvTranspose1d/2d -> zero-stuff + conv"),
    Remedy("mask_expand", ["ADD(BATCH_MATMUL, mask[*,1,S,S])"], "bit-exact", _mask,
           "attention mask pre-expanded over heads (scaled_dot_product_attention)"),
    Remedy("fp16_norms", ["fp16 reduction overflow", "fp16 eps underflow"], "~1e-6",
           lambda m, i: (sum(patch_fp16_norms(m).values()), []),
           "LayerNorm / RMSNorm / GroupNorm / InstanceNorm (subclasses probe-verified) in the "
           "max-scaled domain: no square or sum can overflow, no constant below 2^-14, zero rows "
           "finite"),
    Remedy("fp16_eps", ["fp16 eps underflow"], "exact where var + eps >= 2.33e-10 (row std >= 1.5e-5)",
           lambda m, i: (patch_fp16_eps(m), []),
           "norms with eps < 2^-14 (LayerNorm 1e-12 of BERT/ViT/YOLOS) -> plain decomposition with "
           "rsqrt(var + eps) capped at 65504: a zero-variance row gives 0, not 0 * inf = NaN, in fp16"),
    Remedy("padding_mask", ["GATHER_ND"], "bit-exact", _fn_only(patch_padding_mask),
           "transformers.masking_utils padding mask [B, T] indexed by batch/kv aranges -> reshape "
           "to [B, 1, 1, T] (no GATHER_ND)"),
    Remedy("channel_attention", ["FULLY_CONNECTED layout"], "~1e-7",
           lambda m, i: (patch_channel_attention(m), []),
           "channel-attention Linear -> 1x1 conv"),
]}

__all__ = [n for n in dir() if not n.startswith("_") and n not in ("sys", "annotations")]
