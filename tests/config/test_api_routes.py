"""API Gateway routes: imported from SAM events and OpenAPI definitions, checked in a
lambdafuzz.yaml, and honoured by every generated request (path, parameters, method, route
key, body content type)."""

from __future__ import annotations

import base64
import json
import re
import textwrap
import urllib.parse
from pathlib import Path

import pytest
from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayProxyEventModel,
    APIGatewayProxyEventV2Model,
    LambdaFunctionUrlModel,
)

from lambdafuzz.config import load_config
from lambdafuzz.config.event_keys import form_fields
from lambdafuzz.config.sam import load_template
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.model.target import Route, Target, TriggerKind
from tests.fixtures.config_files import write_config
from tests.fixtures.sam import template_text

HANDLER = "def handler(event, context):\n    return None\n"
FORM_HANDLER = """\
from urllib.parse import parse_qs


def _order(body):
    form = parse_qs(body)
    return form["sku"][0], int(form.get("qty", ["1"])[0]), "gift" in form


def handler(event, context):
    return _order(event["body"])
"""


def write_template(tmp_path: Path, template: str, handler: str = HANDLER) -> Path:
    (tmp_path / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / "app.py").write_text(handler)
    path = tmp_path / "template.yaml"
    path.write_text(textwrap.dedent(template))
    return path


def events(target: Target, count: int) -> list[dict]:
    found = []
    for seed in range(count):
        generated = generate_input(Choices(seed=seed), target)
        found.append(generated.render_event(synthetic_loaded_world(generated.world)))
    return found


def template_regex(template: str) -> re.Pattern[str]:
    """A resource template as a regex over the percent-encoded path."""
    pattern = ""
    for part in re.split(r"(\{[^}]+\})", template):
        if part.startswith("{"):
            pattern += "(.+)" if part.endswith("+}") else "([^/]+)"
        else:
            pattern += re.escape(part)
    return re.compile(pattern)


def parameter_names(template: str) -> set[str]:
    return {name.rstrip("+") for name in re.findall(r"\{([^}]+)\}", template)}


# --------------------------------------------------------------------------- SAM import
def test_api_events_of_one_function_become_its_routes(tmp_path):
    path = write_template(tmp_path, template_text("api_routes", "rest_api_events"))
    imported = load_template(path, "Fn")
    trigger = imported.target.trigger
    assert trigger.kind is TriggerKind.APIGATEWAY
    assert trigger.routes == (
        Route("GET", "/orders/{orderId}", query=("expand",), headers=("X-Tenant",)),
        Route("POST", "/orders"),  # a trailing slash is served without it
        Route("ANY", "/files/{proxy+}"),
    )
    notes = "\n".join(imported.unsupported)
    assert "one trigger per function" not in notes  # all three are routes of the one trigger
    assert "Events.Post.Auth: not modelled (API keys" in notes


def test_http_api_event_without_path_is_the_default_route(tmp_path):
    path = write_template(tmp_path, template_text("api_routes", "http_api_events"))
    imported = load_template(path, "Fn")
    assert imported.target.trigger.routes == (
        Route("GET", "/wallets/{id}"),
        Route("ANY", "$default"),
    )
    assert any("Events.Queue: lambdafuzz fuzzes one trigger" in n for n in imported.unsupported)


def test_openapi_definition_routes_the_function_without_events(tmp_path):
    path = write_template(tmp_path, template_text("api_routes", "openapi_definition_body"))
    imported = load_template(path, "Fn")
    trigger = imported.target.trigger
    assert trigger.kind is TriggerKind.APIGATEWAY
    assert trigger.routes == (
        Route("GET", "/docs/{docId}", (), ("version",), ("X-Tenant",)),
        Route("PUT", "/docs/{docId}/scan", ("image/png", "application/json")),
    )  # /other invokes another function
    assert any("requestBody: body schemas are not generated" in n for n in imported.unsupported)


def test_swagger_consumes_and_events_naming_the_api(tmp_path):
    swagger = {
        "swagger": "2.0",
        "consumes": ["application/json"],
        "paths": {
            "/forms": {
                "post": {
                    "consumes": ["application/x-www-form-urlencoded"],
                    "x-amazon-apigateway-integration": {"uri": "${Fn.Arn}", "type": "aws_proxy"},
                }
            },
            "/items": {"get": {"x-amazon-apigateway-integration": {"uri": "${Fn.Arn}"}}},
        },
    }
    (tmp_path / "api.json").write_text(json.dumps(swagger))
    path = write_template(
        tmp_path,
        template_text("api_routes", "swagger_definition_uri"),
        FORM_HANDLER,
    )
    imported = load_template(path, "Fn")
    assert any(n.startswith("Resources.Shop.Auth: ApiKeyRequired") for n in imported.unsupported)
    trigger = imported.target.trigger
    assert trigger.routes == (
        Route("POST", "/forms", ("application/x-www-form-urlencoded",)),
        Route("GET", "/items", ("application/json",)),
    )
    assert trigger.form_fields == ("sku", "qty", "gift")  # read from the handler's module


def test_a_lambda_url_resource_makes_a_function_url(tmp_path):
    path = write_template(tmp_path, template_text("api_routes", "lambda_url_resource"))
    imported = load_template(path, "Fn")
    assert imported.target.trigger.function_url
    assert not any("Resources.Url" in n for n in imported.unsupported)


def test_function_url_without_events(tmp_path):
    path = write_template(tmp_path, template_text("api_routes", "function_url_config"))
    imported = load_template(path, "Fn")
    trigger = imported.target.trigger
    assert (trigger.kind, trigger.function_url, trigger.routes) == (
        TriggerKind.APIGATEWAY_V2,
        True,
        (),
    )
    assert any("FunctionUrlConfig.AuthType" in n for n in imported.unsupported)
    for event in events(imported.target, 100):
        LambdaFunctionUrlModel.model_validate(event)
        assert event["routeKey"] == "$default" and "pathParameters" not in event
        context = event["requestContext"]
        assert context["domainName"] == f"{context['apiId']}.lambda-url.us-east-1.on.aws"
        assert event["headers"]["host"] == context["domainName"]


def test_a_config_without_form_fields_reads_them_from_the_handler(tmp_path):
    text = "handler: app.handler\ntrigger: {kind: apigateway, routes: [{method: POST, path: /f, content_types: [application/x-www-form-urlencoded]}]}\n"
    path = write_config(tmp_path, text)
    (tmp_path / "app.py").write_text(FORM_HANDLER)
    assert load_config(path).trigger.form_fields == ("sku", "qty", "gift")


def test_form_fields_are_read_from_parse_qs_results(tmp_path):
    source = tmp_path / "app.py"
    source.write_text(FORM_HANDLER + "\nx = dict(parse_qsl('a=1'))['note']\n")
    assert form_fields(source) == ("sku", "qty", "gift", "note")


# --------------------------------------------------------------------------- generation
ROUTES_CONFIG = """\
handler: app.handler
trigger:
  kind: KIND
  routes:
    - {method: GET, path: "/orders/{orderId}", query: [expand], headers: [X-Tenant]}
    - {method: POST, path: /orders, content_types: [application/x-www-form-urlencoded]}
    - {method: PUT, path: "/orders/{orderId}/scan", content_types: [image/png, application/octet-stream]}
    - {method: ANY, path: "/files/{bucket}/{key+}"}
  form_fields: [sku, qty]
"""


@pytest.mark.parametrize("kind", ["apigateway", "apigateway-v2"])
def test_every_request_is_on_a_declared_route(tmp_path, kind):
    target = load_config(write_config(tmp_path, ROUTES_CONFIG.replace("KIND", kind)))
    routes = {(r.method, r.path): r for r in target.trigger.routes}
    seen, greedy_slash, forms, binaries = set(), False, 0, 0
    for event in events(target, 300):
        if kind == "apigateway":
            APIGatewayProxyEventModel.model_validate(event)
            method, template, path = event["httpMethod"], event["resource"], event["path"]
            route_method = "ANY" if (("ANY", template) in routes) else method
            assert event["requestContext"]["resourcePath"] == template
        else:
            APIGatewayProxyEventV2Model.model_validate(event)
            route_method, template = event["routeKey"].split(" ", 1)
            method, path = event["requestContext"]["http"]["method"], event["rawPath"]
            assert event["requestContext"]["routeKey"] == event["routeKey"]
        route = routes[(route_method, template)]
        seen.add((route_method, template))
        if route.method != "ANY":
            assert method == route.method
        query = event.get("queryStringParameters") or {}
        assert all(query.get(name) for name in route.query)  # required: always sent
        lowered = {k.lower() for k, v in event["headers"].items() if v}
        assert {h.lower() for h in route.headers} <= lowered
        match = template_regex(template).fullmatch(path)
        assert match, (template, path)
        parameters = event.get("pathParameters")
        names = parameter_names(template)
        if names:
            assert set(parameters) == names and all(parameters.values())
            encoded = [
                urllib.parse.quote(parameters[n.strip("{}+")], safe="/")
                for n in re.findall(r"\{[^}]+\}", template)
            ]
            assert list(match.groups()) == encoded
            greedy_slash |= "/" in parameters.get("key", "")
        else:
            assert parameters is None
        body, headers = event.get("body"), {k.lower(): v for k, v in event["headers"].items()}
        if body is None or not route.content_types:
            continue
        content_type = headers["content-type"]
        assert content_type in route.content_types
        if content_type == "application/x-www-form-urlencoded":
            assert not event["isBase64Encoded"]
            form = urllib.parse.parse_qs(body, strict_parsing=True, keep_blank_values=True)
            forms += "sku" in form
        else:
            data = base64.b64decode(body, validate=True)
            assert event["isBase64Encoded"]
            binaries += 1
            if content_type == "image/png":
                assert data.startswith(b"\x89PNG") or len(data) < 8  # truncated now and then
    assert seen == set(routes)  # every route is drawn
    assert greedy_slash  # a greedy parameter spans segments
    assert forms > 10 and binaries > 10


def test_default_route_keeps_random_paths(tmp_path):
    text = "handler: app.handler\ntrigger: {kind: apigateway-v2, routes: [{path: $default}]}\n"
    target = load_config(write_config(tmp_path, text))
    paths = set()
    for event in events(target, 50):
        assert event["routeKey"] == "$default" and "pathParameters" not in event
        paths.add(event["rawPath"])
    assert len(paths) > 20


def test_mutating_the_route_draw_switches_routes_and_keeps_the_rest(tmp_path):
    """The route is one draw: changing it (as a mutator does) moves the request to that
    route, in its shape, and keeps the parts drawn apart from the route (the user agent)."""
    target = load_config(write_config(tmp_path, ROUTES_CONFIG.replace("KIND", "apigateway")))
    choices = Choices(seed=3, mode=ReplayMode.EXECUTION_INDEXED)
    (original,) = generate_input(choices, target).event.records
    (route_draw,) = [c for c in choices.choices if c.ei[-1][0] == "route"]
    resources = set()
    for index in range(len(target.trigger.routes)):
        prefix = {c.ei: c.value for c in choices.choices} | {route_draw.ei: index}
        generated = generate_input(
            Choices(prefix, seed=99, mode=ReplayMode.EXECUTION_INDEXED), target
        )
        (request,) = generated.event.records
        route = target.trigger.routes[index]
        assert request.resource == route.path
        assert route.method == "ANY" or request.method == route.method
        assert request.headers[0] == original.headers[0] and request.headers[0][0] == "User-Agent"
        resources.add(request.resource)
    assert len(resources) == len(target.trigger.routes)


# --------------------------------------------------------------------------- config errors
def error_for(tmp_path: Path, trigger: str) -> str:
    path = write_config(tmp_path, f"handler: app.handler\ntrigger: {trigger}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message, message
    return message


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        ("{kind: apigateway, routes: [{method: FETCH, path: /a}]}", "trigger.routes[0].method"),
        ("{kind: apigateway, routes: [{method: post, path: /a}]}", "Did you mean 'POST'"),
        ("{kind: apigateway, routes: [{path: orders}]}", 'starting with "/"'),
        ("{kind: apigateway, routes: [{path: '/a/{id'}]}", "trigger.routes[0].path"),
        ("{kind: apigateway, routes: [{path: '/{p+}/x'}]}", "greedy parameter must be the last"),
        ("{kind: apigateway, routes: [{path: '/{id}/{id}'}]}", "parameter id appears twice"),
        ("{kind: apigateway, routes: [{path: $default}]}", "$default routes are HTTP API"),
        (
            "{kind: apigateway, routes: [{path: /a}, {method: ANY, path: /a}]}",
            "each method and path once",
        ),
        ("{kind: apigateway, routes: [{path: /a, content_types: [json]}]}", "a media type"),
        ("{kind: apigateway, routes: [{path: /a, headers: ['X Y']}]}", "a header name"),
        ("{kind: apigateway, routes: [{path: /a, query: ['']}]}", "trigger.routes[0].query[0]"),
        ("{kind: direct, routes: [{path: /a}]}", "routes only for an apigateway"),
        ("{kind: apigateway, function_url: true}", "function_url only for an apigateway-v2"),
        (
            "{kind: apigateway-v2, function_url: true, routes: [{path: /a}]}",
            "no routes with function_url",
        ),
    ],
)
def test_route_mistakes_name_the_place(tmp_path, trigger, expected):
    message = error_for(tmp_path, trigger)
    assert expected in message, message


def test_a_definition_lambdafuzz_cannot_read_is_noted(tmp_path):
    path = write_template(tmp_path, template_text("api_routes", "remote_definition_include"))
    imported = load_template(path, "Fn")
    assert imported.target.trigger.routes == (Route("GET", "/items"),)
    assert any(
        "Resources.Shop.DefinitionBody: AWS::Include of 's3://b/api.yaml' is not a local file" in n
        for n in imported.unsupported
    )


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ('{Path: "/orders/{id", Method: get}', "Events.Get.Properties.Path"),
        ("{Path: /orders, Method: fetch}", "an HTTP method"),
    ],
)
def test_a_broken_api_event_names_its_place(tmp_path, event, expected):
    path = write_template(
        tmp_path, template_text("api_routes", "api_event_properties", event=event)
    )
    with pytest.raises(ConfigError) as info:
        load_template(path, "Fn")
    assert expected in str(info.value) and str(path) in str(info.value)
