"""The cost objective beside coverage (`fuzzer/cost.py`): the cost queue and cost findings.

An input that raises a cost maximum (an arm's hit count, the duration, AWS calls, bytes
sent, memory) is kept in a separate cost queue whose entries get `cost_share` of the
children (all of them with `--objective cost`), and an input past a cost budget is saved in
`cost/`.  Durations and memory are noisy: a new maximum of theirs counts only when a second
run confirms it, and a finding only when the median of three runs is still past the budget.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Iterator
from dataclasses import replace

from lambdafuzz.errors import CorpusError
from lambdafuzz.fuzzer.confirmation import Confirmation
from lambdafuzz.fuzzer.corpus import SavedInput
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
from lambdafuzz.fuzzer.entries import Entry, Provenance, Tag
from lambdafuzz.fuzzer.events import EventT, NewCostFinding
from lambdafuzz.fuzzer.mutation import Mutation, grow
from lambdafuzz.fuzzer.options import CampaignOptions, Objective, Strategy
from lambdafuzz.fuzzer.out_dir import ExistingCampaign, OutDir
from lambdafuzz.fuzzer.recordings import Recordings
from lambdafuzz.harness.process.pool import Pool
from lambdafuzz.harness.process.protocol import TestRequest, TestResult
from lambdafuzz.model.cost import CostMeasures, Measure
from lambdafuzz.model.outcome import Status

#: Under `--objective cost`, the share of a time-only cost parent's children (it holds only
#: noisy maxima, `CostFeedback.timed_only`: no count climbs with its time) that grow a few
#: of its strings (`mutation.grow`, `core.Grown`) instead of havoc.  key_router's regex,
#: whose time doubles with each letter of the key, was not climbed by havoc, which draws a
#: stem of any length (2000 executions, 1.5 s budget: cost campaign 1258 ms, coverage
#: 1120 ms; with growth: found at execution 72, then runs to the 3 s timeout).  Any other
#: cost parent grows strings and counts at `CostObjective.growth`'s adaptive share:
#: csv_dedupe's rows (its hits climb with their square) and cells (its time) are climbed by
#: growth, as havoc's fresh geometric row count rarely passes 30 (seeds 1-3, 600
#: executions: found at none with havoc alone, max 34/190/469 ms; at all 3 growing half the
#: children, executions 169/63/106, max 746-1211 ms), but a fixed half cost csv_items' and
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


class CostObjective:
    """The cost maxima (`feedback`, None when the campaign measures no cost), the cost
    queue and its parents, and the findings past the cost budgets by measure.  `start`
    gives it the pool once it runs."""

    def __init__(
        self,
        options: CampaignOptions,
        out: OutDir,
        recordings: Recordings,
        confirmation: Confirmation,
    ) -> None:
        self.feedback = CostFeedback() if options.objective.measures_cost else None
        self.queue: list[Entry] = []
        self.growth = GrowthShare()  # count-holding cost parents' grown share
        self.findings: dict[Measure, CostFinding] = {}
        self.reruns = 0  # tests run again to confirm a noisy measure
        self._inputs: dict[Measure, SavedInput] = {}
        self._budgets = CostBudgets.of(options)
        self._confirms = 0
        self._cursor = 0
        self._options = options
        self._out = out
        self._recordings = recordings
        self._confirmation = confirmation
        self._pool: Pool | None = None

    def start(self, pool: Pool) -> None:
        self._pool = pool

    def parent(self, children_made: int, cost_children_made: int) -> Entry | None:
        """The next cost-queue parent when the cost queue is due, else None: always under
        `--objective cost`, while its children (`cost_children_made`) are below
        `cost_share` of all children (`children_made`) under `mixed`.  Parents are the
        entries still holding a maximum, round-robin."""
        feedback = self.feedback
        if feedback is None or self._options.strategy is Strategy.RANDOM:
            return None
        if self._options.objective is not Objective.COST and (
            cost_children_made >= self._options.cost_share * children_made
        ):
            return None
        champions = feedback.champions()
        if not champions:
            return None
        entry = self.queue[champions[self._cursor % len(champions)]]
        self._cursor += 1
        return entry

    def grown(self, parent: Entry, rng: random.Random) -> tuple[Mutation | None, bool | None]:
        """Under `--objective cost`, a child of `parent` that grows instead of havoc, or
        None: `GROW_SHARE` of a time-only parent's grow its strings (one more piece);
        `growth.share` of any other cost parent's, its strings and counts (up to twice as
        many).  With it whether it was grown, for a count-holding parent (None for a
        time-only one): its success tunes `growth`."""
        assert self.feedback is not None
        mutation = None
        grown = None
        timed = self.feedback.timed_only(parent.id)
        if rng.random() < (GROW_SHARE if timed else self.growth.share):
            mutation = grow(parent.sequence, rng, self._options.mode, counts=not timed)
        if not timed:
            grown = mutation is not None
        return mutation, grown

    def observe(
        self, request: TestRequest, result: TestResult, tag: Tag, now: float, execs: int
    ) -> Iterator[EventT]:
        """The cost feedback of one test that did not fail: into the cost queue when it
        raises a maximum, into cost/ when it is past a budget (and worse than the input
        saved there).  `execs`: the campaign's executions now."""
        feedback = self.feedback
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
                if self._options.objective is Objective.COST
                else (COST_RERUN_SHARE)
            )
            if self.reruns < share * execs + COST_RERUN_FREE:
                again = yield from self._again(request, tag, now, execs)
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
        if self._options.objective is not Objective.COST:
            queued = [key for key in raised if key not in NOISY]
            feedback.take([key for key in raised if key in NOISY], cost, {}, None)
        if tag.grown is not None:
            self.growth.observe(tag.grown, bool(queued))
        if queued:
            result = self._recordings.recorded(request, result)
            entry = Entry(
                id=len(self.queue),
                name=f"cost-{len(self.queue):06d}",
                sequence=result.recording,
                seed=request.seed,
                arms=frozenset(result.coverage),
                valid=result.status is Status.VALID,
                provenance=f"{Provenance(tag, failure=True)} {describe_raised(queued)}",
                digest=result.input_digest,
            )
            self.queue.append(entry)
            feedback.take(queued, cost, result.hit_counts, entry.id)
        for measure in self._budgets.exceeded(cost):
            yield from self._finding(measure, request, result, tag, now, execs, cost)

    def load(self, existing: ExistingCampaign) -> None:
        """A resumed campaign's cost findings, read from its cost/ (`existing` does not
        hold them): later findings must be worse to replace them."""
        for found in self._out.iter_cost():
            if not isinstance(found, CorpusError):
                self.findings[found.finding.measure] = found.finding
                self._inputs[found.finding.measure] = found.saved

    def save_all(self) -> None:
        """Write every cost finding again (their hit counts changed)."""
        for measure, finding in self.findings.items():
            self._out.save_cost(finding, self._inputs[measure])

    def _finding(
        self,
        measure: Measure,
        request: TestRequest,
        result: TestResult,
        tag: Tag,
        now: float,
        execs: int,
        cost: CostMeasures,
    ) -> Iterator[EventT]:
        """Save `result` as the cost finding of `measure` when it is worse than the saved
        one.  Durations and memory are noisy: the input is run twice more in the worker that
        ran it and the median must still be past the budget (and worse)."""
        limit = self._budgets.limit(measure)
        assert limit is not None
        current = self.findings.get(measure)
        if current is not None:
            current.hits += 1
            if cost.value(measure) <= current.value * FINDING_MARGIN:
                return
        samples = [cost]
        if measure in NOISY:
            if self._confirms >= MAX_COST_CONFIRMS:
                return
            self._confirms += 1
            for _ in range(CONFIRM_RUNS - 1):
                again = yield from self._again(request, tag, now, execs)
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
            first_exec=execs,
            first_time_s=now,
            hits=current.hits if current is not None else 1,
        )
        result = self._recordings.recorded(request, result)
        saved = SavedInput(
            name=f"cost-{measure.value}",
            sequence=result.recording,
            seed=request.seed,
            mode=request.mode,
            outcome=result.status.name,
            provenance=str(Provenance(tag, failure=True)),
            world=self._recordings.world_summary(result),
            event=result.event,
            extra={"return_value": result.return_value} if result.return_value else {},
        )
        self.findings[measure] = finding
        self._inputs[measure] = saved
        self._out.save_cost(finding, saved)
        yield NewCostFinding(finding)

    def _again(
        self, request: TestRequest, tag: Tag, now: float, execs: int
    ) -> Generator[EventT, None, TestResult | None]:
        """Another sample of a noisy measure: `request` run again (`_run_again`).  A run
        that fails this time (its worker killed from outside, a hang that depends on load)
        is a failure seen like any other (`Confirmation.failure`: re-run in a fresh worker,
        flaky when it does not fail again), and gives no sample.  It is no hit: hits count
        executions that failed, and this execution counted as valid; counted, a re-run that
        failed in the worker its own first run had poisoned gave a flaky signature more hits
        than failed executions, as often as the tests that raised a duration maximum
        (timing) were poisoning ones."""
        again = self._run_again(request)
        if again is not None and again.status >= Status.FAILURE and again.failure is not None:
            yield from self._confirmation.failure(request, again, tag, now, execs, hits=0)
            return None
        return again

    def _run_again(self, request: TestRequest) -> TestResult | None:
        """`request` once more, for another sample of a noisy measure: in the worker that
        just ran it when the pool can (`WorkerPool.run_again`), else in a fresh one."""
        assert self._pool is not None
        again = self._pool.run_again(request)
        if again is not None:
            self.reruns += 1
        return again
