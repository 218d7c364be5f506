/* rule-models.c — write every per-rule test model (tests/c/test_check_cases.c) to a
 * directory, with gpuclean's prediction for each, so they can be run on the real GPU
 * accelerator and compared.
 *
 * Build (no Makefile change needed; needs build/libgpuclean.a from `make lib`):
 *   cc -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Isrc -o build/rule-models \
 *      tools/rule-models.c tests/c/test_check_cases.c build/libgpuclean.a -lm
 * Run:
 *   build/rule-models OUT_DIR
 * writes OUT_DIR/<case>.tflite for every case, OUT_DIR/manifest.json (one object per
 * case: name, target, what, expected rule and reason, and gpuclean's mldrift prediction:
 * gpu_ops, cpu_ops, full, unsupported lines exactly as the delegate would print them) and
 * OUT_DIR/manifest.tsv (the same, one line per case). Compare with a LiteRT oracle run:
 *   python3 tools/rule-models-compare.py OUT_DIR/manifest.json oracle.jsonl
 */
#include "rule-models.h"
#include "check/check.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void json_lines(gc_str *o, const char *log) {
    /* the lines between the header and the residency line */
    gc_str_putc(o, '[');
    const char *p = strchr(log, '\n');
    int k = 0;
    while (p && p[1]) {
        const char *e = strchr(p + 1, '\n');
        if (!e) break;   /* the last line is the residency line */
        char buf[1024];
        size_t len = (size_t)(e - p - 1);
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, p + 1, len);
        buf[len] = 0;
        if (k++) gc_str_puts(o, ", ");
        gc_str_json(o, buf);
        p = e;
    }
    gc_str_putc(o, ']');
}

int main(int argc, char **argv) {
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: rule-models OUT_DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0777);
    gc_str js = {0}, tsv = {0};
    gc_str_puts(&js, "[");
    gc_str_puts(&tsv, "name\ttarget\texpected_rule\texpected_reason\tpredicted_gpu_ops\tpredicted_cpu_ops\twhat\n");
    int written = 0;
    for (int i = 0; i < gc_rule_cases_n; i++) {
        const gc_rule_case *k = &gc_rule_cases[i];
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s.tflite", dir, k->name);
        gc_model *m = k->build();
        if (gc_model_write_file(m, path, NULL, err, sizeof err) != GC_OK) {
            fprintf(stderr, "%s: %s\n", path, err);
            gc_model_free(m);
            return 1;
        }
        gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
        if (!r) { fprintf(stderr, "%s: %s\n", path, err); gc_model_free(m); return 1; }
        const char *target = k->target == GC_TARGET_CLASSIC ? "classic" : k->target == GC_TARGET_MLDRIFT ? "mldrift" : "both";
        int g = r->gpu_nodes, c = r->total_nodes - r->gpu_nodes;
        gc_str_printf(&js, "%s\n {\"name\": ", i ? "," : "");
        gc_str_json(&js, k->name);
        gc_str_printf(&js, ", \"file\": \"%s.tflite\", \"target\": \"%s\", \"valid\": %s, \"what\": ", k->name,
                      target, k->invalid ? "false" : "true");
        gc_str_json(&js, k->what);
        gc_str_puts(&js, ", \"expected_rule\": ");
        if (k->rule) gc_str_json(&js, k->rule); else gc_str_puts(&js, "null");
        gc_str_puts(&js, ", \"expected_reason\": ");
        if (k->reason) gc_str_json(&js, k->reason); else gc_str_puts(&js, "null");
        gc_str_printf(&js, ", \"predicted\": {\"gpu_ops\": %d, \"cpu_ops\": %d, \"full\": %s, \"model_error\": %s, "
                           "\"fatal\": %s, \"unsupported\": ", g, c, r->gpu_clean ? "true" : "false",
                      r->model_error ? "true" : "false", r->fatal ? "true" : "false");
        json_lines(&js, r->subgraphs[0].delegate_log ? r->subgraphs[0].delegate_log : "");
        gc_str_puts(&js, "}}");
        gc_str_printf(&tsv, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", k->name, target, k->rule ? k->rule : "-",
                      k->reason ? k->reason : "-", g, c, k->what);
        gc_check_free(r);
        gc_model_free(m);
        written++;
    }
    gc_str_puts(&js, "\n]\n");
    char p1[1024], p2[1024], err[256];
    snprintf(p1, sizeof p1, "%s/manifest.json", dir);
    snprintf(p2, sizeof p2, "%s/manifest.tsv", dir);
    const void *c1[] = { js.s }, *c2[] = { tsv.s };
    size_t l1[] = { js.n }, l2[] = { tsv.n };
    if (gc_write_atomic(p1, c1, l1, 1, err, sizeof err) != GC_OK || gc_write_atomic(p2, c2, l2, 1, err, sizeof err) != GC_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    gc_str_free(&js);
    gc_str_free(&tsv);
    printf("%d models and manifest.json / manifest.tsv written to %s\n", written, dir);
    return 0;
}
