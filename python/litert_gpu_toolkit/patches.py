"""The seed's `litert_gpu_toolkit.patches`: every public rewrite, implemented by
gpuclean.toolkit_patches over gpuclean.rewrites (exact forms by default; the seed's
math-changing forms opt-in, with their measured error: see that module's docstring)."""
from gpuclean.toolkit_patches import *  # noqa: F401,F403
from gpuclean.toolkit_patches import __all__  # noqa: F401
