/* main.c — runs every registered test; prints "N passed, N failed". */
#include "test.h"
#include <sys/stat.h>

typedef struct { const char *name; gc_test_fn fn; } entry;
static entry tests[1024];
static int n_tests;
int gc_test_failures, gc_test_skipped;
char gc_test_skip_why[256];

void gc_test_register(const char *name, gc_test_fn fn) {
    if (n_tests < 1024) { tests[n_tests].name = name; tests[n_tests].fn = fn; n_tests++; }
}

const char *gc_test_corpus_dir(void) {
    static char buf[1024]; static int done;
    if (done) return buf[0] ? buf : NULL;
    done = 1;
    const char *env = getenv("GPUCLEAN_CORPUS");
    const char *cands[] = { env, "../shared/corpus", "../../shared/corpus", NULL };
    for (int i = 0; i < 3; i++) {
        struct stat st;
        if (cands[i] && stat(cands[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(buf, sizeof buf, "%s", cands[i]);
            return buf;
        }
    }
    return NULL;
}

static int cmp(const void *a, const void *b) { return strcmp(((const entry *)a)->name, ((const entry *)b)->name); }

int main(int argc, char **argv) {
    qsort(tests, (size_t)n_tests, sizeof tests[0], cmp);
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < n_tests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1])) continue;
        gc_test_failures = 0; gc_test_skipped = 0; gc_test_skip_why[0] = 0;
        tests[i].fn();
        if (gc_test_failures) { failed++; printf("FAIL %s\n", tests[i].name); }
        else if (gc_test_skipped) { skipped++; printf("SKIP %s: %s\n", tests[i].name, gc_test_skip_why); }
        else { passed++; printf("ok   %s\n", tests[i].name); }
        fflush(stdout);
    }
    printf("%d passed, %d failed%s", passed, failed, skipped ? "" : "\n");
    if (skipped) printf(", %d skipped\n", skipped);
    return failed ? 1 : 0;
}
