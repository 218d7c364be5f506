/* test.h — a tiny test framework: GC_TEST(name) { ... } registers a test (constructor);
 * CHECK* record a failure with file:line and continue. tests/c/main.c runs them all
 * (optionally only those whose name contains argv[1]) and ends with the line
 * "N passed, N failed". A test may call SKIP("why") to count as skipped. */
#ifndef GC_TEST_H
#define GC_TEST_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*gc_test_fn)(void);
void gc_test_register(const char *name, gc_test_fn fn);
extern int gc_test_failures;   /* failures in the running test */
extern int gc_test_skipped;
extern char gc_test_skip_why[256];

#define GC_TEST(name)                                                          \
    static void name(void);                                                    \
    __attribute__((constructor)) static void name##_register(void) {          \
        gc_test_register(#name, name);                                         \
    }                                                                          \
    static void name(void)

#define CHECK(cond) do { if (!(cond)) { gc_test_failures++;                     \
    fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_MSG(cond, ...) do { if (!(cond)) { gc_test_failures++;            \
    fprintf(stderr, "  %s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);  \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
    if (a_ != b_) { gc_test_failures++; fprintf(stderr, "  %s:%d: %s == %s failed: %lld vs %lld\n", \
    __FILE__, __LINE__, #a, #b, a_, b_); } } while (0)
#define CHECK_NEAR(a, b, tol) do { double a_ = (double)(a), b_ = (double)(b);  \
    if (!(fabs(a_ - b_) <= (tol))) { gc_test_failures++;                          \
    fprintf(stderr, "  %s:%d: %s ~= %s failed: %.9g vs %.9g (tol %g)\n",          \
    __FILE__, __LINE__, #a, #b, a_, b_, (double)(tol)); } } while (0)
#define SKIP(...) do { gc_test_skipped = 1; snprintf(gc_test_skip_why, sizeof gc_test_skip_why, __VA_ARGS__); return; } while (0)

/* ../shared/corpus relative to the repository root (or $GPUCLEAN_CORPUS);
 * NULL when absent. */
const char *gc_test_corpus_dir(void);
#endif
