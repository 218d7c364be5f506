"""Integer LSTM and SVDF against LiteRT's kernels, step by step with state.

Builds one-op models (random weights, seeded) for the variants of the integer
UNIDIRECTIONAL_SEQUENCE_LSTM (plain, CIFG, layer norm, projection + clips, peephole,
batch-major with batch 3) and of SVDF (float, int8, hybrid symmetric / asymmetric), writes
them to OUT (default: a temporary folder), and feeds each the same random inputs for
STEPS invokes on gpuclean's interpreter (python/gpuclean, libgpuclean.so) and on
ai-edge-litert's Interpreter (TFLite's builtin kernels, no delegates; these ops have no
XNNPACK path). Integer outputs must be bit-identical at every step; float outputs within
1e-5 * max(1, max|ref|). Also the corpus models with such state (dtln: two int8 LSTMs,
keyword_scrambled: int8 SVDFs) with every LSTM / SVDF output exposed (gpuclean edit
--add-output), when ../shared/corpus is present.

    .venv/bin/python tests/interp/lstm_svdf_litert.py [OUT] [--steps N]
Exit 0 when everything matches, 1 otherwise, 77 when ai-edge-litert is absent."""
import os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
try:
    from ai_edge_litert import interpreter as I
    from ai_edge_litert import schema_py_generated as S
    from ai_edge_litert.tools import flatbuffer_utils as fb
except ImportError:
    print("skip: ai-edge-litert not installed")
    sys.exit(77)
from gpuclean import core

T = S.TensorType


class Builder:
    def __init__(self):
        self.m = S.ModelT(); self.m.version = 3
        self.m.buffers = [S.BufferT()]
        self.g = S.SubGraphT(); self.g.tensors = []; self.g.operators = []; self.g.inputs = []; self.g.outputs = []
        self.m.subgraphs = [self.g]; self.m.operatorCodes = []

    def tensor(self, shape, ttype, data=None, scale=None, zp=0, variable=False, name=None):
        t = S.TensorT(); t.shape = list(shape); t.type = ttype; t.isVariable = variable
        t.name = name or f"t{len(self.g.tensors)}"
        if scale is not None:
            q = S.QuantizationParametersT(); q.scale = [float(scale)]; q.zeroPoint = [int(zp)]; t.quantization = q
        if data is not None:
            b = S.BufferT(); b.data = np.ascontiguousarray(data).tobytes(); self.m.buffers.append(b)
            t.buffer = len(self.m.buffers) - 1
        else:
            t.buffer = 0
        self.g.tensors.append(t)
        return len(self.g.tensors) - 1

    def op(self, code, ins, outs, opt_type, opt, intermediates=None):
        oc = S.OperatorCodeT(); oc.builtinCode = code; oc.deprecatedBuiltinCode = min(code, 127); oc.version = 1
        self.m.operatorCodes.append(oc)
        o = S.OperatorT(); o.opcodeIndex = len(self.m.operatorCodes) - 1; o.inputs = ins; o.outputs = outs
        o.builtinOptionsType = opt_type; o.builtinOptions = opt
        if intermediates is not None: o.intermediates = intermediates
        self.g.operators.append(o)

    def save(self, path, ins, outs):
        self.g.inputs = ins; self.g.outputs = outs
        fb.write_model(self.m, path)


def int8_lstm(path, rng, B=2, Tm=4, I_=5, C=8, O=8, cifg=False, ln=False, proj=False, peep=False, time_major=True,
              cell_clip=0.0, proj_clip=0.0):
    b = Builder()
    xs, xz = 0.05, 3
    x = b.tensor([Tm, B, I_] if time_major else [B, Tm, I_], T.INT8, scale=xs, zp=xz)
    w8 = lambda r, c: rng.integers(-127, 128, (r, c), dtype=np.int8)
    ins = [x]
    gates = range(4)
    W = [None if (g == 0 and cifg) else b.tensor([C, I_], T.INT8, w8(C, I_), scale=0.01 + 0.004 * g) for g in gates]
    R = [None if (g == 0 and cifg) else b.tensor([C, O], T.INT8, w8(C, O), scale=0.008 + 0.003 * g) for g in gates]
    P = [None if (not peep or g == 2 or (g == 0 and cifg)) else
         b.tensor([C], T.INT16, rng.integers(-20000, 20000, C, dtype=np.int16), scale=1e-4) for g in gates]
    Bi = [None if (g == 0 and cifg) else b.tensor([C], T.INT32, rng.integers(-4000, 4000, C, dtype=np.int32),
                                                   scale=1e-5) for g in gates]
    pw = b.tensor([O, C], T.INT8, w8(O, C), scale=0.01) if proj else None
    pb = b.tensor([O], T.INT32, rng.integers(-500, 500, O, dtype=np.int32), scale=1e-5) if proj else None
    hs, hz = 0.02, -3
    h = b.tensor([B, O], T.INT8, scale=hs, zp=hz, variable=True)
    c = b.tensor([B, C], T.INT16, scale=2.0 ** -11, variable=True)
    LN = [None if (not ln or (g == 0 and cifg)) else
          b.tensor([C], T.INT16, rng.integers(8000, 30000, C, dtype=np.int16), scale=3e-5) for g in gates]
    m1 = lambda v: -1 if v is None else v
    ins = [x] + [m1(v) for v in W] + [m1(v) for v in R] + [m1(P[0]), m1(P[1]), m1(P[3])] + [m1(v) for v in Bi] + \
          [m1(pw), m1(pb), h, c] + [m1(v) for v in LN]
    inter = [b.tensor([0], T.INT16, scale=(0.0007 + 0.0001 * g) if ln else None, zp=0) for g in range(4)]
    inter.append(b.tensor([0], T.INT8, scale=0.007, zp=-2))
    y = b.tensor([Tm, B, O] if time_major else [B, Tm, O], T.INT8, scale=hs, zp=hz)
    opt = S.UnidirectionalSequenceLSTMOptionsT(); opt.fusedActivationFunction = S.ActivationFunctionType.TANH
    opt.cellClip = cell_clip; opt.projClip = proj_clip; opt.timeMajor = time_major
    b.op(S.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM, ins, [y], S.BuiltinOptions.UnidirectionalSequenceLSTMOptions,
         opt, inter)
    b.save(path, [x], [y])


def svdf(path, rng, kind, B=2, I_=6, U=3, R=2, M=4, asym=False):
    b = Builder(); F = U * R
    if kind == "int8":
        x = b.tensor([B, I_], T.INT8, scale=0.04, zp=-5)
        wf = b.tensor([F, I_], T.INT8, rng.integers(-127, 128, (F, I_), dtype=np.int8), scale=0.01)
        wt = b.tensor([F, M], T.INT16, rng.integers(-30000, 30000, (F, M), dtype=np.int16), scale=3e-5)
        bias = b.tensor([U], T.INT32, rng.integers(-3000, 3000, U, dtype=np.int32), scale=1e-6)
        st = b.tensor([B, F * M], T.INT16, scale=2e-4, variable=True)
        y = b.tensor([B, U], T.INT8, scale=0.03, zp=4)
        act = S.ActivationFunctionType.RELU
    else:
        x = b.tensor([B, I_], T.FLOAT32)
        if kind == "float":
            wf = b.tensor([F, I_], T.FLOAT32, rng.standard_normal((F, I_)).astype(np.float32))
            wt = b.tensor([F, M], T.FLOAT32, rng.standard_normal((F, M)).astype(np.float32))
        else:
            wf = b.tensor([F, I_], T.INT8, rng.integers(-127, 128, (F, I_), dtype=np.int8), scale=0.02)
            wt = b.tensor([F, M], T.INT8, rng.integers(-127, 128, (F, M), dtype=np.int8), scale=0.03)
        bias = b.tensor([U], T.FLOAT32, rng.standard_normal(U).astype(np.float32))
        st = b.tensor([B, F * M], T.FLOAT32, variable=True)
        y = b.tensor([B, U], T.FLOAT32)
        act = S.ActivationFunctionType.RELU if kind == "float" else S.ActivationFunctionType.NONE
    opt = S.SVDFOptionsT(); opt.rank = R; opt.fusedActivationFunction = act; opt.asymmetricQuantizeInputs = asym
    b.op(S.BuiltinOperator.SVDF, [x, wf, wt, bias, st], [y], S.BuiltinOptions.SVDFOptions, opt)
    b.save(path, [x], [y])


def feed(shape, dtype, rng):
    if dtype in (np.int8, np.int16):
        lim = np.iinfo(dtype)
        return rng.integers(lim.min, lim.max + 1, shape, dtype=dtype)
    return rng.standard_normal(shape).astype(np.float32)


def compare(path, steps, seed, label, strict_from=0):
    """outputs from strict_from on must match; earlier ones (a corpus model's own outputs,
    through other ops) are reported only"""
    rng = np.random.default_rng(seed)
    ref = I.Interpreter(model_path=path, experimental_op_resolver_type=I.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    ref.allocate_tensors()
    ours = core.Model(path).interpreter()
    ins = ref.get_input_details(); outs = ref.get_output_details()
    worst, notes = "", {}
    for s in range(steps):
        xs = [feed(d["shape"], d["dtype"], rng) for d in ins]
        for d, x in zip(ins, xs): ref.set_tensor(d["index"], x)
        ref.invoke()
        got = ours(*xs)
        for k, d in enumerate(outs):
            r, g = ref.get_tensor(d["index"]), got[k]
            if r.dtype != np.float32:
                diff = int(np.abs(r.astype(np.int64) - g.astype(np.int64)).max())
                if diff and k < strict_from:
                    notes[k] = max(notes.get(k, 0), diff)
                elif diff:
                    return f"FAIL {label}: step {s} output {k} ('{d['name']}'): max {diff} steps, " \
                           f"{int((r != g).sum())}/{r.size} differ"
            else:
                tol = 1e-5 * max(1.0, float(np.abs(r).max()))
                diff = float(np.abs(r - g).max())
                if not diff <= tol:
                    return f"FAIL {label}: step {s} output {k}: max |diff| {diff:.3g} > {tol:.3g}"
                worst = f", float max |diff| {diff:.2g}"
    note = "".join(f"; output {k} (not an LSTM/SVDF output) differs by up to {v} steps" for k, v in notes.items())
    what = f"within 1e-5 relative{worst}" if worst else "bit-identical"
    return f"ok   {label}: {steps} steps, {len(outs) - strict_from} output(s) {what}{note}"


def corpus_case(name, ops, out_dir, steps):
    src = os.path.join(ROOT, "..", "shared", "corpus", name + ".tflite")
    if not os.path.exists(src):
        return f"skip {name}: ../shared/corpus not found"
    # expose each stateful op's output
    m = fb.read_model(src)
    g = m.subgraphs[0]
    extra = [str(o.outputs[0]) for o in g.operators if m.operatorCodes[o.opcodeIndex].builtinCode in ops]
    dst = os.path.join(out_dir, name + ".exposed.tflite")
    cmd = [os.path.join(ROOT, "build", "gpuclean"), "edit", src, "-o", dst]
    for t in extra: cmd += ["--add-output", t]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return f"FAIL {name}: gpuclean edit: {p.stderr.strip()}"
    return compare(dst, steps, 7, f"{name} ({len(extra)} exposed)", strict_from=len(g.outputs))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    steps = 6
    if "--steps" in sys.argv: steps = int(sys.argv[sys.argv.index("--steps") + 1])
    out = args[0] if args else tempfile.mkdtemp(prefix="gc-lstm-")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(11)
    cases = [("lstm_int8", {}), ("lstm_int8_cifg", dict(cifg=True)), ("lstm_int8_layernorm", dict(ln=True)),
             ("lstm_int8_cifg_layernorm", dict(cifg=True, ln=True)),
             ("lstm_int8_projection_clips", dict(proj=True, O=6, cell_clip=0.6, proj_clip=0.5)),
             ("lstm_int8_peephole", dict(peep=True)),
             ("lstm_int8_batch_major", dict(time_major=False, B=3, ln=True, proj=True, O=5))]
    lines = []
    for name, kw in cases:
        p = os.path.join(out, name + ".tflite"); int8_lstm(p, rng, **kw)
        lines.append(compare(p, steps, 1, name))
    for name, kind, kw in [("svdf_float", "float", {}), ("svdf_int8", "int8", {}), ("svdf_hybrid", "hybrid", {}),
                           ("svdf_hybrid_asym", "hybrid", dict(asym=True)), ("svdf_rank1_batch1", "int8", dict(R=1, B=1))]:
        p = os.path.join(out, name + ".tflite"); svdf(p, rng, kind, **kw)
        lines.append(compare(p, steps, 2, name))
    lines.append(corpus_case("dtln_noise_suppression", {S.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM}, out, steps))
    lines.append(corpus_case("keyword_scrambled", {S.BuiltinOperator.SVDF}, out, steps))
    for l in lines: print(l)
    return 1 if any(l.startswith("FAIL") for l in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
