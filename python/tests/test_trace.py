"""stepcast.trace: the bytes of `stepcast trace FILE... --format json`
(the same writer, sc_report_trace_replay, through sc_trace_json) for real
profiler traces of ../shared/traces, as traced and under what-ifs, and the
command's errors. Needs ../shared: fails (does not skip) without it."""
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
TRACES = os.path.join(ROOT, "..", "shared", "traces")
RESNET = os.path.join(TRACES, "kineto_tb_plugin_resnet50", "worker0.1623143566756.pt.trace.json.gz")
HTA_2RANK = [os.path.join(TRACES, "hta", "trace_filter", f"sampled_rank-{r}.json.gz")
             for r in (0, 1)]
SYNTH = os.path.join(ROOT, "tests", "data", "trace", "synth_1rank.json")


def shared(*paths):
    """paths, asserting each exists: a missing ../shared fails the test."""
    for p in paths:
        assert os.path.isfile(p), f"{p}: missing (../shared/traces is needed by this test)"
    return list(paths)


def cli_json(*args):
    p = subprocess.run([CLI, "trace", *args, "--format", "json"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode == 0, f"stepcast trace {' '.join(args)}: exit {p.returncode}: {p.stderr}"
    return p.stdout


# (files, keyword arguments, the command's options)
CASES = {
    "resnet50": (lambda: shared(RESNET), {}, []),
    "resnet50-gpu-h100": (lambda: shared(RESNET), {"gpu": "h100-sxm5-80gb"},
                          ["--gpu", "h100-sxm5-80gb"]),
    "hta-2rank": (lambda: shared(*HTA_2RANK), {}, []),
    "hta-2rank-dp4-nic": (lambda: shared(*HTA_2RANK),
                          {"dp_scale": 4, "nic_Gbps": 100, "nvlink_GBps": 450, "ranks_per_node": 4,
                           "comm_model": True, "no_overlap": True},
                          ["--dp-scale", "4", "--nic", "100", "--nvlink", "450", "--ppn", "4",
                           "--comm-model", "--no-overlap"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_trace_is_the_cli_document(name):
    files, kw, opts = CASES[name]
    files = files()
    got = stepcast.trace_json(files, **kw)
    assert got == cli_json(*files, *opts)
    job, = stepcast.trace(files, **kw)["jobs"]
    assert job["files"] == files and job["ranks"] == len(files)
    assert job["replay"]["predicted_step_s"] > 0
    assert ("whatif" in job) == bool(kw)


def test_whatif_changes_the_prediction():
    files = shared(*HTA_2RANK)
    job, = stepcast.trace(files, dp_scale=4, nic_Gbps=25, comm_model=True)["jobs"]
    w = job["whatif"]
    assert w["change"]["dp_scale"] == 4 and w["change"]["nic_bw"] == 25e9 / 8
    assert w["change"]["comm_model"] is True and w["result"]["comm_retimed"] > 0
    assert w["result"]["predicted_step_s"] != job["replay"]["predicted_step_s"]


def test_perfetto_file_is_written(tmp_path):
    out = tmp_path / "sched.json"
    cli_out = tmp_path / "cli.json"
    doc = stepcast.trace_json(SYNTH, dp_scale=2, perfetto=str(out))
    assert doc == cli_json(SYNTH, "--dp-scale", "2", "--perfetto", str(cli_out))
    assert out.read_bytes() == cli_out.read_bytes()
    assert json.loads(out.read_text())["traceEvents"]


def test_bad_file_raises_input_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "dur": "x"}')
    with pytest.raises(stepcast.Error) as e:
        stepcast.trace(str(bad))
    assert e.value.code == 2 and "bad.json" in str(e.value)
    p = subprocess.run([CLI, "trace", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr == f"stepcast trace: {e.value}\n"


def test_missing_file_raises_io_error(tmp_path):
    with pytest.raises(stepcast.Error) as e:
        stepcast.trace([SYNTH, str(tmp_path / "nope.json")])
    assert e.value.code == 3 and "nope.json" in str(e.value)


@pytest.mark.parametrize("kw, says", [
    ({"gpu": "h900"}, "unknown GPU preset 'h900'"),
    ({"dp_scale": 0}, "dp_scale"),
    ({"ranks_per_node": 2.5}, "ranks_per_node"),
    ({"perfetto": "-"}, "perfetto"),
])
def test_bad_whatif_raises_input_error(kw, says):
    with pytest.raises(stepcast.Error, match=says) as e:
        stepcast.trace(SYNTH, **kw)
    assert e.value.code == 2


def test_perfetto_unwritable_raises_io_error(tmp_path):
    with pytest.raises(stepcast.Error) as e:
        stepcast.trace(SYNTH, perfetto=str(tmp_path / "no" / "dir.json"))
    assert e.value.code == 3 and "cannot write" in str(e.value)


@pytest.mark.parametrize("kw, opt", [
    ({"nvlink_GBps": 0}, ["--nvlink", "0"]),        # 0 would be the library's default
    ({"nic_Gbps": 0}, ["--nic", "0"]),
    ({"nic_Gbps": 2e9}, ["--nic", "2e9"]),
    ({"dp_scale": 1e-12}, ["--dp-scale", "1e-12"]),
    ({"dp_scale": float("nan")}, ["--dp-scale", "nan"]),
    ({"nvlink_GBps": "fast"}, ["--nvlink", "fast"]),
    ({"ranks_per_node": 2**32 + 8}, ["--ppn", str(2**32 + 8)]),  # a C int would wrap to 8
    ({"ranks_per_node": float("nan")}, ["--ppn", "nan"]),
])
def test_whatif_out_of_the_commands_range_is_refused(kw, opt):
    """What `stepcast trace` refuses (numbers outside 1e-9..1e9), the
    binding refuses too, rather than replaying another what-if."""
    with pytest.raises(stepcast.Error, match=next(iter(kw))) as e:
        stepcast.trace(SYNTH, **kw)
    assert e.value.code == 2
    p = subprocess.run([CLI, "trace", SYNTH, *opt], capture_output=True, text=True)
    assert p.returncode == 2


def test_same_file_twice_is_refused(tmp_path):
    """One file named twice (also through a link) is refused, as by the
    command, also when it names no distributedInfo.rank (which the library
    checks)."""
    doc = json.load(open(SYNTH))
    doc.pop("distributedInfo", None)
    one = tmp_path / "norank.json"
    one.write_text(json.dumps(doc))
    link = tmp_path / "again.json"
    link.symlink_to(one)
    for files in ([str(one), str(one)], [str(one), str(link)]):
        with pytest.raises(stepcast.Error, match="given twice") as e:
            stepcast.trace(files)
        assert e.value.code == 2
        p = subprocess.run([CLI, "trace", *files], capture_output=True, text=True)
        assert p.returncode == 2 and "given twice" in p.stderr


def test_warnings_are_the_commands():
    """What `stepcast trace` warns about on standard error (here: 2 of the
    job's 128 ranks given) comes back as stepcast.TraceWarning, line for
    line, and the document is still the command's."""
    files = shared(*HTA_2RANK)
    with pytest.warns(stepcast.TraceWarning) as got:
        doc = stepcast.trace_json(files)
    p = subprocess.run([CLI, "trace", *files, "--format", "json"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode == 0 and doc == p.stdout
    want = p.stderr.replace("stepcast trace: warning: ", "", 1).splitlines()
    assert any("2 of the job's 128 ranks" in w for w in want), p.stderr
    assert [str(w.message) for w in got] == want
    assert all(w.filename == __file__ for w in got), "issued at the caller's line"
    with pytest.warns(stepcast.TraceWarning, match="2 of the job's 128 ranks"):
        stepcast.trace(files)


def test_no_warning_without_one(recwarn):
    stepcast.trace(SYNTH)
    p = subprocess.run([CLI, "trace", SYNTH], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and "warning" not in p.stderr
    assert not [w for w in recwarn if issubclass(w.category, stepcast.TraceWarning)]


@pytest.mark.parametrize("old, new, value", [
    ("nvlink", "nvlink_GBps", 450), ("nic", "nic_Gbps", 100), ("ppn", "ranks_per_node", 4)])
def test_old_whatif_names_are_deprecated_aliases(old, new, value):
    """trace(nvlink=, nic=, ppn=) were renamed to collective()'s names:
    the old still give the same document, with a DeprecationWarning that
    names the new one; both names at once, or an unknown keyword, is a
    TypeError."""
    files = shared(*HTA_2RANK)
    want = stepcast.trace_json(files, dp_scale=2, **{new: value})
    for fn in (stepcast.trace_json, lambda *a, **k: json.dumps(stepcast.trace(*a, **k))):
        with pytest.warns(DeprecationWarning, match=f"'{old}=' is deprecated, use '{new}='"):
            got = fn(files, dp_scale=2, **{old: value})
        assert json.loads(got) == json.loads(want)
    with pytest.raises(TypeError, match=f"both '{new}' and its old name '{old}'"):
        stepcast.trace(files, **{old: value, new: value})
    with pytest.raises(TypeError, match="unexpected keyword argument 'ppnn'"):
        stepcast.trace(files, ppnn=4)
