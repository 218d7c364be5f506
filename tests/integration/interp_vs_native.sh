#!/usr/bin/env bash
# The reference interpreter against the native LiteRT CPU runtime (libLiteRt from the
# ai-edge-litert wheel) on the corpus models LiteRT.js cannot feed (int8 / bool inputs,
# int64 outputs), fed the same pattern bytes (one input generator, interp/inputs.c):
# quantized models bit-identical with --int-arith xnnpack (LiteRT's CPU kernels), float
# models within 1e-4 * max(1, max|ref|).
set -u
cd "$(dirname "$0")/../.."
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "skip: ../shared/corpus not found"; exit 77; }
[ -f build/litert-wheel/lib/libLiteRt.so ] || { echo "skip: native libLiteRt not installed (tools/setup.sh)"; exit 77; }
gc=build/gpuclean; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() {   # model rtol atol
  local n=$1 m=$corpus/$1.tflite
  $gc litert "$m" --runtime native --accelerator cpu --pattern sin --out "$tmp/$n.nat" >/dev/null 2>&1
  $gc run "$m" --pattern sin --int-arith xnnpack --out "$tmp/$n.itp" >/dev/null 2>&1 || { echo "FAIL $n: gpuclean run failed"; fail=1; return; }
  for f in "$tmp/$n.nat"/native/inputs/s0_input_*.npy; do
    k=${f##*_input_}; cmp -s "$f" "$tmp/$n.itp/input_$k" || { echo "FAIL $n: input $k differs"; fail=1; return; }
  done
  local out; out=$($gc compare "$tmp/$n.itp/output_0.npy" "$tmp/$n.nat/native/cpu/output_0.npy" --rtol "$2" --atol "$3")
  if [ $? = 0 ]; then echo "ok   $n: $(echo "$out" | head -1 | grep -o 'max_abs=[^ ]*')"; else echo "FAIL $n: $out"; fail=1; fi
}
check mobilenet_v2_quantized_1x3x224x224 0 0
check deeplabv3_mnv2_dm05_pascal_quant 0 0
# SSD with TFLite_Detection_PostProcess (uint8 scores: ties in the sorts; boxes as float)
check coco_ssd_mobilenet_v1_1.0_quant_2018_06_29 0 0
# float: atol 1e-4 (no looser than 1e-4 * max(1, max|ref|))
check torchaudio_conformer 0 1e-4
exit $fail
