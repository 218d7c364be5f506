"""Shared fixtures: the exactness recorder (max |rewrite - original| per rewrite,
printed at the end of the run and written to $GPUCLEAN_EXACTNESS_JSON when set), and
the GPU-verdict recorder of the conversion tests."""
import json
import os

import pytest

_EXACT = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: real-architecture conversions taking minutes "
                            "(run by `make test-slow`; `make test` deselects them)")
_CONVERT = {}


@pytest.fixture
def exactness():
    def record(name, diff, bound):
        diff = float(diff)
        _EXACT[name] = max(diff, _EXACT.get(name, 0.0))
        assert diff <= bound, "%s: max |diff| %.3g > %.3g" % (name, diff, bound)
    return record


@pytest.fixture
def verdicts():
    def record(name, row):
        _CONVERT[name] = row
    return record


def pytest_terminal_summary(terminalreporter):
    tr = terminalreporter
    if _EXACT:
        tr.section("gpuclean rewrite exactness (max |rewrite - original|, random inputs)")
        for k in sorted(_EXACT):
            tr.write_line("  %-34s %.3g" % (k, _EXACT[k]))
    if _CONVERT:
        tr.section("gpuclean: litert-torch conversion, GPU verdict before -> after")
        for k in sorted(_CONVERT):
            r = _CONVERT[k]
            tr.write_line("  %-16s %-26s -> %-26s hostile %s -> %s" % (
                k, r["before"], r["after"], r["hostile_before"] or "-", r["hostile_after"] or "-"))
    out = os.environ.get("GPUCLEAN_EXACTNESS_JSON")
    if out:
        with open(out, "w") as f:
            json.dump({"exactness": _EXACT, "conversion": _CONVERT}, f, indent=1, sort_keys=True)


@pytest.fixture(scope="session")
def hostile_tflite(tmp_path_factory):
    """tools/demo_model.c's GPU-hostile model (built against build/libgpuclean.a)."""
    import shutil
    import subprocess
    from gpuclean._lib import repo_root
    root = repo_root()
    if not root or not os.path.exists(os.path.join(root, "build", "libgpuclean.a")):
        pytest.skip("build/libgpuclean.a not built (make)")
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc:
        pytest.skip("no C compiler to build tools/demo_model.c")
    d = tmp_path_factory.mktemp("hostile")
    exe = str(d / "demo-model")
    subprocess.run([cc, "-O1", "-std=c11", "-D_GNU_SOURCE", "-I" + os.path.join(root, "include"),
                    "-I" + os.path.join(root, "src"), "-o", exe,
                    os.path.join(root, "tools", "demo_model.c"),
                    os.path.join(root, "build", "libgpuclean.a"), "-lm", "-lpthread", "-ldl"],
                   check=True)
    out = str(d / "hostile.tflite")
    subprocess.run([exe, out], check=True, capture_output=True)
    return out


@pytest.fixture(scope="session")
def gclib():
    from gpuclean._lib import GpucleanError, lib
    try:
        return lib()
    except GpucleanError as e:
        pytest.skip(str(e))
