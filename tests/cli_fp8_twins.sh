#!/usr/bin/env bash
# tools/accuracy/fp8_twins.py (docs/accuracy.md, dgxc item (8)): on a
# synthetic copy of dgxc's GB200 rows whose bf16 rows are measured 0.2 s
# slower than predicted and whose fp8 rows 0.2 s plus a tenth of their own
# modelled GEMM time slower, every twin pair's extra is 10.0 % of its fp8
# GEMM time and the implied GEMM ratio the modelled one over 1.1; a pair
# whose plan differs is named and left out; --notes rewrites only the fp8
# rows. Needs ../shared (fails loudly without it).
CLI=${1:?usage: cli_fp8_twins.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
SET=../shared/validation/training/dgxc_benchmarking.csv
TOOL=tools/accuracy/fp8_twins.py
need_shared "$SET"

python3 - "$CLI" "$SET" "$TMP/synth.csv" <<'PY'
import csv, json, subprocess, sys
cli, src, dst = sys.argv[1:]
rows = [r for r in csv.DictReader(open(src)) if r['gpu'] == 'gb200']
with open(dst, 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    w.writerows(rows)
out = []
for r in rows:
    d = json.loads(subprocess.run([cli, 'validate', '--row', r['id'], dst, '--ops', '--format', 'json'],
                                  capture_output=True, text=True, check=True).stdout)
    g = next(k for k in d['op_kinds'] if k['name'] == 'gemm')
    gemm = (g['fwd_s'] + g['bwd_s']) * d['plan']['micro_batches']
    extra = 0.2 + (0.1 * gemm if r['dtype'] == 'fp8' else 0)
    r['measured_iter_s'] = '%.12g' % (d['step_s'] + extra)
    out.append(r)
# one pair that is not a twin: its fp8 row on another pipeline split
bad = next(r for r in out if r['id'] == 'dgxc-nemotron4-340b-gb200-fp8-256')
bad['pp'], bad['dp'] = '8', '4'
with open(dst, 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=out[0].keys())
    w.writeheader()
    w.writerows(out)
PY

out=$(python3 "$TOOL" --stepcast "$CLI" "$TMP/synth.csv")
if awk '/^dgxc-.*-fp8/ && $2 != "not" {n++; if ($6 != "10.0%") bad++}
        /not a twin \(pp, dp\)/ {nt++}
        END {exit !(n == 8 && nt == 1 && bad == 0)}' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: synthetic twins:"; echo "$out" | head -20; fail=$((fail + 1)); fi
# implied = gemm16 / (1.1 gemm8): 1.1 x implied x gemm8 is the bf16 GEMM
# time, about 1.94x the fp8 one on GB200 (the model's fp8/bf16 rate ratio)
if awk '/^dgxc-.*-fp8/ && $2 != "not" {r = 1.1 * $8; if (r < 1.85 || r > 2.05) bad++; n++}
        END {exit !(n == 8 && bad == 0)}' <<<"$out"; then pass=$((pass + 1))
else echo "FAIL: implied ratio:"; echo "$out" | head -20; fail=$((fail + 1)); fi

# --notes mxfp8: the fp8 rows are predicted under MXFP8 (their err8
# changes), their bf16 twins are not (err16 the same)
out2=$(python3 "$TOOL" --stepcast "$CLI" --notes mxfp8 "$TMP/synth.csv")
if paste <(grep '^dgxc-.*fp8.*%' <<<"$out") <(grep '^dgxc-.*fp8.*%' <<<"$out2") |
   awk '{n++; if ($3 != $11) bad++; if ($2 != $10) moved++}
        END {exit !(n == 8 && bad == 0 && moved == 8)}'; then pass=$((pass + 1))
else echo "FAIL: --notes mxfp8:"; echo "$out2" | head -20; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
