#!/usr/bin/env python3
"""Signed error by (model, GPU-count band): run `stepcast validate` on
dp_training CSVs and print, per file, model and band of the `gpus`
column, the rows, the mean signed error (predicted / measured - 1) and
the MAPE, as docs/accuracy.md reports them for the MLPerf set.

    tools/dp/bands.py [--stepcast build/stepcast] [CSV ...]

Default CSVs: ../shared/validation/dp_training/*.csv. Bands: 1, 2-8 (one
server), 9-128, 129-1,023, 1,024 and more. Skipped rows are counted
apart. Nothing here changes a prediction: it reads validate's CSV output
and the measurement file's `model` and `gpus` columns.
"""
import collections
import csv
import io
import os
import subprocess
import sys

import dpargs

BANDS = [(1, 1), (2, 8), (9, 128), (129, 1023), (1024, 10**9)]


def band(n):
    for lo, hi in BANDS:
        if lo <= n <= hi:
            return f"{lo}-{hi}" if hi < 10**9 else f"{lo}+"
    return "?"


def one_file(exe, path):
    out = subprocess.run([exe, "validate", "--format", "csv", path], capture_output=True,
                         text=True)
    if out.returncode:
        print(f"{path}: stepcast validate failed: {out.stderr.strip()}", file=sys.stderr)
        return 1
    pred = {r["id"]: r for r in csv.DictReader(io.StringIO(out.stdout))}
    cells = collections.OrderedDict()
    skipped = collections.Counter()
    for row in csv.DictReader(open(path)):
        p = pred.get(row["id"])
        key = (row["model"], band(int(row["gpus"] or 1)))
        if not p or not p["predicted"] or p["skipped"]:
            skipped[key] += 1
            continue
        meas = float(p["measured"])
        cells.setdefault(key, []).append(float(p["predicted"]) / meas - 1)
    print(f"\n{os.path.basename(path)}")
    print("| model | GPUs | rows | signed | MAPE | skipped |")
    print("|---|---|---:|---:|---:|---:|")
    for key in sorted(set(cells) | set(skipped),
                      key=lambda k: (k[0], int(k[1].split("-")[0].rstrip("+")))):
        e = cells.get(key, [])
        sign = f"{100 * sum(e) / len(e):+.1f} %" if e else "-"
        mape = f"{100 * sum(abs(x) for x in e) / len(e):.1f} %" if e else "-"
        print(f"| {key[0]} | {key[1]} | {len(e)} | {sign} | {mape} | {skipped[key]} |")
    return 0


def main():
    exe, files = dpargs.parse()
    rc = 0
    for f in files:
        rc |= one_file(exe, f)
    return rc


if __name__ == "__main__":
    sys.exit(main())
