#!/usr/bin/env python3
"""What the TCP rows' exchange costs per byte, measured against predicted.

    tools/dp/tcprate.py [--stepcast build/stepcast] [CSV ...]

Per data-parallel row that crosses servers over TCP (`transport` tcp,
more than one server), from `validate --row ID --format json`:

  comp     the predicted compute of one step (one GPU, s)
  exch_m   measured step less that compute: the exchange the run left
           exposed, as far as the predicted compute is right (s)
  exch_p   the predicted exposed exchange (step_s - compute_s, s)
  ns/B     each of the two per byte of gradient (= of model for fp32
           CNNs): the exchange's cost per byte the step moves
  ratio    exch_m / exch_p

Then per scheme and model, the row at the smallest batch per GPU (where
the compute, and so its error, is smallest and the least of the exchange
hides), and per scheme over those rows: the median ns/B measured and
predicted, and the least-squares split of each exchange into a cost per
byte and a cost per message (exch = a x bytes + c x messages, messages
as the model counts them: one per tensor for KungFu's per-tensor
all-reduces, one per fused buffer for Horovod). A figure per scheme that
is flat across models whose tensor counts differ (ResNet-50 161
tensors, Inception-v3 284, VGG16 32), c near 0, says the exchange costs
per byte and its per-tensor costs overlap; a c the model has and the
rows do not says the model serialises what runs concurrently
(docs/accuracy.md, "Branch kungfu29").
Where the one-GPU compute is itself off, exch_m carries that error:
tf_cnn_benchmarks' K80 rows are -30..-40 % on one GPU already, so their
figures say nothing of the exchange (docs/accuracy.md, "K80 compute").
A diagnostic, not a constant: nothing here feeds the model.
Default CSV: every file of ../shared/validation/dp_training.
"""
import collections
import csv
import json
import statistics
import subprocess

import dpargs


MSG_SPREAD = 4  # least ratio of message counts for a per-message split


def target(r):
    """The row's measured seconds (worker_step_s of an asynchronous row)."""
    col = "worker_step_s" if r["synchronous"] == "0" else "measured_iter_s"
    return float(r[col]) if r[col] else 0.0


def crosses_tcp(r):
    """1 when the row's exchange crosses servers over sockets."""
    nodes = int(r["nodes"] or 0)
    return r["transport"].strip().lower() == "tcp" and nodes > 1


def exchange(measured_s, compute_s, exposed_s, grad_bytes):
    """(exch_m, exch_p, ns per byte measured, ns per byte predicted, ratio)
    of one row; seconds, bytes. ratio is None where nothing is predicted
    exposed."""
    exch_m = measured_s - compute_s
    per_m = exch_m / grad_bytes * 1e9
    per_p = exposed_s / grad_bytes * 1e9
    ratio = exch_m / exposed_s if exposed_s > 0 else None
    return exch_m, exposed_s, per_m, per_p, ratio


def smallest_batch(rows):
    """{(scheme, model): the row of the smallest batch per GPU}."""
    best = {}
    for r in rows:
        k = (r["scheme"], r["model"])
        if k not in best or int(r["batch_per_gpu"]) < int(best[k]["batch_per_gpu"]):
            best[k] = r
    return best


def scheme_medians(per_row):
    """{scheme: (median ns/B measured, median ns/B predicted, models)} of
    a list of (scheme, ns/B measured, ns/B predicted)."""
    by = collections.defaultdict(list)
    for scheme, m, p in per_row:
        by[scheme].append((m, p))
    return {s: (statistics.median(m for m, _ in v), statistics.median(p for _, p in v), len(v))
            for s, v in by.items()}


def split(points):
    """(a s/byte, c s/message) minimising the squared error of
    seconds = a x bytes + c x messages over points, a list of (bytes,
    messages, seconds); None with fewer than two points, where the
    message counts differ by less than a factor MSG_SPREAD (Horovod's two
    to four fused buffers: the split would be read off noise) or where
    the points do not tell bytes and messages apart (singular normal
    equations)."""
    msgs = [m for _, m, _ in points]
    if len(points) < 2 or min(msgs) <= 0 or max(msgs) < MSG_SPREAD * min(msgs):
        return None
    sbb = sum(b * b for b, _, _ in points)
    sbm = sum(b * m for b, m, _ in points)
    smm = sum(m * m for _, m, _ in points)
    sbt = sum(b * t for b, _, t in points)
    smt = sum(m * t for _, m, t in points)
    det = sbb * smm - sbm * sbm
    if abs(det) <= 1e-9 * sbb * smm:
        return None
    return (sbt * smm - smt * sbm) / det, (smt * sbb - sbt * sbm) / det


def predict_row(exe, path, rid):
    """(compute_s, exposed_s, grad_bytes, messages) of the row's scheme."""
    out = subprocess.run([exe, "validate", "--row", rid, "--format", "json", path],
                         capture_output=True, text=True, check=True).stdout
    s = json.loads(out)["schemes"][0]
    return s["compute_s"], s["step_s"] - s["compute_s"], s["grad_bytes"], s["messages"]


def print_split(name, points):
    """One line: the per-byte and per-message split of points."""
    ac = split(points)
    if ac is None:
        print("      %-9s bytes and messages not told apart" % name)
    else:
        print("      %-9s %6.2f ns per byte + %7.3f ms per message" %
              (name, ac[0] * 1e9, ac[1] * 1e3))


def main():
    exe, files = dpargs.parse()
    for path in files:
        with open(path, newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if crosses_tcp(r) and target(r) > 0]
        if not rows:
            continue
        print("%s: %d TCP rows across servers" % (path, len(rows)))
        print("  %-22s %-13s %5s %8s %8s %8s %7s %7s %6s" %
              ("scheme", "model", "batch", "comp", "exch_m", "exch_p", "ns/B m", "ns/B p", "ratio"))
        low = smallest_batch(rows)
        summary = []
        pts = collections.defaultdict(lambda: ([], []))
        for r in sorted(rows, key=lambda r: (r["scheme"], r["model"], int(r["batch_per_gpu"]))):
            comp, exposed, grad, msgs = predict_row(exe, path, r["id"])
            exch_m, exch_p, per_m, per_p, ratio = exchange(target(r), comp, exposed, grad)
            mark = "*" if low[(r["scheme"], r["model"])] is r else " "
            print("  %-22s %-13s %5s %8.4f %8.4f %8.4f %7.2f %7.2f %6s%s" %
                  (r["scheme"], r["model"], r["batch_per_gpu"], comp, exch_m, exch_p, per_m,
                   per_p, "%.2f" % ratio if ratio is not None else "-", mark))
            if mark == "*":
                summary.append((r["scheme"], per_m, per_p))
                pts[r["scheme"]][0].append((grad, msgs, exch_m))
                pts[r["scheme"]][1].append((grad, msgs, exch_p))
        print("  per scheme, rows at the smallest batch (*): median ns per byte; split")
        for s, (m, p, k) in sorted(scheme_medians(summary).items()):
            print("    %-22s measured %5.2f  predicted %5.2f  (%.2fx, %d models)" %
                  (s, m, p, m / p if p > 0 else float("nan"), k))
            print_split("measured", pts[s][0])
            print_split("predicted", pts[s][1])


if __name__ == "__main__":
    main()
