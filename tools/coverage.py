#!/usr/bin/env python3
"""The interpreter's coverage list: every model of the shared corpus (../shared/corpus/*.tflite)
and of the zoo's exports (build/zoo/**/*.tflite: <name>.tflite = final, <name>.plain.tflite)
through gpuclean's reference interpreter and through LiteRT's CPU, fed the same inputs.

    .venv/bin/python tools/coverage.py [--md docs/measurements/coverage-DATE.md] [--only SUBSTR]

Per model:
  ours      `gpuclean run MODEL --pattern sin` (fp32; quantized models also with
            --int-arith xnnpack, the rescaling LiteRT's CPU (XNNPACK) uses): yes / no + why.
  LiteRT    `gpuclean litert MODEL --runtime native --accelerator cpu --pattern sin`
            (libLiteRt's CompiledModel, XNNPACK + builtin kernels). Where the CompiledModel
            cannot load the model (variable tensors: LSTM / SVDF state), ai_edge_litert's
            Interpreter (the same TFLite kernels, default delegates) runs it on our inputs.
  parity    every output, ours vs LiteRT on the same input bytes: float outputs max |diff|
            and Pearson correlation; integer outputs the largest difference in steps and how
            many elements differ (quantized models: the xnnpack run, whose contract is
            bit-identical to LiteRT's CPU).
Needs build/gpuclean (make) and the native library (tools/setup.sh); the zoo is optional.
"""
import argparse, datetime, glob, json, os, re, shutil, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GC = os.path.join(ROOT, "build", "gpuclean")
TIMEOUT = 900


def sh(cmd, timeout=TIMEOUT):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s"


def models(only):
    out = []
    corpus = os.path.join(ROOT, "..", "shared", "corpus")
    for p in sorted(glob.glob(os.path.join(corpus, "*.tflite"))):
        out.append(("corpus", os.path.basename(p)[:-7], p))
    zoo = os.path.join(ROOT, "build", "zoo")
    for p in sorted(glob.glob(os.path.join(zoo, "**", "*.tflite"), recursive=True)):
        name = os.path.relpath(p, zoo)[:-7]
        out.append(("zoo", name.replace(".plain", " (plain)") if name.endswith(".plain") else name + " (final)", p))
    return [m for m in out if not only or only in m[1]]


def quantized(path):
    rc, so, _ = sh([GC, "inspect", path, "--verbose"], 120)
    return rc == 0 and "q(scale=" in so


def first_line(s):
    s = s.strip().splitlines()
    return re.sub(r"^gpuclean run: \S+: ", "", s[-1]) if s else "failed"


def run_ours(path, d, xnn):
    cmd = [GC, "run", path, "--pattern", "sin", "--out", d] + (["--int-arith", "xnnpack"] if xnn else [])
    rc, so, se = sh(cmd)
    return (rc == 0, first_line(se) if rc else "")


def outputs(d, pattern):
    files = glob.glob(os.path.join(d, pattern))
    key = lambda f: int(re.findall(r"(\d+)\.npy$", f)[0])
    return [np.load(f) for f in sorted(files, key=key)]


def run_litert(path, d, ours_dir):
    """(ok, how, why, outputs)"""
    rc, so, se = sh([GC, "litert", path, "--runtime", "native", "--accelerator", "cpu", "--pattern", "sin",
                     "--out", d, "--quiet"])
    res = os.path.join(d, "native", "result.json")
    why = ""
    if os.path.exists(res):
        r = json.load(open(res))
        mode = next((m for m in r.get("modes", []) if m.get("mode") == "cpu"), None)
        if mode and mode.get("status") == "ok":
            return True, "CompiledModel", "", outputs(os.path.join(d, "native", "cpu"), "output_*.npy")
        why = (mode or {}).get("error") or ""
    verdict = [l[len("verdict: "):] for l in so.splitlines() if l.startswith("verdict:")]
    why = verdict[0] if verdict else why or first_line(se)
    if "variable tensors" in why and ours_dir:
        ok, outs, err = run_interpreter(path, ours_dir)
        if ok:
            return True, "Interpreter", "", outs
        why += f"; Interpreter: {err}"
    return False, "", why, None


def run_interpreter(path, ours_dir):
    try:
        from ai_edge_litert import interpreter as I
        it = I.Interpreter(model_path=path)
        it.allocate_tensors()
        for k, dd in enumerate(it.get_input_details()):
            it.set_tensor(dd["index"], np.load(os.path.join(ours_dir, f"input_{k}.npy")))
        it.invoke()
        return True, [it.get_tensor(dd["index"]).copy() for dd in it.get_output_details()], ""
    except Exception as e:       # noqa: BLE001 - report whatever the runtime says
        return False, None, str(e).splitlines()[0][:200]


def parity(a_list, b_list):
    if a_list is None or b_list is None:
        return ""
    if len(a_list) != len(b_list):
        return f"{len(a_list)} vs {len(b_list)} outputs"
    parts = []
    for k, (a, b) in enumerate(zip(a_list, b_list)):
        if a.shape != b.shape:
            parts.append(f"out{k}: shape {a.shape} vs {b.shape}")
            continue
        if np.issubdtype(a.dtype, np.floating):
            a64, b64 = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
            fin = np.isfinite(a64) & np.isfinite(b64)
            d = float(np.max(np.abs(a64[fin] - b64[fin]))) if fin.any() else 0.0
            nf = int((np.isfinite(a64) != np.isfinite(b64)).sum())
            c = float(np.corrcoef(a64[fin], b64[fin])[0, 1]) if fin.sum() > 1 and a64[fin].std() > 0 and b64[fin].std() > 0 else float("nan")
            parts.append(f"out{k}: max|d| {d:.3g}, corr {c:.6f}" + (f", {nf} non-finite mismatches" if nf else ""))
        else:
            d = np.abs(a.astype(np.int64) - b.astype(np.int64))
            parts.append(f"out{k}: " + ("bit-exact" if d.max(initial=0) == 0 else f"max {int(d.max())} steps, {int((d > 0).sum())}/{d.size} differ"))
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--md", help="write the table as markdown to this file")
    ap.add_argument("--only", help="only models whose name contains this")
    a = ap.parse_args()
    if not os.path.exists(GC):
        sys.exit("build/gpuclean not found: run make first")
    rows = []
    tmp = tempfile.mkdtemp(prefix="gc-coverage-")
    try:
        for src, name, path in models(a.only):
            q = quantized(path)
            d = os.path.join(tmp, re.sub(r"\W", "_", name))
            ok32, why32 = run_ours(path, d + ".ours", False)
            okx, whyx = run_ours(path, d + ".xnn", True) if q else (ok32, why32)
            ours_dir = d + (".xnn" if q else ".ours")
            lok, how, lwhy, louts = run_litert(path, d + ".lrt", ours_dir if okx else None)
            ours_outs = outputs(ours_dir, "output_*.npy") if okx else None
            row = dict(source=src, model=name, quantized=q, ours=okx, ours_why=whyx or why32,
                       litert=lok, litert_how=how, litert_why=lwhy,
                       parity=parity(ours_outs, louts) if okx and lok else "")
            # the inputs must be the same bytes (both use the pattern generator)
            if okx and lok and how == "CompiledModel":
                for f in glob.glob(os.path.join(d + ".lrt", "native", "inputs", "s0_input_*.npy")):
                    k = re.findall(r"(\d+)\.npy$", f)[0]
                    mine = os.path.join(ours_dir, f"input_{k}.npy")
                    if not os.path.exists(mine) or not np.array_equal(np.load(f), np.load(mine)):
                        row["parity"] = f"input {k} differs between the runtimes; " + row["parity"]
            rows.append(row)
            print(f"{name:45s} ours={'yes' if okx else 'no '} litert={'yes' if lok else 'no '} {row['parity'] or row['ours_why'] or lwhy}",
                  flush=True)
            for suf in (".ours", ".xnn", ".lrt"):
                shutil.rmtree(d + suf, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.md:
        write_md(a.md, rows)
    both = sum(r["ours"] and r["litert"] for r in rows)
    only_lrt = [r["model"] for r in rows if r["litert"] and not r["ours"]]
    print(f"{len(rows)} models: {sum(r['ours'] for r in rows)} run on ours, {sum(r['litert'] for r in rows)} on LiteRT CPU, "
          f"{both} on both; LiteRT runs but ours does not: {', '.join(only_lrt) or 'none'}")
    return 1 if only_lrt else 0


def write_md(path, rows):
    day = datetime.date.today().isoformat()
    L = [f"# Interpreter coverage, {day}", "",
         "Every model of the shared corpus and of the zoo's exports through gpuclean's reference interpreter "
         "and LiteRT's CPU (`tools/coverage.py --md ...`; one machine, the pattern-sin inputs of both runtimes). "
         "LiteRT CPU is libLiteRt 2.3.0's CompiledModel (XNNPACK plus the builtin kernels); where the CompiledModel "
         "cannot load a model (variable tensors: LSTM / SVDF state) the ai-edge-litert 2.3.0 Interpreter (the same "
         "TFLite kernels) runs it on our input bytes. Quantized models run on ours with `--int-arith xnnpack` "
         "(the contract: bit-identical to LiteRT's CPU); float models are compared by max |diff| and correlation.", "",
         "| model | source | quantized | runs on ours | runs on LiteRT CPU | parity (ours vs LiteRT CPU) |",
         "|---|---|---|---|---|---|"]
    for r in rows:
        ours = "yes" if r["ours"] else f"no: {r['ours_why']}"
        lrt = (f"yes ({r['litert_how']})" if r["litert"] else f"no: {r['litert_why']}")
        L.append(f"| {r['model']} | {r['source']} | {'yes' if r['quantized'] else 'no'} | {md(ours)} | {md(lrt)} | {md(r['parity'])} |")
    both = sum(r["ours"] and r["litert"] for r in rows)
    only_lrt = [r["model"] for r in rows if r["litert"] and not r["ours"]]
    L += ["", f"{len(rows)} models: {sum(r['ours'] for r in rows)} run on ours, {sum(r['litert'] for r in rows)} on "
          f"LiteRT CPU, {both} on both. LiteRT's CPU runs and ours does not: {', '.join(only_lrt) or 'none'}.", ""]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(L))


def md(s):
    return s.replace("|", "\\|").replace("\n", " ")


if __name__ == "__main__":
    sys.exit(main())
