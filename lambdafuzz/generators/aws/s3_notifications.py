"""S3 event notifications about objects of the world: as an S3 event record and as the
EventBridge "Object Created" event.

The same plan feeds an S3-triggered handler's `Records`, the JSON body of an SQS or SNS
message that carries a notification, and an EventBridge event, so all three agree on key,
size, ETag and time.  Keys are URL-encoded in S3 records exactly where real S3 encodes
them (form encoding: space -> `+`, `+` -> `%2B`, `/` kept), and left raw in EventBridge
events.  Only when the trigger asks for it (`trigger.missing_objects`), and then now and
then (`MISSING_P`, 2%), a record names an object that is not in the bucket: what a handler
sees when an object was deleted before the notification arrived.  Otherwise every record
names an object of the world (the world generator makes sure there is one).  With edge
values on, an EventBridge rule that admits "Object Deleted" events gets some (all, if it
admits only those): the object is then absent, as it is after a deletion.
"""

from __future__ import annotations

import hashlib
import json
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.s3 import draw_object_key
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.model.target import ObjectsSpec
from lambdafuzz.model.world import Bucket

#: How the object came to be: S3 eventName suffix -> EventBridge `reason`.
CREATED_BY: Final = {"Put": "PutObject", "Post": "POST Object", "Copy": "CopyObject"}
MISSING_P: Final = 0.02
#: How an object was removed: S3 eventName suffix -> EventBridge `deletion-type`.
DELETION_TYPES: Final = {
    "Delete": "Permanently Deleted",
    "DeleteMarkerCreated": "Delete Marker Created",
}
_MISSING_EXTENSIONS: Final = ("", "txt", "csv", "json", "jpg", "png", "zip")


@dataclass(slots=True, frozen=True)
class S3RecordPlan:
    """One notification: which object, when, how; ids derive from `seed`."""

    bucket: str
    key: str  # the object key itself; encoded only when rendered into an S3 record
    size: int
    etag: str
    time_ms: int
    seed: bytes
    created_by: str = "Put"  # a key of CREATED_BY
    missing: bool = False  # the key names no object of the world
    # a removal: "Delete" or "DeleteMarkerCreated" (S3 `ObjectRemoved:*`, EventBridge
    # "Object Deleted"), the object then gone; "": a creation
    deleted: str = ""


@generator(labels.S3_EVENT)
def draw_s3_record(
    choices: Choices,
    buckets: Sequence[Bucket],
    *,
    bucket: str | None = None,
    missing_p: float = 0.0,
    key_shape: ObjectsSpec | None = None,
    deleted: str = "",
) -> S3RecordPlan:
    """A notification for an object of `bucket` (default: any bucket holding objects); with
    probability `missing_p` (or when there is no object) for a key that is not there,
    shaped by `key_shape`'s prefixes and suffixes (the notification's key filter).
    `deleted`: a removal of that kind ("Delete", "DeleteMarkerCreated"), the object then
    never there."""
    if bucket is None:
        holding = [b for b in buckets if b.objects] or list(buckets)
        chosen = choices.draw_choice(holding, site="bucket")
    else:
        chosen = next(b for b in buckets if b.name == bucket)
    # the draw stays even at missing_p 0 (the recorded layout does not change with the
    # setting), but a mutated True only counts where missing objects are allowed
    drawn = choices.draw_boolean(missing_p, site="missing?")
    missing = bool(deleted) or (drawn and missing_p > 0) or not chosen.objects
    if missing:
        extension = choices.draw_choice(_MISSING_EXTENSIONS, site="extension")
        prefixes = key_shape.prefixes if key_shape else ()
        suffixes = key_shape.suffixes if key_shape else ()
        ending = choices.draw_choice(suffixes, site="suffix") if suffixes else None
        key = draw_object_key(
            choices, prefixes=prefixes, extension=extension, ending=ending, site="missing-key"
        )
        prefix = next((p for p in prefixes if key.startswith(p)), "")
        while chosen.get(key) is not None:  # keeps the prefix: the filter still passes it
            key = prefix + "missing-" + key[len(prefix) :]
        size = choices.draw_geometric(2000.0, max_value=1 << 24, site="size")
        etag = hashlib.md5(key.encode()).hexdigest()  # noqa: S324 - an ETag, not security
    else:
        obj = choices.draw_choice(chosen.objects, site="object")
        key, size, etag = obj.key, len(obj.data), obj.etag
    created_by = choices.draw_weighted(tuple(CREATED_BY), (0.9, 0.05, 0.05), site="created-by")
    time_ms = ids.draw_time_ms(choices)
    seed = ids.draw_seed(choices)
    return S3RecordPlan(chosen.name, key, size, etag, time_ms, seed, created_by, missing, deleted)


def missing_chance(missing_objects: bool) -> float:
    """The chance of a notification naming a missing object under a trigger's setting."""
    return MISSING_P if missing_objects else 0.0


def encode_key(key: str) -> str:
    """An object key as S3 writes it into an event record (HTML form encoding, `/` kept)."""
    return urllib.parse.quote_plus(key, safe="/")


def sequencer(plan: S3RecordPlan) -> str:
    """18 upper-case hex digits that grow with the event time, as S3's do."""
    return f"{plan.time_ms:016X}"[-16:] + ids.hex_id(plan.seed, "sequencer", 2)


def source_ip(seed: bytes) -> str:
    """A public-looking IPv4 address (first octet 11..223)."""
    a, b, c, d = ids.derive(seed, "ip", 4)
    return f"{11 + a % 213}.{b}.{c}.{1 + d % 254}"


def owner_id(bucket: str) -> str:
    return ids.alnum_id(bucket.encode(), "owner", 14)


def render_s3_record(plan: S3RecordPlan, region: str) -> dict[str, Any]:
    """One element of an S3 event's `Records` (event structure version 2.1); a removal's
    object has no size or ETag."""
    seed = plan.seed
    record = {
        "eventVersion": "2.1",
        "eventSource": "aws:s3",
        "awsRegion": region,
        "eventTime": ids.iso_ms(plan.time_ms),
        "eventName": f"ObjectCreated:{plan.created_by}",
        "userIdentity": {"principalId": "AWS:" + ids.alnum_id(seed, "principal", 21)},
        "requestParameters": {"sourceIPAddress": source_ip(seed)},
        "responseElements": {
            "x-amz-request-id": ids.hex_id(seed, "request", 16),
            "x-amz-id-2": ids.b64_id(seed, "host", 57),
        },
        "s3": {
            "s3SchemaVersion": "1.0",
            "configurationId": ids.uuid(plan.bucket.encode(), "configuration"),
            "bucket": {
                "name": plan.bucket,
                "ownerIdentity": {"principalId": owner_id(plan.bucket)},
                "arn": f"arn:aws:s3:::{plan.bucket}",
            },
            "object": {
                "key": encode_key(plan.key),
                "size": plan.size,
                "eTag": plan.etag,
                "sequencer": sequencer(plan),
            },
        },
    }
    if plan.deleted:
        record["eventName"] = f"ObjectRemoved:{plan.deleted}"
        record["s3"]["object"] = {"key": encode_key(plan.key), "sequencer": sequencer(plan)}
    return record


def render_s3_event(plans: Sequence[S3RecordPlan], region: str) -> dict[str, Any]:
    return {"Records": [render_s3_record(p, region) for p in plans]}


def render_eventbridge(plan: S3RecordPlan, region: str, account: str) -> dict[str, Any]:
    """The EventBridge "Object Created" event for the same object (key not encoded), or
    its "Object Deleted" event (`plan.deleted`: no size or ETag, a deletion type)."""
    seed = plan.seed
    if plan.deleted:
        return {
            "version": "0",
            "id": ids.uuid(seed, "eventbridge"),
            "detail-type": "Object Deleted",
            "source": "aws.s3",
            "account": account,
            "time": ids.iso_seconds(plan.time_ms),
            "region": region,
            "resources": [f"arn:aws:s3:::{plan.bucket}"],
            "detail": {
                "version": "0",
                "bucket": {"name": plan.bucket},
                "object": {"key": plan.key, "sequencer": sequencer(plan)},
                "request-id": ids.hex_id(seed, "request", 16),
                "requester": account,
                "source-ip-address": source_ip(seed),
                "reason": "DeleteObject",
                "deletion-type": DELETION_TYPES[plan.deleted],
            },
        }
    return {
        "version": "0",
        "id": ids.uuid(seed, "eventbridge"),
        "detail-type": "Object Created",
        "source": "aws.s3",
        "account": account,
        "time": ids.iso_seconds(plan.time_ms),
        "region": region,
        "resources": [f"arn:aws:s3:::{plan.bucket}"],
        "detail": {
            "version": "0",
            "bucket": {"name": plan.bucket},
            "object": {
                "key": plan.key,
                "size": plan.size,
                "etag": plan.etag,
                "sequencer": sequencer(plan),
            },
            "request-id": ids.hex_id(seed, "request", 16),
            "requester": account,
            "source-ip-address": source_ip(seed),
            "reason": CREATED_BY[plan.created_by],
        },
    }


def render_test_event(bucket: str, time_ms: int, seed: bytes) -> dict[str, Any]:
    """The `s3:TestEvent` S3 sends once when a notification is configured: the message a
    queue consumer meets first and often crashes on (it has no `Records`)."""
    return {
        "Service": "Amazon S3",
        "Event": "s3:TestEvent",
        "Time": ids.iso_ms(time_ms),
        "Bucket": bucket,
        "RequestId": ids.hex_id(seed, "request", 16),
        "HostId": ids.b64_id(seed, "host", 57),
    }


def dumps(document: dict[str, Any]) -> str:
    """JSON as AWS services write it into message bodies (compact, non-ASCII kept)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
