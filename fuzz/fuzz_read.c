/* fuzz_read.c — libFuzzer target: read → verify → inspect (text and JSON) → GPU check
 * (both targets; text, JSON, the HTML report with its DAG layout, the Model Explorer
 * overlay) → write →
 * re-read → structural equality. Any crash, sanitizer report or a model that reads
 * but does not survive its own round trip is a bug. Inputs over 8 MiB are skipped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "report/report.h"
#include "check/check.h"
#include "report/html.h"
#include "report/model_explorer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (8u << 20)) return 0;
    char err[512];
    gc_model *m = gc_model_read_mem(data, size, err, sizeof err);
    if (!m) {
        if (!err[0]) abort();               /* every failure must say why */
        return 0;
    }
    gc_str s = {0};
    gc_inspect_text(m, "fuzz", true, &s);
    gc_inspect_json(m, "fuzz", &s);
    gc_model_warnings(m, &s);
    gc_str_free(&s);
    /* the GPU checker on whatever the reader accepted, both targets, text and JSON */
    for (int t = 0; t < 2; t++) {
        gc_check_result *r = gc_check(m, t == 0 ? GC_TARGET_MLDRIFT : GC_TARGET_CLASSIC, err, sizeof err);
        if (r) {
            gc_str c = {0};
            gc_check_text(r, m, "fuzz", true, &c);
            gc_check_text(r, m, "fuzz", false, &c);      /* grouped findings */
            gc_check_summary_text(r, "fuzz", false, &c); /* --quiet */
            gc_check_json(r, m, "fuzz", &c);
            gc_html_report rep = { .verb = "check", .model = "fuzz", .version = "fuzz" };
            gc_html_render(&rep, r, m, &c);
            gc_me_verdict_json(r, m, &c);
            gc_str_free(&c);
            gc_check_free(r);
        }
    }
    uint8_t *out; size_t n;
    for (int ext = 0; ext < 2; ext++) {
        gc_write_opts wo = { .force_external = ext };
        if (gc_model_write_mem(m, &wo, &out, &n, err, sizeof err) != GC_OK) continue;
        gc_model *r = gc_model_read_mem(out, n, err, sizeof err);
        if (!r) { fprintf(stderr, "re-read failed: %s\n", err); abort(); }
        if (!gc_model_equal(m, r, err, sizeof err)) { fprintf(stderr, "round trip differs: %s\n", err); abort(); }
        gc_model_free(r);
        free(out);
    }
    gc_model_free(m);
    return 0;
}
