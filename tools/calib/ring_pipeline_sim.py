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


if __name__ == "__main__":
    main()
