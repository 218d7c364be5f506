#!/usr/bin/env bash
# python/install-torch.sh — PyTorch (CPU) and litert-torch into the project venv, pinned,
# as small as the pins allow. Idempotent: a stamp holding the hash of the pin list makes
# a second run instant.
#
#   python/install-torch.sh [VENV]      (default: .venv at the repository root)
#
# 1. pip install --no-deps -r python/torch-requirements-nodeps.txt: torch and only the
#    packages that `import torch` and `litert_torch.convert` use (no nvidia-* wheels,
#    no transformers); the repository's python/requirements.txt goes first (numpy);
# 2. python/tools/torch_cpu_stubs.py: stub CUDA libraries so the CUDA-built PyPI
#    wheel imports on a CPU-only machine (torch.cuda.is_available() is False);
#    then python/zoo-requirements-nodeps.txt: torchvision, timm, transformers (CPU);
# 3. a smoke test: a tiny module through litert_torch.convert.
# Needs a C compiler (cc), nm and readelf (binutils). GPUCLEAN_SKIP_TORCH=1 skips all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
venv=${1:-$top/.venv}
[ -n "${GPUCLEAN_SKIP_TORCH:-}" ] && { echo "install-torch: skipped (GPUCLEAN_SKIP_TORCH)"; exit 0; }
for tool in cc nm readelf; do
  command -v $tool >/dev/null || { echo "install-torch: $tool is needed (apt-get install build-essential binutils)" >&2; exit 1; }
done
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
py=$venv/bin/python
stamp=$venv/.gpuclean-torch
want=$(cat "$here/requirements.txt" "$here/torch-requirements-nodeps.txt" "$here/zoo-requirements-nodeps.txt" "$here/tools/torch_cpu_stubs.py" | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && "$py" -c "import torch, litert_torch, torchvision, timm, transformers" 2>/dev/null; then
  echo "install-torch: up to date ($venv)"; exit 0
fi
t0=$(date +%s)
"$py" -m pip install -q -r "$here/requirements.txt"
"$py" -m pip install -q --no-deps -r "$here/torch-requirements-nodeps.txt"
# the zoo's model libraries (torchvision, timm, transformers), no CUDA wheels either
"$py" -m pip install -q --no-deps -r "$here/zoo-requirements-nodeps.txt"
"$py" "$here/tools/torch_cpu_stubs.py"
"$py" - <<'PY'
import os, tempfile, torch, litert_torch
import torchvision, timm, transformers
assert not torch.cuda.is_available()
class M(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2.0
d = tempfile.mkdtemp()
litert_torch.convert(M().eval(), (torch.randn(1, 4),)).export(os.path.join(d, "m.tflite"))
print("install-torch: torch %s, litert-torch converts (CPU only)" % torch.__version__)
PY
echo "$want" > "$stamp"
echo "install-torch: done in $(( $(date +%s) - t0 )) s; venv $(du -sh "$venv" | cut -f1)"
