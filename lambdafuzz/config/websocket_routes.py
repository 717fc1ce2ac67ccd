"""The WebSocket API routes of one function, from what a CloudFormation template declares.

A WebSocket API (`AWS::ApiGatewayV2::Api` with `ProtocolType: WEBSOCKET`) sends each of
its routes (`AWS::ApiGatewayV2::Route`, `RouteKey` `$connect`, `$disconnect`,
`$default` or an action) to the integration its `Target` names (`integrations/<id>`,
written with `!Ref`, `!Join` or `!Sub`), an `AWS::ApiGatewayV2::Integration` whose
`IntegrationUri` names the function.  The function then gets that route's events only
(`generators.aws.websocket`): `websocket_routes` lists their keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lambdafuzz.config.function_references import named_ids
from lambdafuzz.config.sam_template import Template, logical_ref

API_TYPE = "AWS::ApiGatewayV2::Api"
ROUTE_TYPE = "AWS::ApiGatewayV2::Route"
INTEGRATION_TYPE = "AWS::ApiGatewayV2::Integration"


@dataclass(slots=True, frozen=True)
class WebSocketRoutes:
    """The routes of WebSocket APIs that invoke one function."""

    where: str  # the first route's place, for messages
    route_keys: tuple[str, ...]


def websocket_routes(template: Template, function: str) -> WebSocketRoutes | None:
    """The route keys whose integration invokes `function`, or None when none does."""
    integrations = {
        logical_id
        for logical_id in template.resources
        if template.type_of(logical_id) == INTEGRATION_TYPE
        and function in named_ids(template.properties(logical_id).get("IntegrationUri"))
    }
    if not integrations:
        return None
    keys: list[str] = []
    where = ""
    for logical_id in template.resources:
        if template.type_of(logical_id) != ROUTE_TYPE:
            continue
        props = template.properties(logical_id)
        key = props.get("RouteKey")
        if not isinstance(key, str) or not _is_websocket(template, props):
            continue
        if integrations & set(named_ids(props.get("Target"))):  # `integrations/${X}`
            keys.append(key)
            where = where or f"Resources.{logical_id}"
    return WebSocketRoutes(where, tuple(dict.fromkeys(keys))) if keys else None


def _is_websocket(template: Template, route: Mapping[str, Any]) -> bool:
    api = logical_ref(route.get("ApiId"))
    protocol = template.properties(api).get("ProtocolType") if api else None
    return template.type_of(api or "") == API_TYPE and protocol == "WEBSOCKET"
