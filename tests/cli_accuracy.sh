#!/usr/bin/env bash
# cli_accuracy.sh -- the accuracy line of predict and search (docs/output.md,
# src/report/accuracy.h): the table line, the JSON object and CSV columns,
# "unvalidated" for a GPU with no published rows, and the staleness check of
# tools/accuracy/gen_table.py failing on a table off by more than 0.5 points
# or a row count (needs ../shared: fails without it).
# Usage: tests/cli_accuracy.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: cli_accuracy.sh PATH/TO/stepcast}
. "$(dirname "$0")/e2e_lib.sh"
L=examples/llama3-70b-512-h100.json

expect 0 "  accuracy           MAPE " -- predict "$L"
expect 0 "                     (signed " -- predict "$L"
expect 0 "published Hopper 16-bit Megatron-style multi-server runs" -- predict "$L"
expect 0 "published Hopper fp8/fp4 Megatron-style multi-server runs" -- predict "$L" --set plan.dtype=fp8
expect 0 "published Ampere 16-bit FSDP/ZeRO-3 one-server runs" -- predict examples/mpt-7b-fsdp-8-a100.json
expect 0 "no published runs like this (non-NVIDIA 16-bit Megatron-style multi-server):" -- predict "$L" -g mi300x
# the line wraps at 100 columns, under its text; each set with its rows
expect 0 "                     the model is unvalidated here" -- predict "$L" -g mi300x
out=$("$CLI" predict examples/gpt3-175b-1024-a100.json)
n=$(awk '/^  accuracy|^ {21}[^ ]/ && length($0) > 100' <<<"$out" | wc -l)
[[ $n == 0 ]] && pass=$((pass + 1)) || { echo "FAIL: $n accuracy lines over 100 columns"; fail=$((fail + 1)); }
# scale splits the class: 1,024 GPUs are quoted the multi-server rows (not
# vTrain's single-node ones), 8 GPUs in one node the one-server rows
grep -q "published Ampere 16-bit Megatron-style multi-server runs" <<<"$out" &&
  grep -Eq "megatron_sc21_table1\.csv [0-9]+" <<<"$out" && ! grep -q vtrain_single_node <<<"$out" &&
  pass=$((pass + 1)) ||
  { echo "FAIL: GPT-3 on 1,024 A100s is not quoted the multi-server rows alone:"; echo "$out" | grep -A2 "^  accuracy"; fail=$((fail + 1)); }
expect 0 "published Ampere 16-bit Megatron-style one-server runs" -- predict examples/gpt3-175b-1024-a100.json --set model=\"gpt3-1.3b\" --set cluster.nodes=1 --set plan.pp=1 --set plan.dp=1
expect 0 "no published runs like this (Hopper 16-bit MoE Megatron-style multi-server)" -- predict examples/mixtral-8x7b-h100.json
expect 0 '"accuracy": {"class": "Hopper 16-bit Megatron-style multi-server", "n": ' -- predict "$L" --format json
expect 0 '"in_sample": ["dgxc_benchmarking.csv"]' -- predict "$L" --format json
expect 0 '"accuracy": {"class": "non-NVIDIA 16-bit Megatron-style multi-server", "n": 0, "mape": null' -- predict "$L" -g mi300x --format json
expect 0 ",accuracy_class,accuracy_n,accuracy_mape,accuracy_signed,accuracy_worst" -- predict "$L" --format csv
expect 0 "  accuracy, plan 1   MAPE " -- search "$L" --top 2
expect 0 '"accuracy": {"class": ' -- search "$L" --top 2 --format json
expect 0 "accuracy: MAPE " -- predict "$L" --html -

# collectives: a line per size class the sweep reaches (NCCL's model column)
expect 0 "# accuracy (time(us), NCCL's model): MAPE " -- collective --ranks 16 --ppn 8 --max 64M
expect 0 "published all_reduce from 1 MiB inter-node measurements" -- collective --ranks 16 --ppn 8 --max 64M
expect 0 "no published runs like this (all_gather below 1 MiB intra-node)" -- collective --op all_gather --ranks 8 --max 4M
expect 0 '"accuracy": [{"class": "all_reduce from 1 MiB intra-node", "n": ' -- collective --ranks 8 --ppn 8 --min 2M --max 64M --format json
n=$("$CLI" collective --ranks 8 --ppn 8 --min 2M --max 64M | grep -c "accuracy")
[[ $n == 1 ]] && pass=$((pass + 1)) || { echo "FAIL: a sweep from 2 MiB prints $n accuracy lines"; fail=$((fail + 1)); }

# data-parallel schemes: a line per scheme family, an object per scheme
D=examples/dp/resnet50-16-v100-25gbe.json
expect 0 "  accuracy, ps: MAPE " -- dp "$D"
expect 0 "published CNN allreduce multi-server data-parallel runs" -- dp "$D"
expect 0 "published CNN allreduce one-server data-parallel runs" -- dp "$D" --set cluster.gpus=8 --set plan.global_batch=512
expect 0 '"accuracy": {"class": "CNN gossip multi-server data-parallel", "n": ' -- dp "$D" --format json
expect 0 "accuracy, allreduce: no published runs like this (transformer allreduce multi-server" -- predict examples/dp/gpt3-350m-16-v100-allreduce.json

# recommendation models: one line under the iteration, an object in JSON
expect 0 "accuracy      MAPE " -- recsys predict examples/recsys/dlrm_criteo_8gpu.json
expect 0 "published recsys multi-GPU training runs" -- recsys predict examples/recsys/dlrm_criteo_8gpu.json
expect 0 '"accuracy": {"class": "recsys multi-GPU training", "n": ' -- recsys predict examples/recsys/dlrm_criteo_8gpu.json --format json

# one line in the table, once in a search
n=$("$CLI" predict "$L" | grep -c "accuracy ")
[[ $n == 1 ]] && pass=$((pass + 1)) || { echo "FAIL: predict prints $n accuracy lines"; fail=$((fail + 1)); }
n=$("$CLI" search "$L" --top 5 | grep -c "^  accuracy")
[[ $n == 1 ]] && pass=$((pass + 1)) || { echo "FAIL: search prints $n accuracy lines"; fail=$((fail + 1)); }

# the staleness check: the committed table passes; a copy with a MAPE 0.6
# points off, a row count, a set's rows or its IN-SAMPLE mark off fails naming the command that regenerates
# it; 0.4 points off passes
# each check regenerates the table from the same eight validate runs: they
# run once (memo_cli), the checks read the same outputs
GEN="python3 tools/accuracy/gen_table.py --stepcast $(memo_cli)"
T=src/report/accuracy_table.c
check() { # want-rc file needle
  local out rc
  out=$($GEN --check "$2" --out "$TMP/fresh.c" 2>&1)
  rc=$?
  if [[ $rc != "$1" || $out != *"$3"* ]]; then
    echo "FAIL: gen_table.py --check $2 -> exit $rc (want $1), lacks '$3':"; echo "$out" | head -5
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}
check 0 "$T" "accuracy table fresh"
# the first class's MAPE (the 5th field of its row) nudged by 0.6 and 0.4
nudge() { # delta n-delta
  awk -v d="$1" -v k="$2" 'BEGIN { FS = OFS = ", " }
    !done && /^    \{\{"/ { $5 = sprintf("%.2f", $5 + d); $4 = $4 + k; done = 1 } { print }' "$T"
}
nudge 0.6 0 > "$TMP/off06.c"
check 1 "$TMP/off06.c" "regenerate it with: python3 tools/accuracy/gen_table.py"
nudge 0.4 0 > "$TMP/off04.c"
check 0 "$TMP/off04.c" "accuracy table fresh"
nudge 0 1 > "$TMP/count.c"
check 1 "$TMP/count.c" "committed, "
# a set's rows (which the line prints) or its IN-SAMPLE mark off
sed '0,/\.csv", [0-9]*, \([01]\)}/s//.csv", 999, \1}/' "$T" > "$TMP/setrows.c"
check 1 "$TMP/setrows.c" "sets "
sed '0,/\.csv", \([0-9]*\), 1}/s//.csv", \1, 0}/' "$T" > "$TMP/insample.c"
check 1 "$TMP/insample.c" "sets "
grep -q "^const acc_row acc_llm\[\] = {" "$TMP/fresh.c" && pass=$((pass + 1)) || { echo "FAIL: --out wrote no table"; fail=$((fail + 1)); }

echo "cli_accuracy: $pass passed, $fail failed"
[[ $fail == 0 ]]
