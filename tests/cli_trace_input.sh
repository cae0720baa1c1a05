#!/usr/bin/env bash
# stepcast trace on malformed and edge-case inputs, and its outputs
# checked against what the trace itself says (QA round qa26,
# docs/trace.md): bad input exits 2 naming the file and key path, a what-if
# past the NCCL model's ranks is refused, "collectives per step" counts
# the collectives within the ProfilerSteps, a Chakra ET's GPU busy time is
# its GPU nodes', overlaps on one stream are warned about, Perfetto output
# has what Perfetto needs. Needs ../shared (fails loudly without it).
CLI=${1:?usage: cli_trace_input.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
T=../shared/traces
Q16=$T/hta/negative_queue_length_values_check/rank0.json.gz
ASTRA=$T/astra_sim_microbench_allreduce_8npus_1MB
need_shared "$Q16"
need_shared "$ASTRA/all_reduce.0.et"

# A one-rank trace: one step, two kernels of 100 us on stream 7.
mk() { # mk FILE DISTINFO K2TS: the second kernel starts at K2TS
  cat > "$1" <<J
{"deviceProperties": [{"name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0}],
 "distributedInfo": $2,
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 1000, "pid": 1, "tid": 1},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10, "dur": 5, "pid": 1, "tid": 1, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 20, "dur": 100, "pid": 0, "tid": 7, "args": {"correlation": 1, "stream": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 30, "dur": 5, "pid": 1, "tid": 1, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "ts": $3, "dur": 100, "pid": 0, "tid": 7, "args": {"correlation": 2, "stream": 7}}]}
J
}
mk "$TMP/ok.json" '{"rank": 0, "world_size": 2}' 130
mk "$TMP/ok1.json" '{"rank": 1, "world_size": 2}' 130
mk "$TMP/twin.json" '{"rank": 0, "world_size": 2}' 130
mk "$TMP/rank_neg.json" '{"rank": -3, "world_size": 2}' 130
mk "$TMP/rank_big.json" '{"rank": 5, "world_size": 2}' 130
mk "$TMP/world_frac.json" '{"rank": 0, "world_size": 2.5}' 130
mk "$TMP/overlap.json" '{"rank": 0, "world_size": 1}' 50
mk "$TMP/w4r0.json" '{"rank": 0, "world_size": 4}' 130
mk "$TMP/w4r1.json" '{"rank": 1, "world_size": 4}' 130

expect 0 "step (mean)" -- trace "$TMP/ok.json"
expect 2 "gpu: unknown GPU preset 'h100'; did you mean \"h100-sxm5-80gb\"?" -- trace "$TMP/ok.json" --gpu h100
expect 0 "2 ranks" -- trace "$TMP/ok.json" "$TMP/ok1.json"
# a rank outside the world, or two files of one rank, would be joined wrongly
expect 2 "rank_neg.json: distributedInfo.rank: expected a whole number in 0..1" -- trace "$TMP/rank_neg.json"
expect 2 "rank_big.json: distributedInfo.rank: expected a whole number in 0..1" -- trace "$TMP/rank_big.json"
expect 2 "world_frac.json: distributedInfo.world_size: expected a whole number" -- trace "$TMP/world_frac.json"
expect 2 "twin.json: distributedInfo.rank 0 is also that of" -- trace "$TMP/ok.json" "$TMP/twin.json"
# some ranks of a larger job: joined over those only, said
expect 0 "2 of the job's 4 ranks (distributedInfo.world_size) given" -- trace "$TMP/w4r0.json" "$TMP/w4r1.json"
out=$("$CLI" trace "$TMP/ok.json" "$TMP/ok1.json" 2>&1)
if [[ $out == *"ranks (distributedInfo.world_size) given"* ]]; then
  echo "FAIL: a whole world warns that ranks are missing"; fail=$((fail + 1))
else pass=$((pass + 1)); fi
# the replay serialises a stream: an overlap the trace shows is said
expect 0 "overlap.json: 1 GPU operations start up to 70 us before the one before them" -- trace "$TMP/overlap.json"
out=$("$CLI" trace "$TMP/ok.json" 2>&1)
if [[ $out == *"before the one before them"* ]]; then
  echo "FAIL: a trace without overlaps warns about them"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

# a collective over one rank has no modelled time as traced to scale:
# kept as measured, and counted so (it was in neither count)
sed 's/"Group size": 8/"Group size": 1/' "$(dirname "$0")/data/trace/synth_1rank.json" > "$TMP/group1.json"
expect 0 "0 collectives re-timed by the network model, 1 kept as measured (0 without a message size)" \
  -- trace "$TMP/group1.json" --nic 400 --ppn 1

# malformed files: exit 2, the file and where
printf '' > "$TMP/empty.json"
head -c 700 "$TMP/ok.json" > "$TMP/trunc.json"
echo '[1, 2]' > "$TMP/array.json"
echo '{"traceEvents": {}}' > "$TMP/tev_obj.json"
expect 2 "empty.json:1:1: invalid JSON" -- trace "$TMP/empty.json"
expect 2 "trunc.json:" -- trace "$TMP/trunc.json"
# a file cut short says so; a syntax error inside the text does not
head -c 702 "$TMP/ok.json" | sed '$ s/[^{]*$//' > "$TMP/cut.json"
expect 2 "but the text ends there (a truncated file?)" -- trace "$TMP/cut.json"
head -c 590 "$TMP/ok.json" > "$TMP/cutstr.json"
expect 2 "end of a string ('\"'), but the text ends there (a truncated file?)" -- trace "$TMP/cutstr.json"
out=$("$CLI" trace "$TMP/tev_obj.json" 2>&1)
if [[ $out == *"truncated"* ]]; then
  echo "FAIL: a syntax error inside the text is called a truncation: $out"; fail=$((fail + 1))
else pass=$((pass + 1)); fi
expect 2 "array.json: traceEvents[0]: expected an object (one trace event)" -- trace "$TMP/array.json"
expect 2 "tev_obj.json:1:17: invalid JSON: expected '['" -- trace "$TMP/tev_obj.json"
echo '{"nodes": 5, "schema": "1.0.1"}' > "$TMP/nodes_num.json"
expect 2 "nodes_num.json: nodes: expected an array of operator nodes" -- trace "$TMP/nodes_num.json"
sed 's/"dur": 100, "pid": 0, "tid": 7, "args": {"correlation": 1/"dur": -100, "pid": 0, "tid": 7, "args": {"correlation": 1/' \
  "$TMP/ok.json" > "$TMP/negdur.json"
expect 2 "negdur.json: traceEvents[2].dur: expected 0 or a number" -- trace "$TMP/negdur.json"
sed 's/"ts": 20,/"ts": 1e30,/' "$TMP/ok.json" > "$TMP/hugets.json"
expect 2 "hugets.json: traceEvents[2].ts: expected a number of microseconds" -- trace "$TMP/hugets.json"

# a complete event without dur says so (not "out of range"); ts and dur
# given as strings are refused, not read as numbers
sed 's/"dur": 100, "pid": 0, "tid": 7, "args": {"correlation": 1/"pid": 0, "tid": 7, "args": {"correlation": 1/' \
  "$TMP/ok.json" > "$TMP/nodur.json"
expect 2 "nodur.json: traceEvents[2].dur: missing (a complete event" -- trace "$TMP/nodur.json"
sed 's/"dur": 100, "pid": 0, "tid": 7, "args": {"correlation": 1/"dur": "100", "pid": 0, "tid": 7, "args": {"correlation": 1/' \
  "$TMP/ok.json" > "$TMP/strdur.json"
expect 2 "strdur.json: traceEvents[2].dur: expected a number of microseconds, not a string" -- trace "$TMP/strdur.json"
sed 's/"ts": 10,/"ts": "10",/' "$TMP/ok.json" > "$TMP/strts.json"
expect 2 "strts.json: traceEvents[1].ts: expected a number of microseconds, not a string" -- trace "$TMP/strts.json"
# two host calls with one correlation id (two processes' traces merged):
# the kernel would be joined with the wrong launch; refused naming both.
# Kernels sharing one id (a cudaGraphLaunch's) are accepted.
sed 's/"args": {"correlation": 2}/"args": {"correlation": 1}/' "$TMP/ok.json" > "$TMP/dupcorr.json"
expect 2 "dupcorr.json: traceEvents[3].args.correlation: 1 is also that of traceEvents[1]" -- trace "$TMP/dupcorr.json"
sed 's/"correlation": 2, "stream": 7/"correlation": 1, "stream": 7/' "$TMP/ok.json" > "$TMP/graphcorr.json"
expect 0 "step (mean)" -- trace "$TMP/graphcorr.json"
# files of one job agree on its size: two world_size are two jobs
expect 2 "w4r1.json: distributedInfo.world_size 4 differs from $TMP/ok.json's 2" -- trace "$TMP/ok.json" "$TMP/w4r1.json"
# --export-graph of a trace that gives a rank without world_size (HTA's
# execution_trace benchmark) or world_size without a rank reads back: the
# export writes only what the trace gave (it wrote "world_size": 0 and
# "rank": -1, which the loader refuses)
mk "$TMP/ronly.json" '{"rank": 0}' 130
mk "$TMP/wonly.json" '{"world_size": 1}' 130
for f in ronly wonly; do
  expect 0 "step (mean)" -- trace "$TMP/$f.json" --export-graph "$TMP/$f-graph.json"
  expect 0 "step (mean)" -- trace "$TMP/$f-graph.json"
done

# a data-parallel scale past the NCCL model's 2^24 ranks: refused, not
# silently left as traced (the rank count overflowed an int)
expect 2 "expected at most 2097152" -- trace "$ASTRA"/all_reduce.*.et --dp-scale 1e7
expect 0 "data-parallel x1e+06" -- trace "$ASTRA"/all_reduce.*.et --dp-scale 1e6
python3 - "$TMP/ok.json" "$TMP/group50m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"].append({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
    "ts": 300, "dur": 100, "pid": 0, "tid": 7, "args": {"stream": 7, "Collective name": "allreduce",
    "In msg nelems": 1000, "Out msg nelems": 1000, "dtype": "Float", "Group size": 50000000}})
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "step (mean)" -- trace "$TMP/group50m.json"
expect 2 "expected a scale of at most 0.33" -- trace "$TMP/group50m.json" --dp-scale 2
# a scale that leaves part of a rank was rounded in silence (x0.3 of 2
# ranks ran over 1 and was said to be x0.3): refused with the nearby ones
expect 2 "dp_scale: 0.3 times the traced group of 2 ranks is 0.6 ranks; expected a scale that gives whole ranks, a multiple of 1/2 (nearby: 0.5 or 1)" -- trace examples/traces/rank0.json examples/traces/rank1.json --dp-scale 0.3
expect 2 "(nearby: 1 or 1.5)" -- trace examples/traces/rank0.json examples/traces/rank1.json --dp-scale 1.3
expect 0 "data-parallel x1.5" -- trace examples/traces/rank0.json examples/traces/rank1.json --dp-scale 1.5

# "collectives per step": the NCCL kernels within the ProfilerSteps (the
# 16-rank trace has 5 more after its last step), from the trace itself
json=$("$CLI" trace "$Q16" --format json 2>/dev/null)
if python3 - "$Q16" "$json" <<'PY'; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
import gzip, json, sys
ev = [e for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
st = [e for e in ev if e["name"].startswith("ProfilerStep#")]
lo, hi = min(s["ts"] for s in st), max(s["ts"] + s["dur"] for s in st)
nccl = [e for e in ev if e.get("cat") == "kernel" and "nccl" in e["name"].lower()]
want = sum(e["dur"] for e in nccl if lo <= e["ts"] < hi) / len(st) * 1e-6
every = sum(e["dur"] for e in nccl) / len(st) * 1e-6
got = json.loads(sys.argv[2])["jobs"][0]["replay"]["comm_measured_s"]
ok = abs(got - want) <= 1e-4 * want and abs(every - want) > 1e-3  # the test can fail
print(("" if ok else "FAIL: ") + f"comm per step {got:.6f} s, trace says {want:.6f} (all: {every:.6f})")
sys.exit(0 if ok else 1)
PY

# collectives without a traced duration (ASTRA-sim): nothing measured, "-"
out=$("$CLI" trace "$ASTRA"/all_reduce.*.et 2>&1)
if [[ $out =~ collectives\ per\ step\ +-\ +0\.066\ ms ]]; then pass=$((pass + 1)); else
  echo "FAIL: ASTRA-sim collectives show a measured time"; fail=$((fail + 1)); fi
# the header counts a Chakra ET's nodes: communication = collective + send/recv
expect 0 "Chakra ET: 8 ranks, 0 compute nodes (0 GPU, 0 CPU), 8 communication nodes (8 collective, 0 send/recv)" \
  -- trace "$ASTRA"/all_reduce.*.et
expect 2 "all_reduce.0.et: a Chakra ET names neither its device nor its kernels" -- trace "$ASTRA/all_reduce.0.et" --gpu h100-sxm5-80gb
# a Chakra ET's GPU busy time: its GPU nodes' (here the one collective)
json=$("$CLI" trace "$ASTRA"/all_reduce.*.et --format json 2>/dev/null)
if python3 - "$json" <<'PY'; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
import json, sys
r = json.loads(sys.argv[1])["jobs"][0]["replay"]
ok = r["gpu_busy_s"] > 0 and abs(r["gpu_busy_s"] - r["comm_predicted_s"]) <= 1e-12
print(("" if ok else "FAIL: ") + f"Chakra GPU busy {r['gpu_busy_s']} s, collective {r['comm_predicted_s']} s")
sys.exit(0 if ok else 1)
PY

# Perfetto/Chrome output: valid JSON, ph/ts/pid/tid on every event,
# dur >= 0 on complete events; trace (what-if too), predict
chrome_ok() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
bad = [e for e in ev if "ph" not in e or "pid" not in e or
       (e["ph"] != "M" and ("ts" not in e or "tid" not in e or "name" not in e)) or
       (e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0))]
ok = len(ev) > 1 and not bad
print(("" if ok else "FAIL: ") + f"{sys.argv[1]}: {len(ev)} events, {len(bad)} bad {bad[:2]}")
sys.exit(0 if ok else 1)
PY
}
for args in "$Q16 --dp-scale 2" "$TMP/ok.json $TMP/ok1.json --no-overlap" "$ASTRA/all_reduce.0.et"; do
  # shellcheck disable=SC2086
  "$CLI" trace $args --perfetto "$TMP/p.json" > /dev/null 2>&1
  if chrome_ok "$TMP/p.json"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
for ex in examples/*.json examples/dp/*.json; do
  "$CLI" predict "$ex" --trace "$TMP/p.json" > /dev/null 2>&1
  if chrome_ok "$TMP/p.json" > /dev/null; then pass=$((pass + 1)); else
    echo "FAIL: predict $ex --trace"; fail=$((fail + 1)); fi
done

echo "cli_trace_input: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
