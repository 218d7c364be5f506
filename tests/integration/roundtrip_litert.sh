#!/usr/bin/env bash
# Round trip on the real runtime: every corpus model, re-serialized by `gpuclean edit`
# (read → IR → write), must give bit-identical outputs to the original on LiteRT's
# CPU accelerator (LiteRT.js, the sin input pattern; the native libLiteRt where
# LiteRT.js cannot feed the model). Models neither runtime runs (unregistered custom
# ops, variable tensors) are listed, not failed — unless the original runs and the
# re-written file does not.
set -u
cd "$(dirname "$0")/../.."
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "skip: ../shared/corpus not found"; exit 77; }
[ -d runtime/litert/node_modules/@litertjs/core ] || { echo "skip: LiteRT.js not installed (tools/setup.sh)"; exit 77; }
gc=build/gpuclean
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
same=0; notrun=0; bad=0
for m in "$corpus"/*.tflite; do
  n=$(basename "$m" .tflite)
  $gc edit "$m" -o "$tmp/$n.rt.tflite" || { echo "FAIL $n: edit failed"; bad=$((bad+1)); continue; }
  node runtime/litert/runner.mjs "$m" --accelerator cpu --pattern sin --runs 0 --timeout 120 --out "$tmp/$n.a" >/dev/null 2>&1
  node runtime/litert/runner.mjs "$tmp/$n.rt.tflite" --accelerator cpu --pattern sin --runs 0 --timeout 120 --out "$tmp/$n.b" >/dev/null 2>&1
  a=$(ls "$tmp/$n.a"/cpu/*.npy 2>/dev/null | wc -l); b=$(ls "$tmp/$n.b"/cpu/*.npy 2>/dev/null | wc -l)
  if [ "$a" = 0 ]; then
    [ "$b" = 0 ] || { echo "FAIL $n: only the re-written model ran"; bad=$((bad+1)); continue; }
    # LiteRT.js cannot feed this model (int8/int16/bool/int64 I/O...): the native
    # libLiteRt from the ai-edge-litert wheel can
    $gc litert "$m" --runtime native --accelerator cpu --pattern sin --out "$tmp/$n.na" >/dev/null 2>&1
    $gc litert "$tmp/$n.rt.tflite" --runtime native --accelerator cpu --pattern sin --out "$tmp/$n.nb" >/dev/null 2>&1
    a=$(ls "$tmp/$n.na"/native/cpu/*.npy 2>/dev/null | wc -l); b=$(ls "$tmp/$n.nb"/native/cpu/*.npy 2>/dev/null | wc -l)
    if [ "$a" = 0 ]; then
      [ "$b" = 0 ] || { echo "FAIL $n: only the re-written model ran (native)"; bad=$((bad+1)); continue; }
      echo "not run by either runtime: $n"; notrun=$((notrun+1)); continue
    fi
    if [ "$a" != "$b" ]; then echo "FAIL $n: $a vs $b outputs (native)"; bad=$((bad+1)); continue; fi
    ok=1
    for f in "$tmp/$n.na"/native/cpu/*.npy; do cmp -s "$f" "$tmp/$n.nb/native/cpu/$(basename "$f")" || ok=0; done
    if [ $ok = 1 ]; then echo "ok   $n: $a output(s) bit-identical (native libLiteRt)"; same=$((same+1));
    else echo "FAIL $n: outputs differ (native)"; bad=$((bad+1)); fi
    continue
  fi
  if [ "$a" != "$b" ]; then echo "FAIL $n: $a vs $b outputs"; bad=$((bad+1)); continue; fi
  ok=1
  for f in "$tmp/$n.a"/cpu/*.npy; do cmp -s "$f" "$tmp/$n.b/cpu/$(basename "$f")" || ok=0; done
  if [ $ok = 1 ]; then echo "ok   $n: $a output(s) bit-identical"; same=$((same+1));
  else echo "FAIL $n: outputs differ"; bad=$((bad+1)); fi
done
echo "round trip on LiteRT CPU: $same bit-identical, $notrun not run by either runtime, $bad failed"
[ $bad = 0 ] && [ $same -gt 0 ]
