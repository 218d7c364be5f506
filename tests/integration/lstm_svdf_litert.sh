#!/usr/bin/env bash
# Integer LSTM (8x8_16 variants) and SVDF (float / int8 / hybrid) one-op models, and the
# corpus's dtln / keyword_scrambled with their LSTM / SVDF outputs exposed, step by step
# with state against ai-edge-litert's Interpreter (TFLite's builtin kernels): integer
# outputs bit-identical at every step, float within 1e-5 relative.
set -u
cd "$(dirname "$0")/../.."
[ -x .venv/bin/python ] || { echo "skip: .venv not set up (tools/setup.sh)"; exit 77; }
[ -f build/libgpuclean.so ] || { echo "skip: build/libgpuclean.so not built (make lib)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
.venv/bin/python tests/interp/lstm_svdf_litert.py "$tmp" --steps 6 2>&1 | grep -v '^INFO:\|^WARNING:'
exit "${PIPESTATUS[0]}"
