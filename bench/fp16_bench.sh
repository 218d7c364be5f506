#!/usr/bin/env bash
# fp16_bench.sh — what the GPU fp16 emulation costs: `gpuclean run` at fp32, fp16 (native
# runtime: half-accumulating small convs, Winograd in half, F32_F16 fully connected),
# fp16 --gpu-runtime js (half storage only) and fp16-acc (every multiply-add rounded),
# in the same run, interleaved, same inputs (--pattern sin), one thread.
#   bench/fp16_bench.sh [--runs N] [--rounds R] [--before OLD_GPUCLEAN] [MODEL.tflite ...]
#   (GPUCLEAN_BIN: the binary measured, default build/gpuclean)
# Default models: the zoo's ResNet-18 and MobileNetV3-Small exports (build/zoo, from
# `make zoo` or tools/zoo.py) and the corpus's deeplabv3 and mobilenet_v1_0.25_224
# when present. Each round runs every mode once (N invokes after a warm-up invoke), so
# the modes interleave (with --before, the two binaries too, mode by mode); the table has
# the median over the rounds of each mode's mean invoke, the ratios to fp32 (target for
# fp16: <= 2), with --before each cell as "before -> after", and the load average before
# and after (the machine may be shared). F16C: whether the CPU has it (the rounding then
# goes through vcvtps2ph / vcvtph2ps, else the scalar code).
set -u
cd "$(dirname "$0")/.."
runs=5; rounds=5; models=(); before=
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --before) before=$2; shift ;;
    *) models+=("$1") ;;
  esac
  shift
done
bin=${GPUCLEAN_BIN:-build/gpuclean}
[ -x "$bin" ] || { echo "fp16_bench: $bin missing (make)" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "fp16_bench: $before is not executable" >&2; exit 2; }
corpus=${GPUCLEAN_CORPUS:-../shared/corpus}
if [ ${#models[@]} -eq 0 ]; then
  for m in build/zoo/vision/resnet18/resnet18.tflite build/zoo/vision/mobilenet_v3_small/mobilenet_v3_small.tflite \
           "$corpus/deeplabv3.tflite" "$corpus/mobilenet_v1_0.25_224_1_default_1.tflite"; do
    [ -f "$m" ] && models+=("$m")
  done
fi
[ ${#models[@]} -gt 0 ] || { echo "fp16_bench: no models (make zoo, or name .tflite files)"; exit 0; }
f16c=no; grep -qw f16c /proc/cpuinfo 2>/dev/null && f16c=yes
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
modes=("fp32" "fp16" "fp16 --gpu-runtime js" "fp16-acc")
bins=("$bin"); [ -n "$before" ] && bins=("$before" "$bin")
echo "F16C: $f16c; $runs invokes per mode and round, median of $rounds rounds; load before: $(cut -d" " -f1-3 /proc/loadavg)"
[ -n "$before" ] && echo "cells: $before -> $bin"
printf '| model | fp32 ms | fp16 native ms | fp16 js ms | fp16-acc ms | native / fp32 | js / fp32 | fp16-acc / fp32 |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for f in "${models[@]}"; do
  declare -A all=()
  for ((r = 0; r < rounds; r++)); do
    for i in "${!modes[@]}"; do
      for j in "${!bins[@]}"; do
        # shellcheck disable=SC2086
        if ! "${bins[$j]}" run "$f" --precision ${modes[$i]} --runs "$runs" --out "$tmp/o" >/dev/null 2>"$tmp/err"; then
          echo "fp16_bench: $f (${modes[$i]}, ${bins[$j]}): $(head -c 300 "$tmp/err")" >&2; continue 4
        fi
        ms=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['timings_ms']['avg_invoke'])" "$tmp/o/manifest.json")
        all[$j,$i]="${all[$j,$i]:-} $ms"
      done
    done
  done
  cols=()
  for j in "${!bins[@]}"; do for i in "${!modes[@]}"; do cols+=("${all[$j,$i]}"); done; done
  python3 - "$(basename "$f" .tflite)" "${#bins[@]}" "${cols[@]}" <<'PY'
import statistics, sys
name, nb = sys.argv[1], int(sys.argv[2])
med = [statistics.median(float(v) for v in c.split()) for c in sys.argv[3:]]
per = [med[k * 4:(k + 1) * 4] for k in range(nb)]
def ratio(b, i): return "%.2f" % (b[i] / b[0]) if b[0] > 0 else "-"
cell = lambda f: " -> ".join(f(b) for b in per)
ms = [cell(lambda b, i=i: "%.2f" % b[i]) for i in range(4)]
rs = [cell(lambda b, i=i: ratio(b, i)) for i in range(1, 4)]
print("| %s | %s |" % (name, " | ".join(ms + rs)))
PY
  unset all
done
echo "load after: $(cut -d" " -f1-3 /proc/loadavg)"
