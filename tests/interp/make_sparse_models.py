"""Sparse test models: float models from make_hybrid_models.py with pruned weights stored
with TFLite sparsity metadata, encoded by LiteRT's own FormatConverter (the converter's
sparsification encoder), behind DENSIFY ops (and one FULLY_CONNECTED that reads its 1x4
block-sparse weights directly, LiteRT's sparse FC kernel).

    .venv/bin/python tests/interp/make_sparse_models.py build/hybrid build/sparse

Writes OUT/<net>_sparse.tflite (float32 values), OUT/<net>_sparse16.tflite (FLOAT16
values -> DENSIFY -> DEQUANTIZE, the converter's fp16 pattern), printing per weight the
format used."""
import os, sys
import numpy as np
from ai_edge_litert import schema_py_generated as S
from ai_edge_litert.tools import flatbuffer_utils as fb
import ai_edge_litert.format_converter_wrapper_pybind11 as fc

DENSE, CSR = fc.TfLiteDimensionType.TF_LITE_DIM_DENSE, fc.TfLiteDimensionType.TF_LITE_DIM_SPARSE_CSR
VEC = {1: S.Int32VectorT, 2: S.Uint16VectorT, 3: S.Uint8VectorT}
NPT = {1: np.int32, 2: np.uint16, 3: np.uint8}


def index_vector(vals, kind):
    v = VEC[kind]()
    v.values = np.asarray(vals, NPT[kind])
    return v


def encode(w, traversal, formats, block, block_map, kind):
    """LiteRT's FormatConverter: dense w -> (values, SparsityParametersT)."""
    c = fc.FormatConverterFp32(list(w.shape), traversal, formats, block, block_map)
    c.DenseToSparse(w.astype(np.float32).ravel())
    vals = np.asarray(c.GetData(), np.float32)
    meta = c.GetDimMetadata()
    top = max([max(v) for v in meta if v] + [0])
    while kind > 1 and top > np.iinfo(NPT[kind]).max:      # widen: Uint8 -> Uint16 -> Int32
        kind -= 1
    sp = S.SparsityParametersT()
    sp.traversalOrder = list(traversal)
    sp.blockMap = list(block_map)
    sp.dimMetadata = []
    # the converter takes one format per original dimension (block dimensions after them)
    # and reports the metadata in traversal order: a level is DENSE when it reports its
    # size alone, SPARSE_CSR when it reports segments and indices
    for lvl in range(len(traversal)):
        d = S.DimensionMetadataT()
        if len(meta[2 * lvl]) == 1 and not meta[2 * lvl + 1]:
            d.format = S.DimensionType.DENSE
            d.denseSize = meta[2 * lvl][0]
        else:
            d.format = S.DimensionType.SPARSE_CSR
            seg, idx = meta[2 * lvl], meta[2 * lvl + 1]
            d.arraySegmentsType = kind
            d.arraySegments = index_vector(seg, kind)
            d.arrayIndicesType = kind
            d.arrayIndices = index_vector(idx, kind)
        sp.dimMetadata.append(d)
    return vals, sp, {1: "Int32", 2: "Uint16", 3: "Uint8"}[kind]


def prune(w, frac, block=None):
    """Zero the smallest |w| (whole blocks of shape `block` along the last axes if given)."""
    w = w.copy()
    if block is None:
        thr = np.quantile(np.abs(w), frac)
        w[np.abs(w) < thr] = 0
        return w
    bh, bw = block
    v = w.reshape(-1, w.shape[-1])
    H, W = v.shape
    norms = np.abs(v).reshape(H // bh, bh, W // bw, bw).sum(axis=(1, 3))
    thr = np.quantile(norms, frac)
    mask = np.repeat(np.repeat(norms >= thr, bh, 0), bw, 1)
    return (v * mask).reshape(w.shape)


def opcode_index(m, code):
    for i, oc in enumerate(m.operatorCodes):
        if max(oc.builtinCode, oc.deprecatedBuiltinCode) == code:
            return i
    oc = S.OperatorCodeT()
    oc.builtinCode = code
    oc.deprecatedBuiltinCode = min(code, 127)
    oc.version = 1
    m.operatorCodes.append(oc)
    return len(m.operatorCodes) - 1


def add_buffer(m, arr):
    b = S.BufferT()
    b.data = np.frombuffer(np.ascontiguousarray(arr).tobytes(), np.uint8)
    m.buffers.append(b)
    return len(m.buffers) - 1


def sparsify(src, dst, fp16=False):
    m = fb.read_model(src)
    sg = m.subgraphs[0]
    code = {i: max(oc.builtinCode, oc.deprecatedBuiltinCode) for i, oc in enumerate(m.operatorCodes)}
    plans = []     # (tensor index, kind)
    for op in sg.operators:
        c = code[op.opcodeIndex]
        if c in (S.BuiltinOperator.FULLY_CONNECTED, S.BuiltinOperator.CONV_2D, S.BuiltinOperator.DEPTHWISE_CONV_2D):
            t = sg.tensors[op.inputs[1]]
            if t.type == S.TensorType.FLOAT32 and m.buffers[t.buffer].data is not None:
                plans.append((op.inputs[1], c))
    densify = opcode_index(m, S.BuiltinOperator.DENSIFY)
    dequant = opcode_index(m, S.BuiltinOperator.DEQUANTIZE)
    new_ops = []
    for n, (ti, c) in enumerate(plans):
        t = sg.tensors[ti]
        w = np.frombuffer(bytes(m.buffers[t.buffer].data), np.float32).reshape(t.shape)
        rank = len(t.shape)
        direct = False
        choice = None
        if rank == 2:
            ok = [w.shape[1] % 4 == 0 and not fp16 and c == S.BuiltinOperator.FULLY_CONNECTED,
                  w.shape[0] % 2 == 0 and w.shape[1] % 2 == 0, True]
            choice = next(k for k in [(n + i) % 3 for i in range(3)] if ok[k])
        if choice == 0:
            # 1x4 blocks, read directly by FULLY_CONNECTED (LiteRT's sparse FC kernel)
            w = prune(w, 0.6, (1, 4))
            vals, sp, kn = encode(w, [0, 1, 2], [DENSE, CSR, DENSE], [4], [1], 2)
            desc, direct = f"1x4 blocks, {kn} vectors, read by FULLY_CONNECTED", True
        elif choice == 1:
            w = prune(w, 0.6, (2, 2))
            vals, sp, kn = encode(w, [0, 1, 2, 3], [DENSE, CSR, DENSE, DENSE], [2, 2], [0, 1], 1)
            desc = f"2x2 blocks, {kn} vectors"
        elif choice == 2:
            w = prune(w, 0.7)
            vals, sp, kn = encode(w, [1, 0], [DENSE, CSR], [], [], 3)
            desc = f"CSR by columns (traversal 1,0), {kn} vectors"
        else:
            w = prune(w, 0.7)
            trav = [0, 1, 2, 3] if n % 2 else [3, 0, 1, 2]
            fmts = [DENSE, CSR, DENSE, CSR] if n % 2 else [DENSE, DENSE, CSR, CSR]
            vals, sp, kn = encode(w, trav, fmts, [], [], 3)
            desc = f"rank 4, traversal {trav}, {kn} vectors"
        dense_expected = w.astype(np.float16).astype(np.float32) if fp16 else w
        st = S.TensorT()
        st.shape = list(t.shape)
        st.name = (t.name.decode() if isinstance(t.name, bytes) else t.name) + "_sparse"
        st.sparsity = sp
        if fp16:
            st.type = S.TensorType.FLOAT16
            st.buffer = add_buffer(m, vals.astype(np.float16))
        else:
            st.type = S.TensorType.FLOAT32
            st.buffer = add_buffer(m, vals)
        sg.tensors.append(st)
        si = len(sg.tensors) - 1
        if direct:
            for op in sg.operators:
                op.inputs = [si if i == ti else i for i in op.inputs]
        else:
            t.buffer = 0            # now computed by DENSIFY (-> DEQUANTIZE)
            o = S.OperatorT()
            o.opcodeIndex = densify
            if fp16:
                mid = S.TensorT()
                mid.shape = list(t.shape); mid.type = S.TensorType.FLOAT16; mid.buffer = 0
                mid.name = st.name + "_dense"
                sg.tensors.append(mid)
                o.inputs, o.outputs = [si], [len(sg.tensors) - 1]
                q = S.OperatorT()
                q.opcodeIndex = dequant
                q.inputs, q.outputs = [len(sg.tensors) - 1], [ti]
                new_ops += [o, q]
            else:
                o.inputs, o.outputs = [si], [ti]
                new_ops.append(o)
        print(f"  {os.path.basename(dst)}: tensor {ti} {list(t.shape)} {np.mean(dense_expected == 0):.0%} zeros: {desc}")
    sg.operators = new_ops + sg.operators
    fb.write_model(m, dst)


def main(src_dir, out):
    os.makedirs(out, exist_ok=True)
    for net in ("mlp", "convnet", "convpt"):
        src = os.path.join(src_dir, f"{net}_float.tflite")
        sparsify(src, os.path.join(out, f"{net}_sparse.tflite"))
        sparsify(src, os.path.join(out, f"{net}_sparse16.tflite"), fp16=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/hybrid", sys.argv[2] if len(sys.argv) > 2 else "build/sparse")
