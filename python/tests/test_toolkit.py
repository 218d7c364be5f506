"""litert_gpu_toolkit's checker (gpuclean.toolkit): the seed's import lines, dict contract,
statuses (verified / failed / unverified: never compatible without a GPU run), the GPU path
at fp32 and fp16 (runtime faked: no GPU here), the report (rejected nodes first, grouped,
every node named), PR #307's command line and bisect adapter. No torch needed."""
import io
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def clean_tflite(hostile_tflite, tmp_path_factory):
    """The hostile model after `gpuclean fix`: 9/9 nodes on the GPU (static check)."""
    from gpuclean.runtime import find_cli
    exe = find_cli()
    if not exe:
        pytest.skip("gpuclean CLI not built (make)")
    out = str(tmp_path_factory.mktemp("clean") / "clean.tflite")
    subprocess.run([exe, "fix", hostile_tflite, "-o", out], check=True, capture_output=True)
    return out


def _report(r):
    from litert_gpu_toolkit import print_report
    buf = io.StringIO()
    print_report(r, file=buf)
    return buf.getvalue()


def test_seed_import_lines():
    # the skill's and the seed's README's line, and the reachy YOLO README's
    from litert_gpu_toolkit import check_gpu_compatibility, print_report  # noqa: F401
    from litert_gpu_toolkit.checker import check_gpu_compatibility as c2, print_report as p2  # noqa: F401
    from litert_gpu_toolkit.checker import bisect_gpu_divergence, print_bisect_report  # noqa: F401
    import litert_gpu_toolkit.checker as ck
    assert ck.check_gpu_compatibility is check_gpu_compatibility and callable(ck._main)


def test_failed_static_rejects_first_every_node_named(gclib, hostile_tflite):
    from litert_gpu_toolkit import check_gpu_compatibility
    r = check_gpu_compatibility(hostile_tflite)
    for k in ("compatible", "gpu_compile_ok", "gpu_cpu_fallback", "numerics_ok", "max_abs_diff",
              "signatures", "errors", "warnings", "gpu_fully_accelerated", "status", "static", "checked",
              "gpu_available", "lint"):
        assert k in r, k
    assert r["compatible"] is False and r["status"] == "failed"
    st = r["static"]
    assert st["residency"].startswith("GPU residency: 3/10")
    # not_on_gpu: the five rejected nodes first, then the two supported CPU-partition nodes
    states = [n["state"] for n in st["not_on_gpu"]]
    assert states == ["rejected"] * 5 + ["cpu_partition"] * 2, states
    assert {n["op"] for n in st["not_on_gpu"][:5]} == {"RESHAPE", "TRANSPOSE", "GATHER_ND", "BROADCAST_TO"}
    # errors: one per group, rejected ones first, every node index in them
    rej = [e for e in r["errors"] if "rejected" in e]
    assert r["errors"][:len(rej)] == rej and len(rej) == 4
    assert any("GATHER_ND node 7 rejected" in e for e in rej)
    assert any("RESHAPE nodes 1, 3 rejected" in e for e in rej)
    text = _report(r)
    assert "Status: FAILED" in text and "GPU residency: 3/10" in text and "Checked:" in text
    i_rej = text.index("rejected: GATHER_ND")
    i_cpu = text.index("on the CPU outside the delegated partition")
    assert i_rej < i_cpu
    for name in ("1 'heads'", "3 'merged'", "2 'heads_t'", "7 'stride2'", "8 'bias_expanded'"):
        assert name in text, name


def test_report_order_many_cpu_partition_nodes():
    """An 87/214-style verdict: 120 supported nodes outside the partition come first in
    node order, the rejected GATHER_ND / BROADCAST_TO last. The report must still lead with
    the rejected ones and name every one of them."""
    from gpuclean.toolkit import _static_summary
    nodes = [{"index": i, "subgraph": 0, "op": "CONV_2D", "name": "c%d" % i, "gpu": False,
              "state": "cpu_partition", "reason": "", "rule": None, "fix": None} for i in range(120)]
    nodes += [{"index": 120 + i, "subgraph": 0, "op": "ADD", "name": "a%d" % i, "gpu": True,
               "state": "gpu", "reason": "", "rule": None, "fix": None} for i in range(87)]
    rej = [(207, "GATHER_ND"), (209, "BROADCAST_TO"), (211, "GATHER_ND"), (213, "BROADCAST_TO")]
    for k in range(207, 214):
        op = dict(rej).get(k)
        nodes.append({"index": k, "subgraph": 0, "op": op or "MUL", "name": "t%d" % k, "gpu": op is None,
                      "state": "rejected" if op else "gpu", "reason": "Operation is not supported." if op else "",
                      "rule": "mldrift.unsupported_op" if op else None,
                      "fix": {"id": "fix.x", "torch": "do x"} if op else None})
    st = _static_summary({"summary": {"residency": "GPU residency: 90/214 nodes in 2 partition(s)",
                                      "gpu_clean": False, "nodes": 214, "gpu_nodes": 90},
                          "nodes": nodes, "risks": [], "target": "mldrift"})
    assert [n["index"] for n in st["not_on_gpu"][:4]] == [207, 211, 209, 213]
    r = {"model": "m", "status": "failed", "compatible": False, "checked": "static+cpu", "static": st,
         "errors": [], "warnings": [], "signatures": {}}
    text = _report(r)
    assert text.index("GATHER_ND") < text.index("on the CPU outside")
    assert "nodes 207 't207', 211 't211'" in text and "nodes 209 't209', 213 't213'" in text
    assert "CONV_2D x120" in text and "119 'c119'" in text            # all named, none cut off
    from gpuclean.toolkit import _static_errors
    errs = _static_errors(st)
    assert errs[0].startswith("GATHER_ND nodes 207, 211 rejected") and "nodes 0-119" in errs[-1]


def test_unverified_without_gpu(gclib, clean_tflite):
    from litert_gpu_toolkit import check_gpu_compatibility
    r = check_gpu_compatibility(clean_tflite)
    assert r["static"]["gpu_clean"]
    assert r["gpu_available"] is False               # this machine has no GPU
    assert r["status"] == "unverified" and r["compatible"] is False
    assert r["numerics_ok"] is None and r["gpu_compile_ok"] is None
    text = _report(r)
    assert "Status: UNVERIFIED" in text and "VERIFIED (fully" not in text and "STATIC PASS" not in text


def test_unverified_even_with_fp16_lint(gclib, clean_tflite, monkeypatch):
    """The static verdict is clean and the lint warns of an fp16 SUM overflow: without a
    GPU run that is unverified, never compatible, and the note is in the report."""
    import gpuclean.toolkit as tk
    real = tk.static_check

    def with_risk(path, target="mldrift"):
        doc = real(path, target)
        doc["risks"] = [{"subgraph": 0, "node": 3, "rule": "fp16.sum_large", "level": "warning",
                         "message": "SUM over 50176 elements accumulates in fp16 on the GPU", "fix": ""}]
        return doc
    monkeypatch.setattr(tk, "static_check", with_risk)
    r = tk.check_gpu_compatibility(clean_tflite)
    assert r["compatible"] is False and r["status"] == "unverified"
    assert r["lint"] and r["lint"][0]["rule"] == "fp16.sum_large"
    assert any("fp16.sum_large" in w for w in r["warnings"])
    assert "fp16.sum_large" in _report(r)


def test_seed_style_result_prints_verified():
    """A result from the seed's own checker (no `status`) prints the seed's lines."""
    seed = {"compatible": True, "gpu_compile_ok": True, "gpu_cpu_fallback": False, "numerics_ok": True,
            "max_abs_diff": 1e-4, "signatures": {"serving_default": {"ran": True, "max_abs_diff": 1e-4,
                                                                     "error": None}},
            "errors": [], "warnings": []}
    text = _report(seed)
    assert "Status: VERIFIED (fully on GPU)" in text and "STATIC PASS" not in text
    assert "serving_default: OK (max abs diff 1.000e-04)" in text
    assert "Status: VERIFIED (via GPU with CPU fallback)" in _report(dict(seed, gpu_cpu_fallback=True))
    failed = dict(seed, compatible=False, errors=["Signature 's': outputs diverge from CPU"])
    t = _report(failed)
    assert "Status: FAILED" in t and "outputs diverge from CPU" in t


# ---- the GPU path, runtime faked ----------------------------------------------------------

def _fake_run(modes, cpu_out=(1.0, 2.0), residency=None):
    """litert_run stand-in: `modes` = {"gpu-fp32": output or None (compile failure), ...}."""
    def run(path, inputs, **kw):
        sig = [{"key": "serving_default", "ok": True, "outputs": [{"name": "output_0", "file": "x"}]}]
        ms = [{"mode": "cpu", "status": "ok", "compile_ok": True, "signatures": sig}]
        outs = {"cpu": [{"signature": "serving_default", "name": "output_0", "array": np.asarray(cpu_out)}]}
        for mode, out in modes.items():
            ok = out is not None
            ms.append({"mode": mode, "status": "ok" if ok else "error", "compile_ok": ok,
                       "error": None if ok else "Failed to compile", "residency": residency,
                       "unsupported": [] if ok else [{"op": "GATHER_ND", "reason": "Operation is not supported."}],
                       "fallback_all": False, "signatures": sig if ok else []})
            if ok:
                outs[mode] = [{"signature": "serving_default", "name": "output_0", "array": np.asarray(out)}]
        doc = {"verdict": {"text": "fake"}, "runtimes": {"native": {
            "ran": True, "versions": "native fake", "gpu": {"available": True, "adapter": "fake"}, "modes": ms}}}
        return {"json": doc, "outputs": {"native": outs}, "exit": 0}
    return run


@pytest.fixture
def faked(monkeypatch, gclib, hostile_tflite):
    import gpuclean.toolkit as tk
    clean = {"summary": {"residency": "GPU residency: 3/3 nodes in 1 partition(s)", "gpu_clean": True,
                         "gpu_nodes": 3, "nodes": 3, "partitions": 1}, "nodes": [], "risks": [],
             "target": "mldrift"}
    monkeypatch.setattr(tk, "static_check", lambda p, t="mldrift": clean)
    monkeypatch.setattr(tk, "random_inputs", lambda *a, **k: {})
    seen = {}

    def use(run, **kw):
        def spy(path, inputs, **k):
            seen.update(k)
            return run(path, inputs, **k)
        monkeypatch.setattr(tk, "litert_run", spy)
        return tk.check_gpu_compatibility(hostile_tflite, **kw)
    use.seen = seen
    return use


def test_gpu_runs_fp32_and_fp16(faked):
    r = faked(_fake_run({"gpu-fp32": [1.0, 2.0005], "gpu-fp16": [1.0, 2.004]}))
    assert faked.seen["precision"] == "both"
    assert r["status"] == "verified" and r["compatible"] and r["numerics_ok"] and r["gpu_compile_ok"]
    assert r["gpu_precisions"] == ["fp32", "fp16"] and r["gpu_fully_accelerated"] is True
    assert abs(r["precision"]["fp16"]["max_abs_diff"] - 0.004) < 1e-9
    assert abs(r["max_abs_diff"] - 0.004) < 1e-9
    text = _report(r)
    assert "Status: VERIFIED (fully on GPU)" in text and "fp32/fp16" in text


def test_gpu_fp16_divergence_fails(faked):
    r = faked(_fake_run({"gpu-fp32": [1.0, 2.0], "gpu-fp16": [1.0, float("inf")]}))
    assert r["status"] == "failed" and not r["compatible"] and r["numerics_ok"] is False
    assert r["precision"]["fp32"]["numerics_ok"] and not r["precision"]["fp16"]["numerics_ok"]
    assert r["signatures"]["serving_default"]["nonfinite"] == 1
    assert any("at fp16" in e for e in r["errors"])


def test_gpu_enforce_f32_runs_fp32_only(faked):
    r = faked(_fake_run({"gpu-fp32": [1.0, 2.0]}), enforce_f32=True)
    assert faked.seen["precision"] == "fp32" and r["gpu_precisions"] == ["fp32"] and r["compatible"]


def test_gpu_fallback_and_compile_failure(faked):
    r = faked(_fake_run({"gpu-fp32": [1.0, 2.0], "gpu-fp16": [1.0, 2.0]}, residency={"gpu_ops": 2, "cpu_ops": 1}))
    assert r["gpu_cpu_fallback"] and not r["compatible"] and r["gpu_fully_accelerated"] is False
    assert "Status: FAILED (GPU with CPU fallback)" in _report(r)
    r = faked(_fake_run({"gpu-fp32": None, "gpu-fp16": None}))
    assert r["gpu_compile_ok"] is False and not r["compatible"] and r["status"] == "failed"
    assert any("GPU compile failed" in e and "GATHER_ND" in e for e in r["errors"])


# ---- command line --------------------------------------------------------------------------

def _cli(*args, file_form=False):
    env = dict(os.environ, PYTHONPATH=PY + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable] + ([os.path.join(PY, "litert_gpu_toolkit", "checker.py")] if file_form
                              else ["-m", "litert_gpu_toolkit.checker"])
    return subprocess.run(cmd + list(args), capture_output=True, text=True, env=env, timeout=300)


def test_cli_check_json_and_exit_codes(gclib, clean_tflite, hostile_tflite, tmp_path):
    p = _cli(clean_tflite, "--json", str(tmp_path / "r.json"))
    assert p.returncode == 1, p.stderr               # unverified: no GPU here
    assert "Status: UNVERIFIED" in p.stdout
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["status"] == "unverified" and doc["compatible"] is False
    assert _cli(clean_tflite, "--no-gpu-ok", "--enforce-f32").returncode == 0
    # PR #307's docstring line: nothing diverged here (no GPU), so nothing is bisected
    p = _cli(clean_tflite, "--bisect", "--enforce-f32", "--uniform", "--json", str(tmp_path / "b.json"))
    assert p.returncode == 1 and json.loads((tmp_path / "b.json").read_text())["gpu_precisions"] == []
    p = _cli(hostile_tflite, "--no-gpu-ok", file_form=True)   # PR #307's `python checker.py MODEL`
    assert p.returncode == 1 and "Status: FAILED" in p.stdout


def test_cli_bad_input(tmp_path):
    p = _cli(str(tmp_path / "missing.tflite"))
    assert p.returncode == 2 and "missing.tflite" in p.stderr
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a flatbuffer at all")
    p = _cli(str(bad))
    assert p.returncode == 2 and "not a .tflite" in p.stderr
    p = _cli(str(bad), "--criterion", "nope")
    assert p.returncode == 2


def test_cli_bisect_without_gpu(gclib, clean_tflite):
    """--bisect --signature S goes to bisect_gpu_divergence; with no GPU to bisect on (or
    no gpuclean.bisect_gpu) that is a clear error, exit 2."""
    p = _cli(clean_tflite, "--bisect", "--signature", "serving_default")
    assert p.returncode == 2 and ("no GPU adapter" in p.stderr or "gpuclean.bisect_gpu" in p.stderr), p.stderr


# ---- bisect adapter --------------------------------------------------------------------------

def _no_bisect(monkeypatch):
    """As if gpuclean.bisect_gpu were not installed."""
    import gpuclean
    monkeypatch.setitem(sys.modules, "gpuclean.bisect_gpu", None)
    monkeypatch.delattr(gpuclean, "bisect_gpu", raising=False)


def test_bisect_missing_module_raises(monkeypatch):
    from litert_gpu_toolkit import bisect_gpu_divergence
    _no_bisect(monkeypatch)
    with pytest.raises(NotImplementedError, match="gpuclean.bisect_gpu"):
        bisect_gpu_divergence("m.tflite")


def _gb_doc(first_op=5, kind="divergent_op"):
    """A `gpuclean bisect --runtime --json` document (docs/json.md, bisect_gpu)."""
    cmp = lambda m, p: {"name": "t", "tensor": 9, "compared": True, "max_abs": m, "ref_max_abs": 70000.0,
                        "rel": m / 7e4, "limit": 1400.0, "corr": 0.4 if not p else 0.9999, "nan_mismatch": 0 if p else 3,
                        "identical": False, "pass": p, "problem": None}
    point = lambda op, v: {"index": 0, "target": "point", "op": op, "position": op, "op_name": "SUM", "tensor": 9,
                           "tensor_name": "s", "dtype": "FLOAT32", "shape": [1, 32], "verdict": v,
                           "status": v, "note": None, "residency": None, "seconds": 0.1,
                           "cmp": cmp(3.5 if v == "diverges" else 0.0, v == "ok")}
    probes = [{"index": 1, "target": "full", "verdict": "diverges", "status": "diverges", "note": None,
               "residency": {"gpu_ops": 9, "cpu_ops": 0}, "seconds": 0.1, "cmp": cmp(3.5, False)},
              point(4, "ok"), point(6, "diverges"), point(5, "diverges"),
              dict(point(2, "skip"), status="GPU compile failed", note="PAD: not supported")]
    first = None if kind != "divergent_op" else {
        "op": first_op, "position": first_op, "op_name": "SUM", "tensor": 9, "tensor_name": "s", "dtype": "FLOAT32",
        "shape": [1, 32], "probe": 4, "cmp": cmp(3.5, False)}
    check = None if first is None else {
        "index": first_op, "op": "SUM", "version": 2, "state": "gpu", "rule": None, "reason": "",
        "tensors": [{"index": 8, "name": "x", "role": "input", "dtype": "FLOAT32", "shape": [1, 112, 112, 32], "const": False},
                    {"index": 3, "name": "axes", "role": "input", "dtype": "INT32", "shape": [2], "const": True},
                    {"index": 9, "name": "s", "role": "output", "dtype": "FLOAT32", "shape": [1, 32], "const": False}]}
    return {"schema": 1, "mode": "gpu", "model": "m", "runtime": "native", "precision": "fp16", "gpu_side": "gpu",
            "inputs": "files", "tolerance": {"atol": 1e-3, "rtol": 2e-2, "min_corr": 0.999}, "subgraph": 0,
            "ops": 9, "points": 9, "verdict": {"kind": kind, "text": kind}, "exit": 1, "first": first,
            "first_inputs": [], "check": check, "check_risks": [], "monotone": True, "restarts": 0, "skipped": 1,
            "probes_used": 5, "probe_bound": 6, "probes": probes}


def _fake_bisect(monkeypatch, doc=None, raises=None):
    calls = {}

    def fake(model_path, runtime="native", precision="fp32", inputs=None, tol=None, **kw):
        calls.update(model_path=model_path, runtime=runtime, precision=precision, inputs=inputs, tol=tol, kw=kw)
        if raises:
            raise raises
        return doc
    mod = types.ModuleType("gpuclean.bisect_gpu")
    mod.bisect_gpu_divergence = fake
    monkeypatch.setitem(sys.modules, "gpuclean.bisect_gpu", mod)
    import gpuclean
    monkeypatch.setattr(gpuclean, "bisect_gpu", mod, raising=False)
    return calls


def test_bisect_adapter(monkeypatch, gclib, clean_tflite):
    """PR #307's signature mapped onto gpuclean.bisect_gpu_divergence(model_path, runtime,
    precision, inputs, tol), and its document in PR #307's shape."""
    calls = _fake_bisect(monkeypatch, _gb_doc())
    from litert_gpu_toolkit.checker import bisect_gpu_divergence, print_bisect_report
    r = bisect_gpu_divergence(clean_tflite, seed=3, input_distribution="uniform")
    assert calls["precision"] == "fp16" and calls["runtime"] == "native" and calls["tol"] is None
    x = next(iter(calls["inputs"].values()))
    assert x.min() >= 0.0 and x.max() < 1.0                       # uniform inputs, seed 3
    for k in ("signature", "n_ops", "diverges", "first_divergent_op", "clean_prefix_end",
              "diverging_tensors", "probes", "nonfinite_sightings", "enforce_f32", "criterion", "errors"):
        assert k in r, k
    op = r["first_divergent_op"]
    assert (op["index"], op["name"], op["version"]) == (5, "SUM", 2)
    assert [t["shape"] for t in op["inputs"]] == [[1, 112, 112, 32], [2]] and op["inputs"][1]["constant"]
    assert r["clean_prefix_end"] == 4 and r["diverges"] is True and r["n_ops"] == 9
    assert [p["status"] for p in r["probes"]] == ["diverged", "clean", "diverged", "diverged", "error"]
    assert r["probes"][0]["cut"] == 8 and r["probes"][-1]["error"] == "GPU compile failed: PAD: not supported"
    t = r["diverging_tensors"][0]
    assert t["max_abs_diff"] == 3.5 and t["nonfinite"] == 3 and t["scale"] == 70000.0
    assert r["gpuclean"]["verdict"]["kind"] == "divergent_op"
    bisect_gpu_divergence(clean_tflite, enforce_f32=True, rtol=1e-3)
    assert calls["precision"] == "fp32" and calls["tol"] == 1e-3
    buf = io.StringIO()
    print_bisect_report(r, file=buf)
    text = buf.getvalue()
    assert "First divergent op: #5 SUM (v2) of 9 ops" in text and "prefix ending at op #4 matched CPU" in text
    assert "float32[1, 112, 112, 32], int32[2] const" in text
    assert "#8:d, #4:c, #6:d, #5:d, #2:e" in text


def test_bisect_adapter_verdicts(monkeypatch, gclib, clean_tflite):
    from gpuclean.runtime import RuntimeUnavailable
    from litert_gpu_toolkit.checker import bisect_gpu_divergence
    _fake_bisect(monkeypatch, _gb_doc(kind="clean"))
    r = bisect_gpu_divergence(clean_tflite)
    assert r["diverges"] is False and r["first_divergent_op"] is None and "nothing to bisect" in r["errors"][0]
    _fake_bisect(monkeypatch, _gb_doc(kind="not_on_gpu"))
    r = bisect_gpu_divergence(clean_tflite)
    assert r["diverges"] is None and "does not run on the GPU" in r["errors"][0]
    _fake_bisect(monkeypatch, raises=RuntimeUnavailable("no GPU adapter: cannot bisect on the GPU"))
    r = bisect_gpu_divergence(clean_tflite)
    assert r["unavailable"] and "no GPU adapter" in r["errors"][0]


def test_bisect_through_gpuclean_seam(gclib, tmp_path):
    """The real gpuclean.bisect_gpu on a model that overflows fp16 at the op whose output is
    'overflow', through its test seam (the interpreter at fp16 stands in for the GPU)."""
    import importlib.util
    from gpuclean._lib import repo_root
    if importlib.util.find_spec("gpuclean.bisect_gpu") is None:
        pytest.skip("gpuclean.bisect_gpu not installed")
    maker = os.path.join(repo_root() or ".", "build", "gpu-bisect-models")
    if not os.access(maker, os.X_OK):
        pytest.skip("build/gpu-bisect-models not built (make build/gpu-bisect-models)")
    if not os.path.exists(os.path.join(repo_root() or ".", "build", "litert-wheel", "lib", "libLiteRt.so")):
        pytest.skip("native libLiteRt.so not installed (runtime/litert/setup.sh)")
    subprocess.run([maker, str(tmp_path)], check=True, capture_output=True)
    from litert_gpu_toolkit.checker import bisect_gpu_divergence, print_bisect_report
    m = str(tmp_path / "overflow_chain.tflite")
    x = {"x": np.linspace(0.0, 1.0, 256, dtype=np.float32).reshape(1, 8, 8, 4)}
    r = bisect_gpu_divergence(m, inputs=x, gpu_side="interp")
    op = r["first_divergent_op"]
    assert r["diverges"] is True and op["name"] == "MUL" and op["outputs"][0]["name"] == "overflow"
    # native fp16 stores a value past 65504 as +inf (measured on the H200; docs/fp16-model.md)
    t0 = r["diverging_tensors"][0]
    assert t0["nonfinite"] > 0 and r["clean_prefix_end"] < op["index"]
    assert r["gpuclean"]["inputs"] == "files"
    buf = io.StringIO()
    print_bisect_report(r, file=buf)
    assert "First divergent op: #%d MUL" % op["index"] in buf.getvalue()
    r = bisect_gpu_divergence(m, inputs=x, enforce_f32=True, gpu_side="interp")
    assert r["diverges"] is False and r["first_divergent_op"] is None


def test_check_bisect_on_divergence(faked, monkeypatch):
    """check_gpu_compatibility(bisect=True) bisects each diverging signature (PR #307);
    without gpuclean.bisect_gpu that is a warning in the result, not an exception."""
    _no_bisect(monkeypatch)
    run = _fake_run({"gpu-fp32": [1.0, 2.0], "gpu-fp16": [1.0, 9.0]})
    r = faked(run, bisect=True)
    assert r["status"] == "failed" and "serving_default" in r["bisect"]
    b = r["bisect"]["serving_default"]
    assert b["first_divergent_op"] is None and "gpuclean.bisect_gpu" in b["errors"][0]
    assert any("gpuclean.bisect_gpu" in w for w in r["warnings"])
    assert "No op isolated." in _report(r)
    _fake_bisect(monkeypatch, _gb_doc(first_op=5))
    r = faked(run, bisect=True)
    b = r["bisect"]["serving_default"]
    assert b["first_divergent_op"]["index"] == 5 and b["clean_prefix_end"] == 4
    assert "First divergent op: #5 SUM" in _report(r)
    r = faked(_fake_run({"gpu-fp32": [1.0, 2.0], "gpu-fp16": [1.0, 2.0]}), bisect=True)
    assert "bisect" not in r                      # nothing diverged: nothing to bisect


def _replays():
    d = os.environ.get("GPUCLEAN_LITERT_REPLAY")
    if not d or not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json"))


@pytest.mark.skipif(not _replays(), reason="GPUCLEAN_LITERT_REPLAY not set: a directory of `gpuclean litert "
                    "MODEL --precision both --out DIR/STEM --json > DIR/STEM.json` runs from a GPU machine, "
                    "with DIR/STEM.tflite")
@pytest.mark.parametrize("doc", _replays() or ["-"])
def test_replayed_gpu_run(doc, gclib, monkeypatch):
    """check_gpu_compatibility's GPU branch on a real GPU run made elsewhere (the GPU
    machine has no numpy): the run's JSON and output files are replayed as litert_run."""
    import gpuclean.toolkit as tk
    from gpuclean.runtime import _load_outputs
    stem = doc[:-5]
    model = stem + ".tflite"
    if not os.path.exists(model):
        pytest.skip("%s: the model is not next to the run" % model)
    with open(doc) as f:
        run = json.load(f)
    for name, rt in run.get("runtimes", {}).items():
        if rt.get("ran"):
            rt["dir"] = os.path.join(stem, name)
    outs = {n: _load_outputs(rt) for n, rt in run["runtimes"].items() if rt.get("ran")}
    monkeypatch.setattr(tk, "litert_run", lambda *a, **k: {"json": run, "outputs": outs, "exit": 0})
    r = tk.check_gpu_compatibility(model)
    print(_report(r))
    assert r["checked"] == "static+gpu" and r["status"] in ("verified", "failed")
    assert r["gpu_precisions"] == ["fp32", "fp16"]
    assert r["compatible"] == (r["status"] == "verified")


def test_result_matches_docs_json(faked, hostile_tflite, clean_tflite, monkeypatch):
    """Every result shape (failed, unverified, verified, with bisect) against the
    `toolkit_check` block of docs/json.md, through tests/cli/json_doc.py's checker."""
    import importlib.util
    from gpuclean._lib import repo_root
    spec = importlib.util.spec_from_file_location("json_doc", os.path.join(repo_root(), "tests", "cli", "json_doc.py"))
    jd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(jd)
    schema = jd.parse_doc()["toolkit_check"]
    import gpuclean.toolkit as tk
    docs = [faked(_fake_run({"gpu-fp32": [1.0, 2.0], "gpu-fp16": [1.0, 2.001]})),
            faked(_fake_run({"gpu-fp32": [1.0, 2.0], "gpu-fp16": [1.0, 7.0]}), bisect=True)]
    monkeypatch.undo()
    docs += [tk.check_gpu_compatibility(hostile_tflite), tk.check_gpu_compatibility(clean_tflite)]
    assert [d["status"] for d in docs] == ["verified", "failed", "failed", "unverified"]
    for d in docs:
        c = jd.Checker({"toolkit_check": schema})
        c.obj(schema, "toolkit_check", "", json.loads(json.dumps(d, default=str)))
        assert not c.errors, c.errors


def test_static_summary_numerics():
    """a node gpuclean check marks as computing wrong numbers (a measured fact) reaches the
    static summary, its errors and the report lines; documents without the fields still read"""
    from gpuclean.toolkit import _static_errors, _static_lines, _static_summary
    ev = {"fact": "numerics.cumsum_exclusive", "runtime": "native", "version": "2.3.0", "device": "nvidia-h200",
          "precision": "fp32", "verdict": "wrong", "error": "max_abs=3", "cases": ["c"], "message": "CUMSUM ignores exclusive",
          "fix": "fix.cumsum.exclusive", "source": "data/gpu/facts.tsv:30"}
    doc = {"target": "mldrift", "summary": {"residency": "GPU residency: 1/1 nodes in 1 partition(s)", "gpu_clean": True,
                                            "gpu_correct": False, "runtime": "native-2.3.0", "gpu_nodes": 1, "nodes": 1},
           "nodes": [{"index": 0, "op": "CUMSUM", "gpu": True, "numerics": "wrong",
                      "numerics_rule": "numerics.cumsum_exclusive", "evidence": ev}], "risks": []}
    st = _static_summary(doc)
    assert st["gpu_correct"] is False and st["runtime"] == "native-2.3.0"
    assert st["wrong_numerics"] == [{"index": 0, "subgraph": 0, "op": "CUMSUM", "rule": "numerics.cumsum_exclusive",
                                     "message": "CUMSUM ignores exclusive", "error": "max_abs=3",
                                     "fix_id": "fix.cumsum.exclusive"}]
    want = "CUMSUM node 0: wrong numbers on the GPU (measured on native-2.3.0): CUMSUM ignores exclusive " \
           "[numerics.cumsum_exclusive]"
    assert _static_errors(st) == [want]
    assert any("wrong numbers on the GPU (measured on native-2.3.0): CUMSUM node 0" in x for x in _static_lines(st))
    old = _static_summary({"summary": {"gpu_clean": True}, "nodes": [{"index": 0, "op": "ADD", "gpu": True}]})
    assert old["gpu_correct"] is True and old["wrong_numerics"] == []
