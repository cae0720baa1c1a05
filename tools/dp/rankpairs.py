#!/usr/bin/env python3
"""Every scheme pair of a ranking group, and which are misordered.

    tools/dp/rankpairs.py [--stepcast build/stepcast] [--all] [CSV ...]

A ranking group is what src/validate/dp_rows.c (vdp_keys, vdp_rank)
compares: rows equal in model variant, batch, accumulation, seq, dtype,
data, GPU, GPUs, GPUs per server, servers, wiring, network and fabric, and
of different schemes. A pair counts when the measured targets differ; it
is right when the predicted order is the measured one (a predicted tie:
half). Printed per misordered pair (all pairs with --all): the group, the
two rows and schemes, their measured and predicted seconds, the measured
gap (B over A, less one), the predicted ratio B/A, and a verdict:

  noise   the measured targets differ by no more than the two rows'
          reading uncertainty: `measured_uncertainty` (samples/s, turned
          into seconds), or where that is blank half a unit of the last
          digit the row's `measured_samples_per_s` is printed to (149:
          0.5, 51.9: 0.05; a figure printed to three digits is known to
          no better)
  tie     not noise, but the targets differ by less than 2 % (about the
          spread of one scheme measured twice: docs/accuracy.md)
  WRONG   a real misorder

A pair whose two rows' notes name different platforms ("platform AWS
p2.8xlarge" against "platform GCE ...": no column states the server, so
the validator groups them) is marked `xplat`: it compares two clusters as
much as two schemes.

Then per file: pairs, right (as the figure counts them), pairs within the
reading uncertainty (all, and misordered), misordered ties, real
misorders, and the figure with noise and ties left out; then the pairs
of one platform alone, and how many of them are right; then the ceiling
of a model that orders each pair of schemes one way in every group (A
faster than B wherever both are measured, whatever the model, batch or
GPU count): per pair of schemes, in how many groups each was measured the
faster; such a model gets the larger count of each right at best, so
their sum is the most it can reach (less if the majority orders form a
cycle, which the line says). Groups that measure the same two schemes in
opposite orders, within a few per cent, cap the figure whatever the
model of the schemes, short of one that orders them group by group.
Default CSV: every file of ../shared/validation/dp_training.
"""
import collections
import csv
import io
import re
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
    """The reading uncertainty in seconds (0 when the row gives none)."""
    u, sps = r["measured_uncertainty"], r["measured_samples_per_s"]
    if not u or not sps or float(sps) <= 0:
        return 0.0
    return t * float(u) / float(sps)


def rounding_sps(cell):
    """Half a unit of the last printed digit of a samples/s cell (149:
    0.5, 51.9: 0.05, 2987: 0.5), 0 when the cell is blank."""
    cell = cell.strip()
    if not cell:
        return 0.0
    decimals = len(cell.split(".")[1]) if "." in cell else 0
    return 0.5 * 10.0 ** -decimals


def read_s(r, t):
    """The reading uncertainty in seconds: measured_uncertainty where
    given, else the printed figure's rounding (0 when neither)."""
    u = unc_s(r, t)
    sps = r["measured_samples_per_s"]
    if u > 0 or not sps.strip() or float(sps) <= 0:
        return u
    return t * rounding_sps(sps) / float(sps)


def platform(r):
    """The platform the row's notes name ("platform X;"), '' if none."""
    m = re.search(r"platform ([^;]*)", r["notes"])
    return m.group(1).replace(" cluster", "").strip() if m else ""


def label(r):
    return "%s %s b%s %sg %s %s" % (r["model_variant"], r["dtype"], r["batch_per_gpu"],
                                     r["gpus"], r["gpu"], r["data"].split(" ")[0])


def pairs_of(rows, pred):
    """Yield (a, b, ma, mb, pa, pb, tie, noise) for every counted pair."""
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
                noise = abs(mb - ma) <= read_s(a, ma) + read_s(b, mb)
                tie = noise or abs(mb - ma) < TIE_REL * min(ma, mb)
                yield a, b, ma, mb, pa, pb, tie, noise


def ceiling(pairs):
    """(best, n, kinds, cyclic) over counted pairs (a, b, ma, mb, ...):
    kinds[(s, t)] = [groups where s was measured faster, where t was],
    s < t by name; best = sum of the larger counts, what a model that
    orders each scheme pair one way everywhere gets right at most;
    cyclic: the majority orders of three schemes form a cycle (no single
    order of the schemes reaches best)."""
    kinds = collections.defaultdict(lambda: [0, 0])
    for p in pairs:
        a, b, ma, mb = p[0]["scheme"], p[1]["scheme"], p[2], p[3]
        s, t, first_faster = (a, b, ma < mb) if a < b else (b, a, mb < ma)
        kinds[(s, t)][0 if first_faster else 1] += 1
    best = sum(max(v) for v in kinds.values())
    n = sum(sum(v) for v in kinds.values())
    beats = {(s, t) if v[0] >= v[1] else (t, s) for (s, t), v in kinds.items() if v[0] != v[1]}
    schemes = {x for k in kinds for x in k}
    cyclic = any((x, y) in beats and (y, z) in beats and (z, x) in beats
                 for x in schemes for y in schemes for z in schemes)
    return best, n, dict(kinds), cyclic


def print_ceiling(pairs):
    best, n, kinds, cyclic = ceiling(pairs)
    if n == 0:
        return
    print("  one order per pair of schemes in every group: at most %d of %d right (%.0f%%)%s" %
          (best, n, 100.0 * best / n, "; the majority orders form a cycle" if cyclic else ""))
    for (s, t), (fs, ft) in sorted(kinds.items()):
        print("    %s faster than %s in %d groups, slower in %d" % (s, t, fs, ft))


def report(exe, path, show_all):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    pred = predicted(exe, path)
    n = right = ties_wrong = wrong = noise_all = noise_wrong = 0
    n_real = right_real = 0
    n_same = right_same = 0
    lines = []
    counted = list(pairs_of(rows, pred))
    for a, b, ma, mb, pa, pb, tie, noise in counted:
        n += 1
        ok = 0.5 if pa == pb else float((ma < mb) == (pa < pb))
        right += ok
        noise_all += noise
        same = platform(a) == platform(b)
        n_same += same
        right_same += ok if same else 0
        if not tie:
            n_real += 1
            right_real += ok
        if ok < 1:
            noise_wrong += noise
            ties_wrong += tie and not noise
            wrong += not tie
        if ok < 1 or show_all:
            verdict = "right" if ok == 1 else ("noise" if noise else "tie" if tie else "WRONG")
            verdict += "" if same else " xplat"
            lines.append("  %-11s %-34s %-11s %-30s vs %-11s %-30s meas %.4g / %.4g s "
                         "(%+.2f %%) pred %.4g / %.4g s (%.4f)" %
                         (verdict, label(a), a["id"], a["scheme"] + "/" + a["ps_placement"][:12],
                          b["id"], b["scheme"] + "/" + b["ps_placement"][:12], ma, mb,
                          100 * (mb / ma - 1), pa, pb, pb / pa))
    if not n:
        return
    print(path)
    print("  (seconds per step of A / B, measured gap B / A - 1, predicted ratio B / A)")
    for line in lines:
        print(line)
    print("  %d pairs, %.1f right (%.0f%%); %d within the reading uncertainty, %d of them "
          "misordered; misordered beyond it: %d ties (< %.0f%%), %d real; without noise and "
          "ties %.1f of %d (%.0f%%)" %
          (n, right, 100 * right / n, noise_all, noise_wrong, ties_wrong, 100 * TIE_REL, wrong,
           right_real, n_real, 100 * right_real / n_real if n_real else 0))
    if n_same < n:
        print("  %d pairs compare two platforms (xplat); of the %d on one platform %.1f right" %
              (n - n_same, n_same, right_same))
    print_ceiling(counted)


def main():
    exe, files, given = dpargs.parse_switches(
        switches=[("--all", "print every pair, the right ones too")])
    for f in files:
        report(exe, f, "--all" in given)


if __name__ == "__main__":
    main()
