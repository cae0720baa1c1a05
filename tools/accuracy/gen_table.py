#!/usr/bin/env python3
"""gen_table.py -- regenerate src/report/accuracy_table.c, the accuracy of
the model per class of LLM training run and of collective (src/report/
accuracy.h), from what `stepcast validate` predicts now; or check the
committed table against it.

    python3 tools/accuracy/gen_table.py --stepcast build/stepcast \\
        > src/report/accuracy_table.c
    python3 tools/accuracy/gen_table.py --stepcast build/stepcast \\
        --check src/report/accuracy_table.c --out build/accuracy_table.c

The rows are those of `stepcast validate --format csv` over
VALIDATION/training/ (every .csv) (predicted rows only; skipped rows have no
error); the IN-SAMPLE marks are the `in_sample` texts of
`stepcast validate --format json` (a non-empty text marks the set). The
class of a row comes from the row's own plan and GPU columns, by the rules
of src/report/accuracy.h (keep the two in step):
  - architecture: the `arch` of the row's GPU preset in src/hw/gpu_presets.c,
    divided by 10 (7 Volta, 8 Ampere, 9 Hopper, 10 Blackwell);
  - dtype class: fp16/bf16 = 16-bit, fp8/fp4 = fp8/fp4, else 32-bit;
  - parallel style: zero >= 3 = FSDP/ZeRO-3, else Megatron-style;
  - scale, appended to the style: "one-server" when gpus <= gpus_per_node
    (blank gpus 1, blank gpus_per_node 8; no row of the sets leaves them
    blank: validate fills such a blank from the row's other cells or the
    GPU's reference server, docs/accuracy.md item 12, which this tool does
    not repeat), else "multi-server";
  - MoE rows (experts > 1) are prefixed "MoE " (the C lookup has no row
    for them unless a set gains some).
A collective row (VALIDATION/collectives) is classed by its op, its size
(below 1 MiB or from 1 MiB, validate's split) and whether its ranks fit in
one node (ranks <= gpus_per_node, blank 8 -- none is blank; validate
reads a blank as the reference server's NVLink domain: intra-node, else
inter-node).
A data-parallel row (VALIDATION/dp_training) is classed by its model family
(BERT or CNN: which builder makes its model; test_accuracy checks that
this agrees with the builder's kind on every row), its scheme_family and
its scale (one-server when gpus <= gpus_per_node, blank gpus 1, blank
gpus_per_node min(gpus, 8); none is blank in the sets, and validate fills
a blank from nodes or the reference server; else multi-server).
A recommendation row (VALIDATION/recsys) is classed by its gpus: one GPU
or several.
Never keyed on a row's source or id; file names are provenance.

Each class also carries the range its predicted rows cover (acc_range of
accuracy.h), from the rows' own columns: the fewest and most GPUs (`gpus`;
a collective's `ranks`), and for the training classes the shortest and
longest `seq`, the narrowest and widest `hidden`, the GPU presets (`gpu`)
and the dtypes (`dtype`) the rows ran. A prediction far outside it says so
("outside the validated range: ..."; src/report/accuracy.c). --check
compares the ranges exactly, as it does the row counts.

--docs DOC: the per-class tables of DOC (docs/accuracy.md: the four tables
headed "| class | rows | MAPE | signed | worst | sets (rows) |", in the order
training, collectives, data-parallel, recommendation) against the committed
C table (--table, default src/report/accuracy_table.c): exit 1 naming the
first line that differs; with --write, rewrite them in place. Reads no
validation set (the C table's own freshness is --check's job).

--check: regenerate into --out, then fail (exit 1, naming each figure) if
the committed table's classes differ, a row count differs, or a MAPE,
signed or worst error differs by more than 0.5 points. Python 3 standard
library only.
"""
import argparse
import csv
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARCH = {7: "Volta", 8: "Ampere", 9: "Hopper", 10: "Blackwell"}
ARCH_ORDER = ["Volta", "Ampere", "Hopper", "Blackwell"]
TOLERANCE = 0.5  # points of percent
MAX_SRC = 6      # ACC_MAX_SRC of accuracy.h
REGEN = ("python3 tools/accuracy/gen_table.py --stepcast build/stepcast "
         "> src/report/accuracy_table.c")


def gpu_arch():
    """GPU preset name -> SM version, read from src/hw/gpu_presets.c."""
    text = open(os.path.join(ROOT, "src/hw/gpu_presets.c"), encoding="utf-8").read()
    pairs = re.findall(r'\.name\s*=\s*"([^"]+)",[^{}]*?\.arch\s*=\s*(\d+)', text)
    if not pairs:
        sys.exit("gen_table.py: no GPU presets found in src/hw/gpu_presets.c")
    return {name: int(arch) for name, arch in pairs}


def row_class(cols, arches):
    """The class of one training row from its plan and GPU columns."""
    arch = ARCH.get(arches.get(cols["gpu"], -1) // 10)
    if arch is None:
        return None
    dt = cols["dtype"].strip().lower()
    dtype = "16-bit" if dt in ("fp16", "bf16") else "fp8/fp4" if dt in ("fp8", "fp4") else "32-bit"
    zero = int(float(cols.get("zero") or 0))
    style = "FSDP/ZeRO-3" if zero >= 3 else "Megatron-style"
    gpus = int(float(cols.get("gpus") or 1))
    gpn = int(float(cols.get("gpus_per_node") or 8))
    style += " one-server" if gpus <= gpn else " multi-server"
    if int(float(cols.get("experts") or 1)) > 1:
        style = "MoE " + style
    return (arch, dtype, style)


def run(cmd):
    res = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.exit("gen_table.py: %s failed (exit %d):\n%s" % (" ".join(cmd), res.returncode,
                                                            res.stderr))
    return res.stdout


def coll_class(cols):
    """The class of one collective row: op, size (validate's 1 MiB split),
    locality (ranks within gpus_per_node, blank = 8; no set row is blank)."""
    gpn = int(float(cols.get("gpus_per_node") or 8))
    size = "below 1 MiB" if float(cols["bytes"]) < 1048576 else "from 1 MiB"
    where = "intra-node" if int(float(cols["ranks"])) <= gpn else "inter-node"
    return (cols["op"], size, where)


def dp_class(cols):
    """The class of one data-parallel row: the model family its builder
    makes (BERT for the bert_* models, CNN for the others: the sets hold
    only those two kinds), the row's scheme family and its scale."""
    model = "BERT" if cols["model"].strip().lower().startswith("bert") else "CNN"
    gpus = int(float(cols.get("gpus") or 1))
    gpn = int(float(cols.get("gpus_per_node") or min(gpus, 8)))
    where = "one-server" if gpus <= gpn else "multi-server"
    return (model, cols["scheme_family"].strip(), where + " data-parallel")


def rs_class(cols):
    """The class of one recommendation row: one GPU or several."""
    return ("recsys", "one GPU" if int(float(cols["gpus"] or 1)) <= 1 else "multi-GPU", "training")


def num(cols, key):
    """The number in cols[key], or None when the column is blank or absent."""
    v = (cols.get(key) or "").strip()
    try:
        return float(v)
    except ValueError:
        return None


def cover(c, cols, kind):
    """Widen the range of class entry c by one predicted row's columns:
    gpus (a collective's ranks) for every kind; seq, hidden, the GPU preset
    and the dtype for training rows (the other sets name GPUs and dtypes
    by aliases that are not presets, "a100-sxm4", "amp")."""
    keys = (("gpus", "ranks" if kind == "collectives" else "gpus"),)
    if kind == "training":
        keys += (("seq", "seq"), ("hidden", "hidden"))
    for name, col in keys:
        v = num(cols, col)
        if v is not None:
            lo, hi = c["range"].get(name, (v, v))
            c["range"][name] = (min(lo, v), max(hi, v))
    if kind == "training":
        c["gpu"].add(cols["gpu"].strip())
        c["dtype"].add(cols["dtype"].strip().lower())


def collect(stepcast, validation, kind, classify):
    """{class: {"errs": [signed %], "src": {file: n}, "range": {name: (lo, hi)},
    "gpu": {preset}, "dtype": {dtype}}} of the predicted rows of
    VALIDATION/kind/*.csv, and the sets validate marks IN-SAMPLE."""
    files = sorted(glob.glob(os.path.join(validation, kind, "*.csv")))
    if not files:
        sys.exit("gen_table.py: no %s sets under %s (../shared/validation is needed)"
                 % (kind, validation))
    cols = {}
    for f in files:
        with open(f, newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                cols[(os.path.basename(f), r["id"])] = r
    in_sample = set()
    for fi in json.loads(run([stepcast, "validate", "--format", "json"] + files))["files"]:
        if fi.get("in_sample"):
            in_sample.add(os.path.basename(fi["file"]))
    classes = {}
    for r in csv.DictReader(run([stepcast, "validate", "--format", "csv"] + files).splitlines()):
        if r["skipped"] or not r["predicted"]:
            continue
        base = os.path.basename(r["file"])
        cls = classify(cols[(base, r["id"])])
        if cls is None:
            continue
        meas, pred = float(r["measured"]), float(r["predicted"])
        c = classes.setdefault(cls, {"errs": [], "src": {}, "range": {}, "gpu": set(),
                                     "dtype": set()})
        c["errs"].append(100.0 * (pred - meas) / meas)
        c["src"][base] = c["src"].get(base, 0) + 1
        cover(c, cols[(base, r["id"])], kind)
    return classes, in_sample


def figures(classes, order):
    """[(class, n, mape, signed, worst, [(file, n)], range)] in a fixed order."""
    out = []
    for cls in sorted(classes, key=order):
        c = classes[cls]
        e = c["errs"]
        worst = max(e, key=lambda x: (abs(x), x))
        out.append((cls, len(e), sum(abs(x) for x in e) / len(e), sum(e) / len(e), worst,
                    sorted(c["src"].items()), range_text(c)))
    return out


def range_text(c):
    """The C initializer of a class's acc_range: {{gpus}, {seq}, {hidden},
    "gpu presets", "dtypes"} (0 and "" where the rows do not say)."""
    pairs = ", ".join("{%.15g, %.15g}" % c["range"].get(k, (0, 0))
                      for k in ("gpus", "seq", "hidden"))
    return '{%s, "%s", "%s"}' % (pairs, " ".join(sorted(c["gpu"])), " ".join(sorted(c["dtype"])))


def c_array(name, rows, in_sample):
    lines = ["const acc_row %s[] = {" % name,
             "    /* {class}, n, mape %, signed %, worst %, sets, {set, rows, in-sample},",
             "       {{gpus}, {seq}, {hidden}, GPUs, dtypes}: the rows' range */"]
    for cls, n, mape, signed, worst, src, rng in rows:
        if len(src) > MAX_SRC:
            sys.exit("gen_table.py: class %s has %d sets, more than ACC_MAX_SRC (%d)"
                     % (" ".join(cls), len(src), MAX_SRC))
        s = ", ".join('{"%s", %d, %d}' % (f, k, int(f in in_sample)) for f, k in src)
        lines.append('    {{"%s", "%s", "%s"}, %d, %.2f, %.2f, %.2f, %d, {%s},\n     %s},'
                     % (cls + (n, mape, signed, worst, len(src), s, rng)))
    lines += ["};", "const int %s_n = (int)(sizeof %s / sizeof %s[0]);" % (name, name, name), ""]
    return lines


def c_source(tables):
    lines = [
        "/*",
        " * accuracy_table.c -- GENERATED by tools/accuracy/gen_table.py; do not edit.",
        " * Regenerate: " + REGEN,
        " * Checked by the ctest accuracy_table_fresh (0.5 points; exact row counts,",
        " * sets, IN-SAMPLE marks and ranges).",
        " *",
        " * Per class (src/report/accuracy.h): the predicted rows of `stepcast validate`",
        " * over ../shared/validation/training (acc_llm), collectives (acc_coll),",
        " * dp_training (acc_dp) and recsys (acc_rs):",
        " * their mean |error|, mean signed error and largest error (percent of the",
        " * measured time, predicted - measured), and the sets they come from",
        " * (1 = IN-SAMPLE), and the range the rows cover (gpus, seq, hidden, GPU",
        " * presets, dtypes: acc_range).",
        " */",
        '#include "report/accuracy.h"',
        "",
    ]
    for name, rows, in_sample in tables:
        lines += c_array(name, rows, in_sample)
    return "\n".join(lines)


ROW_RE = re.compile(r'^\s*\{\{"([^"]+)", "([^"]+)", "([^"]+)"\}, (\d+), (-?[\d.]+), (-?[\d.]+), '
                    r'(-?[\d.]+), \d+, \{')
ARRAY_RE = re.compile(r'^const acc_row (\w+)\[\] = \{')
SRC_RE = re.compile(r'\{"([^"]+)", (\d+), ([01])\}')


RANGE_RE = re.compile(r'^\s*(\{\{.*\}, "[^"]*", "[^"]*"\})\},$')


def parse(text):
    """{(table, class...): (n, mape, signed, worst, ((set, rows, in-sample), ...),
    range)} of a generated C file (range: its initializer text, on the line
    after the class's)."""
    out = {}
    table = "?"
    last = None
    for line in text.splitlines():
        a = ARRAY_RE.match(line)
        if a:
            table = a.group(1)
        m = ROW_RE.match(line)
        if m:
            g = m.groups()
            sets = tuple(SRC_RE.findall(line[m.end():]))
            last = (table,) + g[:3]
            out[last] = (int(g[3]), float(g[4]), float(g[5]), float(g[6]), sets, "")
        r = RANGE_RE.match(line)
        if r and last in out:
            out[last] = out[last][:5] + (r.group(1),)
    return out


def sets_text(sets):
    return ", ".join("%s %s %s" % s for s in sets)


def check(committed_path, fresh_text):
    old = parse(open(committed_path, encoding="utf-8").read())
    new = parse(fresh_text)
    bad = []
    for cls in sorted(set(old) | set(new)):
        name = "%s: %s" % (cls[0], " ".join(cls[1:]))
        if cls not in new:
            bad.append("%s: in the committed table, no longer has rows" % name)
        elif cls not in old:
            bad.append("%s: has %d rows now, missing from the committed table" % (name, new[cls][0]))
        else:
            if old[cls][0] != new[cls][0]:
                bad.append("%s: n %d committed, %d now" % (name, old[cls][0], new[cls][0]))
            if old[cls][5] != new[cls][5]:
                bad.append("%s: range %s committed, %s now ({gpus}, {seq}, {hidden}, GPUs, "
                           "dtypes)" % (name, old[cls][5] or "(none)", new[cls][5]))
            if old[cls][4] != new[cls][4]:
                bad.append("%s: sets %s committed, %s now (set, rows, in-sample)"
                           % (name, sets_text(old[cls][4]), sets_text(new[cls][4])))
            for i, what in ((1, "MAPE"), (2, "signed error"), (3, "worst error")):
                if abs(old[cls][i] - new[cls][i]) > TOLERANCE:
                    bad.append("%s: %s %.2f %% committed, %.2f %% now" %
                               (name, what, old[cls][i], new[cls][i]))
    if not old:
        bad.append("no rows parsed from %s" % committed_path)
    for b in bad:
        print("STALE: " + b)
    if bad:
        print("the accuracy table %s is stale (more than %.1f points, a row count, a set,\n"
              "an IN-SAMPLE mark or a range off);\n"
              "regenerate it with: %s" % (committed_path, TOLERANCE, REGEN))
        return 1
    print("accuracy table fresh: %d classes within %.1f points" % (len(new), TOLERANCE))
    return 0


MD_HEAD = "| class | rows | MAPE | signed | worst | sets (rows) |"
MD_TABLES = ("acc_llm", "acc_coll", "acc_dp", "acc_rs")


def md_rows(parsed, table):
    """The markdown rows of one generated table, in the C file's order:
    the class words (a data-parallel class without its "data-parallel"),
    n, MAPE, signed and worst error to 0.1 point, the sets without .csv."""
    rows = []
    for key, (n, mape, signed, worst, sets, _) in parsed.items():
        if key[0] != table:
            continue
        words = " ".join(key[1:]).replace(" data-parallel", "")
        src = ", ".join("%s (%s%s)" % (f[:-4] if f.endswith(".csv") else f, k,
                                       ", IN-SAMPLE" if ins == "1" else "")
                        for f, k, ins in sets)
        rows.append("| %s | %d | %.1f %% | %+.1f %% | %+.1f %% | %s |"
                    % (words, n, mape, signed, worst, src))
    return rows


def docs_sync(doc_path, table_path, write):
    """Check (or rewrite) the per-class tables of doc_path against the
    committed C table; 0 when in step."""
    parsed = parse(open(table_path, encoding="utf-8").read())
    lines = open(doc_path, encoding="utf-8").read().split("\n")
    heads = [i for i, line in enumerate(lines) if line.strip() == MD_HEAD]
    if len(heads) != len(MD_TABLES):
        print("%s: %d tables headed '%s', want %d" % (doc_path, len(heads), MD_HEAD,
                                                     len(MD_TABLES)))
        return 1
    out, last = [], 0
    for head, table in zip(heads, MD_TABLES):
        start = head + 2  # past the header and its |---| line
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        want = md_rows(parsed, table)
        if not write and lines[start:end] != want:
            have = lines[start:end]
            for i in range(max(len(have), len(want))):
                h = have[i] if i < len(have) else "(none)"
                w = want[i] if i < len(want) else "(none)"
                if h != w:
                    print("%s:%d: the %s table is not the committed one (%s)\n  has:  %s\n"
                          "  want: %s\nrewrite it with: python3 tools/accuracy/gen_table.py "
                          "--docs %s --write" % (doc_path, start + i + 1, table, table_path,
                                                 h, w, doc_path))
                    return 1
        out += lines[last:start] + want
        last = end
    out += lines[last:]
    if write:
        with open(doc_path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(out))
        print("%s: %d tables rewritten" % (doc_path, len(MD_TABLES)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", metavar="DOC_MD")
    ap.add_argument("--table", default=os.path.join(ROOT, "src", "report", "accuracy_table.c"))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--stepcast", default=os.path.join(ROOT, "build", "stepcast"))
    ap.add_argument("--validation", default=os.path.join(ROOT, "..", "shared", "validation"))
    ap.add_argument("--check", metavar="COMMITTED_C")
    ap.add_argument("--out", metavar="FRESH_C", help="write the regenerated table here")
    a = ap.parse_args()
    if a.docs:
        return docs_sync(a.docs, a.table, a.write)
    stepcast, validation = os.path.abspath(a.stepcast), os.path.abspath(a.validation)
    arches = gpu_arch()
    llm, llm_in = collect(stepcast, validation, "training", lambda c: row_class(c, arches))
    coll, coll_in = collect(stepcast, validation, "collectives", coll_class)
    dp, dp_in = collect(stepcast, validation, "dp_training", dp_class)
    rs, rs_in = collect(stepcast, validation, "recsys", rs_class)
    text = c_source([
        ("acc_llm", figures(llm, lambda c: (ARCH_ORDER.index(c[0]), c[1], c[2])), llm_in),
        ("acc_coll", figures(coll, lambda c: c), coll_in),
        ("acc_dp", figures(dp, lambda c: c), dp_in),
        ("acc_rs", figures(rs, lambda c: c), rs_in),
    ])
    if a.out:
        with open(a.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    if a.check:
        return check(a.check, text)
    if not a.out:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
