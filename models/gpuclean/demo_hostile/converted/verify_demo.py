"""Parity of out/demo.tflite against the source dump (ref/), on the real LiteRT
runtime, plus the static residency line. --accelerator cpu|gpu|both (default both: the
GPU where one exists)."""
import argparse
import os
import sys

import numpy as np

from gpuclean.convert import parity
from gpuclean.core import check
from gpuclean.runtime import litert_run

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--accelerator", default="both", choices=["cpu", "gpu", "both"])
ap.add_argument("--min-corr", type=float, default=0.9999)
a = ap.parse_args()
model = os.path.join(here, "out", "demo.tflite")
x = np.load(os.path.join(here, "ref", "input_0.npy"))
ref = np.load(os.path.join(here, "ref", "output_0.npy"))
print("static: %s" % check(model)["summary"]["residency"])
run = litert_run(model, {"args_0": x}, accelerator=a.accelerator)
doc = run["json"]
print("runtime verdict: %s" % (doc.get("verdict") or {}).get("text"))
ok = True
for rname, modes in run["outputs"].items():
    print("%s: %s" % (rname, doc["runtimes"][rname].get("versions")))
    for mode, outs in modes.items():
        if not outs or outs[0]["array"] is None:
            continue
        p = parity(outs[0]["array"], ref)
        good = p["corr"] >= a.min_corr
        ok &= good
        print("  %-9s corr %.7f  max abs %.3g  %s" % (mode, p["corr"], p["max_abs"], "ok" if good else "FAIL"))
sys.exit(0 if ok else 1)
