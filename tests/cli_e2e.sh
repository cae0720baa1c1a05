#!/usr/bin/env bash
# cli_e2e.sh -- end-to-end checks of the stepcast CLI: exit codes and
# messages. Usage: tests/cli_e2e.sh PATH/TO/stepcast
# Prints one line per failure and a final "N passed, N failed"; exits 1
# when anything failed.
set -u
CLI=${1:?usage: cli_e2e.sh PATH/TO/stepcast}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh"

# ------------------------------------------------------- the MFU note
# above 60 % of the peak of the plan's own GEMM type; an fp8 plan at 91 %
# of the bf16 peak is at 46 % of its own and gets none
expect 0 'note: MFU above 60 %' -- predict -m mpt-30b -g a100-sxm4-80gb -n 8 --tp 1 --pp 1 --gb 64 --set plan.zero=3
out=$("$CLI" predict -m mpt-30b -g h100-sxm5-80gb -n 8 --tp 1 --pp 1 --gb 64 --set plan.zero=3 --dtype fp8 2>&1)
if [[ $out == *"of the fp8 peak"* && $out != *"note: MFU above 60"* ]]; then
  pass=$((pass + 1))
else
  echo "FAIL: an fp8 plan below 60 % of the fp8 peak got the MFU note"; fail=$((fail + 1))
fi

# ---------------------------------------------------------------- input errors
printf '{\n  "plan": {"tp": 8,\n    "pp" 4}\n}\n' > "$TMP/syntax.json"
expect 2 "$TMP/syntax.json:3:" -- predict "$TMP/syntax.json"
printf '{"plan": {"tp": 8, "tp": 4}}' > "$TMP/dup.json"
expect 2 "duplicate" -- predict "$TMP/dup.json"
printf '{"plan": {"tpp": 8}}' > "$TMP/unknown.json"
expect 2 'plan.tpp: unknown key; did you mean "tp"?' -- predict "$TMP/unknown.json"
expect 2 'valid keys in plan: tp, pp, dp' -- predict "$TMP/unknown.json"
printf '{"plan": {"tp": "8"}}' > "$TMP/type.json"
expect 2 'plan.tp: expected a positive integer, got string "8"' -- predict "$TMP/type.json"
printf '{"plan": {"zero": 5}}' > "$TMP/range.json"
expect 2 'plan.zero: 5 is out of range (valid: 0..3)' -- predict "$TMP/range.json"
printf '{"model": "llama3-7b"}' > "$TMP/preset.json"
expect 2 'unknown model preset "llama3-7b"; did you mean' -- predict "$TMP/preset.json"
expect 2 'unknown GPU preset "h100"; did you mean "h100-sxm5-80gb"?' -- predict --gpu h100
expect 2 "--engine expects 'closed' or 'event'" -- validate --row vt1-1 --engine evnt ../shared/validation/training/vtrain_single_node.csv
# validate --row --ops: one layer's operators of the row's scenario (an fp8
# row shows Transformer Engine's quantization kernels); closed form only
expect 0 "cast_fc2" -- validate --row dgxc-v2505-llama31-405b-gb200-fp8-128 --ops ../shared/validation/training/dgxc_benchmarking.csv
expect 0 '"layer_ops"' -- validate --row dgxc-v2505-llama31-405b-gb200-fp8-128 --ops --format json ../shared/validation/training/dgxc_benchmarking.csv
expect 2 "--ops goes with the closed form" -- validate --row vt1-1 --ops --engine event ../shared/validation/training/vtrain_single_node.csv
expect 2 'not a training set (no '"'measured_iter_s'"' column); a collectives set: `stepcast validate FILE --format csv` gives each row'"'"'s prediction' -- validate --row vt-ar-v100-2-1M ../shared/validation/collectives/vtrain_allreduce_v100.csv
expect 2 "no row with id 'vt1-01'; did you mean" -- validate --row vt1-01 ../shared/validation/training/vtrain_single_node.csv
expect 2 "valid: 1440 ids, 'vt1-1' .. 'vt1-1440'" -- validate --row nosuch ../shared/validation/training/vtrain_single_node.csv
expect 2 'unknown cluster preset' -- predict --set cluster.preset=dgx-z100
expect 2 'plan.tp: 5 does not divide model.heads 96' -- predict --tp 5
expect 2 'valid tp: 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96' -- predict --tp 5
expect 2 'plan.tp: 16 does not divide model.kv_heads 8' -- predict -m llama3-70b --tp 16 --pp 8
expect 2 'tp*pp*dp*cp = 8*16*4*1 = 512 but cluster.gpus = 1024; use dp 8' -- predict --dp 4
expect 2 'cannot derive dp: cluster.gpus 1000' -- predict --gpus 1000
expect 2 'plan.micro_batch: 5 x dp 8 does not divide plan.global_batch 1536' -- predict --mb 5
expect 2 'valid micro_batch: 1, 2, 3, 4, 6, 8' -- predict --mb 5
expect 2 'plan.pp: 64 does not divide the 96 layers of the model' -- predict --pp 64 --dp 2
expect 2 'plan.vpp: 4 does not divide the 6 layers per pipeline stage' -- predict --vpp 4
expect 2 'plan.ep: 16 must divide model.experts 8' -- predict -m mixtral-8x7b --pp 4 --ep 16
expect 2 'plan.cp: 3 does not divide model.seq 2000' -- predict --seq 2000 --cp 3 --pp 4
expect 2 'the interleaved schedule needs vpp >= 2' -- predict --schedule interleaved --vpp 1
expect 2 'plan.schedule: "interleaved" needs plan.pp > 1' -- predict --pp 1 --vpp 2
expect 2 'model.hidden: 1000 is not divisible by model.heads 96' -- predict --set model.hidden=1000
expect 2 'set model.head_dim' -- predict --set model.hidden=1000
expect 2 'override "plan.tpp=8": plan.tpp: unknown key' -- predict --set plan.tpp=8
expect 2 '(set by override "plan.tp=abc")' -- predict --set plan.tp=abc
# a short flag is blamed as typed, not as the override it became
expect 2 'cluster.gpus: 0 is out of range (valid: 1..16777216) (set by -n 0)' -- predict -n 0
expect 2 '(set by --gpus 0)' -- search --gpus 0
# another model and GPU count on the default's plan: the note says where tp 8 / pp 16 came from
expect 2 "without a scenario file the plan is the built-in default's (gpt3-175b on 1024 GPUs: tp 8, pp 16)" -- predict -m llama3-8b -n 8
expect 3 'cannot read' -- predict "$TMP/does-not-exist.json"
printf '\xff\xfe garbage' > "$TMP/binary.json"
expect 2 "$TMP/binary.json:1:" -- predict "$TMP/binary.json"

# ------------------------------------------------------------ workload graphs
cat > "$TMP/g.json" <<'JSON'
{"name": "tiny", "seq": 16,
 "blocks": [
  {"name": "layer", "repeat": 2, "input": {"name": "x", "shape": [16, 64]},
   "ops": [
    {"name": "n1", "op": "layernorm", "in": ["x"], "out": "h"},
    {"name": "fc1", "op": "linear", "in": ["h"], "out": "u", "out_features": 256, "parallel": "column"},
    {"name": "act", "op": "gelu", "in": ["u"], "out": "a"},
    {"name": "fc2", "op": "linear", "in": ["a"], "out": "v", "out_features": 64, "parallel": "row"},
    {"name": "res", "op": "add", "in": ["v", "x"], "out": "y"}],
   "output": "y"}]}
JSON
expect 0 "workload graph $TMP/g.json" -- predict -m "$TMP/g.json" -n 8 --tp 2 --pp 2 --gb 8
sed 's/"in": \["h"\], "out": "u"/"in": ["a"], "out": "u"/' "$TMP/g.json" > "$TMP/cycle.json"
expect 2 "cycle: op 'fc1' -> op 'act' -> op 'fc1'" -- predict -m "$TMP/cycle.json"
sed 's/"in": \["u"\]/"in": ["w"]/' "$TMP/g.json" > "$TMP/dangling.json"
expect 2 "blocks[0].ops[2] (op \"act\"): input 'w' is dangling" -- predict -m "$TMP/dangling.json"
sed 's/"out": "a"}/"out": "a", "shape": [16, 128]}/' "$TMP/g.json" > "$TMP/shape.json"
expect 2 "(op \"act\"): shape mismatch: \"shape\" declares [16, 128] but the operator makes [16, 256]" -- predict -m "$TMP/shape.json"
sed 's/"op": "gelu"/"op": "gelux"/' "$TMP/g.json" > "$TMP/op.json"
expect 2 'unknown value string "gelux"; did you mean "gelu"? valid: linear' -- predict -m "$TMP/op.json"
expect 2 "plan.tp: 3 does not divide out_features 256 of op 'fc1' (block 'layer')" -- predict -m "$TMP/g.json" -n 3 --tp 3 --pp 1 --gb 3
expect 2 "drop model.layers" -- predict -m "$TMP/g.json" --set model.layers=4
expect 0 "overrides block layer: recompute full" -- predict -m "$TMP/g.json" -n 8 --tp 1 --pp 1 --gb 8 --set 'plan.overrides=[{"block": "layer", "recompute": "full"}]'
expect 2 'plan.overrides takes a value, not keys below it' -- predict --set plan.overrides.x=1
expect 2 'plan.overrides[1].layers: [99, 120] is not a range of layers (valid: 0 <= first <= last <= 95' -- predict --set 'plan.overrides=[{"layers": [40, 50], "recompute": "full"}, {"layers": [99, 120], "zero": 3}]'
expect 2 'plan.overrides[0].recompute: unknown value string "some"' -- predict --set 'plan.overrides=[{"layers": 3, "recompute": "some"}]'
expect 2 'plan.overrides[0]: name the layers' -- predict --set 'plan.overrides=[{"recompute": "full"}]'

# ------------------------------------------------------------------- examples
for f in "$ROOT"/examples/*.json; do
  expect 0 "step time" -- predict "$f"
done
for f in "$ROOT"/examples/graphs/*.json; do
  expect 0 "step time" -- predict -m "$f" -n 8 --tp 1 --pp 1 --gb 64
done

# ----------------------------------------------------------- predict/validate
expect 0 "step time" -- predict
expect 0 "step time" -- predict --tp 4 --pp 32 --mb 2
expect 0 '"step_s":' -- predict --format json
expect 0 "step_s,tokens_per_s" -- predict --format csv
expect 0 "flash_attn" -- predict --ops
expect 0 "days for 1.5e+13 tokens" -- predict --train-tokens 15e12
expect 0 '"train_days":' -- predict --train-tokens 15e12 --format json
# JSON carries the table's GPU-hours: days x 24 x GPUs (the default's 1,024 GPUs)
out=$("$CLI" predict --train-tokens 15e12 --format json 2>&1)
if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); h=d["train_gpu_hours"]; w=d["train_days"]*24*d["gpus"]; sys.exit(0 if abs(h-w) <= 1e-5*w else 1)' "$out"; then pass=$((pass + 1))
else echo "FAIL: train_gpu_hours is not train_days x 24 x gpus"; fail=$((fail + 1)); fi
expect 2 "--train-tokens expects" -- predict --train-tokens -3
expect 2 'plan.attention: "flash3" needs a Hopper' -- predict --set plan.attention=flash3
expect 0 "attention flash3" -- predict -g h100-sxm5-80gb --set plan.attention=flash3
# MoE parallel folding: ep beyond dp needs etp 1
expect 2 "or plan.etp 1 folds ep over the tensor-parallel ranks" -- predict -m mixtral-8x7b -g h100-sxm5-80gb -n 16 --tp 4 --pp 1 --ep 8 --gb 64
expect 0 "ep_comm_exposed" -- predict -m mixtral-8x7b -g h100-sxm5-80gb -n 16 --tp 4 --pp 1 --ep 8 --gb 64 --set plan.etp=1
expect 2 "plan.etp: 2; valid: 0 or 4" -- predict -m mixtral-8x7b -g h100-sxm5-80gb -n 16 --tp 4 --pp 1 --ep 2 --gb 64 --set plan.etp=2
# FSDP per framework, MoE as run: bad values name what would be valid
expect 2 'plan.fsdp_impl: unknown value string "megatron"; valid: fsdp2, fsdp1, deepspeed, xla' -- predict examples/mpt-7b-fsdp-8-a100.json --set plan.fsdp_impl=megatron
expect 2 "valid: 0, 1" -- predict examples/mpt-7b-fsdp-8-a100.json --set plan.fsdp_impl=fsdp1 --set plan.fsdp_prefetch=2
# the backward prefetch left to the implementation: FSDP1 none (PyTorch 1.13), FSDP2 one unit
expect 0 "fsdp1: reshard after forward, backward prefetch 0," -- predict examples/mpt-7b-fsdp-8-a100.json --set plan.fsdp_impl=fsdp1
expect 0 "fsdp2: reshard after forward, backward prefetch 1," -- predict examples/mpt-7b-fsdp-8-a100.json
expect 0 "dp_comm_exposed" -- predict examples/mpt-7b-fsdp-8-a100.json --set plan.fsdp_impl=deepspeed --set plan.ds_max_reuse=0
# DeepSpeed ZeRO-3 under pipeline parallelism: DeepSpeed refuses it (it was predicted);
# ZeRO-1 pipelines and FSDP2 pipelines stay valid
expect 2 "plan.pp: 16 with DeepSpeed ZeRO-3" -- predict --zero 3 --set plan.fsdp_impl=deepspeed
expect 0 "step time" -- predict --zero 1 --set plan.fsdp_impl=deepspeed
expect 0 "step time" -- predict --zero 3 --set plan.fsdp_impl=fsdp2
expect 2 "plan.moe_imbalance: 20 is more than the busiest of ep 8 ranks can hold" -- predict examples/mixtral-8x7b-h100.json --set plan.moe_imbalance=20
expect 2 "plan.moe_imbalance" -- predict examples/mixtral-8x7b-h100.json --set plan.moe_imbalance=0.5
# MoE token dispatchers and group-limited routing (src/plan/plan_moe.c)
MX=examples/mixtral-8x7b-h100.json
expect 2 'plan.moe_dispatcher: unknown value string "deepep"; did you mean "flex"? valid: alltoall, allgather, flex' -- predict $MX --set plan.moe_dispatcher=deepep
expect 2 'plan.moe_token_dispatcher_type: unknown key; did you mean "moe_dispatcher"?' -- predict $MX --set plan.moe_token_dispatcher_type=flex
expect 2 'plan.moe_router_num_groups: unknown key; did you mean "moe_router_groups"?' -- predict $MX --set plan.moe_router_num_groups=2
expect 2 'plan.moe_router_group_topk: 3 is more than plan.moe_router_groups 2; valid: 1..2' -- predict $MX --set plan.moe_router_groups=2 --set plan.moe_router_group_topk=3
expect 2 'plan.moe_router_groups: 3 must divide model.experts 8' -- predict $MX --set plan.moe_router_groups=3 --set plan.moe_router_group_topk=1
expect 2 'valid: 1, 2, 4, 8' -- predict $MX --set plan.moe_router_groups=3 --set plan.moe_router_group_topk=1
expect 0 'routing unlimited (2 router groups without moe_router_group_topk, as Megatron runs it)' -- predict $MX --set plan.moe_router_groups=2
expect 2 'plan.moe_router_group_topk 1 without plan.moe_router_groups: Megatron refuses it ("When using group limited routing, moe_router_num_groups must be specified.")' -- predict $MX --set plan.moe_router_group_topk=1
expect 2 '"flex" moves tokens between expert-parallel ranks and needs plan.ep > 1 (ep is 1); valid: "alltoall" or "allgather"' -- predict $MX --set plan.moe_dispatcher=flex --set plan.ep=1
expect 2 'does not support moe_pad_expert_input_to_capacity' -- predict $MX --set plan.moe_dispatcher=flex --set plan.moe_capacity=1.25
expect 0 'dispatch  flex (DeepEP) to all 2 expert-tensor ranks of an expert, 20 SMs, routing limited to 1 of 2 expert groups' -- predict $MX --set plan.moe_dispatcher=flex --set plan.moe_router_groups=2 --set plan.moe_router_group_topk=1
expect 0 'dispatch  flex (DeepEP), 20 SMs, routing limited to 1 of 2 expert groups' -- predict $MX --set plan.moe_dispatcher=flex --set plan.etp=1 --set plan.moe_router_groups=2 --set plan.moe_router_group_topk=1
expect 0 'dispatch  all-to-all, then all-gather over the 2 expert-tensor ranks' -- predict $MX
expect 0 'dispatch  all-gather / reduce-scatter over the 2 x 8 expert group' -- predict $MX --set plan.moe_dispatcher=allgather
# a row that names no dispatcher runs Megatron's default, and says so
{ head -1 "$ROOT/data/validation/training/dgxc_benchmarking.csv"
  echo 'moe-1,test,Mixtral-8x7B,32,4096,32,8,14336,32000,4096,8,2,256,1,2,4,8,1,8,1,1,1,selective,bf16,h100-sxm5-80gb,64,8,8,450,400,4.0,test,Megatron-Core'
  echo 'moe-2,test,Mixtral-8x7B,32,4096,32,8,14336,32000,4096,8,2,256,1,2,4,8,1,8,1,1,1,selective,bf16,h100-sxm5-80gb,64,8,8,450,400,4.0,test,Megatron-Core; --moe-token-dispatcher-type alltoall'
} > "$TMP/moe_rows.csv"
expect 0 "MoE dispatcher allgather (Megatron's default; the notes name none)" -- validate "$TMP/moe_rows.csv"
sed 's/,Megatron-Core$/,NeMo 2.0 recipe/' "$TMP/moe_rows.csv" > "$TMP/moe_rows_nemo.csv"
expect 0 "MoE dispatcher alltoall (NeMo's MoE configs' default; the notes name none)" -- validate "$TMP/moe_rows_nemo.csv"
# a dense row's "num_groups" (GroupNorm's, say) is not a routing group: the row is
# predicted (1-2 s), not skipped
{ head -1 "$ROOT/data/validation/training/dgxc_benchmarking.csv"
  echo 'dense-1,test,dense-7B,32,4096,32,8,14336,32000,4096,1,1,256,1,2,4,8,1,1,1,1,1,selective,bf16,h100-sxm5-80gb,64,8,8,450,400,4.0,test,Megatron-Core; GroupNorm num_groups 32 group_topk 2'
} > "$TMP/dense_groups.csv"
expect 0 'dense_groups.csv,training,dense-1,4,1.' -- validate --format csv "$TMP/dense_groups.csv"
# pipeline stage layouts (Megatron-Core's rules)
expect 2 "plan.pp: 8 does not divide the 126 layers of the model" -- predict -m llama3.1-405b -g h100-sxm5-80gb -n 1024 --tp 8 --pp 8 --cp 2 --gb 512 --set plan.vpp=8
expect 0 "step time" -- predict -m llama3.1-405b -g h100-sxm5-80gb -n 1024 --tp 8 --pp 8 --cp 2 --gb 512 --set plan.vpp=8 --set plan.pp_embedding_in_split=true --set plan.pp_loss_in_split=true
expect 2 "plan.pp_layout: the entries add up to 95 layers; the model has 96" -- predict --set 'plan.pp_layout=[5,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6]'
expect 2 "leave 83 of the 96 layers for 14 middle stages" -- predict --set plan.pp_first_layers=5 --set plan.pp_last_layers=8
expect 0 "step time" -- predict --set plan.pp_first_layers=4 --set plan.pp_last_layers=8
expect 0 "step time" -- predict --pp 4 --gb 64 --trace "$TMP/trace.json"
if grep -q '"traceEvents"' "$TMP/trace.json" 2>/dev/null; then pass=$((pass + 1)); else echo "FAIL: --trace wrote no trace"; fail=$((fail + 1)); fi
expect 3 "cannot write" -- predict --trace "$TMP/no/such/dir/t.json"
# a reader that closes the pipe early: exit 3 with the message (it was a
# death by SIGPIPE, 141), 700 KB of JSON being far more than a pipe holds
"$CLI" validate --format json 2> "$TMP/pipe.err" | head -c 1 > /dev/null
rc=${PIPESTATUS[0]}
if [[ $rc -eq 3 ]] && grep -q "cannot write the output" "$TMP/pipe.err"; then pass=$((pass + 1))
else echo "FAIL: validate --format json | head -c 1 -> exit $rc, expected 3 and a message"; fail=$((fail + 1)); fi
expect 0 '"layer_ops"' -- predict --ops --format json
expect 1 "fits: NO" -- predict -n 8 --tp 8 --pp 1 --gb 8 --set plan.zero=0 --require-fit
# the memory model's 3 % band (docs/accuracy.md): the default plan needs
# 21.1 GiB a GPU; on 21.5 GiB it fits but may not, on 20.7 it does not but
# may, on 20.0 it does not (clear). --require-fit judges `fits` alone.
expect 0 "fits: marginal -- 21.1 of 21.5 GiB (0.4 GiB free); within the memory model's 3 % band (docs/accuracy.md): may not fit" -- predict --set cluster.gpu.hbm_GiB=21.5 --require-fit
expect 1 "fits: marginal, NO -- needs 21.1 GiB, the GPU has 20.7 GiB (0.4 GiB over); within the memory model's 3 % band (docs/accuracy.md): may fit" -- predict --set cluster.gpu.hbm_GiB=20.7 --require-fit
expect 1 "fits: NO -- needs 21.1 GiB, the GPU has 20.0 GiB (1.1 GiB over)" -- predict --set cluster.gpu.hbm_GiB=20 --require-fit
expect 0 "fits: yes (" -- predict --set cluster.gpu.hbm_GiB=30
expect 0 '"fits": true, "fits_confidence": "marginal"' -- predict --set cluster.gpu.hbm_GiB=21.5 --format json
expect 0 '"fits": false, "fits_confidence": "marginal"' -- predict --set cluster.gpu.hbm_GiB=20.7 --format json
expect 0 '"fits": true, "fits_confidence": "clear"' -- predict --format json
expect 0 ',fits,fits_marginal' -- predict --format csv
expect 0 ',1,1' -- predict --set cluster.gpu.hbm_GiB=21.5 --format csv
expect 0 "fits: marginal" -- predict --set cluster.gpu.hbm_GiB=21.5 --html "$TMP/marginal.html"
if grep -q "21.1 of 21.5 GiB (fits, marginal: within the memory model's 3 % band, may not fit)" "$TMP/marginal.html"; then
  pass=$((pass + 1))
else echo "FAIL: the HTML summary does not say the verdict is marginal"; fail=$((fail + 1)); fi
# search: the same plans, the marginal ones marked (57.1 GiB on 58)
expect 0 "57.1  marginal" -- search -m gpt3-13b -n 64 --gb 256 --top 3 --set cluster.gpu.hbm_GiB=58 --no-rerank
expect 0 "57.1        2.964  marginal" -- search -m gpt3-13b -n 64 --gb 256 --top 3 --set cluster.gpu.hbm_GiB=58
expect 0 "--headroom 3% keeps only plans clear of it" -- search -m gpt3-13b -n 64 --gb 256 --top 3 --set cluster.gpu.hbm_GiB=58
# a GPU an override changed is not printed as its preset: the keys changed follow
expect 0 "1024 x a100-sxm4-80gb (modified: hbm_GiB), 8 per node" -- predict --set cluster.gpu.hbm_GiB=40
expect 0 '"gpu": "a100-sxm4-80gb", "gpu_modified": ["hbm_GiB"], "gpus"' -- predict --set cluster.gpu.hbm_GB=40 --format json
printf '{"cluster": {"gpu": {"preset": "h100-sxm5-80gb", "peak_tflops": {"bf16": 500}, "launch_us": 9}}}' > "$TMP/gpumod.json"
expect 0 '"gpu": "h100-sxm5-80gb", "gpu_modified": ["peak_tflops", "launch_us"], "gpus"' -- predict "$TMP/gpumod.json" --format json
expect 0 "on 16 x v100-sxm2-32gb (modified: hbm_GiB) (8 per server)" -- dp --set cluster.gpu.hbm_GB=20
out=$("$CLI" predict --format json 2>&1)
if [[ $out == *'"gpu": "a100-sxm4-80gb", "gpus"'* ]]; then pass=$((pass + 1))
else echo "FAIL: an unmodified preset GPU got gpu_modified"; fail=$((fail + 1)); fi
# predict and dp --headroom: search's option, the fit verdict needs that much free
# (the default plan needs 21.1 of 80 GiB; 58.9 free)
expect 0 "fits: yes (58.9 GiB free)" -- predict --headroom 50
expect 1 "leaving 58.9 GiB free: less than the 60.0 GiB of headroom asked for" -- predict --headroom 60 --require-fit
expect 1 "less than the 60.0 GiB of headroom asked for" -- predict --headroom 75% --require-fit --engine event
expect 0 '"fits": false' -- predict --headroom 0.75 --format json
expect 0 '"fits": true' -- predict --headroom 0.7 --format json
expect 2 "stepcast predict: --headroom: expected GiB (4)" -- predict --headroom abc
expect 0 '"fits": true' -- dp --format json
expect 0 '"fits": false' -- dp --headroom 99% --format json
expect 2 "stepcast dp: --headroom: expected" -- dp --headroom -1
expect 1 "marginal: within the memory model's 3 % band of the GPU's memory (docs/accuracy.md): it may fit" -- search -m gpt3-13b -n 64 --gb 256 --top 3 --set cluster.gpu.hbm_GiB=4.6
expect 0 ',offload_layers,fits_marginal,compute_s,host_overhead_s,' -- search -m gpt3-13b -n 64 --gb 256 --top 3 --format csv
# re-ranked by the event engine unless --no-rerank (docs/search.md), the table says which;
# each plan's breakdown under the table (adds up to its step), in CSV, and in JSON with its accuracy
expect 0 "ranked by the event engine: the closed form's top 3, each re-run" -- search -m gpt3-13b -n 64 --gb 256 --top 3
expect 0 "ranked by the closed-form engine;" -- search -m gpt3-13b -n 64 --gb 256 --top 3 --no-rerank
expect 0 "ranked by the event engine: the closed form's top 3" -- search -m gpt3-13b -n 64 --gb 256 --top 3 --no-rerank --rerank
expect 0 "where the time goes, s: the event engine's critical path (adds up to event s)" -- search -m gpt3-13b -n 64 --gb 256 --top 3
expect 0 "where the time goes, s: the closed form's (adds up to step s)" -- search -m gpt3-13b -n 64 --gb 256 --top 3 --no-rerank
expect 0 ',event_optimizer_s,event_offload_exposed_s,ranked_by,closest,stopped' -- search -m gpt3-13b -n 64 --gb 256 --top 3 --format csv
# a batch of 2^34 sequences: the event engine is not run on a million micro-batches (it
# would not end); the closed form's order, and why
expect 0 "note: not re-ranked: the event engine is not run on plan 1: 1048576 micro-batches" -- search --gb 17179869184 --all --top 1
expect 0 '"ranked_by": "closed_form"' -- search --gb 17179869184 --all --top 1 --format json
expect 0 '"rerank_error": "the event engine is not run on plan 1' -- search --gb 17179869184 --all --top 1 --format json
rr_json=$("$CLI" search -m gpt3-13b -n 64 --gb 256 --top 3 --format json)
if python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked_by"] == "event" and len(d["plans"]) == 3
for p in d["plans"]:
    assert p["accuracy"]["class"], p
    assert abs(sum(p["event_time_s"].values()) - p["event_step_s"]) <= 1e-4 * p["event_step_s"], p
    assert abs(sum(p["time_s"].values()) - p["step_s"]) <= 1e-4 * p["step_s"], p
steps = [p["event_step_s"] for p in d["plans"]]
assert steps == sorted(steps), steps
' <<<"$rr_json"; then pass=$((pass + 1))
else echo "FAIL: search JSON: re-ranked plans without accuracy or event_time_s adding up"; fail=$((fail + 1)); fi
band_out=$("$CLI" search -m gpt3-13b -n 64 --gb 256 --top 3 --set cluster.gpu.hbm_GiB=58 --format json)
if grep -q '"fits_confidence": "marginal"' <<<"$band_out" &&
   [[ $(grep -c '"tp": ' <<<"$band_out") -eq 3 ]] &&
   ! grep -q 'marginal' <<<"$("$CLI" search -m gpt3-13b -n 64 --gb 256 --top 3)"; then
  pass=$((pass + 1))
else echo "FAIL: search marks no marginal plan on 58 GiB, or marks one on 80"; fail=$((fail + 1)); fi
expect 2 "--format expects" -- predict --format xml
expect 2 "unknown option '--bogus'" -- predict --bogus
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 0 "usage: stepcast" -- --help
expect 0 "a100-sxm4-80gb" -- presets
# the listing says what each GPU has: its dense peak with the type (the K80
# has no 16-bit path; its fp32 at the 562 MHz base clock), "memory" (GDDR boards
# too), the link by its kind
expect 0 "k80                  2.8 TFLOP/s fp32" -- presets
# an AMD cluster's GPU-to-GPU domain is Infinity Fabric, not NVLink
expect 0 "azure-nd-mi300x-v5 mi300x, 8 GPUs per node, Infinity Fabric domain 8," -- presets
presets_out=$("$CLI" presets)
if grep -q " 0 TFLOP/s\|HBM" <<<"$presets_out" ||
   grep -- "-pcie-" <<<"$presets_out" | grep -qv "GB/s PCIe$" ||
   ! grep -q "mi300x .* GB/s Infinity Fabric$" <<<"$presets_out"; then
  echo "FAIL: presets: a zero peak, 'HBM', or a link named for what it is not"; fail=$((fail + 1))
else pass=$((pass + 1)); fi
# JSON and CSV carry what the table says of a cluster (its fabric, its host
# side) and whole byte counts (80 GiB, not 8.58993e+10)
expect 0 '"name": "aws-p5", "gpu": "h100-sxm5-80gb", "gpus_per_node": 8, "nvlink_domain": 8, "nic_Bps": 50000000000, "fabric": "efa"' -- presets --format json
expect 0 '"name": "h100-sxm5-80gb", "tflops_16bit": 989.4, "hbm_bytes": 85899345920,' -- presets --format json
expect 0 'cluster,dgx-a100,,,,,,,,,,,a100-sxm4-80gb,8,8,25000000000,,,,,infiniband,2,0,409600000000,2000000000000' -- presets --format csv
expect 0 "plans tried" -- search -m gpt3-13b -n 64 --gb 256 --top 5
# search --html draws memory in GiB, as its tooltips and the table (its axis was bytes)
expect 0 "memory per GPU, GiB" -- search -m gpt3-13b -n 64 --gb 256 --top 5 --no-rerank --html -
expect 0 '"plans": [' -- search -m gpt3-13b -n 64 --gb 256 --top 2 --format json
expect 1 "no plan fits" -- search -n 8 --gb 64
# search --help gives --tp one meaning: the fixed degree, not "same as --set plan.tp"
expect 0 "fix that degree" -- search --help
if "$CLI" search --help | grep -q -- "--tp  *same as --set"; then
  echo "FAIL: search --help lists --tp twice"; fail=$((fail + 1))
else pass=$((pass + 1)); fi
# every search option's value is parsed by the library (sc_search_opts_set):
# one message format, under the option's own name (--max-mb, not its key)
expect 2 "--top: expected an integer 1..1000, got '0'" -- search --top 0
expect 2 "--threads: expected an integer 1..4096, got '0'" -- search --threads 0
expect 2 "--max-seconds: expected seconds > 0, got '-1'" -- search --max-seconds -1
expect 2 "--max-plans: expected an integer 1..1000000000, got 'x'" -- search --max-plans x
expect 2 "--max-mb: expected an integer 1..4096, got '0'" -- search --max-mb 0
expect 2 "--tp: expected an integer 1..16777216, got 'x'" -- search --tp x
# each option --help lists is one the search takes
for opt in $("$CLI" search --help | grep -o -- '--max-[a-z]*\|--threads\|--all\|--rerank\|--no-rerank\|--zero\|--dtypes\|--headroom' | sort -u); do
  # (a trailing unknown option stops it before any search runs)
  if "$CLI" search "$opt" --zzz 2>&1 | grep -q -- "unknown option '$opt'"; then
    echo "FAIL: search --help lists $opt, which search refuses"; fail=$((fail + 1))
  else pass=$((pass + 1)); fi
done
# a 1 ms budget on a 4,566-plan space (13 ms whole here): stopped with the
# best so far (exit 0), or with none yet when the machine is slow enough
# that only plans that do not fit were tried (exit 1); any thread sees it
expect "0|1" "stopped (budget: max_seconds) after" -- search -m gpt3-13b -n 4096 --gb 65536 --max-mb 4096 --max-seconds 0.001
expect 1 "the closest needs" -- search -n 8 --gb 64
expect 2 "multiple of pp 16" -- predict --vpp 2 --gb 160
cat > "$TMP/rows.csv" <<'CSV'
id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq,experts,topk,global_batch,micro_batch,tp,pp,dp,cp,ep,vpp,sp,zero,recompute,dtype,gpu,gpus,gpus_per_node,nvlink_domain,nvlink_GBps,nic_Gbps,measured_iter_s,measured_from,notes
a,t,GPT,24,2304,24,,9216,51200,2048,,,512,16,1,1,32,1,1,1,0,0,full,fp16,a100-sxm4-80gb,32,8,8,300,200,3.5,iteration_time,
b,t,GPT,24,2304,24,,9216,51200,2048,,,512,16,1,1,32,1,1,1,0,0,full,fp16,tpu-v9,32,8,8,300,200,3.5,iteration_time,
CSV
expect 0 "skipped: unknown GPU 'tpu-v9'" -- validate "$TMP/rows.csv"
expect 0 '"skipped": "unknown GPU' -- validate --format json "$TMP/rows.csv"
# the memory verdict of each training row (issue 8 item 6): row c, a
# 70B-shaped model on one 80 GB GPU, ran in this file, so it is a false verdict
sed -n 1,2p "$TMP/rows.csv" > "$TMP/fit.csv"
echo 'c,t,GPT,80,8192,64,,28672,32000,2048,,,8,1,1,1,1,1,1,1,0,0,full,bf16,a100-sxm4-80gb,1,1,1,300,200,60,iteration_time,' >> "$TMP/fit.csv"
expect 0 "memory: 1 of 2 predicted rows do not fit" -- validate --summary "$TMP/fit.csv"
expect 0 " of 80.0 GiB" -- validate "$TMP/fit.csv"
expect 0 '"fits": false, "memory_gib": ' -- validate --format json "$TMP/fit.csv"
expect 0 '"no_fit": 1' -- validate --format json "$TMP/fit.csv"
expect 0 ',skipped,fits' -- validate --format csv "$TMP/fit.csv"
expect 0 ',,no' -- validate --format csv "$TMP/fit.csv"
# row c needs far more than its GPU (clear); a row within 3 % is marginal
expect 0 '"fits_confidence": "clear"' -- validate --format json "$TMP/fit.csv"
expect 0 ',fits,fits_marginal' -- validate --format csv "$TMP/fit.csv"
expect 0 "0 within its 3 % band of capacity (marginal)" -- validate --summary "$TMP/fit.csv"
MOSAIC=../shared/validation/training/mosaic_fsdp_a100.csv
expect 0 "-4.0%  does not fit: 41.0 of 40.0 GiB (marginal: within the band, may fit)" -- validate "$MOSAIC"
expect 0 "-10.3%  fits, marginal: 39.8 of 40.0 GiB" -- validate "$MOSAIC"
expect 0 "fits: marginal, NO -- needs 41.0 GiB, the GPU has 40.0 GiB (1.0 GiB over)" -- validate --row mpt-202 "$MOSAIC"
printf 'id,model,layers,hidden,heads,vocab,seq,global_batch,dtype,gpu,gpus,measured_iter_s,tp\nx,m,2,64,4,100,16,8,bf16,a100-sxm4-80gb,8,abc,1\n' > "$TMP/bad.csv"
expect 2 "$TMP/bad.csv:2: column 'measured_iter_s'" -- validate "$TMP/bad.csv"
# a bad cell has one message, whatever reads it (csv_malformed)
sed '2s/,full,fp16,/,sometimes,fp16,/' "$TMP/rows.csv" > "$TMP/recomp.csv"
expect 2 "$TMP/recomp.csv:2: column 'recompute': expected none, selective, full or blank (also true/false), got 'sometimes'" -- validate "$TMP/recomp.csv"
sed '2s/,full,fp16,/,full,fp12,/' "$TMP/rows.csv" > "$TMP/dtype.csv"
expect 2 "$TMP/dtype.csv:2: column 'dtype': expected fp32, tf32, fp16, bf16, fp8 or fp4 (also bfloat16, bf16-mixed, amp), got 'fp12'" -- validate "$TMP/dtype.csv"
printf 'id,measured_iter_s,tp\nx,1,1\n' > "$TMP/nocol.csv"
expect 2 "$TMP/nocol.csv:1: the header lacks the column 'model'" -- validate "$TMP/nocol.csv"
printf 'id,foo\nx,1\n' > "$TMP/nohdr.csv"
expect 2 "header has neither" -- validate "$TMP/nohdr.csv"
expect 3 "cannot read" -- validate "$TMP/none.csv"
# no file: every set shipped in data/validation, found from the binary's
# place (no ../shared needed), unsupported sets counted, not hidden
summary=$("$CLI" validate --summary 2>&1)
summary_rc=$?
for f in "$ROOT"/data/validation/*/*.csv; do
  name="validation/$(basename "$(dirname "$f")")/$(basename "$f")"
  [[ $summary == *"$name"* ]] && pass=$((pass + 1)) ||
    { echo "FAIL: validate --summary lacks $name"; fail=$((fail + 1)); }
done
# the data-parallel sets are predicted (issue 9), with their per-family note
# (checked in the outputs above and below: the same commands)
[[ $summary_rc == 0 && $summary == *"per family: allreduce"* ]] && pass=$((pass + 1)) ||
  { echo "FAIL: validate --summary -> exit $summary_rc, lacks 'per family: allreduce'"; fail=$((fail + 1)); }
# a set no model reads is counted, not hidden
printf 'id,model,measured_iter_ms\nu1,wide_and_deep,12\n' > "$TMP/unsup.csv"
expect 0 "not supported yet: 1 rows" -- validate --summary "$TMP/unsup.csv"
expect 0 '"kind": "unsupported"' -- validate --format json "$TMP/unsup.csv"
# the same bytes from another folder (not under SUBSET, tests/e2e_lib.sh:
# the sanitizer build reads the shipped sets from one)
a=$(cd "$TMP" && "$CLI" validate --format json)
a_rc=$?
b=$a
[[ $SUBSET == 1 ]] || b=$(cd / && "$CLI" validate --format json)
[[ $a_rc == 0 && $a == *'"kind": "dp_training"'* ]] && pass=$((pass + 1)) ||
  { echo "FAIL: validate --format json -> exit $a_rc, lacks '\"kind\": \"dp_training\"'"; fail=$((fail + 1)); }
[[ $a == "$b" ]] && pass=$((pass + 1)) || { echo "FAIL: validate --format json differs between runs"; fail=$((fail + 1)); }
expect 0 '"seconds":' -- validate --format json --timings "$ROOT/data/validation/training/megatron_sc21_table1.csv"
mkdir -p "$TMP/nodata"
STEPCAST_DATA="$TMP/nodata" expect 3 "no data directory found" -- validate

# trace --export-graph: Kineto JSON per rank that replays to the same step
D="$ROOT/tests/data/trace"
expect 0 "step (mean)" -- trace "$D/synth_1rank.json" --export-graph "$TMP/graph.json"
grep -q '"stepcast op"' "$TMP/graph.json" && pass=$((pass + 1)) || { echo "FAIL: --export-graph wrote no graph"; fail=$((fail + 1)); }
a=$("$CLI" trace "$D/synth_1rank.json" --format json | grep -o '"predicted_step_s": [0-9.e-]*' | head -1)
b=$("$CLI" trace "$TMP/graph.json" --format json | grep -o '"predicted_step_s": [0-9.e-]*' | head -1)
[[ -n $a && $a == "$b" ]] && pass=$((pass + 1)) || { echo "FAIL: exported graph replays to '$b', not '$a'"; fail=$((fail + 1)); }
expect 0 "2 ranks" -- trace "$D/synth_2rank_r0.json" "$D/synth_2rank_r1.json" --export-graph "$TMP/g2.json"
expect 0 "2 ranks" -- trace "$TMP/g2-rank0.json" "$TMP/g2-rank1.json"
expect 3 "cannot write" -- trace "$D/synth_1rank.json" --export-graph "$TMP/no/such/dir/g.json"
expect 2 "no durations" -- trace "$D/synth_et_other_pid.json"

# CNN and BERT presets (src/model/cnn.c, bert.c): data-parallel plan defaults, their keys
expect 0 "images/s" -- predict -m resnet50 -g v100-sxm2-16gb -n 1 --gb 256
expect 0 "tp 1  pp 1  dp 8" -- predict -m bert_base -g v100-sxm2 -n 8 --gb 256 --set model.seq=512
expect 2 "model.layers does not apply to vgg16" -- predict -m vgg16 --set model.layers=3
expect 2 "model.image: 40 pixels is not valid" -- predict -m inception_v3 -n 1 --gb 8 --set model.image=40
expect 2 "fp16 is not supported by cluster.gpu k80" -- predict -m alexnet -g k80 -n 1 --gb 128 --set plan.dtype=fp16

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
