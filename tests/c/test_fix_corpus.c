/* test_fix_corpus.c — gpuclean fix never breaks a real model: for every model of
 * ../shared/corpus (skipped when absent) and both targets, the fixed model validates,
 * serializes and reads back, the checker refuses no more nodes than before, a second
 * fix changes nothing, and — for models the reference interpreter runs — the fp32
 * outputs of original and fixed agree within the stated exactness (sin pattern and
 * random inputs). The models that become GPU-clean are pinned. */
#include "test.h"
#include "fix/fix.h"

#include <dirent.h>

static int32_t refused_of(const gc_model *m, gc_target t) {
    char err[256];
    gc_check_result *r = gc_check(m, t, err, sizeof err);
    int32_t n = 0;
    for (int32_t i = 0; r && i < r->n_nodes; i++) n += r->nodes[i].state == GC_NODE_REJECTED;
    gc_check_free(r);
    return n;
}

typedef struct { const char *file; gc_target target; bool clean_after; } expect_row;

/* models whose fixed form is GPU-clean (mldrift unless noted); before fixing only the
 * ones already clean are */
static const expect_row expect[] = {
    { "torchaudio_conformer.tflite", GC_TARGET_MLDRIFT, true },       /* rank5_fold */
    { "torchaudio_conformer.tflite", GC_TARGET_CLASSIC, true },
    { "dp_net.tflite", GC_TARGET_MLDRIFT, true },                     /* strided_slice_canon, const_fold */
    { "mobilenet_v1_0.25_224_1_default_1.tflite", GC_TARGET_MLDRIFT, true },   /* squeeze_to_reshape */
    { "mobilenet_v1_0.25_224_1_default_1.tflite", GC_TARGET_CLASSIC, true },
    { "movie_review.tflite", GC_TARGET_MLDRIFT, true },               /* gather_flatten */
};

GC_TEST(fix_corpus_never_breaks) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("../shared/corpus absent");
    DIR *d = opendir(dir);
    if (!d) SKIP("cannot open %s", dir);
    struct dirent *e;
    int models = 0, verified = 0, cleaned = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".tflite")) continue;
        char path[1200], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        for (int t = 0; t < 2; t++) {
            gc_target target = t ? GC_TARGET_CLASSIC : GC_TARGET_MLDRIFT;
            gc_model *orig = gc_model_read_file(path, err, sizeof err);
            gc_model *m = gc_model_read_file(path, err, sizeof err);
            CHECK_MSG(orig && m, "%s: %s", e->d_name, err);
            if (!orig || !m) { gc_model_free(orig); gc_model_free(m); continue; }
            models += t == 0;
            gc_fix_opts o = gc_fix_opts_default();
            o.target = target;
            int32_t before = refused_of(m, target);
            gc_fix_result *r = gc_fix_apply(m, &o, err, sizeof err);
            CHECK_MSG(r != NULL, "%s: %s", e->d_name, err);
            if (!r) { gc_model_free(orig); gc_model_free(m); continue; }
            CHECK_MSG(gc_model_validate(m, err, sizeof err) == GC_OK, "%s (%s): invalid after fix: %s", e->d_name,
                      gc_target_name(target), err);
            int32_t after = refused_of(m, target);
            CHECK_MSG(after <= before, "%s (%s): %d refused before, %d after", e->d_name, gc_target_name(target),
                      before, after);
            CHECK(after == r->after.refused);
            /* never more CPU nodes or partitions than the original (issue 12) */
            CHECK_MSG(r->after.total_nodes - r->after.gpu_nodes <= r->before.total_nodes - r->before.gpu_nodes,
                      "%s (%s): %d/%d -> %d/%d nodes", e->d_name, gc_target_name(target), r->before.gpu_nodes,
                      r->before.total_nodes, r->after.gpu_nodes, r->after.total_nodes);
            CHECK_MSG(r->after.partitions <= r->before.partitions || r->before.gpu_nodes == 0, "%s (%s): %d -> %d "
                      "partitions", e->d_name, gc_target_name(target), r->before.partitions, r->after.partitions);
            uint8_t *bytes = NULL; size_t nb = 0;
            CHECK_MSG(gc_model_write_mem(m, NULL, &bytes, &nb, err, sizeof err) == GC_OK, "%s: %s", e->d_name, err);
            gc_model *back = bytes ? gc_model_read_mem(bytes, nb, err, sizeof err) : NULL;
            CHECK_MSG(back != NULL, "%s: the fixed model does not read back: %s", e->d_name, err);
            if (back && t == 0 && r->n_changes) {
                gc_fix_verify_result v;
                gc_fix_verify(orig, back, r->exactness, r->rtol, r->atol, 1, &v);
                if (v.ran) {
                    CHECK_MSG(v.pass, "%s: %s", e->d_name, v.why[0] ? v.why : "outputs beyond the stated exactness");
                    verified++;
                }
                gc_fix_verify_free(&v);
            }
            for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++)
                if (!strcmp(expect[k].file, e->d_name) && expect[k].target == target) {
                    CHECK_MSG(r->after.gpu_clean == expect[k].clean_after && !r->before.gpu_clean, "%s (%s)",
                              e->d_name, gc_target_name(target));
                    cleaned += r->after.gpu_clean;
                }
            /* idempotence: nothing left to rewrite */
            if (back) {
                gc_fix_result *r2 = gc_fix_apply(back, &o, err, sizeof err);
                CHECK_MSG(r2 && r2->n_changes == 0, "%s (%s): a second fix changed %d site(s)", e->d_name,
                          gc_target_name(target), r2 ? r2->n_changes : -1);
                gc_fix_result_free(r2);
            }
            gc_model_free(back);
            free(bytes);
            gc_fix_result_free(r);
            gc_model_free(m);
            gc_model_free(orig);
        }
    }
    closedir(d);
    CHECK(models > 0);
    CHECK(verified >= 4);     /* conformer, dp_net, mobilenet, movie_review (movenet and yamnet: no
                                 rewrite keeps CPU nodes from rising) */
    CHECK_EQ_INT(cleaned, (int)(sizeof expect / sizeof expect[0]));
}
