#!/usr/bin/env python3
"""vTrain's single-node set as the composition its times follow, and what
the ranking target needs of a model (issue 14, docs/accuracy.md).

    tools/calib/vtrain_compose.py [--stepcast build/stepcast] [--oracle] [CSV]

Default CSV: ../shared/validation/training/vtrain_single_node.csv.

Every series (hidden, tp, micro-batch, pp, dp) has rows at 12-24 layers L
and 1-16 micro-batches m a step. Least squares over a series of

    t = (m + pp - 1) (L / pp) a + (L / pp) b + m c + e      (ms)

gives a, one layer for one micro-batch (1F1B: m + pp - 1 passes of a
stage's L / pp layers on the critical path), b, what a step pays once per
layer of a stage (optimizer), c, the rest of a micro-batch on the slowest
stage (embedding, output layer, loss, batch) and e, the rest of a step.
The default output prints the four terms of every series, measured and
modelled, with the largest residual of each fit: a measured series of
wall-clock runs leaves residuals of its run-to-run noise; a residual of
the CSV's rounding (0.5 us) says its times were composed from these terms.

--oracle ranks plans as build/bench_ranking does (groups of one model, GPU
count and global batch, three rows or more; Kendall tau-b and the groups
whose predicted best is within 5 % of the measured best) with predictions
that are the model's or the set's own times with some terms swapped:

  - the measured times, and the measured times with each series' layer
    time a moved to the closest (least squares) values that obey three
    orderings every physical model obeys, each between two layers of
    which the second issues the same calls or more with no less work: a layer's time for one micro-batch does not
    fall when the micro-batch doubles, nor when tp and the micro-batch
    double together (the same GEMM and attention work per GPU, more
    replicated work, larger all-reduces over more GPUs), nor when the
    hidden size doubles;
  - the model's predictions with a, or a and c, taken from the set or from
    that projection, all series or some: which terms the target needs.
"""
import argparse
import collections
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vtrain_layers import lstsq, predictions  # noqa: E402

TERMS = 'abce'


def load(path, pred):
    """The set's rows as dicts of ints and ms (meas, pred)."""
    out = []
    for r in csv.DictReader(open(path)):
        if r['id'] not in pred:
            continue
        d = {k: int(r[k]) for k in ('layers', 'hidden', 'tp', 'pp', 'dp', 'micro_batch',
                                     'global_batch', 'gpus')}
        d['m'] = d['global_batch'] // (d['dp'] * d['micro_batch'])
        d['meas'] = 1e3 * float(r['measured_iter_s'])
        d['pred'] = 1e3 * pred[r['id']]
        out.append(d)
    return out


def read_set(tool, cli, path):
    """The set's rows with stepcast's predictions (load); exits with a
    message naming the tool where the file is missing or nothing in it
    was predicted."""
    if not os.path.exists(path):
        sys.exit('%s: %s: no such file (the set lives in ../shared)' % (tool, path))
    rows = load(path, predictions(cli, path))
    if not rows:
        sys.exit('%s: %s: no predicted training rows' % (tool, path))
    return rows


def xrow(r):
    pp, L = r['pp'], r['layers']
    return [(r['m'] + pp - 1) * L / pp, L / pp, r['m'], 1.0]


def fit(rows, key):
    """(hidden, tp, mb, pp, dp) -> ([a, b, c, e], largest residual ms); c is
    None where a series has one micro-batch count per layer count only."""
    ser = collections.defaultdict(list)
    for r in rows:
        ser[(r['hidden'], r['tp'], r['micro_batch'], r['pp'], r['dp'])].append(r)
    out = {}
    for k, rs in ser.items():
        for cols in ([0, 1, 2, 3], [0, 1, 3]):
            x = [[xrow(r)[i] for i in cols] for r in rs]
            c = lstsq(x, [r[key] for r in rs]) if len(rs) > len(cols) else None
            if c:
                full = [None] * 4
                for i, v in zip(cols, c):
                    full[i] = v
                res = max(abs(sum(u * v for u, v in zip(xi, c)) - r[key]) for xi, r in zip(x, rs))
                out[k] = (full, res)
                break
    return out


def layer_times(fits):
    """(hidden, tp, mb) -> a, from the series at the lowest pp and dp."""
    a = {}
    for k in sorted(fits):
        a.setdefault(k[:3], fits[k][0][0])
    return a


def tau_b(xs, ys):
    c = d = tx = ty = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            u = (xs[i] > xs[j]) - (xs[i] < xs[j])
            v = (ys[i] > ys[j]) - (ys[i] < ys[j])
            if u and v:
                c, d = (c + 1, d) if u == v else (c, d + 1)
            elif u:
                ty += 1
            elif v:
                tx += 1
    den = ((c + d + tx) * (c + d + ty)) ** 0.5
    return (c - d) / den if den else 0.0


def groups(rows):
    """Groups of three rows or more (one model, GPU count and global
    batch), as build/bench_ranking forms them."""
    g = collections.defaultdict(list)
    for r in rows:
        g[(r['layers'], r['hidden'], r['gpus'], r['global_batch'])].append(r)
    return [rs for _, rs in sorted(g.items()) if len(rs) >= 3]


def rank(rows, key):
    """(groups, predicted best within 5 %, mean tau) with predictions r[key]."""
    gs = groups(rows)
    ok = sum(min(rs, key=lambda r: r[key])['meas'] <= 1.05 * min(r['meas'] for r in rs)
             for rs in gs)
    tau = sum(tau_b([r['meas'] for r in rs], [r[key] for r in rs]) for rs in gs)
    return len(gs), ok, tau / len(gs) if gs else 0.0


def orderings(a):
    """Pairs (lo, hi) with a[lo] <= a[hi] in any physical model: hi runs
    the calls of lo with twice the micro-batch, twice tp and twice the
    micro-batch, or twice the hidden size."""
    out = []
    for h, tp, mb in a:
        for hi in ((h, tp, 2 * mb), (h, 2 * tp, 2 * mb), (2 * h, tp, mb)):
            if hi in a:
                out.append(((h, tp, mb), hi))
    return out


def project(a, pairs, sweeps=20000):
    """The least-squares closest values to a obeying every pair (Dykstra's
    alternating projections onto the half-spaces a[lo] <= a[hi])."""
    x, inc = dict(a), [(0.0, 0.0)] * len(pairs)
    for _ in range(sweeps):
        for i, (lo, hi) in enumerate(pairs):
            y1, y2 = x[lo] + inc[i][0], x[hi] + inc[i][1]
            z1 = z2 = (y1 + y2) / 2 if y1 > y2 else None
            if z1 is None:
                z1, z2 = y1, y2
            inc[i] = (y1 - z1, y2 - z2)
            x[lo], x[hi] = z1, z2
    return x


def swapped(rows, base, fits_from, fits_base, terms, a_new=None):
    """Predictions r['x'] = r[base] with term t of each series k for which
    terms[t](k) holds replaced by that of fits_from (a: by a_new where
    given), through the row's composition."""
    for r in rows:
        k = (r['hidden'], r['tp'], r['micro_batch'], r['pp'], r['dp'])
        r['x'] = r[base]
        if k not in fits_from or k not in fits_base:
            continue
        new, old, x = list(fits_from[k][0]), fits_base[k][0], xrow(r)
        if a_new is not None:
            new[0] = a_new[k[:3]]
        for t, sel in terms.items():
            i = TERMS.index(t)
            if sel(k) and new[i] is not None and old[i] is not None:
                r['x'] += x[i] * (new[i] - old[i])
    return rank(rows, 'x')


ALL = lambda k: True


def oracle(rows):
    fm, fp = fit(rows, 'meas'), fit(rows, 'pred')
    am = layer_times(fm)
    pairs = orderings(am)
    ap = project(am, pairs)
    viol = max([ap[lo] - ap[hi] for lo, hi in pairs] + [0.0])
    line = lambda name, q: print('%-58s %3d of %d groups, tau %.3f' % (name, q[1], q[0], q[2]))
    line('model (as build/bench_ranking)', rank(rows, 'pred'))
    line('measured', rank(rows, 'meas'))
    line('measured, a projected on the orderings', swapped(rows, 'meas', fm, fm, {'a': ALL}, ap))
    for name, terms, a_new in (
            ('a measured', {'a': ALL}, None),
            ('a and c measured', {'a': ALL, 'c': ALL}, None),
            ('c measured', {'c': ALL}, None),
            ('e measured', {'e': ALL}, None),
            ('a projected', {'a': ALL}, ap),
            ('a projected, c measured', {'a': ALL, 'c': ALL}, ap),
            ('a projected, c measured at tp 1 only', {'a': ALL, 'c': lambda k: k[1] == 1}, ap),
            ('a projected, c measured at tp > 1 only', {'a': ALL, 'c': lambda k: k[1] > 1}, ap)):
        line('model, ' + name, swapped(rows, 'pred', fm, fp, terms, a_new))
    print('projection: %d orderings, largest violation after it %.1e ms' % (len(pairs), viol))
    for k in sorted(am):
        if abs(ap[k] - am[k]) > 5e-3:
            print('  hidden %4d tp %d mb %d: a %.3f -> %.3f ms' % (k + (am[k], ap[k])))


def table(rows):
    fm, fp = fit(rows, 'meas'), fit(rows, 'pred')
    f = lambda v: '%7.3f' % v if v is not None else '      -'
    print('hidden tp mb pp dp | measured a b c e (ms), residual (us) | model a b c e, residual')
    for k in sorted(fm):
        if k not in fp:
            continue
        (cm, rm), (cp, rp) = fm[k], fp[k]
        print('%6d %2d %2d %2d %2d | %s %s %s %s %7.1f | %s %s %s %s %7.1f' % (
            k + tuple(f(v) for v in cm) + (1e3 * rm,) + tuple(f(v) for v in cp) + (1e3 * rp,)))
    dp1 = [fm[k][1] for k in fm if k[4] == 1]
    spread = collections.defaultdict(list)
    for k, (c, _) in fm.items():
        spread[k[:3]].append(c[0])
    print('dp 1: %d series, largest residual %.1f us; a across pp and dp: largest spread %.1f us' % (
        len(dp1), 1e3 * max(dp1), 1e3 * max(max(v) - min(v) for v in spread.values())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--stepcast', default='build/stepcast')
    ap.add_argument('--oracle', action='store_true')
    ap.add_argument('csv', nargs='?',
                    default='../shared/validation/training/vtrain_single_node.csv')
    a = ap.parse_args()
    rows = read_set('vtrain_compose.py', a.stepcast, a.csv)
    oracle(rows) if a.oracle else table(rows)


if __name__ == '__main__':
    main()
