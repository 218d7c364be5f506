"""Rank-5+ removal: PixelShuffle / PixelUnshuffle, einops rearranges, any permute.

The GPU delegate takes tensors of rank <= 4. PixelShuffle's natural lowering is a
rank-6 reshape; einops patterns and packed head splits create rank-5/6 views.

* permute4(x, perm): any permutation of any-rank logical axes, executed as a sequence
  of rank-4 transposes [A, B, C, D] -> [A, C, B, D] (each swaps two adjacent groups of
  axes). Pure data movement: bit-exact.
* rearrange(x, pattern, **sizes): einops.rearrange semantics (axis groups in
  parentheses, named sizes, '1' axes) built on permute4 so no graph tensor exceeds
  rank 4 (unless the pattern's own input or output does). Bit-exact.
* pixel_shuffle4 / pixel_unshuffle4 / PixelShuffle4 / PixelUnshuffle4: rank-4 forms.
  Bit-exact.
* pixelshuffle_to_conv_transpose: the seed's one-hot ConvTranspose2d equal to
  PixelShuffle(r) (exact); lower it further with ZeroStuffConvT2d.
* channel_shuffle4 / ChannelShuffle4 / patch_channel_shuffle: ShuffleNet's channel
  shuffle `view(b, g, c/g, h, w).transpose(1, 2)` (rank 5; torchvision's
  shufflenetv2.channel_shuffle, nn.ChannelShuffle) as [b, g, c/g, h*w] -> transpose
  -> [b, c, h, w]. Bit-exact.
"""
from __future__ import annotations

import re

import torch
import torch.nn as nn

from ._util import Patch, swap_modules

__all__ = ["permute4", "rearrange", "pixel_shuffle4", "pixel_unshuffle4", "PixelShuffle4",
           "PixelUnshuffle4", "patch_pixel_shuffle", "pixelshuffle_to_conv_transpose",
           "patch_einops", "channel_shuffle4", "ChannelShuffle4", "patch_channel_shuffle"]


def _prod(xs):
    p = 1
    for v in xs:
        p *= int(v)
    return p


def permute4(x, perm, dims=None):
    """Return x (viewed with logical shape `dims`, default x.shape) permuted by
    `perm`, reshaped to the permuted logical shape, using only rank <= 4 tensors.
    Adjacent swaps of size-1 axes are skipped; adjacent axes that stay together are
    moved as one group."""
    dims = list(x.shape if dims is None else dims)
    perm = list(perm)
    if sorted(perm) != list(range(len(dims))):
        raise ValueError("bad permutation %s for %d axes" % (perm, len(dims)))
    # merge runs of axes that stay adjacent and in order
    groups, cur = [], [perm[0]]
    for a in perm[1:]:
        if a == cur[-1] + 1:
            cur.append(a)
        else:
            groups.append(cur)
            cur = [a]
    groups.append(cur)
    order = sorted(range(len(groups)), key=lambda g: groups[g][0])   # source order
    gsize = [_prod(dims[a] for a in groups[g]) for g in range(len(groups))]
    # current layout: groups in source order; target: groups in perm order (0..G-1)
    cur_order = order[:]                       # cur_order[i] = group at position i
    y = x
    changed = True
    while changed:                             # bubble sort by adjacent group swaps
        changed = False
        for i in range(len(cur_order) - 1):
            if cur_order[i] > cur_order[i + 1]:
                a, b = gsize[cur_order[i]], gsize[cur_order[i + 1]]
                if a > 1 and b > 1:
                    pre = _prod(gsize[g] for g in cur_order[:i])
                    post = _prod(gsize[g] for g in cur_order[i + 2:])
                    y = y.reshape(pre, a, b, post).transpose(1, 2)
                cur_order[i], cur_order[i + 1] = cur_order[i + 1], cur_order[i]
                changed = True
    return y.reshape([dims[a] for a in perm])


_TOKEN = re.compile(r"\(|\)|[A-Za-z_][A-Za-z0-9_]*|1|\.\.\.")


def _parse(side):
    """'b (h w) c' -> [['b'], ['h', 'w'], ['c']] ('1' -> [], i.e. a unit axis)."""
    groups, cur = [], None
    for tok in _TOKEN.findall(side):
        if tok == "(":
            cur = []
        elif tok == ")":
            groups.append(cur)
            cur = None
        elif tok == "...":
            raise NotImplementedError("rearrange: '...' is not supported")
        else:
            item = [] if tok == "1" else [tok]
            if cur is None:
                groups.append(item)
            else:
                cur.extend(item)
    return groups


def rearrange(x, pattern, **sizes):
    """einops.rearrange(x, pattern, **sizes) with rank <= 4 intermediates. Bit-exact."""
    left, right = pattern.split("->")
    lg, rg = _parse(left), _parse(right)
    if len(lg) != x.dim():
        raise ValueError("rearrange: pattern has %d input axes, tensor has %d" % (len(lg), x.dim()))
    size = dict(sizes)
    for g, n in zip(lg, x.shape):
        unknown = [a for a in g if a not in size]
        known = _prod(size[a] for a in g if a in size)
        if len(unknown) > 1:
            raise ValueError("rearrange: cannot infer %s" % unknown)
        if unknown:
            size[unknown[0]] = int(n) // known
    src = [a for g in lg for a in g]
    dst = [a for g in rg for a in g]
    if sorted(src) != sorted(dst):
        raise ValueError("rearrange: axes %s vs %s (only rearrangement is supported)" % (src, dst))
    perm = [src.index(a) for a in dst]
    y = permute4(x, perm, [size[a] for a in src])
    return y.reshape([_prod(size[a] for a in g) for g in rg])


def pixel_shuffle4(x, r):
    """F.pixel_shuffle(x, r) for [N, C*r*r, H, W] with rank-4 tensors only. Bit-exact."""
    n, crr, h, w = x.shape
    return rearrange(x, "n (c r1 r2) h w -> n c (h r1) (w r2)", r1=r, r2=r)


def pixel_unshuffle4(x, r):
    """F.pixel_unshuffle(x, r) with rank-4 tensors only. Bit-exact."""
    return rearrange(x, "n c (h r1) (w r2) -> n (c r1 r2) h w", r1=r, r2=r)


class PixelShuffle4(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = int(upscale_factor)

    def forward(self, x):
        return pixel_shuffle4(x, self.upscale_factor)


class PixelUnshuffle4(nn.Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = int(downscale_factor)

    def forward(self, x):
        return pixel_unshuffle4(x, self.downscale_factor)


def patch_pixel_shuffle(model: nn.Module) -> int:
    """Swap nn.PixelShuffle / nn.PixelUnshuffle for the rank-4 forms. Returns the count."""
    n = swap_modules(model, lambda _, m: type(m) is nn.PixelShuffle,
                     lambda m: PixelShuffle4(m.upscale_factor))
    n += swap_modules(model, lambda _, m: type(m) is nn.PixelUnshuffle,
                      lambda m: PixelUnshuffle4(m.downscale_factor))
    return n


def pixelshuffle_to_conv_transpose(upscale_factor: int, out_channels: int) -> nn.ConvTranspose2d:
    """The seed's form: a bias-free ConvTranspose2d(out_channels*r*r -> out_channels,
    kernel r, stride r) with one-hot weights, equal to nn.PixelShuffle(r). Exact."""
    r = int(upscale_factor)
    ct = nn.ConvTranspose2d(out_channels * r * r, out_channels, r, stride=r, bias=False)
    with torch.no_grad():
        ct.weight.zero_()
        for c in range(out_channels):
            for i in range(r):
                for j in range(r):
                    ct.weight[c * r * r + i * r + j, c, i, j] = 1.0
    return ct


def patch_einops():
    """einops.rearrange -> rearrange (rank <= 4) until the returned Patch is restored.
    A no-op Patch (count 0) where einops is not installed."""
    try:
        import einops
    except ImportError:
        p = Patch("einops", [])
        p.count = 0
        return p
    reps = [(einops, "rearrange", rearrange)]
    try:
        import einops.einops as ee
        reps.append((ee, "rearrange", rearrange))
    except ImportError:
        pass
    p = Patch("einops", reps)
    p.count = 1
    return p


def channel_shuffle4(x, groups):
    """ShuffleNet's channel shuffle of [B, C, H, W] with rank-4 tensors only. Bit-exact."""
    b, c, h, w = x.shape
    g = int(groups)
    return x.reshape(b, g, c // g, h * w).transpose(1, 2).reshape(b, c, h, w)


class ChannelShuffle4(nn.Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = int(groups)

    def forward(self, x):
        return channel_shuffle4(x, self.groups)


def patch_channel_shuffle(model: nn.Module = None):
    """Swap nn.ChannelShuffle modules of `model` for ChannelShuffle4 and rebind
    torchvision.models.shufflenetv2.channel_shuffle (when imported) to channel_shuffle4
    until the returned Patch is restored. p.count = modules swapped + functions rebound."""
    import sys
    n = 0
    if model is not None:
        n = swap_modules(model, lambda _, m: type(m) is nn.ChannelShuffle,
                         lambda m: ChannelShuffle4(m.groups))
    reps = []
    tv = sys.modules.get("torchvision.models.shufflenetv2")
    if tv is not None and hasattr(tv, "channel_shuffle"):
        reps.append((tv, "channel_shuffle", channel_shuffle4))
    p = Patch("channel_shuffle", reps)
    p.count = n + len(reps)
    return p
