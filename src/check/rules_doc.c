/* rules_doc.c — renders the rule catalogue (rules_catalog.c, generated from the rule
 * sources by tools/rules_catalog.py): `gpuclean check --list-rules`, `--explain RULE`
 * and docs/rules.md. The fix of each rule comes from the same table the checker uses
 * (gc_fix_for in fixes.c), asked for every op the rule can fire on. */
#include "check_int.h"

#include <stdio.h>
#include <string.h>

#define MAX_GROUPS 48

typedef struct {
    gc_fix f;
    int n;                       /* ops in this group; 0 with any = the fix for any op */
    int32_t ops[GC_OP_COUNT];
} fixgrp;

typedef struct {
    bool any;                    /* the rule fires on any op: g[0] is its fix, the rest overrides */
    int n_own;                   /* ops left out: their own fix (see "Ops with a fix of their own") */
    int n;
    fixgrp g[MAX_GROUPS];
} fixset;

static gc_fix fix_for(int32_t code, const char *rule, bool const_input) {
    gc_subgraph sg;
    memset(&sg, 0, sizeof sg);
    sg.n_tensors = 1;
    uint8_t tf[1] = { (uint8_t)(const_input ? GC_TF_CONST : 0) };
    int32_t in[1] = { 0 };
    gc_rctx c;
    memset(&c, 0, sizeof c);
    c.sg = &sg; c.code = code; c.n_in = 1; c.in = in; c.tf = tf;
    return gc_fix_for(&c, rule);
}

static const char *s0(const char *s) { return s ? s : ""; }

/* the rule as the checker names it on this op ("<op>.version" -> "conv_2d.version") */
static void rule_on(const gc_rule_info *r, int32_t op, char *buf, size_t n) {
    if (strcmp(r->id, "<op>.version")) { snprintf(buf, n, "%s", r->id); return; }
    const char *name = op >= 0 ? gc_builtin_name(op) : "op";
    size_t i = 0;
    for (; name[i] && i + 9 < n; i++) buf[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    snprintf(buf + i, n - i, ".version");
}

static void add_fix(fixset *s, gc_fix f, int32_t op) {
    if (!f.id || !f.id[0]) return;
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->g[i].f.id, f.id) && !(s->any && i == 0)) {
            if (op >= 0) s->g[i].ops[s->g[i].n++] = op;
            return;
        }
    if (s->n == MAX_GROUPS) return;
    fixgrp *g = &s->g[s->n++];
    g->f = f; g->n = 0;
    if (op >= 0) g->ops[g->n++] = op;
}

/* the op's own fix, whatever the rule (rows of fixes.c with no rule) */
static gc_fix op_fix(int32_t op, bool const_input) { return fix_for(op, "", const_input); }

static void rule_fixes(const gc_rule_info *r, fixset *s) {
    memset(s, 0, sizeof *s);
    char id[96];
    if (r->kind != GC_RULE_REJECT) return;
    if (r->n_ops == 0) {
        s->any = true;
        rule_on(r, -1, id, sizeof id);
        gc_fix generic = fix_for(-1, id, false);
        s->g[0].f = generic.id && generic.id[0] ? generic : (gc_fix){ "", "", "" };
        s->n = 1;
        /* ops where this rule gets another fix than the generic one and than the op's own */
        for (int32_t op = 0; op < GC_OP_COUNT; op++)
            for (int k = 0; k < (op == GC_OP_BROADCAST_TO ? 2 : 1); k++) {
                gc_fix f = fix_for(op, id, k == 1), own = op_fix(op, k == 1);
                if (!strcmp(s0(f.id), s0(s->g[0].f.id)) || !strcmp(s0(f.id), s0(own.id))) continue;
                add_fix(s, f, op);
            }
        return;
    }
    /* A rule of a shared function (more than a few ops, from the call graph) lists only
     * the ops where the rule decides the fix; an op whose own fix wins is in the op table. */
    for (int i = 0; i < r->n_ops; i++) {
        int32_t op = r->ops[i];
        rule_on(r, op, id, sizeof id);
        for (int k = 0; k < (op == GC_OP_BROADCAST_TO ? 2 : 1); k++) {
            gc_fix f = fix_for(op, id, k == 1), own = op_fix(op, k == 1);
            if (r->n_ops > 4 && own.id && own.id[0] && !strcmp(s0(f.id), own.id)) { s->n_own += k == 0; continue; }
            add_fix(s, f, op);
        }
    }
}

static void stages_text(gc_str *o, unsigned st, const char *sep) {
    static const struct { unsigned bit; const char *name; } names[] = {
        { GC_RULE_ML, "mldrift" }, { GC_RULE_CL, "classic" },
        { GC_RULE_ML_INIT, "mldrift init" }, { GC_RULE_CL_INIT, "classic init" } };
    int k = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (st & names[i].bit) gc_str_printf(o, "%s%s", k++ ? sep : "", names[i].name);
    if (!k) gc_str_puts(o, "-");
}

static void ops_text(gc_str *o, const int32_t *ops, int n, const char *sep) {
    for (int i = 0; i < n; i++) gc_str_printf(o, "%s%s", i ? sep : "", gc_builtin_name(ops[i]));
}

/* "fix.a" (every op of the rule), "fix.a (SPLIT,SPLIT_V); fix.b (12 ops)", or for a rule of
 * any op "fix.a; ARG_MAX: fix.b" */
static void fixes_text(gc_str *o, const fixset *s, int n_ops) {
    if (!s->n) { gc_str_puts(o, "-"); return; }
    for (int i = 0; i < s->n; i++) {
        const fixgrp *g = &s->g[i];
        if (s->any && i == 0) { gc_str_puts(o, g->f.id[0] ? g->f.id : "-"); continue; }
        if (i) gc_str_puts(o, "; ");
        if (s->any) { ops_text(o, g->ops, g->n, ","); gc_str_printf(o, ": %s", g->f.id); continue; }
        gc_str_puts(o, g->f.id);
        if (g->n == n_ops) continue;
        if (g->n > 6) gc_str_printf(o, " (%d ops)", g->n);
        else { gc_str_puts(o, " ("); ops_text(o, g->ops, g->n, ","); gc_str_putc(o, ')'); }
    }
}

const gc_rule_info *gc_rule_find(const char *rule) {
    if (!rule) return NULL;
    for (int i = 0; i < gc_rule_catalog_n; i++)     /* risk ids may carry a target: "classic.mixed_rank_broadcast" */
        if (!strcmp(gc_rule_catalog[i].id, rule)) return &gc_rule_catalog[i];
    if (!strncmp(rule, "mldrift.", 8)) rule += 8;
    else if (!strncmp(rule, "classic.", 8)) rule += 8;
    for (int i = 0; i < gc_rule_catalog_n; i++)
        if (!strcmp(gc_rule_catalog[i].id, rule)) return &gc_rule_catalog[i];
    size_t n = strlen(rule);
    if (n > 8 && !strcmp(rule + n - 8, ".version"))
        for (int i = 0; i < gc_rule_catalog_n; i++)
            if (!strcmp(gc_rule_catalog[i].id, "<op>.version")) return &gc_rule_catalog[i];
    return NULL;
}

static const char *kind_name(gc_rule_kind k) {
    return k == GC_RULE_REJECT ? "refusal" : k == GC_RULE_STATE ? "state" : "risk";
}

void gc_rules_list_text(gc_rules_pass_fn passes, gc_str *o) {
    (void)passes;
    gc_str_puts(o, "# id\tkind\tfires in\tops\tfix\twording\n");
    fixset s;
    for (int i = 0; i < gc_rule_catalog_n; i++) {
        const gc_rule_info *r = &gc_rule_catalog[i];
        gc_str_printf(o, "%s\t%s\t", r->id, kind_name(r->kind));
        if (r->kind == GC_RULE_RISK) gc_str_puts(o, "lint (both targets)");
        else stages_text(o, r->stages, ",");
        gc_str_putc(o, '\t');
        if (r->n_ops) ops_text(o, r->ops, r->n_ops, ","); else gc_str_puts(o, "*");
        gc_str_putc(o, '\t');
        rule_fixes(r, &s);
        fixes_text(o, &s, r->n_ops);
        gc_str_putc(o, '\t');
        for (int k = 0; k < r->n_wordings; k++) gc_str_printf(o, "%s%s", k ? " | " : "", r->wordings[k]);
        gc_str_putc(o, '\n');
    }
}

void gc_rule_explain(const gc_rule_info *r, gc_rules_pass_fn passes, gc_str *o) {
    const char *sep = "";
    gc_str_puts(o, "rule: ");
    if (r->stages & (GC_RULE_ML | GC_RULE_ML_INIT)) { gc_str_printf(o, "mldrift.%s", r->id); sep = ", "; }
    if (r->stages & (GC_RULE_CL | GC_RULE_CL_INIT)) gc_str_printf(o, "%sclassic.%s", sep, r->id);
    if (r->kind == GC_RULE_RISK) gc_str_printf(o, "%s (risk note, both targets)", r->id);
    gc_str_printf(o, "\nkind: %s\n", kind_name(r->kind));
    if (r->kind != GC_RULE_RISK) {
        gc_str_puts(o, "fires in: ");
        stages_text(o, r->stages, ", ");
        gc_str_putc(o, '\n');
    }
    gc_str_puts(o, r->n_ops > 4 ? "ops (every op whose rules reach the deciding function; a superset): " : "ops: ");
    if (r->n_ops) ops_text(o, r->ops, r->n_ops, ", "); else gc_str_puts(o, "any");
    gc_str_putc(o, '\n');
    for (int k = 0; k < r->n_wordings; k++) gc_str_printf(o, "wording: %s\n", r->wordings[k]);
    if (r->kind == GC_RULE_RISK && r->fix) gc_str_printf(o, "suggestion: %s\n", r->fix);
    fixset s;
    rule_fixes(r, &s);
    for (int i = 0; i < s.n; i++) {
        const fixgrp *g = &s.g[i];
        if (!g->f.id[0]) { gc_str_puts(o, "fix: none listed\n"); continue; }
        gc_str_printf(o, "fix: %s", g->f.id);
        if (s.any && i == 0) gc_str_puts(o, " (any op)");
        else if (g->n && (s.any || g->n < r->n_ops)) { gc_str_puts(o, " (on "); ops_text(o, g->ops, g->n, ", "); gc_str_putc(o, ')'); }
        if (passes) {
            gc_str p = {0};
            passes(g->f.id, &p);
            gc_str_printf(o, ", gpuclean fix pass: %s", p.s && p.n ? p.s : "none");
            gc_str_free(&p);
        }
        gc_str_printf(o, "\n  PyTorch: %s\n  .tflite: %s\n", g->f.torch, g->f.tflite);
    }
    if (s.any || s.n_own) gc_str_puts(o, "(an op with a fix of its own, e.g. SELECT, SPLIT, MIRROR_PAD, gets that one: docs/rules.md)\n");
    gc_str_printf(o, "source: %s\n", r->where);
}

/* markdown table cell: '|' escaped, newlines as spaces */
static void md(gc_str *o, const char *s) {
    for (; s && *s; s++) {
        if (*s == '|') gc_str_puts(o, "\\|");
        else if (*s == '\n') gc_str_putc(o, ' ');
        else gc_str_putc(o, *s);
    }
}

static void md_code(gc_str *o, const char *s) {
    if (!s || !*s) { gc_str_puts(o, "-"); return; }
    gc_str_putc(o, '`'); md(o, s); gc_str_putc(o, '`');
}

typedef struct { const char *id, *torch, *tflite; bool varies; } fixrow;

static void note_fix(fixrow *rows, int *n, int max, gc_fix f) {
    if (!f.id || !f.id[0]) return;
    for (int i = 0; i < *n; i++)
        if (!strcmp(rows[i].id, f.id)) {
            if (strcmp(s0(rows[i].torch), s0(f.torch)) || strcmp(s0(rows[i].tflite), s0(f.tflite))) rows[i].varies = true;
            return;
        }
    if (*n < max) rows[(*n)++] = (fixrow){ f.id, f.torch, f.tflite, false };
}

void gc_rules_markdown(gc_rules_pass_fn passes, gc_str *o) {
    int n_rej = 0, n_state = 0, n_risk = 0;
    for (int i = 0; i < gc_rule_catalog_n; i++) {
        gc_rule_kind k = gc_rule_catalog[i].kind;
        n_rej += k == GC_RULE_REJECT; n_state += k == GC_RULE_STATE; n_risk += k == GC_RULE_RISK;
    }
    gc_str_puts(o,
        "# gpuclean check: rule ids\n\n"
        "<!-- generated by `gpuclean check --list-rules --markdown` (src/check/rules_doc.c) from the rule\n"
        "catalogue src/check/rules_catalog.c, itself generated from the checker's sources by\n"
        "tools/rules_catalog.py; tests/cli/cases/rules_doc.case fails when this file is stale. -->\n\n"
        "Every finding of `gpuclean check` carries a stable rule id: `<target>.<id>` for a node the\n"
        "delegate refuses (`mldrift.` for the LiteRT GPU accelerator, `classic.` for the TFLite GPU\n"
        "delegate v2), the bare id for an fp16 / GPU risk note. `gpuclean check --explain RULE` prints\n"
        "one rule with every op it fires on, its fix texts and the source that decides it;\n"
        "`gpuclean check --list-rules` prints this table as tab-separated text.\n\n"
        "*Fires in*: `mldrift` / `classic` — the delegate's IsSupported refuses the node (it stays on\n"
        "the CPU); `classic init` — a parse-time check of the classic delegate on the delegated\n"
        "partition: the whole delegate fails to initialise; `mldrift init` — ML Drift cannot build the\n"
        "kernel on the device and drops the whole delegation. *Ops*: the builtin ops the rule can fire\n"
        "on (any: every op), read from the call graph of src/check: every op whose rules reach the\n"
        "function that decides it, so a superset where that function is shared (`gc_compat` serves\n"
        "99 ops; `add.inputs` fires on ADD only). The wording is the delegate's own; `<n>`,\n"
        "`<s>`, `<x>` stand for a number, a name, a float. *Fix*: the fix id `gpuclean check` prints\n"
        "with the finding (`fix (.tflite): ... [fix.id]`), with the ops it is for when not all; an op\n"
        "with a fix of its own (table below) gets that one instead, whatever the rule.\n\n");
    gc_str_printf(o, "## Refusals (%d)\n\n| id | fires in | ops | delegate wording | fix |\n|---|---|---|---|---|\n", n_rej);
    fixrow rows[256];
    int n_rows = 0;
    fixset s;
    for (int i = 0; i < gc_rule_catalog_n; i++) {
        const gc_rule_info *r = &gc_rule_catalog[i];
        if (r->kind != GC_RULE_REJECT) continue;
        gc_str_puts(o, "| ");
        md_code(o, r->id);
        gc_str_puts(o, " | ");
        stages_text(o, r->stages, ", ");
        gc_str_puts(o, " | ");
        if (!r->n_ops) gc_str_puts(o, "any");
        else if (r->n_ops <= 4) ops_text(o, r->ops, r->n_ops, ", ");
        else gc_str_printf(o, "%d ops", r->n_ops);
        gc_str_puts(o, " | ");
        for (int k = 0; k < r->n_wordings; k++) { if (k) gc_str_puts(o, "<br>"); md_code(o, r->wordings[k]); }
        gc_str_puts(o, " | ");
        rule_fixes(r, &s);
        gc_str tmp = {0};
        fixes_text(&tmp, &s, r->n_ops);
        md(o, tmp.s);
        gc_str_free(&tmp);
        for (int k = 0; k < s.n; k++) note_fix(rows, &n_rows, 256, s.g[k].f);
        gc_str_puts(o, " |\n");
    }
    gc_str_printf(o, "\n## Node states with a rule id (%d)\n\n| id | ops | what the delegate prints |\n|---|---|---|\n", n_state);
    for (int i = 0; i < gc_rule_catalog_n; i++) {
        const gc_rule_info *r = &gc_rule_catalog[i];
        if (r->kind != GC_RULE_STATE) continue;
        gc_str_puts(o, "| ");
        md_code(o, r->id);
        gc_str_puts(o, " | ");
        if (r->n_ops) ops_text(o, r->ops, r->n_ops, ", "); else gc_str_puts(o, "any");
        gc_str_puts(o, " | ");
        md(o, r->wordings[0]);
        gc_str_puts(o, " |\n");
    }
    gc_str_printf(o, "\n## fp16 and GPU risk notes (%d)\n\nPrinted as `warning:` or `note:` lines after the "
                     "refusals; they never change the residency.\n\n| id | message | suggestion |\n|---|---|---|\n", n_risk);
    for (int i = 0; i < gc_rule_catalog_n; i++) {
        const gc_rule_info *r = &gc_rule_catalog[i];
        if (r->kind != GC_RULE_RISK) continue;
        gc_str_puts(o, "| ");
        md_code(o, r->id);
        gc_str_puts(o, " | ");
        for (int k = 0; k < r->n_wordings; k++) { if (k) gc_str_puts(o, "<br>"); md_code(o, r->wordings[k]); }
        gc_str_puts(o, " | ");
        md(o, r->fix ? r->fix : "-");
        gc_str_puts(o, " |\n");
    }
    gc_str_puts(o, "\n## Ops with a fix of their own\n\nWhatever the rule, a refused node of these ops gets this fix.\n\n"
                   "| op | fix |\n|---|---|\n");
    for (int32_t op = 0; op < GC_OP_COUNT; op++)
        for (int k = 0; k < (op == GC_OP_BROADCAST_TO ? 2 : 1); k++) {
            gc_fix f = op_fix(op, k == 1);
            if (!f.id || !f.id[0]) continue;
            gc_str_printf(o, "| %s%s | `%s` |\n", gc_builtin_name(op),
                          op == GC_OP_BROADCAST_TO ? (k ? " (constant input)" : " (runtime input)") : "", f.id);
            note_fix(rows, &n_rows, 256, f);
        }
    /* fix ids, sorted */
    for (int i = 1; i < n_rows; i++)
        for (int j = i; j > 0 && strcmp(rows[j - 1].id, rows[j].id) > 0; j--) {
            fixrow t = rows[j]; rows[j] = rows[j - 1]; rows[j - 1] = t;
        }
    gc_str_printf(o, "\n## Fix ids (%d)\n\n| fix id | PyTorch-level change | .tflite-level change | gpuclean fix pass |\n"
                     "|---|---|---|---|\n", n_rows);
    for (int i = 0; i < n_rows; i++) {
        gc_str_printf(o, "| `%s` | ", rows[i].id);
        if (rows[i].varies) gc_str_puts(o, "depends on the rule (`gpuclean check --explain RULE`) | ");
        else { md(o, rows[i].torch); gc_str_puts(o, " | "); }
        if (rows[i].varies) gc_str_puts(o, "depends on the rule | ");
        else { md(o, rows[i].tflite); gc_str_puts(o, " | "); }
        gc_str p = {0};
        if (passes) passes(rows[i].id, &p);
        if (p.s && p.n) md(o, p.s); else gc_str_puts(o, "none");
        gc_str_free(&p);
        gc_str_puts(o, " |\n");
    }
}
