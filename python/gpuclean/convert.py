"""convert_for_gpu: the one loop from a PyTorch module to a .tflite that runs fully on the
LiteRT GPU accelerator, with the numbers to prove it.

    report = convert_for_gpu(model, (x,), "out/model.tflite")
    print(format_report(report))

1. convert the model as it is with litert-torch (the *plain* conversion, kept next to
   the output as <stem>.plain.tflite);
2. check it (gpuclean's static GPU verdict for the target), run `gpuclean fix` on it
   (the .tflite passes, each verified by fix itself), check that, and verify every
   candidate: loads on the real LiteRT CPU runtime (native libLiteRt), parity against
   PyTorch on the reference interpreter at fp32 and at the GPU's fp16 precision, on
   LiteRT CPU and on the real GPU where one exists;
3. route what the checker still rejects in the best candidate (and a *measured*
   GPU-precision failure) to PyTorch remedies (router.py -> gpuclean.rewrites.REMEDIES),
   apply them one by one to a copy of the model (the caller's model is never modified);
   a remedy that raises, or whose rewritten forward raises or changes the output (which
   also catches an in-place activation whose write was part of the math), is rolled back
   with everything it rebound and reported with its reason; a remedy that changed
   nothing (no module changed, no active function patch hit: both measured) is dropped
   and costs no re-conversion;
4. re-convert only when the remedies really changed the module, then fix, check and
   verify that candidate too; repeat while untried remedies remain (max_rounds);
5. write the best candidate seen, never a worse one. Candidates rank by: loads on LiteRT
   CPU, fp32 parity (a wrong model is never "better"), GPU-correct, GPU residency (gpu_nodes/nodes,
   then fewer CPU nodes), the number of parity checks passing, fewer nodes, earlier.

report["ok"] is True only when the written file is GPU-clean (static check for the
target, and the real GPU where one ran) *and* GPU-correct (no node measured wrong on the
target runtime: `gpu_runtime`, the facts of data/gpu/facts.tsv) *and* matches PyTorch at fp32 (interpreter, LiteRT
CPU) *and* at the GPU's precision (the fp16 emulation, the real GPU); each of the three is
reported on its own (report["gpu_clean"], ["fp32_parity"], ["gpu_precision_parity"]), with
the reasons when not ok. The report (JSON-serialisable, strict JSON) is also written next
to the output as <stem>.report.json, atomically.
"""
from __future__ import annotations

import contextlib
import copy
import json
import logging
import math
import os
import shutil
import sys
import tempfile
import time

import numpy as np

from . import router
from ._lib import GpucleanError

log = logging.getLogger("gpuclean.convert")

__all__ = ["convert_for_gpu", "convert_plain", "format_report", "parity", "apply_all_patches",
           "run_fix", "MIN_CORR_FP32", "MIN_CORR_FP16"]

MIN_CORR_FP32 = 0.9999   # interpreter fp32 and LiteRT CPU vs PyTorch
MIN_CORR_FP16 = 0.9999   # the GPU's precision (fp16 emulation, real GPU) vs PyTorch


# ---- conversion -----------------------------------------------------------------------

@contextlib.contextmanager
def _quiet(logfile):
    """Send fds 1 and 2 (litert-torch's progress, absl logs) to `logfile`."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(logfile, "ab") as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _tail(path, n=15):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def convert_plain(model, sample_inputs, path, logfile=None):
    """litert_torch.convert(model, sample_inputs).export(path), quietly."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    logfile = logfile or path + ".log"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        with _quiet(logfile):
            import litert_torch
            litert_torch.convert(model, tuple(sample_inputs)).export(path)
    except Exception as e:
        raise GpucleanError("litert-torch conversion failed: %s: %s\n%s"
                            % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "",
                               _tail(logfile))) from e
    return path


def _to_numpy(out):
    import torch
    if torch.is_tensor(out):
        return [out.detach().cpu().numpy()]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_to_numpy(o))
        return res
    return []


# ---- numbers --------------------------------------------------------------------------

def parity(a, ref, argmax=False):
    """Pearson correlation, max abs, max |ref|, and argmax agreement (last axis).
    Non-finite values: positions where both are the same inf count as equal; any other
    NaN/Inf (in either) makes corr NaN (a failure)."""
    a = np.asarray(a, np.float64)
    r = np.asarray(ref, np.float64)
    if a.size != r.size:
        return {"error": "shape %s vs reference %s" % (list(a.shape), list(r.shape)),
                "corr": float("nan"), "max_abs": float("nan"), "ref_max_abs": float("nan")}
    if a.shape != r.shape:
        a = a.reshape(r.shape)
    af, rf = a.ravel(), r.ravel()
    same = (af == rf)                                   # equal infs included
    fin = np.isfinite(af) & np.isfinite(rf)
    bad = int(np.count_nonzero(~fin & ~same))
    d = np.abs(af[fin] - rf[fin])
    out = {"max_abs": float(d.max()) if d.size else 0.0,
           "ref_max_abs": float(np.abs(rf[fin]).max()) if fin.any() else 0.0}
    if bad:
        out["nonfinite_mismatch"] = bad
        out["corr"] = float("nan")
    else:
        av, rv = af[fin], rf[fin]
        if av.size:
            av, rv = av - av.mean(), rv - rv.mean()
        den = np.sqrt((av * av).sum() * (rv * rv).sum())
        out["corr"] = float((av * rv).sum() / den) if den > 0 else (1.0 if out["max_abs"] == 0 else 0.0)
    if argmax and a.ndim >= 1 and a.shape[-1] > 1:
        out["argmax_agree"] = float(np.mean(np.argmax(a, -1) == np.argmax(r, -1)))
    return out


def _passes(ps, bar):
    """Every output's corr >= bar (NaN fails); False for an empty or malformed list."""
    return bool(isinstance(ps, list) and ps and all(
        isinstance(p, dict) and not p.get("error") and p.get("corr") is not None
        and p["corr"] >= bar for p in ps))


def _worst_corr(ps):
    cs = [p.get("corr") for p in ps if isinstance(p, dict)] if isinstance(ps, list) else []
    cs = [c for c in cs if c is not None]
    if not cs:
        return None
    return float("nan") if any(c != c for c in cs) else min(cs)


def _same_output(got, ref):
    """(ok, detail): a rewritten torch model reproduces the original (remedies are stated
    exact to ~1e-6; 1e-3 of the output scale is the bar for 'changes the output')."""
    if len(got) != len(ref):
        return False, "%d outputs instead of %d" % (len(got), len(ref))
    worst = 0.0
    for g, r in zip(got, ref):
        p = parity(g, r)
        if p.get("error"):
            return False, p["error"]
        if p.get("nonfinite_mismatch"):
            return False, "%d NaN/Inf values where the original has none (or others)" % p["nonfinite_mismatch"]
        if p["max_abs"] > 1e-3 * max(1.0, p["ref_max_abs"]):
            return False, "max|d| %.3g (|ref| up to %.3g, corr %.6f)" % (p["max_abs"], p["ref_max_abs"], p["corr"])
        worst = max(worst, p["max_abs"])
    return True, "max|d| %.3g" % worst


def _jsonable(o):
    """The report as strict JSON values: numpy scalars -> Python, non-finite floats ->
    the strings 'nan' / 'inf' / '-inf', tuples -> lists."""
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        f = float(o)
        if math.isfinite(f):
            return f
        return "nan" if f != f else ("inf" if f > 0 else "-inf")
    if isinstance(o, np.bool_):
        return bool(o)
    if o is None or isinstance(o, (str, int, bool)):
        return o
    return str(o)


def _atomic_write_json(path, doc):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True, allow_nan=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _atomic_copy(src, dst):
    d = os.path.dirname(os.path.abspath(dst))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".gpuclean-", suffix=".tmp", dir=d)
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---- the .tflite side: check, fix, verify --------------------------------------------

def _check(path, target="mldrift", facts_runtime=None):
    """(summary dict for the report, check JSON or None, inspect JSON). Through the C
    library; the CLI when the library cannot be loaded. facts_runtime ("native", "js",
    "native-2.3", ...; None: the default): whose measured GPU facts decide gpu_correct
    (mldrift only)."""
    from .core import Model
    err = None
    try:
        with Model(path) as m:
            ins = m.inspect()
            try:
                chk = m.check(target, facts_runtime if target == "mldrift" else None)
            except (NotImplementedError, GpucleanError) as e:
                chk, err = None, str(e)
    except GpucleanError as e:
        from .runtime import RuntimeUnavailable, cli_json
        try:
            _, ins, e1 = cli_json(["inspect", path])
            rt = ["--runtime", facts_runtime] if facts_runtime and target == "mldrift" else []
            _, chk, e2 = cli_json(["check", path, "--target", target] + rt)
        except RuntimeUnavailable:
            raise e
        if ins is None:
            raise GpucleanError("%s: %s; gpuclean inspect: %s" % (path, e, e1))
        if chk is None:
            err = e2 or str(e)
    if err:
        log.warning("gpuclean check unavailable (%s)", err)
    s = (chk or {}).get("summary", {})
    ops = {}
    for sg in ins["subgraphs"]:
        for op in sg["ops"]:
            ops[op["op"]] = ops.get(op["op"], 0) + 1
    nodes = s.get("nodes")
    gpu = s.get("gpu_nodes")
    rejected = [{"index": n["index"], "op": n["op"], "rule": n.get("rule"),
                 "reason": n.get("reason"), "fix": (n.get("fix") or {}).get("id")}
                for n in (chk or {}).get("nodes", []) if n.get("state") == "rejected"]
    out = {"path": path, "residency": s.get("residency"), "gpu_clean": s.get("gpu_clean"),
           "gpu_nodes": gpu, "nodes": nodes if nodes is not None else sum(ops.values()),
           "cpu_nodes": s.get("cpu_nodes", (nodes - gpu) if nodes is not None and gpu is not None else None),
           "partitions": s.get("partitions"), "target": target,
           "gpu_correct": s.get("gpu_correct"), "wrong_nodes": s.get("wrong_nodes"),
           "facts_runtime": s.get("runtime"),
           "rejected": rejected, "n_rejected": len(rejected),
           "fp16_lints": router.fp16_lints(chk), "ops": ops,
           "seed_notes": router.hostile_ops(ins),
           "size_bytes": os.path.getsize(path)}
    out["hostile"] = out["seed_notes"]           # the old key (informational now)
    if err:
        out["check_error"] = err
    return out, chk, ins


def run_fix(path, out, target="mldrift", timeout=600, facts_runtime=None, precision=None):
    """`gpuclean fix PATH -o OUT --target T --json` -> a dict: exit, changed (a pass
    rewrote something and OUT was written), passes applied (id, fix id, exactness, sites,
    nodes removed/added), residency before/after, fix's own verification, error."""
    from .runtime import RuntimeUnavailable, cli_json
    res = {"on": os.path.basename(path), "exit": None, "changed": False, "passes": [],
           "residency": None, "verify": None, "error": None}
    try:
        rt = ["--runtime", facts_runtime] if facts_runtime and target == "mldrift" else []
        if precision and target == "mldrift":
            rt += ["--precision", precision]
        code, doc, err = cli_json(["fix", path, "-o", out, "--target", target] + rt, timeout=timeout)
    except (RuntimeUnavailable, OSError) as e:
        res["error"] = "gpuclean fix unavailable: %s" % e
        return res
    except Exception as e:  # noqa: BLE001 - a timeout or a crash is reported, not raised
        res["error"] = "gpuclean fix: %s: %s" % (type(e).__name__, e)
        return res
    res["exit"] = code
    if doc is None:
        res["error"] = err or "gpuclean fix exited %d without JSON" % code
        return res
    per_pass = {}
    for c in doc.get("changes") or []:
        per_pass[c.get("pass")] = per_pass.get(c.get("pass"), 0) + 1
    for p in doc.get("passes") or []:
        if per_pass.get(p.get("id")) or p.get("removed") or p.get("added"):
            res["passes"].append({"id": p.get("id"), "fix_id": p.get("fix_id"),
                                  "exactness": p.get("exactness"), "sites": p.get("sites"),
                                  "changes": per_pass.get(p.get("id"), 0),
                                  "removed": p.get("removed"), "added": p.get("added"),
                                  "declined": p.get("declined")})
    res["changed"] = bool(doc.get("written") and os.path.exists(out)
                          and (per_pass or res["passes"] or doc.get("pruned_ops")))
    res["pruned_ops"] = doc.get("pruned_ops")
    res["exactness"] = doc.get("exactness")
    res["residency"] = doc.get("residency")
    res["declined"] = (doc.get("declined") or [])[:20]
    v = doc.get("verify") or {}
    res["verify"] = {"ran": v.get("ran"), "pass": v.get("pass"), "why": v.get("why"),
                     "exactness": v.get("exactness"),
                     "max_abs": max((r.get("max_abs") or 0 for r in v.get("rows") or []), default=None)}
    return res


def _input_names(ins, n):
    sigs = ins.get("signatures") or []
    if sigs:
        return [i["name"] for i in sigs[0]["inputs"]][:n]
    return [str(k) for k in range(n)]


# real-GPU verdicts of `gpuclean litert` that mean: not every node ran on the GPU
_GPU_NOT_CLEAN = ("cpu_fallback", "gpu_compile_failed", "gpu_did_not_run", "runtime_limit")


def _litert(path, ins, inputs_np, ref, argmax, runtime):
    """The real LiteRT runtime (native libLiteRt; also LiteRT.js with runtime='both'/'js'):
    CPU, and the GPU where one exists. -> (parity entries, meta)."""
    from .runtime import RuntimeUnavailable, _load_outputs, cli_json
    which = {True: "native", "native": "native", "both": "both", "js": "js"}.get(runtime, "native")
    meta = {"runtime": which, "loads_cpu": None, "gpu_ran": False}
    par = {}
    tmp = tempfile.mkdtemp(prefix="gpuclean-litert-")
    try:
        args = ["litert", path, "--accelerator", "both", "--runtime", which,
                "--out", os.path.join(tmp, "out"), "--timeout", "120"]
        for k, (name, a) in enumerate(zip(_input_names(ins, len(inputs_np)), inputs_np)):
            f = os.path.join(tmp, "in_%d.npy" % k)
            np.save(f, np.ascontiguousarray(a))
            args += ["--input", "%s=%s" % (name, f)]
        try:
            code, doc, err = cli_json(args, timeout=900)
        except (RuntimeUnavailable, OSError) as e:
            meta["error"] = str(e)
            return par, meta
        except Exception as e:  # noqa: BLE001
            meta["error"] = "%s: %s" % (type(e).__name__, e)
            return par, meta
        if doc is None:
            meta["error"] = err or "gpuclean litert exited %d without JSON" % code
            return par, meta
        meta["verdict"] = (doc.get("verdict") or {}).get("text")
        meta["versions"] = {}
        loads = []
        for rname, rt in (doc.get("runtimes") or {}).items():
            meta["versions"][rname] = rt.get("versions")
            if not rt.get("ran"):
                meta.setdefault("not_run", {})[rname] = rt.get("why") or rt.get("error")
                continue
            v = rt.get("verdict") or {}
            meta.setdefault("verdicts", {})[rname] = {"kind": v.get("kind"), "text": v.get("text")}
            for m in rt.get("modes", []):
                if m.get("mode") == "cpu":
                    ok = m.get("status") == "ok"
                    loads.append(ok)
                    if not ok:
                        meta.setdefault("cpu_errors", {})[rname] = (
                            m.get("limit") or m.get("error") or m.get("status"))
                elif m.get("status") != "unavailable":
                    meta["gpu_ran"] = True
                    meta.setdefault("gpu", {})[rname] = {
                        "mode": m.get("mode"), "status": m.get("status"),
                        "residency": m.get("residency"), "verdict": v.get("kind"),
                        "text": v.get("text")}
            for mode, arrs in _load_outputs(rt).items():
                got = [x["array"] for x in arrs]
                if got and all(g is not None for g in got):
                    key = "litert_%s_%s" % (rname, mode.replace("-", "_"))
                    if len(got) != len(ref):
                        par[key] = [{"error": "%d outputs, PyTorch has %d" % (len(got), len(ref)),
                                     "corr": float("nan"), "max_abs": float("nan")}]
                    else:
                        par[key] = [parity(a, r, argmax) for a, r in zip(got, ref)]
        if loads:
            meta["loads_cpu"] = all(loads)
        return par, meta
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _interp_one(path, prec, inputs_np, ref, argmax, gpu_runtime=None):
    """-> (parity list, None) or (None, error text): the reference interpreter at `prec`
    (fp16 as `gpu_runtime` computes it: "native" by default, or "js")."""
    from .core import Interpreter, Model
    try:
        with Model(path) as m, Interpreter(m, prec, gpu_runtime=gpu_runtime) as it:
            outs = it(*inputs_np)
    except (NotImplementedError, GpucleanError, ValueError) as e:
        return None, str(e)
    if len(outs) != len(ref):
        return [{"error": "%d outputs, PyTorch has %d" % (len(outs), len(ref)),
                 "corr": float("nan"), "max_abs": float("nan")}], None
    return [parity(a, r, argmax) for a, r in zip(outs, ref)], None


def _verify(path, ins, inputs_np, ref, argmax, runtime, gpu_runtime=None):
    """Interpreter fp32, interpreter fp16 (the GPU's precision) and the real LiteRT
    runtime. -> (parity {backend: [per output]}, LiteRT meta, {backend: error}).
    (Run one after the other: side by side measured no faster on 2 cores.)"""
    par, errs, meta = {}, {}, {}
    for p in ("fp32", "fp16"):
        try:
            ps, err = _interp_one(path, p, inputs_np, ref, argmax, gpu_runtime if p == "fp16" else None)
        except Exception as e:  # noqa: BLE001 - reported; the candidate stays unverified
            ps, err = None, _err(e)
        if ps is not None:
            par["gpuclean_" + p] = ps
        if err:
            errs["gpuclean_" + p] = err
    if runtime:
        try:
            lpar, meta = _litert(path, ins, inputs_np, ref, argmax, runtime)
            par.update(lpar)
        except Exception as e:  # noqa: BLE001
            meta = {"error": _err(e), "loads_cpu": None}
    return par, meta, errs


def _is_gpu_key(k):
    return k == "gpuclean_fp16" or (k.startswith("litert_") and "_gpu" in k)


def _judge(check, par, meta, min_corr, min_corr_fp16, verified):
    """-> {gpu_clean, fp32_parity, gpu_precision_parity, loads_cpu, passes, reasons}."""
    reasons = []
    gc = bool(check.get("gpu_clean"))
    if check.get("gpu_clean") is None:
        reasons.append("no static GPU verdict (%s)" % check.get("check_error", "check unavailable"))
    elif not gc:
        reasons.append("not GPU-clean: %s (%d node(s) rejected)"
                       % (check.get("residency"), check.get("n_rejected", 0)))
    for rname, g in (meta.get("gpu") or {}).items():
        if g.get("verdict") in _GPU_NOT_CLEAN:
            gc = False
            reasons.append("real GPU (%s): %s" % (rname, g.get("text")))
    res = {"gpu_clean": gc, "loads_cpu": meta.get("loads_cpu"), "passes": 0,
           "gpu_correct": check.get("gpu_correct")}
    if check.get("gpu_correct") is False:
        reasons.append("not GPU-correct: %s node(s) measured wrong on the GPU (%s)"
                       % (check.get("wrong_nodes"), check.get("facts_runtime")))
    if not verified:
        res["fp32_parity"] = res["gpu_precision_parity"] = None
        reasons.append("not verified (check=False)")
        res["reasons"] = reasons
        return res
    if meta.get("loads_cpu") is False:
        reasons.append("LiteRT CPU cannot run it: %s" % "; ".join(
            "%s: %s" % kv for kv in (meta.get("cpu_errors") or {}).items()))
    fp32, gpu = [], []
    for k, ps in par.items():
        if k == "torch_rewritten":
            continue
        bar = min_corr_fp16 if _is_gpu_key(k) else min_corr
        ok = _passes(ps, bar)
        res["passes"] += int(ok)
        (gpu if _is_gpu_key(k) else fp32).append(ok)
        if not ok:
            c = _worst_corr(ps)
            err = next((p.get("error") for p in ps if isinstance(p, dict) and p.get("error")), None)
            why = "%s: %s" % (k, err or "corr %s < %s" % (
                "nan" if c is None or c != c else "%.6f" % c, bar))
            reasons.append(why)
            if _is_gpu_key(k):
                res.setdefault("gpu_precision_failures", []).append(why)
    if fp32:
        res["fp32_parity"] = all(fp32) and meta.get("loads_cpu") is not False
    else:
        res["fp32_parity"] = False if meta.get("loads_cpu") is False else None
        if meta.get("loads_cpu") is not False:
            reasons.append("fp32 parity not measured (no interpreter, no LiteRT CPU)")
    if "gpuclean_fp16" not in par:
        res["gpu_precision_parity"] = None
        reasons.append("GPU-precision parity not measured (fp16 emulation unavailable)")
    else:
        res["gpu_precision_parity"] = all(gpu)
    res["reasons"] = reasons
    return res


# ---- the PyTorch side: remedies, rollback, hit counting --------------------------------

class _ModuleState:
    """What a remedy can change in a module tree without touching weights in place:
    every module's attributes (children, buffers, parameters, hooks, flags). changed()
    counts the modules that differ; restore() puts every one back."""

    def __init__(self, model):
        self.mods = []
        for m in model.modules():
            d = m.__dict__
            self.mods.append((m, dict(d), {k: dict(v) for k, v in d.items() if isinstance(v, dict)}))

    @staticmethod
    def _differs(cur, saved):
        return cur.keys() != saved.keys() or any(cur[k] is not saved[k] for k in saved)

    def changed(self):
        n = 0
        for m, d, inner in self.mods:
            cur = m.__dict__
            if self._differs(cur, d) or any(
                    isinstance(cur.get(k), dict) and self._differs(cur[k], v) for k, v in inner.items()):
                n += 1
        return n

    def restore(self):
        for m, d, inner in self.mods:
            for k, v in inner.items():
                d[k].clear()
                d[k].update(v)
            m.__dict__.clear()
            m.__dict__.update(d)


def _global_namespaces(model):
    """Where a remedy may rebind functions: torch, torch.nn.functional, torch.Tensor, the
    classes of the model's modules and the Python modules that define them, imported
    Hugging Face modeling_* modules."""
    import torch
    import torch.nn.functional as F
    spaces, seen = [], set()

    def add(o):
        if o is not None and id(o) not in seen:
            seen.add(id(o))
            spaces.append(o)
    for o in (torch, F, torch.Tensor):
        add(o)
    for m in model.modules():
        add(type(m))
        add(sys.modules.get(type(m).__module__))
    for name, mod in list(sys.modules.items()):
        if mod is not None and "modeling_" in name:
            add(mod)
    return spaces


class _GlobalState:
    """Callable attributes of the namespaces above; restore() rebinds any that changed
    (never deletes attributes: imports add some legitimately) and says which."""

    def __init__(self, model):
        self.saved = []
        for ns in _global_namespaces(model):
            try:
                items = dict(vars(ns))
            except TypeError:
                continue
            self.saved.append((ns, {k: v for k, v in items.items()
                                    if callable(v) or isinstance(v, (staticmethod, classmethod))}))

    def restore(self):
        fixed = []
        for ns, items in self.saved:
            cur = vars(ns)
            for k, v in items.items():
                if cur.get(k, v) is not v:
                    try:
                        setattr(ns, k, v)
                        fixed.append("%s.%s" % (getattr(ns, "__name__", "?"), k))
                    except (AttributeError, TypeError):
                        pass
        return fixed


def _tensor_ids(args, kwargs):
    import torch
    out = []

    def walk(v):
        if torch.is_tensor(v):
            out.append(id(v))
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
    walk(args)
    for v in kwargs.values():
        walk(v)
    return out


class _HitProbe:
    """Counts, during one eager forward, the calls of the functions a set of Patches put
    in place that did real work: a call that only hands the same tensors on to the
    original function (e.g. F.interpolate in a mode the patch does not rewrite) is not a
    hit. hits[i] is None where a Patch's replacements cannot be seen (assume hit)."""

    def __init__(self, patches):
        self.patches = list(patches)
        self.hits = [0] * len(self.patches)
        self._undo = []
        self._stack = []

    def _wrap(self, i, new, old):
        stack, hits = self._stack, self.hits

        def counting(*a, **k):
            frame = [_tensor_ids(a, k), False]
            stack.append(frame)
            try:
                return new(*a, **k)
            finally:
                stack.pop()
                if not frame[1]:
                    hits[i] += 1

        def delegate(*a, **k):
            if stack and not stack[-1][1] and _tensor_ids(a, k) == stack[-1][0]:
                stack[-1][1] = True
            return old(*a, **k)
        # where the replacement calls the original: a closure cell or a module global
        for cell in getattr(new, "__closure__", None) or ():
            try:
                if cell.cell_contents is old:
                    self._undo.append(("cell", cell, old))
                    cell.cell_contents = delegate
            except ValueError:
                continue
        code, g = getattr(new, "__code__", None), getattr(new, "__globals__", None)
        if code is not None and g is not None:
            for name in code.co_names:
                if g.get(name) is old:
                    self._undo.append(("global", (g, name), old))
                    g[name] = delegate
        return counting

    def __enter__(self):
        try:
            self._enter()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _enter(self):
        for i, p in enumerate(self.patches):
            saved = getattr(p, "_saved", None)
            if saved is None:
                self.hits[i] = None
                continue
            for owner, attr, old in list(saved):
                raw = vars(owner).get(attr) if isinstance(owner, type) else getattr(owner, attr, None)
                if raw is None or raw is old:
                    continue
                new = raw.__func__ if isinstance(raw, staticmethod) else raw
                w = self._wrap(i, new, old)
                self._undo.append(("attr", (owner, attr), raw))
                setattr(owner, attr, staticmethod(w) if isinstance(raw, staticmethod) else w)

    def __exit__(self, *exc):
        while self._undo:
            kind, where, val = self._undo.pop()
            if kind == "cell":
                where.cell_contents = val
            elif kind == "global":
                where[0][where[1]] = val
            else:
                setattr(where[0], where[1], val)
        return False


def _remedy_obj(r):
    from .rewrites import REMEDIES
    if isinstance(r, str):
        if r not in REMEDIES:
            raise ValueError("unknown remedy %r (gpuclean.rewrites.REMEDIES has %s)"
                             % (r, ", ".join(sorted(REMEDIES))))
        return REMEDIES[r]
    if not callable(getattr(r, "apply", None)) or not getattr(r, "name", None):
        raise TypeError("a remedy is a name in REMEDIES or an object with .name and .apply(model, inputs)")
    return r


def _err(e):
    s = str(e).splitlines()[0][:300] if str(e) else ""
    return "%s: %s" % (type(e).__name__, s) if s else type(e).__name__


def _apply_remedies(base, rems, sample_inputs, ref, rnd, gstate_model):
    """Apply remedies to a deep copy of `base`, one at a time; each is measured (modules
    changed, function-patch hits), its rewritten forward run and compared with the
    original, and rolled back when it raises or changes the output. -> (model, active
    patches, records, outputs of the rewritten model)."""
    active = []
    try:
        return _apply_each(base, rems, sample_inputs, ref, rnd, gstate_model, active)
    except BaseException:
        for p in reversed(active):
            with contextlib.suppress(Exception):
                p.restore()
        raise


def _apply_each(base, rems, sample_inputs, ref, rnd, gstate_model, active):
    import torch
    m2 = copy.deepcopy(base).eval()
    records, outs = [], None
    for rem in rems:
        rec = {"name": rem.name, "round": rnd, "exactness": getattr(rem, "exactness", None),
               "what": getattr(rem, "doc", None), "count": None, "modules_changed": 0,
               "hits": 0, "changed": False, "status": None, "error": None}
        records.append(rec)
        state, gstate = _ModuleState(m2), _GlobalState(gstate_model)
        ps = []

        def rollback(status, why):
            for p in reversed(ps):
                with contextlib.suppress(Exception):
                    p.restore()
            state.restore()
            leaked = gstate.restore()
            rec["status"], rec["error"] = status, why
            if leaked:
                rec["restored_globals"] = leaked
            rec["changed"] = False
        try:
            n, ps = rem.apply(m2, sample_inputs)
            ps = [p for p in (ps or []) if p is not None]
            rec["count"] = int(n or 0)
        except Exception as e:  # noqa: BLE001 - a rewrite that does not fit is rolled back
            rollback("rolled back", "apply raised " + _err(e))
            continue
        rec["modules_changed"] = state.changed()
        fn = [p for p in ps if getattr(p, "_saved", True)]      # patches that replaced something
        if not rec["modules_changed"] and not fn:
            for p in reversed(ps):
                p.restore()
            leaked = gstate.restore()
            if leaked:
                rec["restored_globals"] = leaked
            rec["status"] = "no effect"
            continue
        probe = _HitProbe(ps)
        try:
            with probe, torch.no_grad():
                got = _to_numpy(m2(*[x.clone() for x in sample_inputs]))
        except Exception as e:  # noqa: BLE001
            rollback("rolled back", "rewritten forward raised " + _err(e))
            continue
        hits = [h for h in probe.hits]
        rec["hits"] = None if any(h is None for h in hits) else sum(hits)
        ok, detail = _same_output(got, ref)
        rec["output_vs_original"] = detail
        if not ok:
            rollback("rolled back", "changes the output: " + detail)
            continue
        if not rec["modules_changed"] and rec["hits"] == 0:
            for p in reversed(ps):
                p.restore()
            leaked = gstate.restore()
            if leaked:
                rec["restored_globals"] = leaked
            rec["status"] = "no effect"
            continue
        rec["changed"] = True
        rec["status"] = "applied"
        active.extend(ps)
        outs = got
    return m2, active, records, outs


def apply_all_patches(model, sample_inputs=None, remedies=None):
    """Apply remedies (default: every one in REMEDIES) to `model` in place. Returns
    ({remedy: modules swapped}, [active Patch objects to restore]). Unlike the seed
    nothing here changes the model's math beyond each remedy's stated exactness."""
    from .rewrites import REMEDIES
    counts, patches = {}, []
    for name in remedies or list(REMEDIES):
        n, ps = REMEDIES[name].apply(model, sample_inputs)
        counts[name] = n
        patches.extend(ps)
    return counts, patches


# ---- the loop -------------------------------------------------------------------------

class _Loop:
    def __init__(self, say, timings):
        self.say, self.t = say, timings
        self.t0 = time.time()

    @contextlib.contextmanager
    def step(self, key, msg=None):
        if msg:
            self.say(msg)
        t = time.time()
        try:
            yield
        finally:
            self.t[key] = round(self.t.get(key, 0.0) + time.time() - t, 3)


def _rank_key(c):
    chk, v = c["check"], c["verdict"]
    nodes = chk.get("nodes") or 0
    g = chk.get("gpu_nodes") or 0
    return (v.get("loads_cpu") is not False,
            v.get("fp32_parity") is not False and (c.get("fix") or {}).get("verified") is not False,
            chk.get("gpu_correct") is not False,          # no node measured wrong on the target runtime
            (g / nodes) if nodes else 0.0,
            -(nodes - g),
            v.get("passes", 0),
            -nodes,
            -c["index"])


def convert_for_gpu(model, sample_inputs=None, out_path=None, check=True, verbose=False, *,
                    dummy_input=None, output_path=None, max_rounds=3, policy="rejected",
                    remedies=None, argmax=False, runtime=True, target="mldrift", fix=True,
                    min_corr=MIN_CORR_FP32, min_corr_fp16=MIN_CORR_FP16, progress=None,
                    gpu_runtime=None):
    """Convert `model` for the LiteRT GPU accelerator (see the module docstring).

    sample_inputs (alias dummy_input): a tensor or a tuple of tensors, used for the
    conversion and for verification. out_path (alias output_path, default
    "model.tflite"). check: verify the candidates (interpreter fp32/fp16, LiteRT);
    False skips that and `ok` cannot be True. policy: "rejected" (the checker's verdict
    for `target` decides; the seed's hostile-op list is reported as seed notes only) or
    "rejected+seed" (the old loop: seed-hostile ops are symptoms too). remedies: force
    this list (names in REMEDIES, or Remedy-like objects) for one round instead of
    routing. runtime: True/"native" (native libLiteRt), "both" (+ LiteRT.js), "js", or
    False. fix: run `gpuclean fix` on every conversion. min_corr / min_corr_fp16: the
    fp32 and GPU-precision parity bars. verbose: progress lines on stderr and the report
    on stdout; progress: a callable receiving the progress lines instead. gpu_runtime:
    the GPU runtime the model is for, "native" (default: libLiteRt, what apps ship) or "js"
    (LiteRT.js): whose fp16 arithmetic the interpreter's fp16 check emulates
    (docs/fp16-model.md) and whose measured GPU facts `check` and `fix` apply (a node
    measured wrong there makes a candidate not GPU-correct; fix rewrites it where it can).
    Never raises because a remedy does not fit the model; raises GpucleanError when even
    the plain conversion fails. Returns the report dict (see format_report)."""
    if gpu_runtime not in (None, "native", "js"):
        raise ValueError("gpu_runtime must be 'native' or 'js', not %r" % (gpu_runtime,))
    import torch

    if sample_inputs is None:
        sample_inputs = dummy_input
    elif dummy_input is not None:
        raise TypeError("give sample_inputs or dummy_input, not both")
    if sample_inputs is None:
        raise TypeError("convert_for_gpu needs sample_inputs (or dummy_input)")
    if out_path is None:
        out_path = output_path if output_path is not None else "model.tflite"
    elif output_path is not None:
        raise TypeError("give out_path or output_path, not both")
    if policy not in ("rejected", "rejected+seed"):
        raise ValueError("policy must be 'rejected' or 'rejected+seed', not %r" % (policy,))
    forced = None if remedies is None else [_remedy_obj(r) for r in remedies]
    if torch.is_tensor(sample_inputs):
        sample_inputs = (sample_inputs,)
    sample_inputs = tuple(sample_inputs)
    out_path = os.path.abspath(os.fspath(out_path))
    stem = out_path[:-7] if out_path.endswith(".tflite") else out_path
    plain_out = stem + ".plain.tflite"
    report_path = stem + ".report.json"

    timings = {}

    def say(msg):
        line = "gpuclean convert_for_gpu [%6.1fs] %s" % (time.time() - loop.t0, msg)
        if progress is not None:
            progress(line)
        elif verbose:
            print(line, file=sys.stderr, flush=True)
    loop = _Loop(say, timings)
    flags = [(m, m.training) for m in model.modules()]
    work = tempfile.mkdtemp(prefix="gpuclean-convert-")
    try:
        report = _run(model, sample_inputs, out_path, plain_out, report_path, work, loop,
                      check=check, max_rounds=max_rounds, policy=policy, forced=forced,
                      argmax=argmax, runtime=runtime, target=target, fix=fix,
                      min_corr=min_corr, min_corr_fp16=min_corr_fp16, gpu_runtime=gpu_runtime)
    finally:
        for m, t in flags:
            m.train(t)
        shutil.rmtree(work, ignore_errors=True)
    if verbose:
        print(format_report(report))
    return report


def _run(model, sample_inputs, out_path, plain_out, report_path, work, loop, *, check,
         max_rounds, policy, forced, argmax, runtime, target, fix, min_corr, min_corr_fp16, gpu_runtime=None):
    import torch
    from .rewrites import REMEDIES
    say, t = loop.say, loop.t
    model.eval()
    with loop.step("reference"):
        with torch.no_grad():
            ref = _to_numpy(model(*[x.clone() for x in sample_inputs]))
    inputs_np = [x.detach().cpu().numpy() for x in sample_inputs]
    report = {"schema": 2, "out_path": out_path, "plain_path": plain_out,
              "report_path": report_path, "policy": policy, "target": target,
              "thresholds": {"fp32": min_corr, "gpu_precision": min_corr_fp16},
              "fp16_gpu_runtime": gpu_runtime or "native",
              "rounds": [], "remedies": [], "fix_runs": [], "candidates": [],
              "conversions": 0, "ok": False}
    cands, store = [], {}

    def add_candidate(name, path, origin, rems, torch_out, fixrec=None):
        try:
            with loop.step("check"):
                summ, chk, ins = _check(path, target, gpu_runtime)
        except GpucleanError as e:
            if name == "plain":
                raise
            report.setdefault("unreadable", []).append({"name": name, "error": str(e)[:400]})
            say("%s: unreadable, not a candidate: %s" % (name, e))
            return None
        par, meta, errs = {}, {}, {}
        if check:
            with loop.step("verify", "verifying %s (interpreter fp32/fp16, LiteRT)" % name):
                par, meta, errs = _verify(path, ins, inputs_np, ref, argmax, runtime, gpu_runtime)
            if torch_out is not None and torch_out is not ref:
                par["torch_rewritten"] = [parity(a, r, argmax) for a, r in zip(torch_out, ref)]
        verdict = _judge(summ, par, meta, min_corr, min_corr_fp16, bool(check))
        c = {"index": len(cands), "name": name, "origin": origin, "remedies": list(rems),
             "check": summ, "verdict": verdict, "parity": par, "litert": meta,
             "interp_errors": errs}
        if fixrec is not None:
            c["fix"] = {"passes": fixrec["passes"],
                        "verified": (fixrec.get("verify") or {}).get("pass")}
        cands.append(c)
        store[name] = (path, chk, ins)
        say("%s: %s; LiteRT CPU %s; fp32 parity %s; GPU-precision parity %s" % (
            name, summ.get("residency"), {True: "loads", False: "cannot load", None: "n/a"}[
                verdict.get("loads_cpu")], _yn(verdict.get("fp32_parity")),
            _yn(verdict.get("gpu_precision_parity"))))
        return c

    def fix_candidate(c):
        if not fix:
            return None
        path = store[c["name"]][0]
        out = os.path.join(work, "%s.fix.tflite" % c["name"].replace("+", "_"))
        with loop.step("fix", "gpuclean fix on %s" % c["name"]):
            # the GPU runs the model at fp16 (the GPU-precision bar): fp16-only miscomputes are fixed too
            fr = run_fix(path, out, target, facts_runtime=gpu_runtime, precision="fp16")
        fr["on"] = c["name"]
        report["fix_runs"].append(fr)
        if fr.get("error"):
            say("gpuclean fix on %s: %s" % (c["name"], fr["error"]))
            return None
        if not fr["changed"]:
            return None
        if (fr.get("verify") or {}).get("pass") is False:
            fr["rejected"] = "its own verification failed"
            say("gpuclean fix on %s: verification failed, result not used" % c["name"])
            return None
        return add_candidate(c["name"] + "+fix", out, "fix", c["remedies"], store_out[c["name"]], fr)

    store_out = {}
    # round 0: plain
    plain_tmp = os.path.join(work, "plain.tflite")
    with loop.step("plain_conversion", "plain conversion (litert-torch)"):
        convert_plain(copy.deepcopy(model), sample_inputs, plain_tmp, os.path.join(work, "plain.log"))
    report["conversions"] += 1
    store_out["plain"] = ref
    plain = add_candidate("plain", plain_tmp, "plain", [], ref)
    _atomic_copy(plain_tmp, plain_out)
    report["rounds"].append({"round": 0, "candidates": ["plain"]})
    pf = fix_candidate(plain)
    if pf:
        report["rounds"][0]["candidates"].append(pf["name"])

    tried = set()
    for rnd in range(1, max_rounds + 1):
        best = max(cands, key=_rank_key)
        if forced is not None:
            if rnd > 1:
                break
            rems = list(forced)
            syms = []
        else:
            _, chk, ins = store[best["name"]]
            v = best["verdict"]
            fp16_fail = "; ".join(v.get("gpu_precision_failures") or []) or None
            syms = router.symptoms(chk, ins, policy, fp16_failure=fp16_fail)
            new = [r for r in router.remedies_for(syms, tried=tried) if r in REMEDIES and r not in tried]
            if not new:
                break
            rems = [REMEDIES[n] for n in best["remedies"] if n in REMEDIES] + [REMEDIES[n] for n in new]
        tried |= {r.name for r in rems}
        rd = {"round": rnd, "from": best["name"], "symptoms": syms[:50],
              "n_symptoms": len(syms), "remedies": [r.name for r in rems], "candidates": []}
        report["rounds"].append(rd)
        gstate = _GlobalState(model)
        patches = []
        try:
            try:
                with loop.step("rewrite", "round %d: applying %s" % (rnd, ", ".join(r.name for r in rems))):
                    m2, patches, recs, outs = _apply_remedies(model, rems, sample_inputs, ref, rnd, model)
            except Exception as e:  # noqa: BLE001 - e.g. the model cannot be deep-copied
                rd["converted"] = False
                rd["error"] = "applying the remedies failed: " + _err(e)
                say("round %d: %s" % (rnd, rd["error"]))
                continue
            report["remedies"].extend(recs)
            rd["records"] = [r["name"] + ": " + r["status"] for r in recs]
            effective = [r["name"] for r in recs if r["changed"]]
            for r in recs:
                if r["status"] != "applied":
                    say("round %d: %s %s%s" % (rnd, r["name"], r["status"],
                                                ": " + r["error"] if r["error"] else ""))
            if not effective:
                rd["converted"] = False
                rd["why_not"] = "no remedy changed the model"
                continue
            if any(sorted(effective) == sorted(c["remedies"]) for c in cands):
                rd["converted"] = False
                rd["why_not"] = "the same effective remedies as an earlier candidate"
                continue
            name = "round%d" % rnd
            path = os.path.join(work, name + ".tflite")
            try:
                with loop.step("reconversion", "round %d: re-converting with %s"
                               % (rnd, ", ".join(effective))):
                    convert_plain(m2, sample_inputs, path, os.path.join(work, name + ".log"))
                report["conversions"] += 1
            except GpucleanError as e:
                rd["converted"] = False
                rd["error"] = str(e).splitlines()[0][:400]
                say("round %d: conversion failed: %s" % (rnd, rd["error"]))
                for r in recs:
                    if r["changed"] and r["name"] not in best["remedies"]:
                        r["status"] = "conversion failed"
                continue
        finally:
            for p in reversed(patches):
                with contextlib.suppress(Exception):
                    p.restore()
            leaked = gstate.restore()
            if leaked:
                rd["restored_globals"] = leaked
        rd["converted"] = True
        store_out[name] = outs
        c = add_candidate(name, path, "rewrite", effective, outs)
        if c is None:
            continue
        rd["candidates"].append(name)
        fc = fix_candidate(c)
        if fc:
            rd["candidates"].append(fc["name"])

    # the best candidate seen is what gets written
    best = max(cands, key=_rank_key)
    for c in cands:
        c["rank"] = [x if not isinstance(x, bool) else int(x) for x in _rank_key(c)]
        c["chosen"] = c is best
    with loop.step("write"):
        _atomic_copy(store[best["name"]][0], out_path)
    final = dict(best["check"], path=out_path)
    v = best["verdict"]
    report.update({
        "chosen": best["name"], "plain": plain["check"], "final": final,
        "before": plain["check"], "after": final,
        "parity": best["parity"], "litert": best["litert"], "interp_errors": best["interp_errors"],
        "plain_verdict": {k: plain["verdict"][k] for k in ("gpu_clean", "fp32_parity",
                                                           "gpu_precision_parity", "loads_cpu")},
        "gpu_clean": v["gpu_clean"], "fp32_parity": v["fp32_parity"],
        "gpu_precision_parity": v["gpu_precision_parity"], "loads_cpu": v["loads_cpu"],
        "gpu_correct": v.get("gpu_correct"),
        "reasons": v["reasons"],
        "fix_passes": (best.get("fix") or {}).get("passes", []),
        "seed_notes": router.seed_notes(store[best["name"]][2]),
    })
    if policy == "rejected+seed" and final.get("seed_notes"):
        report["reasons"] = report["reasons"] + ["seed-hostile ops remain (policy rejected+seed): %s"
                                                 % json.dumps(final["seed_notes"], sort_keys=True)]
    report["ok"] = bool(v["gpu_clean"] and v["fp32_parity"] is True and v.get("gpu_correct") is not False
                        and v["gpu_precision_parity"] is True and v["loads_cpu"] is not False
                        and not (policy == "rejected+seed" and final.get("seed_notes")))
    applied = {}
    for r in report["remedies"]:
        if r["name"] in best["remedies"] and r["changed"]:
            applied[r["name"]] = {"count": r["count"], "modules_changed": r["modules_changed"],
                                  "hits": r["hits"], "exactness": r["exactness"], "what": r["what"]}
    report["applied"] = applied
    report["candidates"] = [{k: c[k] for k in ("index", "name", "origin", "remedies", "verdict",
                                               "rank", "chosen")}
                            | {"residency": c["check"].get("residency"),
                               "gpu_nodes": c["check"].get("gpu_nodes"),
                               "nodes": c["check"].get("nodes"),
                               "size_bytes": c["check"].get("size_bytes"),
                               "gpu_correct": c["check"].get("gpu_correct"),
                               "facts_runtime": c["check"].get("facts_runtime"),
                               "fix": c.get("fix")} for c in cands]
    t["total"] = round(time.time() - loop.t0, 3)
    report["timings"] = dict(t)
    report["seconds"] = round(t["total"], 1)
    report = _jsonable(report)
    _atomic_write_json(report_path, report)
    say("%s -> %s (%s)" % ("OK" if report["ok"] else "NOT OK", out_path, final.get("residency")))
    return report


def _yn(v):
    return {True: "yes", False: "NO", None: "n/a"}.get(v, str(v))


# ---- text ------------------------------------------------------------------------------

def _fmt_parity(ps):
    if not isinstance(ps, list):
        return str(ps)
    parts = []
    for k, p in enumerate(ps):
        if p.get("error"):
            parts.append("out%d %s" % (k, p["error"]))
            continue
        c = p.get("corr")
        s = "out%d corr %s max|d| %s" % (k, "%.6f" % c if isinstance(c, float) else c,
                                        "%.3g" % p["max_abs"] if isinstance(p.get("max_abs"), float)
                                        else p.get("max_abs"))
        if "argmax_agree" in p:
            s += " argmax %.1f%%" % (100 * p["argmax_agree"])
        parts.append(s)
    return "; ".join(parts)


def format_report(r):
    """The report as text: the plain conversion, the fix runs, the rounds with each
    remedy's effect, the candidates and which was written, parity per backend with its
    bar, the three verdicts, timings."""
    lines = ["gpuclean convert_for_gpu -> %s" % r["out_path"]]
    b, a = r["plain"], r["final"]
    lines.append("  plain conversion: %s; %d bytes (%s)" % (
        b.get("residency"), b.get("size_bytes", 0), os.path.basename(r.get("plain_path", ""))))
    for n in (b.get("rejected") or [])[:8]:
        lines.append("    rejected: node %d %s [%s] %s" % (n["index"], n["op"], n["rule"],
                                                           (n["reason"] or "")[:90]))
    if len(b.get("rejected") or []) > 8:
        lines.append("    ... %d more rejected" % (len(b["rejected"]) - 8))
    for fr in r.get("fix_runs", []):
        if fr.get("error"):
            lines.append("  gpuclean fix on %s: %s" % (fr["on"], fr["error"]))
            continue
        res = fr.get("residency") or {}
        ba = [res.get(k) or {} for k in ("before", "after")]
        passes = ", ".join("%s x%d [%s]" % (p["id"], p["changes"] or p["sites"] or 0, p["exactness"])
                           for p in fr["passes"]) or "nothing to rewrite"
        ver = fr.get("verify") or {}
        if fr.get("declined"):
            passes += " (%d site(s) declined)" % len(fr["declined"])
        lines.append("  gpuclean fix on %s: %s; %s/%s -> %s/%s; verify %s%s" % (
            fr["on"], passes, ba[0].get("gpu_nodes"), ba[0].get("total_nodes"),
            ba[1].get("gpu_nodes"), ba[1].get("total_nodes"),
            {True: "passed", False: "FAILED", None: "not run"}.get(ver.get("pass"), ver.get("pass")),
            " (%s)" % ver["exactness"] if ver.get("exactness") else ""))
    for rd in r["rounds"][1:]:
        lines.append("  round %d (from %s): %s" % (rd["round"], rd["from"], ", ".join(rd["remedies"])))
        for rec in [x for x in r["remedies"] if x["round"] == rd["round"]]:
            s = "    %-17s %-17s count %s, modules changed %s, patch hits %s" % (
                rec["name"], rec["status"], rec["count"], rec["modules_changed"], rec["hits"])
            if rec.get("error"):
                s += ": " + rec["error"]
            lines.append(s)
        if rd.get("converted"):
            lines.append("    re-converted -> %s" % ", ".join(rd["candidates"]))
        else:
            lines.append("    not re-converted: %s" % (rd.get("error") or rd.get("why_not")))
    lines.append("  candidates (rank: loads on LiteRT CPU, fp32 parity, residency, checks passed, nodes):")
    for c in r["candidates"]:
        v = c["verdict"]
        lines.append("    %s %-14s %-44s CPU %-5s fp32 %-3s fp16 %-3s %s" % (
            "*" if c["chosen"] else " ", c["name"], c["residency"],
            {True: "loads", False: "FAILS", None: "n/a"}[v.get("loads_cpu")],
            _yn(v.get("fp32_parity")), _yn(v.get("gpu_precision_parity")),
            ("remedies " + ",".join(c["remedies"])) if c["remedies"] else ""))
    lines.append("  written: %s: %s; %d bytes" % (r["chosen"], a.get("residency"), a.get("size_bytes", 0)))
    for n in (a.get("rejected") or [])[:10]:
        lines.append("    still off the GPU: node %d %s [%s] %s" % (n["index"], n["op"], n["rule"],
                                                                    (n["reason"] or "")[:90]))
    for n, d in r.get("applied", {}).items():
        lines.append("    remedy %-15s %s [exactness: %s]" % (n, d["what"], d["exactness"]))
    for p in r.get("fix_passes", []):
        lines.append("    fix pass %-20s x%d [%s]" % (p["id"], p["changes"] or p["sites"] or 0, p["exactness"]))
    notes = a.get("seed_notes") or {}
    if notes:
        lines.append("  seed notes (informational; the checker decides): %s"
                     % json.dumps(notes, sort_keys=True))
    th = r.get("thresholds", {})
    lines.append("  parity vs the original PyTorch model (same inputs; bar fp32 %s, GPU precision %s):"
                 % (th.get("fp32"), th.get("gpu_precision")))
    for k, v in r["parity"].items():
        lines.append("    %-22s %s" % (k, _fmt_parity(v)))
    for k, v in (r.get("interp_errors") or {}).items():
        lines.append("    %-22s unavailable: %s" % (k, v))
    lt = r.get("litert") or {}
    if lt.get("error"):
        lines.append("    LiteRT: %s" % lt["error"])
    for k, v in (lt.get("versions") or {}).items():
        if v:
            lines.append("    runtime %s: %s" % (k, v))
    for k, g in (lt.get("gpu") or {}).items():
        lines.append("    real GPU (%s): %s" % (k, g.get("text")))
    lines.append("  GPU-clean: %s; GPU-correct (measured facts, %s): %s; fp32 parity: %s; GPU-precision parity: %s" % (
        _yn(r["gpu_clean"]), (r.get("final") or {}).get("facts_runtime") or "n/a", _yn(r.get("gpu_correct")),
        _yn(r["fp32_parity"]), _yn(r["gpu_precision_parity"])))
    tm = r.get("timings", {})
    order = ("plain_conversion", "reconversion", "rewrite", "fix", "check", "verify", "reference", "write")
    lines.append("  timings: %s; %d conversion(s)" % (", ".join(
        "%s %.1f s" % (k, tm[k]) for k in order if k in tm), r.get("conversions", 0)))
    if r["ok"]:
        lines.append("  OK: GPU-clean and matching, in %.1f s" % r["seconds"])
    else:
        lines.append("  NOT OK (%.1f s):" % r["seconds"])
        for why in r.get("reasons", []):
            lines.append("    - %s" % why)
    return "\n".join(lines)
