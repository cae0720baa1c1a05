#!/usr/bin/env python3
"""test_pred_agree.py -- a prediction agrees with itself, as a practitioner
checks it, on the default scenario and every LLM example (closed form and
event engine): the time_s parts add up to step_s; seq_per_s is
global_batch / step_s and tokens_per_s seq_per_s x seq; tflops_per_gpu is
model_flops / step_s / gpus and mfu that over the GPU's dense 16-bit peak
(the same peak for every prediction of one GPU); the memory parts add up to
the total and fits is total <= capacity; the table's model and cluster
lines are JSON's shape and cluster; every "note:" the table prints
is in the JSON's "notes", unwrapped (the JSON used to have none of them);
the CSV row carries the JSON's plan, rates and capacity (it lacked the
plan's zero, recompute, dtype, ..., seq_per_s, mfu_lowp and the capacity);
and predict on each plan search lists gives the search's step, memory
and event-engine step.
Usage: test_pred_agree.py PATH/TO/stepcast (run from the source root).
"""
import csv
import glob
import io
import json
import os
import re
import subprocess
import sys

CLI = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []
checked = 0


def run(args):
    p = subprocess.run([CLI] + args, capture_output=True, text=True, cwd=ROOT)
    if p.returncode not in (0, 1):
        raise RuntimeError("stepcast %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def close(a, b, rel=2e-5):
    """Equal within the 6 significant digits JSON prints."""
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check(name, cond, what):
    global checked
    checked += 1
    if not cond:
        failures.append("%s: %s" % (name, what))


def table_notes(text):
    """The table's notes, each joined over its wrapped lines."""
    notes, cur = [], None
    for line in text.splitlines():
        if line.startswith("  note: "):
            cur = [line[len("  note: "):].strip()]
            notes.append(cur)
        elif cur is not None and line.startswith("        ") and line.strip():
            cur.append(line.strip())
        else:
            cur = None
    return [" ".join(n) for n in notes]


HOST_BOUND = ["-m", "gpt3-350m", "-g", "h100-sxm5-80gb", "-n", "8", "--tp", "8", "--pp", "1",
              "--gb", "1", "--set", "plan.framework_eager=true"]
scenarios = [[]] + [[f] for f in sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))]
scenarios += [["-m", "llama3-8b", "-g", "h100-sxm5-80gb", "-n", "8", "--tp", "1", "--pp", "1",
               "--gb", "64", "--dtype", "fp8"],  # fp8: mfu against the bf16 peak
              HOST_BOUND]  # a host-bound step: its note
peak = {}
for args in scenarios:
    for engine in ([], ["--engine", "event"]):
        name = " ".join(["predict"] + args + engine)
        d = json.loads(run(["predict"] + args + engine + ["--format", "json"]))
        pl = d["plan"]
        check(name, close(sum(d["time_s"].values()), d["step_s"]),
              "time_s parts add up to %g, step_s %g" % (sum(d["time_s"].values()), d["step_s"]))
        check(name, close(pl["global_batch"] / d["step_s"], d["seq_per_s"]),
              "seq_per_s %g, global_batch / step_s %g" % (d["seq_per_s"],
                                                         pl["global_batch"] / d["step_s"]))
        tf = d["model_flops"] / d["step_s"] / d["gpus"] / 1e12
        check(name, close(tf, d["tflops_per_gpu"]), "tflops_per_gpu %g, model_flops / step_s / "
              "gpus %g" % (d["tflops_per_gpu"], tf))
        p = d["tflops_per_gpu"] / d["mfu"]
        check(name, close(peak.setdefault(d["gpu"], p), p, 1e-4),
              "mfu implies a %g TFLOP/s peak, another prediction on %s %g" % (p, d["gpu"],
                                                                              peak[d["gpu"]]))
        m = d["memory_bytes"]
        parts = sum(m[k] for k in ("weights", "gradients", "optimizer_states", "activations",
                                   "buffers"))
        check(name, close(parts, m["total"], 1e-4), "memory parts %g, total %g" % (parts,
                                                                                 m["total"]))
        if "host_offload_per_server" not in m:
            check(name, d["fits"] == (m["total"] <= m["capacity"]), "fits %s, total %g, "
                  "capacity %g" % (d["fits"], m["total"], m["capacity"]))
        if not engine:  # the event engine's CSV is its critical path
            row = next(csv.DictReader(io.StringIO(run(["predict"] + args + ["--format", "csv"]))))
            for k in ("tp", "pp", "dp", "cp", "ep", "vpp", "zero", "schedule", "recompute", "dtype",
                      "attention", "micro_batch", "global_batch", "micro_batches"):
                check(name, row[k] == str(pl[k]), "CSV %s %s, JSON %s" % (k, row[k], pl[k]))
            check(name, row["sp"] == str(int(pl["sp"])), "CSV sp %s, JSON %s" % (row["sp"], pl["sp"]))
            for k in ("step_s", "tokens_per_s", "seq_per_s", "tflops_per_gpu", "mfu", "mfu_lowp",
                      "model_flops", "params"):
                check(name, close(float(row[k]), d[k]), "CSV %s %s, JSON %s" % (k, row[k], d[k]))
            for k, v in m.items():
                if not k.startswith("host_"):
                    check(name, close(float(row["mem_%s_bytes" % k]), v), "CSV mem_%s_bytes %s, "
                          "JSON %s" % (k, row["mem_%s_bytes" % k], v))
        table = run(["predict"] + args + engine)
        seq = re.search(r"(\d+) layers, hidden (\d+), seq (\d+)", table)
        if seq:  # the table's model line is JSON's shape
            check(name, [int(x) for x in seq.groups()] == [d["shape"][k] for k in
                                                          ("layers", "hidden", "seq")],
                  "table %s, JSON shape %s" % (seq.group(0), d["shape"]))
            check(name, close(d["seq_per_s"] * d["shape"]["seq"], d["tokens_per_s"]),
                  "tokens_per_s %g, seq_per_s x seq %g" % (d["tokens_per_s"],
                                                            d["seq_per_s"] * d["shape"]["seq"]))
        cl = re.search(r"(\d+) per node.*?([\d.]+) GB/s, NIC ([\d.]+) Gb/s per GPU", table)
        check(name, cl and (int(cl.group(1)), float(cl.group(2)), float(cl.group(3))) ==
              (d["cluster"]["gpus_per_node"], d["cluster"]["link_GBps"], d["cluster"]["nic_Gbps"]),
              "table cluster line %r, JSON cluster %s" % (cl and cl.group(0), d["cluster"]))
        check(name, table_notes(table) == d.get("notes", []),
              "table notes %r, JSON notes %r" % (table_notes(table), d.get("notes")))

# search's plans are what predict says on them: the plan's keys and every
# "searched" key set (0 too: the deepseek example's own pp_first_layers 4
# would stay otherwise), closed form and event engine
for scn in ([], [os.path.join(ROOT, "examples", "deepseek-v3-modelzoo-h100.json")]):
    doc = json.loads(run(["search"] + scn + ["--top", "3", "--format", "json"]))
    check("search " + " ".join(scn), len(doc["plans"]) == 3, "fewer than 3 plans")
    for p in doc["plans"]:
        pl, sets = p["plan"], []
        for k in ("tp", "pp", "dp", "cp", "ep", "vpp", "zero", "schedule", "recompute",
                  "micro_batch", "dtype"):
            sets += ["--set", "plan.%s=%s" % (k, pl[k])]
        sets += ["--set", "plan.sp=%s" % ("true" if pl["sp"] else "false")]
        for k, v in p["searched"].items():
            sets += ["--set", "plan.%s=%s" % (k, json.dumps(v))]
        name = "search %s plan %d" % (" ".join(scn), p["rank"])
        q = json.loads(run(["predict"] + scn + sets + ["--format", "json"]))
        for k in ("step_s", "tokens_per_s", "mfu"):
            check(name, close(q[k], p[k]), "predict %s %g, search %g" % (k, q[k], p[k]))
        check(name, close(q["memory_bytes"]["total"], p["memory_bytes"]["total"]),
              "predict memory %g, search %g" % (q["memory_bytes"]["total"],
                                                p["memory_bytes"]["total"]))
        check(name, q["fits"] == p["fits"], "predict fits %s, search %s" % (q["fits"], p["fits"]))
        if "event_step_s" in p:
            e = json.loads(run(["predict"] + scn + sets + ["--engine", "event", "--format", "json"]))
            check(name, close(e["step_s"], p["event_step_s"]), "predict --engine event %g, "
                  "search event_step_s %g" % (e["step_s"], p["event_step_s"]))

# the notes this test must see at least once, so that it checks something
seen = run(["predict"] + HOST_BOUND + ["--format", "json"])
check("host-bound note", "host-bound" in seen, "the host-bound scenario has no host-bound note")
for f in failures:
    print("FAIL:", f)
print("test_pred_agree: %d checks, %d failed" % (checked, len(failures)))
sys.exit(1 if failures else 0)
