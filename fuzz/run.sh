#!/usr/bin/env bash
# fuzz/run.sh SECONDS — run the libFuzzer target seeded with the corpus models (and
# fuzz/seeds/), keeping the evolving corpus in fuzz/corpus-work/ (git-ignored) and any
# crash in fuzz/crashes/. Prints the final stats line.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
mkdir -p fuzz/corpus-work fuzz/crashes
seeds=()
[ -d ../shared/corpus ] && seeds+=(../shared/corpus)
[ -d fuzz/seeds ] && seeds+=(fuzz/seeds)
./build/fuzz_read -max_total_time="$secs" -max_len=${FUZZ_MAX_LEN:-262144} -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix=fuzz/crashes/ -print_final_stats=1 fuzz/corpus-work "${seeds[@]}" 2>&1 | \
  grep -E "stat::|Done|ERROR|crash|SUMMARY|#[0-9]+.*(DONE|pulse)" | tail -20
