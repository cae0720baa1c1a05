#!/usr/bin/env python3
"""Compute-only accuracy: predict every single-GPU row (gpus = 1) of the
data-parallel sets with `stepcast predict` and print the error per row
and per (file, model, GPU, dtype).

    tools/dp/single_gpu.py [--stepcast build/stepcast] [CSV ...]

Default CSVs: ../shared/validation/dp_training/*.csv. The tf_cnn_benchmarks
rows with one GPU ran with a parameter server (variables on the CPU or
on gpu0: scheme ps_sync), whose pulls, pushes and update this compute-
only prediction leaves out; the summary separates them. Each row becomes
  -m MODEL_VARIANT -g GPU -n 1 --gb batch_per_gpu*grad_accum
  plan.micro_batch=batch_per_gpu, plan.dtype=DTYPE, model.seq=SEQ (BERT)
with DTYPE fp32 -> fp32, tf32 -> tf32, amp -> fp16 with plan.amp, unknown -> fp16 (the
MLPerf rows: NVIDIA's implementations train in mixed precision; the same
rule for every such row). Nothing else of the row is used: the framework
is run as an eager framework (the library default), real data loading is
not modelled. The target is measured_iter_s (= worker_step_s).
"""
import collections
import csv
import json
import os
import subprocess
import sys

import dpargs

DTYPES = {"fp32": "fp32", "tf32": "tf32", "amp": "fp16", "unknown": "fp16"}


def predict(exe, row):
    b = int(row["batch_per_gpu"])
    acc = int(row["grad_accum"] or 1)
    cmd = [exe, "predict", "-m", row["model_variant"], "-g", row["gpu"], "-n", "1",
           "--gb", str(b * acc), "--set", f"plan.micro_batch={b}",
           "--set", f"plan.dtype={DTYPES[row['dtype']]}", "--format", "json"]
    if row["dtype"] == "amp":  # the frameworks' AMP (plan.amp, docs/model.md)
        cmd += ["--set", "plan.amp=true"]
    if row["model"].startswith("bert") and row["seq"]:
        cmd += ["--set", f"model.seq={int(row['seq'])}"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        return None, out.stderr.strip().splitlines()[-1]
    r = json.loads(out.stdout)
    r = r.get("result", r)
    return r["step_s"], None


def main():
    exe, files = dpargs.parse()
    groups = collections.OrderedDict()
    for f in files:
        for row in csv.DictReader(open(f)):
            if row["gpus"] != "1":
                continue
            meas = float(row["measured_iter_s"] or row["worker_step_s"])
            pred, why = predict(exe, row)
            key = (os.path.basename(f), row["model_variant"], row["gpu"], row["dtype"],
                   row["scheme"] + (f" ({row['ps_placement']})" if row["ps_placement"] else ""))
            if pred is None:
                print(f"{row['id']:>28} skipped: {why}")
                groups.setdefault(key, []).append(None)
                continue
            err = pred / meas - 1
            print(f"{row['id']:>28} {row['model_variant']:>14} {row['gpu']:>15} {row['dtype']:>7} "
                  f"b{row['batch_per_gpu']:>4} {row['framework'][:34]:34} {row['data'][:9]:9} "
                  f"measured {meas*1e3:8.1f} ms predicted {pred*1e3:8.1f} ms {100*err:+6.1f} %")
            groups.setdefault(key, []).append(err)
    print()
    print("| file | model | GPU | dtype | scheme | rows | MAPE | mean signed error |")
    print("| --- | --- | --- | --- | --- | ---: | ---: | ---: |")
    allerr, compute_only = [], []
    for (f, m, g, d, sch), errs in groups.items():
        e = [x for x in errs if x is not None]
        allerr += e
        if not e:
            print(f"| {f} | {m} | {g} | {d} | {sch} | {len(errs)} | skipped | |")
            continue
        mape = 100 * sum(abs(x) for x in e) / len(e)
        sign = 100 * sum(e) / len(e)
        print(f"| {f} | {m} | {g} | {d} | {sch} | {len(e)} | {mape:.1f} % | {sign:+.1f} % |")
        if not sch.startswith("ps_"):
            compute_only += e
    if allerr:
        print(f"\nall {len(allerr)} rows: MAPE {100*sum(abs(x) for x in allerr)/len(allerr):.1f} %")
    if compute_only:
        print(f"without a parameter server ({len(compute_only)} rows): MAPE "
              f"{100*sum(abs(x) for x in compute_only)/len(compute_only):.1f} %")


if __name__ == "__main__":
    sys.exit(main())
