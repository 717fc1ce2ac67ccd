"""Failures: counted under their signatures, a new one confirmed by a re-run in a fresh worker.

A new signature first re-runs once in a fresh worker (in the background when the pool can):
only a failure that fails the same way again is saved in failures/, grouped by bug
(`fuzzer.bugs`).  One that does not (state an earlier test corrupted, a worker killed from
outside, a hang that depended on load) is saved in flaky/ with both outcomes.  Signatures
are keyed per site: past MAX_SHAPES_PER_SITE shapes of one site, new ones are generalized.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from lambdafuzz.fuzzer.bugs import BugBook
from lambdafuzz.fuzzer.corpus import SavedInput
from lambdafuzz.fuzzer.entries import Tag
from lambdafuzz.fuzzer.events import EventT, NewFailure, NewVariant, Notice
from lambdafuzz.fuzzer.failures import FailureRecord, RerunOutcome, failure_slug
from lambdafuzz.fuzzer.out_dir import ExistingCampaign, FailureEntry, OutDir
from lambdafuzz.fuzzer.recordings import NO_TRACEBACK, Recordings, input_size
from lambdafuzz.fuzzer.stability import Stability
from lambdafuzz.harness.process.pool import Pool, Rerun
from lambdafuzz.harness.process.protocol import TestRequest, TestResult
from lambdafuzz.model.outcome import FailureInfo

#: A flaky signature is re-run for at most this many inputs in all (one of them may be a
#: real bug that shares the signature); after that its hits are only counted.
MAX_FLAKY_RERUNS = 3
#: Distinct details/shapes kept per failure site (type, location, cause); more are keyed
#: together as `FailureInfo.generalized()` (values masking could not recognise).
MAX_SHAPES_PER_SITE = 10


@dataclass(slots=True, frozen=True)
class FoundFailure:
    """A test that failed with a new signature, as it was found: what its re-run in a
    fresh worker confirms (or finds flaky)."""

    request: TestRequest
    result: TestResult
    tag: Tag
    now: float  # seconds into the campaign
    info: FailureInfo  # its failure, keyed (`Confirmation._keyed`)
    execs: int  # the campaign's executions when it was found
    # 1 when an execution failed; 0 when a cost re-run did (`CostObjective._again`: no
    # execution)
    hits: int = 1


@dataclass(slots=True)
class PendingRerun:
    """A new failure whose re-run runs in the background: saved (or found flaky) when it
    is answered, with the hits its signature had meanwhile."""

    found: FoundFailure
    rerun: Rerun
    hits: int = 0
    # the smallest input that hit the signature meanwhile, kept (if confirmed) as though
    # the answer had come at once: when it comes must not change what a seeded campaign saves
    smaller: tuple[TestRequest, TestResult, Tag] | None = None
    smaller_size: int = 0


class Confirmation:
    """The campaign's failures and flaky failures by signature, its bugs, and the new
    failures whose re-run is still running.  `start` gives it the pool once it runs."""

    def __init__(self, out: OutDir, recordings: Recordings, stability: Stability) -> None:
        self.failures: dict[str, FailureRecord] = {}
        self.flaky: dict[str, FailureRecord] = {}  # did not reproduce in a fresh worker
        self.bugs = BugBook()
        self.reruns = 0  # new failures re-run in a fresh worker
        self._flaky_inputs: dict[str, SavedInput] = {}
        # new failures whose re-run is still running, by signature, oldest first
        self._pending: dict[str, PendingRerun] = {}
        self._out = out
        self._recordings = recordings
        self._stability = stability
        self._pool: Pool | None = None

    def start(self, pool: Pool) -> None:
        self._pool = pool

    @property
    def pending(self) -> bool:
        """Whether a new failure's background re-run is still to be settled."""
        return bool(self._pending)

    def failure(
        self,
        request: TestRequest,
        result: TestResult,
        tag: Tag,
        now: float,
        execs: int,
        *,
        hits: int = 1,
    ) -> Iterator[EventT]:
        """Count a failure under its signature.  A new signature first re-runs once in a
        fresh worker: only a failure that fails the same way again is saved in failures/.
        One that does not (state an earlier test corrupted, a worker killed from outside, a
        hang that depended on load) is saved in flaky/ with both outcomes; a flaky
        signature is re-run for up to MAX_FLAKY_RERUNS inputs, so a real bug that shares
        it still becomes a failure.  Whenever a known flaky signature recurs, the worker it
        recurred in is replaced (its state is what makes tests fail): past the re-runs, at
        the cost of one worker start and no re-run.  `execs`: the campaign's executions
        now; `hits`: 1 for an execution, 0 for a cost re-run (`CostObjective._again`),
        which is no execution."""
        assert result.failure is not None
        info = self._keyed(result.failure)
        signature = info.signature
        record = self.failures.get(signature)
        if record is not None:
            record.hits += hits
            self._recordings.keep_smaller(self.bugs, signature, request, result, tag)
            return
        flaky = self.flaky.get(signature)
        pending = self._pending.get(signature)
        if pending is not None:
            pending.hits += hits
            self._hold_smaller(pending, request, result, tag)
            if flaky is not None:
                self._recycle(request)
            return
        if flaky is not None and flaky.reruns >= MAX_FLAKY_RERUNS:
            flaky.hits += hits
            self._recycle(request)
            return
        # with the traceback the answer left out
        result = self._recordings.recorded(request, result)
        assert result.failure is not None
        info = replace(info, traceback=result.failure.traceback)
        found = FoundFailure(request, result, tag, now, info, execs, hits)
        assert self._pool is not None
        future = self._pool.rerun_later(request)
        if future is not None:
            self.reruns += 1
            self._pending[signature] = PendingRerun(found, future)
            return
        yield from self._confirm(found, flaky, self._rerun(request), hits=hits)

    def settle(self, *, wait: bool, signalled: bool) -> Iterator[EventT]:
        """Confirm the new failures whose background re-run has answered, oldest first
        (the order they were found in, whenever their answers came); `wait`: all of them,
        waiting for each - but a campaign stopped by a signal (`signalled`) waits for none:
        a re-run not answered yet is saved as not re-run, and its spare killed when the
        pool closes."""
        pending = self._pending
        while pending:
            signature, first = next(iter(pending.items()))
            done = first.rerun.done()
            if not wait and not done:
                return
            del pending[signature]
            rerun = first.rerun.result() if done or not signalled else None
            flaky = self.flaky.get(signature)
            yield from self._confirm(first.found, flaky, rerun, hits=first.found.hits + first.hits)
            if first.smaller is not None and signature in self.failures:
                self._recordings.keep_smaller(self.bugs, signature, *first.smaller)
            assert self._pool is not None
            self._pool.forget(first.found.request)

    def _hold_smaller(
        self, pending: PendingRerun, request: TestRequest, result: TestResult, tag: Tag
    ) -> None:
        """Remember `result`'s input when it is the smallest of `pending`'s signature so
        far (its recording fetched now, while its worker still has it)."""
        size = input_size(result)
        best = pending.smaller_size or input_size(pending.found.result)
        if size <= 0 or size >= best:
            return
        pending.smaller = (request, self._recordings.recorded(request, result), tag)
        pending.smaller_size = size

    def load(self, existing: ExistingCampaign) -> None:
        """A resumed campaign's failures and flaky failures stay known."""
        load_bugs(self.bugs, self.failures, existing.failures)
        for entry in existing.flaky:
            self.flaky[entry.signature] = entry.record
            self._flaky_inputs[entry.signature] = entry.saved

    def save_all(self) -> None:
        """Write every bug's and flaky failure's file again: their hit counts changed since
        each was first written."""
        for bug in self.bugs:
            self._out.save_failure(bug)
        for signature, record in self.flaky.items():
            self._out.save_flaky(record, self._flaky_inputs[signature])

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
            self._stability.observe(reproduced)
            if not reproduced:
                yield from self._flaky(found, flaky, outcome, hits)
                return
            again = rerun.failure
            if info.traceback.endswith(NO_TRACEBACK) and again is not None and again.traceback:
                info = replace(info, traceback=again.traceback)  # the re-run's answer has one
        record = new_record(
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
        saved = self._recordings.failure_input(request, result, tag, record)
        bug, new = self.bugs.add(record, saved, input_size(result))
        self._out.save_failure(bug)
        if new:
            yield NewFailure(record, bug.key)
        elif record.file_name == bug.file_name:  # kept as a variant (not past the limit)
            yield NewVariant(record, bug.key, len(bug.variants))

    def _flaky(
        self, found: FoundFailure, record: FailureRecord | None, outcome: RerunOutcome, hits: int
    ) -> Iterator[EventT]:
        request, info = found.request, found.info
        signature = info.signature
        if record is None:
            record = new_record(
                signature, info, found.result, found.now, found.execs, hits=0, flaky=True
            )
            self.flaky[signature] = record
            self._flaky_inputs[signature] = self._recordings.failure_input(
                request, found.result, found.tag, record
            )
        record.hits += hits
        record.reruns += 1
        record.rerun = outcome
        self._out.save_flaky(record, self._flaky_inputs[signature])
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
            self.reruns += 1
        return again

    def _keyed(self, info: FailureInfo) -> FailureInfo:
        """`info`, generalized when its site already has MAX_SHAPES_PER_SITE signatures
        and this one is new (a value in the message that masking did not recognise)."""
        signature = info.signature
        pending = self._pending
        if signature in self.failures or signature in self.flaky or signature in pending:
            return info
        site = info.site
        known = sum(
            1 for r in (*self.failures.values(), *self.flaky.values()) if r.info.site == site
        ) + sum(1 for p in pending.values() if p.found.info.site == site)
        return info.generalized() if known >= MAX_SHAPES_PER_SITE else info


def new_record(
    signature: str,
    info: FailureInfo,
    result: TestResult,
    now: float,
    execs: int,
    **more: Any,
) -> FailureRecord:
    """A new failure or handled record, first seen at execution `execs` (a failure
    confirmed by a background re-run was seen some executions ago)."""
    return FailureRecord(
        signature=signature,
        info=info,
        status=result.status.name,
        file_name=failure_slug(signature) + ".json",
        first_exec=execs,
        first_time_s=now,
        **more,
    )


def load_bugs(
    book: BugBook, known: dict[str, FailureRecord], entries: Iterable[FailureEntry]
) -> None:
    """A resumed campaign's bugs of one kind into `book`, their signatures into `known`."""
    for entry in entries:
        bug = book.load(entry.title, entry.path.name, entry.variants, entry.other_hits)
        for variant in bug.variants:
            known[variant.signature] = variant.record
