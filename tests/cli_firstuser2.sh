#!/usr/bin/env bash
# cli_firstuser2.sh -- a first user's second round (issue: product review,
# round 2): search, dp, recsys, trace, collective, topo, validate and
# presets followed from their docs, every file of examples/ through every
# command that takes it. Inputs that were taken in silence or misread,
# each line `expect CODE NEEDLE -- ARGS...` (tests/e2e_lib.sh); then every
# --format json output is one JSON document, every csv one rectangular
# table, and each is the same bytes twice (the second run only without
# SUBSET: the sanitizer build checks each output once, tests/e2e_lib.sh).
# Usage: tests/cli_firstuser2.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: cli_firstuser2.sh PATH/TO/stepcast}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh"
cd "$ROOT" || exit 1

# search --html without its file was "unknown option '--html'"
expect 2 "--html expects a file name ('-': standard output)" -- search --html
expect 1 'no plan fits; the closest needs' -- search -n 8 --gb 64 --threads 1

# round 25 QA: "no plan is valid" gave no reason; --max-plans said "complete"
# with the cut space's size; CSV had no row for the closest plan
expect 1 '1952 plans, e.g. plan.tp: 64 does not divide model.heads 96' -- search examples/gpt3-175b-1024-a100.json --tp 64 --threads 2
expect 1 '"example": "plan.tp: 64 does not divide model.heads 96' -- search examples/gpt3-175b-1024-a100.json --tp 64 --threads 2 --format json
expect 1 'no plan is valid: plan.tp: 64 does not divide' -- search examples/gpt3-175b-1024-a100.json --tp 64 --threads 2 --format csv
expect 1 'the space is empty: tp: 3 does not divide the 1024 GPUs' -- search examples/gpt3-175b-1024-a100.json --tp 3
# every degree fixed, or all but cp, and their product short of the GPUs: the
# message names the product (it spoke of the searched tp and pp ranges)
expect 1 'the space is empty: tp 8 x pp 16 x cp 1 x dp 4 = 512 GPUs, but cluster.gpus is 1024' -- search examples/gpt3-175b-1024-a100.json --tp 8 --pp 16 --cp 1 --dp 4
expect 1 'the space is empty: tp 8 x pp 16 x dp 4 = 512 GPUs leave cp 2 for the 1024 GPUs' -- search examples/gpt3-175b-1024-a100.json --tp 8 --pp 16 --dp 4
expect 0 'stopped (max_plans): searched the first 100 of the space' -- search examples/gpt3-175b-1024-a100.json --max-plans 100 --tp 8 --zero 3 --top 1 --threads 1
expect 0 '"space": 100, "space_full": 216, "tried": 100' -- search examples/gpt3-175b-1024-a100.json --max-plans 100 --tp 8 --zero 3 --top 1 --threads 1 --format json
expect 0 '"stopped": "max_plans"' -- search examples/gpt3-175b-1024-a100.json --max-plans 100 --tp 8 --zero 3 --top 1 --threads 1 --format json
expect 0 ',closest,stopped
1,1,' -- search examples/gpt3-175b-1024-a100.json --max-plans 100 --tp 8 --zero 3 --top 1 --threads 1 --format csv
expect 0 ',0,max_plans' -- search examples/gpt3-175b-1024-a100.json --max-plans 100 --tp 8 --zero 3 --top 1 --threads 1 --format csv
expect 1 ',closest,stopped
0,0,' -- search -n 8 --gb 64 --threads 1 --format csv
expect 1 ',0,bf16,0,0,0,0,0,0,0,0,' -- search -n 8 --gb 64 --threads 1 --format csv
expect 1 ',closed_form,1,complete' -- search -n 8 --gb 64 --threads 1 --format csv
expect 0 'plans/s, 1 thread)' -- search examples/gpt3-175b-1024-a100.json --max-plans 10 --top 1 --threads 1 --all --no-rerank
expect 0 'plans/s, 1 thread; re-rank ' -- search examples/gpt3-175b-1024-a100.json --max-plans 10 --top 1 --threads 1 --all
# recsys plan on thousands of tables ran minutes with no budget: --max-evals
# and --max-seconds stop it early and say so
expect 0 'stopped early (max_evals) after 50 plans evaluated: the best found so far' -- recsys plan examples/recsys/my_tables.json --max-evals 50 --top 1
expect 0 '"evaluated": 50, "exhaustive": false, "stopped": "max_evals"' -- recsys plan examples/recsys/my_tables.json --max-evals 50 --top 1 --format json
expect 0 '"stopped": "complete", "eval_bound_reached": false' -- recsys plan examples/recsys/dlrm_criteo_8gpu.json --top 1 --format json
expect 0 '"stopped": "max_seconds"' -- recsys plan examples/recsys/my_tables.json --max-seconds 1e-9 --top 1 --format json
expect 2 '--max-evals 0: valid: an integer >= 1' -- recsys plan examples/recsys/my_tables.json --max-evals 0
expect 2 '--max-seconds -1: valid: seconds > 0' -- recsys plan examples/recsys/my_tables.json --max-seconds -1
expect 2 '--max-seconds and --max-evals bound the planner' -- recsys predict examples/recsys/my_tables.json --max-seconds 5
# search on a CNN headed its images/s "tokens/s"; a dp.scheme was dropped in silence
expect 0 'recompute   step s   images/s   MFU' -- search -m resnet50 -n 8 --gb 256 --threads 1 --top 1
expect 0 'note: dp.scheme allreduce_nccl is not searched' -- search examples/dp/resnet50-16-v100-25gbe.json --threads 1 --top 1

# validate --row ID FILE took any other word as the file: --summary,
# --html's file, a second CSV, --format without its value
F=data/validation/training/dgxc_benchmarking.csv
ID=dgxc-gpt3-175b-h100-bf16-128
expect 0 'GPT-3-175B' -- validate --row $ID $F
expect 2 'validate: --summary does not go with --row (valid with --row: --format, --engine, --ops)' -- validate --row $ID $F --summary
expect 2 'validate: --html does not go with --row' -- validate --row $ID $F --html "$TMP/x.html"
expect 2 "--row ID takes one FILE.csv, got '$F' and 'other.csv'" -- validate --row $ID $F other.csv
expect 2 'validate: --format expects table, json or csv' -- validate --row $ID $F --format
expect 2 'validate: --ops goes with --row ID FILE.csv' -- validate --ops

# topo --list printed its table whatever came beside it; --dot ignored --format;
# a topology's name was cut at 63 bytes ("... on ")
# (session 38: --list takes --format, tests/cli_usage.sh)
expect 2 'topo: --list takes only --format (it lists the generators), got --check' -- topo --list --check
expect 2 'topo: --list takes only --format (it lists the generators), got ring:n=4' -- topo ring:n=4 --list
expect 2 'topo: --dot writes Graphviz DOT; --format does not go with it' -- topo ring:n=4 --dot --format json
expect 0 'NICs) on one leaf switch' -- topo examples/topologies/two_dgx_a100.json
python3 - "$TMP" <<'PY'
import json, sys
d = json.load(open("examples/topologies/two_dgx_a100.json"))
d["name"] = "x" * 256
json.dump(d, open(f"{sys.argv[1]}/longname.json", "w"))
PY
expect 2 'longname.json:1:10: name: must be a string of at most 255 bytes' -- topo "$TMP/longname.json"

# a scenario with dp.scheme dropped a plan's tp, pp, cp, ep and ZeRO in
# silence; stepcast dp leaves them aside (any scenario's model, cluster
# and batch; docs/output.md) and now says so
expect 2 'plan.tp: 2 does not apply to a data-parallel scheme (dp.scheme): every GPU holds a whole replica; valid: 1' -- predict examples/dp/resnet50-16-v100-25gbe.json --tp 2
expect 2 'plan.zero: 2 does not apply to a data-parallel scheme' -- predict examples/dp/resnet50-16-v100-25gbe.json --set plan.zero=2
expect 2 'note: plan.tp 8, plan.pp 4, plan.zero 1 not used: every GPU holds a whole replica' -- dp examples/llama3-70b-512-h100.json
expect 0 'note: plan.tp 2 not used' -- dp --set plan.tp=2

# recsys plan with nothing that fits was headed "the fastest that fit",
# its list in the order met (1e30 + bytes is one double for any memory
# under 1e14 bytes), the first "0.00 % faster than #2"
expect 1 'none fits, those that need least memory:' -- recsys plan examples/recsys/synthetic_jumbo_1gpu.json
"$CLI" recsys plan examples/recsys/synthetic_jumbo_1gpu.json --format json > "$TMP/jumbo.json" 2>&1
if python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["plans"]
mem = [x["prediction"]["memory"]["max_bytes"] for x in p]
ok = len(p) > 1 and mem == sorted(mem) and not any(x["prediction"]["memory"]["fits"] for x in p)
sys.exit(0 if ok else 1)' "$TMP/jumbo.json" 2>/dev/null &&
   ! "$CLI" recsys plan examples/recsys/synthetic_jumbo_1gpu.json | grep -q 'faster than #2'; then
  pass=$((pass + 1))
else
  echo "FAIL: recsys plan with nothing fitting: not by memory, or 'faster than #2'"; fail=$((fail + 1))
fi
# recsys job files: a table's second sharding entry replaced the first, a
# sharding entry naming no table said neither which nor what is valid, two
# tables of one name were taken (the sharding then hit the first), a name
# over 31 bytes was cut, '?' rows read "rows 0", and the plan's check did
# not name the file
python3 - "$TMP" <<'PY'
import copy, json, sys
tmp = sys.argv[1]
base = {"model": {"kind": "dlrm", "dense_features": 13, "bottom_mlp": [512, 256, 128],
                  "top_mlp": [1024, 1], "tables": "1x1000000x128@1"},
        "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8, "gpus_per_node": 8},
        "training": {"global_batch": 65536}}
def put(name, edit):
    d = copy.deepcopy(base); edit(d); json.dump(d, open(f"{tmp}/{name}.json", "w"))
two = [{"name": "a", "rows": 10, "dim": 128}, {"name": "b", "rows": 10, "dim": 128}]
put("rs_dup", lambda d: d.update(sharding=[{"table": 0, "kind": "row_wise"},
                                           {"table": "t0", "kind": "table_wise"}]))
put("rs_noname", lambda d: d.update(sharding=[{"table": "user", "kind": "row_wise"}]))
put("rs_noidx", lambda d: d.update(sharding=[{"table": 3, "kind": "row_wise"}]))
put("rs_twice", lambda d: d["model"].update(tables=[two[0], dict(two[1], name="a")]))
put("rs_long", lambda d: d["model"].update(tables=[dict(two[0], name="n" * 32)]))
put("rs_unknown", lambda d: d["model"].update(tables="1x?x128@1"))
put("rs_gpu8", lambda d: d.update(sharding=[{"table": 0, "kind": "table_wise", "gpu": 8}]))
put("rs_ok", lambda d: d["model"].update(tables=two) or
    d.update(sharding=[{"table": "a", "kind": "row_wise"}, {"table": 1, "kind": "table_wise"}]))
PY
expect 2 "rs_dup.json:1:286: sharding[1]: table 0 ('t0') already has an entry; give one per table" -- recsys predict "$TMP/rs_dup.json"
expect 2 "rs_noname.json:1:262: sharding[0].table: no table is named 'user'; valid: a name ('t0') or an index 0..0" -- recsys predict "$TMP/rs_noname.json"
expect 2 'rs_noidx.json:1:262: sharding[0].table: no table 3; valid: an index 0..0 or a name' -- recsys predict "$TMP/rs_noidx.json"
expect 2 "rs_twice.json:1:113: model.tables: tables 0 and 1 are both named 'a'" -- recsys predict "$TMP/rs_twice.json"
expect 2 'rs_long.json:1:123: model.tables[0].name: ' -- recsys predict "$TMP/rs_long.json"
expect 2 "table 0 ('t0'): rows unknown ('?') or 0" -- recsys predict "$TMP/rs_unknown.json"
expect 2 "rs_gpu8.json: sharding of table 0 ('t0'): table_wise on GPU 8, but the cluster has 8 GPUs (valid: 0..7)" -- recsys predict "$TMP/rs_gpu8.json"
expect 0 'iteration' -- recsys predict "$TMP/rs_ok.json"
# a round number of samples/s lost its digits ("7e+04 samples/s")
expect 1 'iteration       789.952 ms   7.000e+04 samples/s' -- recsys predict examples/recsys/dlrm_criteo_8gpu.json --sharding data_parallel

# collective: a size, --ppn or --arch that is not valid said neither what
# was given nor what would do; 16 GPUs per thread on nodes of 8 ran
expect 2 "--min expects a size in bytes > 0 (64, 4K, 1M, 2G: powers of 1024), got '0'" -- collective --min 0
expect 2 '--ppn 3 does not divide --ranks 16' -- collective --ranks 16 --ppn 3
expect 2 "--arch expects an SM version 30..199 (70 V100, 80 A100, 90 H100, 100 B200), got '7'" -- collective --arch 7
expect 2 '--gpus-per-thread 16 is more than the 8 GPUs per node (--ppn)' -- collective --ranks 8 --gpus-per-thread 16
# 3 GPUs per thread on 8 per node: no nccl-tests run has that layout (it was predicted)
expect 2 '--gpus-per-thread 3 does not divide the 8 GPUs per node (--ppn)' -- collective --ranks 8 --gpus-per-thread 3
expect 0 '4 GPUs per host thread' -- collective --ranks 8 --gpus-per-thread 4 --min 1K --max 1K

# trace: --ppn 0 was "expected a number" (0.5 said whole number); the value is named
expect 2 "--ppn expects a whole number of GPUs per NVLink domain (1, 2, 8, ...), got '0'" -- trace examples/traces/rank0.json --ppn 0
expect 2 "--dp-scale expects a number in 1e-9..1e9, got '0'" -- trace examples/traces/rank0.json --dp-scale 0
# a .tar.gz of traces (as ../shared/traces ships them) said only "it starts with byte 0x72"
tar -czf "$TMP/traces.tar.gz" -C examples traces/rank0.json traces/rank1.json
expect 2 'starts with byte 0x74 (a tar archive: unpack it and give the trace files in it)' -- trace "$TMP/traces.tar.gz"

# every example through every command that takes it: exit 0 or 1 (nothing
# fits), one JSON document, one rectangular CSV table, the same bytes twice
# (search's own wall time aside; once under SUBSET)
sweep() { # FORMATS ARGS...
  local fmts=$1 f rc
  shift
  for f in $fmts; do
    "$CLI" "$@" --format "$f" > "$TMP/a.out" 2>&1
    rc=$?
    if [[ $SUBSET == 1 ]]; then cp "$TMP/a.out" "$TMP/b.out"
    else "$CLI" "$@" --format "$f" > "$TMP/b.out" 2>&1; fi
    if [[ $rc -gt 1 ]]; then
      echo "FAIL: stepcast $* --format $f -> exit $rc"; head -3 "$TMP/a.out"; fail=$((fail + 1)); continue
    fi
    if ! python3 -c '
import csv, io, json, re, sys
fmt, a, b = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
clean = lambda s: re.sub(r"\"seconds\": [^,]*|[0-9.]+ s \([0-9]+ plans/s[^)]*\)", "", s)
if clean(a) != clean(b): sys.exit("not the same twice")
if fmt == "json": json.loads(a)
if fmt == "csv":
    rows = list(csv.reader(io.StringIO(a)))
    if len(rows) < 1 or any(len(r) != len(rows[0]) for r in rows): sys.exit("csv not rectangular")
' "$f" "$TMP/a.out" "$TMP/b.out"; then
      echo "FAIL: stepcast $* --format $f"; fail=$((fail + 1))
    else
      pass=$((pass + 1))
    fi
  done
}
for f in examples/*.json; do
  sweep "table json csv" predict "$f"
  sweep "table json csv" search "$f" --threads 2 --top 3
done
for f in examples/dp/*.json; do
  sweep "table json csv" dp "$f"
  sweep "table json csv" predict "$f"
done
for f in examples/graphs/*.json; do sweep "table json csv" predict -m "$f" -n 8 --tp 1 --pp 1 --gb 8; done
for f in examples/recsys/*.json; do
  sweep "table json" recsys predict "$f"
  sweep "table json" recsys plan "$f" --top 3
done
for f in examples/topologies/*.json; do
  sweep "table json csv" topo "$f"
  sweep "table json csv" predict --set cluster.topology="$f" -n 16 --gb 64 -m llama3-8b --tp 8 --pp 1
done
sweep "table json csv" collective --topo examples/topologies/two_dgx_a100.json --ranks 16 --ppn 8 --max 16M
sweep "table json" trace examples/traces/rank0.json examples/traces/rank1.json --dp-scale 2
sweep "table json csv" presets
sweep "table" validate --summary data/validation/collectives/echo_allreduce_a100_2_to_32.csv
sweep "json csv" validate data/validation/collectives/echo_allreduce_a100_2_to_32.csv

echo "cli_firstuser2: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
