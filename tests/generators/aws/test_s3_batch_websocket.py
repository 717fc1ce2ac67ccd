"""Two trigger kinds: S3 Batch Operations invocations (`s3-batch`) naming an object of the
world's bucket, and API Gateway WebSocket events (`websocket`) on the configured or
template's route keys; shapes validated against the Powertools models."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest
import yaml
from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayWebSocketConnectEventModel,
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
    S3BatchOperationModel,
)

from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template
from lambdafuzz.config.sample_events import event_kind
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.target import Target, TriggerKind
from tests.fixtures.sam import template_text

HANDLER = "def handler(event, context):\n    return None\n"
BUCKET = {"name": "inventory", "objects": {"min": 1, "max": 3, "formats": ["csv", "json"]}}


def write_config(directory: Path, trigger: dict, resources: dict | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text(HANDLER)
    config = {"handler": "app.handler", "trigger": trigger, "resources": resources or {}}
    path = directory / "lambdafuzz.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def generated(target: Target, count: int) -> list[tuple[object, dict]]:
    found = []
    for seed in range(count):
        made = generate_input(Choices(seed=seed), target)
        found.append((made.world, made.render_event(synthetic_loaded_world(made.world))))
    return found


# --------------------------------------------------------------------------- s3-batch
def test_s3_batch_config_names_a_bucket_with_objects(tmp_path):
    target = load_config(
        write_config(tmp_path, {"kind": "s3-batch", "source": "inventory"}, {"buckets": [BUCKET]})
    )
    assert (target.trigger.kind, target.trigger.source) == (TriggerKind.S3_BATCH, "inventory")
    output = {"buckets": [BUCKET, {"name": "reports"}]}
    with pytest.raises(ConfigError, match="objects"):
        load_config(write_config(tmp_path / "b", {"kind": "s3-batch", "source": "reports"}, output))


def test_s3_batch_tasks_name_objects_of_the_world(tmp_path):
    target = load_config(
        write_config(tmp_path, {"kind": "s3-batch", "source": "inventory"}, {"buckets": [BUCKET]})
    )
    versions = set()
    for world, event in generated(target, 40):
        S3BatchOperationModel.model_validate(json.loads(json.dumps(event)))  # it adds s3Bucket
        assert event_kind(event) is TriggerKind.S3_BATCH
        (task,) = event["tasks"]
        versions.add(event["invocationSchemaVersion"])
        if event["invocationSchemaVersion"] == "1.0":
            assert task["s3BucketArn"] == "arn:aws:s3:::inventory" and "s3Bucket" not in task
        else:
            assert task["s3Bucket"] == "inventory"
            assert isinstance(event["job"]["userArguments"], dict)
        key = urllib.parse.unquote(task["s3Key"])
        assert world.bucket("inventory").get(key) is not None
    assert versions == {"1.0", "2.0"}


def test_s3_batch_tasks_name_an_object_even_when_the_bucket_may_be_empty(tmp_path):
    # a batch job's manifest lists objects that exist: the bucket holds one whatever its min
    bucket = {"name": "inventory", "objects": {"min": 0, "max": 2, "formats": ["text"]}}
    target = load_config(
        write_config(tmp_path, {"kind": "s3-batch", "source": "inventory"}, {"buckets": [bucket]})
    )
    for world, event in generated(target, 60):
        (task,) = event["tasks"]
        assert world.bucket("inventory").get(urllib.parse.unquote(task["s3Key"])) is not None


def test_s3_batch_schema_version_is_the_jobs_when_the_config_names_it(tmp_path):
    trigger = {"kind": "s3-batch", "source": "inventory", "schema_version": "1.0"}
    target = load_config(write_config(tmp_path, trigger, {"buckets": [BUCKET]}))
    assert {event["invocationSchemaVersion"] for _, event in generated(target, 30)} == {"1.0"}
    with pytest.raises(ConfigError, match="schema_version"):
        load_config(write_config(tmp_path / "s", {**trigger, "kind": "s3"}, {"buckets": [BUCKET]}))


# --------------------------------------------------------------------------- websocket
def test_websocket_config_route_keys(tmp_path):
    trigger = {"kind": "websocket", "routes": ["$connect", "sendmessage"]}
    target = load_config(write_config(tmp_path, trigger))
    assert target.trigger.route_keys == ("$connect", "sendmessage")
    default = load_config(write_config(tmp_path / "d", {"kind": "websocket"}))
    assert default.trigger.route_keys == ("$connect", "$disconnect", "$default")
    with pytest.raises(ConfigError, match="route"):
        load_config(write_config(tmp_path / "e", {"kind": "websocket", "routes": [{"path": "/"}]}))
    with pytest.raises(ConfigError, match="websocket"):
        load_config(write_config(tmp_path / "f", {"kind": "apigateway", "routes": ["$connect"]}))


def test_websocket_routes_from_a_template(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(HANDLER)
    path = tmp_path / "template.yaml"
    path.write_text(template_text("websocket", "websocket_routes"))
    for function, keys in (("OnConnect", ("$connect",)), ("Send", ("sendmessage",))):
        trigger = load_template(path, function).target.trigger
        assert (trigger.kind, trigger.route_keys) == (TriggerKind.WEBSOCKET, keys)


MODELS = {
    "CONNECT": APIGatewayWebSocketConnectEventModel,
    "DISCONNECT": APIGatewayWebSocketDisconnectEventModel,
    "MESSAGE": APIGatewayWebSocketMessageEventModel,
}


def test_websocket_events_have_the_shape_of_their_route(tmp_path):
    trigger = {"kind": "websocket", "routes": ["$connect", "$disconnect", "$default", "send"]}
    target = load_config(write_config(tmp_path, trigger))
    routes = set()
    for _, event in generated(target, 80):
        context = event["requestContext"]
        MODELS[context["eventType"]].model_validate(event)
        assert event_kind(event) is TriggerKind.WEBSOCKET
        route = context["routeKey"]
        routes.add(route)
        assert context["connectionId"] and context["connectedAt"] <= context["requestTimeEpoch"]
        if route == "send":
            assert json.loads(event["body"])["action"] == "send"
            assert context["messageId"]
        elif route == "$connect":
            assert event["headers"]["Sec-WebSocket-Version"] == "13" and "body" not in event
        elif route == "$default" and event["body"].startswith("{"):
            assert json.loads(event["body"]).get("action") != "send"
    assert routes == {"$connect", "$disconnect", "$default", "send"}
