"""Tests of the Python module: it returns the CLI's JSON to the last digit
and raises the CLI's messages. Run: python3 -m pytest python/tests (after
the build; STEPCAST_CLI names the stepcast binary, default build/stepcast).
"""
import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import stepcast  # noqa: E402

CLI = os.environ.get("STEPCAST_CLI", os.path.join(ROOT, "build", "stepcast"))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))
SMALL_SET = os.path.join(ROOT, "data", "validation", "training", "megatron_sc21_table1.csv")
COLL_SET = os.path.join(ROOT, "data", "validation", "collectives", "vtrain_allreduce_a100.csv")


def cli(*args, code=0):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == code, f"stepcast {' '.join(args)}: exit {p.returncode}: {p.stderr}"
    return p


def test_examples_exist():
    assert len(EXAMPLES) >= 5, "examples/*.json not found"


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_predict_equals_cli_json(path):
    text = cli("predict", path, "--format", "json").stdout
    assert stepcast.predict_json(path) == text  # the same bytes
    assert stepcast.predict(path) == json.loads(text)  # so the same numbers


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_predict_dict_equals_file(path):
    """A scenario given as a dict predicts what the file does (examples
    name no relative file, which a file would resolve beside itself)."""
    with open(path) as f:
        scenario = json.load(f)
    assert stepcast.predict(scenario) == stepcast.predict(path)


def test_predict_options_equal_cli():
    text = cli("predict", "--ops", "--train-tokens", "3e11", "--set", "plan.recompute=full",
               "--format", "json").stdout
    r = stepcast.predict(overrides={"plan.recompute": "full"}, ops=True, train_tokens=3e11)
    assert r == json.loads(text)
    assert len(r["layer_ops"]) > 5 and r["train_days"] > 0
    assert {k["name"] for k in r["op_kinds"]} >= {"gemm", "attention", "norm"}


def test_predict_fields():
    r = stepcast.predict()
    parts = sum(r["time_s"].values())
    assert abs(parts - r["step_s"]) <= 1e-4 * r["step_s"]
    assert 0 < r["mfu"] < 1 and r["memory_bytes"]["total"] > 0


def test_predict_fit_confidence():
    # the default plan needs about 21.1 GiB a GPU: clear of the memory
    # model's 3 % band on 80 GiB, marginal on 21.5 (fits) and 20.7 (over)
    assert stepcast.predict()["fits_confidence"] == "clear"
    near = stepcast.predict(overrides={"cluster.gpu.hbm_GiB": 21.5})
    assert near["fits"] and near["fits_confidence"] == "marginal"
    over = stepcast.predict(overrides={"cluster.gpu.hbm_GiB": 20.7})
    assert not over["fits"] and over["fits_confidence"] == "marginal"
    far = stepcast.predict(overrides={"cluster.gpu.hbm_GiB": 20})
    assert not far["fits"] and far["fits_confidence"] == "clear"


def test_search_equals_cli():
    args = ["-m", "gpt3-13b", "-n", "64", "--gb", "256"]
    doc = json.loads(cli("search", *args, "--top", "3", "--format", "json").stdout)
    r = stepcast.search(overrides={"model": "gpt3-13b", "cluster.gpus": 64,
                                   "plan.global_batch": 256}, top=3)
    assert r["plans"] == doc["plans"]
    assert len(r["plans"]) == 3


def test_validate_rows_for_pandas():
    rows = stepcast.validate([SMALL_SET, COLL_SET])
    doc = json.loads(cli("validate", SMALL_SET, COLL_SET, "--format", "json").stdout)
    assert [r["id"] for r in rows] == [r["id"] for r in doc["rows"]]
    assert all(set(r) >= {"file", "kind", "id", "measured", "predicted", "ape", "skipped"}
               for r in rows)
    assert {r["kind"] for r in rows} == {"training", "collective"}
    for r, j in zip(rows, doc["rows"]):
        assert r["predicted"] == j["predicted"]


def test_validate_shipped_sets():
    assert stepcast.validate_json() == cli("validate", "--format", "json").stdout
    rows = stepcast.validate()
    files = {r["file"] for r in rows}
    shipped = glob.glob(os.path.join(ROOT, "data", "validation", "*", "*.csv"))
    assert len(files) == len(shipped)
    # every shipped set is read by a model now (dp_training: issue 9, recsys)
    assert {r["kind"] for r in rows} >= {"training", "collective", "dp_training", "recsys"}


def test_collective_equals_cli():
    text = cli("collective", "--op", "all_gather", "--ranks", "16", "--ppn", "8", "--max", "64M",
               "--format", "json").stdout
    r = stepcast.collective("all_gather", ranks=16, ranks_per_node=8, max_bytes=64 << 20)
    assert r == json.loads(text)


def test_collective_gpus_per_thread_equals_cli():
    # one thread for 8 GPUs: 8 x (5.186 + 0.312 x channels) us of host time per op
    # (docs/network.md); 1 KiB runs on one channel
    text = cli("collective", "--ranks", "8", "--gpus-per-thread", "8", "--max", "64K",
               "--format", "json").stdout
    r = stepcast.collective(ranks=8, max_bytes=64 << 10, gpus_per_thread=8)
    assert r == json.loads(text) and r["rows"][0]["time_us"] == 43.984


def test_collective_fabric_equals_cli():
    # GPUDirect-TCPXO's per-traversal latency (docs/network.md "Fabrics")
    text = cli("collective", "--ranks", "16", "--ppn", "8", "--fabric", "tcpxo", "--max", "64K",
               "--format", "json").stdout
    r = stepcast.collective(ranks=16, ranks_per_node=8, max_bytes=64 << 10, fabric="tcpxo")
    ib = stepcast.collective(ranks=16, ranks_per_node=8, max_bytes=64 << 10)
    assert r == json.loads(text) and r["rows"][0]["time_us"] > ib["rows"][0]["time_us"] + 50
    with pytest.raises(stepcast.Error) as e:
        stepcast.collective(fabric="ethernet")
    assert e.value.code == 2 and "infiniband roce efa tcpxo" in str(e.value)


def test_collective_pcie_equals_cli():
    # a Gen4 x16 slot, NCCL's 24 GB/s (docs/network.md "PCIe nodes")
    text = cli("collective", "--ranks", "8", "--pcie", "31.5", "--min", "1G", "--max", "1G",
               "--format", "json").stdout
    r = stepcast.collective(ranks=8, min_bytes=1 << 30, max_bytes=1 << 30, pcie_GBps=31.5)
    assert r == json.loads(text) and 23.5 < r["rows"][0]["busbw_GBps"] < 24.0


def test_collective_on_topology_equals_cli():
    topo = os.path.join(ROOT, "examples", "topologies", "two_dgx_a100.json")
    text = cli("collective", "--ranks", "16", "--ppn", "8", "--topo", topo, "--algo", "ring",
               "--max", "4M", "--format", "json").stdout
    r = stepcast.collective(ranks=16, ranks_per_node=8, topo=topo, algo="ring", max_bytes=4 << 20)
    assert r == json.loads(text) and "flow_us" in r["rows"][0]


def test_error_carries_cli_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"plan": {"tp": 5}}')
    msg = cli("predict", str(bad), code=2).stderr.strip()
    with pytest.raises(stepcast.Error) as e:
        stepcast.predict(str(bad))
    assert e.value.code == 2
    assert msg == f"stepcast predict: {e.value}"


def test_errors_are_exceptions():
    with pytest.raises(stepcast.Error, match="cannot read"):
        stepcast.predict("/nonexistent/scenario.json")
    with pytest.raises(stepcast.Error, match="unknown key"):
        stepcast.predict({"plan": {"tpp": 8}})
    with pytest.raises(stepcast.Error, match="unknown op"):
        stepcast.collective("all_scatter")
    with pytest.raises(stepcast.Error, match="factor"):
        stepcast.collective(factor=1)
    with pytest.raises(stepcast.Error):
        stepcast.validate(["/nonexistent.csv"])


def test_recsys_equals_cli():
    job = os.path.join(ROOT, "examples", "recsys", "dlrm_criteo_8gpu.json")
    assert stepcast.recsys_predict_json(job) == cli("recsys", "predict", job, "--format", "json").stdout
    rw = stepcast.recsys_predict(job, sharding="row_wise")
    assert {s["kind"] for s in rw["sharding"]} == {"row_wise"}
    assert rw["memory"]["fits"] and rw["iter_s"] > 0
    plans = stepcast.recsys_plan(job, top=3)
    assert 1 <= len(plans["plans"]) <= 3
    times = [p["prediction"]["iter_s"] for p in plans["plans"]]
    assert times == sorted(times)
    assert plans == json.loads(cli("recsys", "plan", job, "--top", "3", "--format", "json").stdout)


def test_recsys_plan_budget_equals_cli():
    job = os.path.join(ROOT, "examples", "recsys", "dlrm_criteo_8gpu.json")
    cut = stepcast.recsys_plan(job, top=2, max_evals=50)
    assert cut["stopped"] == "max_evals" and cut["evaluated"] <= 51
    assert cut == json.loads(cli("recsys", "plan", job, "--top", "2", "--max-evals", "50",
                                 "--format", "json").stdout)
    assert stepcast.recsys_plan(job, top=2)["stopped"] == "complete"
    with pytest.raises(stepcast.Error) as e:
        stepcast.recsys_plan(job, max_seconds=-1)
    assert e.value.code == 2 and "max_seconds" in str(e.value)


def test_recsys_errors_name_the_table(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"tables": "1x10x128@1;1x0x128@1"}}')
    with pytest.raises(stepcast.Error) as e:
        stepcast.recsys_predict(str(bad))
    assert e.value.code == 2 and "group 2 (table t1)" in str(e.value)


def test_the_library_of_build_comes_before_other_build_folders(tmp_path, monkeypatch):
    # scripts/test.sh leaves build-asan/ (sorted before build/) beside
    # build/; its sanitized library cannot be loaded into a plain Python
    for d in ("build-asan", "build", "build-mpi"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "libstepcast.so").write_bytes(b"")
    monkeypatch.delenv("STEPCAST_LIB", raising=False)
    monkeypatch.setattr(stepcast, "_SOURCE", str(tmp_path))
    assert stepcast._find_library() == str(tmp_path / "build" / "libstepcast.so")
    (tmp_path / "build" / "libstepcast.so").unlink()
    assert stepcast._find_library() == str(tmp_path / "build-asan" / "libstepcast.so")



def test_predict_accuracy():
    # the model's record on published runs like the plan (docs/output.md)
    acc = stepcast.predict()["accuracy"]
    assert acc["class"] == "Ampere 16-bit Megatron-style multi-server"
    assert acc["n"] > 0 and 0 < acc["mape"] < 1 and abs(acc["worst"]) >= acc["mape"]
    assert "vtrain_single_node.csv" not in acc["files"]  # 1,024 GPUs: not one-node runs
    assert acc["files"] and set(acc["in_sample"]) <= set(acc["files"])
    amd = stepcast.predict(overrides={"cluster.gpu": "mi300x"})["accuracy"]
    assert amd["n"] == 0 and amd["mape"] is None and amd["files"] == []


def test_collective_html_equals_cli(tmp_path):
    """html= writes the page `collective --html FILE` writes, byte for byte."""
    theirs, ours = tmp_path / "cli.html", tmp_path / "py.html"
    text = cli("collective", "--ranks", "16", "--ppn", "8", "--max", "4M", "--html", str(theirs),
               "--format", "json").stdout
    assert stepcast.collective_json(ranks=16, ranks_per_node=8, max_bytes=4 << 20,
                                    html=str(ours)) == text
    assert ours.read_bytes() == theirs.read_bytes()
    assert ours.read_bytes().startswith(b"<!DOCTYPE html>")
    for bad, code in (("-", 2), (str(tmp_path / "no" / "dir.html"), 3)):
        with pytest.raises(stepcast.Error) as e:
            stepcast.collective(ranks=8, html=bad)
        assert e.value.code == code and str(e.value).startswith("html: ")


def test_collective_host_cpu_equals_cli():
    # the servers' CPU across nodes: an A100 cluster is DGX A100's AMD
    # unless named (docs/network.md "Echo by size and node count")
    text = cli("collective", "--ranks", "16", "--ppn", "8", "--host-cpu", "intel", "--min", "64K",
               "--max", "64K", "--format", "json").stdout
    r = stepcast.collective(ranks=16, ranks_per_node=8, min_bytes=64 << 10, max_bytes=64 << 10,
                            host_cpu="intel")
    auto = stepcast.collective(ranks=16, ranks_per_node=8, min_bytes=64 << 10, max_bytes=64 << 10)
    amd = stepcast.collective(ranks=16, ranks_per_node=8, min_bytes=64 << 10, max_bytes=64 << 10,
                              host_cpu="amd")
    assert r == json.loads(text) and auto["rows"] == amd["rows"]
    assert (r["host_cpu"], auto["host_cpu"], amd["host_cpu"]) == ("intel", "auto", "amd")
    assert r["rows"][0]["time_us"] == 50.801 and auto["rows"][0]["time_us"] == 54.909
    with pytest.raises(stepcast.Error) as e:
        stepcast.collective(host_cpu="xeon")
    assert e.value.code == 2 and "auto intel amd arm" in str(e.value)


def test_presets_equals_cli():
    """presets() is `stepcast presets --format json`; an AWS cluster says EFA."""
    text = cli("presets", "--format", "json").stdout
    r = stepcast.presets()
    assert r == json.loads(text)
    p5 = next(c for c in r["clusters"] if c["name"] == "aws-p5")
    assert p5["fabric"] == "efa" and p5["nic_Bps"] == 50e9
    h100 = next(g for g in r["gpus"] if g["name"] == "h100-sxm5-80gb")
    assert h100["hbm_bytes"] == 80 * 2**30 and h100["fp8_tflops"] > h100["dense_tflops"]
