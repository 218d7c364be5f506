"""Attention rewrites: GQA repeat_kv without BROADCAST_TO, mask pre-expansion.

repeat_kv — GQA's `x[:, :, None].expand(b, n_kv, n_rep, s, d).reshape(b, n_kv*n_rep,
s, d)` is a runtime BROADCAST_TO (rejected by the GPU delegate even at rank 4,
LiteRT#9191) on a rank-5 tensor: two walls in one line. The rewrite concatenates head
slices, head i repeated n_rep times, in the original head order: CONCATENATION of
SLICEs, rank 4. Bit-exact (pure data movement).

Mask pre-expansion — `scores + mask` with mask [B, 1, S, S] broadcast over the head
axis after a BATCH_MATMUL is silently miscomputed by older GPU runtimes (token 0 right,
every later token wrong). Expanding the mask to [B, H, S, S] first removes the
broadcast. Bit-exact (the same additions).
"""
from __future__ import annotations

import sys

import torch
import torch.nn as nn

from ._util import Patch

__all__ = ["repeat_kv", "repeat_kv_reference", "expand_mask", "preexpand_mask_buffers",
           "patch_repeat_kv", "repeat_kv_namespaces"]


def repeat_kv_reference(x, n_rep):
    """The Hugging Face form (for tests): expand a rank-5 view, then reshape."""
    b, n_kv, s, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, n_kv, n_rep, s, d).reshape(b, n_kv * n_rep, s, d)


def repeat_kv(x, n_rep):
    """[B, n_kv, S, D] -> [B, n_kv*n_rep, S, D], head i repeated n_rep times in place.
    Replaces repeat_kv / repeat_interleave(n_rep, dim=1). Bit-exact."""
    if n_rep == 1:
        return x
    parts = []
    for i in range(x.shape[1]):
        h = x[:, i:i + 1]
        parts.extend([h] * n_rep)
    return torch.cat(parts, dim=1)


def expand_mask(mask, num_heads):
    """[B, 1, S, T] -> [B, num_heads, S, T] by concatenation (no BROADCAST_TO); a mask
    already carrying the head axis is returned as is. Bit-exact."""
    if mask.dim() == 4 and mask.shape[1] == 1 and num_heads > 1:
        return torch.cat([mask] * num_heads, dim=1)
    return mask


def preexpand_mask_buffers(model: nn.Module, num_heads: int, match=None) -> int:
    """Replace every constant mask buffer of shape [B, 1, S, T] (buffer name contains
    'mask', or `match(name, tensor)`) with its [B, num_heads, S, T] expansion, baked as a
    constant, so `scores + mask` no longer broadcasts over heads. Returns the count.
    Bit-exact as long as the model only adds/broadcasts the mask against [B, H, S, T]."""
    n = 0
    for mod_name, mod in model.named_modules():
        for name, buf in list(mod.named_buffers(recurse=False)):
            full = (mod_name + "." if mod_name else "") + name
            ok = match(full, buf) if match else "mask" in name.lower()
            if ok and buf is not None and buf.dim() == 4 and buf.shape[1] == 1:
                mod._buffers[name] = buf.expand(buf.shape[0], num_heads, *buf.shape[2:]).contiguous()
                n += 1
    return n


def repeat_kv_namespaces():
    """Every already-imported module that defines the GQA helper repeat_kv where Hugging
    Face keeps it: transformers' modeling_* modules (eager attention) and
    transformers.integrations.* (sdpa_attention — the default attention path of
    transformers 5 — flex_attention, eager_paged, sdpa_paged)."""
    return [m for name, m in list(sys.modules.items())
            if m is not None and ("modeling_" in name or name.startswith("transformers.integrations."))
            and callable(getattr(m, "repeat_kv", None))]


def patch_repeat_kv(*namespaces):
    """Rebind the attribute `repeat_kv` of each given module namespace (e.g.
    transformers.models.llama.modeling_llama, transformers.integrations.sdpa_attention,
    or your own model's module) to the bit-exact rewrite, until the returned Patch is
    restored. With no arguments, repeat_kv_namespaces()."""
    if not namespaces:
        namespaces = repeat_kv_namespaces()
    p = Patch("repeat_kv", [(ns, "repeat_kv", repeat_kv) for ns in namespaces])
    p.count = len(namespaces)
    return p
