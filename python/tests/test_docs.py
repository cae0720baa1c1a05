"""The examples of docs/python.md run: every ```python block, in order, in
one namespace, from the source tree (as the page says), without ../shared.
A block that imports pandas runs only where pandas is installed."""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))


def blocks():
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        return re.findall(r"^```python\n(.*?)^```$", f.read(), re.S | re.M)


def test_doc_examples_run(monkeypatch, capsys):
    found = blocks()
    assert len(found) >= 5, "docs/python.md: its python blocks not found"
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("STEPCAST_DATA", raising=False)
    pandas = importlib.util.find_spec("pandas") is not None
    ns = {"__name__": "docs_python_md"}
    ran = 0
    for i, code in enumerate(found):
        if "import pandas" in code and not pandas:
            continue
        exec(compile(code, f"docs/python.md block {i + 1}", "exec"), ns)  # noqa: S102
        ran += 1
    assert ran >= len(found) - 1
    # the error example printed the library's message
    assert "plan.tp" in capsys.readouterr().out


def test_module_docstring_and_exports():
    import stepcast
    assert all(callable(getattr(stepcast, name)) for name in stepcast.__all__)
    assert "search(" in stepcast.__doc__ and "headroom" in stepcast.search.__doc__
