#!/usr/bin/env bash
# tools/setup.sh — installs what the tests need, from the project's own files only:
#   * C: a C11 compiler and make (present on the CI image; apt-installed if missing)
#   * Node.js deps of the LiteRT.js runner (runtime/litert/setup.sh, pinned lockfile)
#   * the project's Python venv .venv (python/requirements*.txt, pinned), and PyTorch +
#     litert-torch into it (python/install-torch.sh)
#   * Debian's chromium (headless) for the HTML report test, where apt can install it
# Idempotent and quick when everything is already there. GPUCLEAN_SKIP_PYTHON=1 /
# GPUCLEAN_SKIP_NODE=1 / GPUCLEAN_SKIP_TORCH=1 skip parts.
#
#   tools/setup.sh [system] [litert] [python]     (no argument: all three, in that order)
#     system  apt: the compiler, make, Node, Python 3, chromium (only what is missing)
#     litert  runtime/litert/setup.sh: the LiteRT.js runner's Node deps, native libLiteRt.so
#     python  the venv .venv, then PyTorch + litert-torch (python/install-torch.sh)
# (tools/test.sh runs `python` beside the build: it only downloads into .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
for p in "$@"; do
  case $p in system|litert|python) ;; *) echo "usage: tools/setup.sh [system] [litert] [python]" >&2; exit 2 ;; esac
done
parts=("$@")
part() { [ ${#parts[@]} -eq 0 ] && return 0; local p; for p in "${parts[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
if part system; then
need_apt=()
command -v cc >/dev/null || need_apt+=(gcc)
command -v make >/dev/null || need_apt+=(make)
command -v node >/dev/null || need_apt+=(nodejs npm)
command -v python3 >/dev/null || need_apt+=(python3 python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} with apt"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${need_apt[@]}";
  else sudo apt-get update -qq && sudo apt-get install -y -qq "${need_apt[@]}"; fi
fi
# headless Chromium for the HTML report test (tests/integration/html_report.sh), optional:
# without apt (or root / sudo) it is left out and that test skips; GPUCLEAN_SKIP_CHROMIUM=1
if [ -z "${GPUCLEAN_SKIP_CHROMIUM:-}" ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  as_root=""; [ "$(id -u)" = 0 ] || as_root="sudo -n"
  if command -v apt-get >/dev/null && { [ -z "$as_root" ] || command -v sudo >/dev/null; }; then
    echo "setup: installing chromium with apt (for the HTML report test)"
    { $as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq chromium; } \
      || echo "setup: chromium not installed (apt failed): the HTML report test will skip"
  else
    echo "setup: no apt-get (or no root): chromium not installed; the HTML report test will skip"
  fi
fi
fi   # system
if part litert && [ -z "${GPUCLEAN_SKIP_NODE:-}" ] && [ -x runtime/litert/setup.sh ]; then
  echo "setup: LiteRT.js runner (runtime/litert)"
  runtime/litert/setup.sh
fi
if part python && [ -z "${GPUCLEAN_SKIP_PYTHON:-}" ] && [ -f python/requirements.txt ]; then
  echo "setup: Python venv .venv"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  stamp=.venv/.gpuclean-req
  want=$(cat python/requirements*.txt | sha256sum | cut -c1-16)
  if [ "$(cat $stamp 2>/dev/null)" != "$want" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    for r in python/requirements*.txt; do .venv/bin/python -m pip install -q -r "$r"; done
    [ -f python/pyproject.toml ] && .venv/bin/python -m pip install -q -e python --no-deps
    echo "$want" > $stamp
  fi
  # PyTorch (CPU) + litert-torch, pinned, without the ~2.5 GB of nvidia wheels
  # (GPUCLEAN_SKIP_TORCH=1 skips it; the torch-dependent tests then skip)
  python/install-torch.sh "$PWD/.venv"
fi
echo "setup: done"
