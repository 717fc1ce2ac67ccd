"""Events of message brokers Lambda polls: Kafka (Amazon MSK or self-managed) and Amazon MQ
(ActiveMQ or RabbitMQ).

The brokers themselves are not emulated (moto has none): the handler only sees the batch
Lambda's poller hands it, so a plan holds each message's payload and the facts the poller
adds (topic and partition, offsets, broker ids, times).  Payloads follow `trigger.body`
(mostly JSON objects by default, `payloads.draw_payload`) and are base64-encoded as Lambda
delivers them; ids derive from one seed draw per record (see `ids`).  Shapes follow the
AWS documentation of each event and are checked against the Powertools parser models in
the tests.
Labels: `broker.message` for each payload, under the event's label.
"""

from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.payloads import draw_payload
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.model.target import Target, TriggerKind
from lambdafuzz.model.world import LoadedWorld, World

#: The topic / queue a broker trigger without `source` reads.
DEFAULT_TOPIC: Final = "events"
DEFAULT_QUEUE: Final = "messages"
#: Record headers a producer commonly sets (Kafka) / message properties (ActiveMQ).
HEADER_NAMES: Final = ("content-type", "correlation-id", "source", "retry-count")
BROKER_KINDS: Final = frozenset(
    {TriggerKind.MSK, TriggerKind.KAFKA, TriggerKind.ACTIVEMQ, TriggerKind.RABBITMQ}
)
_PARTITIONS: Final = 3


@dataclass(slots=True, frozen=True)
class BrokerMessagePlan:
    """One message of the batch: its payload and what the poller says about it."""

    destination: str  # Kafka topic / MQ queue
    data: bytes
    key: bytes | None  # Kafka record key (None: produced without one)
    headers: tuple[tuple[str, str], ...]
    partition: int  # Kafka only; 0 for MQ
    index: int  # position in the batch: offsets increase with it
    time_ms: int
    redelivered: bool
    seed: bytes


def draw_broker_messages(
    choices: Choices, target: Target, world: World
) -> tuple[BrokerMessagePlan, ...]:
    """A batch from one topic (partitions interleaved) or one queue, in arrival order."""
    trigger = target.trigger
    kafka = trigger.kind in (TriggerKind.MSK, TriggerKind.KAFKA)
    destination = trigger.source or (DEFAULT_TOPIC if kafka else DEFAULT_QUEUE)
    count = choices.draw_integer(trigger.records_min, trigger.records_max, site="records")
    time_ms = ids.draw_time_ms(choices)
    messages = []
    for index in range(count):
        with choices.scope(labels.BROKER_MESSAGE, site="message"):
            data = draw_payload(
                choices, trigger.body, world.buckets, region=world.region, account=world.account_id
            )
        key = None
        if kafka and choices.draw_boolean(0.7, site="key?"):
            key = encodable(choices.draw_string(min_size=1, max_size=24, site="key")).encode()
        headers = []
        for _ in range(choices.draw_geometric(0.4, max_value=3, site="headers")):
            name = choices.draw_choice(HEADER_NAMES, site="header")
            value = encodable(choices.draw_string(min_size=0, max_size=24, site="value"))
            headers.append((name, value))
        partition = choices.draw_integer(0, _PARTITIONS - 1, site="partition") if kafka else 0
        time_ms += choices.draw_geometric(20.0, max_value=60_000, site="gap")
        redelivered = not kafka and choices.draw_boolean(0.05, site="redelivered?")
        messages.append(
            BrokerMessagePlan(
                destination,
                data,
                key,
                tuple(headers),
                partition,
                index,
                time_ms,
                redelivered,
                ids.draw_seed(choices),
            )
        )
    return tuple(messages)


def render_broker_event(
    kind: TriggerKind, messages: tuple[BrokerMessagePlan, ...], loaded: LoadedWorld
) -> dict[str, Any]:
    """The event Lambda's poller sends for `kind`."""
    if kind in (TriggerKind.MSK, TriggerKind.KAFKA):
        return _render_kafka(kind, messages, loaded)
    if kind is TriggerKind.ACTIVEMQ:
        return _render_activemq(messages, loaded)
    return _render_rabbitmq(messages, loaded)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _render_kafka(
    kind: TriggerKind, messages: tuple[BrokerMessagePlan, ...], loaded: LoadedWorld
) -> dict[str, Any]:
    """Records grouped under "topic-partition", offsets increasing per partition; keys and
    values base64, header values as lists of byte values (as the poller serialises them)."""
    world = loaded.world
    first = messages[0] if messages else None
    cluster = ids.uuid(first.seed if first else bytes(8), "cluster")
    base_offset = int(ids.digits(first.seed, "offset", 6)) if first else 0
    grouped: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        partition_records = grouped.setdefault(f"{message.destination}-{message.partition}", [])
        record: dict[str, Any] = {
            "topic": message.destination,
            "partition": message.partition,
            "offset": base_offset + len(partition_records),
            "timestamp": message.time_ms,
            "timestampType": "CREATE_TIME",
            "value": _b64(message.data),
            "headers": [{name: list(value.encode())} for name, value in message.headers],
        }
        if message.key is not None:
            record["key"] = _b64(message.key)
        partition_records.append(record)
    brokers = ",".join(
        f"b-{i}.cluster-{cluster[:8]}.kafka.{world.region}.amazonaws.com:9098" for i in (1, 2)
    )
    event: dict[str, Any] = {
        "eventSource": "aws:kafka" if kind is TriggerKind.MSK else "SelfManagedKafka",
        "bootstrapServers": brokers,
        "records": grouped,
    }
    if kind is TriggerKind.MSK:
        event["eventSourceArn"] = (
            f"arn:aws:kafka:{world.region}:{world.account_id}:cluster/cluster/{cluster}-1"
        )
    return event


def _broker_arn(messages: tuple[BrokerMessagePlan, ...], loaded: LoadedWorld) -> str:
    world = loaded.world
    broker = ids.uuid(messages[0].seed if messages else bytes(8), "broker")
    return f"arn:aws:mq:{world.region}:{world.account_id}:broker:broker:b-{broker}"


def _render_activemq(
    messages: tuple[BrokerMessagePlan, ...], loaded: LoadedWorld
) -> dict[str, Any]:
    host = f"b-{ids.uuid(messages[0].seed if messages else bytes(8), 'broker')}-1"
    rendered = []
    for message in messages:
        rendered.append(
            {
                "messageID": f"ID:{host}.mq.{loaded.world.region}.amazonaws.com-"
                f"{ids.digits(message.seed, 'port', 5)}-{message.index + 1}:1:1:1:1",
                "messageType": "jms/text-message",
                "deliveryMode": 1,
                "replyTo": None,
                "type": None,
                "expiration": "60000",
                "priority": 1,
                "correlationId": ids.hex_id(message.seed, "correlation", 12, upper=False),
                "redelivered": message.redelivered,
                "destination": {"physicalName": message.destination},
                "data": _b64(message.data),
                "timestamp": message.time_ms,
                "brokerInTime": message.time_ms,
                "brokerOutTime": message.time_ms + 1,
                "properties": dict(message.headers),
            }
        )
    return {
        "eventSource": "aws:mq",
        "eventSourceArn": _broker_arn(messages, loaded),
        "messages": rendered,
    }


def _render_rabbitmq(
    messages: tuple[BrokerMessagePlan, ...], loaded: LoadedWorld
) -> dict[str, Any]:
    by_queue: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        stamp = dt.datetime.fromtimestamp(message.time_ms / 1000, dt.UTC)
        properties = {
            "contentType": "application/json" if message.data[:1] in (b"{", b"[") else "text/plain",
            "contentEncoding": None,
            "headers": dict(message.headers),
            "deliveryMode": 1,
            "priority": 0,
            "correlationId": None,
            "replyTo": None,
            "expiration": "60000",
            "messageId": ids.uuid(message.seed, "message"),
            "timestamp": f"{stamp:%b} {stamp.day}, {stamp.year}, "
            f"{(stamp.hour % 12) or 12}:{stamp:%M:%S %p}",
            "type": None,
            "userId": ids.alnum_id(message.seed, "user", 21),
            "appId": None,
            "clusterId": None,
            "bodySize": len(message.data),
        }
        by_queue.setdefault(f"{message.destination}::/", []).append(
            {
                "basicProperties": properties,
                "redelivered": message.redelivered,
                "data": _b64(message.data),
            }
        )
    return {
        "eventSource": "aws:rmq",
        "eventSourceArn": _broker_arn(messages, loaded),
        "rmqMessagesByQueue": by_queue,
    }
