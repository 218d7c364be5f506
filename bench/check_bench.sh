#!/usr/bin/env bash
# check_bench.sh — how long `gpuclean check` takes: the whole corpus (target < 0.5 s in
# all) and, when given, one big model (target < 0.2 s for >= 2.5 GB).
#   bench/check_bench.sh [BIG_MODEL.tflite]
# Each figure is the best of 5 runs of the whole loop (wall clock, one process per model,
# text and JSON output discarded), so disk caches are warm after the first.
set -u
cd "$(dirname "$0")/.."
BIN=${GPUCLEAN:-build/gpuclean}
CORPUS=${GPUCLEAN_CORPUS:-../shared/corpus}
[ -x "$BIN" ] || { echo "build $BIN first (make build/gpuclean)"; exit 2; }
now() { date +%s.%N; }
best() {   # best of 5 wall-clock runs of "$@"
  local b=999 t0 t1 d
  for _ in 1 2 3 4 5; do
    t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    b=$(echo "if ($d < $b) $d else $b" | bc -l)
  done
  printf '%.3f' "$b"
}
corpus_all() {
  for f in "$CORPUS"/*.tflite; do "$BIN" check "$f"; "$BIN" check --json --target classic "$f"; done
}
corpus_text() { for f in "$CORPUS"/*.tflite; do "$BIN" check "$f"; done; }
if [ -d "$CORPUS" ]; then
  n=$(ls "$CORPUS"/*.tflite | wc -l)
  mb=$(du -cm "$CORPUS"/*.tflite | tail -1 | cut -f1)
  echo "corpus: $n models, ${mb} MB"
  echo "  check (text, mldrift), all models:            $(best corpus_text) s   (target < 0.5 s)"
  echo "  check text mldrift + JSON classic, all models: $(best corpus_all) s"
  for f in dp_net.tflite torchaudio_conformer.tflite; do
    [ -f "$CORPUS/$f" ] && echo "  $f: $(best "$BIN" check --json "$CORPUS/$f") s"
  done
fi
if [ $# -ge 1 ]; then
  sz=$(du -m "$1" | cut -f1)
  echo "big model $1 (${sz} MB): $(best "$BIN" check "$1") s   (target < 0.2 s for >= 2.5 GB)"
fi
