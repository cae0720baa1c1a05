#!/usr/bin/env bash
# golden.sh -- whole-output tests: run every case of tests/golden/cases.txt
# and compare stdout + stderr + exit code with tests/golden/NAME.out.
# Usage: tests/golden.sh PATH/TO/stepcast [--update]
# Each line of cases.txt is "NAME ARGS..." (ARGS split on spaces; no
# quoting). Wall times (search speed) are masked; everything else must
# match byte for byte. --update rewrites the .out files (review the diff).
set -u
CLI=${1:?usage: golden.sh PATH/TO/stepcast [--update]}
UPDATE=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$ROOT/tests/golden
cd "$ROOT"
pass=0
fail=0

# Wall-clock figures of `search` differ from run to run.
mask() {
  sed -E 's/, [0-9.]+ s \([0-9]+ plans\/s[^)]*\)/, T s (R plans\/s)/; s/"seconds": [0-9.e+-]+/"seconds": T/'
}

while read -r name args; do
  [[ -z $name || $name == \#* ]] && continue
  # shellcheck disable=SC2086
  out=$("$CLI" $args 2>&1; echo "exit $?")
  out=$(printf '%s\n' "$out" | mask)
  if [[ $UPDATE == --update ]]; then
    printf '%s\n' "$out" > "$DIR/$name.out"
    continue
  fi
  if [[ ! -f $DIR/$name.out ]]; then
    echo "FAIL: $name: no $DIR/$name.out (run tests/golden.sh $CLI --update)"
    fail=$((fail + 1))
  elif ! diff -u "$DIR/$name.out" <(printf '%s\n' "$out") > /tmp/golden.$$.diff; then
    echo "FAIL: $name: stepcast $args differs from tests/golden/$name.out:"
    head -n 30 /tmp/golden.$$.diff | sed 's/^/    /'
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done < "$DIR/cases.txt"
rm -f /tmp/golden.$$.diff
# every example is pinned by at least one case
for f in examples/*.json examples/*/*.json; do
  if ! grep -q "$f" "$DIR/cases.txt"; then
    echo "FAIL: $f has no case in tests/golden/cases.txt"
    fail=$((fail + 1))
  fi
done
[[ $UPDATE == --update ]] && { echo "golden outputs rewritten in $DIR"; exit 0; }
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
