#!/usr/bin/env python3
"""The batched GEMMs of unfused attention on one GPU, timed from CUDA
graphs: the check of the GEMM model's shape parameters at k = the head
dimension (docs/calibration.md, "GEMM shape model": Hopper's were fitted
at k >= 768).

    python3 tools/calib/bmm_bench.py --out DIR

Writes DIR/bmm_bench.csv. 16,384 tokens a batch (b = 16384 / s sequences),
hidden 2048 (h = 2048 / d heads), s = 512..4096, d = 64 and 128, bf16:

  qk   scores[bh, s, s] = q[bh, s, d] k^T      (m s, n s, k d; also dS = dO V^T)
  av   out[bh, s, d]    = p[bh, s, s] v        (m s, n d, k s; also dQ, dK, dV)

torch.bmm with preallocated outputs, 20 calls captured in a graph, the
median of 5 replays (gputime.timed_graph). Compare with
`tools/calib/gemm_check --bmm FILE --gpu NAME`.
"""
import argparse
import csv
import os

import torch

from gputime import timed_graph


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    f = open(os.path.join(a.out, "bmm_bench.csv"), "w", newline="")
    w = csv.writer(f)
    w.writerow(["kind", "dtype", "batch", "m", "n", "k", "ms", "tflops"])
    for d in (64, 128):
        for s in (512, 1024, 2048, 4096):
            bh = (16384 // s) * (2048 // d)
            q = torch.randn(bh, s, d, device="cuda", dtype=torch.bfloat16)
            kt = torch.randn(bh, d, s, device="cuda", dtype=torch.bfloat16)
            p = torch.randn(bh, s, s, device="cuda", dtype=torch.bfloat16)
            sc = torch.empty(bh, s, s, device="cuda", dtype=torch.bfloat16)
            o = torch.empty(bh, s, d, device="cuda", dtype=torch.bfloat16)
            for kind, fn, (m, n, k) in (("qk", lambda: torch.bmm(q, kt, out=sc), (s, s, d)),
                                        ("av", lambda: torch.bmm(p, q, out=o), (s, d, s))):
                ms = timed_graph(fn)
                tf = 2.0 * bh * m * n * k / (ms * 1e-3) / 1e12
                w.writerow([kind, "bf16", bh, m, n, k, "%.5f" % ms, "%.1f" % tf])
                f.flush()
                print(kind, bh, m, n, k, "%.4f ms %.0f TF/s" % (ms, tf), flush=True)
            del q, kt, p, sc, o
    f.close()


if __name__ == "__main__":
    main()
