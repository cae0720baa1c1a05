#!/usr/bin/env python3
"""Compare stepcast's predictions with our own one-GPU CNN and BERT
training-step measurements (data/measured/*_dp_steps.csv, taken by
tools/calib/dp_step.py).

    tools/calib/dp_compare.py --csv FILE --gpu PRESET [--stepcast build/stepcast]
                              [--scenarios DIR] [--kinds TRACEDIR]

Each measured row becomes one `stepcast predict` scenario on 1 x PRESET:
the CNN or BERT preset the script trains (`model.preset`; BERT with the
row's `seq` and `mlm_positions`), the optimizer it ran (`momentum` for
the CNNs: SGD with momentum; `adam` for BERT: AdamW), global batch =
micro-batch = the row's batch, and the precision as the row ran it:
`amp_fp16` -> dtype fp16 + amp, `amp_bf16` -> bf16 + amp, `tf32` and
`fp32` as they are; `channels_last` from the row's layout (CNNs). BERT
16-bit rows set attention flash2 (though the traces of
data/measured/traces_h200 show PyTorch 2.11's SDPA picking cuDNN's
attention, `cudnn_generated_fort_native_sdpa_sm90_flash_*`, for 16-bit
inputs with dropout on Hopper: docs/accuracy.md, "Our own H200
measurements"); fp32 rows keep stepcast's default. Everything else is the GPU preset's and the
model's defaults (eager framework). With --scenarios DIR the scenario
files are also written there.

Prints a Markdown table: measured and predicted step time, signed error
(predicted / measured - 1), predicted host share, measured peak memory
(torch.cuda.max_memory_allocated) and predicted memory total, both GiB;
then the MAPE of time and of memory, per model family.

With --kinds TRACEDIR, for every row with a profiler trace
TRACEDIR/NAME.pt.trace.json.gz (tools/calib/dp_trace.py) also a table of
GPU time per step by kind of operator: the trace's kernels
(tools/calib/kernel_cats.py's kinds; in a CNN conv = convolutions, cuBLAS
GEMMs (its 1x1 convolutions and classifier) and layout transposes; the
model's optimizer is time_s.optimizer) against
`predict --ops`'s "op_kinds" (forward + backward, one micro-batch).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

PREC = {"amp_fp16": ("fp16", True), "amp_bf16": ("bf16", True),
        "tf32": ("tf32", False), "fp32": ("fp32", False)}


def scenario(row, gpu):
    dtype, amp = PREC[row["precision"]]
    b = int(row["batch"])
    bert = row["model"].startswith("bert")
    model = {"preset": row["model"], "optimizer": "adam" if bert else "momentum"}
    plan = {"global_batch": b, "micro_batch": b, "dtype": dtype}
    if amp:
        plan["amp"] = True
    if bert:
        model.update(seq=int(row["seq"]), mlm_positions=int(row["mlm"]))
        if amp:
            plan["attention"] = "flash2"
    else:
        plan["channels_last"] = row["layout"] == "cl"
    return {"description": "tools/calib/dp_compare.py: measured row " + row["name"],
            "model": model, "cluster": {"gpu": gpu, "gpus": 1, "gpus_per_node": 1},
            "plan": plan}


def predict(exe, scen, path, ops=False):
    with open(path, "w") as f:
        json.dump(scen, f, indent=1)
        f.write("\n")
    out = subprocess.run([exe, "predict", path, "--format", "json"] + (["--ops"] if ops else []),
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("stepcast failed on %s: %s" % (path, out.stderr.strip()))
    return json.loads(out.stdout)


# trace kinds (kernel_cats.py) -> the model's operator kinds
TRACE_TO_MODEL = {"conv": "conv", "gemm": "conv", "bn": "norm", "ln": "norm", "eltwise": "eltwise",
                  "pool": "pool", "attn": "attention", "loss": "loss", "layout": "conv",
                  "reduce": "eltwise", "optim": "optimizer", "other": "other"}


def kinds_table(a, rows):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kernel_cats
    print()
    print("| config | kind | trace ms | model ms | error |")
    print("|---|---|---|---|---|")
    for row in rows:
        path = os.path.join(a.kinds, row["name"] + ".pt.trace.json.gz")
        if not os.path.exists(path):
            continue
        r = predict(a.stepcast, scenario(row, a.gpu), os.path.join(a.scenarios or tempfile.gettempdir(),
                                                                    row["name"] + "_ops.json"), True)
        model = {k["name"]: 1e3 * (k["fwd_s"] + k["bwd_s"]) for k in r.get("op_kinds", [])}
        cnn = "conv" in model
        if cnn and "gemm" in model:  # a CNN's classifier GEMM: with the convolutions
            model["conv"] += model.pop("gemm")
        model["optimizer"] = 1e3 * r["time_s"]["optimizer"]
        ev = kernel_cats.load(path)
        steps = {e["name"] for e in ev if e.get("name", "").startswith("ProfilerStep#")}
        meas = {}
        for e in ev:
            if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
                k = TRACE_TO_MODEL[kernel_cats.kind(e["name"])]
                if not cnn and k == "conv":
                    k = "gemm"  # cuBLAS/CUTLASS GEMMs of a transformer
                meas[k] = meas.get(k, 0) + e["dur"] / 1e3 / max(1, len(steps))
        for k in sorted(set(meas) | set(model), key=lambda k: -meas.get(k, 0)):
            m, p = meas.get(k, 0), model.get(k, 0)
            if m < 0.05 and p < 0.05:
                continue
            print("| %s | %s | %.1f | %.1f | %s |" % (row["name"], k, m, p,
                                                     "%+.0f %%" % (100 * (p / m - 1)) if m > 0 else "-"))


def mape(es):
    return 100 * sum(abs(e) for e in es) / len(es) if es else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--gpu", required=True, help="stepcast GPU preset of the measuring GPU")
    ap.add_argument("--scenarios", default="")
    ap.add_argument("--kinds", default="", help="folder of dp_trace.py traces: per-kind table")
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(open(a.csv)) if r["status"] == "ok"]
    if not rows:
        sys.exit("no measured rows in " + a.csv)
    d = a.scenarios or tempfile.mkdtemp(prefix="dpcmp")
    os.makedirs(d, exist_ok=True)
    print("| config | measured ms | predicted ms | error | host share (pred.) "
          "| memory GiB meas. / pred. | memory error |")
    print("|---|---|---|---|---|---|---|")
    fam = {}
    for row in rows:
        r = predict(a.stepcast, scenario(row, a.gpu), os.path.join(d, row["name"] + ".json"))
        meas, pred = float(row["step_ms"]), r["step_s"] * 1e3
        err = pred / meas - 1
        mm, mp = float(row["peak_mem_GiB"]), r["memory_bytes"]["total"] / 2**30
        merr = mp / mm - 1
        key = "BERT" if row["model"].startswith("bert") else "CNN"
        fam.setdefault(key, []).append((err, merr))
        fam.setdefault("all", []).append((err, merr))
        print("| %s | %.1f | %.1f | %+.1f %% | %.0f %% | %.2f / %.2f | %+.0f %% |"
              % (row["name"], meas, pred, 100 * err,
                 100 * r["time_s"]["host_overhead"] / r["step_s"], mm, mp, 100 * merr))
    print()
    for key in ("CNN", "BERT", "all"):
        es = fam.get(key, [])
        if es:
            print("%-4s step time: MAPE %.1f %% (mean signed %+.1f %%) over %d; "
                  "memory: MAPE %.1f %% (mean signed %+.1f %%)"
                  % (key, mape([e for e, _ in es]), 100 * sum(e for e, _ in es) / len(es),
                     len(es), mape([m for _, m in es]), 100 * sum(m for _, m in es) / len(es)))
    if a.kinds:
        kinds_table(a, rows)


if __name__ == "__main__":
    main()
