#!/usr/bin/env bash
# litert_cpu.sh — CPU latency of the native LiteRT runtime (libLiteRt.so, XNNPACK) next to
# LiteRT.js (XNNPACK in WebAssembly) on the corpus models, through `gpuclean litert
# --accelerator cpu --json`. Also shows each runtime's status and how far the two CPU
# results are apart (max |diff| over all outputs).
#   bench/litert_cpu.sh [--all] [--runs N] [MODEL.tflite ...]
# Default models: the float-input models of ../shared/corpus (--all: every corpus model).
# Prints a Markdown table; latency is the mean of N timed runs after a warm-up run.
set -u
cd "$(dirname "$0")/.."
runs=10; all=0; models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --all) all=1 ;;
    --runs) runs=$2; shift ;;
    *) models+=("$1") ;;
  esac
  shift
done
bin=build/gpuclean
[ -x "$bin" ] || { echo "litert_cpu.sh: build/gpuclean missing (make)" >&2; exit 2; }
if [ ${#models[@]} -eq 0 ]; then
  [ -d ../shared/corpus ] || { echo "litert_cpu.sh: ../shared/corpus not found" >&2; exit 2; }
  models=(../shared/corpus/*.tflite)
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '| model | js cpu | native cpu | outputs agree (max abs) | js ms | native ms | native speed-up |\n'
printf '|---|---|---|---|---:|---:|---:|\n'
for m in "${models[@]}"; do
  b=$(basename "$m" .tflite)
  "$bin" litert "$m" --accelerator cpu --runs "$runs" --json --out "$tmp/$b" > "$tmp/$b.json" 2>"$tmp/$b.err"
  python3 - "$tmp/$b.json" "$b" "$all" <<'PY'
import json, sys
path, name, show_all = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
try:
    r = json.load(open(path))
except Exception as e:
    print(f"| {name} | (no result: {e}) | | | | | |"); sys.exit(0)
def mode(rt):
    x = r["runtimes"].get(rt)
    if not x or not x.get("ran"): return None, (x or {}).get("reason", "not run")
    for m in x["modes"]:
        if m["mode"] == "cpu": return m, None
    return None, "no cpu mode"
def desc(m, why):
    if m is None: return "not run"
    if m["status"] == "ok": return "ok"
    return m["status"] + ": " + (m.get("limit") or (m.get("error") or "").split("\n")[0])[:70]
def ms(m):
    if not m or m["status"] != "ok": return None
    v = [s["avg_ms"] for s in m["signatures"] if s.get("avg_ms") is not None]
    return sum(v) if v else None
js, jw = mode("js"); na, nw = mode("native")
floaty = False
for m in (js, na):
    for s in (m or {}).get("signatures", []):
        pass
# Float models: every input of the native (or js) run is float32.
src = None
for rt in ("native", "js"):
    d = f"{r['runtimes'].get(rt, {}).get('dir', '')}/result.json"
    try: src = json.load(open(d)); break
    except Exception: pass
if src:
    ins = [i for mm in src["modes"] if mm["mode"] == "cpu" for s in mm.get("signatures", []) for i in s.get("inputs", [])]
    floaty = bool(ins) and all(i["dtype"] == "float32" for i in ins)
if not show_all and not floaty: sys.exit(0)
agree = ""
for c in r["comparisons"]:
    if c["mode"] == "cpu" and c["runtime"] == "native":
        mx = max([o.get("max_abs", float("nan")) for o in c["outputs"]] or [float("nan")])
        nf = sum(o.get("nan_mismatch", 0) for o in c["outputs"])
        ok = all(o.get("pass") for o in c["outputs"])
        agree = f"{'yes' if ok else 'NO'} ({mx:.3g}{', %d non-finite' % nf if nf else ''})"
jm, nm = ms(js), ms(na)
f = lambda v: "" if v is None else f"{v:.3g}"
sp = f"{jm / nm:.1f}x" if jm and nm else ""
print(f"| {name} | {desc(js, jw)} | {desc(na, nw)} | {agree} | {f(jm)} | {f(nm)} | {sp} |")
PY
done
