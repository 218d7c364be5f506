/* model_explorer.h — node-data overlays for Google's Model Explorer
 * (`model-explorer MODEL.tflite --node_data_paths=OUT.json`), keyed the way its TFLite
 * flatbuffer adapter names things (ai-edge-model-explorer 0.1.34 / adapter 0.2.1, and the
 * adapter source in google-ai-edge/model-explorer):
 *
 *   graph id  the subgraph's name; when empty, the key of the signature that runs the
 *             subgraph (newer adapters); else "main" for subgraph 0, "subgraph_<i>" after.
 *   node id   the op's index in its subgraph, in decimal ("0", "1", ...); the adapter's
 *             own GraphInputs / GraphOutputs / pseudo_const nodes get ids after the ops.
 *
 * The file is Model Explorer's "model node data": one object per graph id, each a
 *   {"name", "results": {"<node id>": {"value", "bgColor"}}, "thresholds"?, ...}
 * (node_data_builder.py's GraphNodeData). When a subgraph's name is empty and a signature
 * names it, the data is written under both ids the adapters may use (unless that would
 * collide with another subgraph's id), so old and new adapters both find it.
 *
 *   verdict overlay (check):  value = the node's class name ("gpu", "rejected", "cpu",
 *                             "wrong", "risk", "skipped"; html.h), bgColor = its colour;
 *   error overlay (bisect):   value = rel of the node's worst probe (a number), bgColor by
 *                             thresholds: <= tol/100 green, <= tol yellow, above red; a
 *                             NaN/Inf mismatch is the string "nonfinite" in black.
 */
#ifndef GC_REPORT_MODEL_EXPLORER_H
#define GC_REPORT_MODEL_EXPLORER_H
#include "common/common.h"
#include "model/model.h"
#include "check/check.h"
#include "report/html.h"

/* the graph id the adapter gives subgraph sg (into buf) */
void gc_me_graph_id(const gc_model *m, int32_t sg, bool signature_fallback, char *buf, size_t n);

/* the verdict overlay of a check result */
void gc_me_verdict_json(const gc_check_result *r, const gc_model *m, gc_str *out);
/* the error overlay of a series (nodes without a probe are left out) */
void gc_me_error_json(const gc_html_series *s, const gc_model *m, gc_str *out);

#endif
