#!/usr/bin/env python3
"""ring_pipeline_sim.py -- a slice-level simulation of NCCL's Simple ring
all-reduce on one channel, to check the closed form of src/coll/nccl_pipe.c.

Each rank's block runs, per loop iteration, the primitives send, n-2
recvReduceSend, recvReduceCopySend, n-2 recvCopySend, recv (NCCL
src/device/all_reduce.h runRing), each cut into `spc` slices, one after
another (one block per channel). A slice takes `cs` of copy time and may
start when
  - the block has finished its previous slice,
  - (receiving primitives) the predecessor finished the same slice of the
    previous primitive, plus the latency of the hop between them,
  - (sending primitives) the successor has finished consuming the slice
    sent `fifo` sends earlier (the connection's FIFO holds NCCL_STEPS
    steps, fifo = NCCL_STEPS / SLICESTEPS slices; src/include/device.h,
    collectives.h).
Times are solved by relaxation. Prints, for a uniform ring and for rings
with a slow network hop between nodes, the time per primitive after the
first iteration against nccl_pipe_ring_later's closed form
c/b + max(0, step_lat - (spc-1) cs, spc (hop + 2 cs) / fifo - c/b).
Then, for the first iteration of a uniform ring and of rings of 2 and 4
nodes, the latency the same dependencies expose (the one-iteration time
less its prims x c/b of copies), the closed form of that (`chain`: the
heaviest chain of hops, each exposing its latency less the other slice's
copy, or the FIFO's excess on the primitives after the send), and
nccl_pipe.c's rule 1 (steps x the mean step, NCCL's tuner; prims x the
mean step before branch nccl26). The model keeps rule 1: the measured
rings do not show the hiding (docs/network.md, "First iteration and the
flush").

    python3 tools/calib/ring_pipeline_sim.py

Python 3 standard library only; no input files.
"""


def simulate(n, lat, cs, iters, spc=2, fifo=4):
    """Finish time of a ring all-reduce; lat[r]: latency of hop r -> r+1."""
    prims = 2 * n - 1
    ops = [(l, j, s) for l in range(iters) for j in range(prims) for s in range(spc)]
    idx = {op: i for i, op in enumerate(ops)}
    sends = [op for op in ops if op[1] <= prims - 2]
    sord = {op: i for i, op in enumerate(sends)}
    t = [[0.0] * len(ops) for _ in range(n)]
    changed = True
    while changed:
        changed = False
        for k, (l, j, s) in enumerate(ops):
            for r in range(n):
                start = t[r][k - 1] if k else 0.0
                if j >= 1:
                    p = (r - 1) % n
                    start = max(start, t[p][idx[(l, j - 1, s)]] + lat[p])
                if j <= prims - 2 and sord[(l, j, s)] >= fifo:
                    pl, pj, ps = sends[sord[(l, j, s)] - fifo]
                    start = max(start, t[(r + 1) % n][idx[(pl, pj + 1, ps)]])
                if start + cs > t[r][k] + 1e-12:
                    t[r][k] = start + cs
                    changed = True
    return max(row[-1] for row in t)


def closed_form(lat, cs, spc=2, fifo=4):
    cb = spc * cs
    mean, hop = sum(lat) / len(lat), max(lat)
    x = max(0.0, mean - (spc - 1) * cs, spc * (hop + 2 * cs) / fifo - cb)
    return cb + x


def first_closed(n, ppn, intra, hop, cs, spc=2, fifo=4):
    """The first iteration's exposed latency the dependencies give, closed
    form, for an all-reduce ring of n ranks, ppn a node (not the model's)."""
    prims = 2 * n - 1
    steps, nodes = prims - 1, n // ppn
    inter = 0 if nodes == 1 else 2 * (nodes - 1)
    mean = ((steps - inter) * intra + inter * hop) / steps
    hidden = (spc - 1) * cs
    e_intra, e_net = intra - hidden, hop - hidden
    if e_intra >= 0:
        chain = steps * (mean - hidden)
    elif inter:
        chain = max(0.0, e_net, inter * e_net + (inter - 1) * (ppn - 1) * e_intra)
    else:
        chain = 0.0
    return max(chain, (prims - 1) * max(0.0, spc * (hop + 2 * cs) / fifo - spc * cs))


def main():
    cs = 45.0  # one slice's copy, e.g. 1 MiB at 23 GB/s, us
    cases = [("uniform", 8, 1, lam, lam) for lam in (10, 45, 60, 90, 150)]
    cases += [("2 nodes", 16, 8, 3.4, h) for h in (60, 90, 120, 151, 250)]
    cases += [("4 nodes", 32, 8, 3.4, h) for h in (90, 151, 250)]
    print("%-8s %3s %6s %6s %10s %10s %7s" % ("ring", "n", "intra", "hop", "sim/prim",
                                             "closed", "diff"))
    for name, n, ppn, intra, hop in cases:
        lat = [hop if (r + 1) % ppn == 0 else intra for r in range(n)]
        prims = 2 * n - 1
        later = (simulate(n, lat, cs, 3) - simulate(n, lat, cs, 1)) / 2 / prims
        cf = closed_form(lat, cs)
        print("%-8s %3d %6.1f %6.1f %10.1f %10.1f %+6.1f%%" % (name, n, intra, hop, later, cf,
                                                              100 * (cf / later - 1)))
    print()
    print("first iteration, 2 slices: exposed latency")
    print("%3s %3s %6s %6s %6s %8s %8s %8s %8s" % ("n", "ppn", "intra", "hop", "slice", "sim",
                                                   "chain", "rule 1", "before"))
    rings = [(8, 8, lam, lam) for lam in (3.4, 10.0)]
    rings += [(n, 8, 3.4, h) for n in (16, 32) for h in (14.0, 40.0, 82.0)]
    for n, ppn, intra, hop in rings:
        lat = [hop if (r + 1) % ppn == 0 else intra for r in range(n)]
        prims = 2 * n - 1
        for slice_us in (1.0, 2.0, 5.0, 11.6, 45.0):
            sim = simulate(n, lat, slice_us, 1) - prims * 2 * slice_us
            steps = prims - 1
            inter = 0 if n == ppn else 2 * (n // ppn - 1)
            mean = ((steps - inter) * intra + inter * hop) / steps
            print("%3d %3d %6.1f %6.1f %6.1f %8.1f %8.1f %8.1f %8.1f" % (
                n, ppn, intra, hop, slice_us, sim, first_closed(n, ppn, intra, hop, slice_us),
                steps * mean, prims * mean))


if __name__ == "__main__":
    main()
