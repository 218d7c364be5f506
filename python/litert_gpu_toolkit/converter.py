"""The seed's `litert_gpu_toolkit.converter.convert_for_gpu`, over gpuclean.convert."""
from __future__ import annotations

import logging
import os

log = logging.getLogger("litert_gpu_toolkit")

__all__ = ["convert_for_gpu", "ConvertedPath"]


class ConvertedPath(str):
    """The output path (a str, as the seed returned), carrying what gpuclean measured:
    `.report` (gpuclean.convert's report: ok, gpu_clean, parity, remedies) and `.check`
    (check_gpu_compatibility's result, None with check=False)."""
    report = None
    check = None


def convert_for_gpu(model, dummy_input, output_path="model.tflite", check=True, verbose=True, **kw):
    """Convert a PyTorch model to a .tflite for the LiteRT GPU accelerator; returns the
    path (a ConvertedPath: a str with .report and .check).

    The seed's call forms: convert_for_gpu(model, dummy_input, output_path, check=True,
    verbose=True), dummy_input= a tensor or a tuple of tensors. The model is set to eval()
    (as the seed did) but otherwise not modified: gpuclean.convert.convert_for_gpu converts
    it as it is, checks, runs `gpuclean fix`, applies only the PyTorch remedies the checker
    routes to (on a copy, each exact within its stated tolerance), re-converts and verifies
    against PyTorch (the seed applied apply_all_patches' math-changing set to the caller's
    model). check=True then runs check_gpu_compatibility on the written file (printed with
    print_report when verbose); a failed or unverified check logs a warning and does not
    raise, as the seed. Extra keywords go to gpuclean.convert.convert_for_gpu (max_rounds,
    remedies, runtime, target, fix, ...)."""
    from gpuclean.convert import convert_for_gpu as _convert
    from gpuclean.toolkit import check_gpu_compatibility, print_report
    model.eval()
    report = _convert(model, dummy_input, output_path, check=check, verbose=verbose, **kw)
    path = ConvertedPath(os.fspath(output_path))
    path.report = report
    if check:
        res = check_gpu_compatibility(path)
        path.check = res
        if verbose:
            print_report(res)
        if not res["compatible"]:
            log.warning("GPU verification %s. See the report above.",
                        "not possible here (no GPU ran): unverified" if res["status"] == "unverified"
                        else "failed")
    return path
