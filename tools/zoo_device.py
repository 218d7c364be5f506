#!/usr/bin/env python3
"""The zoo on a real GPU (the device tool's H200): pack here, run there, collect here.

    tools/zoo_device.py pack [NAME ...] [--real-max-mb 6]
        every exported recipe's final and plain .tflite into .device-litert/models
        (--js-fp16: also each final export after `gpuclean fix --runtime js --precision
        fp16`, file kind "jsfp16", where that rewrites anything: what a web app running
        LiteRT.js at fp16 would ship; --only-final: leave the plain conversions out)
        (runtime/litert/pack.sh also packs node, dawn.node, the LiteRT.js runner, the
        native libLiteRt and build/gpuclean); a file whose float weights do not fit the
        device tool's 64 MiB is carried as a *twin* (../shared/tools/device/twin.py: the
        same graph, regenerated weights): GPU-vs-CPU numbers stay meaningful, a
        comparison with PyTorch does not, and every table says which file ran. The
        reference inputs (OUT/ref/input_<k>.npy) travel too where small (token ids,
        masks) and are fed to every run; larger ones (images) get the sin pattern.
    (there)  TEXT=0 RUNS=1 bash runtime/litert/device.sh     -> $OUT/reports.jsonl, env.txt
    tools/zoo_device.py collect DIR [--merge]
        DIR/reports.jsonl + DIR/env.txt -> docs/measurements/zoo-h200.jsonl (one row per
        model and file: runtime, version, device, residency, GPU vs CPU per precision)
"""
import argparse
import json
import lzma
import os
import shutil
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
from gpuclean import zoo  # noqa: E402

PACK = os.path.join(top, ".device-litert")
TWIN = os.path.join(top, "..", "shared", "tools", "device", "twin.py")


def cmd_pack(a):
    stage = os.path.join(top, "build", "zoo-device")
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    files, inputs, twins = [], {}, []
    for fam, name, _ in zoo.recipes():
        if a.names and name not in a.names:
            continue
        out = os.path.join(top, "build", "zoo", fam, name)
        kinds = [("final", name + ".tflite")]
        if not a.only_final:
            kinds.append(("plain", name + ".plain.tflite"))
        if a.js_fp16 and os.path.exists(os.path.join(out, name + ".tflite")):
            js = os.path.join(stage, name + ".jsfp16.tflite")
            rc = subprocess.run([os.path.join(top, "build", "gpuclean"), "fix",
                                 os.path.join(out, name + ".tflite"), "-o", js, "--runtime", "js",
                                 "--precision", "fp16", "--json", "--no-progress"],
                                capture_output=True, text=True)
            try:
                rep = json.loads(rc.stdout)
            except ValueError:
                rep = None
            if rc.returncode != 0 or not rep or not os.path.exists(js):
                print("zoo_device: fix --runtime js --precision fp16 on %s: exit %d, not carried: %s"
                      % (name, rc.returncode, rc.stderr.strip()[-300:]), file=sys.stderr)
                if os.path.exists(js):
                    os.unlink(js)
            elif not rep.get("changes"):
                os.unlink(js)           # nothing rewritten: the final file already is it
            else:
                kinds.append(("jsfp16", js))
        for kind, fn in kinds:
            src = os.path.join(out, fn)
            if not os.path.exists(src):
                continue
            stem = "%s__%s" % (name, kind)
            raw = open(src, "rb").read()
            packed = len(lzma.compress(raw, preset=1)) if len(raw) < (64 << 20) else len(raw)
            if packed > a.real_max_mb * (1 << 20):
                if not os.path.exists(TWIN):
                    print("zoo_device: %s too big to carry (%.1f MB xz) and no twin tool at %s"
                          % (src, packed / 2**20, TWIN), file=sys.stderr)
                    continue
                stem += "__twin"
                dst = os.path.join(stage, stem + ".tflite")
                subprocess.run([sys.executable, TWIN, src, dst], check=True)
                twins.append(stem)
            else:
                dst = os.path.join(stage, stem + ".tflite")
                shutil.copyfile(src, dst)
            files.append(dst)
            ref = os.path.join(out, "ref")
            if os.path.isdir(ref):
                fs = [os.path.join(ref, f) for f in sorted(os.listdir(ref)) if f.startswith("input_")]
                # small inputs (token ids, masks) travel; images and spectrograms would not
                # fit the device tool's 64 MiB next to the runtimes: those get the sin pattern
                if sum(os.path.getsize(f) for f in fs) <= a.max_input_kb * 1024:
                    inputs[stem] = fs
    if not files:
        print("zoo_device: nothing exported yet (make zoo)", file=sys.stderr)
        return 2
    subprocess.run([os.path.join(top, "runtime", "litert", "pack.sh")] + files, check=True)
    idir = os.path.join(PACK, "inputs")
    shutil.rmtree(idir, ignore_errors=True)
    for stem, fs in inputs.items():
        os.makedirs(os.path.join(idir, stem))
        for f in fs:
            shutil.copyfile(f, os.path.join(idir, stem, os.path.basename(f)))
    with open(os.path.join(PACK, "zoo-twins.txt"), "w") as f:
        f.write("\n".join(twins) + "\n")
    print("zoo_device: %d files (%d twins), inputs for %d" % (len(files), len(twins), len(inputs)))
    return 0


def _mode(rt, name):
    return next((m for m in rt.get("modes", []) if m.get("mode") == name), None)


def cmd_collect(a):
    env = open(os.path.join(a.dir, "env.txt")).read() if os.path.exists(os.path.join(a.dir, "env.txt")) else ""
    device = next((l.strip() for l in env.splitlines() if "H200" in l or "NVIDIA" in l), "unknown GPU")
    date = next((l.split(":", 1)[1].strip() for l in env.splitlines() if l.startswith("date:")), "")
    rows = []
    with open(os.path.join(a.dir, "reports.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            stem = os.path.basename(r.get("model", "")).replace(".tflite", "")
            parts = stem.split("__")
            row = {"model": parts[0], "file": parts[1] if len(parts) > 1 else "final",
                   "twin": len(parts) > 2 and parts[2] == "twin", "device": device, "date": date,
                   "verdict": (r.get("verdict") or {}).get("text") or r.get("error"),
                   "exit": r.get("exit"), "runtimes": []}
            for rname, rt in (r.get("runtimes") or {}).items():
                e = {"name": rname, "version": rt.get("version"), "ran": rt.get("ran"),
                     "verdict": (rt.get("verdict") or {}).get("text"), "modes": {}}
                for m in rt.get("modes", []):
                    x = {"status": m.get("status"), "error": m.get("error")}
                    res = m.get("residency")
                    if res:
                        x["residency"] = "%d/%d" % (res.get("gpu_ops", 0),
                                                    res.get("gpu_ops", 0) + res.get("cpu_ops", 0))
                    if m.get("fallback_all"):
                        x["fallback_all"] = True
                    for k in ("run_ms", "median_ms", "compile_ms"):
                        if m.get(k) is not None:
                            x[k] = m[k]
                    c = next((c for c in r.get("comparisons", []) if c.get("runtime") == rname
                              and c.get("mode") == m.get("mode") and c.get("ref_mode") == "cpu"), None)
                    if c:
                        outs = [o for o in c.get("outputs", []) if not o.get("problem")]
                        if outs:
                            x["corr"] = min(o["corr"] if o.get("corr") is not None else 1.0 for o in outs)
                            x["max_abs"] = max(o.get("max_abs") or 0 for o in outs)
                            x["pass"] = all(o.get("pass") for o in outs)
                            x["outputs"] = [{"max_abs": o.get("max_abs"), "corr": o.get("corr"),
                                             "ref_max_abs": o.get("ref_max_abs")} for o in outs]
                    e["modes"][m.get("mode")] = x
                row["runtimes"].append(e)
            rows.append(row)
    dst = os.path.join(top, "docs", "measurements", "zoo-h200.jsonl")
    if a.merge and os.path.exists(dst):      # keep earlier runs' rows for other files
        seen = {(r["model"], r["file"]) for r in rows}
        with open(dst) as f:
            rows += [r for r in (json.loads(l) for l in f if l.strip()) if (r["model"], r["file"]) not in seen]
    tmp = dst + ".tmp"
    with open(tmp, "w") as f:
        for row in sorted(rows, key=lambda r: (r["model"], r["file"])):
            f.write(json.dumps(row, sort_keys=True) + "\n")
    os.replace(tmp, dst)
    print("zoo_device: %d rows -> %s" % (len(rows), os.path.relpath(dst, top)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("names", nargs="*")
    p.add_argument("--real-max-mb", type=float, default=0.3,
                   help="carry the real file when it xz-compresses below this (default 0.3)")
    p.add_argument("--max-input-kb", type=float, default=64,
                   help="carry the reference inputs when they total at most this (default 64)")
    p.add_argument("--js-fp16", action="store_true",
                   help="also carry each final export fixed for LiteRT.js at fp16 (kind jsfp16)")
    p.add_argument("--only-final", action="store_true", help="leave the plain conversions out")
    c = sub.add_parser("collect")
    c.add_argument("dir")
    c.add_argument("--merge", action="store_true", help="keep rows of files this run did not have")
    a = ap.parse_args()
    return cmd_pack(a) if a.cmd == "pack" else cmd_collect(a)


if __name__ == "__main__":
    sys.exit(main())
