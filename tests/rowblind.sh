#!/usr/bin/env bash
# rowblind.sh -- no prediction reads a validation row's `source` or `id`
# (STYLE: never key a rule on a row's source or id). Every CSV of
# ../shared/validation is copied to a scratch folder (the same set names
# and folders) with the `source` column blanked and every `id` replaced by
# a new unique one ("row-1", "row-2", ... across all sets); `stepcast
# validate --format csv` runs on both, and every column but the file and
# the id (kind, measured, predicted, ape, skipped, fits) must be the same
# bytes, row for row. With SUBSET (the sanitizer build, tests/e2e_lib.sh)
# every set is blinded but one small set of each kind is compared.
# Usage: tests/rowblind.sh PATH/TO/stepcast
set -u
CLI=${1:?usage: rowblind.sh PATH/TO/stepcast}
[[ $CLI == /* ]] || CLI=$PWD/$CLI
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/e2e_lib.sh"
SRC=$ROOT/../shared/validation
need_shared "$SRC/training/dgxc_benchmarking.csv"

# the blinded copies (Python's csv module: quoted fields with commas and
# newlines stay whole); refuses a set without both columns
python3 - "$SRC" "$TMP/validation" <<'PY' || { echo "FAIL: could not blind the sets"; exit 1; }
import csv, os, sys
src, dst = sys.argv[1], sys.argv[2]
n = 0
for kind in sorted(os.listdir(src)):
    if not os.path.isdir(os.path.join(src, kind)):
        continue
    os.makedirs(os.path.join(dst, kind))
    for name in sorted(os.listdir(os.path.join(src, kind))):
        if not name.endswith(".csv"):
            continue
        with open(os.path.join(src, kind, name), newline="") as f:
            rows = list(csv.reader(f))
        head = rows[0]
        if "id" not in head or "source" not in head:
            sys.exit(f"{kind}/{name}: no id or source column")
        i, s = head.index("id"), head.index("source")
        for r in rows[1:]:
            if len(r) > max(i, s) and r[i].strip():
                n += 1
                r[i], r[s] = f"row-{n}", ""
        with open(os.path.join(dst, kind, name), "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
if n < 1000:
    sys.exit(f"only {n} rows blinded")
PY

# every column but file (1) and id (3), as CSV fields
cols() {
  python3 -c '
import csv, sys
for r in csv.reader(sys.stdin):
    print(repr([r[1]] + r[3:] if len(r) > 3 else r))'
}
# the sets as paths under SRC/.. and TMP alike
read -ra sets <<<"$(cd "$SRC/.." && echo validation/*/*.csv)"
least=2000
if [[ $SUBSET == 1 ]]; then
  sets=() least=100
  for s in $SUBSET_SETS; do sets+=("validation/$s"); done
fi
orig=$(cd "$SRC/.." && "$CLI" validate --format csv "${sets[@]}" 2>&1)
rc1=$?
blind=$(cd "$TMP" && "$CLI" validate --format csv "${sets[@]}" 2>&1)
rc2=$?
a=$(printf '%s\n' "$orig" | cols)
b=$(printf '%s\n' "$blind" | cols)
rows=$(printf '%s\n' "$a" | wc -l)
if [[ $rc1 -ne 0 || $rc2 -ne 0 ]]; then
  echo "FAIL: validate exits $rc1 on the sets, $rc2 on the blinded copies"; fail=$((fail + 1))
elif [[ $rows -lt $least ]]; then
  echo "FAIL: only $rows rows compared"; fail=$((fail + 1))
elif [[ $a != "$b" ]]; then
  echo "FAIL: predictions change when the rows' source and id are blinded:"
  diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -20 | sed 's/^/    /'
  fail=$((fail + 1))
else
  echo "the $rows rows predict the same bytes without their source and id"
  pass=$((pass + 1))
fi
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
