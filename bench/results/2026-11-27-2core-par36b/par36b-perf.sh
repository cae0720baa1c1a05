#!/bin/bash
# per search after the first: perf stat of bench_search 41 -T CASE less bench_search 1 -T CASE, over 40
R=/work/wt-par36b/bench/results/2026-11-27-2core-par36b/perf_stat_per_search.txt
echo "# $(date -u +%T) loadavg $(cat /proc/loadavg)" >> $R
one() { perf stat -x, -e task-clock,page-faults "$@" 2>&1 >/dev/null | awk -F, '{printf "%s=%s ", $3, $1}'; }
for c in "llama3-70b 512 h100, fat" "gpt3-175b 1024 a100, fat" "llama3-70b 512 h100, default" "gpt3-175b 1024 a100, default"; do
  for T in 1 2; do
    for b in base branch base branch; do
      bin=/work/wt-par36b/build/bench_search; [ $b = base ] && bin=/tmp/base-par36b/build/bench_search
      a=$(one $bin 41 -$T "$c"); z=$(one $bin 1 -$T "$c")
      python3 - "$c" $T $b "$a" "$z" >> $R <<'PY'
import sys
c,T,b,a,z=sys.argv[1:]
def d(s): return {k:float(v) for k,v in (x.split('=') for x in s.split())}
A,Z=d(a),d(z)
print(f"{c:32s} T{T} {b:6s} CPU {(A['task-clock']-Z['task-clock'])/40:7.3f} ms  faults {(A['page-faults']-Z['page-faults'])/40:6.1f}")
PY
    done
  done
done
echo "# end $(date -u +%T) loadavg $(cat /proc/loadavg)" >> $R
