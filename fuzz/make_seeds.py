#!/usr/bin/env python3
"""fuzz/make_seeds.py — writes the seed inputs of fuzz_npy and fuzz_verify (NumPy needed):
fuzz/seeds-npy/ (.npy of every dtype gpuclean reads, 0-d, empty, Fortran order,
big-endian, format 2.0, .npz stored and deflated) and fuzz/seeds-verify/ (the verify
target's framing: flags, length, input_0.npy, output_0.npy [+ output_1.npy]; the
reference outputs are those of fuzz_verify.c's model: y = x + c, score = sum(y*y)).
Deterministic; the files are small and committed."""
import io, os, struct, zipfile
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
npy_dir, ver_dir = os.path.join(here, "seeds-npy"), os.path.join(here, "seeds-verify")
os.makedirs(npy_dir, exist_ok=True); os.makedirs(ver_dir, exist_ok=True)

def npy_bytes(a, version=None):
    b = io.BytesIO()
    if version:
        np.lib.format.write_array(b, a, version=version)
    else:
        np.save(b, a)
    return b.getvalue()

def put(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

rng = np.random.default_rng(7)
for dt in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"):
    a = (rng.standard_normal((2, 3)) * 10).astype(dt)
    put(npy_dir, "%s.npy" % dt, npy_bytes(a))
put(npy_dir, "scalar.npy", npy_bytes(np.float32(3.5)))
put(npy_dir, "empty.npy", npy_bytes(np.zeros((0, 4), np.float32)))
put(npy_dir, "fortran.npy", npy_bytes(np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))))
put(npy_dir, "fortran_vector.npy", npy_bytes(np.asfortranarray(np.arange(5, dtype=np.int32).reshape(5, 1))))
put(npy_dir, "bigendian.npy", npy_bytes(np.arange(6, dtype=">f4").reshape(2, 3)))
put(npy_dir, "v2.npy", npy_bytes(np.arange(4, dtype=np.float32), version=(2, 0)))
put(npy_dir, "rank8.npy", npy_bytes(np.zeros((1, 2, 1, 2, 1, 2, 1, 2), np.float32)))
put(npy_dir, "nan_inf.npy", npy_bytes(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45], np.float32)))
for comp, name in ((zipfile.ZIP_STORED, "stored.npz"), (zipfile.ZIP_DEFLATED, "deflated.npz")):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", comp) as z:
        z.writestr("x.npy", npy_bytes(np.arange(10, dtype=np.float32)))
        z.writestr("y.npy", npy_bytes(np.ones((2, 2), np.int64)))
    put(npy_dir, name, b.getvalue())

c = np.array([0.5, -1.0, 2.0, 0.25, 3.0, -0.75, 1.5, 0.0], np.float32).reshape(1, 8)
def frame(flags, inp, outs):
    """outs: [output_0] or [output_0, output_1] (then flag 16 is set)"""
    if len(outs) == 2:
        flags |= 16
    return bytes([flags]) + struct.pack("<HH", len(inp), len(outs[0])) + inp + b"".join(outs)
x = (0.5 + 0.5 * np.sin(0.37 * np.arange(8))).astype(np.float32).reshape(1, 8)
y = x + c
s = np.float32((y * y).sum())          # SUM over every axis without keep_dims: a 0-d output
X, Y, S = npy_bytes(x), npy_bytes(y), npy_bytes(s)
put(ver_dir, "pass.bin", frame(0, X, [Y, S]))
put(ver_dir, "pass_json_both.bin", frame(1 | 2 | 4, X, [Y, S]))
put(ver_dir, "one_output.bin", frame(1, X, [Y]))
put(ver_dir, "tolerance.bin", frame(8 | 1, X, [npy_bytes(y + 1e-4), npy_bytes(s + 1e-3)]))
put(ver_dir, "nan_ref.bin", frame(1, X, [npy_bytes(np.full((1, 8), np.nan, np.float32)), S]))
put(ver_dir, "score_off.bin", frame(1, X, [Y, npy_bytes(s * 2)]))
put(ver_dir, "wrong_shape.bin", frame(1, npy_bytes(np.zeros((2, 8), np.float32)), [Y, S]))
put(ver_dir, "wrong_dtype.bin", frame(0, npy_bytes(x.astype(np.float64)), [Y, S]))
put(ver_dir, "float16_ref.bin", frame(1, X, [npy_bytes(y.astype(np.float16)), S]))
put(ver_dir, "dirs.bin", frame(32 | 1, X, [Y, S]))
put(ver_dir, "truncated.bin", frame(0, X[:40], [Y[:-3], S]))
print("seeds: %d npy, %d verify" % (len(os.listdir(npy_dir)), len(os.listdir(ver_dir))))
