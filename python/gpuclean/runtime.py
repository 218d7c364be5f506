"""The real LiteRT runtime through `gpuclean litert --json` (LiteRT.js CPU/GPU and the
native libLiteRt from the ai-edge-litert wheel), plus locating the gpuclean CLI."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

from ._cli import cli_env, find_executable

__all__ = ["find_cli", "litert_run", "RuntimeUnavailable"]


class RuntimeUnavailable(RuntimeError):
    pass


def find_cli():
    """Path of the gpuclean executable or None: $GPUCLEAN_BIN, the copy a wheel install
    carries, <repo>/build/gpuclean, a native `gpuclean` on PATH (gpuclean._cli)."""
    return find_executable()


def cli_json(args, timeout=600):
    """Run `gpuclean ARGS --json`; returns (exit code, parsed JSON or None, stderr)."""
    exe = find_cli()
    if not exe:
        raise RuntimeUnavailable("gpuclean CLI not found (make, or set GPUCLEAN_BIN)")
    p = subprocess.run([exe] + list(args) + ["--json"], capture_output=True, text=True,
                       timeout=timeout, env=cli_env())
    try:
        doc = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        doc = None
    return p.returncode, doc, p.stderr.strip()


def _load_outputs(rt):
    """{mode: [{"signature", "name", "array"}...]} from one runtime's JSON section."""
    out = {}
    base = rt.get("dir") or ""
    for m in rt.get("modes", []):
        arrs = []
        for s in m.get("signatures", []):
            for o in s.get("outputs", []):
                f = o.get("file")
                a = None
                if f and os.path.exists(os.path.join(base, f)):
                    a = np.load(os.path.join(base, f))
                arrs.append({"signature": s.get("key"), "name": o.get("name"), "array": a})
        out[m["mode"]] = arrs
    return out


def litert_run(model, inputs=None, accelerator="both", precision="fp32", runtime="both",
               seed=0, timeout=120, keep_dir=None):
    """Compile and run `model` with the real LiteRT runtime. `inputs`: None (random,
    from `seed`), or a dict {signature input name or index: np.ndarray}. Returns
    {"json": the report, "outputs": {runtime: {mode: [...]}}, "exit": code}.
    Raises RuntimeUnavailable when the CLI or every runtime is missing."""
    tmp = keep_dir or tempfile.mkdtemp(prefix="gpuclean-litert-")
    try:
        args = ["litert", os.fspath(model), "--accelerator", accelerator, "--precision", precision,
                "--runtime", runtime, "--out", os.path.join(tmp, "out"),
                "--timeout", str(int(timeout))]
        if inputs:
            for k, a in inputs.items():
                f = os.path.join(tmp, "in_%s.npy" % str(k).replace("/", "_"))
                np.save(f, np.ascontiguousarray(a))
                args += ["--input", "%s=%s" % (k, f)]
        else:
            args += ["--random", str(int(seed))]
        code, doc, err = cli_json(args, timeout=timeout * 4 + 60)
        if doc is None:
            raise RuntimeUnavailable(err or "gpuclean litert exited %d without JSON" % code)
        outs = {name: _load_outputs(rt) for name, rt in doc.get("runtimes", {}).items()
                if rt.get("ran")}
        if not outs:
            why = "; ".join("%s: %s" % (n, rt.get("why") or rt.get("error") or "not run")
                            for n, rt in doc.get("runtimes", {}).items()) or err
            raise RuntimeUnavailable("no LiteRT runtime ran: " + why)
        return {"json": doc, "outputs": outs, "exit": code}
    finally:
        if keep_dir is None:
            shutil.rmtree(tmp, ignore_errors=True)
