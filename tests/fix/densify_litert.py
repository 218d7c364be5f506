"""densify_const against LiteRT itself: sparse constants encoded by LiteRT's own
FormatConverter (CSR in several traversal orders, 2x2 and 1x4 blocks, ranks 1-4,
float32 / int8 / float16 values, Uint8 / Uint16 / Int32 index vectors), behind a
DENSIFY. For each model `gpuclean fix` must replace the DENSIFY by a dense constant,
and LiteRT's interpreter must give byte-identical outputs on the original (its DENSIFY
kernel decodes the sparsity at run time) and on the fixed model. A FULLY_CONNECTED that
reads 1x4-block sparse weights directly is left alone (a dense FULLY_CONNECTED sums in
another order: not bit-exact).

    .venv/bin/python tests/fix/densify_litert.py build/gpuclean [WORKDIR]

Prints one line per case and "N passed, N failed"; exit 1 on any failure.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from ai_edge_litert import schema_py_generated as S
from ai_edge_litert.tools import flatbuffer_utils as fb
from ai_edge_litert.interpreter import Interpreter
import ai_edge_litert.format_converter_wrapper_pybind11 as fc

DENSE, CSR = fc.TfLiteDimensionType.TF_LITE_DIM_DENSE, fc.TfLiteDimensionType.TF_LITE_DIM_SPARSE_CSR
VEC = {1: S.Int32VectorT, 2: S.Uint16VectorT, 3: S.Uint8VectorT}
NPT = {1: np.int32, 2: np.uint16, 3: np.uint8}
TT = {np.float32: S.TensorType.FLOAT32, np.int8: S.TensorType.INT8, np.float16: S.TensorType.FLOAT16}


def sparsity(shape, w, traversal, formats, block, block_map, kind):
    """LiteRT's encoder on float values (the index structure only depends on which
    entries are zero, so int8 / float16 values reuse it)."""
    c = fc.FormatConverterFp32(list(shape), traversal, formats, block, block_map)
    c.DenseToSparse(w.astype(np.float32).ravel())
    meta = c.GetDimMetadata()
    sp = S.SparsityParametersT()
    sp.traversalOrder = list(traversal)
    sp.blockMap = list(block_map)
    sp.dimMetadata = []
    for lvl in range(len(traversal)):
        d = S.DimensionMetadataT()
        if len(meta[2 * lvl]) == 1 and not meta[2 * lvl + 1]:
            d.format = S.DimensionType.DENSE
            d.denseSize = meta[2 * lvl][0]
        else:
            d.format = S.DimensionType.SPARSE_CSR
            for attr, vals in (("arraySegments", meta[2 * lvl]), ("arrayIndices", meta[2 * lvl + 1])):
                v = VEC[kind]()
                v.values = np.asarray(vals, NPT[kind])
                setattr(d, attr, v)
            d.arraySegmentsType = kind
            d.arrayIndicesType = kind
        sp.dimMetadata.append(d)
    return np.asarray(c.GetData(), np.float32), sp


def tensor(m, name, shape, ttype, data=None, sp=None):
    b = S.BufferT()
    if data is not None:
        b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
    m.buffers.append(b)
    t = S.TensorT()
    t.name, t.shape, t.type, t.buffer = name, list(shape), ttype, len(m.buffers) - 1
    t.sparsity = sp
    m.subgraphs[0].tensors.append(t)
    return len(m.subgraphs[0].tensors) - 1


def opcode(m, code, version=1):
    for i, oc in enumerate(m.operatorCodes):
        if oc.builtinCode == code and oc.version == version:
            return i
    oc = S.OperatorCodeT()
    oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = code, min(code, 127), version
    m.operatorCodes.append(oc)
    return len(m.operatorCodes) - 1


def op(m, code, ins, outs, version=1, opt_type=None, opt=None):
    o = S.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = opcode(m, code, version), list(ins), list(outs)
    if opt_type is not None:
        o.builtinOptionsType, o.builtinOptions = opt_type, opt
    m.subgraphs[0].operators.append(o)


def new_model():
    m = S.ModelT()
    m.version = 3
    m.buffers = [S.BufferT()]
    m.operatorCodes = []
    sg = S.SubGraphT()
    sg.tensors, sg.operators, sg.name = [], [], "main"
    m.subgraphs = [sg]
    return m


def pruned(rng, shape, frac, block=None):
    w = rng.standard_normal(shape).astype(np.float32)
    if block is None:
        w[rng.random(shape) < frac] = 0
        return w
    bh, bw = block
    v = w.reshape(-1, shape[-1])
    keep = rng.random((v.shape[0] // bh, v.shape[1] // bw)) >= frac
    return (v * np.repeat(np.repeat(keep, bh, 0), bw, 1)).reshape(shape)


def densify_model(rng, shape, traversal, formats, block, block_map, kind, vtype=np.float32, frac=0.6, bl=None):
    """x + DENSIFY(w) (-> DEQUANTIZE for float16 values); int8: CAST-free, output the
    dense int8 tensor itself through an ADD with an int8 input."""
    w = pruned(rng, shape, frac, bl)
    vals, sp = sparsity(shape, w, traversal, formats, block, block_map, kind)
    m = new_model()
    sg = m.subgraphs[0]
    if vtype == np.int8:
        stored = np.clip(np.round(vals * 40), -127, 127).astype(np.int8)
        q = S.QuantizationParametersT()
        q.scale, q.zeroPoint = [0.025], [0]
    else:
        stored = vals.astype(vtype)
        q = None
    ws = tensor(m, "w_sparse", shape, TT[vtype], stored, sp)
    wd = tensor(m, "w_dense", shape, TT[vtype])
    if q is not None:
        sg.tensors[ws].quantization = q
        sg.tensors[wd].quantization = q
    op(m, S.BuiltinOperator.DENSIFY, [ws], [wd])
    src = wd
    if vtype == np.float16:
        wf = tensor(m, "w_float", shape, S.TensorType.FLOAT32)
        op(m, S.BuiltinOperator.DEQUANTIZE, [wd], [wf], version=3)
        src = wf
    if vtype == np.int8:
        wf = tensor(m, "w_float", shape, S.TensorType.FLOAT32)
        op(m, S.BuiltinOperator.DEQUANTIZE, [wd], [wf], version=2)
        src = wf
    x = tensor(m, "x", shape, S.TensorType.FLOAT32)
    y = tensor(m, "y", shape, S.TensorType.FLOAT32)
    op(m, S.BuiltinOperator.ADD, [x, src], [y], opt_type=S.BuiltinOptions.AddOptions, opt=S.AddOptionsT())
    sg.inputs, sg.outputs = [x], [y]
    return m


def sparse_fc_model(rng):
    """FULLY_CONNECTED reading 1x4-block sparse weights directly (LiteRT's sparse FC)."""
    shape = (8, 16)
    w = pruned(rng, shape, 0.6, (1, 4))
    vals, sp = sparsity(shape, w, [0, 1, 2], [DENSE, CSR, DENSE], [4], [1], 2)
    m = new_model()
    sg = m.subgraphs[0]
    ws = tensor(m, "w_sparse", shape, S.TensorType.FLOAT32, vals, sp)
    bias = tensor(m, "b", (8,), S.TensorType.FLOAT32, rng.standard_normal(8).astype(np.float32))
    x = tensor(m, "x", (2, 16), S.TensorType.FLOAT32)
    y = tensor(m, "y", (2, 8), S.TensorType.FLOAT32)
    o = S.FullyConnectedOptionsT()
    op(m, S.BuiltinOperator.FULLY_CONNECTED, [x, ws, bias], [y], version=8,
       opt_type=S.BuiltinOptions.FullyConnectedOptions, opt=o)
    sg.inputs, sg.outputs = [x], [y]
    return m


def run_litert(path, x):
    it = Interpreter(model_path=path)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).copy()


def ops_of(path):
    m = fb.read_model(path)
    return [fb.get_builtin_code_from_operator_code(m.operatorCodes[o.opcodeIndex]) for o in m.subgraphs[0].operators]


def main():
    gc = sys.argv[1] if len(sys.argv) > 1 else "build/gpuclean"
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="gc_densify_")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(5)
    cases = [
        ("csr_rows_u8", lambda: densify_model(rng, (6, 10), [0, 1], [DENSE, CSR], [], [], 3)),
        ("csr_cols_u16", lambda: densify_model(rng, (6, 10), [1, 0], [DENSE, CSR], [], [], 2)),
        ("csr_both_i32", lambda: densify_model(rng, (6, 10), [0, 1], [CSR, CSR], [], [], 1, frac=0.8)),
        ("block2x2", lambda: densify_model(rng, (8, 8), [0, 1, 2, 3], [DENSE, CSR], [2, 2], [0, 1], 3, bl=(2, 2))),
        ("block1x4", lambda: densify_model(rng, (4, 16), [0, 1, 2], [DENSE, CSR], [4], [1], 2, bl=(1, 4))),
        ("rank1", lambda: densify_model(rng, (20,), [0], [CSR], [], [], 3)),
        ("rank3", lambda: densify_model(rng, (3, 4, 5), [2, 0, 1], [DENSE, CSR, CSR], [], [], 3)),
        ("rank4", lambda: densify_model(rng, (2, 3, 4, 5), [3, 0, 1, 2], [DENSE, DENSE, CSR, CSR], [], [], 1)),
        ("fp16_values", lambda: densify_model(rng, (8, 8), [0, 1, 2, 3], [DENSE, CSR], [2, 2], [0, 1], 3,
                                              vtype=np.float16, bl=(2, 2))),
        ("int8_values", lambda: densify_model(rng, (6, 10), [0, 1], [DENSE, CSR], [], [], 3, vtype=np.int8)),
        ("mostly_zero", lambda: densify_model(rng, (8, 8), [0, 1], [CSR, CSR], [], [], 3, frac=0.93)),
    ]
    passed = failed = 0
    for name, make in cases:
        src, dst = os.path.join(work, name + ".tflite"), os.path.join(work, name + ".fixed.tflite")
        fb.write_model(make(), src)
        p = subprocess.run([gc, "fix", src, "-o", dst, "--only", "densify_const,const_fold", "--force",
                            "densify_const", "--no-verify"], capture_output=True, text=True)
        why = []
        if not os.path.exists(dst):
            why.append(f"gpuclean fix wrote nothing (exit {p.returncode}): {p.stderr.strip()[:200]}")
        else:
            left = ops_of(dst)
            if S.BuiltinOperator.DENSIFY in left:
                why.append("DENSIFY left: " + p.stdout.replace("\n", " | ")[:300])
            m = fb.read_model(dst)
            if any(t.sparsity is not None for t in m.subgraphs[0].tensors
                   if any(t is m.subgraphs[0].tensors[i] for o in m.subgraphs[0].operators for i in o.inputs)):
                why.append("a sparse tensor is still read")
            shape = [int(s) for s in Interpreter(model_path=src).get_input_details()[0]["shape"]]
            x = rng.standard_normal(shape).astype(np.float32)
            a, b = run_litert(src, x), run_litert(dst, x)
            if a.shape != b.shape or a.tobytes() != b.tobytes():
                why.append(f"LiteRT outputs differ: max |diff| {np.max(np.abs(a - b)) if a.shape == b.shape else 'shape'}")
        if why:
            failed += 1
            print(f"FAIL {name}: " + "; ".join(why))
        else:
            passed += 1
            print(f"ok   {name}")
    # the sparse FULLY_CONNECTED stays as it is
    src = os.path.join(work, "fc_sparse_1x4.tflite")
    fb.write_model(sparse_fc_model(rng), src)
    p = subprocess.run([gc, "fix", src, "-o", src + ".fixed", "--force", "all", "--no-verify"], capture_output=True,
                       text=True)
    if "densify_const [fix.densify]" in p.stdout:
        failed += 1
        print("FAIL fc_sparse_1x4: the sparse FULLY_CONNECTED was rewritten")
    else:
        passed += 1
        print("ok   fc_sparse_1x4 (left alone)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
