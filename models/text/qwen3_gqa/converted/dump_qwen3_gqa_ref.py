#!/usr/bin/env python3
"""Reference dump of qwen3_gqa from the source PyTorch model: OUT/ref/input_<k>.npy,
OUT/ref/output_<k>.npy, OUT/ref/meta.json (OUT: build/zoo/text/qwen3_gqa, --out DIR).
Random init (seed 0) unless --weights PATH. Runs alone."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipe  # noqa: E402
from gpuclean import zoo  # noqa: E402

if __name__ == "__main__":
    sys.exit(zoo.main_dump(recipe))
