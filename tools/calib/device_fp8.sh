#!/usr/bin/env bash
# One device call: transformer GEMM shapes in fp8 (cuBLASLt through
# torch._scaled_mm) and bf16, graph-timed (tools/calib/gemm_bench.py).
set -u
export PYTHONUNBUFFERED=1
cd tools/calib
timeout 200 python3 gemm_bench.py --out "$OUT" --graph --dtypes fp8,bf16 > "$OUT/gemm_fp8.log" 2>&1
tail -5 "$OUT/gemm_fp8.log"
nvidia-smi --query-gpu=name,clocks.sm,power.limit --format=csv > "$OUT/env.txt" 2>&1
python3 -c "import torch; print(torch.__version__, torch.version.cuda)" >> "$OUT/env.txt"
