#!/usr/bin/env bash
# cli_firstuser.sh -- what a first-time user ran into (issue: product
# review): inputs that were taken in silence or refused with a message
# that did not say what would be valid. Each line `expect CODE NEEDLE --
# ARGS...` (tests/e2e_lib.sh). Usage: tests/cli_firstuser.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: cli_firstuser.sh PATH/TO/stepcast}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh"

# a list of valid names too long for one message says how many it left
# out and where to read them all
expect 2 'more); docs/input.md lists them all' -- predict --set plan.zzz=1
expect 2 'more); `stepcast presets` lists them all' -- predict -m no-such-model

# stepcast dp: a scheme name that is none of them, PS shards beyond the
# model's variables and a bad gossip graph were dropped in silence
expect 2 "dp.scheme: unknown scheme 'allreduce'; did you mean \"allreduce_ring_nccl\"? valid: single_gpu" -- dp --set dp.scheme=allreduce
expect 2 "dp.scheme: unknown scheme 'allreduce_ncl'; did you mean \"allreduce_nccl\"?" -- predict examples/dp/resnet50-16-v100-25gbe.json --set dp.scheme=allreduce_ncl
expect 2 'dp.ps_count: 100000 parameter-server shards but the model has only 161 variables' -- dp --set dp.ps_count=100000
expect 2 "dp.graph: unknown graph 'rnig'; valid: exp2, ring" -- dp --set dp.graph=rnig
expect 2 "is not connected over 16 workers" -- dp --set dp.graph=@examples/dp/ring8-chords.edges
expect 0 'neighbor_allreduce_graph' -- dp -n 8 --gb 512 --set dp.graph=@examples/dp/ring8-chords.edges
printf '0-1\n1-2\n\n2-9  # out of range\n' > "$TMP/oob.edges"
expect 2 "oob.edges:4: '2-9' is not an edge; valid: 'a-b' with ranks 0..7" -- dp -n 8 --gb 512 --set dp.graph=@"$TMP/oob.edges"
printf '0-1, 1-2\n2 3\n' > "$TMP/space.edges"
expect 2 "space.edges:2: '2 3' is not an edge" -- dp -n 4 --gb 256 --set dp.graph=@"$TMP/space.edges"
expect 3 'cannot read the dp.graph file' -- dp --set dp.graph=@"$TMP/missing.edges"
# a '.' in a comment does not make an edge list a mixing matrix
printf '# a ring of 4. Edges:\n0-1\n1-2\n2-3\n3-0 # closes it.\n' > "$TMP/dot.edges"
expect 0 'neighbor_allreduce_graph' -- dp -n 4 --gb 256 --set dp.graph=@"$TMP/dot.edges"

# every subcommand's --help goes to standard output, exit 0
for c in predict search validate collective topo trace presets dp recsys "recsys plan" \
         "recsys predict" "recsys row"; do
  out=$("$CLI" $c --help 2>/dev/null)
  rc=$?
  [[ $rc -eq 0 && $out == *usage:* ]] && pass=$((pass + 1)) ||
    { echo "FAIL: stepcast $c --help -> exit $rc, no usage on stdout"; fail=$((fail + 1)); }
done
# stepcast dp takes no parallel degrees: every GPU holds a whole replica
expect 2 'stepcast dp: --tp does not apply: every GPU holds a whole replica' -- dp --tp 8
expect 2 'stepcast dp: --zero does not apply' -- dp --zero 3
expect 0 'the job (default: the ResNet-50 job above)' -- dp --help
# stepcast dp --format csv has the columns docs/output.md lists (memory and the verdict were missing)
expect 0 'grad_bytes,messages,how,memory_GB,fits,fits_confidence' -- dp --format csv
# a straggler outside the job is refused by either engine; the closed form says it ignores one
expect 2 'cluster.straggler_gpu: GPU 5000 does not exist (the job has GPUs 0..1023)' -- predict --set cluster.straggler_gpu=5000 --set cluster.straggler_slowdown=0.5
expect 0 'note: cluster.straggler_slowdown is a what-if of --engine event' -- predict --set cluster.straggler_gpu=5 --set cluster.straggler_slowdown=0.5
# an output that cannot be opened says why
expect 3 'cannot write /tmp (Is a directory)' -- predict --trace /tmp
# an integer key takes a whole number written as a real (Python's json writes 1024.0)
expect 0 'cluster   1024 x a100-sxm4-80gb' -- predict -n 1024.0 --tp 8.0
expect 0 'resnet50: 25.6M parameters, 200x200 images' -- predict --set model.preset=resnet50 -n 8 --gb 256 --set model.image=200.0
expect 0 'step time' -- predict --set 'plan.overrides=[{"layers": 3.0, "recompute": "full"}]'
expect 2 'plan.overrides[0].layers: expected a layer index (0-based), got number 3.5' -- predict --set 'plan.overrides=[{"layers": 3.5, "recompute": "full"}]'
expect 2 'plan.global_batch: expected a positive integer (sequences per step), got number 1.5' -- predict --gb 1.5
# a whole number beyond the key's range is out of range, not 'expected an integer'
expect 2 'plan.tp: 1e+30 is out of range (valid: 1..1048576)' -- predict --tp 1e30
# search: types the GPU has no peak for are an error, not an empty search
expect 2 'dtypes: the GPU a100-sxm4-80gb has a dense peak for none of the types asked; valid: fp32, tf32, fp16, bf16' -- search --dtypes fp8
expect 1 'under the degrees and bounds given' -- search --tp 5
# collective: --algo needs the flow engine's topology; stray words are named as such
expect 2 "give --topo too, got --algo 'ring'" -- collective --algo ring
expect 2 "unexpected argument (every option takes --NAME VALUE) 'extra'" -- collective extra
expect 2 "unknown option (see stepcast collective --help) '--zzz'" -- collective --zzz 3
# trace: the same file twice is not two ranks; --perfetto - is standard output (it wrote a file named '-')
expect 2 'the same trace is given twice' -- trace examples/traces/rank0.json ./examples/traces/rank0.json
CLI_ABS=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
mkdir -p "$TMP/pf"
(cd "$TMP/pf" && "$CLI_ABS" trace "$ROOT/examples/traces/rank0.json" --perfetto - > "$TMP/pf.json")
if python3 -m json.tool "$TMP/pf.json" >/dev/null 2>&1 && [[ ! -e "$TMP/pf/-" ]]; then
  pass=$((pass + 1))
else
  echo "FAIL: trace --perfetto - is not one JSON document on standard output"; fail=$((fail + 1))
fi
# the accuracy line keeps a number with its unit when it wraps (a line began with '%')
if "$CLI" recsys plan examples/recsys/synthetic_jumbo_1gpu.json 2>/dev/null | grep -q '^ *%'; then
  echo "FAIL: a wrapped accuracy line starts with '%'"; fail=$((fail + 1))
else
  pass=$((pass + 1))
fi
# dp.graph's "@PATH" in a scenario file is relative to that file's folder,
# as model.graph and cluster.topology are (it was read from the working
# directory)
mkdir -p "$TMP/scen/g"
cp "$ROOT/examples/dp/ring8-chords.edges" "$TMP/scen/g/ring8.edges"
printf '{"model": "resnet50", "cluster": {"gpus": 8}, "plan": {"global_batch": 256}, "dp": {"scheme": "neighbor_allreduce_graph", "graph": "@g/ring8.edges"}}' > "$TMP/scen/d.json"
expect 0 'neighbor_allreduce_graph' -- predict "$TMP/scen/d.json"
# a data-parallel measurement row with 0 GPUs divided by zero (SIGFPE):
# a malformed cell naming file, line and column
python3 - "$ROOT" "$TMP" <<'PY'
import csv, sys
root, tmp = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(f"{root}/data/validation/dp_training/tf_cnn_benchmarks_2017.csv")))
h, r = rows[0], rows[1]
r[h.index("gpus")] = "0"
w = csv.writer(open(f"{tmp}/gpus0.csv", "w"), lineterminator="\n"); w.writerow(h); w.writerow(r)
PY
expect 2 "gpus0.csv:2: column 'gpus': expected a whole number in 1..16777216, got '0'" -- validate "$TMP/gpus0.csv"
# a denormal cell was refused as "expected a number >= 0"
head -2 "$ROOT/data/validation/collectives/echo_allreduce_a100_2_to_32.csv" |
  python3 -c 'import csv,sys; r=list(csv.reader(sys.stdin)); r[1][r[0].index("measured_time_us")]="1e-320"; csv.writer(sys.stdout, lineterminator="\n").writerows(r)' > "$TMP/den.csv"
expect 2 "column 'measured_time_us': expected a number >= 0 within a double's range" -- validate "$TMP/den.csv"
# stepcast dp: a micro-batch that does not divide the per-GPU batch was replaced by the whole batch
expect 2 'plan.micro_batch: 7 does not divide the 64 samples per GPU' -- dp --mb 7
expect 0 'global batch 512' -- dp --gb 512
# a graph model's file is read before the plan is checked: a missing file is the error (a plan error came first)
expect 3 'nonexist.json: cannot read the graph file (No such file or directory)' -- predict -m nonexist.json -n 8
# a generator key given twice took the last value
expect 2 'generator ring: n is given twice (one value per key)' -- topo 'ring:n=4,n=8'
# another command's file given to predict or recsys says which command reads it
expect 2 'training: unknown key; valid keys in the top level: model, cluster, plan, dp, description (a recommendation job? `stepcast recsys predict FILE` reads it)' -- predict examples/recsys/dlrm_criteo_8gpu.json
expect 2 '(a topology? `stepcast topo FILE`, or cluster.topology in a scenario)' -- dp examples/topologies/two_dgx_a100.json
expect 2 '(a workload graph? `-m FILE` or model.graph in a scenario)' -- search examples/graphs/gpt-2layer.json
expect 2 'llama3-70b-512-h100.json:2:18: description: unknown key; valid: model, cluster, training, sharding (a training scenario? `stepcast predict FILE` reads it)' -- recsys predict examples/llama3-70b-512-h100.json
# a section or preset set after a key inside it replaced that key in silence: sections apply first
expect 0 'seq 4096' -- predict --set model.seq=4096 -m llama3-70b
expect 2 'model.kv_heads: 5 does not divide model.heads 64 (each KV head serves a whole group of query heads); valid: 1, 2, 4, 8, 16, 32, 64 (set by override "model.kv_heads=5")' -- predict --set model.kv_heads=5 -m llama3-70b
# a bound that moves with model.heads is said with them (it read "8 is out
# of range (valid: 0..1)", as if 1 were a fixed limit)
expect 2 'model.kv_heads: 8 is more than model.heads 1 (each KV head serves a whole group of query heads); valid: 0 (= heads) to 1' -- predict examples/mixtral-8x7b-h100.json --set model.heads=1
expect 0 'capacity                      93.13' -- predict --set cluster.gpu.hbm_GB=100 -g h100-sxm5-80gb
# a model given as a path that is not a .json graph file was called an unknown preset
expect 2 'model: "models/my.graph" is no model preset, and a workload graph file' -- predict -m models/my.graph
# recsys predict --top on a job that gives its sharding was ignored
expect 2 'recsys predict: --top lists planned shardings' -- recsys predict examples/recsys/my_tables.json --top 3
expect 2 '(a scenario? `stepcast predict FILE` reads it; a topology goes in its cluster.topology)' -- topo examples/llama3-70b-512-h100.json
expect 2 'description: unknown key; valid keys: name, seq, model_flops, optimizer, blocks (a scenario? `stepcast predict FILE` reads it)' -- predict -m examples/llama3-70b-512-h100.json -n 8 --tp 1 --pp 1 --gb 8
# options without their value, or with a value that is not whole
expect 2 '--row expects a row ID and the FILE.csv' -- validate --row x
expect 2 'presets: --format expects table, json or csv' -- presets --format
expect 2 'recsys: --top expects a value' -- recsys plan examples/recsys/my_tables.json --top
expect 2 'recsys: --top 3x: valid: 1..16' -- recsys plan examples/recsys/my_tables.json --top 3x
expect 2 'recsys plan: --sharding sets the plan of `recsys predict`' -- recsys plan examples/recsys/my_tables.json --sharding row_wise
expect 2 "--ppn expects a whole number of GPUs per NVLink domain (1, 2, 8, ...), got '0.5'" -- trace examples/traces/rank0.json --ppn 0.5
expect 2 'unexpected argument' -- topo 'ring:n=4' extra

# wrong types that were taken in silence: a recsys model.kind or name that
# is not a string (ran as dlrm), fractional GPUs (2.5 ran as 2), a
# generator topology's name that is not a string; a file's topology that
# does not connect its GPUs names the file
python3 - "$ROOT" "$TMP" <<'PY'
import json, sys
root, tmp = sys.argv[1], sys.argv[2]
def put(src, name, edit):
    d = json.load(open(f"{root}/{src}")); edit(d); json.dump(d, open(f"{tmp}/{name}", "w"))
put("examples/recsys/dlrm_criteo_8gpu.json", "rkind.json", lambda d: d["model"].update(kind=3))
put("examples/recsys/dlrm_criteo_8gpu.json", "rname.json", lambda d: d["model"].update(name=[]))
put("examples/recsys/dlrm_criteo_8gpu.json", "rgpus.json", lambda d: d["cluster"].update(gpus=2.5))
put("examples/topologies/fat_tree_64.json", "tname.json", lambda d: d.update(name=3))
put("examples/topologies/two_dgx_a100.json", "tlinks.json", lambda d: d.update(links=[]))
put("examples/recsys/my_tables.json", "rshard.json", lambda d: d["sharding"][2].update(gpu=0.5))
put("examples/recsys/my_tables.json", "rnic.json", lambda d: d["cluster"].update(nic_Gbps=1e308))
PY
expect 2 'rshard.json:1:854: sharding[2].gpu: expected a whole number in 0..65535' -- recsys predict "$TMP/rshard.json"
expect 2 'rnic.json:1:604: cluster.nic_Gbps: expected 0 or Gb/s per GPU in 0.01..1e7' -- recsys predict "$TMP/rnic.json"
# the recsys job file is read as every other input: a directory is an
# I/O error (was a JSON syntax error, exit 2), /dev/zero is not text
expect 3 'is a directory; the recsys job file must be a file' -- recsys predict "$TMP"
expect 3 'cannot read the recsys job file (No such file or directory)' -- recsys plan "$TMP/none.json"
ln -s /dev/zero "$TMP/zero.json"
expect 2 'byte 0 is NUL: the recsys job file must be text' -- recsys predict "$TMP/zero.json"
expect 2 'rkind.json:1:20: model.kind: expected dlrm, dlrm_dcnv2, wide_and_deep or synthetic' -- recsys predict "$TMP/rkind.json"
expect 2 'rname.json:1:36: model.name: expected a string' -- recsys predict "$TMP/rname.json"
expect 2 'rgpus.json:1:594: cluster.gpus: expected a whole number of GPUs, 1..65536' -- recsys predict "$TMP/rgpus.json"
expect 2 'tname.json:1:10: name: must be a string' -- topo "$TMP/tname.json"
expect 2 'tlinks.json: topology two DGX A100' -- topo "$TMP/tlinks.json"

echo "cli_firstuser: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
