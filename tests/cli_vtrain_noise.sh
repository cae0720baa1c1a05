#!/usr/bin/env bash
# tools/calib/vtrain_noise.py (docs/accuracy.md, "vTrain ranking: the
# measurement's resolution"): its score is build/bench_ranking's, each
# missed group's rise of one measured layer time is the exact threshold
# (a hair above it passes, a hair below still misses), a composed
# re-measurement moves each series' fitted layer time by its own factor,
# a physical synthetic set needs no projection, and the repeats' split
# agrees with the CSVs. Needs ../shared (fails loudly without it).
CLI=${1:?usage: cli_vtrain_noise.sh path/to/stepcast}
source "$(dirname "$0")/e2e_lib.sh"
SET=../shared/validation/training/vtrain_single_node.csv
TOOL=tools/calib/vtrain_noise.py
need_shared "$SET"

out=$(python3 "$TOOL" --stepcast "$CLI" --draws 0 "$SET")
bench=$("$(dirname "$CLI")/bench_ranking" "$SET")
if [[ $bench =~ mean\ Kendall\ tau\ ([0-9.]+),.*in\ ([0-9]+)\ \( ]] &&
   grep -q "^stepcast: ${BASH_REMATCH[2]} of 136 groups within 5 %, mean tau ${BASH_REMATCH[1]}$" <<<"$out"; then
  pass=$((pass + 1))
else echo "FAIL: score against bench_ranking:"; echo "$bench"; echo "$out" | head -3; fail=$((fail + 1)); fi

# the rise of each missed best's layer time, applied through the row's
# composition (and the pick's where it shares that layer time), is the
# threshold: 1.001 x it passes the group, 0.999 x it does not
chk=$(python3 - "$CLI" "$SET" <<'PY'
import sys
sys.path.insert(0, 'tools/calib')
import vtrain_noise as vn
from vtrain_compose import fit, load, xrow
from vtrain_layers import predictions
cli, path = sys.argv[1:]
rows = load(path, predictions(cli, path))
gs = vn.groups(rows)
fm = fit(rows, 'meas')
miss = [(0, 0, min(rs, key=lambda r: r['meas']), min(rs, key=lambda r: r['pred'])) for rs in gs]
miss = [m for m in miss if m[3]['meas'] > 1.05 * m[2]['meas']]
bad = 0
for need, b, p in vn.rises(rows, miss):
    a = fm[vn.skey(b)][0][0]
    for f, want in ((1.001, True), (0.999, False)):
        move = lambda r: r['meas'] + (xrow(r)[0] * a * need * f if vn.akey(r) == vn.akey(b) else 0)
        bad += (move(p) <= 1.05 * move(b)) != want
print(len(miss), bad)
PY
)
if [[ $chk =~ ^([0-9]+)\ 0$ ]] && ((BASH_REMATCH[1] > 0)); then pass=$((pass + 1))
else echo "FAIL: rises are not the thresholds: $chk"; fail=$((fail + 1)); fi

# a composed re-measurement: refitting it gives every series' layer time
# times its key's factor (the rows moved through their composition)
chk=$(python3 - "$CLI" "$SET" <<'PY'
import random, sys
sys.path.insert(0, 'tools/calib')
import vtrain_noise as vn
from vtrain_compose import fit, load
from vtrain_layers import predictions
cli, path = sys.argv[1:]
rows = load(path, predictions(cli, path))
fm = fit(rows, 'meas')
comp, _ = vn.redraw(rows, fm, random.Random(7), 0.05)
moved = [dict(r, meas=comp[id(r)]) for r in rows]
f2 = fit(moved, 'meas')
ratio = {}
worst = 0.0
for k in fm:
    q = f2[k][0][0] / fm[k][0][0]
    worst = max(worst, abs(q - ratio.setdefault(k[:3], q)))
print(len(ratio), len(set(round(v, 6) for v in ratio.values())), '%.1e' % worst)
PY
)
if [[ $chk =~ ^([0-9]+)\ ([0-9]+)\ ([0-9.e+-]+)$ ]] && ((BASH_REMATCH[1] >= 20 && BASH_REMATCH[2] == BASH_REMATCH[1])) &&
   awk -v w="${BASH_REMATCH[3]}" 'BEGIN {exit !(w < 1e-6)}'; then pass=$((pass + 1))
else echo "FAIL: composed re-measurement: $chk"; fail=$((fail + 1)); fi

# a synthetic set composed with a physical layer time (growing with the
# hidden size, the micro-batch and tp x micro-batch): the projection moves
# nothing, so the score against it is the plain score; with a tiny sigma a
# model equal to the set scores every group
synth_csv "$SET" "$TMP/synth.csv" "
m = int(r['global_batch']) // int(r['dp']) // int(r['micro_batch'])
L, pp, mb, tp, h = (int(r[k]) for k in ('layers', 'pp', 'micro_batch', 'tp', 'hidden'))
a = 3 * (h / 1024) * mb ** 0.5 * (1 + 0.1 * tp)
r['measured_iter_s'] = '%.9f' % (1e-3 * (a * (m + pp - 1) * L / pp + 0.5 * L / pp + 5 * m + 2))"
out=$(python3 "$TOOL" --stepcast "$CLI" --draws 3 --sigmas 1e-6 "$TMP/synth.csv")
if [[ $out =~ stepcast:\ ([0-9]+)\ of\ ([0-9]+)\ groups.*tau\ ([0-9.]+) ]] &&
   grep -q "against the set with a projected on the physical orderings: ${BASH_REMATCH[1]} of ${BASH_REMATCH[2]}, tau ${BASH_REMATCH[3]}$" <<<"$out" &&
   grep -q 'projection shift over the [0-9]* layer times: rms 0.0 %' <<<"$out" &&
   grep -q "^ 0.0 % | ${BASH_REMATCH[2]} \[${BASH_REMATCH[2]}-${BASH_REMATCH[2]}\] 1.000 " <<<"$out"; then
  pass=$((pass + 1))
else echo "FAIL: physical synthetic set:"; echo "$out" | grep -v '^  [a-z]'; fail=$((fail + 1)); fi

# the repeats: configs within 1 % of each other, counted from the CSVs
want=$(join -t, <(tail -n +2 data/measured/h200_dp_steps.csv | cut -d, -f1,12 | sort) \
               <(tail -n +2 data/measured/h200_dp_steps_2.csv | cut -d, -f1,12 | sort) |
       awk -F, '{l = log($3 / $2); if (l < 0) l = -l; n++; k += l <= 0.01} END {print n, k}')
line=$(grep '^  all:' <<<"$out")
if [[ $line =~ all:\ +([0-9]+)\ configs.*within\ 1\ %\ in\ ([0-9]+) ]] &&
   [[ "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" == "$want" ]]; then pass=$((pass + 1))
else echo "FAIL: repeats: want '$want'"; echo "$out" | grep 'all:'; fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
