"""Export: convert -> check -> rewrite -> verify with gpuclean.convert_for_gpu.
Writes out/demo.tflite (GPU-clean), out/demo.plain.tflite (as converted without
rewrites) and out/report.json; prints the report."""
import json
import os
import sys

from gpuclean import demo
from gpuclean.convert import convert_for_gpu, format_report

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "out")
os.makedirs(out, exist_ok=True)
net, inputs = demo.build()
rep = convert_for_gpu(net, inputs, os.path.join(out, "demo.tflite"))
print(format_report(rep))
with open(os.path.join(out, "report.json"), "w") as f:
    json.dump(rep, f, indent=1, default=str)
sys.exit(0 if rep["ok"] else 1)
