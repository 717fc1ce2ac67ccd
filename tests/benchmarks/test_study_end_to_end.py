"""benchmarks/run.py end to end: 1 lambda x 2 strategies x 2 repetitions x 15 executions,
all-code replay of repetition 0, the report; then a rerun that redoes nothing."""

from __future__ import annotations

import json

import pytest

from benchmarks import run as study_run

LAMBDA = "contracts"
ARGS = [
    "--lambdas",
    LAMBDA,
    "--strategies",
    "zest,random",
    "--reps",
    "2",
    "--execs",
    "15",
    "--jobs",
    "2",
]


@pytest.mark.slow
def test_study_runs_reports_and_resumes(tmp_path, capsys):
    out = tmp_path / "study"
    assert study_run.main([*ARGS, "--out", str(out)]) == 0
    first = capsys.readouterr().out
    assert first.count(": done in") == 4, first

    results = json.loads((out / "results.json").read_text())
    cell = results["lambdas"][LAMBDA]
    assert set(cell["strategies"]) == {"zest", "random"}
    for strategy in ("zest", "random"):
        per_rep = cell["strategies"][strategy]["per_rep"]
        assert [r["seed"] for r in per_rep] == [0, 1]
        assert all(r["execs"] == 15 and r["branches"] > 0 for r in per_rep)
        coverage = json.loads(
            (out / "raw" / LAMBDA / strategy / "rep0" / "coverage.json").read_text()
        )
        assert per_rep[0]["branches"] == len(coverage["covered"])
    assert "random" in cell["vs_baseline"] and cell["vs_baseline"]["random"]["p_value"] is not None

    allcode = results["allcode"]
    assert {c["strategy"] for c in allcode["cells"]} == {"zest", "random"}
    for c in allcode["cells"]:
        assert c["reps"] == [0] and c["inputs"] > 0 and c["outcome_mismatches"] == 0
        assert c["branches"]["application"] > 0

    report = (out / "report.md").read_text()
    assert "## Answers" in report and "Executions per second" in report
    assert f"| {LAMBDA} | zest | 2 |" in report
    png = out / "plots" / f"{LAMBDA}.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    marker = out / "raw" / LAMBDA / "zest" / "rep1" / "done"
    before = marker.stat().st_mtime_ns
    assert study_run.main([*ARGS, "--out", str(out)]) == 0
    second = capsys.readouterr().out
    assert ": done in" not in second  # everything was finished already
    assert marker.stat().st_mtime_ns == before
