#!/usr/bin/env python3
"""Extra real float models for the fp16 prediction table (tools/fp16_predict.py, kind "extra"):
real architectures from their libraries' constructors and configs, converted with
litert-torch, checked for the GPU, and carried to the device (as twins where large).

    tools/fp16_models.py build [NAME ...] [--weights NAME=PATH]... [--good N] [--timeout S]
        each model in its own process, in the order of MODELS below (or the NAMEs given):
        build it (torch.manual_seed(0), random init; BatchNorm statistics calibrated on
        seeded random inputs as the zoo does: gpuclean.zoo.calibrate_batchnorm), convert
        with litert-torch (the plain conversion), `gpuclean check --json --runtime
        native-2.3`; when that is not GPU-clean (or has nodes measured wrong there), `gpuclean
        fix` (kept when its own verification passes) and check again, and when still not,
        gpuclean's loop (convert_for_gpu: PyTorch rewrites, re-conversion, fix). A file
        over TWIN_MB is carried as a twin (../shared/tools/device/twin.py: the same graph
        with regenerated weights). Kept when the device file is GPU-clean and GPU-correct
        on native-2.3 and its fp32 output on gpuclean's interpreter (the inputs the device
        gets) is finite, not constant and within fp16's range (|y| <= 65504). Writes
        build/fp16-extra/<name>.tflite (+ <name>__twin.tflite), <name>.json (the record:
        source, conversion, check per runtime, why not kept) and, for integer inputs (token
        ids), inputs/<stem>/input_<k>.npy. Models already built are skipped (--force
        rebuilds); stops once N models are kept (--good, default: all).
    tools/fp16_models.py recheck [NAME ...]
        the built files through this checkout's `gpuclean check` and the fp32 test again
        (the checker's facts and rules move on); nothing is converted again.
    tools/fp16_models.py list [--md FILE]
        the records as a Markdown table: kept or not and why.

No weights are downloaded: every model is randomly initialised from seed 0 (the record
says so). --weights NAME=PATH uses real ones: a local state_dict file (.pt/.pth/.bin/
.safetensors, loaded strictly), or for the Hugging Face models a local model folder
(from_pretrained, nothing downloaded).

Inputs: float inputs get `gpuclean litert`'s sin pattern on the device and in the table
(0.5 + 0.5 sin(0.37 i + k)); the conversion and the BatchNorm calibration use N(0, 1)
images from torch.Generator seed 1234 (calibration: seed 99). Integer inputs (token ids)
are drawn uniform in [0, vocab) from seed 1234 and travel with the pack.
"""
import argparse
import glob
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import time
import types

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))

OUT = os.path.join(top, "build", "fp16-extra")
CLI = os.path.join(top, "build", "gpuclean")
TWIN = os.path.join(top, "..", "shared", "tools", "device", "twin.py")
TWIN_MB = 2.0             # files above this travel as twins (random fp32 weights do not compress)
CHECK_RUNTIMES = ("native-2.3", "js-2.5")
KEEP_RUNTIME = "native-2.3"
FP16_MAX = 65504.0


def _ver(pkg):
    try:
        return importlib.metadata.version(pkg)
    except importlib.metadata.PackageNotFoundError:
        return "?"


# ---- the models ----------------------------------------------------------------------------
# Each spec: name, source (one line: library, version, constructor), build() -> nn.Module in
# eval mode whose forward returns a tensor or a tuple of tensors, inputs(gen) -> tuple of
# tensors (the conversion's sample inputs), hf: the transformers class for a local weights
# folder (None: a state_dict file).

def _image(size):
    def inputs(gen):
        import torch
        return (torch.randn(1, 3, size, size, generator=gen),)
    return inputs


def _tokens(vocab, length):
    def inputs(gen):
        import torch
        return (torch.randint(0, vocab, (1, length), generator=gen, dtype=torch.int32),)
    return inputs


def tv(name, size, **kw):
    def build():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kw)
    args = ", ".join(["weights=None"] + ["%s=%r" % i for i in kw.items()])
    return dict(name="tv_" + name, build=build, inputs=_image(size),
                source="torchvision %s: torchvision.models.%s(%s), input 1x3x%dx%d" % (
                    _ver("torchvision"), name, args, size, size))


def tm(name, size, calib_batch=1, **kw):
    def build():
        import timm
        return timm.create_model(name, pretrained=False, **kw)
    args = ", ".join(["pretrained=False"] + ["%s=%r" % i for i in kw.items()])
    return dict(name="timm_" + name, build=build, inputs=_image(size), calib_batch=calib_batch,
                source="timm %s: timm.create_model(%r, %s), input 1x3x%dx%d" % (
                    _ver("timm"), name, args, size, size))


class _First:
    """forward(*xs) -> the first tensor of a transformers model's output (last_hidden_state,
    logits): one output tensor, no caches."""

    @staticmethod
    def wrap(net, key, **call_kw):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.net = net

            def forward(self, x):
                return getattr(self.net(x, **call_kw), key)
        return Wrapped()


def hf(name, cls, cfg_cls, cfg, inputs, key, shape, **call_kw):
    def build():
        import transformers
        c = getattr(transformers, cfg_cls)(**cfg)
        if getattr(getattr(transformers, cls), "_supports_sdpa", False):
            c._attn_implementation = "sdpa"          # what litert-torch lowers (zoo_hf does the same)
        return _First.wrap(getattr(transformers, cls)(c), key, **call_kw)
    return dict(name="hf_" + name, build=build, inputs=inputs, hf=(cls, key, call_kw),
                source="transformers %s: %s(%s(%s)) -> .%s, input %s" % (
                    _ver("transformers"), cls, cfg_cls, ", ".join("%s=%r" % i for i in cfg.items()), key, shape))


def _audio(n):
    def inputs(gen):
        import torch
        return (torch.randn(1, n, generator=gen),)
    return inputs


MODELS = [
    tv("mobilenet_v2", 128),
    tv("squeezenet1_1", 128),
    tv("mnasnet0_5", 128),
    tm("resnet10t", 128),
    tm("ghostnet_050", 128),
    tv("regnet_x_400mf", 128),
    tv("googlenet", 128, aux_logits=False, init_weights=True),
    tm("lcnet_050", 128),
    tm("repvit_m0_9", 128, calib_batch=2),    # a BatchNorm1d head: training-mode statistics need 2+
    tv("resnet34", 96),
    tm("edgenext_xx_small", 128),
    tm("fastvit_t8", 128),
    tm("poolformer_s12", 128),
    tm("mobilevitv2_050", 128),
    hf("distilbert", "DistilBertModel", "DistilBertConfig",
       dict(vocab_size=1000, dim=128, n_layers=2, n_heads=2, hidden_dim=256), _tokens(1000, 32),
       "last_hidden_state", "1x32 int32 token ids"),
    hf("gpt2", "GPT2Model", "GPT2Config",
       dict(vocab_size=500, n_positions=64, n_embd=128, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0),
       _tokens(500, 32),
       "last_hidden_state", "1x32 int32 token ids", use_cache=False),
    hf("t5_encoder", "T5EncoderModel", "T5Config",
       dict(vocab_size=1000, d_model=128, d_kv=32, d_ff=256, num_layers=2, num_heads=4), _tokens(1000, 32),
       "last_hidden_state", "1x32 int32 token ids"),
    hf("segformer_b0", "SegformerForSemanticSegmentation", "SegformerConfig",
       dict(num_labels=19), _image(128), "logits", "1x3x128x128"),
    hf("deit_tiny", "DeiTModel", "DeiTConfig",
       dict(image_size=96, patch_size=16, hidden_size=192, num_hidden_layers=4, num_attention_heads=3,
            intermediate_size=768), _image(96), "last_hidden_state", "1x3x96x96"),
    hf("convnextv2_atto", "ConvNextV2Model", "ConvNextV2Config",
       dict(depths=[2, 2, 6, 2], hidden_sizes=[40, 80, 160, 320]), _image(128), "pooler_output", "1x3x128x128"),
    hf("wav2vec2_features", "Wav2Vec2Model", "Wav2Vec2Config",
       dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256,
            conv_dim=[64] * 7, feat_extract_norm="layer"), _audio(8000), "last_hidden_state", "1x8000 audio"),
    hf("mobilevit_xs", "MobileViTModel", "MobileViTConfig",
       dict(image_size=128, hidden_sizes=[96, 120, 144], neck_hidden_sizes=[16, 32, 48, 64, 80, 96, 384]),
       _image(128), "pooler_output", "1x3x128x128"),
    tv("shufflenet_v2_x1_0", 128),
    tv("resnet50", 96),
    tm("levit_128s", 128, calib_batch=2, img_size=128),
    tm("efficientformer_l1", 224),             # attention biases fixed to a 7x7 last stage: 224 only
    tm("tiny_vit_5m_224", 224),
    tv("densenet121", 96),
    # more, in case the ones above do not give enough whole-GPU models
    tm("mobilenetv4_conv_small", 128, calib_batch=2),
    tm("mixnet_s", 128),
    tm("rexnet_100", 128, calib_batch=2),
    tm("hgnetv2_b0", 128),
    tm("mobileone_s0", 128),
    tm("efficientvit_b0", 128),
    tm("tinynet_e", 106),
    tm("starnet_s1", 128),
    tm("ese_vovnet19b_dw", 128),
    tm("dla34", 96),
    tm("mambaout_femto", 128),
]
BY_NAME = {m["name"]: m for m in MODELS}


# ---- one model -----------------------------------------------------------------------------

def _json(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True, default=str)
        f.write("\n")
    os.replace(path + ".tmp", path)


def _check(path, runtime):
    """`gpuclean check PATH --json --runtime R` -> summary fields (or the error)."""
    p = subprocess.run([CLI, "check", path, "--json", "--runtime", runtime], capture_output=True, text=True)
    try:
        s = json.loads(p.stdout)["summary"]
    except (ValueError, KeyError):
        return {"error": (p.stderr.strip() or "gpuclean check exited %d" % p.returncode)[-300:]}
    return {k: s.get(k) for k in ("residency", "gpu_clean", "gpu_correct", "gpu_nodes", "nodes", "wrong_nodes",
                                  "fatal")}


def _good(c):
    """GPU-clean and not measured wrong on the runtime (a check summary of _check)."""
    return bool(c.get("gpu_clean")) and c.get("gpu_correct") is not False


def _load_weights(spec, model, path):
    if not os.path.exists(path):
        raise SystemExit("%s: no such weights file or folder" % path)
    if os.path.isdir(path) and spec.get("hf"):
        import transformers
        cls, key, kw = spec["hf"]
        return _First.wrap(getattr(transformers, cls).from_pretrained(path), key, **kw)
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.net if spec.get("hf") else model, path)
    return model


def _sanity(path, input_files, rec):
    """fp32 output of the device file on gpuclean's interpreter with the device's inputs:
    why it cannot be a meaningful fp16 row, or None (rec["fp32_max_abs"]: max|y| per output)."""
    import numpy as np
    from gpuclean.core import Interpreter, Model
    if "fp16_predict" not in sys.modules:
        import importlib.util
        spec = importlib.util.spec_from_file_location("fp16_predict", os.path.join(top, "tools", "fp16_predict.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules["fp16_predict"] = mod
        spec.loader.exec_module(mod)
    sin_pattern = sys.modules["fp16_predict"].sin_pattern
    with Model(path) as m:
        xs = [np.load(f) for f in input_files] if input_files else sin_pattern(m)
        with Interpreter(m, "fp32") as it:
            ys = [np.asarray(y, np.float64) for y in it(*xs)]
    rec["fp32_max_abs"] = [float(np.max(np.abs(y))) if y.size else None for y in ys]
    for k, y in enumerate(ys):
        if not np.all(np.isfinite(y)):
            return "output %d not finite on the interpreter (fp32)" % k
        if y.size < 2 or float(np.std(y)) == 0.0:
            return "output %d constant (std 0): fp16 errors would prove nothing" % k
        if float(np.max(np.abs(y))) > FP16_MAX:
            return "output %d max abs %.3g beyond fp16's range" % (k, float(np.max(np.abs(y))))
    return None


def build_one(name, weights=None):
    """Convert, check, fix, twin, judge one model; writes OUT/<name>.json. Returns 0."""
    import numpy as np
    import torch
    from gpuclean import zoo
    from gpuclean.convert import convert_for_gpu, convert_plain, run_fix
    spec = BY_NAME[name]
    os.makedirs(OUT, exist_ok=True)
    rec = {"name": name, "source": spec["source"], "kept": False,
           "weights": weights or "random init (torch.manual_seed(%d))" % zoo.MODEL_SEED}
    t0 = time.time()
    try:
        torch.manual_seed(zoo.MODEL_SEED)
        model = spec["build"]().eval()
        recipe = types.SimpleNamespace(inputs=spec["inputs"])
        if weights:
            model = _load_weights(spec, model, weights).eval()
        else:
            nb = spec.get("calib_batch", 1)       # calibration batches of nb seeded inputs each
            calib = recipe if nb == 1 else types.SimpleNamespace(
                inputs=lambda g: tuple(torch.cat(t) for t in zip(*[spec["inputs"](g) for _ in range(nb)])))
            rec["batchnorm_calibrated"] = zoo.calibrate_batchnorm(model, calib)
            rec["calib_batch"] = nb
        xs = zoo.sample_inputs(recipe)
        rec["params"] = int(sum(p.numel() for p in model.parameters()))
        path = os.path.join(OUT, name + ".tflite")
        plain = os.path.join(OUT, name + ".plain.tflite")
        with torch.no_grad():
            convert_plain(model, xs, plain, logfile=os.path.join(OUT, name + ".convert.log"))
    except Exception as e:  # noqa: BLE001 - a model that does not build or convert is a record, not a crash
        rec["why"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:300] if str(e).strip() else "")
        rec["convert_s"] = round(time.time() - t0, 1)
        _json(os.path.join(OUT, name + ".json"), rec)
        return 0
    rec["convert_s"] = round(time.time() - t0, 1)
    rec["check_plain"] = {rt: _check(plain, rt) for rt in CHECK_RUNTIMES}
    shutil.copyfile(plain, path)
    if not _good(rec["check_plain"][KEEP_RUNTIME]):
        fr = run_fix(plain, path + ".fix")
        rec["fix"] = {"exit": fr["exit"], "passes": [q["id"] for q in fr["passes"]], "error": fr["error"],
                      "verified": (fr.get("verify") or {}).get("pass")}
        if fr["changed"] and rec["fix"]["verified"] is not False:
            os.replace(path + ".fix", path)
            rec["fixed"] = True
        elif os.path.exists(path + ".fix"):
            os.remove(path + ".fix")
    if not _good(_check(path, KEEP_RUNTIME)):
        # still rejected or measured wrong: gpuclean's whole loop (PyTorch rewrites routed
        # from the checker's findings, re-conversion, fix), verified on the interpreter
        loop = os.path.join(OUT, name + ".loop.tflite")
        t1 = time.time()
        try:
            rep = convert_for_gpu(model, xs, loop, runtime=False, max_rounds=2)
            rec["loop"] = {"applied": sorted(rep.get("applied") or {}), "ok": rep.get("ok"),
                           "reasons": (rep.get("reasons") or [])[:5], "seconds": round(time.time() - t1, 1)}
            if os.path.exists(loop) and _good(_check(loop, KEEP_RUNTIME)):
                shutil.copyfile(loop, path)
                rec["loop"]["used"] = True
        except Exception as e:  # noqa: BLE001
            rec["loop"] = {"error": "%s: %s" % (type(e).__name__, str(e)[:300])}
    rec["check"] = {rt: _check(path, rt) for rt in CHECK_RUNTIMES}
    rec["bytes"] = os.path.getsize(path)
    dev = path
    if rec["bytes"] > TWIN_MB * (1 << 20):
        if not os.path.exists(TWIN):
            rec["why"] = "over %.1f MB and no twin tool at %s" % (TWIN_MB, TWIN)
            _json(os.path.join(OUT, name + ".json"), rec)
            return 0
        dev = os.path.join(OUT, name + "__twin.tflite")
        subprocess.run([sys.executable, TWIN, path, dev], check=True, capture_output=True)
        rec["check_twin"] = {KEEP_RUNTIME: _check(dev, KEEP_RUNTIME)}
    rec["device_file"] = os.path.basename(dev)
    stem = rec["device_file"][:-len(".tflite")]
    idir = os.path.join(OUT, "inputs", stem)
    shutil.rmtree(idir, ignore_errors=True)
    files = []
    if any(not x.dtype.is_floating_point for x in xs):       # token ids travel; float inputs: sin pattern
        os.makedirs(idir)
        for k, x in enumerate(xs):
            files.append(os.path.join(idir, "input_%d.npy" % k))
            np.save(files[-1], x.numpy())
    judge(rec, dev, files)
    _json(os.path.join(OUT, name + ".json"), rec)
    return 0


def judge(rec, dev, files):
    """rec["kept"] / rec["why"] from the device file's check on KEEP_RUNTIME and its fp32
    output (files: its input files, or [] for the sin pattern)."""
    c = (rec.get("check_twin") or rec["check"])[KEEP_RUNTIME]
    why = None
    if not c.get("gpu_clean"):
        why = "not GPU-clean on %s (%s)" % (KEEP_RUNTIME, c.get("residency") or c.get("error") or c.get("fatal"))
    elif c.get("gpu_correct") is False:
        why = "GPU-clean but measured-wrong nodes on %s (%s)" % (KEEP_RUNTIME, c.get("wrong_nodes"))
    else:
        try:
            why = _sanity(dev, files, rec)
        except Exception as e:  # noqa: BLE001
            why = "interpreter: %s" % str(e)[:200]
    rec["why"] = why
    rec["kept"] = why is None


def cmd_recheck(a):
    """The built files again through this checkout's `gpuclean check` (facts and rules move
    on) and the sanity test; conversion, fix and twin are not redone."""
    if not os.path.exists(CLI):
        print("fp16_models: %s missing: run make" % CLI, file=sys.stderr)
        return 2
    for r in records():
        if not r.get("device_file") or (a.names and r["name"] not in a.names):
            continue
        path = os.path.join(OUT, r["name"] + ".tflite")
        dev = os.path.join(OUT, r["device_file"])
        if not (os.path.exists(path) and os.path.exists(dev)):
            print("fp16_models %-26s files missing: build it again" % r["name"], file=sys.stderr)
            continue
        was = (r.get("kept"), r.get("why"))
        r["check"] = {rt: _check(path, rt) for rt in CHECK_RUNTIMES}
        if dev != path:
            r["check_twin"] = {KEEP_RUNTIME: _check(dev, KEEP_RUNTIME)}
        judge(r, dev, input_files(r["device_file"][:-len(".tflite")]) or [])
        _json(os.path.join(OUT, r["name"] + ".json"), r)
        print("fp16_models %-26s %s%s" % (r["name"], "kept" if r["kept"] else "not kept: " + r["why"],
                                          "" if was == (r["kept"], r["why"]) else " (was: %s)" % (
                                              "kept" if was[0] else was[1])))
    return 0


# ---- what fp16_predict reads ---------------------------------------------------------------

def records():
    out = []
    for m in MODELS:
        p = os.path.join(OUT, m["name"] + ".json")
        if os.path.exists(p):
            with open(p) as f:
                out.append(json.load(f))
    return out


def kept():
    """[(stem, device file, [input files] or None)] of the kept models, in MODELS order."""
    out = []
    for r in records():
        if r.get("kept"):
            stem = r["device_file"][:-len(".tflite")]
            f = os.path.join(OUT, r["device_file"])
            if os.path.exists(f):
                out.append((stem, f, input_files(stem)))
    return out


def device_file(stem):
    """The file of an extra row (what the pack carried), or None."""
    f = os.path.join(OUT, stem + ".tflite")
    return f if os.path.exists(f) and stem.split("__")[0] in BY_NAME else None


def input_files(stem):
    fs = sorted(glob.glob(os.path.join(OUT, "inputs", stem, "input_*.npy")),
                key=lambda p: int(os.path.basename(p)[6:-4]))
    return fs or None


def is_extra(stem):
    return stem.split("__")[0] in BY_NAME


# ---- CLI -----------------------------------------------------------------------------------

def cmd_build(a):
    if not os.path.exists(CLI):
        print("fp16_models: %s missing: run make" % CLI, file=sys.stderr)
        return 2
    weights = {}
    for w in a.weights:
        n, sep, p = w.partition("=")
        if not sep or n not in BY_NAME:
            print("fp16_models: --weights wants NAME=PATH with NAME one of the models, not %r" % w, file=sys.stderr)
            return 2
        weights[n] = os.path.abspath(p)
    unknown = [n for n in a.names if n not in BY_NAME]
    if unknown:
        print("fp16_models: no such model: %s (have: %s)" % (", ".join(unknown), ", ".join(BY_NAME)), file=sys.stderr)
        return 2
    os.makedirs(OUT, exist_ok=True)
    good = sum(1 for r in records() if r.get("kept"))
    for name in a.names or list(BY_NAME):
        if a.good and good >= a.good:
            break
        rp = os.path.join(OUT, name + ".json")
        if os.path.exists(rp) and not a.force:
            continue
        t0 = time.time()
        cmd = [sys.executable, os.path.abspath(__file__), "one", name] + (["--weights", weights[name]] if name in weights else [])
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONUNBUFFERED="1")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout, env=env)
            err = None if p.returncode == 0 else "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:])
        except subprocess.TimeoutExpired:
            err = "conversion over %d s (killed)" % a.timeout
        if err:
            _json(rp, {"name": name, "source": BY_NAME[name]["source"], "kept": False, "why": err})
        with open(rp) as f:
            r = json.load(f)
        good = sum(1 for x in records() if x.get("kept"))
        print("fp16_models %-26s %5.0fs %s%s" % (name, time.time() - t0, "kept" if r.get("kept") else "not kept: ",
                                                  "" if r.get("kept") else r.get("why")), flush=True)
    print("fp16_models: %d kept in %s" % (good, os.path.relpath(OUT, top)))
    return 0


MD_HEAD = """# Extra models for the fp16 prediction table

`tools/fp16_models.py list --md` (records of `tools/fp16_models.py build`, build/fp16-extra/).
Every model is the library's own constructor or config with **random init**
(torch.manual_seed(0); BatchNorm statistics calibrated on seeded N(0,1) inputs), converted
with litert-torch; `gpuclean fix` (and gpuclean's loop) only where the plain conversion is
not GPU-clean on native-2.3. Files over 2 MB travel to the GPU machine as **twins**
(../shared/tools/device/twin.py: the same graph, regenerated weights; the *file* column
says which file runs). Kept: GPU-clean and not measured wrong on native-2.3 (`gpuclean
check --runtime native-2.3`), and the device file's fp32 output on gpuclean's interpreter
(sin-pattern images, seeded token ids) finite, not constant and within fp16's range.
Residency columns are the checker's prediction for the converted file, not a device run.
"""


def _conversion(r):
    """How the kept file was made: plain conversion, gpuclean fix passes, the loop."""
    if (r.get("loop") or {}).get("used"):
        return "loop: " + ", ".join(r["loop"].get("applied") or []) or "loop"
    if r.get("fixed"):
        return "fix: " + ", ".join((r.get("fix") or {}).get("passes") or [])
    return "plain" if r.get("check") else ""


def cmd_list(a):
    lines = ["| model | source | file | bytes | conversion | residency native-2.3 | js-2.5 | kept | why not |",
             "|---|---|---|---|---|---|---|---|---|"]
    recs = records()
    for r in recs:
        c = r.get("check") or {}
        res = lambda rt: ((c.get(rt) or {}).get("residency") or "").replace("GPU residency: ", "")  # noqa: E731
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r.get("source", ""), r.get("device_file", ""), r.get("bytes", ""), _conversion(r),
            res(KEEP_RUNTIME), res("js-2.5"), "yes" if r.get("kept") else "no",
            (r.get("why") or "").replace(top + "/", "").replace("|", "\\|")))
    seen = {r["name"] for r in recs}
    lines += ["", "%d of %d kept. Not built (enough were kept before them): %s." % (
        sum(1 for r in recs if r.get("kept")), len(recs), ", ".join(m["name"] for m in MODELS if m["name"] not in seen)
        or "none")]
    text = "\n".join(lines)
    print(text)
    if a.md:
        text = MD_HEAD + "\n" + text
        with open(a.md + ".tmp", "w") as f:
            f.write(text + "\n")
        os.replace(a.md + ".tmp", a.md)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("names", nargs="*")
    b.add_argument("--weights", action="append", default=[], metavar="NAME=PATH")
    b.add_argument("--good", type=int, default=0, help="stop once this many are kept (0: all)")
    b.add_argument("--timeout", type=int, default=1800, help="seconds per model")
    b.add_argument("--force", action="store_true", help="rebuild models already built")
    o = sub.add_parser("one")
    o.add_argument("name", choices=list(BY_NAME))
    o.add_argument("--weights")
    rc = sub.add_parser("recheck")
    rc.add_argument("names", nargs="*")
    ls = sub.add_parser("list")
    ls.add_argument("--md")
    a = ap.parse_args()
    if a.cmd == "one":
        return build_one(a.name, a.weights)
    if a.cmd == "recheck":
        return cmd_recheck(a)
    return cmd_build(a) if a.cmd == "build" else cmd_list(a)


if __name__ == "__main__":
    sys.exit(main())
