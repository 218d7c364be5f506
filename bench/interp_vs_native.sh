#!/usr/bin/env bash
# interp_vs_native.sh — `make bench`: gpuclean's interpreter against the native LiteRT CPU
# runtime, one Markdown table for every model (build/interp_vs_native, bench/interp_vs_native.c,
# says how it measures), with the machine and runtime above it.
#   bench/interp_vs_native.sh [--runs N] [--warmup W] [--threads N] [--timeout S] [--json FILE]
#                             [--int-arith tflite|xnnpack|both] [MODEL.tflite ...]
# --int-arith defaults to both here: ours in TFLite order, and the quantized models once more at
# 1 thread in XNNPACK order (native's own rescaling), each ratio in its own column.
# Default models: every model of $GPUCLEAN_CORPUS (../shared/corpus), then the zoo's final
# exports $GPUCLEAN_ZOO/<family>/<model>/<model>.tflite (build/zoo; skipped when absent).
# Needs only bash and the built binaries (no Python), so it runs on a bare machine too.
set -u
cd "$(dirname "$0")/.."
bin=build/interp_vs_native
[ -x "$bin" ] || { echo "interp_vs_native.sh: $bin missing (make build/interp_vs_native)" >&2; exit 2; }
opts=(); models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs|--warmup|--threads|--timeout|--json|--peak-trials|--int-arith|--float-arith)
      [ $# -ge 2 ] || { echo "interp_vs_native.sh: $1 needs a value" >&2; exit 2; }
      opts+=("$1" "$2"); shift ;;
    -*) echo "interp_vs_native.sh: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1") ;;
  esac
  shift
done
case " ${opts[*]-} " in *" --int-arith "*) ;; *) opts+=(--int-arith both) ;; esac
corpus=${GPUCLEAN_CORPUS:-../shared/corpus}
zoo=${GPUCLEAN_ZOO:-build/zoo}
notes=()
if [ ${#models[@]} -eq 0 ]; then
  if [ -d "$corpus" ]; then
    for m in "$corpus"/*.tflite; do [ -f "$m" ] && models+=("$m"); done
  else notes+=("corpus $corpus not found (set GPUCLEAN_CORPUS): its models are not in the table"); fi
  if [ -d "$zoo" ]; then
    for d in "$zoo"/*/*/; do
      m="$d$(basename "$d").tflite"
      [ -f "$m" ] && models+=("$m")
    done
  else notes+=("zoo $zoo not found (make zoo, or set GPUCLEAN_ZOO): no zoo models in the table"); fi
fi
if [ ${#models[@]} -eq 0 ]; then
  for n in "${notes[@]}"; do echo "bench: $n"; done
  echo "bench: no models to run"; exit 0
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
have=""
for f in avx2 fma f16c avx512f avx512bw avx512vl avx512_vnni avx512_bf16 amx_tile; do
  case " $flags " in *" $f "*) have="$have $f" ;; esac
done
lib=${GPUCLEAN_LITERT_LIB:-build/litert-wheel/lib/libLiteRt.so}
ver=$(cat "$(dirname "$lib")/VERSION" 2>/dev/null || echo unknown)
echo "## gpuclean interpreter vs native LiteRT CPU"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); gpuclean $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
echo "- machine: ${cpu:-unknown CPU}, $(nproc 2>/dev/null || echo '?') core(s) usable;${have:- no SIMD flags found}"
echo "- native: libLiteRt.so $ver (ai-edge-litert wheel, XNNPACK CPU accelerator), $lib"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
for n in "${notes[@]}"; do echo "- note: $n"; done
echo
"$bin" "${opts[@]}" "${models[@]}"
rc=$?
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
exit $rc
