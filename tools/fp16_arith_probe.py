#!/usr/bin/env python3
"""Bit-level probes of the GPU's fp16 arithmetic (issue 10 item 5: model what ML Drift does).

Small litert-torch models (FULLY_CONNECTED with K = 4 / 8 / 64, 1x1 and 3x3 CONV_2D with 3, 4
and 32 input channels, a runtime BATCH_MATMUL) fed inputs and weights that are exact halves, so
the GPU's fp16 output (stored as half, read back as float) can be compared bit for bit with each
hypothesis of how the kernel sums: every product rounded then every sum rounded (separate), a
fused multiply-add chain in half (one rounding per step), the exact 4-term dot rounded once, a
float accumulator, a half accumulator.

    .venv/bin/python tools/fp16_arith_probe.py build OUT_DIR
        OUT_DIR/<name>.tflite and OUT_DIR/inputs/<name>/input_<k>.npy
    runtime/litert/pack.sh --dest $PWD/.device-arith OUT_DIR/*.tflite
    cp -r OUT_DIR/inputs .device-arith/        # then, on the GPU machine:
    OUT=$OUT KEEP_NPY=1 JOBS=4 TEXT=0 RUNS=1 RUNTIMES=both bash runtime/litert/device.sh .device-arith
    .venv/bin/python tools/fp16_arith_probe.py analyze OUT_DIR DEVICE_OUT[,DEVICE_OUT...] [ROWS.jsonl]
        per model, runtime and hypothesis: the share of output elements whose bits match
        (DEVICE_OUT/npy.tar.xz holds every mode's output_<k>.npy); ROWS.jsonl keeps them all
    (build OUT_DIR PREFIX builds only the probes named PREFIX...: arith_ (round 1),
    arith2_, arith3_)
"""
import io, json, os, sys, tarfile
import numpy as np


def half(a):
    return np.asarray(a, np.float64).astype(np.float16).astype(np.float64)


def rng_half(rs, shape, lo, hi):
    return half(rs.uniform(lo, hi, size=shape)).astype(np.float32)


# ---- the probe models ------------------------------------------------------------------------
# name -> (kind, params); weights drawn from seed 1, inputs from seed 2 (exact halves)
PROBES = {
    "arith_fc_k4":    ("fc", dict(M=256, K=4, N=64, bias=False)),
    "arith_fc_k4b":   ("fc", dict(M=256, K=4, N=64, bias=True)),
    "arith_fc_k8":    ("fc", dict(M=256, K=8, N=64, bias=False)),
    "arith_fc_k64":   ("fc", dict(M=64, K=64, N=64, bias=False)),
    "arith_conv1_c4":  ("conv", dict(C=4, O=32, k=1, H=16)),
    "arith_conv1_c32": ("conv", dict(C=32, O=32, k=1, H=16)),
    "arith_conv3_c3":  ("conv", dict(C=3, O=16, k=3, H=16)),
    "arith_bmm_k8":   ("bmm", dict(M=64, K=8, N=32)),
    # round 2 (larger K): random, and "structured" = every column n holds +2048 at k = j,
    # -2048 at k = j' (one pair (j, j') per column, all pairs) and 0.5 elsewhere, times rows of
    # ones: exactly 0.5 (K - 2), and every 0.5 added to a partial sum holding one 2048 but not
    # the other is lost in half, so the output counts the products summed apart from the pair
    "arith2_fc_k16_s":  ("fcs", dict(M=64, K=16)),
    "arith2_fc_k32_s":  ("fcs", dict(M=64, K=32)),
    "arith2_fc_k64_s":  ("fcs", dict(M=64, K=64)),
    "arith2_fc_k128_s": ("fcs", dict(M=64, K=128)),
    "arith2_fc_k16":    ("fc", dict(M=64, K=16, N=120, bias=False)),
    "arith2_fc_k32":    ("fc", dict(M=64, K=32, N=496, bias=False)),
    "arith2_fc_k64":    ("fc", dict(M=64, K=64, N=2016, bias=False)),
    "arith2_fc_k128":   ("fc", dict(M=64, K=128, N=512, bias=False)),
    "arith2_fc_k64_m256": ("fc", dict(M=256, K=64, N=64, bias=False)),
    "arith2_fc_k512":   ("fc", dict(M=64, K=512, N=64, bias=False)),
    "arith2_bmm_k64_s": ("bmms", dict(M=64, K=64)),
    "arith2_bmm_k64":   ("bmm", dict(M=64, K=64, N=2016)),
    # round 3: which shapes take which kernel (K alignment, M, N), BATCH_MATMUL, wider convs
    "arith3_fc_k24":    ("fc", dict(M=64, K=24, N=64, bias=False)),
    "arith3_fc_k32":    ("fc", dict(M=64, K=32, N=64, bias=False)),
    "arith3_fc_k48":    ("fc", dict(M=64, K=48, N=64, bias=False)),
    "arith3_fc_k80":    ("fc", dict(M=64, K=80, N=64, bias=False)),
    "arith3_fc_k100":   ("fc", dict(M=64, K=100, N=64, bias=False)),
    "arith3_fc_k197":   ("fc", dict(M=64, K=197, N=64, bias=False)),
    "arith3_fc_k256":   ("fc", dict(M=64, K=256, N=64, bias=False)),
    "arith3_fc_k64_n120": ("fc", dict(M=64, K=64, N=120, bias=False)),
    "arith3_fc_k64_n20":  ("fc", dict(M=64, K=64, N=20, bias=False)),
    "arith3_fc_k64_m1":   ("fc", dict(M=1, K=64, N=64, bias=False)),
    "arith3_fc_k64_m7":   ("fc", dict(M=7, K=64, N=64, bias=False)),
    "arith3_fc_k64_m197": ("fc", dict(M=197, K=64, N=64, bias=False)),
    "arith3_fc_k16_n64":  ("fc", dict(M=64, K=16, N=64, bias=False)),
    "arith3_fc_k64_b":    ("fc", dict(M=64, K=64, N=64, bias=True)),
    "arith3_bmm_k32":   ("bmm", dict(M=64, K=32, N=64)),
    "arith3_bmm_k197":  ("bmm", dict(M=64, K=197, N=64)),
    "arith3_bmm_k64_m197": ("bmm", dict(M=197, K=64, N=197)),
    "arith3_bmm_k16":   ("bmm", dict(M=64, K=16, N=64)),
    "arith3_conv1_c64":  ("conv", dict(C=64, O=64, k=1, H=16)),
    "arith3_conv1_c16":  ("conv", dict(C=16, O=32, k=1, H=16)),
    "arith3_conv3_c64":  ("conv", dict(C=64, O=64, k=3, H=8)),
    "arith3_conv3_c16":  ("conv", dict(C=16, O=16, k=3, H=16)),
    "arith3_conv1_c128": ("conv", dict(C=128, O=128, k=1, H=8)),
}


def pairs_weights(K):
    """[N = K (K - 1) / 2, K]: column n = the n-th pair j < j' (+2048 at j, -2048 at j')"""
    pr = [(j, jj) for j in range(K) for jj in range(j + 1, K)]
    w = np.full((len(pr), K), 0.5, np.float32)
    for n, (j, jj) in enumerate(pr):
        w[n, j], w[n, jj] = 2048.0, -2048.0
    return w, pr


def probe_arrays(kind, p):
    rs_w, rs_x = np.random.RandomState(1), np.random.RandomState(2)
    if kind == "fc":
        w = rng_half(rs_w, (p["N"], p["K"]), -1, 1)
        b = rng_half(rs_w, (p["N"],), -1, 1) if p["bias"] else None
        x = rng_half(rs_x, (p["M"], p["K"]), -2, 2)
        return dict(w=w, b=b, inputs=[x])
    if kind == "fcs":
        w, _ = pairs_weights(p["K"])
        return dict(w=w, b=None, inputs=[np.ones((p["M"], p["K"]), np.float32)])
    if kind == "bmms":
        w, _ = pairs_weights(p["K"])
        return dict(w=None, b=None, inputs=[np.ones((1, p["M"], p["K"]), np.float32), np.ascontiguousarray(w.T[None])])
    if kind == "conv":
        w = rng_half(rs_w, (p["O"], p["C"], p["k"], p["k"]), -1, 1)
        x = rng_half(rs_x, (1, p["C"], p["H"], p["H"]), -2, 2)
        return dict(w=w, b=None, inputs=[x])
    a = rng_half(rs_x, (1, p["M"], p["K"]), -2, 2)
    c = rng_half(rs_x, (1, p["K"], p["N"]), -1, 1)
    return dict(w=None, b=None, inputs=[a, c])


def build(out, only=None):
    import torch, litert_torch
    os.makedirs(out, exist_ok=True)
    for name, (kind, p) in PROBES.items():
        arr = probe_arrays(kind, p)
        if only and not name.startswith(only):
            continue
        if kind in ("fc", "fcs"):
            p = dict(p, N=arr["w"].shape[0], bias=p.get("bias", False))
            m = torch.nn.Linear(p["K"], p["N"], bias=p["bias"])
            with torch.no_grad():
                m.weight.copy_(torch.from_numpy(arr["w"]))
                if p["bias"]: m.bias.copy_(torch.from_numpy(arr["b"]))
        elif kind == "conv":
            m = torch.nn.Conv2d(p["C"], p["O"], p["k"], padding=p["k"] // 2, bias=False)
            with torch.no_grad(): m.weight.copy_(torch.from_numpy(arr["w"]))
        else:
            class B(torch.nn.Module):
                def forward(self, a, c): return torch.matmul(a, c)
            m = B()
        ins = tuple(torch.from_numpy(a) for a in arr["inputs"])
        litert_torch.convert(m.eval(), ins).export(os.path.join(out, name + ".tflite"))
        d = os.path.join(out, "inputs", name); os.makedirs(d, exist_ok=True)
        for k, a in enumerate(arr["inputs"]):
            # the .tflite's inputs: NHWC for the conv (litert-torch keeps NCHW at the interface
            # unless it transposes; we store what torch took and check the shape at analysis)
            np.save(os.path.join(d, "input_%d.npy" % k), a)
        print(name)


# ---- the hypotheses ------------------------------------------------------------------------
def dot_terms(x, w):
    """x [M, K], w [N, K] -> products [M, N, K] (exact in float64: halves' products)"""
    return x[:, None, :].astype(np.float64) * w[None, :, :].astype(np.float64)


def slice_sum(pr, how, order):
    """pr [..., 4] products of one slice -> the slice's half value by `how`"""
    idx = list(order)
    if how == "dot":
        return half(pr.sum(-1))
    p = half(pr[..., idx[0]])
    for i in idx[1:]:
        p = half(p + pr[..., i]) if how == "fma" else half(p + half(pr[..., i]))
    return p


def fc_hyp(pr, how, order, acc, bias=None):
    """pr [M, N, K]: 4-product slices by `how`, slice sums in float32 (acc 'f32') or half"""
    M, N, K = pr.shape
    K4 = (K + 3) // 4 * 4
    if K4 != K:
        pr = np.concatenate([pr, np.zeros((M, N, K4 - K))], -1)
    if how == "float":
        s = pr.astype(np.float32).sum(-1, dtype=np.float32).astype(np.float64)
        if bias is not None: s = (s.astype(np.float32) + bias.astype(np.float32)).astype(np.float64)
        return half(s)
    a = np.zeros((M, N), np.float32 if acc == "f32" else np.float64)
    for s0 in range(0, K4, 4):
        v = slice_sum(pr[..., s0:s0 + 4], how, order)
        a = (a + v.astype(np.float32)) if acc == "f32" else half(a + v)
    a = a.astype(np.float64)
    if bias is not None: a = (a.astype(np.float32) + bias.astype(np.float32)).astype(np.float64)
    return half(a)


def hypotheses_fc(x, w, b):
    pr = dot_terms(x, w)
    out = {}
    for how in ("sep", "fma", "dot"):
        for order in ("0123", "3210"):
            if how == "dot" and order != "0123": continue
            for acc in ("f32", "f16"):
                out["%s_%s_%s" % (how, order, acc)] = fc_hyp(pr, how, [int(c) for c in order], acc, b)
    out["float"] = fc_hyp(pr, "float", None, None, b)
    # the two that the H200 matched bit for bit (docs/measurements/fp16-arith-2026-12-03.md):
    # half2 FMA lanes (k even / odd, one rounding per step, r(A + B)) and matrix-core
    # chunks of 16 (exact chunk sums into a half accumulator)
    M, N, K = pr.shape
    A, B = np.zeros((M, N)), np.zeros((M, N))
    for k in range(K):
        if k % 2 == 0: A = half(pr[..., k] + A)
        else: B = half(pr[..., k] + B)
    v = half(A + B)
    out["h2fma"] = half(v + b) if b is not None else v
    acc = np.zeros((M, N))
    for k0 in range(0, K, 16):
        acc = half(acc + pr[..., k0:k0 + 16].sum(-1))
    out["k16h"] = half(acc + b) if b is not None else acc
    # a plain half chain over k (every multiply-add in half), separate and fused
    for how in ("sep", "fma"):
        p = np.zeros(pr.shape[:2])
        for k in range(pr.shape[2]):
            p = half(p + pr[..., k]) if how == "fma" else half(p + half(pr[..., k]))
        if b is not None: p = half(p + b)
        out["chain_%s" % how] = p
    return out


def im2col_nhwc(x_nchw, k):
    """x [1, C, H, W] -> rows [H*W, C*k*k] in the (c, i, j) order of torch's weight [O, C, k, k]"""
    _, C, H, W = x_nchw.shape
    pad = k // 2
    xp = np.pad(x_nchw[0], ((0, 0), (pad, pad), (pad, pad)))
    rows = np.zeros((H * W, C, k, k), np.float64)
    for i in range(k):
        for j in range(k):
            rows[:, :, i, j] = xp[:, i:i + H, j:j + W].reshape(C, H * W).T
    return rows


def hypotheses_conv(x, w):
    """the conv as FC over im2col rows, in three tap orders (tflite OHWI: taps (i, j, c))"""
    O, C, k, _ = w.shape
    rows = im2col_nhwc(x, k)                                          # [HW, C, k, k]
    out = {}
    for tag, perm in (("hwc", (0, 2, 3, 1)), ("chw", (0, 1, 2, 3))):
        r = rows.transpose(perm).reshape(rows.shape[0], -1)
        ww = w.astype(np.float64).transpose(perm).reshape(O, -1)
        for kk, v in hypotheses_fc(r, ww, None).items():
            out["%s_%s" % (tag, kk)] = v                              # [HW, O]
    return out


def load_npys(dev):
    """DEVICE_OUT/npy.tar.xz -> {(model, runtime, mode): {k: array}}"""
    res = {}
    with tarfile.open(os.path.join(dev, "npy.tar.xz")) as t:
        for m in t.getmembers():
            parts = m.name.lstrip("./").split("/")
            if not m.isfile() or not parts[-1].startswith("output_"): continue
            if len(parts) < 4: continue
            model, rt, mode = parts[0], parts[1], parts[2]
            a = np.load(io.BytesIO(t.extractfile(m).read()))
            res.setdefault((model, rt, mode), {})[int(parts[-1][7:-4])] = a
    return res


def analyze(probe_dir, devs):
    outs = {}
    for dev in devs.split(","):
        outs.update(load_npys(dev))
    report = []
    for name, (kind, p) in PROBES.items():
        arr = probe_arrays(kind, p)
        if kind in ("fc", "fcs"):
            hyp = hypotheses_fc(arr["inputs"][0], arr["w"], arr["b"])
        elif kind == "conv":
            hyp = hypotheses_conv(arr["inputs"][0], arr["w"])
        else:                                                          # bmm, bmms
            a, c = arr["inputs"]
            hyp = hypotheses_fc(a[0], c[0].T, None)
        for (model, rt, mode), o in sorted(outs.items()):
            if model != name or 0 not in o: continue
            g = o[0].astype(np.float64)
            for hname, h in hyp.items():
                hh = h
                if kind == "conv":                                    # [HW, O] -> the output's layout
                    H = p["H"]
                    hh = h.reshape(H, H, p["O"]).transpose(2, 0, 1)   # NCHW: torch's interface
                if hh.size != g.size:
                    continue
                hh = hh.reshape(g.shape)
                same = float(np.mean(hh == g))
                err = float(np.max(np.abs(hh - g)))
                report.append(dict(model=name, runtime=rt, mode=mode, hypothesis=hname, match=same, max_abs=err))
    best = {}
    for r in report:
        key = (r["model"], r["runtime"], r["mode"])
        best.setdefault(key, []).append(r)
    for key, rows in sorted(best.items()):
        rows.sort(key=lambda r: -r["match"])
        print("%-18s %-7s %-9s " % key + "  ".join("%s %.4f" % (r["hypothesis"], r["match"]) for r in rows[:5]))
    return report


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif len(sys.argv) >= 4 and sys.argv[1] == "analyze":
        rep = analyze(sys.argv[2], sys.argv[3])
        if len(sys.argv) >= 5:
            with open(sys.argv[4], "w") as f:
                for r in rep: f.write(json.dumps(r) + "\n")
    else:
        sys.exit(__doc__)
