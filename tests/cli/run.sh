#!/usr/bin/env bash
# tests/cli/run.sh GPUCLEAN [DEMO_MODEL_MAKER] — CLI goldens: one declarative file per case in
# tests/cli/cases/*.case:
#   cmd: <command line; $GC = the binary, $DEMO = the built-in demo model,
#         $CORPUS = ../shared/corpus, $TMP = a scratch dir>
#   exit: <expected exit code>
#   stdout: <substring expected in stdout>        (any number)
#   stderr: <substring expected in stderr>        (any number)
#   needs: corpus                                 (skip when ../shared/corpus is absent)
#   needs: verb NAME                              (skip when the verb is not built)
# Ends with "N passed, N failed"; exit 1 on any failure.
set -u
cd "$(dirname "$0")/../.."
GC=$(realpath "${1:-build/gpuclean}")
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
CORPUS=$(realpath ../shared/corpus 2>/dev/null || true)
DEMO=$TMP/demo.tflite
MAKER=$(realpath "${2:-$(dirname "$GC")/demo-model}")
"$MAKER" "$DEMO" || { echo "cannot write the demo model with $MAKER"; exit 1; }
export GC DEMO CORPUS TMP
pass=0; fail=0; skip=0
for c in tests/cli/cases/*.case; do
  name=$(basename "$c" .case)
  if grep -q '^needs: corpus' "$c" && [ ! -d "$CORPUS" ]; then skip=$((skip+1)); echo "SKIP $name: ../shared/corpus absent"; continue; fi
  verb=$(sed -n 's/^needs: verb //p' "$c" | head -1)
  if [ -n "$verb" ] && ! "$GC" --help | grep -q "^  $verb "; then skip=$((skip+1)); echo "SKIP $name: verb $verb not built"; continue; fi
  cmd=$(sed -n 's/^cmd: //p' "$c")
  want=$(sed -n 's/^exit: //p' "$c")
  bash -c "$cmd" > "$TMP/out" 2> "$TMP/err"; rc=$?
  ok=1; why=""
  [ "$rc" = "$want" ] || { ok=0; why="exit $rc, want $want"; }
  while IFS= read -r s; do grep -qF -- "$s" "$TMP/out" || { ok=0; why="$why; stdout lacks '$s'"; }; done < <(sed -n 's/^stdout: //p' "$c")
  while IFS= read -r s; do grep -qF -- "$s" "$TMP/err" || { ok=0; why="$why; stderr lacks '$s'"; }; done < <(sed -n 's/^stderr: //p' "$c")
  if [ $ok = 1 ]; then pass=$((pass+1)); echo "ok   $name"; else fail=$((fail+1)); echo "FAIL $name: $why"; sed 's/^/    | /' "$TMP/err" | head -5; fi
done
echo "$pass passed, $fail failed${skip:+, $skip skipped}"
[ $fail = 0 ]
