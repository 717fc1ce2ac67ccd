"""`Engine._handle` driven by a scripted pool: saving, failure dedup, hit counts and
provenance, with no worker process and no emulator."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.engine import (
    CampaignFinished,
    Engine,
    NewCoverage,
    NewFailure,
    Provenance,
    StopReason,
    Tag,
    TagKind,
)
from lambdafuzz.fuzzer.mutation import Mutation
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.generators.core import Choices
from lambdafuzz.harness.arm_catalog import ArmCatalog
from lambdafuzz.harness.worker import TestRequest, TestResult, WorkerInfo, WorkerSpec
from lambdafuzz.model.outcome import FailureInfo, Status

PLANTED = Path(__file__).parent / "planted"
ARM_A = ("planted/handler.py", 10, 12)
ARM_B = ("planted/handler.py", 10, 14)
BOOM = FailureInfo("KeyError", "'id'", "Traceback ...", "planted/handler.py:20")


def _recording(seed: int):
    choices = Choices(seed=seed)
    choices.draw_integer(0, 100)
    return choices.recording()


class ScriptedPool:
    """Answers requests in order with the scripted results; records what it was sent."""

    def __init__(self, results: list[TestResult]) -> None:
        self.results = list(results)
        self.sent: list[TestRequest] = []
        self.info = WorkerInfo(pid=0, app_arms_total=8, import_coverage={})
        self.restarts = 0
        self.closed = False

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        for request in requests:
            self.sent.append(request)
            yield request, self.results.pop(0)

    def close(self) -> None:
        self.closed = True


def _engine(tmp_path: Path, results: list[TestResult]) -> tuple[Engine, ScriptedPool]:
    pool = ScriptedPool(results)
    options = CampaignOptions(
        target=load_target(PLANTED),
        out_dir=tmp_path,
        seed=5,
        max_execs=len(results),
        stability_check=False,
    )

    def factory(spec: WorkerSpec, workers: int) -> ScriptedPool:
        assert workers == 1 and spec.app_arms_total == 0
        return pool

    return Engine(options, catalog=ArmCatalog(files=()), pool_factory=factory), pool


def test_handle_saves_new_coverage_and_deduplicates_failures(tmp_path):
    results = [
        TestResult(Status.VALID, _recording(1), {ARM_A: 0}),
        TestResult(Status.VALID, _recording(2), {ARM_A: 0}),  # nothing new: not saved
        TestResult(Status.INVALID, _recording(3), {ARM_A: 0, ARM_B: 1}),  # new arm
        TestResult(Status.FAILURE, _recording(4), {ARM_A: 0}, failure=BOOM),
        TestResult(Status.FAILURE, _recording(5), {ARM_A: 0}, failure=BOOM),  # same failure
    ]
    engine, pool = _engine(tmp_path, results)
    events = list(engine.run())
    finished = events[-1]
    assert isinstance(finished, CampaignFinished)
    assert finished.stop_reason is StopReason.BUDGET
    assert pool.closed and len(pool.sent) == 5
    assert all(not hasattr(r, "tag") for r in pool.sent)  # bookkeeping stays in the campaign
    assert not engine._tags  # every tag was consumed by its result
    saved = [e for e in events if isinstance(e, NewCoverage)]
    assert [e.provenance for e in saved] == ["fresh +cov +valid", "src:0 +cov"]
    failures = [e for e in events if isinstance(e, NewFailure)]
    assert len(failures) == 1 and failures[0].record.hits == 2
    stats = finished.stats
    assert (stats.execs, stats.valid_execs, stats.corpus_size) == (5, 2, 2)
    assert (stats.app_branches_covered, stats.valid_branches_covered) == (2, 1)
    out = OutDir(tmp_path).read()
    (entry,) = out.failures
    assert entry.hits == 2 and entry.location == "planted/handler.py:20"
    assert entry.saved.provenance == "src:0"  # a child of the first saved input, no +hits
    assert out.stats == stats
    assert out.meta is not None and out.meta.seed == 5


def test_provenance_text_for_every_tag_kind():
    child = Tag(TagKind.CHILD, parent=3, mutation=Mutation({}, targeted="csv.row"))
    assert (
        str(Provenance(child, new_arms=True, new_valid=True))
        == "src:3 targeted:csv.row +cov +valid"
    )
    assert str(Provenance(Tag(TagKind.SEED, source="corpus.prev0/id-000001"))) == (
        "seed:corpus.prev0/id-000001 +hits"
    )
    assert str(Provenance(Tag(TagKind.FRESH), failure=True)) == "fresh"
