#!/usr/bin/env python3
"""The host/GPU queue of eager PyTorch, measured in real Kineto traces.

For each ProfilerStep of each trace, on the host thread that launches most
GPU work and on the GPU stream that runs most of it (the compute stream):

  T      the step (ProfilerStep duration)
  S      time the host thread spent blocked in synchronising runtime calls
         (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize,
         cudaMemcpy, cudaFree, cudaMalloc)
  H      host issue time, T - S
  G      GPU busy time (union of kernels, copies and memsets, all streams)
  n      GPU operations launched by the thread
  idle   compute-stream gaps between consecutive operations, split in
         queued   the next one was launched before the previous ended: the
                  gap is the GPU's own per-operation cost (front end,
                  dependency resolution)
         starved  it was launched after: the GPU waited for the host
  lead   the queue delay, GPU start - launch call start, per operation

and the closed-form estimates the model in src/engine/analytic.c could use:

  Hmed            the closed form's host estimate: each issuing thread's
                  launches x its median launch interval
  CF/T            max(Hmed, G) / T: the closed form against the trace
  max(H, G)       the queue model's steady state with an unbounded lead
  excess          (T - max(H, G)) / min(H, G): what the step costs beyond
                  that, per second of the hidden clock

plus a replay of the compute stream through the two-clock queue
("start = max(issued, previous end) + gpu gap"), once with the traced
launch times and once with the host's launches spread evenly over the same
host time (per-kernel host time replaced by its mean): the difference is
what the variance of per-kernel host time costs (E[max] vs max(E)).

Second part, the host's jitter: the k-th launch of a step is the same
framework call in every step (same count per step), so the time from launch
k to launch k+n, compared across steps (or across the ranks of one step:
--ranks DIR-or-TAR.GZ of per-rank traces), gives the spread of the host time of a
window of n calls. Normalised by the window's mean, pooled over windows and
traces, it gives the straggler premium E[max of p draws] - 1: how much later
the slowest of p ranks issues a collective that p ranks wait on, as a
fraction of the host time since they were last level.

Usage: tools/calib/kineto_queue.py TRACE.json[.gz]... [--ranks DIR|TAR.GZ]
  e.g. from ../shared/traces: hta/trace_diff/control.json.gz ...
       --ranks param_dlrm_8rank_v100/dlrm_kineto.tar.gz
Results and the derivation are in docs/calibration.md ("Host/GPU queue").
"""
import collections, gzip, json, os, statistics, sys, tarfile

LAUNCH = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cudaMemcpyAsync",
          "cudaMemsetAsync", "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel",
          "hipMemcpyAsync", "hipMemsetAsync", "cudaGraphLaunch"}
SYNC = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
        "cudaFree", "cudaMalloc", "hipStreamSynchronize", "hipDeviceSynchronize"}
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}


def load(p, f=None):
    """A trace file, or the member f (a file object) of a tar archive p."""
    if f is not None:
        tr = json.load(f)
    else:
        tr = json.load((gzip.open if p.endswith(".gz") else open)(p, "rt"))
    return tr if isinstance(tr, dict) else {"traceEvents": tr}


def union(iv):
    tot, end = 0.0, -1e300
    for a, b in sorted(iv):
        if b <= end:
            continue
        tot += b - max(a, end)
        end = b
    return tot


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def replay(ops, launch_ts, gap):
    """Two clocks: op i starts at max(launch_ts[i], end of op i-1 + gap)."""
    end = None
    for (ts, dur), lt in zip(ops, launch_ts):
        s = lt if end is None else max(lt, end + gap)
        end = s + dur
    return end


def analyse(path):
    tr = load(path)
    ev = [e for e in tr["traceEvents"] if e.get("ph") == "X"]
    dev = (tr.get("deviceProperties") or [{}])[0].get("name", "")
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                   if str(e.get("name", "")).startswith("ProfilerStep"))
    launches = collections.defaultdict(list)
    syncs = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") not in ("cuda_runtime", "Runtime", "cuda_driver"):
            continue
        if e.get("name") in LAUNCH:
            corr = (e.get("args") or {}).get("correlation")
            launches[e.get("tid")].append((e["ts"], e.get("dur", 0), corr))
        elif e.get("name") in SYNC:
            syncs[e.get("tid")].append((e["ts"], e.get("dur", 0)))
    gpu = [e for e in ev if e.get("cat") in GPU_CATS]
    if not steps or not launches or not gpu:
        print(f"{path}: no steps/launches/GPU ops")
        return None
    tid = max(launches, key=lambda t: len(launches[t]))
    by_corr = {}
    for e in gpu:
        c = (e.get("args") or {}).get("correlation")
        if c is not None:
            by_corr[c] = e
    stream_time = collections.Counter()
    for e in gpu:
        stream_time[e.get("tid")] += e.get("dur", 0)
    cstream = stream_time.most_common(1)[0][0]
    print(f"{path}: {dev}  host tid {tid}, compute stream {cstream}")
    # the closed form's host estimate: every thread's launches x its median
    # interval (what src/engine/analytic.c does with 20 us per call)
    med = {}
    for t, v in launches.items():
        ts = sorted(l[0] for l in v if any(a <= l[0] <= b for a, b in steps))
        gaps = [y - x for x, y in zip(ts, ts[1:]) if y > x]
        if len(ts) >= 20 * len(steps) and gaps:
            med[t] = statistics.median(gaps)
    print("  median launch interval per thread: "
          + ", ".join(f"tid {t}: {m:.0f} us" for t, m in med.items()))
    print(f"  {'step':>4} {'T ms':>7} {'S ms':>6} {'H ms':>7} {'G ms':>7} {'n':>5} "
          f"{'H/n us':>6} {'max':>7} {'excess':>6} {'q.gap us':>8} {'starved ms':>10} "
          f"{'lead p50 us':>11} {'replay':>7} {'even':>7} {'Hmed':>7} {'CF/T':>5}")
    rows = []
    for si, (a, b) in enumerate(steps):
        ls = sorted(l for l in launches[tid] if a <= l[0] <= b)
        S = sum(d for ts, d in syncs[tid] if a <= ts <= b)
        T = b - a
        H = T - S
        iv = [(max(a, e["ts"]), min(b, e["ts"] + e.get("dur", 0))) for e in gpu
              if e["ts"] < b and e["ts"] + e.get("dur", 0) > a]
        G = union(iv)
        ops = []  # compute-stream ops launched by the thread: (launch ts, gpu ts, dur)
        for lt, ld, c in ls:
            g = by_corr.get(c)
            if g is not None and g.get("tid") == cstream:
                ops.append((lt, g["ts"], g.get("dur", 0)))
        ops.sort(key=lambda o: o[1])
        qgaps, starved, leads = [], 0.0, []
        for (l0, s0, d0), (l1, s1, d1) in zip(ops, ops[1:]):
            gap = s1 - (s0 + d0)
            if gap < 0:
                continue
            if l1 + 1.0 < s0 + d0:
                qgaps.append(gap)
            else:
                starved += gap
        leads = [s - l for l, s, d in ops]
        qg = statistics.median(qgaps) if qgaps else 0.0
        # replay with the traced launch times and with evenly spread ones
        seq = [(s, d) for l, s, d in ops]
        lts = [l for l, s, d in ops]
        lat = pct(leads, 0.02)  # launch latency: the shortest queue delays
        r1 = replay(seq, [l + lat for l in lts], qg)
        if len(lts) > 1:
            span = lts[-1] - lts[0]
            even = [lts[0] + span * i / (len(lts) - 1) + lat for i in range(len(lts))]
            r2 = replay(seq, even, qg)
        else:
            r2 = r1
        hmed = sum(m * sum(1 for l in launches[t] if a <= l[0] <= b) for t, m in med.items())
        mx = max(H, G)
        exc = (T - mx) / min(H, G) if min(H, G) > 0 else float("nan")
        r1d = (r1 - ops[0][1]) if ops else 0
        r2d = (r2 - ops[0][1]) if ops else 0
        print(f"  {si:4d} {T/1e3:7.2f} {S/1e3:6.2f} {H/1e3:7.2f} {G/1e3:7.2f} {len(ls):5d} "
              f"{H/max(1,len(ls)):6.1f} {mx/1e3:7.2f} {exc:6.3f} {qg:8.2f} {starved/1e3:10.2f} "
              f"{pct(leads, 0.5):11.0f} {r1d/1e3:7.2f} {r2d/1e3:7.2f} {hmed/1e3:7.2f} "
              f"{max(hmed, G)/T:5.2f}")
        rows.append(dict(T=T, S=S, H=H, G=G, n=len(ls), qgaps=qgaps, starved=starved,
                         leads=leads, r1=r1d, r2=r2d))
    allq = [g for r in rows for g in r["qgaps"]]
    if allq:
        print(f"  queued gaps: n={len(allq)} p25={pct(allq,.25):.2f} median={pct(allq,.5):.2f} "
              f"p75={pct(allq,.75):.2f} mean={statistics.mean(allq):.2f} us")
    return rows


def step_launches(path, f=None):
    """Per step, the launch times of the thread that launches most."""
    tr = load(path, f)
    ev = [e for e in tr["traceEvents"] if e.get("ph") == "X"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                   if str(e.get("name", "")).startswith("ProfilerStep"))
    ls = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "Runtime") and e.get("name") in LAUNCH:
            ls[e.get("tid")].append(e["ts"])
    if not steps or not ls:
        return []
    tid = max(ls, key=lambda t: len(ls[t]))
    return [sorted(t for t in ls[tid] if a <= t <= b) for a, b in steps]


def window_samples(per, n):
    """Window host times over the same n calls in each step (or rank), each
    divided by their mean: one sample per step and window."""
    if len(per) < 2:
        return []
    n0 = min(len(x) for x in per)
    xs = []
    for k in range(0, n0 - n, n):
        d = [x[k + n] - x[k] for x in per]
        m = statistics.mean(d)
        if m > 0:
            xs += [v / m for v in d]
    return xs


def emax(xs, p):
    """E[max of p independent draws] from the empirical distribution xs."""
    xs = sorted(xs)
    N = len(xs)
    return sum(x * (((i + 1) / N) ** p - (i / N) ** p) for i, x in enumerate(xs))


def jitter(sets):
    print("host jitter of windows of n calls (samples / window mean):")
    for n in (16, 64, 256):
        pooled = []
        for name, per in sets:
            xs = window_samples(per, n)
            if len(xs) < 4:
                continue
            pooled += xs if not name.endswith("(ranks)") else []
            print(f"  {name[-60:]:60s} n={n:3d} N={len(xs):4d} cv={statistics.pstdev(xs):.3f} "
                  + " ".join(f"p{p}={emax(xs, p) - 1:.3f}" for p in (2, 4, 8)))
        if pooled:
            print(f"  {'pooled (steps of the single-rank traces)':60s} n={n:3d} N={len(pooled):4d} "
                  f"cv={statistics.pstdev(pooled):.3f} "
                  + " ".join(f"p{p}={emax(pooled, p) - 1:.3f}" for p in (2, 4, 8, 16, 32, 64)))


def main():
    args = sys.argv[1:]
    sets = []
    if "--ranks" in args:
        i = args.index("--ranks")
        d = args[i + 1]
        del args[i:i + 2]
        per = []
        if d.endswith(".tar.gz"):  # e.g. param_dlrm_8rank_v100/dlrm_kineto.tar.gz
            with tarfile.open(d) as tf:
                for m in sorted(tf.getmembers(), key=lambda m: m.name):
                    if m.isfile() and m.name.endswith(".json") and "/._" not in m.name:
                        per += step_launches(m.name, tf.extractfile(m))
        else:
            for f in sorted(os.listdir(d)):
                if f.endswith(".json") or f.endswith(".json.gz"):
                    per += step_launches(os.path.join(d, f))
        sets.append((d + " (ranks)", per))
    for p in args:
        analyse(p)
        sets.append((p, step_launches(p)))
    jitter(sets)


if __name__ == "__main__":
    main()
