"""What a delivery changed, recorded in this process against in-process moto
(`harness.world_writes`, `harness.redelivery`): every kind of write and send with its
application line, nothing for a call answered with an error or made outside a recording,
the states read back, and a handler delivered twice (a batch's reported records only)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore import handlers
from moto import mock_aws
from redelivery_app import orders

from lambdafuzz.harness.invoke import LambdaContext
from lambdafuzz.harness.oracle.redelivery import Redelivery, StateReader
from lambdafuzz.harness.oracle.world_writes import RawWrite, WriteLog, digest
from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS
from lambdafuzz.model.redelivery import ObjectState, ResourceKind, Sent
from lambdafuzz.model.redelivery_judgement import Change
from lambdafuzz.model.target import FrozenMap, Target, Trigger, TriggerKind

REGION = "us-east-1"
APP = Path(__file__).parent / "redelivery_app"
TABLE = "orders"


def _line(text: str) -> str:
    lines = (APP / "orders.py").read_text(encoding="utf-8").splitlines()
    (number,) = [n for n, line in enumerate(lines, start=1) if text in line]
    return f"redelivery_app/orders.py:{number}"


@dataclass
class World:
    session: Any
    table: Any  # the resource's Table
    client: Any  # a low-level DynamoDB client


@pytest.fixture
def hooked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """botocore's handler list as a private copy (gone after the test), credentials and
    region as the worker's sandbox has them, moto running."""
    for name, value in FAKE_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setattr(handlers, "BUILTIN_HANDLERS", list(handlers.BUILTIN_HANDLERS))
    with mock_aws():
        yield


def _world() -> World:
    session = boto3.session.Session(region_name=REGION)
    client = session.client("dynamodb")
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return World(session, session.resource("dynamodb").Table(TABLE), client)


@pytest.fixture
def log(hooked: None) -> WriteLog:
    made = WriteLog([str(APP.resolve())])
    made.install()
    made.install()  # twice: still one hook each
    assert handlers.BUILTIN_HANDLERS.count(("after-call", made._on_answer)) == 1
    return made


# =========================================================================== recording
def test_item_writes_are_recorded_with_their_line_and_failed_ones_are_not(log: WriteLog) -> None:
    world = _world()
    orders.put_order(world.table, "o-0", Decimal(1))  # before start(): not recorded
    log.start()
    orders.put_order(world.table, "o-1", Decimal(5))
    with pytest.raises(world.client.exceptions.ConditionalCheckFailedException):
        orders.put_once(world.table, "o-1")  # there already: it wrote nothing
    orders.count_up(world.client, TABLE, "c-1")
    changes = log.stop()
    orders.put_order(world.table, "o-2", Decimal(1))  # after stop(): not recorded
    assert log.changes == []
    put, update = changes
    assert put == RawWrite(
        ResourceKind.TABLE,
        TABLE,
        "PutItem",
        item={"pk": {"S": "o-1"}, "total": {"N": "5"}},  # as AttributeValues, via boto3's resource
        location=_line('table.put_item(Item={"pk": order_id, "total": total})'),
    )
    assert update.operation == "UpdateItem" and update.key == {"pk": {"S": "c-1"}}
    assert update.location == _line("client.update_item(")


def test_batch_and_transaction_writes_are_each_place_they_wrote(log: WriteLog) -> None:
    world = _world()
    log.start()
    orders.batch_and_transaction(world.client, TABLE)
    changes = log.stop()
    assert [(c.operation, c.item or c.key) for c in changes] == [
        ("BatchWriteItem", {"pk": {"S": "b-1"}}),
        ("BatchWriteItem", {"pk": {"S": "b-2"}}),
        ("TransactWriteItems", {"pk": {"S": "t-1"}}),  # the ConditionCheck writes nothing
    ]


def test_objects_and_sends_are_recorded(log: WriteLog) -> None:
    session = boto3.session.Session(region_name=REGION)
    s3, sqs, sns = session.client("s3"), session.client("sqs"), session.client("sns")
    events = session.client("events")
    s3.create_bucket(Bucket="reports")
    standard = sqs.create_queue(QueueName="mail")["QueueUrl"]
    fifo = sqs.create_queue(
        QueueName="ledger.fifo",
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    )["QueueUrl"]
    topic = sns.create_topic(Name="order-events")["TopicArn"]
    events.create_event_bus(Name="orders")
    log.start(with_stacks=True)
    orders.store_and_clean(s3, "reports")
    orders.send_all(sqs, standard, fifo, sns, topic, events)
    changes = log.stop()
    writes = [c for c in changes if isinstance(c, RawWrite)]
    assert [(w.operation, w.key) for w in writes] == [
        ("PutObject", {"key": "reports/a.json"}),
        ("DeleteObjects", {"key": "old/x"}),
        ("DeleteObjects", {"key": "old/y"}),
    ]
    sent = [c for c in changes if isinstance(c, Sent)]
    assert [(s.kind, s.resource, s.dedup) for s in sent] == [
        (ResourceKind.QUEUE, "mail", ""),
        (ResourceKind.QUEUE, "ledger.fifo", "d-1"),
        (ResourceKind.QUEUE, "ledger.fifo", digest("b")),  # content-based deduplication
        (ResourceKind.TOPIC, "order-events", ""),
        (ResourceKind.EVENT_BUS, "default", ""),
        (ResourceKind.EVENT_BUS, "orders", ""),
    ]
    assert sent[3].shown == '{"order": "o-1"}' and sent[3].digest == digest('{"order": "o-1"}')
    assert sent[0].location == _line('MessageBody="hello"')
    assert sent[0].stack.splitlines()[-1].strip().startswith("sqs.send_message(")


# =========================================================================== states
def _target(*, reporting: bool = False) -> Target:
    return Target(
        config_path=APP / "lambdafuzz.yaml",
        handler_module="redelivery_app.orders",
        handler_function="handler",
        root=APP.parent,
        app_packages=("redelivery_app",),
        trigger=Trigger(TriggerKind.SQS, "orders", report_batch_item_failures=reporting),
        env=FrozenMap(),
    )


def test_the_reader_gives_places_and_states_back(hooked: None) -> None:
    world = _world()
    world.table.put_item(Item={"pk": "o-1", "total": Decimal(5), "tags": {"a"}, "raw": b"\x00"})
    s3 = boto3.session.Session(region_name=REGION).client("s3")
    s3.create_bucket(Bucket="reports")
    s3.put_object(Bucket="reports", Key="a.json", Body=b'{"rows": 3}')
    reader = StateReader(_target())  # no declared table: its key is asked of the emulator
    item = {"pk": {"S": "o-1"}, "total": {"N": "5"}}
    place, raw = reader.place(RawWrite(ResourceKind.TABLE, TABLE, "PutItem", item=item))
    assert place.key == (("pk", "o-1"),) and raw == {"pk": {"S": "o-1"}}
    assert reader.state(place.place, raw) == {
        "pk": "o-1",
        "total": Decimal(5),
        "tags": {"a"},
        "raw": b"\x00",
    }
    missing = RawWrite(ResourceKind.TABLE, TABLE, "PutItem", item={"total": {"N": "1"}})
    assert reader.place(missing) is None  # no key attribute: no place to read
    obj, raw_obj = reader.place(
        RawWrite(ResourceKind.BUCKET, "reports", "PutObject", key={"key": "a.json"})
    )
    state = reader.state(obj.place, raw_obj)
    assert isinstance(state, ObjectState) and state.body == b'{"rows": 3}' and state.size == 11
    gone = (ResourceKind.BUCKET, "reports", (("key", "nope"),))
    assert reader.state(gone, {"key": "nope"}) is None


# =========================================================================== two deliveries
def _sqs_event(*ids: str) -> dict[str, Any]:
    return {
        "Records": [
            {"messageId": i, "body": json.dumps({"id": i}), "eventSource": "aws:sqs"} for i in ids
        ]
    }


def test_a_handler_delivered_twice_is_judged(hooked: None) -> None:
    redelivery = Redelivery(_target())
    redelivery.install()
    world = _world()
    sns = world.session.client("sns")
    topic = sns.create_topic(Name="notices")["TopicArn"]
    handler = orders.make_handler(world.table, sns, topic)
    context = LambdaContext("handler", timeout_s=3, memory_mb=128, request_id="req-1")
    event = _sqs_event("m-1")
    redelivery.begin(event)
    value = handler(event, context)
    event["Records"].clear()  # a handler that empties its event: the retry has it whole
    redelivery.again(handler, context, value)
    found = {f.info.detail: f for f in redelivery.end()}
    assert sorted(found) == [Change.NEW_ITEM, Change.SENT_TWICE]
    assert found[Change.NEW_ITEM].info.location == _line('table.put_item(Item={"pk": str(uuid')
    assert found[Change.SENT_TWICE].info.shape == "notices"
    assert "orders.py" in found[Change.SENT_TWICE].info.traceback
    assert redelivery.end() == ()  # said once


def test_a_batch_reporting_failures_gets_only_those_records_again(hooked: None) -> None:
    redelivery = Redelivery(_target(reporting=True))
    redelivery.install()
    world = _world()
    handler = orders.make_partial_handler(world.table)
    context = LambdaContext("handler", timeout_s=3, memory_mb=128, request_id="req-1")
    event = _sqs_event("m-1", "m-2", "m-3")
    redelivery.begin(event)
    value = handler(event, context)
    again = redelivery.again(handler, context, value)
    assert again["seen"] == ["m-2"]  # what Lambda delivers next
    assert redelivery.end() == ()  # the same item written again: no finding


def test_a_retry_that_raises_where_the_first_delivery_returned_is_a_finding(hooked: None) -> None:
    """Not safe to deliver twice: the first delivery consumed what the second needs."""
    redelivery = Redelivery(_target())
    redelivery.install()
    world = _world()
    world.table.put_item(Item={"pk": "m-1", "status": "pending"})

    def claim(event: Any, context: Any) -> dict[str, Any]:
        key = {"pk": event["Records"][0]["messageId"]}
        item = world.table.get_item(Key=key).get("Item")
        if item is None:
            raise LookupError(f"no pending order {key['pk']}")
        world.table.delete_item(Key=key)
        return {"claimed": key["pk"]}

    context = LambdaContext("handler", timeout_s=3, memory_mb=128, request_id="req-1")
    event = _sqs_event("m-1")
    redelivery.begin(event)
    value = claim(event, context)
    assert redelivery.again(claim, context, value) == value  # the test itself passes
    (finding,) = redelivery.end()
    assert finding.info.detail == Change.FAILS_ON_RETRY
    assert finding.info.shape == "LookupError"  # keyed by what was raised, not its message
    assert "raised LookupError: no pending order m-1" in finding.info.message
    assert "first delivery: returned {'claimed': 'm-1'}" in finding.evidence


# =========================================================================== coverage
def test_two_deliveries_cover_their_union_each_counted_as_if_alone() -> None:
    """`BranchCollector.restart` / `keep_max`: the arms of both runs, each arm's count the
    larger run's, so a test delivered twice takes no hit-count bucket its first run alone
    would not (a doubled count would make every such test look new)."""
    from lambdafuzz.harness.measure.coverage import BranchCollector

    with BranchCollector([str(APP.resolve())]) as collector:
        collector.begin()
        orders.tally([5, 5, 5])
        once = collector.end()
        collector.begin()
        orders.tally([5, 5, 5])
        earlier = collector.restart()
        orders.tally([5, 5, 1])  # the same arms at most as often, and the other arm once
        collector.keep_max(earlier)
        twice = collector.end()
        collector.begin()
        orders.tally([5, 5, 5])
        orders.tally([5, 5, 1])
        summed = collector.end()
    assert once.hits < twice.hits  # every (arm, bucket) of the first run, and one more
    assert len(twice.arms) == len(once.arms) + 1
    assert not once.hits <= summed.hits  # counted together, the loop's arms change bucket
