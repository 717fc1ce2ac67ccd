"""1,000 seeded events per trigger kind parse with the Powertools parser models.

Worlds are kept small (JSON and text files) because the file formats are tested elsewhere;
what matters here is the event's shape. SQS events are rendered against a synthetic
LoadedWorld (what a backend would report).
"""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayProxyEventModel,
    APIGatewayProxyEventV2Model,
    DynamoDBStreamModel,
    EventBridgeModel,
    KafkaMskEventModel,
    KafkaSelfManagedEventModel,
    S3EventNotificationEventBridgeModel,
    S3Model,
    SnsModel,
    SqsModel,
)

from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy

DICTIONARY = 'dictionary: ["report 2008.csv", "a+b", "id"]\n'
BUCKET = """\
  buckets:
    - name: uploads
      objects: {min: 0, max: 2, formats: [json, text], prefixes: ["", "in/", "in/sub dir/"]}
"""
TABLE = """\
  tables:
    - name: grades
      hash_key: {name: id, type: S}
      range_key: {name: ts, type: N}
      items: {min: 0, max: 3}
      stream: VIEW
"""
QUEUES = """\
  queues:
    - {name: jobs, messages: {min: 0, max: 2}}
    - {name: ordered.fifo, messages: {min: 0, max: 2}}
"""
TOPIC = "  topics: [{name: alerts}]\n"
OUTPUT_BUCKET = "  buckets: [{name: outputs}]\n"

# (trigger, model, seeds, view type, resources): each kind adds up to 1,000 events.  Each
# world holds only what its event needs, so that 12,000 inputs stay cheap.
CASES = [
    ("{kind: s3, records: {min: 1, max: 3}}", S3Model, 1000, "", BUCKET),
    ("{kind: sqs, body: s3-event, records: {min: 1, max: 3}}", SqsModel, 500, "", BUCKET + QUEUES),
    (
        "{kind: sqs, source: ordered.fifo, body: text, records: {min: 1, max: 2}}",
        SqsModel,
        500,
        "",
        BUCKET + QUEUES,
    ),
    (
        "{kind: sns, body: eventbridge-s3, records: {min: 1, max: 2}}",
        SnsModel,
        500,
        "",
        BUCKET + TOPIC,
    ),
    ("{kind: sns, body: text}", SnsModel, 500, "", TOPIC),
    (
        "{kind: dynamodb-stream, records: {min: 1, max: 3}}",
        DynamoDBStreamModel,
        500,
        "NEW_AND_OLD_IMAGES",
        TABLE,
    ),
    (
        "{kind: dynamodb-stream, records: {min: 1, max: 3}}",
        DynamoDBStreamModel,
        250,
        "KEYS_ONLY",
        TABLE,
    ),
    (
        "{kind: dynamodb-stream, records: {min: 1, max: 3}}",
        DynamoDBStreamModel,
        250,
        "OLD_IMAGE",
        TABLE,
    ),
    ("apigateway", APIGatewayProxyEventModel, 1000, "", BUCKET),
    ("apigateway-v2", APIGatewayProxyEventV2Model, 1000, "", BUCKET),
    ("eventbridge", S3EventNotificationEventBridgeModel, 500, "", BUCKET),
    ("eventbridge", EventBridgeModel, 500, "", OUTPUT_BUCKET),
    ("{kind: msk, source: orders, records: {min: 1, max: 4}}", KafkaMskEventModel, 300, "", TOPIC),
    ("{kind: kafka, records: {min: 1, max: 4}}", KafkaSelfManagedEventModel, 300, "", TOPIC),
]


@pytest.mark.parametrize(
    ("trigger", "model", "seeds", "view", "resources"),
    CASES,
    ids=[f"{case[1].__name__}-{i}" for i, case in enumerate(CASES)],
)
def test_events_parse_with_powertools(make_target, trigger, model, seeds, view, resources):
    resources = resources.replace("VIEW", view)
    text = f"handler: app.handler\ntrigger: {trigger}\n{DICTIONARY}resources:\n{resources}"
    target = make_target(text)
    raw = 0
    for seed in range(seeds):
        choices = Choices(seed=seed, policy=DrawPolicy(dictionary=target.dictionary))
        generated = generate_input(choices, target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        json.dumps(event)  # JSON-serialisable, as Lambda delivers it
        if not _utf8_values(event):
            # a raw-bytes record (`payloads.PAYLOAD_SHARES`): Kafka carries any bytes, the
            # Powertools models decode values as UTF-8 text
            raw += 1
            continue
        try:
            model.model_validate(event)
        except Exception as exc:
            pytest.fail(f"seed={seed} trigger={trigger}: {exc}\n{json.dumps(event)[:2000]}")
        _check_semantics(event, trigger, view)
    assert raw <= 0.2 * seeds, (trigger, raw)  # ~12% hold one of ~2.5 records, 5% raw each


def _utf8_values(event):
    """Whether every Kafka record value of `event` (if any) decodes as UTF-8."""
    for records in (event.get("records") or {}).values():
        for record in records:
            try:
                base64.b64decode(record["value"]).decode("utf-8")
            except UnicodeDecodeError:
                return False
    return True


def _check_semantics(event, trigger, view):
    """Facts the models do not check but a handler relies on."""
    if trigger.startswith("{kind: sqs"):
        for record in event["Records"]:
            assert record["md5OfBody"] == hashlib.md5(record["body"].encode()).hexdigest()
            assert record["body"]  # SQS refuses empty bodies
    elif trigger.startswith(("{kind: msk", "{kind: kafka")):
        for key, records in event["records"].items():
            offsets = [r["offset"] for r in records]
            assert offsets == sorted(set(offsets))  # one partition's offsets increase
            for record in records:
                assert key == f"{record['topic']}-{record['partition']}"
                base64.b64decode(record["value"], validate=True)
    elif trigger.startswith("apigateway"):
        if event.get("isBase64Encoded") and event.get("body") is not None:
            base64.b64decode(event["body"], validate=True)
    elif trigger.startswith("{kind: dynamodb-stream"):
        for record in event["Records"]:
            change = record["dynamodb"]
            assert change["StreamViewType"] == view
            assert ("NewImage" in change) == (
                view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") and record["eventName"] != "REMOVE"
            )
            assert ("OldImage" in change) == (
                view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") and record["eventName"] != "INSERT"
            )


@pytest.mark.parametrize("kind", ["activemq", "rabbitmq"])
def test_amazon_mq_events_carry_base64_messages_of_their_queue(make_target, kind):
    """Powertools has no MQ models: the documented shape is checked field by field."""
    target = make_target(
        f"handler: app.handler\ntrigger: {{kind: {kind}, source: jobs, records: {{min: 1, max: 3}}}}\n"
    )
    bodies = []
    for seed in range(200):
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        json.dumps(event)
        assert event["eventSourceArn"].startswith("arn:aws:mq:us-east-1:")
        if kind == "activemq":
            assert event["eventSource"] == "aws:mq"
            messages = event["messages"]
            assert all(m["destination"] == {"physicalName": "jobs"} for m in messages)
            assert all(m["messageType"] == "jms/text-message" for m in messages)
        else:
            assert event["eventSource"] == "aws:rmq"
            assert list(event["rmqMessagesByQueue"]) == ["jobs::/"]
            messages = event["rmqMessagesByQueue"]["jobs::/"]
            for m in messages:
                assert m["basicProperties"]["bodySize"] == len(base64.b64decode(m["data"]))
        assert 1 <= len(messages) <= 3
        bodies += [base64.b64decode(m["data"], validate=True) for m in messages]
    parsed = 0
    for body in bodies:
        try:
            json.loads(body)
            parsed += 1
        except ValueError:
            pass
    assert parsed > len(bodies) // 2  # JSON payloads by default, other formats too
    assert parsed < len(bodies)
