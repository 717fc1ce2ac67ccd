"""What AWS would refuse in a World, checked the same way before every loader runs.

In-process moto stores almost anything handed to its backend objects, while moto-server,
LocalStack and AWS refuse or alter it on the way in (an empty set, a metadata value with a
newline, a NUL in a message body). Checking here, once, makes every backend accept or
refuse a world alike, with a BackendError that names the resource, index and field.
Generators should never produce what these checks refuse.
"""

from __future__ import annotations

import math
import re
from typing import Any

from lambdafuzz.errors import BackendError
from lambdafuzz.model.world import Bucket, ItemT, Queue, QueueMessage, S3Object, Table

FIFO_GROUP_ID = "lambdafuzz"  # MessageGroupId of a FIFO message that names none
MAX_ITEM_BYTES = 405_000  # moto's item limit (DynamoDB's 400 KB, measured as moto measures it)
MAX_MESSAGE_CHARS = 262_144  # SQS's 256 KiB; moto counts characters
_META_NAME = re.compile(r"^[A-Za-z0-9\-_.]+$")
_META_VALUE = re.compile(r"^(?:[!-~](?:[ -~]*[!-~])?)?$")  # printable ASCII, no edge blanks
_SQS_ATTRIBUTE_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")
# Characters SQS accepts in a body (#x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF).
_SQS_BAD_CHAR = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_SETS = ("SS", "NS", "BS")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


class _Refused(ValueError):
    pass


def check_item(table: Table, index: int, item: ItemT) -> tuple[int, bool]:
    """Reject an item DynamoDB's PutItem would refuse; return (size bound, holds a set).

    Key attributes present with the schema's type and non-empty; numbers finite decimal
    strings; sets non-empty; tags known. The size bound is >= moto's item size, so a loader
    needs moto's exact (slower) measure only above MAX_ITEM_BYTES. One walk does it all.
    """
    schema = table.key_schema
    for name, kind in (
        (schema.hash_name, schema.hash_type),
        (schema.range_name, schema.range_type),
    ):
        if name is None:
            continue
        value = item.get(name)
        if value is None or kind not in value or value[kind] in ("", None):
            raise BackendError(
                f"table {table.name!r} item {index}: key attribute {name!r} must be a non-empty "
                f"{kind}, got {value!r}"
            )
    if table.indexes:
        for name, kind in table.index_key_types().items():
            value = item.get(name)
            if value is not None and (kind not in value or value[kind] in ("", None)):
                raise BackendError(
                    f"table {table.name!r} item {index}: index key attribute {name!r} must be "
                    f"a non-empty {kind} (or absent), got {value!r}"
                )
    found_set = [False]
    bound = 0
    for name, av in item.items():
        # Inline the commonest case, a top-level string (saves a call per attribute).
        if type(av) is dict and len(av) == 1 and type(av.get("S")) is str:
            bound += 4 * (len(name) + len(av["S"]))
            continue
        try:
            bound += 4 * len(name) + _bound(av, found_set)
        except _Refused as e:
            raise BackendError(
                f"table {table.name!r} item {index} attribute {name!r}: {e}"
            ) from None
    return bound, found_set[0]


def _bound(av: Any, found_set: list[bool]) -> int:
    """An upper bound of moto's `DynamoType.size()` (UTF-8 <= 4 bytes a character)."""
    if type(av) is not dict or len(av) != 1:
        raise _Refused(f"not a DynamoDB attribute value: {av!r}")
    ((tag, value),) = av.items()
    if tag == "S":
        if type(value) is not str:
            raise _Refused(f"an S value must be a string, got {value!r}")
        return 4 * len(value)
    if tag == "N":
        plain_digits = type(value) is str and value.isascii() and value.isdigit()
        if not plain_digits:  # the common case skips the regex
            _check_number(value)
        return len(value)
    if tag == "M":
        return sum([4 * len(k) + _bound(v, found_set) for k, v in value.items()])
    if tag == "L":
        return sum([_bound(v, found_set) for v in value])
    if tag == "BOOL" or tag == "NULL":
        if type(value) is not bool or (tag == "NULL" and value is not True):
            raise _Refused(
                f"{tag} must be {'true' if tag == 'NULL' else 'a boolean'}, got {value!r}"
            )
        return 1
    if tag == "B":
        if not isinstance(value, str | bytes):
            raise _Refused(f"a B value must be base64 text, got {value!r}")
        return len(value)
    if tag in _SETS:
        if not value or type(value) is not list:
            raise _Refused(f"an empty {tag} set (DynamoDB refuses empty sets)")
        found_set[0] = True
        if tag == "NS":
            for v in value:
                _check_number(v)
        elif not all(type(v) is str or (tag == "BS" and type(v) is bytes) for v in value):
            raise _Refused(f"{tag} members must be {'base64 text' if tag == 'BS' else 'strings'}")
        return (4 if tag == "SS" else 1) * sum(map(len, value))
    raise _Refused(f"unknown DynamoDB type {tag!r}")


def _check_number(value: Any) -> None:
    # One regex match for plain decimals; exponents also go through float() so that a value
    # moto-server would refuse as infinite (1e400) is refused here too.
    ok = type(value) is str and _PLAIN_NUMBER.match(value) is not None
    if ok and ("e" in value or "E" in value):
        ok = math.isfinite(float(value))
    if not ok:
        raise _Refused(f"{value!r} is not a DynamoDB number (a finite decimal string)")


def check_object(bucket: Bucket, obj: S3Object) -> None:
    """Reject an object S3 would refuse or change on the way in.

    Metadata travels as HTTP headers (`x-amz-meta-NAME`): names are header tokens, values
    printable ASCII without surrounding blanks (HTTP strips them). In-process moto would
    store anything; moto-server and real S3 would not.
    """
    where = f"bucket {bucket.name!r} object {obj.key!r}"
    if not obj.key or len(obj.key.encode("utf-8")) > 1024:
        raise BackendError(f"{where}: a key must be 1..1024 UTF-8 bytes")
    for name, value in obj.metadata:
        if not _META_NAME.match(name):
            raise BackendError(f"{where}: metadata name {name!r} is not an HTTP header token")
        if not _META_VALUE.match(value):
            raise BackendError(
                f"{where}: metadata {name}={value!r} must be printable ASCII without leading or "
                "trailing blanks (it travels as an HTTP header)"
            )


def fifo_ids(message: QueueMessage, index: int) -> tuple[str, str]:
    """MessageGroupId and MessageDeduplicationId of a FIFO message (defaults: one group, index)."""
    return message.group_id or FIFO_GROUP_ID, message.deduplication_id or f"message-{index}"


def check_queue(queue: Queue) -> None:
    """Every message of a world must arrive, in order: SQS would drop a FIFO duplicate."""
    if queue.fifo:
        seen: dict[str, int] = {}
        for i, message in enumerate(queue.messages):
            dedup = fifo_ids(message, i)[1]
            if dedup in seen:
                raise BackendError(
                    f"queue {queue.name!r} messages {seen[dedup]} and {i} share the deduplication "
                    f"id {dedup!r}; SQS would drop message {i}, so the world cannot hold both"
                )
            seen[dedup] = i
    elif any(m.group_id for m in queue.messages):
        raise BackendError(f"queue {queue.name!r} is not FIFO but a message has a MessageGroupId")


def check_message(queue: Queue, index: int, message: QueueMessage) -> None:
    """Reject a message SQS's SendMessage would refuse."""
    where = f"queue {queue.name!r} message {index}"
    if not message.body or len(message.body) > MAX_MESSAGE_CHARS:
        raise BackendError(
            f"{where}: body must be 1..{MAX_MESSAGE_CHARS} characters, got {len(message.body)}"
        )
    bad = _SQS_BAD_CHAR.search(message.body)
    if bad:
        raise BackendError(f"{where}: SQS refuses the character {bad.group()!r} in a body")
    for name, _ in message.attributes:
        if not _SQS_ATTRIBUTE_NAME.match(name) or name.lower().startswith(("aws.", "amazon.")):
            raise BackendError(f"{where}: invalid message attribute name {name!r}")
