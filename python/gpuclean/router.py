"""Symptom -> rewrite: reads gpuclean's static verdict (check JSON) for the target and
names the remedies of gpuclean.rewrites.REMEDIES that fix what it rejects.

Ops are judged by the checker, nothing else:
  * "checker": nodes gpuclean check rejects for the target (state "rejected"; nodes that
    are only in a CPU partition because of a neighbour are not symptoms), routed by the
    checker's fix id, else by the rule, else by the op;
  * "verify":  a measured GPU-precision failure (the fp16 emulation, or the real GPU,
    below the bar) -> fp16_norms. The checker's fp16 lints alone route nothing: on their
    own they were no evidence (fp16_norms added 11-38% nodes, left every
    fp16.sum_of_squares lint in place and gained nothing measurable).

The seed's table of "GPU-hostile" ops (SELECT/SELECT_V2, SPLIT, GATHER_ND, BROADCAST_TO,
TRANSPOSE_CONV, MIRROR_PAD, PADV2, rank > 4) and the masked-attention pattern are kept
as informational **seed notes** (seed_notes(), hostile_ops()), not failures: the list was
wrong where the checker was right (a BERT with SELECT_V2 for its -inf SDPA masking runs
fully on the H200's GPU with the native libLiteRt 2.3.0 and matches the CPU exactly).
policy="rejected+seed" still turns them into symptoms, for whoever wants the old loop.
"""
from __future__ import annotations

FIX_ID_REMEDIES = {
    "fix.gather_nd": ["gather_nd", "padding_mask"],   # padding_mask: transformers' 2-D padding mask
    "fix.rank5": ["rank5", "repeat_kv"],
    "fix.pad.rank4": ["rank5"],          # rank-2 PADs of torchvision Swin's run-time shift mask
    "fix.broadcast_to.runtime": ["repeat_kv", "expand"],
    "fix.broadcast_to.const": ["expand"],
    "fix.select.arith": ["select"],
    "fix.split.slices": ["chunk"],
    "fix.mirror_pad": ["reflect_pad"],
    "fix.transpose_conv.unfuse_activation": ["conv_transpose"],
    # fp16 lint rules (checker "risks"), for when risks are routed (today only a measured
    # GPU-precision failure is, to fp16_norms): fp16_eps is exact and adds 1 node per norm,
    # fp16_norms the overflow-safe forms. There is no eps-underflow lint yet.
    "fp16.sum_of_squares": ["fp16_eps", "fp16_norms"],
    "fp16.l2norm": ["fp16_norms"],
}
OP_REMEDIES = {
    "GATHER_ND": ["gather_nd", "padding_mask"], "PADV2": ["gather_nd"],
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
    pattern, found in the model (informational: see seed_notes)."""
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


def seed_notes(inspect_json):
    """Informational: the seed's hostile ops, rank > 4 tensors and the masked-attention
    pattern found in the model, as {"source": "seed"|"pattern", "op", "node", "why"}.
    Not failures: the checker's verdict for the target decides."""
    out = []
    for sg in (inspect_json or {}).get("subgraphs", []):
        for op in sg["ops"]:
            if op["op"] in SEED_HOSTILE:
                out.append({"source": "seed", "op": op["op"], "node": op["index"],
                            "why": "in the seed's GPU-hostile table"})
        if any(len(t["shape"]) > 4 for t in sg["tensors"]):
            out.append({"source": "seed", "op": "rank>4", "node": None, "why": "tensor of rank > 4"})
    for i in mask_after_bmm(inspect_json or {}):
        out.append({"source": "pattern", "op": "ADD", "node": i,
                    "why": "scores + mask broadcast over heads after BATCH_MATMUL "
                           "(reported miscomputed by older GPU runtimes)"})
    return out


def checker_symptoms(check_json):
    """Symptoms from the nodes gpuclean check rejects (not those only stranded in a CPU
    partition by a neighbour)."""
    out = []
    for n in (check_json or {}).get("nodes", []):
        if n.get("gpu") or n.get("state") == "cpu_partition":
            continue
        fix = (n.get("fix") or {}).get("id")
        rem = FIX_ID_REMEDIES.get(fix)
        rule = n.get("rule") or ""
        if rem is None and ("rank5" in rule or "rank6" in rule or ".rank" in rule):
            rem = ["rank5", "repeat_kv"]
        if rem is None:
            rem = OP_REMEDIES.get(n["op"], [])
        _add(out, "checker", n["op"], n.get("index"), "%s [%s]" % (n.get("reason", ""), rule), rem)
    return out


def fp16_lints(check_json):
    """{rule: count} of the checker's fp16 risk lints (informational)."""
    out = {}
    for r in (check_json or {}).get("risks", []):
        rule = str(r.get("rule", ""))
        if rule.startswith("fp16."):
            out[rule] = out.get(rule, 0) + 1
    return out


def symptoms(check_json, inspect_json=None, policy="rejected", fp16_failure=None):
    """List of symptoms ({source, op, node, why, remedies}) in the model.

    policy "rejected" (the default): the checker's rejections only; "rejected+seed": also
    the seed notes, each routed to its remedies (the old loop). fp16_failure: a string
    saying how the GPU-precision parity failed (measured), or None; only then is
    fp16_norms proposed."""
    if policy not in ("rejected", "rejected+seed"):
        raise ValueError("policy must be 'rejected' or 'rejected+seed', not %r" % (policy,))
    out = checker_symptoms(check_json)
    if fp16_failure:
        _add(out, "verify", "fp16", None, fp16_failure, ["fp16_norms"])
    if policy == "rejected+seed":
        for n in seed_notes(inspect_json):
            if n["source"] == "pattern":
                rem = ["mask_expand"]
            elif n["op"] == "rank>4":
                rem = ["rank5", "repeat_kv"]
            else:
                rem = OP_REMEDIES[n["op"]]
            _add(out, n["source"], n["op"], n["node"], n["why"], rem)
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
