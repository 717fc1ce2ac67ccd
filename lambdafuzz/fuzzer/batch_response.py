"""The partial batch response oracle: what an SQS, Kinesis or DynamoDB-stream function
returns, read as Lambda reads it.

Lambda reads the response of such a function only when its event source mapping has
`FunctionResponseTypes: [ReportBatchItemFailures]` (`Trigger.report_batch_item_failures`);
a wrong response passes every test and silently loses or re-processes records.  What the
AWS documentation says (Lambda developer guide, "Implementing partial batch responses" for
SQS, "Configuring partial batch response" for Kinesis and DynamoDB streams):

* the response is `{"batchItemFailures": [{"itemIdentifier": ID}, ...]}`; ID is the
  record's `messageId` (SQS), `kinesis.sequenceNumber` (Kinesis) or
  `dynamodb.SequenceNumber` (DynamoDB streams);
* a complete success (nothing retried): an empty or null `batchItemFailures` list, an
  empty or null response (an object without `batchItemFailures` is one);
* a complete failure (the whole batch retried), for all three: an empty-string or null
  `itemIdentifier`, an item whose key is not `itemIdentifier`.  For SQS also an invalid
  JSON response and an `itemIdentifier` that is not a message of the batch.  The streams
  pages list neither; lambdafuzz assumes the same there (LocalStack's emulation of the
  event source mappings fails the whole batch for both), and counts a response that is no
  JSON object at all (a string, a list, a number) as invalid for every kind;
* streams: Lambda checkpoints at the reported record with the lowest sequence number and
  retries every record from it; SQS: the reported messages become visible again.

The findings (`BatchProblem`):

* `MALFORMED`, `UNKNOWN_ID`: the response makes Lambda retry the whole batch: every record
  is processed again, and a poison record blocks the batch (a stream shard) until it
  expires.  Checked when reporting is on.
* `SWALLOWED`: the handler caught a record's error and reported no failure, so Lambda
  deletes (SQS) or checkpoints past (streams) the record whose processing raised: lost.
  The rule is narrow on purpose: reporting is on, the handler returned a valid response
  reporting no failure, and `handled` (`harness.handled`: exceptions caught *in
  application code* by a clause that matches them, data-dependent ones or ones a broad
  clause caught; never the application's own `raise`) holds a catch whose site is a
  *record catch* (`analysis.record_catches`): a catch-all clause that runs once per record
  (in the loop over the event's records, or at the top of a function that loop calls)
  and does not hand the record on (a DLQ, a failure table, a delete).  A specific clause
  (`except json.JSONDecodeError`: a poison message skipped on purpose) or a catch outside
  the record loop (reading configuration) is not one.  Limits: a handler that raises on
  purpose (`raise ValueError`) inside its own catch-all is not seen (`handled` keeps no
  explicit raise); one that reports *some* failures and swallows another is not told
  apart; Powertools' `BatchProcessor` catches record errors in library code, which
  `handled` never records: a correct Powertools handler gives no finding, and neither
  does a record handler of it that swallows.  When reporting is off, only `IGNORED` is
  checked: the function has no way to report.
* `IGNORED` (a notice): reporting is off but the function returns `batchItemFailures`:
  Lambda ignores it and counts every record as processed.

All of it reads the response as the runtime sends it: the JSON-decoded return value.
Call the checks only for a handler that returned (an exception or a timeout fails the
whole batch: Lambda retries it all, and nothing here applies).
"""

from __future__ import annotations

import enum
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# how Lambda reads a response and what it delivers next live in the model layer (the
# worker's second delivery needs them too); named here as before
from lambdafuzz.model.batch_delivery import (
    BATCH_KINDS,
    ID_NAMES,
    BatchResponse,
    batch_ids,
    read_response,
    records_of,
    redelivered,
)
from lambdafuzz.model.outcome import FailureInfo
from lambdafuzz.model.target import TriggerKind

__all__ = [
    "BATCH_KINDS",
    "ID_NAMES",
    "BatchFinding",
    "BatchProblem",
    "BatchResponse",
    "HandledLike",
    "batch_ids",
    "check_batch_response",
    "read_response",
    "redelivered",
]


class BatchProblem(enum.StrEnum):
    """What is wrong with one test's batch response."""

    UNKNOWN_ID = "unknown-id"  # an itemIdentifier not in the batch: the whole batch retried
    MALFORMED = "malformed"  # not a response Lambda accepts: the whole batch retried
    SWALLOWED = "swallowed"  # a record's error caught, no failure reported: the record lost
    IGNORED = "ignored"  # a notice: batchItemFailures without the setting, ignored

    @property
    def notice(self) -> bool:
        """Whether it is said, not counted as a finding (Lambda behaves as configured)."""
        return self is BatchProblem.IGNORED


@dataclass(frozen=True, slots=True)
class BatchFinding:
    """One problem of one test's response: `detail` is the line a user reads."""

    problem: BatchProblem
    detail: str
    # UNKNOWN_ID, IGNORED: the identifiers reported; SWALLOWED: the batch's (every one
    # counted as processed); MALFORMED: the well-formed ones reported beside the bad items
    item_ids: tuple[str, ...] = ()
    # SWALLOWED: the catch site (`app/h.py:40`) and the type caught; else ""
    where: str = ""
    exception_type: str = ""

    @property
    def signature(self) -> str:
        """What keys it across a campaign: the problem, and for SWALLOWED the catch site;
        never the identifiers, which differ with every input."""
        return f"batch {self.problem}" + (f" at {self.where}" if self.where else "")


class HandledLike(Protocol):
    """What the check reads of a caught exception (`harness.handled.HandledException`)."""

    @property
    def info(self) -> FailureInfo: ...
    @property
    def caught_at(self) -> str: ...


# =========================================================================== the check
def check_batch_response(
    kind: TriggerKind,
    event: Any,
    response: Any,
    reporting: bool,
    handled: Sequence[HandledLike],
    *,
    record_catches: Container[str] | None = None,
) -> tuple[BatchFinding, ...]:
    """The problems of one test's batch response (the module's docstring says which and
    why); () for other trigger kinds and events that hold no batch.

    `response`: the handler's JSON-decoded return value; `reporting`: the trigger's
    `report_batch_item_failures`; `handled`: the test's caught exceptions.
    `record_catches`: the catch sites (`caught_at`) that count for SWALLOWED, an
    `analysis.record_catches.RecordCatches` of the target; None: every catch in `handled`
    counts (no source read: less precise, for callers that checked the sites themselves)."""
    ids = batch_ids(kind, event)
    if ids is None:
        return ()
    read = read_response(response)
    if not reporting:
        ignored = _ignored(kind, response, read)
        return (ignored,) if ignored is not None else ()
    records = len(records_of(event) or ())
    found: list[BatchFinding] = []
    if read.malformed:
        found.append(
            BatchFinding(
                BatchProblem.MALFORMED,
                f"{'; '.join(read.malformed)}: Lambda cannot read the batch response and "
                f"{_whole_batch(kind, records)}",
                read.reported,
            )
        )
    known = set(ids)
    unknown = tuple(dict.fromkeys(i for i in read.reported if i not in known))
    if unknown:
        found.append(
            BatchFinding(
                BatchProblem.UNKNOWN_ID,
                f"batchItemFailures reports {', '.join(map(repr, unknown[:3]))}"
                f"{' ...' if len(unknown) > 3 else ''}, not the {ID_NAMES[kind]} of a record "
                f"of the batch: Lambda {_whole_batch(kind, records)}",
                unknown,
            )
        )
    if found or read.reported or not records:
        return tuple(found)
    sites: dict[str, HandledLike] = {}
    for item in handled:
        if record_catches is None or item.caught_at in record_catches:
            sites.setdefault(item.caught_at, item)
    return tuple(_swallowed(kind, ids, records, item) for item in sites.values())


def _ignored(kind: TriggerKind, response: Any, read: BatchResponse) -> BatchFinding | None:
    failures = response.get("batchItemFailures") if isinstance(response, dict) else None
    if not isinstance(failures, list) or not failures:
        return None
    return BatchFinding(
        BatchProblem.IGNORED,
        f"the function returns batchItemFailures ({len(failures)} item"
        f"{'s' if len(failures) != 1 else ''}) but its event source mapping has no "
        "FunctionResponseTypes: [ReportBatchItemFailures]: Lambda ignores the response "
        f"and counts every {_record_word(kind)} as processed (turn it on, or say "
        "`report_batch_item_failures: true` in lambdafuzz.yaml if it is on)",
        read.reported,
    )


def _swallowed(
    kind: TriggerKind, ids: tuple[str, ...], records: int, item: HandledLike
) -> BatchFinding:
    info = item.info
    raised = f" raised at {info.location}" if info.location else ""
    word = _record_word(kind)
    some = f"all {records} {word}s" if records != 1 else f"its {word}"
    lost = (
        f"Lambda deletes {some}" if kind is TriggerKind.SQS else f"Lambda checkpoints past {some}"
    )
    return BatchFinding(
        BatchProblem.SWALLOWED,
        f"{info.exception_type}{raised} was caught at {item.caught_at} while the batch was "
        f"processed, and the response reports no failure: {lost}, and the "
        f"{word} whose processing raised is lost (report its {ID_NAMES[kind]} "
        "in batchItemFailures, or let the error escape)",
        ids,
        where=item.caught_at,
        exception_type=info.exception_type,
    )


def _whole_batch(kind: TriggerKind, records: int) -> str:
    again = "processed again" if kind is TriggerKind.SQS else "retried"
    return f"fails the whole batch: {_count(records, _record_word(kind))} {again}"


def _count(n: int, word: str) -> str:
    """`all 3 messages are`, `its message is`."""
    return f"its {word} is" if n == 1 else f"all {n} {word}s are"


def _record_word(kind: TriggerKind) -> str:
    return "message" if kind is TriggerKind.SQS else "record"
