#!/usr/bin/env bash
# cli_published.sh -- the scenarios of examples/published (large training
# runs whose recalled headline figures are outside ../shared/validation,
# docs/accuracy.md "Published runs outside the validation sets") load,
# name their source as recalled, and none of them -- each trained on the
# hardware it names -- is predicted a clear out-of-memory (a verdict inside
# the memory model's band, "marginal", is allowed). Also checks by hand what
# separates Meta's Llama 3 405B plan from Megatron's distributed optimizer:
# with zero 1 the stage keeps its fp32 main gradients whole (4 bytes a
# parameter of the stage); the FSDP of the paper (zero 2 here) shards them
# over the 128 data-parallel ranks.
# Usage: tests/cli_published.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: cli_published.sh PATH/TO/stepcast}
. "$(dirname "$0")/e2e_lib.sh"

n=0
for f in examples/published/*.json; do
  n=$((n + 1))
  out=$("$CLI" predict "$f" --format json 2>&1)
  if ! printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["fits"] or d["fits_confidence"] == "marginal" else 1)'; then
    echo "FAIL: $f: a run that trained is predicted a clear out-of-memory"
    printf '%s\n' "$out" | head -3 | sed 's/^/    /'
    fail=$((fail + 1))
  else pass=$((pass + 1)); fi
  if grep -q "Recalled, not in ../shared" "$f"; then pass=$((pass + 1))
  else echo "FAIL: $f: its description does not say the figure is recalled"; fail=$((fail + 1)); fi
done
if [[ $n -lt 10 ]]; then echo "FAIL: only $n scenarios in examples/published"; fail=$((fail + 1)); fi

# gradients per GPU of the 16K-GPU Llama 3 405B plan, by hand: the stage's
# parameters (params / pp / tp on a middle stage) x 4 bytes, whole under
# zero 1 and divided by dp = 128 under zero 2
L=examples/published/llama3-405b-16k-h100.json
g1=$("$CLI" predict "$L" --set plan.zero=1 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_bytes"]["gradients"])')
g2=$("$CLI" predict "$L" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_bytes"]["gradients"])')
if python3 -c "
import sys
g1, g2 = $g1, $g2
# 8 layers of Llama 3 405B a stage (126 + 2 = 16 x 8 with the embedding and
# loss in the split), each 2 h^2 (q, o) + 2 h (h/16) (k, v with 8 of 128
# heads) + 3 h f (SwiGLU) + 2 h (norms), divided by tp 8
h, f = 16384, 53248
layer = 2 * h * h + 2 * h * (h // 16) + 3 * h * f + 2 * h
want = 8 * layer / 8 * 4
ok = abs(g1 / want - 1) < 0.01 and abs(g2 * 128 / g1 - 1) < 0.01
print('zero 1 gradients %.3g B (hand %.3g), zero 2 %.3g B' % (g1, want, g2))
sys.exit(0 if ok else 1)"; then pass=$((pass + 1))
else echo "FAIL: Llama 3 405B gradients per GPU differ from the hand count"; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
