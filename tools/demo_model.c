/* demo_model.c — writes gpuclean's built-in default model: a small float network with
 * the GPU-hostile patterns users hit after converting PyTorch models, built with the
 * editing API (no converter needed):
 *
 *   x [1,8,8,4]
 *   CONV_2D 3x3 SAME, 8 filters          → c   [1,8,8,8]
 *   RESHAPE                              → r5  [1,8,8,2,4]   rank 5 (PixelShuffle, heads)
 *   TRANSPOSE perm [0,1,2,4,3]           → t5  [1,8,8,4,2]   rank 5
 *   RESHAPE                              → r4  [1,8,8,8]
 *   SPLIT axis 3 in 2                    → s0, s1 [1,8,8,4]   (.chunk)
 *   GREATER s0 > 0                       → m   [1,8,8,4] bool
 *   SELECT_V2 m ? s0 : s1                → sel [1,8,8,4]     (torch.where / PReLU)
 *   GATHER_ND indices (0,2i,2j)          → g   [1,4,4,4]     (x[:, ::2, ::2] slicing)
 *   BROADCAST_TO const [1,1,1,4]→[1,4,4,4] → bb               (.expand that did not fold)
 *   ADD g + bb                           → y   [1,4,4,4]
 *
 * Usage: demo_model OUT.tflite */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "model/model.h"

static int32_t cbuf(gc_model *m, const void *p, uint64_t n) { return gc_model_add_buffer(m, p, n); }

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: demo_model OUT.tflite\n"); return 2; }
    gc_model *m = gc_model_new();
    m->description = "gpuclean demo: GPU-hostile patterns";
    int32_t sg = gc_model_add_subgraph(m, "main");
    static float w[8 * 3 * 3 * 4], b[8], bias4[4];
    for (int i = 0; i < 8 * 3 * 3 * 4; i++) w[i] = 0.25f * sinf(0.7f * (float)i + 0.3f);
    for (int i = 0; i < 8; i++) b[i] = 0.05f * (float)(i - 4);
    for (int i = 0; i < 4; i++) bias4[i] = 0.1f * (float)(i + 1);
    int32_t sx[] = {1, 8, 8, 4}, sw[] = {8, 3, 3, 4}, sb[] = {8}, sc[] = {1, 8, 8, 8};
    int32_t s5[] = {1, 8, 8, 2, 4}, st5[] = {1, 8, 8, 4, 2}, sh5[] = {5}, sh4[] = {4};
    int32_t perm[] = {0, 1, 2, 4, 3}, shape4[] = {1, 8, 8, 8}, s4[] = {1, 8, 8, 4};
    int32_t sg4[] = {1, 4, 4, 4}, sidx[] = {1, 4, 4, 3}, sb4[] = {1, 1, 1, 4}, one[] = {1};
    static int32_t idx[4 * 4 * 3];
    for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) {
        idx[(i * 4 + j) * 3 + 0] = 0; idx[(i * 4 + j) * 3 + 1] = 2 * i; idx[(i * 4 + j) * 3 + 2] = 2 * j;
    }
    int32_t axis = 3; float zero = 0.0f; int32_t target[] = {1, 4, 4, 4};
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 4, sx, 0);
    int32_t tw = gc_sg_add_tensor(m, sg, "conv.weight", GC_T_FLOAT32, 4, sw, (uint32_t)cbuf(m, w, sizeof w));
    int32_t tb = gc_sg_add_tensor(m, sg, "conv.bias", GC_T_FLOAT32, 1, sb, (uint32_t)cbuf(m, b, sizeof b));
    int32_t c = gc_sg_add_tensor(m, sg, "conv", GC_T_FLOAT32, 4, sc, 0);
    int32_t shp5 = gc_sg_add_tensor(m, sg, "shape5", GC_T_INT32, 1, sh5, (uint32_t)cbuf(m, s5, sizeof s5));
    int32_t r5 = gc_sg_add_tensor(m, sg, "heads", GC_T_FLOAT32, 5, s5, 0);
    int32_t tperm = gc_sg_add_tensor(m, sg, "perm", GC_T_INT32, 1, sh5, (uint32_t)cbuf(m, perm, sizeof perm));
    int32_t t5 = gc_sg_add_tensor(m, sg, "heads_t", GC_T_FLOAT32, 5, st5, 0);
    int32_t shp4 = gc_sg_add_tensor(m, sg, "shape4", GC_T_INT32, 1, sh4, (uint32_t)cbuf(m, shape4, sizeof shape4));
    int32_t r4 = gc_sg_add_tensor(m, sg, "merged", GC_T_FLOAT32, 4, shape4, 0);
    int32_t tax = gc_sg_add_tensor(m, sg, "split_axis", GC_T_INT32, 0, NULL, (uint32_t)cbuf(m, &axis, 4));
    int32_t s0 = gc_sg_add_tensor(m, sg, "chunk0", GC_T_FLOAT32, 4, s4, 0);
    int32_t s1 = gc_sg_add_tensor(m, sg, "chunk1", GC_T_FLOAT32, 4, s4, 0);
    int32_t tz = gc_sg_add_tensor(m, sg, "zero", GC_T_FLOAT32, 1, one, (uint32_t)cbuf(m, &zero, 4));
    int32_t mk = gc_sg_add_tensor(m, sg, "mask", GC_T_BOOL, 4, s4, 0);
    int32_t sel = gc_sg_add_tensor(m, sg, "where", GC_T_FLOAT32, 4, s4, 0);
    int32_t ti = gc_sg_add_tensor(m, sg, "stride2_indices", GC_T_INT32, 4, sidx, (uint32_t)cbuf(m, idx, sizeof idx));
    int32_t g = gc_sg_add_tensor(m, sg, "stride2", GC_T_FLOAT32, 4, sg4, 0);
    int32_t tb4 = gc_sg_add_tensor(m, sg, "bias4", GC_T_FLOAT32, 4, sb4, (uint32_t)cbuf(m, bias4, sizeof bias4));
    int32_t tt = gc_sg_add_tensor(m, sg, "bias_shape", GC_T_INT32, 1, sh4, (uint32_t)cbuf(m, target, sizeof target));
    int32_t bb = gc_sg_add_tensor(m, sg, "bias_expanded", GC_T_FLOAT32, 4, sg4, 0);
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 4, sg4, 0);

#define OP(code, ver, ins, outs) gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, code, NULL, ver), \
        (int)(sizeof ins / sizeof ins[0]), ins, (int)(sizeof outs / sizeof outs[0]), outs)
    int32_t i1[] = {x, tw, tb}, o1[] = {c};
    int32_t k = OP(GC_OP_CONV_2D, 1, i1, o1);
    gc_options *o = &m->subgraphs[sg].ops[k].opt;
    gc_opt_set_int(m, o, GC_O_Conv2DOptions_padding, 0);   /* SAME */
    gc_opt_set_int(m, o, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(m, o, GC_O_Conv2DOptions_stride_h, 1);
    int32_t i2[] = {c, shp5}, o2[] = {r5};
    k = OP(GC_OP_RESHAPE, 1, i2, o2);
    gc_opt_set_vec(m, &m->subgraphs[sg].ops[k].opt, GC_O_ReshapeOptions_new_shape, s5, 5);
    int32_t i3[] = {r5, tperm}, o3[] = {t5};
    OP(GC_OP_TRANSPOSE, 4, i3, o3);
    int32_t i4[] = {t5, shp4}, o4[] = {r4};
    k = OP(GC_OP_RESHAPE, 1, i4, o4);
    gc_opt_set_vec(m, &m->subgraphs[sg].ops[k].opt, GC_O_ReshapeOptions_new_shape, shape4, 4);
    int32_t i5[] = {tax, r4}, o5[] = {s0, s1};
    k = OP(GC_OP_SPLIT, 1, i5, o5);
    gc_opt_set_int(m, &m->subgraphs[sg].ops[k].opt, GC_O_SplitOptions_num_splits, 2);
    int32_t i6[] = {s0, tz}, o6[] = {mk};
    OP(GC_OP_GREATER, 1, i6, o6);
    int32_t i7[] = {mk, s0, s1}, o7[] = {sel};
    OP(GC_OP_SELECT_V2, 1, i7, o7);
    int32_t i8[] = {sel, ti}, o8[] = {g};
    OP(GC_OP_GATHER_ND, 1, i8, o8);
    int32_t i9[] = {tb4, tt}, o9[] = {bb};
    OP(GC_OP_BROADCAST_TO, 2, i9, o9);
    int32_t i10[] = {g, bb}, o10[] = {y};
    OP(GC_OP_ADD, 1, i10, o10);
#undef OP
    gc_sg_set_io(m, sg, 1, &x, 1, &y);
    char err[512];
    if (gc_model_validate(m, err, sizeof err) != GC_OK) { fprintf(stderr, "demo model invalid: %s\n", err); return 1; }
    if (gc_model_write_file(m, argv[1], NULL, err, sizeof err) != GC_OK) { fprintf(stderr, "%s\n", err); return 1; }
    gc_model_free(m);
    return 0;
}
