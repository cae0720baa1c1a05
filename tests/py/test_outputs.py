#!/usr/bin/env python3
"""test_outputs.py -- every command x option x format gives exactly one
document programs can parse: JSON through Python's json module (one value,
nothing after it, no NaN or Infinity), CSV through the csv module (one
table: every row as wide as the header), and CSV rows say what the JSON
says. Usage: test_outputs.py PATH/TO/stepcast (run from the source root).
With SC_TEST_SUBSET=1 (the sanitizer build's CTest; tests/e2e_lib.sh) the
shipped sets' cases read one small set of each kind instead of every set.
"""
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile

CLI = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples")
TOPO = os.path.join(EX, "topologies", "two_dgx_a100.json")
SMALL_SET = os.path.join(ROOT, "data", "validation", "training", "megatron_sc21_table1.csv")
# what "validate shipped" and the same-bytes check read: every shipped set
# (no file), or under SC_TEST_SUBSET one small set of each kind (as
# tests/e2e_lib.sh's SUBSET_SETS)
SHIPPED = [] if os.environ.get("SC_TEST_SUBSET", "0") != "1" else [
    os.path.join(ROOT, "data", "validation", s) for s in (
        "training/megatron_sc21_table1.csv", "collectives/echo_allreduce_a100_2_to_32.csv",
        "dp_training/kungfu_2xdgx1_allreduce_ps_gossip.csv", "recsys/nvidia_dle_dlrm_dcnv2.csv")]
failures = []
checked = 0

# Each case: (name, args without --format, expected exit code). Every
# option that changes the output is here once.
CASES = [
    ("predict", ["predict"], 0),
    ("predict file", ["predict", os.path.join(EX, "llama3-70b-512-h100.json")], 0),
    ("predict ops", ["predict", "--ops"], 0),
    ("predict ops moe", ["predict", os.path.join(EX, "mixtral-8x7b-h100.json"), "--ops"], 0),
    ("predict train-tokens", ["predict", "--train-tokens", "3e11"], 0),
    ("predict overrides", ["predict", "--set",
                           'plan.overrides=[{"layers": [0, 15], "recompute": "full"}]'], 0),
    ("predict graph", ["predict", "-m", os.path.join(EX, "graphs", "gpt-2layer.json"),
                       "-n", "8", "--tp", "2", "--pp", "2", "--gb", "64"], 0),
    ("predict require-fit", ["predict", "-n", "8", "--tp", "8", "--pp", "1", "--gb", "8",
                             "--set", "plan.zero=0", "--require-fit"], 1),
    ("search", ["search", "-m", "gpt3-13b", "-n", "64", "--gb", "256", "--top", "5"], 0),
    ("search all", ["search", "-m", "gpt3-13b", "-n", "64", "--gb", "256", "--top", "5",
                    "--all"], 0),
    ("search none fits", ["search", "-n", "8", "--gb", "64"], 1),
    ("validate", ["validate", SMALL_SET], 0),
    ("validate summary", ["validate", "--summary", SMALL_SET], 0),
    ("validate shipped", ["validate"] + SHIPPED, 0),
    ("validate row", ["validate", "--row", "sc21-t1-1", SMALL_SET], 0),
    ("collective", ["collective", "--ranks", "16", "--ppn", "8", "--max", "64M"], 0),
    ("collective topo", ["collective", "--ranks", "16", "--ppn", "8", "--topo", TOPO,
                         "--max", "16M"], 0),
    ("topo", ["topo", TOPO], 0),
    ("topo check", ["topo", TOPO, "--check"], 0),
    ("presets", ["presets"], 0),
    ("dp predict", ["predict", os.path.join(EX, "dp", "resnet50-8-p100-ps.json")], 0),
    ("dp schemes", ["predict", os.path.join(EX, "dp", "resnet50-16-v100-25gbe.json"),
                    "--schemes"], 0),
    ("dp compare", ["dp", os.path.join(EX, "dp", "resnet50-16-topologies.json")], 0),
    ("dp row", ["validate", "--row", "kungfu-031", os.path.join(
        ROOT, "data", "validation", "dp_training", "kungfu_2xdgx1_allreduce_ps_gossip.csv")], 0),
    ("validate dp", ["validate", os.path.join(ROOT, "data", "validation", "dp_training",
                                              "kungfu_2xdgx1_allreduce_ps_gossip.csv")], 0),
]


def fail(case, msg):
    failures.append(f"{case}: {msg}")
    print(f"FAIL: {case}: {msg}")


def run(args):
    p = subprocess.run([CLI] + args, capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def no_nonfinite(x):
    if isinstance(x, float):
        return math.isfinite(x)
    if isinstance(x, dict):
        return all(no_nonfinite(v) for v in x.values())
    if isinstance(x, list):
        return all(no_nonfinite(v) for v in x)
    return True


def strict_json(text):
    """One JSON value and nothing after it; NaN/Infinity refused."""
    def bad_constant(c):
        raise ValueError(f"non-standard constant {c}")
    dec = json.JSONDecoder(parse_constant=bad_constant)
    value, end = dec.raw_decode(text)
    if text[end:].strip():
        raise ValueError(f"more after the JSON value: {text[end:end + 60]!r}")
    return value


def one_table(text):
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        raise ValueError("empty CSV")
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(f"row {i + 1} has {len(r)} fields, the header {width}")
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def close(a, b):
    return abs(a - b) <= 1e-5 * max(abs(a), abs(b), 1e-30)


def agree(name, doc, rows):
    """The CSV rows carry the JSON document's numbers."""
    if name.startswith("dp"):
        if len(rows) != len(doc["schemes"]):
            fail(name, f"CSV {len(rows)} schemes, JSON {len(doc['schemes'])}")
        for r, j in zip(rows, doc["schemes"]):
            if r["scheme"] != j["scheme"] or not close(float(r["step_s"]), j["step_s"]):
                fail(name, f"CSV scheme {r['scheme']} != JSON {j['scheme']}")
    elif name.startswith("predict") or name == "validate row":
        pairs = [("step_s", doc["step_s"]), ("mfu", doc["mfu"])]
        want = len(doc.get("layer_ops", [])) or 1
        if len(rows) != want:
            fail(name, f"CSV has {len(rows)} rows, JSON {want}")
        for k, v in pairs:
            if not close(float(rows[0][k]), v):
                fail(name, f"CSV {k} {rows[0][k]} != JSON {v}")
        for i, op in enumerate(doc.get("layer_ops", [])):
            if rows[i]["op_name"] != op["name"] or not close(float(rows[i]["op_fwd_s"]), op["fwd_s"]):
                fail(name, f"CSV op row {i} != JSON layer_ops[{i}]")
    elif name.startswith("search"):
        # nothing fits: CSV's one row is JSON's "closest" (closest 1, rank 0)
        plans = doc["plans"] or ([doc["closest"]] if "closest" in doc else [])
        if len(rows) != len(plans):
            fail(name, f"CSV {len(rows)} plans, JSON {len(plans)}")
        if not doc["plans"] and rows and (rows[0]["closest"], rows[0]["rank"]) != ("1", "0"):
            fail(name, "CSV's closest row is not marked closest 1, rank 0")
        for r in rows:
            if r["stopped"] != doc["stopped"]:
                fail(name, f"CSV stopped {r['stopped']} != JSON {doc['stopped']}")
        for r, p in zip(rows, plans):
            if not close(float(r["step_s"]), p["step_s"]):
                fail(name, f"CSV step_s {r['step_s']} != JSON {p['step_s']}")
    elif name.startswith("validate"):
        if len(rows) != len(doc["rows"]):
            fail(name, f"CSV {len(rows)} rows, JSON {len(doc['rows'])}")
        for r, j in zip(rows, doc["rows"]):
            if r["id"] != j["id"] or (j["predicted"] is not None and
                                      not close(float(r["predicted"]), j["predicted"])):
                fail(name, f"CSV row {r['id']} != JSON row {j['id']}")
    elif name.startswith("collective"):
        if [float(r["bytes"]) for r in rows] != [j["bytes"] for j in doc["rows"]]:
            fail(name, "CSV sizes != JSON sizes")
    elif name.startswith("topo"):
        if int(rows[0]["links"]) != doc["links"]:
            fail(name, "CSV links != JSON links")


def main():
    global checked
    for name, args, code in CASES:
        docs = {}
        for fmt in ("table", "json", "csv"):
            rc, out, err = run(args + ["--format", fmt])
            checked += 1
            if rc != code:
                fail(name, f"--format {fmt}: exit {rc}, expected {code}: {err.strip()[:200]}")
                continue
            if fmt == "table":
                if not out.strip():
                    fail(name, "--format table printed nothing")
                continue
            try:
                docs[fmt] = strict_json(out) if fmt == "json" else one_table(out)
            except ValueError as e:
                fail(name, f"--format {fmt}: {e}")
                continue
            if fmt == "json" and not no_nonfinite(docs[fmt]):
                fail(name, "JSON holds a non-finite number")
        if "json" in docs and "csv" in docs:
            agree(name, docs["json"], docs["csv"])
    # a file named "-" is standard output, in place of the report
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = run(["predict", "--trace", "-", "--format", "json"])
        checked += 1
        try:
            t = strict_json(out)
            if "traceEvents" not in t:
                fail("trace -", "standard output is not the trace")
        except ValueError as e:
            fail("trace -", str(e))
        if os.path.exists(os.path.join(ROOT, "-")):
            fail("trace -", "wrote a file named '-'")
    # --html - : one HTML page on standard output, in place of the report
    for args in (["predict"], ["search", "-m", "gpt3-13b", "-n", "64", "--gb", "256"],
                 ["validate", SMALL_SET], ["collective", "--max", "1M"]):
        rc, out, err = run(args + ["--html", "-"])
        checked += 1
        if rc != 0 or not out.startswith("<!DOCTYPE html>") or out.count("</html>") != 1 \
                or not out.rstrip().endswith("</html>"):
            fail(args[0] + " --html -", f"exit {rc}, not one HTML page: {out[:60]!r}")
    rc, out, err = run(["predict", "--trace", "-", "--html", "-"])
    checked += 1
    if rc != 2 or "only one output can be '-'" not in err:
        fail("predict --trace - --html -", f"exit {rc}: {err.strip()[:120]}")
    # the same input gives the same bytes (no wall time unless asked)
    a, b = (run(["validate", "--format", "json"] + SHIPPED)[1],
            run(["validate", "--format", "json"] + SHIPPED)[1])
    checked += 1
    if a != b:
        fail("validate json", "two runs differ")
    # one set of format names: every command refuses the same unknown one
    for cmd in (["predict"], ["search"], ["validate", SMALL_SET], ["collective"], ["topo", TOPO],
                ["presets"]):
        rc, out, err = run(cmd + ["--format", "text"])
        checked += 1
        if rc != 2 or "table, json or csv" not in err:
            fail(" ".join(cmd[:1]), f"--format text: exit {rc}, {err.strip()[:120]}")
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
