"""What Lambda reads of a batch function's response, and what it delivers next.

An SQS, Kinesis or DynamoDB-stream function's response is read only when its event source
mapping has `FunctionResponseTypes: [ReportBatchItemFailures]`
(`Trigger.report_batch_item_failures`).  What the AWS documentation says (Lambda developer
guide, "Implementing partial batch responses" for SQS, "Configuring partial batch
response" for Kinesis and DynamoDB streams):

* the response is `{"batchItemFailures": [{"itemIdentifier": ID}, ...]}`; ID is the
  record's `messageId` (SQS), `kinesis.sequenceNumber` (Kinesis) or
  `dynamodb.SequenceNumber` (DynamoDB streams);
* a complete success (nothing retried): an empty or null `batchItemFailures` list, an
  empty or null response (an object without `batchItemFailures` is one);
* a complete failure (the whole batch retried): an empty-string or null
  `itemIdentifier`, an item whose key is not `itemIdentifier`, an invalid response, an
  `itemIdentifier` that is not a record of the batch;
* streams: Lambda checkpoints at the reported record with the lowest sequence number and
  retries every record from it; SQS: the reported messages become visible again.

Both the batch oracle (`fuzzer.batch_response`: what is wrong with a response) and the
worker's second delivery (`harness.redelivery`: what Lambda delivers again) read responses
this way, so it lives here, below both.
"""

from __future__ import annotations

import copy
import decimal
import json
from dataclasses import dataclass
from typing import Any

from lambdafuzz.model.target import TriggerKind

#: The trigger kinds whose functions can report partial batch failures.
BATCH_KINDS = frozenset({TriggerKind.SQS, TriggerKind.KINESIS, TriggerKind.DYNAMODB_STREAM})
#: Where each kind's records hold their item identifier, as the docs name it.
ID_NAMES = {
    TriggerKind.SQS: "messageId",
    TriggerKind.KINESIS: "kinesis.sequenceNumber",
    TriggerKind.DYNAMODB_STREAM: "dynamodb.SequenceNumber",
}
_SHORT = 80


@dataclass(frozen=True, slots=True)
class BatchResponse:
    """A response as Lambda reads it: the identifiers it reports, and what is wrong with
    it (each a phrase; non-empty: Lambda cannot read it and fails the whole batch)."""

    reported: tuple[str, ...]
    malformed: tuple[str, ...] = ()


def read_response(response: Any) -> BatchResponse:
    """`response` (the JSON-decoded return value) as Lambda reads a batch response."""
    if response is None:
        return BatchResponse(())
    if not isinstance(response, dict):
        return BatchResponse((), (f"the response is {_short(response)}, not a JSON object",))
    failures = response.get("batchItemFailures")
    if failures is None:
        return BatchResponse(())
    if not isinstance(failures, list):
        return BatchResponse((), (f"batchItemFailures is {_short(failures)}, not a list",))
    reported: list[str] = []
    bad: list[str] = []
    for i, item in enumerate(failures):
        where = f"batchItemFailures[{i}]"
        if not isinstance(item, dict):
            bad.append(f"{where} is {_short(item)}, not an object")
        elif "itemIdentifier" not in item:
            bad.append(f"{where} has no itemIdentifier (keys {sorted(map(str, item))})")
        elif item["itemIdentifier"] is None:
            bad.append(f"{where}.itemIdentifier is null")
        elif not isinstance(item["itemIdentifier"], str):
            bad.append(f"{where}.itemIdentifier is {_short(item['itemIdentifier'])}, not a string")
        elif not item["itemIdentifier"]:
            bad.append(f"{where}.itemIdentifier is empty")
        else:
            reported.append(item["itemIdentifier"])
    return BatchResponse(tuple(reported), tuple(bad))


def records_of(event: Any) -> list[Any] | None:
    """The event's `Records` list; None when it is no object holding one."""
    if not isinstance(event, dict):
        return None
    records = event.get("Records")
    return records if isinstance(records, list) else None


def batch_ids(kind: TriggerKind, event: Any) -> tuple[str, ...] | None:
    """The item identifiers of the event's records, in batch order; None when the event
    holds no batch of `kind` (not an object with a `Records` list)."""
    records = records_of(event)
    if records is None or kind not in BATCH_KINDS:
        return None
    found = (record_id(kind, r) for r in records)
    return tuple(i for i in found if i is not None)


def redelivered(kind: TriggerKind, event: Any, response: Any) -> Any | None:
    """What Lambda delivers next after `response` with reporting on: SQS, the reported
    messages; streams, every record from the reported one with the lowest sequence number
    (the checkpoint) on; the whole batch when the response is malformed or reports an
    identifier not in the batch.  An event of the same shape (a copy), or None when
    nothing is redelivered (or the event holds no batch)."""
    records = records_of(event)
    if records is None or kind not in BATCH_KINDS:
        return None
    read = read_response(response)
    ids = [record_id(kind, r) for r in records]
    if read.malformed or not set(read.reported) <= set(i for i in ids if i is not None):
        return copy.deepcopy(event)
    if not read.reported:
        return None
    if kind is TriggerKind.SQS:
        wanted = set(read.reported)
        again = [r for r, i in zip(records, ids, strict=True) if i in wanted]
    else:
        checkpoint = min(map(_sequence_key, read.reported))
        again = [
            r
            for r, i in zip(records, ids, strict=True)
            if i is not None and _sequence_key(i) >= checkpoint
        ]
    out = copy.deepcopy({k: v for k, v in event.items() if k != "Records"})
    out["Records"] = copy.deepcopy(again)
    return out


def record_id(kind: TriggerKind, record: Any) -> str | None:
    """A record's item identifier (`ID_NAMES`), None when it has none."""
    if not isinstance(record, dict):
        return None
    if kind is TriggerKind.SQS:
        value = record.get("messageId")
    else:
        inner = record.get("kinesis" if kind is TriggerKind.KINESIS else "dynamodb")
        key = "sequenceNumber" if kind is TriggerKind.KINESIS else "SequenceNumber"
        value = inner.get(key) if isinstance(inner, dict) else None
    return value if isinstance(value, str) and value else None


def _sequence_key(sequence: str) -> tuple[int, str]:
    """Sequence numbers compare as the decimal numbers they are (`"9" < "10"`)."""
    return (int(sequence), "") if sequence.isdigit() else (-1, sequence)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


def lambda_json(value: Any) -> Any:
    """`value` as Lambda's Python runtime hands a response on: serialized to JSON
    (Decimals as numbers, as the runtime's encoder writes them) and read back; a string
    saying why when it cannot be serialized (the invocation then fails with
    Runtime.MarshalError, and a batch is retried whole)."""
    try:
        return json.loads(json.dumps(value, default=_runtime_default))
    except (TypeError, ValueError, RecursionError) as exc:
        return f"<not serializable to JSON: {type(exc).__name__}: {exc}>"[:300]


def _runtime_default(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
