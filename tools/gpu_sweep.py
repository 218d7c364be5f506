#!/usr/bin/env python3
"""The GPU miscompute sweep (issue 10): pack here, run on the GPU machine, collect here.

    tools/gpu_sweep.py pack [--only FAMILY,...] [--shard I/N] [--dest .device-sweep]
        builds build/gpu-sweep, writes the sweep's models (tools/sweep/) into
        build/gpu-sweep-models/ and packs them with runtime/litert/pack.sh into DEST
        (default .device-sweep), with the cases' own input files (DEST/inputs/) and the
        manifest (DEST/manifest.jsonl, DEST/sweep-info.json).
    (there)  JOBS=12 TEXT=0 RUNS=1 TIMEOUT=60 OUT=$OUT bash runtime/litert/device.sh .device-sweep
    tools/gpu_sweep.py collect DIR [--device-label LABEL] [--manifest M] [--out data/gpu/sweep] [--fresh]
        DIR/reports.jsonl (+ DIR/env.txt, DIR/results.tar.xz for the delegate's messages)
        -> OUT/<runtime>-<version>__<device>.jsonl: one row per case x runtime x precision
        (rows of cases this run did not have are kept unless --fresh)
    tools/gpu_sweep.py table DIR_OR_DATA [--device-label LABEL] [--manifest M]
        a Markdown summary (per family, then every non-ok case) of a device output folder
        or of collected data (a folder of *.jsonl or one .jsonl file)
    tools/gpu_sweep.py check-cpu [--only FAMILY,...] [--runtime native|js|both] [--jobs N]
        every case on this machine's LiteRT CPU runtime and on gpuclean's interpreter:
        the models must be valid for the CPU before a GPU verdict means anything

Python standard library only. Row statuses (collect):
    ok            every node on the GPU (no node rejected), GPU vs CPU of the same
                  runtime within gc_lrt_tol_for's tolerance for that precision
                  (fp32: |diff| <= 1e-4 + 1e-3 max|cpu|, corr >= 0.9999; fp16: 1e-3 +
                  2e-2 max|cpu|, corr >= 0.999; integer outputs allow one step)
    wrong         out of that tolerance (or NaN/Inf where the CPU has none), whatever the
                  residency: a partially delegated graph that returns wrong numbers counts
    init_failed   the delegate accepted the nodes but failed to build its kernels (the
                  runtime restored the CPU plan, or the GPU compile/run failed outright)
    rejected      the delegate's op filter rejected the op under test
    cpu_fallback  nodes ran on the CPU without the op under test being rejected (another
                  op rejected, the runtime fell back for the whole model, or the GPU
                  output is bit-identical to the CPU at fp32 and fp16 with no residency)
    cpu_failed    the runtime could not run the model on its CPU (or a runtime limit)
    no_gpu        no GPU adapter
"""
import argparse
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGE = os.path.join(top, "build", "gpu-sweep-models")
DEFAULT_DEST = os.path.join(top, ".device-sweep")
DATA = os.path.join(top, "data", "gpu", "sweep")
STATUSES = ("ok", "wrong", "init_failed", "rejected", "cpu_fallback", "cpu_failed", "no_gpu")
# gc_lrt_tol_for (src/runtime/litert.c): GPU vs CPU of the same runtime
TOL = {"fp32": (1e-4, 1e-3, 0.9999), "fp16": (1e-3, 2e-2, 0.999)}
INT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool")


def die(msg, code=2):
    print("gpu_sweep: " + msg, file=sys.stderr)
    sys.exit(code)


# ---- pack ------------------------------------------------------------------------------

def build_generator():
    r = subprocess.run(["make", "-s", "-C", top, "build/gpu-sweep", "build/gpuclean"])
    if r.returncode:
        die("make build/gpu-sweep failed", 1)


def generate(dest, only):
    shutil.rmtree(dest, ignore_errors=True)
    cmd = [os.path.join(top, "build", "gpu-sweep"), dest]
    if only:
        cmd += ["--only", only]
    r = subprocess.run(cmd)
    if r.returncode:
        die("build/gpu-sweep failed", 1)
    return read_manifest(os.path.join(dest, "manifest.jsonl"))


def read_manifest(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def shard_of(cases, shard):
    if not shard:
        return cases
    m = re.fullmatch(r"(\d+)/(\d+)", shard)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        die("--shard wants I/N with 1 <= I <= N, e.g. 1/2")
    i, n = int(m.group(1)), int(m.group(2))
    return [c for k, c in enumerate(cases) if k % n == i - 1]


def fixed_cases(cases, which, fix_args=()):
    """`gpuclean fix` on each case (which = "all", or the comma-separated case names): a
    case it rewrites gets a twin case <name>__fixed (same attrs, inputs and family, op
    unchanged) so that one device run measures a miscompute and its fix side by side.
    fix_args: more arguments for `gpuclean fix` (--runtime js --precision fp16)."""
    want = None if which == "all" else set(which.split(","))
    out = []
    for c in cases:
        if want is not None and c["name"] not in want:
            continue
        src = os.path.join(STAGE, c["file"])
        name = c["name"] + "__fixed"
        dst = os.path.join(STAGE, name + ".tflite")
        r = subprocess.run([os.path.join(top, "build", "gpuclean"), "fix", src, "-o", dst, "--json", "--no-progress"] + list(fix_args),
                           capture_output=True, text=True)
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            continue
        if r.returncode == 2 or not doc.get("changes"):
            if os.path.exists(dst):
                os.unlink(dst)
            continue
        f = dict(c, name=name, file=name + ".tflite", fixed_from=c["name"],
                 fixes=sorted({ch.get("pass") for ch in doc["changes"] if isinstance(ch, dict)}))
        isrc = os.path.join(STAGE, "inputs", c["name"])
        if os.path.isdir(isrc):
            shutil.copytree(isrc, os.path.join(STAGE, "inputs", name), dirs_exist_ok=True)
        out.append(f)
    print("gpu_sweep: %d fixed twin case(s): %s" % (len(out), ", ".join(x["name"] for x in out)))
    return out


def git_commit():
    r = subprocess.run(["git", "-C", top, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", top, "status", "--porcelain", "tools/sweep"], capture_output=True, text=True)
    return (r.stdout.strip() or "unknown") + ("+dirty" if dirty.stdout.strip() else "")


def cmd_pack(a):
    nm = os.path.join(top, "runtime", "litert", "node_modules")
    if os.path.islink(nm):
        # pack.sh copies node_modules with cp -r (a symlink stays a symlink) and then
        # deletes files inside the copy: through a link that deletes them in its target
        die("runtime/litert/node_modules is a symlink (to %s): pack.sh would delete files in it; "
            "install a copy here first (rm it, then runtime/litert/setup.sh)" % os.path.realpath(nm))
    build_generator()
    cases = shard_of(generate(STAGE, a.only), a.shard)
    every = list(cases)
    if a.missing:   # only the cases a collected data folder has no row for (an unfinished run)
        have = set()
        for fn in os.listdir(a.missing):
            if fn.endswith(".jsonl"):
                with open(os.path.join(a.missing, fn)) as f:
                    have |= {json.loads(l)["case"] for l in f if l.strip()}
        cases = [c for c in cases if c["name"] not in have]
    if not cases and not a.fixed:
        die("no case selected")
    dest = os.path.abspath(a.dest)
    files = [os.path.join(STAGE, c["file"]) for c in cases]
    if a.fixed:
        cases = cases + fixed_cases(every, a.fixed, a.fix_args.split())   # fixed twins of every case, measured or not
        files = [os.path.join(STAGE, c["file"]) for c in cases]
    if not cases:
        die("no case selected (and no fixed twin: fix changed none of them)")
    env = dict(os.environ, XZ_LEVEL=os.environ.get("XZ_LEVEL", "6"))
    r = subprocess.run([os.path.join(top, "runtime", "litert", "pack.sh"), "--dest", dest] + files, env=env)
    if r.returncode:
        die("runtime/litert/pack.sh failed", 1)
    idir = os.path.join(dest, "inputs")
    shutil.rmtree(idir, ignore_errors=True)
    n_in = 0
    for c in cases:
        src = os.path.join(STAGE, "inputs", c["name"])
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(idir, c["name"]))
            n_in += 1
    with open(os.path.join(dest, "manifest.jsonl"), "w") as f:
        for c in cases:
            f.write(json.dumps(c, sort_keys=True) + "\n")
    info = {"commit": git_commit(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "cases": len(cases), "only": a.only, "shard": a.shard}
    with open(os.path.join(dest, "sweep-info.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    models_kb = sum(os.path.getsize(os.path.join(dest, "models", c["file"] + ".xz")) for c in cases) / 1024
    inputs_kb = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fns in os.walk(idir) for fn in fns) / 1024
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fns in os.walk(dest) for fn in fns) / 2**20
    # Device time, an estimate: each case runs 6 modes in their own processes (LiteRT.js:
    # node + wasm + a WebGPU device per GPU mode; native: a fork per mode). Measured here
    # (device.sh, no GPU, both CPU modes): 0.55 CPU-s per case; on the H200 a tiny model's
    # GPU compile took 0.1-0.3 s per mode (shared/oracle), plus the device and process set-up
    # of the 4 GPU modes: ~4 s per case, serial.
    per_case = 16.5   # measured: 321 cases in ~380 s at JOBS=14 on the H200 machine (2026-12-01)
    est = len(cases) * per_case / 12
    print("gpu_sweep: %d cases (%d with their own inputs) packed into %s: models %.0f KiB xz, inputs %.0f KiB, "
          "folder %.1f MiB" % (len(cases), n_in, os.path.relpath(dest, top), models_kb, inputs_kb, total))
    print("gpu_sweep: estimate at JOBS=12 on the 16-core H200 machine: ~%.0f s (%.1f s per case, serial)"
          % (est, per_case))
    print("on the GPU machine, from the checkout root:\n"
          "  JOBS=12 TEXT=0 RUNS=1 TIMEOUT=60 OUT=$OUT bash runtime/litert/device.sh %s\n"
          "  (carry: [\"%s\"]), then here: tools/gpu_sweep.py collect <the fetched $OUT>"
          % (os.path.relpath(dest, top), os.path.relpath(dest, top)))
    return 0


# ---- collect ---------------------------------------------------------------------------

def read_env(dir_):
    """(device name, driver, memory, date) from device.sh's env.txt."""
    p = os.path.join(dir_, "env.txt")
    name = driver = date = None
    if os.path.exists(p):
        with open(p, errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.startswith("date:"):
                    date = line.split(":", 1)[1].strip()
                # nvidia-smi --query-gpu=name,driver_version,memory.total: "NVIDIA H200, 580.159.04, 143771 MiB"
                m = re.match(r"^([A-Za-z][^,]*),\s*([0-9][0-9.]*),\s*\d+ MiB$", line)
                if m and name is None:
                    name, driver = m.group(1).strip(), m.group(2)
    return name, driver, date


def slug(s):
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-") or "unknown"


def read_logs(dir_):
    """{(case, runtime): {mode: [log error lines]}} from results.tar.xz (device.sh)."""
    out = {}
    p = os.path.join(dir_, "results.tar.xz")
    if not os.path.exists(p):
        return out
    try:
        with tarfile.open(p, "r:xz") as t:
            for m in t.getmembers():
                parts = os.path.normpath(m.name).split(os.sep)
                if len(parts) != 3 or parts[2] != "result.json" or parts[1] not in ("js", "native") or not m.isfile():
                    continue
                f = t.extractfile(m)
                try:
                    r = json.load(io.TextIOWrapper(f, encoding="utf-8", errors="replace"))
                except ValueError:
                    continue
                out[(parts[0], parts[1])] = {x.get("mode"): x.get("log_errors") or [] for x in r.get("modes", [])}
    except (tarfile.TarError, EOFError, OSError) as e:
        print("gpu_sweep: warning: %s: %s (the delegate's messages are taken from the reports alone)" % (p, e),
              file=sys.stderr)
    return out


SKIP_LOG = ("litert_web.cc", "litert_compiled_model_next.h", "Restored original execution plan", "npu_registry",
            "Node number", "Failed to invoke", "=== Source Location Trace", "litert_compiled_model.cc")


def first_message(lines):
    """The delegate's own words: the first log error that is not a generic wrapper line."""
    for l in lines:
        if l.startswith("\u2514") or any(s in l for s in SKIP_LOG):
            continue
        return l[7:] if l.startswith("ERROR: ") else l
    return None


def _num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def judge(outputs, precision):
    """ok/wrong and the numbers over every output, with gc_lrt_tol_for's tolerance."""
    atol, rtol, min_corr = TOL[precision]
    max_abs = rel = corr = None
    ok, problems, worst = True, [], None
    for o in outputs:
        if o.get("problem"):
            ok = False
            problems.append("%s: %s" % (o.get("name") or "?", o["problem"]))
            continue
        m, ref, c = _num(o.get("max_abs")), _num(o.get("ref_max_abs")), _num(o.get("corr"))
        a = 1.0 if (o.get("dtype") or "") in INT_DTYPES and atol < 1 else atol
        this_ok = (o.get("nan_mismatch") or 0) == 0 and m is not None and ref is not None and \
            m <= a + rtol * ref and (c is None or c >= min_corr or m <= a)
        if not this_ok:
            ok = False
            if worst is None or (m or 0) > (_num(worst.get("max_abs")) or 0):
                worst = o
        if m is not None:
            max_abs = m if max_abs is None else max(max_abs, m)
            r = (m / ref) if ref else (0.0 if m == 0 else None)
            if r is not None:
                rel = r if rel is None else max(rel, r)
        if c is not None:
            corr = c if corr is None else min(corr, c)
    msg = None
    if problems:
        msg = "; ".join(problems)
    elif worst is not None:
        msg = "%s max |diff| %.4g (max |cpu| %.4g%s)%s" % (
            worst.get("name") or "?", worst.get("max_abs") or 0, worst.get("ref_max_abs") or 0,
            ", corr %.6f" % worst["corr"] if _num(worst.get("corr")) is not None else "",
            ", %d NaN/Inf mismatches" % worst["nan_mismatch"] if worst.get("nan_mismatch") else "")
    return ok, max_abs, rel, corr, msg


def case_of(report):
    return os.path.basename(report.get("model") or "").rsplit(".tflite", 1)[0]


def classify(case, report, rt_name, precision, logs):
    """One row's status and numbers for a case on runtime rt_name at precision."""
    row = {"status": None, "gpu_nodes": None, "total_nodes": None, "max_abs": None, "rel": None, "corr": None,
           "message": None, "identical": None}
    rt = (report.get("runtimes") or {}).get(rt_name) or {}
    modes = {m.get("mode"): m for m in rt.get("modes", [])}
    cpu, g = modes.get("cpu"), modes.get("gpu-" + precision)
    log = (logs.get((case["name"], rt_name)) or {}).get("gpu-" + precision) or []
    if g and g.get("residency"):
        res = g["residency"]
        row["gpu_nodes"] = res.get("gpu_ops")
        row["total_nodes"] = (res.get("gpu_ops") or 0) + (res.get("cpu_ops") or 0)

    def done(status, msg=None):
        row["status"] = status
        if msg and not row["message"]:
            row["message"] = str(msg)[:500]
        return row

    if not cpu or cpu.get("status") != "ok":
        why = (cpu or {}).get("limit") or (cpu or {}).get("error") or "no CPU result"
        if cpu and cpu.get("status") == "runtime_limit":
            why = "runtime limit: " + why
        return done("cpu_failed", why)
    if not g:
        return done("no_gpu", "gpu-%s not run" % precision)
    if g.get("status") == "unavailable":
        return done("no_gpu", g.get("error") or "no GPU adapter")
    unsup = g.get("unsupported") or []
    res = g.get("residency")
    partial = None   # nodes off the GPU: (status, the delegate's words)
    if res and (res.get("cpu_ops") or 0) > 0:
        ops = {u.get("op") for u in unsup}
        words = "; ".join("%s: %s" % (u.get("op"), u.get("reason")) for u in unsup) or res.get("line")
        partial = ("rejected" if case["op"] in ops or (res.get("gpu_ops") or 0) == 0 else "cpu_fallback", words)
    if g.get("delegate_init_failed"):
        return done("init_failed", first_message(log) or g.get("error") or "the delegate failed to build its kernels")
    if g.get("status") != "ok":
        err = g.get("error") or ""
        if partial:
            return done(partial[0], "%s (then: %s)" % (partial[1], err) if err else partial[1])
        if g.get("status") == "runtime_limit":
            return done("init_failed", "runtime limit: %s" % (g.get("limit") or err))
        return done("init_failed", first_message(log) or first_message(err.splitlines()) or err or g.get("status"))
    cmp_ = next((c for c in report.get("comparisons", []) if c.get("runtime") == rt_name and
                 c.get("mode") == "gpu-" + precision and c.get("ref_mode") == "cpu" and
                 c.get("ref_runtime") == rt_name), None)
    ok = None
    if cmp_ and cmp_.get("outputs"):   # the numbers, whatever the residency
        ok, row["max_abs"], row["rel"], row["corr"], msg = judge(cmp_["outputs"], precision)
        row["identical"] = all(bool(o.get("identical")) for o in cmp_["outputs"])
        if not ok:   # a partially delegated graph that returns wrong numbers is a miscompute too
            return done("wrong", "%s (%s)" % (msg, partial[1]) if partial else msg)
    if partial:
        return done(*partial)
    if g.get("fallback_all"):
        return done("cpu_fallback", "the runtime ran the whole model on the CPU")
    if ok is None:
        sig = next((s for s in g.get("signatures", []) if not s.get("ok")), None)
        return done("init_failed", (sig or {}).get("error") or first_message(log) or "no GPU output to compare")
    if row["identical"] and not res:
        other = next((c for c in report.get("comparisons", []) if c.get("runtime") == rt_name and
                      c.get("mode") == "gpu-" + ("fp16" if precision == "fp32" else "fp32") and
                      c.get("ref_runtime") == rt_name), None)
        floats = all((o.get("dtype") or "float32") not in INT_DTYPES for o in cmp_["outputs"])
        if other and floats and all(o.get("identical") for o in other.get("outputs", [])):
            return done("cpu_fallback", "GPU output bit-identical to the CPU at fp32 and fp16: the GPU did not run")
    return done("ok")


def collect_rows(dir_, manifest, device_label=None):
    path = os.path.join(dir_, "reports.jsonl")
    if not os.path.exists(path):
        die("%s: no reports.jsonl (the folder device.sh wrote to $OUT)" % dir_)
    name, driver, date = read_env(dir_)
    label = device_label or (slug(name) if name else "unknown-device")
    device = {"label": label, "name": name, "driver": driver}
    logs = read_logs(dir_)
    cases = {c["name"]: c for c in manifest}
    rows, unknown, failed = [], [], []
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError as e:
                die("%s:%d: not JSON (%s)" % (path, n, e))
            cname = case_of(r)   # device.sh's error lines carry the bare case name
            c = cases.get(cname)
            if c is None:
                unknown.append(cname or "?")
                continue
            base = {"case": c["name"], "family": c["family"], "op": c["op"], "attrs": c.get("attrs", {}),
                    "device": device, "date": date, "predicted": c.get("predicted"),
                    "cpu_agree": r.get("cpu_agree")}
            rts = r.get("runtimes")
            if not rts:   # gpuclean litert itself failed on this model: rows added below
                failed.append((base, str(r.get("error") or "no report")[:500]))
                continue
            for rt_name, rt in rts.items():
                if not rt.get("ran"):
                    continue
                for p in ("fp32", "fp16"):
                    x = classify(c, r, rt_name, p, logs)
                    rows.append(dict(base, runtime=rt_name, version=rt.get("version"), precision=p, **x))
    if unknown:
        print("gpu_sweep: warning: %d report(s) for models not in the manifest (skipped): %s"
              % (len(unknown), ", ".join(sorted(unknown)[:5])), file=sys.stderr)
    # a model gpuclean litert itself failed on names no runtime: it ran with the runtimes
    # (and versions) of the rest of the run
    seen = {}
    for r in rows:
        if r["version"]:
            seen.setdefault(r["runtime"], {})
            seen[r["runtime"]][r["version"]] = seen[r["runtime"]].get(r["version"], 0) + 1
    runtimes = {rt: max(v.items(), key=lambda kv: kv[1])[0] for rt, v in seen.items()} or {"native": None, "js": None}
    for base, err in failed:
        for rt_name, version in sorted(runtimes.items()):
            for p in ("fp32", "fp16"):
                rows.append(dict(base, runtime=rt_name, version=version, precision=p, status="cpu_failed",
                                 gpu_nodes=None, total_nodes=None, max_abs=None, rel=None, corr=None,
                                 identical=None, message=err))
    order = {c["name"]: i for i, c in enumerate(manifest)}   # the generator's order
    rows.sort(key=lambda r: (order[r["case"]], r["runtime"] != "native", r["runtime"], r["precision"] != "fp32"))
    return rows


def find_manifest(a_manifest, dir_):
    for p in ([a_manifest] if a_manifest else []) + [os.path.join(dir_, "manifest.jsonl"),
                                                     os.path.join(DEFAULT_DEST, "manifest.jsonl")]:
        if p and os.path.exists(p):
            return read_manifest(p), p
    # regenerate: the generator is deterministic (tools/sweep/)
    build_generator()
    tmp = tempfile.mkdtemp(prefix="gpu-sweep-")
    try:
        return generate(tmp, None), "build/gpu-sweep (regenerated)"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


ROW_KEYS = ("case", "family", "op", "attrs", "runtime", "version", "device", "precision", "status", "gpu_nodes",
            "total_nodes", "max_abs", "rel", "corr", "identical", "cpu_agree", "message", "predicted", "date")


def cmd_collect(a):
    manifest, mpath = find_manifest(a.manifest, a.dir)
    rows = collect_rows(a.dir, manifest, a.device_label)
    if not rows:
        die("%s: no rows (no report matched the manifest %s)" % (a.dir, mpath))
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    groups = {}
    for r in rows:
        key = "%s-%s__%s" % (r["runtime"], r["version"] or "unknown", r["device"]["label"])
        groups.setdefault(key, []).append(r)
    order = {c["name"]: i for i, c in enumerate(manifest)}
    for key, rs in sorted(groups.items()):
        dst = os.path.join(out, key + ".jsonl")
        seen = {(r["case"], r["precision"]) for r in rs}
        if not a.fresh and os.path.exists(dst):   # rows of other shards / families stay
            with open(dst) as f:
                rs = rs + [o for o in (json.loads(l) for l in f if l.strip()) if (o["case"], o["precision"]) not in seen]
        rs.sort(key=lambda r: (order.get(r["case"], 1 << 30), r["case"], r["precision"] != "fp32"))
        tmp = dst + ".tmp"
        with open(tmp, "w") as f:
            for r in rs:
                f.write(json.dumps({k: r.get(k) for k in ROW_KEYS}, sort_keys=True) + "\n")
        os.replace(tmp, dst)
        counts = {}
        for r in rs:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        print("gpu_sweep: %d rows -> %s (%s)" % (len(rs), os.path.relpath(dst, top),
                                                 ", ".join("%s %d" % (s, counts[s]) for s in STATUSES if s in counts)))
    return 0


# ---- table -----------------------------------------------------------------------------

def load_rows(src, a):
    if os.path.isdir(src) and os.path.exists(os.path.join(src, "reports.jsonl")):
        manifest, _ = find_manifest(a.manifest, src)
        return collect_rows(src, manifest, a.device_label)
    files = [src] if os.path.isfile(src) else sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".jsonl"))
    rows = []
    for p in files:
        with open(p) as f:
            rows += [json.loads(l) for l in f if l.strip()]
    if not rows:
        die("%s: no rows" % src)
    return rows


def fmt(x, spec="%.3g"):
    return "" if x is None else spec % x


def _attr(r, k):
    return r["op"] if k == "op" else r["attrs"].get(k)


def _pure(rs, keys):
    """{value tuple: status} when the statuses of rs are a function of those attributes
    (and the attributes do not simply name every case), else None"""
    groups = {}
    for r in rs:
        groups.setdefault(tuple(json.dumps(_attr(r, k), sort_keys=True) for k in keys), set()).add(r["status"])
    if any(len(v) > 1 for v in groups.values()) or len(groups) >= len(rs):
        return None
    return {g: next(iter(v)) for g, v in groups.items()}


def conditions(rows, max_pairs=2):
    """Per family, runtime and precision with more than one status: the attributes (one,
    else pairs) whose values decide the status. Lines of Markdown."""
    out, by = [], {}
    for r in rows:
        if r["status"] == "no_gpu":
            continue
        by.setdefault((r["family"], r["runtime"], r["version"] or "?", r["precision"]), []).append(r)
    for (fam, rt, v, p), rs in by.items():
        if len({r["status"] for r in rs}) < 2:
            continue
        keys = sorted({"op"} | {k for r in rs for k in r["attrs"]})
        keys = [k for k in keys if len({json.dumps(_attr(r, k), sort_keys=True) for r in rs}) > 1]
        found = [(k,) for k in keys if _pure(rs, (k,))]
        if not found:
            found = [(a, b) for i, a in enumerate(keys) for b in keys[i + 1:] if _pure(rs, (a, b))][:max_pairs]
        head = "- %s, %s-%s %s (%d cases):" % (fam, rt, v, p, len(rs))
        if not found:
            out.append("%s no single attribute or pair decides the status" % head)
            continue
        for ks in found:
            m = _pure(rs, ks)
            per = {}
            for vals, st in m.items():
                per.setdefault(st, []).append(", ".join("%s=%s" % (k, json.loads(x)) for k, x in zip(ks, vals)))
            desc = "; ".join("%s when %s" % (st, " | ".join(sorted(vs))) for st, vs in
                             sorted(per.items(), key=lambda kv: STATUSES.index(kv[0])))
            out.append("%s `%s` decides: %s" % (head, "`, `".join(ks), desc))
    return out


def cmd_table(a):
    rows = load_rows(a.src, a)
    combos = sorted({(r["runtime"], r["version"] or "?", r["device"]["label"]) for r in rows},
                    key=lambda k: (k[0] != "native", k))
    cols = [(rt, v, d, p) for rt, v, d in combos for p in ("fp32", "fp16")]
    fams, cases = [], {}
    for r in sorted(rows, key=lambda r: r["runtime"] != "native"):   # stable: the files keep the generator's order
        if r["family"] not in fams:
            fams.append(r["family"])
        cases.setdefault(r["family"], set()).add(r["case"])
    devs = sorted({(r["device"]["label"], r["device"].get("name"), r["device"].get("driver")) for r in rows})
    out = ["# GPU miscompute sweep", ""]
    for label, name, driver in devs:
        out.append("Device `%s`: %s%s." % (label, name or "unknown", ", driver " + driver if driver else ""))
    out += ["", "Per family: cases, then per runtime and precision the count of each status "
            "(ok / wrong / init_failed / rejected / cpu_fallback / cpu_failed / no_gpu; zeros left out).", ""]
    out.append("| family | cases | " + " | ".join("%s-%s %s" % (rt, v, p) for rt, v, d, p in cols) + " |")
    out.append("|---|---:|" + "---|" * len(cols))
    idx = {}
    for r in rows:
        idx.setdefault((r["family"], r["runtime"], r["version"] or "?", r["device"]["label"], r["precision"]), []).append(r)
    short = {"ok": "ok", "wrong": "wrong", "init_failed": "init_failed", "rejected": "rejected",
             "cpu_fallback": "fallback", "cpu_failed": "cpu_failed", "no_gpu": "no_gpu"}
    totals = {}
    for fam in fams + ["**all**"]:
        cells = []
        for rt, v, d, p in cols:
            rs = [r for f in (fams if fam == "**all**" else [fam]) for r in idx.get((f, rt, v, d, p), [])]
            cnt = {}
            for r in rs:
                cnt[r["status"]] = cnt.get(r["status"], 0) + 1
            cells.append(" · ".join("%d %s" % (cnt[s], short[s]) for s in STATUSES if cnt.get(s)))
        n = sum(len(cases[f]) for f in fams) if fam == "**all**" else len(cases[fam])
        out.append("| %s | %d | %s |" % (fam, n, " | ".join(cells)))
    bad = [r for r in rows if r["status"] not in ("ok", "no_gpu")]
    n_nogpu = sum(r["status"] == "no_gpu" for r in rows)
    out += ["", "## Every non-ok case", ""]
    if n_nogpu:
        out += ["(%d row(s) with no GPU adapter are counted above and not listed.)" % n_nogpu, ""]
    if not bad:
        out.append("None.")
    else:
        out.append("| case | op | runtime | precision | status | GPU nodes | max abs | rel | corr | message |")
        out.append("|---|---|---|---|---|---:|---:|---:|---:|---|")
        order = {f: i for i, f in enumerate(fams)}
        bad.sort(key=lambda r: (order[r["family"]], r["case"], r["runtime"], r["precision"] != "fp32"))
        for r in bad:
            nodes = "%s/%s" % (r["gpu_nodes"], r["total_nodes"]) if r.get("total_nodes") is not None else ""
            msg = (r.get("message") or "").replace("|", "/").replace("\n", " ")
            out.append("| %s | %s | %s-%s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["case"], r["op"], r["runtime"], r["version"] or "?", r["precision"], r["status"], nodes,
                fmt(r.get("max_abs")), fmt(r.get("rel")), fmt(r.get("corr"), "%.6f"), msg[:160]))
    cond = conditions(rows)
    if cond:
        out += ["", "## What decides the status", "",
                "Within a family, for a runtime and precision with more than one status: the attributes "
                "whose values alone (else in pairs) decide it.", ""] + cond
    print("\n".join(out))
    return 0


# ---- check-cpu -------------------------------------------------------------------------

def _cpu_one(job):
    case, model, inputs, runtime, work = job
    res = {"case": case, "problems": []}
    ins = []
    for k, p in inputs:
        ins += ["--input", "%d=%s" % (k, p)]
    gc = os.path.join(top, "build", "gpuclean")
    out = os.path.join(work, case)
    r = subprocess.run([gc, "litert", model, "--accelerator", "cpu", "--runtime", runtime, "--json", "--runs", "0",
                        "--out", out + ".litert"] + ins, capture_output=True, text=True)
    try:
        rep = json.loads(r.stdout)
    except ValueError:
        res["problems"].append("litert: exit %d: %s" % (r.returncode, (r.stderr or r.stdout).strip()[:300]))
        rep = None
    if rep:
        for name, rt in (rep.get("runtimes") or {}).items():
            if not rt.get("ran"):
                res["problems"].append("%s: not run: %s" % (name, rt.get("reason")))
                continue
            for m in rt.get("modes", []):
                if m.get("mode") == "cpu" and m.get("status") != "ok":
                    res["problems"].append("%s CPU %s: %s" % (name, m.get("status"), m.get("limit") or m.get("error")))
        if rep.get("cpu_agree") is False:
            c = next((c for c in rep.get("comparisons", []) if c.get("mode") == "cpu"), {})
            res["problems"].append("native and LiteRT.js CPU disagree: " + "; ".join(
                "%s max |diff| %s of max %s" % (o.get("name"), o.get("max_abs"), o.get("ref_max_abs"))
                for o in c.get("outputs", []) if not o.get("pass")))
    r = subprocess.run([gc, "run", model, "--out", out + ".interp"] + ins, capture_output=True, text=True)
    if r.returncode:
        res["problems"].append("gpuclean run: exit %d: %s" % (r.returncode, (r.stderr or r.stdout).strip()[:300]))
    shutil.rmtree(out + ".litert", ignore_errors=True)
    shutil.rmtree(out + ".interp", ignore_errors=True)
    return res


def cmd_check_cpu(a):
    from concurrent.futures import ThreadPoolExecutor
    build_generator()
    cases = generate(STAGE, a.only)
    work = tempfile.mkdtemp(prefix="gpu-sweep-cpu-")
    jobs = []
    for c in cases:
        ins = [(i, os.path.join(STAGE, t["values"])) for i, t in enumerate(c["inputs"]) if t.get("values", "sin") != "sin"]
        jobs.append((c["name"], os.path.join(STAGE, c["file"]), ins, a.runtime, work))
    t0 = time.time()
    try:
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            results = list(ex.map(_cpu_one, jobs))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    bad = [r for r in results if r["problems"]]
    for r in bad:
        for p in r["problems"]:
            print("%s: %s" % (r["case"], p))
    print("gpu_sweep: %d cases on the %s CPU runtime and the interpreter in %.0f s: %d with problems"
          % (len(results), a.runtime, time.time() - t0, len(bad)))
    return 1 if bad else 0


def main():
    if hasattr(signal, "SIGPIPE"):   # `table ... | head` ends quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="generate the cases and pack them for the GPU machine")
    p.add_argument("--only", help="comma-separated families (build/gpu-sweep --list)")
    p.add_argument("--shard", help="I/N: every N-th case starting at the I-th (to split the run)")
    p.add_argument("--dest", default=DEFAULT_DEST, help="pack folder (default .device-sweep)")
    p.add_argument("--missing", metavar="DATA_DIR", help="only cases without a row in DATA_DIR/*.jsonl")
    p.add_argument("--fixed", metavar="all|CASE,...",
                   help="also pack <case>__fixed: the case after `gpuclean fix`, where it rewrites something")
    p.add_argument("--fix-args", default="", metavar="'ARGS'",
                   help="more `gpuclean fix` arguments for --fixed, e.g. '--runtime js --precision fp16'")
    c = sub.add_parser("collect", help="device output -> data/gpu/sweep/*.jsonl")
    c.add_argument("dir")
    c.add_argument("--device-label", help="device key in the file names (default: from env.txt, e.g. nvidia-h200)")
    c.add_argument("--manifest", help="manifest.jsonl of the packed cases (default: DIR, then .device-sweep)")
    c.add_argument("--out", default=DATA, help="output folder (default data/gpu/sweep)")
    c.add_argument("--fresh", action="store_true", help="drop rows of cases this run did not have")
    t = sub.add_parser("table", help="Markdown summary")
    t.add_argument("src")
    t.add_argument("--device-label")
    t.add_argument("--manifest")
    k = sub.add_parser("check-cpu", help="every case on this machine's CPU runtime and the interpreter")
    k.add_argument("--only")
    k.add_argument("--runtime", default="native", choices=("native", "js", "both"))
    k.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    return {"pack": cmd_pack, "collect": cmd_collect, "table": cmd_table, "check-cpu": cmd_check_cpu}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
