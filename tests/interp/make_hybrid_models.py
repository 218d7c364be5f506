"""Hybrid (dynamic-range) quantized test models for the interpreter's parity check.

Float models from PyTorch (litert_torch), then ai_edge_quantizer's dynamic-range recipes:
int8 channelwise (dynamic_wi8_afp32), int8 tensorwise, int4 channelwise. Writes
OUT/<net>_<recipe>.tflite (and OUT/<net>_float.tflite).
    .venv/bin/python tests/interp/make_hybrid_models.py build/hybrid
"""
import os, sys, warnings
warnings.filterwarnings("ignore")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import torch
import litert_torch
from ai_edge_quantizer import quantizer, recipe


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 32, 3, stride=2, padding=1)
        self.dw = torch.nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.dw2 = torch.nn.Conv2d(32, 64, 3, padding=1, groups=32)   # depth multiplier 2
        self.c2 = torch.nn.Conv2d(64, 48, 1)
        self.c3 = torch.nn.Conv2d(48, 40, 3, padding=2, dilation=2)
        self.fc = torch.nn.Linear(40, 37)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.nn.functional.relu6(self.dw(x))
        x = self.dw2(x)
        x = self.c2(x)
        x = torch.relu(self.c3(x))
        return self.fc(x.mean(dim=(2, 3)))


class ConvPt(torch.nn.Module):
    """Plain convolutions only (TFLite's per-tensor hybrid depthwise reads one scale per
    channel past a single scale, so per-tensor recipes skip depthwise layers)."""
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 24, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(24, 32, 1)
        self.c3 = torch.nn.Conv2d(32, 16, 3, padding=2, dilation=2)
        self.c4 = torch.nn.Conv2d(16, 16, 5, padding=0)

    def forward(self, x):
        return self.c4(torch.relu(self.c3(torch.relu(self.c2(torch.relu(self.c1(x)))))))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(96, 128)
        self.l2 = torch.nn.Linear(128, 64, bias=False)
        self.l3 = torch.nn.Linear(64, 33)

    def forward(self, x):
        return self.l3(torch.tanh(self.l2(torch.relu(self.l1(x)))))


class Bmm(torch.nn.Module):
    """x @ W with a constant W (BATCH_MATMUL with a constant right-hand side)."""
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.w = torch.nn.Parameter(torch.randn(2, 64, 48, generator=g) * 0.1)

    def forward(self, x):
        return torch.matmul(x, self.w)


def bert():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(vocab_size=500, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, max_position_embeddings=64)
    torch.manual_seed(0)
    m = BertModel(cfg).eval()

    class Wrap(torch.nn.Module):
        def __init__(self, m):
            super().__init__(); self.m = m
        def forward(self, ids):
            return self.m(input_ids=ids).last_hidden_state
    return Wrap(m), (torch.randint(0, 500, (1, 16)),)


def single_ops():
    """One hybrid op on a large input: run-time quantization ties (x * inv exactly k + 1/2)
    occur a few times per million inputs, so these pin the rounding down."""
    torch.manual_seed(0)
    return {"fcbig": (torch.nn.Linear(512, 16).eval(), (torch.randn(2048, 512),)),
            "convbig": (torch.nn.Conv2d(32, 8, 1).eval(), (torch.randn(4, 32, 96, 96),)),
            "conv3big": (torch.nn.Conv2d(16, 8, 3, padding=1).eval(), (torch.randn(2, 16, 96, 96),)),
            "dwbig": (torch.nn.Conv2d(32, 32, 3, padding=1, groups=32).eval(), (torch.randn(4, 32, 96, 96),))}


def recipes():
    r = {"wi8c": recipe.dynamic_wi8_afp32(), "wi4c": recipe.dynamic_wi4_afp32()}
    t = recipe.dynamic_wi8_afp32()
    for e in t:
        e["op_config"]["weight_tensor_config"]["granularity"] = "TENSORWISE"
    r["wi8t"] = t
    return r


def set_asymmetric(src, dst):
    """Copy of src with asymmetric_quantize_inputs set on every FULLY_CONNECTED / BATCH_MATMUL."""
    from ai_edge_litert.tools import flatbuffer_utils as fb
    m = fb.read_model(src)
    for sg in m.subgraphs:
        for op in sg.operators:
            o = op.builtinOptions
            if o is not None and hasattr(o, "asymmetricQuantizeInputs"):
                o.asymmetricQuantizeInputs = True
    fb.write_model(m, dst)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    nets = {"convnet": (ConvNet().eval(), (torch.randn(1, 3, 20, 20),)),
            "mlp": (Mlp().eval(), (torch.randn(5, 96),)),
            "convpt": (ConvPt().eval(), (torch.randn(2, 3, 24, 24),)),
            "bmm": (Bmm().eval(), (torch.randn(2, 7, 64),)),
            "bert": bert()}
    nets.update(single_ops())
    for name, (m, args) in nets.items():
        fp = os.path.join(out, f"{name}_float.tflite")
        litert_torch.convert(m, args).export(fp)
        for rn, rc in recipes().items():
            if (name == "convnet" and rn == "wi8t") or (name in single_ops() and rn != "wi8c"):
                continue
            q = quantizer.Quantizer(fp)
            q.load_quantization_recipe(rc)
            res = q.quantize()
            dst = os.path.join(out, f"{name}_{rn}.tflite")
            res.export_model(dst, overwrite=True)
            print(dst)
            if rn == "wi8c" and name in ("mlp", "bmm", "bert", "fcbig"):
                set_asymmetric(dst, os.path.join(out, f"{name}_{rn}_asym.tflite"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/hybrid")
