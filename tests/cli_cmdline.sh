#!/usr/bin/env bash
# cli_cmdline.sh -- what the command line says meets what the file says
# (audit of round 27): a size of the cluster on the command line replaces
# the file's (`-n` against "nodes"), a GPU chosen without a stated network
# brings its reference system's, a CNN's search lists no recompute variant
# that changes nothing and quotes the data-parallel rows `dp` quotes, and
# the README's MPI line runs where it is meant to. Each line is `expect
# CODE NEEDLE -- ARGS...` (tests/e2e_lib.sh).
# Usage: tests/cli_cmdline.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: cli_cmdline.sh PATH/TO/stepcast}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh"
cd "$ROOT" || exit 1
LLAMA=examples/llama3-70b-512-h100.json   # "nodes": 64 of dgx-h100

# 1. -n / --nodes replace the file's size (was: "cluster.gpus: 1024 disagrees
# with cluster.nodes 64 x gpus_per_node 8 = 512; give one of the two")
expect 0 'cluster   1024 x h100-sxm5-80gb, 8 per node' -- predict $LLAMA -n 1024
expect 0 'cluster   1024 x h100-sxm5-80gb, 8 per node' -- predict $LLAMA --gpus 1024
expect 0 'cluster   256 x h100-sxm5-80gb, 8 per node' -- predict $LLAMA --set cluster.gpus=256
expect 0 'llama3-70b on 1024 x h100-sxm5-80gb' -- search $LLAMA -n 1024 --top 1 --threads 1
expect 0 'llama3-70b on 1024 x h100-sxm5-80gb' -- search $LLAMA --set cluster.gpus=1024 --top 1 --threads 1
expect 2 'cluster.gpus: 1020 is not a whole number of nodes of cluster.gpus_per_node 8; valid nearby: 1016 or 1024 (set by -n 1020)' -- predict $LLAMA -n 1020
expect 0 'cluster   128 x h100-sxm5-80gb' -- predict $LLAMA --nodes 16
# a file giving "gpus": --nodes replaces it
expect 0 'cluster   64 x my-accel, 8 per node' -- predict examples/custom-model-and-gpu.json --nodes 8 --dp 4
# both on the command line: they must agree, as in a file
expect 2 'cluster.gpus: 1024 disagrees with cluster.nodes 3 x gpus_per_node 8 = 24' -- predict $LLAMA -n 1024 --nodes 3
expect 0 'cluster   1024 x h100-sxm5-80gb' -- predict $LLAMA -n 1024 --nodes 128
# and in a file, still
printf '{"cluster": {"preset": "dgx-h100", "nodes": 64, "gpus": 1024}}' > "$TMP/both.json"
expect 2 'cluster.gpus: 1024 disagrees with cluster.nodes 64 x gpus_per_node 8 = 512; give one of the two' -- predict "$TMP/both.json"
# dp shares the overrides: a file with "nodes" and -n
printf '{"model": "resnet50", "cluster": {"gpu": "v100-sxm2-32gb", "nodes": 2, "nic_Gbps": 25}, "plan": {"global_batch": 1024}}' > "$TMP/dp.json"
expect 0 'data-parallel resnet50 on 32 x v100-sxm2-32gb (8 per server)' -- dp "$TMP/dp.json" -n 32

# 2. -g without a stated network brings the GPU's reference system's NIC
# (was the default DGX A100's 200 Gb/s for every GPU) and says so; a stated
# NIC is kept; the default scenario is unchanged
expect 0 'NIC 400 Gb/s per GPU (dgx-h100, the reference system of h100-sxm5-80gb)' -- predict -g h100-sxm5-80gb -n 512
expect 0 'NIC 800 Gb/s per GPU (dgx-b300, the reference system of b300)' -- predict -g b300 -n 512
expect 0 'NIC 100 Gb/s per GPU
' -- predict -g b300 -n 512 --nic-gbps 100
expect 0 'NIC 200 Gb/s per GPU
' -- predict
expect 0 'NIC 200 Gb/s per GPU (the default'"'"'s: v100-sxm2-16gb has no reference system)' -- predict -g v100-sxm2-16gb --dtype fp16 -n 128
# a file naming a preset keeps its server, and says whose NIC a new GPU runs on
expect 0 'NIC 400 Gb/s per GPU (dgx-h100, the scenario'"'"'s cluster preset)' -- predict $LLAMA -g b300
expect 0 'NIC 400 Gb/s per GPU
' -- predict $LLAMA
# a file choosing a GPU without a preset or a NIC: the reference system's too
printf '{"cluster": {"gpu": "b200", "nodes": 4}, "model": "gpt3-13b", "plan": {"tp": 8, "pp": 1, "global_batch": 64}}' > "$TMP/b200.json"
expect 0 'NIC 400 Gb/s per GPU (dgx-b200, the reference system of b200)' -- predict "$TMP/b200.json"
# a GB200 / GB300 (reference system an NVL72 rack) brings its node (4 per
# tray) and NVLink domain (72) too (was 8 and 8); stated ones are kept; a
# size off the new node names where 4 came from; JSON says what was assumed
expect 0 'cluster   256 x gb200, 4 per node, 72 per NVLink domain, NVLink 900 GB/s, NIC 400 Gb/s per GPU (gb200-nvl72, the reference system of gb200)' -- predict -g gb200 -n 256
expect 0 'cluster   256 x gb300, 4 per node, 72 per NVLink domain, NVLink 900 GB/s, NIC 800 Gb/s per GPU (gb300-nvl72' -- predict -g gb300 -n 256
expect 0 'cluster   256 x gb200, 8 per node, 72 per NVLink domain, NVLink' -- predict -g gb200 -n 256 --set cluster.gpus_per_node=8
expect 0 'cluster   256 x gb200, 4 per node, 72 per NVLink domain (gb200-nvl72, the reference system of gb200), NVLink 900 GB/s, NIC 100 Gb/s per GPU
' -- predict -g gb200 -n 256 --nic-gbps 100
expect 0 'cluster   256 x gb200, 8 per node, NVLink 900 GB/s, NIC 100 Gb/s per GPU
' -- predict -g gb200 -n 256 --nic-gbps 100 --set cluster.gpus_per_node=8 --set cluster.nvlink_domain=8
expect 0 'cluster   512 x h100-sxm5-80gb, 8 per node, NVLink 450 GB/s, NIC 400 Gb/s per GPU (dgx-h100' -- predict -g h100-sxm5-80gb -n 512
expect 2 'cluster.gpus: 258 is not a whole number of nodes of cluster.gpus_per_node 4 (gb200-nvl72, the reference system of gb200); valid nearby: 256 or 260 (set by -n 258)' -- predict -g gb200 -n 258
expect 0 '"assumed": "cluster.nic_Gbps 400 (gb200-nvl72, the reference system of gb200); cluster.gpus_per_node 4, cluster.nvlink_domain 72 (gb200-nvl72, the reference system of gb200)"' -- predict -g gb200 -n 256 --format json
expect 0 '"assumed": "cluster.gpus_per_node 4, cluster.nvlink_domain 72 (gb200-nvl72' -- predict -g gb200 -n 256 --nic-gbps 100 --format json
out=$("$CLI" predict --format json 2>&1)
if [[ $out == *'"assumed"'* ]]; then echo "FAIL: the default scenario's JSON has an assumed member"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# step_s ARGS...: predict's step_s, its CSV column found by name
step_s() {
  "$CLI" predict "$@" --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "step_s") c = i }
                                             NR == 2 && c { print $c }'
}
# the rack's domain changes the step: tp 8 over two trays of 4 runs on NVLink
# inside the 72, not over the NIC as 8-GPU nodes with domain 4 would
t72=$(step_s -m gpt3-13b -g gb200 -n 16 --tp 8 --pp 1 --gb 64)
t4=$(step_s -m gpt3-13b -g gb200 -n 16 --tp 8 --pp 1 --gb 64 --set cluster.nvlink_domain=4)
if awk -v a="$t72" -v b="$t4" 'BEGIN { exit !(a > 0 && a < b) }'; then pass=$((pass + 1))
else echo "FAIL: step in the NVL72 domain $t72 s not below the 4-GPU domain one $t4 s"; fail=$((fail + 1)); fi
# validate --row prints the row's assumed text as the full table does
GB=data/validation/training/dgxc_benchmarking.csv
expect 0 '  assumed: embedding and loss counted as layers in the pipeline split; nic_Gbps 400 of gb200-nvl72 (not published)' -- validate --row dgxc-v2505-llama31-405b-gb200-bf16-128 "$GB"
expect 0 '  assumed: embedding and loss counted as layers in the pipeline split; nic_Gbps 400 of gb200-nvl72 (not published)' -- validate --engine event --row dgxc-v2505-llama31-405b-gb200-bf16-128 "$GB"
out=$("$CLI" validate --row dgxc-gpt3-175b-h100-bf16-128 "$GB" 2>&1)
if [[ $out == *'assumed:'* ]]; then echo "FAIL: a row with nothing assumed prints assumed:"; fail=$((fail + 1)); else pass=$((pass + 1)); fi

# the NIC changes the step: 16 H100 over two servers are faster at 400 Gb/s than 200
t400=$(step_s -m gpt3-13b -g h100-sxm5-80gb -n 16 --tp 8 --pp 1 --gb 64)
t200=$(step_s -m gpt3-13b -g h100-sxm5-80gb -n 16 --tp 8 --pp 1 --gb 64 --nic-gbps 200)
if awk -v a="$t400" -v b="$t200" 'BEGIN { exit !(a > 0 && a < b) }'; then pass=$((pass + 1))
else echo "FAIL: step at the reference NIC $t400 s not below the 200 Gb/s one $t200 s"; fail=$((fail + 1)); fi

# 3. a CNN has no attention: selective recomputation changes nothing, so its
# search lists no "selective" plan beside the identical "none" one; BERT keeps it
out=$("$CLI" search -m resnet50 -g v100-sxm2-16gb -n 8 --gb 256 --top 30 --threads 1 2>&1)
if [[ $out == *" selective "* || $out != *" none "* || $out != *" full "* ]]; then
  echo "FAIL: resnet50's search lists selective plans (or lacks none/full):"; echo "$out" | head -12
  fail=$((fail + 1))
else
  pass=$((pass + 1))
fi
expect 0 ' selective ' -- search -m bert_base -g v100-sxm2-16gb -n 8 --gb 256 --top 10 --threads 1
# the space shrinks by exactly the selective points: 1455 plans with them, 1220 without
expect 0 '1220 plans tried, 1220 valid' -- search -m resnet50 -g v100-sxm2-16gb -n 8 --gb 256 --top 1 --threads 1

# ... and its accuracy line quotes the class `stepcast dp` quotes for the same
# job (was "no published runs like this (Volta 16-bit CNN)" beside dp's rows)
J=(-m resnet50 -g v100-sxm2-16gb -n 8 --gb 256)
s_line=$("$CLI" search "${J[@]}" --top 1 --threads 1 2>&1 | tr -s ' \n' ' ' | grep -o 'MAPE [^;]*;')
d_line=$("$CLI" dp "${J[@]}" 2>&1 | tr -s ' \n' ' ' | grep -o 'accuracy, allreduce: MAPE [^;]*;')
if [[ -z $s_line || "accuracy, allreduce: $s_line" != "$d_line" ]]; then
  echo "FAIL: search and dp quote different classes: '$s_line' against '$d_line'"; fail=$((fail + 1))
else
  pass=$((pass + 1))
fi
expect 0 'published CNN allreduce one-server data-parallel runs' -- predict "${J[@]}"
expect 0 '"class": "BERT allreduce multi-server data-parallel", "n": ' -- predict -m bert_base -g v100-sxm2-16gb -n 16 --gb 256 --format json
expect 0 'published CNN none one-server data-parallel runs' -- predict -m resnet50 -g v100-sxm2-16gb -n 1 --gb 256
# where the plan is no data-parallel one (tp 2), no dp row applies
expect 0 'no published runs like this (Volta 16-bit BERT)' -- predict -m bert_base -g v100-sxm2-16gb -n 16 --gb 256 --tp 2

# 4. the README's MPI line runs with more processes than cores and says what
# root needs (tests/search_mpi.sh runs the line itself with an MPI build)
mpiline=$(grep -E '^mpirun ' README.md)
if [[ $mpiline == *"--oversubscribe"* && $mpiline == *"--allow-run-as-root"* ]] &&
   grep -q -- '--allow-run-as-root' docs/search.md; then
  pass=$((pass + 1))
else
  echo "FAIL: README's mpirun line lacks --oversubscribe or the root note: $mpiline"; fail=$((fail + 1))
fi

# 5. search fixes the inner dimensions it would sweep (--mb, --vpp,
# --recompute: each listed plan has the value, the counts are the smaller
# space's), says which one no plan can have (exit 1, the values valid
# there, as for a degree), and still refuses --schedule (it follows vpp)
# and --sp (on wherever tp > 1)
# plans_have JSON_ARGS -- PY_CONDITION: every plan `p` of `search ARGS
# --format json` meets the condition, and there are some
plans_have() {
  local cond=${*: -1} out
  out=$("$CLI" search "${@:1:$#-2}" --format json 2>&1)
  if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
ok = d["plans"] and all(eval(sys.argv[2], {"p": p["plan"], "s": p["searched"]}) for p in d["plans"])
sys.exit(0 if ok and d["tried"] == d["space"] else 1)' "$out" "$cond" 2>/dev/null; then
    pass=$((pass + 1))
  else
    echo "FAIL: search ${*:1:$#-2}: not every plan has $cond"; echo "$out" | head -5; fail=$((fail + 1))
  fi
}
plans_have $LLAMA --top 20 --threads 1 --mb 2 -- 'p["micro_batch"] == 2'
plans_have $LLAMA --top 20 --threads 1 --vpp 1 -- 'p["vpp"] == 1 and p["schedule"] == "1f1b"'
plans_have $LLAMA --top 20 --threads 1 --vpp 2 --all -- 'p["vpp"] == 2 and p["pp"] > 1'
plans_have $LLAMA --top 20 --threads 1 --recompute full -- 'p["recompute"] == "full" and s["recompute_layers"] == 0'
plans_have $LLAMA --top 20 --threads 1 --recompute partial -- 's["recompute_layers"] > 0'
plans_have $LLAMA --top 20 --threads 1 --recompute none,selective -- 'p["recompute"] in ("none", "selective")'
plans_have $LLAMA --top 5 --threads 1 --mb 1 --vpp 1 --recompute none -- 'p["micro_batch"] == 1 and p["vpp"] == 1 and p["recompute"] == "none"'
# the space is the constrained one: 372 of the 2442 plans recompute every layer
expect 0 '372 plans tried, 372 valid' -- search $LLAMA --top 1 --threads 1 --recompute full
expect 1 'micro_batch: 3 (--mb) divides no plan' -- search $LLAMA --mb 3
expect 1 'valid there (up to max_micro_batch 16): 1, 2, 4, 8, 16' -- search $LLAMA --mb 3
expect 1 'vpp: 2 (--vpp) fits no plan under the other constraints' -- search $LLAMA --vpp 2 --pp 1
expect 2 "--recompute: expected a comma-separated list of none, selective, full, partial, got 'block'" -- search $LLAMA --recompute block
expect 2 '--mb: expected an integer' -- search $LLAMA --mb 0
expect 2 '--schedule does not apply: the schedule follows vpp' -- search --schedule interleaved
expect 2 '--sp does not apply' -- search --sp true

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
