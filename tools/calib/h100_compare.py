#!/usr/bin/env python3
"""Compare stepcast's predictions with our own H100 measurements
(data/measured/h100_gpt_steps.csv, taken by tools/calib/h100_step.py).

    tools/calib/h100_compare.py [--stepcast build/stepcast] [--csv FILE] [--scenarios DIR]

Each measured row becomes one scenario: the GPT decoder the script trains
(layers, hidden, heads, seq, vocab 50304, GELU MLP 4h, LayerNorm, learned
positions, biases, tied head) on 1 x h100-sxm5-80gb, tp = pp = dp = 1,
sp off, zero 0, global batch = micro-batch = the row's micro_batch (one
micro-batch per step), dtype bf16 with amp as the row ran (its dtype
`amp_bf16`: torch.autocast over fp32 parameters, so plan.amp true and,
by plan.zero_grad "auto", the gradients freed between steps as the
script's zero_grad(set_to_none=True) frees them; --no-amp: the model cast
wholly to bf16, as this comparison ran before session 36), attention flash2 (PyTorch's SDPA flash
backend is FlashAttention-2; cudnn for rows run with SDPA's cuDNN backend), fused_kernels false (eager PyTorch runs
separate GELU and add kernels), loss eager (the script's
F.cross_entropy on logits.float(), the logits dropped after it; with the
two above, a torch.nn model: nn.Linear's bias in its GEMM's epilogue and
its gradient's reduction backward, docs/model.md section 2), framework_eager true, recompute full
when the row checkpointed every block, else none. Nothing else is set: the
GPU preset's constants are used as they are. With --scenarios DIR the
scenario files are also written there.

Prints a Markdown table: measured and predicted step time, signed error
(predicted / measured - 1), the predicted host share, measured vs
predicted optimizer time, and the peak memory (torch.cuda.max_memory_allocated
against predict's total less its buffers: the fixed 1 GiB of context and
workspace and the allocator's fragmentation, which the allocated bytes do
not count); then the MAPEs. --loss KIND sets plan.loss (default eager);
--amp / --no-amp set plan.amp on every row (default: each row's dtype).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

GPU = ["h100-sxm5-80gb"]  # --gpu: the stepcast preset of the measuring GPU
LOSS = ["eager"]  # --loss: plan.loss
AMP = [None]  # --amp / --no-amp: plan.amp; None = the row's dtype says


def row_amp(row):
    """plan.amp for a measured row: --amp/--no-amp, else its dtype
    (amp_bf16: autocast over fp32 parameters)."""
    if AMP[0] is not None:
        return AMP[0]
    return row.get("dtype", "").startswith("amp_")


def scenario(row):
    mb = int(row["micro_batch"])
    return {
        "description": "tools/calib/h100_compare.py: measured row " + row["name"],
        "model": {"name": row["name"][:63], "layers": int(row["layers"]),
                  "hidden": int(row["hidden"]), "heads": int(row["heads"]),
                  "vocab": int(row["vocab"]), "seq": int(row["seq"]),
                  "activation": "gelu", "norm": "layernorm", "position": "learned",
                  "tied_embeddings": row["tied"] == "1", "bias": True},
        "cluster": {"gpu": GPU[0], "gpus": 1, "gpus_per_node": 1},
        "plan": {"tp": 1, "pp": 1, "dp": 1, "sp": False, "zero": 0,
                 "recompute": "full" if row["ckpt"] == "1" else "none",
                 "global_batch": mb, "micro_batch": mb, "dtype": "bf16",
                 "attention": "cudnn" if row.get("attention") == "sdpa_cudnn" else "flash2",
                 "fused_kernels": False,
                 "loss": LOSS[0], "amp": row_amp(row),
                 "framework_eager": True},
    }


def predict(exe, scen, path):
    with open(path, "w") as f:
        json.dump(scen, f, indent=1)
        f.write("\n")
    out = subprocess.run([exe, "predict", path, "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("stepcast failed on %s: %s" % (path, out.stderr.strip()))
    r = json.loads(out.stdout)
    return r.get("result", r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("--csv", default="data/measured/h100_gpt_steps.csv")
    ap.add_argument("--scenarios", default="")
    ap.add_argument("--gpu", default=GPU[0], help="stepcast GPU preset of the measuring GPU")
    ap.add_argument("--loss", default=LOSS[0], help="plan.loss of the scenarios")
    ap.add_argument("--amp", action="store_true", default=None,
                    help="plan.amp on every row: fp32 weights under autocast")
    ap.add_argument("--no-amp", dest="amp", action="store_false",
                    help="plan.amp off: the model cast wholly to bf16")
    a = ap.parse_args()
    GPU[0] = a.gpu
    LOSS[0] = a.loss
    AMP[0] = a.amp
    rows = [r for r in csv.DictReader(open(a.csv)) if r["status"] == "ok"]
    if not rows:
        sys.exit("no measured rows in " + a.csv)
    tmp = tempfile.mkdtemp(prefix="h100cmp")
    print("| config | params | measured ms | predicted ms | error | host share (pred.) "
          "| optimizer ms meas. / pred. | memory GiB meas. / pred. | error |")
    print("|---|---|---|---|---|---|---|---|---|")
    errs, merrs = [], []
    for row in rows:
        scen = scenario(row)
        d = a.scenarios or tmp
        os.makedirs(d, exist_ok=True)
        r = predict(a.stepcast, scen, os.path.join(d, row["name"] + ".json"))
        meas = float(row["step_ms"])
        pred = r["step_s"] * 1e3
        err = pred / meas - 1
        errs.append((row["name"], err, r["time_s"]["host_overhead"] / r["step_s"]))
        mmeas = float(row["peak_mem_GiB"])
        mpred = (r["memory_bytes"]["total"] - r["memory_bytes"]["buffers"]) / 2**30
        merrs.append(mpred / mmeas - 1)
        print("| %s | %.2fB / %.2fB | %.1f | %.1f | %+.1f %% | %.0f %% | %.1f / %.1f | %.1f / %.1f "
              "| %+.1f %% |"
              % (row["name"], int(row["params"]) / 1e9, r["params"] / 1e9, meas, pred,
                 100 * err, 100 * r["time_s"]["host_overhead"] / r["step_s"],
                 float(row["opt_ms"]), 1e3 * r["time_s"]["optimizer"], mmeas, mpred,
                 100 * merrs[-1]))
    mape = sum(abs(e) for _, e, _ in errs) / len(errs)
    print()
    print("MAPE %.1f %% over %d configs; mean signed error %+.1f %%"
          % (100 * mape, len(errs), 100 * sum(e for _, e, _ in errs) / len(errs)))
    print("memory: MAPE %.1f %%, mean signed %+.1f %% over %d configs"
          % (100 * sum(map(abs, merrs)) / len(merrs), 100 * sum(merrs) / len(merrs), len(merrs)))
    gpu = [e for _, e, h in errs if h < 0.5]
    host = [e for _, e, h in errs if h >= 0.5]
    for label, es in (("predicted GPU-bound (host share < 50 %)", gpu),
                      ("predicted host-bound (host share >= 50 %)", host)):
        if es:
            print("%s: MAPE %.1f %% over %d" % (label, 100 * sum(map(abs, es)) / len(es), len(es)))


if __name__ == "__main__":
    main()
