#!/usr/bin/env python3
"""How much of the measured multi-GPU loss the exchange can explain.

    tools/dp/lossbound.py [--stepcast build/stepcast] [CSV ...]

Per multi-GPU row whose file has the one-GPU row of the same configuration
(scaling.py's keys), with the one-GPU compute error cancelled (both steps
are differences over the same configuration's one-GPU row):

  loss_m   measured extra ms over one GPU (iter_s(n) - iter_s(1))
  loss_p   predicted extra ms (the exposed exchange and its slowdown of the
           backward: what the model charges)
  comm_p   the whole predicted exchange, hidden or not: the most the
           exchange could add if nothing overlapped the backward pass
  beyond   loss_m - comm_p: measured loss that no exposure of the predicted
           exchange reaches (> 0: it needs a slower exchange than the
           NCCL model gives -- the V100 all-reduce model is 7 % off on
           vtrain_allreduce_v100 -- or a cost that is not the exchange)
  cv       the coefficient of variation of a worker's step that would
           explain loss_m - loss_p as the wait for the slowest of n workers
           (dp.jitter: step x cv x E[max of n standard normals]); a
           diagnostic of what such a cost would need, NOT a constant: it
           is read off the rows

Summaries: per GPU count and per framework, the rows whose measured loss
exceeds the whole predicted exchange, and the median implied cv; and the
floor of the scaling-efficiency error (validate's figure) for any model
of the exchange's exposure: each row's predicted loss set, per row, to
its measured loss clamped to [0, comm_p] (nothing hidden at most, all of
it at best) -- what is left is beyond the exchange as predicted.
And the file's own MAPE (validate's figure, every row, one-GPU rows
included) now, at best by the exchange's exposure (each multi-GPU row
predicted as its one-GPU prediction plus that clamped loss), and with
each multi-GPU row's loss exactly as measured (one-GPU prediction plus
the measured loss): what is left then is the one-GPU compute's error,
which no model of the exchange, or of any multi-GPU cost, removes.
"""
import collections
import csv
import math
import statistics

import dpargs
import scaling


def max_normal(k):
    """E[max of k standard normals] (Harter's table to 10, Blom above), as
    src/dp/predict.c dp_max_normal."""
    exact = [0, 0, 0.5642, 0.8463, 1.0294, 1.1630, 1.2672, 1.3522, 1.4236, 1.4850, 1.5388]
    if k <= 10:
        return exact[k]
    p = (k - 0.375) / (k + 0.25)
    lo, hi = 0.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def main():
    exe, files = dpargs.parse(["../shared/validation/dp_training/dlperf_v100_frameworks.csv"])
    print(f"{'framework':44s} {'model':9s} {'dtype':5s} {'gpus':>4s} {'loss_m':>7s} "
          f"{'loss_p':>7s} {'comm_p':>7s} {'beyond':>7s} {'cv%':>5s}")
    groups = collections.defaultdict(list)
    now, floor = [], []
    mape = {"now": [], "exposure": [], "loss": []}
    for path in files:
        pred = scaling.predicted(exe, path)
        rows = list(csv.DictReader(open(path)))
        one = {}
        for r in rows:
            if r["gpus"] == "1" and r["id"] in pred:
                one.setdefault(tuple(r[c] for c in scaling.BASE), r)
        for r in rows:
            base = one.get(tuple(r[c] for c in scaling.BASE))
            if r["id"] in pred and (r["gpus"] == "1" or not base):
                e = abs(pred[r["id"]] / float(r["measured_iter_s"]) - 1)
                for v in mape.values():
                    v.append(e)
            if r["gpus"] == "1" or not base or r["id"] not in pred:
                continue
            m1, mn = float(base["measured_iter_s"]), float(r["measured_iter_s"])
            p1, pn = pred[base["id"]], pred[r["id"]]
            loss_m, loss_p = (mn - m1) * 1e3, (pn - p1) * 1e3
            comm = scaling.comm_ms(exe, path, r["id"])
            n = int(r["gpus"])
            cv = (loss_m - loss_p) / (m1 * 1e3 * max_normal(n)) if n > 1 else float("nan")
            print(f"{r['framework'][:44]:44s} {r['model'][:9]:9s} {r['dtype']:5s} {n:4d} "
                  f"{loss_m:7.1f} {loss_p:7.1f} {comm:7.1f} {loss_m - comm:+7.1f} "
                  f"{100 * cv:5.1f}")
            em = m1 / mn
            now.append(abs(p1 / pn - em) / em)
            best = p1 + min(max(loss_m, 0), comm) / 1e3
            floor.append(abs(p1 / best - em) / em)
            mape["now"].append(abs(pn / mn - 1))
            mape["exposure"].append(abs(best / mn - 1))
            mape["loss"].append(abs((p1 + loss_m / 1e3) / mn - 1))
            for key in (("gpus", r["gpus"]), ("framework", r["framework"])):
                groups[key].append((loss_m > comm, cv))
    print("\nrows whose measured loss exceeds the whole predicted exchange; median implied cv:")
    for (k, v), g in sorted(groups.items()):
        over = sum(1 for o, _ in g if o)
        print(f"  {k:9s} {v:50s} {over:3d} of {len(g):3d}   cv {100 * statistics.median(c for _, c in g):5.1f} %")
    if now:
        print(f"\nscaling efficiency error: {100 * sum(now) / len(now):.1f} % now, "
              f"{100 * sum(floor) / len(floor):.1f} % at best by the exchange's exposure "
              f"({len(now)} rows)")
    if mape["now"]:
        k = len(mape["now"])
        print(f"file MAPE: {100 * sum(mape['now']) / k:.1f} % now, "
              f"{100 * sum(mape['exposure']) / k:.1f} % at best by the exchange's exposure, "
              f"{100 * sum(mape['loss']) / k:.1f} % with every multi-GPU loss as measured "
              f"({k} rows)")


if __name__ == "__main__":
    main()
