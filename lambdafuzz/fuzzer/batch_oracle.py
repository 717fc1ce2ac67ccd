"""The batch oracle in the campaign: each test's batch response checked as Lambda reads it.

`batch_response` says what is wrong with one response; this turns its answer into the
campaign's findings (`OracleFinding`, saved in `batch/`, keyed by problem and catch site)
and its one notice (a function that returns `batchItemFailures` Lambda ignores, said once).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lambdafuzz.analysis.record_catches import RecordCatches
from lambdafuzz.fuzzer.batch_response import (
    BATCH_KINDS,
    ID_NAMES,
    BatchFinding,
    batch_ids,
    check_batch_response,
)
from lambdafuzz.harness.invoke import app_relative
from lambdafuzz.harness.process.protocol import TestResult
from lambdafuzz.model.oracle import OracleFinding, OracleKind
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.target import Target, app_dirs, definition_line, handler_path

#: What production does about a wrong response names the finding's type.
BATCH_RESPONSE = "PartialBatchResponse"
#: Characters of the response shown in a finding's evidence.
MAX_SHOWN = 1500


@dataclass(slots=True)
class BatchOracle:
    """Checks the responses of one campaign's tests (an SQS, Kinesis or DynamoDB-stream
    trigger); `ignored` holds the notice once it was said."""

    target: Target
    catches: RecordCatches
    # where a response's own findings are placed (the handler's `def` line): a wrong
    # response is the handler's, wherever it was built
    returned_at: str = ""
    ignored: str = ""
    _said: bool = field(default=False)

    @classmethod
    def of(cls, target: Target) -> BatchOracle | None:
        """The oracle for `target`, None when its trigger delivers no batches."""
        if target.trigger.kind not in BATCH_KINDS:
            return None
        return cls(target, RecordCatches.for_target(target), _handler_at(target))

    def check(self, result: TestResult) -> tuple[tuple[OracleFinding, ...], str | None]:
        """The test's findings, and the notice to say (None: nothing new to say). Only a
        handler that returned counts: a failure is retried whole by Lambda anyway."""
        if result.status in (Status.FAILURE, Status.HANG) or result.event is None:
            return (), None
        trigger = self.target.trigger
        found = check_batch_response(
            trigger.kind,
            result.event,
            result.response,
            trigger.report_batch_item_failures,
            result.handled,
            record_catches=self.catches,
        )
        findings: list[OracleFinding] = []
        notice = None
        for item in found:
            if item.problem.notice:
                if not self._said:
                    self._said = True
                    self.ignored = notice = item.detail
                continue
            findings.append(self._finding(item, result))
        return tuple(findings), notice

    def _finding(self, item: BatchFinding, result: TestResult) -> OracleFinding:
        info = FailureInfo(
            exception_type=BATCH_RESPONSE,
            message=item.detail,
            traceback="",
            location=item.where or self.returned_at,
            detail=item.problem.value,
            shape=item.exception_type,
        )
        return OracleFinding(OracleKind.BATCH, info, self._evidence(item, result))

    def _evidence(self, item: BatchFinding, result: TestResult) -> str:
        kind = self.target.trigger.kind
        ids = batch_ids(kind, result.event) or ()
        response = _shown(result.response)
        lines = [
            f"The batch ({len(ids)} record{'s' if len(ids) != 1 else ''}, by "
            f"{ID_NAMES[kind]}): {', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''}",
            f"The response: {response}",
        ]
        if item.where:
            lines.append(f"Caught at {item.where}: {item.exception_type}")
        return "\n".join(lines)


def _handler_at(target: Target) -> str:
    """`orders/intake.py:12`: the line defining the handler ("" when it cannot be read)."""
    path = handler_path(target)
    relative = app_relative(str(path), app_dirs(target))
    line = definition_line(path, target.handler_function) if relative is not None else None
    return f"{relative}:{line}" if line is not None else ""


def _shown(response: Any) -> str:
    try:
        text = json.dumps(response, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(response)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + " ..."
