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
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

from lambdafuzz.errors import BackendError
from lambdafuzz.generators.aws.world import (
    DeliveredMessage,
    ItemT,
    LoadedWorld,
    Queue,
    Table,
    World,
)
from lambdafuzz.harness.safety import FAKE_ACCESS_KEY_ID, FAKE_SECRET_ACCESS_KEY, FAKE_SESSION_TOKEN

FIFO_GROUP_ID = "lambdafuzz"  # every FIFO message of a world goes to one group, in order
_RECEIVE_BATCH = 10  # SQS's maximum per ReceiveMessage


class WorldLoader(Protocol):
    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld: ...


def s3_iso(ts: datetime) -> str:
    """S3's timestamp format (ListObjects' LastModified, events' eventTime): ms, 'Z'."""
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    return ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


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


def _check_key(table: Table, index: int, item: ItemT) -> None:
    """Both loaders reject an item whose key attributes are missing or mistyped, alike."""
    schema = table.key_schema
    for name, kind in ((schema.hash_name, schema.hash_type), (schema.range_name, schema.range_type)):
        if name is None:
            continue
        value = item.get(name)
        if value is None or kind not in value:
            raise BackendError(
                f"table {table.name!r} item {index}: key attribute {name!r} must be of type "
                f"{kind}, got {value!r}"
            )


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
                sqs.create_queue(queue.name, **_queue_attributes(queue))
                queue_urls[queue.name] = world.queue_url(queue.name, base)
                sent_ids = []
                for i, message in enumerate(queue.messages):
                    sent = sqs.send_message(
                        queue.name,
                        message.body,
                        message_attributes=_message_attributes(message.attributes) or None,
                        deduplication_id=str(i + 1) if queue.fifo else None,
                        group_id=FIFO_GROUP_ID if queue.fifo else None,
                    )
                    sent_ids.append(sent.id)
                if _wanted(queue, receive):
                    messages[queue.name] = self._receive(sqs, queue, sent_ids)

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
        from moto.dynamodb.responses import validate_put_has_empty_attrs, validate_put_has_empty_keys

        keys, attrs = _key_schema(table)
        streams = {"StreamEnabled": True, "StreamViewType": table.stream} if table.stream else None
        fake = ddb.create_table(
            table.name,
            schema=keys,
            throughput=None,
            attr=attrs,
            global_indexes=[],
            indexes=[],
            streams=streams,
            billing_mode="PAY_PER_REQUEST",
            sse_specification=None,
            tags=[],
            deletion_protection_enabled=False,
            warm_throughput=None,
        )
        for i, item in enumerate(table.items):
            _check_key(table, i, item)
            # Same validation as moto's PutItem handler, so both loaders reject alike.
            validate_put_has_empty_keys(item, fake)
            validate_put_has_empty_attrs(item, fake)
            ddb.put_item(table.name, copy_item(item), overwrite=True)
        if fake.latest_stream_label:
            return {table.name: f"{fake.table_arn}/stream/{fake.latest_stream_label}"}
        return {}

    @staticmethod
    def _receive(sqs: Any, queue: Queue, sent_ids: list[str]) -> tuple[DeliveredMessage, ...]:
        fake_queue = sqs.get_queue(queue.name)
        got: list[Any] = []
        while len(got) < len(sent_ids):
            batch = sqs.receive_message(
                queue.name,
                count=_RECEIVE_BATCH,
                wait_seconds_timeout=0,
                visibility_timeout=fake_queue.visibility_timeout,
                message_attribute_names=["All"],
            )
            if not batch:
                raise BackendError(
                    f"queue {queue.name!r}: received {len(got)} of {len(sent_ids)} messages"
                )
            got.extend(batch)
        return tuple(
            DeliveredMessage(
                message_id=m.id,
                receipt_handle=m.receipt_handle,
                md5_of_body=m.body_md5,
                body=m.body,
                sent_timestamp_ms=int(m.sent_timestamp),
                attributes=_attribute_pairs(m.message_attributes),
            )
            for m in _in_send_order(got, sent_ids, lambda m: m.id)
        )


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
                if table.stream:
                    create["StreamSpecification"] = {
                        "StreamEnabled": True,
                        "StreamViewType": table.stream,
                    }
                description = c["dynamodb"].create_table(**create)["TableDescription"]
                if "LatestStreamArn" in description:
                    stream_arns[table.name] = description["LatestStreamArn"]
                for i, item in enumerate(table.items):
                    _check_key(table, i, item)
                    c["dynamodb"].put_item(TableName=table.name, Item=wire_item(item))

            queue_urls: dict[str, str] = {}
            messages: dict[str, tuple[DeliveredMessage, ...]] = {}
            for queue in world.queues:
                where = f"queue {queue.name!r}"
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
        send: dict[str, Any] = {"QueueUrl": url, "MessageBody": message.body}
        if message.attributes:
            send["MessageAttributes"] = _message_attributes(message.attributes)
        if queue.fifo:
            send["MessageGroupId"] = FIFO_GROUP_ID
            send["MessageDeduplicationId"] = str(i + 1)
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
