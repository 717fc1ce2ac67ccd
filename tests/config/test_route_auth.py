"""API routes behind an authorizer: which one, read from a template (SAM event `Auth`, the
API's default, OpenAPI `security`) or a lambdafuzz.yaml (`routes[].auth`), and every
request on such a route carrying the authorizer's output in `requestContext` as API
Gateway renders it (validated against the Powertools models)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml
from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayProxyEventModel,
    APIGatewayProxyEventV2Model,
)

from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import RouteAuth, Target
from tests.fixtures.sam import template_text

HANDLER = "def handler(event, context):\n    return None\n"


def write_template(tmp_path: Path, template: str) -> Path:
    (tmp_path / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / "app.py").write_text(HANDLER)
    path = tmp_path / "template.yaml"
    path.write_text(textwrap.dedent(template))
    return path


def write_config(directory: Path, trigger: dict, resources: dict | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text(HANDLER)
    config = {"handler": "app.handler", "trigger": trigger, "resources": resources or {}}
    path = directory / "lambdafuzz.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def auths(target: Target) -> dict[str, RouteAuth]:
    return {route.path: route.auth for route in target.trigger.routes}


def events(target: Target, count: int, fields: tuple[str, ...] = ()) -> list[dict]:
    found = []
    for seed in range(count):
        generated = generate_input(Choices(seed=seed, policy=DrawPolicy(fields=fields)), target)
        found.append(generated.render_event(synthetic_loaded_world(generated.world)))
    return found


def test_sam_event_auth_and_the_apis_default_authorizer(tmp_path):
    imported = load_template(
        write_template(tmp_path, template_text("route_auth", "rest_api_authorizers")), "Fn"
    )
    assert auths(imported.target) == {
        "/me": RouteAuth.COGNITO,  # the API's DefaultAuthorizer, a user pool
        "/health": RouteAuth.NONE,
        "/admin": RouteAuth.IAM,
        "/token": RouteAuth.LAMBDA,
    }
    assert not [n for n in imported.unsupported if "uthoriz" in n]  # no "not modelled"


def test_http_api_globals_jwt_authorizer(tmp_path):
    imported = load_template(
        write_template(tmp_path, template_text("route_auth", "http_api_jwt_authorizer")), "Fn"
    )
    assert auths(imported.target) == {"/items": RouteAuth.JWT, "/open": RouteAuth.NONE}


def test_openapi_security_schemes(tmp_path):
    imported = load_template(
        write_template(tmp_path, template_text("route_auth", "openapi_security_schemes")), "Fn"
    )
    assert auths(imported.target) == {
        "/profile": RouteAuth.COGNITO,
        "/report": RouteAuth.IAM,
        "/public": RouteAuth.NONE,
    }


def test_a_config_route_says_its_authorizer(tmp_path):
    trigger = {
        "kind": "apigateway",
        "routes": [{"method": "GET", "path": "/me", "auth": "cognito"}, {"path": "/x"}],
    }
    target = load_config(write_config(tmp_path, trigger))
    assert auths(target) == {"/me": RouteAuth.COGNITO, "/x": RouteAuth.NONE}


def test_every_rest_request_carries_its_routes_authorizer(tmp_path):
    target = load_template(
        write_template(tmp_path, template_text("route_auth", "rest_api_authorizers")), "Fn"
    ).target
    seen = set()
    for event in events(target, 80, fields=("custom:tier", "cognito:groups")):
        APIGatewayProxyEventModel.model_validate(event)
        context, path = event["requestContext"], event["resource"]
        seen.add(path)
        if path == "/me":
            claims = context["authorizer"]["claims"]
            assert {"sub", "email", "cognito:username", "aud", "iss", "token_use", "exp"} <= set(
                claims
            )
            assert claims["token_use"] == "id" and claims["custom:tier"]
            assert all(isinstance(v, str) for v in claims.values())
            assert event["headers"]["Authorization"]
        elif path == "/token":
            assert context["authorizer"]["principalId"]
            assert isinstance(context["authorizer"]["integrationLatency"], int)
        elif path == "/admin":
            identity = context["identity"]
            assert identity["accessKey"].startswith("ASIA") and identity["userArn"]
            assert identity["accountId"] == identity["userArn"].split(":")[4]
            assert "authorizer" not in context
        else:
            assert "authorizer" not in context and context["identity"]["userArn"] is None
    assert seen == {"/me", "/health", "/admin", "/token"}


def test_http_api_jwt_claims_and_a_sub_from_the_world(tmp_path):
    trigger = {"kind": "apigateway-v2", "routes": [{"path": "/items", "auth": "jwt"}]}
    resources = {
        "tables": [{"name": "users", "hash_key": {"name": "userId", "type": "S"},
                    "items": {"min": 1, "max": 3}}]
    }  # fmt: skip
    target = load_config(write_config(tmp_path, trigger, resources=resources))
    subs_in_world = 0
    for seed in range(60):
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        APIGatewayProxyEventV2Model.model_validate(event)
        jwt = event["requestContext"]["authorizer"]["jwt"]
        assert jwt["claims"]["sub"] and int(jwt["claims"]["exp"]) > int(jwt["claims"]["iat"])
        keys = {i["userId"]["S"] for i in generated.world.table("users").items}
        subs_in_world += jwt["claims"]["sub"] in keys
    assert subs_in_world >= 5  # a user id that is a table key, now and then


def test_unauthenticated_routes_draw_what_they_drew_before(tmp_path):
    """Nothing is drawn for a route without an authorizer: recordings keep their layout."""
    trigger = {"kind": "apigateway", "routes": [{"path": "/x"}]}
    plain = load_config(write_config(tmp_path, trigger))
    for seed in range(5):
        generated = generate_input(Choices(seed=seed), plain)
        assert generated.event.records[0].auth is None
        assert (
            "authorizer"
            not in generated.render_event(synthetic_loaded_world(generated.world))["requestContext"]
        )
