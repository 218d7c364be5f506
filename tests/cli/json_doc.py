#!/usr/bin/env python3
"""tests/cli/json_doc.py GPUCLEAN DEMO_MODEL SCRATCH [CORPUS] — every verb's --json document
against its schema block in docs/json.md: no field that the doc does not list, every listed
field that is not optional present, every value of a listed type. The documents come from
the demo model and, when the corpus is there, from models with the rarer parts (signatures,
quantization, risks, delegate init failures, declined rewrites, dynamic shapes). `litert`
runs where a LiteRT runtime is installed (else it is reported as skipped).
Prints one line per document; exit 1 on any mismatch."""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DOC = os.path.join(ROOT, "docs", "json.md")
VERBS = ["inspect", "check", "fix", "verify", "compare", "bisect", "litert"]
BASIC = {"int", "number", "string", "bool", "null", "object", "array", "any"}


def parse_doc():
    """{verb or block name: {path: (types, optional)}}"""
    text = open(DOC).read()
    blocks, verb = {}, None
    for m in re.finditer(r"^## `gpuclean (\w+)[^`]*`|^```schema( \w+)?\n(.*?)^```", text, re.M | re.S):
        if m.group(1):
            verb = m.group(1); continue
        name = (m.group(2) or "").strip() or verb
        if name in blocks:
            raise SystemExit("docs/json.md: two schema blocks for %s" % name)
        fields = {}
        for line in m.group(3).splitlines():
            if not line.strip():
                continue
            fm = re.match(r"^(\S+?)(\?)?: (\S+)(?: — .*)?$", line)
            if not fm:
                raise SystemExit("docs/json.md: cannot read schema line %r" % line)
            fields[fm.group(1)] = (set(fm.group(3).split("|")), bool(fm.group(2)))
        blocks[name] = fields
    return blocks


def jtype(v):
    if isinstance(v, bool): return "bool"
    if isinstance(v, int): return "int"
    if isinstance(v, float): return "number"
    if isinstance(v, str): return "string"
    if v is None: return "null"
    if isinstance(v, list): return "array"
    return "object"


class Checker:
    def __init__(self, blocks):
        self.blocks, self.errors, self.seen = blocks, [], set()

    def value(self, schema, block, path, v):
        types, _ = schema[path]
        if "any" in types:          # laid out by another verb's document: not checked here
            return
        t = jtype(v)
        named = [x for x in types if x not in BASIC]
        for n in named:
            if n not in self.blocks:
                self.errors.append("%s: %s: type %s has no schema block" % (block, path, n))
        if t == "object" and named and "object" not in types:
            self.obj(self.blocks[named[0]], named[0], "", v)
            return
        ok = t in types or (t == "int" and "number" in types)
        if not ok:
            self.errors.append("%s: %s is %s, the doc says %s" % (block, path or "(root)", t, "|".join(sorted(types))))
            return
        if t == "object":
            self.obj(schema, block, path, v)
        elif t == "array":
            el = path + "[]"
            if el not in schema:
                if v:
                    self.errors.append("%s: %s has elements, the doc lists no %s" % (block, path, el))
                return
            for x in v:
                self.seen.add((block, el))
                self.value(schema, block, el, x)

    def obj(self, schema, block, path, v):
        pre = path + "." if path else ""
        for k, x in v.items():
            child = pre + k
            if child not in schema and pre + "*" in schema:
                child = pre + "*"
            if child not in schema:
                self.errors.append("%s: field %s is not in docs/json.md" % (block, child))
                continue
            self.seen.add((block, child))
            self.value(schema, block, child, x)
        for p, (_, optional) in schema.items():
            if optional or not p.startswith(pre) or p == path:
                continue
            rest = p[len(pre):]
            if "." in rest or "[" in rest or rest == "*":
                continue
            if rest not in v:
                self.errors.append("%s: %s lacks %s" % (block, path or "(root)", p))


def run(cmd, want_rc):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode not in want_rc:
        raise SystemExit("FAIL %s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return r


def main():
    gc, demo, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    corpus = sys.argv[4] if len(sys.argv) > 4 and os.path.isdir(sys.argv[4]) else None
    blocks = parse_doc()
    missing = [v for v in VERBS if v not in blocks]
    if missing:
        raise SystemExit("FAIL docs/json.md has no schema for %s" % ", ".join(missing))
    ref = os.path.join(tmp, "jref")
    run([gc, "run", demo, "--pattern", "sin", "--out", ref], (0,))
    C = lambda name: os.path.join(corpus, name)
    docs = [  # (verb, argv, accepted exit codes)
        ("inspect", ["inspect", demo], (0,)),
        ("check", ["check", demo], (1,)),
        ("check_runtimes", ["check", "--list-runtimes"], (0,)),
        ("fix", ["fix", demo, "-o", os.path.join(tmp, "jfix.tflite")], (0,)),
        ("fix", ["fix", "--no-verify", demo, "-o", os.path.join(tmp, "jfix2.tflite")], (0,)),
        ("verify", ["verify", demo, "--ref", ref, "--precision", "both", "--argmax"], (0,)),
        ("compare", ["compare", os.path.join(ref, "output_0.npy"), os.path.join(ref, "input_0.npy")], (1,)),
        ("compare", ["compare", ref, ref], (0,)),
        ("bisect", ["bisect", demo], (0,)),
        ("bisect", ["bisect", demo, "--tol", "1e-6"], (1,)),
    ]
    if corpus:
        for m in ("yamnet_audio_classifier_with_metadata.tflite", "qwen_fc_blockwise_quantized.tflite",
                  "torchaudio_conformer.tflite", "dp_net.tflite"):
            docs.append(("inspect", ["inspect", C(m)], (0,)))
        for m, t in (("dp_net.tflite", "mldrift"), ("group_norm_2_groups_op.tflite", "classic"),
                     ("torchaudio_conformer.tflite", "mldrift"), ("deeplabv3.tflite", "mldrift")):
            docs.append(("check", ["check", "--target", t, C(m)], (0, 1)))
        docs.append(("fix", ["fix", C("yamnet_audio_classifier_with_metadata.tflite"), "-o",
                             os.path.join(tmp, "jy.tflite")], (0, 1)))
        docs.append(("fix", ["fix", "--no-verify", C("dp_net.tflite"), "-o", os.path.join(tmp, "jd.tflite")], (0, 1)))
    litert_docs = [("litert", ["litert", "--accelerator", "cpu", demo], (0, 1)),
                   ("litert", ["litert", demo], (0, 1))]
    # bisect --runtime through its test seam (the interpreter stands in for the GPU), on the
    # demo model and on a model that overflows half precision at a known op
    seam = ["--runtime", "native", "--gpu-side", "interp", "--no-progress"]
    litert_docs.append(("bisect_gpu", ["bisect", demo] + seam, (0, 1)))
    maker = os.path.join(os.path.dirname(os.path.abspath(gc)), "gpu-bisect-models")
    gbm = os.path.join(tmp, "jgbm")
    if os.access(maker, os.X_OK) and subprocess.run([maker, gbm], capture_output=True).returncode == 0:
        litert_docs.append(("bisect_gpu", ["bisect", os.path.join(gbm, "overflow_branch.tflite"), "--precision", "fp16"] + seam, (1,)))
    fail = 0
    seen_all = set()
    for verb, argv, rcs in docs + litert_docs:
        r = subprocess.run([gc] + argv[:1] + ["--json"] + argv[1:], capture_output=True, text=True, cwd=ROOT)
        if verb in ("litert", "bisect_gpu") and r.returncode == 2 and re.search(r"not (found|installed)|unavailable", r.stderr):
            print("skip %s: no LiteRT runtime here" % " ".join(argv)); continue
        if r.returncode not in rcs:
            print("FAIL %s: exit %d: %s" % (" ".join(argv), r.returncode, r.stderr.strip()[-500:])); fail = 1; continue
        try:
            d = json.loads(r.stdout)
        except ValueError as e:
            print("FAIL %s: not JSON: %s" % (" ".join(argv), e)); fail = 1; continue
        c = Checker(blocks)
        c.value({"": ({"object"}, False), **blocks[verb]}, verb, "", d)
        seen_all |= c.seen
        if c.errors:
            fail = 1
            print("FAIL %s --json:\n  %s" % (" ".join(argv), "\n  ".join(sorted(set(c.errors))[:30])))
        else:
            print("ok   %s --json (%d fields checked)" % (" ".join(argv).replace(tmp, "$TMP"), len(c.seen)))
    print("json_doc: %s" % ("FAIL" if fail else "every document matches docs/json.md"))
    return fail


if __name__ == "__main__":
    sys.exit(main())
