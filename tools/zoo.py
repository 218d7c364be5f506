#!/usr/bin/env python3
"""make zoo: every recipe in models/<family>/<model>/converted/ end to end, one table.

For each recipe, its three scripts run as their own processes, exactly as a user runs
them: dump_<name>_ref.py, export_<name>.py, verify_<name>.py (outputs in
build/zoo/<family>/<name>/). Then one table of OUT/verify.json rows, the H200 columns
merged from docs/measurements/zoo-h200.jsonl where a device run recorded them.

    tools/zoo.py [NAME ...] [--skip-export] [--jobs N] [--table-only] [--md FILE]

Exit 0 when every recipe run passed its verify step.
"""
import argparse
import json
import os
import subprocess
import sys
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
from gpuclean import zoo  # noqa: E402


def run_step(script, log):
    env = dict(os.environ, PYTHONPATH=os.path.join(top, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="3", PYTHONUNBUFFERED="1")
    t0 = time.time()
    with open(log, "ab") as f:
        f.write(("\n$ %s\n" % script).encode())
        f.flush()
        rc = subprocess.call([sys.executable, script], stdout=f, stderr=subprocess.STDOUT, env=env)
    return rc, time.time() - t0


def h200_rows():
    """Rows of docs/measurements/zoo-h200.jsonl (device runs of the zoo, tools/zoo_device.py)."""
    p = os.path.join(top, "docs", "measurements", "zoo-h200.jsonl")
    rows = []
    if os.path.exists(p):
        with open(p) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="recipes to run (default: all)")
    ap.add_argument("--skip-export", action="store_true", help="reuse existing exports")
    ap.add_argument("--table-only", action="store_true", help="only print the table")
    ap.add_argument("--md", help="also write the table to this Markdown file")
    a = ap.parse_args()
    found = zoo.recipes()
    if a.names:
        unknown = set(a.names) - {n for _, n, _ in found}
        if unknown:
            print("zoo: no such recipe: %s (have: %s)" % (", ".join(sorted(unknown)),
                  ", ".join(n for _, n, _ in found)), file=sys.stderr)
            return 2
        found = [r for r in found if r[1] in a.names]
    docs, failed = [], []
    for fam, name, conv in found:
        out = os.path.join(top, "build", "zoo", fam, name)
        os.makedirs(out, exist_ok=True)
        log = os.path.join(out, "zoo.log")
        if not a.table_only:
            open(log, "w").close()
            steps = [("dump", "dump_%s_ref.py" % name)]
            if not (a.skip_export and os.path.exists(os.path.join(out, name + ".tflite"))):
                steps.append(("export", "export_%s.py" % name))
            steps.append(("verify", "verify_%s.py" % name))
            times = []
            for what, script in steps:
                rc, dt = run_step(os.path.join(conv, script), log)
                times.append("%s %.0fs" % (what, dt))
                if rc not in (0, 1) or (what != "verify" and rc != 0 and what == "dump"):
                    break
            print("zoo %-28s %s (log %s)" % (name, ", ".join(times), os.path.relpath(log, top)),
                  flush=True)
        vj = os.path.join(out, "verify.json")
        if os.path.exists(vj):
            with open(vj) as f:
                docs.append(json.load(f))
        else:
            failed.append(name)
    h = h200_rows()
    text = zoo.table(docs)
    if h:
        text += "\n\nNVIDIA H200 (gpuclean litert, recorded in docs/measurements/zoo-h200.jsonl):\n"
        names = {d["model"] for d in docs}
        text += zoo.h200_table([r for r in h if r["model"] in names])
    for n in failed:
        text += "\nzoo: %s did not produce verify.json (see build/zoo/*/%s/zoo.log)" % (n, n)
    print(text)
    if a.md:
        tmp = a.md + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, a.md)
    return 0 if docs and not failed and all(d["verdict"]["ok"] for d in docs) else 1


if __name__ == "__main__":
    sys.exit(main())
