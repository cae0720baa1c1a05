#!/usr/bin/env bash
# One device call: long-context attention kernels and GPT training steps
# (tools/calib/kernel_bench.py --long, tools/calib/h100_step.py --long),
# results under $OUT (data/measured/README.md, "long-context").
set -u
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/long_env_pre.txt" 2>&1
timeout 150 python3 tools/calib/kernel_bench.py --out "$OUT" --long 2>&1 | tee "$OUT/long_attn.log"
timeout 300 python3 tools/calib/h100_step.py --out "$OUT" --long --budget-s 240 2>&1 | tee "$OUT/long_steps.log"
