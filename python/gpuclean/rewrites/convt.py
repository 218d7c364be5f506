"""ConvTranspose without TRANSPOSE_CONV: zero-stuffing plus an ordinary convolution.

TRANSPOSE_CONV is emitted by the converter at an op version that device delegates
reject (version skew, the seed's table). A transposed convolution with stride s equals
a plain convolution, with the kernel flipped and its in/out axes swapped, over the input
with s-1 zeros inserted between samples, padded by dilation*(k-1)-padding on each side
(plus output_padding at the end). Zeros are inserted with CONCATENATION + RESHAPE at
rank <= 4 (no RESIZE, no rank-5 tensor); padding/cropping is PAD / SLICE.

Exactness: the same products are summed (the inserted zeros contribute exact zeros);
only the order of the fp32 sums differs from PyTorch's kernel: max |diff| ~1e-7 relative
to the output scale (the seed's claim, measured in python/tests/test_rewrites.py).
Handles stride, padding, output_padding, dilation, groups, bias, non-square kernels
and strides (the seed's ZeroStuffConvT2d is square-only). The input size is read at
trace time, so one module serves any input size.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

import numpy as np

from ._util import constant, swap_modules

__all__ = ["zero_stuff", "conv_transpose2d_zs", "ZeroStuffConvT2d", "ZeroStuffConvT1d",
           "patch_conv_transpose"]


def _interleave_zeros_last(x, s):
    """[..., W] -> [..., W*s] with s-1 zeros after every sample (rank kept <= 4)."""
    if s == 1:
        return x
    shp = x.shape
    lead = 1
    for d in shp[:-1]:
        lead *= d
    x2 = x.reshape(1, lead, shp[-1], 1)
    z = constant(np.zeros((1, lead, shp[-1], s - 1)), x.dtype, x.device)
    return torch.cat([x2, z], dim=3).reshape(*shp[:-1], shp[-1] * s)


def zero_stuff(x, sh, sw):
    """[N, C, H, W] -> [N, C, H*sh, W*sw]: each sample followed by zeros (exact)."""
    n, c, h, w = x.shape
    x = _interleave_zeros_last(x, sw)                     # [N, C, H, W*sw]
    if sh > 1:
        x = x.reshape(1, n * c * h, 1, w * sw)
        z = constant(np.zeros((1, n * c * h, sh - 1, w * sw)), x.dtype, x.device)
        x = torch.cat([x, z], dim=2).reshape(n, c, h * sh, w * sw)
    return x


def _pad_or_crop(x, dim, left, right):
    if left < 0:
        x = x.narrow(dim, -left, x.shape[dim] + left)
        left = 0
    if right < 0:
        x = x.narrow(dim, 0, x.shape[dim] + right)
        right = 0
    if left or right:
        pad = [0, 0] * (x.dim() - 1 - dim) + [left, right]
        x = F.pad(x, pad)
    return x


def _flip_swap(weight, groups):
    """ConvTranspose weight [Cin, Cout/g, kh, kw] -> Conv weight [Cout, Cin/g, kh, kw]."""
    cin, coutg, kh, kw = weight.shape
    w = weight.reshape(groups, cin // groups, coutg, kh, kw).transpose(1, 2)
    return w.reshape(groups * coutg, cin // groups, kh, kw).flip(-1, -2)


def conv_transpose2d_zs(x, weight, bias, stride, padding, output_padding, dilation,
                        groups, conv_weight=None):
    """F.conv_transpose2d(x, weight, bias, ...) computed as zero-stuff + conv2d."""
    sh, sw = stride
    ph, pw = padding
    oph, opw = output_padding
    dh, dw = dilation
    kh, kw = weight.shape[-2:]
    h, w = x.shape[-2:]
    wc = _flip_swap(weight, groups) if conv_weight is None else conv_weight
    z = zero_stuff(x, sh, sw)                    # length H*sh: (H-1)*sh+1 samples + sh-1 zeros
    left_h = dh * (kh - 1) - ph
    left_w = dw * (kw - 1) - pw
    right_h = left_h + oph - (sh - 1)
    right_w = left_w + opw - (sw - 1)
    z = _pad_or_crop(z, 2, left_h, right_h)
    z = _pad_or_crop(z, 3, left_w, right_w)
    return F.conv2d(z, wc, bias, 1, 0, (dh, dw), groups)


class ZeroStuffConvT2d(nn.Module):
    """Drop-in for nn.ConvTranspose2d (same weight and bias parameters).
    `in_h`, `in_w` are accepted for the seed's signature and ignored."""

    def __init__(self, ct: nn.ConvTranspose2d, in_h=None, in_w=None):
        super().__init__()
        if ct.padding_mode != "zeros":
            raise NotImplementedError("ConvTranspose2d padding_mode=%r" % ct.padding_mode)
        self.weight, self.bias = ct.weight, ct.bias
        self.stride, self.padding = tuple(ct.stride), tuple(ct.padding)
        self.output_padding, self.dilation = tuple(ct.output_padding), tuple(ct.dilation)
        self.groups = ct.groups

    def forward(self, x, output_size=None):
        if output_size is not None:
            raise NotImplementedError("ZeroStuffConvT2d: output_size")
        squeeze = x.dim() == 3
        if squeeze:
            x = x.unsqueeze(0)
        y = conv_transpose2d_zs(x, self.weight, self.bias, self.stride, self.padding,
                                self.output_padding, self.dilation, self.groups)
        return y.squeeze(0) if squeeze else y


class ZeroStuffConvT1d(nn.Module):
    """Drop-in for nn.ConvTranspose1d, computed in 2-D as [N, C, 1, L] (rank 4)."""

    def __init__(self, ct: nn.ConvTranspose1d, input_length=None):
        super().__init__()
        if ct.padding_mode != "zeros":
            raise NotImplementedError("ConvTranspose1d padding_mode=%r" % ct.padding_mode)
        self.weight, self.bias = ct.weight, ct.bias
        self.stride, self.padding = ct.stride[0], ct.padding[0]
        self.output_padding, self.dilation = ct.output_padding[0], ct.dilation[0]
        self.groups = ct.groups

    def forward(self, x, output_size=None):
        if output_size is not None:
            raise NotImplementedError("ZeroStuffConvT1d: output_size")
        squeeze = x.dim() == 2
        if squeeze:
            x = x.unsqueeze(0)
        y = conv_transpose2d_zs(x.unsqueeze(2), self.weight.unsqueeze(2), self.bias,
                                (1, self.stride), (0, self.padding),
                                (0, self.output_padding), (1, self.dilation), self.groups)
        y = y.squeeze(2)
        return y.squeeze(0) if squeeze else y


def patch_conv_transpose(model: nn.Module, dummy_input=None) -> int:
    """Swap every nn.ConvTranspose1d / nn.ConvTranspose2d for its ZeroStuff form.
    Returns the count. `dummy_input` is accepted for the seed's signature (no dry run
    is needed: sizes are read at trace time)."""
    n = swap_modules(model, lambda _, m: type(m) is nn.ConvTranspose2d, ZeroStuffConvT2d)
    n += swap_modules(model, lambda _, m: type(m) is nn.ConvTranspose1d, ZeroStuffConvT1d)
    return n
