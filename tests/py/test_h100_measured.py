#!/usr/bin/env python3
"""test_h100_measured.py -- our own H100 measurements
(data/measured/h100_gpt_steps.csv) parse, have exactly the columns their
README documents, describe the model tools/calib/h100_step.py builds
(parameter count from the shape), and every row still makes a valid
stepcast scenario through tools/calib/h100_compare.py. Timings are not
asserted. Usage: test_h100_measured.py PATH/TO/stepcast (from the source root).
"""
import csv
import os
import re
import subprocess
import sys

CLI = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = os.path.join(ROOT, "data", "measured")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def documented_columns():
    cols = []
    for line in open(os.path.join(DIR, "README.md")):
        if line.startswith("| `"):
            first = line.split("|")[1]
            cols += re.findall(r"`([a-z_A-Z]+)`", first)
    return cols


def gpt_params(r):
    """Token + position embeddings, per block 12 h^2 + 13 h, final norm 2 h (tied head)."""
    h, L, s, v = int(r["hidden"]), int(r["layers"]), int(r["seq"]), int(r["vocab"])
    return v * h + s * h + L * (12 * h * h + 13 * h) + 2 * h


rows = list(csv.DictReader(open(os.path.join(DIR, "h100_gpt_steps.csv"))))
with open(os.path.join(DIR, "h100_gpt_steps.csv")) as f:
    header = next(csv.reader(f))
check(header == documented_columns(),
      "CSV header %s != README columns %s" % (header, documented_columns()))
ok = [r for r in rows if r["status"] == "ok"]
check(len(ok) >= 8, "only %d rows with status ok" % len(ok))
for r in ok:
    t = {k: float(r[k]) for k in ("step_ms", "step_ms_min", "step_ms_max", "fwd_ms", "bwd_ms", "opt_ms")}
    check(all(v > 0 for v in t.values()), r["name"] + ": a timing is not positive")
    check(t["step_ms_min"] <= t["step_ms"] <= t["step_ms_max"], r["name"] + ": median outside min..max")
    check(int(r["params"]) == gpt_params(r),
          "%s: params %s, the model's shape gives %d" % (r["name"], r["params"], gpt_params(r)))
    check(r["tied"] == "1" and r["ckpt"] in ("0", "1"), r["name"] + ": tied/ckpt")
check(any(r["ckpt"] == "1" for r in ok) and any(r["ckpt"] == "0" for r in ok),
      "both checkpointed and plain configs expected")

out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "calib", "h100_compare.py"),
                      "--stepcast", CLI, "--csv", os.path.join(DIR, "h100_gpt_steps.csv")],
                     capture_output=True, text=True)
check(out.returncode == 0, "h100_compare.py failed: " + out.stderr)
table = [l for l in out.stdout.splitlines() if l.startswith("| ") and not l.startswith("| config")]
check(len(table) == len(ok), "%d comparison rows for %d measured" % (len(table), len(ok)))
for l in table:
    cells = [c.strip() for c in l.strip("|").split("|")]
    pred = float(cells[3])
    check(pred > 0, "non-positive prediction: " + l)
    # the scenario's model is the measured one: stepcast's parameter count matches
    meas_b, pred_b = cells[1].split(" / ")
    check(meas_b == pred_b, "parameter count differs: " + l)
check(re.search(r"^MAPE [0-9.]+ %% over %d configs" % len(ok), out.stdout, re.M) is not None,
      "no MAPE line")

for f in failures:
    print("FAIL:", f)
print("%d rows checked, %d failures" % (len(ok), len(failures)))
sys.exit(1 if failures else 0)
