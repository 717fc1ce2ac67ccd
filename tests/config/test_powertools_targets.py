"""Powertools-aware targets: the config finds the body model, the generators put its
instances where the envelope unwraps them (checked with Powertools' own `parse`), and the
library's rejections count as invalid inputs unless the config says otherwise."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest
from aws_lambda_powertools.utilities.parser import envelopes, parse
from aws_lambda_powertools.utilities.validation import SchemaValidationError
from pydantic import ValidationError

from lambdafuzz.config import load_config
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.harness.invoke import classify_exception
from lambdafuzz.model.outcome import Status
from lambdafuzz.model.target import Envelope

MODELS = """\
from typing import Literal
from pydantic import BaseModel, Field

class Line(BaseModel):
    sku: str = Field(pattern=r"^[A-Z]{2}[0-9]{3}$")
    quantity: int = Field(ge=1, le=9)

class Order(BaseModel):
    order_id: str = Field(min_length=4, max_length=12)
    kind: Literal["retail", "wholesale"]
    lines: list[Line] = Field(min_length=1, max_length=3)
"""
HANDLER = """\
from aws_lambda_powertools.utilities.parser import envelopes, event_parser
from shop.models import Order

@event_parser(model=Order{envelope})
def handler(event, context):
    return None
"""
SEEDS = 150


def write_app(root: Path, config: str, *, envelope: str = "", extra: dict | None = None) -> Path:
    files = {
        "shop/__init__.py": "",
        "shop/models.py": MODELS,
        "shop/handler.py": HANDLER.format(envelope=f", envelope={envelope}" if envelope else ""),
        "lambdafuzz.yaml": textwrap.dedent(config),
        **(extra or {}),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / "lambdafuzz.yaml"


def events(target, seeds=SEEDS):
    for seed in range(seeds):
        generated = generate_input(Choices(seed=seed), target)
        yield generated.render_event(synthetic_loaded_world(generated.world))


# (trigger config, envelope written in the handler, the Powertools envelope that parses it)
PLACEMENTS = [
    (
        "{kind: sqs, source: orders}",
        "envelopes.SqsEnvelope",
        envelopes.SqsEnvelope,
        "resources: {queues: [{name: orders}]}",
    ),
    (
        "{kind: sqs, source: orders}",
        "envelopes.SnsSqsEnvelope",
        envelopes.SnsSqsEnvelope,
        "resources: {queues: [{name: orders}]}",
    ),
    (
        "{kind: sns, source: alerts}",
        "envelopes.SnsEnvelope",
        envelopes.SnsEnvelope,
        "resources: {topics: [{name: alerts}]}",
    ),
    ("eventbridge", "envelopes.EventBridgeEnvelope", envelopes.EventBridgeEnvelope, ""),
    ("kinesis", "envelopes.KinesisDataStreamEnvelope", envelopes.KinesisDataStreamEnvelope, ""),
    ("apigateway", "envelopes.ApiGatewayEnvelope", envelopes.ApiGatewayEnvelope, ""),
    ("apigateway-v2", "envelopes.ApiGatewayV2Envelope", envelopes.ApiGatewayV2Envelope, ""),
    ("direct", "", None, ""),
]


@pytest.mark.parametrize(
    ("trigger", "written", "envelope", "resources"),
    PLACEMENTS,
    ids=[p[1].split(".")[-1] or "direct" for p in PLACEMENTS],
)
def test_bodies_sit_where_the_envelope_unwraps_them(
    tmp_path, trigger, written, envelope, resources
):
    config = f"handler: shop.handler.handler\ntrigger: {trigger}\n{resources}\n"
    target = load_config(write_app(tmp_path, config, envelope=written))
    assert target.trigger.body_model is not None
    assert target.trigger.body_model.name == "shop.models.Order"
    order = _order_model(tmp_path)
    parsed = rejected = 0
    for event in events(target):
        try:
            parse(event=event, model=order, envelope=envelope)
            parsed += 1
        except ValidationError:
            rejected += 1  # a near-valid body: rejected by the model, as intended
    with_body = parsed + rejected
    if trigger.startswith("apigateway"):  # GET requests mostly carry no body
        assert parsed >= 0.4 * with_body, (parsed, rejected)
    else:
        assert parsed >= 0.7 * SEEDS, (parsed, rejected)
    assert rejected > 0


def _order_model(root: Path):
    """The test app's Order, imported from its source (what the handler would parse with)."""
    namespace: dict = {}
    exec(compile(MODELS, str(root / "shop/models.py"), "exec", dont_inherit=True), namespace)  # noqa: S102
    return namespace["Order"]


def test_parser_use_makes_validation_errors_invalid_inputs(tmp_path):
    config = "handler: shop.handler.handler\ntrigger: direct\n"
    target = load_config(write_app(tmp_path, config))
    rules = target.outcomes
    try:
        _order_model(tmp_path).model_validate({})
    except ValidationError as exc:
        assert classify_exception(exc, rules, [])[0] is Status.INVALID
    assert classify_exception(KeyError("x"), rules, [])[0] is Status.FAILURE
    validator_error = SchemaValidationError("bad")
    assert classify_exception(validator_error, rules, [])[0] is Status.FAILURE  # no validator


def test_an_explicit_outcomes_invalid_exceptions_wins(tmp_path):
    config = """\
        handler: shop.handler.handler
        trigger: direct
        outcomes: {invalid: {exceptions: [ValueError]}}
    """
    target = load_config(write_app(tmp_path, config))
    assert target.outcomes.invalid_exceptions == ("ValueError",)
    assert target.trigger.body_model is not None  # the model still shapes the bodies


def test_powertools_false_turns_the_analysis_off(tmp_path):
    config = "handler: shop.handler.handler\ntrigger: {kind: direct, powertools: false}\n"
    target = load_config(write_app(tmp_path, config))
    assert target.trigger.body_model is None and target.outcomes.invalid_exceptions == ()


def test_trigger_model_names_a_model_explicitly(tmp_path):
    config = """\
        handler: app.handler
        trigger:
          kind: sqs
          source: orders
          model: {module: shop.models, name: Order, envelope: sqs}
        resources: {queues: [{name: orders}]}
    """
    extra = {"app.py": "def handler(event, context):\n    return None\n"}
    target = load_config(write_app(tmp_path, config, extra=extra))
    model = target.trigger.body_model
    assert model is not None and model.envelope is Envelope.SQS
    assert json.loads(model.schema_json)["title"] == "Order"
    assert "pydantic_core._pydantic_core.ValidationError" in target.outcomes.invalid_exceptions


def test_trigger_schema_names_a_schema_file(tmp_path):
    schema = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
    config = "handler: app.handler\ntrigger: {kind: direct, schema: schemas/in.json}\n"
    extra = {
        "app.py": "def handler(event, context):\n    return None\n",
        "schemas/in.json": json.dumps(schema),
    }
    target = load_config(write_app(tmp_path, config, extra=extra))
    assert target.trigger.body_model is not None
    assert json.loads(target.trigger.body_model.schema_json) == schema
    valid = sum(jsonschema.Draft202012Validator(schema).is_valid(e) for e in events(target, 100))
    assert 70 <= valid < 100


@pytest.mark.parametrize(
    ("trigger", "message"),
    [
        (
            "{kind: direct, model: {module: shop.models, name: Order, envelope: sqs}}",
            "does not fit a direct trigger",
        ),
        ("{kind: direct, model: {module: shop.models, name: Nope}}", "has no attribute 'Nope'"),
        ("{kind: direct, model: {module: shop.models, name: Order, envelope: s3}}", "envelope"),
        ("{kind: direct, schema: missing.json}", "a JSON Schema file"),
        ("{kind: direct, schema: bad.json}", "cannot read"),
        ("{kind: direct, schema: list.json}", "holds no JSON Schema object"),
        (
            "{kind: direct, schema: x.json, model: {module: shop.models, name: Order}}",
            "either trigger.model or trigger.schema",
        ),
    ],
)
def test_bad_explicit_models_are_one_clear_config_error(tmp_path, trigger, message):
    config = f"handler: app.handler\ntrigger: {trigger}\n"
    extra = {
        "app.py": "def handler(event, context):\n    return None\n",
        "x.json": "{}",
        "bad.json": "{not json",
        "list.json": "[1]",
    }
    with pytest.raises(ConfigError, match="trigger") as info:
        load_config(write_app(tmp_path, config, extra=extra))
    assert message in str(info.value)


def test_a_model_that_is_an_annotated_union_gets_its_schema_from_a_type_adapter(tmp_path):
    union = MODELS.replace('["retail", "wholesale"]', '["order"]') + (
        "from typing import Annotated, Union\n"
        "class Refund(BaseModel):\n"
        "    kind: Literal['refund']\n"
        "    amount: int = Field(gt=0)\n"
        "Message = Annotated[Union[Order, Refund], Field(discriminator='kind')]\n"
    )
    config = "handler: app.handler\ntrigger: {kind: direct, model: {module: shop.models, name: Message}}\n"
    extra = {"app.py": "def handler(event, context):\n    return None\n", "shop/models.py": union}
    target = load_config(write_app(tmp_path, config, extra=extra))
    schema = json.loads(target.trigger.body_model.schema_json)
    assert set(schema["$defs"]) == {"Order", "Refund", "Line"}
    kinds = {event.get("kind") for event in events(target, 60) if isinstance(event, dict)}
    assert {"order", "refund"} <= kinds


def test_a_model_extending_a_powertools_event_model_shapes_the_field_it_overrides(tmp_path):
    handler = (
        "from aws_lambda_powertools.utilities.parser import event_parser\n"
        "from aws_lambda_powertools.utilities.parser.models import EventBridgeModel\n"
        "from shop.models import Order\n\n"
        "class OrderPlaced(EventBridgeModel):\n"
        "    detail: Order\n\n"
        "@event_parser(model=OrderPlaced)\n"
        "def handler(event, context):\n"
        "    return None\n"
    )
    config = "handler: shop.handler.handler\ntrigger: eventbridge\n"
    target = load_config(write_app(tmp_path, config, extra={"shop/handler.py": handler}))
    model = target.trigger.body_model
    assert model is not None and model.envelope is Envelope.EVENTBRIDGE
    assert model.name == "shop.handler.OrderPlaced"
    order = _order_model(tmp_path)
    parsed = 0
    for event in events(target, 100):
        try:
            parse(event=event, model=order, envelope=envelopes.EventBridgeEnvelope)
            parsed += 1
        except ValidationError:
            pass
    assert 70 <= parsed < 100


def test_validator_use_makes_schema_validation_errors_invalid_inputs(tmp_path):
    handler = (
        "from aws_lambda_powertools.utilities.validation import validator\n"
        "SCHEMA = {'type': 'object', 'required': ['id'], 'properties': {'id': {'type': 'integer'}}}\n\n"
        "@validator(inbound_schema=SCHEMA)\n"
        "def handler(event, context):\n"
        "    return event['id']\n"
    )
    config = "handler: shop.handler.handler\ntrigger: direct\n"
    target = load_config(write_app(tmp_path, config, extra={"shop/handler.py": handler}))
    assert json.loads(target.trigger.body_model.schema_json)["required"] == ["id"]
    rules = target.outcomes
    assert classify_exception(SchemaValidationError("bad"), rules, [])[0] is Status.INVALID
    assert classify_exception(ValueError("bug"), rules, [])[0] is Status.FAILURE


RESOLVER = """\
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.utilities.parser import parse
from shop.models import Order

app = APIGatewayRestResolver()

@app.get("/orders/<order_id>")
def get_order(order_id):
    return {"id": order_id}

@app.post("/orders")
def create():
    return parse(event=app.current_event.body, model=Order).model_dump()

def handler(event, context):
    return app.resolve(event, context)
"""


def test_resolver_routes_and_4xx_answers_come_from_the_resolver(tmp_path):
    config = "handler: shop.handler.handler\ntrigger: apigateway\n"
    target = load_config(write_app(tmp_path, config, extra={"shop/handler.py": RESOLVER}))
    assert [(r.method, r.path) for r in target.trigger.routes] == [
        ("GET", "/orders/{order_id}"),
        ("POST", "/orders"),
    ]
    assert {404, 405, 422} <= set(target.outcomes.invalid_status_codes)
    assert target.trigger.body_model is not None  # the body parsed in a route
    assert "pydantic_core._pydantic_core.ValidationError" in target.outcomes.invalid_exceptions


def test_an_explicit_outcomes_invalid_status_codes_list_wins(tmp_path):
    config = """\
        handler: shop.handler.handler
        trigger: apigateway
        outcomes: {invalid: {status_codes: [400]}}
    """
    target = load_config(write_app(tmp_path, config, extra={"shop/handler.py": RESOLVER}))
    assert target.outcomes.invalid_status_codes == (400,)


def test_a_module_reading_its_environment_at_import_gets_its_schema_built(tmp_path):
    handler = (
        "import os\n"
        "from aws_lambda_powertools.utilities.parser import event_parser\n"
        "from pydantic import BaseModel\n\n"
        "TABLE = os.environ['TABLE_NAME']\n"
        "MODE = os.environ['MODE']\n\n"
        "class Job(BaseModel):\n"
        "    job_id: int\n\n"
        "@event_parser(model=Job)\n"
        "def handler(event, context):\n"
        "    return None\n"
    )
    config = """\
        handler: shop.handler.handler
        trigger: direct
        env: {TABLE_NAME: "${tables.jobs.name}", MODE: strict}
        resources:
          tables: [{name: jobs, hash_key: {name: id, type: S}}]
    """
    target = load_config(write_app(tmp_path, config, extra={"shop/handler.py": handler}))
    assert json.loads(target.trigger.body_model.schema_json)["required"] == ["job_id"]
