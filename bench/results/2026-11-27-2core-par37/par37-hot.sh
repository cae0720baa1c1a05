#!/bin/bash
# alternate main (/tmp/base-par37) and this branch: bench_search --hot ROUNDS 2 [CASE]
# usage: par37-hot.sh TAG SETS [CASE]   (files hot_{base,branch}_TAG_SET.txt; with
# NICE=-15, as root, the bench runs at that nice value, files nice_...)
R=/work/wt-par37/bench/results/2026-11-27-2core-par37
TAG=$1; SETS=$2; CASE=$3
pre=hot; [ -n "$NICE" ] && pre=nice
for i in $(seq 1 $SETS); do
  for b in base branch; do
    bin=/work/wt-par37/build/bench_search; [ $b = base ] && bin=/tmp/base-par37/build/bench_search
    { echo "# $b hot set $i $(date -u +%T) loadavg $(cat /proc/loadavg)"; nice -n ${NICE:-0} $bin --hot ${ROUNDS:-11} 2 $CASE; echo "# end loadavg $(cat /proc/loadavg)"; } > $R/${pre}_${b}_${TAG}_$i.txt 2>&1
  done
done
