#!/usr/bin/env bash
# readme.sh -- the README's commands work in a fresh checkout with nothing
# beside it (no ../shared): every `build/stepcast ...` line of README.md and
# its Python line run in a scratch directory that holds only what a clone
# has (examples/, python/) and the build's binary and library, and must
# exit 0. Usage: tests/readme.sh PATH/TO/stepcast PATH/TO/libstepcast.so
set -u
CLI=${1:?usage: readme.sh PATH/TO/stepcast PATH/TO/libstepcast.so}
LIB=${2:?usage: readme.sh PATH/TO/stepcast PATH/TO/libstepcast.so}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh"
mkdir -p "$TMP/clone/build"
ln -s "$ROOT/examples" "$TMP/clone/examples"
ln -s "$ROOT/python" "$TMP/clone/python"
ln -s "$CLI" "$TMP/clone/build/stepcast"
ln -s "$LIB" "$TMP/clone/build/libstepcast.so"
cd "$TMP/clone"
n=0
while IFS= read -r line; do
  n=$((n + 1))
  if [[ $line == *"../shared"* ]]; then
    echo "FAIL: README needs ../shared: $line"; fail=$((fail + 1)); continue
  fi
  out=$(env -u STEPCAST_DATA PYTHONDONTWRITEBYTECODE=1 bash -c "$line" 2>&1)
  rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: README line exits $rc: $line"; echo "$out" | tail -3 | sed 's/^/    /'
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done < <(grep -E '^(build/stepcast|PYTHONPATH=python python3) ' "$ROOT/README.md" |
         sed -E 's/[[:space:]]+# [^'"'"'"]*$//')
[[ $n -ge 10 ]] || { echo "FAIL: only $n README commands found"; fail=$((fail + 1)); }
# the shipped sets are all there, from the binary's place alone
sets=$(ls "$ROOT"/data/validation/*/*.csv | wc -l)
got=$(build/stepcast validate --summary | grep -c '^validation/')
[[ $got -eq $sets ]] && pass=$((pass + 1)) || { echo "FAIL: validate lists $got of $sets sets"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
