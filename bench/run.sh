#!/usr/bin/env bash
# bench/run.sh — every benchmark; numbers go to stdout (copy them into notes).
set -u
cd "$(dirname "$0")/.."
corpus=${GPUCLEAN_CORPUS:-../shared/corpus}
[ -d "$corpus" ] || { echo "bench: $corpus not found (set GPUCLEAN_CORPUS)"; exit 0; }
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -o build/model_bench bench/model_bench.c build/libgpuclean.a -lm -lpthread -ldl
echo "== model layer"; ./build/model_bench "$corpus" build/gpuclean
for b in bench/*.sh; do
  case "$b" in bench/run.sh) continue;; esac
  echo "== $b"; bash "$b"
done
