"""The OpenAPI/Swagger definition of an API resource, wherever the template keeps it.

An API's definition is inline (`DefinitionBody` of `AWS::Serverless::Api` / `HttpApi`,
`Body` of `AWS::ApiGateway::RestApi` / `AWS::ApiGatewayV2::Api`), an `AWS::Include` of a
file (`DefinitionBody: {Fn::Transform: {Name: AWS::Include, Parameters: {Location:
./api.yaml}}}`), or a file named by `DefinitionUri` / `BodyS3Location`.  A local file is
read relative to the template, YAML or JSON, with CloudFormation's tags: the intrinsic
functions inside an included file (`Fn::Sub`, `Fn::GetAtt`) resolve as in the template.
A file in S3 cannot be read; that, a missing file or one that is no OpenAPI document is
the definition's `problem`, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from lambdafuzz.config.sam_template import Template, read_fragment
from lambdafuzz.errors import ConfigError

#: API resource types -> (the inline definition key, the file location key).
DEFINITION_KEYS: Final = {
    "AWS::Serverless::Api": ("DefinitionBody", "DefinitionUri"),
    "AWS::Serverless::HttpApi": ("DefinitionBody", "DefinitionUri"),
    "AWS::ApiGateway::RestApi": ("Body", "BodyS3Location"),
    "AWS::ApiGatewayV2::Api": ("Body", "BodyS3Location"),
}
INCLUDE: Final = "AWS::Include"


@dataclass(slots=True, frozen=True)
class ApiDefinition:
    """An API's definition: its document, or why it was not read."""

    api: str  # logical id
    key: str  # the property holding it: DefinitionBody, Body, DefinitionUri, BodyS3Location
    source: str | None  # the local file read (as the template names it); None: inline
    document: Mapping[str, Any] | None  # with `paths`; None when not read
    problem: str | None = None  # "Resources.Api.DefinitionUri: ...", when not read


def api_definition(template: Template, api: str) -> ApiDefinition | None:
    """The definition of API resource `api`; None when it has none (SAM builds it from
    the functions' events, or `AWS::ApiGateway::Method` resources make it)."""
    keys = DEFINITION_KEYS.get(template.type_of(api) or "")
    if keys is None:
        return None
    props = template.properties(api)
    body_key, uri_key = keys
    if body_key in props:
        body = props[body_key]
        location = _include_location(body)
        if location is None:
            if isinstance(body, dict) and isinstance(body.get("paths"), dict):
                return ApiDefinition(api, body_key, None, body)
            found = ", ".join(map(str, body)) if isinstance(body, dict) else type(body).__name__
            return ApiDefinition(
                api,
                body_key,
                None,
                None,
                f"Resources.{api}.{body_key}: not an inline OpenAPI document with `paths` "
                f"({found or 'empty'}) nor an AWS::Include of a local file; not read",
            )
        return _file(template, api, body_key, location, f"AWS::Include of {location!r}")
    if uri_key in props:
        return _file(template, api, uri_key, props[uri_key], repr(props[uri_key]))
    return None


def with_definitions(template: Template, definitions: Mapping[str, ApiDefinition]) -> Template:
    """The template with each definition read from a file in place of its `AWS::Include`
    or file location, so what the file refers to (roles, tables) is seen as the API's."""
    resources = dict(template.data.get("Resources") or {})
    changed = False
    for api, definition in definitions.items():
        if definition.source is None or definition.document is None:
            continue
        props = {k: v for k, v in template.properties(api).items() if k != definition.key}
        body_key = DEFINITION_KEYS[template.type_of(api) or ""][0]
        props[body_key] = definition.document
        resources[api] = {**template.resource(api), "Properties": props}
        changed = True
    if not changed:
        return template
    return replace(template, data={**template.data, "Resources": resources})


def api_definitions(template: Template) -> dict[str, ApiDefinition]:
    """The definitions of the template's APIs, by logical id."""
    found = {}
    for api in template.resources:
        definition = api_definition(template, api)
        if definition is not None:
            found[api] = definition
    return found


def _include_location(body: Any) -> Any:
    """The `Location` of an `AWS::Include` transform, None when `body` is none."""
    transform = body.get("Fn::Transform") if isinstance(body, dict) and len(body) == 1 else None
    if not isinstance(transform, dict) or transform.get("Name") != INCLUDE:
        return None
    parameters = transform.get("Parameters")
    location = parameters.get("Location") if isinstance(parameters, dict) else None
    return location if location is not None else ""


def _file(template: Template, api: str, key: str, location: Any, what: str) -> ApiDefinition:
    """The definition in the local file `location` names (relative to the template)."""
    where = f"Resources.{api}.{key}"
    if not isinstance(location, str) or not location or "://" in location:
        return ApiDefinition(
            api, key, None, None, f"{where}: {what} is not a local file; its definition is not read"
        )
    try:
        document = read_fragment(template.path.parent / location)
    except ConfigError as exc:
        return ApiDefinition(api, key, None, None, f"{where}: {location} cannot be read ({exc})")
    if not (isinstance(document, dict) and isinstance(document.get("paths"), dict)):
        return ApiDefinition(
            api, key, None, None, f"{where}: {location} is not an OpenAPI document with `paths`"
        )
    return ApiDefinition(api, key, location, document)
