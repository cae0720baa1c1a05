#!/usr/bin/env python3
"""MoE expert GEMMs on one GPU: grouped GEMM against batched, one GEMM per
expert, and one dense GEMM of the same work (issue 8, "grouped-GEMM
efficiency"; docs/calibration.md "MoE expert GEMMs").

    python3 tools/calib/moe_bench.py --out DIR [--quick] [--only rand] [--budget S]

Writes DIR/moe_bench.csv (DIR/moe_rand.csv with --only rand; rows flushed
as they finish) and DIR/moe_env.txt.

For each expert shape (hidden h, expert FFN f) of a published MoE model and
each number of local experts G and tokens per expert T, the two expert
linears -- fc1 (h -> 2f, SwiGLU's gate and up projections fused, as
Megatron-Core's TEGroupedMLP and DeepSeek-V3 run them; Mixtral too) and fc2
(f -> h) -- in bf16, each pass timed on its own:

  fwd    y[M, n] = x[M, k] W_e[k, n]     (M = G T tokens, in expert order)
  dgrad  dx[M, k] = dy[M, n] W_e^T
  wgrad  dW_e[k, n] = x_e^T dy_e         (one output per expert)

by these variants:

  grouped      torch._grouped_mm (CUTLASS grouped GEMM on sm90): every
               expert T tokens
  grouped_imb  the same, token counts spread linearly from (2 - r) T to r T
               (r = max / mean = 1.5 and 2.0; counts rounded to 16, the
               total kept): imbalance inside one GPU's experts
  bmm          torch.bmm over [G, T, k] (equal tokens only)
  loop         one torch.mm per expert (Megatron's SequentialMLP)
  dense        one torch.mm of M x k x n: the same FLOPs as a single GEMM
  fp8_grouped  torch._scaled_grouped_mm in float8_e4m3 (row-wise scales),
               forward only, where this PyTorch has it
  fp8_dense    torch._scaled_mm of the same M x k x n in float8_e4m3
               (row-wise scales): fp8_grouped's dense counterpart
  grouped_rand (--only rand) token counts drawn as a perfectly balanced
               router leaves them: G T tokens each sent to a uniformly
               random expert (multinomial, seed 0), not rounded; max_over_mean
               is what the draw gave; forward and data gradient only (the
               weight gradient's groups along k must be multiples of 16).
               fp8_dense runs in this mode too.

Times: CUDA events around INNER back-to-back calls, the median of REPS such
blocks after WARM untimed calls; TFLOP/s = 2 M k n / time. Model
comparison: tools/calib/moe_check.c.
"""
import argparse
import csv
import os
import sys
import time

import torch

from gputime import timed

# (name, hidden h, expert FFN f, local expert counts G, tokens per expert T)
# from the models' published configs (../shared/reference model configs):
# DeepSeek-V3 (hidden 7168, moe_intermediate_size 2048, 256 experts),
# Qwen3-235B-A22B (4096, 1536, 128), Mixtral 8x22B (6144, 16384, 8),
# Llama 4 Maverick (5120, 8192, 128).
SHAPES = [
    ("deepseek_v3", 7168, 2048, (4, 8, 16, 32), (128, 512, 2048, 8192)),
    ("qwen3_235b", 4096, 1536, (4, 8, 16, 32), (128, 512, 2048, 8192)),
    ("mixtral_8x22b", 6144, 16384, (1, 2, 4, 8), (128, 512, 2048, 8192)),
    ("llama4_maverick", 5120, 8192, (4, 8, 16), (128, 512, 2048, 8192)),
]
MAX_TOKENS = 131072


def counts_of(G, T, r):
    """Token counts of G experts, mean T, max/mean about r, multiples of 16."""
    if G == 1 or r <= 1.0:
        return [T] * G
    w = [1 + (r - 1) * (2.0 * e / (G - 1) - 1) for e in range(G)]
    c = [max(16, int(round(T * x / 16.0)) * 16) for x in w]
    c[-1] += G * T - sum(c)  # keep the total (on the largest)
    return c


def offsets(counts, dev):
    o, s = [], 0
    for c in counts:
        s += c
        o.append(s)
    return torch.tensor(o, dtype=torch.int32, device=dev)


class Bench:
    def __init__(self, out, dev, name):
        self.dev = dev
        self.f = open(os.path.join(out, name), "w", newline="")
        self.w = csv.writer(self.f)
        self.w.writerow(["model", "h", "f", "layer", "k", "n", "experts", "tokens_per_expert",
                         "tokens", "pass", "variant", "max_over_mean", "ms", "tflops", "note"])
        self.errors = {}

    def row(self, base, pas, variant, r, ms, flops, note=""):
        tf = flops / (ms * 1e-3) / 1e12 if ms and ms > 0 else 0
        self.w.writerow(base + [pas, variant, "%.3f" % r,
                                "%.5f" % ms if ms else "", "%.1f" % tf if ms else "", note])
        self.f.flush()
        print(",".join(str(x) for x in base), pas, variant, "%.2f" % r,
              "%.4f ms %.0f TF/s" % (ms, tf) if ms else note, flush=True)

    def attempt(self, base, pas, variant, r, flops, fn):
        key = (pas, variant)
        if key in self.errors:  # an API this PyTorch lacks: once is enough
            return
        try:
            ms = timed(fn)
        except Exception as e:  # record why, go on with the other variants
            msg = ("%s: %s" % (type(e).__name__, e)).replace("\n", " ")[:160]
            if "out of memory" in msg.lower():
                torch.cuda.empty_cache()
            else:
                self.errors[key] = msg
            self.row(base, pas, variant, r, None, flops, msg)
            return
        self.row(base, pas, variant, r, ms, flops)


def operands(dev, M, k, n, G):
    """x [M, k], dy [M, n], W [G, n, k] and Wt [G, k, n] row-major, and the
    transposes xT [k, M], dyT [n, M], bf16."""
    bf = torch.bfloat16
    x = torch.randn(M, k, device=dev, dtype=bf)
    dy = torch.randn(M, n, device=dev, dtype=bf)
    W = torch.randn(G, n, k, device=dev, dtype=bf) * 0.02
    return x, dy, W, W.transpose(-2, -1).contiguous(), x.t().contiguous(), dy.t().contiguous()


def rand_layer(b, model, h, f, layer, k, n, G, T):
    """--only rand: grouped GEMMs with multinomial token counts; fp8 dense."""
    dev, bf, M = b.dev, torch.bfloat16, G * T
    base, flops = [model, h, f, layer, k, n, G, T, M], 2.0 * M * k * n
    x, dy, W, Wt, xT, dyT = operands(dev, M, k, n, G)
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(0, G, (M,), generator=gen)
    counts = torch.bincount(ids, minlength=G).tolist()
    offs = offsets(counts, dev)
    r = max(counts) / float(T)
    gm = getattr(torch, "_grouped_mm", None)
    if gm is not None and G > 1:
        b.attempt(base, "fwd", "grouped_rand", r, flops, lambda: gm(x, W.transpose(-2, -1), offs=offs))
        b.attempt(base, "dgrad", "grouped_rand", r, flops,
                  lambda: gm(dy, Wt.transpose(-2, -1), offs=offs))
        # no weight gradient: groups along k need offsets in multiples of 16
        # (a device-side assert otherwise), and the model pads only rows
    smm = getattr(torch, "_scaled_mm", None)
    if smm is not None:
        f8 = torch.float8_e4m3fn
        x8, w8 = x.to(f8), W[0].to(f8)  # w8 [n, k] row-major: .t() is [k, n] column-major
        sa = torch.ones(M, 1, device=dev, dtype=torch.float32)
        sb = torch.ones(1, n, device=dev, dtype=torch.float32)
        b.attempt(base, "fwd", "fp8_dense", 1.0, flops,
                  lambda: smm(x8, w8.t(), scale_a=sa, scale_b=sb, out_dtype=bf))
        del x8, w8
    del x, dy, W, Wt, xT, dyT
    torch.cuda.empty_cache()


def one_layer(b, model, h, f, layer, k, n, G, T):
    dev, bf, M = b.dev, torch.bfloat16, G * T
    base, flops = [model, h, f, layer, k, n, G, T, M], 2.0 * M * k * n
    x, dy, W, Wt, xT, dyT = operands(dev, M, k, n, G)
    gm = getattr(torch, "_grouped_mm", None)
    for r in (1.0, 1.5, 2.0):
        if G == 1 and r > 1:
            continue
        counts = counts_of(G, T, r)
        offs = offsets(counts, dev)
        r = max(counts) / float(T)  # the max / mean these counts have
        var = "grouped" if r == 1.0 else "grouped_imb"
        if gm is None:
            b.row(base, "fwd", var, r, None, flops, "torch._grouped_mm missing")
            continue
        # fwd: x [M,k] @ (W_e as [k,n] column-major); dgrad: dy [M,n] @ (W_e^T [n,k] col-major)
        b.attempt(base, "fwd", var, r, flops, lambda: gm(x, W.transpose(-2, -1), offs=offs))
        b.attempt(base, "dgrad", var, r, flops, lambda: gm(dy, Wt.transpose(-2, -1), offs=offs))
        # wgrad: xT [k, M] @ dy [M, n], groups along M -> [G, k, n]
        b.attempt(base, "wgrad", var, r, flops, lambda: gm(xT, dyT.t(), offs=offs))
    xb, dyb = x.view(G, T, k), dy.view(G, T, n)
    b.attempt(base, "fwd", "bmm", 1.0, flops, lambda: torch.bmm(xb, Wt))
    b.attempt(base, "dgrad", "bmm", 1.0, flops, lambda: torch.bmm(dyb, W))
    b.attempt(base, "wgrad", "bmm", 1.0, flops, lambda: torch.bmm(xb.transpose(1, 2), dyb))
    xs, dys = list(x.split(T)), list(dy.split(T))
    b.attempt(base, "fwd", "loop", 1.0, flops,
              lambda: [torch.mm(xs[e], Wt[e]) for e in range(G)])
    b.attempt(base, "dgrad", "loop", 1.0, flops,
              lambda: [torch.mm(dys[e], W[e]) for e in range(G)])
    b.attempt(base, "wgrad", "loop", 1.0, flops,
              lambda: [torch.mm(xs[e].t(), dys[e]) for e in range(G)])
    W0t = Wt[0]  # one expert's [k, n]: the same M x k x n as a single GEMM
    b.attempt(base, "fwd", "dense", 1.0, flops, lambda: torch.mm(x, W0t))
    b.attempt(base, "dgrad", "dense", 1.0, flops, lambda: torch.mm(dy, W0t.t()))
    b.attempt(base, "wgrad", "dense", 1.0, flops, lambda: torch.mm(xT, dy))
    sgm = getattr(torch, "_scaled_grouped_mm", None)
    if sgm is not None:
        f8 = torch.float8_e4m3fn
        x8 = x.to(f8)
        W8 = W.to(f8)
        sa = torch.ones(M, device=dev, dtype=torch.float32)
        sb = torch.ones(G, n, device=dev, dtype=torch.float32)
        offs = offsets(counts_of(G, T, 1.0), dev)
        b.attempt(base, "fwd", "fp8_grouped", 1.0, flops,
                  lambda: sgm(x8, W8.transpose(-2, -1), sa, sb, offs=offs, out_dtype=bf))
        del x8, W8
    del x, dy, W, Wt, xT, dyT
    torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="two configurations (a smoke test)")
    ap.add_argument("--budget", type=float, default=420, help="stop starting shapes after S seconds")
    ap.add_argument("--only", choices=["all", "rand"], default="all",
                    help="rand: multinomial token counts and fp8 dense only (moe_rand.csv)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if not torch.cuda.is_available():
        sys.exit("moe_bench: no CUDA device")
    dev = "cuda"
    p = torch.cuda.get_device_properties(0)
    with open(os.path.join(a.out, "moe_env.txt"), "w") as e:
        e.write("torch %s cuda %s device %s sms %d mem %.1f GiB\n" %
                (torch.__version__, torch.version.cuda, p.name, p.multi_processor_count,
                 p.total_memory / 2 ** 30))
    torch.backends.cuda.matmul.allow_tf32 = False
    b = Bench(a.out, dev, "moe_rand.csv" if a.only == "rand" else "moe_bench.csv")
    layer_fn = rand_layer if a.only == "rand" else one_layer
    t0 = time.time()
    for model, h, f, Gs, Ts in SHAPES:
        for G in Gs:
            for T in Ts:
                if G * T > MAX_TOKENS:
                    continue
                if time.time() - t0 > a.budget:
                    print("moe_bench: budget spent, stopping", flush=True)
                    b.f.close()
                    return
                if a.quick and not (G == Gs[1] and T in (512,)):
                    continue
                layer_fn(b, model, h, f, "fc1", h, 2 * f, G, T)
                layer_fn(b, model, h, f, "fc2", f, h, G, T)
    b.f.close()


if __name__ == "__main__":
    main()
