"""Whether an event agrees with the world it was sent into: the S3 objects it names.

With `trigger.missing_objects` on, an S3 notification may name an object that is not in
its bucket (deleted before the notification arrived).  A handler that fails on such an
event fails on a world inconsistency, a race most teams handle on purpose or accept, not
on bad input data; the campaign labels those failures with what this module finds.

It reads the rendered event, so every way a notification reaches a handler is covered the
same way: S3 event records, EventBridge "Object Created" events, and either of them as the
JSON body of an SQS message or the message of an SNS notification.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from typing import Any

from lambdafuzz.model.world import World

#: Bodies longer than this are not parsed for a notification (a notification is ~1-2 KB).
MAX_BODY_CHARS = 64 * 1024


def missing_objects(event: Any, world: World) -> tuple[str, ...]:
    """`s3://bucket/key` of every object the event's S3 notifications name that the world's
    bucket does not hold (buckets the world does not have are not judged)."""
    buckets = {b.name: b for b in world.buckets}
    missing: dict[str, None] = {}
    for bucket, key in named_objects(event):
        found = buckets.get(bucket)
        if found is not None and found.get(key) is None:
            missing[f"s3://{bucket}/{key}"] = None
    return tuple(missing)


def describe(missing: tuple[str, ...]) -> str:
    """The label of a failure on such an event, or "" when nothing is missing."""
    if not missing:
        return ""
    names = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
    return (
        f"world inconsistency: the event names {names}, not in the bucket (deleted before "
        "the notification arrived; trigger.missing_objects)"
    )


def named_objects(event: Any) -> Iterator[tuple[str, str]]:
    """(bucket, key) of every object an S3 notification in `event` names."""
    if not isinstance(event, dict):
        return
    records = event.get("Records")
    if isinstance(records, list):
        for record in records:
            if not isinstance(record, dict):
                continue
            s3 = record.get("s3")
            removal = str(record.get("eventName", "")).startswith("ObjectRemoved")
            if isinstance(s3, dict) and not removal:  # a removed object is gone by design
                yield from _s3_record(s3)
            sqs_body = record.get("body")
            if isinstance(sqs_body, str):
                yield from _body(sqs_body)
            sns = record.get("Sns")
            if isinstance(sns, dict) and isinstance(sns.get("Message"), str):
                yield from _body(sns["Message"])
    detail = event.get("detail")
    if event.get("detail-type") == "Object Deleted":
        return  # the object is gone by design, not by a race
    if event.get("source") == "aws.s3" and isinstance(detail, dict):
        bucket, obj = detail.get("bucket"), detail.get("object")
        if isinstance(bucket, dict) and isinstance(obj, dict):
            name, key = bucket.get("name"), obj.get("key")
            if isinstance(name, str) and isinstance(key, str):
                yield name, key  # EventBridge keys are not URL-encoded


def _s3_record(s3: dict[str, Any]) -> Iterator[tuple[str, str]]:
    bucket, obj = s3.get("bucket"), s3.get("object")
    if isinstance(bucket, dict) and isinstance(obj, dict):
        name, key = bucket.get("name"), obj.get("key")
        if isinstance(name, str) and isinstance(key, str):
            yield name, urllib.parse.unquote_plus(key)  # S3 records form-encode keys


def _body(text: str) -> Iterator[tuple[str, str]]:
    if len(text) > MAX_BODY_CHARS or not text.lstrip().startswith("{"):
        return
    try:
        document = json.loads(text)
    except ValueError:
        return
    yield from named_objects(document)
