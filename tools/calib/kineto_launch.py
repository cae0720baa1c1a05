#!/usr/bin/env python3
"""Host time per kernel launch of PyTorch eager training, from Kineto traces.

For each trace: take the CPU-side kernel launches (cudaLaunchKernel,
cudaLaunchKernelExC, hipLaunchKernel, ...) of the thread that issues most of
them, and report the median interval between consecutive launches inside
ProfilerStep windows. In eager mode the host never waits for a launch to
finish, so that interval is the host time the framework spends per kernel
(Python, dispatcher, autograd, launch) when it is not blocked by a sync;
the median ignores the rare long syncs.

Usage: tools/calib/kineto_launch.py TRACE.json[.gz]...
Used for sc_gpu.launch_s (src/hw/gpu_presets.c); results in docs/calibration.md.
"""
import gzip, json, statistics, sys

LAUNCH = ("cudaLaunchKernel", "cudaLaunchKernelExC", "hipLaunchKernel",
          "hipExtLaunchKernel", "cuLaunchKernel", "hipModuleLaunchKernel")

def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)

def main():
    for path in sys.argv[1:]:
        tr = load(path)
        ev = tr["traceEvents"] if isinstance(tr, dict) else tr
        steps = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in ev
                 if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep")]
        launches = {}
        for e in ev:
            if e.get("ph") == "X" and e.get("name") in LAUNCH:
                launches.setdefault(e.get("tid"), []).append(e["ts"])
        if not launches:
            print(f"{path}: no launches"); continue
        tid = max(launches, key=lambda t: len(launches[t]))
        ts = sorted(launches[tid])
        if steps:
            ts = [t for t in ts if any(a <= t <= b for a, b in steps)]
        gaps = [b - a for a, b in zip(ts, ts[1:]) if b > a]
        if not gaps:
            print(f"{path}: too few launches"); continue
        gaps.sort()
        med = statistics.median(gaps)
        p25 = gaps[len(gaps) // 4]; p75 = gaps[3 * len(gaps) // 4]
        dev = ""
        if isinstance(tr, dict):
            props = tr.get("deviceProperties") or []
            if props: dev = props[0].get("name", "")
        print(f"{path}: {dev} launches={len(ts)} median_gap_us={med:.1f} p25={p25:.1f} p75={p75:.1f} steps={len(steps)}")

if __name__ == "__main__":
    main()
