#!/bin/bash
# cmp.sh NEW_BIN : compare search outputs of /tmp/s38/stepcast.base and NEW_BIN
new=$1; fail=0
run() { # label args...
  local l=$1; shift
  /tmp/s38/stepcast.base search "$@" --format json --top 50 --threads 1 2>&1 | sed -E 's/"(wall|elapsed|seconds|time_s|search_s)[a-z_]*": [0-9.e+-]+/"W": 0/g' > /tmp/s38/o_base_$l.txt
  for th in 1 2 3; do
    $new search "$@" --format json --top 50 --threads $th 2>&1 | sed -E 's/"(wall|elapsed|seconds|time_s|search_s)[a-z_]*": [0-9.e+-]+/"W": 0/g' > /tmp/s38/o_new_$l.$th.txt
    if cmp -s /tmp/s38/o_base_$l.txt /tmp/s38/o_new_$l.$th.txt; then echo "same $l t$th"; else echo "DIFF $l t$th"; fail=1; fi
  done
}
run gptft examples/gpt3-175b-1024-a100.json --set cluster.topology=fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=25
run llft examples/llama3-70b-512-h100.json --set cluster.topology=fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50
run llecmp examples/llama3-70b-512-h100.json --set cluster.topology=fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50,ecmp=1
run gpt examples/gpt3-175b-1024-a100.json
run ft64 examples/llama3-70b-512-h100.json --set cluster.topology=examples/topologies/fat_tree_64.json --gpus 64 --gb 64
exit $fail
