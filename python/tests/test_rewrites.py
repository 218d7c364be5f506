"""Every rewrite against the original in PyTorch, on random inputs: the measured max
|diff| must stay within the exactness its docstring states."""
import itertools

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python/install-torch.sh)")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gpuclean.rewrites as R  # noqa: E402

torch.manual_seed(0)


def maxdiff(a, b):
    return (a.double() - b.double()).abs().max().item()


# ---- GATHER_ND ------------------------------------------------------------------------

@pytest.mark.parametrize("ac", [False, True])
def test_grid_sample(exactness, ac):
    x = torch.randn(2, 3, 9, 11)
    g = torch.rand(2, 7, 5, 2) * 2.4 - 1.2          # some samples out of range (zeros pad)
    exactness("patch_grid_sample", maxdiff(R.grid_sample_tent(x, g, align_corners=ac),
                                           F.grid_sample(x, g, align_corners=ac)), 2e-6)
    with R.patch_grid_sample():
        y = F.grid_sample(x, g, align_corners=ac)
    assert F.grid_sample is not None and maxdiff(y, F.grid_sample(x, g, align_corners=ac)) < 2e-6
    with pytest.raises(NotImplementedError):
        R.grid_sample_tent(x, g, mode="nearest")


@pytest.mark.parametrize("k,s,p,ceil", [(3, 2, 1, False), (3, 2, 1, True), (5, 1, 2, False),
                                        (2, 2, 1, False), (3, 3, 1, True)])
def test_maxpool_edge_pad(exactness, k, s, p, ceil):
    x = torch.randn(2, 4, 13, 10)                  # signed input: the seed's zero pad fails
    mp = nn.MaxPool2d(k, s, p, ceil_mode=ceil)
    exactness("patch_maxpool_zeropad(exact)", maxdiff(R.EdgePadMaxPool2d(k, s, p, ceil)(x), mp(x)), 0.0)
    xr = torch.relu(x)
    exactness("ZeroPadMaxPool2d(x>=0)", maxdiff(R.ZeroPadMaxPool2d(k, s, p, ceil)(xr), mp(xr)), 0.0)
    m = nn.Sequential(nn.Conv2d(4, 4, 1), nn.MaxPool2d(k, s, p, ceil_mode=ceil))
    ref = m(x)
    assert R.patch_maxpool_zeropad(m) == 1 and maxdiff(m(x), ref) == 0.0


@pytest.mark.parametrize("mode,ac", [("bicubic", False), ("bicubic", True), ("bilinear", False),
                                     ("bilinear", True), ("nearest", None), ("area", None)])
def test_interpolate(exactness, mode, ac):
    x = torch.randn(2, 3, 7, 6)
    for kw in (dict(scale_factor=2), dict(size=(5, 13))):
        if mode == "area" and "scale_factor" in kw:
            continue
        ref = F.interpolate(x, mode=mode, align_corners=ac, **kw)
        exactness("patch_interpolate(%s)" % mode,
                  maxdiff(R.interpolate_matmul(x, mode=mode, align_corners=ac, **kw), ref), 5e-6)
    with R.patch_interpolate(modes=(mode,)):
        y = F.interpolate(x, scale_factor=3, mode=mode, align_corners=ac)
    assert maxdiff(y, F.interpolate(x, scale_factor=3, mode=mode, align_corners=ac)) < 5e-6


def test_stride2_and_focus(exactness):
    x = torch.randn(2, 5, 8, 12)
    focus = torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)
    exactness("space_to_depth2 (Focus)", maxdiff(R.space_to_depth2(x), focus), 0.0)
    for dy, dx in itertools.product((0, 1), (0, 1)):
        exactness("stride2_slice", maxdiff(R.stride2_slice(x, dy, dx), x[..., dy::2, dx::2]), 0.0)


class SwinPatchMergingV1(nn.Module):
    """Swin v1 PatchMerging (reference semantics, written for this test)."""

    def __init__(self, dim):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(4 * dim)

    def forward(self, x, H, W):
        B, L, C = x.shape
        x = x.view(B, H, W, C)
        x0, x1 = x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :]
        x2, x3 = x[:, 0::2, 1::2, :], x[:, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1).view(B, -1, 4 * C)
        return self.reduction(self.norm(x))


def test_patch_merging(exactness):
    pm = SwinPatchMergingV1(6)
    x = torch.randn(2, 8 * 10, 6)
    ref = pm(x, 8, 10)
    gpu = R.PatchMergingGPU(pm)
    exactness("patch_patch_merging", maxdiff(gpu(x, 8, 10), ref), 0.0)
    m = nn.ModuleDict({"down": pm})
    assert R.patch_patch_merging(m) == 1 and maxdiff(m["down"](x, 8, 10), ref) == 0.0


# ---- rank 5+ ------------------------------------------------------------------------------

@pytest.mark.parametrize("r", [2, 3])
def test_pixel_shuffle(exactness, r):
    x = torch.randn(2, 3 * r * r, 5, 4)
    exactness("pixel_shuffle4", maxdiff(R.pixel_shuffle4(x, r), F.pixel_shuffle(x, r)), 0.0)
    y = torch.randn(2, 3, 4 * r, 2 * r)
    exactness("pixel_unshuffle4", maxdiff(R.pixel_unshuffle4(y, r), F.pixel_unshuffle(y, r)), 0.0)
    ct = R.pixelshuffle_to_conv_transpose(r, 3)
    exactness("pixelshuffle_to_conv_transpose", maxdiff(ct(x), F.pixel_shuffle(x, r)), 0.0)
    exactness("pixelshuffle_to_conv_transpose+ZeroStuff",
              maxdiff(R.ZeroStuffConvT2d(ct)(x), F.pixel_shuffle(x, r)), 0.0)
    m = nn.Sequential(nn.PixelShuffle(r), nn.PixelUnshuffle(r))
    assert R.patch_pixel_shuffle(m) == 2 and maxdiff(m(x), x) == 0.0


def test_permute4_and_rearrange(exactness):
    z = torch.randn(2, 3, 4, 5, 6)
    worst = max(maxdiff(R.permute4(z, p), z.permute(p)) for p in itertools.permutations(range(5)))
    exactness("permute4 (all rank-5 perms)", worst, 0.0)
    x = torch.randn(2, 6, 8, 12)
    y = R.rearrange(x, "b c (hg h) (wg w) -> (b hg wg) c h w", hg=2, wg=3)
    ref = x.reshape(2, 6, 2, 4, 3, 4).permute(0, 2, 4, 1, 3, 5).reshape(12, 6, 4, 4)
    exactness("patch_einops (rearrange)", maxdiff(y, ref), 0.0)
    back = R.rearrange(y, "(b hg wg) c h w -> b c (hg h) (wg w)", hg=2, wg=3)
    exactness("patch_einops (rearrange)", maxdiff(back, x), 0.0)


class SwinWindowAttentionV1(nn.Module):
    """Swin v1 WindowAttention (reference semantics, written for this test)."""

    def __init__(self, dim, window_size, num_heads):
        super().__init__()
        self.dim, self.window_size, self.num_heads = dim, window_size, num_heads
        hd = dim // num_heads
        self.scale = hd ** -0.5
        wh, ww = window_size
        self.relative_position_bias_table = nn.Parameter(torch.randn((2 * wh - 1) * (2 * ww - 1), num_heads))
        coords = torch.stack(torch.meshgrid(torch.arange(wh), torch.arange(ww), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0).contiguous()
        rel[:, :, 0] += wh - 1
        rel[:, :, 1] += ww - 1
        rel[:, :, 0] *= 2 * ww - 1
        self.register_buffer("relative_position_index", rel.sum(-1))
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.attn_drop, self.proj_drop = nn.Dropout(0.0), nn.Dropout(0.0)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(N, N, -1)
        attn = attn + bias.permute(2, 0, 1).contiguous().unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = self.attn_drop(self.softmax(attn))
        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj_drop(self.proj(x))


def test_window_attention(exactness):
    wa = SwinWindowAttentionV1(16, (4, 4), 4).eval()
    x = torch.randn(2 * 3, 16, 16)
    mask = (torch.rand(3, 16, 16) > 0.7).float() * -100.0
    gpu = R.WindowAttentionGPU(wa)
    with torch.no_grad():
        exactness("patch_window_attention", maxdiff(gpu(x), wa(x)), 1e-6)
        exactness("patch_window_attention(mask)", maxdiff(gpu(x, mask), wa(x, mask)), 1e-6)
    m = nn.Sequential(wa)
    assert R.patch_window_attention(m) == 1 and isinstance(m[0], R.WindowAttentionGPU)


# ---- TRANSPOSE_CONV -----------------------------------------------------------------------

def test_zero_stuff_conv_transpose(exactness):
    worst2 = worst1 = 0.0
    for k, s, p, op, d, g in itertools.product((1, 2, 3, 4), (1, 2, 3), (0, 1, 2), (0, 1), (1, 2), (1, 2)):
        if p >= k * d or op >= max(s, d):
            continue
        ct = nn.ConvTranspose2d(4, 6, (k, k + 1), stride=(s, s + 1), padding=p, output_padding=op,
                                dilation=d, groups=g)
        x = torch.randn(2, 4, 5, 6)
        with torch.no_grad():
            worst2 = max(worst2, maxdiff(R.ZeroStuffConvT2d(ct)(x), ct(x)) / (ct(x).abs().max().item() + 1e-12))
        c1 = nn.ConvTranspose1d(4, 6, k, stride=s, padding=p, output_padding=op, dilation=d, groups=g)
        x1 = torch.randn(2, 4, 9)
        with torch.no_grad():
            worst1 = max(worst1, maxdiff(R.ZeroStuffConvT1d(c1)(x1), c1(x1)) / (c1(x1).abs().max().item() + 1e-12))
    exactness("ZeroStuffConvT2d (rel. to max|out|)", worst2, 1e-6)
    exactness("ZeroStuffConvT1d (rel. to max|out|)", worst1, 1e-6)
    m = nn.Sequential(nn.ConvTranspose2d(3, 3, 4, 2, 1), nn.ConvTranspose1d(3, 3, 3, 2))
    assert R.patch_conv_transpose(m) == 2


# ---- SELECT ----------------------------------------------------------------------------------

def test_select_arith(exactness):
    x = torch.randn(4, 6, 5, 5) * 3
    pr = nn.PReLU(6)
    with torch.no_grad():
        pr.weight.uniform_(-0.5, 0.5)
        exactness("PReLU arith", maxdiff(R.PReLUArith(pr)(x), pr(x)), 0.0)
        pr1 = nn.PReLU()
        exactness("PReLU arith", maxdiff(R.prelu_arith(x, pr1.weight), pr1(x)), 0.0)
    for a in (1.0, 0.3):
        exactness("ELU arith", maxdiff(R.elu_arith(x, a), F.elu(x, a)), 2e-7)
    m = x > 0.5
    exactness("torch.where arith", maxdiff(R.where_arith(R.gt_mask(x, 0.5), x, 0.1 * x),
                                           torch.where(m, x, 0.1 * x)), 0.0)
    exactness("masked assignment arith", maxdiff(R.masked_fill_arith(x, m, 7.0), x.masked_fill(m, 7.0)), 0.0)
    assert torch.equal(R.gt_mask(x, 0.5), m.float()) and torch.equal(R.le_mask(x, 0.5), (~m).float())
    assert torch.equal(R.lt_mask(x, 0.5), (x < 0.5).float()) and torch.equal(R.ge_mask(x, 0.5), (x >= 0.5).float())
    with R.patch_select():
        y1 = torch.where(m, x, 0.0)
        y2 = x.masked_fill(m, -2.0)
        y3 = x.masked_fill(m, float("-inf"))           # infinite fill: left to the original
    exactness("torch.where arith", maxdiff(y1, torch.where(m, x, 0.0)), 0.0)
    assert torch.equal(y2, x.masked_fill(m, -2.0)) and torch.equal(y3, x.masked_fill(m, float("-inf")))
    net = nn.Sequential(nn.PReLU(), nn.ELU(inplace=False))
    p = R.patch_select(net)
    p.restore()
    assert p.count == 2 and torch.where is R.select._WHERE


def test_inplace_elu_keeps_semantics():
    class Res(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.ELU(inplace=True)

        def forward(self, x):
            y = x * 1.0
            out = self.act(y)
            return y + out                              # y was overwritten: 2*elu(y)
    m = Res()
    x = torch.randn(3, 5)
    ref = m(x)
    assert R.inplace_sensitive_modules(m, x) == ["act"]
    R.patch_select(m).restore()
    assert maxdiff(m(x), ref) < 2e-7


# ---- BROADCAST_TO, attention ----------------------------------------------------------------

@pytest.mark.parametrize("n_kv,n_rep", [(1, 4), (2, 3), (4, 2)])
def test_repeat_kv(exactness, n_kv, n_rep):
    x = torch.randn(2, n_kv, 7, 8)
    exactness("repeat_kv (GQA)", maxdiff(R.repeat_kv(x, n_rep), R.repeat_kv_reference(x, n_rep)), 0.0)
    exactness("expand_concat", maxdiff(R.expand_concat(x[:, :1], 2, 5, 7, 8), x[:, :1].expand(2, 5, 7, 8)), 0.0)


def test_mask_preexpansion(exactness):
    q, k = torch.randn(2, 4, 6, 8), torch.randn(2, 4, 6, 8)
    mask = torch.triu(torch.full((6, 6), -1e9), 1)[None, None].expand(2, 1, 6, 6).contiguous()
    s = q @ k.transpose(-1, -2)
    exactness("mask pre-expansion", maxdiff(s + R.expand_mask(mask, 4), s + mask), 0.0)
    v = torch.randn(2, 4, 6, 8)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    with R.patch_sdpa_mask():
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    exactness("mask pre-expansion (sdpa)", maxdiff(y, ref), 0.0)

    class Att(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("causal_mask", mask[:1].clone())

        def forward(self, q, k):
            return torch.softmax(q @ k.transpose(-1, -2) + self.causal_mask, -1)
    a = Att()
    ref = a(q, k)
    assert R.preexpand_mask_buffers(a, 4) == 1 and a.causal_mask.shape == (1, 4, 6, 6)
    exactness("mask pre-expansion", maxdiff(a(q, k), ref), 0.0)


# ---- watch-for list ------------------------------------------------------------------------

def test_chunk_split(exactness):
    x = torch.randn(3, 10, 4)
    for n in (2, 3, 4):
        for a, b in zip(R.chunk_slices(x, n, 1), x.chunk(n, 1)):
            exactness(".chunk -> slices", maxdiff(a, b), 0.0)
            assert a.shape == b.shape
    for a, b in zip(R.split_slices(x, [3, 7], 1), torch.split(x, [3, 7], 1)):
        exactness(".chunk -> slices", maxdiff(a, b), 0.0)
    with R.patch_chunk():
        parts = x.chunk(3, -1)
    assert len(parts) == 2 and torch.equal(torch.cat(parts, -1), x)


def test_reflect_pad(exactness):
    x = torch.randn(2, 3, 7, 9)
    for pad in ((1, 1, 1, 1), (2, 0, 3, 1), (0, 0, 0, 0)):
        exactness("reflect pad slice+concat", maxdiff(R.reflect_pad(x, pad), F.pad(x, pad, mode="reflect")), 0.0)
    for p in (0, 1, 2):
        conv = nn.Conv2d(3, 4, 3, padding=p, padding_mode="reflect")
        with torch.no_grad():
            exactness("reflect pad slice+concat (conv)", maxdiff(R.ReflectPadConv2d(conv)(x), conv(x)), 1e-6)
    m = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1, padding_mode="reflect"), nn.ReflectionPad2d(2))
    ref = m(x)
    with R.patch_reflect_pad(m) as p:
        assert p.count == 2
        y = F.pad(x, (1, 1, 1, 1), mode="reflect")
    assert maxdiff(m(x), ref) < 1e-6 and maxdiff(y, F.pad(x, (1, 1, 1, 1), mode="reflect")) == 0.0


class SE(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(c, c // 2), nn.Linear(c // 2, c)

    def forward(self, x):
        w = torch.sigmoid(self.fc2(torch.relu(self.fc1(x.mean((2, 3))))))
        return x * w[:, :, None, None]


def test_channel_attention_conv1x1(exactness):
    m = nn.Sequential(nn.Conv2d(8, 8, 1), SE(8))
    x = torch.randn(2, 8, 5, 5)
    with torch.no_grad():
        ref = m(x)
        assert R.patch_channel_attention(m) == 2
        exactness("channel attention -> 1x1 conv", maxdiff(m(x), ref), 1e-6)


def test_inplace_guard():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 1)
            self.act = nn.ReLU(inplace=True)
            self.act2 = nn.ReLU(inplace=True)

        def forward(self, x):
            y = self.conv(x)
            out = self.act(y)          # overwrites y: y + out == 2*relu(y)
            return (y + out) + self.act2(self.conv(x))   # act2's in-place write is harmless
    b = Block()
    x = torch.randn(2, 3, 4, 4)
    with torch.no_grad():
        ref = b(x)
        rep = R.patch_inplace_activations(b, x)
        assert rep == {"made_out_of_place": ["act2"], "kept_inplace_semantic": ["act"]}
        assert torch.equal(b(x), ref)


# ---- fp16-safe reductions -------------------------------------------------------------------

@pytest.mark.parametrize("scale", [1e-2, 1.0, 1e3])
def test_fp16_norms(exactness, scale):
    x = torch.randn(3, 5, 64) * scale
    ln = nn.LayerNorm(64)
    with torch.no_grad():
        ln.weight.uniform_(0.5, 1.5)
        ln.bias.uniform_(-1, 1)
        for mode in ("adaptive", "fixed"):
            exactness("SafeLayerNorm(%s)" % mode, maxdiff(R.SafeLayerNorm(ln, mode)(x), ln(x)), 5e-6)
            w = torch.rand(64) + 0.5
            ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
            exactness("safe_rms_norm(%s)" % mode, maxdiff(R.safe_rms_norm(x, w, 1e-6, mode), ref), 5e-6)
        xi = torch.randn(2, 4, 12, 20) * scale
        inn = nn.InstanceNorm2d(4, affine=True)
        inn.weight.data.uniform_(0.5, 1.5)
        for mode in ("adaptive", "fixed"):
            exactness("SafeInstanceNorm2d(%s)" % mode, maxdiff(R.SafeInstanceNorm2d(inn, mode)(xi), inn(xi)), 5e-6)
        for h, w in ((16, 16), (37, 53), (15, 15), (3, 5)):
            z = torch.randn(2, 3, h, w) * scale
            exactness("hierarchical_mean (rel.)",
                      maxdiff(R.hierarchical_mean(z), z.mean((2, 3), keepdim=True)) / scale, 1e-6)
            exactness("hierarchical_max", maxdiff(R.hierarchical_max(z), z.amax((2, 3), keepdim=True)), 0.0)
        v = R.safe_variance(x, (2,))
        exactness("safe_variance (rel.)", maxdiff(v, x.var(2, unbiased=False, keepdim=True)) / scale ** 2, 1e-5)


def test_fp16_overflow_is_removed():
    """The point of the scaled domain: in half precision, the plain variance of
    |x|~300 rows of 1024 overflows (inf), the safe one does not."""
    x = (torch.randn(2, 1024) * 300).half()
    plain = (x.float() ** 2).half().sum(-1)              # what an fp16 accumulator sees
    assert torch.isinf(plain).all()
    xs = x / x.abs().amax(-1, keepdim=True)
    assert torch.isfinite((xs * xs).sum(-1)).all()


def test_patch_fp16_norms_counts():
    class RMSNorm(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))
            self.variance_epsilon = 1e-6

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon) * self.weight
    m = nn.Sequential(nn.LayerNorm(8), RMSNorm(8))
    x = torch.randn(2, 8) * 50
    ref = m(x)
    assert R.patch_fp16_norms(m) == {"layernorm": 1, "rmsnorm": 1, "instancenorm": 0}
    assert maxdiff(m(x), ref) < 5e-6


def test_patches_restore():
    before = (F.grid_sample, F.interpolate, F.pad, torch.chunk, torch.Tensor.chunk,
              torch.Tensor.expand, F.scaled_dot_product_attention, torch.where)
    for make in (R.patch_grid_sample, R.patch_interpolate, R.patch_chunk, R.patch_expand,
                 R.patch_sdpa_mask, R.patch_select, R.patch_reflect_pad, R.patch_einops):
        with make():
            pass
    after = (F.grid_sample, F.interpolate, F.pad, torch.chunk, torch.Tensor.chunk,
             torch.Tensor.expand, F.scaled_dot_product_attention, torch.where)
    assert before == after
