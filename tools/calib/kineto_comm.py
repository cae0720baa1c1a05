#!/usr/bin/env python3
"""Host time of one torch.distributed collective call, from Kineto traces.

Reports, per trace, the CPU duration of the c10d collective ops
(c10d::allreduce_, c10d::_reduce_scatter_base_, c10d::alltoall_base_, ...)
and of the nccl:* record functions inside them: what an eager framework's
host spends to issue one collective. Used for COLL_HOST_S in
src/cost/compute.c; results in docs/calibration.md.

Also, per c10d op with a kernel launch inside, the host time before the
launch (the GPU cannot start the collective earlier) and after it (host
work that runs while the collective's kernel can already run): the
"pre/post launch" line.

Usage: tools/calib/kineto_comm.py TRACE.json[.gz]...
"""
import collections, gzip, json, statistics, sys

def load(p):
    return json.load((gzip.open if p.endswith(".gz") else open)(p, "rt"))

HOST_CATS = ("cpu_op", "user_annotation", "cuda_runtime", "cuda_driver")


def launch_split(ev):
    """Medians (us) of the host time before and after the first
    cudaLaunchKernel inside each c10d op, and the count of such ops."""
    by_tid = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in HOST_CATS:
            by_tid[e["tid"]].append(e)
    pre, post = [], []
    for rows in by_tid.values():
        for a in rows:
            if not a.get("name", "").startswith("c10d::"):
                continue
            s, t = a["ts"], a["ts"] + a["dur"]
            la = sorted((e for e in rows if e.get("name") == "cudaLaunchKernel"
                         and s <= e["ts"] and e["ts"] + e["dur"] <= t), key=lambda e: e["ts"])
            if la:
                pre.append(la[0]["ts"] - s)
                post.append(t - la[0]["ts"] - la[0]["dur"])
    if not pre:
        return None
    return statistics.median(pre), statistics.median(post), len(pre)


def main():
    for path in sys.argv[1:]:
        tr = load(path)
        ev = tr["traceEvents"] if isinstance(tr, dict) else tr
        durs = collections.defaultdict(list)
        for e in ev:
            if e.get("ph") != "X" or e.get("cat") != "cpu_op":
                continue
            name = e.get("name", "")
            if name.startswith("c10d::") or name.startswith("nccl:"):
                durs[name].append(e.get("dur", 0))
        dev = ""
        if isinstance(tr, dict) and tr.get("deviceProperties"):
            dev = tr["deviceProperties"][0].get("name", "")
        print(f"{path}: {dev}")
        for name, v in sorted(durs.items(), key=lambda kv: -len(kv[1])):
            v.sort()
            print(f"   {name:32s} n={len(v):5d} p25={v[len(v)//4]:6.0f} "
                  f"median={statistics.median(v):6.0f} p75={v[3*len(v)//4]:6.0f} us")
        sp = launch_split(ev)
        if sp:
            print(f"   pre/post launch (median)         n={sp[2]:5d} before the launch "
                  f"{sp[0]:.1f} us, after it {sp[1]:.1f} us")

if __name__ == "__main__":
    main()
