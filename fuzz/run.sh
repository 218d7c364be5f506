#!/usr/bin/env bash
# fuzz/run.sh SECONDS [TARGET...] — run libFuzzer targets (default: read), each for SECONDS:
#   read    build/fuzz_read    seeds: ../shared/corpus, fuzz/seeds/   corpus: fuzz/corpus-work/
#   interp  build/fuzz_interp  seeds: ../shared/corpus                corpus: build/fuzz-corpus/interp/
#   npy     build/fuzz_npy     seeds: fuzz/seeds-npy/                 corpus: build/fuzz-corpus/npy/
#   verify  build/fuzz_verify  seeds: fuzz/seeds-verify/              corpus: build/fuzz-corpus/verify/
# Crashes go to fuzz/crashes/<target>-*. Prints each target's final stats lines.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
[ $# -gt 0 ] || set -- read
mkdir -p fuzz/crashes
for t in "$@"; do
  seeds=(); extra=(); max_len=${FUZZ_MAX_LEN:-262144}
  case $t in
    read)   work=fuzz/corpus-work; [ -d ../shared/corpus ] && seeds+=(../shared/corpus); [ -d fuzz/seeds ] && seeds+=(fuzz/seeds) ;;
    interp) work=build/fuzz-corpus/interp; [ -d ../shared/corpus ] && seeds+=(../shared/corpus) ;;
    npy)    work=build/fuzz-corpus/npy; seeds+=(fuzz/seeds-npy); max_len=${FUZZ_MAX_LEN:-65536} ;;
    verify) work=build/fuzz-corpus/verify; seeds+=(fuzz/seeds-verify); max_len=${FUZZ_MAX_LEN:-16384}; extra+=(-close_fd_mask=2) ;;
    *) echo "fuzz/run.sh: unknown target $t (read, interp, npy, verify)"; exit 2 ;;
  esac
  mkdir -p "$work"
  echo "== fuzz_$t: $secs s"
  ./build/fuzz_$t -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix=fuzz/crashes/$t- -print_final_stats=1 "${extra[@]}" "$work" "${seeds[@]}" 2>&1 | \
    grep -E "stat::number_of_executed_units|stat::new_units_added|Done|ERROR|crash|SUMMARY|#[0-9]+.*(DONE|pulse)" | tail -8
done
