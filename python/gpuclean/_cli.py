"""The `gpuclean` command of a pip install (console script, `python -m gpuclean`), and
where the package finds its native parts.

A wheel (`make wheel`) carries, inside this package folder:

    _bin/gpuclean                         the CLI (build/gpuclean, release flags)
    _lib/libgpuclean.so                   the library that gpuclean.core loads (ctypes)
    _share/runtime/litert/runner.mjs      the LiteRT.js runner, with its package.json and
    _share/runtime/litert/package*.json   package-lock.json; NOT its node_modules

A checkout has none of these: everything below then falls back to <repo>/build, then PATH.

The executable is found as: $GPUCLEAN_BIN, _bin/gpuclean, <repo>/build/gpuclean, the
first native (ELF) `gpuclean` on PATH (console scripts such as this one are skipped, so
the command never execs itself). The CLI finds its runtimes through its own environment
variables (src/runtime/litert.h), which cli_env() fills in, for a wheel install only,
where the user left them unset:

* GPUCLEAN_HOME (the folder holding runtime/litert): the LiteRT.js cache that
  `gpuclean setup-js` made for this runner (below) when it is complete, else _share
  (runner without node_modules: `gpuclean litert --runtime js` then says to run
  `gpuclean setup-js`);
* GPUCLEAN_LITERT_LIB (the native runtime): libLiteRt.so inside the installed
  ai_edge_litert package (`pip install gpuclean[runtime]`), located with
  importlib.util.find_spec, which does not import it.

`gpuclean setup-js` (only in this command, not in the C CLI) copies the runner files to
$GPUCLEAN_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/gpuclean)/js-<hash>/runtime/litert,
<hash> naming the bundled runner.mjs + package-lock.json, and runs `npm ci` there
(pinned by the lockfile; needs Node.js >= 18 and npm). Every other argument list is
passed unchanged to the executable (os.execve: exit status and signals are its own).
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys

PKG = os.path.dirname(os.path.abspath(__file__))
RUNNER_FILES = ("runner.mjs", "package.json", "package-lock.json")
# what `npm ci` leaves when the LiteRT.js runtime is complete (runtime/litert/setup.sh)
JS_CORE = os.path.join("node_modules", "@litertjs", "core", "package.json")
JS_STAMP = ".gpuclean-setup-js"


def _repo_root():
    from ._lib import repo_root
    return repo_root()


def is_native(path):
    """True for an executable ELF file (not a script such as a console-script wrapper)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF" and os.access(path, os.X_OK)
    except OSError:
        return False


def bundled(rel):
    """Path of a file this package carries (wheel installs only), or None."""
    p = os.path.join(PKG, rel)
    return p if os.path.isfile(p) else None


def find_executable():
    """The gpuclean executable ($GPUCLEAN_BIN, bundled, repo build, PATH) or None."""
    env = os.environ.get("GPUCLEAN_BIN")
    if env and os.access(env, os.X_OK):
        return env
    b = bundled(os.path.join("_bin", "gpuclean"))
    if b and os.access(b, os.X_OK):
        return b
    root = _repo_root()
    if root:
        p = os.path.join(root, "build", "gpuclean")
        if os.access(p, os.X_OK):
            return p
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d or ".", "gpuclean")
        if is_native(p):
            return p
    return None


def _share_runtime():
    """<package>/_share/runtime/litert when the runner files are bundled, else None."""
    d = os.path.join(PKG, "_share", "runtime", "litert")
    return d if all(os.path.isfile(os.path.join(d, f)) for f in RUNNER_FILES) else None


def js_cache_home():
    """The GPUCLEAN_HOME that `gpuclean setup-js` fills for the bundled runner (may not
    exist yet), or None when no runner is bundled."""
    src = _share_runtime()
    if not src:
        return None
    h = hashlib.sha256()
    for f in ("runner.mjs", "package-lock.json"):
        with open(os.path.join(src, f), "rb") as fh:
            h.update(fh.read())
    base = os.environ.get("GPUCLEAN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "gpuclean")
    return os.path.join(base, "js-" + h.hexdigest()[:16])


def _js_complete(home):
    d = os.path.join(home, "runtime", "litert")
    return os.path.isfile(os.path.join(d, JS_STAMP)) and os.path.isfile(os.path.join(d, JS_CORE))


def litert_native_lib():
    """libLiteRt.so of the installed ai-edge-litert package (the [runtime] extra) or None."""
    try:
        spec = importlib.util.find_spec("ai_edge_litert")
    except (ImportError, ValueError):
        return None
    for d in (spec.submodule_search_locations or []) if spec else []:
        p = os.path.join(d, "libLiteRt.so")
        if os.path.isfile(p):
            return p
    return None


def cli_env(base=None):
    """A copy of `base` (default os.environ) with GPUCLEAN_HOME and GPUCLEAN_LITERT_LIB
    set from the installed package where the user left them unset. A checkout (no
    bundled runner) gets `base` unchanged: its build/gpuclean finds <repo>/runtime/litert
    and <repo>/build/litert-wheel itself."""
    env = dict(os.environ if base is None else base)
    if not _share_runtime():
        return env
    if not env.get("GPUCLEAN_HOME"):
        cache = js_cache_home()
        env["GPUCLEAN_HOME"] = cache if cache and _js_complete(cache) else os.path.join(PKG, "_share")
    if not env.get("GPUCLEAN_LITERT_LIB"):
        lib = litert_native_lib()
        if lib:
            env["GPUCLEAN_LITERT_LIB"] = lib
    return env


SETUP_JS_USAGE = """usage: gpuclean setup-js [--print-home]

Installs the LiteRT.js runner's Node.js dependencies (@litertjs/core, webgpu; pinned by
the bundled package-lock.json) for this pip install of gpuclean: copies the runner to
%s
and runs `npm ci` there. `gpuclean litert --runtime js` uses it from then on.
Needs Node.js >= 18 and npm on PATH. --print-home prints that folder and exits.
"""


def setup_js(args):
    """`gpuclean setup-js`: 0 done, 1 npm failed, 2 usage / nothing to set up."""
    home = js_cache_home()
    if args and args[0] in ("-h", "--help"):
        print(SETUP_JS_USAGE % (home or "(no runner bundled)"), end="")
        return 0
    if args not in ([], ["--print-home"]):
        sys.stderr.write("gpuclean setup-js: unexpected argument %r\n" % args[0])
        return 2
    if not home:
        root = _repo_root()
        sys.stderr.write("gpuclean setup-js: this gpuclean package carries no LiteRT.js runner "
                         "(%s)\n" % ("a checkout: run tools/setup.sh" if root else
                                     "not a wheel install"))
        return 2
    if args == ["--print-home"]:
        print(home)
        return 0
    dest = os.path.join(home, "runtime", "litert")
    if _js_complete(home):
        print("gpuclean setup-js: LiteRT.js runtime already installed in %s" % dest)
        return 0
    npm = shutil.which("npm")
    if not npm:
        sys.stderr.write("gpuclean setup-js: npm not found on PATH (install Node.js >= 18 "
                         "with npm, e.g. apt-get install nodejs npm)\n")
        return 2
    os.makedirs(dest, exist_ok=True)
    src = _share_runtime()
    for f in RUNNER_FILES:
        shutil.copyfile(os.path.join(src, f), os.path.join(dest, f))
    print("gpuclean setup-js: npm ci in %s" % dest, flush=True)
    # as runtime/litert/setup.sh: webgpu's install script only clears a macOS quarantine
    # flag; dawn.node ships inside the package
    p = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                        "--loglevel=error"], cwd=dest)
    if p.returncode != 0 or not os.path.isfile(os.path.join(dest, JS_CORE)):
        sys.stderr.write("gpuclean setup-js: npm ci failed (exit %d) in %s\n" % (p.returncode, dest))
        return 1
    with open(os.path.join(dest, JS_STAMP), "w") as f:
        f.write("npm ci of package-lock.json done\n")
    print("gpuclean setup-js: done; `gpuclean litert MODEL --runtime js` uses %s" % home)
    return 0


def main(argv=None):
    """Console-script entry point: `gpuclean ARGS...`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "setup-js":
        return setup_js(args[1:])
    exe = find_executable()
    if not exe:
        sys.stderr.write("gpuclean: the gpuclean executable was not found (this package has no "
                         "_bin/gpuclean: install the wheel from `make wheel`, run make in the "
                         "checkout, or set GPUCLEAN_BIN)\n")
        return 2
    env = cli_env()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(exe, [exe] + args, env)
    except OSError as e:
        sys.stderr.write("gpuclean: cannot run %s: %s\n" % (exe, e))
        return 2
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
