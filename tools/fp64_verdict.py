#!/usr/bin/env python3
"""Which fp32 result is closer to the truth? A float model with float16 weights
(DEQUANTIZE'd FLOAT16 constants, the converter's fp16-weight pattern) and long dot
products, run by gpuclean's interpreter in fp32 and in fp64 (--precision fp64: every float
op in double, the truth) and by LiteRT's CPU (libLiteRt CompiledModel: XNNPACK, its own
summation order), on the same pattern-sin inputs.

    .venv/bin/python tools/fp64_verdict.py [--k 16384] [--n 256] [--layers 2] [--out DIR]

Prints, per output, max |fp32 - fp64| and the SNR against fp64 for ours and for LiteRT,
and max |ours - LiteRT| (the disagreement issue 11 reports on two fp16-weight pose models).
The model: x [1, K] -> FC(W1 [N, K] fp16, b1) -> RELU -> FC(W2 [N, N] fp16, b2) ... ; the
weights are N(0, 1) rounded to half, so each logit is a K-term sum of magnitude ~sqrt(K)."""
import argparse, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "interp"))
from lstm_svdf_litert import Builder, S, T          # noqa: E402  (the one-op model builder)

GC = os.path.join(ROOT, "build", "gpuclean")


def build(path, k, n, layers, seed):
    rng = np.random.default_rng(seed)
    b = Builder()
    x = b.tensor([1, k], T.FLOAT32, name="x")
    cur, width = x, k
    for l in range(layers):
        w16 = rng.standard_normal((n, width)).astype(np.float16)
        wq = b.tensor([n, width], T.FLOAT16, w16, name=f"w{l}_fp16")
        w = b.tensor([n, width], T.FLOAT32, name=f"w{l}")
        b.op(S.BuiltinOperator.DEQUANTIZE, [wq], [w], 0, None)
        bias = b.tensor([n], T.FLOAT32, rng.standard_normal(n).astype(np.float32), name=f"b{l}")
        y = b.tensor([1, n], T.FLOAT32, name=f"y{l}")
        opt = S.FullyConnectedOptionsT()
        opt.fusedActivationFunction = S.ActivationFunctionType.RELU if l < layers - 1 else S.ActivationFunctionType.NONE
        b.op(S.BuiltinOperator.FULLY_CONNECTED, [cur, w, bias], [y], S.BuiltinOptions.FullyConnectedOptions, opt)
        cur, width = y, n
    b.save(path, [x], [cur])


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"{' '.join(cmd)}: {p.stderr.strip() or p.stdout.strip()}")


def snr(ref, x):
    e = np.sum((x - ref) ** 2)
    return float("inf") if e == 0 else 10 * np.log10(np.sum(ref ** 2) / e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=16384)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    d = a.out or tempfile.mkdtemp(prefix="gc-fp64-")
    os.makedirs(d, exist_ok=True)
    m = os.path.join(d, "fp16_weights_fc.tflite")
    build(m, a.k, a.n, a.layers, a.seed)
    run([GC, "run", m, "--pattern", "sin", "--out", os.path.join(d, "ours32")])
    run([GC, "run", m, "--pattern", "sin", "--precision", "fp64", "--out", os.path.join(d, "ours64")])
    run([GC, "litert", m, "--runtime", "native", "--accelerator", "cpu", "--pattern", "sin", "--quiet",
         "--out", os.path.join(d, "lrt")])
    x_ours = np.load(os.path.join(d, "ours32", "input_0.npy"))
    x_lrt = np.load(os.path.join(d, "lrt", "native", "inputs", "s0_input_0.npy"))
    assert np.array_equal(x_ours, x_lrt), "the two runtimes were fed different inputs"
    o32 = np.load(os.path.join(d, "ours32", "output_0.npy")).astype(np.float64).ravel()
    o64 = np.load(os.path.join(d, "ours64", "output_0.npy")).astype(np.float64).ravel()
    lrt = np.load(os.path.join(d, "lrt", "native", "cpu", "output_0.npy")).astype(np.float64).ravel()
    print(f"model: {a.layers} FC layers, K={a.k}, N={a.n}, fp16 weights (DEQUANTIZE), pattern-sin input; {m}")
    print(f"  max |logit| (fp64)            {np.abs(o64).max():.4g}")
    print(f"  ours fp32  vs fp64: max |d| {np.abs(o32 - o64).max():.3g}  SNR {snr(o64, o32):.1f} dB")
    print(f"  LiteRT CPU vs fp64: max |d| {np.abs(lrt - o64).max():.3g}  SNR {snr(o64, lrt):.1f} dB")
    print(f"  ours fp32  vs LiteRT CPU: max |d| {np.abs(o32 - lrt).max():.3g}  SNR {snr(lrt, o32):.1f} dB")
    closer = np.abs(o32 - o64) < np.abs(lrt - o64)
    print(f"  per logit, ours fp32 closer to fp64 on {int(closer.sum())}/{closer.size}, LiteRT on "
          f"{int((np.abs(lrt - o64) < np.abs(o32 - o64)).sum())}, tied on {int((np.abs(lrt - o64) == np.abs(o32 - o64)).sum())}")


if __name__ == "__main__":
    main()
