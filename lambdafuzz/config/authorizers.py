"""Functions a template uses as API Gateway Lambda authorizers, and the events they receive.

An authorizer function has no `Events`: API Gateway calls it before each request of the
API whose auth names it.  Read as a direct invocation, it would get arbitrary JSON and
never a token; `function_authorizer` finds the declaration instead and says which event
it gets (`AuthorizerFormat`) and which identity sources every call carries:

* SAM `AWS::Serverless::Api` `Auth.Authorizers.<name>` with `FunctionArn`: a TOKEN
  authorizer (`Identity.Header`, default `Authorization`), or REQUEST with
  `FunctionPayloadType: REQUEST` (`Identity.Headers`, `QueryStrings`, `StageVariables`,
  `Context`);
* SAM `AWS::Serverless::HttpApi` `Auth.Authorizers.<name>` with `FunctionArn`: payload
  format `AuthorizerPayloadFormatVersion` 1.0 or 2.0 (default 2.0), `Identity` as above;
* `AWS::ApiGateway::Authorizer` (`Type` TOKEN or REQUEST, `IdentitySource`
  `method.request.header.X`, ...) and `AWS::ApiGatewayV2::Authorizer`
  (`AuthorizerPayloadFormatVersion`, `IdentitySource` `$request.header.X`, ...), whose
  `AuthorizerUri` names the function.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lambdafuzz.config.function_references import named_ids
from lambdafuzz.config.sam_template import Template, logical_ref
from lambdafuzz.model.target import AuthorizerFormat

#: Prefixes of identity source expressions -> the `place.` of `Trigger.identity_sources`.
_SOURCE_PREFIXES = (
    ("method.request.header.", "header."),
    ("method.request.querystring.", "query."),
    ("$request.header.", "header."),
    ("$request.querystring.", "query."),
    ("stageVariables.", "stage."),
    ("$stageVariables.", "stage."),
    ("context.", "context."),
    ("$context.", "context."),
)
#: SAM `Identity` keys -> the `place.` of the sources they list.
_IDENTITY_KEYS = (
    ("Header", "header."),
    ("Headers", "header."),
    ("QueryStrings", "query."),
    ("StageVariables", "stage."),
    ("Context", "context."),
)


@dataclass(slots=True, frozen=True)
class AuthorizerUse:
    """How a template uses a function as an authorizer."""

    where: str  # "Resources.Api.Properties.Auth.Authorizers.Tokens", for messages
    format: AuthorizerFormat
    identity: tuple[str, ...]  # `place.name`, in the declaration's order
    notes: tuple[str, ...] = ()  # what the declaration says that lambdafuzz does not model


def function_authorizer(template: Template, function: str) -> AuthorizerUse | None:
    """The first authorizer declaration of the template that names `function`, or None."""
    for logical_id in template.resources:
        kind = template.type_of(logical_id)
        props = template.properties(logical_id)
        if kind in ("AWS::Serverless::Api", "AWS::Serverless::HttpApi"):
            found = _sam_authorizer(logical_id, kind, props, function)
        elif kind == "AWS::ApiGateway::Authorizer" and _names(props, function):
            found = _rest_authorizer(logical_id, props)
        elif kind == "AWS::ApiGatewayV2::Authorizer" and _names(props, function):
            found = _http_authorizer(logical_id, props)
        else:
            found = None
        if found is not None:
            return found
    return None


def _names(props: Mapping[str, Any], function: str) -> bool:
    return function in named_ids(props.get("AuthorizerUri"))


def _sam_authorizer(
    logical_id: str, kind: str, props: Mapping[str, Any], function: str
) -> AuthorizerUse | None:
    auth = props.get("Auth")
    authorizers = auth.get("Authorizers") if isinstance(auth, dict) else None
    if not isinstance(authorizers, dict):
        return None
    for name, spec in authorizers.items():
        if not isinstance(spec, dict) or logical_ref(spec.get("FunctionArn")) != function:
            continue
        where = f"Resources.{logical_id}.Properties.Auth.Authorizers.{name}"
        identity = spec.get("Identity") if isinstance(spec.get("Identity"), dict) else {}
        sources = _sam_identity(identity)
        notes = []
        if "ValidationExpression" in identity:
            notes.append(f"{where}.Identity.ValidationExpression: not enforced on tokens")
        if kind == "AWS::Serverless::Api":
            if str(spec.get("FunctionPayloadType", "TOKEN")).upper() == "REQUEST":
                return AuthorizerUse(where, AuthorizerFormat.REQUEST, sources, tuple(notes))
            token = next((s for s in sources if s.startswith("header.")), "header.Authorization")
            return AuthorizerUse(where, AuthorizerFormat.TOKEN, (token,), tuple(notes))
        version = str(spec.get("AuthorizerPayloadFormatVersion", "2.0"))
        fmt = AuthorizerFormat.V1 if version.startswith("1") else AuthorizerFormat.V2
        return AuthorizerUse(where, fmt, sources or ("header.Authorization",), tuple(notes))
    return None


def _sam_identity(identity: Mapping[str, Any]) -> tuple[str, ...]:
    found: list[str] = []
    for key, place in _IDENTITY_KEYS:
        value = identity.get(key)
        for name in value if isinstance(value, list) else [value] if value else []:
            if isinstance(name, str) and name:
                found.append(place + name)
    return tuple(dict.fromkeys(found))


def _expressions(value: Any) -> tuple[str, ...]:
    """`IdentitySource` (a comma-separated string or a list) as `place.name` sources;
    expressions of another shape are left out."""
    parts = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    found: list[str] = []
    for part in parts:
        text = part.strip() if isinstance(part, str) else ""
        for prefix, place in _SOURCE_PREFIXES:
            if text.startswith(prefix) and len(text) > len(prefix):
                found.append(place + text[len(prefix) :])
                break
    return tuple(dict.fromkeys(found))


def _rest_authorizer(logical_id: str, props: Mapping[str, Any]) -> AuthorizerUse | None:
    kind = str(props.get("Type", "TOKEN")).upper()
    if kind not in ("TOKEN", "REQUEST"):
        return None  # COGNITO_USER_POOLS: no function behind it
    where = f"Resources.{logical_id}"
    sources = _expressions(props.get("IdentitySource"))
    if kind == "TOKEN":
        token = next((s for s in sources if s.startswith("header.")), "header.Authorization")
        return AuthorizerUse(where, AuthorizerFormat.TOKEN, (token,))
    return AuthorizerUse(where, AuthorizerFormat.REQUEST, sources)


def _http_authorizer(logical_id: str, props: Mapping[str, Any]) -> AuthorizerUse | None:
    if str(props.get("AuthorizerType", "REQUEST")).upper() != "REQUEST":
        return None  # JWT: no function behind it
    version = str(props.get("AuthorizerPayloadFormatVersion", "2.0"))
    fmt = AuthorizerFormat.V1 if version.startswith("1") else AuthorizerFormat.V2
    sources = _expressions(props.get("IdentitySource"))
    return AuthorizerUse(f"Resources.{logical_id}", fmt, sources)
