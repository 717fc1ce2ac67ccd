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

The engine is the loop and its phases: setup (`_run_locked`: resume, the workers), the
stream of requests (`_requests`: seeds, re-checks, children of the cost and the coverage
queue), one execution's dispatch (`_handle`), keeping what is new (`_keep`) and teardown.
Each secondary concern is behind its own object, which keeps its own state and counts:
covered arms (`coverage_map`), failures and their re-run in a fresh worker
(`confirmation`), exceptions the application caught and the deployment oracles' findings
(`handled_findings`), the cost objective's queue and findings (`cost_objective`), resuming
and the names inputs are saved under (`resume`), tests' recordings (`recordings`),
re-checks (`stability`), and new entries' plans (`fresh_entries`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from lambdafuzz.fuzzer.campaign_stats import CampaignReports, Tally
from lambdafuzz.fuzzer.confirmation import Confirmation
from lambdafuzz.fuzzer.corpus import FAILING_FIELD, SavedInput
from lambdafuzz.fuzzer.cost_objective import CostObjective
from lambdafuzz.fuzzer.coverage_map import CoverageMap
from lambdafuzz.fuzzer.entries import ChildTested, Entry, Tag, TagKind
from lambdafuzz.fuzzer.events import (
    CampaignFinished,
    CampaignStarted,
    EventT,
    NewCoverage,
    Notice,
    Progress,
    StopReason,
)
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.fresh_entries import FreshEntries
from lambdafuzz.fuzzer.handled_findings import HandledFindings
from lambdafuzz.fuzzer.mutation import Mutator, RandomMutator
from lambdafuzz.fuzzer.options import CampaignOptions, Objective, Strategy
from lambdafuzz.fuzzer.out_dir import EFS_DIR, CoverageRecord, OutDir
from lambdafuzz.fuzzer.recordings import Recordings
from lambdafuzz.fuzzer.rejections import Rejections
from lambdafuzz.fuzzer.resume import Resume
from lambdafuzz.fuzzer.size_schedule import SizeSchedule
from lambdafuzz.fuzzer.stability import Stability
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.generators.core import PrefixT, ReplayMode
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog, ArmKey, Scope, scan_arms
from lambdafuzz.harness.process.pool import Pool, PoolFactoryT, WorkerPool
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerSpec
from lambdafuzz.harness.sandbox.code_watch import CodeSnapshot
from lambdafuzz.harness.sandbox.isolation import IsolationState, RayIsolation
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.outcome import EmulatorGap, Status
from lambdafuzz.model.redelivery import deliveries_for
from lambdafuzz.model.target import app_dirs

NUM_CHILDREN_BASELINE = 50
NUM_CHILDREN_MULTIPLIER_FAVORED = 20
#: How often plot_data.csv and stats.json are rewritten.
REPORT_INTERVAL_S = 1.0
#: Children of one cost-queue parent (PerfFuzz gives its favoured inputs a fixed energy).
COST_CHILDREN = 20


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
        #: called with a `ChildTested` after every child (None: nobody listens)
        self.child_observer: Callable[[ChildTested], None] | None = None
        self.out = OutDir(options.out_dir)
        self.rng = random.Random(options.seed)
        self.mutator: Mutator = mutator or RandomMutator(
            options.mode, change=options.change_mutated_draws
        )
        self.queue: list[Entry] = []
        self.arms = CoverageMap()
        self.tally = Tally()
        self.rejections = Rejections(app_dirs(options.target))  # what stops the invalid
        self.stability = Stability()
        self.recordings = Recordings()
        self.confirmation = Confirmation(self.out, self.recordings, self.stability)
        self.handled_findings = HandledFindings(options, self.out, self.recordings)
        self.costs = CostObjective(options, self.out, self.recordings, self.confirmation)
        self.resume = Resume(self.out)
        self.fresh = FreshEntries(self.mutator)
        # fresh sizes start small and grow when coverage stalls; cost campaigns want big ones
        scheduled = options.size_schedule and options.objective is not Objective.COST
        self.sizes = SizeSchedule() if scheduled else SizeSchedule.full()
        self.stop_requested = False
        self.stop_reason = StopReason.BUDGET
        self._pool_factory = pool_factory
        self._pool: Pool | None = None
        self._catalog = catalog  # the application's arms; scanned once, on first use
        self._tags: dict[int, Tag] = {}  # id(request) -> its tag, while the request runs
        self.reports = CampaignReports(
            options,
            self.out,
            queue=self.queue,
            tally=self.tally,
            arms=self.arms,
            stability=self.stability,
            rejections=self.rejections,
            confirmation=self.confirmation,
            handled_findings=self.handled_findings,
            costs=self.costs,
        )

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
        notices = [Notice("lock-taken-over", lock_note)] if lock_note else []
        # resuming may extend the dictionary
        options, loaded = self.resume.load(
            self.options, (self.confirmation, self.handled_findings, self.costs)
        )
        self.options = options
        notices += loaded
        self.out.write_campaign(options)
        spec = WorkerSpec(
            target=options.target,
            backend=options.backend,
            endpoint=options.endpoint,
            aws_path=options.aws_path,
            policy=options.policy,
            memory_limit_mb=options.memory_limit_mb,
            app_arms_total=self.catalog.total,
            cost=self.costs.feedback is not None,
            permissions=options.oracle(OracleKind.PERMISSIONS),
            batch=self.handled_findings.batch is not None,
            idempotency=self.handled_findings.redelivery_share > 0.0,
            # one folder per file system for the whole campaign, kept across restarts
            file_systems_dir=str(Path(options.out_dir) / EFS_DIR),
        )
        code = CodeSnapshot.take(app_dirs(options.target))  # see `_code_changes`
        pool = self._pool_factory(spec, options.workers)
        self._pool = pool
        # the study's observer reads every child's recording, and a pool without `kept`
        # (a test double) is sent them all; Ray's `kept` gives nothing (its actors run a
        # batch ahead), so what the campaign keeps is regenerated here
        withheld = self.child_observer is None and pool.keeps_recordings
        self.recordings.start(options, pool, spec, withheld=withheld)
        self.confirmation.start(pool)
        self.costs.start(pool)
        self.reports.start(pool)
        pool.warm_spare()  # the first new failure's re-run need not wait for its worker
        tally = self.tally
        tally.start = tally.last_new = time.monotonic()
        self.arms.start(pool.info.app_arms_total, pool.info.import_coverage)
        isolation = pool.info.isolation  # the workers' (harness/sandbox/isolation.py)
        if isolation is not None:
            self.out.write_campaign(options, isolation=isolation.to_json())
        described = isolation.describe() if isolation is not None else ""
        notices += [
            Notice("sandbox-import", f"the handler's import swallowed a refusal: {violation}")
            for violation in pool.info.import_violations
        ]
        yield CampaignStarted(options, self.arms.total, len(self.resume.seeds), isolation=described)
        yield from notices
        last_report = tally.start
        try:
            while True:
                answered = False
                for request, result in pool.imap(self._requests()):
                    answered = True
                    yield from self._handle(request, result)
                    if self.confirmation.pending:
                        yield from self._settle(wait=False)
                    now = time.monotonic()
                    if now - last_report >= REPORT_INTERVAL_S:
                        last_report = now
                        stats = self.stats()
                        self.reports.write(stats)
                        yield Progress(stats)
                # a pool that takes tests ahead (several workers, Ray's batches) may bring
                # back zero mutations after the stream ended: their budget is spent anew
                if not answered or not self._budget_left():
                    break
            yield from self._settle(wait=True)
            yield from self._code_changes(code, isolation)
        finally:
            pool.close()
            stats = self.stats()
            self.reports.write(stats)
            self.reports.write_final(self.coverage())
        yield CampaignFinished(stats, options.out_dir, self.stop_reason, isolation=described)

    def _settle(self, *, wait: bool) -> Iterator[EventT]:
        """The new failures whose background re-run answered (`Confirmation.settle`)."""
        signalled = self.stop_reason in (StopReason.SIGINT, StopReason.SIGTERM)
        yield from self.confirmation.settle(wait=wait, signalled=signalled)

    def _code_changes(
        self, before: CodeSnapshot, isolation: IsolationState | RayIsolation | None
    ) -> Iterator[Notice]:
        """Where the workers could not make the code read-only (`harness/sandbox/code_watch.py`):
        what the handler changed in its app dirs, said once."""
        if isolation is not None and isolation.readonly_code:
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
        if options.max_execs is not None and self.tally.requested >= options.max_execs:
            return False
        elapsed = time.monotonic() - self.tally.start
        return options.max_seconds is None or elapsed < options.max_seconds

    # ------------------------------------------------------------------ requests
    def _requests(self) -> Iterator[TestRequest]:
        """The stream of tests: resumed seeds, then re-checks and children, until the budget."""
        mode = self.options.mode
        tally = self.tally
        seeds = self.resume.seeds
        while seeds and self._budget_left():
            saved = seeds.popleft()
            tally.requested += 1
            yield self._request(
                saved.sequence.prefix(mode), saved.seed, Tag(TagKind.SEED, source=saved.name)
            )
        cursor = 0
        while self._budget_left():
            yield from self._rechecks()
            cost_parent = self.costs.parent(tally.children_made, tally.cost_children_made)
            if cost_parent is not None:
                yield from self._cost_children(cost_parent)
                continue
            if self.options.strategy is Strategy.RANDOM or not self.queue:
                tally.requested += 1
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
                yield from self._rechecks()
                # interleaved: a parent's children are many
                cost_parent = self.costs.parent(tally.children_made, tally.cost_children_made)
                if cost_parent is not None:
                    yield from self._cost_children(cost_parent)
                    if not self._budget_left():
                        return
                yield self._child(self.fresh.parent_or(parent), TagKind.CHILD)

    def _rechecks(self) -> Iterator[TestRequest]:
        """The saved inputs due for their stability re-check (`stability_check`)."""
        mode = self.options.mode
        for entry in self.stability.due():
            yield self._request(
                entry.sequence.prefix(mode), entry.seed, Tag(TagKind.RECHECK, entry=entry.id)
            )

    def _cost_children(self, parent: Entry) -> Iterator[TestRequest]:
        """COST_CHILDREN mutants of a cost-queue parent (fewer when the budget ends)."""
        for _ in range(COST_CHILDREN):
            if not self._budget_left():
                return
            self.tally.cost_children_made += 1
            yield self._child(parent, TagKind.COST)

    def _child(self, parent: Entry, kind: TagKind) -> TestRequest:
        """One mutant of `parent`, tagged as a child of the coverage or the cost queue.  A
        cost-queue child of a planning mutator is its plain havoc (`havoc`): edge plans look
        for bugs, and under `--objective cost` they took the budget that climbs a maximum
        (zip_fanout's calls stayed under the budget in 300 executions).  Under `--objective
        cost`, some grow instead (`CostObjective.grown`)."""
        mutation = grown = None
        costs = self.costs
        if (
            kind is TagKind.COST
            and self.options.objective is Objective.COST
            and costs.feedback is not None
        ):
            mutation, grown = costs.grown(parent, self.rng)
        if mutation is None:
            mutator = (
                self.mutator if kind is TagKind.CHILD else getattr(self.mutator, "havoc", None)
            )
            mutation = (mutator or self.mutator).mutate(parent.sequence, self.rng)
        self.tally.requested += 1
        self.tally.children_made += 1
        return self._request(
            mutation.prefix,
            self._seed(),
            Tag(kind, parent.id, mutation, grown=grown),
            parent.digest if self.skip_zero_mutations and parent.digest else None,
            mutation.mode,
        )

    def _request(
        self,
        prefix: PrefixT,
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
            want_recording=not self.recordings.withheld,
            size_scale=self.sizes.scale,
            # by the seed alone: the engine's RNG draws nothing, a re-run delivers as often
            deliveries=deliveries_for(seed, self.handled_findings.redelivery_share),
        )
        self._tags[id(request)] = tag
        return request

    def _seed(self) -> int:
        return self.rng.getrandbits(63)

    def _children_for(self, parent: Entry) -> int:
        best = max(len(e.arms) for e in self.queue) or 1
        children = max(1, NUM_CHILDREN_BASELINE * len(parent.arms) // best)
        if parent.id in self.arms.favored():
            children *= NUM_CHILDREN_MULTIPLIER_FAVORED
        return children

    # ------------------------------------------------------------------ one execution
    def _handle(self, request: TestRequest, result: TestResult) -> Iterator[EventT]:
        tag = self._tags.pop(id(request))
        if tag.kind is TagKind.RECHECK:
            self._recheck(tag, result)
            return
        if result.identical:
            self._zero_mutation(tag, request, result)
            return
        tally = self.tally
        tally.zero_streak = 0
        tally.execs += 1
        tally.add_times(result.timings)
        if result.generator_error:
            tally.generator_errors += 1
            if tally.generator_errors == 1:
                yield Notice("generator-error", f"a generator raised: {result.generator_error}")
        status = result.status
        now = time.monotonic() - tally.start
        execs = tally.execs
        # One pass over the test's arms: new arms, new hit-count buckets, new valid arms.
        valid = status is Status.VALID
        new_arms, new_bucket, new_valid = self.arms.observe(
            result.coverage, valid=valid, execs=execs, now=now
        )
        if valid:
            tally.valid_execs += 1
        else:
            self.rejections.count(result)
        self.sizes.observe(bool(new_bucket or new_valid))
        tally.targeted_child(tag.mutation)
        if result.handled:
            yield from self.handled_findings.caught(request, result, tag, now, execs)
        yield from self.handled_findings.oracles(request, result, tag, now, execs)
        if result.emulator_gap is not None:
            yield from self._emulator_gap(result.emulator_gap)
        if status in (Status.FAILURE, Status.HANG):
            yield from self.confirmation.failure(request, result, tag, now, execs)
            # a failure that reached a new arm is a parent too (not a hang: its children
            # would cost a timeout each); a sample seed's failure is not kept for itself
            keep = (
                status is Status.FAILURE
                and bool(new_arms)
                and self.options.objective is not Objective.COST
            )
            self.mutator.observe(tag.mutation, keep, self.arms.seen)
            self._tell(tag, request, result, saved=keep)
            if keep:
                yield from self._keep(request, result, tag, new_arms, new_valid=False)
            return
        if self.costs.feedback is not None and result.cost is not None:
            yield from self.costs.observe(request, result, tag, now, execs)
        # a sample event's seed is kept whatever it covered: the project's own input
        sample = self.resume.is_sample(tag)
        saved = bool(new_arms or new_bucket or new_valid or sample)
        if self.options.objective is Objective.COST:
            saved = sample  # the cost queue alone (and the project's own samples)
        self.mutator.observe(tag.mutation, saved, self.arms.seen)
        mutation = tag.mutation
        if (
            not saved
            and valid
            and mutation is not None
            and mutation.opens
            and tag.parent is not None
            and self.queue[tag.parent].arms.issubset(result.coverage)
        ):
            # the new value was accepted and kept the parent's path: try its edge classes
            # (a rejected input's fields mostly never reach the code that trips on them)
            self.mutator.follow(mutation, self.recordings.recorded(request, result).recording)
        self._tell(tag, request, result, saved=saved)
        if saved:
            yield from self._keep(request, result, tag, new_arms, new_valid=new_valid)

    def _keep(
        self,
        request: TestRequest,
        result: TestResult,
        tag: Tag,
        new_arms: list[ArmKey],
        *,
        new_valid: bool,
    ) -> Iterator[EventT]:
        """Queue and save an input that covered something new."""
        targeted = tag.mutation.targeted if tag.mutation is not None else None
        self.tally.last_new = time.monotonic()
        result = self.recordings.recorded(request, result)
        entry = self._save(request, result, tag, new_arms=bool(new_arms), new_valid=new_valid)
        self.arms.saved(entry, new_arms)
        if targeted:
            self.tally.targeting[targeted].saved += 1
        if self.options.stability_check:
            self.stability.schedule(entry)
        yield NewCoverage(entry.name, entry.provenance, len(self.arms.seen))

    def _emulator_gap(self, gap: EmulatorGap) -> Iterator[EventT]:
        """An exception raised inside the emulator or lambdafuzz (`harness.blame`): said
        once per kind, with what to do, then counted; never a failure of the application."""
        gaps = self.tally.emulator_gaps
        seen = gaps.get(gap.key, 0)
        gaps[gap.key] = seen + 1
        if not seen:
            yield Notice("emulator-gap", gap.advice)

    def _zero_mutation(self, tag: Tag, request: TestRequest, result: TestResult) -> None:
        """A child that generated exactly its parent's input: counted, not executed, and its
        place in the budget goes to the next child (`Tally.zero_mutation`)."""
        self.tally.zero_mutation(result.timings.generate_s, tag.mutation)
        self.mutator.observe(tag.mutation, False, self.arms.seen)
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
        self.stability.observe(frozenset(result.coverage) == entry.arms)

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
        resumed = self.resume.resumed_input(tag)
        name, provenance = self.resume.entry_name(
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
        self.fresh.add(entry)
        saved = SavedInput(
            name=name,
            sequence=result.recording if resumed is None else resumed.sequence,
            seed=request.seed,
            mode=request.mode if resumed is None else resumed.mode,
            outcome=result.status.name,
            provenance=provenance,
            world=self.recordings.world_summary(result),
            event=result.event,
            extra={
                "arms": len(entry.arms),
                "exec": self.tally.execs,
                "return_value": result.return_value,
                **({FAILING_FIELD: True} if failing else {}),
            },
        )
        self.out.save_corpus_input(saved)
        self.reports.plot_point()  # the plot steps where coverage grew, not once a second
        return entry

    # ------------------------------------------------------------------ reporting
    def stats(self) -> Stats:
        """A snapshot of the campaign now (`CampaignReports.stats`)."""
        return self.reports.stats()

    @property
    def catalog(self) -> ArmCatalog:
        """Every arm of the application: scanned once per campaign (build_engine passes
        the one it scanned for the mutator) and shared with the workers' total."""
        if self._catalog is None:
            self._catalog = scan_arms(Scope.of(app_dirs(self.options.target)))
        return self._catalog

    def coverage(self) -> CoverageRecord:
        """Covered arms with when they were first hit: input to reports and the study."""
        return self.arms.record(self.catalog)

    # ------------------------------------------------------------------ what it found
    @property
    def failures(self) -> dict[str, FailureRecord]:
        """The failures by signature (`Confirmation.failures`)."""
        return self.confirmation.failures

    @property
    def flaky(self) -> dict[str, FailureRecord]:
        """The failures that did not fail again in a fresh worker, by signature."""
        return self.confirmation.flaky
