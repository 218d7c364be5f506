#!/usr/bin/env python3
"""fp16 prediction vs the real GPU, per output and per runtime: what `gpuclean run
--precision fp16 --gpu-runtime native|js` predicts for the GPU's fp16 error, against what
the GPU measured (docs/fp16-model.md says what the two emulations do).

    tools/fp16_predict.py [table] [--md FILE] [--only REGEX] [--zoo DIR]
        every measured row (docs/measurements/zoo-h200.jsonl: the zoo; data/gpu/fp16/*.jsonl:
        probes, corpus models) run here on the interpreter with the same file and inputs:
        predicted = max|interp fp16 - interp fp32| per output with the row's runtime
        (native or js), measured = max|GPU fp16 - CPU| of that runtime. Prints a Markdown
        table and the share of outputs within 3x, per runtime.
    tools/fp16_predict.py pack [--dest .device-fp16] [--probes N] [MODEL ...]
        one pack for the GPU machine (runtime/litert/pack.sh --dest DIR): the float
        models of ../shared/corpus (names without quant / ptq / int8; or the MODELs given), two fp16 semantics models made
        with litert-torch (fp16sem_overflow: (300x)^2 past 65504, does the store saturate
        or give inf; fp16sem_zero_row_norm: a LayerNorm decomposition over a row of zeros
        with eps 1e-12, finite or NaN), and N prefix probes (tools/gpu_bisect.py) of each
        of the zoo's GPU-clean final twins (their reference token ids travel as inputs);
        run there with `OUT=... JOBS=8 TEXT=0 RUNS=1 bash runtime/litert/device.sh .device-fp16`
    tools/fp16_predict.py pack --extra-only [--dest .device-fp16x]
        just the extra models (tools/fp16_models.py build: real architectures from their
        libraries, random init, whole-GPU on the checker; twins where large) and their
        token-id inputs; run there with
        `OUT=$OUT JOBS=12 TEXT=0 RUNS=1 TIMEOUT=90 bash runtime/litert/device.sh .device-fp16x`
        (--extra adds them to the corpus pack instead)
    tools/fp16_predict.py collect DIR [--kind corpus|probe|zoo|extra]
        DIR/reports.jsonl + DIR/env.txt (device.sh's output) -> one row per model, runtime
        and mode in data/gpu/fp16/<runtime>-<version>__<device>.jsonl (rows for the same
        model, runtime and mode are replaced); without --kind, a stem named in
        tools/fp16_models.py is "extra"

Which rows count: the GPU ran the whole model (a partial residency runs the CPU part in
fp32, which the all-GPU emulation cannot know: listed, not scored), both sides are
finite, the GPU's fp32 run agrees with the CPU (|GPU fp32 - CPU| <= 1e-3 max|CPU|) and the
fp16 one is not broken (corr < 0.9 with an error over 1% of max|CPU|, or an error over
half of max|CPU|); a larger fp32 error or a broken fp16 output is a miscompute, not rounding, and is listed but not scored.
A row whose file here differs from the one measured (the CPU's max |output| and our fp32
one disagree by more than 1e-3 relative) is listed as such and not scored.
Files: zoo rows use build/zoo-device/<model>__<file>[__twin].tflite (made with the shared
twin tool from build/zoo when missing, as tools/zoo_device.py pack does); probe rows
(<twin>__op<I>) are made again from their twin with `gpuclean edit --truncate-at`; corpus
rows use ../shared/corpus; extra rows build/fp16-extra/<stem>.tflite (tools/fp16_models.py
build makes them again, the same bytes for the same library versions) with their inputs
from build/fp16-extra/inputs/<stem>/ (token ids) or the sin pattern.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
from gpuclean.core import Interpreter, Model  # noqa: E402



def _tool(name):
    """tools/<name>.py as a module, without putting tools/ on sys.path (its file names,
    coverage.py among them, would shadow packages)."""
    if name not in sys.modules:
        import importlib.util
        spec = importlib.util.spec_from_file_location(name, os.path.join(top, "tools", name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


fp16_models = _tool("fp16_models")

CLI = os.path.join(top, "build", "gpuclean")
ZOO_JSONL = os.path.join(top, "docs", "measurements", "zoo-h200.jsonl")
DATA = os.path.join(top, "data", "gpu", "fp16")
SHARED = os.path.join(top, "..", "shared")
TWIN = os.path.join(SHARED, "tools", "device", "twin.py")
MAX_INPUT_KB = 64          # tools/zoo_device.py pack: reference inputs up to this travel
FP32_OK = 1e-3             # GPU fp32 vs CPU, relative to max|CPU|: above it, a miscompute
SAME_FILE = 1e-3           # |max|ours fp32| - ref_max_abs| / ref_max_abs: the same file
MISCOMPUTE_CORR = 0.9      # GPU fp16 vs CPU correlation below this with an error over 1% of
                           # max|CPU| (fp32 fine): broken, not rounding


# ---- inputs ---------------------------------------------------------------------------------

def sin_pattern(model):
    """`gpuclean litert`'s default inputs (--pattern sin): float 0.5+0.5*sin(0.37*i+k),
    int32 (i*7+k)%3, uint8 (i*37+k)%256, i the flat element index, k the input index."""
    with Interpreter(model, "fp32") as it:
        specs = [(it.input(k).shape, it.input(k).dtype) for k in range(it.n_inputs)]
    xs = []
    for k, (shape, dt) in enumerate(specs):
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        if np.issubdtype(dt, np.floating):
            x = 0.5 + 0.5 * np.sin(0.37 * i + k)
        elif dt == np.uint8:
            x = (i * 37 + k) % 256
        elif dt == np.int8:
            x = (i * 37 + k) % 256 - 128
        else:
            x = (i * 7 + k) % 3
        xs.append(x.reshape(shape).astype(dt))
    return xs


def zoo_dirs(zoo_root):
    """{recipe name: its build/zoo folder}"""
    out = {}
    if os.path.isdir(zoo_root):
        for fam in sorted(os.listdir(zoo_root)):
            fd = os.path.join(zoo_root, fam)
            if os.path.isdir(fd):
                for name in sorted(os.listdir(fd)):
                    out[name] = os.path.join(fd, name)
    return out


def ref_input_files(folder):
    """The recipe's reference inputs when they travel with a pack (small: token ids)."""
    ref = os.path.join(folder, "ref") if folder else ""
    if not os.path.isdir(ref):
        return None
    fs = [os.path.join(ref, f) for f in os.listdir(ref) if re.match(r"^input_\d+\.npy$", f)]
    if fs and sum(os.path.getsize(f) for f in fs) <= MAX_INPUT_KB * 1024:
        return sorted(fs, key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    return None


def ref_inputs(folder):
    fs = ref_input_files(folder)
    return [np.load(f) for f in fs] if fs else None


# ---- files ----------------------------------------------------------------------------------

def run_cli(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True)


def zoo_file(model, kind, twin, zoo):
    """build/zoo-device/<model>__<kind>[__twin].tflite, made from build/zoo when missing."""
    stem = "%s__%s%s" % (model, kind, "__twin" if twin else "")
    dst = os.path.join(top, "build", "zoo-device", stem + ".tflite")
    if os.path.exists(dst):
        return dst
    folder = zoo.get(model)
    src = os.path.join(folder, model + (".plain" if kind == "plain" else "") + ".tflite") if folder else ""
    if kind not in ("final", "plain") or not os.path.exists(src):
        return None
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if twin:
        if not os.path.exists(TWIN):
            return None
        subprocess.run([sys.executable, TWIN, src, dst], check=True, capture_output=True)
    else:
        shutil.copyfile(src, dst)
    return dst


def probe_file(stem, zoo):
    """<twin>__op<I>: the prefix of the twin ending at op I's first output (tools/gpu_bisect.py)."""
    m = re.match(r"^(.+?)__(final|plain)(__twin)?__op(\d+)$", stem)
    if not m:
        return None
    dst = os.path.join(top, "build", "fp16-probes", stem + ".tflite")
    if os.path.exists(dst):
        return dst
    parent = zoo_file(m.group(1), m.group(2), bool(m.group(3)), zoo)
    if not parent:
        return None
    p = run_cli("inspect", parent, "--json")
    if p.returncode != 0:
        return None
    sg = json.loads(p.stdout)["subgraphs"][0]
    op = next((o for o in sg["ops"] if o["index"] == int(m.group(4))), None)
    if not op or not op["outputs"]:
        return None
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    r = run_cli("edit", parent, "-o", dst, "--truncate-at", str(op["outputs"][0]))
    return dst if r.returncode == 0 else None


def corpus_file(stem):
    for d in (os.path.join(SHARED, "corpus"), os.path.join(top, "build", "fp16-device", "models")):
        f = os.path.join(d, stem + ".tflite")
        if os.path.exists(f):
            return f
    return None


# ---- measured rows --------------------------------------------------------------------------

def output_rows(mode_rec):
    """[(index, max_abs, ref_max_abs)] of a mode record (zoo-h200 or data/gpu/fp16 style)."""
    outs = mode_rec.get("outputs") or []
    return [(o.get("index", k), o.get("max_abs"), o.get("ref_max_abs"), o.get("corr")) for k, o in enumerate(outs)]


def gpu_ran(rec):
    return rec and rec.get("outputs") and not rec.get("fallback_all") and rec.get("status") == "ok" \
        and not (rec.get("residency") or "x").startswith("0/")


def measured_rows():
    """One item per (file, runtime): {stem, kind, model, file, twin, runtime, version,
    device, fp16: mode record, fp32: mode record, partial: residency or None}."""
    items = []
    if os.path.exists(ZOO_JSONL):
        for line in open(ZOO_JSONL):
            if not line.strip():
                continue
            r = json.loads(line)
            if r["file"] not in ("final", "plain"):       # 'aligned' ran again as 'final'
                continue
            for rt in r.get("runtimes", []):
                g16 = (rt.get("modes") or {}).get("gpu-fp16")
                if not gpu_ran(g16):
                    continue
                res = g16.get("residency")
                items.append({"kind": "zoo", "model": r["model"], "file": r["file"], "twin": bool(r.get("twin")),
                              "stem": "%s__%s%s" % (r["model"], r["file"], "__twin" if r.get("twin") else ""),
                              "runtime": rt["name"], "version": rt.get("version"), "device": r.get("device"),
                              "fp16": g16, "fp32": (rt.get("modes") or {}).get("gpu-fp32"),
                              "partial": res if res and res.split("/")[0] != res.split("/")[-1] else None})
    if os.path.isdir(DATA):
        for fn in sorted(os.listdir(DATA)):
            if not fn.endswith(".jsonl"):
                continue
            recs = [json.loads(l) for l in open(os.path.join(DATA, fn)) if l.strip()]
            by = {}
            for r in recs:
                by.setdefault((r["model"], r["runtime"], r.get("version")), {})[r["mode"]] = r
            for (stem, rt, ver), modes in sorted(by.items()):
                g16 = modes.get("gpu-fp16")
                if not gpu_ran(g16):
                    continue
                res = g16.get("residency")
                items.append({"kind": g16.get("kind", "corpus"), "model": stem, "file": "", "twin": "__twin" in stem,
                              "stem": stem, "runtime": rt, "version": ver, "device": g16.get("device"),
                              "fp16": g16, "fp32": modes.get("gpu-fp32"),
                              "partial": res if res and res.split("/")[0] != res.split("/")[-1] else None})
    return items


# ---- prediction -----------------------------------------------------------------------------

_cache = {}


def predict(path, inputs):
    """{precision key: [outputs as float64]} for fp32, fp16 native, fp16 js (cached per file)."""
    if path in _cache:
        return _cache[path]
    out = {}
    with Model(path) as m:
        xs = inputs if inputs is not None else sin_pattern(m)
        for key, prec, rt in (("fp32", "fp32", None), ("native", "fp16", "native"), ("js", "fp16", "js")):
            with Interpreter(m, prec, gpu_runtime=rt) as it:
                out[key] = [np.asarray(o, np.float64) for o in it(*xs)]
    _cache.clear()
    _cache[path] = out
    return out


def maxdiff(a, b):
    d = np.abs(a - b)
    return float(np.max(d)) if d.size else 0.0


def ratio(p, meas):
    if meas == 0 and p == 0:
        return 1.0
    return max(p, 1e-30) / max(meas, 1e-30)


def distinct(it):
    """The model a row measures: the zoo recipe (its plain and final files are one model),
    the extra model (real file or twin), the corpus or probe file."""
    if it["kind"] in ("zoo", "extra"):
        return it["model"].split("__")[0]
    return it["stem"]


def cmd_table(a):
    zoo = zoo_dirs(a.zoo)
    items = [it for it in measured_rows() if not a.only or re.search(a.only, it["stem"])]
    # group by file so each file runs once
    items.sort(key=lambda it: (it["kind"] != "zoo", it["stem"], it["runtime"]))
    lines = ["| model | kind | twin | out | runtime | measured GPU fp16 vs CPU | predicted (this runtime) | ratio | "
             "storage only (js model) | ratio | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    score, models = {}, {}
    for it in items:
        if it["kind"] == "zoo":
            f = zoo_file(it["model"], it["file"], it["twin"], zoo)
            inputs = ref_inputs(zoo.get(it["model"]))
        elif it["kind"] == "probe":
            f = probe_file(it["stem"], zoo)
            inputs = ref_inputs(zoo.get(it["stem"].split("__")[0]))
        elif it["kind"] == "extra":
            f = fp16_models.device_file(it["stem"])
            fs = fp16_models.input_files(it["stem"])
            inputs = [np.load(x) for x in fs] if fs else None
        else:
            f, inputs = corpus_file(it["stem"]), None
        name = it["stem"]
        if not f:
            lines.append("| %s | %s | %s | - | %s | | | | | | file not found here |" % (name, it["kind"], it["twin"], it["runtime"]))
            continue
        try:
            pred = predict(f, inputs)
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            lines.append("| %s | %s | %s | - | %s | | interpreter: %s | | | | |" % (
                name, it["kind"], it["twin"], it["runtime"], str(e)[:80]))
            continue
        f32 = {k: (m, r) for k, m, r, _ in output_rows(it["fp32"] or {})}
        for k, meas, ref_max, corr in output_rows(it["fp16"]):
            if meas is None or k >= len(pred["fp32"]):
                continue
            ours = pred["fp32"][k]
            note, scored = "", True
            ours_max = float(np.max(np.abs(ours))) if ours.size else 0.0
            if ref_max is not None and abs(ours_max - ref_max) > SAME_FILE * max(abs(ref_max), 1e-30):
                note, scored = "file differs (max|out| %.4g here, %.4g measured)" % (ours_max, ref_max), False
            g32 = f32.get(k, (None, None))[0]
            if scored and g32 is not None and ref_max is not None and g32 > FP32_OK * ref_max:   # an all-zero CPU output too
                note, scored = "GPU fp32 miscompute (%.3g): not an fp16 effect" % g32, False
            if scored and ref_max and ((corr is not None and corr < MISCOMPUTE_CORR and meas > 0.01 * ref_max)
                                       or meas > 0.5 * ref_max):
                note, scored = "GPU fp16 miscompute (error %.3g of max|CPU| %.3g, corr %s; fp32 agrees): not rounding" % (
                    meas, ref_max, "n/a" if corr is None else "%.3g" % corr), False
            if scored and it["partial"]:
                note, scored = "partial residency %s: the CPU part runs in fp32 (not scored)" % it["partial"], False
            p_rt = maxdiff(pred[it["runtime"]][k], ours)
            p_js = maxdiff(pred["js"][k], ours)
            if scored and not (np.isfinite(p_rt) and np.isfinite(meas)):
                note, scored = "not finite", False
            r_rt, r_js = ratio(p_rt, meas), ratio(p_js, meas)
            if scored:
                models.setdefault(it["runtime"], {}).setdefault(distinct(it), set()).add(it["kind"])
                s = score.setdefault((it["runtime"], it["kind"] == "probe"), [0, 0, 0])
                s[0] += 1
                s[1] += 1 / 3 <= r_rt <= 3
                s[2] += 1 / 3 <= r_js <= 3
            fr = (lambda r: "%.2f" % r) if scored else (lambda r: "(%.2g)" % r)
            lines.append("| %s | %s | %s | %d | %s | %.3g | %.3g | %s | %.3g | %s | %s |" % (
                name, it["kind"], "yes" if it["twin"] else "no", k, it["runtime"], meas, p_rt, fr(r_rt), p_js, fr(r_js), note))
    lines.append("")
    for (rt, probe), (n, w, wj) in sorted(score.items()):
        lines.append("%s, %s: predicted within 3x of the GPU on %d/%d outputs (%.0f%%); storage-only emulation %d/%d" % (
            rt, "probe models" if probe else "whole models", w, n, 100.0 * w / max(n, 1), wj, n))
    for rt in sorted({k[0] for k in score}):
        n = sum(v[0] for k, v in score.items() if k[0] == rt)
        w = sum(v[1] for k, v in score.items() if k[0] == rt)
        lines.append("%s, all: %d/%d outputs within 3x (%.0f%%)" % (rt, w, n, 100.0 * w / max(n, 1)))
    for rt, ms in sorted(models.items()):
        whole = {m: k for m, k in ms.items() if "probe" not in k}
        per = {}
        for k in whole.values():
            for kk in k:
                per[kk] = per.get(kk, 0) + 1
        lines.append("%s: %d distinct whole models scored (%s)" % (
            rt, len(whole), ", ".join("%s %d" % kv for kv in sorted(per.items()))))
    text = "\n".join(lines)
    print(text)
    if a.md:
        with open(a.md + ".tmp", "w") as fh:
            fh.write(text + "\n")
        os.replace(a.md + ".tmp", a.md)
    return 0


# ---- pack / collect -------------------------------------------------------------------------

# zoo finals that run whole on the GPU (docs/measurements/h200-zoo-2026-12-01.md) and
# whose twins give finite outputs: their prefix probes
PROBE_ZOO = ["mobilenet_v3_small", "convnext_atto", "shufflenet_v2_x0_5", "mobilevit_xxs", "vit_ti16_torchvision",
             "dinov2_small", "whisper_tiny_encoder", "llama_gqa", "qwen3_gqa", "bert_tiny", "yolos_tiny"]

SEMANTICS = r"""
import sys, torch, litert_torch
class Overflow(torch.nn.Module):      # (300 x)^2 with x = 0.5 + 0.5 sin(...): up to 9e4 > 65504
    def forward(self, x):
        y = x * 300.0
        return y * y, y * 0.5
class ZeroRowNorm(torch.nn.Module):   # row 1 is zeros: var 0, eps 1e-12 (0 in half)
    def forward(self, x):
        z = x * torch.tensor([1.0, 0.0]).reshape(1, 2, 1)
        m = z.mean(-1, keepdim=True)
        v = ((z - m) ** 2).mean(-1, keepdim=True)
        return (z - m) * torch.rsqrt(v + 1e-12)
x = torch.rand(1, 2, 64)
for name, mod in (("fp16sem_overflow", Overflow()), ("fp16sem_zero_row_norm", ZeroRowNorm())):
    litert_torch.convert(mod.eval(), (x,)).export(sys.argv[1] + "/" + name + ".tflite")
"""


def pack_extra(a):
    """The extra models (tools/fp16_models.py build) and their token-id inputs:
    ([device files], {stem: [input files]})."""
    got = fp16_models.kept()
    if not got:
        print("fp16_predict: no extra models built (tools/fp16_models.py build)", file=sys.stderr)
    return [f for _, f, _ in got], {stem: fs for stem, _, fs in got if fs}


def cmd_pack(a):
    if a.extra_only:
        models, inputs = pack_extra(a)
        if not models:
            return 2
        return pack_and_say(a, models, inputs)
    corpus = os.path.join(SHARED, "corpus")
    models = list(a.models)
    if not models and os.path.isdir(corpus):       # the float ones: integer models' fp16 is another story
        models = sorted(os.path.join(corpus, f) for f in os.listdir(corpus)
                        if f.endswith(".tflite") and not re.search(r"quant|ptq|int8", f))
    stage = os.path.join(top, "build", "fp16-device", "models")
    os.makedirs(stage, exist_ok=True)
    r = subprocess.run([sys.executable, "-c", SEMANTICS, stage], capture_output=True, text=True)
    if r.returncode == 0:
        models += [os.path.join(stage, f) for f in ("fp16sem_overflow.tflite", "fp16sem_zero_row_norm.tflite")]
    else:
        print("fp16_predict: semantics models not made (litert-torch): %s" % r.stderr.strip()[-300:], file=sys.stderr)
    zoo = zoo_dirs(a.zoo)
    inputs = {}
    for name in PROBE_ZOO if a.probes > 0 else []:
        twin = zoo_file(name, "final", True, zoo)
        if not twin:
            print("fp16_predict: no %s twin (make zoo): no probes for it" % name, file=sys.stderr)
            continue
        pdir = os.path.join(top, "build", "fp16-probes")
        p = subprocess.run([sys.executable, os.path.join(top, "tools", "gpu_bisect.py"), "probes", twin, pdir,
                            "--points", str(a.probes)], capture_output=True, text=True)
        if p.returncode != 0:
            print("fp16_predict: probes of %s: %s" % (name, p.stderr.strip()[-300:]), file=sys.stderr)
            continue
        for line in p.stdout.splitlines():
            mm = re.match(r"^op\s+(\d+)\s", line)
            if mm:
                stem = "%s__final__twin__op%04d" % (name, int(mm.group(1)))
                models.append(os.path.join(pdir, stem + ".tflite"))
                ri = ref_input_files(zoo.get(name))
                if ri:
                    inputs[stem] = ri
    if a.extra:
        em, ei = pack_extra(a)
        models += em
        inputs.update(ei)
    if not models:
        print("fp16_predict: no models (../shared/corpus is absent; name the files)", file=sys.stderr)
        return 2
    return pack_and_say(a, models, inputs)


def pack_and_say(a, models, inputs):
    dest = os.path.join(top, a.dest) if not os.path.isabs(a.dest) else a.dest
    r = subprocess.run([os.path.join(top, "runtime", "litert", "pack.sh"), "--dest", dest] + models)
    if r.returncode != 0:
        return r.returncode
    idir = os.path.join(dest, "inputs")
    shutil.rmtree(idir, ignore_errors=True)
    for stem, fs in inputs.items():
        os.makedirs(os.path.join(idir, stem))
        for f in fs:
            shutil.copyfile(f, os.path.join(idir, stem, os.path.basename(f)))
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(dest) for f in fs)
    rel = os.path.relpath(dest, top) if not os.path.relpath(dest, top).startswith("..") else dest
    print("fp16_predict: %d models packed in %s (%d with their own inputs), %.1f MiB in all; on the GPU machine:\n"
          "  OUT=$OUT JOBS=%d TEXT=0 RUNS=1%s bash runtime/litert/device.sh %s\n"
          "then here: tools/fp16_predict.py collect <the fetched folder>%s" % (
              len(models), dest, len(inputs), total / 2**20, 12 if a.extra_only else 8,
              " TIMEOUT=90" if a.extra_only else "", rel, " --kind extra" if a.extra_only else ""))
    return 0


def slug(s):
    return re.sub(r"[^a-z0-9]+", "-", (s or "unknown").lower()).strip("-")


def sha256_of(stem):
    for d in (os.path.join(SHARED, "corpus"), os.path.join(top, "build", "zoo-device"),
              os.path.join(top, "build", "fp16-probes"), fp16_models.OUT):
        f = os.path.join(d, stem + ".tflite")
        if os.path.exists(f):
            return hashlib.sha256(open(f, "rb").read()).hexdigest()
    return None


def cmd_collect(a):
    env = open(os.path.join(a.dir, "env.txt")).read() if os.path.exists(os.path.join(a.dir, "env.txt")) else ""
    dev_line = next((l.strip() for l in env.splitlines() if "NVIDIA" in l or "GPU" in l), "unknown GPU")
    date = next((l.split(":", 1)[1].strip() for l in env.splitlines() if l.startswith("date:")), "")
    device_short = slug(dev_line.split(",")[0].replace("NVIDIA ", "nvidia-"))
    files = {}
    for line in open(os.path.join(a.dir, "reports.jsonl")):
        r = json.loads(line)
        stem = os.path.basename(r.get("model", "")).replace(".tflite", "")
        kind = a.kind or ("probe" if re.search(r"__op\d+$", stem) else "extra" if fp16_models.is_extra(stem)
                          else "zoo" if "__" in stem else "corpus")
        for rname, rt in (r.get("runtimes") or {}).items():
            for m in rt.get("modes", []):
                if not (m.get("mode") or "").startswith("gpu-"):
                    continue
                c = next((c for c in r.get("comparisons", []) if c.get("runtime") == rname and c.get("mode") == m["mode"]
                          and c.get("ref_mode") == "cpu" and c.get("ref_runtime", rname) == rname), None)
                res = m.get("residency")
                row = {"model": stem, "kind": kind, "runtime": rname, "version": rt.get("version"),
                       "device": dev_line, "date": date, "mode": m["mode"], "status": m.get("status"),
                       "fallback_all": bool(m.get("fallback_all")), "sha256": sha256_of(stem),
                       "residency": "%d/%d" % (res.get("gpu_ops", 0), res.get("gpu_ops", 0) + res.get("cpu_ops", 0)) if res else None,
                       "outputs": [{"index": o.get("index", k), "name": o.get("name"), "max_abs": o.get("max_abs"),
                                    "ref_max_abs": o.get("ref_max_abs"), "corr": o.get("corr"), "n": o.get("n")}
                                   for k, o in enumerate((c or {}).get("outputs", [])) if not o.get("problem")]}
                key = "%s-%s__%s.jsonl" % (rname, rt.get("version") or "unknown", device_short)
                files.setdefault(key, []).append(row)
    os.makedirs(DATA, exist_ok=True)
    for fn, rows in files.items():
        dst = os.path.join(DATA, fn)
        keep = []
        if os.path.exists(dst):
            new = {(r["model"], r["mode"]) for r in rows}
            keep = [r for r in (json.loads(l) for l in open(dst) if l.strip()) if (r["model"], r["mode"]) not in new]
        out = sorted(keep + rows, key=lambda r: (r["model"], r["mode"]))
        with open(dst + ".tmp", "w") as f:
            for r in out:
                f.write(json.dumps(r, sort_keys=True) + "\n")
        os.replace(dst + ".tmp", dst)
        print("fp16_predict: %d rows -> %s" % (len(out), os.path.relpath(dst, top)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    t = sub.add_parser("table")
    for p in (ap, t):
        p.add_argument("--md")
        p.add_argument("--only", help="regex over the file stems")
        p.add_argument("--zoo", default=os.path.join(top, "build", "zoo"))
    p = sub.add_parser("pack")
    p.add_argument("models", nargs="*")
    p.add_argument("--dest", default=".device-fp16")
    p.add_argument("--probes", type=int, default=6, help="prefix probes per zoo twin (0: none)")
    p.add_argument("--extra", action="store_true", help="add the extra models (tools/fp16_models.py) to the pack")
    p.add_argument("--extra-only", action="store_true",
                   help="a pack of just the extra models (default --dest .device-fp16x)")
    p.add_argument("--zoo", default=os.path.join(top, "build", "zoo"))
    c = sub.add_parser("collect")
    c.add_argument("dir")
    c.add_argument("--kind", choices=["corpus", "probe", "zoo", "extra"])
    a = ap.parse_args()
    if a.cmd == "pack":
        if a.extra_only and a.dest == ".device-fp16":
            a.dest = ".device-fp16x"
        return cmd_pack(a)
    if a.cmd == "collect":
        return cmd_collect(a)
    return cmd_table(a)


if __name__ == "__main__":
    sys.exit(main())
