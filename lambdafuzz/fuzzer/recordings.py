"""What the campaign saves of a test: its recording, world and traceback, which the worker
that ran it keeps unless asked (`TestRequest.want_recording`), and the saved input of a
failure, handled exception or finding made from them.

A test's answer leaves its recording in the worker when the campaign will not need it (most
tests cover nothing new); the few it keeps are fetched right after their answer came,
before that worker gets another test, or regenerated here when the worker cannot give them
(generation is pure).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lambdafuzz.fuzzer.bugs import BugBook
from lambdafuzz.fuzzer.corpus import DELIVERIES_FIELD, SavedInput
from lambdafuzz.fuzzer.entries import Provenance, Tag
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.harness.process.pool import Pool
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerSpec
from lambdafuzz.harness.process.worker import regenerated_input

#: A new failure's traceback when the worker that ran it was gone before the campaign asked
#: for it (`TestRequest.want_recording`); its re-run in a fresh worker then gives one.
NO_TRACEBACK = "(no traceback: the worker that ran the test was gone before it was asked for)"


class Recordings:
    """Tests' recordings fetched from their workers (or regenerated), and the saved inputs
    made of them.  `start` gives it the campaign's pool once its workers run."""

    def __init__(self) -> None:
        self.fetched = 0  # recordings a worker gave when asked
        self.regenerated = 0  # recordings made again here (the worker could not give them)
        #: the pool's workers keep their tests' recordings until asked (`recorded`)
        self.withheld = False
        self._last: tuple[TestRequest, TestResult] | None = None
        self._options: CampaignOptions | None = None
        self._pool: Pool | None = None
        self._spec: WorkerSpec | None = None

    def start(
        self, options: CampaignOptions, pool: Pool, spec: WorkerSpec, *, withheld: bool
    ) -> None:
        """The campaign's options (after a resume extended them), its pool and the spec
        its workers were started with."""
        self._options = options
        self._pool = pool
        self._spec = spec
        self.withheld = withheld

    def recorded(self, request: TestRequest, result: TestResult) -> TestResult:
        """`result` with its recording and its failure's traceback, which the worker that
        ran it keeps unless asked (`TestRequest.want_recording`); the recording regenerated
        here when the worker cannot give it.  Called right after the result came, before
        that worker gets another test."""
        if result.recording is not None:
            return result
        last = self._last
        if last is not None and last[0] is request:
            return last[1]
        assert self._pool is not None
        kept = self._pool.kept(request)
        if kept is not None:
            self.fetched += 1
        else:
            assert self._spec is not None
            self.regenerated += 1
            kept = regenerated_input(self._spec, request)
        failure = result.failure
        if failure is not None and not failure.traceback:
            text = kept.traceback or f"{failure.exception_type}: {failure.message}\n{NO_TRACEBACK}"
            failure = replace(failure, traceback=text)
        result = replace(
            result, recording=kept.recording, world_summary=kept.world, failure=failure
        )
        self._last = (request, result)
        return result

    def world_summary(self, result: TestResult) -> Any:
        """The summary of the world `result` tested: the one its worker made when it gave
        it (`recorded`), else regenerated from its recording."""
        if result.world_summary is not None:
            return result.world_summary
        from lambdafuzz.fuzzer.world_summary import summarize_recording

        assert result.recording is not None and self._options is not None
        return summarize_recording(result.recording, self._options.target, self._options.policy)

    def failure_input(
        self, request: TestRequest, result: TestResult, tag: Tag, record: FailureRecord
    ) -> SavedInput:
        """The saved input of a failure, flaky failure, handled exception or finding."""
        return SavedInput(
            name=record.file_name[:-5],
            sequence=result.recording,
            seed=request.seed,
            mode=request.mode,
            outcome=result.status.name,
            provenance=str(Provenance(tag, failure=True)),
            world=self.world_summary(result),
            event=result.event,
            log=result.log,  # what the handler printed and logged (the worker's tail)
            extra={
                **({"return_value": result.return_value} if result.return_value else {}),
                # replayed as it ran: its event delivered twice (`Replayer.replay`)
                **({DELIVERIES_FIELD: request.deliveries} if request.deliveries > 1 else {}),
            },
        )

    def keep_smaller(
        self, book: BugBook, signature: str, request: TestRequest, result: TestResult, tag: Tag
    ) -> None:
        """Keep `result`'s input as its variant's when it is smaller (`ChoiceSequence.size`);
        the bug's file is rewritten with it at the end of the campaign."""
        variant = book.smaller(signature, input_size(result))
        if variant is None:
            return
        recorded = self.recorded(request, result)
        variant.saved = self.failure_input(request, recorded, tag, variant.record)
        variant.size = input_size(recorded)
        # the label names this input's missing object (a handled record never has one)
        if not variant.record.handled:
            variant.record.world_inconsistency = recorded.world_inconsistency


def input_size(result: TestResult) -> int:
    """How much input `result` read (`ChoiceSequence.size`): its recording's when it carries
    one, else what its worker measured before keeping the recording."""
    if result.recording is not None:
        return result.recording.size
    return result.input_size
