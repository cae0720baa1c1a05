#!/usr/bin/env bash
# hostile.sh -- the hostile inputs of issue 12 as a table: one line per
# case, `h CODE NEEDLE -- ARGS...`: stepcast ARGS must exit with CODE
# (2 bad input, 3 I/O; docs/output.md) within a time limit, print NEEDLE
# (a fixed string) on stdout+stderr and never die by a signal, hang or
# grow without bound. Usage: tests/hostile.sh PATH/TO/stepcast [sanitized]
# ("sanitized": no address-space cap, which ASan cannot run under).
set -u
CLI=${1:?usage: hostile.sh PATH/TO/stepcast [sanitized]}
SAN=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
LIMIT_S=${HOSTILE_LIMIT_S:-60}   # seconds per case (sanitized builds are slow)
MEM_KB=4000000                   # address space per case, Release only

# h CODE NEEDLE -- ARGS...
h() {
  local code=$1 needle=$2
  shift 3
  local out rc
  if [[ -z $SAN ]]; then
    out=$( (ulimit -v $MEM_KB; timeout -s KILL "$LIMIT_S" "$CLI" "$@") 2>&1)
  else
    out=$(timeout -s KILL "$LIMIT_S" "$CLI" "$@" 2>&1)
  fi
  rc=$?
  if [[ $rc -eq 137 || $rc -eq 124 ]]; then
    echo "FAIL: stepcast $* -> killed after ${LIMIT_S} s (a hang?)"; fail=$((fail + 1))
  elif [[ $rc -ge 128 ]]; then
    echo "FAIL: stepcast $* -> killed by signal $((rc - 128))"; fail=$((fail + 1))
  elif [[ $rc -ne $code ]]; then
    echo "FAIL: stepcast $* -> exit $rc, expected $code"; echo "$out" | head -5 | sed 's/^/    /'
    fail=$((fail + 1))
  elif [[ $out != *"$needle"* ]]; then
    echo "FAIL: stepcast $* -> output lacks: $needle"; echo "$out" | head -5 | sed 's/^/    /'
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}

# 1. the micro-batch count overflowed an int: negative step, "fits"
h 2 'micro-batches per pipeline; at most 1048576' -- predict --gb 17179869184
h 2 'micro-batches per pipeline; at most 1048576' -- predict --gb 17179869184 --format json
# 2. 2^24 GPUs in one NVLink domain: SIGFPE in the search space
h 0 'fit in memory' -- search -n 16777216 --set cluster.nvlink_domain=16777216 --gb 16777216 --seq 32768 --top 1
# 18. messages
h 2 'is smaller than dp 8' -- predict --gb 4
h 2 'valid nearby: 8 or 16' -- predict --gb 12

echo "hostile: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
