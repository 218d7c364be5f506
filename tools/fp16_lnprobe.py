#!/usr/bin/env python3
"""LayerNorm probes for the fp16 emulation (docs/measurements/h200-2026-12-03.md): 12 small models
made with litert-torch, each a LayerNorm over rows of 64 where row 1 is constant (c = 0 or 0.5: zero
variance, eps 1e-12 -> rsqrt = 1e6, past half's 65504), in six forms: the decomposition alone
("plain"), times gamma ("g"), plus beta ("gb"), then a Linear ("gblin"), and torch.nn.LayerNorm as
litert-torch lowers it ("ln": rsqrt with two consumers, mean * rstd subtracted) with and without a
Linear after it ("lnlin"). Does the GPU store the 1e6 as half (inf, NaN output) or keep it float?

    .venv/bin/python tools/fp16_lnprobe.py OUT_DIR
    runtime/litert/pack.sh --dest $PWD/.device-fp16x OUT_DIR/*.tflite     # then, on the GPU machine:
    OUT=$OUT JOBS=6 TEXT=0 RUNS=1 bash runtime/litert/device.sh .device-fp16x
    tools/fp16_predict.py collect DIR --kind corpus      # rows into data/gpu/fp16/
    (copy OUT_DIR/*.tflite to build/fp16-device/models/ for tools/fp16_predict.py table)
"""
import sys, torch, litert_torch
out = sys.argv[1]
torch.manual_seed(0)
class Base(torch.nn.Module):
    """x rows: row 0 varied, row 1 = c (constant: zero var). mode picks the tail."""
    def __init__(self, mode, c):
        super().__init__(); self.mode = mode; self.c = c
        self.g = torch.nn.Parameter(torch.rand(64) + 0.5); self.b = torch.nn.Parameter(torch.rand(64) - 0.5)
        self.ln = torch.nn.LayerNorm(64, eps=1e-12); self.lin = torch.nn.Linear(64, 64)
        with torch.no_grad(): self.ln.weight.copy_(self.g); self.ln.bias.copy_(self.b)
    def forward(self, x):
        z = x * torch.tensor([1.0, 0.0]).reshape(1, 2, 1) + torch.tensor([0.0, self.c]).reshape(1, 2, 1)
        if self.mode.startswith("ln"):
            y = self.ln(z)
        else:
            m = z.mean(-1, keepdim=True); v = ((z - m) ** 2).mean(-1, keepdim=True)
            y = (z - m) * torch.rsqrt(v + 1e-12)
            if self.mode in ("g", "gb", "gblin"): y = y * self.g
            if self.mode in ("gb", "gblin"): y = y + self.b
        if self.mode.endswith("lin"): y = self.lin(y)
        return y
x = torch.rand(1, 2, 64)
for mode in ("plain", "g", "gb", "gblin", "ln", "lnlin"):
    for c in (0.0, 0.5):
        name = "lnprobe_%s_c%s" % (mode, "0" if c == 0 else "05")
        litert_torch.convert(Base(mode, c).eval(), (x,)).export(out + "/" + name + ".tflite")
        print(name)
