#!/usr/bin/env python3
"""test_docs_errors.py -- the error messages the docs show are the ones the
command prints, and bad input exits 2.

Each case is the bad input a doc's example stands for (docs/input.md,
"Errors, by example"; docs/graph.md, "Errors" and "Order"; docs/trace.md's
`dur` messages); the message stepcast prints must match one line of the
doc's block, where "..." in the doc stands for any text. A message that
changes fails here, naming the doc, until the doc shows the new one.

Usage: test_docs_errors.py PATH/TO/stepcast   (run from the source tree)
Python standard library only; needs nothing outside the repository.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def doc_lines(doc, after):
    """The lines of the first ``` block after the line starting `after`."""
    text = open(os.path.join(ROOT, doc), encoding="utf-8").read()
    at = text.index(after)
    start = text.index("```", at)
    start = text.index("\n", start) + 1
    return text[start:text.index("```", start)].splitlines()


def doc_inline(doc):
    """The whole text of a doc with its line breaks as spaces."""
    return " ".join(open(os.path.join(ROOT, doc), encoding="utf-8").read().split())


def matches(line, message):
    """The doc's line matches the message, "..." standing for any text."""
    parts = [re.escape(p) for p in line.split("...")]
    return re.fullmatch(".*".join(parts), message) is not None


def run(cli, args, cwd):
    p = subprocess.run([cli] + args, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""


FAILS = []


def check(doc, lines, what, rc, message, prefix=""):
    if rc != 2:
        FAILS.append(f"{doc}: {what}: exit {rc}, expected 2 ({message})")
    elif not any(matches(prefix + l, message) for l in lines):
        FAILS.append(f"{doc}: {what}: the doc shows no line like what stepcast prints:\n    {message}")


def input_errors(cli, tmp):
    doc = "docs/input.md"
    lines = doc_lines(doc, "## Errors, by example")
    lines = [l for l in lines if not l.startswith("$ ")]
    cases = {
        "invalid JSON": '{\n  "plan": {\n    "tp" 4}\n}\n',
        "unknown key": '{"plan": {"tpp": 8}}',
        "a string for an integer": '{"plan": {"tp": "8"}}',
        "tp not dividing the heads": '{"plan": {"tp": 5}}',
        "dp not matching the GPUs": '{"plan": {"dp": 4}}',
        "micro-batch not dividing the batch": '{"plan": {"micro_batch": 5}}',
        "unknown GPU": '{"cluster": {"gpu": "h100"}}',
    }
    for what, text in cases.items():
        with open(os.path.join(tmp, "bad.json"), "w") as f:
            f.write(text)
        rc, msg = run(cli, ["predict", "bad.json"], tmp)
        check(doc, lines, what, rc, msg)
    # the inline examples of the same page
    inline = doc_inline(doc)
    for what, args in {
        "an unknown key in an override": ["predict", "--set", "plan.tpp=8"],
        "a bad value in an override": ["predict", "--set", "plan.tp=abc"],
        "GPUs not whole nodes": ["predict", "-n", "1020"],
        "GPUs not whole nodes of the reference system": ["predict", "-g", "gb200", "-n", "258"],
        "an uneven stage layout": ["predict", "--set", "plan.pp_first_layers=5",
                                   "--set", "plan.pp_last_layers=8"],
        "an override's layers out of range": [
            "predict", "-m", "llama3-8b", "-n", "8", "--tp", "8", "--pp", "1",
            "--set", 'plan.overrides=[{"layers": [30, 40], "recompute": "full"}]'],
    }.items():
        rc, msg = run(cli, args, tmp)
        # the page quotes the part after "stepcast predict: <default scenario>: "
        body = msg.split(": ", 2)[-1] if msg.startswith("stepcast predict: <") else msg.split(": ", 1)[-1]
        quoted = [q for q in re.findall(r"`([^`]*)`", inline) if len(q) > 20]
        if rc != 2:
            FAILS.append(f"{doc}: {what}: exit {rc}, expected 2 ({msg})")
        elif not any(q in body for q in quoted):
            FAILS.append(f"{doc}: {what}: the page quotes no part of what stepcast prints:\n    {msg}")


def graph_errors(cli, tmp):
    doc = "docs/graph.md"
    lines = doc_lines(doc, "## Errors") + doc_lines(doc, "Operators that read each other's outputs")
    base = json.load(open(os.path.join(ROOT, "examples/graphs/gpt-2layer.json")))

    def cyc(o):
        o.insert(5, {"name": "a", "op": "gelu", "in": ["bb"], "out": "aa"})
        o.insert(6, {"name": "b", "op": "gelu", "in": ["aa"], "out": "bb"})

    edits = {
        "an unknown op": lambda o: o[2].__setitem__("op", "atention"),
        "a key the op does not take": lambda o: o[1].__setitem__("heads", 12),
        "a dangling input": lambda o: o[3].__setitem__("in", ["ctxt"]),
        "a declared shape that differs": lambda o: o[6].__setitem__("shape", [2048, 4096]),
        "an output nothing reads": lambda o: o.insert(2, {"name": "fc0", "op": "linear", "in": ["ln1"],
                                                          "out": "h", "out_features": 768}),
        "a cycle": cyc,
    }
    args = ["predict", "-m", "model.json", "-n", "8", "--tp", "2", "--pp", "1", "--gb", "64"]
    with open(os.path.join(tmp, "model.json"), "w") as f:
        f.write('{\n  "name": "x",\n  }\n')
    rc, msg = run(cli, args, tmp)
    check(doc, lines, "a trailing comma", rc, msg, prefix="stepcast predict: ")
    for what, edit in edits.items():
        g = copy.deepcopy(base)
        edit(g["blocks"][1]["ops"])
        with open(os.path.join(tmp, "model.json"), "w") as f:
            json.dump(g, f, indent=2)
        rc, msg = run(cli, args, tmp)
        check(doc, lines, what, rc, msg, prefix="stepcast predict: ")


def trace_errors(cli, tmp):
    doc = "docs/trace.md"
    inline = doc_inline(doc)
    base = json.load(open(os.path.join(ROOT, "examples/traces/rank0.json")))
    i = next(k for k, e in enumerate(base["traceEvents"]) if e.get("ph") == "X")
    for what, edit in {
        "a negative duration": lambda e: e.__setitem__("dur", -1),
        "a missing duration": lambda e: e.pop("dur"),
        "a duration as a string": lambda e: e.__setitem__("dur", "5"),
    }.items():
        t = copy.deepcopy(base)
        edit(t["traceEvents"][i])
        with open(os.path.join(tmp, "t.json"), "w") as f:
            json.dump(t, f)
        rc, msg = run(cli, ["trace", "t.json"], tmp)
        # the page quotes the text after the key path "traceEvents[N].dur: "
        tail = msg.split(".dur: ", 1)[-1]
        if rc != 2:
            FAILS.append(f"{doc}: {what}: exit {rc}, expected 2 ({msg})")
        elif tail not in inline:
            FAILS.append(f"{doc}: {what}: the page does not quote what stepcast prints:\n    {msg}")


def main():
    cli = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        input_errors(cli, tmp)
        graph_errors(cli, tmp)
        trace_errors(cli, tmp)
    for f in FAILS:
        print("FAIL:", f)
    print(f"{len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
