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
    S3EventNotificationEventBridgeModel,
    S3Model,
    SnsModel,
    SqsModel,
)

from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices

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
    for seed in range(seeds):
        choices = Choices(seed=seed, dictionary=target.dictionary)
        generated = generate_input(choices, target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        json.dumps(event)  # JSON-serialisable, as Lambda delivers it
        try:
            model.model_validate(event)
        except Exception as exc:
            pytest.fail(f"seed={seed} trigger={trigger}: {exc}\n{json.dumps(event)[:2000]}")
        _check_semantics(event, trigger, view)


def _check_semantics(event, trigger, view):
    """Facts the models do not check but a handler relies on."""
    if trigger.startswith("{kind: sqs"):
        for record in event["Records"]:
            assert record["md5OfBody"] == hashlib.md5(record["body"].encode()).hexdigest()
            assert record["body"]  # SQS refuses empty bodies
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
