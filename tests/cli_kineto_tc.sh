#!/usr/bin/env bash
# tools/calib/kineto_tc.py (docs/accuracy.md, "Mixed precision on V100,
# the third look"): kernels sorted by the precision their names say, on a
# synthetic trace with one kernel of each class; on ../shared's V100
# traces (10 traces in 3 files) no tensor-core or 16-bit kernel. Needs
# ../shared (fails loudly without it).
CLI=${1:?usage: cli_kineto_tc.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
T=../shared/traces
V100=("$T/hta/df_index_resolver/df_index_resolver.json.gz"
      "$T/kineto_tb_plugin_resnet50/worker0.1623143566756.pt.trace.json.gz"
      "$T/param_dlrm_8rank_v100/dlrm_kineto.tar.gz")
TOOL=tools/calib/kineto_tc.py
for f in "${V100[@]}"; do need_shared "$f"; done

cat > "$TMP/synth.json" <<'J'
{"deviceProperties": [{"name": "Tesla V100-SXM2-16GB"}],
 "traceEvents": [
  {"cat": "kernel", "name": "volta_h884gemm_256x128_ldg8_nn", "dur": 100},
  {"cat": "Kernel", "name": "volta_fp16_s884cudnn_fp16_256x128_ldg8_relu", "dur": 50},
  {"cat": "kernel", "name": "volta_sgemm_128x64_nn", "dur": 40},
  {"cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<c10::Half>>", "dur": 7},
  {"cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_half", "dur": 30},
  {"cat": "kernel", "name": "void at::native::reduce_kernel<512, 1>", "dur": 3},
  {"cat": "cpu_op", "name": "aten::mm", "dur": 1000}]}
J
out=$(python3 "$TOOL" "$TMP/synth.json")
if grep -q 'tensor-core       2 kernels         150 us' <<<"$out" &&
   grep -q 'fp32-gemm         1 kernels          40 us' <<<"$out" &&
   grep -q 'nccl              1 kernels          30 us' <<<"$out" &&
   grep -q '16-bit            1 kernels           7 us' <<<"$out" &&
   grep -q 'other             1 kernels           3 us' <<<"$out" &&
   grep -q 'tensor-core x1: volta_h884gemm' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: synthetic trace:"; echo "$out"; fail=$((fail + 1)); fi

out=$(python3 "$TOOL" --gpu v100 "${V100[@]}")
n=$(grep -c 'V100' <<<"$out")
tc=$(awk '$1 == "tensor-core" || $1 == "16-bit" {s += $2} END {print s + 0}' <<<"$out")
g=$(awk '$1 == "fp32-gemm" {s += $2} END {print s + 0}' <<<"$out")
if [[ $n -eq 10 && $tc -eq 0 && $g -gt 4000 ]]; then pass=$((pass + 1))
else echo "FAIL: V100 traces: $n traces, $tc 16-bit kernels, $g fp32 GEMMs"; fail=$((fail + 1)); fi

python3 "$TOOL" --gpu no-such-gpu "$TMP/synth.json" > "$TMP/o" 2>&1
rc=$?
if [[ $rc -eq 2 ]] && grep -q 'no trace on a GPU' "$TMP/o"; then pass=$((pass + 1))
else echo "FAIL: --gpu with no match -> exit $rc"; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
