#!/usr/bin/env bash
# interp_bench.sh — fp32 latency of gpuclean's reference interpreter (`gpuclean run`)
# next to LiteRT.js's CPU accelerator (XNNPACK in WebAssembly, runtime/litert/runner.mjs)
# on the same machine in the same run, same inputs (--pattern sin), plus memory.
#   bench/interp_bench.sh [--runs N] [--precision fp32|fp16|fp16-acc] [MODEL.tflite ...]
# Default models: the float-input corpus models LiteRT.js can run. Prints a Markdown
# table: mean latency of N invokes after a first (warm-up) one, the ratio ours / LiteRT.js
# (target <= 3), the planned activation arena, the no-reuse sum of activations, and the
# process's peak RSS (includes the mapped model file and derived weights).
# The interpreter is single-threaded; LiteRT.js runs its single-threaded wasm build here.
set -u
cd "$(dirname "$0")/.."
runs=10; prec=fp32; models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --precision) prec=$2; shift ;;
    *) models+=("$1") ;;
  esac
  shift
done
bin=build/gpuclean
corpus=${GPUCLEAN_CORPUS:-../shared/corpus}
[ -x "$bin" ] || { echo "interp_bench: $bin missing (make build/gpuclean)" >&2; exit 2; }
if [ ${#models[@]} -eq 0 ]; then
  for m in deeplabv3 mobilenet_v1_0.25_224_1_default_1 retinaface dp_net yamnet_audio_classifier_with_metadata \
           dilated_conv group_norm_2_groups_op movie_review movenet_single_pose_lightning_ptq qwen_fc_blockwise_quantized; do
    [ -f "$corpus/$m.tflite" ] && models+=("$corpus/$m.tflite")
  done
fi
have_js=0
[ -f runtime/litert/runner.mjs ] && [ -f runtime/litert/node_modules/@litertjs/core/package.json ] && command -v node >/dev/null && have_js=1
timecmd=""
[ -x /usr/bin/time ] && timecmd="/usr/bin/time -f %M"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
get() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null; }
ncpu=$(nproc 2>/dev/null || echo 1)
printf '| model | ours ms (%s, 1 thread) | ours ms (%s threads) | LiteRT.js CPU ms | ratio (1 thread) | arena MB | no-reuse MB | peak RSS MB |\n' "$prec" "$ncpu"
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for f in "${models[@]}"; do
  m=$(basename "$f" .tflite)
  if [ -n "$timecmd" ]; then
    $timecmd "$bin" run "$f" --precision "$prec" --runs $((runs + 1)) --out "$tmp/$m" > /dev/null 2> "$tmp/$m.err"; rc=$?
    rss=$(tail -1 "$tmp/$m.err")
  else
    "$bin" run "$f" --precision "$prec" --runs $((runs + 1)) --out "$tmp/$m" > /dev/null 2> "$tmp/$m.err"; rc=$?
    rss=""
  fi
  if [ $rc -ne 0 ]; then printf '| %s | error: %s | | | | | | |\n' "$m" "$(head -1 "$tmp/$m.err")"; continue; fi
  ours=$(get "$tmp/$m/manifest.json" "r['timings_ms']['avg_invoke']")
  "$bin" run "$f" --precision "$prec" --runs $((runs + 1)) --threads "$ncpu" --out "$tmp/${m}_mt" > /dev/null 2>&1
  ours_mt=$(get "$tmp/${m}_mt/manifest.json" "r['timings_ms']['avg_invoke']")
  arena=$(get "$tmp/$m/manifest.json" "round(r['memory']['arena_bytes']/1048576, 2)")
  naive=$(get "$tmp/$m/manifest.json" "round(r['memory']['naive_bytes']/1048576, 2)")
  js="n/a"; ratio="n/a"
  if [ $have_js -eq 1 ]; then
    node runtime/litert/runner.mjs "$f" --accelerator cpu --pattern sin --runs "$runs" --out "$tmp/js_$m" > /dev/null 2>&1
    js=$(get "$tmp/js_$m/result.json" "[x for x in r['modes'] if x['mode']=='cpu'][0]['signatures'][0]['avg_ms']")
    [ -n "$js" ] && [ "$js" != "None" ] && ratio=$(python3 -c "print(round($ours / $js, 2))") || js="n/a"
  fi
  [ -n "$rss" ] && rss=$(python3 -c "print(round($rss / 1024, 1))")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$m" "$ours" "${ours_mt:-n/a}" "$js" "$ratio" "$arena" "$naive" "${rss:-n/a}"
done
