#!/usr/bin/env bash
# pack.sh — packs what `gpuclean litert` needs on a GPU machine that has no network and no
# Node.js into one git-ignored folder of the checkout (default .device-litert), to be
# carried there (the device tool's `carry`) and unpacked by runtime/litert/device.sh:
#   node.xz        this machine's node binary
#   dawn.xz        dawn.node (WebGPU for Node, from npm webgpu)
#   app.tar.xz     runtime/litert: runner.mjs, package*.json and node_modules (without
#                  dawn.node and the JSPI/threaded wasm builds the runner does not load)
#   native.tar.xz  libLiteRt.so + libLiteRtWebGpuAccelerator.so + VERSION (ai-edge-litert)
#   gpuclean.xz    build/gpuclean (built here, x86-64)
#   *.deb          the Vulkan/GL loader libraries (libvulkan1, libegl1, ...)
#   models/        the models to run (default: every ../shared/corpus/*.tflite), xz'd
# Usage: runtime/litert/pack.sh [--dest DIR] [--no-native] [MODEL.tflite ...]   (XZ_LEVEL=1: faster, for twins)
# Needs: make (build/gpuclean), runtime/litert/setup.sh done, xz, apt-get (for the .debs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
dest=$top/.device-litert; native=1; models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dest) dest=$2; shift ;;
    --no-native) native=0 ;;
    *) models+=("$1") ;;
  esac
  shift
done
[ -x "$top/build/gpuclean" ] || { echo "pack.sh: build/gpuclean missing: run make" >&2; exit 2; }
[ -f "$here/node_modules/webgpu/dist/linux-x64/dawn.node" ] || { echo "pack.sh: run runtime/litert/setup.sh first" >&2; exit 2; }
if [ ${#models[@]} -eq 0 ]; then models=("$top"/../shared/corpus/*.tflite); fi
rel=${dest#"$top"/}
if [ "$rel" != "$dest" ] && [ -d "$top/.git" ]; then
  grep -qx "/$rel/" "$top/.git/info/exclude" 2>/dev/null || echo "/$rel/" >> "$top/.git/info/exclude"
fi
mkdir -p "$dest"
rm -rf "$dest/models"; mkdir -p "$dest/models"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# node and dawn.node change rarely: keep them when already packed from the same file.
nodebin=$(readlink -f "$(command -v node)")
if [ ! -f "$dest/node.xz" ] || [ "$nodebin" -nt "$dest/node.xz" ]; then xz -T2 -9 -c "$nodebin" > "$dest/node.xz"; fi
dawn=$here/node_modules/webgpu/dist/linux-x64/dawn.node
if [ ! -f "$dest/dawn.xz" ] || [ "$dawn" -nt "$dest/dawn.xz" ]; then xz -T2 -9 -c "$dawn" > "$dest/dawn.xz"; fi

mkdir -p "$work/litert"
cp "$here/runner.mjs" "$here/package.json" "$here/package-lock.json" "$work/litert/"
cp -rL "$here/node_modules" "$work/litert/"   # -L: node_modules may be a symlink (worktrees)
rm -rf "$work/litert/node_modules/webgpu/dist"/* \
       "$work/litert/node_modules/@litertjs/core/wasm/"*jspi* \
       "$work/litert/node_modules/@litertjs/core/wasm/"*threaded* \
       "$work/litert/node_modules/@litertjs/core/dist/"*.map
(cd "$work" && tar cf - litert | xz -T2 -9 > "$dest/app.tar.xz")

rm -f "$dest/native.tar.xz"
if [ $native -eq 1 ]; then
  lib=$top/build/litert-wheel/lib
  if [ -f "$lib/libLiteRt.so" ]; then
    (cd "$top/build/litert-wheel" && tar cf - lib | xz -T2 -9 > "$dest/native.tar.xz")
  else
    echo "pack.sh: warning: $lib/libLiteRt.so missing: native runtime not packed" >&2
  fi
fi
xz -T2 -9 -c "$top/build/gpuclean" > "$dest/gpuclean.xz"

if ! ls "$dest"/libvulkan1_*.deb >/dev/null 2>&1; then
  lists=$(mktemp -d); mkdir -p "$lists/partial"
  o="-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$lists"
  apt-get $o update -qq >/dev/null 2>&1 || true
  (cd "$dest" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null 2>&1) \
    || echo "pack.sh: warning: could not download the Vulkan/GL loader .debs" >&2
  rm -rf "$lists"
fi
for m in "${models[@]}"; do xz -T2 -${XZ_LEVEL:-6} -c "$m" > "$dest/models/$(basename "$m").xz"; done

total=$(du -sm "$dest" | cut -f1)
echo "packed into $dest: ${total} MiB (node, dawn.node, LiteRT.js runner, $( [ -f "$dest/native.tar.xz" ] && echo 'native libLiteRt, ')gpuclean, ${#models[@]} model(s))"
if [ "$total" -gt 58 ]; then
  echo "pack.sh: warning: over ~58 MiB; the device tool carries at most 64 MiB with the checkout: pack fewer models per run" >&2
fi
echo "on the GPU machine, from the checkout root: bash runtime/litert/device.sh   (results in \$OUT)"
