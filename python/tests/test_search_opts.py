"""search()'s options (docs/python.md, docs/search.md): each keyword gives
what the command's option gives, to the byte but the wall time; the plans
obey the constraints; a bad value raises Error with the library's message,
the one the CLI prints after "stepcast search: --"."""
import ctypes
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import stepcast  # noqa: E402
from clirun import read  # noqa: E402

CLI = os.environ.get("STEPCAST_CLI", os.path.join(ROOT, "build", "stepcast"))
LLAMA = os.path.join(ROOT, "examples", "llama3-70b-512-h100.json")
GPT3 = os.path.join(ROOT, "examples", "gpt3-175b-1024-a100.json")
MIXTRAL = os.path.join(ROOT, "examples", "mixtral-8x7b-h100.json")


def cli(*args, code=0):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == code, f"stepcast {' '.join(args)}: exit {p.returncode}: {p.stderr}"
    return p


def without_time(doc):
    """A search document less its wall time (the one field that varies)."""
    assert doc["seconds"] >= 0
    return {k: v for k, v in doc.items() if k != "seconds"}


# (scenario, search() keywords, the command's options): the same search
CASES = [
    (LLAMA, dict(top=5, tp=8, zero=[1, 3], headroom="10%"),
     ["--top", "5", "--tp", "8", "--zero", "1,3", "--headroom", "10%"]),
    (LLAMA, dict(top=5, dtypes=["bf16", "fp8"]), ["--top", "5", "--dtypes", "bf16,fp8"]),
    (LLAMA, dict(top=4, pp=4, dp=16, headroom=4), ["--top", "4", "--pp", "4", "--dp", "16",
                                                  "--headroom", "4"]),
    (LLAMA, dict(top=3, tp=8, pp=1, zero=0), ["--top", "3", "--tp", "8", "--pp", "1",
                                               "--zero", "0"]),
    (LLAMA, dict(top=3, tp=8, pp=1, zero="0", all=True),
     ["--top", "3", "--tp", "8", "--pp", "1", "--zero", "0", "--all"]),
    (GPT3, dict(top=3, max_plans=100, tp=8, zero=3), ["--top", "3", "--max-plans", "100",
                                                      "--tp", "8", "--zero", "3"]),
    (MIXTRAL, dict(top=3, ep=8, cp=1, rerank=True, threads=2),
     ["--top", "3", "--ep", "8", "--cp", "1", "--rerank", "--threads", "2"]),
    (MIXTRAL, dict(top=3, ep=8, rerank=False), ["--top", "3", "--ep", "8", "--no-rerank"]),
    (MIXTRAL, dict(top=3, max_tp=2, max_pp=2, max_micro_batch=2, max_vpp=2),
     ["--top", "3", "--max-tp", "2", "--max-pp", "2", "--max-mb", "2", "--max-vpp", "2"]),
    (LLAMA, dict(top=3, recompute="full"), ["--top", "3", "--recompute", "full"]),
    (LLAMA, dict(top=3, micro_batch=1, vpp=1), ["--top", "3", "--mb", "1", "--vpp", "1"]),
    (LLAMA, dict(top=3, vpp=2, recompute=["none", "partial"], rerank=False),
     ["--top", "3", "--vpp", "2", "--recompute", "none,partial", "--no-rerank"]),
    (LLAMA, dict(top=3, micro_batch=3), ["--top", "3", "--mb", "3"]),  # none: exit 1, why
]


@pytest.mark.parametrize("scenario,kw,args", CASES, ids=[" ".join(c[2]) for c in CASES])
def test_search_options_equal_cli(scenario, kw, args):
    p = subprocess.run([CLI, "search", scenario, *args, "--format", "json"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode in (0, 1), p.stderr  # 1: no plan fits (the closest is shown)
    r = stepcast.search(scenario, **kw)
    assert without_time(r) == without_time(json.loads(p.stdout))


def test_constraints_hold():
    r = stepcast.search(LLAMA, top=20, tp=8, zero=[1, 3], dtypes="bf16,fp8", headroom=0.1)
    assert len(r["plans"]) == 20
    for p in r["plans"]:
        assert p["plan"]["tp"] == 8 and p["plan"]["zero"] in (1, 3), p["plan"]
        assert p["plan"]["dtype"] in ("bf16", "fp8")
        mem = p["memory_bytes"]
        assert mem["total"] <= 0.9 * mem["capacity"] * (1 + 1e-6), mem
    assert {p["plan"]["dtype"] for p in r["plans"]} == {"fp8"}  # fp8 is faster on an H100
    # a fraction and a percentage are the same headroom; 4 is GiB
    assert without_time(stepcast.search(LLAMA, top=3, headroom=0.1)) == \
        without_time(stepcast.search(LLAMA, top=3, headroom="10%"))
    gib = stepcast.search(LLAMA, top=50, all=False, headroom=20)
    assert all(p["memory_bytes"]["total"] <= p["memory_bytes"]["capacity"] - 20 * 2**30
               for p in gib["plans"])


def test_inner_constraints_hold():
    """micro_batch, vpp and recompute fix what the search would sweep: every
    plan listed has them, and the counts are the constrained space's."""
    free = stepcast.search(LLAMA, top=1, rerank=False)
    r = stepcast.search(LLAMA, top=30, micro_batch=2, vpp=2, recompute="full", all=True,
                        rerank=False)
    assert 0 < r["space"] < free["space"] and r["tried"] == r["space"], (r, free["space"])
    assert len(r["plans"]) == min(30, r["space"]) >= 10  # all=True: every plan of a small space
    for p in r["plans"]:
        assert p["plan"]["micro_batch"] == 2 and p["plan"]["vpp"] == 2, p["plan"]
        assert p["plan"]["schedule"] == "interleaved" and p["plan"]["pp"] > 1, p["plan"]
        assert p["plan"]["recompute"] == "full" and p["searched"]["recompute_layers"] == 0
    part = stepcast.search(LLAMA, top=30, recompute="partial", rerank=False)
    assert all(p["plan"]["recompute"] == "full" and p["searched"]["recompute_layers"] > 0
               for p in part["plans"]), [p["searched"] for p in part["plans"]]
    none = stepcast.search(LLAMA, top=30, recompute="none", rerank=False)
    assert {p["plan"]["recompute"] for p in none["plans"]} == {"none"}
    kinds = [stepcast.search(LLAMA, top=1, recompute=k, rerank=False)["space"]
             for k in ("none", "selective", "full", "partial")]
    assert sum(kinds) == free["space"], (kinds, free["space"])  # the kinds split the space


def test_every_plan_has_searched():
    """Each plan says the values of the dimensions the table leaves out
    (docs/output.md, "searched")."""
    r = stepcast.search(MIXTRAL, top=5)
    keys = {"etp", "fsdp_shard", "pp_first_layers", "pp_last_layers", "pp_embedding_in_split",
            "recompute_layers", "offload_layers"}
    for p in r["plans"]:
        assert set(p["searched"]) >= keys, p["searched"]
        assert p["searched"]["etp"] in (0, 1)


def test_budgets():
    r = stepcast.search(GPT3, top=2, max_plans=50, tp=8)
    assert r["tried"] <= 50 and r["space"] <= 50
    r = stepcast.search(GPT3, top=2, max_seconds=600, tp=8, zero=3)
    assert r["stopped"] == "complete"
    assert stepcast.search(MIXTRAL, top=2)["ranked_by"] == "event"  # as the command
    assert stepcast.search(MIXTRAL, top=2, rerank=False)["ranked_by"] == "closed_form"


def test_zero_bounds_keep_their_default():
    """max_tp=0 and friends meant "the default" before the options were
    parsed; they still do."""
    assert without_time(stepcast.search(MIXTRAL, top=2, max_tp=0, max_pp=0)) == \
        without_time(stepcast.search(MIXTRAL, top=2))


# (search() keyword, value, the command's option, its text)
BAD = [
    ("tp", 0, "--tp", "0"),
    ("pp", -2, "--pp", "-2"),
    ("ep", 1 << 25, "--ep", str(1 << 25)),
    ("zero", [1, 5], "--zero", "1,5"),
    ("zero", "", "--zero", ""),
    ("dtypes", ["bf16", "fp9"], "--dtypes", "bf16,fp9"),
    ("headroom", -1, "--headroom", "-1"),
    ("headroom", "100%", "--headroom", "100%"),
    ("headroom", "4GB", "--headroom", "4GB"),
    ("vpp", 0, "--vpp", "0"),
    ("recompute", "block", "--recompute", "block"),
    ("recompute", ["full", ""], "--recompute", "full,"),
]


@pytest.mark.parametrize("key,value,opt,text", BAD, ids=[f"{b[0]}={b[1]!r}" for b in BAD])
def test_bad_value_raises_library_message(key, value, opt, text):
    with pytest.raises(stepcast.Error) as e:
        stepcast.search(LLAMA, **{key: value})
    assert e.value.code == 2
    assert str(e.value).startswith(f"{key}: expected "), str(e.value)
    msg = cli("search", LLAMA, opt, text, code=2).stderr.strip()
    assert msg == f"stepcast search: --{e.value}"


@pytest.mark.parametrize("kw,starts", [
    (dict(max_tp=5000), "max_tp: expected an integer 1..4096"),
    (dict(threads=-1), "threads: expected an integer 1..4096"),
    (dict(max_plans=0), "max_plans: expected an integer 1..1000000000"),
    (dict(max_seconds=0), "max_seconds: expected seconds > 0"),
    (dict(rerank="yes"), "rerank: expected true or false"),
    (dict(tp=True), "tp: expected an integer"),
    (dict(micro_batch=0), "micro_batch: expected an integer 1..16777216"),
])
def test_bad_budget_raises(kw, starts):
    with pytest.raises(stepcast.Error) as e:
        stepcast.search(LLAMA, **kw)
    assert e.value.code == 2 and str(e.value).startswith(starts), str(e.value)


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError):
        stepcast.search(LLAMA, zero_stages=3)  # pylint: disable=unexpected-keyword-arg


def test_library_sets_the_struct():
    """sc_search_opts_set fills the fields the library reads (the ctypes
    struct is the C one, test_abi.py)."""
    o = stepcast._search_opts(dict(tp=8, zero=[1, 3], dtypes="bf16,fp8", headroom="10%",
                                   all=True, rerank=True, max_plans=7, max_seconds=2.5))
    assert (o.tp, o.pp, o.zero_stages, o.require_fit, o.rerank) == (8, 0, 0b1010, 0, 1)
    assert o.dtypes == (1 << 3) | (1 << 4)  # sc_dtype: bf16 3, fp8 4
    assert (o.headroom_bytes, o.headroom_frac) == (0, pytest.approx(0.1))
    assert (o.max_plans, o.max_seconds) == (7, 2.5)
    assert stepcast._search_opts(dict(headroom=4)).headroom_bytes == 4 * 2**30
    o = stepcast._search_opts(dict(micro_batch=2, vpp=1, recompute=["none", "partial"]))
    assert (o.micro_batch, o.vpp, o.recompute, o.max_micro_batch) == (2, 1, 0b1001, 0)
    o = stepcast._search_opts({})
    assert o.require_fit == 1 and o.zero_stages == 0 and o.progress is None
    assert ctypes.sizeof(o) > 0


def test_html_file_equals_cli(tmp_path):
    """html= writes the page `search --html FILE` writes (the fastest 1,000
    plans, fitting or not, the first plan marked), the same bytes."""
    theirs, ours = tmp_path / "cli.html", tmp_path / "py.html"
    args = ["--top", "3", "--tp", "8", "--zero", "1,3"]
    p = subprocess.run([CLI, "search", LLAMA, *args, "--html", str(theirs), "--format", "json"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    r = stepcast.search(LLAMA, top=3, tp=8, zero=[1, 3], html=str(ours))
    assert without_time(r) == without_time(json.loads(p.stdout))
    page = read(ours)
    assert page == read(theirs)
    assert page.startswith(b"<!DOCTYPE html>") and b"plans tried" in page


@pytest.mark.parametrize("html,code", [("-", 2), ("", 2), ("/nonexistent/dir/x.html", 3)])
def test_bad_html_raises(html, code):
    with pytest.raises(stepcast.Error) as e:
        stepcast.search(LLAMA, top=1, tp=8, pp=4, dp=16, html=html)
    assert e.value.code == code and str(e.value).startswith("html: "), str(e.value)
