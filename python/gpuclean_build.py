#!/usr/bin/env python3
"""gpuclean's wheel: the writer behind `make wheel`, and the PEP 517 / PEP 660 build backend
of python/pyproject.toml (so `pip install python/` and `pip wheel python/` give the same
complete package, and `pip install -e python` an editable one). Standard library only.

    python python/gpuclean_build.py [--build DIR] [--out DIR]    (make wheel does this)

writes OUT/gpuclean-<version>-py3-none-manylinux_<M>_<m>_<arch>.whl (default OUT: dist,
whose older gpuclean-*.whl files are removed) holding

    gpuclean/**, litert_gpu_toolkit/**    the Python packages (python/; no __pycache__)
    gpuclean/_bin/gpuclean                DIR/gpuclean, mode 755 (default DIR: build/release,
    gpuclean/_lib/libgpuclean.so          DIR/libgpuclean.so   which `make wheel-bin` builds)
    gpuclean/_share/runtime/litert/       runner.mjs, package.json, package-lock.json (the
                                          LiteRT.js runner without node_modules: `gpuclean
                                          setup-js` installs those, see gpuclean/_cli.py)
    gpuclean-<version>.dist-info/         METADATA, WHEEL, entry_points.txt, top_level.txt,
                                          LICENSE, RECORD (sha256 + size of every file)

The platform tag comes from the binaries themselves: each must be an ELF shared object or
executable for one architecture whose DT_NEEDED libraries are only glibc's (libc, libm,
libpthread, libdl, librt, the dynamic loader); the highest GLIBC_x.y symbol version they
require (their .gnu.version_r section, what `objdump -T` prints per symbol) gives
manylinux_x_y. Anything else (a C++ runtime, GLIBC_PRIVATE) stops the build.

Consistency checks (the build fails with the file to fix): the version in pyproject.toml,
src/cli/main.c (GPUCLEAN_VERSION) and gpuclean/__init__.py (__version__) agree; the
extras' pins agree with python/torch-requirements-nodeps.txt (torch, litert-torch) and
runtime/litert/setup.sh (ai-edge-litert, the native runtime).

Zip entries are sorted and dated $SOURCE_DATE_EPOCH (default 1980-01-01), so the same
inputs give the same bytes.
"""
from __future__ import annotations

import argparse
import base64
import glob
import hashlib
import os
import re
import struct
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))          # <repo>/python
ROOT = os.path.dirname(HERE)
RUNNER_FILES = ("runner.mjs", "package.json", "package-lock.json")
GLIBC_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
              "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
ELF_ARCH = {62: "x86_64", 183: "aarch64"}                   # e_machine -> wheel arch


class BuildError(Exception):
    pass


# ---- project metadata ----------------------------------------------------------------------

def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def load_project(strict=True):
    """[project] of python/pyproject.toml, checked against the other places that state
    the version and the pins (strict=False, the editable install: a mismatch is a warning,
    so that tools/setup.sh still installs)."""
    try:
        import tomllib
    except ImportError:                                      # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise BuildError("reading pyproject.toml needs Python >= 3.11 (tomllib) or tomli")
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        doc = tomllib.load(f)
    proj = doc["project"]
    proj["_packages"] = doc.get("tool", {}).get("gpuclean-build", {}).get("packages", [])
    if not proj["_packages"]:
        raise BuildError("python/pyproject.toml: [tool.gpuclean-build] packages is empty")
    try:
        _check_consistency(proj)
    except BuildError as e:
        if strict:
            raise
        sys.stderr.write("gpuclean_build: warning: %s (make wheel will refuse)\n" % e)
    return proj


def _check_consistency(proj):
    v = proj["version"]
    checks = [(os.path.join(ROOT, "src", "cli", "main.c"), r'#define GPUCLEAN_VERSION "([^"]+)"'),
              (os.path.join(HERE, "gpuclean", "__init__.py"), r'__version__ = "([^"]+)"')]
    for path, rx in checks:
        if not os.path.exists(path):
            continue                                        # python/ alone: nothing to compare
        m = re.search(rx, _read(path))
        if not m or m.group(1) != v:
            raise BuildError("%s states version %s, python/pyproject.toml %s"
                             % (path, m.group(1) if m else "nothing", v))
    _check_pins(proj)


def _pins(path, rx=r"^([A-Za-z0-9_.-]+)==(\S+)\s*$"):
    out = {}
    for line in _read(path).splitlines():
        m = re.match(rx, line.strip())
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def _check_pins(proj):
    extras = proj.get("optional-dependencies", {})
    want = {}
    tr = os.path.join(HERE, "torch-requirements-nodeps.txt")
    if os.path.exists(tr):
        p = _pins(tr)
        want.update({("torch", k): p.get(k) for k in ("torch", "litert-torch")})
    setup = os.path.join(ROOT, "runtime", "litert", "setup.sh")
    if os.path.exists(setup):
        m = re.search(r"^WHEEL_VERSION=(\S+)", _read(setup), re.M)
        want[("runtime", "ai-edge-litert")] = m.group(1) if m else None
    for (extra, name), ver in want.items():
        have = {re.split(r"[=<>!~ ;\[]", r, 1)[0].lower(): r for r in extras.get(extra, [])}
        req = have.get(name)
        if ver is None or req != "%s==%s" % (name, ver):
            raise BuildError("python/pyproject.toml: extra [%s] has %r, the pinned %s is %s"
                             % (extra, req, name, ver))


def metadata_text(proj):
    lines = ["Metadata-Version: 2.1", "Name: " + proj["name"], "Version: " + proj["version"],
             "Summary: " + proj.get("description", ""),
             "License: " + proj.get("license", {}).get("text", ""),
             "Requires-Python: " + proj.get("requires-python", ">=3")]
    lines += ["Requires-Dist: " + r for r in proj.get("dependencies", [])]
    for extra, reqs in proj.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in reqs]
    readme = os.path.join(HERE, proj.get("readme", "README.md"))
    body = _read(readme) if os.path.exists(readme) else ""
    if body:
        lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + body


def entry_points_text(proj):
    scripts = proj.get("scripts", {})
    return "[console_scripts]\n" + "".join("%s = %s\n" % kv for kv in sorted(scripts.items()))


# ---- ELF: what a binary needs from the system ------------------------------------------------

def elf_needs(path):
    """(arch, DT_NEEDED names, {GLIBC_x.y...} required) of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise BuildError("%s: not a 64-bit little-endian ELF file" % path)
    e_machine, = struct.unpack_from("<H", data, 18)
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 0x3A)
    if e_machine not in ELF_ARCH:
        raise BuildError("%s: machine %d has no wheel tag here" % (path, e_machine))
    if e_shoff == 0 or e_shentsize != 64 or e_shoff + e_shnum * 64 > len(data):
        raise BuildError("%s: no readable section headers" % path)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * 64) for i in range(e_shnum)]

    def body(s):                                   # (name, type, flags, addr, off, size, link, ...)
        off, size = s[4], s[5]
        if off + size > len(data):
            raise BuildError("%s: a section runs past the end of the file" % path)
        return data[off:off + size]

    def cstr(tab, i):
        end = tab.find(b"\0", i)
        return tab[i:end if end >= 0 else len(tab)].decode("ascii", "replace")

    needed, versions = [], set()
    for s in secs:
        if s[1] == 6:                              # SHT_DYNAMIC: DT_NEEDED (1) entries
            strtab, dyn = body(secs[s[6]]), body(s)
            for k in range(0, len(dyn) - 15, 16):
                tag, val = struct.unpack_from("<qQ", dyn, k)
                if tag == 0:
                    break
                if tag == 1:
                    needed.append(cstr(strtab, val))
        elif s[1] == 0x6FFFFFFE:                   # SHT_GNU_verneed: Elf64_Verneed chain
            strtab, vn = body(secs[s[6]]), body(s)
            off = 0
            while off + 16 <= len(vn):
                _ver, cnt, _file, aux, nxt = struct.unpack_from("<HHIII", vn, off)
                a = off + aux
                for _ in range(cnt):               # Elf64_Vernaux: hash, flags, other, name, next
                    if a + 16 > len(vn):
                        break
                    _h, _fl, _o, name, anext = struct.unpack_from("<IHHII", vn, a)
                    versions.add(cstr(strtab, name))
                    if not anext:
                        break
                    a += anext
                if not nxt:
                    break
                off += nxt
    return ELF_ARCH[e_machine], needed, versions


def platform_tag(binaries):
    """manylinux_<M>_<m>_<arch> for the binaries, or BuildError naming what disqualifies."""
    arch, best = None, (2, 5)
    for b in binaries:
        a, needed, versions = elf_needs(b)
        if arch and a != arch:
            raise BuildError("%s is %s, the other binaries %s" % (b, a, arch))
        arch = a
        extra = sorted(set(needed) - GLIBC_LIBS)
        if extra:
            raise BuildError("%s needs %s: a manylinux wheel may link only glibc's libraries"
                             % (b, ", ".join(extra)))
        for v in versions:
            m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", v)
            if m:
                best = max(best, (int(m.group(1)), int(m.group(2))))
            elif v == "GLIBC_ABI_DT_RELR":              # packed relative relocations: 2.36
                best = max(best, (2, 36))
            else:                                       # GLIBC_PRIVATE or not glibc's at all
                raise BuildError("%s requires symbol version %s (not a public glibc version)"
                                 % (b, v))
    return "manylinux_%d_%d_%s" % (best[0], best[1], arch)


# ---- the wheel ---------------------------------------------------------------------------------

def _zip_time():
    t = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))   # 1980-01-01, zip's epoch
    return time.gmtime(max(t, 315532800))[:6]


class Wheel:
    """Collects (archive name, bytes, mode) and writes a wheel with a correct RECORD."""

    def __init__(self, dist_info):
        self.dist_info = dist_info
        self.files = {}

    def add(self, arcname, data, mode=0o644):
        if arcname in self.files:
            raise BuildError("%s added twice" % arcname)
        self.files[arcname] = (data, mode)

    def add_file(self, arcname, path, mode=None):
        with open(path, "rb") as f:
            data = f.read()
        if mode is None:
            mode = 0o755 if os.stat(path).st_mode & 0o111 else 0o644
        self.add(arcname, data, mode)

    def write(self, path):
        record = self.dist_info + "/RECORD"
        names = sorted(n for n in self.files if not n.startswith(self.dist_info + "/"))
        names += sorted(n for n in self.files if n.startswith(self.dist_info + "/"))
        lines = []
        for n in names:
            data = self.files[n][0]
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            lines.append("%s,sha256=%s,%d" % (n, digest.decode(), len(data)))
        lines.append(record + ",,")
        self.files[record] = (("\n".join(lines) + "\n").encode(), 0o644)
        names.append(record)
        tmp = path + ".tmp"
        stamp = _zip_time()
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for n in names:
                data, mode = self.files[n]
                zi = zipfile.ZipInfo(n, stamp)
                zi.external_attr = (0o100000 | mode) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, data)
        os.replace(tmp, path)


def _add_packages(w, packages):
    for pkg in packages:
        top = os.path.join(HERE, pkg)
        if not os.path.isfile(os.path.join(top, "__init__.py")):
            raise BuildError("%s: not a package (no __init__.py)" % top)
        for d, subdirs, files in os.walk(top):
            subdirs[:] = sorted(s for s in subdirs
                                if s != "__pycache__" and not (d == top and s in ("_bin", "_lib", "_share")))
            for f in sorted(files):
                if f.endswith((".pyc", ".pyo")) or f.endswith("~"):
                    continue
                p = os.path.join(d, f)
                w.add_file(os.path.relpath(p, HERE).replace(os.sep, "/"), p, 0o644)


def _dist_info(w, proj, tag, purelib):
    di = w.dist_info
    w.add(di + "/METADATA", metadata_text(proj).encode())
    w.add(di + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: gpuclean_build\n"
                          "Root-Is-Purelib: %s\nTag: %s\n" % ("true" if purelib else "false", tag)).encode())
    w.add(di + "/entry_points.txt", entry_points_text(proj).encode())
    w.add(di + "/top_level.txt", "".join(p + "\n" for p in proj["_packages"]).encode())
    lic = os.path.join(ROOT, "LICENSE")
    if os.path.exists(lic):
        w.add_file(di + "/LICENSE", lic, 0o644)


def build(build_dir, out_dir, runner_dir=None):
    """Writes the platform wheel into out_dir; returns its path."""
    proj = load_project()
    runner_dir = runner_dir or os.path.join(ROOT, "runtime", "litert")
    exe = os.path.join(build_dir, "gpuclean")
    so = os.path.join(build_dir, "libgpuclean.so")
    for p in [exe, so] + [os.path.join(runner_dir, f) for f in RUNNER_FILES]:
        if not os.path.isfile(p):
            raise BuildError("%s is missing (make wheel builds the binaries first)" % p)
    if not os.access(exe, os.X_OK):
        raise BuildError("%s is not executable" % exe)
    tag = "py3-none-" + platform_tag([exe, so])
    name, ver = proj["name"], proj["version"]
    w = Wheel("%s-%s.dist-info" % (name, ver))
    _add_packages(w, proj["_packages"])
    w.add_file("gpuclean/_bin/gpuclean", exe, 0o755)
    w.add_file("gpuclean/_lib/libgpuclean.so", so, 0o755)
    for f in RUNNER_FILES:
        w.add_file("gpuclean/_share/runtime/litert/" + f, os.path.join(runner_dir, f), 0o644)
    _dist_info(w, proj, tag, purelib=False)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "%s-%s-%s.whl" % (name, ver, tag))
    w.write(path)
    return path


def build_editable_wheel(out_dir):
    """A PEP 660 editable wheel: metadata, console scripts and a .pth naming python/."""
    proj = load_project(strict=False)
    name, ver = proj["name"], proj["version"]
    tag = "py3-none-any"
    w = Wheel("%s-%s.dist-info" % (name, ver))
    w.add("__editable__.%s.pth" % name, (HERE + "\n").encode())
    _dist_info(w, proj, tag, purelib=True)
    path = os.path.join(out_dir, "%s-%s-%s.whl" % (name, ver, tag))
    w.write(path)
    return os.path.basename(path)


# ---- PEP 517 / PEP 660 hooks (python/pyproject.toml: backend-path ["."]) ----------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def _metadata_dir(metadata_directory, strict=True):
    proj = load_project(strict)
    di = "%s-%s.dist-info" % (proj["name"], proj["version"])
    d = os.path.join(metadata_directory, di)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata_text(proj))
    with open(os.path.join(d, "entry_points.txt"), "w", encoding="utf-8") as f:
        f.write(entry_points_text(proj))
    return di


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _metadata_dir(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _metadata_dir(metadata_directory, strict=False)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """`pip install python/`: `make wheel-bin` in the checkout, then the wheel."""
    if not os.path.isfile(os.path.join(ROOT, "Makefile")):
        raise BuildError("gpuclean's wheel is built from the repository checkout (no Makefile "
                         "in %s); build it there with make wheel" % ROOT)
    r = subprocess.run(["make", "-C", ROOT, "wheel-bin"], stdout=sys.stderr)
    if r.returncode != 0:
        raise BuildError("make wheel-bin failed (exit %d): needs cc and make" % r.returncode)
    return os.path.basename(build(os.path.join(ROOT, "build", "release"), wheel_directory))


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """`pip install -e python`: the package from python/, binaries from <repo>/build."""
    return build_editable_wheel(wheel_directory)


def build_sdist(sdist_directory, config_settings=None):
    raise BuildError("no source distribution: the wheel is built from the checkout (make wheel)")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Build gpuclean's wheel (see the module docstring).")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"),
                    help="folder holding gpuclean and libgpuclean.so (default build/release)")
    ap.add_argument("--out", default=os.path.join(ROOT, "dist"), help="output folder (default dist)")
    ap.add_argument("--runner", default=None, help="LiteRT.js runner folder (default runtime/litert)")
    a = ap.parse_args(argv)
    try:
        for old in glob.glob(os.path.join(a.out, "gpuclean-*.whl")):
            os.remove(old)
        path = build(a.build, a.out, a.runner)
    except BuildError as e:
        sys.stderr.write("gpuclean_build: %s\n" % e)
        return 2
    with zipfile.ZipFile(path) as z:
        n, size = len(z.namelist()), sum(i.file_size for i in z.infolist())
    print("wrote %s (%d files, %.1f MB unpacked, %.1f MB)"
          % (os.path.relpath(path), n, size / 1e6, os.path.getsize(path) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
