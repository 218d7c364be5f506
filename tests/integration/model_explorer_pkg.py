#!/usr/bin/env python3
"""model_explorer_pkg.py — a gpuclean overlay loaded with Model Explorer's own code (the
ai-edge-model-explorer package; run with a Python that has it, see model_explorer.sh):

  * the package's TFLite flatbuffer adapter converts MODEL; every graph id of the overlay
    is a graph it made, every node key a node id in that graph, and that node is the op
    (its label is our op name in lower case, or the custom code), never one of the
    adapter's own GraphInputs / GraphOutputs / pseudo_const nodes;
  * the overlay builds the package's node-data classes (node_data_builder.GraphNodeData,
    NodeDataResult, ThresholdItem, ModelNodeData) without unknown fields, and their JSON is
    the overlay's own data.

usage: model_explorer_pkg.py MODEL.tflite OVERLAY.json INSPECT.json
"""
import json
import sys

from model_explorer import node_data_builder as ndb
from model_explorer.builtin_tflite_flatbuffer_adapter import BuiltinTfliteFlatbufferAdapter


def as_dict(x):
    return x if isinstance(x, dict) else vars(x)


def sg_of(inspect, gid):
    """the subgraph the adapter names gid (its name, a signature key, main / subgraph_<i>)"""
    for i, s in enumerate(inspect["subgraphs"]):
        if s["name"] == gid:
            return i
    for sig in inspect["signatures"]:
        if sig["key"] == gid and not inspect["subgraphs"][sig["subgraph"]]["name"]:
            return sig["subgraph"]
    if gid == "main":
        return 0
    if gid.startswith("subgraph_") and gid[9:].isdigit() and int(gid[9:]) < len(inspect["subgraphs"]):
        return int(gid[9:])
    return None


def main():
    model, overlay_path, inspect_path = sys.argv[1:4]
    overlay = json.load(open(overlay_path, encoding="utf-8"))
    inspect = json.load(open(inspect_path))
    fails = []
    graphs = {}
    for col in BuiltinTfliteFlatbufferAdapter().convert(model, {})["graphCollections"]:
        for g in as_dict(col)["graphs"]:
            g = as_dict(g)
            graphs[g["id"]] = {as_dict(n)["id"]: as_dict(n)["label"] for n in g["nodes"]}
    matched, seen = 0, set()
    for gid, gdata in overlay.items():
        if gid not in graphs:
            continue       # the alias for the other adapter generation
        matched += 1
        sg = sg_of(inspect, gid)
        seen.add(sg)
        for nid in gdata["results"]:
            label = graphs[gid].get(nid)
            if label is None:
                fails.append("%s: node id %s is not in the adapter's graph" % (gid, nid))
            elif label in ("GraphInputs", "GraphOutputs", "pseudo_const"):
                fails.append("%s: node id %s is the adapter's %s node, not an op" % (gid, nid, label))
            elif sg is not None:
                op = inspect["subgraphs"][sg]["ops"][int(nid)]["op"]
                if label.lower() != op.lower() and label != op:
                    fails.append("%s: node %s is %r in the adapter, %r in gpuclean" % (gid, nid, label, op))
        # the package's own classes: unknown fields raise TypeError
        try:
            kw = {k: v for k, v in gdata.items() if k not in ("results", "thresholds", "gradient")}
            built = ndb.GraphNodeData(results={k: ndb.NodeDataResult(**v) for k, v in gdata["results"].items()},
                                      thresholds=[ndb.ThresholdItem(**t) for t in gdata.get("thresholds", [])],
                                      gradient=[ndb.GradientItem(**t) for t in gdata.get("gradient", [])], **kw)
            again = json.loads(ndb.ModelNodeData(graphsData={gid: built}).to_json_string())[gid]
            for k, v in gdata.items():
                if again.get(k) != v:
                    fails.append("%s: field %s reads back as %r" % (gid, k, again.get(k)))
        except TypeError as e:
            fails.append("%s: the package's node-data classes refuse it: %s" % (gid, e))
    for i, sub in enumerate(inspect["subgraphs"]):
        if sub["ops"] and i not in seen and any(sg_of(inspect, g) == i for g in overlay):
            fails.append("subgraph %d: none of its ids %s is a graph of the adapter" %
                         (i, [g for g in overlay if sg_of(inspect, g) == i]))
    if not matched:
        fails.append("no graph id of the overlay is a graph of the adapter (%s vs %s)" % (sorted(overlay), sorted(graphs)))
    for f in fails:
        print("FAIL: %s: %s" % (overlay_path, f))
    print("%s: %d graph(s) matched the adapter's %s%s" % (overlay_path, matched, sorted(graphs), "" if fails else ", ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
