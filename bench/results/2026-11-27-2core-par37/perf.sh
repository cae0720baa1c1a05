#!/bin/bash
# CPU ms of one T-thread search after the first (T = 1 or 2, the first argument): perf stat
# task-clock of `bench_search N -T CASE` less `bench_search 1 -T CASE`, over N - 1; main
# (/tmp/base-par37) and the branch alternated, two runs each; into perf_Tthread.txt
T=${1:-1}
R=/work/wt-par37/bench/results/2026-11-27-2core-par37/perf_${T}thread.txt
N=${N:-41}
echo "# $(date -u +%T) loadavg $(cat /proc/loadavg); N=$N" > $R
tc() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | grep task-clock | cut -d, -f1; }
for c in "llama3-70b 512 h100, default" "llama3-70b 512 h100, fat" "gpt3-175b 1024 a100, default" "gpt3-175b 1024 a100, fat" "qwen3"; do
  n=$N; [ "$c" = qwen3 ] && n=11
  for rep in 1 2; do
    for b in /tmp/base-par37/build/bench_search /work/wt-par37/build/bench_search; do
      a=$(tc $b $n -$T "$c"); o=$(tc $b 1 -$T "$c")
      echo "$c | $(basename $(dirname $(dirname $b))) | $(python3 -c "print('%.3f' % (($a - $o) / ($n - 1)))") ms" >> $R
    done
  done
done
echo "# end loadavg $(cat /proc/loadavg)" >> $R
