#!/usr/bin/env bash
# cli_e2e_recsys.sh -- end-to-end checks of `stepcast recsys`: exit codes,
# the fits verdict, JSON output, and error messages that name the table
# and what would be valid. Usage: tests/cli_e2e_recsys.sh PATH/TO/stepcast
# (from the source root). The `row` checks need ../shared and fail loudly
# without it.
set -u
CLI=${1:?usage: cli_e2e_recsys.sh PATH/TO/stepcast}
. "$(dirname "$0")/e2e_lib.sh"
EX=examples/recsys

# ------------------------------------------------------------- predict
expect 0 "iteration" -- recsys predict $EX/dlrm_criteo_8gpu.json
expect 0 ": fits" -- recsys predict $EX/dlrm_criteo_8gpu.json
expect 0 "26 row_wise" -- recsys predict $EX/dlrm_criteo_8gpu.json --sharding row_wise
expect 0 "table_row_wise" -- recsys predict $EX/my_tables.json
# 3.1 TiB on one GPU: does not fit, with the numbers (exit 1)
expect 1 "DOES NOT FIT" -- recsys predict $EX/synthetic_jumbo_1gpu.json
expect 1 "3109.46 GiB embeddings" -- recsys predict $EX/synthetic_jumbo_1gpu.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cluster"].update(gpus=128, gpus_per_node=8, nic_Gbps=200); json.dump(d, open(sys.argv[2], "w"))' \
  $EX/synthetic_jumbo_1gpu.json "$TMP/jumbo128.json"
expect 0 ": fits" -- recsys predict "$TMP/jumbo128.json" --sharding table_wise+split
# 79.6 of 80 GiB is within the LLM memory band, which does not apply here
# (docs/recsys.md): a plain "fits", JSON's fits_confidence "unmeasured" (it is marked
# "tight" instead: under 1 GiB free, tests/cli_recsys_opts.sh)
out=$("$CLI" recsys predict "$TMP/jumbo128.json" --sharding table_wise+split 2>&1)
[[ $out != *marginal* ]] && pass=$((pass + 1)) || { echo "FAIL: recsys text calls a verdict marginal"; fail=$((fail + 1)); }
"$CLI" recsys predict "$TMP/jumbo128.json" --sharding table_wise+split --format json > "$TMP/j.json" 2>&1
if python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["memory"]; assert m["fits"] and m["fits_confidence"] == "unmeasured" and m["max_bytes"] >= 0.97 * m["capacity_bytes"], m' "$TMP/j.json"; then
  pass=$((pass + 1))
else
  echo "FAIL: recsys JSON near capacity: fits_confidence is not \"unmeasured\""; fail=$((fail + 1))
fi
"$CLI" recsys predict $EX/dlrm_criteo_8gpu.json --format json > "$TMP/p.json" 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["memory"]["fits"] and d["iter_s"] > 0 and len(d["gpus"]) == 8' "$TMP/p.json"; then
  pass=$((pass + 1))
else
  echo "FAIL: recsys predict --format json is not the expected document"; fail=$((fail + 1))
fi

# a prefetching data reader slower than the GPUs bounds the iteration:
# 2 ms + 0.5 us x 55296 samples (one node) = 29.648 ms
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["training"].update(reader_ms_per_batch=2, reader_us_per_sample=0.5); json.dump(d, open(sys.argv[2], "w"))' \
  $EX/dlrm_criteo_8gpu.json "$TMP/reader.json"
expect 0 "data reader" -- recsys predict "$TMP/reader.json"
expect 0 "iteration        29.648 ms" -- recsys predict "$TMP/reader.json"
expect 0 "the data reader bounds it" -- recsys plan "$TMP/reader.json" --top 2

# ---------------------------------------------------------------- plan
expect 0 "plans evaluated" -- recsys plan $EX/dlrm_criteo_8gpu.json --top 3
expect 0 "best plan" -- recsys plan $EX/dlrm_criteo_8gpu.json
"$CLI" recsys plan $EX/my_tables.json --format json --top 2 > "$TMP/plan.json" 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["plans"]; assert 1 <= len(p) <= 2 and p[0]["why"] and p[0]["prediction"]["iter_s"] <= p[-1]["prediction"]["iter_s"] and all(x["prediction"]["memory"]["fits_confidence"] == "unmeasured" for x in p)' "$TMP/plan.json"; then
  pass=$((pass + 1))
else
  echo "FAIL: recsys plan --format json is not the expected document"; fail=$((fail + 1))
fi

# the exposed parts of the collectives (docs/output.md): each at most its own
# time, and with the other phases they add up to iter_s (row-wise tables
# in my_tables, so the reduce-scatter and all-gather are there too)
for f in my_tables dlrm_criteo_8gpu; do
  "$CLI" recsys predict $EX/$f.json --format json > "$TMP/exp.json" 2>&1
  if python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); b = d["breakdown"]
parts = ["a2a_fwd", "a2a_bwd", "rs_fwd", "ag_bwd"]
assert all(0 <= b[p + "_exposed_s"] <= b[p + "_s"] * (1 + 1e-5) for p in parts), b
s = sum(b[k] for k in ["ids_s", "emb_fwd_s", "dense_fwd_s", "dense_bwd_s", "emb_bwd_s",
                        "allreduce_s", "optimizer_s", "overhead_s"])
s += sum(b[p + "_exposed_s"] for p in parts) + d.get("reader_s", 0)
assert abs(s - d["iter_s"]) <= 1e-5 * d["iter_s"], (s, d["iter_s"])
assert sum(b[p + "_exposed_s"] for p in parts) > 0' "$TMP/exp.json"; then
    pass=$((pass + 1))
  else
    echo "FAIL: recsys predict $f --format json: exposed parts do not add up"; fail=$((fail + 1))
  fi
done
expect 0 "exposed 0.245 / 0.190" -- recsys predict $EX/dlrm_criteo_8gpu.json

# ----------------------------------------------------------- bad input
printf '{"model": {"tables": "2x1000x128@1;1x0x128@1"}}\n' > "$TMP/zero.json"
expect 2 "group 2 (table t2)" -- recsys predict "$TMP/zero.json"
expect 2 "zero rows is not a table" -- recsys predict "$TMP/zero.json"
printf '{"model": {"tables": "2x1000x128@1;1x10x128"}}\n' > "$TMP/noat.json"
expect 2 "expected '@H'" -- recsys predict "$TMP/noat.json"
printf '{"model": {"kind": "synthetic", "tables": "2x1000x64@1", "top_mlp": [1]}, "cluster": {"gpus": 2},\n "sharding": [{"table": "t0", "kind": "table_wise", "gpu": 0},\n  {"table": "t1", "kind": "column_wise", "gpu": 0, "parts": 4}]}\n' > "$TMP/cw.json"
expect 2 "table 1 ('t1'): column_wise over GPUs 0..3 needs 4 GPUs, but the cluster has 2" -- recsys predict "$TMP/cw.json"
expect 2 "sharding of table 1 ('item_id'): table_row_wise on node 1, but the cluster has 1 node (valid: 0..0)" -- recsys predict $EX/my_tables.json --set cluster.gpus=8
# an unknown GPU names the closest preset, as predict's cluster.gpu does
expect 2 'cluster.gpu: expected a GPU preset id (stepcast presets); did you mean "h100-sxm5-80gb"?' -- recsys predict $EX/my_tables.json --set cluster.gpu=h100
printf '{"model": {"kind": "synthetic", "tables": "2x1000x64@1", "top_mlp": [1]}, "cluster": {"gpus": 2},\n "sharding": [{"table": "t0", "kind": "table_wise", "gpu": 2}, {"table": 1, "kind": "row_wise"}]}\n' > "$TMP/tw.json"
expect 2 "valid: 0..1" -- recsys predict "$TMP/tw.json"
# the dense part a kind needs (docs/input.md): a top MLP ending in its one
# logit, given (an empty one was taken: a model that predicts nothing)
expect 2 'model.top_mlp: none given; valid: 1 to 16 widths ending in the prediction layer 1 (one logit per sample), e.g. [1024, 1024, 512, 256, 1]: a model without it predicts nothing (set by override "model.top_mlp=[]")' -- recsys predict $EX/dlrm_criteo_8gpu.json --set 'model.top_mlp=[]'
expect 2 'model.top_mlp: the last layer is 2 wide; valid: widths ending in 1' -- recsys predict $EX/dlrm_criteo_8gpu.json --set 'model.top_mlp=[64,2]'
expect 2 "a dot interaction needs every table as wide as the dense features (13), which no model.bottom_mlp maps" -- recsys predict $EX/dlrm_criteo_8gpu.json --set 'model.bottom_mlp=[]'
expect 2 'model.cross_layers: 0; a dcnv2 interaction needs 1..64 cross layers' -- recsys predict $EX/dlrm_criteo_8gpu.json --set model.kind=dlrm_dcnv2 --set model.cross_layers=0
# a global batch the GPUs cannot share evenly, a fraction, one beyond 1e12:
# refused, not floored or clamped (they were, silently)
expect 2 "training.global_batch: 55297 is not divisible by cluster.gpus 8 (every GPU takes the same number of samples); valid nearby: 55296 or 55304" -- recsys predict $EX/dlrm_criteo_8gpu.json --set training.global_batch=55297
expect 2 "training.global_batch: expected a whole number in 1..1000000000000" -- recsys predict $EX/dlrm_criteo_8gpu.json --set training.global_batch=55296.5
expect 2 "training.global_batch: expected a whole number in 1..1000000000000" -- recsys predict $EX/dlrm_criteo_8gpu.json --set training.global_batch=1e13
# the other numbers of a job: a fraction or a value out of range is refused,
# not floored or clamped (2.5 dense features were 2, 1e9 were 1048576, a
# 1e6 ms collective cycle was 1e4, 2.5-byte embeddings 2)
expect 2 "model.dense_features: expected a whole number in 0..1048576" -- recsys predict $EX/dlrm_criteo_8gpu.json --set model.dense_features=2.5
expect 2 "model.dense_features: expected a whole number in 0..1048576" -- recsys predict $EX/dlrm_criteo_8gpu.json --set model.dense_features=1e9
expect 2 "training.collective_cycle_ms: expected a number in 0..10000" -- recsys predict $EX/dlrm_criteo_8gpu.json --set training.collective_cycle_ms=1e6
expect 2 "training.embedding_bytes: expected a whole number in 2..4" -- recsys predict $EX/dlrm_criteo_8gpu.json --set training.embedding_bytes=2.5
expect 2 "training.embedding_bytes: 3; valid: 2 or 4" -- recsys predict $EX/dlrm_criteo_8gpu.json --set training.embedding_bytes=3
expect 2 "training.global_batch: expected a number, got string \"x\" (set by" -- recsys predict $EX/dlrm_criteo_8gpu.json --set 'training.global_batch="x"'
expect 2 "--format expects table, json or csv, got 'xml'" -- recsys predict $EX/dlrm_criteo_8gpu.json --format xml
expect 2 "valid: data_parallel" -- recsys predict $EX/dlrm_criteo_8gpu.json --sharding diagonal
expect 2 "unknown subcommand" -- recsys frobnicate x.json
expect 3 "cannot read" -- recsys predict "$TMP/none.json"

# ------------------------------------------------- a published row (../shared)
SET=../shared/validation/recsys/mlperf_dlrm_v0.7-v2.1.csv
if [[ -r $SET ]]; then
  expect 0 "iteration" -- recsys row $SET mlperf-dlrm-052
  expect 2 "no row with id 'nope'" -- recsys row $SET nope
  expect 2 "stepcast recsys row FILE ID" -- validate --row mlperf-dlrm-052 $SET
  expect 0 "recsys" -- validate --format json $SET
  # tools/recsys/residual.py: its groups cover every predicted row, the
  # identical-input floor is under the file's MAPE, and every row giving
  # both throughputs is read
  res=$(python3 tools/recsys/residual.py --stepcast "$CLI" --rows 3 "$SET")
  if python3 - "$res" <<'PY'; then pass=$((pass + 1))
import re, sys
t = sys.argv[1]
fw = t.split("by framework named")[1].split("by GPU")[0]
n = sum(int(m) for m in re.findall(r"^\s+\S+\s+(\d+)\s+[+-]", fw, re.M))
floor, mape = map(float, re.search(r"alone: ([0-9.]+)% \(file MAPE ([0-9.]+)%", t).groups())
ratio = re.search(r"throughput over (\d+) rows: ([0-9.]+) \.\. ([0-9.]+)", t)
assert n == 53 and 0 < floor < mape and int(ratio.group(1)) == 48, (n, floor, mape)
assert len(re.findall(r"^mlperf-dlrm-\d+ ", t, re.M)) == 3
def group(title):  # (rows, signed, share) of each value under a title
    part = t.split(title + "\n")[1].split("\n\n")[0]
    return [(int(n), float(e), float(sh)) for n, e, sh in
            re.findall(r"^\s+\S.*?\s(\d+)\s+([+-][0-9.]+)%\s+[0-9.]+%\s+([0-9.]+)%$", part, re.M)]
for title in ("by submitter", "by MLPerf round"):
    g = group(title)
    assert sum(n for n, _, _ in g) == 53 and abs(sum(sh for _, _, sh in g) - 100) <= 0.05 * len(g), (title, g)
# the set spans five rounds: v0.7, v1.0, v1.1, v2.0, v2.1
assert len(group("by MLPerf round")) == 5, group("by MLPerf round")
PY
  else echo "FAIL: tools/recsys/residual.py on $SET:"; echo "$res" | head -20; fail=$((fail + 1)); fi
  # --parts: every row of the Merlin set binned by its predicted exchange
  # share, the bins in order
  MSET=../shared/validation/recsys/merlin_distributed_embeddings_synthetic.csv
  res=$(python3 tools/recsys/residual.py --stepcast "$CLI" --rows 0 --parts "$MSET")
  if python3 - "$res" <<'PY'; then pass=$((pass + 1))
import re, sys
t = sys.argv[1]
part = t.split("by predicted exchange share of the iteration\n")[1].split("\n\n")[0]
bins = re.findall(r"^\s+(\d+-\d+ %)\s+(\d+)\s", part, re.M)
assert sum(int(n) for _, n in bins) == 14, bins
order = ["0-15 %", "15-30 %", "30-45 %", "45-100 %"]
assert [b for b, _ in bins] == [b for b in order if b in dict(bins)], bins
PY
  else echo "FAIL: tools/recsys/residual.py --parts on $MSET:"; echo "$res" | tail -20; fail=$((fail + 1)); fi
  # --room: every multi-node row of the MLPerf set has an exposed exchange
  # and is listed; each line's columns follow from its measured and
  # predicted iteration, exposed exchange and exposed all-reduce
  res=$(python3 tools/recsys/residual.py --stepcast "$CLI" --rows 0 --room "$SET")
  if python3 - "$res" <<'PY'; then pass=$((pass + 1))
import re, sys
t = sys.argv[1]
part = t.split("room the measurement leaves for it (ms):\n")[1].split("\n\n")[0]
num = r"([+-]?[0-9.]+)"
line = re.compile(r"^\s+(mlperf-dlrm-\d+)\s+(\d+) \(\s*(\d+)\)\s+" + r"\s+".join([num] * 5) +
                  r"\s+\(\s*" + num + r"%\)\s+" + num + r"\s+\(\s*" + num + r"%\)\s+" + num + "%$", re.M)
rows = line.findall(part)
assert len(rows) == len(part.strip().splitlines()) - 1, part
multi = [r for r in rows if int(r[2]) > 1]
assert len(multi) == 7, multi
for rid, gpus, nodes, meas, pred, ex, ar, less, sl, both, sb, room in rows:
    meas, pred, ex, ar, less, sl, both, sb, room = map(float, (meas, pred, ex, ar, less, sl, both, sb, room))
    assert ex > 0 and abs(pred - ex - less) <= 0.002 and abs(less - ar - both) <= 0.002, rid
    assert abs(100 * (less / meas - 1) - sl) <= 1 and abs(100 * (both / meas - 1) - sb) <= 1, rid
    # the columns are rounded to 0.001 ms: (meas - less) / ex to 0.001 / ex
    assert abs(100 * (meas - less) / ex - room) <= 100 * 0.0015 / ex * (1 + abs(room) / 100) + 1, rid
PY
  else echo "FAIL: tools/recsys/residual.py --room on $SET:"; echo "$res" | tail -20; fail=$((fail + 1)); fi
else
  echo "FAIL: $SET is missing: the row checks need ../shared"; fail=$((fail + 1))
fi

# the framework column is read ignoring case (src/validate/framework.c): a
# capitalised TensorFlow row is the same job as the set's own spelling
MERLIN=../shared/validation/recsys/merlin_distributed_embeddings_synthetic.csv
if [[ -r $MERLIN ]]; then
  { head -2 "$MERLIN"; sed -n 2p "$MERLIN" | sed 's/^merlin-001/upper-001/;
      s/"tensorflow-2 (distributed-embeddings, Horovod)"/"TensorFlow 2.9 (Distributed-Embeddings, HOROVOD)"/'; } > "$TMP/case.csv"
  out=$("$CLI" validate "$TMP/case.csv")
  lower=$(awk '$1 == "merlin-001" {print $3, $5, $6}' <<<"$out")
  upper=$(awk '$1 == "upper-001" {print $3, $5, $6}' <<<"$out")
  if [[ -n $lower && $lower == "$upper" && $upper == *TF32* ]]; then pass=$((pass + 1))
  else echo "FAIL: framework case: '$lower' vs '$upper'"; fail=$((fail + 1)); fi
else
  echo "FAIL: $MERLIN is missing: the row checks need ../shared"; fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
