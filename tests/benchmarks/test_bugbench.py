"""The bug benchmark's apps, checked by direct invocation (no campaign): each loads through
lambdafuzz's config, passes its benign case without any exception in its own code, and its
hand-written trigger reproduces exactly the planted bug that `expect.yaml` describes, the way
`benchmarks/bugbench.py` recognises it in an out dir."""

from __future__ import annotations

import logging
import sys

import pytest

from benchmarks.bugbench.direct import load_case, run_case
from benchmarks.bugbench.spec import all_apps
from lambdafuzz.config import load_target
from lambdafuzz.model.outcome import Status

APPS = all_apps()
#: The trigger classes the benchmark must cover (the issue's list of triggers).
TRIGGERS = {"s3", "sqs", "sns", "dynamodb-stream", "apigateway", "eventbridge"}


@pytest.fixture(autouse=True)
def _quiet_handlers(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL)  # handlers log tracebacks of what they swallow


def test_the_benchmark_is_large_and_varied():
    assert len(APPS) >= 32
    assert len({a.bug.id for a in APPS}) == len(APPS), "bug ids must be unique"
    kinds = {a.bug.kind for a in APPS}
    assert kinds == {"uncaught", "handled", "status"}
    triggers = {load_target(a.fuzz_path, warn=False).trigger.kind.value for a in APPS}
    assert triggers >= TRIGGERS


@pytest.mark.parametrize("app", APPS, ids=[a.name for a in APPS])
def test_benign_passes_and_trigger_reproduces_the_planted_bug(app):
    target = load_target(app.fuzz_path, warn=False)

    benign = run_case(app, load_case(app, "benign"), target)
    assert benign.status is Status.VALID, benign.failure
    assert benign.handled == (), f"the benign case raised inside the app: {benign.handled}"

    hit = run_case(app, load_case(app, "trigger"), target)
    bug = app.bug
    if bug.kind == "handled":
        assert hit.failure is None, hit.failure
        matching = [h for h in hit.handled if bug.matches(h.exception_type, h.message, h.location)]
        assert matching, f"no handled {bug.exception} in {bug.functions}: {hit.handled}"
    else:
        assert hit.status is Status.FAILURE and hit.failure is not None, hit.status
        found = hit.failure
        assert bug.matches(found.exception_type, found.message, found.location), found


def _record(path, strategy, found, execs=3000, seeds=(0, 1)):
    import json

    runs = [
        {"app": "sqs_nan_score", "bug": "b", "kind": "uncaught", "strategy": strategy,
         "seed": seed, "execs": execs, "exit_code": 0, "seconds": 1.0, "found": found,
         "first_exec": 7 if found else None}
        for seed in seeds
    ]  # fmt: skip
    data = {"execs": execs, "seeds": list(seeds), "strategies": [strategy], "runs": runs}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_merged_records_report_every_strategy_side_by_side(tmp_path, capsys, monkeypatch):
    import importlib.util
    from pathlib import Path

    # the script shares its name with the package of apps beside it: load it by path
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bugbench.py"
    spec = importlib.util.spec_from_file_location("bugbench_script", script)
    bugbench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bugbench)  # its dataclasses look it up
    spec.loader.exec_module(bugbench)

    first = _record(tmp_path / "a.json", "frontier", True)
    second = _record(tmp_path / "b.json", "zest", False)
    code = bugbench.main(["--merge", str(first), str(second), "--results", str(tmp_path)])
    assert code == 0
    report = (tmp_path / "bugbench-merged.md").read_text(encoding="utf-8")
    assert "| frontier | 1/1, 1/1 | 100.0% | 7 |" in report
    assert "| zest | 0/1, 0/1 | 0.0% | - |" in report
    assert "| sqs_nan_score | uncaught | nan-string | 2/2 (7) | 0/2 |" in report
    # a record of another budget is refused, not averaged in
    other = _record(tmp_path / "c.json", "random", False, execs=1000)
    assert bugbench.main(["--merge", str(first), str(other), "--results", str(tmp_path)]) == 2
    assert "differ" in capsys.readouterr().err
