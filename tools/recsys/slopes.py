#!/usr/bin/env python3
"""What a recommendation batch sweep says about cost per sample, local or
global, without the model.

    tools/recsys/slopes.py [--stepcast build/stepcast] [CSV]

Default CSV: ../shared/validation/recsys/hugectr_wdl_batch_sweep.csv.

A family is the rows that differ only in the batch (every input column a
prediction reads but `global_batch` and `batch_per_gpu`). A least-squares
line through a family's points, weighted by 1/measured (each row counts
by its relative error, the way MAPE counts it),

    iteration ms  =  intercept  +  slope x global batch

over at least 3 batches spanning a factor of 4 or more (a narrower span
leaves the slope to the rows' noise) gives the family's fixed cost (ms) and its cost per sample of the global
batch (us). The same line through the predicted iterations gives the
model's, so the error of a family splits into a fixed part and a
per-sample part.

Split: for one model and GPU type at two GPU counts n1 < n2 (same
framework, dtype and sharding kind ignored: the sharding changes with the
count), a per-GPU cost of `a` us per *local* sample plus `b` us per
*global* sample gives slopes a / n + b per global sample, so the two
slopes solve for a and b exactly. The solution is not evidence that such
a global-batch cost exists at n1: a cost present only beyond one GPU, or
one proportional to any other per-count quantity, fits the same two
slopes (two counts give two equations), which the printed alternative
(`a = slope(n1) x n1` when n1 is 1, the rest global at n2 only) shows.

Pairs: each multi-GPU row beside the one-GPU row of the same model,
GPU, framework and dtype whose batch is its local batch (the same dense
work per GPU): what the n-GPU iteration costs beyond it, in ms and in ns
per sample of the global batch, measured and predicted (docs/accuracy.md,
HugeCTR's tenth round).

Analysis only: nothing here feeds a prediction.
"""
import argparse
import collections
import csv

from residual import predicted  # seconds per iteration by row id

SPAN = 4  # a family's largest batch at least this many times its smallest
BATCH = ("global_batch", "batch_per_gpu")
SKIP = ("id", "source", "notes", "measured_samples_per_s", "measured_iter_ms",
        "measured_from", "confidence", "unstated_inputs", "sharding",
        "sharding_detail", "intra_node", "intra_node_GBps") + BATCH


def line(xs, ys):
    """Weighted least squares y = c + s x, weights 1/y (relative error)."""
    w = [1.0 / y for y in ys]
    sw = sum(wi * wi for wi in w)
    sx = sum(wi * wi * x for wi, x in zip(w, xs))
    sxx = sum(wi * wi * x * x for wi, x in zip(w, xs))
    sy = sum(wi * wi * y for wi, y in zip(w, ys))
    sxy = sum(wi * wi * x * y for wi, x, y in zip(w, xs, ys))
    det = sw * sxx - sx * sx
    if det <= 0:
        return None
    return (sxx * sy - sx * sxy) / det, (sw * sxy - sx * sy) / det


def families(rows, pred):
    fam = collections.defaultdict(list)
    for r in rows:
        if r["id"] not in pred:
            continue
        key = tuple((k, r[k]) for k in r if k not in SKIP)
        fam[key].append(r)
    return fam


def fit(rs, pred):
    xs = [float(r["global_batch"]) for r in rs]
    meas = line(xs, [float(r["measured_iter_ms"]) for r in rs])
    model = line(xs, [pred[r["id"]] * 1e3 for r in rs])
    return meas, model


PAIR = ("model", "gpu", "framework", "dtype", "tables", "top_mlp", "bottom_mlp")


def pairs(rows, pred):
    """(n-GPU row, one-GPU row of the same local batch) for every
    multi-GPU row that has one, by GPU count then global batch."""
    one = {}
    for r in rows:
        if int(r["gpus"]) == 1 and r["id"] in pred:
            one[tuple(r[k] for k in PAIR) + (r["batch_per_gpu"],)] = r
    out = []
    for r in rows:
        if int(r["gpus"]) > 1 and r["id"] in pred:
            o = one.get(tuple(r[k] for k in PAIR) + (r["batch_per_gpu"],))
            if o:
                out.append((r, o))
    return sorted(out, key=lambda p: (int(p[0]["gpus"]), int(p[0]["global_batch"])))


def print_pairs(rows, pred):
    ps = pairs(rows, pred)
    if not ps:
        return
    print("pair (n GPUs / 1 GPU) | gpus | local batch | measured ms n / 1 | "
          "extra ms measured / predicted | extra ns per global sample measured / predicted")
    for r, o in ps:
        g = float(r["global_batch"])
        mn, m1 = float(r["measured_iter_ms"]), float(o["measured_iter_ms"])
        pn, p1 = pred[r["id"]] * 1e3, pred[o["id"]] * 1e3
        print(f"{r['id']} / {o['id']} | {r['gpus']} | {r['batch_per_gpu']}"
              f" | {mn:.3f} / {m1:.3f} | {mn - m1:.3f} / {pn - p1:.3f}"
              f" | {(mn - m1) / g * 1e6:.0f} / {(pn - p1) / g * 1e6:.0f}")


def sweep_rows(doc):
    """The command line `[--stepcast EXE] [CSV]` (doc: the tool's
    docstring; default CSV the W&D sweep) read into the CSV's rows and
    the predicted seconds by row id."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("csv", nargs="?",
                    default="../shared/validation/recsys/hugectr_wdl_batch_sweep.csv")
    a = ap.parse_args()
    return list(csv.DictReader(open(a.csv))), predicted(a.stepcast, a.csv)


def main():
    rows, pred = sweep_rows(__doc__)
    fams = families(rows, pred)
    print("family (model, gpu, gpus, framework, dtype) | rows | batches | "
          "measured ms + us/sample | predicted ms + us/sample | missing us/sample")
    slopes = collections.defaultdict(dict)
    for key, rs in sorted(fams.items(), key=lambda kv: (kv[1][0]["model"],
                                                         int(kv[1][0]["gpus"]))):
        lo = min(int(r["global_batch"]) for r in rs)
        hi = max(int(r["global_batch"]) for r in rs)
        if len({r["global_batch"] for r in rs}) < 3 or hi < SPAN * lo:
            continue
        (mc, ms), (pc, ps) = fit(rs, pred)
        r0 = rs[0]
        print(f"{r0['model']}, {r0['gpu']}, {r0['gpus']}, {r0['framework']}, {r0['dtype']}"
              f" | {len(rs)} | {lo}-{hi} | {mc:.3f} + {ms * 1e3:.4f}"
              f" | {pc:.3f} + {ps * 1e3:.4f} | {(ms - ps) * 1e3:+.4f}")
        slopes[(r0["model"], r0["gpu"])][int(r0["gpus"])] = (ms * 1e3, ps * 1e3)
    for (model, gpu), by in sorted(slopes.items()):
        counts = sorted(by)
        if len(counts) < 2:
            continue
        n1, n2 = counts[0], counts[-1]
        for what, i in (("measured", 0), ("predicted", 1)):
            s1, s2 = by[n1][i], by[n2][i]
            loc = (s1 - s2) / (1.0 / n1 - 1.0 / n2)
            glob = s1 - loc / n1
            line_ = (f"split {model} {gpu} {what}: {loc:.4f} us per local sample"
                     f" + {glob:.4f} us per global sample at every count")
            if n1 == 1:
                extra = s2 - s1 / n2
                line_ += (f"; or {s1:.4f} per local sample + {extra:.4f} per global"
                          f" sample at {n2} GPUs only")
            print(line_)
    print_pairs(rows, pred)


if __name__ == "__main__":
    main()
