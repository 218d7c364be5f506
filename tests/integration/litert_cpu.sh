#!/usr/bin/env bash
# litert_cpu.sh — `gpuclean litert` on a CPU-only machine: both LiteRT runtimes (LiteRT.js
# under Node, native libLiteRt.so) run a few corpus models on the CPU accelerator, the GPU
# is reported unavailable without a crash, verdicts and exit codes are as documented, the
# native and LiteRT.js CPU outputs agree, LiteRT.js's own limits are told apart from GPU
# verdicts, and bad input exits 2. Exit 0 pass, 77 skip (with the reason), else fail.
set -u
cd "$(dirname "$0")/../.."
bin=build/gpuclean
corpus=../shared/corpus
[ -x "$bin" ] || { echo "SKIP: $bin not built"; exit 77; }
[ -d "$corpus" ] || { echo "SKIP: $corpus not found (the shared corpus sits beside the repo)"; exit 77; }
[ -f runtime/litert/node_modules/@litertjs/core/package.json ] || { echo "SKIP: LiteRT.js not installed (runtime/litert/setup.sh)"; exit 77; }
native=1
[ -f build/litert-wheel/lib/libLiteRt.so ] || { echo "note: native libLiteRt.so not installed: testing LiteRT.js alone"; native=0; }
gpu=0
if node -e "import('./runtime/litert/node_modules/webgpu/index.js').then(async m=>{const a=await m.create([]).requestAdapter();process.exit(a?0:1)}).catch(()=>process.exit(1))" 2>/dev/null; then gpu=1; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
ok() { echo "ok: $*"; }
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

run() {  # run NAME ARGS... -> $tmp/NAME.{txt,json}, exit code in $rc
  local name=$1; shift
  "$bin" litert "$@" --out "$tmp/$name" > "$tmp/$name.txt" 2> "$tmp/$name.err"; rc=$?
  n=$((n+1))
}

# 1. float models: CPU on both runtimes, outputs agree, the GPU is reported honestly.
for m in mobilenet_v1_0.25_224_1_default_1 retinaface group_norm_2_groups_op; do
  f=$corpus/$m.tflite
  [ -f "$f" ] || { fail "$f missing"; continue; }
  run "$m" "$f" --json --runs 1
  cp "$tmp/$m.txt" "$tmp/$m.json"
  verdict=$(field "$tmp/$m.json" "r['verdict']['text']" 2>/dev/null)
  if [ $gpu -eq 0 ]; then
    [ "$verdict" = "no GPU adapter: CPU only" ] && [ $rc -eq 1 ] && ok "$m: '$verdict', exit $rc" \
      || fail "$m: expected 'no GPU adapter: CPU only' and exit 1, got '$verdict' exit $rc ($(cat "$tmp/$m.err"))"
  else
    case "$verdict" in GPU-clean|CPU\ fallback:*|GPU\ *) ok "$m: GPU verdict '$verdict' (exit $rc)" ;;
      *) fail "$m: unexpected verdict on a GPU machine: '$verdict'" ;; esac
  fi
  [ "$(field "$tmp/$m.json" "[x for x in r['runtimes']['js']['modes'] if x['mode']=='cpu'][0]['status']")" = ok ] \
    && ok "$m: LiteRT.js CPU ran" || fail "$m: LiteRT.js CPU did not run"
  if [ $native -eq 1 ]; then
    [ "$(field "$tmp/$m.json" "[x for x in r['runtimes']['native']['modes'] if x['mode']=='cpu'][0]['status']")" = ok ] \
      && ok "$m: native CPU ran" || fail "$m: native CPU did not run"
    [ "$(field "$tmp/$m.json" "r['cpu_agree']")" = True ] && ok "$m: native and LiteRT.js CPU outputs agree" \
      || fail "$m: native and LiteRT.js CPU outputs disagree: $(field "$tmp/$m.json" "[c['outputs'] for c in r['comparisons'] if c['mode']=='cpu']")"
  fi
  ls "$tmp/$m/js/cpu/output_0.npy" >/dev/null 2>&1 && ok "$m: outputs written as .npy" || fail "$m: no js/cpu/output_0.npy"
done

# 2. --no-gpu-ok and --accelerator cpu make a clean CPU-only run exit 0.
m=$corpus/mobilenet_v1_0.25_224_1_default_1.tflite
run cpuonly "$m" --accelerator cpu --runs 0
[ $rc -eq 0 ] && grep -q '^verdict: CPU only' "$tmp/cpuonly.txt" && ok "--accelerator cpu: exit 0" \
  || fail "--accelerator cpu: exit $rc, $(grep verdict "$tmp/cpuonly.txt")"
if [ $gpu -eq 0 ]; then
  run nogpuok "$m" --no-gpu-ok --runs 0
  [ $rc -eq 0 ] && ok "--no-gpu-ok: exit 0" || fail "--no-gpu-ok: exit $rc"
fi

# 3. LiteRT.js limits are reported as such, not as GPU verdicts.
run limit "$corpus/mobilenet_v2_quantized_1x3x224x224.tflite" --accelerator cpu --runtime js --runs 0
grep -q 'runtime limit (LiteRT.js): LiteRT.js cannot feed or read INT8 tensors' "$tmp/limit.txt" && [ $rc -eq 1 ] \
  && ok "int8 I/O: LiteRT.js limit reported (exit 1)" || fail "int8 I/O: $(grep -E 'verdict|limit' "$tmp/limit.txt") exit $rc"
if [ $native -eq 1 ]; then
  run limit2 "$corpus/mobilenet_v2_quantized_1x3x224x224.tflite" --accelerator cpu --runs 0
  grep -qE '^  native +cpu +ok' "$tmp/limit2.txt" && ok "int8 I/O: the native runtime runs what LiteRT.js cannot" \
    || fail "int8 I/O on native: $(cat "$tmp/limit2.txt")"
fi

# 4. --random and --input: deterministic inputs, and files fed back in give the same outputs.
run rnd1 "$corpus/group_norm_2_groups_op.tflite" --accelerator cpu --random 7 --runs 0
run rnd2 "$corpus/group_norm_2_groups_op.tflite" --accelerator cpu --random 7 --runs 0
cmp -s "$tmp/rnd1/js/cpu/output_0.npy" "$tmp/rnd2/js/cpu/output_0.npy" && ok "--random 7 is deterministic" || fail "--random 7 differs between runs"
run fed "$corpus/group_norm_2_groups_op.tflite" --accelerator cpu --input "0=$tmp/rnd1/js/inputs/s0_input_0.npy" --runs 0
cmp -s "$tmp/rnd1/js/cpu/output_0.npy" "$tmp/fed/js/cpu/output_0.npy" && ok "--input reproduces --random's outputs" || fail "--input gave different outputs"

# 5. bad input exits 2 with one line naming the file.
printf 'not a model at all' > "$tmp/bad.tflite"
"$bin" litert "$tmp/bad.tflite" > /dev/null 2> "$tmp/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.tflite" "$tmp/bad.err" && [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] \
  && ok "non-tflite file: exit 2, '$(cat "$tmp/bad.err")'" || fail "non-tflite file: exit $rc, $(cat "$tmp/bad.err")"
"$bin" litert "$tmp/missing.tflite" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "missing file: exit 2" || fail "missing file: exit $rc"
printf 'junk' > "$tmp/bad.npy"
"$bin" litert "$m" --input "0=$tmp/bad.npy" > /dev/null 2> "$tmp/badnpy.err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.npy" "$tmp/badnpy.err" && ok "bad .npy input: exit 2" || fail "bad .npy input: exit $rc, $(cat "$tmp/badnpy.err")"
"$bin" litert "$m" --accelerator tpu > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad option value: exit 2" || fail "bad option value: exit $rc"

echo "litert_cpu: $((n)) runs, $fails failure(s)"
[ $fails -eq 0 ]
