/* test_rules_catalog.c — the rule catalogue (src/check/rules_catalog.c, generated from the
 * checker's sources by tools/rules_catalog.py) behind `gpuclean check --list-rules`,
 * `--explain` and docs/rules.md knows every rule the checker reports: each rule of the
 * per-rule model catalogue and of the corpus models (both targets), refusals and risk
 * notes, is found, fires in the right target, on the right op, and its fix id is one
 * --explain names. */
#include "test.h"
#include "../../tools/rule-models.h"
#include "check/check.h"

#include <dirent.h>
#include <string.h>

static bool has_op(const gc_rule_info *ri, int32_t op) {
    if (!ri->n_ops) return true;
    for (int i = 0; i < ri->n_ops; i++) if (ri->ops[i] == op) return true;
    return false;
}

/* every finding of one result; returns how many were looked up */
static int check_result(const gc_check_result *r, const char *what) {
    int n = 0;
    unsigned want = r->target == GC_TARGET_CLASSIC ? (GC_RULE_CL | GC_RULE_CL_INIT) : (GC_RULE_ML | GC_RULE_ML_INIT);
    for (int32_t i = 0; i < r->n_nodes; i++) {
        const gc_check_node *nd = &r->nodes[i];
        if (!nd->rule) continue;
        n++;
        if (nd->evidence && gc_facts_find(r->facts, nd->rule)) continue;   /* a measured fact (gpuclean check --explain ID) */
        const gc_rule_info *ri = gc_rule_find(nd->rule);
        CHECK_MSG(ri != NULL, "%s: node %d %s: rule %s not in the catalogue", what, nd->index, nd->op, nd->rule);
        if (!ri) continue;
        CHECK_MSG(ri->stages & want, "%s: %s fires in target %s, the catalogue says not", what, nd->rule,
                  gc_target_name(r->target));
        CHECK_MSG(has_op(ri, nd->builtin), "%s: %s fired on %s, not among the catalogue's ops", what, nd->rule, nd->op);
        if (nd->fix_id && nd->fix_id[0] && ri->kind == GC_RULE_REJECT) {
            gc_str e = {0};
            gc_rule_explain(ri, NULL, &e);
            char want_fix[160];
            snprintf(want_fix, sizeof want_fix, "fix: %s", nd->fix_id);
            /* the op's own fix (SELECT, SPLIT, ...) is in the op table, not in every rule */
            bool own = strstr(e.s ? e.s : "", "an op with a fix of its own") != NULL;
            CHECK_MSG(own || (e.s && strstr(e.s, want_fix)), "%s: %s on %s has %s; --explain says:\n%s", what,
                      nd->rule, nd->op, nd->fix_id, e.s ? e.s : "");
            gc_str_free(&e);
        }
    }
    for (int32_t i = 0; i < r->n_risks; i++) {
        n++;
        const gc_rule_info *ri = gc_rule_find(r->risks[i].rule);
        CHECK_MSG(ri && ri->kind == GC_RULE_RISK, "%s: risk %s not in the catalogue", what, r->risks[i].rule);
    }
    return n;
}

GC_TEST(rules_catalogue_knows_rule_models) {
    int looked = 0;
    for (int i = 0; i < gc_rule_cases_n; i++) {
        const gc_rule_case *k = &gc_rule_cases[i];
        for (int t = 0; t < 2; t++) {
            if (k->target >= 0 && k->target != t) continue;
            gc_model *m = k->build();
            char err[256];
            gc_check_result *r = gc_check(m, (gc_target)t, err, sizeof err);
            CHECK(r != NULL);
            if (r) { looked += check_result(r, k->name); gc_check_free(r); }
            gc_model_free(m);
        }
        if (k->rule) CHECK_MSG(gc_rule_find(k->rule) != NULL, "%s: expected rule %s not in the catalogue", k->name, k->rule);
    }
    CHECK_MSG(looked > 100, "only %d findings looked up", looked);
}

GC_TEST(rules_catalogue_knows_corpus_findings) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("../shared/corpus absent");
    DIR *d = opendir(dir);
    if (!d) SKIP("cannot open %s", dir);
    struct dirent *e;
    int looked = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".tflite")) continue;
        char path[1200], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gc_model *m = gc_model_read_file(path, err, sizeof err);
        if (!m) continue;
        for (int t = 0; t < 2; t++) {
            gc_check_result *r = gc_check(m, (gc_target)t, err, sizeof err);
            if (r) { looked += check_result(r, e->d_name); gc_check_free(r); }
        }
        gc_model_free(m);
    }
    closedir(d);
    CHECK(looked > 0);
}

GC_TEST(rules_catalogue_lookup) {
    CHECK(gc_rule_catalog_n > 100);
    const gc_rule_info *a = gc_rule_find("mldrift.gather.indices_rank"), *b = gc_rule_find("gather.indices_rank");
    CHECK(a && a == b);
    const gc_rule_info *v = gc_rule_find("classic.transpose_conv.version");
    CHECK(v && !strcmp(v->id, "<op>.version"));
    CHECK(gc_rule_find("mldrift.no_such_rule") == NULL);
    CHECK(gc_rule_find(NULL) == NULL);
    /* ids are unique and sorted within their kind (the generator's order) */
    for (int i = 1; i < gc_rule_catalog_n; i++)
        if (gc_rule_catalog[i].kind == gc_rule_catalog[i - 1].kind)
            CHECK_MSG(strcmp(gc_rule_catalog[i - 1].id, gc_rule_catalog[i].id) < 0, "%s, %s",
                      gc_rule_catalog[i - 1].id, gc_rule_catalog[i].id);
    gc_str md = {0}, l = {0};
    gc_rules_markdown(NULL, &md);
    gc_rules_list_text(NULL, &l);
    CHECK(md.s && strstr(md.s, "| `strided_slice.shrink_axis_mask` | mldrift, classic | "));
    CHECK(md.s && strstr(md.s, "| fix.strided_slice.no_shrink (STRIDED_SLICE) |\n"));
    CHECK(l.s && !md.oom && !l.oom);
    gc_str_free(&md); gc_str_free(&l);
}
