#!/usr/bin/env bash
# gpu_bisect_device.sh — on the GPU machine: `gpuclean bisect MODEL --runtime R --precision P
# --json` for every model, one document per line in $OUT/bisect.jsonl, plus a table.
#
# Two ways to run it there (no network, no Node.js, system python3 without numpy):
#   BISECT=1 bash runtime/litert/device.sh [PACK]   unpacks the pack made here by
#       runtime/litert/pack.sh MODEL... and runs this on every packed model (instead of
#       `gpuclean litert`);
#   bash tools/gpu_bisect_device.sh MODEL...        after device.sh has unpacked once (it
#       reuses /tmp/gpuclean-litert: gpuclean, libLiteRt, node); no MODEL: every unpacked one.
# Writes to $OUT (default ./device-out):
#   bisect.jsonl   one JSON document per model x runtime x precision (docs/json.md, "bisect
#                  MODEL --runtime"); on exit 2 (no GPU adapter, runtime missing, bad model)
#                  {"model", "runtime", "precision", "exit": 2, "error"} instead
#   bisect.md      one row per document: verdict, first divergent op, its error, probes used
#   bisect.txt     the text reports (TEXT=1 only: a second run of every bisection)
# Env: RUNTIMES ("native", "js" or "native js"; default native), PRECISIONS ("fp32", "fp16"
# or "fp32 fp16"; default fp32), TIMEOUT (per compile+run, default 120 s), TEXT (0),
# PACK (the pack folder, for per-model inputs $PACK/inputs/<model>/input_<k>.npy; default
# ./.device-litert), BISECT_ARGS (extra arguments, e.g. "--random 7"; for a dry run on a
# machine without a GPU: "--gpu-side interp", the verb's test seam), W (the unpack folder).
set -u
top=$(pwd)
out=${OUT:-$top/device-out}
W=${W:-/tmp/gpuclean-litert}
D=${PACK:-$top/.device-litert}
rts=${RUNTIMES:-native}; precs=${PRECISIONS:-fp32}; tmo=${TIMEOUT:-120}; text=${TEXT:-0}
read -r -a extra <<< "${BISECT_ARGS:-}"
gc=$W/build/gpuclean
if [ ! -x "$gc" ]; then
  gc=$top/build/gpuclean                         # not unpacked: this checkout's build (dry run)
  [ -x "$gc" ] || { echo "gpu_bisect_device.sh: no gpuclean: run BISECT=1 bash runtime/litert/device.sh (or make)" >&2; exit 2; }
fi
# the environment device.sh sets (when it did not call us)
if [ -d "$W/runtime/litert" ]; then export GPUCLEAN_HOME=${GPUCLEAN_HOME:-$W}; fi
[ -x "$W/bin/node" ] && export GPUCLEAN_NODE=${GPUCLEAN_NODE:-$W/bin/node}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && export VK_DRIVER_FILES=$icd
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$egl

models=("$@")
[ ${#models[@]} -eq 0 ] && models=("$W"/models/*.tflite)
mkdir -p "$out"
: > "$out/bisect.jsonl"
[ "$text" = 1 ] && : > "$out/bisect.txt"
jsonline() {  # jsonline MODEL RUNTIME PRECISION EXIT ERRFILE: the error record, one line
  python3 -c 'import json,re,sys
lines = [l for l in open(sys.argv[5], errors="replace").read().splitlines() if not re.match(r"gpuclean bisect: (probe [0-9]+:|done \[)", l)]
print(json.dumps({"model": sys.argv[1], "runtime": sys.argv[2], "precision": sys.argv[3], "exit": int(sys.argv[4]),
                  "error": "\n".join(lines).strip()[-2000:]}))' "$@"
}
n=0
for m in "${models[@]}"; do
  [ -f "$m" ] || { echo "gpu_bisect_device.sh: $m: no such model" >&2; continue; }
  b=$(basename "$m" .tflite)
  ins=()
  for f in "$D/inputs/$b"/input_*.npy; do
    [ -f "$f" ] || continue
    k=${f##*/input_}; ins+=(--input "${k%.npy}=$f")
  done
  for rt in $rts; do
    for p in $precs; do
      t0=$(date +%s)
      "$gc" bisect "$m" --runtime "$rt" --precision "$p" --timeout "$tmo" "${ins[@]}" "${extra[@]}" --json --progress \
          > "$out/.doc.json" 2> "$out/.err"
      rc=$?
      if [ -s "$out/.doc.json" ]; then tr -d '\n' < "$out/.doc.json" >> "$out/bisect.jsonl"; echo >> "$out/bisect.jsonl"
      else jsonline "$m" "$rt" "$p" "$rc" "$out/.err" >> "$out/bisect.jsonl"; fi
      echo "$b $rt $p: exit $rc in $(( $(date +%s) - t0 )) s: $(tail -n 1 "$out/bisect.jsonl" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["verdict"]["text"] if "verdict" in r else r["error"])')"
      if [ "$text" = 1 ]; then
        { echo "=== $b $rt $p"; "$gc" bisect "$m" --runtime "$rt" --precision "$p" --timeout "$tmo" "${ins[@]}" "${extra[@]}" --no-progress 2>&1; echo; } >> "$out/bisect.txt"
      fi
      n=$((n+1))
    done
  done
done
rm -f "$out/.doc.json" "$out/.err"
python3 - "$out/bisect.jsonl" > "$out/bisect.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cell = lambda s: str(s if s is not None else "").replace("|", "/").replace("\n", " ")[:110]
print("| model | runtime | precision | verdict | first divergent op | its max\\|diff\\| / limit / corr | inputs | probes (bound) | exit |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    name = r.get("model", "").split("/")[-1]
    if "verdict" not in r:
        print("| %s | %s | %s | error: %s |  |  |  |  | %s |" % (name, r.get("runtime"), r.get("precision"), cell(r.get("error")), r.get("exit")))
        continue
    f, op, err, ins = r.get("first"), "", "", ""
    if f:
        op = "op %d %s '%s' %s" % (f["op"], f["op_name"], f["tensor_name"], f["shape"])
        c = f["cmp"]
        if c["compared"]:
            err = "%.3g / %.3g / %s%s" % (c["max_abs"], c["limit"], "n/a" if c["corr"] is None else "%.4f" % c["corr"],
                                        " (%d NaN/Inf)" % c["nan_mismatch"] if c["nan_mismatch"] else "")
        ins = ", ".join("%s:%s" % (i["tensor_name"], i["verdict"] or i["kind"]) for i in r.get("first_inputs", []))
    print("| %s | %s | %s | %s | %s | %s | %s | %d (%d)%s | %d |" % (name, r["runtime"], r["precision"], cell(r["verdict"]["text"]),
          cell(op), err, cell(ins), r["probes_used"], r["probe_bound"], "" if r["monotone"] else ", not monotone", r["exit"]))
PY
cat "$out/bisect.md"
echo "gpu_bisect_device.sh: $n bisection(s); $out/bisect.jsonl"
