#!/usr/bin/env bash
# compare_numpy.sh — `gpuclean compare` on arrays written by NumPy (np.save, np.savez,
# np.savez_compressed): exit codes 0/1/2, the --json document, and metrics checked
# against NumPy's own arithmetic (max_abs == np.max(np.abs(a-b)) to 1e-12 relative,
# the violation count == np.sum(~np.isclose(a, b, rtol, atol))).
# Exit 0 pass, 77 skip (no python3/numpy), anything else fail.
set -u
cd "$(dirname "$0")/../.."
G="${GPUCLEAN:-$PWD/build/gpuclean}"   # GPUCLEAN=... to test another build (e.g. ASan)
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not found"; exit 77; }
python3 -c 'import numpy' 2>/dev/null || { echo "skip: numpy not importable by python3"; exit 77; }
[ -x "$G" ] || { echo "FAIL: $G not built (make build/gpuclean)"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/gc_compare.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect CODE CMD... : run, check the exit code
expect() {
  local want=$1; shift
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "exit $rc (want $want): $*"; sed 's/^/    /' "$T/out" "$T/err" | head -20
    return 1
  fi
  return 0
}

python3 - "$T" <<'EOF' || { echo "FAIL: could not write the test arrays"; exit 1; }
import sys, os, numpy as np
t = sys.argv[1]
rng = np.random.default_rng(1234)
a = rng.standard_normal((4, 5))
np.save(f"{t}/a.npy", a)
np.save(f"{t}/a_close.npy", a + 1e-9)
np.save(f"{t}/a_far.npy", a + rng.standard_normal((4, 5)) * 1e-3)
np.save(f"{t}/a_T.npy", np.ascontiguousarray(a.T))
a32 = a.astype(np.float32)
np.save(f"{t}/a32.npy", a32)
np.save(f"{t}/a32_noisy.npy", (a32 + rng.standard_normal((4, 5)).astype(np.float32) * 1e-5).astype(np.float32))
np.save(f"{t}/a_be.npy", a.astype('>f8'))
np.save(f"{t}/a_f16.npy", a.astype(np.float16))
# NaN in the same places on both sides agree; a NaN on one side only does not
n1 = a.copy(); n1[0, 0] = np.nan; n1[1, 1] = np.inf
np.save(f"{t}/nan1.npy", n1)
np.save(f"{t}/nan2.npy", n1.copy())
n3 = n1.copy(); n3[2, 2] = np.nan
np.save(f"{t}/nan3.npy", n3)
# tolerance boundary case: many elements close to atol + rtol*|b|
b = rng.standard_normal(1000)
x = b + rng.uniform(-1, 1, 1000) * (1e-3 + 1e-2 * np.abs(b))
np.save(f"{t}/tol_a.npy", x); np.save(f"{t}/tol_b.npy", b)
ints = np.arange(12, dtype=np.int32).reshape(3, 4)
np.savez(f"{t}/p.npz", logits=a, ids=ints)
np.savez_compressed(f"{t}/q.npz", logits=a + 1e-9, ids=ints)
np.savez(f"{t}/r.npz", logits=a + 1e-2, ids=ints, extra=ints)
os.makedirs(f"{t}/d1"); os.makedirs(f"{t}/d2"); os.makedirs(f"{t}/d3")
for d in ("d1", "d2", "d3"):
    np.save(f"{t}/{d}/x.npy", a32)
    np.save(f"{t}/{d}/y.npy", ints)
np.save(f"{t}/d1/only_a.npy", ints)
np.save(f"{t}/d2/only_b.npy", ints)
open(f"{t}/garbage.npy", "wb").write(b"\x93NUMPY\x01\x00\x10\x00{'descr': nope}")
open(f"{t}/d3/broken.npy", "wb").write(b"not an array")
os.makedirs(f"{t}/d4"); np.save(f"{t}/d4/x.npy", a32); np.save(f"{t}/d4/broken.npy", ints)
np.save(f"{t}/fortran.npy", np.asfortranarray(a))
EOF

# ---- exit codes --------------------------------------------------------------------
expect 0 "$G" compare "$T/a.npy" "$T/a_close.npy"
expect 1 "$G" compare "$T/a.npy" "$T/a_far.npy"
expect 0 "$G" compare "$T/a.npy" "$T/a_far.npy" --atol 0.1
expect 0 "$G" compare "$T/a.npy" "$T/a_far.npy" --rtol=10 --atol=1e-2
expect 1 "$G" compare "$T/a.npy" "$T/a_T.npy"                  # shape mismatch
grep -q 'shape mismatch' "$T/out" || fail "shape mismatch not reported"
expect 0 "$G" compare "$T/a.npy" "$T/a_be.npy"                 # big-endian read
expect 1 "$G" compare "$T/a32.npy" "$T/a32_noisy.npy"
expect 0 "$G" compare "$T/a32.npy" "$T/a32_noisy.npy" --rtol 1e-3 --atol 1e-4
expect 0 "$G" compare "$T/a_f16.npy" "$T/a.npy" --rtol 1e-3 --atol 1e-3
expect 0 "$G" compare "$T/nan1.npy" "$T/nan2.npy"
expect 1 "$G" compare "$T/nan1.npy" "$T/nan3.npy"
expect 2 "$G" compare "$T/a.npy" "$T/garbage.npy"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'garbage.npy: ' "$T/err" || fail "garbage: want one stderr line naming the file, got: $(cat "$T/err")"
expect 2 "$G" compare "$T/a.npy" "$T/fortran.npy"
grep -q 'fortran.npy: .*fortran_order' "$T/err" || fail "fortran_order not reported: $(cat "$T/err")"
expect 2 "$G" compare "$T/a.npy" "$T/does_not_exist.npy"
grep -q 'does_not_exist.npy' "$T/err" || fail "missing file not named"
expect 2 "$G" compare "$T/a.npy"
expect 2 "$G" compare "$T/a.npy" "$T/a.npy" --rtol abc
expect 2 "$G" compare "$T/a.npy" "$T/a.npy" --bogus
expect 2 "$G" compare "$T/a.npy" "$T/p.npz"                    # kinds differ
expect 2 "$G" compare "$T/a.npy" "$T/d1"
expect 0 "$G" compare --help
grep -q 'rtol 1e-05' "$T/out" && grep -q 'atol 1e-06' "$T/out" || fail "--help does not state the default tolerances"

# ---- .npz and directories ------------------------------------------------------------
expect 0 "$G" compare "$T/p.npz" "$T/q.npz"                    # stored vs deflated
expect 1 "$G" compare "$T/p.npz" "$T/r.npz"                    # over tolerance + extra member
expect 1 "$G" compare "$T/d1" "$T/d2"                          # missing on each side
grep -q 'only_a' "$T/out" && grep -q 'only_b' "$T/out" || fail "missing files not reported"
expect 0 "$G" compare "$T/d2/x.npy" "$T/d3/x.npy"
expect 2 "$G" compare "$T/d4" "$T/d3"                          # d3/broken.npy is malformed
grep -q 'broken.npy' "$T/err" || fail "broken.npy not named on stderr"

# ---- JSON against NumPy ---------------------------------------------------------------
check_json() {  # check_json A B RTOL ATOL  (runs compare --json, checks against numpy)
  "$G" compare "$1" "$2" --rtol "$3" --atol "$4" --json >"$T/j.json" 2>"$T/err"
  local rc=$?
  python3 - "$1" "$2" "$3" "$4" "$rc" "$T/j.json" <<'EOF'
import sys, json, numpy as np
pa, pb, rtol, atol, rc, jp = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
doc = json.load(open(jp))
a = np.load(pa).astype(np.float64); b = np.load(pb).astype(np.float64)
assert doc["schema"] == 1, doc
assert len(doc["pairs"]) == 1, doc
p = doc["pairs"][0]
m = p["metrics"]
def rel(x, y): return abs(x - y) / max(abs(y), 1e-300)
want = float(np.max(np.abs(a - b)))
assert rel(m["max_abs"], want) <= 1e-12, (m["max_abs"], want)
assert rel(m["mean_abs"], float(np.mean(np.abs(a - b)))) <= 1e-12
assert rel(m["rmse"], float(np.sqrt(np.mean((a - b) ** 2)))) <= 1e-12
cos = float(np.dot(a.ravel(), b.ravel()) / (np.linalg.norm(a) * np.linalg.norm(b)))
assert abs(m["cosine"] - cos) <= 1e-12, (m["cosine"], cos)
r = float(np.corrcoef(a.ravel(), b.ravel())[0, 1])
assert abs(m["pearson"] - r) <= 1e-10, (m["pearson"], r)
viol = int(np.sum(~np.isclose(a, b, rtol=rtol, atol=atol)))
assert m["violations"] == viol, (m["violations"], viol)
assert p["pass"] == (viol == 0) and doc["pass"] == (viol == 0)
assert rc == (0 if viol == 0 else 1), rc
assert p["shape"] == list(a.shape), p["shape"]
assert m["worst"] == int(np.argmax(np.abs(a - b))), (m["worst"], int(np.argmax(np.abs(a - b))))
if a.ndim >= 1:
    agree = np.mean(np.argmax(a.reshape(-1, a.shape[-1]), 1) == np.argmax(b.reshape(-1, b.shape[-1]), 1))
    assert abs(m["argmax_agree"] - agree) <= 1e-15, (m["argmax_agree"], agree)
EOF
  [ $? -eq 0 ] || fail "JSON check: $1 vs $2 (rtol $3, atol $4)"
}
check_json "$T/a.npy" "$T/a_far.npy" 1e-5 1e-6
check_json "$T/a.npy" "$T/a_far.npy" 0.5 1e-3
check_json "$T/a32.npy" "$T/a32_noisy.npy" 1e-4 1e-5
check_json "$T/tol_a.npy" "$T/tol_b.npy" 1e-2 1e-3
check_json "$T/a_f16.npy" "$T/a.npy" 1e-3 1e-3

"$G" compare "$T/d1" "$T/d2" --json >"$T/d.json"
python3 - "$T/d.json" <<'EOF' || fail "directory JSON"
import sys, json
d = json.load(open(sys.argv[1]))
assert [p["name"] for p in d["pairs"]] == ["x", "y"], d["pairs"]
assert all(p["pass"] for p in d["pairs"])
miss = sorted((m["name"], m["missing_from"]) for m in d["missing"])
assert miss == [("only_a", "b"), ("only_b", "a")], miss
assert d["pass"] is False
EOF
"$G" compare "$T/p.npz" "$T/r.npz" --json >"$T/z.json"
python3 - "$T/z.json" <<'EOF' || fail "npz JSON"
import sys, json
d = json.load(open(sys.argv[1]))
by = {p["name"]: p for p in d["pairs"]}
assert set(by) == {"logits", "ids"}, by.keys()
assert by["ids"]["pass"] and not by["logits"]["pass"]
assert abs(by["logits"]["metrics"]["max_abs"] - 1e-2) < 1e-12
assert by["ids"]["dtype_a"] == "int32"
assert [(m["name"], m["missing_from"]) for m in d["missing"]] == [("extra", "a")], d["missing"]
EOF

if [ $fails -ne 0 ]; then echo "compare_numpy: $fails check(s) failed"; exit 1; fi
echo "compare_numpy: all checks passed"
exit 0
