#!/usr/bin/env bash
# gpu_sweep.sh — the GPU miscompute sweep (tools/sweep/, tools/gpu_sweep.py): build/gpu-sweep
# is deterministic (two runs, the same bytes), every case re-reads through the model layer
# equal to what was built (--verify) and `gpuclean check` runs on each without a crash,
# the cases are tiny (each < 100 KB but the Swin-T constant case, all of them < 10 MB
# xz'd), one case per family runs on LiteRT's native CPU runtime (skipped with a message
# when it is not installed), and collect / table parse a hand-written device output
# (tests/sweep/test_collect.py). Exit 0 pass, 77 skip (with the reason), else fail.
set -u
cd "$(dirname "$0")/../.."
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
make -s build/gpu-sweep build/gpuclean >/dev/null || { echo "FAIL: make build/gpu-sweep"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
ok() { echo "ok: $*"; }

# 1. deterministic, re-readable, checked
build/gpu-sweep "$tmp/a" > "$tmp/a.txt" || fail "gpu-sweep: $(cat "$tmp/a.txt")"
build/gpu-sweep "$tmp/b" --verify > "$tmp/b.txt" || fail "gpu-sweep --verify: $(cat "$tmp/b.txt")"
n=$(ls "$tmp/a"/*.tflite 2>/dev/null | wc -l)
[ "$n" -ge 300 ] && [ "$n" -le 700 ] && ok "$n cases" || fail "$n cases (want 300-700)"
diff -r "$tmp/a" "$tmp/b" > /dev/null && ok "two runs wrote the same bytes ($(du -sk "$tmp/a" | cut -f1) KiB)" \
  || fail "two runs differ: $(diff -rq "$tmp/a" "$tmp/b" | head -n 3)"
grep -q "every one re-read and checked" "$tmp/b.txt" && ok "every case re-read through the model layer, equal, checked" \
  || fail "--verify: $(cat "$tmp/b.txt")"
[ "$(wc -l < "$tmp/a/manifest.jsonl")" -eq "$n" ] && ok "manifest: one line per case" || fail "manifest lines != $n"
build/gpu-sweep "$tmp/c" --only nosuch > /dev/null 2>&1; [ $? -eq 2 ] && ok "unknown family: exit 2" || fail "unknown family not refused"
build/gpu-sweep "$tmp/d" --only cast,cumsum > /dev/null && [ "$(ls "$tmp/d"/*.tflite | wc -l)" -eq "$(grep -c '"family":"c[au][sm]' "$tmp/a/manifest.jsonl")" ] \
  && ok "--only cast,cumsum writes just those families" || fail "--only cast,cumsum"

# 2. gpuclean check on every case: a verdict (exit 0 or 1), never bad input or a crash
bad=0
for f in "$tmp/a"/*.tflite; do
  build/gpuclean check "$f" --json > "$tmp/check.json" 2> "$tmp/check.err"; rc=$?
  if [ $rc -gt 1 ]; then bad=$((bad+1)); [ $bad -le 3 ] && echo "  $f: exit $rc: $(head -c 300 "$tmp/check.err")"; fi
done
[ $bad -eq 0 ] && ok "gpuclean check: a verdict on all $n cases" || fail "gpuclean check failed on $bad cases"

# 3. tiny
python3 - "$tmp/a" <<'PY' && ok "sizes: each case < 100 KB (but the Swin-T constant and conv_wide's ResNet-sized filters, < 300 KB), all xz'd < 10 MB" || fail "sizes"
import json, lzma, os, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(d, "manifest.jsonl"))]
big = [(r["name"], r["bytes"]) for r in rows if r["bytes"] >= 100 * 1024 and r["name"] != "ew_add_swin_24x49x49_const"
       and not (r["family"] == "conv_wide" and r["bytes"] < 300 * 1024)]
blob = b"".join(open(os.path.join(d, r["file"]), "rb").read() for r in rows)
xz = len(lzma.compress(blob, preset=6))
print("  %d models, %.0f KiB, %.0f KiB xz'd" % (len(rows), len(blob) / 1024, xz / 1024))
sys.exit(1 if big or xz >= 10 << 20 else 0)
PY

# 4. one case per family on the native CPU runtime
if [ -f build/litert-wheel/lib/libLiteRt.so ]; then
  python3 - "$tmp/a" > "$tmp/sample.txt" <<'PY'
import json, os, sys
d, seen = sys.argv[1], set()
for l in open(os.path.join(d, "manifest.jsonl")):
    r = json.loads(l)
    if r["family"] in seen:
        continue
    seen.add(r["family"])
    ins = " ".join("--input %d=%s" % (i, os.path.join(d, t["values"])) for i, t in enumerate(r["inputs"]) if t["values"] != "sin")
    print(r["name"], os.path.join(d, r["file"]), ins)
PY
  fam=0
  while read -r name model ins; do
    fam=$((fam+1))
    # shellcheck disable=SC2086
    build/gpuclean litert "$model" --accelerator cpu --runtime native --json --runs 0 $ins --out "$tmp/rt-$name" \
      > "$tmp/rt.json" 2> "$tmp/rt.err"
    st=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print([m for m in r['runtimes']['native']['modes'] if m['mode']=='cpu'][0]['status'])" "$tmp/rt.json" 2>/dev/null)
    [ "$st" = ok ] || fail "$name: native CPU status '$st' ($(head -c 300 "$tmp/rt.err"))"
    rm -rf "$tmp/rt-$name"
  done < "$tmp/sample.txt"
  ok "native CPU runtime ran one case of each of $fam families"
else
  echo "skip: native LiteRT runtime not installed (build/litert-wheel/lib/libLiteRt.so): no CPU sample run"
fi

# 5. collect / table on a hand-written device output
python3 tests/sweep/test_collect.py > "$tmp/collect.txt" 2>&1 && ok "collect/table on tests/sweep/fixture ($(tail -n 3 "$tmp/collect.txt" | grep -o 'Ran [0-9]* tests'))" \
  || { cat "$tmp/collect.txt"; fail "tests/sweep/test_collect.py"; }

echo "gpu_sweep: $fails failure(s)"
[ $fails -eq 0 ]
