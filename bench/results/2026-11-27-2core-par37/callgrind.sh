#!/bin/bash
# one-thread instructions of one search (sc_searcher_search), and 2-thread (both_passes, --fair-sched), base and branch
R=/work/wt-par37/bench/results/2026-11-27-2core-par37/callgrind.txt
echo "# callgrind Ir, $(date -u +%T); 1 thread: --toggle-collect=sc_searcher_search bench_search 1 -1 CASE; 2 threads: --fair-sched=yes --toggle-collect=both_passes bench_search 1 -2 CASE (one run each: the split varies)" > $R
for c in "llama3-70b 512 h100, default" "llama3-70b 512 h100, fat" "gpt3-175b 1024 a100, default" "gpt3-175b 1024 a100, fat" "qwen3"; do
  for b in /tmp/base-par37/build/bench_search /work/wt-par37/build/bench_search; do
    n=$(basename $(dirname $(dirname $b)))
    i1=$(valgrind --tool=callgrind --callgrind-out-file=/tmp/cgx.out --toggle-collect=sc_searcher_search $b 1 -1 "$c" 2>&1 | grep refs | awk '{print $NF}')
    i2=$(valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file=/tmp/cgx.out --toggle-collect=both_passes $b 1 -2 "$c" 2>&1 | grep refs | awk '{print $NF}')
    i1b=$(valgrind --tool=callgrind --callgrind-out-file=/tmp/cgx.out --toggle-collect=both_passes $b 1 -1 "$c" 2>&1 | grep refs | awk '{print $NF}')
    echo "$c | $n | 1 thread $i1 | both_passes 1 thread $i1b | 2 threads $i2" >> $R
  done
done
