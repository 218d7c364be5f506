/* gpu_bisect_models.c — `build/gpu-bisect-models OUT_DIR`: small float models built to
 * diverge at one known op when run in half precision, for the end-to-end tests of
 * `gpuclean bisect --runtime` (tests/integration/bisect_gpu_seam.sh, through the
 * interpreter test seam) and as GPU-fp16 probes on a device. In every model the op whose
 * output is named "overflow" squares values of about 1e3: about 1e6 in float32, +inf in
 * half (max 65504); everything before it stays within [0, 1e3] and is exact enough in half.
 *
 *   overflow_chain.tflite   x -> 24 elementwise ops -> *1000 -> overflow (square) -> *1e-5
 *                           -> 4 ops -> + tanh(branch) -> out. The divergence is monotone
 *                           along the execution order.
 *   overflow_branch.tflite  the overflowing branch runs first (file and execution order),
 *                           then a long exact main chain, then both merge: the search meets
 *                           within-tolerance points after divergent ones (not monotone)
 *                           and must come back to the branch.
 *   overflow_last.tflite    x -> 6 ops -> *1000 -> overflow, the model's output: the search
 *                           ends at the output itself, which the full model measured; its
 *                           own prefix must be probed to confirm.
 * Prints one line per model: file, op index and tensor of the overflow. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model/model.h"
#include "model/schema.h"

static const int32_t SHAPE[4] = { 1, 8, 8, 4 };

typedef struct { gc_model *m; int32_t sg; int n; } builder;

static int32_t tensor(builder *b, const char *name) {
    return gc_sg_add_tensor(b->m, b->sg, name, GC_T_FLOAT32, 4, SHAPE, 0);
}

static int32_t scalar(builder *b, float v) {
    int32_t one[1] = { 1 };
    char name[32];
    snprintf(name, sizeof name, "c%d", b->n++);
    return gc_sg_add_tensor(b->m, b->sg, name, GC_T_FLOAT32, 1, one, (uint32_t)gc_model_add_buffer(b->m, &v, sizeof v));
}

/* out = a OP c (c a scalar constant) or a OP x2 (a tensor) */
static int32_t binary(builder *b, int32_t code, int32_t a, int32_t x2, const char *name) {
    int32_t y = tensor(b, name);
    int32_t in[2] = { a, x2 }, out[1] = { y };
    gc_sg_insert_op(b->m, b->sg, -1, gc_model_add_opcode(b->m, code, NULL, 1), 2, in, 1, out);
    return y;
}

static int32_t unary(builder *b, int32_t code, int32_t a, const char *name) {
    int32_t y = tensor(b, name);
    int32_t in[1] = { a }, out[1] = { y };
    gc_sg_insert_op(b->m, b->sg, -1, gc_model_add_opcode(b->m, code, NULL, 1), 1, in, 1, out);
    return y;
}

/* n exact-in-half-ish elementwise steps keeping values in about [0.5, 3] */
static int32_t chain(builder *b, int32_t x, int n, const char *prefix) {
    char name[64];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s%d", prefix, i);
        switch (i % 4) {
        case 0: x = binary(b, GC_OP_ADD, x, scalar(b, 0.25f), name); break;
        case 1: x = binary(b, GC_OP_MUL, x, scalar(b, 0.75f), name); break;
        case 2: x = unary(b, GC_OP_ABS, x, name); break;
        default: x = binary(b, GC_OP_MAXIMUM, x, scalar(b, 0.5f), name); break;
        }
    }
    return x;
}

/* x*300 then squared: the op that overflows half */
static int32_t overflow(builder *b, int32_t x) {
    int32_t s = binary(b, GC_OP_MUL, x, scalar(b, 1000.0f), "scaled");
    int32_t o = binary(b, GC_OP_MUL, s, s, "overflow");
    return binary(b, GC_OP_MUL, o, scalar(b, 1e-5f), "rescaled");
}

static int write(gc_model *m, const char *dir, const char *name) {
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
    if (gc_model_validate(m, err, sizeof err) != GC_OK || gc_model_write_file(m, path, NULL, err, sizeof err) != GC_OK) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 1;
    }
    const gc_subgraph *g = &m->subgraphs[0];
    for (int32_t o = 0; o < g->n_ops; o++)
        if (!strcmp(g->tensors[g->ops[o].outputs[0]].name, "overflow"))
            printf("%s\top %d\ttensor %d 'overflow'\t%d ops\n", path, o, g->ops[o].outputs[0], g->n_ops);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2 || argv[1][0] == '-') { fprintf(stderr, "usage: gpu-bisect-models OUT_DIR\n"); return 2; }
    mkdir(argv[1], 0777);
    int rc = 0;
    {   /* overflow_chain */
        builder b = { gc_model_new(), 0, 0 };
        b.sg = gc_model_add_subgraph(b.m, "main");
        int32_t x = tensor(&b, "x");
        int32_t br = unary(&b, GC_OP_TANH, binary(&b, GC_OP_ADD, x, scalar(&b, 0.5f), "branch_in"), "branch");
        int32_t y = chain(&b, x, 24, "pre");
        y = overflow(&b, y);
        y = chain(&b, y, 4, "post");
        y = binary(&b, GC_OP_ADD, y, br, "out");
        gc_sg_set_io(b.m, b.sg, 1, &x, 1, &y);
        rc |= write(b.m, argv[1], "overflow_chain");
        gc_model_free(b.m);
    }
    {   /* overflow_branch */
        builder b = { gc_model_new(), 0, 0 };
        b.sg = gc_model_add_subgraph(b.m, "main");
        int32_t x = tensor(&b, "x");
        int32_t side = chain(&b, x, 2, "side");
        side = overflow(&b, side);
        int32_t y = chain(&b, x, 24, "main");
        y = binary(&b, GC_OP_ADD, y, side, "merge");
        y = chain(&b, y, 2, "tail");
        gc_sg_set_io(b.m, b.sg, 1, &x, 1, &y);
        rc |= write(b.m, argv[1], "overflow_branch");
        gc_model_free(b.m);
    }
    {   /* overflow_last */
        builder b = { gc_model_new(), 0, 0 };
        b.sg = gc_model_add_subgraph(b.m, "main");
        int32_t x = tensor(&b, "x");
        int32_t y = chain(&b, x, 6, "pre");
        int32_t sc = binary(&b, GC_OP_MUL, y, scalar(&b, 1000.0f), "scaled");
        y = binary(&b, GC_OP_MUL, sc, sc, "overflow");
        gc_sg_set_io(b.m, b.sg, 1, &x, 1, &y);
        rc |= write(b.m, argv[1], "overflow_last");
        gc_model_free(b.m);
    }
    return rc;
}
