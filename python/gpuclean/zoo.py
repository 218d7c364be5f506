"""The zoo: model recipes in models/<family>/<model>/converted/, the seed's layout.

Each recipe folder holds `recipe.py` (the model: the library's constructor and config,
its sample inputs, how to load real weights from a local path) and three scripts, each
runnable alone, that call into this module:

    dump_<name>_ref.py   the source PyTorch model on seeded inputs -> OUT/ref/input_<k>.npy,
                         OUT/ref/output_<k>.npy, OUT/ref/meta.json
    export_<name>.py     convert_for_gpu -> OUT/<name>.tflite (+ .plain.tflite), OUT/export.json
    verify_<name>.py     OUT/<name>.tflite against OUT/ref: gpuclean check (residency), the
                         reference interpreter at fp32 and the GPU's fp16 precision
                         (`gpuclean verify`), the real LiteRT CPU runtime -> OUT/verify.json

OUT defaults to <repo>/build/zoo/<family>/<name> (--out DIR). No weights are downloaded:
every model is built with random init from a fixed seed (torch.manual_seed(0)); give
`--weights PATH` (a state_dict .pt/.pth/.bin/.safetensors, or for Hugging Face recipes
a local model folder) to use real ones. Inputs come from torch.Generator seed 1234
(images: N(0,1); token ids: uniform in [0, vocab)). With random init, BatchNorm running
statistics are calibrated on seeded random inputs (calibrate_batchnorm) so that the
activations have a trained network's scale; weights are the constructor's.

A recipe module defines:
    FAMILY, NAME         folder names
    SOURCE               one line: library, version, constructor / config
    build()              -> torch.nn.Module (eval mode; forward returns a tensor or a
                         tuple of tensors)
    inputs(gen)          -> tuple of tensors
    ARGMAX               (optional) compare argmax on the last axis too (classifiers)
    load_weights(model, path) (optional) how real weights are loaded; default: a state_dict
    MIN_CORR_FP16        (optional) the GPU-precision bar when the default (0.999) is
                         not met for a stated reason
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from ._lib import repo_root

__all__ = ["main_dump", "main_export", "main_verify", "out_dir", "build_model",
           "sample_inputs", "load_state_dict", "recipes", "table", "MIN_CORR_FP32",
           "MIN_CORR_FP16"]

MIN_CORR_FP32 = 0.9999   # interpreter fp32 and LiteRT CPU vs PyTorch
MIN_CORR_FP16 = 0.999    # the GPU's fp16 precision (interpreter emulation) vs PyTorch
MODEL_SEED, INPUT_SEED = 0, 1234


# ---- paths and model -----------------------------------------------------------------

def out_dir(recipe, override=None):
    if override:
        return os.path.abspath(override)
    root = repo_root() or os.getcwd()
    return os.path.join(root, "build", "zoo", recipe.FAMILY, recipe.NAME)


def _atomic_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True, default=str)
        f.write("\n")
    os.replace(tmp, path)


def load_state_dict(model, path):
    """Load a state_dict from a local file (.safetensors, or a torch pickle loaded with
    weights_only=True) into `model`; strict, so a mismatched file is an error."""
    if path.endswith(".safetensors"):
        from safetensors.torch import load_file
        sd = load_file(path)
    else:
        import torch
        sd = torch.load(path, map_location="cpu", weights_only=True)
        if isinstance(sd, dict) and "state_dict" in sd and isinstance(sd["state_dict"], dict):
            sd = sd["state_dict"]
    model.load_state_dict(sd, strict=True)
    return model


CALIB_SEED, CALIB_BATCHES = 99, 8


def calibrate_batchnorm(model, recipe):
    """Random init leaves BatchNorm's running statistics at (0, 1) while the activations
    they normalise are far from that, so a randomly initialised CNN's activations shrink
    or grow layer after layer (torchvision's MobileNetV3 ends at |logits| ~1e-9, below
    fp16's smallest subnormal: every fp16 comparison is then meaningless). A trained
    network's statistics match its activations; this gives the random one the same
    property: running mean/var are set to the statistics of CALIB_BATCHES seeded
    random inputs (cumulative average, momentum=None), weights untouched. Returns the
    number of BatchNorm layers calibrated."""
    import torch
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return 0
    saved = [(m, m.momentum) for m in bns]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    g = torch.Generator().manual_seed(CALIB_SEED)
    model.train()
    with torch.no_grad():
        for _ in range(CALIB_BATCHES):
            xs = recipe.inputs(g)
            model(*(xs if isinstance(xs, (tuple, list)) else (xs,)))
    for m, mom in saved:
        m.momentum = mom
    model.eval()
    return len(bns)


def build_model(recipe, weights=None):
    """The recipe's model: random init from MODEL_SEED (BatchNorm statistics calibrated,
    see calibrate_batchnorm), or real weights from `weights`."""
    import torch
    torch.manual_seed(MODEL_SEED)
    model = recipe.build()
    if not weights:
        calibrate_batchnorm(model, recipe)
    if weights:
        if not os.path.exists(weights):
            raise SystemExit("%s: no such weights file or folder" % weights)
        load = getattr(recipe, "load_weights", None)
        model = load(model, weights) if load else load_state_dict(model, weights)
    return model.eval()


def sample_inputs(recipe):
    import torch
    g = torch.Generator().manual_seed(INPUT_SEED)
    xs = recipe.inputs(g)
    return tuple(xs) if isinstance(xs, (tuple, list)) else (xs,)


def _outputs(y):
    import torch
    if torch.is_tensor(y):
        return [y.detach().cpu().numpy()]
    if isinstance(y, dict):
        y = list(y.values())
    out = []
    for v in y:
        out.extend(_outputs(v))
    return out


def _args(recipe, what, argv):
    p = argparse.ArgumentParser(prog="%s_%s" % (what, recipe.NAME),
                                description="%s: %s (%s)" % (recipe.NAME, what, recipe.SOURCE))
    p.add_argument("--out", help="output folder (default build/zoo/%s/%s)"
                   % (recipe.FAMILY, recipe.NAME))
    if what != "verify":
        p.add_argument("--weights", help="real weights: a local state_dict file or model folder "
                       "(default: random init, seed %d)" % MODEL_SEED)
    if what == "export":
        p.add_argument("--no-runtime", action="store_true",
                       help="skip the real LiteRT runtime inside convert_for_gpu")
    if what == "verify":
        p.add_argument("--model", help="the .tflite to verify (default OUT/%s.tflite)" % recipe.NAME)
    return p.parse_args(argv)


# ---- the three steps -----------------------------------------------------------------

def main_dump(recipe, argv=None):
    """Reference dump: the source model on seeded inputs -> OUT/ref."""
    import torch
    a = _args(recipe, "dump", argv)
    out = out_dir(recipe, a.out)
    ref = os.path.join(out, "ref")
    tmp = ref + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    t0 = time.time()
    model = build_model(recipe, a.weights)
    xs = sample_inputs(recipe)
    with torch.no_grad():
        ys = _outputs(model(*[x.clone() for x in xs]))
    for k, x in enumerate(xs):
        np.save(os.path.join(tmp, "input_%d.npy" % k), x.numpy())
    for k, y in enumerate(ys):
        np.save(os.path.join(tmp, "output_%d.npy" % k), y)
    meta = {"model": recipe.NAME, "source": recipe.SOURCE, "weights": a.weights or "random init (seed %d)" % MODEL_SEED,
            "input_seed": INPUT_SEED, "torch": torch.__version__,
            "inputs": [[list(x.shape), str(x.dtype)] for x in xs],
            "outputs": [[list(y.shape), str(y.dtype)] for y in ys],
            "params": int(sum(p.numel() for p in model.parameters())),
            "seconds": round(time.time() - t0, 2)}
    _atomic_json(os.path.join(tmp, "meta.json"), meta)
    shutil.rmtree(ref, ignore_errors=True)
    os.replace(tmp, ref)
    print("dump %s: %s (inputs %s, outputs %s, %d parameters)" % (
        recipe.NAME, ref, [m[0] for m in meta["inputs"]], [m[0] for m in meta["outputs"]],
        meta["params"]))
    return 0


def main_export(recipe, argv=None):
    """convert_for_gpu on the recipe's model -> OUT/<name>.tflite and OUT/export.json."""
    from .convert import convert_for_gpu, format_report
    a = _args(recipe, "export", argv)
    out = out_dir(recipe, a.out)
    os.makedirs(out, exist_ok=True)
    model = build_model(recipe, a.weights)
    xs = sample_inputs(recipe)
    path = os.path.join(out, recipe.NAME + ".tflite")
    t0 = time.time()
    report = convert_for_gpu(model, xs, path, argmax=bool(getattr(recipe, "ARGMAX", False)),
                             runtime=not a.no_runtime)
    report["zoo_seconds"] = round(time.time() - t0, 1)
    report["source"] = recipe.SOURCE
    report["weights"] = a.weights or "random init (seed %d)" % MODEL_SEED
    _atomic_json(os.path.join(out, "export.json"), report)
    print(format_report(report))
    return 0 if os.path.exists(path) else 1


def _cli():
    from .runtime import find_cli
    exe = find_cli()
    if not exe:
        raise SystemExit("gpuclean CLI not found: run make (or set GPUCLEAN_BIN)")
    return exe


def _run_json(args, timeout=1800):
    p = subprocess.run([_cli()] + args + ["--json"], capture_output=True, text=True,
                       timeout=timeout)
    try:
        doc = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        doc = None
    return p.returncode, doc, p.stderr.strip()


def _parity(a, ref, argmax=False):
    from .convert import parity
    a = np.asarray(a)
    if a.shape != np.asarray(ref).shape and a.size == np.asarray(ref).size:
        a = a.reshape(np.asarray(ref).shape)
    return parity(a, ref, argmax)


def _check(model):
    code, doc, err = _run_json(["check", model])
    s = (doc or {}).get("summary", {})
    return {"exit": code, "residency": s.get("residency"), "gpu_clean": s.get("gpu_clean"),
            "gpu_nodes": s.get("gpu_nodes"), "nodes": s.get("nodes"),
            "error": None if doc else err}


def _interp(model, ref, argmax):
    """gpuclean verify at fp32 and fp16 (the GPU's precision) against the reference."""
    res = {}
    for prec in ("fp32", "fp16"):
        args = ["verify", model, "--ref", ref, "--precision", prec]
        code, doc, err = _run_json(args)
        if doc is None:
            res[prec] = {"error": err or "gpuclean verify exited %d" % code}
            continue
        res[prec] = {"exit": code, "outputs": doc.get("outputs", doc)}
    return res


def _outputs_of(doc):
    """[(corr, max_abs, argmax)] from a gpuclean verify JSON document (schema tolerant)."""
    outs = doc.get("outputs") if isinstance(doc, dict) else None
    rows = []
    for o in outs or []:
        m = o.get("metrics", o)
        rows.append({"corr": m.get("corr", m.get("pearson")), "max_abs": m.get("max_abs"),
                     "argmax_agree": m.get("argmax_agree")})
    return rows


def _litert_cpu(model, ref, n_in, n_out, argmax):
    """The native LiteRT CPU runtime on the reference inputs, compared with the reference."""
    tmp = tempfile.mkdtemp(prefix="gpuclean-zoo-")
    try:
        args = ["litert", model, "--accelerator", "cpu", "--runtime", "native",
                "--out", os.path.join(tmp, "o"), "--runs", "0"]
        for k in range(n_in):
            args += ["--input", "%d=%s" % (k, os.path.join(ref, "input_%d.npy" % k))]
        code, doc, err = _run_json(args, timeout=900)
        if doc is None:
            return {"error": err or "gpuclean litert exited %d" % code}
        rt = (doc.get("runtimes") or {}).get("native") or {}
        if not rt.get("ran"):
            return {"error": rt.get("why") or rt.get("error") or (doc.get("verdict") or {}).get("text")}
        from .runtime import _load_outputs
        outs = _load_outputs(rt).get("cpu") or []
        got = [o["array"] for o in outs]
        if len(got) != n_out or any(g is None for g in got):
            return {"error": "LiteRT CPU returned %d outputs, reference has %d" % (len(got), n_out)}
        refs = [np.load(os.path.join(ref, "output_%d.npy" % k)) for k in range(n_out)]
        return {"versions": rt.get("versions"),
                "outputs": [_parity(g, r, argmax) for g, r in zip(got, refs)]}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main_verify(recipe, argv=None):
    """OUT/<name>.tflite against OUT/ref; writes OUT/verify.json; exit 0 when GPU-clean on
    the checker and every parity number passes."""
    a = _args(recipe, "verify", argv)
    out = out_dir(recipe, a.out)
    model = os.path.abspath(a.model or os.path.join(out, recipe.NAME + ".tflite"))
    ref = os.path.join(out, "ref")
    for need, what in ((model, "export_%s.py" % recipe.NAME), (ref, "dump_%s_ref.py" % recipe.NAME)):
        if not os.path.exists(need):
            print("verify %s: %s missing: run %s first" % (recipe.NAME, need, what), file=sys.stderr)
            return 2
    argmax = bool(getattr(recipe, "ARGMAX", False))
    min16 = float(getattr(recipe, "MIN_CORR_FP16", MIN_CORR_FP16))
    n_in = len([f for f in os.listdir(ref) if f.startswith("input_")])
    n_out = len([f for f in os.listdir(ref) if f.startswith("output_")])
    refs = [np.load(os.path.join(ref, "output_%d.npy" % k)) for k in range(n_out)]
    t0 = time.time()
    doc = {"model": recipe.NAME, "family": recipe.FAMILY, "source": recipe.SOURCE,
           "file": model, "bytes": os.path.getsize(model)}
    plain = model[:-7] + ".plain.tflite" if model.endswith(".tflite") else None
    if plain and os.path.exists(plain):
        doc["plain"] = _check(plain)
    doc["check"] = _check(model)
    doc["ref_spread"] = [(float(np.std(r.astype(np.float64))) if r.size else 0.0, list(r.shape))
                         for r in refs]
    # the reference interpreter: fp32 and the GPU's fp16 storage precision
    from .core import Interpreter, Model
    from ._lib import GpucleanError
    xs = [np.load(os.path.join(ref, "input_%d.npy" % k)) for k in range(n_in)]
    for prec in ("fp32", "fp16"):
        try:
            with Model(model) as m, Interpreter(m, prec) as it:
                got = it(*xs)
            doc["interp_" + prec] = {"outputs": [_parity(g, r, argmax) for g, r in zip(got, refs)]}
        except (GpucleanError, NotImplementedError, ValueError) as e:
            doc["interp_" + prec] = {"error": str(e)}
    doc["litert_cpu"] = _litert_cpu(model, ref, n_in, n_out, argmax)
    ex = os.path.join(out, "export.json")
    if os.path.exists(ex):
        with open(ex) as f:
            e = json.load(f)
        doc["rewrites"] = sorted((e.get("applied") or {}).keys())
        doc["fix_passes"] = e.get("fix_passes") or (e.get("fix") or {}).get("applied")
        doc["export_seconds"] = e.get("seconds")
    doc["seconds"] = round(time.time() - t0, 1)
    doc["verdict"] = _verdict(doc, min16)
    _atomic_json(os.path.join(out, "verify.json"), doc)
    print(format_row(doc, header=True))
    for k in ("interp_fp32", "interp_fp16", "litert_cpu"):
        if doc[k].get("error"):
            print("  %s: %s" % (k, doc[k]["error"]))
    return 0 if doc["verdict"]["ok"] else 1


def _worst(section):
    outs = (section or {}).get("outputs") or []
    if not outs:
        return None
    cs = [o["corr"] for o in outs]
    return float("nan") if any(c != c for c in cs) else min(cs)


def _verdict(doc, min16):
    why = []
    for k, (std, shape) in enumerate(doc.get("ref_spread") or []):
        if not std > 0:
            why.append("reference output %d %s is constant (std %g): parity would prove nothing"
                       % (k, shape, std))
    if not doc["check"].get("gpu_clean"):
        why.append("not GPU-clean on the checker (%s)" % doc["check"].get("residency"))
    for k, bar in (("interp_fp32", MIN_CORR_FP32), ("litert_cpu", MIN_CORR_FP32),
                   ("interp_fp16", min16)):
        sec = doc.get(k) or {}
        if sec.get("error"):
            why.append("%s: %s" % (k, sec["error"][:120]))
            continue
        c = _worst(sec)
        nan = any(not np.isfinite(o.get("max_abs", 0.0)) for o in sec.get("outputs") or [])
        if c is None or nan or not c >= bar:          # NaN fails: nan >= bar is False
            why.append("%s corr %s < %s%s" % (k, c, bar, " (NaN/Inf in the output)" if nan else ""))
    return {"ok": not why, "why": why}


def _fmt_corr(sec):
    if not sec or sec.get("error"):
        return "error"
    c = _worst(sec)
    mx = max(o["max_abs"] for o in sec["outputs"])
    s = "%.6f/%.2g" % (c, mx)
    ag = [o.get("argmax_agree") for o in sec["outputs"] if o.get("argmax_agree") is not None]
    if ag:
        s += " top1 %d%%" % round(100 * min(ag))
    return s


HEADER = ("| model | family | plain | final | rewrites / passes | interp fp32 (corr/max) "
          "| GPU fp16 emul | LiteRT CPU | verdict |")


def _pass_name(x):
    """A fix pass record (convert_for_gpu's fix_passes entry) or a name -> 'name(sites)'."""
    if isinstance(x, dict):
        return "%s(%s)" % (x.get("id") or x.get("fix_id"), x.get("sites", x.get("changes", "?")))
    return str(x)


def _res(c):
    """'113/113 (1)': GPU nodes / nodes (partitions) from a check summary."""
    r = (c or {}).get("residency") or "?"
    import re
    m = re.search(r"(\d+)/(\d+) nodes in (\d+)", r)
    return "%s/%s (%s)" % m.groups() if m else r


def format_row(doc, header=False):
    rw = ", ".join(doc.get("rewrites") or []) or "-"
    fx = doc.get("fix_passes")
    if fx:
        rw += "; fix: " + ", ".join(_pass_name(x) for x in (fx if isinstance(fx, list) else [fx]))
    row = "| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        doc["model"], doc["family"], _res(doc.get("plain")), _res(doc["check"]), rw, _fmt_corr(doc.get("interp_fp32")),
        _fmt_corr(doc.get("interp_fp16")), _fmt_corr(doc.get("litert_cpu")),
        "OK" if doc["verdict"]["ok"] else "NOT OK: " + "; ".join(doc["verdict"]["why"])[:160])
    return (HEADER + "\n" + "|---" * 9 + "|\n" + row) if header else row


# ---- the whole zoo -------------------------------------------------------------------

def recipes(root=None):
    """[(family, name, converted folder)] of every recipe under <repo>/models."""
    root = root or os.path.join(repo_root() or os.getcwd(), "models")
    found = []
    for fam in sorted(os.listdir(root)):
        fd = os.path.join(root, fam)
        if not os.path.isdir(fd):
            continue
        for name in sorted(os.listdir(fd)):
            conv = os.path.join(fd, name, "converted")
            if os.path.exists(os.path.join(conv, "recipe.py")):
                found.append((fam, name, conv))
    return found


def h200_table(rows):
    """Markdown rows from device records ({model, runtime, version, device, twin, modes})."""
    lines = ["| model | file | runtime | gpu fp32: residency / vs CPU (corr, max) | gpu fp16 | verdict |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        for rt in r.get("runtimes", []):
            def cell(m):
                x = (rt.get("modes") or {}).get(m) or {}
                if not x:
                    return "-"
                s = x.get("status", "?")
                if x.get("residency"):
                    s += " %s" % x["residency"]
                if x.get("corr") is not None:
                    s += ", corr %.6f max %.2g" % (x["corr"], x.get("max_abs") or 0)
                return s
            lines.append("| %s | %s%s | %s %s | %s | %s | %s |" % (
                r["model"], r.get("file", "final"), " (twin)" if r.get("twin") else "", rt.get("name"), rt.get("version", ""),
                cell("gpu-fp32"), cell("gpu-fp16"), rt.get("verdict", "")))
    return "\n".join(lines)


def table(docs):
    lines = [HEADER, "|---" * 9 + "|"]
    lines += [format_row(d) for d in docs]
    ok = sum(1 for d in docs if d["verdict"]["ok"])
    lines.append("")
    lines.append("zoo: %d passed, %d failed" % (ok, len(docs) - ok))
    return "\n".join(lines)
