"""fp16-safe normalisation: LayerNorm, RMSNorm, InstanceNorm, GroupNorm, and the eps guard.

The GPU computes in fp16 (normal range 2^-14 .. 65504, subnormals down to 2^-24 where the
GPU keeps them). Two things break a norm there:

  * overflow: (x - mean)^2 is inf once |x - mean| > 256, and the normalised row becomes
    0 or NaN;
  * underflow: eps below 2^-14 is subnormal in half, below 2^-25 it is 0 (BERT / ViT /
    YOLOS use 1e-12). A row whose variance is 0 (an all-zero CLS token of a random-init
    model, a constant row) then gives rsqrt(0) = inf and 0 * inf = NaN.

Safe forms (module swaps; "adaptive" mode, the default). With d = x - mean(x) per row,
a = max|d|, a constant power of two S ~ sqrt(eps) (at least 2^-14, fp16's smallest
normal) and s = max(a, S):
    LN(x) = d / sqrt(var d + eps) = ds * rsqrt(mean(ds^2) + eps/s^2),   ds = d / s
exactly in real arithmetic (RMSNorm: the same without the centring). In fp16:
    - |ds| <= 1: no square or partial sum can overflow (sum <= row length);
    - a >= S: max|ds| = 1 exactly, so mean(ds^2) >= 1/n: never 0, no 0 * inf;
    - a <  S: s = S and eps/s^2 = eps/S^2 = K, a constant in [0.5, 2] (>= 2^-14 down to
      eps = 2^-42): rsqrt(.) <= 128, an all-zero row gives 0 (PyTorch: 0 too);
    - eps/s^2 is built as (sqrt(eps)/s)^2, or ((S/s) * K) * (S/s) when sqrt(eps) < 2^-14,
      so it never goes through a subnormal constant; where it underflows it is below
      2^-24 next to mean(ds^2) >= 1/n (relative < n * 2^-24).
    Every constant in the graph is >= 2^-14 (for eps >= 2^-42). fp32 max |diff| vs
    PyTorch ~1e-6 (ds = d/s rounds). Cost per norm: ABS, REDUCE_MAX, MAXIMUM, DIV and the
    eps-term ops on top of the plain decomposition.
  * "fixed" mode: s = a constant power of two (x * 2^-k is exact), the plain form on
    x * 2^-k with eps * 2^-2k. To keep that constant >= 2^-14 the scale is lowered to the
    largest power of two <= fixed_scale with eps/s^2 >= 2^-14 (for eps = 1e-5 that is
    1/4, i.e. no overflow protection at all: use adaptive). Overflow-safe while
    |x - mean| <= 256 * s.

InstanceNorm / GroupNorm take their means over one axis at a time (W, then H, then the
channels of a group: MEAN ops of <= max(H, W, C/G) elements each, exact in real arithmetic)
and max|d| by one REDUCE_MAX. The earlier form took max|x| by hierarchical_max, a chain
of MAX_POOL_2D over the prime factors of H and W (10 at 32x32 and 48x48, 12 at 64x64).
litert-torch lowers each max_pool2d to a stablehlo.reduce_window, and its StableHLO ->
TFLite legalisation is all or nothing per module: with 4 chained max_pool2d every op
becomes a TFLite builtin (tfl.max_pool_2d), with 5 (96x8 -> 3 in (2,1) steps, 243 -> 1 in
(3,1) steps, 32 -> 1) none is — the model is written as STABLEHLO_* ops (TRANSPOSE,
REDUCE_WINDOW, COMPOSITE for the avg pools, even the conv and the adds): 0 nodes on the
GPU, and LiteRT's CPU cannot load it. Not only at power-of-two sizes (48x48 too).
hierarchical_mean / hierarchical_max stay for callers, with that warning.

The eps guard (patch_fp16_eps, the "fp16_eps" remedy) is for norms whose only fp16
problem is a tiny eps:
  * mode "guard" (default): the norm as its plain decomposition with
        r = min(rsqrt(var + eps), 65504)
    - exact (bit for bit the same r) whenever var + eps >= 65504^-2 = 2.33e-10, i.e. for
    every row of std >= 1.5e-5; below that only rows that fp16 cannot represent change.
    In fp16 a zero row gives rsqrt(0) = inf -> 65504, and 0 * 65504 = 0. One MINIMUM node
    per norm; eps itself is left alone.
  * mode "raise": eps -> max(eps, eps_min) (default 2^-14) in place, no new node. The
    relative change of a row's output is 1 - sqrt((var+eps)/(var+eps_new)) <=
    (eps_new - eps) / (2 var): 3e-5 for var = 1, but measured (sample inputs of the zoo
    configs, random init): YOLOS-Tiny min row var 1.1e-5, bound 2.7, largest change 61%,
    logits corr 0.873 vs PyTorch; timm ViT-Ti (eps 1e-6) var 3.5e-4, change 7.7%, corr
    0.99856; BERT L-2 var 8.5e-4, change 3.4%, max|d| 8e-4; Whisper-tiny encoder (1e-5)
    var 0.21, 1.2e-4. The guard changed no row of these four (max|d| <= 1.2e-6).

Matchers take subclasses (timm LayerNorm / LayerNorm2d / RmsNorm, Hugging Face *RMSNorm
with (weight, variance_epsilon) or (weight, eps), Gemma's 1 + weight, nn.RMSNorm with
eps=None): a module is replaced only when a probe (random inputs at three scales,
randomised parameters) shows the replacement reproduces its forward.
"""
from __future__ import annotations

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ._util import log, probe_equal, swap_modules

__all__ = ["safe_layer_norm", "safe_rms_norm", "safe_group_norm", "hierarchical_mean",
           "hierarchical_max", "staged_mean", "safe_variance", "SafeLayerNorm", "SafeRMSNorm",
           "SafeInstanceNorm2d", "SafeGroupNorm", "GuardedNorm", "norm_spec",
           "patch_safe_layernorm", "patch_rmsnorm", "patch_instance_norm", "patch_group_norm",
           "patch_fp16_norms", "patch_fp16_eps", "FP16_TINY", "FP16_MAX", "EPS_GUARD_MAX"]

FP16_TINY = 2.0 ** -14          # fp16's smallest normal
FP16_MAX = 65504.0
EPS_GUARD_MAX = FP16_MAX        # the eps guard's cap on rsqrt(var + eps)
_REDUCE_MAX_ELEMS = 1023        # per MEAN stage in the instance / group forms


# ---- the scaled core ---------------------------------------------------------------

def _s_min(eps):
    """S: a power of two near sqrt(eps), >= 2^-14, <= 2^7."""
    if not eps or eps <= 0:
        return FP16_TINY
    return 2.0 ** max(-14, min(7, round(math.log2(eps) / 2)))


def _eps_term(s, eps, S):
    """eps / s^2 for s >= S, without a subnormal constant."""
    if not eps or eps <= 0:
        return None
    r = math.sqrt(eps)
    if r >= FP16_TINY:
        u = r / s
        return u * u
    K = eps / (S * S)
    t = S / s
    return (t * K) * t


def _mean(x, dims):
    return x.mean(dim=dims, keepdim=True)


def staged_mean(x, dims):
    """x.mean(dims, keepdim=True) as one MEAN per axis (last first). Exact in real
    arithmetic (equal-size groups); each stage sums at most one axis."""
    for d in sorted(dims, reverse=True):
        x = x.mean(dim=d, keepdim=True)
    return x


def _scaled_normalize(x, dims, eps, center=True, mean=_mean):
    """(x - mean) * rsqrt(var + eps) (center) or x * rsqrt(mean(x^2) + eps) over `dims`,
    in the max-scaled domain (see the module docstring)."""
    d = x - mean(x, dims) if center else x
    S = _s_min(eps)
    s = d.abs().amax(dim=dims, keepdim=True).clamp_min(S).detach()
    ds = d / s
    v = mean(ds * ds, dims)
    e = _eps_term(s, eps, S)
    return ds * torch.rsqrt(v + e if e is not None else v)


def _fixed_scale(eps, fixed_scale):
    """The largest power of two <= fixed_scale with eps/s^2 >= 2^-14 (1.0 when eps=0)."""
    k = math.floor(math.log2(float(fixed_scale)))
    if eps and eps > 0:
        k = min(k, math.floor(math.log2(math.sqrt(eps / FP16_TINY))))
    return 2.0 ** k


def _fixed_normalize(x, dims, eps, center=True, mean=_mean, fixed_scale=64.0):
    s = _fixed_scale(eps, fixed_scale)
    xs = x * (1.0 / s)                               # exact: a power of two
    d = xs - mean(xs, dims) if center else xs
    v = mean(d * d, dims)
    e = (eps or 0.0) / (s * s)
    return d * torch.rsqrt(v + e)


def _normalize(x, dims, eps, center, mode, fixed_scale, mean=_mean):
    if mode == "adaptive":
        return _scaled_normalize(x, dims, eps, center, mean)
    if mode == "fixed":
        return _fixed_normalize(x, dims, eps, center, mean, fixed_scale)
    raise ValueError("scale mode %r (adaptive or fixed)" % (mode,))


def safe_variance(x, dims, mode="adaptive", fixed_scale=64.0):
    """Population variance over `dims` (keepdim) computed in the scaled domain:
    s^2 * mean((d/s)^2) (s = max|d|, d = x - mean x). Finite in fp16 while the variance
    itself is (the s^2 rescale is the only large step)."""
    dims = tuple(dims)
    d = x - _mean(x, dims)
    if mode == "fixed":
        s = _fixed_scale(0.0, fixed_scale)
    else:
        s = d.abs().amax(dim=dims, keepdim=True).clamp_min(FP16_TINY).detach()
    ds = d / s
    return _mean(ds * ds, dims) * s * s


def safe_layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, mode="adaptive",
                    fixed_scale=64.0):
    """F.layer_norm(x, normalized_shape, weight, bias, eps) without fp16 overflow or
    eps underflow."""
    dims = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    y = _normalize(x, dims, eps, True, mode, fixed_scale)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def safe_rms_norm(x, weight=None, eps=1e-6, mode="adaptive", fixed_scale=64.0, weight_offset=0.0,
                  dims=(-1,)):
    """x * rsqrt(mean(x^2) + eps) * (weight_offset + weight) without fp16 overflow."""
    dims = tuple(d % x.dim() for d in dims)
    y = _normalize(x, dims, eps, False, mode, fixed_scale)
    if weight is not None:
        y = y * (weight + weight_offset) if weight_offset else y * weight
    return y


def safe_group_norm(x, num_groups, weight=None, bias=None, eps=1e-5, mode="adaptive",
                    fixed_scale=64.0):
    """F.group_norm for N x C x H x W (or N x C x L) x: statistics over [N*G, C/G, H, W]
    (rank 4), means one axis at a time, max|d| by one REDUCE_MAX."""
    shape = x.shape
    n, c = shape[0], shape[1]
    sp = list(shape[2:]) or [1]
    if len(sp) == 1:
        sp = [1] + sp
    elif len(sp) > 2:
        sp = [sp[0], math.prod(sp[1:])]
    g = num_groups
    if c % g:
        raise ValueError("%d channels in %d groups" % (c, g))
    if g == c:
        xg = x.reshape(n, c, sp[0], sp[1])
        dims = (2, 3)
    else:
        xg = x.reshape(n * g, c // g, sp[0], sp[1])
        dims = (1, 2, 3)
    y = _normalize(xg, dims, eps, True, mode, fixed_scale, mean=staged_mean).reshape(shape)
    view = [1, c] + [1] * (len(shape) - 2)
    if weight is not None:
        y = y * weight.reshape(view)
    if bias is not None:
        y = y + bias.reshape(view)
    return y


# ---- kept for callers: pool chains --------------------------------------------------

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
    factors of H and W. Mathematically exact. Prefer staged_mean: long pool chains can
    make litert-torch emit the model as StableHLO (see the module docstring)."""
    for f in _factors(x.shape[2]):
        x = F.avg_pool2d(x, (f, 1))
    for f in _factors(x.shape[3]):
        x = F.avg_pool2d(x, (1, f))
    return x


def hierarchical_max(x):
    """x.amax((2, 3), keepdim=True) for NCHW x as MAX_POOL_2D stages. Bit-exact, but a
    chain of >= 5 stages (any H x W with >= 5 prime factors: 32x32, 48x48, 64x64) makes
    litert-torch emit the whole model as StableHLO ops (0 nodes on the GPU, LiteRT CPU
    cannot load it): use x.amax((2, 3), keepdim=True), one REDUCE_MAX, which the GPU runs."""
    for f in _factors(x.shape[2]):
        x = F.max_pool2d(x, (f, 1))
    for f in _factors(x.shape[3]):
        x = F.max_pool2d(x, (1, f))
    return x


# ---- what a norm module computes (probe-verified) -----------------------------------

def _eps_of(m):
    for a in ("variance_epsilon", "eps", "epsilon"):
        v = getattr(m, a, None)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return a, float(v)
    if isinstance(m, getattr(nn, "RMSNorm", ())) and getattr(m, "eps", 0) is None:
        return "eps", None           # torch.finfo(x.dtype).eps at run time
    return None, None


def _ref_forward(spec):
    """A plain PyTorch function computing what `spec` says the module computes."""
    kind, eps = spec["kind"], spec["eps"]

    def fwd(m, x):
        e = spec["eps_now"](m)
        if e is None:
            e = torch.finfo(x.dtype).eps
        w = getattr(m, "weight", None)
        b = getattr(m, "bias", None) if spec.get("bias") else None
        if kind == "layer":
            if spec["layout"] == "first":
                y = x.permute(0, *range(2, x.dim()), 1)
                y = F.layer_norm(y, spec["shape"], w, b, e)
                return y.permute(0, x.dim() - 1, *range(1, x.dim() - 1))
            return F.layer_norm(x, spec["shape"], w, b, e)
        if kind == "rms":
            xf = x.float()
            y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + e)
            if w is not None:
                y = y * (w.float() + spec["offset"]) if spec["offset"] else y * w
            return y.to(x.dtype)
        if kind == "group":
            return F.group_norm(x, spec["groups"], w, b, e)
        raise ValueError(kind)
    del eps
    return fwd


class _Ref(nn.Module):
    def __init__(self, m, spec):
        super().__init__()
        self.m, self._f = m, _ref_forward(spec)

    def forward(self, x):
        return self._f(self.m, x)


def _probe_shapes(spec):
    if spec["kind"] == "group" or spec.get("layout") == "first":
        c = spec["channels"]
        return [(2, c, 3, 5), (1, c, 4, 4)]
    n = spec["shape"]
    return [(2, 3) + tuple(n), (1, 5) + tuple(n)]


def _probe_calls(spec, seed=0):
    g = torch.Generator().manual_seed(seed)
    calls = []
    for shp in _probe_shapes(spec):
        for scale, off in ((1.0, 0.0), (1e-3, 0.0), (300.0, 5.0)):
            calls.append((torch.randn(*shp, generator=g) * scale + off,))
    calls.append((torch.zeros(*_probe_shapes(spec)[0]),))
    return calls


def _randomized(*mods, seed=1):
    """Deep copies of `mods` (parameters shared between them stay shared) with every
    parameter drawn at random, so a probe tests the structure, not ones/zeros init."""
    cp = copy.deepcopy(list(mods))
    g = torch.Generator().manual_seed(seed)
    seen = set()
    with torch.no_grad():
        for m in cp:
            for p in m.parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    p.copy_(torch.rand(p.shape, generator=g) + 0.5)
    return cp


def _probe(orig, new, spec, tol=1e-5):
    a, b = _randomized(orig, new)
    return probe_equal(a, b, _probe_calls(spec), tol=tol) and \
        probe_equal(orig, new, _probe_calls(spec, seed=3), tol=tol)


def _candidates(m):
    """Specs a module might follow (unverified)."""
    attr, eps = _eps_of(m)
    if attr is None:
        return []
    w = getattr(m, "weight", None)
    w_ok = w is None or isinstance(w, torch.Tensor)
    out = []

    def eps_now(mod, attr=attr):
        return getattr(mod, attr)
    base = {"eps": eps, "eps_attr": attr, "eps_now": eps_now}
    if isinstance(m, nn.LayerNorm):
        shape = tuple(m.normalized_shape)
        b = getattr(m, "bias", None) is not None
        out.append(dict(base, kind="layer", layout="last", shape=shape, bias=b))
        if len(shape) == 1:
            out.append(dict(base, kind="layer", layout="first", shape=shape, bias=b,
                            channels=shape[0]))
        return out
    if isinstance(m, nn.GroupNorm):
        return [dict(base, kind="group", groups=m.num_groups, channels=m.num_channels,
                     bias=m.bias is not None)]
    if isinstance(m, (nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)):
        return []
    name = type(m).__name__.lower()
    rms_like = isinstance(m, getattr(nn, "RMSNorm", ())) or "rmsnorm" in name \
        or (attr == "variance_epsilon" and isinstance(w, torch.Tensor) and w.dim() == 1)
    if rms_like and w_ok:
        n = w.shape[0] if isinstance(w, torch.Tensor) else getattr(m, "normalized_shape", (None,))[-1]
        if n:
            for off in (0.0, 1.0):
                out.append(dict(base, kind="rms", shape=(int(n),), offset=off, bias=False))
    return out


def norm_spec(m):
    """What `m` computes, when a probe confirms one of the known forms: a dict with kind
    ("layer", "rms", "group"), eps (None: finfo eps at run time), eps_attr, layout
    ("last"/"first" for LayerNorm), shape/channels/groups, offset (RMSNorm 1 + weight),
    bias. None otherwise."""
    for spec in _candidates(m):
        if _probe(m, _Ref(m, spec), spec):
            return spec
    return None


# ---- safe modules ---------------------------------------------------------------------

class SafeLayerNorm(nn.Module):
    """Drop-in for nn.LayerNorm and probe-verified subclasses (same parameters); layout
    "first" normalises dim 1 (timm LayerNorm2d on NCHW)."""

    def __init__(self, ln: nn.Module, mode="adaptive", fixed_scale=64.0, layout="last"):
        super().__init__()
        self.normalized_shape = tuple(ln.normalized_shape)
        self.weight, self.bias = getattr(ln, "weight", None), getattr(ln, "bias", None)
        self.eps = float(ln.eps)
        self.mode, self.fixed_scale, self.layout = mode, fixed_scale, layout

    def forward(self, x):
        if self.layout == "first":
            y = _normalize(x, (1,), self.eps, True, self.mode, self.fixed_scale)
            view = [1, -1] + [1] * (x.dim() - 2)
            if self.weight is not None:
                y = y * self.weight.reshape(view)
            if self.bias is not None:
                y = y + self.bias.reshape(view)
            return y
        return safe_layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps,
                               self.mode, self.fixed_scale)


class SafeRMSNorm(nn.Module):
    """Drop-in for an RMSNorm module (any class with `weight` and `eps` or
    `variance_epsilon`; Gemma-style `1 + weight` with weight_offset=1; None: from the
    class name, as before — patch_rmsnorm decides it by probe)."""

    def __init__(self, rms: nn.Module, mode="adaptive", fixed_scale=64.0, weight_offset=None):
        super().__init__()
        self.weight = getattr(rms, "weight", None)
        _, eps = _eps_of(rms)
        self.eps = float(eps) if eps is not None else float(torch.finfo(torch.float32).eps)
        if weight_offset is None:
            weight_offset = 1.0 if "gemma" in type(rms).__name__.lower() else 0.0
        self.weight_offset = weight_offset
        self.mode, self.fixed_scale = mode, fixed_scale

    def forward(self, x):
        dt = x.dtype
        y = safe_rms_norm(x.float(), None, self.eps, self.mode, self.fixed_scale)
        if self.weight is not None:
            if self.weight_offset:
                y = y * (self.weight.float() + self.weight_offset)
            else:
                y = y.to(dt) * self.weight
        return y.to(dt)


class SafeGroupNorm(nn.Module):
    """Drop-in for nn.GroupNorm: safe_group_norm (means per axis, one REDUCE_MAX)."""

    def __init__(self, gn: nn.GroupNorm, mode="adaptive", fixed_scale=64.0):
        super().__init__()
        self.num_groups, self.num_channels = gn.num_groups, gn.num_channels
        self.weight, self.bias, self.eps = gn.weight, gn.bias, float(gn.eps)
        self.mode, self.fixed_scale = mode, fixed_scale

    def forward(self, x):
        return safe_group_norm(x, self.num_groups, self.weight, self.bias, self.eps,
                               self.mode, self.fixed_scale)


class SafeInstanceNorm2d(nn.Module):
    """Drop-in for nn.InstanceNorm2d (track_running_stats=False): the scaled domain,
    spatial means by staged_mean (MEAN over W, then H), max|d| by one REDUCE_MAX. Stays
    TFLite builtins at every size (the pool chains of the earlier form did not)."""

    def __init__(self, inorm: nn.InstanceNorm2d, mode="adaptive", fixed_scale=64.0):
        super().__init__()
        if inorm.track_running_stats:
            raise NotImplementedError("InstanceNorm2d with track_running_stats")
        self.weight, self.bias, self.eps = inorm.weight, inorm.bias, float(inorm.eps)
        self.mode, self.fixed_scale = mode, fixed_scale

    def forward(self, x):
        squeeze = x.dim() == 3
        if squeeze:
            x = x.unsqueeze(0)
        y = _normalize(x, (2, 3), self.eps, True, self.mode, self.fixed_scale, mean=staged_mean)
        if self.weight is not None:
            y = y * self.weight.reshape(1, -1, 1, 1)
        if self.bias is not None:
            y = y + self.bias.reshape(1, -1, 1, 1)
        return y.squeeze(0) if squeeze else y


def _safe_module(m, spec, mode, fixed_scale):
    if spec["kind"] == "layer":
        return SafeLayerNorm(m, mode, fixed_scale, layout=spec["layout"])
    if spec["kind"] == "rms":
        return SafeRMSNorm(m, mode, fixed_scale, weight_offset=spec["offset"])
    if spec["kind"] == "group":
        return SafeGroupNorm(m, mode, fixed_scale)
    return None


def _swap_verified(model, kinds, make, tol=1e-5):
    """Swap every module whose probe-verified spec kind is in `kinds` for make(m, spec),
    kept only when a probe shows the replacement reproduces the module."""
    def build(m):
        spec = norm_spec(m)
        if spec is None or spec["kind"] not in kinds:
            return None
        new = make(m, spec)
        if new is None:
            return None
        if not _probe(m, new, spec, tol=tol):
            log.debug("norms: %s: replacement does not reproduce it, left alone", type(m).__name__)
            return None
        return new
    return swap_modules(model, lambda _, m: bool(_candidates(m)), build)


def patch_safe_layernorm(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> int:
    """Swap every LayerNorm (nn.LayerNorm and subclasses: timm LayerNorm, LayerNorm2d,
    ...) whose forward a probe confirms for SafeLayerNorm (this model only)."""
    return _swap_verified(model, ("layer",), lambda m, s: _safe_module(m, s, mode, fixed_scale))


def patch_rmsnorm(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> int:
    """Swap every RMSNorm (nn.RMSNorm, timm RmsNorm, Hugging Face *RMSNorm: weight +
    variance_epsilon or eps; 1 + weight found by the probe) for SafeRMSNorm."""
    return _swap_verified(model, ("rms",), lambda m, s: _safe_module(m, s, mode, fixed_scale))


def patch_group_norm(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> int:
    """Swap every nn.GroupNorm (and probe-verified subclasses) for SafeGroupNorm."""
    return _swap_verified(model, ("group",), lambda m, s: _safe_module(m, s, mode, fixed_scale))


def patch_instance_norm(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> int:
    """Swap every nn.InstanceNorm2d (and subclasses) without running stats for
    SafeInstanceNorm2d, when a probe confirms it."""
    def build(m):
        new = SafeInstanceNorm2d(m, mode, fixed_scale)
        c = m.num_features
        g = torch.Generator().manual_seed(0)
        calls = [(torch.randn(2, c, 5, 6, generator=g) * s,) for s in (1.0, 1e-3, 300.0)]
        a, b = _randomized(m, new)
        return new if probe_equal(a, b, calls, tol=1e-5) else None
    return swap_modules(model, lambda _, m: isinstance(m, nn.InstanceNorm2d)
                        and not m.track_running_stats, build)


def patch_fp16_norms(model: nn.Module, mode="adaptive", fixed_scale=64.0) -> dict:
    """All swaps; returns {"layernorm": n, "rmsnorm": n, "instancenorm": n}, plus
    "groupnorm": n when a GroupNorm was swapped (the earlier three-key result otherwise)."""
    out = {"layernorm": patch_safe_layernorm(model, mode, fixed_scale),
           "rmsnorm": patch_rmsnorm(model, mode, fixed_scale)}
    g = patch_group_norm(model, mode, fixed_scale)
    out["instancenorm"] = patch_instance_norm(model, mode, fixed_scale)
    if g:
        out["groupnorm"] = g
    return out


# ---- the eps guard ---------------------------------------------------------------------

class GuardedNorm(nn.Module):
    """A LayerNorm / RMSNorm / GroupNorm as its plain decomposition with
    r = min(rsqrt(var + eps), 65504): exact wherever var + eps >= 2.33e-10; an all-zero
    row gives 0 in fp16 instead of 0 * inf = NaN. Same parameters as the original."""

    def __init__(self, m, spec):
        super().__init__()
        self.spec = {k: v for k, v in spec.items() if k != "eps_now"}
        self.weight = getattr(m, "weight", None)
        self.bias = getattr(m, "bias", None) if spec.get("bias") else None
        self.eps = spec["eps"]

    def _r(self, v, x):
        e = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
        return torch.rsqrt(v + e).clamp_max(EPS_GUARD_MAX)

    def forward(self, x):
        sp = self.spec
        if sp["kind"] == "layer":
            dims = (1,) if sp["layout"] == "first" else tuple(range(x.dim() - len(sp["shape"]), x.dim()))
            d = x - x.mean(dim=dims, keepdim=True)
            y = d * self._r((d * d).mean(dim=dims, keepdim=True), x)
            view = ([1, -1] + [1] * (x.dim() - 2)) if sp["layout"] == "first" else None
            if self.weight is not None:
                y = y * (self.weight.reshape(view) if view else self.weight)
            if self.bias is not None:
                y = y + (self.bias.reshape(view) if view else self.bias)
            return y
        if sp["kind"] == "rms":
            xf = x.float()
            y = xf * self._r((xf * xf).mean(dim=-1, keepdim=True), xf)
            if self.weight is not None:
                if sp["offset"]:
                    return (y * (self.weight.float() + sp["offset"])).to(x.dtype)
                return self.weight * y.to(x.dtype)
            return y.to(x.dtype)
        if sp["kind"] == "group":
            n, c = x.shape[0], x.shape[1]
            g = sp["groups"]
            xg = x.reshape(n, g, -1)
            d = xg - xg.mean(dim=-1, keepdim=True)
            y = (d * self._r((d * d).mean(dim=-1, keepdim=True), x)).reshape(x.shape)
            view = [1, c] + [1] * (x.dim() - 2)
            if self.weight is not None:
                y = y * self.weight.reshape(view)
            if self.bias is not None:
                y = y + self.bias.reshape(view)
            return y
        raise ValueError(sp["kind"])


def _needs_eps(spec, eps_min):
    e = spec["eps"]
    return e is None or e < eps_min


def patch_fp16_eps(model: nn.Module, mode="guard", eps_min=FP16_TINY, report=None) -> int:
    """Norms (LayerNorm and subclasses, RMSNorm of torch / timm / Hugging Face, GroupNorm;
    probe-verified) whose eps is below `eps_min` (default 2^-14, fp16's smallest normal;
    nn.RMSNorm's eps=None means finfo(float32).eps = 1.2e-7):
      * mode "guard": swapped for GuardedNorm (exact where var + eps >= 2.33e-10; +1
        MINIMUM node each);
      * mode "raise": eps -> eps_min in place, after a probe shows the module reads that
        attribute (relative change per row <= (eps_min - eps) / (2 var); no new node).
    Returns the number of modules changed; `report` (a list) gets one
    (name, class, kind, old eps, what) row per module changed."""
    if mode not in ("guard", "raise"):
        raise ValueError("mode %r (guard or raise)" % (mode,))
    rows = report if report is not None else []
    names = {id(m): n for n, m in model.named_modules()}

    if mode == "guard":
        def build(m):
            spec = norm_spec(m)
            if spec is None or not _needs_eps(spec, eps_min):
                return None
            new = GuardedNorm(m, spec)
            if not _probe(m, new, spec):
                return None
            rows.append((names.get(id(m)), type(m).__name__, spec["kind"], spec["eps"], "guard"))
            return new
        return swap_modules(model, lambda _, m: bool(_candidates(m)), build)

    n = 0
    for m in list(model.modules()):
        if not _candidates(m):
            continue
        spec = norm_spec(m)
        if spec is None or not _needs_eps(spec, eps_min):
            continue
        trial = copy.deepcopy(m)
        setattr(trial, spec["eps_attr"], float(eps_min))
        if not _probe(trial, _Ref(trial, spec), spec):
            log.debug("norms: %s does not read %s, left alone", type(m).__name__, spec["eps_attr"])
            continue
        setattr(m, spec["eps_attr"], float(eps_min))
        rows.append((names.get(id(m)), type(m).__name__, spec["kind"], spec["eps"], "eps -> %g" % eps_min))
        n += 1
    return n
