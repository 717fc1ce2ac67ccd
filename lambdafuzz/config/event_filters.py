"""`trigger.filters`: the event patterns a deployment filters the trigger's events with.

Checked here so that a mistake reads as one `ConfigError` at the pattern's place, not as
a campaign in which every input is silently dropped: each pattern must be well formed
(`model.event_pattern.check_pattern`), the trigger kind must be one whose deployment
filters (SQS, DynamoDB and Kinesis event source mappings; EventBridge rules), and the
pattern's top-level fields must be fields of what is filtered (a record, an event): an
SQS pattern on `type` instead of `body.type` would match nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from lambdafuzz.config.source import Locator, nearest
from lambdafuzz.model.event_pattern import (
    OR_KEY,
    PatternError,
    check_pattern,
    dump_pattern,
    leaf_matches,
    load_pattern,
)
from lambdafuzz.model.target import TriggerKind

#: What each filtering kind's pattern is matched against, by its top-level fields.
FILTERED_FIELDS: Final[Mapping[TriggerKind, tuple[str, ...]]] = {
    TriggerKind.SQS: (
        "body", "messageId", "receiptHandle", "attributes", "messageAttributes", "md5OfBody",
        "md5OfMessageAttributes", "eventSource", "eventSourceARN", "awsRegion",
    ),
    TriggerKind.DYNAMODB_STREAM: (
        "eventName", "dynamodb", "eventID", "eventVersion", "eventSource", "awsRegion",
        "eventSourceARN", "userIdentity",
    ),
    TriggerKind.KINESIS: (
        "data", "partitionKey", "sequenceNumber", "kinesisSchemaVersion",
        "approximateArrivalTimestamp",
    ),
    TriggerKind.EVENTBRIDGE: (
        "source", "detail-type", "detail", "account", "region", "resources", "time", "id",
        "version", "replay-name",
    ),
}  # fmt: skip
_WHAT = {
    TriggerKind.SQS: "an SQS record (filter the message with `body`)",
    TriggerKind.DYNAMODB_STREAM: "a DynamoDB stream record (images under `dynamodb`)",
    TriggerKind.KINESIS: "a Kinesis record's metadata (the payload under `data`)",
    TriggerKind.EVENTBRIDGE: "an EventBridge event",
}


def trigger_filters(where: Locator, kind: TriggerKind, raw: Sequence[Any]) -> tuple[str, ...]:
    """The validated patterns of `trigger.filters` as canonical JSON texts."""
    loc = ("trigger", "filters")
    if not raw:
        return ()
    if kind not in FILTERED_FIELDS:
        extra = (
            "; for an S3 notification's key filter use resources.buckets[].objects.prefixes "
            "and .suffixes"
            if kind is TriggerKind.S3
            else ""
        )
        raise where.error(
            loc,
            list(raw),
            "filters only for " + ", ".join(k.value for k in FILTERED_FIELDS) + extra,
        )
    texts = []
    for i, pattern in enumerate(raw):
        try:
            check_pattern(pattern)
        except PatternError as exc:
            raise where.error((*loc, i, *exc.path), _at(pattern, exc.path), exc.expected) from None
        _check_fields(where, kind, pattern, (*loc, i))
        texts.append(dump_pattern(pattern))
    return tuple(dict.fromkeys(texts))


def _check_fields(
    where: Locator, kind: TriggerKind, pattern: Mapping[str, Any], loc: tuple[Any, ...]
) -> None:
    fields = FILTERED_FIELDS[kind]
    for key, value in pattern.items():
        if key == OR_KEY:
            for j, alternative in enumerate(value):
                _check_fields(where, kind, alternative, (*loc, key, j))
        elif key not in fields:
            raise where.error(
                (*loc, key),
                value,
                f"a field of {_WHAT[kind]}: one of {', '.join(fields)}",
                nearest(key, fields),
            )


def _at(pattern: Any, path: Sequence[Any]) -> Any:
    value = pattern
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return value
    return value


def admits_s3(filters: Sequence[str]) -> bool:
    """Whether an EventBridge rule with these patterns takes S3 "Object Created" events
    (no pattern: it does; else one pattern's `source` and `detail-type`, where it has
    them, admit them), i.e. whether its events describe a bucket's objects rather than
    custom events."""
    if not filters:
        return True
    s3_event = {"source": "aws.s3", "detail-type": "Object Created"}
    for text in filters:
        pattern = load_pattern(text)
        if all(
            isinstance(pattern.get(field), list) and leaf_matches(pattern[field], value)
            for field, value in s3_event.items()
            if field in pattern
        ):
            return True
    return False
