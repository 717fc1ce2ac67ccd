"""The static Powertools analysis finds models, schemas, envelopes and routes in the shapes
real handlers are written in (decorators, calls, aliases, models imported from elsewhere)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from lambdafuzz.analysis.powertools import BodySource, ModelRef, analyze_powertools
from lambdafuzz.model.target import Envelope, Route

MODELS = """
from typing import Literal
from pydantic import BaseModel, Field

class Order(BaseModel):
    order_id: str
    kind: Literal["a", "b"]
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_event_parser_decorator_with_envelope_and_model_from_another_module(tmp_path):
    root = write(
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/models.py": MODELS,
            "shop/handler.py": """
                from aws_lambda_powertools.utilities.parser import envelopes, event_parser
                from shop.models import Order

                @event_parser(model=Order, envelope=envelopes.SqsEnvelope)
                def handler(event, context):
                    return len(event)
            """,
        },
    )
    use = analyze_powertools(root, "shop.handler", "handler")
    body = use.primary
    assert body is not None and body.source is BodySource.EVENT_PARSER
    assert body.model == ModelRef("shop.models", "Order")
    assert body.envelope is Envelope.SQS and body.envelope_name == "SqsEnvelope"
    assert body.in_handler and use.uses_parser and not use.uses_validator
    assert body.location == "shop/handler.py:5"


def test_aliased_imports_relative_imports_and_reexports(tmp_path):
    root = write(
        tmp_path,
        {
            "svc/__init__.py": "from .schemas.order import Order as OrderModel\n",
            "svc/schemas/__init__.py": "",
            "svc/schemas/order.py": MODELS,
            "svc/app.py": """
                import aws_lambda_powertools.utilities.parser as pt
                from aws_lambda_powertools.utilities.parser.envelopes import EventBridgeEnvelope as EB
                from . import OrderModel

                @pt.event_parser(model=OrderModel, envelope=EB)
                def main(event, context):
                    return event
            """,
        },
    )
    body = analyze_powertools(root, "svc.app", "main").primary
    assert body is not None
    assert body.model == ModelRef("svc.schemas.order", "Order")  # followed through the re-export
    assert body.envelope is Envelope.EVENTBRIDGE


def test_event_parser_without_model_uses_the_event_annotation(tmp_path):
    root = write(
        tmp_path,
        {
            "app.py": MODELS
            + """
from aws_lambda_powertools.utilities.parser import event_parser

@event_parser
def handler(event: Order, context):
    return event.order_id
""",
        },
    )
    body = analyze_powertools(root, "app", "handler").primary
    assert body is not None and body.model == ModelRef("app", "Order") and body.envelope is None


def test_parse_calls_positional_and_keyword_in_helpers(tmp_path):
    root = write(
        tmp_path,
        {
            "models.py": MODELS,
            "app.py": """
                from aws_lambda_powertools.utilities.parser import parse, envelopes
                import models

                def _orders(event):
                    return parse(event, models.Order, envelopes.KinesisDataStreamEnvelope)

                def handler(event, context):
                    return _orders(event)
            """,
        },
    )
    use = analyze_powertools(root, "app", "handler")
    (body,) = use.bodies
    assert body.source is BodySource.PARSE and not body.in_handler
    assert body.model == ModelRef("models", "Order") and body.envelope is Envelope.KINESIS


def test_validator_with_a_literal_schema_and_validate_with_an_envelope_constant(tmp_path):
    root = write(
        tmp_path,
        {
            "schemas.py": 'INPUT = {"type": "object", "required": ["id"], '
            '"properties": {"id": {"type": "string"}}}\n',
            "app.py": """
                from aws_lambda_powertools.utilities.validation import envelopes, validate, validator
                from schemas import INPUT

                @validator(inbound_schema=INPUT)
                def handler(event, context):
                    return event["id"]

                def other(event, context):
                    validate(event=event, schema=INPUT, envelope=envelopes.EVENTBRIDGE)
            """,
        },
    )
    use = analyze_powertools(root, "app", "handler")
    decorator, call = use.bodies
    assert use.primary is decorator and decorator.source is BodySource.VALIDATOR
    assert json.loads(decorator.schema_json)["required"] == ["id"]
    assert call.source is BodySource.VALIDATE and call.envelope is Envelope.EVENTBRIDGE
    assert use.uses_validator and not use.uses_parser


def test_a_schema_built_at_run_time_has_no_literal_text(tmp_path):
    root = write(
        tmp_path,
        {
            "app.py": """
                import json, pathlib
                from aws_lambda_powertools.utilities.validation import validator
                SCHEMA = json.loads(pathlib.Path("schema.json").read_text())

                @validator(inbound_schema=SCHEMA, envelope="detail")
                def handler(event, context):
                    return event
            """,
        },
    )
    body = analyze_powertools(root, "app", "handler").primary
    assert body is not None and body.model == ModelRef("app", "SCHEMA")
    assert body.schema_json is None and body.envelope is Envelope.EVENTBRIDGE


def test_resolver_routes_with_path_parameters_and_methods(tmp_path):
    root = write(
        tmp_path,
        {
            "api.py": """
                from aws_lambda_powertools.event_handler import APIGatewayHttpResolver as Resolver

                app = Resolver()

                @app.get("/orders/<order_id>")
                def get_order(order_id: str):
                    return {}

                @app.route("/orders", method=["POST", "PUT"])
                def put_order():
                    return {}

                @app.delete("/orders/<order_id>/lines/<line>")
                def delete_line(order_id, line):
                    return {}

                def handler(event, context):
                    return app.resolve(event, context)
            """,
        },
    )
    use = analyze_powertools(root, "api", "handler")
    assert use.resolver == "APIGatewayHttpResolver" and use.resolver_kind == "apigateway-v2"
    assert use.target_routes() == (
        Route("GET", "/orders/{order_id}"),
        Route("POST", "/orders"),
        Route("PUT", "/orders"),
        Route("DELETE", "/orders/{order_id}/lines/{line}"),
    )
    assert not use.bodies


def test_what_is_not_modelled_is_noted(tmp_path):
    root = write(
        tmp_path,
        {
            "app.py": MODELS
            + """
from aws_lambda_powertools.utilities.parser import event_parser, envelopes
from aws_lambda_powertools.event_handler import ALBResolver

app = ALBResolver()

@event_parser(model=Order, envelope=envelopes.DynamoDBStreamEnvelope)
def handler(event, context):
    return event
""",
        },
    )
    use = analyze_powertools(root, "app", "handler")
    assert use.primary is not None and use.primary.envelope is None
    assert any("DynamoDBStreamEnvelope" in note for note in use.notes)
    assert any("ALBResolver" in note for note in use.notes)


def test_plain_handlers_and_missing_modules_find_nothing(tmp_path):
    root = write(tmp_path, {"app.py": "def handler(event, context):\n    return event\n"})
    assert not analyze_powertools(root, "app", "handler").found
    assert not analyze_powertools(root, "missing", "handler").found


def test_included_routers_with_prefixes_and_validated_body_parameters(tmp_path):
    root = write(
        tmp_path,
        {
            "todos/__init__.py": "",
            "todos/models.py": MODELS,
            "todos/routes.py": """
                from typing import Annotated
                from aws_lambda_powertools.event_handler.api_gateway import Router
                from aws_lambda_powertools.event_handler.openapi.params import Body
                from todos.models import Order

                router = Router()

                @router.get("/<todo_id>")
                def get_todo(todo_id: str):
                    return {}

                @router.post("/")
                def create(todo: Annotated[Order, Body()]):
                    return {}
            """,
            "todos/app.py": """
                from aws_lambda_powertools.event_handler import LambdaFunctionUrlResolver
                from todos import routes

                app = LambdaFunctionUrlResolver(enable_validation=True)
                app.include_router(routes.router, prefix="/todos")

                def handler(event, context):
                    return app.resolve(event, context)
            """,
        },
    )
    use = analyze_powertools(root, "todos.app", "handler")
    assert use.resolver_kind == "apigateway-v2"
    assert use.target_routes() == (Route("GET", "/todos/{todo_id}"), Route("POST", "/todos"))
    body = use.primary
    assert body is not None and body.source is BodySource.ROUTE
    assert body.model == ModelRef("todos.models", "Order") and body.envelope is None
