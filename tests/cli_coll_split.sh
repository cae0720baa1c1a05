#!/usr/bin/env bash
# tools/calib/coll_split.py (docs/network.md, "Echo by NCCL's pair"): a
# collectives set's error split by GPU, GPU count, size band and the pair
# NCCL's tuner picks. Checks that the split loses no row and agrees with
# `validate --summary` (rows and MAPE per band), that the shares add up to
# 100 %, and that an unknown GPU is refused with a message. Needs ../shared
# (fails loudly without it).
CLI=${1:?usage: cli_coll_split.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
TOOL=tools/calib/coll_split.py
for SET in ../shared/validation/collectives/echo_allreduce_a100_2_to_32.csv \
           ../shared/validation/collectives/azure_allreduce_a100_h100.csv; do
  need_shared "$SET"
  out=$(python3 "$TOOL" "$CLI" "$SET")
  sum=$(awk '$1 != "gpu" && $1 != "band" {print}' <<<"$out" | python3 -c '
import sys
rows = share = 0
for line in sys.stdin:
    f = line.split()
    rows += int(f[4]); share += float(f[7].rstrip("%"))
print(rows, round(share))')
  total=$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))' "$SET")
  summ=$("$CLI" validate "$SET" --summary)
  below=$(grep -o 'band <1MiB: [0-9]* rows, MAPE [0-9.]*%' <<<"$out" | sed 's/band <1MiB: \([0-9]*\) rows, MAPE \(.*\)/\2 (\1 rows)/')
  from=$(grep -o 'band >=1MiB: [0-9]* rows, MAPE [0-9.]*%' <<<"$out" | sed 's/band >=1MiB: \([0-9]*\) rows, MAPE \(.*\)/\2 (\1 rows)/')
  if [[ $sum == "$total 100" ]] && grep -qF "MAPE below 1 MiB $below" <<<"$summ" &&
     grep -qF "from 1 MiB $from" <<<"$summ"; then pass=$((pass + 1))
  else
    echo "FAIL: $SET: rows/share '$sum' (rows $total, share 100), bands '$below' '$from'"
    echo "$out"; echo "$summ" | tail -3; fail=$((fail + 1))
  fi
done

# a row of a GPU whose compute capability the tool does not know
head -1 ../shared/validation/collectives/echo_allreduce_a100_2_to_32.csv > "$TMP/odd.csv"
sed -n 2p ../shared/validation/collectives/echo_allreduce_a100_2_to_32.csv |
  sed 's/a100-sxm4-40gb/l40s/' >> "$TMP/odd.csv"
out=$(python3 "$TOOL" "$CLI" "$TMP/odd.csv" 2>&1)
rc=$?
if [[ $rc -ne 0 && $out == *"GPU 'l40s': no compute capability known"* ]]; then pass=$((pass + 1))
else echo "FAIL: unknown GPU -> exit $rc: $out"; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
