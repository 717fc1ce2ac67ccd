"""Put a `World` into an emulator: through moto's backend objects, or through boto3.

Both loaders follow one skeleton (`_Loader.load`): check each resource with
`world_checks`, then call methods named after the AWS operations (create_bucket,
put_object, create_table, put_item, update_table, create_queue, send_message,
receive_message, create_topic). `MotoDirectLoader` does each operation on moto's backend
objects, skipping request signing, serialisation and routing, and for the hottest ones
(PutItem, SendMessage, ReceiveMessage) stores what moto's own method would store without
its per-call overhead; that is what keeps reset+load per test around a millisecond
(benchmarks/reset_load.py). `Boto3Loader` makes plain boto3 calls; it loads moto-server and
LocalStack, and cross-checks the direct loader in tests (tests/harness/emulator/test_backends.py).

SQS messages are sent and then received, as Lambda's poller does, so each has a real
receipt handle a handler can delete; `receive` limits that to the queues that trigger the
handler (None: every queue), so a handler that polls another queue still finds its messages.
DynamoDB streams are enabled after the items are in, in both loaders: the world is the
state before the test, and the handler's stream event is generated, not read.
"""

from __future__ import annotations

import base64
from collections.abc import Collection, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from lambdafuzz.errors import BackendError
from lambdafuzz.harness.emulator.moto_speedups import fast_receipt_handle
from lambdafuzz.harness.emulator.world_checks import (
    MAX_ITEM_BYTES,
    check_item,
    check_message,
    check_object,
    check_queue,
    fifo_ids,
)
from lambdafuzz.harness.sandbox.safety import (
    FAKE_ACCESS_KEY_ID,
    FAKE_SECRET_ACCESS_KEY,
    FAKE_SESSION_TOKEN,
)
from lambdafuzz.model.world import (
    Bucket,
    DeliveredMessage,
    ItemT,
    KeySchema,
    LoadedWorld,
    Parameter,
    Queue,
    S3Object,
    Secret,
    Table,
    Topic,
    World,
)

_RECEIVE_BATCH = 10  # SQS's maximum per ReceiveMessage


class WorldLoader(Protocol):
    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld: ...


# --- shared pieces --------------------------------------------------------------------------


def s3_iso(ts: datetime) -> str:
    """S3's listing timestamp as moto renders it ("2026-01-02T03:04:05.000Z"): seconds, UTC."""
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    return ts.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def copy_item(item: ItemT) -> ItemT:
    """A copy the emulator may mutate: moto keeps references to the lists it gets.

    Only lists are copied (sets, L, and the maps holding them); an attribute dict of a
    scalar is shared, since DynamoType copies its immutable value out. ~10x cheaper than
    `copy.deepcopy` on generated items.
    """
    return {name: _copy_value(av) for name, av in item.items()}


def _copy_value(av: dict[str, Any]) -> dict[str, Any]:
    for tag, value in av.items():
        if tag == "M":
            return {"M": {k: _copy_value(v) for k, v in value.items()}}
        if tag == "L":
            return {"L": [_copy_value(v) for v in value]}
        if tag in ("SS", "NS", "BS"):
            return {tag: list(value)}
    return av


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


def _key_schema(table: Table) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """CreateTable's KeySchema and AttributeDefinitions (every key attribute of the table
    and of its indexes, once)."""
    keys = _keys(table.key_schema)
    types = {k["AttributeName"]: t for k, t in zip(keys, _types(table.key_schema), strict=True)}
    for index in table.indexes:
        for name, kind in index.key_attributes():
            types.setdefault(name, kind)
    attrs = [{"AttributeName": name, "AttributeType": kind} for name, kind in types.items()]
    return keys, attrs


def _keys(schema: KeySchema) -> list[dict[str, str]]:
    keys = [{"AttributeName": schema.hash_name, "KeyType": "HASH"}]
    if schema.range_name is not None:
        keys.append({"AttributeName": schema.range_name, "KeyType": "RANGE"})
    return keys


def _types(schema: KeySchema) -> list[str]:
    return [schema.hash_type] + ([schema.range_type or "S"] if schema.range_name else [])


def _indexes(table: Table) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """CreateTable's GlobalSecondaryIndexes and LocalSecondaryIndexes (on-demand: no
    throughput)."""
    found: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for index in table.indexes:
        projection: dict[str, Any] = {"ProjectionType": index.projection}
        if index.projection == "INCLUDE":
            projection["NonKeyAttributes"] = list(index.non_key_attributes)
        found[index.local].append(
            {
                "IndexName": index.name,
                "KeySchema": _keys(index.key_schema),
                "Projection": projection,
            }
        )
    return found


def _queue_attributes(queue: Queue) -> dict[str, str]:
    return {"FifoQueue": "true"} if queue.fifo else {}


def _message_attributes(pairs: Iterable[tuple[str, str]]) -> dict[str, dict[str, str]]:
    return {name: {"DataType": "String", "StringValue": value} for name, value in pairs}


def _attribute_pairs(attributes: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, str(value.get("StringValue", ""))) for name, value in (attributes or {}).items()
    )


def _where(kind: str, name: str, part: str | int) -> str:
    """`bucket 'b' object 'k'`, `table 't' item 3`, `queue 'q' receiving`, ..."""
    text = f"{kind} {name!r}" if name else kind
    if isinstance(part, int):
        return f"{text} {'item' if kind == 'table' else 'message'} {part}"
    if part and kind == "bucket":
        return f"{text} object {part!r}"
    return f"{text} {part}" if part else text


class _Loader:
    """The order every loader follows and the facts it reports; subclasses do AWS work.

    Per load, a subclass may keep the resource it just created (the table items go into,
    the queue messages go to) on `self`; loaders are used from one thread.
    """

    refused: tuple[type[BaseException], ...] = ()

    def who(self) -> str:
        raise NotImplementedError

    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld:
        self.prepare(world)
        last_modified: dict[tuple[str, str], str] = {}
        stream_arns: dict[str, str] = {}
        queue_urls: dict[str, str] = {}
        messages: dict[str, tuple[DeliveredMessage, ...]] = {}
        topic_arns: dict[str, str] = {}
        secret_arns: dict[str, str] = {}
        # Where we are, formatted only if something fails (f-strings per object and item
        # were 5% of a direct load).
        part: str | int = ""
        kind, name = "world", ""
        try:
            for bucket in world.buckets:
                if not bucket.exists:  # not there yet: the code creates it (`Bucket.exists`)
                    continue
                kind, name, part = "bucket", bucket.name, ""
                self.create_bucket(world, bucket)
                for obj in bucket.objects:
                    part = obj.key
                    check_object(bucket, obj)
                    self.put_object(bucket, obj)
                part = ""
                for key, stamp in self.object_timestamps(bucket).items():
                    last_modified[bucket.name, key] = stamp
            for table in world.tables:
                if not table.exists:
                    continue
                kind, name, part = "table", table.name, ""
                self.create_table(table)
                for i, item in enumerate(table.items):
                    part = i
                    self.put_item(table, i, item)
                if table.stream:
                    part = "stream"
                    stream_arns[table.name] = self.update_table_stream(table)
            for queue in world.queues:
                if not queue.exists:
                    continue
                kind, name, part = "queue", queue.name, ""
                check_queue(queue)
                queue_urls[queue.name] = self.create_queue(world, queue)
                sent = []
                for i, message in enumerate(queue.messages):
                    part = i
                    check_message(queue, i, message)
                    sent.append(self.send_message(queue, i))
                if queue.messages and (receive is None or queue.name in receive):
                    part = "receiving"
                    messages[queue.name] = self.receive_messages(queue, sent)
            for topic in world.topics:
                if not topic.exists:
                    continue
                kind, name, part = "topic", topic.name, ""
                topic_arns[topic.name] = self.create_topic(topic)
            for secret in world.secrets:
                kind, name, part = "secret", secret.name, ""
                secret_arns[secret.name] = self.create_secret(world, secret)
            for parameter in world.parameters:
                kind, name, part = "parameter", parameter.name, ""
                self.put_parameter(world, parameter)
        except self.refused as e:
            where = _where(kind, name, part)
            raise BackendError(f"{self.who()} refused {where}: {type(e).__name__}: {e}") from e
        return LoadedWorld(
            world=world,
            messages=messages,
            queue_urls=queue_urls,
            stream_arns=stream_arns,
            topic_arns=topic_arns,
            object_last_modified=last_modified,
            secret_arns=secret_arns,
        )

    # The AWS operations, one method each. `sent` items are whatever send_message returned.
    def prepare(self, world: World) -> None: ...
    def create_bucket(self, world: World, bucket: Bucket) -> None: ...
    def put_object(self, bucket: Bucket, obj: S3Object) -> None: ...
    def object_timestamps(self, bucket: Bucket) -> Mapping[str, str]: ...
    def create_table(self, table: Table) -> None: ...
    def put_item(self, table: Table, index: int, item: ItemT) -> None: ...
    def update_table_stream(self, table: Table) -> str: ...
    def create_queue(self, world: World, queue: Queue) -> str: ...
    def send_message(self, queue: Queue, index: int) -> Any: ...
    def receive_messages(self, queue: Queue, sent: list[Any]) -> tuple[DeliveredMessage, ...]: ...
    def create_topic(self, topic: Topic) -> str: ...
    def create_secret(self, world: World, secret: Secret) -> str: ...
    def put_parameter(self, world: World, parameter: Parameter) -> None: ...


# --- moto's backend objects ----------------------------------------------------------------


class MotoDirectLoader(_Loader):
    """Loads a world into in-process moto by calling its backend objects directly.

    Requires moto's mock to be active (MotoBackend.start()). Backend objects keep their
    identity across `BaseBackend.reset()` (it re-runs `__init__` on the same object), so
    they are looked up once per (account, region) and cached.
    """

    def __init__(self) -> None:
        from moto.core.exceptions import ServiceException, _RESTError

        self.refused = (ServiceException, _RESTError)
        self._cache: dict[tuple[str, str], tuple[Any, Any, Any, Any]] = {}
        self._stamps: dict[str, str] = {}
        self._second: datetime | None = None
        self._second_text = ""
        self._table: Any = None
        self._queue: Any = None

    def who(self) -> str:
        return "moto"

    def prepare(self, world: World) -> None:
        try:
            self._s3, self._ddb, self._sqs, self._sns = self._cache[world.account_id, world.region]
        except KeyError:
            from moto.dynamodb.models import dynamodb_backends
            from moto.s3.models import s3_backends
            from moto.sns.models import sns_backends
            from moto.sqs.models import sqs_backends

            account, region = world.account_id, world.region
            found = (
                s3_backends[account]["aws"],
                dynamodb_backends[account][region],
                sqs_backends[account][region],
                sns_backends[account][region],
            )
            self._cache[account, region] = found
            self._s3, self._ddb, self._sqs, self._sns = found
        self._region = world.region

    def create_bucket(self, world: World, bucket: Bucket) -> None:
        self._s3.create_bucket(bucket.name, world.region)
        self._stamps = {}

    def put_object(self, bucket: Bucket, obj: S3Object) -> None:
        key = self._s3.put_object(bucket.name, obj.key, obj.data, storage="STANDARD")
        metadata = {"Content-Type": obj.content_type}
        for name, value in obj.metadata:
            metadata[f"x-amz-meta-{name.lower()}"] = value
        key.set_metadata(metadata)
        # PutObject would also give the key the bucket's ACL: both are the canned "private"
        # ACL of a new bucket, which FakeKey starts with.
        second = key.last_modified.replace(microsecond=0)
        if second != self._second:  # objects of one load share a second: format it once
            self._second, self._second_text = second, s3_iso(second)
        self._stamps[obj.key] = self._second_text

    def object_timestamps(self, bucket: Bucket) -> Mapping[str, str]:
        return self._stamps

    def create_table(self, table: Table) -> None:
        keys, attrs = _key_schema(table)
        global_indexes, local_indexes = _indexes(table)
        self._table = self._ddb.create_table(
            table.name,
            schema=keys,
            throughput=None,
            attr=attrs,
            global_indexes=global_indexes,
            indexes=local_indexes,
            streams=None,
            billing_mode="PAY_PER_REQUEST",
            sse_specification=None,
            tags=[],
            deletion_protection_enabled=False,
            warm_throughput=None,
        )

    def put_item(self, table: Table, index: int, item: ItemT) -> None:
        """Table.put_item after `check_item`, without its re-validation and without
        `LimitedSizeDict`'s size re-sum on every attribute (quadratic; 60% of a 5-attribute
        item's cost): the 400 KB limit is checked once, exactly only when `check_item`'s
        cheap bound exceeds it. Set lists are copied (moto keeps references to them and an
        ADD would mutate the World); scalars are immutable and L/M are rebuilt by DynamoType.
        """
        from moto.dynamodb.models.dynamo_type import DynamoType, Item
        from moto.dynamodb.models.utilities import bytesize

        bound, has_set = check_item(table, index, item)
        cells = {
            name: DynamoType(av) for name, av in (copy_item(item) if has_set else item).items()
        }
        if (
            bound > MAX_ITEM_BYTES
            and sum(bytesize(n) + c.size() for n, c in cells.items()) > MAX_ITEM_BYTES
        ):
            raise BackendError(
                f"table {table.name!r} item {index} is larger than DynamoDB's 400 KB"
            )
        fake = self._table
        hash_value = cells[fake.hash_key_attr]
        range_value = cells[fake.range_key_attr] if fake.range_key_attr else None
        stored = Item(hash_value, range_value, {})
        dict.update(stored.attrs, cells)  # bypasses LimitedSizeDict.__setitem__ on purpose
        if range_value is not None:
            fake.items[hash_value][range_value] = stored
        else:
            fake.items[hash_value] = stored

    def update_table_stream(self, table: Table) -> str:
        self._table.set_stream_specification(
            {"StreamEnabled": True, "StreamViewType": table.stream}
        )
        return f"{self._table.table_arn}/stream/{self._table.latest_stream_label}"

    def create_queue(self, world: World, queue: Queue) -> str:
        from moto.core.utils import unix_time_millis

        self._queue = self._sqs.create_queue(queue.name, **_queue_attributes(queue))
        self._sent_ms = int(unix_time_millis())  # the messages of one load share it
        return world.queue_url(queue.name, f"https://sqs.{world.region}.amazonaws.com")

    def send_message(self, queue: Queue, index: int) -> Any:
        """What SendMessage stores, without moto's per-call queue-attribute rebuild
        (`Queue.attributes` re-derives every attribute name, ~25 us a message)."""
        from moto.moto_api._internal import mock_random
        from moto.sqs.models import Message

        message = queue.messages[index]
        m = Message(str(mock_random.uuid4()), message.body)
        if message.attributes:
            m.message_attributes = _message_attributes(message.attributes)
        if queue.fifo:
            m.group_id, m.deduplication_id = fifo_ids(message, index)
            m.sequence_number = str(mock_random.getrandbits(64)).zfill(20)
        m.sent_timestamp = self._sent_ms
        self._queue._messages.append(m)
        return m

    def receive_messages(self, queue: Queue, sent: list[Any]) -> tuple[DeliveredMessage, ...]:
        """What ReceiveMessage does for a fresh queue, minus its per-message deepcopy and
        retention lookups and with a cheaper receipt handle (same alphabet and length as
        moto's, from moto's seeded random): 3 messages cost 0.6 ms through
        `receive_message`, ~15 us here. The cross-check tests delete by these handles.
        """
        from moto.core.utils import unix_time_millis

        fake_queue = self._queue
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
            m.receipt_handle = fast_receipt_handle()
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

    def create_topic(self, topic: Topic) -> str:
        return self._sns.create_topic(topic.name).arn

    def create_secret(self, world: World, secret: Secret) -> str:
        from moto.secretsmanager.models import secretsmanager_backends

        backend = secretsmanager_backends[world.account_id][world.region]
        backend.create_secret(
            name=secret.name,
            secret_string=secret.value,
            secret_binary=None,
            description=None,
            tags=None,
            kms_key_id=None,
            client_request_token=None,
            replica_regions=[],
            force_overwrite=False,
        )
        # the same ARN in every test (moto's suffix depends on what the world drew before),
        # so the ARN in the handler's environment, resolved once, names this secret
        stored = backend.secrets[secret.name]
        stored.arn = world.secret_arn(secret.name)
        return str(stored.arn)

    def put_parameter(self, world: World, parameter: Parameter) -> None:
        from moto.ssm.models import ssm_backends

        ssm_backends[world.account_id][world.region].put_parameter(
            name=parameter.name,
            description=None,
            value=parameter.value,
            parameter_type=parameter.type,
            allowed_pattern=None,
            keyid=None,
            overwrite=False,
            tags=[],
            data_type="text",
            tier=None,
            policies=None,
        )


# --- plain boto3 -------------------------------------------------------------------------------


class Boto3Loader(_Loader):
    """Loads a world through plain boto3 calls: moto-server, LocalStack, or in-process moto.

    Clients are made once per region with the fake credentials and `endpoint_url`, path-style
    S3 addressing (virtual hosts like `bucket.localhost` do not resolve offline) and no
    retries, so a broken emulator fails fast.
    """

    def __init__(self, endpoint_url: str | None = None) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        self.refused = (ClientError, BotoCoreError)
        self.endpoint_url = endpoint_url
        self._clients: dict[str, dict[str, Any]] = {}

    def who(self) -> str:
        return f"the emulator at {self.endpoint_url}" if self.endpoint_url else "in-process moto"

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
                for service in ("s3", "dynamodb", "sqs", "sns", "secretsmanager", "ssm")
            }
            self._clients[region] = made
            return made

    def prepare(self, world: World) -> None:
        self._c = self.clients(world.region)

    def create_bucket(self, world: World, bucket: Bucket) -> None:
        create: dict[str, Any] = {"Bucket": bucket.name}
        if world.region != "us-east-1":
            create["CreateBucketConfiguration"] = {"LocationConstraint": world.region}
        self._c["s3"].create_bucket(**create)

    def put_object(self, bucket: Bucket, obj: S3Object) -> None:
        self._c["s3"].put_object(
            Bucket=bucket.name,
            Key=obj.key,
            Body=obj.data,
            ContentType=obj.content_type,
            Metadata=dict(obj.metadata),
        )

    def object_timestamps(self, bucket: Bucket) -> Mapping[str, str]:
        if not bucket.objects:
            return {}
        pages = self._c["s3"].get_paginator("list_objects_v2").paginate(Bucket=bucket.name)
        return {
            entry["Key"]: s3_iso(entry["LastModified"])
            for page in pages
            for entry in page.get("Contents", ())
        }

    def create_table(self, table: Table) -> None:
        keys, attrs = _key_schema(table)
        create: dict[str, Any] = {
            "TableName": table.name,
            "KeySchema": keys,
            "AttributeDefinitions": attrs,
            "BillingMode": "PAY_PER_REQUEST",
        }
        global_indexes, local_indexes = _indexes(table)
        if global_indexes:
            create["GlobalSecondaryIndexes"] = global_indexes
        if local_indexes:
            create["LocalSecondaryIndexes"] = local_indexes
        self._c["dynamodb"].create_table(**create)

    def put_item(self, table: Table, index: int, item: ItemT) -> None:
        check_item(table, index, item)
        self._c["dynamodb"].put_item(TableName=table.name, Item=wire_item(item))

    def update_table_stream(self, table: Table) -> str:
        spec = {"StreamEnabled": True, "StreamViewType": table.stream}
        answer = self._c["dynamodb"].update_table(TableName=table.name, StreamSpecification=spec)
        return answer["TableDescription"]["LatestStreamArn"]

    def create_queue(self, world: World, queue: Queue) -> str:
        self._url = self._c["sqs"].create_queue(
            QueueName=queue.name, Attributes=_queue_attributes(queue)
        )["QueueUrl"]
        return self._url

    def send_message(self, queue: Queue, index: int) -> Any:
        message = queue.messages[index]
        send: dict[str, Any] = {"QueueUrl": self._url, "MessageBody": message.body}
        if message.attributes:
            send["MessageAttributes"] = _message_attributes(message.attributes)
        if queue.fifo:
            send["MessageGroupId"], send["MessageDeduplicationId"] = fifo_ids(message, index)
        return self._c["sqs"].send_message(**send)["MessageId"]

    def receive_messages(self, queue: Queue, sent: list[Any]) -> tuple[DeliveredMessage, ...]:
        got: dict[str, dict[str, Any]] = {}
        while len(got) < len(sent):
            batch = (
                self._c["sqs"]
                .receive_message(
                    QueueUrl=self._url,
                    MaxNumberOfMessages=_RECEIVE_BATCH,
                    WaitTimeSeconds=0,
                    MessageSystemAttributeNames=["All"],
                    MessageAttributeNames=["All"],
                )
                .get("Messages", [])
            )
            if not batch:
                raise BackendError(
                    f"queue {queue.name!r}: received {len(got)} of {len(sent)} messages "
                    "(a FIFO group holds at most 10 in flight)"
                )
            got.update((m["MessageId"], m) for m in batch)
        return tuple(  # in send order: standard queues may deliver out of order
            DeliveredMessage(
                message_id=m["MessageId"],
                receipt_handle=m["ReceiptHandle"],
                md5_of_body=m["MD5OfBody"],
                body=m["Body"],
                sent_timestamp_ms=int(m["Attributes"]["SentTimestamp"]),
                attributes=_attribute_pairs(m.get("MessageAttributes")),
            )
            for m in (got[message_id] for message_id in sent)
        )

    def create_topic(self, topic: Topic) -> str:
        return self._c["sns"].create_topic(Name=topic.name)["TopicArn"]

    def create_secret(self, world: World, secret: Secret) -> str:
        """The secret's partial ARN (without the random suffix, which differs in every
        test): GetSecretValue & co. take it, and the handler's environment, resolved once,
        keeps naming the secret of every world."""
        self._c["secretsmanager"].create_secret(Name=secret.name, SecretString=secret.value)
        return world.arn("secretsmanager", f"secret:{secret.name}")

    def put_parameter(self, world: World, parameter: Parameter) -> None:
        self._c["ssm"].put_parameter(
            Name=parameter.name, Value=parameter.value, Type=parameter.type
        )
