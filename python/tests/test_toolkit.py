"""litert_gpu_toolkit: the seed's import line, dict contract and report."""
import io

import pytest


def test_seed_import_line():
    from litert_gpu_toolkit import check_gpu_compatibility, print_report  # noqa: F401


def test_check_gpu_compatibility_contract(gclib, hostile_tflite):
    if not gclib.has("check"):
        pytest.skip("gpuclean check not built")
    from litert_gpu_toolkit import check_gpu_compatibility, print_report
    r = check_gpu_compatibility(hostile_tflite)
    for k in ("compatible", "gpu_compile_ok", "gpu_cpu_fallback", "numerics_ok", "max_abs_diff",
              "signatures", "errors", "warnings", "static", "checked", "gpu_available"):
        assert k in r
    assert r["compatible"] is False                       # GATHER_ND, BROADCAST_TO, ...
    st = r["static"]
    assert st["residency"].startswith("GPU residency:")
    assert any(n["op"] == "GATHER_ND" and n["reason"] for n in st["not_on_gpu"])
    assert any(n.get("fix") for n in st["not_on_gpu"])
    assert r["checked"] in ("static", "static+cpu", "static+gpu")
    buf = io.StringIO()
    print_report(r, file=buf)
    text = buf.getvalue()
    assert "Status: FAILED" in text and "GPU residency:" in text and "Checked:" in text


def test_report_statuses():
    from litert_gpu_toolkit import print_report
    base = {"model": "m.tflite", "gpu_compile_ok": True, "gpu_cpu_fallback": False,
            "numerics_ok": True, "max_abs_diff": 1e-4, "signatures": {"s": {"ran": True, "max_abs_diff": 1e-4, "error": None}},
            "errors": [], "warnings": [], "static": None, "runtime": None}
    buf = io.StringIO()
    print_report(dict(base, compatible=True, checked="static+gpu"), file=buf)
    assert "Status: VERIFIED (fully on GPU)" in buf.getvalue()
    buf = io.StringIO()
    print_report(dict(base, compatible=True, checked="static+cpu"), file=buf)
    assert "STATIC PASS" in buf.getvalue() and "VERIFIED" not in buf.getvalue()
    buf = io.StringIO()
    print_report(dict(base, compatible=False, gpu_cpu_fallback=True, checked="static+gpu"), file=buf)
    assert "Status: FAILED (GPU with CPU fallback)" in buf.getvalue()


def _fake_run(gpu_out, cpu_out, residency=None, compile_ok=True):
    import numpy as np

    def run(path, inputs, **kw):
        sig = [{"key": "serving_default", "ok": True, "outputs": [{"name": "output_0", "file": "x"}]}]
        gm = {"mode": "gpu-fp32", "status": "ok" if compile_ok else "error", "compile_ok": compile_ok,
              "error": None if compile_ok else "Failed to compile: GATHER_ND", "residency": residency,
              "fallback_all": False, "signatures": sig if compile_ok else []}
        doc = {"verdict": {"text": "fake"}, "runtimes": {"js": {
            "ran": True, "versions": "LiteRT.js fake", "gpu": {"available": True, "adapter": "fake"},
            "modes": [{"mode": "cpu", "status": "ok", "compile_ok": True, "signatures": sig}, gm]}}}
        outs = {"js": {"cpu": [{"signature": "serving_default", "name": "output_0", "array": np.asarray(cpu_out)}],
                       "gpu-fp32": [{"signature": "serving_default", "name": "output_0", "array": np.asarray(gpu_out)}]
                       if compile_ok else []}}
        return {"json": doc, "outputs": outs, "exit": 0}
    return run


def test_gpu_path_verdicts(monkeypatch, gclib, hostile_tflite):
    """The GPU branch of check_gpu_compatibility, with the runtime faked (no GPU here)."""
    import gpuclean.toolkit as tk
    clean = {"residency": "GPU residency: 3/3 nodes in 1 partition(s)", "gpu_clean": True, "gpu_nodes": 3,
             "nodes": 3, "partitions": 1, "not_on_gpu": [], "risks": [], "target": "mldrift"}
    monkeypatch.setattr(tk, "_static_summary", lambda st: dict(clean))
    monkeypatch.setattr(tk, "random_inputs", lambda *a, **k: {})
    monkeypatch.setattr(tk, "litert_run", _fake_run([1.0, 2.0005], [1.0, 2.0]))
    r = tk.check_gpu_compatibility(hostile_tflite)
    assert r["checked"] == "static+gpu" and r["compatible"] and r["gpu_compile_ok"] and r["numerics_ok"]
    assert abs(r["max_abs_diff"] - 5e-4) < 1e-9
    monkeypatch.setattr(tk, "litert_run", _fake_run([1.0, 2.5], [1.0, 2.0]))
    r = tk.check_gpu_compatibility(hostile_tflite)
    assert not r["compatible"] and r["numerics_ok"] is False and any("diverge" in e for e in r["errors"])
    monkeypatch.setattr(tk, "litert_run", _fake_run([1.0, 2.0], [1.0, 2.0], {"gpu_ops": 2, "cpu_ops": 1}))
    r = tk.check_gpu_compatibility(hostile_tflite)
    assert r["gpu_cpu_fallback"] and not r["compatible"]      # fallback is not "compatible"
    monkeypatch.setattr(tk, "litert_run", _fake_run(None, [1.0], compile_ok=False))
    r = tk.check_gpu_compatibility(hostile_tflite)
    assert r["gpu_compile_ok"] is False and not r["compatible"]
    assert any("GPU compile failed" in e for e in r["errors"])
