#!/usr/bin/env python3
"""Per-convolution kernel times of a PyTorch ResNet training trace (Kineto,
2021 category names), the input of tools/calib/conv_check.c.

    tools/calib/kineto_conv.py [TRACE] > tools/calib/kineto_resnet50_v100_convs.txt

For every aten::cudnn_convolution of a profiler step it sums the GPU
kernels launched under it (the kernels' "external id"), and likewise for
the aten::cudnn_convolution_backward_input / _weight ops, matched to the
forward convolution of the same shapes in reverse order. The output shape
is the input of the batch norm that follows each convolution. Times are
the median over the trace's steps after the first. Default TRACE:
../shared/traces/kineto_tb_plugin_resnet50/worker0.1623143566756.pt.trace.json.gz
(torchvision ResNet-50, batch 32, fp32, Tesla V100-DGXS-32GB).
"""
import collections
import gzip
import json
import statistics
import sys

DEFAULT = "../shared/traces/kineto_tb_plugin_resnet50/worker0.1623143566756.pt.trace.json.gz"


def step_convs(ev, step, ktime):
    t0, t1 = step["ts"], step["ts"] + step["dur"]
    ops = sorted((e for e in ev if e.get("cat") == "Operator" and t0 <= e["ts"] < t1),
                 key=lambda e: e["ts"])
    seq = [o for o in ops if o["name"] in ("aten::cudnn_convolution", "aten::cudnn_batch_norm")]
    fwd = []
    for i, o in enumerate(seq):
        if o["name"] != "aten::cudnn_convolution":
            continue
        x, w = o["args"]["Input Dims"][:2]
        y = seq[i + 1]["args"]["Input Dims"][0]
        fwd.append([x, w, y, ktime[o["args"]["External id"]], 0.0, 0.0])
    for name, col, key in (("aten::cudnn_convolution_backward_input", 4, 2),
                           ("aten::cudnn_convolution_backward_weight", 5, 2)):
        bwd = [o for o in ops if o["name"] == name][::-1]
        j = 0
        for f in fwd:
            want = f[1] if col == 4 else f[0]  # weight dims (dgrad) or input dims (wgrad)
            if col == 4 and f is fwd[0]:
                continue  # the stem has no data gradient
            o = bwd[j]
            assert o["args"]["Input Dims"][key] == want, (name, o["args"]["Input Dims"], want)
            f[col] = ktime[o["args"]["External id"]]
            j += 1
    return fwd


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    ev = json.load(gzip.open(path))["traceEvents"]
    ktime = collections.defaultdict(float)
    for e in ev:
        if e.get("cat") == "Kernel":
            ktime[e["args"].get("external id")] += e["dur"]
    steps = sorted((e for e in ev if e.get("name", "").startswith("ProfilerStep")),
                   key=lambda e: e["ts"])[1:]
    runs = [step_convs(ev, s, ktime) for s in steps]
    print(f"# {path}: per-convolution GPU kernel time, us, median over {len(runs)} steps")
    print("# n c h w k r s p q stride fwd_us dgrad_us wgrad_us")
    for i, f in enumerate(runs[0]):
        (n, c, h, w), (k, _, r, s), (_, _, p, q) = f[0], f[1], f[2]
        med = [statistics.median(run[i][col] for run in runs) for col in (3, 4, 5)]
        print(n, c, h, w, k, r, s, p, q, round(h / p), *(f"{t:.1f}" for t in med))


if __name__ == "__main__":
    main()
