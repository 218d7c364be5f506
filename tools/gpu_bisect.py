#!/usr/bin/env python3
"""Where does the real GPU first go wrong? The seed's "bisect by intermediate", done with
prefix models on the GPU machine (one device call runs every probe of a stage).

Superseded by the verb `gpuclean bisect MODEL --runtime native|js` (one command, the whole
search on the device: tools/gpu_bisect_device.sh); kept for probing chosen ops by hand.

    tools/gpu_bisect.py probes MODEL OUTDIR [--points N] [--ops I,J,...] [--range A:B]
        writes OUTDIR/<stem>__op<I>.tflite: the prefix of MODEL that ends at op I's first
        output (`gpuclean edit --truncate-at`), a single-output model, so no output is
        also consumed inside the graph (the output-aliasing bug, LiteRT#8599). Probes are
        N float ops spread evenly over the topological order (or the given ops / range).
    (there)  bash runtime/litert/device.sh PACK     (gpuclean litert: GPU vs CPU per probe)
    tools/gpu_bisect.py report REPORTS.jsonl [--tol-rel 1e-3]
        per probe, in op order: GPU-vs-CPU max |diff| relative to max |CPU| and corr per
        runtime and precision; the first op past the tolerance is where to look next
        (run `probes --range` between the last good and the first bad probe).
"""
import argparse
import json
import os
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cli = os.path.join(top, "build", "gpuclean")


def inspect(model):
    p = subprocess.run([cli, "inspect", model, "--json"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def cmd_probes(a):
    d = inspect(a.model)
    sg = d["subgraphs"][0]
    T = sg["tensors"]
    cand = [op for op in sg["ops"] if op["outputs"] and T[op["outputs"][0]].get("dtype") == "FLOAT32"
            and not T[op["outputs"][0]].get("constant")]
    if a.ops:
        want = {int(x) for x in a.ops.split(",")}
        pick = [op for op in cand if op["index"] in want]
    else:
        if a.range:
            lo, hi = (int(x) for x in a.range.split(":"))
            cand = [op for op in cand if lo <= op["index"] <= hi]
        n = min(a.points, len(cand))
        pick = [cand[round(k * (len(cand) - 1) / max(1, n - 1))] for k in range(n)] if n else []
    os.makedirs(a.outdir, exist_ok=True)
    stem = os.path.basename(a.model).replace(".tflite", "")
    made = []
    for op in {o["index"]: o for o in pick}.values():
        out = os.path.join(a.outdir, "%s__op%04d.tflite" % (stem, op["index"]))
        r = subprocess.run([cli, "edit", a.model, "-o", out, "--truncate-at", str(op["outputs"][0])],
                           capture_output=True, text=True)
        if r.returncode == 0:
            made.append((op["index"], op["op"], T[op["outputs"][0]]["shape"]))
        else:
            print("probe op %d: %s" % (op["index"], r.stderr.strip()), file=sys.stderr)
    for i, name, shape in made:
        print("op %4d %-18s %s" % (i, name, shape))
    print("gpu_bisect: %d probes in %s" % (len(made), a.outdir))
    return 0


def cmd_report(a):
    rows = []
    for line in open(a.reports):
        r = json.loads(line)
        stem = os.path.basename(r.get("model", "")).replace(".tflite", "")
        if "__op" not in stem:
            continue
        base, op = stem.rsplit("__op", 1)
        for c in r.get("comparisons", []):
            if c.get("ref_mode") != "cpu" or not str(c.get("mode", "")).startswith("gpu"):
                continue
            for o in c.get("outputs", []):
                if o.get("problem") or o.get("max_abs") is None:
                    continue
                rel = o["max_abs"] / max(o.get("ref_max_abs") or 0.0, 1e-30)
                rows.append((base, int(op), c["runtime"], c["mode"], rel, o["max_abs"], o.get("corr")))
    rows.sort()
    first = {}
    print("| model | op | runtime | mode | max|GPU-CPU| / max|CPU| | max abs | corr |")
    print("|---|---|---|---|---|---|---|")
    for base, op, rt, mode, rel, mx, corr in rows:
        bad = rel > (a.tol_rel if mode == "gpu-fp32" else a.tol_rel_fp16)
        if bad and (base, rt, mode) not in first:
            first[(base, rt, mode)] = op
        print("| %s | %d | %s | %s | %.3g%s | %.3g | %s |" % (base, op, rt, mode, rel, " **over**" if bad else "",
                                                           mx, "%.6f" % corr if corr is not None else "n/a"))
    for (base, rt, mode), op in sorted(first.items()):
        print("first probe over tolerance: %s %s %s: op %d" % (base, rt, mode, op))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("probes")
    p.add_argument("model")
    p.add_argument("outdir")
    p.add_argument("--points", type=int, default=16)
    p.add_argument("--ops")
    p.add_argument("--range")
    r = sub.add_parser("report")
    r.add_argument("reports")
    r.add_argument("--tol-rel", type=float, default=1e-3)
    r.add_argument("--tol-rel-fp16", type=float, default=2e-2)
    a = ap.parse_args()
    return cmd_probes(a) if a.cmd == "probes" else cmd_report(a)


if __name__ == "__main__":
    sys.exit(main())
