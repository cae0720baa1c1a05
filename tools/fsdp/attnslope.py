#!/usr/bin/env python3
"""What a training set says about its attention kernel, without the model.

    tools/fsdp/attnslope.py [--stepcast build/stepcast] [--min-seq-per-s N] [CSV]

Default CSV: ../shared/validation/training/mosaic_fsdp_a100.csv.

Rows that differ only in sequence length (a family: model, gpu, gpus,
recompute, dtype, tp, pp, cp) do the same per-token work (GEMMs, norms, the
loss, FSDP's gathers and kernels, the optimizer per token) plus attention,
whose work per token grows with the sequence. A least-squares line through
the family's points

    step seconds / step tokens  =  base  +  attention FLOPs per token / (gpus x rate)

splits the measured step into a per-token base (seconds per token per GPU)
and the rate the attention kernels ran at (TFLOP/s per GPU), with nothing
from the model. The same fit through the predicted steps gives the model's
base and rate, so a family's error splits into a base part and an attention
part.

Attention FLOPs are counted as ../shared/calibration/attention_kernel_benchmarks.csv
counts them (flash-attention's benchmark_flash_attention.py): forward
4 s h d per token and layer, halved for the causal mask (every row here is
a causal LM), backward 2.5 x forward; with full recomputation the forward
runs twice (4.5 x forward in all, not 3.5). Beside each family the same
file's A100 forward+backward causal rates at its head dimension, mean of
8k and 16k tokens, for FlashAttention-1, -2, the Triton kernel and
xformers (A100 rows only: other GPUs print nothing there).

--min-seq-per-s N drops rows whose measured_from gives a rate under N
sequences per second (the published rate is a whole number: a row at
1 seq/s is known to +-50 %); families left with fewer than 3 sequence
lengths are not fitted.
"""
import argparse
import collections
import csv
import io
import subprocess

FAMILY = ["model", "gpu", "gpus", "recompute", "dtype", "tp", "pp", "cp"]
CAL = "../shared/calibration/attention_kernel_benchmarks.csv"
KERNELS = [("FA1", "FlashAttention (FA1)"), ("FA2", "FlashAttention-2"),
           ("Triton", "FlashAttention Triton"), ("xformers", "xformers")]


def predicted(exe, path):
    out = subprocess.run([exe, "validate", "--format", "csv", path],
                         capture_output=True, text=True, check=False).stdout
    return {r["id"]: float(r["predicted"]) for r in csv.DictReader(io.StringIO(out))
            if r["predicted"] and not r["skipped"]}


def kernel_rates():
    """{(kernel, head_dim): mean fwd+bwd causal TFLOP/s at 8k and 16k} on A100."""
    acc = collections.defaultdict(list)
    with open(CAL, newline="") as f:
        for r in csv.DictReader(f):
            if ("A100" not in r["gpu"] or r["pass"] != "fwd+bwd" or r["causal"] != "True"
                    or r["seqlen"] not in ("8192", "16384")):
                continue
            for short, name in KERNELS:
                if r["implementation"] == name:
                    acc[(short, int(r["head_dim"]))].append(float(r["tflops"]))
    return {k: sum(v) / len(v) for k, v in acc.items()}


def seq_per_s(row):
    key, _, val = row.get("measured_from", "").partition("=")
    return float(val) if key == "seq_per_s" else None


def attn_flops_per_token(row):
    s, layers = float(row["seq"]), float(row["layers"])
    heads = float(row["heads"])
    d = float(row["hidden"]) / heads
    passes = 4.5 if row["recompute"] == "full" else 3.5
    return 4.0 * s * heads * d * 0.5 * passes * layers


def fit(points):
    """Least squares y = a + b x; (a, b)."""
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    b = sum((p[0] - mx) * (p[1] - my) for p in points) / sxx
    return my - b * mx, b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("--min-seq-per-s", type=float, default=0.0)
    ap.add_argument("csv", nargs="?",
                    default="../shared/validation/training/mosaic_fsdp_a100.csv")
    a = ap.parse_args()
    pred = predicted(a.stepcast, a.csv)
    rates = kernel_rates()
    fams = collections.defaultdict(list)
    with open(a.csv, newline="") as f:
        for r in csv.DictReader(f):
            sps = seq_per_s(r)
            if r["id"] not in pred or (sps is not None and sps < a.min_seq_per_s):
                continue
            fams[tuple(r[k] for k in FAMILY)].append(r)
    print("family (model gpu gpus recompute)          hd  n  seq       "
          "measured: TFLOP/s base us | predicted: TFLOP/s base us | A100 "
          + " ".join(k for k, _ in KERNELS))
    for key, rows in sorted(fams.items()):
        if len({r["seq"] for r in rows}) < 3:
            continue
        gpus = float(rows[0]["gpus"])
        hd = int(rows[0]["hidden"]) // int(rows[0]["heads"])
        meas, model = [], []
        for r in rows:
            tokens = float(r["global_batch"]) * float(r["seq"])
            x = attn_flops_per_token(r)
            meas.append((x, float(r["measured_iter_s"]) / tokens))
            model.append((x, pred[r["id"]] / tokens))
        am, bm = fit(meas)
        ap_, bp = fit(model)
        seqs = sorted(int(r["seq"]) for r in rows)
        ref = " ".join("%4.0f" % rates[(k, hd)] if (k, hd) in rates else "   -"
                       for k, _ in KERNELS)
        print("%-42s %3d %2d  %5d-%-5d %8.0f %9.1f | %8.0f %9.1f | %s" % (
            " ".join(key[:4]), hd, len(rows), seqs[0], seqs[-1],
            1 / (bm * gpus) / 1e12 if bm > 0 else float("nan"), am * gpus * 1e6,
            1 / (bp * gpus) / 1e12 if bp > 0 else float("nan"), ap_ * gpus * 1e6, ref))


if __name__ == "__main__":
    main()
