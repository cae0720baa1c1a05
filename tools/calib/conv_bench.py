#!/usr/bin/env python3
"""Per-pass times of ResNet-50 v1.5's convolutions on one GPU (cuDNN through
PyTorch), by precision and layout: the input of tools/calib/conv_check.c.

    python3 tools/calib/conv_bench.py --out DIR [--batch 256] [--graph]

For each of ResNet-50 v1.5's 22 distinct convolutions (torchvision's
shapes at 224 x 224) and each setting (fp16 / bf16 / tf32 channels-last,
tf32 and fp32 NCHW): the forward (F.conv2d), the data gradient and the
weight gradient (torch.ops.aten.convolution_backward with one output
each), median of REPS calls after WARM, cudnn.benchmark on (the first
warm-up call autotunes). With --graph, 10 calls captured in a CUDA graph
and replayed (gputime.timed_graph): the GPU's time, where one call between
two events measures PyTorch's host time (50-70 us a cuDNN call) for the
short passes. Writes DIR/conv_bench.csv and, per setting,
DIR/conv_<setting>.txt in conv_check.c's format ("n c h w k r s p q stride
fwd_us dgrad_us wgrad_us", the stem's data gradient 0 as a network has
none).
"""
import argparse
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_bench import REPS, timed  # noqa: E402  (median of REPS calls after WARM)
from gputime import timed_graph  # noqa: E402

# c, hw (input), k, r (= s), stride, pad
RESNET50 = [(3, 224, 64, 7, 2, 3),
            (64, 56, 64, 1, 1, 0), (64, 56, 64, 3, 1, 1), (64, 56, 256, 1, 1, 0),
            (256, 56, 64, 1, 1, 0),
            (256, 56, 128, 1, 1, 0), (128, 56, 128, 3, 2, 1), (128, 28, 512, 1, 1, 0),
            (256, 56, 512, 1, 2, 0), (512, 28, 128, 1, 1, 0), (128, 28, 128, 3, 1, 1),
            (512, 28, 256, 1, 1, 0), (256, 28, 256, 3, 2, 1), (256, 14, 1024, 1, 1, 0),
            (512, 28, 1024, 1, 2, 0), (1024, 14, 256, 1, 1, 0), (256, 14, 256, 3, 1, 1),
            (1024, 14, 512, 1, 1, 0), (512, 14, 512, 3, 2, 1), (512, 7, 2048, 1, 1, 0),
            (1024, 14, 2048, 1, 2, 0), (2048, 7, 512, 1, 1, 0), (512, 7, 512, 3, 1, 1)]

SETTINGS = [("fp16_cl", torch.float16, True, True), ("bf16_cl", torch.bfloat16, True, True),
            ("tf32_cl", torch.float32, True, True), ("tf32_nchw", torch.float32, False, True),
            ("fp32_nchw", torch.float32, False, False)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--only", default="", help="comma-separated settings")
    ap.add_argument("--graph", action="store_true", help="time replays of a CUDA graph")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dev, n = a.device, a.batch
    torch.backends.cudnn.benchmark = True
    cols = ["setting", "n", "c", "h", "w", "k", "r", "s", "p", "q", "stride", "pad",
            "fwd_ms", "dgrad_ms", "wgrad_ms", "fwd_tflops", "status"]
    f = open(os.path.join(a.out, "conv_bench.csv"), "w", newline="")
    w = csv.DictWriter(f, fieldnames=cols)
    w.writeheader()
    t0 = time.perf_counter()
    for name, dt, cl, tf32 in SETTINGS:
        if a.only and name not in a.only.split(","):
            continue
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        lines = []
        for i, (c, hw, k, r, st, pd) in enumerate(RESNET50):
            p = (hw + 2 * pd - r) // st + 1
            row = dict(setting=name, n=n, c=c, h=hw, w=hw, k=k, r=r, s=r, p=p, q=p, stride=st,
                       pad=pd, fwd_ms="", dgrad_ms="", wgrad_ms="", fwd_tflops="", status="ok")
            try:
                x = torch.randn(n, c, hw, hw, device=dev, dtype=dt)
                wt = torch.randn(k, c, r, r, device=dev, dtype=dt) * 0.05
                if cl:
                    x = x.contiguous(memory_format=torch.channels_last)
                    wt = wt.contiguous(memory_format=torch.channels_last)
                y = F.conv2d(x, wt, None, st, pd)
                gy = torch.randn_like(y)
                bw = torch.ops.aten.convolution_backward

                def fwd():
                    F.conv2d(x, wt, None, st, pd)

                def dgrad():
                    bw(gy, x, wt, None, [st, st], [pd, pd], [1, 1], False, [0, 0], 1,
                       [True, False, False])

                def wgrad():
                    bw(gy, x, wt, None, [st, st], [pd, pd], [1, 1], False, [0, 0], 1,
                       [False, True, False])
                tm = (lambda fn, d: timed_graph(fn, 10)) if a.graph else timed
                tf, td, tw = tm(fwd, dev), (0.0 if i == 0 else tm(dgrad, dev)), tm(wgrad, dev)
                fl = 2.0 * n * p * p * k * c * r * r
                row.update(fwd_ms="%.4f" % tf, dgrad_ms="%.4f" % td, wgrad_ms="%.4f" % tw,
                           fwd_tflops="%.1f" % (fl / tf / 1e9))
                lines.append("%d %d %d %d %d %d %d %d %d %d %.1f %.1f %.1f" %
                             (n, c, hw, hw, k, r, r, p, p, st, 1e3 * tf, 1e3 * td, 1e3 * tw))
            except Exception as e:
                row["status"] = ("error: " + (str(e).splitlines()[0] if str(e) else
                                              type(e).__name__))[:90].replace(",", ";")
            w.writerow(row)
            f.flush()
            print(",".join(str(row[k]) for k in cols), flush=True)
        with open(os.path.join(a.out, "conv_%s.txt" % name), "w") as g:
            g.write("# tools/calib/conv_bench.py on %s, %s: per-convolution time, us, median of %d calls\n"
                    % (torch.cuda.get_device_name(0) if dev == "cuda" else "cpu", name, REPS))
            g.write("# n c h w k r s p q stride fwd_us dgrad_us wgrad_us\n")
            g.write("\n".join(lines) + "\n")
        if dev == "cuda":
            torch.cuda.empty_cache()
    print("total %.1f s" % (time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    sys.exit(main())
