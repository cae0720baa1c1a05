#!/usr/bin/env python3
"""Split a collectives set's error by GPU count, size band and NCCL's pair.

usage: coll_split.py STEPCAST FILE.csv

For every row of an nccl-tests collectives set (../shared/validation/
collectives/*.csv) it takes stepcast's prediction (`validate --format csv`)
and the algorithm / protocol the model picks for that row's group
(`stepcast collective`, the same inputs: ranks, GPUs per node, the GPU's
compute capability, NVLink, NIC, and `nGpus N` from the notes as GPUs per
host thread), then prints one line per (GPU, GPUs, band, pair): rows, MAPE,
signed mean error and the bucket's share of the set's summed |error|;
then each band's rows and MAPE (which `validate --summary` also prints).
Bands: below 1 MiB and from 1 MiB, as `validate --summary` splits them.
Used for the Echo analysis in docs/network.md ("Echo by NCCL's pair").
"""
import collections
import csv
import io
import re
import subprocess
import sys

MIB = 1 << 20
# compute capability by the GPU preset's family (hw/gpu_presets.c names)
ARCH = (("gb200", 100), ("b200", 100), ("h200", 90), ("h100", 90),
        ("a100", 80), ("v100", 70))


def arch_of(gpu):
    for prefix, cc in ARCH:
        if gpu.startswith(prefix):
            return cc
    raise SystemExit(f"coll_split.py: GPU '{gpu}': no compute capability known "
                     f"(known: {', '.join(p for p, _ in ARCH)})")


def host_gpus(notes):
    m = re.search(r"nGpus (\d+)", notes)
    return int(m.group(1)) if m else 1


def group_key(r):
    ranks = int(r["ranks"])
    ppn = min(int(r["gpus_per_node"] or ranks), ranks)
    return (ranks, ppn, arch_of(r["gpu"]),
            r["nvlink_GBps"], r["nic_Gbps"], host_gpus(r["notes"]))


def pairs_of(stepcast, key, sizes):
    """size -> 'algo/proto' for one group, from `stepcast collective`."""
    ranks, ppn, cc, nvl, nic, hg = key
    args = [stepcast, "collective", "--ranks", str(ranks), "--ppn", str(ppn),
            "--arch", str(cc), "--min", str(min(sizes)), "--max", str(max(sizes)),
            "--format", "csv"]
    if nvl:
        args += ["--nvlink", nvl]
    if nic:
        args += ["--nic", nic]
    if hg > 1:
        args += ["--gpus-per-thread", str(hg)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return {int(float(r["bytes"])): r["algo"] + "/" + r["proto"]
            for r in csv.DictReader(io.StringIO(out))}


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    stepcast, path = argv[1], argv[2]
    rows = {r["id"]: r for r in csv.DictReader(open(path, newline=""))}
    out = subprocess.run([stepcast, "validate", path, "--format", "csv"],
                         capture_output=True, text=True, check=True).stdout
    pred = {p["id"]: p for p in csv.DictReader(io.StringIO(out)) if p["predicted"]}
    groups = collections.defaultdict(list)
    for r in rows.values():
        if r["id"] in pred:
            groups[group_key(r)].append(int(r["bytes"]))
    pair = {k: pairs_of(stepcast, k, v) for k, v in groups.items()}
    buckets = collections.defaultdict(list)
    for rid, p in pred.items():
        r = rows[rid]
        m, q = float(p["measured"]), float(p["predicted"])
        b = int(r["bytes"])
        band = "<1MiB" if b < MIB else ">=1MiB"
        buckets[(r["gpu"], int(r["ranks"]), band, pair[group_key(r)][b])].append(
            100 * (q - m) / m)
    total = sum(abs(e) for v in buckets.values() for e in v)
    print(f"{'gpu':<16} {'gpus':>4} {'band':>6} {'pair':<12} {'rows':>4} {'MAPE':>6} "
          f"{'signed':>7} {'share':>6}")
    for k in sorted(buckets):
        v = buckets[k]
        s = sum(abs(e) for e in v)
        print(f"{k[0]:<16} {k[1]:>4} {k[2]:>6} {k[3]:<12} {len(v):>4} {s / len(v):>5.1f}% "
              f"{sum(v) / len(v):>+6.1f}% {100 * s / total:>5.1f}%")
    for band in ("<1MiB", ">=1MiB"):  # as validate --summary splits the set
        v = [e for k, es in buckets.items() if k[2] == band for e in es]
        if v:
            print(f"band {band}: {len(v)} rows, MAPE {sum(map(abs, v)) / len(v):.1f}%")


if __name__ == "__main__":
    main(sys.argv)
