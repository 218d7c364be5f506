/* partition.c — TFLite's PartitionGraphIntoIndependentNodeSubsets (tflite/graph_info.cc),
 * as both GPU delegates use it through GraphPartitionHelper / PreviewDelegatePartitioning
 * (gpu-delegate-rules.md §1.1 steps 6, §8 step 8).
 *
 * The algorithm, greedy variant (DisableDelegateClustering() is false by default):
 * repeatedly open a new node subset; sweep the execution plan in order and add every
 * node that is not yet placed, whose inputs are all produced by already-placed nodes
 * (graph inputs and constants are always ready), whose control-edge predecessors are
 * placed, and whose kind (delegated or not) matches the subset's kind — the first ready
 * node of a subset decides its kind; sweep again until nothing changes; stop when a
 * subset stays empty. Nodes that might have side effects (RESOURCE tensors, IF, WHILE,
 * CALL_ONCE; Subgraph::OpMightHaveSideEffect) are chained by control edges in plan order.
 */
#include "check_int.h"

#include <stdlib.h>
#include <string.h>

enum { NOT_READY = -1, ALWAYS_READY = -2 };

void gc_partitioning_free(gc_partitioning *p) {
    free(p->subset_of); free(p->subset_type); free(p->subset_size);
    memset(p, 0, sizeof *p);
}

bool gc_partition(const gc_subgraph *sg, const uint8_t *supported, const uint8_t *side_effect,
                  gc_partitioning *out) {
    int32_t n = sg->n_ops, nt = sg->n_tensors;
    memset(out, 0, sizeof *out);
    int32_t *tensor_epoch = malloc(sizeof(int32_t) * (size_t)(nt ? nt : 1));
    int32_t *node_epoch = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    int32_t *next_se = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));   /* control edge target */
    uint8_t *incoming = calloc((size_t)(n ? n : 1), 1);
    int32_t cap = 16;
    out->subset_type = malloc((size_t)cap);
    out->subset_size = malloc(sizeof(int32_t) * (size_t)cap);
    out->subset_of = node_epoch;
    if (!tensor_epoch || !node_epoch || !next_se || !incoming || !out->subset_type || !out->subset_size) {
        free(tensor_epoch); free(next_se); free(incoming);
        gc_partitioning_free(out);
        return false;
    }
    for (int32_t t = 0; t < nt; t++) tensor_epoch[t] = ALWAYS_READY;
    for (int32_t i = 0; i < n; i++) {
        node_epoch[i] = NOT_READY;
        next_se[i] = -1;
        const gc_op *op = &sg->ops[i];
        for (int32_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] >= 0 && op->outputs[k] < nt) tensor_epoch[op->outputs[k]] = NOT_READY;
    }
    for (int32_t i = 0, last = -1; i < n; i++)
        if (side_effect && side_effect[i]) {
            if (last >= 0) { next_se[last] = i; incoming[i] = 1; }
            last = i;
        }

    int32_t placed = 0;
    bool ok = true;
    for (;;) {
        int32_t epoch = out->n_subsets;
        if (epoch == cap) {
            cap *= 2;
            uint8_t *ty = realloc(out->subset_type, (size_t)cap);
            if (ty) out->subset_type = ty;
            int32_t *sz = realloc(out->subset_size, sizeof(int32_t) * (size_t)cap);
            if (sz) out->subset_size = sz;
            if (!ty || !sz) { ok = false; break; }
        }
        int kind = -1;     /* kTfUnexplored */
        int32_t size = 0;
        for (;;) {
            bool did = false;
            for (int32_t i = 0; i < n; i++) {
                if (node_epoch[i] != NOT_READY || incoming[i]) continue;
                const gc_op *op = &sg->ops[i];
                bool ready = true;
                for (int32_t k = 0; k < op->n_inputs && ready; k++) {
                    int32_t t = op->inputs[k];
                    if (t >= 0 && t < nt && tensor_epoch[t] == NOT_READY) ready = false;
                }
                if (!ready) continue;
                int nk = supported[i] ? 1 : 0;
                if (kind == -1) kind = nk;
                if (kind != nk) continue;
                node_epoch[i] = epoch;
                size++;
                placed++;
                for (int32_t k = 0; k < op->n_outputs; k++)
                    if (op->outputs[k] >= 0 && op->outputs[k] < nt) tensor_epoch[op->outputs[k]] = epoch;
                if (next_se[i] >= 0) incoming[next_se[i]] = 0;
                did = true;
            }
            if (!did) break;
        }
        if (size == 0) break;
        out->subset_type[epoch] = (uint8_t)kind;
        out->subset_size[epoch] = size;
        out->n_subsets++;
    }
    if (placed != n) ok = false;   /* a cycle: the runtime reports an error */
    free(tensor_epoch); free(next_se); free(incoming);
    if (!ok) { gc_partitioning_free(out); return false; }
    return true;
}
