#!/usr/bin/env bash
# fp16_identical.sh — byte-identical `gpuclean run` outputs in the reduced-precision modes
# on the float corpus models (and fp32 as a control), either
#   tests/integration/fp16_identical.sh [MODEL.tflite ...]
#     the fast kernels of build/gpuclean against its reference loops (--reference-kernels), or
#   tests/integration/fp16_identical.sh OLD_GPUCLEAN NEW_GPUCLEAN [MODEL.tflite ...]
#     two builds (before / after a change), both with their default kernels.
# Modes: fp16 (--gpu-runtime native), fp16 --gpu-runtime js, fp16-acc, fp32; inputs
# --pattern sin and --random 1; one thread, and 3 threads for the new side (its fast
# kernels split work over threads and must give the same bits). Default models: every
# corpus model (../shared/corpus, GPUCLEAN_CORPUS overrides) that the old side runs (one
# it cannot run is skipped on both). Exit 0 when every output file is identical, 1 with
# the differing ones listed, 2 on usage errors, 77 without a corpus or a build.
set -u
cd "$(dirname "$0")/../.."
if [ $# -ge 2 ] && [ -x "$1" ] && [ -x "$2" ] && [ "${1%.tflite}" = "$1" ]; then
  old=("$1"); new=("$2"); shift 2
else
  [ -x build/gpuclean ] || { echo "fp16_identical: build/gpuclean missing (make): skipped"; exit 77; }
  old=(build/gpuclean --reference-kernels); new=(build/gpuclean)
fi
corpus=${GPUCLEAN_CORPUS:-../shared/corpus}
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  [ -d "$corpus" ] || { echo "fp16_identical: no corpus at $corpus: skipped"; exit 77; }
  models=("$corpus"/*.tflite)
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
modes=("fp16" "fp16 --gpu-runtime js" "fp16-acc" "fp32")
inputs=("--pattern sin" "--random 1")
n=0; bad=0; skipped=0
for f in "${models[@]}"; do
  name=$(basename "$f" .tflite)
  for i in "${!modes[@]}"; do
    for j in "${!inputs[@]}"; do
      # shellcheck disable=SC2086
      if ! "${old[0]}" run "$f" "${old[@]:1}" --precision ${modes[$i]} ${inputs[$j]} --out "$tmp/a" >/dev/null 2>&1; then
        skipped=$((skipped + 1)); rm -rf "$tmp/a"; continue
      fi
      for th in 1 3; do
        # shellcheck disable=SC2086
        if ! "${new[0]}" run "$f" "${new[@]:1}" --precision ${modes[$i]} ${inputs[$j]} --threads $th --out "$tmp/b" >/dev/null 2>"$tmp/err"; then
          echo "DIFF $name [${modes[$i]}] [${inputs[$j]}] threads $th: the new build failed: $(head -c 200 "$tmp/err")"
          bad=$((bad + 1)); continue
        fi
        for o in "$tmp"/a/output_*.npy; do
          n=$((n + 1))
          if ! cmp -s "$o" "$tmp/b/$(basename "$o")"; then
            echo "DIFF $name [${modes[$i]}] [${inputs[$j]}] threads $th: $(basename "$o")"
            bad=$((bad + 1))
          fi
        done
        rm -rf "$tmp/b"
      done
      rm -rf "$tmp/a"
    done
  done
done
echo "fp16_identical: ${old[*]} vs ${new[*]}: $n output files compared over ${#models[@]} models, $bad different, $skipped runs skipped (the old side cannot run them)"
[ $bad -eq 0 ]
