#!/usr/bin/env bash
# tools/test.sh — what `make test` runs: installs what the tests need, builds, and runs
# every test (the C unit tests and CLI goldens, both again under AddressSanitizer +
# UndefinedBehaviorSanitizer, then the integration tests), with the parts that do not
# depend on each other overlapped on the CPUs (TEST_JOBS, default nproc):
#
#   1. tools/setup.sh system + litert: apt (only what is missing), the LiteRT.js runner's
#      Node deps, the native libLiteRt.so (the C and CLI tests use them)
#   2. tools/setup.sh python (the venv, PyTorch: downloads)  ||  the build (-Werror, -jN)
#   3. make asan (its build, then its C and CLI tests)        ||  make ctest, then (step 2's
#      setup ended) tools/run-integration-tests.sh, TEST_JOBS scripts at a time
#
# A part that runs beside another has its output written to a file and printed whole,
# between "=== NAME" and "--- NAME: exit RC, S s", when it has ended. Ends with one line
# per part (seconds, exit code); exits 1 when any part failed. Setup or the build failing
# stops the run there (the rest needs them). TEST_JOBS=1 runs the parts one after the
# other with their output streamed, in the order `make test` had before 2026-12-03
# (setup, build, ctest, asan, integration).
set -u
cd "$(dirname "$0")/.."
make=${MAKE:-make}
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "tools/test.sh: TEST_JOBS must be a positive integer, not '$jobs'" >&2; exit 2; }
export TEST_JOBS=$jobs
logs=$(mktemp -d); trap 'rm -rf "$logs"' EXIT
t_all=$SECONDS
parts=(); failed=()

# done_part NAME RC SECONDS: the summary line, the failure list
done_part() {
  parts+=("$(printf '%5s s  %-34s exit %s' "$3" "$1" "$2")")
  [ "$2" -eq 0 ] || failed+=("$1")
}
# run NAME CMD...: in the foreground, output streamed
run() {
  local name=$1 t0=$SECONDS rc; shift
  echo "=== $name"
  "$@"; rc=$?
  echo "--- $name: exit $rc, $((SECONDS - t0)) s"
  done_part "$name" $rc $((SECONDS - t0))
  return $rc
}
# start NAME CMD...: in the background, in a session of its own (so that stop can end all
# of it), output to $logs/NAME.out, its own seconds to $logs/NAME.s; finish NAME waits for
# it and prints it whole (the seconds are the part's own, not the wait's)
declare -A pid=()
start() {
  local name=$1; shift
  setsid bash -c 't0=$SECONDS; "$@"; rc=$?; echo $((SECONDS - t0)) > "$0"; exit $rc' \
    "$logs/$name.s" "$@" > "$logs/$name.out" 2>&1 < /dev/null &
  pid[$name]=$!
}
finish() {
  local name=$1 rc s
  wait "${pid[$name]}"; rc=$?
  s=$(cat "$logs/$name.s" 2>/dev/null || echo "?")
  echo "=== $name"
  cat "$logs/$name.out"
  echo "--- $name: exit $rc, $s s"
  done_part "$name" $rc "$s"
  unset "pid[$name]"
  return $rc
}
summary() {
  echo "make test: per part (wall seconds; $jobs CPU job(s); $((SECONDS - t_all)) s in all)"
  printf '%s\n' "${parts[@]}"
  if [ ${#failed[@]} -gt 0 ]; then printf 'make test: FAILED: %s\n' "${failed[*]}"; exit 1; fi
  echo "make test: all parts passed"
  exit 0
}
kill_started() {
  local n
  for n in "${!pid[@]}"; do kill -TERM -- -"${pid[$n]}" 2>/dev/null; wait "${pid[$n]}" 2>/dev/null; echo "(stopped: $n)"; done
}
stop() {   # a part the rest depends on failed: end the others, report
  kill_started
  summary
}
trap 'kill_started; exit 130' INT TERM

build=(-j"$jobs" WERROR=1 all build/gctest build/demo-model build/gpu-bisect-models build/gpu-sweep build/interp_vs_native)
if [ "$jobs" -eq 1 ]; then
  run "setup" ./tools/setup.sh || stop
  run "build" $make "${build[@]}" || stop
  run "make ctest" $make ctest
  run "make asan" $make asan
  run "integration" ./tools/run-integration-tests.sh
  summary
fi
run "setup: system, LiteRT runtimes" ./tools/setup.sh system litert || stop
start "setup: Python venv, torch" ./tools/setup.sh python
run "build" $make "${build[@]}" || stop
start "make asan" $make asan
run "make ctest" $make ctest
finish "setup: Python venv, torch" || stop
run "integration" ./tools/run-integration-tests.sh
finish "make asan"
summary
