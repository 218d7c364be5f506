#!/usr/bin/env bash
# fast_kernels.sh — single-thread fp32 latency of gpuclean's interpreter with its fast
# kernels (the default) and with --reference-kernels, next to the native LiteRT runtime's
# CPU accelerator (XNNPACK, `gpuclean litert --runtime native --accelerator cpu`), on the
# float corpus models. Every round runs each model once in each of the three ways
# (interleaved, so that a busy machine slows all three alike); the table shows medians
# over the rounds of each run's mean latency (N timed invokes after a warm-up one), the
# ratio fast / native, the speed-up over the reference kernels, peak RSS of the first
# round (with /usr/bin/time), and whether the fast outputs are byte-identical to the
# reference ones. Pinned to one core with taskset when it exists.
#   bench/fast_kernels.sh [--rounds R] [--runs N] [MODEL.tflite ...]
# Needs build/gpuclean and, for the native column, the native runtime (tools/setup.sh, or
# GPUCLEAN_HOME / GPUCLEAN_LITERT_LIB on a machine set up by runtime/litert/device.sh).
# Env: GPUCLEAN_ISA caps the fast kernels (scalar|avx2|avx512; the `isa` column).
set -u
cd "$(dirname "$0")/.."
rounds=5; runs=10; models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --runs) runs=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) models+=("$1") ;;
  esac
  shift
done
bin=${GPUCLEAN_BIN:-build/gpuclean}
corpus=${GPUCLEAN_CORPUS:-../shared/corpus}
[ -x "$bin" ] || { echo "fast_kernels.sh: $bin missing (make build/gpuclean)" >&2; exit 2; }
if [ ${#models[@]} -eq 0 ]; then
  for m in deeplabv3 mobilenet_v1_0.25_224_1_default_1 dp_net torchaudio_conformer dilated_conv \
           group_norm_2_groups_op trained_lstm movie_review; do
    [ -f "$corpus/$m.tflite" ] && models+=("$corpus/$m.tflite")
  done
fi
[ ${#models[@]} -gt 0 ] || { echo "fast_kernels.sh: no models (give MODEL.tflite or set GPUCLEAN_CORPUS)" >&2; exit 2; }
pin=""; command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
timecmd=""; [ -x /usr/bin/time ] && timecmd="/usr/bin/time -f %M"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# one run; prints "ms rss_kb" (rss empty without /usr/bin/time, ms NA on failure)
ours() {  # MODEL OUTDIR [--reference-kernels]
  local m=$1 out=$2; shift 2
  $pin $timecmd "$bin" run "$m" --runs $((runs + 1)) --out "$out" "$@" > /dev/null 2> "$out.err"
  local rc=$? rss=""
  [ -n "$timecmd" ] && rss=$(tail -1 "$out.err")
  [ $rc -eq 0 ] || { echo "NA $rss"; return; }
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['timings_ms']['avg_invoke'], sys.argv[2])" \
    "$out/manifest.json" "$rss" 2>/dev/null || echo "NA $rss"
}
native() {  # MODEL OUTFILE
  $pin $timecmd "$bin" litert "$1" --runtime native --accelerator cpu --runs "$runs" --json > "$2" 2> "$2.err"
  local rss=""
  [ -n "$timecmd" ] && rss=$(tail -1 "$2.err")
  python3 - "$2" "$rss" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    x = r["runtimes"]["native"]
    m = [m for m in x.get("modes", []) if m["mode"] == "cpu" and m["status"] == "ok"][0]
    print(sum(s["avg_ms"] for s in m["signatures"]), sys.argv[2])
except Exception:
    print("NA", sys.argv[2])
PY
}

for r in $(seq 1 "$rounds"); do
  for f in "${models[@]}"; do
    b=$(basename "$f" .tflite)
    rm -rf "$tmp/f_$b" "$tmp/r_$b"
    echo "$(ours "$f" "$tmp/f_$b")" >> "$tmp/$b.fast"
    echo "$(ours "$f" "$tmp/r_$b" --reference-kernels)" >> "$tmp/$b.ref"
    echo "$(native "$f" "$tmp/n_$b.json")" >> "$tmp/$b.native"
    if [ "$r" -eq 1 ]; then
      same=yes
      for o in "$tmp/r_$b"/output_*.npy; do
        [ -f "$o" ] || { same=n/a; break; }
        cmp -s "$o" "$tmp/f_$b/$(basename "$o")" || same=NO
      done
      echo "$same" > "$tmp/$b.same"
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r.get('ops_fast','?'), r.get('ops','?'), r.get('isa','?'))" \
        "$tmp/f_$b/manifest.json" > "$tmp/$b.ops" 2>/dev/null || echo "? ? ?" > "$tmp/$b.ops"
    fi
  done
done

printf '| model | ours fast ms | ours reference ms | native CPU ms | fast / native | fast vs reference | fast ops | isa | peak RSS ours / native MB | identical |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---|---:|---|\n'
for f in "${models[@]}"; do
  b=$(basename "$f" .tflite)
  python3 - "$b" "$tmp/$b.fast" "$tmp/$b.ref" "$tmp/$b.native" "$(cat "$tmp/$b.same")" $(cat "$tmp/$b.ops") <<'PY'
import statistics, sys
name, ff, rf, nf, same, nfast, nops, isa = sys.argv[1:9]
def col(path, k):
    v = []
    for line in open(path):
        p = line.split()
        if len(p) > k and p[k] != "NA":
            try: v.append(float(p[k]))
            except ValueError: pass
    return v
def med(v): return statistics.median(v) if v else None
def fmt(x, d=4): return "n/a" if x is None else f"{x:.{d}g}" if d == 4 else f"{x:.{d}f}"
fast, ref, nat = med(col(ff, 0)), med(col(rf, 0)), med(col(nf, 0))
# rss: the first line's second field, when present
def rss(path):
    for line in open(path):
        p = line.split()
        return float(p[-1]) / 1024 if p and len(p) >= 2 else None
    return None
ro, rn = rss(ff), rss(nf)
ratio = fast / nat if fast and nat else None
sp = ref / fast if fast and ref else None
print(f"| {name} | {fmt(fast)} | {fmt(ref)} | {fmt(nat)} | {fmt(ratio, 2)} | {fmt(sp, 2)}x | {nfast}/{nops} | {isa} "
      f"| {fmt(ro, 1)} / {fmt(rn, 1)} | {same} |")
PY
done
echo
echo "rounds: $rounds, runs per round: $runs, pinned: ${pin:-no}, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')"
