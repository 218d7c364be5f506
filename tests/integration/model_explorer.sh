#!/usr/bin/env bash
# model_explorer.sh — `check --model-explorer` and `bisect --model-explorer` overlays:
# always against Model Explorer's documented node-data format and the TFLite adapter's
# graph / node ids (model_explorer_check.py, standard library), and, where the
# ai-edge-model-explorer package is installed, loaded with the package itself: its TFLite
# adapter converts the model and its node-data classes read the overlay
# (model_explorer_pkg.py). The package is large (~650 MB with its adapter) and not part of
# the project venv; point GPUCLEAN_ME_PYTHON at a Python that has it, e.g.
#   python3 -m venv /tmp/mevenv && /tmp/mevenv/bin/pip install ai-edge-model-explorer
#   GPUCLEAN_ME_PYTHON=/tmp/mevenv/bin/python tests/integration/model_explorer.sh
# (/tmp/mevenv/bin/python and .venv/bin/python are tried when it is unset).
# Models: the hostile-named one (tests/integration/html_models.c), the demo model and its
# fixed form, corpus models (rejected nodes, a signature, several subgraphs) when
# ../shared/corpus is there. Exit 0 pass, 77 skip, else fail.
set -u
cd "$(dirname "$0")/../.."
bin=build/gpuclean
corpus=../shared/corpus
[ -x "$bin" ] || { echo "SKIP: $bin not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
me_py=""
for p in "${GPUCLEAN_ME_PYTHON:-}" /tmp/mevenv/bin/python .venv/bin/python; do
  [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import model_explorer.node_data_builder, model_explorer.builtin_tflite_flatbuffer_adapter' 2>/dev/null \
    && { me_py=$p; break; }
done
[ -n "$me_py" ] && echo "ai-edge-model-explorer: $me_py" \
  || echo "note: ai-edge-model-explorer not installed (GPUCLEAN_ME_PYTHON): checking against its documented format only"

models=()
cc -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -o "$tmp/html_models" tests/integration/html_models.c tests/c/test_check_cases.c \
   build/libgpuclean.a -lm -lpthread -ldl && "$tmp/html_models" "$tmp" && models+=("$tmp/hostile.tflite") \
   || fail "html_models.c"
[ -x build/demo-model ] || make -s build/demo-model >/dev/null 2>&1
if [ -x build/demo-model ]; then
  build/demo-model "$tmp/demo.tflite" >/dev/null && "$bin" fix "$tmp/demo.tflite" -o "$tmp/fixed.tflite" >/dev/null 2>&1 \
    && models+=("$tmp/demo.tflite" "$tmp/fixed.tflite")
fi
if [ -d "$corpus" ]; then
  # a signature naming an unnamed subgraph, two subgraphs, a named one, rejected nodes
  for m in qwen_fc_blockwise_quantized group_norm_2_groups_op mobilenet_v2_quantized_1x3x224x224 \
           movenet_single_pose_lightning_ptq torchaudio_conformer dp_net; do
    [ -f "$corpus/$m.tflite" ] && models+=("$corpus/$m.tflite")
  done
else
  echo "note: $corpus not found: corpus models skipped"
fi
for m in "${models[@]}"; do
  n=$(basename "$m" .tflite)
  "$bin" inspect "$m" --json > "$tmp/$n.inspect.json" || { fail "$n: inspect"; continue; }
  "$bin" check "$m" --json --model-explorer "$tmp/$n.verdict.json" > "$tmp/$n.check.json"
  [ $? -le 1 ] || { fail "$n: check --model-explorer"; continue; }
  python3 tests/integration/model_explorer_check.py "$tmp/$n.verdict.json" "$tmp/$n.inspect.json" --verdict "$tmp/$n.check.json" \
    || fails=$((fails+1))
  "$bin" bisect "$m" --json --model-explorer "$tmp/$n.error.json" > "$tmp/$n.bisect.json" 2> /dev/null; rc=$?
  if [ $rc -le 1 ] && [ -f "$tmp/$n.error.json" ]; then
    python3 tests/integration/model_explorer_check.py "$tmp/$n.error.json" "$tmp/$n.inspect.json" --error "$tmp/$n.bisect.json" \
      || fails=$((fails+1))
  else echo "note: $n: bisect exits $rc without an overlay (the interpreter cannot run it)"; fi
  if [ -n "$me_py" ]; then
    for o in verdict error; do
      [ -f "$tmp/$n.$o.json" ] || continue
      "$me_py" tests/integration/model_explorer_pkg.py "$m" "$tmp/$n.$o.json" "$tmp/$n.inspect.json" 2>&1 \
        | grep -v -e '^I0000' -e '^WARNING: All log' || true
      "$me_py" tests/integration/model_explorer_pkg.py "$m" "$tmp/$n.$o.json" "$tmp/$n.inspect.json" > /dev/null 2>&1 \
        || fails=$((fails+1))
    done
  fi
done
[ $fails -eq 0 ] && { echo "model_explorer: all passed"; exit 0; }
echo "model_explorer: $fails failure(s)"; exit 1
