#!/usr/bin/env python3
"""model_explorer_check.py — a gpuclean Model Explorer overlay against Model Explorer's
documented node-data format (standard library only; tests/integration/model_explorer.sh).

The format (google-ai-edge/model-explorer: server package node_data_builder.py, UI
common/types.ts NodeDataProviderData): an object from graph id to GraphNodeData
  {results: {node key: {value, bgColor?, textColor?}}, name?, thresholds?: [{value,
   bgColor, textColor?}], gradient?: [{stop, bgColor?, textColor?}], hideInAggregatedStatsTable?,
   hideInChildrenStatsTable?, hideAggregatedStats?: [min|max|sum|avg],
   showExpandedSummaryOnGroupNode?, showLabelCountColumnsInChildrenStatsTable?}
Graph ids and node keys as the TFLite flatbuffer adapter makes them: the subgraph's name,
else its signature's key (newer adapters) or "main" / "subgraph_<i>"; node ids are op
indices. Checked here against `gpuclean inspect --json` (ids) and `gpuclean check --json`
(verdict values) or the bisect's --json (error values).

usage: model_explorer_check.py OVERLAY.json INSPECT.json (--verdict CHECK.json | --error BISECT.json)
"""
import json
import re
import sys

GRAPH_KEYS = {"name", "results", "thresholds", "gradient", "hideInAggregatedStatsTable", "hideInChildrenStatsTable",
              "hideAggregatedStats", "showExpandedSummaryOnGroupNode", "showLabelCountColumnsInChildrenStatsTable"}
RESULT_KEYS = {"value", "bgColor", "textColor"}
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
STATE_CLASS = {"gpu": {"gpu", "risk", "wrong"}, "rejected": {"rejected"}, "cpu_partition": {"cpu"},
               "fp16_dequant": {"cpu"}, "init_failed": {"cpu", "rejected"}, "skipped": {"skipped"}}


def graph_ids(inspect, sg, signature_fallback):
    s = inspect["subgraphs"][sg]
    if s["name"]:
        return s["name"]
    if signature_fallback:
        for sig in inspect["signatures"]:
            if sig["subgraph"] == sg:
                if sig["key"]:
                    return sig["key"]
                break
    return "main" if sg == 0 else "subgraph_%d" % sg


def main():
    overlay_path, inspect_path, mode, other = sys.argv[1:5]
    fails = []
    text = open(overlay_path, encoding="utf-8").read()
    data = json.loads(text)
    inspect = json.load(open(inspect_path))
    other = json.load(open(other))
    if not isinstance(data, dict) or "results" in data and "results" not in data["results"]:
        fails.append("the top level must map graph ids to graph data (the UI would read it as one graph's data)")
        data = {}
    # every subgraph with ops under the id the adapter gives it
    id_to_sg = {}
    for sg, s in enumerate(inspect["subgraphs"]):
        if not s["ops"]:
            continue
        new, old = graph_ids(inspect, sg, True), graph_ids(inspect, sg, False)
        if new not in data:
            fails.append("subgraph %d: no data under its graph id %r" % (sg, new))
        id_to_sg.setdefault(new, sg)
        id_to_sg.setdefault(old, sg)
    for gid, g in data.items():
        if gid not in id_to_sg:
            fails.append("graph id %r names no subgraph" % gid)
            continue
        sg = id_to_sg[gid]
        n_ops = len(inspect["subgraphs"][sg]["ops"])
        if not isinstance(g, dict) or not isinstance(g.get("results"), dict):
            fails.append("%s: no results object" % gid)
            continue
        extra = set(g) - GRAPH_KEYS
        if extra:
            fails.append("%s: keys Model Explorer does not know: %s" % (gid, sorted(extra)))
        if "name" in g and not isinstance(g["name"], str):
            fails.append("%s: name is not a string" % gid)
        for t in g.get("thresholds", []):
            if set(t) - {"value", "bgColor", "textColor"} or not isinstance(t.get("value"), (int, float)) \
                    or not COLOUR.match(t.get("bgColor", "")):
                fails.append("%s: bad threshold %r" % (gid, t))
        for key in ("showExpandedSummaryOnGroupNode", "showLabelCountColumnsInChildrenStatsTable",
                    "hideInAggregatedStatsTable", "hideInChildrenStatsTable"):
            if key in g and not isinstance(g[key], bool):
                fails.append("%s: %s is not a bool" % (gid, key))
        for nid, r in g["results"].items():
            if not re.fullmatch(r"0|[1-9][0-9]*", nid) or int(nid) >= n_ops:
                fails.append("%s: node key %r is not an op index (0..%d)" % (gid, nid, n_ops - 1))
                continue
            if not isinstance(r, dict) or "value" not in r or set(r) - RESULT_KEYS:
                fails.append("%s/%s: result %r is not {value, bgColor?, textColor?}" % (gid, nid, r))
                continue
            if not isinstance(r["value"], (int, float, str)) or isinstance(r["value"], bool):
                fails.append("%s/%s: value %r is not a number or a string" % (gid, nid, r["value"]))
            if "bgColor" in r and not COLOUR.match(r["bgColor"]):
                fails.append("%s/%s: bgColor %r is not #rrggbb" % (gid, nid, r["bgColor"]))
        # the values: verdicts for every op / errors for the measured ones
        if mode == "--verdict":
            nodes = {n["index"]: n for n in other["nodes"] if n["subgraph"] == sg}
            if len(g["results"]) != n_ops:
                fails.append("%s: %d results for %d ops" % (gid, len(g["results"]), n_ops))
            for nid, r in g["results"].items():
                n = nodes.get(int(nid)) if nid.isdigit() else None
                if n and r.get("value") not in STATE_CLASS.get(n["state"], set()):
                    fails.append("%s/%s: value %r for a %s node" % (gid, nid, r.get("value"), n["state"]))
        else:
            worst = {}
            for n in other["nodes"]:
                if n["subgraph"] == sg:
                    v = float("inf") if isinstance(n["rel"], str) or n["nonfinite"] else n["rel"]
                    worst[n["op"]] = max(worst.get(n["op"], -1), v)
            if set(int(k) for k in g["results"]) != set(worst):
                fails.append("%s: the measured ops and the overlay's differ" % gid)
            for nid, r in g["results"].items():
                w = worst.get(int(nid))
                if w is None:
                    continue
                if w == float("inf"):
                    if r["value"] != "nonfinite":
                        fails.append("%s/%s: a NaN/Inf mismatch shown as %r" % (gid, nid, r["value"]))
                elif not isinstance(r["value"], (int, float)) or abs(r["value"] - w) > 1e-5 * max(abs(w), 1e-30):
                    fails.append("%s/%s: value %r, the bisect's worst rel is %r" % (gid, nid, r["value"], w))
    for f in fails:
        print("FAIL: %s: %s" % (overlay_path, f))
    print("%s: %d graph id(s), %d result(s)%s" % (overlay_path, len(data), sum(len(g.get("results", {})) for g in data.values()),
                                                 "" if fails else ", format ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
