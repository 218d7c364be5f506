"""tools/fp16_predict.py with kind "extra" (tools/fp16_models.py) end to end, without a GPU:
a fake device report for one extra model (its "GPU fp16" error set to what the native
emulation predicts, its CPU max|y| to our fp32 one) goes through collect (kind detected
from the stem), then the table scores it; pack_extra picks the kept model and its inputs."""
import argparse
import contextlib
import io
import json
import os
import shutil
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tool(name):
    """tools/<name>.py as a module (tools/ stays off sys.path)."""
    import importlib.util
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tools", name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


@pytest.fixture
def tools(tmp_path, monkeypatch, hostile_tflite, gclib):
    fp16_predict = _tool("fp16_predict")
    fp16_models = _tool("fp16_models")
    out = tmp_path / "extra"
    out.mkdir()
    monkeypatch.setattr(fp16_models, "OUT", str(out))
    monkeypatch.setitem(fp16_models.BY_NAME, "fake_extra", {"name": "fake_extra", "source": "test"})
    monkeypatch.setattr(fp16_predict, "DATA", str(tmp_path / "data"))
    monkeypatch.setattr(fp16_predict, "ZOO_JSONL", str(tmp_path / "no-zoo.jsonl"))
    monkeypatch.setattr(fp16_predict, "SHARED", str(tmp_path / "no-shared"))
    f = out / "fake_extra__twin.tflite"
    shutil.copyfile(hostile_tflite, f)
    return fp16_models, fp16_predict, str(f), tmp_path


def _fake_report(fp16_predict, path, scale):
    """A device.sh reports.jsonl line: native gpu-fp16 error = scale x the prediction."""
    pred = fp16_predict.predict(path, None)
    outs16, outs32 = [], []
    for k, ours in enumerate(pred["fp32"]):
        ref_max = float(np.max(np.abs(ours)))
        outs16.append({"index": k, "name": "y%d" % k, "max_abs": scale * fp16_predict.maxdiff(pred["native"][k], ours),
                       "ref_max_abs": ref_max, "corr": 1.0, "n": int(ours.size)})
        outs32.append({"index": k, "name": "y%d" % k, "max_abs": 0.0, "ref_max_abs": ref_max, "corr": 1.0,
                       "n": int(ours.size)})
    modes = [{"mode": m, "status": "ok", "fallback_all": False, "residency": {"gpu_ops": 9, "cpu_ops": 0}}
             for m in ("gpu-fp16", "gpu-fp32")]
    return {"model": "/tmp/gpuclean-litert/models/" + os.path.basename(path),
            "runtimes": {"native": {"version": "2.3.0", "modes": modes}},
            "comparisons": [{"runtime": "native", "mode": "gpu-fp16", "ref_mode": "cpu", "outputs": outs16},
                            {"runtime": "native", "mode": "gpu-fp32", "ref_mode": "cpu", "outputs": outs32}]}, pred


def test_extra_collect_and_table(tools):
    fp16_models, fp16_predict, path, tmp = tools
    dev = tmp / "device-out"
    dev.mkdir()
    rep, pred = _fake_report(fp16_predict, path, 2.0)
    (dev / "reports.jsonl").write_text(json.dumps(rep) + "\n")
    (dev / "env.txt").write_text("date: 2026-12-01T00:00:00Z\nNVIDIA FakeGPU, 1.0, 1 MiB\n")
    assert fp16_predict.cmd_collect(argparse.Namespace(dir=str(dev), kind=None)) == 0
    fn = tmp / "data" / "native-2.3.0__nvidia-fakegpu.jsonl"
    rows = [json.loads(l) for l in fn.read_text().splitlines()]
    assert {r["mode"] for r in rows} == {"gpu-fp16", "gpu-fp32"}
    assert all(r["kind"] == "extra" and r["model"] == "fake_extra__twin" for r in rows)
    assert all(r["sha256"] and len(r["sha256"]) == 64 for r in rows)      # found in fp16_models.OUT
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert fp16_predict.cmd_table(argparse.Namespace(md=None, only=None, zoo=str(tmp / "no-zoo"))) == 0
    text = buf.getvalue()
    lines = [l for l in text.splitlines() if l.startswith("| fake_extra__twin | extra | yes |")]
    assert len(lines) == len(pred["fp32"]), text
    nonzero = sum(1 for k, o in enumerate(pred["fp32"]) if fp16_predict.maxdiff(pred["native"][k], o) > 0)
    assert nonzero > 0                                   # the demo model rounds somewhere in fp16
    assert sum("| 0.50 |" in l for l in lines) == nonzero  # predicted / measured = 1 / 2
    assert "native: 1 distinct whole models scored (extra 1)" in text


def test_extra_file_differs_not_scored(tools):
    fp16_models, fp16_predict, path, tmp = tools
    dev = tmp / "device-out"
    dev.mkdir()
    rep, _ = _fake_report(fp16_predict, path, 1.0)
    for c in rep["comparisons"]:
        for o in c["outputs"]:
            o["ref_max_abs"] *= 1.5                      # another file ran there
    (dev / "reports.jsonl").write_text(json.dumps(rep) + "\n")
    assert fp16_predict.cmd_collect(argparse.Namespace(dir=str(dev), kind="extra")) == 0
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fp16_predict.cmd_table(argparse.Namespace(md=None, only=None, zoo=str(tmp / "no-zoo")))
    text = buf.getvalue()
    assert "file differs" in text and "distinct whole models scored" not in text


def test_pack_extra_lists_kept_with_inputs(tools, monkeypatch):
    fp16_models, fp16_predict, path, tmp = tools
    out = tmp / "extra"
    (out / "fake_extra.json").write_text(json.dumps({"name": "fake_extra", "kept": True,
                                                     "device_file": "fake_extra__twin.tflite"}))
    monkeypatch.setattr(fp16_models, "MODELS", [{"name": "fake_extra"}])
    idir = out / "inputs" / "fake_extra__twin"
    idir.mkdir(parents=True)
    for k in (1, 0, 10):
        np.save(idir / ("input_%d.npy" % k), np.zeros(3, np.int32))
    files, inputs = fp16_predict.pack_extra(None)
    assert files == [path]
    assert [os.path.basename(f) for f in inputs["fake_extra__twin"]] == \
        ["input_0.npy", "input_1.npy", "input_10.npy"]
    (out / "fake_extra.json").write_text(json.dumps({"name": "fake_extra", "kept": False,
                                                     "device_file": "fake_extra__twin.tflite"}))
    assert fp16_predict.pack_extra(None) == ([], {})
