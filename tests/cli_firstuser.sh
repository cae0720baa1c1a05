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
expect 2 '(21 more); docs/input.md lists them all' -- predict --set plan.zzz=1
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

echo "cli_firstuser: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
