#!/bin/bash
# alternate main and this branch: bench_search --hot 11 2, every case
R=/work/wt-par36b/bench/results/2026-11-27-2core-par36b
for i in ${SETS:-1 2 3}; do
  for b in base branch; do
    bin=/work/wt-par36b/build/bench_search; [ $b = base ] && bin=/tmp/base-par36b/build/bench_search
    { echo "# $b hot set $i $(date -u +%T) loadavg $(cat /proc/loadavg)"; $bin --hot 11 2; echo "# end loadavg $(cat /proc/loadavg)"; } > $R/hot_${b}_$i.txt 2>&1
  done
done
