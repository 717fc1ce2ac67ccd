"""What the deployment delivers of a rendered event: Lambda's event filtering.

Lambda applies a trigger's `FilterCriteria` to each record of a batch and drops those no
pattern matches; an EventBridge rule sends an event only when its pattern matches.  The
harness hands the handler what this module returns, and does not invoke it at all when
nothing is left, so no failure is ever saved on an input the deployment cannot deliver.

Each kind is matched on what Lambda matches it on: an SQS record with its `body` parsed
when the body is a JSON object (a plain string otherwise, which only string rules
match), a DynamoDB stream record as it is (typed images), a Kinesis record's `kinesis`
metadata with `data` decoded (JSON when it parses, else the text), an EventBridge event
whole.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from typing import Any

from lambdafuzz.model.event_pattern import load_pattern, matches_any
from lambdafuzz.model.target import Trigger, TriggerKind

#: Trigger kinds whose event is a batch of records Lambda filters one by one.
RECORD_FILTER_KINDS = (TriggerKind.SQS, TriggerKind.DYNAMODB_STREAM, TriggerKind.KINESIS)
#: Trigger kinds whose whole event is matched (an EventBridge rule's pattern).
EVENT_FILTER_KINDS = (TriggerKind.EVENTBRIDGE,)
#: Why a test whose every record was filtered out is invalid (not a failure).
FILTERED_OUT = "the trigger's filters admit no record of this event: Lambda would not invoke"


def delivered_event(event: dict[str, Any], trigger: Trigger) -> dict[str, Any] | None:
    """`event` with the records the trigger's filters drop removed; None when the
    deployment would not invoke the handler with any of it."""
    if not trigger.filters:
        return event
    patterns = [load_pattern(text) for text in trigger.filters]
    if trigger.kind in EVENT_FILTER_KINDS:
        return event if matches_any(patterns, event) else None
    if trigger.kind not in RECORD_FILTER_KINDS:
        return event
    records = event.get("Records")
    if not isinstance(records, list):
        return event
    kept = [r for r in records if matches_any(patterns, filter_view(trigger.kind, r))]
    if not kept:
        return None
    return event if len(kept) == len(records) else {**event, "Records": kept}


def filter_view(kind: TriggerKind, record: Mapping[str, Any]) -> Mapping[str, Any]:
    """One record as Lambda's filter sees it."""
    if kind is TriggerKind.SQS:
        return {**record, "body": parsed_body(record.get("body"))}
    if kind is TriggerKind.KINESIS:
        metadata = record.get("kinesis")
        if not isinstance(metadata, Mapping):
            return record
        return {**metadata, "data": _decoded_data(metadata.get("data"))}
    return record


def parsed_body(body: Any) -> Any:
    """A message body as the filter sees it: the object when it is a JSON object, else
    the text itself."""
    if not isinstance(body, str):
        return body
    try:
        value = json.loads(body)
    except ValueError:
        return body
    return value if isinstance(value, dict) else body


def _decoded_data(data: Any) -> Any:
    if not isinstance(data, str):
        return data
    try:
        text = base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return data
    return parsed_body(text)


def delivered_share(patterns: Sequence[Mapping[str, Any]], kind: TriggerKind, event: Any) -> float:
    """The share of `event`'s records (or the event itself) the patterns admit: what the
    steering of the generators is measured by."""
    if kind in EVENT_FILTER_KINDS:
        return float(matches_any(patterns, event))
    records = event.get("Records", []) if isinstance(event, Mapping) else []
    if not records:
        return 0.0
    hits = sum(matches_any(patterns, filter_view(kind, r)) for r in records)
    return hits / len(records)
