#!/bin/bash
# cpu.sh: CPU ms per 1-thread search (task-clock of N+1 searches less 1, over N), base and new alternated
tc() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | grep task-clock | cut -d, -f1; }
for c in "llama3-70b 512 h100, default" "llama3-70b 512 h100, fat" "gpt3-175b 1024 a100, default" "gpt3-175b 1024 a100, fat" "qwen"; do
  n=40; [ "$c" = qwen ] && continue
  for rep in 1 2 3; do
    for b in /tmp/s38/base_bench_search build/bench_search; do
      one=$(tc $b 1 -1 "$c"); many=$(tc $b $((n+1)) -1 "$c")
      echo "$c | $(basename $b) | $(python3 -c "print('%.3f' % (($many-$one)/$n))") ms | load $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
