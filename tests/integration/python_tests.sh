#!/usr/bin/env bash
# python_tests.sh — pytest on python/tests with the project venv (.venv): the ctypes
# binding, litert_gpu_toolkit, the rewrite catalogue (exactness against PyTorch on
# random inputs), litert-torch conversions (the hostile op gone, GPU verdict before ->
# after) and the convert_for_gpu loop on the demo network. Tests that need torch /
# litert-torch skip with the reason where python/install-torch.sh has not been run.
# Exit 0 pass, 77 skip (with the reason), else fail.
set -u
cd "$(dirname "$0")/../.."
py=.venv/bin/python
[ -x "$py" ] || { echo "SKIP: no project venv .venv (tools/setup.sh)"; exit 77; }
"$py" -c "import numpy, pytest" 2>/dev/null || { echo "SKIP: numpy/pytest missing in .venv (tools/setup.sh)"; exit 77; }
[ -f build/libgpuclean.so ] || { echo "SKIP: build/libgpuclean.so not built (make)"; exit 77; }
# the package from this source tree, first: the venv's editable install (tools/setup.sh)
# may point at another checkout when worktrees share one venv
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
nm -D build/libgpuclean.so 2>/dev/null | grep -q ' T gc_api_version' || { echo "FAIL: build/libgpuclean.so lacks the gc_api facade (src/api)"; exit 1; }
if ! "$py" -c "import torch, litert_torch" 2>/dev/null; then
  echo "note: torch / litert-torch not installed (python/install-torch.sh): their tests skip"
fi
export TF_CPP_MIN_LOG_LEVEL=3
# the slow real-architecture conversions run in `make test-slow` (GPUCLEAN_SLOW=1)
sel=(-m "not slow"); [ -n "${GPUCLEAN_SLOW:-}" ] && sel=()
"$py" -m pytest -q -rs -p no:cacheprovider "${sel[@]}" python/tests "$@"
rc=$?
[ $rc -eq 5 ] && { echo "SKIP: pytest collected no tests"; exit 77; }
exit $rc
