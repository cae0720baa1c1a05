#!/usr/bin/env python3
"""Scaling efficiency per framework x model x dtype x GPU count: measured
against predicted, each against the one-GPU row of the same configuration
(the same columns src/validate/dp_rows.c keys the one-GPU row on: model
variant, batch, accumulation, seq, dtype, data, GPU, framework).

    tools/dp/scaling.py [--stepcast build/stepcast] [CSV ...]

Efficiency = iter_s(1 GPU) / iter_s(n GPUs) (weak scaling: the per-GPU
batch is the same). Prints per group the measured and predicted
efficiency, the multi-GPU step's extra time over one GPU (ms, measured and
predicted), the predicted exchange time (ms, every message, hidden or not), and the mean absolute efficiency error per column value.
Default CSV: ../shared/validation/dp_training/dlperf_v100_frameworks.csv.
"""
import collections
import csv
import io
import subprocess

import dpargs

BASE = ["model_variant", "batch_per_gpu", "grad_accum", "seq", "dtype", "data", "gpu",
        "framework"]


def predicted(exe, path):
    out = subprocess.run([exe, "validate", "--format", "csv", path], capture_output=True,
                         text=True, check=False).stdout
    return {r["id"]: float(r["predicted"]) for r in csv.DictReader(io.StringIO(out))
            if r["predicted"] and not r["skipped"]}


def comm_ms(exe, path, rid):
    """The predicted exchange time of row rid (all messages, hidden or not), ms."""
    out = subprocess.run([exe, "validate", "--row", rid, path], capture_output=True, text=True,
                         check=False).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) > 7 and f[1] in ("allreduce", "ps", "gossip"):
            return float(f[6]) * 1e3
    return float("nan")


def main():
    exe, files = dpargs.parse(["../shared/validation/dp_training/dlperf_v100_frameworks.csv"])
    by = collections.defaultdict(list)
    extra = collections.defaultdict(list)  # framework -> predicted - measured extra ms
    print(f"{'framework':48s} {'model':10s} {'dtype':5s} {'bs':>4s} {'gpus':>4s} "
          f"{'eff_m':>6s} {'eff_p':>6s} {'d_eff':>6s} {'extra_m':>8s} {'extra_p':>8s} {'comm_p':>8s}")
    for path in files:
        pred = predicted(exe, path)
        rows = list(csv.DictReader(open(path)))
        one = {}
        for r in rows:
            if r["gpus"] == "1" and r["id"] in pred:
                one.setdefault(tuple(r[c] for c in BASE), r)
        for r in rows:
            base = one.get(tuple(r[c] for c in BASE))
            if r["gpus"] == "1" or not base or r["id"] not in pred:
                continue
            m1, mn = float(base["measured_iter_s"]), float(r["measured_iter_s"])
            p1, pn = pred[base["id"]], pred[r["id"]]
            em, ep = m1 / mn, p1 / pn
            print(f"{r['framework'][:48]:48s} {r['model']:10s} {r['dtype']:5s} "
                  f"{r['batch_per_gpu']:>4s} {r['gpus']:>4s} {em:6.3f} {ep:6.3f} {ep - em:+6.3f} "
                  f"{(mn - m1) * 1e3:8.1f} {(pn - p1) * 1e3:8.1f} "
                  f"{comm_ms(exe, path, r['id']):8.1f}")
            for key in ("framework", "model", "dtype", "gpus"):
                by[(key, r[key])].append(abs(ep - em) / em)
            by[("model x dtype x gpus", f"{r['model']} {r['dtype']} {r['gpus']}")].append(
                abs(ep - em) / em)
            extra[r["framework"]].append(((pn - p1) - (mn - m1)) * 1e3)
    print("\nmean |efficiency error| / measured efficiency:")
    for (k, v), e in sorted(by.items()):
        print(f"  {k:22s} {v:50s} {100 * sum(e) / len(e):6.1f}% ({len(e)} rows)")
    print("\nextra ms over one GPU, predicted - measured (mean, signed; the exchange's error"
          " with the one-GPU compute subtracted out):")
    for fw, e in sorted(extra.items()):
        print(f"  {fw:50s} {sum(e) / len(e):+8.1f} ms ({len(e)} rows)")


if __name__ == "__main__":
    main()
