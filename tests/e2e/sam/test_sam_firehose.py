"""Functions a delivery stream transforms with get Firehose transformation batches: the
template's ways of naming a processor, the `firehose` trigger of a lambdafuzz.yaml, the
batches' shape (Powertools' model, JSON records by default, a Kinesis source's metadata)
and a campaign of a transformation that never fails on a batch Firehose sends."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from aws_lambda_powertools.utilities.parser.models import KinesisFirehoseModel

from lambdafuzz.config.sam import load_template, load_template_target
from lambdafuzz.config.sample_events import event_kind
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.target import TriggerKind
from tests.fixtures.template_runs import drawn_events, line_of, reached_without_a_bug

APP = Path(__file__).parent / "apps" / "firehose"
TEMPLATE = APP / "template.yaml"
HANDLER = APP / "src" / "transform.py"
SEEDS = range(80)


@pytest.mark.parametrize(
    ("function", "delivery_stream", "kinesis_stream"),
    [
        ("ClickTransformFunction", "click-archive", "clicks"),  # !GetAtt, Kinesis source
        ("AuditTransformFunction", "audit-feed", None),  # !Sub ${Fn.Arn}:$LATEST, Direct PUT
        ("MetricsTransformFunction", "MetricsDelivery", None),  # an alias, no name
    ],
)
def test_template_processors_get_firehose_triggers(function, delivery_stream, kinesis_stream):
    imported = load_template(TEMPLATE, function)
    trigger = imported.target.trigger
    assert trigger.kind is TriggerKind.FIREHOSE  # not `direct`: it has no Events
    assert (trigger.source, trigger.kinesis_stream) == (delivery_stream, kinesis_stream)
    assert (trigger.records_min, trigger.records_max) == (1, 5)
    assert imported.config["trigger"]["kind"] == "firehose"


def test_a_disabled_processing_configuration_invokes_nothing():
    assert load_template_target(TEMPLATE, "IdleFunction").trigger.kind is TriggerKind.DIRECT


def _events(function: str) -> list[dict]:
    target = load_template_target(TEMPLATE, function)
    return drawn_events(target, SEEDS)


def test_batches_from_a_kinesis_stream():
    events = _events("ClickTransformFunction")
    payloads = []
    for event in events:
        KinesisFirehoseModel.model_validate(event)  # raises on a shape Powertools refuses
        assert set(event) == {
            "invocationId",
            "deliveryStreamArn",
            "region",
            "records",
            "sourceKinesisStreamArn",
        }
        assert event["deliveryStreamArn"].endswith(":deliverystream/click-archive")
        assert event["sourceKinesisStreamArn"].endswith(":stream/clicks")
        assert 1 <= len(event["records"]) <= 5
        ids = [r["recordId"] for r in event["records"]]
        assert len(set(ids)) == len(ids)  # the answer is matched to records by id
        for record in event["records"]:
            assert record["kinesisRecordMetadata"]["sequenceNumber"] == record["recordId"]
            assert record["kinesisRecordMetadata"]["partitionKey"]
            payloads.append(base64.b64decode(record["data"], validate=True))
    objects = sum(isinstance(_json(p), dict) for p in payloads)
    # PAYLOAD_SHARES: 88% JSON objects; over ~240 records a share under 75% is a regression
    assert objects >= 0.75 * len(payloads), (objects, len(payloads))


def test_batches_of_a_direct_put_stream():
    for event in _events("AuditTransformFunction"):
        KinesisFirehoseModel.model_validate(event)
        assert "sourceKinesisStreamArn" not in event
        assert all(
            set(r) == {"recordId", "approximateArrivalTimestamp", "data"} for r in event["records"]
        )
        assert isinstance(event["records"][0]["approximateArrivalTimestamp"], int)


def _json(data: bytes) -> object:
    try:
        return json.loads(data)
    except ValueError:
        return None


def test_a_firehose_batch_is_recognised_as_a_sample_event():
    (event,) = _events("AuditTransformFunction")[:1]
    assert event_kind(event) is TriggerKind.FIREHOSE


def _config(trigger: dict) -> dict:
    return {"handler": "transform.handler", "root": "src", "trigger": trigger}


def test_a_config_declares_a_firehose_trigger():
    trigger = {"kind": "firehose", "source": "orders", "kinesis_stream": "raw-orders"}
    target = target_from_dict(_config(trigger), TEMPLATE)
    assert (target.trigger.kind, target.trigger.source) == (TriggerKind.FIREHOSE, "orders")
    assert target.trigger.kinesis_stream == "raw-orders"
    plain = target_from_dict(_config({"kind": "firehose"}), TEMPLATE).trigger
    assert (plain.source, plain.kinesis_stream) == (None, None)


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        ({"kind": "kinesis", "kinesis_stream": "x"}, "kinesis_stream only for a firehose"),
        ({"kind": "firehose", "source": "bad name"}, "a Firehose delivery stream name"),
    ],
)
def test_a_config_firehose_trigger_is_validated(trigger, expected):
    with pytest.raises(ConfigError) as caught:
        target_from_dict(_config(trigger), TEMPLATE)
    assert expected in str(caught.value)


def test_a_transformation_campaign_finds_nothing_and_tags_records(tmp_path):
    target = load_template_target(TEMPLATE, "ClickTransformFunction")
    reached = reached_without_a_bug(
        target, tmp_path, seed=3, execs=120
    )  # every batch is well formed
    tagged = line_of(HANDLER, 'document["stream"] = stream')  # a JSON object record
    shard = line_of(HANDLER, 'document["shard"] = record["kinesisRecordMetadata"]["shardId"]')
    assert {tagged, shard} <= reached, f"seed 3: {sorted(reached)}"
