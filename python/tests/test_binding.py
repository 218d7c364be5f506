"""The ctypes binding: handles, numpy views, errors with the library's message."""
import gc
import weakref

import numpy as np
import pytest

import gpuclean
from gpuclean import GpucleanError, Interpreter, Model


def test_open_inspect_and_views(gclib, hostile_tflite):
    with Model(hostile_tflite) as m:
        j = m.inspect()
        assert j["schema"] == 1 and j["subgraphs"][0]["ops"][0]["op"] == "CONV_2D"
        assert m.n_subgraphs == 1 and m.n_tensors(0) == len(j["subgraphs"][0]["tensors"])
        w = m.tensor(0, "conv.weight")
        assert w.shape == (8, 3, 3, 4) and w.dtype == np.float32 and not w.flags.writeable
        assert m.tensor(0, "x") is None                  # an activation has no data
        ref = weakref.ref(m)
    # closed by `with`, but the view pins the C model: its memory stays valid
    with pytest.raises(GpucleanError, match="closed"):
        m.inspect()
    assert m._ptr and float(np.abs(w).sum()) > 0
    del m
    gc.collect()
    assert ref() is not None and float(np.abs(w[1:]).sum()) > 0
    del w
    gc.collect()
    assert ref() is None


def test_close_is_idempotent_and_final(gclib, hostile_tflite):
    m = Model(hostile_tflite)
    m.close()
    m.close()
    with pytest.raises(GpucleanError, match="closed"):
        m.inspect()


def test_errors_carry_the_library_message(gclib, tmp_path):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a flatbuffer at all, just some bytes")
    with pytest.raises(GpucleanError) as e:
        Model(bad)
    assert str(e.value)                                   # the library's one-line reason
    with pytest.raises(GpucleanError):
        Model(tmp_path / "missing.tflite")


def test_check_verdicts(gclib, hostile_tflite):
    if not gclib.has("check"):
        with pytest.raises(NotImplementedError, match="gc_check"):
            gpuclean.check(hostile_tflite)
        return
    c = gpuclean.check(hostile_tflite)
    s = c["summary"]
    assert s["residency"].startswith("GPU residency:") and not s["gpu_clean"]
    off = {n["op"] for n in c["nodes"] if not n["gpu"]}
    assert "GATHER_ND" in off and "BROADCAST_TO" in off
    with pytest.raises(GpucleanError, match="target"):
        Model(hostile_tflite).check("nosuchtarget")


def test_check_numerics_and_runtime(gclib, hostile_tflite):
    """the measured-facts fields, and --runtime / --precision through the binding"""
    if not gclib.has("check"):
        pytest.skip("checker not built")
    c = gpuclean.check(hostile_tflite)
    s = c["summary"]
    assert s["runtime"].startswith("native-") and s["precision"] == "fp32"
    assert s["gpu_correct"] == (s["wrong_nodes"] == 0)
    for n in c["nodes"]:
        assert n["numerics"] in ("ok", "risk", "wrong") and "numerics_rule" in n and "evidence" in n
        assert n["gpu"] or n["numerics"] == "ok"          # the CPU is the reference
    js = gpuclean.check(hostile_tflite, runtime="js-2.5", precision="fp16")
    assert js["summary"]["runtime"].startswith("js-2.5") and js["summary"]["precision"] == "fp16"
    assert [n["state"] for n in js["nodes"]] is not None
    with pytest.raises(GpucleanError, match="unknown runtime 'native-9'"):
        gpuclean.check(hostile_tflite, runtime="native-9")
    with pytest.raises(GpucleanError, match="precision"):
        gpuclean.check(hostile_tflite, precision="fp64")
    with pytest.raises(GpucleanError, match="target mldrift"):
        gpuclean.check(hostile_tflite, target="classic", runtime="js")
    assert gpuclean.check(hostile_tflite, target="classic")["summary"]["runtime"] is None


def test_run_in_reference_interpreter(gclib, hostile_tflite):
    if not gclib.has("interp"):
        pytest.skip("interpreter not built")
    x = np.random.default_rng(0).standard_normal((1, 8, 8, 4)).astype(np.float32)
    try:
        (y32,) = gpuclean.run(hostile_tflite, [x], "fp32")
        (y16,) = gpuclean.run(hostile_tflite, [x], "fp16")
    except GpucleanError as e:
        pytest.skip("interpreter cannot run the demo model yet: %s" % e)
    assert y32.shape == (1, 4, 4, 4) and y32.dtype == np.float32
    assert np.abs(y32 - y16).max() < 0.05
    with Model(hostile_tflite) as m, Interpreter(m) as it:
        it.prepare()
        it.input(0)[...] = x
        it.invoke()
        out = it.output(0)
        assert not out.flags.writeable and np.array_equal(out, y32)


def test_fp16_gpu_runtime_passes_through(gclib, hostile_tflite):
    """gpu_runtime reaches the interpreter: the demo's first CONV_2D has 4 input channels,
    which the native runtime sums in half (docs/fp16-model.md) and LiteRT.js in float."""
    if not gclib.has("interp"):
        pytest.skip("interpreter not built")
    x = np.random.default_rng(1).standard_normal((1, 8, 8, 4)).astype(np.float32)
    try:
        (y32,) = gpuclean.run(hostile_tflite, [x], "fp32")
    except GpucleanError as e:
        pytest.skip("interpreter cannot run the demo model yet: %s" % e)
    (yd,) = gpuclean.run(hostile_tflite, [x], "fp16")
    (yn,) = gpuclean.run(hostile_tflite, [x], "fp16", gpu_runtime="native")
    (yj,) = gpuclean.run(hostile_tflite, [x], "fp16", gpu_runtime="js")
    assert np.array_equal(yd, yn)                         # native is the default
    assert not np.array_equal(yn, yj)
    assert np.abs(yn - y32).max() < 0.05 and np.abs(yj - y32).max() < 0.05
    with Model(hostile_tflite) as m:
        assert Interpreter(m, "fp16", gpu_runtime="js").gpu_runtime == "js"
        with pytest.raises(GpucleanError, match="unknown GPU runtime 'cuda'"):
            Interpreter(m, "fp16", gpu_runtime="cuda")
    from gpuclean.convert import convert_for_gpu
    with pytest.raises(ValueError, match="gpu_runtime"):
        convert_for_gpu(None, gpu_runtime="webgpu")


def test_compare_metrics(gclib):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = gpuclean.compare(a + 1e-3, a, rtol=0, atol=1e-2)
    assert m["pass"] and abs(m["max_abs"] - 1e-3) < 1e-6 and m["argmax_agree"] == 1
    m = gpuclean.compare(a, a[::-1].copy(), rtol=0, atol=0)
    assert not m["pass"] and m["violations"] > 0
    with pytest.raises(GpucleanError, match="shape"):
        gpuclean.compare(a, a.T.copy())
