"""Searcher (sc_searcher): searches on threads kept between searches give
search()'s documents, to the byte but the wall time, scenario after
scenario and on a topology (docs/search.md); a closed Searcher raises."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import stepcast  # noqa: E402

LLAMA = os.path.join(ROOT, "examples", "llama3-70b-512-h100.json")
GPT3 = os.path.join(ROOT, "examples", "gpt3-175b-1024-a100.json")
FAT_TREE = ["cluster.topology=fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50"]


def without_time(doc):
    assert doc["seconds"] >= 0
    return {k: v for k, v in doc.items() if k not in ("seconds", "rerank_seconds")}


# (scenario, overrides, keywords): searched in turn on one Searcher
CASES = [
    (LLAMA, None, dict(top=5, rerank=False)),
    (LLAMA, FAT_TREE, dict(top=5, rerank=False)),
    (GPT3, None, dict(top=3)),
    (LLAMA, FAT_TREE, dict(top=5, rerank=False)),
]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_searcher_gives_search(threads):
    with stepcast.Searcher(threads) as s:
        for scenario, overrides, kw in CASES:
            want = stepcast.search(scenario, overrides, threads=threads, **kw)
            got = s.search(scenario, overrides, threads=threads, **kw)
            assert without_time(got) == without_time(want), (scenario, overrides, threads)
            assert got["plans"], (scenario, overrides, threads)


def test_searcher_json_and_errors():
    s = stepcast.Searcher(2)
    text = s.search_json(LLAMA, top=2, rerank=False)
    assert '"plans"' in text
    with pytest.raises(stepcast.Error) as e:  # the library's message, the searcher still usable
        s.search(LLAMA, top=0)
    assert "top" in str(e.value)
    assert s.search(LLAMA, top=1, rerank=False)["plans"]
    s.close()
    s.close()  # again: nothing
    with pytest.raises(stepcast.Error) as e:
        s.search(LLAMA, top=1)
    assert "closed" in str(e.value)
