#!/usr/bin/env bash
# Runs every tests/integration/*.sh. Each script exits 0 (pass), 77 (skip, with a
# reason printed) or anything else (fail). Prints a summary; exits 1 on any failure.
#
# TEST_JOBS=N (default: the number of CPUs) runs N scripts at a time. Each script's
# stdout + stderr then go to a file that is printed whole, between its "=== script" and
# "--- script: exit RC, S s" lines, when the script ends (so outputs never interleave);
# TEST_JOBS=1 runs them one after another with the output streamed as it comes.
# The scripts share nothing but the built tree (build/, .venv) they read: each writes
# only under its own mktemp -d (wheel.sh: build/release and dist/, zoo_small.sh:
# build/zoo, which no other script touches). The longest scripts start first (order
# below, measured 2026-12-03 on 2 vCPUs), so that the short ones fill the other slots;
# a script not in that list starts after them, in name order.
set -u
cd "$(dirname "$0")/.."
# the project venv (numpy, pytest, torch where installed) comes first on PATH
[ -x .venv/bin/python ] && export PATH="$PWD/.venv/bin:$PATH"
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "run-integration-tests: TEST_JOBS must be a positive integer, not '$jobs'" >&2; exit 2; }
longest_first="python_tests wheel zoo_small html_report bisect_gpu_seam run_vs_litert bench_table litert_cpu"
scripts=()
for n in $longest_first; do [ -e "tests/integration/$n.sh" ] && scripts+=("tests/integration/$n.sh"); done
for t in tests/integration/*.sh; do
  [ -e "$t" ] || continue
  case " $longest_first " in *" $(basename "$t" .sh) "*) continue ;; esac
  scripts+=("$t")
done

pass=0; fail=0; skip=0; failed=(); summary=()
t_all=$SECONDS
# record SCRIPT RC SECONDS: the per-script lines and counts of the summary
record() {
  local t=$1 rc=$2 s=$3 what
  echo "--- $t: exit $rc, $s s"
  if [ "$rc" -eq 0 ]; then pass=$((pass+1)); what=pass
  elif [ "$rc" -eq 77 ]; then skip=$((skip+1)); what=skip; echo "SKIP $t"
  else fail=$((fail+1)); failed+=("$t"); what="FAIL (exit $rc)"; echo "FAIL $t (exit $rc)"; fi
  summary+=("$(printf '%5d s  %-44s %s' "$s" "$t" "$what")")
}

if [ "$jobs" -eq 1 ]; then
  for t in "${scripts[@]}"; do
    echo "=== $t"
    t0=$SECONDS
    bash "$t"; rc=$?
    record "$t" $rc $((SECONDS - t0))
  done
else
  logs=$(mktemp -d); trap 'rm -rf "$logs"' EXIT
  declare -A start=()        # script -> $SECONDS when it started, while it runs
  next=0; running=0
  while [ $next -lt ${#scripts[@]} ] || [ $running -gt 0 ]; do
    while [ $running -lt "$jobs" ] && [ $next -lt ${#scripts[@]} ]; do
      t=${scripts[$next]}; k=$next; next=$((next+1))
      start[$t]=$SECONDS
      ( bash "$t" > "$logs/$k.out" 2>&1 < /dev/null; echo $? > "$logs/$k.rc.tmp"; mv "$logs/$k.rc.tmp" "$logs/$k.rc" ) &
      running=$((running+1))
    done
    wait -n 2>/dev/null
    # every script whose exit code is written has ended: print it whole
    for k in "${!scripts[@]}"; do
      t=${scripts[$k]}
      [ -n "${start[$t]:-}" ] && [ -f "$logs/$k.rc" ] || continue
      rc=$(cat "$logs/$k.rc")
      echo "=== $t"
      cat "$logs/$k.out"
      record "$t" "$rc" $((SECONDS - start[$t]))
      unset "start[$t]"; rm -f "$logs/$k.out" "$logs/$k.rc"
      running=$((running-1))
    done
  done
  wait
fi
echo "integration: per script (wall seconds; $jobs at a time, $((SECONDS - t_all)) s in all)"
printf '%s\n' "${summary[@]}"
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { printf 'failed: %s\n' "${failed[@]}"; exit 1; }
