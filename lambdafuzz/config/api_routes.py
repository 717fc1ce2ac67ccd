"""API Gateway routes of one function, from what a SAM/CloudFormation template declares.

A function behind API Gateway only ever receives requests on its routes: `POST
/orders/{orderId}` always carries `pathParameters.orderId` and never arrives as a GET.
Routes come from the function's `Api` / `HttpApi` events (Path, Method) and from the
OpenAPI / Swagger definition (`DefinitionBody`, `Body`, a local `DefinitionUri`) of the API
those events name, or of any API of the template whose integrations invoke the function.
The request content types an operation declares become the route's `content_types`, its
authorizer the route's `auth` (`config.route_auth`).  What a definition says that
lambdafuzz does not model (API keys, resource policies, request validation, body schemas)
is returned as notes, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from lambdafuzz.config.api_definitions import api_definition
from lambdafuzz.config.route_auth import api_auth, event_auth, openapi_auth
from lambdafuzz.config.sam_template import Template, TemplateEvent, logical_ref
from lambdafuzz.generators.aws.http_events import DEFAULT_ROUTE, FORM_TYPE, ROUTE_METHODS
from lambdafuzz.model.target import RouteAuth

#: API resources whose definition may route requests to a function.
REST_API_TYPES = frozenset({"AWS::Serverless::Api", "AWS::ApiGateway::RestApi"})
HTTP_API_TYPES = frozenset({"AWS::Serverless::HttpApi", "AWS::ApiGatewayV2::Api"})
API_TYPES = REST_API_TYPES | HTTP_API_TYPES
#: OpenAPI operation keys -> methods (`x-amazon-apigateway-any-method`: every method).
_OPERATIONS = {
    "get": "GET", "post": "POST", "put": "PUT", "delete": "DELETE", "patch": "PATCH",
    "head": "HEAD", "options": "OPTIONS", "x-amazon-apigateway-any-method": "ANY",
}  # fmt: skip
#: Event properties that only place the route or tune the integration: nothing to note.
_ROUTE_PROPERTIES = frozenset(
    {
        "Path", "Method", "RestApiId", "ApiId", "TimeoutInMillis", "PayloadFormatVersion",
        "RequestParameters",
    }
)  # fmt: skip
#: Event `Auth` keys modelled (`config.route_auth`): the others are noted.
_AUTH_MODELLED = frozenset({"Authorizer"})
_EVENT_NOTES = {
    "Auth": "not modelled (API keys, scopes, resource policies); every generated request "
    "reaches the handler",
    "RequestModel": "request validation against a model is not modelled; bodies are not "
    "limited to it",
    "RouteSettings": "route throttling settings are not modelled",
}
_SEGMENT = re.compile(r"[^{}/\s]+|\{[A-Za-z0-9._-]+\+?\}")
_TOKEN = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")
_MEDIA_TYPE = re.compile(r"[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+*-]+")


def route_path_problem(path: str) -> str | None:
    """What a route path should have been, or None when API Gateway would take it."""
    if path == DEFAULT_ROUTE:
        return None
    expected = (
        'a resource path starting with "/" whose segments are literals or whole {name} '
        "parameters (a greedy {name+} only last), or $default"
    )
    if not path.startswith("/"):
        return expected
    if path == "/":
        return None
    segments = path[1:].split("/")
    names: list[str] = []
    for i, segment in enumerate(segments):
        if not _SEGMENT.fullmatch(segment):
            return expected
        if segment.startswith("{"):
            if segment.endswith("+}") and i != len(segments) - 1:
                return expected + " (a greedy parameter must be the last segment)"
            name = segment.strip("{}+")
            if name in names:
                return expected + f" (parameter {name} appears twice)"
            names.append(name)
    return None


def header_name_problem(value: str) -> str | None:
    """What a header name should have been (an HTTP token), or None."""
    return None if _TOKEN.fullmatch(value) else "a header name (letters, digits, -, _)"


def media_type_problem(value: str) -> str | None:
    """What a content type should have been (type/subtype, no parameters), or None."""
    return None if _MEDIA_TYPE.fullmatch(value) else "a media type such as application/json"


@dataclass(slots=True)
class ApiRoutes:
    """The routes found for one function (lambdafuzz.yaml `trigger.routes` entries) and
    what the template says about them that lambdafuzz does not model."""

    routes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(
        self,
        method: str,
        path: str,
        content_types: tuple[str, ...] = (),
        required: Mapping[str, tuple[str, ...]] | None = None,
        auth: RouteAuth = RouteAuth.NONE,
    ) -> None:
        """One route; `required`: {"query": names, "headers": names} every request has;
        `auth`: its authorizer.  The same route twice (an event and the definition)
        merges what each says."""
        route: dict[str, Any] = {"method": method, "path": path}
        for key, values in {"content_types": content_types, **(required or {})}.items():
            if values:
                route[key] = list(values)
        if auth is not RouteAuth.NONE:
            route["auth"] = auth.value
        for existing in self.routes:
            if existing["method"] == method and existing["path"] == path:
                if "auth" in route:
                    existing.setdefault("auth", route["auth"])
                for key in ("content_types", "query", "headers"):
                    merged = dict.fromkeys([*existing.get(key, []), *route.get(key, [])])
                    if merged:
                        existing[key] = list(merged)
                return
        self.routes.append(route)


def event_routes(template: Template, function: str, events: list[TemplateEvent]) -> ApiRoutes:
    """Routes of the function's API events (all of one kind), with those of the APIs'
    definitions that invoke the function."""
    found = ApiRoutes()
    apis: dict[str, None] = {}
    for event in events:
        props = event.properties
        path, method = props.get("Path"), props.get("Method")
        if event.kind == "apigateway-v2" and path is None and method is None:
            found.add("ANY", DEFAULT_ROUTE)
        elif isinstance(path, str) and isinstance(method, str):
            loc = ("Resources", function, "Properties", "Events", event.name, "Properties")
            if len(path) > 1 and path.endswith("/"):  # API Gateway serves /a/ as /a
                path = path.rstrip("/") or "/"
            problem = route_path_problem(path)
            if problem is not None or path == DEFAULT_ROUTE and event.kind == "apigateway":
                raise template.error((*loc, "Path"), path, problem or 'a path starting with "/"')
            if method.upper() not in ROUTE_METHODS:
                raise template.error(
                    (*loc, "Method"), method, "an HTTP method: " + ", ".join(ROUTE_METHODS)
                )
            required = _request_parameters(props.get("RequestParameters"))
            if required is None:
                found.notes.append(
                    f"Events.{event.name}.RequestParameters: not a list of "
                    "method.request.querystring/header.NAME entries; not honoured"
                )
            api = logical_ref(props.get("RestApiId", props.get("ApiId")))
            auth, problem = event_auth(template, props, api, event.kind)
            if problem is not None:
                found.notes.append(f"Events.{event.name}.{problem}")
            found.add(method.upper(), path, (), required, auth)
        else:
            found.notes.append(
                f"Events.{event.name}: Path {path!r} / Method {method!r} are not literal "
                "strings; requests use any path and method"
            )
            return ApiRoutes(notes=found.notes)
        for key in props:
            if key == "Auth" and isinstance(props[key], dict) and set(props[key]) <= _AUTH_MODELLED:
                continue
            if key not in _ROUTE_PROPERTIES:
                note = _EVENT_NOTES.get(key, "not modelled")
                found.notes.append(f"Events.{event.name}.{key}: {note}")
        if props.get("PayloadFormatVersion") not in (None, "2.0"):
            found.notes.append(
                f"Events.{event.name}.PayloadFormatVersion: {props['PayloadFormatVersion']!r}; "
                "requests use payload format 2.0"
            )
        api = logical_ref(props.get("RestApiId", props.get("ApiId")))
        if api is not None:
            apis[api] = None
    kind = events[0].kind
    types = REST_API_TYPES if kind == "apigateway" else HTTP_API_TYPES
    for api in template.resources:
        if template.type_of(api) in types and (api in apis or _invokes(template, api, function)):
            _definition_routes(template, api, function, found)
    return found


def definition_routes(template: Template, function: str) -> tuple[str, ApiRoutes] | None:
    """(trigger kind, routes) of a function no event routes to but an API definition of
    the template invokes; None when none does."""
    for api in template.resources:
        kind = template.type_of(api)
        if kind in API_TYPES and _invokes(template, api, function):
            found = ApiRoutes()
            _definition_routes(template, api, function, found)
            if found.routes:
                return ("apigateway" if kind in REST_API_TYPES else "apigateway-v2"), found
    return None


def _definition(template: Template, api: str, notes: list[str]) -> Mapping[str, Any] | None:
    """The API's OpenAPI/Swagger document (`config.api_definitions`): inline, included or a
    local file; None without one, with a note when it cannot be read."""
    definition = api_definition(template, api)
    if definition is not None and definition.problem is not None:
        notes.append(definition.problem)
    return None if definition is None else definition.document


def _operations(document: Mapping[str, Any]) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    for path, item in document["paths"].items():
        if not isinstance(path, str) or not isinstance(item, dict):
            continue
        for key, operation in item.items():
            if key in _OPERATIONS and isinstance(operation, dict):
                yield path, _OPERATIONS[key], operation


def _invokes(template: Template, api: str, function: str) -> bool:
    document = _definition(template, api, [])
    return document is not None and any(
        _mentions(op.get("x-amazon-apigateway-integration", {}).get("uri"), function)
        for _, _, op in _operations(document)
        if isinstance(op.get("x-amazon-apigateway-integration"), dict)
    )


#: API properties that gate requests before they reach the function.
_API_NOTES = {
    "UsagePlan": "usage plans are not modelled",
}
#: API `Auth` keys modelled (`config.route_auth`): the others are noted.
_API_AUTH_MODELLED = frozenset(
    {
        "Authorizers",
        "DefaultAuthorizer",
        "AddDefaultAuthorizerToCorsPreflight",
        "EnableIamAuthorizer",
    }
)


def _definition_routes(template: Template, api: str, function: str, found: ApiRoutes) -> None:
    for key, note in _API_NOTES.items():
        if key in template.properties(api):
            found.notes.append(f"Resources.{api}.{key}: {note}")
    auth = api_auth(template, api, "")
    others = sorted(k for k in auth if k not in _API_AUTH_MODELLED)
    if others:
        found.notes.append(
            f"Resources.{api}.Auth: {', '.join(others)} not modelled (API keys, resource "
            "policies); every generated request reaches the handler"
        )
    document = _definition(template, api, found.notes)
    if document is None:
        return
    for path, method, operation in _operations(document):
        integration = operation.get("x-amazon-apigateway-integration")
        if not isinstance(integration, dict) or not _mentions(integration.get("uri"), function):
            continue
        where = f"Resources.{api} paths.{path}.{method.lower()}"
        problem = route_path_problem(path)
        if problem is not None:
            found.notes.append(f"{where}: path not understood ({problem}); not fuzzed")
            continue
        parameters = [*_item_parameters(document, path), *_list(operation.get("parameters"))]
        required: dict[str, tuple[str, ...]] = {"query": (), "headers": ()}
        for parameter in parameters:
            parameter = _resolve(document, parameter["$ref"]) if "$ref" in parameter else parameter
            if not isinstance(parameter, dict) or parameter.get("required") is not True:
                continue
            name, place = parameter.get("name"), parameter.get("in")
            key = {"query": "query", "header": "headers"}.get(
                place if isinstance(place, str) else ""
            )
            if key is not None and isinstance(name, str) and name:
                required[key] = (*required[key], name)
        content_types = _content_types(document, operation, where, found.notes)
        auth = openapi_auth(document, operation)
        if auth is None:
            found.notes.append(f"{where}.security: an authorizer lambdafuzz does not know")
            auth = RouteAuth.NONE
        elif auth is RouteAuth.NONE and "security" not in {**document, **operation}:
            # SAM adds the API's default authorizer to operations that name none
            auth, _ = event_auth(template, {}, api, "")
        found.add(method, path, content_types, required, auth)


def _item_parameters(document: Mapping[str, Any], path: str) -> list[dict[str, Any]]:
    """Parameters declared for every operation of a path."""
    item = document["paths"].get(path)
    return _list(item.get("parameters")) if isinstance(item, dict) else []


def _list(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _request_parameters(value: Any) -> dict[str, tuple[str, ...]] | None:
    """SAM `RequestParameters` -> the required {"query": names, "headers": names}; None
    when the value is not a list of `method.request.querystring|header.NAME` entries."""
    required: dict[str, tuple[str, ...]] = {"query": (), "headers": ()}
    if value is None:
        return required
    if not isinstance(value, list):
        return None
    for entry in value:
        if isinstance(entry, str):
            name, settings = entry, {}
        elif isinstance(entry, dict) and len(entry) == 1:
            ((name, settings),) = entry.items()
        else:
            return None
        match = re.fullmatch(r"method\.request\.(querystring|header|path)\.(.+)", str(name))
        if match is None:
            return None
        if isinstance(settings, dict) and settings.get("Required") in (True, "true"):
            key = {"querystring": "query", "header": "headers"}.get(match.group(1))
            if key is not None:
                required[key] = (*required[key], match.group(2))
    return required


def _content_types(
    document: Mapping[str, Any], operation: Mapping[str, Any], where: str, notes: list[str]
) -> tuple[str, ...]:
    """The request content types of an operation (OpenAPI 3 `requestBody.content`,
    Swagger 2 `consumes`); body schemas are noted, not generated from."""
    body = operation.get("requestBody")
    if isinstance(body, dict) and "$ref" in body:
        body = _resolve(document, body["$ref"])
    if isinstance(body, dict) and isinstance(body.get("content"), dict):
        types = tuple(t for t in body["content"] if isinstance(t, str) and _MEDIA_TYPE.fullmatch(t))
        if any(isinstance(m, dict) and "schema" in m for m in body["content"].values()):
            notes.append(
                f"{where}.requestBody: body schemas are not generated from; bodies are any "
                "document of the content type"
            )
        return types
    consumes = operation.get("consumes", document.get("consumes"))
    if any(isinstance(p, dict) and p.get("in") == "body" for p in operation.get("parameters", [])):
        notes.append(f"{where}.parameters: the body schema is not generated from")
    if isinstance(consumes, list):
        return tuple(t for t in consumes if isinstance(t, str) and _MEDIA_TYPE.fullmatch(t))
    return ()


def _resolve(document: Mapping[str, Any], ref: Any) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    value: Any = document
    for part in ref[2:].split("/"):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _mentions(value: Any, function: str) -> bool:
    """Whether an integration URI refers to the function: `${F.Arn}` in a Sub, `!GetAtt
    F.Arn`, `!Ref F` (or an alias of it: `${F.Alias}`), at any depth."""
    if isinstance(value, str):
        return re.search(r"\$\{" + re.escape(function) + r"(\.[A-Za-z.]+)?\}", value) is not None
    if isinstance(value, dict):
        if logical_ref(value) == function:
            return True
        return any(_mentions(v, function) for v in value.values())
    if isinstance(value, list):
        return bool(value) and (value[0] == function or any(_mentions(v, function) for v in value))
    return False


__all__ = [
    "API_TYPES",
    "FORM_TYPE",
    "ROUTE_METHODS",
    "ApiRoutes",
    "definition_routes",
    "event_routes",
    "header_name_problem",
    "media_type_problem",
    "route_path_problem",
]
