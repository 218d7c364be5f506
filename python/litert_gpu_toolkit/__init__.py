"""The seed's `litert_gpu_toolkit` API, implemented by gpuclean.

    from litert_gpu_toolkit import check_gpu_compatibility, print_report
    print_report(check_gpu_compatibility("model.tflite"))

The checker needs only numpy (plus the gpuclean library and CLI); the PyTorch rewrites
and convert_for_gpu import torch on first use.
"""
from gpuclean.toolkit import check_gpu_compatibility, print_report, random_inputs, static_check

__all__ = ["check_gpu_compatibility", "print_report", "convert_for_gpu", "apply_all_patches",
           "random_inputs", "static_check"]

_TORCH_NAMES = {
    # seed name -> gpuclean.rewrites name
    "ZeroStuffConvT1d": "ZeroStuffConvT1d", "ZeroStuffConvT2d": "ZeroStuffConvT2d",
    "ZeroPadMaxPool": "ZeroPadMaxPool", "SafeInstanceNorm2d": "SafeInstanceNorm2d",
    "hierarchical_mean": "hierarchical_mean", "patch_conv_transpose": "patch_conv_transpose",
    "patch_grid_sample": "patch_grid_sample", "patch_instance_norm": "patch_instance_norm",
    "patch_maxpool_zeropad": "patch_maxpool_zeropad", "patch_rmsnorm": "patch_rmsnorm",
    "patch_safe_layernorm": "patch_safe_layernorm",
    "pixelshuffle_to_conv_transpose": "pixelshuffle_to_conv_transpose",
    "patch_window_attention": "patch_window_attention", "patch_patch_merging": "patch_patch_merging",
    "patch_einops": "patch_einops", "patch_interpolate": "patch_interpolate",
    "safe_rms": "safe_rms_norm",
}
__all__ += list(_TORCH_NAMES)


def __getattr__(name):
    if name in ("convert_for_gpu", "apply_all_patches"):
        from gpuclean import convert
        return getattr(convert, name)
    if name in _TORCH_NAMES:
        from gpuclean import rewrites
        return getattr(rewrites, _TORCH_NAMES[name])
    raise AttributeError("module 'litert_gpu_toolkit' has no attribute %r" % name)
