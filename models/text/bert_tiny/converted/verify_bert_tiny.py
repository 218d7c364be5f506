#!/usr/bin/env python3
"""Verify OUT/bert_tiny.tflite against the reference dump OUT/ref: GPU residency (gpuclean
check), parity on gpuclean's interpreter at fp32 and at the GPU's fp16 precision, parity
on the real LiteRT CPU runtime -> OUT/verify.json; exit 0 when all pass. Runs alone
(after dump_bert_tiny_ref.py and export_bert_tiny.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipe  # noqa: E402
from gpuclean import zoo  # noqa: E402

if __name__ == "__main__":
    sys.exit(zoo.main_verify(recipe))
