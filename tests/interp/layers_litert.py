"""First op outputs where gpuclean's interpreter and LiteRT's CPU interpreter disagree.
    .venv/bin/python tests/interp/layers_litert.py build/gpuclean MODEL [ref|builtin|xnn] [gpuclean run args...]
Runs both on the same seeded inputs (parity_litert.feeds_for), LiteRT with
experimental_preserve_all_tensors, gpuclean with --dump-all; prints max|diff| per op output."""
import os, subprocess, sys, tempfile
import numpy as np
sys.path.insert(0, os.path.dirname(__file__))
from parity_litert import feeds_for
from ai_edge_litert import interpreter as tfl

gc, path = sys.argv[1], sys.argv[2]
which = sys.argv[3] if len(sys.argv) > 3 else "ref"
extra = sys.argv[4:]
R = tfl.OpResolverType
res = {"ref": R.BUILTIN_REF, "builtin": R.BUILTIN_WITHOUT_DEFAULT_DELEGATES, "xnn": R.AUTO}[which]
fs = feeds_for(path)
it = tfl.Interpreter(model_path=path, experimental_op_resolver_type=res, num_threads=1,
                     experimental_preserve_all_tensors=True)
it.allocate_tensors()
for d, x in zip(it.get_input_details(), fs):
    it.set_tensor(d["index"], x)
it.invoke()
ops = it._get_ops_details()
with tempfile.TemporaryDirectory() as d:
    args = [gc, "run", path, "--out", os.path.join(d, "o"), "--dump-all"] + extra
    for k, x in enumerate(fs):
        p = os.path.join(d, f"in{k}.npy"); np.save(p, x); args += ["--input", f"{k}={p}"]
    subprocess.run(args, check=True)
    for op in ops:
        for t in op["outputs"]:
            f = os.path.join(d, "o", "tensors", f"s0_t{t}.npy")
            if not os.path.exists(f):
                continue
            a = np.load(f).astype(np.float64); b = it.get_tensor(t).astype(np.float64)
            m = np.max(np.abs(a - b)) if a.size else 0
            print(f"op {op['index']:3d} {op['op_name']:20s} t{t:<4d} max|diff| {m:.3g}  max|ref| {np.max(np.abs(b)) if b.size else 0:.3g}")
