"""gpuclean's main job on its built-in default: a small network with the GPU-hostile
patterns of the seed's table goes through convert_for_gpu and must end GPU-clean.

    python -m gpuclean.demo OUTDIR        (make demo)

Patterns (each is a layer of DemoNet): stride-2 slicing (a Focus stem), reflect-padded
convolution, PReLU, `.chunk` gating, torch.where, GQA attention with the Hugging Face
repeat_kv (rank-5 expand -> BROADCAST_TO), masked attention (scores + mask[1,1,S,S]
after BATCH_MATMUL), ConvTranspose2d upsampling, PixelShuffle. Writes OUTDIR/demo.tflite
(and demo.plain.tflite, the unpatched conversion), OUTDIR/report.json and
OUTDIR/inputs/, prints the report. Exit 0 when the result is GPU-clean (static verdict)
and matches PyTorch on the real LiteRT runtime, 1 when not, 2 when PyTorch /
litert-torch are not installed (python/install-torch.sh).
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np


def repeat_kv(hidden_states, n_rep):
    """Hugging Face's GQA helper (the hostile form: rank-5 expand)."""
    b, n_kv, s, d = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(b, n_kv, n_rep, s, d)
    return hidden_states.reshape(b, n_kv * n_rep, s, d)


def build(seed=0):
    import torch
    import torch.nn as nn

    class GQAttention(nn.Module):
        def __init__(self, dim=16, num_heads=4, num_kv_heads=2, tokens=64):
            super().__init__()
            self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
            self.head_dim = dim // num_heads
            self.q = nn.Linear(dim, num_heads * self.head_dim)
            self.k = nn.Linear(dim, num_kv_heads * self.head_dim)
            self.v = nn.Linear(dim, num_kv_heads * self.head_dim)
            self.o = nn.Linear(num_heads * self.head_dim, dim)
            mask = torch.triu(torch.full((tokens, tokens), -1e4), 1)
            self.register_buffer("attn_mask", mask[None, None])          # [1, 1, S, S]

        def forward(self, x):
            b, s, _ = x.shape
            q = self.q(x).reshape(b, s, self.num_heads, self.head_dim).transpose(1, 2)
            k = self.k(x).reshape(b, s, self.num_kv_heads, self.head_dim).transpose(1, 2)
            v = self.v(x).reshape(b, s, self.num_kv_heads, self.head_dim).transpose(1, 2)
            k = repeat_kv(k, self.num_heads // self.num_kv_heads)
            v = repeat_kv(v, self.num_heads // self.num_kv_heads)
            scores = q @ k.transpose(-1, -2) * (self.head_dim ** -0.5) + self.attn_mask
            y = torch.softmax(scores, dim=-1) @ v
            return self.o(y.transpose(1, 2).reshape(b, s, -1))

    class DemoNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(16, 32, 3, padding=1, padding_mode="reflect")
            self.act = nn.PReLU(32)
            self.attn = GQAttention(16, 4, 2, 64)
            self.up = nn.ConvTranspose2d(16, 16, 4, stride=2, padding=1)
            self.to_ps = nn.Conv2d(16, 12, 3, padding=1)
            self.ps = nn.PixelShuffle(2)

        def forward(self, x):                                   # [1, 4, 16, 16]
            x = torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2],
                           x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)   # Focus: [1, 16, 8, 8]
            x = self.act(self.stem(x))                          # [1, 32, 8, 8]
            a, g = x.chunk(2, dim=1)
            x = a * torch.sigmoid(g)                            # [1, 16, 8, 8]
            x = torch.where(x > 0, x, 0.2 * x)
            b, c, h, w = x.shape
            t = x.flatten(2).transpose(1, 2)                    # [1, 64, 16]
            t = t + self.attn(t)
            x = t.transpose(1, 2).reshape(b, c, h, w)
            x = self.up(x)                                      # [1, 16, 16, 16]
            return self.ps(self.to_ps(x))                       # [1, 3, 32, 32]

    torch.manual_seed(seed)
    net = DemoNet().eval()
    with torch.no_grad():
        net.act.weight.uniform_(0.05, 0.3)
    x = torch.randn(1, 4, 16, 16, generator=torch.Generator().manual_seed(seed + 1))
    return net, (x,)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    out = argv[0]
    import importlib.util
    missing = [m for m in ("torch", "litert_torch") if importlib.util.find_spec(m) is None]
    if missing:
        print("gpuclean demo: %s not installed: PyTorch and litert-torch are needed "
              "(python/install-torch.sh installs them, CPU only)" % ", ".join(missing),
              file=sys.stderr)
        return 2
    from .convert import convert_for_gpu, format_report
    from .toolkit import check_gpu_compatibility, print_report
    os.makedirs(os.path.join(out, "inputs"), exist_ok=True)
    net, inputs = build()
    for k, x in enumerate(inputs):
        np.save(os.path.join(out, "inputs", "input_%d.npy" % k), x.numpy())
    rep = convert_for_gpu(net, inputs, os.path.join(out, "demo.tflite"))
    print(format_report(rep))
    print()
    print("== litert_gpu_toolkit.check_gpu_compatibility(%s)" % rep["out_path"])
    chk = check_gpu_compatibility(rep["out_path"])
    print_report(chk)
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump({"convert_for_gpu": rep, "check_gpu_compatibility": chk}, f, indent=1,
                  default=str)
    return 0 if rep["ok"] and chk["status"] != "failed" else 1   # "unverified" where no GPU ran


if __name__ == "__main__":
    sys.exit(main())
