"""Batches a Kinesis Data Firehose delivery stream hands its transformation function.

A function named as a processor of a delivery stream (its `ProcessingConfiguration`)
receives `{invocationId, deliveryStreamArn, region, records: [{recordId,
approximateArrivalTimestamp, data}]}`, the data base64 of what producers put, and answers
with one `{recordId, result, data}` per record.  A delivery stream reading a Kinesis data
stream adds `sourceKinesisStreamArn` and each record's `kinesisRecordMetadata` (shard,
partition key, sequence number).  The delivery stream is not emulated: only its name (and
the source stream's) reach the event.  Payloads follow `trigger.body` as Kinesis data
does (mostly JSON objects by default, `payloads.draw_payload`).  Shapes follow the AWS
documentation and are checked against Powertools' `KinesisFirehoseModel` in the tests.
Labels: `firehose.data` for each payload, under the event's label.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.model_bodies import model_for
from lambdafuzz.generators.aws.payloads import draw_payload
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.model.target import Envelope, Target
from lambdafuzz.model.world import LoadedWorld, World

#: The delivery stream a firehose trigger without `source` transforms for.
DEFAULT_DELIVERY_STREAM: Final = "delivery-stream"


@dataclass(slots=True, frozen=True)
class FirehoseRecordPlan:
    """One record of a transformation batch: its data and when it arrived."""

    delivery_stream: str
    kinesis_stream: str | None  # the source data stream; None: Direct PUT
    data: bytes
    partition_key: str  # only shown with a source stream
    index: int  # position in the batch: sequence numbers increase with it
    time_ms: int
    seed: bytes


def draw_firehose_records(
    choices: Choices, target: Target, world: World
) -> tuple[FirehoseRecordPlan, ...]:
    """A batch of records in arrival order, their data as `trigger.body` says."""
    trigger = target.trigger
    stream = trigger.source or DEFAULT_DELIVERY_STREAM
    count = choices.draw_integer(trigger.records_min, trigger.records_max, site="records")
    time_ms = ids.draw_time_ms(choices)
    records = []
    for index in range(count):
        with choices.scope(labels.FIREHOSE_DATA, site="data"):
            data = draw_payload(
                choices,
                trigger.body,
                world.buckets,
                region=world.region,
                account=world.account_id,
                model=model_for(trigger, Envelope.KINESIS),
            )
        key = ""
        if trigger.kinesis_stream is not None:
            key = encodable(choices.draw_string(min_size=1, max_size=32, site="partition-key"))
        time_ms += choices.draw_geometric(20.0, max_value=60_000, site="gap")
        records.append(
            FirehoseRecordPlan(
                stream,
                trigger.kinesis_stream,
                data,
                key or "key",
                index,
                time_ms,
                ids.draw_seed(choices),
            )
        )
    return tuple(records)


def render_firehose_event(
    records: tuple[FirehoseRecordPlan, ...], loaded: LoadedWorld
) -> dict[str, Any]:
    """As Firehose invokes a transformation function (one batch of one delivery stream)."""
    world = loaded.world
    first = records[0]
    prefix = f"{world.region}:{world.account_id}"
    event: dict[str, Any] = {
        "invocationId": ids.uuid(first.seed, "invocation"),
        "deliveryStreamArn": f"arn:aws:firehose:{prefix}:deliverystream/{first.delivery_stream}",
        "region": world.region,
        "records": [],
    }
    if first.kinesis_stream is not None:
        event["sourceKinesisStreamArn"] = f"arn:aws:kinesis:{prefix}:stream/{first.kinesis_stream}"
    base = int(ids.digits(first.seed, "sequence", 56))
    for plan in records:
        sequence = str(base + plan.index * 10**12)
        record: dict[str, Any] = {
            "recordId": sequence,
            "approximateArrivalTimestamp": plan.time_ms,
            "data": base64.b64encode(plan.data).decode("ascii"),
        }
        if plan.kinesis_stream is not None:
            record["kinesisRecordMetadata"] = {
                "shardId": "shardId-000000000000",
                "partitionKey": plan.partition_key,
                "approximateArrivalTimestamp": plan.time_ms,
                "sequenceNumber": sequence,
                "subsequenceNumber": 0,
            }
        event["records"].append(record)
    return event
