#!/usr/bin/env bash
# tools/calib/attn_unfused_check.py (docs/accuracy.md, "Mixed precision on
# V100, the third look"): it turns a row's TFLOP/s into milliseconds by the
# file's FLOP convention and reads the model's attention tasks from
# `predict --ops`; a row whose rate is the model's own comes out at 1.000,
# the set gives every PyTorch standard attention row of A100 and H100.
# Needs ../shared (fails loudly without it).
CLI=${1:?usage: cli_attn_unfused.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
SET=../shared/calibration/attention_kernel_benchmarks.csv
TOOL=tools/calib/attn_unfused_check.py
need_shared "$SET"

# the set: 40 rows (A100 and H100, head dim 64 and 128, causal and not,
# seq 512-8192; the OOM cells skipped), four groups, every ratio positive
# and the model within a factor 2 of the measurement
out=$(python3 "$TOOL" --stepcast "$CLI" --csv "$SET")
rows=$(grep -c '^| [0-9]' <<<"$out")
if [[ $rows -eq 40 ]] && [[ $(grep -c 'geometric mean' <<<"$out") -eq 4 ]] &&
   awk -F'|' '/^\| [0-9]/ {if ($11 + 0 < 0.5 || $11 + 0 > 2) bad++} END {exit bad > 0}' <<<"$out"; then
  pass=$((pass + 1))
else echo "FAIL: set table ($rows rows):"; echo "$out" | tail -8; fail=$((fail + 1)); fi

# a synthetic row at the model's own rate: non-causal A100, head dim 64,
# seq 512, batch 32, 32 heads; the model's ms from the run above, the
# rate = 3.5 x 4 b s^2 h d / ms; the tool must print 1.000
ms=$(awk -F'|' '$2 + 0 == 1 {print $9 + 0}' <<<"$out")
tf=$(python3 -c "print(3.5 * 4 * 32 * 512**2 * 32 * 64 / ($ms * 1e-3) / 1e12)")
head -1 "$SET" > "$TMP/one.csv"
awk -F, -v OFS=, -v tf="$tf" 'NR > 1 && $1 == 1 {$11 = tf; print}' "$SET" >> "$TMP/one.csv"
out=$(python3 "$TOOL" --stepcast "$CLI" --csv "$TMP/one.csv")
if [[ $(grep -c '^| [0-9]' <<<"$out") -eq 1 && $out == *"| 1.000 |"* ]]; then pass=$((pass + 1))
else echo "FAIL: synthetic row at the model's rate:"; echo "$out"; fail=$((fail + 1)); fi

# no such row: exit 2 with a message; no file: a message naming it
head -1 "$SET" > "$TMP/none.csv"
python3 "$TOOL" --stepcast "$CLI" --csv "$TMP/none.csv" > "$TMP/o" 2>&1
rc=$?
if [[ $rc -eq 2 ]] && grep -q 'no PyTorch standard attention rows' "$TMP/o"; then pass=$((pass + 1))
else echo "FAIL: empty CSV -> exit $rc"; cat "$TMP/o"; fail=$((fail + 1)); fi
if ! python3 "$TOOL" --stepcast "$CLI" --csv "$TMP/missing.csv" > "$TMP/o" 2>&1 &&
   grep -q 'missing.csv not found' "$TMP/o"; then pass=$((pass + 1))
else echo "FAIL: missing CSV"; cat "$TMP/o"; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
