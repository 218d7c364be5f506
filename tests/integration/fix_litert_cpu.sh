#!/usr/bin/env bash
# gpuclean fix on the real runtime: every corpus model (and the built-in demo) is fixed
# with `gpuclean fix`; where the fix rewrote something, the original and the fixed model
# run on LiteRT's CPU accelerator (LiteRT.js, sin input pattern; the native libLiteRt
# where LiteRT.js cannot feed the model) and their outputs must agree within
# rtol 1e-5 / atol 1e-6 — the real runtime's kernels, not gpuclean's interpreter, so
# folded constants (computed by the interpreter) may differ from XNNPACK's in the last
# bits; data-movement rewrites come out bit-identical. A fixed model that LiteRT refuses
# while the original runs is a failure. Models neither runtime runs are listed.
set -u
cd "$(dirname "$0")/../.."
gc=build/gpuclean
[ -x $gc ] || { echo "skip: $gc not built"; exit 77; }
$gc --help | grep -q '^  fix ' || { echo "skip: fix verb not built"; exit 77; }
[ -d runtime/litert/node_modules/@litertjs/core ] || { echo "skip: LiteRT.js not installed (tools/setup.sh)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
models=()
[ -x build/demo-model ] && build/demo-model "$tmp/demo.tflite" && models+=("$tmp/demo.tflite")
[ -d ../shared/corpus ] && models+=(../shared/corpus/*.tflite)
[ ${#models[@]} -gt 0 ] || { echo "skip: no models (../shared/corpus absent, demo-model not built)"; exit 77; }
ok=0; same=0; notrun=0; untouched=0; bad=0
run_cpu() {   # MODEL OUTDIR: prints the directory holding the CPU outputs, or nothing
  node runtime/litert/runner.mjs "$1" --accelerator cpu --pattern sin --runs 0 --timeout 120 --out "$2" >/dev/null 2>&1
  if ls "$2"/cpu/*.npy >/dev/null 2>&1; then echo "$2/cpu"; return; fi
  $gc litert "$1" --runtime native --accelerator cpu --pattern sin --out "$2.n" >/dev/null 2>&1
  ls "$2.n"/native/cpu/*.npy >/dev/null 2>&1 && echo "$2.n/native/cpu"
}
for m in "${models[@]}"; do
  n=$(basename "$m" .tflite)
  $gc fix "$m" -o "$tmp/$n.fixed.tflite" --json > "$tmp/$n.json"; rc=$?
  if [ $rc -gt 1 ]; then echo "FAIL $n: gpuclean fix exit $rc"; bad=$((bad+1)); continue; fi
  if grep -q '"changes": \[\]' "$tmp/$n.json"; then untouched=$((untouched+1)); continue; fi
  a=$(run_cpu "$m" "$tmp/$n.a"); b=$(run_cpu "$tmp/$n.fixed.tflite" "$tmp/$n.b")
  if [ -z "$a" ]; then
    [ -z "$b" ] || { echo "FAIL $n: only the fixed model ran"; bad=$((bad+1)); continue; }
    echo "not run by either runtime: $n"; notrun=$((notrun+1)); continue
  fi
  [ -n "$b" ] || { echo "FAIL $n: LiteRT runs the original but not the fixed model"; bad=$((bad+1)); continue; }
  if ! $gc compare "$b" "$a" --rtol 1e-5 --atol 1e-6 > "$tmp/$n.cmp"; then
    echo "FAIL $n: fixed vs original on LiteRT CPU:"; sed 's/^/    /' "$tmp/$n.cmp" | head -20; bad=$((bad+1)); continue
  fi
  identical=1
  for f in "$a"/*.npy; do cmp -s "$f" "$b/$(basename "$f")" || identical=0; done
  if [ $identical = 1 ]; then echo "ok   $n: fixed and original bit-identical on LiteRT CPU"; same=$((same+1));
  else echo "ok   $n: fixed and original within rtol 1e-5 / atol 1e-6 on LiteRT CPU"; fi
  ok=$((ok+1))
done
echo "fix on LiteRT CPU: $ok agree ($same bit-identical), $untouched untouched, $notrun not run by either runtime, $bad failed"
[ $bad = 0 ] && [ $ok -gt 0 ]
