/* fuzz_interp.c — libFuzzer target for the reference interpreter: every model the
 * reader accepts is prepared and, when prepare succeeds, invoked on the sin pattern at
 * fp32 and fp16-acc. Kernels must reject what they cannot run with a message (prepare
 * validates everything), never crash or read out of bounds. Models whose tensors would
 * need more than 4 MiB each are skipped to keep executions fast. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "model/model.h"
#include "interp/interp.h"

static bool small_enough(const gc_model *m) {
    for (int32_t s = 0; s < m->n_subgraphs; s++)
        for (int32_t t = 0; t < m->subgraphs[s].n_tensors; t++) {
            const gc_tensor *x = &m->subgraphs[s].tensors[t];
            uint64_t n = gc_tensor_numel(x);
            if (n == UINT64_MAX || n > (1u << 20)) return false;
        }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    char err[512];
    gc_model *m = gc_model_read_mem(data, size, err, sizeof err);
    if (!m) return 0;
    if (small_enough(m)) {
        for (int p = 0; p < 3; p += 2) {
            gc_interp_opts o = { .precision = (gc_precision)p, .signature = GC_SIG_AUTO,
                                  .max_tensor_bytes = 16u << 20 };
            gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
            if (!it) continue;
            if (gc_interp_prepare(it) == GC_OK) {
                for (int k = 0; k < gc_interp_n_inputs(it); k++) {
                    gc_tview v = gc_interp_input(it, k);
                    gc_fill_pattern_sin(&v, k);
                }
                gc_interp_invoke(it);
            } else if (!gc_interp_errmsg(it)[0]) abort();   /* a failure must say why */
            gc_interp_free(it);
        }
    }
    gc_model_free(m);
    return 0;
}
