#!/usr/bin/env python3
"""Export regnet_y_400mf for the LiteRT GPU accelerator: gpuclean's convert_for_gpu (plain
conversion, check, rewrites, re-conversion, .tflite fixes, verification) ->
OUT/regnet_y_400mf.tflite, OUT/regnet_y_400mf.plain.tflite, OUT/export.json (OUT: build/zoo/vision/regnet_y_400mf).
Random init (seed 0) unless --weights PATH. Runs alone."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipe  # noqa: E402
from gpuclean import zoo  # noqa: E402

if __name__ == "__main__":
    sys.exit(zoo.main_export(recipe))
