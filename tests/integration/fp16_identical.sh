#!/usr/bin/env bash
# fp16_identical.sh — two gpuclean builds give byte-identical `gpuclean run` outputs in
# the reduced-precision modes on the float corpus models (and fp32 as a control):
#   tests/integration/fp16_identical.sh OLD_GPUCLEAN NEW_GPUCLEAN [MODEL.tflite ...]
# Modes: fp16 (--gpu-runtime native), fp16 --gpu-runtime js, fp16-acc, fp32; inputs
# --pattern sin and --random 1; one thread, and 3 threads for the new build (its fast
# kernels split work over threads and must give the same bits). Default models: every
# corpus model (../shared/corpus, GPUCLEAN_CORPUS overrides) that the old build runs in
# fp16 (a model it cannot run is skipped on both). Exit 0 when every output file is
# identical, 1 with the differing ones listed, 2 on usage errors.
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: $0 OLD_GPUCLEAN NEW_GPUCLEAN [MODEL.tflite ...]" >&2; exit 2; }
old=$1; new=$2; shift 2
[ -x "$old" ] && [ -x "$new" ] || { echo "fp16_identical: $old or $new is not executable" >&2; exit 2; }
corpus=${GPUCLEAN_CORPUS:-../shared/corpus}
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  [ -d "$corpus" ] || { echo "fp16_identical: no corpus at $corpus: skipped"; exit 0; }
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
      if ! "$old" run "$f" --precision ${modes[$i]} ${inputs[$j]} --out "$tmp/a" >/dev/null 2>&1; then
        skipped=$((skipped + 1)); rm -rf "$tmp/a"; continue
      fi
      for th in 1 3; do
        # shellcheck disable=SC2086
        if ! "$new" run "$f" --precision ${modes[$i]} ${inputs[$j]} --threads $th --out "$tmp/b" >/dev/null 2>"$tmp/err"; then
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
echo "fp16_identical: $n output files compared over ${#models[@]} models, $bad different, $skipped runs skipped (the old build cannot run them)"
[ $bad -eq 0 ]
