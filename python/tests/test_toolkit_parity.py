"""API parity with the seed's litert_gpu_toolkit (google-ai-edge/litert-samples
utilities/litert_gpu_toolkit, and open PR #307): every public name from the same module
path; the call forms of the seed's README, skill and model-recipe snippets, written here
as our own code with the same calls on small models built in the test; the seed's return
shapes; the exact defaults; the seed's math-changing forms (opt-in) with their measured
error asserted as a bound and quoted in the docstring that documents it. Three litert-torch
conversions in this file (the README's convert_for_gpu snippet; a hostile model before and
after the exact patches)."""
import os
import sys
import types

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# ---- the seed's public API, by module path ------------------------------------------------

SEED_ALL = ["convert_for_gpu", "apply_all_patches", "check_gpu_compatibility", "SafeInstanceNorm2d",
            "SigmoidGELU", "TanhGELU", "ZeroPadMaxPool", "ZeroStuffConvT1d", "ZeroStuffConvT2d",
            "hierarchical_mean", "patch_conv_transpose", "patch_gelu", "patch_grid_sample",
            "patch_instance_norm", "patch_maxpool_zeropad", "patch_rmsnorm", "patch_safe_layernorm",
            "pixelshuffle_to_conv_transpose", "safe_rms"]
SEED_PATCHES = ["SigmoidGELU", "TanhGELU", "patch_gelu", "restore_gelu", "patch_deformable_conv",
                "patch_interpolate", "restore_interpolate", "patch_window_attention", "patch_patch_merging",
                "ManualGroupNorm", "patch_groupnorm", "patch_weight_standardization", "patch_normalize",
                "restore_normalize", "SigmoidSwish", "patch_swish", "patch_einops", "patch_grid_sample",
                "restore_grid_sample", "patch_safe_layernorm", "ZeroStuffConvT1d", "ZeroStuffConvT2d",
                "pixelshuffle_to_conv_transpose", "patch_conv_transpose", "ZeroPadMaxPool",
                "patch_maxpool_zeropad", "hierarchical_mean", "SafeInstanceNorm2d", "patch_instance_norm",
                "safe_rms", "patch_rmsnorm", "apply_all_patches"]
SEED_CHECKER = ["check_gpu_compatibility", "print_report"]
PR307_CHECKER = ["bisect_gpu_divergence", "print_bisect_report", "_main"]
SEED_CONVERTER = ["convert_for_gpu"]


@pytest.fixture(autouse=True)
def _no_global_patch_leaks():
    yield
    from litert_gpu_toolkit.patches import restore_all
    restore_all()


def g(seed):
    return torch.Generator().manual_seed(seed)


def maxdiff(a, b):
    return (a.double() - b.double()).abs().max().item()


def test_every_seed_name_from_its_module_path():
    import importlib
    for mod, names in (("litert_gpu_toolkit", SEED_ALL), ("litert_gpu_toolkit.patches", SEED_PATCHES),
                       ("litert_gpu_toolkit.checker", SEED_CHECKER + PR307_CHECKER),
                       ("litert_gpu_toolkit.converter", SEED_CONVERTER)):
        m = importlib.import_module(mod)
        missing = [n for n in names if not hasattr(m, n)]
        assert not missing, (mod, missing)
        for n in names:
            assert callable(getattr(m, n)), (mod, n)
    import litert_gpu_toolkit as t
    assert t.__all__[:19] == SEED_ALL
    # `from litert_gpu_toolkit import *` gives every seed name
    ns = {}
    exec("from litert_gpu_toolkit import *", ns)
    assert set(SEED_ALL) <= set(ns)
    # the package-level names are the patches module's objects
    from litert_gpu_toolkit import patches
    for n in SEED_ALL[3:]:
        if n != "check_gpu_compatibility":
            assert getattr(t, n) is getattr(patches, n), n


# ---- the README's snippet: one real conversion ----------------------------------------------

@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    pytest.importorskip("litert_torch")
    from gpuclean._lib import GpucleanError, lib
    try:
        lib()
    except GpucleanError as e:
        pytest.skip(str(e))
    from litert_gpu_toolkit import convert_for_gpu
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GELU(), nn.Conv2d(8, 4, 1)).train()
    out = str(tmp_path_factory.mktemp("readme") / "model.tflite")
    path = convert_for_gpu(
        model,                                    # nn.Module, will be set to eval()
        dummy_input=torch.randn(1, 3, 16, 16),
        output_path=out,
    )
    return model, path


def test_readme_convert_for_gpu(converted):
    model, path = converted
    assert isinstance(path, str) and os.path.exists(path) and path.endswith("model.tflite")
    assert not model.training                                       # "will be set to eval()"
    assert isinstance(model[1], nn.GELU)                            # the caller's model is not rewritten
    assert path.report["ok"] and path.report["gpu_clean"]
    assert path.check["status"] == "unverified" and path.check["compatible"] is False   # no GPU here


def test_skill_and_yolo_readme_snippets(converted, capsys):
    _, path = converted
    from litert_gpu_toolkit import check_gpu_compatibility, print_report       # the skill
    print_report(check_gpu_compatibility(path))
    out = capsys.readouterr().out
    assert "Status: UNVERIFIED" in out and "5/5 nodes" in out
    from litert_gpu_toolkit.checker import check_gpu_compatibility as c2, print_report as p2   # reachy YOLO
    p2(c2(path))
    assert "LiteRT CompiledModel GPU Verification Report" in capsys.readouterr().out


def test_converter_contract(monkeypatch, tmp_path):
    """The seed's converter contract (what PR #313 asserted with mocks): returns the path,
    sets eval mode, checks once with check=True and not at all with check=False, positional
    form (model, dummy_input, output_path, check, verbose)."""
    import gpuclean.convert as gc
    import gpuclean.toolkit as tk
    from litert_gpu_toolkit.converter import convert_for_gpu
    calls = {"convert": 0, "check": 0}

    def fake_convert(model, sample_inputs, out_path, check=True, verbose=False, **kw):
        calls["convert"] += 1
        calls["inputs"] = sample_inputs
        open(out_path, "wb").write(b"x")
        return {"ok": True}

    def fake_check(p, **kw):
        calls["check"] += 1
        return {"compatible": True, "status": "verified", "errors": [], "warnings": [], "signatures": {}}
    monkeypatch.setattr(gc, "convert_for_gpu", fake_convert)
    monkeypatch.setattr(tk, "check_gpu_compatibility", fake_check)
    m = nn.Linear(4, 4).train()
    x = torch.randn(1, 4)
    p = convert_for_gpu(m, x, str(tmp_path / "a.tflite"), False, False)
    assert p == str(tmp_path / "a.tflite") and isinstance(p, str) and not m.training
    assert calls == {"convert": 1, "check": 0, "inputs": x} and p.check is None
    p = convert_for_gpu(m, (x,), output_path=str(tmp_path / "b.tflite"), check=True, verbose=False)
    assert calls["check"] == 1 and p.check["compatible"] and p.report == {"ok": True}


# ---- model-recipe snippets -----------------------------------------------------------------

def test_recipe_resnet_stem_zero_pad_maxpool():
    """PlantNet / Places365 / gaze recipes: `net.maxpool = ZeroPadMaxPool()` on a ResNet."""
    tv = pytest.importorskip("torchvision.models")
    from litert_gpu_toolkit import ZeroPadMaxPool
    torch.manual_seed(0)
    net = tv.resnet18(num_classes=1081).eval()
    x = torch.randn(1, 3, 224, 224, generator=g(0))
    with torch.no_grad():
        ref = net(x)
        stem = net.relu(net.bn1(net.conv1(x)))
        net.maxpool = ZeroPadMaxPool()
        assert tuple(net.maxpool(stem).shape[-2:]) == (56, 56)          # 112 -> 56 (stride 2)
        assert maxdiff(net(x), ref) == 0.0


def test_recipe_swap_every_maxpool_loop():
    """UFLD / YOLACT / BiSeNet / SINet recipes: setattr every nn.MaxPool2d to ZeroPadMaxPool()."""
    from litert_gpu_toolkit.patches import ZeroPadMaxPool
    net = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
                        nn.Sequential(nn.Conv2d(8, 8, 3, 1, 1), nn.MaxPool2d(3, 2, 1))).eval()
    x = torch.randn(1, 3, 64, 80, generator=g(1))
    ref = net(x)
    for name, m in list(net.named_modules()):
        if isinstance(m, nn.MaxPool2d):
            p = net
            *path, last = name.split(".")
            for q in path:
                p = getattr(p, q)
            setattr(p, last, ZeroPadMaxPool())
    assert sum(isinstance(m, ZeroPadMaxPool) for m in net.modules()) == 2
    assert maxdiff(net(x), ref) == 0.0          # the second pool sees signed input: exact anyway


def test_recipe_vae_probe_calls():
    """Z-Image VAE probe: patch_gelu(model); patch_swish(model); patch_interpolate()."""
    from litert_gpu_toolkit.patches import patch_gelu, patch_interpolate, patch_swish

    class Dec(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.act, self.c2, self.g = nn.Conv2d(4, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 3, 1), nn.GELU()

        def forward(self, z):
            y = F.interpolate(self.act(self.c1(z)), scale_factor=2.0, mode="nearest")
            return self.c2(self.g(y))
    torch.manual_seed(0)
    model = Dec().eval()
    z = torch.randn(1, 4, 8, 8, generator=g(2))
    ref = model(z)
    assert patch_gelu(model) == 1 and patch_swish(model) == 1
    assert patch_interpolate() is True
    assert maxdiff(model(z), ref) < 1e-5


def test_docstring_pixelshuffle_swap_then_conv_transpose():
    """`head.upsample = pixelshuffle_to_conv_transpose(r, c_out)`, then patch_conv_transpose."""
    from litert_gpu_toolkit import patch_conv_transpose, pixelshuffle_to_conv_transpose
    from litert_gpu_toolkit.patches import ZeroStuffConvT2d
    head = nn.Sequential(nn.Conv2d(3, 4 * 9, 3, padding=1), nn.PixelShuffle(3))
    x = torch.randn(1, 3, 8, 8, generator=g(3))
    ref = head(x)
    head[1] = pixelshuffle_to_conv_transpose(3, 4)
    assert maxdiff(head(x), ref) == 0.0
    assert patch_conv_transpose(head, x) == 1 and isinstance(head[1], ZeroStuffConvT2d)
    assert maxdiff(head(x), ref) < 1e-6


def test_seed_conftest_imports():
    from litert_gpu_toolkit.patches import (restore_gelu, restore_grid_sample,  # noqa: F401
                                            restore_interpolate, restore_normalize)
    for f in (restore_gelu, restore_grid_sample, restore_interpolate, restore_normalize):
        assert f() is None                      # restoring with nothing patched is fine


# ---- the seed's math-changing forms: opt-in, measured, documented ----------------------------

class _Swish2(nn.Module):                       # a Swish-beta (beta = 2) named like the seed's target
    def forward(self, x):
        return x * torch.sigmoid(2.0 * x)


_Swish2.__name__ = "Swish"


class DeformableConv2d(nn.Module):
    """BiRefNet-style deformable conv (torchvision.ops.deform_conv2d, modulated)."""

    def __init__(self, cin, cout, k=3, stride=1, padding=1):
        super().__init__()
        self.stride, self.padding = (stride, stride), padding
        self.offset_conv = nn.Conv2d(cin, 2 * k * k, k, stride, padding)
        self.modulator_conv = nn.Conv2d(cin, k * k, k, stride, padding)
        self.regular_conv = nn.Conv2d(cin, cout, k, stride, padding)

    def forward(self, x):
        import torchvision.ops
        off = self.offset_conv(x)
        mod = 2.0 * torch.sigmoid(self.modulator_conv(x))
        return torchvision.ops.deform_conv2d(x, off, self.regular_conv.weight, self.regular_conv.bias,
                                             stride=self.stride, padding=self.padding, mask=mod)


class GemmaRMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(d, generator=g(5)) * 0.1)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * (1.0 + self.weight)


class StdConv2d(nn.Conv2d):
    """timm-style weight standardisation: biased variance, eps 1e-6."""

    def __init__(self, *a, eps=1e-6, **k):
        super().__init__(*a, **k)
        self.eps = eps

    def forward(self, x):
        w = F.batch_norm(self.weight.reshape(1, self.out_channels, -1), None, None, training=True,
                         momentum=0.0, eps=self.eps).reshape_as(self.weight)
        return F.conv2d(x, w, self.bias, self.stride, self.padding, self.dilation, self.groups)


def _gelu_err(form):
    from litert_gpu_toolkit.patches import patch_gelu, restore_gelu
    x = torch.linspace(-10, 10, 20001)
    m = nn.Sequential(nn.GELU())
    n = patch_gelu(m, form)
    restore_gelu()
    assert n == 1
    return maxdiff(m(x), F.gelu(x.double()))


def _swish_seed_err():
    from litert_gpu_toolkit.patches import patch_swish
    x = torch.linspace(-10, 10, 20001)
    m = nn.Sequential(_Swish2())
    ref = m(x)
    assert patch_swish(m) == 0                   # exact default: not x*sigmoid(x), left alone
    assert patch_swish(m, exact=False) == 1
    return maxdiff(m(x), ref)


def _deformable_seed_err():
    pytest.importorskip("torchvision")
    from litert_gpu_toolkit.patches import patch_deformable_conv
    torch.manual_seed(0)
    m = nn.Sequential(DeformableConv2d(4, 8))
    x = torch.randn(1, 4, 16, 16, generator=g(1))
    ref = m(x).detach()
    assert patch_deformable_conv(m) == 0         # offsets are not zero: left
    assert patch_deformable_conv(m, exact=False) == 1 and type(m[0]) is nn.Conv2d
    return maxdiff(m(x), ref)


def _interp_seed_err():
    from litert_gpu_toolkit.patches import patch_interpolate, restore_interpolate
    x = torch.randn(1, 3, 16, 16, generator=g(0))
    ref = F.interpolate(x, size=(32, 32), mode="bilinear", align_corners=True)
    patch_interpolate(exact=False)
    got = F.interpolate(x, size=(32, 32), mode="bilinear", align_corners=True)
    restore_interpolate()
    return maxdiff(got, ref)


def _grid_seed_err(mode, padding_mode):
    from litert_gpu_toolkit.patches import patch_grid_sample, restore_grid_sample
    x = torch.randn(1, 4, 8, 8, generator=g(0))
    grid = torch.rand(1, 6, 6, 2, generator=g(1)) * 2.4 - 1.2
    ref = F.grid_sample(x, grid, mode=mode, padding_mode=padding_mode, align_corners=False)
    patch_grid_sample(exact=False)
    got = F.grid_sample(x, grid, mode=mode, padding_mode=padding_mode, align_corners=False)
    restore_grid_sample()
    return maxdiff(got, ref)


def _normalize_seed_err():
    from litert_gpu_toolkit.patches import patch_normalize, restore_normalize
    x = torch.randn(4, 16, generator=g(0))
    ref = F.normalize(x, p=1, dim=1)
    patch_normalize(exact=False)
    got = F.normalize(x, p=1, dim=1)
    restore_normalize()
    return maxdiff(got, ref)


def _maxpool_seed_err():
    from litert_gpu_toolkit.patches import ZeroPadMaxPool
    x = torch.randn(1, 4, 16, 16, generator=g(0))
    return maxdiff(ZeroPadMaxPool(exact=False)(x), nn.MaxPool2d(3, 2, 1)(x))


def _rms_seed_err():
    from litert_gpu_toolkit.patches import patch_rmsnorm
    x = torch.randn(2, 5, 16, generator=g(0))
    m = nn.Sequential(GemmaRMSNorm(16))
    ref = m(x).detach()
    assert patch_rmsnorm(m, exact=False) == 1
    return maxdiff(m(x), ref)


def _ws_seed_err():
    from litert_gpu_toolkit.patches import patch_weight_standardization
    torch.manual_seed(0)
    m = nn.Sequential(StdConv2d(3, 8, 3, padding=1))
    x = torch.randn(1, 3, 9, 9, generator=g(0))
    ref = m(x).detach()
    assert patch_weight_standardization(m, exact=False) == 1
    return maxdiff(m(x), ref)


def _ln_v2_seed_err():
    from litert_gpu_toolkit.patches import patch_safe_layernorm, restore_layernorm
    ln = nn.LayerNorm(16)
    x = 1000.0 + 0.3 * torch.randn(2, 16, generator=g(0))          # |x| ~ 1000, std 0.3
    ref = F.layer_norm(x.double(), (16,), eps=ln.eps)
    assert patch_safe_layernorm(scale="adaptive_v2", exact=False) is True
    got = ln(x)
    restore_layernorm()
    return maxdiff(got, ref)


def _doc(name):
    import gpuclean.toolkit_patches as tp
    return getattr(tp, name).__doc__


# (what, measure, documented bound, where the number is documented)
OPT_IN = [
    ("GELU sigmoid", lambda: _gelu_err("sigmoid"), "0.0204", ["SigmoidGELU", "patch_gelu"]),
    ("GELU tanh", lambda: _gelu_err("tanh"), "4.8e-4", ["TanhGELU", "patch_gelu"]),
    ("Swish by name (beta 2)", _swish_seed_err, "0.21", ["patch_swish"]),
    ("deformable offsets dropped", _deformable_seed_err, "2.5", ["patch_deformable_conv"]),
    ("align_corners forced False", _interp_seed_err, "1.11", ["patch_interpolate"]),
    ("grid_sample nearest as bilinear", lambda: _grid_seed_err("nearest", "zeros"), "1.24", ["patch_grid_sample"]),
    ("grid_sample border as zeros", lambda: _grid_seed_err("bilinear", "border"), "1.39", ["patch_grid_sample"]),
    ("normalize p=1 as L2", _normalize_seed_err, "0.47", ["patch_normalize"]),
    ("max pool zero pad, signed input", _maxpool_seed_err, "1.13", ["ZeroPadMaxPool"]),
    ("RMSNorm by name (Gemma 1+w)", _rms_seed_err, "2.92", ["patch_rmsnorm"]),
    ("weight standardisation seed formula", _ws_seed_err, "0.293", ["patch_weight_standardization"]),
    ("LayerNorm adaptive_v2 eps*S^2", _ln_v2_seed_err, "0.953", ["patch_safe_layernorm"]),
]


@pytest.mark.parametrize("what,measure,bound,where", OPT_IN, ids=[o[0] for o in OPT_IN])
def test_seed_form_error_measured_and_documented(what, measure, bound, where, exactness):
    d = measure()
    exactness("seed form: " + what, d, float(bound))       # asserts d <= bound
    assert d > float(bound) / 2, "%s: %.3g, far below the documented %s: update the docs" % (what, d, bound)
    for name in where:
        assert bound in _doc(name), (name, bound)
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
    assert bound in open(readme).read(), ("python/README.md", what, bound)


# ---- exact defaults ------------------------------------------------------------------------

def test_gelu_default_exact_and_global_rebind():
    from litert_gpu_toolkit.patches import ErfGELU, SigmoidGELU, TanhGELU, patch_gelu, restore_gelu

    class GELUActivation(nn.Module):             # Hugging Face's class name, erf GELU
        def forward(self, x):
            return F.gelu(x)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.g1, self.g2, self.sub = nn.GELU(), nn.GELU(approximate="tanh"), nn.Sequential(GELUActivation())
    m = Model()
    orig = F.gelu
    assert patch_gelu(m) == 3 and F.gelu is not orig
    assert isinstance(m.g1, ErfGELU) and isinstance(m.g2, TanhGELU) and isinstance(m.sub[0], ErfGELU)
    x = torch.linspace(-10, 10, 2001)
    assert maxdiff(m.g1(x), F.gelu(x.double())) <= 4.7e-7
    assert maxdiff(m.g2(x), torch.nn.functional.gelu(x.double(), approximate="tanh")) <= 1e-6
    assert _gelu_err("erf") <= 4.7e-7                      # the number in erf_gelu's docstring
    patch_gelu(nn.Sequential(), approximation="sigmoid")   # the seed's form: F.gelu rebound
    assert F.gelu is not orig and maxdiff(F.gelu(x), SigmoidGELU()(x)) == 0.0
    restore_gelu()
    assert F.gelu is orig
    assert patch_gelu(nn.Sequential(nn.GELU()), approximate="tanh") == 1       # alias spelling
    with pytest.raises(ValueError):
        patch_gelu(nn.Sequential(), "cubic")


def test_swish_inplace_residual_kept():
    from litert_gpu_toolkit.patches import SigmoidSwish, patch_swish

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.SiLU(inplace=True)

        def forward(self, x):
            x = x * 1.0
            y = self.act(x)          # overwrites x
            return x + y             # = 2 silu(x)
    m = Block()
    x = torch.randn(64, generator=g(0))
    ref = m(x)
    assert patch_swish(m) == 1 and isinstance(m.act, SigmoidSwish) and m.act.inplace
    assert maxdiff(m(x), ref) < 1e-6
    assert maxdiff(SigmoidSwish()(x), F.silu(x)) < 1e-6


def test_deformable_zero_offsets_swapped_exactly():
    pytest.importorskip("torchvision")
    from litert_gpu_toolkit.patches import patch_deformable_conv
    d = DeformableConv2d(4, 8)
    with torch.no_grad():
        for c in (d.offset_conv, d.modulator_conv):
            c.weight.zero_()
            c.bias.zero_()
    m = nn.Sequential(d)
    x = torch.randn(1, 4, 16, 16, generator=g(1))
    ref = m(x).detach()
    assert patch_deformable_conv(m) == 1 and type(m[0]) is nn.Conv2d
    assert maxdiff(m(x), ref) < 1e-5


def test_function_patches_exact_defaults():
    from litert_gpu_toolkit.patches import (patch_grid_sample, patch_interpolate, patch_normalize,
                                            restore_grid_sample, restore_interpolate, restore_normalize)
    x = torch.randn(1, 3, 16, 16, generator=g(0))
    ref_bl = F.interpolate(x, size=(32, 32), mode="bilinear", align_corners=True)
    ref_bc = F.interpolate(x, size=(24, 40), mode="bicubic", align_corners=False)
    assert patch_interpolate() is True
    assert maxdiff(F.interpolate(x, size=(32, 32), mode="bilinear", align_corners=True), ref_bl) == 0.0
    assert maxdiff(F.interpolate(x, size=(24, 40), mode="bicubic", align_corners=False), ref_bc) < 1e-5
    restore_interpolate()
    v = torch.randn(1, 4, 8, 8, generator=g(0))
    grid = torch.rand(1, 6, 6, 2, generator=g(1)) * 2.4 - 1.2
    refs = {(m, p): F.grid_sample(v, grid, mode=m, padding_mode=p, align_corners=False)
            for m, p in (("bilinear", "zeros"), ("nearest", "zeros"), ("bilinear", "border"))}
    assert patch_grid_sample() is True
    for (m, p), r in refs.items():
        assert maxdiff(F.grid_sample(v, grid, mode=m, padding_mode=p, align_corners=False), r) < 1e-5, (m, p)
    restore_grid_sample()
    y = torch.randn(4, 16, generator=g(0))
    refs = {p: F.normalize(y, p=p, dim=1) for p in (1, 2, 3, float("inf"))}
    assert patch_normalize() is True
    for p, r in refs.items():
        assert maxdiff(F.normalize(y, p=p, dim=1), r) < 1e-6, p
    restore_normalize()


def test_zero_pad_maxpool_defaults_and_sizes():
    from litert_gpu_toolkit import ZeroPadMaxPool, patch_maxpool_zeropad
    zp = ZeroPadMaxPool()
    assert (zp.kernel_size, zp.stride, zp.pad, zp.ceil_mode) == (3, 2, 1, False)
    assert tuple(zp(torch.zeros(1, 1, 112, 112)).shape) == (1, 1, 56, 56)
    x = torch.randn(1, 4, 16, 16, generator=g(0))
    assert maxdiff(zp(x), nn.MaxPool2d(3, 2, 1)(x)) == 0.0             # signed input: exact
    assert maxdiff(ZeroPadMaxPool(exact=False)(torch.relu(x)), nn.MaxPool2d(3, 2, 1)(torch.relu(x))) == 0.0
    for k, s, p, cm, h in ((3, 2, 1, True, 15), (2, 3, 1, True, 4), (4, 3, 2, True, 11), (3, 2, 1, False, 9)):
        y = torch.randn(1, 2, h, h + 1, generator=g(3))
        r = nn.MaxPool2d(k, s, p, ceil_mode=cm)(y)
        z = ZeroPadMaxPool(k, s, p, cm)(y)
        assert r.shape == z.shape and maxdiff(r, z) == 0.0, (k, s, p, cm, h)
    m = nn.Sequential(nn.MaxPool2d(3, 2, 1), nn.MaxPool2d(2), nn.MaxPool2d(3, 1, 1, ceil_mode=True))
    assert patch_maxpool_zeropad(m) == 2 and isinstance(m[0], ZeroPadMaxPool) and type(m[1]) is nn.MaxPool2d


def test_norms_exact():
    from litert_gpu_toolkit import (SafeInstanceNorm2d, hierarchical_mean, patch_instance_norm,
                                    patch_rmsnorm, patch_safe_layernorm, safe_rms)
    from litert_gpu_toolkit.patches import ManualGroupNorm, patch_groupnorm, restore_layernorm
    gn = nn.GroupNorm(4, 16)
    with torch.no_grad():
        gn.weight.normal_(generator=g(1))
        gn.bias.normal_(generator=g(2))
    for shape in ((2, 16, 8, 8), (2, 16, 24)):                       # 4-D and the VAE's 3-D
        x = torch.randn(*shape, generator=g(0)) * 50
        assert maxdiff(ManualGroupNorm(gn)(x), gn(x)) < 1e-5, shape
    m = nn.Sequential(nn.GroupNorm(2, 8), nn.Sequential(nn.GroupNorm(4, 8)))
    assert patch_groupnorm(m) == 2 and isinstance(m[1][0], ManualGroupNorm)
    x = torch.randn(1, 2, 37, 53, generator=g(0))
    assert maxdiff(hierarchical_mean(x), x.mean((-2, -1), keepdim=True)) < 1e-6   # seed: 0.070
    inorm = nn.InstanceNorm2d(4, affine=True)
    x = torch.randn(2, 4, 16, 16, generator=g(0))
    assert maxdiff(SafeInstanceNorm2d(inorm)(x), inorm(x)) < 1e-5
    assert patch_instance_norm(nn.Sequential(nn.InstanceNorm2d(4))) == 1
    w = torch.randn(16, generator=g(4))
    x = torch.randn(2, 8, 16, generator=g(0)) * 1e3
    assert maxdiff(safe_rms(x, w, eps=1e-6), x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w) < 1e-5
    m = nn.Sequential(GemmaRMSNorm(16))
    x = torch.randn(2, 5, 16, generator=g(0))
    ref = m(x).detach()
    assert patch_rmsnorm(m) == 1 and maxdiff(m(x), ref) < 1e-5           # probe found 1 + w
    # LayerNorm, the seed's process-wide call forms (PR #313's three modes, unit scale)
    ln = nn.LayerNorm(16)
    x = torch.randn(2, 8, 16, generator=g(0))
    ref = ln(x).detach()
    orig = nn.LayerNorm.forward
    for mode in ("adaptive_v2", "adaptive", "fixed"):
        assert patch_safe_layernorm(scale=mode) is True
        assert nn.LayerNorm.forward is not orig and maxdiff(ln(x), ref) < 1e-5, mode
    assert patch_safe_layernorm("fixed", 64.0) is True                  # positional (scale, fixed_s)
    assert maxdiff(ln(x), ref) < 1e-5
    restore_layernorm()
    assert nn.LayerNorm.forward is orig
    assert patch_safe_layernorm() is True                               # the seed's default
    big = 1000.0 + 0.3 * torch.randn(2, 16, generator=g(0))
    assert maxdiff(ln(big), F.layer_norm(big.double(), (16,), eps=ln.eps)) < 2e-4   # torch fp32: 1.5e-4
    restore_layernorm()
    # gpuclean's per-model form
    m = nn.Sequential(nn.LayerNorm(16), nn.LayerNorm(16))
    assert patch_safe_layernorm(m, "adaptive") == 2 and nn.LayerNorm.forward is orig
    with pytest.raises(ValueError):
        patch_safe_layernorm(scale="v3")


def test_weight_standardization_exact_and_seed_double():
    from litert_gpu_toolkit.patches import patch_weight_standardization
    torch.manual_seed(0)
    m = nn.Sequential(StdConv2d(3, 8, 3, padding=1))
    x = torch.randn(1, 3, 9, 9, generator=g(0))
    ref = m(x).detach()
    assert patch_weight_standardization(m) == 1 and type(m[0]) is nn.Conv2d
    assert maxdiff(m(x), ref) < 1e-5

    class Conv2d_WS(nn.Module):                  # the seed test's double: attributes, no forward
        def __init__(self):
            super().__init__()
            self.in_channels, self.out_channels, self.kernel_size = 3, 8, (3, 3)
            self.stride, self.padding, self.dilation, self.groups = (1, 1), (1, 1), (1, 1), 1
            self.weight = nn.Parameter(torch.randn(8, 3, 3, 3, generator=g(1)))
            self.bias = nn.Parameter(torch.zeros(8))
    m = nn.Sequential(Conv2d_WS())
    assert patch_weight_standardization(m) == 1 and isinstance(m[0], nn.Conv2d)
    assert (m[0].weight.mean(dim=(1, 2, 3)).abs() < 1e-5).all()


def test_conv_transpose_and_pixelshuffle():
    from litert_gpu_toolkit import ZeroStuffConvT1d, ZeroStuffConvT2d, patch_conv_transpose
    ct1 = nn.ConvTranspose1d(4, 8, 4, stride=2, padding=1)
    x1 = torch.randn(2, 4, 16, generator=g(0))
    assert maxdiff(ZeroStuffConvT1d(ct1, input_length=16)(x1), ct1(x1)) < 1e-5
    ct2 = nn.ConvTranspose2d(4, 8, 4, stride=2, padding=1)
    x2 = torch.randn(2, 4, 8, 8, generator=g(1))
    assert maxdiff(ZeroStuffConvT2d(ct2, in_h=8, in_w=8)(x2), ct2(x2)) < 1e-5

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.ct1 = nn.ConvTranspose1d(4, 8, 3, stride=1, padding=1)
            self.ct2 = nn.ConvTranspose2d(4, 8, 3, stride=1, padding=1)

        def forward(self, a, b):
            return self.ct1(a), self.ct2(b)
    m = Model()
    assert patch_conv_transpose(m, dummy_input=(x1[:1], x2[:1])) == 2
    assert isinstance(m.ct1, ZeroStuffConvT1d) and isinstance(m.ct2, ZeroStuffConvT2d)


def test_einops_patterns(monkeypatch):
    from litert_gpu_toolkit.patches import patch_einops, restore_einops
    monkeypatch.setitem(sys.modules, "einops", None)          # not installed: nothing to patch
    assert patch_einops() is True
    fake = types.ModuleType("einops")
    fake.rearrange = lambda *a, **k: (_ for _ in ()).throw(AssertionError("original einops called"))
    monkeypatch.setitem(sys.modules, "einops", fake)
    monkeypatch.delitem(sys.modules, "einops.einops", raising=False)
    orig = fake.rearrange
    assert patch_einops() is True and fake.rearrange is not orig
    x = torch.randn(2, 4, 16, 16, generator=g(0))
    B, C, H, W = x.shape
    out1 = fake.rearrange(x, "b c (hg h) (wg w) -> (b hg wg) c h w", hg=2, wg=2)
    ref1 = x.view(B, C, 2, 8, 2, 8).permute(0, 2, 4, 1, 3, 5).reshape(8, C, 8, 8)
    assert maxdiff(out1, ref1) == 0.0
    out2 = fake.rearrange(x, "b c (hg h) (wg w) -> b (c hg wg) h w", hg=2, wg=2)
    assert maxdiff(out2, x.view(B, C, 2, 8, 2, 8).permute(0, 1, 2, 4, 3, 5).reshape(B, 16, 8, 8)) == 0.0
    out3 = fake.rearrange(out1, "(b hg wg) c h w -> b c (hg h) (wg w)", hg=2, wg=2)
    assert maxdiff(out3, x) == 0.0
    # the seed raised ValueError for any other pattern; every pure rearrangement works here
    assert tuple(fake.rearrange(x, "b c h w -> (b c) h w").shape) == (8, 16, 16)
    restore_einops()
    assert fake.rearrange is orig


class WindowAttention(nn.Module):
    """Swin v1 window attention with the attribute names the seed's patch expects."""

    def __init__(self, dim, ws, heads):
        super().__init__()
        self.dim, self.window_size, self.num_heads = dim, (ws, ws), heads
        self.scale = (dim // heads) ** -0.5
        self.relative_position_bias_table = nn.Parameter(torch.randn((2 * ws - 1) ** 2, heads, generator=g(7)))
        c = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij")).flatten(1)
        rel = (c[:, :, None] - c[:, None, :]).permute(1, 2, 0).contiguous()
        rel[:, :, 0] += ws - 1
        rel[:, :, 1] += ws - 1
        rel[:, :, 0] *= 2 * ws - 1
        self.register_buffer("relative_position_index", rel.sum(-1))
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.attn_drop, self.proj_drop, self.softmax = nn.Dropout(0.0), nn.Dropout(0.0), nn.Softmax(-1)

    def forward(self, x, mask=None):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, c // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(n, n, -1)
        attn = attn + bias.permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(b // nw, nw, self.num_heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, n, n)
        x = (self.attn_drop(self.softmax(attn)) @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj_drop(self.proj(x))


class PatchMerging(nn.Module):
    """Swin v1 patch merging, forward(x, H, W)."""

    def __init__(self, dim):
        super().__init__()
        self.reduction, self.norm = nn.Linear(4 * dim, 2 * dim, bias=False), nn.LayerNorm(4 * dim)

    def forward(self, x, H, W):
        b, _, c = x.shape
        x = x.view(b, H, W, c)
        if H % 2 or W % 2:
            x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.reduction(self.norm(x.view(b, -1, 4 * c)))


def test_swin_window_attention_and_patch_merging():
    from litert_gpu_toolkit.patches import patch_patch_merging, patch_window_attention
    torch.manual_seed(0)
    wa, pm = WindowAttention(16, 4, 2).eval(), PatchMerging(8).eval()
    x = torch.randn(8, 16, 16, generator=g(0))
    mask = (torch.rand(4, 16, 16, generator=g(1)) > 0.6).float() * -100.0
    xp = torch.randn(2, 7 * 6, 8, generator=g(2))
    ref_a, ref_m, ref_p = wa(x).detach(), wa(x, mask).detach(), pm(xp, 7, 6).detach()
    m = nn.ModuleDict({"wa": wa, "pm": pm})
    assert patch_window_attention(m) == 1 and patch_patch_merging(m) == 1
    assert maxdiff(m["wa"](x), ref_a) < 1e-5 and maxdiff(m["wa"](x, mask), ref_m) < 1e-5
    assert maxdiff(m["pm"](xp, 7, 6), ref_p) < 1e-5


# ---- apply_all_patches ---------------------------------------------------------------------

class Composite(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.gelu, self.silu = nn.Conv2d(3, 8, 3, padding=1), nn.GELU(), nn.SiLU()
        self.gn, self.up = nn.GroupNorm(2, 8), nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)

    def forward(self, x):
        y = self.gn(self.silu(self.gelu(self.conv(x))))
        y = F.interpolate(self.up(y), scale_factor=2, mode="bicubic", align_corners=False)
        return F.normalize(y, p=1, dim=1)


def test_apply_all_patches_summary_and_exactness():
    from litert_gpu_toolkit import apply_all_patches
    from litert_gpu_toolkit.patches import SigmoidGELU, restore_all
    torch.manual_seed(0)
    m = Composite().eval()
    x = torch.randn(1, 3, 12, 12, generator=g(0))
    ref = m(x).detach()
    s = apply_all_patches(m, x)
    assert list(s) == ["gelu", "swish", "groupnorm", "weight_standardization", "deformable_conv",
                       "window_attention", "patch_merging", "conv_transpose", "interpolate", "normalize", "einops"]
    assert (s["gelu"], s["swish"], s["groupnorm"], s["conv_transpose"]) == (1, 1, 1, 1)
    assert s["interpolate"] is True and s["normalize"] is True and s["einops"] is True
    assert all(isinstance(s[k], int) and not isinstance(s[k], bool) for k in list(s)[:8])
    assert maxdiff(m(x), ref) < 1e-5                                    # nothing changed the math
    restore_all()
    assert "conv_transpose" not in apply_all_patches(Composite())      # only with dummy_input
    restore_all()
    m2 = Composite().eval()
    apply_all_patches(m2, exact=False)                                 # the seed's set
    assert isinstance(m2.gelu, SigmoidGELU)


class Hostile(Composite):
    """Composite plus a padded max pool: plain litert-torch output has GATHER_ND,
    BROADCAST_TO, PADV2, TRANSPOSE_CONV and fp16 reduction notes."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, 2, 1)

    def forward(self, x):
        y = self.pool(self.gn(self.silu(self.gelu(self.conv(x)))))
        y = F.interpolate(self.up(y), scale_factor=2, mode="bicubic", align_corners=False)
        return F.normalize(y, p=2, dim=1)


def test_exact_defaults_convert_gpu_clean(tmp_path):
    """apply_all_patches + patch_maxpool_zeropad (exact forms) take a model from 56/131
    nodes on the GPU to GPU-clean, and the .tflite still matches PyTorch (two litert-torch
    conversions)."""
    litert_torch = pytest.importorskip("litert_torch")
    import numpy as np
    from gpuclean import check, run
    from gpuclean._lib import GpucleanError, lib
    from litert_gpu_toolkit.patches import apply_all_patches, patch_maxpool_zeropad, restore_all
    try:
        lib()
    except GpucleanError as e:
        pytest.skip(str(e))
    torch.manual_seed(0)
    m = Hostile().eval()
    x = torch.randn(1, 3, 16, 16, generator=g(0))
    ref = m(x).detach().numpy()
    litert_torch.convert(m, (x,)).export(str(tmp_path / "plain.tflite"))
    before = check(str(tmp_path / "plain.tflite"))
    assert not before["summary"]["gpu_clean"]
    assert {"GATHER_ND", "BROADCAST_TO"} <= {n["op"] for n in before["nodes"] if n["state"] == "rejected"}
    apply_all_patches(m, x)
    assert patch_maxpool_zeropad(m) == 1
    assert np.abs(m(x).detach().numpy() - ref).max() < 1e-5
    litert_torch.convert(m, (x,)).export(str(tmp_path / "patched.tflite"))
    restore_all()
    after = check(str(tmp_path / "patched.tflite"))
    assert after["summary"]["gpu_clean"], after["summary"]["residency"]
    assert not [r for r in after.get("risks", []) if r.get("level") == "warning"]
    out = run(str(tmp_path / "patched.tflite"), [x.numpy()])        # gpuclean's interpreter, fp32
    assert np.abs(out[0] - ref).max() < 1e-5
