#!/usr/bin/env bash
# One device call: the long-context GPT steps with SDPA's cuDNN backend
# alone (device_long2.sh's second half), for a GPU kind measured with FA2.
set -u
export PYTHONUNBUFFERED=1
timeout 200 python3 tools/calib/h100_step.py --out "$OUT/c" --long --backend cudnn --budget-s 150 2>&1 | tee "$OUT/long_cudnn.log"
