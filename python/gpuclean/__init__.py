"""gpuclean's Python side.

* gpuclean.core: ctypes binding over libgpuclean (Model, Interpreter, inspect, check,
  run, compare), numpy views, deterministic freeing, errors with the library's message;
* gpuclean.toolkit (also importable as litert_gpu_toolkit): check_gpu_compatibility,
  print_report — the seed's checker, static verdict always, real LiteRT runtime where
  installed;
* gpuclean.rewrites: the PyTorch rewrite catalogue (torch imported on use);
* gpuclean.convert: convert_for_gpu, the convert -> check -> rewrite -> verify loop;
* gpuclean.bisect_gpu: bisect_gpu_divergence, print_bisect_report — the first op the real
  GPU gets wrong (`gpuclean bisect --runtime`);
* gpuclean.demo: the built-in demonstration (python -m gpuclean.demo OUTDIR).
"""
from ._lib import GpucleanError
from .core import Interpreter, Model, check, compare, inspect, run

__version__ = "0.1.0"
__all__ = ["GpucleanError", "Model", "Interpreter", "inspect", "check", "run", "compare",
           "check_gpu_compatibility", "print_report", "convert_for_gpu", "format_report",
           "bisect_gpu_divergence", "print_bisect_report"]


def __getattr__(name):
    if name in ("check_gpu_compatibility", "print_report"):
        from . import toolkit
        return getattr(toolkit, name)
    if name in ("convert_for_gpu", "format_report"):
        from . import convert
        return getattr(convert, name)
    if name in ("bisect_gpu_divergence", "print_bisect_report"):
        from . import bisect_gpu
        return getattr(bisect_gpu, name)
    raise AttributeError("module 'gpuclean' has no attribute %r" % name)
