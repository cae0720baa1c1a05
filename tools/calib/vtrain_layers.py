#!/usr/bin/env python3
"""vTrain's single-node rows split into per-layer, per-micro-batch and
per-step parts, measured against stepcast (issue 14, plan ranking).

    tools/calib/vtrain_layers.py [--stepcast build/stepcast] [--misses|--split|--per-mb|--terms] [CSV]

Default CSV: ../shared/validation/training/vtrain_single_node.csv.

Every pp 1 series (hidden, tp, micro-batch) has rows at 12-24 layers and
1-16 micro-batches a step; least squares over them of

    t = a (m L) + c m + d L + e        m micro-batches a step, L layers

gives a, the time of one layer for one micro-batch, c the rest of a
micro-batch (embedding, output layer, loss, the batch's host work), and
d L + e what a step pays once (optimizer, data-parallel reduction;
printed at 24 layers), for
the measured times and, the same way, for stepcast's predictions. Beside
them, the model's GPU time of one layer and micro-batch from `validate
--row ID --ops` (forward twice under full recomputation, plus backward:
GEMMs, memory-bound kernels and the tensor-parallel all-reduces on the
stream) and its host time (framework calls x cost_launch, 20 us, plus
per collective 20 + 81 us, src/cost/compute.c): stepcast's queue model
runs one layer at max(host, GPU).

--misses lists the groups (same layers, hidden, GPU count, global batch)
whose predicted-best plan is more than 5 % slower than the measured best,
as build/bench_ranking counts them.

--terms takes every missed group and prints the model's step breakdown
(`validate --row ID --format json`, time_s: compute, exposed host
overhead, exposed tensor-parallel communication, pipeline bubble and
point-to-point, exposed data-parallel reduction, optimizer) of the
measured best and of the predicted pick, as best minus pick in ms, beside
the measured best minus pick: the terms that order the two plans. The
last lines sum each column over the groups of each (best, pick) pattern,
and give the largest predicted memory of the two plans against the GPU's.

--per-mb prints, for every pp 1 series at 24 layers, the measured and
predicted time of one micro-batch (step / micro-batches a step, mean over
the series' rows): the host-bound floor of each series side by side.

--split takes the missed groups whose measured best and predicted pick
both run pp 1 and splits the model's error on each (model - measured, ms)
into the three fitted parts of its series: the layers (a m L), the rest of
the micro-batches (c m) and what the step pays once (d L + e), and prints
the best's error minus the pick's, part by part, beside the same figure
from the two rows themselves ("rows"; the parts sum to it up to the fits'
residuals). A group is missed when that figure exceeds the predicted
margin plus 5 % of the measured best, so it is positive on every line.
"""
import argparse
import collections
import csv
import io
import json
import re
import subprocess
import sys

LAUNCH_S = 20e-6          # cost_launch default (src/cost/compute.c)
COLL_HOST_S = 81e-6 + 20e-6  # collective call + its autograd function


def predictions(cli, path):
    out = subprocess.run([cli, 'validate', '--format', 'csv', path], capture_output=True,
                         text=True, check=True).stdout
    return {r['id']: float(r['predicted']) for r in csv.DictReader(io.StringIO(out))
            if r['predicted']}


def lstsq(rows, ys):
    """Normal equations with Gauss-Jordan; None when the columns are dependent."""
    k = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(k)] +
         [sum(r[i] * y for r, y in zip(rows, ys))] for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda i: abs(m[i][c]))
        if abs(m[p][c]) < 1e-9:
            return None
        m[c], m[p] = m[p], m[c]
        for i in range(k):
            if i != c:
                f = m[i][c] / m[c][c]
                m[i] = [u - f * v for u, v in zip(m[i], m[c])]
    return [m[i][k] / m[i][i] for i in range(k)]


def layer_gpu_ms(cli, path, rid):
    """The model's GPU ms of one layer and micro-batch (forward twice: full
    recomputation) from the --ops table's sum line."""
    out = subprocess.run([cli, 'validate', '--row', rid, '--ops', path], capture_output=True,
                         text=True).stdout
    m = re.search(r'^\s+sum\s+([0-9.]+)\s+([0-9.]+)', out, re.M)
    return 2 * float(m.group(1)) + float(m.group(2)) if m else float('nan')


def layer_host_ms(tp):
    """The model's host ms of one layer and micro-batch: the GPT layer's
    framework calls (src/graph/graph.c) forward, recomputed forward and
    backward x 20 us, 2.99 ms for these rows, and at tp > 1 six all-reduces
    (two in each pass) x 101 us."""
    return 2.99 + (6 * COLL_HOST_S * 1e3 if tp > 1 else 0)


def series_fits(rows, pred):
    """(hidden, tp, micro-batch) -> (measured fit, model fit) of every pp 1
    series, each [a, c, d, e] in seconds."""
    ser = collections.defaultdict(list)
    for r in rows:
        if r['pp'] != '1' or r['id'] not in pred:
            continue
        m = int(r['global_batch']) // int(r['dp']) // int(r['micro_batch'])
        ser[(int(r['hidden']), int(r['tp']), int(r['micro_batch']))].append(
            (int(r['layers']), m, float(r['measured_iter_s']), pred[r['id']]))
    fits = {}
    for k, pts in ser.items():
        x = [[m * L, m, L, 1.0] for L, m, *_ in pts]
        fm, fp = lstsq(x, [p[2] for p in pts]), lstsq(x, [p[3] for p in pts])
        if fm and fp:
            fits[k] = (fm, fp)
    return fits


def parts(fit, L, m):
    """One row's layers, rest and once parts (ms) from its series fit."""
    a, c, d, e = fit
    return [1e3 * a * m * L, 1e3 * c * m, 1e3 * (d * L + e)]


def best_and_pick(rows, pred):
    """Every ranked group (same layers, hidden, GPU count, global batch; three
    rows or more), sorted: (key, measured best row, predicted pick row)."""
    g = collections.defaultdict(list)
    for r in rows:
        if r['id'] in pred:
            g[(r['layers'], r['hidden'], r['gpus'], r['global_batch'])].append(r)
    for k, rs in sorted(g.items()):
        if len(rs) >= 3:
            yield (k, min(rs, key=lambda r: float(r['measured_iter_s'])),
                   min(rs, key=lambda r: pred[r['id']]))


def missed(rows, pred):
    """The groups of best_and_pick whose pick runs more than 5 % slower than
    the best, as build/bench_ranking counts them."""
    for k, mb, pb in best_and_pick(rows, pred):
        if float(pb['measured_iter_s']) > 1.05 * float(mb['measured_iter_s']):
            yield k, mb, pb


def split(rows, pred):
    fits = series_fits(rows, pred)
    d = lambda r: 'tp%s dp%s mb%s' % (r['tp'], r['dp'], r['micro_batch'])
    tot, n = [0.0, 0.0, 0.0], 0
    print('%-28s %-14s %-14s %s' % ('group', 'best', 'picked',
                                     'best err - pick err, ms: layers rest once rows'))
    for k, mb, pb in missed(rows, pred):
        if mb['pp'] != '1' or pb['pp'] != '1':
            continue
        err = []
        for r in (mb, pb):
            key = (int(r['hidden']), int(r['tp']), int(r['micro_batch']))
            L = int(r['layers'])
            m = int(r['global_batch']) // int(r['dp']) // int(r['micro_batch'])
            pm, pp = parts(fits[key][0], L, m), parts(fits[key][1], L, m)
            err.append([b - a for a, b in zip(pm, pp)])
        rel = [b - a for a, b in zip(err[1], err[0])]
        tot = [t + x for t, x in zip(tot, rel)]
        n += 1
        e = lambda r: 1e3 * (pred[r['id']] - float(r['measured_iter_s']))
        print('L%-3s h%-5s %s GPUs batch %-4s %-14s %-14s %8.1f %6.1f %6.1f %6.1f' % (
            k + (d(mb), d(pb)) + tuple(rel) + (e(mb) - e(pb),)))
    if n:
        print('mean over %d groups (ms): layers %.1f, rest %.1f, once %.1f' % (
            n, tot[0] / n, tot[1] / n, tot[2] / n))


def series_table(cli, path, rows, pred):
    ser = collections.defaultdict(list)
    for r in rows:
        if r['pp'] != '1':
            continue
        m = int(r['global_batch']) // int(r['dp']) // int(r['micro_batch'])
        ser[(int(r['hidden']), int(r['tp']), int(r['micro_batch']))].append(
            (int(r['layers']), m, float(r['measured_iter_s']), pred.get(r['id']), r['id']))
    print('%-18s %21s %15s %10s %19s %19s' % ('', 'per layer-micro-batch', 'model', '',
                                               'rest of a mb', 'a step, 24 layers'))
    print('%-18s %7s %7s %6s %7s %7s %10s %9s %9s %9s %9s' % (
        'hidden tp mb', 'meas', 'model', 'ratio', 'host', 'GPU', 'meas/max', 'meas', 'model',
        'meas', 'model'))
    for k in sorted(ser):
        pts = [p for p in ser[k] if p[3] is not None]
        x = [[m * L, m, L, 1.0] for L, m, *_ in pts]
        fm = lstsq(x, [p[2] for p in pts])
        fp = lstsq(x, [p[3] for p in pts])
        if not fm or not fp:
            continue
        rid = max(pts)[4]
        g, h = layer_gpu_ms(cli, path, rid), layer_host_ms(k[1])
        print('h%-5d tp%d mb%-5d %7.2f %7.2f %6.2f %7.2f %7.2f %10.2f %9.1f %9.1f %9.1f %9.1f' % (
            k + (fm[0] * 1e3, fp[0] * 1e3, fm[0] / fp[0], h, g, fm[0] * 1e3 / max(h, g),
                 fm[1] * 1e3, fp[1] * 1e3, (24 * fm[2] + fm[3]) * 1e3,
                 (24 * fp[2] + fp[3]) * 1e3)))


def misses(rows, pred):
    n = bad = 0
    d = lambda r: 'tp%s pp%s dp%s mb%s' % (r['tp'], r['pp'], r['dp'], r['micro_batch'])
    for k, mb, pb in best_and_pick(rows, pred):
        n += 1
        m0, m1 = float(mb['measured_iter_s']), float(pb['measured_iter_s'])
        if m1 > 1.05 * m0:
            bad += 1
            print('L%s h%s %s GPUs batch %3s | best %-18s %.3f (pred %+5.1f %%) | picked %-18s'
                  ' %.3f (pred %+5.1f %%) +%.0f %%' % (
                      k + (d(mb), m0, 100 * (pred[mb['id']] / m0 - 1), d(pb), m1,
                           100 * (pred[pb['id']] / m1 - 1), 100 * (m1 / m0 - 1))))
    print('%d of %d groups: predicted best more than 5 %% slower than the measured best' %
          (bad, n))


TERMS = (('compute', 'compute'), ('host_overhead', 'host'), ('tp_comm_exposed', 'tp'),
         ('pipeline_bubble', 'bubble'), ('pp_comm_exposed', 'pp'), ('dp_comm_exposed', 'dp'),
         ('optimizer', 'opt'))


def row_terms(cli, path, rid):
    """The model's breakdown of one row (ms by term) and its memory (GiB)."""
    out = subprocess.run([cli, 'validate', '--row', rid, '--format', 'json', path],
                         capture_output=True, text=True, check=True).stdout
    d = json.loads(out)
    mem = d['memory_bytes']['total'] / 2**30
    return [1e3 * d['time_s'][k] for k, _ in TERMS], mem


def terms(cli, path, rows, pred):
    d = lambda r: 'tp%s pp%s dp%s mb%s' % (r['tp'], r['pp'], r['dp'], r['micro_batch'])
    print('%-24s %-16s %-16s %s' % ('group', 'best', 'picked', 'best - pick, ms: ' + ' '.join(
        '%7s' % n for _, n in TERMS) + '  = model | measured'))
    pat = collections.defaultdict(lambda: [0, [0.0] * (len(TERMS) + 2)])
    mem_max = 0.0
    for k, mb, pb in missed(rows, pred):
        (tb, m0), (tk, m1) = row_terms(cli, path, mb['id']), row_terms(cli, path, pb['id'])
        mem_max = max(mem_max, m0, m1)
        diff = [x - y for x, y in zip(tb, tk)]
        meas = 1e3 * (float(mb['measured_iter_s']) - float(pb['measured_iter_s']))
        line = diff + [1e3 * (pred[mb['id']] - pred[pb['id']]), meas]
        key = 'h%s tp%s mb%s vs tp%s mb%s' % (k[1], mb['tp'], mb['micro_batch'], pb['tp'],
                                              pb['micro_batch'])
        pat[key][0] += 1
        pat[key][1] = [u + v for u, v in zip(pat[key][1], line)]
        print('L%-3s h%-5s %s GPUs b%-4s %-16s %-16s %s %7.1f | %7.1f' % (
            k + (d(mb), d(pb), ' '.join('%7.1f' % x for x in diff)) + tuple(line[-2:])))
    for key, (n, tot) in sorted(pat.items()):
        print('sum over %2d groups, %-26s %s %7.1f | %7.1f' % (
            n, key, ' '.join('%7.1f' % x for x in tot[:-2]), tot[-2], tot[-1]))
    print('largest predicted memory of a best or pick: %.1f GiB (A100 80 GB)' % mem_max)


def per_mb(rows, pred):
    g = collections.defaultdict(list)
    for r in rows:
        if r['id'] in pred and r['pp'] == '1' and r['layers'] == '24':
            m = int(r['global_batch']) // (int(r['micro_batch']) * int(r['dp']))
            g[(int(r['hidden']), int(r['tp']), int(r['micro_batch']))].append(
                (1e3 * float(r['measured_iter_s']) / m, 1e3 * pred[r['id']] / m))
    print('hidden  tp  mb | ms a micro-batch, 24 layers: measured  model  model/measured')
    for k, v in sorted(g.items()):
        a = sum(x for x, _ in v) / len(v)
        b = sum(y for _, y in v) / len(v)
        print('%6d %3d %3d | %8.1f %8.1f %7.2f   (%d rows)' % (k + (a, b, b / a, len(v))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--stepcast', default='build/stepcast')
    ap.add_argument('--misses', action='store_true')
    ap.add_argument('--split', action='store_true')
    ap.add_argument('--per-mb', action='store_true')
    ap.add_argument('--terms', action='store_true')
    ap.add_argument('csv', nargs='?',
                    default='../shared/validation/training/vtrain_single_node.csv')
    a = ap.parse_args()
    try:
        rows = list(csv.DictReader(open(a.csv)))
    except OSError as e:
        sys.exit('vtrain_layers.py: %s (the set lives in ../shared)' % e)
    pred = predictions(a.stepcast, a.csv)
    if a.misses:
        misses(rows, pred)
    elif a.split:
        split(rows, pred)
    elif a.terms:
        terms(a.stepcast, a.csv, rows, pred)
    elif a.per_mb:
        per_mb(rows, pred)
    else:
        series_table(a.stepcast, a.csv, rows, pred)


if __name__ == '__main__':
    main()
