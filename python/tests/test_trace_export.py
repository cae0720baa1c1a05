"""trace(export_graph=...) (docs/python.md, docs/trace.md): the loaded graph
written as `stepcast trace --export-graph OUT` writes it, one file per rank
(OUT-rankN.json), the same bytes, and it replays to the same step; a job
of Chakra ETs or a file that cannot be written raises the command's error."""
import os

import pytest

from clirun import ROOT, cli, read  # also puts python/ on the path
import stepcast  # noqa: E402

RANKS = [os.path.join(ROOT, "examples", "traces", f"rank{r}.json") for r in (0, 1)]


@pytest.mark.parametrize("files", [RANKS[:1], RANKS], ids=["1rank", "2ranks"])
def test_export_graph_equals_cli(tmp_path, files):
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    text = cli("trace", *files, "--export-graph", str(tmp_path / "cli" / "g.json"),
               "--format", "json").stdout
    assert stepcast.trace_json(files, export_graph=str(tmp_path / "py" / "g.json")) == text
    names = ["g.json"] if len(files) == 1 else [f"g-rank{r}.json" for r in range(len(files))]
    assert sorted(os.listdir(tmp_path / "py")) == names == sorted(os.listdir(tmp_path / "cli"))
    for name in names:
        assert read(tmp_path / "py" / name) == read(tmp_path / "cli" / name)
    # the graph replays to the step the traces replay to
    again = stepcast.trace([str(tmp_path / "py" / n) for n in names])["jobs"][0]
    first = stepcast.trace(files)["jobs"][0]
    assert again["ranks"] == first["ranks"]
    assert again["predicted_step_s"] == pytest.approx(first["predicted_step_s"], rel=1e-3)


def test_export_graph_errors(tmp_path):
    path = str(tmp_path / "no" / "dir" / "g.json")
    err = cli("trace", RANKS[0], "--export-graph", path, code=3).stderr.strip()
    with pytest.raises(stepcast.Error) as e:
        stepcast.trace(RANKS[0], export_graph=path)
    assert e.value.code == 3 and err == f"stepcast trace: {str(e.value)[len('trace: '):]}"
    for bad in ("-", ""):
        with pytest.raises(stepcast.Error) as e:
            stepcast.trace(RANKS[0], export_graph=bad)
        assert e.value.code == 2 and "graph: expected a file name" in str(e.value)
