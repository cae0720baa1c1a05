#!/usr/bin/env python3
"""What-ifs: a data reader's host-to-GPU copies on a DGX-1 (V100) at
NCCL's link rates, added to or overlapped with the predicted iteration.

    tools/recsys/hostcopy.py [--stepcast build/stepcast] [CSV]

Default CSV: ../shared/validation/recsys/hugectr_wdl_batch_sweep.csv
(docs/accuracy.md, HugeCTR's tenth round). Analysis only: nothing here
feeds a prediction, and no variant is adopted; the table shows how far
the three unsourced choices below move the set.

Bytes a GPU receives per sample of the global batch (one key per table,
as the model reads the rows; 8-byte keys and CSR row offsets, the
parquet reader's int64 keys as recalled; 4-byte dense features and
label):

  owner:  every GPU gets a CSR row per sample and table of the whole
          batch, the keys it owns (1/n of them) and its local dense
          features: 8 T + 8 T / n + 4 (D + 1) / n  (the eighth round's
          reading, the model's `keys_from_reader`);
  bcast:  every GPU gets the whole batch, keys, offsets and dense:
          8 T + 8 T + 4 (D + 1).

Link rates, NCCL's topology model (../shared/reference/nccl/src/graph/
topo.h): `PCI_BW` 12 GB/s (PCIe Gen3 x16), `BDW_QPI_BW` 6 GB/s (the
inter-socket link of a Broadwell Xeon, the DGX-1's E5-2698 v4). The
DGX-1 (cluster_presets.c [DGX1-H]) has 4 PCIe switches of 2 GPUs, two
per socket; a reader whose pinned buffers sit in one socket's memory
sends 2 GPUs' bytes up each switch link and 4 GPUs' across QPI, so the
copies of a batch take the longer of the two: per global sample
max(2 b / 12, 4 b / 6) ns on 8 GPUs, b / 12 on one.

  add:    the iteration waits for the copies (the collector is not ahead);
  max:    the reader prefetches (the model's reading): the iteration is
          the longer of the two.
"""
from slopes import sweep_rows

PCI_GBPS = 12.0  # NCCL topo.h PCI_BW, GB/s = bytes per ns
QPI_GBPS = 6.0   # NCCL topo.h BDW_QPI_BW
KEY_B = 8
DENSE_B = 4


def bytes_per_sample(r, layout):
    """Bytes one GPU receives per sample of the global batch."""
    t, d, n = int(r["num_tables"]), int(r["dense_features"]), int(r["gpus"])
    if layout == "owner":
        return KEY_B * t + KEY_B * t / n + DENSE_B * (d + 1) / n
    return 2 * KEY_B * t + DENSE_B * (d + 1)


def copy_ns(r, layout):
    """ns per global sample of the copies over the DGX-1's host links."""
    b, n = bytes_per_sample(r, layout), int(r["gpus"])
    if n == 1:
        return b / PCI_GBPS
    if n != 8:
        raise SystemExit(f"{r['id']}: the DGX-1 layout has 1 or 8 GPUs, not {n}")
    return max(2 * b / PCI_GBPS, 4 * b / QPI_GBPS)


def with_copies(r, p_ms, layout, how):
    c_ms = copy_ns(r, layout) * float(r["global_batch"]) * 1e-6
    return p_ms + c_ms if how == "add" else max(p_ms, c_ms)


def mape(rows, f):
    by = {}
    for r in rows:
        m = float(r["measured_iter_ms"])
        by.setdefault(int(r["gpus"]), []).append(abs(f(r) - m) / m)
    every = [e for es in by.values() for e in es]
    return 100 * sum(every) / len(every), {n: 100 * sum(es) / len(es) for n, es in by.items()}


def main():
    every, pred = sweep_rows(__doc__)
    rows = [r for r in every if r["id"] in pred]
    counts = sorted({int(r["gpus"]) for r in rows})
    print("variant | ns per global sample at " + " / ".join(f"{n}" for n in counts) +
          " GPUs | MAPE file | " + " | ".join(f"MAPE {n} GPU" for n in counts))
    whole, by = mape(rows, lambda r: pred[r["id"]] * 1e3)
    print("as predicted | - | %.1f | %s" % (whole, " | ".join(f"{by[n]:.1f}" for n in counts)))
    first = {n: next(r for r in rows if int(r["gpus"]) == n) for n in counts}
    for layout in ("owner", "bcast"):
        for how in ("max", "add"):
            whole, by = mape(rows, lambda r: with_copies(r, pred[r["id"]] * 1e3, layout, how))
            ns = " / ".join(f"{copy_ns(first[n], layout):.0f}" for n in counts)
            print(f"{layout} {how} | {ns} | {whole:.1f} | " +
                  " | ".join(f"{by[n]:.1f}" for n in counts))


if __name__ == "__main__":
    main()
