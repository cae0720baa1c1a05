#!/bin/bash
# CPU ms of one 1-thread search after the first: perf stat task-clock of
# `bench_search N -1 CASE` less `bench_search 1 -1 CASE`, over N - 1; main and the branch alternated
R=/work/wt-par37/bench/results/2026-11-27-2core-par37/perf_1thread.txt
N=${N:-41}
echo "# $(date -u +%T) loadavg $(cat /proc/loadavg); N=$N" > $R
tc() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | grep task-clock | cut -d, -f1; }
for c in "llama3-70b 512 h100, default" "llama3-70b 512 h100, fat" "gpt3-175b 1024 a100, default" "gpt3-175b 1024 a100, fat" "qwen3"; do
  n=$N; [ "$c" = qwen3 ] && n=11
  for rep in 1 2; do
    for b in /tmp/base-par37/build/bench_search /work/wt-par37/build/bench_search; do
      a=$(tc $b $n -1 "$c"); o=$(tc $b 1 -1 "$c")
      echo "$c | $(basename $(dirname $(dirname $b))) | $(python3 -c "print('%.3f' % (($a - $o) / ($n - 1)))") ms" >> $R
    done
  done
done
echo "# end loadavg $(cat /proc/loadavg)" >> $R
