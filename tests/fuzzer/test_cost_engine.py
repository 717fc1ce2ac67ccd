"""`Engine` with the cost objective, driven by a scripted pool (no worker, no emulator):
what enters the cost queue, which children it gets, what is saved in cost/."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.events import NewCostFinding
from lambdafuzz.fuzzer.options import CampaignOptions, Objective
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.generators.core import Choices
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerInfo, WorkerSpec
from lambdafuzz.model.cost import CostMeasures, Measure
from lambdafuzz.model.outcome import FailureInfo, Status
from tests.fuzzer.pool_doubles import PoolDouble

APP = (
    Path(__file__).parents[1] / "e2e" / "cost" / "apps" / "csv_items"
)  # timeout_s 10: duration budget 5 s
ARM = ("ledger/handler.py", "lambda_handler", 1, 10, 12)


def _result(seed: int, calls: int, duration_ms: float = 1.0, hits: int = 2) -> TestResult:
    choices = Choices(seed=seed)
    choices.draw_integer(0, 100)
    cost = CostMeasures(duration_ms=duration_ms, calls=(("dynamodb.PutItem", calls),))
    return TestResult(
        Status.VALID, choices.recording(), {ARM: 1}, cost=cost, hit_counts={ARM: hits}
    )


class ScriptedPool(PoolDouble):
    """Answers requests with the scripted results in order; re-runs repeat the result."""

    def __init__(self, results: list[TestResult], again: list[TestResult] | None = None) -> None:
        self.results = list(results)
        self.again_results = list(again or [])
        self.sent: list[TestRequest] = []
        self.again: list[TestRequest] = []
        self._last: dict[int, TestResult] = {}
        self.info = WorkerInfo(pid=0, app_arms_total=8, import_coverage={})
        self.restarts = 0
        self.spec: WorkerSpec | None = None

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        for request in requests:
            self.sent.append(request)
            self._last[id(request)] = result = self.results.pop(0)
            yield request, result

    def run_again(self, request: TestRequest) -> TestResult:
        self.again.append(request)
        if self.again_results:
            return self.again_results.pop(0)
        return self._last[id(request)]

    def rerun(self, request: TestRequest) -> TestResult:  # a fresh worker: as first run
        return self._last[id(request)]

    def close(self) -> None:
        pass


def _engine(
    tmp_path: Path, results: list[TestResult], again: list[TestResult] | None = None, **options
) -> tuple[Engine, ScriptedPool]:
    pool = ScriptedPool(results, again)

    def factory(spec: WorkerSpec, workers: int) -> ScriptedPool:
        pool.spec = spec
        return pool

    campaign = CampaignOptions(
        target=load_target(APP),
        out_dir=tmp_path,
        max_execs=len(results),
        stability_check=False,
        **options,
    )
    return Engine(campaign, catalog=ArmCatalog(files=()), pool_factory=factory), pool


def test_cost_objective_keeps_raised_maxima_and_saves_confirmed_findings(tmp_path):
    results = [
        _result(1, calls=3),  # fresh: every maximum is new
        _result(2, calls=3),  # a child of it that raises nothing
        _result(3, calls=150),  # more calls, past the budget of 100: a finding, no re-run
        _result(4, calls=1, duration_ms=6000.0),  # a long run: confirmed, then a finding
    ]
    engine, pool = _engine(tmp_path, results, objective=Objective.COST)
    events = list(engine.run())
    assert pool.spec is not None and pool.spec.cost
    found = [e.finding for e in events if isinstance(e, NewCostFinding)]
    assert [f.measure for f in found] == [Measure.AWS_CALLS, Measure.DURATION]
    assert found[1].samples == (6000.0, 6000.0, 6000.0)
    # the long run: one re-run confirms the new maximum, two more make the finding's median
    assert pool.again == [pool.sent[3]] * 3
    assert [e.provenance for e in engine.costs.queue] == [
        "fresh +cost:hits,aws_calls,calls",
        "cost-src:0 +cost:aws_calls,calls",
        "cost-src:0 +cost:duration",
    ]
    stats = events[-1].stats
    assert (stats.corpus_size, stats.cost_queue, stats.cost_findings) == (0, 3, 2)
    assert stats.cost_maxima["aws_calls"] == 150.0 and stats.cost_maxima["duration"] == 6000.0
    saved = {e.finding.measure: e for e in OutDir(tmp_path).read().cost}
    assert saved[Measure.AWS_CALLS].saved.provenance == "cost-src:0"
    assert saved[Measure.AWS_CALLS].finding.value == 150.0


def test_mixed_objective_gives_the_cost_queue_its_share_of_children(tmp_path):
    results = [_result(i, calls=i) for i in range(1, 41)]  # each raises the call maximum
    engine, pool = _engine(tmp_path, results, objective=Objective.MIXED, cost_share=0.25)
    list(engine.run())
    # interleaved with the first coverage parent's (many) children, a batch at a time
    cost_children, children = engine.tally.cost_children_made, engine.tally.children_made
    assert children == 39  # every request but the first, fresh one
    assert 0.25 * children - 20 <= cost_children <= 0.25 * children + 20
    assert cost_children == 20
    assert len(engine.queue) >= 1  # coverage still saves


def test_coverage_objective_asks_workers_for_no_measures(tmp_path):
    engine, pool = _engine(tmp_path, [_result(1, calls=500)], objective=Objective.COVERAGE)
    events = list(engine.run())
    assert pool.spec is not None and not pool.spec.cost
    assert engine.costs.feedback is None and not engine.costs.queue
    assert not any(isinstance(e, NewCostFinding) for e in events)


def test_a_confirming_run_that_fails_is_handled_as_a_failure_seen(tmp_path):
    died = TestResult(
        Status.FAILURE,
        _result(9, calls=1).recording,
        {},
        failure=FailureInfo("WorkerDied", "killed", "", "ledger/handler.py:20", detail="SIGTERM"),
    )
    # a new duration maximum is confirmed by a second run, which dies (killed from outside)
    engine, pool = _engine(
        tmp_path, [_result(1, calls=1, duration_ms=50.0)], [died], objective=Objective.COST
    )
    events = list(engine.run())
    assert pool.again == [pool.sent[0]]
    assert not engine.failures  # a fresh worker ran it as before: flaky, not a failure
    (record,) = engine.flaky.values()
    assert record.signature.startswith("WorkerDied SIGTERM") and record.rerun.status == "VALID"
    assert Measure.DURATION not in engine.costs.feedback.measure_max  # no sample: not confirmed
    assert events[-1].stats.execs == 1
    # hits are failed executions: the one execution was valid, only its re-run failed
    assert record.hits == 0 and events[-1].stats.flaky_hits == 0


def test_under_mixed_a_longer_run_raises_the_maximum_but_queues_no_parent(tmp_path):
    """Durations depend on timing: under `mixed` (the default) only exact counts choose the
    cost queue's parents, so the same seed makes the same campaign; `--objective cost`
    climbs durations too and says in campaign.json that it is not deterministic."""
    results = [
        _result(1, calls=3),  # fresh: every maximum is new (exact ones queue it)
        _result(2, calls=3, duration_ms=40.0),  # only the duration rises
        _result(3, calls=3),
    ]
    engine, pool = _engine(tmp_path, results, objective=Objective.MIXED, cost_share=0.5)
    events = list(engine.run())
    assert [e.provenance for e in engine.costs.queue] == ["fresh +cost:hits,aws_calls,calls"]
    assert pool.again == [pool.sent[1]]  # the new maximum still confirmed by a re-run ...
    assert events[-1].stats.cost_maxima["duration"] == 40.0  # ... and kept
    assert engine.options.deterministic
    campaign = json.loads((tmp_path / "campaign.json").read_text())
    assert campaign["deterministic"] is True and "determinism" not in campaign

    other = tmp_path / "cost"
    results = [_result(1, calls=3), _result(2, calls=3, duration_ms=40.0), _result(3, calls=3)]
    engine, _ = _engine(other, results, objective=Objective.COST)
    list(engine.run())
    assert [e.provenance for e in engine.costs.queue][-1].endswith("+cost:duration")
    campaign = json.loads((other / "campaign.json").read_text())
    assert campaign["deterministic"] is False and "timing" in campaign["determinism"]
