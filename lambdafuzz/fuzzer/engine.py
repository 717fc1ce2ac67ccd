"""The Zest loop: pick a parent, mutate its choice sequence, keep what covers something new.

Every execution goes through `Engine._handle`, which updates coverage, the queue, failure
deduplication and statistics, and yields typed events.  The engine never prints and never
exits; the command line and reports subscribe to its events.

Algorithm and constants follow JQF's Zest (thesis Alg. 7): the queue is walked
round-robin; a parent gets 50 x (its coverage / the best coverage) children, x20 when it is
favored (first to cover some branch arm); an input is saved when it covers a new arm, a new
hit-count bucket of an arm, or a new arm among VALID inputs.  Unlike Zest, a failing
input that covers a new arm joins the queue too (marked `failing`, `+failing` in its
provenance): an early bug that fails nearly every input would otherwise leave the queue
empty and the campaign generating at random.  It is saved in failures/ exactly as before.

Exceptions the application catches (`harness.handled`) are deduplicated by signature like
failures and saved in handled/ (`_handled`); they do not change a test's status.

The cost objective (`fuzzer/cost.py`) runs beside it: an input that raises a cost maximum
(an arm's hit count, the duration, AWS calls, bytes sent, memory) is kept in a separate
cost queue whose entries get `cost_share` of the children (all of them with
`--objective cost`), and an input past a cost budget is saved in `cost/` (`_cost`).
"""

from __future__ import annotations

import functools
import random
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lambdafuzz.errors import CorpusError
from lambdafuzz.fuzzer.batch_oracle import BatchOracle
from lambdafuzz.fuzzer.bugs import BugBook
from lambdafuzz.fuzzer.corpus import DELIVERIES_FIELD, FAILING_FIELD, SavedInput
from lambdafuzz.fuzzer.cost import (
    CONFIRM_RUNS,
    FINDING_MARGIN,
    NOISY,
    CostBudgets,
    CostFeedback,
    CostFinding,
    GrowthShare,
    describe_raised,
    median_measures,
)
from lambdafuzz.fuzzer.entries import ChildTested, Entry, Provenance, Tag, TagKind
from lambdafuzz.fuzzer.events import (
    CampaignFinished,
    CampaignStarted,
    EventT,
    NewCostFinding,
    NewCoverage,
    NewFailure,
    NewFinding,
    NewHandled,
    NewVariant,
    Notice,
    Progress,
    StopReason,
)
from lambdafuzz.fuzzer.failures import FailureRecord, RerunOutcome, failure_slug
from lambdafuzz.fuzzer.least_privilege import LeastPrivilege
from lambdafuzz.fuzzer.mutation import Mutator, RandomMutator, grow
from lambdafuzz.fuzzer.options import CampaignOptions, Objective, Strategy
from lambdafuzz.fuzzer.out_dir import EFS_DIR, CoverageRecord, CoveredArm, OutDir, PlotRow
from lambdafuzz.fuzzer.rejections import Rejections
from lambdafuzz.fuzzer.sample_seeds import sample_seeds
from lambdafuzz.fuzzer.size_schedule import SizeSchedule
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog, Scope, scan_arms
from lambdafuzz.harness.process.pool import Pool, PoolFactoryT, WorkerPool
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerSpec
from lambdafuzz.harness.process.worker import regenerated_input
from lambdafuzz.harness.sandbox.code_watch import CodeSnapshot
from lambdafuzz.model.cost import CostMeasures, Measure
from lambdafuzz.model.oracle import OracleFinding, OracleKind
from lambdafuzz.model.outcome import EmulatorGap, FailureInfo, Status
from lambdafuzz.model.redelivery import deliveries_for, redelivers
from lambdafuzz.model.target import app_dirs

NUM_CHILDREN_BASELINE = 50
NUM_CHILDREN_MULTIPLIER_FAVORED = 20
#: With a mutator that plans per parent (`frontier`'s edge plans: `plan_pending`), every
#: other child of the coverage queue goes to the newest entry whose plan is not done, at
#: most this many, so a new input's plan runs now and not a queue cycle (hundreds of
#: children per parent) later: on a quotes API the first valid body, saved at execution
#: 1520, had made 15 valid children by execution 3000, and its plan's fatal step was never
#: reached.
FRESH_CHILDREN_MAX = 400
#: Zero mutations skipped in a row that give their place in the budget to the next child;
#: past this many (a corpus whose every child repeats its parent) skips count as executions,
#: so an executions budget still ends.
MAX_ZERO_STREAK = 10_000
#: How often plot_data.csv and stats.json are rewritten.
REPORT_INTERVAL_S = 1.0
#: A flaky signature is re-run for at most this many inputs in all (one of them may be a
#: real bug that shares the signature); after that its hits are only counted.
MAX_FLAKY_RERUNS = 3
#: Distinct details/shapes kept per failure site (type, location, cause); more are keyed
#: together as `FailureInfo.generalized()` (values masking could not recognise).
MAX_SHAPES_PER_SITE = 10
#: A new failure's traceback when the worker that ran it was gone before the campaign asked
#: for it (`TestRequest.want_recording`); its re-run in a fresh worker then gives one.
NO_TRACEBACK = "(no traceback: the worker that ran the test was gone before it was asked for)"
#: Unreadable saved files listed one by one when resuming; the rest are counted.
MAX_CORRUPT_NOTICES = 20
#: Children of one cost-queue parent (PerfFuzz gives its favoured inputs a fixed energy).
COST_CHILDREN = 20
#: Under `--objective cost`, the share of a time-only cost parent's children (it holds only
#: noisy maxima, `CostFeedback.timed_only`: no count climbs with its time) that grow a few
#: of its strings (`mutation.grow`, `core.Grown`) instead of havoc.  key_router's regex,
#: whose time doubles with each letter of the key, was not climbed by havoc, which draws a
#: stem of any length (2000 executions, 1.5 s budget: cost campaign 1258 ms, coverage
#: 1120 ms; with growth: found at execution 72, then runs to the 3 s timeout).  Any other
#: cost parent grows strings and counts at `Engine.growth`'s adaptive share: csv_dedupe's
#: rows (its hits climb with their square) and cells (its time) are climbed by growth, as
#: havoc's fresh geometric row count rarely passes 30 (seeds 1-3, 600 executions: found at
#: none with havoc alone, max 34/190/469 ms; at all 3 growing half the children,
#: executions 169/63/106, max 746-1211 ms), but a fixed half cost csv_items' and
#: zip_fanout's havoc climbs (90 s planted runs: 102 and 675 calls, against 1707 and 1927
#: with havoc alone).
GROW_SHARE = 0.5
#: Re-runs that confirm a new duration or memory maximum: at most this share of the
#: executions, plus a few for the start (every maximum is new then).
COST_RERUN_SHARE = 0.01
COST_RERUN_FREE = 3
#: ... and under `--objective cost`, where climbing on durations alone needs them.
COST_RERUN_SHARE_ALONE = 0.1
#: Cost findings confirmed by re-running (durations, memory) per campaign; past this,
#: worse candidates of the noisy measures are only counted.
MAX_COST_CONFIRMS = 60


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# ------------------------------------------------------------------------------ state
@dataclass(slots=True)
class TargetingCounts:
    """Children made by targeting one type label, and how many of them were saved."""

    children: int = 0
    saved: int = 0


@dataclass(slots=True, frozen=True)
class FoundFailure:
    """A test that failed with a new signature, as it was found: what its re-run in a
    fresh worker confirms (or finds flaky)."""

    request: TestRequest
    result: TestResult
    tag: Tag
    now: float  # seconds into the campaign
    info: FailureInfo  # its failure, keyed (`Engine._keyed`)
    execs: int  # the campaign's executions when it was found
    # 1 when an execution failed; 0 when a cost re-run did (`Engine._again`: no execution)
    hits: int = 1


@dataclass(slots=True)
class PendingRerun:
    """A new failure whose re-run runs in the background: saved (or found flaky) when it
    is answered, with the hits its signature had meanwhile."""

    found: FoundFailure
    rerun: Future[TestResult]
    hits: int = 0


class Engine:
    """One campaign.  Iterate `run()` for its events."""

    def __init__(
        self,
        options: CampaignOptions,
        mutator: Mutator | None = None,
        catalog: ArmCatalog | None = None,
        pool_factory: PoolFactoryT = WorkerPool,
        *,
        skip_zero_mutations: bool = True,
    ) -> None:
        """`skip_zero_mutations`: children that read exactly their parent's values are
        not run (see `_zero_mutation`); False runs them, as the study's comparison does."""
        self.options = options
        self.skip_zero_mutations = skip_zero_mutations
        self.zero_mutations_skipped = 0
        self._zero_streak = 0
        #: called with a `ChildTested` after every child (None: nobody listens)
        self.child_observer: Callable[[ChildTested], None] | None = None
        self.out = OutDir(options.out_dir)
        self.rng = random.Random(options.seed)
        self.mutator: Mutator = mutator or RandomMutator(
            options.mode, change=options.change_mutated_draws
        )
        self.queue: list[Entry] = []
        self.seen: dict[Any, int] = {}  # arm -> bitmask of hit-count buckets seen
        self.valid_arms: set[Any] = set()
        self.corpus_arms: set[Any] = set()  # what replaying corpus/ alone reaches
        self.first_hit: dict[Any, tuple[int, float]] = {}  # arm -> (execs, seconds)
        self.responsible: dict[Any, int] = {}  # arm -> id of the first entry covering it
        # failures and handled exceptions by signature (the variants), and grouped by bug
        self.failures: dict[str, FailureRecord] = {}
        self.flaky: dict[str, FailureRecord] = {}  # did not reproduce in a fresh worker
        self.handled: dict[str, FailureRecord] = {}  # exceptions the application caught
        self.bugs = BugBook()
        self.handled_bugs = BugBook()
        # the deployment oracles' findings by kind, by signature and grouped by bug
        self.findings: dict[OracleKind, dict[str, FailureRecord]] = {k: {} for k in OracleKind}
        self.finding_bugs: dict[OracleKind, BugBook] = {k: BugBook() for k in OracleKind}
        self.batch = BatchOracle.of(options.target) if options.oracle(OracleKind.BATCH) else None
        # the share of tests delivered twice (the idempotency oracle), 0 when it is off or
        # AWS delivers this trigger's events once
        redelivered = options.oracle(OracleKind.IDEMPOTENCY) and redelivers(options.target.trigger)
        self.redelivery_share = options.redelivery_share if redelivered else 0.0
        self.redelivered = 0  # tests whose event was to be delivered twice, handler run
        policy = options.target.permissions
        self.least_privilege = (
            LeastPrivilege(policy)
            if policy is not None and options.oracle(OracleKind.PERMISSIONS)
            else None
        )
        # emulator gaps met (`harness.blame`), by key: each said once, then counted
        self.emulator_gaps: dict[str, int] = {}
        self.failure_reruns = 0
        # new failures whose re-run is still running, by signature, oldest first
        self._pending_reruns: dict[str, PendingRerun] = {}
        self.execs = 0
        self.requested = 0
        self.valid_execs = 0
        self.rejections = Rejections(app_dirs(options.target))  # what stops the others
        self.time_handler = self.time_generate = self.time_reset_load = 0.0
        self.rechecks = self.stable = 0
        self.targeting: dict[str, TargetingCounts] = {}
        self._pool_factory = pool_factory
        self._tags: dict[int, Tag] = {}  # id(request) -> its tag, while the request runs
        self.stop_requested = False
        self.stop_reason = StopReason.BUDGET
        self._pending_rechecks: deque[Entry] = deque()
        self._pending_seeds: deque[SavedInput] = deque()
        self._generator_errors = 0
        self._start = 0.0
        self._last_new = 0.0
        self._plot_rows: list[PlotRow] = []
        self._arms_total = 0
        self._catalog = catalog  # the application's arms; scanned once, on first use
        self._pool: Pool | None = None
        self._spec: WorkerSpec | None = None
        # the pool's workers keep their tests' recordings until asked (`_recorded`)
        self._withhold_recordings = False
        self._recorded_last: tuple[TestRequest, TestResult] | None = None
        self.recordings_fetched = self.recordings_regenerated = 0
        self._flaky_inputs: dict[str, SavedInput] = {}
        self._import_arms: tuple[Any, ...] = ()
        self._isolation = ""  # IsolationState.describe() of the workers
        self._resumed: dict[str, SavedInput] = {}  # corpus/ inputs being re-run, by name
        self._next_number = 0  # the next fresh corpus name is id-{this:06d}
        self._samples: set[str] = set()  # names of the sample events' seeds (seed-event-*)
        # the cost objective: maxima, the cost queue, findings past the budgets
        self.cost = CostFeedback() if options.objective.measures_cost else None
        self.cost_queue: list[Entry] = []
        self.growth = GrowthShare()  # count-holding cost parents' grown share
        self.cost_findings: dict[Measure, CostFinding] = {}
        self._cost_inputs: dict[Measure, SavedInput] = {}
        self._cost_budgets = CostBudgets.of(options)
        self._cost_confirms = 0
        self.cost_reruns = 0  # tests run again to confirm a noisy measure
        # fresh sizes start small and grow when coverage stalls; cost campaigns want big ones
        scheduled = options.size_schedule and options.objective is not Objective.COST
        self.sizes = SizeSchedule() if scheduled else SizeSchedule.full()
        # new entries whose edge plan is pending (newest last), their children so far, and
        # whether the next coverage child is theirs (see FRESH_CHILDREN_MAX)
        self._fresh: list[Entry] = []
        self._fresh_children: dict[int, int] = {}
        self._fresh_turn = False
        self._children_made = 0  # children of either queue, for `cost_share`
        self._cost_children_made = 0
        self._cost_cursor = 0

    def request_stop(self, reason: StopReason = StopReason.INTERRUPTED) -> None:
        self.stop_requested = True
        self.stop_reason = reason

    # ------------------------------------------------------------------ main loop
    def run(self) -> Iterator[EventT]:
        """The campaign's events.  The out dir is locked for as long as it runs; an out dir
        that another campaign holds, or that holds another target's campaign, raises
        `OutDirError` before anything in it changes, as does a folder or file in it that
        is a symlink (`OutDir.check_layout`)."""
        self.out.check_layout()
        lock = self.out.lock()
        try:
            yield from self._run_locked(lock.note)
        finally:
            lock.release()

    def _run_locked(self, lock_note: str | None) -> Iterator[EventT]:
        options = self.options
        notices = [Notice("lock-taken-over", lock_note)] if lock_note else []
        notices += self._load_existing()
        options = self.options  # resuming may have extended the dictionary
        self.out.write_campaign(options)
        spec = WorkerSpec(
            target=options.target,
            backend=options.backend,
            endpoint=options.endpoint,
            aws_path=options.aws_path,
            policy=options.policy,
            memory_limit_mb=options.memory_limit_mb,
            app_arms_total=self.catalog.total,
            cost=self.cost is not None,
            permissions=options.oracle(OracleKind.PERMISSIONS),
            batch=self.batch is not None,
            idempotency=self.redelivery_share > 0.0,
            # one folder per file system for the whole campaign, kept across restarts
            file_systems_dir=str(Path(options.out_dir) / EFS_DIR),
        )
        code = CodeSnapshot.take(app_dirs(options.target))  # see `_code_changes`
        pool = self._pool_factory(spec, options.workers)
        self._pool = pool
        self._spec = spec
        # the study's observer reads every child's recording, and a pool without `kept`
        # (a test double) is sent them all; Ray's `kept` gives nothing (its actors run a
        # batch ahead), so what the campaign keeps is regenerated here
        self._withhold_recordings = self.child_observer is None and pool.keeps_recordings
        pool.warm_spare()  # the first new failure's re-run need not wait for its worker
        self._arms_total = pool.info.app_arms_total
        self._start = self._last_new = time.monotonic()
        self._import_arms = tuple(pool.info.import_coverage)
        for arm, bucket in pool.info.import_coverage.items():  # module code ran at import
            self.seen[arm] = 1 << bucket
            self.first_hit[arm] = (0, 0.0)
        isolation = pool.info.isolation  # the workers' (harness/sandbox/isolation.py)
        if isolation is not None:
            self.out.write_campaign(options, isolation=isolation.to_json())
        self._isolation = isolation.describe() if isolation is not None else ""
        notices += [
            Notice("sandbox-import", f"the handler's import swallowed a refusal: {violation}")
            for violation in pool.info.import_violations
        ]
        yield CampaignStarted(
            options, self._arms_total, len(self._pending_seeds), isolation=self._isolation
        )
        yield from notices
        last_report = self._start
        try:
            while True:
                answered = False
                for request, result in pool.imap(self._requests()):
                    answered = True
                    yield from self._handle(request, result)
                    if self._pending_reruns:
                        yield from self._settle_reruns(wait=False)
                    now = time.monotonic()
                    if now - last_report >= REPORT_INTERVAL_S:
                        last_report = now
                        stats = self.stats()
                        self._write_reports(stats)
                        yield Progress(stats)
                # a pool that takes tests ahead (several workers, Ray's batches) may bring
                # back zero mutations after the stream ended: their budget is spent anew
                if not answered or not self._budget_left():
                    break
            yield from self._settle_reruns(wait=True)
            yield from self._code_changes(code, isolation)
        finally:
            pool.close()
            stats = self.stats()
            self._write_reports(stats, final=True)
        yield CampaignFinished(stats, options.out_dir, self.stop_reason, isolation=self._isolation)

    def _code_changes(self, before: CodeSnapshot, isolation: Any) -> Iterator[Notice]:
        """Where the workers could not make the code read-only (`harness/sandbox/code_watch.py`):
        what the handler changed in its app dirs, said once."""
        if getattr(isolation, "readonly_code", ()):
            return
        changed = before.changes(app_dirs(self.options.target))
        if changed:
            shown = ", ".join(changed[:10]) + (
                f" and {len(changed) - 10} more" if len(changed) > 10 else ""
            )
            yield Notice(
                "code-changed",
                f"the handler's code changed during the campaign (its folder could not be "
                f"made read-only: no mount namespace): {shown}",
            )

    def _budget_left(self) -> bool:
        if self.stop_requested:
            return False
        options = self.options
        if options.max_execs is not None and self.requested >= options.max_execs:
            return False
        elapsed = time.monotonic() - self._start
        return options.max_seconds is None or elapsed < options.max_seconds

    def _requests(self) -> Iterator[TestRequest]:
        """The stream of tests: resumed seeds, then re-checks and children, until the budget."""
        mode = self.options.mode
        while self._pending_seeds and self._budget_left():
            saved = self._pending_seeds.popleft()
            self.requested += 1
            yield self._request(
                saved.sequence.prefix(mode), saved.seed, Tag(TagKind.SEED, source=saved.name)
            )
        cursor = 0
        while self._budget_left():
            while self._pending_rechecks:
                entry = self._pending_rechecks.popleft()
                yield self._request(
                    entry.sequence.prefix(mode), entry.seed, Tag(TagKind.RECHECK, entry=entry.id)
                )
            cost_parent = self._cost_parent()
            if cost_parent is not None:
                yield from self._cost_children(cost_parent)
                continue
            if self.options.strategy is Strategy.RANDOM or not self.queue:
                self.requested += 1
                yield self._request(
                    {} if mode is ReplayMode.EXECUTION_INDEXED else [],
                    self._seed(),
                    Tag(TagKind.FRESH),
                )
                continue
            parent = self.queue[cursor % len(self.queue)]
            cursor += 1
            for _ in range(self._children_for(parent)):
                if not self._budget_left():
                    return
                while self._pending_rechecks:
                    entry = self._pending_rechecks.popleft()
                    yield self._request(
                        entry.sequence.prefix(mode),
                        entry.seed,
                        Tag(TagKind.RECHECK, entry=entry.id),
                    )
                cost_parent = self._cost_parent()  # interleaved: a parent's children are many
                if cost_parent is not None:
                    yield from self._cost_children(cost_parent)
                    if not self._budget_left():
                        return
                yield self._child(self._fresh_or(parent), TagKind.CHILD)

    def _fresh_or(self, parent: Entry) -> Entry:
        """Every other child: the newest entry whose plan is pending (FRESH_CHILDREN_MAX),
        else `parent`."""
        pending = getattr(self.mutator, "plan_pending", None)
        while self._fresh and pending is not None:
            entry = self._fresh[-1]
            made = self._fresh_children.get(entry.id, 0)
            if made >= FRESH_CHILDREN_MAX or not pending(entry.sequence):
                self._fresh.pop()
                continue
            self._fresh_turn = not self._fresh_turn
            if not self._fresh_turn:
                return parent
            self._fresh_children[entry.id] = made + 1
            return entry
        return parent

    def _cost_children(self, parent: Entry) -> Iterator[TestRequest]:
        """COST_CHILDREN mutants of a cost-queue parent (fewer when the budget ends)."""
        for _ in range(COST_CHILDREN):
            if not self._budget_left():
                return
            self._cost_children_made += 1
            yield self._child(parent, TagKind.COST)

    def _child(self, parent: Entry, kind: TagKind) -> TestRequest:
        """One mutant of `parent`, tagged as a child of the coverage or the cost queue.  A
        cost-queue child of a planning mutator is its plain havoc (`havoc`): edge plans look
        for bugs, and under `--objective cost` they took the budget that climbs a maximum
        (zip_fanout's calls stayed under the budget in 300 executions).  Under `--objective
        cost`, some grow instead: `GROW_SHARE` of a time-only parent's, its strings (one more
        piece); `growth.share` of any other cost parent's, its strings and counts (up to
        twice as many)."""
        mutation = None
        grown = None
        if (
            kind is TagKind.COST
            and self.options.objective is Objective.COST
            and self.cost is not None
        ):
            timed = self.cost.timed_only(parent.id)
            if self.rng.random() < (GROW_SHARE if timed else self.growth.share):
                mutation = grow(parent.sequence, self.rng, self.options.mode, counts=not timed)
            if not timed:
                grown = mutation is not None
        if mutation is None:
            mutator = (
                self.mutator if kind is TagKind.CHILD else getattr(self.mutator, "havoc", None)
            )
            mutation = (mutator or self.mutator).mutate(parent.sequence, self.rng)
        self.requested += 1
        self._children_made += 1
        return self._request(
            mutation.prefix,
            self._seed(),
            Tag(kind, parent.id, mutation, grown=grown),
            parent.digest if self.skip_zero_mutations and parent.digest else None,
            mutation.mode,
        )

    def _request(
        self,
        prefix: Any,
        seed: int,
        tag: Tag,
        parent_digest: bytes | None = None,
        mode: ReplayMode | None = None,
    ) -> TestRequest:
        request = TestRequest(
            prefix,
            seed,
            mode or self.options.mode,
            parent_digest=parent_digest,
            want_recording=not self._withhold_recordings,
            size_scale=self.sizes.scale,
            # by the seed alone: the engine's RNG draws nothing, a re-run delivers as often
            deliveries=deliveries_for(seed, self.redelivery_share),
        )
        self._tags[id(request)] = tag
        return request

    def _seed(self) -> int:
        return self.rng.getrandbits(63)

    def _children_for(self, parent: Entry) -> int:
        best = max(len(e.arms) for e in self.queue) or 1
        children = max(1, NUM_CHILDREN_BASELINE * len(parent.arms) // best)
        if parent.id in self._favored():
            children *= NUM_CHILDREN_MULTIPLIER_FAVORED
        return children

    def _favored(self) -> set[int]:
        return set(self.responsible.values())

    def _cost_parent(self) -> Entry | None:
        """The next cost-queue parent when the cost queue is due, else None: always under
        `--objective cost`, while its children are below `cost_share` of all children
        under `mixed`.  Parents are the entries still holding a maximum, round-robin."""
        feedback = self.cost
        if feedback is None or self.options.strategy is Strategy.RANDOM:
            return None
        if self.options.objective is not Objective.COST and (
            self._cost_children_made >= self.options.cost_share * self._children_made
        ):
            return None
        champions = feedback.champions()
        if not champions:
            return None
        entry = self.cost_queue[champions[self._cost_cursor % len(champions)]]
        self._cost_cursor += 1
        return entry

    # ------------------------------------------------------------------ one execution
    def _handle(self, request: TestRequest, result: TestResult) -> Iterator[EventT]:
        tag = self._tags.pop(id(request))
        if tag.kind is TagKind.RECHECK:
            self._recheck(tag, result)
            return
        if result.identical:
            self._zero_mutation(tag, request, result)
            return
        self._zero_streak = 0
        self.execs += 1
        timings = result.timings
        self.time_handler += timings.handler_s
        self.time_generate += timings.generate_s
        self.time_reset_load += timings.reset_load_s
        if result.generator_error:
            self._generator_errors += 1
            if self._generator_errors == 1:
                yield Notice("generator-error", f"a generator raised: {result.generator_error}")
        status = result.status
        now = time.monotonic() - self._start
        # One pass over the test's arms: new arms, new hit-count buckets, new valid arms.
        seen = self.seen
        new_arms: list[Any] = []
        new_bucket = False
        for arm, bucket in result.coverage.items():
            old = seen.get(arm, 0)
            if not old & (1 << bucket):
                if not old:
                    new_arms.append(arm)
                    self.first_hit[arm] = (self.execs, now)
                new_bucket = True
                seen[arm] = old | (1 << bucket)
        new_valid = False
        if status is Status.VALID:
            self.valid_execs += 1
            size = len(self.valid_arms)
            self.valid_arms.update(result.coverage)
            new_valid = len(self.valid_arms) > size
        else:
            self.rejections.count(result)
        self.sizes.observe(bool(new_bucket or new_valid))
        targeted = tag.mutation.targeted if tag.mutation is not None else None
        if targeted:
            self.targeting.setdefault(targeted, TargetingCounts()).children += 1
        if result.handled:
            yield from self._handled(request, result, tag, now)
        if request.deliveries > 1 and status is not Status.INVALID:
            self.redelivered += 1  # the handler ran (a second delivery follows a return)
        if result.findings:
            yield from self._findings(request, result, tag, now, result.findings)
        if self.batch is not None:
            found, notice = self.batch.check(result)
            if notice is not None:
                yield Notice("batch-ignored", notice)
            if found:
                yield from self._findings(request, result, tag, now, found)
        if result.permission_use is not None and self.least_privilege is not None:
            self.least_privilege.add(result.permission_use)
        if result.emulator_gap is not None:
            yield from self._emulator_gap(result.emulator_gap)
        if status in (Status.FAILURE, Status.HANG):
            yield from self._failure(request, result, tag, now)
            # a failure that reached a new arm is a parent too (not a hang: its children
            # would cost a timeout each); a sample seed's failure is not kept for itself
            keep = (
                status is Status.FAILURE
                and bool(new_arms)
                and self.options.objective is not Objective.COST
            )
            self.mutator.observe(tag.mutation, keep, self.seen)
            self._tell(tag, request, result, saved=keep)
            if keep:
                yield from self._keep(request, result, tag, new_arms, new_valid=False)
            return
        if self.cost is not None and result.cost is not None:
            yield from self._cost(request, result, tag, now)
        # a sample event's seed is kept whatever it covered: the project's own input
        sample = tag.kind is TagKind.SEED and tag.source in self._samples
        saved = bool(new_arms or new_bucket or new_valid or sample)
        if self.options.objective is Objective.COST:
            saved = sample  # the cost queue alone (and the project's own samples)
        self.mutator.observe(tag.mutation, saved, self.seen)
        mutation = tag.mutation
        if (
            not saved
            and status is Status.VALID
            and mutation is not None
            and mutation.opens
            and tag.parent is not None
            and self.queue[tag.parent].arms.issubset(result.coverage)
        ):
            # the new value was accepted and kept the parent's path: try its edge classes
            # (a rejected input's fields mostly never reach the code that trips on them)
            self.mutator.follow(mutation, self._recorded(request, result).recording)
        self._tell(tag, request, result, saved=saved)
        if saved:
            yield from self._keep(request, result, tag, new_arms, new_valid=new_valid)

    def _keep(
        self,
        request: TestRequest,
        result: TestResult,
        tag: Tag,
        new_arms: list[Any],
        *,
        new_valid: bool,
    ) -> Iterator[EventT]:
        """Queue and save an input that covered something new."""
        targeted = tag.mutation.targeted if tag.mutation is not None else None
        self._last_new = time.monotonic()
        result = self._recorded(request, result)
        entry = self._save(request, result, tag, new_arms=bool(new_arms), new_valid=new_valid)
        for arm in new_arms:
            self.responsible[arm] = entry.id
        if targeted:
            self.targeting[targeted].saved += 1
        if self.options.stability_check:
            self._pending_rechecks.append(entry)
        yield NewCoverage(entry.name, entry.provenance, len(self.seen))

    def _handled(
        self, request: TestRequest, result: TestResult, tag: Tag, now: float
    ) -> Iterator[EventT]:
        """Count the exceptions the application caught under their signatures; save each
        new one with its input in handled/.  No re-run in a fresh worker: the catch is
        recorded where it happened, and a test's status does not depend on it."""
        for caught in result.handled:
            info = self._keyed_handled(caught.info)
            new = self._kept(
                self.handled,
                self.handled_bugs,
                info,
                (request, result, tag, now),
                self.out.save_handled,
                caught_at=caught.caught_at,
                raised_in=caught.raised_in,
            )
            if new is not None:
                yield NewHandled(*new)

    def _findings(
        self,
        request: TestRequest,
        result: TestResult,
        tag: Tag,
        now: float,
        findings: Iterable[OracleFinding],
    ) -> Iterator[EventT]:
        """Count the deployment oracles' findings under their signatures; save each new
        one with its input in its kind's folder, as `_handled` does."""
        for finding in _distinct(findings):
            kind = finding.kind
            new = self._kept(
                self.findings[kind],
                self.finding_bugs[kind],
                finding.info,
                (request, result, tag, now),
                functools.partial(self.out.save_finding, kind),
                oracle=kind.value,
                evidence=finding.evidence,
            )
            if new is not None:
                yield NewFinding(kind, *new)

    def _kept(
        self,
        known: dict[str, FailureRecord],
        book: BugBook,
        info: FailureInfo,
        test: tuple[TestRequest, TestResult, Tag, float],
        save: Callable[[Any], Any],
        **more: Any,
    ) -> tuple[FailureRecord, str] | None:
        """A handled exception or an oracle's finding of one test (neither changes its
        status): another hit of a known signature (its input kept when smaller), or a new
        record saved with its input (`save`); the record and its bug's key when the bug
        is new."""
        request, result, tag, now = test
        signature = info.signature
        record = known.get(signature)
        if record is not None:
            record.hits += 1
            self._smaller(book, signature, request, result, tag)
            return None
        record = self._record(signature, info, result, now, **more)
        known[signature] = record
        recorded = self._recorded(request, result)
        saved = self._failure_input(request, recorded, tag, record)
        bug, new = book.add(record, saved, _size(recorded))
        save(bug)
        return (record, bug.key) if new else None

    def _emulator_gap(self, gap: EmulatorGap) -> Iterator[EventT]:
        """An exception raised inside the emulator or lambdafuzz (`harness.blame`): said
        once per kind, with what to do, then counted; never a failure of the application."""
        seen = self.emulator_gaps.get(gap.key, 0)
        self.emulator_gaps[gap.key] = seen + 1
        if not seen:
            yield Notice("emulator-gap", gap.advice)

    def _keyed_handled(self, info: FailureInfo) -> FailureInfo:
        """`info`, generalized past MAX_SHAPES_PER_SITE signatures of its site (as
        `_keyed` does for failures)."""
        if info.signature in self.handled:
            return info
        site = info.site
        known = sum(1 for r in self.handled.values() if r.info.site == site)
        return info.generalized() if known >= MAX_SHAPES_PER_SITE else info

    def _cost(
        self, request: TestRequest, result: TestResult, tag: Tag, now: float
    ) -> Iterator[EventT]:
        """The cost feedback of one test that did not fail: into the cost queue when it
        raises a maximum, into cost/ when it is past a budget (and worse than the input
        saved there)."""
        feedback = self.cost
        cost = result.cost
        assert feedback is not None and cost is not None
        raised = feedback.raises(cost, result.hit_counts)
        if any(key in NOISY for key in raised):
            # a first call through a code path (a client created, a service model loaded)
            # is slow once: a noisy maximum counts only when a second run confirms it, and
            # such re-runs stay a small share of the executions (else it does not count)
            again = None
            share = (
                COST_RERUN_SHARE_ALONE
                if self.options.objective is Objective.COST
                else (COST_RERUN_SHARE)
            )
            if self.cost_reruns < share * self.execs + COST_RERUN_FREE:
                again = yield from self._again(request, tag, now)
            if again is None or again.cost is None:
                raised = [key for key in raised if key not in NOISY]
            else:
                cost = replace(
                    cost,
                    duration_ms=min(cost.duration_ms, again.cost.duration_ms),
                    memory_kb=min(cost.memory_kb, again.cost.memory_kb),
                )
                confirmed = feedback.raises(cost, result.hit_counts)
                raised = [key for key in raised if key not in NOISY or key in confirmed]
        # Under `mixed` only exact counts choose the cost queue's parents: a duration or
        # memory maximum depends on timing, and a queue it decided would make the same
        # seed a different campaign; those maxima are still kept (and found past budgets)
        queued = raised
        if self.options.objective is not Objective.COST:
            queued = [key for key in raised if key not in NOISY]
            feedback.take([key for key in raised if key in NOISY], cost, {}, None)
        if tag.grown is not None:
            self.growth.observe(tag.grown, bool(queued))
        if queued:
            result = self._recorded(request, result)
            entry = Entry(
                id=len(self.cost_queue),
                name=f"cost-{len(self.cost_queue):06d}",
                sequence=result.recording,
                seed=request.seed,
                arms=frozenset(result.coverage),
                valid=result.status is Status.VALID,
                provenance=f"{Provenance(tag, failure=True)} {describe_raised(queued)}",
                digest=result.input_digest,
            )
            self.cost_queue.append(entry)
            feedback.take(queued, cost, result.hit_counts, entry.id)
        for measure in self._cost_budgets.exceeded(cost):
            yield from self._cost_finding(measure, request, result, tag, now, cost)

    def _cost_finding(
        self,
        measure: Measure,
        request: TestRequest,
        result: TestResult,
        tag: Tag,
        now: float,
        cost: CostMeasures,
    ) -> Iterator[EventT]:
        """Save `result` as the cost finding of `measure` when it is worse than the saved
        one.  Durations and memory are noisy: the input is run twice more in the worker that
        ran it and the median must still be past the budget (and worse)."""
        limit = self._cost_budgets.limit(measure)
        assert limit is not None
        current = self.cost_findings.get(measure)
        if current is not None:
            current.hits += 1
            if cost.value(measure) <= current.value * FINDING_MARGIN:
                return
        samples = [cost]
        if measure in NOISY:
            if self._cost_confirms >= MAX_COST_CONFIRMS:
                return
            self._cost_confirms += 1
            for _ in range(CONFIRM_RUNS - 1):
                again = yield from self._again(request, tag, now)
                if again is None or again.cost is None:
                    continue
                samples.append(again.cost)
        measures = median_measures(samples)
        value = measures.value(measure)
        if value <= limit or (current is not None and value <= current.value):
            return
        finding = CostFinding(
            measure=measure,
            value=value,
            budget=limit,
            measures=measures,
            samples=tuple(s.value(measure) for s in samples),
            first_exec=self.execs,
            first_time_s=now,
            hits=current.hits if current is not None else 1,
        )
        result = self._recorded(request, result)
        saved = SavedInput(
            name=f"cost-{measure.value}",
            sequence=result.recording,
            seed=request.seed,
            mode=request.mode,
            outcome=result.status.name,
            provenance=str(Provenance(tag, failure=True)),
            world=self._world_summary(result),
            event=result.event,
            extra={"return_value": result.return_value} if result.return_value else {},
        )
        self.cost_findings[measure] = finding
        self._cost_inputs[measure] = saved
        self.out.save_cost(finding, saved)
        yield NewCostFinding(finding)

    def _again(
        self, request: TestRequest, tag: Tag, now: float
    ) -> Generator[EventT, None, TestResult | None]:
        """Another sample of a noisy measure: `request` run again (`_run_again`).  A run
        that fails this time (its worker killed from outside, a hang that depends on load)
        is a failure seen like any other (`_failure`: re-run in a fresh worker, flaky when
        it does not fail again), and gives no sample.  It is no hit: hits count executions
        that failed, and this execution counted as valid; counted, a re-run that failed in
        the worker its own first run had poisoned gave a flaky signature more hits than
        failed executions, as often as the tests that raised a duration maximum (timing)
        were poisoning ones."""
        again = self._run_again(request)
        if again is not None and again.status >= Status.FAILURE and again.failure is not None:
            yield from self._failure(request, again, tag, now, hits=0)
            return None
        return again

    def _run_again(self, request: TestRequest) -> TestResult | None:
        """`request` once more, for another sample of a noisy measure: in the worker that
        just ran it when the pool can (`WorkerPool.run_again`), else in a fresh one."""
        assert self._pool is not None
        again = self._pool.run_again(request)
        if again is not None:
            self.cost_reruns += 1
        return again

    def _record(
        self,
        signature: str,
        info: FailureInfo,
        result: TestResult,
        now: float,
        execs: int | None = None,
        **more: Any,
    ) -> FailureRecord:
        """A new failure or handled record, first seen at execution `execs` (default: this
        one; a failure confirmed by a background re-run was seen some executions ago)."""
        return FailureRecord(
            signature=signature,
            info=info,
            status=result.status.name,
            file_name=failure_slug(signature) + ".json",
            first_exec=self.execs if execs is None else execs,
            first_time_s=now,
            **more,
        )

    def _zero_mutation(self, tag: Tag, request: TestRequest, result: TestResult) -> None:
        """A child that generated exactly its parent's input (`input_digest`: the same values,
        or other values that make the same world and event), so the worker stopped there: which is queued already and can cover nothing new
        (with a deterministic handler).  It is counted, not executed, and its place in the
        budget goes to the next child.  Children and seeds come from the engine's RNG in the
        same order whether it runs or not, so a seeded campaign saves the same inputs, each
        as many executions sooner as zero mutations were skipped before it
        (tests/fuzzer/test_zero_mutations.py).

        Where the check happens: in the worker, after it generated the child, with the
        parent's digest sent in the request.  Measured on the 8 benchmark lambdas
        (benchmarks/zero_mutations.py, 2 cores, load ~1): a child the worker reports
        identical costs the campaign 0.6-4.9 ms, of which 0.3-3.6 ms is its generation there,
        so the pipe round trip adds 0.3-1.4 ms per zero mutation; generating every child in
        the campaign first instead would add its generation, 0.3-3.7 ms, to every child
        that does run (89-100% of them), and pays off only when zero mutations outnumber
        the others (they are 0-11% of children here; BENCHMARKS.md, "Zero mutations").

        With the mutators' `Changed` markers (the default) a child whose mutated draws all
        repeat the parent's values is not made in the first place: what still arrives here
        are children whose mutated draws can take only one value, and children whose changed
        values the generators turn into the same input (a string cleaned to the same text, a
        value read but not used: 0.3-3.3% of children in the havoc study); with `change_mutated_draws=False`
        (Zest's plain fresh draws, the study's comparison) this check is what skips them."""
        self.zero_mutations_skipped += 1
        self.time_generate += result.timings.generate_s
        targeted = tag.mutation.targeted if tag.mutation is not None else None
        if targeted:
            self.targeting.setdefault(targeted, TargetingCounts()).children += 1
        self._zero_streak += 1
        if self._zero_streak <= MAX_ZERO_STREAK:
            self.requested -= 1
        self.mutator.observe(tag.mutation, False, self.seen)
        self._tell(tag, request, result, saved=False, skipped=True)

    def _tell(
        self,
        tag: Tag,
        request: TestRequest,
        result: TestResult,
        *,
        saved: bool,
        skipped: bool = False,
    ) -> None:
        """Tell the child observer, when there is one, what came of a child."""
        observer = self.child_observer
        if observer is None or tag.kind is not TagKind.CHILD or tag.parent is None:
            return
        parent = self.queue[tag.parent]
        observer(ChildTested(parent, request, result, tag.mutation, saved, skipped))

    def _recheck(self, tag: Tag, result: TestResult) -> None:
        assert tag.entry is not None
        entry = self.queue[tag.entry]  # entry ids are queue positions
        self.rechecks += 1
        if frozenset(result.coverage) == entry.arms:
            self.stable += 1

    def _save(
        self,
        request: TestRequest,
        result: TestResult,
        tag: Tag,
        *,
        new_arms: bool,
        new_valid: bool,
    ) -> Entry:
        entry_id = len(self.queue)
        failing = result.status >= Status.FAILURE
        # a resumed corpus/ input is re-saved under its name with its own choices, seed and
        # mode: under other generation settings (another strategy's edge values and
        # numbers) they replay to another recording, and writing that one would replace
        # the saved input by another; its choices replay to this run's under these settings
        resumed = self._resumed.get(tag.source) if tag.kind is TagKind.SEED else None
        name, provenance = self._entry_name(
            tag, new_arms=new_arms, new_valid=new_valid, failing=failing
        )
        entry = Entry(
            id=entry_id,
            name=name,
            sequence=result.recording,
            seed=request.seed,
            arms=frozenset(result.coverage),
            valid=result.status is Status.VALID,
            provenance=provenance,
            digest=result.input_digest,
            failing=failing,
        )
        self.queue.append(entry)
        if hasattr(self.mutator, "plan_pending"):
            self._fresh.append(entry)
        self.corpus_arms.update(entry.arms)
        saved = SavedInput(
            name=name,
            sequence=result.recording if resumed is None else resumed.sequence,
            seed=request.seed,
            mode=request.mode if resumed is None else resumed.mode,
            outcome=result.status.name,
            provenance=provenance,
            world=self._world_summary(result),
            event=result.event,
            extra={
                "arms": len(entry.arms),
                "exec": self.execs,
                "return_value": result.return_value,
                **({FAILING_FIELD: True} if failing else {}),
            },
        )
        self.out.save_corpus_input(saved)
        self._plot_point()  # the plot steps where coverage grew, not once a second
        return entry

    def _plot_point(self) -> None:
        """A row of plot_data.csv for now (written with the next report)."""
        self._plot_rows.append(
            PlotRow(
                time_s=round(time.monotonic() - self._start, 3),
                execs=self.execs,
                branches=len(self.seen),
                valid_branches=len(self.valid_arms),
                corpus=len(self.queue),
                failures=len(self.bugs),
            )
        )

    def _failure(
        self, request: TestRequest, result: TestResult, tag: Tag, now: float, *, hits: int = 1
    ) -> Iterator[EventT]:
        """Count a failure under its signature.  A new signature first re-runs once in a
        fresh worker: only a failure that fails the same way again is saved in failures/.
        One that does not (state an earlier test corrupted, a worker killed from outside, a
        hang that depended on load) is saved in flaky/ with both outcomes; a flaky
        signature is re-run for up to MAX_FLAKY_RERUNS inputs, so a real bug that shares
        it still becomes a failure.  Whenever a known flaky signature recurs, the worker it
        recurred in is replaced (its state is what makes tests fail): past the re-runs, at
        the cost of one worker start and no re-run.  `hits`: 1 for an execution, 0 for a
        cost re-run (`_again`), which is no execution."""
        assert result.failure is not None
        info = self._keyed(result.failure)
        signature = info.signature
        record = self.failures.get(signature)
        if record is not None:
            record.hits += hits
            self._smaller(self.bugs, signature, request, result, tag)
            return
        flaky = self.flaky.get(signature)
        pending = self._pending_reruns.get(signature)
        if pending is not None:
            pending.hits += hits
            if flaky is not None:
                self._recycle(request)
            return
        if flaky is not None and flaky.reruns >= MAX_FLAKY_RERUNS:
            flaky.hits += hits
            self._recycle(request)
            return
        result = self._recorded(request, result)  # with the traceback the answer left out
        assert result.failure is not None
        info = replace(info, traceback=result.failure.traceback)
        found = FoundFailure(request, result, tag, now, info, self.execs, hits)
        assert self._pool is not None
        future = self._pool.rerun_later(request)
        if future is not None:
            self.failure_reruns += 1
            self._pending_reruns[signature] = PendingRerun(found, future)
            return
        yield from self._confirm(found, flaky, self._rerun(request), hits=hits)

    def _settle_reruns(self, *, wait: bool) -> Iterator[EventT]:
        """Confirm the new failures whose background re-run has answered, oldest first
        (the order they were found in, whenever their answers came); `wait`: all of them,
        waiting for each - but a campaign stopped by a signal waits for none: a re-run not
        answered yet is saved as not re-run, and its spare killed when the pool closes."""
        pending = self._pending_reruns
        signalled = self.stop_reason in (StopReason.SIGINT, StopReason.SIGTERM)
        while pending:
            signature, first = next(iter(pending.items()))
            done = first.rerun.done()
            if not wait and not done:
                return
            del pending[signature]
            rerun = first.rerun.result() if done or not signalled else None
            flaky = self.flaky.get(signature)
            yield from self._confirm(first.found, flaky, rerun, hits=first.found.hits + first.hits)
            assert self._pool is not None
            self._pool.forget(first.found.request)

    def _confirm(
        self,
        found: FoundFailure,
        flaky: FailureRecord | None,
        rerun: TestResult | None,
        *,
        hits: int = 1,
    ) -> Iterator[EventT]:
        """Save a new failure that failed the same way in a fresh worker (or could not be
        re-run); one that did not is flaky.  `hits`: the found test's and those its
        signature had while the re-run ran."""
        request, result, tag, info = found.request, found.result, found.tag, found.info
        assert result.failure is not None
        signature = info.signature
        outcome = None
        if rerun is not None:
            outcome = RerunOutcome(
                status=rerun.status.name,
                signature=rerun.failure.signature if rerun.failure is not None else "",
                message=rerun.failure.message[:2000] if rerun.failure is not None else "",
                return_value=rerun.return_value,
            )
            reproduced = rerun.status is result.status and rerun.failure is not None
            if reproduced:
                assert rerun.failure is not None
                again = rerun.failure
                reproduced = again.signature == result.failure.signature or (
                    info is not result.failure and again.generalized().signature == signature
                )
            self.rechecks += 1
            if reproduced:
                self.stable += 1
            else:
                yield from self._flaky(found, flaky, outcome, hits)
                return
            again = rerun.failure
            if info.traceback.endswith(NO_TRACEBACK) and again is not None and again.traceback:
                info = replace(info, traceback=again.traceback)  # the re-run's answer has one
        record = self._record(
            signature,
            info,
            result,
            found.now,
            found.execs,
            hits=hits,
            reruns=0 if outcome is None else 1,
            rerun=outcome,
            world_inconsistency=result.world_inconsistency,
        )
        self.failures[signature] = record
        saved = self._failure_input(request, result, tag, record)
        bug, new = self.bugs.add(record, saved, _size(result))
        self.out.save_failure(bug)
        if new:
            yield NewFailure(record, bug.key)
        elif record.file_name == bug.file_name:  # kept as a variant (not past the limit)
            yield NewVariant(record, bug.key, len(bug.variants))

    def _smaller(
        self, book: BugBook, signature: str, request: TestRequest, result: TestResult, tag: Tag
    ) -> None:
        """Keep `result`'s input as its variant's when it is smaller (`ChoiceSequence.size`);
        the bug's file is rewritten with it at the end of the campaign."""
        variant = book.smaller(signature, _size(result))
        if variant is None:
            return
        recorded = self._recorded(request, result)
        variant.saved = self._failure_input(request, recorded, tag, variant.record)
        variant.size = _size(recorded)
        # the label names this input's missing object (a handled record never has one)
        if not variant.record.handled:
            variant.record.world_inconsistency = recorded.world_inconsistency

    def _flaky(
        self, found: FoundFailure, record: FailureRecord | None, outcome: RerunOutcome, hits: int
    ) -> Iterator[EventT]:
        request, info = found.request, found.info
        signature = info.signature
        if record is None:
            record = self._record(
                signature, info, found.result, found.now, found.execs, hits=0, flaky=True
            )
            self.flaky[signature] = record
            self._flaky_inputs[signature] = self._failure_input(
                request, found.result, found.tag, record
            )
        record.hits += hits
        record.reruns += 1
        record.rerun = outcome
        self.out.save_flaky(record, self._flaky_inputs[signature])
        # the worker it failed in is replaced: its state is what made the input fail
        self._recycle(request)
        again = outcome.signature or outcome.status
        yield Notice(
            "flaky-failure",
            f"{signature}: re-run in a fresh worker it gave {again}; saved in flaky/, "
            "not as a failure",
        )

    def _recycle(self, request: TestRequest) -> None:
        """Replace the worker that ran `request`."""
        assert self._pool is not None
        self._pool.recycle(request)

    def _rerun(self, request: TestRequest) -> TestResult | None:
        """The request run again in a fresh worker (None from a pool that cannot)."""
        assert self._pool is not None
        again = self._pool.rerun(request)
        if again is not None:
            self.failure_reruns += 1
        return again

    def _keyed(self, info: FailureInfo) -> FailureInfo:
        """`info`, generalized when its site already has MAX_SHAPES_PER_SITE signatures
        and this one is new (a value in the message that masking did not recognise)."""
        signature = info.signature
        pending = self._pending_reruns
        if signature in self.failures or signature in self.flaky or signature in pending:
            return info
        site = info.site
        known = sum(
            1 for r in (*self.failures.values(), *self.flaky.values()) if r.info.site == site
        ) + sum(1 for p in pending.values() if p.found.info.site == site)
        return info.generalized() if known >= MAX_SHAPES_PER_SITE else info

    def _failure_input(
        self, request: TestRequest, result: TestResult, tag: Tag, record: FailureRecord
    ) -> SavedInput:
        return SavedInput(
            name=record.file_name[:-5],
            sequence=result.recording,
            seed=request.seed,
            mode=request.mode,
            outcome=result.status.name,
            provenance=str(Provenance(tag, failure=True)),
            world=self._world_summary(result),
            event=result.event,
            log=result.log,  # what the handler printed and logged (the worker's tail)
            extra={
                **({"return_value": result.return_value} if result.return_value else {}),
                # replayed as it ran: its event delivered twice (`Replayer.replay`)
                **({DELIVERIES_FIELD: request.deliveries} if request.deliveries > 1 else {}),
            },
        )

    def _recorded(self, request: TestRequest, result: TestResult) -> TestResult:
        """`result` with its recording and its failure's traceback, which the worker that
        ran it keeps unless asked (`TestRequest.want_recording`); the recording regenerated
        here when the worker cannot give it.  Called right after the result came, before
        that worker gets another test."""
        if result.recording is not None:
            return result
        last = self._recorded_last
        if last is not None and last[0] is request:
            return last[1]
        assert self._pool is not None
        kept = self._pool.kept(request)
        if kept is not None:
            self.recordings_fetched += 1
        else:
            assert self._spec is not None
            self.recordings_regenerated += 1
            kept = regenerated_input(self._spec, request)
        failure = result.failure
        if failure is not None and not failure.traceback:
            text = kept.traceback or f"{failure.exception_type}: {failure.message}\n{NO_TRACEBACK}"
            failure = replace(failure, traceback=text)
        result = replace(
            result, recording=kept.recording, world_summary=kept.world, failure=failure
        )
        self._recorded_last = (request, result)
        return result

    def _world_summary(self, result: TestResult) -> Any:
        """The summary of the world `result` tested: the one its worker made when it gave
        it (`_recorded`), else regenerated from its recording."""
        if result.world_summary is not None:
            return result.world_summary
        from lambdafuzz.fuzzer.world_summary import summarize_recording

        assert result.recording is not None
        return summarize_recording(result.recording, self.options.target, self.options.policy)

    # ------------------------------------------------------------------ resume / seeds
    def _load_existing(self) -> list[Notice]:
        """Resume from the out dir: every input in corpus/ is re-run where it is and keeps
        its name (nothing is moved away, so a resume stopped at any point loses nothing);
        seed-corpus inputs follow and are saved under new names; failures (and flaky ones)
        stay known.  Another target's campaign is refused (`OutDirError`) before anything
        in the out dir changes; a resume says what it loaded (`resumed`)."""
        checked = self.out.check_target(self.options.identity())
        notices = [Notice(slug, text) for slug, text in checked]
        notices += [Notice("corpus-resume", note) for note in self.out.prepare_resume()]
        existing = self.out.read_existing(self.options.seed_corpora)
        problems = existing.problems
        if self.least_privilege is not None:  # what the earlier runs used counts on
            earlier = self.out.read_permissions([])
            if earlier is not None:
                self.least_privilege.resume(earlier)
        notices += [
            Notice("corpus-corrupt", f"skipped (kept on disk): {problem}")
            for problem in problems[:MAX_CORRUPT_NOTICES]
        ]
        if len(problems) > MAX_CORRUPT_NOTICES:
            notices.append(
                Notice(
                    "corpus-corrupt",
                    f"... and {len(problems) - MAX_CORRUPT_NOTICES} more unreadable files "
                    f"skipped (kept on disk); {len(problems)} in all",
                )
            )
        for book, known, entries in (
            (self.bugs, self.failures, existing.failures),
            (self.handled_bugs, self.handled, existing.handled),
            *((self.finding_bugs[k], self.findings[k], found) for k, found in existing.findings),
        ):
            for entry in entries:
                bug = book.load(entry.title, entry.path.name, entry.variants, entry.other_hits)
                for variant in bug.variants:
                    known[variant.signature] = variant.record
        for entry in existing.flaky:
            self.flaky[entry.signature] = entry.record
            self._flaky_inputs[entry.signature] = entry.saved
        for found in self.out.iter_cost():  # later findings must be worse to replace them
            if not isinstance(found, CorpusError):
                self.cost_findings[found.finding.measure] = found.finding
                self._cost_inputs[found.finding.measure] = found.saved
        notice = self._keep_dictionary(existing.meta)
        if notice is not None:
            notices.append(notice)
        self._resumed = {saved.name: saved for saved in existing.resumed}
        self._next_number = max(self._next_number, existing.next_number)
        resumed = set(self._resumed)
        seeds = [
            # a seed-corpus name that is also a corpus/ name must not re-save over it
            replace(s, name=f"seed-corpus/{s.name}") if s.name in resumed else s
            for s in existing.seeds
        ]
        samples, problems = sample_seeds(self.options, resumed)
        notices += [Notice("sample-event", problem) for problem in problems]
        self._samples = {saved.name for saved in samples}
        self._pending_seeds.extend((*samples, *existing.resumed, *seeds))
        loaded = self._loaded(existing)
        if loaded:
            notices.insert(len(checked), Notice("resumed", loaded))
        return notices

    def _loaded(self, existing: Any) -> str:
        """What a resume starts from, in one line ("" for a new out dir without seeds)."""
        seeds = ""
        if existing.seeds:
            folders = ", ".join(f"{p}/" for p in self.options.seed_corpora)
            seeds = f"{_count(len(existing.seeds), 'seed input')} from {folders}"
        if not existing.is_resume:
            return f"loaded {seeds}" if seeds else ""
        parts = [
            f"{_count(len(existing.resumed), 'corpus input')} (re-run first)",
            _count(len(existing.failures), "known bug"),
            f"{len(existing.flaky)} flaky",
        ]
        if existing.handled:
            parts.append(_count(len(existing.handled), "handled exception"))
        return f"resuming from {self.out.path}/: {', '.join(parts)}" + (
            f"; {seeds}" if seeds else ""
        )

    def _entry_name(
        self, tag: Tag, *, new_arms: bool, new_valid: bool, failing: bool = False
    ) -> tuple[str, str]:
        """The file name and provenance of an input to save: a resumed corpus/ input keeps
        both (its file is rewritten in place, its choices kept: `_save`); anything else
        gets the next unused name."""
        provenance = Provenance(tag, new_arms=new_arms, new_valid=new_valid, failing=failing)
        if tag.kind is TagKind.SEED:
            resumed = self._resumed.pop(tag.source, None)
            if resumed is not None:
                return resumed.name, resumed.provenance
            if tag.source in self._samples:
                return tag.source, str(provenance)
        name = f"id-{self._next_number:06d}"
        self._next_number += 1
        return name, str(provenance)

    def _keep_dictionary(self, meta: Any) -> Notice | None:
        """A dictionary draw records an index, so the saved inputs of an earlier run replay
        only with its dictionary: keep it, in order, and append this run's new constants."""
        # Each of these is drawn by index too: `generators.dates` picks a code year by its
        # index among the numbers, a JSON record draws its fields in order, a key value is
        # drawn by its index among its attribute's.  The earlier run's come first.
        earlier = getattr(meta, "policy", None)
        policy = self.options.policy
        for name in ("numbers", "fields", "key_values"):
            kept = _earlier_first(getattr(earlier, name, ()), getattr(policy, name))
            if kept is not None:
                policy = replace(policy, **{name: kept})
        old = earlier.dictionary if earlier is not None else ()
        merged = _earlier_first(old, policy.dictionary)
        if old and merged is not None:
            policy = replace(policy, dictionary=merged)
        if policy is not self.options.policy:
            self.options = replace(self.options, policy=policy)
        if not old or merged is None:
            return None
        return Notice(
            "dictionary-kept",
            f"kept the earlier run's dictionary of {len(old)} strings so its saved inputs "
            f"replay identically; {len(merged) - len(old)} new strings appended",
        )

    # ------------------------------------------------------------------ reporting
    def stats(self) -> Stats:
        elapsed = max(1e-9, time.monotonic() - self._start) if self._start else 0.0
        return Stats(
            strategy=self.options.strategy.value,
            seed=self.options.seed,
            execs=self.execs,
            valid_execs=self.valid_execs,
            elapsed_s=round(elapsed, 3),
            execs_per_sec=round(self.execs / elapsed, 2) if elapsed else 0.0,
            app_branches_total=self._arms_total,
            app_branches_covered=len(self.seen),
            valid_branches_covered=len(self.valid_arms),
            corpus_branches_covered=len(self.corpus_arms | set(self._import_arms)),
            corpus_size=len(self.queue),
            unique_failures=len(self.bugs),
            failure_variants=self.bugs.variants,
            failure_hits=self.bugs.hits,
            failure_reruns=self.failure_reruns,
            flaky_failures=len(self.flaky),
            flaky_hits=sum(r.hits for r in self.flaky.values()),
            time_in_handler_s=round(self.time_handler, 3),
            time_in_generation_s=round(self.time_generate, 3),
            time_in_reset_load_s=round(self.time_reset_load, 3),
            since_last_new_coverage_s=round(time.monotonic() - self._last_new, 1)
            if self._start
            else 0.0,
            stability_pct=round(100.0 * self.stable / self.rechecks, 1) if self.rechecks else None,
            worker_restarts=self._pool.restarts if self._pool else 0,
            workers=self.options.workers,
            targeting={
                k: {"children": v.children, "saved": v.saved}
                for k, v in sorted(self.targeting.items())
            },
            zero_mutations_skipped=self.zero_mutations_skipped,
            cost_queue=len(self.cost_queue),
            cost_reruns=self.cost_reruns,
            cost_findings=len(self.cost_findings),
            cost_maxima=self.cost.maxima() if self.cost is not None else {},
            lost_tests=self._pool.lost if self._pool else 0,
            unique_handled=len(self.handled_bugs),
            handled_variants=self.handled_bugs.variants,
            handled_hits=self.handled_bugs.hits,
            redelivered=self.redelivered,
            findings={k.value: len(b) for k, b in self.finding_bugs.items() if len(b)},
            finding_hits={k.value: b.hits for k, b in self.finding_bugs.items() if len(b)},
            emulator_gaps=dict(self.emulator_gaps),
            failing_parents=sum(1 for e in self.queue if e.failing),
            rejections=self.rejections.top(),
        )

    def _write_reports(self, stats: Stats, *, final: bool = False) -> None:
        if not self._plot_rows or self._plot_rows[0].execs:
            # the origin: what importing the handler covered, before the first test
            self._plot_rows.insert(0, PlotRow(0.0, 0, len(self._import_arms), 0, 0, 0))
        self._plot_rows.append(
            PlotRow(
                time_s=stats.elapsed_s,
                execs=stats.execs,
                branches=stats.app_branches_covered,
                valid_branches=stats.valid_branches_covered,
                corpus=stats.corpus_size,
                failures=stats.unique_failures,
            )
        )
        self.out.write_plot(self._plot_rows)
        self.out.write_stats(stats)
        if final:
            # hit counts changed since each failure was first written
            for bug in self.bugs:
                self.out.save_failure(bug)
            for signature, record in self.flaky.items():
                self.out.save_flaky(record, self._flaky_inputs[signature])
            for bug in self.handled_bugs:
                self.out.save_handled(bug)
            for kind, book in self.finding_bugs.items():
                for bug in book:
                    self.out.save_finding(kind, bug)
            if self.least_privilege is not None:
                self.out.write_permissions(self.least_privilege.report())
            for measure, finding in self.cost_findings.items():
                self.out.save_cost(finding, self._cost_inputs[measure])
            self.out.write_coverage(self.coverage())

    @property
    def catalog(self) -> ArmCatalog:
        """Every arm of the application: scanned once per campaign (build_engine passes
        the one it scanned for the mutator) and shared with the workers' total."""
        if self._catalog is None:
            self._catalog = scan_arms(Scope.of(app_dirs(self.options.target)))
        return self._catalog

    def coverage(self) -> CoverageRecord:
        """Covered arms with when they were first hit: input to reports and the study."""
        catalog = self.catalog
        arms = []
        for arm, (execs, seconds) in sorted(self.first_hit.items(), key=lambda kv: kv[1]):
            site = catalog.site(arm)
            arms.append(
                CoveredArm(
                    arm=tuple(arm),
                    file=arm[0],
                    from_line=site.from_line if site else None,
                    to_line=site.to_line if site else None,
                    first_exec=execs,
                    first_s=seconds,
                    valid=arm in self.valid_arms,
                )
            )
        return CoverageRecord(self._arms_total, tuple(arms))


def _size(result: TestResult) -> int:
    """How much input `result` read (`ChoiceSequence.size`): its recording's when it carries
    one, else what its worker measured before keeping the recording."""
    if result.recording is not None:
        return result.recording.size
    return result.input_size


def _earlier_first(old: Iterable[Any], new: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """`old` in its order, then what `new` adds; None when `new` already starts with `old`
    (nothing to keep)."""
    old = tuple(old)
    if not old or old == new[: len(old)]:
        return None
    known = set(old)
    return (*old, *(x for x in new if x not in known))


def _distinct(findings: Iterable[OracleFinding]) -> list[OracleFinding]:
    """One finding per kind and signature of a test: a loop making the same denied call
    a hundred times is one hit of that finding, not a hundred."""
    seen: dict[tuple[OracleKind, str], OracleFinding] = {}
    for finding in findings:
        seen.setdefault((finding.kind, finding.info.signature), finding)
    return list(seen.values())
