"""fp16-safe reductions: LayerNorm, RMSNorm, InstanceNorm, variance, spatial means.

The GPU delegate reduces in fp16 even for an fp32 graph; a sum that passes 65504
(variance or sum of squares of large activations, a MEAN over a large map) overflows to
inf, and the normalised output becomes 0 or NaN at full residency. Every form here
normalises in a scaled domain: with s > 0,
    (x - mean x) / sqrt(var x + eps)  ==  (x/s - mean x/s) / sqrt(var(x/s) + eps/s^2)
exactly (in real arithmetic), and |x/s| <= 1 keeps every partial sum below the row
length. Scale modes:
  * "adaptive": s = per-row max|x| (clamped >= 1e-12 so a zero row stays finite);
    fp32 max |diff| vs PyTorch ~1e-6 (x/s rounds).
  * "fixed":    s = a constant power of two (x/s is exact in binary floating point);
    fp32 max |diff| ~1e-6 from the reordered sums. Overflow-safe while |x| <= s*~100.
hierarchical_mean replaces one large MEAN over H*W by a chain of AVERAGE_POOL_2D over
the prime factors of H and W (mathematically exact for every size; the seed's 2x2
chain was biased for odd sizes). fp32 |diff| ~1e-7.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from ._util import swap_modules

__all__ = ["safe_layer_norm", "safe_rms_norm", "hierarchical_mean", "hierarchical_max",
           "safe_variance", "SafeLayerNorm", "SafeRMSNorm", "SafeInstanceNorm2d",
           "patch_safe_layernorm", "patch_rmsnorm", "patch_instance_norm", "patch_fp16_norms"]

_MIN_SCALE = 1e-12


def _scale(x, dims, mode, fixed_scale):
    if mode == "fixed":
        return float(fixed_scale)
    if mode != "adaptive":
        raise ValueError("scale mode %r (adaptive or fixed)" % mode)
    s = x.abs()
    for d in sorted(dims, reverse=True):
        s = s.amax(dim=d, keepdim=True)
    return s.clamp_min(_MIN_SCALE).detach()


def safe_variance(x, dims, mode="adaptive", fixed_scale=64.0):
    """Population variance over `dims` (keepdim) computed in the scaled domain."""
    s = _scale(x, dims, mode, fixed_scale)
    xs = x / s
    mu = xs.mean(dim=dims, keepdim=True)
    return ((xs - mu) ** 2).mean(dim=dims, keepdim=True) * (s * s)


def safe_layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, mode="adaptive",
                    fixed_scale=64.0):
    """F.layer_norm(x, normalized_shape, weight, bias, eps) without fp16 overflow."""
    dims = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    s = _scale(x, dims, mode, fixed_scale)
    xs = x / s
    mu = xs.mean(dim=dims, keepdim=True)
    d = xs - mu
    var = (d * d).mean(dim=dims, keepdim=True)
    y = d * torch.rsqrt(var + eps / (s * s))
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def safe_rms_norm(x, weight=None, eps=1e-6, mode="adaptive", fixed_scale=64.0, weight_offset=0.0):
    """x * rsqrt(mean(x^2) + eps) * (weight_offset + weight) without fp16 overflow."""
    s = _scale(x, (x.dim() - 1,), mode, fixed_scale)
    xs = x / s
    y = xs * torch.rsqrt((xs * xs).mean(dim=-1, keepdim=True) + eps / (s * s))
    if weight is not None:
        y = y * (weight + weight_offset) if weight_offset else y * weight
    return y


def _factors(n):
    out, f = [], 2
    while n > 1 and f * f <= n:
        while n % f == 0:
            out.append(f)
            n //= f
        f += 1
    if n > 1:
        out.append(n)
    return out


def hierarchical_mean(x):
    """x.mean((2, 3), keepdim=True) for NCHW x as AVERAGE_POOL_2D stages over the prime
    factors of H and W."""
    for f in _factors(x.shape[2]):
        x = F.avg_pool2d(x, (f, 1))
    for f in _factors(x.shape[3]):
        x = F.avg_pool2d(x, (1, f))
    return x


def hierarchical_max(x):
    """x.amax((2, 3), keepdim=True) for NCHW x as MAX_POOL_2D stages. Bit-exact."""
    for f in _factors(x.shape[2]):
        x = F.max_pool2d(x, (f, 1))
    for f in _factors(x.shape[3]):
        x = F.max_pool2d(x, (1, f))
    return x


class SafeLayerNorm(nn.Module):
    """Drop-in for nn.LayerNorm (same parameters)."""

    def __init__(self, ln: nn.LayerNorm, mode="adaptive", fixed_scale=64.0):
        super().__init__()
        self.normalized_shape = tuple(ln.normalized_shape)
        self.weight, self.bias, self.eps = ln.weight, getattr(ln, "bias", None), ln.eps
        self.mode, self.fixed_scale = mode, fixed_scale

    def forward(self, x):
        return safe_layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps,
                               self.mode, self.fixed_scale)


class SafeRMSNorm(nn.Module):
    """Drop-in for an RMSNorm module (any class with `weight` and `eps` or
    `variance_epsilon`; Gemma-style `1 + weight` with weight_offset=1)."""

    def __init__(self, rms: nn.Module, mode="adaptive", fixed_scale=64.0, weight_offset=None):
        super().__init__()
        self.weight = getattr(rms, "weight", None)
        self.eps = float(getattr(rms, "variance_epsilon", None) or getattr(rms, "eps", None) or 1e-6)
        if weight_offset is None:
            weight_offset = 1.0 if "gemma" in type(rms).__name__.lower() else 0.0
        self.weight_offset = weight_offset
        self.mode, self.fixed_scale = mode, fixed_scale

    def forward(self, x):
        return safe_rms_norm(x, self.weight, self.eps, self.mode, self.fixed_scale,
                             self.weight_offset)


class SafeInstanceNorm2d(nn.Module):
    """Drop-in for nn.InstanceNorm2d (track_running_stats=False): scaled domain, spatial
    means by hierarchical_mean, spatial max by hierarchical_max (adaptive)."""

    def __init__(self, inorm: nn.InstanceNorm2d, mode="adaptive", fixed_scale=64.0):
        super().__init__()
        if inorm.track_running_stats:
            raise NotImplementedError("InstanceNorm2d with track_running_stats")
        self.weight, self.bias, self.eps = inorm.weight, inorm.bias, inorm.eps
        self.mode, self.fixed_scale = mode, fixed_scale

    def forward(self, x):
        squeeze = x.dim() == 3
        if squeeze:
            x = x.unsqueeze(0)
        if self.mode == "adaptive":
            s = hierarchical_max(x.abs()).clamp_min(_MIN_SCALE).detach()
        else:
            s = float(self.fixed_scale)
        xs = x / s
        d = xs - hierarchical_mean(xs)
        y = d * torch.rsqrt(hierarchical_mean(d * d) + self.eps / (s * s))
        if self.weight is not None:
            y = y * self.weight.reshape(1, -1, 1, 1) + self.bias.reshape(1, -1, 1, 1)
        return y.squeeze(0) if squeeze else y


def patch_safe_layernorm(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> int:
    """Swap every nn.LayerNorm for SafeLayerNorm (this model only; no global patch)."""
    return swap_modules(model, lambda _, m: type(m) is nn.LayerNorm,
                        lambda m: SafeLayerNorm(m, mode, fixed_scale))


def patch_rmsnorm(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> int:
    """Swap every module whose class name contains 'RMSNorm' (and nn.RMSNorm)."""
    return swap_modules(model, lambda _, m: "RMSNorm" in type(m).__name__
                        and getattr(m, "weight", None) is not None,
                        lambda m: SafeRMSNorm(m, mode, fixed_scale))


def patch_instance_norm(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> int:
    """Swap every nn.InstanceNorm2d without running stats for SafeInstanceNorm2d."""
    return swap_modules(model, lambda _, m: type(m) is nn.InstanceNorm2d
                        and not m.track_running_stats,
                        lambda m: SafeInstanceNorm2d(m, mode, fixed_scale))


def patch_fp16_norms(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> dict:
    """All three swaps; returns {"layernorm": n, "rmsnorm": n, "instancenorm": n}."""
    return {"layernorm": patch_safe_layernorm(model, mode, fixed_scale),
            "rmsnorm": patch_rmsnorm(model, mode, fixed_scale),
            "instancenorm": patch_instance_norm(model, mode, fixed_scale)}
