#!/bin/bash
# instructions of both passes (--toggle-collect=both_passes) of one search on 1 thread, and
# of 3 searches on 2 threads (--fair-sched=yes: valgrind runs one thread at a time, so the
# split varies from run to run), main (/tmp/base-par37) and this branch
R=/work/wt-par37/bench/results/2026-11-27-2core-par37/callgrind2.txt
echo "# $(date -u +%T) case | build | 1 thread | 2 threads x3" > $R
for c in "llama3-70b 512 h100, default" "llama3-70b 512 h100, fat" "gpt3-175b 1024 a100, default" "gpt3-175b 1024 a100, fat"; do
  for b in /tmp/base-par37/build/bench_search /work/wt-par37/build/bench_search; do
    n=$(basename $(dirname $(dirname $b)))
    one=$(valgrind --tool=callgrind --callgrind-out-file=/tmp/cg2x.out --toggle-collect=both_passes $b 1 -1 "$c" 2>&1 | grep refs | awk '{print $NF}')
    two=""
    for k in 1 2 3; do
      two="$two $(valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file=/tmp/cg2x.out --toggle-collect=both_passes $b 1 -2 "$c" 2>&1 | grep refs | awk '{print $NF}')"
    done
    echo "$c | $n | $one |$two" >> $R
  done
done
