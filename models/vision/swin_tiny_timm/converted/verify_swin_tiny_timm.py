#!/usr/bin/env python3
"""Verify OUT/swin_tiny_timm.tflite against the reference dump OUT/ref: GPU residency (gpuclean
check), parity on gpuclean's interpreter at fp32 and at the GPU's fp16 precision, parity
on the real LiteRT CPU runtime -> OUT/verify.json; exit 0 when all pass. Runs alone
(after dump_swin_tiny_timm_ref.py and export_swin_tiny_timm.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipe  # noqa: E402
from gpuclean import zoo  # noqa: E402

if __name__ == "__main__":
    sys.exit(zoo.main_verify(recipe))
