"""Each hostile pattern converted with litert-torch as written and rewritten; gpuclean
(inspect + check) must find the hostile op in neither... of the rewritten .tflite, and
the rewritten .tflite must still compute the original (gpuclean's reference
interpreter, fp32). Records the GPU verdict before -> after for the report."""

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python/install-torch.sh)")
pytest.importorskip("litert_torch", reason="litert-torch is not installed (python/install-torch.sh)")
import numpy as np  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gpuclean.rewrites as R  # noqa: E402
from gpuclean import router  # noqa: E402
from gpuclean.convert import convert_plain  # noqa: E402
from gpuclean.core import Model  # noqa: E402
from gpuclean._lib import GpucleanError  # noqa: E402

from test_rewrites import SE, SwinPatchMergingV1, SwinWindowAttentionV1  # noqa: E402


class Fn(nn.Module):
    def __init__(self, fn, **mods):
        super().__init__()
        self.fn = fn
        for k, v in mods.items():
            setattr(self, k, v)

    def forward(self, *xs):
        return self.fn(self, *xs)


def _rand(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def case(name, hostile, original, rewritten, inputs, patch=None):
    return pytest.param(name, hostile, original, rewritten, inputs, patch, id=name)


ps, pr, mp = nn.PixelShuffle(2), nn.PReLU(4), nn.MaxPool2d(3, 2, 1)
ct2, ct1 = nn.ConvTranspose2d(4, 4, 4, 2, 1), nn.ConvTranspose1d(4, 4, 4, 2, 1)
rconv = nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect")
wa = SwinWindowAttentionV1(16, (4, 4), 2).eval()
pm = SwinPatchMergingV1(4)
se = nn.Sequential(nn.Conv2d(8, 8, 1), SE(8))
ln = nn.LayerNorm(64)


def focus(x):
    return torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)


def attn(q, k, m):
    return torch.softmax(q @ k.transpose(-1, -2) + m, -1)


CASES = [
    case("stride2", ["GATHER_ND"], Fn(lambda s, x: x[..., ::2, ::2]),
         Fn(lambda s, x: R.stride2_slice(x)), [(1, 4, 16, 16)]),
    case("focus", ["GATHER_ND"], Fn(lambda s, x: focus(x)), Fn(lambda s, x: R.space_to_depth2(x)),
         [(1, 4, 16, 16)]),
    case("patch_merging", ["GATHER_ND", "rank>4"], Fn(lambda s, x: s.pm(x, 8, 8), pm=pm),
         Fn(lambda s, x: s.g(x, 8, 8), g=R.PatchMergingGPU(pm)), [(1, 64, 4)]),
    case("grid_sample", ["GATHER_ND", "BROADCAST_TO", "rank>4"],
         Fn(lambda s, x, g: F.grid_sample(x, g, align_corners=False)),
         Fn(lambda s, x, g: R.grid_sample_tent(x, g)), [(1, 4, 8, 8), (1, 6, 6, 2)]),
    case("bicubic", ["GATHER_ND", "BROADCAST_TO"],
         Fn(lambda s, x: F.interpolate(x, scale_factor=2, mode="bicubic")),
         Fn(lambda s, x: R.interpolate_matmul(x, scale_factor=2, mode="bicubic")), [(1, 4, 8, 8)]),
    case("maxpool_pad", ["PADV2", "GATHER_ND"], Fn(lambda s, x: s.mp(x), mp=mp),
         Fn(lambda s, x: s.g(x), g=R.EdgePadMaxPool2d(3, 2, 1)), [(1, 4, 16, 16)]),
    case("pixelshuffle", ["rank>4"], Fn(lambda s, x: s.ps(x), ps=ps),
         Fn(lambda s, x: R.pixel_shuffle4(x, 2)), [(1, 16, 8, 8)]),
    case("window_attention", ["GATHER_ND", "GATHER", "rank>4"], Fn(lambda s, x: s.wa(x), wa=wa),
         Fn(lambda s, x: s.g(x), g=R.WindowAttentionGPU(wa)), [(2, 16, 16)]),
    case("einops_rank6", ["rank>4"],
         Fn(lambda s, x: x.reshape(1, 4, 2, 4, 2, 4).permute(0, 2, 4, 1, 3, 5).reshape(4, 4, 4, 4)),
         Fn(lambda s, x: R.rearrange(x, "b c (hg h) (wg w) -> (b hg wg) c h w", hg=2, wg=2)),
         [(1, 4, 8, 8)]),
    case("conv_transpose2d", ["TRANSPOSE_CONV"], Fn(lambda s, x: s.ct(x), ct=ct2),
         Fn(lambda s, x: s.g(x), g=R.ZeroStuffConvT2d(ct2)), [(1, 4, 8, 8)]),
    case("conv_transpose1d", ["TRANSPOSE_CONV"], Fn(lambda s, x: s.ct(x), ct=ct1),
         Fn(lambda s, x: s.g(x), g=R.ZeroStuffConvT1d(ct1)), [(1, 4, 16)]),
    case("prelu", ["SELECT", "SELECT_V2"], Fn(lambda s, x: s.pr(x), pr=pr),
         Fn(lambda s, x: s.g(x), g=R.PReLUArith(pr)), [(1, 4, 8, 8)]),
    case("elu", ["SELECT", "SELECT_V2"], Fn(lambda s, x: F.elu(x)), Fn(lambda s, x: R.elu_arith(x)),
         [(1, 4, 8, 8)]),
    case("where", ["SELECT", "SELECT_V2"], Fn(lambda s, x: torch.where(x > 0, x, 0.1 * x)),
         Fn(lambda s, x: R.where_arith(R.gt_mask(x), x, 0.1 * x)), [(1, 4, 8, 8)]),
    case("masked_assign", ["SELECT", "SELECT_V2"], Fn(lambda s, x: x.masked_fill(x > 1.0, 0.0)),
         Fn(lambda s, x: R.masked_fill_arith(x, R.gt_mask(x, 1.0), 0.0)), [(1, 4, 8, 8)]),
    case("repeat_kv", ["BROADCAST_TO", "rank>4"], Fn(lambda s, x: R.repeat_kv_reference(x, 2)),
         Fn(lambda s, x: R.repeat_kv(x, 2)), [(1, 2, 8, 16)]),
    case("mask_attention", ["ADD(BMM,mask)"], Fn(lambda s, q, k, m: attn(q, k, m)),
         Fn(lambda s, q, k, m: attn(q, k, R.expand_mask(m, 2))), [(1, 2, 8, 16), (1, 2, 8, 16), (1, 1, 8, 8)]),
    case("chunk", ["SPLIT", "SPLIT_V"], Fn(lambda s, x: x.chunk(2, 1)[0] * x.chunk(2, 1)[1]),
         Fn(lambda s, x: R.chunk_slices(x, 2, 1)[0] * R.chunk_slices(x, 2, 1)[1]), [(1, 4, 8, 8)]),
    case("reflect_pad", ["MIRROR_PAD", "GATHER_ND"], Fn(lambda s, x: F.pad(x, (1, 1, 1, 1), mode="reflect")),
         Fn(lambda s, x: R.reflect_pad(x, (1, 1, 1, 1))), [(1, 4, 8, 8)]),
    case("reflect_conv", ["MIRROR_PAD", "GATHER_ND"], Fn(lambda s, x: s.c(x), c=rconv),
         Fn(lambda s, x: s.g(x), g=R.ReflectPadConv2d(rconv)), [(1, 4, 8, 8)]),
    case("channel_attention", [], Fn(lambda s, x: s.se(x), se=se), None, [(1, 8, 8, 8)]),
    case("layernorm_fp16", [], Fn(lambda s, x: s.ln(x), ln=ln),
         Fn(lambda s, x: s.g(x), g=R.SafeLayerNorm(ln)), [(1, 8, 64)]),
]


def _summary(path):
    with Model(path) as m:
        ins = m.inspect()
        try:
            chk = m.check()
        except (NotImplementedError, GpucleanError):
            chk = None
    res = (chk or {}).get("summary", {}).get("residency", "n/a").replace("GPU residency: ", "")
    return res, router.hostile_ops(ins), chk


@pytest.mark.parametrize("name,hostile,original,rewritten,inputs,patch", CASES)
def test_hostile_op_gone(tmp_path, verdicts, name, hostile, original, rewritten, inputs, patch):
    xs = tuple(_rand(*s) for s in inputs)
    if rewritten is None:                          # swap in place on a copy
        import copy
        rewritten = copy.deepcopy(original)
        assert R.patch_channel_attention(rewritten) == 2
    p0, p1 = str(tmp_path / "orig.tflite"), str(tmp_path / "rewritten.tflite")
    convert_plain(original.eval(), xs, p0)
    convert_plain(rewritten.eval(), xs, p1)
    r0, h0, _ = _summary(p0)
    r1, h1, chk1 = _summary(p1)
    mine = lambda h: {k: v for k, v in h.items() if k in hostile}  # noqa: E731
    verdicts(name, {"before": r0, "after": r1, "hostile_before": mine(h0), "hostile_after": mine(h1)})
    assert not mine(h1), "%s: still in the rewritten .tflite: %s" % (name, mine(h1))
    if chk1 is not None:
        assert chk1["summary"]["gpu_clean"], "%s: rewritten model not GPU-clean: %s" % (name, r1)
    # the rewritten .tflite still computes the original
    with torch.no_grad():
        ref = original(*xs)
    try:
        from gpuclean.core import run
        outs = run(p1, [x.numpy() for x in xs])
    except (NotImplementedError, GpucleanError) as e:
        pytest.skip("gpuclean run cannot execute it: %s" % e)
    got = outs[0].reshape(ref.shape)
    assert np.abs(got - ref.numpy()).max() <= 1e-4 * max(1.0, float(ref.abs().max()))
