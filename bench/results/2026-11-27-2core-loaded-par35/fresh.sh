#!/bin/bash
# usage: fresh.sh N OUT build1 build2 ...   (fresh process per search: bench_search 1 -T CASE)
N=$1; OUT=$2; shift 2
: > $OUT
cases=("llama3-70b 512 h100, default" "llama3-70b 512 h100, fat-tree" "gpt3-175b 1024 a100, default" "gpt3-175b 1024 a100, fat-tree")
for r in $(seq $N); do
 for b in "$@"; do for T in 1 2; do for c in "${cases[@]}"; do
  o=$(perf stat -x, -e task-clock,page-faults $b/bench_search 1 -$T "$c" 2>${TMPDIR:-/tmp}/fresh-ps.err)
  ms=$(echo "$o" | sed -E 's/.* ([0-9.]+) ms each.*/\1/')
  th=$(echo "$o" | sed -E 's/.* on ([0-9]+) threads.*/\1/')
  cpu=$(grep task-clock ${TMPDIR:-/tmp}/fresh-ps.err | cut -d, -f1)
  pf=$(grep page-faults ${TMPDIR:-/tmp}/fresh-ps.err | cut -d, -f1)
  echo "$(basename $b)|$c|$T|$th|$ms|$cpu|$pf" >> $OUT
 done; done; done
done
