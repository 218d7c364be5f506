#!/usr/bin/env python3
"""gpu_facts.py — the measured GPU facts: validates data/gpu/facts.tsv (and the runtimes it
names, data/gpu/runtimes.tsv) and generates src/check/gpu_facts_table.c, the table that
gpuclean check's one matcher (src/check/numerics.c) applies. Data file -> generated C table
-> one engine; no measured fact is written as code. Format: data/gpu/README-facts.md.

    tools/gpu_facts.py              validate, then rewrite src/check/gpu_facts_table.c
    tools/gpu_facts.py --check      validate; exit 1 (with a diff) when the committed table is stale
    tools/gpu_facts.py --validate   validate only
    --facts FILE --runtimes FILE --out FILE    other files (tests)

Every problem is reported as "FILE:LINE: what" on stderr, all of them, then exit 2: an
unknown column count, id, runtime, op, condition key, option name, verdict, precision, a
value that does not fit its key, a duplicated row. The op names, option fields and tensor
types come from the model layer's schema tables (src/model/schema_gen.c, schema.h), so a
fact can only name what the engine can read. Python 3 standard library only.
"""
import difflib
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FACTS = os.path.join(ROOT, "data", "gpu", "facts.tsv")
RUNTIMES = os.path.join(ROOT, "data", "gpu", "runtimes.tsv")
OUT = os.path.join(ROOT, "src", "check", "gpu_facts_table.c")
SCHEMA_C = os.path.join(ROOT, "src", "model", "schema_gen.c")
SCHEMA_H = os.path.join(ROOT, "src", "model", "schema.h")

COLUMNS = ["id", "runtime", "device", "op", "when", "precision", "verdict", "error", "evidence", "fix", "message"]
RT_COLUMNS = ["runtime", "kind", "version", "default", "what"]
PRECISIONS = {"any": "GC_FPREC_ANY", "fp32": "GC_FPREC_FP32", "fp16": "GC_FPREC_FP16"}
VERDICTS = {"wrong": "GC_FACT_WRONG", "init_failed": "GC_FACT_INIT_FAILED", "ok": "GC_FACT_OK",
            "crashed": "GC_FACT_CRASHED"}
CMPS = [("!=", "GC_FC_NE"), (">=", "GC_FC_GE"), ("<=", "GC_FC_LE"), ("=", "GC_FC_EQ"), (">", "GC_FC_GT"),
        ("<", "GC_FC_LT")]
# node features (numerics.c): kind of value
NODE_KEYS = {"n_in": "int", "n_out": "int", "version": "int", "bcast": "bcast", "rank_mismatch_lead": "int",
             "bcast_meet": "int", "axis": "int", "axis_size": "int", "reduce_size": "int", "axis_raw": "int",
             "groups": "int", "group_out": "int", "composite": "text"}
TENSOR_FIELDS = {"dtype": "dtype", "rank": "int", "const": "bool", "producer": "producer", "producer_gpu": "bool",
                 "graph_input": "bool", "graph_output": "bool", "consumed": "int", "numel": "int",
                 "quant": "quant"}
QUANT_KINDS = {"none", "per_tensor", "per_channel", "blockwise", "custom"}
MAX_SLOT, MAX_DIM = 63, 15
SCALAR_KINDS = {"BOOL", "I8", "U8", "I16", "U16", "I32", "U32", "I64", "U64", "F32", "F64"}


def schema():
    """(op names, {op: {option field: kind}}, {all option fields: kind}, tensor type names)"""
    text = open(SCHEMA_C).read()
    names = re.search(r"gc_builtin_names\[GC_OP_COUNT\]\s*=\s*\{(.*?)\n\};", text, re.S)
    ops = set(re.findall(r'\[GC_OP_\w+\]\s*=\s*"(\w+)"', names.group(1) if names else ""))
    tables = {}
    for m in re.finditer(r"static const gc_opt_field_def f_(\w+)\[\]\s*=\s*\{(.*?)\n\};", text, re.S):
        tables[m.group(1)] = {f: k for f, k in re.findall(r'\{"(\w+)",\s*GC_F_(\w+),', m.group(2))}
    op_opts = {}
    for arr in ("op_options", "op_options2"):
        body = re.search(r"static const uint8_t %s\[GC_OP_COUNT\]\s*=\s*\{(.*?)\n\};" % arr, text, re.S)
        for op, tab in re.findall(r"\[GC_OP_(\w+)\]\s*=\s*GC_BO2?_(\w+)", body.group(1) if body else ""):
            op_opts.setdefault(op, {}).update(tables.get(tab, {}))
    if not ops or not op_opts:
        raise SystemExit("gpu_facts.py: cannot read the op and option tables of %s" % SCHEMA_C)
    every = {}
    for fields in tables.values():
        every.update(fields)
    htext = open(SCHEMA_H).read()
    types = {t for t in re.findall(r"GC_T_(\w+)\s*=\s*\d+", htext) if t != "COUNT"}
    return ops, op_opts, every, types


def rel(path):
    """the path relative to the checkout when inside it, else as given"""
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


class Errors:
    def __init__(self):
        self.items = []

    def add(self, path, line, msg):
        self.items.append("%s:%d: %s" % (rel(path), line, msg))


def rows(path, ncols, names, errs):
    """[(line number, [cells])] of a tab-separated file; '#' lines and blank lines skipped."""
    out = []
    try:
        raw = open(path, "rb").read()
    except OSError as e:
        errs.add(path, 0, "cannot read: %s" % e.strerror)
        return out
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        errs.add(path, raw[:e.start].count(b"\n") + 1, "not UTF-8")
        return out
    for n, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", line):
            errs.add(path, n, "control character in the line")
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) != ncols:
            errs.add(path, n, "%d tab-separated columns, want %d (%s)" % (len(cells), ncols, ", ".join(names)))
            continue
        out.append((n, cells))
    return out


def read_runtimes(path, errs):
    rts = []
    for n, (name, kind, version, dflt, what) in rows(path, len(RT_COLUMNS), RT_COLUMNS, errs):
        if not re.fullmatch(r"[a-z][a-z0-9]*", kind):
            errs.add(path, n, "kind '%s': lower-case letters and digits (native, js)" % kind)
        elif not re.fullmatch(r"\d+(\.\d+)*", version):
            errs.add(path, n, "version '%s': dotted numbers (2.3.0)" % version)
        elif name != "%s-%s" % (kind, version):
            errs.add(path, n, "runtime '%s' must be <kind>-<version>: %s-%s" % (name, kind, version))
        elif dflt not in ("yes", "-"):
            errs.add(path, n, "default '%s': yes or -" % dflt)
        elif not what or what == "-":
            errs.add(path, n, "no description")
        elif name in [r["name"] for r in rts]:
            errs.add(path, n, "runtime '%s' declared twice" % name)
        else:
            rts.append({"name": name, "kind": kind, "version": version, "default": dflt == "yes", "what": what, "line": n})
    defaults = [r for r in rts if r["default"]]
    if rts and len(defaults) != 1:
        errs.add(path, defaults[1]["line"] if len(defaults) > 1 else rts[0]["line"],
                 "%d runtimes marked default, want exactly one" % len(defaults))
    return rts


def parse_key(key):
    """(kind, field or option name, via) for a feature key, or None. kind: 'node', 'tensor',
    'opt'; via: True for <in<k>|in*|lo|hi>.producer.KEY (KEY read on the op writing that
    input; one level)."""
    m = re.fullmatch(r"(?:in(?:\*|\d{1,2})|lo|hi)\.producer\.(.+)", key)
    if m:
        slot = re.match(r"in(\d+)", key)
        if slot and int(slot.group(1)) > MAX_SLOT:
            return None
        inner = parse_plain_key(m.group(1))
        return inner + (True,) if inner else None
    inner = parse_plain_key(key)
    return inner + (False,) if inner else None


def parse_plain_key(key):
    if key in NODE_KEYS:
        return ("node", key)
    m = re.fullmatch(r"opt\.([a-z0-9_]+)", key)
    if m:
        return ("opt", m.group(1))
    m = re.fullmatch(r"(?:(?:in|out)(\*|\d{1,2})|lo|hi)\.([a-z_]+?)(\d{1,2})?", key)
    if not m:
        return None
    slot, field, dim = m.group(1), m.group(2), m.group(3)
    if slot not in (None, "*") and int(slot) > MAX_SLOT:
        return None
    if field == "dim" and dim is not None and int(dim) <= MAX_DIM:
        return ("tensor", "dim")
    if dim is None and field in TENSOR_FIELDS:
        return ("tensor", field)
    return None


def is_num(s, integer):
    return re.fullmatch(r"-?\d+" if integer else r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", s) is not None


def check_value(kind, value, cmp, ctx):
    """'' when value fits a feature of this kind, else the problem; returns (problem, normalised value)."""
    ops, types = ctx
    if cmp not in ("=", "!="):
        if kind not in ("int", "bool", "float"):
            return "compares a %s feature with %s: only = and != apply" % (kind, cmp), value
        if not is_num(value, kind != "float"):
            return "'%s' is not a number" % value, value
        return "", value
    alts = value.split("|")
    if any(not a for a in alts):
        return "empty alternative in '%s'" % value, value
    norm = []
    for a in alts:
        if kind == "bool":
            a = {"true": "1", "false": "0"}.get(a.lower(), a)
            if a not in ("0", "1"):
                return "'%s': want 0 or 1" % a, value
        elif kind in ("int", "float"):
            if not is_num(a, kind == "int"):
                return "'%s' is not %s" % (a, "an integer" if kind == "int" else "a number"), value
        elif kind == "dtype":
            a = a.upper()
            if a not in types:
                return "unknown dtype '%s' (FLOAT32, INT32, ...)" % a, value
        elif kind == "producer":
            if a not in ops and a not in ("input", "const"):
                return "producer '%s': an opcode name, input or const" % a, value
        elif kind == "bcast":
            if not re.fullmatch(r"\d+x\d+", a):
                return "bcast '%s': <rank>x<rank> (3x4)" % a, value
        elif kind == "quant":
            if a not in QUANT_KINDS:
                return "quant '%s': one of %s" % (a, ", ".join(sorted(QUANT_KINDS))), value
        norm.append(a)
    return "", "|".join(norm)


def read_facts(path, runtimes, errs):
    ops, op_opts, every_opt, types = schema()
    names = {r["name"] for r in runtimes}
    facts, seen, verdict_of = [], {}, {}
    for n, cells in rows(path, len(COLUMNS), COLUMNS, errs):
        f = dict(zip(COLUMNS, cells))
        f["line"] = n
        bad = lambda msg: errs.add(path, n, "%s: %s" % (f["id"] or "(no id)", msg))  # noqa: E731
        before = len(errs.items)
        if not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)+", f["id"]):
            bad("id '%s': lower-case words joined by dots (numerics.cumsum_exclusive)" % f["id"])
        if f["runtime"] not in names:
            bad("unknown runtime '%s' (declared in %s: %s)" % (f["runtime"], os.path.basename(RUNTIMES),
                                                              ", ".join(sorted(names)) or "none"))
        if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", f["device"]):
            bad("device '%s': lower case, no spaces (nvidia-h200)" % f["device"])
        op_list = [] if f["op"] == "*" else f["op"].split("|")
        for o in op_list:
            if o not in ops:
                bad("unknown op '%s'" % o)
        if f["precision"] not in PRECISIONS:
            bad("precision '%s': fp32, fp16 or any" % f["precision"])
        if f["verdict"] not in VERDICTS:
            bad("verdict '%s': wrong, init_failed, ok or crashed" % f["verdict"])
        if f["verdict"] != "ok" and f["error"] in ("", "-"):
            bad("no error: what was measured (max_abs=.. corr=..) or the delegate's message")
        if f["evidence"] != "-" and not all(re.fullmatch(r"[A-Za-z0-9_.:+=-]+", c.strip())
                                            for c in f["evidence"].split(",")):
            bad("evidence '%s': sweep case names, comma-separated" % f["evidence"])
        if f["fix"] != "-" and not re.fullmatch(r"fix(\.[a-z0-9_]+)+", f["fix"]):
            bad("fix '%s': a fix id (fix.cumsum.exclusive) or -" % f["fix"])
        if f["message"] in ("", "-"):
            bad("no message")
        conds = []
        for c in ([] if f["when"] == "-" else f["when"].split()):
            m = re.fullmatch(r"([a-z0-9_.*]+)(!=|>=|<=|=|>|<)(.+)", c)
            if not m:
                bad("condition '%s': key=v, key!=v, key>N, key<N, key>=N, key<=N or key=a|b" % c)
                continue
            key, cmp, value = m.groups()
            pk = parse_key(key)
            if pk is None:
                bad("unknown key '%s' (data/gpu/README-facts.md lists the features)" % key)
                continue
            if pk[0] == "node":
                kind = NODE_KEYS[pk[1]]
            elif pk[0] == "tensor":
                kind = TENSOR_FIELDS.get(pk[1], "int")
            else:
                known = [o for o in op_list if o in ops]          # unknown ops are reported above
                if op_list and not known:
                    continue
                # an option of the producer (in0.producer.opt.axis): whatever op writes it
                mine = op_list and not pk[2]
                where = [op_opts.get(o, {}) for o in known] if mine else [every_opt]
                missing = [o for o, fl in zip(known if mine else ["*"], where) if pk[1] not in fl]
                if missing:
                    bad("no builtin option '%s' on %s" % (pk[1], ", ".join(missing) if mine else "any op"))
                    continue
                fk = where[0][pk[1]]
                if fk not in SCALAR_KINDS:
                    bad("option '%s' is a %s, not a scalar" % (pk[1], fk))
                    continue
                kind = "bool" if fk == "BOOL" else "float" if fk in ("F32", "F64") else "int"
            why, value = check_value(kind, value, cmp, (ops, types))
            if why:
                bad("%s: %s" % (key, why))
                continue
            conds.append((key, cmp, value))
        f["conds"] = conds
        f["when"] = " ".join(k + c + v for k, c, v in conds) or "-"     # as matched: values normalised
        if len(errs.items) > before:
            continue
        k = (f["id"], f["runtime"], f["device"], f["op"], " ".join(sorted(f["when"].split())), f["precision"])
        if k in seen:
            bad("the same fact as line %d" % seen[k])
            continue
        seen[k] = n
        if verdict_of.setdefault(f["id"], (f["verdict"], n))[0] != f["verdict"]:
            bad("id used with verdict %s on line %d: one id, one verdict" % verdict_of[f["id"]])
            continue
        facts.append(f)
    return facts


def cstr(s):
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 32 <= b < 127 and c != "?":          # '?': no trigraphs
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def generate(runtimes, facts, facts_path):
    src = rel(facts_path)
    lines = ["/* gpu_facts_table.c — GENERATED by tools/gpu_facts.py from data/gpu/facts.tsv and",
             " * data/gpu/runtimes.tsv; do not edit. The measured GPU facts gpuclean check applies",
             " * (src/check/numerics.c; format and features: data/gpu/README-facts.md). */",
             '#include "numerics.h"', "", "#include <stddef.h>", ""]
    if runtimes:
        lines.append("static const gc_gpu_runtime runtimes[] = {")
        for r in runtimes:
            lines.append("    { %s, %s, %s, %s, %s }," % (cstr(r["name"]), cstr(r["kind"]), cstr(r["version"]),
                                                          "true" if r["default"] else "false", cstr(r["what"])))
        lines += ["};"]
    if facts:
        lines.append("")
    for i, f in enumerate(facts):
        if f["conds"]:
            lines.append("static const gc_fact_cond cond_%d[] = { %s };" % (
                i, ", ".join("{ %s, %s, %s }" % (cstr(k), dict(CMPS)[c], cstr(v)) for k, c, v in f["conds"])))
    if facts:
        lines += ["", "static const gc_gpu_fact facts[] = {"]
        dash = lambda s: "" if s == "-" else s  # noqa: E731
        for i, f in enumerate(facts):
            lines.append("    { %s, %s, %s, %s, %s, %d, %s, %s, %s," % (
                cstr(f["id"]), cstr(f["runtime"]), cstr(f["device"]), cstr(f["op"]), cstr(f["when"]),
                len(f["conds"]), "cond_%d" % i if f["conds"] else "NULL", PRECISIONS[f["precision"]],
                VERDICTS[f["verdict"]]))
            lines.append("      %s, %s, %s, %s, %d }," % (
                cstr(dash(f["error"])), cstr(dash(f["evidence"])), cstr(dash(f["fix"])), cstr(f["message"]),
                f["line"]))
        lines += ["};"]
    lines += ["", "const gc_gpu_facts gc_gpu_facts_builtin = { %s, %d, %s, %d, %s };" % (
        cstr(src), len(runtimes), "runtimes" if runtimes else "NULL", len(facts), "facts" if facts else "NULL"), ""]
    return "\n".join(lines)


def main(argv):
    args = {"--facts": FACTS, "--runtimes": RUNTIMES, "--out": OUT}
    mode, i = "write", 0
    while i < len(argv):
        a = argv[i]
        if a in ("--check", "--validate"):
            mode = a[2:]
        elif a in args and i + 1 < len(argv):
            args[a] = os.path.abspath(argv[i + 1]); i += 1
        elif a in ("-h", "--help"):
            print(__doc__.strip()); return 0
        else:
            print("gpu_facts.py: unknown argument '%s' (--help)" % a, file=sys.stderr); return 2
        i += 1
    errs = Errors()
    runtimes = read_runtimes(args["--runtimes"], errs)
    facts = read_facts(args["--facts"], runtimes, errs)
    if errs.items:
        for e in errs.items:
            print(e, file=sys.stderr)
        print("gpu_facts.py: %d problem(s); nothing written" % len(errs.items), file=sys.stderr)
        return 2
    text = generate(runtimes, facts, args["--facts"])
    out = args["--out"]
    what = "%d fact(s), %d runtime(s)" % (len(facts), len(runtimes))
    if mode == "validate":
        print("%s: valid (%s)" % (rel(args["--facts"]), what))
        return 0
    if mode == "check":
        old = open(out).read() if os.path.exists(out) else ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       rel(out), "generated"))
            print("%s is stale: run tools/gpu_facts.py" % rel(out))
            return 1
        print("%s matches %s (%s)" % (rel(out), rel(args["--facts"]), what))
        return 0
    tmp = out + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, out)
    print("wrote %s (%s)" % (rel(out), what))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
