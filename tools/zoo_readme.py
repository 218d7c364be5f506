#!/usr/bin/env python3
"""Writes each recipe's README.md and converted/README.md from what was measured:
build/zoo/<family>/<name>/{verify.json, export.json, ref/meta.json} (this machine) and
docs/measurements/zoo-h200.jsonl (the device runs). Numbers are never typed by hand.

    tools/zoo_readme.py [NAME ...]
"""
import json
import os
import platform
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
from gpuclean import zoo  # noqa: E402


def load(p):
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


def h200(name):
    p = os.path.join(top, "docs", "measurements", "zoo-h200.jsonl")
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return [r for r in (json.loads(l) for l in f if l.strip()) if r["model"] == name]


def sec(d):
    if not d:
        return "not run"
    if d.get("error"):
        return "error: " + d["error"][:200]
    parts = []
    for k, o in enumerate(d["outputs"]):
        s = "out%d corr %.7f, max abs %.3g" % (k, o["corr"], o["max_abs"])
        if o.get("argmax_agree") is not None:
            s += ", top-1 agree %d%%" % round(100 * o["argmax_agree"])
        parts.append(s)
    return "; ".join(parts)


def versions():
    try:
        import importlib.metadata as md
        v = {n: md.version(n) for n in ("torch", "litert-torch", "ai-edge-litert", "torchvision",
                                        "timm", "transformers", "numpy")}
    except Exception:
        v = {}
    v["python"] = platform.python_version()
    return v


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def one(fam, name, conv):
    out = os.path.join(top, "build", "zoo", fam, name)
    v, e, meta = load(os.path.join(out, "verify.json")), load(os.path.join(out, "export.json")), \
        load(os.path.join(out, "ref", "meta.json"))
    if not v:
        print("zoo_readme: %s: no verify.json (run make zoo ZOO=%s)" % (name, name), file=sys.stderr)
        return False
    import importlib.util
    spec = importlib.util.spec_from_file_location("recipe_" + name, os.path.join(conv, "recipe.py"))
    rec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rec)
    plain, final = zoo._res(v.get("plain")), zoo._res(v["check"])
    ok = v["verdict"]["ok"]
    ins = ", ".join("%s %s" % (tuple(s), t.replace("torch.", "")) for s, t in (meta or {}).get("inputs", []))
    outs = ", ".join(str(tuple(s)) for s, _ in (meta or {}).get("outputs", []))
    params = (meta or {}).get("params")
    top_readme = """# {fam} / {name}

{src}

Inputs {ins}; outputs {outs}; {params} parameters. **Random init** (no weights can be
downloaded here: `torch.manual_seed(0)` before the constructor; BatchNorm statistics, where
there are any, calibrated on seeded random inputs so activations have a trained network's
scale). Real weights: `--weights PATH` on `converted/export_{name}.py` and
`converted/dump_{name}_ref.py` ({how}).

Produced: `{name}.tflite` for the LiteRT GPU accelerator: **{final} nodes on the GPU**
by `gpuclean check` (plain litert-torch conversion: {plain}); verification
**{verdict}** (see `converted/README.md`).

    make zoo ZOO={name}      # or run the three scripts in converted/ one by one
""".format(fam=fam, name=name, src=rec.SOURCE, ins=ins, outs=outs,
           params="{:,}".format(params) if params else "?", plain=plain, final=final,
           verdict="passed" if ok else "NOT passed: " + "; ".join(v["verdict"]["why"]),
           how=(rec.load_weights.__doc__ or "a state_dict file").strip().splitlines()[0]
           if hasattr(rec, "load_weights") else "a state_dict file (.safetensors / .pt)")
    write(os.path.join(conv, "..", "README.md"), top_readme)

    vs = versions()
    rows = []
    applied = (e or {}).get("applied") or {}
    for r, d in sorted(applied.items()):
        rows.append("| `%s` | %d | %s | %s |" % (r, d.get("count", 0), d.get("what", ""),
                                               d.get("exactness", "")))
    fx = v.get("fix_passes") or []
    lt = v.get("litert_cpu") or {}
    hw = h200(name)
    hrows = []
    for r in sorted(hw, key=lambda r: r["file"]):
        for rt in r["runtimes"]:
            def cell(m):
                x = rt["modes"].get(m) or {}
                if not x:
                    return "-"
                s = x.get("status", "?")
                if x.get("residency"):
                    s += ", %s nodes on GPU" % x["residency"]
                if x.get("fallback_all"):
                    s += " (whole model on CPU)"
                if x.get("corr") is not None:
                    s += "; vs CPU corr %.6f, max abs %.3g" % (x["corr"], x.get("max_abs") or 0)
                return s
            hrows.append("| %s%s | %s %s | %s | %s | %s |" % (
                r["file"], " (twin)" if r.get("twin") else "", rt["name"], rt.get("version") or "",
                cell("gpu-fp32"), cell("gpu-fp16"), rt.get("verdict") or ""))
    dev = hw[0]["device"] if hw else None
    conv_readme = """# {name} — converted

## Environments (pinned in python/*.txt)

| what | version |
|---|---|
{env}
| runtimes | native libLiteRt {native} (ai-edge-litert wheel), LiteRT.js 2.5.3 |

## Pipeline

| step | script | what |
|---|---|---|
| 1 | `dump_{name}_ref.py` | the source PyTorch model on seeded inputs -> `OUT/ref/input_<k>.npy`, `output_<k>.npy`, `meta.json` |
| 2 | `export_{name}.py` | `convert_for_gpu`: plain conversion, check, PyTorch rewrites, re-conversion, `.tflite` fixes, verification -> `OUT/{name}.tflite`, `OUT/{name}.plain.tflite`, `OUT/export.json` |
| 3 | `verify_{name}.py` | residency (`gpuclean check`), parity vs `ref/` on gpuclean's interpreter (fp32 and the GPU's fp16) and on the native LiteRT CPU -> `OUT/verify.json` |

`OUT` is `build/zoo/{fam}/{name}/` (`--out DIR`). The model itself is in `recipe.py`.

## Verification results

Measured on {host} (x86-64 CPU) with the pins above; random-init weights (seed 0).

* GPU residency (gpuclean check, target mldrift): plain **{plain}** -> final **{final}**
* PyTorch rewrites that fired:

| rewrite | modules | what | exactness |
|---|---|---|---|
{rw}

* `.tflite` fix passes: {fx}
* parity vs the PyTorch model (`ref/`, the same inputs):

| backend | result |
|---|---|
| gpuclean interpreter fp32 | {i32} |
| gpuclean interpreter, GPU fp16 precision | {i16} |
| native LiteRT CPU {native} | {cpu} |

Verdict: **{verdict}**.

## On a real GPU
{gpu}
""".format(name=name, fam=fam,
           env="\n".join("| %s | %s |" % kv for kv in sorted(vs.items())),
           native=(lt.get("versions") or "2.3.0"), host="this 2-core machine",
           plain=plain, final=final, rw="\n".join(rows) or "| (none needed) | | | |",
           fx=", ".join("`%s` (%s)" % (zoo._pass_name(x), x.get("exactness", "?") if isinstance(x, dict) else "?")
                         for x in fx) if fx else "none",
           i32=sec(v.get("interp_fp32")), i16=sec(v.get("interp_fp16")), cpu=sec(lt),
           verdict="passed" if ok else "NOT passed: " + "; ".join(v["verdict"]["why"]),
           gpu=("\n%s, `gpuclean litert --accelerator both --precision both --runtime both` fed the "
                "reference inputs where they are small (token ids), else the sin pattern (%s). *twin*: the same graph with regenerated weights "
                "(../shared/tools/device/twin.py), so the GPU is compared with the LiteRT CPU "
                "run of the same file; the CPU run is tied to PyTorch above.\n\n"
                "| file | runtime | GPU fp32 | GPU fp16 | verdict |\n|---|---|---|---|---|\n%s\n\n"
                "The runs, the bisection of what went wrong on the way and the fp16 predictions: "
                "`docs/measurements/h200-zoo-2026-12-01.md`.\n"
                % (dev, hw[0].get("date", ""), "\n".join(hrows))) if hw else
           "\nNot run on a GPU yet (`tools/zoo_device.py pack`, then `runtime/litert/device.sh` "
           "through the device tool).\n")
    write(os.path.join(conv, "README.md"), conv_readme)
    return True


def main():
    names = sys.argv[1:]
    n = 0
    for fam, name, conv in zoo.recipes():
        if names and name not in names:
            continue
        n += one(fam, name, conv)
    print("zoo_readme: %d README pairs written" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
