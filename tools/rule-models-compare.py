#!/usr/bin/env python3
"""Compare gpuclean's predictions for the per-rule models (tools/rule-models.c) with what
the real LiteRT GPU accelerator said about them (shared/tools/litert-oracle, oracle.jsonl).

usage: rule-models-compare.py MANIFEST.json ORACLE.jsonl [--mode webgpu-fp32]

For every case whose target is mldrift or both: the delegate's residency (gpu_ops /
cpu_ops, or full delegation when it printed nothing and compiled) and its list of
unsupported ops with reasons must equal gpuclean's prediction. Classic-only cases are
listed but not compared (LiteRT.js runs the ML Drift accelerator). Cases where LiteRT.js
failed before the delegate spoke (I/O dtypes it cannot feed, ...) are reported as
"no verdict". Exit 0 when everything compared agrees, 1 otherwise.
"""
import json
import re
import sys

# oracle.mjs keeps every line after "Following operations are not supported" when the
# delegate says "No operations will run..."; keep the "OP: reason" lines only
OP_LINE = re.compile(r"^[A-Z][A-Z0-9_]*( [^ :]+)?: ")


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    mode = "webgpu-fp32"
    if "--mode" in argv:
        mode = argv[argv.index("--mode") + 1]
    cases = json.load(open(argv[1]))
    recs = {}
    for line in open(argv[2]):
        line = line.strip()
        if line.startswith("ORACLE "):
            line = line[7:]
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("kind", "oracle") == "oracle" and r.get("mode") == mode:
            recs[r["model"]] = r
    agree = disagree = noverdict = skipped = invalid = 0
    for c in cases:
        name, pred = c["name"], c["predicted"]
        if c["target"] == "classic":
            skipped += 1
            continue
        if not c.get("valid", True):
            invalid += 1
            continue
        r = recs.get(c["file"])
        if r is None:
            print(f"MISSING   {name}: no oracle record")
            noverdict += 1
            continue
        has_res = "gpu_ops" in r
        if r.get("delegate_init_failed"):
            if pred.get("fatal"):
                agree += 1
                print(f"agree     {name} (delegate init failure, predicted)")
            else:
                disagree += 1
                print(f"DISAGREE  {name}: the delegate failed to initialise on the device: "
                      + "; ".join(r.get("log_tail", [])[:1])[:200])
            continue
        if not has_res and not r.get("ok"):
            err = r.get("error", "").replace("\n", " ")[:90]
            tail = "; ".join(r.get("log_tail", [])[:2])[:160]
            if pred.get("model_error") and not r.get("log_tail"):
                print(f"consistent {name}: predicted no delegation (dynamic tensors); LiteRT.js failed: {err}")
            else:
                print(f"NOVERDICT {name}: LiteRT.js: {err} {tail}")
            noverdict += 1
            continue
        problems = []
        if has_res:
            if (r["gpu_ops"], r["cpu_ops"]) != (pred["gpu_ops"], pred["cpu_ops"]):
                problems.append(f"residency oracle {r['gpu_ops']}/{r['cpu_ops']} predicted "
                                f"{pred['gpu_ops']}/{pred['cpu_ops']}")
            got = sorted(l for l in r.get("unsupported", []) if OP_LINE.match(l))
            want = sorted(pred["unsupported"])
            if got != want:
                problems.append(f"unsupported oracle {got} predicted {want}")
        else:
            if not pred["full"]:
                problems.append(f"oracle: fully delegated, predicted {pred['gpu_ops']}/"
                                f"{pred['gpu_ops'] + pred['cpu_ops']} ({pred['unsupported']})")
        if problems:
            disagree += 1
            print(f"DISAGREE  {name}: " + "; ".join(problems))
        else:
            agree += 1
            print(f"agree     {name}")
    print(f"{agree} agree, {disagree} disagree, {noverdict} without a verdict, {skipped} classic-only skipped, "
          f"{invalid} refused by the TFLite runtime itself (C tests only) skipped")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
