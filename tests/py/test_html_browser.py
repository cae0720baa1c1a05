#!/usr/bin/env python3
"""test_html_browser.py -- the HTML reports in a real browser (Debian's
headless Chromium): each page renders, every chart has the number of
series it declares (counted in the DOM Chromium builds, --dump-dom), the
browser logs no console error, and a screenshot (--screenshot) is not
blank: it shows the charts' colours. Usage: test_html_browser.py
PATH/TO/stepcast (from the source root). Exit 77 (skipped, loudly) when no
Chromium is installed.
"""
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

CLI = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOPO = os.path.join(ROOT, "examples", "topologies", "two_dgx_a100.json")
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#999999"]

# page -> (CLI arguments before --html, {chart: series} expected at least)
PAGES = {
    "predict": (["predict"], {"breakdown": 5, "timeline": 4, "memory": 5}),
    "search": (["search", os.path.join(ROOT, "examples", "llama3-70b-512-h100.json")],
               {"pareto": 3}),
    "validate": (["validate"], {"validation-0": 2, "validation-5": 2}),
    "collective": (["collective", "--ranks", "16", "--ppn", "8", "--topo", TOPO,
                    "--max", "64M"], {"busbw": 2}),
}
failures = []


def fail(page, msg):
    failures.append(f"{page}: {msg}")
    print(f"FAIL: {page}: {msg}")


class Charts(html.parser.HTMLParser):
    """Charts (svg.chart) of a DOM, their declared and counted series and
    the colours their series are drawn in."""

    def __init__(self):
        super().__init__()
        self.charts = {}   # name -> [declared, counted]
        self.colours = set()
        self.current = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "svg" and "chart" in classes:
            self.current = a.get("data-chart")
            self.charts[self.current] = [int(a.get("data-series", "-1")), 0]
            self.depth = 0
        elif self.current is not None:
            self.depth += 1
            if "series" in classes:
                self.charts[self.current][1] += 1
                for k in ("fill", "stroke"):
                    if (a.get(k) or "").upper() in PALETTE:
                        self.colours.add(a[k].upper())

    def handle_endtag(self, tag):
        if self.current is None:
            return
        if tag == "svg" and self.depth == 0:
            self.current = None
        else:
            self.depth -= 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.current is not None and tag != "svg":
            self.depth -= 1


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} type {ctype}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def screenshot_colours(path):
    """Share of non-white pixels, and the palette colours seen (>= 12 sampled px: a legend key is 25)."""
    w, h, bpp, rows = png_pixels(path)
    counts, non_white = {}, 0
    for row in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            rgb = row[x:x + 3]
            if rgb != b"\xff\xff\xff":
                non_white += 1
                counts[rgb] = counts.get(rgb, 0) + 1
    seen = {c for c in PALETTE if counts.get(bytes.fromhex(c[1:]), 0) >= 12}
    return non_white / max(1, (h // 2) * (w // 2)), seen


def chromium(args, tmp):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--enable-logging=stderr", "--v=0",
           f"--user-data-dir={os.path.join(tmp, 'profile')}"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("SKIPPED: ***** chromium is not installed (scripts/deps.sh installs it): "
              "the HTML reports were NOT checked in a browser *****")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        for page, (args, want) in PAGES.items():
            out = os.path.join(tmp, page + ".html")
            p = subprocess.run([CLI] + args + ["--html", out], capture_output=True, text=True,
                               cwd=ROOT)
            if p.returncode != 0 or not os.path.getsize(out):
                fail(page, f"stepcast exit {p.returncode}: {p.stderr.strip()[:200]}")
                continue
            src = open(out, encoding="utf-8").read()
            if "http://" in src.replace('xmlns="http://www.w3.org/2000/svg"', "") or \
                    "https://" in src or "<script" in src:
                fail(page, "the page links out or runs a script (must be self-contained)")
            url = "file://" + out
            r = chromium(["--dump-dom", url], tmp)
            if r.returncode != 0 or "<svg" not in r.stdout:
                fail(page, f"chromium --dump-dom failed ({r.returncode}): {r.stderr[-300:]}")
                continue
            console = [l for l in r.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
            if console:
                fail(page, f"console messages: {console[:3]}")
            charts = Charts()
            charts.feed(r.stdout)
            for name, (declared, counted) in charts.charts.items():
                if declared < 1 or counted != declared:
                    fail(page, f"chart {name}: {counted} series drawn, {declared} declared")
            for name, n in want.items():
                if name not in charts.charts:
                    fail(page, f"chart {name} missing (have {sorted(charts.charts)})")
                elif charts.charts[name][1] < n:
                    fail(page, f"chart {name}: {charts.charts[name][1]} series, expected >= {n}")
            png = os.path.join(tmp, page + ".png")
            need = min(3, len(charts.colours))
            # Headless chromium on a loaded machine can capture before the
            # page is painted (CI saw only the axes' grey once): up to three
            # captures, the checks below judge the last.
            for attempt in range(3):
                r = chromium(["--window-size=1100,1400", f"--screenshot={png}", url], tmp)
                if r.returncode != 0 or not os.path.exists(png):
                    break
                ink, seen = screenshot_colours(png)
                if ink >= 0.02 and len(seen & charts.colours) >= need:
                    break
            if r.returncode != 0 or not os.path.exists(png):
                fail(page, f"chromium --screenshot failed ({r.returncode}): {r.stderr[-300:]}")
                continue
            if ink < 0.02:
                fail(page, f"screenshot is blank ({100 * ink:.2f} % of pixels not white)")
            if len(seen & charts.colours) < need:
                fail(page, f"screenshot shows {sorted(seen)} of the series colours "
                           f"{sorted(charts.colours)}")
            print(f"ok: {page}: {len(charts.charts)} charts "
                  f"({', '.join(f'{k} {v[1]}' for k, v in charts.charts.items())} series), "
                  f"screenshot {100 * ink:.0f} % ink, colours {len(seen)}")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
