"""Seeded AWS worlds and operation sequences, run on the fast path and on moto's full path.

`run_sequence(seed, fast)` resets in-process moto, builds a world (a bucket of objects, a
table of items, a queue of messages, a topic that feeds the queue) through botocore's full
path, then runs a sequence of operations drawn from `seed` - valid and invalid parameters,
missing buckets/keys/tables/queues, conditions, update expressions, key conditions,
paginators, boto3's resource APIs (`Table`, `Bucket`, `Object`) and waiters - with the
fast path on or off. It returns every outcome (normalised response or error code, message
and HTTP status) and the state left behind; both paths must return equal ones.

Shared by tests/harness/emulator/test_fast_aws_differential.py and benchmarks/aws_path.py.
"""

from __future__ import annotations

import datetime
import random
from decimal import Decimal
from typing import Any

REGION = "us-east-1"
BUCKET = "diff-bucket"
TABLE = "diff-table"
QUEUE = "diff-queue"
TOPIC = "diff-topic"
KEYS = ("a.txt", "dir/b.csv", "dir/sub/c.json", "space key.txt", "ü-unicode.txt", "x+y=z")
CONTENT_TYPES = ("text/plain", "text/csv", "application/json", None)
PKS = ("p1", "p2", "p3")
# response metadata that differs between any two calls: request ids, dates
_VOLATILE_HEADERS = frozenset(
    ("date", "x-amzn-requestid", "x-amz-request-id", "x-amz-id-2", "last-modified")
)
_VOLATILE_ATTRIBUTES = frozenset(
    (
        "SentTimestamp",
        "ApproximateFirstReceiveTimestamp",
        "CreatedTimestamp",
        "LastModifiedTimestamp",
        "Timestamp",  # an SNS envelope's
        "Signature",  # an SNS envelope's, over its timestamp
    )
)


class Env:
    """moto started once, clients made once (with the fast path's client reuse off)."""

    def __init__(self) -> None:
        import os

        from lambdafuzz.harness.emulator.backends import MotoBackend
        from lambdafuzz.harness.emulator.fast_aws import FAST_AWS
        from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS

        os.environ.update(FAKE_CREDENTIALS, AWS_DEFAULT_REGION=REGION, AWS_REGION=REGION)
        self.backend = MotoBackend()
        self.backend.start()
        import boto3

        self.fast = FAST_AWS
        FAST_AWS.install()
        FAST_AWS.enabled = False
        session = boto3.Session(region_name=REGION)
        self.s3 = session.client("s3")
        self.ddb = session.client("dynamodb")
        self.sqs = session.client("sqs")
        self.sns = session.client("sns")
        self.s3r = session.resource("s3")
        self.ddbr = session.resource("dynamodb")


def normal(value: Any) -> Any:
    """A response as plain data: streams read, dates and request ids masked."""
    if isinstance(value, dict):
        out = {}
        enveloped = isinstance(value.get("Body"), str) and '"Signature"' in value["Body"]
        for key, item in value.items():
            if enveloped and key == "Body":
                item = _envelope(item)
            elif enveloped and key == "MD5OfBody":
                item = "<md5 of a timed envelope>"
            elif key == "ResponseMetadata":
                item = {
                    "HTTPStatusCode": item.get("HTTPStatusCode"),
                    "HTTPHeaders": {
                        k: v
                        for k, v in item.get("HTTPHeaders", {}).items()
                        if k not in _VOLATILE_HEADERS
                    },
                }
            elif key in ("RequestId", "HostId"):
                continue
            elif key in _VOLATILE_ATTRIBUTES:
                item = "<time>"
            out[key] = normal(item)
        return out
    if isinstance(value, (list, tuple)):
        return [normal(v) for v in value]
    if isinstance(value, datetime.datetime):
        return "<datetime>"
    if hasattr(value, "read"):
        return value.read()
    if isinstance(value, set):
        return sorted(value, key=repr)
    return value


def outcome(call: Any) -> Any:
    """What a call returned or raised, comparable across paths."""
    from botocore.exceptions import ClientError, ParamValidationError, WaiterError

    try:
        return ("ok", normal(call()))
    except ClientError as e:
        return (
            "error",
            type(e).__name__,
            e.response.get("Error", {}).get("Code"),
            str(e),
            normal({k: v for k, v in e.response.items() if k != "Error"}),
            normal(e.response.get("Error", {})),
        )
    except (ParamValidationError, WaiterError) as e:
        return ("error", type(e).__name__, str(e))
    except Exception as e:  # moto itself failing (e.g. a TypeError in a comparison)
        return ("raised", type(e).__name__, str(e))


def build_world(env: Env, rng: random.Random) -> None:
    """The world through the project's direct loader (moto's backend objects), queues'
    messages left unreceived; an SNS subscription feeding the queue in some worlds."""
    from lambdafuzz.model.world import (
        Bucket,
        KeySchema,
        Queue,
        QueueMessage,
        S3Object,
        Table,
        Topic,
        World,
    )

    objects = []
    for key in rng.sample(KEYS, rng.randint(0, 4)):
        content_type = rng.choice(CONTENT_TYPES) or "binary/octet-stream"
        metadata: tuple[tuple[str, str], ...] = ()
        if rng.random() < 0.5:
            metadata = (("owner", rng.choice(("ann", "bob"))), ("n", str(rng.randint(0, 9))))
        objects.append(S3Object(key, _body(rng), content_type, "bytes", metadata))
    ranged = rng.random() < 0.7
    schema = KeySchema("pk", "S", "sk", "N") if ranged else KeySchema("pk", "S")
    items = {}
    for _ in range(rng.randint(0, 5)):
        item = _item(rng, ranged)
        items[repr(_key_of(item))] = item
    messages = tuple(QueueMessage(f'{{"n": {i}}}') for i in range(rng.randint(0, 3)))
    world = World(
        buckets=(Bucket(BUCKET, tuple(objects)),),
        tables=(Table(TABLE, schema, tuple(items.values())),),
        queues=(Queue(QUEUE, messages),),
        topics=(Topic(TOPIC),),
    )
    env.backend.load(world, receive=())
    if rng.random() < 0.2:  # moto signs each delivery with RSA (~70 ms): in some worlds
        env.sns.subscribe(
            TopicArn=f"arn:aws:sns:{REGION}:123456789012:{TOPIC}",
            Protocol="sqs",
            Endpoint=f"arn:aws:sqs:{REGION}:123456789012:{QUEUE}",
        )


def _key_of(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k in ("pk", "sk")}


def _body(rng: random.Random) -> bytes:
    return bytes(rng.randrange(32, 127) for _ in range(rng.randint(0, 64)))


def _key(rng: random.Random, ranged: bool) -> dict[str, Any]:
    key: dict[str, Any] = {"pk": {"S": rng.choice(PKS)}}
    if ranged:
        key["sk"] = {"N": str(rng.randint(0, 3))}
    return key


def _item(rng: random.Random, ranged: bool) -> dict[str, Any]:
    item = _key(rng, ranged)
    item["n"] = {"N": str(rng.randint(-5, 5))}
    if rng.random() < 0.5:
        item["tags"] = {"SS": rng.sample(["a", "b", "c"], rng.randint(1, 3))}
    if rng.random() < 0.3:
        item["blob"] = {"B": _body(rng)[:8] or b"\x00"}
    if rng.random() < 0.3:
        item["m"] = {"M": {"x": {"BOOL": rng.random() < 0.5}, "l": {"L": [{"N": "1"}]}}}
    return item


def operations(env: Env, rng: random.Random, count: int) -> list[Any]:
    """`count` zero-argument calls drawn from `rng` (drawn before any runs: the same calls
    on both paths)."""
    ops = []
    for _ in range(count):
        family = rng.choice((_s3_op, _s3_op, _ddb_op, _ddb_op, _ddb_op, _sqs_op, _sns_op))
        ops.append(family(env, rng))
    return ops


def _bucket(rng: random.Random) -> str:
    return BUCKET if rng.random() < 0.9 else "missing-bucket"


def _s3_op(env: Env, rng: random.Random) -> Any:
    s3, s3r = env.s3, env.s3r
    key = rng.choice(KEYS + ("missing.txt",))
    bucket = _bucket(rng)
    kind = rng.randrange(11)
    if kind == 0:
        extra: dict[str, Any] = {}
        if rng.random() < 0.3:
            extra["Range"] = rng.choice(("bytes=0-9", "bytes=5-", "bytes=-4", "bytes=100-200"))
        if rng.random() < 0.2:
            extra["IfMatch"] = '"0123"'
        return lambda: s3.get_object(Bucket=bucket, Key=key, **extra)
    if kind == 1:
        extra = {}
        if rng.random() < 0.5:
            extra["ContentType"] = rng.choice(CONTENT_TYPES) or "binary/octet-stream"
        if rng.random() < 0.4:
            extra["Metadata"] = {"k": rng.choice(("v", "w"))}
        body = _body(rng)
        return lambda: s3.put_object(Bucket=bucket, Key=key, Body=body, **extra)
    if kind == 2:
        return lambda: s3.head_object(Bucket=bucket, Key=key)
    if kind == 3:
        return lambda: s3.delete_object(Bucket=bucket, Key=key)
    if kind == 4:
        source = rng.choice(KEYS + ("missing.txt",))
        extra = {}
        if rng.random() < 0.4:
            extra = {"MetadataDirective": "REPLACE", "Metadata": {"copied": "yes"}}
        return lambda: s3.copy_object(
            Bucket=bucket, Key=key, CopySource={"Bucket": BUCKET, "Key": source}, **extra
        )
    if kind == 5:
        extra = {}
        if rng.random() < 0.5:
            extra["Prefix"] = rng.choice(("dir/", "a", "zzz", ""))
        if rng.random() < 0.5:
            extra["MaxKeys"] = rng.randint(1, 3)
        if rng.random() < 0.3:
            extra["Delimiter"] = "/"
        return lambda: s3.list_objects_v2(Bucket=bucket, **extra)
    if kind == 6:
        size = rng.randint(1, 3)
        prefix = rng.choice(("", "dir/"))
        return lambda: list(
            s3.get_paginator("list_objects_v2").paginate(
                Bucket=bucket, Prefix=prefix, PaginationConfig={"PageSize": size}
            )
        )
    if kind == 7:
        return lambda: sorted(o.key for o in s3r.Bucket(bucket).objects.all())
    if kind == 8:

        def resource_get() -> Any:
            obj = s3r.Object(bucket, key)
            return {"body": obj.get()["Body"].read(), "type": obj.content_type}

        return resource_get
    if kind == 9:
        body = _body(rng)
        return lambda: s3r.Object(bucket, key).put(Body=body)
    present = rng.random() < 0.5
    if present:
        return lambda: _wait(s3, "object_exists", Bucket=bucket, Key=key)
    return lambda: _wait(s3, "object_not_exists", Bucket=bucket, Key=key)


def _wait(client: Any, name: str, **kwargs: Any) -> Any:
    """A waiter's answer on its first poll (no sleeping): success or WaiterError."""
    waiter = client.get_waiter(name)
    return waiter.wait(**kwargs, WaiterConfig={"Delay": 0, "MaxAttempts": 1})


def _table(rng: random.Random) -> str:
    return TABLE if rng.random() < 0.92 else "missing-table"


def _ddb_op(env: Env, rng: random.Random) -> Any:
    ddb = env.ddb
    table = _table(rng)
    ranged = rng.random() < 0.8  # the key shape the caller believes in (may be wrong)
    kind = rng.randrange(14)
    if kind == 0:
        item = _item(rng, ranged)
        extra: dict[str, Any] = {}
        if rng.random() < 0.3:
            extra["ConditionExpression"] = "attribute_not_exists(pk)"
        if rng.random() < 0.3:
            extra["ReturnValues"] = "ALL_OLD"
        return lambda: ddb.put_item(TableName=table, Item=item, **extra)
    if kind == 1:
        key = _key(rng, ranged)
        extra = {}
        if rng.random() < 0.3:
            extra["ProjectionExpression"] = "pk, n"
        if rng.random() < 0.3:
            extra["ConsistentRead"] = True
        return lambda: ddb.get_item(TableName=table, Key=key, **extra)
    if kind == 2:
        key = _key(rng, ranged)
        expression, values = rng.choice(
            (
                ("SET n = n + :d", {":d": {"N": "2"}}),
                ("ADD n :d", {":d": {"N": "1"}}),
                ("SET s = :s REMOVE tags", {":s": {"S": "x"}}),
                ("SET n = :s", {":s": {"S": "not-a-number"}}),
                ("ADD tags :t", {":t": {"SS": ["z"]}}),
            )
        )
        extra = {"ExpressionAttributeValues": dict(values)}
        if rng.random() < 0.3:
            extra["ConditionExpression"] = "attribute_exists(pk)"
        if rng.random() < 0.4:
            extra["ReturnValues"] = rng.choice(("ALL_NEW", "UPDATED_OLD", "NONE"))
        return lambda: ddb.update_item(
            TableName=table, Key=key, UpdateExpression=expression, **extra
        )
    if kind == 3:
        key = _key(rng, ranged)
        extra = {"ReturnValues": "ALL_OLD"} if rng.random() < 0.5 else {}
        if rng.random() < 0.2:
            extra["ConditionExpression"] = "n > :z"
            extra["ExpressionAttributeValues"] = {":z": {"N": "0"}}
        return lambda: ddb.delete_item(TableName=table, Key=key, **extra)
    if kind == 4:
        pk = rng.choice(PKS)
        condition = "pk = :p"
        values: dict[str, Any] = {":p": {"S": pk}}
        if ranged and rng.random() < 0.5:
            condition += " AND sk > :s"
            values[":s"] = {"N": "0"}
        extra = {}
        if rng.random() < 0.4:
            extra["Limit"] = rng.randint(1, 2)
        if rng.random() < 0.3:
            extra["ScanIndexForward"] = False
        if rng.random() < 0.2:
            extra["FilterExpression"] = "n >= :z"
            values[":z"] = {"N": "0"}
        return lambda: ddb.query(
            TableName=table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            **extra,
        )
    if kind == 5:
        extra = {}
        if rng.random() < 0.4:
            extra["Limit"] = rng.randint(1, 3)
        if rng.random() < 0.4:
            extra["FilterExpression"] = "contains(tags, :t)"
            extra["ExpressionAttributeValues"] = {":t": {"S": "a"}}
        return lambda: ddb.scan(TableName=table, **extra)
    if kind == 6:
        size = rng.randint(1, 3)
        return lambda: list(
            ddb.get_paginator("scan").paginate(TableName=table, PaginationConfig={"PageSize": size})
        )
    if kind == 7:
        keys = [_key(rng, ranged) for _ in range(rng.randint(1, 3))]
        unique = list({repr(k): k for k in keys}.values())
        if rng.random() < 0.2:
            unique = keys  # duplicates: a ValidationException
        return lambda: ddb.batch_get_item(RequestItems={table: {"Keys": unique}})
    if kind == 8:
        writes = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.6:
                writes.append({"PutRequest": {"Item": _item(rng, ranged)}})
            else:
                writes.append({"DeleteRequest": {"Key": _key(rng, ranged)}})
        return lambda: ddb.batch_write_item(RequestItems={table: writes})
    if kind == 9:
        items = []
        for _ in range(rng.randint(1, 3)):
            choice = rng.random()
            if choice < 0.4:
                items.append({"Put": {"TableName": table, "Item": _item(rng, ranged)}})
            elif choice < 0.7:
                items.append(
                    {
                        "Update": {
                            "TableName": table,
                            "Key": _key(rng, ranged),
                            "UpdateExpression": "SET n = :v",
                            "ExpressionAttributeValues": {":v": {"N": "7"}},
                            "ConditionExpression": "attribute_exists(pk)",
                        }
                    }
                )
            else:
                items.append(
                    {
                        "ConditionCheck": {
                            "TableName": table,
                            "Key": _key(rng, ranged),
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    }
                )
        return lambda: ddb.transact_write_items(TransactItems=items)
    resource_table = env.ddbr.Table(table)
    if kind == 10:
        item = {"pk": rng.choice(PKS), "n": Decimal(rng.randint(0, 9)), "s": {"nested": [1, 2]}}
        if ranged:
            item["sk"] = Decimal(rng.randint(0, 3))
        return lambda: resource_table.put_item(Item=item)
    if kind == 11:
        key: dict[str, Any] = {"pk": rng.choice(PKS)}
        if ranged:
            key["sk"] = Decimal(rng.randint(0, 3))
        return lambda: resource_table.get_item(Key=key)
    if kind == 12:
        from boto3.dynamodb.conditions import Attr, Key

        pk = rng.choice(PKS)
        condition = Key("pk").eq(pk)
        if ranged and rng.random() < 0.5:
            condition = condition & Key("sk").between(Decimal(0), Decimal(2))
        extra = {"FilterExpression": Attr("n").gte(0)} if rng.random() < 0.3 else {}
        return lambda: resource_table.query(KeyConditionExpression=condition, **extra)
    return lambda: resource_table.scan()


def _sqs_op(env: Env, rng: random.Random) -> Any:
    sqs = env.sqs
    good = f"https://sqs.{REGION}.amazonaws.com/123456789012/{QUEUE}"
    url = good if rng.random() < 0.9 else good.replace(QUEUE, "missing-queue")
    kind = rng.randrange(6)
    if kind == 0:
        extra: dict[str, Any] = {}
        if rng.random() < 0.3:
            extra["MessageAttributes"] = {"kind": {"DataType": "String", "StringValue": "x"}}
        if rng.random() < 0.1:
            extra["DelaySeconds"] = 1000  # invalid
        body = f'{{"v": {rng.randint(0, 99)}}}'
        return lambda: sqs.send_message(QueueUrl=url, MessageBody=body, **extra)
    if kind == 1:
        ids = [f"m{i}" for i in range(rng.randint(1, 3))]
        if rng.random() < 0.15:
            ids.append(ids[0])  # duplicate ids: BatchEntryIdsNotDistinct
        entries = [{"Id": i, "MessageBody": f"body-{i}"} for i in ids]
        return lambda: sqs.send_message_batch(QueueUrl=url, Entries=entries)
    if kind == 2:
        extra = {"MaxNumberOfMessages": rng.randint(1, 10)}
        if rng.random() < 0.5:
            extra["VisibilityTimeout"] = rng.choice((0, 30))
        if rng.random() < 0.5:
            extra["MessageSystemAttributeNames"] = ["All"]
        if rng.random() < 0.3:
            extra["MessageAttributeNames"] = ["All"]
        return lambda: _received(env, sqs.receive_message(QueueUrl=url, **extra))
    if kind == 3:
        handle = _handle(env, rng)
        return lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle=handle())
    if kind == 4:
        handle = _handle(env, rng)
        count = rng.randint(1, 2)
        return lambda: sqs.delete_message_batch(
            QueueUrl=url,
            Entries=[{"Id": f"d{i}", "ReceiptHandle": handle()} for i in range(count)],
        )
    return lambda: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])


def _received(env: Env, response: dict[str, Any]) -> dict[str, Any]:
    env.handles = [m["ReceiptHandle"] for m in response.get("Messages", [])] + getattr(
        env, "handles", []
    )
    return response


def _handle(env: Env, rng: random.Random) -> Any:
    pick = rng.random()

    def handle() -> str:
        handles = getattr(env, "handles", [])
        if handles and pick < 0.8:
            return handles[int(pick * 10) % len(handles)]
        return "not-a-receipt-handle"

    return handle


def _sns_op(env: Env, rng: random.Random) -> Any:
    sns = env.sns
    arn = f"arn:aws:sns:{REGION}:123456789012:{TOPIC if rng.random() < 0.9 else 'missing'}"
    extra: dict[str, Any] = {}
    if rng.random() < 0.3:
        extra["Subject"] = "hello"
    if rng.random() < 0.3:
        extra["MessageAttributes"] = {"k": {"DataType": "String", "StringValue": "v"}}
    if rng.random() < 0.1:
        extra["MessageStructure"] = "json"  # invalid unless the message is a JSON object
    message = rng.choice(('{"default": "d"}', "plain text", ""))
    return lambda: sns.publish(TopicArn=arn, Message=message, **extra)


def state(env: Env) -> Any:
    """The world as moto holds it after a sequence (read from its backend objects)."""
    from moto.dynamodb.models import dynamodb_backends
    from moto.s3.models import s3_backends
    from moto.sqs.models import sqs_backends

    account = "123456789012"
    bucket = s3_backends[account]["aws"].buckets[BUCKET]
    objects = [
        (key, obj.value, obj.etag, sorted(obj.metadata.items()))
        for key, obj in sorted(bucket.keys.items())
    ]
    table = dynamodb_backends[account][REGION].tables[TABLE]
    items = sorted(repr(item.to_json()) for item in table.all_items())
    queue = sqs_backends[account][REGION].queues[QUEUE]
    messages = [
        (
            m.id,
            _envelope(m.body),
            m.approximate_receive_count,
            sorted(m.message_attributes),
            m.visible,
        )
        for m in queue._messages
    ]
    return {"objects": objects, "items": items, "messages": messages}


def _envelope(body: str) -> Any:
    """An SQS message body, an SNS envelope's time and signature masked."""
    import json

    try:
        data = json.loads(body)
    except ValueError:
        return body
    return normal(data) if isinstance(data, dict) else body


def run_sequence(env: Env, seed: int, *, fast: bool, length: int = 6) -> Any:
    """Outcomes of sequence `seed` and the state it leaves, on one path."""
    env.backend.reset()
    env.handles = []
    rng = random.Random(seed)
    env.fast.enabled = False
    build_world(env, rng)
    ops = operations(env, rng, length)
    env.fast.enabled = fast
    try:
        outcomes = [outcome(op) for op in ops]
    finally:
        env.fast.enabled = False
    return outcomes, state(env)
