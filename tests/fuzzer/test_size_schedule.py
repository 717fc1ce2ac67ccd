"""The size schedule (`fuzzer.size_schedule`): small first, grown when coverage stalls, and
carried by every test request of a campaign."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.options import CampaignOptions, Objective
from lambdafuzz.fuzzer.size_schedule import LEVELS, STALL_EXECS, SizeSchedule
from lambdafuzz.generators.core import Choices
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerInfo, WorkerSpec
from lambdafuzz.model.outcome import Status
from tests.fuzzer.pool_doubles import PoolDouble

PLANTED = Path(__file__).parent / "planted"


def test_a_stall_grows_the_scale_and_new_coverage_holds_it() -> None:
    schedule = SizeSchedule(levels=(0.25, 0.5, 1.0), stall_execs=10)
    assert schedule.scale == 0.25
    for _ in range(9):
        assert not schedule.observe(False)
    assert not schedule.observe(True)  # coverage: the stall starts over
    for _ in range(9):
        assert not schedule.observe(False)
    assert schedule.scale == 0.25
    assert schedule.observe(False)  # 10 executions without new coverage
    assert schedule.scale == 0.5 and schedule.patience == 20  # waits longer at each level
    for _ in range(19):
        schedule.observe(False)
    assert schedule.scale == 0.5
    assert schedule.observe(False) and schedule.scale == 1.0
    for _ in range(100):  # the full scale is the last
        assert not schedule.observe(False)
    assert schedule.scale == 1.0
    assert SizeSchedule.full().scale == 1.0 and LEVELS[-1] == 1.0


class _StalledPool(PoolDouble):
    """Answers every request VALID with the same coverage: new once, then a stall."""

    def __init__(self) -> None:
        self.sent: list[TestRequest] = []
        self.info = WorkerInfo(pid=0, app_arms_total=8, import_coverage={})
        self.restarts = 0
        choices = Choices(seed=1)
        choices.draw_integer(0, 100)
        self.result = TestResult(Status.VALID, choices.recording(), {("h.py", 1, 2): 0})

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        for request in requests:
            self.sent.append(request)
            yield request, self.result

    def recycle(self, request: TestRequest) -> None:
        pass

    def rerun(self, request: TestRequest) -> TestResult:
        return self.result

    def close(self) -> None:
        pass


def _campaign(tmp_path: Path, execs: int, **options: object) -> list[float]:
    pool = _StalledPool()

    def factory(spec: WorkerSpec, workers: int) -> _StalledPool:
        return pool

    engine = Engine(
        CampaignOptions(
            target=load_target(PLANTED),
            out_dir=tmp_path,
            seed=3,
            max_execs=execs,
            stability_check=False,
            **options,  # type: ignore[arg-type]
        ),
        catalog=ArmCatalog(files=()),
        pool_factory=factory,
    )
    list(engine.run())
    return [request.size_scale for request in pool.sent]


def test_a_campaign_starts_small_and_its_requests_carry_the_grown_scale(tmp_path: Path) -> None:
    execs = 2 + STALL_EXECS + 2 * STALL_EXECS + 5
    scales = _campaign(tmp_path, execs)
    assert len(scales) == execs
    first, second = 1 + STALL_EXECS, 1 + 3 * STALL_EXECS  # after one new input, the stalls
    assert set(scales[:first]) == {LEVELS[0]}
    assert set(scales[first:second]) == {LEVELS[1]}
    assert set(scales[second:]) == {1.0}


def test_cost_campaigns_and_an_unscheduled_campaign_keep_the_full_scale(tmp_path: Path) -> None:
    assert set(_campaign(tmp_path / "off", 20, size_schedule=False)) == {1.0}
    assert set(_campaign(tmp_path / "cost", 20, objective=Objective.COST)) == {1.0}
