#!/usr/bin/env python3
"""mnnvl_split.py -- NVL72 racks joined by InfiniBand (MNNVL): what the
measurements say, what stepcast predicts, and what NCCL's code allows.

    python3 tools/calib/mnnvl_split.py [--stepcast build/stepcast]
        [--csv ../shared/calibration/collective_benchmarks.csv]
        [--xla ../shared/calibration/xla_collective_perf_table.csv]

Inputs: collective_benchmarks.csv rows 1-17 (CoreWeave GB200 NVL72, NCCL
2.26.2, NCCL_MNNVL_ENABLE=1; 1, 2 and 20 racks of 72 GPUs, all_reduce 512
MiB-16 GiB) and, for one rack from another source, XLA's GB200 and GB300
all-reduce tables for one group of 72 GPUs from 512 MiB (xla_collective_perf_table.csv;
XLA's launch included). Prints, per rack count:

  1. the least-squares line time = a + bytes / B through the rows (a: the
     fixed part, us; B: algorithm bandwidth, GB/s; busbw = B x 2(n-1)/n);
  2. every row: measured, stepcast's prediction and pair (`stepcast
     collective`, the inputs coll_fabrics.py gives the system), error;
  3. two what-ifs, both from NCCL 2.30.7's code and the datasheet inputs
     (docs/network.md, "NVL72 racks across InfiniBand"):
     nvls_tree: NCCL's NVLS tree (NVLS inside each rack, a tree of racks
       over the NICs) bound by NVLS inside the rack, as NCCL's own graph of
       the rack (32 heads x 50 GB/s of NIC) leaves it: stepcast's one-rack
       NVLS time of the same buffer plus NCCL's NVLS_TREE latency (hwLat
       NVLINK 25 us + 2 log2(racks) x NET 20.9 us, tuning.cc);
     tree_fill: NCCL's tree (a chain through the rack's 72 GPUs, a binary
       tree of racks) at NCCL's tuner bandwidth (16 channels x 24 GB/s on
       Blackwell beyond 2 nodes, x 42.8 on 2) plus the pipeline fill of its
       512 KiB Simple chunks (enqueue.cc: stepSize x 1) through 2(71 +
       ceil(log2 racks)) hops, each at one kernel channel's share (32
       kernel channels) of NVLink (721.6 GB/s) or of the tree's bandwidth.
No constant is fitted here. Python 3 standard library only.

--check exits 1 unless the claims docs/network.md draws from these figures
hold: every 20-rack row within 12 % of tree_fill; the 2-rack rows' busbw
(least squares) above what any ring or tree of NCCL's graph reaches (16 x
45.1 = 721.6 GB/s); 2 racks' B 1.8-2.2 times 20 racks'. The ctest
calib_mnnvl runs it (needs ../shared).
"""
import argparse
import csv
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CAL = os.path.join(ROOT, "..", "shared", "calibration")

RACK = 72
SYSTEMS = [(1, range(1, 6)), (2, range(6, 12)), (20, range(12, 18))]
# NCCL 2.30.7 (../shared/reference/nccl/src/graph/tuning.cc): hwLat NVLINK
# and NET of NVLS_TREE Simple, us; perChMaxTreeBw Blackwell (2 nodes, more).
NVLS_TREE_INTRA_US, NVLS_TREE_NET_US = 25.0, 20.9
TREE_PER_CH = {2: 42.8, 3: 24.0}
TREE_HW_US = (4.0, 14.0)  # hwLat NVLINK / NET Tree Simple
TREE_BASE_US = 8.4
# The rack's ring / tree graph across racks (nccl_net.c, tests/test_mnnvl.c):
# 16 channels x 45.1 GB/s, 32 kernel channels; 721.6 GB/s of NVLink.
NCH, NCH_RUN, NVL = 16, 32, 16 * 45.1
CHUNK = 4 * 1024 * 1024 / 8  # Simple stepSize (init.cc 4 MiB / NCCL_STEPS)
LAUNCH_US = 20.0  # COLL_LAUNCH_S, as every stepcast collective


def fit(points):
    """Least-squares a (us) and B (GB/s) of t = a + bytes / B."""
    n = len(points)
    mx = sum(b for b, _ in points) / n
    my = sum(t for _, t in points) / n
    sxx = sum((b - mx) ** 2 for b, _ in points)
    slope = sum((b - mx) * (t - my) for b, t in points) / sxx  # us per byte
    return my - slope * mx, 1e-3 / slope


def predict(exe, ranks, sizes):
    cmd = [exe, "collective", "--op", "all_reduce", "--ranks", str(ranks), "--ppn", str(RACK),
           "--arch", "100", "--nvlink", "900", "--nic", "400", "--min", str(min(sizes)),
           "--max", str(max(sizes)), "--factor", "2", "--format", "csv"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {int(float(r["bytes"])): (float(r["nccl_us"]), r["algo"] + "/" + r["proto"])
            for r in csv.DictReader(out.splitlines())}


def tree_fill_us(racks, b):
    col = 2 if racks == 2 else 3
    bus = min(NVL * 0.92, NCH * TREE_PER_CH[col])  # tuning.cc tree busBw
    lg = int(math.log2(racks))  # log2i
    lat = TREE_BASE_US + 2 * ((RACK - 1) * TREE_HW_US[0] + lg * TREE_HW_US[1])
    hops_net = 2 * math.ceil(math.log2(racks))
    fill = 2 * (RACK - 1) * CHUNK / (NVL / NCH_RUN * 1e3) + hops_net * CHUNK / (bus / NCH_RUN * 1e3)
    return LAUNCH_US + lat + b / (bus * 0.5 * 1e3) + fill


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stepcast", default=os.path.join(ROOT, "build", "stepcast"))
    ap.add_argument("--csv", default=os.path.join(CAL, "collective_benchmarks.csv"))
    ap.add_argument("--xla", default=os.path.join(CAL, "xla_collective_perf_table.csv"))
    ap.add_argument("--check", action="store_true", help="exit 1 if a claim fails")
    a = ap.parse_args()
    bad, fits = [], {}
    for f in (a.csv, a.xla):
        if not os.path.exists(f):
            raise SystemExit("mnnvl_split.py: %s not found (needs ../shared/calibration)" % f)
    rows = {int(r["row_id"]): r for r in csv.DictReader(open(a.csv, newline=""))}
    table = list(csv.DictReader(open(a.xla, newline="")))
    for key, name in (("sm_100_GB200", "GB200"), ("sm_103", "GB300")):
        xla = [(int(r["tensor_size_bytes"]), float(r["implied_time_us"])) for r in table
               if r["xla_device_key"] == key and r["collective"] == "all-reduce"
               and r["devices_per_group"] == "72" and int(r["tensor_size_bytes"]) >= 1 << 29]
        ax, bx = fit(xla)
        print("XLA %s 1 x 72 all-reduce, %d rows >= 512 MiB: a %.0f us, B %.1f GB/s (busbw %.0f)"
              % (name, len(xla), ax, bx, bx * 2 * 71 / 72))
    one_rack = None
    for racks, ids in SYSTEMS:
        n = racks * RACK
        pts = [(int(rows[i]["msg_size_bytes"]), float(rows[i]["oop_time_us"])) for i in ids]
        am, bm = fit(pts)
        fits[racks] = bm
        print("\n%d rack(s), %d GPUs (rows %d-%d): a %.0f us, B %.1f GB/s (busbw %.0f)"
              % (racks, n, ids[0], ids[-1], am, bm, bm * 2 * (n - 1) / n))
        sizes = [b for b, _ in pts]
        pred = predict(a.stepcast, n, sizes)
        if racks == 1:
            one_rack = predict(a.stepcast, RACK, sizes + [2 * max(sizes)])
        print("  %12s %10s %10s %7s %-12s %10s %7s %10s %7s" % (
            "bytes", "meas_us", "model_us", "err", "model_pair", "nvls_tree", "err",
            "tree_fill", "err"))
        for b, t in pts:
            p, pair = pred[b]
            nt = one_rack[b][0] + NVLS_TREE_INTRA_US + 2 * int(math.log2(racks)) * NVLS_TREE_NET_US
            line = "  %12d %10.1f %10.1f %+6.1f%% %-12s" % (b, t, p, 100 * (p / t - 1), pair)
            if racks > 1:
                tf = tree_fill_us(racks, b)
                if racks == 20 and abs(tf / t - 1) > 0.12:
                    bad.append("20 racks, %d B: tree_fill %+.1f %%" % (b, 100 * (tf / t - 1)))
                line += " %10.1f %+6.1f%% %10.1f %+6.1f%%" % (nt, 100 * (nt / t - 1), tf,
                                                             100 * (tf / t - 1))
            print(line)
    if fits[2] * 2 * 143 / 144 <= NVL:
        bad.append("2 racks: busbw %.0f not above the ring's %.1f" % (fits[2] * 2 * 143 / 144, NVL))
    if not 1.8 <= fits[2] / fits[20] <= 2.2:
        bad.append("B(2 racks) / B(20 racks) = %.2f" % (fits[2] / fits[20]))
    for m in bad:
        print("FAIL " + m)
    if a.check and bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
