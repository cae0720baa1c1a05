"""validate()'s options and validate_row() (docs/python.md): engine="event"
(`validate --engine event`), timings (`--timings`), html (`--html FILE`)
and one row (`validate --row ID FILE.csv [--ops] [--engine event]`) give
the command's document and files to the byte (but the wall times); what
the command refuses raises Error with the library's message."""
import json
import os

import pytest

from clirun import ROOT, cli, read  # also puts python/ on the path
import stepcast  # noqa: E402

VAL = os.path.join(ROOT, "data", "validation")
SC21 = os.path.join(VAL, "training", "megatron_sc21_table1.csv")
COLL = os.path.join(VAL, "collectives", "vtrain_allreduce_a100.csv")
DP = os.path.join(VAL, "dp_training", "tf_cnn_benchmarks_2017.csv")


def first_id(path):
    with open(path) as f:
        f.readline()
        return f.readline().split(",")[0]


def test_event_engine_equals_cli():
    text = cli("validate", SC21, COLL, "--engine", "event", "--format", "json").stdout
    assert stepcast.validate_json([SC21, COLL], engine="event") == text
    event = stepcast.validate([SC21], engine="event")
    closed = stepcast.validate([SC21])
    assert [r["id"] for r in event] == [r["id"] for r in closed]
    assert any(e["predicted"] != c["predicted"] for e, c in zip(event, closed)), \
        "the event engine predicted every row as the closed form did"


def test_timings_equal_cli_but_the_seconds():
    def untimed(doc):
        assert all(f["seconds"] >= 0 for f in doc["files"])
        return dict(doc, files=[{k: v for k, v in f.items() if k != "seconds"}
                                for f in doc["files"]])
    theirs = json.loads(cli("validate", SC21, "--timings", "--format", "json").stdout)
    ours = json.loads(stepcast.validate_json(SC21, timings=True))
    assert untimed(ours) == untimed(theirs)
    assert "seconds" not in json.loads(stepcast.validate_json(SC21))["files"][0]


def test_html_file_equals_cli(tmp_path):
    theirs, ours = tmp_path / "cli.html", tmp_path / "py.html"
    text = cli("validate", SC21, COLL, "--html", str(theirs), "--format", "json").stdout
    assert stepcast.validate_json([SC21, COLL], html=str(ours)) == text
    assert read(ours) == read(theirs)
    rows = stepcast.validate([SC21], html=str(ours))
    assert rows and ours.stat().st_size > 0


@pytest.mark.parametrize("kw", [{"html": "-"}, {"html": str(ROOT) + "/no/dir/x.html"}])
def test_bad_html_raises(kw):
    with pytest.raises(stepcast.Error) as e:
        stepcast.validate([SC21], **kw)
    code = 2 if kw["html"] == "-" else 3
    assert e.value.code == code and str(e.value).startswith("html: ")


@pytest.mark.parametrize("path,args,kw", [
    (SC21, [], {}),
    (SC21, ["--ops"], {"ops": True}),
    (SC21, ["--engine", "event"], {"engine": "event"}),
    (DP, [], {}),                          # a data-parallel row: its scheme's document
], ids=["closed", "ops", "event", "dp"])
def test_row_equals_cli(path, args, kw):
    rid = first_id(path)
    text = cli("validate", "--row", rid, path, *args, "--format", "json").stdout
    assert stepcast.validate_row_json(path, rid, **kw) == text
    doc = stepcast.validate_row(path, rid, **kw)
    if kw.get("ops"):
        assert doc["layer_ops"] and doc["op_kinds"]   # as predict(ops=True)
    if kw.get("engine"):
        assert doc["engine"] == "event" and doc["critical_path"]


def test_row_is_the_rows_prediction():
    rid = first_id(SC21)
    row, = [r for r in stepcast.validate(SC21) if r["id"] == rid]
    assert stepcast.validate_row(SC21, rid)["step_s"] == pytest.approx(row["predicted"], rel=1e-5)


@pytest.mark.parametrize("rid,args,kw,code", [
    ("no-such-row", [], {}, 2),
    (None, ["--ops", "--engine", "event"], {"ops": True, "engine": "event"}, 2),
])
def test_row_errors(rid, args, kw, code):
    rid = rid or first_id(SC21)
    err = cli("validate", "--row", rid, SC21, *args, code=code).stderr.strip()
    with pytest.raises(stepcast.Error) as e:
        stepcast.validate_row(SC21, rid, **kw)
    assert e.value.code == code
    if not kw:   # the row's message is the command's
        assert err == f"stepcast validate: {e.value}"
    else:
        assert "ops goes with the closed form" in err
        assert "ops goes with the closed form" in str(e.value)


def test_bad_engine():
    for call in (stepcast.validate, lambda p, **kw: stepcast.validate_row(p, "x", **kw)):
        with pytest.raises(stepcast.Error) as e:
            call(SC21, engine="fast")
        assert e.value.code == 2 and "'closed' or 'event'" in str(e.value)
