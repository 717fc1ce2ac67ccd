"""End to end: `--objective cost` finds each planted cost problem with the right measure.

Each app under `apps/` has one cost problem a coverage campaign walks past (see its
lambdafuzz.yaml). A seeded campaign runs until the expected finding is saved (or its
budget ends); the comparison with a plain coverage campaign at 2000 executions is
`benchmarks/cost.py`.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewCostFinding
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.model.cost import Measure

APPS = Path(__file__).parent / "apps"

#: app -> (measure, the operation that dominates an aws_calls finding, options, executions)
CASES: dict[str, tuple[Measure, str, dict[str, Any], int]] = {
    "csv_items": (Measure.AWS_CALLS, "dynamodb.PutItem", {"max_aws_calls": 30}, 300),
    # 600: under `--objective cost` durations climb too, and on a loaded machine their
    # noise takes cost-queue turns (found by 300 alone, not beside a benchmark run)
    "zip_fanout": (Measure.AWS_CALLS, "s3.PutObject", {"max_aws_calls": 50}, 600),
    # zest (found by execution ~36): frontier's edge-value CSVs reach a slow one later, or
    # one whose two confirming runs pass the 1 s timeout under load (no samples from them)
    "csv_dedupe": (Measure.DURATION, "", {"duration_share": 0.2, "strategy": "zest"}, 200),
    # 0.05 of its 3 s timeout: 150 ms, a name of ~21 letters and digits (22: 0.5 s, 24: 2.4 s)
    "key_router": (Measure.DURATION, "", {"duration_share": 0.05}, 300),
    "album_proof": (Measure.MEMORY, "", {"max_memory_mb": 8.0}, 300),
}


def fuzz_until_found(app: str, out: Path, measure: Measure, options: dict[str, Any], execs: int):
    """A cost campaign stopped as soon as `measure`'s finding is saved: (events, finished)."""
    engine = build_engine(
        load_config(APPS / app),
        out_dir=out,
        objective="cost",
        seed=0,
        max_execs=execs,
        **options,
    )
    events = []
    for event in engine.run():
        events.append(event)
        if isinstance(event, NewCostFinding) and event.finding.measure is measure:
            engine.request_stop()
    finished = events[-1]
    assert isinstance(finished, CampaignFinished)
    return engine, events, finished


@pytest.fixture(scope="module")
def found_runs(tmp_path_factory) -> Callable[[str], tuple[Path, Engine, list, CampaignFinished]]:
    """Each app's campaign, run once: the csv_items one serves both the finding test and
    the reports test, which only read it (a second campaign cost ~3 s)."""
    made: dict[str, tuple[Path, Engine, list, CampaignFinished]] = {}

    def run(app: str) -> tuple[Path, Engine, list, CampaignFinished]:
        if app not in made:
            measure, _, options, execs = CASES[app]
            out = tmp_path_factory.mktemp(app) / "out"
            made[app] = (out, *fuzz_until_found(app, out, measure, options, execs))
        return made[app]

    return run


@pytest.mark.slow
@pytest.mark.parametrize("app", sorted(CASES))
def test_cost_objective_reports_the_planted_problem_with_its_measure(found_runs, app):
    measure, operation, options, execs = CASES[app]
    out, engine, events, finished = found_runs(app)
    found = [e.finding for e in events if isinstance(e, NewCostFinding)]
    assert measure in {f.measure for f in found}, (app, finished.stats)
    entries = [e for e in OutDir(out).read().cost if e.finding.measure is measure]
    assert len(entries) == 1
    finding = entries[0].finding
    assert finding.value > finding.budget
    assert entries[0].path.name == f"{measure.value}.json"
    assert entries[0].saved.event is not None and entries[0].saved.world is not None
    if operation:  # the calls are the planted ones
        calls = dict(finding.measures.calls)
        assert max(calls, key=calls.__getitem__) == operation, calls
    if measure is Measure.DURATION:  # confirmed by two more runs, the median kept
        assert len(finding.samples) == 3
        assert sorted(finding.samples)[1] == pytest.approx(finding.value)
    # the cost queue is what got it there: nothing is kept for coverage alone
    assert finished.stats.cost_queue > 0 and finished.stats.corpus_size == 0
    assert finished.stats.cost_findings >= 1


@pytest.mark.slow
def test_cost_findings_reach_summary_reports_and_repro(found_runs, tmp_path):
    from lambdafuzz.report.ci_outputs import write_junit, write_sarif
    from lambdafuzz.report.html import render_report
    from lambdafuzz.report.status import summary

    out, engine, _, finished = found_runs("csv_items")
    target = engine.options.target
    text = summary(finished)
    assert "cost            1 finding" in text and "aws_calls:" in text
    assert "dynamodb.PutItem x" in text

    junit = ET.parse(write_junit(out, tmp_path / "junit.xml", target)).getroot()
    assert junit.get("failures") == "0"
    case = junit.find(".//testcase[@name='cost: aws_calls']")
    assert case is not None and case.find("failure") is None
    assert case.findtext("system-err", "").startswith("warning: cost finding aws_calls:")

    sarif = json.loads(write_sarif(out, tmp_path / "x.sarif", target).read_text())
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("cost/aws_calls", "warning")]
    assert results[0]["properties"]["measures"]["calls"]["dynamodb.PutItem"] > 30

    html = render_report(out, target)
    assert "Cost findings (1)" in html and "dynamodb.PutItem" in html

    result = CliRunner().invoke(cli, ["repro", str(out / "cost" / "aws_calls.json")])
    assert result.exit_code == 0, result.output
    assert "cost (median of 3 runs): duration" in result.output
    saved = OutDir(out).read().cost[0].finding.measures
    saved_calls = saved.aws_calls
    # the CSV it was given, counted as it came back from GetObject
    assert saved.bytes_read > 0 and engine.costs.feedback.maxima()["bytes_read"] >= saved.bytes_read
    assert f"read {Measure.BYTES_READ.show(saved.bytes_read)}" in result.output
    assert f"AWS calls {saved_calls} (dynamodb.PutItem x{saved_calls - 1}" in result.output
    assert "cost finding when saved: aws_calls:" in result.output


@pytest.mark.slow
def test_coverage_objective_measures_nothing(tmp_path):
    engine = build_engine(
        load_config(APPS / "csv_items"),
        out_dir=tmp_path / "out",
        objective="coverage",
        seed=0,
        max_execs=30,
        max_aws_calls=1,
    )
    events = list(engine.run())
    assert not any(isinstance(e, NewCostFinding) for e in events)
    stats = events[-1].stats
    assert stats.cost_maxima == {} and stats.cost_queue == 0 and stats.corpus_size > 0
    assert not (tmp_path / "out" / "cost").exists()
