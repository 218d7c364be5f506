/* test_flops.c — gc_model_flops (src/report/flops.c): MACs per op kind from static
 * shapes, worked out by hand here for small one-subgraph models; the float / quant /
 * hybrid classes; ops with unknown shapes left out and counted; inspect's text and JSON. */
#include "test.h"
#include "model/model.h"
#include "report/report.h"

#include <string.h>

/* a subgraph under construction: tensors by index, ops appended */
typedef struct { gc_model *m; int32_t sg; } fb;

static fb fb_new(void) {
    fb b = { gc_model_new(), 0 };
    b.sg = gc_model_add_subgraph(b.m, "main");
    return b;
}

/* a tensor; weights get a (zero) buffer so they are constants, as in real files */
static int32_t T(fb *b, int type, int rank, const int32_t *shape, bool weight) {
    char name[24];
    snprintf(name, sizeof name, "t%d", b->m->subgraphs[b->sg].n_tensors);
    uint32_t buf = 0;
    if (weight) {
        uint64_t n = 1;
        for (int i = 0; i < rank; i++) n *= (uint64_t)shape[i];
        static unsigned char zeros[1 << 16];
        uint64_t bytes = gc_type_bytes(type, n);
        buf = (uint32_t)gc_model_add_buffer(b->m, zeros, bytes < sizeof zeros ? bytes : sizeof zeros);
    }
    return gc_sg_add_tensor(b->m, b->sg, name, type, rank, shape, buf);
}

static int32_t OP(fb *b, int32_t code, int n_in, const int32_t *in, int32_t out) {
    int32_t oc = gc_model_add_opcode(b->m, code, NULL, 1);
    return gc_sg_insert_op(b->m, b->sg, b->m->subgraphs[b->sg].n_ops, oc, n_in, in, 1, &out);
}

#define S(...) (const int32_t[]){ __VA_ARGS__ }
#define F GC_T_FLOAT32

static int k_of(const char *op) {
    for (int k = 0; k < GC_FLOPS_N_OPS; k++) if (!strcmp(gc_flops_op_name(k), op)) return k;
    return -1;
}

GC_TEST(flops_per_op_formulas) {
    fb b = fb_new();
    /* CONV_2D: out [1,8,8,4], filter [4,3,3,3]: 256 outputs x 27 = 6912 */
    int32_t x = T(&b, F, 4, S(1, 8, 8, 3), false);
    OP(&b, GC_OP_CONV_2D, 3, S(x, T(&b, F, 4, S(4, 3, 3, 3), true), T(&b, F, 1, S(4), true)), T(&b, F, 4, S(1, 8, 8, 4), false));
    /* grouped CONV_2D (4 groups of 1 channel): out [1,6,6,4], filter [4,3,3,1]: 144 x 9 = 1296 */
    OP(&b, GC_OP_CONV_2D, 2, S(T(&b, F, 4, S(1, 8, 8, 4), false), T(&b, F, 4, S(4, 3, 3, 1), true)), T(&b, F, 4, S(1, 6, 6, 4), false));
    /* DEPTHWISE_CONV_2D: out [1,4,4,8], filter [1,3,3,8]: 128 x 9 = 1152 */
    OP(&b, GC_OP_DEPTHWISE_CONV_2D, 2, S(T(&b, F, 4, S(1, 6, 6, 8), false), T(&b, F, 4, S(1, 3, 3, 8), true)), T(&b, F, 4, S(1, 4, 4, 8), false));
    /* TRANSPOSE_CONV: input [1,4,4,2], filter [6,3,3,2]: 32 inputs x 3*3*6 = 1728 */
    OP(&b, GC_OP_TRANSPOSE_CONV, 3, S(T(&b, GC_T_INT32, 1, S(4), true), T(&b, F, 4, S(6, 3, 3, 2), true), T(&b, F, 4, S(1, 4, 4, 2), false)),
       T(&b, F, 4, S(1, 8, 8, 6), false));
    /* FULLY_CONNECTED: input [2,5,16], weights [10,16], out [2,5,10]: 100 x 16 = 1600 */
    OP(&b, GC_OP_FULLY_CONNECTED, 2, S(T(&b, F, 3, S(2, 5, 16), false), T(&b, F, 2, S(10, 16), true)), T(&b, F, 3, S(2, 5, 10), false));
    /* BATCH_MATMUL: a [2,3,7], b [2,7,5], out [2,3,5]: 30 x 7 = 210 */
    OP(&b, GC_OP_BATCH_MATMUL, 2, S(T(&b, F, 3, S(2, 3, 7), false), T(&b, F, 3, S(2, 7, 5), false)), T(&b, F, 3, S(2, 3, 5), false));
    /* BATCH_MATMUL adj_x: a [2,4,3] is [K=4, M=3]: out [2,3,5]: 30 x 4 = 120 (90 if K were read from the last dim) */
    int32_t bm = OP(&b, GC_OP_BATCH_MATMUL, 2, S(T(&b, F, 3, S(2, 4, 3), false), T(&b, F, 3, S(2, 4, 5), false)), T(&b, F, 3, S(2, 3, 5), false));
    gc_op *op = &b.m->subgraphs[b.sg].ops[bm];
    gc_opt_init(b.m, &op->opt, GC_BO_BatchMatMulOptions);
    gc_opt_set_int(b.m, &op->opt, GC_O_BatchMatMulOptions_adj_x, 1);
    /* CONV_3D: out [1,2,4,4,5], filter [2,3,3,4,5]: 160 x 72 = 11520 */
    OP(&b, GC_OP_CONV_3D, 2, S(T(&b, F, 5, S(1, 3, 6, 6, 4), false), T(&b, F, 5, S(2, 3, 3, 4, 5), true)), T(&b, F, 5, S(1, 2, 4, 4, 5), false));
    /* CONV_3D_TRANSPOSE: input [1,2,2,2,3], filter [2,2,2,4,3] ([KD,KH,KW,OC,IC]): 24 x 32 = 768 */
    OP(&b, GC_OP_CONV_3D_TRANSPOSE, 3, S(T(&b, GC_T_INT32, 1, S(5), true), T(&b, F, 5, S(2, 2, 2, 4, 3), true), T(&b, F, 5, S(1, 2, 2, 2, 3), false)),
       T(&b, F, 5, S(1, 4, 4, 4, 4), false));
    /* not counted: ADD */
    int32_t y = T(&b, F, 4, S(1, 8, 8, 4), false);
    OP(&b, GC_OP_ADD, 2, S(y, y), T(&b, F, 4, S(1, 8, 8, 4), false));

    gc_flops f;
    gc_model_flops(b.m, &f);
    CHECK_EQ_INT(f.subgraph, 0);
    CHECK_EQ_INT(f.op_macs[k_of("CONV_2D")], 6912 + 1296);
    CHECK_EQ_INT(f.op_count[k_of("CONV_2D")], 2);
    CHECK_EQ_INT(f.op_macs[k_of("DEPTHWISE_CONV_2D")], 1152);
    CHECK_EQ_INT(f.op_macs[k_of("TRANSPOSE_CONV")], 1728);
    CHECK_EQ_INT(f.op_macs[k_of("FULLY_CONNECTED")], 1600);
    CHECK_EQ_INT(f.op_macs[k_of("BATCH_MATMUL")], 210 + 120);
    CHECK_EQ_INT(f.op_macs[k_of("CONV_3D")], 11520);
    CHECK_EQ_INT(f.op_macs[k_of("CONV_3D_TRANSPOSE")], 768);
    uint64_t total = 6912 + 1296 + 1152 + 1728 + 1600 + 210 + 120 + 11520 + 768;
    CHECK_EQ_INT(f.macs, total);
    CHECK_EQ_INT(f.macs_float, total);
    CHECK_EQ_INT(f.macs_quant + f.macs_hybrid, 0);
    CHECK_EQ_INT(f.n_unknown, 0);
    CHECK(!strcmp(gc_flops_kind(&f), "float"));

    /* inspect carries it: the JSON object and the text line */
    gc_str j = {0}, t = {0};
    gc_inspect_json(b.m, "m.tflite", &j);
    char want[96];
    snprintf(want, sizeof want, "\"flops\":{\"subgraph\":0,\"flops\":%llu,\"macs\":%llu,", (unsigned long long)(2 * total),
             (unsigned long long)total);
    CHECK_MSG(j.s && strstr(j.s, want), "inspect --json lacks %s", want);
    gc_inspect_text(b.m, "m.tflite", false, &t);
    CHECK_MSG(t.s && strstr(t.s, "compute (subgraph 0, static shapes): ") && strstr(t.s, "CONV_2D x2 8.21 k"), "text: %s", t.s ? t.s : "");
    gc_str_free(&j);
    gc_str_free(&t);
    gc_model_free(b.m);
}

GC_TEST(flops_classes_and_unknown_shapes) {
    fb b = fb_new();
    /* quant: int8 activation into CONV_2D, out [1,2,2,4], filter [4,1,1,8]: 16 x 8 = 128 */
    OP(&b, GC_OP_CONV_2D, 2, S(T(&b, GC_T_INT8, 4, S(1, 2, 2, 8), false), T(&b, GC_T_INT8, 4, S(4, 1, 1, 8), true)),
       T(&b, GC_T_INT8, 4, S(1, 2, 2, 4), false));
    /* hybrid: float activation, int8 weights, out [3,20], weights [20,50]: 60 x 50 = 3000 */
    OP(&b, GC_OP_FULLY_CONNECTED, 2, S(T(&b, F, 2, S(3, 50), false), T(&b, GC_T_INT8, 2, S(20, 50), true)), T(&b, F, 2, S(3, 20), false));
    /* unknown: an output of rank 0 (shape not in the file), and a weight with a 0 dim */
    OP(&b, GC_OP_FULLY_CONNECTED, 2, S(T(&b, F, 2, S(3, 50), false), T(&b, F, 2, S(20, 50), true)), T(&b, F, 0, NULL, false));
    OP(&b, GC_OP_CONV_2D, 2, S(T(&b, F, 4, S(1, 2, 2, 8), false), T(&b, F, 4, S(4, 0, 1, 8), false)), T(&b, F, 4, S(1, 2, 2, 4), false));
    /* a CONV_2D whose filter is missing from the op: unknown, never a crash */
    OP(&b, GC_OP_CONV_2D, 1, S(T(&b, F, 4, S(1, 2, 2, 8), false)), T(&b, F, 4, S(1, 2, 2, 4), false));

    gc_flops f;
    gc_model_flops(b.m, &f);
    CHECK_EQ_INT(f.macs_quant, 128);
    CHECK_EQ_INT(f.macs_hybrid, 3000);
    CHECK_EQ_INT(f.macs_float, 0);
    CHECK_EQ_INT(f.macs, 3128);
    CHECK_EQ_INT(f.n_unknown, 3);
    CHECK(!strcmp(gc_flops_kind(&f), "hybrid"));
    gc_str t = {0};
    gc_flops_text(&f, &t);
    CHECK_MSG(t.s && strstr(t.s, "3 op(s) with unknown shapes not counted"), "%s", t.s ? t.s : "");
    gc_str_free(&t);
    gc_model_free(b.m);

    /* a model without MAC ops, and one without subgraphs */
    fb e = fb_new();
    int32_t a = T(&e, F, 1, S(4), false);
    OP(&e, GC_OP_ADD, 2, S(a, a), T(&e, F, 1, S(4), false));
    gc_model_flops(e.m, &f);
    CHECK_EQ_INT(f.macs, 0);
    CHECK(!strcmp(gc_flops_kind(&f), "none"));
    gc_model_free(e.m);
    gc_model *m0 = gc_model_new();
    gc_model_flops(m0, &f);
    CHECK_EQ_INT(f.subgraph, -1);
    gc_model_free(m0);
}

GC_TEST(flops_entry_is_signature_subgraph) {
    /* two subgraphs; the signature runs subgraph 1: only its FULLY_CONNECTED counts */
    fb b = fb_new();
    OP(&b, GC_OP_FULLY_CONNECTED, 2, S(T(&b, F, 2, S(1, 8), false), T(&b, F, 2, S(4, 8), true)), T(&b, F, 2, S(1, 4), false));
    int32_t sg1 = gc_model_add_subgraph(b.m, "other");
    fb c = { b.m, sg1 };
    int32_t in = T(&c, F, 2, S(2, 3), false), out = T(&c, F, 2, S(2, 5), false);
    OP(&c, GC_OP_FULLY_CONNECTED, 2, S(in, T(&c, F, 2, S(5, 3), true)), out);
    gc_sg_set_io(b.m, sg1, 1, &in, 1, &out);
    gc_model *m = b.m;
    if (!gc_grow((void **)&m->signatures, &m->cap_signatures, 1, sizeof *m->signatures)) { CHECK(0); gc_model_free(m); return; }
    gc_signature *sd = &m->signatures[m->n_signatures++];
    memset(sd, 0, sizeof *sd);
    sd->key = "serving_default";
    sd->subgraph = (uint32_t)sg1;
    gc_flops f;
    gc_model_flops(m, &f);
    CHECK_EQ_INT(f.subgraph, 1);
    CHECK_EQ_INT(f.macs, 2 * 5 * 3);
    gc_model_free(m);
}
