"""ViT-family rewrites: timm's packed-QKV Attention head split, and position embeddings
interpolated from a parameter (DINOv2, YOLOS, ViT/DeiT with interpolate_pos_encoding).

* PackedQKVAttentionGPU: timm's shared Attention (timm.layers.Attention, used by
  VisionTransformer, DeiT, MobileViT's transformer blocks, ...) splits heads with
  `qkv.reshape(B, N, 3, H, D).permute(2, 0, 3, 1, 4).unbind(0)`: a rank-5 RESHAPE,
  TRANSPOSE and three rank-5 SLICEs, all refused by the GPU delegate. The rewrite takes
  three channel slices of the qkv output, each reshaped to [B, N, H, D] and transposed
  to [B, H, N, D] (rank 4); the rest of timm's forward (gate, q_norm / k_norm,
  fused_attn -> scaled_dot_product_attention with attn_mask / is_causal / dropout, or
  the explicit scale / mask / softmax / attn_drop path, the output norm, proj,
  proj_drop) is timm's own code path, on the same values. Bit-exact. A module is
  swapped only when it is exactly timm's class and a probe run (no mask, float mask,
  is_causal) reproduces it.
* Frozen position embeddings: DINOv2's interpolate_pos_encoding and YOLOS's
  Interpolate{Initial,Mid}PositionEmbeddings resample a *parameter* with bicubic
  F.interpolate at every call; converted, that is a cone of constant-only GATHER /
  BATCH_MATMUL nodes the GPU delegate refuses (a constant LHS of BATCH_MATMUL) — or
  computes on the CPU. The result depends only on the parameter and the input size,
  so patch_pos_embed_interpolation runs the model once on the sample inputs, records
  each interpolated embedding for the size seen, and from then on returns it as a
  constant (another size falls back to the original computation). Bit-exact: the same
  PyTorch computation, done once. A method that is called with a tensor whose values
  change its result (checked at recording time) is left alone.
"""
from __future__ import annotations

import logging
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ._util import class_is, constant, probe_equal, swap_modules
from .swin import split_qkv

log = logging.getLogger("gpuclean.rewrites")

__all__ = ["PackedQKVAttentionGPU", "patch_packed_qkv", "FrozenPosEmbedding",
           "patch_pos_embed_interpolation"]

_TIMM_ATTN = "timm.layers.attention"


# ---- timm Attention -----------------------------------------------------------------------

class PackedQKVAttentionGPU(nn.Module):
    """timm.layers.Attention with the head split in rank 4 (see the module docstring).
    Reuses every submodule of the original. Bit-exact."""

    def __init__(self, a: nn.Module):
        super().__init__()
        self.qkv, self.q_norm, self.k_norm = a.qkv, a.q_norm, a.k_norm
        self.attn_drop, self.norm, self.proj, self.proj_drop = a.attn_drop, a.norm, a.proj, a.proj_drop
        self.gate = getattr(a, "gate", None)
        self.num_heads, self.head_dim = int(a.num_heads), int(a.head_dim)
        self.attn_dim = int(getattr(a, "attn_dim", self.num_heads * self.head_dim))
        self.scale = a.scale
        self.fused_attn = bool(a.fused_attn)

    def forward(self, x, attn_mask=None, is_causal=False):
        ta = sys.modules[_TIMM_ATTN]
        b, n, _ = x.shape
        gate = self.gate(x).sigmoid() if self.gate is not None else None
        q, k, v = split_qkv(self.qkv(x), self.num_heads, self.head_dim)
        q, k = self.q_norm(q), self.k_norm(k)
        if self.fused_attn:
            x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask,
                                               dropout_p=self.attn_drop.p if self.training else 0.,
                                               is_causal=is_causal)
        else:
            q = q * self.scale
            attn = q @ k.transpose(-2, -1)
            attn_bias = ta.resolve_self_attn_mask(n, attn, attn_mask, is_causal)
            attn = ta.maybe_add_mask(attn, attn_bias)
            attn = attn.softmax(dim=-1)
            attn = self.attn_drop(attn)
            x = attn @ v
        x = x.transpose(1, 2).reshape(b, n, self.attn_dim)
        x = self.norm(x)
        if gate is not None:
            x = x * gate
        return self.proj_drop(self.proj(x))


def _make_packed(m):
    try:
        g = PackedQKVAttentionGPU(m)
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(2, 5, m.qkv.in_features, generator=gen)
        mask = torch.randn(1, 1, 5, 5, generator=gen)
        calls = [(x,), (x, mask), ((x,), {"is_causal": True})]
    except Exception as e:  # noqa: BLE001
        log.debug("timm Attention refused: %s", e)
        return None
    if probe_equal(m, g, calls):
        return g
    log.info("timm Attention not swapped: its forward is not the one PackedQKVAttentionGPU reproduces")
    return None


def patch_packed_qkv(model: nn.Module) -> int:
    """Swap every timm.layers.Attention (exact class) for PackedQKVAttentionGPU.
    Returns the count."""
    return swap_modules(model, lambda _, m: class_is(m, _TIMM_ATTN, "Attention"), _make_packed)


# ---- frozen interpolated position embeddings ---------------------------------------------------

def _key(args, kwargs):
    def one(v):
        if torch.is_tensor(v):
            return ("T", tuple(int(s) for s in v.shape), str(v.dtype))
        if isinstance(v, (tuple, list)):
            return tuple(one(u) for u in v)
        return v
    return (tuple(one(a) for a in args), tuple(sorted((k, one(v)) for k, v in kwargs.items())))


class _Recorder:
    """Shared state of one frozen call site: 'record' (run the original, keep its
    output by key) or 'replay' (return the kept output as a constant)."""

    def __init__(self, name, value_free):
        self.name, self.value_free = name, value_free   # value_free(args) -> bool
        self.mode, self.cache, self.refused = "record", {}, False

    def __call__(self, fn, args, kwargs):
        key = _key(args, kwargs)
        if self.mode == "replay" and not self.refused and key in self.cache:
            arr, dtype = self.cache[key]
            return constant(arr, dtype, None)
        out = fn(*args, **kwargs)
        if self.mode == "record" and torch.is_tensor(out):
            if not self.value_free(fn, args, kwargs, out):
                self.refused = True
                log.info("%s not frozen: its output depends on tensor values", self.name)
            else:
                self.cache[key] = (out.detach().cpu().numpy().copy(), out.dtype)
        return out


def _perturbed(args):
    """The arguments with every non-parameter tensor replaced by other random values."""
    g = torch.Generator().manual_seed(1)
    out = []
    for a in args:
        if torch.is_tensor(a) and not isinstance(a, nn.Parameter) and a.is_floating_point():
            out.append(torch.randn(a.shape, generator=g, dtype=a.dtype))
        else:
            out.append(a)
    return out


def _value_free(fn, args, kwargs, out):
    """True when `fn` gives the same output with its activation arguments replaced by
    other values (only shapes and parameters matter)."""
    with torch.no_grad():
        other = fn(*_perturbed(args), **kwargs)
    return torch.is_tensor(other) and other.shape == out.shape and torch.equal(other, out)


class _FrozenMethod:
    """Instance attribute shadowing a method (deep-copies with its module)."""

    def __init__(self, module, name, rec):
        self.module, self.name, self.rec = module, name, rec
        self.func = getattr(type(module), name)

    def __call__(self, *args, **kwargs):
        return self.rec(lambda *a, **k: self.func(self.module, *a, **k), args, kwargs)


class FrozenPosEmbedding(nn.Module):
    """A module whose output depends only on its parameters and the shapes / Python
    values of its arguments (YOLOS's Interpolate*PositionEmbeddings), with that output
    recorded once and returned as a constant afterwards. Bit-exact."""

    def __init__(self, inner: nn.Module, rec: _Recorder):
        super().__init__()
        self.inner, self.rec = inner, rec

    def forward(self, *args, **kwargs):
        return self.rec(self.inner, args, kwargs)


def _yolos_params_only(fn, args, kwargs, out):
    # InterpolateInitialPositionEmbeddings(pos_embed, img_size): YOLOS passes its
    # position_embeddings parameter; Mid takes only img_size
    return all(isinstance(a, nn.Parameter) or not torch.is_tensor(a) for a in args) and \
        all(isinstance(v, nn.Parameter) or not torch.is_tensor(v) for v in kwargs.values())


_YOLOS = "transformers.models.yolos.modeling_yolos"


def patch_pos_embed_interpolation(model: nn.Module, sample_inputs) -> int:
    """Freeze interpolated position embeddings for the size of `sample_inputs` (see the
    module docstring): every module with an interpolate_pos_encoding method and a
    position_embeddings parameter (DINOv2, ViT, DeiT, ... in transformers) and YOLOS's
    InterpolateInitialPositionEmbeddings / InterpolateMidPositionEmbeddings. Runs the
    model once on sample_inputs (eval, no_grad) to record. Returns the number of call
    sites frozen (0 without sample inputs)."""
    if sample_inputs is None:
        return 0
    if torch.is_tensor(sample_inputs):
        sample_inputs = (sample_inputs,)
    recs = []
    for name, m in model.named_modules():
        if isinstance(getattr(m, "position_embeddings", None), nn.Parameter) and \
                callable(getattr(type(m), "interpolate_pos_encoding", None)) and \
                not isinstance(m.__dict__.get("interpolate_pos_encoding"), _FrozenMethod):
            rec = _Recorder(name + ".interpolate_pos_encoding", _value_free)
            m.interpolate_pos_encoding = _FrozenMethod(m, "interpolate_pos_encoding", rec)
            recs.append((rec, lambda m=m: m.__dict__.pop("interpolate_pos_encoding", None)))

    def match(_, m):
        return class_is(m, _YOLOS, "InterpolateInitialPositionEmbeddings") or \
            class_is(m, _YOLOS, "InterpolateMidPositionEmbeddings")
    made = []

    def make(m):
        rec = _Recorder(type(m).__name__, _yolos_params_only)
        made.append(rec)
        return FrozenPosEmbedding(m, rec)
    swap_modules(model, match, make)
    recs.extend((r, None) for r in made)
    if not recs:
        return 0
    flags = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            model(*[x.clone() if torch.is_tensor(x) else x for x in sample_inputs])
    finally:
        for m, t in flags:
            m.train(t)
    n = 0
    for rec, undo in recs:
        rec.mode = "replay"
        if rec.cache and not rec.refused:
            n += 1
        elif undo is not None:
            undo()
    return n
