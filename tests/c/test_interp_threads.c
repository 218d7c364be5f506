/* test_interp_threads.c — float CONV_2D / DEPTHWISE_CONV_2D split over threads give
 * exactly the single-thread results (each output keeps its accumulation order). */
#include "test.h"
#include "interp/interp.h"
#include <math.h>

static gc_model *conv_model(int code) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    bool dw = code == GC_OP_DEPTHWISE_CONV_2D;
    int32_t sx[] = {1, 33, 31, 16}, sw[] = {dw ? 1 : 24, 3, 3, dw ? 16 : 16}, sb[] = {dw ? 16 : 24};
    int32_t sy[] = {1, 33, 31, dw ? 16 : 24};
    static float w[24 * 3 * 3 * 16], b[24];
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) w[i] = sinf(0.1f * (float)i);
    for (int i = 0; i < 24; i++) b[i] = 0.01f * (float)i;
    size_t wn = (size_t)sw[0] * 3 * 3 * sw[3];
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 4, sx, 0);
    int32_t tw = gc_sg_add_tensor(m, sg, "w", GC_T_FLOAT32, 4, sw, (uint32_t)gc_model_add_buffer(m, w, wn * 4));
    int32_t tb = gc_sg_add_tensor(m, sg, "b", GC_T_FLOAT32, 1, sb, (uint32_t)gc_model_add_buffer(m, b, (size_t)sb[0] * 4));
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 4, sy, 0);
    int32_t in[] = {x, tw, tb}, out[] = {y};
    int32_t k = gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, code, NULL, 1), 3, in, 1, out);
    gc_options *o = &m->subgraphs[sg].ops[k].opt;
    if (dw) {
        gc_opt_set_int(m, o, GC_O_DepthwiseConv2DOptions_stride_w, 1);
        gc_opt_set_int(m, o, GC_O_DepthwiseConv2DOptions_stride_h, 1);
        gc_opt_set_int(m, o, GC_O_DepthwiseConv2DOptions_depth_multiplier, 1);
    } else {
        gc_opt_set_int(m, o, GC_O_Conv2DOptions_stride_w, 1);
        gc_opt_set_int(m, o, GC_O_Conv2DOptions_stride_h, 1);
    }
    gc_sg_set_io(m, sg, 1, &x, 1, &y);
    return m;
}

static size_t run(gc_model *m, int threads, gc_precision p, float *out, size_t cap) {
    char err[512];
    gc_interp_opts o = { .precision = p, .signature = GC_SIG_AUTO, .threads = threads };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    if (!it || gc_interp_prepare(it) != GC_OK) { gc_interp_free(it); return 0; }
    gc_tview v = gc_interp_input(it, 0);
    gc_fill_pattern_sin(&v, 0);
    if (gc_interp_invoke(it) != GC_OK) { gc_interp_free(it); return 0; }
    gc_tview y = gc_interp_output(it, 0);
    size_t n = y.nbytes < cap ? y.nbytes : cap;
    memcpy(out, y.data, n);
    gc_interp_free(it);
    return n;
}

GC_TEST(interp_threads_identical) {
    static float a[33 * 31 * 24], b[33 * 31 * 24];
    int codes[] = { GC_OP_CONV_2D, GC_OP_DEPTHWISE_CONV_2D };
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 3; p++) {
            gc_model *m = conv_model(codes[c]);
            size_t na = run(m, 1, (gc_precision)p, a, sizeof a), nb = run(m, 3, (gc_precision)p, b, sizeof b);
            CHECK(na > 0 && na == nb);
            CHECK_MSG(!memcmp(a, b, na), "op %d precision %d: threaded result differs", codes[c], p);
            gc_model_free(m);
        }
}
