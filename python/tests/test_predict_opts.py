"""predict()'s options beyond the scenario (docs/python.md): engine="event"
(`--engine event`), trace and html (`--trace FILE`, `--html FILE`) and
train_tokens give the command's document and files to the byte; what the
command refuses, the module refuses with code 2 and the library's message,
and a file that cannot be written with code 3."""
import json
import os

import pytest

from clirun import ROOT, cli, read  # also puts python/ on the path
import stepcast  # noqa: E402

MPT = os.path.join(ROOT, "examples", "mpt-7b-fsdp-8-a100.json")        # 8 GPUs: small traces
MIXTRAL = os.path.join(ROOT, "examples", "mixtral-8x7b-h100.json")
LLAMA = os.path.join(ROOT, "examples", "llama3-70b-512-h100.json")
PS = os.path.join(ROOT, "examples", "dp", "resnet50-8-p100-ps.json")  # dp.scheme: one scheme


@pytest.mark.parametrize("scenario", [MPT, MIXTRAL, LLAMA], ids=os.path.basename)
def test_event_engine_equals_cli(scenario):
    text = cli("predict", scenario, "--engine", "event", "--format", "json").stdout
    assert stepcast.predict_json(scenario, engine="event") == text
    ev, closed = json.loads(text), stepcast.predict(scenario)
    assert ev["engine"] == "event" and ev["critical_path"]
    assert ev["closed_form_step_s"] == pytest.approx(closed["step_s"], rel=1e-5)
    # the engine is not the closed form: a different document
    assert "critical_path" not in closed


def test_event_engine_takes_overrides():
    text = cli("predict", MPT, "--engine", "event", "--set", "plan.recompute=full",
               "--format", "json").stdout
    r = stepcast.predict(MPT, {"plan.recompute": "full"}, engine="event")
    assert r == json.loads(text) and r["plan"]["recompute"] == "full"


@pytest.mark.parametrize("scenario,args,kw", [
    (MPT, [], {}),
    (MPT, ["--engine", "event"], {"engine": "event"}),
    (PS, [], {}),                                  # a data-parallel scheme's timeline
], ids=["closed", "event", "dp-scheme"])
def test_trace_file_equals_cli(tmp_path, scenario, args, kw):
    theirs, ours = tmp_path / "cli.json", tmp_path / "py.json"
    text = cli("predict", scenario, *args, "--trace", str(theirs), "--format", "json").stdout
    assert stepcast.predict_json(scenario, trace=str(ours), **kw) == text
    assert read(ours) == read(theirs)
    assert json.loads(read(ours))["traceEvents"]


def test_html_file_equals_cli(tmp_path):
    theirs, ours = tmp_path / "cli.html", tmp_path / "py.html"
    ttheirs, tours = tmp_path / "cli.json", tmp_path / "py.json"
    text = cli("predict", MPT, "--html", str(theirs), "--trace", str(ttheirs),
               "--format", "json").stdout
    assert stepcast.predict_json(MPT, html=str(ours), trace=str(tours)) == text
    assert read(ours) == read(theirs) and read(ours).startswith(b"<!DOCTYPE html>")
    assert read(tours) == read(ttheirs)


def test_html_time_to_train_equals_cli(tmp_path):
    """--train-tokens puts the table's time to train on the page too."""
    theirs, ours = tmp_path / "cli.html", tmp_path / "py.html"
    text = cli("predict", MPT, "--html", str(theirs), "--train-tokens", "1e12",
               "--format", "json").stdout
    assert stepcast.predict_json(MPT, html=str(ours), train_tokens=1e12) == text
    days = json.loads(text)["train_days"]
    assert read(ours) == read(theirs)
    assert f"<tr><td>time to train</td><td>{days:.1f} days for 1e+12 tokens".encode() in read(ours)


def test_train_tokens_equals_cli():
    text = cli("predict", MPT, "--train-tokens", "1e12", "--format", "json").stdout
    r = stepcast.predict(MPT, train_tokens=1e12)
    assert r == json.loads(text) and r["train_days"] > 0
    assert "train_days" not in stepcast.predict(MPT, train_tokens=0)


@pytest.mark.parametrize("tokens", [-1, 0.5, 2e18, float("nan"), float("inf")])
def test_bad_train_tokens_raise(tokens):
    cli("predict", MPT, "--train-tokens", str(tokens), code=2)
    with pytest.raises(stepcast.Error) as e:
        stepcast.predict(MPT, train_tokens=tokens)
    assert e.value.code == 2 and str(e.value).startswith(
        "train_tokens: expected a number of tokens in 1..1e18")


@pytest.mark.parametrize("scenario,args,kw,msg", [
    (MPT, ["--engine", "event", "--ops"], {"engine": "event", "ops": True}, "event: "),
    (MPT, ["--engine", "event", "--train-tokens", "1e12"],
     {"engine": "event", "train_tokens": 1e12}, "event: "),
    (MPT, ["--engine", "event", "--html", "x.html"], {"engine": "event", "html": "x.html"},
     "event: "),
    (PS, ["--engine", "event"], {"engine": "event"}, "event: "),
    (PS, ["--ops"], {"ops": True}, "dp.scheme: "),
    (PS, ["--html", "x.html"], {"html": "x.html"}, "dp.scheme: "),
], ids=["event+ops", "event+tokens", "event+html", "event+dp", "dp+ops", "dp+html"])
def test_refused_combinations(tmp_path, scenario, args, kw, msg):
    cli("predict", scenario, *args, code=2)
    with pytest.raises(stepcast.Error) as e:
        stepcast.predict(scenario, **kw)
    assert e.value.code == 2 and str(e.value).startswith(msg)
    assert not os.path.exists(os.path.join(ROOT, "x.html"))


@pytest.mark.parametrize("kw", [{"trace": "-"}, {"html": "-"}, {"trace": ""}])
def test_standard_output_is_the_commands(kw):
    with pytest.raises(stepcast.Error) as e:
        stepcast.predict(MPT, **kw)
    assert e.value.code == 2 and "expected a file name" in str(e.value)


def test_bad_engine():
    with pytest.raises(stepcast.Error) as e:
        stepcast.predict(engine="events")
    assert e.value.code == 2 and "'closed' or 'event'" in str(e.value)


@pytest.mark.parametrize("kw", [{}, {"engine": "event"}])
def test_unwritable_trace_raises_io_error(tmp_path, kw):
    path = str(tmp_path / "no" / "dir.json")
    err = cli("predict", MPT, "--trace", path, *(["--engine", "event"] if kw else []),
              code=3).stderr
    with pytest.raises(stepcast.Error) as e:
        stepcast.predict(MPT, trace=path, **kw)
    assert e.value.code == 3
    assert err.startswith(f"stepcast predict: cannot write {path} (")
    assert str(e.value) == "trace: " + err[len("stepcast predict: "):].strip()
