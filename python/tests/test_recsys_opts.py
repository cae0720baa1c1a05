"""recsys_plan()'s and recsys_predict()'s options (docs/python.md,
docs/recsys.md): headroom (`recsys plan --headroom`) and overrides
(`recsys --set`) give the command's JSON to the byte, the headroom drops
the plans that need the memory it keeps free, and a bad value raises Error
with the library's message, the one the command prints."""
import json
import os

import pytest

from clirun import ROOT, cli, read  # also puts python/ on the path
import stepcast  # noqa: E402

DLRM = os.path.join(ROOT, "examples", "recsys", "dlrm_criteo_8gpu.json")
MINE = os.path.join(ROOT, "examples", "recsys", "my_tables.json")
GIB = 1 << 30
# DLRM's 97 GiB of tables on two A100 80 GB: the fastest plan holds about
# 58 GiB a GPU, slower ones under 50 (replicating fewer tables)
TWO = {"cluster.gpus": 2, "cluster.gpus_per_node": 2}
TWO_SET = ["--set", "cluster.gpus=2", "--set", "cluster.gpus_per_node=2"]


def mem(plan):
    return plan["prediction"]["memory"]


def test_headroom_drops_the_plans_within_it():
    free = stepcast.recsys_plan(DLRM, top=16, overrides=TWO)
    best = free["plans"][0]
    cap = mem(best)["capacity_bytes"]
    assert mem(best)["fits"] and mem(best)["headroom_bytes"] == 0
    # keep 25 GiB free: the fastest plan (over 55 GiB) no longer fits
    kept = stepcast.recsys_plan(DLRM, top=16, headroom=25, overrides=TWO)
    allowed = cap - 25 * GIB
    assert mem(best)["max_bytes"] > allowed, "the case no longer tests the headroom"
    assert kept["plans"], "nothing fits under the headroom"
    for p in kept["plans"]:
        m = mem(p)
        assert m["headroom_bytes"] == pytest.approx(25 * GIB, rel=1e-5)
        assert m["fits"] and m["max_bytes"] <= allowed * (1 + 1e-5)
    shardings = [p["prediction"]["sharding"] for p in kept["plans"]]
    assert best["prediction"]["sharding"] not in shardings
    assert kept["plans"][0]["prediction"]["iter_s"] >= best["prediction"]["iter_s"]
    # the command's document for the same options, byte for byte
    text = cli("recsys", "plan", DLRM, "--top", "16", "--headroom", "25", *TWO_SET,
               "--format", "json").stdout
    assert stepcast.recsys_plan_json(DLRM, top=16, headroom=25, overrides=TWO) == text


@pytest.mark.parametrize("headroom,arg", [("30%", "30%"), (0.3, "0.3"), ("0", "0")])
def test_headroom_fraction_equals_cli(headroom, arg):
    text = cli("recsys", "plan", DLRM, "--top", "3", "--headroom", arg, *TWO_SET,
               "--format", "json").stdout
    doc = stepcast.recsys_plan(DLRM, top=3, headroom=headroom, overrides=TWO)
    assert doc == json.loads(text)
    cap = mem(doc["plans"][0])["capacity_bytes"]
    frac = 0 if arg == "0" else 0.3
    assert mem(doc["plans"][0])["headroom_bytes"] == pytest.approx(frac * cap, rel=1e-5)


@pytest.mark.parametrize("bad", ["x", "-1", "100%", "1e30", True])
def test_bad_headroom_raises_the_commands_message(bad):
    arg = "true" if bad is True else str(bad)
    err = cli("recsys", "plan", DLRM, "--headroom", arg, code=2).stderr.strip()
    with pytest.raises(stepcast.Error) as e:
        stepcast.recsys_plan(DLRM, headroom=bad)
    assert e.value.code == 2 and err == f"stepcast recsys: --{e.value}"


def test_overrides_equal_set():
    sets = ["--set", "cluster.gpus=16", "--set", "training.optimizer=adagrad"]
    text = cli("recsys", "predict", DLRM, *sets, "--format", "json").stdout
    r = stepcast.recsys_predict_json(DLRM, overrides={"cluster.gpus": 16,
                                                      "training.optimizer": "adagrad"})
    assert r == text
    assert stepcast.recsys_predict_json(DLRM, overrides=["cluster.gpus=16",
                                                         "training.optimizer=adagrad"]) == text
    assert len(json.loads(text)["gpus"]) == 16
    assert json.loads(text)["iter_s"] != stepcast.recsys_predict(DLRM)["iter_s"]
    # with --sharding too, and the plan's --set
    text = cli("recsys", "predict", MINE, "--sharding", "row_wise", "--set", "cluster.gpus=8",
               "--format", "json").stdout
    assert stepcast.recsys_predict_json(MINE, "row_wise", {"cluster.gpus": 8}) == text
    text = cli("recsys", "plan", MINE, "--top", "2", "--set", "cluster.nic_Gbps=100",
               "--format", "json").stdout
    assert stepcast.recsys_plan_json(MINE, top=2, overrides={"cluster.nic_Gbps": 100}) == text


def test_sharding_override_is_the_sharding_option():
    a = stepcast.recsys_predict(DLRM, overrides={"sharding": "row_wise"})
    assert a == stepcast.recsys_predict(DLRM, sharding="row_wise")
    assert {s["kind"] for s in a["sharding"]} == {"row_wise"}


@pytest.mark.parametrize("override", ["cluster.gpuz=2", "cluster.gpus=abc", "sharding.kind=1"])
def test_bad_override_raises_the_commands_message(override):
    err = cli("recsys", "predict", DLRM, "--set", override, code=2).stderr.strip()
    for call in (stepcast.recsys_predict, stepcast.recsys_plan):
        with pytest.raises(stepcast.Error) as e:
            call(DLRM, overrides=[override])
        assert e.value.code == 2 and err == f"stepcast recsys: {e.value}"


@pytest.mark.parametrize("sub,kw,args", [
    ("predict", {}, []),
    ("predict", {"sharding": "row_wise"}, ["--sharding", "row_wise"]),
    ("predict", {"overrides": {"sharding": "auto"}}, ["--set", "sharding=auto"]),  # the best plan's
    ("plan", {"top": 2}, ["--top", "2"]),                                          # rank 1's
], ids=["own", "row_wise", "planned", "plan"])
def test_trace_file_equals_cli(tmp_path, sub, kw, args):
    theirs, ours = tmp_path / "cli.json", tmp_path / "py.json"
    call = stepcast.recsys_plan_json if sub == "plan" else stepcast.recsys_predict_json
    text = cli("recsys", sub, DLRM, *args, "--trace", str(theirs), "--format", "json").stdout
    doc = call(DLRM, trace=str(ours), **kw)
    if kw.get("overrides"):   # the command lists the plans; the module predicts the best
        assert json.loads(doc) == json.loads(text)["plans"][0]["prediction"]
    else:
        assert doc == text
    assert read(ours) == read(theirs)
    meta = json.loads(read(ours))["otherData"]
    assert meta["iter_s"] == pytest.approx(json.loads(doc).get("iter_s") or
                                           json.loads(doc)["plans"][0]["prediction"]["iter_s"],
                                           rel=1e-5)


@pytest.mark.parametrize("call", [stepcast.recsys_predict, stepcast.recsys_plan])
def test_trace_errors(tmp_path, call):
    with pytest.raises(stepcast.Error) as e:
        call(DLRM, trace="-")
    assert e.value.code == 2 and "expected a file name" in str(e.value)
    path = str(tmp_path / "no" / "dir.json")
    err = cli("recsys", "predict", DLRM, "--trace", path, code=3).stderr.strip()
    with pytest.raises(stepcast.Error) as e:
        call(DLRM, trace=path)
    assert e.value.code == 3
    assert err.startswith(f"stepcast recsys: cannot write {path} (")
    assert str(e.value) == "trace: " + err[len("stepcast recsys: "):]


ROWS = os.path.join(ROOT, "data", "validation", "recsys", "mlperf_dlrm_v0.7-v2.1.csv")


def test_row_equals_cli():
    with open(ROWS) as f:
        ids = [line.split(",")[0] for line in f.readlines()[1:4]]
    for rid in ids:
        text = cli("recsys", "row", ROWS, rid, "--format", "json").stdout
        assert stepcast.recsys_row_json(ROWS, rid) == text
        assert stepcast.recsys_row(ROWS, rid)["iter_s"] > 0
    # the row's prediction is the one validate() scores
    row, = [r for r in stepcast.validate(ROWS) if r["id"] == ids[0]]
    assert row["predicted"] == pytest.approx(stepcast.recsys_row(ROWS, ids[0])["iter_s"],
                                             rel=1e-5)


def test_row_errors():
    err = cli("recsys", "row", ROWS, "no-such-row", code=2).stderr.strip()
    with pytest.raises(stepcast.Error) as e:
        stepcast.recsys_row(ROWS, "no-such-row")
    assert e.value.code == 2 and err == f"stepcast recsys: {e.value}"
