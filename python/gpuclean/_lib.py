"""ctypes binding over libgpuclean's facade (src/api/api.h).

The library is found at $GPUCLEAN_LIB, else the copy a wheel install carries
(gpuclean/_lib/libgpuclean.so, `make wheel`), else <repo>/build/libgpuclean.so (this file
lives in <repo>/python/gpuclean), else <prefix>/lib/libgpuclean.so next to an installed
native `gpuclean` binary on PATH (`make install`). Handles free their C object deterministically in close(), in
__exit__ and, as a last resort, in __del__. Tensors are numpy views over the C memory
that keep their owner alive. A nonzero status raises GpucleanError carrying the
library's one-line message; a part of the library that is not built raises
NotImplementedError naming the missing C function.
"""
from __future__ import annotations

import ctypes as C
import json
import os

import numpy as np

__all__ = ["GpucleanError", "lib", "repo_root", "find_library", "DTYPES"]

ERRLEN = 1024


class GpucleanError(RuntimeError):
    """A libgpuclean call failed; str() is the library's own message."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class _Tensor(C.Structure):
    _fields_ = [("name", C.c_char_p), ("dtype", C.c_int), ("rank", C.c_int),
                ("shape", C.c_int64 * 8), ("data", C.c_void_p), ("nbytes", C.c_uint64)]


# GC_T_* (model/schema.h) <-> numpy
DTYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64,
          6: np.bool_, 7: np.int16, 9: np.int8, 10: np.float64, 12: np.uint64,
          15: np.uint32, 16: np.uint16}
_NP_TO_GC = {np.dtype(v): k for k, v in DTYPES.items()}

GC_ERR_UNSUPPORTED = 5


def repo_root():
    """The repository root when running from a checkout (None when installed)."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    return root if os.path.exists(os.path.join(root, "src", "api", "api.h")) else None


def _candidates():
    env = os.environ.get("GPUCLEAN_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    own = os.path.join(here, "_lib", "libgpuclean.so")
    if os.path.exists(own):
        yield own
    root = repo_root()
    if root:
        yield os.path.join(root, "build", "libgpuclean.so")
    from ._cli import is_native
    for d in os.environ.get("PATH", "").split(os.pathsep):
        exe = os.path.join(d or ".", "gpuclean")
        if is_native(exe):
            yield os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(exe))),
                               "lib", "libgpuclean.so")
            break


def find_library():
    """Path of a libgpuclean.so with the facade; raises GpucleanError saying why not."""
    tried = []
    for path in _candidates():
        if not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            handle = C.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        if not hasattr(handle, "gc_api_version"):
            tried.append(path + " (built without src/api: add src/api/*.c to LIB_SRC, make lib)")
            continue
        return path
    raise GpucleanError("libgpuclean.so with the gc_api facade not found; tried: "
                        + "; ".join(tried or ["nothing (set GPUCLEAN_LIB or run make lib)"]))


class _Lib:
    """The loaded library with argument types declared once."""

    def __init__(self, path):
        self.path = path
        L = self.L = C.CDLL(path)
        vp, cp, i, sz = C.c_void_p, C.c_char_p, C.c_int, C.c_size_t
        pcp = C.POINTER(C.c_char_p)
        T = C.POINTER(_Tensor)
        sig = {
            "gc_api_version": (i, []),
            "gc_api_free": (None, [vp]),
            "gc_api_has": (i, [cp]),
            "gc_api_model_open": (vp, [cp, cp, sz]),
            "gc_api_model_close": (None, [vp]),
            "gc_api_model_n_subgraphs": (i, [vp]),
            "gc_api_model_n_tensors": (i, [vp, i]),
            "gc_api_model_find_tensor": (i, [vp, i, cp]),
            "gc_api_model_tensor": (i, [vp, i, i, T, cp, sz]),
            "gc_api_inspect_json": (i, [vp, cp, pcp, cp, sz]),
            "gc_api_check_json": (i, [vp, cp, cp, pcp, cp, sz]),
            "gc_api_check_json_ex": (i, [vp, cp, cp, cp, cp, pcp, cp, sz]),
            "gc_api_interp_new": (vp, [vp, cp, i, cp, sz]),
            "gc_api_interp_new_rt": (vp, [vp, cp, cp, i, cp, sz]),
            "gc_api_interp_free": (None, [vp]),
            "gc_api_interp_n_io": (i, [vp, i]),
            "gc_api_interp_set_input_shape": (i, [vp, i, i, C.POINTER(C.c_int64), cp, sz]),
            "gc_api_interp_prepare": (i, [vp, cp, sz]),
            "gc_api_interp_tensor": (i, [vp, i, i, T, cp, sz]),
            "gc_api_interp_invoke": (i, [vp, cp, sz]),
            "gc_api_compare_json": (i, [T, T, C.c_double, C.c_double, pcp, cp, sz]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(L, name, None)
            if fn is None:
                continue                     # older facade: calls raise NotImplementedError
            fn.restype = res
            fn.argtypes = args
        self.version = L.gc_api_version()

    def fn(self, name):
        f = getattr(self.L, name, None)
        if f is None:
            raise NotImplementedError("%s is not in %s" % (name, self.path))
        return f

    def has(self, part):
        return bool(self.fn("gc_api_has")(part.encode()))

    def call(self, name, *args):
        """Call a status-returning function with (err, errlen) appended; raise on error."""
        err = C.create_string_buffer(ERRLEN)
        st = self.fn(name)(*args, err, ERRLEN)
        if st != 0:
            raise_status(st, err.value.decode(errors="replace"))

    def call_json(self, name, *args):
        out = C.c_char_p()
        err = C.create_string_buffer(ERRLEN)
        st = self.fn(name)(*args, C.byref(out), err, ERRLEN)
        if st != 0:
            raise_status(st, err.value.decode(errors="replace"))
        try:
            return json.loads(C.string_at(out).decode("utf-8", errors="replace"))
        finally:
            self.fn("gc_api_free")(C.cast(out, C.c_void_p))


def raise_status(st, msg):
    if st == GC_ERR_UNSUPPORTED and "is not built into" in msg:
        raise NotImplementedError(msg)
    raise GpucleanError(msg, st)


_LIB = None


def lib():
    """The process-wide library (loaded on first use)."""
    global _LIB
    if _LIB is None:
        _LIB = _Lib(find_library())
    return _LIB


def tensor_to_numpy(t, owner, readonly=True):
    """A numpy view over a gc_api_tensor's memory; the view keeps `owner` alive."""
    dt = DTYPES.get(t.dtype)
    name = (t.name or b"").decode(errors="replace")
    if dt is None:
        raise GpucleanError("tensor '%s': dtype %d has no numpy view" % (name, t.dtype))
    shape = tuple(int(t.shape[i]) for i in range(t.rank))
    if not t.data:
        return None
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if n * np.dtype(dt).itemsize != t.nbytes:
        raise GpucleanError("tensor '%s': %d bytes for shape %s %s"
                            % (name, t.nbytes, shape, np.dtype(dt).name))
    buf = (C.c_char * int(t.nbytes)).from_address(t.data)
    buf._gpuclean_owner = owner           # the C memory lives as long as its owner
    arr = np.frombuffer(buf, dtype=dt, count=n).reshape(shape)
    if readonly:
        arr.flags.writeable = False
    return arr


def numpy_to_tensor(a):
    """A gc_api_tensor describing a C-contiguous numpy array (no copy); keep `a` alive."""
    a = np.ascontiguousarray(a)
    if a.dtype not in _NP_TO_GC:
        raise GpucleanError("numpy dtype %s is not supported" % a.dtype)
    if a.ndim > 8:
        raise GpucleanError("rank %d > 8" % a.ndim)
    t = _Tensor()
    t.name = b""
    t.dtype = _NP_TO_GC[a.dtype]
    t.rank = a.ndim
    for k, d in enumerate(a.shape):
        t.shape[k] = d
    t.data = a.ctypes.data if a.size else None
    t.nbytes = a.nbytes
    return t, a
