"""Functions used as API Gateway Lambda authorizers get authorizer events: the template's
four ways of declaring one, the `authorizer` trigger of a lambdafuzz.yaml, the events'
shapes with their identity sources, and a campaign reaching both allow and deny."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config.sam import load_template, load_template_target
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.events import draw_event_plan, render_event
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import AuthorizerFormat, TriggerKind
from lambdafuzz.model.world import LoadedWorld, World
from tests.fixtures.template_runs import line_of, reached_without_a_bug

APP = Path(__file__).parent / "apps" / "authorizers"
TEMPLATE = APP / "template.yaml"
HANDLER = APP / "src" / "auth.py"
SEEDS = range(60)


@pytest.mark.parametrize(
    ("function", "fmt", "identity"),
    [
        ("TokenAuthFunction", "token", ("header.X-Api-Token",)),  # Serverless::Api TOKEN
        ("RequestAuthFunction", "request", ("header.X-Tenant", "query.key")),  # ... REQUEST
        ("HttpAuthFunction", "v2", ("header.Authorization",)),  # Serverless::HttpApi 2.0
        ("LegacyAuthFunction", "v1", ("header.Authorization", "query.tenant")),  # ... 1.0
        ("PlainRestAuthFunction", "request", ("header.Authorization", "query.token")),
        ("PlainHttpAuthFunction", "v2", ("header.Authorization", "context.routeKey")),
    ],
)
def test_template_authorizers_get_authorizer_triggers(function, fmt, identity):
    imported = load_template(TEMPLATE, function)
    trigger = imported.target.trigger
    assert trigger.kind is TriggerKind.AUTHORIZER  # not `direct`: it has no Events
    assert (trigger.authorizer_format, trigger.identity_sources) == (
        AuthorizerFormat(fmt),
        identity,
    )
    assert imported.config["trigger"]["format"] == fmt


def _events(function: str, dictionary: tuple[str, ...] = ()) -> list[dict]:
    target = load_template_target(TEMPLATE, function)
    world = World()
    return [
        render_event(
            draw_event_plan(
                Choices(seed=seed, policy=DrawPolicy(dictionary=dictionary)), target, world
            ),
            LoadedWorld(world),
        )
        for seed in SEEDS
    ]


def test_token_events():
    events = _events("TokenAuthFunction", ("let-me-in",))
    for event in events:
        assert set(event) == {"type", "authorizationToken", "methodArn"}
        assert event["type"] == "TOKEN" and event["authorizationToken"]
        assert event["methodArn"].startswith("arn:aws:execute-api:us-east-1:123456789012:")
    tokens = [e["authorizationToken"].removeprefix("Bearer ") for e in events]
    assert "let-me-in" in tokens  # a dictionary constant, verbatim, now and then
    assert len(set(tokens)) > len(SEEDS) // 2  # and otherwise varied


def test_rest_request_events_carry_their_identity_sources():
    for event in _events("RequestAuthFunction"):
        assert event["type"] == "REQUEST" and "methodArn" in event
        assert "body" not in event and "version" not in event
        assert event["headers"]["X-Tenant"]
        assert event["queryStringParameters"]["key"]
        assert event["httpMethod"] and event["requestContext"]["stage"]


def test_http_api_payload_1_events():
    for event in _events("LegacyAuthFunction"):
        assert (event["version"], event["type"]) == ("1.0", "REQUEST")
        sources = [event["headers"]["Authorization"], event["queryStringParameters"]["tenant"]]
        assert event["identitySource"] == ",".join(sources)
        assert "methodArn" in event


def test_http_api_payload_2_events():
    for event in _events("PlainHttpAuthFunction"):
        assert (event["version"], event["type"]) == ("2.0", "REQUEST")
        assert event["routeArn"].startswith("arn:aws:execute-api:us-east-1:123456789012:")
        header, context = event["identitySource"]
        assert header == event["headers"]["authorization"]
        assert context == event["requestContext"]["routeKey"] == event["routeKey"]
        assert "body" not in event and "isBase64Encoded" not in event


def _config(trigger: dict) -> dict:
    return {"handler": "auth.token_handler", "root": "src", "trigger": trigger}


def test_a_config_declares_an_authorizer():
    trigger = {"kind": "authorizer", "format": "v2", "identity": ["header.Authorization"]}
    target = target_from_dict(_config(trigger), TEMPLATE)
    assert target.trigger.authorizer_format is AuthorizerFormat.V2
    token = target_from_dict(_config({"kind": "authorizer"}), TEMPLATE).trigger
    assert (token.authorizer_format, token.identity_sources) == (
        AuthorizerFormat.TOKEN,
        ("header.Authorization",),
    )


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        ({"kind": "direct", "format": "token"}, "format only for an authorizer trigger"),
        ({"kind": "authorizer", "format": "jwt"}, "an authorizer format"),
        ({"kind": "authorizer", "identity": ["cookie.x"]}, "an identity source: header.NAME"),
        (
            {"kind": "authorizer", "identity": ["header.A", "query.b"]},
            "one header for a token authorizer",
        ),
    ],
)
def test_a_config_authorizer_is_validated(trigger, expected):
    with pytest.raises(ConfigError) as caught:
        target_from_dict(_config(trigger), TEMPLATE)
    assert expected in str(caught.value)


def test_a_campaign_reaches_allow_and_deny(tmp_path):
    target = load_template_target(TEMPLATE, "TokenAuthFunction")
    # seeds 0-7 reach Allow in 100 executions 6 times (`TOKEN_DICTIONARY_P`); 1 is one
    reached = reached_without_a_bug(target, tmp_path, seed=1, execs=100)
    allow = line_of(HANDLER, 'return _policy("Allow", event["methodArn"])')
    deny = line_of(HANDLER, 'return _policy("Deny", event["methodArn"])')
    assert {allow, deny} <= reached, f"seed 1: {sorted(reached)}"
