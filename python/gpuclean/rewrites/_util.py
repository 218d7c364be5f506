"""Helpers shared by the rewrites: module swapping and reversible function patches."""
from __future__ import annotations

import contextlib
import logging

import numpy as np
import torch
import torch.nn as nn

log = logging.getLogger("gpuclean.rewrites")


def swap_modules(model: nn.Module, match, make) -> int:
    """Replace every descendant `m` of `model` with `match(name, m)` true by
    `make(m)` (None keeps it). Returns the number replaced. The root is never replaced."""
    todo = []
    for parent_name, parent in model.named_modules():
        for child_name, child in parent.named_children():
            full = (parent_name + "." if parent_name else "") + child_name
            if match(full, child):
                todo.append((parent, child_name, child, full))
    n = 0
    for parent, child_name, child, full in todo:
        new = make(child)
        if new is None:
            continue
        setattr(parent, child_name, new)
        log.debug("rewrite: %s %s -> %s", full, type(child).__name__, type(new).__name__)
        n += 1
    return n


class Patch(contextlib.AbstractContextManager):
    """A reversible replacement of attributes (functions) on objects or modules.

    Use as a context manager, or call restore() yourself. Nesting works: each Patch
    restores exactly what it replaced."""

    def __init__(self, name, replacements):
        self.name = name
        self._saved = []
        for owner, attr, new in replacements:
            self._saved.append((owner, attr, getattr(owner, attr)))
            setattr(owner, attr, new)

    def restore(self):
        while self._saved:
            owner, attr, old = self._saved.pop()
            setattr(owner, attr, old)

    def __exit__(self, *exc):
        self.restore()
        return False

    def __repr__(self):
        return "<Patch %s (%s)>" % (self.name, "active" if self._saved else "restored")


@contextlib.contextmanager
def eager():
    """Run real (not traced, not fake) PyTorch inside an export trace, to compute a
    constant (interpolation matrices, one-hot kernels) that must end in the graph as a
    constant rather than as the ops that built it."""
    ctxs = []
    try:
        from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing
        ctxs.append(disable_proxy_modes_tracing())
    except ImportError:
        pass
    try:
        from torch._subclasses.fake_tensor import unset_fake_temporarily
        ctxs.append(unset_fake_temporarily())
    except ImportError:
        pass
    with contextlib.ExitStack() as st:
        for c in ctxs:
            st.enter_context(c)
        yield


def constant(array, dtype, device=None):
    """A graph constant from a numpy array (never traced as ops)."""
    return torch.tensor(np.ascontiguousarray(array), dtype=dtype, device=device)


def _flat(out):
    if torch.is_tensor(out):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return []


def probe_equal(orig: nn.Module, new: nn.Module, calls, tol=1e-5):
    """True when `new` reproduces `orig` on every probe call: each entry of `calls` is a
    tuple of positional arguments (or (args, kwargs)); both run in eval mode under
    no_grad (training flags restored after) and every output must agree within
    tol * max(1, max|ref|). How a rewrite makes sure it only replaces a module whose
    forward it reproduces; any exception in either forward counts as a mismatch."""
    flags = [(m, m.training) for m in list(orig.modules()) + list(new.modules())]
    try:
        orig.eval()
        new.eval()
        with torch.no_grad():
            for call in calls:
                args, kw = call if (len(call) == 2 and isinstance(call[1], dict)) else (call, {})
                ref, got = _flat(orig(*args, **kw)), _flat(new(*args, **kw))
                if len(ref) != len(got):
                    return False
                for r, g in zip(ref, got):
                    if r.shape != g.shape:
                        return False
                    d = (r.double() - g.double()).abs().max().item() if r.numel() else 0.0
                    if not d <= tol * max(1.0, r.abs().max().item() if r.numel() else 0.0):
                        return False
        return True
    except Exception as e:  # noqa: BLE001 - a forward we cannot run is not reproduced
        log.debug("probe: %s refused: %s: %s", type(orig).__name__, type(e).__name__, e)
        return False
    finally:
        for m, t in flags:
            m.train(t)


def class_is(m, module_name, class_name):
    """type(m) is the class `class_name` of the already-imported module `module_name`
    (exact type, no subclasses: a subclass may override forward). False when that
    library is not imported: nothing of it can be in the model then."""
    import sys
    mod = sys.modules.get(module_name)
    return mod is not None and type(m) is getattr(mod, class_name, None)
