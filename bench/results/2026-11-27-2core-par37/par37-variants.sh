#!/bin/bash
# the branch's steps one by one on the fat-trees, each pass of SETS only once both
# CPUs were >= 85% idle (idle.sh): bench_search --hot 15 2 "fat-tree" of main (base),
# the route memo alone (memo, 6997155), with the split routing (split, 7beb153), the
# final branch without the shared cost memo (noshared), the final branch (head, f52aaee) and
# with the shared memo's counter on a cache line of its own (pad);
# binaries in /tmp/det37/bs_NAME; lines appended to ${OUT:-variants.txt}
R=/work/wt-par37/bench/results/2026-11-27-2core-par37
SETS=${1:-6}
for i in $(seq 1 $SETS); do
  idle=$($R/idle.sh 600)
  case "$idle" in "idle "[0-7]?"%"|"idle "?"%") echo "# set $i skipped: $idle" >> $R/${OUT:-variants.txt}; continue;; esac
  for v in ${VARIANTS:-base memo split noshared head pad}; do
    out=$(/tmp/det37/bs_$v --hot 15 2 "fat-tree" 2>&1)
    sp=$(echo "$out" | grep -oE "speed-up [0-9.]+x median" | awk '{print $2}' | tr '\n' ' ')
    t=$(echo "$out" | grep -E "one search, (1 thread|2 threads)" | awk '{print $5}' | tr '\n' ' ')
    echo "set $i $(date -u +%T) $idle load $(cut -d' ' -f1 /proc/loadavg) $v speed-ups(llama,gpt3) $sp ms(1thr,2thr llama; 1thr,2thr gpt3) $t" >> $R/${OUT:-variants.txt}
  done
done
