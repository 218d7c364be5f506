"""SELECT / SELECT_V2 removal: PReLU, ELU, torch.where, masked assignment as arithmetic.

The GPU delegate rejects SELECT and SELECT_V2 (the seed's table), and the comparisons
that feed them. Every form here is written with RELU, MUL, ADD, SUB, SIGN, EXP only.

Exactness (fp32, finite inputs):
  * prelu_arith      bit-exact: relu(x) - w*relu(-x) is x for x >= 0 and w*x for x < 0,
                     each with one rounding, the same as PyTorch's.
  * elu_arith        relu(x) + alpha*(exp(-relu(-x)) - 1): x > 0 is bit-exact; x <= 0
                     uses exp(x)-1 where PyTorch uses expm1(x): |diff| <= ~6e-8*alpha.
  * where_arith      a*m + b*(1-m) with a 0/1 float mask: bit-exact when a and b are
                     finite (an inf/NaN in the unselected branch turns into NaN).
  * gt_mask / ...    sign(relu(a - b)) is exactly 1.0 where a > b, else 0.0 (IEEE
                     subtraction of two different floats is never 0).
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from ._util import Patch, swap_modules

__all__ = ["prelu_arith", "elu_arith", "where_arith", "masked_fill_arith", "gt_mask",
           "ge_mask", "lt_mask", "le_mask", "PReLUArith", "ELUArith", "patch_select"]


def prelu_arith(x, weight):
    """PReLU without SELECT. Replaces nn.PReLU / F.prelu. Bit-exact."""
    if weight.numel() > 1 and x.dim() >= 2:
        weight = weight.reshape((1, -1) + (1,) * (x.dim() - 2))
    return torch.relu(x) - weight * torch.relu(-x)


def elu_arith(x, alpha=1.0):
    """ELU without SELECT. Replaces nn.ELU / F.elu. x > 0 bit-exact; x <= 0 within
    ~6e-8*alpha (exp(x)-1 instead of expm1)."""
    return torch.relu(x) + alpha * (torch.exp(-torch.relu(-x)) - 1.0)


def gt_mask(a, b=0.0):
    """1.0 where a > b else 0.0, as float arithmetic (no GREATER, no CAST). Exact."""
    return torch.sign(torch.relu(a - b))


def lt_mask(a, b=0.0):
    """1.0 where a < b else 0.0. Exact."""
    return torch.sign(torch.relu(b - a))


def ge_mask(a, b=0.0):
    """1.0 where a >= b else 0.0. Exact."""
    return 1.0 - lt_mask(a, b)


def le_mask(a, b=0.0):
    """1.0 where a <= b else 0.0. Exact."""
    return 1.0 - gt_mask(a, b)


def where_arith(mask, a, b):
    """torch.where(cond, a, b) as a*m + b*(1-m). `mask` is a 0/1 float tensor (from
    gt_mask & co.) or a bool tensor (converted with .to(dtype): a CAST in the graph, so
    prefer a float mask). Bit-exact for finite a, b."""
    if mask.dtype == torch.bool:
        dt = a.dtype if torch.is_tensor(a) else b.dtype
        mask = mask.to(dt)
    return a * mask + b * (1.0 - mask)


def masked_fill_arith(x, mask, value):
    """x.masked_fill(mask, value) / `x[mask] = value` as x*(1-m) + value*m. Bit-exact
    for finite x."""
    if mask.dtype == torch.bool:
        mask = mask.to(x.dtype)
    return x * (1.0 - mask) + value * mask


class PReLUArith(nn.Module):
    """Drop-in for nn.PReLU (same weight parameter). Bit-exact."""

    def __init__(self, prelu: nn.PReLU):
        super().__init__()
        self.weight = prelu.weight

    def forward(self, x):
        return prelu_arith(x, self.weight)


class ELUArith(nn.Module):
    """Drop-in for nn.ELU; keeps `inplace` semantics (the input is overwritten too)."""

    def __init__(self, elu: nn.ELU):
        super().__init__()
        self.alpha = float(elu.alpha)
        self.inplace = bool(elu.inplace)

    def forward(self, x):
        y = elu_arith(x, self.alpha)
        return x.copy_(y) if self.inplace else y


_WHERE = torch.where
_MASKED_FILL = torch.Tensor.masked_fill


def _finite_scalar(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and abs(float(v)) != float("inf") \
        and v == v


def _where(condition, input=None, other=None, **kw):
    """torch.where for the patch: float results with tensor / finite-scalar branches go
    through where_arith; everything else (1-argument form, integer results, infinite
    scalars) to the original."""
    if input is None or other is None or kw:
        return _WHERE(condition, input, other, **kw) if input is not None else _WHERE(condition)
    for v in (input, other):
        if not torch.is_tensor(v) and not _finite_scalar(v):
            return _WHERE(condition, input, other)
    dt = torch.result_type(input, other)
    if not dt.is_floating_point or not torch.is_tensor(condition):
        return _WHERE(condition, input, other)
    a = input.to(dt) if torch.is_tensor(input) else input
    b = other.to(dt) if torch.is_tensor(other) else other
    return where_arith(condition.to(dt), a, b)


def _masked_fill(self, mask, value):
    if self.dtype.is_floating_point and _finite_scalar(value) and torch.is_tensor(mask):
        return masked_fill_arith(self, mask, value)
    return _MASKED_FILL(self, mask, value)


def patch_select(model: nn.Module | None = None, functional: bool = True):
    """Swap nn.PReLU -> PReLUArith and nn.ELU -> ELUArith in `model` (count returned
    in the Patch's `.count`), and while the returned Patch is active also route
    F.prelu / F.elu / torch.prelu, torch.where (float results, finite scalar branches)
    and Tensor.masked_fill (finite scalar values) through the arithmetic forms. The
    where/masked_fill forms are exact for finite values: an inf/NaN in the branch that
    is not selected becomes NaN, so infinite fill values are left to the original."""
    n = 0
    if model is not None:
        n += swap_modules(model, lambda _, m: type(m) is nn.PReLU, PReLUArith)
        n += swap_modules(model, lambda _, m: type(m) is nn.ELU, ELUArith)
    reps = []
    if functional:
        reps = [(F, "prelu", prelu_arith), (torch, "prelu", prelu_arith),
                (F, "elu", lambda x, alpha=1.0, inplace=False: elu_arith(x, alpha)),
                (torch, "where", _where), (torch.Tensor, "masked_fill", _masked_fill)]
    p = Patch("select", reps)
    p.count = n
    return p
