#!/usr/bin/env python3
"""GEMMs of the shapes transformer training runs, on one GPU, by dtype: the
GEMM model's check beyond the calibration's large square rows
(docs/calibration.md, "GEMM shapes of training on an H200").

    python3 tools/calib/gemm_bench.py --out DIR [--quick]

Writes DIR/gemm_bench.csv (rows flushed as they finish). For each token
count M and each weight [K, N] of a published model (BERT-base/large,
GPT-2, GPT-3 2.7B/6.7B-like, Llama 2 7B/70B, vocabularies 30,522, 50,257
and the padded 50,304), the three GEMMs of a linear layer's training step,
each timed alone with torch.matmul on row-major operands:

  fwd    y[M, N]  = x[M, K] W[K, N]
  dgrad  dx[M, K] = dy[M, N] W^T
  wgrad  dW[K, N] = x^T dy               (reduction over the M tokens)

in bf16, fp16, tf32 (allow_tf32) and fp32 (TF32 off). Times: CUDA events
around INNER back-to-back calls, the median of REPS blocks after WARM
calls; TFLOP/s = 2 M N K / time. Model comparison: tools/calib/gemm_check
--bench FILE --gpu NAME.
"""
import argparse
import csv
import os
import sys

import torch

from gputime import timed

# (model, K, N) of a linear layer's weight: hidden -> out
WEIGHTS = [
    ("bert_base_qkv", 768, 2304), ("bert_base_fc1", 768, 3072), ("bert_base_fc2", 3072, 768),
    ("bert_base_proj", 768, 768), ("bert_vocab", 768, 30522),
    ("bert_large_fc1", 1024, 4096), ("bert_large_fc2", 4096, 1024),
    ("gpt2_vocab", 768, 50257), ("gpt2m_vocab_padded", 1024, 50304),
    ("gpt_2p7b_qkv", 2560, 7680), ("gpt_2p7b_fc1", 2560, 10240),
    ("llama7b_fc1", 4096, 11008), ("llama7b_fc2", 11008, 4096), ("llama7b_qkv", 4096, 12288),
    ("llama70b_fc1_tp8", 8192, 3584), ("llama70b_fc2_tp8", 3584, 8192),
]
TOKENS = (512, 2048, 8192, 32768)
DTYPES = ("bf16", "fp16", "tf32", "fp32")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="one shape per dtype (a smoke test)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if not torch.cuda.is_available():
        sys.exit("gemm_bench: no CUDA device")
    f = open(os.path.join(a.out, "gemm_bench.csv"), "w", newline="")
    w = csv.writer(f)
    w.writerow(["weight", "dtype", "pass", "m", "n", "k", "ms", "tflops"])
    for dt in DTYPES:
        torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
        tdt = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dt, torch.float32)
        for name, K, N in WEIGHTS[:1] if a.quick else WEIGHTS:
            for M in TOKENS[:1] if a.quick else TOKENS:
                x = torch.randn(M, K, device="cuda", dtype=tdt)
                W = torch.randn(K, N, device="cuda", dtype=tdt)
                dy = torch.randn(M, N, device="cuda", dtype=tdt)
                xT, Wt = x.t().contiguous(), W.t().contiguous()
                for pas, fn, (m, n, k) in (
                        ("fwd", lambda: torch.matmul(x, W), (M, N, K)),
                        ("dgrad", lambda: torch.matmul(dy, Wt), (M, K, N)),
                        ("wgrad", lambda: torch.matmul(xT, dy), (K, N, M))):
                    ms = timed(fn)
                    tf = 2.0 * M * N * K / (ms * 1e-3) / 1e12
                    w.writerow([name, dt, pas, m, n, k, "%.5f" % ms, "%.1f" % tf])
                    f.flush()
                    print(name, dt, pas, m, n, k, "%.4f ms %.0f TF/s" % (ms, tf), flush=True)
                del x, W, dy, xT, Wt
    f.close()


if __name__ == "__main__":
    main()
