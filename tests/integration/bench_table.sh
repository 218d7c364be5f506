#!/usr/bin/env bash
# bench_table.sh — `make bench`'s table (build/interp_vs_native through
# bench/interp_vs_native.sh): a row per model whatever fails, a float and a quantized
# model timed on both sides with ratios, a model native LiteRT cannot load and a file
# that is no model each with its reason in the notes, every timing in --json consistent
# with the table (median of the runs, the count asked for), the GFLOP the same as
# `gpuclean inspect --json`, a time limit that kills both sides still prints the table;
# and `gpuclean litert --threads` validation. Exit 0 pass, 77 skip (with the reason).
set -u
cd "$(dirname "$0")/../.."
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "skip: ../shared/corpus not found"; exit 77; }
[ -f build/litert-wheel/lib/libLiteRt.so ] || { echo "skip: native libLiteRt not installed (tools/setup.sh)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found (reads the --json)"; exit 77; }
make -s build/interp_vs_native >/dev/null || { echo "FAIL: cannot build build/interp_vs_native"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
ok() { echo "ok: $*"; }

head -c 4096 /dev/urandom > "$tmp/not_a_model.tflite"
models=("$corpus/dilated_conv.tflite" "$corpus/mobilenet_v1_0.25_128_quant.tflite" "$corpus/trained_lstm.tflite" "$tmp/not_a_model.tflite")
bench/interp_vs_native.sh --runs 3 --peak-trials 1 --json "$tmp/b.json" "${models[@]}" > "$tmp/out.md" 2> "$tmp/err"
rc=$?
[ $rc = 0 ] || fail "bench exited $rc: $(tail -3 "$tmp/err")"
grep -q '^| model | kind | GFLOP | ours ms 1T | native ms 1T | ours/native 1T |' "$tmp/out.md" && ok "table header" || fail "no table header"
grep -q '^fp32 peak, one core' "$tmp/out.md" && ok "peak line" || fail "no peak line"
grep -q '^- native: libLiteRt.so ' "$tmp/out.md" && ok "runtime version line" || fail "no runtime version line"
rows=$(grep -c '^| \(dilated_conv\|mobilenet_v1_0.25_128_quant\|trained_lstm\|not_a_model\) |' "$tmp/out.md")
[ "$rows" = 4 ] && ok "one row per model" || fail "$rows rows for 4 models"
grep -q '^| dilated_conv | float | <0.001 | [0-9.e-]* ±[0-9]*% | [0-9.e-]* ±[0-9]*% | [0-9.]* |' "$tmp/out.md" && ok "float row timed on both sides" || fail "dilated_conv row: $(grep '^| dilated_conv' "$tmp/out.md")"
grep -q '^| mobilenet_v1_0.25_128_quant | quant | [0-9.]* | [0-9.e-]* ±[0-9]*% | [0-9.e-]* ±[0-9]*% | [0-9.]* |' "$tmp/out.md" && ok "quant row timed on both sides" || fail "quant row: $(grep '^| mobilenet_v1_0.25_128' "$tmp/out.md")"
grep -q '^- trained_lstm: native: ' "$tmp/out.md" && ok "native failure explained: $(grep '^- trained_lstm: native' "$tmp/out.md" | cut -c1-110)" || fail "no note for trained_lstm's native side"
grep -q '^- not_a_model: model: not a TFLite model' "$tmp/out.md" && ok "unreadable file explained" || fail "no note for the file that is no model"
grep -q '^| mobilenet_v1_0.25_128_quant | quant |.* | [0-9.e-]* ±[0-9]*% | [0-9.e-]* ±[0-9]*% | [0-9.]* |$' "$tmp/out.md" && ok "quant row has the XNNPACK-order columns" || fail "quant row without the XNNPACK-order columns"
grep -q '^geometric mean ours/native at 1T with the quantized models in XNNPACK order' "$tmp/out.md" && ok "XNNPACK-order geometric mean" || fail "no XNNPACK-order geometric mean"
grep -q "^before each invoke the other side's threads were left to go idle" "$tmp/out.md" && ok "settle line" || fail "no settle line"

python3 - "$tmp/b.json" > "$tmp/py.out" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
bad = []
assert r["schema"] == 1 and r["runs"] == 3 and r["peak"]["gflops"] > 0
for m in r["models"]:
    for c in m["configs"]:
        for side in ("ours", "native"):
            s = c[side]
            if not s["ok"]:
                if not s["reason"]: bad.append(f"{m['model']} {side}: failed without a reason")
                continue
            if len(s["runs_ms"]) != 3: bad.append(f"{m['model']} {side}: {len(s['runs_ms'])} runs")
            if abs(statistics.median(s["runs_ms"]) - s["median_ms"]) > 1e-9 * max(1, s["median_ms"]): bad.append(f"{m['model']} {side}: median")
            if not (s["p25_ms"] <= s["median_ms"] <= s["p75_ms"]): bad.append(f"{m['model']} {side}: quartiles")
            if s["peak_rss_kb"] <= 0: bad.append(f"{m['model']} {side}: no peak RSS")
by = {m["model"]: m for m in r["models"]}
for name in ("dilated_conv", "mobilenet_v1_0.25_128_quant"):
    if not all(c["ours"]["ok"] and c["native"]["ok"] for c in by[name]["configs"]): bad.append(f"{name}: a side failed")
if by["trained_lstm"]["configs"][0]["native"]["ok"]: bad.append("trained_lstm: native ran (variable tensors)")
# make bench's default --int-arith both: the quantized model once more at 1T in XNNPACK order
q = by["mobilenet_v1_0.25_128_quant"]["configs"]
if [(c["threads"], c["int_arith"]) for c in q][-1] != (1, "xnnpack"): bad.append(f"quant configs: {[(c['threads'], c['int_arith']) for c in q]}")
if any(c["int_arith"] == "xnnpack" for c in by["dilated_conv"]["configs"]): bad.append("float model ran an XNNPACK-order config")
if any("settle_ms" not in c[s] for m in r["models"] for c in m["configs"] for s in ("ours", "native")): bad.append("no settle_ms")
if r.get("float_arith") != "fma": bad.append(f"float_arith {r.get('float_arith')}")
# the CPU time of every timed 1T invoke (none at 2T), as many as the wall times; ours' window is the
# invoke and a pipe message, so it stays under its wall time (+ the clock's grain); native's holds the
# runner's own per-run work too
for m in r["models"]:
    for c in m["configs"]:
        for side in ("ours", "native"):
            s = c[side]
            if not s["ok"]: continue
            if c["threads"] != 1:
                if s["cpu_ms"]: bad.append(f"{m['model']} {side} {c['threads']}T: CPU times at N threads")
                continue
            if len(s["cpu_ms"]) != len(s["runs_ms"]): bad.append(f"{m['model']} {side}: {len(s['cpu_ms'])} CPU times")
            elif s["cpu_median_ms"] is None or s["cpu_median_ms"] <= 0: bad.append(f"{m['model']} {side}: no CPU median")
            if side == "ours" and any(cp > w * 1.05 + 0.5 for cp, w in zip(s["cpu_ms"], s["runs_ms"])): bad.append(f"{m['model']} ours: CPU > wall")
if by["not_a_model"]["error"] is None: bad.append("not_a_model: no error")
print(by["mobilenet_v1_0.25_128_quant"]["flops"])
print("\n".join(bad) if bad else "consistent")
PY
[ "$(tail -1 "$tmp/py.out")" = consistent ] && ok "--json consistent with the table" || fail "--json: $(cat "$tmp/py.out")"
want=$(build/gpuclean inspect "$corpus/mobilenet_v1_0.25_128_quant.tflite" --json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['flops']['flops'])")
[ -n "$want" ] && [ "$(head -1 "$tmp/py.out")" = "$want" ] && ok "flops as inspect counts them ($want)" || fail "flops $(head -1 "$tmp/py.out") vs inspect $want"

# a time limit no step can meet: both sides killed, the table still comes out
build/interp_vs_native --runs 2 --peak-trials 1 --timeout 0.001 "$corpus/dilated_conv.tflite" > "$tmp/to.md" 2>/dev/null
rc=$?
[ $rc = 0 ] && grep -q '^| dilated_conv | float |' "$tmp/to.md" && grep -q 'no answer within the time limit' "$tmp/to.md" \
  && ok "time limit: row and reason" || fail "time limit: exit $rc, $(grep -c 'no answer' "$tmp/to.md") reasons"
build/interp_vs_native --runs 0 "$corpus/dilated_conv.tflite" > /dev/null 2>&1
[ $? = 2 ] && ok "--runs 0 is a usage error" || fail "--runs 0 not refused"

build/gpuclean litert "$corpus/dilated_conv.tflite" --runtime native --accelerator cpu --threads 0 > /dev/null 2> "$tmp/t.err"
[ $? = 2 ] && grep -q -- '--threads needs an integer' "$tmp/t.err" && ok "litert --threads 0 refused" || fail "litert --threads 0: $(cat "$tmp/t.err")"
build/gpuclean litert "$corpus/dilated_conv.tflite" --runtime native --accelerator cpu --threads 2 --runs 4 --json > "$tmp/t.json" 2>/dev/null
python3 -c "
import json, sys
m = json.load(open('$tmp/t.json'))['runtimes']['native']['modes'][0]
s = m['signatures'][0]
sys.exit(0 if m['status'] == 'ok' and m['peak_rss_kb'] > 0 and s['median_ms'] > 0 else 1)" \
  && ok "litert --threads 2: median_ms and peak_rss_kb in --json" || fail "litert --threads 2 --json: $(head -c 300 "$tmp/t.json")"
[ $fails = 0 ] || exit 1
