"""Architecture rewrites (Swin, timm packed-QKV attention, GQA, channel shuffle, frozen
position embeddings) against the original PyTorch modules / whole models: random init,
random inputs; the measured max |diff| must stay within the exactness each docstring
states. Also: the matchers refuse modules whose forward they do not reproduce."""
import copy
import itertools

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python/install-torch.sh)")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gpuclean.rewrites as R  # noqa: E402


def maxdiff(a, b):
    return (a.double() - b.double()).abs().max().item()


def _logits(out):
    return out.logits if hasattr(out, "logits") else out


def whole_model(m, x, swap, patches=()):
    """(reference output, rewritten output, swap count) on a deep copy of m."""
    m = m.eval()
    with torch.no_grad():
        ref = _logits(m(*x))
    m2 = copy.deepcopy(m)
    n = swap(m2)
    active = [p() if callable(p) else p for p in patches]
    try:
        with torch.no_grad():
            got = _logits(m2(*x))
    finally:
        for p in reversed(active):
            p.restore()
    return ref, got, n


# ---- building blocks --------------------------------------------------------------------------

def test_l2_normalize(exactness):
    x = torch.randn(3, 4, 9, 32) * torch.logspace(-3, 3, 9).reshape(1, 1, 9, 1)
    x[0, 0, 0] = 0.0
    exactness("l2_normalize (swin v2)", maxdiff(R.l2_normalize(x), F.normalize(x, dim=-1)), 2e-7)


def test_rank4_building_blocks(exactness):
    x = torch.randn(2, 12, 15, 5)
    worst = 0.0
    for s, d in itertools.product((-7, -3, 0, 2, 14, 31), (1, 2)):
        worst = max(worst, maxdiff(R.roll4(x, s, d), torch.roll(x, s, d)))
    exactness("roll4", worst, 0.0)
    for wh, ww in ((3, 5), (4, 3), (12, 15)):
        y = x.view(2, 12 // wh, wh, 15 // ww, ww, 5).permute(0, 1, 3, 2, 4, 5).reshape(-1, wh * ww, 5)
        exactness("window_partition4/reverse4", maxdiff(R.window_partition4(x, wh, ww), y), 0.0)
        back = R.window_reverse4(y, wh, ww, 2, 12, 15)
        exactness("window_partition4/reverse4", maxdiff(back, x), 0.0)
    z = torch.randn(3, 8, 10, 6)
    tv = torch.cat([z[..., 0::2, 0::2, :], z[..., 1::2, 0::2, :], z[..., 0::2, 1::2, :],
                    z[..., 1::2, 1::2, :]], -1)
    timm_form = z.reshape(3, 4, 2, 5, 2, 6).permute(0, 1, 3, 4, 2, 5).flatten(3)
    exactness("merge2x2", maxdiff(R.merge2x2(z), tv), 0.0)
    exactness("merge2x2", maxdiff(R.merge2x2(z), timm_form), 0.0)
    qkv = torch.randn(2, 7, 3 * 4 * 5)
    ref = qkv.reshape(2, 7, 3, 4, 5).permute(2, 0, 3, 1, 4).unbind(0)
    for a, b in zip(R.split_qkv(qkv, 4, 5), ref):
        exactness("split_qkv", maxdiff(a, b), 0.0)


# ---- Swin -----------------------------------------------------------------------------------------

tvs = pytest.importorskip("torchvision.models.swin_transformer")


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("hw,shift", [((8, 8), (2, 2)), ((11, 6), (2, 2)), ((8, 8), (0, 0)),
                                      ((4, 9), (2, 2))])
def test_tv_shifted_window_attention(exactness, v2, hw, shift):
    cls = tvs.ShiftedWindowAttentionV2 if v2 else tvs.ShiftedWindowAttention
    torch.manual_seed(1)
    swa = cls(16, [4, 4], list(shift), 4).eval()
    with torch.no_grad():
        if v2:
            swa.logit_scale.uniform_(0.5, 5.0)   # exercise the clamp
        else:
            swa.relative_position_bias_table.normal_()
    x = torch.randn(2, hw[0], hw[1], 16)
    g = R.ShiftedWindowAttentionGPU(swa)
    with torch.no_grad():
        exactness("ShiftedWindowAttentionGPU(%s)" % ("v2" if v2 else "v1"), maxdiff(g(x), swa(x)),
                  2e-6 if v2 else 0.0)


def test_tv_patch_window_attention_refuses_shifted_window_attention():
    """The old matcher took torchvision's ShiftedWindowAttention for a Swin-v1
    WindowAttention and failed (AttributeError: no 'scale'); now it is refused and
    patch_swin swaps it for the right rewrite."""
    m = nn.Sequential(tvs.ShiftedWindowAttention(16, [4, 4], [2, 2], 4))
    assert R.patch_window_attention(m) == 0
    assert R.patch_swin(m) == 1 and isinstance(m[0], R.ShiftedWindowAttentionGPU)


@pytest.mark.parametrize("v2", [False, True])
def test_tv_patch_merging(exactness, v2):
    cls = tvs.PatchMergingV2 if v2 else tvs.PatchMerging
    pm = cls(6).eval()
    with torch.no_grad():
        pm.norm.weight.uniform_(0.5, 1.5)
        pm.norm.bias.uniform_(-1, 1)
    m = nn.Sequential(pm)
    assert R.patch_patch_merging(m) == 1 and m[0].reduction_first == v2
    for shape in ((2, 8, 10, 6), (1, 7, 5, 6)):
        x = torch.randn(*shape)
        with torch.no_grad():
            exactness("PatchMergingGPU(torchvision%s)" % ("V2" if v2 else ""), maxdiff(m[0](x), pm(x)), 0.0)


def test_patch_merging_refuses_unknown_forward():
    class PatchMergingOther(nn.Module):          # a different channel order
        def __init__(self, d):
            super().__init__()
            self.norm, self.reduction = nn.LayerNorm(4 * d), nn.Linear(4 * d, 2 * d)

        def forward(self, x):
            x = torch.cat([x[..., 0::2, 0::2, :], x[..., 0::2, 1::2, :], x[..., 1::2, 0::2, :],
                           x[..., 1::2, 1::2, :]], -1)
            return self.reduction(self.norm(x))
    m = nn.Sequential(PatchMergingOther(4))
    assert R.patch_patch_merging(m) == 0 and isinstance(m[0], PatchMergingOther)


def test_window_attention_refuses_unknown_forward():
    from test_rewrites import SwinWindowAttentionV1

    class NoBias(SwinWindowAttentionV1):         # same attributes, another forward
        def forward(self, x, mask=None):
            return super().forward(x * 2.0, mask)
    m = nn.Sequential(SwinWindowAttentionV1(16, (4, 4), 4), NoBias(16, (4, 4), 4))
    assert R.patch_window_attention(m) == 1
    assert isinstance(m[0], R.WindowAttentionGPU) and isinstance(m[1], NoBias)


def test_torchvision_swin_t(exactness):
    tv = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    ref, got, n = whole_model(tv.models.swin_t(), (torch.randn(1, 3, 224, 224),), R.patch_swin)
    assert n == 12 + 3
    exactness("torchvision swin_t (whole model)", maxdiff(got, ref), 0.0)


def test_torchvision_swin_v2_small_odd(exactness):
    """swin v2 blocks and PatchMergingV2 on a map that needs padding (odd sizes)."""
    torch.manual_seed(0)
    m = tvs.SwinTransformer([4, 4], 24, [2, 2, 2], [2, 2, 2], [4, 4], num_classes=10,
                            block=tvs.SwinTransformerBlockV2, downsample_layer=tvs.PatchMergingV2,
                            stochastic_depth_prob=0.0)
    ref, got, n = whole_model(m, (torch.randn(2, 3, 76, 60),), R.patch_swin)
    assert n == 6 + 2
    exactness("torchvision SwinTransformer v2 (odd map)", maxdiff(got, ref), 1e-5)


timm_swin = pytest.importorskip("timm.models.swin_transformer")


def test_timm_swin(exactness):
    torch.manual_seed(0)
    m = timm_swin.SwinTransformer(embed_dim=48, depths=(2, 2, 2, 2), num_heads=(3, 3, 3, 3),
                                  window_size=7, img_size=224)
    ref, got, n = whole_model(m, (torch.randn(1, 3, 224, 224),), R.patch_swin)
    assert n == 8 + 3
    exactness("timm SwinTransformer (whole model)", maxdiff(got, ref), 0.0)


@pytest.mark.parametrize("fused", [False, True])
def test_timm_swin_block_variants(exactness, fused):
    """padding (map not a multiple of the window), dynamic mask, fused attention."""
    torch.manual_seed(0)
    for dyn in (False, True):
        blk = timm_swin.SwinTransformerBlock(16, (10, 9), num_heads=2, window_size=4, shift_size=2,
                                             always_partition=True, dynamic_mask=dyn).eval()
        blk.attn.fused_attn = fused
        with torch.no_grad():
            blk.attn.relative_position_bias_table.normal_()
        g = R.TimmSwinBlockGPU(blk)
        x = torch.randn(2, 10, 9, 16)
        with torch.no_grad():
            exactness("TimmSwinBlockGPU", maxdiff(g(x), blk(x)), 1e-6 if fused else 0.0)
    pm = timm_swin.PatchMerging(16).eval()
    m = nn.Sequential(pm)
    assert R.patch_patch_merging(m) == 1
    x = torch.randn(2, 9, 7, 16)
    with torch.no_grad():
        exactness("PatchMergingGPU(timm)", maxdiff(m[0](x), pm(x)), 0.0)


# ---- timm packed-QKV Attention ---------------------------------------------------------------

timm_attn = pytest.importorskip("timm.layers.attention")


@pytest.mark.parametrize("fused,qk_norm,scale_norm,gated", [(True, False, False, False),
                                                            (False, False, False, False),
                                                            (True, True, True, True),
                                                            (False, True, False, True)])
def test_timm_attention(exactness, fused, qk_norm, scale_norm, gated):
    torch.manual_seed(0)
    a = timm_attn.Attention(32, num_heads=4, qkv_bias=True, qk_norm=qk_norm, scale_norm=scale_norm,
                            gated=gated, norm_layer=nn.LayerNorm if (qk_norm or scale_norm) else None).eval()
    a.fused_attn = fused
    g = R.PackedQKVAttentionGPU(a)
    x = torch.randn(3, 11, 32)
    mask = torch.randn(3, 1, 11, 11)
    bmask = torch.rand(1, 1, 11, 11) > 0.2
    with torch.no_grad():
        for kw in ({}, {"attn_mask": mask}, {"is_causal": True}, {"attn_mask": bmask}):
            exactness("PackedQKVAttentionGPU (timm Attention)", maxdiff(g(x, **kw), a(x, **kw)), 0.0)


def test_timm_attention_refuses_subclass():
    class Other(timm_attn.Attention):
        def forward(self, x, attn_mask=None, is_causal=False):
            return super().forward(x) * 2
    m = nn.Sequential(Other(16, 2), timm_attn.Attention(16, 2))
    assert R.patch_packed_qkv(m) == 1 and type(m[0]) is Other


def test_timm_vit_and_mobilevit(exactness):
    timm = pytest.importorskip("timm")
    torch.manual_seed(0)
    ref, got, n = whole_model(timm.create_model("vit_tiny_patch16_224"), (torch.randn(1, 3, 224, 224),),
                              R.patch_packed_qkv)
    assert n == 12
    exactness("timm ViT-Tiny (whole model)", maxdiff(got, ref), 0.0)
    ref, got, n = whole_model(timm.create_model("mobilevit_xxs"), (torch.randn(1, 3, 256, 256),),
                              R.patch_packed_qkv)
    assert n == 9
    exactness("timm MobileViT-XXS (whole model)", maxdiff(got, ref), 0.0)


# ---- channel shuffle -----------------------------------------------------------------------------

def test_channel_shuffle(exactness):
    tv = pytest.importorskip("torchvision")
    x = torch.randn(2, 12, 5, 7)
    for g in (2, 3, 4):
        exactness("channel_shuffle4", maxdiff(R.channel_shuffle4(x, g), nn.ChannelShuffle(g)(x)), 0.0)
    m = nn.Sequential(nn.ChannelShuffle(3))
    with R.patch_channel_shuffle(m) as p:
        assert p.count >= 1 and isinstance(m[0], R.ChannelShuffle4)
    torch.manual_seed(0)
    ref, got, _ = whole_model(tv.models.shufflenet_v2_x0_5(), (torch.randn(1, 3, 224, 224),),
                              lambda m: 0, [lambda: R.patch_channel_shuffle()])
    exactness("torchvision ShuffleNetV2 (whole model)", maxdiff(got, ref), 0.0)
    import torchvision.models.shufflenetv2 as sn
    assert sn.channel_shuffle is not R.channel_shuffle4            # restored


# ---- GQA repeat_kv ------------------------------------------------------------------------------

transformers = pytest.importorskip("transformers")


def small_decoder(kind, attn="sdpa"):
    cfg = dict(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
               num_attention_heads=8, num_key_value_heads=2, use_cache=False,
               max_position_embeddings=128)
    if kind == "llama":
        c = transformers.LlamaConfig(**cfg)
        cls = transformers.LlamaForCausalLM
    else:
        c = transformers.Qwen3Config(head_dim=32, **cfg)
        cls = transformers.Qwen3ForCausalLM
    c._attn_implementation = attn
    torch.manual_seed(0)
    return cls(c).eval()


class Logits(nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, ids):
        return self.lm(input_ids=ids, use_cache=False).logits


@pytest.mark.parametrize("kind", ["llama", "qwen3"])
@pytest.mark.parametrize("attn", ["sdpa", "eager"])
def test_gqa_decoders(exactness, kind, attn):
    m = Logits(small_decoder(kind, attn))
    ids = torch.randint(0, 1000, (1, 32), generator=torch.Generator().manual_seed(0))
    m = m.eval()
    with torch.no_grad():
        ref = m(ids)
    n, patches = R.REMEDIES["repeat_kv"].apply(m, (ids,))
    try:
        import transformers.integrations.sdpa_attention as sa
        assert sa.repeat_kv is R.repeat_kv                             # the SDPA path is covered
        with torch.no_grad():
            got = m(ids)
    finally:
        for p in reversed(patches):
            p.restore()
    assert n >= 2
    exactness("repeat_kv remedy (%s, %s)" % (kind, attn), maxdiff(got, ref), 0.0)


def test_sdpa_enable_gqa(exactness):
    q, k, v = torch.randn(2, 8, 6, 16), torch.randn(2, 2, 6, 16), torch.randn(2, 2, 6, 16)
    ref = F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True)
    with R.patch_sdpa_gqa():
        got = F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True)
    exactness("patch_sdpa_gqa", maxdiff(got, ref), 0.0)


# ---- frozen position embeddings ---------------------------------------------------------------------

def small_dinov2():
    c = transformers.Dinov2Config(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=128, image_size=98, patch_size=14)
    torch.manual_seed(0)
    return transformers.Dinov2Model(c).eval()


def small_yolos():
    c = transformers.YolosConfig(hidden_size=64, num_hidden_layers=3, num_attention_heads=4,
                                 intermediate_size=128, image_size=[64, 96], patch_size=16,
                                 num_detection_tokens=5)
    torch.manual_seed(0)
    return transformers.YolosModel(c, add_pooling_layer=False).eval()


class Hidden(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(pixel_values=x).last_hidden_state


@pytest.mark.parametrize("which", ["dinov2", "yolos"])
def test_frozen_pos_embedding(exactness, which):
    m = Hidden(small_dinov2() if which == "dinov2" else small_yolos())
    x = torch.randn(1, 3, 112, 140) if which == "dinov2" else torch.randn(1, 3, 96, 128)
    ref, got, n = whole_model(m, (x,), lambda mm: R.patch_pos_embed_interpolation(mm, (x,)))
    assert n == (1 if which == "dinov2" else 2)
    exactness("patch_pos_embed_interpolation (%s)" % which, maxdiff(got, ref), 0.0)
    # another size: the original computation, still right
    m2 = copy.deepcopy(m)
    R.patch_pos_embed_interpolation(m2, (x,))
    x2 = torch.randn(1, 3, 84, 84) if which == "dinov2" else torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        assert maxdiff(m2(x2), m(x2)) == 0.0


def test_frozen_pos_embedding_refuses_value_dependent():
    class Emb(nn.Module):
        def __init__(self):
            super().__init__()
            self.position_embeddings = nn.Parameter(torch.randn(1, 5, 4))

        def interpolate_pos_encoding(self, embeddings, h, w):
            return self.position_embeddings + embeddings        # depends on the values

        def forward(self, x):
            return self.interpolate_pos_encoding(x, 1, 1)
    m = Emb()
    x = torch.randn(1, 5, 4)
    assert R.patch_pos_embed_interpolation(m, (x,)) == 0
    assert "interpolate_pos_encoding" not in m.__dict__
    assert maxdiff(m(x), m.position_embeddings + x) == 0.0
