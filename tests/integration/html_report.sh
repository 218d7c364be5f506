#!/usr/bin/env bash
# html_report.sh — `--html OUT.html` of check, bisect, verify and litert, opened in
# headless Chromium (Debian's chromium, installed by tools/setup.sh): the page loads
# without errors, its script finishes, a screenshot is not blank, the DOM holds every
# rejected node's reason (against `check --json`), a click on a rejected node shows its
# op, reason, rule, fix and tensors, nothing from a hostile model name escapes the markup
# (tests/integration/html_check.py does the page checks). Models: one built here whose
# tensor, subgraph and custom-op names are markup (html_models.c), the demo model after
# `gpuclean fix`, and from ../shared/corpus a model with rejected nodes and the largest
# one (2338 nodes: the layout must stay fast). Also: exit codes are the same with and
# without --html, outputs are written atomically, bad outputs exit 2.
# Exit 0 pass, 77 skip (with the reason), else fail.
set -u
cd "$(dirname "$0")/../.."
bin=build/gpuclean
corpus=../shared/corpus
[ -x "$bin" ] || { echo "SKIP: $bin not built"; exit 77; }
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "SKIP: chromium not installed (tools/setup.sh installs Debian's chromium package; apt-get install chromium)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
ok() { echo "ok: $*"; }
page() { python3 tests/integration/html_check.py "$chrome" "$@" || fails=$((fails+1)); }

# check MODEL NAME [page options]: exit code as without --html, the page checks
check_model() {
  local m=$1 name=$2; shift 2
  "$bin" check "$m" > "$tmp/$name.txt" 2>&1; local rc0=$?
  "$bin" check "$m" --json --html "$tmp/$name.html" --model-explorer "$tmp/$name.me.json" > "$tmp/$name.json" 2> "$tmp/$name.err"
  local rc=$?
  [ $rc -eq $rc0 ] && ok "check $name: exit $rc with and without --html" || fail "check $name: exit $rc with --html, $rc0 without"
  [ -s "$tmp/$name.html" ] && [ -s "$tmp/$name.me.json" ] || { fail "check $name: no report written"; return; }
  page "$tmp/$name.html" "$tmp/$name.json" "$@"
}

# 1. the hostile-named model
cc -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -o "$tmp/html_models" tests/integration/html_models.c tests/c/test_check_cases.c \
   build/libgpuclean.a -lm -lpthread -ldl || { fail "html_models.c does not build"; exit 1; }
"$tmp/html_models" "$tmp" || { fail "html_models could not write its model"; exit 1; }
check_model "$tmp/hostile.tflite" hostile --small
grep -q '\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e' "$tmp/hostile.html" \
  && ok "hostile names sit in the data block as \\u003c...\\u003e" || fail "hostile name not escaped in the data block"
[ "$(grep -o '</script>' "$tmp/hostile.html" | wc -l)" -eq 2 ] && ok "exactly two </script> in the hostile report" \
  || fail "the hostile report has $(grep -o '</script>' "$tmp/hostile.html" | wc -l) </script>"

# 2. the demo model, fixed
[ -x build/demo-model ] || make -s build/demo-model >/dev/null 2>&1
if [ -x build/demo-model ]; then
  build/demo-model "$tmp/demo.tflite" >/dev/null && "$bin" fix "$tmp/demo.tflite" -o "$tmp/fixed.tflite" >/dev/null 2>&1
  check_model "$tmp/demo.tflite" demo --small
  check_model "$tmp/fixed.tflite" fixed --small
  # bisect: fp32 vs fp16 along the graph
  "$bin" bisect "$tmp/fixed.tflite" --quiet > /dev/null 2>&1; rc0=$?
  "$bin" bisect "$tmp/fixed.tflite" --quiet --html "$tmp/bisect.html" --model-explorer "$tmp/bisect.me.json" > /dev/null 2>&1; rc=$?
  [ $rc -eq $rc0 ] && ok "bisect: exit $rc with and without --html" || fail "bisect: exit $rc with --html, $rc0 without"
  [ "$(grep -c '<figure class="plot">' "$tmp/bisect.html")" -eq 3 ] && ok "bisect report has the three error plots" \
    || fail "bisect report lacks its plots"
  page "$tmp/bisect.html" "$tmp/fixed.json" --series
  # verify against a dumped reference (fp64 tensors of the same model): per-output table,
  # per-node errors from the reference tensors
  "$bin" run "$tmp/fixed.tflite" --precision fp64 --dump-all --out "$tmp/ref" > /dev/null 2>&1
  "$bin" verify "$tmp/fixed.tflite" --ref "$tmp/ref" --precision both > /dev/null 2>&1; rc0=$?
  "$bin" verify "$tmp/fixed.tflite" --ref "$tmp/ref" --precision both --html "$tmp/verify.html" > /dev/null 2>&1; rc=$?
  [ $rc -eq $rc0 ] && ok "verify: exit $rc with and without --html" || fail "verify: exit $rc with --html, $rc0 without"
  grep -q 'Outputs against the source model' "$tmp/verify.html" && grep -q 'Per-node error: reference' "$tmp/verify.html" \
    && ok "verify report: the output table and the per-node errors against the reference tensors" \
    || fail "verify report lacks the output table or the per-node errors"
  page "$tmp/verify.html" "$tmp/fixed.json" --series
else
  echo "note: build/demo-model not built: the demo-model reports are skipped"
fi

# 3. the GPU bisect's probes (through its test seam: the interpreter at fp16 stands in
#    for the GPU against the native runtime's CPU) on a model that overflows at a known op
if [ -f build/litert-wheel/lib/libLiteRt.so ] && make -s build/gpu-bisect-models >/dev/null 2>&1; then
  build/gpu-bisect-models "$tmp/gb" > "$tmp/gb.tsv"
  want=$(awk -F'\t' '$1 ~ /overflow_chain.tflite$/ { sub("op ", "", $2); print $2 }' "$tmp/gb.tsv")
  TMPDIR=$tmp "$bin" bisect "$tmp/gb/overflow_chain.tflite" --runtime native --precision fp16 --gpu-side interp --no-progress \
    --quiet --html "$tmp/gpubisect.html" --model-explorer "$tmp/gpubisect.me.json" > /dev/null 2>&1; rc=$?
  [ $rc -eq 1 ] && grep -q "id=\"gc-first-divergent\">First divergent: node <a class=\"nk\" href=\"#gc-graph\" data-k=\"$want\">$want</a>" "$tmp/gpubisect.html" \
    && ok "GPU bisect (seam): the report marks op $want first divergent" || fail "GPU bisect (seam) report (exit $rc)"
  # the op's fp16 output is +inf on both runtimes (docs/fp16-model.md): non-finite, black in the overlay
  grep -q "\"$want\": {\"value\": \"nonfinite\", \"bgColor\": \"#000000\"}" "$tmp/gpubisect.me.json" && ok "GPU bisect overlay: op $want black (non-finite)" \
    || fail "GPU bisect overlay lacks op $want as non-finite: $(grep "\"$want\":" "$tmp/gpubisect.me.json")"
  "$bin" check "$tmp/gb/overflow_chain.tflite" --json > "$tmp/gb.json"
  page "$tmp/gpubisect.html" "$tmp/gb.json" --series --small
else
  echo "note: native libLiteRt.so not installed: the GPU bisect report is not tested"
fi

# 4. corpus models: rejected nodes; the largest graph
if [ -d "$corpus" ]; then
  check_model "$corpus/movenet_single_pose_lightning_ptq.tflite" movenet
  t0=$(date +%s.%N)
  "$bin" check "$corpus/dp_net.tflite" --quiet --html "$tmp/dp_net_t.html" > /dev/null
  t=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 5 else 1)" "$t" \
    && ok "dp_net (2338 nodes): check --html in $t s" || fail "dp_net: check --html took $t s"
  check_model "$corpus/dp_net.tflite" dp_net --max-load 60
  "$bin" bisect "$corpus/torchaudio_conformer.tflite" --quiet --html "$tmp/conformer.html" > /dev/null 2>&1
  [ $? -eq 1 ] && grep -q 'id="gc-first-divergent">First divergent: node' "$tmp/conformer.html" \
    && ok "conformer bisect: first divergent node named in the report" || fail "conformer bisect report"
  "$bin" check "$corpus/torchaudio_conformer.tflite" --json > "$tmp/conformer.json"
  page "$tmp/conformer.html" "$tmp/conformer.json" --series
  # litert: the real runtime's CPU (no GPU here); the report's header and table
  if [ -f build/litert-wheel/lib/libLiteRt.so ]; then
    "$bin" litert "$corpus/movenet_single_pose_lightning_ptq.tflite" --runtime native --quiet \
      --html "$tmp/litert.html" > /dev/null 2>&1; rc=$?
    if [ $rc -le 1 ] && grep -q 'runtime (native)' "$tmp/litert.html" && grep -q 'GPU against CPU, per output' "$tmp/litert.html"; then
      ok "litert report: runtime header and the per-output table"
      page "$tmp/litert.html" "$tmp/movenet.json"
    else fail "litert --html (exit $rc)"; fi
  else
    echo "note: native libLiteRt.so not installed: litert --html not tested"
  fi
else
  echo "note: $corpus not found: the corpus reports are skipped"
fi

# 5. outputs: atomic, bad paths refused, bad input writes nothing
ls "$tmp" | grep -q '\.tmp\.' && fail "temporary files left behind" || ok "no temporary files left"
mkdir "$tmp/adir"
"$bin" check "$tmp/hostile.tflite" --html "$tmp/adir" > /dev/null 2> "$tmp/e1"; rc=$?
[ $rc -eq 2 ] && grep -q 'not a regular file' "$tmp/e1" && ok "--html DIR: exit 2, says why" || fail "--html DIR: exit $rc"
"$bin" check "$tmp/hostile.tflite" --html > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--html without a file: exit 2" || fail "--html without a file: exit $rc"
printf 'not a model' > "$tmp/bad.tflite"
"$bin" check "$tmp/bad.tflite" --html "$tmp/bad.html" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/bad.html" ] && ok "a bad model: exit 2, no report" || fail "bad model: exit $rc"
cp "$tmp/hostile.tflite" "$tmp/self.tflite"
for v in check bisect verify litert; do
  extra=(); [ $v = verify ] && extra=(--ref "$tmp")
  "$bin" $v "$tmp/self.tflite" "${extra[@]}" --html "$tmp/self.tflite" > /dev/null 2> "$tmp/e2"; rc=$?
  [ $rc -eq 2 ] && grep -q 'is the model itself' "$tmp/e2" && cmp -s "$tmp/self.tflite" "$tmp/hostile.tflite" \
    && ok "$v --html MODEL: exit 2, the model untouched" || fail "$v --html onto the model: exit $rc"
done
ln -s "$tmp/hostile.html" "$tmp/link.html"
"$bin" check "$tmp/hostile.tflite" --html "$tmp/link.html" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--html onto a symlink: exit 2" || fail "--html onto a symlink: exit $rc"

[ $fails -eq 0 ] && { echo "html_report: all passed"; exit 0; }
echo "html_report: $fails failure(s)"; exit 1
