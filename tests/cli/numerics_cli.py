#!/usr/bin/env python3
"""tests/cli/numerics_cli.py GPUCLEAN SCRATCH — measured GPU facts end to end, and the
validator of tools/gpu_facts.py.

1. gpu_facts.py reports every kind of bad row as FILE:LINE (exit 2, nothing written), says
   when a generated table is stale (exit 1), and the committed table is fresh.
2. The fixture tests/cli/numerics_facts.tsv (test data shaped like the sweep's facts, with
   every key kind) is generated into a C table, compiled, and linked ahead of
   libgpuclean.a into (a) numerics_models, which runs the C validator on that table (the
   Python and C grammars agree) and writes the test models, and (b) a gpuclean whose
   built-in facts are the fixture's.
3. That gpuclean: exit codes (0 clean and correct, 1 a wrong node or a measured kernel-build
   failure, 2 bad usage), --runtime selection, --precision, text, --quiet, --json fields,
   --list-runtimes (text and JSON), --list-rules and --explain for a fact id.
Prints one line per check, ends with "numerics_cli: N checks passed" or exits 1."""
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOOL = [sys.executable, os.path.join(ROOT, "tools", "gpu_facts.py")]
FIXTURE = os.path.join(ROOT, "tests", "cli", "numerics_facts.tsv")
HEADER = "#id\truntime\tdevice\top\twhen\tprecision\tverdict\terror\tevidence\tfix\tmessage\n"
GOOD = ["numerics.x", "native-2.3.0", "nvidia-h200", "CUMSUM", "opt.exclusive=1", "fp32", "wrong", "max_abs=1",
        "case_a", "fix.cumsum.exclusive", "a message"]
passed = 0


def ok(cond, what, detail=""):
    global passed
    if not cond:
        print("FAIL %s%s" % (what, ("\n" + detail.rstrip()) if detail else ""))
        sys.exit(1)
    passed += 1
    print("ok   %s" % what)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, **kw)


def row(**change):
    cells = dict(zip(["id", "runtime", "device", "op", "when", "precision", "verdict", "error", "evidence", "fix",
                      "message"], GOOD))
    cells.update(change)
    return "\t".join(cells.values()) + "\n"


def tool_errors(tmp):
    facts, out = os.path.join(tmp, "facts.tsv"), os.path.join(tmp, "table.c")
    bad = [  # (line, substring of the error)
        (row(id="Bad Id"), "id 'Bad Id'"),
        (row(runtime="native-9.9"), "unknown runtime 'native-9.9'"),
        (row(device="NVIDIA H200"), "device 'NVIDIA H200'"),
        (row(op="CUMSUMM"), "unknown op 'CUMSUMM'"),
        (row(op="CUMSUM|"), "unknown op ''"),
        (row(when="in0.bogus=1"), "unknown key 'in0.bogus'"),
        (row(when="in64.rank=1"), "unknown key 'in64.rank'"),
        (row(when="in0.dim16=1"), "unknown key 'in0.dim16'"),
        (row(when="opt.keep_num_dims=1"), "no builtin option 'keep_num_dims' on CUMSUM"),
        (row(op="*", when="opt.no_such=1"), "no builtin option 'no_such' on any op"),
        (row(when="opt.exclusive=2"), "'2': want 0 or 1"),
        (row(when="in0.rank>four"), "'four' is not a number"),
        (row(when="in0.dtype>1"), "only = and != apply"),
        (row(when="in0.dtype=FLOAT33"), "unknown dtype 'FLOAT33'"),
        (row(when="in1.producer=RELUU"), "producer 'RELUU'"),
        (row(when="bcast=3by4"), "bcast '3by4'"),
        (row(when="in0.rank=1|"), "empty alternative"),
        (row(when="in0.rank"), "condition 'in0.rank'"),
        (row(when="in0.rank=1.5"), "'1.5' is not an integer"),
        (row(precision="fp8"), "precision 'fp8'"),
        (row(verdict="broken"), "verdict 'broken'"),
        (row(error="-"), "no error"),
        (row(evidence="a b"), "evidence 'a b'"),
        (row(fix="cumsum.exclusive"), "fix 'cumsum.exclusive'"),
        (row(message="-"), "no message"),
        ("numerics.x\tnative-2.3.0\n", "2 tab-separated columns, want 11"),
    ]
    for text, want in bad:
        with open(facts, "w") as f:
            f.write(HEADER + row(id="numerics.fine") + text)
        r = run(TOOL + ["--facts", facts, "--out", out])
        ok(r.returncode == 2 and ("%s:3: " % facts) in r.stderr and want in r.stderr and not os.path.exists(out),
           "gpu_facts.py rejects: %s" % want, r.stderr)
    # duplicates and one id with two verdicts
    with open(facts, "w") as f:
        f.write(HEADER + row() + row(when="opt.exclusive=true"))
    r = run(TOOL + ["--facts", facts, "--validate"])
    ok(r.returncode == 2 and "%s:3: numerics.x: the same fact as line 2" % facts in r.stderr, "duplicate row", r.stderr)
    with open(facts, "w") as f:
        f.write(HEADER + row() + row(verdict="ok", when="opt.exclusive=0"))
    r = run(TOOL + ["--facts", facts, "--validate"])
    ok(r.returncode == 2 and "id used with verdict wrong on line 2" in r.stderr, "one id, one verdict", r.stderr)
    # every problem is listed, not just the first
    with open(facts, "w") as f:
        f.write(HEADER + row(op="NOPE") + row(precision="x"))
    r = run(TOOL + ["--facts", facts, "--validate"])
    ok(r.returncode == 2 and ":2: " in r.stderr and ":3: " in r.stderr and "2 problem(s)" in r.stderr, "all problems", r.stderr)
    # runtimes.tsv
    rts = os.path.join(tmp, "runtimes.tsv")
    for text, want in (("native-2.3.0\tnative\t2.3.0\tyes\tx\njs-2.5.3\tjs\t2.5.3\tyes\ty\n", "2 runtimes marked default"),
                       ("native-2.3\tnative\t2.3.0\tyes\tx\n", "must be <kind>-<version>"),
                       ("native-2.3.0\tnative\t2.3.0\tmaybe\tx\n", "default 'maybe'")):
        with open(rts, "w") as f:
            f.write(text)
        r = run(TOOL + ["--facts", FIXTURE, "--runtimes", rts, "--validate"])
        ok(r.returncode == 2 and want in r.stderr, "runtimes.tsv rejects: %s" % want, r.stderr)
    # stale check, then the committed table
    with open(facts, "w") as f:
        f.write(HEADER + row())
    r = run(TOOL + ["--facts", facts, "--out", out])
    ok(r.returncode == 0 and os.path.exists(out), "writes a table", r.stderr)
    with open(facts, "a") as f:
        f.write(row(id="numerics.y"))
    r = run(TOOL + ["--facts", facts, "--out", out, "--check"])
    ok(r.returncode == 1 and "is stale" in r.stdout, "--check: stale", r.stdout + r.stderr)
    r = run(TOOL + ["--check"])
    ok(r.returncode == 0 and "matches data/gpu/facts.tsv" in r.stdout, "committed src/check/gpu_facts_table.c is fresh",
       r.stdout + r.stderr)


def build(gc, tmp):
    """(numerics_models, gpuclean) linked with the fixture's table, or None when the objects are absent"""
    bdir = os.path.dirname(os.path.abspath(gc))
    lib = os.path.join(bdir, "libgpuclean.a")
    builder = os.path.join(bdir, "obj", "tests", "c", "test_check_cases.o")
    cli = sorted(os.path.join(bdir, "obj", "src", "cli", f) for f in os.listdir(os.path.join(bdir, "obj", "src", "cli"))
                 if f.endswith(".o")) if os.path.isdir(os.path.join(bdir, "obj", "src", "cli")) else []
    if not (os.path.exists(lib) and os.path.exists(builder) and cli):
        return None
    cc = os.environ.get("CC", "cc")
    syms = run(["nm", lib]).stdout
    flags = ["-fsanitize=address,undefined"] if "__asan_" in syms else ["-fsanitize=undefined"] if "__ubsan_" in syms else []
    table = os.path.join(tmp, "fixture_table.c")
    r = run(TOOL + ["--facts", FIXTURE, "--out", table])
    ok(r.returncode == 0, "fixture generates", r.stderr)
    inc = ["-std=c11", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "src"),
           "-I" + os.path.join(ROOT, "src", "check")]
    tobj = os.path.join(tmp, "fixture_table.o")
    r = run([cc] + inc + flags + ["-c", table, "-o", tobj])
    ok(r.returncode == 0, "fixture table compiles", r.stderr)
    models = os.path.join(tmp, "numerics_models")
    libs = ["-lm", "-lpthread", "-ldl"]
    r = run([cc] + inc + flags + [os.path.join(ROOT, "tests", "cli", "numerics_models.c"), builder, tobj, lib, "-o",
                                  models] + libs)
    ok(r.returncode == 0, "numerics_models links", r.stderr)
    gcx = os.path.join(tmp, "gpuclean-facts")
    r = run([cc] + flags + cli + [tobj, lib, "-o", gcx] + libs)
    ok(r.returncode == 0, "gpuclean links with the fixture's facts", r.stderr)
    return models, gcx


def doc_matches(block, d, what):
    """the document against its schema block in docs/json.md (tests/cli/json_doc.py's checker)"""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import json_doc
    blocks = json_doc.parse_doc()
    c = json_doc.Checker(blocks)
    c.value({"": ({"object"}, False), **blocks[block]}, block, "", d)
    ok(not c.errors, "docs/json.md describes %s" % what, "\n".join(sorted(set(c.errors))[:20]))


def cli_checks(models, gc, tmp):
    mdir = os.path.join(tmp, "models")
    os.makedirs(mdir, exist_ok=True)
    r = run([models, mdir])
    ok(r.returncode == 0 and "facts table valid: 7 fact(s), 2 runtime(s)" in r.stdout,
       "the C validator accepts what gpu_facts.py generated", r.stdout + r.stderr)
    M = lambda name: os.path.join(mdir, name + ".tflite")  # noqa: E731

    def check(*args, rc):
        r = run([gc, "check"] + list(args))
        ok(r.returncode == rc, "check %s exits %d" % (" ".join(a.replace(mdir + "/", "") for a in args), rc),
           "exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        return r

    r = check(M("cumsum"), rc=0)
    ok(r.stdout.rstrip().endswith("(GPU-clean)") and "runtime: native-2.3.0, fp32 (5 measured fact(s)" in r.stdout,
       "clean and correct: GPU-clean, the runtime line", r.stdout)
    r = check(M("cumsum_excl"), rc=1)
    ok(re.search(r"cumsum_excl\.tflite: node 0 CUMSUM 'probe': error: wrong numbers on the GPU: CUMSUM ignores exclusive "
                 r"on the GPU \[numerics\.cumsum_exclusive\]\n  measured on native-2\.3\.0 \(nvidia-h200, fp32\): "
                 r"max_abs=3\.5 corr=0\.71; cases: cumsum_excl, cumsum_excl_rev\n  fix: fix\.cumsum\.exclusive\n", r.stdout),
       "wrong node: error, measured error, cases, fix", r.stdout)
    ok(r.stdout.rstrip().endswith("GPU residency: 2/2 nodes in 1 partition(s) (all on the GPU, numbers wrong)"),
       "residency line says the numbers are wrong", r.stdout)
    r = check("--quiet", M("cumsum_excl"), rc=1)
    ok(r.stdout.count("\n") == 2 and "error: 1 node(s) on the GPU compute wrong numbers (measured on native-2.3.0, fp32)"
       in r.stdout, "--quiet: the error line and the residency line", r.stdout)
    r = check("--json", M("cumsum_excl"), rc=1)
    d = json.loads(r.stdout)
    s, n = d["summary"], d["nodes"][0]
    ok(s["gpu_clean"] is True and s["gpu_correct"] is False and s["runtime"] == "native-2.3.0" and
       s["precision"] == "fp32" and s["wrong_nodes"] == 1, "--json summary", json.dumps(s))
    ok(n["numerics"] == "wrong" and n["numerics_rule"] == "numerics.cumsum_exclusive" and
       n["evidence"]["runtime"] == "native" and n["evidence"]["version"] == "2.3.0" and
       n["evidence"]["device"] == "nvidia-h200" and n["evidence"]["precision"] == "fp32" and
       n["evidence"]["error"] == "max_abs=3.5 corr=0.71" and n["evidence"]["cases"] == ["cumsum_excl", "cumsum_excl_rev"]
       and n["evidence"]["source"] == "tests/cli/numerics_facts.tsv:2" and n["fix"]["id"] == "fix.cumsum.exclusive",
       "--json node: numerics, numerics_rule, evidence", json.dumps(n))
    doc_matches("check", d, "check --json with a wrong node")
    ok(d["nodes"][1]["numerics"] == "ok" and d["nodes"][1]["evidence"] is None, "--json: the RELU is ok")
    r = check("--json", M("cumsum"), rc=0)
    n = json.loads(r.stdout)["nodes"][0]
    ok(n["numerics"] == "ok" and n["numerics_rule"] == "ok.cumsum" and n["evidence"]["verdict"] == "ok",
       "an ok fact is the evidence of an ok node", json.dumps(n))
    # runtime selection
    check("--runtime", "js-2.5", M("cumsum_excl"), rc=0)
    check("--runtime=js-2.5.3", M("cumsum_excl"), rc=0)
    check("--runtime", "native-2.3", M("cumsum_excl"), rc=1)
    check("--runtime", "native-2.3.0", M("cumsum_excl"), rc=1)
    check(M("gather1"), rc=0)
    r = check("--runtime", "js", M("gather1"), rc=1)
    ok("gather1.tflite: node 1 GATHER 'probe': breaks GPU delegate init: Unable to parse bc coord for BATCH axis "
       "[init.gather_const_indices]\n  measured on js-2.5.3 (nvidia-h200, any); cases: gather_c1\n" in r.stdout and
       "gather1.tflite: error: GATHER with constant 1-D indices fails kernel building on LiteRT.js 2.5.3\n" in r.stdout and
       r.stdout.rstrip().endswith("GPU residency: 0/2 nodes in 0 partition(s)"),
       "init_failed: the whole model on the CPU, the fact's message", r.stdout)
    r = check("--json", "--runtime", "js", M("gather1"), rc=1)
    d = json.loads(r.stdout)
    ok(d["summary"]["gpu_nodes"] == 0 and d["summary"]["fatal"] == "GATHER with constant 1-D indices fails kernel "
       "building on LiteRT.js 2.5.3" and d["nodes"][1]["rule"] == "init.gather_const_indices" and
       d["nodes"][1]["state"] == "init_failed" and d["nodes"][1]["evidence"]["verdict"] == "init_failed" and
       d["summary"]["gpu_correct"] is True, "--json: init_failed", json.dumps(d["summary"]))
    doc_matches("check", d, "check --json with an init_failed fact")
    # precision
    r = check(M("softmax1000"), rc=0)
    ok("warning: wrong numbers on the GPU at fp16: softmax over a long axis is wrong at fp16 [numerics.softmax_long]"
       in r.stdout, "fp16-only fact at fp32: a warning", r.stdout)
    r = check("--precision", "fp16", M("softmax1000"), rc=1)
    ok("error: wrong numbers on the GPU: softmax over a long axis" in r.stdout and "runtime: native-2.3.0, fp16" in r.stdout,
       "--precision fp16: wrong", r.stdout)
    d = json.loads(check("--json", M("softmax1000"), rc=0).stdout)
    ok(d["nodes"][0]["numerics"] == "risk" and d["summary"]["risk_nodes"] == 1, "--json: risk", json.dumps(d["nodes"][0]))
    # bad usage
    for args in (["--runtime", "native-9", M("cumsum")], ["--runtime"], ["--precision", "fp64", M("cumsum")],
                 ["--target", "classic", "--runtime", "js", M("cumsum")], ["--list-runtimes", M("cumsum")]):
        r = check(*args, rc=2)
        ok(r.stderr.count("\n") == 1 and "gpuclean check" in r.stderr, "one stderr line: %s" % r.stderr.strip())
    check("--target", "classic", M("cumsum_excl"), rc=0)   # facts are ML Drift's
    # catalogue
    r = check("--list-runtimes", rc=0)
    ok("native-2.3.0\tnative\t2.3.0\tnvidia-h200\t5\tdefault\t" in r.stdout and
       "js-2.5.3\tjs\t2.5.3\tnvidia-h200\t2\t-\t" in r.stdout, "--list-runtimes", r.stdout)
    d = json.loads(check("--list-runtimes", "--json", rc=0).stdout)
    ok(d["schema"] == 1 and d["n_facts"] == 7 and [x["facts"] for x in d["runtimes"]] == [5, 2] and
       d["runtimes"][0]["default"] is True and d["runtimes"][1]["devices"] == [{"device": "nvidia-h200", "facts": 2}],
       "--list-runtimes --json", json.dumps(d))
    doc_matches("check_runtimes", d, "check --list-runtimes --json")
    r = check("--list-rules", rc=0)
    ok("numerics.cumsum_exclusive\tfact (wrong)\tnative-2.3.0 nvidia-h200 fp32\tCUMSUM [opt.exclusive=1]\t"
       "fix.cumsum.exclusive\t" in r.stdout, "--list-rules lists the facts", r.stdout[-800:])
    r = check("--explain", "test.every_key", rc=0)
    ok(r.stdout.count("fact: test.every_key\n") == 3 and "runtime: js-2.5.3 (LiteRT.js" in r.stdout and
       "when: n_in=3 n_out=1 version<=2 in0.dtype=FLOAT32|FLOAT16" in r.stdout and
       "source: tests/cli/numerics_facts.tsv:6" in r.stdout, "--explain a fact id: every row", r.stdout)
    r = check("--explain", "init.gather_const_indices", rc=0)
    ok("delegate message: Unable to parse bc coord" in r.stdout and "fix: fix.gather.const_indices, gpuclean fix pass: "
       "gather_const_rows" in r.stdout, "--explain: the delegate's message, the fix pass", r.stdout)
    r = check("--list-rules", "--markdown", rc=0)
    ok("## Measured GPU facts (7)" in r.stdout and "| `numerics.softmax_long` | wrong | native-2.3.0 |" in r.stdout,
       "--list-rules --markdown: the facts section", r.stdout[-1500:])


def main():
    gc, tmp = sys.argv[1], sys.argv[2]
    tmp = os.path.join(tmp, "numerics_cli")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    tool_errors(tmp)
    built = build(gc, tmp)
    if built is None:
        print("numerics_cli: %d checks passed; the CLI part needs %s's build objects (make build/gctest)" % (passed, gc))
        return 0
    cli_checks(built[0], built[1], tmp)
    print("numerics_cli: %d checks passed (tool and CLI)" % passed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
