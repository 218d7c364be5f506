"""Inside F.scaled_dot_product_attention: mask pre-expansion (see attention.py), and
GQA's enable_gqa=True (transformers 5's sdpa_attention passes it when there is no mask)
done as repeat_kv — a concatenation of head slices — before the call, so the
converted graph has no BROADCAST_TO / rank-5 head repeat. Both bit-exact."""
from __future__ import annotations

import torch.nn.functional as F

from ._util import Patch
from .attention import expand_mask, repeat_kv

__all__ = ["patch_sdpa_mask", "patch_sdpa_gqa"]


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


def patch_sdpa_gqa():
    """F.scaled_dot_product_attention(..., enable_gqa=True) with fewer key/value heads
    than query heads -> repeat_kv on key and value, then the call without enable_gqa,
    until the Patch is restored. Bit-exact (enable_gqa is defined as that repeat)."""
    orig = F.scaled_dot_product_attention

    def sdpa(query, key, value, *args, enable_gqa=False, **kwargs):
        if enable_gqa and query.dim() == 4 and key.dim() == 4 and key.shape[1] != query.shape[1] \
                and query.shape[1] % key.shape[1] == 0:
            n_rep = query.shape[1] // key.shape[1]
            key, value = repeat_kv(key, n_rep), repeat_kv(value, n_rep)
            enable_gqa = False
        if enable_gqa:
            kwargs["enable_gqa"] = True
        return orig(query, key, value, *args, **kwargs)
    p = Patch("sdpa_gqa", [(F, "scaled_dot_product_attention", sdpa)])
    p.count = 1
    return p
