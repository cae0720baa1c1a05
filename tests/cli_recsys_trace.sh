#!/usr/bin/env bash
# cli_recsys_trace.sh -- `stepcast recsys predict JOB.json --trace FILE`:
# the file is Chrome trace JSON (every event has ph and pid; every span
# ph/ts/dur/pid/tid; metadata ts/pid/tid), no negative durations, no two
# spans overlapping on one lane, the last span ends at `--format json`'s
# iter_s within 1 us, one process per GPU (the cap: 64, the slowest GPU
# among them), and '-' writes the trace in place of the report. Usage:
# tests/cli_recsys_trace.sh PATH/TO/stepcast (from the source root).
set -u
CLI=${1:?usage: cli_recsys_trace.sh PATH/TO/stepcast}
. "$(dirname "$0")/e2e_lib.sh"
EX=examples/recsys

# check JOB [PREDICT ARGS...]: the trace of JOB against its JSON prediction
check() {
  local job=$1
  shift
  local what="recsys predict $job $* --trace"
  # exit 1: predicted, but the plan does not fit in memory
  "$CLI" recsys predict "$job" "$@" --trace "$TMP/t.json" > "$TMP/report.txt" 2>&1
  local rc1=$?
  "$CLI" recsys predict "$job" "$@" --format json > "$TMP/p.json" 2>&1
  local rc2=$?
  if [[ $rc1 -gt 1 || $rc2 -gt 1 ]]; then
    echo "FAIL: $what: stepcast failed"; head -3 "$TMP/report.txt" | sed 's/^/    /'
    fail=$((fail + 1))
    return
  fi
  if msg=$(python3 - "$TMP/t.json" "$TMP/p.json" 2>&1 <<'EOF'
import json, math, sys
t = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
ev = t["traceEvents"]
spans = [e for e in ev if e.get("ph") == "X"]
meta = [e for e in ev if e.get("ph") == "M"]
assert len(spans) + len(meta) == len(ev), "events other than X and M"
for e in spans:
    for k in ("ph", "ts", "dur", "pid", "tid", "name"):
        assert k in e, "span without %s: %r" % (k, e)
    assert e["dur"] >= 0 and e["ts"] >= 0, "negative time: %r" % e
for e in meta:
    for k in ("ph", "ts", "pid", "tid", "args"):
        assert k in e, "metadata without %s: %r" % (k, e)
end = max(e["ts"] + e["dur"] for e in spans)
iter_us = p["iter_s"] * 1e6
# the report prints iter_s to 6 significant digits (%g): half a unit of the
# last one, or 1 us, whichever is larger
tol = max(1.0, 0.5 * 10 ** (math.floor(math.log10(iter_us)) - 5))
assert abs(end - iter_us) <= tol, "last end %.3f us != iter_s %.3f us" % (end, iter_us)
gpus = t["otherData"]["gpus"]
pids = sorted({e["pid"] for e in spans})
names = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
assert sorted(names) == pids, "processes %r, spans on %r" % (sorted(names), pids)
want = min(gpus, 64)
assert len(pids) == want, "%d processes for %d GPUs" % (len(pids), gpus)
slow = t["otherData"]["slowest_gpu"]
assert slow in pids and "slowest" in names[slow], "slowest GPU %d not shown" % slow
# one lane never runs two spans at once
lanes = {}
for e in spans:
    lanes.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
for k, v in lanes.items():
    v.sort()
    for a, b in zip(v, v[1:]):
        assert b[0] >= a[1] - 1e-3, "lane %r: %s overlaps %s" % (k, a[2], b[2])
# the slowest GPU's spans tile its iteration: the breakdown's own phases
emb = [e for e in spans if e["pid"] == slow and e["tid"] == 1]
assert emb and all(e["args"]["beyond_path_s"] == 0 for e in emb), "slowest GPU clipped"
EOF
  ); then
    pass=$((pass + 1))
  else
    echo "FAIL: $what: $msg"
    fail=$((fail + 1))
  fi
}

check $EX/dlrm_criteo_8gpu.json
check $EX/dlrm_criteo_8gpu.json --sharding row_wise
check $EX/dlrm_criteo_8gpu.json --sharding column_wise
check $EX/dlrm_criteo_8gpu.json --sharding data_parallel
check $EX/my_tables.json
check $EX/synthetic_jumbo_1gpu.json --sharding table_wise+split

# NVIDIA's PyTorch DLRM (bottom MLP on GPU 0), an eager framework with a
# data reader and Horovod's cycle on 128 GPUs (the 64-process cap)
python3 - "$EX/dlrm_criteo_8gpu.json" "$TMP" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["training"]["bottom_mlp_on_gpu0"] = True
json.dump(j, open(sys.argv[2] + "/gpu0.json", "w"))
j["training"].update({"bottom_mlp_on_gpu0": False, "eager": True, "collective_cycle_ms": 1,
                      "reader_ms_per_batch": 30})
j["cluster"].update({"gpus": 128, "nic_Gbps": 200})
json.dump(j, open(sys.argv[2] + "/big.json", "w"))
EOF
# the slowest GPU beyond the cap: my_tables on 128 GPUs, history on 100-103
python3 - "$EX/my_tables.json" "$TMP" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["cluster"]["gpus"] = 128
for s in j["sharding"]:
    if s["table"] == "history": s["gpu"] = 100
    if s["table"] == "item_id": s["node"] = 3
json.dump(j, open(sys.argv[2] + "/far.json", "w"))
EOF
expect 0 '"slowest_gpu": 100' -- recsys predict "$TMP/far.json" --trace -
check "$TMP/far.json"
check "$TMP/gpu0.json"
check "$TMP/big.json" --sharding row_wise
check "$TMP/big.json" --sharding table_wise
# table_row_wise alone: its partial sums are reduce-scattered within a node
for kg in table_row_wise:8 row_wise:128; do
  line=$("$CLI" recsys predict "$TMP/big.json" --sharding "${kg%:*}" --trace - 2>/dev/null |
         grep -m1 '"row-wise reduce-scatter"')
  if [[ $line == *"\"gpus\": ${kg#*:}}"* ]]; then pass=$((pass + 1)); else
    echo "FAIL: --sharding ${kg%:*}: reduce-scatter not over ${kg#*:} GPUs: $line"; fail=$((fail + 1)); fi
done

# '-': the trace alone on standard output, the same document as a file
"$CLI" recsys predict $EX/dlrm_criteo_8gpu.json --trace - > "$TMP/stdout.json" 2>&1
"$CLI" recsys predict $EX/dlrm_criteo_8gpu.json --trace "$TMP/file.json" > /dev/null 2>&1
if cmp -s "$TMP/stdout.json" "$TMP/file.json"; then pass=$((pass + 1)); else
  echo "FAIL: recsys predict --trace - differs from --trace FILE"; fail=$((fail + 1)); fi
expect 0 '"table_wise": ["t0", "t12", "t23"]' -- recsys predict $EX/dlrm_criteo_8gpu.json --trace -
expect 0 '"name": "dense all-reduce"' -- recsys predict $EX/dlrm_criteo_8gpu.json --trace -
expect 1 '"traceEvents"' -- recsys predict $EX/synthetic_jumbo_1gpu.json --trace -
# exit 1 with the report left out: stderr says why, stdout is the trace alone
for sub in predict plan; do
  "$CLI" recsys $sub $EX/synthetic_jumbo_1gpu.json --trace - > "$TMP/o.json" 2> "$TMP/e.txt"
  rc=$?
  if [[ $rc -eq 1 ]] && grep -q "fit" "$TMP/e.txt" && python3 -m json.tool "$TMP/o.json" > /dev/null
  then pass=$((pass + 1)); else
    echo "FAIL: recsys $sub jumbo --trace -: exit $rc, stderr: $(head -c 200 "$TMP/e.txt")"
    fail=$((fail + 1)); fi
done
expect 2 "--trace expects a value" -- recsys predict $EX/dlrm_criteo_8gpu.json --trace
# `recsys plan --trace`: the iteration of the planner's best plan (rank 1)
expect 0 '"traceEvents"' -- recsys plan $EX/dlrm_criteo_8gpu.json --top 2 --trace -
"$CLI" recsys plan $EX/dlrm_criteo_8gpu.json --top 2 --trace "$TMP/plan.json" > /dev/null 2>&1
"$CLI" recsys plan $EX/dlrm_criteo_8gpu.json --top 2 --format json > "$TMP/plans.json" 2>&1
if msg=$(python3 - "$TMP/plan.json" "$TMP/plans.json" 2>&1 <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1]))
best = json.load(open(sys.argv[2]))["plans"][0]["prediction"]["iter_s"]
end = max(e["ts"] + e["dur"] for e in t["traceEvents"] if e.get("ph") == "X")
assert abs(end - best * 1e6) <= 1.0, "plan trace ends at %.3f us, best plan's iter_s %.3f us" % (end, best * 1e6)
EOF2
); then pass=$((pass + 1)); else echo "FAIL: recsys plan --trace: $msg"; fail=$((fail + 1)); fi
expect 2 "--trace writes a job's iteration" -- recsys row ../shared/validation/recsys/mlperf_dlrm_v0.7-v2.1.csv mlperf-dlrm-001 --trace -
expect 3 "cannot write" -- recsys predict $EX/dlrm_criteo_8gpu.json --trace /nonexistent/t.json

echo "cli_recsys_trace: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
