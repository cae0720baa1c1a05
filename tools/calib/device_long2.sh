#!/usr/bin/env bash
# One device call: the long-context GPT steps of device_long.sh on another
# GPU kind, with SDPA's FlashAttention-2 backend and then its cuDNN one.
set -u
export PYTHONUNBUFFERED=1
timeout 200 python3 tools/calib/h100_step.py --out "$OUT/f" --long --budget-s 150 2>&1 | tee "$OUT/long_flash.log"
timeout 200 python3 tools/calib/h100_step.py --out "$OUT/c" --long --backend cudnn --budget-s 150 2>&1 | tee "$OUT/long_cudnn.log"
