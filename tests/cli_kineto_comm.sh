#!/usr/bin/env bash
# tools/calib/kineto_comm.py (docs/calibration.md, "Host time of a
# collective call"): the CPU time of c10d calls and its split at the
# kernel launch, on a synthetic trace whose figures are set by hand, and
# on ../shared's A100 trace (the medians quoted there). Needs ../shared
# (fails loudly without it).
CLI=${1:?usage: cli_kineto_comm.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
TRACE=../shared/traces/hta/trace_diff/control.json.gz
TOOL=tools/calib/kineto_comm.py
need_shared "$TRACE"

# two all-reduces on one thread: 100 us with the launch at 30-38 (30 us
# before it, 62 after), 80 us with it at 50-56 (50 before, 24 after); a
# launch on another thread inside the second one's window does not count
cat > "$TMP/synth.json" <<'J'
{"deviceProperties": [{"name": "NVIDIA A100-SXM4-80GB"}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "tid": 1, "ts": 1000, "dur": 100},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 1030, "dur": 8},
  {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "tid": 1, "ts": 2000, "dur": 80},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 2, "ts": 2010, "dur": 5},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 2050, "dur": 6}]}
J
out=$(python3 "$TOOL" "$TMP/synth.json")
if grep -q 'c10d::allreduce_ *n= *2 .*median= *90 p75' <<<"$out" &&
   grep -q 'n= *2 before the launch 40.0 us, after it 43.0 us' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: synthetic trace:"; echo "$out"; fail=$((fail + 1)); fi

# the A100 trace: 18 all-reduces, a median of 81 us, 37 before the launch
# and 32 after it
out=$(python3 "$TOOL" "$TRACE")
if grep -q 'c10d::allreduce_ *n= *18 .*median= *81 p75' <<<"$out" &&
   grep -q 'n= *18 before the launch 37.0 us, after it 32.0 us' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: $TRACE:"; echo "$out"; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
