#!/usr/bin/env bash
# cli_usage.sh -- the command line's own slips, as an ML-infrastructure
# engineer makes them (audit of session 37): every command words a bad
# --format the same way and names what it got; a key given twice with two
# values is used as the order says but not in silence; a flag's number
# with its unit glued on names the flag and its unit; a misspelt key of a
# recsys job file gets the suggestion its override gets; a degree error of
# the built-in default's plan says where the plan came from for ep too;
# a topology file's too; and the accuracy figures docs/output.md quotes
# are the binary's. Session 38: every reporting command has CSV (trace,
# recsys) and topo --list JSON; JSON says the headroom asked; the HTML
# names a modified GPU; the accuracy line says when a prediction is far
# outside its class's runs.
# Each line `expect CODE NEEDLE -- ARGS...` (tests/e2e_lib.sh).
# Usage: tests/cli_usage.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: cli_usage.sh PATH/TO/stepcast}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh"
cd "$ROOT" || exit 1
EX=examples
T0=$EX/traces/rank0.json
R=$EX/recsys/dlrm_criteo_8gpu.json

# --format: one message everywhere, naming the value (predict, presets, topo
# and validate said only "expects table, json or csv"; recsys "--format
# yaml: valid: table, json"; trace "--format: expected table or json, got")
for c in predict search dp validate collective presets "topo rail:nodes=2"; do
  # shellcheck disable=SC2086
  expect 2 "stepcast ${c%% *}: --format expects table, json or csv, got 'yaml'" -- $c --format yaml
done
expect 2 "stepcast predict: --format expects table, json or csv" -- predict --format
# (collective and recsys said "--format expects a value")
expect 2 "stepcast collective: --format expects table, json or csv" -- collective --format
expect 2 "stepcast recsys: --format expects table, json or csv" -- recsys predict $R --format
expect 2 "stepcast trace: --format expects table, json or csv, got 'yaml'" -- trace $T0 --format yaml
expect 2 "stepcast recsys: --format expects table, json or csv, got 'yaml'" -- recsys plan $R --format yaml
expect 2 "stepcast topo: --format expects table, json or csv, got 'yaml'" -- topo --list --format yaml
expect 2 "stepcast topo: --list takes only --format (it lists the generators), got --dot" -- topo --list --dot

# every command that reports has CSV (trace and recsys had none) and topo
# --list JSON (it had the table only): one table of rows as wide as the
# header, one JSON document
for c in "trace $T0" "trace $T0 --gpu h100-sxm5-80gb" "recsys predict $R" "recsys plan $R --top 3" \
         "recsys row ../shared/validation/recsys/mlperf_dlrm_v0.7-v2.1.csv mlperf-dlrm-001" \
         "topo --list"; do
  # shellcheck disable=SC2086
  if "$CLI" $c --format csv 2>/dev/null | python3 -c 'import csv, sys
rows = list(csv.reader(sys.stdin))
sys.exit(not (len(rows) > 1 and len({len(r) for r in rows}) == 1))'; then pass=$((pass + 1))
  else echo "FAIL: stepcast $c --format csv: not one table of even rows"; fail=$((fail + 1)); fi
done
expect 0 '{"key": "nic", "default": 400, "unit": "Gb/s"}' -- topo --list --format json
expect 0 ',26 table_wise,recsys multi-GPU training,' -- recsys predict $R --format csv
expect 0 '{"model": "DLRM (MLPerf Criteo 1TB)", "gpu": "a100-sxm4-80gb", "gpus": 8,' -- recsys predict $R --format json
expect 0 'whatif,1,' -- trace $T0 --nic 400 --format csv
expect 2 "stepcast recsys: unknown option '--html' (see stepcast recsys --help)" -- recsys predict $R --html x.html

# a key given twice with different values: the last, with a note on stderr
# (it was taken in silence); the same value twice is no slip
expect 0 "stepcast predict: note: plan.tp is given twice, --tp 4 then --set plan.tp=8: the last is used" -- predict --tp 4 --set plan.tp=8
expect 0 "plan      tp 8  pp 16" -- predict --tp 4 --set plan.tp=8
expect 0 "stepcast search: note: plan.global_batch is given twice, --gb 1024 then --gb 512" -- search -m llama3-70b -g h100-sxm5-80gb -n 64 --gb 1024 --gb 512 --top 1 --threads 1
expect 0 "stepcast dp: note: plan.dtype is given twice, --dtype fp16 then --dtype fp32" -- dp --dtype fp16 --dtype fp32
expect 0 "stepcast recsys: note: cluster.gpus is given twice, --set cluster.gpus=16 then --set cluster.gpus=8" -- recsys predict $R --set cluster.gpus=16 --set cluster.gpus=8
expect 0 "cluster       8 x a100-sxm4-80gb" -- recsys predict $R --set cluster.gpus=16 --set cluster.gpus=8
expect 0 "note: the sharding is given twice, --set sharding=table_wise then --sharding row_wise: --sharding is used" -- recsys predict $R --set sharding=table_wise --sharding row_wise
expect 2 'cluster.gpus: expected a number >= 1, got string "abc"' -- recsys predict $R --set cluster.gpus=abc
for args in "predict --tp 8 --tp 8.0" "predict -m llama3-70b --set model.seq=4096 --seq 4096 --tp 8 --pp 4"; do
  # shellcheck disable=SC2086
  out=$("$CLI" $args 2>&1 >/dev/null)
  if [[ $out == *"given twice"* ]]; then
    echo "FAIL: stepcast $args: the same value twice noted: $out"; fail=$((fail + 1))
  else pass=$((pass + 1)); fi
done

# an override value meant as JSON but broken: the parser's message and column
# (it became a string and "expected an array of override objects, got string")
expect 2 "override \"plan.overrides=[{\"layers\": [0, 3], \"recompute\": \"full\"]\": the value starts as a JSON array but is not valid JSON: '}' expected near ']' at column 40" -- predict --set 'plan.overrides=[{"layers": [0, 3], "recompute": "full"]'
expect 2 "the value starts as a JSON object but is not valid JSON: string or '}' expected near '}' at column 10" -- predict --set 'plan={"tp": 4,}'
expect 2 "the value starts as a JSON array but is not valid JSON" -- recsys predict $R --set 'model.top_mlp=[1024, 1'
expect 0 "model     [x]:" -- predict --set 'model.name="[x]"'

# --nic, as collective and trace name the NIC's Gb/s, on predict, search and dp too
expect 0 "NIC 100 Gb/s per GPU" -- predict --nic 100
expect 0 "note: cluster.nic_Gbps is given twice, --nic-gbps 200 then --nic 100" -- dp --nic-gbps 200 --nic 100

# a command misspelt, or predict's options without it
expect 2 "stepcast: unknown command 'pridict'; did you mean 'predict'?" -- pridict
expect 2 "stepcast: unknown command 'colective'; did you mean 'collective'?" -- colective --ranks 8
expect 2 "stepcast: unknown command '-m': options go after a command (\`stepcast predict -m ...\`" -- -m llama3-8b
expect 2 "stepcast: unknown command 'foo'" -- foo

# a number with its unit glued on: the flag and its unit ("not a number: '400Gbps'")
expect 2 "stepcast collective: --nic expects a number (Gb/s per GPU per direction, e.g. 400), got '400Gbps'" -- collective --nic 400Gbps
expect 2 "stepcast collective: --nvlink expects a number (GB/s per GPU per direction, e.g. 450), got '450GB/s'" -- collective --nvlink 450GB/s
expect 2 "stepcast collective: --factor expects a number (> 1, e.g. 2), got '2x'" -- collective --factor 2x

# a recsys job file's misspelt key: the suggestion an override of it gets
printf '{"model": {"kind": "synthetic", "tables": "4x1000x64@1", "top_mpl": [1]},\n "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8}}\n' > "$TMP/job.json"
expect 2 'job.json:1:69: model.top_mpl: unknown key; did you mean "top_mlp"? valid: kind, name' -- recsys predict "$TMP/job.json"
printf '{"model": {"kind": "synthetic", "tables": "4x1000x64@1", "top_mlp": [1]},\n "trainng": {}}\n' > "$TMP/job2.json"
expect 2 'trainng: unknown key; did you mean "training"? valid: model, cluster, training, sharding' -- recsys predict "$TMP/job2.json"

# a topology file's misspelt key: the closest valid one, as a scenario's gets
# (it listed the valid keys only)
sed '0,/"bw_GBps"/s/"bw_GBps"/"bw_Gbps"/' $EX/topologies/two_dgx_a100.json > "$TMP/topo.json"
expect 2 'topo.json:149:15: links[0].bw_Gbps: unknown key; did you mean "bw_GBps"? (valid: from to bw_GBps lat_us duplex)' -- topo "$TMP/topo.json"
sed 's/"nodes"/"node"/' $EX/topologies/two_dgx_a100.json > "$TMP/topo2.json"
expect 2 'node: unknown key; did you mean "nodes"?' -- predict --set cluster.topology="$TMP/topo2.json"

# the default's plan behind an expert-parallel error (Mixtral 8x22B, 256
# H100, --ep 8 alone: "must divide ... dp*cp 2" came with no word of the
# default's tp 8 x pp 16)
expect 2 "note: without a scenario file the plan is the built-in default's (gpt3-175b on 1024 GPUs: tp 8, pp 16)" -- predict -m mixtral-8x22b -g h100-sxm5-80gb -n 256 --ep 8
expect 2 "note: without a scenario file the plan is the built-in default's" -- predict -m mixtral-8x7b -n 64 --cp 2

# byte counts whole in JSON and CSV (80 GiB was 8.58993e+10, 45,920 bytes off)
expect 0 '"capacity": 85899345920, "headroom": 0}' -- predict --format json
expect 0 '"capacity": 85899345920, "headroom": 8589934592}' -- predict --headroom 10% --format json
expect 0 '"headroom_bytes": 3435973837, ' -- dp --headroom 10% --format json
expect 0 '"capacity": 85899345920, "headroom": 4294967296}' -- search -m llama3-8b -g h100-sxm5-80gb -n 8 --gb 64 --top 1 --threads 1 --headroom 4 --format json
expect 0 ',85899345920,0,1,0,' -- predict --format csv
expect 0 '"params": 174604259328,' -- predict --format json
expect 0 '"capacity_bytes": 85899345920,' -- recsys predict $R --format json
expect 0 '"grad_bytes": 51114064,' -- dp --format json
if "$CLI" search -m llama3-8b -g h100-sxm5-80gb -n 8 --gb 64 --top 3 --threads 1 --format csv |
   awk -F, 'NR > 1 && $15 !~ /^[0-9]+$/ {bad = 1} END {exit !bad}'; then
  echo "FAIL: search --format csv: memory_bytes not a whole number"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

# a GPU changed by an override: the HTML says so as the table and JSON do
expect 0 "1024 x a100-sxm4-80gb (modified: hbm_GiB)</td>" -- predict --set cluster.gpu.hbm_GiB=40 --html -
expect 0 "<title>stepcast search: gpt3-175b on 1024 x a100-sxm4-80gb (modified: hbm_GiB)" -- search --set cluster.gpu.hbm_GiB=40 --top 1 --threads 1 --no-rerank --html -

# far outside the class's runs: said under the figures, in JSON and CSV
# (the line quoted the figures whatever the scale)
expect 0 "outside the validated range: seq 1048576 tokens (its runs: 1024 to 2048)" -- predict --set model.seq=1048576
expect 0 '"outside_range": ["seq 1048576 tokens (its runs: 1024 to 2048)"]' -- predict --set model.seq=1048576 --format json
expect 0 ',seq 1048576 tokens (its runs: 1024 to 2048)' -- predict --set model.seq=1048576 --format csv
expect 0 '"outside_range": []' -- predict --format json
expect 0 "# outside the validated range: 4096 GPUs (its runs: 16 to 32)" -- collective --ranks 4096 --ppn 8
if "$CLI" predict | grep -q "outside the validated range"; then
  echo "FAIL: predict: the default scenario told outside the range"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

# dp ranks gossip and async schemes by their step: it says what that leaves out
expect 0 "note: gossip schemes average models with neighbours and async schemes apply stale updates:" -- dp examples/dp/resnet50-16-v100-25gbe.json
if "$CLI" dp -n 1 --gb 64 | grep -q "note: gossip"; then
  echo "FAIL: dp: the gossip note under a table without gossip schemes"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

# docs/output.md quotes these accuracy figures; they are the binary's
acc=$("$CLI" predict -m resnet50 -g v100-sxm2-16gb -n 8 --gb 256 | grep -o 'MAPE [0-9.]* % on [0-9]* published')
doc=$(tr '\n' ' ' < docs/output.md | grep -o '`predict -m resnet50 -g v100-sxm2-16gb -n 8 --gb 256` reads `MAPE *[0-9.]* % on [0-9]* published' |
      sed 's/.*`MAPE */MAPE /')
[[ -n $acc && $acc == "$doc" ]] && pass=$((pass + 1)) || { echo "FAIL: docs/output.md quotes '$doc', predict prints '$acc'"; fail=$((fail + 1)); }
got=$("$CLI" predict $EX/llama3-70b-512-h100.json --format json |
      python3 -c 'import json,sys; a=json.load(sys.stdin)["accuracy"]; print(a["mape"], a["signed"], a["worst"])')
doc=$(tr '\n' ' ' < docs/output.md | grep -o '"Hopper 16-bit Megatron-style multi-server", "n": 40, "mape": *[-0-9.]*, "signed": [-0-9.]*, "worst": [-0-9.]*' |
      sed -E 's/.*"mape": *([-0-9.]*), "signed": ([-0-9.]*), "worst": ([-0-9.]*)/\1 \2 \3/')
[[ -n $got && $got == "$doc" ]] && pass=$((pass + 1)) || { echo "FAIL: docs/output.md's accuracy JSON '$doc', predict's '$got'"; fail=$((fail + 1)); }

# ... and the sum of recsys predict's lines against its iteration
sum=$("$CLI" recsys predict $R | awk '/^iteration/ {it=$2} /^  [a-z]/ && / ms/ {
  for (i = 1; i <= NF; i++) if ($(i+1) == "ms" && $i ~ /^[0-9.]+$/ && $(i-1) != "exposed") s += $i }
  END {printf "%.3f ms against %.3f", s, it}')
doc=$(tr '\n' ' ' < docs/output.md | grep -o '[0-9.]* ms against [0-9.]* for *`examples/recsys/dlrm_criteo_8gpu.json`' | sed 's/ for.*//')
[[ -n $doc && $sum == "$doc" ]] && pass=$((pass + 1)) || { echo "FAIL: docs/output.md says '$doc' for dlrm_criteo_8gpu, recsys predict gives '$sum'"; fail=$((fail + 1)); }

echo "cli_usage: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
