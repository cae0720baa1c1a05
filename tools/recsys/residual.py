#!/usr/bin/env python3
"""Where a recommendation set's error sits: every row's signed error joined
with the columns a prediction reads (framework, GPU, GPU count, nodes,
batch, dtype, intra-node link, model) and with where the row comes from
(the submitter and MLPerf round its `source` names), the error grouped by
each of them with the group's share of the file's summed absolute error,
and the floor that rows with identical inputs put under any model's MAPE.

    tools/recsys/residual.py [--stepcast build/stepcast] [--rows N] [--parts] [CSV]

Default CSV: ../shared/validation/recsys/mlperf_dlrm_v0.7-v2.1.csv.

Framework class: the framework names the row's `framework` text contains
(HugeCTR, PyTorch, MXNet, TensorFlow; a container's list of several is
printed as the list, "-" when none is named), the way
src/validate/framework.c reads it, so a group is what the predictor sees.

Identical inputs: rows that stepcast predicts to the same iteration time
(to 1e-9 s) ran the same job as far as the row states it; for each such
group the best single prediction (the one minimising the group's summed
absolute percentage error, which is one of the measured values) gives a
floor under the MAPE that no model reading only these columns can beat.

--parts also asks `stepcast recsys row CSV ID --format json` for every
row's breakdown and groups the rows by the share of the predicted
iteration spent in the exchange (ids and pooled all-to-all, row-wise
reduce-scatter and all-gather): where a model's error follows that share,
the exchange and the rest are mis-weighted against each other.

--room asks the same breakdown for every row whose predicted exchange is
exposed (not hidden by the bottom MLP beside it) and prints how much of it
the measurement leaves room for: the prediction less the exposed exchange
(ids all-to-all, the exposed parts of the pooled and gradient all-to-alls,
reduce-scatter and all-gather), then less the exposed all-reduce too, and
`room` = (measured - prediction less the exchange) / exposed exchange: 0 %
means the measured iteration has no time for any of it, 100 % all of it;
below 0 the rest of the prediction alone is already longer than the
measurement, above 100 % the measurement is longer than the whole
prediction. The same plan throughout (the planner's for the row).

Evaluation check (sets whose `measured_from` gives both a tracked and a
run-average throughput, "run-average incl. evaluation = X samples/s"):
the ratio tracked / run-average per row; 1.000 means the tracked figure
holds the same evaluation time as the run average.

Analysis only: nothing here feeds a prediction.
"""
import argparse
import collections
import csv
import io
import json
import re
import subprocess

NAMES = [("hugectr", "HugeCTR"), ("pytorch", "PyTorch"), ("mxnet", "MXNet"),
         ("tensorflow", "TensorFlow")]


def predicted(exe, path):
    out = subprocess.run([exe, "validate", "--format", "csv", path],
                         capture_output=True, text=True, check=False).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    if not rows:
        raise SystemExit(f"{exe} validate printed no rows for {path}")
    return {r["id"]: float(r["predicted"]) for r in rows
            if r["predicted"] and not r["skipped"]}


def fw_class(text):
    t = text.lower()
    named = [n for k, n in NAMES if k in t]
    return "+".join(named) if named else "-"


def source_parts(text):
    """(submitter, round) a row's `source` names: the folder before
    "/results/" (MLPerf's submitter, in lower case: the set spells some two
    ways) and the MLPerf round of "training_results_vX"; "-" where absent."""
    sub = re.search(r"([A-Za-z][\w.-]*)/results/", text)
    rnd = re.search(r"training_results_(v[0-9.]+)", text)
    return (sub.group(1).lower() if sub else "-"), (rnd.group(1) if rnd else "-")


def table(title, rows, key):
    by = collections.defaultdict(list)
    for r in rows:
        by[key(r)].append(r["err"])
    total = sum(abs(r["err"]) for r in rows) or 1
    print(f"\n{title}")
    print(f"  {'value':42s} {'rows':>4s} {'signed':>8s} {'MAPE':>7s} {'share':>7s}")
    for k in sorted(by, key=lambda v: (len(v), v) if v.isdigit() else (99, v)):
        v = by[k]
        ae = sum(abs(e) for e in v)
        print(f"  {k:42s} {len(v):4d} {sum(v) / len(v):+7.1f}% "
              f"{ae / len(v):6.1f}% {100 * ae / total:6.1f}%")


EXCHANGE = ("ids_s", "a2a_fwd_s", "a2a_bwd_s", "rs_fwd_s", "ag_bwd_s")
BINS = ((0.15, "0-15 %"), (0.30, "15-30 %"), (0.45, "30-45 %"), (9, "45-100 %"))


def exchange_bin(exe, path, rid):
    """The share of the predicted iteration in the exchange, binned."""
    d = breakdown(exe, path, rid)
    if d is None:
        return "-"
    share = sum(d["breakdown"][k] for k in EXCHANGE) / d["iter_s"]
    return next(name for top, name in BINS if share < top)


EXPOSED = ("ids_s", "a2a_fwd_exposed_s", "rs_fwd_exposed_s", "a2a_bwd_exposed_s",
           "ag_bwd_exposed_s")


def breakdown(exe, path, rid):
    out = subprocess.run([exe, "recsys", "row", path, rid, "--format", "json"],
                         capture_output=True, text=True, check=False).stdout
    try:
        return json.loads(out)
    except ValueError:
        return None


def room(exe, path, rows):
    """The exposed exchange of each row whose prediction has one, and the
    share of it that the measured iteration leaves room for."""
    print("\nexposed exchange and the room the measurement leaves for it (ms):")
    print(f"  {'id':16s} {'GPUs':>9s} {'meas':>7s} {'pred':>7s} {'exch':>6s} {'AR':>6s} "
          f"{'less exch':>16s} {'less both':>16s} {'room':>6s}")
    for r in sorted(rows, key=lambda x: x["id"]):
        d = breakdown(exe, path, r["id"])
        if d is None:
            continue
        b = d["breakdown"]
        ex = sum(b[k] for k in EXPOSED)
        if ex <= 0:
            continue
        less, both = d["iter_s"] - ex, d["iter_s"] - ex - b["allreduce_s"]
        print(f"  {r['id']:16s} {r['gpus']:>4s} ({r['nodes']:>2s}) {r['meas'] * 1e3:7.3f} "
              f"{d['iter_s'] * 1e3:7.3f} {ex * 1e3:6.3f} {b['allreduce_s'] * 1e3:6.3f} "
              f"{less * 1e3:7.3f} ({100 * (less / r['meas'] - 1):+5.0f}%) "
              f"{both * 1e3:7.3f} ({100 * (both / r['meas'] - 1):+5.0f}%) "
              f"{100 * (r['meas'] - less) / ex:5.0f}%")


def floor(rows):
    by = collections.defaultdict(list)
    for r in rows:
        by[round(r["pred"], 9)].append(r)
    total, out = 0.0, []
    for p, g in sorted(by.items()):
        ms = [x["meas"] for x in g]
        best = min(sum(abs(c - m) / m for m in ms) for c in ms)
        total += best
        if len(g) > 1:
            out.append((p, g, best))
    print("\nrows with identical inputs (same prediction), measured ms:")
    for p, g, best in out:
        ids = " ".join(f"{x['id'][-3:]}:{x['meas'] * 1e3:.3f}" for x in g)
        print(f"  pred {p * 1e3:.3f} ms  {ids}  (best one value: sum APE {best:.2f})")
    print(f"floor MAPE from identical inputs alone: {100 * total / len(rows):.1f}% "
          f"(file MAPE {sum(abs(r['err']) for r in rows) / len(rows):.1f}%)")


def eval_check(rows):
    ratios = []
    for r in rows:
        m = re.search(r"incl\. evaluation = ([0-9.e+]+)", r["measured_from"])
        if m and r["measured_samples_per_s"]:
            ratios.append(float(r["measured_samples_per_s"]) / float(m.group(1)))
    if ratios:
        print(f"\ntracked / run-average throughput over {len(ratios)} rows: "
              f"{min(ratios):.4f} .. {max(ratios):.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("--rows", type=int, default=1000, help="print the N worst rows")
    ap.add_argument("--parts", action="store_true",
                    help="group by the predicted exchange share (one recsys row call a row)")
    ap.add_argument("--room", action="store_true",
                    help="the exposed exchange and the room the measurement leaves for it")
    ap.add_argument("csv", nargs="?",
                    default="../shared/validation/recsys/mlperf_dlrm_v0.7-v2.1.csv")
    a = ap.parse_args()
    pred = predicted(a.stepcast, a.csv)
    rows = []
    for r in csv.DictReader(open(a.csv, newline="")):
        if r["id"] not in pred:
            continue
        r["meas"] = float(r["measured_iter_ms"]) * 1e-3
        r["pred"] = pred[r["id"]]
        r["err"] = 100 * (r["pred"] / r["meas"] - 1)
        r["fw"] = fw_class(r["framework"])
        r["submitter"], r["round"] = source_parts(r["source"])
        rows.append(r)
    print(f"{'id':16s} {'signed':>8s} {'meas ms':>8s} {'pred ms':>8s}  framework / gpu x gpus "
          f"(nodes) batch dtype intra")
    for r in sorted(rows, key=lambda x: -abs(x["err"]))[:a.rows]:
        print(f"{r['id']:16s} {r['err']:+7.1f}% {r['meas'] * 1e3:8.3f} {r['pred'] * 1e3:8.3f}"
              f"  {r['fw']} / {r['gpu']} x {r['gpus']} ({r['nodes']}) {r['global_batch']} "
              f"{r['dtype']} {r['intra_node']}")
    table("by framework named", rows, lambda r: r["fw"])
    table("by GPU", rows, lambda r: r["gpu"])
    table("by nodes", rows, lambda r: r["nodes"])
    table("by GPUs", rows, lambda r: r["gpus"])
    table("by global batch", rows, lambda r: r["global_batch"])
    table("by intra-node link", rows, lambda r: r["intra_node"])
    table("by model and tables", rows, lambda r: f"{r['model']} ({r['num_tables']} tables)")
    table("by submitter", rows, lambda r: r["submitter"])
    table("by MLPerf round", rows, lambda r: r["round"])
    if a.parts:
        table("by predicted exchange share of the iteration", rows,
              lambda r: exchange_bin(a.stepcast, a.csv, r["id"]))
    if a.room:
        room(a.stepcast, a.csv, rows)
    floor(rows)
    eval_check(rows)


if __name__ == "__main__":
    main()
