#!/usr/bin/env python3
"""The unfused attention of the cost model against the "PyTorch standard
attention" rows of ../shared/calibration/attention_kernel_benchmarks.csv
(FlashAttention-2 README figures: A100 80GB SXM4 and H100 80GB SXM5,
fwd+bwd, fp16/bf16, hidden 2048, batch = 16k / seqlen).

    tools/calib/attn_unfused_check.py [--stepcast build/stepcast] [--csv FILE]

What the benchmark runs (flash-attention benchmarks/benchmark_flash_attention.py,
`attention_pytorch`, recalled; not in ../shared/reference): q and k
rearranged out of the packed qkv (copies), `torch.baddbmm` with the
softmax scale as alpha, for a causal row `scores + causal_mask` (one more
read and write of the scores), `torch.softmax`, `F.dropout` at p = 0 (its
input returned), `torch.einsum` with v (v copied to a batched layout) --
and the backward of all of it. Each row becomes a JSON workload graph of
one layer: a qkv linear (to give the attention its packed input) and the
attention (`no_dropout`, the row's `causal`), predicted on one GPU with
`plan.flash_attention` false and `--ops`; the attention's tasks
(qkv_layout, attn_qk, softmax, attn_av, ctx_layout), forward plus
backward, are the model's time. A graph model runs the one-kernel softmax
(src/lower/lower.c softmax_task), as torch.softmax does. The model has no
causal-mask add: a causal row's prediction adds two passes of the 16-bit
scores (read, write) at the GPU's achievable HBM bandwidth, taken from the
model's own softmax forward over its measured factor (SMX_FWD of
src/cost/softmax.c) -- printed as its own column.

--fit fits the factors of the framework's softmax (src/cost/softmax.c)
over the model's current ones: 1.000 when calibrated (see fit()).

The measured time is the row's FLOPs (fwd = 4 b s^2 h d, halved when
causal; fwd+bwd = 3.5 fwd: the file's flop_convention) over its TFLOP/s.
Prints per row: measured ms, model ms, model / measured; then per GPU and
causality the mean ratio. Exit 2 when the CSV has no such row.
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

GPUS = {"A100 80GB SXM4": "a100-sxm4-80gb", "H100 80GB SXM5": "h100-sxm5-80gb"}
ATTN_TASKS = ("qkv_layout", "attn_qk", "softmax", "attn_av", "ctx_layout")


def graph(seq, heads, head_dim, causal):
    hidden = heads * head_dim
    return {
        "name": "attn_unfused_check",
        "blocks": [{
            "name": "layer", "role": "layer", "repeat": 1,
            "input": {"name": "x", "shape": [seq, hidden]},
            "ops": [
                {"name": "qkv", "op": "linear", "in": ["x"], "out": "qkv",
                 "out_features": 3 * hidden, "bias": False, "parallel": "column"},
                {"name": "attn", "op": "attention", "in": ["qkv"], "out": "ctx",
                 "heads": heads, "kv_heads": heads, "head_dim": head_dim,
                 "causal": causal, "parallel": "heads", "no_dropout": True},
            ],
            "output": "ctx",
        }],
    }


def model_ms(stepcast, gpu, seq, batch, heads, head_dim, causal, tmp):
    """Forward + backward ms of the attention's tasks, and the softmax's
    forward ms (two passes of the scores)."""
    r = task_ms(stepcast, gpu, seq, batch, heads, head_dim, tmp, causal)
    if set(r) != set(ATTN_TASKS):
        sys.exit("stepcast --ops lacks %s for %s seq %d" % (set(ATTN_TASKS) - set(r), gpu, seq))
    total = 0.0
    for fwd, bwd in r.values():
        total += fwd + bwd
    return total, r["softmax"][0]


def smx_factor(path):
    """SMX_FWD of src/cost/softmax.c: the model's softmax forward over its
    two passes of the scores."""
    with open(path) as f:
        m = re.search(r"#define SMX_FWD ([\d.]+)", f.read())
    if not m:
        sys.exit("attn_unfused_check: no SMX_FWD in %s" % path)
    return float(m.group(1))


def task_ms(stepcast, gpu, seq, batch, heads, head_dim, tmp, causal=False):
    """{task: (fwd ms, bwd ms)} of the attention's tasks."""
    path = os.path.join(tmp, "attn.json")
    with open(path, "w") as f:
        json.dump(graph(seq, heads, head_dim, causal), f)
    cmd = [stepcast, "predict", "--set", "model.graph=" + path, "-g", gpu, "-n", "1",
           "--tp", "1", "--pp", "1", "--gb", str(batch), "--mb", str(batch),
           "--dtype", "fp16", "--set", "plan.flash_attention=false", "--ops"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("stepcast failed: %s\n%s" % (" ".join(cmd), out.stderr))
    r = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s+(\w+)\s+(gemm|mem|attn)\s+([\d.]+)\s+([\d.]+)", line)
        if m and m.group(1) in ATTN_TASKS:
            r[m.group(1)] = (float(m.group(3)), float(m.group(4)))
    return r


def solve(a, y):
    """Least squares by the normal equations (Gauss-Jordan)."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * v for r, v in zip(a, y))]
         for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(m[k][i]))
        m[i], m[p] = m[p], m[i]
        for k in range(n):
            if k != i:
                f = m[k][i] / m[i][i]
                m[k] = [x - f * z for x, z in zip(m[k], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


FIT_TASKS = {"softmax": ("softmax",), "gemm": ("attn_qk", "attn_av"), "all": ATTN_TASKS}


def fit(stepcast, path, on="softmax"):
    """Fit the softmax factors: the non-causal rows at seq >= 2048 (the FA3
    paper's H100 forward and backward apart, the FA2 README's forward +
    backward), least squares on (measured - model) / measured against the
    model's softmax (--fit-on: the GEMMs, every task) forward and backward
    ms and a constant forward and
    backward ms per row (every row has 16k tokens of hidden 2048: the
    constant is what the rows hold that is not per score). Prints the
    factors over the model's current ones (1 = calibrated)."""
    a, y = [], []
    with tempfile.TemporaryDirectory() as tmp, open(path, newline="") as f:
        for r in csv.DictReader(f):
            if "tandard attention" not in r["implementation"] or r["causal"] != "False":
                continue
            if r["gpu"] not in GPUS or int(r["seqlen"]) < 2048:
                continue
            try:
                tflops = float(r["tflops"])
            except ValueError:
                continue
            d, s, b, h = int(r["head_dim"]), int(r["seqlen"]), int(r["batch"]), int(r["nheads"])
            p = r["pass"]
            mult = {"fwd": 1.0, "bwd": 2.5, "fwd+bwd": 3.5}[p]
            meas = mult * 4 * b * s * s * h * d / (tflops * 1e12) * 1e3
            t = task_ms(stepcast, GPUS[r["gpu"]], s, b, h, d, tmp)
            dirs = {"fwd": (0,), "bwd": (1,), "fwd+bwd": (0, 1)}[p]
            model = sum(v[i] for v in t.values() for i in dirs)
            sm = [sum(t[k][i] for k in FIT_TASKS[on]) if i in dirs else 0.0 for i in (0, 1)]
            one = [1.0 if i in dirs else 0.0 for i in (0, 1)]
            a.append([v / meas for v in sm + one])
            y.append((meas - model) / meas)
    if not a:
        print("attn_unfused_check: no rows to fit in %s" % path, file=sys.stderr)
        return 2
    c = solve(a, y)
    res = [v - sum(x * z for x, z in zip(row, c)) for row, v in zip(a, y)]
    print("%d rows: %s forward x %.3f, backward x %.3f of the model's; per row "
          "%.3f ms forward, %.3f ms backward; rms relative error %.3f (before %.3f)"
          % (len(a), on, 1 + c[0], 1 + c[1], c[2], c[3],
             math.sqrt(sum(v * v for v in res) / len(res)), math.sqrt(sum(v * v for v in y) / len(y))))
    return 0


def rows(path):
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["implementation"] != "PyTorch standard attention" or r["pass"] != "fwd+bwd":
                continue
            if r["gpu"] not in GPUS:
                continue
            try:
                tflops = float(r["tflops"])
            except ValueError:
                continue  # OOM
            yield r, tflops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("--csv", default="../shared/calibration/attention_kernel_benchmarks.csv")
    ap.add_argument("--softmax-c", default="src/cost/softmax.c",
                    help="where SMX_FWD is defined (the mask add is two unscaled passes)")
    ap.add_argument("--fit", action="store_true",
                    help="fit the softmax forward and backward factors over the model's")
    ap.add_argument("--fit-on", choices=sorted(FIT_TASKS), default="softmax",
                    help="the tasks whose time the --fit factors multiply (to compare)")
    a = ap.parse_args()
    if not os.path.exists(a.csv):
        sys.exit("attn_unfused_check: %s not found (needs ../shared)" % a.csv)
    smx_fwd = smx_factor(a.softmax_c)
    if a.fit:
        return fit(a.stepcast, a.csv, a.fit_on)
    groups = {}
    n = 0
    print("| row | GPU | causal | head dim | seq | batch | measured ms | model ms | mask add ms | model / measured |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for r, tflops in rows(a.csv):
            causal = r["causal"] == "True"
            d, s, b, h = int(r["head_dim"]), int(r["seqlen"]), int(r["batch"]), int(r["nheads"])
            flops = 3.5 * 4 * b * s * s * h * d / (2 if causal else 1)
            meas = flops / (tflops * 1e12) * 1e3
            tot, sm_fwd = model_ms(a.stepcast, GPUS[r["gpu"]], s, b, h, d, causal, tmp)
            mask = sm_fwd / smx_fwd if causal else 0.0
            ratio = (tot + mask) / meas
            groups.setdefault((r["gpu"], causal), []).append(ratio)
            n += 1
            print("| %s | %s | %s | %d | %d | %d | %.2f | %.2f | %.2f | %.3f |"
                  % (r["row_id"], r["gpu"], "yes" if causal else "no", d, s, b, meas, tot, mask, ratio))
    if n == 0:
        print("attn_unfused_check: no PyTorch standard attention rows in %s" % a.csv, file=sys.stderr)
        return 2
    print()
    for (g, c), v in sorted(groups.items()):
        gm = math.exp(sum(math.log(x) for x in v) / len(v))
        print("%s %s: %d rows, model / measured geometric mean %.3f (%.3f-%.3f)"
              % (g, "causal" if c else "non-causal", len(v), gm, min(v), max(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
