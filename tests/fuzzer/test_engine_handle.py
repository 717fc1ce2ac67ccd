"""`Engine._handle` driven by a scripted pool: saving, failure dedup, hit counts and
provenance, the re-run of new failures (flaky ones apart), with no worker process and no
emulator."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.confirmation import MAX_FLAKY_RERUNS, MAX_SHAPES_PER_SITE
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.entries import Provenance, Tag, TagKind
from lambdafuzz.fuzzer.events import CampaignFinished, NewCoverage, NewFailure, Notice, StopReason
from lambdafuzz.fuzzer.mutation import Mutation
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.generators.core import Choices
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerInfo, WorkerSpec
from lambdafuzz.model.outcome import OTHER, FailureInfo, Status
from tests.fuzzer.pool_doubles import PoolDouble

PLANTED = Path(__file__).parent / "planted"
ARM_A = ("planted/handler.py", 10, 12)
ARM_B = ("planted/handler.py", 10, 14)
BOOM = FailureInfo("KeyError", "'id'", "Traceback ...", "planted/handler.py:20")


def _recording(seed: int):
    choices = Choices(seed=seed)
    choices.draw_integer(0, 100)
    return choices.recording()


class ScriptedPool(PoolDouble):
    """Answers requests in order with the scripted results; records what it was sent.
    A re-run answers from `reruns` when given, else with the same result again."""

    def __init__(self, results: list[TestResult], reruns: list[TestResult] | None = None) -> None:
        self.results = list(results)
        self.reruns = reruns
        self.sent: list[TestRequest] = []
        self.rerun_requests: list[TestRequest] = []
        self.recycled: list[TestRequest] = []
        self._last: dict[int, TestResult] = {}
        self.info = WorkerInfo(pid=0, app_arms_total=8, import_coverage={})
        self.restarts = 0
        self.closed = False

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        for request in requests:
            self.sent.append(request)
            result = self.results.pop(0)
            self._last[id(request)] = result
            yield request, result

    def recycle(self, request: TestRequest) -> None:
        self.recycled.append(request)

    def rerun(self, request: TestRequest) -> TestResult:
        self.rerun_requests.append(request)
        if self.reruns is None:
            return self._last[id(request)]
        return self.reruns.pop(0)

    def close(self) -> None:
        self.closed = True


def _engine(
    tmp_path: Path, results: list[TestResult], reruns: list[TestResult] | None = None
) -> tuple[Engine, ScriptedPool]:
    pool = ScriptedPool(results, reruns)
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
    assert pool.rerun_requests == [pool.sent[3]]  # only the new signature was re-run
    stats = finished.stats
    assert (stats.execs, stats.valid_execs, stats.corpus_size) == (5, 2, 2)
    assert (stats.failure_reruns, stats.flaky_failures, stats.stability_pct) == (1, 0, 100.0)
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


def _failing(seed: int, info: FailureInfo = BOOM, status: Status = Status.FAILURE) -> TestResult:
    return TestResult(status, _recording(seed), {ARM_A: 0}, failure=info)


def test_a_failure_that_does_not_reproduce_is_flaky_never_a_failure(tmp_path):
    results = [TestResult(Status.VALID, _recording(1), {ARM_A: 0}), _failing(2), _failing(3)]
    valid_again = TestResult(Status.VALID, _recording(2), {ARM_A: 0}, return_value="'ok'")
    engine, pool = _engine(tmp_path, results, reruns=[valid_again, valid_again])
    events = list(engine.run())
    assert not [e for e in events if isinstance(e, NewFailure)]
    notices = [e for e in events if isinstance(e, Notice) and e.slug == "flaky-failure"]
    assert len(notices) == 2 and "VALID" in notices[0].message
    assert len(pool.rerun_requests) == 2  # a flaky signature is re-run again for new inputs
    assert pool.recycled == pool.rerun_requests  # and the worker that re-ran it replaced
    stats = events[-1].stats
    assert (stats.unique_failures, stats.failure_hits) == (0, 0)
    assert (stats.flaky_failures, stats.flaky_hits, stats.failure_reruns) == (1, 2, 2)
    assert stats.stability_pct == 0.0
    out = OutDir(tmp_path)
    assert out.read().failures == ()  # nothing in failures/: no regression test, exit 0
    (path,) = (tmp_path / "flaky").iterdir()
    record = json.loads(path.read_text())
    assert record["outcome"] == "FAILURE" and record["seed"] == pool.sent[1].seed
    failure = record["failure"]
    assert failure["flaky"] is True and failure["reruns"] == 2 and failure["hits"] == 2
    assert failure["signature"] == BOOM.signature
    assert failure["rerun"]["status"] == "VALID" and failure["rerun"]["return_value"] == "'ok'"


def test_a_flaky_signature_is_rechecked_a_few_times_then_only_counted(tmp_path):
    results = [_failing(i) for i in range(MAX_FLAKY_RERUNS + 3)]
    valid = TestResult(Status.VALID, _recording(0), {ARM_A: 0})
    reruns = [valid] * MAX_FLAKY_RERUNS
    engine, pool = _engine(tmp_path, results, reruns=reruns)
    stats = list(engine.run())[-1].stats
    assert len(pool.rerun_requests) == MAX_FLAKY_RERUNS
    assert (stats.unique_failures, stats.flaky_failures) == (0, 1)
    assert stats.flaky_hits == len(results)


def test_every_recurrence_of_a_known_flaky_signature_replaces_its_worker(tmp_path):
    """Past the re-runs too (issue 39): the worker a flaky signature recurs in is what makes
    tests fail; it is replaced at once, without another re-run."""
    results = [_failing(i) for i in range(MAX_FLAKY_RERUNS + 3)]
    valid = TestResult(Status.VALID, _recording(0), {ARM_A: 0})
    engine, pool = _engine(tmp_path, results, reruns=[valid] * MAX_FLAKY_RERUNS)
    list(engine.run())
    assert len(pool.rerun_requests) == MAX_FLAKY_RERUNS
    assert pool.recycled == pool.sent  # each failing test's worker, once


def test_a_real_bug_sharing_a_flaky_signature_still_becomes_a_failure(tmp_path):
    results = [_failing(1), _failing(2), _failing(3)]
    valid = TestResult(Status.VALID, _recording(1), {ARM_A: 0})
    engine, pool = _engine(tmp_path, results, reruns=[valid, _failing(2)])
    events = list(engine.run())
    (new,) = [e for e in events if isinstance(e, NewFailure)]
    assert new.record.signature == BOOM.signature and new.record.rerun.status == "FAILURE"
    assert new.record.hits == 2  # the third input: a hit, no re-run
    assert len(pool.rerun_requests) == 2
    stats = events[-1].stats
    assert (stats.unique_failures, stats.flaky_failures) == (1, 1)


def test_a_rerun_that_fails_differently_is_flaky(tmp_path):
    other = FailureInfo("WorkerDied", "worker died", "", "", detail="SIGKILL")
    results = [_failing(1, other)]
    engine, _ = _engine(tmp_path, results, reruns=[_failing(1)])
    stats = list(engine.run())[-1].stats
    assert (stats.unique_failures, stats.flaky_failures) == (0, 1)
    (path,) = (tmp_path / "flaky").iterdir()
    assert path.name.startswith("WorkerDied-SIGKILL-at-")
    assert json.loads(path.read_text())["failure"]["rerun"]["signature"] == BOOM.signature


def test_message_shapes_and_causes_keep_failures_of_one_line_apart(tmp_path):
    def at_line(message: str, cause: str = "") -> FailureInfo:
        from lambdafuzz.model.outcome import message_shape

        return FailureInfo(
            "ValueError", message, "", "planted/handler.py:30", cause, shape=message_shape(message)
        )

    infos = [
        at_line("invalid literal for int() with base 10: 'abc'"),
        at_line("invalid literal for int() with base 10: 'xyz'"),  # same shape
        at_line("could not convert string to float: 'abc'"),
        at_line("invalid literal for int() with base 10: 'abc'", cause="KeyError"),
    ]
    engine, _ = _engine(tmp_path, [_failing(i, info) for i, info in enumerate(infos)])
    list(engine.run())
    assert sorted(engine.failures) == [
        "ValueError at planted/handler.py:30 (from KeyError): "
        "invalid literal for int() with base #: '…'",
        "ValueError at planted/handler.py:30: could not convert string to float: '…'",
        "ValueError at planted/handler.py:30: invalid literal for int() with base #: '…'",
    ]


def test_too_many_shapes_at_one_site_are_keyed_together(tmp_path):
    infos = [
        FailureInfo("ValueError", f"bad {w}", "", "planted/handler.py:9", shape=f"bad {w}")
        for w in (
            [
                "alpha",
                "beta",
                "gamma",
                "delta",
                "epsilon",
                "zeta",
                "eta",
                "theta",
                "iota",
                "kappa",
                "lambda",
                "mu",
            ]
        )
    ]
    results = [_failing(i, info) for i, info in enumerate(infos)]
    engine, _ = _engine(tmp_path, results)
    list(engine.run())
    assert len(engine.failures) == MAX_SHAPES_PER_SITE + 1
    other = engine.failures[f"ValueError at planted/handler.py:9: {OTHER}"]
    assert other.hits == len(infos) - MAX_SHAPES_PER_SITE


def test_plot_rows_start_at_the_origin_and_step_at_every_new_coverage(tmp_path):
    results = [
        TestResult(Status.VALID, _recording(1), {ARM_A: 0}),
        TestResult(Status.VALID, _recording(2), {ARM_A: 0}),
        TestResult(Status.INVALID, _recording(3), {ARM_A: 0, ARM_B: 1}),
    ]
    engine, _pool = _engine(tmp_path, results)
    list(engine.run())
    rows = OutDir(tmp_path).read_plot_rows()
    assert (rows[0].time_s, rows[0].execs, rows[0].branches) == (0.0, 0, 0)  # the origin
    # one row where each saved input grew coverage, then the final report
    assert [(r.execs, r.branches) for r in rows[1:3]] == [(1, 1), (3, 2)]
    assert rows[-1].execs == 3


def test_message_shape_masks_a_quoted_value_that_holds_quotes_as_one_value():
    from lambdafuzz.model.outcome import message_shape

    # what `int(value)` says for generated strings: repr escapes the quotes inside them
    plain = message_shape("invalid literal for int() with base 10: 'oyh'")
    for value in ["Sef€!!\"><id crw='\"umb@h2' items='HRP", "7Æ\">s'", "a\\b'c"]:
        assert message_shape(f"invalid literal for int() with base 10: {value!r}") == plain
    assert plain == "invalid literal for int() with base #: '…'"


class _LateRerun:
    """A background re-run that answers only when the campaign waits for it (its end)."""

    def __init__(self, result: TestResult, *, answered: bool) -> None:
        self._result, self.answered = result, answered

    def done(self) -> bool:
        return self.answered

    def result(self) -> TestResult:
        return self._result


class _BackgroundPool(ScriptedPool):
    def __init__(self, results: list[TestResult], *, answered: bool) -> None:
        super().__init__(results)
        self.answered = answered

    def rerun_later(self, request: TestRequest) -> _LateRerun:
        self.rerun_requests.append(request)
        return _LateRerun(self._last[id(request)], answered=self.answered)


def _sized(seed: int, draws: int) -> TestResult:
    choices = Choices(seed=seed)
    for _ in range(draws):
        choices.draw_integer(0, 100)
    return TestResult(Status.FAILURE, choices.recording(), {ARM_A: 0}, failure=BOOM)


def test_when_a_background_rerun_answers_does_not_change_what_is_saved(tmp_path):
    # a new failure, then a smaller input of its signature while its re-run runs: saved
    # is the smaller one whether the answer came at once or only at the campaign's end
    saved = {}
    for answered in (True, False):
        results = [_sized(1, 6), _sized(2, 2), _sized(3, 4)]
        pool = _BackgroundPool(results, answered=answered)
        options = CampaignOptions(
            target=load_target(PLANTED),
            out_dir=tmp_path / str(answered),
            seed=5,
            max_execs=len(results),
            stability_check=False,
        )
        engine = Engine(
            options, catalog=ArmCatalog(files=()), pool_factory=lambda s, w, pool=pool: pool
        )
        events = list(engine.run())
        assert len([e for e in events if isinstance(e, NewFailure)]) == 1
        (entry,) = OutDir(tmp_path / str(answered)).read().failures
        assert entry.hits == 3 and len(pool.rerun_requests) == 1
        saved[answered] = entry.saved.seed
    assert saved[True] == saved[False] == pool.sent[1].seed
