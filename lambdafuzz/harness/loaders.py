"""Put a `World` into an emulator: through moto's backend objects, or through boto3.

`MotoDirectLoader` calls the same backend methods moto's HTTP layer calls (create_bucket,
put_object, create_table, put_item, create_queue, send_message, receive_message,
create_topic), skipping request signing, serialisation and routing: that is what makes
reset+load per test cost well under a millisecond (benchmarks/reset_load.py). `Boto3Loader`
does the same through plain boto3 calls; it loads moto-server and LocalStack, and
cross-checks the direct loader in tests (a handler's boto3 clients must see the same world).

SQS messages are sent and then received, as Lambda's poller does, so each has a real
receipt handle a handler can delete; `receive` limits that to the queues that trigger the
handler (None: every queue), so a handler that polls another queue still finds its messages.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

from lambdafuzz.errors import BackendError
from lambdafuzz.generators.aws.world import (
    Bucket,
    DeliveredMessage,
    ItemT,
    LoadedWorld,
    Queue,
    QueueMessage,
    S3Object,
    Table,
    World,
)
from lambdafuzz.harness.safety import FAKE_ACCESS_KEY_ID, FAKE_SECRET_ACCESS_KEY, FAKE_SESSION_TOKEN

FIFO_GROUP_ID = "lambdafuzz"  # every FIFO message of a world goes to one group, in order
_RECEIVE_BATCH = 10  # SQS's maximum per ReceiveMessage


class WorldLoader(Protocol):
    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld: ...


def s3_iso(ts: datetime) -> str:
    """S3's listing timestamp as moto renders it ("2026-01-02T03:04:05.000Z"): seconds, UTC."""
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    return ts.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def copy_item(item: ItemT) -> ItemT:
    """A copy the emulator may mutate: moto keeps references to the lists and maps it gets.

    ~10x cheaper than `copy.deepcopy` on generated items; scalars are immutable strings.
    """
    return {name: _copy_value(av) for name, av in item.items()}


def _copy_value(av: dict[str, Any]) -> dict[str, Any]:
    ((tag, value),) = av.items()
    if tag == "M":
        return {"M": {k: _copy_value(v) for k, v in value.items()}}
    if tag == "L":
        return {"L": [_copy_value(v) for v in value]}
    if tag in ("SS", "NS", "BS"):
        return {tag: list(value)}
    return {tag: value}


def wire_item(item: ItemT) -> ItemT:
    """DynamoDB JSON as boto3's low-level client takes it: binary values as bytes."""
    return {name: _wire_value(av) for name, av in item.items()}


def _wire_value(av: dict[str, Any]) -> dict[str, Any]:
    ((tag, value),) = av.items()
    match tag:
        case "B":
            return {"B": _b64(value)}
        case "BS":
            return {"BS": [_b64(v) for v in value]}
        case "M":
            return {"M": {k: _wire_value(v) for k, v in value.items()}}
        case "L":
            return {"L": [_wire_value(v) for v in value]}
    return {tag: value}


def _b64(value: str | bytes) -> bytes:
    return base64.b64decode(value) if isinstance(value, str) else bytes(value)


_MAX_ITEM_BYTES = 405_000  # moto's limit (DynamoDB's 400 KB measured as moto measures it)
_MAX_MESSAGE_CHARS = 262_144  # SQS's 256 KiB; moto counts characters
_META_NAME = re.compile(r"^[A-Za-z0-9\-_.]+$")
_META_VALUE = re.compile(r"^(?:[!-~](?:[ -~]*[!-~])?)?$")  # printable ASCII, no edge blanks
_SQS_ATTRIBUTE_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")
# Characters SQS accepts in a body (#x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF).
_SQS_BAD_CHAR = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def check_item(table: Table, index: int, item: ItemT) -> None:
    """Reject, identically in every loader, an item DynamoDB's PutItem would refuse.

    Key attributes present with the schema's type and non-empty, numbers parseable and
    finite, sets non-empty. Raises BackendError naming the table, item and attribute.
    """
    schema = table.key_schema
    for name, kind in ((schema.hash_name, schema.hash_type), (schema.range_name, schema.range_type)):
        if name is None:
            continue
        value = item.get(name)
        if value is None or kind not in value or value[kind] in ("", None):
            raise BackendError(
                f"table {table.name!r} item {index}: key attribute {name!r} must be a non-empty "
                f"{kind}, got {value!r}"
            )
    for name, av in item.items():
        problem = _attribute_problem(av)
        if problem:
            raise BackendError(f"table {table.name!r} item {index} attribute {name!r}: {problem}")


def _attribute_problem(av: Any) -> str | None:
    if not isinstance(av, dict) or len(av) != 1:
        return f"not a DynamoDB attribute value: {av!r}"
    ((tag, value),) = av.items()
    if tag == "N":
        return _number_problem(value)
    if tag in ("SS", "NS", "BS"):
        if not value:
            return f"an empty {tag} set (DynamoDB refuses empty sets)"
        if tag == "NS":
            return next(filter(None, map(_number_problem, value)), None)
    elif tag == "M":
        return next(filter(None, map(_attribute_problem, value.values())), None)
    elif tag == "L":
        return next(filter(None, map(_attribute_problem, value)), None)
    elif tag not in ("S", "B", "BOOL", "NULL"):
        return f"unknown DynamoDB type {tag!r}"
    return None


def _number_problem(value: Any) -> str | None:
    try:
        ok = isinstance(value, str) and value == value.strip() and math.isfinite(float(value))
    except ValueError:
        ok = False
    return None if ok else f"{value!r} is not a DynamoDB number (a finite decimal string)"


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
    elif not queue.name.endswith(".fifo") and any(m.group_id for m in queue.messages):
        raise BackendError(f"queue {queue.name!r} is not FIFO but a message has a MessageGroupId")


def check_object(bucket: Bucket, obj: S3Object) -> None:
    """Reject, in every loader alike, an object S3 would refuse or change on the way in.

    Metadata travels as HTTP headers (`x-amz-meta-NAME`): names are header tokens, values
    printable ASCII without surrounding blanks (HTTP strips them) - in-process moto would
    store anything, moto-server and real S3 would not.
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


def check_message(queue: Queue, index: int, message: QueueMessage) -> None:
    """Reject, in every loader alike, a message SQS's SendMessage would refuse."""
    where = f"queue {queue.name!r} message {index}"
    if len(message.body) > _MAX_MESSAGE_CHARS or not message.body:
        raise BackendError(f"{where}: body must be 1..{_MAX_MESSAGE_CHARS} characters, got {len(message.body)}")
    bad = _SQS_BAD_CHAR.search(message.body)
    if bad:
        raise BackendError(f"{where}: SQS refuses the character {bad.group()!r} in a body")
    for name, _ in message.attributes:
        if not _SQS_ATTRIBUTE_NAME.match(name) or name.lower().startswith(("aws.", "amazon.")):
            raise BackendError(f"{where}: invalid message attribute name {name!r}")


def _key_schema(table: Table) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    schema = table.key_schema
    keys = [{"AttributeName": schema.hash_name, "KeyType": "HASH"}]
    attrs = [{"AttributeName": schema.hash_name, "AttributeType": schema.hash_type}]
    if schema.range_name is not None:
        keys.append({"AttributeName": schema.range_name, "KeyType": "RANGE"})
        attrs.append({"AttributeName": schema.range_name, "AttributeType": schema.range_type or "S"})
    return keys, attrs


def _queue_attributes(queue: Queue) -> dict[str, str]:
    return {"FifoQueue": "true"} if queue.fifo else {}


def _wanted(queue: Queue, receive: Collection[str] | None) -> bool:
    return bool(queue.messages) and (receive is None or queue.name in receive)


class MotoDirectLoader:
    """Loads a world into in-process moto by calling its backend objects directly.

    Requires moto's mock to be active (MotoBackend.start()). Backend objects keep their
    identity across `BaseBackend.reset()` (it re-runs `__init__` on the same object), so
    they are looked up once per (account, region) and cached.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], tuple[Any, Any, Any, Any]] = {}

    def _backends(self, account: str, region: str) -> tuple[Any, Any, Any, Any]:
        try:
            return self._cache[account, region]
        except KeyError:
            from moto.dynamodb.models import dynamodb_backends
            from moto.s3.models import s3_backends
            from moto.sns.models import sns_backends
            from moto.sqs.models import sqs_backends

            found = (
                s3_backends[account]["aws"],
                dynamodb_backends[account][region],
                sqs_backends[account][region],
                sns_backends[account][region],
            )
            self._cache[account, region] = found
            return found

    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld:
        from moto.core.exceptions import ServiceException, _RESTError

        s3, ddb, sqs, sns = self._backends(world.account_id, world.region)
        where = "world"
        try:
            last_modified: dict[tuple[str, str], str] = {}
            for bucket in world.buckets:
                where = f"bucket {bucket.name!r}"
                fake_bucket = s3.create_bucket(bucket.name, world.region)
                for obj in bucket.objects:
                    where = f"bucket {bucket.name!r} object {obj.key!r}"
                    check_object(bucket, obj)
                    key = s3.put_object(bucket.name, obj.key, obj.data, storage="STANDARD")
                    metadata = {"Content-Type": obj.content_type}
                    for name, value in obj.metadata:
                        metadata[f"x-amz-meta-{name.lower()}"] = value
                    key.set_metadata(metadata)
                    key.set_acl(fake_bucket.acl)
                    last_modified[bucket.name, obj.key] = s3_iso(key.last_modified)

            stream_arns: dict[str, str] = {}
            for table in world.tables:
                where = f"table {table.name!r}"
                stream_arns.update(self._create_table(ddb, table))

            queue_urls: dict[str, str] = {}
            messages: dict[str, tuple[DeliveredMessage, ...]] = {}
            base = f"https://sqs.{world.region}.amazonaws.com"
            for queue in world.queues:
                where = f"queue {queue.name!r}"
                check_queue(queue)
                fake_queue = sqs.create_queue(queue.name, **_queue_attributes(queue))
                queue_urls[queue.name] = world.queue_url(queue.name, base)
                sent = self._send(fake_queue, queue)
                if _wanted(queue, receive):
                    messages[queue.name] = self._receive(fake_queue, sent)

            topic_arns: dict[str, str] = {}
            for topic in world.topics:
                where = f"topic {topic.name!r}"
                topic_arns[topic.name] = sns.create_topic(topic.name).arn
        except (ServiceException, _RESTError) as e:
            raise BackendError(f"moto refused {where}: {type(e).__name__}: {e}") from e
        return LoadedWorld(
            world=world,
            messages=messages,
            queue_urls=queue_urls,
            stream_arns=stream_arns,
            topic_arns=topic_arns,
            object_last_modified=last_modified,
        )

    @staticmethod
    def _create_table(ddb: Any, table: Table) -> dict[str, str]:
        keys, attrs = _key_schema(table)
        fake = ddb.create_table(
            table.name,
            schema=keys,
            throughput=None,
            attr=attrs,
            global_indexes=[],
            indexes=[],
            streams=None,
            billing_mode="PAY_PER_REQUEST",
            sse_specification=None,
            tags=[],
            deletion_protection_enabled=False,
            warm_throughput=None,
        )
        for i, item in enumerate(table.items):
            check_item(table, i, item)
            _put_item(fake, table, i, item)
        if not table.stream:
            return {}
        # The stream starts after the world is in place (both loaders): the handler's event
        # is generated, not read from the stream, and stream records would cost ~40 us/item.
        fake.set_stream_specification({"StreamEnabled": True, "StreamViewType": table.stream})
        return {table.name: f"{fake.table_arn}/stream/{fake.latest_stream_label}"}

    @staticmethod
    def _send(fake_queue: Any, queue: Queue) -> list[Any]:
        """What SendMessage stores, without moto's per-call queue-attribute rebuild
        (`Queue.attributes` re-derives every attribute name, ~25 us a message)."""
        from moto.core.utils import unix_time_millis
        from moto.moto_api._internal import mock_random
        from moto.sqs.models import Message

        sent = []
        now = int(unix_time_millis())
        for i, message in enumerate(queue.messages):
            check_message(queue, i, message)
            m = Message(str(mock_random.uuid4()), message.body)
            if message.attributes:
                m.message_attributes = _message_attributes(message.attributes)
            if queue.fifo:
                m.group_id, m.deduplication_id = fifo_ids(message, i)
                m.sequence_number = str(mock_random.getrandbits(64)).zfill(20)
            m.sent_timestamp = now
            fake_queue._messages.append(m)
            sent.append(m)
        return sent

    @staticmethod
    def _receive(fake_queue: Any, sent: list[Any]) -> tuple[DeliveredMessage, ...]:
        """What ReceiveMessage does for a fresh queue, minus its per-message deepcopy and
        retention lookups and with a cheaper receipt handle (same alphabet and length as
        moto's, from moto's seeded random): 3 messages cost 0.6 ms through
        `receive_message`, ~15 us here. The boto3 cross-check test deletes by these handles.
        """
        from moto.core.utils import unix_time_millis
        from moto.moto_api._internal import mock_random

        timeout = int(fake_queue.visibility_timeout)
        now = int(unix_time_millis())
        delivered = []
        for m in sent:
            fake_queue.pending_messages.add(m)
            if not m.approximate_first_receive_timestamp:
                m.approximate_first_receive_timestamp = now
            m.approximate_receive_count += 1
            m.visible_at = now + timeout * 1000
            m._old_receipt_handles.append(m.receipt_handle)
            m.receipt_handle = mock_random.randbytes(_HANDLE_LENGTH).translate(_LOWERCASE).decode()
            delivered.append(
                DeliveredMessage(
                    message_id=m.id,
                    receipt_handle=m.receipt_handle,
                    md5_of_body=m.body_md5,
                    body=m.body,
                    sent_timestamp_ms=int(m.sent_timestamp),
                    attributes=_attribute_pairs(m.message_attributes),
                )
            )
        return tuple(delivered)


def _put_item(fake_table: Any, table: Table, index: int, item: ItemT) -> None:
    """Table.put_item without its validations (`check_item` did them) and without
    `LimitedSizeDict`'s size re-sum on every attribute (quadratic: ~120 us for a 10-attribute
    item, ~25 us here); the 400 KB limit is checked once instead."""
    from moto.dynamodb.models.dynamo_type import DynamoType, Item
    from moto.dynamodb.models.utilities import bytesize

    cells = {name: DynamoType(av) for name, av in copy_item(item).items()}
    if sum(bytesize(name) + cell.size() for name, cell in cells.items()) > _MAX_ITEM_BYTES:
        raise BackendError(f"table {table.name!r} item {index} is larger than DynamoDB's 400 KB")
    hash_value = cells[fake_table.hash_key_attr]
    range_value = cells[fake_table.range_key_attr] if fake_table.range_key_attr else None
    stored = Item(hash_value, range_value, {})
    dict.update(stored.attrs, cells)  # bypasses LimitedSizeDict.__setitem__ on purpose
    if range_value is not None:
        fake_table.items[hash_value][range_value] = stored
    else:
        fake_table.items[hash_value] = stored


_HANDLE_LENGTH = 185  # moto's receipt handles: 185 lowercase letters
_LOWERCASE = bytes(ord("a") + b % 26 for b in range(256))


def _message_attributes(pairs: Iterable[tuple[str, str]]) -> dict[str, dict[str, str]]:
    return {name: {"DataType": "String", "StringValue": value} for name, value in pairs}


def _attribute_pairs(attributes: dict[str, Any] | None) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, str(value.get("StringValue", value.get("string_value", ""))))
        for name, value in (attributes or {}).items()
    )


def _in_send_order(received: list[Any], sent_ids: list[str], id_of: Any) -> list[Any]:
    """Standard queues may deliver out of order; events list messages as sent."""
    order = {message_id: i for i, message_id in enumerate(sent_ids)}
    return sorted(received, key=lambda m: order.get(id_of(m), len(order)))


class Boto3Loader:
    """Loads a world through plain boto3 calls: moto-server, LocalStack, or in-process moto.

    Clients are made once per region with the fake credentials and `endpoint_url`, path-style
    S3 addressing (virtual hosts like `bucket.localhost` do not resolve offline) and no
    retries, so a broken emulator fails fast.
    """

    def __init__(self, endpoint_url: str | None = None) -> None:
        self.endpoint_url = endpoint_url
        self._clients: dict[str, dict[str, Any]] = {}

    def clients(self, region: str) -> dict[str, Any]:
        try:
            return self._clients[region]
        except KeyError:
            import boto3
            from botocore.config import Config

            session = boto3.session.Session(
                aws_access_key_id=FAKE_ACCESS_KEY_ID,
                aws_secret_access_key=FAKE_SECRET_ACCESS_KEY,
                aws_session_token=FAKE_SESSION_TOKEN,
                region_name=region,
            )
            config = Config(
                s3={"addressing_style": "path"},
                retries={"max_attempts": 1, "mode": "standard"},
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
            )
            made = {
                service: session.client(service, endpoint_url=self.endpoint_url, config=config)
                for service in ("s3", "dynamodb", "sqs", "sns")
            }
            self._clients[region] = made
            return made

    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld:
        from botocore.exceptions import BotoCoreError, ClientError

        c = self.clients(world.region)
        where = "world"
        try:
            last_modified: dict[tuple[str, str], str] = {}
            for bucket in world.buckets:
                where = f"bucket {bucket.name!r}"
                create: dict[str, Any] = {"Bucket": bucket.name}
                if world.region != "us-east-1":
                    create["CreateBucketConfiguration"] = {"LocationConstraint": world.region}
                c["s3"].create_bucket(**create)
                for obj in bucket.objects:
                    where = f"bucket {bucket.name!r} object {obj.key!r}"
                    check_object(bucket, obj)
                    c["s3"].put_object(
                        Bucket=bucket.name,
                        Key=obj.key,
                        Body=obj.data,
                        ContentType=obj.content_type,
                        Metadata=dict(obj.metadata),
                    )
                if bucket.objects:
                    pages = c["s3"].get_paginator("list_objects_v2").paginate(Bucket=bucket.name)
                    for page in pages:
                        for entry in page.get("Contents", ()):
                            last_modified[bucket.name, entry["Key"]] = s3_iso(entry["LastModified"])

            stream_arns: dict[str, str] = {}
            for table in world.tables:
                where = f"table {table.name!r}"
                keys, attrs = _key_schema(table)
                create = {
                    "TableName": table.name,
                    "KeySchema": keys,
                    "AttributeDefinitions": attrs,
                    "BillingMode": "PAY_PER_REQUEST",
                }
                c["dynamodb"].create_table(**create)
                for i, item in enumerate(table.items):
                    check_item(table, i, item)
                    c["dynamodb"].put_item(TableName=table.name, Item=wire_item(item))
                if table.stream:  # enabled after the items, as MotoDirectLoader does
                    spec = {"StreamEnabled": True, "StreamViewType": table.stream}
                    description = c["dynamodb"].update_table(
                        TableName=table.name, StreamSpecification=spec
                    )["TableDescription"]
                    stream_arns[table.name] = description["LatestStreamArn"]

            queue_urls: dict[str, str] = {}
            messages: dict[str, tuple[DeliveredMessage, ...]] = {}
            for queue in world.queues:
                where = f"queue {queue.name!r}"
                check_queue(queue)
                url = c["sqs"].create_queue(
                    QueueName=queue.name, Attributes=_queue_attributes(queue)
                )["QueueUrl"]
                queue_urls[queue.name] = url
                sent_ids = [self._send(c["sqs"], url, queue, i) for i in range(len(queue.messages))]
                if _wanted(queue, receive):
                    messages[queue.name] = self._receive(c["sqs"], url, queue, sent_ids)

            topic_arns: dict[str, str] = {}
            for topic in world.topics:
                where = f"topic {topic.name!r}"
                topic_arns[topic.name] = c["sns"].create_topic(Name=topic.name)["TopicArn"]
        except (ClientError, BotoCoreError) as e:
            raise BackendError(f"{self._who()} refused {where}: {e}") from e
        return LoadedWorld(
            world=world,
            messages=messages,
            queue_urls=queue_urls,
            stream_arns=stream_arns,
            topic_arns=topic_arns,
            object_last_modified=last_modified,
        )

    def _who(self) -> str:
        return f"the emulator at {self.endpoint_url}" if self.endpoint_url else "in-process moto"

    @staticmethod
    def _send(sqs: Any, url: str, queue: Queue, i: int) -> str:
        message = queue.messages[i]
        check_message(queue, i, message)
        send: dict[str, Any] = {"QueueUrl": url, "MessageBody": message.body}
        if message.attributes:
            send["MessageAttributes"] = _message_attributes(message.attributes)
        if queue.fifo:
            send["MessageGroupId"], send["MessageDeduplicationId"] = fifo_ids(message, i)
        return sqs.send_message(**send)["MessageId"]

    @staticmethod
    def _receive(sqs: Any, url: str, queue: Queue, sent_ids: list[str]) -> tuple[DeliveredMessage, ...]:
        got: list[dict[str, Any]] = []
        while len(got) < len(sent_ids):
            batch = sqs.receive_message(
                QueueUrl=url,
                MaxNumberOfMessages=_RECEIVE_BATCH,
                WaitTimeSeconds=0,
                MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
            if not batch:
                raise BackendError(f"queue {queue.name!r}: received {len(got)} of {len(sent_ids)} messages")
            got.extend(batch)
        return tuple(
            DeliveredMessage(
                message_id=m["MessageId"],
                receipt_handle=m["ReceiptHandle"],
                md5_of_body=m["MD5OfBody"],
                body=m["Body"],
                sent_timestamp_ms=int(m["Attributes"]["SentTimestamp"]),
                attributes=_attribute_pairs(m.get("MessageAttributes")),
            )
            for m in _in_send_order(got, sent_ids, lambda m: m["MessageId"])
        )
