"""The triggering event, in two steps: an `EventPlan` drawn after the world, rendered once
the backend has loaded that world.

Two steps because an SQS event must carry facts only the emulator knows (each message's
real messageId, receiptHandle and MD5, so a handler can delete what it processed) and
SNS / stream events name ARNs the backend assigns.  The plan is pure data decided by the
choices; `render_event(plan, loaded)` only formats.  Every kind uses the same API, even
those that need nothing from the backend.

Shapes follow the AWS documentation and are checked against the Powertools parser models.
Given the world's names (`world_refs.WorldRefs`), a record's own id (SNS `MessageId`,
stream `eventID`, EventBridge `id`; SQS in `queues.py`, API in `http_events.py`) is now
and then an item key of the world, JSON fields named as resources or ids (a direct
payload, an SNS message, a custom EventBridge detail, a Kinesis record) name the world's,
and a record of a batch now and then repeats an earlier one (`batches.draw_repeat`).
Labels: `lambdafuzz.Event` > `event.<kind>` > the parts' own labels.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import json
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.errors import BackendError
from lambdafuzz.generators import edge_values
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.authorizer_events import (
    AuthorizerPlan,
    draw_authorizer,
    render_authorizer,
)
from lambdafuzz.generators.aws.batches import draw_repeat
from lambdafuzz.generators.aws.bodies import draw_body
from lambdafuzz.generators.aws.brokers import (
    BROKER_KINDS,
    BrokerMessagePlan,
    draw_broker_messages,
    render_broker_event,
)
from lambdafuzz.generators.aws.cloudtrail import DETAIL_TYPE as CLOUDTRAIL_DETAIL_TYPE
from lambdafuzz.generators.aws.cloudtrail import (
    draw_cloudtrail_detail,
    is_cloudtrail,
    service_of,
)
from lambdafuzz.generators.aws.filter_steering import (
    choose_pattern,
    draw_admitted,
    pattern_part,
    patterns_of,
    steer,
)
from lambdafuzz.generators.aws.firehose import (
    FirehoseRecordPlan,
    draw_firehose_records,
    render_firehose_event,
)
from lambdafuzz.generators.aws.http_events import (
    HttpRequestPlan,
    draw_request,
    render_v1,
    render_v2,
)
from lambdafuzz.generators.aws.model_bodies import draw_model_value, model_for
from lambdafuzz.generators.aws.payloads import draw_payload
from lambdafuzz.generators.aws.s3_batch import S3BatchPlan, draw_s3_batch, render_s3_batch
from lambdafuzz.generators.aws.s3_notifications import (
    S3RecordPlan,
    draw_s3_record,
    missing_chance,
    render_eventbridge,
    render_s3_record,
)
from lambdafuzz.generators.aws.streams import (
    StreamRecordPlan,
    draw_stream_records,
    render_stream_record,
)
from lambdafuzz.generators.aws.task_inputs import TaskPlan, s3_bucket, task_inputs, with_input
from lambdafuzz.generators.aws.task_payloads import (
    draw_payload_of,
    draw_task_index,
    draw_task_payload,
)
from lambdafuzz.generators.aws.websocket import WebSocketPlan, draw_websocket, render_websocket
from lambdafuzz.generators.aws.world_refs import (
    WorldRefs,
    draw_record_id,
    fill_json_text,
    fill_names,
)
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import date_fields
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.generators.files.json_files import json_objects, json_values
from lambdafuzz.model.event_pattern import leaf_matches
from lambdafuzz.model.target import (
    AuthorizerFormat,
    BodyModel,
    Envelope,
    ObjectsSpec,
    Target,
    Trigger,
    TriggerKind,
)
from lambdafuzz.model.world import Bucket, LoadedWorld, World

KIND_LABELS: Final = {
    TriggerKind.S3: labels.S3_EVENT,
    TriggerKind.SQS: labels.SQS_EVENT,
    TriggerKind.SNS: labels.SNS_EVENT,
    TriggerKind.DYNAMODB_STREAM: labels.DYNAMODB_STREAM_EVENT,
    TriggerKind.APIGATEWAY: labels.APIGATEWAY_EVENT,
    TriggerKind.APIGATEWAY_V2: labels.APIGATEWAY_V2_EVENT,
    TriggerKind.EVENTBRIDGE: labels.EVENTBRIDGE_EVENT,
    TriggerKind.DIRECT: labels.DIRECT_EVENT,
    TriggerKind.KINESIS: labels.KINESIS_EVENT,
    TriggerKind.SCHEDULE: labels.SCHEDULE_EVENT,
    TriggerKind.MSK: labels.MSK_EVENT,
    TriggerKind.KAFKA: labels.KAFKA_EVENT,
    TriggerKind.ACTIVEMQ: labels.ACTIVEMQ_EVENT,
    TriggerKind.RABBITMQ: labels.RABBITMQ_EVENT,
    TriggerKind.AUTHORIZER: labels.AUTHORIZER_EVENT,
    TriggerKind.FIREHOSE: labels.FIREHOSE_EVENT,
    TriggerKind.S3_BATCH: labels.S3_BATCH_EVENT,
    TriggerKind.WEBSOCKET: labels.WEBSOCKET_EVENT,
}
#: The stream a Kinesis trigger without `source` reads.
DEFAULT_STREAM: Final = "stream"
#: The rule a schedule trigger without `source` fires from.
DEFAULT_RULE: Final = "schedule"
#: How often a custom event's detail holds what the handler reads below it (the rest: any
#: JSON object, a producer that is not the one the handler was written for).
DETAIL_READS_P: Final = 0.8
#: How often a field the code compares with constants holds one of them.
COMPARED_P: Final = 0.5
#: The most items of a direct payload that is an array (a Map's results, a batch).
MAX_ARRAY_ITEMS: Final = 5
#: Sources and detail types of custom EventBridge events (no bucket to describe).
CUSTOM_SOURCES: Final = ("com.example.orders", "custom.app", "aws.events")
CUSTOM_DETAIL_TYPES: Final = ("Order Placed", "Scheduled Event", "Item Updated")


@dataclass(slots=True, frozen=True)
class SqsRecordPlan:
    queue: str
    index: int  # position of the message in `World.queue(queue).messages` / `LoadedWorld.messages`
    receive_count: int
    receive_delay_ms: int  # first receive, after SentTimestamp


@dataclass(slots=True, frozen=True)
class SnsRecordPlan:
    topic: str
    message: str
    subject: str | None
    attributes: tuple[tuple[str, str], ...]
    time_ms: int
    seed: bytes
    message_id: str | None = None  # in place of the derived MessageId (`world_refs`)


@dataclass(slots=True, frozen=True)
class BridgePlan:
    """An EventBridge event: an S3 "Object Created" (`s3` set) or a custom event."""

    s3: S3RecordPlan | None
    source: str = ""
    detail_type: str = ""
    detail_json: str = "{}"
    time_ms: int = ids.EPOCH_MS
    seed: bytes = bytes(8)
    event_id: str | None = None  # in place of the derived id (`world_refs`)


@dataclass(slots=True, frozen=True)
class KinesisRecordPlan:
    """One record of a Kinesis data stream: its data and where it sits in the shard."""

    stream: str
    data: bytes
    partition_key: str
    index: int  # position in the batch: sequence numbers increase with it
    time_ms: int
    seed: bytes


@dataclass(slots=True, frozen=True)
class SchedulePlan:
    """One firing of a scheduled EventBridge rule: the event says only which rule, when."""

    rule: str
    time_ms: int
    seed: bytes


@dataclass(slots=True, frozen=True)
class DirectPlan:
    """The JSON payload of a direct invocation (kept as text: plans are immutable)."""

    payload_json: str


@dataclass(slots=True, frozen=True)
class SamplePlan:
    """A project's sample event as the seed path walked it (`sample_events.py`): the
    whole event, rendered as it is."""

    payload_json: str


RecordPlanT = (
    S3RecordPlan
    | SqsRecordPlan
    | SnsRecordPlan
    | StreamRecordPlan
    | HttpRequestPlan
    | BridgePlan
    | DirectPlan
    | KinesisRecordPlan
    | SchedulePlan
    | SamplePlan
    | BrokerMessagePlan
    | AuthorizerPlan
    | FirehoseRecordPlan
    | TaskPlan
    | S3BatchPlan
    | WebSocketPlan
)


@dataclass(slots=True, frozen=True)
class EventPlan:
    """What the event will say, decided by the choices; `render_event` makes it a dict.
    API Gateway and EventBridge events have exactly one record (the request / event)."""

    kind: TriggerKind
    source: str | None
    records: tuple[RecordPlanT, ...]

    def received_messages(self) -> dict[str, int]:
        """Queue -> how many of its first messages the event carries: what a backend must
        have received (in flight, with receipt handles); the rest stay visible."""
        found: dict[str, int] = {}
        for record in self.records:
            if isinstance(record, SqsRecordPlan):
                found[record.queue] = max(found.get(record.queue, 0), record.index + 1)
        return found


# =========================================================================== drawing
@generator(labels.EVENT)
def draw_event_plan(
    choices: Choices,
    target: Target,
    world: World,
    local: Sequence[str] = (),
    refs: WorldRefs | None = None,
) -> EventPlan:
    """The event for `target`'s trigger, consistent with `world` (generated before it);
    `refs`: the world's names its fields and ids may reuse (`world_refs`)."""
    trigger = target.trigger
    kind = trigger.kind
    refs = refs or WorldRefs()
    with choices.scope(KIND_LABELS[kind], site=f"event:{kind.value}"):
        if kind is TriggerKind.S3:
            count = choices.draw_integer(trigger.records_min, trigger.records_max, site="records")
            s3_records: list[S3RecordPlan] = []
            for _ in range(count):
                again = draw_repeat(choices, len(s3_records))
                if again is not None:  # the same object twice in one batch
                    s3_records.append(s3_records[again])
                    continue
                record = draw_s3_record(
                    choices,
                    world.buckets,
                    bucket=trigger.source,
                    missing_p=missing_chance(trigger.missing_objects),
                    key_shape=_objects_of(target, trigger.source),
                    deleted=_s3_removal(choices, trigger.s3_events),
                    site="record",
                )
                s3_records.append(record)
            records: tuple[RecordPlanT, ...] = tuple(s3_records)
        elif kind is TriggerKind.SQS:
            records = _draw_sqs(choices, target, world)
        elif kind is TriggerKind.SNS:
            records = _draw_sns(choices, target, world, refs)
        elif kind is TriggerKind.DYNAMODB_STREAM:
            assert trigger.source is not None  # config guarantees a table with a stream
            count = choices.draw_integer(trigger.records_min, trigger.records_max, site="records")
            table = world.table(trigger.source)
            patterns = patterns_of(trigger.filters)
            records = tuple(
                dataclasses.replace(r, event_id=draw_record_id(choices, refs))
                for r in draw_stream_records(choices, table, count, local, patterns)
            )
        elif kind is TriggerKind.EVENTBRIDGE:
            records = (_draw_bridge(choices, target, world, refs),)
        elif kind is TriggerKind.DIRECT and trigger.payload_inputs:  # `$`: the execution's
            records = (_draw_task(choices, target, world),)  # input (`task_inputs.py`)
        elif kind is TriggerKind.DIRECT and trigger.payloads:  # a state machine's task
            payload = draw_task_payload(
                choices, trigger.payloads, region=world.region, account=world.account_id
            )
            records = (DirectPlan(json.dumps(payload, ensure_ascii=False)),)
        elif kind is TriggerKind.DIRECT:
            model = model_for(trigger, None)
            records = (_draw_direct(choices, trigger.event_keys, model, refs, trigger.event_array),)
        elif kind is TriggerKind.KINESIS:
            records = _draw_kinesis(choices, target, world, refs)
        elif kind in BROKER_KINDS:
            records = draw_broker_messages(choices, target, world)
        elif kind is TriggerKind.FIREHOSE:
            records = draw_firehose_records(choices, target, world)
        elif kind is TriggerKind.AUTHORIZER:
            fmt = trigger.authorizer_format or AuthorizerFormat.TOKEN
            records = (draw_authorizer(choices, fmt, trigger.identity_sources, local),)
        elif kind is TriggerKind.S3_BATCH:
            records = (draw_s3_batch(choices, trigger, world.buckets),)
        elif kind is TriggerKind.WEBSOCKET:
            records = (draw_websocket(choices, trigger.route_keys, local),)
        elif kind is TriggerKind.SCHEDULE:
            rule = trigger.source or DEFAULT_RULE
            records = (SchedulePlan(rule, ids.draw_time_ms(choices), ids.draw_seed(choices)),)
        else:
            version = "1.0" if kind is TriggerKind.APIGATEWAY else "2.0"
            request = draw_request(
                choices,
                version=version,
                body_format=trigger.body,
                local=local,
                routes=trigger.routes,
                form_fields=trigger.form_fields,
                function_url=trigger.function_url,
                body_model=model_for(trigger, None, Envelope.APIGATEWAY, Envelope.APIGATEWAY_V2),
                refs=refs,
            )
            records = (request,)
    return EventPlan(kind, trigger.source, records)


def _draw_sqs(choices: Choices, target: Target, world: World) -> tuple[SqsRecordPlan, ...]:
    """Records for the first messages of the queue: the ones Lambda received."""
    trigger = target.trigger
    assert trigger.source is not None  # config guarantees a queue
    queue = world.queue(trigger.source)
    high = min(trigger.records_max, len(queue.messages))
    count = choices.draw_integer(min(trigger.records_min, high), high, site="records")
    records = []
    for index in range(count):
        receive_count = 1 + choices.draw_geometric(0.1, max_value=10, site="receive-count")
        delay = choices.draw_geometric(50.0, max_value=60_000, site="receive-delay")
        records.append(SqsRecordPlan(queue.name, index, receive_count, delay))
    return tuple(records)


def _draw_sns(
    choices: Choices, target: Target, world: World, refs: WorldRefs
) -> tuple[SnsRecordPlan, ...]:
    trigger = target.trigger
    assert trigger.source is not None  # config guarantees a topic
    count = choices.draw_integer(trigger.records_min, trigger.records_max, site="records")
    records: list[SnsRecordPlan] = []
    model = model_for(trigger, Envelope.SNS)
    for _ in range(count):
        again = draw_repeat(choices, len(records))
        with choices.scope(labels.SNS_MESSAGE, site="message"):
            if again is not None:  # the same entity twice in one batch
                message = records[again].message
            else:
                message = draw_body(
                    choices,
                    trigger.body,
                    world.buckets,
                    region=world.region,
                    account=world.account_id,
                    missing_p=missing_chance(trigger.missing_objects),
                    model=model,
                )
                if trigger.body in (None, "json") and model is None:
                    message = fill_json_text(choices, message, refs)
            subject = None
            if choices.draw_boolean(0.3, site="subject?"):
                subject = encodable(choices.draw_string(min_size=1, max_size=40, site="subject"))
            attributes = _draw_sns_attributes(choices)
        seed = ids.draw_seed(choices)
        time_ms = ids.draw_time_ms(choices)
        message_id = draw_record_id(choices, refs)
        records.append(
            SnsRecordPlan(trigger.source, message, subject, attributes, time_ms, seed, message_id)
        )
    return tuple(records)


def _draw_sns_attributes(choices: Choices) -> tuple[tuple[str, str], ...]:
    if not choices.draw_boolean(0.2, site="attributes?"):
        return ()
    name = encodable(choices.draw_string(min_size=1, max_size=12, site="attribute-name"))
    value = encodable(choices.draw_string(min_size=1, max_size=24, site="attribute-value"))
    return ((name or "attribute", value),)


def compared_values(
    choices: Choices,
    record: dict[str, Any],
    compared: tuple[tuple[tuple[str, ...], tuple[str | int | float, ...]], ...],
) -> dict[str, Any]:
    """`record` with each field the code compares with constants (`compared`: path ->
    values) holding one of them at COMPARED_P, where the record has that field: the
    branch each comparison decides is taken both ways."""
    for path, values in compared:
        parent: Any = record
        for step in path[:-1]:
            parent = parent.get(step) if isinstance(parent, dict) else None
        if not isinstance(parent, dict) or path[-1] not in parent:
            continue
        with choices.keyed(f"compared:{'.'.join(path)}"):
            if choices.draw_boolean(COMPARED_P, site="compared?"):
                parent[path[-1]] = choices.draw_choice(values, site="compared")
    return record


@functools.lru_cache(maxsize=64)
def _from_aws(filters: tuple[str, ...]) -> bool:
    """Whether every pattern admits AWS services' events only (`source: [aws.trustedadvisor]`):
    events AWS writes, whose fields are all there (a custom producer may omit some).  Once
    per trigger: its filters are the same for every test."""
    sources = [p.get("source") if isinstance(p, dict) else None for p in patterns_of(filters)]
    return bool(sources) and all(
        isinstance(listed, list)
        and listed
        and all(isinstance(s, str) and s.startswith("aws.") for s in listed)
        for listed in sources
    )


@functools.lru_cache(maxsize=64)
def _shape_of(text: str) -> Any:
    """A shape's JSON text parsed once (a campaign draws every event from one)."""
    return json.loads(text)


def _draw_bridge(
    choices: Choices, target: Target, world: World, refs: WorldRefs | None = None
) -> BridgePlan:
    """An S3 "Object Created" event when the trigger names a bucket, else a custom event
    whose source, detail-type and detail the rule's pattern (if any) admits; the detail
    drawn from the handler's model when it parses one (EventBridgeEnvelope), else a JSON
    object whose time-named fields hold written dates with edge values on."""
    trigger = target.trigger
    if trigger.source is not None:
        missing_p = missing_chance(trigger.missing_objects)
        deleted = ""
        if choices.edge_values:
            created, removed = s3_bridge_admits(
                patterns_of(trigger.filters), expected=code_expects_removals(choices.dictionary)
            )
            if removed and edge_values.deleted(choices, only=not created):
                deleted = "Delete"
        plan = draw_s3_record(
            choices,
            world.buckets,
            bucket=trigger.source,
            missing_p=missing_p,
            key_shape=_objects_of(target, trigger.source),
            deleted=deleted,
            site="record",
        )
        return BridgePlan(plan)
    source = encodable(
        choices.draw_from_dictionary(lambda: choices.draw_choice(CUSTOM_SOURCES, site="source"))
    )
    detail_type = choices.draw_choice(CUSTOM_DETAIL_TYPES, site="detail-type")
    model = model_for(trigger, Envelope.EVENTBRIDGE)
    trail = None if model is not None else is_cloudtrail(patterns_of(trigger.filters))
    service = _from_aws(trigger.filters)  # AWS writes every field it sends
    if model is not None:  # the handler's model decides the detail
        detail = draw_model_value(choices, model)
    elif trail is not None:  # AWS's record of an API call (`cloudtrail.py`)
        detail = draw_cloudtrail_detail(
            choices,
            trail,
            region=world.region,
            account=world.account_id,
            calls=trigger.call_parameters,
            refs=refs,
        )
        source, detail_type = service_of(detail), CLOUDTRAIL_DETAIL_TYPE
    else:
        if trigger.detail_reads and (
            service or choices.draw_boolean(DETAIL_READS_P, site="detail-reads?")
        ):
            # every field the handler reads below `detail`, as its producer sends them
            shape = _shape_of(trigger.detail_reads)
            detail = json_objects(choices, shape=shape, max_depth=4, extra_p=0.2)
            detail = compared_values(choices, detail, trigger.detail_compared)
        else:
            file = draw_file(choices, ("json",), erroneous_p=0.0)
            try:
                detail = json.loads(file.data)
            except ValueError:
                detail = {"data": file.data.decode("utf-8", errors="replace")}
            if not isinstance(detail, dict):
                detail = {"data": detail}
        detail = date_fields(choices, detail)  # time-named fields hold written dates
        if refs is not None:
            detail = fill_names(choices, detail, refs)  # fields naming the world's
    if trail is None and not (trigger.detail_reads and service and model is None):
        detail = edge_values.drop_fields(
            choices, detail
        )  # a producer that omitted fields  # a producer that omitted fields
    pattern = choose_pattern(choices, patterns_of(trigger.filters))
    if pattern is not None:
        steered = steer(
            choices,
            pattern,
            {"source": source, "detail-type": detail_type, "detail": detail},
            lambda: json_values(choices, max_depth=1),
            lambda: json_objects(choices, max_depth=1),
        )
        source = _text(steered.get("source"), source)
        detail_type = _text(steered.get("detail-type"), detail_type)
        detail = steered.get("detail") if isinstance(steered.get("detail"), dict) else {}
    detail_json = json.dumps(detail, ensure_ascii=False)
    time_ms, seed = ids.draw_time_ms(choices), ids.draw_seed(choices)
    event_id = draw_record_id(choices, refs) if refs is not None else None
    return BridgePlan(None, source, detail_type, detail_json, time_ms, seed, event_id)


def _draw_task(choices: Choices, target: Target, world: World) -> DirectPlan | TaskPlan:
    """A state machine task's payload whose `$` paths read the execution's input: an
    event of one of the state machine's triggers (`task_inputs.py`)."""
    trigger = target.trigger
    index = draw_task_index(choices, trigger.payloads)
    template = trigger.payloads[index]
    payload = draw_payload_of(choices, template, region=world.region, account=world.account_id)
    payload_json = json.dumps(payload, ensure_ascii=False)
    inputs = task_inputs(trigger.payload_inputs, index)
    if not inputs:
        return DirectPlan(payload_json)
    start = inputs[0]
    if len(inputs) > 1:
        start = inputs[choices.draw_integer(0, len(inputs) - 1, site="execution-input")]
    paths = tuple(p for p in start.get("paths", ()) if isinstance(p, str))
    kind = start.get("kind")
    if kind == "constant":
        constant = json.dumps(start.get("value"), ensure_ascii=False)
        return TaskPlan(template, payload_json, None, constant, paths)
    if kind == "schedule":
        rule = start.get("rule") if isinstance(start.get("rule"), str) else DEFAULT_RULE
        firing = SchedulePlan(rule, ids.draw_time_ms(choices), ids.draw_seed(choices))
        return TaskPlan(template, payload_json, firing, None, paths)
    if kind != "eventbridge":  # any object: the payload as drawn
        return DirectPlan(payload_json)
    raw = start.get("patterns")
    patterns = [p for p in raw if isinstance(p, dict)] if isinstance(raw, list) else []
    bucket = s3_bucket(patterns)
    if bucket is not None:  # S3 "Object Created" events of the bucket
        buckets = [b for b in world.buckets if b.name == bucket or not bucket]
        buckets = [b for b in buckets if b.objects][:1] or [Bucket(bucket or "bucket")]
        plan = draw_s3_record(choices, buckets, bucket=buckets[0].name, site="record")
        return TaskPlan(template, payload_json, BridgePlan(plan), None, paths)
    filters = tuple(json.dumps(p, ensure_ascii=False) for p in patterns)
    rule = Trigger(TriggerKind.EVENTBRIDGE, None, filters=filters)
    bridge = _draw_bridge(choices, dataclasses.replace(target, trigger=rule), world)
    return TaskPlan(template, payload_json, bridge, None, paths)


def _s3_removal(choices: Choices, event_types: Sequence[str]) -> str:
    """The removal an S3 notification record reports ("" for a creation): only with edge
    values on and where the notification's event types include removals (all records
    when it sends only removals).  Event types not configured: both creations and
    removals when the code names a removal (`code_expects_removals`), else creations."""
    if not choices.edge_values:
        return ""
    if not event_types and code_expects_removals(choices.dictionary):
        event_types = UNKNOWN_S3_EVENTS
    removals = [t for t in event_types if t.startswith("s3:ObjectRemoved")]
    if not removals:
        return ""
    created = any(t.startswith("s3:ObjectCreated") for t in event_types)
    if not edge_values.deleted(choices, only=not created):
        return ""
    if any(t in ("s3:ObjectRemoved:*", "s3:ObjectRemoved:Delete") for t in removals):
        return "Delete"
    return "DeleteMarkerCreated"


def s3_bridge_admits(
    patterns: Sequence[Mapping[str, Any]], *, expected: bool = False
) -> tuple[bool, bool]:
    """Whether the rule's patterns admit S3 "Object Created" and "Object Deleted" events,
    by their `detail-type` rules.  No pattern: the deployment's rule is not known, so
    creations, and deletions only when the code `expected` them (it names one: a handler
    that tells the event types apart receives both)."""
    if not patterns:
        return True, expected
    created = deleted = False
    for pattern in patterns:
        rule = pattern.get("detail-type")
        if not isinstance(rule, list):
            return True, True  # no rule on the detail type: both pass it
        created = created or leaf_matches(rule, "Object Created")
        deleted = deleted or leaf_matches(rule, "Object Deleted")
    return created, deleted


#: The event types of an S3 notification whose types are not configured, when the code
#: names a removal.
UNKNOWN_S3_EVENTS: Final = ("s3:ObjectCreated:*", "s3:ObjectRemoved:*")
#: Text a handler compares an S3 event's type with when it handles removals: EventBridge's
#: detail-type and a notification's eventName (`ObjectRemoved:Delete`, `s3:ObjectRemoved:*`).
REMOVAL_NAMES: Final = ("Object Deleted", "ObjectRemoved")


def code_expects_removals(dictionary: tuple[str, ...]) -> bool:
    """Whether the code's constants name an S3 removal: a handler that compares the event
    type with "Object Deleted" (or `ObjectRemoved`) receives deletions, whatever its
    unconfigured rule or notification says."""
    cached = _REMOVALS.get(id(dictionary))
    if cached is not None and cached[0] is dictionary:
        return cached[1]
    found = any(name in constant for constant in dictionary for name in REMOVAL_NAMES)
    _REMOVALS.clear()
    _REMOVALS[id(dictionary)] = (dictionary, found)
    return found


#: The last dictionary's answer: a campaign passes one dictionary tuple to every input, and
#: a scan of 950 constants cost 147 us per S3 record (timeit, best of 3), cached 0.2 us.
#: Keyed and checked by identity (the tuple is kept alive).
_REMOVALS: dict[int, tuple[tuple[str, ...], bool]] = {}


def _objects_of(target: Target, bucket: str | None) -> ObjectsSpec | None:
    """The objects spec of the notifying bucket: its key prefixes and suffixes are the
    notification's key filter, which a missing object's key must pass too."""
    spec = next((b for b in target.resources.buckets if b.name == bucket), None)
    return spec.objects if spec is not None else None


def _text(value: object, default: str) -> str:
    """A steered top-level field EventBridge only carries as a string."""
    return value if isinstance(value, str) else default


def _draw_kinesis(
    choices: Choices, target: Target, world: World, refs: WorldRefs | None = None
) -> tuple[KinesisRecordPlan, ...]:
    """A batch of records from one shard: data as `trigger.body` says (mostly JSON
    objects by default, `payloads.draw_payload`), partition keys, arrival times in order."""
    trigger = target.trigger
    stream = trigger.source or DEFAULT_STREAM
    patterns = patterns_of(trigger.filters)
    count = choices.draw_integer(trigger.records_min, trigger.records_max, site="records")
    time_ms = ids.draw_time_ms(choices)
    records: list[KinesisRecordPlan] = []
    model = model_for(trigger, Envelope.KINESIS)
    for index in range(count):
        pattern = choose_pattern(choices, patterns)
        again = draw_repeat(choices, len(records)) if refs is not None else None
        with choices.scope(labels.KINESIS_DATA, site="data"):
            rule = pattern_part(pattern, "data")
            if again is not None:  # the same entity twice in one batch
                data = records[again].data
            else:
                data = draw_payload(
                    choices,
                    trigger.body,
                    world.buckets,
                    region=world.region,
                    account=world.account_id,
                    rule=rule,
                    model=model,
                )
                if refs is not None and trigger.body in (None, "json") and not (rule or model):
                    data = _filled_bytes(choices, data, refs)
        key = encodable(choices.draw_string(min_size=1, max_size=32, site="partition-key"))
        key_rule = pattern_part(pattern, "partitionKey")
        if isinstance(key_rule, list):
            admitted = draw_admitted(
                choices, key_rule, key, functools.partial(str, key), site="partition-key"
            )
            key = admitted if isinstance(admitted, str) and admitted else key
        time_ms += choices.draw_geometric(20.0, max_value=60_000, site="gap")
        records.append(
            KinesisRecordPlan(stream, data, key or "key", index, time_ms, ids.draw_seed(choices))
        )
    return tuple(records)


def _filled_bytes(choices: Choices, data: bytes, refs: WorldRefs) -> bytes:
    """A UTF-8 JSON object's bytes with fields naming the world's (`fill_json_text`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    filled = fill_json_text(choices, text, refs)
    return data if filled is text else filled.encode("utf-8", "surrogatepass")


def _draw_direct(
    choices: Choices,
    keys: tuple[str, ...],
    model: BodyModel | None = None,
    refs: WorldRefs | None = None,
    array: bool = False,
) -> DirectPlan:
    """A payload object holding every key the handler subscripts and, half the time each,
    the keys it only looks for (`key?`); values of any JSON type (Lambda checks no
    payload); now and then a few more keys, and with edge values on, now and then one
    subscripted key left out (`edge_values.absent`: a caller that forgot a field) and its
    time-named fields holding written dates (`dates.date_fields`); fields named as a
    resource, an object key or an id now and then name the world's (`world_refs`: a
    payload's `bucket` must exist before any of the handler's code runs).  With
    the handler's body `model`: its instances (the parser or validator admits nothing
    else).  An `array` payload (the handler iterates it) is a JSON array of 0 to
    `MAX_ARRAY_ITEMS` such objects, `keys` theirs."""
    if model is not None:
        return DirectPlan(json.dumps(draw_model_value(choices, model), ensure_ascii=False))
    shape = None
    if keys:
        required = {k: "any" for k in keys if not k.endswith("?")}
        optional = {k[:-1]: "any" for k in keys if k.endswith("?") and len(k) > 1}
        shape = {"required": required, "optional": optional}

    def one() -> Any:
        payload = date_fields(
            choices, json_objects(choices, shape=shape, max_depth=3, extra_p=0.05)
        )
        return fill_names(choices, payload, refs) if refs is not None else payload

    if not array:
        return DirectPlan(json.dumps(one(), ensure_ascii=False))
    items = [one() for _ in range(choices.draw_integer(0, MAX_ARRAY_ITEMS, site="items"))]
    return DirectPlan(json.dumps(items, ensure_ascii=False))


# =========================================================================== rendering
def render_event(plan: EventPlan, loaded: LoadedWorld) -> dict[str, Any]:
    """The event dict the handler receives, with the backend's facts filled in."""
    region = loaded.world.region
    kind = plan.kind
    if plan.records and type(plan.records[0]) is SamplePlan:
        return json.loads(plan.records[0].payload_json)
    if kind is TriggerKind.S3:
        return {"Records": [render_s3_record(r, region) for r in _only(plan, S3RecordPlan)]}
    if kind is TriggerKind.SQS:
        return {"Records": [render_sqs_record(r, loaded) for r in _only(plan, SqsRecordPlan)]}
    if kind is TriggerKind.SNS:
        return {"Records": [render_sns_record(r, loaded) for r in _only(plan, SnsRecordPlan)]}
    if kind is TriggerKind.DYNAMODB_STREAM:
        return {"Records": [render_stream_record(r, loaded) for r in _only(plan, StreamRecordPlan)]}
    if kind is TriggerKind.EVENTBRIDGE:
        (bridge,) = _only(plan, BridgePlan)
        return render_bridge(bridge, loaded)
    if kind is TriggerKind.DIRECT and type(plan.records[0]) is TaskPlan:
        (task,) = _only(plan, TaskPlan)
        start = task.start
        if isinstance(start, BridgePlan):
            return with_input(task, render_bridge(start, loaded))
        if isinstance(start, SchedulePlan):
            return with_input(task, render_schedule(start, loaded))
        return with_input(task, None)
    if kind is TriggerKind.DIRECT:
        (direct,) = _only(plan, DirectPlan)
        return json.loads(direct.payload_json)
    if kind is TriggerKind.SCHEDULE:
        (firing,) = _only(plan, SchedulePlan)
        return render_schedule(firing, loaded)
    if kind in BROKER_KINDS:
        return render_broker_event(kind, tuple(_only(plan, BrokerMessagePlan)), loaded)
    if kind is TriggerKind.FIREHOSE:
        return render_firehose_event(tuple(_only(plan, FirehoseRecordPlan)), loaded)
    if kind is TriggerKind.AUTHORIZER:
        (call,) = _only(plan, AuthorizerPlan)
        return render_authorizer(call, loaded)
    if kind is TriggerKind.S3_BATCH:
        (batch,) = _only(plan, S3BatchPlan)
        return render_s3_batch(batch)
    if kind is TriggerKind.WEBSOCKET:
        (message,) = _only(plan, WebSocketPlan)
        return render_websocket(message, loaded)
    if kind is TriggerKind.KINESIS:
        records = _only(plan, KinesisRecordPlan)
        return {"Records": [render_kinesis_record(r, loaded, records[0]) for r in records]}
    (request,) = _only(plan, HttpRequestPlan)
    return (
        render_v1(request, loaded) if kind is TriggerKind.APIGATEWAY else render_v2(request, loaded)
    )


def render_schedule(plan: SchedulePlan, loaded: LoadedWorld) -> dict[str, Any]:
    """As EventBridge sends a schedule rule's target: the rule's ARN, the time, no detail
    (what a scheduled handler works on is the world, which lambdafuzz generates)."""
    world = loaded.world
    return {
        "version": "0",
        "id": ids.uuid(plan.seed, "schedule"),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": world.account_id,
        "time": ids.iso_seconds(plan.time_ms),
        "region": world.region,
        "resources": [f"arn:aws:events:{world.region}:{world.account_id}:rule/{plan.rule}"],
        "detail": {},
    }


def render_kinesis_record(
    plan: KinesisRecordPlan, loaded: LoadedWorld, first: KinesisRecordPlan
) -> dict[str, Any]:
    """As Lambda's Kinesis poller delivers it: base64 data, one shard's sequence numbers."""
    world = loaded.world
    base = int(ids.digits(first.seed, "sequence", 40))
    sequence = str(base + plan.index * 10**12)
    shard = "shardId-000000000000"
    arn = f"arn:aws:kinesis:{world.region}:{world.account_id}:stream/{plan.stream}"
    return {
        "kinesis": {
            "kinesisSchemaVersion": "1.0",
            "partitionKey": plan.partition_key,
            "sequenceNumber": sequence,
            "data": base64.b64encode(plan.data).decode("ascii"),
            "approximateArrivalTimestamp": plan.time_ms / 1000,
        },
        "eventSource": "aws:kinesis",
        "eventVersion": "1.0",
        "eventID": f"{shard}:{sequence}",
        "eventName": "aws:kinesis:record",
        "invokeIdentityArn": f"arn:aws:iam::{world.account_id}:role/lambda-kinesis-role",
        "awsRegion": world.region,
        "eventSourceARN": arn,
    }


def _only[T](plan: EventPlan, cls: type[T]) -> list[T]:
    assert all(isinstance(r, cls) for r in plan.records), f"{plan.kind} plan holds other records"
    return list(plan.records)  # type: ignore[arg-type]


def render_sqs_record(plan: SqsRecordPlan, loaded: LoadedWorld) -> dict[str, Any]:
    delivered = loaded.messages.get(plan.queue, ())
    if plan.index >= len(delivered):
        raise BackendError(
            f"the loaded world holds {len(delivered)} message(s) for queue {plan.queue!r}; "
            f"the SQS event needs message #{plan.index} (backend and world disagree)"
        )
    message = delivered[plan.index]
    world_message = loaded.world.queue(plan.queue).messages[plan.index]
    message_id = world_message.message_id or message.message_id
    attributes = {
        "ApproximateReceiveCount": str(plan.receive_count),
        "SentTimestamp": str(message.sent_timestamp_ms),
        "SenderId": sender_id(loaded.world.account_id),
        "ApproximateFirstReceiveTimestamp": str(message.sent_timestamp_ms + plan.receive_delay_ms),
    }
    if world_message.group_id is not None:
        attributes["SequenceNumber"] = str(10**19 + message.sent_timestamp_ms * 1000 + plan.index)
        attributes["MessageGroupId"] = world_message.group_id
        attributes["MessageDeduplicationId"] = world_message.deduplication_id or ""
    record: dict[str, Any] = {
        "messageId": message_id,
        "receiptHandle": message.receipt_handle,
        "body": message.body,
        "attributes": attributes,
        "messageAttributes": {
            name: {
                "stringValue": value,
                "stringListValues": [],
                "binaryListValues": [],
                "dataType": "String",
            }
            for name, value in message.attributes
        },
        "md5OfBody": message.md5_of_body,
        "eventSource": "aws:sqs",
        "eventSourceARN": loaded.world.arn("sqs", plan.queue),
        "awsRegion": loaded.world.region,
    }
    if message.attributes:
        record["md5OfMessageAttributes"] = md5_of_message_attributes(message.attributes)
    return record


def sender_id(account: str) -> str:
    """The IAM user id SQS reports as the sender (an `AIDA...` id, fixed per account)."""
    return "AIDA" + ids.alnum_id(account.encode(), "sender", 17)


def md5_of_message_attributes(attributes: Sequence[tuple[str, str]]) -> str:
    """SQS's MD5OfMessageAttributes for string attributes: per attribute, sorted by name,
    length-prefixed name, data type, transport type 1 (string) and value."""
    digest = hashlib.md5()  # noqa: S324 - SQS defines it so
    for name, value in sorted(attributes):
        for part in (name.encode(), b"String"):
            digest.update(struct.pack(">I", len(part)) + part)
        encoded = value.encode()
        digest.update(b"\x01" + struct.pack(">I", len(encoded)) + encoded)
    return digest.hexdigest()


def render_sns_record(plan: SnsRecordPlan, loaded: LoadedWorld) -> dict[str, Any]:
    region = loaded.world.region
    topic_arn = loaded.topic_arn(plan.topic)
    subscription = f"{topic_arn}:{ids.uuid(plan.seed, 'subscription')}"
    endpoint = f"https://sns.{region}.amazonaws.com"
    certificate = ids.hex_id(topic_arn.encode(), "certificate", 32, upper=False)
    return {
        "EventSource": "aws:sns",
        "EventVersion": "1.0",
        "EventSubscriptionArn": subscription,
        "Sns": {
            "Type": "Notification",
            "MessageId": plan.message_id or ids.uuid(plan.seed, "message"),
            "TopicArn": topic_arn,
            "Subject": plan.subject,
            "Message": plan.message,
            "Timestamp": ids.iso_ms(plan.time_ms),
            "SignatureVersion": "1",
            "Signature": ids.b64_id(plan.seed, "signature", 64),
            "SigningCertUrl": f"{endpoint}/SimpleNotificationService-{certificate}.pem",
            "UnsubscribeUrl": f"{endpoint}/?Action=Unsubscribe&SubscriptionArn={subscription}",
            "MessageAttributes": {
                name: {"Type": "String", "Value": value} for name, value in plan.attributes
            },
        },
    }


def render_bridge(plan: BridgePlan, loaded: LoadedWorld) -> dict[str, Any]:
    world = loaded.world
    if plan.s3 is not None:
        return render_eventbridge(plan.s3, world.region, world.account_id)
    return {
        "version": "0",
        "id": plan.event_id or ids.uuid(plan.seed, "eventbridge"),
        "detail-type": plan.detail_type,
        "source": plan.source,
        "account": world.account_id,
        "time": ids.iso_seconds(plan.time_ms),
        "region": world.region,
        "resources": [],
        "detail": json.loads(plan.detail_json),
    }
