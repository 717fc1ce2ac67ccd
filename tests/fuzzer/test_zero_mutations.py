"""Zero mutations (children that read exactly their parent's values) are generated but not
run; skipping them must not change which inputs a seeded campaign saves, only how many
executions it takes to get there.

The comparison: a campaign with skipping on and a budget of N executions skips k children;
the same seed with skipping off and a budget of N + k executions makes the same children in
the same order (children and seeds come from the engine's RNG either way) and runs the k
zero mutations too.  The two must send the same requests, save the same inputs (names,
values, seeds, outcomes, provenance) and find the same failures; each saved input's
execution number differs by exactly the zero mutations run before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from lambdafuzz.config import load_config, load_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.corpus import iter_inputs
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.entries import ChildTested
from lambdafuzz.fuzzer.events import CampaignFinished
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import ChoiceSequence, ReplayMode, UnsatisfiedAssumption
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog
from lambdafuzz.harness.process.protocol import (
    TestRequest,
    TestResult,
    WorkerInfo,
    WorkerSpec,
    choices_for,
    input_digest,
    values_digest,
)
from lambdafuzz.model.outcome import Status
from lambdafuzz.report.status import summary
from tests.fuzzer.pool_doubles import PoolDouble

PLANTED = Path(__file__).parent / "planted"


class GeneratingPool(PoolDouble):
    """A worker without a process or an emulator: it generates every input exactly as a
    worker does (and answers zero mutations as a worker does), and its "handler" is a pure
    function of the values read, so campaigns are deterministic and fast."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.sent: list[TestRequest] = []
        self.info = WorkerInfo(pid=0, app_arms_total=64, import_coverage={})
        self.restarts = 0

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        for request in requests:
            self.sent.append(request)
            yield request, self.run(request)

    def run(self, request: TestRequest) -> TestResult:
        choices = choices_for(self.spec, request)
        try:
            generated = generate_input(choices, self.spec.target)
        except UnsatisfiedAssumption:
            return TestResult(Status.INVALID, choices.recording(), {})
        digest = input_digest(generated)
        if request.parent_digest == digest:
            return TestResult(
                Status.VALID, ChoiceSequence(()), {}, identical=True, input_digest=digest
            )
        # a "handler" of the input: 48 arms, three hit-count buckets, so inputs keep being
        # saved for a few hundred tests
        coverage = {("fake.py", digest[0] % 48, 0): digest[1] % 3}
        status = Status.INVALID if digest[2] % 5 == 0 else Status.VALID
        return TestResult(status, choices.recording(), coverage, input_digest=digest)

    def rerun(self, request: TestRequest) -> TestResult:
        return self.run(request)

    def close(self) -> None:
        pass


Child = tuple[int, ChildTested]  # (the campaign's executions when it was told, the child)


def _observe(engine: Engine) -> list[Child]:
    children: list[Child] = []
    engine.child_observer = lambda tested: children.append((engine.tally.execs, tested))
    return children


def _fake_campaign(
    out: Path, *, execs: int, skip: bool, mode: ReplayMode, change: bool = False
) -> tuple[Engine, GeneratingPool, list[Child]]:
    """`change`: the engine's default mutated draws; False (Zest's plain fresh draws) makes
    the zero mutations the skipping tests need."""
    options = CampaignOptions(
        target=load_target(PLANTED),
        out_dir=out,
        seed=11,
        max_execs=execs,
        mode=mode,
        stability_check=False,
        change_mutated_draws=change,
        # full sizes throughout, as when these counts were measured: the size schedule
        # moves which draws a seeded campaign makes, and the bounds below are tight
        size_schedule=False,
    )
    pools: list[GeneratingPool] = []

    def factory(spec: WorkerSpec, workers: int) -> GeneratingPool:
        pools.append(GeneratingPool(spec))
        return pools[-1]

    engine = Engine(
        options, catalog=ArmCatalog(files=()), pool_factory=factory, skip_zero_mutations=skip
    )
    children = _observe(engine)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    return engine, pools[0], children


def _saved(out: Path) -> dict[str, tuple]:
    """Every input in corpus/ by name: what defines it, and its execution number."""
    saved = {}
    for item in iter_inputs(out / "corpus"):
        assert not isinstance(item, Exception), item
        defined = (item.seed, item.sequence.values(), item.outcome, item.provenance)
        saved[item.name] = (defined, item.extra["exec"])
    return saved


def _zero_runs(children: list[Child]) -> list[int]:
    """Indices of the children of a skipping-off campaign that repeated their parent's
    values (the zero mutations it ran)."""
    return [
        i
        for i, (_, c) in enumerate(children)
        if not c.skipped and c.result.input_digest == c.parent.digest
    ]


def _assert_same_campaign(
    on_out: Path, off_out: Path, on_children: list[Child], off_children: list[Child]
) -> None:
    """Skipping on and off made the same children, skipped exactly the zero mutations the
    other ran, and saved the same inputs and failures; an input saved at execution e with
    skipping off was saved at e minus the zero mutations run before it with skipping on."""
    assert len(on_children) == len(off_children)
    zero = _zero_runs(off_children)
    assert zero == [i for i, (_, c) in enumerate(on_children) if c.skipped]
    assert all(not off_children[i][1].saved for i in zero)
    zero_at = [off_children[i][0] for i in zero]
    on_saved, off_saved = _saved(on_out), _saved(off_out)
    assert on_saved.keys() == off_saved.keys()
    for name, (defined, off_exec) in off_saved.items():
        assert on_saved[name][0] == defined, name
        assert on_saved[name][1] == off_exec - sum(1 for e in zero_at if e < off_exec), name
    on_failures = [f.signature for f in OutDir(on_out).read().failures]
    off_failures = [f.signature for f in OutDir(off_out).read().failures]
    assert on_failures == off_failures


SKIPPING_BUDGET = 300
SkippingRun = tuple[Path, Engine, GeneratingPool, list[Child]]


@pytest.fixture(scope="module")
def skipping_run(tmp_path_factory) -> Callable[[ReplayMode], SkippingRun]:
    """The skipping-on campaign of a mode (SKIPPING_BUDGET executions), made once: the
    comparison and the stats test only read it (a second one cost ~3 s)."""
    made: dict[ReplayMode, SkippingRun] = {}

    def run(mode: ReplayMode) -> SkippingRun:
        if mode not in made:
            out = tmp_path_factory.mktemp(f"on-{mode}")
            made[mode] = (out, *_fake_campaign(out, execs=SKIPPING_BUDGET, skip=True, mode=mode))
        return made[mode]

    return run


def test_skipping_zero_mutations_saves_the_same_inputs(tmp_path, skipping_run):
    for mode in (ReplayMode.LINEAR, ReplayMode.EXECUTION_INDEXED):
        budget = SKIPPING_BUDGET
        on_out, on, on_pool, on_children = skipping_run(mode)
        skipped = on.tally.zero_mutations_skipped
        assert skipped > 0, f"{mode}: no zero mutation in {budget} executions"
        assert on.tally.execs == budget and len(on_pool.sent) == budget + skipped
        off, off_pool, off_children = _fake_campaign(
            tmp_path / f"off-{mode}", execs=budget + skipped, skip=False, mode=mode
        )
        assert off.tally.zero_mutations_skipped == 0 and off.tally.execs == budget + skipped
        # the same requests in the same order; only the zero-mutation check differs
        assert [(r.seed, r.prefix) for r in on_pool.sent] == [
            (r.seed, r.prefix) for r in off_pool.sent
        ]
        assert all(r.parent_digest is None for r in off_pool.sent)
        assert len(on.queue) > 20  # the campaigns went on saving inputs
        _assert_same_campaign(on_out, tmp_path / f"off-{mode}", on_children, off_children)


def test_stats_and_summary_count_the_skipped(skipping_run):
    out, engine, _, children = skipping_run(ReplayMode.LINEAR)
    skipped = engine.tally.zero_mutations_skipped
    assert skipped > 0
    stats = OutDir(out).read().stats
    assert stats is not None
    assert stats.zero_mutations_skipped == skipped and stats.execs == SKIPPING_BUDGET
    skipped_children = [c for _, c in children if c.skipped]
    assert len(skipped_children) == skipped
    assert all(c.result.identical and not c.saved for c in skipped_children)
    finished = CampaignFinished(stats, out, engine.stop_reason)
    line = next(x for x in summary(finished).splitlines() if "zero mutations" in x)
    assert f"{skipped} children identical to their parent skipped" in line


def test_a_real_worker_skips_zero_mutations_and_the_corpus_is_unchanged(tmp_path):
    """The worker path end to end (planted lambda, linear replay): the worker reports zero
    mutations without running their handler, and a seeded campaign saves the same inputs
    with skipping on and off."""
    target = load_config(PLANTED)
    mode = ReplayMode.LINEAR
    on_out, off_out = tmp_path / "on", tmp_path / "off"
    plain = {"strategy": "zest", "seed": 3, "mode": mode, "change_mutated_draws": False}
    on = build_engine(target, out_dir=on_out, max_execs=150, **plain)
    on_children = _observe(on)
    finished = list(on.run())[-1]
    assert isinstance(finished, CampaignFinished)
    skipped = finished.stats.zero_mutations_skipped
    assert skipped > 0 and finished.stats.execs == 150
    for _, child in on_children:
        if child.skipped:
            assert child.result.identical and child.result.timings.handler_s == 0
    off = build_engine(target, out_dir=off_out, max_execs=150 + skipped, **plain)
    off.skip_zero_mutations = False
    off_children = _observe(off)
    list(off.run())
    _assert_same_campaign(on_out, off_out, on_children, off_children)


@pytest.mark.parametrize("mode", list(ReplayMode))
def test_changed_mutated_draws_make_almost_no_zero_mutations(tmp_path, mode):
    """The engine's default: a mutated draw takes a value other than the parent's, so the
    children that were zero mutations under Zest's plain draws become real changes."""
    plain, _, _ = _fake_campaign(tmp_path / "plain", execs=600, skip=True, mode=mode)
    changed, _, children = _fake_campaign(
        tmp_path / "changed", execs=600, skip=True, mode=mode, change=True
    )
    assert plain.tally.zero_mutations_skipped >= 10
    assert changed.tally.zero_mutations_skipped <= plain.tally.zero_mutations_skipped // 10
    assert len(children) > 500  # the same campaign length, nearly all of it children


def test_other_values_that_make_the_same_input_are_a_zero_mutation_for_a_real_worker():
    """A weighted draw's float moved within its option's share makes another recording of
    the same world and event: the worker answers `identical` (values alone would not)."""
    from lambdafuzz.generators.core import Choices
    from lambdafuzz.harness.process.protocol import WorkerSpec
    from lambdafuzz.harness.process.worker import Worker

    target = load_target(PLANTED)
    parent = Choices(seed=5)
    generated = generate_input(parent, target)
    values = parent.recording().values()
    (index,) = [
        i
        for i, c in enumerate(parent.recording().choices)
        if "created-by" in str(c.ei) and c.kind.value == "float"
    ]
    assert values[index] < 0.9  # "Put": 90% of the float's range
    values[index] = 0.45 if values[index] > 0.5 else 0.55  # still "Put"
    child = Choices(values, seed=5)
    assert input_digest(generate_input(child, target)) == input_digest(generated)
    assert values_digest(child.choices) != values_digest(parent.choices)
    worker = Worker(WorkerSpec(target=target))
    try:
        saved = worker.run(TestRequest(parent.recording().values(), 5, ReplayMode.LINEAR))
        assert saved.input_digest == input_digest(generated) and not saved.identical
        result = worker.run(
            TestRequest(values, 5, ReplayMode.LINEAR, parent_digest=saved.input_digest)
        )
        assert result.identical and result.timings.handler_s == 0
    finally:
        worker.close()


class LookaheadPool(GeneratingPool):
    """Takes the whole stream of tests before it answers any (as Ray's batches and several
    workers take some ahead), and answers the last of its first stream as a zero mutation."""

    gave_back = False

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        taken = list(requests)
        self.sent += taken
        for i, request in enumerate(taken):
            if i == len(taken) - 1 and not self.gave_back:
                self.gave_back = True
                yield request, TestResult(Status.VALID, ChoiceSequence(()), {}, identical=True)
            else:
                yield request, self.run(request)


def test_zero_mutations_answered_after_the_stream_ended_give_their_budget_back(tmp_path):
    """A pool that takes tests ahead can answer zero mutations after the engine's stream
    of tests has ended; the budget they gave back is still run."""
    options = CampaignOptions(
        target=load_target(PLANTED),
        out_dir=tmp_path / "out",
        seed=11,
        max_execs=150,
        mode=ReplayMode.LINEAR,
        stability_check=False,
        change_mutated_draws=False,  # plain draws: many zero mutations
    )
    pools: list[LookaheadPool] = []

    def factory(spec: WorkerSpec, workers: int) -> LookaheadPool:
        pools.append(LookaheadPool(spec))
        return pools[-1]

    engine = Engine(options, catalog=ArmCatalog(files=()), pool_factory=factory)
    list(engine.run())
    assert engine.tally.zero_mutations_skipped > 0
    assert engine.tally.execs == 150
