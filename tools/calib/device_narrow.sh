#!/bin/sh
# On a lent GPU (run from the repository root; $OUT receives the files;
# data/measured/README.md): GEMM timings replayed from CUDA graphs (the
# narrow layers and the transformer shapes of gemm_bench.py, GPU time
# only), then the power-law pooled gathers of zipf_gather.cu.
set -x
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi > "$OUT/env_graph.txt" 2>&1
PYTHONUNBUFFERED=1 python3 tools/calib/gemm_bench.py --narrow --graph --out "$OUT" > "$OUT/narrow_graph.log" 2>&1
mv "$OUT/gemm_bench.csv" "$OUT/gemm_narrow_graph.csv"
PYTHONUNBUFFERED=1 python3 tools/calib/gemm_bench.py --graph --out "$OUT" > "$OUT/gemm_graph.log" 2>&1
mv "$OUT/gemm_bench.csv" "$OUT/gemm_graph.csv"
nvcc -O3 -arch=sm_90 tools/calib/zipf_gather.cu -o /tmp/zipf_gather > "$OUT/zipf_build.log" 2>&1 &&
  /tmp/zipf_gather > "$OUT/zipf_gather_2.csv" 2>&1
nvidia-smi >> "$OUT/env_graph.txt" 2>&1
tail -n 3 "$OUT/narrow_graph.log" "$OUT/gemm_graph.log"
