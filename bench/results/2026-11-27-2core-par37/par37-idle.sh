#!/bin/bash
# alternate main (/tmp/base-par37) and this branch (BRANCH_BIN, default build/),
# each `bench_search --hot ROUNDS 2 [CASE]`, a pair only once both CPUs were
# >= 85% idle for 0.5 s (idle.sh; tries for up to 600 s, else the pair is
# skipped); SETS pairs, files idle_{base,branch}_TAG_N.txt with the idle
# share and the load average at the start and end of each; then the same
# without --hot (30 ms idle before each search), files idle_settled_...
R=/work/wt-par37/bench/results/2026-11-27-2core-par37
TAG=$1; SETS=$2; CASE=$3
for i in $(seq 1 $SETS); do
  idle=$($R/idle.sh 600)
  case "$idle" in "idle "[0-7]?"%"|"idle "?"%") echo "set $i skipped: $idle"; continue;; esac
  for b in base branch; do
    bin=${BRANCH_BIN:-/work/wt-par37/build/bench_search}; [ $b = base ] && bin=/tmp/base-par37/build/bench_search
    { echo "# $b hot set $i $(date -u +%T) $idle loadavg $(cat /proc/loadavg)"; $bin --hot ${ROUNDS:-11} 2 $CASE; echo "# end loadavg $(cat /proc/loadavg)"; } > $R/idle_${b}_${TAG}_$i.txt 2>&1
    idle=$($R/idle.sh 5)
    { echo "# $b settled set $i $(date -u +%T) $idle loadavg $(cat /proc/loadavg)"; $bin ${ROUNDS:-11} 2 $CASE; echo "# end loadavg $(cat /proc/loadavg)"; } > $R/idle_settled_${b}_${TAG}_$i.txt 2>&1
    idle=$($R/idle.sh 5)
  done
done
