"""GATHER_ND removal: grid_sample, padded max-pool, interpolate, stride-2 slicing.

Each of these lowers (with some converter versions) to GATHER_ND, which the GPU
delegate rejects.

* grid_sample_tent: bilinear F.grid_sample as a tent-weight matrix product
  (RELU/ABS weights + BATCH_MATMUL). Mathematically identical to bilinear sampling with
  padding_mode='zeros', both align_corners; fp32 max |diff| ~1e-6. Other modes raise
  NotImplementedError (the seed silently ignored them). Cost O(H*W*Hg*Wg): for sparse
  sampling grids, not dense warps of large images.
* EdgePadMaxPool2d: MaxPool2d(padding=p) as replicate-pad (slice+concat) + unpadded
  max pool. Every window that touches the padding also contains the edge sample it
  replicates, so this is bit-exact for every input sign (the seed's zero-pad form is
  exact only for x >= 0; ZeroPadMaxPool2d keeps that form, for inputs known to be >= 0).
* interpolate_matmul: F.interpolate (bicubic, bilinear, nearest, area, any
  align_corners) as two constant matrix products ((x^T A_h^T)^T A_w^T); the matrices are
  F.interpolate applied to the identity, so they are PyTorch's own weights. Bicubic's
  gather-based lowering disappears. fp32 max |diff| ~1e-6 (summation order).
* space_to_depth2 / stride2_slice: x[..., ::2, ::2] and the Focus / patch-merging
  quadruple as a one-hot depthwise stride-2 CONV_2D. Bit-exact for finite inputs
  (each output is 1*x plus exact zeros).
"""
from __future__ import annotations

import functools

import torch
import torch.nn as nn
import torch.nn.functional as F

import numpy as np

from ._util import Patch, constant, eager, swap_modules
from .misc import edge_pad

_F_INTERPOLATE = F.interpolate           # the original, immune to patch_interpolate

__all__ = ["grid_sample_tent", "patch_grid_sample", "EdgePadMaxPool2d", "ZeroPadMaxPool2d",
           "ZeroPadMaxPool", "patch_maxpool_zeropad", "interpolate_matmul",
           "patch_interpolate", "space_to_depth2", "stride2_slice"]


# ---- grid_sample ---------------------------------------------------------------------

def grid_sample_tent(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """F.grid_sample for 4-D input, bilinear, zeros padding, as a matrix product."""
    if mode != "bilinear" or padding_mode != "zeros":
        raise NotImplementedError("grid_sample_tent: mode=%r padding_mode=%r (bilinear/zeros only)"
                                  % (mode, padding_mode))
    if x.dim() != 4:
        raise NotImplementedError("grid_sample_tent: 4-D input only")
    n, c, h, w = x.shape
    _, hg, wg, _ = grid.shape
    gx = grid[..., 0].reshape(n, hg * wg, 1)
    gy = grid[..., 1].reshape(n, hg * wg, 1)
    if align_corners:
        ix = (gx + 1.0) * (0.5 * (w - 1))
        iy = (gy + 1.0) * (0.5 * (h - 1))
    else:
        ix = ((gx + 1.0) * w - 1.0) * 0.5
        iy = ((gy + 1.0) * h - 1.0) * 0.5
    jx = constant(np.arange(w).reshape(1, 1, w), x.dtype, x.device)
    jy = constant(np.arange(h).reshape(1, 1, h), x.dtype, x.device)
    wx = torch.relu(1.0 - torch.abs(ix - jx))                     # [N, P, W]
    wy = torch.relu(1.0 - torch.abs(iy - jy))                     # [N, P, H]
    wgt = (wy.unsqueeze(3) * wx.unsqueeze(2)).reshape(n, hg * wg, h * w)   # [N, P, HW]
    out = torch.matmul(x.reshape(n, c, h * w), wgt.transpose(1, 2))       # [N, C, P]
    return out.reshape(n, c, hg, wg)


def patch_grid_sample():
    """F.grid_sample -> grid_sample_tent until the returned Patch is restored."""
    orig = F.grid_sample

    def gs(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
        if mode == "bilinear" and padding_mode == "zeros" and input.dim() == 4:
            return grid_sample_tent(input, grid, mode, padding_mode, bool(align_corners))
        return orig(input, grid, mode, padding_mode, align_corners)
    return Patch("grid_sample", [(F, "grid_sample", gs)])


# ---- max pool ----------------------------------------------------------------------------

def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


class EdgePadMaxPool2d(nn.Module):
    """Drop-in for a padded nn.MaxPool2d (dilation 1): replicate pad + unpadded pool.
    Bit-exact for any input."""

    def __init__(self, kernel_size=3, stride=None, padding=1, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.padding = _pair(kernel_size), _pair(padding)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.ceil_mode = ceil_mode

    def forward(self, x):
        ph, pw = self.padding
        return F.max_pool2d(edge_pad(x, (pw, pw, ph, ph)), self.kernel_size, self.stride, 0,
                            1, self.ceil_mode)


class ZeroPadMaxPool2d(EdgePadMaxPool2d):
    """The seed's form: zero PAD + unpadded pool. Exact only for inputs >= 0 (after a
    ReLU); use EdgePadMaxPool2d otherwise."""

    def forward(self, x):
        ph, pw = self.padding
        return F.max_pool2d(F.pad(x, (pw, pw, ph, ph)), self.kernel_size, self.stride, 0, 1,
                            self.ceil_mode)


ZeroPadMaxPool = ZeroPadMaxPool2d          # the seed's name


def patch_maxpool_zeropad(model: nn.Module, exact: bool = True) -> int:
    """Swap every padded nn.MaxPool2d (dilation 1) for EdgePadMaxPool2d (exact, default)
    or the seed's ZeroPadMaxPool2d (exact=False). Returns the count."""
    cls = EdgePadMaxPool2d if exact else ZeroPadMaxPool2d

    def match(_, m):
        return (type(m) is nn.MaxPool2d and _pair(m.padding) != (0, 0)
                and _pair(m.dilation) == (1, 1) and not m.return_indices)
    return swap_modules(model, match, lambda m: cls(m.kernel_size, m.stride, m.padding,
                                                     m.ceil_mode))


# ---- interpolate ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def _interp_matrix_np(n_in, n_out, mode, align_corners, antialias):
    """[n_out, n_in] weights of 1-D resampling along one axis, taken from PyTorch
    (F.interpolate of the identity, computed eagerly even inside an export trace)."""
    with eager():
        eye = torch.eye(n_in, dtype=torch.float64).reshape(1, n_in, 1, n_in)
        kw = {}
        if mode in ("bilinear", "bicubic"):
            kw["align_corners"] = align_corners
            kw["antialias"] = antialias
        out = _F_INTERPOLATE(eye, size=(1, n_out), mode=mode, **kw)   # [1, n_in, 1, n_out]
        return out[0, :, 0, :].t().contiguous().numpy()


def _interp_matrix(n_in, n_out, mode, align_corners, antialias, dtype=torch.float32):
    return constant(_interp_matrix_np(n_in, n_out, mode, align_corners, antialias), dtype)


def _out_size(n, size, scale, k):
    if size is not None:
        return int(size[k] if isinstance(size, (tuple, list)) else size)
    s = scale[k] if isinstance(scale, (tuple, list)) else scale
    return int(n * s)


def interpolate_matmul(x, size=None, scale_factor=None, mode="bicubic", align_corners=None,
                       recompute_scale_factor=None, antialias=False):
    """F.interpolate for 4-D input as A_h @ x @ A_w^T with constant matrices."""
    if x.dim() != 4:
        raise NotImplementedError("interpolate_matmul: 4-D input only")
    if scale_factor is not None and not recompute_scale_factor and size is None:
        s = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * 2
        if any(float(v) != int(v) for v in s) and mode != "nearest":
            # PyTorch uses the given scale (not out/in) for the coordinates: not modelled
            raise NotImplementedError("interpolate_matmul: non-integer scale_factor")
    h, w = x.shape[-2:]
    ho = _out_size(h, size, scale_factor, 0)
    wo = _out_size(w, size, scale_factor, 1)
    ac = bool(align_corners) if mode in ("bilinear", "bicubic") else None
    ah = _interp_matrix(h, ho, mode, ac, antialias, x.dtype)
    aw = _interp_matrix(w, wo, mode, ac, antialias, x.dtype)
    # constants on the right (FULLY_CONNECTED): a constant LHS of BATCH_MATMUL is
    # not taken by the GPU delegate
    y = torch.matmul(x.transpose(2, 3), ah.t())     # [N, C, W, Ho]
    return torch.matmul(y.transpose(2, 3), aw.t())  # [N, C, Ho, Wo]


GATHER_MODES = ("bicubic",)


def patch_interpolate(modes=GATHER_MODES):
    """F.interpolate for the given modes (default: bicubic, the one that lowers to
    GATHER_ND) -> interpolate_matmul, until the returned Patch is restored. Unlike the
    seed, align_corners is honoured, never forced."""
    orig = F.interpolate
    modes = tuple(modes)

    def interp(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
               recompute_scale_factor=None, antialias=False):
        if mode in modes and input.dim() == 4:
            try:
                return interpolate_matmul(input, size, scale_factor, mode, align_corners,
                                          recompute_scale_factor, antialias)
            except NotImplementedError:
                pass
        return orig(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
                    antialias)
    return Patch("interpolate", [(F, "interpolate", interp)])


# ---- stride-2 slicing ------------------------------------------------------------------------

def _onehot_kernel(c, offsets, dtype, device):
    """Depthwise one-hot 2x2 kernels [C*K, 1, 2, 2]: output channel i*K + k copies
    channel i at offset offsets[k] = (dy, dx). A numpy-built graph constant."""
    w = np.zeros((c, len(offsets), 2, 2), np.float32)
    for k, (dy, dx) in enumerate(offsets):
        w[:, k, dy, dx] = 1.0
    return constant(w.reshape(c * len(offsets), 1, 2, 2), dtype, device)


FOCUS_ORDER = ((0, 0), (1, 0), (0, 1), (1, 1))   # x[::2,::2], x[1::2,::2], x[::2,1::2], x[1::2,1::2]


def space_to_depth2(x, offsets=FOCUS_ORDER):
    """cat([x[..., dy::2, dx::2] for (dy, dx) in offsets], dim=1) for NCHW x with even H
    and W, as one depthwise stride-2 convolution. Bit-exact for finite x."""
    n, c, h, w = x.shape
    if h % 2 or w % 2:
        raise NotImplementedError("space_to_depth2: odd H or W (%d, %d)" % (h, w))
    k = _onehot_kernel(c, offsets, x.dtype, x.device)             # channel i*K + k
    y = F.conv2d(x, k, None, 2, 0, 1, c)                          # [N, C*K, H/2, W/2]
    kk = len(offsets)
    if kk == 1:
        return y
    # reorder i*K + k -> k*C + i (rank-4 transpose)
    return y.reshape(n, c, kk, (h // 2) * (w // 2)).transpose(1, 2).reshape(n, kk * c, h // 2, w // 2)


def stride2_slice(x, dy=0, dx=0):
    """x[..., dy::2, dx::2] for NCHW x with even H, W, as a stride-2 one-hot depthwise
    conv. Bit-exact for finite x."""
    return space_to_depth2(x, ((dy, dx),))
