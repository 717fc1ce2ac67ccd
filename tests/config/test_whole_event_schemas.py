"""A schema of the whole event is never the schema of the request body: a validator on the
handler, or `validate(event=event, ...)`, checks the event (`body`, `headers`,
`httpMethod`), so only a body schema (an envelope, or the event schema's JSON `body`)
shapes the generated request bodies."""

from __future__ import annotations

import json
import logging
import textwrap
from pathlib import Path

import jsonschema

from lambdafuzz.analysis.powertools import analyze_powertools
from lambdafuzz.config import load_config
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.target import Envelope

#: What the event must be: a string body and headers (the whole event's schema).
EVENT_SCHEMA = {
    "type": "object",
    "required": ["body", "headers", "httpMethod"],
    "properties": {
        "body": {"type": "string"},
        "headers": {"type": "object"},
        "httpMethod": {"enum": ["POST"]},
    },
}
#: What the request body must be (the body's schema).
BODY_SCHEMA = {
    "type": "object",
    "required": ["sku", "quantity"],
    "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{3}$"},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 9},
    },
    "additionalProperties": False,
}
DECORATED = """\
from aws_lambda_powertools.utilities.validation import validator
SCHEMA = {schema}

@validator(inbound_schema=SCHEMA{envelope})
def handler(event, context):
    return {{"statusCode": 200}}
"""
CALLED = """\
import json
from aws_lambda_powertools.utilities.validation import validate
SCHEMA = {schema}

def handler(event, context):
    validate(event={argument}, schema=SCHEMA)
    return {{"statusCode": 200}}
"""
CONFIG = "handler: shop.handler.handler\ntrigger: {kind: apigateway, routes: [{method: POST, path: /orders}]}\n"


def write_app(root: Path, handler: str) -> Path:
    files = {
        "shop/__init__.py": "",
        "shop/handler.py": handler,
        "lambdafuzz.yaml": CONFIG,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return root / "lambdafuzz.yaml"


def bodies(target, seeds: int = 80) -> list[object]:
    """The request bodies of `seeds` generated events, decoded where they are JSON."""
    found = []
    for seed in range(seeds):
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        assert isinstance(event["headers"], dict) and event["httpMethod"] == "POST"
        body = event["body"]
        try:
            found.append(json.loads(body) if isinstance(body, str) else body)
        except ValueError:
            found.append(body)
    return found


def share_valid(found: list[object], schema: dict) -> float:
    validator = jsonschema.Draft202012Validator(schema)
    return sum(validator.is_valid(b) for b in found) / len(found)


def test_a_validator_of_the_whole_event_does_not_shape_the_body(tmp_path, caplog):
    config = write_app(tmp_path, DECORATED.format(schema=repr(EVENT_SCHEMA), envelope=""))
    use = analyze_powertools(tmp_path, "shop.handler", "handler")
    assert use.primary is not None and use.primary.whole_event
    with caplog.at_level(logging.WARNING):
        target = load_config(config)
    assert target.trigger.body_model is None
    assert "describes the whole event (its fields body, headers, httpMethod)" in caplog.text
    found = bodies(target)
    # the event schema as a body would have made objects holding `body` and `headers`
    assert not [b for b in found if isinstance(b, dict) and {"body", "headers"} <= set(b)]
    assert share_valid(found, EVENT_SCHEMA) == 0.0


def test_validate_called_on_the_event_is_the_whole_event_and_on_the_body_is_the_body(tmp_path):
    whole = write_app(
        tmp_path / "whole", CALLED.format(schema=repr(EVENT_SCHEMA), argument="event")
    )
    assert load_config(whole).trigger.body_model is None
    body = write_app(
        tmp_path / "body",
        CALLED.format(schema=repr(BODY_SCHEMA), argument='json.loads(event["body"])'),
    )
    use = analyze_powertools(tmp_path / "body", "shop.handler", "handler")
    assert use.primary is not None and not use.primary.whole_event
    model = load_config(body).trigger.body_model
    assert model is not None and json.loads(model.schema_json) == BODY_SCHEMA


def test_a_validator_with_an_envelope_shapes_the_body(tmp_path):
    handler = DECORATED.format(
        schema=repr(BODY_SCHEMA), envelope=", envelope=envelopes.API_GATEWAY_REST"
    ).replace("import validator", "import envelopes, validator")
    target = load_config(write_app(tmp_path, handler))
    model = target.trigger.body_model
    assert model is not None and model.envelope is Envelope.APIGATEWAY
    share = share_valid(bodies(target, 150), BODY_SCHEMA)
    assert 0.65 <= share <= 0.95, share  # ~80% valid, the rest with one defect


def test_an_event_schema_with_a_json_body_shapes_the_body_from_that_property(tmp_path, caplog):
    schema = {
        **EVENT_SCHEMA,
        "properties": {
            **EVENT_SCHEMA["properties"],
            "body": {"type": "string", "contentMediaType": "application/json",
                     "contentSchema": BODY_SCHEMA},
        },
    }  # fmt: skip
    config = write_app(tmp_path, DECORATED.format(schema=repr(schema), envelope=""))
    with caplog.at_level(logging.WARNING):
        target = load_config(config)
    model = target.trigger.body_model
    assert model is not None and model.envelope is Envelope.APIGATEWAY
    assert json.loads(model.schema_json) == BODY_SCHEMA
    assert "generated from its `body` property" in caplog.text
    assert share_valid(bodies(target, 150), BODY_SCHEMA) >= 0.65
