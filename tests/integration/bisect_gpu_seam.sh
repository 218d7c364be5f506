#!/usr/bin/env bash
# bisect_gpu_seam.sh — `gpuclean bisect --runtime native|js` end to end on a machine without
# a GPU, through the verb's test seam (--gpu-side interp: the reference interpreter at the
# requested precision stands in for the GPU, against the real runtime's CPU). Models built
# to overflow half precision at one known op (build/gpu-bisect-models) must be bisected to
# that op with its inputs within tolerance, within ceil(log2 N)+2 probes where the
# divergence is monotone, the non-monotone one must be found and said to be so, fp32 must
# be clean, the real GPU path must say "no GPU adapter" (exit 2) here, inputs from
# --random / --input must work, bad usage must exit 2, and no probe folder may be left.
# Exit 0 pass, 77 skip (with the reason), else fail.
set -u
cd "$(dirname "$0")/../.."
bin=build/gpuclean
[ -x "$bin" ] || { echo "SKIP: $bin not built"; exit 77; }
[ -f build/litert-wheel/lib/libLiteRt.so ] || { echo "SKIP: native libLiteRt.so not installed (runtime/litert/setup.sh)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
make -s build/gpu-bisect-models >/dev/null || { echo "FAIL: cannot build build/gpu-bisect-models"; exit 1; }
js=1
[ -f runtime/litert/node_modules/@litertjs/core/package.json ] && command -v node >/dev/null || js=0
gpu=0
if [ $js -eq 1 ] && node -e "import('./runtime/litert/node_modules/webgpu/index.js').then(async m=>{const a=await m.create([]).requestAdapter();process.exit(a?0:1)}).catch(()=>process.exit(1))" 2>/dev/null; then gpu=1; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t"
export TMPDIR=$tmp/t               # the verb's probe folders go here: must be empty after
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
ok() { echo "ok: $*"; }
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

build/gpu-bisect-models "$tmp/m" > "$tmp/models.tsv" || { echo "FAIL: gpu-bisect-models"; exit 1; }
want_op() { awk -F'\t' -v m="$1" '$1 ~ "/"m".tflite$" { sub("op ", "", $2); print $2 }' "$tmp/models.tsv"; }
seam=(--gpu-side interp --no-progress)

run() {  # run NAME ARGS... -> $tmp/NAME.{out,err}, exit code in $rc
  local name=$1; shift
  "$bin" bisect "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"; rc=$?
}

# 1. monotone: the op that overflows, its input within tolerance, few probes
for rt in native js; do
  [ $rt = js ] && [ $js -eq 0 ] && { echo "note: LiteRT.js not installed: js runtime not tested"; continue; }
  m=overflow_chain
  run "$m.$rt" "$tmp/m/$m.tflite" --runtime $rt --precision fp16 --json "${seam[@]}"
  f=$tmp/$m.$rt.out
  if [ $rc -ne 1 ]; then fail "$m ($rt): exit $rc, want 1: $(cat "$tmp/$m.$rt.err")"; continue; fi
  [ "$(field "$f" "r['verdict']['kind']")" = divergent_op ] && ok "$m ($rt): verdict divergent_op" || fail "$m ($rt): verdict $(field "$f" "r['verdict']")"
  [ "$(field "$f" "r['first']['tensor_name']")" = overflow ] && [ "$(field "$f" "r['first']['op']")" = "$(want_op $m)" ] \
    && ok "$m ($rt): first divergent op $(want_op $m) 'overflow'" || fail "$m ($rt): first is $(field "$f" "r['first']")"
  [ "$(field "$f" "all(i['verdict'] == 'ok' for i in r['first_inputs'] if i['kind'] == 'probed') and any(i['kind'] == 'probed' for i in r['first_inputs'])")" = True ] \
    && ok "$m ($rt): its inputs were probed and are within tolerance" || fail "$m ($rt): inputs $(field "$f" "r['first_inputs']")"
  # the seam emulates the runtime's fp16 (docs/fp16-model.md): both runtimes store a value
  # past 65504 as +inf (measured on the H200 2026-12-02)
  want="r['first']['cmp']['nan_mismatch'] > 0 and not r['first']['cmp']['pass']"; what="is +inf in half: NaN/Inf mismatches"
  [ "$(field "$f" "$want")" = True ] \
    && ok "$m ($rt): the op's output $what" || fail "$m ($rt): first cmp $(field "$f" "r['first']['cmp']")"
  [ "$(field "$f" "r['probes_used'] <= r['probe_bound'] and r['monotone'] and r['probes'][0]['target'] == 'full' and r['probes'][0]['verdict'] == 'diverges'")" = True ] \
    && ok "$m ($rt): $(field "$f" "r['probes_used']") probes (bound $(field "$f" "r['probe_bound']")), full model first" \
    || fail "$m ($rt): probes $(field "$f" "[(p['index'], p.get('op'), p['verdict']) for p in r['probes']]")"
  [ "$(field "$f" "r['check'] is not None and r['check']['index'] == r['first']['op'] and r['check']['op'] == 'MUL'")" = True ] \
    && ok "$m ($rt): the checker's node object is attached" || fail "$m ($rt): check $(field "$f" "r['check']")"
done

# 2. not monotone: the overflowing branch runs first; the search must come back to it
m=overflow_branch
run $m "$tmp/m/$m.tflite" --runtime native --precision fp16 --json "${seam[@]}"
f=$tmp/$m.out
if [ $rc -eq 1 ] && [ "$(field "$f" "r['first']['tensor_name']")" = overflow ] && [ "$(field "$f" "r['first']['op']")" = "$(want_op $m)" ]; then
  ok "$m: first divergent op $(want_op $m) 'overflow' ($(field "$f" "r['probes_used']") probes)"
else fail "$m: exit $rc, first $(field "$f" "r.get('first')" 2>/dev/null) $(cat "$tmp/$m.err")"; fi
[ "$(field "$f" "r['restarts'] >= 1 and not r['monotone']")" = True ] && ok "$m: reported as not monotone" || fail "$m: restarts $(field "$f" "r['restarts']")"
run $m.txt "$tmp/m/$m.tflite" --runtime native --precision fp16 "${seam[@]}"
grep -q "^first divergent op: op $(want_op $m) MUL -> tensor [0-9]* 'overflow'" "$tmp/$m.txt.out" && grep -q '^note: the divergence is not monotone' "$tmp/$m.txt.out" \
  && grep -q '^verdict: first divergent op' "$tmp/$m.txt.out" && ok "$m: text report" || fail "$m: text report: $(cat "$tmp/$m.txt.out")"
run $m.q "$tmp/m/$m.tflite" --runtime native --precision fp16 --quiet "${seam[@]}"
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/$m.q.out")" -eq 1 ] && grep -q '^verdict: first divergent op' "$tmp/$m.q.out" \
  && ok "--quiet: the verdict line only" || fail "--quiet: exit $rc: $(cat "$tmp/$m.q.out")"

# 2b. the output itself overflows: the full model's measurement led there; its prefix confirms it
m=overflow_last
run $m "$tmp/m/$m.tflite" --runtime native --precision fp16 --json "${seam[@]}"
f=$tmp/$m.out
[ $rc -eq 1 ] && [ "$(field "$f" "(r['first']['tensor_name'], r['first']['op'] == $(want_op $m), r['first']['probe'] > 1, r['probes'][r['first']['probe'] - 1].get('tensor_name'))")" = "('overflow', True, True, 'overflow')" ] \
  && ok "$m: the output op, confirmed by its own prefix (probe $(field "$f" "r['first']['probe']"))" || fail "$m: exit $rc: $(field "$f" "(r.get('first'), [(p['index'], p.get('tensor_name'), p['verdict']) for p in r['probes']])" 2>&1) $(cat "$tmp/$m.err")"

# 3. fp32: nothing diverges (interpreter fp32 vs the runtime's CPU), one probe
run clean "$tmp/m/overflow_chain.tflite" --runtime native --json "${seam[@]}"
[ $rc -eq 0 ] && [ "$(field "$tmp/clean.out" "(r['verdict']['kind'], r['probes_used'], r['first'])")" = "('clean', 1, None)" ] \
  && ok "fp32: clean in one probe, exit 0" || fail "fp32: exit $rc: $(head -c 600 "$tmp/clean.out") $(cat "$tmp/clean.err")"

# 4. inputs: --random and --input (the runtime's own pattern inputs fed back by name and index)
run rnd "$tmp/m/overflow_chain.tflite" --runtime native --precision fp16 --random 3 --json "${seam[@]}"
[ $rc -eq 1 ] && [ "$(field "$tmp/rnd.out" "(r['inputs'], r['first']['tensor_name'])")" = "('random 3', 'overflow')" ] \
  && ok "--random 3: found" || fail "--random 3: exit $rc $(cat "$tmp/rnd.err")"
"$bin" run "$tmp/m/overflow_chain.tflite" --out "$tmp/ref" > /dev/null 2>&1 || fail "gpuclean run for an input file"
for key in 0 x; do
  run "in$key" "$tmp/m/overflow_chain.tflite" --runtime native --precision fp16 --input "$key=$tmp/ref/input_0.npy" --json "${seam[@]}"
  [ $rc -eq 1 ] && [ "$(field "$tmp/in$key.out" "(r['inputs'], r['first']['tensor_name'])")" = "('files', 'overflow')" ] \
    && ok "--input $key=FILE: found" || fail "--input $key=FILE: exit $rc $(cat "$tmp/in$key.err")"
done

# 5. the real GPU path: on a machine without a GPU adapter, exit 2 with the reason
if [ $gpu -eq 0 ]; then
  run nogpu "$tmp/m/overflow_chain.tflite" --runtime native --no-progress
  [ $rc -eq 2 ] && grep -q 'no GPU adapter: cannot bisect on the GPU' "$tmp/nogpu.err" && ok "no GPU adapter: exit 2, said so" \
    || fail "no GPU: exit $rc: $(cat "$tmp/nogpu.err")"
else echo "note: a GPU adapter is present: the no-GPU case is not tested here"; fi

# 6. bad usage and bad input: exit 2 with one line naming what is wrong
printf 'not a model' > "$tmp/bad.tflite"
python3 -c "import struct; open('$tmp/short.npy','wb').write(b'\x93NUMPY\x01\x00v\x00' + (\"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\".ljust(117) + '\n').encode() + struct.pack('<3f', 1, 2, 3))"
while IFS='|' read -r what args want; do
  # shellcheck disable=SC2086
  run bad "$tmp/m/overflow_chain.tflite" $args
  [ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/bad.err" && ok "$what: exit 2" || fail "$what: exit $rc: $(cat "$tmp/bad.err")"
done <<EOF
unknown runtime|--runtime tpu|--runtime must be native or js
interpreter option with --runtime|--runtime native --a fp16|belong to the interpreter mode
--precision without --runtime|--precision fp16|need --runtime
unknown input name|--runtime native --gpu-side interp --input nosuch=$tmp/ref/input_0.npy|no input named or numbered 'nosuch'
wrong element count|--runtime native --gpu-side interp --input 0=$tmp/short.npy|3 elements
bad precision|--runtime native --precision fp64|--precision must be fp32 or fp16
EOF
run badmodel "$tmp/bad.tflite" --runtime native "${seam[@]}"
[ $rc -eq 2 ] && grep -q "$tmp/bad.tflite" "$tmp/badmodel.err" && ok "not a model: exit 2" || fail "not a model: exit $rc $(cat "$tmp/badmodel.err")"

# 7. nothing left behind
left=$(ls -A "$tmp/t")
[ -z "$left" ] && ok "every probe folder removed" || fail "left in TMPDIR: $left"

[ $fails -eq 0 ] && { echo "bisect_gpu_seam: all passed"; exit 0; }
echo "bisect_gpu_seam: $fails failure(s)"; exit 1
