"""API Gateway WebSocket API events: a client connecting, sending a message, going away.

A function behind a WebSocket API's routes gets one event per route hit
(`Trigger.route_keys`): `$connect` (eventType CONNECT, the handshake's headers and query
string), `$disconnect` (DISCONNECT, a status code and reason) and any other key (MESSAGE,
a `messageId` and the frame as `body`).  A custom route's body is a JSON object whose
`action` is the route key (the route selection expression `$request.body.action` picked
the route by it); a `$default` body is JSON with another action or none, or now and then
plain text.  The connection id is now and then one of the world's strings: a connection
a table already records (`CONNECTION_FROM_WORLD_P`).
Labels: `event.websocket` > `http.headers`, `http.query`, `http.body`.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.s3_notifications import source_ip
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.generators.files.json_files import json_objects
from lambdafuzz.model.world import LoadedWorld

CONNECT: Final = "$connect"
DISCONNECT: Final = "$disconnect"
DEFAULT: Final = "$default"
API_ID: Final = "w1s2k3t4a5"
STAGES: Final = ("production", "dev", "prod")
#: How often the connection id is a string of the world (a connection already stored).
CONNECTION_FROM_WORLD_P: Final = 0.3
#: How often a `$default` frame is not JSON.
TEXT_P: Final = 0.1
#: (status code, reason) of a disconnect: the client closing, going away, timing out.
DISCONNECTS: Final = (
    (1000, "Client-side close frame status code '1000' (NORMAL_CLOSURE)"),
    (1001, "Client-side close frame status code '1001' (GOING_AWAY)"),
    (1006, "Going away"),
    (1001, "Connection idle timeout"),
)
VALUE_ALPHABET: Final = string.ascii_letters + string.digits + "-_."


@dataclass(slots=True, frozen=True)
class WebSocketPlan:
    """One event of a WebSocket connection; ids derive from `seed`."""

    route_key: str
    connection_id: str
    body: str | None  # MESSAGE only
    query: tuple[tuple[str, str], ...]  # CONNECT only
    disconnect: int  # index into DISCONNECTS (DISCONNECT only)
    connected_ms: int
    time_ms: int
    seed: bytes


def event_type(route_key: str) -> str:
    return {CONNECT: "CONNECT", DISCONNECT: "DISCONNECT"}.get(route_key, "MESSAGE")


def draw_websocket(
    choices: Choices, route_keys: Sequence[str], local: Sequence[str]
) -> WebSocketPlan:
    """An event on one of `route_keys` (a `draw_choice`: mutation switches routes)."""
    keys = tuple(route_keys) or (CONNECT, DISCONNECT, DEFAULT)
    route = choices.draw_choice(keys, site="route")
    seed = ids.draw_seed(choices)
    connection = ids.b64_id(seed, "connection", 12)
    if local and choices.draw_boolean(CONNECTION_FROM_WORLD_P, site="connection-from-world?"):
        connection = encodable(choices.draw_choice(local, site="connection")) or connection
    body: str | None = None
    query: list[tuple[str, str]] = []
    disconnect = 0
    if route == CONNECT:
        with choices.scope(labels.HTTP_QUERY):
            for _ in range(choices.draw_geometric(0.7, max_value=4, site="count")):
                query.append((_name(choices), _value(choices)))
    elif route == DISCONNECT:
        disconnect = choices.draw_integer(0, len(DISCONNECTS) - 1, site="disconnect")
    else:
        with choices.scope(labels.HTTP_BODY):
            body = _draw_body(choices, route, keys)
    time_ms = ids.draw_time_ms(choices)
    age = 0 if route == CONNECT else choices.draw_geometric(60_000.0, site="connected-for")
    return WebSocketPlan(
        route, connection, body, tuple(query), disconnect, time_ms - age, time_ms, seed
    )


def _name(choices: Choices) -> str:
    if choices.fields and choices.draw_boolean(0.5, site="name-from-code?"):
        return choices.draw_choice(choices.fields, site="name")
    return encodable(choices.draw_string(string.ascii_lowercase, 1, 10, site="name")) or "q"


def _value(choices: Choices) -> str:
    value = choices.draw_from_dictionary(
        lambda: choices.draw_string(VALUE_ALPHABET, 1, 24, site="value")
    )
    return encodable(value) or "x"


def _draw_body(choices: Choices, route: str, keys: Sequence[str]) -> str:
    """A frame's text: `{"action": <route>, ...}` on a custom route; on `$default` JSON
    whose action no other route takes (or no action), now and then plain text."""
    if route == DEFAULT and choices.draw_boolean(TEXT_P, site="text?"):
        return encodable(choices.draw_string(min_size=0, max_size=64, site="text"))
    payload = json_objects(choices, max_depth=3)
    payload.pop("action", None)
    if route != DEFAULT:
        payload = {"action": route, **payload}
    elif choices.draw_boolean(0.5, site="action?"):
        action = _name(choices)
        payload = {"action": action if action not in keys else f"{action}-other", **payload}
    return json.dumps(payload, ensure_ascii=False)


# --------------------------------------------------------------------------- rendering
def render_websocket(plan: WebSocketPlan, loaded: LoadedWorld) -> dict[str, Any]:
    """The event as API Gateway sends it to the route's integration."""
    region = loaded.world.region
    domain = f"{API_ID}.execute-api.{region}.amazonaws.com"
    stage = STAGES[ids.derive(plan.seed, "stage", 1)[0] % len(STAGES)]
    kind = event_type(plan.route_key)
    context: dict[str, Any] = {
        "routeKey": plan.route_key,
        "eventType": kind,
        "extendedRequestId": ids.b64_id(plan.seed, "extended", 12),
        "requestTime": ids.clf_time(plan.time_ms),
        "messageDirection": "IN",
        "stage": stage,
        "connectedAt": plan.connected_ms,
        "requestTimeEpoch": plan.time_ms,
        "identity": {"sourceIp": source_ip(plan.seed)},
        "requestId": ids.b64_id(plan.seed, "request", 12),
        "domainName": domain,
        "connectionId": plan.connection_id,
        "apiId": API_ID,
    }
    event: dict[str, Any] = {}
    if kind == "MESSAGE":
        context["messageId"] = ids.b64_id(plan.seed, "message", 12)
        event["body"] = plan.body
    elif kind == "CONNECT":
        context["identity"]["userAgent"] = "Python/3.12 websockets/12.0"
        headers = {
            "Host": domain,
            "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits",
            "Sec-WebSocket-Key": ids.b64_id(plan.seed, "key", 16),
            "Sec-WebSocket-Version": "13",
            "X-Amzn-Trace-Id": f"Root=1-{ids.hex_id(plan.seed, 'trace', 24, upper=False)}",
            "X-Forwarded-For": source_ip(plan.seed),
            "X-Forwarded-Port": "443",
            "X-Forwarded-Proto": "https",
        }
        event["headers"] = headers
        event["multiValueHeaders"] = {k: [v] for k, v in headers.items()}
        if plan.query:
            single: dict[str, str] = {}
            multi: dict[str, list[str]] = {}
            for name, value in plan.query:
                single[name] = value
                multi.setdefault(name, []).append(value)
            event["queryStringParameters"] = single
            event["multiValueQueryStringParameters"] = multi
    else:
        code, reason = DISCONNECTS[plan.disconnect]
        context["disconnectStatusCode"] = code
        context["disconnectReason"] = reason
        headers = {
            "Host": domain,
            "x-api-key": "",
            "X-Forwarded-For": "",
            "x-restapi": "",
        }
        event["headers"] = headers
        event["multiValueHeaders"] = {k: [v] for k, v in headers.items()}
    event["requestContext"] = context
    event["isBase64Encoded"] = False
    return event
