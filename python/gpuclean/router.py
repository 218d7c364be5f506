"""Symptom -> rewrite: reads gpuclean's static verdict (check JSON) and the model's op
list (inspect JSON) and names the remedies of gpuclean.rewrites.REMEDIES that fix them.

Three sources of symptoms, each kept apart in the result:
  * "checker": nodes gpuclean check says will not run on the GPU (its fix id, or the
    op / rule when the checker gives none), and its fp16 risk lints;
  * "seed":    ops the seed's table calls GPU-hostile even where this checker version
    accepts them (SELECT/SELECT_V2, SPLIT, GATHER_ND, BROADCAST_TO, TRANSPOSE_CONV,
    MIRROR_PAD, PADV2, tensors of rank > 4): version skew and silent miscomputes on
    devices, so convert_for_gpu removes them unless told policy="rejected";
  * "pattern": the masked-attention idiom ADD(BATCH_MATMUL, mask broadcast over heads),
    wrong only on device with older runtimes.
"""
from __future__ import annotations

FIX_ID_REMEDIES = {
    "fix.gather_nd": ["gather_nd"],
    "fix.rank5": ["rank5", "repeat_kv"],
    "fix.broadcast_to.runtime": ["repeat_kv", "expand"],
    "fix.broadcast_to.const": ["expand"],
    "fix.select.arith": ["select"],
    "fix.split.slices": ["chunk"],
    "fix.mirror_pad": ["reflect_pad"],
    "fix.transpose_conv.unfuse_activation": ["conv_transpose"],
}
OP_REMEDIES = {
    "GATHER_ND": ["gather_nd"], "PADV2": ["gather_nd"],
    "SELECT": ["select"], "SELECT_V2": ["select"],
    "SPLIT": ["chunk"], "SPLIT_V": ["chunk"],
    "BROADCAST_TO": ["repeat_kv", "expand"],
    "TRANSPOSE_CONV": ["conv_transpose"],
    "MIRROR_PAD": ["reflect_pad"],
}
SEED_HOSTILE = tuple(OP_REMEDIES)


def _add(out, source, op, node, why, remedies):
    out.append({"source": source, "op": op, "node": node, "why": why, "remedies": list(remedies)})


def mask_after_bmm(inspect_json):
    """ADD nodes whose one input comes (directly or through RESHAPE) from BATCH_MATMUL
    and whose other input broadcasts a size-1 axis that the BMM result has > 1."""
    hits = []
    for sg in inspect_json.get("subgraphs", []):
        tensors = sg["tensors"]
        producer = {}
        for op in sg["ops"]:
            for t in op["outputs"]:
                producer[t] = op

        def from_bmm(t, depth=0):
            p = producer.get(t)
            if p is None or depth > 2:
                return False
            if p["op"] == "BATCH_MATMUL":
                return True
            return p["op"] in ("RESHAPE", "MUL") and from_bmm(p["inputs"][0], depth + 1)
        for op in sg["ops"]:
            if op["op"] != "ADD" or len(op["inputs"]) != 2:
                continue
            a, b = op["inputs"]
            out = tensors[op["outputs"][0]]["shape"] if op["outputs"] else []
            for s, o in ((a, b), (b, a)):
                if s < 0 or o < 0 or not from_bmm(s):
                    continue
                so = tensors[o]["shape"]
                # numpy broadcasting: align from the right; a size-1 axis of the other
                # operand (the mask) where the result has > 1 is the broadcast
                so = [1] * (len(out) - len(so)) + list(so)
                if len(out) >= 3 and any(x == 1 and y > 1 for x, y in zip(so[:-2], out[:-2])):
                    hits.append(op["index"])
                    break
    return hits


def max_rank(inspect_json):
    return max((len(t["shape"]) for sg in inspect_json.get("subgraphs", [])
                for t in sg["tensors"]), default=0)


def hostile_ops(inspect_json):
    """{op: count} of the seed's hostile ops, plus 'rank>4' and the masked-attention
    pattern, found in the model."""
    found = {}
    for sg in inspect_json.get("subgraphs", []):
        for op in sg["ops"]:
            if op["op"] in SEED_HOSTILE:
                found[op["op"]] = found.get(op["op"], 0) + 1
        big = sum(1 for t in sg["tensors"] if len(t["shape"]) > 4)
        if big:
            found["rank>4"] = found.get("rank>4", 0) + big
    m = mask_after_bmm(inspect_json)
    if m:
        found["ADD(BMM,mask)"] = len(m)
    return found


def symptoms(check_json, inspect_json, policy="rejected+seed"):
    """List of symptoms ({source, op, node, why, remedies}) in the model."""
    out = []
    if check_json:
        for n in check_json.get("nodes", []):
            if n.get("gpu") or n.get("state") == "cpu_partition":
                continue
            fix = (n.get("fix") or {}).get("id")
            rem = FIX_ID_REMEDIES.get(fix)
            rule = n.get("rule") or ""
            if rem is None and ("rank5" in rule or "rank6" in rule or ".rank" in rule):
                rem = ["rank5", "repeat_kv"]
            if rem is None:
                rem = OP_REMEDIES.get(n["op"], [])
            _add(out, "checker", n["op"], n.get("index"),
                 "%s [%s]" % (n.get("reason", ""), rule), rem)
        for r in check_json.get("risks", []):
            if str(r.get("rule", "")).startswith("fp16."):
                _add(out, "checker", "fp16", r.get("node"), r.get("message", ""), ["fp16_norms"])
    if policy != "rejected" and inspect_json:
        for sg in inspect_json.get("subgraphs", []):
            for op in sg["ops"]:
                if op["op"] in SEED_HOSTILE:
                    _add(out, "seed", op["op"], op["index"], "GPU-hostile in the seed's table",
                         OP_REMEDIES[op["op"]])
            if any(len(t["shape"]) > 4 for t in sg["tensors"]):
                _add(out, "seed", "rank>4", None, "tensor of rank > 4", ["rank5", "repeat_kv"])
        for i in mask_after_bmm(inspect_json):
            _add(out, "pattern", "ADD", i, "scores + mask broadcast over heads after "
                 "BATCH_MATMUL (miscomputed on older GPU runtimes)", ["mask_expand"])
    return out


def remedies_for(symptom_list, tried=()):
    """Remedy names to apply, in first-seen order. Each symptom's remedies are
    alternatives: the first one not yet tried is taken, unless another symptom already
    took one of its alternatives. Call again with the remedies already tried to get the
    next alternatives for the symptoms that persist."""
    picked = []
    for s in symptom_list:
        if any(r in picked for r in s["remedies"]):
            continue
        for r in s["remedies"]:
            if r not in tried:
                picked.append(r)
                break
    return picked
