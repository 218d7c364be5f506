#!/usr/bin/env bash
# Runs every tests/integration/*.sh. Each script exits 0 (pass), 77 (skip, with a
# reason printed) or anything else (fail). Prints a summary; exits 1 on any failure.
set -u
cd "$(dirname "$0")/.."
# the project venv (numpy, pytest, torch where installed) comes first on PATH
[ -x .venv/bin/python ] && export PATH="$PWD/.venv/bin:$PATH"
pass=0; fail=0; skip=0; failed=()
for t in tests/integration/*.sh; do
  [ -e "$t" ] || continue
  echo "=== $t"
  t0=$SECONDS
  bash "$t"; rc=$?
  echo "--- $t: exit $rc, $((SECONDS - t0)) s"
  if [ $rc -eq 0 ]; then pass=$((pass+1)); elif [ $rc -eq 77 ]; then skip=$((skip+1)); echo "SKIP $t";
  else fail=$((fail+1)); failed+=("$t"); echo "FAIL $t (exit $rc)"; fi
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { printf 'failed: %s\n' "${failed[@]}"; exit 1; }
