#!/usr/bin/env bash
# cli_recsys_opts.sh -- what `stepcast recsys` shares with the training
# commands: --set KEY=VALUE overrides (checked key paths, the same words as
# predict's), the NIC a multi-node job takes when it states none (said as
# assumed), and `plan --headroom` with the `tight` mark of a fit with less
# than the uncounted ~1 GiB free (docs/recsys.md). Usage:
# tests/cli_recsys_opts.sh PATH/TO/stepcast (from the source root).
set -u
CLI=${1:?usage: cli_recsys_opts.sh PATH/TO/stepcast}
. "$(dirname "$0")/e2e_lib.sh"
EX=examples/recsys
DLRM=$EX/dlrm_criteo_8gpu.json

# python3 FILE OUT EXPR: OUT = FILE's document d after EXPR
put() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $3; json.dump(d, open(sys.argv[2], 'w'))" "$1" "$2"; }
# check NAME PYTHON FILE: PYTHON asserts on the JSON document d of FILE
check() {
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$3"; then pass=$((pass + 1))
  else echo "FAIL: $1"; head -c 600 "$3" | sed 's/^/    /'; echo; fail=$((fail + 1)); fi
}

# ----------------------------------------------------------------- --set
# the overrides give the document the edited file gives, and change it
put $DLRM "$TMP/edited.json" 'd["cluster"].update(gpus=16, nic_Gbps=400); d["training"]["optimizer"] = "adagrad"'
a=$("$CLI" recsys predict "$TMP/edited.json" --format json 2>&1)
b=$("$CLI" recsys predict $DLRM --set cluster.gpus=16 --set cluster.nic_Gbps=400 \
      --set training.optimizer=adagrad --format json 2>&1)
c=$("$CLI" recsys predict $DLRM --format json 2>&1)
if [[ $a == '{"model": '*'"iter_s"'* && $a == "$b" && $a != "$c" ]]; then pass=$((pass + 1))
else echo "FAIL: --set is not the same as editing the file"; echo "$b" | head -c 300; echo; fail=$((fail + 1)); fi
expect 0 "sharding      26 row_wise" -- recsys predict $DLRM --set sharding=row_wise
# a section set whole goes first, the key inside it after (any order given)
expect 0 "batch 2048 (256 per GPU)" -- recsys predict $DLRM --set training.global_batch=2048 \
  --set 'training={"global_batch": 1024, "dtype": "amp"}'
expect 0 "8 x h100-sxm5-80gb" -- recsys plan $DLRM --top 1 --set cluster.gpu=h100-sxm5-80gb
# a bad key path names the valid keys, as predict's overrides do
expect 2 'override "cluster.gpuz=16": cluster.gpuz: unknown key; did you mean "gpu"? valid keys in cluster: gpu, gpus, gpus_per_node, nvlink_GBps, nic_Gbps, intra' \
  -- recsys predict $DLRM --set cluster.gpuz=16
expect 2 'override "clster.gpus=16": clster: unknown key; did you mean "cluster"? valid keys in the top level: model, cluster, training, sharding' \
  -- recsys plan $DLRM --set clster.gpus=16
expect 2 'training.batch: unknown key; valid keys in training: global_batch, dtype, optimizer' \
  -- recsys predict $DLRM --set training.batch=8
expect 2 'override "plan.tp=8": plan: unknown key' -- recsys predict $DLRM --set plan.tp=8
expect 2 'training.optimizer: expected sgd, adagrad, adam, adam_global or rowwise_adagrad (set by override' \
  -- recsys predict $DLRM --set training.optimizer=adagrad_rowwise
expect 2 'override "cluster.gpus.x=1": cluster.gpus takes a value, not keys below it' \
  -- recsys predict $DLRM --set cluster.gpus.x=1
expect 2 'override "sharding.kind=row_wise": sharding takes a value, not keys below it' \
  -- recsys predict $DLRM --set sharding.kind=row_wise
# a value the job refuses names the override that set it
expect 2 'dlrm_criteo_8gpu.json: cluster.gpus: expected a number >= 1, got string "abc" (set by override "cluster.gpus=abc")' \
  -- recsys predict $DLRM --set cluster.gpus=abc
expect 2 'sharding: expected data_parallel, table_wise' -- recsys predict $DLRM --set sharding=diagonal
expect 2 'recsys: --set expects KEY=VALUE, e.g. --set cluster.gpus=16' -- recsys predict $DLRM --set cluster.gpus
expect 2 'recsys: --set expects a value' -- recsys predict $DLRM --set
expect 2 'recsys row: --set edits a JOB.json' -- recsys row "$TMP/none.csv" 1 --set cluster.gpus=2
# the same words as predict's: 'stepcast CMD: override "TEXT": PATH: unknown key; did you mean ...'
p=$("$CLI" predict --set plan.tpp=8 2>&1)
r=$("$CLI" recsys predict $DLRM --set training.optimiser=sgd 2>&1)
if [[ $p == 'stepcast predict: override "plan.tpp=8": plan.tpp: unknown key; did you mean "tp"? valid keys in plan: '* &&
      $r == 'stepcast recsys: override "training.optimiser=sgd": training.optimiser: unknown key; did you mean "optimizer"? valid keys in training: '* ]]; then
  pass=$((pass + 1))
else echo "FAIL: override messages differ: '$p' / '$r'"; fail=$((fail + 1)); fi

# ------------------------------------------ the NIC of a multi-node job
put $DLRM "$TMP/nonic.json" 'd["cluster"] = {"gpu": "a100-sxm4-80gb", "gpus": 16, "gpus_per_node": 8}'
put $DLRM "$TMP/nic200.json" 'd["cluster"] = {"gpu": "a100-sxm4-80gb", "gpus": 16, "gpus_per_node": 8, "nic_Gbps": 200}'
expect 0 "assumed       cluster.nic_Gbps 200 of dgx-a100 (not given)" -- recsys predict "$TMP/nonic.json"
"$CLI" recsys predict "$TMP/nonic.json" --format json > "$TMP/nonic.out" 2>&1
"$CLI" recsys predict "$TMP/nic200.json" --format json > "$TMP/nic200.out" 2>&1
check "a job without nic_Gbps is the job with the reference system's, and says so" \
  'e = json.load(open(sys.argv[1].replace("nonic", "nic200"))); assert d["assumed"] == "cluster.nic_Gbps 200 of dgx-a100 (not given)" and e["assumed"] is None and d["iter_s"] == e["iter_s"] and d["breakdown"]["a2a_fwd_s"] > 0, (d["assumed"], d["iter_s"], e["iter_s"])' \
  "$TMP/nonic.out"
# H100: DGX H100's 400 Gb/s, the same as stating it
a=$("$CLI" recsys predict "$TMP/nonic.json" --set cluster.gpu=h100-sxm5-80gb 2>&1)
b=$("$CLI" recsys predict "$TMP/nonic.json" --set cluster.gpu=h100-sxm5-80gb --set cluster.nic_Gbps=400 2>&1)
if [[ $a == *"assumed       cluster.nic_Gbps 400 of dgx-h100 (not given)"* && $b != *assumed* &&
      $(grep '^iteration' <<<"$a") == "$(grep '^iteration' <<<"$b")" ]]; then pass=$((pass + 1))
else echo "FAIL: H100 job without nic_Gbps: not DGX H100's 400 Gb/s"; fail=$((fail + 1)); fi
# a GPU no cluster preset has: a training scenario's 200 Gb/s
expect 0 "assumed       cluster.nic_Gbps 200, a training scenario's (not given; no cluster preset has a30-pcie-24gb)" \
  -- recsys predict "$TMP/nonic.json" --set cluster.gpu=a30-pcie-24gb --sharding row_wise
# one node needs no NIC: nothing assumed; a NIC of 0 across nodes is still refused
out=$("$CLI" recsys predict $DLRM 2>&1)
[[ $out != *assumed* ]] && pass=$((pass + 1)) || { echo "FAIL: one node: a NIC assumed"; fail=$((fail + 1)); }
expect 2 "cluster.nic_Gbps (per GPU) must be > 0" -- recsys predict "$TMP/nonic.json" --set cluster.nic_Gbps=0

# --------------------------------------------------- --headroom and tight
put $EX/synthetic_jumbo_1gpu.json "$TMP/jumbo128.json" 'd["cluster"].update(gpus=128, gpus_per_node=8)'
# 79.64 of 80 GiB: fits, tight (the ~1 GiB of CUDA context and workspaces is not counted)
expect 0 "GiB: fits, tight (0.36 GiB free)" -- recsys predict "$TMP/jumbo128.json" --sharding table_wise+split
"$CLI" recsys predict "$TMP/jumbo128.json" --sharding table_wise+split --format json > "$TMP/tight.json" 2>&1
check "recsys JSON of a tight fit" \
  'm = d["memory"]; assert m["fits"] and m["tight"] and m["fits_confidence"] == "unmeasured" and m["headroom_bytes"] == 0 and m["capacity_bytes"] - m["max_bytes"] < 2**30, m' \
  "$TMP/tight.json"
expect 0 "2 column_wise  tight" -- recsys plan "$TMP/jumbo128.json" --top 1 --max-evals 2000
expect 0 "--headroom 1 keeps only plans clear of it" -- recsys plan "$TMP/jumbo128.json" --top 1 --max-evals 2000
# --headroom 1: the greedy seed and local search keep 1 GiB free
"$CLI" recsys plan "$TMP/jumbo128.json" --top 2 --max-evals 2000 --headroom 1 --format json > "$TMP/room1.json" 2>&1
check "recsys plan --headroom 1 on the Jumbo model, 128 GPUs" \
  'p = [x["prediction"]["memory"] for x in d["plans"]]; assert p and all(m["fits"] and not m["tight"] and abs(m["headroom_bytes"] - 2**30) < 1e4 and m["max_bytes"] <= m["capacity_bytes"] - 2**30 for m in p), p' \
  "$TMP/room1.json"
expect 0 "headroom: 1.00 GiB kept free on every GPU, a plan fits in 79.00 of its 80.00 GiB" \
  -- recsys plan "$TMP/jumbo128.json" --top 1 --max-evals 2000 --headroom 1
# GiB, a fraction or a percentage, as search --headroom reads them
for h in 4:4 0.05:4 5%:4; do
  "$CLI" recsys plan $EX/my_tables.json --top 3 --headroom "${h%%:*}" --format json > "$TMP/room.json" 2>&1
  check "recsys plan --headroom ${h%%:*}" \
    "g = ${h#*:} * 2**30; p = [x['prediction']['memory'] for x in d['plans']]; assert len(p) >= 2 and all(m['fits'] and abs(m['headroom_bytes'] - g) < 1e-5 * g and m['max_bytes'] <= m['capacity_bytes'] - g for m in p), p" \
    "$TMP/room.json"
done
expect 1 "DOES NOT FIT the headroom (8.00 GiB allowed)" -- recsys plan $EX/my_tables.json --top 1 --headroom 90%
expect 1 "none fits, those that need least memory" -- recsys plan $EX/my_tables.json --top 1 --headroom 72
# a bad value: search's words
s=$("$CLI" search --headroom 3x 2>&1)
r=$("$CLI" recsys plan $EX/my_tables.json --headroom 3x 2>&1)
if [[ $r == "stepcast recsys: ${s#stepcast search: }" && $r == *"expected GiB (4), a fraction (0.1) or a percentage (10%), got '3x'"* ]]; then
  pass=$((pass + 1))
else echo "FAIL: --headroom 3x: '$r' against search's '$s'"; fail=$((fail + 1)); fi
expect 2 "recsys: --headroom expects a value" -- recsys plan $EX/my_tables.json --headroom
# the planner's option: refused where the job gives its sharding, taken where predict plans
expect 2 "recsys predict: --headroom is memory the planner keeps free" -- recsys predict $EX/my_tables.json --headroom 4
expect 0 "4.00 GiB kept free" -- recsys predict $DLRM --set sharding=auto --headroom 4 --top 1

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
