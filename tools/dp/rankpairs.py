#!/usr/bin/env python3
"""Every scheme pair of a ranking group, and which are misordered.

    tools/dp/rankpairs.py [--stepcast build/stepcast] [--all] [CSV ...]

A ranking group is what src/validate/dp_rows.c (vdp_keys, vdp_rank)
compares: rows equal in model variant, batch, accumulation, seq, dtype,
data, GPU, GPUs, GPUs per server, servers, wiring, network and fabric, and
of different schemes. A pair counts when the measured targets differ; it
is right when the predicted order is the measured one (a predicted tie:
half). Printed per misordered pair (all pairs with --all): the group, the
two rows and schemes, the measured ratio B/A of the targets and the
predicted ratio, and a verdict:

  tie     the measured targets differ by less than 2 % or by less than
          the two rows' reading uncertainty (measured_uncertainty,
          samples/s, turned into seconds): an order no model can be held
          to, which the figure still counts
  WRONG   a real misorder

Then per file: pairs, right (as the figure counts them), misordered ties,
real misorders, and the figure with the ties left out.
Default CSV: every file of ../shared/validation/dp_training.
"""
import collections
import csv
import io
import subprocess

import dpargs

GROUP = ["model_variant", "batch_per_gpu", "grad_accum", "seq", "dtype", "data", "gpu",
         "gpus", "gpus_per_node", "nodes", "intra_node", "network_Gbps", "fabric"]
TIE_REL = 0.02  # measured difference under which an order is a tie


def predicted(exe, path):
    """{row id: predicted seconds} of the rows validate predicted."""
    out = subprocess.run([exe, "validate", "--format", "csv", path], capture_output=True,
                         text=True, check=False).stdout
    return {r["id"]: float(r["predicted"]) for r in csv.DictReader(io.StringIO(out))
            if r["predicted"] and not r["skipped"]}


def target(r):
    """The row's measured seconds (worker_step_s of an asynchronous row)."""
    col = "worker_step_s" if r["synchronous"] == "0" else "measured_iter_s"
    return float(r[col]) if r[col] else 0.0


def unc_s(r, t):
    """The reading uncertainty in seconds (0 when printed)."""
    u, sps = r["measured_uncertainty"], r["measured_samples_per_s"]
    if not u or not sps or float(sps) <= 0:
        return 0.0
    return t * float(u) / float(sps)


def label(r):
    return "%s %s b%s %sg %s %s" % (r["model_variant"], r["dtype"], r["batch_per_gpu"],
                                     r["gpus"], r["gpu"], r["data"].split(" ")[0])


def pairs_of(rows, pred):
    """Yield (a, b, ma, mb, pa, pb, tie) for every counted pair."""
    groups = collections.defaultdict(list)
    for r in rows:
        if r["id"] in pred and target(r) > 0:
            groups[tuple(r[c] for c in GROUP)].append(r)
    for g in groups.values():
        for i, a in enumerate(g):
            for b in g[i + 1:]:
                ma, mb = target(a), target(b)
                if a["scheme"] == b["scheme"] or ma == mb:
                    continue
                pa, pb = pred[a["id"]], pred[b["id"]]
                tie = abs(mb - ma) < TIE_REL * min(ma, mb) or \
                    abs(mb - ma) <= unc_s(a, ma) + unc_s(b, mb)
                yield a, b, ma, mb, pa, pb, tie


def report(exe, path, show_all):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    pred = predicted(exe, path)
    n = right = ties_wrong = wrong = 0
    n_real = right_real = 0
    lines = []
    for a, b, ma, mb, pa, pb, tie in pairs_of(rows, pred):
        n += 1
        ok = 0.5 if pa == pb else float((ma < mb) == (pa < pb))
        right += ok
        if not tie:
            n_real += 1
            right_real += ok
        if ok < 1:
            ties_wrong += tie
            wrong += not tie
        if ok < 1 or show_all:
            verdict = "right" if ok == 1 else ("tie" if tie else "WRONG")
            lines.append("  %-5s %-34s %-11s %-30s vs %-11s %-30s meas %.3f pred %.3f" %
                         (verdict, label(a), a["id"], a["scheme"] + "/" + a["ps_placement"],
                          b["id"], b["scheme"] + "/" + b["ps_placement"], mb / ma, pb / pa))
    if not n:
        return
    print(path)
    print("  (ratio = B / A of the seconds per step; meas > 1: A is faster)")
    for line in lines:
        print(line)
    print("  %d pairs, %.1f right (%.0f%%); misordered: %d ties (< %.0f%% or within the reading "
          "uncertainty), %d real; without ties %.1f of %d (%.0f%%)" %
          (n, right, 100 * right / n, ties_wrong, 100 * TIE_REL, wrong, right_real, n_real,
           100 * right_real / n_real if n_real else 0))


def main():
    import sys
    show_all = "--all" in sys.argv
    if show_all:
        sys.argv.remove("--all")
    exe, files = dpargs.parse()
    for f in files:
        report(exe, f, show_all)


if __name__ == "__main__":
    main()
