"""Attention-mask construction without an indexing gather.

transformers 5.x builds a 4-D attention mask from the 2-D padding mask in
transformers.masking_utils: sdpa_mask (and eager_mask, which calls it) ANDs the mask
function with padding_mask_function(padding_mask), whose inner mask is
padding_mask[batch_idx, kv_idx], called through the non-vmap expansion with
batch_idx = arange(B)[:, None, None, None] and kv_idx = (arange(T) + kv_offset)[None, None,
None, :]. litert-torch folds the two index tensors into a constant [1, 1, 1, T, 2] and
emits GATHER_ND(bool mask [B, T]) -> [B, 1, 1, T], which the GPU rejects (BERT plain:
89/121 nodes on the GPU).

patch_padding_mask rebinds masking_utils.padding_mask_function (the module global both
sdpa_mask and flex_attention_mask look up at call time) to a version whose inner mask
returns padding_mask.reshape(B, 1, 1, T) when the indices are those of the non-vmap
expansion: batch_idx of shape [B, 1, 1, 1] and kv_idx of shape [1, 1, 1, T] with
padding_mask of shape [B, T]. Then (sdpa_mask's code) batch_idx = arange(B), and since
sdpa_mask pads the mask to at least kv_length + kv_offset = T + kv_offset columns,
kv_offset = 0 and kv_idx = arange(T): padding_mask[batch_idx, kv_idx][b, 0, 0, t] =
padding_mask[b, t] = the reshape, element for element. Bit-identical (a bool copy). With
real (eager) tensors the index values are checked too; any other call (vmap / flex
attention's scalar indices, a longer mask with an offset) goes to the original indexing.
"""
from __future__ import annotations

import sys

import torch

from ._util import Patch

__all__ = ["patch_padding_mask", "padding_mask_reshape"]


def _real(t):
    return type(t) is torch.Tensor


def _is_arange(t, n):
    try:
        return bool(torch.equal(t.reshape(-1).to(torch.int64), torch.arange(n, device=t.device)))
    except Exception:  # noqa: BLE001 - cannot read it: not provably an arange
        return False


def padding_mask_reshape(padding_mask, batch_idx, kv_idx):
    """padding_mask[batch_idx, kv_idx] as a reshape when the indices are the non-vmap
    expansion's aranges (see the module docstring); None when that cannot be shown."""
    if not (torch.is_tensor(padding_mask) and torch.is_tensor(batch_idx) and torch.is_tensor(kv_idx)):
        return None
    if padding_mask.dim() != 2 or batch_idx.dim() != 4 or kv_idx.dim() != 4:
        return None
    b, t = padding_mask.shape
    if tuple(batch_idx.shape) != (b, 1, 1, 1) or tuple(kv_idx.shape) != (1, 1, 1, t):
        return None
    if _real(batch_idx) and not _is_arange(batch_idx, b):
        return None
    if _real(kv_idx) and not _is_arange(kv_idx, t):
        return None
    return padding_mask.reshape(b, 1, 1, t)


def patch_padding_mask():
    """transformers.masking_utils.padding_mask_function -> the reshape form above, until
    the Patch is restored. Bit-identical. A Patch with nothing replaced when
    transformers.masking_utils is not imported (nothing can use it then)."""
    mu = sys.modules.get("transformers.masking_utils")
    if mu is None or not callable(getattr(mu, "padding_mask_function", None)):
        p = Patch("padding_mask", [])
        p.count = 0
        return p
    orig = mu.padding_mask_function

    def padding_mask_function(padding_mask):
        def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
            y = padding_mask_reshape(padding_mask, batch_idx, kv_idx)
            if y is None:       # the original's indexing (built here, not up front)
                return orig(padding_mask)(batch_idx, head_idx, q_idx, kv_idx)
            p.count += 1
            return y
        return inner_mask
    padding_mask_function.__doc__ = orig.__doc__
    p = Patch("padding_mask", [(mu, "padding_mask_function", padding_mask_function)])
    p.count = 0
    return p
