#!/usr/bin/env bash
# setup.sh — installs what `gpuclean litert` needs, idempotently, and fast when it is
# already there:
#   * the LiteRT.js runner's Node dependencies (@litertjs/core 2.5.3, webgpu 0.6.2,
#     pinned by package-lock.json) into runtime/litert/node_modules (`npm ci`);
#   * the native LiteRT runtime: libLiteRt.so (the CompiledModel C API) and
#     libLiteRtWebGpuAccelerator.so from the ai-edge-litert wheel on PyPI (pinned below),
#     unpacked into build/litert-wheel/lib (git-ignored).
# Each part is optional: a machine without npm or pip gets the other part and a warning.
# Exit 0 unless both parts failed. Called by tools/setup.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
WHEEL_VERSION=2.3.0            # ai-edge-litert: ships libLiteRt.so + WebGPU accelerator
wheel_dir="$top/build/litert-wheel"
ok_js=0; ok_native=0

# ---- LiteRT.js runner ---------------------------------------------------------------
stamp="$here/node_modules/.gpuclean-installed"
if [ -f "$stamp" ] && [ "$stamp" -nt "$here/package-lock.json" ] \
   && [ -f "$here/node_modules/@litertjs/core/package.json" ] \
   && [ -f "$here/node_modules/webgpu/dist/linux-x64/dawn.node" ]; then
  ok_js=1
elif command -v npm >/dev/null 2>&1; then
  echo "litert: installing LiteRT.js runner dependencies (npm ci)"
  # webgpu's postinstall only clears a macOS quarantine flag; dawn.node ships in the
  # package, so install scripts are not needed on Linux.
  if (cd "$here" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error); then
    touch "$stamp"; ok_js=1
  else
    echo "litert: warning: npm ci failed; the LiteRT.js runtime is not installed" >&2
  fi
else
  echo "litert: warning: npm not found; the LiteRT.js runtime is not installed" >&2
fi

# ---- native runtime from the ai-edge-litert wheel ---------------------------------------
lib="$wheel_dir/lib"
if [ -f "$lib/libLiteRt.so" ] && [ -f "$lib/VERSION" ] && [ "$(cat "$lib/VERSION")" = "$WHEEL_VERSION" ]; then
  ok_native=1
elif command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  echo "litert: fetching ai-edge-litert==$WHEEL_VERSION (native libLiteRt.so)"
  mkdir -p "$wheel_dir"
  # The shared libraries do not depend on the Python version; pin the tag so that the
  # same file is fetched on every machine.
  if python3 -m pip download --quiet --no-deps --only-binary=:all: \
        --python-version 3.11 --implementation cp --platform manylinux_2_27_x86_64 \
        -d "$wheel_dir" "ai-edge-litert==$WHEEL_VERSION"; then
    whl=$(ls "$wheel_dir"/ai_edge_litert-"$WHEEL_VERSION"-*.whl 2>/dev/null | head -n1)
    if [ -n "$whl" ] && python3 - "$whl" "$lib" <<'PY'
import sys, zipfile, os
whl, dest = sys.argv[1], sys.argv[2]
os.makedirs(dest, exist_ok=True)
with zipfile.ZipFile(whl) as z:
    for name in ("libLiteRt.so", "libLiteRtWebGpuAccelerator.so"):
        data = z.read("ai_edge_litert/" + name)
        tmp = os.path.join(dest, name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o755)
        os.replace(tmp, os.path.join(dest, name))
PY
    then
      echo "$WHEEL_VERSION" > "$lib/VERSION"; ok_native=1
    else
      echo "litert: warning: could not unpack the ai-edge-litert wheel" >&2
    fi
  else
    echo "litert: warning: pip could not fetch ai-edge-litert==$WHEEL_VERSION" >&2
  fi
else
  echo "litert: warning: python3 -m pip not found; the native LiteRT runtime is not installed" >&2
fi

[ $ok_js -eq 1 ] && echo "litert: LiteRT.js runner ready ($here)"
[ $ok_native -eq 1 ] && echo "litert: native libLiteRt.so ready ($lib)"
[ $ok_js -eq 1 ] || [ $ok_native -eq 1 ]
