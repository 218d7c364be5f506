"""Runtime BROADCAST_TO removal: Tensor.expand as concatenation.

`.expand()` on a runtime tensor lowers to BROADCAST_TO, which the GPU delegate rejects
even at rank 4 (LiteRT#9191). expand_concat repeats each size-1 axis by concatenation
(CONCATENATION of the same tensor), which is bit-exact. patch_expand routes
Tensor.expand through it while a conversion runs. Prefer repeat_kv for GQA (it also
removes the rank-5 view); expand_concat keeps whatever rank the caller used.
"""
from __future__ import annotations

import torch

from ._util import Patch

__all__ = ["expand_concat", "patch_expand"]

_EXPAND = torch.Tensor.expand


def expand_concat(x, *sizes):
    """x.expand(*sizes) by concatenation along each broadcast axis. Bit-exact."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, torch.Size)):
        sizes = tuple(sizes[0])
    sizes = [int(s) for s in sizes]
    lead = len(sizes) - x.dim()
    if lead < 0:
        raise RuntimeError("expand: %d sizes for a rank-%d tensor" % (len(sizes), x.dim()))
    if lead:
        x = x.reshape((1,) * lead + tuple(x.shape))
    for d, s in enumerate(sizes):
        if s == -1 or s == x.shape[d]:
            continue
        if x.shape[d] != 1:
            raise RuntimeError("expand: size %d of dim %d is not 1" % (x.shape[d], d))
        x = torch.cat([x] * s, dim=d)
    return x


def patch_expand():
    """Tensor.expand -> expand_concat until the returned Patch is restored."""
    def expand(self, *sizes):
        return expand_concat(self, *sizes)
    return Patch("expand", [(torch.Tensor, "expand", expand)])
