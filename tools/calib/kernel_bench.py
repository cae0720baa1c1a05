#!/usr/bin/env python3
"""Kernel microbenchmarks on one GPU: fused attention by backend, sequence
length and head dim; batch norm by layout and dtype; pooling.

    python3 tools/calib/kernel_bench.py --out DIR [--only attn,norm,pool] [--long]

--long times attention alone at sequences of 8k-32k (bf16, flash and cuDNN).

Writes DIR/attn_bench.csv, DIR/norm_bench.csv, DIR/pool_bench.csv (rows
flushed as they finish) and prints them. Every time is the median of REPS
timed calls (CUDA events around each call) after WARM untimed ones.

attention: torch.nn.functional.scaled_dot_product_attention restricted to
  one backend (sdpa_kernel: FLASH_ATTENTION = FlashAttention-2,
  CUDNN_ATTENTION = cuDNN's fused attention, EFFICIENT_ATTENTION = the
  memory-efficient CUTLASS kernel, the one fp32 gets), q, k, v of shape
  (b, h, s, d) with b * s = 16384 tokens and h * d = 2048, no dropout,
  causal or not. `fwd_ms` times the call, `fwdbwd_ms` the call plus
  torch.autograd.grad of its output against q, k, v; `bwd_ms` their
  difference. FLOPs: forward 4 b h s^2 d (half with a causal mask),
  backward 2.5 x forward; TFLOP/s from those.
norm: torch.nn.functional.batch_norm in training mode (cuDNN where PyTorch
  uses it) on ResNet-50's batch-norm shapes at batch 256, NCHW and
  channels_last, fp16 / bf16 / fp32; forward and forward + backward; GB/s
  counting forward 2 x the tensor (read x, write y) and backward 3 x
  (read x and dy, write dx): what a one-pass kernel must move.
pool: max_pool2d 3x3/2 pad 1 (ResNet's stem, VGG-like 2x2/2) and
  avg_pool2d 3x3/1 pad 1 (Inception's branch pools) on their shapes, in
  fp16 NCHW and channels_last; forward and forward + backward.
"""
import argparse
import csv
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

WARM, REPS = 3, 10


def timed(fn, dev):
    """Median ms of REPS calls of fn()."""
    for _ in range(WARM):
        fn()
    if dev != "cuda":
        ts = []
        for _ in range(REPS):
            t0 = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(ts)
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(REPS)]
    for a, b in ev:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ev)


class Out:
    def __init__(self, path, cols):
        self.f = open(path, "w", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=cols)
        self.w.writeheader()

    def row(self, r):
        self.w.writerow(r)
        self.f.flush()
        print(",".join(str(r[k]) for k in self.w.fieldnames), flush=True)


DT = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def attn(out_dir, dev, quick, long=False):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    o = Out(os.path.join(out_dir, "attn_bench.csv"),
            ["backend", "dtype", "seq", "head_dim", "causal", "batch", "heads", "fwd_ms",
             "fwdbwd_ms", "bwd_ms", "fwd_tflops", "bwd_tflops", "status"])
    backends = [("flash", SDPBackend.FLASH_ATTENTION, ("fp16", "bf16")),
                ("cudnn", SDPBackend.CUDNN_ATTENTION, ("fp16", "bf16")),
                ("efficient", SDPBackend.EFFICIENT_ATTENTION, ("fp16", "fp32"))]
    seqs = [128, 512, 2048] if quick else [128, 256, 512, 1024, 2048, 4096, 8192]
    if long:  # long contexts: one sequence a batch, bf16, the two fast backends
        seqs, backends = [8192, 16384, 32768], [(n, be, ("bf16",)) for n, be, _ in backends[:2]]
    for name, be, dts in backends:
        for dt in dts:
            for d in (64, 128):
                for s in seqs:
                    for causal in (0, 1):
                        b, h = max(1, 16384 // s), 2048 // d
                        r = dict(backend=name, dtype=dt, seq=s, head_dim=d, causal=causal,
                                 batch=b, heads=h, fwd_ms="", fwdbwd_ms="", bwd_ms="",
                                 fwd_tflops="", bwd_tflops="", status="ok")
                        try:
                            q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=DT[dt],
                                                   requires_grad=True) for _ in range(3))
                            g = torch.randn(b, h, s, d, device=dev, dtype=DT[dt])
                            with sdpa_kernel([be]):
                                def fwd():
                                    with torch.no_grad():
                                        F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))

                                def fb():
                                    y = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
                                    torch.autograd.grad(y, (q, k, v), g)
                                tf, tfb = timed(fwd, dev), timed(fb, dev)
                            fl = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
                            r.update(fwd_ms="%.4f" % tf, fwdbwd_ms="%.4f" % tfb,
                                     bwd_ms="%.4f" % (tfb - tf),
                                     fwd_tflops="%.1f" % (fl / tf / 1e9),
                                     bwd_tflops="%.1f" % (2.5 * fl / max(tfb - tf, 1e-6) / 1e9))
                        except Exception as e:
                            r["status"] = ("error: " + (str(e).splitlines()[0] if str(e)
                                                        else type(e).__name__))[:90].replace(",", ";")
                        o.row(r)


# ResNet-50's batch-norm inputs (C, H=W) at batch 256: stem, stage 1..4 widths.
NORM_SHAPES = [(64, 112), (64, 56), (256, 56), (128, 28), (512, 28), (256, 14), (1024, 14),
               (512, 7), (2048, 7)]


def norm(out_dir, dev, quick):
    o = Out(os.path.join(out_dir, "norm_bench.csv"),
            ["layout", "dtype", "n", "c", "hw", "elems", "fwd_ms", "fwdbwd_ms", "bwd_ms",
             "fwd_GBps", "bwd_GBps", "status"])
    n = 8 if dev != "cuda" else 256
    shapes = NORM_SHAPES[:3] if quick else NORM_SHAPES
    for layout in ("nchw", "cl"):
        for dt in ("fp16", "bf16", "fp32"):
            for c, hw in shapes:
                r = dict(layout=layout, dtype=dt, n=n, c=c, hw=hw, elems=n * c * hw * hw,
                         fwd_ms="", fwdbwd_ms="", bwd_ms="", fwd_GBps="", bwd_GBps="", status="ok")
                try:
                    x = torch.randn(n, c, hw, hw, device=dev, dtype=DT[dt])
                    if layout == "cl":
                        x = x.contiguous(memory_format=torch.channels_last)
                    x.requires_grad_(True)
                    w = torch.ones(c, device=dev, requires_grad=True)
                    bias = torch.zeros(c, device=dev, requires_grad=True)
                    rm, rv = torch.zeros(c, device=dev), torch.ones(c, device=dev)
                    gy = torch.randn_like(x)

                    def fwd():
                        with torch.no_grad():
                            F.batch_norm(x, rm, rv, w, bias, training=True)

                    def fb():
                        y = F.batch_norm(x, rm, rv, w, bias, training=True)
                        torch.autograd.grad(y, (x, w, bias), gy)
                    tf, tfb = timed(fwd, dev), timed(fb, dev)
                    by = x.numel() * x.element_size()
                    r.update(fwd_ms="%.4f" % tf, fwdbwd_ms="%.4f" % tfb, bwd_ms="%.4f" % (tfb - tf),
                             fwd_GBps="%.0f" % (2 * by / tf / 1e6),
                             bwd_GBps="%.0f" % (3 * by / max(tfb - tf, 1e-6) / 1e6))
                except Exception as e:
                    r["status"] = ("error: " + (str(e).splitlines()[0] if str(e)
                                                else type(e).__name__))[:90].replace(",", ";")
                o.row(r)


# (kind, kernel, stride, pad, n, c, hw)
POOLS = [("max", 3, 2, 1, 256, 64, 112), ("max", 2, 2, 0, 128, 128, 112),
         ("max", 2, 2, 0, 128, 512, 28), ("max", 3, 2, 0, 128, 288, 35),
         ("avg", 3, 1, 1, 128, 192, 35), ("avg", 3, 1, 1, 128, 768, 17),
         ("avg", 3, 1, 1, 128, 1280, 8)]


def pool(out_dir, dev, quick):
    o = Out(os.path.join(out_dir, "pool_bench.csv"),
            ["kind", "kernel", "stride", "pad", "layout", "dtype", "n", "c", "hw", "in_MB",
             "fwd_ms", "fwdbwd_ms", "bwd_ms", "status"])
    for kind, kk, st, pd, n, c, hw in (POOLS[:2] if quick else POOLS):
        if dev != "cuda":
            n = 2
        for layout in ("nchw", "cl"):
            dt = "fp16" if dev == "cuda" else "fp32"
            r = dict(kind=kind, kernel=kk, stride=st, pad=pd, layout=layout, dtype=dt, n=n, c=c,
                     hw=hw, in_MB="", fwd_ms="", fwdbwd_ms="", bwd_ms="", status="ok")
            try:
                x = torch.randn(n, c, hw, hw, device=dev, dtype=DT[dt])
                if layout == "cl":
                    x = x.contiguous(memory_format=torch.channels_last)
                x.requires_grad_(True)
                op = (lambda t: F.max_pool2d(t, kk, st, pd)) if kind == "max" else \
                    (lambda t: F.avg_pool2d(t, kk, st, pd))
                gy = torch.randn_like(op(x.detach()))

                def fwd():
                    with torch.no_grad():
                        op(x)

                def fb():
                    torch.autograd.grad(op(x), (x,), gy)
                tf, tfb = timed(fwd, dev), timed(fb, dev)
                r.update(in_MB="%.0f" % (x.numel() * x.element_size() / 1e6), fwd_ms="%.4f" % tf,
                         fwdbwd_ms="%.4f" % tfb, bwd_ms="%.4f" % (tfb - tf))
            except Exception as e:
                r["status"] = ("error: " + (str(e).splitlines()[0] if str(e)
                                            else type(e).__name__))[:90].replace(",", ";")
            o.row(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--only", default="attn,norm,pool")
    ap.add_argument("--quick", action="store_true", help="a few shapes only (logic check)")
    ap.add_argument("--long", action="store_true",
                    help="attention only: sequences 8k-32k (batch 1 beyond 16k tokens), bf16")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    for part in a.only.split(","):
        p0 = time.perf_counter()
        try:
            if a.long:
                attn(a.out, a.device, a.quick, True)
                break
            {"attn": attn, "norm": norm, "pool": pool}[part](a.out, a.device, a.quick)
        except Exception as e:  # a missing API on an old PyTorch: say so, go on
            print("%s: failed: %s" % (part, e), flush=True)
        print("%s: %.1f s" % (part, time.perf_counter() - p0), flush=True)
    print("total %.1f s" % (time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    sys.exit(main())
