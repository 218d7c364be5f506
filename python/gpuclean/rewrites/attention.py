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
           "patch_repeat_kv", "WindowAttentionGPU", "patch_window_attention"]


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


def patch_repeat_kv(*namespaces):
    """Rebind the attribute `repeat_kv` of each given module namespace (e.g.
    transformers.models.llama.modeling_llama, or your own model's module) to the
    bit-exact rewrite, until the returned Patch is restored. With no arguments, every
    already-imported module whose name contains 'modeling_' and that has repeat_kv."""
    if not namespaces:
        namespaces = [m for name, m in list(sys.modules.items())
                      if m is not None and "modeling_" in name and hasattr(m, "repeat_kv")]
    p = Patch("repeat_kv", [(ns, "repeat_kv", repeat_kv) for ns in namespaces])
    p.count = len(namespaces)
    return p


class WindowAttentionGPU(nn.Module):
    """Swin(-v1) WindowAttention without GATHER_ND and rank-5 tensors: the relative
    position bias `table[index]` is gathered once here and kept as a constant
    [nH, N, N]; q/k/v are split with rank-4 views; the shifted-window mask is added as
    [B, nW*nH, N, N]. Wraps the original module (qkv, proj, dropouts reused). Bit-exact
    (the same operations on the same values, in the same order)."""

    def __init__(self, wa: nn.Module):
        super().__init__()
        self.qkv, self.proj = wa.qkv, wa.proj
        self.attn_drop = getattr(wa, "attn_drop", nn.Identity())
        self.proj_drop = getattr(wa, "proj_drop", nn.Identity())
        self.num_heads = int(wa.num_heads)
        self.scale = wa.scale
        n = wa.relative_position_index.shape[0]
        with torch.no_grad():
            bias = wa.relative_position_bias_table[wa.relative_position_index.reshape(-1)]
            bias = bias.reshape(n, n, -1).permute(2, 0, 1).contiguous()
        self.register_buffer("pos_bias", bias)

    def forward(self, x, mask=None):
        b_, n, c = x.shape
        nh = self.num_heads
        hd = c // nh
        qkv = self.qkv(x)
        q = qkv[..., 0 * c:1 * c].reshape(b_, n, nh, hd).transpose(1, 2)
        k = qkv[..., 1 * c:2 * c].reshape(b_, n, nh, hd).transpose(1, 2)
        v = qkv[..., 2 * c:3 * c].reshape(b_, n, nh, hd).transpose(1, 2)
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        attn = attn + self.pos_bias
        if mask is not None:
            nw = mask.shape[0]
            m = torch.cat([mask.unsqueeze(1)] * nh, dim=1).reshape(1, nw * nh, n, n)
            attn = (attn.reshape(b_ // nw, nw * nh, n, n) + m).reshape(b_, nh, n, n)
        attn = self.attn_drop(torch.softmax(attn, dim=-1))
        y = (attn @ v).transpose(1, 2).reshape(b_, n, c)
        return self.proj_drop(self.proj(y))


def patch_window_attention(model: nn.Module) -> int:
    """Swap every module carrying relative_position_bias_table, relative_position_index,
    num_heads, qkv and proj (Swin v1 WindowAttention) for WindowAttentionGPU."""
    from ._util import swap_modules
    need = ("relative_position_bias_table", "relative_position_index", "num_heads", "qkv", "proj")
    return swap_modules(model, lambda _, m: all(hasattr(m, a) for a in need)
                        and not isinstance(m, WindowAttentionGPU), WindowAttentionGPU)
