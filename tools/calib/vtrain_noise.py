#!/usr/bin/env python3
"""vTrain's plan ranking against the resolution of its own measurements
(issue 14, docs/accuracy.md "vTrain ranking: the measurement's resolution").

    tools/calib/vtrain_noise.py [--stepcast build/stepcast] [--draws N] [--seed S]
                                [--sigmas S,S,..] [--repeats DIR] [CSV]

Default CSV: ../shared/validation/training/vtrain_single_node.csv.
Groups and scores as build/bench_ranking counts them (one model, GPU count
and global batch, three rows or more; Kendall tau-b; the predicted best
within 5 % of the measured best). Four parts, nothing fitted:

ties     per group, the measured runner-up's distance from the best and
         how many plans lie within 5 % of it (the plans a pick may be);
         per missed group, the pick's measured excess over the best and
         whether the best stands alone (no other plan within 5 %).
hinge    the set is composed from one layer time a per (hidden, tp,
         micro-batch) (tools/calib/vtrain_compose.py); each missed group's
         measured best belongs to one of them. For each such a: the
         relative rise of that one measured number that would put each of
         its groups' picks within 5 % (the other rows of the set as they
         are), and the score of today's predictions if the set's a were
         the closest values obeying the orderings every physical model
         obeys (vtrain_compose.py --oracle's projection).
noise    --draws re-measurements of the set: each composition term a (one
         per hidden, tp, micro-batch) and c (one per series) times
         exp(N(0, s)), every row moved through its composition
         ("composed", how the set's errors travel; a series with one
         micro-batch count, where a and b cannot be told apart, stays as
         measured), or each row's time times exp(N(0, s)) ("per row",
         independent runs); scored for the
         set's own times as predictions (a model equal to the set: the
         ceiling a re-measurement allows) and for stepcast's. Median and
         5th-95th percentiles.
repeats  the run-to-run evidence for s: data/measured's eager training
         steps run twice, on two machines of one kind (h200_dp_steps.csv
         and h200_dp_steps_2.csv, data/measured/README.md), each config's
         second step time against its first, split at 40 us of step a
         kernel (two launches at cost_launch's 20 us: host-bound or close).
"""
import argparse
import collections
import csv
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vtrain_compose import (fit, groups, layer_times, orderings, project, read_set,  # noqa: E402
                            tau_b, xrow)

SIGMAS = (0.01, 0.02, 0.03, 0.05, 0.10)
# a step with under two launches' worth of time a kernel (cost_launch's
# 20 us, src/cost/compute.c) is bound by its host or close to it
HOST_US = 40.0


def score(gs, pred, meas):
    """(best within 5 %, mean tau) for predictions pred(r) against meas(r)."""
    ok, tau = 0, 0.0
    for rs in gs:
        m = [meas(r) for r in rs]
        p = [pred(r) for r in rs]
        ok += m[min(range(len(rs)), key=p.__getitem__)] <= 1.05 * min(m)
        tau += tau_b(m, p)
    return ok, tau / len(gs)


def akey(r):
    return r['hidden'], r['tp'], r['micro_batch']


def skey(r):
    return r['hidden'], r['tp'], r['micro_batch'], r['pp'], r['dp']


def ties(gs):
    near = [0, 0, 0]
    lone = 0
    for rs in gs:
        m = sorted(r['meas'] for r in rs)
        gap = m[1] / m[0] - 1
        for i, lim in enumerate((0.01, 0.02, 0.05)):
            near[i] += gap <= lim
        lone += gap > 0.05
    print('groups %d: runner-up within 1 / 2 / 5 %% of the measured best in %d / %d / %d; '
          'best alone (no other plan within 5 %%) in %d' % ((len(gs),) + tuple(near) + (lone,)))
    miss = []
    for rs in gs:
        b = min(rs, key=lambda r: r['meas'])
        p = min(rs, key=lambda r: r['pred'])
        if p['meas'] > 1.05 * b['meas']:
            within = sum(r['meas'] <= 1.05 * b['meas'] for r in rs)
            miss.append((p['meas'] / b['meas'] - 1, within, b, p))
    print('missed %d: pick measured %.1f-%.1f %% above the best (median %.1f); '
          'best alone in %d' % (len(miss), 100 * min(x[0] for x in miss),
                                100 * max(x[0] for x in miss),
                                100 * sorted(x[0] for x in miss)[len(miss) // 2],
                                sum(x[1] == 1 for x in miss)))
    for lim in (0.06, 0.07, 0.08, 0.10, 0.15):
        print('  pick within %2.0f %% of the best: %2d of the missed' % (
            100 * lim, sum(x[0] <= lim for x in miss)))
    return miss


def rises(rows, miss):
    """Per missed group (excess, alone, best, pick): the relative rise of
    the measured layer time a of the best's (hidden, tp, micro-batch) that
    puts the pick within 5 % of the best, every other term as it is (the
    pick moves too where it shares that a)."""
    fm = fit(rows, 'meas')
    out = []
    for _, _, b, p in miss:
        a = fm[skey(b)][0][0]
        xa = xrow(b)[0]
        xp = xrow(p)[0] if akey(p) == akey(b) else 0.0
        out.append(((p['meas'] - 1.05 * b['meas']) / (a * (1.05 * xa - xp)), b, p))
    return out


def projected(rows):
    """(row id -> the row's time with the set's a projected on the
    physical orderings, a, projected a, rms of the projection's shift
    relative to the mean a)."""
    fm = fit(rows, 'meas')
    am = layer_times(fm)
    ap = project(am, orderings(am))
    out = {}
    for r in rows:
        c = fm.get(skey(r))
        out[id(r)] = r['meas'] + (xrow(r)[0] * (ap[akey(r)] - c[0][0]) if c else 0.0)
    rms = math.sqrt(sum((ap[k] - am[k]) ** 2 for k in am) / len(am)) / (sum(am.values()) / len(am))
    return out, am, ap, rms


def hinge(gs, rows, miss):
    """How far the one measured layer time under each missed best must
    rise, and the score against the set made physical; returns the rms
    shift of that projection (a lower bound on the set's own error)."""
    by = collections.defaultdict(list)
    for need, b, _ in rises(rows, miss):
        by[akey(b)].append(need)
    proj, am, ap, rms = projected(rows)
    print('missed groups by the measured best\'s (hidden, tp, micro-batch): the rise of its '
          'layer time a that passes each')
    for k, need in sorted(by.items()):
        need.sort()
        print('  hidden %4d tp %d mb %d (a %.3f ms): %2d groups, rise %.1f-%.1f %% '
              '(median %.1f); within 5 / 10 / 15 %%: %d / %d / %d' % (
                  k + (am[k], len(need), 100 * need[0], 100 * need[-1],
                       100 * need[len(need) // 2], sum(x <= 0.05 for x in need),
                       sum(x <= 0.10 for x in need), sum(x <= 0.15 for x in need))))
    ok, tau = score(gs, lambda r: r['pred'], lambda r: proj[id(r)])
    print('today\'s predictions against the set with a projected on the physical orderings: '
          '%d of %d, tau %.3f' % (ok, len(gs), tau))
    for k in sorted(am):
        if abs(ap[k] / am[k] - 1) > 0.005:
            print('  hidden %4d tp %d mb %d: a %.3f -> %.3f ms (%+.1f %%)' % (
                k + (am[k], ap[k], 100 * (ap[k] / am[k] - 1))))
    low = collections.Counter()
    for rs, ok in zip(gs, passes(gs, lambda r: r['pred'], lambda r: r['meas'])):
        k = akey(min(rs, key=lambda r: r['meas']))
        below = k in am and ap[k] > 1.005 * am[k]
        low[below, ok] += 1
    print('groups whose measured best has a layer time more than 0.5 %% under the projection\'s: '
          '%d, missed %d; the other %d: missed %d' % (
              low[True, True] + low[True, False], low[True, False],
              low[False, True] + low[False, False], low[False, False]))
    print('projection shift over the %d layer times: rms %.1f %% of the mean a '
          '(no set obeying the orderings lies closer to the measured one)' % (len(am), 100 * rms))
    return rms


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def passes(gs, pred, meas):
    """Per group: the predicted best within 5 % of the measured best."""
    out = []
    for rs in gs:
        m = [meas(r) for r in rs]
        out.append(m[min(range(len(rs)), key=lambda i: pred(rs[i]))] <= 1.05 * min(m))
    return out


def redraw(rows, fm, rng, s):
    """One re-measurement at sigma s: (composed, per row) row id -> ms."""
    ea = {k: math.exp(rng.gauss(0, s)) - 1 for k in sorted({akey(r) for r in rows})}
    ec = {k: math.exp(rng.gauss(0, s)) - 1 for k in sorted(fm)}
    comp, indep = {}, {}
    for r in rows:
        t = r['meas']
        c = fm.get(skey(r))
        if c:
            x, (a, _, cc, _) = xrow(r), c[0]
            t += x[0] * a * ea[akey(r)]
            if cc is not None:
                t += x[2] * cc * ec[skey(r)]
        comp[id(r)] = t
        indep[id(r)] = r['meas'] * math.exp(rng.gauss(0, s))
    return comp, indep


def noise(gs, rows, draws, seed, sigmas):
    fm = fit(rows, 'meas')
    rng = random.Random(seed)
    base = passes(gs, lambda r: r['pred'], lambda r: r['meas'])
    print('re-measured set, %d draws a sigma: within 5 %% median [5th-95th] and tau median; '
          'flips: mean of the %d missed groups that pass / of the %d passed that miss' % (
              draws, base.count(False), base.count(True)))
    print('sigma  | composed: set as model | composed: stepcast, flips | '
          'per row: set as model | per row: stepcast, flips')
    for s in sigmas:
        res = collections.defaultdict(list)
        flips = collections.defaultdict(lambda: [0, 0])
        for _ in range(draws):
            for name, tab in zip(('comp', 'indep'), redraw(rows, fm, rng, s)):
                meas = lambda r, tab=tab: tab[id(r)]
                res[name, 'set'].append(score(gs, lambda r: r['meas'], meas))
                res[name, 'model'].append(score(gs, lambda r: r['pred'], meas))
                for was, now in zip(base, passes(gs, lambda r: r['pred'], meas)):
                    flips[name][0] += not was and now
                    flips[name][1] += was and not now
        cells = []
        for name in ('comp', 'indep'):
            for who in ('set', 'model'):
                v = res[name, who]
                oks = [x[0] for x in v]
                cells.append('%3d [%3d-%3d] %.3f' % (pct(oks, 0.5), pct(oks, 0.05), pct(oks, 0.95),
                                                      pct([x[1] for x in v], 0.5)))
                if who == 'model':
                    cells[-1] += ', %4.1f / %4.1f' % tuple(f / draws for f in flips[name])
        print('%4.1f %% | %s' % (100 * s, ' | '.join(cells)))


def repeats(d):
    a = {r['name']: r for r in csv.DictReader(open(os.path.join(d, 'h200_dp_steps.csv')))}
    b = {r['name']: r for r in csv.DictReader(open(os.path.join(d, 'h200_dp_steps_2.csv')))}
    diff = []
    for k in sorted(a):
        if k in b and a[k]['status'] == b[k]['status'] == 'ok':
            x, y = float(a[k]['step_ms']), float(b[k]['step_ms'])
            diff.append((math.log(y / x), k, x, y, int(a[k]['kernels'])))
    print('eager steps run on two H200 machines (%s): %d configs, second / first' % (d, len(diff)))
    for lg, k, x, y, n in diff:
        print('  %-26s %8.3f %8.3f ms %+6.1f %%  %5d kernels, %5.1f us of step a kernel' % (
            k, x, y, 100 * (math.exp(lg) - 1), n, 1e3 * x / n))
    for name, part in (('all', diff),
                       ('under %.0f us a kernel' % HOST_US, [v for v in diff if v[2] / v[4] < HOST_US / 1e3]),
                       ('%.0f us a kernel or more' % HOST_US, [v for v in diff if v[2] / v[4] >= HOST_US / 1e3])):
        ad = sorted(abs(v[0]) for v in part)
        rms = math.sqrt(sum(v * v for v in ad) / len(ad))
        print('  %-26s %2d configs, |log ratio| median %.1f %%, rms %.1f %%, largest %.1f %%; '
              'within 1 %% in %d, over 10 %% in %d' % (
                  name + ':', len(ad), 100 * ad[len(ad) // 2], 100 * rms, 100 * ad[-1],
                  sum(v <= 0.01 for v in ad), sum(v > 0.10 for v in ad)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--stepcast', default='build/stepcast')
    ap.add_argument('--draws', type=int, default=200)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--sigmas', help='comma-separated sigmas (default: 1, 2, 3, 5, 10 %% '
                    'and the projection\'s rms shift)')
    ap.add_argument('--repeats', default='data/measured',
                    help='directory with h200_dp_steps.csv and h200_dp_steps_2.csv')
    ap.add_argument('csv', nargs='?',
                    default='../shared/validation/training/vtrain_single_node.csv')
    a = ap.parse_args()
    rows = read_set('vtrain_noise.py', a.stepcast, a.csv)
    gs = groups(rows)
    ok, tau = score(gs, lambda r: r['pred'], lambda r: r['meas'])
    print('stepcast: %d of %d groups within 5 %%, mean tau %.3f' % (ok, len(gs), tau))
    miss = ties(gs)
    rms = hinge(gs, rows, miss)
    if a.draws > 0:
        sig = [float(x) for x in a.sigmas.split(',')] if a.sigmas else sorted(SIGMAS + (rms,))
        noise(gs, rows, a.draws, a.seed, sig)
    if os.path.isdir(a.repeats):
        repeats(a.repeats)


if __name__ == '__main__':
    main()
