#!/usr/bin/env python3
"""tools/gpu_sweep.py collect / table on a hand-written device output (tests/sweep/fixture/):
reports.jsonl in `gpuclean litert --json`'s schema (src/runtime/litert.c,
gc_lrt_report_json), env.txt as device.sh writes it, the packed manifest, and a
results.tar.xz built here holding the runtime logs of two cases. Every status gets a case;
the test checks the fields that decide it. Standard library only (python3 tests/sweep/test_collect.py).
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
tool = os.path.join(top, "tools", "gpu_sweep.py")
fixture = os.path.join(here, "fixture")


def run(*args):
    return subprocess.run([sys.executable, tool] + list(args), capture_output=True, text=True)


def result_json(modes):
    """a result.json as the runners write it (only the fields collect reads)"""
    return json.dumps({"schema": 1, "runtime": "x", "modes": [{"mode": m, "log_errors": e} for m, e in modes.items()]})


class Collect(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpu-sweep-test-")
        cls.dev = os.path.join(cls.tmp, "out")
        os.makedirs(cls.dev)
        for f in ("reports.jsonl", "env.txt", "manifest.jsonl"):
            shutil.copy(os.path.join(fixture, f), cls.dev)
        logs = {
            "split_fx/native/result.json": result_json({
                "gpu-fp32": ["ERROR: [delegate_kernel.cc:119] Output id not found: 4",
                             "ERROR: Restored original execution plan after delegate application failure."],
                "gpu-fp16": ["ERROR: Restored original execution plan after delegate application failure.",
                             "ERROR: [delegate_kernel.cc:119] Output id not found: 4"]}),
            "gather_fx/js/result.json": result_json({
                "gpu-fp32": ["ERROR: [third_party/odml/litert/litert/js/packages/core/src/cpp/litert_web.cc:245]",
                             "\u2514 ERROR: [./third_party/odml/litert/litert/cc/internal/litert_compiled_model_next.h:70]",
                             "ERROR: Unable to parse bc coord for BATCH axis. Layout is bhwc, args are 0, 0, slice_coord_TMP."]}),
        }
        with tarfile.open(os.path.join(cls.dev, "results.tar.xz"), "w:xz") as t:
            for name, text in logs.items():
                data = text.encode()
                info = tarfile.TarInfo("./" + name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        cls.data = os.path.join(cls.tmp, "data")
        cls.res = run("collect", cls.dev, "--out", cls.data)
        cls.rows = {}
        for fn in sorted(os.listdir(cls.data)) if os.path.isdir(cls.data) else []:
            with open(os.path.join(cls.data, fn)) as f:
                cls.rows[fn] = [json.loads(l) for l in f if l.strip()]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def row(self, case, runtime, precision):
        fn = "%s-%s__nvidia-h200.jsonl" % (runtime, "2.3.0" if runtime == "native" else "2.5.3")
        hits = [r for r in self.rows[fn] if r["case"] == case and r["precision"] == precision]
        self.assertEqual(len(hits), 1, (case, runtime, precision))
        return hits[0]

    def test_files_and_keys(self):
        self.assertEqual(self.res.returncode, 0, self.res.stderr)
        self.assertEqual(sorted(self.rows), ["js-2.5.3__nvidia-h200.jsonl", "native-2.3.0__nvidia-h200.jsonl"])
        self.assertEqual(len(self.rows["native-2.3.0__nvidia-h200.jsonl"]), 22)
        self.assertEqual(len(self.rows["js-2.5.3__nvidia-h200.jsonl"]), 10)
        self.assertIn("not in the manifest", self.res.stderr)   # not_in_manifest.tflite was skipped
        r = self.row("conv2d_fx", "native", "fp32")
        self.assertEqual(r["device"], {"label": "nvidia-h200", "name": "NVIDIA H200", "driver": "580.159.04"})
        self.assertEqual((r["runtime"], r["version"], r["family"], r["op"]), ("native", "2.3.0", "conv", "CONV_2D"))
        self.assertEqual(r["attrs"]["kernel_h"], 3)
        self.assertEqual(r["date"], "2026-12-02T10:00:00Z")
        self.assertEqual(r["predicted"], {"gpu_nodes": 1, "total_nodes": 1, "gpu_clean": True})
        statuses = {r["status"] for rs in self.rows.values() for r in rs}
        self.assertEqual(statuses, {"ok", "wrong", "init_failed", "rejected", "cpu_fallback", "cpu_failed", "no_gpu"})

    def test_ok_and_wrong(self):
        r = self.row("conv2d_fx", "native", "fp32")
        self.assertEqual(r["status"], "ok")
        self.assertEqual((r["gpu_nodes"], r["total_nodes"]), (1, 1))
        self.assertAlmostEqual(r["max_abs"], 2e-05)
        self.assertAlmostEqual(r["rel"], 2e-06)
        r = self.row("conv2d_fx", "native", "fp16")
        self.assertEqual(r["status"], "wrong")
        self.assertAlmostEqual(r["rel"], 0.3)
        self.assertAlmostEqual(r["corr"], 0.95)
        self.assertIn("y max |diff| 3", r["message"])
        self.assertEqual(self.row("conv2d_fx", "js", "fp16")["status"], "ok")   # 0.0061 <= 1e-3 + 2e-2 * 10
        # integer output: one step allowed at fp32; 14 of 20 at fp16 is wrong
        self.assertEqual(self.row("cast_fx", "native", "fp32")["status"], "ok")
        r = self.row("cast_fx", "native", "fp16")
        self.assertEqual((r["status"], r["max_abs"]), ("wrong", 14))
        # NaN/Inf where the CPU has none
        r = self.row("div_fx", "native", "fp32")
        self.assertEqual(r["status"], "wrong")
        self.assertIn("3 NaN/Inf mismatches", r["message"])
        self.assertEqual(self.row("div_fx", "native", "fp16")["status"], "ok")
        # exact op: bit-identical at fp32, not at fp16: the GPU ran
        r = self.row("gather_fx", "native", "fp32")
        self.assertEqual((r["status"], r["identical"]), ("ok", True))

    def test_init_failed(self):
        for p in ("fp32", "fp16"):
            r = self.row("split_fx", "native", p)
            self.assertEqual(r["status"], "init_failed")
            self.assertEqual(r["message"], "[delegate_kernel.cc:119] Output id not found: 4")   # from results.tar.xz
            self.assertEqual((r["gpu_nodes"], r["total_nodes"]), (3, 3))
        self.assertEqual(self.row("split_fx", "js", "fp32")["message"], "the delegate failed to build its kernels")
        r = self.row("gather_fx", "js", "fp32")
        self.assertEqual(r["status"], "init_failed")
        self.assertTrue(r["message"].startswith("Unable to parse bc coord for BATCH axis"), r["message"])
        r = self.row("gather_fx", "js", "fp16")   # no log: the mode's own error
        self.assertEqual(r["status"], "init_failed")
        self.assertIn("litert_web.cc:245", r["message"])

    def test_rejected_and_fallback(self):
        r = self.row("cumsum_fx", "native", "fp32")
        self.assertEqual((r["status"], r["gpu_nodes"], r["total_nodes"]), ("rejected", 0, 1))
        self.assertIn("CUMSUM: Input/output must be float type", r["message"])
        r = self.row("softmax_fx", "native", "fp16")   # another op rejected, numbers within tolerance
        self.assertEqual((r["status"], r["gpu_nodes"], r["total_nodes"]), ("cpu_fallback", 2, 3))
        self.assertIn("SQUEEZE: Operation is not supported.", r["message"])
        self.assertAlmostEqual(r["max_abs"], 0.0004)
        r = self.row("softmax_fx", "native", "fp32")   # partially delegated and wrong: a miscompute
        self.assertEqual((r["status"], r["gpu_nodes"], r["total_nodes"]), ("wrong", 2, 3))
        self.assertAlmostEqual(r["corr"], 0.1)
        self.assertIn("(SQUEEZE: Operation is not supported.)", r["message"])
        r = self.row("softmax_fx", "js", "fp32")
        self.assertEqual(r["status"], "cpu_fallback")
        self.assertIn("whole model on the CPU", r["message"])
        r = self.row("mul_fx", "native", "fp32")   # bit-identical at fp32 and fp16, no residency line
        self.assertEqual((r["status"], r["identical"]), ("cpu_fallback", True))

    def test_cpu_failed_and_no_gpu(self):
        r = self.row("pad_fx", "native", "fp32")
        self.assertEqual(r["status"], "cpu_failed")
        self.assertIn("LiteRtCreateCompiledModel", r["message"])
        for rt in ("native", "js"):   # device.sh's error line: no runtime ran; versions from the rest of the run
            r = self.row("dense_fx", rt, "fp16")
            self.assertEqual(r["status"], "cpu_failed")
            self.assertIn("the runner crashed", r["message"])
        r = self.row("resize_fx", "native", "fp32")
        self.assertEqual(r["status"], "no_gpu")
        self.assertIsNone(r["max_abs"])

    def test_table(self):
        t = run("table", self.data)
        self.assertEqual(t.returncode, 0, t.stderr)
        self.assertIn("| split | 1 | 1 init_failed | 1 init_failed | 1 init_failed | 1 init_failed |", t.stdout)
        self.assertIn("| conv | 1 | 1 ok | 1 wrong | 1 ok | 1 ok |", t.stdout)
        self.assertIn("| conv2d_fx | CONV_2D | native-2.3.0 | fp16 | wrong | 1/1 | 3 | 0.3 | 0.950000 |", t.stdout)
        self.assertIn("Output id not found", t.stdout)
        self.assertIn("NVIDIA H200, driver 580.159.04", t.stdout)
        t2 = run("table", self.dev)   # straight from the device folder (manifest found beside it)
        self.assertEqual(t2.returncode, 0, t2.stderr)
        self.assertEqual(t2.stdout, t.stdout)

    def test_merge_fresh_and_label(self):
        part = os.path.join(self.tmp, "part")
        os.makedirs(part, exist_ok=True)
        shutil.copy(os.path.join(fixture, "env.txt"), part)
        shutil.copy(os.path.join(fixture, "manifest.jsonl"), part)
        with open(os.path.join(fixture, "reports.jsonl")) as f, open(os.path.join(part, "reports.jsonl"), "w") as g:
            g.write(next(l for l in f if "conv2d_fx" in l).replace('"max_abs":2e-05', '"max_abs":0.5'))
        data = os.path.join(self.tmp, "merge")
        shutil.copytree(self.data, data)
        r = run("collect", part, "--out", data)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(data, "native-2.3.0__nvidia-h200.jsonl")) as f:
            rows = [json.loads(l) for l in f]
        self.assertEqual(len(rows), 22)                          # the other cases' rows stay
        conv = [x for x in rows if x["case"] == "conv2d_fx" and x["precision"] == "fp32"]
        self.assertEqual([x["status"] for x in conv], ["wrong"])  # replaced by the new run
        self.assertEqual(rows[0]["case"], "conv2d_fx")            # manifest order
        r = run("collect", part, "--out", data, "--fresh", "--device-label", "h200-test")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(data, "native-2.3.0__h200-test.jsonl")) as f:
            self.assertEqual(len(f.readlines()), 2)

    def test_bad_input(self):
        bad = os.path.join(self.tmp, "bad")
        os.makedirs(bad, exist_ok=True)
        shutil.copy(os.path.join(fixture, "manifest.jsonl"), bad)
        with open(os.path.join(bad, "reports.jsonl"), "w") as f:
            f.write("{not json\n")
        r = run("collect", bad, "--out", os.path.join(self.tmp, "bad-data"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("reports.jsonl:1: not JSON", r.stderr)
        r = run("collect", os.path.join(self.tmp, "nowhere"), "--manifest", os.path.join(fixture, "manifest.jsonl"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no reports.jsonl", r.stderr)


class Conditions(unittest.TestCase):
    """table's "what decides the status": the attributes whose values decide it"""

    def test_single_and_pair(self):
        import importlib.util
        spec = importlib.util.spec_from_file_location("gpu_sweep", tool)
        gs = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gs)
        rows = []
        for op in ("SPLIT", "UNPACK"):
            for usage in ("outputs", "consumed", "both"):
                for axis in (1, 3):
                    rows.append({"family": "split", "runtime": "native", "version": "2.3.0", "precision": "fp32",
                                 "case": "%s_%s_%d" % (op, usage, axis), "op": op,
                                 "attrs": {"usage": usage, "axis": axis},
                                 "status": "init_failed" if usage == "both" else "ok"})
                    # fp16: wrong exactly for UNPACK along axis 1
                    rows.append(dict(rows[-1], precision="fp16",
                                     status="wrong" if (op, axis) == ("UNPACK", 1) else "ok"))
        lines = gs.conditions(rows)
        self.assertIn("- split, native-2.3.0 fp32 (12 cases): `usage` decides: ok when usage=consumed | usage=outputs; "
                      "init_failed when usage=both", lines)
        self.assertIn("- split, native-2.3.0 fp16 (12 cases): `axis`, `op` decides: ok when axis=1, op=SPLIT | "
                      "axis=3, op=SPLIT | axis=3, op=UNPACK; wrong when axis=1, op=UNPACK", lines)
        self.assertEqual(len(lines), 2)
        same = [dict(r, status="ok") for r in rows]
        self.assertEqual(gs.conditions(same), [])   # one status: nothing to explain


if __name__ == "__main__":
    unittest.main(verbosity=1)
