"""gpuclean.bisect_gpu_divergence / print_bisect_report: the CLI's `bisect --runtime` from
Python. On a machine without a GPU through the verb's test seam (gpu_side="interp": the
reference interpreter at the precision asked for stands in for the GPU, against the
native runtime's CPU), on build/gpu-bisect-models' model that overflows half precision at
the op whose output is named "overflow"."""
import io
import os
import subprocess

import numpy as np
import pytest

from gpuclean._lib import GpucleanError, repo_root
from gpuclean.runtime import RuntimeUnavailable, find_cli

ROOT = repo_root() or os.getcwd()


@pytest.fixture(scope="module")
def overflow_models(tmp_path_factory):
    maker = os.path.join(ROOT, "build", "gpu-bisect-models")
    if not os.access(maker, os.X_OK):
        pytest.skip("build/gpu-bisect-models not built (make build/gpu-bisect-models)")
    if not find_cli():
        pytest.skip("gpuclean CLI not built")
    if not os.path.exists(os.path.join(ROOT, "build", "litert-wheel", "lib", "libLiteRt.so")):
        pytest.skip("native libLiteRt.so not installed (runtime/litert/setup.sh)")
    d = tmp_path_factory.mktemp("gbm")
    subprocess.run([maker, str(d)], check=True, capture_output=True)
    return d


def test_names_exported():
    import gpuclean
    assert callable(gpuclean.bisect_gpu_divergence) and callable(gpuclean.print_bisect_report)
    assert "bisect_gpu_divergence" in gpuclean.__all__


def test_finds_the_overflowing_op(overflow_models):
    from gpuclean import bisect_gpu_divergence, print_bisect_report
    r = bisect_gpu_divergence(overflow_models / "overflow_chain.tflite", runtime="native", precision="fp16",
                              gpu_side="interp")
    assert r["exit"] == 1 and r["verdict"]["kind"] == "divergent_op"
    f = r["first"]
    assert f["tensor_name"] == "overflow" and f["op_name"] == "MUL"
    # native fp16 stores a value past 65504 as +inf (measured on the H200 2026-12-02; docs/fp16-model.md)
    assert f["cmp"]["nan_mismatch"] > 0 and not f["cmp"]["pass"]
    probed = [i for i in r["first_inputs"] if i["kind"] == "probed"]
    assert probed and all(i["verdict"] == "ok" for i in probed)
    assert r["probes_used"] <= r["probe_bound"] and r["probes"][0]["target"] == "full"
    buf = io.StringIO()
    print_bisect_report(r, file=buf)
    text = buf.getvalue()
    assert "first divergent op: op %d MUL -> 'overflow'" % f["op"] in text
    assert text.rstrip().splitlines()[-1].startswith("verdict: first divergent op")


def test_inputs_seed_array_and_tol(overflow_models):
    from gpuclean import bisect_gpu_divergence
    m = overflow_models / "overflow_chain.tflite"
    r = bisect_gpu_divergence(m, precision="fp16", inputs=5, gpu_side="interp")
    assert r["inputs"] == "random 5" and r["first"]["tensor_name"] == "overflow"
    x = np.linspace(0.0, 1.0, 256, dtype=np.float32).reshape(1, 8, 8, 4)
    r = bisect_gpu_divergence(m, precision="fp16", inputs={"x": x}, gpu_side="interp")
    assert r["inputs"] == "files" and r["first"]["tensor_name"] == "overflow"
    r = bisect_gpu_divergence(m, precision="fp32", tol=5e-3, gpu_side="interp")
    assert r["exit"] == 0 and r["verdict"]["kind"] == "clean" and r["first"] is None
    assert r["tolerance"]["rtol"] == pytest.approx(5e-3)


def test_errors(overflow_models, tmp_path):
    from gpuclean import bisect_gpu_divergence
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a model at all")
    with pytest.raises(GpucleanError):
        bisect_gpu_divergence(bad, gpu_side="interp")
    with pytest.raises(ValueError):
        bisect_gpu_divergence(overflow_models / "overflow_chain.tflite", runtime="tpu")
    with pytest.raises(GpucleanError, match="no input named"):
        bisect_gpu_divergence(overflow_models / "overflow_chain.tflite", inputs={"nosuch": np.zeros(256, np.float32)},
                              gpu_side="interp")


def test_no_gpu_adapter_raises(overflow_models):
    """Without the seam, on a machine without a GPU: RuntimeUnavailable naming the reason."""
    from gpuclean import bisect_gpu_divergence
    try:
        r = bisect_gpu_divergence(overflow_models / "overflow_chain.tflite")
    except RuntimeUnavailable as e:
        assert "no GPU adapter: cannot bisect on the GPU" in str(e)
        return
    assert r["gpu_side"] == "gpu"        # a GPU machine: a real document
