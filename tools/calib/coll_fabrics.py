#!/usr/bin/env python3
"""coll_fabrics.py -- calibration residual of NCCL's collective model on the
multi-node fabrics of ../shared/calibration/collective_benchmarks.csv.

For each system below it runs `stepcast collective` once over the system's
size range (--format csv) and compares the predicted time of each size with
the row's measured time (oop_time_us; where a row gives only bus bandwidth,
time = bytes x busbw factor / busbw). Prints one line per row and a summary
per system and size band: median and mean |error| and the median signed
error (predicted / measured - 1; negative = the model is too fast).

    python3 tools/calib/coll_fabrics.py [--stepcast build/stepcast]
        [--csv ../shared/calibration/collective_benchmarks.csv]
        [--no-fabric] [--rows] [--check BOUNDS]

--no-fabric leaves out --fabric (every system as InfiniBand: the model
before cluster.fabric). --check "sys=bound,..." exits 1 when a system's
median |error| over all its rows exceeds its bound (a fraction); used by the
ctest tests calib_fabrics and calib_fabrics_without (CMakeLists.txt).
Python 3 standard library only.

The systems' inputs (what each row leaves blank is taken from the vendor's
datasheet of that machine, the same for every row of the system):
  gcp-a3-mega  rows 28-58: 2 x 8 H100 (arch 90, NVLink 450 GB/s), 8 x 200
               Gb/s GPUDirect-TCPXO NICs per node (GCP a3-megagpu-8g).
  aws-p6-b200  rows 124-162 (even: the 4-node rows): 4 x 8 B200 (arch 100,
               NVLink 900), EFA v4 400 Gb/s per GPU (row's interconnect).
  aws-p5en     rows 189-190: 4 x 8 H200 (arch 90, NVLink 450), EFA v3
               16 x 200 Gb/s per node = 400 Gb/s per GPU (row's text).
  a100-hdr-32n rows 63-68: 32 x 8 A100 (arch 80, NVLink 300), 4 x HDR 200
               Gb/s per node = 100 Gb/s per GPU (row's text).
  h20-ndr-2n   rows 69-76: 2 x 8 H20 (arch 90, NVLink 450), 16 x NDR 400
               Gb/s for 16 GPUs (row's text). The rows force NVLSTree.
  a100-ib-2n   row 82: 2 x 8 A100, 4 x 200 Gb/s IB per node (100 per GPU),
               peak busbw of a -e 4G sweep (size not stated: 4 GiB taken).
  dgx-spark    rows 77-80: 2 x 1 GB10 (arch 100 table), one 200 Gb/s RoCE
               link.
  cw-h100-sharp rows 18-22: 8 x 8 H100, 400 Gb/s IB per GPU, SHARP
               (CollNet, which the model does not have).
  cw-a100-sharp rows 23-27: 16 x 8 A100, 200 Gb/s HDR per GPU, SHARP.
  cw-gb200-nvl72 rows 1-17: NVL72 racks (72 GPUs per NVLink domain), 1, 2
               and 20 racks, 400 Gb/s IB per GPU.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name, rows, ranks, ppn, arch, nvlink GB/s, nic Gb/s, fabric
SYSTEMS = [
    ("gcp-a3-mega", range(28, 59), 16, 8, 90, 450, 200, "tcpxo"),
    ("aws-p6-b200", range(124, 163, 2), 32, 8, 100, 900, 400, "efa"),
    ("aws-p5en", range(189, 191), 32, 8, 90, 450, 400, "efa"),
    ("a100-hdr-32n", range(63, 69), 256, 8, 80, 300, 100, "infiniband"),
    ("h20-ndr-2n", range(69, 77), 16, 8, 90, 450, 400, "infiniband"),
    ("a100-ib-2n", range(82, 83), 16, 8, 80, 300, 100, "infiniband"),
    ("dgx-spark", range(77, 81), 2, 1, 100, 1, 200, "roce"),
    ("cw-h100-sharp", range(18, 23), 64, 8, 90, 450, 400, "infiniband"),
    ("cw-a100-sharp", range(23, 28), 128, 8, 80, 300, 200, "infiniband"),
    ("cw-gb200-nvl72-1", range(1, 6), 72, 72, 100, 900, 400, "infiniband"),
    ("cw-gb200-nvl72-2", range(6, 12), 144, 72, 100, 900, 400, "infiniband"),
    ("cw-gb200-nvl72-20", range(12, 18), 1440, 72, 100, 900, 400, "infiniband"),
]
SIZE_NOT_STATED = {82: 4294967296}

BANDS = [("<64K", 0, 65536), ("64K-16M", 65536, 16777216), (">=16M", 16777216, 1 << 62)]


def band(b):
    return next(n for n, lo, hi in BANDS if lo <= b < hi)


def measured(row, ranks):
    """(bytes, seconds) of a calibration row, or None."""
    rid = int(row["row_id"])
    try:
        b = int(row["msg_size_bytes"])
    except ValueError:
        b = SIZE_NOT_STATED.get(rid)
    if not b:
        return None
    if row["oop_time_us"]:
        return b, float(row["oop_time_us"]) * 1e-6
    busbw = float(row["oop_busbw_GBps"] or 0)
    if busbw <= 0:
        return None
    return b, b * 2 * (ranks - 1) / ranks / (busbw * 1e9)


def predict(exe, sysdef, sizes, use_fabric):
    name, rows, ranks, ppn, arch, nvl, nic, fabric = sysdef
    lo, hi = min(sizes), max(sizes)
    cmd = [exe, "collective", "--op", "all_reduce", "--ranks", str(ranks), "--ppn", str(ppn),
           "--arch", str(arch), "--nvlink", str(nvl), "--nic", str(nic),
           "--min", str(lo), "--max", str(hi), "--factor", "2", "--format", "csv"]
    if use_fabric:
        cmd += ["--fabric", fabric]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    pred = {}
    for r in csv.DictReader(out.splitlines()):
        pred[int(float(r["bytes"]))] = (float(r["nccl_us"]) * 1e-6, r["algo"], r["proto"])
    return pred


def summary(errs):
    a = [abs(e) for e in errs]
    return statistics.median(a), statistics.mean(a), statistics.median(errs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stepcast", default=os.path.join(ROOT, "build", "stepcast"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "..", "shared", "calibration",
                                                  "collective_benchmarks.csv"))
    ap.add_argument("--no-fabric", action="store_true")
    ap.add_argument("--rows", action="store_true", help="print every row")
    ap.add_argument("--check", default="")
    a = ap.parse_args()
    if not os.path.exists(a.csv):
        sys.exit("coll_fabrics.py: %s not found (needs ../shared/calibration)" % a.csv)
    rows = {int(r["row_id"]): r for r in csv.DictReader(open(a.csv, newline=""))}
    allerr = {}
    print("%-18s %-7s %5s %10s %10s  %s" % ("system", "band", "rows", "med|err|", "mean|err|",
                                             "median signed"))
    for s in SYSTEMS:
        meas = [(rid,) + measured(rows[rid], s[2]) for rid in s[1] if measured(rows[rid], s[2])]
        pred = predict(a.stepcast, s, [m[1] for m in meas], not a.no_fabric)
        errs = {}
        for rid, b, t in meas:
            p, algo, proto = pred[b]
            e = p / t - 1
            errs.setdefault(band(b), []).append(e)
            allerr.setdefault(s[0], []).append(e)
            if a.rows:
                print("  row %3d %12d B meas %10.1f us pred %10.1f us %+7.1f %% %s/%s" %
                      (rid, b, t * 1e6, p * 1e6, 100 * e, algo, proto))
        for bn, _, _ in BANDS:
            if bn in errs:
                m, mean, sg = summary(errs[bn])
                print("%-18s %-7s %5d %9.1f%% %9.1f%% %+9.1f%%" % (s[0], bn, len(errs[bn]),
                                                                  100 * m, 100 * mean, 100 * sg))
    print()
    for name, e in allerr.items():
        m, mean, sg = summary(e)
        print("%-18s all     %5d %9.1f%% %9.1f%% %+9.1f%%" % (name, len(e), 100 * m, 100 * mean,
                                                             100 * sg))
    bad = []
    for item in filter(None, a.check.split(",")):
        name, bound = item.split("=")
        m = summary(allerr[name])[0]
        if m > float(bound):
            bad.append("%s: median |error| %.1f %% > bound %.1f %%" % (name, 100 * m,
                                                                      100 * float(bound)))
    for b in bad:
        print("FAIL " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
