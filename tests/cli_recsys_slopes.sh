#!/usr/bin/env bash
# tools/recsys/slopes.py (docs/accuracy.md, HugeCTR eighth round): its
# weighted line recovers a known fixed cost and per-sample costs, its split
# gives back the local and global parts, and on the W&D set it finds the
# two GPU counts with slopes that its split reproduces; its pairs (tenth
# round) give back a known extra cost of the 8-GPU rows over the one-GPU
# rows of their local batch. tools/recsys/hostcopy.py's copy times follow
# its formula and its unchanged line is validate's MAPE. Needs ../shared
# (fails loudly without it).
CLI=${1:?usage: cli_recsys_slopes.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
SET=../shared/validation/recsys/hugectr_wdl_batch_sweep.csv
TOOL=tools/recsys/slopes.py
need_shared "$SET"

# a synthetic copy: 2 ms + 0.7 us per local sample + 0.3 us per global
# sample on every GPU; slopes 1.0 (1 GPU) and 0.3875 (8), split 0.7 + 0.3
synth_csv "$SET" "$TMP/synth.csv" "
l, g = float(r['batch_per_gpu']), float(r['global_batch'])
r['measured_iter_ms'] = '%.12g' % (2 + 0.7e-3 * l + 0.3e-3 * g)"
out=$(python3 "$TOOL" --stepcast "$CLI" "$TMP/synth.csv")
if awk -F' [|] ' '/^wide_and_deep/ {split($1, k, ", "); split($4, m, " ")}
        /^wide_and_deep/ && k[3] == 1 {a = (m[1] == "2.000" && m[3] == "1.0000")}
        /^wide_and_deep/ && k[3] == 8 {b = (m[1] == "2.000" && m[3] == "0.3875")}
        /^split .* measured:/ {split($0, w, " "); c = (w[5] == "0.7000" && w[11] == "0.3000")}
        END {exit !(a && b && c)}' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: synthetic fit:"; echo "$out"; fail=$((fail + 1)); fi

# the set: two families (9 rows on 1 GPU, 11 on 8) and a split that
# reproduces both measured slopes (a + b and a / 8 + b)
out=$(python3 "$TOOL" --stepcast "$CLI" "$SET")
if awk -F' [|] ' '/^wide_and_deep/ {split($1, k, ", "); split($4, m, " ")}
        /^wide_and_deep/ && k[3] == 1 && $2 == 9 {s1 = m[3]; n++}
        /^wide_and_deep/ && k[3] == 8 && $2 == 11 {s8 = m[3]; n++}
        /^split .* measured:/ {split($0, w, " "); a = w[5]; b = w[11]}
        END {d1 = a + b - s1; d8 = a / 8 + b - s8
             exit !(n == 2 && s1 > 0 && s8 > 0 && d1 * d1 < 1e-6 && d8 * d8 < 1e-6)}' <<<"$out"
then pass=$((pass + 1))
else echo "FAIL: set table:"; echo "$out"; fail=$((fail + 1)); fi

# pairs: 1 ms + 1.0 us per local sample, plus 0.25 us per global sample
# beyond one GPU: every 8-GPU row's extra over its one-GPU pair is 250 ns
# per global sample, and the 8 pairs (local batch 512-65,536) are found
synth_csv "$SET" "$TMP/pairs.csv" "
l, g, n = float(r['batch_per_gpu']), float(r['global_batch']), int(r['gpus'])
r['measured_iter_ms'] = '%.12g' % (1 + 1.0e-3 * l + (0.25e-3 * g if n > 1 else 0))"
out=$(python3 "$TOOL" --stepcast "$CLI" "$TMP/pairs.csv")
if awk -F' [|] ' '/^wdl-bsz-[0-9]+ \/ wdl-bsz-[0-9]+ [|]/ {split($6, e, " / "); n++
                   if ($2 == 8 && e[1] == 250) ok++}
        END {exit !(n == 8 && ok == 8)}' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: synthetic pairs:"; echo "$out"; fail=$((fail + 1)); fi

# hostcopy: 259 B per GPU per global sample owned (28 tables, 13 dense
# features) over QPI, 4 GPUs at 6 GB/s: 173 ns; the whole batch, 504 B:
# 336; one GPU over PCIe at 12 GB/s: 42; and no copies = validate's MAPE
out=$(python3 tools/recsys/hostcopy.py --stepcast "$CLI" "$SET")
want=$("$CLI" validate --format csv "$SET" | awk -F, 'NR > 1 && $6 != "" {s += $6; n++}
        END {printf "%.1f", 100 * s / n}')
if awk -F' [|] ' -v want="$want" '/^owner add/ {a = ($2 == "42 / 173")}
        /^bcast max/ {b = ($2 == "42 / 336")}
        /^as predicted/ {c = ($3 == want)}
        END {exit !(a && b && c)}' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: hostcopy (want file MAPE $want):"; echo "$out"; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
