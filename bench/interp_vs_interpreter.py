#!/usr/bin/env python3
"""interp_vs_interpreter.py — gpuclean's reference interpreter against LiteRT's TFLite
Interpreter (ai_edge_litert.interpreter: builtin kernels plus its default XNNPACK
delegate), for the models interp_vs_native cannot time natively: LiteRT 2.3's
CompiledModel refuses variable tensors (stateful UNIDIRECTIONAL_SEQUENCE_LSTM, SVDF),
the Interpreter runs them.

    .venv/bin/python bench/interp_vs_interpreter.py [--runs N] [--int-arith tflite|xnnpack]
                                                     MODEL.tflite...

How it measures: one process holds both (ours through libgpuclean.so by ctypes: fp32,
signature auto, 1 thread, the given --int-arith; the Interpreter with num_threads=1).
Ours' inputs are made by gc_fill_pattern_sin (as interp_vs_native makes them) and
copied into the Interpreter's. After 3 untimed invokes each, N timed invokes alternate
ours, native, ours, ... each timed around the one invoke call (time.perf_counter; the
ctypes / pybind call costs about a microsecond either side). Variable tensors keep
their state across invokes on both sides. Prints one Markdown row per model: medians
and ours / native. Exit 0 when the table was printed, 2 on bad usage.
"""
import argparse
import ctypes as C
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GC_MAX_RANK = 8
# GC_T_* codes (src/model/model.h) of the types these models take as inputs
NP_OF = {0: np.float32, 2: np.int32, 3: np.uint8, 4: np.int64, 7: np.int16, 9: np.int8}


class Opts(C.Structure):           # gc_interp_opts (src/interp/interp.h)
    _fields_ = [("precision", C.c_int), ("qmode", C.c_int), ("signature", C.c_int),
                ("subgraph", C.c_int32), ("on_node", C.c_void_p), ("ask", C.c_void_p),
                ("user", C.c_void_p), ("max_tensor_bytes", C.c_uint64), ("threads", C.c_int),
                ("fp64_views", C.c_bool), ("gpu_runtime", C.c_int), ("reference_kernels", C.c_bool),
                ("float_arith", C.c_int)]


class TView(C.Structure):          # gc_tview
    _fields_ = [("subgraph", C.c_int32), ("tensor", C.c_int32), ("name", C.c_char_p),
                ("dtype", C.c_int), ("rank", C.c_int), ("shape", C.c_int32 * GC_MAX_RANK),
                ("data", C.c_void_p), ("nbytes", C.c_size_t), ("scale", C.c_float),
                ("zero_point", C.c_int32)]


def load_gc():
    L = C.CDLL(os.path.join(ROOT, "build", "libgpuclean.so"))
    L.gc_model_read_file.restype = C.c_void_p
    L.gc_model_read_file.argtypes = [C.c_char_p, C.c_char_p, C.c_size_t]
    L.gc_interp_new.restype = C.c_void_p
    L.gc_interp_new.argtypes = [C.c_void_p, C.POINTER(Opts), C.c_char_p, C.c_size_t]
    for f in ("gc_interp_prepare", "gc_interp_invoke", "gc_interp_n_inputs"):
        getattr(L, f).argtypes = [C.c_void_p]
        getattr(L, f).restype = C.c_int
    L.gc_interp_errmsg.restype = C.c_char_p
    L.gc_interp_errmsg.argtypes = [C.c_void_p]
    L.gc_interp_input.restype = TView
    L.gc_interp_input.argtypes = [C.c_void_p, C.c_int]
    L.gc_fill_pattern_sin.argtypes = [C.POINTER(TView), C.c_int]
    L.gc_fill_pattern_sin.restype = C.c_int
    return L


def ours(L, path, qmode):
    err = C.create_string_buffer(512)
    m = L.gc_model_read_file(path.encode(), err, 512)
    if not m:
        raise RuntimeError(err.value.decode())
    o = Opts(precision=0, qmode=qmode, signature=-2, threads=1)
    it = L.gc_interp_new(m, C.byref(o), err, 512)
    if not it:
        raise RuntimeError(err.value.decode())
    if L.gc_interp_prepare(it) != 0:
        raise RuntimeError("prepare: " + L.gc_interp_errmsg(it).decode())
    inputs = []
    for k in range(L.gc_interp_n_inputs(it)):
        v = L.gc_interp_input(it, k)
        if L.gc_fill_pattern_sin(C.byref(v), k) != 0:
            raise RuntimeError("no input generator for input %d" % k)
        dt = np.dtype(NP_OF[v.dtype])
        buf = (C.c_char * v.nbytes).from_address(v.data)
        inputs.append(np.frombuffer(buf, dtype=dt).reshape(tuple(v.shape[:v.rank])).copy())
    return it, inputs


def invoke_ours(L, it):
    if L.gc_interp_invoke(it) != 0:
        raise RuntimeError("invoke: " + L.gc_interp_errmsg(it).decode())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=201)
    ap.add_argument("--int-arith", choices=("tflite", "xnnpack"), default="tflite")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    if a.runs < 1:
        ap.error("--runs needs an integer >= 1")
    from ai_edge_litert.interpreter import Interpreter
    L = load_gc()
    print("ours: fp32, --int-arith %s, 1 thread; native: ai_edge_litert Interpreter, num_threads=1; "
          "%d timed invokes each, interleaved; load %s" % (a.int_arith, a.runs, os.getloadavg()))
    print("| model | ours ms | native ms | ours/native |\n|---|---:|---:|---:|")
    for path in a.models:
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            it, xs = ours(L, path, 1 if a.int_arith == "xnnpack" else 0)
            nat = Interpreter(model_path=path, num_threads=1)
            nat.allocate_tensors()
            for k, d in enumerate(nat.get_input_details()):
                nat.set_tensor(d["index"], xs[k].reshape(d["shape"]).astype(d["dtype"]))
        except Exception as e:       # a side that cannot run: its reason in the row
            print("| %s | — | — | — (%s) |" % (name, str(e).splitlines()[0][:120]))
            continue
        for _ in range(3):
            invoke_ours(L, it)
            nat.invoke()
        to, tn = [], []
        for _ in range(a.runs):
            t0 = time.perf_counter(); invoke_ours(L, it); to.append(time.perf_counter() - t0)
            t0 = time.perf_counter(); nat.invoke(); tn.append(time.perf_counter() - t0)
        mo, mn = statistics.median(to) * 1e3, statistics.median(tn) * 1e3
        print("| %s | %.4g | %.4g | %.2f |" % (name, mo, mn, mo / mn))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
