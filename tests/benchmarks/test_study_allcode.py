"""All-code coverage bookkeeping (the replay itself runs in the end-to-end test)."""

from __future__ import annotations

import os
import sys

from benchmarks.study.allcode import category, infrastructure_omit, summarize


def test_category_of_files(tmp_path):
    app = str(tmp_path / "app")
    assert category(os.path.join(app, "handler.py"), [app]) == "application"
    assert category("/x/lib/python3.13/site-packages/PIL/Image.py", [app]) == "third_party"
    assert category("/x/lib/python3.13/json/__init__.py", [app]) == "stdlib"


def test_infrastructure_is_omitted_but_the_lambdas_are_not():
    patterns = infrastructure_omit()
    import boto3
    import moto

    for module in (boto3, moto):
        assert any(
            p.startswith(os.path.realpath(os.path.dirname(module.__file__))) for p in patterns
        )
    assert not any(
        "benchmarks/lambdas" in p or p.endswith(os.sep + "benchmarks" + os.sep + "*")
        for p in patterns
    )
    assert sys.modules["benchmarks.study.allcode"]  # the study package omits itself
    assert any(p.endswith(os.path.join("benchmarks", "study", "*")) for p in patterns)


def replay(arcs, app=2, third=3, std=4, inputs=5):
    return {
        "inputs": inputs,
        "outcome_mismatches": 0,
        "branches": {
            "application": app,
            "third_party": third,
            "stdlib": std,
            "total": app + third + std,
        },
        "arcs": arcs,
    }


def test_summarize_cells_and_pairs():
    a0 = replay(
        [["stdlib", "f.py", 1, 2], ["stdlib", "f.py", 1, 3], ["application", "h.py", 5, 6]],
        app=1,
        third=0,
        std=2,
    )
    b0 = replay(
        [["stdlib", "f.py", 1, 2], ["third_party", "g.py", 7, 8]], app=0, third=1, std=1, inputs=4
    )
    summary = summarize(
        {("l", "spoton"): {0: a0}, ("l", "zest"): {0: b0}}, [("spoton", "zest")], "how"
    )
    assert summary["method"] == "how"
    cells = {c["strategy"]: c for c in summary["cells"]}
    assert cells["spoton"]["branches"]["total"] == 3 and cells["zest"]["inputs"] == 4
    (pair,) = summary["pairs"]
    assert (pair["common"], pair["only_a"], pair["only_b"]) == (1, 2, 1)
