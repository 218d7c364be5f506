"""The seed's `litert_gpu_toolkit` (google-ai-edge/litert-samples utilities/litert_gpu_toolkit,
with open PR #307's bisect API), implemented by gpuclean. Same names, module paths, call
forms and return shapes:

    from litert_gpu_toolkit import check_gpu_compatibility, print_report
    print_report(check_gpu_compatibility("model.tflite"))

    from litert_gpu_toolkit import convert_for_gpu
    path = convert_for_gpu(model, dummy_input=torch.randn(1, 3, 224, 224), output_path="model.tflite")

Modules: litert_gpu_toolkit.checker (check_gpu_compatibility, print_report,
bisect_gpu_divergence, print_bisect_report; `python -m litert_gpu_toolkit.checker MODEL`),
litert_gpu_toolkit.patches (the PyTorch rewrites), litert_gpu_toolkit.converter
(convert_for_gpu). The checker needs only numpy (plus the gpuclean library and CLI); the
rewrites and convert_for_gpu import torch on first use. Where the seed's rewrites change
the model's math, the exact form is the default and the seed's is opt-in (python/README.md).
"""
from gpuclean.toolkit import (bisect_gpu_divergence, check_gpu_compatibility, print_bisect_report,
                              print_report)

# the seed's __all__ (19 names), then what PR #307 and gpuclean add at package level
__all__ = ["convert_for_gpu", "apply_all_patches", "check_gpu_compatibility", "SafeInstanceNorm2d",
           "SigmoidGELU", "TanhGELU", "ZeroPadMaxPool", "ZeroStuffConvT1d", "ZeroStuffConvT2d",
           "hierarchical_mean", "patch_conv_transpose", "patch_gelu", "patch_grid_sample",
           "patch_instance_norm", "patch_maxpool_zeropad", "patch_rmsnorm", "patch_safe_layernorm",
           "pixelshuffle_to_conv_transpose", "safe_rms",
           "print_report", "bisect_gpu_divergence", "print_bisect_report"]

_TORCH_NAMES = frozenset(__all__[1:2] + __all__[3:19])


def __getattr__(name):
    if name == "convert_for_gpu":
        from .converter import convert_for_gpu
        return convert_for_gpu
    if name in _TORCH_NAMES:
        from . import patches
        return getattr(patches, name)
    if name in ("random_inputs", "static_check", "format_report", "format_bisect_report"):
        from gpuclean import toolkit
        return getattr(toolkit, name)
    if name in ("patches", "converter", "checker"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'litert_gpu_toolkit' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(__all__) | {"patches", "converter", "checker"})
