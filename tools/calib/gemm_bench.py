#!/usr/bin/env python3
"""GEMMs of the shapes transformer training runs, on one GPU, by dtype: the
GEMM model's check beyond the calibration's large square rows
(docs/calibration.md, "GEMM shapes of training on an H200").

    python3 tools/calib/gemm_bench.py --out DIR [--quick] [--narrow] [--graph] [--dtypes LIST]

Writes DIR/gemm_bench.csv (rows flushed as they finish). For each token
count M and each weight [K, N] of a published model (BERT-base/large,
GPT-2, GPT-3 2.7B/6.7B-like, Llama 2 7B/70B, vocabularies 30,522, 50,257
and the padded 50,304), the three GEMMs of a linear layer's training step,
each timed alone with torch.matmul on row-major operands:

  fwd    y[M, N]  = x[M, K] W[K, N]
  dgrad  dx[M, K] = dy[M, N] W^T
  wgrad  dW[K, N] = x^T dy               (reduction over the M tokens)

in bf16, fp16, tf32 (allow_tf32) and fp32 (TF32 off); --dtypes picks
among them and fp8: torch._scaled_mm on e4m3 operands with per-tensor
scales and a bf16 output, the second operand column-major (cuBLASLt's
fp8 layout, "TN"), with fast accumulation in fwd only, as Transformer
Engine's delayed-scaling recipe sets it (recipe/__init__.py:
fp8_gemm_fprop use_split_accumulator False, dgrad and wgrad True). --narrow times
instead layers with a narrow output (N = 1..128: a logit or a small
projection, recsys models' last layers; the smallest dimension is then N
in fwd and wgrad and the inner one in dgrad) at K = 128, 1024, 4096 and
M = 2048, 16384, 65536 rows, in fp16, tf32 and fp32: the check of the
GEMM model's narrow-shape rule (src/cost/compute.c, GEMV_MAX_DIM). Times: CUDA events
around INNER back-to-back calls, the median of REPS blocks after WARM
calls; with --graph, INNER = 20 calls captured in a CUDA graph and replayed
(the GPU's time: eager calls of small GEMMs are bound by PyTorch's host
dispatch, 14-20 us a call on the lent H200); TFLOP/s = 2 M N K / time. Model comparison: tools/calib/gemm_check
--bench FILE --gpu NAME.
"""
import argparse
import csv
import os
import sys

import torch

from gputime import timed, timed_graph

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


def fp8_call(m, n, k, fast):
    """One fp8 GEMM out[m, n] = a[m, k] b[k, n] as Transformer Engine runs
    it: e4m3 operands, per-tensor scales, bf16 out; b column-major."""
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda", dtype=torch.float32)
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                    use_fast_accum=fast)
NARROW = [("narrow_k%d_n%d" % (K, N), K, N) for K in (128, 1024, 4096)
          for N in (1, 2, 4, 8, 16, 32, 64, 128)]
NARROW_TOKENS = (2048, 16384, 65536)
NARROW_DTYPES = ("fp16", "tf32", "fp32")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="one shape per dtype (a smoke test)")
    ap.add_argument("--narrow", action="store_true", help="narrow layers (N 1..128) instead")
    ap.add_argument("--dtypes", default="", help="comma-separated: bf16,fp16,tf32,fp32,fp8")
    ap.add_argument("--graph", action="store_true",
                    help="time calls replayed from a CUDA graph (GPU time, no host dispatch)")
    a = ap.parse_args()
    weights, tokens, dtypes = (NARROW, NARROW_TOKENS, NARROW_DTYPES) if a.narrow else (WEIGHTS, TOKENS, DTYPES)
    if a.dtypes:
        dtypes = tuple(a.dtypes.split(","))
    os.makedirs(a.out, exist_ok=True)
    if not torch.cuda.is_available():
        sys.exit("gemm_bench: no CUDA device")
    f = open(os.path.join(a.out, "gemm_bench.csv"), "w", newline="")
    w = csv.writer(f)
    w.writerow(["weight", "dtype", "pass", "m", "n", "k", "ms", "tflops"])
    for dt in dtypes:
        if dt == "fp8":
            fp8_rows(w, f, weights[:1] if a.quick else weights, tokens[:1] if a.quick else tokens,
                     a.graph)
            continue
        torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
        tdt = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dt, torch.float32)
        for name, K, N in weights[:1] if a.quick else weights:
            for M in tokens[:1] if a.quick else tokens:
                x = torch.randn(M, K, device="cuda", dtype=tdt)
                W = torch.randn(K, N, device="cuda", dtype=tdt)
                dy = torch.randn(M, N, device="cuda", dtype=tdt)
                xT, Wt = x.t().contiguous(), W.t().contiguous()
                y, dx, dW = torch.empty_like(dy), torch.empty_like(x), torch.empty_like(W)
                for pas, fn, (m, n, k) in (
                        ("fwd", lambda: torch.matmul(x, W, out=y), (M, N, K)),
                        ("dgrad", lambda: torch.matmul(dy, Wt, out=dx), (M, K, N)),
                        ("wgrad", lambda: torch.matmul(xT, dy, out=dW), (K, N, M))):
                    ms = timed_graph(fn) if a.graph else timed(fn)
                    tf = 2.0 * M * N * K / (ms * 1e-3) / 1e12
                    w.writerow([name, dt, pas, m, n, k, "%.5f" % ms, "%.1f" % tf])
                    f.flush()
                    print(name, dt, pas, m, n, k, "%.4f ms %.0f TF/s" % (ms, tf), flush=True)
                del x, W, dy, xT, Wt, y, dx, dW
    f.close()


def fp8_rows(w, f, weights, tokens, graph):
    """The fp8 rows: each pass's (m, n, k) as fp8_call runs it."""
    for name, K, N in weights:
        if K % 16 or N % 16:  # cuBLASLt's fp8 needs every dimension a multiple of 16
            continue
        for M in tokens:
            for pas, (m, n, k) in (("fwd", (M, N, K)), ("dgrad", (M, K, N)), ("wgrad", (K, N, M))):
                try:
                    fn = fp8_call(m, n, k, pas == "fwd")
                    ms = timed_graph(fn) if graph else timed(fn)
                except Exception as e:  # an fp8 path this PyTorch or GPU lacks: say so, go on
                    print("fp8 failed:", str(e).splitlines()[0][:200] if str(e) else type(e).__name__,
                          flush=True)
                    return
                tf = 2.0 * M * N * K / (ms * 1e-3) / 1e12
                w.writerow([name, "fp8", pas, m, n, k, "%.5f" % ms, "%.1f" % tf])
                f.flush()
                print(name, "fp8", pas, m, n, k, "%.4f ms %.0f TF/s" % (ms, tf), flush=True)
                del fn
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
