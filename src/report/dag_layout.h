/* dag_layout.h — a layered drawing of one subgraph's ops (the HTML report's graph).
 *
 * Nodes are the subgraph's ops; there is an edge p -> j when op j reads a tensor that op p
 * writes (one edge per distinct pair; tensors with no producing op — graph inputs and
 * constants — make no edge). The layout is the usual layered (Sugiyama-style) one, cut
 * down to what stays fast on graphs of thousands of ops:
 *
 *   1. layers: longest path in execution order, layer[j] = 1 + max layer[p] over the
 *      producers p < j (ops are stored in execution order, so one forward pass; an edge
 *      from a later op, which a valid model never has, is drawn but ignores the layering).
 *      Then every op with readers moves down as late as they allow (reverse execution
 *      order: layer = max(layer, min layer of its readers - 1)), so a fan-out of slices
 *      that a long chain consumes one by one sits beside the chain instead of in one
 *      wide layer at the top, and sources sit next to their first reader.
 *   2. order within a layer: execution order, then barycentre sweeps (down: mean slot of
 *      the producers; up: mean slot of the readers), GC_DAG_SWEEPS rounds; stable sorts.
 *   3. x: each node wants the mean x of its producers (down pass; a node without one
 *      keeps its slot); a left-to-right pass pushes overlapping nodes apart by one column
 *      and the layer is shifted by the mean remaining pull, so a chain stays straight.
 *
 * Cost: O((n + e) log n) per sweep; no dummy nodes, so an edge that spans several layers
 * is drawn as one curve (the renderer draws those lighter). Coordinates are in columns
 * (x, a double) and layers (y): the renderer scales them.
 */
#ifndef GC_DAG_LAYOUT_H
#define GC_DAG_LAYOUT_H
#include <stdint.h>
#include "model/model.h"

#define GC_DAG_SWEEPS 2

typedef struct {
    int32_t n;              /* ops */
    int32_t *layer;         /* [n] 0-based layer */
    double *x;              /* [n] column, >= 0 (min over nodes is 0) */
    int32_t n_layers;
    double width;           /* max x + 1 (columns) */
    int32_t n_edges;
    int32_t *edge_from, *edge_to;   /* [n_edges] op indices, in reader order */
} gc_dag_layout;

/* Lay out subgraph sg of m. GC_ERR_NOMEM on allocation failure (then *out is empty). */
gc_status gc_dag_layout_subgraph(const gc_model *m, int32_t sg, gc_dag_layout *out);
void gc_dag_layout_free(gc_dag_layout *l);

#endif
