/* test_check_report.c — issue 12 "too much output": `gpuclean check` text groups nodes
 * whose finding is identical (op, rule, reason, fix) into one line with the count and an
 * abbreviated node list; --verbose keeps one block per node; --quiet keeps the residency
 * line; the JSON stays complete, one entry per node. */
#include "test.h"
#include "../../tools/rule-models.h"
#include "check/check.h"

#include <string.h>

#define F32 GC_T_FLOAT32

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static int lines(const char *s) { return count(s, "\n"); }

/* x -> [ADD v99 (refused: version), ADD v1 (GPU)] x 30 -> ADD v99 x 3 -> y, and three
 * fp16 weights through DEQUANTIZE into ADDs: the model is only partly delegated, so the
 * DEQUANTIZE nodes stay on the CPU. Refused ADDs: nodes 0, 2, ..., 58, then 60-62. */
static gc_model *many_refused(void) {
    gc_rb b = gc_rb_new();
    const int32_t sh[2] = { 1, 8 };
    int32_t x = gc_rb_t(&b, "x", F32, 2, sh);
    int32_t c = gc_rb_c(&b, "c", F32, 2, sh, NULL);
    char name[32];
    for (int i = 0; i < 63; i++) {
        snprintf(name, sizeof name, "t%d", i);
        int32_t y = gc_rb_t(&b, name, F32, 2, sh);
        bool refused = i >= 60 || i % 2 == 0;
        gc_rb_op(&b, GC_OP_ADD, refused ? 99 : 1, 2, (int32_t[]){ x, c }, 1, (int32_t[]){ y });
        x = y;
    }
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "w%d", i);
        int32_t w16 = gc_rb_c(&b, name, GC_T_FLOAT16, 2, sh, NULL);
        snprintf(name, sizeof name, "w%d_f32", i);
        int32_t w = gc_rb_t(&b, name, F32, 2, sh);
        gc_rb_op(&b, GC_OP_DEQUANTIZE, 1, 1, (int32_t[]){ w16 }, 1, (int32_t[]){ w });
        snprintf(name, sizeof name, "u%d", i);
        int32_t y = gc_rb_t(&b, name, F32, 2, sh);
        gc_rb_op(&b, GC_OP_ADD, 1, 2, (int32_t[]){ x, w }, 1, (int32_t[]){ y });
        x = y;
    }
    return gc_rb_done(&b);
}

GC_TEST(check_text_groups_identical_findings) {
    gc_model *m = many_refused();
    char err[256];
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(r != NULL);
    if (!r) { gc_model_free(m); return; }
    int32_t refused = 0, dequant = 0;
    for (int32_t i = 0; i < r->n_nodes; i++) {
        refused += r->nodes[i].state == GC_NODE_REJECTED;
        dequant += r->nodes[i].state == GC_NODE_FP16_DEQUANT;
    }
    CHECK_EQ_INT(refused, 33);
    CHECK_EQ_INT(dequant, 3);

    gc_str t = {0}, v = {0}, q = {0}, j = {0};
    gc_check_text(r, m, "m.tflite", false, &t);
    gc_check_text(r, m, "m.tflite", true, &v);
    gc_check_summary_text(r, "m.tflite", false, &q);
    gc_check_json(r, m, "m.tflite", &j);
    CHECK(t.s && v.s && q.s && j.s);
    if (t.s && v.s && q.s && j.s) {
        /* one line for the 33 refused ADDs: count, node list abbreviated after 12 items
         * (runs as ranges), the reason and rule once */
        CHECK_MSG(strstr(t.s, "m.tflite: 33 ADD nodes (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, ... +21 more): "
                              "not on GPU: Max version supported: ") != NULL, "%s", t.s);
        CHECK_MSG(count(t.s, "Requested version 99. [") == 1, "%s", t.s);   /* (+ once in the delegate log) */
        CHECK_EQ_INT(count(t.s, "[mldrift.add.version]"), 1);
        CHECK_EQ_INT(count(t.s, "  fix: "), 1);
        /* one line for the three fp16 DEQUANTIZE nodes */
        CHECK_MSG(strstr(t.s, "m.tflite: 3 DEQUANTIZE nodes (") != NULL, "%s", t.s);
        CHECK_EQ_INT(count(t.s, "fp16 weight DEQUANTIZE stays on the CPU"), 1);
        CHECK(strstr(t.s, "GPU residency: ") != NULL);
        /* verbose: every node on its own */
        CHECK_EQ_INT(count(v.s, "[mldrift.add.version]"), 33);
        CHECK_EQ_INT(count(v.s, "fp16 weight DEQUANTIZE stays on the CPU"), 3);
        CHECK(strstr(v.s, "m.tflite: node 62 ADD 't62': not on GPU: Max version supported: ") != NULL);
        CHECK_MSG(lines(t.s) * 4 < lines(v.s), "grouped %d lines, verbose %d", lines(t.s), lines(v.s));
        /* quiet: the residency line alone */
        CHECK_EQ_INT(lines(q.s), 1);
        CHECK(!strncmp(q.s, "GPU residency: ", 15));
        /* JSON: complete, one entry per node, each with its own rule */
        CHECK_EQ_INT(count(j.s, "\"rule\": \"mldrift.add.version\""), 33);
        CHECK_EQ_INT(count(j.s, "\"state\": \"fp16_dequant_cpu\""), 3);
        CHECK_EQ_INT(count(j.s, "{\"subgraph\": 0, \"index\": "), r->n_nodes);
    }
    gc_str_free(&t); gc_str_free(&v); gc_str_free(&q); gc_str_free(&j);
    gc_check_free(r);
    gc_model_free(m);
}

/* a single finding keeps the compiler-style per-node line (tools and tests grep it) */
GC_TEST(check_text_single_finding_unchanged) {
    gc_rb b = gc_rb_new();
    const int32_t sh[2] = { 1, 8 };
    int32_t x = gc_rb_t(&b, "x", F32, 2, sh), c = gc_rb_c(&b, "c", F32, 2, sh, NULL);
    int32_t y = gc_rb_t(&b, "probe", F32, 2, sh), z = gc_rb_t(&b, "z", F32, 2, sh);
    gc_rb_op(&b, GC_OP_ADD, 99, 2, (int32_t[]){ x, c }, 1, (int32_t[]){ y });
    gc_rb_op(&b, GC_OP_MUL, 99, 2, (int32_t[]){ y, c }, 1, (int32_t[]){ z });
    gc_model *m = gc_rb_done(&b);
    char err[256];
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(r != NULL);
    if (r) {
        gc_str t = {0};
        gc_check_text(r, m, "m.tflite", false, &t);
        CHECK_MSG(t.s && strstr(t.s, "m.tflite: node 0 ADD 'probe': not on GPU: Max version supported: ") &&
                  strstr(t.s, "m.tflite: node 1 MUL 'z': not on GPU: Max version supported: "), "%s", t.s);
        CHECK(t.s && !strstr(t.s, " nodes ("));
        gc_str_free(&t);
        gc_check_free(r);
    }
    gc_model_free(m);
}
