"""The seed's checker API (litert_gpu_toolkit.checker, with open PR #307's additions), over
gpuclean:

    from litert_gpu_toolkit import check_gpu_compatibility, print_report
    print_report(check_gpu_compatibility("model.tflite"))

check_gpu_compatibility always runs gpuclean's static GPU check (per-node verdicts,
reasons, fixes, residency line, fp16 risk notes) and the real LiteRT runtime through
`gpuclean litert`: every signature compiled for the CPU (the reference) and, where a GPU
exists, for the GPU accelerator at fp32 *and* fp16 (enforce_f32=True: fp32 only), run on
the same seeded random inputs and compared with the seed's tolerances (allclose, rtol =
atol = 1e-2).

`result["status"]` says what was shown:
  "verified"    a GPU ran every signature at every precision asked, every node on the GPU,
                outputs within tolerance; `compatible` is True only then;
  "failed"      a finding: a GPU run failed, fell back to the CPU or diverged, the CPU
                could not run the model, or (no GPU here) the static check rejects nodes;
  "unverified"  no GPU ran and nothing failed: `compatible` is False, `numerics_ok` None.
Differences from the seed, on purpose: no GPU run never counts as compatible; a CPU
fallback is a failure (flagged, as the seed flagged it, but not "compatible"); the static
verdict and the fp16 notes are part of the result; no torch import.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys

import numpy as np

from ._lib import GpucleanError
from .runtime import RuntimeUnavailable, cli_json, litert_run

log = logging.getLogger("litert_gpu_toolkit")

__all__ = ["check_gpu_compatibility", "print_report", "format_report", "static_check",
           "random_inputs", "bisect_gpu_divergence", "print_bisect_report",
           "format_bisect_report", "main"]

BANNER = "=" * 60


# ---- static check ---------------------------------------------------------------------------

def static_check(tflite_path, target="mldrift", runtime=None):
    """gpuclean check as a dict (through the C library, else the CLI); runtime ("native",
    "js", "native-2.3", ...; None: the default) selects the measured GPU facts."""
    try:
        from .core import Model
        with Model(tflite_path) as m:
            return m.check(target, runtime) if runtime else m.check(target)
    except (GpucleanError, NotImplementedError, OSError) as e:
        first = str(e)
    try:
        code, doc, err = cli_json(["check", str(tflite_path), "--target", target]
                                  + (["--runtime", runtime] if runtime else []))
        if doc is not None:
            return doc
        raise GpucleanError(err or first)
    except RuntimeUnavailable:
        raise GpucleanError(first)


def _ranges(idx):
    """[1, 2, 3, 7, 9, 10] -> "1-3, 7, 9-10"."""
    idx = sorted(idx)
    out, i = [], 0
    while i < len(idx):
        j = i
        while j + 1 < len(idx) and idx[j + 1] == idx[j] + 1:
            j += 1
        out.append(str(idx[i]) if i == j else "%d-%d" % (idx[i], idx[j]))
        i = j + 1
    return ", ".join(out)


_STATE_ORDER = {"rejected": 0, "init_failed": 1, "fp16_dequant_cpu": 2, "skipped": 3,
                "cpu_partition": 4}


def _groups(nodes):
    """Non-GPU nodes grouped by (state, op, rule), rejected first, then the other states,
    supported nodes outside the partition last; within a state by first node index."""
    g = {}
    for n in nodes:
        k = (n["state"] or "", n["subgraph"], n["op"], n["rule"] or "")
        e = g.setdefault(k, {"state": n["state"], "subgraph": n["subgraph"], "op": n["op"],
                             "rule": n["rule"], "fix": n["fix"], "fix_id": n["fix_id"],
                             "nodes": [], "names": [], "reasons": []})
        e["nodes"].append(n["index"])
        e["names"].append(n.get("name") or "")
        e["reasons"].append(n["reason"] or "")
    return sorted(g.values(), key=lambda e: (_STATE_ORDER.get(e["state"], 3), e["subgraph"], min(e["nodes"])))


def _static_summary(st):
    s = st.get("summary", {})
    nodes = [{"index": n["index"], "subgraph": n.get("subgraph", 0), "op": n["op"],
              "name": n.get("name", ""), "state": n.get("state"), "reason": n.get("reason", ""),
              "rule": n.get("rule"),
              "fix": (n.get("fix") or {}).get("torch") or (n.get("fix") or {}).get("tflite"),
              "fix_id": (n.get("fix") or {}).get("id")}
             for n in st.get("nodes", []) if not n.get("gpu")]
    groups = _groups(nodes)
    order = {(e["state"], e["subgraph"], e["op"], e["rule"]): i for i, e in enumerate(groups)}
    nodes.sort(key=lambda n: (order[(n["state"], n["subgraph"], n["op"], n["rule"])], n["index"]))
    risks = st.get("risks", []) or []
    wrong = [{"index": n["index"], "subgraph": n.get("subgraph", 0), "op": n["op"], "rule": n.get("numerics_rule"),
              "message": (n.get("evidence") or {}).get("message"), "error": (n.get("evidence") or {}).get("error"),
              "fix_id": (n.get("evidence") or {}).get("fix")}
             for n in st.get("nodes", []) if n.get("numerics") == "wrong"]
    return {"residency": s.get("residency"), "gpu_clean": bool(s.get("gpu_clean")),
            "gpu_correct": s.get("gpu_correct", True), "runtime": s.get("runtime"), "wrong_numerics": wrong,
            "gpu_nodes": s.get("gpu_nodes"), "nodes": s.get("nodes"), "partitions": s.get("partitions"),
            "not_on_gpu": nodes, "groups": groups,
            "rejected": sum(len(e["nodes"]) for e in groups if e["state"] == "rejected"),
            "risks": risks, "lint": [r for r in risks if r.get("level") == "warning"],
            "target": st.get("target")}


def _static_errors(st):
    """One error per group, rejected first, every node named."""
    out = []
    for e in st["groups"]:
        sg = "subgraph %d " % e["subgraph"] if e["subgraph"] else ""
        where = "%snode%s %s" % (sg, "s" if len(e["nodes"]) > 1 else "", _ranges(e["nodes"]))
        if e["state"] == "cpu_partition":
            out.append("%s %s: supported, but stays on the CPU outside the delegated partition"
                       % (e["op"], where))
        else:
            out.append("%s %s %s: %s [%s]" % (e["op"], where, e["state"].replace("_", " "),
                                              e["reasons"][0] or "-", e["rule"] or "-"))
    for n in st.get("wrong_numerics", []):
        out.append("%s node %d: wrong numbers on the GPU (measured on %s): %s [%s]"
                   % (n["op"], n["index"], st.get("runtime"), n["message"], n["rule"]))
    return out


# ---- inputs ---------------------------------------------------------------------------------

def _signature_inputs(tflite_path):
    """[(signature key, [(input name, dtype, shape)])] from gpuclean inspect."""
    from .core import Model
    with Model(tflite_path) as m:
        ins = m.inspect()
    sigs = []
    for s in ins.get("signatures") or []:
        sg = ins["subgraphs"][s.get("subgraph", 0)]
        items = []
        for i in s.get("inputs", []):
            t = sg["tensors"][i["tensor"]]
            items.append((i["name"], t["dtype"], t["shape"]))
        sigs.append((s.get("key", "serving_default"), items))
    if not sigs:
        sg = ins["subgraphs"][0]
        sigs.append(("<subgraph 0>", [(str(k), sg["tensors"][t]["dtype"], sg["tensors"][t]["shape"])
                                      for k, t in enumerate(sg["inputs"])]))
    return sigs


_NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT32": np.int32, "INT64": np.int64,
       "INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "BOOL": np.bool_}


def random_inputs(tflite_path, seed=0, input_distribution="normal", int_high=0, signature=None):
    """The seed's input policy: floats standard normal (or uniform [0, 1) with
    input_distribution="uniform"), integers zeros (or ids in [0, int_high)), dynamic dims
    as 1. {name: array} of `signature` (default: the first)."""
    if input_distribution not in ("normal", "uniform"):
        raise ValueError("input_distribution %r (normal or uniform)" % (input_distribution,))
    rng = np.random.default_rng(seed)
    sigs = _signature_inputs(tflite_path)
    items = dict(sigs).get(signature, sigs[0][1]) if signature is not None else sigs[0][1]
    out = {}
    for name, dtype, shape in items:
        shape = [d if d > 0 else 1 for d in shape]
        dt = _NP.get(dtype, np.float32)
        if np.issubdtype(dt, np.floating):
            a = rng.standard_normal(shape) if input_distribution == "normal" else rng.random(shape)
        elif int_high > 0 and dt is not np.bool_:
            a = rng.integers(0, int_high, size=shape)
        else:
            a = np.zeros(shape)
        out[name] = a.astype(dt)
    return out


def _resolve_inputs(path, inputs, seed, input_distribution, int_high, signature=None):
    """The caller's inputs ({signature: {name: array}} or a flat {name: array}), else the
    seed's random inputs."""
    if not inputs:
        return random_inputs(path, seed, input_distribution, int_high, signature)
    vals = list(inputs.values())
    if vals and all(isinstance(v, dict) for v in vals):
        chosen = inputs.get(signature) if signature is not None else None
        return {k: np.asarray(a) for k, a in (chosen if chosen is not None else vals[0]).items()}
    return {k: np.asarray(a) for k, a in inputs.items()}


# ---- comparison -----------------------------------------------------------------------------

def _compare(ref, got, rtol, atol):
    """PR #307's comparison: floats allclose with NaN == NaN, max |diff| over finite pairs,
    `nonfinite` = GPU NaN/Inf where the CPU is finite; other dtypes exact."""
    ref, got = np.asarray(ref), np.asarray(got)
    if ref.shape != got.shape:
        return {"ok": False, "max_abs_diff": float("inf"), "nonfinite": 0,
                "error": "shape %s vs %s" % (list(got.shape), list(ref.shape))}
    if ref.dtype.kind == "f" or got.dtype.kind == "f":
        r, g = ref.astype(np.float64), got.astype(np.float64)
        both = np.isfinite(r) & np.isfinite(g)
        d = float(np.max(np.abs(g[both] - r[both]))) if both.any() else 0.0
        nonfinite = int(np.sum(np.isfinite(r) & ~np.isfinite(g)))
        ok = bool(np.allclose(g, r, rtol=rtol, atol=atol, equal_nan=True))
        return {"ok": ok, "max_abs_diff": d, "nonfinite": nonfinite,
                "identical": bool(np.array_equal(g, r, equal_nan=True))}
    eq = bool(np.array_equal(ref, got))
    return {"ok": eq, "max_abs_diff": 0.0 if eq else float(np.max(np.abs(ref.astype(np.int64) - got.astype(np.int64)))),
            "nonfinite": 0, "identical": eq}


# ---- check_gpu_compatibility ----------------------------------------------------------------

def _new_result(path):
    return {"model": path, "compatible": False, "status": "unverified", "gpu_compile_ok": None,
            "gpu_cpu_fallback": False, "gpu_fully_accelerated": None, "numerics_ok": None,
            "max_abs_diff": None, "signatures": {}, "errors": [], "warnings": [], "static": None,
            "lint": [], "gpu_available": False, "gpu_precisions": [], "precision": {},
            "checked": "static", "runtime": None}


def _gpu_modes(rt):
    return [m for m in rt.get("modes", []) if m["mode"].startswith("gpu-")]


def _take_runtime(res, run, rtol, atol):
    """Fold one `gpuclean litert` run into `res`; returns (cpu_ok, gpu_ran)."""
    doc = run["json"]
    res["runtime"] = {"verdict": (doc.get("verdict") or {}).get("text"),
                      "versions": {k: v.get("versions") if v.get("ran") else "not run: %s" % (v.get("reason") or "-")
                                   for k, v in doc.get("runtimes", {}).items()},
                      "cpu_agree": doc.get("cpu_agree")}
    cpu_ok, gpu_ran = True, False
    for rname, rt in doc.get("runtimes", {}).items():
        if not rt.get("ran"):
            continue
        res["gpu_available"] |= bool((rt.get("gpu") or {}).get("available"))
        modes = {m["mode"]: m for m in rt.get("modes", [])}
        outs = run["outputs"].get(rname, {})
        cpu = modes.get("cpu")
        if not cpu or cpu.get("status") != "ok":
            cpu_ok = False
            res["errors"].append("%s: CPU compile failed: %s" % (rname, (cpu or {}).get("error")))
            continue
        for s in cpu.get("signatures") or []:
            res["signatures"].setdefault(s.get("key") or "main", {
                "ran": bool(s.get("ok")), "max_abs_diff": None, "error": s.get("error"), "nonfinite": 0})
        for m in _gpu_modes(rt):
            gm, prec = m["mode"], m["mode"][4:]
            if m.get("status") == "unavailable":
                continue
            if m.get("status") == "runtime_limit":
                res["warnings"].append("%s %s: runtime limit: %s" % (rname, gm, m.get("limit") or m.get("error")))
                continue
            gpu_ran = True
            res["gpu_available"] = True
            pr = res["precision"].setdefault(prec, {"compile_ok": True, "fallback": False,
                                                    "max_abs_diff": None, "numerics_ok": True})
            if prec not in res["gpu_precisions"]:
                res["gpu_precisions"].append(prec)
            if not m.get("compile_ok"):
                pr["compile_ok"] = False
                res["gpu_compile_ok"] = False
                why = "; ".join("%s: %s" % (u.get("op"), u.get("reason")) for u in m.get("unsupported") or [])
                res["errors"].append("%s %s: GPU compile failed: %s%s" % (rname, gm, m.get("error"),
                                                                         (" (" + why + ")") if why else ""))
                continue
            if res["gpu_compile_ok"] is None:
                res["gpu_compile_ok"] = True
            if m.get("status") != "ok":
                pr["numerics_ok"] = False
                res["errors"].append("%s %s: GPU run failed: %s" % (rname, gm, m.get("error")))
            r = m.get("residency") or {}
            full = not (r.get("cpu_ops") or m.get("fallback_all"))
            res["gpu_fully_accelerated"] = full if res["gpu_fully_accelerated"] in (None, True) else False
            if not full:
                pr["fallback"] = True
                res["gpu_cpu_fallback"] = True
                res["warnings"].append("%s %s: CPU fallback: %s" % (
                    rname, gm, r.get("line") or "%s/%s nodes on GPU" % (
                        r.get("gpu_ops"), (r.get("gpu_ops") or 0) + (r.get("cpu_ops") or 0))))
            for c, g in zip(outs.get("cpu", []), outs.get(gm, [])):
                key = c["signature"] or "main"
                entry = res["signatures"].setdefault(key, {"ran": True, "max_abs_diff": None,
                                                           "error": None, "nonfinite": 0})
                if c["array"] is None or g["array"] is None:
                    entry.update(ran=False, error="%s: output %s missing" % (gm, c["name"]))
                    continue
                st = _compare(c["array"], g["array"], rtol, atol)
                d = st["max_abs_diff"]
                entry["max_abs_diff"] = max(d, entry["max_abs_diff"] or 0.0)
                entry["nonfinite"] += st["nonfinite"]
                pr["max_abs_diff"] = max(d, pr["max_abs_diff"] or 0.0)
                res["max_abs_diff"] = max(d, res["max_abs_diff"] or 0.0)
                if not st["ok"]:
                    pr["numerics_ok"] = False
                    msg = "outputs diverge from CPU at %s (max abs diff %.3e%s)" % (
                        prec, d, ", %d non-finite" % st["nonfinite"] if st["nonfinite"] else "")
                    if not entry["error"]:
                        entry["error"] = msg
                    res["errors"].append("Signature '%s' (%s): %s" % (key, rname, msg))
                elif st["identical"] and prec == "fp16" and np.asarray(c["array"]).dtype.kind == "f":
                    res["warnings"].append("%s %s/%s: GPU output bit-identical to CPU: it probably did "
                                           "not run on the GPU" % (rname, key, gm))
    return cpu_ok, gpu_ran


def check_gpu_compatibility(tflite_path, rtol=1e-2, atol=1e-2, seed=0, inputs=None,
                            input_distribution="normal", int_high=0, enforce_f32=False,
                            bisect=False, bisect_criterion="auto", work_dir=None, *,
                            runtime="both", precision=None, target="mldrift", timeout=120):
    """Check a .tflite for the LiteRT GPU accelerator (see the module docstring).

    The seed's and PR #307's arguments: rtol/atol (allclose, GPU vs CPU), seed (random
    inputs), inputs ({signature: {name: array}} or {name: array}), input_distribution
    ("normal" / "uniform"), int_high (integer inputs as ids in [0, int_high) instead of
    zeros), enforce_f32 (GPU at fp32 only), bisect (on divergence, bisect_gpu_divergence per
    diverging signature, under result["bisect"]), bisect_criterion, work_dir. gpuclean's:
    runtime ("both", "native", "js"), precision (GPU precision: "both" by default, "fp32"
    with enforce_f32), target (static check target), timeout (seconds per compile+run).

    Returns the seed's keys (compatible, gpu_compile_ok, gpu_cpu_fallback, numerics_ok,
    max_abs_diff, signatures {sig: {ran, max_abs_diff, error, nonfinite}}, errors,
    warnings), PR #307's gpu_fully_accelerated and bisect, and status, checked
    ("static+gpu", "static+cpu", "static"), gpu_available, gpu_precisions, precision
    {fp32|fp16: {compile_ok, fallback, max_abs_diff, numerics_ok}}, static (residency,
    groups, not_on_gpu: rejected nodes first), lint (fp16 risk warnings), runtime."""
    path = os.fspath(tflite_path)
    if precision is None:
        precision = "fp32" if enforce_f32 else "both"
    res = _new_result(path)
    try:
        res["static"] = _static_summary(static_check(path, target, runtime=runtime) if runtime in ("native", "js")
                                        else static_check(path, target))
    except (GpucleanError, RuntimeUnavailable) as e:
        res["errors"].append("static check failed: %s" % e)
    st = res["static"]
    static_ok = bool(st and st["gpu_clean"] and st.get("gpu_correct", True))
    if st:
        res["lint"] = list(st["lint"])
        for r in st["lint"]:
            res["warnings"].append("fp16 risk %s (node %s): %s" % (r.get("rule"), r.get("node"),
                                                                 r.get("message")))
    try:
        run_inputs = _resolve_inputs(path, inputs, seed, input_distribution, int_high)
        run = litert_run(path, run_inputs, accelerator="both", precision=precision,
                         runtime=runtime, timeout=timeout)
    except (RuntimeUnavailable, GpucleanError, OSError) as e:
        res["warnings"].append("LiteRT runtime not run: %s" % e)
        cpu_ok, gpu_ran = None, False
    else:
        cpu_ok, gpu_ran = _take_runtime(res, run, rtol, atol)
    if gpu_ran:
        res["checked"] = "static+gpu"
        if res["gpu_compile_ok"]:
            res["numerics_ok"] = all(p["numerics_ok"] for p in res["precision"].values()
                                     if p["compile_ok"])
        if res["gpu_cpu_fallback"] and not [e for e in res["errors"] if "diverge" in e]:
            res["errors"].append("CPU fallback: not every node runs on the GPU")
        if st and not static_ok and not res["gpu_cpu_fallback"] and res["gpu_compile_ok"]:
            res["warnings"].append("the static check predicted %s (%d node(s) rejected); the GPU "
                                   "runtime put every node on the GPU" % (st["residency"], st["rejected"]))
        res["compatible"] = bool(cpu_ok and res["gpu_compile_ok"] and not res["gpu_cpu_fallback"]
                                 and res["numerics_ok"]
                                 and all(s["ran"] for s in res["signatures"].values()))
        res["status"] = "verified" if res["compatible"] else "failed"
    else:
        res["checked"] = "static+cpu" if cpu_ok else "static"
        if st and not static_ok:
            res["errors"][:0] = _static_errors(st)
        if cpu_ok is False or (st and not static_ok):
            res["status"] = "failed"
        else:
            res["status"] = "unverified"
            res["warnings"].append("no GPU ran here: GPU compatibility is unverified (%s)" % (
                "gpuclean check predicts every node on the GPU; LiteRT ran on the CPU" if cpu_ok
                else "gpuclean check predicts every node on the GPU" if static_ok
                else "no check could run"))
    if bisect:
        diverged = [k for k, s in res["signatures"].items() if s.get("error") and "diverge" in s["error"]]
        if diverged:
            res["bisect"] = {}
            for key in diverged:
                try:
                    res["bisect"][key] = bisect_gpu_divergence(
                        path, signature_key=key, rtol=rtol, atol=atol, seed=seed, inputs=inputs,
                        input_distribution=input_distribution, int_high=int_high,
                        enforce_f32=enforce_f32, criterion=bisect_criterion, work_dir=work_dir)
                except NotImplementedError as e:
                    res["bisect"][key] = _bisect_result(key, enforce_f32, bisect_criterion, [str(e)])
                if res["bisect"][key]["first_divergent_op"] is None and res["bisect"][key]["errors"]:
                    res["warnings"].append("bisect %s: %s" % (key, res["bisect"][key]["errors"][0]))
    _log(res)
    return res


def _log(res):
    if res["compatible"]:
        log.info("GPU verified fully on GPU (%s): %d signature(s), max abs diff vs CPU %.3e",
                 "/".join(res["gpu_precisions"]), len(res["signatures"]), res["max_abs_diff"] or 0.0)
    elif res["status"] == "unverified":
        log.warning("GPU compatibility unverified: no GPU ran")
    else:
        log.warning("GPU verification FAILED: %s", res["errors"][:3])


# ---- the report -----------------------------------------------------------------------------

def _seed_lines(result):
    """The seed's report, for a result without `status` (one made by the seed's checker)."""
    w = []
    if result.get("compatible"):
        residency = "via GPU with CPU fallback" if result.get("gpu_cpu_fallback") else "fully on GPU"
        if result.get("gpu_fully_accelerated") is False and not result.get("gpu_cpu_fallback"):
            residency = "GPU compile succeeded, runtime reports not fully accelerated"
        w.append("  Status: VERIFIED (%s)" % residency)
        w.append("  Max abs diff vs CPU: %.3e" % (result.get("max_abs_diff") or 0.0))
    else:
        w.append("  Status: FAILED")
        w += ["    %s" % e for e in result.get("errors", [])]
    return w


def _static_lines(st):
    w = ["  Static (gpuclean check, %s): %s" % (st.get("target"), st.get("residency"))]
    for e in st.get("groups", []):
        n = len(e["nodes"])
        names = ", ".join("%d '%s'" % (i, nm) if nm else str(i) for i, nm in zip(e["nodes"], e["names"]))
        if e["state"] == "cpu_partition":
            w.append("    on the CPU outside the delegated partition (supported): %s x%d: %s"
                     % (e["op"], n, names))
            continue
        same = len(set(e["reasons"])) == 1
        w.append("    %s: %s x%d [%s]%s" % (e["state"].replace("_", " "), e["op"], n, e["rule"] or "-",
                                          (": " + (e["reasons"][0] or "-")) if same else ""))
        if same:
            w.append("      node%s %s" % ("s" if n > 1 else "", names))
        else:
            w += ["      node %d '%s': %s" % (i, nm, r or "-")
                  for i, nm, r in zip(e["nodes"], e["names"], e["reasons"])]
        if e.get("fix"):
            w.append("      fix: %s" % e["fix"])
    for n in st.get("wrong_numerics", []):
        w.append("    wrong numbers on the GPU (measured on %s): %s node %d: %s [%s]"
                 % (st.get("runtime"), n["op"], n["index"], n["message"], n["rule"]))
    if st.get("risks"):
        w.append("  fp16 / GPU risk notes:")
        w += ["    %s %s (node %s): %s" % (r.get("level"), r.get("rule"), r.get("node"), r.get("message"))
              for r in st["risks"]]
    return w


_CHECKED = {"static+gpu": "static (gpuclean check) + LiteRT on the GPU (%s) and the CPU",
            "static+cpu": "static (gpuclean check) + LiteRT on the CPU (no GPU here)",
            "static": "static (gpuclean check) only"}


def format_report(result):
    """check_gpu_compatibility's dict as the report text (the seed's banner and Status
    lines; for gpuclean's result also what ran, the static verdict grouped with rejected
    nodes first and every node named, the fp16 notes)."""
    w = ["", BANNER, "  LiteRT CompiledModel GPU Verification Report", BANNER]
    if "status" not in result:
        w += _seed_lines(result)
    else:
        if result.get("model"):
            w.append("  Model: %s" % result["model"])
        status = result["status"]
        if status == "verified":
            w.append("  Status: VERIFIED (fully on GPU)")
            pr = result.get("precision") or {}
            w.append("  Max abs diff vs CPU: %.3e%s" % (result.get("max_abs_diff") or 0.0, "".join(
                " (%s %.3e)" % (k, v["max_abs_diff"] or 0.0) for k, v in pr.items()) if len(pr) > 1 else ""))
        elif status == "unverified":
            w.append("  Status: UNVERIFIED (no GPU ran: nothing here shows the model runs on the GPU)")
        elif result.get("gpu_cpu_fallback") and not [e for e in result["errors"] if "diverge" in e]:
            w.append("  Status: FAILED (GPU with CPU fallback)")
        elif result.get("checked") != "static+gpu" and (result.get("static") or {}).get("gpu_clean") is False:
            st = result["static"]
            w.append("  Status: FAILED (gpuclean check: %d of %s nodes off the GPU; no GPU ran)"
                     % ((st.get("nodes") or 0) - (st.get("gpu_nodes") or 0), st.get("nodes")))
        else:
            w.append("  Status: FAILED")
        checked = result.get("checked")
        desc = _CHECKED.get(checked, checked or "-")
        if checked == "static+gpu":
            desc %= "/".join(result.get("gpu_precisions") or ["-"])
        w.append("  Checked: %s" % desc)
        for k, v in ((result.get("runtime") or {}).get("versions") or {}).items():
            w.append("    runtime %s: %s" % (k, v))
        if result.get("static"):
            w += _static_lines(result["static"])
    if result.get("signatures"):
        w += ["", "  Signatures:"]
        for k, s in result["signatures"].items():
            if s.get("error"):
                w.append("    %s: %s" % (k, s["error"]))
            elif s.get("max_abs_diff") is not None:
                w.append("    %s: OK (max abs diff %.3e)" % (k, s["max_abs_diff"]))
            else:
                w.append("    %s: %s" % (k, "ran on the CPU only" if s.get("ran") else "did not run"))
    if "status" in result and result.get("errors"):
        w += ["", "  Errors:"] + ["    %s" % e for e in result["errors"]]
    if result.get("warnings"):
        w += ["", "  Warnings:"] + ["    %s" % e for e in result["warnings"][:10]]
        if len(result["warnings"]) > 10:
            w.append("    ... %d more" % (len(result["warnings"]) - 10))
    w += [BANNER, ""]
    text = "\n".join(w)
    for b in (result.get("bisect") or {}).values():
        text += "\n" + format_bisect_report(b)
    return text


def print_report(result, file=None):
    """Print format_report(result) (to `file`, default stdout)."""
    print(format_report(result), file=file or sys.stdout)


# ---- bisect (gpuclean.bisect_gpu) -----------------------------------------------------------

_BISECT_MISSING = ("bisect_gpu_divergence needs gpuclean.bisect_gpu (python/gpuclean/bisect_gpu.py, "
                   "the Python side of `gpuclean bisect --runtime native|js`), which this gpuclean "
                   "does not have: %s")


def _bisect_result(signature, enforce_f32, criterion, errors):
    return {"signature": signature, "n_ops": None, "diverges": None, "first_divergent_op": None,
            "clean_prefix_end": None, "diverging_tensors": [], "probes": [], "nonfinite_sightings": [],
            "enforce_f32": bool(enforce_f32), "criterion": criterion, "errors": list(errors)}


def _tensor_view(t):
    """check's nodes[].tensors[] entry as PR #307's tensor description."""
    return {"index": t.get("index"), "name": t.get("name") or "", "shape": list(t.get("shape") or []),
            "dtype": str(t.get("dtype") or "?").lower(), "constant": bool(t.get("const"))}


_BISECT_KIND = {"clean": False, "divergent_op": True, "not_isolated": True}


def _seed_view(raw, signature, enforce_f32):
    """gpuclean's `bisect --runtime` document (docs/json.md, schema bisect_gpu) in PR #307's
    shape; the document itself stays under "gpuclean"."""
    r = _bisect_result(signature, enforce_f32, "scale", [])
    r["gpuclean"] = raw
    n = raw.get("ops")
    r["n_ops"] = n
    verdict = raw.get("verdict") or {}
    kind = verdict.get("kind")
    r["diverges"] = _BISECT_KIND.get(kind)
    if kind == "clean":
        t = raw.get("tolerance") or {}
        r["errors"].append("full-graph outputs match CPU within gpuclean's tolerance (|gpu-cpu| <= %g + %g*max|cpu|, "
                           "corr >= %g): nothing to bisect" % (t.get("atol"), t.get("rtol"), t.get("min_corr")))
    elif kind == "not_isolated":
        r["errors"].append("the full model diverges, but no single op could be isolated")
    elif kind == "not_on_gpu":
        r["errors"].append("the full model does not run on the GPU: nothing to bisect (%s)" % verdict.get("text"))
    first = raw.get("first")
    check = raw.get("check") or {}
    if first:
        tens = check.get("tensors") or []
        ins = [_tensor_view(t) for t in tens if t.get("role") == "input"] or [
            {"index": i.get("tensor"), "name": i.get("tensor_name") or "", "shape": [],
             "dtype": str(i.get("dtype") or "?").lower(), "constant": i.get("kind") == "constant"}
            for i in raw.get("first_inputs", []) if i.get("kind") != "none"]
        out = {"index": first["tensor"], "name": first["tensor_name"], "shape": list(first.get("shape") or []),
               "dtype": str(first.get("dtype") or "?").lower(), "constant": False}
        outs = [_tensor_view(t) for t in tens if t.get("role") == "output"] or [out]
        r["first_divergent_op"] = {"index": first["op"], "name": first["op_name"],
                                   "version": check.get("version", 1), "inputs": ins, "outputs": outs}
        c = first.get("cmp") or {}
        r["diverging_tensors"] = [dict(out, tensor=first["tensor"], producer_op=first["op"],
                                       producer_name=first["op_name"], context_dependent=False,
                                       max_abs_diff=c.get("max_abs") or 0.0, max_rel_diff=c.get("rel") or 0.0,
                                       scale=c.get("ref_max_abs") or 0.0, mismatch_fraction=None,
                                       nonfinite=c.get("nan_mismatch") or 0,
                                       nonfinite_in_range=c.get("nan_mismatch") or 0, corr=c.get("corr"))]
    for p in raw.get("probes", []):
        c, res = p.get("cmp") or {}, p.get("residency") or {}
        status = {"diverges": "diverged", "ok": "clean"}.get(p.get("verdict"), "error")
        why = p.get("status") + (": " + p["note"] if p.get("note") else "") if status == "error" else None
        r["probes"].append({"cut": p.get("op") if p.get("target") == "point" else (n - 1 if n else None),
                            "status": status, "max_abs_diff": c.get("max_abs") or 0.0,
                            "nonfinite": c.get("nan_mismatch") or 0,
                            "fallback": p.get("status") == "ran on CPU" or bool(res.get("cpu_ops")),
                            "fully_accelerated": (res.get("cpu_ops") == 0) if res else None, "error": why})
    if r["first_divergent_op"] is not None:
        k = r["first_divergent_op"]["index"]
        clean = [p["cut"] for p in r["probes"] if p["status"] == "clean" and p["cut"] is not None and p["cut"] < k]
        r["clean_prefix_end"] = max(clean) if clean else -1
    if raw.get("monotone") is False:
        r["errors"].append("not monotone: %d confirming probe(s) found a divergent input and the search went on "
                           "before it" % (raw.get("restarts") or 0))
    return r


def bisect_gpu_divergence(tflite_path, signature_key=None, rtol=1e-2, atol=1e-2, seed=0, inputs=None,
                          input_distribution="normal", int_high=0, enforce_f32=False,
                          criterion="auto", work_dir=None, max_probes=64, *, runtime="native", tol=None, **kw):
    """PR #307's bisect_gpu_divergence, run by gpuclean.bisect_gpu_divergence (`gpuclean
    bisect MODEL --runtime native|js`): the first op whose output the real GPU gets wrong,
    against the CPU of the same runtime, on single-output prefix models (no probe tensor is
    also consumed, so no LiteRT #8599 aliasing), an ancestor-restricted binary search with a
    confirming probe of the op's inputs. Returns PR #307's keys (signature, n_ops, diverges,
    first_divergent_op, clean_prefix_end, diverging_tensors, probes, nonfinite_sightings,
    enforce_f32, criterion, errors), gpuclean's document under "gpuclean".

    Mapping: enforce_f32 -> precision "fp32", else "fp16" (the GPU's default); the seed's
    inputs (`inputs`, else seed / input_distribution / int_high random inputs) are passed
    as arrays; tol: gpuclean's relative tolerance (None: the precision's own, fp16
    1e-3 + 2e-2*max|cpu|; a changed rtol is passed as tol). The criterion is always
    gpuclean's range-scaled tolerance (PR #307's "scale"; NaN/Inf on one side only always
    diverges); criterion, work_dir and max_probes are accepted for PR #307's call form.
    runtime: "native" or "js"; other keywords go to gpuclean.bisect_gpu_divergence
    (timeout). Where the runtime or a GPU is missing, the result says so in `errors`
    (and carries "unavailable": True); NotImplementedError where gpuclean.bisect_gpu is
    not installed."""
    if criterion not in ("auto", "nonfinite", "scale", "elementwise"):
        raise ValueError("unknown criterion %r" % (criterion,))
    try:
        from . import bisect_gpu as _bg
    except ImportError as e:
        raise NotImplementedError(_BISECT_MISSING % e) from None
    path = os.fspath(tflite_path)
    if signature_key is None:
        try:
            signature_key = _signature_inputs(path)[0][0]
        except (GpucleanError, NotImplementedError, OSError, IndexError, KeyError):
            pass
    if tol is None and rtol != 1e-2:
        tol = rtol
    try:
        ins = _resolve_inputs(path, inputs, seed, input_distribution, int_high, signature_key)
        raw = _bg.bisect_gpu_divergence(path, runtime=runtime, precision="fp32" if enforce_f32 else "fp16",
                                        inputs=ins or None, tol=tol, **kw)
    except RuntimeUnavailable as e:
        out = _bisect_result(signature_key, enforce_f32, "scale", [str(e)])
        out["unavailable"] = True
        return out
    except GpucleanError as e:
        return _bisect_result(signature_key, enforce_f32, "scale", ["cannot bisect: %s" % e])
    out = _seed_view(raw, signature_key, enforce_f32)
    if criterion not in ("auto", "scale"):
        out["errors"].append("criterion %r: gpuclean bisects with its range-scaled tolerance ('scale')" % criterion)
    return out


def format_bisect_report(result):
    """The bisect result as PR #307's text report."""
    r = result
    w = ["", "-" * 60,
         "  GPU divergence bisect — signature '%s' (%s GPU compute, criterion: %s)" % (
             r.get("signature"), "fp32" if r.get("enforce_f32") else "fp16", r.get("criterion")),
         "-" * 60]
    op = r.get("first_divergent_op")
    if op is None:
        w.append("  No op isolated.")
        w += ["    %s" % e for e in r.get("errors", [])]
        return "\n".join(w + ["-" * 60, ""])

    def fmt(t):
        return "%s%s%s" % (t.get("dtype"), list(t.get("shape") or []), " const" if t.get("constant") else "")
    w.append("  First divergent op: #%s %s (v%s) of %s ops" % (op["index"], op["name"], op.get("version", 1),
                                                             r.get("n_ops")))
    w.append("    inputs : " + ", ".join(fmt(t) for t in op.get("inputs", [])))
    w.append("    outputs: " + ", ".join(fmt(t) for t in op.get("outputs", [])))
    w.append("    prefix ending at op #%s matched CPU" % r.get("clean_prefix_end"))
    w.append("  Diverging tensors at that cut:")
    for t in r.get("diverging_tensors", []):
        nf = t.get("nonfinite") or 0
        mf = t.get("mismatch_fraction")
        w.append("    t%s %s %s: max abs diff %.3e (tensor scale %.3e)%s%s%s" % (
            t.get("tensor"), (t.get("name") or "")[:60], fmt(t), t.get("max_abs_diff") or 0.0, t.get("scale") or 0.0,
            ", %.1f%% outside elementwise tolerance" % (100.0 * mf) if mf is not None else "",
            ", corr %.6f" % t["corr"] if t.get("corr") is not None else "", ", %d non-finite" % nf if nf else ""))
    chk = (r.get("gpuclean") or {}).get("check") or {}
    if chk:
        w.append("  gpuclean check on that node: %s%s%s" % (chk.get("state"), " [%s]" % chk["rule"] if chk.get("rule")
                                                          else "", ": " + chk["reason"] if chk.get("reason") else ""))
    if any(p.get("fallback") for p in r.get("probes", [])):
        w.append("  Note: some prefixes ran (partly) on the CPU; the op at those cuts may not have run on the GPU.")
    w.append("  Probes (%d): %s" % (len(r.get("probes", [])), ", ".join(
        "#%s:%s" % (p.get("cut"), (p.get("status") or "?")[0]) for p in r.get("probes", []))))
    w += ["    %s" % e for e in r.get("errors", [])]
    return "\n".join(w + ["-" * 60, ""])


def print_bisect_report(result, file=None):
    """Print format_bisect_report(result)."""
    print(format_bisect_report(result), file=file or sys.stdout)


# ---- command line (python -m litert_gpu_toolkit.checker) ------------------------------------

_USAGE_EPILOG = """exit status: 0 verified on the GPU (with --no-gpu-ok also: no GPU here, the static
check and the CPU run clean; --bisect --signature: no divergence); 1 failed, diverged or
unverified; 2 bad usage or input, or (--bisect --signature) no GPU / runtime to bisect on."""


def _bad(msg):
    print("litert_gpu_toolkit.checker: error: %s" % msg, file=sys.stderr)
    return 2


def _tflite_problem(path):
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as e:
        return "%s: %s" % (path, e.strerror or e)
    if len(head) < 8 or head[4:8] != b"TFL3":
        return "%s: not a .tflite file (no TFL3 identifier at byte 4)" % path
    return None


def main(argv=None):
    """The checker CLI of PR #307 (`python checker.py model.tflite [--bisect] ...`)."""
    ap = argparse.ArgumentParser(prog="python -m litert_gpu_toolkit.checker",
                                 description="Check a .tflite on the LiteRT GPU accelerator against the "
                                             "CPU (gpuclean check + gpuclean litert), and bisect the first "
                                             "divergent op.", epilog=_USAGE_EPILOG)
    ap.add_argument("tflite")
    ap.add_argument("--bisect", action="store_true", help="on divergence, find the first op whose GPU result differs")
    ap.add_argument("--signature", default=None, help="bisect only this signature")
    ap.add_argument("--rtol", type=float, default=1e-2)
    ap.add_argument("--atol", type=float, default=1e-2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--uniform", action="store_true", help="uniform [0,1) random floats instead of normal")
    ap.add_argument("--int-high", type=int, default=0, help="random integer inputs in [0, N) instead of zeros")
    ap.add_argument("--inputs", default=None, help=".npz of input arrays keyed by input name")
    ap.add_argument("--enforce-f32", action="store_true", help="GPU at fp32 only (default: fp32 and fp16)")
    ap.add_argument("--criterion", default="auto", choices=["auto", "nonfinite", "scale", "elementwise"])
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--json", default=None, help="write the result dict here")
    ap.add_argument("--runtime", default="both", choices=["both", "native", "js"])
    ap.add_argument("--target", default="mldrift")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per compile+run mode")
    ap.add_argument("--no-gpu-ok", action="store_true", help="exit 0 when no GPU is here and nothing failed")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO if a.verbose else logging.WARNING, format="%(name)s: %(message)s")
    why = _tflite_problem(a.tflite)
    if why:
        return _bad(why)
    inputs = None
    if a.inputs:
        try:
            with np.load(a.inputs) as z:
                inputs = {k: z[k] for k in z.files}
        except (OSError, ValueError) as e:
            return _bad("%s: cannot read as .npz: %s" % (a.inputs, e))
    dist = "uniform" if a.uniform else "normal"
    try:
        if a.bisect and a.signature:
            result = bisect_gpu_divergence(a.tflite, signature_key=a.signature, rtol=a.rtol, atol=a.atol,
                                           seed=a.seed, inputs=inputs, input_distribution=dist,
                                           int_high=a.int_high, enforce_f32=a.enforce_f32,
                                           criterion=a.criterion, work_dir=a.work_dir, runtime=(
                                               "native" if a.runtime == "both" else a.runtime))
            if result.get("unavailable"):
                return _bad("%s: %s" % (a.tflite, result["errors"][0]))
            print_bisect_report(result)
            ok = result.get("first_divergent_op") is None and result.get("diverges") is False
        else:
            result = check_gpu_compatibility(a.tflite, rtol=a.rtol, atol=a.atol, seed=a.seed, inputs=inputs,
                                             input_distribution=dist, int_high=a.int_high,
                                             enforce_f32=a.enforce_f32, bisect=a.bisect,
                                             bisect_criterion=a.criterion, work_dir=a.work_dir,
                                             runtime=a.runtime, target=a.target, timeout=a.timeout)
            print_report(result)
            ok = result["compatible"] or (a.no_gpu_ok and result["status"] == "unverified"
                                          and result["checked"] == "static+cpu")
    except NotImplementedError as e:
        return _bad(str(e))
    except (GpucleanError, ValueError) as e:
        return _bad("%s: %s" % (a.tflite, e))
    if a.json:
        try:
            with open(a.json, "w") as f:
                json.dump(result, f, indent=1, default=str)
        except OSError as e:
            return _bad("%s: %s" % (a.json, e))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
