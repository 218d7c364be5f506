/* test_kernels_tile.c — TILE and BROADCAST_TO (shape.c's block copies) against the
 * definition y[i] = x[i mod x.shape] per dim, worked out here index by index: ranks 1-5,
 * multiples of 1 on inner and outer dims, a zero multiple, rank-raising BROADCAST_TO,
 * element sizes 1, 4 and 8. */
#include "test_kernels_harness.h"

/* the expected output by the definition (x's shape aligned right, as y's rank) */
static void tile_want(const uint8_t *x, int xr, const int32_t *xsh, int yr, const int32_t *ysh, int es, uint8_t *y) {
    int32_t xs[6];
    for (int d = 0; d < yr; d++) { int k = d - (yr - xr); xs[d] = k >= 0 ? xsh[k] : 1; }
    uint64_t total = 1;
    for (int d = 0; d < yr; d++) total *= (uint64_t)ysh[d];
    for (uint64_t o = 0; o < total; o++) {
        uint64_t rem = o, src = 0, xstride = 1;
        for (int d = yr - 1; d >= 0; d--) {
            uint64_t i = rem % (uint64_t)ysh[d];
            rem /= (uint64_t)ysh[d];
            src += (i % (uint64_t)xs[d]) * xstride;
            xstride *= (uint64_t)xs[d];
        }
        memcpy(y + o * (uint64_t)es, x + src * (uint64_t)es, (size_t)es);
    }
}

static void run_case(int32_t code, int type, int es, int xr, const int32_t *xsh, const int32_t *arg, int yr) {
    int32_t ysh[6];
    for (int d = 0; d < yr; d++) {
        if (code == GC_OP_TILE) ysh[d] = xsh[d] * arg[d];
        else ysh[d] = arg[d];
    }
    uint64_t nx = 1, ny = 1;
    for (int d = 0; d < xr; d++) nx *= (uint64_t)xsh[d];
    for (int d = 0; d < yr; d++) ny *= (uint64_t)ysh[d];
    uint8_t *x = malloc(nx * (uint64_t)es + 1), *got = malloc(ny * (uint64_t)es + 1), *want = malloc(ny * (uint64_t)es + 1);
    for (uint64_t i = 0; i < nx * (uint64_t)es; i++) x[i] = (uint8_t)(i * 37 + 11);
    int32_t argc_ = code == GC_OP_TILE ? xr : yr;
    kt_tensor ins[2] = { KT_IN(type, xr, KT_S(0), x), KT_C(GC_T_INT32, 1, KT_S(argc_), arg) };
    for (int d = 0; d < xr; d++) ins[0].shape[d] = xsh[d];
    kt_tensor outs[1] = { KT_OUT(type, yr, KT_S(0)) };
    for (int d = 0; d < yr; d++) outs[0].shape[d] = ysh[d];
    kt_model r = kt_build(code, 0, ins, 2, outs, 1);
    tile_want(x, xr, xsh, yr, ysh, es, want);
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, (size_t)(ny * (uint64_t)es), NULL, 0, NULL, NULL));
    CHECK_MSG(memcmp(got, want, (size_t)(ny * (uint64_t)es)) == 0, "%s rank %d -> %d, element %d bytes",
              code == GC_OP_TILE ? "TILE" : "BROADCAST_TO", xr, yr, es);
    gc_model_free(r.m);
    free(x); free(got); free(want);
}

GC_TEST(kernel_tile_broadcast_to_blocks) {
    const int types[3][2] = { { GC_T_INT8, 1 }, { GC_T_FLOAT32, 4 }, { GC_T_INT64, 8 } };
    for (int t = 0; t < 3; t++) {
        const int ty = types[t][0], es = types[t][1];
        run_case(GC_OP_TILE, ty, es, 1, (int32_t[]){ 5 }, (int32_t[]){ 3 }, 1);
        run_case(GC_OP_TILE, ty, es, 2, (int32_t[]){ 2, 3 }, (int32_t[]){ 2, 1 }, 2);
        run_case(GC_OP_TILE, ty, es, 2, (int32_t[]){ 2, 3 }, (int32_t[]){ 1, 4 }, 2);
        run_case(GC_OP_TILE, ty, es, 4, (int32_t[]){ 1, 2, 1, 3 }, (int32_t[]){ 2, 1, 3, 2 }, 4);
        run_case(GC_OP_TILE, ty, es, 5, (int32_t[]){ 1, 2, 1, 7, 4 }, (int32_t[]){ 1, 1, 4, 1, 1 }, 5);  /* GQA */
        run_case(GC_OP_TILE, ty, es, 3, (int32_t[]){ 3, 1, 2 }, (int32_t[]){ 1, 5, 3 }, 3);
        run_case(GC_OP_TILE, ty, es, 2, (int32_t[]){ 2, 3 }, (int32_t[]){ 0, 2 }, 2);                /* empty */
        run_case(GC_OP_BROADCAST_TO, ty, es, 2, (int32_t[]){ 3, 1 }, (int32_t[]){ 2, 3, 4 }, 3);
        run_case(GC_OP_BROADCAST_TO, ty, es, 1, (int32_t[]){ 1 }, (int32_t[]){ 9 }, 1);
        run_case(GC_OP_BROADCAST_TO, ty, es, 3, (int32_t[]){ 2, 1, 3 }, (int32_t[]){ 2, 4, 3 }, 3);
        run_case(GC_OP_BROADCAST_TO, ty, es, 2, (int32_t[]){ 1, 3 }, (int32_t[]){ 1, 2, 1, 5, 3 }, 5);
    }
}
