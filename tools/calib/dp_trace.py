#!/usr/bin/env python3
"""Profiler traces of the one-GPU CNN and BERT training steps of
tools/calib/dp_step.py (same models, precisions, layouts and optimizer).

    python3 tools/calib/dp_trace.py --out DIR [--only NAME,...] [--budget-s 120]

For each config: a fresh model, dp_step.WARMUP untimed steps (cuDNN
autotuning), then torch.profiler over 1 + ACTIVE steps (one warm-up step of
the profiler, ACTIVE recorded, record_shapes on, CPU and CUDA activities):
DIR/NAME.pt.trace.json.gz, a Chrome/Kineto trace whose ProfilerStep#
events delimit the steps (tools/calib/kineto_conv_h.py reads them). At the
end the traces are packed into DIR/dp_traces_N.tar, ~12 MB or less each.
"""
import argparse
import gzip
import os
import shutil
import sys
import tarfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dp_step  # noqa: E402

ACTIVE = 3

# The configs of dp_step.CONFIGS traced, in this order (traced in the
# order given; a run cut short keeps the first).
TRACED = ["resnet50_amp16_cl_b256", "resnet50_ampbf16_cl_b256", "resnet50_amp16_nchw_b256",
          "resnet50_tf32_cl_b128", "resnet50_tf32_nchw_b128", "resnet50_fp32_nchw_b128",
          "resnet50_amp16_cl_b64", "vgg16_amp16_cl_b128", "inception3_amp16_cl_b128",
          "alexnet_amp16_cl_b512", "bertbase_fp32_s128_b64", "bertbase_amp16_s128_b128"]
TRACES = [next(c for c in dp_step.CONFIGS if c[0] == n) for n in TRACED]

CPU_TRACES = [c for c in dp_step.CPU_CONFIGS if c[0] == "cpu_bert_tiny"]


def trace_config(cfg, dev, out):
    from torch.profiler import ProfilerActivity, profile, schedule
    net, _, step, t = dp_step.setup(cfg, dev)
    for _ in range(dp_step.WARMUP):
        step()
    t.sync()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
    path = os.path.join(out, cfg[0] + ".pt.trace.json")
    with profile(activities=acts, record_shapes=True,
                 schedule=schedule(wait=0, warmup=1, active=ACTIVE, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(1 + ACTIVE):
            step()
            t.sync()
            prof.step()
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=6) as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    return path + ".gz"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--budget-s", type=float, default=120.0)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    cfgs = TRACES if a.device == "cuda" else CPU_TRACES
    if a.only:
        keep = set(a.only.split(","))
        cfgs = [c for c in cfgs if c[0] in keep]
    t0, done = time.perf_counter(), []
    for cfg in cfgs:
        if time.perf_counter() - t0 > a.budget_s:
            print("budget spent: skipping %s" % cfg[0], flush=True)
            continue
        c0 = time.perf_counter()
        try:
            done.append(trace_config(cfg, a.device, a.out))
            print("%-28s %8.0f kB  (%.1f s)" % (cfg[0], os.path.getsize(done[-1]) / 1e3,
                                               time.perf_counter() - c0), flush=True)
        except Exception as e:
            print("%-28s failed: %s" % (cfg[0], str(e).splitlines()[0][:160] if str(e) else
                                          type(e).__name__), flush=True)
        if a.device == "cuda":
            torch.cuda.empty_cache()
    part, size, tar = 0, 0, None
    for p in done:  # tars of at most ~12 MB each (what may be copied back is 16 MiB a file)
        if tar is None or size + os.path.getsize(p) > 12e6:
            if tar is not None:
                tar.close()
            part, size = part + 1, 0
            tar = tarfile.open(os.path.join(a.out, "dp_traces_%d.tar" % part), "w")
        size += os.path.getsize(p)
        tar.add(p, arcname=os.path.basename(p))
        os.remove(p)
    if tar is not None:
        tar.close()
    print("total %.1f s" % (time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    sys.exit(main())
