#!/usr/bin/env bash
# wheel.sh — the wheel users install (`make wheel`), in a fresh venv outside the checkout,
# with GPUCLEAN_HOME / GPUCLEAN_BIN / GPUCLEAN_LIB / GPUCLEAN_LITERT_LIB unset, the working
# directory a temp folder and the repository not on sys.path:
#   1. make wheel (incremental); RECORD lists every file with its sha256 and size; the tag's
#      glibc version is the highest GLIBC_x.y that `objdump -T` shows for the binaries
#   2. python3 -m venv + pip install 'dist/gpuclean-*.whl[runtime]' (ai-edge-litert from
#      build/litert-wheel when runtime/litert/setup.sh left it there, else the index)
#   3. gpuclean --version is src/cli/main.c's; `gpuclean check` and `python -m gpuclean
#      check` print what build/gpuclean prints for the demo model and for its fixed form,
#      the fixed one "(GPU-clean)"; the wheel's `gpuclean fix` writes the same bytes
#   4. the seed's snippet (print_report(check_gpu_compatibility("model.tflite"))): no
#      "Status: FAILED" on the fixed model, "Status: FAILED" on the hostile one
#   5. `gpuclean litert MODEL --runtime native --accelerator cpu`: the installed
#      ai_edge_litert's libLiteRt.so runs it, the pinned version is reported
#   6. `--runtime js` names `gpuclean setup-js` before it ran; after it (npm ci into a temp
#      GPUCLEAN_CACHE) LiteRT.js runs the model (skipped without npm)
#   7. convert_for_gpu (the seed's call form, from litert_gpu_toolkit) on a tiny torch module
#      whose BROADCAST_TO the GPU rejects: plain
#      1/5 nodes, the wheel's `gpuclean fix` makes it GPU-clean with parity. torch and
#      litert-torch: no pinned torch wheels are kept on this machine to install from, so
#      they come from the project venv (.venv), whose site-packages a .pth appends AFTER the
#      fresh venv's own; everything of gpuclean and litert_gpu_toolkit is checked to load
#      from the wheel's install. Skipped (with a message) when .venv has no torch.
# Exit 0 pass, 77 skip (with the reason), else fail.
set -u
cd "$(dirname "$0")/../.."
repo=$PWD
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
python3 -c "import venv, ensurepip" 2>/dev/null || { echo "SKIP: python3 has no venv/ensurepip (apt-get install python3-venv)"; exit 77; }
[ -x build/demo-model ] || make -s -j2 build/demo-model >/dev/null || { echo "FAIL: make build/demo-model"; exit 1; }
[ -x build/gpuclean ] || { echo "SKIP: build/gpuclean not built (make)"; exit 77; }

fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
ok() { echo "ok: $*"; }

# ---- 1. the wheel ---------------------------------------------------------------------------
make -s -j2 wheel >/dev/null || { echo "FAIL: make wheel"; exit 1; }
version=$(sed -n 's/^#define GPUCLEAN_VERSION "\(.*\)"/\1/p' src/cli/main.c)
whl=$(ls dist/gpuclean-"$version"-py3-none-manylinux_*.whl 2>/dev/null | head -n1)
[ -n "$whl" ] || { echo "FAIL: make wheel left no dist/gpuclean-$version-py3-none-manylinux_*.whl"; ls dist; exit 1; }
whl=$repo/$whl
ok "built $(basename "$whl")"
python3 - "$whl" <<'PY' && ok "RECORD: every file listed with its sha256 and size" || fail "RECORD does not match the wheel"
import base64, hashlib, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
rec = [n for n in names if n.endswith(".dist-info/RECORD")]
assert len(rec) == 1, rec
listed = set()
for line in z.read(rec[0]).decode().splitlines():
    name, h, size = line.rsplit(",", 2)
    listed.add(name)
    if name == rec[0]:
        assert h == "" and size == "", line
        continue
    data = z.read(name)
    algo, digest = h.split("=", 1)
    want = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
    assert digest == want, "hash of " + name
    assert int(size) == len(data), "size of " + name
assert listed == names, sorted(names ^ listed)
for need in ("gpuclean/_bin/gpuclean", "gpuclean/_lib/libgpuclean.so",
             "gpuclean/_share/runtime/litert/runner.mjs", "gpuclean/_share/runtime/litert/package.json",
             "gpuclean/_share/runtime/litert/package-lock.json", "litert_gpu_toolkit/__init__.py"):
    assert need in names, need
assert (z.getinfo("gpuclean/_bin/gpuclean").external_attr >> 16) & 0o111, "CLI not executable"
assert not any("node_modules" in n or "__pycache__" in n for n in names)
PY
tag_glibc=$(basename "$whl" | sed -n 's/.*manylinux_\([0-9]*\)_\([0-9]*\)_.*/\1.\2/p')
if command -v objdump >/dev/null; then
  tmpx=$(mktemp -d)
  (cd "$tmpx" && unzip -q "$whl" gpuclean/_bin/gpuclean gpuclean/_lib/libgpuclean.so)
  max=$(objdump -T "$tmpx"/gpuclean/_bin/gpuclean "$tmpx"/gpuclean/_lib/libgpuclean.so \
        | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n1 | cut -d. -f1,2)
  rm -rf "$tmpx"
  [ "$max" = "$tag_glibc" ] && ok "tag manylinux_${tag_glibc/./_}: objdump -T's highest GLIBC version is $max" \
    || fail "tag says glibc $tag_glibc, objdump -T says $max"
else
  echo "note: objdump not found: the tag's glibc version is not cross-checked"
fi

# ---- 2. a fresh venv outside the checkout ----------------------------------------------------
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
venv=$tmp/venv
python3 -m venv "$venv" || { echo "FAIL: python3 -m venv"; exit 1; }
links=()
[ -d build/litert-wheel ] && links=(--find-links "$repo/build/litert-wheel")
t0=$(date +%s)
if ! (cd "$tmp" && "$venv/bin/python" -m pip install -q "${links[@]}" "$whl[runtime]") > "$tmp/pip.log" 2>&1; then
  cat "$tmp/pip.log"; echo "FAIL: pip install $(basename "$whl")[runtime]"; exit 1
fi
ok "pip install $(basename "$whl")[runtime] into a fresh venv ($(( $(date +%s) - t0 )) s)"
node_dir=$(dirname "$(command -v node 2>/dev/null || echo /usr/bin/node)")
npm_dir=$(dirname "$(command -v npm 2>/dev/null || echo /usr/bin/npm)")
# the user's environment: only the venv, the system tools and Node; none of gpuclean's variables
X() { (cd "$tmp/work" && env -u GPUCLEAN_HOME -u GPUCLEAN_BIN -u GPUCLEAN_LIB -u GPUCLEAN_LITERT_LIB \
        -u GPUCLEAN_NODE -u PYTHONPATH -u VIRTUAL_ENV GPUCLEAN_CACHE="$tmp/cache" \
        PATH="$venv/bin:$node_dir:$npm_dir:/usr/local/bin:/usr/bin:/bin" "$@"); }
mkdir -p "$tmp/work"
build/demo-model "$tmp/work/hostile.tflite" >/dev/null || { echo "FAIL: build/demo-model"; exit 1; }
build/gpuclean fix "$tmp/work/hostile.tflite" -o "$tmp/ref-fixed.tflite" >/dev/null 2>&1
site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")

# the package and its binaries are the wheel's, and nothing of the checkout is on sys.path
X python - "$site" "$repo" <<'PY' && ok "gpuclean, litert_gpu_toolkit, the CLI and libgpuclean.so load from the wheel's install" || fail "the installed package is not self-contained"
import os, sys
site, repo = (os.path.realpath(p) for p in sys.argv[1:])
import gpuclean, litert_gpu_toolkit, gpuclean.runtime, gpuclean._lib as L
for p in sys.path:
    rp = os.path.realpath(p or os.getcwd())
    assert rp not in (repo, os.path.join(repo, "python")), "on sys.path: " + p
for name, m in list(sys.modules.items()):
    if name.split(".")[0] in ("gpuclean", "litert_gpu_toolkit"):
        assert os.path.realpath(m.__file__).startswith(site + os.sep), (name, m.__file__)
assert os.path.realpath(gpuclean.runtime.find_cli()) == os.path.join(site, "gpuclean", "_bin", "gpuclean")
assert os.path.realpath(L.lib().path) == os.path.join(site, "gpuclean", "_lib", "libgpuclean.so")
PY

# ---- 3. the CLI -------------------------------------------------------------------------------
v=$(X gpuclean --version 2>&1)
[ "$v" = "gpuclean $version" ] && ok "gpuclean --version: $v" || fail "gpuclean --version printed '$v', want 'gpuclean $version'"
X gpuclean fix hostile.tflite -o fixed.tflite > "$tmp/fix.txt" 2>&1
cmp -s "$tmp/work/fixed.tflite" "$tmp/ref-fixed.tflite" && ok "gpuclean fix: the same bytes as build/gpuclean fix" \
  || fail "gpuclean fix (wheel) and build/gpuclean fix wrote different files"
for m in hostile fixed; do
  (cd "$tmp/work" && "$repo/build/gpuclean" check $m.tflite) > "$tmp/ref-$m.txt" 2>&1; want_rc=$?
  X gpuclean check $m.tflite > "$tmp/whl-$m.txt" 2>&1; rc=$?
  X python -m gpuclean check $m.tflite > "$tmp/pym-$m.txt" 2>&1; prc=$?
  line=$(grep '^GPU residency:' "$tmp/whl-$m.txt")
  if cmp -s "$tmp/ref-$m.txt" "$tmp/whl-$m.txt" && cmp -s "$tmp/ref-$m.txt" "$tmp/pym-$m.txt" \
     && [ $rc = $want_rc ] && [ $prc = $want_rc ] && [ -n "$line" ]; then
    ok "gpuclean check / python -m gpuclean check $m.tflite: exit $rc, '$line' (as build/gpuclean)"
  else
    fail "check $m.tflite: wheel exit $rc, python -m exit $prc, build exit $want_rc"; diff "$tmp/ref-$m.txt" "$tmp/whl-$m.txt" | head
  fi
done
grep -q '^GPU residency: \([0-9]*\)/\1 nodes in 1 partition(s) (GPU-clean)$' "$tmp/whl-fixed.txt" \
  && ok "fixed model: $(grep '^GPU residency' "$tmp/whl-fixed.txt")" || fail "fixed model is not GPU-clean: $(grep '^GPU residency' "$tmp/whl-fixed.txt")"
grep -q '(GPU-clean)' "$tmp/whl-hostile.txt" && fail "the hostile demo model checked GPU-clean"

# ---- 4. the seed's snippet ---------------------------------------------------------------------
for m in fixed hostile; do
  cp "$tmp/work/$m.tflite" "$tmp/work/model.tflite"
  X python -c 'from litert_gpu_toolkit import check_gpu_compatibility, print_report
print_report(check_gpu_compatibility("model.tflite"))' > "$tmp/seed-$m.txt" 2>&1
  status=$(grep -m1 '^ *Status:' "$tmp/seed-$m.txt" | sed 's/^ *//')
  if [ $m = fixed ]; then
    [ -n "$status" ] && ! grep -q 'Status: FAILED' "$tmp/seed-$m.txt" && ok "seed snippet on the fixed model: $status" \
      || { fail "seed snippet on the fixed model: '$status'"; cat "$tmp/seed-$m.txt"; }
  else
    grep -q '^ *Status: FAILED' "$tmp/seed-$m.txt" && ok "seed snippet on the hostile model: $status" \
      || { fail "seed snippet on the hostile model did not fail: '$status'"; cat "$tmp/seed-$m.txt"; }
  fi
done

# ---- 5. the native runtime from the [runtime] extra -------------------------------------------
pin=$(sed -n 's/^WHEEL_VERSION=\([^ ]*\).*/\1/p' runtime/litert/setup.sh)
X gpuclean litert fixed.tflite --runtime native --accelerator cpu --out "$tmp/lnat" > "$tmp/native.txt" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^runtime: *native libLiteRt.so $pin " "$tmp/native.txt" && grep -q '^  native  cpu  *ok' "$tmp/native.txt"; then
  ok "gpuclean litert --runtime native --accelerator cpu: $(grep '^verdict' "$tmp/native.txt") (libLiteRt.so $pin of the installed ai_edge_litert)"
else
  fail "gpuclean litert --runtime native (exit $rc)"; cat "$tmp/native.txt"
fi

# ---- 6. LiteRT.js: gpuclean setup-js ------------------------------------------------------------
X gpuclean litert fixed.tflite --runtime js --accelerator cpu > "$tmp/js0.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'gpuclean setup-js' "$tmp/js0.txt" && ok "--runtime js before setup-js: exit 2, names gpuclean setup-js" \
  || { fail "--runtime js before setup-js: exit $rc"; cat "$tmp/js0.txt"; }
if command -v npm >/dev/null && command -v node >/dev/null; then
  if X gpuclean setup-js > "$tmp/setup-js.txt" 2>&1; then
    X gpuclean litert fixed.tflite --runtime js --accelerator cpu --out "$tmp/ljs" > "$tmp/js1.txt" 2>&1; rc=$?
    [ $rc = 0 ] && grep -q '^  js  *cpu  *ok' "$tmp/js1.txt" && ok "after gpuclean setup-js: LiteRT.js ran it ($(grep '^verdict' "$tmp/js1.txt"))" \
      || { fail "--runtime js after setup-js: exit $rc"; cat "$tmp/js1.txt"; }
  else
    fail "gpuclean setup-js"; cat "$tmp/setup-js.txt"
  fi
else
  echo "note: npm/node not found: gpuclean setup-js not tested"
fi

# ---- 7. convert_for_gpu with torch --------------------------------------------------------------
X python - "$repo/python/torch-requirements-nodeps.txt" <<'PY' && ok "extras in the installed metadata: [runtime] and [torch] with the pinned versions" || fail "installed metadata lacks the pinned extras"
import importlib.metadata as md, re, sys
reqs = md.requires("gpuclean")
pins = dict(re.match(r"([A-Za-z0-9_.-]+)==(\S+)", l).groups() for l in open(sys.argv[1])
            if re.match(r"[A-Za-z0-9_.-]+==", l))
for name in ("torch", "litert-torch"):
    assert '%s==%s; extra == "torch"' % (name, pins[name]) in reqs, (name, reqs)
assert any(r.startswith("ai-edge-litert==") and 'extra == "runtime"' in r for r in reqs), reqs
PY
proj_site=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" 2>/dev/null)
if [ -n "$proj_site" ] && .venv/bin/python -c "import torch, litert_torch" 2>/dev/null; then
  echo "$proj_site" > "$site/zz-project-torch.pth"
  echo "note: torch + litert-torch from the project venv ($proj_site, appended after the wheel's site-packages)"
  X python - "$site" <<'PY' > "$tmp/convert.txt" 2>&1; rc=$?
import os, sys
site = os.path.realpath(sys.argv[1])
import torch, litert_torch
from litert_gpu_toolkit import convert_for_gpu
from gpuclean.convert import format_report

class RepeatKV(torch.nn.Module):      # GQA's repeat_kv: a rank-5 BROADCAST_TO the GPU rejects
    def forward(self, k):
        k = k[:, :, None].expand(1, 2, 2, 4, 8).reshape(1, 4, 4, 8)
        return torch.relu(k) + 1.0

# the seed's call form: convert_for_gpu(model, dummy_input, output_path, check, verbose);
# it returns the path, carrying gpuclean.convert's report and check_gpu_compatibility's result
path = convert_for_gpu(RepeatKV(), torch.randn(1, 2, 4, 8), "tiny.tflite", check=True, verbose=False)
r = path.report
print(format_report(r))
print("check_gpu_compatibility:", path.check["status"])
assert path == "tiny.tflite" and path.check["status"] != "failed", path.check["status"]
for name, m in list(sys.modules.items()):
    if name.split(".")[0] in ("gpuclean", "litert_gpu_toolkit"):
        assert os.path.realpath(m.__file__).startswith(site + os.sep), (name, m.__file__)
assert not r["before"]["gpu_clean"], r["before"]["residency"]
assert r["ok"] and r["after"]["gpu_clean"], (r["ok"], r["after"]["residency"])
assert os.path.isfile("tiny.tflite")
print("plain:", r["before"]["residency"], "-> written:", r["after"]["residency"])
PY
  if [ $rc = 0 ]; then ok "convert_for_gpu from the wheel: $(grep '^plain:' "$tmp/convert.txt")"
  else fail "convert_for_gpu (exit $rc)"; tail -30 "$tmp/convert.txt"; fi
  X gpuclean check tiny.tflite | grep -q '(GPU-clean)$' && ok "gpuclean check tiny.tflite: GPU-clean" || fail "tiny.tflite not GPU-clean"
else
  echo "SKIP part 7: no torch + litert-torch in the project venv (python/install-torch.sh): convert_for_gpu not run"
fi

[ $fails = 0 ] && { echo "wheel: all checks passed"; exit 0; }
echo "wheel: $fails check(s) failed"; exit 1
