#!/usr/bin/env bash
# zoo_small.sh — a few small model recipes end to end, exactly as `make zoo` runs them
# (dump_*_ref.py, export_*.py, verify_*.py as separate processes): torchvision
# MobileNetV3-Small, a BERT encoder (google/bert_uncased_L-2_H-128_A-2's config) and a
# reduced Llama GQA decoder, random init. Each must come out GPU-clean on the checker and
# match PyTorch on gpuclean's interpreter (fp32 and the GPU's fp16) and on the native
# LiteRT CPU. Exit 0 pass, 77 skip (with the reason), else fail.
set -u
cd "$(dirname "$0")/../.."
py=.venv/bin/python
[ -x "$py" ] || { echo "SKIP: no project venv .venv (tools/setup.sh)"; exit 77; }
"$py" -c "import torch, litert_torch, torchvision, transformers" 2>/dev/null \
  || { echo "SKIP: torch / litert-torch / torchvision / transformers not installed (python/install-torch.sh)"; exit 77; }
[ -x build/gpuclean ] && [ -f build/libgpuclean.so ] || { echo "SKIP: build/gpuclean not built (make)"; exit 77; }
"$py" tools/zoo.py ${ZOO_SMALL:-mobilenet_v3_small bert_tiny llama_gqa}
