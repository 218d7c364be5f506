"""Reference dump from the source (PyTorch) model: ref/input_0.npy, ref/output_0.npy.
Run once; re-run only when the source model changes."""
import os
import sys

import numpy as np
import torch

from gpuclean import demo

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "ref")
os.makedirs(out, exist_ok=True)
net, inputs = demo.build()
with torch.no_grad():
    y = net(*inputs)
for k, x in enumerate(inputs):
    np.save(os.path.join(out, "input_%d.npy" % k), x.numpy())
np.save(os.path.join(out, "output_0.npy"), y.numpy())
print("dump_demo_ref: %s (input %s, output %s)" % (out, tuple(inputs[0].shape), tuple(y.shape)))
sys.exit(0)
