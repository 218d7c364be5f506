"""Mask pre-expansion inside F.scaled_dot_product_attention (see attention.py)."""
from __future__ import annotations

import torch.nn.functional as F

from ._util import Patch
from .attention import expand_mask

__all__ = ["patch_sdpa_mask"]


def patch_sdpa_mask():
    """F.scaled_dot_product_attention with a [B, 1, S, T] attn_mask gets the mask
    expanded to [B, H, S, T] first (concatenation), until the Patch is restored.
    Bit-exact."""
    orig = F.scaled_dot_product_attention

    def sdpa(query, key, value, attn_mask=None, *args, **kwargs):
        if attn_mask is not None and attn_mask.dim() == 4 and query.dim() == 4:
            attn_mask = expand_mask(attn_mask, query.shape[1])
        return orig(query, key, value, attn_mask, *args, **kwargs)
    return Patch("sdpa_mask", [(F, "scaled_dot_product_attention", sdpa)])
