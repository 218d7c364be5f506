"""fp16-safe norms, the eps guard, and the padding-mask rewrite (issue 9): each against
PyTorch in fp32, each in half precision (PyTorch's CPU half: every op output rounded to
fp16, as the GPU and gpuclean's fp16 emulation), and the conversions that failed before
(InstanceNorm/GroupNorm at power-of-two sizes, BERT's GATHER_ND, a YOLOS whose zero CLS
row went NaN at fp16)."""
import copy
import math

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python/install-torch.sh)")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gpuclean.rewrites as R  # noqa: E402
from gpuclean.rewrites import norms as N  # noqa: E402


def maxdiff(a, b):
    return (a.double() - b.double()).abs().max().item()


def rows(scale, n=64, seed=0):
    """[3, 5, n] rows at `scale`, with an all-zero row, a constant row and a spiky row
    (scale a power of two: the constant row's mean is exact, so its d is 0 in every
    form; otherwise eps = 1e-12 amplifies the mean's rounding by 1e6 in PyTorch too)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(3, 5, n, generator=g) * scale
    x[0, 0] = 0.0
    x[0, 1] = 7.0 * scale
    x[0, 2] = 0.0
    x[0, 2, 3] = 5.0 * scale
    return x


def _ln(n, eps, affine=True):
    ln = nn.LayerNorm(n, eps=eps, elementwise_affine=affine)
    if affine:
        with torch.no_grad():
            ln.weight.uniform_(0.5, 1.5)
            ln.bias.uniform_(-1, 1)
    return ln


# ---- the safe forms in fp32 --------------------------------------------------------------

@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1e-5, 1e-3])
@pytest.mark.parametrize("scale", [2.0 ** -10, 1.0, 2.0 ** 10])
def test_safe_layer_rms_norm_fp32(exactness, eps, scale):
    x = rows(scale)
    ln = _ln(64, eps)
    with torch.no_grad():
        exactness("SafeLayerNorm(adaptive)", maxdiff(N.SafeLayerNorm(ln)(x), ln(x)), 5e-6)
        exactness("SafeLayerNorm(fixed)", maxdiff(N.SafeLayerNorm(ln, "fixed")(x), ln(x)), 5e-6)
        w = torch.rand(64) + 0.5
        ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
        exactness("safe_rms_norm(adaptive) (rel.)",
                  maxdiff(N.safe_rms_norm(x, w, eps), ref) / max(1.0, ref.abs().max().item()), 5e-6)


@pytest.mark.parametrize("scale", [1e-2, 1.0, 300.0])
@pytest.mark.parametrize("hw", [(32, 32), (48, 48), (7, 5)])
def test_safe_instance_group_norm_fp32(exactness, scale, hw):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 8, *hw, generator=g) * scale
    x[0, 3] = 0.0
    inn = nn.InstanceNorm2d(8, affine=True)
    gn, gn1 = nn.GroupNorm(2, 8), nn.GroupNorm(8, 8)
    with torch.no_grad():
        for m in (inn, gn, gn1):
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-1, 1)
        exactness("SafeInstanceNorm2d", maxdiff(N.SafeInstanceNorm2d(inn)(x), inn(x)), 5e-6)
        exactness("SafeGroupNorm", maxdiff(N.SafeGroupNorm(gn)(x), gn(x)), 5e-6)
        exactness("SafeGroupNorm(G=C)", maxdiff(N.SafeGroupNorm(gn1)(x), gn1(x)), 5e-6)
        exactness("staged_mean (rel.)", maxdiff(N.staged_mean(x, (2, 3)), x.mean((2, 3), keepdim=True)) / scale, 1e-6)


# ---- half precision: what the GPU computes -------------------------------------------------

def _plain_ln_half(x, eps):
    """The plain decomposition litert-torch emits, in half."""
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) * torch.rsqrt(var + eps)


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1e-5])
def test_fp16_zero_rows_and_overflow(exactness, eps):
    """In half: the plain form gives NaN on the zero row once eps underflows and 0 / NaN
    for |x - mean| > 256; the safe forms are finite everywhere and match fp32 PyTorch."""
    x = rows(1.0)
    x[1] = x[1] * 1000.0                                     # squares beyond 65504
    ln = _ln(64, eps, affine=False)
    ref = ln(x)
    plain = _plain_ln_half(x.half(), eps).float()
    if eps < 2 ** -25:                                       # eps is 0 in half
        assert torch.isnan(plain[0, 0]).all()
    assert not torch.isfinite(plain[1]).all() or maxdiff(plain[1], ref[1]) > 0.5
    with torch.no_grad():
        safe = N.SafeLayerNorm(copy.deepcopy(ln).half())(x.half()).float()
        assert torch.isfinite(safe).all()
        exactness("SafeLayerNorm in half (max |d|)", maxdiff(safe, ref), 2e-2)
        rms = N.safe_rms_norm(x.half(), None, eps).float()
        rref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        assert torch.isfinite(rms).all()
        exactness("safe_rms_norm in half (max |d|)", maxdiff(rms, rref), 2e-2)
        guard = N.GuardedNorm(ln, N.norm_spec(ln))
        gh = guard(x[:1].half()).float()                     # no overflow rows: the guard's job
        assert torch.isfinite(gh).all() and (gh[0, 0] == 0).all()
        exactness("GuardedNorm in half (max |d|)", maxdiff(gh, ref[:1]), 2e-2)


def _constants(mod, x):
    """Every float scalar and constant tensor value the exported graph of mod(x) uses."""
    ep = torch.export.export(mod.eval(), (x,))
    vals = []
    for node in ep.graph.nodes:
        for a in list(node.args) + list(node.kwargs.values()):
            if isinstance(a, float):
                vals.append(a)
    for t in list(ep.constants.values()):
        if torch.is_tensor(t) and t.is_floating_point():
            vals.extend(t.flatten().tolist())
    return [v for v in vals if v != 0.0 and math.isfinite(v)]


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1e-5, 1e-3])
def test_no_constant_below_fp16_normal(eps):
    """(a): no constant of the safe forms is below 2^-14 (fp16's smallest normal)."""
    x = torch.randn(2, 4, 64)
    mods = [N.SafeLayerNorm(_ln(64, eps)), N.SafeLayerNorm(_ln(64, eps), "fixed"),
            N.SafeRMSNorm(nn.RMSNorm(64, eps=eps))]
    for m in mods:
        small = [v for v in _constants(m, x) if abs(v) < N.FP16_TINY]
        assert not small, "%s eps=%g: constants below 2^-14: %s" % (type(m).__name__, eps, small)
    # the guard keeps eps itself (that is its exactness); the cap, not eps, keeps a zero
    # row finite in fp16, and nothing else is small
    ln = _ln(64, eps)
    small = [v for v in _constants(N.GuardedNorm(ln, N.norm_spec(ln)), x) if abs(v) < N.FP16_TINY]
    assert small in ([], [eps]), small
    xi = torch.randn(1, 8, 16, 16)
    for m in (N.SafeInstanceNorm2d(nn.InstanceNorm2d(8, eps=eps)), N.SafeGroupNorm(nn.GroupNorm(2, 8, eps=eps))):
        assert not [v for v in _constants(m, xi) if abs(v) < N.FP16_TINY]


# ---- matchers: subclasses, probe-verified -----------------------------------------------------

def test_matchers_take_subclasses():
    timm_layers = pytest.importorskip("timm.layers")
    from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    class OwnEps(nn.LayerNorm):                     # ignores self.eps: not a LayerNorm of eps
        def forward(self, x):
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, 1e-2)

    class T5Like(nn.Module):                        # the HF (weight, variance_epsilon) layout
        def __init__(self, d):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))
            self.variance_epsilon = 1e-6

        def forward(self, h):
            v = h.to(torch.float32).pow(2).mean(-1, keepdim=True)
            return self.weight * (h * torch.rsqrt(v + self.variance_epsilon))
    kinds = {type(m).__name__: (N.norm_spec(m) or {}) for m in (
        timm_layers.LayerNorm(32), timm_layers.LayerNorm2d(32), timm_layers.RmsNorm(32),
        nn.RMSNorm(32), LlamaRMSNorm(32), GemmaRMSNorm(32), T5Like(32), nn.GroupNorm(4, 32), OwnEps(32))}
    assert kinds["LayerNorm"]["layout"] == "last" and kinds["LayerNorm2d"]["layout"] == "first"
    assert kinds["RmsNorm"]["kind"] == kinds["RMSNorm"]["kind"] == kinds["T5Like"]["kind"] == "rms"
    assert kinds["RMSNorm"]["eps"] is None                       # finfo eps at run time
    assert kinds["LlamaRMSNorm"]["offset"] == 0.0 and kinds["GemmaRMSNorm"]["offset"] == 1.0
    assert kinds["GroupNorm"]["groups"] == 4
    assert kinds["OwnEps"] == {}                                 # the probe refuses it

    net = nn.Sequential(nn.Conv2d(3, 32, 1), timm_layers.LayerNorm2d(32), nn.GroupNorm(4, 32),
                        nn.InstanceNorm2d(32, affine=True), nn.Flatten(2), nn.Linear(12, 32),
                        timm_layers.LayerNorm(32), OwnEps(32), LlamaRMSNorm(32), GemmaRMSNorm(32),
                        T5Like(32), nn.RMSNorm(32)).eval()
    x = torch.randn(2, 3, 3, 4) * 40
    with torch.no_grad():
        ref = net(x)
        counts = R.patch_fp16_norms(net)
        assert counts == {"layernorm": 2, "rmsnorm": 4, "groupnorm": 1, "instancenorm": 1}, counts
        assert type(net[7]) is OwnEps
        assert maxdiff(net(x), ref) < 5e-6 * max(1.0, ref.abs().max().item())


# ---- the eps guard / raise (fp16_eps) ----------------------------------------------------------

def test_fp16_eps_guard_exact_and_raise_bound(exactness):
    from transformers.models.llama.modeling_llama import LlamaRMSNorm
    net = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32, eps=1e-12), nn.GELU(),
                        LlamaRMSNorm(32, eps=1e-6), nn.LayerNorm(32, eps=1e-3)).eval()
    x = torch.randn(6, 16) * torch.logspace(-4, 1, 6)[:, None]
    x[0] = 0.0
    with torch.no_grad():
        ref = net(x)
        g = copy.deepcopy(net)
        report = []
        assert R.patch_fp16_eps(g, report=report) == 2
        assert [r[-1] for r in report] == ["guard", "guard"]
        exactness("fp16_eps guard", maxdiff(g(x), ref), 1e-6)
        # raise: eps -> 2^-14; per row of a LayerNorm, |change| / |y| <= (eps' - eps) / (2 var)
        ln = nn.LayerNorm(32, eps=1e-12, elementwise_affine=False)
        xr = torch.randn(8, 32).double() * torch.logspace(-3, 1, 8).double()[:, None]
        wrap = nn.Sequential(copy.deepcopy(ln).double())
        assert R.patch_fp16_eps(wrap, mode="raise") == 1 and wrap[0].eps == N.FP16_TINY
        var = xr.var(-1, unbiased=False)
        rel = ((wrap(xr) - ln.double()(xr)).abs().amax(-1) / ln.double()(xr).abs().amax(-1))
        assert (rel <= (N.FP16_TINY - 1e-12) / (2 * var) * (1 + 1e-9)).all()
        assert rel[0] > 1e-2                                     # var ~ 1e-6: a visible change


def test_fp16_eps_half_zero_row():
    """The YOLOS failure in miniature: a zero row through LayerNorm(eps=1e-12) in half."""
    ln = nn.LayerNorm(16, eps=1e-12).half().eval()
    x = torch.randn(3, 16).half()
    x[0] = 0
    plain = _plain_ln_half(x, ln.eps)
    assert torch.isnan(plain[0]).all()
    m = nn.Sequential(copy.deepcopy(ln).float())
    R.patch_fp16_eps(m)
    with torch.no_grad():
        y = m.half()(x)
    assert torch.isfinite(y).all() and torch.equal(y[0], ln.bias.data)


# ---- padding mask (BERT's GATHER_ND) -----------------------------------------------------------

def test_padding_mask_bit_identical():
    mu = pytest.importorskip("transformers.masking_utils")
    g = torch.Generator().manual_seed(0)
    for b, t, kvl, off in [(1, 32, 32, 0), (2, 7, 7, 0), (3, 10, 6, 4), (2, 5, 8, 0)]:
        am = torch.rand(b, t, generator=g) > 0.3
        for fn in (mu.causal_mask_function, mu.bidirectional_mask_function):
            for vmap in (False, True):
                kw = dict(batch_size=b, q_length=kvl, kv_length=kvl, kv_offset=off, mask_function=fn,
                          attention_mask=am, allow_is_causal_skip=False, use_vmap=vmap)
                ref = mu.sdpa_mask(**kw)
                with R.patch_padding_mask() as p:
                    got = mu.sdpa_mask(**kw)
                assert torch.equal(ref, got)
                # padded to max(t, kvl + off) columns: the reshape form when that is kvl
                assert p.count == (1 if (not vmap and off == 0 and t <= kvl) else 0)
    assert mu.padding_mask_function.__module__ == "transformers.masking_utils"   # restored
    # indices that are not the aranges fall back to the indexing
    pm = torch.tensor([[True, False, True]])
    kv = torch.tensor([2, 1, 0]).reshape(1, 1, 1, 3)
    assert N is not None and R.padding_mask_reshape(pm, torch.zeros(1, 1, 1, 1, dtype=torch.long), kv) is None


# ---- conversions -------------------------------------------------------------------------------

def _convert(model, xs, path):
    pytest.importorskip("litert_torch", reason="litert-torch is not installed")
    from gpuclean.convert import convert_plain
    convert_plain(model.eval(), xs, str(path))
    return str(path)


def _ops_and_check(path):
    from gpuclean._lib import GpucleanError
    from gpuclean.core import Model
    with Model(path) as m:
        ins = m.inspect()
        try:
            chk = m.check()
        except (NotImplementedError, GpucleanError):
            chk = None
    ops = {}
    for sg in ins["subgraphs"]:
        for o in sg["ops"]:
            ops[o["op"]] = ops.get(o["op"], 0) + 1
    return ops, chk


def _interp(path, xs, prec):
    from gpuclean.core import Interpreter, Model
    with Model(path) as m, Interpreter(m, prec) as it:
        return it(*[x.numpy() for x in xs])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["instance", "group"])
@pytest.mark.parametrize("hw", [32, 64, 48])
def test_instance_group_norm_convert_to_builtins(tmp_path, gclib, kind, hw):
    """(3): the pool-chain form became a StableHLO graph (0 nodes on the GPU); the staged
    MEAN + REDUCE_MAX form stays TFLite builtins and GPU-clean at every size."""
    import numpy as np
    torch.manual_seed(0)
    norm = nn.InstanceNorm2d(8, affine=True) if kind == "instance" else nn.GroupNorm(2, 8)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), norm, nn.ReLU()).eval()
    x = torch.randn(1, 3, hw, hw, generator=torch.Generator().manual_seed(hw)) * 30
    with torch.no_grad():
        ref = net(x).numpy()
    assert sum(R.patch_fp16_norms(net).values()) == 1
    ops, chk = _ops_and_check(_convert(net, (x,), tmp_path / "m.tflite"))
    assert not [o for o in ops if o.startswith("STABLEHLO")], ops
    if chk is not None:
        assert chk["summary"]["gpu_clean"], chk["summary"]
    for prec, tol in (("fp32", 1e-4), ("fp16", 2e-2)):
        got = _interp(str(tmp_path / "m.tflite"), (x,), prec)[0].reshape(ref.shape)
        assert np.isfinite(got).all() and np.abs(got - ref).max() <= tol * max(1.0, np.abs(ref).max()), prec


def test_bert_padding_mask_gpu_clean(tmp_path, gclib):
    """(4): BERT's only rejected node is the mask GATHER_ND; with patch_padding_mask the
    checker finds it GPU-clean and the outputs are identical."""
    import numpy as np
    tr = pytest.importorskip("transformers")
    torch.manual_seed(0)
    cfg = tr.BertConfig(vocab_size=1000, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    cfg._attn_implementation = "sdpa"

    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = tr.BertModel(cfg, add_pooling_layer=False)

        def forward(self, ids, mask):
            return self.net(input_ids=ids, attention_mask=mask).last_hidden_state
    net = Enc().eval()
    ids = torch.randint(0, 1000, (1, 16), generator=torch.Generator().manual_seed(0), dtype=torch.int32)
    mask = torch.ones(1, 16, dtype=torch.int32)
    mask[:, 12:] = 0
    with torch.no_grad():
        ref = net(ids, mask)
        with R.patch_padding_mask() as p:
            got = net(ids, mask)
            assert p.count >= 1 and torch.equal(got, ref)
            path = _convert(net, (ids, mask), tmp_path / "bert.tflite")
    ops, chk = _ops_and_check(path)
    assert "GATHER_ND" not in ops, ops
    if chk is not None:
        assert chk["summary"]["gpu_clean"], chk["summary"]
    out = _interp(path, (ids, mask), "fp32")[0].reshape(ref.shape)
    assert np.abs(out - ref.numpy()).max() <= 1e-4 * max(1.0, ref.abs().max().item())


@pytest.mark.slow
def test_yolos_zero_cls_row_fp16(tmp_path, gclib):
    """(1): a small random-init YOLOS: its all-zero CLS / detection rows make the plain
    conversion NaN at fp16 (eps 1e-12 is 0 in half); after fp16_eps no NaN and fp16 parity."""
    import numpy as np
    tr = pytest.importorskip("transformers")
    from gpuclean.convert import parity
    torch.manual_seed(0)
    cfg = tr.YolosConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                         image_size=[64, 64], patch_size=16, num_detection_tokens=5, num_labels=3,
                         use_mid_position_embeddings=False)
    cfg._attn_implementation = "sdpa"

    class Det(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = tr.YolosForObjectDetection(cfg)

        def forward(self, x):
            o = self.net(pixel_values=x)
            return o.logits, o.pred_boxes
    net = Det().eval()
    x = torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        ref = [t.numpy() for t in net(x)]
    plain = _convert(copy.deepcopy(net), (x,), tmp_path / "plain.tflite")
    assert any(np.isnan(o).any() for o in _interp(plain, (x,), "fp16"))
    fixed = copy.deepcopy(net)
    assert R.patch_fp16_eps(fixed) == 2 * 2 + 1
    path = _convert(fixed, (x,), tmp_path / "eps.tflite")
    for prec, bar in (("fp32", 0.9999), ("fp16", 0.999)):
        outs = _interp(path, (x,), prec)
        assert not any(np.isnan(o).any() for o in outs), prec
        assert parity(outs[0], ref[0])["corr"] >= bar, (prec, parity(outs[0], ref[0]))
