#!/usr/bin/env python3
"""rules_catalog.py — the catalogue of gpuclean check's rule ids, read from the checker's
sources (src/check/*.c), written as src/check/rules_catalog.c (data only; rendered by
src/check/rules_doc.c: `gpuclean check --list-rules`, `--explain RULE`, docs/rules.md).

    tools/rules_catalog.py            rewrite src/check/rules_catalog.c
    tools/rules_catalog.py --check    exit 1 (with a diff) when the committed file is stale

What it reads:
  * every rule site: GC_REJECT(h, "id", tensor, "wording", ...) and gc_hit_set(...) (refusals),
    emit(L, node, "id", level, "fix", "wording", ...) in lint.c (fp16 / GPU risk notes);
    the wording is the format string with %d -> <n>, %s -> <s>, %g -> <x>;
  * where each site can fire: the op table of rules_table.c (column 1 ML Drift IsSupported,
    2 classic IsSupported, 3 classic parse-time [P]), gc_mldrift_init_rule (ML Drift kernel
    creation), the driver's own calls in check.c (the type filter for every op, the classic
    parse checks common to every op); a site inherits the stages and ops of every root
    function that reaches it through the call graph of src/check;
  * the one computed id, "<op>.version" (gc_version: the op name in lower case).
The op sets are a sound over-approximation: a rule inside a shared function (gc_compat
switches on the op code) lists every op whose rules reach that function.
A rule site that no root reaches, or an id that is neither a literal nor known, is an error:
the catalogue never silently misses a rule.
"""
import difflib
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SRC = os.path.join(ROOT, "src", "check")
OUT = os.path.join(SRC, "rules_catalog.c")

ML, CL, CLP, MLI = 1, 2, 4, 8          # GC_RULE_ML, GC_RULE_CL, GC_RULE_CL_INIT, GC_RULE_ML_INIT
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "case", "do", "else", "goto"}

# ids computed at run time: (file, function) -> the id it produces
COMPUTED = {("rules_common.c", "gc_version"): "<op>.version"}
# states the driver reports with a rule id of its own (check.c), with the delegate's wording
STATES = [
    ("fp16_dequantize", ML | CL, ["GC_OP_DEQUANTIZE"],
     "DEQUANTIZE: (an fp16-constant DEQUANTIZE stays on the CPU when the model is only partly delegated)",
     "check.c", r'"%s\.fp16_dequantize"'),
    ("partition", ML | CL, [],
     "(supported, but outside the largest partition: only one partition is delegated)",
     "check_report.c", r'\[%s\.partition\]'),
]


def strip_comments(text):
    """Comments -> spaces (newlines kept); strings and chars kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1]); i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith("//", i):
            j = text.find("\n", i); j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        else:
            out.append(c); i += 1
    return "".join(out)


def blank_strings(text):
    """String and char literals -> same-length blanks, for brace / paren scanning."""
    return re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)


def functions(text):
    """[(name, body_start, body_end)] of the top-level function definitions."""
    b = blank_strings(text)
    res, depth, i = [], 0, 0
    while i < len(b):
        c = b[i]
        if c == "{":
            if depth == 0:
                k = i - 1
                while k >= 0 and b[k].isspace():
                    k -= 1
                if k >= 0 and b[k] == ")":
                    d, j = 0, k
                    while j >= 0:
                        if b[j] == ")": d += 1
                        elif b[j] == "(":
                            d -= 1
                            if d == 0: break
                        j -= 1
                    m = re.search(r"(\w+)\s*$", b[:j])
                    start = i
                    depth = 1; i += 1
                    while i < len(b) and depth:
                        depth += {"{": 1, "}": -1}.get(b[i], 0); i += 1
                    if m and m.group(1) not in KEYWORDS:
                        res.append((m.group(1), start, i))
                    continue
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1
    return res


def call_args(text, open_paren):
    """Top-level arguments of the call whose '(' is at open_paren; (args, end)."""
    b = blank_strings(text)
    args, depth, start, i = [], 0, open_paren + 1, open_paren
    while i < len(b):
        c = b[i]
        if c in "([{": depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i].strip()); return args, i
        elif c == "," and depth == 1:
            args.append(text[start:i].strip()); start = i + 1
        i += 1
    raise SystemExit("unbalanced call at offset %d" % open_paren)


def literal(expr):
    """The value of a (concatenated) string literal expression, else None."""
    parts = re.findall(r'"((?:\\.|[^"\\])*)"', expr)
    if not parts or re.sub(r'"(?:\\.|[^"\\])*"', "", expr).strip():
        return None
    s = "".join(parts)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


def wording(fmt):
    if fmt is None:
        return "(built at run time)"
    def conv(m):
        spec = m.group(0)
        if spec == "%%": return "%"
        t = spec[-1]
        return "<s>" if t == "s" else "<x>" if t in "feEgG" else "<c>" if t == "c" else "<n>"
    return re.sub(r"%%|%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp]", conv, fmt)


def parse_table(text):
    """rules_table.c: {function: {column: set(op)}} and ML Drift init rules."""
    macros = {m.group(1): [x.strip() for x in m.group(2).split(",")]
              for m in re.finditer(r"#define\s+(\w+)\s*\{([^}]*)\}", text)}
    cols = {}
    for m in re.finditer(r"\[(GC_OP_\w+)\]\s*=\s*(\{[^{}]*\}|\w+)", text):
        op, val = m.group(1), m.group(2)
        fns = [x.strip() for x in val.strip("{}").split(",")] if val.startswith("{") else macros.get(val)
        if fns is None:
            raise SystemExit("rules_table.c: unknown row macro %s" % val)
        for col, fn in zip((ML, CL, CLP), fns):
            if fn and fn != "NULL":
                cols.setdefault(fn, {}).setdefault(col, set()).add(op)
    init = re.search(r"gc_mldrift_init_rule\s*\([^)]*\)\s*\{(.*?)\n\}", text, re.S)
    for m in re.finditer(r"(GC_OP_\w+)\s*\?\s*(\w+)", init.group(1) if init else ""):
        cols.setdefault(m.group(2), {}).setdefault(MLI, set()).add(m.group(1))
    return cols


def main():
    files = sorted(f for f in os.listdir(SRC) if f.endswith(".c") and f != "rules_catalog.c")
    texts = {f: strip_comments(open(os.path.join(SRC, f)).read()) for f in files}
    funcs = {}                      # name -> (file, start, end)
    for f in files:
        for name, s, e in functions(texts[f]):
            funcs.setdefault(name, (f, s, e))
    calls = {}
    for name, (f, s, e) in funcs.items():
        body = blank_strings(texts[f][s:e])
        calls[name] = {w for w in re.findall(r"\b(\w+)\b", body) if w in funcs and w != name}

    # roots: (stages, ops or None = any op)
    roots = {}
    def add_root(fn, stage, ops):
        st, o = roots.get(fn, (0, set()))
        roots[fn] = (st | stage, None if ops is None or o is None else o | set(ops))
    for fn, cols in parse_table(texts["rules_table.c"]).items():
        for col, ops in cols.items():
            add_root(fn, col, ops)
    driver = blank_strings(texts["check.c"])
    for fn, stage in (("gc_type_filter", ML | CL), ("gc_clp_common", CLP)):
        if not re.search(r"\b%s\s*\(" % fn, driver):
            raise SystemExit("check.c no longer calls %s: update tools/rules_catalog.py" % fn)
        add_root(fn, stage, None)

    reach = {}                      # function -> (stages, ops or None)
    for root, (stage, ops) in roots.items():
        stack, seen = [root], set()
        while stack:
            fn = stack.pop()
            if fn in seen or fn not in funcs: continue
            seen.add(fn)
            st, o = reach.get(fn, (0, set()))
            reach[fn] = (st | stage, None if ops is None or o is None else o | ops)
            stack.extend(calls.get(fn, ()))

    entries = {}                    # id -> dict
    def add(rid, kind, stage, ops, text, where, fix=None):
        e = entries.setdefault(rid, {"kind": kind, "stage": 0, "ops": set(), "any": False,
                                     "wordings": set(), "where": set(), "fix": set()})
        if e["kind"] != kind:
            raise SystemExit("rule id %s is both a %s and a %s" % (rid, e["kind"], kind))
        e["stage"] |= stage
        if ops is None: e["any"] = True
        else: e["ops"] |= set(ops)
        e["wordings"].add(text)
        e["where"].add(where)
        if fix: e["fix"].add(fix)

    errors = []
    for f in files:
        t = texts[f]
        for name, s, e in functions(t):
            body = t[s:e]
            for m in re.finditer(r"\b(GC_REJECT|gc_hit_set|emit)\s*\(", body):
                args, _ = call_args(body, m.end() - 1)
                lint = m.group(1) == "emit"
                if lint and f != "lint.c":
                    continue
                rid = literal(args[2] if lint else args[1])
                where = "%s: %s" % (f, name)
                if rid is None:
                    rid = COMPUTED.get((f, name))
                    if rid is None and name in ("gc_hit_set", "gc_hit_vset"):
                        continue
                    if rid is None:
                        errors.append("%s: rule id %r is not a literal (add it to COMPUTED)" % (where, args[1]))
                        continue
                if lint:
                    add(rid, "risk", ML | CL, None, wording(literal(args[5])), where, literal(args[4]) or None)
                    continue
                if f == "check.c":                       # the driver's own refusal: no parser
                    add(rid, "reject", ML | CL, None, wording(literal(args[3])), where)
                    continue
                if name not in reach:
                    errors.append("%s: rule %s is reached from no root of the op table or the driver" % (where, rid))
                    continue
                stage, ops = reach[name]
                add(rid, "reject", stage, ops, wording(literal(args[3])), where)
    for rid, stage, ops, text, f, pat in STATES:
        if not re.search(pat, open(os.path.join(SRC, f)).read()):
            errors.append("%s no longer reports %s: update STATES in tools/rules_catalog.py" % (f, rid))
        add(rid, "state", stage, ops or None, text, "%s: (driver)" % f)
    if errors:
        raise SystemExit("rules_catalog.py:\n  " + "\n  ".join(errors))

    def cstr(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'

    lines = ["/* rules_catalog.c — GENERATED by tools/rules_catalog.py from the src/check sources; do not edit.",
             " * Every rule id gpuclean check reports (without the \"mldrift.\" / \"classic.\" prefix),",
             " * where it can fire and the delegate's wording; rendered by rules_doc.c. */",
             '#include "check_int.h"', ""]
    rows = []
    for k, rid in enumerate(sorted(entries, key=lambda r: ({"reject": 0, "state": 1, "risk": 2}[entries[r]["kind"]], r))):
        e = entries[rid]
        ops = [] if e["any"] else sorted(e["ops"])
        if ops:
            lines.append("static const int32_t ops_%d[] = { %s };" % (k, ", ".join(ops)))
        lines.append("static const char *const words_%d[] = { %s };" % (k, ", ".join(cstr(w) for w in sorted(e["wordings"]))))
        kind = {"reject": "GC_RULE_REJECT", "state": "GC_RULE_STATE", "risk": "GC_RULE_RISK"}[e["kind"]]
        stage = " | ".join(n for bit, n in ((ML, "GC_RULE_ML"), (CL, "GC_RULE_CL"), (CLP, "GC_RULE_CL_INIT"),
                                             (MLI, "GC_RULE_ML_INIT")) if e["stage"] & bit) or "0"
        fix = cstr(sorted(e["fix"])[0]) if e["fix"] else "NULL"
        rows.append("    { %s, %s, %s, %d, %s, %d, words_%d, %s, %s }," % (
            cstr(rid), kind, stage, len(ops), "ops_%d" % k if ops else "NULL", len(e["wordings"]), k,
            cstr(", ".join(sorted(e["where"]))), fix))
    lines += ["", "const gc_rule_info gc_rule_catalog[] = {"] + rows + ["};",
              "const int gc_rule_catalog_n = (int)(sizeof gc_rule_catalog / sizeof gc_rule_catalog[0]);", ""]
    text = "\n".join(lines)
    if "--check" in sys.argv[1:]:
        old = open(OUT).read() if os.path.exists(OUT) else ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       "src/check/rules_catalog.c", "generated"))
            print("src/check/rules_catalog.c is stale: run tools/rules_catalog.py")
            return 1
        print("src/check/rules_catalog.c matches the sources (%d rule ids)" % len(entries))
        return 0
    open(OUT, "w").write(text)
    print("wrote src/check/rules_catalog.c (%d rule ids)" % len(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
