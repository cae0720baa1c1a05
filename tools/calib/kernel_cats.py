#!/usr/bin/env python3
"""GPU kernel time per step of a PyTorch profiler trace, by kind of kernel.

    tools/calib/kernel_cats.py TRACE.pt.trace.json.gz ... [--top N]

For each trace (Kineto Chrome JSON, gzip or plain, as tools/calib/dp_trace.py
writes): the number of profiled steps (distinct ProfilerStep#k names), and
per step the summed duration of the GPU kernels, memcpys and memsets
("busy", ms) split by kind, with the kernel count of each kind in
parentheses. Kinds are read from kernel names (cuDNN/cuBLAS/CUTLASS/ATen
as PyTorch 2.x on Hopper names them):
  conv    cuDNN implicit-GEMM / Winograd convolutions (fprop, dgrad, wgrad)
  gemm    cuBLAS / CUTLASS / nvjet GEMMs (1x1 convolutions that cuDNN
          hands to cuBLAS land here too)
  attn    fused attention (flash, cuDNN SDPA, memory-efficient fmha)
  bn      batch norm (cuDNN's and ATen's kernels)
  layout  NCHW <-> NHWC transposes and padding around tensor-core convs
  optim   the optimizer's multi-tensor kernels
  pool, ln (layer norm), loss (softmax / cross-entropy), reduce, eltwise
  (element-wise, copies, fills), other
With --top N the N costliest kernels of each trace are listed too.
"""
import collections
import gzip
import json
import re
import sys

RULES = [
    ("bn", r"batchnorm|batch_norm|bn_fw|bn_bw"),
    ("layout", r"nchwtonhwc|nhwctonchw|nhwcaddpadding|foldednhwc|transpose"),
    ("optim", r"multi_tensor_apply|fused_adam|fusedadam"),
    ("attn", r"flash|fmha|sdpa|attention"),
    ("conv", r"fprop|dgrad|wgrad|implicit_gemm|winograd|convolve|conv2d|_conv_"),
    ("gemm", r"nvjet|gemm|cutlass|cublas|sgemm|hgemm"),
    ("pool", r"pool"),
    ("ln", r"layer_norm|layernorm|gammabeta"),
    ("loss", r"softmax|cross_entropy|nll_loss"),
    ("reduce", r"reduce"),
    ("eltwise", r"elementwise|copy|fill|memset|memcpy"),
]


def kind(name):
    low = name.lower()
    for k, pat in RULES:
        if re.search(pat, low):
            return k
    return "other"


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def summarize(path, top):
    ev = load(path)
    steps = {e["name"] for e in ev if e.get("name", "").startswith("ProfilerStep#")}
    n = max(1, len(steps))
    t, c, per = collections.Counter(), collections.Counter(), collections.Counter()
    for e in ev:
        # Kineto's categories: lower case since PyTorch 1.10-ish, "Kernel",
        # "Memcpy", "Memset" in the 2021 traces of ../shared/traces
        if str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy",
                                             "memset"):
            k = kind(e["name"])
            t[k] += e["dur"]
            c[k] += 1
            per[e["name"][:100]] += e["dur"]
    name = path.rsplit("/", 1)[-1].split(".")[0]
    print("%-28s %d steps, busy %.1f ms/step, %d kernels/step"
          % (name, n, sum(t.values()) / n / 1e3, sum(c.values()) // n))
    print("    " + "  ".join("%s %.1f (%d)" % (k, v / n / 1e3, c[k] // n) for k, v in t.most_common()))
    for k, v in per.most_common(top):
        print("      %8.3f ms  %s" % (v / n / 1e3, k))


def main():
    args, top = [], 0
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--top":
            top = int(next(it))
        else:
            args.append(a)
    if not args:
        sys.exit(__doc__)
    for p in args:
        summarize(p, top)


if __name__ == "__main__":
    main()
