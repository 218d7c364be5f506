"""Where does the real GPU first go wrong? `gpuclean bisect MODEL --runtime native|js --json`
from Python (the names of the original litert_gpu_toolkit):

    from gpuclean import bisect_gpu_divergence, print_bisect_report
    r = bisect_gpu_divergence("model.tflite", runtime="native", precision="fp32")
    print_bisect_report(r)
    r["first"]        # the first divergent op: {"op", "op_name", "tensor_name", "shape", "cmp": {...}}
                      # or None; r["verdict"]["kind"]: clean / divergent_op / not_isolated / not_on_gpu

The result is the verb's JSON document (docs/json.md, "gpuclean bisect MODEL --runtime"), a
dict, plus "exit" (0 no divergence, 1 a divergence). The search, the probes and the
tolerances are the C tool's; nothing is recomputed here.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile

from ._lib import GpucleanError
from .runtime import RuntimeUnavailable, cli_json

__all__ = ["bisect_gpu_divergence", "print_bisect_report"]


def bisect_gpu_divergence(model_path, runtime="native", precision="fp32", inputs=None, tol=None,
                          timeout=120, gpu_side=None):
    """Bisect `model_path` on the GPU of one LiteRT runtime ("native": libLiteRt from the
    ai-edge-litert wheel; "js": LiteRT.js) against its CPU, at `precision` ("fp32"/"fp16").

    inputs: None (the deterministic sin pattern), an int (random inputs from that seed), or
    a dict {input name or index: numpy array or .npy path}. tol: None (the precision's
    tolerance), or the relative part (rtol) to use instead. timeout: seconds per compile
    and run. gpu_side: None; "interp" is a test seam (the reference interpreter stands in
    for the GPU), for testing only.

    Raises RuntimeUnavailable when the runtime is not installed or there is no GPU adapter
    ("no GPU adapter: cannot bisect on the GPU"), GpucleanError on bad input."""
    if runtime not in ("native", "js"):
        raise ValueError("runtime must be 'native' or 'js', not %r" % (runtime,))
    if precision not in ("fp32", "fp16"):
        raise ValueError("precision must be 'fp32' or 'fp16', not %r" % (precision,))
    args = ["bisect", os.fspath(model_path), "--runtime", runtime, "--precision", precision,
            "--timeout", str(float(timeout)), "--no-progress"]
    if tol is not None:
        args += ["--tol", repr(float(tol))]
    if gpu_side is not None:
        args += ["--gpu-side", str(gpu_side)]
    tmp = None
    try:
        if isinstance(inputs, bool):
            raise TypeError("inputs: None, an int seed or a dict, not a bool")
        if isinstance(inputs, int):
            args += ["--random", str(inputs)]
        elif isinstance(inputs, dict):
            for k, v in inputs.items():
                if isinstance(v, (str, os.PathLike)):
                    f = os.fspath(v)
                else:
                    import numpy as np
                    tmp = tmp or tempfile.mkdtemp(prefix="gpuclean-bisect-in-")
                    f = os.path.join(tmp, "in_%d.npy" % len(os.listdir(tmp)))
                    np.save(f, np.ascontiguousarray(v))
                args += ["--input", "%s=%s" % (k, f)]
        elif inputs is not None:
            raise TypeError("inputs: None, an int seed or a dict {name or index: array or path}")
        # every probe compiles twice (GPU, CPU); the CLI bounds each by `timeout`
        code, doc, err = cli_json(args, timeout=None)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if code == 2 or doc is None:
        msg = err or "gpuclean bisect exited %d without a report" % code
        if any(s in msg for s in ("no GPU adapter", "not installed", "unavailable", "not found")):
            raise RuntimeUnavailable(msg)
        raise GpucleanError(msg)
    doc["exit"] = code
    return doc


def _cmp(c):
    if not c or not c.get("compared"):
        return "not compared" + (": " + c["problem"] if c and c.get("problem") else "")
    s = ""
    if c["nan_mismatch"]:
        s = "%d value(s) NaN/Inf on one side only; finite " % c["nan_mismatch"]
    corr = "n/a" if c["corr"] is None else "%.6f" % c["corr"]
    return s + "max|diff| %.4g %s limit %.4g (rel %.3g), corr %s" % (
        c["max_abs"], ">" if c["max_abs"] > c["limit"] else "<=", c["limit"], c["rel"], corr)


def _point(p):
    return "op %d %s -> '%s' %s" % (p["op"], p["op_name"], p["tensor_name"], p["shape"])


def print_bisect_report(result, file=None):
    """Print a bisect_gpu_divergence result: the runtime, every probe, the first divergent op
    with its inputs and the checker's verdict on it, and the verdict line."""
    out = file or sys.stdout
    r = result
    t = r["tolerance"]
    w = lambda s="": print(s, file=out)
    w("model:     %s (%d ops, %d probe points)" % (r["model"], r["ops"], r["points"]))
    side = "GPU %s" % r["precision"] if r["gpu_side"] == "gpu" else r["gpu_side"]
    w("runtime:   %s %s: %s vs CPU" % (r["runtime"], r.get("runtime_version") or "", side))
    w("inputs:    %s" % r["inputs"])
    w("tolerance: |gpu-cpu| <= %g + %g*max|cpu|, corr >= %g" % (t["atol"], t["rtol"], t["min_corr"]))
    w()
    w("probes: %d prefix compiles (ceil(log2 %d)+2 = %d)" % (r["probes_used"], r["points"], r["probe_bound"]))
    for p in r["probes"]:
        what = "full model (%d outputs)" % len(p.get("outputs", [])) if p["target"] == "full" else _point(p)
        line = "  %3d  %s: %s" % (p["index"], what, p["status"])
        if p["cmp"]["compared"]:
            line += ": " + _cmp(p["cmp"])
        if p.get("residency"):
            line += " (%d/%d nodes on GPU)" % (p["residency"]["gpu_ops"], p["residency"]["gpu_ops"] + p["residency"]["cpu_ops"])
        w(line)
        if p.get("note"):
            w("         " + p["note"])
    f = r.get("first")
    if f:
        w()
        w("first divergent op: %s %s" % (_point(f), f["dtype"]))
        w("  GPU vs CPU: %s" % _cmp(f["cmp"]))
        w("  inputs:")
        for i in r["first_inputs"]:
            if i["kind"] == "none":
                w("    [%d] (absent)" % i["slot"])
                continue
            s = "    [%d] tensor %d '%s' %s" % (i["slot"], i["tensor"], i["tensor_name"], i["dtype"])
            if i["op"] is not None:
                s += " from op %d %s" % (i["op"], i["op_name"])
            if i["kind"] == "probed":
                s += ": %s: %s" % (i["verdict"], _cmp(i["cmp"]))
            else:
                s += ": " + i["kind"].replace("_", " ")
            w(s)
        c = r.get("check")
        if c:
            s = "  check:  %s" % c.get("state", "?")
            if c.get("rule"):
                s += " [%s]" % c["rule"]
            if c.get("reason"):
                s += ": " + c["reason"]
            w(s)
            fx = c.get("fix") or {}
            if fx.get("id") and fx["id"] != "fix.none":
                w("  fix:    %s: %s" % (fx["id"], fx.get("tflite", "")))
            if "numerics" in c:
                w("  numerics: %s%s" % (c["numerics"], " [%s]" % c["numerics_rule"] if c.get("numerics_rule") else ""))
        for k in r.get("check_risks", []):
            w("  risk:   %s: %s" % (k.get("rule"), k.get("message")))
    if not r["monotone"]:
        w("note: the divergence is not monotone along the execution order (%d restart(s))" % r["restarts"])
    if r["skipped"]:
        w("note: %d probe(s) could not be judged on the GPU: counted as within tolerance" % r["skipped"])
    w("verdict: %s" % r["verdict"]["text"])
