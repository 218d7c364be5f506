#!/usr/bin/env python3
"""html_check.py — checks one gpuclean HTML report in headless Chromium (standard library
only; used by tests/integration/html_report.sh):

  * the page loads without errors: no console message, browser log entry (a CSP
    violation) or uncaught exception — through the DevTools protocol (html_page.mjs) when
    Node is there, else Chromium's own log (--enable-logging) — and the report's script
    reached <body data-js="ready">;
  * nothing escaped the markup: no <img>, no alert() call;
  * a screenshot is not blank (non-background pixels, distinct colours; on small graphs
    every node colour the legend counts is on screen), decoded with zlib, no PIL;
  * the DOM holds every rejected node's reason and the residency line from `check --json`;
  * a click on each rejected node fills the side panel with its op, reason, rule, fix id
    and tensor names; with --series, clicking a plot point selects its node and "colour:
    error" colours the nodes.

usage: html_check.py CHROMIUM REPORT.html CHECK.json [--series] [--small] [--max-load S]
Exit 0 pass, 1 fail (each failure on its own line).
"""
import html
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CLASS_FILL = ["#a8dab5", "#f28b82", "#fcad70", "#d7aefb", "#fff475", "#e8eaed"]   # html_assets.c


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG %d/%d/%d" % (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def normalise(s):
    """what the report shows for a model string: control bytes as U+FFFD (html.c)"""
    return "".join("\ufffd" if (ord(ch) < 32 and ch not in "\n\t") or 0x7f <= ord(ch) < 0xa0 else ch for ch in s)


def main():
    args = sys.argv[1:]
    opts = {a for a in args if a.startswith("--")}
    max_load = 30.0
    if "--max-load" in args:
        max_load = float(args[args.index("--max-load") + 1])
        args = [a for i, a in enumerate(args) if a != "--max-load" and (i == 0 or args[i - 1] != "--max-load")]
    chrome, report, check_json = [a for a in args if not a.startswith("--")][:3]
    check = json.load(open(check_json))
    fails = []
    tmp = tempfile.mkdtemp(prefix="gc-html-")
    url = "file://" + os.path.abspath(report)
    base = [chrome, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--enable-logging=stderr", "--v=0",
            "--user-data-dir=" + os.path.join(tmp, "profile"), "--window-size=1400,1000"]
    try:
        node = shutil.which("node")
        png, dom_path = os.path.join(tmp, "shot.png"), os.path.join(tmp, "dom.html")
        rejected = [k for k, n in enumerate(check["nodes"]) if n["state"] == "rejected"][:5]
        page = None
        t0 = time.time()
        if node:      # one run over the DevTools protocol: log, DOM, screenshot, clicks
            env = dict(os.environ, GC_SHOT=png, GC_DOM=dom_path)
            r = subprocess.run([node, "--experimental-websocket", os.path.join(HERE, "html_page.mjs"), chrome, report]
                               + [str(k) for k in rejected], capture_output=True, text=True, errors="replace",
                               timeout=180, env=env)
            try:
                page = json.loads(r.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                page = {"error": "no result: " + r.stderr[-300:]}
            dom = open(dom_path, encoding="utf-8", errors="replace").read() if os.path.exists(dom_path) else ""
        else:         # Chromium's command line: its log, --dump-dom, --screenshot
            print("note: node not found: the click checks (DevTools protocol) are skipped")
            r = subprocess.run(base + ["--dump-dom", url], capture_output=True, text=True, errors="replace", timeout=120)
            r2 = subprocess.run(base + ["--screenshot=" + png, url], capture_output=True, text=True, errors="replace",
                                timeout=120)
            dom = r.stdout
            for line in (r.stderr + r2.stderr).splitlines():
                if ":CONSOLE" in line:
                    fails.append("console: " + line.strip())
        load_s = time.time() - t0
        if load_s > max_load:
            fails.append("loading took %.1f s (more than %.0f)" % (load_s, max_load))
        if 'data-js="ready"' not in dom:
            fails.append("the report's script did not finish (body data-js is not 'ready')")
        if "<img" in dom:
            fails.append("an <img> element is in the DOM (markup from the model escaped?)")
        text = html.unescape(dom)
        for n in check["nodes"]:
            if n["state"] == "rejected" or (n["state"] == "init_failed" and n["fatal"]):
                if normalise(n["reason"]) not in text:
                    fails.append("node %d's reason is not in the DOM: %r" % (n["index"], n["reason"]))
        if check["summary"]["residency"] not in text:
            fails.append("the residency line is not in the DOM")
        # the screenshot
        if not os.path.exists(png):
            fails.append("no screenshot")
        else:
            w, h, rows = png_pixels(png)
            bg = rows[0][0]
            ink = sum(1 for row in rows for px in row if px != bg and px != (255, 255, 255))
            colours = {px for row in rows[::4] for px in row[::4]}
            if ink < 0.03 * w * h or len(colours) < 8:
                fails.append("the screenshot looks blank: %d of %d pixels drawn, %d colours" % (ink, w * h, len(colours)))
            if "--small" in opts:
                seen = {px for row in rows for px in row}
                counts = [0] * len(CLASS_FILL)
                for n in check["nodes"]:
                    counts[{"gpu": 0, "rejected": 1, "cpu_partition": 2, "fp16_dequant": 2, "init_failed": 2,
                            "skipped": 5}.get(n["state"], 0)] += 1
                for i, c in enumerate(CLASS_FILL):
                    rgb = tuple(int(c[k:k + 2], 16) for k in (1, 3, 5))
                    if counts[i] and i != 0 and rgb not in seen:
                        fails.append("colour %s (%d node(s)) is not on the screenshot" % (c, counts[i]))
        if page is not None:
            if "error" in page:
                fails.append("DevTools run: " + page["error"])
            else:
                if page["state"] != "ready": fails.append("DevTools: data-js is %r" % page["state"])
                if page["images"]: fails.append("DevTools: %d images on the page" % page["images"])
                if page["alerts"]: fails.append("DevTools: alert() was called %d time(s)" % page["alerts"])
                for e in page["exceptions"] + page["console"]: fails.append("DevTools: " + e)
                for k in rejected:
                    n, panel = check["nodes"][k], page["panels"].get(str(k)) or ""
                    want = [n["op"], n["reason"], n["rule"], (n["fix"] or {}).get("id", "")] + [t["name"] for t in n["tensors"]]
                    for w_ in want:
                        if w_ and normalise(w_) not in panel:
                            fails.append("click on node %d: the panel lacks %r" % (k, w_))
                if "--series" in opts:
                    pt = page.get("points") or {}
                    if not pt or pt.get("point") != pt.get("selected"):
                        fails.append("a click on a plot point did not select its node: %r" % pt)
                    if not page.get("errorColours"):
                        fails.append("'colour: error' coloured no node")
        print("%s: %d nodes, loaded in %.1f s, %d bytes" % (report, len(check["nodes"]), load_s, os.path.getsize(report)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL: %s: %s" % (report, f))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
