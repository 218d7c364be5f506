"""convert_for_gpu: the one loop (plain convert -> check -> gpuclean fix -> PyTorch
remedies -> re-convert -> verify), on small networks so each test costs one or two
litert-torch conversions."""
import filecmp
import json
import os
import tempfile

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python/install-torch.sh)")
pytest.importorskip("litert_torch", reason="litert-torch is not installed (python/install-torch.sh)")

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from gpuclean import demo  # noqa: E402
from gpuclean._lib import GpucleanError  # noqa: E402
from gpuclean.convert import convert_for_gpu, format_report  # noqa: E402
from gpuclean.rewrites import Patch  # noqa: E402


@pytest.fixture
def checker(gclib):
    if not gclib.has("check"):
        pytest.skip("gpuclean check not built")
    return gclib


def small_net(seed=0):
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3, padding=1)).eval()
    return net, (torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(seed + 1)),)


class _Remedy:
    """A test remedy: the same interface as gpuclean.rewrites.Remedy."""

    def __init__(self, name, apply, exactness="test", doc="test remedy"):
        self.name, self._apply, self.exactness, self.doc = name, apply, exactness, doc

    def apply(self, model, inputs):
        return self._apply(model, inputs)


def _swap_relu(model, make):
    n = 0
    for parent in list(model.modules()):
        for k, child in list(parent.named_children()):
            if type(child) is nn.ReLU:
                setattr(parent, k, make())
                n += 1
    return n


class _RaisesInForward(nn.Module):
    def forward(self, x):
        raise AttributeError("'_RaisesInForward' object has no attribute 'scale'")


class _Rank5Relu(nn.Module):
    """ReLU through a rank-5 MUL and DIV by constants: exact, but the GPU refuses rank 5
    and constant operands, so the plain conversion is better than this."""

    def forward(self, x):
        n, c, h, w = x.shape
        g = torch.tensor([2.0, 4.0], dtype=x.dtype).reshape(1, 2, 1, 1, 1)
        return ((torch.relu(x).reshape(n, 2, c // 2, h, w) * g) / g).reshape(n, c, h, w)


def _conversions(rep):
    return rep["conversions"]


def test_rewrite_that_raises_is_rolled_back(tmp_path, checker):
    """A remedy that raises while applying (after changing the model and a global), and
    one whose rewritten forward raises, are both rolled back and reported with their
    reason; the loop goes on and, with nothing left that changed the model, does not
    re-convert."""
    net, xs = small_net()
    relu_before = F.relu

    def boom_apply(model, inputs):
        _swap_relu(model, nn.Identity)
        F.relu = lambda x, inplace=False: x          # a leaked global rebinding
        raise AttributeError("'ShiftedWindowAttention' object has no attribute 'scale'")

    def boom_forward(model, inputs):
        return _swap_relu(model, _RaisesInForward), []

    rep = convert_for_gpu(net, xs, str(tmp_path / "m.tflite"),
                          remedies=[_Remedy("boom_apply", boom_apply),
                                    _Remedy("boom_forward", boom_forward)])
    text = format_report(rep)
    assert F.relu is relu_before, "the global the failed remedy rebound is restored"
    assert type(net[1]) is nn.ReLU
    recs = {r["name"]: r for r in rep["remedies"]}
    assert recs["boom_apply"]["status"] == "rolled back", text
    assert "AttributeError" in recs["boom_apply"]["error"] and "scale" in recs["boom_apply"]["error"]
    assert any("relu" in g for g in recs["boom_apply"].get("restored_globals", [])), recs["boom_apply"]
    assert recs["boom_forward"]["status"] == "rolled back", text
    assert "forward raised AttributeError" in recs["boom_forward"]["error"]
    assert _conversions(rep) == 1, text
    assert rep["rounds"][1]["converted"] is False
    assert rep["chosen"] == "plain" and rep["ok"], text
    assert "rolled back" in text and "scale" in text


def test_never_writes_worse_than_plain(tmp_path, checker):
    """A forced remedy that makes the conversion worse (rank-5 ops the GPU refuses) is
    converted and ranked, but the written file is the plain conversion."""
    net, xs = small_net()
    worse = _Remedy("worse", lambda m, i: (_swap_relu(m, _Rank5Relu), []))
    out = tmp_path / "m.tflite"
    rep = convert_for_gpu(net, xs, str(out), remedies=[worse])
    text = format_report(rep)
    cands = {c["name"]: c for c in rep["candidates"]}
    assert "round1" in cands, text
    r1, plain = cands["round1"], cands["plain"]
    assert r1["gpu_nodes"] / r1["nodes"] < plain["gpu_nodes"] / plain["nodes"], text
    assert rep["chosen"] == "plain", text
    assert filecmp.cmp(str(out), str(tmp_path / "m.plain.tflite"), shallow=False)
    assert rep["final"]["residency"] == rep["plain"]["residency"]
    assert rep["applied"] == {}                 # nothing of the rejected candidate is claimed
    assert _conversions(rep) == 2


def test_gpu_clean_model_no_reconversion(tmp_path, checker):
    """Nothing to rewrite: one conversion, no fix candidate, ok, and the report on disk
    (strict JSON) says the same; every step is timed; progress lines arrive."""
    net, xs = small_net()
    lines = []
    out = tmp_path / "m.tflite"
    rep = convert_for_gpu(net, xs, str(out), progress=lines.append)
    text = format_report(rep)
    assert _conversions(rep) == 1, text
    assert [c["name"] for c in rep["candidates"]] == ["plain"], text
    assert rep["ok"] and rep["gpu_clean"] and rep["fp32_parity"] and rep["gpu_precision_parity"], text
    assert "reconversion" not in rep["timings"] and rep["timings"]["plain_conversion"] > 0
    assert out.exists() and (tmp_path / "m.plain.tflite").exists()
    with open(tmp_path / "m.report.json") as f:
        disk = json.load(f)
    assert disk["ok"] is True and disk["chosen"] == "plain"
    json.dumps(rep, allow_nan=False)            # JSON-serialisable, strict
    assert any("plain conversion" in s for s in lines) and any("OK" in s for s in lines)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_candidate_litert_cannot_load_is_never_written(tmp_path, checker):
    """fp16_norms on an InstanceNorm2d at a power-of-two size converts (today) to a
    StableHLO graph: 0 nodes on the GPU, and LiteRT's CPU cannot load it. Forced, it is
    converted and ranked last; the plain conversion (GPU-clean) is what gets written."""
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.InstanceNorm2d(8, affine=True),
                        nn.ReLU(), nn.Conv2d(8, 4, 3, padding=1)).eval()
    xs = (torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(1)),)
    out = tmp_path / "m.tflite"
    rep = convert_for_gpu(net, xs, str(out), remedies=["fp16_norms"])
    text = format_report(rep)
    cands = {c["name"]: c for c in rep["candidates"]}
    if "round1" not in cands or cands["round1"]["verdict"]["loads_cpu"] is not False:
        pytest.skip("SafeInstanceNorm2d now converts to something LiteRT CPU loads:\n" + text)
    assert rep["chosen"] != "round1" and not rep["chosen"].startswith("round1"), text
    assert rep["loads_cpu"] is True and rep["ok"], text
    assert filecmp.cmp(str(out), str(tmp_path / "m.plain.tflite"), shallow=False)


class _Offset(nn.Module):
    """a(x) - b(x) with both convolutions riding on a bias of 1000: exact enough at fp32,
    but fp16 storage (steps of 0.5 at 1000) drowns the difference."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 4, 3, padding=1)
        self.b = nn.Conv2d(3, 4, 3, padding=1)
        with torch.no_grad():
            self.a.bias.fill_(1000.0)
            self.b.bias.fill_(1000.0)

    def forward(self, x):
        return self.a(x) - self.b(x)


def test_ok_requires_gpu_precision_parity(tmp_path, checker):
    torch.manual_seed(0)
    net = _Offset().eval()
    xs = (torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(1)),)
    rep = convert_for_gpu(net, xs, str(tmp_path / "m.tflite"))
    text = format_report(rep)
    assert rep["gpu_clean"] is True and rep["fp32_parity"] is True, text
    assert rep["gpu_precision_parity"] is False, text
    assert rep["ok"] is False, text
    assert any(r.startswith("gpuclean_fp16") for r in rep["reasons"]), rep["reasons"]
    assert "NOT OK" in text and "GPU-precision parity: NO" in text
    # the measured fp16 failure routes fp16_norms, which finds no norm: no re-conversion
    assert _conversions(rep) == 1, text


def test_shufflenet_full_residency_through_fix(tmp_path, checker):
    """ShuffleNet's channel shuffle is a rank-5 RESHAPE/TRANSPOSE chain: gpuclean fix
    folds it (bit-exact), so the loop ends fully on the GPU without a re-conversion."""
    tv = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    net = tv.models.shufflenet_v2_x0_5(weights=None).eval()
    xs = (torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(1)),)
    rep = convert_for_gpu(net, xs, str(tmp_path / "shufflenet.tflite"), argmax=True)
    text = format_report(rep)
    assert not rep["plain"]["gpu_clean"], text
    f = rep["final"]
    assert f["gpu_clean"] and f["gpu_nodes"] == f["nodes"], text
    assert rep["chosen"].endswith("+fix"), text
    assert any(p["id"] == "rank5_fold" for p in rep["fix_passes"]), text
    assert _conversions(rep) == 1, text
    assert rep["parity"]["gpuclean_fp32"][0]["max_abs"] < 1e-4
    assert rep["fp32_parity"], text


def test_no_temp_dir_left_on_error(tmp_path, monkeypatch):
    """The plain conversion fails (here: the model cannot even run): GpucleanError or the
    model's own exception, and no temporary directory is left behind."""
    class Broken(nn.Module):
        def forward(self, x):
            raise RuntimeError("broken model")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    with pytest.raises((RuntimeError, GpucleanError)):
        convert_for_gpu(Broken(), torch.randn(1, 3, 8, 8), str(tmp_path / "out" / "m.tflite"))
    assert os.listdir(tmp) == []


def test_aliases_and_bad_arguments(tmp_path):
    net, xs = small_net()
    with pytest.raises(TypeError):
        convert_for_gpu(net)
    with pytest.raises(TypeError):
        convert_for_gpu(net, xs, dummy_input=xs)
    with pytest.raises(ValueError):
        convert_for_gpu(net, xs, str(tmp_path / "m.tflite"), policy="everything")
    with pytest.raises(ValueError):
        convert_for_gpu(net, xs, str(tmp_path / "m.tflite"), remedies=["no_such_remedy"])


def test_function_patch_hits_are_measured():
    """A function patch that only hands its tensors on to the original is not a hit; one
    that computes something else is."""
    from gpuclean.convert import _HitProbe
    orig = F.interpolate

    def interp(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
               recompute_scale_factor=None, antialias=False):
        if mode == "bicubic":
            return input.repeat_interleave(2, -1).repeat_interleave(2, -2)
        return orig(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    p = Patch("interp_test", [(F, "interpolate", interp)])
    try:
        x = torch.randn(1, 1, 4, 4)
        with _HitProbe([p]) as probe:
            F.interpolate(x, scale_factor=2, mode="nearest")
        assert probe.hits == [0]
        with _HitProbe([p]) as probe:
            F.interpolate(x, scale_factor=2, mode="bicubic")
            F.interpolate(x, scale_factor=2, mode="nearest")
        assert probe.hits == [1]
        assert F.interpolate is interp
    finally:
        p.restore()
    assert F.interpolate is orig


def test_demo_ends_gpu_clean(tmp_path, checker):
    net, inputs = demo.build()
    before_params = {k: v.clone() for k, v in net.state_dict().items()}
    rep = convert_for_gpu(net, inputs, str(tmp_path / "demo.tflite"))
    text = format_report(rep)
    assert not rep["before"]["gpu_clean"]
    assert rep["after"]["gpu_clean"], text
    # something changed the graph: PyTorch remedies, or (since the .tflite passes learned
    # the rank-5 BROADCAST_TO chain) gpuclean fix alone
    assert rep["applied"] or rep["fix_passes"], text
    for name, d in rep["applied"].items():
        assert d["modules_changed"] or d["hits"], (name, d)
    par = rep["parity"]
    if "torch_rewritten" in par:
        assert par["torch_rewritten"][0]["max_abs"] < 1e-5
    assert par["gpuclean_fp32"][0]["corr"] > 0.99999 and par["gpuclean_fp32"][0]["max_abs"] < 1e-4
    assert par["gpuclean_fp16"][0]["corr"] > 0.9999
    for k, v in par.items():
        if k.startswith("litert_") and isinstance(v, list):
            assert v[0]["corr"] > 0.9999, (k, v)
    assert rep["ok"], text
    # the caller's model is untouched
    assert all((net.state_dict()[k] == v).all() for k, v in before_params.items())
    assert type(net.act).__name__ == "PReLU"


def test_demo_cli(tmp_path, checker):
    rc = demo.main([str(tmp_path / "out")])
    assert rc == 0
    assert (tmp_path / "out" / "demo.tflite").exists() and (tmp_path / "out" / "report.json").exists()


def test_measured_miscompute_fixed_for_the_target_runtime(tmp_path, checker):
    """A grouped conv with 2 outputs per group runs fully on the GPU and computes wrong
    numbers there (fact numerics.conv_group_out, measured on the H200, both runtimes): the
    plain conversion is GPU-clean but not GPU-correct, so it is not ok; gpuclean fix (with
    the target runtime's facts) rewrites it as a dense block-diagonal conv, measured right,
    and that candidate is chosen and ok. The same for gpu_runtime="js"."""
    torch.manual_seed(3)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3, padding=1, groups=2)).eval()
    xs = (torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(4)),)
    for rt in ("native", "js"):
        out = tmp_path / ("g_%s.tflite" % rt)
        rep = convert_for_gpu(net, xs, str(out), gpu_runtime=rt, runtime=False)
        text = format_report(rep)
        plain = next(c for c in rep["candidates"] if c["name"] == "plain")
        assert plain["verdict"]["gpu_clean"] and plain["gpu_correct"] is False, text
        assert plain["facts_runtime"].startswith(rt + "-"), text
        assert plain["verdict"]["gpu_correct"] is False and any("GPU-correct" in r for r in plain["verdict"]["reasons"])
        assert rep["chosen"] == "plain+fix", text
        assert rep["final"]["gpu_correct"] is True and rep["gpu_correct"] is True and rep["ok"], text
        assert any(p.get("id") == "conv_group_dense" or p.get("pass") == "conv_group_dense" for p in rep["fix_passes"]), \
            rep["fix_passes"]
        assert "GPU-correct (measured facts, %s-" % rt in text
