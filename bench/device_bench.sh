#!/usr/bin/env bash
# device_bench.sh — `make bench` (bench/interp_vs_native) on another x86-64 machine, e.g. the lent
# GPU machine's host CPU, which is quiet where this one is shared: ours and native LiteRT CPU
# (XNNPACK) in the same run on that machine, as ratios, as everywhere in bench/.
#
#   bench/device_bench.sh pack [--dest DIR] [MODEL.tflite ...]     here (default DIR .device-bench)
#   bench/device_bench.sh run  [--dest DIR] [-- interp_vs_native options]   there; writes $OUT/
#
# pack: build/interp_vs_native and libLiteRt.so (build/litert-wheel/lib, with VERSION) xz'd into
#   DIR, and the models into DIR/models (xz'd). Default models: every ../shared/corpus/*.tflite
#   and the zoo's finals as twins from build/zoo-device/<model>__final__twin.tflite (same graph,
#   regenerated float weights: the arithmetic and so the timing is the same; ../shared/tools/
#   device/twin.py), named <model>.tflite. Carry DIR (the device tool's `carry`).
# run: unpacks under ${BENCH_WORK:-/tmp/gc-device-bench}, then runs interp_vs_native over every
#   model in DIR/models with GPUCLEAN_LITERT_LIB set; the table goes to $OUT/bench.md (machine,
#   lscpu and the runtime version above it) and the timings to $OUT/bench.json.
#   Default interp_vs_native options: --runs 9 --threads 2 --int-arith both.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}; shift || true
dest=.device-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --dest) dest=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
xzl=${XZ_LEVEL:-6}
case "$mode" in
pack)
  [ -x build/interp_vs_native ] || { echo "device_bench.sh: build/interp_vs_native missing (make build/interp_vs_native)" >&2; exit 2; }
  lib=build/litert-wheel/lib
  [ -f $lib/libLiteRt.so ] || { echo "device_bench.sh: $lib/libLiteRt.so missing (runtime/litert/setup.sh)" >&2; exit 2; }
  rm -rf "$dest"; mkdir -p "$dest/models"
  xz -$xzl -c build/interp_vs_native > "$dest/interp_vs_native.xz"
  tar cf - -C $lib libLiteRt.so VERSION | xz -$xzl > "$dest/native.tar.xz"
  models=("$@")
  if [ ${#models[@]} -eq 0 ]; then
    for m in ../shared/corpus/*.tflite; do [ -f "$m" ] && models+=("$m"); done
    for t in build/zoo-device/*__final__twin.tflite; do [ -f "$t" ] && models+=("$t"); done
  fi
  for m in "${models[@]}"; do
    b=$(basename "$m" .tflite); b=${b%__final__twin}
    xz -$xzl -c "$m" > "$dest/models/$b.tflite.xz"
  done
  echo "device_bench.sh: packed ${#models[@]} models into $dest ($(du -sh "$dest" | cut -f1))"
  ;;
run)
  : "${OUT:?device_bench.sh run: OUT must name the output folder}"
  W=${BENCH_WORK:-/tmp/gc-device-bench}
  rm -rf "$W"; mkdir -p "$W/lib" "$W/models" "$OUT"
  xz -dc "$dest/interp_vs_native.xz" > "$W/interp_vs_native"; chmod +x "$W/interp_vs_native"
  (cd "$W/lib" && xz -dc "$OLDPWD/$dest/native.tar.xz" | tar xf -)
  for f in "$dest"/models/*.tflite.xz; do xz -dc "$f" > "$W/models/$(basename "$f" .xz)"; done
  opts=("$@"); [ ${#opts[@]} -gt 0 ] || opts=(--runs 9 --threads 2 --int-arith both)
  {
    echo "# bench/device_bench.sh run on $(hostname), $(date -u +%FT%TZ)"
    echo
    echo "native LiteRT: $(cat "$W/lib/VERSION" 2>/dev/null || echo '?'); options: ${opts[*]}"
    echo
    echo '```'
    lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket)'
    echo "vector flags: $(grep -o -w -E 'avx2|fma|f16c|avx512[a-z_0-9]*|amx[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
    echo "load at start: $(cat /proc/loadavg)"
    echo '```'
    echo
    GPUCLEAN_LITERT_LIB=$W/lib/libLiteRt.so "$W/interp_vs_native" "${opts[@]}" --json "$OUT/bench.json" "$W"/models/*.tflite
    echo
    echo "load at end: $(cat /proc/loadavg)"
  } > "$OUT/bench.md" 2> "$OUT/bench.stderr"
  tail -n 60 "$OUT/bench.md"
  ;;
*) echo "usage: bench/device_bench.sh pack|run [--dest DIR] ..." >&2; exit 2 ;;
esac
