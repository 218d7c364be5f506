/* numerics_models.c — for tests/cli/numerics_cli.py: checks that the facts table linked in
 * (a table tools/gpu_facts.py generated from a fixture, linked ahead of libgpuclean.a) is
 * one the engine accepts (gc_facts_validate), then writes the small models the test runs
 * `gpuclean check` on (built with the gc_rb builder of tests/c/test_check_cases.c).
 *
 *     numerics_models OUT_DIR     exit 0 and "facts table valid: N fact(s), M runtime(s)"
 */
#include "../../tools/rule-models.h"
#include "check/numerics.h"

#include <stdio.h>
#include <string.h>

#define L(...) (int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (const int32_t[]){__VA_ARGS__}
#define F32 GC_T_FLOAT32

/* x[2,5] -> CUMSUM(axis 1) -> probe -> RELU -> y */
static gc_model *cumsum(bool exclusive) {
    gc_rb b = gc_rb_new();
    int32_t x = gc_rb_t(&b, "x", F32, L(2, 5)), a = gc_rb_c(&b, "axis", GC_T_INT32, 0, NULL, (const int32_t[]){1});
    int32_t p = gc_rb_t(&b, "probe", F32, L(2, 5)), y = gc_rb_t(&b, "y", F32, L(2, 5));
    int32_t op = gc_rb_op(&b, GC_OP_CUMSUM, 1, L(x, a), L(p));
    gc_rb_opt(&b, op, GC_O_CumsumOptions_exclusive, exclusive);
    gc_rb_op(&b, GC_OP_RELU, 1, L(p), L(y));
    return gc_rb_done(&b);
}

/* x[4,3] -> RELU -> GATHER(const indices [1]) -> probe */
static gc_model *gather1(void) {
    gc_rb b = gc_rb_new();
    int32_t x = gc_rb_t(&b, "x", F32, L(4, 3)), r = gc_rb_t(&b, "r", F32, L(4, 3));
    int32_t ix = gc_rb_i32(&b, "idx", L(2)), p = gc_rb_t(&b, "probe", F32, L(1, 3));
    gc_rb_op(&b, GC_OP_RELU, 1, L(x), L(r));
    gc_rb_op(&b, GC_OP_GATHER, 1, L(r, ix), L(p));
    return gc_rb_done(&b);
}

/* x[1,1000] -> SOFTMAX -> probe */
static gc_model *softmax1000(void) {
    gc_rb b = gc_rb_new();
    int32_t x = gc_rb_t(&b, "x", F32, L(1, 1000)), p = gc_rb_t(&b, "probe", F32, L(1, 1000));
    gc_rb_optf(&b, gc_rb_op(&b, GC_OP_SOFTMAX, 1, L(x), L(p)), GC_O_SoftmaxOptions_beta, 1.0);
    return gc_rb_done(&b);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: numerics_models OUT_DIR\n"); return 2; }
    char err[512];
    if (!gc_facts_validate(&gc_gpu_facts_builtin, err, sizeof err)) {
        fprintf(stderr, "facts table invalid: %s\n", err);
        return 1;
    }
    printf("facts table valid: %d fact(s), %d runtime(s)\n", gc_gpu_facts_builtin.n_facts, gc_gpu_facts_builtin.n_runtimes);
    struct { const char *name; gc_model *m; } models[] = {
        { "cumsum_excl", cumsum(true) }, { "cumsum", cumsum(false) }, { "gather1", gather1() },
        { "softmax1000", softmax1000() },
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.tflite", argv[1], models[i].name);
        if (!models[i].m || gc_model_write_file(models[i].m, path, NULL, err, sizeof err) != GC_OK) {
            fprintf(stderr, "%s: %s\n", path, models[i].m ? err : "cannot build");
            rc = 1;
        }
        gc_model_free(models[i].m);
    }
    return rc;
}
