"""The seed's `litert_gpu_toolkit.checker` (with open PR #307's bisect and command line),
implemented by gpuclean.toolkit. Runnable as `python -m litert_gpu_toolkit.checker MODEL
[--bisect] [--enforce-f32] ...` or, as PR #307 spells it, `python checker.py MODEL ...`."""
import os
import sys

if __package__ in (None, ""):                 # run as a file: python .../checker.py MODEL
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gpuclean.toolkit import (bisect_gpu_divergence, check_gpu_compatibility,  # noqa: E402
                              format_bisect_report, format_report, main, print_bisect_report,
                              print_report, random_inputs, static_check)

__all__ = ["check_gpu_compatibility", "print_report", "bisect_gpu_divergence", "print_bisect_report",
           "format_report", "format_bisect_report", "random_inputs", "static_check", "main"]

_main = main                                   # PR #307's name for the entry point

if __name__ == "__main__":
    sys.exit(main())
