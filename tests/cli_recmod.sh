#!/usr/bin/env bash
# cli_recmod.sh -- end-to-end checks of plan.recompute_modules (Megatron-
# Core's selective recompute modules): the --set form, the report lines,
# the DeepSeek-V3 example fitting with them, and exit 2 with what would be
# valid for each check Megatron makes.
# Usage: tests/cli_recmod.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: cli_recmod.sh PATH/TO/stepcast}
. "$(dirname "$0")/e2e_lib.sh"
DS=examples/deepseek-v3-modelzoo-h100.json
SEL=plan.recompute=selective

expect 0 "fits: NO" -- predict "$DS"
expect 0 "recompute modules moe_act, layernorm, mla_up_proj (selective)" -- \
  predict "$DS" --set "$SEL" --set 'plan.recompute_modules=["mla_up_proj","moe_act","layernorm"]'
expect 0 "fits: yes" -- predict examples/deepseek-v3-modelzoo-h100-recompute.json
expect 0 '"recompute_modules": ["moe_act", "layernorm", "mla_up_proj", "shared_experts"]' -- \
  predict examples/deepseek-v3-modelzoo-h100-recompute.json --format json
# the event engine's trace shows the re-run forward tasks before their backward
expect 0 "step time" -- predict --engine event --trace "$TMP/t.json" \
  examples/deepseek-v3-modelzoo-h100-recompute.json
for task in "recompute swiglu" "recompute q_up" "recompute norm2"; do
  if grep -q "\"$task\"" "$TMP/t.json"; then pass=$((pass + 1))
  else echo "FAIL: the trace lacks $task"; fail=$((fail + 1)); fi
done
# the default list is today's selective: no modules line
out=$("$CLI" predict --set "$SEL" 2>&1)
if [[ $out == *"recompute modules"* ]]; then
  echo "FAIL: the default list printed a modules line"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

# what Megatron accepts and ignores runs, and the report says what was ignored
expect 0 'note: recompute modules moe_act ignored: no layer recomputes selectively (plan.recompute "none"' \
  -- predict "$DS" --set 'plan.recompute_modules=["moe_act"]'
expect 0 'recompute modules core_attn ignored' -- predict --recompute full \
  --set 'plan.recompute_modules=["core_attn"]'
expect 0 'note: recompute modules moe wrap nothing: the model has no experts' -- \
  predict --set "$SEL" --set 'plan.recompute_modules=["moe","core_attn"]'
expect 0 'recompute modules shared_experts wrap nothing: the model has no shared experts' -- \
  predict examples/mixtral-8x7b-h100.json --set "$SEL" --set 'plan.recompute_modules=["shared_experts"]'
expect 0 'recompute modules none (selective)' -- predict --set "$SEL" --set 'plan.recompute_modules=[]'
expect 0 '"recompute_modules": []' -- predict --set "$SEL" --set 'plan.recompute_modules=[]' --format json
expect 2 'moe_act needs plan.moe_grouped_gemm true' -- predict "$DS" --set "$SEL" \
  --set plan.moe_grouped_gemm=false --set 'plan.recompute_modules=["moe_act"]'
expect 2 'mla_up_proj needs multi-latent attention' -- predict --set "$SEL" \
  --set 'plan.recompute_modules=["mla_up_proj"]'
expect 2 'valid: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts' -- \
  predict --set "$SEL" --set 'plan.recompute_modules=["core_atn"]'
expect 2 'GatedDeltaNet/GatedDeltaProduct or hyper-connection' -- predict --set "$SEL" \
  --set 'plan.recompute_modules=["mhc"]'
expect 2 'expected an array of module names' -- predict --set "$SEL" \
  --set plan.recompute_modules=core_attn
expect 2 'Delayed scaling does not support' -- predict "$DS" --set "$SEL" --set plan.dtype=fp8 \
  --set 'plan.recompute_modules=["layernorm"]'

echo "cli_recmod: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
