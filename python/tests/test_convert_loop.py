"""convert_for_gpu end to end on the demo network (the main job)."""
import pytest

pytest.importorskip("torch", reason="PyTorch is not installed (python/install-torch.sh)")
pytest.importorskip("litert_torch", reason="litert-torch is not installed (python/install-torch.sh)")

from gpuclean import demo  # noqa: E402
from gpuclean.convert import convert_for_gpu, format_report  # noqa: E402


def test_demo_ends_gpu_clean(tmp_path, gclib):
    if not gclib.has("check"):
        pytest.skip("gpuclean check not built")
    net, inputs = demo.build()
    before_params = {k: v.clone() for k, v in net.state_dict().items()}
    rep = convert_for_gpu(net, inputs, str(tmp_path / "demo.tflite"))
    text = format_report(rep)
    assert not rep["before"]["gpu_clean"] and rep["before"]["hostile"]
    assert rep["after"]["gpu_clean"], text
    assert not rep["after"]["hostile"], text
    for name in ("repeat_kv", "reflect_pad", "select", "conv_transpose", "mask_expand"):
        assert name in rep["applied"], text
    par = rep["parity"]
    assert par["torch_rewritten"][0]["max_abs"] < 1e-5
    assert par["gpuclean_fp32"][0]["corr"] > 0.99999 and par["gpuclean_fp32"][0]["max_abs"] < 1e-4
    assert par["gpuclean_fp16"][0]["corr"] > 0.999
    for k, v in par.items():
        if k.startswith("litert_") and isinstance(v, list):
            assert v[0]["corr"] > 0.9999, (k, v)
    assert rep["ok"], text
    # the caller's model is untouched
    assert all((net.state_dict()[k] == v).all() for k, v in before_params.items())
    assert type(net.act).__name__ == "PReLU"


def test_demo_cli(tmp_path, gclib):
    if not gclib.has("check"):
        pytest.skip("gpuclean check not built")
    rc = demo.main([str(tmp_path / "out")])
    assert rc == 0
    assert (tmp_path / "out" / "demo.tflite").exists() and (tmp_path / "out" / "report.json").exists()
