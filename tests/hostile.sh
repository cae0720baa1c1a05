#!/usr/bin/env bash
# hostile.sh -- the hostile inputs of issue 12 as a table: one line per
# case, `h CODE NEEDLE -- ARGS...`: stepcast ARGS must exit with CODE
# (2 bad input, 3 I/O; docs/output.md) within a time limit, print NEEDLE
# (a fixed string) on stdout+stderr and never die by a signal, hang or
# grow without bound. Usage: tests/hostile.sh PATH/TO/stepcast [sanitized]
# ("sanitized": no address-space cap, which ASan cannot run under).
set -u
CLI=${1:?usage: hostile.sh PATH/TO/stepcast [sanitized]}
SAN=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh" # TMP, pass, fail, SUBSET
# what validate's full runs (a full disk, the same bytes twice) read: the
# shipped sets (every kind, a planner search per MLPerf DLRM row), or with
# SUBSET one small set of each kind (the shipped ones once: --timings)
VAL=""
if [[ $SUBSET == 1 ]]; then for s in $SUBSET_SETS; do VAL+=" $ROOT/data/validation/$s"; done; fi
LIMIT_S=${HOSTILE_LIMIT_S:-60}   # seconds per case (sanitized builds are slow)
MEM_KB=4000000                   # address space per case, Release only

# h CODE NEEDLE -- ARGS...
h() {
  local code=$1 needle=$2
  shift 3
  local out rc
  if [[ -z $SAN ]]; then
    out=$( (ulimit -v $MEM_KB; timeout -s KILL "$LIMIT_S" "$CLI" "$@") 2>&1)
  else
    out=$(timeout -s KILL "$LIMIT_S" "$CLI" "$@" 2>&1)
  fi
  rc=$?
  if [[ $rc -eq 137 || $rc -eq 124 ]]; then
    echo "FAIL: stepcast $* -> killed after ${LIMIT_S} s (a hang?)"; fail=$((fail + 1))
  elif [[ $rc -ge 128 ]]; then
    echo "FAIL: stepcast $* -> killed by signal $((rc - 128))"; fail=$((fail + 1))
  elif [[ $rc -ne $code ]]; then
    echo "FAIL: stepcast $* -> exit $rc, expected $code"; echo "$out" | head -5 | sed 's/^/    /'
    fail=$((fail + 1))
  elif [[ $out != *"$needle"* ]]; then
    echo "FAIL: stepcast $* -> output lacks: $needle"; echo "$out" | head -5 | sed 's/^/    /'
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}

# 1. the micro-batch count overflowed an int: negative step, "fits"
h 2 'micro-batches per pipeline; at most 1048576' -- predict --gb 17179869184
h 2 'micro-batches per pipeline; at most 1048576' -- predict --gb 17179869184 --format json
# 2. 2^24 GPUs in one NVLink domain: SIGFPE in the search space
h 0 'fit in memory' -- search -n 16777216 --set cluster.nvlink_domain=16777216 --gb 16777216 --seq 32768 --top 1
h 0 'fit in memory' -- search --gb 17179869184 --all --top 1
# 6 (search). a plan space too large to list is refused with its size
h 2 'the plan space has 49020822 plans, about 3.14 GB to list; the limit is 16777216 plans' -- search -m mixtral-8x7b --set model.layers=65520 --set model.experts=4096 --set model.seq=32768 -n 16773120 --set cluster.nvlink_domain=4096 --gb 68702699520 --max-pp 4096 --max-mb 4096 --max-vpp 4096 --max-tp 4096
# 3. collective sizes that never end, or a factor too close to 1
h 2 'sizes: need 1 <= min_bytes <= max_bytes <= 2^50' -- collective --max inf
h 2 'sizes: need 1 <= min_bytes <= max_bytes <= 2^50' -- collective --max 1e300G
h 2 'sizes: need 1 <= min_bytes <= max_bytes <= 2^50' -- collective --max 1e300
h 2 'by a factor 1.0000001: at most 100000' -- collective --factor 1.0000001
h 2 '--min expects a size in bytes > 0' -- collective --min nan
h 2 'factor must be > 1' -- collective --factor inf
# 4. tiny positive bandwidths and efficiencies printed NaN/inf as JSON
for v in 1e-320 4.9e-324 1e-300; do
  h 2 'cluster.gpu.hbm_TBps: ' -- predict --set cluster.gpu.hbm_TBps=$v --format json
done
h 2 'is too small' -- predict --set cluster.gpu.hbm_eff=1e-320 --format json
h 2 'is too small' -- predict --set cluster.gpu.peak_tflops.bf16=1e-300
h 2 'is out of range' -- predict --set cluster.nic_Gbps=1e308
h 2 'cluster.gpu.hbm_TBps: expected TB/s > 0, got string "nan"' -- predict --set cluster.gpu.hbm_TBps=nan
h 2 'bw=9.99989e-321: valid: 1e-6..1e9' -- topo 'ring:n=4,bw=1e-320'
h 2 'oversub=0: valid: 1e-6..1e9' -- topo 'fat_tree:hosts=16,radix=4,levels=2,bw=25,oversub=0'
h 2 'lat=-1: valid: 0 or 1e-6..1e9' -- topo 'ring:n=4,bw=10,lat=-1'
printf '{"nodes": [{"name": "a"}, {"name": "b"}], "links": [{"from": "a", "to": "b", "bw_GBps": 4.9e-324}]}' > "$TMP/tiny.json"
h 2 'links[0].bw_GBps: 4.94066e-324; valid: 1e-6..1e9' -- topo "$TMP/tiny.json"
# 5. a link to /dev/zero was read without a size limit
ln -s /dev/zero "$TMP/zero.json"
ln -s /dev/zero "$TMP/zero.csv"
h 2 'byte 0 is NUL: the topology file must be text' -- topo "$TMP/zero.json"
h 2 'byte 0 is NUL: the CSV file must be text' -- validate "$TMP/zero.csv"
h 2 'byte 0 is NUL: the scenario file must be text' -- predict "$TMP/zero.json"
truncate -s 20M "$TMP/huge.json"
h 2 'the scenario file holds 20971520 bytes; the limit is 16777216 bytes' -- predict "$TMP/huge.json"
# 6. generators whose switches, spines or router links were not counted
h 2 'generator fat_tree: too large: 1073774595 nodes' -- topo 'fat_tree:hosts=2,radix=65536,levels=3'
h 2 'generator rail: too large: 1003001 nodes and 2000006000 directed links need about 160 GB' -- topo 'rail:nodes=1,gpus=1000,spines=1000000'
h 2 'generator dragonfly: too large' -- topo 'dragonfly:groups=1,routers=100000,hosts=1'
h 2 'generator fat_tree: too large' -- predict --set 'cluster.topology=fat_tree:hosts=2,radix=65536,levels=3'
# 7. search on a topology file that does not exist said "no plan fits"
h 3 'cannot read the topology file (No such file or directory)' -- search --set cluster.topology=/nonexistent/t.json
h 3 'cannot read the topology file (No such file or directory)' -- predict --set cluster.topology=/nonexistent/t.json
# 8. a 60,000-node topology JSON loaded in quadratic time (33 s)
python3 - "$TMP/big.json" <<'PY'
import json, sys
n = 60000
nodes = [{"name": "sw", "kind": "switch"}] + [{"name": "g%d" % i} for i in range(n - 1)]
links = [{"from": "g%d" % i, "to": "sw", "bw_GBps": 50} for i in range(n - 1)]
json.dump({"nodes": nodes, "links": links}, open(sys.argv[1], "w"))
PY
LIMIT_S=20 h 0 'nodes        60000 (gpu 59999' -- topo "$TMP/big.json"
LIMIT_S=30 h 0 'fit in memory' -- search --set "cluster.topology=$TMP/big.json" --max-plans 200 --tp 8 --top 1
# 10. collective counts that wrapped around an int, bandwidths out of range
h 2 "--ranks expects an integer 1..16777216, got '4294967304'" -- collective --ranks 4294967304
h 2 "--ppn expects an integer 1..16777216, got '9223372036854775808'" -- collective --ppn 9223372036854775808
h 2 'nvlink_GBps: 1e+12; valid: 0.001..1e6' -- collective --nvlink 1e12
h 2 'nvlink_GBps: 4.94066e-324; valid: 0.001..1e6' -- collective --nvlink 4.9e-324
h 2 'nic_Gbps: inf; valid: 0.01..1e7' -- collective --nic inf
# a fabric that is not one of the four (exit 2 naming the valid ones)
h 2 "--fabric expects infiniband, roce, efa or tcpxo, got 'ethernet'" -- collective --fabric ethernet
h 2 "--fabric expects infiniband, roce, efa or tcpxo, got ''" -- collective --fabric ''
h 2 '--fabric expects a value (see stepcast collective --help)' -- collective --fabric
h 2 'cluster.fabric: unknown value string "ib"; valid: infiniband, roce, efa, tcpxo' -- predict --set cluster.fabric=ib
h 2 'cluster.fabric: expected one of infiniband, roce, efa, tcpxo, got integer 3' -- predict --set cluster.fabric=3
# NVLink below one link (25 GB/s on A100) was silently raised to 25 GB/s
t10=$("$CLI" collective --nvlink 10 --min 1G --max 1G --format csv | tail -n 1 | cut -d, -f2)
t25=$("$CLI" collective --nvlink 25 --min 1G --max 1G --format csv | tail -n 1 | cut -d, -f2)
if python3 -c "import sys; sys.exit(0 if float('$t10') > 2 * float('$t25') else 1)"; then pass=$((pass + 1))
else echo "FAIL: collective --nvlink 10 takes $t10 us, --nvlink 25 $t25 us (10 GB/s must be slower)"; fail=$((fail + 1)); fi
# 11.. see validate below; 14. an O(n^2) schedule on 16,384 ranks ran out of memory (exit 4)
h 2 'its schedule has 268419072 transfers, about 42.9 GB for the flow engine; the limit is 4194304 transfers' -- collective --op all_to_all --algo direct --ranks 16384 --ppn 1 --topo 'fat_tree:hosts=16384,radix=64,levels=3'
# 9. a timeline of 33 million passes: 28 s, 1.9 GB, a 5 GB trace file
h 2 'timeline: 33554432 passes (pp 16 x vpp 1 x 1048576 micro-batches x forward and backward) need about' -- predict --gb 8388608 --trace "$TMP/t.json"
[[ ! -e $TMP/t.json ]] || { echo "FAIL: predict --trace wrote a file although the timeline was refused"; fail=$((fail + 1)); }
out=$("$CLI" predict --gb 8388608 --trace "$TMP/t.json" 2>/dev/null)
[[ -z $out ]] || { echo "FAIL: predict --trace printed a report although the timeline was refused"; fail=$((fail + 1)); }
# 11. validation CSV cells: huge ranks, fractional batches, a missing column
C=id,source,op,bytes,ranks,gpus_per_node,gpu,nvlink_GBps,nic_Gbps,measured_time_us
printf '%s\nx,s,all_reduce,1048576,1e11,8,a100-sxm4-80gb,300,,50\n' "$C" > "$TMP/ranks.csv"
h 2 "ranks.csv:2: column 'ranks': expected a whole number in 1..16777216, got '1e11'" -- validate "$TMP/ranks.csv"
printf '%s\nx,s,all_reduce,1e300,8,8,a100-sxm4-80gb,300,,50\n' "$C" > "$TMP/bytes.csv"
h 2 "bytes.csv:2: column 'bytes': 1e+300 is more than 2^50" -- validate "$TMP/bytes.csv"
T=id,model,layers,hidden,heads,vocab,seq,global_batch,dtype,gpu,gpus,dp,pp,measured_iter_s
printf '%s\nx,m,2,64,4,100,16,8.5,bf16,a100-sxm4-80gb,8,8,1,1\n' "$T" > "$TMP/frac.csv"
h 2 "frac.csv:2: column 'global_batch': expected a whole number in 1..1099511627776, got '8.5'" -- validate "$TMP/frac.csv"
printf '%s\nx,m,2,64,4,100,16,17179869184,bf16,a100-sxm4-80gb,8,4,2,1\n' "$T" > "$TMP/hugegb.csv"
h 0 'skipped: plan.global_batch: 17179869184 sequences / dp 4 / micro_batch 1 = 4294967296 micro-batches' -- validate "$TMP/hugegb.csv"
printf 'id,model,measured_iter_s\nx,m,1\n' > "$TMP/nocol.csv"
h 2 "nocol.csv:1: the header lacks the column 'layers'" -- validate "$TMP/nocol.csv"
printf 'id,op,bytes,gpu,measured_time_us\nx,all_reduce,1024,a100-sxm4-80gb,50\n' > "$TMP/nocol2.csv"
h 2 "nocol2.csv:1: the header lacks the column 'ranks'" -- validate "$TMP/nocol2.csv"
# 12. write errors (a full disk) exit 3
for args in "predict" "predict --format json" "predict --format csv" "search --max-plans 50 --tp 8 --zero 3" \
            "validate$VAL" "collective" "topo ring:n=4" "presets" "predict --trace -"; do
  case $args in topo*|presets*|*--trace*) ;; # no HTML report
  # shellcheck disable=SC2086
  *) h 3 'cannot write' -- $args --html /dev/full ;;
  esac
  # shellcheck disable=SC2086
  out=$( (timeout -s KILL "$LIMIT_S" "$CLI" $args > /dev/full) 2>&1); rc=$?
  if [[ $rc -ne 3 || $out != *"cannot write"* ]]; then
    echo "FAIL: stepcast $args > /dev/full -> exit $rc, expected 3 with 'cannot write'"; fail=$((fail + 1))
  else pass=$((pass + 1)); fi
done
# 13. a comma, quotes, an escape sequence and invalid UTF-8 in names
printf '{"model": {"preset": "gpt3-175b", "name": "a,b \\"q\\" \\u001b[31mred"}}' > "$TMP/name.json"
h 0 'model     a,b "q" ?[31mred' -- predict "$TMP/name.json"
out=$("$CLI" predict "$TMP/name.json" --format csv | python3 -c 'import csv, sys; print(list(csv.reader(sys.stdin))[1][0])')
[[ $out == $'a,b "q" \xef\xbf\xbd[31mred' ]] && pass=$((pass + 1)) || { echo "FAIL: CSV model name: $out"; fail=$((fail + 1)); }
out=$("$CLI" predict "$TMP/name.json" --format json | python3 -c 'import json, sys; print(repr(json.load(sys.stdin)["model"]))')
[[ $out == "'a,b \"q\" \x1b[31mred'" ]] && pass=$((pass + 1)) || { echo "FAIL: JSON model name: $out"; fail=$((fail + 1)); }
printf '%s\n"a,\xff\x1b[31m",s,all_reduce,1048576,8,8,a100-sxm4-80gb,300,,50\n' "$C" > "$TMP/utf8.csv"
h 0 'a,??[31m' -- validate "$TMP/utf8.csv"
"$CLI" validate --format json "$TMP/utf8.csv" | python3 -c 'import json, sys; json.load(sys.stdin)' \
  && pass=$((pass + 1)) || { echo "FAIL: validate JSON with invalid UTF-8 does not parse"; fail=$((fail + 1)); }
"$CLI" validate --format csv "$TMP/utf8.csv" | python3 -c 'import csv, sys; r = list(csv.reader(sys.stdin)); assert r[1][2] == "a,\ufffd\ufffd[31m", r' \
  && pass=$((pass + 1)) || { echo "FAIL: validate CSV with invalid UTF-8"; fail=$((fail + 1)); }
h 2 'unknown model preset "gpt3?[31m"' -- predict --model $'gpt3\x1b[31m'
printf '{"nodes": [{"name": "a\\u001b[2J"}, {"name": "b"}], "links": []}' > "$TMP/escnode.json"
h 2 'nodes[0].name: must be a string of 1 to 31 characters without control characters' -- topo "$TMP/escnode.json"
h 2 'all_to_all on 4096 ranks of the topology: 16773120 transfers, more than the flow engine' -- predict -m mixtral-8x7b --set model.experts=4096 --set cluster.gpus=4096 --tp 1 --pp 1 --ep 4096 --gb 4096 --set cluster.topology=fat_tree:hosts=4096,radix=32
# 15. a directory as an input file
h 3 '/tmp: is a directory; the scenario file must be a file' -- predict /tmp
h 3 '/tmp: is a directory; the CSV file must be a file' -- validate /tmp
h 3 '/tmp: is a directory; the topology file must be a file' -- topo /tmp
h 3 '/tmp: is a directory; the graph file must be a file' -- predict --set model.graph=/tmp
h 3 '/tmp: is a directory; the trace must be a file' -- trace /tmp
# 17. a topology node kind that is not a string became a GPU
printf '{"nodes": [{"name": "a", "kind": 5}, {"name": "b"}], "links": [{"from": "a", "to": "b", "bw_GBps": 1}]}' > "$TMP/kind5.json"
h 2 'nodes[0].kind: must be a string' -- topo "$TMP/kind5.json"
printf '{"nodes": [{"name": "a", "kind": null}, {"name": "b"}], "links": [{"from": "a", "to": "b", "bw_GBps": 1}]}' > "$TMP/kindnull.json"
h 2 'nodes[0].kind: must be a string' -- topo "$TMP/kindnull.json"
h 2 'generator ring: bw: the value is 73 characters long; at most 63' -- topo 'ring:n=4,bw=1111111111111111111111111111111111111111111111111111111111111111111111111'
h 2 'algorithm rhd of all_reduce needs a power-of-two rank count, got 6 (valid: 4 or 8 ranks' -- collective --algo rhd --ranks 6 --ppn 1 --topo ring:n=6
h 2 "--train-tokens expects a number of tokens in 1..1e18, e.g. 15e12, got 'inf'" -- predict --train-tokens inf
h 2 "--train-tokens expects a number of tokens in 1..1e18, e.g. 15e12, got '1e999'" -- predict --train-tokens 1e999
h 2 "unknown option '--bogus'" -- presets --bogus
h 2 '--dp-scale expects a number in 1e-9..1e9' -- trace examples/traces --dp-scale inf
# 16. debug builds aborted on user input: one rank on a topology, a send to itself
h 0 'flow engine: ring:n=4' -- collective --ranks 1 --ppn 1 --topo ring:n=4 --max 4K
h 0 'flow engine: ring:n=4' -- collective --op send_recv --ranks 1 --ppn 1 --topo ring:n=4 --max 4K
h 0 'flow engine: ring:n=8' -- collective --ranks 8 --ppn 1 --algo hier --topo ring:n=8 --max 4K
h 0 'broadcast, 4 ranks' -- collective --op broadcast --ranks 4 --ppn 1 --topo ring:n=4 --max 4K
# 5 (traces). /dev/zero as a profiler trace was read to 2 GiB
h 2 "neither a JSON trace (a '{' or '[' first) nor a Chakra ET: it starts with byte 0x00" -- trace "$TMP/zero.json"
# 4 (traces). durations of 1e308 us printed "span_s": inf; denormal durations
python3 - "$ROOT/examples/traces/rank0.json" "$TMP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, dur in (("huge", 1e308), ("tiny", 4.9e-324)):
    for e in d["traceEvents"]:
        if "dur" in e:
            e["dur"] = dur
    json.dump(d, open(sys.argv[2] + "/%s_trace.json" % name, "w"))
PY
h 2 'traceEvents[0].dur: expected 0 or a number of microseconds in 1e-6..1e13' -- trace "$TMP/huge_trace.json" --format json
h 2 'traceEvents[0].dur: expected 0 or a number of microseconds in 1e-6..1e13' -- trace "$TMP/tiny_trace.json"
# 18. messages
printf '{"nodes": [{"name": "a"}, {"name": "b"}, {"name": "a"}], "links": [{"from": "a", "to": "b", "bw_GBps": 1}]}' > "$TMP/dup.json"
h 2 'nodes[2].name: "a" is also the name of nodes[0]' -- topo "$TMP/dup.json"
h 2 'is smaller than dp 8' -- predict --gb 4
h 2 'valid nearby: 8 or 16' -- predict --gb 12
printf '%s\rx1,s,all_reduce,1048576,8,8,a100-sxm4-80gb,300,,50\rx2,s,all_reduce,2097152,8,8,a100-sxm4-80gb,300,,60\r' "$C" > "$TMP/cr.csv"
h 0 '  x2                                     60' -- validate "$TMP/cr.csv"
# 19. the same input gives the same bytes (wall times only with --timings)
for fmt in table json csv; do
  # shellcheck disable=SC2086
  a=$("$CLI" validate --format $fmt $VAL | md5sum); b=$("$CLI" validate --format $fmt $VAL | md5sum)
  [[ $a == "$b" ]] && pass=$((pass + 1)) || { echo "FAIL: validate --format $fmt differs run to run"; fail=$((fail + 1)); }
done
h 0 '' -- validate --timings
# 20. the keys of the AMP, memory, recsys, tp_async and routing-group merges
h 2 'plan.amp: expected true or false, got integer 2' -- predict --set plan.amp=2
h 2 'plan.amp: automatic mixed precision runs 16-bit GEMMs beside fp32 parameters: plan.dtype "fp16" or "bf16" (is "fp32")' -- predict --set plan.amp=true --dtype fp32
h 2 'plan.param_remainders: the remainders of fp32 master weights need bf16 parameters' -- predict --set plan.param_remainders=true --dtype fp16
h 2 'plan.tp_async_bwd: expected true or false, got null' -- predict --set plan.tp_async_bwd=null
h 2 'plan.moe_router_groups: 4 needs an MoE model (model.experts > 1); valid: 0' -- predict --set plan.moe_router_groups=4
h 2 'plan.moe_router_group_topk 2 without plan.moe_router_groups' -- predict examples/mixtral-8x7b-h100.json --set plan.moe_router_group_topk=2
h 2 'plan.overrides[0].ep: 16 must divide model.experts 8' -- predict examples/mixtral-8x7b-h100.json --set 'plan.overrides=[{"layers": [0, 3], "ep": 16}]'
sed 's/"optimizer": "sgd"/"optimizer": "adagrad", "kernel": "per_tables"/' "$ROOT/examples/recsys/dlrm_criteo_8gpu.json" > "$TMP/kernel.json"
h 2 'training.kernel: expected fused, hash or per_table' -- recsys predict "$TMP/kernel.json"
# 21. the dropout keys: NaN, out of range, a string, on a BERT or CNN preset
# and on a graph; a graph's no_dropout that is not a bool or on another op
h 2 'model.attention_dropout: expected a probability in [0, 1)' -- predict --set model.attention_dropout=nan
h 2 'model.hidden_dropout: 1.5 is out of range' -- predict --set model.hidden_dropout=1.5
h 2 'model.hidden_dropout: -1e-300 is out of range' -- predict --set model.hidden_dropout=-1e-300
h 2 'model.attention_dropout: expected a probability in [0, 1) (0 = no dropout: no mask, no kernel; 1 is refused: it drops everything), got string' -- predict --set 'model.attention_dropout="0.1"'
# a rate of 1 is refused (PyTorch returns zeros there: no mask, another kernel), exit 2 naming the key
h 2 'model.hidden_dropout: 1 is out of range (valid: a probability in [0, 1) (0 = no dropout: no mask, no kernel; 1 is refused: it drops everything), below 1)' -- predict --set model.hidden_dropout=1
h 2 'model.attention_dropout: 1 is out of range' -- search --set model.attention_dropout=1
h 2 'model.hidden_dropout does not apply to bert_large (a BERT preset)' -- predict --set model.preset=bert_large --set model.hidden_dropout=0
h 2 'model.attention_dropout does not apply to resnet50 (a CNN preset)' -- predict --set model.preset=resnet50 --set model.attention_dropout=0.1
h 2 'model.attention_dropout: applies to transformer specs, not to a graph' -- predict --set model.graph=examples/graphs/llama-2layer.json --set model.attention_dropout=0
sed '0,/"no_dropout": true/s//"no_dropout": "yes"/' "$ROOT/examples/graphs/llama-2layer.json" > "$TMP/nodrop.json"
h 2 'no_dropout (op "attn"): expected true or false, got string "yes"' -- predict --set model.graph="$TMP/nodrop.json"
sed '0,/"out_features": 6144, "parallel": "column"/s//"out_features": 6144, "parallel": "column", "no_dropout": true/' "$ROOT/examples/graphs/llama-2layer.json" > "$TMP/nodrop2.json"
h 2 'no_dropout (op "qkv"): does not apply to "op": "linear"' -- predict --set model.graph="$TMP/nodrop2.json"

# 22. model.fused_bn (ResNet presets, 0 or 1), plan.fused_kernels (a bool)
# and the dp fusion keys: exit 2 naming what would be valid
h 2 'model.fused_bn: inception_v3 has no fused batch norm (valid: the ResNets)' -- predict --set model.preset=inception_v3 --set model.fused_bn=1
h 2 'model.fused_bn: vgg16 has no fused batch norm (valid: the ResNets)' -- dp --set model.preset=vgg16 --set model.fused_bn=1
h 2 'model.fused_bn: expected an integer 0..1, got integer 2' -- predict --set model.preset=resnet50 --set model.fused_bn=2
h 2 'model.fused_bn: expected an integer 0..1, got true' -- predict --set model.preset=resnet50 --set model.fused_bn=true
h 2 'model.fused_bn does not apply to bert_large (a BERT preset); valid: preset, name, optimizer, seq, tokens, mlm_positions, mlm_all_positions' -- predict --set model.preset=bert_large --set model.fused_bn=1
h 2 'model.fused_bn applies to ResNet presets only, not to a transformer spec' -- predict --set model.fused_bn=1
h 2 'model.mlm_all_positions: expected an integer 0..1, got integer 2' -- predict --set model.preset=bert_base --set model.mlm_all_positions=2
h 2 'model.mlm_all_positions applies to BERT presets only, not to a transformer spec' -- predict --set model.mlm_all_positions=1
h 2 'model.fused_bn applies to ResNet presets only, not to a graph' -- predict --set model.graph=examples/graphs/llama-2layer.json --set model.fused_bn=1
h 2 "model.keras: alexnet_tfcnn is not one of Keras' applications (valid: resnet50_v1, resnet101_v1, resnet152_v1, vgg16, inception_v3)" -- predict --set model.preset=alexnet --set model.keras=1
h 2 'model.l2_ops: expected an integer 0..1, got integer 2' -- predict --set model.preset=vgg16 --set model.l2_ops=2
h 2 'model.l2_ops applies to CNN presets only, not to a transformer spec' -- predict --set model.l2_ops=1
h 2 'model.l2_ops does not apply to bert_base (a BERT preset)' -- dp --set model.preset=bert_base --set model.l2_ops=1
h 2 'model.optimizer: "rmsprop" is not an optimizer (valid: sgd, momentum, adam, adamw, lamb or adagrad)' -- predict --set model.preset=resnet50 --set model.optimizer=rmsprop
h 2 'model.optimizer: expected sgd, momentum, adam, adamw, lamb or adagrad (a string), got integer 2' -- predict --set model.preset=bert_large --set model.optimizer=2
h 2 'model.optimizer applies to CNN and BERT presets only, not to a transformer spec' -- predict --set model.optimizer=sgd
h 2 'model.optimizer applies to CNN and BERT presets only, not to a graph' -- predict --set model.graph=examples/graphs/llama-2layer.json --set model.optimizer=adam
h 2 'model.plain_sgd: unknown key; valid keys in model' -- predict --set model.preset=resnet50 --set model.plain_sgd=1
h 2 'model.tokens applies to BERT presets only, not to a graph' -- predict --set model.graph=examples/graphs/llama-2layer.json --set model.tokens=64
h 2 'plan.fused_kernels: expected true or false, got integer 2' -- predict --set model.preset=bert_base --set plan.fused_kernels=2
h 2 'dp.cycle_ms: -5 is out of range (valid: ms (0 = the framework' -- dp --set dp.cycle_ms=-5
h 2 'dp.bucket_MB: 1e+300 is out of range' -- dp --set dp.bucket_MB=1e300
h 2 'dp.grad_bytes: 9 is out of range' -- dp --set dp.grad_bytes=9
h 2 'dp.fusion: unknown value string "xla"; valid: auto, ddp, horovod, tensor, none, megatron' -- dp --set dp.fusion=xla

# an empty name would print a blank label in every output: refused
printf '{"model": {"name": ""}}' > "$TMP/noname.json"
h 2 'model.name: is empty; give a name (it labels every output)' -- predict "$TMP/noname.json"
h 2 'cluster.gpu.name: is empty; give a name' -- predict --set cluster.gpu.name=
h 2 'cluster.name: is empty; give a name' -- dp --set cluster.name=

# a value's place in the file (src/load/jpos.h): a key written with escapes,
# strings that hold brackets and quotes before it, multi-byte characters
# counted as one column, an error deep in a large file, none for an override
printf '{"model": {"name": "[{\\"x\\": ]} \xc3\xa9"},\n "pl\\u0061n": {"tp": "8"}}' > "$TMP/pos.json"
h 2 'pos.json:2:22: plan.tp: expected a positive integer, got string "8"' -- predict "$TMP/pos.json"
h 2 'pos.json: plan.tp: expected a positive integer, got string "x" (set by override "plan.tp=x")' -- predict "$TMP/pos.json" --set plan.tp=x
python3 -c 'import json; print(json.dumps({"nodes": [{"name": "n%d" % i} for i in range(200000)], "links": [{"from": "n0", "to": "n1", "bw_GBps": "x"}]}, indent=1))' > "$TMP/bigtopo.json"
h 2 'bigtopo.json:600008:15: links[0].bw_GBps: must be a number' -- topo "$TMP/bigtopo.json"
sed 's/"global_batch": 55296/"global_batch": [55296]/' "$ROOT/examples/recsys/dlrm_criteo_8gpu.json" > "$TMP/rsbatch.json"
h 2 'rsbatch.json:12:32: training.global_batch: expected a number' -- recsys predict "$TMP/rsbatch.json"
# a syntax error is "invalid JSON" in every loader (topology and recsys
# files printed jansson's text alone)
printf '{"model": {\n  "tables" "1x10x13@1"}}' > "$TMP/rssyntax.json"
h 2 "rssyntax.json:2:22: invalid JSON: ':' expected near" -- recsys predict "$TMP/rssyntax.json"
h 2 'ring8-chords.edges:1:1: invalid JSON: ' -- topo examples/dp/ring8-chords.edges

echo "hostile: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
