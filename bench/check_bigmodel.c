/* check_bigmodel.c — writes a ~2.7 GB float32 model (20 FULLY_CONNECTED layers of
 * 8192x4096 weights, stored after the flatbuffer as external data) for timing
 * `gpuclean check` on a large file (bench/check_bench.sh BIG.tflite).
 * Build: cc -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Isrc -o build/check-bigmodel \
 *          bench/check_bigmodel.c build/libgpuclean.a -lm
 * Run:   build/check-bigmodel /tmp/big.tflite
 */
#include <stdio.h>
#include <stdlib.h>
#include "model/model.h"

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: check-bigmodel OUT.tflite\n"); return 2; }
    enum { LAYERS = 20, A = 4096, B = 8192 };
    size_t bytes = (size_t)A * B * sizeof(float);
    float *w = calloc(1, bytes);   /* shared by every layer (zero pages) */
    if (!w) { fprintf(stderr, "out of memory\n"); return 1; }
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t oc = gc_model_add_opcode(m, GC_OP_FULLY_CONNECTED, NULL, 1);
    int32_t dim = A;
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, (int32_t[]){1, A}, 0), first = x;
    for (int l = 0; l < LAYERS; l++) {
        int32_t out = dim == A ? B : A;
        char name[32];
        snprintf(name, sizeof name, "w%d", l);
        int32_t buf = gc_model_add_buffer_ref(m, w, bytes);
        int32_t wt = gc_sg_add_tensor(m, sg, name, GC_T_FLOAT32, 2, (int32_t[]){out, dim}, (uint32_t)buf);
        snprintf(name, sizeof name, "y%d", l);
        int32_t y = gc_sg_add_tensor(m, sg, name, GC_T_FLOAT32, 2, (int32_t[]){1, out}, 0);
        gc_sg_insert_op(m, sg, -1, oc, 3, (int32_t[]){x, wt, -1}, 1, (int32_t[]){y});
        x = y;
        dim = out;
    }
    gc_sg_set_io(m, sg, 1, (int32_t[]){first}, 1, (int32_t[]){x});
    char err[256];
    gc_status st = gc_model_write_file(m, argv[1], NULL, err, sizeof err);
    if (st != GC_OK) fprintf(stderr, "%s: %s\n", argv[1], err);
    gc_model_free(m);
    free(w);
    return st == GC_OK ? 0 : 1;
}
