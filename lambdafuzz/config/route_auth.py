"""The authorizer in front of an API route, from what a SAM/CloudFormation template says.

A function behind a route with an authorizer always receives the authorizer's output in
`requestContext` (`generators.aws.route_auth`), so the route must say which one:

* a SAM `Api` / `HttpApi` event's `Auth.Authorizer` (a name, `NONE` or `AWS_IAM`), else
  the API's `Auth.DefaultAuthorizer` (an event without `RestApiId` / `ApiId` uses the
  implicit API, whose `Auth` is in `Globals.Api` / `Globals.HttpApi`);
* the name's definition in the API's `Auth.Authorizers`: `UserPoolArn` -> a Cognito user
  pool, `FunctionArn` -> a Lambda authorizer, `JwtConfiguration` -> JWT; `AWS_IAM` -> IAM;
* an OpenAPI operation's `security` (else the document's): the named scheme's
  `x-amazon-apigateway-authorizer` `type` (`cognito_user_pools`, `token`, `request`,
  `jwt`), or `x-amazon-apigateway-authtype: awsSigv4` -> IAM; an operation without
  `security` under an API whose SAM `Auth` names a default authorizer has that one.
Routes of plain `AWS::ApiGateway::Method` resources are not imported (`api_routes`), so
neither are their `AuthorizerId`s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lambdafuzz.config.sam_template import Template
from lambdafuzz.model.target import RouteAuth

#: OpenAPI `x-amazon-apigateway-authorizer.type` -> the route's authorizer.
_OPENAPI_TYPES = {
    "cognito_user_pools": RouteAuth.COGNITO,
    "token": RouteAuth.LAMBDA,
    "request": RouteAuth.LAMBDA,
    "jwt": RouteAuth.JWT,
}
_GLOBALS = {"apigateway": "Api", "apigateway-v2": "HttpApi"}


def api_auth(template: Template, api: str | None, kind: str) -> Mapping[str, Any]:
    """The `Auth` of the API an event names (None: the implicit API), over the `Auth` of
    the template's `Globals.Api` / `Globals.HttpApi` for SAM APIs."""
    api_type = template.type_of(api) if api is not None else None
    section_name = _GLOBALS.get(kind) or {
        "AWS::Serverless::Api": "Api",
        "AWS::Serverless::HttpApi": "HttpApi",
    }.get(api_type or "", "")
    globals_ = template.data.get("Globals")
    section = globals_.get(section_name) if isinstance(globals_, dict) else None
    shared = section.get("Auth") if isinstance(section, dict) else None
    shared = shared if isinstance(shared, dict) and (api is None or section_name) else {}
    own = template.properties(api).get("Auth") if api is not None else None
    if api_type is not None and not api_type.startswith("AWS::Serverless::"):
        shared = {}  # Globals apply to SAM's resources only
    return {**shared, **(own if isinstance(own, dict) else {})}


def event_auth(
    template: Template, event_props: Mapping[str, Any], api: str | None, kind: str
) -> tuple[RouteAuth, str | None]:
    """(The authorizer of a SAM API event's route, a note when it is not understood)."""
    auth = api_auth(template, api, kind)
    event = event_props.get("Auth")
    name = event.get("Authorizer") if isinstance(event, dict) else None
    if name is None:
        name = auth.get("DefaultAuthorizer")
    if name is None:
        return RouteAuth.NONE, None
    if not isinstance(name, str):
        return RouteAuth.NONE, f"Auth.Authorizer {name!r} is not a name; requests carry none"
    if name.upper() == "NONE":
        return RouteAuth.NONE, None
    if name == "AWS_IAM":
        return RouteAuth.IAM, None
    definitions = auth.get("Authorizers")
    spec = definitions.get(name) if isinstance(definitions, dict) else None
    found = _sam_definition(spec) if isinstance(spec, dict) else None
    if found is None:
        return RouteAuth.NONE, f"authorizer {name!r} is not defined; requests carry none"
    return found, None


def _sam_definition(spec: Mapping[str, Any]) -> RouteAuth | None:
    if "UserPoolArn" in spec:
        return RouteAuth.COGNITO
    if "FunctionArn" in spec:
        return RouteAuth.LAMBDA
    if "JwtConfiguration" in spec:
        return RouteAuth.JWT
    return None


def openapi_auth(document: Mapping[str, Any], operation: Mapping[str, Any]) -> RouteAuth | None:
    """An OpenAPI operation's authorizer (its `security`, else the document's); None when
    a scheme it names is not one lambdafuzz understands."""
    security = operation.get("security", document.get("security"))
    if not isinstance(security, list) or not security:
        return RouteAuth.NONE
    schemes = _schemes(document)
    for requirement in security:  # alternatives: the first one that says something
        if not isinstance(requirement, dict):
            continue
        if not requirement:  # `{}`: no authorization is one of the alternatives
            return RouteAuth.NONE
        for name in requirement:
            scheme = schemes.get(name)
            if not isinstance(scheme, dict):
                continue
            if str(scheme.get("x-amazon-apigateway-authtype", "")).lower() == "awssigv4":
                return RouteAuth.IAM
            authorizer = scheme.get("x-amazon-apigateway-authorizer")
            if isinstance(authorizer, dict):
                found = _OPENAPI_TYPES.get(str(authorizer.get("type", "")).lower())
                if found is not None:
                    return found
    return None


def _schemes(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """Swagger 2 `securityDefinitions`, OpenAPI 3 `components.securitySchemes`."""
    found = document.get("securityDefinitions")
    if isinstance(found, dict):
        return found
    components = document.get("components")
    found = components.get("securitySchemes") if isinstance(components, dict) else None
    return found if isinstance(found, dict) else {}
