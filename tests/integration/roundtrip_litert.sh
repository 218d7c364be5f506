#!/usr/bin/env bash
# Round trip on the real runtime: every corpus model, re-serialized by `gpuclean edit`
# (read → IR → write), must give bit-identical outputs to the original on LiteRT's
# CPU accelerator (LiteRT.js, the sin input pattern). Models LiteRT.js itself cannot
# run (its own I/O dtype limits, unregistered custom ops) are listed, not failed —
# unless the original runs and the re-written file does not.
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
    why=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m=[x for x in d.get('modes',[]) if x.get('mode','').startswith('cpu')] or [{}]; print((m[0].get('error') or m[0].get('runtime_limit') or '?')[:100])" "$tmp/$n.a/result.json" 2>/dev/null)
    echo "not run by LiteRT.js: $n (${why:-?})"; notrun=$((notrun+1))
    [ "$b" = 0 ] || { echo "FAIL $n: only the re-written model ran"; bad=$((bad+1)); }
    continue
  fi
  if [ "$a" != "$b" ]; then echo "FAIL $n: $a vs $b outputs"; bad=$((bad+1)); continue; fi
  ok=1
  for f in "$tmp/$n.a"/cpu/*.npy; do cmp -s "$f" "$tmp/$n.b/cpu/$(basename "$f")" || ok=0; done
  if [ $ok = 1 ]; then echo "ok   $n: $a output(s) bit-identical"; same=$((same+1));
  else echo "FAIL $n: outputs differ"; bad=$((bad+1)); fi
done
echo "round trip on LiteRT.js CPU: $same bit-identical, $notrun not run by LiteRT.js, $bad failed"
[ $bad = 0 ] && [ $same -gt 0 ]
