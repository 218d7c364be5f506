"""Small GPU-safe forms from the seed's "watch for" list.

* chunk -> slices: `.chunk()` / `torch.split` lower to SPLIT (GPU-rejected); slicing
  directly lowers to SLICE / STRIDED_SLICE. Bit-exact.
* reflect pad as slice + concat: reflect-mode F.pad (and every Conv2d with
  padding_mode='reflect', even at padding=0) lowers to MIRROR_PAD or a GATHER_ND;
  concatenating mirrored edge slices is cheap for small pads. Bit-exact.
* edge (replicate) pad as slice + concat, also used by the exact max-pool rewrite.
* channel attention as a 1x1 conv: a Linear on pooled channels confuses layout handling
  at convert time ("tfl.mul operands don't have broadcast-compatible shapes"); the same
  weights as a 1x1 Conv2d on [N, C, 1, 1] keep NCHW. Same dot products; fp32 summation
  order may differ (~1e-7).
* inplace-activation guard: `out = act(x)` with inplace=True overwrites x, so a later
  `x + out` adds act(x) twice. Finds the modules whose in-place write changes the
  model's output, so rewrites that swap activations keep that behaviour (exact: the
  model's own semantics are kept, only reported).
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from ._util import Patch, swap_modules

__all__ = ["chunk_slices", "split_slices", "patch_chunk", "reflect_pad", "edge_pad",
           "ReflectPad", "ReflectPadConv2d", "patch_reflect_pad", "Conv1x1Linear",
           "linear_to_conv1x1", "patch_channel_attention", "inplace_sensitive_modules",
           "patch_inplace_activations"]


def chunk_slices(x, chunks, dim=0):
    """x.chunk(chunks, dim) as narrow() slices (same sizes as torch.chunk). Bit-exact."""
    dim = dim % x.dim()
    n = x.shape[dim]
    step = -(-n // chunks)
    return tuple(x.narrow(dim, i, min(step, n - i)) for i in range(0, n, step))


def split_slices(x, split_size_or_sections, dim=0):
    """torch.split as narrow() slices. Bit-exact."""
    dim = dim % x.dim()
    n = x.shape[dim]
    if isinstance(split_size_or_sections, int):
        sizes = [min(split_size_or_sections, n - i) for i in range(0, n, split_size_or_sections)]
    else:
        sizes = list(split_size_or_sections)
    out, at = [], 0
    for s in sizes:
        out.append(x.narrow(dim, at, s))
        at += s
    return tuple(out)


def patch_chunk():
    """Route torch.chunk / Tensor.chunk / torch.split / Tensor.split through slices
    until the returned Patch is restored (use it around litert_torch.convert)."""
    def t_chunk(self, chunks, dim=0):
        return chunk_slices(self, chunks, dim)

    def t_split(self, split_size, dim=0):
        return split_slices(self, split_size, dim)
    return Patch("chunk", [(torch, "chunk", chunk_slices), (torch.Tensor, "chunk", t_chunk),
                           (torch, "split", split_slices), (torch.Tensor, "split", t_split)])


def _mirror(x, dim, left, right, reflect):
    n = x.shape[dim]
    parts = []
    off = 1 if reflect else 0
    if reflect and (left >= n or right >= n):
        raise ValueError("reflect pad %d/%d needs a dimension > %d (got %d)"
                         % (left, right, max(left, right), n))
    for i in range(left, 0, -1):              # x[left], ..., x[1] (reflect) / x[0] (edge)
        parts.append(x.narrow(dim, i if reflect else 0, 1))
    parts.append(x)
    for i in range(1, right + 1):             # x[n-2], x[n-3], ... (reflect) / x[n-1] (edge)
        parts.append(x.narrow(dim, n - 1 - i * off, 1))
    return torch.cat(parts, dim=dim) if len(parts) > 1 else x


def reflect_pad(x, pad):
    """F.pad(x, pad, mode='reflect') as slices + concat (pad in F.pad order: last dim
    first). Bit-exact."""
    for k in range(len(pad) // 2):
        x = _mirror(x, x.dim() - 1 - k, pad[2 * k], pad[2 * k + 1], reflect=True)
    return x


def edge_pad(x, pad):
    """F.pad(x, pad, mode='replicate') as slices + concat. Bit-exact."""
    for k in range(len(pad) // 2):
        x = _mirror(x, x.dim() - 1 - k, pad[2 * k], pad[2 * k + 1], reflect=False)
    return x


class ReflectPad(nn.Module):
    """Drop-in for nn.ReflectionPad1d/2d. Bit-exact."""

    def __init__(self, padding):
        super().__init__()
        self.padding = tuple(padding)

    def forward(self, x):
        return reflect_pad(x, self.padding)


class ReflectPadConv2d(nn.Module):
    """Drop-in for nn.Conv2d(padding_mode='reflect'): explicit slice+concat pad, then
    the same convolution with padding 0 (same parameters). Bit-exact padding; the conv
    is the same op on the same data."""

    def __init__(self, conv: nn.Conv2d):
        super().__init__()
        self.weight, self.bias = conv.weight, conv.bias
        self.stride, self.dilation, self.groups = conv.stride, conv.dilation, conv.groups
        ph, pw = conv.padding if isinstance(conv.padding, tuple) else (conv.padding,) * 2
        if isinstance(ph, str):
            raise NotImplementedError("padding=%r" % (conv.padding,))
        self.pad = (pw, pw, ph, ph)

    def forward(self, x):
        return F.conv2d(reflect_pad(x, self.pad), self.weight, self.bias, self.stride, 0,
                        self.dilation, self.groups)


def _pad_fn(orig):
    def pad(input, pad, mode="constant", value=None):
        if mode == "reflect":
            return reflect_pad(input, pad)
        if mode == "replicate":
            return edge_pad(input, pad)
        return orig(input, pad, mode, value) if value is not None else orig(input, pad, mode)
    return pad


def patch_reflect_pad(model: nn.Module | None = None, functional: bool = True):
    """Swap reflect-padded Conv2d and nn.ReflectionPad1d/2d in `model` (count in
    `.count`); while the returned Patch is active F.pad's reflect/replicate modes go
    through slice+concat too."""
    n = 0
    if model is not None:
        n += swap_modules(model, lambda _, m: type(m) is nn.Conv2d and m.padding_mode == "reflect",
                          ReflectPadConv2d)
        n += swap_modules(model, lambda _, m: type(m) in (nn.ReflectionPad1d, nn.ReflectionPad2d),
                          lambda m: ReflectPad(m.padding))
    p = Patch("reflect_pad", [(F, "pad", _pad_fn(F.pad))] if functional else [])
    p.count = n
    return p


class Conv1x1Linear(nn.Module):
    """A Linear applied as a 1x1 Conv2d with the same weights. Accepts [N, C] (returns
    [N, C']) or [N, C, 1, 1] (returns [N, C', 1, 1])."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.conv = linear_to_conv1x1(linear)

    def forward(self, x):
        if x.dim() == 2:
            return self.conv(x[:, :, None, None]).flatten(1)
        return self.conv(x)


def linear_to_conv1x1(linear: nn.Linear) -> nn.Conv2d:
    conv = nn.Conv2d(linear.in_features, linear.out_features, 1, bias=linear.bias is not None)
    with torch.no_grad():
        conv.weight.copy_(linear.weight[:, :, None, None])
        if linear.bias is not None:
            conv.bias.copy_(linear.bias)
    return conv


_CA_NAMES = ("se", "squeeze", "excit", "channelatt", "channel_att", "ca")


def patch_channel_attention(model: nn.Module, match=None) -> int:
    """Swap the Linear layers of channel-attention blocks for Conv1x1Linear. By
    default a Linear is matched when its parent module's class name looks like a
    squeeze-excitation / channel-attention block (SE, Squeeze, Excit, ChannelAtt, CA);
    pass `match(name, module)` to choose yourself. Returns the count."""
    if match is None:
        parents = {}
        for pname, pm in model.named_modules():
            cls = type(pm).__name__.lower()
            if any(cls == k or cls.startswith(k) or k in cls and len(k) > 2 for k in _CA_NAMES):
                for cname, c in pm.named_children():
                    parents[(pname + "." if pname else "") + cname] = True

        def match(name, m):
            return name in parents and type(m) is nn.Linear
    return swap_modules(model, match, Conv1x1Linear)


def inplace_sensitive_modules(model: nn.Module, *inputs):
    """Names of modules with inplace=True whose in-place write changes the model's
    output (run once with each one switched to out-of-place). A rewrite that replaces
    one of these must keep writing its input (the drop-ins here do, e.g. ELUArith)."""
    with torch.no_grad():
        ref = model(*[x.clone() for x in inputs])
        hits = []
        for name, m in model.named_modules():
            if getattr(m, "inplace", False) is True:
                m.inplace = False
                try:
                    out = model(*[x.clone() for x in inputs])
                finally:
                    m.inplace = True
                a = ref if torch.is_tensor(ref) else torch.cat([t.flatten() for t in ref])
                b = out if torch.is_tensor(out) else torch.cat([t.flatten() for t in out])
                if not torch.equal(a, b):
                    hits.append(name)
    return hits


def patch_inplace_activations(model: nn.Module, *inputs) -> dict:
    """The inplace guard: set inplace=False on every in-place module whose write does
    NOT change the output (harmless, and safe for later swaps), keep the ones that
    do (they are part of the model's math) and report them. Returns
    {"made_out_of_place": [...], "kept_inplace_semantic": [...]}. Exact."""
    keep = set(inplace_sensitive_modules(model, *inputs)) if inputs else set()
    changed = []
    for name, m in model.named_modules():
        if getattr(m, "inplace", False) is True and name not in keep and inputs:
            m.inplace = False
            changed.append(name)
    return {"made_out_of_place": changed, "kept_inplace_semantic": sorted(keep)}
