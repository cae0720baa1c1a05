#!/usr/bin/env python3
"""Host time of one torch.distributed collective call, from Kineto traces.

Reports, per trace, the CPU duration of the c10d collective ops
(c10d::allreduce_, c10d::_reduce_scatter_base_, c10d::alltoall_base_, ...)
and of the nccl:* record functions inside them: what an eager framework's
host spends to issue one collective. Used for COLL_HOST_S in
src/cost/compute.c; results in docs/calibration.md.

Usage: tools/calib/kineto_comm.py TRACE.json[.gz]...
"""
import collections, gzip, json, statistics, sys

def load(p):
    return json.load((gzip.open if p.endswith(".gz") else open)(p, "rt"))

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

if __name__ == "__main__":
    main()
