#!/usr/bin/env python3
"""fp8_twins.py -- what the fp8 rows of a training set miss beyond their
bf16 twins: for every fp8 row whose id with "fp8" replaced by "bf16" is also
in the set (same model, GPUs and plan, the other type), the residual
(measured - predicted, s) of each (a pair whose plan cells differ, PLAN
below, is left out: it is not a twin), and the part of the fp8 residual its
twin does not share, as a fraction of the fp8 row's modelled GEMM time.

    python3 tools/accuracy/fp8_twins.py [--stepcast build/stepcast]
                                        [--notes TEXT] [CSV]

Default CSV: ../shared/validation/training/dgxc_benchmarking.csv.

extra = r8 - r16, the fp8 residual less its twin's (the twin's residual
read as a cost both types pay alike, in seconds); extra_prop = r8 - r16 x
p8 / p16 (read as a share of the step instead). Both are divided by the
fp8 row's GEMM time: the "gemm" kind of `validate --row ID --ops`
(the first stage's GEMMs of one micro-batch, forward + backward) times the
micro-batches. Columns: err8, err16 the signed errors (predicted over
measured - 1) of the fp8 row and its twin; gemm8 s; extra s; %gemm8 and
%prop extra and extra_prop over gemm8; implied = the modelled bf16/fp8
GEMM ratio with the extra
put on the fp8 GEMMs: gemm16 / (gemm8 + extra). A residual that follows
the fp8 GEMMs gives the same fraction on every pair whatever the model,
tp or cp; one that follows something else (tensor-parallel traffic,
attention, the pipeline) does not.

--notes TEXT appends TEXT to the notes of the fp8 rows in a temporary copy
of the set (e.g. --notes mxfp8: the MXFP8 recipe; --notes "current
scaling"), an analysis only: no rule reads a rewritten note, and the set
itself is not changed (validate skips fp8 rows a recipe does not run
on, MXFP8 before Blackwell: those pairs drop out). The last lines give
%gemm8 per GPU type over its pairs. Analysis of docs/accuracy.md, dgxc
item (8).
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile


PLAN = ["gpus", "global_batch", "micro_batch", "tp", "pp", "dp", "cp", "ep", "vpp", "sp", "zero",
        "recompute", "seq"]


def run(exe, args):
    out = subprocess.run([exe] + args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("fp8_twins.py: %s %s: exit %d\n%s" % (exe, " ".join(args), out.returncode,
                                                       out.stderr.strip()))
    return out.stdout


def row_view(exe, path, rid):
    """(predicted step s, fp8 GEMM s a step) of one row."""
    d = json.loads(run(exe, ["validate", "--row", rid, path, "--ops", "--format", "json"]))
    gemm = next(k for k in d["op_kinds"] if k["name"] == "gemm")
    return d["step_s"], (gemm["fwd_s"] + gemm["bwd_s"]) * d["plan"]["micro_batches"]


def with_notes(path, text):
    """A temporary copy of the set whose fp8 rows' notes end with text."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    notes, dtype = head.index("notes"), head.index("dtype")
    for r in rows[1:]:
        if len(r) > notes and r[dtype].strip().lower() == "fp8":
            r[notes] = (r[notes] + " | " + text) if r[notes] else text
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    fd, tmp = tempfile.mkstemp(suffix=".csv", prefix="fp8_twins_")
    with os.fdopen(fd, "w") as f:
        f.write(out.getvalue())
    return tmp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("--notes", default="")
    ap.add_argument("csv", nargs="?", default="../shared/validation/training/dgxc_benchmarking.csv")
    a = ap.parse_args()
    path = with_notes(a.csv, a.notes) if a.notes else a.csv
    try:
        meas, cells = {}, {}
        for r in csv.DictReader(io.StringIO(run(a.stepcast, ["validate", path, "--format", "csv"]))):
            if r["kind"] == "training" and r["predicted"]:
                meas[r["id"]] = float(r["measured"])
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                cells[r["id"]] = r
        print("%-44s %7s %7s %8s %8s %7s %7s %7s" %
              ("fp8 row (twin: bf16)", "err8", "err16", "gemm8 s", "extra s", "%gemm8", "%prop", "implied"))
        per_gpu = {}
        for rid in sorted(meas):
            twin = rid.replace("fp8", "bf16")
            if "fp8" not in rid or twin not in meas:
                continue
            if any(cells[rid][k] != cells[twin][k] for k in PLAN):
                print("%-44s not a twin (%s)" % (rid, ", ".join(
                    k for k in PLAN if cells[rid][k] != cells[twin][k])))
                continue
            p8, g8 = row_view(a.stepcast, path, rid)
            p16, g16 = row_view(a.stepcast, path, twin)
            r8, r16 = meas[rid] - p8, meas[twin] - p16
            extra, prop = r8 - r16, r8 - r16 * p8 / p16
            print("%-44s %+6.1f%% %+6.1f%% %8.3f %+8.3f %6.1f%% %6.1f%% %7.2f" %
                  (rid, -100 * r8 / meas[rid], -100 * r16 / meas[twin], g8, extra,
                   100 * extra / g8, 100 * prop / g8, g16 / (g8 + extra)))
            per_gpu.setdefault(cells[rid]["gpu"], []).append(100 * extra / g8)
        for g, v in sorted(per_gpu.items()):
            print("%s: %d pairs, extra %% of fp8 GEMM time: mean %.1f, median %.1f, %.1f..%.1f" %
                  (g, len(v), statistics.mean(v), statistics.median(v), min(v), max(v)))
    finally:
        if path != a.csv:
            os.unlink(path)


if __name__ == "__main__":
    main()
