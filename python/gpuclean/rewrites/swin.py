"""Swin in rank <= 4: shifted windows, window partition / reverse, relative position
bias, shift mask and patch merging, for torchvision's swin_t/s/b (v1) and swin_v2_*,
timm's SwinTransformer, and Swin-v1 WindowAttention / PatchMerging copies.

What the originals lower to, and what replaces it (every rewrite is pure data
movement or the original's own arithmetic on the same values in the same order, so
bit-exact unless noted; test_rewrites_arch.py measures it):

* window partition / reverse: `view(B, H/wh, wh, W/ww, ww, C).permute(0, 1, 3, 2, 4, 5)`
  is a rank-6 RESHAPE + TRANSPOSE. The same permutation with (B, H/wh) and (ww, C)
  merged is one rank-4 transpose: [B*H/wh, wh, W/ww, ww*C] -> swap axes 1, 2.
* shifted-window `torch.roll` (lowered to gathers / strided slices) -> two slices and a
  CONCATENATION per rolled axis.
* packed qkv `reshape(B_, N, 3, nH, D).permute(2, 0, 3, 1, 4)` (rank 5) and `qkv[0]`
  (rank-5 SLICE) -> three slices of the qkv output along the channel axis, each
  reshaped to [B_, N, nH, D] and transposed to [B_, nH, N, D].
* relative position bias `table[index]` (GATHER, plus rank-5 views) -> the bias the
  original computes (its own function, at swap time), kept as a constant. Like the
  shift mask it is stored expanded to the full [B*nW, nH, N, N] shape of the scores,
  so the ADD after BATCH_MATMUL broadcasts nothing (the masked-attention pattern that
  older GPU runtimes miscompute). The constants are taken from the weights when the
  module is swapped: swap after loading weights (convert_for_gpu swaps a fresh copy).
* shift mask: torchvision builds it at run time (zeros, slice assignments, NOT_EQUAL,
  SELECT); timm keeps a buffer. Both become the same values computed once in numpy
  (integers 0 / -100, exact), added as a full-shape constant.
* swin v2's cosine attention: F.normalize lowers to L2_NORMALIZATION (refused) ->
  x * rsqrt(sum(x*x) + eps^2) (l2_normalize; a few ulp, the one rewrite here that is
  not bit-exact).
* PatchMerging `x[..., 0::2, 0::2, :]`, ... + cat (torchvision; STRIDED_SLICE / GATHER_ND)
  and timm's `reshape(B, H/2, 2, W/2, 2, C).permute(0, 1, 3, 4, 2, 5)` (rank 6) -> two
  rank-4 transposes giving the same channel order (dx, dy, c). torchvision's
  PatchMergingV2 applies reduction before norm; the class decides the order, and
  PatchMerging-like classes of other origin are only swapped when a probe run shows
  the rewrite reproduces them.

Every swap first checks the module's class (or, for classes of unknown origin, the
attributes it needs) and then runs the module and its rewrite on random inputs
(probe_equal); a module whose forward is not reproduced is left as it is.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ._util import class_is, constant, probe_equal, swap_modules

log = logging.getLogger("gpuclean.rewrites")

__all__ = ["roll4", "window_partition4", "window_reverse4", "merge2x2", "split_qkv",
           "shift_mask_np", "l2_normalize", "WindowAttentionGPU", "patch_window_attention",
           "ShiftedWindowAttentionGPU", "TimmSwinBlockGPU", "PatchMergingGPU",
           "patch_patch_merging", "patch_swin"]

_TV = "torchvision.models.swin_transformer"
_TIMM = "timm.models.swin_transformer"


# ---- rank-4 building blocks ---------------------------------------------------------------

def roll4(x, shift, dim):
    """torch.roll(x, shift, dim) as two slices + concatenation. Bit-exact."""
    n = x.shape[dim]
    s = int(shift) % n
    if s == 0:
        return x
    return torch.cat([x.narrow(dim, n - s, s), x.narrow(dim, 0, n - s)], dim)


def window_partition4(x, wh, ww):
    """[B, H, W, C] -> [B*(H/wh)*(W/ww), wh*ww, C], windows in row-major order (Swin's
    window_partition followed by view(-1, wh*ww, C)), rank-4 only. Bit-exact."""
    b, h, w, c = x.shape
    y = x.reshape(b * (h // wh), wh, w // ww, ww * c).transpose(1, 2)
    return y.reshape(b * (h // wh) * (w // ww), wh * ww, c)


def window_reverse4(x, wh, ww, b, h, w):
    """Inverse of window_partition4: [B*nW, wh*ww, C] (or [B*nW, wh, ww, C]) ->
    [B, H, W, C], rank-4 only. Bit-exact."""
    c = x.shape[-1]
    y = x.reshape(b * (h // wh), w // ww, wh, ww * c).transpose(1, 2)
    return y.reshape(b, h, w, c)


def merge2x2(x):
    """[..., H, W, C] (H, W even) -> [..., H/2, W/2, 4C] with channel dx*2C + dy*C + c
    = x[..., 2i+dy, 2j+dx, c]: torchvision's cat([x0, x1, x2, x3], -1) and timm's
    reshape/permute(0, 1, 3, 4, 2, 5) order, in two rank-4 transposes. Bit-exact."""
    lead = tuple(x.shape[:-3])
    h, w, c = x.shape[-3:]
    b = 1
    for v in lead:
        b *= int(v)
    y = x.reshape(b * (h // 2), 2, w // 2, 2 * c).transpose(1, 2)       # [bh, w2, dy, (dx c)]
    y = y.reshape(b * (h // 2) * (w // 2), 2, 2, c).transpose(1, 2)     # [bhw, dx, dy, c]
    return y.reshape(lead + (h // 2, w // 2, 4 * c))


def l2_normalize(x, eps=1e-12):
    """F.normalize(x, dim=-1) without the L2_NORMALIZATION op the GPU delegate refuses
    (the converter fuses x / max(sqrt(sum(x*x)), eps) into it):
    x * rsqrt(sum(x*x) + eps^2). Equal to F.normalize to a few ulp wherever
    sum(x*x) >> eps^2 (1e-24), and 0 for a zero vector, as F.normalize."""
    return x * torch.rsqrt((x * x).sum(-1, keepdim=True) + eps * eps)


def split_qkv(qkv, num_heads, head_dim):
    """Packed qkv [B, N, 3*nH*D] -> q, k, v [B, nH, N, D]: three channel slices, each
    reshaped and transposed in rank 4 (what reshape(B, N, 3, nH, D).permute(2, 0, 3, 1, 4)
    + unbind gives, without the rank-5 tensor). Bit-exact."""
    b, n, _ = qkv.shape
    a = num_heads * head_dim
    return tuple(qkv[..., i * a:(i + 1) * a].reshape(b, n, num_heads, head_dim).transpose(1, 2)
                 for i in range(3))


@functools.lru_cache(maxsize=64)
def _shift_mask_cached(ph, pw, wh, ww, sh, sw):
    img = np.zeros((ph, pw), np.float32)
    cnt = 0
    # the same Python slices as torchvision / timm (including their zero-shift corner cases)
    for h in ((0, -wh), (-wh, -sh), (-sh, None)):
        for w in ((0, -ww), (-ww, -sw), (-sw, None)):
            img[h[0]:h[1], w[0]:w[1]] = cnt
            cnt += 1
    m = img.reshape(ph // wh, wh, pw // ww, ww).transpose(0, 2, 1, 3).reshape(-1, wh * ww)
    d = m[:, None, :] - m[:, :, None]
    out = np.where(d != 0, np.float32(-100.0), np.float32(0.0)).astype(np.float32)
    out.setflags(write=False)
    return out


def shift_mask_np(ph, pw, window_size, shift_size):
    """The shifted-window attention mask [nW, N, N] (0 / -100) torchvision's
    shifted_window_attention and timm's SwinTransformerBlock.get_attn_mask build for a
    padded [ph, pw] map. Exact (small integers)."""
    return _shift_mask_cached(int(ph), int(pw), int(window_size[0]), int(window_size[1]),
                              int(shift_size[0]), int(shift_size[1]))


class _FullConst:
    """Per-module cache of [B*nW, nH, N, N] numpy constants (bias / mask expanded to
    the score shape), handed to the graph with constant()."""

    def __init__(self):
        self._c = {}

    def get(self, key, make, dtype, device):
        a = self._c.get(key)
        if a is None:
            a = self._c[key] = np.ascontiguousarray(make())
        return constant(a, dtype, device)


def _heads_full(per_window, batch_windows, heads):
    """[nW, N, N] -> [batch_windows, heads, N, N], window w = index % nW, every head."""
    nw, n, _ = per_window.shape
    return np.broadcast_to(per_window[None, :, None], (batch_windows // nw, nw, heads, n, n)
                           ).reshape(batch_windows, heads, n, n)


def _bias_full(bias, batch_windows):
    """[nH, N, N] -> [batch_windows, nH, N, N]."""
    return np.broadcast_to(bias[None], (batch_windows,) + bias.shape)


def _np(t):
    return t.detach().cpu().numpy().copy()


# ---- Swin-v1 WindowAttention (timm, Microsoft's original and copies) ---------------------

class WindowAttentionGPU(nn.Module):
    """Swin-v1 WindowAttention (timm's, Microsoft's original and the many copies of it)
    without GATHER / rank-5 tensors: qkv split by split_qkv; the relative position bias
    `table[index]` gathered once at swap time and kept as a constant; the bias and the
    shifted-window mask added as full [B_, nH, N, N] constants. Wraps the original's qkv,
    proj and dropouts. timm's fused_attn (scaled_dot_product_attention with the bias +
    mask as attn_mask) and non-fused paths are both reproduced. forward(x, mask) takes
    the mask [nW, N, N] as a tensor or as a numpy array (TimmSwinBlockGPU passes numpy,
    so the mask is a graph constant). Bit-exact."""

    def __init__(self, wa: nn.Module):
        super().__init__()
        self.qkv, self.proj = wa.qkv, wa.proj
        self.attn_drop = wa.attn_drop if getattr(wa, "attn_drop", None) is not None else nn.Identity()
        self.proj_drop = wa.proj_drop if getattr(wa, "proj_drop", None) is not None else nn.Identity()
        self.num_heads = int(wa.num_heads)
        self.head_dim = self.qkv.out_features // 3 // self.num_heads
        self.scale = float(wa.scale)
        self.fused_attn = bool(getattr(wa, "fused_attn", False))
        idx = wa.relative_position_index
        n = int(math.isqrt(idx.numel()))
        with torch.no_grad():
            bias = wa.relative_position_bias_table[idx.reshape(-1)].reshape(n, n, -1).permute(2, 0, 1)
        self._bias = _np(bias.contiguous())                         # [nH, N, N]
        self._full = _FullConst()

    def _mask_full(self, mask, b_, attn):
        if isinstance(mask, np.ndarray):
            key = ("mask", b_, mask.shape, hashlib.sha1(np.ascontiguousarray(mask).tobytes()).hexdigest())
            return self._full.get(key, lambda: _heads_full(mask, b_, self.num_heads), attn.dtype, attn.device)
        nw = mask.shape[0]
        m = torch.cat([mask.unsqueeze(1)] * self.num_heads, 1)           # [nW, nH, N, N]
        return torch.cat([m] * (b_ // nw), 0) if b_ // nw > 1 else m

    def forward(self, x, mask=None):
        b_, n, _ = x.shape
        q, k, v = split_qkv(self.qkv(x), self.num_heads, self.head_dim)
        bias = self._full.get(("bias", b_), lambda: _bias_full(self._bias, b_), x.dtype, x.device)
        if self.fused_attn:
            attn_mask = bias
            if mask is not None:
                attn_mask = attn_mask + self._mask_full(mask, b_, x)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask,
                                               dropout_p=self.attn_drop.p if self.training and hasattr(self.attn_drop, "p") else 0.)
        else:
            q = q * self.scale
            attn = q @ k.transpose(-2, -1)
            attn = attn + bias
            if mask is not None:
                attn = attn + self._mask_full(mask, b_, attn)
            attn = self.attn_drop(torch.softmax(attn, dim=-1))
            y = attn @ v
        y = y.transpose(1, 2).reshape(b_, n, -1)
        return self.proj_drop(self.proj(y))


def _random_mask(nw, n, gen):
    return (torch.rand(nw, n, n, generator=gen) > 0.6).float() * -100.0


def _make_window_attention(m):
    if isinstance(m, WindowAttentionGPU):
        return None
    try:
        g = WindowAttentionGPU(m)
        n = int(math.isqrt(m.relative_position_index.numel()))
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(4, n, m.qkv.in_features, generator=gen)
        calls = [(x,)]
        if len(inspect.signature(m.forward).parameters) >= 2:
            calls.append((x, _random_mask(2, n, gen)))
    except Exception as e:  # noqa: BLE001 - not the layout this rewrite knows
        log.debug("window attention %s refused: %s", type(m).__name__, e)
        return None
    if probe_equal(m, g, calls):
        return g
    log.info("window attention %s not swapped: its forward is not the Swin-v1 one", type(m).__name__)
    return None


_WA_NEED = ("relative_position_bias_table", "relative_position_index", "num_heads", "qkv",
            "proj", "scale")


def patch_window_attention(model: nn.Module) -> int:
    """Swap every Swin-v1 WindowAttention (timm's class, or any module with
    relative_position_bias_table, relative_position_index, num_heads, qkv, proj and
    scale whose forward WindowAttentionGPU reproduces on a probe run) for
    WindowAttentionGPU. torchvision's ShiftedWindowAttention is not one of them (it
    windows its input itself): see patch_swin. Returns the count."""
    def match(_, m):
        return (all(hasattr(m, a) for a in _WA_NEED) and isinstance(getattr(m, "qkv"), nn.Linear)
                and not isinstance(m, (WindowAttentionGPU, ShiftedWindowAttentionGPU)))
    return swap_modules(model, match, _make_window_attention)


# ---- torchvision ShiftedWindowAttention / V2 ----------------------------------------------

class ShiftedWindowAttentionGPU(nn.Module):
    """torchvision's ShiftedWindowAttention and ShiftedWindowAttentionV2 (swin_t/s/b,
    swin_v2_t/s/b) as rank <= 4 ops: the whole of torchvision's
    shifted_window_attention (pad, roll, partition, attention with relative position
    bias and shift mask, reverse, roll back, unpad) re-expressed with roll4,
    window_partition4 / window_reverse4, split_qkv and full-shape constants. v2's
    continuous position bias (16 * sigmoid(cpb_mlp(coords))[index]), the zeroed key bias
    and clamp(logit_scale).exp() are torchvision's own computations done once at swap
    time; its cosine attention's F.normalize (L2_NORMALIZATION, refused by the GPU) is
    l2_normalize. Reuses the original qkv / proj Linear layers. v1 bit-exact; v2 within
    a few ulp of the cosine similarities (measured ~1e-6 on the output)."""

    def __init__(self, swa: nn.Module):
        super().__init__()
        self.qkv, self.proj = swa.qkv, swa.proj
        self.window_size = [int(v) for v in swa.window_size]
        self.shift_size = [int(v) for v in swa.shift_size]
        self.num_heads = int(swa.num_heads)
        self.attention_dropout = float(swa.attention_dropout)
        self.dropout = float(swa.dropout)
        self.v2 = getattr(swa, "logit_scale", None) is not None
        with torch.no_grad():
            self._bias = _np(swa.get_relative_position_bias()[0])     # [nH, N, N]
            self._logit = None
            qkv_bias = swa.qkv.bias
            if self.v2:
                self._logit = _np(torch.clamp(swa.logit_scale, max=math.log(100.0)).exp())
                if qkv_bias is not None:
                    qkv_bias = qkv_bias.clone()
                    length = qkv_bias.numel() // 3
                    qkv_bias[length:2 * length].zero_()
        if self.v2 and qkv_bias is not None:
            self.register_buffer("qkv_bias_v2", qkv_bias.detach().clone())
        else:
            self.qkv_bias_v2 = None
        self._full = _FullConst()

    def forward(self, x):
        b, h, w, c = x.shape
        wh, ww = self.window_size
        pad_r = (ww - w % ww) % ww
        pad_b = (wh - h % wh) % wh
        if pad_r or pad_b:
            x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        ph, pw = h + pad_b, w + pad_r
        sh, sw = self.shift_size
        if wh >= ph:
            sh = 0
        if ww >= pw:
            sw = 0
        shifted = sh + sw > 0
        if shifted:
            x = roll4(roll4(x, -sh, 1), -sw, 2)
        n = wh * ww
        xw = window_partition4(x, wh, ww)                             # [B*nW, N, C]
        b_ = xw.shape[0]
        hd = c // self.num_heads
        if self.v2:
            qkv = F.linear(xw, self.qkv.weight, self.qkv_bias_v2)
        else:
            qkv = F.linear(xw, self.qkv.weight, self.qkv.bias)
        q, k, v = split_qkv(qkv, self.num_heads, hd)
        if self.v2:
            attn = l2_normalize(q) @ l2_normalize(k).transpose(-2, -1)
            attn = attn * constant(self._logit, attn.dtype, attn.device)
        else:
            q = q * hd ** -0.5
            attn = q.matmul(k.transpose(-2, -1))
        attn = attn + self._full.get(("bias", b_), lambda: _bias_full(self._bias, b_),
                                     attn.dtype, attn.device)
        if shifted:
            mask = shift_mask_np(ph, pw, (wh, ww), (sh, sw))
            attn = attn + self._full.get(("mask", b_, ph, pw, sh, sw),
                                         lambda: _heads_full(mask, b_, self.num_heads),
                                         attn.dtype, attn.device)
        attn = F.softmax(attn, dim=-1)
        attn = F.dropout(attn, p=self.attention_dropout, training=self.training)
        y = attn.matmul(v).transpose(1, 2).reshape(b_, n, c)
        y = F.linear(y, self.proj.weight, self.proj.bias)
        y = F.dropout(y, p=self.dropout, training=self.training)
        y = window_reverse4(y, wh, ww, b, ph, pw)
        if shifted:
            y = roll4(roll4(y, sh, 1), sw, 2)
        if pad_r or pad_b:
            y = y[:, :h, :w, :]
        return y


def _make_tv_swa(m):
    try:
        g = ShiftedWindowAttentionGPU(m)
        wh, ww = g.window_size
        c = m.qkv.in_features
        gen = torch.Generator().manual_seed(0)
        calls = [(torch.randn(1, 2 * wh, 2 * ww, c, generator=gen),),
                 (torch.randn(2, wh + 3, 2 * ww + 1, c, generator=gen),)]
    except Exception as e:  # noqa: BLE001
        log.debug("ShiftedWindowAttention refused: %s", e)
        return None
    return g if probe_equal(m, g, calls) else None


# ---- timm SwinTransformerBlock ----------------------------------------------------------------

class TimmSwinBlockGPU(nn.Module):
    """timm's SwinTransformerBlock with its _attn (roll, pad, window_partition,
    WindowAttention, window_reverse, unpad, roll back) in rank <= 4 form: roll4,
    window_partition4 / window_reverse4, WindowAttentionGPU with the block's shift mask
    (its attn_mask buffer, or the dynamic mask timm would compute) as a constant.
    Reuses norm1, norm2, mlp and the drop paths. Bit-exact."""

    def __init__(self, blk: nn.Module):
        super().__init__()
        self.norm1, self.norm2, self.mlp = blk.norm1, blk.norm2, blk.mlp
        self.drop_path1, self.drop_path2 = blk.drop_path1, blk.drop_path2
        self.attn = WindowAttentionGPU(blk.attn)
        self.window_size = tuple(int(v) for v in blk.window_size)
        self.shift_size = tuple(int(v) for v in blk.shift_size)
        self.dynamic_mask = bool(getattr(blk, "dynamic_mask", False))
        m = getattr(blk, "attn_mask", None)
        self._mask = None if (self.dynamic_mask or m is None) else _np(m)

    def _attn(self, x):
        b, h, w, c = x.shape
        wh, ww = self.window_size
        has_shift = any(self.shift_size)
        if has_shift:
            x = roll4(roll4(x, -self.shift_size[0], 1), -self.shift_size[1], 2)
        pad_h = (wh - h % wh) % wh
        pad_w = (ww - w % ww) % ww
        if pad_h or pad_w:
            x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
        hp, wp = h + pad_h, w + pad_w
        xw = window_partition4(x, wh, ww)
        if self.dynamic_mask:
            mask = shift_mask_np(hp, wp, self.window_size, self.shift_size) if has_shift else None
        else:
            mask = self._mask
        y = self.attn(xw, mask=mask)
        y = window_reverse4(y, wh, ww, b, hp, wp)
        if pad_h or pad_w:
            y = y[:, :h, :w, :]
        if has_shift:
            y = roll4(roll4(y, self.shift_size[0], 1), self.shift_size[1], 2)
        return y

    def forward(self, x):
        b, h, w, c = x.shape
        x = x + self.drop_path1(self._attn(self.norm1(x)))
        x = x.reshape(b, -1, c)
        x = x + self.drop_path2(self.mlp(self.norm2(x)))
        return x.reshape(b, h, w, c)


def _make_timm_block(m):
    try:
        g = TimmSwinBlockGPU(m)
        h, w = (int(v) for v in m.input_resolution)
        gen = torch.Generator().manual_seed(0)
        calls = [(torch.randn(1, h, w, m.norm1.normalized_shape[0], generator=gen),)]
    except Exception as e:  # noqa: BLE001
        log.debug("timm SwinTransformerBlock refused: %s", e)
        return None
    return g if probe_equal(m, g, calls) else None


# ---- PatchMerging ---------------------------------------------------------------------------

class PatchMergingGPU(nn.Module):
    """Swin PatchMerging without strided slices, GATHER_ND or rank-6 tensors: odd H/W
    zero-padded as the original does, merge2x2, then norm and reduction (torchvision's
    PatchMergingV2: reduction, then norm). Accepts [..., H, W, C] (torchvision, timm)
    or Swin v1's forward(x [B, H*W, C], H, W). Wraps the original's norm and reduction.
    Bit-exact."""

    def __init__(self, pm: nn.Module, reduction_first=None):
        super().__init__()
        self.norm, self.reduction = pm.norm, pm.reduction
        if reduction_first is None:
            reduction_first = class_is(pm, _TV, "PatchMergingV2")
        self.reduction_first = bool(reduction_first)

    def forward(self, x, H=None, W=None):
        v1 = H is not None
        if v1:
            b, _, c = x.shape
            x = x.reshape(b, H, W, c)
        h, w, c = x.shape[-3:]
        if h % 2 or w % 2:
            x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
        y = merge2x2(x)
        if v1:
            y = y.reshape(y.shape[0], -1, 4 * c)
        if self.reduction_first:
            return self.norm(self.reduction(y))
        return self.reduction(self.norm(y))


def _make_patch_merging(m):
    if isinstance(m, PatchMergingGPU):
        return None
    try:
        c = m.reduction.in_features // 4
        gen = torch.Generator().manual_seed(0)
        if len(inspect.signature(m.forward).parameters) >= 3:      # Swin v1: (x, H, W)
            calls = [(torch.randn(2, 8 * 6, c, generator=gen), 8, 6)]
        else:
            calls = [(torch.randn(2, 8, 6, c, generator=gen),)]
            if class_is(m, _TV, "PatchMerging") or class_is(m, _TV, "PatchMergingV2") \
                    or class_is(m, _TIMM, "PatchMerging"):
                calls.append((torch.randn(1, 7, 5, c, generator=gen),))
        known = class_is(m, _TV, "PatchMergingV2")
        for rf in ([True] if known else [False, True]):
            g = PatchMergingGPU(m, reduction_first=rf)
            if probe_equal(m, g, calls):
                return g
    except Exception as e:  # noqa: BLE001
        log.debug("PatchMerging %s refused: %s", type(m).__name__, e)
        return None
    log.info("PatchMerging %s not swapped: its forward is not reproduced", type(m).__name__)
    return None


def patch_patch_merging(model: nn.Module) -> int:
    """Swap every PatchMerging (torchvision PatchMerging / PatchMergingV2, timm
    PatchMerging, or a class named *PatchMerging* with norm and reduction whose forward
    PatchMergingGPU reproduces on a probe run) for PatchMergingGPU. Returns the count."""
    def match(_, m):
        return ("PatchMerging" in type(m).__name__ and isinstance(getattr(m, "reduction", None), nn.Linear)
                and hasattr(m, "norm") and not isinstance(m, PatchMergingGPU))
    return swap_modules(model, match, _make_patch_merging)


# ---- the whole model ------------------------------------------------------------------------

def patch_swin(model: nn.Module) -> int:
    """Every Swin rewrite of this module on `model`: torchvision ShiftedWindowAttention(V2)
    -> ShiftedWindowAttentionGPU, timm SwinTransformerBlock -> TimmSwinBlockGPU, other
    Swin-v1 WindowAttention -> WindowAttentionGPU, PatchMerging -> PatchMergingGPU.
    Returns the number of modules swapped."""
    n = swap_modules(model, lambda _, m: class_is(m, _TV, "ShiftedWindowAttention")
                     or class_is(m, _TV, "ShiftedWindowAttentionV2"), _make_tv_swa)
    n += swap_modules(model, lambda _, m: class_is(m, _TIMM, "SwinTransformerBlock"), _make_timm_block)
    n += patch_window_attention(model)
    n += patch_patch_merging(model)
    return n
