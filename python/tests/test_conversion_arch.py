"""Real architectures (random init, small configs) converted with litert-torch as they
are and after the remedies the router picks from gpuclean check's verdict on the plain
conversion: the picked remedies must include the one for the architecture's idiom, the
rewritten .tflite must be GPU-clean by the check with the hostile ops gone (rank > 4,
GATHER_ND, BROADCAST_TO), its GPU residency must improve, and it must still compute
the original model (gpuclean's reference interpreter, fp32). Records the verdicts
before -> after for the report."""
import copy

import pytest

# ten real-architecture conversions (minutes on 2 cores): `make test-slow`, not `make test`
pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python/install-torch.sh)")
pytest.importorskip("litert_torch", reason="litert-torch is not installed (python/install-torch.sh)")
import numpy as np  # noqa: E402

import gpuclean.rewrites as R  # noqa: E402
from gpuclean import router  # noqa: E402
from gpuclean._lib import GpucleanError  # noqa: E402
from gpuclean.convert import convert_plain  # noqa: E402
from gpuclean.core import Model  # noqa: E402

import test_rewrites_arch as T  # noqa: E402

HOSTILE = ("rank>4", "GATHER_ND", "GATHER", "BROADCAST_TO")


def _img(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


def tv_swin():
    tvs = pytest.importorskip("torchvision.models.swin_transformer")
    torch.manual_seed(0)
    return tvs.SwinTransformer([4, 4], 24, [2, 2], [2, 2], [4, 4], num_classes=10), (_img(1, 3, 64, 64),)


def tv_swin_v2_odd():
    tvs = pytest.importorskip("torchvision.models.swin_transformer")
    torch.manual_seed(0)
    m = tvs.SwinTransformer([4, 4], 24, [2, 2], [2, 2], [4, 4], num_classes=10,
                            block=tvs.SwinTransformerBlockV2, downsample_layer=tvs.PatchMergingV2)
    return m, (_img(1, 3, 60, 44),)


def timm_swin():
    ts = pytest.importorskip("timm.models.swin_transformer")
    torch.manual_seed(0)
    return ts.SwinTransformer(img_size=64, patch_size=4, embed_dim=24, depths=(2, 2), num_heads=(2, 2),
                              window_size=4, num_classes=10), (_img(1, 3, 64, 64),)


def timm_vit():
    vt = pytest.importorskip("timm.models.vision_transformer")
    torch.manual_seed(0)
    return vt.VisionTransformer(img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=4,
                                qk_norm=True, num_classes=10), (_img(1, 3, 32, 32),)


def timm_mobilevit():
    timm = pytest.importorskip("timm")
    torch.manual_seed(0)
    return timm.create_model("mobilevit_xxs", num_classes=10), (_img(1, 3, 128, 128),)


def shufflenet():
    tv = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    return tv.models.shufflenet_v2_x0_5(num_classes=10), (_img(1, 3, 64, 64),)


def decoder(kind):
    def make():
        pytest.importorskip("transformers")
        ids = torch.randint(0, 1000, (1, 32), generator=torch.Generator().manual_seed(0))
        return T.Logits(T.small_decoder(kind)), (ids,)
    return make


def dinov2():
    pytest.importorskip("transformers")
    return T.Hidden(T.small_dinov2()), (_img(1, 3, 112, 140),)


def yolos():
    pytest.importorskip("transformers")
    return T.Hidden(T.small_yolos()), (_img(1, 3, 96, 128),)


CASES = [
    pytest.param(tv_swin, "rank5", id="torchvision_swin"),
    pytest.param(tv_swin_v2_odd, "rank5", id="torchvision_swin_v2_odd"),
    pytest.param(timm_swin, "rank5", id="timm_swin"),
    pytest.param(timm_vit, "rank5", id="timm_vit"),
    pytest.param(timm_mobilevit, "rank5", id="timm_mobilevit"),
    pytest.param(shufflenet, "rank5", id="shufflenet_v2"),
    pytest.param(decoder("llama"), "repeat_kv", id="llama_gqa"),
    pytest.param(decoder("qwen3"), "repeat_kv", id="qwen3_gqa"),
    pytest.param(dinov2, "gather_nd", id="dinov2_pos_embed"),
    pytest.param(yolos, "gather_nd", id="yolos_pos_embed"),
]


def _check(path):
    with Model(path) as m:
        ins = m.inspect()
        try:
            chk = m.check()
        except (NotImplementedError, GpucleanError):
            pytest.skip("gpuclean check is not built")
    return chk, ins


@pytest.mark.parametrize("make,expect", CASES)
def test_architecture_gpu_clean(request, tmp_path, verdicts, make, expect):
    model, xs = make()
    model = model.eval()
    with torch.no_grad():
        ref = T._logits(model(*xs))
    p0, p1 = str(tmp_path / "plain.tflite"), str(tmp_path / "rewritten.tflite")
    convert_plain(copy.deepcopy(model), xs, p0)
    chk0, ins0 = _check(p0)
    picked = router.remedies_for(router.symptoms(chk0))
    assert expect in picked, "router picked %s from the plain check" % picked
    m2 = copy.deepcopy(model)
    counts, patches = {}, []
    try:
        for name in picked:
            n, ps = R.REMEDIES[name].apply(m2, xs)
            counts[name] = n
            patches.extend(ps)
        assert counts[expect] > 0
        with torch.no_grad():
            got = T._logits(m2(*xs))
        convert_plain(m2, xs, p1)
    finally:
        for p in reversed(patches):
            p.restore()
    chk1, ins1 = _check(p1)
    s0, s1 = chk0["summary"], chk1["summary"]
    h0 = {k: v for k, v in router.hostile_ops(ins0).items() if k in HOSTILE}
    h1 = {k: v for k, v in router.hostile_ops(ins1).items() if k in HOSTILE}
    verdicts(request.node.callspec.id,
             {"before": s0["residency"].replace("GPU residency: ", ""),
              "after": s1["residency"].replace("GPU residency: ", "") + " " + ",".join(picked),
              "hostile_before": h0, "hostile_after": h1})
    # bit-exact but for swin v2's l2_normalize (a few ulp)
    assert float((got.double() - ref.double()).abs().max()) <= 1e-5 * max(1.0, float(ref.abs().max()))
    assert not h1, "still in the rewritten .tflite: %s" % h1
    assert s1["gpu_clean"], s1["residency"]
    assert s1["gpu_nodes"] / s1["nodes"] > s0["gpu_nodes"] / s0["nodes"]
    try:
        from gpuclean.core import run
        outs = run(p1, [x.numpy() for x in xs])
    except (NotImplementedError, GpucleanError) as e:
        pytest.skip("gpuclean run cannot execute it: %s" % e)
    out = outs[0].reshape(ref.shape)
    assert np.abs(out - ref.numpy()).max() <= 1e-4 * max(1.0, float(ref.abs().max()))
