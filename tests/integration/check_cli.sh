#!/usr/bin/env bash
# check_cli.sh — `gpuclean check` from the outside: exit codes (0 fully GPU-resident,
# 1 not, 2 bad input with one line naming the file), --json parses and carries the
# schema-1 fields, the compiler-style text format, --target classic.
# Exit 0 pass, 77 skip (no corpus / no binary), anything else fail.
set -u
cd "$(dirname "$0")/../.."
BIN=${GPUCLEAN:-build/gpuclean}
CORPUS=${GPUCLEAN_CORPUS:-../shared/corpus}
[ -x "$BIN" ] || { echo "skip: $BIN not built (make build/gpuclean)"; exit 77; }
[ -d "$CORPUS" ] || { echo "skip: corpus $CORPUS not found"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# exit codes
"$BIN" check "$CORPUS/deeplabv3.tflite" >"$tmp/full.txt"; rc=$?
[ $rc -eq 0 ] && ok "fully resident model exits 0" || bad "fully resident model exits $rc"
"$BIN" check "$CORPUS/mobilenet_v1_0.25_224_1_default_1.tflite" >"$tmp/part.txt"; rc=$?
[ $rc -eq 1 ] && ok "partly resident model exits 1" || bad "partly resident model exits $rc"
"$BIN" check "$tmp/missing.tflite" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && ok "missing file exits 2" || bad "missing file exits $rc"
[ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "missing.tflite" "$tmp/e" && ok "one stderr line naming the file" \
  || bad "stderr for a missing file: $(cat "$tmp/e")"
printf 'not a flatbuffer at all' >"$tmp/junk.tflite"
"$BIN" check "$tmp/junk.tflite" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "junk.tflite" "$tmp/e" && ok "malformed model exits 2" || bad "malformed model exits $rc"
"$BIN" check --target vulkan "$CORPUS/deeplabv3.tflite" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "unknown target exits 2" || bad "unknown target exits $rc"
"$BIN" check >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "no model exits 2" || bad "no model exits $rc"

# text format
grep -q "^GPU residency: 70/70 nodes in 1 partition(s) (GPU-clean)$" "$tmp/full.txt" && ok "residency line (full)" \
  || bad "residency line (full): $(tail -1 "$tmp/full.txt")"
grep -q "^$CORPUS/mobilenet_v1_0.25_224_1_default_1.tflite: node 29 SQUEEZE '[^']*': not on GPU: Operation is not supported. \[mldrift.unsupported_op\]$" "$tmp/part.txt" \
  && ok "compiler-style node line" || bad "node line: $(head -1 "$tmp/part.txt")"
grep -q "^  fix: " "$tmp/part.txt" && ok "fix line" || bad "no fix line"
grep -q "^GPU residency: 29/31 nodes in 1 partition(s)$" "$tmp/part.txt" && ok "residency line (partial)" || bad "residency line (partial)"
grep -q "^  29 operations will run on the GPU, and the remaining 2 operations will run on the CPU.$" "$tmp/part.txt" \
  && ok "delegate log reproduced" || bad "delegate log"

# JSON on every corpus model, both targets
n=0
for f in "$CORPUS"/*.tflite; do
  for t in mldrift classic; do
    "$BIN" check --json --target $t "$f" >"$tmp/j.json"; rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then bad "$(basename "$f") --target $t exits $rc"; continue; fi
    python3 - "$tmp/j.json" "$rc" "$t" <<'EOF' || { bad "$(basename "$f") --target $t: JSON"; continue; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["target"] == sys.argv[3] and d["model"]
s = d["summary"]
for k in ("nodes", "gpu_nodes", "partitions", "gpu_clean"):
    assert k in s, k
assert (sys.argv[2] == "0") == (s["gpu_clean"] and s["gpu_correct"])
for n in d["nodes"]:
    for k in ("subgraph", "index", "op", "version", "gpu", "reason", "rule", "fix", "numerics", "numerics_rule", "evidence"):
        assert k in n, k
    assert n["numerics"] in ("ok", "risk", "wrong") and (n["gpu"] or n["numerics"] == "ok")
    assert (n["rule"] is None) == (n["state"] in ("gpu", "cpu_partition", "skipped")) or n["state"] == "init_failed"
assert isinstance(d["risks"], list)
assert sum(1 for n in d["nodes"] if n["gpu"]) == s["gpu_nodes"]
EOF
    n=$((n+1))
  done
done
[ $n -gt 0 ] && ok "JSON parses and carries the schema-1 fields ($n runs)"

# classic target differs where it should
"$BIN" check --target classic "$CORPUS/dp_net.tflite" >"$tmp/c.txt"
grep -q "REVERSE_V2: Operation is not supported." "$tmp/c.txt" && ok "classic: REVERSE_V2 has no parser" || bad "classic REVERSE_V2"
"$BIN" check --target classic "$CORPUS/group_norm_2_groups_op.tflite" >"$tmp/g.txt"; rc=$?
grep -q "error: TfLiteGpuDelegate Init: SUB: No support of few identical inputs in the same operation." "$tmp/g.txt" && [ $rc -eq 1 ] \
  && ok "classic: delegate init failure reported" || bad "classic init failure ($rc)"
exit $fail
