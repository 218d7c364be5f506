"""Parity of gpuclean's interpreter with LiteRT's CPU interpreter (ai_edge_litert).

For each model: seeded N(0,1) float inputs (int inputs: small non-negative ids), LiteRT
with its builtin kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES: TFLite's kernels) and with
the default XNNPACK delegate, and `gpuclean run` with --int-arith tflite / xnnpack
(and --precision fp64 where asked). Prints max|diff| per output and relative to max|ref|.
    .venv/bin/python tests/interp/parity_litert.py build/gpuclean MODEL... [--fp64]
"""
import os, subprocess, sys, tempfile
import numpy as np
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from ai_edge_litert import interpreter as tfl


def litert(path, feeds, resolver):
    it = tfl.Interpreter(model_path=path, experimental_op_resolver_type=resolver, num_threads=1)
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), feeds):
        it.set_tensor(d["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def ours(gc, path, feeds, extra):
    with tempfile.TemporaryDirectory() as d:
        args = [gc, "run", path, "--out", os.path.join(d, "o")] + extra
        for k, x in enumerate(feeds):
            p = os.path.join(d, f"in{k}.npy"); np.save(p, x)
            args += ["--input", f"{k}={p}"]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            return None, (r.stderr.strip().splitlines() or ["?"])[-1]
        outs, k = [], 0
        while os.path.exists(os.path.join(d, "o", f"output_{k}.npy")):
            outs.append(np.load(os.path.join(d, "o", f"output_{k}.npy"))); k += 1
        return outs, None


def feeds_for(path, seed=1):
    it = tfl.Interpreter(model_path=path)
    rng = np.random.default_rng(seed)
    fs = []
    for d in it.get_input_details():
        if d["dtype"] == np.float32:
            fs.append(rng.standard_normal(d["shape"]).astype(np.float32))
        else:
            fs.append(rng.integers(0, 100, d["shape"]).astype(d["dtype"]))
    return fs


def stat(a, b):
    a = np.asarray(a, np.float64); b = np.asarray(b, np.float64)
    m = np.max(np.abs(a - b)) if a.size else 0.0
    return m, m / max(np.max(np.abs(b)), 1e-30)


def main():
    gc = sys.argv[1]
    fp64 = "--fp64" in sys.argv
    R = tfl.OpResolverType
    for path in [a for a in sys.argv[2:] if not a.startswith("--")]:
        fs = feeds_for(path)
        ref_b = litert(path, fs, R.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        ref_x = litert(path, fs, R.AUTO)
        ref_r = litert(path, fs, R.BUILTIN_REF)
        line = [os.path.basename(path)]
        line.append("builtin~xnn %.3g builtin~ref %.3g" % (max(stat(a, b)[0] for a, b in zip(ref_x, ref_b)),
                                                       max(stat(a, b)[0] for a, b in zip(ref_r, ref_b))))
        runs = [("tflite~builtin", ["--int-arith", "tflite"], ref_b), ("tflite~ref", ["--int-arith", "tflite"], ref_r),
                ("xnnpack~xnn", ["--int-arith", "xnnpack"], ref_x)]
        if fp64:
            runs.append(("fp64~builtin", ["--precision", "fp64"], ref_b))
        for name, extra, ref in runs:
            got, err = ours(gc, path, fs, extra)
            if got is None:
                line.append(f"{name}: FAIL {err}"); continue
            s = [stat(g, r) for g, r in zip(got, ref)]
            line.append("%s max|diff| %.3g (rel %.2g)" % (name, max(x[0] for x in s), max(x[1] for x in s)))
        print("  ".join(line), flush=True)


if __name__ == "__main__":
    main()
