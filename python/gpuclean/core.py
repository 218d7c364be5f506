"""Handles over libgpuclean: Model, Interpreter, and the one-call helpers inspect(),
check(), run(), compare(). Mirrors the C API one to one (src/api/api.h)."""
from __future__ import annotations

import ctypes as C
import os
import weakref

import numpy as np

from ._lib import GpucleanError, lib, numpy_to_tensor, tensor_to_numpy, _Tensor

__all__ = ["Model", "Interpreter", "inspect", "check", "run", "compare"]


class _Handle:
    """A C object freed exactly once: close(), `with`, or garbage collection.

    Dependents pin it: numpy views of its memory and objects built on it (an
    Interpreter pins its Model). close() makes the handle unusable at once but frees
    the C object only when the last pin is gone, so a view can never dangle."""
    _free_fn = None

    def __init__(self, ptr):
        self._ptr = ptr
        self._lib = lib()
        self._pins = 0
        self._closed = False

    @property
    def ptr(self):
        if self._closed or not self._ptr:
            raise GpucleanError("%s is closed" % type(self).__name__)
        return self._ptr

    def _pin(self):
        self._pins += 1

    def _unpin(self):
        self._pins -= 1
        if self._closed and self._pins <= 0:
            self._free()

    def _pin_view(self, arr):
        """Keep the C memory alive as long as `arr` (or any view derived from it) lives."""
        if arr is not None:
            self._pin()
            weakref.finalize(arr, self._unpin)
        return arr

    def _free(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            self._lib.fn(self._free_fn)(ptr)
            self._on_freed()

    def _on_freed(self):
        pass

    def close(self):
        if getattr(self, "_closed", True):
            return
        self._closed = True
        if self._pins <= 0:
            self._free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Model(_Handle):
    """A .tflite model, memory-mapped and verified by libgpuclean.

    >>> with Model("m.tflite") as m:
    ...     print(m.inspect()["subgraphs"][0]["ops"][0]["op"])
    ...     w = m.tensor(0, 1)          # numpy view of a weight, zero-copy
    """
    _free_fn = "gc_api_model_close"

    def __init__(self, path):
        path = os.fspath(path)
        L = lib()
        err = C.create_string_buffer(1024)
        ptr = L.fn("gc_api_model_open")(path.encode(), err, 1024)
        if not ptr:
            raise GpucleanError(err.value.decode(errors="replace") or "%s: cannot read" % path)
        super().__init__(ptr)
        self.path = path

    @property
    def n_subgraphs(self):
        return self._lib.fn("gc_api_model_n_subgraphs")(self.ptr)

    def n_tensors(self, subgraph=0):
        n = self._lib.fn("gc_api_model_n_tensors")(self.ptr, subgraph)
        if n < 0:
            raise GpucleanError("no subgraph %d" % subgraph)
        return n

    def find_tensor(self, name, subgraph=0):
        return self._lib.fn("gc_api_model_find_tensor")(self.ptr, subgraph, name.encode())

    def tensor(self, subgraph, index):
        """The constant data of a tensor as a read-only numpy view into the model's
        mapping (it keeps the Model alive); None for tensors without data."""
        if isinstance(index, str):
            name, index = index, self.find_tensor(index, subgraph)
            if index < 0:
                raise GpucleanError("no tensor '%s' in subgraph %d" % (name, subgraph))
        t = _Tensor()
        self._lib.call("gc_api_model_tensor", self.ptr, subgraph, index, C.byref(t))
        return self._pin_view(tensor_to_numpy(t, self))

    def inspect(self):
        """`gpuclean inspect --json` as a dict."""
        return self._lib.call_json("gc_api_inspect_json", self.ptr, self.path.encode())

    def check(self, target="mldrift", runtime=None, precision=None):
        """`gpuclean check --json` as a dict: per-node verdicts, reasons, fixes, the
        residency line, and per node "numerics" ("ok" / "risk" / "wrong") with its
        "numerics_rule" and "evidence" from the measured GPU facts; summary "gpu_correct".
        runtime ("native-2.3", "js-2.5", "native", "js"; None: the default, the native
        runtime apps ship) selects the facts, precision ("fp32" default, "fp16") which of
        them count as wrong (`gpuclean check --runtime R --precision P`)."""
        if runtime is None and precision is None:
            return self._lib.call_json("gc_api_check_json", self.ptr, self.path.encode(),
                                       target.encode())
        enc = lambda s: None if s is None else s.encode()  # noqa: E731
        return self._lib.call_json("gc_api_check_json_ex", self.ptr, self.path.encode(),
                                   target.encode(), enc(runtime), enc(precision))

    def interpreter(self, precision="fp32", signature=-2, gpu_runtime=None):
        return Interpreter(self, precision, signature, gpu_runtime)


class Interpreter(_Handle):
    """gpuclean's reference interpreter over a Model (fp32, fp16, fp16-acc, fp64).
    gpu_runtime: whose fp16 arithmetic precision "fp16" emulates, "native" (the
    default: libLiteRt's WebGPU accelerator) or "js" (LiteRT.js); docs/fp16-model.md."""
    _free_fn = "gc_api_interp_free"

    def __init__(self, model, precision="fp32", signature=-2, gpu_runtime=None):
        L = lib()
        err = C.create_string_buffer(1024)
        if gpu_runtime is None:
            ptr = L.fn("gc_api_interp_new")(model.ptr, precision.encode(), signature, err, 1024)
        else:
            ptr = L.fn("gc_api_interp_new_rt")(model.ptr, precision.encode(), str(gpu_runtime).encode(),
                                               signature, err, 1024)
        self.gpu_runtime = gpu_runtime or "native"
        if not ptr:
            msg = err.value.decode(errors="replace")
            if "is not built into" in msg:
                raise NotImplementedError(msg)
            raise GpucleanError(msg)
        super().__init__(ptr)
        self.model = model                # the interpreter reads the model's memory
        model._pin()
        self._prepared = False

    def _on_freed(self):
        self.model._unpin()

    @property
    def n_inputs(self):
        return self._lib.fn("gc_api_interp_n_io")(self.ptr, 0)

    @property
    def n_outputs(self):
        return self._lib.fn("gc_api_interp_n_io")(self.ptr, 1)

    def set_input_shape(self, k, shape):
        arr = (C.c_int64 * max(1, len(shape)))(*shape)
        self._lib.call("gc_api_interp_set_input_shape", self.ptr, k, len(shape), arr)

    def prepare(self):
        self._lib.call("gc_api_interp_prepare", self.ptr)
        self._prepared = True

    def _view(self, output, k, readonly):
        if not self._prepared:
            self.prepare()
        t = _Tensor()
        self._lib.call("gc_api_interp_tensor", self.ptr, 1 if output else 0, k, C.byref(t))
        return self._pin_view(tensor_to_numpy(t, self, readonly=readonly))

    def input(self, k):
        """Writable numpy view of input k (fill it before invoke())."""
        return self._view(False, k, readonly=False)

    def output(self, k):
        """Read-only view of output k, valid until the next invoke() (copy to keep)."""
        return self._view(True, k, readonly=True)

    def invoke(self):
        self._lib.call("gc_api_interp_invoke", self.ptr)

    def __call__(self, *inputs):
        """Run on numpy inputs (in entry order); returns copies of every output."""
        if not self._prepared:
            for k, x in enumerate(inputs):
                self.set_input_shape(k, np.shape(x))
            self.prepare()
        for k, x in enumerate(inputs):
            dst = self.input(k)
            dst[...] = np.asarray(x, dtype=dst.dtype).reshape(dst.shape)
        self.invoke()
        return [np.array(self.output(k)) for k in range(self.n_outputs)]


def inspect(path):
    with Model(path) as m:
        return m.inspect()


def check(path, target="mldrift", runtime=None, precision=None):
    with Model(path) as m:
        return m.check(target, runtime, precision)


def run(path, inputs, precision="fp32", signature=-2, gpu_runtime=None):
    """Run a model in gpuclean's reference interpreter; returns the outputs (copies).
    gpu_runtime ("native" default, or "js") picks whose fp16 "fp16" emulates."""
    with Model(path) as m, Interpreter(m, precision, signature, gpu_runtime) as it:
        return it(*inputs)


def compare(a, ref, rtol=1e-5, atol=1e-6):
    """gpuclean's metrics of `a` against `ref` (max_abs, pearson, cosine, argmax
    agreement, violations, pass, ...) as a dict."""
    ta, ka = numpy_to_tensor(np.asarray(a))
    tr, kr = numpy_to_tensor(np.asarray(ref))
    try:
        return lib().call_json("gc_api_compare_json", C.byref(ta), C.byref(tr),
                               float(rtol), float(atol))
    finally:
        del ka, kr
