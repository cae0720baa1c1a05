#!/usr/bin/env python3
"""Memory of a language model's loss in eager PyTorch on one GPU: bytes per
logit held after the forward and at the peaks of the forward and the
backward, beyond the 16-bit logits themselves.

    python3 tools/calib/loss_mem.py --out DIR

Writes DIR/loss_mem.csv. For tokens T and vocabulary V, logits [T, V] in
bf16 that require a gradient (as a vocabulary GEMM's output would), then:
  autocast  F.cross_entropy under torch.autocast(bfloat16): autocast runs
            it in fp32 (the cast, log-softmax, NLL), as eager scripts do;
  float     F.cross_entropy(logits.float()): the explicit fp32 cast
            Megatron's GPT loss makes before its own kernels;
  bf16      F.cross_entropy on the bf16 logits, no autocast.
Memory from torch.cuda.max_memory_allocated / memory_allocated, reset
before each phase; the logits (2 bytes each) and their leaf gradient are
counted apart: `fwd_peak_B`, `saved_B`, `bwd_peak_B` are bytes per logit
above the logits, the gradient of the leaf included in bwd_peak_B.
"""
import argparse
import csv
import os

import torch
import torch.nn.functional as F


def run(T, V, mode):
    torch.cuda.empty_cache()
    logits = torch.randn(T, V, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    tgt = torch.randint(0, V, (T,), device="cuda")
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    if mode == "autocast":
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(logits, tgt)
    elif mode == "float":
        loss = F.cross_entropy(logits.float(), tgt)
    else:
        loss = F.cross_entropy(logits, tgt)
    torch.cuda.synchronize()
    fwd_peak = torch.cuda.max_memory_allocated() - base
    saved = torch.cuda.memory_allocated() - base
    torch.cuda.reset_peak_memory_stats()
    loss.backward()
    torch.cuda.synchronize()
    bwd_peak = torch.cuda.max_memory_allocated() - base
    n = float(T) * V
    del logits, tgt, loss
    return fwd_peak / n, saved / n, bwd_peak / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "loss_mem.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "tokens", "vocab", "fwd_peak_B", "saved_B", "bwd_peak_B"])
        for V in (32000, 50304, 128256):
            for T in (4096, 16384, 32768):
                for mode in ("autocast", "float", "bf16"):
                    try:
                        r = run(T, V, mode)
                        row = [mode, T, V] + ["%.3f" % x for x in r]
                    except Exception as e:  # out of memory: say so, go on
                        row = [mode, T, V, "error: " + str(e).splitlines()[0][:60], "", ""]
                    w.writerow(row)
                    f.flush()
                    print(*row, flush=True)
    print(torch.__version__, torch.cuda.get_device_name())


if __name__ == "__main__":
    main()
