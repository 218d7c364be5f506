#!/usr/bin/env python3
"""fp16 prediction vs the real GPU, per output: what `gpuclean run --precision fp16`
(and fp16-acc) predicts for the GPU's fp16 error, against what the GPU measured.

For every row of docs/measurements/zoo-h200.jsonl, the exact file that ran on the device
(build/zoo-device/<model>__<file>[__twin].tflite, made by tools/zoo_device.py pack) is run
here on gpuclean's interpreter with the same inputs at fp32, fp16 and fp16-acc; predicted
error = max|interp fp16 - interp fp32| per output, measured = max|GPU fp16 - CPU| of
that runtime. Prints a Markdown table and the share of outputs within 3x.

    tools/fp16_predict.py [--md FILE]
"""
import argparse
import json
import os
import sys

import numpy as np

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
from gpuclean.core import Interpreter, Model  # noqa: E402


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
        else:
            x = (i * 7 + k) % 3
        xs.append(x.reshape(shape).astype(dt))
    return xs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--md")
    a = ap.parse_args()
    rows_in = [json.loads(l) for l in open(os.path.join(top, "docs", "measurements", "zoo-h200.jsonl"))
               if l.strip()]
    lines = ["| model | file | out | runtime | GPU fp16 vs CPU (measured) | predicted fp16 | ratio | predicted fp16-acc | ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    n = within = n_acc = within_acc = 0
    for r in rows_in:
        stem = "%s__%s%s" % (r["model"], r["file"], "__twin" if r.get("twin") else "")
        f = os.path.join(top, "build", "zoo-device", stem + ".tflite")
        idir = os.path.join(top, ".device-litert", "inputs", stem)
        if not os.path.exists(f):
            continue
        pred = {}
        try:
            with Model(f) as m:
                if os.path.isdir(idir):
                    xs = [np.load(os.path.join(idir, x)) for x in sorted(os.listdir(idir))]
                else:
                    xs = sin_pattern(m)
                for prec in ("fp32", "fp16", "fp16-acc"):
                    with Interpreter(m, prec) as it:
                        pred[prec] = [np.asarray(o, np.float64) for o in it(*xs)]
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            lines.append("| %s | %s | - | - | - | interpreter: %s | | | |" % (r["model"], r["file"], str(e)[:80]))
            continue
        for rt in r["runtimes"]:
            g = (rt["modes"].get("gpu-fp16") or {})
            # a whole-model CPU fallback measured the CPU against itself: not a GPU number
            if not g.get("outputs") or g.get("fallback_all") or (g.get("residency") or "x").startswith("0/"):
                continue
            for k, o in enumerate(g["outputs"]):
                if k >= len(pred["fp32"]) or o.get("max_abs") is None:
                    continue
                meas = float(o["max_abs"])
                p16 = float(np.max(np.abs(pred["fp16"][k] - pred["fp32"][k])))
                pacc = float(np.max(np.abs(pred["fp16-acc"][k] - pred["fp32"][k])))

                def ratio(p):
                    if meas == 0 and p == 0:
                        return 1.0
                    return max(p, 1e-30) / max(meas, 1e-30)
                r16, racc = ratio(p16), ratio(pacc)
                n += 1
                within += 1 / 3 <= r16 <= 3
                n_acc += 1
                within_acc += 1 / 3 <= racc <= 3
                lines.append("| %s | %s%s | %d | %s | %.3g | %.3g | %.2f | %.3g | %.2f |" % (
                    r["model"], r["file"], " (twin)" if r.get("twin") else "", k, rt["name"],
                    meas, p16, r16, pacc, racc))
    lines.append("")
    lines.append("within 3x of the GPU: fp16 %d/%d outputs, fp16-acc %d/%d outputs" % (within, n, within_acc, n_acc))
    text = "\n".join(lines)
    print(text)
    if a.md:
        with open(a.md + ".tmp", "w") as fh:
            fh.write(text + "\n")
        os.replace(a.md + ".tmp", a.md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
