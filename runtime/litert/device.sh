#!/usr/bin/env bash
# device.sh — on a GPU machine (no network, no Node.js), from the checkout root with the
# folder made by runtime/litert/pack.sh carried along: unpacks node, dawn.node, the
# LiteRT.js runner, the native libLiteRt.so, gpuclean and the Vulkan loader, then runs
#   gpuclean litert MODEL --accelerator both --precision both --runtime both --json
# on every packed model and writes to $OUT (or ./device-out):
#   litert-gpu.md      one table row per model: verdict per runtime, residency, parity
#   reports.jsonl      each model's --json report, one per line
#   reports.txt        each model's text report
#   results.tar.xz     every result.json and runtime log (no .npy), for a closer look
#   env.txt            GPU, driver, Vulkan ICD, versions
# Usage: bash runtime/litert/device.sh [PACK_DIR]   (default .device-litert)
# A model packed with inputs of its own ($D/inputs/<model>/input_<k>.npy) is fed those.
# Env: JOBS (models run at once, default 3), TIMEOUT (per mode, default 120 s), RUNS (3),
# TEXT=0 (skip the second, text-only run of each model), RUNTIMES (js|native|both),
# SKIP_DEBS=1 (do not unpack the loader .debs into /: for a dry run on a CPU machine),
# KEEP_NPY=1 (also $OUT/npy.tar.xz: every output .npy),
# BISECT=1 (run `gpuclean bisect --runtime` on every model instead: tools/gpu_bisect_device.sh).
set -u
top=$(pwd)
D=${1:-$top/.device-litert}
case "$D" in /*) ;; *) D=$top/$D ;; esac   # the unpacking below runs in other folders
out=${OUT:-$top/device-out}
W=/tmp/gpuclean-litert
jobs=${JOBS:-3}; tmo=${TIMEOUT:-120}; runs=${RUNS:-3}; text=${TEXT:-1}; rts=${RUNTIMES:-both}
mkdir -p "$out" "$W/bin" "$W/runtime" "$W/build/litert-wheel"
[ -f "$D/node.xz" ] || { echo "device.sh: $D/node.xz missing: run runtime/litert/pack.sh here first and carry it" >&2; exit 2; }

# ---- unpack: node and the loader once per machine, the rest every run (it may change) ----
if [ ! -x "$W/bin/node" ]; then xz -dc "$D/node.xz" > "$W/bin/node.tmp" && chmod +x "$W/bin/node.tmp" && mv "$W/bin/node.tmp" "$W/bin/node"; fi
rm -rf "$W/runtime/litert" "$W/build/litert-wheel/lib" "$W/models" "$W/results"
(cd "$W/runtime" && xz -dc "$D/app.tar.xz" | tar xf -)
mkdir -p "$W/runtime/litert/node_modules/webgpu/dist/linux-x64"
xz -dc "$D/dawn.xz" > "$W/runtime/litert/node_modules/webgpu/dist/linux-x64/dawn.node"
[ -f "$D/native.tar.xz" ] && (cd "$W/build/litert-wheel" && xz -dc "$D/native.tar.xz" | tar xf -)
xz -dc "$D/gpuclean.xz" > "$W/build/gpuclean" && chmod +x "$W/build/gpuclean"
if [ -z "${SKIP_DEBS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q libvulkan.so.1; then
  for f in "$D"/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
  ldconfig
fi
export GPUCLEAN_HOME=$W GPUCLEAN_NODE=$W/bin/node XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && export VK_DRIVER_FILES=$icd
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$egl

{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 4
  echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
  ldconfig -p | grep -E "libvulkan.so.1|libEGL.so.1" | head -n 2
  echo "node: $("$W/bin/node" --version)"
  echo "native: $(cat "$W/build/litert-wheel/lib/VERSION" 2>/dev/null || echo 'not packed')"
  "$W/bin/node" -e "
    import('$W/runtime/litert/node_modules/webgpu/index.js').then(async ({create}) => {
      const a = await create([]).requestAdapter({powerPreference: 'high-performance'});
      console.log('webgpu adapter:', a ? JSON.stringify(a.info) : 'none');
      process.exit(0);
    }).catch(e => { console.log('webgpu failed:', e.message); process.exit(0); });" 2>&1 | tail -n 2
} > "$out/env.txt" 2>&1
cat "$out/env.txt"

# ---- run every packed model ------------------------------------------------------------
mkdir -p "$W/models" "$W/results"
for z in "$D"/models/*.xz; do [ -f "$z" ] && xz -dc "$z" > "$W/models/$(basename "$z" .xz)"; done
# BISECT=1: `gpuclean bisect --runtime` on every packed model instead (tools/gpu_bisect_device.sh:
# $OUT/bisect.jsonl, bisect.md; RUNTIMES / PRECISIONS / TIMEOUT as documented there)
if [ "${BISECT:-0}" = 1 ]; then
  OUT=$out W=$W PACK=$D RUNTIMES=${RUNTIMES:-native} exec bash "$top/tools/gpu_bisect_device.sh" "$W"/models/*.tflite
fi
one() {
  m=$1; b=$(basename "$m" .tflite)
  # inputs of its own where packed: $D/inputs/<model>/input_<k>.npy (else the sin pattern)
  ins=()
  for f in "$D/inputs/$b"/input_*.npy; do
    [ -f "$f" ] || continue
    k=${f##*/input_}; ins+=(--input "${k%.npy}=$f")
  done
  "$W/build/gpuclean" litert "$m" --accelerator both --precision both --runtime "$rts" "${ins[@]}" \
      --timeout "$tmo" --runs "$runs" --json --out "$W/results/$b" > "$W/results/$b.json" 2> "$W/results/$b.err"
  echo $? > "$W/results/$b.rc"
  if [ "$text" = 1 ]; then
    "$W/build/gpuclean" litert "$m" --accelerator both --precision both --runtime "$rts" "${ins[@]}" \
        --timeout "$tmo" --runs 0 > "$W/results/$b.txt" 2>&1 || true     # the text view
  else
    : > "$W/results/$b.txt"
  fi
}
export -f one; export W D tmo runs text rts
ls "$W"/models/*.tflite | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {}

# ---- collect ----------------------------------------------------------------------------
: > "$out/reports.jsonl"; : > "$out/reports.txt"
for j in "$W"/results/*.json; do
  b=$(basename "$j" .json)
  if [ -s "$j" ]; then tr -d '\n' < "$j" >> "$out/reports.jsonl"; echo >> "$out/reports.jsonl"
  else printf '{"model":"%s","error":%s}\n' "$b" "$("$W/bin/node" -e 'console.log(JSON.stringify(require("fs").readFileSync(process.argv[1],"utf8")))' "$W/results/$b.err")" >> "$out/reports.jsonl"; fi
  { echo "=== $b (exit $(cat "$W/results/$b.rc"))"; cat "$W/results/$b.txt"; echo; } >> "$out/reports.txt"
done
"$W/bin/node" - "$out/reports.jsonl" > "$out/litert-gpu.md" <<'JS'
const lines = require('fs').readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
const cell = s => String(s ?? '').replace(/\|/g, '/').replace(/\n/g, ' ').slice(0, 90);
console.log('| model | verdict | js gpu-fp32 | js gpu-fp16 | native gpu-fp32 | native gpu-fp16 | residency (js fp32) | parity js fp32 (max abs / corr) | parity js fp16 | exit |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const l of lines) {
  let r; try { r = JSON.parse(l); } catch { continue; }
  const name = (r.model || '').split('/').pop();
  if (!r.runtimes) { console.log(`| ${name} | error: ${cell(r.error)} |||||||||`); continue; }
  const mode = (rt, m) => ((r.runtimes[rt] || {}).modes || []).find(x => x.mode === m);
  const st = (rt, m) => { const x = mode(rt, m); if (!x) return ''; return x.status + (x.residency ? ` ${x.residency.gpu_ops}/${x.residency.gpu_ops + x.residency.cpu_ops}` : '') + (x.fallback_all ? ' (fallback)' : ''); };
  const par = (rt, m) => { const c = (r.comparisons || []).find(c => c.runtime === rt && c.mode === m);
    if (!c) return ''; return c.outputs.map(o => o.problem ? 'n/a' : `${Number(o.max_abs).toPrecision(3)}/${o.corr === null ? 'n/a' : Number(o.corr).toFixed(4)}${o.identical ? ' =' : ''}`).join(', '); };
  const res = (mode('js', 'gpu-fp32') || {}).residency;
  console.log(`| ${name} | ${cell(r.verdict && r.verdict.text)} | ${st('js', 'gpu-fp32')} | ${st('js', 'gpu-fp16')} | ${st('native', 'gpu-fp32')} | ${st('native', 'gpu-fp16')} | ${res ? res.gpu_ops + '/' + (res.gpu_ops + res.cpu_ops) : ''} | ${cell(par('js', 'gpu-fp32'))} | ${cell(par('js', 'gpu-fp16'))} | ${r.exit} |`);
}
JS
# KEEP_NPY=1: every mode's output_<k>.npy too, in $OUT/npy.tar.xz (bit-level probes: tools/fp16_arith_probe.py)
[ "${KEEP_NPY:-0}" = 1 ] && (cd "$W/results" && find . -name 'output_*.npy' | tar cf - -T - | xz -T4 -1 > "$out/npy.tar.xz")
(cd "$W/results" && find . -name result.json -o -name '*.log' -o -name mode.json -o -name '*.err' | tar cf - -T - | xz -T4 -6 > "$out/results.tar.xz")
cat "$out/litert-gpu.md"
echo "device.sh: $(wc -l < "$out/reports.jsonl") model(s); results in $out"
