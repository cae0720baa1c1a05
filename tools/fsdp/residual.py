#!/usr/bin/env python3
"""Where a training set's error sits: the signed error of every row grouped
by model, GPU type, GPU count, micro-batch, sequence and recomputation, and
how the time per sequence scales with the GPU count, measured against
predicted, in each family of rows that differ only in GPU count.

    tools/fsdp/residual.py [--stepcast build/stepcast] [--engine closed|event]
                           [--min-seq N] [--max-seq N] [--sub OLD=NEW ...]
                           [--rows] [CSV]

Default CSV: ../shared/validation/training/mosaic_fsdp_a100.csv.

--sub OLD=NEW rewrites the notes of every row in a temporary copy of the
set and prints that reading's signed error beside the set's own (e.g.
--sub "flash attention=flash attention 1": how much of a row's error a
reading of its notes carries; the set itself is not changed).

Time per sequence = measured_iter_s / (global_batch / gpus), i.e. one
micro-batch's time divided by the micro-batch on every GPU (rows with
gradient accumulation run global_batch / (gpus x micro_batch) micro-batches
a step). A family is (model, gpu, seq, recompute, dtype, tp, pp); its base
is its smallest GPU count. The scaling table prints, per row of a family,
measured and predicted time per sequence over the base's, and the step time
the measurement adds over the base's pace that the prediction does not
(ms per micro-batch), divided by the layers (the row's `layers` column).
"""
import argparse
import collections
import csv
import io
import os
import statistics
import subprocess
import tempfile

FAMILY = ["model", "gpu", "seq", "recompute", "dtype", "tp", "pp"]


def predicted(exe, path, engine):
    out = subprocess.run([exe, "validate", "--engine", engine, "--format", "csv", path],
                         capture_output=True, text=True, check=False).stdout
    return {r["id"]: float(r["predicted"]) for r in csv.DictReader(io.StringIO(out))
            if r["predicted"] and not r["skipped"]}


def rewritten(path, subs):
    """A temporary copy of `path` with each OLD=NEW applied to the notes."""
    rows = list(csv.DictReader(open(path, newline="")))
    fd, tmp = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            for s in subs:
                old, new = s.split("=", 1)
                r["notes"] = r["notes"].replace(old, new)
            w.writerow(r)
    return tmp


def err(pred, r):
    p = pred.get(r["id"])
    return None if p is None else 100 * (p / float(r["measured_iter_s"]) - 1)


def per_seq(r, t):
    """Seconds per sequence of row r's step time t (one GPU's share)."""
    return t / (int(r["global_batch"]) / int(r["gpus"]))


def groups(rows, pred, alt):
    keys = ["model", "gpu", "gpus", "micro_batch", "seq", "recompute"]
    print("\nsigned error by column value (mean over the rows; 'alt': the --sub reading):")
    for k in keys:
        by = collections.defaultdict(list)
        for r in rows:
            e = err(pred, r)
            if e is not None:
                by[r[k]].append((e, err(alt, r) if alt else None))
        order = sorted(by, key=lambda v: (0, int(v), "") if v.isdigit() else (1, 0, v))
        for v in order:
            es = by[v]
            line = f"  {k:11s} {v:16s} rows {len(es):3d}  signed {statistics.mean(e for e, _ in es):+6.1f}%"
            if alt:
                line += f"  alt {statistics.mean(a for _, a in es if a is not None):+6.1f}%"
            print(line)


def scaling(rows, pred):
    fam = collections.defaultdict(list)
    for r in rows:
        if r["id"] in pred:
            fam[tuple(r[c] for c in FAMILY)].append(r)
    print("\nscaling with the GPU count (family = " + ", ".join(FAMILY) + "; base = fewest GPUs):")
    print(f"  {'model':10s} {'gpu':15s} {'seq':>5s} {'gpus':>5s} {'mb':>4s} {'acc':>4s} "
          f"{'meas/base':>9s} {'pred/base':>9s} {'err':>7s} {'unpred ms/mb':>12s} {'/layer':>7s}")
    for key in sorted(fam, key=lambda k: (k[0], k[1], int(k[2]))):
        rs = sorted(fam[key], key=lambda r: int(r["gpus"]))
        if len(rs) < 2:
            continue
        b = rs[0]
        mb0 = per_seq(b, float(b["measured_iter_s"]))
        pb0 = per_seq(b, pred[b["id"]])
        for r in rs:
            m = per_seq(r, float(r["measured_iter_s"]))
            p = per_seq(r, pred[r["id"]])
            mb = int(r["micro_batch"])
            acc = int(r["global_batch"]) // (int(r["gpus"]) * mb)
            # measured extra over the base's pace, less the predicted extra,
            # for one micro-batch of this row
            unpred = ((m - mb0) - (p - pb0)) * mb * 1e3
            layers = int(r["layers"]) if r.get("layers", "").isdigit() else 0
            per_layer = f"{unpred / layers:7.2f}" if layers else f"{'':7s}"
            print(f"  {r['model']:10s} {r['gpu']:15s} {r['seq']:>5s} {r['gpus']:>5s} {mb:4d} "
                  f"{acc:4d} {m / mb0:9.3f} {p / pb0:9.3f} {err(pred, r):+6.1f}% "
                  f"{unpred:12.1f} {per_layer}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("--engine", default="closed", choices=["closed", "event"])
    ap.add_argument("--min-seq", type=int, default=0)
    ap.add_argument("--max-seq", type=int, default=1 << 30)
    ap.add_argument("--sub", action="append", default=[], metavar="OLD=NEW")
    ap.add_argument("--rows", action="store_true", help="also print every row's error")
    ap.add_argument("csv", nargs="?", default="../shared/validation/training/mosaic_fsdp_a100.csv")
    a = ap.parse_args()
    for s in a.sub:
        if "=" not in s:
            ap.error(f"--sub {s!r}: expected OLD=NEW")
    rows = [r for r in csv.DictReader(open(a.csv, newline=""))
            if a.min_seq <= int(r["seq"]) <= a.max_seq]
    if not rows:
        ap.error(f"{a.csv}: no row with {a.min_seq} <= seq <= {a.max_seq}")
    pred = predicted(a.stepcast, a.csv, a.engine)
    if not pred:
        ap.error(f"{a.stepcast} validate {a.csv}: no prediction (is it built?)")
    alt = {}
    if a.sub:
        tmp = rewritten(a.csv, a.sub)
        try:
            alt = predicted(a.stepcast, tmp, a.engine)
        finally:
            os.unlink(tmp)
    es = [err(pred, r) for r in rows if r["id"] in pred]
    print(f"{a.csv}: {len(es)} rows with {a.min_seq} <= seq <= {a.max_seq}, "
          f"signed {statistics.mean(es):+.1f}%, MAPE {statistics.mean(abs(e) for e in es):.1f}%"
          + (f"; with {', '.join(a.sub)}: signed "
             f"{statistics.mean(err(alt, r) for r in rows if r['id'] in alt):+.1f}%, MAPE "
             f"{statistics.mean(abs(err(alt, r)) for r in rows if r['id'] in alt):.1f}%"
             if alt else ""))
    if a.rows:
        for r in sorted(rows, key=lambda r: (r["model"], r["gpu"], int(r["seq"]), int(r["gpus"]))):
            if r["id"] in pred:
                line = (f"  {r['id']:10s} {r['model']:10s} {r['gpu']:15s} seq {r['seq']:>5s} "
                        f"gpus {r['gpus']:>4s} mb {r['micro_batch']:>3s} {r['recompute']:5s} "
                        f"{err(pred, r):+6.1f}%")
                print(line + (f"  alt {err(alt, r):+6.1f}%" if r["id"] in alt else ""))
    groups(rows, pred, alt)
    scaling(rows, pred)


if __name__ == "__main__":
    main()
